/* Internal interface of the split module (src/split), shared by its files:
 *   plan.c      the paper's planner (Eq. 4-9, Algorithm 1), pure arithmetic
 *   sched.c     the scheduler registry and the state every scheduler shares
 *   static.c    the paper's plan as a scheduler
 *   dynamic.c   a shared atomic work counter, chunks of fixed size per device (Dopia)
 *   guided.c    chunks that shrink as the work runs out, proportional to speed
 *   bus.c       the bus model and the split-or-alone arithmetic (ht_split_decide)
 * Pure: no OpenCL. The co-execution that drives a scheduler is src/coexec/'s, through the
 * public instance calls of split.h (ht_split_sched_create and the rest).
 */
#ifndef HETUNE_SPLIT_INTERNAL_H
#define HETUNE_SPLIT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hetune/split.h"

/* The rest of a scheduler instance's interface (sched.c), for split's own files and its
 * tests; split.h offers ht_split_sched_create by name. */

/* Fills opts with the defaults (no factors, default chunks). */
void ht__split_sched_opts_init(struct ht_split_sched_opts *opts);

/* The scheduler's ops (its name, description, kind). Borrowed, static storage. */
const struct ht_split_sched_ops *ht__split_sched_get_ops(const struct ht_split_sched *s);

/* ht_split_sched_create for the scheduler ops (one of ht_split_schedulers[]). */
int ht__split_sched_create_ops(const struct ht_split_sched_ops *ops, uint64_t global,
                               const struct ht_split_sched_device *devs, size_t n,
                               const struct ht_split_sched_opts *opts,
                               struct ht_split_sched **out, struct ht_error *err);

/* The scheduler that plans every chunk up front (HT_SPLIT_SCHED_PLANNED: static): the
 * default, and the one a co-execution's plan is replaced with (factors, a refinement,
 * the bus plan). Static storage. */
const struct ht_split_sched_ops *ht__split_sched_planner(void);

struct ht_split_sched {
    const struct ht_split_sched_ops *ops;
    uint64_t global;
    size_t n;
    struct ht_split_sched_device *devs;  /* owned copy */
    double *factors;                     /* owned copy of opts.factors, or NULL */
    double chunk_fraction;               /* opts.chunk_fraction */
    struct ht_split_plan plan;           /* valid when has_plan */
    int has_plan;
    _Atomic uint64_t next;               /* dynamic, guided: the first work-item nobody has
                                            taken yet */
    pthread_mutex_t lock;                /* guards what a scheduler keeps in priv */
    void *priv;                          /* the scheduler's own state */
};

extern const struct ht_split_sched_ops ht__sched_static;
extern const struct ht_split_sched_ops ht__sched_dynamic;
extern const struct ht_split_sched_ops ht__sched_guided;

/* Takes the next chunk of `size` work-items (a positive multiple of wg, wg dividing
 * s->global) from the shared counter: what remains when it is less, rounded up to whole
 * work-groups and moved back to end at global when that overshoots (the tail rule of
 * split.h). Returns HT_DONE when nothing remains. Lock-free. */
int ht__sched_take(struct ht_split_sched *s, uint64_t wg, uint64_t size,
                   struct ht_split_chunk *out);

#endif
