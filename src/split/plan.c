/* The split planner (paper §2.2, Eq. 4-9, Algorithm 1): pure arithmetic, see split.h. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/split.h"

/* Doubles hold every integer up to 2^53 exactly; G must be one of them for G·S_i. */
#define MAX_GLOBAL (UINT64_C(1) << 53)

/* How far below an integer (relative to γ) a γ still counts as that integer: a few units
 * of rounding, from 1/t_i, their sum, the quotient, G·S_i and the division by wg_i. */
#define SNAP (64 * DBL_EPSILON)

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

static int fail_at(struct ht_error *err, const char *field, int code, const char *text)
{
    if (err && !err->code)
        snprintf(err->field, sizeof err->field, "%s", field);
    return ht_error_set(err, code, "%s", text);
}

/* Eq. 7, with the rounding rule of split.h: γ just below an integer counts as it. */
static uint64_t whole_groups(double gamma)
{
    double f = floor(gamma);

    if (gamma - f > 0.5 && f + 1 - gamma <= SNAP * gamma)
        f += 1;
    return (uint64_t)f;
}

/* Checks each device's time model (and its wg when with_wg is set). */
static int check_devices(const struct ht_split_device_in *devs, size_t n, int with_wg,
                         struct ht_error *err)
{
    char field[64], text[256];

    if (n == 0 || !devs)
        return fail_at(err, "devices", HT_EINVAL, "no devices to split the work between");
    for (size_t i = 0; i < n; i++) {
        if (with_wg && devs[i].wg == 0) {
            snprintf(field, sizeof field, "devices[%zu].wg", i);
            return fail_at(err, field, HT_EINVAL, "the work-group size must be positive");
        }
        if (!(devs[i].time_s > 0) || !isfinite(devs[i].time_s)) {
            snprintf(field, sizeof field, "devices[%zu].time", i);
            snprintf(text, sizeof text,
                     "the time must be a positive, finite number of seconds (got %g)",
                     devs[i].time_s);
            return fail_at(err, field, HT_EINVAL, text);
        }
        if (!(devs[i].overhead_s >= 0) || !(devs[i].overhead_s < devs[i].time_s)) {
            snprintf(field, sizeof field, "devices[%zu].overhead", i);
            snprintf(text, sizeof text,
                     "the overhead must be at least 0 and below the time %g s (got %g)",
                     devs[i].time_s, devs[i].overhead_s);
            return fail_at(err, field, HT_EINVAL, text);
        }
    }
    return 0;
}

static int check_inputs(uint64_t global, const struct ht_split_device_in *devs, size_t n,
                        struct ht_split_plan *out, struct ht_error *err)
{
    char text[256];

    if (!out)
        return ht_error_set(err, HT_EINVAL, "ht_split_plan_make: out is NULL");
    if (n && !devs)
        return fail_at(err, "devices", HT_EINVAL, "ht_split_plan_make: devs is NULL");
    if (n == 0)
        return fail_at(err, "devices", HT_EINVAL, "no devices to split the work between");
    if (global == 0)
        return fail_at(err, "global", HT_EINVAL, "the global size must be positive");
    if (global > MAX_GLOBAL) {
        snprintf(text, sizeof text,
                 "the global size %llu is above 2^53, beyond what the planner computes "
                 "exactly", (unsigned long long)global);
        return fail_at(err, "global", HT_EINVAL, text);
    }
    return check_devices(devs, n, 1, err);
}

/* The affine model's time of device i for `total` of the G work-items (0 for none). */
static double model_time(const struct ht_split_slice *s, double overhead, uint64_t total,
                         uint64_t global)
{
    if (total == 0)
        return 0;
    return overhead + (s->time_s - overhead) * ((double)total / (double)global);
}

/* Finds the residue device among those with a positive factor. By work (Eq. 9): the
 * least work work(i), ties to the smallest finish time, then the lowest index. By time:
 * the smallest finish time, ties to the least work, then the lowest index. The finish
 * time is the affine model's for total(i), the device's whole slice if chosen; with fit
 * set only devices whose total is at most G count. Returns SIZE_MAX when none does. */
static size_t pick_residue(const struct ht_split_slice *s, const struct ht_split_device_in *devs,
                           size_t n, uint64_t global, uint64_t need, int fit,
                           enum ht_split_residue rule)
{
    size_t best = SIZE_MAX;
    uint64_t best_work = 0;
    double best_finish = 0;

