/* ht_mpi_split's stop ends rank 0's wait for the database's lock, as workflow.h says of
 * ht_workflow_split_opts.stop ("Either way stop above also ends that wait"): the test runs
 * this program again under `mpirun -n 2` (each rank with its own PoCL device,
 * POCL_DEVICES=pthread, as test_mpi_tune_sink does). Rank 0 makes a results database,
 * holds its write lock on a connection of its own, raises its stop flag and calls
 * ht_mpi_split with opts.store NULL (the defaults: a wait of up to 30 s): it must return
 * HT_EINTR within seconds, not wait the lock out and fail with HT_EDB; rank 1 learns that
 * rank 0 failed. The ranks end with status 0 or 1, which mpirun returns.
 * Skipped (77) in a build without MPI, without mpirun, or without an OpenCL device. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hetune.h"

#define MPIRUN_LIMIT_S 300
#define QUICK_S 10.0 /* well under the store's default wait, HT_STORE_BUSY_TIMEOUT_S */

static const char *self; /* this program, for mpirun */

static int rank_failed;
static int my_rank;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", my_rank, __FILE__,       \
                    __LINE__, #cond);                                                      \
            rank_failed = 1;                                                               \
        }                                                                                  \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the ranks' side: `mpirun -n 2 test_mpi_split_stop --rank` ---- */

static int rank_main(void)
{
    const char *src = getenv("HETUNE_SOURCE_DIR");
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    static volatile sig_atomic_t stop;
    struct ht_spec *spec = NULL;
    struct ht_store *store = NULL;
    struct ht_workflow_split_opts wo;
    struct ht_mpi_split_result res;
    struct ht_error err;
    sqlite3 *holder = NULL;
    char path[4096], db[128], dir[64] = "/tmp/hetune-test-mpi-split-stop-XXXXXX";
    double t0, took;
    int rc;

    my_rank = r ? atoi(r) : 0;
    ht_error_clear(&err);
    snprintf(path, sizeof path, "%s/tests/fixtures/mpi/spec.json", src ? src : ".");
    if (ht_spec_load(path, NULL, 0, &spec, &err) != HT_OK || !mkdtemp(dir)) {
        fprintf(stderr, "rank %d: cannot start: %s\n", my_rank, err.text);
        return 1;
    }
    snprintf(db, sizeof db, "%s/locked.db", dir);
    if (my_rank == 0) {
        /* A hetune database, then its write lock held until the split returns. */
        if (ht_store_open(db, &store, &err) != HT_OK) {
            fprintf(stderr, "rank 0: cannot make the database: %s\n", err.text);
            return 1;
        }
        ht_store_close(store);
        if (sqlite3_open(db, &holder) != SQLITE_OK ||
            sqlite3_exec(holder, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
            fprintf(stderr, "rank 0: cannot hold the lock: %s\n", sqlite3_errmsg(holder));
            return 1;
        }
        stop = 1;
    }
    ht_workflow_split_opts_init(&wo);
    wo.db = db;
    wo.stop = &stop;
    wo.store = NULL;
    t0 = now_s();
    rc = ht_mpi_split(spec, NULL, &wo, &res, &err);
    took = now_s() - t0;
    if (my_rank == 0) {
        if (rc != HT_EINTR)
            fprintf(stderr, "rank 0: %s (%s) after %.1f s\n", ht_err_name(rc), err.text, took);
        CHECK(rc == HT_EINTR);
        CHECK(took < QUICK_S);
        sqlite3_exec(holder, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_close(holder);
    } else {
        CHECK(rc == HT_EINVAL && res.rank0_failed);
    }
    ht_mpi_split_result_destroy(&res);
    unlink(db);
    snprintf(path, sizeof path, "%s-wal", db);
    unlink(path);
    snprintf(path, sizeof path, "%s-shm", db);
    unlink(path);
    rmdir(dir);
    ht_spec_free(spec);
    return rank_failed;
}

/* ---- the test's side: runs the ranks ---- */

/* 1 when PATH has an executable name. */
static int on_path(const char *name)
{
    const char *p = getenv("PATH");
    char path[4096];

    while (p && *p) {
        size_t n = strcspn(p, ":");
        snprintf(path, sizeof path, "%.*s/%s", (int)n, p, name);
        if (n > 0 && access(path, X_OK) == 0)
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

/* Runs `mpirun -n 2 self --rank` (status 127: it could not start); kills it past
 * MPIRUN_LIMIT_S. Returns its exit status, or -1. */
static int mpirun(void)
{
    char *argv[8];
    int n = 0, status = 0;
    pid_t pid;
    time_t t0 = time(NULL);

    argv[n++] = "mpirun";
    argv[n++] = "--oversubscribe";
    if (getuid() == 0)
        argv[n++] = "--allow-run-as-root";
    argv[n++] = "-n";
    argv[n++] = "2";
    argv[n++] = (char *)self;
    argv[n++] = "--rank";
    argv[n] = NULL;
    fflush(NULL);
    if ((pid = fork()) < 0)
        return -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (time(NULL) - t0 > MPIRUN_LIMIT_S) {
            fprintf(stderr, "mpirun -n 2 took more than %d s: killed\n", MPIRUN_LIMIT_S);
            kill(pid, SIGTERM);
            waitpid(pid, &status, 0);
            return -1;
        }
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_stop_ends_db_wait(void **state)
{
    (void)state;
    assert_int_equal(mpirun(), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stop_ends_db_wait),
    };
    struct ht_platform *plat = NULL;
    struct ht_error err;
    const char *asan = getenv("ASAN_OPTIONS");
    char buf[1024];

    if (argc == 2 && !strcmp(argv[1], "--rank"))
        return rank_main();
    if (!ht_mpi_built()) {
        fprintf(stderr, "skipped: hetune was built without MPI\n");
        return 77;
    }
    /* As test_mpi_tune_sink: each rank one PoCL device, PoCL's cache shared, Open MPI as
     * the MPI tests run it. */
    setenv("POCL_DEVICES", "pthread", 1);
    setenv("POCL_MAX_PTHREAD_COUNT", "1", 1);
    setenv("POCL_KERNEL_CACHE", "1", 1);
    setenv("OMPI_MCA_pml", "ob1", 1);
    snprintf(buf, sizeof buf, "%s:fast_unwind_on_malloc=0", asan ? asan : "");
    setenv("ASAN_OPTIONS", buf, 1);
    ht_error_clear(&err);
    if (ht_platform_discover(&plat, &err) != HT_OK || plat->count == 0) {
        fprintf(stderr, "skipped: no OpenCL device (%s)\n", err.text);
        ht_platform_free(plat);
        return 77;
    }
    ht_platform_free(plat);
    if (!on_path("mpirun")) {
        fprintf(stderr, "skipped: no mpirun\n");
        return 77;
    }
    self = argv[0];
    return cmocka_run_group_tests(tests, NULL, NULL);
}
