/* The tuning loop (issue 4): the valid configurations of a spec on one device, a search
 * strategy choosing among them, one session evaluating them, and the results database
 * keeping every evaluation before the next one starts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune/tune.h"
#include "search-internal.h"
#include "util/util.h"

_Static_assert(HT_STORE_MAX_RUNS >= HT_MAX_REPEATS, "the store keeps every run of an eval");

void ht_tune_opts_init(struct ht_tune_opts *opts)
{
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

/* The state of one tune, shared with the callbacks. */
struct tune {
    const struct ht_spec *spec;
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
    return ht_exit_status(st) == 2 && !strcmp(ht_store_status_name(st), HT_STORE_ERROR);
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

/* Fills ev from one evaluation (search-internal.h); src/mpi fills the evaluations of the
 * other ranks with it. */
void ht__tune_fill_eval(const struct ht__tune_ident *id, const int64_t *config,
                        const char *text, int status, const struct ht_eval_result *res,
                        const struct ht_error *eerr, struct ht_stored_eval *ev)
{
    int read_back = status == HT_OK || status == HT_EVERIFY;

    ht_stored_eval_init(ev);
    ev->problem_id = id->problem_id;
    ev->device_id = id->device_id;
    snprintf(ev->config, sizeof ev->config, "%s", text);
    ev->nvalues = id->nparams;
    memcpy(ev->values, config, id->nparams * sizeof *config);
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
    snprintf(ev->strategy, sizeof ev->strategy, "%s", id->strategy);
    ev->seed = id->seed;
    snprintf(ev->spec_hash, sizeof ev->spec_hash, "%s", id->spec_hash ? id->spec_hash : "");
    ev->nruns = res->nruns;
    memcpy(ev->runs, res->run_s, res->nruns * sizeof *res->run_s);
}

static void fill_eval(struct tune *t, const int64_t *config, const char *text, int status,
                      const struct ht_eval_result *res, const struct ht_error *eerr,
                      struct ht_stored_eval *ev)
{
    struct ht__tune_ident id = {t->out->problem_id, t->out->device_id, t->nparams,
                                ht_search_name(t->search), t->opts->seed, t->spec->hash};

