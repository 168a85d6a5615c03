/* A co-execution's merged outputs: verified against one device's run alone through an
 * exec session, dumped, read. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coexec-internal.h"
#include "exec/engine.h"
#include "util/util.h"

/* Runs device ref alone once through an exec session and keeps its written buffers in
 * cx->refs. */
static int reference_run(struct ht_coexec *cx, size_t ref, struct ht_error *err)
{
    const struct ht_spec *spec = cx->spec;
    const struct cxdev *d = &cx->devs[ref];
    struct ht_spec once;
    struct ht_session *s = NULL;
    struct ht_eval_result *ev = NULL;
    struct ht_error e;
    int rc;

    cx->have_refs = 0;
    /* One run is enough for outputs: a copy of the spec that repeats once. It shares every
     * pointer with spec, which outlives it; the session only reads it. */
    once = *spec;
    once.repeats = 1;
    once.keep_best = 1;
    ev = calloc(1, sizeof *ev);
    if (!ev)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    ht_error_clear(&e);
    rc = ht_session_create(&once, d->dev, &cx->opts.exec, &s, &e);
    if (rc == HT_OK)
        rc = ht_session_eval(s, d->config, ev, &e);
    if (rc != HT_OK) {
        if (err && !err->code) {
            err->cl_status = e.cl_status;
            snprintf(err->field, sizeof err->field, "%s", e.field);
        }
        ht_error_set(err, rc, "single-device run on device %zu (%s): %s", d->dev->index,
                     d->dev->name, e.text);
        goto cleanup;
    }
    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *arg = &spec->args[i];
        struct ht__hostbuf *r = &cx->refs[i];
        size_t bytes;
        if (!arg->is_buffer || arg->access == HT_ACCESS_READ)
            continue;
        bytes = s->outputs[i].count * ht_type_size(arg->type);
        free(r->data);
        *r = s->outputs[i];
        memset(&r->mem, 0, sizeof r->mem); /* refs are plain memory of their own */
        r->data = malloc(bytes ? bytes : 1);
        if (!r->data) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
        memcpy(r->data, s->outputs[i].data, bytes);
    }
    cx->have_refs = 1;
    cx->ref_device = ref;
cleanup:
    if (ev)
        ht_eval_result_destroy(ev);
    free(ev);
    ht_session_free(s);
    return rc;
}

int ht__coexec_verify(struct ht_coexec *cx, size_t ref, struct ht_coexec_result *res,
                      struct ht_error *err)
{
    const struct ht_spec *spec = cx->spec;
    struct ht__cmp c;
    int rc;

    res->verified = -1;
    if (cx->opts.exec.no_verify)
        return HT_OK;
    if (!cx->have_outputs)
        return ht_error_set(err, HT_EINVAL, "nothing to verify: no co-execution ran");
    if (ref >= cx->n)
        return ht_error_set(err, HT_EINVAL, "reference device %zu out of range", ref);
    /* The single-device outputs do not change between runs (the inputs are fixed): a
     * sweep verifies every point against one reference run. */
    if (!cx->have_refs || cx->ref_device != ref) {
        rc = reference_run(cx, ref, err);
        if (rc != HT_OK)
            return rc;
    }
    snprintf(res->reference, sizeof res->reference,
             "one run of device %zu (%s) alone at its configuration",
             cx->devs[ref].dev->index, cx->devs[ref].dev->name);
    /* A co-executed spec is no pipeline, so it has no temp buffers to leave out. */
    ht__compare_outputs(spec, cx->outputs, cx->refs, &c);
    res->verified = c.mismatches == 0;
    res->max_abs_err = c.max_abs;
    res->max_rel_err = c.max_rel;
    res->mismatches = c.mismatches;
    snprintf(res->mismatch, sizeof res->mismatch, "%s", c.first);
    if (c.mismatches)
        return ht_error_set(err, HT_EVERIFY,
                            "merged output differs from the single-device run: %zu of %zu "
                            "elements; first %s",
                            c.mismatches, c.compared, c.first);
    return HT_OK;
}

int ht__coexec_dump(const struct ht_coexec *cx, const char *dir, struct ht_error *err)
{
    if (!cx->have_outputs)
        return ht_error_set(err, HT_EINVAL, "no outputs to dump: no co-execution ran");
    return ht__dump_outputs(cx->spec, cx->outputs, dir, err);
}

const void *ht__coexec_output(const struct ht_coexec *cx, size_t arg, size_t *count)
{
    if (!cx->have_outputs || arg >= cx->spec->nargs || !cx->outputs[arg].data)
        return NULL;
    if (count)
        *count = cx->outputs[arg].count;
    return cx->outputs[arg].data;
}

int ht__coexec_check(struct ht_coexec *cx, size_t ref, struct ht_coexec_result *res,
                     const char *dump, struct ht_error *verr, struct ht_error *derr)
{
    int rc = ht__coexec_verify(cx, ref, res, verr);

    if (dump && (rc == HT_OK || rc == HT_EVERIFY))
        ht__coexec_dump(cx, dump, derr);
    return rc;
}

