/* split's door for the co-execution (src/coexec/): a scheduler instance, made for one
 * co-execution's devices and asked for chunks by its device threads. The policies behind
 * it (static.c, dynamic.c, guided.c, registered in sched.c's ht_split_schedulers[]) are
 * pure: nothing here runs a kernel.
 *
 * A friend header (docs/architecture.md, scripts/walls-allowed.txt): only the modules
 * named there include it; the names stay inside the shared library (ht__, src/hetune.map).
 * split-internal.h includes it. */
#ifndef HETUNE_SPLIT_SCHED_H
#define HETUNE_SPLIT_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/split.h"

/* Creates scheduler `name` (NULL: the one that plans every chunk up front,
 * HT_SPLIT_SCHED_PLANNED: static) for global work-items along the split dimension and n
 * devices (devs and opts are copied; opts NULL or all zero: every default). When every time_s is positive (or opts->factors is given)
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
