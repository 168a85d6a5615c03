/* FIR filter out[i] = sum_k w[k] * in[i + k], k < TAPS, of N outputs over N + TAPS - 1
 * inputs: the case study of code transformations as tuning parameters (OCLoptimizer, docs/
 * guide.md "Code transformations as parameters"). hetune passes every size and parameter as
 * -D NAME=value:
 *
 *   UNROLL  how the tap loop is unrolled: 0 leaves it to the compiler (no pragma at all,
 *           since "#pragma unroll 0" does not build on PoCL), 1 forbids unrolling
 *           ("#pragma unroll 1"), a larger value unrolls by that factor;
 *   VW      the vector width: each work-item computes VW consecutive outputs with vloadVW /
 *           vstoreVW (VW 1: scalar loads and stores, no vector type), global N / VW;
 *   WG      the work-group size.
 *
 * Every configuration adds the same products in the same order, so their outputs agree
 * bit for bit with the scalar, compiler-unrolled reference (VW 1, UNROLL 0). Positions come
 * from get_global_id, so a slice launched with a global work offset computes its own
 * outputs. */
#ifndef TAPS
#define TAPS 64
#endif
#ifndef UNROLL
#define UNROLL 0
#endif
#ifndef VW
#define VW 1
#endif

/* The unroll pragma as a macro: _Pragma takes a string, so the factor is stringified after
 * expansion (HT_STR's two levels). */
#define HT_STR_(x) #x
#define HT_STR(x) HT_STR_(x)
#if UNROLL > 1
#define UNROLL_LOOP _Pragma(HT_STR(unroll UNROLL))
#elif UNROLL == 1
#define UNROLL_LOOP _Pragma("unroll 1")
#else
#define UNROLL_LOOP
#endif

/* floatv, VLOAD and VSTORE at width VW: vloadN/vstoreN read and write N floats at
 * p + offset * N, and need p aligned to a float only. */
#define HT_CAT_(a, b) a##b
#define HT_CAT(a, b) HT_CAT_(a, b)
#if VW == 1
typedef float floatv;
#define VLOAD(off, p) ((p)[off])
#define VSTORE(v, off, p) ((p)[off] = (v))
#else
typedef HT_CAT(float, VW) floatv;
#define VLOAD HT_CAT(vload, VW)
#define VSTORE HT_CAT(vstore, VW)
#endif

__kernel void fir(__global const float *in, __global const float *w, __global float *out)
{
    const size_t first = get_global_id(0) * VW;
    floatv acc = (floatv)(0.0f);

    UNROLL_LOOP
    for (int k = 0; k < TAPS; k++)
        acc += w[k] * VLOAD(0, in + first + k);
    VSTORE(acc, 0, out + first);
}
