/* bench_runtime: what one launch through the runtime (runtime.h) costs beyond the bare
 * OpenCL commands it issues, side by side in one run (issue 12's goal: at most 50 us).
 *
 * For each device alone, it opens the runtime (mode ALONE on that device, tuning it first
 * into the database when it has no configuration), binds arrays of ht_runtime_alloc and
 * times `launches` calls of ht_runtime_launch. Beside it, the same work written by hand in
 * plain OpenCL on the same device, in its own context: the same kernel source built with
 * the same -D options as the configuration the runtime runs, the same global and local
 * sizes, and the same data path hetune takes there (ht_data_path_resolve):
 *   in place (CPU and host-unified devices): CL_MEM_USE_HOST_PTR buffers on page-aligned
 *     host arrays; a launch is the kernel, then a blocking map and an unmap of each output
 *     (what makes the host see it), then clFinish;
 *   pinned (the others): device buffers, host arrays in pinned memory (a mapped
 *     CL_MEM_ALLOC_HOST_PTR buffer); a launch is clEnqueueWriteBuffer of each input, the
 *     kernel, clEnqueueReadBuffer of each output, clFinish.
 * The bare queue has no profiling (the runtime's has: its events are part of its cost).
 * The two sides take turns launch by launch (the order swapped every launch), each launch
 * timed with CLOCK_MONOTONIC around it; printed: each side's median and mean of the best
 * half, their difference in us, their ratio, and whether the difference is within the
 * goal. Before timing, both sides run once on the same inputs and their outputs must be
 * the same bytes (exit 1 otherwise).
 *
 * With two devices or more, the runtime also splits over all of them (mode SPLIT); its
 * launch time is printed beside the sum and the max of the bare single-device times, for
 * information only (the split issues different commands: each device's slice).
 *
 * Supported specs: one kernel (no pipeline) whose arguments are buffers and scalars in the
 * spec's order (any NDRange dimension, scalars of every spec type; inputs initialised
 * "zero", "iota" or with small pseudo-random values; an "init": "file" input gets
 * pseudo-random values too). Tested with examples/vecadd.
 *
 * usage: bench_runtime [SPEC] [N | NAME=VALUE] [LAUNCHES] [DEVICES]
 *   SPEC      default examples/vecadd/spec.json (of the source tree)
 *   N         the size N (default 4096), or NAME=VALUE for another size
 *   LAUNCHES  timed launches per case (default 2000)
 *   DEVICES   "0,1,...": the devices (default every device); each alone, then split over
 *             all of them when there are two or more
 * The results database is a temporary one, tuned first (exhaustive search), unless
 * $HETUNE_DB names one. Exit status: 0, 1 on a failure or outputs that differ, 2 on a
 * usage error. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* mkdtemp, strtok_r, clock_gettime */
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <CL/cl.h>

#include "hetune.h"

#ifndef HETUNE_SOURCE_DIR
#define HETUNE_SOURCE_DIR "."
#endif

#define GOAL_US 50.0
#define WARMUP 20
#define PAGE 4096
#define MAX_DEVICES 16
#define MAX_ARGS 64 /* buffer arguments a spec may have here */

/* --- small helpers --- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail_ht(const char *what, const struct ht_error *err)
{
    char msg[2600];
    ht_error_format(err, msg, sizeof msg);
    fprintf(stderr, "bench_runtime: %s: %s\n", what, msg);
    return 1;
}

static int fail_cl(const char *what, cl_int st)
{
    fprintf(stderr, "bench_runtime: %s failed (OpenCL error %d)\n", what, (int)st);
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median and the mean of the best half of t[0..n) (sorted in place). */
struct stats {
    double median, best_half;
};

static struct stats stats_of(double *t, size_t n)
{
    struct stats s = {0, 0};
    size_t half = n / 2 ? n / 2 : 1;

    if (n == 0)
        return s;
    qsort(t, n, sizeof *t, cmp_double);
    s.median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    for (size_t i = 0; i < half; i++)
        s.best_half += t[i] / (double)half;
    return s;
}

static void *page_alloc(size_t bytes)
{
    size_t whole = (bytes + PAGE - 1) / PAGE * PAGE;
    return aligned_alloc(PAGE, whole ? whole : PAGE);
}

