/* The results database's groups of evaluations (ht_store_batch), as a replay stores them:
 * seen by another connection only once their group is committed, each evaluation still
 * all or nothing inside its group, a failed one leaving the others of its group, what is
 * pending committed by ht_store_batch(0), by ht_store_close and before a write that takes
 * a transaction of its own. No OpenCL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune/store.h"
#include "store/store-internal.h"
#include "store-test.h"

static struct ht_store *open_new(char *file, size_t size)
{
    const char *base = getenv("TMPDIR");
    struct ht_store *s;
    int fd;

    snprintf(file, size, "%s/test_replay_store.XXXXXX", base && base[0] ? base : "/tmp");
    fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);
    s = open_ok(file);
    assert_int_equal(sqlite3_exec(ht__store_db(s),
                                  "INSERT INTO devices (id, platform, platform_version, name, "
                                  "vendor, type, version, driver_version, compute_units, "
                                  "max_work_group_size, max_work_item_sizes, local_mem_size, "
                                  "global_mem_size, max_mem_alloc_size) VALUES "
                                  "(1, 'p', 'v', 'gpu', 'x', 'GPU', 'v', 'd', 8, 256, '[256]', "
                                  "1024, 4096, 1024);"
                                  "INSERT INTO kernels (id, hash, kernel_name, options, "
                                  "spec_name, spec_path, kernel_path) VALUES (1, "
                                  "'0123456789abcdef', 'conv', '', 'conv', 's.json', 'k.cl');"
                                  "INSERT INTO problems (id, kernel_id, sizes, params) VALUES "
                                  "(1, 1, 'N=256', 'TS');",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    return s;
}

/* Stores TS=ts with step i of run; returns put_eval_step's code. */
static int put(struct ht_store *s, int64_t run, int ts, uint64_t i)
{
    struct ht_stored_eval *ev = malloc(sizeof *ev);
    struct ht_stored_tune_step st;
    struct ht_error err;
    int64_t id = 0;
    int rc;

    assert_non_null(ev);
    ht_stored_eval_init(ev);
    ev->problem_id = 1;
    ev->device_id = 1;
    snprintf(ev->config, sizeof ev->config, "TS=%d", ts);
    ev->nvalues = 1;
    ev->values[0] = ts;
    snprintf(ev->status, sizeof ev->status, "ok");
    ev->seconds = 1e-3 * ts;
    ev->verified = 1;
    ev->nruns = 3;
    for (unsigned k = 0; k < ev->nruns; k++)
        ev->runs[k] = 1e-3 * ts + 1e-6 * k;
    memset(&st, 0, sizeof st);
    st.i = i;
    snprintf(st.config, sizeof st.config, "TS=%d", ts);
    snprintf(st.status, sizeof st.status, "ok");
    st.seconds = ev->seconds;
    st.elapsed_s = (double)i;
    ht_error_clear(&err);
    rc = ht_store_put_eval_step(s, ev, run, &st, &id, &err);
    assert_true(rc != HT_OK || id > 0);
    free(ev);
    return rc;
}

static void test_groups(void **state)
{
    char file[512];
    struct ht_store *s = open_new(file, sizeof file), *other;
    struct ht_stored_tune_run r;
    struct ht_error err;
    int64_t run = 0;
    (void)state;

    ht_error_clear(&err);
    memset(&r, 0, sizeof r);
    r.problem_id = 1;
    r.device_id = 1;
    snprintf(r.strategy, sizeof r.strategy, "random");
    r.best_before_s = -1;
    r.replayed = 1;
    check_rc(ht_store_put_tune_run(s, &r, &run, &err), &err, "put run");
    check_rc(ht_store_batch(s, 4, &err), &err, "batch 4");

    /* Six: the first four are committed as a group, two wait. */
    for (int k = 0; k < 6; k++)
        check_rc(put(s, run, k + 1, (uint64_t)k), &err, "put");
    other = open_ok(file);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM evaluations"), 6);
    assert_int_equal(count_rows(other, "SELECT count(*) FROM evaluations"), 4);
    assert_int_equal(count_rows(other, "SELECT count(*) FROM runs"), 12);
    assert_int_equal(count_rows(other, "SELECT count(*) FROM tune_steps"), 4);

    /* A step whose place is taken fails, with its evaluation alone: the two before it in
     * the group stay, and the group goes on. */
    assert_int_equal(put(s, run, 100, 5), HT_EDB);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM evaluations WHERE config = 'TS=100'"),
                     0);
    check_rc(put(s, run, 7, 6), &err, "put after a failure");
    assert_int_equal(count_rows(s, "SELECT count(*) FROM evaluations"), 7);
    assert_int_equal(count_rows(other, "SELECT count(*) FROM evaluations"), 4);

    /* Back to one transaction each: what waits is committed first. */
    check_rc(ht_store_batch(s, 0, &err), &err, "batch 0");
    assert_int_equal(count_rows(other, "SELECT count(*) FROM evaluations"), 7);
    assert_int_equal(count_rows(other, "SELECT count(*) FROM tune_steps"), 7);
    check_rc(put(s, run, 8, 7), &err, "put alone");
    assert_int_equal(count_rows(other, "SELECT count(*) FROM evaluations"), 8);

    /* A write with a transaction of its own (a device lease) commits the group first. */
    check_rc(ht_store_batch(s, 16, &err), &err, "batch 16");
    check_rc(put(s, run, 9, 8), &err, "put in a group");
    assert_int_equal(count_rows(other, "SELECT count(*) FROM evaluations"), 8);
    check_rc(ht_store_lease_device(s, 1, 0, NULL, NULL, &err), &err, "lease");
    assert_int_equal(count_rows(other, "SELECT count(*) FROM evaluations"), 9);
    check_rc(ht_store_release_device(s, 1, &err), &err, "release");

    /* Closing commits what waits. */
    check_rc(put(s, run, 10, 9), &err, "put before closing");
    assert_int_equal(count_rows(other, "SELECT count(*) FROM evaluations"), 9);
    ht_store_close(s);
    assert_int_equal(count_rows(other, "SELECT count(*) FROM evaluations"), 10);
    assert_int_equal(count_rows(other, "SELECT count(*) FROM runs"), 30);
    assert_int_equal(count_rows(other, "SELECT count(*) FROM tune_steps"), 10);
    ht_store_close(other);
    unlink(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
