/* The bayes strategy (src/search/bayes.c) on synthetic spaces: no OpenCL, exact. The
 * protocol tests shared by every strategy are in test_search.c; these are bayes's own:
 * distinct proposals within the budget, repeatable, a space drawn from, a space that fails
 * everywhere, pre-seeded results that guide it, its options' range, the quality beside
 * random sampling, moves across basins by flags, and the cost of a proposal. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime's thread clock */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hetune/search.h"
#include "hetune/space.h"
#include "search/search-internal.h"
#include "util/util.h"

#define NP 5
#define SIDE 8

/* NP parameters of SIDE values each (value = 3 * rank + parameter, so ranks and values
 * differ), under the constraint r0 + r1 <= 11. */
struct grid {
    struct ht_search_space sp;
    int64_t *cfg;
};

static void make_grid(struct grid *g)
{
    size_t total = 1, n = 0;
    for (int p = 0; p < NP; p++)
        total *= SIDE;
    g->cfg = malloc(total * NP * sizeof *g->cfg);
    assert_non_null(g->cfg);
    for (size_t k = 0; k < total; k++) {
        int64_t r[NP];
        size_t x = k;
        for (int p = NP - 1; p >= 0; p--) {
            r[p] = (int64_t)(x % SIDE);
            x /= SIDE;
        }
        if (r[0] + r[1] > 11)
            continue;
        for (int p = 0; p < NP; p++)
            g->cfg[n * NP + (size_t)p] = 3 * r[p] + p;
        n++;
    }
    g->sp = (struct ht_search_space){n, NP, g->cfg, NULL, NULL};
}

static int rank_of(const int64_t *c, int p)
{
    return (int)((c[p] - p) / 3);
}

/* A bowl with its minimum 1.0 at ranks (6, 5, 5, 5, 2), an interaction between the first
 * two parameters, and a failing region (INFINITY) right next to the minimum: ranks 2 and 3
 * both 6 or more. */
static double bowl(const int64_t *c)
{
    static const double at[NP] = {6, 5, 5, 5, 2}, w[NP] = {0.08, 0.05, 0.03, 0.06, 0.02};
    double r[NP], v = 1.0;
    for (int p = 0; p < NP; p++)
        r[p] = rank_of(c, p);
    if (r[2] >= 6 && r[3] >= 6)
        return INFINITY;
    for (int p = 0; p < NP; p++)
        v += w[p] * (r[p] - at[p]) * (r[p] - at[p]);
    v += 0.04 * fabs((r[0] - at[0]) * (r[1] - at[1]));
    return v;
}

static double fail_all(const int64_t *c)
{
    (void)c;
    return INFINITY;
}

static struct ht_search *create(const struct grid *g, const struct ht_search_opts *o)
{
    struct ht_search *s = NULL;
    struct ht_error err;
    ht_error_clear(&err);
    if (ht_search_create("bayes", &g->sp, o, &s, &err))
        fail_msg("bayes: %s", err.text);
    return s;
}

/* Runs s to the end; seq (budget entries) gets the proposals. Checks each is new. Returns
 * how many were made. */
static size_t drive(struct ht_search *s, const struct grid *g, double (*f)(const int64_t *),
                    size_t *seq, size_t cap)
{
    unsigned char *seen = calloc(g->sp.count, 1);
    size_t n = 0, i;
    assert_non_null(seen);
    while (ht_search_next(s, &i) == 0) {
        assert_true(i < g->sp.count);
        assert_int_equal(seen[i], 0);
        seen[i] = 1;
        assert_true(n < cap);
        seq[n++] = i;
        assert_int_equal(ht_search_report(s, i, f(g->cfg + i * NP)), 0);
    }
    free(seen);
    return n;
}

