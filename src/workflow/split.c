/* The whole of `hetune split` as a library function (workflow.h): best configurations,
 * devices alone, the split-or-alone decision, the run, verification, storing, the
 * refinement rounds and the sweep. ht_workflow_run (run.c) runs its co-executions through
 * the same steps (workflow-internal.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/supervise.h"
#include "coexec/coexec.h"
#include "workflow-internal.h"

void ht_workflow_split_opts_init(struct ht_workflow_split_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    /* The co-execution's defaults (coexec.h): dim 0 and the static scheduler (zero), the
     * spec's timing (zero), one warm-up run, the decision's default margin. */
    ht_exec_opts_init(&opts->coexec.exec);
    opts->coexec.warmup = 1;
    opts->coexec.margin = HT_SPLIT_MARGIN_DEFAULT;
    opts->refine_by = HT_REFINE_WALL;
}

void ht_workflow_split_result_destroy(struct ht_workflow_split_result *r)
{
    if (!r)
        return;
    free(r->devs);
    ht_coexec_result_destroy(&r->res);
    ht_split_plan_destroy(&r->plan);
    ht__workflow_refine_free(&r->refine);
    free(r->sweep);
    free(r->skipped);
    memset(r, 0, sizeof *r);
}

int ht__skip_device(struct ht_workflow_skipped **list, size_t *n,
                    const struct ht_device_info *dev, const struct ht_error *why,
                    struct ht_error *err)
{
    struct ht_workflow_skipped *l = realloc(*list, (*n + 1) * sizeof *l);
    char prefix[320];
    const char *reason = why->text;
    int len;

    if (!l)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    *list = l;
    len = snprintf(prefix, sizeof prefix, "device %zu (%s): ", dev->index, dev->name);
    if (len > 0 && (size_t)len < sizeof prefix && !strncmp(reason, prefix, (size_t)len))
        reason += len;
    l[*n].dev = dev;
    /* A long reason is cut to the field: the device's error names the rest. */
    snprintf(l[*n].reason, sizeof l[*n].reason, "%.255s", reason);
    (*n)++;
    return HT_OK;
}

int ht__skip_lost(struct ht_workflow_skipped **list, size_t *n,
                  const struct ht_device_info *dev, int *lost, struct ht_error *err)
{
    struct ht_error why;
    char reason[256];

    *lost = ht_supervised_lost(dev->index, reason, sizeof reason);
    if (!*lost)
        return HT_OK;
    ht_error_clear(&why);
    ht_error_set(&why, HT_ECRASH, "%s", reason);
    return ht__skip_device(list, n, dev, &why, err);
}

static void step(const struct ht_workflow_split_opts *opts, const char *what)
{
    if (opts->on_step)
        opts->on_step(what, opts->user);
}

int ht__split_base_alone(struct ht__split_base *b, const struct ht_coexec_opts *base,
                         ht_workflow_step_fn on_step, void *user, struct ht_error *err)
{
    /* Every device alone, with the co-execution's own wall clock. */
    return ht__decide(&(struct ht__decide_in){.spec = b->spec, .devs = b->devs, .n = b->n,
                                              .alone_opts = base,
                                              .runs = &(struct ht__runs){on_step, user}},
                      &b->runs, err);
}

void ht__split_base_destroy(struct ht__split_base *b)
{
    ht__decision_destroy(&b->runs);
    free(b->written);
    b->written = NULL;
}

/* The refinement after the first run, and the fastest alone when it measures that better
 * (unless forced). keep_first: the first run stays the result. */
static int alone_measured(struct ht__split_base *b, size_t k,
                          struct ht_workflow_split_result *out, struct ht_error *err);

/* out->history: this problem's splits over out's devices against their predictions. */
static int history(const struct ht__split_base *b, struct ht_workflow_split_result *out,
                   struct ht_error *err)
{
    int64_t *ids = malloc((out->n ? out->n : 1) * sizeof *ids);
    int rc;

    if (!ids)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < out->n; i++)
        ids[i] = out->devs[i].device_id;
    rc = ht_store_split_errors(b->store, b->problem_id, ids, out->n, &out->history, err);
    free(ids);
    return rc;
}

