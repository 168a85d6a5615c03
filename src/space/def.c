/* Design-space definitions: slots of the name table, evaluation of the NDRange, and the
 * check of one configuration against its domains, the platform rules (paper §2.1,
 * Eq. 1-3) and the application's constraints. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/space.h"

size_t ht_space_param_slot(const struct ht_space_def *def, size_t i)
{
    return def ? def->nsizes + i : SIZE_MAX;
}

size_t ht_space_devvar_slot(const struct ht_space_def *def, enum ht_device_var v)
{
    return def ? def->nsizes + def->nparams + (size_t)v : SIZE_MAX;
}

void ht_space_vars(const struct ht_space_def *def, const struct ht_device_info *dev,
                   const int64_t *params, int64_t *vars)
{
    if (!def || !vars)
        return;
    for (size_t i = 0; i < def->nsizes; i++)
        vars[i] = def->size_values[i];
    for (size_t i = 0; i < def->nparams; i++)
        vars[def->nsizes + i] = params ? params[i] : 0;
    if (dev)
        ht_device_vars(dev, vars + ht_space_devvar_slot(def, 0));
    else
        memset(vars + ht_space_devvar_slot(def, 0), 0, HT_DEVICE_NVARS * sizeof *vars);
}

/* Whether a rejection's message would be kept: checking is the inner loop of the
 * enumerator and of the draws (search/draw.c), which pass no err, so names and values are
 * formatted only for a caller that reads them. */
#define WANTS_TEXT(err) ((err) && !(err)->code)

