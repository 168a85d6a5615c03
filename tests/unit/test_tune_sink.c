/* A tune's sink (tune.h): tuning with no database. A small real kernel
 * (tests/fixtures/tune/wrong.json: 7 work-group sizes, one that does not build and two
 * that do not verify) tuned on an OpenCL device into ht_tune_sink_memory's memory, through
 * a sink of the test's own that counts every call before handing it on, against the same
 * tune into a results database (ht_tune_sink_store): the same configurations evaluated, as
 * many, as many failed, and the same best once each side holds the other's evaluations; a
 * tune resumed from memory, its failures measured again, its memory forgotten; a replay
 * into each, with configurations the recording lacks; a sink's error ending the tune;
 * one evaluation as the tuner makes it (ht_tune_eval), kept by each sink's put_eval;
 * sinks refused. Skipped (77) without an OpenCL device. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune.h"

#define CAP 64

static struct ht_platform *plat;
static const struct ht_device_info *dev;
static struct ht_spec *spec;
static char dbdir[64], db[128];

/* A sink of the test's own: counts each op's calls, can fail one put_step, and hands every
 * call on to the sink it wraps. */
struct counting {
    struct ht_tune_sink inner;
    size_t identify, forget, put_space, list_evals, put_run, put_step, lease, replaying;
    size_t put_eval;
    size_t fail_at;          /* put_step's call that fails with HT_EIO (from 1); 0 none */
};

static int c_identify(void *user, const struct ht_spec *s, const struct ht_device_info *d,
                      int64_t *problem_id, int64_t *device_id, struct ht_error *err)
{
    struct counting *c = user;
    c->identify++;
    return c->inner.ops->identify(c->inner.user, s, d, problem_id, device_id, err);
}

static int c_forget(void *user, int64_t p, int64_t d, uint64_t *n, struct ht_error *err)
{
    struct counting *c = user;
    c->forget++;
    return c->inner.ops->forget(c->inner.user, p, d, n, err);
}

static int c_put_space(void *user, const struct ht_stored_space *sp, struct ht_error *err)
{
    struct counting *c = user;
    c->put_space++;
    return c->inner.ops->put_space(c->inner.user, sp, err);
}

static int c_list_evals(void *user, int64_t p, int64_t d, ht_store_eval_cb cb, void *cb_user,
                        struct ht_error *err)
{
    struct counting *c = user;
    c->list_evals++;
    return c->inner.ops->list_evals(c->inner.user, p, d, cb, cb_user, err);
}

static int c_put_run(void *user, const struct ht_stored_tune_run *run, int64_t *id,
                     struct ht_error *err)
{
    struct counting *c = user;
    c->put_run++;
    return c->inner.ops->put_run(c->inner.user, run, id, err);
}

static int c_put_step(void *user, int64_t run_id, const struct ht_stored_tune_step *step,
                      const struct ht_stored_eval *ev, struct ht_error *err)
{
    struct counting *c = user;
    if (++c->put_step == c->fail_at)
        return ht_error_set(err, HT_EIO, "the test's sink fails step %zu", c->fail_at);
    return c->inner.ops->put_step(c->inner.user, run_id, step, ev, err);
}

static int c_lease(void *user, int64_t d, double wait_s, volatile sig_atomic_t *stop,
                   struct ht_lease_info *holder, struct ht_error *err)
{
    struct counting *c = user;
    c->lease++;
    return c->inner.ops->lease(c->inner.user, d, wait_s, stop, holder, err);
}

static void c_release(void *user, int64_t d)
{
    struct counting *c = user;
    c->inner.ops->release(c->inner.user, d);
}

static int c_replaying(void *user, int on, struct ht_error *err)
{
    struct counting *c = user;
    c->replaying++;
    return c->inner.ops->replaying(c->inner.user, on, err);
}

static int c_put_eval(void *user, const struct ht_stored_eval *ev, struct ht_error *err)
{
    struct counting *c = user;
    c->put_eval++;
    return c->inner.ops->put_eval(c->inner.user, ev, err);
}

