/* The whole pipeline of `hetune run` as a library function (workflow.h): prune, tune,
 * each device alone, the co-executions along each dimension with each scheduler (through
 * the steps of ht_workflow_split, workflow-internal.h), and the report. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workflow-internal.h"

void ht_workflow_run_opts_init(struct ht_workflow_run_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    ht_workflow_split_opts_init(&opts->split);
    ht_tune_opts_init(&opts->tune);
    ht_report_opts_init(&opts->report);
}

void ht_workflow_run_result_destroy(struct ht_workflow_run_result *r)
{
    if (!r)
        return;
    for (size_t k = 0; r->splits && k < r->nsplits; k++)
        ht_workflow_split_result_destroy(&r->splits[k]);
    free(r->splits);
    free(r->devs);
    free(r->steps);
    free(r->skipped);
    ht_report_result_destroy(&r->report);
    memset(r, 0, sizeof *r);
}

/* Prefixes err's text with the device it is about. */
static int about_device(int rc, const struct ht_device_info *dev, struct ht_error *err)
{
    char text[sizeof err->text + 320];

    if (err && err->code) {
        snprintf(text, sizeof text, "device %zu (%.256s): %s", dev->index, dev->name,
                 err->text);
        memcpy(err->text, text, sizeof err->text - 1);
        err->text[sizeof err->text - 1] = '\0';
    }
    return rc;
}

/* Step 1: the space sizes of every device, stored. */
static int prune(const struct ht_spec *spec, struct ht_store *store, enum ht_eq3 eq3,
                 struct ht_workflow_run_result *out, struct ht_error *err)
{
    for (size_t i = 0; i < out->n; i++) {
        struct ht_workflow_device *d = &out->devs[i];
        struct ht_space_counts *counts = &out->steps[i].counts;
        struct ht_space *space = NULL;
        int rc = ht_space_create(&spec->space, d->dev, eq3, &space, err);
        if (rc == HT_OK)
            rc = ht_space_count(space, counts, err);
        ht_space_free(space);
        if (rc == HT_OK)
            rc = ht_workflow_store_space(store, out->problem_id, d->dev, eq3, counts,
                                         &d->device_id, err);
        if (rc != HT_OK)
            return about_device(rc, d->dev, err);
    }
    return HT_OK;
}

/* Step 2: tunes every device (measuring only what the database lacks) and reads its best
 * configuration back; a device with none that ran and verified is moved from devs and
 * steps to out->skipped. Stops at once when the tuning is stopped (out->stopped). */
static int tune(const struct ht_spec *spec, struct ht_store *store,
                const struct ht_workflow_run_opts *opts, struct ht_workflow_run_result *out,
                struct ht_error *err)
{
    struct ht_tune_opts topts = opts->tune;
    struct ht_workflow_best_opts bo;
    struct ht_tune_sink sink;
    size_t n = out->n, kept = 0;

