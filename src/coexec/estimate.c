/* What a co-execution is predicted and planned from: each device's bus model from its
 * run alone and the bytes it moves (the links, the host memory's rates), the estimate of
 * split against alone, the bus plan, and refinement from a measured run. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coexec-internal.h"
#include "exec/engine.h"
#include "util/util.h"

int ht__coexec_refine(struct ht_coexec *cx, const struct ht_coexec_alone *alone,
                      const struct ht_coexec_result *last, enum ht_refine_target target,
                      struct ht_error *err)
{
    const int wall = target == HT_REFINE_WALL;
    const struct ht_split_plan *cur = ht__coexec_plan(cx);
    struct ht_split_sched_opts o;
    struct ht_split_sched *s = NULL;
    double *old = NULL;
    int rc, same = 1;

    if (!cur)
        return ht_error_set(err, HT_EINVAL, "the co-execution has no plan to refine (static "
                                            "needs every device's time)");
    if (!last || last->ndevices != cx->n || last->global != cx->global || !last->devices)
        return ht_error_set(err, HT_EINVAL, "the result to refine from is not a run of this "
                                            "co-execution");
    old = malloc(2 * cx->n * sizeof *old);
    if (!old)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < cx->n; i++) {
        struct cxdev *d = &cx->devs[i];
        const struct ht_coexec_device_result *r = &last->devices[i];
        double a_s = alone ? (wall ? alone[i].wall_s : alone[i].kernel_s) : 0;
        double whole = a_s > 0 ? a_s : d->time_s;
        double k = wall ? r->busy_s : r->kernel_s;
        double f = (double)r->items / (double)cx->global, t, a;

        old[2 * i] = d->time_s;
        old[2 * i + 1] = d->overhead_s;
        /* The line through this slice and the one measured before it in a co-execution
         * (the secant: both under the same sharing of the host), else through this slice
         * and the whole problem alone. */
        if (r->items > 0 && r->items < cx->global &&
            ((d->seen_f > 0 && d->seen_f != f &&
              ht_split_fit_model(d->seen_f, d->seen_k, f, k, whole / 4, &t, &a) == HT_OK) ||
             ht_split_fit_model(1.0, whole, f, k, whole / 4, &t, &a) == HT_OK)) {
            d->time_s = t;
            d->overhead_s = a;
        } else if (r->items >= cx->global && k > 0) {
            d->time_s = k;
        } else if (whole > 0) {
            d->time_s = whole;
        }
        /* The overhead must stay below the time: keep it so (a millionth below). */
        if (!(d->overhead_s < d->time_s))
            d->overhead_s = d->time_s * (1 - 1e-6);
        if (r->items > 0 && k > 0) {
            d->seen_f = f > 1 ? 1 : f;
            d->seen_k = k;
        }
    }
    memset(&o, 0, sizeof o); /* every default (split.h) */
    o.residue = cx->opts.sched.residue;
    rc = ht__cx_make_sched(cx, &o, NULL, &s, err);
    if (rc == HT_OK) {
        const struct ht_split_plan *p = ht_split_sched_plan(s);
        for (size_t i = 0; i < cx->n; i++)
            same &= p->slices[i].offset == cur->slices[i].offset &&
                    p->slices[i].size == cur->slices[i].size &&
                    p->slices[i].own_size == cur->slices[i].own_size;
    }
    if (rc != HT_OK || same) {
        /* Nothing changes: the models stay as they were too. */
        for (size_t i = 0; i < cx->n; i++) {
            cx->devs[i].time_s = old[2 * i];
            cx->devs[i].overhead_s = old[2 * i + 1];
        }
        ht_split_sched_free(s);
        free(old);
        return rc != HT_OK ? rc : HT_DONE;
    }
    free(old);
    ht__cx_set_planned(cx, s);
    return HT_OK;
}