static const struct ht_tune_sink_ops counting_ops = {
    c_identify, c_forget, c_put_space, c_list_evals, c_put_run, c_put_step, c_lease, c_release,
    c_replaying, c_put_eval,
};
/* The memory's has no lease: neither has its wrapper. */
static const struct ht_tune_sink_ops counting_nolease_ops = {
    c_identify, c_forget, c_put_space, c_list_evals, c_put_run, c_put_step, NULL, NULL, NULL,
    c_put_eval,
};

static struct ht_tune_sink counting_sink(struct counting *c, const struct ht_tune_sink *inner)
{
    memset(c, 0, sizeof *c);
    c->inner = *inner;
    return (struct ht_tune_sink){inner->ops->lease ? &counting_ops : &counting_nolease_ops, c};
}

static void opts_init(struct ht_tune_opts *o)
{
    ht_tune_opts_init(o);
    o->seed = 7; /* exhaustive: every configuration, in order */
    o->cut_factor = 0.0; /* no early cut: each status the kernel's, whatever the clock */
}

static int tune(const struct ht_tune_sink *sink, const struct ht_tune_opts *o,
                struct ht_tune_result *r, struct ht_error *err)
{
    ht_error_clear(err);
    return ht_tune_device(spec, dev, sink, o, r, err);
}

static void tune_ok(const struct ht_tune_sink *sink, const struct ht_tune_opts *o,
                    struct ht_tune_result *r)
{
    struct ht_error err;
    int rc = tune(sink, o, r, &err);
    if (rc != HT_OK)
        fail_msg("ht_tune_device: %s: %s", ht_err_name(rc), err.text);
}

static void memory_init(struct ht_tune_memory *mem)
{
    memset(mem, 0, sizeof *mem);
    mem->evals = calloc(CAP, sizeof *mem->evals);
    assert_non_null(mem->evals);
    mem->cap = CAP;
}

/* The best of what a memory holds, as the tuner judges it: ok, verified, fastest first. */
static const struct ht_stored_eval *memory_best(const struct ht_tune_memory *mem)
{
    const struct ht_stored_eval *best = NULL;
    for (size_t i = 0; i < mem->count; i++) {
        const struct ht_stored_eval *ev = &mem->evals[i];
        if (!strcmp(ev->status, HT_STORE_OK) && ev->verified != 0 && ev->seconds > 0.0 &&
            (!best || ev->seconds < best->seconds))
            best = ev;
    }
    return best;
}

/* A fresh memory of CAP evaluations, its sink, and the tests' options. */
static void memory_start(struct ht_tune_memory *mem, struct ht_tune_sink *sink,
                         struct ht_tune_opts *o)
{
    opts_init(o);
    memory_init(mem);
    ht_tune_sink_memory(sink, mem);
}

/* The fixture, found from HETUNE_SOURCE_DIR (CTest's) or the current folder. */
static void fixture(char *path, size_t size)
{
    const char *src = getenv("HETUNE_SOURCE_DIR");
    snprintf(path, size, "%s/tests/fixtures/tune/wrong.json", src && *src ? src : ".");
}

static int copy_cb(const struct ht_stored_eval *ev, void *user)
{
    struct ht_tune_memory *mem = user;
    assert_true(mem->count < mem->cap);
    mem->evals[mem->count++] = *ev;
    return 0;
}

static int has_config_cb(const struct ht_stored_eval *ev, void *user)
{
    const struct ht_tune_memory *mem = user;
    for (size_t i = 0; i < mem->count; i++)
        if (!strcmp(mem->evals[i].config, ev->config))
            return 0;
    fail_msg("the database evaluated %s, the memory did not", ev->config);
    return 1;
}

static struct ht_store *store_open(void)
{
    struct ht_store *store = NULL;
    struct ht_error err;
    ht_error_clear(&err);
    if (ht_store_open(db, &store, &err) != HT_OK)
        fail_msg("cannot open %s: %s", db, err.text);
    return store;
}

