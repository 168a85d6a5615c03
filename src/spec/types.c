/* Argument types, "NAME=VALUE" assignments, and configurations built from them. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/spec.h"
#include "spec-internal.h"

struct type_info {
    const char *name;
    size_t size;
    int is_float, is_signed;
};

static const struct type_info types[HT_NTYPES] = {
#define HT__TYPE_INFO(id, name, size, is_float, is_signed) {name, size, is_float, is_signed},
    HT_TYPE_MAP(HT__TYPE_INFO)
#undef HT__TYPE_INFO
};

const char *ht_type_name(enum ht_type t)
{
    return (unsigned)t < HT_NTYPES ? types[t].name : "?";
}

size_t ht_type_size(enum ht_type t)
{
    return (unsigned)t < HT_NTYPES ? types[t].size : 0;
}

int ht_type_is_float(enum ht_type t)
{
    return (unsigned)t < HT_NTYPES ? types[t].is_float : 0;
}

int ht_type_is_signed(enum ht_type t)
{
    return (unsigned)t < HT_NTYPES ? types[t].is_signed : 0;
}

int ht__type_parse(const char *name, enum ht_type *out)
{
    for (int t = 0; name && t < HT_NTYPES; t++)
        if (!strcmp(name, types[t].name)) {
            *out = (enum ht_type)t;
            return HT_OK;
        }
    return HT_EINVAL;
}

int ht_parse_assignment(const char *s, const char **name, size_t *name_len, int64_t *value,
                        struct ht_error *err)
{
    const char *eq, *p;
    char *end;
    int neg = 0, base = 10;
    unsigned long long mag;

    if (!s || !name || !name_len || !value)
        return ht_error_set(err, HT_EINVAL, "ht_parse_assignment: %s is NULL",
                            !s ? "s" : !name ? "name" : !name_len ? "name_len" : "value");
    eq = strchr(s, '=');
    if (!eq)
        return ht_error_set(err, HT_EINVAL, "'%s' is not of the form NAME=VALUE", s);
    if (eq == s)
        return ht_error_set(err, HT_EINVAL, "'%s' has no name before '='", s);
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return ht_error_set(err, HT_EINVAL, "'%.*s' is not a valid name", (int)(eq - s), s);
    for (p = s; p < eq; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_'))
            return ht_error_set(err, HT_EINVAL, "'%.*s' is not a valid name", (int)(eq - s),
                                s);
    p = eq + 1;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
        if (!isxdigit((unsigned char)*p))
            return ht_error_set(err, HT_EINVAL, "'%s' is not an integer", eq + 1);
    } else if (!isdigit((unsigned char)*p)) {
        return ht_error_set(err, HT_EINVAL, "'%s' is not an integer", eq + 1);
    }
    errno = 0;
    mag = strtoull(p, &end, base);
    if (*end != '\0')
        return ht_error_set(err, HT_EINVAL, "'%s' is not an integer", eq + 1);
    /* The magnitude may reach 2^63 only for INT64_MIN. */
    if (errno == ERANGE || mag > (unsigned long long)INT64_MAX + (unsigned long long)neg)
        return ht_error_set(err, HT_EINVAL, "'%s' does not fit in 64 bits", eq + 1);
    *name = s;
    *name_len = (size_t)(eq - s);
    *value = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return HT_OK;
}

long ht__spec_param_index(const struct ht_spec *spec, const char *name)
{
    for (size_t i = 0; spec && name && i < spec->space.nparams; i++)
        if (!strcmp(spec->space.params[i].name, name))
            return (long)i;
    return -1;
}

