/* The scheduler registry and the state every scheduler shares: the devices, the paper's
 * plan (for Algorithm 1's theoretical time), the shared work counter of the chunked
 * schedulers and the tail rule. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "split-internal.h"

const struct ht_split_sched_ops *const ht_split_schedulers[] = {
    &ht__sched_static,
    &ht__sched_dynamic,
    &ht__sched_guided,
    NULL,
};

/* Beyond 2^53 doubles no longer hold every work-item count exactly (plan.c's limit). */
#define MAX_GLOBAL (UINT64_C(1) << 53)

void ht__split_sched_opts_init(struct ht_split_sched_opts *opts)
{
    memset(opts, 0, sizeof *opts);
}

const struct ht_split_sched_ops *ht_split_scheduler_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; ht_split_schedulers[i]; i++)
        if (strcmp(ht_split_schedulers[i]->name, name) == 0)
            return ht_split_schedulers[i];
    return NULL;
}

static int unknown_scheduler(const char *name, struct ht_error *err)
{
    char list[256];
    size_t len = 0;

    list[0] = '\0';
    for (size_t i = 0; ht_split_schedulers[i] && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                ht_split_schedulers[i]->name);
    if (err && !err->code)
        snprintf(err->field, sizeof err->field, "scheduler");
    return ht_error_set(err, HT_EINVAL, "unknown scheduler '%s' (one of %s)", name, list);
}

void ht_split_sched_free(struct ht_split_sched *s)
{
    if (!s)
        return;
    if (s->ops && s->ops->destroy)
        s->ops->destroy(s);
    pthread_mutex_destroy(&s->lock);
    ht_split_plan_destroy(&s->plan);
    free(s->devs);
    free(s->factors);
    free(s);
}

const struct ht_split_sched_ops *ht__split_sched_planner(void)
{
    for (size_t i = 0; ht_split_schedulers[i]; i++)
        if (ht_split_schedulers[i]->kind == HT_SPLIT_SCHED_PLANNED)
            return ht_split_schedulers[i];
    return NULL; /* not reached: static.c's is registered */
}

int ht_split_sched_create(const char *name, uint64_t global,
                          const struct ht_split_sched_device *devs, size_t n,
                          const struct ht_split_sched_opts *opts, struct ht_split_sched **out,
                          struct ht_error *err)
{
    const struct ht_split_sched_ops *ops = name ? ht_split_scheduler_find(name)
                                                : ht__split_sched_planner();

    if (out)
        *out = NULL;
    if (!out || (n && !devs))
        return ht_error_set(err, HT_EINVAL, "ht_split_sched_create: %s is NULL",
                            !out ? "out" : "devs");
    if (!ops)
        return unknown_scheduler(name ? name : "(none)", err);
    return ht__split_sched_create_ops(ops, global, devs, n, opts, out, err);
}

int ht__split_sched_create_ops(const struct ht_split_sched_ops *ops, uint64_t global,
                               const struct ht_split_sched_device *devs, size_t n,
                               const struct ht_split_sched_opts *opts,
                               struct ht_split_sched **out, struct ht_error *err)
{
    struct ht_split_sched *s;
    struct ht_split_device_in *in = NULL;
    struct ht_split_plan_opts popts;
    int all_times = 1, rc;