int ht__coexec_plan_copy(struct ht_split_plan *dst, const struct ht_split_plan *src,
                         struct ht_error *err)
{
    memset(dst, 0, sizeof *dst);
    if (!src)
        return HT_OK;
    *dst = *src;
    dst->slices = malloc(src->ndevices * sizeof *dst->slices);
    if (!dst->slices) {
        memset(dst, 0, sizeof *dst);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    memcpy(dst->slices, src->slices, src->ndevices * sizeof *dst->slices);
    return HT_OK;
}

/* One measured round: what changes the plan first (at most one of factors and from), the
 * run, the verification. */
struct round {
    const double *factors;     /* not NULL: static at these split factors first
                                  (ht__coexec_set_factors: a sweep's point) */
    const struct ht_coexec_result *from; /* not NULL: the plan refined first from this run
                                  (ht__coexec_refine with alone and target) */
    const struct ht_coexec_alone *alone;
    enum ht_refine_target target;
    int reset_models;          /* 1: every device's time model back to its tuned time
                                  before anything (ht__coexec_reset_models: a sweep's first
                                  point after a refinement) */
    size_t ref;                /* the device the outputs are verified against */
    struct ht_split_plan *plan; /* not NULL: a copy of the plan the round ran, zeroed first
                                  and left so when cx has none or nothing ran; the
                                  caller's (ht_split_plan_destroy) */
    double *model_s;           /* not NULL: 2 per device of cx, the time model and the
                                  overhead the round was planned by (as
                                  ht__decision.model_s), set once the plan changed */
};

/* Makes round r on cx: the change of plan it asks, ht__coexec_run into res (which need not
 * be initialised; the caller destroys it with ht_coexec_result_destroy whatever is
 * returned), then ht__coexec_verify against r->ref. Returns HT_DONE when the refinement
 * converged (nothing run, res untouched), HT_EVERIFY when the outputs differ (res filled,
 * err says how), else the first error of the steps. */
static int round_make(struct ht_coexec *cx, const struct round *r, struct ht_coexec_result *res,
                      struct ht_error *err)
{
    int rc = HT_OK;

    if (r->plan)
        memset(r->plan, 0, sizeof *r->plan);
    if (r->reset_models)
        ht__coexec_reset_models(cx);
    if (r->factors)
        rc = ht__coexec_set_factors(cx, r->factors, err);
    else if (r->from)
        rc = ht__coexec_refine(cx, r->alone, r->from, r->target, err);
    if (rc != HT_OK)
        return rc;
    if (r->model_s)
        ht__coexec_models(cx, r->model_s);
    rc = ht__coexec_run(cx, res, err);
    if (rc == HT_OK && r->plan)
        rc = ht__coexec_plan_copy(r->plan, ht__coexec_plan(cx), err);
    if (rc == HT_OK)
        rc = ht__coexec_verify(cx, r->ref, res, err);
    return rc;
}

/* The round just made, told to r->made: rc HT_EVERIFY (err says how the outputs differ)
 * is told as verr and cleared from err, so that a later error is err's own. verr lives
 * here only, so the told round is a copy of m that holds its address. */
static int round_tell(const struct ht__rounds *r, const struct ht__round_made *m, int rc,
                      struct ht_error *err)
{
    struct ht__round_made told = *m;
    struct ht_error verr;

    if (rc == HT_EVERIFY) {
        ht_error_clear(&verr);
        if (err)
            verr = *err;
        else
            verr.code = HT_EVERIFY;
        ht_error_clear(err);
        told.verr = &verr;
        rc = HT_OK;
    }
    return rc == HT_OK ? r->made(r->user, &told, err) : rc;
}

/* A refinement's rounds: each refined from the last run (r->first for round 1). */
static int refine_rounds(struct ht_coexec *cx, const struct ht__rounds *r, struct ht_error *err)
{
    size_t n = r->first->ndevices;
    struct ht_coexec_result res, prev;
    struct ht_split_plan plan;
    double *models = calloc(2 * (n ? n : 1), sizeof *models);
    int rc = HT_OK, have_prev = 0;

    if (!models)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    memset(&prev, 0, sizeof prev);
    for (unsigned k = 1; k <= r->refine; k++) {
        memset(&res, 0, sizeof res);
        rc = round_make(cx, &(struct round){.from = have_prev ? &prev : r->first,
                                            .alone = r->alone, .target = r->target,
                                            .ref = r->ref, .plan = &plan, .model_s = models},
                        &res, err);
        if (rc == HT_DONE)
            break;
        if (rc == HT_OK || rc == HT_EVERIFY) {
            res.theoretical_s = r->first->theoretical_s;
            snprintf(res.scheduler, sizeof res.scheduler, "refined");
        }
        rc = round_tell(r, &(struct ht__round_made){.k = k, .res = &res, .model_s = models,
                                                    .plan = &plan},
                        rc, err);
        ht_split_plan_destroy(&plan);
        if (have_prev)
            ht_coexec_result_destroy(&prev);
        /* The next round is refined from this one's run. */
        prev = res;
        have_prev = 1;
        if (rc != HT_OK)
            break;
    }
    if (have_prev)
        ht_coexec_result_destroy(&prev);
    free(models);
    return rc;
}

/* A sweep's points, at device 0's factor min(k step, 1). */
static int sweep_rounds(struct ht_coexec *cx, const struct ht__rounds *r, struct ht_error *err)
{
    for (size_t k = 0; k < r->npoints; k++) {
        struct ht_coexec_result res;
        double f[2];
        int rc;

        memset(&res, 0, sizeof res);
        f[0] = (double)k * r->step > 1.0 ? 1.0 : (double)k * r->step;
        f[1] = 1.0 - f[0];
        /* A refined round left its fitted models in cx: the first point gives them back. */
        rc = round_make(cx, &(struct round){.factors = f, .reset_models = k == 0,
                                            .ref = r->ref},
                        &res, err);
        rc = round_tell(r, &(struct ht__round_made){.k = k, .factor = f[0], .res = &res},
                        rc, err);
        ht_coexec_result_destroy(&res);
        if (rc != HT_OK)
            return rc;
    }
    return HT_OK;
}

int ht__coexec_rounds(struct ht_coexec *cx, const struct ht__rounds *r, struct ht_error *err)
{
    return r->refine ? refine_rounds(cx, r, err) : sweep_rounds(cx, r, err);
}