int ht__coexec_set_bandwidth(struct ht_coexec *cx, size_t i, const struct ht_bandwidth *bw,
                             struct ht_error *err)
{
    if (i >= cx->n)
        return ht_error_set(err, HT_EINVAL, "device %zu out of range: %zu devices", i, cx->n);
    memset(&cx->devs[i].bw, 0, sizeof cx->devs[i].bw);
    if (bw)
        cx->devs[i].bw = *bw;
    return HT_OK;
}

int ht__coexec_set_host_memory(struct ht_coexec *cx, const struct ht_host_memory *hm,
                               struct ht_error *err)
{
    if (hm && !(hm->Bps >= 0 && isfinite(hm->Bps) && hm->read_Bps >= 0 &&
                isfinite(hm->read_Bps) && hm->shared_Bps >= 0 && isfinite(hm->shared_Bps)))
        return ht_error_set(err, HT_EINVAL, "host memory rates %g and %g: not rates", hm->Bps,
                            hm->read_Bps);
    for (size_t k = 0; hm && k < HT_HOST_SHARED_MAX; k++)
        if (!(hm->shared_by_Bps[k] >= 0 && isfinite(hm->shared_by_Bps[k])))
            return ht_error_set(err, HT_EINVAL, "shared host memory rate of %zu devices %g: "
                                "not a rate", k + 1, hm->shared_by_Bps[k]);
    memset(&cx->host, 0, sizeof cx->host);
    if (hm)
        cx->host = *hm;
    return HT_OK;
}

/* The bytes that pass through host memory when device j takes share f of the work: what a
 * copying device moves over its link and what a device in place reads and writes there
 * alike, the whole buffers once, the sliced and owned ones by the share; read (inputs,
 * uploads) into *read, written (outputs, downloads) into *written. */
static void host_bytes(const struct cxdev *d, double f, double *read, double *written)
{
    double sin, win, oout, wout;

    if (f <= 0.0)
        return;
    ht__cx_buffer_bytes(d, 1, &sin, &win, &oout, &wout);
    *read += win + f * sin;
    *written += wout + f * oout;
}

/* Seconds host memory needs for read and written bytes: c = a + b's time for three arrays
 * is two arrays read plus one written, so a written byte costs 3/Bps - 2/read_Bps (more
 * than a read one: the CPU reads a line before it writes it). Without a read rate, or where
 * that comes out below a read byte's cost, every byte costs 1/Bps. */
static double host_seconds(const struct ht_host_memory *h, double read, double written)
{
    double r, w;

    if (!(h->Bps > 0))
        return 0.0;
    if (!(h->read_Bps > 0))
        return (read + written) / h->Bps;
    r = 1.0 / h->read_Bps;
    w = 3.0 / h->Bps - 2.0 * r;
    if (w < r)
        return (read + written) / h->Bps;
    return read * r + written * w;
}

/* The split with host memory shared, which takes host_s to move the split's bytes: each
 * part's share-proportional time stretched alike until the longest takes host_s, plus its
 * fixed cost, which moves none of them (its launches, its threads waking, what its host
 * thread did alone beyond the model); the longest part's. The floor alone left that fixed
 * cost out: on the 2 x H200 machine, vecadd 2^26 over the CPU and both GPUs took 0.96-1.20x
 * the floor (0.91-1.13x this) over 28 rounds of five leases, the CPU's part, the longest,
 * paying 0.26-0.43 ms of it (its wall alone less its kernel alone). At least host_s; below
 * the plan's time when the bytes take less than the longest part. */
static double host_shared(const struct ht_split_plan *plan, double host_s)
{
    double longest = 0.0, t = host_s;

    for (size_t j = 0; j < plan->ndevices; j++)
        if (plan->slices[j].size)
            longest = fmax(longest, plan->slices[j].model_s - plan->slices[j].overhead_s);
    if (!(longest > 0.0))
        return host_s;
    for (size_t j = 0; j < plan->ndevices; j++) {
        const struct ht_split_slice *s = &plan->slices[j];
        if (s->size)
            t = fmax(t, s->overhead_s + (s->model_s - s->overhead_s) * host_s / longest);
    }
    return t;
}