/* Never proposes twice, spends exactly its budget, and is repeatable with its seed. */
static void test_budget_distinct_repeatable(void **state)
{
    (void)state;
    struct grid g;
    struct ht_search_opts o;
    size_t a[120], b[120], c[120];

    make_grid(&g);
    ht_search_opts_init(&o);
    o.budget = 120;
    o.seed = 5;
    struct ht_search *s = create(&g, &o);
    assert_int_equal(drive(s, &g, bowl, a, 120), 120);
    assert_int_equal(ht__search_evaluated(s), 120);
    ht_search_free(s);
    s = create(&g, &o);
    assert_int_equal(drive(s, &g, bowl, b, 120), 120);
    ht_search_free(s);
    assert_memory_equal(a, b, sizeof a);
    o.seed = 6;
    s = create(&g, &o);
    assert_int_equal(drive(s, &g, bowl, c, 120), 120);
    ht_search_free(s);
    assert_memory_not_equal(a, c, sizeof a);
    free(g.cfg);
}

/* Every configuration fails: it keeps proposing new ones, spread out, until the budget is
 * spent, and none is best. A small space is proposed whole, then it is done. */
static void test_all_failing(void **state)
{
    (void)state;
    struct grid g;
    struct ht_search_opts o;
    size_t seq[80];

    make_grid(&g);
    ht_search_opts_init(&o);
    o.budget = 80;
    struct ht_search *s = create(&g, &o);
    assert_int_equal(drive(s, &g, fail_all, seq, 80), 80);
    assert_int_equal(ht_search_best(s, NULL, NULL), HT_ENOTFOUND);
    ht_search_free(s);

    size_t small = 30, all[30];
    struct grid g2 = g;
    g2.sp.count = small;
    o.budget = 0;
    s = create(&g2, &o);
    assert_int_equal(drive(s, &g2, fail_all, all, small), small);
    ht_search_free(s);
    free(g.cfg);
}

/* Results reported before the first proposal feed the model: they are never proposed, and
 * once they fill the initial design the first proposal searches near the best of them. */
static void test_preseeded(void **state)
{
    (void)state;
    struct grid g;
    struct ht_search_opts o;
    struct ht__rng rng;
    size_t pre[40], seq[30], best = 0, i;
    double best_cost = INFINITY;

    make_grid(&g);
    ht_search_opts_init(&o);
    o.budget = 30;
    o.seed = 3;
    ht__rng_seed(&rng, 99);
    struct ht_search *s = create(&g, &o);
    for (size_t k = 0; k < 40; k++) {
        do
            i = ht__rng_below(&rng, g.sp.count);
        while (ht__search_visited(s, i));
        pre[k] = i;
        double c = bowl(g.cfg + i * NP);
        assert_int_equal(ht_search_report(s, i, c), 0);
        if (c < best_cost) {
            best_cost = c;
            best = i;
        }
    }
    assert_int_equal(ht_search_next(s, &i), 0);
    size_t differ = 0;
    for (int p = 0; p < NP; p++)
        differ += g.cfg[i * NP + (size_t)p] != g.cfg[best * NP + (size_t)p];
    assert_true(differ >= 1 && differ <= 2);
    assert_int_equal(ht_search_report(s, i, bowl(g.cfg + i * NP)), 0);
    size_t n = drive(s, &g, bowl, seq, 30);
    assert_int_equal(n, 29);
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; j < 40; j++)
            assert_true(seq[k] != pre[j]);
    assert_int_equal(ht__search_evaluated(s), 30);
    assert_int_equal(ht__search_known(s), 70);
    ht_search_free(s);
    free(g.cfg);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The fraction of the optimum that strategy reaches in budget evaluations (optimum / best
 * found), the median over seeds 0..nseeds-1. */
static double median_fraction(const struct grid *g, const char *strategy, size_t budget,
                              int nseeds, double optimum)
{
    double frac[32];
    assert_true(nseeds <= 32);
    for (int seed = 0; seed < nseeds; seed++) {
        struct ht_search_opts o;
        struct ht_search *s = NULL;
        double best = INFINITY;
        size_t i;
        ht_search_opts_init(&o);
        o.budget = budget;
        o.seed = (uint64_t)seed;
        assert_int_equal(ht_search_create(strategy, &g->sp, &o, &s, NULL), 0);
        while (ht_search_next(s, &i) == 0)
            assert_int_equal(ht_search_report(s, i, bowl(g->cfg + i * NP)), 0);
        assert_int_equal(ht_search_best(s, NULL, &best), 0);
        frac[seed] = optimum / best;
        ht_search_free(s);
    }
    qsort(frac, (size_t)nseeds, sizeof *frac, cmp_double);
    return nseeds % 2 ? frac[nseeds / 2] : 0.5 * (frac[nseeds / 2 - 1] + frac[nseeds / 2]);
}

