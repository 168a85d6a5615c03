/* The tuning loop (issue 4): the valid configurations of a spec on one device, a search
 * strategy choosing among them, one session evaluating them, and the results database
 * keeping every evaluation before the next one starts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/tune.h"
#include "util/util.h"

_Static_assert(HT_STORE_MAX_RUNS >= HT_MAX_REPEATS, "the store keeps every run of an eval");

void ht_tune_opts_init(struct ht_tune_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->strategy = "exhaustive";
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

/* An index of the configurations sorted by value, to find a stored one. */
struct entry {
    const int64_t *values;
    size_t nparams, index;
};

static int cmp_values(const int64_t *a, const int64_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

static int cmp_entry(const void *x, const void *y)
{
    const struct entry *a = x, *b = y;
    return cmp_values(a->values, b->values, a->nparams);
}

/* The state of one tune, shared with the callbacks. */
struct tune {
    const struct ht_spec *spec;
    const struct ht_tune_opts *opts;
    struct ht_tune_result *out;
    struct ht_search *search;
    const int64_t *configs;
    size_t nparams, count;
    struct entry *sorted;
    unsigned char *known;   /* per configuration: its result is known */
    int has_best;
    size_t best;
    double best_s;
    int rc;                 /* the first error a callback met */
    struct ht_error *err;
};

static long find_config(const struct tune *t, const int64_t *values)
{
    struct entry key = {values, t->nparams, 0};
    const struct entry *e;

    if (!t->count)
        return -1;
    e = bsearch(&key, t->sorted, t->count, sizeof *t->sorted, cmp_entry);
    return e ? (long)e->index : -1;
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

static int preseed_cb(const struct ht_stored_eval *ev, void *user)
{
    struct tune *t = user;
    long index;
    double cost;
    int rc;

    if (ev->nvalues != t->nparams)
        return 0;
    index = find_config(t, ev->values);
    /* Evaluations of configurations outside today's space (another Eq. 3 mode, say) are
     * kept in the database but play no part in this run. */
    if (index < 0 || t->known[index])
        return 0;
    cost = stored_cost(ev);
    rc = ht_search_report(t->search, (size_t)index, cost);
    if (rc != HT_OK) {
        t->rc = ht_error_set(t->err, rc, "cannot hand stored evaluation %s to the search",
                             ev->config);
        return 1;
    }
    t->known[index] = 1;
    t->out->from_db++;
    if (!strcmp(ev->status, HT_STORE_OK) && ev->verified != 0)
        consider_best(t, (size_t)index, ev->seconds, 1);
    return 0;
}

/* Fills ev from one evaluation of this run. */
static void fill_eval(struct tune *t, const int64_t *config, const char *text, int status,
                      const struct ht_eval_result *res, const struct ht_error *eerr,
                      struct ht_stored_eval *ev)
{
    int read_back = status == HT_OK || status == HT_EVERIFY;

    ht_stored_eval_init(ev);
    ev->problem_id = t->out->problem_id;
    ev->device_id = t->out->device_id;
    snprintf(ev->config, sizeof ev->config, "%s", text);
    ev->nvalues = t->nparams;
    memcpy(ev->values, config, t->nparams * sizeof *config);
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
    snprintf(ev->strategy, sizeof ev->strategy, "%s", ht_search_name(t->search));
    ev->seed = t->opts->seed;
    ev->nruns = res->nruns;
    memcpy(ev->runs, res->run_s, res->nruns * sizeof *res->run_s);
}

static void report_progress(struct tune *t, const struct ht_device_info *dev, double t0,
                            double loop_t0, size_t total, const int64_t *config,
                            int status)
{
    const struct ht_tune_opts *o = t->opts;
    struct ht_tune_progress p;
    double now = ht__now();

    if (!o->progress)
        return;
    memset(&p, 0, sizeof p);
    p.dev = dev;
    p.space = t->count;
    p.from_db = t->out->from_db;
    p.done = t->out->evaluated;
    p.total = total;
    p.cut = t->out->cut;
    p.failed = t->out->failed;
    p.config = config;
    p.status = status;
    p.best = t->has_best ? t->configs + t->best * t->nparams : NULL;
    p.best_s = t->has_best ? t->best_s : -1.0;
    p.elapsed_s = now - t0;
    p.eta_s = -1.0;
    if (p.done > 0) {
        p.eta_s = (now - loop_t0) / (double)p.done * (double)(total > p.done ? total - p.done
                                                                               : 0);
        if (o->time_limit_s > 0.0 && p.eta_s > o->time_limit_s - (now - loop_t0))
            p.eta_s = fmax(0.0, o->time_limit_s - (now - loop_t0));
    }
    o->progress(&p, o->progress_user);
}

static int stop_raised(const struct ht_tune_opts *o)
{
    return o->stop && *o->stop;
}

/* Records the sizes of the space on the device (the paper's Tables 1 and 2) for
 * hetune report; counting is cheap next to a single evaluation. */
static int record_space(struct ht_store *store, const struct ht_space *space,
                        const struct ht_tune_result *out, struct ht_error *err)
{
    struct ht_space_counts counts;
    struct ht_stored_space sp;
    int rc = ht_space_count(space, &counts, err);

    if (rc != HT_OK)
        return rc;
    ht_stored_space_init(&sp);
    sp.problem_id = out->problem_id;
    sp.device_id = out->device_id;
    sp.eq3 = ht_space_get_eq3(space);
    ht_stored_space_from_counts(&sp, &counts);
    return ht_store_put_space(store, &sp, err);
}

int ht_tune_device(const struct ht_spec *spec, const struct ht_device_info *dev,
                   struct ht_store *store, const struct ht_tune_opts *opts,
                   struct ht_tune_result *out, struct ht_error *err)
{
    struct ht_tune_opts defaults;
    struct ht_search_opts sopts;
    struct ht_exec_opts eopts;
    struct ht_search_space sspace;
    struct collect col = {NULL, 0, 0, 0};
    struct ht_space *space = NULL;
    struct ht_session *session = NULL;
    struct ht_eval_result *res = NULL;
    struct ht_stored_eval *ev = NULL;
    const char **names = NULL;
    struct tune t;
    struct ht_error eerr;
    int64_t kernel_id;
    double t0 = ht__now(), loop_t0;
    size_t nparams = spec->space.nparams, total;
    int rc;

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
        struct ht_search_space empty = {0, 0, NULL, NULL};
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
    t.configs = col.configs;
    t.count = out->space = col.count;
    t.sorted = calloc(col.count + 1, sizeof *t.sorted);
    t.known = calloc(col.count + 1, 1);
    if (!t.sorted || !t.known) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < col.count; i++)
        t.sorted[i] = (struct entry){col.configs + i * nparams, nparams, i};
    if (col.count)
        qsort(t.sorted, col.count, sizeof *t.sorted, cmp_entry);

    rc = ht_store_device_id(store, dev, &out->device_id, err);
    if (rc == HT_OK)
        rc = ht_store_kernel_id(store, spec, &kernel_id, err);
    if (rc == HT_OK)
        rc = ht_store_problem_id(store, kernel_id, spec, &out->problem_id, err);
    if (rc == HT_OK && opts->fresh)
        rc = ht_store_forget(store, out->problem_id, out->device_id, &out->forgotten, err);
    if (rc == HT_OK)
        rc = record_space(store, space, out, err);
    if (rc != HT_OK)
        goto cleanup;

    if (opts->search)
        sopts = *opts->search;
    else
        ht_search_opts_init(&sopts);
    sopts.seed = opts->seed;
    sopts.budget = opts->budget;
    sopts.time_limit_s = opts->time_limit_s;
    sspace = (struct ht_search_space){col.count, nparams, col.configs, names};
    rc = ht_search_create(out->strategy, &sspace, &sopts, &t.search, err);
    if (rc != HT_OK)
        goto cleanup;
    rc = ht_store_list_evals(store, out->problem_id, out->device_id, preseed_cb, &t, err);
    if (t.rc != HT_OK)
        rc = t.rc;
    if (rc != HT_OK)
        goto cleanup;

    total = col.count - out->from_db;
    if (opts->budget && opts->budget < total)
        total = opts->budget;
    eopts = opts->exec;
    eopts.eq3 = opts->eq3;
    /* A session costs a context and the host data: only open one when there is work. */
    if (total > 0) {
        rc = ht_session_create(spec, dev, &eopts, &session, err);
        if (rc != HT_OK)
            goto cleanup;
    }

    loop_t0 = ht__now();
    report_progress(&t, dev, t0, loop_t0, total, NULL, HT_OK);
    while (session) {
        const int64_t *config;
        char text[HT_STORE_CONFIG_MAX];
        size_t index;
        double cost;
        int st, n;

        if (stop_raised(opts)) {
            out->stopped = 1;
            break;
        }
        rc = ht_search_next(t.search, &index);
        if (rc == HT_DONE) {
            rc = HT_OK;
            break;
        }
        if (rc != HT_OK) {
            rc = ht_error_set(err, rc, "the %s search failed: %s", out->strategy,
                              ht_strerror(rc));
            goto cleanup;
        }
        config = col.configs + index * nparams;
        n = ht_store_config_text(names, config, nparams, text, sizeof text);
        if (n < 0 || (size_t)n >= sizeof text) {
            rc = ht_error_set(err, HT_EINVAL,
                              "configuration text longer than the database keeps (%d bytes)",
                              HT_STORE_CONFIG_MAX - 1);
            goto cleanup;
        }

        ht_session_set_cut(session, t.has_best ? t.best_s : 0.0, opts->cut_factor);
        ht_error_clear(&eerr);
        ht_eval_result_destroy(res);
        st = ht_session_eval(session, config, res, &eerr);
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

        fill_eval(&t, config, text, st, res, &eerr, ev);
        rc = ht_store_put_eval(store, ev, NULL, err);
        if (rc != HT_OK)
            goto cleanup;

        out->evaluated++;
        out->build_s += st == HT_ECONSTRAINT ? 0.0 : res->build_s;
        out->launch_compile_s += res->launch_compile_s;
        out->cache_hits += res->cache_hit ? 1 : 0;
        if (st == HT_ECUT)
            out->cut++;
        else if (st != HT_OK)
            out->failed++;
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
        t.known[index] = 1;
        if (st == HT_OK && res->verified != 0)
            consider_best(&t, index, res->kernel_s, 0);
        report_progress(&t, dev, t0, loop_t0, total, config, st);
    }
    rc = HT_OK;

cleanup:
    if (t.has_best) {
        out->has_best = 1;
        out->best_s = t.best_s;
        memcpy(out->best, col.configs + t.best * nparams, nparams * sizeof *out->best);
        ht_store_config_text(names, out->best, nparams, out->best_text,
                             sizeof out->best_text);
    }
    out->tuning_s = ht__now() - t0;
    if (res)
        ht_eval_result_destroy(res);
    free(res);
    free(ev);
    ht_session_free(session);
    ht_search_free(t.search);
    free(t.sorted);
    free(t.known);
    free(col.configs);
    ht_space_free(space);
    free(names);
    return rc;
}
