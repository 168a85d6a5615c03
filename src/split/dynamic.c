/* The dynamic scheduler (Dopia §7): a shared atomic counter of the next work-item nobody
 * has taken; an idle device takes the next chunk of whole work-groups of its own size.
 * Chunk sizes are fixed per device: a GPU a tenth of the work-groups at a time, Dopia's
 * empirical balance between load imbalance and dispatch overhead; a CPU a fiftieth, but at
 * least two work-groups per compute unit so that one launch keeps every core busy (on a
 * CPU a launch costs little, and small chunks let the slower device finish close to the
 * faster one). opts.chunk_fraction replaces both shares. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "split-internal.h"

/* priv: the chunk of each device, in work-items. */

static int dynamic_init(struct ht_split_sched *s, struct ht_error *err)
{
    uint64_t *chunk;

    for (size_t i = 0; i < s->n; i++)
        if (s->global % s->devs[i].wg)
            return ht_error_set(err, HT_EINVAL,
                                "work-group size %" PRIu64 " of device %zu does not divide "
                                "the global size %" PRIu64 " (Eq. 2)",
                                s->devs[i].wg, i, s->global);
    if (!(s->chunk_fraction >= 0) || s->chunk_fraction > 1)
        return ht_error_set(err, HT_EINVAL, "chunk fraction %g is not in (0, 1]",
                            s->chunk_fraction);
    chunk = malloc(s->n * sizeof *chunk);
    if (!chunk)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->n; i++) {
        const struct ht_split_sched_device *d = &s->devs[i];
        uint64_t groups = s->global / d->wg, take;
        if (s->chunk_fraction > 0)
            take = (uint64_t)ceil((double)groups * s->chunk_fraction);
        else if (d->is_gpu)
            take = (groups + 9) / 10;
        else {
            uint64_t cores = 2 * (uint64_t)(d->compute_units ? d->compute_units : 1);
            take = (groups + 49) / 50;
            if (take < cores)
                take = cores;
        }
        if (take < 1)
            take = 1;
        if (take > groups)
            take = groups;
        chunk[i] = take * d->wg;
    }
    s->priv = chunk;
    return HT_OK;
}

static int dynamic_next(struct ht_split_sched *s, size_t device, struct ht_split_chunk *out)
{
    const uint64_t *chunk = s->priv;
    return ht__sched_take(s, s->devs[device].wg, chunk[device], out);
}

static void dynamic_destroy(struct ht_split_sched *s)
{
    free(s->priv);
    s->priv = NULL;
}

const struct ht_split_sched_ops ht__sched_dynamic = {
    .name = "dynamic",
    .description = "shared work counter: fixed chunks on demand (a GPU a tenth, a CPU less)",
    .init = dynamic_init,
    .reset = NULL,
    .next = dynamic_next,
    .report = NULL,
    .destroy = dynamic_destroy,
    .kind = HT_SPLIT_SCHED_ON_DEMAND,
};