    for (size_t i = 0; i < n; i++) {
        uint64_t work, total;
        double finish;
        int better;

        if (!(s[i].optimal_factor > 0))
            continue;
        work = s[i].wg * ceil_div(need, s[i].wg);
        total = s[i].wg * (fit ? s[i].base_groups : 0) + work;
        if (fit && total > global)
            continue;
        finish = model_time(&s[i], devs[i].overhead_s, total, global);
        if (best == SIZE_MAX)
            better = 1;
        else if (rule == HT_SPLIT_RESIDUE_TIME)
            better = finish < best_finish || (finish == best_finish && work < best_work);
        else
            better = work < best_work || (work == best_work && finish < best_finish);
        if (better) {
            best = i;
            best_work = work;
            best_finish = finish;
        }
    }
    return best;
}

/* HT_SPLIT_RESIDUE_GROUPS: while work-items are left, one more group to the device that
 * then finishes first (ties to the smaller group, then the lowest index), among those with
 * a positive factor whose slice stays within G. Returns the device given the last group,
 * or SIZE_MAX, with every extra group taken back, when none can take one. */
static size_t spread_residue(struct ht_split_slice *s, const struct ht_split_device_in *devs,
                             size_t n, uint64_t global, uint64_t residue)
{
    size_t last = SIZE_MAX;
    uint64_t left = residue;

    while (left > 0) {
        size_t best = SIZE_MAX;
        double best_finish = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t total = s[i].wg * (s[i].base_groups + s[i].extra_groups + 1);
            double finish;
            if (!(s[i].optimal_factor > 0) || total > global)
                continue;
            finish = model_time(&s[i], devs[i].overhead_s, total, global);
            if (best == SIZE_MAX || finish < best_finish ||
                (finish == best_finish && s[i].wg < s[best].wg)) {
                best = i;
                best_finish = finish;
            }
        }
        if (best == SIZE_MAX) {
            for (size_t i = 0; i < n; i++)
                s[i].extra_groups = 0;
            return SIZE_MAX;
        }
        s[best].extra_groups++;
        left -= s[best].wg < left ? s[best].wg : left;
        last = best;
    }
    return last;
}

/* The planner proper, from the normalized factors S (n of them, summing to 1). */
static int plan(uint64_t global, const struct ht_split_device_in *devs, const double *S,
                size_t n, enum ht_split_residue rule, struct ht_split_plan *out,
                struct ht_error *err)
{
    struct ht_split_slice *s;
    uint64_t total = 0, pos = 0, sum = 0;
    size_t k;
    double G = (double)global;

    s = calloc(n, sizeof *s);
    if (!s)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        s[i].wg = devs[i].wg;
        s[i].time_s = devs[i].time_s;
        s[i].overhead_s = devs[i].overhead_s;
        s[i].optimal_factor = S[i];
        s[i].gamma = G * S[i] / (double)devs[i].wg;
        s[i].base_groups = whole_groups(s[i].gamma);
        /* Rounding cannot make one device's groups pass G on their own. */
        if (s[i].base_groups > global / devs[i].wg)
            s[i].base_groups = global / devs[i].wg;
        total += s[i].wg * s[i].base_groups;
    }
    /* The factors sum to 1 only within rounding: should the whole groups pass G, the
     * device whose γ̂ was rounded up the most gives a group back, until they fit. */
    while (total > global) {
        size_t worst = SIZE_MAX;
        for (size_t i = 0; i < n; i++)
            if (s[i].base_groups > 0 &&
                (worst == SIZE_MAX || (double)s[i].base_groups - s[i].gamma >
                                          (double)s[worst].base_groups - s[worst].gamma))
                worst = i;
        s[worst].base_groups--;
        total -= s[worst].wg;
    }

    out->global = global;
    out->ndevices = n;
    out->slices = s;
    out->residue = global - total; /* Eq. 8 */
    out->residue_device = SIZE_MAX;
    if (out->residue > 0) {
        /* Eq. 9: the residue goes to the device that needs the least extra work. */
        if (rule == HT_SPLIT_RESIDUE_GROUPS) {
            k = spread_residue(s, devs, n, global, out->residue);
        } else {
            k = pick_residue(s, devs, n, global, out->residue, 1, rule);
            if (k != SIZE_MAX)
                s[k].extra_groups = ceil_div(out->residue, s[k].wg);
        }
        if (k == SIZE_MAX) {
            /* No device can take the residue and still end at G: one device takes all,
             * by the time rule when the residue would have been spread by groups. */
            k = pick_residue(s, devs, n, global, global, 0,
                             rule == HT_SPLIT_RESIDUE_GROUPS ? HT_SPLIT_RESIDUE_TIME : rule);
            for (size_t i = 0; i < n; i++)
                s[i].base_groups = 0;
            s[k].extra_groups = ceil_div(global, s[k].wg);
            out->residue = global;
        }
        out->residue_device = k;
    }

    for (size_t i = 0; i < n; i++) {
        s[i].groups = s[i].base_groups + s[i].extra_groups;
        s[i].size = s[i].groups * s[i].wg;
        sum += s[i].size;
        if (i == out->residue_device || s[i].size == 0)
            continue;
        s[i].offset = s[i].own_offset = pos;
        s[i].own_size = s[i].size;
        pos += s[i].size;
    }
    if (out->residue_device != SIZE_MAX) {
        struct ht_split_slice *r = &s[out->residue_device];
        /* Last, ending at G; it owns only what the others leave. */
        r->offset = r->size <= global ? global - r->size : 0;
        r->own_offset = pos;
        r->own_size = global - pos;
        out->overhang = r->offset + r->size - global;
    }
    out->overlap = sum - global;

    out->theoretical_time_s = 0;
    out->adjusted_time_s = 0;
    out->model_time_s = 0;
    for (size_t i = 0; i < n; i++) {
        double t_opt, t_adj, t_model = model_time(&s[i], devs[i].overhead_s, s[i].size, global);
        s[i].adjusted_factor = (double)s[i].own_size / G;
        s[i].slice_factor = (double)s[i].size / G;
        s[i].model_s = t_model;
        /* Algorithm 1: the slowest device's share of its time alone. */
        t_opt = s[i].optimal_factor * s[i].time_s;
        t_adj = s[i].slice_factor * s[i].time_s;
        if (t_opt > out->theoretical_time_s)
            out->theoretical_time_s = t_opt;
        if (t_adj > out->adjusted_time_s)
            out->adjusted_time_s = t_adj;
        if (t_model > out->model_time_s)
            out->model_time_s = t_model;
    }
    return 0;
}

