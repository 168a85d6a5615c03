/* Vector addition a = b + c: the running example of OCLoptimizer (Fabeiro et al., Example 1
 * and Fig. 4), with its arguments in the paper's order (n, a, b, c).
 *
 * EPT (elements per work-item) comes from the spec as -D EPT=value. Each work-item adds EPT
 * consecutive elements, the distribution the paper's GENINIT/GENLIMIT macros pick on CPUs;
 * the global size is N / EPT. Positions come from get_global_id, so a slice launched with a
 * global work offset computes its own elements. */
#ifndef EPT
#define EPT 1
#endif

__kernel void addvec(const unsigned int n, __global float *a, __global const float *b,
                     __global const float *c)
{
    const size_t first = get_global_id(0) * EPT;

    for (int k = 0; k < EPT; k++) {
        const size_t i = first + k;
        if (i < n)
            a[i] = b[i] + c[i];
    }
}