/* Tuned into memory through the counting sink, then the same tune into a database: the
 * same configurations, as many; each best the fastest of what its sink holds. */
static void test_memory_against_store(void **state)
{
    struct ht_tune_memory mem, from_db;
    struct ht_tune_sink msink, ssink, counted;
    struct counting c;
    struct ht_tune_opts o;
    struct ht_tune_result rm, rs, again;
    struct ht_store *store;
    struct ht_error err;
    uint64_t stored = 0;
    const struct ht_stored_eval *best;
    (void)state;

    if (!dev)
        skip();
    memory_start(&mem, &msink, &o);
    counted = counting_sink(&c, &msink);
    tune_ok(&counted, &o, &rm);

    /* Every call went through the sink: nothing of it was measured on the side. */
    assert_int_equal(rm.evaluated, 7);
    assert_int_equal(rm.failed, 3);
    assert_string_equal(rm.failure_status, "build");
    assert_int_equal(rm.from_db, 0);
    assert_int_equal(c.identify, 1);
    assert_int_equal(c.put_space, 1);
    assert_int_equal(c.list_evals, 1);
    assert_int_equal(c.put_run, 1);
    assert_int_equal(c.put_step, rm.evaluated);
    assert_int_equal(c.forget, 0);
    assert_int_equal(c.lease, 0);
    assert_int_equal(c.put_eval, 0); /* a tune's evaluations are steps of its run */
    assert_int_equal(mem.count, rm.evaluated);
    assert_int_equal(mem.steps, rm.evaluated);
    assert_int_equal(mem.runs, 1);
    assert_int_equal(mem.space.pruned, rm.space);
    assert_true(rm.has_best);
    best = memory_best(&mem);
    assert_non_null(best);
    assert_string_equal(best->config, rm.best_text);
    assert_true(best->seconds == rm.best_s);

    /* The same tune into a database: the same configurations, as many evaluations. */
    store = store_open();
    ht_tune_sink_store(&ssink, store);
    counted = counting_sink(&c, &ssink);
    tune_ok(&counted, &o, &rs);
    assert_int_equal(c.lease, 1);
    assert_int_equal(c.put_step, rs.evaluated);
    assert_int_equal(rs.evaluated, rm.evaluated);
    assert_int_equal(rs.space, rm.space);
    assert_int_equal(rs.failed, rm.failed);
    ht_error_clear(&err);
    assert_int_equal(ht_store_count_evals(store, rs.problem_id, rs.device_id, &stored, &err),
                     HT_OK);
    assert_int_equal(stored, mem.count);
    assert_int_equal(ht_store_list_evals(store, rs.problem_id, rs.device_id, has_config_cb,
                                         &mem, &err),
                     HT_OK);

    /* Given the database's evaluations, a memory tune measures nothing and finds the
     * database's best; given the memory's, so does a tune of the memory. */
    memory_init(&from_db);
    assert_int_equal(ht_store_list_evals(store, rs.problem_id, rs.device_id, copy_cb,
                                         &from_db, &err),
                     HT_OK);
    ht_tune_sink_memory(&msink, &from_db);
    tune_ok(&msink, &o, &again);
    assert_int_equal(again.evaluated, 0);
    assert_int_equal(again.from_db, rs.evaluated);
    assert_true(again.best_from_db);
    assert_string_equal(again.best_text, rs.best_text);
    assert_true(again.best_s == rs.best_s);
    assert_int_equal(from_db.runs, 0); /* everything known: no run recorded */

    ht_tune_sink_memory(&msink, &mem);
    tune_ok(&msink, &o, &again);
    assert_int_equal(again.evaluated, 0);
    assert_int_equal(again.from_db, rm.evaluated);
    assert_string_equal(again.best_text, rm.best_text);
    assert_true(again.best_s == rm.best_s);

    /* opts.retry_failed measures the failures again, each replacing its earlier one. */
    o.retry_failed = 1;
    tune_ok(&msink, &o, &again);
    assert_int_equal(again.evaluated, rm.failed);
    assert_int_equal(again.from_db, rm.evaluated - rm.failed);
    assert_int_equal(mem.count, rm.evaluated);
    assert_int_equal(mem.runs, 2);
    assert_string_equal(mem.evals[mem.count - 1].status, HT_STORE_VERIFY); /* WG=64's */

    /* opts.fresh forgets the memory's and measures again. */
    o.retry_failed = 0;
    o.fresh = 1;
    tune_ok(&msink, &o, &again);
    assert_int_equal(again.forgotten, rm.evaluated);
    assert_int_equal(again.evaluated, rm.evaluated);
    assert_int_equal(mem.count, rm.evaluated);

    ht_store_close(store);
    free(from_db.evals);
    free(mem.evals);
}

