/* A node's share of a split over MPI (src/mpi/split.c, through coexec's door: one call,
 * ht__coexec_share, each run of it then ht__coexec_launch): a range of the split
 * dimension, runs without poisoning, the host arrays moved around a run and where a range
 * of units lies in each buffer. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coexec-internal.h"
#include "exec/engine.h"
#include "util/util.h"

/* --- a node's share of a split over MPI (src/mpi/split.c) --- */

int ht__coexec_set_range(struct ht_coexec *cx, uint64_t offset, uint64_t size,
                         struct ht_error *err)
{
    struct ht_split_sched *s = NULL;
    uint64_t old_lo = cx->range_lo, old_n = cx->range_n;
    int rc;

    if (size == 0 || offset > cx->global || size > cx->global - offset)
        return ht_error_set(err, HT_EINVAL, "range [%" PRIu64 ", %" PRIu64 ") is not inside "
                            "the %" PRIu64 " units", offset, offset + size, cx->global);
    cx->range_lo = offset;
    cx->range_n = size == cx->global ? 0 : size;
    rc = ht__cx_make_sched(cx, &cx->opts.sched, cx->sched_ops, &s, err);
    if (rc != HT_OK) {
        cx->range_lo = old_lo;
        cx->range_n = old_n;
        return rc;
    }
    ht_split_sched_free(cx->sched);
    cx->sched = s;
    return HT_OK;
}

void ht__coexec_set_runs(struct ht_coexec *cx, unsigned warmup, unsigned repeats,
                         unsigned keep_best)
{
    cx->opts.warmup = warmup;
    cx->opts.repeats = repeats;
    cx->opts.keep_best = keep_best;
}

int ht__coexec_share(struct ht_coexec *cx, const struct ht__share_of *of,
                     struct ht__slab *slabs, struct ht_error *err)
{
    const struct ht_spec *spec = cx->spec;
    int rc;

    if (of->size) {
        rc = ht__coexec_set_range(cx, of->offset, of->size, err);
        if (rc != HT_OK)
            return rc;
    }
    if (!cx->share_host) {
        cx->share_host = calloc(spec->nargs ? spec->nargs : 1, sizeof *cx->share_host);
        if (!cx->share_host)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    cx->share = *of;
    cx->share_runs = 0;
    ht__coexec_set_runs(cx, 0, 1, 1);
    if (of->poison)
        ht__coexec_poison_host(cx, 1, 1);
    for (size_t i = 0; i < spec->nargs; i++) {
        memset(&slabs[2 * i], 0, 2 * sizeof *slabs);
        if (!spec->args[i].is_buffer)
            continue;
        ht__coexec_slab(cx, i, 0, of->offset, of->offset + of->size, &slabs[2 * i]);
        ht__coexec_slab(cx, i, 1, of->own_offset, of->own_offset + of->own_size,
                        &slabs[2 * i + 1]);
    }
    /* The host arrays the launches of a node run on, when they are not the caller's. */
    for (size_t i = 0; of->bind_own && i < spec->nargs; i++) {
        const struct ht_arg *a = &spec->args[i];
        if (!a->is_buffer || a->access == HT_ACCESS_TEMP)
            continue;
        rc = ht__coexec_bind(cx, i, ht__coexec_host(cx, i, a->access == HT_ACCESS_WRITE),
                             (size_t)(slabs[2 * i].len * slabs[2 * i].outer *
                                      slabs[2 * i].inner), err);
        if (rc != HT_OK)
            return rc;
    }
    return HT_OK;
}

/* Hands io the host arrays of the buffers moved in one direction (output 0: those the
 * run reads; 1: those it writes). */
static void share_move(struct ht_coexec *cx, const struct ht__share_io *io, int output)
{
    const struct ht_spec *spec = cx->spec;

    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *a = &spec->args[i];
        int moved = a->is_buffer && a->access != HT_ACCESS_TEMP &&
                    a->access != (output ? HT_ACCESS_READ : HT_ACCESS_WRITE);
        cx->share_host[i] = moved ? ht__coexec_host(cx, i, output) : NULL;
    }
    io->move(io->user, output, cx->share_host);
}

int ht__cx_share_run(struct ht_coexec *cx, struct ht_coexec_result *res,
                     struct ht_error *err)
{
    const struct ht__share_of *of = &cx->share;
    int rc = HT_OK;