static int refine_step(struct ht__split_base *b, const struct ht__decision *d,
                       const struct ht_workflow_split_opts *opts, int keep_first,
                       struct ht_workflow_split_result *out, struct ht_error *err)
{
    struct ht_workflow_refine *rf = &out->refine;
    struct ht__workflow_refine_opts ro = {.rounds = opts->refine, .target = opts->refine_by,
                                         .on_verify = opts->on_verify, .user = opts->user,
                                         .model0 = d->model_s};
    size_t k;
    int rc;

    out->has_refine = 1;
    rc = ht__workflow_refine_run(d->cx, b->runs.alone, &out->res, out->fastest, &ro, rf,
                                 err);
    for (size_t r = 0; r < rf->nrounds; r++)
        out->verify_failed |= rf->verified[r] == 0;
    if (rc == HT_OK && rf->best_refined) {
        struct ht__workflow_split_record rec = {.devs = out->devs, .n = out->n,
                                               .fastest = out->fastest, .res = &rf->best_res,
                                               .plan = &rf->best_plan, .no_plan_factor = 1.0};
        rc = ht__workflow_store_split(b->store, b->problem_id, &rec, &out->refined_split_id,
                                      err);
        if (rc == HT_OK && rf->best == rf->best_refined && !keep_first) {
            /* The refined round is the result: swap it in. */
            struct ht_coexec_result t = out->res;
            struct ht_split_plan tp = out->plan;
            out->res = rf->best_res;
            rf->best_res = t;
            out->plan = rf->best_plan;
            rf->best_plan = tp;
            out->split_id = out->refined_split_id;
        }
    }
    if (rc != HT_OK)
        return rc;
    step(opts, "refined");
    /* Measured: when no round beat the fastest device alone (by the refinement's target),
     * or the best gave one device all the work, that device runs alone, unless forced. */
    k = ht__workflow_refine_alone(rf, b->runs.alone, opts->force);
    if (k == SIZE_MAX)
        return HT_OK;
    return alone_measured(b, k, out, err);
}

/* Device k's run alone becomes the result, verified and stored as alone: what was measured
 * says so. */
static int alone_measured(struct ht__split_base *b, size_t k,
                          struct ht_workflow_split_result *out, struct ht_error *err)
{
    int rc;

    out->fastest = k;
    ht_coexec_result_destroy(&out->res);
    out->res = b->runs.alone_res[k];
    memset(&b->runs.alone_res[k], 0, sizeof b->runs.alone_res[k]);
    ht_split_plan_destroy(&out->plan);
    out->has_plan = 0;
    out->ran_alone = out->measured_alone = 1;
    rc = ht__coexec_check(b->runs.alone_cx[k], 0, &out->res, NULL, err, NULL);
    if (rc == HT_OK)
        rc = ht__workflow_store_split(b->store, b->problem_id,
                                      &(struct ht__workflow_split_record){
                                         .devs = out->devs, .n = out->n, .fastest = k,
                                         .res = &out->res, .ran_alone = 1, .no_plan_factor = 1.0},
                                     &out->split_id, err);
    return rc;
}

int ht__split_once(struct ht__split_base *b, const struct ht_workflow_split_opts *opts,
                   int keep_first, double no_plan_factor, struct ht_workflow_split_result *out,
                   struct ht_error *err)
{
    struct ht_coexec *cx, *used;
    struct ht__decision d;
    const struct ht__verdict *v = &d.verdict;
    size_t n = b->n;
    int rc;

