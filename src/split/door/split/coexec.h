/* split's door for co-execution's other callers: whether a CPU device can be partitioned
 * (src/workflow/split.c sets its devices up as coexec.c does), and a node's share of a split
 * over MPI (src/mpi/split.c runs its slice through coexec.c's engine).
 *
 * A friend header (docs/architecture.md, scripts/walls-allowed.txt): only the modules
 * named there include it; the names stay inside the shared library (ht__, src/hetune.map). */
#ifndef HETUNE_SPLIT_COEXEC_H
#define HETUNE_SPLIT_COEXEC_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/split.h"

/* (coexec.c) 1 when dev is a CPU device that clCreateSubDevices can partition (by counts
 * or equally), with *max_sub its CL_DEVICE_PARTITION_MAX_SUB_DEVICES; else 0. */
int ht__device_partitionable(const struct ht_device_info *dev, unsigned *max_sub,
                             int *by_counts, int *equally);

/* --- (coexec.c) a node's share of a split over MPI, for src/mpi/split.c --- */

/* Makes cx co-execute only the units [offset, offset + size) of its split dimension: the
 * scheduler is made again (with the devices' current models) over size units and every
 * chunk runs offset further on. The host arrays stay whole; only the range's elements
 * are computed and read back. HT_EINVAL when the range is empty or leaves [0, global),
 * the scheduler's errors (a size no device's work-groups fit); cx unchanged on error. */
int ht__coexec_set_range(struct ht_coexec *cx, uint64_t offset, uint64_t size,
                         struct ht_error *err);

/* Sets the untimed and timed runs of the next ht__coexec_run and the runs it keeps. */
void ht__coexec_set_runs(struct ht_coexec *cx, unsigned warmup, unsigned repeats,
                         unsigned keep_best);

/* One timed run of cx into res, not poisoned first (ht__coexec_run poisons every buffer of
 * every device before each run, which costs as much as a short run: 25-30 ms for 2^23
 * floats on an H200 node). For the runs of a split over MPI, whose wall time includes
 * the call: outputs nobody wrote are caught there by poisoning the host arrays once
 * before the first run (ht__coexec_poison_host). */
int ht__coexec_run_once(struct ht_coexec *cx, struct ht_coexec_result *res,
                        struct ht_error *err);

/* The host array of buffer argument arg: its initial data (output 0) or its merged
 * output (output 1), borrowed from cx; NULL when it has none. */
void *ht__coexec_host(struct ht_coexec *cx, size_t arg, int output);

/* The shape of buffer argument arg as made for device 0 (every device agrees): its axes
 * and their lengths (1 past naxes). HT_EINVAL when arg is not a buffer. */
int ht__coexec_shape(const struct ht_coexec *cx, size_t arg, unsigned *naxes,
                     uint64_t dims[3]);

/* Fills the host inputs and/or outputs with the poison pattern of their type, so that an
 * element that nothing sent or wrote later cannot pass verification. */
void ht__coexec_poison_host(struct ht_coexec *cx, int inputs, int outputs);

/* Where a range of units lies in one buffer: a slab of the axis walked by the split
 * dimension, the other axes whole. */
struct ht__slab {
    int whole;          /* 1: the buffer is needed (inputs) or written (outputs) whole: no
                           single axis walked by the split dimension, or a device of the
                           node does not slice it */
    unsigned axis;      /* the axis walked by the split dimension */
    uint64_t lo, hi;    /* its elements [lo, hi) (the whole axis when whole) */
    uint64_t len;       /* its length */
    uint64_t outer;     /* the product of the axes before it */
    uint64_t inner;     /* bytes of one of its indices: the axes after it, times the
                           element's size */
    size_t bytes;       /* the whole buffer's bytes */
};

/* The slab of buffer argument i that the units [ulo, uhi) need: with output 0, what any
 * device of cx reads for a chunk inside them (its work-items covering them, halo
 * included: the same ranges a device is sent); with output 1, the elements they own. An
 * empty range needs nothing (lo = hi = 0). HT_EINVAL when i is not a buffer or the range
 * leaves [0, global). */
int ht__coexec_slab(const struct ht_coexec *cx, size_t i, int output, uint64_t ulo,
                    uint64_t uhi, struct ht__slab *s);

#endif