    ht__tune_fill_eval(&id, config, text, status, res, eerr, ev);
}

static void report_progress_ref(struct tune *t, const struct ht_device_info *dev, double t0,
                                double loop_t0, size_t total, const int64_t *config,
                                int status, struct ht_prebuild *pool, int reference,
                                double reference_s, int computed)
{
    const struct ht_tune_opts *o = t->opts;
    struct ht_tune_progress p;
    double now = ht__now();

    if (!o->progress)
        return;
    memset(&p, 0, sizeof p);
    p.dev = dev;
    p.space = t->count;
    snprintf(p.space_text, sizeof p.space_text, "%s", t->out->space_text);
    p.from_db = t->out->from_db;
    p.done = t->out->evaluated;
    p.total = total;
    p.cut = t->out->cut;
    p.failed = t->out->failed;
    p.config = config;
    p.status = status;
    p.best = t->has_best ? ht_search_config(t->search, t->best) : NULL;
    p.best_s = t->has_best ? t->best_s : -1.0;
    p.elapsed_s = now - t0;
    p.eta_s = -1.0;
    p.reference = reference;
    p.reference_s = reference_s;
    p.reference_computed = computed;
    if (pool)
        ht_prebuild_counts(pool, NULL, &p.building, &p.built);
    if (p.done > 0) {
        p.eta_s = (now - loop_t0) / (double)p.done * (double)(total > p.done ? total - p.done
                                                                               : 0);
        if (o->time_limit_s > 0.0 && p.eta_s > o->time_limit_s - (now - loop_t0))
            p.eta_s = fmax(0.0, o->time_limit_s - (now - loop_t0));
    }
    o->progress(&p, o->progress_user);
}

static void report_progress(struct tune *t, const struct ht_device_info *dev, double t0,
                            double loop_t0, size_t total, const int64_t *config,
                            int status, struct ht_prebuild *pool)
{
    report_progress_ref(t, dev, t0, loop_t0, total, config, status, pool, 0, 0.0, 0);
}

static int stop_raised(const struct ht_tune_opts *o)
{
    return o->stop && *o->stop;
}

/* Takes the device's lease (store.h), so that no other process measures the device
 * meanwhile. While another process holds it, says so once (opts->on_wait) and waits until
 * it is given back or goes stale, or until opts->stop is raised (out->stopped, and *leased
 * stays 0). */
static int lease_device(struct tune *t, struct ht_store *store,
                        const struct ht_device_info *dev, int *leased, struct ht_error *err)
{
    const struct ht_tune_opts *o = t->opts;
    struct ht_lease_info holder;
    int rc = ht_store_lease_device(store, t->out->device_id, 0.0, NULL, &holder, err);

    if (rc == HT_STORE_LEASE_BUSY) {
        if (o->on_wait)
            o->on_wait(dev, &holder, o->wait_user);
        rc = ht_store_lease_device(store, t->out->device_id, -1.0, o->stop, &holder, err);
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
static int record_space(struct ht_store *store, const struct ht_space *space,
                        const struct ht_space_counts *counts,
                        const struct ht_tune_result *out, struct ht_error *err)
{
    struct ht_stored_space sp;

    ht_stored_space_init(&sp);
    sp.problem_id = out->problem_id;
    sp.device_id = out->device_id;
    sp.eq3 = ht_space_get_eq3(space);
    ht_stored_space_from_counts(&sp, counts);
    return ht_store_put_space(store, &sp, err);
}

/* Asks the search for proposals until k are in flight (fl[0..*nfl), oldest first), it
 * needs a result first (HT_BUSY) or it is done (*done set), handing each to the build pool
 * when there is one. */
static int propose(struct tune *t, struct ht_prebuild *pool, size_t *fl, size_t *nfl,
                   size_t k, int *done, struct ht_error *err)
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
        if (pool && (rc = ht_prebuild_submit(pool, i, ht_search_config(t->search, i))) != 0)
            return ht_error_set(err, rc, "cannot queue a build ahead: %s", ht_strerror(rc));
        fl[(*nfl)++] = i;
    }
    return HT_OK;
}

int ht_tune_device(const struct ht_spec *spec, const struct ht_device_info *dev,
                   struct ht_store *store, const struct ht_tune_opts *opts,
                   struct ht_tune_result *out, struct ht_error *err)
{
    struct ht_tune_opts defaults;
    struct ht_search_opts sopts;
    struct ht_exec_opts eopts;
    struct ht_search_space sspace;
    struct ht_space_counts counts;
    struct collect col = {NULL, 0, 0, 0};
    struct ht_space *space = NULL;
    struct ht_session *session = NULL;
    struct ht_prebuild *pool = NULL;
    size_t *fl = NULL, nfl = 0, k = 1;
    int search_done = 0;
    unsigned jobs;
    double search_t0;
    struct ht_eval_result *res = NULL;
    struct ht_stored_eval *ev = NULL;
    const char **names = NULL;
    struct tune t;
    struct ht_error eerr;
    int64_t kernel_id;
    double t0 = ht__now(), loop_t0;
    size_t nparams = spec->space.nparams, total;
    int rc, leased = 0, ref_done = 0, lock_fd = -1;

    memset(out, 0, sizeof *out);
    out->best_s = -1.0;
    out->nparams = nparams;
    memset(&t, 0, sizeof t);
    if (!opts) {
        ht_tune_opts_init(&defaults);
        opts = &defaults;
    }
    t.spec = spec;
    t.opts = opts;
    t.out = out;
    t.nparams = nparams;
    t.err = err;
    snprintf(out->strategy, sizeof out->strategy, "%s",
             opts->strategy ? opts->strategy : "exhaustive");

    if (isnan(opts->cut_factor) || opts->cut_factor < 0.0 ||
        (opts->cut_factor > 0.0 && opts->cut_factor < 1.0)) {
        if (err && !err->code)
            snprintf(err->field, sizeof err->field, "cut_factor");
        rc = ht_error_set(err, HT_EINVAL,
                          "the cut factor must be 0 (off) or at least 1, not %g",
                          opts->cut_factor);
        goto cleanup;
    }
    if (nparams == 0) {
        rc = ht_error_set(err, HT_EINVAL, "nothing to tune: the spec has no parameters");
        goto cleanup;
    }
    if (nparams > HT_STORE_MAX_PARAMS) {
        rc = ht_error_set(err, HT_EINVAL, "%zu parameters: the results database keeps %d at most",
                          nparams, HT_STORE_MAX_PARAMS);
        goto cleanup;
    }
    /* Check the strategy's name before any work, so a typo costs nothing. */
    if (!ht_search_find(out->strategy)) {
        struct ht_search *probe = NULL;
        struct ht_search_space empty = {0, 0, NULL, NULL, NULL};
        rc = ht_search_create(out->strategy, &empty, NULL, &probe, err);
        ht_search_free(probe);
        if (rc == HT_OK)
            rc = ht_error_set(err, HT_EINVAL, "unknown strategy '%s'", out->strategy);
        goto cleanup;
    }

