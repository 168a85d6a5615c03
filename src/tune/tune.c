/* The tuning loop (issue 4): the valid configurations of a spec on one device, a search
 * strategy choosing among them, one session evaluating them, and the sink (the results
 * database, sink.c, or the program's own) keeping every evaluation before the next one
 * starts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune/tune.h"
#include "exec/tuning.h"
#include "tune-internal.h"
#include "util/util.h"

_Static_assert(HT_STORE_MAX_RUNS >= HT_MAX_REPEATS, "the store keeps every run of an eval");

/* A CPU device builds ahead by default on a machine of at least this many cores
 * (tune_builders): 16 gained, 2 did not; no machine between was measured. */
#define CPU_BUILDERS_MIN_CORES 8

void ht_tune_opts_init(struct ht_tune_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->strategy = NULL; /* automatic */
    opts->jobs = 1;
    opts->cut_factor = HT_SEARCH_CUT_FACTOR;
    opts->eq3 = HT_EQ3_PRODUCT;
    ht_exec_opts_init(&opts->exec);
}

/* The valid configurations, row major, as ht_space_foreach visits them. */
struct collect {
    int64_t *configs;
    size_t count, cap, nparams;
};

static int collect_cb(const int64_t *config, void *user)
{
    struct collect *c = user;

    if (c->count == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        int64_t *grown = realloc(c->configs, cap * (c->nparams ? c->nparams : 1) *
                                                 sizeof *grown);
        if (!grown)
            return 1; /* a positive value stops the walk; the caller sees count < cap */
        c->configs = grown;
        c->cap = cap;
    }
    if (c->nparams)
        memcpy(c->configs + c->count * c->nparams, config, c->nparams * sizeof *config);
    c->count++;
    return 0;
}

/* The state of one tune, shared with the callbacks and the steps of ht_tune_device. */
struct tune {
    const struct ht_spec *spec;
    const struct ht_device_info *dev;
    const struct ht_tune_sink_ops *sink; /* where results go (tune.h) */
    void *sink_user;
    int replaying;          /* the sink was told a replay began (sink->replaying) */
    const struct ht_tune_opts *opts;
    struct ht_tune_result *out;
    struct ht_search *search;
    size_t nparams, count;
    int has_best;
    size_t best;
    double best_s;
    int rc;                 /* the first error a callback met */
    struct ht_error *err;
    double sim_s;           /* replay: the simulated clock */
    int64_t run_id;         /* the run in the database, made with its first step; 0 none */
    uint64_t steps;         /* steps stored */
    const char **names;     /* the parameters' names, NULL-terminated */
    struct ht_space *space;
    struct ht_space_counts counts;
    struct collect col;     /* the configurations, when the space is listed whole */
    struct ht_session *session;  /* NULL for a replay, or with nothing to measure */
    unsigned jobs;          /* the session's build workers (its builds ahead), or 0 */
    int ref_done;           /* the reference step is behind us */
    struct ht_eval_result *res;  /* the current evaluation's */
    struct ht_stored_eval *ev;   /* its row of the database */
    double t0, loop_t0;     /* the tune's start, the measurements' start (ht__now) */
    double search_t0;       /* the search's start, for its time limit */
    size_t total;           /* the evaluations this run expects to make */
    size_t *fl, nfl, k;     /* proposals in flight, oldest first; at most k */
    int search_done;        /* the search has no more to propose */
};

/* The clock of a replay's time limit: the recorded costs of its evaluations so far. */
static double simulated_now(void *user)
{
    return ((const struct tune *)user)->sim_s;
}

/* A result competes for best when it ran to the end and did not fail verification
 * (verified -1 is a spec without a reference, or a run with verification off). */
static void consider_best(struct tune *t, size_t index, double seconds, int from_db)
{
    if (!(seconds > 0.0) || !isfinite(seconds))
        return;
    if (t->has_best && !(seconds < t->best_s))
        return; /* ties go to the one known first */
    t->has_best = 1;
    t->best = index;
    t->best_s = seconds;
    t->out->best_from_db = from_db;
}

/* The cost the search learns: the time of a good result, the partial time of a cut one
 * (more than cut_factor times the best, so it never wins, yet it tells the genetic and
 * annealing strategies where not to go), INFINITY for a failure. */
static double stored_cost(const struct ht_stored_eval *ev)
{
    if (!strcmp(ev->status, HT_STORE_OK) && ev->verified != 0)
        return ev->seconds > 0.0 ? ev->seconds : INFINITY;
    if (!strcmp(ev->status, HT_STORE_CUT) && ev->seconds > 0.0)
        return ev->seconds;
    return INFINITY;
}

/* 1 for an evaluation's status that is an error of the spec, not of the configuration:
 * bad input (exit status 2) that the database would store as "error". */
static int spec_error(int st)
{
    return ht__exit_status(st) == 2 && !strcmp(ht_store_status_name(st), HT_STORE_ERROR);
}

/* Keeps the first failure's reason, and counts the failures of its kind, for a run where
 * nothing verified to say why (out->failure). */
static void note_failure(struct ht_tune_result *out, const struct ht_stored_eval *ev)
{
    if (!out->failure[0]) {
        snprintf(out->failure_status, sizeof out->failure_status, "%s", ev->status);
        snprintf(out->failure, sizeof out->failure, "%s: %s", ev->config, ev->reason);
    }
    if (!strcmp(out->failure_status, ev->status))
        out->failure_like++;
}