int ht__param_single_value(const struct ht_space_def *d, size_t i, int64_t *v)
{
    const struct ht_param *p = &d->params[i];
    long nsizes = (long)d->nsizes;
    int64_t *vars = NULL, lo, hi, step = 1;
    int one = 0;

    if (p->kind == HT_PARAM_VALUES) {
        if (p->nvalues != 1)
            return 0;
        *v = p->values[0];
        return 1;
    }
    /* Bounds over sizes are known now; over device variables only per device. */
    if (ht_expr_max_slot(p->lo) >= nsizes || ht_expr_max_slot(p->hi) >= nsizes ||
        (p->step && ht_expr_max_slot(p->step) >= nsizes))
        return 0;
    if (!(vars = calloc(d->names.count ? d->names.count : 1, sizeof *vars)))
        return 0;
    for (size_t k = 0; k < d->nsizes; k++)
        vars[k] = d->size_values[k];
    if (ht_expr_eval(p->lo, vars, &lo) != 0 || ht_expr_eval(p->hi, vars, &hi) != 0 ||
        (p->step && ht_expr_eval(p->step, vars, &step) != 0) || lo > hi || step <= 0)
        goto done;
    if (p->pow2) {
        /* The one power of two of [lo, hi]: the first at least lo, its double past hi. */
        int64_t x = 1;
        while (x < lo && x <= INT64_MAX / 2)
            x *= 2;
        one = x >= lo && x <= hi && (x > INT64_MAX / 2 || 2 * x > hi);
        lo = x;
    } else {
        one = (uint64_t)hi - (uint64_t)lo < (uint64_t)step; /* lo <= hi: exact */
    }
    if (one)
        *v = lo;
done:
    free(vars);
    return one;
}

int ht_spec_config_from_assignments(const struct ht_spec *spec, const char *const *assign,
                                    size_t n, int64_t *config, struct ht_error *err)
{
    size_t np;
    unsigned char *given;
    int rc = HT_OK;

    if (!spec || (n && !assign) || !config)
        return ht_error_set(err, HT_EINVAL, "ht_spec_config_from_assignments: %s is NULL",
                            !spec ? "spec" : !config ? "config" : "assign");
    np = spec->space.nparams;
    given = calloc(np ? np : 1, 1);
    if (!given)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *name;
        size_t len;
        int64_t value;
        long k = -1;

        rc = ht_parse_assignment(assign[i], &name, &len, &value, err);
        if (rc != HT_OK)
            goto cleanup;
        for (size_t j = 0; j < np; j++)
            if (strlen(spec->space.params[j].name) == len &&
                !strncmp(spec->space.params[j].name, name, len))
                k = (long)j;
        if (k < 0) {
            rc = ht_error_set(err, HT_EINVAL, "unknown parameter '%.*s'%s", (int)len, name,
                              np ? "" : " (the spec has no parameters)");
            goto cleanup;
        }
        if (given[k]) {
            rc = ht_error_set(err, HT_EINVAL, "parameter '%.*s' is given twice", (int)len,
                              name);
            goto cleanup;
        }
        given[k] = 1;
        config[k] = value;
    }
    for (size_t j = 0; j < np; j++) {
        int64_t v;
        if (given[j])
            continue;
        if (!ht__param_single_value(&spec->space, j, &v)) {
            rc = ht_error_set(err, HT_EINVAL, "missing a value for parameter '%s' (--set %s=...)",
                              spec->space.params[j].name, spec->space.params[j].name);
            goto cleanup;
        }
        config[j] = v;
    }
cleanup:
    free(given);
    return rc;
}

int ht_spec_check_kernel_args(const struct ht_spec *spec, unsigned kernel_num_args,
                              struct ht_error *err)
{
    if (!spec)
        return ht_error_set(err, HT_EINVAL, "ht_spec_check_kernel_args: spec is NULL");
    /* A pipeline's args are those of all its stages: whoever checks them against one kernel
     * is about to run the spec as a single kernel, which would be wrong. */
    if (spec->npipeline > 0) {
        if (err && err->code == 0) {
            snprintf(err->file, sizeof err->file, "%s", spec->path ? spec->path : "");
            snprintf(err->field, sizeof err->field, "pipeline");
            err->line = err->column = 0;
        }
        return ht_error_set(err, HT_ESPEC,
                            "this spec is a pipeline of %zu stage%s, which cannot run as the "
                            "single kernel '%s' (splitting does not support pipelines yet)",
                            spec->npipeline, spec->npipeline == 1 ? "" : "s", spec->kernel_name);
    }
    if (spec->nargs == kernel_num_args)
        return HT_OK;
    if (err && err->code == 0) {
        snprintf(err->file, sizeof err->file, "%s", spec->path ? spec->path : "");
        snprintf(err->field, sizeof err->field, "args");
        err->line = err->column = 0;
    }
    return ht_error_set(err, HT_ESPEC,
                        "the spec lists %zu argument%s but kernel '%s' takes %u", spec->nargs,
                        spec->nargs == 1 ? "" : "s", spec->kernel_name, kernel_num_args);
}
