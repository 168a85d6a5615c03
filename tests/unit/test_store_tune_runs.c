/* Unit tests of the tuning runs (src/store/runs.c, migration 10), their listing with their
 * steps (ht_store_list_tune_steps) and the brief walk of the evaluations
 * (ht_store_list_evals_brief), without OpenCL: a round trip of every field, the orders
 * promised, runs without steps left out, malformed runs and steps refused, an evaluation
 * stored with its step or not at all, and the rows going with their problem. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune/store.h"
#include "store/store-internal.h"
#include "store-test.h"

/* A new database in a temporary file with two devices (ids 1 and 2), one kernel and two
 * problems (ids 1 and 2). */
static struct ht_store *open_with_problems(char *file, size_t size)
{
    const char *base = getenv("TMPDIR");
    struct ht_store *s;
    int fd;

    snprintf(file, size, "%s/test_store_tune_runs.XXXXXX", base && base[0] ? base : "/tmp");
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
                                  "1024, 4096, 1024), "
                                  "(2, 'p', 'v', 'cpu', 'x', 'CPU', 'v', 'd', 2, 256, '[256]', "
                                  "1024, 4096, 1024);"
                                  "INSERT INTO kernels (id, hash, kernel_name, options, "
                                  "spec_name, spec_path, kernel_path) VALUES (1, "
                                  "'0123456789abcdef', 'conv', '', 'conv', 's.json', 'k.cl');"
                                  "INSERT INTO problems (id, kernel_id, sizes, params) VALUES "
                                  "(1, 1, 'N=256', 'TS'), (2, 1, 'N=512', 'TS');",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    return s;
}

static void make_run(struct ht_stored_tune_run *r, int64_t problem, int64_t device,
                     const char *strategy)
{
    memset(r, 0, sizeof *r);
    r->problem_id = problem;
    r->device_id = device;
    snprintf(r->strategy, sizeof r->strategy, "%s", strategy);
    r->best_before_s = -1;
}

static void put_step(struct ht_store *s, int64_t run, uint64_t i, const char *status,
                     double seconds, double elapsed)
{
    struct ht_stored_tune_step st;
    struct ht_error err;

    memset(&st, 0, sizeof st);
    st.i = i;
    snprintf(st.config, sizeof st.config, "TS=%llu", (unsigned long long)i + 1);
    snprintf(st.status, sizeof st.status, "%s", status);
    st.seconds = seconds;
    st.elapsed_s = elapsed;
    ht_error_clear(&err);
    check_rc(ht_store_put_tune_step(s, run, &st, &err), &err, "put step");
}

/* What ht_store_list_tune_steps walked: each step with a copy of its run. */
struct walked_step {
    struct ht_stored_tune_run run;
    struct ht_stored_tune_step st;
};

struct step_walk {
    struct walked_step v[16];
    size_t n;
    size_t stop_at;             /* return 5 at this step (0: never) */
};

static int walk_step(const struct ht_stored_tune_run *run, const struct ht_stored_tune_step *st,
                     void *user)
{
    struct step_walk *w = user;

    assert_true(w->n < sizeof w->v / sizeof *w->v);
    w->v[w->n].run = *run;
    w->v[w->n].st = *st;
    if (++w->n == w->stop_at)
        return 5;
    return 0;
}

