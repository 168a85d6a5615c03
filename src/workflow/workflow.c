/* The workflow around a co-execution (workflow.h): best configurations, tune-if-missing,
 * devices alone, storing splits, refinement rounds, sweeps. Moved here from the CLI. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/workflow.h"
#include "workflow-internal.h"


/* The best stored evaluation that is a configuration of this spec on this device: specs
 * that share a kernel, its sizes and its parameters' names share their evaluations, and
 * another one's constraints or domains may allow what this one does not. */
struct best_scan {
    const struct ht_spec *spec;
    const struct ht_device_info *dev;
    int unverified;
    struct ht_stored_eval *best;
    int found;
};

static int in_space(const struct ht_spec *spec, const struct ht_device_info *dev,
                    const struct ht_stored_eval *ev)
{
    return ev->nvalues == spec->space.nparams &&
           ht_space_check(&spec->space, dev, ev->values, HT_EQ3_OFF, NULL) == HT_OK;
}

static int best_scan_cb(const struct ht_stored_eval *ev, void *user)
{
    struct best_scan *b = user;

    if (strcmp(ev->status, HT_STORE_OK) || !(b->unverified ? ev->verified != 0
                                                             : ev->verified == 1) ||
        !(ev->seconds >= 0.0) || (b->found && !(ev->seconds < b->best->seconds)) ||
        !in_space(b->spec, b->dev, ev))
        return 0;
    *b->best = *ev;
    b->found = 1;
    return 0;
}

/* Reads the stored best of d into d, or HT_ENOTFOUND (err untouched by the store then). */
static int read_best(const struct ht_spec *spec, struct ht_store *store, int64_t problem_id,
                     int unverified, struct ht_workflow_device *d, struct ht_error *err)
{
    struct ht_stored_eval *ev = malloc(sizeof *ev);
    int rc;

    if (!ev)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    rc = unverified ? ht_store_best_unverified(store, problem_id, d->device_id, ev, err)
                    : ht_store_best(store, problem_id, d->device_id, ev, err);
    if (rc == HT_OK && !in_space(spec, d->dev, ev)) {
        struct best_scan b = {spec, d->dev, unverified, ev, 0};
        rc = ht_store_list_evals(store, problem_id, d->device_id, best_scan_cb, &b, err);
        if (rc == HT_OK && !b.found)
            rc = HT_ENOTFOUND;
    }
    if (rc == HT_OK && ev->nvalues != spec->space.nparams)
        rc = ht_error_set(err, HT_EDB, "the stored best of device %zu has %zu values, not %zu",
                          d->dev->index, ev->nvalues, spec->space.nparams);
    if (rc == HT_OK) {
        memcpy(d->config, ev->values, ev->nvalues * sizeof *ev->values);
        snprintf(d->config_text, sizeof d->config_text, "%s", ev->config);
        d->tuned_s = ev->seconds;
    }
    free(ev);
    return rc;
}

/* Predicts d from the kernel's other sizes when the database holds nothing of problem_id
 * on it (a problem partly measured is tuned on, not predicted); opts->topts is set (eq3).
 * HT_ENOTFOUND when it cannot, err untouched then; *why then holds the predictor's reason
 * when it found other sizes (fewer than it needs), else is cleared. */
static int predict(const struct ht_spec *spec, struct ht_store *store, int64_t problem_id,
                   const struct ht_workflow_best_opts *opts, struct ht_workflow_device *d,
                   struct ht_error *why, struct ht_error *err)
{
    struct ht_predict_opts po;
    struct ht_predict_result *r;
    char note[2048], list[1024], t[32];
    uint64_t count;
    int rc = ht_store_count_evals(store, problem_id, d->device_id, &count, err);

