/* A tiled five-point diffusion step written the way tuners' example kernels are: every
 * position comes from the work-group's id and the work-item's place in it,
 *
 *   x = get_group_id(0) * BX + get_local_id(0)
 *   y = get_group_id(1) * BY * WPT + get_local_id(1) + k * BY,   k < WPT,
 *
 * never from get_global_id, and the row length w from get_global_size(0). Over an
 * (h + 2) x (w + 2) row-major grid `in` (an h x w interior and a border of one point all
 * round), the h x w output is
 *
 *   out[y][x] = c + K * (in[y][x + 1] + in[y + 2][x + 1] + in[y + 1][x] + in[y + 1][x + 2] - 4 c)
 *   with c = in[y + 1][x + 1]
 *
 * A work-group of BX x BY work-items stages its (BY * WPT + 2) x (BX + 2) input tile in local
 * memory, then each work-item computes WPT points of its column, BY rows apart (so that the
 * work-group's loads and stores stay contiguous along x). A work-group owns the rows
 * [group_y * BY * WPT, (group_y + 1) * BY * WPT) and the columns [group_x * BX, ... + BX).
 *
 * Split between devices, each slice is launched with a global work offset; the slice sees
 * the whole launch's group ids through hetune's prologue (docs/spec.md, "Splitting kernels
 * that use group ids"). BX, BY and WPT come as -D options. */
#ifndef BX
#define BX 16
#endif
#ifndef BY
#define BY 4
#endif
#ifndef WPT
#define WPT 1
#endif

#define K 0.1f
#define TW (BX + 2)
#define TH (BY * WPT + 2)

__kernel void diffuse(__global float *out, __global const float *in, const int w, const int h)
{
    __local float tile[TH * TW];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int x0 = get_group_id(0) * BX, y0 = get_group_id(1) * BY * WPT;
    /* The row length from the grid, as kernels launched on one work-item per column do. */
    const int width = get_global_size(0), gw = width + 2;

    for (int t = ty * BX + tx; t < TH * TW; t += BX * BY)
        tile[t] = in[(y0 + t / TW) * gw + x0 + t % TW];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < WPT; k++) {
        const int ly = ty + k * BY + 1, lx = tx + 1;
        const float c = tile[ly * TW + lx];
        const float sum = tile[(ly - 1) * TW + lx] + tile[(ly + 1) * TW + lx] +
                          tile[ly * TW + lx - 1] + tile[ly * TW + lx + 1];
        out[(y0 + ly - 1) * width + x0 + tx] = c + K * (sum - 4.0f * c);
    }
    (void)w;
    (void)h;
}

/* The reference: one point per work-item of any grid, from get_global_id, no local memory;
 * work-item (gx, gy) computes the rows gy * WPT .. gy * WPT + WPT - 1 of column gx. */
__kernel void diffuse_ref(__global float *out, __global const float *in, const int w,
                          const int h)
{
    const int x = get_global_id(0), gw = w + 2;

    for (int y = get_global_id(1) * WPT; y < (int)(get_global_id(1) + 1) * WPT && y < h; y++) {
        const float c = in[(y + 1) * gw + x + 1];
        const float sum = in[y * gw + x + 1] + in[(y + 2) * gw + x + 1] + in[(y + 1) * gw + x] +
                          in[(y + 1) * gw + x + 2];
        out[y * w + x] = c + K * (sum - 4.0f * c);
    }
}