/* A recording of wrong.json's space (tune.h, "Recorded spaces") in T4: WG = 1, 2, 4, 8
 * and 16, WG = 2 a compile failure, WG = 4 the fastest; WG = 32 and 64 not recorded. */
static struct ht_recording *recording(void)
{
    static const int wg[] = {1, 2, 4, 8, 16};
    static const double ms[] = {3.0, 0.0, 1.0, 2.0, 4.0};
    struct ht_recording *rec = NULL;
    struct ht_error err;
    char path[] = "/tmp/hetune-test-sink-rec-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

    assert_non_null(f);
    fprintf(f, "{\"metadata\": {\"timeunit\": \"milliseconds\"}, \"schema_version\": "
               "\"1.0.0\", \"results\": [");
    for (size_t i = 0; i < sizeof wg / sizeof wg[0]; i++) {
        int ok = ms[i] > 0.0;
        fprintf(f, "%s{\"timestamp\": \"2026-11-29 12:00:00+00:00\", \"configuration\": "
                   "{\"WG\": %d}, \"times\": {\"compilation\": 500.0, \"framework\": 0.0, "
                   "\"search_algorithm\": 0, \"validation\": 0, \"runtimes\": [",
                i ? ", " : "", wg[i]);
        if (ok)
            fprintf(f, "%g, %g], \"benchmark\": 500.0}, \"invalidity\": \"correct\", "
                       "\"correctness\": 1, \"objectives\": [\"time\"], \"measurements\": "
                       "[{\"name\": \"time\", \"value\": %g, \"unit\": \"ms\"}]}",
                    ms[i], ms[i], ms[i]);
        else
            fprintf(f, "]}, \"invalidity\": \"compile\", \"correctness\": 0, "
                       "\"objectives\": [\"time\"]}");
    }
    fprintf(f, "]}\n");
    fclose(f);
    ht_error_clear(&err);
    if (ht_recording_load(path, NULL, &rec, &err) != HT_OK)
        fail_msg("cannot load the recording: %s", err.text);
    unlink(path);
    return rec;
}

/* A replay records through the sink as a measured tune does, the configurations the
 * recording lacks as steps without an evaluation; the database's sink is told it replays
 * (on, then off), the memory's has nothing to be told. Both give the same (on the
 * recording's device: the test itself needs no OpenCL device). */