    names = calloc(nparams + 1, sizeof *names);
    res = malloc(sizeof *res);
    ev = malloc(sizeof *ev);
    if (!names || !res || !ev) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    memset(res, 0, sizeof *res);
    for (size_t i = 0; i < nparams; i++)
        names[i] = spec->space.params[i].name;

    rc = ht_space_create(&spec->space, dev, opts->eq3, &space, err);
    if (rc != HT_OK)
        goto cleanup;
    rc = ht_space_count(space, &counts, err);
    if (rc == HT_OK && opts->replay)
        rc = ht_recording_bind(opts->replay, spec, space, err);
    if (rc != HT_OK)
        goto cleanup;
    out->replayed = opts->replay != NULL;
    t.count = out->space = counts.pruned > SIZE_MAX ? SIZE_MAX : (size_t)counts.pruned;
    snprintf(out->space_text, sizeof out->space_text, "%s", counts.pruned_text);
    /* A run that cannot see the whole space goes where the benchmark says a budget is best
     * spent; one that can walks it in order. */
    if (!opts->strategy && ((opts->budget && opts->budget < t.count) || opts->time_limit_s > 0))
        snprintf(out->strategy, sizeof out->strategy, "%s", HT_TUNE_BUDGET_STRATEGY);
    /* A small space is listed whole, and so is any space an exhaustive search walks
     * without a budget (the fastest way through every configuration). A larger one is
     * drawn from (search.h, ht_search_space.pruned): the strategy takes what its budget
     * needs, and memory stays flat in the space's size. */
    if (counts.pruned <= HT_SEARCH_DRAW_MAX ||
        (!opts->budget && ht_search_find(out->strategy)->draw == HT_SEARCH_DRAW_WALK)) {
        col.nparams = nparams;
        rc = ht_space_foreach(space, collect_cb, &col);
        if (rc > 0) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory collecting the configurations");
            goto cleanup;
        }
        if (rc != HT_OK) {
            rc = ht_error_set(err, rc, "cannot enumerate the configurations: %s",
                              ht_strerror(rc));
            goto cleanup;
        }
        sspace = (struct ht_search_space){col.count, nparams, col.configs, names, NULL};
    } else {
        sspace = (struct ht_search_space){0, nparams, NULL, names, space};
    }

    rc = ht_store_device_id(store, dev, &out->device_id, err);
    if (rc == HT_OK)
        rc = ht_store_kernel_id(store, spec, &kernel_id, err);
    if (rc == HT_OK)
        rc = ht_store_problem_id(store, kernel_id, spec, &out->problem_id, err);
    if (rc == HT_OK && opts->fresh)
        rc = ht_store_forget(store, out->problem_id, out->device_id, &out->forgotten, err);
    if (rc == HT_OK)
        rc = record_space(store, space, &counts, out, err);
    if (rc != HT_OK)
        goto cleanup;
    /* One process measures a device at a time: the measurements of two would skew each
     * other, and the second finds the first one's results stored once it gets the lease. */
    /* A replay measures nothing (no lease) and writes fast: what it stores can be replayed
     * again, so its commits need not wait for the disk. */
    rc = opts->replay ? ht_store_set_durable(store, 0, err)
                      : lease_device(&t, store, dev, &leased, err);
    if (rc != HT_OK || out->stopped)
        goto cleanup;
    /* The lease keeps the tunes of one database apart; the device lock, outside any
     * database, keeps apart those of different ones (and other users'). Taken after the
     * lease, so that a tune waiting for a lease holds no device lock meanwhile. */
    if (!opts->replay) {
        rc = ht_device_lock(dev, opts->stop, opts->on_device_wait, opts->wait_user, &lock_fd,
                            err);
        if (rc == HT_EINTR && stop_raised(opts)) {
            ht_error_clear(err);
            out->stopped = 1;
            rc = HT_OK;
            goto cleanup;
        }
        if (rc != HT_OK)
            goto cleanup;
    }

