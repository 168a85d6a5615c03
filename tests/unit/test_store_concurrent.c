/* Unit tests of the results database shared by several processes (src/store/), without
 * OpenCL: two processes creating the same new database at once both succeed (issue 13),
 * a database with garbage in its middle is refused on open, and the device lease (one
 * process measures a device at a time): taken, refused while held, waited for, taken
 * over from a dead holder or an expired one, given back, and a database of schema version
 * 5 migrated forward. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hetune/store.h"
#include "store/store-internal.h"
#include "store-test.h"

static char tmpdir[256];

static int make_tmpdir(void **state)
{
    const char *base = getenv("TMPDIR");
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "%s/test_store_concurrent.XXXXXX",
             base && base[0] ? base : "/tmp");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    (void)state;
    if (!d)
        return 0;
    while ((e = readdir(d))) {
        char path[600];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(tmpdir);
    return 0;
}

static int64_t device_id(struct ht_store *s, const char *name)
{
    struct ht_device_info d;
    struct ht_error err;
    int64_t id = 0;

    memset(&d, 0, sizeof d);
    snprintf(d.platform, sizeof d.platform, "Portable Computing Language");
    snprintf(d.name, sizeof d.name, "%s", name);
    snprintf(d.type, sizeof d.type, "CPU");
    d.is_cpu = 1;
    d.compute_units = 2;
    d.max_work_group_size = 4096;
    d.max_work_item_dims = 3;
    d.max_work_item_sizes[0] = d.max_work_item_sizes[1] = d.max_work_item_sizes[2] = 4096;
    d.local_mem_size = 4194304;
    ht_error_clear(&err);
    check_rc(ht_store_device_id(s, &d, &id, &err), &err, "device id");
    return id;
}

static void unlink_db(const char *path)
{
    char side[600];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-journal", path);
    unlink(side);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- two processes creating one database ---------------------------------------------- */

#define RACE_ROUNDS 200
#define RACE_PROCS 2

/* Each round, RACE_PROCS children wait on a pipe and open the same new file the moment
 * the parent closes it; a child exits 0 when its open worked (and the schema it sees is
 * whole), 1 otherwise after printing why. Before issue 13, 15 rounds in 200 had a child
 * refused ("another program's" or "database is locked"). */
static void test_open_race(void **state)
{
    int failures = 0;
    double t0 = now_s();
    (void)state;

    for (int round = 0; round < RACE_ROUNDS; round++) {
        char path[512];
        pid_t pids[RACE_PROCS];
        int go[2];

        snprintf(path, sizeof path, "%s/race-%d.db", tmpdir, round);
        assert_int_equal(pipe(go), 0);
        for (int i = 0; i < RACE_PROCS; i++) {
            pids[i] = fork();
            assert_true(pids[i] >= 0);
            if (pids[i] == 0) {
                struct ht_store *s = NULL;
                struct ht_error err;
                char c;
                int rc;

                close(go[1]);
                (void)!read(go[0], &c, 1); /* returns 0 once the parent closes its end */
                ht_error_clear(&err);
                rc = ht_store_open(path, &s, &err);
                if (rc == HT_OK) {
                    int64_t v = -1;
                    rc = ht__store_query_int(s, "SELECT max(version) FROM schema_version", &v,
                                             "schema", &err);
                    if (rc == HT_OK && v != HT_STORE_SCHEMA_VERSION) {
                        snprintf(err.text, sizeof err.text, "schema version %lld",
                                 (long long)v);
                        rc = HT_EDB;
                    }
                }
                if (rc != HT_OK)
                    fprintf(stderr, "round %d, child %d: %s: %s\n", round, i,
                            ht_err_name(rc), err.text);
                ht_store_close(s);
                _exit(rc == HT_OK ? 0 : 1);
            }
        }
        close(go[0]);
        close(go[1]);
        for (int i = 0; i < RACE_PROCS; i++) {
            int st = 0;
            assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                failures++;
        }
        unlink_db(path);
    }
    print_message("open race: %d failures in %d rounds of %d processes (%.2f s)\n", failures,
                  RACE_ROUNDS, RACE_PROCS, now_s() - t0);
    assert_int_equal(failures, 0);
}

/* ---- a damaged database -------------------------------------------------------------- */

