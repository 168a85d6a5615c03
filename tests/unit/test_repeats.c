/* Adaptive repeats (exec.h, ht__repeats_decide): fake timing sequences fed one run at a
 * time, the verdict after each run checked exactly (a clearly slower configuration is cut
 * early, a close competitor is measured to the ceiling, a stable one that cannot win stops
 * once precise, nothing stops before the minimum), and a property test over random
 * sequences: with adaptive off the verdicts are exactly today's rule
 * (ht__search_should_cut), and with it on a configuration is never cut nor stopped while it
 * could still beat the best. Pure: no OpenCL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hetune.h"

/* The spec's defaults, a best so far of 1 s, and the tuner's cut factor. */
static struct ht_repeats_rule defaults(void)
{
    struct ht_repeats_rule r;

    memset(&r, 0, sizeof r);
    r.repeats = 10;
    r.keep_best = 5;
    r.adaptive = 1;
    r.min_repeats = HT_TIMING_MIN_REPEATS;
    r.precision = HT_TIMING_PRECISION;
    r.margin = HT_TIMING_MARGIN;
    r.best_s = 1.0;
    r.cut_factor = HT_SEARCH_CUT_FACTOR;
    return r;
}

/* Feeds runs[0..n) one at a time and checks each verdict against want[0..n); the first
 * verdict other than HT_REPEATS_MORE must be the last one expected. */
static void expect(const struct ht_repeats_rule *r, const double *runs, unsigned n,
                   const enum ht_repeats_verdict *want)
{
    for (unsigned i = 1; i <= n; i++) {
        enum ht_repeats_verdict got = ht__repeats_decide(r, runs, i);
        if (got != want[i - 1]) {
            fprintf(stderr, "after %u runs: got %s, want %s\n", i,
                    ht__repeats_verdict_name(got), ht__repeats_verdict_name(want[i - 1]));
            fail();
        }
        if (i < n)
            assert_int_equal(got, HT_REPEATS_MORE);
    }
}

#define M HT_REPEATS_MORE

static void test_slower_cut_after_minimum(void **state)
{
    struct ht_repeats_rule r = defaults();
    /* 45% slower than the best, well below the factor 3: today it ran all ten. */
    const double runs[] = {1.5, 1.45, 1.46};
    const enum ht_repeats_verdict want[] = {M, M, HT_REPEATS_SLOWER};
    (void)state;
    expect(&r, runs, 3, want);
    /* With adaptive off, the same runs go on to the ceiling. */
    r.adaptive = 0;
    for (unsigned n = 1; n <= 3; n++)
        assert_int_equal(ht__repeats_decide(&r, runs, n), M);
}

static void test_never_before_minimum(void **state)
{
    struct ht_repeats_rule r = defaults();
    const double runs[] = {2.0, 2.0, 2.0, 2.0, 2.0};
    const enum ht_repeats_verdict want[] = {M, M, M, M, HT_REPEATS_SLOWER};
    (void)state;
    r.min_repeats = 5;
    expect(&r, runs, 5, want);
    /* A minimum above the ceiling is the ceiling. */
    r.min_repeats = 50;
    r.repeats = 4;
    for (unsigned n = 1; n < 4; n++)
        assert_int_equal(ht__repeats_decide(&r, runs, n), M);
    assert_int_equal(ht__repeats_decide(&r, runs, 4), HT_REPEATS_CEILING);
}

static void test_cut_factor_kept(void **state)
{
    struct ht_repeats_rule r = defaults();
    const double runs[] = {5.0, 4.0};
    const enum ht_repeats_verdict want[] = {M, HT_REPEATS_CUT_FACTOR};
    (void)state;
    expect(&r, runs, 2, want);
    r.adaptive = 0;
    expect(&r, runs, 2, want);
    /* Factor 0 (--cut-factor 0) turns every early stop off, the adaptive ones too. */
    r.adaptive = 1;
    r.cut_factor = 0.0;
    {
        const double slow[] = {5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0};
        enum ht_repeats_verdict w[10];
        for (unsigned i = 0; i < 9; i++)
            w[i] = M;
        w[9] = HT_REPEATS_CEILING;
        expect(&r, slow, 10, w);
    }
}

