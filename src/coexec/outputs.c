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
#include "supervise/watch.h"
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

int ht__coexec_round(struct ht_coexec *cx, const struct ht__round *r,
                     struct ht_coexec_result *res, struct ht_error *err)
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
