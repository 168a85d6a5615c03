/* What setting up an OpenCL device costs, the parts of a runtime's switch (issue 26: a
 * switch between the split and a device alone took 150-270 ms on the H200 machine): for
 * every device of every platform, ROUNDS times, clCreateContext, clCreateCommandQueue,
 * clCreateProgramWithSource + clBuildProgram of a small vecadd, clCreateKernel, a 256 MiB
 * clCreateBuffer and its first clEnqueueWriteBuffer, then the releases, each timed in ms.
 * gcc -O2 -std=gnu11 bench/gpu/setupcost.c -o setupcost -lOpenCL && ./setupcost [ROUNDS] */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *src =
    "__kernel void add(__global const float *a, __global const float *b,\n"
    "                  __global float *c) {\n"
    "    size_t i = get_global_id(0);\n"
    "    c[i] = a[i] + b[i];\n"
    "}\n";

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static void one(cl_platform_id p, cl_device_id d, const char *name, int round, void *host,
                size_t bytes)
{
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
    double t[8];
    cl_int st;
    cl_context ctx;
    cl_command_queue q;
    cl_program prog;
    cl_kernel k;
    cl_mem m;

    t[0] = now_ms();
    ctx = clCreateContext(props, 1, &d, NULL, NULL, &st);
    if (st != CL_SUCCESS) {
        printf("%s: clCreateContext %d\n", name, st);
        return;
    }
    t[1] = now_ms();
    q = clCreateCommandQueue(ctx, d, CL_QUEUE_PROFILING_ENABLE, &st);
    t[2] = now_ms();
    prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &st);
    st = clBuildProgram(prog, 1, &d, "", NULL, NULL);
    t[3] = now_ms();
    k = clCreateKernel(prog, "add", &st);
    t[4] = now_ms();
    m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &st);
    clEnqueueWriteBuffer(q, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    t[5] = now_ms();
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    t[6] = now_ms();
    printf("%-44.44s round %d: context %7.2f queue %6.2f build %7.2f kernel %5.2f "
           "buffer+write %7.2f release %6.2f  total %7.2f ms\n",
           name, round, t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3], t[5] - t[4],
           t[6] - t[5], t[6] - t[0]);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    size_t bytes = (size_t)256 << 20;
    void *host = malloc(bytes);
    cl_platform_id plats[8];
    cl_uint np = 0;

    if (!host || clGetPlatformIDs(8, plats, &np) != CL_SUCCESS)
        return 1;
    memset(host, 1, bytes);
    for (cl_uint i = 0; i < np; i++) {
        cl_device_id devs[8];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 8, devs, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint j = 0; j < nd; j++) {
            char name[256] = "";
            clGetDeviceInfo(devs[j], CL_DEVICE_NAME, sizeof name, name, NULL);
            for (int r = 0; r < rounds; r++)
                one(plats[i], devs[j], name, r, host, bytes);
        }
    }
    free(host);
    return 0;
}