static void test_close_competitor_to_ceiling(void **state)
{
    struct ht_repeats_rule r = defaults();
    /* 1% slower and very stable: it might still win with more runs. */
    const double close[] = {1.012, 1.010, 1.011, 1.013, 1.010,
                            1.011, 1.012, 1.010, 1.011, 1.012};
    /* Noisy around 10% slower: neither clearly slower nor precise. */
    const double noisy[] = {1.30, 1.05, 1.25, 1.10, 1.15, 1.28, 1.12, 1.19, 1.24, 1.07};
    enum ht_repeats_verdict want[10];
    (void)state;
    for (unsigned i = 0; i < 9; i++)
        want[i] = M;
    want[9] = HT_REPEATS_CEILING;
    expect(&r, close, 10, want);
    expect(&r, noisy, 10, want);
}

static void test_precise_stops(void **state)
{
    struct ht_repeats_rule r = defaults();
    /* 10% slower (inside the margin) and stable: known, and it cannot win. */
    const double runs[] = {1.10, 1.101, 1.102, 1.10, 1.101};
    const enum ht_repeats_verdict want[] = {M, M, M, M, HT_REPEATS_PRECISE};
    /* The first (slow: a lazy compilation) run falls out of the kept five at the sixth. */
    const double late[] = {1.9, 1.10, 1.101, 1.102, 1.10, 1.101};
    const enum ht_repeats_verdict want_late[] = {M, M, M, M, M, HT_REPEATS_PRECISE};
    (void)state;
    expect(&r, runs, 5, want);
    expect(&r, late, 6, want_late);
    r.adaptive = 0;
    for (unsigned n = 1; n <= 5; n++)
        assert_int_equal(ht__repeats_decide(&r, runs, n), M);
}

static void test_best_and_first_run_all(void **state)
{
    struct ht_repeats_rule r = defaults();
    const double faster[] = {0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9};
    /* Under HT_REPEATS_LONG_S a run: longer ones are test_long_runs_known_alone's. */
    const double slow[] = {0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95};
    enum ht_repeats_verdict want[10];
    (void)state;
    for (unsigned i = 0; i < 9; i++)
        want[i] = M;
    want[9] = HT_REPEATS_CEILING;
    /* A new best is never stopped for precision. */
    expect(&r, faster, 10, want);
    /* With no best so far (the first configuration, or a session no tuner drives),
     * nothing stops early. */
    r.best_s = 0.0;
    expect(&r, slow, 10, want);
    r.best_s = NAN;
    expect(&r, slow, 10, want);
}

/* Runs of seconds that agree are known by k of them, with no best so far (the first
 * configuration: the matmul on a CPU, 8 s a run) or as a competitor; runs that
 * disagree go on, and so do runs just under HT_REPEATS_LONG_S. */
static void test_long_runs_known_alone(void **state)
{
    struct ht_repeats_rule r = defaults();
    const double agree[] = {8.2, 8.25, 8.22, 8.3, 8.3, 8.3, 8.3, 8.3, 8.3, 8.3};
    const double spread[] = {8.2, 9.0, 8.9, 8.21, 8.23, 8.22, 8.24, 8.3, 8.3, 8.3};
    const double short_runs[] = {1.99, 1.99, 1.99, 1.99, 1.99, 1.99, 1.99, 1.99, 1.99, 1.99};
    enum ht_repeats_verdict want[10];
    (void)state;
    r.best_s = 0.0;
    for (unsigned i = 0; i < 10; i++)
        want[i] = M;
    want[4] = HT_REPEATS_PRECISE; /* k = keep_best 5 */
    expect(&r, agree, 5, want);
    want[4] = M;
    want[6] = HT_REPEATS_PRECISE; /* the fastest five within 2% only after the seventh */
    expect(&r, spread, 7, want);
    want[6] = M;
    want[9] = HT_REPEATS_CEILING;
    expect(&r, short_runs, 10, want);
    /* A competitor of a best at 8.21 s stops too, as precise (not cut: it may win). */
    r.best_s = 8.21;
    want[9] = M;
    want[4] = HT_REPEATS_PRECISE;
    expect(&r, agree, 5, want);
}

