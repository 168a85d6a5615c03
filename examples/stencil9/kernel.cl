/* A 9-point two-dimensional stencil (OCLoptimizer's STENCIL, the nine-point discretisation
 * of the Laplacian): over an (N + 2) x (N + 2) row-major grid `in` (N x N interior points
 * and a border of one point all round), the N x N output is
 *
 *   out[y][x] = sum_{j, i < 3} w[j][i] * in[y + j][x + i]
 *
 * that is, out[y][x] is the stencil centred on the interior point (y + 1, x + 1) of the
 * grid. The output holds interior points only, so there is no border to define; the weights
 * w are a 3 x 3 row-major argument (random in the spec, so that a transposed or shifted
 * stencil is caught; the Laplacian's (1 4 1; 4 -20 4; 1 4 1) / 6 could come from a file).
 * Because work-item (y, x) reads rows y .. y + 2 and columns x .. x + 2, it reads only its
 * own element and the next two along each axis (a forward halo of 2).
 *
 * USE_LOCAL (-D USE_LOCAL=0/1): 1 stages the work-group's (WGY + 2) x (WGX + 2) input tile
 * in local memory first, the WGX * WGY work-items copying it together. Positions come from
 * get_global_id (and a work-group's origin from get_global_id - get_local_id), so a slice
 * launched with a global work offset computes its own rows. */
#ifndef WGX
#define WGX 16
#endif
#ifndef WGY
#define WGY 16
#endif
#ifndef USE_LOCAL
#define USE_LOCAL 0
#endif

#define TW (WGX + 2)
#define TH (WGY + 2)

__kernel void stencil9(__global const float *in, __global const float *w,
                       __global float *out, const int n)
{
    const int x = get_global_id(0), y = get_global_id(1);
    const int gw = n + 2;
    float acc = 0.0f;

#if USE_LOCAL
    __local float tile[TH * TW];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int bx = x - lx, by = y - ly;

    for (int t = ly * WGX + lx; t < TH * TW; t += WGX * WGY)
        tile[t] = in[(by + t / TW) * gw + bx + t % TW];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            acc += w[j * 3 + i] * tile[(ly + j) * TW + lx + i];
#else
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            acc += w[j * 3 + i] * in[(y + j) * gw + x + i];
#endif
    out[y * n + x] = acc;
}

/* The reference: the nine terms written out, centred on the grid point (y + 1, x + 1). */
__kernel void stencil9_ref(__global const float *in, __global const float *w,
                           __global float *out, const int n)
{
    const int x = get_global_id(0), y = get_global_id(1);
    const int gw = n + 2, c = (y + 1) * gw + (x + 1);

    out[y * n + x] = w[0] * in[c - gw - 1] + w[1] * in[c - gw] + w[2] * in[c - gw + 1] +
                     w[3] * in[c - 1] + w[4] * in[c] + w[5] * in[c + 1] +
                     w[6] * in[c + gw - 1] + w[7] * in[c + gw] + w[8] * in[c + gw + 1];
}
