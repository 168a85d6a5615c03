/* The design space of a spec on one device as `hetune space` finds it (workflow.h): the
 * sizes from a backend, the valid configurations collected from another backend (a native
 * walk is streamed when printed, present.h), the two backends compared; and the results
 * database's problem and space rows. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hetune/workflow.h"
#include "workflow-internal.h"

int ht_workflow_open(const char *db, const struct ht_store_opts *so, volatile sig_atomic_t *stop,
                     const struct ht_spec *spec, struct ht_store **store, int64_t *problem_id,
                     struct ht_error *err)
{
    struct ht_store_opts o;
    int64_t kernel_id = 0;
    int rc;

    if (store)
        *store = NULL;
    if (!spec || !store || !problem_id)
        return ht_error_set(err, HT_EINVAL, "ht_workflow_open: %s is NULL",
                            !spec ? "spec" : !store ? "store" : "problem_id");
    /* The one rule of every workflow and of the runtime (workflow.h): the caller's options
     * or the defaults, with stop unless they have a stop of their own. */
    if (so)
        o = *so;
    else
        ht_store_opts_init(&o);
    if (!o.stop)
        o.stop = stop;
    rc = ht_store_open_opts(db ? db : HT_STORE_DEFAULT_PATH, &o, store, err);

    if (rc == HT_OK)
        rc = ht_store_kernel_id(*store, spec, &kernel_id, err);
    if (rc == HT_OK)
        rc = ht_store_problem_id(*store, kernel_id, spec, problem_id, err);
    if (rc != HT_OK) {
        ht_store_close(*store);
        *store = NULL;
    }
    return rc;
}

int ht_workflow_store_space(struct ht_store *store, int64_t problem_id,
                            const struct ht_device_info *dev, enum ht_eq3 eq3,
                            const struct ht_space_counts *counts, int64_t *device_id,
                            struct ht_error *err)
{
    struct ht_stored_space sp;
    int rc;

    if (!store || !dev || !counts)
        return ht_error_set(err, HT_EINVAL, "ht_workflow_store_space: %s is NULL",
                            !store ? "store" : !dev ? "dev" : "counts");
    ht_stored_space_init(&sp);
    sp.problem_id = problem_id;
    sp.eq3 = eq3;
    ht_stored_space_from_counts(&sp, counts);
    rc = ht_store_device_id(store, dev, &sp.device_id, err);
    if (rc == HT_OK && device_id)
        *device_id = sp.device_id;
    return rc == HT_OK ? ht_store_put_space(store, &sp, err) : rc;
}

int ht_workflow_bandwidth(struct ht_store *store, const struct ht_device_info *dev,
                          const struct ht_exec_opts *eo, uint64_t bytes, struct ht_load *load,
                          struct ht_bandwidth *bw, struct ht_error *err)
{
    struct ht_device_locks locks;
    struct ht_device_wait wait = { eo ? eo->stop : NULL, NULL, NULL };
    int64_t id;
    int rc;

    if (!store || !dev || !bw)
        return ht_error_set(err, HT_EINVAL, "ht_workflow_bandwidth: %s is NULL",
                            !store ? "store" : !dev ? "dev" : "bw");
    /* Measured as a tune measures: no other process on the device meanwhile. */
    rc = ht_device_locks_take(&dev, 1, &wait, &locks, load, err);
    if (rc != HT_OK)
        return rc;
    rc = ht_bandwidth_measure(dev, eo, bytes, 0, bw, err);
    ht_device_locks_release(&locks, load);

    if (rc == HT_OK)
        rc = ht_store_device_id(store, dev, &id, err);
    return rc == HT_OK ? ht_store_put_bandwidth(store, id, bw, err) : rc;
}

int ht_workflow_host_memory(struct ht_store *store, const struct ht_device_info *const *copying,
                            size_t n, uint64_t bytes, struct ht_host_memory *hm,
                            struct ht_error *err)
{
    int rc;

    if (!store || (n && !copying) || !hm)
        return ht_error_set(err, HT_EINVAL, "ht_workflow_host_memory: %s is NULL",
                            !store ? "store" : !hm ? "hm" : "copying");
    rc = ht_host_memory_measure(0, bytes, 0, hm, err);
    if (rc == HT_OK && n)
        rc = ht_host_memory_measure_shared(copying, n, bytes, 0, hm, err);
    return rc == HT_OK ? ht_store_put_host_memory(store, hm, err) : rc;
}

