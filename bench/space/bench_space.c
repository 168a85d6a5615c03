/* bench_space: the native enumerator against the paper's MiniZinc model, side by side in
 * one run. For each space (the paper's matmul, conv1d and Fermi spaces, and a GEMM-like
 * space of twelve parameters) on a fixed Fermi-like device (and, with --real, on every
 * OpenCL device found) it prints the unpruned size, the size left by the platform rules,
 * the valid configurations found by each backend, each backend's time (both counts and
 * the visit of every valid configuration, the native time being the best of several
 * runs) and the ratio MiniZinc / native. The two sets of valid configurations are
 * compared by an order-independent hash of the configurations; the program exits 1 when
 * they differ.
 *
 * usage: bench_space [--real] [--no-minizinc] [--repeat N] [SOURCE_DIR]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune.h"
#include "fermi.h"

#ifndef HETUNE_SOURCE_DIR
#define HETUNE_SOURCE_DIR "."
#endif

/* A multiset hash of the visited configurations: their number, and the sum and the xor
 * of a 64-bit hash of each. */
struct digest {
    size_t nparams;
    uint64_t n, sum, xor;
};

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
}

static int visit(const int64_t *config, void *user)
{
    struct digest *d = user;
    uint64_t h = UINT64_C(0x9e3779b97f4a7c15);
    for (size_t i = 0; i < d->nparams; i++)
        h = mix(h ^ (uint64_t)config[i]) + i;
    d->n++;
    d->sum += h;
    d->xor ^= mix(h);
    return 0;
}

/* Runs one backend; returns 0 and fills counts and digest, or prints the error. */
static int run(const char *backend, const struct ht_space *s, size_t nparams,
               struct ht_space_counts *c, struct digest *d)
{
    struct ht_error err;
    char msg[4096];
    int rc;

    ht_error_clear(&err);
    memset(d, 0, sizeof *d);
    d->nparams = nparams;
    rc = ht_space_backend_find(backend)->solve(s, c, visit, d, &err);
    if (rc != 0) {
        ht_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "bench_space: %s: %s\n", backend, msg);
    }
    return rc;
}

int main(int argc, char **argv)
{
    static const char *const specs[] = {"examples/matmul/spec.json",
                                        "examples/conv1d/spec.json",
                                        "examples/fermi/spec.json", "bench/space/gemm.json"};
    const char *src = HETUNE_SOURCE_DIR;
    int real = 0, mzn = 1, repeat = 5, status = 0;
    struct ht_platform *plat = NULL;
    struct ht_device_info synth = fermi_like();
    const struct ht_device_info **devs = NULL;
    size_t ndevs = 1;
    double worst_ratio_largest = 0;
    struct ht_error err;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--real"))
            real = 1;
        else if (!strcmp(argv[i], "--no-minizinc"))
            mzn = 0;
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (argv[i][0] != '-')
            src = argv[i];
        else {
            fprintf(stderr, "usage: bench_space [--real] [--no-minizinc] [--repeat N] "
                            "[SOURCE_DIR]\n");
            return 2;
        }
    }
    if (repeat < 1)
        repeat = 1;
    ht_error_clear(&err);
    if (real && ht_platform_discover(&plat, &err) != 0) {
        fprintf(stderr, "bench_space: no OpenCL devices (%s); the synthetic device only\n",
                err.text);
        plat = NULL;
    }
    ndevs = 1 + (plat ? plat->count : 0);
    devs = calloc(ndevs, sizeof *devs);
    if (!devs)
        return 1;
    devs[0] = &synth;
    for (size_t i = 1; i < ndevs; i++)
        devs[i] = &plat->devices[i - 1];

    printf("%-7s %-28s %12s %10s %9s %9s %11s %11s %9s %5s\n", "space", "device", "unpruned",
           "platform", "native", "minizinc", "native s", "minizinc s", "ratio", "same");
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        char path[4096];
        struct ht_spec *spec = NULL;

        snprintf(path, sizeof path, "%s/%s", src, specs[k]);
        ht_error_clear(&err);
        if (ht_spec_load(path, NULL, 0, &spec, &err) != 0) {
            fprintf(stderr, "bench_space: %s: %s: %s\n", path, err.field, err.text);
            status = 1;
            continue;
        }
        for (size_t d = 0; d < ndevs; d++) {
            struct ht_space *s = NULL;
            struct ht_space_counts nc, mc, best;
            struct digest nd, md;
            int same = -1;

            memset(&best, 0, sizeof best);
            memset(&nd, 0, sizeof nd);
            ht_error_clear(&err);
            if (ht_space_create(&spec->space, devs[d], HT_EQ3_PRODUCT, &s, &err) != 0) {
                fprintf(stderr, "bench_space: %s on %s: %s: %s\n", spec->name, devs[d]->name,
                        err.field, err.text);
                status = 1;
                continue;
            }
            /* The native time is the best of several runs; MiniZinc runs once. */
            for (int r = 0; r < repeat; r++) {
                if (run("native", s, spec->space.nparams, &nc, &nd) != 0) {
                    status = 1;
                    break;
                }
                if (r == 0 || nc.seconds < best.seconds)
                    best = nc;
            }
            memset(&mc, 0, sizeof mc);
            if (mzn && run("minizinc", s, spec->space.nparams, &mc, &md) == 0)
                same = nd.n == md.n && nd.sum == md.sum && nd.xor == md.xor &&
                       best.platform == mc.platform;
            else if (mzn)
                status = 1;
            printf("%-7s %-28.28s %12.0f %10llu %9llu ", spec->name, devs[d]->name,
                   best.unpruned, (unsigned long long)best.platform,
                   (unsigned long long)nd.n);
            if (same >= 0)
                printf("%9llu %11.6f %11.6f %9.0f %5s\n", (unsigned long long)md.n,
                       best.seconds, mc.seconds, mc.seconds / best.seconds,
                       same ? "yes" : "NO");
            else
                printf("%9s %11.6f %11s %9s %5s\n", "-", best.seconds, "-", "-", "-");
            fflush(stdout);
            if (same == 0) {
                fprintf(stderr, "bench_space: the backends disagree on %s, %s\n", spec->name,
                        devs[d]->name);
                status = 1;
            }
            if (same > 0 && d == 0 && k + 1 == sizeof specs / sizeof specs[0])
                worst_ratio_largest = mc.seconds / best.seconds;
            ht_space_free(s);
        }
        ht_spec_free(spec);
    }
    if (worst_ratio_largest > 0)
        printf("largest space (gemm, synthetic device): minizinc / native = %.0fx (goal >= "
               "1000x)\n",
               worst_ratio_largest);
    free(devs);
    ht_platform_free(plat);
    return status;
}
