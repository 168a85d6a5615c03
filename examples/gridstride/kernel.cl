/* out = a x + y over an h x w row-major grid, walked the way kernels written for a grid of
 * a fixed number of work-groups walk their data, through get_num_groups:
 *
 * - along x, a grid-stride loop: the NDRange has GX work-items per row (fewer than the w
 *   columns, or more), and each steps by the whole grid's width,
 *   get_num_groups(0) * get_local_size(0);
 * - along y, each work-group owns a band of h / get_num_groups(1) consecutive rows and
 *   walks it in steps of its height (a block-stride loop).
 *
 * Split along y between devices, each slice is launched with a global work offset and sees
 * the whole launch's group ids and number of groups through hetune's prologue (docs/spec.md,
 * "Splitting kernels that use group ids"): a band is the same band whichever device runs it.
 * A split along x would not merge, since a work-item's columns lie all along the row (the
 * spec's index says so: its x axis is null). */
__kernel void gridstride(__global float *out, __global const float *x, __global const float *y,
                         const float a, const int w, const int h)
{
    const int rows = h / get_num_groups(1);
    const int y0 = get_group_id(1) * rows;
    const int xstep = get_num_groups(0) * get_local_size(0);

    for (int r = get_local_id(1); r < rows; r += get_local_size(1))
        for (int c = get_group_id(0) * get_local_size(0) + get_local_id(0); c < w; c += xstep) {
            const int i = (y0 + r) * w + c;
            out[i] = a * x[i] + y[i];
        }
}

/* The reference: work-item (0, gy) computes the RPI rows gy * RPI .. gy * RPI + RPI - 1
 * whole, from get_global_id alone (RPI comes as -D RPI=value). */
__kernel void gridstride_ref(__global float *out, __global const float *x,
                             __global const float *y, const float a, const int w, const int h)
{
    if (get_global_id(0) != 0)
        return;
    for (int r = get_global_id(1) * RPI; r < (int)(get_global_id(1) + 1) * RPI && r < h; r++)
        for (int c = 0; c < w; c++)
            out[r * w + c] = a * x[r * w + c] + y[r * w + c];
}