/* Garbage written over pages in the middle of a database (the size of two pages, from a
 * page boundary) is found on open: HT_EDB naming the file, and the file left as it was. */
static void test_refuses_damaged(void **state)
{
    char path[512];
    struct ht_store *s;
    struct ht_error err;
    struct stat sb;
    unsigned char junk[8192];
    int64_t d, page;
    int fd;
    (void)state;

    snprintf(path, sizeof path, "%s/damaged.db", tmpdir);
    s = open_ok(path);
    d = device_id(s, "gpu");
    {
        char sql[512];
        snprintf(sql, sizeof sql,
                 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) "
                 "INSERT INTO bandwidth (device_id, path, bytes, repeats, h2d_bps, created_at) "
                 "SELECT %lld, 'pinned', x, 1, x * 1.5, 'then' FROM c",
                 (long long)d);
        assert_int_equal(sqlite3_exec(ht__store_db(s), sql, NULL, NULL, NULL), SQLITE_OK);
    }
    page = count_rows(s, "PRAGMA page_size");
    ht_store_close(s); /* the last connection folds the WAL into the file */

    /* Reopened whole, it passes the check. */
    s = open_ok(path);
    ht_store_close(s);

    assert_int_equal(stat(path, &sb), 0);
    assert_true(sb.st_size >= 16 * page);
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)(i * 131 + 7);
    fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, junk, sizeof junk, (sb.st_size / 2 / page) * page),
                     (ssize_t)sizeof junk);
    close(fd);

    s = (struct ht_store *)&s;
    ht_error_clear(&err);
    assert_int_equal(ht_store_open(path, &s, &err), HT_EDB);
    assert_null(s);
    assert_string_equal(err.file, path);
    if (!strstr(err.text, "damaged"))
        fail_msg("message '%s' lacks 'damaged'", err.text);
    unlink_db(path);
}

/* ---- device leases -------------------------------------------------------------------- */

/* A child that takes the lease of device d in path, says so on the pipe "ready" and holds
 * it until "done" is closed by the parent. */
static pid_t holder_child(const char *path, int64_t d, int ready[2], int done[2])
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct ht_store *s = NULL;
        struct ht_error err;
        char c = 'x';
        int rc;

        close(ready[0]);
        close(done[1]);
        ht_error_clear(&err);
        rc = ht_store_open(path, &s, &err);
        if (rc == HT_OK)
            rc = ht_store_lease_device(s, d, 0, NULL, NULL, &err);
        if (rc != HT_OK)
            c = 'e';
        (void)!write(ready[1], &c, 1);
        (void)!read(done[0], &c, 1);
        if (rc == HT_OK)
            rc = ht_store_release_device(s, d, &err);
        ht_store_close(s);
        _exit(rc == HT_OK ? 0 : 1);
    }
    close(ready[1]);
    close(done[0]);
    {
        char c = 0;
        assert_int_equal(read(ready[0], &c, 1), 1);
        assert_int_equal(c, 'x');
    }
    return pid;
}

