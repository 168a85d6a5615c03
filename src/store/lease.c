/* Device leases: one process measures a device at a time (issue 13). A lease is a row of
 * device_leases, taken and checked in one BEGIN IMMEDIATE transaction so two processes
 * never both take it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "store-internal.h"

/* Unix seconds as SQLite computes them, so that every process of a database reads one
 * clock for heartbeats and their age. */
#define NOW_SQL "((julianday('now') - 2440587.5) * 86400.0)"

/* How often a waiting process looks at the lease again, and how often it looks at *stop. */
#define POLL_S 0.25
#define STOP_POLL_S 0.05

static const char *own_host(struct ht_store *store)
{
    return ht__store_host(store);
}

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Whether the lease in h stands in the way of this process: not when it is this process's
 * own, its holder on this host is gone, or it has been idle past the expiry. */
static int lease_alive(struct ht_store *store, const struct ht_lease_info *h)
{
    if (strcmp(h->hostname, own_host(store)) == 0) {
        if (h->pid == (int64_t)getpid())
            return 0;
        /* EPERM: it exists, another user's. A pid beyond pid_t is no process of ours. */
        if (h->pid <= 0 || h->pid != (int64_t)(pid_t)h->pid ||
            (kill((pid_t)h->pid, 0) != 0 && errno == ESRCH))
            return 0;
    }
    return !(h->idle_s > HT_STORE_LEASE_EXPIRY_S);
}

/* Reads the lease of device_id into *out: HT_OK, HT_ENOTFOUND, HT_EDB. */
static int read_lease(struct ht_store *store, int64_t device_id, struct ht_lease_info *out,
                      const char *op, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc, step;

    rc = ht__store_prepare(store,
                           "SELECT pid, hostname, acquired_at, " NOW_SQL " - heartbeat "
                           "FROM device_leases WHERE device_id = ?",
                           &st, op, err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, device_id);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        out->device_id = device_id;
        out->pid = sqlite3_column_int64(st, 0);
        ht__store_column_text(st, 1, out->hostname, sizeof out->hostname);
        ht__store_column_text(st, 2, out->acquired_at, sizeof out->acquired_at);
        out->idle_s = sqlite3_column_double(st, 3);
    } else {
        rc = step == SQLITE_DONE ? HT_ENOTFOUND : ht__store_fail(store, err, op);
    }
    sqlite3_finalize(st);
    return rc;
}

/* One try: takes the lease when it is free or stale (HT_OK), else fills *holder and
 * returns HT_STORE_LEASE_BUSY. */
static int try_lease(struct ht_store *store, int64_t device_id, struct ht_lease_info *holder,
                     struct ht_error *err)
{
    static const char *const op = "cannot take the device's lease";
    sqlite3_stmt *st = NULL;
    int rc;

    /* IMMEDIATE: the check and the take are one step for every process. */
    rc = ht__store_exec(store, "BEGIN IMMEDIATE", op, err);
    if (rc != HT_OK)
        return rc;
    rc = read_lease(store, device_id, holder, op, err);
    if (rc == HT_OK && lease_alive(store, holder)) {
        rc = HT_STORE_LEASE_BUSY;
        goto cleanup;
    }
    if (rc != HT_OK && rc != HT_ENOTFOUND)
        goto cleanup;
    rc = ht__store_prepare(store,
                           "INSERT OR REPLACE INTO device_leases "
                           "(device_id, pid, hostname, acquired_at, heartbeat) VALUES "
                           "(?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), " NOW_SQL ")",
                           &st, op, err);
    if (rc != HT_OK)
        goto cleanup;
    sqlite3_bind_int64(st, 1, device_id);
    sqlite3_bind_int64(st, 2, (int64_t)getpid());
    sqlite3_bind_text(st, 3, own_host(store), -1, SQLITE_TRANSIENT);
    rc = ht__store_step_done(store, st, op, err);
    if (rc == HT_OK)
        rc = ht__store_exec(store, "COMMIT", op, err);
cleanup:
    if (rc != HT_OK && !sqlite3_get_autocommit(store->db))
        sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int ht_store_lease_device(struct ht_store *store, int64_t device_id, double wait_s,
                          volatile sig_atomic_t *stop, struct ht_lease_info *holder,
                          struct ht_error *err)
{
    struct ht_lease_info local;
    double t0 = monotonic_s(), next_try;
    int rc;

    if (!store)
        return ht_error_set(err, HT_EINVAL, "ht_store_lease_device: store is NULL");
    if (device_id < 1)
        return ht_error_set(err, HT_EINVAL, "ht_store_lease_device: a device id of at least 1 "
                                            "is required");
    if (!holder)
        holder = &local;
    for (;;) {
        rc = try_lease(store, device_id, holder, err);
        if (rc == HT_OK)
            store->nleases++;
        if (rc != HT_STORE_LEASE_BUSY)
            return rc;
        next_try = monotonic_s() + POLL_S;
        for (;;) {
            double now = monotonic_s();
            if ((stop && *stop) || (wait_s >= 0 && now - t0 >= wait_s))
                return HT_STORE_LEASE_BUSY;
            if (now >= next_try)
                break;
            sleep_s(STOP_POLL_S);
        }
    }
}

int ht_store_release_device(struct ht_store *store, int64_t device_id, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (!store)
        return ht_error_set(err, HT_EINVAL, "ht_store_release_device: store is NULL");
    rc = ht__store_prepare(store,
                           "DELETE FROM device_leases WHERE device_id = ? AND pid = ? AND "
                           "hostname = ?",
                           &st, "cannot give the device's lease back", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, device_id);
    sqlite3_bind_int64(st, 2, (int64_t)getpid());
    sqlite3_bind_text(st, 3, own_host(store), -1, SQLITE_TRANSIENT);
    rc = ht__store_step_done(store, st, "cannot give the device's lease back", err);
    if (store->nleases > 0)
        store->nleases--;
    return rc;
}

int ht__store_get_lease(struct ht_store *store, int64_t device_id, struct ht_lease_info *out,
                        struct ht_error *err)
{
    return read_lease(store, device_id, out, "cannot read the device's lease", err);
}

int ht__store_lease_renew(struct ht_store *store, int64_t device_id, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (store->nleases <= 0)
        return HT_OK;
    rc = ht__store_prepare(store,
                           "UPDATE device_leases SET heartbeat = " NOW_SQL " WHERE "
                           "device_id = ? AND pid = ? AND hostname = ?",
                           &st, "cannot renew the device's lease", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, device_id);
    sqlite3_bind_int64(st, 2, (int64_t)getpid());
    sqlite3_bind_text(st, 3, own_host(store), -1, SQLITE_TRANSIENT);
    return ht__store_step_done(store, st, "cannot renew the device's lease", err);
}