static int is_input(const struct ht_arg *a)
{
    return a->is_buffer && (a->access == HT_ACCESS_READ || a->access == HT_ACCESS_READWRITE);
}

static int is_output(const struct ht_arg *a)
{
    return a->is_buffer && (a->access == HT_ACCESS_WRITE || a->access == HT_ACCESS_READWRITE);
}

/* Fills an input array as its spec asks (a file's data is not read: small pseudo-random
 * values instead, which is all a timing needs). */
static void fill_input(const struct ht_arg *a, void *data, size_t bytes)
{
    size_t es = ht_type_size(a->type), n = bytes / es;
    uint32_t x = 12345;

    for (size_t k = 0; k < n; k++) {
        int64_t v;
        x = x * 1664525u + 1013904223u;
        v = a->init == HT_INIT_ZERO ? 0 : a->init == HT_INIT_IOTA ? (int64_t)k
                                                                  : (int64_t)(x >> 24) % 100;
        switch (a->type) {
        case HT_TYPE_FLOAT: ((float *)data)[k] = (float)v * 0.25f; break;
        case HT_TYPE_DOUBLE: ((double *)data)[k] = (double)v * 0.25; break;
        case HT_TYPE_CHAR: case HT_TYPE_UCHAR: ((uint8_t *)data)[k] = (uint8_t)v; break;
        case HT_TYPE_SHORT: case HT_TYPE_USHORT: ((uint16_t *)data)[k] = (uint16_t)v; break;
        case HT_TYPE_INT: case HT_TYPE_UINT: ((uint32_t *)data)[k] = (uint32_t)v; break;
        default: ((uint64_t *)data)[k] = (uint64_t)v; break;
        }
    }
}

/* A scalar argument's value as the kernel takes it (as hetune's own launch sets it). */
static size_t scalar_bytes(const struct ht_arg *a, int64_t v, unsigned char out[8])
{
    switch (a->type) {
    case HT_TYPE_CHAR: case HT_TYPE_UCHAR: { uint8_t x = (uint8_t)v; memcpy(out, &x, 1); break; }
    case HT_TYPE_SHORT: case HT_TYPE_USHORT: { uint16_t x = (uint16_t)v; memcpy(out, &x, 2); break; }
    case HT_TYPE_INT: case HT_TYPE_UINT: { uint32_t x = (uint32_t)v; memcpy(out, &x, 4); break; }
    case HT_TYPE_FLOAT: { float x = (float)v; memcpy(out, &x, 4); break; }
    case HT_TYPE_DOUBLE: { double x = (double)v; memcpy(out, &x, 8); break; }
    default: memcpy(out, &v, 8); break;
    }
    return ht_type_size(a->type);
}

/* --- the bare side: the same launch in plain OpenCL --- */

struct bare {
    const struct ht_spec *spec;
    enum ht_data_path path;
    cl_context ctx;
    cl_command_queue q;
    cl_program prog;
    cl_kernel kernel;
    cl_uint ndims;
    size_t global[3], local[3];
    int has_local;
    int sync;          /* 1: the runtime's synchronisation (see bare_launch) */
    cl_mem *mem;       /* per argument: the kernel's buffer (NULL for scalars) */
    cl_mem *pin;       /* pinned path: the CL_MEM_ALLOC_HOST_PTR buffer behind host[i] */
    void **host;       /* per buffer argument: the host array */
    size_t *bytes;
};

static void bare_close(struct bare *b)
{
    const struct ht_spec *spec = b->spec;

    for (size_t i = 0; spec && i < spec->nargs; i++) {
        if (b->mem && b->mem[i])
            clReleaseMemObject(b->mem[i]);
        if (b->pin && b->pin[i]) {
            clEnqueueUnmapMemObject(b->q, b->pin[i], b->host[i], 0, NULL, NULL);
            clFinish(b->q);
            clReleaseMemObject(b->pin[i]);
        } else if (b->host) {
            free(b->host[i]);
        }
    }
    if (b->kernel)
        clReleaseKernel(b->kernel);
    if (b->prog)
        clReleaseProgram(b->prog);
    if (b->q)
        clReleaseCommandQueue(b->q);
    if (b->ctx)
        clReleaseContext(b->ctx);
    free(b->mem);
    free(b->pin);
    free(b->host);
    free(b->bytes);
    memset(b, 0, sizeof *b);
}

