/* The whole of `hetune split` as a library function (workflow.h): best configurations,
 * devices alone, the split-or-alone decision, the run, verification, storing, the
 * refinement rounds and the sweep. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/workflow.h"

void ht_workflow_split_opts_init(struct ht_workflow_split_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    ht_coexec_opts_init(&opts->coexec);
    opts->refine_by = HT_REFINE_WALL;
}

void ht_workflow_split_result_destroy(struct ht_workflow_split_result *r)
{
    if (!r)
        return;
    free(r->devs);
    ht_coexec_result_destroy(&r->res);
    ht_split_plan_destroy(&r->plan);
    ht_workflow_refine_free(&r->refine);
    free(r->sweep);
    memset(r, 0, sizeof *r);
}

/* The refinement after the first run, and the fastest alone when it measures that better.
 * alone_cx and alone_res are each device's run alone (the result may take one). */
static int refine_step(const struct ht_spec *spec, struct ht_store *store, int64_t problem_id,
                       struct ht_coexec *cx, struct ht_coexec **alone_cx,
                       struct ht_coexec_result *alone_res, const struct ht_coexec_alone *alone,
                       const struct ht_workflow_split_opts *opts,
                       struct ht_workflow_split_result *out, struct ht_error *err)
{
    struct ht_workflow_refine *rf = &out->refine;
    size_t n = out->n, k;
    int rc;

    (void)spec;
    out->has_refine = 1;
    rc = ht_workflow_refine_run(cx, alone, &out->res, out->fastest, opts->refine,
                                opts->refine_by, opts->on_verify, opts->user, rf, err);
    for (size_t r = 0; r < rf->nrounds; r++)
        out->verify_failed |= rf->verified[r] == 0;
    if (rc == HT_OK && rf->best_refined) {
        int64_t refined_id = 0;
        rc = ht_workflow_store_split(store, problem_id, out->devs, n, out->fastest,
                                     &rf->best_res, &rf->best_plan, 0, 1.0, &refined_id, err);
        if (rc == HT_OK && rf->best == rf->best_refined) {
            /* The refined round is the result: swap it in. */
            struct ht_coexec_result t = out->res;
            struct ht_split_plan tp = out->plan;
            out->res = rf->best_res;
            rf->best_res = t;
            out->plan = rf->best_plan;
            rf->best_plan = tp;
            out->split_id = refined_id;
        }
    }
    if (rc != HT_OK)
        return rc;
    /* Measured: when no round beat the fastest device alone (by the refinement's target),
     * or the best gave one device all the work, that device runs alone, unless forced. */
    k = opts->force ? SIZE_MAX : ht_workflow_refine_alone(rf, alone);
    if (k == SIZE_MAX)
        return HT_OK;
    out->fastest = k;
    ht_coexec_result_destroy(&out->res);
    out->res = alone_res[k];
    memset(&alone_res[k], 0, sizeof alone_res[k]);
    ht_split_plan_destroy(&out->plan);
    out->has_plan = 0;
    out->ran_alone = out->measured_alone = 1;
    rc = ht_coexec_verify(alone_cx[k], 0, &out->res, err);
    if (rc == HT_OK)
        rc = ht_workflow_store_split(store, problem_id, out->devs, n, k, &out->res, NULL, 1,
                                     1.0, &out->split_id, err);
    return rc;
}

int ht_workflow_split(const struct ht_spec *spec, const struct ht_device_info *const *devs,
                      size_t n, const struct ht_workflow_split_opts *opts,
                      struct ht_workflow_split_result *out, struct ht_error *err)
{
    struct ht_tune_opts topts;
    struct ht_workflow_best_opts bo;
    struct ht_store *store = NULL;
    struct ht_coexec **alone_cx = NULL, *cx = NULL, *used;
    struct ht_coexec_device *cdevs = NULL;
    struct ht_coexec_alone *alone = NULL;
    struct ht_coexec_result *alone_res = NULL;
    int64_t kernel_id = 0, problem_id = 0;
    double paper_theoretical_s = -1, paper_adjusted_s = -1;
    int rc;