    if (rc != HT_OK || count > 0)
        return rc != HT_OK ? rc : HT_ENOTFOUND;
    r = malloc(sizeof *r);
    if (!r)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    ht_predict_opts_init(&po);
    po.eq3 = opts->topts->eq3;
    po.unverified = opts->unverified;
    ht_error_clear(why);
    rc = ht_predict_best(spec, store, d->dev, &po, r, why);
    if (rc == HT_OK) {
        memcpy(d->config, r->config, spec->space.nparams * sizeof *r->config);
        snprintf(d->config_text, sizeof d->config_text, "%s", r->config_text);
        d->tuned_s = r->predicted_s;
        d->predicted = 1;
        d->predicted_from = r->nsizes;
        ht_format_seconds(r->predicted_s, t, sizeof t);
        list[0] = '\0';
        for (size_t k = 0; k < r->nsizes && k < HT_PREDICT_MAX_SIZES; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? "; " : "",
                     r->sizes[k]);
        snprintf(note, sizeof note,
                 "device %zu (%s): nothing of '%s' at these sizes in %s: predicted %s, %s, "
                 "from %zu other sizes (%.512s); --no-predict tunes instead",
                 d->dev->index, d->dev->name, spec->name, ht_store_path(store), r->config_text,
                 t, r->nsizes, list);
        if (opts->on_note)
            opts->on_note(note, opts->user);
    } else if (rc != HT_ENOTFOUND) {
        *err = *why;
    }
    if (rc != HT_ENOTFOUND || r->nsizes == 0)
        ht_error_clear(why);
    free(r);
    return rc;
}

int ht_workflow_best(const struct ht_spec *spec, struct ht_store *store, int64_t problem_id,
                     const struct ht_workflow_best_opts *opts, struct ht_workflow_device *d,
                     struct ht_error *err)
{
    struct ht_workflow_best_opts resolved;
    struct ht_tune_opts defaults;
    const struct ht_tune_opts *topts;
    struct ht_tune_result *tr;
    struct ht_tune_sink sink;
    struct ht_error no_prediction;
    char why[1024];
    int rc;

    if (!spec || !store || !d)
        return ht_error_set(err, HT_EINVAL, "ht_workflow_best: %s is NULL",
                            !spec ? "spec" : !store ? "store" : "d");
    if (opts)
        resolved = *opts;
    else
        memset(&resolved, 0, sizeof resolved);
    ht_tune_opts_init(&defaults);
    if (!resolved.topts)
        resolved.topts = &defaults;
    opts = &resolved;
    topts = opts->topts;
    if (spec->space.nparams > HT_STORE_MAX_PARAMS)
        return ht_error_set(err, HT_EINVAL, "the spec has more than %d parameters",
                            HT_STORE_MAX_PARAMS);
    d->tuned_now = 0;
    rc = ht_store_device_id(store, d->dev, &d->device_id, err);
    if (rc != HT_OK)
        return rc;
    rc = read_best(spec, store, problem_id, opts->unverified, d, err);
    if (rc != HT_ENOTFOUND)
        return rc;
    why[0] = '\0';
    ht_error_clear(&no_prediction);
    rc = opts->no_predict ? HT_ENOTFOUND
                          : predict(spec, store, problem_id, opts, d, &no_prediction, err);
    if (rc != HT_ENOTFOUND)
        return rc;
    if (no_prediction.code)
        snprintf(why, sizeof why, "; no prediction: %.900s", no_prediction.text);
    if (!opts->tune_missing)
        return ht_error_set(err, HT_ENOTFOUND,
                            "device %zu (%s) has no tuned configuration of '%s' at these sizes "
                            "in %s: run 'hetune tune %s --device %zu --db %s' with the same "
                            "sizes first, or allow tuning%.600s",
                            d->dev->index, d->dev->name, spec->name, ht_store_path(store),
                            spec->path ? spec->path : "SPEC", d->dev->index,
                            ht_store_path(store), why);
    tr = calloc(1, sizeof *tr);
    if (!tr)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    if (opts->on_tune)
        opts->on_tune(d->dev, ht_store_path(store),
                      topts->strategy ? topts->strategy : "automatic", opts->user);
    if (opts->on_note) {
        char note[2048];
        snprintf(note, sizeof note,
                 "no tuned configuration of device %zu (%.256s) in %.512s: tuning it first "
                 "(%.64s)%.900s",
                 d->dev->index, d->dev->name, ht_store_path(store),
                 topts->strategy ? topts->strategy : "automatic strategy", why);
        opts->on_note(note, opts->user);
    }
    ht_tune_sink_store(&sink, store);
    rc = ht_tune_device(spec, d->dev, &sink, topts, tr, err);
    if (opts->load)
        ht_load_add(opts->load, &tr->load);
    if (rc == HT_OK) {
        d->tuned_now = 1;
        rc = read_best(spec, store, problem_id, opts->unverified, d, err);
    }
    if (rc == HT_ENOTFOUND)
        rc = ht_error_set(err, HT_ENOTFOUND,
                          "device %zu (%s): no configuration ran and verified, even after "
                          "tuning%s",
                          d->dev->index, d->dev->name,
                          tr->space ? "" : " (the pruned space is empty)");
    free(tr);
    return rc;
}