/* The configuration text "WG=64,EPT=2" as the spec's parameter values. */
static int parse_config(const struct ht_spec *spec, const char *text, int64_t *config)
{
    char copy[HT_STORE_CONFIG_MAX], *save = NULL, *tok;
    const char *assign[64];
    size_t n = 0;
    struct ht_error err;

    snprintf(copy, sizeof copy, "%s", text);
    for (tok = strtok_r(copy, ",", &save); tok && n < 64; tok = strtok_r(NULL, ",", &save))
        assign[n++] = tok;
    ht_error_clear(&err);
    if (ht_spec_config_from_assignments(spec, assign, n, config, &err) != HT_OK)
        return fail_ht("the runtime's configuration", &err);
    return 0;
}

/* Sets up the bare launch of spec on dev with the configuration config_text. */
static int bare_open(struct bare *b, const struct ht_spec *spec,
                     const struct ht_device_info *dev, const char *config_text, int sync)
{
    const struct ht_space_def *def = &spec->space;
    cl_device_id device = (cl_device_id)dev->cl_device;
    cl_context_properties props[3] = {CL_CONTEXT_PLATFORM,
                                      (cl_context_properties)dev->cl_platform, 0};
    int64_t *config = calloc(def->nparams ? def->nparams : 1, sizeof *config);
    int64_t *vars = calloc(def->names.count, sizeof *vars);
    uint64_t g[3], l[3];
    char *options = NULL;
    size_t cap = strlen(spec->kernel_options) + 1, len = 0;
    const char *src = spec->source;
    struct ht_error err;
    cl_int st;
    int rc = 1;

    memset(b, 0, sizeof *b);
    b->spec = spec;
    b->sync = sync;
    b->path = ht_data_path_resolve(HT_PATH_AUTO, dev);
    b->mem = calloc(spec->nargs, sizeof *b->mem);
    b->pin = calloc(spec->nargs, sizeof *b->pin);
    b->host = calloc(spec->nargs, sizeof *b->host);
    b->bytes = calloc(spec->nargs, sizeof *b->bytes);
    for (size_t i = 0; i < def->nparams; i++)
        cap += strlen(def->params[i].name) + 32;
    options = malloc(cap);
    if (!config || !vars || !b->mem || !b->pin || !b->host || !b->bytes || !options) {
        fprintf(stderr, "bench_runtime: out of memory\n");
        goto out;
    }
    if (spec->nargs > MAX_ARGS) {
        fprintf(stderr, "bench_runtime: more than %d arguments\n", MAX_ARGS);
        goto out;
    }
    if (parse_config(spec, config_text, config))
        goto out;
    ht_space_vars(def, dev, config, vars);
    ht_error_clear(&err);
    if (ht_space_ndrange(def, vars, g, l, &err) != HT_OK) {
        fail_ht("the NDRange", &err);
        goto out;
    }
    b->ndims = def->ndims;
    b->has_local = l[0] != 0;
    for (unsigned d = 0; d < 3; d++) {
        b->global[d] = (size_t)g[d];
        b->local[d] = (size_t)l[d];
    }
    /* The options hetune builds with: "-D NAME=value " per parameter, then the spec's. */
    options[0] = '\0';
    for (size_t i = 0; i < def->nparams; i++)
        len += (size_t)snprintf(options + len, cap - len, "-D %s=%lld ", def->params[i].name,
                                (long long)config[i]);
    snprintf(options + len, cap - len, "%s", spec->kernel_options);

    b->ctx = clCreateContext(props, 1, &device, NULL, NULL, &st);
    if (st != CL_SUCCESS) {
        fail_cl("clCreateContext", st);
        goto out;
    }
    b->q = clCreateCommandQueue(b->ctx, device, sync ? CL_QUEUE_PROFILING_ENABLE : 0, &st);
    if (st != CL_SUCCESS) {
        fail_cl("clCreateCommandQueue", st);
        goto out;
    }
    b->prog = clCreateProgramWithSource(b->ctx, 1, &src, &spec->source_len, &st);
    if (st == CL_SUCCESS)
        st = clBuildProgram(b->prog, 1, &device, options, NULL, NULL);
    if (st != CL_SUCCESS) {
        char log[4096] = "";
        if (b->prog)
            clGetProgramBuildInfo(b->prog, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log,
                                  NULL);
        fprintf(stderr, "bench_runtime: the bare program does not build (%d) with '%s':\n%s\n",
                (int)st, options, log);
        goto out;
    }
    b->kernel = clCreateKernel(b->prog, spec->kernel_name, &st);
    if (st != CL_SUCCESS) {
        fail_cl("clCreateKernel", st);
        goto out;
    }

    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *a = &spec->args[i];
        unsigned char val[8];
        size_t n = 1;

        if (!a->is_buffer) {
            int64_t v;
            if (ht_expr_eval(a->value, vars, &v) != HT_OK) {
                fprintf(stderr, "bench_runtime: the value of '%s' does not evaluate\n", a->name);
                goto out;
            }
            st = clSetKernelArg(b->kernel, (cl_uint)i, scalar_bytes(a, v, val), val);
            if (st != CL_SUCCESS) {
                fail_cl("clSetKernelArg", st);
                goto out;
            }
            continue;
        }
        for (unsigned x = 0; x < a->naxes; x++) {
            int64_t v;
            if (ht_expr_eval(a->shape[x], vars, &v) != HT_OK || v <= 0) {
                fprintf(stderr, "bench_runtime: the shape of '%s' does not evaluate\n", a->name);
                goto out;
            }
            n *= (size_t)v;
        }
        b->bytes[i] = n * ht_type_size(a->type);
        {
            cl_mem_flags flags = a->access == HT_ACCESS_READ    ? CL_MEM_READ_ONLY
                                 : a->access == HT_ACCESS_WRITE ? CL_MEM_WRITE_ONLY
                                                                : CL_MEM_READ_WRITE;
            void *host = NULL;
            if (a->access != HT_ACCESS_TEMP && b->path == HT_PATH_INPLACE) {
                host = b->host[i] = page_alloc(b->bytes[i]);
                if (!host) {
                    fprintf(stderr, "bench_runtime: out of memory\n");
                    goto out;
                }
                flags |= CL_MEM_USE_HOST_PTR;
            } else if (a->access != HT_ACCESS_TEMP) {
                b->pin[i] = clCreateBuffer(b->ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE,
                                           b->bytes[i], NULL, &st);
                if (st == CL_SUCCESS)
                    b->host[i] = clEnqueueMapBuffer(b->q, b->pin[i], CL_TRUE,
                                                    CL_MAP_READ | CL_MAP_WRITE, 0, b->bytes[i],
                                                    0, NULL, NULL, &st);
                if (st != CL_SUCCESS) {
                    fail_cl("pinned host memory", st);
                    goto out;
                }
            }
            b->mem[i] = clCreateBuffer(b->ctx, flags, b->bytes[i], host, &st);
            if (st == CL_SUCCESS)
                st = clSetKernelArg(b->kernel, (cl_uint)i, sizeof(cl_mem), &b->mem[i]);
            if (st != CL_SUCCESS) {
                fail_cl("clCreateBuffer/clSetKernelArg", st);
                goto out;
            }
        }
    }
    rc = 0;
