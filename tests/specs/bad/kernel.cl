/* The one kernel every malformed spec of this folder names. */
__kernel void vecadd(__global const float *a, __global const float *b, __global float *c, int n)
{
    size_t i = get_global_id(0);
    if (i < (size_t)n)
        c[i] = a[i] + b[i];
}

/* A reference kernel of the same signature, for verify.reference "kernel". */
__kernel void vecadd_ref(__global const float *a, __global const float *b, __global float *c,
                         int n)
{
    size_t i = get_global_id(0);
    if (i < (size_t)n)
        c[i] = a[i] + b[i];
}