int ht_workflow_scheduler_planned(const char *scheduler)
{
    const struct ht_split_sched_ops *ops = ht_split_scheduler_find(scheduler);

    /* "refined" names no scheduler: a refinement's round, a plan of the planned one. */
    if (ops)
        return ops->kind == HT_SPLIT_SCHED_PLANNED;
    return scheduler && !strcmp(scheduler, "refined");
}

int ht__workflow_store_split(struct ht_store *store, int64_t problem_id,
                             const struct ht__workflow_split_record *rec, int64_t *id,
                             struct ht_error *err)
{
    const struct ht_workflow_device *devs = rec->devs;
    const struct ht_coexec_result *res = rec->res;
    const struct ht_split_plan *plan = rec->plan;
    size_t n = rec->n, fastest = rec->fastest;
    int ran_alone = rec->ran_alone;
    struct ht_stored_split sp;
    struct ht_stored_split_device *sd;
    int is_static = ht_workflow_scheduler_planned(res->scheduler);
    int rc;

    if (ran_alone)
        n = 1;
    sd = calloc(n, sizeof *sd);
    if (!sd)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    ht_stored_split_init(&sp);
    sp.problem_id = problem_id;
    snprintf(sp.scheduler, sizeof sp.scheduler, "%.31s", ran_alone ? "alone" : res->scheduler);
    sp.dim = res->dim;
    sp.global = res->global;
    sp.theoretical_seconds = ran_alone ? -1 : res->theoretical_s;
    sp.seconds = res->wall_s;
    sp.min_seconds = res->wall_min_s;
    sp.kernel_seconds = res->kernel_s;
    sp.alone_seconds = devs[fastest].alone.wall_s;
    sp.verified = res->verified;
    sp.predicted_seconds = ran_alone ? -1 : rec->predicted_s; /* the store keeps <= 0 as none */
    if (res->verified >= 0) {
        sp.max_abs_err = res->max_abs_err;
        sp.max_rel_err = res->max_rel_err;
    }
    for (size_t i = 0; i < n; i++) {
        /* Alone, the result's only device is the fastest. */
        const struct ht_workflow_device *d = &devs[ran_alone ? fastest : i];
        const struct ht_coexec_device_result *dr = &res->devices[i];
        sd[i].device_id = d->device_id;
        snprintf(sd[i].config, sizeof sd[i].config, "%s", d->config_text);
        sd[i].wg = dr->wg;
        sd[i].time_seconds = d->tuned_s;
        sd[i].optimal_factor = plan ? plan->slices[i].optimal_factor : rec->no_plan_factor;
        sd[i].adjusted_factor = ran_alone ? 1.0 : dr->share;
        if (plan && is_static) {
            sd[i].offset = plan->slices[i].offset;
            sd[i].size = plan->slices[i].size;
            sd[i].own_offset = plan->slices[i].own_offset;
            sd[i].own_size = plan->slices[i].own_size;
        }
        sd[i].chunks = dr->chunks;
        sd[i].kernel_seconds = dr->kernel_s;
        sd[i].write_seconds = dr->write_s;
        sd[i].read_seconds = dr->read_s;
    }
    sp.ndevices = n;
    sp.devices = sd;
    rc = ht_store_put_split(store, &sp, id, err);
    free(sd);
    return rc;
}