/* 1 for a failure status whose cause may lie in the spec or the host side rather than in
 * the kernel: a launch (the NDRange, the arguments), a verification (the reference, the
 * tolerances), a broken constraint, another OpenCL call (buffers). */
static int spec_made(const char *status)
{
    return !strcmp(status, HT_STORE_LAUNCH) || !strcmp(status, HT_STORE_VERIFY) ||
           !strcmp(status, HT_STORE_CONSTRAINT) || !strcmp(status, HT_STORE_CL);
}

static int preseed_cb(const struct ht_stored_eval *ev, void *user)
{
    struct tune *t = user;
    size_t index;
    double cost;
    int rc, failure;

    if (ev->nvalues != t->nparams)
        return 0;
    /* "error" is what no configuration causes: a spec's error stored before spec errors
     * stopped the run, or a transient one (memory, a file). Measured again, and replaced. */
    if (!strcmp(ev->status, HT_STORE_ERROR))
        return 0;
    /* A worker killed by SIGKILL died from outside: hetune kills one only on a timeout,
     * stored as such; a kernel's own crash is a SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT.
     * The OOM killer, a kill -9 or a cgroup's limit said nothing of the kernel: measured
     * again (once per run, as "error"). */
    if (!strcmp(ev->status, HT_STORE_CRASHED) && !strcmp(ev->reason, "crashed: SIGKILL"))
        return 0;
    failure = strcmp(ev->status, HT_STORE_OK) && strcmp(ev->status, HT_STORE_CUT);
    if (failure && t->opts->retry_failed)
        return 0; /* measured again, and replaced */
    /* A failure of the spec's making is known only for the spec it was stored with: a
     * fixed spec (its hash changed) measures it again. A kernel's own failure (build,
     * crashed, timeout) belongs to the kernel, which is part of the problem's identity,
     * so an edited kernel never sees it. */
    if (failure && spec_made(ev->status) && strcmp(ev->spec_hash, t->spec->hash) != 0) {
        t->out->failed_stale++;
        return 0;
    }
    cost = stored_cost(ev);
    /* Matched by value (the search's hash index), so a space drawn from rather than
     * listed recognises them too. Evaluations of configurations outside today's space
     * (another Eq. 3 mode, say) are kept in the database but play no part in this run;
     * of a configuration stored twice, the first counts. */
    rc = ht_search_report_config(t->search, ev->values, cost, &index);
    if (rc == HT_ENOTFOUND || rc == HT_EINVAL)
        return 0;
    if (rc != HT_OK) {
        t->rc = ht_error_set(t->err, rc, "cannot hand stored evaluation %s to the search",
                             ev->config);
        return 1;
    }
    t->out->from_db++;
    t->out->failed_reused += failure;
    if (!strcmp(ev->status, HT_STORE_OK) && ev->verified != 0)
        consider_best(t, index, ev->seconds, 1);
    else if (strcmp(ev->status, HT_STORE_OK) && strcmp(ev->status, HT_STORE_CUT))
        note_failure(t->out, ev);
    return 0;
}

/* Fills ev from one evaluation of one->config (its ids, text and parameters one's; its
 * session unused): the tuner's own (fill_eval) and ht_tune_eval's. */
static void tune_fill_eval(const struct ht_tune_one *one, int status,
                           const struct ht_eval_result *res, const struct ht_error *eerr,
                           struct ht_stored_eval *ev)
{
    int read_back = status == HT_OK || status == HT_EVERIFY;

    ht_stored_eval_init(ev);
    ev->problem_id = one->problem_id;
    ev->device_id = one->device_id;
    snprintf(ev->config, sizeof ev->config, "%s", one->text);
    ev->nvalues = one->nparams;
    memcpy(ev->values, one->config, one->nparams * sizeof *one->config);
    snprintf(ev->status, sizeof ev->status, "%s",
             ht_store_status_name(status));
    if (status != HT_OK)
        ht_error_format(eerr, ev->reason, sizeof ev->reason);
    if (res->nruns) {
        ev->seconds = res->kernel_s;
        ev->min_seconds = res->kernel_min_s;
        ev->write_seconds = res->write_s;
    }
    if (read_back)
        ev->read_seconds = res->read_s;
    /* A broken rule is found before any build is tried. */
    if (status != HT_ECONSTRAINT)
        ev->build_seconds = res->build_s;
    ev->cache_hit = res->cache_hit;
    ev->verified = res->verified;
    if (res->verified >= 0) {
        ev->max_abs_err = res->max_abs_err;
        ev->max_rel_err = res->max_rel_err;
        ev->mismatches = res->mismatches;
    }
    ev->ndims = res->ndims;
    memcpy(ev->global, res->global, sizeof ev->global);
    memcpy(ev->local, res->local, sizeof ev->local);
    snprintf(ev->strategy, sizeof ev->strategy, "%s", one->strategy ? one->strategy : "");
    ev->seed = one->seed;
    snprintf(ev->spec_hash, sizeof ev->spec_hash, "%s", one->spec_hash ? one->spec_hash : "");
    ev->nruns = res->nruns;
    if (res->nruns)
        memcpy(ev->runs, res->run_s, res->nruns * sizeof *res->run_s);
}

/* Records the next step of this run through the sink (put_step): the order and clock
 * of its evaluations, which their own rows do not keep; with ev (when not NULL), the
 * evaluation itself in the same transaction. The run's row is made with its first step, so
 * a tune that finds everything stored leaves none. */