static void test_replay_sinks(void **state)
{
    struct ht_recording *rec = recording();
    struct ht_device_info replayed;
    struct ht_tune_memory mem;
    struct ht_tune_sink msink, ssink, counted;
    struct counting c;
    struct ht_tune_opts o;
    struct ht_tune_result rm, rs;
    struct ht_store *store = store_open();
    struct ht_error err;
    uint64_t stored = 0;
    (void)state;

    ht_recording_device_info(rec, &replayed);
    memory_start(&mem, &msink, &o);
    o.replay = rec;
    counted = counting_sink(&c, &msink);
    ht_error_clear(&err);
    if (ht_tune_device(spec, &replayed, &counted, &o, &rm, &err) != HT_OK)
        fail_msg("replay into memory: %s", err.text);
    assert_true(rm.replayed);
    assert_int_equal(rm.evaluated, 7);
    assert_int_equal(rm.missing, 2);
    assert_int_equal(rm.failed, 1);
    assert_string_equal(rm.best_text, "WG=4");
    assert_int_equal(c.put_step, 7);
    assert_int_equal(mem.steps, 7);
    assert_int_equal(mem.count, 5); /* the missing ones are steps, not evaluations */
    assert_int_equal(c.replaying, 0);

    ht_tune_sink_store(&ssink, store);
    counted = counting_sink(&c, &ssink);
    ht_error_clear(&err);
    if (ht_tune_device(spec, &replayed, &counted, &o, &rs, &err) != HT_OK)
        fail_msg("replay into the database: %s", err.text);
    assert_int_equal(c.replaying, 2);
    assert_int_equal(c.lease, 0);
    assert_int_equal(rs.evaluated, rm.evaluated);
    assert_int_equal(rs.missing, rm.missing);
    assert_string_equal(rs.best_text, rm.best_text);
    assert_true(rs.best_s == rm.best_s);
    assert_int_equal(ht_store_count_evals(store, rs.problem_id, rs.device_id, &stored, &err),
                     HT_OK);
    assert_int_equal(stored, mem.count);
    ht_store_close(store);
    ht_recording_free(rec);
    free(mem.evals);
}

/* A sink's error ends the tune with it, keeping what was recorded before; a full memory
 * is HT_ENOMEM; a memory refuses another problem. */
static void test_sink_errors(void **state)
{
    struct ht_tune_memory mem;
    struct ht_tune_sink msink, counted;
    struct counting c;
    struct ht_tune_opts o;
    struct ht_tune_result r;
    struct ht_error err;
    struct ht_spec *other = NULL;
    struct ht_size_override ov = {"N", 2048};
    char path[4096];
    (void)state;

    if (!dev)
        skip();
    memory_start(&mem, &msink, &o);
    counted = counting_sink(&c, &msink);
    c.fail_at = 3;
    assert_int_equal(tune(&counted, &o, &r, &err), HT_EIO);
    assert_non_null(strstr(err.text, "fails step 3"));
    assert_int_equal(mem.count, 2);
    assert_int_equal(r.evaluated, 2);

    free(mem.evals);
    memory_init(&mem);
    mem.cap = 4;
    ht_tune_sink_memory(&msink, &mem);
    assert_int_equal(tune(&msink, &o, &r, &err), HT_ENOMEM);
    assert_non_null(strstr(err.text, "keeps 4 evaluations"));
    assert_int_equal(mem.count, 4);

    fixture(path, sizeof path);
    ht_error_clear(&err);
    assert_int_equal(ht_spec_load(path, &ov, 1, &other, &err), HT_OK);
    ht_error_clear(&err);
    assert_int_equal(ht_tune_device(other, dev, &msink, &o, &r, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "another problem"));
    ht_spec_free(other);
    free(mem.evals);
}

/* One evaluation of ht_tune_eval, as the tuner evaluates (ht_mpi_tune's ranks do so):
 * session is dev's, ids and strategy those of the tune it belongs to. */
static int eval_one(struct ht_session *session, int64_t wg, double best_s, double cut_factor,
                    int64_t problem_id, int64_t device_id, struct ht_stored_eval *ev)
{
    const char *names[] = {"WG", NULL};
    char text[HT_STORE_CONFIG_MAX];
    struct ht_eval_result res;
    struct ht_error err;
    struct ht_tune_one one;
    int st;

    ht_store_config_text(names, &wg, 1, text, sizeof text);
    one = (struct ht_tune_one){session, &wg, text, 1, best_s, cut_factor, problem_id,
                               device_id, "exhaustive", 7, spec->hash};
    ht_error_clear(&err);
    st = ht_tune_eval(&one, &res, ev, &err);
    ht_eval_result_destroy(&res);
    return st;
}

