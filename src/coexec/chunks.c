/* The chunk engine of a co-execution (coexec-internal.h): one host thread per device asks
 * the scheduler for chunks, sends what each chunk reads, launches it with a global work
 * offset and reads back the elements it owns; the runs (warm-up, poisoning, the timed
 * runs and the figures kept of them). */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coexec-internal.h"
#include "exec/engine.h"
#include "supervise/watch.h"
#include "util/util.h"

/* --- one run on one device (its host thread) --- */

static int push_event(struct cxdev *d, cl_event ev, enum ev_kind kind)
{
    if (d->nevents == d->cap_events) {
        size_t cap = d->cap_events ? 2 * d->cap_events : 16;
        struct cxevent *grown = realloc(d->events, cap * sizeof *grown);
        if (!grown) {
            clWaitForEvents(1, &ev);
            clReleaseEvent(ev);
            return HT_ENOMEM;
        }
        d->events = grown;
        d->cap_events = cap;
    }
    d->events[d->nevents].ev = ev;
    d->events[d->nevents].kind = kind;
    d->nevents++;
    return HT_OK;
}

/* Adds the times of the finished commands to the device's kernel, write and read times and
 * releases them. A kernel that did not complete is HT_ELAUNCH (the first one, in err). */
static int drain_events(struct cxdev *d, struct ht_error *err)
{
    int rc = HT_OK;

    for (size_t i = 0; i < d->nevents; i++) {
        cl_event ev = d->events[i].ev;
        double t = ht__event_seconds(ev, 0.0);
        if (d->events[i].kind == EV_KERNEL) {
            cl_int exec = CL_COMPLETE;
            if (clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec,
                               NULL) != CL_SUCCESS)
                exec = CL_INVALID_EVENT;
            if (exec != CL_COMPLETE && rc == HT_OK)
                rc = ht__cl_fail(err, HT_ELAUNCH, exec < 0 ? exec : CL_INVALID_EVENT,
                                 "kernel execution");
            d->kernel_s += t;
        } else if (d->events[i].kind == EV_WRITE) {
            d->write_s += t;
        } else {
            d->read_s += t;
        }
        clReleaseEvent(ev);
    }
    d->nevents = 0;
    return rc;
}

/* Waits for both of the device's queues, then drains its events and delivers what its
 * staging rings read. */
static int finish_device(struct cxdev *d, struct ht_error *err)
{
    cl_int st = clFinish(d->session->queue);
    int rc, src;

    if (st == CL_SUCCESS && d->q2)
        st = clFinish(d->q2);
    rc = drain_events(d, err);
    src = ht__stage_finish(d->stage, &d->write_s, &d->read_s, err);
    if (rc == HT_OK)
        rc = src;
    if (st != CL_SUCCESS && rc == HT_OK)
        rc = ht__cl_fail(err, HT_ECL, st, "clFinish");
    return rc;
}

/* XF_REGISTER: bytes at off of buffer i between the device buffer and the buffer over the
 * host array, on queue q (non-blocking; the events are kept in d->events). Up, a map for
 * writing that invalidates the region and its unmap make the driver take the host's bytes
 * (and nothing else: a plain map for writing would first bring the buffer's old contents
 * over the caller's new ones), then a copy on the device; down, a copy on the device, then
 * a map for reading of the region alone, which brings the bytes to the host array, and its
 * unmap. */
static int transfer_reg(struct cxdev *d, cl_command_queue q, size_t i, size_t off, size_t size,
                        int to_device, struct ht_error *err)
{
    cl_mem reg = to_device ? d->reg_in[i] : d->reg_out[i], mem = d->in.mem[i];
    cl_event ev[3] = {NULL, NULL, NULL};
    enum ev_kind kind = to_device ? EV_WRITE : EV_READ;
    const char *what = "clEnqueueMapBuffer (register)";
    cl_int st = CL_SUCCESS;
    void *p = NULL;
    int rc = HT_OK;

    if (!to_device) {
        st = clEnqueueCopyBuffer(q, mem, reg, off, off, size, 0, NULL, &ev[0]);
        what = "clEnqueueCopyBuffer (register)";
    }
    if (st == CL_SUCCESS) {
        p = clEnqueueMapBuffer(q, reg, CL_FALSE,
                               to_device ? CL_MAP_WRITE_INVALIDATE_REGION : CL_MAP_READ, off,
                               size, 0, NULL, &ev[1], &st);
        what = "clEnqueueMapBuffer (register)";
    }
    if (st == CL_SUCCESS) {
        st = clEnqueueUnmapMemObject(q, reg, p, 0, NULL, &ev[2]);
        what = "clEnqueueUnmapMemObject (register)";
    }
    if (st == CL_SUCCESS && to_device) {
        st = clEnqueueCopyBuffer(q, reg, mem, off, off, size, 0, NULL, &ev[0]);
        what = "clEnqueueCopyBuffer (register)";
    }
    if (st != CL_SUCCESS)
        rc = ht__cl_fail(err, HT_ECL, st, what);
    for (unsigned k = 0; k < 3; k++)
        if (ev[k] && push_event(d, ev[k], kind) != HT_OK && rc == HT_OK)
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
    clFlush(q);
    return rc;
}

