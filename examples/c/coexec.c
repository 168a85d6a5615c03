/* Co-execution through the runtime API with a kernel and spec the program writes itself:
 * y = ALPHA * x + y (an in-place update, so y is read and written), one launch split
 * between two OpenCL contexts, and what each took of it.
 *
 *   coexec-example [N]
 *
 * N defaults to 262144 (a multiple of 256). The program writes kernel.cl and spec.json into
 * a temporary folder, opens the runtime on every device, or on device 0 twice when there is
 * only one (two contexts on one device: a split still takes place), forced to split
 * (HT_RUNTIME_SPLIT), tuning each device briefly into a temporary database first. It then
 * launches 5 times on its own arrays (malloc'd: the runtime does not need its own memory),
 * checks every element after each, and prints each context's share, chunks and times from
 * ht_runtime_last. examples/runtime/main.c is the other example of this API: vecadd from
 * the examples' specs, with the split-or-not decision left to the runtime.
 *
 * Exit status 0 when every element of every launch is right and the contexts' owned parts
 * add up to the whole, 77 when there is no OpenCL platform, 1 otherwise (with a message). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#endif
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hetune.h>

#define LAUNCHES 5
#define ALPHA 2.0f

static const char kernel_cl[] =
    "__kernel void axpy(const uint n, __global float *y, __global const float *x)\n"
    "{\n"
    "    const size_t i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        y[i] = ALPHA * x[i] + y[i];\n"
    "}\n";

/* One work-item per element, the work-group size WG tuned; y is split along gx. */
static const char spec_json[] =
    "{\n"
    "  \"name\": \"axpy\",\n"
    "  \"kernel\": { \"file\": \"kernel.cl\", \"name\": \"axpy\", \"options\": \"-D ALPHA=2.0f\" },\n"
    "  \"sizes\": { \"N\": 262144 },\n"
    "  \"ndrange\": { \"global\": [\"N\"], \"local\": [\"WG\"] },\n"
    "  \"params\": { \"WG\": { \"range\": [1, \"min(256, max_work_group_size)\"], \"pow2\": true } },\n"
    "  \"args\": [\n"
    "    { \"name\": \"n\", \"type\": \"uint\", \"value\": \"N\" },\n"
    "    { \"name\": \"y\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"readwrite\", \"init\": \"random\", \"index\": [\"gx\"] },\n"
    "    { \"name\": \"x\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"read\", \"init\": \"random\", \"index\": [\"gx\"] }\n"
    "  ],\n"
    "  \"verify\": { \"reference\": { \"WG\": 1 }, \"rtol\": 1e-6, \"atol\": 0 },\n"
    "  \"timing\": { \"repeats\": 3, \"keep_best\": 2 }\n"
    "}\n";

static int write_file(const char *dir, const char *name, const char *text, char *path,
                      size_t size)
{
    FILE *f;
    int bad;
    snprintf(path, size, "%s/%s", dir, name);
    if (!(f = fopen(path, "w"))) {
        perror(path);
        return -1;
    }
    bad = fputs(text, f) == EOF;
    if (fclose(f) != 0 || bad) {
        perror(path);
        return -1;
    }
    return 0;
}

static int fail(const char *what, const struct ht_error *err, int status)
{
    char msg[2600];
    ht_error_format(err, msg, sizeof msg);
    fprintf(stderr, "coexec-example: %s: %s\n", what, msg);
    return status;
}