static void test_noise_widens_margin(void **state)
{
    struct ht_repeats_rule r = defaults();
    /* The two fastest runs 20% apart: a further run could come in faster, so 1.25 is not
     * yet clearly above 1.2; a fourth run close to the fastest settles it. */
    const double runs[] = {1.25, 1.5, 1.6, 1.26};
    const enum ht_repeats_verdict want[] = {M, M, M, HT_REPEATS_SLOWER};
    const double nan_runs[] = {NAN, NAN, NAN, NAN};
    (void)state;
    expect(&r, runs, 4, want);
    for (unsigned n = 1; n <= 4; n++)
        assert_int_equal(ht__repeats_decide(&r, nan_runs, n), M);
    /* The caller's runs stay in run order. */
    assert_true(runs[0] == 1.25 && runs[3] == 1.26);
}

static void test_no_stop_after_ceiling(void **state)
{
    struct ht_repeats_rule r = defaults();
    const double runs[] = {2.9, 2.9, 2.9};
    (void)state;
    r.repeats = 3;
    assert_int_equal(ht__repeats_decide(&r, runs, 2), M);
    assert_int_equal(ht__repeats_decide(&r, runs, 3), HT_REPEATS_CEILING);
    /* keep_best 0 keeps every run: precise only at the ceiling, i.e. never early. */
    r = defaults();
    r.keep_best = 0;
    {
        const double stable[] = {1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1};
        for (unsigned n = 1; n <= 9; n++)
            assert_int_equal(ht__repeats_decide(&r, stable, n), M);
    }
}