/* A rectangular transfer of the elements of box r of buffer i, between the device buffer
 * and the host buffer of the same layout, on queue q (non-blocking; the event is kept in
 * d->events). */
static int transfer_rect(struct cxdev *d, cl_command_queue q, size_t i, void *host,
                         const struct ht__box *r, int to_device, struct ht_error *err)
{
    const uint64_t *lo = r->lo, *hi = r->hi;
    const struct ht_arg *arg = &d->cx->spec->args[i];
    const struct ht__hostbuf *b = &d->in.shape[i];
    size_t es = ht_type_size(arg->type);
    unsigned na = b->naxes;
    cl_event ev = NULL;
    cl_int st;
    int whole_inner = 1;

    for (unsigned a = 0; a < na; a++)
        if (hi[a] <= lo[a])
            return HT_OK; /* nothing to move */
    for (unsigned a = 1; a < na; a++)
        if (lo[a] != 0 || hi[a] != b->dims[a])
            whole_inner = 0;
    if (whole_inner) {
        /* Rows of the leading axis: one contiguous range. */
        size_t inner = 1, off, size;
        enum xfer how = (enum xfer)(to_device ? d->up[i] : d->down[i]);
        for (unsigned a = 1; a < na; a++)
            inner *= (size_t)b->dims[a];
        off = (size_t)lo[0] * inner * es;
        size = (size_t)(hi[0] - lo[0]) * inner * es;
        if (how == XF_STAGE && d->stage)
            return to_device ? ht__stage_write(d->stage, q, d->in.mem[i], off,
                                               (const char *)host + off, size, err)
                             : ht__stage_read(d->stage, q, d->in.mem[i], off,
                                              (char *)host + off, size, err);
        if (how == XF_REGISTER && (to_device ? d->reg_in[i] : d->reg_out[i]))
            return transfer_reg(d, q, i, off, size, to_device, err);
        st = to_device ? clEnqueueWriteBuffer(q, d->in.mem[i], CL_FALSE, off, size,
                                              (char *)host + off, 0, NULL, &ev)
                       : clEnqueueReadBuffer(q, d->in.mem[i], CL_FALSE, off, size,
                                             (char *)host + off, 0, NULL, &ev);
    } else {
        /* OpenCL's rectangle: x the last axis (in bytes), y the one before, z the first. */
        size_t origin[3] = {0, 0, 0}, region[3] = {1, 1, 1}, row = 0, slice = 0;
        for (unsigned k = 0; k < na; k++) {
            unsigned a = na - 1 - k; /* k = 0 is x */
            origin[k] = (size_t)lo[a];
            region[k] = (size_t)(hi[a] - lo[a]);
        }
        origin[0] *= es;
        region[0] *= es;
        if (na >= 2)
            row = (size_t)b->dims[na - 1] * es;
        if (na == 3)
            slice = (size_t)b->dims[1] * (size_t)b->dims[2] * es;
        st = to_device ? clEnqueueWriteBufferRect(q, d->in.mem[i], CL_FALSE, origin, origin,
                                                  region, row, slice, row, slice, host, 0, NULL,
                                                  &ev)
                       : clEnqueueReadBufferRect(q, d->in.mem[i], CL_FALSE, origin, origin,
                                                 region, row, slice, row, slice, host, 0, NULL,
                                                 &ev);
    }
    if (st != CL_SUCCESS) {
        char what[300];
        snprintf(what, sizeof what, "%s of '%s'",
                 to_device ? (whole_inner ? "clEnqueueWriteBuffer" : "clEnqueueWriteBufferRect")
                           : (whole_inner ? "clEnqueueReadBuffer" : "clEnqueueReadBufferRect"),
                 arg->name);
        return ht__cl_fail(err, HT_ECL, st, what);
    }
    if (push_event(d, ev, to_device ? EV_WRITE : EV_READ) != HT_OK)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    return HT_OK;
}