    *out = NULL;
    if (n == 0 || !devs)
        return ht_error_set(err, HT_EINVAL, "no devices to split between");
    if (global == 0 || global > MAX_GLOBAL)
        return ht_error_set(err, HT_EINVAL, "global size %" PRIu64 " out of range (1 to 2^53)",
                            global);
    for (size_t i = 0; i < n; i++) {
        if (devs[i].wg == 0) {
            if (err && !err->code)
                snprintf(err->field, sizeof err->field, "devices[%zu].wg", i);
            return ht_error_set(err, HT_EINVAL, "work-group size of device %zu is 0", i);
        }
        if (!(devs[i].time_s > 0) || !isfinite(devs[i].time_s))
            all_times = 0;
    }
    s = calloc(1, sizeof *s);
    if (!s)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    pthread_mutex_init(&s->lock, NULL);
    s->global = global;
    s->n = n;
    s->chunk_fraction = opts ? opts->chunk_fraction : 0.0;
    s->devs = malloc(n * sizeof *s->devs);
    if (!s->devs) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto fail;
    }
    memcpy(s->devs, devs, n * sizeof *s->devs);
    if (opts && opts->factors) {
        s->factors = malloc(n * sizeof *s->factors);
        if (!s->factors) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto fail;
        }
        memcpy(s->factors, opts->factors, n * sizeof *s->factors);
    }
    if (all_times || s->factors) {
        in = malloc(n * sizeof *in);
        if (!in) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto fail;
        }
        for (size_t i = 0; i < n; i++) {
            in[i].wg = devs[i].wg;
            /* The planner needs positive times even with factors (they only break ties
             * and give the theoretical time, which is then meaningless: 1 s each). */
            in[i].time_s = all_times ? devs[i].time_s : 1.0;
            in[i].overhead_s = all_times ? devs[i].overhead_s : 0.0;
        }
        popts.factors = s->factors;
        popts.residue = opts ? opts->residue : HT_SPLIT_RESIDUE_WORK;
        rc = ht_split_plan_make(global, in, n, &popts, &s->plan, err);
        if (rc != HT_OK)
            goto fail;
        s->has_plan = 1;
        if (!all_times)
            s->plan.theoretical_time_s = s->plan.adjusted_time_s = -1.0;
    }
    s->ops = ops;
    rc = ops->init(s, err);
    if (rc != HT_OK) {
        s->ops = NULL; /* nothing of its own to destroy */
        goto fail;
    }
    ht_split_sched_reset(s);
    free(in);
    *out = s;
    return HT_OK;
fail:
    free(in);
    ht_split_sched_free(s);
    return rc;
}

const struct ht_split_sched_ops *ht__split_sched_get_ops(const struct ht_split_sched *s)
{
    return s->ops;
}

void ht_split_sched_reset(struct ht_split_sched *s)
{
    if (!s)
        return;
    atomic_store(&s->next, 0);
    if (s->ops->reset)
        s->ops->reset(s);
}

int ht_split_sched_next(struct ht_split_sched *s, size_t device, struct ht_split_chunk *out)
{
    if (!out)
        return HT_EINVAL;
    memset(out, 0, sizeof *out);
    if (!s)
        return HT_EINVAL;
    if (device >= s->n)
        return HT_DONE;
    return s->ops->next(s, device, out);
}

void ht_split_sched_report(struct ht_split_sched *s, size_t device,
                           const struct ht_split_chunk *c, double seconds)
{
    if (s && c && device < s->n && s->ops->report)
        s->ops->report(s, device, c, seconds);
}

const struct ht_split_plan *ht_split_sched_plan(const struct ht_split_sched *s)
{
    return s && s->has_plan ? &s->plan : NULL;
}

int ht__sched_take(struct ht_split_sched *s, uint64_t wg, uint64_t size,
                   struct ht_split_chunk *out)
{
    const uint64_t g = s->global;
    uint64_t cur = atomic_load(&s->next), len, end;

    do {
        if (cur >= g)
            return HT_DONE;
        len = size;
        if (len > g - cur)
            len = (g - cur + wg - 1) / wg * wg; /* what remains, in whole work-groups */
        end = cur + len > g ? g : cur + len;
    } while (!atomic_compare_exchange_weak(&s->next, &cur, end));
    if (cur + len <= g) {
        out->offset = cur;
        out->size = len;
    } else {
        /* The tail is not a whole number of this device's work-groups: end the chunk at
         * g, as Eq. 9's residue device does, recomputing up to wg - 1 work-items that
         * another device owns. len <= g because wg divides g. */
        out->offset = g - len;
        out->size = len;
    }
    out->own_offset = cur;
    out->own_size = end - cur;
    return HT_OK;
}
