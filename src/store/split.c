/* Split results and split-point sweeps: the tables of migration 2 (schema.c). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-internal.h"

void ht_stored_split_init(struct ht_stored_split *sp)
{
    if (!sp)
        return;
    memset(sp, 0, sizeof *sp);
    sp->theoretical_seconds = sp->seconds = sp->min_seconds = -1;
    sp->kernel_seconds = sp->alone_seconds = -1;
    sp->max_abs_err = sp->max_rel_err = -1;
    sp->verified = -1;
    sp->predicted_seconds = -1;
}

static int put_device(struct ht_store *store, int64_t split_id, size_t i,
                      const struct ht_stored_split_device *d, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc;

    rc = ht__store_prepare(store,
                           "INSERT INTO split_devices (split_id, i, device_id, config, wg, "
                           "time_seconds, optimal_factor, adjusted_factor, slice_offset, "
                           "slice_size, own_offset, own_size, chunks, kernel_seconds, "
                           "write_seconds, read_seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                           "?, ?, ?, ?, ?, ?)",
                           &st, "cannot store split", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, split_id);
    sqlite3_bind_int64(st, 2, (int64_t)i);
    sqlite3_bind_int64(st, 3, d->device_id);
    sqlite3_bind_text(st, 4, d->config, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, (int64_t)d->wg);
    ht__store_bind_time(st, 6, d->time_seconds);
    ht__store_bind_time(st, 7, d->optimal_factor);
    ht__store_bind_time(st, 8, d->adjusted_factor);
    sqlite3_bind_int64(st, 9, (int64_t)d->offset);
    sqlite3_bind_int64(st, 10, (int64_t)d->size);
    sqlite3_bind_int64(st, 11, (int64_t)d->own_offset);
    sqlite3_bind_int64(st, 12, (int64_t)d->own_size);
    sqlite3_bind_int64(st, 13, (int64_t)d->chunks);
    ht__store_bind_time(st, 14, d->kernel_seconds);
    ht__store_bind_time(st, 15, d->write_seconds);
    ht__store_bind_time(st, 16, d->read_seconds);
    return ht__store_step_done(store, st, "cannot store split", err);
}

int ht_store_put_split(struct ht_store *store, const struct ht_stored_split *sp, int64_t *id,
                       struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int64_t split_id;
    int rc;

    if (!store || !sp)
        return ht_error_set(err, HT_EINVAL, "ht_store_put_split: %s is NULL",
                            !store ? "store" : "sp");
    if (sp->ndevices == 0 || !sp->devices || !sp->scheduler[0] ||
        !memchr(sp->scheduler, '\0', sizeof sp->scheduler) ||
        !memchr(sp->created_at, '\0', sizeof sp->created_at))
        return ht_error_set(err, HT_EINVAL, "malformed split: no devices or no scheduler");
    for (size_t i = 0; i < sp->ndevices; i++)
        if (!memchr(sp->devices[i].config, '\0', sizeof sp->devices[i].config))
            return ht_error_set(err, HT_EINVAL, "malformed split: device %zu's config", i);
    rc = ht__store_exec(store, "BEGIN IMMEDIATE", "cannot store split", err);
    if (rc != HT_OK)
        return rc;
    rc = ht__store_prepare(store,
                           "INSERT INTO splits (problem_id, scheduler, dim, global_size, "
                           "theoretical_seconds, seconds, min_seconds, kernel_seconds, "
                           "alone_seconds, verified, max_abs_err, max_rel_err, created_at, "
                           "predicted_seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                           "COALESCE(?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), ?)",
                           &st, "cannot store split", err);
    if (rc != HT_OK)
        goto cleanup;
    sqlite3_bind_int64(st, 1, sp->problem_id);
    sqlite3_bind_text(st, 2, sp->scheduler, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, (int)sp->dim);
    sqlite3_bind_int64(st, 4, (int64_t)sp->global);
    ht__store_bind_time(st, 5, sp->theoretical_seconds);
    ht__store_bind_time(st, 6, sp->seconds);
    ht__store_bind_time(st, 7, sp->min_seconds);
    ht__store_bind_time(st, 8, sp->kernel_seconds);
    ht__store_bind_time(st, 9, sp->alone_seconds);
    sqlite3_bind_int(st, 10, sp->verified);
    ht__store_bind_time(st, 11, sp->max_abs_err);
    ht__store_bind_time(st, 12, sp->max_rel_err);
    if (sp->created_at[0])
        sqlite3_bind_text(st, 13, sp->created_at, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 13);
    ht__store_bind_time(st, 14, sp->predicted_seconds > 0 ? sp->predicted_seconds : -1);
    if (sqlite3_step(st) != SQLITE_DONE) {
        rc = ht__store_fail(store, err, "cannot store split");
        goto cleanup;
    }
    split_id = sqlite3_last_insert_rowid(store->db);
    for (size_t i = 0; i < sp->ndevices && rc == HT_OK; i++)
        rc = put_device(store, split_id, i, &sp->devices[i], err);
    if (rc == HT_OK)
        rc = ht__store_exec(store, "COMMIT", "cannot store split", err);
    if (rc == HT_OK && id)
        *id = split_id;
cleanup:
    sqlite3_finalize(st);
    if (rc != HT_OK && !sqlite3_get_autocommit(store->db))
        sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int ht_store_put_sweep_point(struct ht_store *store, int64_t split_id,
                             const struct ht_stored_sweep_point *pt, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (!store || !pt)
        return ht_error_set(err, HT_EINVAL, "ht_store_put_sweep_point: %s is NULL",
                            !store ? "store" : "pt");
    rc = ht__store_prepare(store,
                           "INSERT OR REPLACE INTO sweep_points (split_id, i, factor, "
                           "theoretical_seconds, seconds, kernel_seconds, verified) VALUES "
                           "(?, ?, ?, ?, ?, ?, ?)",
                           &st, "cannot store sweep point", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, split_id);
    sqlite3_bind_int64(st, 2, (int64_t)pt->index);
    sqlite3_bind_double(st, 3, pt->factor);
    ht__store_bind_time(st, 4, pt->theoretical_seconds);
    ht__store_bind_time(st, 5, pt->seconds);
    ht__store_bind_time(st, 6, pt->kernel_seconds);
    sqlite3_bind_int(st, 7, pt->verified);
    return ht__store_step_done(store, st, "cannot store sweep point", err);
}

int ht_store_list_sweep(struct ht_store *store, int64_t split_id, ht_store_sweep_cb cb,
                        void *user, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc, r;

    if (!store || !cb)
        return ht_error_set(err, HT_EINVAL, "ht_store_list_sweep: %s is NULL",
                            !store ? "store" : "cb");

    rc = ht__store_prepare(store,
                           "SELECT i, factor, theoretical_seconds, seconds, kernel_seconds, "
                           "verified FROM sweep_points WHERE split_id = ? ORDER BY i",
                           &st, "cannot read sweep", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, split_id);
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct ht_stored_sweep_point pt;
        pt.index = (unsigned)sqlite3_column_int64(st, 0);
        pt.factor = sqlite3_column_double(st, 1);
        pt.theoretical_seconds = ht__store_column_time(st, 2);
        pt.seconds = ht__store_column_time(st, 3);
        pt.kernel_seconds = ht__store_column_time(st, 4);
        pt.verified = sqlite3_column_int(st, 5);
        rc = cb(&pt, user);
        if (rc != 0)
            goto cleanup;
    }
    if (r != SQLITE_DONE)
        rc = ht__store_fail(store, err, "cannot read sweep");
cleanup:
    sqlite3_finalize(st);
    return rc;
}

/* The columns read_split expects, in its order, after the split's id. */
#define SPLIT_COLUMNS                                                                      \
    "id, problem_id, scheduler, dim, global_size, theoretical_seconds, seconds, "          \
    "min_seconds, kernel_seconds, alone_seconds, verified, max_abs_err, max_rel_err, "     \
    "created_at, predicted_seconds"