/* ht_tune_eval fills the row the tuner stores for the same configuration (its status,
 * runs, verification, ids, strategy and spec), early cut by the call's option alone; a
 * sink's put_eval keeps it without a run or step: the memory's replacing the one it held,
 * the database's as an evaluation of the problem. */
static void test_eval_one(void **state)
{
    struct ht_tune_memory mem;
    struct ht_tune_sink msink, ssink;
    struct ht_tune_opts o;
    struct ht_tune_result r;
    struct ht_session *session = NULL;
    struct ht_stored_eval ev, back;
    struct ht_store *store;
    struct ht_tune_memory listed;
    struct ht_error err;
    int64_t problem_id, device_id, wg = 16;
    size_t held;
    (void)state;

    if (!dev)
        skip();
    memory_start(&mem, &msink, &o);
    tune_ok(&msink, &o, &r);
    held = mem.count;
    ht_error_clear(&err);
    assert_int_equal(ht_session_create(spec, dev, &o.exec, &session, &err), HT_OK);

    /* WG=16 verifies: the row is the tuner's but for the times. */
    assert_int_equal(eval_one(session, 16, 0.0, 0.0, 1, 1, &ev), HT_OK);
    for (size_t i = 0; i < mem.count; i++)
        if (!strcmp(mem.evals[i].config, "WG=16"))
            back = mem.evals[i];
    assert_string_equal(ev.config, back.config);
    assert_string_equal(ev.status, HT_STORE_OK);
    assert_int_equal(ev.verified, back.verified);
    assert_int_equal(ev.nvalues, 1);
    assert_int_equal(ev.values[0], 16);
    assert_int_equal(ev.nruns, back.nruns);
    assert_true(ev.seconds > 0.0);
    assert_string_equal(ev.strategy, back.strategy);
    assert_int_equal(ev.seed, back.seed);
    assert_string_equal(ev.spec_hash, back.spec_hash);
    assert_int_equal(ev.problem_id, back.problem_id);

    /* Kept by the memory's put_eval: the one held replaced, no step. */
    assert_int_equal(msink.ops->put_eval(msink.user, &ev, &err), HT_OK);
    assert_int_equal(mem.count, held);
    assert_int_equal(mem.steps, r.evaluated);
    assert_string_equal(mem.evals[mem.count - 1].config, "WG=16");
    assert_true(mem.evals[mem.count - 1].seconds == ev.seconds);

    /* The early cut is the call's: a best far below cuts it, the same without a factor
     * does not. */
    assert_int_equal(eval_one(session, 16, 1e-12, 3.0, 1, 1, &ev), HT_ECUT);
    assert_string_equal(ev.status, HT_STORE_CUT);
    assert_true(ev.nruns >= HT_CUT_MIN_RUNS && ev.nruns < back.nruns);
    assert_int_equal(eval_one(session, 16, 1e-12, 0.0, 1, 1, &ev), HT_OK);

    /* A configuration's failure is the row's: WG=2 does not build. */
    assert_int_equal(eval_one(session, 2, 0.0, 0.0, 1, 1, &ev), HT_EBUILD);
    assert_string_equal(ev.status, "build");
    assert_true(ev.reason[0] != '\0');

    /* The database's put_eval: an evaluation of the problem, no run. */
    store = store_open();
    ht_tune_sink_store(&ssink, store);
    assert_int_equal(ssink.ops->identify(ssink.user, spec, dev, &problem_id, &device_id, &err),
                     HT_OK);
    assert_int_equal(ssink.ops->forget(ssink.user, problem_id, device_id, &(uint64_t){0}, &err),
                     HT_OK);
    assert_int_equal(eval_one(session, 16, 0.0, 0.0, problem_id, device_id, &ev), HT_OK);
    assert_int_equal(ssink.ops->put_eval(ssink.user, &ev, &err), HT_OK);
    memory_init(&listed);
    assert_int_equal(ht_store_list_evals(store, problem_id, device_id, copy_cb, &listed, &err),
                     HT_OK);
    assert_int_equal(listed.count, 1);
    assert_string_equal(listed.evals[0].config, "WG=16");
    assert_true(listed.evals[0].seconds == ev.seconds);

    /* Refused: nothing to evaluate. */
    {
        struct ht_eval_result res;
        struct ht_tune_one none = {session, &wg, "WG=16", 0, 0.0, 0.0, 1, 1, NULL, 0, NULL};
        struct ht_tune_one ok = none;
        assert_int_equal(ht_tune_eval(&none, &res, &ev, &err), HT_EINVAL);
        ht_eval_result_destroy(&res);
        ok.nparams = 1;
        ok.session = NULL;
        assert_int_equal(ht_tune_eval(&ok, &res, &ev, &err), HT_EINVAL);
        ht_eval_result_destroy(&res);
        ok.session = session;
        ok.text = NULL;
        assert_int_equal(ht_tune_eval(&ok, &res, &ev, &err), HT_EINVAL);
        ht_eval_result_destroy(&res);
        ok.text = "WG=16";
        assert_int_equal(ht_tune_eval(NULL, &res, &ev, &err), HT_EINVAL);
        ht_eval_result_destroy(&res);
        assert_int_equal(ht_tune_eval(&ok, NULL, &ev, &err), HT_EINVAL);
        assert_int_equal(ht_tune_eval(&ok, &res, NULL, &err), HT_EINVAL);
        ht_eval_result_destroy(&res);
    }
    ht_store_close(store);
    ht_session_free(session);
    free(listed.evals);
    free(mem.evals);
}

