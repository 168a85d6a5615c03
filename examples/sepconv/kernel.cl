/* Separable two-dimensional convolution (PetaBricks' SeparableConvolution, Fig. 1-2):
 *
 *   out[y][x] = sum_j sum_i in[y + j][x + i] * mask[i] * mask[j],   i, j < KW
 *
 * of an H x W output over an (H + KW - 1) x (W + KW - 1) input, row-major. The mask is
 * separable (the outer product of one KW-wide vector with itself), so the same output comes
 * either from one 2-D pass (KW * KW terms per output) or from two 1-D passes, rows then
 * columns, through an intermediate buffer (2 * KW terms per output, but an extra buffer).
 * PetaBricks tunes that algorithmic choice together with its mapping to local memory.
 *
 * One kernel function, `sepconv`, holds the choices that need no second kernel; the
 * parameter VARIANT picks one at build time (-D VARIANT=..):
 *   0  single-pass 2-D, every input read from global memory;
 *   1  single-pass 2-D, the work-group first stages its (WGY + KW - 1) x (WGX + KW - 1)
 *      input tile (its own elements plus the halo) in local memory;
 *   2  two passes inside one work-group: the row pass of the tile's WGY + KW - 1 rows goes
 *      into local memory ((WGY + KW - 1) x WGX floats), then the column pass reads it.
 *      Rows shared by neighbouring work-groups are computed by both (the price of needing
 *      no intermediate buffer in global memory).
 * The two-pass choice with an intermediate buffer in global memory needs two kernels run in
 * sequence: `sepconv_rows` then `sepconv_cols`, each with and without local memory
 * (LOCAL=0/1). spec.json runs them as a pipeline, VARIANT 3 (without local memory) and 4
 * (with), through a device-only buffer tmp; each pass also has a spec of its own
 * (spec-rows.json, spec-cols.json).
 *
 * Positions come from get_global_id (which includes the global work offset) and a
 * work-group's origin from get_global_id - get_local_id, so a slice launched with an offset
 * computes its own rows. hetune passes -D VARIANT=.. -D WGX=.. -D WGY=.. -D KW=.. (and
 * LOCAL for the pass specs); the defaults below only make the file build on its own. */
#ifndef KW
#define KW 7
#endif
#ifndef WGX
#define WGX 16
#endif
#ifndef WGY
#define WGY 16
#endif
#ifndef VARIANT
#define VARIANT 0
#endif
/* The passes' local-memory switch: their specs set LOCAL; the pipeline of spec.json runs
 * them as VARIANT 3 (two passes from global memory) or 4 (two passes with local memory)
 * and need not. */
#ifndef LOCAL
#define LOCAL (VARIANT == 4)
#endif

#define TW (WGX + KW - 1) /* tile width: a work-group's columns plus the halo */
#define TH (WGY + KW - 1) /* tile height: its rows plus the halo */

__kernel void sepconv(__global const float *in, __global const float *mask,
                      __global float *out, const int W)
{
    const int x = get_global_id(0), y = get_global_id(1);
    const int iw = W + KW - 1;
    float acc = 0.0f;

#if VARIANT == 1
    __local float tile[TH * TW];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int bx = x - lx, by = y - ly;

    /* The work-group copies its tile cooperatively, WGX * WGY elements per step. */
    for (int t = ly * WGX + lx; t < TH * TW; t += WGX * WGY)
        tile[t] = in[(by + t / TW) * iw + bx + t % TW];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < KW; j++)
        for (int i = 0; i < KW; i++)
            acc += tile[(ly + j) * TW + lx + i] * mask[i] * mask[j];
#elif VARIANT == 2
    __local float rows[TH * WGX];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int bx = x - lx, by = y - ly;

    /* Row pass over the tile's TH rows, the work-group's WGX columns: rows[r][c] is the
     * horizontal convolution at input row by + r, output column bx + c. */
    for (int t = ly * WGX + lx; t < TH * WGX; t += WGX * WGY) {
        const int r = t / WGX, c = t % WGX;
        float s = 0.0f;
        for (int i = 0; i < KW; i++)
            s += in[(by + r) * iw + bx + c + i] * mask[i];
        rows[t] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < KW; j++)
        acc += rows[(ly + j) * WGX + lx] * mask[j];