static int record_step(struct tune *t, const struct ht_stored_eval *ev, const char *text,
                       const char *status, double seconds, double elapsed_s,
                       struct ht_error *err)
{
    struct ht_stored_tune_step *step;
    int rc = HT_OK;

    if (!t->run_id) {
        struct ht_stored_tune_run run;
        memset(&run, 0, sizeof run);
        run.problem_id = t->out->problem_id;
        run.device_id = t->out->device_id;
        snprintf(run.strategy, sizeof run.strategy, "%s", ht_search_name(t->search));
        run.seed = t->opts->seed;
        run.budget = t->opts->budget;
        run.time_limit_s = t->opts->time_limit_s;
        run.replayed = t->opts->replay != NULL;
        run.from_db = t->out->from_db;
        /* Called before the step's own result is considered: the stored ones' best. */
        run.best_before_s = t->has_best ? t->best_s : -1.0;
        rc = t->sink->put_run(t->sink_user, &run, &t->run_id, err);
        if (rc != HT_OK)
            return rc;
    }
    step = malloc(sizeof *step);
    if (!step)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    memset(step, 0, sizeof *step);
    step->i = t->steps;
    snprintf(step->config, sizeof step->config, "%s", text);
    snprintf(step->status, sizeof step->status, "%s", status);
    step->seconds = seconds;
    step->elapsed_s = elapsed_s > 0.0 ? elapsed_s : 0.0;
    rc = t->sink->put_step(t->sink_user, t->run_id, step, ev, err);
    if (rc == HT_OK)
        t->steps++;
    free(step);
    return rc;
}

static void fill_eval(struct tune *t, const int64_t *config, const char *text, int status,
                      const struct ht_eval_result *res, const struct ht_error *eerr,
                      struct ht_stored_eval *ev)
{
    struct ht_tune_one one = {.config = config, .text = text, .nparams = t->nparams,
                              .problem_id = t->out->problem_id,
                              .device_id = t->out->device_id,
                              .strategy = ht_search_name(t->search), .seed = t->opts->seed,
                              .spec_hash = t->spec->hash};

    tune_fill_eval(&one, status, res, eerr, ev);
}

/* One measurement as the tuner makes it: the session's early cut from the best so far,
 * then the evaluation (tune_measure's and ht_tune_eval's). */
static int eval_cut(struct ht_session *session, const int64_t *config, double best_s,
                    double cut_factor, struct ht_eval_result *res, struct ht_error *eerr)
{
    ht__session_set_cut(session, best_s, cut_factor);
    return ht_session_eval(session, config, res, eerr);
}

int ht_tune_eval(const struct ht_tune_one *one, struct ht_eval_result *res,
                 struct ht_stored_eval *ev, struct ht_error *err)
{
    int st;

    if (res)
        memset(res, 0, sizeof *res);
    if (!one || !res || !ev)
        return ht_error_set(err, HT_EINVAL, "ht_tune_eval: %s is NULL",
                            !one ? "one" : !res ? "res" : "ev");
    if (one->nparams == 0 || one->nparams > HT_STORE_MAX_PARAMS || !one->session ||
        !one->config || !one->text)
        return ht_error_set(err, HT_EINVAL, "ht_tune_eval: a session, a configuration of "
                            "1 to %d values and its text are needed", HT_STORE_MAX_PARAMS);
    st = eval_cut(one->session, one->config, one->best_s, one->cut_factor, res, err);
    tune_fill_eval(one, st, res, err, ev);
    return st;
}

static void report_progress_ref(struct tune *t, const int64_t *config, int status,
                                int reference, double reference_s, int computed)
{
    const struct ht_tune_opts *o = t->opts;
    struct ht_tune_progress p;
    double now = ht__now();

    if (!o->progress)
        return;
    memset(&p, 0, sizeof p);
    p.dev = t->dev;
    p.space = t->count;
    snprintf(p.space_text, sizeof p.space_text, "%s", t->out->space_text);
    p.from_db = t->out->from_db;
    p.done = t->out->evaluated;
    p.total = t->total;
    p.cut = t->out->cut;
    p.failed = t->out->failed;
    p.config = config;
    p.status = status;
    p.best = t->has_best ? ht_search_config(t->search, t->best) : NULL;
    p.best_s = t->has_best ? t->best_s : -1.0;
    p.elapsed_s = now - t->t0;
    p.eta_s = -1.0;
    p.reference = reference;
    p.reference_s = reference_s;
    p.reference_computed = computed;
    if (t->session)
        ht__session_builds(t->session, &p.building, &p.built);
    if (p.done > 0) {
        p.eta_s = (now - t->loop_t0) / (double)p.done *
                  (double)(t->total > p.done ? t->total - p.done : 0);
        if (o->time_limit_s > 0.0 && p.eta_s > o->time_limit_s - (now - t->loop_t0))
            p.eta_s = fmax(0.0, o->time_limit_s - (now - t->loop_t0));
    }
    o->progress(&p, o->progress_user);
}

static void report_progress(struct tune *t, const int64_t *config, int status)
{
    report_progress_ref(t, config, status, 0, 0.0, 0);
}

static int stop_raised(const struct ht_tune_opts *o)
{
    return o->stop && *o->stop;
}

/* Takes the device's lease (the sink's, store.h's for the database), so that no other
 * process measures the device meanwhile. While another process holds it, says so once
 * (opts->on_wait) and waits until it is given back or goes stale, or until opts->stop is
 * raised (out->stopped, and *leased stays 0). A sink without leases leases nothing. */
