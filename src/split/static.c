/* The static scheduler: the paper's plan (Eq. 4-9), one chunk per device: the plan's slice,
 * owned range and all. A device with no slice gets no work. */
#include <stdlib.h>

#include "split-internal.h"

/* priv: one flag per device, set once it has taken its slice in this run. */

static int static_init(struct ht_split_sched *s, struct ht_error *err)
{
    if (!s->has_plan)
        return ht_error_set(err, HT_EINVAL,
                            "the static scheduler needs every device's time alone (or split "
                            "factors) to plan by Eq. 4");
    if (s->plan.overhang)
        return ht_error_set(err, HT_EINVAL,
                            "no device's work-group size fits the residue: the plan runs "
                            "past the global size, which buffers cannot hold");
    s->priv = calloc(s->n, sizeof(atomic_int));
    if (!s->priv)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    return HT_OK;
}

static void static_reset(struct ht_split_sched *s)
{
    atomic_int *taken = s->priv;
    for (size_t i = 0; i < s->n; i++)
        atomic_store(&taken[i], 0);
}

static int static_next(struct ht_split_sched *s, size_t device, struct ht_split_chunk *out)
{
    atomic_int *taken = s->priv;
    const struct ht_split_slice *sl = &s->plan.slices[device];

    if (sl->size == 0 || atomic_exchange(&taken[device], 1))
        return HT_DONE;
    out->offset = sl->offset;
    out->size = sl->size;
    out->own_offset = sl->own_offset;
    out->own_size = sl->own_size;
    return HT_OK;
}

static void static_destroy(struct ht_split_sched *s)
{
    free(s->priv);
    s->priv = NULL;
}

const struct ht_split_sched_ops ht__sched_static = {
    .name = "static",
    .description = "the paper's plan: one slice per device by its time alone (Eq. 4-9)",
    .init = static_init,
    .reset = static_reset,
    .next = static_next,
    .report = NULL,
    .destroy = static_destroy,
    .kind = HT_SPLIT_SCHED_PLANNED,
};
