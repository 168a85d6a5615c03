/* Internal interface of the coexec module (src/coexec/), shared by its files:
 *   coexec.c    the co-execution: device setup, the chunk engine, bind and launch,
 *               verification, the estimate and the bus plan, a node's share over MPI
 *   ranges.c    which elements of a buffer a range of work-items reads or owns, and
 *               which work-items a chunk of units needs
 *   probe.c     inferring what a kernel without "index" writes (ht_split_probe)
 *   written.c   the one inference of written buffers without "index", kept in the store
 *   decide.c    the one split-or-alone decision
 * What other modules use of it is its door, coexec/coexec.h, which this header includes.
 */
#ifndef HETUNE_COEXEC_INTERNAL_H
#define HETUNE_COEXEC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/coexec.h"
#include "coexec/coexec.h" /* coexec's door: what the workflow, runtime and MPI drive */
#include "split/sched.h"   /* split's door: the scheduler instance the engine asks */

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

#endif
