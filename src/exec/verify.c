/* Element-wise comparison of a configuration's outputs with the reference outputs. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exec/exec-internal.h"

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

static void compare_float(const struct ht_arg *arg, const struct ht__hostbuf *got,
                          const struct ht__hostbuf *exp, double rtol, double atol,
                          struct ht__cmp *c)
{
    int prec = arg->type == HT_TYPE_FLOAT ? 9 : 17;

    for (size_t i = 0; i < got->count; i++) {
        double g = load_float(arg->type, got->data, i);
        double e = load_float(arg->type, exp->data, i);
        double d = fabs(g - e);
        int ok;

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

    for (size_t i = 0; i < got->count; i++) {
        int64_t gs, es;
        uint64_t gu, eu;
        double gd, ed;

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

void ht__compare(const struct ht_arg *arg, const struct ht__hostbuf *got,
                 const struct ht__hostbuf *exp, double rtol, double atol, struct ht__cmp *c)
{
    if (got->count != exp->count || !got->data || !exp->data) {
        if (c->mismatches++ == 0)
            snprintf(c->first, sizeof c->first,
                     "%s: has %zu elements but the reference has %zu", arg->name, got->count,
                     exp->count);
        return;
    }
    c->compared += got->count;
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