/* Fills out (devices left alone) from the current row of a statement of SPLIT_COLUMNS. */
static void read_split(sqlite3_stmt *st, struct ht_stored_split *out)
{
    out->id = sqlite3_column_int64(st, 0);
    out->problem_id = sqlite3_column_int64(st, 1);
    ht__store_column_text(st, 2, out->scheduler, sizeof out->scheduler);
    out->dim = (unsigned)sqlite3_column_int(st, 3);
    out->global = (uint64_t)sqlite3_column_int64(st, 4);
    out->theoretical_seconds = ht__store_column_time(st, 5);
    out->seconds = ht__store_column_time(st, 6);
    out->min_seconds = ht__store_column_time(st, 7);
    out->kernel_seconds = ht__store_column_time(st, 8);
    out->alone_seconds = ht__store_column_time(st, 9);
    out->verified = sqlite3_column_int(st, 10);
    out->max_abs_err = ht__store_column_time(st, 11);
    out->max_rel_err = ht__store_column_time(st, 12);
    ht__store_column_text(st, 13, out->created_at, sizeof out->created_at);
    out->predicted_seconds = ht__store_column_time(st, 14);
}

/* Sets out->devices (allocated, owned by the caller; NULL when none) and out->ndevices to
 * split out->id's devices in order. HT_EDB, HT_ENOMEM. */
