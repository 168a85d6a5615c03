/* Predictions at sizes never measured (predict.h): a model per configuration fitted to the
 * times stored at a kernel's other sizes, and the least predicted time among the
 * configurations valid at the new sizes. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/predict.h"

static double residual(const double *x, const double *t, size_t n, double a, double b)
{
    double r = 0;

    for (size_t i = 0; i < n; i++) {
        double e = (a + b * x[i] - t[i]) / t[i];
        r += e * e;
    }
    return r;
}

int ht_predict_fit(const double *work, const double *t, size_t n, double *a, double *b)
{
    double s = 0, sx = 0, sxx = 0, st = 0, sxt = 0, det, a0, b0, r0, r1;

    if (n == 0 || !work || !t || !a || !b)
        return HT_EINVAL;
    for (size_t i = 0; i < n; i++) {
        /* Weights 1 / t^2: the error that matters is relative, times span decades. */
        double w;
        if (!(t[i] > 0) || !isfinite(t[i]) || !(work[i] >= 0) || !isfinite(work[i]))
            return HT_EINVAL;
        w = 1.0 / (t[i] * t[i]);
        s += w;
        sx += w * work[i];
        sxx += w * work[i] * work[i];
        st += w * t[i];
        sxt += w * work[i] * t[i];
    }
    det = s * sxx - sx * sx;
    if (det > 1e-12 * s * sxx) {
        a0 = (st * sxx - sx * sxt) / det;
        b0 = (s * sxt - sx * st) / det;
        if (a0 >= 0 && b0 >= 0) {
            *a = a0;
            *b = b0;
            return HT_OK;
        }
    }
    /* The constrained optimum lies on an edge: through the origin, or a constant. */
    b0 = sxx > 0 ? sxt / sxx : 0;
    a0 = st / s;
    r0 = residual(work, t, n, 0, b0);
    r1 = residual(work, t, n, a0, 0);
    *a = r0 <= r1 && b0 > 0 ? 0 : a0;
    *b = r0 <= r1 && b0 > 0 ? b0 : 0;
    return HT_OK;
}

void ht_predict_opts_init(struct ht_predict_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->eq3 = HT_EQ3_PRODUCT;
}

/* One stored time of a configuration at one of the other sizes. */
struct sample {
    char *config;         /* canonical text, owned */
    int64_t values[HT_STORE_MAX_PARAMS];
    size_t problem;       /* index into the other sizes */
    double work, seconds;
};

struct scan {
    const struct ht_spec *spec;
    const struct ht_predict_opts *opts;
    struct ht_store *store;
    int64_t device_id;
    const char *params;   /* the spec's parameter names, "TS,WG" */
    int64_t *sizes;       /* the sizes of the problem being read, in spec order */
    size_t nproblems;     /* other sizes with at least one sample */
    size_t problem;       /* the index the problem being read gets */
    int has_sample;       /* the problem being read gave one */
    struct sample *samples;
    size_t n, cap;
    char (*names)[256];   /* the first HT_PREDICT_MAX_SIZES other sizes' texts */
    char current[HT_STORE_CONFIG_MAX];
    int oom;
};

/* The work of a configuration at sizes: the spec's flops, else the product of the global
 * sizes; -1 when it does not evaluate. */
static double work_at(const struct ht_spec *spec, const int64_t *sizes,
                      const struct ht_device_info *dev, const int64_t *config, int64_t *vars)
{
    struct ht_space_def def = spec->space; /* shallow: only its sizes differ */
    uint64_t global[3], local[3];
    int64_t flops;

    def.size_values = (int64_t *)sizes;
    ht_space_vars(&def, dev, config, vars);
    if (spec->flops && ht_expr_eval(spec->flops, vars, &flops) == HT_OK && flops > 0)
        return (double)flops;
    if (ht_space_ndrange(&def, vars, global, local, NULL) != HT_OK)
        return -1;
    return (double)global[0] * (double)global[1] * (double)global[2];
}

struct eval_scan {
    struct scan *s;
    const struct ht_device_info *dev;
    int64_t *vars;
};