/* On the bowl with its interaction, constraint and failing region (22,000 configurations),
 * 60 evaluations of bayes reach a clearly larger fraction of the optimum than random
 * sampling's, the medians over 11 seeds. */
static void test_quality(void **state)
{
    (void)state;
    struct grid g;
    double optimum = INFINITY;

    make_grid(&g);
    for (size_t i = 0; i < g.sp.count; i++)
        optimum = fmin(optimum, bowl(g.cfg + i * NP));
    double fb = median_fraction(&g, "bayes", 60, 11, optimum);
    double fr = median_fraction(&g, "random", 60, 11, optimum);
    print_message("bowl, 60 evaluations, median fraction of the optimum: bayes %.3f, "
                  "random %.3f\n", fb, fr);
    assert_true(fb >= 0.95);
    assert_true(fb >= fr + 0.1);
    free(g.cfg);
}

/* Two basins told apart by two flags (parameters of two values). With both flags 1 every
 * configuration is fair, a broad plateau (at best 1.3); with both 0 the space is poor
 * except near the point of the plateau's best, where it holds the optimum (1.0); one flag
 * flipped alone is poor everywhere. The good region is two moves from the plateau and
 * looks poor to a model that has sampled the other basin at random. */
static double basins(const int64_t *c)
{
    double a = (double)c[0], d = (double)c[1];
    double bowl2 = (a - 5) * (a - 5) + (d - 2) * (d - 2);
    int f = (int)c[2], g = (int)c[3];
    if (f && g)
        return 1.3 + 0.01 * bowl2;
    if (!f && !g)
        return bowl2 <= 2 ? 1.0 + 0.05 * bowl2 : 2.5 + 0.05 * bowl2;
    return 3.0 + 0.02 * bowl2 + 0.1 * (double)c[4];
}

/* bayes flips the flags of its best configurations (one cycle of proposals in two): on
 * the two basins above, 60 evaluations reach 0.9 of the optimum (the good basin) in at
 * least 9 seeds of 11. Without the flips 3 seeds of 30 did, at 40 or 60 evaluations;
 * with them 24 and 29 of 30. */
static void test_flags(void **state)
{
    (void)state;
    struct grid g;
    size_t n = 0;
    g.cfg = malloc(8 * 8 * 2 * 2 * 3 * 5 * sizeof *g.cfg);
    assert_non_null(g.cfg);
    for (int64_t a = 0; a < 8; a++)
        for (int64_t d = 0; d < 8; d++)
            for (int64_t f = 0; f < 2; f++)
                for (int64_t h = 0; h < 2; h++)
                    for (int64_t e = 0; e < 3; e++) {
                        int64_t *c = g.cfg + 5 * n++;
                        c[0] = a, c[1] = d, c[2] = f, c[3] = h, c[4] = e;
                    }
    g.sp = (struct ht_search_space){n, 5, g.cfg, NULL, NULL};
    int found = 0;
    for (int seed = 0; seed < 11; seed++) {
        struct ht_search_opts o;
        struct ht_search *s = NULL;
        double best = INFINITY;
        size_t i;
        ht_search_opts_init(&o);
        o.budget = 60;
        o.seed = (uint64_t)seed;
        assert_int_equal(ht_search_create("bayes", &g.sp, &o, &s, NULL), 0);
        while (ht_search_next(s, &i) == 0)
            assert_int_equal(ht_search_report(s, i, basins(g.cfg + i * 5)), 0);
        assert_int_equal(ht_search_best(s, NULL, &best), 0);
        found += 1.0 / best >= 0.9;
        ht_search_free(s);
    }
    print_message("two basins, 60 evaluations: 0.9 of the optimum in %d of 11 seeds\n", found);
    assert_true(found >= 9);
    free(g.cfg);
}