out:
    free(config);
    free(vars);
    free(options);
    if (rc)
        bare_close(b);
    return rc;
}

/* The end of a stage with b->sync: the queue finished, then each command's event profiled
 * and released (what the runtime's device thread does after its inputs, its kernel and its
 * outputs: finish_device). */
static cl_int stage_end(struct bare *b, cl_int st, cl_event *ev, size_t *nev)
{
    if (!b->sync)
        return st;
    if (st == CL_SUCCESS)
        st = clFinish(b->q);
    for (size_t k = 0; k < *nev; k++) {
        cl_ulong t0 = 0, t1 = 0;
        if (st == CL_SUCCESS)
            st = clGetEventProfilingInfo(ev[k], CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        if (st == CL_SUCCESS)
            st = clGetEventProfilingInfo(ev[k], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        clReleaseEvent(ev[k]);
    }
    *nev = 0;
    return st;
}

/* One bare launch, the commands hetune's data path issues, blocking until the outputs are
 * in the host arrays. With b->sync, also the runtime's waits (stage_end) after the inputs,
 * the kernel and the outputs. */
static int bare_launch(struct bare *b)
{
    const struct ht_spec *spec = b->spec;
    cl_event ev[MAX_ARGS + 1];
    size_t nev = 0;
    cl_int st = CL_SUCCESS;

    if (b->path != HT_PATH_INPLACE)
        for (size_t i = 0; st == CL_SUCCESS && i < spec->nargs; i++)
            if (is_input(&spec->args[i]))
                st = clEnqueueWriteBuffer(b->q, b->mem[i], CL_FALSE, 0, b->bytes[i], b->host[i],
                                          0, NULL, b->sync ? &ev[nev++] : NULL);
    st = stage_end(b, st, ev, &nev);
    if (st == CL_SUCCESS)
        st = clEnqueueNDRangeKernel(b->q, b->kernel, b->ndims, NULL, b->global,
                                    b->has_local ? b->local : NULL, 0, NULL,
                                    b->sync ? &ev[nev++] : NULL);
    st = stage_end(b, st, ev, &nev);
    for (size_t i = 0; st == CL_SUCCESS && i < spec->nargs; i++) {
        if (!is_output(&spec->args[i]))
            continue;
        if (b->path == HT_PATH_INPLACE) {
            /* What makes the host see what the device wrote in place (ht__inst_sync). */
            void *p = clEnqueueMapBuffer(b->q, b->mem[i], CL_TRUE, CL_MAP_READ, 0, b->bytes[i],
                                         0, NULL, NULL, &st);
            if (st == CL_SUCCESS)
                st = clEnqueueUnmapMemObject(b->q, b->mem[i], p, 0, NULL, NULL);
            if (st == CL_SUCCESS)
                st = clFinish(b->q);
        } else {
            st = clEnqueueReadBuffer(b->q, b->mem[i], CL_FALSE, 0, b->bytes[i], b->host[i], 0,
                                     NULL, b->sync ? &ev[nev++] : NULL);
        }
    }
    st = stage_end(b, st, ev, &nev);
    if (st == CL_SUCCESS)
        st = clFinish(b->q);
    return st == CL_SUCCESS ? 0 : fail_cl("a bare launch", st);
}

/* --- the runtime side --- */

struct rtside {
    struct ht_runtime *rt;
    void **arrays; /* per argument: the bound array (NULL for scalars and temps) */
    size_t *bytes;
};

static void rt_close(struct rtside *r)
{
    ht_runtime_close(r->rt); /* frees the arrays of ht_runtime_alloc */
    free(r->arrays);
    free(r->bytes);
    memset(r, 0, sizeof *r);
}

static int rt_open(struct rtside *r, const struct ht_spec *spec, const char *specpath,
                   const struct ht_size_override *size, const char *db, const char *devices,
                   enum ht_runtime_mode mode)
{
    struct ht_runtime_opts o;
    struct ht_error err;

    memset(r, 0, sizeof *r);
    r->arrays = calloc(spec->nargs, sizeof *r->arrays);
    r->bytes = calloc(spec->nargs, sizeof *r->bytes);
    if (!r->arrays || !r->bytes) {
        fprintf(stderr, "bench_runtime: out of memory\n");
        rt_close(r);
        return 1;
    }
    ht_error_clear(&err);
    ht_runtime_opts_init(&o);
    o.db = db;
    o.devices = devices;
    o.tune_missing = 1;
    o.mode = mode;
    if (ht_runtime_open(specpath, size, 1, &o, &r->rt, &err) != HT_OK) {
        rt_close(r);
        return fail_ht("cannot open the runtime", &err);
    }
    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *a = &spec->args[i];
        if (!a->is_buffer || a->access == HT_ACCESS_TEMP)
            continue;
        if (ht_runtime_arg_bytes(r->rt, a->name, &r->bytes[i], &err) != HT_OK ||
            !(r->arrays[i] = ht_runtime_alloc(r->rt, r->bytes[i], &err)) ||
            ht_runtime_bind(r->rt, a->name, r->arrays[i], r->bytes[i], &err) != HT_OK) {
            rt_close(r);
            return fail_ht("cannot bind the arrays", &err);
        }
        if (is_input(a))
            fill_input(a, r->arrays[i], r->bytes[i]);
    }
    return 0;
}

static int rt_launch(struct rtside *r)
{
    struct ht_error err;

    ht_error_clear(&err);
    if (ht_runtime_launch(r->rt, &err) != HT_OK)
        return fail_ht("a runtime launch", &err);
    return 0;
}

/* --- one case --- */

struct result {
    struct stats rt, bare, sync;
    int have_bare;
};

/* Both sides once on the same inputs (outputs poisoned first): the same bytes out. */
static int check_same(const struct ht_spec *spec, struct rtside *r, struct bare *b)
{
    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *a = &spec->args[i];
        if (!a->is_buffer || a->access == HT_ACCESS_TEMP)
            continue;
        if (r->bytes[i] != b->bytes[i]) {
            fprintf(stderr, "bench_runtime: '%s' is %zu bytes in the runtime, %zu bare\n",
                    a->name, r->bytes[i], b->bytes[i]);
            return 1;
        }
        if (is_input(a))
            memcpy(b->host[i], r->arrays[i], r->bytes[i]);
        else
            memset(r->arrays[i], 0xA5, r->bytes[i]);
        if (!is_input(a))
            memset(b->host[i], 0x5A, b->bytes[i]);
    }
    if (rt_launch(r) || bare_launch(b))
        return 1;
    for (size_t i = 0; i < spec->nargs; i++)
        if (is_output(&spec->args[i]) && memcmp(r->arrays[i], b->host[i], r->bytes[i])) {
            fprintf(stderr, "bench_runtime: output '%s' differs between the runtime and the "
                            "bare launch\n", spec->args[i].name);
            return 1;
        }
    return 0;
}