    if (opts->search)
        sopts = *opts->search;
    else
        ht_search_opts_init(&sopts);
    sopts.seed = opts->seed;
    sopts.budget = opts->budget;
    sopts.time_limit_s = opts->time_limit_s;
    /* Builds ahead: jobs build workers keep up to jobs configurations building while the
     * device measures one, so jobs + 1 proposals are in flight. A replay builds nothing,
     * yet proposes as far ahead, as the tune it stands for would. Without a pool (no
     * worker executable, a spec not from a file) the tune builds in its session. */
    jobs = opts->jobs;
    if (jobs == 0) {
        /* Automatic: a CPU device's cores are the device, and a build beside a
         * measurement on them slows it (sepconv's runs took twice as long on 2 cores); a
         * replay builds nothing, and proposes ahead only when asked. */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = dev->is_cpu || opts->replay || cores < 2 ? 1
               : cores > 1024                          ? 1024
                                                       : (unsigned)cores;
    }
    if (jobs > 1 && !opts->replay) {
        struct ht_exec_opts popts = opts->exec;
        struct ht_error perr;
        popts.eq3 = opts->eq3;
        ht_error_clear(&perr);
        if (ht_prebuild_create(spec, dev, &popts, jobs, &pool, &perr) == HT_OK)
            out->jobs = jobs;
    }
    if (jobs > 1 && (pool || opts->replay))
        k = (size_t)jobs + 1;
    sopts.max_in_flight = k;
    fl = malloc(k * sizeof *fl);
    if (!fl) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    search_t0 = ht__now();
    if (opts->replay) { /* the time limit is in recorded seconds */
        sopts.now = simulated_now;
        sopts.now_user = &t;
    }
    rc = ht_search_create(out->strategy, &sspace, &sopts, &t.search, err);
    if (rc != HT_OK)
        goto cleanup;
    rc = ht_store_list_evals(store, out->problem_id, out->device_id, preseed_cb, &t, err);
    if (t.rc != HT_OK)
        rc = t.rc;
    if (rc != HT_OK)
        goto cleanup;

    total = t.count > out->from_db ? t.count - out->from_db : 0;
    if (opts->budget && opts->budget < total)
        total = opts->budget;
    eopts = opts->exec;
    eopts.eq3 = opts->eq3;
    if (!eopts.stop)
        eopts.stop = opts->stop;
    /* A session costs a context and the host data: only open one when there is work. */
    if (total > 0 && !opts->replay) {
        rc = ht_session_create(spec, dev, &eopts, &session, err);
        if (rc == HT_EINTR && stop_raised(opts)) {
            out->stopped = 1;
            rc = HT_OK;
        }
        if (rc != HT_OK)
            goto cleanup;
        out->isolated = session ? ht_session_isolated(session) : 0;
    }