    memset(&d, 0, sizeof d);
    out->n = n;
    out->fastest = b->runs.fastest;
    out->eq4_factor = -1;
    out->measured_split_s = -1;
    if (!out->devs) {
        out->devs = malloc(n * sizeof *out->devs);
        if (!out->devs)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        memcpy(out->devs, b->devs, n * sizeof *out->devs);
    }
    /* The others have nothing usable: the one device left runs alone, nothing to plan. */
    out->left_alone = out->ran_alone = n == 1 && out->nskipped > 0;
    if (!out->left_alone) {
        struct ht_coexec_opts o = opts->coexec;
        o.written = b->written;
        /* The devices' runs alone are b's; an estimate that fails leaves the split to its
         * measurement. */
        rc = ht__decide(&(struct ht__decide_in){
                            .spec = b->spec, .devs = b->devs, .n = n, .copts = &o,
                            .mode = opts->force ? HT__DECIDE_SPLIT : HT__DECIDE_AUTO,
                            .paper_plan = opts->paper_plan, .alone = b->runs.alone,
                            .store = b->store},
                        &d, err);
        out->res = d.verdict.res; /* the split's run (the result, for now), or nothing */
        memset(&d.verdict.res, 0, sizeof d.verdict.res);
        if (rc != HT_OK)
            goto cleanup;
        out->est = v->est;
        out->has_est = v->has_est;
        out->fastest = v->fastest;
        out->bus_plan = v->bus_plan;
        out->ran_alone = !v->measured; /* the fastest alone is predicted better */
    }
    cx = d.cx;
    used = out->ran_alone ? b->runs.alone_cx[out->fastest] : cx;
    if (out->ran_alone) {
        /* Its run alone is the result: hand it over. */
        out->res = b->runs.alone_res[out->fastest];
        memset(&b->runs.alone_res[out->fastest], 0, sizeof b->runs.alone_res[0]);
    } else if (out->bus_plan) {
        /* Algorithm 1 stays the paper's figure, from the tuned times. */
        out->res.theoretical_s = v->paper_s[0];
        out->res.adjusted_s = v->paper_s[1];
    }
    rc = ht__coexec_check(used, out->ran_alone ? 0 : out->fastest, &out->res, opts->dump,
                          &out->verify_err, &out->dump_err);
    if (rc == HT_EVERIFY) {
        out->verify_failed = 1;
        rc = HT_OK;
    } else if (rc != HT_OK) {
        *err = out->verify_err;
        goto cleanup;
    }
    /* The decision's copy: a sweep replaces the co-execution's scheduler and its plan. */
    if (!out->ran_alone && d.has_plan) {
        out->plan = d.plan;
        memset(&d.plan, 0, sizeof d.plan);
        d.has_plan = 0;
        out->has_plan = 1;
    }
    rc = ht__workflow_store_split(b->store, b->problem_id,
                                  &(struct ht__workflow_split_record){
                                     .devs = out->devs, .n = n, .fastest = out->fastest,
                                     .res = &out->res, .plan = out->has_plan ? &out->plan : NULL,
                                     .ran_alone = out->ran_alone,
                                     .no_plan_factor = no_plan_factor,
                                     /* The estimate predicts the bus plan's split. */
                                     .predicted_s = out->has_est && out->bus_plan
                                                        ? out->est.split_s : 0},
                                 &out->split_id, err);
    if (rc == HT_OK)
        rc = history(b, out, err);
    if (rc != HT_OK)
        goto cleanup;
    step(opts, out->res.scheduler);
    out->first_split_id = out->split_id;
    out->eq4_factor = out->has_plan ? out->plan.slices[0].optimal_factor : -1;

    if (opts->refine && !out->ran_alone) {
        rc = refine_step(b, &d, opts, keep_first, out, err);
        if (rc != HT_OK)
            goto cleanup;
    } else if (!keep_first && v->measured && !v->keep) {
        /* Measured: the split (stored above) ran slower than the fastest device alone, or
         * faster by less than the margin, both with the same clock (ht__decide). That
         * device alone is the result. */
        out->measured_split_s = out->res.wall_s;
        rc = alone_measured(b, out->fastest, out, err);
        if (rc != HT_OK)
            goto cleanup;
    }
    if (opts->sweep > 0 && !out->left_alone)
        rc = ht__workflow_sweep(b->store, cx, opts, out, err);

cleanup:
    ht__decision_destroy(&d);
    return rc;
}

int ht__split_lock(const struct ht__split_base *b, const struct ht_workflow_split_opts *opts,
                   struct ht_device_locks *locks, struct ht_load *load, struct ht_error *err)
{
    const struct ht_device_info **devs = calloc(b->n ? b->n : 1, sizeof *devs);
    struct ht_device_wait wait = { opts->stop, opts->on_device_wait, opts->wait_user };
    int rc;

    memset(locks, 0, sizeof *locks);
    if (!devs)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < b->n; i++)
        devs[i] = b->devs[i].dev;
    rc = ht_device_locks_take(devs, b->n, &wait, locks, load, err);
    free(devs);
    return rc;
}