/* Fills err (when it holds nothing yet) with a rule's name and the reason. */
static int reject(struct ht_error *err, int code, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int reject(struct ht_error *err, int code, const char *rule, const char *fmt, ...)
{
    va_list ap;

    if (!err || err->code)
        return code;
    err->code = code;
    err->line = err->column = 0;
    snprintf(err->field, sizeof err->field, "%s", rule);
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
    return code;
}

/* The reasons below are written by functions of their own (COLD): a check that passes, or
 * fails for a caller that reads no reason, is the inner loop of the draws (search/draw.c)
 * and of unit/test_space_enum's brute force, and the buffers a reason needs, in that loop's
 * frames, were poisoned and unpoisoned on every call under AddressSanitizer (with the
 * 2.8 KiB report cleared on every check, about a third of that test's CPU time there).
 * Not inlined, so that the buffers stay out of the callers' frames. */
#define COLD __attribute__((noinline, cold))

/* The reason an extent of the NDRange is refused (v when it was evaluated). */
static COLD int extent_reject(const struct ht_expr *e, const char *what, unsigned d, int rc,
                              int64_t v, struct ht_error *err)
{
    char field[64];

    snprintf(field, sizeof field, "ndrange.%s[%u]", what, d);
    if (rc != HT_OK)
        return reject(err, HT_EINVAL, field, "'%s' cannot be evaluated: %s",
                      ht_expr_source(e), ht_strerror(rc));
    return reject(err, HT_EINVAL, field, "'%s' is %" PRId64 ", but a size must be positive",
                  ht_expr_source(e), v);
}

/* One extent of the NDRange: evaluated and positive. */
static int extent(const struct ht_expr *e, const int64_t *vars, const char *what, unsigned d,
                  uint64_t *out, struct ht_error *err)
{
    int64_t v;
    int rc = ht_expr_eval(e, vars, &v);

    if (rc == HT_OK && v > 0) {
        *out = (uint64_t)v;
        return HT_OK;
    }
    if (!WANTS_TEXT(err))
        return HT_EINVAL;
    return extent_reject(e, what, d, rc, v, err);
}

int ht_space_ndrange(const struct ht_space_def *def, const int64_t *vars, uint64_t global[3],
                     uint64_t local[3], struct ht_error *err)
{
    int open, rc;

    if (!def || !vars || !global || !local)
        return ht_error_set(err, HT_EINVAL, "ht_space_ndrange: %s is NULL",
                            !def ? "def" : !vars ? "vars" : !global ? "global" : "local");
    open = def->local[0] == NULL;
    for (unsigned d = 0; d < 3; d++) {
        global[d] = 1;
        local[d] = open ? 0 : 1;
    }
    for (unsigned d = 0; d < def->ndims && d < 3; d++)
        if ((rc = extent(def->global[d], vars, "global", d, &global[d], err)) != HT_OK)
            return rc;
    for (unsigned d = 0; !open && d < def->ndims && d < 3; d++)
        if ((rc = extent(def->local[d], vars, "local", d, &local[d], err)) != HT_OK)
            return rc;
    return HT_OK;
}

int ht_eq3_parse(const char *s, enum ht_eq3 *out)
{
    static const struct {
        const char *name;
        enum ht_eq3 value;
    } table[] = {{"product", HT_EQ3_PRODUCT}, {"sum", HT_EQ3_SUM}, {"off", HT_EQ3_OFF}};

    for (size_t i = 0; s && out && i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(s, table[i].name)) {
            *out = table[i].value;
            return HT_OK;
        }
    return HT_EINVAL;
}

/* a * b, or UINT64_MAX when it does not fit: only compared against device limits. */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return (a != 0 && b > UINT64_MAX / a) ? UINT64_MAX : a * b;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* "32x32" for the NDRange dimensions of v. */
static void dims_text(const uint64_t *v, unsigned n, const char *sep, char *buf, size_t size)
{
    size_t used = 0;

    buf[0] = '\0';
    for (unsigned d = 0; d < n && used < size; d++) {
        int k = snprintf(buf + used, size - used, "%s%" PRIu64, d ? sep : "", v[d]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

/* A parameter's reason: err's field "params.NAME", the text from fmt. */
static COLD int param_reject(struct ht_error *err, const struct ht_param *p, const char *fmt,
                             ...) __attribute__((format(printf, 3, 4)));
static COLD int param_reject(struct ht_error *err, const struct ht_param *p, const char *fmt,
                             ...)
{
    va_list ap;

    if (!err || err->code)
        return HT_ECONSTRAINT;
    err->code = HT_ECONSTRAINT;
    err->line = err->column = 0;
    snprintf(err->field, sizeof err->field, "params.%s", p->name);
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
    return HT_ECONSTRAINT;
}

/* v is none of the parameter's values: the reason lists them (the first 500 characters). */
static COLD int values_reject(struct ht_error *err, const struct ht_param *p, int64_t v)
{
    char list[512];
    size_t used = 0;

    list[0] = '\0';
    for (size_t k = 0; k < p->nvalues && used < sizeof list - 8; k++) {
        int w = snprintf(list + used, sizeof list - 8 - used, "%s%" PRId64, k ? ", " : "",
                         p->values[k]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (used >= sizeof list - 8)
        snprintf(list + sizeof list - 9, 9, ", ...");
    return param_reject(err, p, "%" PRId64 " is not one of %s", v, list);
}

/* v is outside [lo, hi] or off the step of a range that has one. */
static COLD int range_reject(struct ht_error *err, const struct ht_param *p, int64_t v,
                             int64_t lo, int64_t hi, int64_t step)
{
    char st[40] = "";

    if (p->step)
        snprintf(st, sizeof st, " step %" PRId64, step);
    return param_reject(err, p, "%s = %" PRId64 " is outside the range [%" PRId64 ", %" PRId64
                        "]%s", p->name, v, lo, hi, st);
}

/* Reasons only for a caller that reads them (COLD above). */
#define TEXT_OR_REFUSE(err, call) (WANTS_TEXT(err) ? (call) : HT_ECONSTRAINT)

static int check_param(const struct ht_space_def *def, size_t i, const int64_t *vars,
                       struct ht_error *err)
{
    const struct ht_param *p = &def->params[i];
    int64_t v = vars[ht_space_param_slot(def, i)], lo, hi, step = 1;
    int rc;

    if (p->kind == HT_PARAM_VALUES) {
        if (p->sorted) {
            size_t first = 0, past = p->nvalues;
            while (first < past) {
                size_t mid = first + (past - first) / 2;
                if (p->sorted[mid] < v)
                    first = mid + 1;
                else
                    past = mid;
            }
            if (first < p->nvalues && p->sorted[first] == v)
                return HT_OK;
        } else {
            for (size_t k = 0; k < p->nvalues; k++)
                if (p->values[k] == v)
                    return HT_OK;
        }
        return TEXT_OR_REFUSE(err, values_reject(err, p, v));
    }
    if ((rc = ht_expr_eval(p->lo, vars, &lo)) != HT_OK ||
        (rc = ht_expr_eval(p->hi, vars, &hi)) != HT_OK ||
        (!p->pow2 && p->step && (rc = ht_expr_eval(p->step, vars, &step)) != HT_OK))
        return TEXT_OR_REFUSE(err, param_reject(err, p, "the range of %s cannot be evaluated: %s",
                                                p->name, ht_strerror(rc)));
    if (p->pow2) {
        if (v < lo || v > hi)
            return TEXT_OR_REFUSE(err, param_reject(err, p, "%s = %" PRId64 " is outside the "
                                                    "range [%" PRId64 ", %" PRId64 "]",
                                                    p->name, v, lo, hi));
        if (v <= 0 || (v & (v - 1)) != 0)
            return TEXT_OR_REFUSE(err, param_reject(err, p, "%s = %" PRId64 " is not a power "
                                                    "of two", p->name, v));
        return HT_OK;
    }
    if (step <= 0)
        return TEXT_OR_REFUSE(err, param_reject(err, p, "the step of %s is %" PRId64
                                                ", but must be positive", p->name, step));
    /* v >= lo here, so the difference is exact in unsigned arithmetic. */
    if (v < lo || v > hi || ((uint64_t)v - (uint64_t)lo) % (uint64_t)step != 0)
        return TEXT_OR_REFUSE(err, range_reject(err, p, v, lo, hi, step));
    return HT_OK;
}

/* "N = 100, TS = 8": the values a failed constraint read. */
static void used_values(const struct ht_space_def *def, const struct ht_expr *e,
                        const int64_t *vars, char *buf, size_t size)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t s = 0; s < def->names.count && used < size; s++) {
        int w;
        if (!ht_expr_uses(e, s))
            continue;
        w = snprintf(buf + used, size - used, "%s%s = %" PRId64, used ? ", " : "",
                     def->names.names[s], vars[s]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* The NDRange cannot be computed: its reason, computed again (the check asks for none
 * the first time: a report of 2.8 KiB cleared on every check took a tenth of a plain
 * unit/test_space_enum's time). */
static COLD int ndrange_reject(const struct ht_space_def *def, const int64_t *vars,
                               struct ht_error *err)
{
    uint64_t global[3], local[3];
    struct ht_error nd;

    ht_error_clear(&nd);
    ht_space_ndrange(def, vars, global, local, &nd);
    return reject(err, HT_ECONSTRAINT, nd.field, "%s", nd.text);
}

/* Eq. 1's reason: the local size's total work-items over max_work_group_size. */
static COLD int eq1_reject(const struct ht_space_def *def, const struct ht_device_info *dev,
                           const uint64_t local[3], uint64_t total, struct ht_error *err)
{
    char a[96];

    dims_text(local, def->ndims, "x", a, sizeof a);
    if (def->ndims > 1)
        return reject(err, HT_ECONSTRAINT, "Eq. 1",
                      "local size %s = %" PRIu64 " work-items exceeds "
                      "max_work_group_size %" PRIu64, a, total, dev->max_work_group_size);
    return reject(err, HT_ECONSTRAINT, "Eq. 1",
                  "local size %s work-items exceeds max_work_group_size %" PRIu64, a,
                  dev->max_work_group_size);
}

/* Eq. 3's reason: fewer work-groups than compute units. */
static COLD int eq3_reject(const struct ht_space_def *def, const struct ht_device_info *dev,
                           const uint64_t groups[3], uint64_t ngroups, enum ht_eq3 eq3,
                           struct ht_error *err)
{
    char b[96];

    dims_text(groups, def->ndims, eq3 == HT_EQ3_SUM ? " + " : "x", b, sizeof b);
    return reject(err, HT_ECONSTRAINT, "Eq. 3",
                  "%" PRIu64 " work-groups (%s%s) is fewer than compute_units %" PRIu32,
                  ngroups, b, eq3 == HT_EQ3_SUM ? ", summed over dimensions" : "",
                  dev->compute_units);
}

/* An application's constraint that does not hold (v == 0) or cannot be evaluated (rc). */
static COLD int constraint_reject(const struct ht_space_def *def, const struct ht_constraint *c,
                                  const int64_t *vars, int rc, struct ht_error *err)
{
    char vals[512];

    used_values(def, c->expr, vars, vals, sizeof vals);
    if (rc != HT_OK)
        return reject(err, HT_ECONSTRAINT, c->origin, "'%s' cannot be evaluated: %s (%s)",
                      ht_expr_source(c->expr), ht_strerror(rc), vals);
    return reject(err, HT_ECONSTRAINT, c->origin, "'%s' does not hold%s%s%s",
                  ht_expr_source(c->expr), vals[0] ? " (" : "", vals, vals[0] ? ")" : "");
}

static int check_vars(const struct ht_space_def *def, const struct ht_device_info *dev,
                      const int64_t *vars, enum ht_eq3 eq3, struct ht_error *err)
{
    uint64_t global[3], local[3], total = 1, groups[3], ngroups;
    int rc;

    for (size_t i = 0; i < def->nparams; i++)
        if ((rc = check_param(def, i, vars, err)) != HT_OK)
            return rc;
    if (ht_space_ndrange(def, vars, global, local, NULL) != HT_OK)
        return TEXT_OR_REFUSE(err, ndrange_reject(def, vars, err));

    if (def->local[0]) {
        for (unsigned d = 0; d < def->ndims; d++)
            total = mul_sat(total, local[d]);
        /* Eq. 1: a work-group holds at most max_work_group_size work-items. */
        if (total > dev->max_work_group_size)
            return TEXT_OR_REFUSE(err, eq1_reject(def, dev, local, total, err));
        for (unsigned d = 0; d < def->ndims; d++)
            if (local[d] > dev->max_work_item_sizes[d])
                return reject(err, HT_ECONSTRAINT, "work-item limit",
                              "local size %" PRIu64 " in dimension %u exceeds "
                              "max_work_item_size_%u %" PRIu64, local[d], d, d,
                              dev->max_work_item_sizes[d]);
        /* Eq. 2: the NDRange is made of whole work-groups. */
        for (unsigned d = 0; d < def->ndims; d++)
            if (global[d] % local[d] != 0)
                return reject(err, HT_ECONSTRAINT, "Eq. 2",
                              "global size %" PRIu64 " is not a multiple of local size %" PRIu64
                              " in dimension %u", global[d], local[d], d);
    }

    if (def->local_mem) {
        int64_t bytes;
        if ((rc = ht_expr_eval(def->local_mem, vars, &bytes)) != HT_OK)
            return reject(err, HT_ECONSTRAINT, "local memory",
                          "local_mem '%s' cannot be evaluated: %s",
                          ht_expr_source(def->local_mem), ht_strerror(rc));
        if (bytes > 0 && (uint64_t)bytes > dev->local_mem_size)
            return reject(err, HT_ECONSTRAINT, "local memory",
                          "local memory %" PRId64 " bytes exceeds local_mem_size %" PRIu64, bytes,
                          dev->local_mem_size);
    }

    /* Eq. 3: enough work-groups to occupy every compute unit. The paper sums over the
     * dimensions while its text means the total; the product is the default. */
    if (def->local[0] && eq3 != HT_EQ3_OFF) {
        ngroups = eq3 == HT_EQ3_SUM ? 0 : 1;
        for (unsigned d = 0; d < def->ndims; d++) {
            groups[d] = global[d] / local[d];
            ngroups = eq3 == HT_EQ3_SUM ? add_sat(ngroups, groups[d])
                                        : mul_sat(ngroups, groups[d]);
        }
        if (ngroups < dev->compute_units)
            return TEXT_OR_REFUSE(err, eq3_reject(def, dev, groups, ngroups, eq3, err));
    }

    for (size_t i = 0; i < def->nconstraints; i++) {
        const struct ht_constraint *c = &def->constraints[i];
        int64_t v;

        /* Else v == 0 or rc says why it has no value. */
        if ((rc = ht_expr_eval(c->expr, vars, &v)) == HT_OK && v != 0)
            continue;
        return TEXT_OR_REFUSE(err, constraint_reject(def, c, vars, rc, err));
    }
    return HT_OK;
}

int ht_space_check(const struct ht_space_def *def, const struct ht_device_info *dev,
                   const int64_t *params, enum ht_eq3 eq3, struct ht_error *err)
{
    int64_t small[128], *vars = small;
    int rc;

    /* params NULL leaves the parameters 0 (ht_space_vars): no configuration to check. */
    if (!def || !dev || (!params && def->nparams))
        return ht_error_set(err, HT_EINVAL, "ht_space_check: %s is NULL",
                            !def ? "def" : !dev ? "dev" : "params");
    /* Checking is the enumerator's inner loop: allocate only for very large tables. */
    if (def->names.count > sizeof small / sizeof small[0]) {
        vars = malloc(def->names.count * sizeof *vars);
        if (!vars)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    ht_space_vars(def, dev, params, vars);
    rc = check_vars(def, dev, vars, eq3, err);
    if (vars != small)
        free(vars);
    return rc;
}

void ht_space_def_destroy(struct ht_space_def *def)
{
    if (!def)
        return;
    for (size_t i = 0; i < def->nsizes; i++)
        free(def->size_names[i]);
    free(def->size_names);
    free(def->size_values);
    for (size_t i = 0; i < def->nparams; i++) {
        struct ht_param *p = &def->params[i];
        free(p->name);
        free(p->values);
        free(p->sorted);
        ht_expr_free(p->lo);
        ht_expr_free(p->hi);
        ht_expr_free(p->step);
    }
    free(def->params);
    /* The table's array is owned; its strings are borrowed from the sizes, the parameters
     * and ht_device_var_names. */
    free((void *)def->names.names);
    for (unsigned d = 0; d < 3; d++) {
        ht_expr_free(def->global[d]);
        ht_expr_free(def->local[d]);
    }
    ht_expr_free(def->local_mem);
    for (size_t i = 0; i < def->nconstraints; i++) {
        ht_expr_free(def->constraints[i].expr);
        free(def->constraints[i].origin);
    }
    free(def->constraints);
    memset(def, 0, sizeof *def);
}
