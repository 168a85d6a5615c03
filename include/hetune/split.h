/* hetune — splitting one kernel's work between several devices (the paper's §2.2).
 *
 * The split planner is pure arithmetic, without OpenCL. It works along one dimension of
 * the NDRange: the caller picks the dimension and passes its global size G and, for each
 * device, that device's own work-group size along it (its tuned local size) and the time
 * the device takes to run the whole problem alone. The plan gives each device a slice of
 * [0, G) made of whole work-groups of its own size, as DESIGN.md states it:
 *
 *   S_i = (1/t_i) / Σ_j (1/t_j)                                    (Eq. 4)
 *   γ_i = G·S_i / wg_i,  γ̂_i = ⌊γ_i⌋                                (Eq. 6-7)
 *   R   = G − Σ_i wg_i·γ̂_i                                         (Eq. 8)
 *   the device k that covers R with the least work wg_k·⌈R/wg_k⌉ takes ⌈R/wg_k⌉ more
 *   groups                                                          (Eq. 9)
 *   theoretical time = max_i(S_i·t_i)                               (Algorithm 1)
 *
 * Rules the paper leaves open, decided here:
 *
 * - Rounding. A γ_i that lies within a few units of floating-point rounding below an
 *   integer counts as that integer (times of 2 s and 1 s over 3 work-items of size 1 split
 *   1 + 2, whatever the last bit of 1/3 is), and the whole groups never add up to more
 *   than G (should rounding make them, the device rounded up the most gives one back).
 * - The residue device (Eq. 9). Ties in least work go to the device that finishes first:
 *   the smallest t_k·size_k/G, size_k being k's whole slice once it holds the residue;
 *   remaining ties go to the lowest index. Only a device whose whole slice still fits in
 *   [0, G) (size_k <= G, so that it can end at G) is a candidate, and only one with a
 *   positive factor. When every wg divides G (as Eq. 2 makes every tuned configuration
 *   do) every device fits, and this is exactly Eq. 9.
 * - No device fits (G is smaller than, or not a multiple of, the work-group sizes that
 *   could take the residue; e.g. G = 100 with work-groups of 64 on both devices): the
 *   residue device takes all the work, as ⌈G/wg_k⌉ groups from offset 0, k being the
 *   device with the least work wg_k·⌈G/wg_k⌉ (same ties); the other devices get nothing,
 *   and its slice runs `overhang` work-items past G. The executor must then pad its
 *   buffers, or refuse the plan.
 *
 * Layout. Slices lie in device order with the residue device last, ending exactly at G
 * (its offset is G − its size). When the work-group sizes are not multiples of each other,
 * its slice starts inside its neighbour's: those work-items are computed twice (the
 * overlap). Every output element must be read back from one owner only: each slice owns
 * [own_offset, own_offset + own_size); the other devices own their whole slices, the
 * residue device owns only what follows them, up to G. The owned ranges partition [0, G).
 * A device with no whole group and no residue gets no slice: its size, groups, offset,
 * own_offset and own_size are all 0, and it is not launched.
 *
 * Launching a slice: global size `size` (a multiple of `wg`) with global work offset
 * `offset` along the split dimension, local size `wg`; keep the other dimensions whole.
 */
#ifndef HETUNE_SPLIT_H
#define HETUNE_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One device's input to the planner. */
struct ht_split_device_in {
    uint64_t wg;        /* work-group size along the split dimension, in work-items; > 0 */
    double time_s;      /* seconds the device takes for the whole problem alone; must be
                           positive and finite (leave a device that cannot run out) */
};

/* One device's part of a plan. Sizes and offsets count work-items along the split
 * dimension. */
struct ht_split_slice {
    uint64_t wg;               /* copied from the input */
    double time_s;             /* copied from the input */
    double optimal_factor;     /* S_i (Eq. 4, or the factor given); positive from times,
                                  unless a device is some 1e308 times slower than the
                                  fastest and its share rounds to 0 */
    double gamma;              /* γ_i = G·S_i / wg_i (Eq. 6), real */
    uint64_t base_groups;      /* γ̂_i (Eq. 7), after the rounding rule above; 0 for every
                                  device when no device fits the residue */
    uint64_t extra_groups;     /* ⌈R/wg_k⌉ for the residue device (Eq. 9a), else 0 */
    uint64_t groups;           /* work-groups launched: base_groups + extra_groups */
    uint64_t offset, size;     /* the launched slice [offset, offset + size);
                                  size = groups·wg */
    uint64_t own_offset, own_size; /* the range read back from this device */
    double adjusted_factor;    /* own_size / G: the adjusted factor of Table 3 (the
                                  factors of all devices sum to 1; overlap not counted) */
    double slice_factor;       /* size / G: the share the device computes, overlap and
                                  overhang included */
};

/* A plan. Initialized by ht_split_plan_compute (or _from_factors), released with
 * ht_split_plan_destroy. */
struct ht_split_plan {
    uint64_t global;           /* G */
    size_t ndevices;
    struct ht_split_slice *slices; /* ndevices slices, in the order of the input; owned by
                                      the plan */
    size_t residue_device;     /* k, or SIZE_MAX when R = 0 (no device takes extra groups) */
    uint64_t residue;          /* R (Eq. 8); G when no device fits the residue */
    uint64_t overlap;          /* Σ size_i − G: the work-items computed for nothing (twice,
                                  or past G); always less than the residue device's wg */
    uint64_t overhang;         /* work-items of the residue device's slice past G; 0 unless
                                  no device fits the residue */
    double theoretical_time_s; /* Algorithm 1: max_i(S_i·t_i) with the optimal factors */
    double adjusted_time_s;    /* max_i(t_i·size_i/G): the same with the slices as launched
                                  (each device's whole slice, overlap included) */
};

/* Plans the split of global work-items between n devices by Eq. 4-9 (see above) and fills
 * *out, which the caller frees with ht_split_plan_destroy. devs is borrowed for the call.
 * Errors (HT_EINVAL, err filled, err->field naming the input such as "devices[1].wg"):
 * n = 0, global = 0 or above 2^53 (beyond which doubles cannot hold G exactly), a wg of
 * 0, a time that is not positive and finite; HT_ENOMEM. On error *out is left empty
 * (ht_split_plan_destroy on it is harmless). */
int ht_split_plan_compute(uint64_t global, const struct ht_split_device_in *devs, size_t n,
                          struct ht_split_plan *out, struct ht_error *err);

/* The same with the split factors given instead of Eq. 4 (the split-point sweeps of the
 * paper's Figures 6 and 7): factors[i] >= 0 and finite, normalized to sum 1, zero allowed
 * (such a device gets no slice and is never the residue device). The times still give
 * the theoretical times and break ties. Errors as above, plus a negative or non-finite
 * factor, or factors that sum to 0. */
int ht_split_plan_from_factors(uint64_t global, const struct ht_split_device_in *devs,
                               const double *factors, size_t n, struct ht_split_plan *out,
                               struct ht_error *err);

/* Frees what a plan owns and empties it. NULL and empty plans are fine. */
void ht_split_plan_destroy(struct ht_split_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