static int eval_cb(const struct ht_stored_eval *ev, void *user)
{
    struct eval_scan *es = user;
    struct scan *s = es->s;
    struct sample *sm;
    double work;

    if (strcmp(ev->status, HT_STORE_OK) ||
        !(s->opts->unverified ? ev->verified != 0 : ev->verified == 1) ||
        !(ev->seconds > 0) || ev->nvalues != s->spec->space.nparams)
        return 0;
    work = work_at(s->spec, s->sizes, es->dev, ev->values, es->vars);
    if (!(work > 0))
        return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        struct sample *grown = realloc(s->samples, cap * sizeof *grown);
        if (!grown)
            return s->oom = 1;
        s->samples = grown;
        s->cap = cap;
    }
    sm = &s->samples[s->n];
    sm->config = strdup(ev->config);
    if (!sm->config)
        return s->oom = 1;
    memcpy(sm->values, ev->values, ev->nvalues * sizeof *ev->values);
    sm->problem = s->problem;
    sm->work = work;
    sm->seconds = ev->seconds;
    s->n++;
    s->has_sample = 1;
    return 0;
}

/* Reads "M=7,N=1024" into sizes (spec order). 0 when every size of the spec is there, with
 * the spec's own values (*same) or not. */
static int parse_sizes(const struct ht_space_def *def, const char *text, int64_t *sizes,
                       int *same)
{
    size_t found = 0;
    const char *p = text;

    *same = 1;
    while (*p) {
        const char *eq = strchr(p, '='), *end;
        long long v;
        char *stop;
        size_t len, i;
        if (!eq)
            return -1;
        len = (size_t)(eq - p);
        errno = 0;
        v = strtoll(eq + 1, &stop, 10);
        if (errno || stop == eq + 1 || (*stop && *stop != ','))
            return -1;
        for (i = 0; i < def->nsizes; i++)
            if (strlen(def->size_names[i]) == len && !strncmp(def->size_names[i], p, len))
                break;
        if (i == def->nsizes)
            return -1;
        sizes[i] = v;
        *same &= v == def->size_values[i];
        found++;
        end = stop;
        p = *end ? end + 1 : end;
    }
    return found == def->nsizes ? 0 : -1;
}

struct problem_scan {
    struct scan *s;
    const struct ht_device_info *dev;
    int64_t *vars;
    struct ht_error *err;
    int rc;
};

static int problem_cb(const struct ht_stored_problem *p, void *user)
{
    struct problem_scan *ps = user;
    struct scan *s = ps->s;
    struct eval_scan es = {s, ps->dev, ps->vars};
    int same;

    if (strcmp(p->params, s->params) || parse_sizes(&s->spec->space, p->sizes, s->sizes, &same) ||
        same)
        return 0;
    s->problem = s->nproblems;
    s->has_sample = 0;
    ps->rc = ht_store_list_evals(s->store, p->id, s->device_id, eval_cb, &es, ps->err);
    if (ps->rc != HT_OK || s->oom)
        return 1;
    if (s->has_sample) {
        if (s->nproblems < HT_PREDICT_MAX_SIZES)
            snprintf(s->names[s->nproblems], 256, "%.255s", p->sizes);
        s->nproblems++;
    }
    return 0;
}

static int by_config(const void *a, const void *b)
{
    const struct sample *x = a, *y = b;
    int c = strcmp(x->config, y->config);
    return c ? c : (x->problem > y->problem) - (x->problem < y->problem);
}

static char *params_text(const struct ht_space_def *def)
{
    size_t len = 1;
    char *text;

    for (size_t i = 0; i < def->nparams; i++)
        len += strlen(def->params[i].name) + 1;
    text = calloc(1, len);
    for (size_t i = 0; text && i < def->nparams; i++) {
        if (i)
            strcat(text, ",");
        strcat(text, def->params[i].name);
    }
    return text;
}

/* "hetune tune SPEC --size A=.. --size B=..": the sizes of the spec with their names. */
static void tune_hint(const struct ht_spec *spec, char *buf, size_t size)
{
    /* A spec from memory (ht_spec_load_buffer) has no path to name. */
    int n = snprintf(buf, size, "hetune tune %s", spec->path ? spec->path : "SPEC");

    for (size_t i = 0; i < spec->space.nsizes && n >= 0 && (size_t)n < size; i++)
        n += snprintf(buf + n, size - (size_t)n, " --size %s=...", spec->space.size_names[i]);
}