/* The box of buffer i for the range [wlo, whi) of the g work-items (inputs: the device's
 * own, g = d->g) or units (owned outputs, g = cx->global) along the split dimension: the
 * axes it walks get their slice (owned: without the halo), the others stay whole. */
void ht__cx_slice_ranges(const struct cxdev *d, size_t i, uint64_t g, uint64_t wlo,
                         uint64_t whi, int owned, struct ht__box *out)
{
    uint64_t *lo = out->lo, *hi = out->hi;
    const struct ht__hostbuf *b = &d->in.shape[i];
    const struct bufmap *m = &d->maps[i];

    for (unsigned a = 0; a < 3; a++) {
        lo[a] = 0;
        hi[a] = b->dims[a];
        if (a < b->naxes && m->split_axis[a] &&
            !ht__split_axis_range(b->dims[a], g, m->halo[a], wlo, whi, owned, &lo[a], &hi[a])) {
            lo[a] = 0;
            hi[a] = b->dims[a];
        }
    }
}

/* The work-items device d launches for chunk c (in units): see ht__split_chunk_items. */
void ht__cx_chunk_items(const struct cxdev *d, const struct ht_split_chunk *c, uint64_t *wlo,
                        uint64_t *wn)
{
    uint64_t lo;

    ht__split_chunk_items(c->offset, c->size, d->per_item, d->wg, d->g, wlo, wn);
    /* A kernel that reads its group ids computes what the whole launch's group
     * wlo / wg computes only when its slice starts on a work-group of the whole launch. A
     * chunk of a device whose work-groups are not the other devices' (a dynamic
     * scheduler's, the residue's) may start inside one: start it at that group's first
     * work-item instead, recomputing up to wg - 1 work-items that the chunk does not own,
     * as the residue device does. The end stays within g, a multiple of wg (Eq. 2). */
    if (d->whole_groups && d->wg > 1 && *wlo % d->wg) {
        lo = *wlo / d->wg * d->wg;
        *wn = (*wlo + *wn - lo + d->wg - 1) / d->wg * d->wg;
        *wlo = lo;
    }
}

/* Sends the inputs of `mode` on queue q: whole, or for the work-items [wlo, wlo + wn). */
static int send_inputs(struct cxdev *d, cl_command_queue q, enum in_mode mode, uint64_t wlo,
                       uint64_t wn, struct ht_error *err)
{
    const struct ht_spec *spec = d->cx->spec;

    for (size_t i = 0; i < spec->nargs; i++) {
        struct ht__box r;
        int rc;
        if (d->maps[i].in != mode || !spec->args[i].is_buffer ||
            (d->in.host[i] && !ht__cx_shadowed(d, i)))
            continue;
        if (mode == IN_SLICED)
            ht__cx_slice_ranges(d, i, d->g, wlo, wlo + wn, 0, &r);
        else
            for (unsigned a = 0; a < 3; a++) {
                r.lo[a] = 0;
                r.hi[a] = d->in.shape[i].dims[a];
            }
        if (ht__cx_shadowed(d, i)) {
            /* Before the kernel is enqueued: it reads the shadow in place. */
            ht__cx_copy_rect(d, i, d->shadow[i].data, d->cx->inputs[i].data, &r, &d->write_s);
            continue;
        }
        rc = transfer_rect(d, q, i, d->cx->inputs[i].data, &r, 1, err);
        if (rc != HT_OK)
            return rc;
    }
    return HT_OK;
}

/* Enqueues the reads of the owned units [ulo, uhi) of every buffer read back by owner, on
 * queue q. */
static int read_owned(struct cxdev *d, cl_command_queue q, uint64_t ulo, uint64_t uhi,
                      struct ht_error *err)
{
    const struct ht_spec *spec = d->cx->spec;

