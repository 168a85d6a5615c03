/* Adaptive repeats (exec.h, "Adaptive repeats"): when a configuration has been measured
 * enough. Pure arithmetic on the run times so far, tested exactly in tests/unit. */
#include <math.h>

#include "hetune/exec.h"

const char *ht__repeats_verdict_name(enum ht_repeats_verdict v)
{
    switch (v) {
    case HT_REPEATS_MORE: return "more";
    case HT_REPEATS_CEILING: return "ceiling";
    case HT_REPEATS_PRECISE: return "precise";
    case HT_REPEATS_SLOWER: return "slower";
    case HT_REPEATS_CUT_FACTOR: return "cut-factor";
    }
    return "unknown";
}

/* runs[0..n) in increasing order into sorted, NaN last: an insertion sort, as n is at most
 * HT_MAX_REPEATS and the caller's array stays in run order. */
static void order_runs(const double *runs, unsigned n, double *sorted)
{
    for (unsigned i = 0; i < n; i++) {
        double x = runs[i];
        unsigned j = i;
        for (; j > 0 && (isnan(sorted[j - 1]) ? !isnan(x) : sorted[j - 1] > x); j--)
            sorted[j] = sorted[j - 1];
        sorted[j] = x;
    }
}

double ht__repeats_margin(const struct ht_repeats_rule *rule)
{
    double b = rule->best_s, m = rule->margin;

    /* The margin guards against a few runs all slowed alike (a first launch's extra
     * work, a clock that has not ramped up, another process on the device). A run of
     * seconds averages over many such disturbances, so what is left of them falls as the
     * square root of its length, as the error of a mean does; the observed gap between
     * the fastest runs still widens the margin where the runs disagree. It is scaled by
     * b, not x1: the best's runs are the shorter ones, and the smaller margin needs both
     * measurements long. */
    if (rule->margin_time_s > 0.0 && b > rule->margin_time_s && isfinite(b))
        m = fmax(fmin(rule->margin_floor, m), m * sqrt(rule->margin_time_s / b));
    return m;
}

enum ht_repeats_verdict ht__repeats_decide(const struct ht_repeats_rule *rule,
                                           const double *runs, unsigned n)
{
    double sorted[HT_MAX_REPEATS], x1, b = rule->best_s, d;
    unsigned repeats = rule->repeats ? rule->repeats : 1, k, min_runs;
    int has_best = b > 0.0 && isfinite(b), cuts = rule->cut_factor > 0.0;

    if (repeats > HT_MAX_REPEATS)
        repeats = HT_MAX_REPEATS;
    if (n >= repeats)
        return HT_REPEATS_CEILING;
    if (n == 0)
        return HT_REPEATS_MORE;
    order_runs(runs, n, sorted);
    x1 = sorted[0];
    /* Today's rule (issue 4): kept as it was, adaptive or not. */
    if (cuts && has_best && n >= HT_CUT_MIN_RUNS && x1 > rule->cut_factor * b)
        return HT_REPEATS_CUT_FACTOR;
    /* cut_factor 0 is the tuner's "measure everything fully" (--cut-factor 0). */
    if (!rule->adaptive || !cuts || isnan(x1) || !(x1 > 0.0))
        return HT_REPEATS_MORE;
    /* No best yet: only runs long enough to be known by a few of them stop early. */
    if (!has_best && x1 < HT_REPEATS_LONG_S)
        return HT_REPEATS_MORE;
    min_runs = rule->min_repeats < 1 ? 1 : rule->min_repeats;
    if (min_runs > repeats)
        min_runs = repeats;
    if (n < min_runs)
        return HT_REPEATS_MORE;
    /* Slower: the gap between the two fastest runs says how much faster a further run
     * could still come in; twice it, and at least the margin, must separate the fastest
     * run from the best. A NaN second run gives a NaN gap, and fmax takes the margin. */
    if (has_best && n >= 2) {
        d = fmax(ht__repeats_margin(rule), 2.0 * (sorted[1] - x1) / x1);
        if (x1 > b * (1.0 + d))
            return HT_REPEATS_SLOWER;
    }
    /* Precise: as many runs as the statistic keeps, lying close together, and no chance
     * to become the best: more runs could only lower the statistic, which is at least x1,
     * and the fastest run would have to come in more than the precision below x1. */
    k = rule->keep_best == 0 || rule->keep_best > repeats ? repeats : rule->keep_best;
    /* With one or two runs kept, their spread says nothing: at least three must agree. */
    if (k < min_runs)
        k = min_runs;
    if (k < 3)
        k = 3;
    if (n < k)
        return HT_REPEATS_MORE;
    /* Long runs (seconds each) agreeing within the precision are known: a further run
     * could move the statistic by less than the precision and costs seconds, so even the
     * first configuration and a competitor stop there (the slow matmul on a CPU:
     * 10 runs of 8 s each where 3 said it all). */
    if ((sorted[k - 1] - x1) / x1 <= rule->precision &&
        (x1 >= HT_REPEATS_LONG_S || (has_best && x1 * (1.0 - rule->precision) > b)))
        return HT_REPEATS_PRECISE;
    return HT_REPEATS_MORE;
}