int ht__coexec_bus_models(const struct ht_coexec *cx, const struct ht_coexec_alone *alone,
                          struct ht_split_device_in *out, struct ht_error *err)
{
    for (size_t j = 0; j < cx->n; j++) {
        const struct cxdev *d = &cx->devs[j];
        const struct ht_coexec_alone *a = &alone[j];
        struct ht_split_bus b;
        double sin, win, oout, wout, bout, up, down, busy;
        int rc;

        /* Unmeasured (wall 0): the kernel time alone, with the model's transfers. */
        if (!(a->wall_s > 0 && isfinite(a->wall_s)) &&
            !(a->wall_s == 0.0 && a->kernel_s > 0 && isfinite(a->kernel_s))) {
            if (err && !err->code)
                snprintf(err->field, sizeof err->field, "alone[%zu].wall", j);
            return ht_error_set(err, HT_EINVAL, "device %zu has no time alone", j);
        }
        memset(&b, 0, sizeof b);
        b.kernel_s = a->kernel_s > 0 && isfinite(a->kernel_s) ? a->kernel_s : a->wall_s;
        ht__cx_device_bytes(d, &sin, &win, &oout, &wout);
        bout = oout + wout;
        if (d->bw.h2d_Bps > 0 && d->bw.d2h_Bps > 0) {
            up = sin / d->bw.h2d_Bps;
            down = bout / d->bw.d2h_Bps;
            b.fixed_s = win / d->bw.h2d_Bps;
        } else {
            double w = a->write_s > 0 ? a->write_s : 0.0, r = a->read_s > 0 ? a->read_s : 0.0;
            up = sin + win > 0 ? w * sin / (sin + win) : 0.0;
            down = bout > 0 ? r : 0.0;
            b.fixed_s = sin + win > 0 ? w * win / (sin + win) : 0.0;
        }
        if (sin + win + bout <= 0.0)
            up = down = b.fixed_s = 0.0; /* in place: nothing moves */
        b.overlap = d->piece > 0 && d->piece < d->g;
        b.pieces = b.overlap ? (d->g + d->piece - 1) / d->piece : 0;
        /* In pieces on two queues, uploads and downloads go both ways of the link at once
         * (PCIe is duplex; the H100 moved vecadd's 512 MiB up in 10.3 ms and 256 MiB down
         * in 5.4 ms, and took 10.8 ms for both and the kernels): the transfers' pace is
         * the longer direction, or half of what each queue does in a row (an upload, a
         * kernel, a download), whichever is longer. One shot: one after the other. */
        b.xfer_s = up + down;
        if (b.overlap && b.xfer_s > 0.0)
            b.xfer_s = fmax(fmax(up, down), (up + b.kernel_s + down) / 2.0);
        busy = b.fixed_s + (b.overlap ? fmax(b.kernel_s, b.xfer_s) +
                                            fmin(b.kernel_s, b.xfer_s) / (double)b.pieces
                                      : b.kernel_s + b.xfer_s);
        /* The model of the whole problem is the wall time measured alone, so that the
         * plan and the decision compare like with like. What the device spent alone beyond
         * the model (launches, its host thread, an overlap less perfect than the model's)
         * is a fixed cost of any slice (a GPU whose 9 us kernel sits in 0.4 ms of transfers
         * and launches is not predicted at 0.2 ms); a model above the wall (transfers
         * that overlapped better than modelled, a link faster than the one stored) has
         * its share-proportional part scaled down to the wall. */
        if (a->wall_s == 0.0) {
            /* Nothing measured to scale the model to. */
        } else if (busy < a->wall_s) {
            b.fixed_s += a->wall_s - busy;
        } else if (busy > a->wall_s) {
            double f = b.fixed_s < a->wall_s ? (a->wall_s - b.fixed_s) / (busy - b.fixed_s)
                                             : a->wall_s / busy;
            if (b.fixed_s >= a->wall_s)
                b.fixed_s *= f;
            b.kernel_s *= f;
            b.xfer_s *= f;
        }
        rc = ht_split_bus_model(&b, &out[j], err);
        if (rc != HT_OK)
            return rc;
        out[j].wg = d->wg * d->per_item;
    }
    return HT_OK;
}

