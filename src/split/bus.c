/* The bus in the split planner: a device's busy time with its transfers as the planner's
 * affine model, and the split-or-alone decision (pure arithmetic, see split.h). The
 * transfer-aware bound is the planner's continuous optimum: ht_split_bound in plan.c. */
#include <math.h>
#include <stdio.h>

#include "hetune/split.h"

static int bad(struct ht_error *err, const char *field, const char *text, double got)
{
    if (err && !err->code)
        snprintf(err->field, sizeof err->field, "%s", field);
    return ht_error_set(err, HT_EINVAL, "%s (got %g)", text, got);
}

int ht_split_bus_model(const struct ht_split_bus *b, struct ht_split_device_in *out,
                       struct ht_error *err)
{
    double k, slope, fixed;

    if (!b || !out)
        return ht_error_set(err, HT_EINVAL, "ht_split_bus_model: %s is NULL",
                            !b ? "b" : "out");
    if (!(b->kernel_s > 0) || !isfinite(b->kernel_s))
        return bad(err, "kernel_s", "the kernel time must be a positive, finite number of "
                   "seconds", b->kernel_s);
    if (!(b->overhead_s >= 0) || !(b->overhead_s < b->kernel_s))
        return bad(err, "overhead_s", "the kernel overhead must be at least 0 and below the "
                   "kernel time", b->overhead_s);
    if (!(b->xfer_s >= 0) || !isfinite(b->xfer_s))
        return bad(err, "xfer_s", "the transfer time must be a finite number of seconds of "
                   "at least 0", b->xfer_s);
    if (!(b->fixed_s >= 0) || !isfinite(b->fixed_s))
        return bad(err, "fixed_s", "the fixed transfer time must be a finite number of "
                   "seconds of at least 0", b->fixed_s);

    k = b->kernel_s - b->overhead_s; /* > 0 */
    fixed = b->fixed_s + b->overhead_s;
    if (b->overlap) {
        /* Pipelined: the longer stream sets the pace; one piece of the shorter one sticks
         * out (the first upload before any kernel, the last kernel after the transfers). */
        slope = k > b->xfer_s ? k : b->xfer_s;
        if (b->pieces > 0)
            fixed += (k < b->xfer_s ? k : b->xfer_s) / (double)b->pieces;
    } else {
        slope = k + b->xfer_s;
    }
    /* A fixed part some 1e16 times the slope rounds the time onto it: the planner needs
     * overhead < time. */
    if (!(fixed < fixed + slope) || !isfinite(fixed + slope))
        return bad(err, "fixed_s", "the fixed part swamps the share-proportional part "
                   "beyond what a double holds", fixed);
    out->time_s = fixed + slope;
    out->overhead_s = fixed;
    return 0;
}

int ht_split_decide(double split_s, const double *alone_s, size_t n, double margin,
                    struct ht_split_decision *out, struct ht_error *err)
{
    struct ht_split_decision d = {0};
    char field[32];

    if (!alone_s || !out || n == 0) {
        if (err && !err->code)
            snprintf(err->field, sizeof err->field, "devices");
        if (!out || (n && !alone_s))
            return ht_error_set(err, HT_EINVAL, "ht_split_decide: %s is NULL",
                                !out ? "out" : "alone_s");
        return ht_error_set(err, HT_EINVAL, "no devices to decide between");
    }
    if (!(split_s > 0) || !isfinite(split_s))
        return bad(err, "split", "the split time must be a positive, finite number of seconds",
                   split_s);
    if (!(margin >= 0) || !isfinite(margin))
        return bad(err, "margin", "the margin must be finite and at least 0", margin);
    for (size_t i = 0; i < n; i++) {
        if (!(alone_s[i] > 0) || !isfinite(alone_s[i])) {
            snprintf(field, sizeof field, "alone[%zu]", i);
            return bad(err, field, "a time alone must be a positive, finite number of seconds",
                       alone_s[i]);
        }
        if (alone_s[i] < alone_s[d.fastest])
            d.fastest = i;
    }
    d.alone_s = alone_s[d.fastest];
    d.split_s = split_s;
    d.speedup = d.alone_s / split_s;
    /* Products, not the quotient: a split exactly at the margin splits, whatever the
     * rounding of alone/split. */
    d.split = n > 1 && split_s * (1 + margin) <= d.alone_s;
    *out = d;
    return 0;
}