/* A sink without the ops every tune calls, or without forget under opts.fresh, is refused
 * before any work. */
static void test_sink_refused(void **state)
{
    struct ht_tune_memory mem;
    struct ht_tune_sink msink, counted, bare = {NULL, NULL};
    struct ht_tune_sink_ops partial;
    struct counting c;
    struct ht_tune_opts o;
    struct ht_tune_result r;
    struct ht_error err;
    (void)state;

    if (!dev)
        skip();
    memory_start(&mem, &msink, &o);
    assert_int_equal(tune(&bare, &o, &r, &err), HT_EINVAL);
    assert_int_equal(tune(NULL, &o, &r, &err), HT_EINVAL);
    counted = counting_sink(&c, &msink);
    partial = *counted.ops;
    partial.put_step = NULL;
    counted.ops = &partial;
    assert_int_equal(tune(&counted, &o, &r, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "put_step"));
    partial = counting_nolease_ops;
    partial.forget = NULL;
    o.fresh = 1;
    assert_int_equal(tune(&counted, &o, &r, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "forget"));
    assert_int_equal(c.identify, 0);
    assert_int_equal(mem.count, 0);
    free(mem.evals);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_against_store),
        cmocka_unit_test(test_replay_sinks),
        cmocka_unit_test(test_sink_errors),
        cmocka_unit_test(test_eval_one),
        cmocka_unit_test(test_sink_refused),
    };
    struct ht_error err;
    char path[4096];
    int failed;

    ht_error_clear(&err);
    if (ht_platform_discover(&plat, &err) != HT_OK || plat->count == 0) {
        fprintf(stderr, "no OpenCL device (%s): skipped\n", err.text);
        ht_platform_free(plat);
        return 77;
    }
    dev = &plat->devices[0];
    fixture(path, sizeof path);
    if (ht_spec_load(path, NULL, 0, &spec, &err) != HT_OK) {
        fprintf(stderr, "cannot load %s: %s\n", path, err.text);
        return 1;
    }
    strcpy(dbdir, "/tmp/hetune-test-sink-XXXXXX");
    if (!mkdtemp(dbdir))
        return 1;
    snprintf(db, sizeof db, "%s/results.db", dbdir);
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(db);
    {
        char side[160];
        snprintf(side, sizeof side, "%s-wal", db);
        unlink(side);
        snprintf(side, sizeof side, "%s-shm", db);
        unlink(side);
    }
    rmdir(dbdir);
    ht_spec_free(spec);
    ht_platform_free(plat);
    return failed;
}