static void test_round_trip(void **state)
{
    char file[512];
    struct ht_store *s = open_with_problems(file, sizeof file);
    struct ht_stored_tune_run r;
    struct step_walk *w = calloc(1, sizeof *w);
    struct ht_error err;
    int64_t a = 0, b = 0, c = 0, empty = 0;
    (void)state;

    assert_non_null(w);
    ht_error_clear(&err);
    /* Nothing yet: an empty walk, not an error. */
    check_rc(ht_store_list_tune_steps(s, 1, 0, walk_step, w, &err), &err, "runs of none");
    assert_int_equal(w->n, 0);

    /* Device 2's run first, then two on device 1, and one that never made a step. */
    make_run(&r, 1, 2, "random");
    r.seed = 7;
    r.budget = 3;
    check_rc(ht_store_put_tune_run(s, &r, &c, &err), &err, "put run c");
    make_run(&r, 1, 1, "genetic");
    r.seed = UINT64_MAX; /* kept bit for bit */
    r.time_limit_s = 2.5;
    check_rc(ht_store_put_tune_run(s, &r, &a, &err), &err, "put run a");
    make_run(&r, 1, 1, "replay-anneal");
    r.replayed = 1;
    r.from_db = 4;
    r.best_before_s = 1.5e-3;
    check_rc(ht_store_put_tune_run(s, &r, &b, &err), &err, "put run b");
    make_run(&r, 1, 1, "exhaustive");
    check_rc(ht_store_put_tune_run(s, &r, &empty, &err), &err, "put empty run");
    assert_true(c > 0 && a > c && b > a && empty > b);

    /* Stored out of order: the walk reads them by run, then by i. */
    put_step(s, a, 2, HT_STORE_OK, 1e-3, 0.75);
    put_step(s, a, 0, HT_STORE_OK, 2e-3, 0.25);
    put_step(s, a, 1, HT_STORE_BUILD, -1, 0.5);
    put_step(s, b, 0, "missing", -1, 0.0);
    put_step(s, b, 1, HT_STORE_CUT, -1, 3.0);
    put_step(s, c, 0, HT_STORE_OK, 4e-3, 1.0);

    check_rc(ht_store_list_tune_steps(s, 1, 0, walk_step, w, &err), &err, "steps");
    assert_int_equal(w->n, 6); /* the run without a step is not walked */
    /* In the order the runs started, then by step. */
    assert_int_equal(w->v[0].run.id, c);
    assert_int_equal(w->v[0].run.problem_id, 1);
    assert_int_equal(w->v[0].run.device_id, 2);
    assert_int_equal(w->v[0].run.seed, 7);
    assert_int_equal(w->v[0].run.budget, 3);
    assert_true(w->v[0].run.time_limit_s == 0); /* 0 asked: none */
    assert_string_equal(w->v[0].st.config, "TS=1");
    assert_true(w->v[0].st.seconds == 4e-3 && w->v[0].st.elapsed_s == 1.0);
    for (size_t i = 1; i < 4; i++) {
        assert_int_equal(w->v[i].run.id, a);
        assert_int_equal(w->v[i].st.i, i - 1);
    }
    assert_int_equal(w->v[1].run.device_id, 1);
    assert_string_equal(w->v[1].run.strategy, "genetic");
    assert_true(w->v[1].run.seed == UINT64_MAX);
    assert_int_equal(w->v[1].run.budget, 0);
    assert_true(w->v[1].run.time_limit_s == 2.5);
    assert_int_equal(w->v[1].run.replayed, 0);
    assert_true(w->v[1].run.best_before_s == -1);
    assert_non_null(strstr(w->v[1].run.created_at, "Z"));
    assert_string_equal(w->v[1].st.status, "ok");
    assert_true(w->v[1].st.seconds == 2e-3 && w->v[1].st.elapsed_s == 0.25);
    assert_string_equal(w->v[2].st.status, "build");
    assert_true(w->v[2].st.seconds == -1 && w->v[2].st.elapsed_s == 0.5);
    assert_true(w->v[3].st.seconds == 1e-3 && w->v[3].st.elapsed_s == 0.75);
    assert_string_equal(w->v[3].st.config, "TS=3");
    assert_int_equal(w->v[4].run.id, b);
    assert_string_equal(w->v[4].run.strategy, "replay-anneal");
    assert_int_equal(w->v[4].run.replayed, 1);
    assert_int_equal(w->v[4].run.from_db, 4);
    assert_true(w->v[4].run.best_before_s == 1.5e-3);
    assert_string_equal(w->v[4].st.status, "missing");
    assert_int_equal(w->v[5].run.id, b);
    assert_string_equal(w->v[5].st.status, "cut");

    /* One device's; and a non-zero return of cb stops the walk and is returned. */
    w->n = 0;
    check_rc(ht_store_list_tune_steps(s, 0, 1, walk_step, w, &err), &err, "steps of 1");
    assert_int_equal(w->n, 5);
    assert_int_equal(w->v[0].run.id, a);
    /* A problem and a device: the same rows, in the same order, as the walk of the
     * problem alone kept to the device. */
    w->n = 0;
    check_rc(ht_store_list_tune_steps(s, 1, 2, walk_step, w, &err), &err, "steps of 1 on 2");
    assert_int_equal(w->n, 1);
    assert_int_equal(w->v[0].run.id, c);
    assert_string_equal(w->v[0].st.config, "TS=1");
    w->n = 0;
    check_rc(ht_store_list_tune_steps(s, 1, 1, walk_step, w, &err), &err, "steps of 1 on 1");
    assert_int_equal(w->n, 5);
    assert_int_equal(w->v[0].run.id, a);
    assert_int_equal(w->v[3].run.id, b);
    w->n = 0;
    check_rc(ht_store_list_tune_steps(s, 2, 1, walk_step, w, &err), &err, "steps of 2 on 1");
    assert_int_equal(w->n, 0);
    w->n = 0;
    w->stop_at = 2;
    assert_int_equal(ht_store_list_tune_steps(s, 1, 0, walk_step, w, &err), 5);
    assert_int_equal(w->n, 2);
    w->stop_at = 0;

    /* Another problem has none; the runs go with their problem, the steps with them. */
    w->n = 0;
    check_rc(ht_store_list_tune_steps(s, 2, 0, walk_step, w, &err), &err, "runs of 2");
    assert_int_equal(w->n, 0);
    assert_int_equal(sqlite3_exec(ht__store_db(s), "DELETE FROM problems WHERE id = 1", NULL,
                                  NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM tune_runs"), 0);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM tune_steps"), 0);
    check_rc(ht_store_list_tune_steps(s, 0, 0, walk_step, w, &err), &err, "none left");
    assert_int_equal(w->n, 0);
    free(w);
    ht_store_close(s);
    unlink(file);
}