    ht_tune_sink_store(&sink, store);
    topts.eq3 = opts->split.coexec.exec.eq3;
    topts.exec = opts->split.coexec.exec;
    memset(&bo, 0, sizeof bo);
    bo.unverified = spec->verify == HT_VERIFY_NONE || topts.exec.no_verify;
    bo.topts = &topts;
    bo.no_predict = 1; /* after the tuning below, only the stored best is read */
    for (size_t i = 0; i < n; i++) {
        struct ht_workflow_device *d = &out->devs[i];
        struct ht_tune_result *tr = &out->steps[i].tune;
        struct ht_error e;
        int lost, rc = ht__skip_lost(&out->skipped, &out->nskipped, d->dev, &lost, err);
        if (rc != HT_OK)
            return rc;
        if (lost)
            continue;
        if (!opts->split.no_predict) {
            /* Sizes never measured, other sizes stored: predicted, not tuned. */
            struct ht_workflow_best_opts po = bo;
            po.no_predict = 0;
            po.on_note = opts->split.on_note;
            po.user = opts->split.user;
            ht_error_clear(&e);
            rc = ht_workflow_best(spec, store, out->problem_id, &po, d, &e);
            if (rc == HT_OK && d->predicted) {
                out->devs[kept] = *d;
                out->steps[kept++] = out->steps[i];
                continue;
            }
            if (rc != HT_OK && rc != HT_ENOTFOUND) {
                *err = e;
                return rc;
            }
        }
        rc = ht_tune_device(spec, d->dev, &sink, &topts, tr, err);
        ht_load_add(&out->load, &tr->load);
        if (opts->split.on_step)
            opts->split.on_step("tuned", opts->split.user);
        if (rc != HT_OK)
            return about_device(rc, d->dev, err);
        if (tr->stopped) {
            /* What is left stays in devs and steps, after the devices kept. */
            memmove(&out->devs[kept], d, (n - i) * sizeof *d);
            memmove(&out->steps[kept], &out->steps[i], (n - i) * sizeof out->steps[0]);
            out->n = kept + n - i;
            out->stopped = 1;
            return HT_OK;
        }
        ht_error_clear(&e);
        rc = ht_workflow_best(spec, store, out->problem_id, &bo, d, &e);
        if (rc == HT_ENOTFOUND) {
            /* Nothing usable on it: the other devices go on without it. */
            ht_error_clear(&e);
            ht_error_set(&e, HT_ENOTFOUND, "no configuration ran and verified%s",
                         tr->space ? "" : " (the pruned space is empty)");
            rc = ht__skip_device(&out->skipped, &out->nskipped, d->dev, &e, err);
            if (rc != HT_OK)
                return rc;
            continue;
        }
        if (rc != HT_OK) {
            *err = e;
            return rc;
        }
        out->devs[kept] = *d;
        out->steps[kept++] = out->steps[i];
    }
    out->n = kept;
    if (kept == 0)
        return ht_error_set(err, HT_ENOTFOUND, "%sdevice %zu (%s): %s",
                            n > 1 ? "no device has a usable configuration: " : "",
                            out->skipped[0].dev->index, out->skipped[0].dev->name,
                            out->skipped[0].reason);
    return HT_OK;
}

/* Step 3: with two devices or more, each alone, then every dimension's co-executions. */
static int split(const struct ht_spec *spec, struct ht_store *store, unsigned dims,
                 const struct ht_workflow_run_opts *opts, struct ht_workflow_run_result *out,
                 struct ht_error *err)
{
    static const char *const just_default[] = {NULL}; /* the planned scheduler, static */
    const char *const *scheds = opts->schedulers ? opts->schedulers : just_default;
    size_t nsched = opts->schedulers ? opts->nschedulers : 1;
    struct ht__split_base b;
    struct ht_device_locks locks = {0};
    int rc;

    memset(&b, 0, sizeof b);
    b.spec = spec;
    b.store = store;
    b.problem_id = out->problem_id;
    b.n = out->n;
    b.devs = out->devs;
    out->splits = calloc(3 * nsched, sizeof *out->splits);
    if (!out->splits)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    /* Every measurement of this step holds every device's lock (tuning, before, took
     * each device's alone). */
    rc = ht__split_lock(&b, &opts->split, &locks, &out->load, err);
    if (rc == HT_OK)
        rc = ht__split_base_alone(&b, &opts->split.coexec, opts->split.on_step,
                                  opts->split.user, err);
    out->fastest = b.runs.fastest;
    for (unsigned d = 0; rc == HT_OK && d < 3; d++) {
        if (!(dims & (1u << d)))
            continue;
        {
            /* The written buffers without index along d: stored, or probed. */
            struct ht_workflow_split_opts so = opts->split;
            so.coexec.dim = d;
            rc = ht__split_written(&b, &so, err);
        }
        for (size_t s = 0; rc == HT_OK && s < nsched; s++) {
            struct ht_workflow_split_opts so = opts->split;
            const struct ht_split_sched_ops *ops = ht_split_scheduler_find(scheds[s]);
            int is_static = !scheds[s] || (ops && ops->kind == HT_SPLIT_SCHED_PLANNED);
            so.coexec.dim = d;
            so.coexec.scheduler = scheds[s];
            /* Always split, so that every scheduler is measured; refine and sweep the
             * static plan only. */
            so.force = 1;
            so.dump = NULL;
            so.refine = is_static ? opts->split.refine : 0;
            so.sweep = is_static ? opts->split.sweep : 0;
            rc = ht__split_once(&b, &so, 1, -1, &out->splits[out->nsplits++], err);
            out->verify_failed |= out->splits[out->nsplits - 1].verify_failed;
        }
    }
    ht_device_locks_release(&locks, &out->load);
    ht__split_base_destroy(&b);
    return rc;
}

int ht_workflow_run(const struct ht_spec *spec, const struct ht_device_info *const *devs,
                    size_t n, const struct ht_workflow_run_opts *opts,
                    struct ht_workflow_run_result *out, struct ht_error *err)
{
    struct ht_report_opts ropts;
    struct ht_store *store = NULL;
    unsigned dims;
    int rc;

