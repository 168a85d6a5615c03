/* A tiled matrix multiply C = A B of n x n row-major floats, in the style of tuners' example
 * kernels: a work-group of TS x TS work-items computes the TS x TS tile of C at
 *
 *   row = get_group_id(1) * TS + get_local_id(1),  col = get_group_id(0) * TS + get_local_id(0)
 *
 * walking the n / TS tiles of A's rows and B's columns through local memory. Split between
 * devices, each slice is launched with a global work offset and sees the whole launch's group
 * ids through hetune's prologue (docs/spec.md, "Splitting kernels that use group ids"). TS
 * comes as -D TS=value. */
#ifndef TS
#define TS 16
#endif

__kernel void matmul(__global float *c, __global const float *a, __global const float *b,
                     const int n)
{
    __local float as[TS][TS], bs[TS][TS];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int row = get_group_id(1) * TS + ty, col = get_group_id(0) * TS + tx;
    float acc = 0.0f;

    for (int t = 0; t < n / TS; t++) {
        as[ty][tx] = a[row * n + t * TS + tx];
        bs[ty][tx] = b[(t * TS + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++)
            acc += as[ty][k] * bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}

/* The reference: one element per work-item from get_global_id, no local memory. */
__kernel void matmul_ref(__global float *c, __global const float *a, __global const float *b,
                         const int n)
{
    const int row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;

    for (int k = 0; k < n; k++)
        acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}