static void test_refuses_malformed(void **state)
{
    char file[512];
    struct ht_store *s = open_with_problems(file, sizeof file);
    struct ht_stored_tune_run r;
    struct ht_stored_tune_step st;
    struct ht_error err;
    int64_t id = 0;
    (void)state;

    ht_error_clear(&err);
    make_run(&r, 1, 1, "");
    assert_int_equal(ht_store_put_tune_run(s, &r, &id, &err), HT_EINVAL);
    make_run(&r, 0, 1, "random");
    assert_int_equal(ht_store_put_tune_run(s, &r, &id, &err), HT_EINVAL);
    make_run(&r, 1, 0, "random");
    assert_int_equal(ht_store_put_tune_run(s, &r, &id, &err), HT_EINVAL);
    assert_int_equal(ht_store_put_tune_run(s, NULL, &id, &err), HT_EINVAL);
    make_run(&r, 1, 9, "random"); /* no such device: the foreign key */
    ht_error_clear(&err);
    assert_int_equal(ht_store_put_tune_run(s, &r, &id, &err), HT_EDB);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM tune_runs"), 0);

    make_run(&r, 1, 1, "random");
    ht_error_clear(&err);
    check_rc(ht_store_put_tune_run(s, &r, &id, &err), &err, "put run");
    memset(&st, 0, sizeof st);
    snprintf(st.config, sizeof st.config, "TS=1");
    snprintf(st.status, sizeof st.status, "ok");
    st.elapsed_s = -1;
    assert_int_equal(ht_store_put_tune_step(s, id, &st, &err), HT_EINVAL);
    st.elapsed_s = NAN;
    assert_int_equal(ht_store_put_tune_step(s, id, &st, &err), HT_EINVAL);
    st.elapsed_s = 1;
    st.status[0] = '\0';
    assert_int_equal(ht_store_put_tune_step(s, id, &st, &err), HT_EINVAL);
    snprintf(st.status, sizeof st.status, "ok");
    st.config[0] = '\0';
    assert_int_equal(ht_store_put_tune_step(s, id, &st, &err), HT_EINVAL);
    snprintf(st.config, sizeof st.config, "TS=1");
    assert_int_equal(ht_store_put_tune_step(s, 0, &st, &err), HT_EINVAL);
    ht_error_clear(&err);
    check_rc(ht_store_put_tune_step(s, id, &st, &err), &err, "put step");
    /* One step per place in the order; and no step of a run that is not stored. */
    ht_error_clear(&err);
    assert_int_equal(ht_store_put_tune_step(s, id, &st, &err), HT_EDB);
    ht_error_clear(&err);
    assert_int_equal(ht_store_put_tune_step(s, id + 100, &st, &err), HT_EDB);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM tune_steps"), 1);
    ht_store_close(s);
    unlink(file);
}

