/* A trivial kernel for the Fermi space example: the work-items of the plane gy = gz = 0
 * write their global x index; the others only exist. The space, not the kernel, is the
 * point of this example. */
__kernel void fermi_touch(__global int *out)
{
    if (get_global_id(1) == 0 && get_global_id(2) == 0)
        out[get_global_id(0)] = (int)get_global_id(0);
}