/* A space drawn from (too large to list): every proposal is a valid configuration, new,
 * within the budget, and the run is repeatable. */
static void test_drawn(void **state)
{
    (void)state;
    static const char *const names[] = {"X", "Y", "Z"};
    struct ht_space_def def;
    struct ht_device_info dev;
    struct ht_space *sp = NULL;
    struct ht_error err;
    const char **all = calloc(3 + HT_DEVICE_NVARS, sizeof *all);
    int64_t first[40][3];

    assert_non_null(all);
    memset(&dev, 0, sizeof dev);
    dev.max_work_group_size = 1024;
    dev.max_work_item_dims = 3;
    dev.max_work_item_sizes[0] = dev.max_work_item_sizes[1] = dev.max_work_item_sizes[2] = 1024;
    dev.compute_units = 1;
    dev.local_mem_size = 1 << 16;
    memset(&def, 0, sizeof def);
    def.nparams = 3;
    def.params = calloc(3, sizeof *def.params);
    assert_non_null(def.params);
    for (size_t i = 0; i < 3; i++)
        all[i] = def.params[i].name = ht__strdup(names[i]);
    for (size_t v = 0; v < HT_DEVICE_NVARS; v++)
        all[3 + v] = ht_device_var_names[v];
    def.names.count = 3 + HT_DEVICE_NVARS;
    def.names.names = all;
    ht_error_clear(&err);
    for (size_t i = 0; i < 3; i++) {
        def.params[i].kind = HT_PARAM_RANGE;
        assert_int_equal(ht_expr_compile("1", &def.names, &def.params[i].lo, &err), 0);
        assert_int_equal(ht_expr_compile(i == 2 ? "1000000" : "60", &def.names,
                                         &def.params[i].hi, &err), 0);
    }
    def.ndims = 1;
    assert_int_equal(ht_expr_compile("64", &def.names, &def.global[0], &err), 0);
    def.constraints = calloc(2, sizeof *def.constraints);
    def.nconstraints = 1;
    def.constraints[0].origin = ht__strdup("constraints[0]");
    assert_int_equal(ht_expr_compile("X + Y <= 70", &def.names, &def.constraints[0].expr,
                                     &err), 0);
    assert_int_equal(ht_space_create(&def, &dev, HT_EQ3_PRODUCT, &sp, &err), 0);

    for (int round = 0; round < 2; round++) {
        struct ht_search_space space = {0, 3, NULL, NULL, sp};
        struct ht_search_opts o;
        struct ht_search *s = NULL;
        size_t i, n = 0;
        ht_search_opts_init(&o);
        o.budget = 40;
        o.seed = 2;
        assert_int_equal(ht_search_create("bayes", &space, &o, &s, NULL), 0);
        while (ht_search_next(s, &i) == 0) {
            const int64_t *c = ht_search_config(s, i);
            assert_int_equal(ht_space_check(&def, &dev, c, HT_EQ3_PRODUCT, NULL), 0);
            assert_true(n < 40);
            if (round == 0)
                memcpy(first[n], c, sizeof first[n]);
            else
                assert_memory_equal(c, first[n], sizeof first[n]);
            for (size_t k = 0; k < n; k++)
                assert_memory_not_equal(c, first[k], sizeof first[k]);
            double d0 = (double)c[0] - 20, d1 = (double)c[1] - 30, d2 = (double)c[2] / 1e6;
            assert_int_equal(ht_search_report(s, i, 1 + d0 * d0 + d1 * d1 + d2), 0);
            n++;
        }
        assert_int_equal(n, 40);
        ht_search_free(s);
    }
    ht_space_free(sp);
    ht_space_def_destroy(&def);
}

