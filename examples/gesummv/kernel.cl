/* GESUMMV from Polybench (the Polybench/GPU OpenCL kernel, used by Dopia): scalar, vector
 * and matrix multiplication
 *
 *   tmp = A x,   y = alpha A x + beta B x
 *
 * for N x N row-major matrices A and B and a vector x of N floats; alpha and beta are build
 * options (ALPHA, BETA; Polybench's 1.5 and 1.2 by default). Work-item i computes row i of
 * both products, as in Polybench/GPU; tmp is an output too, as there.
 *
 * TS (-D TS=..): 0 reads x straight from global memory; otherwise the work-group walks x in
 * tiles of TS elements, staging each tile in local memory (TS floats, WG work-items copying
 * it together) before every work-item of the group uses it. Rows come from get_global_id,
 * so a slice launched with a global work offset computes its own rows. */
#ifndef TS
#define TS 0
#endif
#ifndef WG
#define WG 64
#endif
#ifndef ALPHA
#define ALPHA 1.5f
#endif
#ifndef BETA
#define BETA 1.2f
#endif

__kernel void gesummv(__global const float *A, __global const float *B,
                      __global const float *x, __global float *y, __global float *tmp,
                      const int n)
{
    const int i = get_global_id(0);
    __global const float *a = A + (size_t)i * n, *b = B + (size_t)i * n;
    float sa = 0.0f, sb = 0.0f;

#if TS == 0
    for (int j = 0; j < n; j++) {
        sa += a[j] * x[j];
        sb += b[j] * x[j];
    }
#else
    __local float xs[TS];
    const int lid = get_local_id(0);

    for (int t = 0; t < n; t += TS) {
        for (int j = lid; j < TS; j += WG)
            xs[j] = x[t + j];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < TS; j++) {
            sa += a[t + j] * xs[j];
            sb += b[t + j] * xs[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
    tmp[i] = sa;
    y[i] = ALPHA * sa + BETA * sb;
}

/* The reference: Polybench's loop for one row, from global memory. */
__kernel void gesummv_ref(__global const float *A, __global const float *B,
                          __global const float *x, __global float *y, __global float *tmp,
                          const int n)
{
    const int i = get_global_id(0);
    float t = 0.0f, u = 0.0f;

    for (int j = 0; j < n; j++) {
        t += A[(size_t)i * n + j] * x[j];
        u += B[(size_t)i * n + j] * x[j];
    }
    tmp[i] = t;
    y[i] = ALPHA * t + BETA * u;
}
