/* table_replay: a search strategy over a recorded space held as a table, in one process
 * (issue 25). The table is bench/search/t4_table.py's: one configuration a line, its
 * parameter values then its time in ms ("inf": failed), tab-separated. Each seed runs the
 * strategy through the public search API (ht_search_create / next / report) for the budget;
 * the fraction of the optimum after N evaluations is optimum / best of the first N (the
 * definition of kt_sim.py). No spec, no database, no simulated clock: this is hetune_traces.py's
 * measure of quality without the rest of a replay, about 100 times faster, for comparing
 * variants of a strategy over many seeds and many spaces (perturbed copies included). Its
 * random numbers are not those of `hetune tune --replay` (the table's order is the file's,
 * not the pruned space's), so its numbers match the benchmark's in law, not seed by seed.
 *
 *   build/bench/table_replay TABLE STRATEGY [--seeds R] [--first S] [--budget B]
 *                            [--set NAME=VALUE]... [-v]
 *
 * Prints, per budget N of 25, 50, 100, 200, 400 (those within B), the median and the worst
 * fraction over the seeds and how many seeds reached 0.95 of the optimum, and the mean and
 * largest cost of a proposal; -v prints each seed's fractions and its best configuration at
 * 100 evaluations. --set gives a strategy's option of struct ht_search_opts another value
 * (ga_population=30, sa_cooling=0.95): retuning genetic and anneal on every family at once
 * (bench/search/families.sh) without rebuilding. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hetune/search.h"

#define MAX_PARAMS 64
#define MAX_SEEDS 1000

static const size_t budgets[] = {25, 50, 100, 200, 400};
#define NBUDGETS (sizeof budgets / sizeof budgets[0])

struct table {
    size_t count, nparams;
    int64_t *configs;
    double *cost;
};

/* The options --set may change: the strategies' own, by their field names. */
static const struct {
    const char *name;
    size_t offset;
    int is_double;
} settable[] = {
#define SIZE_OPT(f) {#f, offsetof(struct ht_search_opts, f), 0}
#define DOUBLE_OPT(f) {#f, offsetof(struct ht_search_opts, f), 1}
    SIZE_OPT(ga_population), SIZE_OPT(ga_elite),      SIZE_OPT(ga_tournament),
    DOUBLE_OPT(ga_mutation), SIZE_OPT(ga_patience),   DOUBLE_OPT(sa_temperature),
    DOUBLE_OPT(sa_cooling),  SIZE_OPT(sa_steps),      SIZE_OPT(sa_restarts),
    SIZE_OPT(bo_init),       SIZE_OPT(bo_trees),      SIZE_OPT(bo_candidates),
#undef SIZE_OPT
#undef DOUBLE_OPT
};

