/* The host memory's rate: the table of migrations 9 and 11 (schema.c), written by
 * `hetune devices --bandwidth` and read by the split's bus model. Keyed by the machine's
 * hostname, since one database may travel between machines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

    if (!store)
        return ht_error_set(err, HT_EINVAL, "ht_store_put_host_memory: store is NULL");
    if (!hm)
        return ht_error_set(err, HT_EINVAL, "ht_store_put_host_memory: hm is NULL");
    if (!(hm->Bps > 0 && isfinite(hm->Bps)) || !(hm->read_Bps >= 0 &&
        isfinite(hm->read_Bps)) || !(hm->shared_Bps >= 0 && isfinite(hm->shared_Bps)) || hm->bytes == 0 || hm->bytes > INT64_MAX || hm->threads == 0)
        return ht_error_set(err, HT_EINVAL, "malformed host memory rate: nothing measured");
    for (size_t k = 0; k < HT_HOST_SHARED_MAX; k++)
        if (!(hm->shared_by_Bps[k] >= 0 && isfinite(hm->shared_by_Bps[k])))
            return ht_error_set(err, HT_EINVAL, "malformed shared host memory rate of %zu "
                                "devices: nothing measured", k + 1);
    rc = ht__store_prepare(store,
                           "INSERT INTO host_memory (hostname, bytes, threads, repeats, bps, "
                           "read_bps, shared_bps, shared_threads, shared_devices, shared_by, "
                           "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
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
    {
        char by[HT_HOST_SHARED_MAX * 32] = "";
        size_t len = 0;
        for (size_t k = 0; k < HT_HOST_SHARED_MAX; k++)
            if (hm->shared_by_Bps[k] > 0)
                len += (size_t)snprintf(by + len, sizeof by - len, "%s%zu:%.17g",
                                        len ? " " : "", k + 1, hm->shared_by_Bps[k]);
        if (len)
            sqlite3_bind_text(st, 10, by, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(st, 10);
    }
    return ht__store_step_done(store, st, "cannot store the host memory's rate", err);
}

/* "k:rate ..." of the shared_by column into out->shared_by_Bps; what does not parse as a
 * count in range and a positive rate is left out (0: not measured). */
static void parse_shared_by(const char *text, struct ht_host_memory *out)
{
    const char *p = text;

    while (p && *p) {
        char *end;
        unsigned long k = strtoul(p, &end, 10);
        double v;

        if (end == p || *end != ':')
            break;
        v = strtod(end + 1, &end);
        if (k >= 1 && k <= HT_HOST_SHARED_MAX && v > 0 && isfinite(v))
            out->shared_by_Bps[k - 1] = v;
        p = end;
        while (*p == ' ')
            p++;
    }
}

int ht_store_get_host_memory(struct ht_store *store, struct ht_host_memory *out,
                             struct ht_error *err)
{
    if (!store || !out)
        return ht_error_set(err, HT_EINVAL, "ht_store_get_host_memory: %s is NULL",
                            !store ? "store" : "out");
    return ht_store_get_host_memory_of(store, NULL, out, err);
}

int ht_store_get_host_memory_of(struct ht_store *store, const char *hostname,
                                struct ht_host_memory *out, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc, r;

    if (!store || !out)
        return ht_error_set(err, HT_EINVAL, "ht_store_get_host_memory_of: %s is NULL",
                            !store ? "store" : "out");

    if (hostname && !hostname[0])
        return ht_error_set(err, HT_EINVAL, "host memory rate: an empty host name");

    rc = ht__store_prepare(store,
                           "SELECT bytes, threads, repeats, bps, read_bps, shared_bps, shared_threads, "
                           "shared_devices, shared_by FROM host_memory "
                           "WHERE hostname = ? ORDER BY id DESC LIMIT 1",
                           &st, "cannot read the host memory's rate", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_text(st, 1, hostname ? hostname : ht__store_host(store), -1, SQLITE_TRANSIENT);
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
        if (sqlite3_column_type(st, 8) == SQLITE_TEXT)
            parse_shared_by((const char *)sqlite3_column_text(st, 8), out);
    } else if (r == SQLITE_DONE) {
        rc = HT_ENOTFOUND;
    } else {
        rc = ht__store_fail(store, err, "cannot read the host memory's rate");
    }
    sqlite3_finalize(st);
    return rc;
}
