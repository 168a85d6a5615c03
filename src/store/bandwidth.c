/* Host-device bandwidth: the table of migration 4 (schema.c), written by
 * `hetune devices --bandwidth` and read by the planner. */
#include <math.h>
#include <string.h>

#include "hetune/exec.h"
#include "store-internal.h"

/* The texts the bandwidth.path column holds, indexed by enum ht_data_path; auto is never
 * stored (a measurement is of a resolved path). Kept here rather than asked of exec, so
 * that the store reads its own column without the execution module. */
static const char *const path_texts[] = {NULL, "pageable", "pinned", "inplace"};

#define NPATHS (sizeof path_texts / sizeof path_texts[0])

static int rate_ok(double v)
{
    return v >= 0 && isfinite(v);
}

/* Binds a rate: 0 (not measured) is NULL. */
static void bind_rate(sqlite3_stmt *st, int i, double v)
{
    if (v > 0)
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

static double column_rate(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? 0.0 : sqlite3_column_double(st, i);
}

int ht_store_put_bandwidth(struct ht_store *store, int64_t device_id,
                           const struct ht_bandwidth *bw, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (!store)
        return ht_error_set(err, HT_EINVAL, "ht_store_put_bandwidth: store is NULL");
    if (!bw)
        return ht_error_set(err, HT_EINVAL, "ht_store_put_bandwidth: bw is NULL");
    if ((unsigned)bw->path >= NPATHS || !path_texts[bw->path])
        return ht_error_set(err, HT_EINVAL, "malformed bandwidth: no measured data path");
    if (bw->bytes == 0 || bw->bytes > INT64_MAX)
        return ht_error_set(err, HT_EINVAL, "malformed bandwidth: %llu bytes per transfer",
                            (unsigned long long)bw->bytes);
    if (!rate_ok(bw->h2d_Bps) || !rate_ok(bw->d2h_Bps) || !rate_ok(bw->pinned_h2d_Bps) ||
        !rate_ok(bw->pinned_d2h_Bps) || !rate_ok(bw->pageable_h2d_Bps) ||
        !rate_ok(bw->pageable_d2h_Bps))
        return ht_error_set(err, HT_EINVAL,
                            "malformed bandwidth: a rate is negative or not finite");
    rc = ht__store_prepare(store,
                           "INSERT INTO bandwidth (device_id, path, bytes, repeats, h2d_bps, "
                           "d2h_bps, pinned_h2d_bps, pinned_d2h_bps, pageable_h2d_bps, "
                           "pageable_d2h_bps, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                           "?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                           &st, "cannot store bandwidth", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, device_id);
    sqlite3_bind_text(st, 2, path_texts[bw->path], -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (int64_t)bw->bytes);
    sqlite3_bind_int64(st, 4, (int64_t)bw->repeats);
    bind_rate(st, 5, bw->h2d_Bps);
    bind_rate(st, 6, bw->d2h_Bps);
    bind_rate(st, 7, bw->pinned_h2d_Bps);
    bind_rate(st, 8, bw->pinned_d2h_Bps);
    bind_rate(st, 9, bw->pageable_h2d_Bps);
    bind_rate(st, 10, bw->pageable_d2h_Bps);
    return ht__store_step_done(store, st, "cannot store bandwidth", err);
}

int ht_store_get_bandwidth(struct ht_store *store, int64_t device_id, struct ht_bandwidth *out,
                           struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc, r;

    if (!store || !out)
        return ht_error_set(err, HT_EINVAL, "ht_store_get_bandwidth: %s is NULL",
                            !store ? "store" : "out");

    rc = ht__store_prepare(store,
                           "SELECT path, bytes, repeats, h2d_bps, d2h_bps, pinned_h2d_bps, "
                           "pinned_d2h_bps, pageable_h2d_bps, pageable_d2h_bps FROM bandwidth "
                           "WHERE device_id = ? ORDER BY id DESC LIMIT 1",
                           &st, "cannot read bandwidth", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, device_id);
    r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        const char *path = (const char *)sqlite3_column_text(st, 0);

        memset(out, 0, sizeof *out);
        for (size_t i = 1; path && i < NPATHS; i++)
            if (!strcmp(path, path_texts[i]))
                out->path = (enum ht_data_path)i;
        out->bytes = (uint64_t)sqlite3_column_int64(st, 1);
        out->repeats = (unsigned)sqlite3_column_int64(st, 2);
        out->h2d_Bps = column_rate(st, 3);
        out->d2h_Bps = column_rate(st, 4);
        out->pinned_h2d_Bps = column_rate(st, 5);
        out->pinned_d2h_Bps = column_rate(st, 6);
        out->pageable_h2d_Bps = column_rate(st, 7);
        out->pageable_d2h_Bps = column_rate(st, 8);
    } else if (r == SQLITE_DONE) {
        rc = HT_ENOTFOUND;
    } else {
        rc = ht__store_fail(store, err, "cannot read bandwidth");
    }
    sqlite3_finalize(st);
    return rc;
}