    share_move(cx, &of->io, 0);
    if (!of->size) {
        if (of->measured)
            ht__coexec_poison_host(cx, 0, 1); /* no slice: nothing of its own counts */
    } else {
        ht_coexec_result_destroy(res);
        rc = !of->measured       ? ht__cx_launch_bound(cx, res, NULL, err)
             : cx->share_runs    ? ht__coexec_run_once(cx, res, err)
                                 : ht__coexec_run(cx, res, err);
    }
    cx->share_runs++;
    share_move(cx, &of->io, 1);
    return rc;
}

void *ht__coexec_host(struct ht_coexec *cx, size_t arg, int output)
{
    if (arg >= cx->spec->nargs || !cx->spec->args[arg].is_buffer)
        return NULL;
    return output ? cx->outputs[arg].data : cx->inputs[arg].data;
}

int ht__coexec_shape(const struct ht_coexec *cx, size_t arg, unsigned *naxes,
                     uint64_t dims[3])
{
    const struct ht__hostbuf *b;

    if (arg >= cx->spec->nargs || !cx->spec->args[arg].is_buffer || !cx->n)
        return HT_EINVAL;
    b = &cx->devs[0].in.shape[arg];
    *naxes = b->naxes;
    memcpy(dims, b->dims, 3 * sizeof *dims);
    return HT_OK;
}

void ht__coexec_poison_host(struct ht_coexec *cx, int inputs, int outputs)
{
    const struct ht_spec *spec = cx->spec;

    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *arg = &spec->args[i];

        if (!arg->is_buffer || arg->access == HT_ACCESS_TEMP)
            continue;
        if (inputs && arg->access != HT_ACCESS_WRITE && cx->inputs[i].data)
            ht__poison_fill(arg->type, cx->inputs[i].data, cx->inputs[i].count);
        if (outputs && arg->access != HT_ACCESS_READ && cx->outputs[i].data)
            ht__poison_fill(arg->type, cx->outputs[i].data, cx->outputs[i].count);
    }
}

int ht__coexec_slab(const struct ht_coexec *cx, size_t i, int output, uint64_t ulo,
                    uint64_t uhi, struct ht__slab *s)
{
    const struct ht_spec *spec = cx->spec;
    const struct cxdev *d0 = &cx->devs[0];
    const struct ht__hostbuf *b;
    unsigned nsplit = 0;
    struct ht__box r;

    memset(s, 0, sizeof *s);
    if (i >= spec->nargs || !spec->args[i].is_buffer || uhi > cx->global || ulo > uhi)
        return HT_EINVAL;
    b = &d0->in.shape[i];
    s->whole = 1;
    s->bytes = b->count * ht_type_size(spec->args[i].type);
    for (unsigned a = 0; a < b->naxes; a++)
        if (d0->maps[i].split_axis[a]) {
            nsplit++;
            s->axis = a;
        }
    s->len = b->dims[s->axis];
    s->outer = 1;
    s->inner = ht_type_size(spec->args[i].type);
    for (unsigned a = 0; a < b->naxes; a++) {
        if (a < s->axis)
            s->outer *= b->dims[a];
        else if (a > s->axis)
            s->inner *= b->dims[a];
    }
    s->hi = s->len;
    if (nsplit != 1)
        return HT_OK;
    if (output) {
        if (d0->maps[i].out != OUT_OWNED)
            return HT_OK;
        s->whole = 0;
        s->lo = s->hi = 0;
        if (uhi > ulo) {
            ht__cx_slice_ranges(d0, i, cx->global, ulo, uhi, 1, &r);
            s->lo = r.lo[s->axis];
            s->hi = r.hi[s->axis];
        }
        return HT_OK;
    }
    for (size_t j = 0; j < cx->n; j++)
        if (cx->devs[j].maps[i].in != IN_SLICED)
            return HT_OK;
    s->whole = 0;
    s->lo = s->hi = 0;
    /* What any device of the node may read for a chunk inside the range: each device's
     * work-items covering it (whole groups, moved back as a residue is), plus the halo. */
    for (size_t j = 0; j < cx->n && uhi > ulo; j++) {
        const struct cxdev *d = &cx->devs[j];
        struct ht_split_chunk c = {ulo, uhi - ulo, ulo, uhi - ulo};
        uint64_t wlo, wn;
        ht__cx_chunk_items(d, &c, &wlo, &wn);
        ht__cx_slice_ranges(d, i, d->g, wlo, wlo + wn, 0, &r);
        if (j == 0 || r.lo[s->axis] < s->lo)
            s->lo = r.lo[s->axis];
        if (j == 0 || r.hi[s->axis] > s->hi)
            s->hi = r.hi[s->axis];
    }
    return HT_OK;
}