static int read_devices(struct ht_store *store, struct ht_stored_split *out,
                        struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    struct ht_stored_split_device *devs = NULL;
    size_t n = 0, cap = 0;
    int rc, r;

    out->ndevices = 0;
    out->devices = NULL;
    rc = ht__store_prepare(store,
                           "SELECT device_id, config, wg, time_seconds, optimal_factor, "
                           "adjusted_factor, slice_offset, slice_size, own_offset, own_size, "
                           "chunks, kernel_seconds, write_seconds, read_seconds FROM "
                           "split_devices WHERE split_id = ? ORDER BY i",
                           &st, "cannot read split", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, out->id);
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct ht_stored_split_device *d;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 4;
            struct ht_stored_split_device *grown = realloc(devs, c * sizeof *grown);
            if (!grown) {
                rc = ht_error_set(err, HT_ENOMEM, "out of memory");
                goto cleanup;
            }
            devs = grown;
            cap = c;
        }
        d = &devs[n++];
        memset(d, 0, sizeof *d);
        d->device_id = sqlite3_column_int64(st, 0);
        ht__store_column_text(st, 1, d->config, sizeof d->config);
        d->wg = (uint64_t)sqlite3_column_int64(st, 2);
        d->time_seconds = ht__store_column_time(st, 3);
        d->optimal_factor = ht__store_column_time(st, 4);
        d->adjusted_factor = ht__store_column_time(st, 5);
        d->offset = (uint64_t)sqlite3_column_int64(st, 6);
        d->size = (uint64_t)sqlite3_column_int64(st, 7);
        d->own_offset = (uint64_t)sqlite3_column_int64(st, 8);
        d->own_size = (uint64_t)sqlite3_column_int64(st, 9);
        d->chunks = (unsigned)sqlite3_column_int64(st, 10);
        d->kernel_seconds = ht__store_column_time(st, 11);
        d->write_seconds = ht__store_column_time(st, 12);
        d->read_seconds = ht__store_column_time(st, 13);
    }
    if (r != SQLITE_DONE) {
        rc = ht__store_fail(store, err, "cannot read split");
        goto cleanup;
    }
    out->ndevices = n;
    out->devices = devs;
    devs = NULL;
cleanup:
    sqlite3_finalize(st);
    free(devs);
    return rc;
}

int ht_store_get_split(struct ht_store *store, int64_t split_id, struct ht_stored_split *out,
                       struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc, r;

    if (!store || !out)
        return ht_error_set(err, HT_EINVAL, "ht_store_get_split: %s is NULL",
                            !store ? "store" : "out");

    ht_stored_split_init(out);
    rc = ht__store_prepare(store, "SELECT " SPLIT_COLUMNS " FROM splits WHERE id = ?", &st,
                           "cannot read split", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, split_id);
    r = sqlite3_step(st);
    if (r == SQLITE_DONE) {
        rc = HT_ENOTFOUND;
        goto cleanup;
    }
    if (r != SQLITE_ROW) {
        rc = ht__store_fail(store, err, "cannot read split");
        goto cleanup;
    }
    read_split(st, out);
    sqlite3_finalize(st);
    st = NULL;
    rc = read_devices(store, out, err);
cleanup:
    sqlite3_finalize(st);
    return rc;
}