static void reap_ok(pid_t pid)
{
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static volatile sig_atomic_t alarm_flag;

static void on_alarm(int sig)
{
    (void)sig;
    alarm_flag = 1;
}

static void test_lease(void **state)
{
    char path[512], host[256];
    struct ht_store *s, *s2;
    struct ht_lease_info h;
    struct ht_error err;
    int ready[2], done[2];
    int64_t d, d2;
    pid_t child;
    double t0, waited;
    (void)state;

    snprintf(path, sizeof path, "%s/lease.db", tmpdir);
    s = open_ok(path);
    d = device_id(s, "gpu");
    d2 = device_id(s, "cpu");
    ht_error_clear(&err);
    assert_int_equal(ht__store_get_lease(s, d, &h, &err), HT_ENOTFOUND);
    assert_int_equal(err.code, 0);
    assert_int_equal(ht_store_lease_device(s, 0, 0, NULL, NULL, NULL), HT_EINVAL);

    /* Taken, and seen as this process's. */
    check_rc(ht_store_lease_device(s, d, 0, NULL, &h, &err), &err, "lease");
    check_rc(ht__store_get_lease(s, d, &h, &err), &err, "get lease");
    assert_int_equal(h.pid, getpid());
    assert_int_equal(gethostname(host, sizeof host), 0);
    assert_string_equal(h.hostname, host);
    assert_true(h.idle_s > -5 && h.idle_s < 60);
    assert_true(strlen(h.acquired_at) > 20);
    /* The same process through another connection takes it again rather than wait on
     * itself. */
    s2 = open_ok(path);
    check_rc(ht_store_lease_device(s2, d, 0, NULL, &h, &err), &err, "lease again");
    check_rc(ht_store_release_device(s2, d, &err), &err, "release again");
    ht_store_close(s2);
    check_rc(ht_store_release_device(s, d, &err), &err, "release");
    assert_int_equal(ht__store_get_lease(s, d, &h, &err), HT_ENOTFOUND);
    check_rc(ht_store_release_device(s, d, &err), &err, "release of none");

    /* Held by another process: one try is refused and names it; another device is free. */
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(done), 0);
    child = holder_child(path, d, ready, done);
    memset(&h, 0, sizeof h);
    assert_int_equal(ht_store_lease_device(s, d, 0, NULL, &h, &err), HT_STORE_LEASE_BUSY);
    assert_int_equal(err.code, 0);
    assert_int_equal(h.pid, child);
    assert_string_equal(h.hostname, host);
    assert_int_equal(h.device_id, d);
    check_rc(ht_store_lease_device(s, d2, 0, NULL, NULL, &err), &err, "lease of another");
    check_rc(ht_store_release_device(s, d2, &err), &err, "release of another");
    /* Giving back a lease that is not ours leaves it alone. */
    check_rc(ht_store_release_device(s, d, &err), &err, "release of theirs");
    check_rc(ht__store_get_lease(s, d, &h, &err), &err, "theirs still");
    assert_int_equal(h.pid, child);
    /* A limited wait ends busy after about its time. */
    t0 = now_s();
    assert_int_equal(ht_store_lease_device(s, d, 0.3, NULL, &h, &err), HT_STORE_LEASE_BUSY);
    waited = now_s() - t0;
    assert_true(waited >= 0.29 && waited < 2.0);
    /* An endless wait ends soon after *stop is raised (here by SIGALRM after 0.3 s). */
    {
        struct sigaction sa, old;
        struct itimerval it = {{0, 0}, {0, 300000}};
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sigemptyset(&sa.sa_mask);
        assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
        alarm_flag = 0;
        t0 = now_s();
        assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
        assert_int_equal(ht_store_lease_device(s, d, -1, &alarm_flag, &h, &err),
                         HT_STORE_LEASE_BUSY);
        waited = now_s() - t0;
        sigaction(SIGALRM, &old, NULL);
        assert_true(alarm_flag);
        if (!(waited < 0.3 + 0.5))
            fail_msg("the wait ended %.3f s after the stop flag", waited - 0.3);
    }
    /* A wait ends with the lease once the holder gives it back. */
    close(done[1]);
    t0 = now_s();
    check_rc(ht_store_lease_device(s, d, 30, NULL, &h, &err), &err, "lease after waiting");
    assert_true(now_s() - t0 < 5);
    reap_ok(child);
    close(ready[0]);
    check_rc(ht_store_release_device(s, d, &err), &err, "release after waiting");

    /* A holder killed with SIGKILL never gives its lease back: it is stale once the
     * process is gone, and taken over at once. */
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(done), 0);
    child = holder_child(path, d, ready, done);
    assert_int_equal(ht_store_lease_device(s, d, 0, NULL, &h, &err), HT_STORE_LEASE_BUSY);
    kill(child, SIGKILL);
    {
        int st;
        assert_int_equal(waitpid(child, &st, 0), child);
    }
    close(ready[0]);
    close(done[1]);
    check_rc(ht__store_get_lease(s, d, &h, &err), &err, "the dead one's lease");
    assert_int_equal(h.pid, child);
    check_rc(ht_store_lease_device(s, d, 0, NULL, &h, &err), &err, "take over from the dead");
    check_rc(ht__store_get_lease(s, d, &h, &err), &err, "taken over");
    assert_int_equal(h.pid, getpid());
    check_rc(ht_store_release_device(s, d, &err), &err, "release");

    /* Another host's lease cannot be checked by pid: alive while its heartbeat is recent,
     * stale once older than the expiry. */
    assert_int_equal(sqlite3_exec(ht__store_db(s),
                                  "INSERT INTO device_leases VALUES (1, 4242, 'elsewhere', "
                                  "'2024-01-01T00:00:00.000Z', "
                                  "(julianday('now') - 2440587.5) * 86400.0 - 60)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(d, 1);
    assert_int_equal(ht_store_lease_device(s, d, 0, NULL, &h, &err), HT_STORE_LEASE_BUSY);
    assert_string_equal(h.hostname, "elsewhere");
    assert_int_equal(h.pid, 4242);
    assert_true(h.idle_s > 50 && h.idle_s < 120);
    assert_int_equal(sqlite3_exec(ht__store_db(s),
                                  "UPDATE device_leases SET heartbeat = heartbeat - 3600",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    check_rc(ht_store_lease_device(s, d, 0, NULL, &h, &err), &err, "take over an expired one");
    check_rc(ht__store_get_lease(s, d, &h, &err), &err, "taken over");
    assert_int_equal(h.pid, getpid());
    assert_string_equal(h.hostname, host);

    /* Storing an evaluation of the device renews the holder's heartbeat. */
    {
        struct ht_stored_eval *ev = malloc(sizeof *ev);
        assert_non_null(ev);
        assert_int_equal(sqlite3_exec(ht__store_db(s),
                                      "UPDATE device_leases SET heartbeat = heartbeat - 1000; "
                                      "INSERT INTO kernels (hash, kernel_name, options, "
                                      "spec_name, spec_path, kernel_path) VALUES ('0123', 'k', "
                                      "'', 's', 's.json', 'k.cl'); "
                                      "INSERT INTO problems (kernel_id, sizes, params) VALUES "
                                      "(1, 'N=8', 'TS')",
                                      NULL, NULL, NULL),
                         SQLITE_OK);
        check_rc(ht__store_get_lease(s, d, &h, &err), &err, "idle lease");
        assert_true(h.idle_s > 990);
        ht_stored_eval_init(ev);
        ev->problem_id = 1;
        ev->device_id = d;
        snprintf(ev->config, sizeof ev->config, "TS=4");
        ev->nvalues = 1;
        ev->values[0] = 4;
        snprintf(ev->status, sizeof ev->status, "%s", HT_STORE_OK);
        ev->seconds = 0.5;
        check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "put");
        check_rc(ht__store_get_lease(s, d, &h, &err), &err, "renewed lease");
        assert_true(h.idle_s < 60);
        free(ev);
    }
    check_rc(ht_store_release_device(s, d, &err), &err, "release");
    ht_store_close(s);
    unlink_db(path);
}

/* A database of schema version 5 (before device leases) is migrated forward when opened.
 * The file is made by opening a new one and undoing migration 6; a later migration must
 * be undone here too. */
static void test_migrates_from_v5(void **state)
{
    char path[512];
    struct ht_store *s;
    struct ht_error err;
    int64_t d;
    (void)state;

    snprintf(path, sizeof path, "%s/v5.db", tmpdir);
    s = open_ok(path);
    d = device_id(s, "gpu");
    assert_int_equal(sqlite3_exec(ht__store_db(s),
                                  "DROP TABLE device_leases; DROP TABLE written_maps; DROP TABLE host_memory; "
                                  "DROP TABLE tune_steps; DROP TABLE tune_runs; "
                                  "DELETE FROM schema_version WHERE version >= 6; "
                                  "PRAGMA user_version = 5",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    ht_store_close(s);

    s = open_ok(path);
    assert_int_equal(count_rows(s, "PRAGMA user_version"), HT_STORE_SCHEMA_VERSION);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM schema_version WHERE version = 6 AND "
                                   "description = 'device leases'"),
                     1);
    assert_int_equal(device_id(s, "gpu"), d);
    ht_error_clear(&err);
    check_rc(ht_store_lease_device(s, d, 0, NULL, NULL, &err), &err, "lease after migration");
    check_rc(ht_store_release_device(s, d, &err), &err, "release");
    ht_store_close(s);
    unlink_db(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_race),
        cmocka_unit_test(test_refuses_damaged),
        cmocka_unit_test(test_lease),
        cmocka_unit_test(test_migrates_from_v5),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
