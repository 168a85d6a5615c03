/* The split planner on given numbers (workflow.h, `hetune plan`): Algorithm 1 on the
 * kernels, and with the bus each device's busy model, the plan on those, the
 * transfer-aware bound and the split-or-alone decision. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/workflow.h"

void ht_workflow_plan_result_destroy(struct ht_workflow_plan_result *r)
{
    if (!r)
        return;
    ht_split_plan_destroy(&r->plan);
    free(r->shares);
    memset(r, 0, sizeof *r);
}

/* Prefixes err's field with the device it is about: "devices[i].xfer_s". */
static int device_field(int rc, size_t i, struct ht_error *err)
{
    char field[64];

    snprintf(field, sizeof field, "devices[%zu].%.32s", i, err->field);
    snprintf(err->field, sizeof err->field, "%s", field);
    return rc;
}

int ht_workflow_plan(uint64_t global, const struct ht_split_device_in *devs, size_t n,
                     const struct ht_workflow_plan_opts *opts,
                     struct ht_workflow_plan_result *out, struct ht_error *err)
{
    static const struct ht_workflow_plan_opts none;
    const struct ht_workflow_plan_opts *o = opts ? opts : &none;
    const struct ht_split_plan_opts *popts = o->plan;
    const struct ht_split_bus *bus = o->bus;
    double margin = o->margin;
    struct ht_split_plan kplan = {0};
    struct ht_split_device_in *busy = NULL;
    double *alone = NULL;
    int rc;

    /* Emptied first: the caller destroys it whatever is returned. */
    if (out)
        memset(out, 0, sizeof *out);
    if ((n && !devs) || !out)
        return ht_error_set(err, HT_EINVAL, "ht_workflow_plan: %s is NULL",
                            !out ? "out" : "devs");
    if (!bus)
        return ht_split_plan_make(global, devs, n, popts, &out->plan, err);
    out->bus = 1;
    out->margin = margin;
    busy = calloc(n ? n : 1, sizeof *busy);
    alone = calloc(n ? n : 1, sizeof *alone);
    out->shares = calloc(n ? n : 1, sizeof *out->shares);
    if (!busy || !alone || !out->shares) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        busy[i].wg = devs[i].wg;
        if ((rc = ht_split_bus_model(&bus[i], &busy[i], err)) != HT_OK) {
            device_field(rc, i, err);
            goto cleanup;
        }
        alone[i] = busy[i].time_s;
    }
    /* Algorithm 1 stays the paper's figure, on the kernels alone; the plan, the bound and
     * the decision are on the busy models. */
    rc = ht_split_plan_make(global, devs, n, popts, &kplan, err);
    if (rc == HT_OK)
        rc = ht_split_plan_make(global, busy, n, popts, &out->plan, err);
    if (rc == HT_OK)
        rc = ht_split_bound(busy, n, &out->bound_s, out->shares, err);
    if (rc == HT_OK)
        rc = ht_split_decide(out->plan.model_time_s, alone, n, margin, &out->dec, err);
    out->kernel_theoretical_s = kplan.theoretical_time_s;

cleanup:
    ht_split_plan_destroy(&kplan);
    free(busy);
    free(alone);
    return rc;
}
