/* Tiled matrix multiplication C = A * B of N x N row-major floats (the paper's first case
 * study). A work-group computes one TS x TS tile of C; at each step it stages one tile of
 * A and one of B in local memory (2 * TS * TS floats, Eq. 10), so every element read from
 * global memory is used TS times. The work-group is the tile: TS = WG0 = WG1 (the spec's
 * constraint), and N is a multiple of TS (Eq. 2). hetune passes -D WG0=.. -D WG1=... */
#ifndef WG0
#define WG0 16
#endif
#define TS WG0

__kernel void matmul_tiled(__global const float *A, __global const float *B,
                           __global float *C, const int N)
{
    __local float As[TS][TS];
    __local float Bs[TS][TS];
    const int lx = get_local_id(0), ly = get_local_id(1);
    /* get_global_id includes the global work offset, so a slice computes its own rows. */
    const int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;

    for (int t = 0; t < N / TS; t++) {
        As[ly][lx] = A[row * N + t * TS + lx];
        Bs[ly][lx] = B[(t * TS + ly) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++)
            acc += As[ly][k] * Bs[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}

/* The reference: one work-item per element of C, straight from global memory, summing in
 * the same order as the tiled kernel. */
__kernel void matmul_naive(__global const float *A, __global const float *B,
                           __global float *C, const int N)
{
    const int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;

    for (int k = 0; k < N; k++)
        acc += A[row * N + k] * B[k * N + col];
    C[row * N + col] = acc;
}
