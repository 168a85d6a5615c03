/* The runtime's info as a JSON document (runtime.h, ht_runtime_info_json), for bindings
 * that cannot mirror struct ht_runtime_info: the Python package's Runtime.info(). Built on
 * the public ht_runtime_info only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hetune/runtime.h"
#include "util/util.h"

/* A JSON string of s ("" for NULL); text that is not UTF-8 (a driver's device name may
 * not be) has its stray bytes as U+FFFD (ht__json_string). NULL when out of memory. */
static json_t *str(const char *s)
{
    return ht__json_string(s ? s : "");
}

/* Seconds as a number, or null for "not measured" (< 0) and for what JSON cannot hold. */
static json_t *seconds(double v)
{
    return v >= 0 && isfinite(v) ? ht__json_real(v) : json_null();
}

/* Sets key of o to v, which it takes; 0, or -1 when v is NULL (out of memory) or jansson
 * cannot. */
static int put(json_t *o, const char *key, json_t *v)
{
    return v ? json_object_set_new(o, key, v) : -1;
}

static json_t *device_json(const struct ht_runtime_device *d)
{
    json_t *o = json_object();

    if (!o)
        return NULL;
    if (put(o, "index", json_integer((json_int_t)d->dev->index)) ||
        put(o, "name", str(d->dev->name)) || put(o, "platform", str(d->dev->platform)) ||
        put(o, "config", str(d->config)) || put(o, "tuned_s", seconds(d->tuned_s)) ||
        put(o, "tuned_now", json_boolean(d->tuned_now)) ||
        put(o, "predicted", json_boolean(d->predicted)) ||
        put(o, "alone_s", seconds(d->alone_s)) || put(o, "used", json_boolean(d->used)) ||
        put(o, "share", ht__json_real(d->share)) || put(o, "kernel_s", seconds(d->kernel_s)) ||
        put(o, "transfer_s", seconds(d->transfer_s))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *skipped_json(const struct ht_runtime_skipped *s)
{
    json_t *o = json_object();

    if (!o)
        return NULL;
    if (put(o, "index", json_integer((json_int_t)s->dev->index)) ||
        put(o, "name", str(s->dev->name)) || put(o, "reason", str(s->reason))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *node_json(const struct ht_runtime_node *n)
{
    json_t *o = json_object(), *devs = json_array();

    if (!o || !devs)
        goto nomem;
    for (size_t d = 0; d < n->ndevices; d++) {
        const struct ht_runtime_node_device *nd = &n->devices[d];
        json_t *x = json_object();
        if (json_array_append_new(devs, x) ||
            put(x, "index", json_integer((json_int_t)nd->dev->index)) ||
            put(x, "name", str(nd->dev->name)) || put(x, "usable", json_boolean(nd->usable)) ||
            put(x, "config", str(nd->config)) || put(x, "tuned_s", seconds(nd->tuned_s)) ||
            put(x, "why", str(nd->why)))
            goto nomem;
    }
    if (put(o, "rank", json_integer(n->rank)) || put(o, "host", str(n->host)) ||
        put(o, "took_part", json_boolean(n->took_part)) || put(o, "why", str(n->why)) ||
        put(o, "alone_s", seconds(n->alone_s)) || put(o, "share", ht__json_real(n->share)) ||
        put(o, "offset", json_integer((json_int_t)n->offset)) ||
        put(o, "size", json_integer((json_int_t)n->size)) ||
        put(o, "own_offset", json_integer((json_int_t)n->own_offset)) ||
        put(o, "own_size", json_integer((json_int_t)n->own_size)) ||
        put(o, "run_s", seconds(n->run_s)) || put(o, "scatter_s", seconds(n->scatter_s)) ||
        put(o, "gather_s", seconds(n->gather_s)))
        goto nomem;
    if (put(o, "devices", devs)) {
        devs = NULL; /* put took it */
        goto nomem;
    }
    return o;
nomem:
    json_decref(devs);
    json_decref(o);
    return NULL;
}

/* Across nodes: info->nodes as {"rank", "size", "took_part", "decision", "dim", "global",
 * "bound_s", "last_scatter_s", "last_gather_s", "last_scattered_bytes",
 * "last_gathered_bytes", "nodes": [...]}. NULL when out of memory. */
static json_t *nodes_json(const struct ht_runtime_nodes *ns)
{
    json_t *o = json_object(), *arr = json_array();

    if (!o || !arr)
        goto nomem;
    for (int r = 0; r < ns->size; r++)
        if (json_array_append_new(arr, node_json(&ns->node[r])))
            goto nomem;
    if (put(o, "rank", json_integer(ns->rank)) || put(o, "size", json_integer(ns->size)) ||
        put(o, "took_part", json_integer((json_int_t)ns->took_part)) ||
        put(o, "decision", str(ns->decision)) || put(o, "dim", json_integer(ns->dim)) ||
        put(o, "global", json_integer((json_int_t)ns->global)) ||
        put(o, "bound_s", seconds(ns->bound_s)) ||
        put(o, "last_scatter_s", seconds(ns->last_scatter_s)) ||
        put(o, "last_gather_s", seconds(ns->last_gather_s)) ||
        put(o, "last_scattered_bytes", json_integer((json_int_t)ns->last_scattered_bytes)) ||
        put(o, "last_gathered_bytes", json_integer((json_int_t)ns->last_gathered_bytes)))
        goto nomem;
    if (put(o, "nodes", arr)) {
        arr = NULL;
        goto nomem;
    }
    return o;
nomem:
    json_decref(arr);
    json_decref(o);
    return NULL;
}

int ht_runtime_info_json(const struct ht_runtime *rt, char **json, struct ht_error *err)
{
    const struct ht_runtime_info *info = ht_runtime_info(rt);
    json_t *root = NULL, *devs = NULL, *skipped = NULL;
    int rc = HT_OK;

    if (json)
        *json = NULL;
    if (!info)
        return ht_error_set(err, HT_EINVAL, "ht_runtime_info_json: %s",
                            rt ? "not an open runtime" : "the runtime is NULL");
    if (!json)
        return ht_error_set(err, HT_EINVAL, "ht_runtime_info_json: json is NULL");
    root = json_object();
    devs = json_array();
    skipped = json_array();
    if (!root || !devs || !skipped)
        goto nomem;
    for (size_t i = 0; i < info->ndevices; i++)
        if (json_array_append_new(devs, device_json(&info->devices[i])))
            goto nomem;
    for (size_t i = 0; i < info->nskipped; i++)
        if (json_array_append_new(skipped, skipped_json(&info->skipped[i])))
            goto nomem;
    if (put(root, "spec", str(info->spec)) || put(root, "split", json_boolean(info->split)) ||
        put(root, "fastest", json_integer((json_int_t)info->fastest)) ||
        put(root, "decision", str(info->decision)) ||
        put(root, "predicted_split_s", seconds(info->predicted_split_s)) ||
        put(root, "predicted_alone_s", seconds(info->predicted_alone_s)) ||
        put(root, "measured_split_s", seconds(info->measured_split_s)) ||
        put(root, "launches", json_integer((json_int_t)info->launches)) ||
        put(root, "failed_launches", json_integer((json_int_t)info->failed_launches)) ||
        put(root, "last_status",
            info->last_status ? str(ht_err_name(info->last_status)) : json_null()) ||
        put(root, "last_error", str(info->last_error)) ||
        put(root, "last_wall_s", seconds(info->last_wall_s)) ||
        put(root, "under_load", json_boolean(ht_load_under(&info->load))) ||
        put(root, "load_other_cores", json_real(ht_load_other_cores(&info->load))) ||
        put(root, "locked", json_boolean(!info->load.unlocked)) ||
        put(root, "written", str(info->written)) ||
        put(root, "written_probed", json_integer((json_int_t)info->written_probed)) ||
        put(root, "written_stored", json_integer((json_int_t)info->written_stored)) ||
        put(root, "rechecks", json_integer((json_int_t)info->rechecks)) ||
        put(root, "switches", json_integer((json_int_t)info->switches)) ||
        put(root, "switch_s", seconds(info->switch_s)))
        goto nomem;
    if (put(root, "devices", devs) || put(root, "skipped", skipped)) {
        devs = skipped = NULL; /* put took them */
        goto nomem;
    }
    devs = skipped = NULL;
    /* Across nodes only: a runtime on one machine's document is as it was. */
    if (info->nodes && put(root, "nodes", nodes_json(info->nodes)))
        goto nomem;
    /* ht__json_dump takes root. */
    rc = ht__json_dump(root, 17, json, err);
    root = NULL;
    goto cleanup;
nomem:
    rc = ht_error_set(err, HT_ENOMEM, "out of memory writing the runtime's info as JSON");
cleanup:
    json_decref(devs);
    json_decref(skipped);
    json_decref(root);
    return rc;
}
