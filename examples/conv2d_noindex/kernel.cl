/* A 2-D convolution written the way users of Kernel Tuner and CLTune write one: the image
 * and filter sizes fixed by #define, the thread block and the tile of outputs per thread
 * as tune parameters (block_size_x/y, tile_size_x/y reach the kernel as -D), positions
 * from get_group_id and get_local_id, and the input tile staged in local memory. The spec
 * (spec.json) has no "index": hetune split infers who writes what by a probe.
 *
 * output[y][x] = sum over the filter of input[y + i][x + j] * filter[i][j]: an
 * image_height x image_width output from an input padded by the filter's size - 1. A
 * work-group computes a (block_size_y * tile_size_y) x (block_size_x * tile_size_x) tile
 * of outputs; within it a thread's outputs lie block_size apart (coalesced on GPUs). */
#define image_height 256
#define image_width 256
#define filter_height 5
#define filter_width 5
#define input_width (image_width + filter_width - 1)

#define tile_h (block_size_y * tile_size_y)
#define tile_w (block_size_x * tile_size_x)

__kernel void convolution_kernel(__global float *output, __global const float *input,
                                 __constant float *filter)
{
    __local float staged[tile_h + filter_height - 1][tile_w + filter_width - 1];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int x0 = get_group_id(0) * tile_w, y0 = get_group_id(1) * tile_h;

    /* The tile and its apron, loaded by the whole group in steps of the block. */
    for (int i = ty; i < tile_h + filter_height - 1; i += block_size_y)
        for (int j = tx; j < tile_w + filter_width - 1; j += block_size_x)
            staged[i][j] = input[(y0 + i) * input_width + x0 + j];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int ti = 0; ti < tile_size_y; ti++)
        for (int tj = 0; tj < tile_size_x; tj++) {
            const int ly = ty + ti * block_size_y, lx = tx + tj * block_size_x;
            float sum = 0.0f;
            for (int i = 0; i < filter_height; i++)
                for (int j = 0; j < filter_width; j++)
                    sum += staged[ly + i][lx + j] * filter[i * filter_width + j];
            output[(y0 + ly) * image_width + x0 + lx] = sum;
        }
}