/* Eq. 4 (every overhead 0) or the affine model's factors (see split.h), into S. */
static void factors_from_times(const struct ht_split_device_in *devs, size_t n, double *S)
{
    double tmin = devs[0].time_s, sum = 0, T = 0, num = 1, den = 0;
    int affine = 0;

    for (size_t i = 0; i < n; i++) {
        if (devs[i].time_s < tmin)
            tmin = devs[i].time_s;
        affine |= devs[i].overhead_s > 0;
    }
    if (!affine) {
        /* Eq. 4, with the speeds taken relative to the fastest device (numerator and
         * denominator both multiplied by its time) so that no tiny time overflows 1/t. */
        for (size_t i = 0; i < n; i++) {
            S[i] = tmin / devs[i].time_s;
            sum += S[i];
        }
        for (size_t i = 0; i < n; i++)
            S[i] /= sum;
        return;
    }
    /* Water-filling: take the devices in order of overhead while the next one's overhead
     * is below the common finish time T of those taken. Times are scaled by tmin. S[i]
     * marks the devices taken (1) until the factors are filled in. */
    for (size_t i = 0; i < n; i++)
        S[i] = 0;
    for (size_t m = 0; m < n; m++) {
        size_t next = SIZE_MAX;
        double a, b;
        for (size_t i = 0; i < n; i++)
            if (S[i] == 0 && (next == SIZE_MAX || devs[i].overhead_s < devs[next].overhead_s))
                next = i;
        a = devs[next].overhead_s / tmin;
        b = (devs[next].time_s - devs[next].overhead_s) / tmin;
        if (m > 0 && !(a < T))
            break;
        S[next] = 1;
        num += a / b;
        den += 1 / b;
        T = num / den;
    }
    for (size_t i = 0; i < n; i++) {
        if (S[i] == 0)
            continue;
        S[i] = (T - devs[i].overhead_s / tmin) / ((devs[i].time_s - devs[i].overhead_s) / tmin);
        /* An overhead a few units of rounding below T may still round to a share below 0. */
        if (!(S[i] > 0))
            S[i] = 0;
        sum += S[i];
    }
    for (size_t i = 0; i < n; i++)
        S[i] /= sum; /* only rounding away from 1 */
}

int ht_split_plan_make(uint64_t global, const struct ht_split_device_in *devs, size_t n,
                       const struct ht_split_plan_opts *opts, struct ht_split_plan *out,
                       struct ht_error *err)
{
    const double *factors = opts ? opts->factors : NULL;
    enum ht_split_residue rule = opts ? opts->residue : HT_SPLIT_RESIDUE_WORK;
    double *S = NULL, sum = 0;
    char field[64], text[256];
    int rc;

