/* A 3 x 3 box blur as it might be found in another project: sizes fixed by #define, the
 * tile size expected from the tuner as TILE_X and TILE_Y, positions from get_group_id.
 * hetune tunes and splits it unchanged (docs/guide.md, "Tuning a kernel you did not
 * write"). `in` holds the image with a one-pixel border: (HEIGHT + 2) x (WIDTH + 2). */
#define WIDTH 4096
#define HEIGHT 4096

__kernel void blur(__global float *out, __global const float *in)
{
    const int x = get_group_id(0) * TILE_X + get_local_id(0);
    const int y = get_group_id(1) * TILE_Y + get_local_id(1);
    float sum = 0.0f;

    for (int dy = 0; dy < 3; dy++)
        for (int dx = 0; dx < 3; dx++)
            sum += in[(y + dy) * (WIDTH + 2) + x + dx];
    out[y * WIDTH + x] = sum / 9.0f;
}