/* A growing array of configurations of nparams values each. */
struct configs {
    size_t n, cap, nparams;
    int64_t *v;
};

static int add_config(const int64_t *config, void *user)
{
    struct configs *c = user;
    size_t np = c->nparams ? c->nparams : 1;

    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        int64_t *v = realloc(c->v, cap * np * sizeof *v);
        if (!v)
            return 2; /* stops the walk; reported as out of memory */
        c->v = v;
        c->cap = cap;
    }
    memcpy(c->v + c->n * np, config, c->nparams * sizeof *config);
    c->n++;
    return 0;
}

static size_t sort_nparams;

static int cmp_config(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    for (size_t i = 0; i < sort_nparams; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* Runs one backend on s; configurations are collected when want, sorted when sorted. */
static int solve(const struct ht_space_backend_ops *ops, const struct ht_space *s, int want,
                 int sorted, struct ht_space_counts *counts, struct configs *out,
                 struct ht_error *err)
{
    int rc = ops->solve(s, counts, want ? add_config : NULL, out, err);
    if (rc > 0)
        return ht_error_set(err, HT_ENOMEM, "out of memory collecting the configurations");
    if (rc == 0 && sorted && out->nparams) {
        sort_nparams = out->nparams;
        qsort(out->v, out->n, out->nparams * sizeof *out->v, cmp_config);
    }
    return rc;
}

/* The configurations of a that b lacks (both sorted) into *only (n of them). */
static int missing(const struct configs *a, const struct configs *b, int64_t **only,
                   size_t *n, struct ht_error *err)
{
    size_t i = 0, j = 0, np = a->nparams;

    *n = 0;
    *only = malloc((a->n ? a->n : 1) * (np ? np : 1) * sizeof **only);
    if (!*only)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    sort_nparams = np;
    while (i < a->n) {
        int c = j < b->n ? cmp_config(a->v + i * np, b->v + j * np) : -1;
        if (c > 0) {
            j++;
            continue;
        }
        if (c < 0)
            memcpy(*only + (*n)++ * np, a->v + i * np, np * sizeof **only);
        else
            j++;
        i++;
    }
    return HT_OK;
}

int ht_workflow_space_solve(const struct ht_spec *spec, const struct ht_device_info *dev,
                            enum ht_eq3 eq3, const char *solver, int list,
                            struct ht_workflow_space *out, struct ht_error *err)
{
    struct ht_space *s = NULL;
    struct ht_space_counts mc;
    struct configs cfg = {0, 0, 0, NULL}, mcfg = {0, 0, 0, NULL};
    const struct ht_space_backend_ops *ops;
    int both, rc;

    /* Emptied first: the caller destroys it whatever is returned. */
    if (out)
        memset(out, 0, sizeof *out);
    if (!spec || !dev || !solver || !out)
        return ht_error_set(err, HT_EINVAL, "ht_workflow_space_solve: %s is NULL",
                            !spec ? "spec" : !dev ? "dev" : !solver ? "solver" : "out");
    cfg.nparams = mcfg.nparams = spec->space.nparams;
    both = !strcmp(solver, "both");
    ops = ht_space_backend_find(both ? "native" : solver);
    out->dev = dev;
    out->mzn_seconds = -1;
    out->nparams = spec->space.nparams;
    if (!ops)
        return ht_error_set(err, HT_EINVAL, "unknown solver '%s'", solver);
    rc = ht_space_create(&spec->space, dev, eq3, &s, err);
    /* A native listing is streamed from the space when printed; another solver's, or
     * both compared, are collected. */
    out->collected = (list && ops && strcmp(ops->name, "native")) || both;
    if (rc == HT_OK)
        rc = solve(ops, s, out->collected, both, &out->counts, &cfg, err);
    if (rc == HT_OK && both) {
        rc = solve(ht_space_backend_find("minizinc"), s, 1, 1, &mc, &mcfg, err);
        out->mzn_seconds = mc.seconds;
        out->mzn_platform = mc.platform;
        out->mzn_nconfigs = mcfg.n;
    }
    out->configs = cfg.v;
    out->nconfigs = cfg.n;
    if (rc != HT_OK && !err->file[0])
        snprintf(err->file, sizeof err->file, "%s", spec->path ? spec->path : "");
    if (rc == HT_OK && both &&
        (mcfg.n != cfg.n || mc.platform != out->counts.platform ||
         (mcfg.n && memcmp(mcfg.v, cfg.v, mcfg.n * mcfg.nparams * sizeof *mcfg.v) != 0))) {
        out->disagree = 1;
        rc = missing(&cfg, &mcfg, &out->only_native, &out->nonly_native, err);
        if (rc == HT_OK)
            rc = missing(&mcfg, &cfg, &out->only_minizinc, &out->nonly_minizinc, err);
    }
    free(mcfg.v);
    out->space = s;
    return rc;
}

void ht_workflow_space_destroy(struct ht_workflow_space *r)
{
    if (!r)
        return;
    ht_space_free(r->space);
    free(r->configs);
    free(r->only_native);
    free(r->only_minizinc);
    memset(r, 0, sizeof *r);
}

/* A member of o as an unsigned integer (0 when absent); 1 and sets *bad when it is not
 * a non-negative integer. */
static uint64_t member_u64(json_t *o, const char *key, int *bad)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        *bad = 1;
        return 1;
    }
    return (uint64_t)json_integer_value(v);
}