int ht__workflow_result_copy(struct ht_coexec_result *dst, const struct ht_coexec_result *src,
                             struct ht_error *err)
{
    *dst = *src;
    dst->devices = NULL;
    dst->run_s = NULL;
    if (src->ndevices)
        dst->devices = malloc(src->ndevices * sizeof *dst->devices);
    if (src->nruns)
        dst->run_s = malloc(src->nruns * sizeof *dst->run_s);
    if ((src->ndevices && !dst->devices) || (src->nruns && !dst->run_s)) {
        free(dst->devices);
        free(dst->run_s);
        memset(dst, 0, sizeof *dst);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    if (src->ndevices)
        memcpy(dst->devices, src->devices, src->ndevices * sizeof *dst->devices);
    if (src->nruns)
        memcpy(dst->run_s, src->run_s, src->nruns * sizeof *dst->run_s);
    return HT_OK;
}

void ht__workflow_refine_free(struct ht_workflow_refine *r)
{
    if (!r)
        return;
    free(r->factors);
    free(r->times);
    free(r->overheads);
    free(r->model_s);
    free(r->wall_s);
    free(r->kernel_s);
    free(r->verified);
    ht_coexec_result_destroy(&r->best_res);
    ht_split_plan_destroy(&r->best_plan);
    memset(r, 0, sizeof *r);
}

/* Round k's time by the target. */
static double refine_time(const struct ht_workflow_refine *r, size_t k)
{
    return r->target == HT_REFINE_KERNEL ? r->kernel_s[k] : r->wall_s[k];
}

size_t ht__workflow_refine_alone(const struct ht_workflow_refine *r,
                                 const struct ht_coexec_alone *alone, int forced)
{
    size_t fast = SIZE_MAX, only = SIZE_MAX, holders = 0, alone_dev;
    struct ht__decision d;
    double tfast = 0;
    int rc;

    if (r->nrounds == 0 || forced)
        return SIZE_MAX;
    for (size_t i = 0; i < r->n; i++) {
        double t = r->target == HT_REFINE_KERNEL ? alone[i].kernel_s : alone[i].wall_s;
        if (t > 0 && (fast == SIZE_MAX || t < tfast)) {
            fast = i;
            tfast = t;
        }
        if (r->factors[r->best * r->n + i] > 0) {
            holders++;
            only = i;
        }
    }
    /* The one rule's comparison (coexec/coexec.h, ht__measured: why refine's inputs
     * differ). */
    rc = ht__decide(&(struct ht__decide_in){.measured = &(struct ht__measured){
                        .forced = forced, .split_s = refine_time(r, r->best),
                        .keep_s = fast != SIZE_MAX ? tfast : INFINITY, .fastest = fast,
                        .only = holders == 1 ? only : SIZE_MAX}},
                    &d, NULL);
    alone_dev = rc == HT_OK && !d.split ? d.fastest : SIZE_MAX;
    ht__decision_destroy(&d);
    return alone_dev;
}


/* Records round k: its result and the models it was planned by (model_s: 2 per device,
 * as ht__decision.model_s). */
static void refine_record(struct ht_workflow_refine *r, const double *model_s, size_t k,
                          const struct ht_coexec_result *res)
{
    for (size_t i = 0; i < r->n; i++) {
        r->factors[k * r->n + i] = res->devices[i].share;
        r->times[k * r->n + i] = model_s[2 * i];
        r->overheads[k * r->n + i] = model_s[2 * i + 1];
    }
    r->model_s[k] = res->model_s;
    r->wall_s[k] = res->wall_s;
    r->kernel_s[k] = res->kernel_s;
    r->verified[k] = res->verified;
    if (refine_time(r, k) < refine_time(r, r->best))
        r->best = k;
    r->nrounds = k + 1;
}

/* A refinement's round as ht__coexec_rounds made it: recorded, and kept when the best. */
struct refining {
    struct ht_workflow_refine *out;
    const struct ht__workflow_refine_opts *opts;
};

static int refine_made(void *user, const struct ht__round_made *m, struct ht_error *err)
{
    struct refining *g = user;
    struct ht_workflow_refine *out = g->out;
    size_t k = m->k;

    if (m->verr && g->opts->on_verify)
        g->opts->on_verify(m->verr, g->opts->user);
    refine_record(out, m->model_s, k, m->res);
    if (!out->best_refined || refine_time(out, k) < refine_time(out, out->best_refined)) {
        ht_coexec_result_destroy(&out->best_res);
        ht_split_plan_destroy(&out->best_plan);
        out->best_plan = *m->plan; /* the round's copy */
        memset(m->plan, 0, sizeof *m->plan);
        out->best_refined = k;
        /* Keep a copy: the round's run is the next one's to refine from. */
        return ht__workflow_result_copy(&out->best_res, m->res, err);
    }
    return HT_OK;
}

int ht__workflow_refine_run(struct ht_coexec *cx, const struct ht_coexec_alone *alone,
                            const struct ht_coexec_result *first, size_t ref,
                            const struct ht__workflow_refine_opts *opts,
                            struct ht_workflow_refine *out, struct ht_error *err)
{
    size_t n = first->ndevices, total = (size_t)opts->rounds + 1;
    struct refining g = {out, opts};
    int rc;