int ht_predict_best(const struct ht_spec *spec, struct ht_store *store,
                    const struct ht_device_info *dev, const struct ht_predict_opts *opts,
                    struct ht_predict_result *out, struct ht_error *err)
{
    struct ht_predict_opts defaults;
    struct scan s;
    struct problem_scan ps;
    int64_t kernel_id;
    double *x = NULL, *t = NULL;
    int64_t *vars = NULL;
    int found = 0, rc;

    if (!spec || !store || !dev || !out)
        return ht_error_set(err, HT_EINVAL, "ht_predict_best: %s is NULL",
                            !spec ? "spec" : !store ? "store" : !dev ? "dev" : "out");
    memset(out, 0, sizeof *out);
    memset(&s, 0, sizeof s);
    if (!opts) {
        ht_predict_opts_init(&defaults);
        opts = &defaults;
    }
    if (spec->space.nparams > HT_STORE_MAX_PARAMS)
        return ht_error_set(err, HT_EINVAL, "the spec has more than %d parameters",
                            HT_STORE_MAX_PARAMS);
    s.spec = spec;
    s.opts = opts;
    s.store = store;
    s.names = out->sizes;
    rc = ht_store_kernel_id(store, spec, &kernel_id, err);
    if (rc == HT_OK)
        rc = ht_store_device_id(store, dev, &s.device_id, err);
    if (rc != HT_OK)
        return rc;
    s.params = params_text(&spec->space);
    s.sizes = calloc(spec->space.nsizes + 1, sizeof *s.sizes);
    vars = calloc(spec->space.names.count + 1, sizeof *vars);
    if (!s.params || !s.sizes || !vars) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    ps = (struct problem_scan){&s, dev, vars, err, HT_OK};
    rc = ht_store_list_problems(store, kernel_id, problem_cb, &ps, err);
    if (s.oom) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    if (ps.rc != HT_OK || rc != HT_OK) {
        rc = ps.rc != HT_OK ? ps.rc : rc;
        goto cleanup;
    }
    out->nsizes = s.nproblems;
    if (s.nproblems < 2) {
        char hint[512];
        tune_hint(spec, hint, sizeof hint);
        rc = ht_error_set(err, HT_ENOTFOUND,
                          "tune at least two sizes of '%s' first: %s (the database %s holds "
                          "%zu other size%s of it on device %zu)",
                          spec->name, hint, ht_store_path(store), s.nproblems,
                          s.nproblems == 1 ? "" : "s", dev->index);
        goto cleanup;
    }
    qsort(s.samples, s.n, sizeof *s.samples, by_config);
    x = malloc(s.nproblems * sizeof *x);
    t = malloc(s.nproblems * sizeof *t);
    if (!x || !t) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0, j; i < s.n; i = j) {
        const struct sample *sm = &s.samples[i];
        double a, b, w, p;
        size_t k = 0;
        for (j = i; j < s.n && !strcmp(s.samples[j].config, sm->config); j++, k++) {
            x[k] = s.samples[j].work;
            t[k] = s.samples[j].seconds;
        }
        /* A model needs two sizes; the configuration must be valid at the new ones. */
        if (k < 2 || ht_space_check(&spec->space, dev, sm->values, opts->eq3, NULL) != HT_OK)
            continue;
        w = work_at(spec, spec->space.size_values, dev, sm->values, vars);
        if (!(w > 0) || ht_predict_fit(x, t, k, &a, &b) != HT_OK)
            continue;
        p = a + b * w;
        out->nfitted++;
        if (found && !(p < out->predicted_s))
            continue;
        found = 1;
        memcpy(out->config, sm->values, spec->space.nparams * sizeof *sm->values);
        snprintf(out->config_text, sizeof out->config_text, "%s", sm->config);
        out->predicted_s = p;
        out->a = a;
        out->b = b;
        out->work = w;
    }
    if (!found)
        rc = ht_error_set(err, HT_ENOTFOUND,
                          "no configuration of '%s' measured at two of the %zu other sizes on "
                          "device %zu is valid at these sizes",
                          spec->name, s.nproblems, dev->index);
cleanup:
    for (size_t i = 0; i < s.n; i++)
        free(s.samples[i].config);
    free(s.samples);
    free(s.sizes);
    free((char *)s.params);
    free(vars);
    free(x);
    free(t);
    return rc;
}