int ht_store_list_splits(struct ht_store *store, int64_t problem_id, ht_store_split_cb cb,
                         void *user, struct ht_error *err)
{
    struct ht_stored_split sp;
    sqlite3_stmt *st = NULL;
    int rc, r;

    if (!store || !cb)
        return ht_error_set(err, HT_EINVAL, "ht_store_list_splits: %s is NULL",
                            !store ? "store" : "cb");

    /* With the filter and without, one text each: an OR of the two would read the whole
     * table (no index serves it); splits_problem holds a problem's splits in id order. */
    rc = ht__store_prepare(store,
                           problem_id ? "SELECT " SPLIT_COLUMNS " FROM splits "
                                        "WHERE problem_id = ?1 ORDER BY id"
                                      : "SELECT " SPLIT_COLUMNS " FROM splits "
                                        "WHERE ?1 = 0 ORDER BY id",
                           &st, "cannot read the splits", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, problem_id);
    /* While st is active the connection holds one read snapshot: each split's devices are
     * of the same state of the database as the split. */
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        ht_stored_split_init(&sp);
        read_split(st, &sp);
        rc = read_devices(store, &sp, err);
        if (rc == HT_OK)
            rc = cb(&sp, user);
        free(sp.devices);
        if (rc != 0)
            goto cleanup;
    }
    if (r != SQLITE_DONE)
        rc = ht__store_fail(store, err, "cannot read the splits");
cleanup:
    sqlite3_finalize(st);
    return rc;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* 1 when the sorted ids got[0..n) are want[0..n) sorted (want_sorted). */
static int same_devices(int64_t *got, size_t n, const int64_t *want_sorted)
{
    qsort(got, n, sizeof *got, cmp_id);
    return memcmp(got, want_sorted, n * sizeof *got) == 0;
}

int ht_store_split_errors(struct ht_store *store, int64_t problem_id,
                          const int64_t *device_ids, size_t n, struct ht_split_errors *out,
                          struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int64_t *want = NULL, *got = NULL, id = 0;
    size_t k = 0;
    int whole = 1, rc, step;
    double error = 0.0;

    if (!store || !out || (n && !device_ids))
        return ht_error_set(err, HT_EINVAL, "ht_store_split_errors: %s is NULL",
                            !store ? "store" : !out ? "out" : "device_ids");
    memset(out, 0, sizeof *out);
    if (n == 0)
        return HT_OK;
    want = malloc(n * sizeof *want);
    got = malloc(n * sizeof *got);
    if (!want || !got) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    memcpy(want, device_ids, n * sizeof *want);
    qsort(want, n, sizeof *want, cmp_id);
    /* Each split's devices in a run of rows: its error counts when they are the n wanted. */
    rc = ht__store_prepare(store,
                           "SELECT s.id, s.seconds / s.predicted_seconds - 1.0, d.device_id "
                           "FROM splits s JOIN split_devices d ON d.split_id = s.id "
                           "WHERE s.problem_id = ? AND s.predicted_seconds > 0 "
                           "AND s.seconds > 0 ORDER BY s.id, d.i",
                           &st, "cannot read the splits' predictions", err);
    if (rc != HT_OK)
        goto cleanup;
    sqlite3_bind_int64(st, 1, problem_id);
    for (;;) {
        step = sqlite3_step(st);
        if (step != SQLITE_ROW && step != SQLITE_DONE) {
            rc = ht__store_fail(store, err, "cannot read the splits' predictions");
            goto cleanup;
        }
        if (k > 0 && (step == SQLITE_DONE || sqlite3_column_int64(st, 0) != id)) {
            /* The rows of split id are all read. */
            if (whole && k == n && same_devices(got, n, want)) {
                if (out->count == 0 || error < out->min)
                    out->min = error;
                if (out->count == 0 || error > out->max)
                    out->max = error;
                out->newest = error;
                out->count++;
            }
            k = 0;
            whole = 1;
        }
        if (step == SQLITE_DONE)
            break;
        id = sqlite3_column_int64(st, 0);
        error = sqlite3_column_double(st, 1);
        if (k < n)
            got[k++] = sqlite3_column_int64(st, 2);
        else
            whole = 0; /* more devices than wanted */
    }
    rc = HT_OK;
cleanup:
    sqlite3_finalize(st);
    free(want);
    free(got);
    return rc;
}
