/* regslice: how fast a GPU moves a slice of a program's malloc array through a buffer
 * made over the host memory (CL_MEM_USE_HOST_PTR), when that buffer covers the whole
 * array (and a region of it is mapped) or only the slice (and all of it is mapped); beside
 * the same slice staged through a pinned buffer, and the creation cost of each buffer.
 * Issue 26: registered slices in a split took 62 ms a launch where the whole array alone
 * took 12 ms; this asks whether the driver moves the whole buffer at each map.
 *
 *     cc -O2 -o regslice bench/gpu/regslice.c -lOpenCL -lpthread
 *     ./regslice [log2 N = 26] [share of the GPU = 0.45] [burner threads = 0]
 *
 * Prints, per case and direction, the minimum and median of 10 timed rounds (after 2)
 * in ms and GB/s over the slice's bytes. Burner threads copy memory the whole time, as a
 * CPU device working beside the GPU does. */
#include <pthread.h>
#include <string.h>

#include "probe.h"

#define ROUNDS 10
#define WARM 2

static void report(const char *name, double *t, size_t bytes)
{
    qsort(t, ROUNDS, sizeof *t, cmp);
    printf("%-44s min %8.2f ms  median %8.2f ms  %6.1f GB/s\n", name, 1e3 * t[0],
           1e3 * t[ROUNDS / 2], (double)bytes / t[0] / 1e9);
    fflush(stdout);
}

static volatile int burning = 1;