/* Times the runtime over devices (mode) and, for one device, the bare launch and the bare
 * launch with the runtime's waits (bare+sync) beside it. */
static int run_case(const struct ht_spec *spec, const char *specpath,
                    const struct ht_size_override *size, const char *db, const char *devices,
                    enum ht_runtime_mode mode, unsigned launches, struct result *res)
{
    struct rtside r;
    struct bare b, bs;
    const struct ht_runtime_info *info;
    double *t[3], *tkern = calloc(launches, sizeof *tkern);
    int single = mode == HT_RUNTIME_ALONE, rc = 1, nsides = single ? 3 : 1;

    memset(&r, 0, sizeof r);
    memset(&b, 0, sizeof b);
    memset(&bs, 0, sizeof bs);
    memset(res, 0, sizeof *res);
    for (int k = 0; k < 3; k++)
        t[k] = calloc(launches, sizeof *t[k]);
    if (!t[0] || !t[1] || !t[2] || !tkern) {
        fprintf(stderr, "bench_runtime: out of memory\n");
        goto out;
    }
    if (rt_open(&r, spec, specpath, size, db, devices, mode))
        goto out;
    info = ht_runtime_info(r.rt);
    for (size_t k = 0; k < info->ndevices; k++) {
        const struct ht_runtime_device *d = &info->devices[k];
        if (!d->used)
            continue;
        printf("  device %zu %s: %s, share %.3f, path %s, tuned kernel %.1f us%s\n",
               d->dev->index, d->dev->name, d->config, d->share,
               ht_data_path_name(ht_data_path_resolve(HT_PATH_AUTO, d->dev)), 1e6 * d->tuned_s,
               d->tuned_now ? " (tuned now)" : "");
    }
    if (single) {
        size_t k = info->fastest;
        if (bare_open(&b, spec, info->devices[k].dev, info->devices[k].config, 0) ||
            bare_open(&bs, spec, info->devices[k].dev, info->devices[k].config, 1))
            goto out;
        printf("  bare: global %zu x %zu x %zu, local ", b.global[0], b.global[1], b.global[2]);
        if (b.has_local)
            printf("%zu x %zu x %zu\n", b.local[0], b.local[1], b.local[2]);
        else
            printf("(the OpenCL runtime's choice)\n");
        if (check_same(spec, &r, &b) || check_same(spec, &r, &bs))
            goto out;
    }
    for (unsigned w = 0; w < WARMUP; w++)
        if (rt_launch(&r) || (single && (bare_launch(&b) || bare_launch(&bs))))
            goto out;
    for (unsigned l = 0; l < launches; l++) {
        /* Turns, the order rotated every launch, so that no side always follows the same
         * other. Side 0 is the runtime, 1 bare, 2 bare+sync. */
        for (int k = 0; k < nsides; k++) {
            int side = (k + (int)(l % (unsigned)nsides)) % nsides;
            double t0 = now_s();
            if (side == 0 ? rt_launch(&r) : bare_launch(side == 1 ? &b : &bs))
                goto out;
            t[side][l] = now_s() - t0;
            if (side == 0) {
                const struct ht_coexec_result *last = ht_runtime_last(r.rt);
                double kmax = 0;
                for (size_t d = 0; last && d < last->ndevices; d++)
                    if (last->devices[d].kernel_s > kmax)
                        kmax = last->devices[d].kernel_s;
                tkern[l] = kmax;
            }
        }
    }
    res->rt = stats_of(t[0], launches);
    if (single) {
        res->bare = stats_of(t[1], launches);
        res->sync = stats_of(t[2], launches);
        res->have_bare = 1;
    }
    printf("  kernel as the runtime profiles it (slowest device): median %.1f us\n",
           1e6 * stats_of(tkern, launches).median);
    rc = 0;
out:
    bare_close(&b);
    bare_close(&bs);
    rt_close(&r);
    for (int k = 0; k < 3; k++)
        free(t[k]);
    free(tkern);
    return rc;
}

