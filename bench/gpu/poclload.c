/* poclload: where the load of a program that a build worker made goes, in CPU time, on
 * PoCL's CPU device (issue 25: with --jobs 2, hetune's measuring process spent about 75 ms
 * loading each configuration's program). N configurations of examples/sepconv (VARIANT 0-4
 * x WGX x WGY, powers of two up to 32), one process per mode as hetune's processes are:
 *
 *     cc -O2 -o poclload bench/gpu/poclload.c -lOpenCL
 *     export POCL_CACHE_DIR=$(mktemp -d)
 *     ./poclload build N         # a build worker: the source built (PoCL's cache cold), then
 *                                # one work-group of each kernel the configuration runs
 *                                # (PoCL makes the work-group function for that local size)
 *     ./poclload source N        # the measuring process: the same source, PoCL's cache hit
 *     ./poclload build-binary N  # build, then CL_PROGRAM_BINARIES into DIR/I.bin
 *     ./poclload binary N        # clCreateProgramWithBinary of DIR/I.bin + clBuildProgram
 *     ./poclload build-object N  # clCompileProgram, its binary into DIR/I.obj, that linked
 *     ./poclload object N        # clCreateProgramWithBinary of DIR/I.obj + clLinkProgram
 *
 * with [KERNEL [DIR]] after N (examples/sepconv/kernel.cl, poclload-out). Each prints the
 * CPU time (CLOCK_PROCESS_CPUTIME_ID: every thread, PoCL's included) per program of the
 * load (build or link), of fetching a binary, and of the kernels' creation and first
 * launch, then the process's CPU time over all N. The device is the first CPU device. */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check(cl_int st, const char *what)
{
    if (st != CL_SUCCESS) {
        fprintf(stderr, "%s: OpenCL error %d\n", what, (int)st);
        exit(1);
    }
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    long n;

    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(b = malloc((size_t)n + 1)) || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    b[n] = '\0';
    *len = (size_t)n;
    fclose(f);
    return b;
}

