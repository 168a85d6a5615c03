/* ATAX from Polybench (the Polybench/GPU OpenCL kernels, used by Dopia): matrix transpose
 * and vector multiplication
 *
 *   y = A^T (A x)
 *
 * for an M x N row-major matrix A, x of N floats and y of N floats. Polybench/GPU runs it
 * as two kernels in sequence through an intermediate vector tmp of M floats:
 *
 *   atax_1: tmp[i] = sum_j A[i][j] x[j]      one work-item per row i
 *   atax_2: y[j]   = sum_i A[i][j] tmp[i]    one work-item per column j
 *
 * The second kernel cannot start before every element of tmp is known, which no single
 * NDRange can promise without a global barrier, so spec.json runs them as a two-stage
 * pipeline with tmp on the device only (see README.md); spec-stage1.json tunes the first
 * alone. Both walk their dot products with the same optional local-memory tiling of
 * the shared vector: TS (-D TS=..) = 0 reads it from global memory, TS > 0 stages it in
 * tiles of TS floats that the WG work-items of the group copy together.
 *
 * Positions come from get_global_id, so a slice launched with a global work offset
 * computes its own rows (atax_1) or columns (atax_2). */
#ifndef TS
#define TS 0
#endif
#ifndef WG
#define WG 64
#endif

__kernel void atax_1(__global const float *A, __global const float *x, __global float *tmp,
                     const int m, const int n)
{
    const int i = get_global_id(0);
    __global const float *a = A + (size_t)i * n;
    float s = 0.0f;

#if TS == 0
    for (int j = 0; j < n; j++)
        s += a[j] * x[j];
#else
    __local float xs[TS];
    const int lid = get_local_id(0);

    for (int t = 0; t < n; t += TS) {
        for (int j = lid; j < TS; j += WG)
            xs[j] = x[t + j];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < TS; j++)
            s += a[t + j] * xs[j];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
    (void)m;
    tmp[i] = s;
}

__kernel void atax_2(__global const float *A, __global const float *tmp, __global float *y,
                     const int m, const int n)
{
    const int j = get_global_id(0);
    float s = 0.0f;

#if TS == 0
    for (int i = 0; i < m; i++)
        s += A[(size_t)i * n + j] * tmp[i];
#else
    __local float ts[TS];
    const int lid = get_local_id(0);

    for (int t = 0; t < m; t += TS) {
        for (int i = lid; i < TS; i += WG)
            ts[i] = tmp[t + i];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = 0; i < TS; i++)
            s += A[(size_t)(t + i) * n + j] * ts[i];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
    y[j] = s;
}

/* The references: Polybench's loops for one row and one column, from global memory. */
__kernel void atax_1_ref(__global const float *A, __global const float *x,
                         __global float *tmp, const int m, const int n)
{
    const int i = get_global_id(0);
    float s = 0.0f;

    (void)m;
    for (int j = 0; j < n; j++)
        s += A[(size_t)i * n + j] * x[j];
    tmp[i] = s;
}

__kernel void atax_2_ref(__global const float *A, __global const float *tmp,
                         __global float *y, const int m, const int n)
{
    const int j = get_global_id(0);
    float s = 0.0f;

    for (int i = 0; i < m; i++)
        s += A[(size_t)i * n + j] * tmp[i];
    y[j] = s;
}
