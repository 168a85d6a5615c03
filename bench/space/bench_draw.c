/* bench_draw: what a budgeted search pays to draw from a space too large to list (issue 17
 * item 4), side by side in one run, on device 0: counting the space (hetune space), the
 * first proposal of random (its budget drawn uniformly) and of genetic (a sample of
 * HT_SEARCH_SAMPLE_PER_EVAL per evaluation), and one walk of every valid configuration with
 * a callback that does nothing: the least the reservoir fallback of the draw cost before
 * draws by rank, when rejection sampling finds too few. Best of --repeat runs (default 3).
 *
 * usage: bench_draw [--repeat N] [--budget B] SPEC...
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hetune.h"

static double best_of(int repeat, double (*fn)(void *), void *arg)
{
    double best = 1e300;
    for (int r = 0; r < repeat; r++) {
        double t = fn(arg);
        best = t < best ? t : best;
    }
    return best;
}

struct job {
    const struct ht_space *s;
    const char *strategy;
    size_t budget;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double t_count(void *arg)
{
    struct job *j = arg;
    struct ht_space_counts c;
    struct ht_error err;
    double t0 = now();
    ht_error_clear(&err);
    if (ht_space_count(j->s, &c, &err) != 0)
        exit(1);
    return now() - t0;
}

static double t_draw(void *arg)
{
    struct job *j = arg;
    struct ht_search_space space = {0, ht_space_get_def(j->s)->nparams, NULL, NULL, j->s};
    struct ht_search_opts o;
    struct ht_search *s = NULL;
    size_t i;
    double t0 = now();
    ht_search_opts_init(&o);
    o.budget = j->budget;
    if (ht_search_create(j->strategy, &space, &o, &s, NULL) != 0 || ht_search_next(s, &i) != 0)
        exit(1);
    ht_search_free(s);
    return now() - t0;
}

static int nothing(const int64_t *c, void *user)
{
    (void)c;
    (*(uint64_t *)user)++;
    return 0;
}

static double t_walk(void *arg)
{
    struct job *j = arg;
    uint64_t n = 0;
    double t0 = now();
    if (ht_space_foreach(j->s, nothing, &n) < 0)
        exit(1);
    return now() - t0;
}

int main(int argc, char **argv)
{
    int repeat = 3, a = 1;
    size_t budget = 100;
    struct ht_platform *plat = NULL;
    struct ht_error err;

    for (; a < argc && argv[a][0] == '-'; a += 2) {
        if (a + 1 >= argc)
            return 2;
        if (!strcmp(argv[a], "--repeat"))
            repeat = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--budget"))
            budget = (size_t)atol(argv[a + 1]);
        else
            return 2;
    }
    ht_error_clear(&err);
    if (ht_platform_discover(&plat, &err) != 0 || plat->count == 0) {
        fprintf(stderr, "bench_draw: no OpenCL device\n");
        return 1;
    }
    printf("%-28s %12s %9s %11s %12s %9s\n", "spec", "valid", "count s", "random s",
           "genetic s", "walk s");
    for (; a < argc; a++) {
        struct ht_spec *spec = NULL;
        struct ht_space *s = NULL;
        struct ht_space_counts c;
        struct job j;
        double tc, tr, tg, tw;
        const char *base = strrchr(argv[a], '/');
        if (ht_spec_load(argv[a], NULL, 0, &spec, &err) != 0 ||
            ht_space_create(&spec->space, &plat->devices[0], HT_EQ3_PRODUCT, &s, &err) != 0 ||
            ht_space_count(s, &c, &err) != 0) {
            fprintf(stderr, "bench_draw: %s: %s\n", argv[a], err.text);
            return 1;
        }
        j = (struct job){s, "random", budget};
        tc = best_of(repeat, t_count, &j);
        tr = best_of(repeat, t_draw, &j);
        j.strategy = "genetic";
        tg = best_of(repeat, t_draw, &j);
        tw = best_of(1, t_walk, &j);
        printf("%-28s %12s %9.3f %11.3f %12.3f %9.3f\n", base ? base + 1 : argv[a],
               c.pruned_text, tc, tr, tg, tw);
        fflush(stdout);
        ht_space_free(s);
        ht_spec_free(spec);
    }
    ht_platform_free(plat);
    return 0;
}
