/* Inferring what a kernel writes (coexec.h, "inferring what a kernel writes"): a written
 * buffer without "index" is probed, poisoned, over two slices of the NDRange and a whole
 * run, and the slab that explains the elements that changed becomes its split axis. The
 * inference from the masks is pure (ht__split_infer_slab); the probe runs the kernel
 * through a one-device co-execution in place, as a split runs a device's part (slices
 * of whole work-groups, group ids as the whole launch's). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coexec-internal.h"

/* The two poisons: an element the kernel writes with one of them still differs from the
 * other, and a readwrite element the kernel changes by a little (x += 1e-3) changes a small
 * poison (0xA5.. is -2.9e-16 as a float) even where it cannot change a large one (0x5A.. is
 * 1.5e16). */
static const unsigned char poisons[2] = {0x5A, 0xA5};

static const char *dim_name(unsigned d)
{
    static const char *const names[] = {"gx", "gy", "gz"};
    return d < 3 ? names[d] : "?";
}

/* The elements after one index of axis ax (the product of the later axes). */
static uint64_t inner_of(unsigned naxes, const uint64_t *dims, unsigned ax)
{
    uint64_t inner = 1;

    for (unsigned a = ax + 1; a < naxes; a++)
        inner *= dims[a];
    return inner;
}

static uint64_t count_of(unsigned naxes, const uint64_t *dims)
{
    uint64_t n = 1;

    for (unsigned a = 0; a < naxes; a++)
        n *= dims[a];
    return n;
}

/* A slab of a buffer: along axis ax, k elements per work-item, and the halos hlo and hhi
 * that the writes of a range of work-items reach past its own rows. */
struct slab {
    unsigned ax;
    uint64_t k, hlo, hhi;
};

/* Whether run r's writes fit slab s: nothing written outside [a·k − hlo, b·k + hhi), and
 * in its own rows [a·k, b·k) exactly what the whole run writes there. */
static int slab_fits(unsigned naxes, const uint64_t *dims, const struct slab *s,
                     const struct ht__probe_run *r, const uint8_t *whole)
{
    const unsigned ax = s->ax;
    uint64_t n = count_of(naxes, dims), inner = inner_of(naxes, dims, ax);
    uint64_t olo = r->wlo * s->k, ohi = r->whi * s->k;
    uint64_t lo = olo > s->hlo ? olo - s->hlo : 0, hi = ohi + s->hhi;

    for (uint64_t e = 0; e < n; e++) {
        uint64_t c = e / inner % dims[ax];
        int own = c >= olo && c < ohi;
        if (r->written[e] && (c < lo || c >= hi))
            return 0;
        if (own && !r->written[e] != !whole[e])
            return 0;
    }
    return 1;
}