    if (uhi <= ulo)
        return HT_OK;
    for (size_t i = 0; i < spec->nargs; i++) {
        struct ht__box r;
        int rc;
        if (d->maps[i].out != OUT_OWNED || d->in.host[i])
            continue;
        ht__cx_slice_ranges(d, i, d->cx->global, ulo, uhi, 1, &r);
        rc = transfer_rect(d, q, i, d->cx->outputs[i].data, &r, 0, err);
        if (rc != HT_OK)
            return rc;
    }
    return HT_OK;
}

static int remember_owned(struct cxdev *d, uint64_t lo, uint64_t hi)
{
    if (d->nowned == d->cap_owned) {
        size_t cap = d->cap_owned ? 2 * d->cap_owned : 8;
        struct owned *grown = realloc(d->owned, cap * sizeof *grown);
        if (!grown)
            return HT_ENOMEM;
        d->owned = grown;
        d->cap_owned = cap;
    }
    d->owned[d->nowned].lo = lo;
    d->owned[d->nowned].hi = hi;
    d->nowned++;
    return HT_OK;
}

/* Runs one chunk and waits for it. A device that works in place only launches it. A
 * copying device moves it in pieces (plan_pieces) that alternate between its two queues:
 * each piece's inputs, kernel and owned outputs go in order on its queue, so one piece's
 * kernel runs while the other queue moves the next piece's data (DESIGN.md, "Moving
 * data"). The owned outputs are read back as the pieces finish. */
static int run_chunk(struct cxdev *d, const struct ht_split_chunk *c, struct ht_error *err)
{
    struct ht_coexec *cx = d->cx;
    unsigned dim = cx->opts.dim;
    size_t offset[3] = {0, 0, 0}, global[3], local[3];
    uint64_t wlo, wn, step, own_lo = c->own_offset, own_hi = c->own_offset + c->own_size;
    unsigned k = 0;
    int rc = HT_OK;

    for (unsigned a = 0; a < 3; a++) {
        global[a] = (size_t)d->in.global[a];
        local[a] = (size_t)d->in.local[a];
    }
    ht__cx_chunk_items(d, c, &wlo, &wn);
    step = d->piece && d->piece < wn ? d->piece : wn;
    for (uint64_t p = wlo; p < wlo + wn; p += step, k++) {
        uint64_t pn = wlo + wn - p < step ? wlo + wn - p : step;
        uint64_t ulo = p * d->per_item, uhi = (p + pn) * d->per_item;
        cl_command_queue q = (k & 1) && d->q2 ? d->q2 : d->session->queue;
        cl_event ev = NULL;
        cl_int st;

        rc = send_inputs(d, q, IN_SLICED, p, pn, err);
        if (rc != HT_OK)
            break;
        offset[dim] = (size_t)p;
        global[dim] = (size_t)pn;
        st = clEnqueueNDRangeKernel(q, d->in.kernel, d->in.ndims, offset, global,
                                    d->in.local[0] ? local : NULL, 0, NULL, &ev);
        if (st != CL_SUCCESS) {
            rc = ht__cl_fail(err, HT_ELAUNCH, st, "clEnqueueNDRangeKernel");
            break;
        }
        if (push_event(d, ev, EV_KERNEL) != HT_OK) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            break;
        }
        rc = read_owned(d, q, ulo > own_lo ? ulo : own_lo, uhi < own_hi ? uhi : own_hi, err);
        if (rc != HT_OK)
            break;
    }
    /* A device in place under a planned scheduler (static: one slice each, planned up
     * front) has nothing more to launch and only a
     * blocking map of its outputs ahead (read_outputs), which waits for the kernel on the
     * in-order queue: one wait less per launch (tens of microseconds on PoCL's pthread
     * device). The others wait here: a scheduler on demand needs the chunk's time. */
    if (rc == HT_OK && d->path == HT_PATH_INPLACE &&
        cx->sched_ops->kind == HT_SPLIT_SCHED_PLANNED)
        return HT_OK;
    {
        int frc = finish_device(d, err);
        if (rc == HT_OK)
            rc = frc;
    }
    return rc;
}

/* What is left after the chunks: the buffers read back whole (one device), and, for a
 * device that works in place, a map of its written buffers, which makes the host see what
 * it wrote. */
