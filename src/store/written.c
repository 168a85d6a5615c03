/* Written buffers inferred by a probe: the table of migration 7 (schema.c), written and
 * read by a split of a spec whose written buffers have no "index". */
#include <stdio.h>
#include <string.h>

#include "store-internal.h"

int ht_store_put_written(struct ht_store *store, const struct ht_stored_written *w,
                         struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (!store)
        return ht_error_set(err, HT_EINVAL, "ht_store_put_written: store is NULL");
    if (!w)
        return ht_error_set(err, HT_EINVAL, "ht_store_put_written: w is NULL");
    if (!w->arg[0] || w->dim > 2 || w->axis > 2 || w->per_item == 0 ||
        w->per_item > INT64_MAX || w->halo_lo > INT64_MAX || w->halo_hi > INT64_MAX)
        return ht_error_set(err, HT_EINVAL, "malformed inference of a written buffer");
    rc = ht__store_prepare(store,
                           "INSERT OR REPLACE INTO written_maps (problem_id, arg, dim, layout, "
                           "axis, per_item, halo_lo, halo_hi, device_id, config, created_at) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                           "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                           &st, "cannot store an inferred written buffer", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, w->problem_id);
    sqlite3_bind_text(st, 2, w->arg, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 3, (int)w->dim);
    sqlite3_bind_text(st, 4, w->layout, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 5, (int)w->axis);
    sqlite3_bind_int64(st, 6, (int64_t)w->per_item);
    sqlite3_bind_int64(st, 7, (int64_t)w->halo_lo);
    sqlite3_bind_int64(st, 8, (int64_t)w->halo_hi);
    if (w->device_id > 0)
        sqlite3_bind_int64(st, 9, w->device_id);
    else
        sqlite3_bind_null(st, 9);
    sqlite3_bind_text(st, 10, w->config, -1, SQLITE_TRANSIENT);
    return ht__store_step_done(store, st, "cannot store an inferred written buffer", err);
}

int ht_store_get_written(struct ht_store *store, int64_t problem_id, const char *arg,
                         unsigned dim, struct ht_stored_written *out, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc, r;

    if (!store || !arg || !out)
        return ht_error_set(err, HT_EINVAL, "ht_store_get_written: %s is NULL",
                            !store ? "store" : !arg ? "arg" : "out");
    rc = ht__store_prepare(store,
                           "SELECT layout, axis, per_item, halo_lo, halo_hi, device_id, config, "
                           "created_at FROM written_maps WHERE problem_id = ? AND arg = ? AND "
                           "dim = ?",
                           &st, "cannot read an inferred written buffer", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, problem_id);
    sqlite3_bind_text(st, 2, arg, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 3, (int)dim);
    r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        out->problem_id = problem_id;
        snprintf(out->arg, sizeof out->arg, "%s", arg);
        out->dim = dim;
        ht__store_column_text(st, 0, out->layout, sizeof out->layout);
        out->axis = (unsigned)sqlite3_column_int(st, 1);
        out->per_item = (uint64_t)sqlite3_column_int64(st, 2);
        out->halo_lo = (uint64_t)sqlite3_column_int64(st, 3);
        out->halo_hi = (uint64_t)sqlite3_column_int64(st, 4);
        out->device_id = sqlite3_column_type(st, 5) == SQLITE_NULL
                             ? 0 : sqlite3_column_int64(st, 5);
        ht__store_column_text(st, 6, out->config, sizeof out->config);
        ht__store_column_text(st, 7, out->created_at, sizeof out->created_at);
    } else if (r == SQLITE_DONE) {
        rc = HT_ENOTFOUND;
    } else {
        rc = ht__store_fail(store, err, "cannot read an inferred written buffer");
    }
    sqlite3_finalize(st);
    return rc;
}