int ht__split_infer_slab(unsigned naxes, const uint64_t *dims, uint64_t global,
                         const struct ht__probe_run runs[2], const uint8_t *whole,
                         const char *name, unsigned dim, struct ht_split_written *out,
                         char *why, size_t why_size)
{
    uint64_t n = count_of(naxes, dims), wrote = 0, total = 0, rows = 0;
    uint64_t best = UINT64_MAX, inner0 = inner_of(naxes, dims, 0), last = UINT64_MAX;
    int found = 0;

    memset(out, 0, sizeof *out);
    for (uint64_t e = 0; e < n; e++) {
        wrote += runs[0].written[e] != 0;
        total += whole[e] != 0;
    }
    for (unsigned ax = 0; wrote && global && ax < naxes; ax++) {
        uint64_t inner = inner_of(naxes, dims, ax), k, hlo = 0, hhi = 0;

        if (dims[ax] % global || dims[ax] < global)
            continue;
        k = dims[ax] / global;
        /* The halos: how far the slices' writes reach past their own rows, the larger of
         * the two slices' (a slice at an end of the axis has its halo clipped). */
        for (int r = 0; r < 2; r++) {
            uint64_t olo = runs[r].wlo * k, ohi = runs[r].whi * k;
            for (uint64_t e = 0; e < n; e++) {
                uint64_t c = e / inner % dims[ax];
                if (!runs[r].written[e])
                    continue;
                if (c < olo && olo - c > hlo)
                    hlo = olo - c;
                if (c >= ohi && c + 1 - ohi > hhi)
                    hhi = c + 1 - ohi;
            }
        }
        /* A halo wider than the slice is no slab: the writes spread over the axis. */
        if (hlo + hhi > (runs[0].whi - runs[0].wlo) * k)
            continue;
        if (!slab_fits(naxes, dims, &(struct slab){ax, k, hlo, hhi}, &runs[0], whole) ||
            !slab_fits(naxes, dims, &(struct slab){ax, k, hlo, hhi}, &runs[1], whole))
            continue;
        if (hlo + hhi < best) {
            best = hlo + hhi;
            out->inferred = 1;
            out->axis = ax;
            out->per_item = k;
            out->halo_lo = hlo;
            out->halo_hi = hhi;
            found = 1;
        }
    }
    if (found)
        return HT_OK;

    /* What the first slice wrote, for the refusal: rows of the first axis (runs of
     * consecutive elements of a one-axis buffer). */
    for (uint64_t e = 0; e < n; e++) {
        uint64_t row = naxes > 1 ? e / inner0 : e;
        if (!runs[0].written[e])
            continue;
        if (naxes > 1 ? row != last : last == UINT64_MAX || row != last + 1)
            rows++;
        last = row;
    }
    if (why && why_size) {
        if (!wrote)
            snprintf(why, why_size,
                     "the probe's slice [%" PRIu64 ", %" PRIu64 ") along %s wrote nothing of "
                     "'%s' (a whole run writes %" PRIu64 " element%s)",
                     runs[0].wlo, runs[0].whi, dim_name(dim), name, total,
                     total == 1 ? "" : "s");
        else if (wrote == 1)
            snprintf(why, why_size,
                     "the probe's slice [%" PRIu64 ", %" PRIu64 ") along %s wrote 1 element "
                     "of '%s' (a whole run writes %" PRIu64 "): no slab of one axis per "
                     "work-item explains it",
                     runs[0].wlo, runs[0].whi, dim_name(dim), name, total);
        else
            snprintf(why, why_size,
                     "the probe's slice [%" PRIu64 ", %" PRIu64 ") along %s wrote %" PRIu64
                     " element%s scattered over %" PRIu64 " %s%s of '%s' (a whole run writes "
                     "%" PRIu64 "): no slab of one axis per work-item explains them",
                     runs[0].wlo, runs[0].whi, dim_name(dim), wrote, wrote == 1 ? "" : "s",
                     rows, naxes > 1 ? "row" : "run", rows == 1 ? "" : "s", name, total);
    }
    return HT_ENOTFOUND;
}

/* Whether buffer argument i is written and has no index: a probe's business. */
static int wants_probe(const struct ht_arg *arg)
{
    return arg->is_buffer && !arg->has_index &&
           (arg->access == HT_ACCESS_WRITE || arg->access == HT_ACCESS_READWRITE);
}

/* One probed run over the work-items [wlo, whi): each probed buffer poisoned with both
 * poisons in turn, masks[i] (one byte per element) marking what differs from its poison
 * in either. */
static int probe_run(struct ht_coexec *cx, const struct ht_spec *spec, uint64_t wlo,
                     uint64_t whi, uint8_t **masks, struct ht_error *err)
{
    int rc = ht__coexec_set_range(cx, wlo, whi - wlo, err);

    for (int p = 0; rc == HT_OK && p < 2; p++) {
        struct ht_coexec_result res;
        memset(&res, 0, sizeof res);
        for (size_t i = 0; i < spec->nargs; i++) {
            unsigned naxes;
            uint64_t dims[3];
            if (!masks[i] || ht__coexec_shape(cx, i, &naxes, dims) != HT_OK)
                continue;
            memset(ht__coexec_host(cx, i, 1), poisons[p],
                   count_of(naxes, dims) * ht_type_size(spec->args[i].type));
        }
        rc = ht__coexec_run_once(cx, &res, err);
        ht_coexec_result_destroy(&res);
        for (size_t i = 0; rc == HT_OK && i < spec->nargs; i++) {
            unsigned naxes;
            uint64_t dims[3], n;
            size_t es = ht_type_size(spec->args[i].type);
            const unsigned char *h;
            if (!masks[i] || ht__coexec_shape(cx, i, &naxes, dims) != HT_OK)
                continue;
            n = count_of(naxes, dims);
            h = ht__coexec_host(cx, i, 1);
            for (uint64_t e = 0; e < n; e++)
                for (size_t b = 0; b < es && !masks[i][e]; b++)
                    masks[i][e] = h[e * es + b] != poisons[p];
        }
    }
    return rc;
}

int ht_split_probe(const struct ht_spec *spec, const struct ht_device_info *dev,
                   const int64_t *config, unsigned dim, const struct ht_exec_opts *exec,
                   struct ht_split_written *written, struct ht_error *err)
{
    struct ht_coexec_opts o;
    struct ht_coexec_device cd;
    struct ht_coexec *cx = NULL;
    const struct ht_split_plan *plan;
    uint8_t **masks[3] = {NULL, NULL, NULL};
    uint64_t g, wg, ng, lo[3], hi[3];
    size_t na, any = 0;
    int rc = HT_OK;