static void spill(const char *path, const unsigned char *b, size_t len)
{
    FILE *f = fopen(path, "wb");

    if (!f || fwrite(b, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue queue;
static cl_mem buf_in, buf_mask, buf_tmp, buf_out;

/* Configuration i: VARIANT, WGX, WGY. */
static void config(int i, int *variant, int *wgx, int *wgy)
{
    *variant = i % 5;
    *wgx = 1 << (i / 5) % 6;
    *wgy = 1 << (i / 30) % 6;
}

/* Creates the configuration's kernels (sepconv; sepconv_rows and sepconv_cols from VARIANT
 * 3) and launches one work-group of each, as spec.json's pipeline runs them. */
static void first_launch(cl_program p, int variant, int wgx, int wgy)
{
    const char *names[2] = {variant <= 2 ? "sepconv" : "sepconv_rows", "sepconv_cols"};
    int nk = variant <= 2 ? 1 : 2;
    cl_int st, w = 1024, rows = 1030;
    size_t range[2] = {(size_t)wgx, (size_t)wgy};
    cl_kernel k[2];

    for (int j = 0; j < nk; j++) {
        int rows_pass = variant >= 3 && j == 0;
        k[j] = clCreateKernel(p, names[j], &st);
        check(st, names[j]);
        check(clSetKernelArg(k[j], 0, sizeof(cl_mem), j == 1 ? &buf_tmp : &buf_in), "arg 0");
        check(clSetKernelArg(k[j], 1, sizeof(cl_mem), &buf_mask), "arg 1");
        check(clSetKernelArg(k[j], 2, sizeof(cl_mem), rows_pass ? &buf_tmp : &buf_out), "arg 2");
        check(clSetKernelArg(k[j], 3, sizeof w, &w), "arg 3");
        if (rows_pass)
            check(clSetKernelArg(k[j], 4, sizeof rows, &rows), "arg 4");
        check(clEnqueueNDRangeKernel(queue, k[j], 2, NULL, range, range, 0, NULL, NULL),
              "clEnqueueNDRangeKernel");
    }
    check(clFinish(queue), "clFinish");
    for (int j = 0; j < nk; j++)
        clReleaseKernel(k[j]);
}

/* The binary of program p (one device), owned by the caller (free()); *len its size. */
static unsigned char *binary_of(cl_program p, size_t *len)
{
    unsigned char *b;

    check(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof *len, len, NULL),
          "CL_PROGRAM_BINARY_SIZES");
    if (!*len || !(b = malloc(*len))) {
        fprintf(stderr, "no binary\n");
        exit(1);
    }
    check(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof b, &b, NULL), "CL_PROGRAM_BINARIES");
    return b;
}

static cl_program from_binary(const unsigned char *b, size_t len)
{
    cl_int st, bin_st;
    cl_program p = clCreateProgramWithBinary(ctx, 1, &dev, &len, &b, &bin_st, &st);

    check(st, "clCreateProgramWithBinary");
    check(bin_st, "binary status");
    return p;
}

static cl_program linked(cl_program object)
{
    cl_int st;
    cl_program p = clLinkProgram(ctx, 1, &dev, "", 1, &object, NULL, NULL, &st);

    check(st, "clLinkProgram");
    clReleaseProgram(object);
    return p;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 2 ? argv[1] : "";
    int n = argc > 2 ? atoi(argv[2]) : 0;
    const char *kernel = argc > 3 ? argv[3] : "examples/sepconv/kernel.cl";
    const char *dir = argc > 4 ? argv[4] : "poclload-out";
    int building = !strncmp(mode, "build", 5);
    double load = 0.0, fetch = 0.0, launch = 0.0, start;
    size_t srclen;
    char *src;
    cl_platform_id plats[8];
    cl_uint np = 0;
    cl_int st;

    if (n < 1 || (strcmp(mode, "build") && strcmp(mode, "source") && strcmp(mode, "binary") &&
                  strcmp(mode, "object") && strcmp(mode, "build-binary") &&
                  strcmp(mode, "build-object"))) {
        fprintf(stderr, "usage: poclload build|source|build-binary|binary|build-object|object "
                        "N [KERNEL [DIR]]\n");
        return 2;
    }
    src = (char *)slurp(kernel, &srclen);
    check(clGetPlatformIDs(8, plats, &np), "clGetPlatformIDs");
    dev = NULL;
    for (cl_uint i = 0; i < np && i < 8 && !dev; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_CPU, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    if (!dev) {
        fprintf(stderr, "no CPU device\n");
        return 1;
    }
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &st);
    check(st, "clCreateContext");
    queue = clCreateCommandQueue(ctx, dev, 0, &st);
    check(st, "clCreateCommandQueue");
    buf_in = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4u << 20, NULL, &st);
    buf_mask = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &st);
    buf_tmp = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4u << 20, NULL, &st);
    buf_out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4u << 20, NULL, &st);
    check(st, "clCreateBuffer");

    start = cpu_s();
    for (int i = 0; i < n; i++) {
        int variant, wgx, wgy;
        char options[128], path[4096];
        unsigned char *b = NULL;
        size_t len = 0;
        cl_program p;
        double t0, fetched = 0.0;

        config(i, &variant, &wgx, &wgy);
        snprintf(options, sizeof options, "-D VARIANT=%d -D WGX=%d -D WGY=%d -D KW=7 ", variant,
                 wgx, wgy);
        snprintf(path, sizeof path, "%s/%d.%s", dir, i, strstr(mode, "object") ? "obj" : "bin");
        t0 = cpu_s();
        if (!strcmp(mode, "binary") || !strcmp(mode, "object")) {
            b = slurp(path, &len);
            p = from_binary(b, len);
            if (!strcmp(mode, "binary"))
                check(clBuildProgram(p, 1, &dev, options, NULL, NULL), "clBuildProgram");
            else
                p = linked(p);
            free(b);
        } else {
            p = clCreateProgramWithSource(ctx, 1, (const char **)&src, &srclen, &st);
            check(st, "clCreateProgramWithSource");
            if (!strcmp(mode, "build-object")) {
                check(clCompileProgram(p, 1, &dev, options, 0, NULL, NULL, NULL, NULL),
                      "clCompileProgram");
                fetched = cpu_s();
                b = binary_of(p, &len);
                fetched = cpu_s() - fetched;
                spill(path, b, len);
                clReleaseProgram(p);
                p = linked(from_binary(b, len));
                free(b);
            } else {
                check(clBuildProgram(p, 1, &dev, options, NULL, NULL), "clBuildProgram");
            }
        }
        load += cpu_s() - t0 - fetched;
        fetch += fetched;
        t0 = cpu_s();
        first_launch(p, variant, wgx, wgy);
        launch += cpu_s() - t0;
        if (!strcmp(mode, "build-binary")) {
            t0 = cpu_s();
            b = binary_of(p, &len);
            fetch += cpu_s() - t0;
            spill(path, b, len);
            free(b);
        }
        clReleaseProgram(p);
    }
    printf("%-12s %d programs: %s %6.1f ms, binary fetched %6.1f ms, kernels and first "
           "launch %6.1f ms per program; %.2f s CPU in all\n",
           mode, n, building ? "built " : "loaded", 1e3 * load / n, 1e3 * fetch / n,
           1e3 * launch / n, cpu_s() - start);
    free(src);
    return 0;
}
