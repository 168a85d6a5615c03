/* rereg: when does a GPU driver move a program's malloc array at the pinned rate? Issue 26:
 * a split's GPU copies of arrays pinned in place (foreign path "pin": a CL_MEM_USE_HOST_PTR
 * buffer kept over the array, the array given to clEnqueueWrite/ReadBuffer) ran at the
 * pageable rate on the H200 machine (vecadd 2^26: 50-68 ms of transfers for 0.45 of the
 * work, 15.7 ms for all of it alone), whatever the CPU device's compute units (1-16) and
 * whether or not the slice moved in pieces. This times clEnqueueWrite/ReadBuffer of the
 * array's tail (a GPU's slice) and of the whole array in the states a runtime goes through:
 * no buffer over it; one; two in the same context, then the first released; one in each of
 * two contexts of the same device (two sessions), then the first context's released; one
 * made after an earlier one was released; first of all, on an array of its own, one in each
 * of two contexts, then the first context's released.
 *
 *     cc -O2 -o rereg bench/gpu/rereg.c -lOpenCL
 *     ./rereg [log2 N = 26] [share of the GPU = 0.45]
 *
 * Prints per state and direction the minimum and median of 10 timed rounds (after 2), ms
 * and GB/s over the bytes moved. */
#include <string.h>

#include "probe.h"

#define ROUNDS 10
#define WARM 2

/* Times ROUNDS writes (up) or reads of bytes between host+off and dev+off on q. */
static void xfer(const char *state, const char *what, cl_command_queue q, cl_mem dev, char *host,
                 size_t off, size_t bytes, int up)
{
    double t[ROUNDS];
    for (int r = 0; r < WARM + ROUNDS; r++) {
        double t0 = now();
        cl_int st = up ? clEnqueueWriteBuffer(q, dev, CL_FALSE, off, bytes, host + off, 0, NULL,
                                              NULL)
                       : clEnqueueReadBuffer(q, dev, CL_FALSE, off, bytes, host + off, 0, NULL,
                                             NULL);
        check(st, what);
        check(clFinish(q), "clFinish");
        if (r >= WARM)
            t[r - WARM] = now() - t0;
    }
    qsort(t, ROUNDS, sizeof *t, cmp);
    printf("%-30s %-10s %-4s min %8.2f ms  median %8.2f ms  %6.1f GB/s\n", state, what,
           up ? "up" : "down", 1e3 * t[0], 1e3 * t[ROUNDS / 2], (double)bytes / t[0] / 1e9);
    fflush(stdout);
}

/* The slice and the whole array, both ways, on q into dev. */
static void all(const char *state, cl_command_queue q, cl_mem dev, char *host, size_t off,
                size_t bytes)
{
    xfer(state, "slice", q, dev, host, off, bytes - off, 1);
    xfer(state, "slice", q, dev, host, off, bytes - off, 0);
    xfer(state, "whole", q, dev, host, 0, bytes, 1);
    xfer(state, "whole", q, dev, host, 0, bytes, 0);
}

static cl_mem over(cl_context ctx, char *host, size_t bytes)
{
    cl_int st;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &st);
    check(st, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
    return m;
}

int main(int argc, char **argv)
{
    unsigned lg = argc > 1 ? (unsigned)atoi(argv[1]) : 26;
    double share = argc > 2 ? atof(argv[2]) : 0.45;
    size_t n = (size_t)1 << lg, bytes = n * sizeof(float);
    size_t off = (size_t)((1.0 - share) * (double)n) * sizeof(float);
    cl_device_id dev;
    cl_context ctx, ctx2;
    cl_command_queue q, q2;
    cl_mem d1, d2, r1, r2;
    cl_int st;
    char *host;

    dev = first_gpu();
    if (!dev) {
        fprintf(stderr, "no GPU\n");
        return 77;
    }
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &st);
    check(st, "clCreateContext");
    ctx2 = clCreateContext(NULL, 1, &dev, NULL, NULL, &st);
    check(st, "clCreateContext 2");
    q = clCreateCommandQueue(ctx, dev, 0, &st);
    check(st, "clCreateCommandQueue");
    q2 = clCreateCommandQueue(ctx2, dev, 0, &st);
    check(st, "clCreateCommandQueue 2");
    host = malloc(bytes); /* glibc: 16 bytes past a page, as a program's array */
    memset(host, 3, bytes);
    {
        char name[256];
        clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
        printf("device %s, array %zu MB at page offset %lu, slice %.2f from byte %zu\n", name,
               bytes >> 20, (unsigned long)((size_t)host & 4095), share, off);
    }
    d1 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &st);
    check(st, "device buffer");
    d2 = clCreateBuffer(ctx2, CL_MEM_READ_WRITE, bytes, NULL, &st);
    check(st, "device buffer 2");

    {
        /* Two contexts (two sessions, as a runtime's old and new co-execution) on an array of
         * its own: made in the first, made in the second, the first released. */
        char *h2 = malloc(bytes);
        memset(h2, 4, bytes);
        r1 = over(ctx, h2, bytes);
        r2 = over(ctx2, h2, bytes);
        clReleaseMemObject(r1);
        clFinish(q);
        all("new array, ctx 1's released", q2, d2, h2, off, bytes);
        clReleaseMemObject(r2);
        clFinish(q2);
        free(h2);
    }
    all("none", q, d1, host, off, bytes);
    r1 = over(ctx, host, bytes);
    all("one, same context", q, d1, host, off, bytes);
    all("one, other context", q2, d2, host, off, bytes);
    r2 = over(ctx, host, bytes);
    all("two, same context", q, d1, host, off, bytes);
    clReleaseMemObject(r1);
    clFinish(q);
    all("two made, the first released", q, d1, host, off, bytes);
    r1 = r2;
    r2 = over(ctx2, host, bytes);
    all("one in each context: ctx 1", q, d1, host, off, bytes);
    all("one in each context: ctx 2", q2, d2, host, off, bytes);
    clReleaseMemObject(r1);
    clFinish(q);
    all("ctx 1's released: ctx 2", q2, d2, host, off, bytes);
    clReleaseMemObject(r2);
    clFinish(q2);
    all("released", q, d1, host, off, bytes);
    r1 = over(ctx, host, bytes);
    all("made again", q, d1, host, off, bytes);
    clReleaseMemObject(r1);
    r1 = over(ctx, host + off, bytes - off);
    xfer("over the slice only", "slice", q, d1, host, off, bytes - off, 1);
    xfer("over the slice only", "slice", q, d1, host, off, bytes - off, 0);
    clReleaseMemObject(r1);
    clReleaseMemObject(d1);
    clReleaseMemObject(d2);
    clReleaseCommandQueue(q);
    clReleaseCommandQueue(q2);
    clReleaseContext(ctx);
    clReleaseContext(ctx2);
    free(host);
    return 0;
}