/* The bus plan's residue rule: the paper's (by work, the default) can hand a CPU hundreds
 * of times slower than a GPU the residue rows (seen on CPU+H100 matmul: 2% of the rows,
 * 5.7 times the GPU alone); the bus plan hands the residue out by groups instead, whose
 * model time is never above the time rule's. Time and groups are kept as asked. */
static enum ht_split_residue bus_residue(enum ht_split_residue asked)
{
    return asked == HT_SPLIT_RESIDUE_WORK ? HT_SPLIT_RESIDUE_GROUPS : asked;
}

int ht__coexec_estimate(const struct ht_coexec *cx, const struct ht_coexec_alone *alone,
                        struct ht_coexec_estimate *out, struct ht_error *err)
{
    const struct ht_split_plan *paper = ht_split_sched_plan(cx->sched);
    struct ht_split_device_in *m = calloc(cx->n, sizeof *m);
    struct ht_split_device_in *k = calloc(cx->n, sizeof *k);
    double *alone_s = calloc(cx->n, sizeof *alone_s);
    struct ht_split_plan_opts po;
    struct ht_split_plan plan;
    struct ht_split_decision dec;
    int rc;

    memset(out, 0, sizeof *out);
    memset(&plan, 0, sizeof plan);
    out->paper_s = -1.0;
    if (!m || !k || !alone_s) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    rc = ht__coexec_bus_models(cx, alone, m, err);
    if (rc != HT_OK)
        goto cleanup;
    for (size_t j = 0; j < cx->n; j++) {
        alone_s[j] = alone[j].wall_s;
        k[j].wg = m[j].wg;
        k[j].time_s = alone[j].kernel_s > 0 ? alone[j].kernel_s : alone[j].wall_s;
    }
    rc = ht_split_bound(m, cx->n, &out->bound_s, NULL, err);
    if (rc == HT_OK)
        rc = ht_split_bound(k, cx->n, &out->kernel_bound_s, NULL, err);
    memset(&po, 0, sizeof po);
    po.residue = bus_residue(cx->opts.sched.residue);
    if (rc == HT_OK)
        rc = ht_split_plan_make(cx->global, m, cx->n, &po, &plan, err);
    if (rc != HT_OK)
        goto cleanup;
    out->split_s = plan.model_time_s;
    /* Host memory serves the CPU's part in place and every GPU's transfers at once: what
     * the split moves through it, and the time that takes. With the rate measured with
     * the CPU's threads and the devices' copies together (shared_Bps) that time is a floor
     * under split_s (vecadd 2^26 on CPU+H100: 805 MB at 115 GB/s, where the busy times
     * alone said 5.3 ms and it took 7.0). The rates the CPU's threads reach alone are below
     * it (88-101 GB/s there): as a floor they ran vecadd's CPU alone, 34% slower than the
     * split, so without shared_Bps the time is only shown. With it the parts' fixed costs
     * go on top (host_shared). */
    {
        double rd = 0.0, wr = 0.0, rate = cx->host.shared_Bps;
        size_t copying = 0;
        for (size_t j = 0; j < cx->n; j++)
            if (plan.slices[j].size) {
                host_bytes(&cx->devs[j], plan.slices[j].slice_factor, &rd, &wr);
                copying += cx->devs[j].path != HT_PATH_INPLACE;
            }
        /* The rate measured with as many devices copying as the split's parts use: on the
         * 2 x H200 machine one of them copying beside the CPU got less of host memory than
         * both (CPU+H200 vecadd 2^26 took 6.5 ms, the rate of both said 5.3). */
        if (copying >= 1 && copying <= HT_HOST_SHARED_MAX &&
            cx->host.shared_by_Bps[copying - 1] > 0)
            rate = cx->host.shared_by_Bps[copying - 1];
        out->host_bytes = rd + wr;
        if (rate > 0) {
            out->host_s = out->host_bytes / rate;
            out->host_floor = 1;
            out->host_split_s = host_shared(&plan, out->host_s);
            out->split_s = fmax(out->split_s, out->host_split_s);
        } else {
            out->host_s = host_seconds(&cx->host, rd, wr);
        }
        if (out->host_s > 0)
            out->host_Bps = out->host_bytes / out->host_s;
    }
    if (paper) {
        /* The paper's slices under the bus models: the slowest device's busy time. */
        out->paper_s = 0.0;
        for (size_t j = 0; j < cx->n; j++)
            if (paper->slices[j].size)
                out->paper_s = fmax(out->paper_s,
                                    m[j].overhead_s + (m[j].time_s - m[j].overhead_s) *
                                                          paper->slices[j].slice_factor);
    }
    rc = ht_split_decide(out->split_s, alone_s, cx->n, cx->opts.margin, &dec, err);
    if (rc != HT_OK)
        goto cleanup;
    out->alone_s = dec.alone_s;
    out->fastest = dec.fastest;
    out->worth_it = dec.split;
    /* Close enough to measure when the plan gives two devices work: the prediction's error
     * is of the margin's size either way. Above alone too: where the host memory's floor
     * is no floor (the H200 machine's 16 cores, where splits of vecadd 2^26 ran up to 21%
     * under it), the runtime's decision predicted 8.52 ms against 8.518 alone, ran the CPU
     * alone at 8.4-8.9 ms, and the split, where the same call measured it, took 6.6-7.1. */
    {
        size_t parts = 0;
        for (size_t j = 0; j < plan.ndevices; j++)
            parts += plan.slices[j].size > 0;
        out->check = !dec.split && parts > 1 &&
                     out->split_s < dec.alone_s * (1 + cx->opts.margin);
    }
    out->keep_s = dec.split ? dec.alone_s : dec.alone_s / (1 + cx->opts.margin);
cleanup:
    ht_split_plan_destroy(&plan);
    free(m);
    free(k);
    free(alone_s);
    return rc;
}