static int lease_device(struct tune *t, const struct ht_device_info *dev, int *leased,
                        struct ht_error *err)
{
    const struct ht_tune_opts *o = t->opts;
    struct ht_lease_info holder;
    int rc;

    if (!t->sink->lease)
        return HT_OK;
    rc = t->sink->lease(t->sink_user, t->out->device_id, 0.0, NULL, &holder, err);
    if (rc == HT_STORE_LEASE_BUSY) {
        if (o->on_wait)
            o->on_wait(dev, &holder, o->wait_user);
        rc = t->sink->lease(t->sink_user, t->out->device_id, -1.0, o->stop, &holder, err);
    }
    if (rc == HT_STORE_LEASE_BUSY) { /* a wait without limit ends only by opts->stop */
        t->out->stopped = 1;
        return HT_OK;
    }
    *leased = rc == HT_OK;
    return rc;
}

/* Records the sizes of the space on the device (the paper's Tables 1 and 2), counted by
 * the caller, for hetune report; counting is cheap next to a single evaluation. */
static int record_space(const struct tune *t, struct ht_error *err)
{
    struct ht_stored_space sp;

    if (!t->sink->put_space)
        return HT_OK;
    ht_stored_space_init(&sp);
    sp.problem_id = t->out->problem_id;
    sp.device_id = t->out->device_id;
    sp.eq3 = ht_space_get_eq3(t->space);
    ht_stored_space_from_counts(&sp, &t->counts);
    return t->sink->put_space(t->sink_user, &sp, err);
}

/* Asks the search for proposals until k are in flight (fl[0..*nfl), oldest first), it
 * needs a result first (HT_BUSY) or it is done (*done set), handing each to the session
 * to build ahead when it builds ahead (t->jobs). */
static int propose(struct tune *t, size_t *fl, size_t *nfl, size_t k, int *done,
                   struct ht_error *err)
{
    while (*nfl < k && !*done) {
        size_t i;
        int rc = ht_search_next(t->search, &i);
        if (rc == HT_DONE) {
            *done = 1;
            break;
        }
        if (rc == HT_BUSY)
            break;
        if (rc != HT_OK)
            return ht_error_set(err, rc, "the %s search failed: %s", t->out->strategy,
                                ht_strerror(rc));
        if (t->jobs && (rc = ht__session_build_ahead(t->session, t->jobs, i,
                                                     ht_search_config(t->search, i))) != 0)
            return ht_error_set(err, rc, "cannot queue a build ahead: %s", ht_strerror(rc));
        fl[(*nfl)++] = i;
    }
    return HT_OK;
}

/* Refuses, before any work, what no tune can run: a sink without the ops a tune calls, a
 * cut factor between 0 and 1, a spec without parameters or with more than the database
 * keeps, an unknown strategy (out->strategy names it; a typo costs nothing). HT_EINVAL, or
 * the strategy's own error. */
static int tune_check(const struct ht_spec *spec, const struct ht_tune_sink *sink,
                      const struct ht_tune_opts *opts, const struct ht_tune_result *out,
                      struct ht_error *err)
{
    const struct ht_tune_sink_ops *ops = sink ? sink->ops : NULL;
    size_t nparams = spec->space.nparams;

    if (!ops || !ops->identify || !ops->list_evals || !ops->put_run || !ops->put_step ||
        !ops->lease != !ops->release)
        return ht_error_set(err, HT_EINVAL, "the tune's sink lacks %s",
                            !ops              ? "its ops"
                            : !ops->identify  ? "identify"
                            : !ops->list_evals ? "list_evals"
                            : !ops->put_run   ? "put_run"
                            : !ops->put_step  ? "put_step"
                                              : "lease or release (both or neither)");
    if (opts->fresh && !ops->forget)
        return ht_error_set(err, HT_EINVAL, "the tune's sink cannot forget (opts.fresh)");

    if (isnan(opts->cut_factor) || opts->cut_factor < 0.0 ||
        (opts->cut_factor > 0.0 && opts->cut_factor < 1.0)) {
        if (err && !err->code)
            snprintf(err->field, sizeof err->field, "cut_factor");
        return ht_error_set(err, HT_EINVAL,
                            "the cut factor must be 0 (off) or at least 1, not %g",
                            opts->cut_factor);
    }
    if (nparams == 0)
        return ht_error_set(err, HT_EINVAL, "nothing to tune: the spec has no parameters");
    if (nparams > HT_STORE_MAX_PARAMS)
        return ht_error_set(err, HT_EINVAL,
                            "%zu parameters: the results database keeps %d at most",
                            nparams, HT_STORE_MAX_PARAMS);
    if (!ht_search_find(out->strategy)) {
        struct ht_search *probe = NULL;
        struct ht_search_space empty = {0, 0, NULL, NULL, NULL};
        int rc = ht_search_create(out->strategy, &empty, NULL, &probe, err);
        ht_search_free(probe);
        return rc == HT_OK ? ht_error_set(err, HT_EINVAL, "unknown strategy '%s'",
                                          out->strategy)
                           : rc;
    }
    return HT_OK;
}

/* Makes the pruned space on the device and counts it (t->space, t->counts; bound to the
 * recording for a replay), settles the strategy the run uses, and fills *sspace with what
 * the search sees: the configurations listed whole (t->col) or the space to draw from. */
