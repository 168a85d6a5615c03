/* Only loaded by tests/unit/test_spec.c, never built: the parameters arrive as -D. */
__kernel void matmul_tiled(__global const float *A, __global double *B, __global float *C,
                           __global const uchar *Z, int n, ulong m)
{
    size_t x = get_global_id(0), y = get_global_id(1);
    C[y * n + x] = A[y * n + x] + (float)B[x] + Z[0] + (float)m;
}
