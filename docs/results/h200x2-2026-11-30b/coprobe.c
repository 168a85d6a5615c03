/* Experiment (issue 26): the host memory shared by the CPU's OpenCL device itself (c = a + b
 * on its own in-place buffers, as a split's CPU part runs) and the DMA of K GPUs copying
 * pinned 16 MiB pieces of 256 MiB regions (as hetune's shared probe copies). Prints the CPU
 * device alone, then with 1..K GPUs copying: the bytes both moved over the CPU's window.
 *   gcc -O2 -std=gnu11 coprobe.c -o coprobe -lOpenCL -lpthread && ./coprobe [MiB] [passes] */
#define CL_TARGET_OPENCL_VERSION 120
#define _GNU_SOURCE
#include <CL/cl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PIECE (16u << 20)
#define REGION (256u << 20)
#define CHECK(x) do { cl_int e_ = (x); if (e_ != CL_SUCCESS) { fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, e_); exit(1); } } while (0)

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

static const char *src =
    "__kernel void add(__global const float4 *a, __global const float4 *b, __global float4 *c)\n"
    "{ size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n"
    "__kernel void fill(__global float4 *a, __global float4 *b, __global float4 *c)\n"
    "{ size_t i = get_global_id(0); a[i] = (float4)(i & 1023); b[i] = (float4)1.0f; c[i] = (float4)0.0f; }\n";

struct dma { cl_device_id dev; pthread_t id; atomic_int *stop; atomic_int ready; atomic_uint_fast64_t moved; uint64_t at0; };

static void *dma_run(void *arg)
{
    struct dma *j = arg; cl_int e;
    cl_context ctx = clCreateContext(NULL, 1, &j->dev, NULL, NULL, &e); CHECK(e);
    cl_command_queue q = clCreateCommandQueue(ctx, j->dev, 0, &e); CHECK(e);
    cl_mem pin = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, REGION, NULL, &e); CHECK(e);
    cl_mem dm = clCreateBuffer(ctx, CL_MEM_READ_WRITE, REGION, NULL, &e); CHECK(e);
    char *host = clEnqueueMapBuffer(q, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, REGION, 0, NULL, NULL, &e); CHECK(e);
    memset(host, 1, REGION);
    CHECK(clEnqueueWriteBuffer(q, dm, CL_TRUE, 0, REGION, host, 0, NULL, NULL));
    atomic_store(&j->ready, 1);
    size_t at = 0;
    while (!atomic_load(j->stop)) {
        CHECK(clEnqueueWriteBuffer(q, dm, CL_TRUE, at, PIECE, host + at, 0, NULL, NULL));
        atomic_fetch_add(&j->moved, PIECE);
        CHECK(clEnqueueReadBuffer(q, dm, CL_TRUE, at, PIECE, host + at, 0, NULL, NULL));
        atomic_fetch_add(&j->moved, PIECE);
        at = at + 2 * PIECE <= REGION ? at + PIECE : 0;
    }
    clEnqueueUnmapMemObject(q, pin, host, 0, NULL, NULL); clFinish(q);
    clReleaseMemObject(dm); clReleaseMemObject(pin); clReleaseCommandQueue(q); clReleaseContext(ctx);
    return NULL;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256, bytes = mib << 20, n4 = bytes / 16;
    int passes = argc > 2 ? atoi(argv[2]) : 20;
    cl_platform_id plats[8]; cl_uint np = 0; cl_device_id cpu = NULL, gpus[8]; unsigned ng = 0; cl_int e;
    CHECK(clGetPlatformIDs(8, plats, &np));
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id d[16]; cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 16, d, &nd) != CL_SUCCESS) continue;
        for (cl_uint k = 0; k < nd; k++) {
            cl_device_type t; clGetDeviceInfo(d[k], CL_DEVICE_TYPE, sizeof t, &t, NULL);
            if ((t & CL_DEVICE_TYPE_CPU) && !cpu) cpu = d[k];
            if ((t & CL_DEVICE_TYPE_GPU) && ng < 8) gpus[ng++] = d[k];
        }
    }
    if (!cpu) { fprintf(stderr, "no CPU device\n"); return 1; }
    cl_context ctx = clCreateContext(NULL, 1, &cpu, NULL, NULL, &e); CHECK(e);
    cl_command_queue q = clCreateCommandQueue(ctx, cpu, 0, &e); CHECK(e);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &e); CHECK(e);
    CHECK(clBuildProgram(prog, 1, &cpu, "", NULL, NULL));
    cl_kernel add = clCreateKernel(prog, "add", &e); CHECK(e);
    cl_kernel fill = clCreateKernel(prog, "fill", &e); CHECK(e);
    void *h[3]; cl_mem m[3];
    for (int k = 0; k < 3; k++) {
        if (posix_memalign(&h[k], 4096, bytes)) return 1;
        m[k] = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, bytes, h[k], &e); CHECK(e);
        CHECK(clSetKernelArg(add, k, sizeof m[k], &m[k])); CHECK(clSetKernelArg(fill, k, sizeof m[k], &m[k]));
    }
    size_t g = n4, l = 1024;
    while (g % l) l /= 2;
    CHECK(clEnqueueNDRangeKernel(q, fill, 1, NULL, &g, &l, 0, NULL, NULL)); CHECK(clFinish(q));
    for (unsigned k = 0; k <= ng; k++) {
        atomic_int stop = 0; struct dma j[8]; memset(j, 0, sizeof j);
        for (unsigned d = 0; d < k; d++) {
            j[d].dev = gpus[d]; j[d].stop = &stop;
            pthread_create(&j[d].id, NULL, dma_run, &j[d]);
            while (!atomic_load(&j[d].ready)) { struct timespec ms = {0, 1000000}; nanosleep(&ms, NULL); }
        }
        CHECK(clEnqueueNDRangeKernel(q, add, 1, NULL, &g, &l, 0, NULL, NULL)); CHECK(clFinish(q));
        double best = 1e30, t0 = now();
        for (unsigned d = 0; d < k; d++) j[d].at0 = atomic_load(&j[d].moved);
        for (int r = 0; r < passes; r++) {
            double s = now();
            CHECK(clEnqueueNDRangeKernel(q, add, 1, NULL, &g, &l, 0, NULL, NULL)); CHECK(clFinish(q));
            double t = now() - s; if (t < best) best = t;
        }
        double t1 = now(), dma = 0;
        for (unsigned d = 0; d < k; d++) dma += (double)(atomic_load(&j[d].moved) - j[d].at0);
        atomic_store(&stop, 1);
        for (unsigned d = 0; d < k; d++) pthread_join(j[d].id, NULL);
        double cpu_b = 3.0 * bytes * passes, w = t1 - t0;
        printf("coprobe %u GPUs copying: shared %.2f GB/s (CPU device %.2f GB/s mean, best pass %.2f GB/s; DMA %.2f GB/s) over %.1f ms, %d passes of 3 x %zu MiB\n",
               k, (cpu_b + dma) / w / 1e9, cpu_b / w / 1e9, 3.0 * bytes / best / 1e9, dma / w / 1e9, w * 1e3, passes, mib);
    }
    return 0;
}