static int tune_space(struct tune *t, struct ht_search_space *sspace, struct ht_error *err)
{
    const struct ht_tune_opts *opts = t->opts;
    struct ht_tune_result *out = t->out;
    int rc = ht_space_create(&t->spec->space, t->dev, opts->eq3, &t->space, err);

    if (rc != HT_OK)
        return rc;
    rc = ht_space_count(t->space, &t->counts, err);
    if (rc == HT_OK && opts->replay)
        rc = ht__recording_bind(opts->replay, t->spec, t->space, err);
    if (rc != HT_OK)
        return rc;
    out->replayed = opts->replay != NULL;
    t->count = out->space = t->counts.pruned > SIZE_MAX ? SIZE_MAX : (size_t)t->counts.pruned;
    snprintf(out->space_text, sizeof out->space_text, "%s", t->counts.pruned_text);
    /* A run that cannot see the whole space goes where the benchmark says a budget is best
     * spent; one that can walks it in order. */
    if (!opts->strategy && ((opts->budget && opts->budget < t->count) || opts->time_limit_s > 0))
        snprintf(out->strategy, sizeof out->strategy, "%s", HT_TUNE_BUDGET_STRATEGY);
    /* A small space is listed whole, and so is any space an exhaustive search walks
     * without a budget (the fastest way through every configuration). A larger one is
     * drawn from (search.h, ht_search_space.pruned): the strategy takes what its budget
     * needs, and memory stays flat in the space's size. */
    if (t->counts.pruned <= HT_SEARCH_DRAW_MAX ||
        (!opts->budget && ht_search_find(out->strategy)->draw == HT_SEARCH_DRAW_WALK)) {
        t->col.nparams = t->nparams;
        rc = ht_space_foreach(t->space, collect_cb, &t->col);
        if (rc > 0)
            return ht_error_set(err, HT_ENOMEM, "out of memory collecting the configurations");
        if (rc != HT_OK)
            return ht_error_set(err, rc, "cannot enumerate the configurations: %s",
                                ht_strerror(rc));
        *sspace = (struct ht_search_space){t->col.count, t->nparams, t->col.configs, t->names,
                                           NULL};
    } else {
        *sspace = (struct ht_search_space){0, t->nparams, NULL, t->names, t->space};
    }
    return HT_OK;
}

/* The device's and problem's ids in the sink (out), what opts->fresh forgets, and the
 * space's sizes recorded. */
static int tune_identify(struct tune *t, struct ht_error *err)
{
    struct ht_tune_result *out = t->out;
    int rc = t->sink->identify(t->sink_user, t->spec, t->dev, &out->problem_id,
                               &out->device_id, err);

    if (rc == HT_OK && t->opts->fresh)
        rc = t->sink->forget(t->sink_user, out->problem_id, out->device_id, &out->forgotten,
                             err);
    if (rc == HT_OK)
        rc = record_space(t, err);
    return rc;
}

/* The device to ourselves: its lease in the sink (*leased) and its lock (*locks); a
 * replay measures nothing and takes neither, and tells the sink it replays instead (the
 * database's writes without waiting for the disk, sink.c). opts->stop raised while
 * waiting sets out->stopped and returns HT_OK. */
static int tune_take_device(struct tune *t, int *leased, struct ht_device_locks *locks,
                            struct ht_error *err)
{
    const struct ht_tune_opts *opts = t->opts;
    struct ht_device_wait wait;
    int rc = HT_OK;

    /* One process measures a device at a time: the measurements of two would skew each
     * other, and the second finds the first one's results stored once it gets the lease. */
    /* A replay measures nothing (no lease) and records fast. */
    if (opts->replay && t->sink->replaying) {
        t->replaying = 1; /* told it ends, whatever this call returns */
        rc = t->sink->replaying(t->sink_user, 1, err);
    }
    if (!opts->replay)
        rc = lease_device(t, t->dev, leased, err);
    if (rc != HT_OK || t->out->stopped || opts->replay)
        return rc;
    /* The lease keeps the tunes of one database apart; the device lock, outside any
     * database, keeps apart those of different ones (and other users'). Taken after the
     * lease, so that a tune waiting for a lease holds no device lock meanwhile. */
    /* A lock that cannot be made is no reason not to tune: out->load says so. */
    wait.stop = opts->stop;
    wait.on_wait = opts->on_device_wait;
    wait.user = opts->wait_user;
    rc = ht_device_locks_take(&t->dev, 1, &wait, locks, &t->out->load, err);
    if (rc == HT_EINTR && stop_raised(opts)) {
        ht_error_clear(err);
        t->out->stopped = 1;
        rc = HT_OK;
    }
    return rc;
}

/* Builds ahead: jobs build workers keep up to jobs configurations building while the
 * device measures one, so jobs + 1 proposals are in flight. A replay builds nothing, yet
 * proposes as far ahead, as the tune it stands for would. Without a pool (no worker
 * executable, a spec not from a file) the tune builds in its session. Sets t->jobs when
 * the session can build ahead (its pool made at the first proposal) and returns how many
 * proposals may be in flight. */