    memset(out, 0, sizeof *out);
    out->eq4_factor = -1;
    if (n == 0)
        return ht_error_set(err, HT_EINVAL, "no device to split over");
    if (opts->sweep > 0 && n != 2)
        return ht_error_set(err, HT_EINVAL, "a sweep needs exactly two devices, not %zu", n);
    if (opts->tune) {
        topts = *opts->tune;
    } else {
        ht_tune_opts_init(&topts);
        topts.eq3 = opts->coexec.exec.eq3;
        topts.exec = opts->coexec.exec;
    }
    out->n = n;
    out->devs = calloc(n, sizeof *out->devs);
    cdevs = calloc(n, sizeof *cdevs);
    alone = calloc(n, sizeof *alone);
    alone_cx = calloc(n, sizeof *alone_cx);
    alone_res = calloc(n, sizeof *alone_res);
    if (!out->devs || !cdevs || !alone || !alone_cx || !alone_res) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }

    /* Each device's best configuration, tuning first where the database has none. */
    memset(&bo, 0, sizeof bo);
    bo.tune_missing = 1;
    bo.topts = &topts;
    bo.unverified = spec->verify == HT_VERIFY_NONE || topts.exec.no_verify;
    bo.on_tune = opts->on_tune;
    bo.user = opts->user;
    rc = ht_store_open(opts->db ? opts->db : HT_STORE_DEFAULT_PATH, &store, err);
    if (rc == HT_OK)
        rc = ht_store_kernel_id(store, spec, &kernel_id, err);
    if (rc == HT_OK)
        rc = ht_store_problem_id(store, kernel_id, spec, &problem_id, err);
    for (size_t i = 0; rc == HT_OK && i < n; i++) {
        out->devs[i].dev = devs[i];
        rc = ht_workflow_best(spec, store, problem_id, &bo, &out->devs[i], err);
    }
    if (rc != HT_OK)
        goto cleanup;

    /* Every device alone, with the co-execution's own wall clock. */
    for (size_t i = 0; i < n; i++) {
        rc = ht_workflow_alone(spec, &out->devs[i], &opts->coexec, &alone_cx[i],
                               &alone_res[i], err);
        if (rc != HT_OK)
            goto cleanup;
        alone[i] = out->devs[i].alone;
        if (out->devs[i].alone.wall_s < out->devs[out->fastest].alone.wall_s)
            out->fastest = i;
    }
    for (size_t i = 0; i < n; i++) {
        cdevs[i].dev = out->devs[i].dev;
        cdevs[i].config = out->devs[i].config;
        cdevs[i].time_s = out->devs[i].tuned_s;
    }
    rc = ht_coexec_create(spec, cdevs, n, &opts->coexec, &cx, err);
    if (rc != HT_OK)
        goto cleanup;
    /* Each device's link as `hetune devices --bandwidth` measured it, when it did: the bus
     * models then turn bytes into seconds at its rates. */
    for (size_t i = 0; i < n; i++) {
        struct ht_bandwidth bw;
        int64_t dev_id;
        if (ht_store_device_id(store, out->devs[i].dev, &dev_id, NULL) == HT_OK &&
            ht_store_get_bandwidth(store, dev_id, &bw, NULL) == HT_OK &&
            bw.path == ht_data_path_resolve(opts->coexec.exec.data_path, out->devs[i].dev))
            ht_coexec_set_bandwidth(cx, i, &bw, NULL);
    }
    if (n > 1 && ht_coexec_estimate(cx, alone, &out->est, NULL) == HT_OK) {
        out->has_est = 1;
        out->fastest = out->est.fastest;
        out->ran_alone = !out->est.worth_it && !opts->force;
        /* The plan that knows the bus: the one the estimate predicted. */
        if (!out->ran_alone && !opts->paper_plan &&
            !strcmp(ht_split_sched_get_ops(ht_coexec_sched(cx))->name, "static")) {
            paper_theoretical_s = ht_coexec_plan(cx)->theoretical_time_s;
            paper_adjusted_s = ht_coexec_plan(cx)->adjusted_time_s;
            rc = ht_coexec_plan_bus(cx, alone, err);
            if (rc != HT_OK)
                goto cleanup;
            out->bus_plan = 1;
        }
    }
    used = out->ran_alone ? alone_cx[out->fastest] : cx;
    if (out->ran_alone) {
        /* Its run alone is the result: hand it over. */
        out->res = alone_res[out->fastest];
        memset(&alone_res[out->fastest], 0, sizeof alone_res[out->fastest]);
    } else {
        rc = ht_coexec_run(used, &out->res, err);
        if (rc != HT_OK)
            goto cleanup;
        if (out->bus_plan) {
            /* Algorithm 1 stays the paper's figure, from the tuned times. */
            out->res.theoretical_s = paper_theoretical_s;
            out->res.adjusted_s = paper_adjusted_s;
        }
    }
    rc = ht_coexec_verify(used, out->ran_alone ? 0 : out->fastest, &out->res, err);
    if (rc == HT_EVERIFY) {
        out->verify_failed = 1;
        ht_error_clear(err);
        rc = HT_OK;
    }
    if (rc != HT_OK)
        goto cleanup;
    if (opts->dump)
        ht_coexec_dump(used, opts->dump, &out->dump_err);
    /* A copy: a sweep replaces the co-execution's scheduler and its plan. */
    if (!out->ran_alone && ht_coexec_plan(cx)) {
        rc = ht_workflow_plan_copy(&out->plan, ht_coexec_plan(cx), err);
        if (rc != HT_OK)
            goto cleanup;
        out->has_plan = 1;
    }
    rc = ht_workflow_store_split(store, problem_id, out->devs, n, out->fastest, &out->res,
                                 out->has_plan ? &out->plan : NULL, out->ran_alone, 1.0,
                                 &out->split_id, err);
    if (rc != HT_OK)
        goto cleanup;
    out->first_split_id = out->split_id;
    out->eq4_factor = out->has_plan ? out->plan.slices[0].optimal_factor : -1;

    if (opts->refine && !out->ran_alone) {
        rc = refine_step(spec, store, problem_id, cx, alone_cx, alone_res, alone, opts, out,
                         err);
        if (rc != HT_OK)
            goto cleanup;
    }

    if (opts->sweep > 0) {
        size_t npoints = ht_workflow_sweep_points(opts->sweep);
        /* A refined round left its fitted models in cx: the sweep's plans (and their
         * theoretical times) come from the tuned times. */
        ht_coexec_reset_models(cx);
        out->sweep = calloc(npoints, sizeof *out->sweep);
        if (!out->sweep) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
        for (size_t k = 0; k < npoints; k++) {
            rc = ht_workflow_sweep_point(cx, k, opts->sweep, out->fastest, store,
                                         out->first_split_id, opts->on_verify, opts->user,
                                         &out->sweep[k], err);
            if (rc != HT_OK)
                goto cleanup;
            out->verify_failed |= out->sweep[k].verified == 0;
            out->nsweep = k + 1;
        }
    }

cleanup:
    ht_coexec_free(cx);
    for (size_t i = 0; alone_cx && i < n; i++)
        ht_coexec_free(alone_cx[i]);
    for (size_t i = 0; alone_res && i < n; i++)
        ht_coexec_result_destroy(&alone_res[i]);
    free(alone_res);
    free(alone_cx);
    free(alone);
    free(cdevs);
    ht_store_close(store);
    return rc;
}
