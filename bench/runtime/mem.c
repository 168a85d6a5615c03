/* bench_mem: the runtime (runtime.h) on a program's own memory against its own (issue 26,
 * items 1, 2 and 7). For vecadd (examples/vecadd, default N = 2^26) and gesummv
 * (examples/gesummv, default N = 8192), through the public API only:
 *   - arrays of ht_runtime_alloc ("alloc") and the program's plain malloc arrays
 *     ("malloc": glibc gives large blocks 16 bytes past a page, below PoCL's 128-byte base
 *     alignment), each in modes AUTO, SPLIT and ALONE;
 *   - on malloc arrays, each foreign path of exec.h (how devices copied to move them), up
 *     and down: stage/stage, register/register, direct/direct, stage/register,
 *     register/stage (BENCH_MEM_PATHS="up/down,..." picks others).
 * Each case opens the runtime, binds the arrays, launches WARMUP times untimed and LAUNCHES
 * times timed (CLOCK_MONOTONIC around ht_runtime_launch), and checks every element of every
 * output after every launch (outputs poisoned with NaN before each one). Printed per case:
 * min and median wall, the decision in words, each device's share, and its kernel and
 * transfer times (medians over the timed launches). Exit status 0, 1 on any failure or
 * wrong element, 2 on a usage error.
 *
 * usage: bench_mem [PROBLEM] [N] [LAUNCHES] [WARMUP] [DEVICES]
 *   PROBLEM   vecadd, gesummv or all (default all)
 *   N         the size N: "NV,NG" gives vecadd's and gesummv's, one number the named
 *             problem's (with all: vecadd's); 0 or nothing keeps the defaults, 67108864
 *             for vecadd and 8192 for gesummv
 *   LAUNCHES  timed launches per case (default 20)
 *   WARMUP    untimed launches first (default 3)
 *   DEVICES   "0,1,...": the devices (default every device)
 * The results database is $HETUNE_DB, else bench-mem.db in the current folder; a device
 * with no tuned configuration there is tuned first ($BENCH_MEM_STRATEGY, default
 * exhaustive; at most $BENCH_MEM_BUDGET evaluations when set). $BENCH_MEM_SPEC_DIR: a folder
 * of <problem>/spec.json used instead of examples/. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hetune.h"

#ifndef HETUNE_SOURCE_DIR
#define HETUNE_SOURCE_DIR "."
#endif

#define MAX_DEVICES 16
#define MAX_LAUNCHES 1000
#define FIRST_LAUNCHES 8

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Pseudo-random floats in [-1, 1), the same every run. */
static void randomize(float *p, size_t n, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15u + 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        p[i] = (float)((double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    }
}

/* One problem: its arguments, inputs and the reference of its outputs. */
struct problem {
    const char *name;
    char spec[1024];
    uint64_t n;
    size_t nargs;
    const char *args[8];
    size_t bytes[8];
    int is_out[8];
    float *init[8];     /* inputs' values (NULL for outputs) */
    float *ref[8];      /* outputs' expected values (NULL for inputs) */
    double *tol[8];     /* outputs: the tolerance of each element, NULL: exact */
};

static int problem_make(struct problem *p, const char *name, uint64_t n)
{
    memset(p, 0, sizeof *p);
    p->name = name;
    p->n = n;
    /* BENCH_MEM_SPEC_DIR: a folder of <name>/spec.json to use instead of examples/ (a
     * variant of the spec, for example with its parameters fixed). */
    snprintf(p->spec, sizeof p->spec, "%s/%s/spec.json",
             getenv("BENCH_MEM_SPEC_DIR") ? getenv("BENCH_MEM_SPEC_DIR")
                                          : HETUNE_SOURCE_DIR "/examples", name);
    if (!strcmp(name, "vecadd")) {
        static const char *const a[] = {"a", "b", "c"};
        p->nargs = 3;
        for (size_t k = 0; k < 3; k++) {
            p->args[k] = a[k];
            p->bytes[k] = (size_t)n * sizeof(float);
            p->is_out[k] = k == 0;
        }
        p->init[1] = malloc(p->bytes[1]);
        p->init[2] = malloc(p->bytes[2]);
        p->ref[0] = malloc(p->bytes[0]);
        if (!p->init[1] || !p->init[2] || !p->ref[0])
            return -1;
        randomize(p->init[1], (size_t)n, 1);
        randomize(p->init[2], (size_t)n, 2);
        for (size_t i = 0; i < n; i++)
            p->ref[0][i] = p->init[1][i] + p->init[2][i];
        return 0;
    }
    if (!strcmp(name, "gesummv")) {
        static const char *const a[] = {"A", "B", "x", "y", "tmp"};
        size_t nn = (size_t)n * (size_t)n;
        p->nargs = 5;
        for (size_t k = 0; k < 5; k++) {
            p->args[k] = a[k];
            p->bytes[k] = (k < 2 ? nn : (size_t)n) * sizeof(float);
            p->is_out[k] = k >= 3;
        }
        for (size_t k = 0; k < 3; k++) {
            p->init[k] = malloc(p->bytes[k]);
            if (!p->init[k])
                return -1;
            randomize(p->init[k], p->bytes[k] / sizeof(float), 10 + k);
        }
        for (size_t k = 3; k < 5; k++) {
            p->ref[k] = malloc(p->bytes[k]);
            p->tol[k] = malloc((size_t)n * sizeof(double));
            if (!p->ref[k] || !p->tol[k])
                return -1;
        }
        /* In double; the device sums in float in its own order: the tolerance grows with
         * the sum of the terms' magnitudes. */
        for (size_t i = 0; i < n; i++) {
            const float *ra = p->init[0] + i * n, *rb = p->init[1] + i * n, *x = p->init[2];
            double sa = 0, sb = 0, ma = 0, mb = 0;
            for (size_t j = 0; j < n; j++) {
                sa += (double)ra[j] * x[j];
                sb += (double)rb[j] * x[j];
                ma += fabs((double)ra[j] * x[j]);
                mb += fabs((double)rb[j] * x[j]);
            }
            p->ref[4][i] = (float)sa;
            p->ref[3][i] = (float)(1.5 * sa + 1.2 * sb);
            p->tol[4][i] = 1e-4 + 1e-5 * ma;
            p->tol[3][i] = 1e-4 + 1e-5 * (1.5 * ma + 1.2 * mb);
        }
        return 0;
    }
    return -1;
}

static void problem_free(struct problem *p)
{
    for (size_t k = 0; k < 8; k++) {
        free(p->init[k]);
        free(p->ref[k]);
        free(p->tol[k]);
    }
}

/* Counts the elements of out k that differ from the reference; prints the first. */
static size_t check(const struct problem *p, size_t k, const float *got, const char *what)
{
    size_t bad = 0, n = p->bytes[k] / sizeof(float);
    for (size_t i = 0; i < n; i++) {
        double e = p->ref[k][i], tol = p->tol[k] ? p->tol[k][i] : 0.0;
        if (!(fabs((double)got[i] - e) <= tol)) {
            if (!bad)
                fprintf(stderr, "bench_mem: %s: %s[%zu] = %g, expected %g\n", what, p->args[k],
                        i, (double)got[i], e);
            bad++;
        }
    }
    return bad;
}

struct paths {
    enum ht_foreign_path up, down;
};

/* One case: open, bind, launch, check, print. Returns 0, or 1 on a failure. */
static int run_case(const struct problem *p, const char *devices, enum ht_runtime_mode mode,
                    int use_malloc, const struct paths *fp, unsigned warmup, unsigned launches)
{
    static const char *const mode_names[] = {"auto", "split", "alone"};
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    const struct ht_runtime_info *info;
    struct ht_error err;
    void *mem[8] = {NULL};
    double *wall = calloc(launches, sizeof *wall);
    double *kern = calloc((size_t)launches * MAX_DEVICES, sizeof *kern);
    double *xfer = calloc((size_t)launches * MAX_DEVICES, sizeof *xfer);
    char what[160];
    /* The first launches, warm-ups included, each as it ran (split or not): where a
     * split's start differs from its measurement at the decision (the watch judges the
     * first HT_RUNTIME_WATCH_LAUNCHES). */
    double first[FIRST_LAUNCHES];
    int first_split[FIRST_LAUNCHES];
    /* and each device's part of them: busy (its host thread), kernel, transfers, in ms */
    char first_parts[FIRST_LAUNCHES][160];
    unsigned nfirst = 0;
    const char *budget = getenv("BENCH_MEM_BUDGET");
    int rc = 1;

    snprintf(what, sizeof what, "%s N=%llu %s %s %s/%s", p->name, (unsigned long long)p->n,
             use_malloc ? "malloc" : "alloc", mode_names[mode],
             use_malloc ? ht_foreign_path_name(fp->up) : "-",
             use_malloc ? ht_foreign_path_name(fp->down) : "-");
    if (!wall || !kern || !xfer)
        goto done;
    ht_error_clear(&err);
    ht_runtime_opts_init(&o);
    o.db = getenv("HETUNE_DB") ? getenv("HETUNE_DB") : "bench-mem.db";
    o.devices = devices;
    o.tune_missing = 1;
    o.budget = budget ? (size_t)strtoull(budget, NULL, 10) : 0;
    o.strategy = getenv("BENCH_MEM_STRATEGY"); /* NULL: exhaustive */
    o.mode = mode;
    o.exec.foreign_up = fp->up;
    o.exec.foreign_down = fp->down;
    /* BENCH_MEM_CPU_UNITS: the CPU device's compute units in a split (a sub-device; 0:
     * all), the others left to the GPU driver's threads. */
    if (getenv("BENCH_MEM_CPU_UNITS"))
        o.cpu_units = (unsigned)strtoul(getenv("BENCH_MEM_CPU_UNITS"), NULL, 10);
    /* BENCH_MEM_FALLBACK_RATIO: the watch's ratio (0.5: a split always falls back and
     * returns, to time the switches). */
    if (getenv("BENCH_MEM_FALLBACK_RATIO"))
        o.fallback_ratio = strtod(getenv("BENCH_MEM_FALLBACK_RATIO"), NULL);
    /* BENCH_MEM_MEASURE_REPEATS: the timed runs of each measurement of a decision (0: the
     * runtime's default). */
    if (getenv("BENCH_MEM_MEASURE_REPEATS"))
        o.measure_repeats = (unsigned)strtoul(getenv("BENCH_MEM_MEASURE_REPEATS"), NULL, 10);
    /* BENCH_MEM_DATA_PATH: every device's data path (auto, pageable, pinned, inplace): with
     * "pinned" the CPU device copies its slices too instead of working in place. */
    if (getenv("BENCH_MEM_DATA_PATH") &&
        ht_data_path_parse(getenv("BENCH_MEM_DATA_PATH"), &o.exec.data_path) != HT_OK) {
        fprintf(stderr, "bench_mem: BENCH_MEM_DATA_PATH: '%s' is not auto, pageable, pinned "
                "or inplace\n", getenv("BENCH_MEM_DATA_PATH"));
        goto done;
    }
    {
        struct ht_size_override sz = {"N", (int64_t)p->n};
        if (ht_runtime_open(p->spec, &sz, 1, &o, &rt, &err) != HT_OK) {
            fprintf(stderr, "bench_mem: %s: open: %s\n", what, err.text);
            goto done;
        }
    }
    for (size_t k = 0; k < p->nargs; k++) {
        mem[k] = use_malloc ? malloc(p->bytes[k]) : ht_runtime_alloc(rt, p->bytes[k], &err);
        if (!mem[k]) {
            fprintf(stderr, "bench_mem: %s: no memory for %s: %s\n", what, p->args[k],
                    use_malloc ? "malloc" : err.text);
            goto done;
        }
        if (p->init[k])
            memcpy(mem[k], p->init[k], p->bytes[k]);
        if (ht_runtime_bind(rt, p->args[k], mem[k], p->bytes[k], &err) != HT_OK) {
            fprintf(stderr, "bench_mem: %s: bind %s: %s\n", what, p->args[k], err.text);
            goto done;
        }
    }
    for (unsigned r = 0; r < warmup + launches; r++) {
        double t0;
        for (size_t k = 0; k < p->nargs; k++)
            if (p->is_out[k])
                memset(mem[k], 0xFF, p->bytes[k]); /* NaN: an element not written fails */
        t0 = now_s();
        if (ht_runtime_launch(rt, &err) != HT_OK) {
            fprintf(stderr, "bench_mem: %s: launch %u: %s\n", what, r, err.text);
            goto done;
        }
        if (nfirst < FIRST_LAUNCHES) {
            first[nfirst] = now_s() - t0;
            const struct ht_coexec_result *last = ht_runtime_last(rt);
            size_t used = 0;
            first_split[nfirst] = last && last->ndevices > 1;
            first_parts[nfirst][0] = '\0';
            for (size_t d = 0; last && d < last->ndevices && used < sizeof first_parts[0]; d++)
                used += (size_t)snprintf(first_parts[nfirst] + used, sizeof first_parts[0] - used,
                                         "%s%.2f/%.2f/%.2f", d ? " | " : "",
                                         1e3 * last->devices[d].busy_s,
                                         1e3 * last->devices[d].kernel_s,
                                         1e3 * (last->devices[d].write_s +
                                                last->devices[d].read_s));
            nfirst++;
        }
        if (r >= warmup) {
            size_t t = r - warmup;
            wall[t] = now_s() - t0;
            info = ht_runtime_info(rt);
            for (size_t d = 0; d < info->ndevices && d < MAX_DEVICES; d++) {
                kern[d * launches + t] = info->devices[d].used ? info->devices[d].kernel_s : 0;
                xfer[d * launches + t] = info->devices[d].used ? info->devices[d].transfer_s : 0;
            }
        }
        for (size_t k = 0; k < p->nargs; k++)
            if (p->is_out[k] && check(p, k, mem[k], what)) {
                fprintf(stderr, "bench_mem: %s: launch %u: wrong elements\n", what, r);
                goto done;
            }
    }
    info = ht_runtime_info(rt);
    {
        double mn = wall[0];
        for (unsigned t = 1; t < launches; t++)
            mn = wall[t] < mn ? wall[t] : mn;
        printf("%-44s wall min %9.3f ms median %9.3f ms  all %u launches right\n", what,
               1e3 * mn, 1e3 * median(wall, launches), warmup + launches);
    }
    printf("  memory %s, decision: %s\n", ht_coexec_memory_name(info->memory), info->decision);
    printf("  watch: %u rechecks, %u switches taking %.3f ms\n", info->rechecks, info->switches,
           1e3 * info->switch_s);
    printf("  first launches, ms (* split):");
    for (unsigned t = 0; t < nfirst; t++)
        printf(" %.3f%s", 1e3 * first[t], first_split[t] ? "*" : "");
    printf("\n");
    for (unsigned t = 0; t < nfirst; t++)
        printf("    launch %u, each device's busy/kernel/transfers ms: %s\n", t,
               first_parts[t]);
    for (size_t d = 0; d < info->ndevices && d < MAX_DEVICES; d++)
        printf("  device %zu (%.40s): %s share %.3f, kernel %.3f ms, transfers %.3f ms "
               "(medians)\n",
               info->devices[d].dev->index, info->devices[d].dev->name,
               info->devices[d].used ? "used," : "not used,", info->devices[d].share,
               1e3 * median(kern + d * launches, launches),
               1e3 * median(xfer + d * launches, launches));
    fflush(stdout);
    rc = 0;
done:
    for (size_t k = 0; k < p->nargs; k++)
        if (use_malloc)
            free(mem[k]);
    ht_runtime_close(rt); /* frees the alloc arrays */
    free(wall);
    free(kern);
    free(xfer);
    return rc;
}

static int parse_paths(const char *text, struct paths *out, size_t max, size_t *n)
{
    char buf[512], *save = NULL;
    *n = 0;
    snprintf(buf, sizeof buf, "%s", text);
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *slash = strchr(tok, '/');
        if (!slash || *n == max)
            return -1;
        *slash = '\0';
        if (ht_foreign_path_parse(tok, &out[*n].up) != HT_OK ||
            ht_foreign_path_parse(slash + 1, &out[*n].down) != HT_OK)
            return -1;
        (*n)++;
    }
    return *n ? 0 : -1;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    char *rest = NULL;
    uint64_t n = argc > 2 ? strtoull(argv[2], &rest, 10) : 0, n2 = 0;
    unsigned launches = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 20;
    unsigned warmup = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : 3;
    const char *devices = argc > 5 ? argv[5] : NULL;
    const char *ptext = getenv("BENCH_MEM_PATHS");
    struct paths paths[16];
    size_t npaths;
    int failed = 0;

    if (rest && *rest == ',')
        n2 = strtoull(rest + 1, NULL, 10);
    else if (n && !strcmp(which, "gesummv"))
        n2 = n;
    if (argc > 6 || launches == 0 || launches > MAX_LAUNCHES ||
        (strcmp(which, "all") && strcmp(which, "vecadd") && strcmp(which, "gesummv")) ||
        parse_paths(ptext ? ptext
                          : "stage/stage,register/register,direct/direct,stage/register,"
                            "register/stage",
                    paths, 16, &npaths)) {
        fprintf(stderr, "usage: bench_mem [vecadd|gesummv|all] [N] [LAUNCHES (1..%d)] "
                        "[WARMUP] [DEVICES]\n  BENCH_MEM_PATHS=\"up/down,...\" with "
                        "stage, register, direct, pin\n", MAX_LAUNCHES);
        return 2;
    }
    for (int pi = 0; pi < 2; pi++) {
        const char *name = pi == 0 ? "vecadd" : "gesummv";
        struct problem p;
        uint64_t size = pi == 0 ? (n ? n : UINT64_C(67108864)) : n2 ? n2 : 8192;
        if (strcmp(which, "all") && strcmp(which, name))
            continue;
        if (problem_make(&p, name, size) != 0) {
            fprintf(stderr, "bench_mem: %s: out of memory\n", name);
            problem_free(&p);
            return 1;
        }
        for (int mode = HT_RUNTIME_AUTO; mode <= HT_RUNTIME_ALONE; mode++) {
            static const char *const modes[] = {"auto", "split", "alone"};
            struct paths none = {HT_FOREIGN_AUTO, HT_FOREIGN_AUTO};
            /* BENCH_MEM_MODES: the modes to run, e.g. "auto" (default all three) */
            if (getenv("BENCH_MEM_MODES") && !strstr(getenv("BENCH_MEM_MODES"), modes[mode]))
                continue;
            failed |= run_case(&p, devices, (enum ht_runtime_mode)mode, 0, &none, warmup,
                               launches);
            for (size_t k = 0; k < npaths; k++)
                failed |= run_case(&p, devices, (enum ht_runtime_mode)mode, 1, &paths[k],
                                   warmup, launches);
        }
        problem_free(&p);
    }
    return failed ? 1 : 0;
}