#elif VARIANT == 0 || VARIANT == 3 || VARIANT == 4
    /* VARIANT 0; 3 and 4 are the two-kernel variants (the pipeline's `sepconv_rows` then
     * `sepconv_cols`), which never launch this function but build it with the rest of the
     * file. */
    for (int j = 0; j < KW; j++)
        for (int i = 0; i < KW; i++)
            acc += in[(y + j) * iw + x + i] * mask[i] * mask[j];
#else
#error "VARIANT must be 0 to 4"
#endif
    out[y * W + x] = acc;
}

/* The reference of `sepconv`: the definition, straight from global memory. */
__kernel void sepconv_ref(__global const float *in, __global const float *mask,
                          __global float *out, const int W)
{
    const int x = get_global_id(0), y = get_global_id(1);
    const int iw = W + KW - 1;
    float acc = 0.0f;

    for (int j = 0; j < KW; j++)
        for (int i = 0; i < KW; i++)
            acc += in[(y + j) * iw + x + i] * mask[i] * mask[j];
    out[y * W + x] = acc;
}

/* First pass of the two-kernel variant: tmp[y][x] = sum_i in[y][x + i] * mask[i] for the
 * `rows` = H + KW - 1 input rows and the W output columns. With LOCAL=1 the work-group
 * stages its WGY x (WGX + KW - 1) input rows in local memory. The launch may have more
 * rows than `rows` (the pipeline rounds them up to a multiple of WGY, so that the row pass
 * takes the same work-group sizes as the column pass): those work-items read and write
 * nothing, but still reach the barrier. */
__kernel void sepconv_rows(__global const float *in, __global const float *mask,
                           __global float *tmp, const int W, const int rows)
{
    const int x = get_global_id(0), y = get_global_id(1);
    const int iw = W + KW - 1;
    float acc = 0.0f;

#if LOCAL
    __local float tile[WGY * TW];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int bx = x - lx, by = y - ly;

    for (int t = ly * WGX + lx; t < WGY * TW; t += WGX * WGY)
        if (by + t / TW < rows)
            tile[t] = in[(by + t / TW) * iw + bx + t % TW];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < KW; i++)
        acc += tile[ly * TW + lx + i] * mask[i];
#else
    if (y < rows)
        for (int i = 0; i < KW; i++)
            acc += in[y * iw + x + i] * mask[i];
#endif
    if (y < rows)
        tmp[y * W + x] = acc;
}

__kernel void sepconv_rows_ref(__global const float *in, __global const float *mask,
                               __global float *tmp, const int W, const int rows)
{
    const int x = get_global_id(0), y = get_global_id(1);
    float acc = 0.0f;

    if (y >= rows)
        return;
    for (int i = 0; i < KW; i++)
        acc += in[y * (W + KW - 1) + x + i] * mask[i];
    tmp[y * W + x] = acc;
}

/* Second pass: out[y][x] = sum_j tmp[y + j][x] * mask[j] (global size W x H). With LOCAL=1
 * the work-group stages its (WGY + KW - 1) x WGX rows of tmp in local memory. */
__kernel void sepconv_cols(__global const float *tmp, __global const float *mask,
                           __global float *out, const int W)
{
    const int x = get_global_id(0), y = get_global_id(1);
    float acc = 0.0f;

#if LOCAL
    __local float tile[TH * WGX];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int bx = x - lx, by = y - ly;

    for (int t = ly * WGX + lx; t < TH * WGX; t += WGX * WGY)
        tile[t] = tmp[(by + t / WGX) * W + bx + t % WGX];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < KW; j++)
        acc += tile[(ly + j) * WGX + lx] * mask[j];
#else
    for (int j = 0; j < KW; j++)
        acc += tmp[(y + j) * W + x] * mask[j];
#endif
    out[y * W + x] = acc;
}

__kernel void sepconv_cols_ref(__global const float *tmp, __global const float *mask,
                               __global float *out, const int W)
{
    const int x = get_global_id(0), y = get_global_id(1);
    float acc = 0.0f;

    for (int j = 0; j < KW; j++)
        acc += tmp[(y + j) * W + x] * mask[j];
    out[y * W + x] = acc;
}