static int read_outputs(struct cxdev *d, struct ht_error *err)
{
    const struct ht_spec *spec = d->cx->spec;
    cl_command_queue q = d->session->queue;

    if (!d->nowned)
        return HT_OK;
    for (size_t i = 0; i < spec->nargs; i++) {
        const struct bufmap *m = &d->maps[i];
        size_t bytes = d->in.shape[i].count * ht_type_size(spec->args[i].type);
        struct ht__box r = {{0, 0, 0}, {0, 0, 0}};
        int rc;

        if (m->out == OUT_NONE)
            continue;
        if (d->in.host[i]) {
            double t = 0.0;
            rc = ht__inst_sync(q, d->in.mem[i], bytes, 1, NULL, &t, err);
            d->read_s += t;
            /* On a shadow, the kernels are done: the elements it owns go to the host array,
             * and nothing else. */
            for (size_t k = 0; rc == HT_OK && ht__cx_shadowed(d, i) && k < d->nowned; k++) {
                struct ht__box s;
                if (m->out == OUT_WHOLE) {
                    for (unsigned a = 0; a < 3; a++) {
                        s.lo[a] = 0;
                        s.hi[a] = d->in.shape[i].dims[a];
                    }
                    k = d->nowned;
                } else {
                    ht__cx_slice_ranges(d, i, d->cx->global, d->owned[k].lo, d->owned[k].hi, 1,
                                        &s);
                }
                ht__cx_copy_rect(d, i, d->cx->outputs[i].data, d->shadow[i].data, &s,
                                 &d->read_s);
            }
        } else if (m->out == OUT_WHOLE) {
            for (unsigned a = 0; a < 3; a++)
                r.hi[a] = d->in.shape[i].dims[a];
            rc = transfer_rect(d, q, i, d->cx->outputs[i].data, &r, 0, err);
        } else {
            continue;
        }
        if (rc != HT_OK)
            return rc;
    }
    return finish_device(d, err);
}

static void *device_thread(void *arg)
{
    struct cxdev *d = arg;
    struct ht_coexec *cx = d->cx;
    struct ht_split_chunk c;
    int sent = 0, rc = HT_OK;
    /* Under a supervisor (supervise.h), a crash or a hang from here names this device. */
    struct ht__watch w = ht__watch_begin(d->dev, cx->opts.exec.timeout_s);

    while (ht_split_sched_next(cx->sched, d->index, &c) == HT_OK) {
        double t = ht__now();
        struct ht_split_chunk sc = c; /* the scheduler's chunk, as a report names it */
        c.offset += cx->range_lo;
        c.own_offset += cx->range_lo;
        if (!sent) {
            /* Whole inputs go once, and only to a device that gets work; both queues'
             * pieces need them. */
            rc = send_inputs(d, d->session->queue, IN_WHOLE, 0, 0, &d->err);
            if (rc == HT_OK && (d->nevents || d->stage))
                rc = finish_device(d, &d->err);
            if (rc != HT_OK)
                break;
            sent = 1;
        }
        rc = run_chunk(d, &c, &d->err);
        if (rc == HT_OK && c.offset > 0 && w.inject)
            rc = ht_error_set(&d->err, HT_ELAUNCH, "clFinish: CL_OUT_OF_RESOURCES (injected "
                              "by HETUNE_TEST_SLICE_FAIL)");
        if (rc == HT_OK && remember_owned(d, c.own_offset, c.own_offset + c.own_size) != HT_OK)
            rc = ht_error_set(&d->err, HT_ENOMEM, "out of memory");
        if (rc != HT_OK)
            break;
        d->chunks++;
        d->items += c.size;
        d->owned_items += c.own_size;
        ht_split_sched_report(cx->sched, d->index, &sc, ht__now() - t);
    }
    if (rc == HT_OK)
        rc = read_outputs(d, &d->err);
    if (rc != HT_OK) {
        struct ht_error e;
        clFinish(d->session->queue);
        if (d->q2)
            clFinish(d->q2);
        drain_events(d, &d->err);
        /* Nothing may land in the caller's arrays after the launch returned. */
        ht_error_clear(&e);
        ht__stage_finish(d->stage, NULL, NULL, &e);
    }
    d->busy_s = ht__now() - cx->t0;
    d->rc = rc;
    ht__watch_end(&w);
    return NULL;
}

/* Poisons every buffer on every device and the merged host outputs, so that an element
 * nobody writes, or an input element a chunk reads but was not sent (in this run: a
 * dynamic scheduler's chunks differ between runs), cannot pass verification. A buffer
 * that a device works in place is the host array itself: inputs are left alone, and a
 * readwrite output starts again from the initial data (the kernel changes it in place),
 * where with copying devices only it is poisoned. */