/* The evaluation and its step are stored together or not at all. */
static void test_eval_with_step(void **state)
{
    char file[512];
    struct ht_store *s = open_with_problems(file, sizeof file);
    struct ht_stored_tune_run r;
    struct ht_stored_tune_step st;
    struct ht_stored_eval *ev = malloc(sizeof *ev);
    struct ht_error err;
    int64_t run = 0, id = 0;
    (void)state;

    assert_non_null(ev);
    ht_error_clear(&err);
    make_run(&r, 1, 1, "random");
    check_rc(ht_store_put_tune_run(s, &r, &run, &err), &err, "put run");
    ht_stored_eval_init(ev);
    ev->problem_id = 1;
    ev->device_id = 1;
    snprintf(ev->config, sizeof ev->config, "TS=4");
    ev->nvalues = 1;
    ev->values[0] = 4;
    snprintf(ev->status, sizeof ev->status, "ok");
    ev->seconds = 2e-3;
    ev->verified = 1;
    memset(&st, 0, sizeof st);
    snprintf(st.config, sizeof st.config, "TS=4");
    snprintf(st.status, sizeof st.status, "ok");
    st.seconds = 2e-3;
    st.elapsed_s = 0.5;
    check_rc(ht_store_put_eval_step(s, ev, run, &st, &id, &err), &err, "put eval and step");
    assert_true(id > 0);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM evaluations"), 1);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM tune_steps"), 1);

    /* A step that cannot be stored (its place taken) takes the evaluation with it, and a
     * malformed one too. */
    snprintf(ev->config, sizeof ev->config, "TS=8");
    ev->values[0] = 8;
    ht_error_clear(&err);
    assert_int_equal(ht_store_put_eval_step(s, ev, run, &st, &id, &err), HT_EDB);
    st.i = 1;
    st.elapsed_s = -1;
    ht_error_clear(&err);
    assert_int_equal(ht_store_put_eval_step(s, ev, run, &st, &id, &err), HT_EINVAL);
    assert_int_equal(ht_store_put_eval_step(s, ev, run, NULL, &id, &err), HT_EINVAL);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM evaluations"), 1);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM tune_steps"), 1);
    st.elapsed_s = 1;
    ht_error_clear(&err);
    check_rc(ht_store_put_eval_step(s, ev, run, &st, &id, &err), &err, "put the second");
    assert_int_equal(count_rows(s, "SELECT count(*) FROM evaluations"), 2);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM tune_steps"), 2);
    free(ev);
    ht_store_close(s);
    unlink(file);
}

/* What a walk of the evaluations saw. */
struct eval_walk {
    struct {
        int64_t id, device_id;
        char status[16];
        double seconds;
        int verified;
        unsigned nruns;
        double run0;
    } v[8];
    size_t n;
};

static int walk_eval(const struct ht_stored_eval *ev, void *user)
{
    struct eval_walk *w = user;

    assert_true(w->n < sizeof w->v / sizeof *w->v);
    w->v[w->n].id = ev->id;
    w->v[w->n].device_id = ev->device_id;
    snprintf(w->v[w->n].status, sizeof w->v[w->n].status, "%s", ev->status);
    w->v[w->n].seconds = ev->seconds;
    w->v[w->n].verified = ev->verified;
    w->v[w->n].nruns = ev->nruns;
    w->v[w->n].run0 = ev->runs[0];
    w->n++;
    return 0;
}

/* ht_store_list_evals_brief: every evaluation of the problem in the order stored, its
 * outcome as ht_store_list_evals reads it, no runs, and none read: evaluations whose runs
 * are missing (the full walk calls them damaged) are walked all the same. */