static void member_str(json_t *o, const char *key, char *buf, size_t size)
{
    const char *s = json_string_value(json_object_get(o, key));
    snprintf(buf, size, "%s", s ? s : "");
}

int ht_workflow_devices_load(const char *path, struct ht_platform **out, struct ht_error *err)
{
    json_error_t je;
    json_t *root, *list;
    struct ht_platform *p = NULL;
    int bad = 0;

    if (out)
        *out = NULL;
    if (!path || !out)
        return ht_error_set(err, HT_EINVAL, "ht_workflow_devices_load: %s is NULL",
                            !path ? "path" : "out");
    root = json_load_file(path, 0, &je);
    if (!root)
        return ht_error_set(err, HT_EPARSE, "%s:%d:%d: %s", path, je.line, je.column,
                            je.text);
    list = json_object_get(root, "devices");
    if (!json_is_array(list) || json_array_size(list) == 0) {
        json_decref(root);
        return ht_error_set(err, HT_EINVAL, "%s: no \"devices\" array (write one with "
                            "'hetune devices --json')", path);
    }
    p = calloc(1, sizeof *p);
    if (p)
        p->devices = calloc(json_array_size(list), sizeof *p->devices);
    if (!p || !p->devices) {
        ht_platform_free(p);
        json_decref(root);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < json_array_size(list); k++) {
        json_t *o = json_array_get(list, k), *items = json_object_get(o, "max_work_item_sizes");
        struct ht_device_info *d = &p->devices[k];
        d->index = k;
        member_str(o, "platform", d->platform, sizeof d->platform);
        member_str(o, "name", d->name, sizeof d->name);
        member_str(o, "type", d->type, sizeof d->type);
        member_str(o, "version", d->version, sizeof d->version);
        member_str(o, "driver_version", d->driver_version, sizeof d->driver_version);
        d->is_cpu = json_is_true(json_object_get(o, "is_cpu"));
        d->is_gpu = json_is_true(json_object_get(o, "is_gpu"));
        d->compute_units = (uint32_t)member_u64(o, "compute_units", &bad);
        d->max_work_group_size = member_u64(o, "max_work_group_size", &bad);
        d->max_work_item_dims = (uint32_t)member_u64(o, "max_work_item_dims", &bad);
        d->local_mem_size = member_u64(o, "local_mem_size", &bad);
        d->global_mem_size = member_u64(o, "global_mem_size", &bad);
        d->max_mem_alloc_size = member_u64(o, "max_mem_alloc_size", &bad);
        for (unsigned i = 0; i < 3; i++) {
            json_t *v = json_array_get(items, i);
            d->max_work_item_sizes[i] = json_is_integer(v) && json_integer_value(v) > 0
                                            ? (uint64_t)json_integer_value(v)
                                            : 1;
        }
        if (bad || !json_is_object(o) || !d->max_work_group_size || !d->compute_units) {
            ht_platform_free(p);
            json_decref(root);
            return ht_error_set(err, HT_EINVAL, "%s: devices[%zu] lacks the limits 'hetune "
                                "devices --json' writes", path, k);
        }
        p->count++;
    }
    json_decref(root);
    *out = p;
    return HT_OK;
}