static size_t tune_builders(struct tune *t)
{
    const struct ht_tune_opts *opts = t->opts;
    unsigned jobs = opts->jobs;

    if (jobs == 0) {
        /* Automatic: one build worker per core, and on a CPU device, whose cores are the
         * device, only from CPU_BUILDERS_MIN_CORES cores on. Its build workers are paused
         * while it times runs (ht__session_build_ahead), so they build the rest of the
         * time: on 2 shared cores --jobs 2 took 1.24x, 0.65x and 1.09x the wall of --jobs 1
         * and 1.10-1.13x its CPU time for sepconv's 425, no gain (pausing whole
         * evaluations); on 2 quiet cores 0.63x; on the GPU machine's 16 cores --jobs 16
         * took 0.27-0.34x the wall of --jobs 1 with bests as good (docs/results-gpu.md,
         * "builds paused while a CPU device measures"). A replay builds nothing, and
         * proposes ahead only when asked. */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = opts->replay || cores < 2 || (t->dev->is_cpu && cores < CPU_BUILDERS_MIN_CORES)
                   ? 1
               : cores > 1024 ? 1024
                              : (unsigned)cores;
    }
    if (jobs > 1 && !opts->replay) {
        struct ht_exec_opts popts = opts->exec;
        struct ht_error perr;
        popts.eq3 = opts->eq3;
        ht_error_clear(&perr);
        if (ht__prebuild_possible(t->spec, &popts, jobs, &perr) == HT_OK)
            t->jobs = t->out->jobs = jobs;
    }
    return jobs > 1 && (t->jobs || opts->replay) ? (size_t)jobs + 1 : 1;
}

/* The reference step begins (ht__session_reference's on_start): said under its limit. */
static void reference_starts(void *user, double limit_s)
{
    report_progress_ref(user, NULL, HT_OK, 1, limit_s, 0);
}

/* The reference outputs before the first measurement, under their own limit (exec.h, the
 * reference step): not part of any configuration's; behind us at once (t->ref_done) for
 * a spec without such a reference. A configuration that cannot give the reference kernel
 * its program meets the same failure in its own evaluation, and the next one tries
 * again. HT_OK (out->stopped set when opts->stop ended it), or the error that ends the
 * tune. */
static int tune_reference(struct tune *t, const int64_t *config, struct ht_error *err)
{
    struct ht_reference_info ri;
    struct ht_error rerr;
    int st;

    ht_error_clear(&rerr);
    st = ht__session_reference(t->session, config, reference_starts, t, &ri, &rerr);
    if (st == HT_OK && !ri.needed) {
        t->ref_done = 1;
        return HT_OK;
    }
    t->out->reference_s += ri.seconds;
    if (st == HT_OK) {
        t->ref_done = 1;
        t->out->reference = ri.computed ? 2 : 1;
        report_progress_ref(t, NULL, HT_OK, 2, ri.seconds, ri.computed);
    } else if (stop_raised(t->opts)) {
        t->out->stopped = 1;
    } else if (st == HT_ENOMEM || !ri.config_fault) {
        char msg[2400];
        ht_error_format(&rerr, msg, sizeof msg);
        if (err && !err->code)
            err->cl_status = rerr.cl_status;
        return ht_error_set(err, st, "the reference outputs, before any configuration: %s",
                            msg);
    }
    return HT_OK;
}

/* Measures the configuration of search index `index` on the session into t->res, *st its
 * status and eerr its error: the build made ahead for it when that build is the
 * configuration's result (a crash, a hang, a failure, a broken rule: *measured 0), else
 * after the reference step when due, ht_session_eval (*measured 1). HT_OK (out->stopped set,
 * and *st HT_OK with nothing evaluated, when opts->stop ended the reference step), or the
 * error that ends the tune. */
static int tune_measure(struct tune *t, size_t index, int *st, int *measured,
                        struct ht_error *eerr, struct ht_error *err)
{
    const int64_t *config = ht_search_config(t->search, index);
    struct ht_prebuild_done built;

    *measured = 1;
    *st = HT_OK;
    /* Built ahead: a build that crashed, hung, failed or broke a rule is the
     * configuration's result; any other ends as a cache hit of the session's. */
    if (t->jobs && ht__session_take_build(t->session, index, &built) == HT_OK) {
        t->out->prebuilt++;
        t->out->prebuild_s += built.status == HT_ECONSTRAINT ? 0.0 : built.res.build_s;
        if (built.config_fault) {
            *t->res = built.res;
            *eerr = built.err;
            *st = built.status;
            *measured = 0;
            return HT_OK;
        }
        ht_eval_result_destroy(&built.res);
    }
    if (!t->ref_done) {
        int rc = tune_reference(t, config, err);
        if (rc != HT_OK || t->out->stopped)
            return rc;
    }
    *st = eval_cut(t->session, config, t->has_best ? t->best_s : 0.0, t->opts->cut_factor,
                   t->res, eerr);
    return HT_OK;
}

/* Stores the evaluation of search index `index` (text its configuration's text, st its
 * status, eerr its error, t->res its result; measured 0 for a build made ahead), counts it
 * in out, and hands its cost to the search. */