    memset(out, 0, sizeof *out);
    out->n = n;
    out->target = opts->target;
    out->factors = calloc(total * n, sizeof *out->factors);
    out->times = calloc(total * n, sizeof *out->times);
    out->overheads = calloc(total * n, sizeof *out->overheads);
    out->model_s = calloc(total, sizeof *out->model_s);
    out->wall_s = calloc(total, sizeof *out->wall_s);
    out->kernel_s = calloc(total, sizeof *out->kernel_s);
    out->verified = calloc(total, sizeof *out->verified);
    if (!out->factors || !out->times || !out->overheads || !out->model_s || !out->wall_s ||
        !out->kernel_s || !out->verified)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    refine_record(out, opts->model0, 0, first);
    if (opts->rounds == 0)
        return HT_OK;
    rc = ht__coexec_rounds(cx, &(struct ht__rounds){.refine = opts->rounds, .first = first,
                                                    .alone = alone, .target = opts->target,
                                                    .ref = ref, .made = refine_made,
                                                    .user = &g},
                           err);
    if (rc == HT_DONE) {
        out->converged = 1;
        rc = HT_OK;
    }
    return rc;
}

int ht__workflow_args(const char *fn, const struct ht_spec *spec,
                      const struct ht_device_info *const *devs, size_t n, const void *opts,
                      const void *out, struct ht_error *err)
{
    if (!spec || (n && !devs) || !opts || !out)
        return ht_error_set(err, HT_EINVAL, "%s: %s is NULL", fn,
                            !spec ? "spec" : !opts ? "opts" : !out ? "out" : "devs");
    for (size_t k = 0; k < n; k++)
        if (!devs[k])
            return ht_error_set(err, HT_EINVAL, "%s: devs[%zu] is NULL", fn, k);
    return HT_OK;
}

size_t ht_workflow_sweep_points(double step)
{
    size_t steps;

    /* 1 / 0 as a size_t is undefined; a step past 1 or below HT_SWEEP_MIN_STEP no sweep. */
    if (!(step >= HT_SWEEP_MIN_STEP && step <= 1.0))
        return 0;
    steps = (size_t)floor(1.0 / step + 1e-9);
    return steps + 1 + (steps * step < 1.0 - 1e-9);
}

/* A sweep's point as ht__coexec_rounds made it: stored with the first split. */
struct sweeping {
    struct ht_store *store;
    const struct ht_workflow_split_opts *opts;
    struct ht_workflow_split_result *out;
};

static int sweep_made(void *user, const struct ht__round_made *m, struct ht_error *err)
{
    struct sweeping *g = user;
    struct ht_workflow_split_result *out = g->out;
    struct ht_stored_sweep_point *pt = &out->sweep[m->k];
    int rc;

    pt->index = (unsigned)m->k;
    pt->factor = m->factor;
    pt->theoretical_seconds = m->res->theoretical_s;
    pt->seconds = m->res->wall_s;
    pt->kernel_seconds = m->res->kernel_s;
    pt->verified = m->res->verified;
    if (m->verr && g->opts->on_verify)
        g->opts->on_verify(m->verr, g->opts->user);
    rc = ht_store_put_sweep_point(g->store, out->first_split_id, pt, err);
    if (rc != HT_OK)
        return rc;
    out->verify_failed |= pt->verified == 0;
    out->nsweep = m->k + 1;
    if (g->opts->on_step)
        g->opts->on_step("sweep", g->opts->user);
    return HT_OK;
}

int ht__workflow_sweep(struct ht_store *store, struct ht_coexec *cx,
                       const struct ht_workflow_split_opts *opts,
                       struct ht_workflow_split_result *out, struct ht_error *err)
{
    size_t npoints = ht_workflow_sweep_points(opts->sweep);
    struct sweeping g = {store, opts, out};

    out->sweep = calloc(npoints, sizeof *out->sweep);
    if (!out->sweep)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    return ht__coexec_rounds(cx, &(struct ht__rounds){.npoints = npoints, .step = opts->sweep,
                                                      .ref = out->fastest, .made = sweep_made,
                                                      .user = &g},
                             err);
}
