/* 2-D convolution of an (H + FH - 1) x (W + FW - 1) image with an FH x FW filter, giving
 * H x W outputs ("valid" convolution of a padded image):
 *
 *     out[y][x] = sum_fy sum_fx in[y + fy][x + fx] * filt[fy][fx]
 *
 * A work-group of BX x BY work-items computes one tile of (BX * TX) x (BY * TY) outputs;
 * each work-item computes TX x TY of them, spaced BX columns and BY rows apart so that
 * neighbouring work-items touch neighbouring addresses. With USE_LOCAL the tile's inputs
 * and halo are first staged in local memory (rows PAD floats longer, to shift rows across
 * banks); otherwise every read goes to global memory and the caches. UNROLL_FX and
 * UNROLL_FY ask the compiler to unroll the filter's loops. Every tuning parameter and size
 * reaches the kernel as -D NAME=value; the defaults below only let the file compile alone.
 * Each output sums its terms in the same order whatever the configuration. */
#ifndef BX
#define BX 16
#endif
#ifndef BY
#define BY 4
#endif
#ifndef TX
#define TX 1
#endif
#ifndef TY
#define TY 1
#endif
#ifndef USE_LOCAL
#define USE_LOCAL 0
#endif
#ifndef PAD
#define PAD 0
#endif
#ifndef UNROLL_FX
#define UNROLL_FX 0
#endif
#ifndef UNROLL_FY
#define UNROLL_FY 0
#endif
#ifndef W
#define W 4096
#endif
#ifndef FW
#define FW 15
#endif
#ifndef FH
#define FH 15
#endif

#define TILE_W (BX * TX)
#define TILE_H (BY * TY)
#define IN_W (W + FW - 1)         /* the image's row length */
#define LOC_W (TILE_W + FW - 1)   /* the staged tile: its columns, */
#define LOC_H (TILE_H + FH - 1)   /* rows, */
#define LOC_PITCH (LOC_W + PAD)   /* and row length in local memory */

__kernel __attribute__((reqd_work_group_size(BX, BY, 1)))
void conv2d(__global float *out, __global const float *in, __constant float *filt)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    /* The tile's first output, from the global id: a slice launched with a global work
     * offset (a split) computes its own rows. */
    const int x0 = ((int)get_global_id(0) - lx) * TX;
    const int y0 = ((int)get_global_id(1) - ly) * TY;
    float acc[TY][TX];

    for (int ty = 0; ty < TY; ty++)
        for (int tx = 0; tx < TX; tx++)
            acc[ty][tx] = 0.0f;

#if USE_LOCAL
    __local float tile[LOC_H * LOC_PITCH];
    for (int r = ly; r < LOC_H; r += BY)
        for (int c = lx; c < LOC_W; c += BX)
            tile[r * LOC_PITCH + c] = in[(size_t)(y0 + r) * IN_W + x0 + c];
    barrier(CLK_LOCAL_MEM_FENCE);
#define PIXEL(r, c) tile[(r) * LOC_PITCH + (c)]
#else
#define PIXEL(r, c) in[(size_t)(y0 + (r)) * IN_W + x0 + (c)]
#endif

#if UNROLL_FY
#pragma unroll
#endif
    for (int fy = 0; fy < FH; fy++) {
#if UNROLL_FX
#pragma unroll
#endif
        for (int fx = 0; fx < FW; fx++) {
            const float f = filt[fy * FW + fx];
            for (int ty = 0; ty < TY; ty++)
                for (int tx = 0; tx < TX; tx++)
                    acc[ty][tx] += PIXEL(ly + ty * BY + fy, lx + tx * BX + fx) * f;
        }
    }

    for (int ty = 0; ty < TY; ty++)
        for (int tx = 0; tx < TX; tx++)
            out[(size_t)(y0 + ly + ty * BY) * W + x0 + lx + tx * BX] = acc[ty][tx];
}