/* The whole split at opts->coexec.cpu_units. */
static int split_at(const struct ht_spec *spec, const struct ht_device_info *const *devs,
                    size_t n, const struct ht_workflow_split_opts *opts,
                    struct ht_workflow_split_result *out, struct ht_error *err)
{
    struct ht_tune_opts topts;
    struct ht_workflow_best_opts bo;
    struct ht__split_base b;
    struct ht_device_locks locks = {0};
    struct ht_error why;
    size_t kept = 0;
    int rc;

    memset(out, 0, sizeof *out);
    memset(&b, 0, sizeof b);
    out->eq4_factor = -1;
    if (n == 0)
        return ht_error_set(err, HT_EINVAL, "no device to split over");
    if (opts->sweep > 0 && n != 2)
        return ht_error_set(err, HT_EINVAL, "a sweep needs exactly two devices, not %zu", n);
    if (opts->sweep != 0.0 && ht_workflow_sweep_points(opts->sweep) == 0) {
        if (err && !err->code)
            snprintf(err->field, sizeof err->field, "sweep");
        return ht_error_set(err, HT_EINVAL, "a sweep's step is in [%g, 1], not %g",
                            HT_SWEEP_MIN_STEP, opts->sweep);
    }
    /* What the spec alone says against the split, before any device is tuned; written
     * buffers without index wait for the probe. */
    rc = ht__coexec_precheck(&(struct ht__precheck){spec, opts->coexec.dim,
                                                    opts->coexec.scheduler, n, devs,
                                                    opts->coexec.cpu_units},
                             NULL, err);
    if (rc != HT_OK)
        return rc;
    out->cpu_units = opts->coexec.cpu_units;
    if (opts->tune) {
        topts = *opts->tune;
    } else {
        ht_tune_opts_init(&topts);
        topts.eq3 = opts->coexec.exec.eq3;
        topts.exec = opts->coexec.exec;
    }
    out->n = n;
    out->devs = calloc(n, sizeof *out->devs);
    if (!out->devs)
        return ht_error_set(err, HT_ENOMEM, "out of memory");

    /* Each device's best configuration, tuning first where the database has none. */
    memset(&bo, 0, sizeof bo);
    bo.tune_missing = 1;
    bo.topts = &topts;
    bo.unverified = spec->verify == HT_VERIFY_NONE || topts.exec.no_verify;
    bo.on_tune = opts->on_tune;
    bo.no_predict = opts->no_predict;
    bo.on_note = opts->on_note;
    bo.user = opts->user;
    bo.load = &out->load;
    b.spec = spec;
    b.n = n;
    b.devs = out->devs;
    rc = ht_workflow_open(opts->db, opts->store, opts->stop, spec, &b.store, &b.problem_id, err);
    for (size_t i = 0; rc == HT_OK && i < n; i++) {
        /* A device with nothing usable is left out; the others go on without it. */
        int lost;
        ht_error_clear(&why);
        rc = ht__skip_lost(&out->skipped, &out->nskipped, devs[i], &lost, err);
        if (rc != HT_OK || lost)
            continue;
        out->devs[kept].dev = devs[i];
        rc = ht_workflow_best(spec, b.store, b.problem_id, &bo, &out->devs[kept], &why);
        if (rc == HT_ENOTFOUND)
            rc = ht__skip_device(&out->skipped, &out->nskipped, devs[i], &why, err);
        else if (rc != HT_OK)
            *err = why;
        else
            kept++;
    }
    if (rc == HT_OK && kept == 0)
        rc = n == 1 && why.code ? (*err = why, why.code)
                    : ht_error_set(err, HT_ENOTFOUND, "no device has a usable configuration: "
                                   "device %zu (%s): %s", devs[0]->index, devs[0]->name,
                                   out->skipped[0].reason);
    out->n = b.n = kept;
    /* The measurements from here on hold every device's lock; tuning (above) took each
     * device's alone, so that no lock is held while a tune waits for another. */
    if (rc == HT_OK)
        rc = ht__split_lock(&b, opts, &locks, &out->load, err);
    if (rc == HT_OK)
        rc = ht__split_written(&b, opts, err);
    if (rc == HT_OK)
        rc = ht__split_base_alone(&b, &opts->coexec, opts->on_step, opts->user, err);
    if (rc == HT_OK)
        rc = ht__split_once(&b, opts, 0, 1.0, out, err);
    ht_device_locks_release(&locks, &out->load);
    ht__split_base_destroy(&b);
    ht_store_close(b.store);
    return rc;
}

