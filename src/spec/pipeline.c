/* Pipelines (docs/spec.md, "Pipelines"): which stages a configuration launches, their
 * NDRanges, and the platform rules each one must obey. Pure: no OpenCL here, so that the
 * rules can be checked before anything is built. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/spec.h"

int ht_spec_check_stage_args(const struct ht_spec *spec, size_t stage, unsigned kernel_num_args,
                             struct ht_error *err)
{
    const struct ht_stage *st;

    if (!spec)
        return ht_error_set(err, HT_EINVAL, "ht_spec_check_stage_args: spec is NULL");
    if (stage >= spec->npipeline)
        return ht_error_set(err, HT_EINVAL, "no stage %zu in the pipeline", stage);
    st = &spec->pipeline[stage];
    if (st->nargs == kernel_num_args)
        return HT_OK;
    if (err && err->code == 0) {
        snprintf(err->file, sizeof err->file, "%s", spec->path ? spec->path : "");
        snprintf(err->field, sizeof err->field, "pipeline[%zu].args", stage);
        err->line = err->column = 0;
    }
    return ht_error_set(err, HT_ESPEC,
                        "stage %zu lists %zu argument%s but kernel '%s' takes %u", stage,
                        st->nargs, st->nargs == 1 ? "" : "s", st->kernel, kernel_num_args);
}

/* Fills err (when it holds nothing yet) with field and a message: a configuration refused. */
static int refuse(struct ht_error *err, int code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(struct ht_error *err, int code, const char *field, const char *fmt, ...)
{
    va_list ap;

    if (!err || err->code)
        return code;
    err->code = code;
    err->line = err->column = 0;
    snprintf(err->field, sizeof err->field, "%s", field);
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
    return code;
}

int ht_spec_active_stages(const struct ht_spec *spec, const int64_t *vars, size_t *active,
                          size_t *nactive, struct ht_error *err)
{
    char field[64];

    if (!spec || !vars || !active || !nactive)
        return ht_error_set(err, HT_EINVAL, "ht_spec_active_stages: %s is NULL",
                            !spec ? "spec" : !vars ? "vars" : !active ? "active" : "nactive");
    *nactive = 0;
    for (size_t i = 0; i < spec->npipeline && i < HT_MAX_STAGES; i++) {
        const struct ht_stage *st = &spec->pipeline[i];
        int64_t v = 1;
        int rc;

        if (st->when && (rc = ht_expr_eval(st->when, vars, &v)) != HT_OK) {
            snprintf(field, sizeof field, "pipeline[%zu].when", i);
            return refuse(err, HT_ECONSTRAINT, field, "'%s' of stage '%s' cannot be evaluated: %s",
                          ht_expr_source(st->when), st->kernel, ht_strerror(rc));
        }
        if (v != 0)
            active[(*nactive)++] = i;
    }
    if (spec->npipeline > 0 && *nactive == 0)
        return refuse(err, HT_ECONSTRAINT, "pipeline",
                      "no stage of the pipeline runs for this configuration (every 'when' is 0)");
    return HT_OK;
}

/* One extent of a stage's NDRange: evaluated and positive. */
static int extent(const struct ht_expr *e, const int64_t *vars, size_t stage, const char *what,
                  unsigned d, uint64_t *out, struct ht_error *err)
{
    char field[96];
    int64_t v;
    int rc = ht_expr_eval(e, vars, &v);

    snprintf(field, sizeof field, "pipeline[%zu].ndrange.%s[%u]", stage, what, d);
    if (rc != HT_OK)
        return refuse(err, HT_EINVAL, field, "'%s' cannot be evaluated: %s", ht_expr_source(e),
                      ht_strerror(rc));
    if (v <= 0)
        return refuse(err, HT_EINVAL, field, "'%s' is %" PRId64 ", but a size must be positive",
                      ht_expr_source(e), v);
    *out = (uint64_t)v;
    return HT_OK;
}

int ht_spec_stage_ndrange(const struct ht_spec *spec, size_t stage, const int64_t *vars,
                          uint64_t global[3], uint64_t local[3], struct ht_error *err)
{
    const struct ht_stage *st;
    int open, rc;

    if (!spec || !vars || !global || !local)
        return ht_error_set(err, HT_EINVAL, "ht_spec_stage_ndrange: %s is NULL",
                            !spec ? "spec" : !vars ? "vars" : !global ? "global" : "local");
    if (stage >= spec->npipeline)
        return ht_error_set(err, HT_EINVAL, "no stage %zu in the pipeline", stage);
    st = &spec->pipeline[stage];
    open = st->local[0] == NULL;
    for (unsigned d = 0; d < 3; d++) {
        global[d] = 1;
        local[d] = open ? 0 : 1;
    }
    for (unsigned d = 0; d < st->ndims && d < 3; d++)
        if ((rc = extent(st->global[d], vars, stage, "global", d, &global[d], err)) != HT_OK)
            return rc;
    for (unsigned d = 0; !open && d < st->ndims && d < 3; d++)
        if ((rc = extent(st->local[d], vars, stage, "local", d, &local[d], err)) != HT_OK)
            return rc;
    return HT_OK;
}

/* Eq. 1, the per-dimension limits and Eq. 2 for one stage's evaluated NDRange. */
static int check_stage(const struct ht_spec *spec, size_t i, const struct ht_device_info *dev,
                       const int64_t *vars, struct ht_error *err)
{
    const struct ht_stage *st = &spec->pipeline[i];
    uint64_t global[3], local[3], total = 1;
    struct ht_error nd;
    char field[64];

    snprintf(field, sizeof field, "pipeline[%zu]", i);
    ht_error_clear(&nd);
    if (ht_spec_stage_ndrange(spec, i, vars, global, local, &nd) != HT_OK)
        return refuse(err, HT_ECONSTRAINT, field, "stage '%s': %s: %s", st->kernel, nd.field,
                      nd.text);
    if (!st->local[0])
        return HT_OK;
    for (unsigned d = 0; d < st->ndims; d++)
        total = (local[d] != 0 && total > UINT64_MAX / local[d]) ? UINT64_MAX : total * local[d];
    /* Eq. 1: a work-group holds at most max_work_group_size work-items. */
    if (total > dev->max_work_group_size)
        return refuse(err, HT_ECONSTRAINT, field,
                      "Eq. 1 in stage '%s': a work-group of %" PRIu64 " work-items exceeds "
                      "max_work_group_size %" PRIu64, st->kernel, total,
                      dev->max_work_group_size);
    for (unsigned d = 0; d < st->ndims; d++)
        if (local[d] > dev->max_work_item_sizes[d])
            return refuse(err, HT_ECONSTRAINT, field,
                          "work-item limit in stage '%s': local size %" PRIu64 " in dimension "
                          "%u exceeds max_work_item_size_%u %" PRIu64, st->kernel, local[d], d,
                          d, dev->max_work_item_sizes[d]);
    /* Eq. 2: the NDRange is made of whole work-groups. */
    for (unsigned d = 0; d < st->ndims; d++)
        if (global[d] % local[d] != 0)
            return refuse(err, HT_ECONSTRAINT, field,
                          "Eq. 2 in stage '%s': global size %" PRIu64 " is not a multiple of "
                          "local size %" PRIu64 " in dimension %u", st->kernel, global[d],
                          local[d], d);
    return HT_OK;
}

int ht_spec_check_stages(const struct ht_spec *spec, const struct ht_device_info *dev,
                         const int64_t *config, struct ht_error *err)
{
    const struct ht_space_def *def;
    size_t active[HT_MAX_STAGES], nactive = 0;
    int64_t *vars;
    int rc;

    /* A spec without parameters has no values to give: config may be NULL then. */
    if (!spec || !dev || (!config && spec->space.nparams))
        return ht_error_set(err, HT_EINVAL, "ht_spec_check_stages: %s is NULL",
                            !spec ? "spec" : !dev ? "dev" : "config");
    def = &spec->space;
    if (spec->npipeline == 0)
        return HT_OK;
    vars = calloc(def->names.count ? def->names.count : 1, sizeof *vars);
    if (!vars)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    ht_space_vars(def, dev, config, vars);
    rc = ht_spec_active_stages(spec, vars, active, &nactive, err);
    for (size_t k = 0; rc == HT_OK && k < nactive; k++)
        rc = check_stage(spec, active[k], dev, vars, err);
    free(vars);
    return rc;
}