/* --- main --- */

static void remove_db(const char *dir, const char *db)
{
    static const char *const extra[] = {"", "-wal", "-shm", "-journal"};
    char path[4200];

    for (size_t i = 0; i < sizeof extra / sizeof *extra; i++) {
        snprintf(path, sizeof path, "%s%s", db, extra[i]);
        unlink(path);
    }
    rmdir(dir);
}

int main(int argc, char **argv)
{
    const char *specpath = argc > 1 ? argv[1] : HETUNE_SOURCE_DIR "/examples/vecadd/spec.json";
    const char *sizearg = argc > 2 ? argv[2] : "4096";
    long launches = argc > 3 ? atol(argv[3]) : 2000;
    const char *env_db = getenv("HETUNE_DB");
    char dir[] = "/tmp/hetune-bench-runtime-XXXXXX", db[4200], namebuf[128];
    char list[MAX_DEVICES * 8] = "";
    size_t idx[MAX_DEVICES], ndev = 0;
    struct ht_size_override size = {"N", 0};
    struct ht_spec *spec = NULL;
    struct ht_platform *plat = NULL;
    struct ht_error err;
    struct result single[MAX_DEVICES];
    int status = 1, made_dir = 0, all_within = 1;

    if (argc > 5 || (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))) {
        fprintf(stderr, "usage: bench_runtime [SPEC] [N | NAME=VALUE] [LAUNCHES] [DEVICES]\n");
        return argc > 5 ? 2 : 0;
    }
    if (strchr(sizearg, '=')) {
        const char *eq = strchr(sizearg, '=');
        snprintf(namebuf, sizeof namebuf, "%.*s", (int)(eq - sizearg), sizearg);
        size.name = namebuf;
        size.value = atoll(eq + 1);
    } else {
        size.value = atoll(sizearg);
    }
    if (size.value <= 0 || launches <= 0) {
        fprintf(stderr, "bench_runtime: the size and the launches must be positive\n");
        return 2;
    }
    ht_error_clear(&err);
    if (ht_spec_load(specpath, &size, 1, &spec, &err) != HT_OK) {
        status = fail_ht("cannot load the spec", &err);
        goto out;
    }
    if (spec->npipeline) {
        fprintf(stderr, "bench_runtime: '%s' is a pipeline: one kernel only\n", spec->name);
        goto out;
    }
    if (ht_platform_discover(&plat, &err) != HT_OK) {
        status = fail_ht("no OpenCL device", &err);
        goto out;
    }
    if (argc > 4 && strcmp(argv[4], "all")) {
        char copy[256], *save = NULL, *tok;
        snprintf(copy, sizeof copy, "%s", argv[4]);
        for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            char *end;
            unsigned long v = strtoul(tok, &end, 10);
            if (*end || v >= plat->count || ndev == MAX_DEVICES) {
                fprintf(stderr, "bench_runtime: no device '%s' (there are %zu)\n", tok,
                        plat->count);
                status = 2;
                goto out;
            }
            idx[ndev++] = v;
        }
    } else {
        for (size_t i = 0; i < plat->count && ndev < MAX_DEVICES; i++)
            idx[ndev++] = i;
    }
    if (ndev == 0) {
        fprintf(stderr, "bench_runtime: no device given\n");
        status = 2;
        goto out;
    }
    if (env_db) {
        snprintf(db, sizeof db, "%s", env_db);
    } else {
        if (!mkdtemp(dir)) {
            perror("bench_runtime: mkdtemp");
            goto out;
        }
        made_dir = 1;
        snprintf(db, sizeof db, "%s/hetune.db", dir);
    }
    printf("bench_runtime: spec %s (%s), %s=%lld, %ld launches a case (after %d untimed), "
           "database %s\n", spec->name, specpath, size.name, (long long)size.value, launches,
           WARMUP, db);
    printf("one launch: ht_runtime_launch against the same commands in plain OpenCL, taking "
           "turns; times in us\n");

    for (size_t k = 0; k < ndev; k++) {
        char one[24];
        snprintf(one, sizeof one, "%zu", idx[k]);
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%zu", k ? "," : "",
                 idx[k]);
        printf("case device %zu alone:\n", idx[k]);
        fflush(stdout);
        if (run_case(spec, specpath, &size, db, one, HT_RUNTIME_ALONE, (unsigned)launches,
                     &single[k]))
            goto out;
    }

    printf("\nmedian (and mean of the best half) of one launch, us; diff and ratio: runtime "
           "against bare, medians\n");
    printf("%-10s %17s %17s %17s %8s %7s  %s\n", "case", "runtime", "bare", "bare+sync",
           "diff", "ratio", "goal (diff <= 50 us)");
    for (size_t k = 0; k < ndev; k++) {
        const struct result *s = &single[k];
        double diff = 1e6 * (s->rt.median - s->bare.median);
        char name[32];
        snprintf(name, sizeof name, "device %zu", idx[k]);
        if (diff > GOAL_US)
            all_within = 0;
        printf("%-10s %7.1f (%7.1f) %7.1f (%7.1f) %7.1f (%7.1f) %8.1f %7.2f  %s\n", name,
               1e6 * s->rt.median, 1e6 * s->rt.best_half, 1e6 * s->bare.median,
               1e6 * s->bare.best_half, 1e6 * s->sync.median, 1e6 * s->sync.best_half, diff,
               s->rt.median / s->bare.median, diff <= GOAL_US ? "within" : "OVER");
    }
    printf("where the difference goes (medians): bare+sync - bare = the runtime's waits and "
           "events; runtime - bare+sync = the rest (host threads, bookkeeping)\n");
    for (size_t k = 0; k < ndev; k++)
        printf("  device %zu: waits and events %.1f us, the rest %.1f us\n", idx[k],
               1e6 * (single[k].sync.median - single[k].bare.median),
               1e6 * (single[k].rt.median - single[k].sync.median));
    fflush(stdout);

    if (ndev >= 2) {
        struct result sp;
        double sum = 0, max = 0;
        printf("\ncase split over %s:\n", list);
        fflush(stdout);
        if (run_case(spec, specpath, &size, db, list, HT_RUNTIME_SPLIT, (unsigned)launches, &sp))
            goto out;
        for (size_t k = 0; k < ndev; k++) {
            sum += single[k].bare.median;
            max = fmax(max, single[k].bare.median);
        }
        printf("%-10s %7.1f (%7.1f)   information: the bare single-device medians sum to "
               "%.1f, their max is %.1f\n", "split", 1e6 * sp.rt.median, 1e6 * sp.rt.best_half,
               1e6 * sum, 1e6 * max);
    }
    printf("\n%s\n", all_within ? "every single-device launch is within the 50 us goal"
                                : "a single-device launch is OVER the 50 us goal");
    status = 0;
out:
    ht_platform_free(plat);
    ht_spec_free(spec);
    if (made_dir)
        remove_db(dir, db);
    return status;
}