static int tune_record(struct tune *t, size_t index, const char *text, int st, int measured,
                       const struct ht_error *eerr, struct ht_error *err)
{
    struct ht_tune_result *out = t->out;
    const struct ht_eval_result *res = t->res;
    double cost;
    int rc;

    fill_eval(t, ht_search_config(t->search, index), text, st, res, eerr, t->ev);
    rc = record_step(t, t->ev, text, t->ev->status,
                     st == HT_OK && res->verified != 0 ? res->kernel_s : -1.0,
                     t->opts->replay ? t->sim_s : ht__now() - t->search_t0, err);
    if (rc != HT_OK)
        return rc;
    if (st != HT_OK && st != HT_ECUT)
        note_failure(out, t->ev);

    out->evaluated++;
    /* Only the session's builds are on the measuring path. */
    out->build_s += st == HT_ECONSTRAINT || !measured ? 0.0 : res->build_s;
    out->launch_compile_s += res->launch_compile_s;
    out->cache_hits += res->cache_hit ? 1 : 0;
    if (st == HT_ECUT)
        out->cut++;
    else if (st != HT_OK)
        out->failed++;
    out->crashed += st == HT_ECRASH;
    out->timed_out += st == HT_ETIMEOUT;
    if (st == HT_OK && res->verified != 0)
        cost = res->kernel_s > 0.0 ? res->kernel_s : INFINITY;
    else if (st == HT_ECUT && res->kernel_s > 0.0)
        cost = res->kernel_s;
    else
        cost = INFINITY;
    rc = ht_search_report(t->search, index, cost);
    if (rc != HT_OK)
        return ht_error_set(err, rc, "the %s search refused a result", out->strategy);
    if (st == HT_OK && res->verified != 0)
        consider_best(t, index, res->kernel_s, 0);
    return HT_OK;
}

/* The search over sspace with the tune's options (its seed, budget and time limit, as many
 * proposals in flight as tune_builders allows), preseeded with what the sink holds for the
 * problem on the device. */
static int tune_open_search(struct tune *t, const struct ht_search_space *sspace,
                            struct ht_error *err)
{
    const struct ht_tune_opts *opts = t->opts;
    struct ht_search_opts sopts;
    int rc;

    if (opts->search)
        sopts = *opts->search;
    else
        ht_search_opts_init(&sopts);
    sopts.seed = opts->seed;
    sopts.budget = opts->budget;
    sopts.time_limit_s = opts->time_limit_s;
    t->k = tune_builders(t);
    sopts.max_in_flight = t->k;
    t->fl = malloc(t->k * sizeof *t->fl);
    if (!t->fl)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    t->search_t0 = ht__now();
    if (opts->replay) { /* the time limit is in recorded seconds */
        sopts.now = simulated_now;
        sopts.now_user = t;
    }
    rc = ht_search_create(t->out->strategy, sspace, &sopts, &t->search, err);
    if (rc != HT_OK)
        return rc;
    rc = t->sink->list_evals(t->sink_user, t->out->problem_id, t->out->device_id, preseed_cb,
                             t, err);
    return t->rc != HT_OK ? t->rc : rc;
}

/* The evaluations this run expects (t->total: what the sink lacks, within the budget)
 * and, when there are any to measure, a session on the device (it costs a context and the
 * host data). opts->stop raised while it starts sets out->stopped and returns HT_OK. */
static int tune_open_session(struct tune *t, struct ht_error *err)
{
    const struct ht_tune_opts *opts = t->opts;
    struct ht_exec_opts eopts;
    int rc;

    t->total = t->count > t->out->from_db ? t->count - t->out->from_db : 0;
    if (opts->budget && opts->budget < t->total)
        t->total = opts->budget;
    if (t->total == 0 || opts->replay)
        return HT_OK;
    eopts = opts->exec;
    eopts.eq3 = opts->eq3;
    if (!eopts.stop)
        eopts.stop = opts->stop;
    rc = ht_session_create(t->spec, t->dev, &eopts, &t->session, err);
    if (rc == HT_EINTR && stop_raised(opts)) {
        t->out->stopped = 1;
        rc = HT_OK;
    }
    if (rc == HT_OK)
        t->out->isolated = t->session ? ht_session_isolated(t->session) : 0;
    return rc;
}

/* One turn of the tuning loop: the next proposal evaluated (measured, or answered by the
 * recording), stored and reported. HT_OK to go on; HT_DONE when the run ends (nothing left
 * to propose, the time limit passed, opts->stop raised: out->stopped); else the error that
 * ends the tune. */