    if (!spec || !dev || !config || !written)
        return ht_error_set(err, HT_EINVAL, "ht_split_probe: %s is NULL",
                            !spec ? "spec" : !dev ? "dev" : !config ? "config" : "written");
    na = spec->nargs ? spec->nargs : 1;
    memset(written, 0, spec->nargs * sizeof *written);
    for (size_t i = 0; i < spec->nargs; i++)
        any += wants_probe(&spec->args[i]);
    if (!any)
        return HT_OK;
    if (ht_data_path_resolve(HT_PATH_AUTO, dev) != HT_PATH_INPLACE)
        return ht_error_set(err, HT_EINVAL,
                            "device %zu (%s) does not work on host memory in place: the probe "
                            "of written buffers without index needs a CPU device",
                            dev->index, dev->name);
    ht__coexec_opts_init(&o);
    o.dim = dim;
    if (exec)
        o.exec = *exec;
    /* In place, the poison written into the host array is what the kernel finds. */
    o.exec.data_path = HT_PATH_INPLACE;
    o.exec.no_verify = 1;
    o.warmup = 0;
    memset(&cd, 0, sizeof cd);
    cd.dev = dev;
    cd.config = config;
    cd.time_s = 1.0;
    rc = ht__coexec_create(spec, &cd, 1, &o, &cx, err);
    if (rc != HT_OK)
        goto cleanup;
    plan = ht__coexec_plan(cx);
    g = plan ? plan->global : 0;
    wg = plan && plan->ndevices ? plan->slices[0].wg : 1;
    ng = wg ? g / wg : 0;
    if (ng < 2) {
        rc = ht_error_set(err, HT_ESPEC,
                          "the probe of written buffers without index needs two work-groups "
                          "along %s: the configuration has %" PRIu64,
                          dim_name(dim), ng);
        goto located;
    }
    /* Two different slices of whole work-groups (group ids as the whole launch's), away
     * from the ends where they can be, of different widths, and the whole. */
    lo[0] = ng >= 4 ? ng / 4 : 0;
    hi[0] = lo[0] + (ng >= 4 ? ng / 4 : 1);
    hi[1] = ng - ng / 8;
    lo[1] = hi[1] - (ng / 3 ? ng / 3 : 1);
    if (lo[1] < hi[0]) {
        lo[1] = hi[0];
        hi[1] = hi[1] > lo[1] ? hi[1] : ng;
    }
    lo[2] = 0;
    hi[2] = ng;
    for (int r = 0; r < 3; r++) {
        lo[r] *= wg;
        hi[r] *= wg;
        masks[r] = calloc(na, sizeof *masks[r]);
        if (!masks[r]) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
        for (size_t i = 0; i < spec->nargs; i++) {
            unsigned naxes;
            uint64_t dims[3];
            if (!wants_probe(&spec->args[i]) || ht__coexec_shape(cx, i, &naxes, dims))
                continue;
            masks[r][i] = calloc(count_of(naxes, dims), 1);
            if (!masks[r][i]) {
                rc = ht_error_set(err, HT_ENOMEM, "out of memory");
                goto cleanup;
            }
        }
        rc = probe_run(cx, spec, lo[r], hi[r], masks[r], err);
        if (rc != HT_OK)
            goto cleanup;
    }
    for (size_t i = 0; i < spec->nargs; i++) {
        struct ht__probe_run runs[2];
        unsigned naxes;
        uint64_t dims[3];
        char why[sizeof err->text];
        if (!masks[2][i] || ht__coexec_shape(cx, i, &naxes, dims))
            continue;
        for (int r = 0; r < 2; r++) {
            runs[r].wlo = lo[r];
            runs[r].whi = hi[r];
            runs[r].written = masks[r][i];
        }
        if (ht__split_infer_slab(naxes, dims, g, runs, masks[2][i], spec->args[i].name, dim,
                                 &written[i], why, sizeof why) != HT_OK) {
            rc = ht_error_set(err, HT_ESPEC,
                              "written buffer '%s' has no index, and %s (give it an "
                              "\"index\")",
                              spec->args[i].name, why);
            if (err && !err->field[0])
                snprintf(err->field, sizeof err->field, "args[%zu].index", i);
            goto located;
        }
    }
located:
    if (rc != HT_OK && err && rc == err->code && !err->file[0] && spec->path)
        snprintf(err->file, sizeof err->file, "%s", spec->path);
cleanup:
    for (int r = 0; r < 3; r++) {
        for (size_t i = 0; masks[r] && i < spec->nargs; i++)
            free(masks[r][i]);
        free(masks[r]);
    }
    ht__coexec_free(cx);
    if (rc != HT_OK)
        memset(written, 0, spec->nargs * sizeof *written);
    return rc;
}
