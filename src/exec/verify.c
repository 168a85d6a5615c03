/* Element-wise comparison of a configuration's outputs with the reference outputs. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exec-internal.h"

void ht__format_index(const char *name, const struct ht__hostbuf *b, size_t i, char *buf,
                      size_t size)
{
    uint64_t idx[3] = {0, 0, 0};
    uint64_t rest = i;
    unsigned n = b->naxes ? b->naxes : 1;
    int len;

    /* Row-major: the last axis varies fastest. */
    for (unsigned a = n; a-- > 0;) {
        uint64_t d = (b->naxes && b->dims[a]) ? b->dims[a] : (uint64_t)b->count;
        if (a == 0 || d == 0) {
            idx[a] = rest;
            break;
        }
        idx[a] = rest % d;
        rest /= d;
    }
    len = snprintf(buf, size, "%s", name);
    for (unsigned a = 0; a < n && len >= 0 && (size_t)len < size; a++)
        len += snprintf(buf + len, size - (size_t)len, "[%" PRIu64 "]", idx[a]);
}

static double load_float(enum ht_type t, const void *p, size_t i)
{
    return t == HT_TYPE_FLOAT ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

/* Loads integer element i; signed types sign-extend into *s, unsigned into *u. */
static void load_int(enum ht_type t, const void *p, size_t i, int64_t *s, uint64_t *u)
{
    *s = 0;
    *u = 0;
    switch (t) {
    case HT_TYPE_CHAR: *s = ((const int8_t *)p)[i]; break;
    case HT_TYPE_UCHAR: *u = ((const uint8_t *)p)[i]; break;
    case HT_TYPE_SHORT: *s = ((const int16_t *)p)[i]; break;
    case HT_TYPE_USHORT: *u = ((const uint16_t *)p)[i]; break;
    case HT_TYPE_INT: *s = ((const int32_t *)p)[i]; break;
    case HT_TYPE_UINT: *u = ((const uint32_t *)p)[i]; break;
    case HT_TYPE_LONG: *s = ((const int64_t *)p)[i]; break;
    case HT_TYPE_ULONG: *u = ((const uint64_t *)p)[i]; break;
    default: break;
    }
}

static void note_error(struct ht__cmp *c, double abs_err, double exp)
{
    if (abs_err > c->max_abs || isnan(abs_err))
        c->max_abs = isnan(abs_err) ? INFINITY : abs_err;
    /* A relative error against zero says nothing: leave those elements out of max_rel. */
    if (exp != 0.0) {
        double rel = isfinite(abs_err) ? abs_err / fabs(exp) : INFINITY;
        if (rel > c->max_rel)
            c->max_rel = rel;
    }
}

/* 1 when integer element i of p holds the poison pattern (ht__poison_pattern), bit for bit:
 * an element nobody wrote. */
static int int_unwritten(enum ht_type t, const void *p, size_t i)
{
    unsigned char pat[8];
    size_t es = ht_type_size(t);

    ht__poison_pattern(t, pat);
    return memcmp((const unsigned char *)p + i * es, pat, es) == 0;
}

static void compare_float(const struct ht_arg *arg, const struct ht__hostbuf *got,
                          const struct ht__hostbuf *exp, double rtol, double atol,
                          struct ht__cmp *c)
{
    int prec = arg->type == HT_TYPE_FLOAT ? 9 : 17;
    int written = arg->check == HT_CHECK_WRITTEN;

    for (size_t i = 0; i < got->count; i++) {
        double g = load_float(arg->type, got->data, i);
        double e = load_float(arg->type, exp->data, i);
        double d = fabs(g - e);
        int ok;

        /* Poison is NaN: an element the reference left unwritten, which "written" skips. */
        if (written && isnan(e))
            continue;
        c->compared++;
        if (isnan(g) || isnan(e))
            ok = 0; /* poison, or an output nobody wrote */
        else if (isinf(g) || isinf(e)) {
            ok = g == e;
            d = ok ? 0.0 : INFINITY;
        } else
            ok = d <= atol + rtol * fabs(e);
        note_error(c, isnan(d) ? INFINITY : d, isfinite(e) ? e : 0.0);
        if (!ok) {
            if (c->mismatches++ == 0) {
                char where[160];
                ht__format_index(arg->name, got, i, where, sizeof where);
                snprintf(c->first, sizeof c->first, "%s: got %.*g, expected %.*g", where, prec,
                         g, prec, e);
            }
        }
    }
}

static void compare_int(const struct ht_arg *arg, const struct ht__hostbuf *got,
                        const struct ht__hostbuf *exp, struct ht__cmp *c)
{
    int is_signed = ht_type_is_signed(arg->type);
    int written = arg->check == HT_CHECK_WRITTEN;

    for (size_t i = 0; i < got->count; i++) {
        int64_t gs, es;
        uint64_t gu, eu;
        double gd, ed;

        if (written && int_unwritten(arg->type, exp->data, i))
            continue;
        c->compared++;
        load_int(arg->type, got->data, i, &gs, &gu);
        load_int(arg->type, exp->data, i, &es, &eu);
        if (is_signed ? gs == es : gu == eu)
            continue;
        gd = is_signed ? (double)gs : (double)gu;
        ed = is_signed ? (double)es : (double)eu;
        note_error(c, fabs(gd - ed), ed);
        if (c->mismatches++ == 0) {
            char where[160];
            ht__format_index(arg->name, got, i, where, sizeof where);
            if (is_signed)
                snprintf(c->first, sizeof c->first, "%s: got %" PRId64 ", expected %" PRId64,
                         where, gs, es);
            else
                snprintf(c->first, sizeof c->first, "%s: got %" PRIu64 ", expected %" PRIu64,
                         where, gu, eu);
        }
    }
}

/* Neumaier's compensated sum: the order of a few thousand partial sums does not show. */
struct ksum {
    double s, comp;
};

static void ksum_add(struct ksum *k, double x)
{
    double t = k->s + x;

    if (fabs(k->s) >= fabs(x))
        k->comp += (k->s - t) + x;
    else
        k->comp += (x - t) + k->s;
    k->s = t;
}

/* "sum": the sum of every element of got against the sum of the elements the reference
 * wrote (so that a reference may write its total into one element of a buffer whose
 * length is the configuration's number of work-groups). One comparison. */
static void compare_sum(const struct ht_arg *arg, const struct ht__hostbuf *got,
                        const struct ht__hostbuf *exp, double rtol, double atol,
                        struct ht__cmp *c)
{
    int prec = arg->type == HT_TYPE_FLOAT ? 9 : 17;
    size_t used = 0;
    char where[96];
    int ok;

    snprintf(where, sizeof where, "sum(%s) of %zu element%s", arg->name, got->count,
             got->count == 1 ? "" : "s");
    c->compared++;
    if (ht_type_is_float(arg->type)) {
        struct ksum g = {0.0, 0.0}, e = {0.0, 0.0};
        double gs, es, d;
        for (size_t i = 0; i < got->count; i++)
            ksum_add(&g, load_float(arg->type, got->data, i));
        for (size_t i = 0; i < exp->count; i++) {
            double x = load_float(arg->type, exp->data, i);
            if (isnan(x))
                continue;
            ksum_add(&e, x);
            used++;
        }
        gs = g.s + g.comp;
        es = e.s + e.comp;
        d = fabs(gs - es);
        /* A NaN in got is an unwritten partial sum (poison): never a match. */
        if (isinf(gs) || isinf(es)) {
            ok = used && gs == es;
            d = ok ? 0.0 : INFINITY;
        } else {
            ok = used && !isnan(gs) && d <= atol + rtol * fabs(es);
            d = isnan(d) ? INFINITY : d;
        }
        note_error(c, d, isfinite(es) ? es : 0.0);
        if (!ok && c->mismatches++ == 0)
            snprintf(c->first, sizeof c->first, "%s: got %.*g, expected %.*g (the sum of the "
                     "%zu element%s the reference wrote)", where, prec, gs, prec, es, used,
                     used == 1 ? "" : "s");
    } else {
        /* Integer sums wrap modulo 2^64 on both sides: exact, whatever the order. */
        int is_signed = ht_type_is_signed(arg->type);
        uint64_t gu = 0, eu = 0;
        for (size_t i = 0; i < got->count; i++) {
            int64_t s;
            uint64_t u;
            load_int(arg->type, got->data, i, &s, &u);
            gu += is_signed ? (uint64_t)s : u;
        }
        for (size_t i = 0; i < exp->count; i++) {
            int64_t s;
            uint64_t u;
            if (int_unwritten(arg->type, exp->data, i))
                continue;
            load_int(arg->type, exp->data, i, &s, &u);
            eu += is_signed ? (uint64_t)s : u;
            used++;
        }
        ok = used && gu == eu;
        if (!ok) {
            double gd = is_signed ? (double)(int64_t)gu : (double)gu;
            double ed = is_signed ? (double)(int64_t)eu : (double)eu;
            note_error(c, fabs(gd - ed), ed);
            if (c->mismatches++ == 0) {
                if (is_signed)
                    snprintf(c->first, sizeof c->first, "%s: got %" PRId64 ", expected %" PRId64
                             " (the sum of the %zu element%s the reference wrote)", where,
                             (int64_t)gu, (int64_t)eu, used, used == 1 ? "" : "s");
                else
                    snprintf(c->first, sizeof c->first, "%s: got %" PRIu64 ", expected %" PRIu64
                             " (the sum of the %zu element%s the reference wrote)", where, gu,
                             eu, used, used == 1 ? "" : "s");
            }
        }
    }
}

void ht__compare(const struct ht_arg *arg, const struct ht__hostbuf *got,
                 const struct ht__hostbuf *exp, double rtol, double atol, struct ht__cmp *c)
{
    if (arg->check == HT_CHECK_NONE)
        return;
    if (arg->check == HT_CHECK_SUM && got->data && exp->data) {
        compare_sum(arg, got, exp, rtol, atol, c);
        return;
    }
    if (got->count != exp->count || !got->data || !exp->data) {
        if (c->mismatches++ == 0)
            snprintf(c->first, sizeof c->first,
                     "%s: has %zu elements but the reference has %zu%s", arg->name, got->count,
                     exp->count,
                     got->data && exp->data
                         ? " (a buffer whose length depends on the configuration can be "
                           "compared by its sum: \"verify\": \"sum\")"
                         : "");
        return;
    }
    if (ht_type_is_float(arg->type))
        compare_float(arg, got, exp, rtol, atol, c);
    else
        compare_int(arg, got, exp, c);
}

void ht__compare_outputs(const struct ht_spec *spec, const struct ht__hostbuf *got,
                         const struct ht__hostbuf *exp, struct ht__cmp *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *arg = &spec->args[i];
        if (arg->is_buffer && arg->access != HT_ACCESS_READ && arg->access != HT_ACCESS_TEMP)
            ht__compare(arg, &got[i], &exp[i], spec->rtol, spec->atol, c);
    }
}