    /* Emptied first: the caller destroys it whatever is returned. */
    if (out)
        memset(out, 0, sizeof *out);
    rc = ht__workflow_args("ht_workflow_run", spec, devs, n, opts, out, err);
    if (rc != HT_OK)
        return rc;
    ropts = opts->report;
    dims = opts->dims ? opts->dims : (1u << spec->space.ndims) - 1;
    if (n == 0)
        return ht_error_set(err, HT_EINVAL, "no device to run on");
    for (unsigned d = spec->space.ndims; d < 3; d++)
        if (dims & (1u << d))
            return ht_error_set(err, HT_EINVAL, "dimension %u: the NDRange of '%s' has %u "
                                "dimension%s", d, spec->name, spec->space.ndims,
                                spec->space.ndims == 1 ? "" : "s");
    if (spec->space.nparams == 0 || spec->space.nparams > HT_STORE_MAX_PARAMS)
        return ht_error_set(err, HT_EINVAL, "the spec has %zu parameters: the pipeline needs "
                            "1 to %d", spec->space.nparams, HT_STORE_MAX_PARAMS);
    /* One device: the pipeline has nothing to split, hence nothing to sweep (the README's
     * tour runs on any machine). */
    if (opts->split.sweep > 0 && n > 2)
        return ht_error_set(err, HT_EINVAL, "a sweep needs exactly two devices, not %zu",
                            n);
    if (opts->split.sweep > 0 && n == 1 && opts->split.on_note)
        opts->split.on_note("one device: nothing to split, so no sweep", opts->split.user);
    if (opts->split.dop)
        return ht_error_set(err, HT_EINVAL, "choosing the CPU compute units with the split "
                            "(auto) is hetune split's; the pipeline takes a count");
    rc = ht__coexec_precheck(&(struct ht__precheck){.n = n, .devs = devs,
                                                    .units = opts->split.coexec.cpu_units},
                             NULL, err);
    if (rc != HT_OK)
        return rc;
    /* What the spec alone says against the co-executions of step 3, before any tuning. */
    for (unsigned d = 0; n > 1 && d < spec->space.ndims; d++)
        for (size_t s = 0; (dims & (1u << d)) && s < (opts->schedulers ? opts->nschedulers : 1);
             s++) {
            rc = ht__coexec_precheck(&(struct ht__precheck){
                                         spec, d, opts->schedulers ? opts->schedulers[s] : NULL,
                                         n, NULL, 0},
                                     NULL, err);
            if (rc != HT_OK)
                return rc;
        }
    out->n = n;
    out->devs = calloc(n, sizeof *out->devs);
    out->steps = calloc(n, sizeof *out->steps);
    if (!out->devs || !out->steps)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        out->devs[i].dev = devs[i];

    rc = ht_workflow_open(opts->split.db, opts->split.store, opts->split.stop, spec, &store,
                          &out->problem_id, err);
    if (rc == HT_OK)
        rc = prune(spec, store, opts->split.coexec.exec.eq3, out, err);
    if (rc == HT_OK)
        rc = tune(spec, store, opts, out, err);
    if (rc == HT_OK && !out->stopped && out->n > 1)
        rc = split(spec, store, dims, opts, out, err);
    if (rc == HT_OK && !out->stopped) {
        ropts.spec = spec->name;
        rc = ht_report_write(store, opts->out ? opts->out : "report", &ropts, &out->report,
                             err);
    }
    ht_store_close(store);
    return rc;
}

size_t ht_workflow_run_coexecs(const struct ht_workflow_run_result *r,
                               struct ht_workflow_coexec *out)
{
    size_t k = 0;

    if (!r || !out)
        return 0;
    for (size_t i = 0; i < r->nsplits; i++) {
        const struct ht_workflow_split_result *s = &r->splits[i];
        out[k++] = (struct ht_workflow_coexec){s->res.dim, s->res.scheduler, s->split_id,
                                               &s->res, s->has_plan ? &s->plan : NULL,
                                               s->has_est ? s->est.split_s : -1,
                                               !s->has_est || s->est.worth_it, s->nsweep};
        if (s->has_refine && s->refine.best_refined)
            out[k++] = (struct ht_workflow_coexec){s->res.dim, "refined", s->refined_split_id,
                                                   &s->refine.best_res, &s->refine.best_plan,
                                                   -1, 1, 0};
    }
    return k;
}