    loop_t0 = ht__now();
    report_progress(&t, dev, t0, loop_t0, total, NULL, HT_OK, pool);
    while (session || (opts->replay && total > 0)) {
        struct ht_prebuild_done built;
        const int64_t *config;
        char text[HT_STORE_CONFIG_MAX];
        size_t index;
        double cost;
        int st, n, measured = 1;

        if (stop_raised(opts)) {
            out->stopped = 1;
            break;
        }
        rc = propose(&t, pool, fl, &nfl, k, &search_done, err);
        if (rc != HT_OK)
            goto cleanup;
        if (nfl == 0)
            break;
        index = fl[0];
        memmove(fl, fl + 1, --nfl * sizeof *fl);
        /* No new evaluation once the time limit has passed, not even of one proposed
         * ahead (with one in flight, the search itself says so first). */
        if (k > 1 && opts->time_limit_s > 0.0 &&
            (opts->replay ? t.sim_s : ht__now() - search_t0) >= opts->time_limit_s)
            break;
        config = ht_search_config(t.search, index);
        n = ht_store_config_text(names, config, nparams, text, sizeof text);
        if (n < 0 || (size_t)n >= sizeof text) {
            rc = ht_error_set(err, HT_EINVAL,
                              "configuration text longer than the database keeps (%d bytes)",
                              HT_STORE_CONFIG_MAX - 1);
            goto cleanup;
        }

        ht_error_clear(&eerr);
        ht_eval_result_destroy(res);
        if (opts->replay) {
            double cost_s = 0.0;
            st = ht_recording_eval(opts->replay, config, res, &cost_s, &eerr);
            t.sim_s += cost_s;
            if (st == HT_ENOTFOUND) { /* missing: a failure for the search, never stored */
                out->evaluated++;
                out->missing++;
                rc = ht_search_report(t.search, index, INFINITY);
                if (rc != HT_OK) {
                    rc = ht_error_set(err, rc, "the %s search refused a result",
                                      out->strategy);
                    goto cleanup;
                }
                report_progress(&t, dev, t0, loop_t0, total, config, st, pool);
                continue;
            }
        } else {
            /* Built ahead: a build that crashed, hung, failed or broke a rule is the
             * configuration's result; any other ends as a cache hit of the session's. */
            if (pool && ht_prebuild_take(pool, index, 1, &built) == HT_OK) {
                out->prebuilt++;
                out->prebuild_s += built.status == HT_ECONSTRAINT ? 0.0 : built.res.build_s;
                if (built.config_fault) {
                    *res = built.res;
                    eerr = built.err;
                    st = built.status;
                    measured = 0;
                } else {
                    ht_eval_result_destroy(&built.res);
                }
            }
            /* The reference outputs before the first measurement, under their own limit
             * (exec.h, the reference step): not part of any configuration's. A
             * configuration that cannot give the reference kernel its program meets the
             * same failure in its own evaluation, and the next one tries again. */
            if (measured && !ref_done && ht_session_reference_needed(session)) {
                struct ht_reference_info ri;
                struct ht_error rerr;
                ht_error_clear(&rerr);
                report_progress_ref(&t, dev, t0, loop_t0, total, NULL, HT_OK, pool, 1,
                                    ht_session_isolated(session)
                                        ? fmax(HT_TIMEOUT_REFERENCE_S, eopts.timeout_s)
                                        : 0.0,
                                    0);
                st = ht_session_reference(session, config, &ri, &rerr);
                out->reference_s += ri.seconds;
                if (st == HT_OK) {
                    ref_done = 1;
                    out->reference = ri.computed ? 2 : 1;
                    report_progress_ref(&t, dev, t0, loop_t0, total, NULL, HT_OK, pool, 2,
                                        ri.seconds, ri.computed);
                } else if (stop_raised(opts)) {
                    out->stopped = 1;
                    break;
                } else if (st == HT_ENOMEM || !ri.config_fault) {
                    char msg[2400];
                    ht_error_format(&rerr, msg, sizeof msg);
                    if (err && !err->code)
                        err->cl_status = rerr.cl_status;
                    rc = ht_error_set(err, st, "the reference outputs, before any "
                                      "configuration: %s", msg);
                    goto cleanup;
                }
            } else if (measured) {
                ref_done = 1;
            }
            if (measured) {
                ht_session_set_cut(session, t.has_best ? t.best_s : 0.0, opts->cut_factor);
                st = ht_session_eval(session, config, res, &eerr);
            }
        }
        if (st == HT_ENOMEM) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory evaluating a configuration");
            goto cleanup;
        }
        /* A signal can make an OpenCL call fail: such a failure says nothing about the
         * configuration, so it is abandoned rather than stored. */
        if (stop_raised(opts) && st != HT_OK && st != HT_ECUT) {
            out->stopped = 1;
            break;
        }

        /* An error of the spec (a scalar value that does not fit its type, a division by
         * zero in a value, an argument count or a kernel name the kernel does not have) is
         * no fact about the configuration: stored, it would outlive the user's fix as a
         * failure of every configuration. The run stops with it (exit status 2). */
        if (spec_error(st)) {
            rc = st;
            *err = eerr;
            goto cleanup;
        }
        fill_eval(&t, config, text, st, res, &eerr, ev);
        rc = ht_store_put_eval(store, ev, NULL, err);
        if (rc != HT_OK)
            goto cleanup;
        if (st != HT_OK && st != HT_ECUT)
            note_failure(out, ev);

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
        rc = ht_search_report(t.search, index, cost);
        if (rc != HT_OK) {
            rc = ht_error_set(err, rc, "the %s search refused a result", out->strategy);
            goto cleanup;
        }
        if (st == HT_OK && res->verified != 0)
            consider_best(&t, index, res->kernel_s, 0);
        report_progress(&t, dev, t0, loop_t0, total, config, st, pool);
    }
    rc = HT_OK;

cleanup:
    ht_device_unlock(lock_fd);
    if (leased)
        ht_store_release_device(store, out->device_id, NULL);
    if (opts->replay)
        ht_store_set_durable(store, 1, NULL);
    if (t.has_best) {
        out->has_best = 1;
        out->best_s = t.best_s;
        memcpy(out->best, ht_search_config(t.search, t.best), nparams * sizeof *out->best);
        ht_store_config_text(names, out->best, nparams, out->best_text,
                             sizeof out->best_text);
    }
    out->tuning_s = ht__now() - t0;
    out->simulated_s = t.sim_s;
    out->driver_cache = opts->replay ? 0 : ht_driver_caches(dev);
    if (res)
        ht_eval_result_destroy(res);
    free(res);
    free(ev);
    /* The builds still in flight end with the pool, before the session. */
    ht_prebuild_free(pool);
    free(fl);
    ht_session_free(session);
    ht_search_free(t.search);
    free(col.configs);
    ht_space_free(space);
    free(names);
    return rc;
}