static int poison(struct ht_coexec *cx, struct ht_error *err)
{
    const struct ht_spec *spec = cx->spec;

    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *arg = &spec->args[i];

        if (!arg->is_buffer)
            continue;
        if (arg->access == HT_ACCESS_READWRITE && ht__cx_any_inplace(cx, i))
            memcpy(cx->outputs[i].data, cx->inputs[i].data,
                   cx->outputs[i].count * ht_type_size(arg->type));
        else if (arg->access != HT_ACCESS_READ && arg->access != HT_ACCESS_TEMP)
            ht__poison_fill(arg->type, cx->outputs[i].data, cx->outputs[i].count);
        for (size_t j = 0; j < cx->n; j++) {
            struct cxdev *d = &cx->devs[j];
            int rc;
            /* A shadow holds only what was copied in, as a copied device's buffer. */
            if (ht__cx_shadowed(d, i))
                ht__poison_fill(arg->type, d->shadow[i].data, d->in.shape[i].count);
            if (d->in.host[i])
                continue;
            rc = ht__inst_poison(cx->devs[j].session, &cx->devs[j].in, i, err);
            if (rc != HT_OK)
                return rc;
        }
    }
    for (size_t j = 0; j < cx->n; j++) {
        cl_int st = clFinish(cx->devs[j].session->queue);
        if (st != CL_SUCCESS)
            return ht__cl_fail(err, HT_ECL, st, "clFinish");
    }
    return HT_OK;
}

/* One co-execution: every device's thread, started together. *wall_s is its wall time.
 * The harness poisons first (ht__coexec_run); a launch on bound arrays does not. */
/* A device's worker thread: runs the device's part of each run that raises cx->gen. */
static void *worker(void *arg)
{
    struct cxdev *d = arg;
    struct ht_coexec *cx = d->cx;

    pthread_mutex_lock(&cx->mu);
    for (;;) {
        while (!cx->quit && d->seen_gen == cx->gen)
            pthread_cond_wait(&cx->go, &cx->mu);
        if (cx->quit)
            break;
        d->seen_gen = cx->gen;
        pthread_mutex_unlock(&cx->mu);
        device_thread(d);
        pthread_mutex_lock(&cx->mu);
        cx->ndone++;
        pthread_cond_signal(&cx->done);
    }
    pthread_mutex_unlock(&cx->mu);
    return NULL;
}

/* Starts the worker threads of devices 1..n-1 (once). */
static int start_workers(struct ht_coexec *cx, struct ht_error *err)
{
    if (cx->n < 2 || cx->nworkers == cx->n - 1)
        return HT_OK;
    if (!cx->sync_made) {
        if (pthread_mutex_init(&cx->mu, NULL) != 0)
            return ht_error_set(err, HT_ENOMEM, "cannot make a mutex");
        if (pthread_cond_init(&cx->go, NULL) != 0) {
            pthread_mutex_destroy(&cx->mu);
            return ht_error_set(err, HT_ENOMEM, "cannot make a condition variable");
        }
        if (pthread_cond_init(&cx->done, NULL) != 0) {
            pthread_cond_destroy(&cx->go);
            pthread_mutex_destroy(&cx->mu);
            return ht_error_set(err, HT_ENOMEM, "cannot make a condition variable");
        }
        cx->sync_made = 1;
    }
    if (!cx->workers && !(cx->workers = calloc(cx->n - 1, sizeof *cx->workers)))
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (; cx->nworkers < cx->n - 1; cx->nworkers++) {
        struct cxdev *d = &cx->devs[cx->nworkers + 1];
        d->seen_gen = cx->gen;
        if (pthread_create(&cx->workers[cx->nworkers], NULL, worker, d) != 0)
            return ht_error_set(err, HT_ENOMEM, "cannot start a host thread per device");
    }
    return HT_OK;
}

/* Stops and joins the worker threads. */
void ht__cx_stop_workers(struct ht_coexec *cx)
{
    if (!cx->sync_made)
        return;
    pthread_mutex_lock(&cx->mu);
    cx->quit = 1;
    pthread_cond_broadcast(&cx->go);
    pthread_mutex_unlock(&cx->mu);
    for (size_t k = 0; k < cx->nworkers; k++)
        pthread_join(cx->workers[k], NULL);
    free(cx->workers);
    pthread_cond_destroy(&cx->go);
    pthread_cond_destroy(&cx->done);
    pthread_mutex_destroy(&cx->mu);
}