/* xorshift64*: the same sequences on every machine. */
static uint64_t next_u64(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static double uniform(uint64_t *s)
{
    return (double)(next_u64(s) >> 11) * 0x1.0p-53;
}

static void test_random_sequences(void **state)
{
    uint64_t seed = 25;
    double runs[20];
    (void)state;
    for (int trial = 0; trial < 20000; trial++) {
        struct ht_repeats_rule r = defaults();
        double truth = 0.5 + uniform(&seed) * 2.0, x1 = INFINITY, plain = INFINITY;
        r.repeats = 1 + (unsigned)(next_u64(&seed) % 20);
        r.keep_best = 1 + (unsigned)(next_u64(&seed) % r.repeats);
        r.min_repeats = 1 + (unsigned)(next_u64(&seed) % 6);
        r.adaptive = (int)(next_u64(&seed) % 2);
        r.cut_factor = next_u64(&seed) % 4 ? HT_SEARCH_CUT_FACTOR : 0.0;
        r.best_s = next_u64(&seed) % 8 ? 1.0 : 0.0;
        /* Timing noise only slows a run down, by less than the margin, and at times (an
         * outlier) by 3x more. */
        for (unsigned i = 0; i < r.repeats; i++)
            runs[i] = truth * (1.0 + r.margin * uniform(&seed)) *
                      (next_u64(&seed) % 10 ? 1.0 : 3.0);
        for (unsigned n = 1; n <= r.repeats; n++) {
            enum ht_repeats_verdict v = ht__repeats_decide(&r, runs, n);
            int today = n >= HT_CUT_MIN_RUNS && n < r.repeats &&
                        ht__search_should_cut(runs, n, r.best_s, r.cut_factor);
            x1 = fmin(x1, runs[n - 1]);
            if (runs[n - 1] < truth * (1.0 + r.margin))
                plain = fmin(plain, runs[n - 1]);
            if (n == r.repeats) {
                assert_int_equal(v, HT_REPEATS_CEILING);
                break;
            }
            /* Today's rule is kept exactly; adaptive off adds nothing to it. */
            assert_int_equal(v == HT_REPEATS_CUT_FACTOR, today);
            if (!r.adaptive || !(r.cut_factor > 0.0))
                assert_true(v == M || v == HT_REPEATS_CUT_FACTOR);
            if (v == HT_REPEATS_SLOWER)
                assert_true(n >= r.min_repeats && x1 > r.best_s * (1.0 + r.margin));
            /* Precise: no competitor of a best, or runs long enough to be known alone. */
            if (v == HT_REPEATS_PRECISE)
                assert_true(n >= r.min_repeats && n >= r.keep_best && n >= 3 &&
                            ((x1 * (1.0 - r.precision) > r.best_s && r.best_s > 0.0) ||
                             x1 >= HT_REPEATS_LONG_S));
            /* A configuration faster than the best is never cut once one of its runs was
             * no outlier: its fastest run is then within the margin of the best. */
            if (truth < r.best_s && plain < INFINITY)
                assert_true(v != HT_REPEATS_SLOWER && v != HT_REPEATS_CUT_FACTOR);
            if (v != M)
                break;
        }
    }
}

/* The rule as a session applies it: the margin shrinks for long runs (exec.h,
 * ht__repeats_margin). */
static struct ht_repeats_rule cost_aware(double best_s)
{
    struct ht_repeats_rule r = defaults();

    r.margin_time_s = HT_REPEATS_MARGIN_TIME_S;
    r.margin_floor = HT_REPEATS_MARGIN_FLOOR;
    r.best_s = best_s;
    return r;
}

static void test_margin_shrinks_for_long_runs(void **state)
{
    struct ht_repeats_rule r = cost_aware(0.001);
    (void)state;
    /* Runs up to 0.1 s keep the margin; then it falls as the square root, to the floor. */
    assert_true(fabs(ht__repeats_margin(&r) - 0.2) < 1e-12);
    r.best_s = 0.1;
    assert_true(fabs(ht__repeats_margin(&r) - 0.2) < 1e-12);
    r.best_s = 0.4;
    assert_true(fabs(ht__repeats_margin(&r) - 0.1) < 1e-12);
    r.best_s = 1.6;
    assert_true(fabs(ht__repeats_margin(&r) - 0.05) < 1e-12);
    r.best_s = 7.0;
    assert_true(fabs(ht__repeats_margin(&r) - 0.05) < 1e-12);
    /* No best, or none of it: the margin as given. */
    r.best_s = 0.0;
    assert_true(fabs(ht__repeats_margin(&r) - 0.2) < 1e-12);
    r.best_s = INFINITY;
    assert_true(fabs(ht__repeats_margin(&r) - 0.2) < 1e-12);
    r.best_s = 7.0;
    r.margin_time_s = 0.0;
    assert_true(fabs(ht__repeats_margin(&r) - 0.2) < 1e-12);
    /* A spec's margin below the floor is never raised. */
    r = cost_aware(7.0);
    r.margin = 0.03;
    assert_true(fabs(ht__repeats_margin(&r) - 0.03) < 1e-12);
}

static void test_long_runs_18_percent_slower(void **state)
{
    /* The slow case: the best at 7.0 s a run, a configuration at 8.2 s whose runs
     * do not agree within the precision (2%). Inside the 20% margin it ran all 10 runs;
     * runs of seconds are measured well enough that 17% slower is clear after 3. */
    struct ht_repeats_rule r = cost_aware(7.0);
    const double runs[] = {8.2, 8.45, 8.6};
    const enum ht_repeats_verdict want[] = {M, M, HT_REPEATS_SLOWER};
    (void)state;
    expect(&r, runs, 3, want);
    /* With the margin the same for every run length, it went on. */
    r.margin_time_s = 0.0;
    for (unsigned n = 1; n <= 3; n++)
        assert_int_equal(ht__repeats_decide(&r, runs, n), M);
    /* The same ratios on runs of milliseconds keep the full margin: not cut. */
    {
        struct ht_repeats_rule s = cost_aware(0.007);
        const double short_runs[] = {0.0082, 0.00845, 0.0086};
        for (unsigned n = 1; n <= 3; n++)
            assert_int_equal(ht__repeats_decide(&s, short_runs, n), M);
    }
}

static void test_long_runs_noise_still_counts(void **state)
{
    /* Long runs that disagree: the gap between the two fastest (8.2 to 9.9 s) says a
     * further run could still come in faster, so 8.2 s is not yet clearly above 7.0 s. */
    struct ht_repeats_rule r = cost_aware(7.0);
    const double noisy[] = {8.2, 9.9, 10.0, 8.3};
    const enum ht_repeats_verdict want[] = {M, M, M, HT_REPEATS_SLOWER};
    /* Within the precision (2%) of the best: a close competitor, never cut; its runs of
     * seconds known once keep_best (5) of them agree, it stops as precise (a result). */
    const double close[] = {7.1, 7.1, 7.1, 7.1, 7.1, 7.1, 7.1, 7.1, 7.1, 7.1};
    enum ht_repeats_verdict all[10];
    (void)state;
    expect(&r, noisy, 4, want);
    for (unsigned i = 0; i < 10; i++)
        all[i] = M;
    all[4] = HT_REPEATS_PRECISE;
    expect(&r, close, 5, all);
    /* A faster configuration of long runs is never cut: it too stops as precise. */
    {
        const double faster[] = {6.5, 6.6, 6.55, 6.5, 6.6, 6.5, 6.6, 6.55, 6.5, 6.6};
        expect(&r, faster, 5, all);
    }
}

/* Long runs under noise within the margin the rule gives them (ht__repeats_margin at the
 * best's length): a configuration faster than the best is never cut, and one cut as
 * slower has its fastest run above the best by more than that margin. */
static void test_random_long_sequences(void **state)
{
    uint64_t seed = 2525;
    double runs[20];
    (void)state;
    for (int trial = 0; trial < 20000; trial++) {
        struct ht_repeats_rule r = cost_aware(0.05 + uniform(&seed) * 10.0);
        double truth = r.best_s * (0.7 + uniform(&seed) * 0.8), m, x1 = INFINITY;
        r.repeats = 1 + (unsigned)(next_u64(&seed) % 20);
        r.keep_best = 1 + (unsigned)(next_u64(&seed) % r.repeats);
        r.min_repeats = 1 + (unsigned)(next_u64(&seed) % 6);
        m = ht__repeats_margin(&r);
        assert_true(m >= HT_REPEATS_MARGIN_FLOOR - 1e-12 && m <= r.margin + 1e-12);
        for (unsigned i = 0; i < r.repeats; i++)
            runs[i] = truth * (1.0 + m * uniform(&seed));
        for (unsigned n = 1; n <= r.repeats; n++) {
            enum ht_repeats_verdict v = ht__repeats_decide(&r, runs, n);
            x1 = fmin(x1, runs[n - 1]);
            if (n == r.repeats) {
                assert_int_equal(v, HT_REPEATS_CEILING);
                break;
            }
            if (truth < r.best_s)
                assert_true(v != HT_REPEATS_SLOWER && v != HT_REPEATS_CUT_FACTOR);
            if (v == HT_REPEATS_SLOWER)
                assert_true(n >= r.min_repeats && x1 > r.best_s * (1.0 + m));
            if (v != M)
                break;
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slower_cut_after_minimum),
        cmocka_unit_test(test_never_before_minimum),
        cmocka_unit_test(test_cut_factor_kept),
        cmocka_unit_test(test_close_competitor_to_ceiling),
        cmocka_unit_test(test_precise_stops),
        cmocka_unit_test(test_best_and_first_run_all),
        cmocka_unit_test(test_long_runs_known_alone),
        cmocka_unit_test(test_noise_widens_margin),
        cmocka_unit_test(test_no_stop_after_ceiling),
        cmocka_unit_test(test_random_sequences),
        cmocka_unit_test(test_margin_shrinks_for_long_runs),
        cmocka_unit_test(test_long_runs_18_percent_slower),
        cmocka_unit_test(test_long_runs_noise_still_counts),
        cmocka_unit_test(test_random_long_sequences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
