/* What the small OpenCL probes of bench/gpu (regslice.c, rereg.c) share: a clock, a check of
 * OpenCL statuses, a comparison for qsort, and the first GPU of any platform. A header of
 * static functions, so that each probe still builds alone: cc -O2 -o P bench/gpu/P.c
 * -lOpenCL. */
#ifndef HETUNE_BENCH_GPU_PROBE_H
#define HETUNE_BENCH_GPU_PROBE_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Exits 1 saying what failed when st is not CL_SUCCESS. */
static inline void check(cl_int st, const char *what)
{
    if (st != CL_SUCCESS) {
        fprintf(stderr, "%s: OpenCL error %d\n", what, (int)st);
        exit(1);
    }
}

/* Ascending doubles, for qsort. */
static inline int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The first GPU of the first platform that has one; NULL when none. */
static inline cl_device_id first_gpu(void)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    cl_device_id dev = NULL;

    check(clGetPlatformIDs(8, plats, &np), "clGetPlatformIDs");
    for (cl_uint p = 0; p < np && p < 8 && !dev; p++)
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    return dev;
}

#endif