/* The counts of CPU compute units to try (Dopia): all, all but one (the host threads that
 * drive the other devices want a core), three quarters, a half and a quarter of the
 * largest partitionable CPU device's; distinct, at least 1. 0 when none can be
 * partitioned. */
static size_t dop_counts(const struct ht_device_info *const *devs, size_t n, unsigned *units)
{
    unsigned c = 0, cand[HT_WORKFLOW_DOP_MAX];
    size_t k = 0;

    /* Checking no count (0: all), it fails on nothing. */
    ht__coexec_precheck(&(struct ht__precheck){.n = n, .devs = devs}, &c, NULL);
    if (c == 0)
        return 0;
    cand[0] = c;
    cand[1] = c - 1;
    cand[2] = 3 * c / 4;
    cand[3] = c / 2;
    cand[4] = c / 4;
    for (size_t j = 0; j < HT_WORKFLOW_DOP_MAX; j++) {
        int seen = cand[j] < 1;
        for (size_t i = 0; i < k && !seen; i++)
            seen = units[i] == cand[j];
        if (!seen)
            units[k++] = cand[j];
    }
    return k;
}

int ht_workflow_split(const struct ht_spec *spec, const struct ht_device_info *const *devs,
                      size_t n, const struct ht_workflow_split_opts *opts,
                      struct ht_workflow_split_result *out, struct ht_error *err)
{
    struct ht_workflow_split_opts o;
    struct ht_workflow_dop dop[HT_WORKFLOW_DOP_MAX];
    unsigned units[HT_WORKFLOW_DOP_MAX];
    struct ht_load all = {0};
    size_t nc, best = 0;
    int rc, failed = 0;

    /* Emptied first: the caller destroys it whatever is returned. */
    if (out)
        memset(out, 0, sizeof *out);
    rc = ht__workflow_args("ht_workflow_split", spec, devs, n, opts, out, err);
    if (rc != HT_OK)
        return rc;
    o = *opts;
    o.coexec.cpu_units = 0;
    nc = opts->dop ? dop_counts(devs, n, units) : 0;
    if (nc == 0)
        return split_at(spec, devs, n, opts->dop ? &o : opts, out, err);
    /* Each count: the whole split, the fastest measured kept. The first tunes what is
     * missing; the others find it stored. */
    for (size_t k = 0; k < nc; k++) {
        struct ht_workflow_split_result r;
        o.coexec.cpu_units = units[k] == units[0] ? 0 : units[k];
        rc = split_at(spec, devs, n, &o, k ? &r : out, err);
        if (rc != HT_OK) {
            if (k)
                ht_workflow_split_result_destroy(&r);
            return rc;
        }
        if (!k)
            r = *out;
        dop[k] = (struct ht_workflow_dop){units[k], r.res.wall_s, r.ran_alone, r.split_id};
        failed |= r.verify_failed;
        if (k)
            ht_load_add(&all, &r.load);
        else
            all = r.load;
        if (k && r.res.wall_s < out->res.wall_s) {
            ht_workflow_split_result_destroy(out);
            *out = r;
            best = k;
        } else if (k) {
            ht_workflow_split_result_destroy(&r);
        }
    }
    out->verify_failed |= failed;
    out->load = all;
    out->cpu_units = best ? units[best] : 0;
    out->ndop = nc;
    memcpy(out->dop, dop, nc * sizeof dop[0]);
    return HT_OK;
}

int ht__split_written(struct ht__split_base *b, const struct ht_workflow_split_opts *opts,
                      struct ht_error *err)
{
    struct ht__decision read;
    int rc;

    if (b->n < 2)
        return HT_OK;
    rc = ht__decide(&(struct ht__decide_in){
                        .spec = b->spec, .devs = b->devs, .n = b->n,
                        .read = &(struct ht__read){
                            .store = b->store, .problem_id = b->problem_id,
                            .path = opts->coexec.exec.data_path, .infer = 1,
                            .dim = opts->coexec.dim, .exec = &opts->coexec.exec,
                            .on_note = opts->on_note, .user = opts->user}},
                    &read, err);
    if (rc == HT_OK && read.basis.written) {
        free(b->written);
        b->written = read.basis.written; /* taken from the decision */
        read.basis.written = NULL;
    }
    ht__decision_destroy(&read);
    return rc;
}