int main(int argc, char **argv)
{
    long long n = argc > 1 ? atoll(argv[1]) : 262144;
    char dir[] = "/tmp/hetune-coexec-example-XXXXXX";
    char kernel[4096] = "", spec[4096] = "", db[4096] = "";
    struct ht_size_override size = {"N", 0};
    struct ht_platform *p = NULL;
    struct ht_runtime_opts opts;
    struct ht_runtime *rt = NULL;
    const struct ht_runtime_info *info;
    const struct ht_coexec_result *last;
    struct ht_error err;
    float *x = NULL, *y = NULL, *want = NULL;
    size_t bytes = 0, wrong = 0;
    int status = 1, rc;

    if (n <= 0 || n % 256) {
        fprintf(stderr, "coexec-example: N must be a positive multiple of 256\n");
        return 2;
    }
    size.value = n;
    ht_error_clear(&err);

    /* Which devices: all of them, or device 0 twice when it is alone. */
    if ((rc = ht_platform_discover(&p, &err)) != HT_OK)
        return fail("no device", &err, rc == HT_ENOPLATFORM ? 77 : 1);
    ht_runtime_opts_init(&opts);
    opts.devices = p->count > 1 ? "all" : "0,0";
    ht_platform_free(p);

    if (!mkdtemp(dir)) {
        perror("coexec-example: mkdtemp");
        return 1;
    }
    snprintf(db, sizeof db, "%s/hetune.db", dir);
    if (write_file(dir, "kernel.cl", kernel_cl, kernel, sizeof kernel) ||
        write_file(dir, "spec.json", spec_json, spec, sizeof spec))
        goto out;

    opts.db = db;
    opts.tune_missing = 1;
    opts.strategy = "random";
    opts.budget = 4;
    opts.mode = HT_RUNTIME_SPLIT;
    if (ht_runtime_open(spec, &size, 1, &opts, &rt, &err) != HT_OK) {
        status = fail("cannot open the runtime", &err, 1);
        goto out;
    }
    info = ht_runtime_info(rt);
    printf("axpy        N = %lld on %zu contexts (devices %s)\n", n, info->ndevices,
           opts.devices);
    printf("decision    %s\n", info->decision);
    if (!info->split) {
        fprintf(stderr, "coexec-example: the runtime did not split\n");
        goto out;
    }

    /* The program's own arrays: any memory will do. */
    if (ht_runtime_arg_bytes(rt, "y", &bytes, &err) != HT_OK ||
        bytes != (size_t)n * sizeof(float)) {
        status = fail("the spec's array y", &err, 1);
        goto out;
    }
    x = malloc(bytes);
    y = malloc(bytes);
    want = malloc(bytes);
    if (!x || !y || !want) {
        fprintf(stderr, "coexec-example: out of memory\n");
        goto out;
    }
    if (ht_runtime_bind(rt, "x", x, bytes, &err) != HT_OK ||
        ht_runtime_bind(rt, "y", y, bytes, &err) != HT_OK) {
        status = fail("cannot bind the arrays", &err, 1);
        goto out;
    }
    for (long long i = 0; i < n; i++)
        y[i] = (float)(i % 100);

    /* y accumulates: each launch reads what the one before wrote. */
    for (int l = 0; l < LAUNCHES; l++) {
        for (long long i = 0; i < n; i++) {
            x[i] = (float)((i + l) % 7) - 3.0f;
            want[i] = ALPHA * x[i] + y[i];
        }
        if (ht_runtime_launch(rt, &err) != HT_OK) {
            status = fail("launch failed", &err, 1);
            goto out;
        }
        for (long long i = 0; i < n; i++)
            if (fabsf(y[i] - want[i]) > 1e-6f * fabsf(want[i]) && wrong++ == 0)
                fprintf(stderr, "coexec-example: launch %d: y[%lld] = %g, expected %g\n", l,
                        i, (double)y[i], (double)want[i]);
    }
    if (wrong) {
        fprintf(stderr, "coexec-example: %zu wrong elements\n", wrong);
        goto out;
    }

    /* What each context did in the last launch. */
    last = ht_runtime_last(rt);
    info = ht_runtime_info(rt);
    if (!last) {
        fprintf(stderr, "coexec-example: no last launch\n");
        goto out;
    }
    uint64_t owned = 0;
    for (size_t i = 0; i < last->ndevices; i++) {
        const struct ht_coexec_device_result *d = &last->devices[i];
        printf("context %zu   %s: %s, owned %" PRIu64 " of %" PRIu64 " (%.1f%%) in %u chunk%s,"
               " kernel %.3f ms, transfers %.3f ms\n",
               i, info->devices[i].dev->name, info->devices[i].config, d->owned, last->global,
               100.0 * d->share, d->chunks, d->chunks == 1 ? "" : "s", 1e3 * d->kernel_s,
               1e3 * (d->write_s + d->read_s));
        owned += d->owned;
    }
    if (last->ndevices < 2 || owned != last->global) {
        fprintf(stderr, "coexec-example: %zu contexts owned %" PRIu64 " of %" PRIu64 "\n",
                last->ndevices, owned, last->global);
        goto out;
    }
    printf("result      all %d launches right, wall of the last launch %.3f ms\n", LAUNCHES,
           1e3 * info->last_wall_s);
    status = 0;
out:
    ht_runtime_close(rt); /* before the arrays it reads */
    free(x);
    free(y);
    free(want);
    if (*db) {
        static const char *const suffix[] = {"", "-wal", "-shm"};
        char f[4200];
        for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
            snprintf(f, sizeof f, "%s%s", db, suffix[i]);
            unlink(f);
        }
    }
    if (*kernel)
        unlink(kernel);
    if (*spec)
        unlink(spec);
    if (*db)
        rmdir(dir);
    return status;
}
