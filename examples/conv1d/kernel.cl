/* One-dimensional convolution out[i] = sum_k in[i + k] * mask[k], k < MASK, of N outputs
 * over N + MASK - 1 inputs (the paper's second case study). A work-group of WG work-items
 * first copies the WG + MASK - 1 inputs it needs (its own plus the mask's halo) into local
 * memory (Eq. 11), then every work-item reads its window from there. hetune passes
 * -D WG=.. -D MASK=... */
#ifndef WG
#define WG 64
#endif
#ifndef MASK
#define MASK 625
#endif

__kernel void conv1d_local(__global const float *in, __global const float *mask,
                           __global float *out)
{
    __local float tile[WG + MASK - 1];
    const int lid = get_local_id(0);
    /* The first output of this work-group; get_global_id includes the work offset, so a
     * slice launched with an offset reads its own inputs. */
    const int base = (int)get_global_id(0) - lid;
    float acc = 0.0f;

    for (int i = lid; i < WG + MASK - 1; i += WG)
        tile[i] = in[base + i];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < MASK; k++)
        acc += tile[lid + k] * mask[k];
    out[base + lid] = acc;
}

/* The reference: the same sum, in the same order, from global memory. */
__kernel void conv1d_naive(__global const float *in, __global const float *mask,
                           __global float *out)
{
    const int i = get_global_id(0);
    float acc = 0.0f;

    for (int k = 0; k < MASK; k++)
        acc += in[i + k] * mask[k];
    out[i] = acc;
}
