/* Which elements of a buffer's axis a range of work-items touches, and which work-items a
 * chunk of units needs (see coexec.h, "Data" and "Units"). Pure arithmetic. */
#include "coexec-internal.h"

int ht__split_axis_range(uint64_t shape, uint64_t global, uint64_t halo, uint64_t wlo,
                         uint64_t whi, int owned, uint64_t *lo, uint64_t *hi)
{
    uint64_t e;

    if (global == 0 || whi > global || wlo > whi)
        return 0;
    if (owned)
        halo = 0;
    /* Elements per work-item: first with the halo taken off (conv1d's N + MASK - 1 inputs
     * for N work-items), then of the whole axis (an EPT-like kernel: S = e * G). */
    if (!owned && halo > 0 && halo < shape && (shape - halo) % global == 0)
        e = (shape - halo) / global;
    else if (shape % global == 0)
        e = shape / global;
    else
        return 0;
    if (e == 0)
        return 0;
    *lo = wlo * e;
    *hi = whi * e + halo;
    if (*hi > shape)
        *hi = shape;
    if (*lo > *hi)
        *lo = *hi;
    return 1;
}

void ht__split_chunk_items(uint64_t offset, uint64_t size, uint64_t per_item, uint64_t wg,
                           uint64_t g, uint64_t *wlo, uint64_t *wn)
{
    uint64_t lo = offset / per_item;
    uint64_t n = (offset + size + per_item - 1) / per_item - lo;

    n = (n + wg - 1) / wg * wg;
    if (lo + n > g)
        lo = g - n;
    *wlo = lo;
    *wn = n;
}