static int tune_step(struct tune *t, struct ht_error *err)
{
    const struct ht_tune_opts *opts = t->opts;
    struct ht_tune_result *out = t->out;
    struct ht_error eerr;
    const int64_t *config;
    char text[HT_STORE_CONFIG_MAX];
    size_t index;
    int rc, st, n, measured = 1;

    if (stop_raised(opts)) {
        out->stopped = 1;
        return HT_DONE;
    }
    rc = propose(t, t->fl, &t->nfl, t->k, &t->search_done, err);
    if (rc != HT_OK)
        return rc;
    if (t->nfl == 0)
        return HT_DONE;
    index = t->fl[0];
    memmove(t->fl, t->fl + 1, --t->nfl * sizeof *t->fl);
    /* No new evaluation once the time limit has passed, not even of one proposed
     * ahead (with one in flight, the search itself says so first). */
    if (t->k > 1 && opts->time_limit_s > 0.0 &&
        (opts->replay ? t->sim_s : ht__now() - t->search_t0) >= opts->time_limit_s)
        return HT_DONE;
    config = ht_search_config(t->search, index);
    n = ht_store_config_text(t->names, config, t->nparams, text, sizeof text);
    if (n < 0 || (size_t)n >= sizeof text)
        return ht_error_set(err, HT_EINVAL,
                            "configuration text longer than the database keeps (%d bytes)",
                            HT_STORE_CONFIG_MAX - 1);

    ht_error_clear(&eerr);
    ht_eval_result_destroy(t->res);
    if (opts->replay) {
        double cost_s = 0.0;
        st = ht__recording_eval(opts->replay, config, t->res, &cost_s, &eerr);
        t->sim_s += cost_s;
        if (st == HT_ENOTFOUND) { /* missing: a failure for the search, never stored */
            out->evaluated++;
            out->missing++;
            rc = record_step(t, NULL, text, "missing", -1.0, t->sim_s, err);
            if (rc != HT_OK)
                return rc;
            rc = ht_search_report(t->search, index, INFINITY);
            if (rc != HT_OK)
                return ht_error_set(err, rc, "the %s search refused a result",
                                    out->strategy);
            report_progress(t, config, st);
            return HT_OK;
        }
    } else {
        rc = tune_measure(t, index, &st, &measured, &eerr, err);
        if (rc != HT_OK)
            return rc;
        if (out->stopped)
            return HT_DONE;
    }
    if (st == HT_ENOMEM)
        return ht_error_set(err, HT_ENOMEM, "out of memory evaluating a configuration");
    /* A signal can make an OpenCL call fail: such a failure says nothing about the
     * configuration, so it is abandoned rather than stored. */
    if (stop_raised(opts) && st != HT_OK && st != HT_ECUT) {
        out->stopped = 1;
        return HT_DONE;
    }

    /* An error of the spec (a scalar value that does not fit its type, a division by
     * zero in a value, an argument count or a kernel name the kernel does not have) is
     * no fact about the configuration: stored, it would outlive the user's fix as a
     * failure of every configuration. The run stops with it (exit status 2). */
    if (spec_error(st)) {
        *err = eerr;
        return st;
    }
    if ((rc = tune_record(t, index, text, st, measured, &eerr, err)) != HT_OK)
        return rc;
    report_progress(t, config, st);
    return HT_OK;
}

int ht_tune_device(const struct ht_spec *spec, const struct ht_device_info *dev,
                   const struct ht_tune_sink *sink, const struct ht_tune_opts *opts,
                   struct ht_tune_result *out, struct ht_error *err)
{
    struct ht_tune_opts defaults;
    struct ht_search_space sspace;
    struct tune t;
    size_t nparams;
    int rc, leased = 0;
    struct ht_device_locks locks = {0};

    if (!spec || !dev || !sink || !out)
        return ht_error_set(err, HT_EINVAL, "ht_tune_device: %s is NULL",
                            !spec ? "spec" : !dev ? "dev" : !sink ? "sink" : "out");
    nparams = spec->space.nparams;
    memset(out, 0, sizeof *out);
    out->best_s = -1.0;
    out->nparams = nparams;
    memset(&t, 0, sizeof t);
    t.t0 = ht__now();
    if (!opts) {
        ht_tune_opts_init(&defaults);
        opts = &defaults;
    }
    t.spec = spec;
    t.dev = dev;
    t.sink = sink ? sink->ops : NULL;
    t.sink_user = sink ? sink->user : NULL;
    t.opts = opts;
    t.out = out;
    t.nparams = nparams;
    t.err = err;
    snprintf(out->strategy, sizeof out->strategy, "%s",
             opts->strategy ? opts->strategy : "exhaustive");

    if ((rc = tune_check(spec, sink, opts, out, err)) != HT_OK)
        goto cleanup;
    t.names = calloc(nparams + 1, sizeof *t.names);
    t.res = malloc(sizeof *t.res);
    t.ev = malloc(sizeof *t.ev);
    if (!t.names || !t.res || !t.ev) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    memset(t.res, 0, sizeof *t.res);
    for (size_t i = 0; i < nparams; i++)
        t.names[i] = spec->space.params[i].name;

    if ((rc = tune_space(&t, &sspace, err)) != HT_OK ||
        (rc = tune_identify(&t, err)) != HT_OK ||
        (rc = tune_take_device(&t, &leased, &locks, err)) != HT_OK || out->stopped ||
        (rc = tune_open_search(&t, &sspace, err)) != HT_OK ||
        (rc = tune_open_session(&t, err)) != HT_OK)
        goto cleanup;

    t.loop_t0 = ht__now();
    report_progress(&t, NULL, HT_OK);
    while (t.session || (opts->replay && t.total > 0)) {
        rc = tune_step(&t, err);
        if (rc == HT_DONE)
            break;
        if (rc != HT_OK)
            goto cleanup;
    }
    rc = HT_OK;

cleanup:
    ht_device_locks_release(&locks, &out->load);
    if (leased && t.sink->release)
        t.sink->release(t.sink_user, out->device_id);
    if (t.replaying) {
        struct ht_error cerr = {0};
        int crc = t.sink->replaying(t.sink_user, 0, rc == HT_OK ? err : &cerr);
        if (rc == HT_OK)
            rc = crc;
    }
    if (t.has_best) {
        out->has_best = 1;
        out->best_s = t.best_s;
        memcpy(out->best, ht_search_config(t.search, t.best), nparams * sizeof *out->best);
        ht_store_config_text(t.names, out->best, nparams, out->best_text,
                             sizeof out->best_text);
    }
    out->tuning_s = ht__now() - t.t0;
    out->simulated_s = t.sim_s;
    out->driver_cache = opts->replay ? 0 : ht_device_caches_programs(dev);
    if (t.res)
        ht_eval_result_destroy(t.res);
    free(t.res);
    free(t.ev);
    free(t.fl);
    ht_session_free(t.session);
    ht_search_free(t.search);
    free(t.col.configs);
    ht_space_free(t.space);
    free(t.names);
    return rc;
}