static void test_evals_brief(void **state)
{
    char file[512];
    struct ht_store *s = open_with_problems(file, sizeof file);
    struct eval_walk w;
    struct ht_error err;
    (void)state;

    /* A NaN statistic is stored as text; a failure has none. The first has its run. */
    assert_int_equal(
        sqlite3_exec(ht__store_db(s),
                     "INSERT INTO evaluations (problem_id, device_id, config, config_values, "
                     "status, seconds, verified, nruns, created_at) VALUES "
                     "(1, 2, 'TS=1', '[1]', 'ok', 3e-3, 1, 1, 'now'), "
                     "(1, 1, 'TS=1', '[1]', 'build', NULL, -1, 0, 'now'), "
                     "(1, 1, 'TS=2', '[2]', 'ok', 2e-3, 0, 1, 'now'), "
                     "(1, 1, 'TS=3', '[3]', 'cut', 9e-3, -1, 1, 'now'), "
                     "(1, 1, 'TS=4', '[4]', 'ok', 'NaN', 1, 1, 'now'), "
                     "(2, 1, 'TS=1', '[1]', 'ok', 5e-3, 1, 1, 'now');"
                     "INSERT INTO runs (eval_id, i, seconds) VALUES (1, 0, 3e-3);",
                     NULL, NULL, NULL),
        SQLITE_OK);
    ht_error_clear(&err);
    memset(&w, 0, sizeof w);
    check_rc(ht_store_list_evals_brief(s, 1, 0, walk_eval, &w, &err), &err, "brief");
    assert_int_equal(w.n, 5);
    for (size_t i = 0; i < w.n; i++) {
        assert_int_equal(w.v[i].id, (int64_t)i + 1);
        assert_int_equal(w.v[i].nruns, 0);
        assert_true(w.v[i].run0 == 0);
    }
    assert_int_equal(w.v[0].device_id, 2);
    assert_true(w.v[0].seconds == 3e-3);
    assert_int_equal(w.v[0].verified, 1);
    assert_string_equal(w.v[1].status, "build");
    assert_true(w.v[1].seconds == -1);
    assert_int_equal(w.v[1].verified, -1);
    assert_true(w.v[2].seconds == 2e-3);
    assert_int_equal(w.v[2].verified, 0);
    assert_string_equal(w.v[3].status, "cut");
    assert_true(isnan(w.v[4].seconds)); /* as ht_store_list_evals reads it */

    /* Every problem's, and one device's across problems: in id order too; the counts of
     * each choice of ids as the walks find them. */
    memset(&w, 0, sizeof w);
    check_rc(ht_store_list_evals_brief(s, 0, 0, walk_eval, &w, &err), &err, "brief of all");
    assert_int_equal(w.n, 6);
    memset(&w, 0, sizeof w);
    check_rc(ht_store_list_evals_brief(s, 0, 1, walk_eval, &w, &err), &err, "brief of dev 1");
    assert_int_equal(w.n, 5);
    for (size_t i = 0; i < w.n; i++) {
        assert_int_equal(w.v[i].id, (int64_t)i + 2);
        assert_int_equal(w.v[i].device_id, 1);
    }
    {
        static const struct { int64_t problem, device; uint64_t n; } counts[] = {
            {0, 0, 6}, {1, 0, 5}, {0, 1, 5}, {1, 1, 4}, {2, 1, 1}, {2, 2, 0}, {0, 3, 0}};
        for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
            uint64_t n = 99;
            check_rc(ht_store_count_evals(s, counts[i].problem, counts[i].device, &n, &err),
                     &err, "count");
            assert_int_equal(n, counts[i].n);
        }
    }

    /* One device's; the full walk reads the runs, and finds those of the second missing. */
    memset(&w, 0, sizeof w);
    check_rc(ht_store_list_evals_brief(s, 1, 2, walk_eval, &w, &err), &err, "brief of 2");
    assert_int_equal(w.n, 1);
    memset(&w, 0, sizeof w);
    check_rc(ht_store_list_evals(s, 1, 2, walk_eval, &w, &err), &err, "full of 2");
    assert_int_equal(w.n, 1);
    assert_int_equal(w.v[0].nruns, 1);
    assert_true(w.v[0].run0 == 3e-3);
    memset(&w, 0, sizeof w);
    ht_error_clear(&err);
    assert_int_equal(ht_store_list_evals(s, 1, 1, walk_eval, &w, &err), HT_EDB);
    memset(&w, 0, sizeof w);
    check_rc(ht_store_list_evals_brief(s, 3, 0, walk_eval, &w, &err), &err, "brief of none");
    assert_int_equal(w.n, 0);
    ht_store_close(s);
    unlink(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refuses_malformed),
        cmocka_unit_test(test_eval_with_step),
        cmocka_unit_test(test_evals_brief),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
