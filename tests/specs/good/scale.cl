__kernel void scale(__global float *x)
{
    size_t i = get_global_id(0);
    x[i] = 2.0f * x[i];
}

__kernel void scale_ref(__global float *x)
{
    size_t i = get_global_id(0);
    x[i] = x[i] + x[i];
}