static void *burner(void *arg)
{
    size_t n = 64u << 20;
    char *a = malloc(n), *b = malloc(n);
    (void)arg;
    memset(a, 1, n);
    memset(b, 2, n);
    while (burning)
        memcpy(b, a, n);
    free(a);
    free(b);
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned lg = argc > 1 ? (unsigned)atoi(argv[1]) : 26;
    double share = argc > 2 ? atof(argv[2]) : 0.45;
    int nburn = argc > 3 ? atoi(argv[3]) : 0;
    size_t n = (size_t)1 << lg, bytes = n * sizeof(float);
    size_t off = (size_t)((1.0 - share) * (double)n) * sizeof(float), size = bytes - off;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cl_int st;
    char *host;
    double t[ROUNDS];
    pthread_t th[64];

    dev = first_gpu();
    if (!dev) {
        fprintf(stderr, "no GPU\n");
        return 77;
    }
    {
        char name[256];
        clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
        printf("device %s, array %zu MB, GPU slice %.2f (%zu MB at offset %zu), %d burner "
               "threads\n", name, bytes >> 20, share, size >> 20, off, nburn);
    }
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &st);
    check(st, "clCreateContext");
    q = clCreateCommandQueue(ctx, dev, 0, &st);
    check(st, "clCreateCommandQueue");
    host = malloc(bytes); /* glibc: 16 bytes past a page, as a program's array */
    memset(host, 3, bytes);
    printf("host array at %p (page offset %lu)\n", (void *)host,
           (unsigned long)((size_t)host & 4095));

    cl_mem devbuf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &st);
    check(st, "device buffer");
    /* Touch the device buffer once. */
    check(clEnqueueWriteBuffer(q, devbuf, CL_TRUE, 0, bytes, host, 0, NULL, NULL), "touch");

    for (int i = 0; i < nburn && i < 64; i++)
        pthread_create(&th[i], NULL, burner, NULL);

    /* Creation costs. */
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now();
        cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &st);
        check(st, "whole reg");
        /* The driver may pin at first use: a map of one page. */
        void *p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, 4096, 0, NULL, NULL, &st);
        check(st, "map");
        clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL);
        clFinish(q);
        t[r] = now() - t0;
        clReleaseMemObject(m);
    }
    report("create whole-array register (+1 page map)", t, bytes);
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now();
        cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size, host + off,
                                  &st);
        check(st, "slice reg");
        void *p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, 4096, 0, NULL, NULL, &st);
        check(st, "map");
        clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL);
        clFinish(q);
        t[r] = now() - t0;
        clReleaseMemObject(m);
    }
    report("create slice register (+1 page map)", t, size);

    cl_mem whole = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &st);
    check(st, "whole reg");
    cl_mem slice = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size, host + off,
                                  &st);
    check(st, "slice reg");
    cl_mem pinned = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, NULL, &st);
    check(st, "pinned");
    void *pin = clEnqueueMapBuffer(q, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, size, 0,
                                   NULL, NULL, &st);
    check(st, "map pinned");

    for (int up = 1; up >= 0; up--) {
        const char *dir = up ? "up" : "down";
        char name[128];
        /* whole-array buffer, region mapped (what coexec.c does today) */
        for (int r = 0; r < ROUNDS + WARM; r++) {
            double t0 = now();
            void *p;
            if (!up)
                check(clEnqueueCopyBuffer(q, devbuf, whole, off, off, size, 0, NULL, NULL), "cp");
            p = clEnqueueMapBuffer(q, whole, CL_FALSE,
                                   up ? CL_MAP_WRITE_INVALIDATE_REGION : CL_MAP_READ, off, size, 0,
                                   NULL, NULL, &st);
            check(st, "map whole");
            check(clEnqueueUnmapMemObject(q, whole, p, 0, NULL, NULL), "unmap");
            if (up)
                check(clEnqueueCopyBuffer(q, whole, devbuf, off, off, size, 0, NULL, NULL), "cp");
            clFinish(q);
            if (r >= WARM)
                t[r - WARM] = now() - t0;
        }
        snprintf(name, sizeof name, "%s: whole-array register, region map", dir);
        report(name, t, size);
        /* slice buffer, all of it mapped */
        for (int r = 0; r < ROUNDS + WARM; r++) {
            double t0 = now();
            void *p;
            if (!up)
                check(clEnqueueCopyBuffer(q, devbuf, slice, off, 0, size, 0, NULL, NULL), "cp");
            p = clEnqueueMapBuffer(q, slice, CL_FALSE,
                                   up ? CL_MAP_WRITE_INVALIDATE_REGION : CL_MAP_READ, 0, size, 0,
                                   NULL, NULL, &st);
            check(st, "map slice");
            check(clEnqueueUnmapMemObject(q, slice, p, 0, NULL, NULL), "unmap");
            if (up)
                check(clEnqueueCopyBuffer(q, slice, devbuf, 0, off, size, 0, NULL, NULL), "cp");
            clFinish(q);
            if (r >= WARM)
                t[r - WARM] = now() - t0;
        }
        snprintf(name, sizeof name, "%s: slice register, whole map", dir);
        report(name, t, size);
        /* slice buffer, read/write buffer straight (no map) */
        for (int r = 0; r < ROUNDS + WARM; r++) {
            double t0 = now();
            if (up)
                check(clEnqueueCopyBuffer(q, slice, devbuf, 0, off, size, 0, NULL, NULL), "cp");
            else
                check(clEnqueueCopyBuffer(q, devbuf, slice, off, 0, size, 0, NULL, NULL), "cp");
            clFinish(q);
            if (r >= WARM)
                t[r - WARM] = now() - t0;
        }
        snprintf(name, sizeof name, "%s: slice register, copy only (no map)", dir);
        report(name, t, size);
        /* pinned staging of the slice: memcpy + write from pinned (one piece) */
        for (int r = 0; r < ROUNDS + WARM; r++) {
            double t0 = now();
            if (up) {
                memcpy(pin, host + off, size);
                check(clEnqueueWriteBuffer(q, devbuf, CL_TRUE, off, size, pin, 0, NULL, NULL),
                      "w");
            } else {
                check(clEnqueueReadBuffer(q, devbuf, CL_TRUE, off, size, pin, 0, NULL, NULL), "r");
                memcpy(host + off, pin, size);
            }
            if (r >= WARM)
                t[r - WARM] = now() - t0;
        }
        snprintf(name, sizeof name, "%s: pinned staging, one piece, serial", dir);
        report(name, t, size);
        /* pinned only: the bus's limit */
        for (int r = 0; r < ROUNDS + WARM; r++) {
            double t0 = now();
            if (up)
                check(clEnqueueWriteBuffer(q, devbuf, CL_TRUE, off, size, pin, 0, NULL, NULL),
                      "w");
            else
                check(clEnqueueReadBuffer(q, devbuf, CL_TRUE, off, size, pin, 0, NULL, NULL), "r");
            if (r >= WARM)
                t[r - WARM] = now() - t0;
        }
        snprintf(name, sizeof name, "%s: pinned buffer only (bus limit)", dir);
        report(name, t, size);
        /* pageable direct */
        for (int r = 0; r < ROUNDS + WARM; r++) {
            double t0 = now();
            if (up)
                check(clEnqueueWriteBuffer(q, devbuf, CL_TRUE, off, size, host + off, 0, NULL,
                                           NULL), "w");
            else
                check(clEnqueueReadBuffer(q, devbuf, CL_TRUE, off, size, host + off, 0, NULL,
                                          NULL), "r");
            if (r >= WARM)
                t[r - WARM] = now() - t0;
        }
        snprintf(name, sizeof name, "%s: pageable direct", dir);
        report(name, t, size);
    }
    burning = 0;
    for (int i = 0; i < nburn && i < 64; i++)
        pthread_join(th[i], NULL);
    clEnqueueUnmapMemObject(q, pinned, pin, 0, NULL, NULL);
    clFinish(q);
    clReleaseMemObject(pinned);
    clReleaseMemObject(slice);
    clReleaseMemObject(whole);
    clReleaseMemObject(devbuf);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(host);
    return 0;
}
