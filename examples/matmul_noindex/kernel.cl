/* C = A B written the way Kernel Tuner's users write a tiled matrix multiply: the size
 * fixed by #define, a thread block of block_size_x x block_size_y threads, each thread
 * computing tile_size_y outputs of one column (block_size_y rows apart), the tiles of A
 * and B staged in local memory, positions from get_group_id. The spec (spec.json) has no
 * "index": hetune split infers who writes what by a probe. */
#define WIDTH 256

#define rows_per_group (block_size_y * tile_size_y)

__kernel void matmul_kernel(__global float *C, __global const float *A,
                            __global const float *B)
{
    __local float sA[rows_per_group][block_size_x];
    __local float sB[block_size_x][block_size_x];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int col = get_group_id(0) * block_size_x + tx;
    const int row0 = get_group_id(1) * rows_per_group + ty;
    float acc[tile_size_y];

    for (int t = 0; t < tile_size_y; t++)
        acc[t] = 0.0f;
    for (int k0 = 0; k0 < WIDTH; k0 += block_size_x) {
        for (int t = 0; t < tile_size_y; t++)
            sA[ty + t * block_size_y][tx] = A[(row0 + t * block_size_y) * WIDTH + k0 + tx];
        for (int r = ty; r < block_size_x; r += block_size_y)
            sB[r][tx] = B[(k0 + r) * WIDTH + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < block_size_x; k++) {
            const float b = sB[k][tx];
            for (int t = 0; t < tile_size_y; t++)
                acc[t] += sA[ty + t * block_size_y][k] * b;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int t = 0; t < tile_size_y; t++)
        C[(row0 + t * block_size_y) * WIDTH + col] = acc[t];
}
