/* The written buffers without "index" of a split (issue 26 item 4): what the results
 * database holds for them, else a probe (coexec.h, ht_split_probe) on a device that works
 * in place, stored for next time. One code path for `hetune split` and run
 * (src/workflow/split.c), the runtime (src/runtime/runtime.c) and each
 * split over MPI (src/mpi/split.c), through coexec's door coexec/coexec.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/expr.h"
#include "hetune/store.h"
#include "coexec-internal.h"
#include "util/util.h"

static const char *dim_name(unsigned d)
{
    static const char *const names[] = {"gx", "gy", "gz"};
    return d < 3 ? names[d] : "?";
}

/* The hash of what the inference for buffer i rests on besides the kernel and the sizes
 * (the problem's identity): its type, access and shape, and the NDRange, as written. */
static void layout_hash(const struct ht_spec *spec, size_t i, unsigned dim, char hex[17])
{
    const struct ht_arg *arg = &spec->args[i];
    char text[1024];
    size_t len = 0;

    len += (size_t)snprintf(text + len, sizeof text - len, "%s %s dim %u shape",
                            ht_type_name(arg->type),
                            arg->access == HT_ACCESS_WRITE ? "write" : "readwrite", dim);
    for (unsigned a = 0; a < arg->naxes && len < sizeof text; a++)
        len += (size_t)snprintf(text + len, sizeof text - len, " %s",
                                ht_expr_source(arg->shape[a]));
    if (len < sizeof text)
        len += (size_t)snprintf(text + len, sizeof text - len, " global");
    for (unsigned d = 0; d < spec->space.ndims && len < sizeof text; d++)
        len += (size_t)snprintf(text + len, sizeof text - len, " %s",
                                ht_expr_source(spec->space.global[d]));
    if (len >= sizeof text)
        len = sizeof text - 1;
    ht_store_kernel_hash(text, len, arg->name, "", hex);
}

static int wants_probe(const struct ht_arg *arg)
{
    return arg->is_buffer && !arg->has_index &&
           (arg->access == HT_ACCESS_WRITE || arg->access == HT_ACCESS_READWRITE);
}

/* Tells on_note what was found for buffer arg: how (probed now, or stored) and the slab. */
static void note(ht_workflow_note_fn on_note, void *user, const char *arg, int stored,
                 const struct ht_split_written *w, unsigned dim, double probe_s)
{
    char text[512];

    if (!on_note)
        return;
    snprintf(text, sizeof text,
             "written buffer '%s' has no index: %s slabs of its axis %u, %llu element%s per "
             "work-item along %s (halos %llu before, %llu past)",
             arg, stored ? "as a probe found before," : "a probe found it written by",
             w->axis, (unsigned long long)w->per_item, w->per_item == 1 ? "" : "s",
             dim_name(dim), (unsigned long long)w->halo_lo, (unsigned long long)w->halo_hi);
    if (!stored)
        snprintf(text + strlen(text), sizeof text - strlen(text),
                 "; stored (the probe took %.2f s)", probe_s);
    on_note(text, user);
}

int ht__written_infer(const struct ht__written_in *in, struct ht__written *out,
                      struct ht_error *err)
{
    const struct ht_spec *spec = in->spec;
    unsigned dim = in->dim;
    struct ht_split_written *w = NULL;
    const struct ht_workflow_device *probe_dev = NULL;
    size_t missing = 0, any = 0;
    double probe_s = 0.0;
    int rc = HT_OK;

    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < spec->nargs; i++)
        any += wants_probe(&spec->args[i]);
    if (!any)
        return HT_OK;
    w = calloc(spec->nargs, sizeof *w);
    if (!w)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < spec->nargs; i++) {
        struct ht_stored_written sw;
        char layout[17];
        if (!wants_probe(&spec->args[i]))
            continue;
        layout_hash(spec, i, dim, layout);
        rc = ht_store_get_written(in->store, in->problem_id, spec->args[i].name, dim, &sw,
                                  err);
        if (rc == HT_OK && !strcmp(sw.layout, layout)) {
            w[i].inferred = 1;
            w[i].axis = sw.axis;
            w[i].per_item = sw.per_item;
            w[i].halo_lo = sw.halo_lo;
            w[i].halo_hi = sw.halo_hi;
            out->stored++;
            note(in->on_note, in->user, spec->args[i].name, 1, &w[i], dim, 0.0);
        } else if (rc == HT_OK || rc == HT_ENOTFOUND) {
            missing++;
        } else {
            goto cleanup;
        }
        rc = HT_OK;
    }
    if (missing) {
        struct ht_split_written *probed = calloc(spec->nargs, sizeof *probed);
        if (!probed) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
        /* The probe needs a device that works on host memory in place (a CPU): the
         * fastest such device by its tuned time, with its chosen configuration (PoCL's
         * one-core basic device took 8.5 s for a 1024 x 1024 matmul's probe where
         * pthread's two cores take about half). */
        for (size_t j = 0; j < in->n; j++)
            if (ht_data_path_resolve(HT_PATH_AUTO, in->devs[j].dev) == HT_PATH_INPLACE &&
                (!probe_dev || in->devs[j].tuned_s < probe_dev->tuned_s))
                probe_dev = &in->devs[j];
        if (!probe_dev) {
            free(probed);
            rc = ht_error_set(err, HT_ESPEC,
                              "written buffers without index are inferred by a probe on a CPU "
                              "device, and none of %s is one (give them an \"index\")",
                              in->devices_are ? in->devices_are : "the split's devices");
            goto cleanup;
        }
        probe_s = ht__now();
        rc = ht_split_probe(spec, probe_dev->dev, probe_dev->config, dim, in->exec, probed,
                            err);
        probe_s = ht__now() - probe_s;
        for (size_t i = 0; rc == HT_OK && i < spec->nargs; i++) {
            struct ht_stored_written sw;
            if (!probed[i].inferred || w[i].inferred)
                continue;
            w[i] = probed[i];
            memset(&sw, 0, sizeof sw);
            sw.problem_id = in->problem_id;
            snprintf(sw.arg, sizeof sw.arg, "%s", spec->args[i].name);
            sw.dim = dim;
            layout_hash(spec, i, dim, sw.layout);
            sw.axis = probed[i].axis;
            sw.per_item = probed[i].per_item;
            sw.halo_lo = probed[i].halo_lo;
            sw.halo_hi = probed[i].halo_hi;
            sw.device_id = probe_dev->device_id;
            snprintf(sw.config, sizeof sw.config, "%s", probe_dev->config_text);
            rc = ht_store_put_written(in->store, &sw, err);
            if (rc == HT_OK) {
                out->probed++;
                note(in->on_note, in->user, spec->args[i].name, 0, &w[i], dim, probe_s);
            }
        }
        free(probed);
    }
cleanup:
    if (rc != HT_OK) {
        free(w);
        memset(out, 0, sizeof *out);
        return rc;
    }
    out->written = w;
    return HT_OK;
}
