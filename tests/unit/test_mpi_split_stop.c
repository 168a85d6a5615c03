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

#include "mpi-test.h"

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

static void test_stop_ends_db_wait(void **state)
{
    (void)state;
    assert_int_equal(mpi_test_run(NULL), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stop_ends_db_wait),
    };

    if (argc == 2 && !strcmp(argv[1], "--rank"))
        return rank_main();
    if (mpi_test_prepare(argv[0]) != 0)
        return 77;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