    if (out)
        memset(out, 0, sizeof *out);
    rc = check_inputs(global, devs, n, out, err);
    if (rc)
        return rc;
    if (!ht_split_residue_name(rule))
        return fail_at(err, "residue", HT_EINVAL, "unknown residue rule");
    if (factors) {
        for (size_t i = 0; i < n; i++) {
            if (!(factors[i] >= 0) || !isfinite(factors[i])) {
                snprintf(field, sizeof field, "factors[%zu]", i);
                snprintf(text, sizeof text,
                         "a factor must be finite and not negative (got %g)", factors[i]);
                return fail_at(err, field, HT_EINVAL, text);
            }
            sum += factors[i];
        }
        if (!(sum > 0) || !isfinite(sum))
            return fail_at(err, "factors", HT_EINVAL,
                           "the factors must have a positive, finite sum");
    }
    S = malloc(n * sizeof *S);
    if (!S)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    if (factors)
        for (size_t i = 0; i < n; i++)
            S[i] = factors[i] / sum;
    else
        factors_from_times(devs, n, S);
    rc = plan(global, devs, S, n, rule, out, err);
    free(S);
    return rc;
}

int ht_split_bound(const struct ht_split_device_in *devs, size_t n, double *time_s,
                   double *shares, struct ht_error *err)
{
    double *S, T = 0;
    size_t fastest = 0;
    int rc;

    if (n && !devs)
        return fail_at(err, "devices", HT_EINVAL, "ht_split_bound: devs is NULL");
    if (!time_s)
        return fail_at(err, "time", HT_EINVAL, "ht_split_bound: time_s is NULL");
    if ((rc = check_devices(devs, n, 0, err)))
        return rc;
    S = malloc(n * sizeof *S);
    if (!S)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    /* The planner's own optimal factors, so that the bound is the time of the very shares
     * a plan starts from (Eq. 4 without overheads, water-filling with them). */
    factors_from_times(devs, n, S);
    for (size_t i = 0; i < n; i++) {
        double t = devs[i].overhead_s + (devs[i].time_s - devs[i].overhead_s) * S[i];
        if (S[i] > 0 && t > T)
            T = t;
        if (devs[i].time_s < devs[fastest].time_s)
            fastest = i;
    }
    /* Running alone is one of the splits: the bound is never above it. */
    if (!(T <= devs[fastest].time_s)) {
        T = devs[fastest].time_s;
        for (size_t i = 0; i < n; i++)
            S[i] = i == fastest;
    }
    *time_s = T;
    if (shares)
        memcpy(shares, S, n * sizeof *S);
    free(S);
    return 0;
}

int ht_split_fit_model(double f1, double t1, double f2, double t2, double min_slope,
                       double *time_s, double *overhead_s)
{
    double a, b, tmax = t1 > t2 ? t1 : t2;

    if (!time_s || !overhead_s || !(f1 > 0 && f1 <= 1) || !(f2 > 0 && f2 <= 1) || f1 == f2 ||
        !(t1 > 0) || !isfinite(t1) || !(t2 > 0) || !isfinite(t2))
        return HT_EINVAL;
    b = (t2 - t1) / (f2 - f1);
    if (!(min_slope >= tmax / 1000))
        min_slope = tmax / 1000;
    if (!(b >= min_slope))
        b = min_slope;
    a = t2 - b * f2;
    if (!(a > 0)) {
        a = 0;
        b = t2 / f2;
    }
    *time_s = a + b;
    *overhead_s = a;
    return HT_OK;
}

static const char *const residue_names[] = {
    [HT_SPLIT_RESIDUE_WORK] = "work",
    [HT_SPLIT_RESIDUE_TIME] = "time",
    [HT_SPLIT_RESIDUE_GROUPS] = "groups",
};

const char *ht_split_residue_name(enum ht_split_residue rule)
{
    if ((unsigned)rule >= sizeof residue_names / sizeof *residue_names)
        return NULL;
    return residue_names[rule];
}

int ht_split_residue_parse(const char *name, enum ht_split_residue *rule)
{
    for (size_t i = 0; name && rule && i < sizeof residue_names / sizeof *residue_names; i++)
        if (!strcmp(name, residue_names[i])) {
            *rule = (enum ht_split_residue)i;
            return HT_OK;
        }
    return HT_EINVAL;
}

void ht_split_plan_destroy(struct ht_split_plan *plan)
{
    if (!plan)
        return;
    free(plan->slices);
    memset(plan, 0, sizeof *plan);
}
