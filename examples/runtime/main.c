/* Calling hetune from your own program: vector addition a = b + c on the program's own
 * arrays, co-executed on every OpenCL device with each device's tuned configuration.
 *
 *   runtime-example [SPEC] [N] [auto|split|alone]
 *
 * SPEC defaults to ../vecadd/spec.json (run it from examples/runtime/), N to 1048576, the
 * mode to auto (split when the runtime predicts that it pays, else the fastest alone). The
 * results database is a temporary file (or $HETUNE_DB when set): the first run tunes each
 * device briefly (a random search of 12 configurations), then the runtime decides whether
 * splitting pays and launches 20 times, with new inputs each time, checking every output
 * element. Exit status 0 when every result is right, 1 otherwise (with a message). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hetune.h>

#define LAUNCHES 20

static int fail(const char *what, const struct ht_error *err)
{
    char msg[2600];
    ht_error_format(err, msg, sizeof msg);
    fprintf(stderr, "runtime-example: %s: %s\n", what, msg);
    return 1;
}

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "../vecadd/spec.json";
    long long n = argc > 2 ? atoll(argv[2]) : 1048576;
    char dir[] = "/tmp/hetune-runtime-XXXXXX", db[4096];
    const char *env_db = getenv("HETUNE_DB");
    struct ht_size_override size = {"N", 0};
    struct ht_runtime_opts opts;
    struct ht_runtime *rt = NULL;
    const struct ht_runtime_info *info;
    struct ht_error err;
    float *a, *b, *c;
    size_t bytes = 0, wrong = 0;
    double total_s = 0;
    int status = 1;

    if (argc > 3 && strcmp(argv[3], "auto") && strcmp(argv[3], "split") &&
        strcmp(argv[3], "alone")) {
        fprintf(stderr, "runtime-example: the mode is auto, split or alone, not '%s'\n",
                argv[3]);
        return 2;
    }
    if (n <= 0 || n % 8) {
        fprintf(stderr, "runtime-example: N must be a positive multiple of 8\n");
        return 2;
    }
    size.value = n;
    if (env_db) {
        snprintf(db, sizeof db, "%s", env_db);
    } else {
        if (!mkdtemp(dir)) {
            perror("runtime-example: mkdtemp");
            return 1;
        }
        snprintf(db, sizeof db, "%s/hetune.db", dir);
    }

    /* Open once: devices, tuned configurations (tuning what is missing), the plan,
     * contexts, programs and buffers. */
    ht_error_clear(&err);
    ht_runtime_opts_init(&opts);
    opts.db = db;
    opts.tune_missing = 1;
    opts.strategy = "random";
    opts.budget = 12;
    if (argc > 3)
        opts.mode = !strcmp(argv[3], "split")   ? HT_RUNTIME_SPLIT
                    : !strcmp(argv[3], "alone") ? HT_RUNTIME_ALONE
                                                : HT_RUNTIME_AUTO;
    if (ht_runtime_open(spec, &size, 1, &opts, &rt, &err) != HT_OK) {
        status = fail("cannot open the runtime", &err);
        goto out;
    }
    info = ht_runtime_info(rt);
    printf("spec        %s, N = %lld, database %s\n", info->spec, n, db);
    for (size_t i = 0; i < info->ndevices; i++) {
        const struct ht_runtime_device *d = &info->devices[i];
        printf("device %zu    %s: %s, tuned %.3f ms%s, %s share %.3f\n", d->dev->index,
               d->dev->name, d->config, 1e3 * d->tuned_s, d->tuned_now ? " (tuned now)" : "",
               d->used ? "used," : "not used,", d->share);
    }
    printf("decision    %s\n", info->decision);
    if (info->written[0]) /* outputs without "index": what the probe found */
        printf("written     %s\n", info->written);

    /* The program's arrays, in memory the data path likes (a program may bind its own). */
    if (ht_runtime_arg_bytes(rt, "a", &bytes, &err) != HT_OK ||
        bytes != (size_t)n * sizeof(float)) {
        status = fail("the spec's array a", &err);
        goto out;
    }
    a = ht_runtime_alloc(rt, bytes, &err);
    b = a ? ht_runtime_alloc(rt, bytes, &err) : NULL;
    c = b ? ht_runtime_alloc(rt, bytes, &err) : NULL;
    if (!c) {
        status = fail("cannot allocate the arrays", &err);
        goto out;
    }
    if (ht_runtime_bind(rt, "a", a, bytes, &err) != HT_OK ||
        ht_runtime_bind(rt, "b", b, bytes, &err) != HT_OK ||
        ht_runtime_bind(rt, "c", c, bytes, &err) != HT_OK) {
        status = fail("cannot bind the arrays", &err);
        goto out;
    }

    /* Launch many times, with new inputs each time. */
    for (int l = 0; l < LAUNCHES; l++) {
        for (long long i = 0; i < n; i++) {
            b[i] = (float)((i * 7 + l) % 1000) * 0.5f;
            c[i] = (float)(l + 1) - (float)(i % 13);
            a[i] = -1e30f; /* an element nobody writes stays wrong */
        }
        if (ht_runtime_launch(rt, &err) != HT_OK) {
            status = fail("launch failed", &err);
            goto out;
        }
        total_s += ht_runtime_info(rt)->last_wall_s;
        for (long long i = 0; i < n; i++) {
            if (a[i] != b[i] + c[i]) {
                if (wrong++ == 0)
                    fprintf(stderr,
                            "runtime-example: launch %d: a[%lld] = %g, expected %g + %g\n", l,
                            i, (double)a[i], (double)b[i], (double)c[i]);
            }
        }
    }
    info = ht_runtime_info(rt);
    for (size_t i = 0; i < info->ndevices; i++)
        if (info->devices[i].used)
            printf("last launch device %zu: kernel %.3f ms, transfers %.3f ms\n",
                   info->devices[i].dev->index, 1e3 * info->devices[i].kernel_s,
                   1e3 * info->devices[i].transfer_s);
    printf("launches    %llu, mean wall %.3f ms\n", (unsigned long long)info->launches,
           1e3 * total_s / LAUNCHES);
    /* Mode AUTO watches a split's first launches against the fastest device alone. */
    if (info->switches)
        printf("watch       %u switches (%.1f ms), %u rechecks: %s\n", info->switches,
               1e3 * info->switch_s, info->rechecks, info->decision);
    if (wrong) {
        fprintf(stderr, "runtime-example: %zu wrong elements\n", wrong);
        goto out;
    }
    printf("result      all %d launches right\n", LAUNCHES);
    status = 0;
out:
    ht_runtime_close(rt); /* frees a, b and c too */
    if (!env_db) {
        unlink(db);
        rmdir(dir);
    }
    return status;
}
