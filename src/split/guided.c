/* The guided scheduler (OpenMP's guided schedule, weighted by speed): an idle device takes
 * half of its speed share of what remains, so chunks shrink as the work runs out and the
 * last ones are small enough for the devices to finish together. A device's speed is first
 * its time alone (1/time_s; all equal when a time is unknown), then, once it has finished
 * chunks, the work-items per second it measured: a wrong first guess costs at most the
 * first chunk. At least one work-group at a time (a CPU: one per compute unit). A device
 * whose next chunk would take longer than the other devices need for all the remaining
 * work stops taking work, since it could only finish last; the device with the fastest
 * time alone (the anchor) never stops, so that the work always gets done. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "split-internal.h"

struct guided {
    double *prior;     /* speed from time alone, work-items per second (or 1) */
    double *items;     /* measured: work-items done in this run */
    double *seconds;   /* measured: seconds they took */
    size_t anchor;     /* the device with the fastest prior: it never stops taking work
                          (whatever the measurements say later, so that one device always
                          finishes the work) */
};

static int guided_init(struct ht_split_sched *s, struct ht_error *err)
{
    struct guided *g;
    int all_times = 1;

    for (size_t i = 0; i < s->n; i++) {
        if (s->global % s->devs[i].wg)
            return ht_error_set(err, HT_EINVAL,
                                "work-group size %" PRIu64 " of device %zu does not divide "
                                "the global size %" PRIu64 " (Eq. 2)",
                                s->devs[i].wg, i, s->global);
        if (!(s->devs[i].time_s > 0) || !isfinite(s->devs[i].time_s))
            all_times = 0;
    }
    g = calloc(1, sizeof *g);
    if (!g)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    g->prior = calloc(s->n, sizeof *g->prior);
    g->items = calloc(s->n, sizeof *g->items);
    g->seconds = calloc(s->n, sizeof *g->seconds);
    if (!g->prior || !g->items || !g->seconds) {
        free(g->prior);
        free(g->items);
        free(g->seconds);
        free(g);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < s->n; i++) {
        g->prior[i] = all_times ? (double)s->global / s->devs[i].time_s : 1.0;
        if (g->prior[i] > g->prior[g->anchor])
            g->anchor = i;
    }
    s->priv = g;
    return HT_OK;
}

static void guided_reset(struct ht_split_sched *s)
{
    struct guided *g = s->priv;

    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->n; i++)
        g->items[i] = g->seconds[i] = 0.0;
    pthread_mutex_unlock(&s->lock);
}

/* Device i's speed in work-items per second: measured when it has finished work in this
 * run, else its prior (the same unit: the whole problem over its time alone). */
static double speed(const struct guided *g, size_t i)
{
    if (g->seconds[i] > 0 && g->items[i] > 0)
        return g->items[i] / g->seconds[i];
    return g->prior[i];
}

static int guided_next(struct ht_split_sched *s, size_t device, struct ht_split_chunk *out)
{
    struct guided *g = s->priv;
    const struct ht_split_sched_device *d = &s->devs[device];
    uint64_t next = atomic_load(&s->next), remaining, groups, min_groups;
    double total = 0.0, mine, others;

    if (next >= s->global)
        return HT_DONE;
    remaining = s->global - next;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->n; i++)
        total += speed(g, i);
    mine = speed(g, device);
    pthread_mutex_unlock(&s->lock);
    others = total - mine;
    groups = (uint64_t)floor((double)remaining * (total > 0 ? mine / total : 0.0) / 2.0 /
                             (double)d->wg);
    min_groups = d->is_gpu ? 1 : (d->compute_units ? d->compute_units : 1);
    if (groups < min_groups)
        groups = min_groups;
    /* A device whose chunk would take longer than the others need for everything that
     * remains only delays the end (a CPU hundreds of times slower than a GPU, whose
     * smallest chunk is still too much): it stops taking work. The anchor never stops, so
     * the work always gets done. */
    if (device != g->anchor && others > 0 && mine > 0 &&
        (double)(groups * d->wg) / mine >= (double)remaining / others)
        return HT_DONE;
    /* Another device may have taken work since `remaining` was read: take then decides. */
    return ht__sched_take(s, d->wg, groups * d->wg, out);
}

static void guided_report(struct ht_split_sched *s, size_t device, const struct ht_split_chunk *c,
                          double seconds)
{
    struct guided *g = s->priv;

    if (!(seconds > 0))
        return;
    pthread_mutex_lock(&s->lock);
    g->items[device] += (double)c->size;
    g->seconds[device] += seconds;
    pthread_mutex_unlock(&s->lock);
}

static void guided_destroy(struct ht_split_sched *s)
{
    struct guided *g = s->priv;

    if (g) {
        free(g->prior);
        free(g->items);
        free(g->seconds);
        free(g);
    }
    s->priv = NULL;
}

const struct ht_split_sched_ops ht__sched_guided = {
    .name = "guided",
    .description = "chunks that shrink as work runs out, proportional to each device's speed",
    .init = guided_init,
    .reset = guided_reset,
    .next = guided_next,
    .report = guided_report,
    .destroy = guided_destroy,
    .kind = HT_SPLIT_SCHED_ON_DEMAND,
};