static void test_bad_opts(void **state)
{
    (void)state;
    struct grid g;
    struct ht_search_opts o;
    struct ht_search *s = NULL;
    struct ht_error err;

    make_grid(&g);
    ht_search_opts_init(&o);
    o.bo_trees = 0;
    ht_error_clear(&err);
    assert_int_equal(ht_search_create("bayes", &g.sp, &o, &s, &err), HT_EINVAL);
    assert_string_equal(err.field, "bo_trees");
    o.bo_trees = 1025;
    ht_error_clear(&err);
    assert_int_equal(ht_search_create("bayes", &g.sp, &o, &s, &err), HT_EINVAL);
    ht_search_opts_init(&o);
    o.bo_candidates = 0;
    ht_error_clear(&err);
    assert_int_equal(ht_search_create("bayes", &g.sp, &o, &s, &err), HT_EINVAL);
    assert_string_equal(err.field, "bo_candidates");
    assert_null(s);
    /* A given initial design is followed: bo_init random ones, then the model. */
    ht_search_opts_init(&o);
    o.bo_init = 1;
    o.bo_trees = 1;
    o.budget = 10;
    size_t seq[10];
    s = create(&g, &o);
    assert_int_equal(drive(s, &g, bowl, seq, 10), 10);
    ht_search_free(s);
    free(g.cfg);
}

/* This thread's CPU time in seconds: what a proposal costs, whatever else the machine runs
 * (the wall clock measured other processes too: a max of 74 ms at a load of 20 here). */
static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The cost of a proposal at 10^4 configurations and 400 evaluations, the acceptance bound
 * of issue 25, in this thread's CPU time: in an optimised build (NDEBUG) 10 ms on average and
 * no proposal above 40 ms,
 * room for a scheduler hiccup on a loaded machine (the recorded spaces' worst is 5 to 8 ms
 * on the shared 2-core development machine); an unoptimised or sanitized build gets five
 * times as much. */
#ifdef NDEBUG
#define COST_SLACK 1.0
#else
#define COST_SLACK 5.0
#endif
static void test_cost(void **state)
{
    (void)state;
    struct grid g;
    size_t n = 10000, seq[400], i;
    g.cfg = malloc(n * 4 * sizeof *g.cfg);
    assert_non_null(g.cfg);
    for (size_t k = 0; k < n; k++)
        for (size_t p = 0; p < 4; p++)
            g.cfg[k * 4 + p] = (int64_t)((k / (size_t)pow(10, (double)p)) % 10);
    g.sp = (struct ht_search_space){n, 4, g.cfg, NULL, NULL};
    struct ht_search_opts o;
    ht_search_opts_init(&o);
    o.budget = 400;
    struct ht_search *s = create(&g, &o);
    double total = 0, worst = 0;
    size_t timed = 0;
    for (size_t k = 0; k < 400; k++) {
        double t0 = thread_cpu_s();
        assert_int_equal(ht_search_next(s, &i), 0);
        double dt = thread_cpu_s() - t0;
        if (k >= 300) {
            total += dt;
            worst = fmax(worst, dt);
            timed++;
        }
        seq[k] = i;
        const int64_t *c = g.cfg + i * 4;
        double d = (double)(c[0] - 3) * (c[0] - 3) + (double)(c[1] - 7) * (c[1] - 7) +
                   (double)c[2] + 0.5 * (double)(c[3] - 5) * (c[3] - 5);
        assert_int_equal(ht_search_report(s, i, 1 + d + (c[2] == 9 && c[3] > 6 ? INFINITY : 0)),
                         0);
    }
    (void)seq;
    print_message("bayes, 10^4 configurations, proposals 300..399: mean %.2f ms, max %.2f ms\n",
                  1e3 * total / (double)timed, 1e3 * worst);
    assert_true(total / (double)timed <= 0.010 * COST_SLACK);
    assert_true(worst <= 0.040 * COST_SLACK);
    ht_search_free(s);
    free(g.cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget_distinct_repeatable),
        cmocka_unit_test(test_all_failing),
        cmocka_unit_test(test_preseeded),
        cmocka_unit_test(test_quality),
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_drawn),
        cmocka_unit_test(test_bad_opts),
        cmocka_unit_test(test_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
