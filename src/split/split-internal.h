/* Internal interface of the split module (src/split), shared by its files:
 *   plan.c      the paper's planner (Eq. 4-9, Algorithm 1), pure arithmetic
 *   sched.c     the scheduler registry and the state every scheduler shares
 *   static.c    the paper's plan as a scheduler
 *   dynamic.c   a shared atomic work counter, chunks of fixed size per device (Dopia)
 *   guided.c    chunks that shrink as the work runs out, proportional to speed
 *   ranges.c    which elements of a buffer a range of work-items reads or owns, and
 *               which work-items a chunk of units needs
 *   coexec.c    co-execution: contexts, buffers, device threads, merge, verification
 */
#ifndef HETUNE_SPLIT_INTERNAL_H
#define HETUNE_SPLIT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hetune/split.h"
#include "split/coexec.h" /* split's door: the co-execution hooks others drive */

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

/* The elements [*lo, *hi) of an axis of `shape` elements that the work-items [wlo, whi)
 * of an NDRange of `global` work-items along the axis's dimension touch, `halo` more
 * elements read past the last (see split.h): returns 1 and sets them, clipped to the
 * axis, when the axis maps evenly onto the work-items, else 0 (the axis is needed whole).
 * With owned = 1 (written buffers) the halo is not counted and only e = shape / global is
 * tried. */
int ht__split_axis_range(uint64_t shape, uint64_t global, uint64_t halo, uint64_t wlo,
                         uint64_t whi, int owned, uint64_t *lo, uint64_t *hi);

/* The work-items [*wlo, *wlo + *wn) of a device with g work-items along the split
 * dimension, per_item units each (see split.h, Units), that cover the units [offset,
 * offset + size): from the work-item holding the first unit to the one holding the last,
 * rounded up to whole work-groups of wg, moved back to end at g when that overshoots (as
 * the planner's residue device). Needs wg to divide g and the units to lie in
 * [0, g * per_item). With one unit per work-item and a chunk of whole work-groups this is
 * the chunk itself. */
void ht__split_chunk_items(uint64_t offset, uint64_t size, uint64_t per_item, uint64_t wg,
                           uint64_t g, uint64_t *wlo, uint64_t *wn);

/* --- (probe.c) inferring what a kernel writes, see split.h --- */

/* One probed run: the work-items [wlo, whi) along the split dimension, and one byte per
 * element of the buffer (row-major), non-zero where the run wrote it. */
struct ht__probe_run {
    uint64_t wlo, whi;
    const uint8_t *written;
};

/* Infers the slab that explains the writes of runs[0] and runs[1], both of which it must
 * fit (see split.h, "inferring what a kernel writes"), whole being the mask of a run over
 * all the global work-items; among several axes that fit, the one with the least halo
 * (the first among equals). naxes (1..3) and dims give the buffer's shape. Pure. Returns HT_OK
 * and fills *out (inferred = 1), or HT_ENOTFOUND with why (NUL-terminated, at most
 * why_size bytes) saying what runs[0] wrote, in the words of the refusal: "the probe's
 * slice [24, 48) along gy wrote 37 elements scattered over 12 rows of 'c' ...", name
 * being the buffer's name and dim the split dimension. */
int ht__split_infer_slab(unsigned naxes, const uint64_t *dims, uint64_t global,
                         const struct ht__probe_run runs[2], const uint8_t *whole,
                         const char *name, unsigned dim, struct ht_split_written *out,
                         char *why, size_t why_size);

/* --- a scheduler instance (sched.c), driven by the co-execution engine --- */

/* Creates scheduler `name` (NULL: ht__split_sched_planner's) for global work-items along the split dimension and n devices
 * (devs and opts are copied). When every time_s is positive (or opts->factors is given)
 * the paper's plan is computed too, so that every scheduler reports Algorithm 1's
 * theoretical time (ht__split_sched_plan). *out is owned by the caller
 * (ht__split_sched_free). Errors (HT_EINVAL, err filled): an unknown name (err lists the
 * schedulers), n = 0, global 0 or above 2^53, a wg of 0; static without positive times
 * or factors; dynamic and guided when a wg does not divide global; the planner's errors;
 * HT_ENOMEM. */
int ht__split_sched_create(const char *name, uint64_t global,
                           const struct ht_split_sched_device *devs, size_t n,
                           const struct ht_split_sched_opts *opts, struct ht_split_sched **out,
                           struct ht_error *err);

/* ht__split_sched_create for the scheduler ops (one of ht_split_schedulers[]). */
int ht__split_sched_create_ops(const struct ht_split_sched_ops *ops, uint64_t global,
                               const struct ht_split_sched_device *devs, size_t n,
                               const struct ht_split_sched_opts *opts,
                               struct ht_split_sched **out, struct ht_error *err);

/* The scheduler that plans every chunk up front (HT_SPLIT_SCHED_PLANNED: static): the
 * default, and the one a co-execution's plan is replaced with (factors, a refinement,
 * the bus plan). Static storage. */
const struct ht_split_sched_ops *ht__split_sched_planner(void);

/* Hands out the whole work again; call before each run (a new scheduler is ready). */
void ht__split_sched_reset(struct ht_split_sched *s);

/* The next chunk for device i (< n): HT_OK with *out filled, or HT_DONE when no work is
 * left for it. Thread-safe. */
int ht__split_sched_next(struct ht_split_sched *s, size_t device, struct ht_split_chunk *out);

/* Tells the scheduler that device i finished chunk c in seconds. Thread-safe. */
void ht__split_sched_report(struct ht_split_sched *s, size_t device,
                            const struct ht_split_chunk *c, double seconds);

/* The paper's plan for these devices (Eq. 4-9, or opts->factors), or NULL when the times
 * were not all known. Borrowed; lives as long as s. For static it is the plan executed. */
const struct ht_split_plan *ht__split_sched_plan(const struct ht_split_sched *s);

/* Frees a scheduler; NULL is allowed. */
void ht__split_sched_free(struct ht_split_sched *s);

#endif