/* Readies the scheduler and every device's figures for a run. */
static void reset_run(struct ht_coexec *cx)
{
    ht_split_sched_reset(cx->sched);
    for (size_t j = 0; j < cx->n; j++) {
        struct cxdev *d = &cx->devs[j];
        d->nowned = 0;
        d->chunks = 0;
        d->items = d->owned_items = 0;
        d->kernel_s = d->write_s = d->read_s = d->busy_s = 0.0;
        d->rc = HT_OK;
        ht_error_clear(&d->err);
    }
}

/* One co-execution: every device's part, started together (device 0 on the calling
 * thread, the others on their worker threads). *wall_s is its wall time. The harness
 * poisons first (ht__coexec_run); a launch on bound arrays does not. */
static int run_once(struct ht_coexec *cx, int do_poison, double *wall_s, struct ht_error *err)
{
    int rc;

    if (do_poison) {
        rc = poison(cx, err);
        if (rc != HT_OK)
            return rc;
    }
    rc = start_workers(cx, err);
    if (rc != HT_OK)
        return rc;
    cx->t0 = ht__now();
    /* A supervisor's probe: each device's part alone first, one after the other, so that
     * a crash names one device (supervise.h); then the run as always. A dynamic
     * scheduler gives a device alone every chunk. */
    for (size_t j = 0; cx->n > 1 && cx->probe && j < cx->n; j++) {
        reset_run(cx);
        device_thread(&cx->devs[j]);
        if (do_poison && (rc = poison(cx, err)) != HT_OK)
            return rc;
    }
    reset_run(cx);
    cx->t0 = ht__now();
    /* Threads made per launch would cost tens of microseconds each time, which a
     * program's small launches would pay again and again: they are kept. */
    if (cx->n > 1) {
        pthread_mutex_lock(&cx->mu);
        cx->ndone = 0;
        cx->gen++;
        pthread_cond_broadcast(&cx->go);
        pthread_mutex_unlock(&cx->mu);
    }
    device_thread(&cx->devs[0]);
    if (cx->n > 1) {
        pthread_mutex_lock(&cx->mu);
        while (cx->ndone < cx->n - 1)
            pthread_cond_wait(&cx->done, &cx->mu);
        pthread_mutex_unlock(&cx->mu);
    }
    *wall_s = ht__now() - cx->t0;
    for (size_t j = 0; j < cx->n; j++)
        if (cx->devs[j].rc != HT_OK) {
            /* A driver's failure in a device's part: a supervisor runs again without it. */
            if (cx->devs[j].rc == HT_ELAUNCH || cx->devs[j].rc == HT_ECL)
                ht__watch_failed(cx->devs[j].dev, &cx->devs[j].err);
            return ht__cx_device_fail(err, &cx->devs[j], &cx->devs[j].err);
        }
    return HT_OK;
}

/* Figures kept per run and device (see ht__coexec_run). */
#define NPER 7

struct run_stat {
    double wall;
    unsigned index;
};

static int cmp_run(const void *a, const void *b)
{
    double x = ((const struct run_stat *)a)->wall, y = ((const struct run_stat *)b)->wall;
    return (x > y) - (x < y);
}

/* warmup untimed and repeats timed co-executions (poisoned first by the harness, not on
 * bound arrays), into res: the mean of the best keep. */
