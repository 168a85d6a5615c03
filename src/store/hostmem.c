/* The host memory's rate: the table of migration 9 (schema.c), written by
 * `hetune devices --bandwidth` and read by the split's bus model. Keyed by the machine's
 * hostname, since one database may travel between machines. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hetune/exec.h"
#include "store-internal.h"

const char *ht__store_host(struct ht_store *store)
{
    if (!store->host[0]) {
        if (gethostname(store->host, sizeof store->host - 1) != 0 || !store->host[0])
            snprintf(store->host, sizeof store->host, "localhost");
        store->host[sizeof store->host - 1] = '\0';
    }
    return store->host;
}

int ht_store_put_host_memory(struct ht_store *store, const struct ht_host_memory *hm,
                             struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (!hm || !(hm->Bps > 0 && isfinite(hm->Bps)) || !(hm->read_Bps >= 0 &&
        isfinite(hm->read_Bps)) || !(hm->shared_Bps >= 0 && isfinite(hm->shared_Bps)) || hm->bytes == 0 || hm->bytes > INT64_MAX || hm->threads == 0)
        return ht_error_set(err, HT_EINVAL, "malformed host memory rate: nothing measured");
    rc = ht__store_prepare(store,
                           "INSERT INTO host_memory (hostname, bytes, threads, repeats, bps, "
                           "read_bps, shared_bps, shared_threads, shared_devices, created_at) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                           "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                           &st, "cannot store the host memory's rate", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_text(st, 1, ht__store_host(store), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, (int64_t)hm->bytes);
    sqlite3_bind_int64(st, 3, (int64_t)hm->threads);
    sqlite3_bind_int64(st, 4, (int64_t)hm->repeats);
    sqlite3_bind_double(st, 5, hm->Bps);
    if (hm->read_Bps > 0)
        sqlite3_bind_double(st, 6, hm->read_Bps);
    else
        sqlite3_bind_null(st, 6);
    if (hm->shared_Bps > 0) {
        sqlite3_bind_double(st, 7, hm->shared_Bps);
        sqlite3_bind_int64(st, 8, (int64_t)hm->shared_threads);
        sqlite3_bind_int64(st, 9, (int64_t)hm->shared_devices);
    } else {
        sqlite3_bind_null(st, 7);
        sqlite3_bind_null(st, 8);
        sqlite3_bind_null(st, 9);
    }
    return ht__store_step_done(store, st, "cannot store the host memory's rate", err);
}

int ht_store_get_host_memory(struct ht_store *store, struct ht_host_memory *out,
                             struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc, r;

    rc = ht__store_prepare(store,
                           "SELECT bytes, threads, repeats, bps, read_bps, shared_bps, shared_threads, "
                           "shared_devices FROM host_memory "
                           "WHERE hostname = ? ORDER BY id DESC LIMIT 1",
                           &st, "cannot read the host memory's rate", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_text(st, 1, ht__store_host(store), -1, SQLITE_TRANSIENT);
    r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        out->bytes = (uint64_t)sqlite3_column_int64(st, 0);
        out->threads = (unsigned)sqlite3_column_int64(st, 1);
        out->repeats = (unsigned)sqlite3_column_int64(st, 2);
        out->Bps = sqlite3_column_double(st, 3);
        out->read_Bps = sqlite3_column_type(st, 4) == SQLITE_NULL ? 0.0
                                                                  : sqlite3_column_double(st, 4);
        if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
            out->shared_Bps = sqlite3_column_double(st, 5);
            out->shared_threads = (unsigned)sqlite3_column_int64(st, 6);
            out->shared_devices = (unsigned)sqlite3_column_int64(st, 7);
        }
    } else if (r == SQLITE_DONE) {
        rc = HT_ENOTFOUND;
    } else {
        rc = ht__store_fail(store, err, "cannot read the host memory's rate");
    }
    sqlite3_finalize(st);
    return rc;
}