int ht__coexec_plan_bus(struct ht_coexec *cx, const struct ht_coexec_alone *alone,
                        struct ht_error *err)
{
    struct ht_split_device_in *m = calloc(cx->n, sizeof *m);
    struct ht_split_sched *s = NULL;
    double *keep = calloc(2 * cx->n, sizeof *keep);
    struct ht_split_sched_opts o;
    int rc;

    if (!m || !keep) {
        free(m);
        free(keep);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    rc = ht__coexec_bus_models(cx, alone, m, err);
    if (rc == HT_OK) {
        for (size_t j = 0; j < cx->n; j++) {
            keep[2 * j] = cx->devs[j].time_s;
            keep[2 * j + 1] = cx->devs[j].overhead_s;
            cx->devs[j].time_s = m[j].time_s;
            cx->devs[j].overhead_s = m[j].overhead_s;
        }
        memset(&o, 0, sizeof o); /* every default (split.h) */
        o.residue = bus_residue(cx->opts.sched.residue);
        rc = ht__cx_make_sched(cx, &o, NULL, &s, err);
        if (rc == HT_OK) {
            ht__cx_set_planned(cx, s);
        } else {
            for (size_t j = 0; j < cx->n; j++) {
                cx->devs[j].time_s = keep[2 * j];
                cx->devs[j].overhead_s = keep[2 * j + 1];
            }
        }
    }
    free(m);
    free(keep);
    return rc;
}