int ht__cx_run_many(struct ht_coexec *cx, struct ht_coexec_result *res, unsigned warmup,
                    unsigned repeats, unsigned keep, int do_poison, struct ht_error *err)
{
    const struct ht_split_plan *plan = ht_split_sched_plan(cx->sched);
    double *per = NULL; /* per run and device: kernel, write, read, busy, owned, chunks,
                           items */
    struct run_stat *order = NULL;
    int rc = HT_OK;

    memset(res, 0, sizeof *res);
    res->verified = -1;
    res->theoretical_s = res->adjusted_s = res->model_s = -1.0;
    if (repeats == 0)
        repeats = 1;
    if (repeats > HT_MAX_REPEATS)
        repeats = HT_MAX_REPEATS;
    if (keep == 0 || keep > repeats)
        keep = repeats;
    res->dim = cx->opts.dim;
    res->global = cx->global;
    snprintf(res->scheduler, sizeof res->scheduler, "%s", cx->sched_ops->name);
    if (plan) {
        res->theoretical_s = plan->theoretical_time_s;
        res->adjusted_s = plan->adjusted_time_s;
        res->model_s = plan->model_time_s;
    }
    res->ndevices = cx->n;
    res->devices = calloc(cx->n, sizeof *res->devices);
    res->run_s = calloc(repeats, sizeof *res->run_s);
    per = calloc((size_t)repeats * cx->n * NPER, sizeof *per);
    order = calloc(repeats, sizeof *order);
    if (!res->devices || !res->run_s || !per || !order) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    cx->have_outputs = 0;
    for (unsigned w = 0; w < warmup; w++) {
        double wall;
        rc = run_once(cx, do_poison, &wall, err);
        if (rc != HT_OK)
            goto cleanup;
    }
    for (unsigned r = 0; r < repeats; r++) {
        rc = run_once(cx, do_poison, &res->run_s[r], err);
        if (rc != HT_OK)
            goto cleanup;
        res->nruns = r + 1;
        order[r].wall = res->run_s[r];
        order[r].index = r;
        for (size_t j = 0; j < cx->n; j++) {
            double *p = per + ((size_t)r * cx->n + j) * NPER;
            p[0] = cx->devs[j].kernel_s;
            p[1] = cx->devs[j].write_s;
            p[2] = cx->devs[j].read_s;
            p[3] = cx->devs[j].busy_s;
            p[4] = (double)cx->devs[j].owned_items;
            p[5] = (double)cx->devs[j].chunks;
            p[6] = (double)cx->devs[j].items;
        }
    }
    cx->have_outputs = 1;
    qsort(order, repeats, sizeof *order, cmp_run);
    res->wall_min_s = order[0].wall;
    for (unsigned k = 0; k < keep; k++)
        res->wall_s += order[k].wall / keep;
    for (size_t j = 0; j < cx->n; j++) {
        struct ht_coexec_device_result *o = &res->devices[j];
        const struct cxdev *d = &cx->devs[j];
        o->ndims = d->in.ndims;
        memcpy(o->global, d->in.global, sizeof o->global);
        memcpy(o->local, d->in.local, sizeof o->local);
        o->wg = d->wg * d->per_item;
        o->time_s = d->time_s;
        o->build_s = d->build_s;
        o->compute_units = d->dev->compute_units;
        o->cache_hit = d->cache_hit;
        {
            const double *p = per + ((size_t)order[0].index * cx->n + j) * NPER;
            o->owned = (uint64_t)p[4];
            o->chunks = (unsigned)p[5];
            o->items = (uint64_t)p[6];
        }
        for (unsigned k = 0; k < keep; k++) {
            const double *p = per + ((size_t)order[k].index * cx->n + j) * NPER;
            o->kernel_s += p[0] / keep;
            o->write_s += p[1] / keep;
            o->read_s += p[2] / keep;
            o->busy_s += p[3] / keep;
            o->share += p[4] / (double)cx->global / keep;
        }
        if (o->kernel_s > res->kernel_s)
            res->kernel_s = o->kernel_s;
    }
cleanup:
    free(per);
    free(order);
    return rc;
}

int ht__coexec_run(struct ht_coexec *cx, struct ht_coexec_result *res, struct ht_error *err)
{
    const struct ht_spec *spec = cx->spec;
    unsigned repeats = cx->opts.repeats ? cx->opts.repeats : spec->repeats;
    unsigned keep = cx->opts.keep_best ? cx->opts.keep_best : spec->keep_best;

    /* Made for bound arrays: measured on them once all are bound (a runtime's decision on
     * the program's arrays), never poisoned (they are the program's). */
    if (cx->opts.bind_only && ht__cx_all_bound(cx, err) != HT_OK) {
        memset(res, 0, sizeof *res);
        return HT_EINVAL;
    }
    return ht__cx_run_many(cx, res, cx->opts.warmup, repeats, keep, !cx->opts.bind_only, err);
}

int ht__coexec_run_once(struct ht_coexec *cx, struct ht_coexec_result *res,
                        struct ht_error *err)
{
    return ht__cx_run_many(cx, res, 0, 1, 1, 0, err);
}