/* Applies "NAME=VALUE" to o. Returns 0, or -1 with a message printed. */
static int set_opt(struct ht_search_opts *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char *end;
    for (size_t k = 0; eq && k < sizeof settable / sizeof settable[0]; k++) {
        if (strlen(settable[k].name) != (size_t)(eq - arg) ||
            strncmp(settable[k].name, arg, (size_t)(eq - arg)))
            continue;
        double v = strtod(eq + 1, &end);
        if (end == eq + 1 || *end || v < 0) {
            fprintf(stderr, "table_replay: --set %s: not a number >= 0\n", arg);
            return -1;
        }
        if (settable[k].is_double)
            *(double *)((char *)o + settable[k].offset) = v;
        else
            *(size_t *)((char *)o + settable[k].offset) = (size_t)v;
        return 0;
    }
    fprintf(stderr, "table_replay: --set %s: expected NAME=VALUE, NAME one of", arg);
    for (size_t k = 0; k < sizeof settable / sizeof settable[0]; k++)
        fprintf(stderr, " %s", settable[k].name);
    fprintf(stderr, "\n");
    return -1;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Reads path into t. Returns 0, or -1 with a message printed. */
static int read_table(const char *path, struct table *t)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    size_t cap = 0;
    int rc = -1;

    memset(t, 0, sizeof *t);
    if (!f) {
        perror(path);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        char *tok[MAX_PARAMS + 1], *save = NULL;
        size_t k = 0;
        for (char *p = strtok_r(line, "\t\n", &save); p && k <= MAX_PARAMS;
             p = strtok_r(NULL, "\t\n", &save))
            tok[k++] = p;
        if (k < 2 || (t->count && k - 1 != t->nparams)) {
            fprintf(stderr, "%s:%zu: expected %zu values and a time\n", path, t->count + 1,
                    t->nparams);
            goto out;
        }
        t->nparams = k - 1;
        if (t->count == cap) {
            cap = cap ? 2 * cap : 4096;
            int64_t *c = realloc(t->configs, cap * t->nparams * sizeof *c);
            double *y = c ? realloc(t->cost, cap * sizeof *y) : NULL;
            if (c)
                t->configs = c;
            if (!c || !y) {
                fprintf(stderr, "table_replay: out of memory\n");
                goto out;
            }
            t->cost = y;
        }
        for (size_t p = 0; p < t->nparams; p++)
            t->configs[t->count * t->nparams + p] = strtoll(tok[p], NULL, 10);
        t->cost[t->count++] = strtod(tok[t->nparams], NULL);
    }
    rc = t->count ? 0 : -1;
    if (rc)
        fprintf(stderr, "%s: no configurations\n", path);
out:
    fclose(f);
    return rc;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *strategy = NULL, *sets[32];
    size_t nsets = 0;
    size_t seeds = 20, first = 0, budget = 400, proposals = 0;
    int verbose = 0, rc = 1;
    struct table t;
    double *frac = NULL, *hist = NULL, optimum = INFINITY, spent = 0, worst_cost = 0;

    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--seeds") && a + 1 < argc)
            seeds = strtoul(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--first") && a + 1 < argc)
            first = strtoul(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--budget") && a + 1 < argc)
            budget = strtoul(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--set") && a + 1 < argc && nsets < 32) {
            struct ht_search_opts check;
            ht_search_opts_init(&check);
            if (set_opt(&check, argv[++a]))
                return 2;
            sets[nsets++] = argv[a];
        }
        else if (!strcmp(argv[a], "-v"))
            verbose = 1;
        else if (!path)
            path = argv[a];
        else if (!strategy)
            strategy = argv[a];
        else
            path = NULL, a = argc;
    }
    if (!path || !strategy || !seeds || seeds > MAX_SEEDS || !budget) {
        fprintf(stderr, "usage: table_replay TABLE STRATEGY [--seeds R] [--first S] "
                        "[--budget B] [--set NAME=VALUE]... [-v]\n");
        return 2;
    }
    if (read_table(path, &t))
        return 2;
    for (size_t i = 0; i < t.count; i++)
        optimum = fmin(optimum, t.cost[i]);
    frac = malloc(NBUDGETS * seeds * sizeof *frac);
    hist = malloc((budget + 1) * sizeof *hist);
    if (!frac || !hist || !isfinite(optimum)) {
        fprintf(stderr, "table_replay: %s\n", frac && hist ? "no finite time" : "out of memory");
        goto out;
    }

    struct ht_search_space space = {t.count, t.nparams, t.configs, NULL, NULL};
    for (size_t r = 0; r < seeds; r++) {
        struct ht_search_opts o;
        struct ht_search *s = NULL;
        struct ht_error err;
        size_t e = 0, i, best_at_100 = 0;
        double best = INFINITY;

        ht_search_opts_init(&o);
        o.seed = first + r;
        o.budget = budget;
        for (size_t k = 0; k < nsets; k++)
            if (set_opt(&o, sets[k]))
                goto out;
        ht_error_clear(&err);
        if (ht_search_create(strategy, &space, &o, &s, &err)) {
            fprintf(stderr, "table_replay: %s\n", err.text);
            goto out;
        }
        for (;;) {
            double t0 = now();
            if (ht_search_next(s, &i))
                break;
            double dt = now() - t0;
            spent += dt;
            worst_cost = fmax(worst_cost, dt);
            proposals++;
            ht_search_report(s, i, t.cost[i]);
            if (t.cost[i] < best) {
                best = t.cost[i];
                if (e < 100)
                    best_at_100 = i;
            }
            hist[++e] = best;
        }
        ht_search_free(s);
        for (size_t k = 0; k < NBUDGETS; k++) {
            size_t m = budgets[k] < e ? budgets[k] : e;
            frac[k * seeds + r] = m ? optimum / hist[m] : 0;
        }
        if (verbose) {
            printf("seed %zu:", first + r);
            for (size_t k = 0; k < NBUDGETS && budgets[k] <= budget; k++)
                printf(" %zu %.3f", budgets[k], frac[k * seeds + r]);
            printf("  best at 100:");
            for (size_t p = 0; p < t.nparams; p++)
                printf(" %lld", (long long)t.configs[best_at_100 * t.nparams + p]);
            printf("\n");
        }
    }

    printf("%s %s, %zu seeds from %zu:", path, strategy, seeds, first);
    for (size_t k = 0; k < NBUDGETS && budgets[k] <= budget; k++) {
        double *f = frac + k * seeds;
        size_t reached = 0;
        for (size_t r = 0; r < seeds; r++)
            reached += f[r] >= 0.95;
        qsort(f, seeds, sizeof *f, cmp_double);
        double median = seeds % 2 ? f[seeds / 2] : 0.5 * (f[seeds / 2 - 1] + f[seeds / 2]);
        printf("  %zu: %.3f/%.3f %zu", budgets[k], median, f[0], reached);
    }
    printf("  (median/worst seeds>=0.95) | proposal %.2f ms mean, %.2f ms max\n",
           proposals ? 1e3 * spent / (double)proposals : 0, 1e3 * worst_cost);
    rc = 0;
out:
    free(frac);
    free(hist);
    free(t.configs);
    free(t.cost);
    return rc;
}
