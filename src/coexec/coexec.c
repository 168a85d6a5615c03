/* Co-execution (coexec.h): one kernel on several devices at once. Each device has its own
 * exec session (context, profiling queue, binary cache), program, kernel and full-size
 * buffers; a host thread per device asks the scheduler for chunks, sends what each chunk
 * reads, launches it with a global work offset, and at the end reads back the elements it
 * owns into one host result (chunks.c). This file sets it up: the spec's checks, each
 * device's context, sub-device and program, the buffers and how each travels, the host
 * data, the scheduler and its plan; and frees it. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coexec-internal.h"
#include "exec/engine.h"
#include "supervise/watch.h"
#include "util/util.h"

void ht__coexec_opts_init(struct ht_coexec_opts *opts)
{
    memset(opts, 0, sizeof *opts); /* opts->sched too: all zero is every default (split.h) */
    ht_exec_opts_init(&opts->exec);
    opts->warmup = 1;
    opts->margin = HT_SPLIT_MARGIN_DEFAULT;
}

/* The planned scheduler's ops (HT_SPLIT_SCHED_PLANNED, "static"): split.h lists it first in
 * ht_split_schedulers[]. */
static const struct ht_split_sched_ops *planner_ops(void)
{
    return ht_split_schedulers[0];
}

void ht_coexec_result_destroy(struct ht_coexec_result *res)
{
    if (!res)
        return;
    free(res->devices);
    res->devices = NULL;
    res->ndevices = 0;
    free(res->run_s);
    res->run_s = NULL;
    res->nruns = 0;
}

/* Reports a device's failure as "device I (NAME): <its error>" in err, keeping the code,
 * the field and the OpenCL status. Returns the code. */
int ht__cx_device_fail(struct ht_error *err, const struct cxdev *d, const struct ht_error *e)
{
    int code = e->code ? e->code : HT_ECL;

    if (!err || err->code)
        return code;
    err->cl_status = e->cl_status;
    snprintf(err->field, sizeof err->field, "%s", e->field);
    return ht_error_set(err, code, "device %zu (%s): %s", d->dev->index, d->dev->name,
                        e->text);
}

static const char *dim_name(unsigned d)
{
    static const char *const names[] = {"gx", "gy", "gz"};
    return d < 3 ? names[d] : "?";
}

/* Decides how buffer i travels for device d of its co-execution (which splits along
 * opts.dim into cx->global units over cx->n devices). Inputs map onto the device's own
 * work-items, outputs onto the units. w: what a probe inferred for it when it has no
 * index, or NULL. */
static int map_buffer(struct cxdev *d, size_t i, const struct ht_split_written *w,
                      struct ht_error *err)
{
    const struct ht_spec *spec = d->cx->spec;
    const unsigned dim = d->cx->opts.dim;
    const uint64_t units = d->cx->global;
    const size_t nd = d->cx->n;
    const struct ht_arg *arg = &spec->args[i];
    const struct ht__hostbuf *b = &d->in.shape[i];
    struct bufmap *m = &d->maps[i];
    int nsplit = 0, sliceable = 1, ownable = 1;

    memset(m, 0, sizeof *m);
    if (!arg->has_index && w && w->inferred && w->axis < arg->naxes &&
        arg->access != HT_ACCESS_READ) {
        uint64_t lo, hi;
        /* The probe saw what the kernel writes, not what it reads: a readwrite buffer is
         * sent whole, and only its owned rows come back. */
        if (arg->access == HT_ACCESS_READWRITE)
            m->in = IN_WHOLE;
        m->split_axis[w->axis] = 1;
        if (ht__split_axis_range(b->dims[w->axis], units, 0, 0, units, 1, &lo, &hi)) {
            m->out = OUT_OWNED;
            return HT_OK;
        }
        if (err && !err->code)
            snprintf(err->field, sizeof err->field, "args[%zu].index", i);
        return ht_error_set(err, HT_ESPEC,
                            "written buffer '%s' (no index; the probe found its axis %u "
                            "written by slabs along %s): the axis has %" PRIu64 " elements, "
                            "not a multiple of the %" PRIu64 " units along %s",
                            arg->name, w->axis, dim_name(dim), b->dims[w->axis], units,
                            dim_name(dim));
    }
    for (unsigned a = 0; arg->has_index && a < arg->naxes; a++) {
        uint64_t lo, hi;
        if (arg->index[a].dim != (int)dim)
            continue;
        m->split_axis[a] = 1;
        nsplit++;
        if (arg->index[a].halo) {
            int64_t h;
            int rc = ht_expr_eval(arg->index[a].halo, d->in.vars, &h);
            if (rc != HT_OK || h < 0) {
                if (err && !err->code)
                    snprintf(err->field, sizeof err->field, "args[%zu].index[%u].halo", i, a);
                return ht_error_set(err, HT_ESPEC, "halo '%s' of '%s' is %s",
                                    ht_expr_source(arg->index[a].halo), arg->name,
                                    rc == HT_OK ? "negative" : ht_strerror(rc));
            }
            m->halo[a] = (uint64_t)h;
        }
        if (!ht__split_axis_range(b->dims[a], d->g, m->halo[a], 0, d->g, 0, &lo, &hi))
            sliceable = 0;
        if (!ht__split_axis_range(b->dims[a], units, 0, 0, units, 1, &lo, &hi))
            ownable = 0;
    }
    if (arg->access != HT_ACCESS_WRITE)
        m->in = nsplit && sliceable ? IN_SLICED : IN_WHOLE;
    if (arg->access == HT_ACCESS_READ)
        return HT_OK;

    if (nsplit && ownable) {
        m->out = OUT_OWNED;
        return HT_OK;
    }
    if (nd == 1) {
        m->out = OUT_WHOLE;
        return HT_OK;
    }
    if (err && !err->code)
        snprintf(err->field, sizeof err->field, "args[%zu].index", i);
    if (!arg->has_index)
        return ht_error_set(err, HT_ESPEC,
                            "written buffer '%s' has no index: splitting cannot tell which "
                            "elements each device writes (give it an \"index\")",
                            arg->name);
    if (!nsplit)
        return ht_error_set(err, HT_ESPEC,
                            "written buffer '%s' has no axis walked by %s: splitting along "
                            "%s cannot merge it",
                            arg->name, dim_name(dim), dim_name(dim));
    for (unsigned a = 0; a < arg->naxes; a++)
        if (m->split_axis[a] && b->dims[a] % units)
            return ht_error_set(err, HT_ESPEC,
                                "written buffer '%s': axis %u has %" PRIu64 " elements, not a "
                                "multiple of the %" PRIu64 " %s along %s",
                                arg->name, a, b->dims[a], units,
                                units == d->g ? "work-items"
                                              : "units (the least common multiple of the "
                                                "devices' global sizes)",
                                dim_name(dim));
    return ht_error_set(err, HT_ESPEC, "written buffer '%s' cannot be split along %s",
                        arg->name, dim_name(dim));
}

/* ht__coexec_check_spec; a written buffer without index passes when probing is set, or
 * when written (NULL: none) holds an inference for it. */
static int check_spec(const struct ht_spec *spec, unsigned dim, const char *scheduler,
                      size_t n, int probing, const struct ht_split_written *written,
                      struct ht_error *err)
{
    int rc = HT_OK;

    if (spec->npipeline) {
        rc = ht_error_set(err, HT_ESPEC,
                          "'%s' is a pipeline of %zu kernels: splitting supports one kernel only",
                          spec->name, spec->npipeline);
        if (err && rc == err->code && !err->field[0])
            snprintf(err->field, sizeof err->field, "pipeline");
        goto located;
    }
    if (dim >= spec->space.ndims)
        return ht_error_set(err, HT_EINVAL, "split dimension %u out of range: the NDRange has %u",
                            dim, spec->space.ndims);
    if (scheduler && !ht_split_scheduler_find(scheduler)) {
        struct ht_split_sched *probe = NULL;
        /* Fails at once on the name, with the message that lists the schedulers. */
        rc = ht_split_sched_create(scheduler, 1, NULL, 0, NULL, &probe, err);
        ht_split_sched_free(probe);
        return rc;
    }
    /* What map_buffer refuses whatever the configurations: one device reads a written
     * buffer back whole, several must know who writes what. */
    for (size_t i = 0; n > 1 && i < spec->nargs && rc == HT_OK; i++) {
        const struct ht_arg *arg = &spec->args[i];
        int walked = 0;
        if (!arg->is_buffer || (arg->access != HT_ACCESS_WRITE &&
                                arg->access != HT_ACCESS_READWRITE))
            continue;
        for (unsigned a = 0; arg->has_index && a < arg->naxes; a++)
            walked |= arg->index[a].dim == (int)dim;
        if (!arg->has_index && (probing || (written && written[i].inferred)))
            continue;
        if (!arg->has_index)
            rc = ht_error_set(err, HT_ESPEC,
                              "written buffer '%s' has no index: splitting cannot tell which "
                              "elements each device writes (give it an \"index\")",
                              arg->name);
        else if (!walked)
            rc = ht_error_set(err, HT_ESPEC,
                              "written buffer '%s' has no axis walked by %s: splitting along "
                              "%s cannot merge it",
                              arg->name, dim_name(dim), dim_name(dim));
        if (rc != HT_OK && err && rc == err->code && !err->field[0])
            snprintf(err->field, sizeof err->field, "args[%zu].index", i);
    }
located:
    if (rc != HT_OK && err && rc == err->code && !err->file[0] && spec->path)
        snprintf(err->file, sizeof err->file, "%s", spec->path);
    return rc;
}

int ht__coexec_check_spec(const struct ht_spec *spec, unsigned dim, const char *scheduler,
                          size_t n, struct ht_error *err)
{
    return check_spec(spec, dim, scheduler, n, 0, NULL, err);
}


int ht__device_partitionable(const struct ht_device_info *dev, unsigned *max_sub,
                             int *by_counts, int *equally)
{
    cl_device_id id = (cl_device_id)dev->cl_device;
    cl_device_partition_property props[16];
    cl_uint m = 0;
    size_t size = 0;

    *by_counts = *equally = 0;
    clGetDeviceInfo(id, CL_DEVICE_PARTITION_MAX_SUB_DEVICES, sizeof m, &m, NULL);
    if (clGetDeviceInfo(id, CL_DEVICE_PARTITION_PROPERTIES, sizeof props, props, &size) ==
        CL_SUCCESS)
        for (size_t i = 0; i < size / sizeof props[0] && props[i]; i++) {
            *by_counts |= props[i] == CL_DEVICE_PARTITION_BY_COUNTS;
            *equally |= props[i] == CL_DEVICE_PARTITION_EQUALLY;
        }
    *max_sub = m;
    return dev->is_cpu && m >= 2 && (*by_counts || *equally);
}

/* p->devs's count of CPU compute units, ht__coexec_precheck's second half. */
static int check_units(const struct ht__precheck *p, unsigned *largest,
                       struct ht_error *err)
{
    const struct ht_device_info *const *devs = p->devs;
    int any = 0, bc, eq;
    unsigned m;

    for (size_t i = 0; i < p->n; i++) {
        if (!ht__device_partitionable(devs[i], &m, &bc, &eq))
            continue;
        any = 1;
        if (devs[i]->compute_units > *largest)
            *largest = devs[i]->compute_units;
        if (p->units > devs[i]->compute_units)
            return ht_error_set(err, HT_EINVAL, "device %zu (%s) has %u compute units: it "
                                "cannot co-execute on %u", devs[i]->index, devs[i]->name,
                                devs[i]->compute_units, p->units);
    }
    if (p->units && !any)
        return ht_error_set(err, HT_EINVAL, "no device here can be partitioned into "
                            "sub-devices of %u compute units (device %zu (%s): "
                            "CL_DEVICE_PARTITION_MAX_SUB_DEVICES %u)", p->units,
                            devs[0]->index, devs[0]->name,
                            (ht__device_partitionable(devs[0], &m, &bc, &eq), m));
    return HT_OK;
}

int ht__coexec_precheck(const struct ht__precheck *p, unsigned *largest, struct ht_error *err)
{
    unsigned none;
    int rc = HT_OK;

    if (!largest)
        largest = &none;
    *largest = 0;
    if (p->spec)
        rc = check_spec(p->spec, p->dim, p->scheduler, p->n, 1, NULL, err);
    if (rc == HT_OK && p->devs)
        rc = check_units(p, largest, err);
    return rc;
}

/* A CPU device on units of its compute units (Dopia's degree of parallelism): a
 * sub-device of that many (clCreateSubDevices, by counts, else equally), which d then
 * uses in place of the device. A device that cannot be partitioned keeps all its units.
 * HT_EINVAL (exit status 2) naming the limit when the device has fewer units; HT_ECL when
 * the driver refuses. */
static int make_subdevice(struct cxdev *d, unsigned units, struct ht_error *err)
{
    cl_device_id id = (cl_device_id)d->dev->cl_device;
    cl_device_partition_property want[4];
    cl_uint max_sub = 0, got = 0;
    int by_counts = 0, equally = 0;
    cl_int st;

    if (!ht__device_partitionable(d->dev, &max_sub, &by_counts, &equally))
        return HT_OK; /* it runs on all its units, as it can only */
    if (units > d->dev->compute_units)
        return ht_error_set(err, HT_EINVAL, "device %zu (%s) has %u compute units: it cannot "
                            "co-execute on %u", d->dev->index, d->dev->name,
                            d->dev->compute_units, units);
    if (by_counts) {
        want[0] = CL_DEVICE_PARTITION_BY_COUNTS;
        want[1] = (cl_device_partition_property)units;
        want[2] = CL_DEVICE_PARTITION_BY_COUNTS_LIST_END;
        want[3] = 0;
        st = clCreateSubDevices(id, want, 1, &d->sub, &got);
    } else {
        /* Equally: as many sub-devices of units as fit; the first is kept. */
        cl_device_id subs[64];
        cl_uint n = d->dev->compute_units / units;
        want[0] = CL_DEVICE_PARTITION_EQUALLY;
        want[1] = (cl_device_partition_property)units;
        want[2] = 0;
        st = clCreateSubDevices(id, want, n < 64 ? n : 64, subs, &got);
        for (cl_uint i = 1; st == CL_SUCCESS && i < got; i++)
            clReleaseDevice(subs[i]);
        d->sub = st == CL_SUCCESS && got ? subs[0] : NULL;
    }
    if (st != CL_SUCCESS || !d->sub)
        return ht__cl_fail(err, HT_ECL, st, "clCreateSubDevices");
    d->sub_info = *d->dev;
    d->sub_info.cl_device = d->sub;
    d->sub_info.compute_units = units;
    d->dev = &d->sub_info;
    return HT_OK;
}

/* What malloc gives a large array: 16 bytes past a page (glibc's mmap chunks). */
#define MALLOC_ALIGN 16

/* Whether the driver of an in-place device wraps a host array MALLOC_ALIGN bytes past its
 * base alignment as it is (CL_MEM_USE_HOST_PTR): a fill through the buffer then shows in
 * the array without a map. A driver that wraps a copy of its own around such an array
 * copies it at every launch and map instead (the shadows avoid that). PoCL 5 on the
 * 2 x H200 machine and PoCL 3 here wrap it as it is: vecadd's CPU part on malloc memory
 * ran as fast as on page-aligned memory there. Any failure answers no. */
static int wraps_in_place(cl_context ctx, cl_command_queue q, size_t align)
{
    const size_t n = 64;
    const cl_uint pattern = 0x5a5a5a5au;
    unsigned char *raw = NULL, *p;
    cl_mem m = NULL;
    cl_int st;
    int yes = 0;

    if (posix_memalign((void **)&raw, align, align + n) != 0)
        return 0;
    p = raw + MALLOC_ALIGN;
    memset(p, 0, n);
    m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n, p, &st);
    if (st != CL_SUCCESS)
        goto done;
    if (clEnqueueFillBuffer(q, m, &pattern, sizeof pattern, 0, n, 0, NULL, NULL) != CL_SUCCESS ||
        clFinish(q) != CL_SUCCESS)
        goto done;
    yes = 1;
    for (size_t k = 0; k < n; k++)
        yes = yes && p[k] == 0x5a;
done:
    if (m)
        clReleaseMemObject(m);
    free(raw);
    return yes;
}

/* Opens device d's session, checks and builds its configuration, makes its buffers and
 * kernel. */
static int device_prepare(struct ht_coexec *cx, struct cxdev *d, struct ht_error *err)
{
    const struct ht_spec *spec = cx->spec;
    int rc;

    if (cx->opts.cpu_units && d->dev->is_cpu && cx->opts.cpu_units != d->dev->compute_units) {
        rc = make_subdevice(d, cx->opts.cpu_units, err);
        if (rc != HT_OK)
            return rc;
    }

    rc = ht_space_check(&spec->space, d->dev, d->config, cx->opts.exec.eq3, err);
    if (rc != HT_OK)
        return rc;
    /* On the device's kept context, its program kept: a runtime's switch between the split
     * and a device alone makes co-executions again (a context took NVIDIA 100 ms to make
     * and 57 to release, PoCL's load of a built program 36-51 ms). */
    rc = ht__session_create_kept(spec, d->dev, &cx->opts.exec, &d->session, err);
    if (rc != HT_OK)
        return rc;
    {
        size_t na = spec->nargs ? spec->nargs : 1;
        cl_uint bits = 0;
        d->maps = calloc(na, sizeof *d->maps);
        d->up = calloc(na, 1);
        d->down = calloc(na, 1);
        d->reg_in = calloc(na, sizeof *d->reg_in);
        d->reg_out = calloc(na, sizeof *d->reg_out);
        d->shadow = calloc(na, sizeof *d->shadow);
        if (!d->maps || !d->up || !d->down || !d->reg_in || !d->reg_out || !d->shadow)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        /* In bits. A device that does not say is given a page: arrays of ht__coexec_alloc
         * still qualify, a program's malloc memory is copied. */
        if (clGetDeviceInfo(d->session->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits,
                            &bits, NULL) != CL_SUCCESS || bits < 8)
            bits = 4096 * 8;
        d->align = bits / 8;
    }
    /* The same instantiation as exec's own evaluation, so that both share the binary
     * cache and the shapes; buffers are left unwritten, as each run sends its own parts. */
    rc = ht__inst_build(d->session, d->config, &d->in, &d->build_s, &d->cache_hit,
                        &d->whole_groups, err);
    if (rc != HT_OK)
        return rc;
    d->wg = d->in.local[0] ? d->in.local[cx->opts.dim] : 1;
    d->path = d->session->path;
    d->inplace_align = d->align;
    if (d->path == HT_PATH_INPLACE && d->align > MALLOC_ALIGN &&
        wraps_in_place(d->session->ctx, d->session->queue, d->align))
        d->inplace_align = MALLOC_ALIGN;
    if (d->path != HT_PATH_INPLACE) {
        cl_int st;
        d->q2 = clCreateCommandQueue(d->session->ctx, d->session->device,
                                     CL_QUEUE_PROFILING_ENABLE, &st);
        if (st != CL_SUCCESS)
            return ht__cl_fail(err, HT_ECL, st, "clCreateCommandQueue (second queue)");
    }
    return HT_OK;
}

/* Buffer i's host memory that device d works on in place, or NULL when it is copied. A
 * readwrite buffer is worked in place only by a device alone under a planned scheduler
 * (static: its one slice, the whole work):
 * elsewhere some work-items are computed twice (the residue device's overlap, a tail
 * chunk moved back), which a kernel that updates its elements in place cannot afford
 * (x = 3x + i twice is not x = 3x + i); copied, the second computation starts from the
 * initial data and only its owner's result is read back. */
static void *inplace_host(const struct ht_coexec *cx, const struct cxdev *d, size_t i)
{
    const struct ht_arg *arg = &cx->spec->args[i];
    void *p;

    if (d->path != HT_PATH_INPLACE || !arg->is_buffer || arg->access == HT_ACCESS_TEMP)
        return NULL;
    if (arg->access == HT_ACCESS_READWRITE &&
        (cx->n > 1 || cx->sched_ops->kind != HT_SPLIT_SCHED_PLANNED))
        return NULL;
    p = arg->access == HT_ACCESS_READ ? cx->inputs[i].data : cx->outputs[i].data;
    return p;
}

/* Whether device d works on buffer i in place on its shadow (see struct cxdev). */
int ht__cx_shadowed(const struct cxdev *d, size_t i)
{
    return d->shadow && d->shadow[i].data && d->in.host[i] == d->shadow[i].data;
}

/* What device d's buffer i wraps in place (NULL: none, a device buffer): the host array
 * of inplace_host, or, when that array is below d's base alignment, d's shadow of it
 * (made here). Below its alignment a driver wraps a copy of its own around the array
 * (PoCL does) and copies all of it at every launch and map, elements another device owns
 * included; the shadow moves only the slices, on several threads. */
int ht__cx_inplace_target(const struct ht_coexec *cx, struct cxdev *d, size_t i, void **out,
                          struct ht_error *err)
{
    void *p = inplace_host(cx, d, i);
    size_t bytes = d->in.shape[i].count * ht_type_size(cx->spec->args[i].type);
    int rc;

    *out = p;
    if (!p || (uintptr_t)p % d->inplace_align == 0)
        return HT_OK;
    if (!d->shadow[i].data) {
        rc = ht__hostmem_alloc(
            &(struct ht__hostmem_want){.path = HT_PATH_INPLACE, .bytes = bytes}, &d->shadow[i],
            err);
        if (rc != HT_OK)
            return rc;
    }
    if (!d->copier) {
        rc = ht__stage_create(NULL, NULL, 0, 0, cx->opts.exec.stage_threads, &d->copier, err);
        if (rc != HT_OK)
            return rc;
    }
    *out = d->shadow[i].data;
    return HT_OK;
}

/* Copies the elements of box r of buffer i between two host arrays of its layout (d's copy
 * threads for one contiguous range, row by row otherwise), adding the time to *seconds. */
void ht__cx_copy_rect(struct cxdev *d, size_t i, void *dst, const void *src,
                      const struct ht__box *r, double *seconds)
{
    const uint64_t *lo = r->lo, *hi = r->hi;
    const struct ht__hostbuf *b = &d->in.shape[i];
    size_t es = ht_type_size(d->cx->spec->args[i].type);
    uint64_t dims[3] = {1, 1, 1}, l[3] = {0, 0, 0}, h[3] = {1, 1, 1};
    unsigned na = b->naxes, sh = 3 - na;
    double t0 = ht__now();

    for (unsigned a = 0; a < na; a++) {
        if (hi[a] <= lo[a])
            return;
        /* Right-aligned into three axes: the last is the contiguous one. */
        dims[sh + a] = b->dims[a];
        l[sh + a] = lo[a];
        h[sh + a] = hi[a];
    }
    /* One contiguous range when every axis inside a partial one is whole, or the partial
     * one is the only one longer than an element. */
    if (((l[2] == 0 && h[2] == dims[2]) || (h[1] - l[1] == 1 && h[0] - l[0] == 1)) &&
        ((l[1] == 0 && h[1] == dims[1]) || h[0] - l[0] == 1)) {
        size_t off = (size_t)((l[0] * dims[1] + l[1]) * dims[2] + l[2]) * es;
        size_t len = (size_t)(((h[0] - 1) * dims[1] + h[1] - 1) * dims[2] + h[2]) * es - off;
        ht__stage_copy(d->copier, (char *)dst + off, (const char *)src + off, len);
    } else {
        for (uint64_t x = l[0]; x < h[0]; x++)
            for (uint64_t y = l[1]; y < h[1]; y++) {
                size_t off = (size_t)((x * dims[1] + y) * dims[2] + l[2]) * es;
                memcpy((char *)dst + off, (const char *)src + off, (size_t)(h[2] - l[2]) * es);
            }
    }
    *seconds += ht__now() - t0;
}

/* Whether p, the host array of buffer i, is memory hetune did not allocate: a bound array
 * that is not ht__coexec_alloc's, or the co-execution's own data made as a program's memory
 * (opts.memory). */
int ht__cx_is_foreign(const struct ht_coexec *cx, size_t i, const void *p)
{
    if (!p)
        return 0;
    if (!cx->bound[i])
        return cx->opts.memory != HT_COEXEC_MEM_OWN;
    for (size_t k = 0; k < cx->nallocs; k++)
        if (cx->allocs[k].mem.data == p)
            return 0;
    return 1;
}

/* The way of moving a foreign array that the option p names (AUTO: pinned in place). */
/* AUTO, measured on the H100 and H200 machines (bench/runtime/mem.sh, bench/gpu/foreign.sh,
 * bench/gpu/leavecore.sh, docs/results-gpu.md): a GPU alone moves a program's array
 * fastest pinned in place (the H200, vecadd 2^26: 10.8 ms, as on the runtime's own pinned
 * memory, against 12.3 ms registered, 36.1 staged, 83.2 direct), and so does a split once
 * the arrays are pinned again after a new decision (ht__coexec_repin: 7.1 ms, the
 * runtime's own memory 7.1, staged 22.0). */
static enum xfer xfer_of(const struct ht_coexec *cx, enum ht_foreign_path p)
{
    (void)cx;
    if (p == HT_FOREIGN_AUTO)
        return XF_PIN;
    return p == HT_FOREIGN_REGISTER ? XF_REGISTER
           : p == HT_FOREIGN_DIRECT ? XF_DIRECT
           : p == HT_FOREIGN_PIN    ? XF_PIN
                                    : XF_STAGE;
}

/* Releases device d's XF_REGISTER buffers of argument i, if any. */
static void release_reg(struct cxdev *d, size_t i)
{
    if (d->reg_in[i])
        clReleaseMemObject(d->reg_in[i]);
    if (d->reg_out[i])
        clReleaseMemObject(d->reg_out[i]);
    d->reg_in[i] = d->reg_out[i] = NULL;
}

/* A CL_MEM_USE_HOST_PTR buffer of d's context over host, bytes long. */
static int make_reg(struct cxdev *d, size_t i, void *host, size_t bytes, cl_mem *out,
                    struct ht_error *err)
{
    cl_int st;

    *out = clCreateBuffer(d->session->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host,
                          &st);
    if (st != CL_SUCCESS) {
        char what[300];
        *out = NULL;
        snprintf(what, sizeof what, "clCreateBuffer over the host array of '%s' (register)",
                 d->cx->spec->args[i].name);
        return ht__cl_fail(err, HT_ECL, st, what);
    }
    return HT_OK;
}

/* Decides how device d moves buffer i's host arrays (d->up, d->down; exec.h, enum
 * ht_foreign_path) and makes what that needs: a copied device (HT_PATH_PINNED) moves
 * memory hetune did not allocate as opts.exec.foreign_up and foreign_down say; everything
 * else goes directly. Call it whenever the arrays or d's buffer change. */
int ht__cx_set_xfer(struct ht_coexec *cx, struct cxdev *d, size_t i, struct ht_error *err)
{
    const struct ht_arg *arg = &cx->spec->args[i];
    void *hin = arg->access != HT_ACCESS_WRITE ? cx->inputs[i].data : NULL;
    void *hout = arg->access != HT_ACCESS_READ ? cx->outputs[i].data : NULL;
    size_t bytes = d->in.shape[i].count * ht_type_size(arg->type);
    int rc = HT_OK;

    release_reg(d, i);
    d->up[i] = d->down[i] = XF_DIRECT;
    if (d->path != HT_PATH_PINNED || !arg->is_buffer || arg->access == HT_ACCESS_TEMP ||
        d->in.host[i])
        return HT_OK;
    if (ht__cx_is_foreign(cx, i, hin))
        d->up[i] = (unsigned char)xfer_of(cx, cx->opts.exec.foreign_up);
    if (ht__cx_is_foreign(cx, i, hout))
        d->down[i] = (unsigned char)xfer_of(cx, cx->opts.exec.foreign_down);
    if (d->up[i] == XF_REGISTER || d->up[i] == XF_PIN)
        rc = make_reg(d, i, hin, bytes, &d->reg_in[i], err);
    if (rc == HT_OK && (d->down[i] == XF_REGISTER || d->down[i] == XF_PIN)) {
        if (hout == hin && d->reg_in[i]) {
            /* One buffer per host array: two over the same memory are undefined. */
            clRetainMemObject(d->reg_in[i]);
            d->reg_out[i] = d->reg_in[i];
        } else {
            rc = make_reg(d, i, hout, bytes, &d->reg_out[i], err);
        }
    }
    if (rc == HT_OK && (d->up[i] == XF_STAGE || d->down[i] == XF_STAGE) && !d->stage) {
        /* Rings as long as two pieces (one per queue), so that a piece's uploads rarely wait
         * for the other queue's. */
        uint64_t piece = cx->opts.piece_bytes && cx->opts.piece_bytes != UINT64_MAX
                             ? cx->opts.piece_bytes
                             : UINT64_C(32) << 20;
        rc = ht__stage_create(d->session->ctx, d->session->queue, cx->opts.exec.stage_bytes,
                              (size_t)(2 * piece), cx->opts.exec.stage_threads, &d->stage, err);
    }
    if (rc != HT_OK) {
        release_reg(d, i);
        d->up[i] = d->down[i] = XF_DIRECT;
    }
    return rc;
}

/* Whether some device works on buffer i in place. */
int ht__cx_any_inplace(const struct ht_coexec *cx, size_t i)
{
    for (size_t j = 0; j < cx->n; j++)
        if (cx->devs[j].in.host[i])
            return 1;
    return 0;
}

/* Creates device d's buffers (in place over the host arrays when its path says so); its
 * kernel, made with its program, takes each as its argument. */
static int device_buffers(struct ht_coexec *cx, struct cxdev *d, struct ht_error *err)
{
    const struct ht_spec *spec = cx->spec;
    int rc;

    for (size_t i = 0; i < spec->nargs; i++) {
        if (!spec->args[i].is_buffer)
            continue;
        void *host = NULL;
        rc = ht__cx_inplace_target(cx, d, i, &host, err);
        if (rc == HT_OK)
            rc = ht__inst_bind(d->session, &d->in, i, host, err);
        if (rc == HT_OK)
            rc = ht__cx_set_xfer(cx, d, i, err);
        if (rc != HT_OK)
            return rc;
    }
    return HT_OK;
}

/* Bytes of host data every co-execution of the process made of its own (host_buffers). */
static atomic_uint_fast64_t own_host_bytes;

uint64_t ht__coexec_own_host_bytes(void)
{
    return atomic_load(&own_host_bytes);
}

/* Makes the host data: initial values of the inputs (the same as exec makes: the seed
 * comes from the argument's name) and room for the merged outputs. Shapes come from
 * device 0; every device must agree. */
static int host_buffers(struct ht_coexec *cx, struct ht_error *err)
{
    const struct ht_spec *spec = cx->spec;
    struct ht__hostmem_want want = {.path = HT_PATH_PAGEABLE, .spec = spec};

    /* One host copy serves every device: pinned in the first copying device's context
     * when one wants pinned memory, page-aligned when a device works in place, plain
     * otherwise (the pageable path kept for comparisons). */
    for (size_t j = 0; j < cx->n; j++) {
        const struct cxdev *d = &cx->devs[j];
        if (d->path == HT_PATH_PINNED && !want.ctx) {
            want.ctx = d->session->ctx;
            want.queue = d->session->queue;
            want.path = HT_PATH_PINNED;
        } else if (d->path == HT_PATH_INPLACE && want.path == HT_PATH_PAGEABLE) {
            want.path = HT_PATH_INPLACE;
        }
    }
    /* Made as a program makes its arrays (the decision for the memory bound): plain
     * memory at a page, or one element past malloc's alignment. */
    if (cx->opts.memory == HT_COEXEC_MEM_ALIGNED)
        want.path = HT_PATH_INPLACE;
    else if (cx->opts.memory == HT_COEXEC_MEM_UNALIGNED)
        want.path = HT_PATH_PAGEABLE;

    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *arg = &spec->args[i];
        const struct ht__hostbuf *shape = &cx->devs[0].in.shape[i];
        size_t bytes = shape->count * ht_type_size(arg->type);

        if (!arg->is_buffer)
            continue;
        for (size_t j = 1; j < cx->n; j++)
            if (memcmp(cx->devs[j].in.shape[i].dims, shape->dims, sizeof shape->dims)) {
                if (err && !err->code)
                    snprintf(err->field, sizeof err->field, "args[%zu].shape", i);
                return ht_error_set(err, HT_ESPEC,
                                    "buffer '%s' has a different shape on device %zu than "
                                    "on device %zu: the configurations must agree on it",
                                    arg->name, cx->devs[j].dev->index, cx->devs[0].dev->index);
            }
        if (arg->access == HT_ACCESS_TEMP)
            continue;
        if (cx->opts.memory == HT_COEXEC_MEM_UNALIGNED)
            cx->own_off[i] = ht_type_size(arg->type);
        if (arg->access != HT_ACCESS_WRITE) {
            struct ht__hostbuf *b = &cx->inputs[i];
            int rc;
            *b = *shape;
            memset(&b->mem, 0, sizeof b->mem);
            if (cx->opts.bind_only)
                continue; /* the caller's arrays come with ht__coexec_bind */
            want.bytes = bytes + cx->own_off[i];
            want.init = arg;
            want.offset = cx->own_off[i];
            rc = ht__hostmem_alloc(&want, &b->mem, err);
            if (rc != HT_OK)
                return rc;
            atomic_fetch_add(&own_host_bytes, want.bytes);
            b->data = (char *)b->mem.data + cx->own_off[i];
        }
        if (arg->access != HT_ACCESS_READ) {
            struct ht__hostbuf *b = &cx->outputs[i];
            int rc;
            *b = *shape;
            memset(&b->mem, 0, sizeof b->mem);
            if (cx->opts.bind_only)
                continue;
            want.bytes = bytes + cx->own_off[i];
            want.init = NULL;
            rc = ht__hostmem_alloc(&want, &b->mem, err);
            if (rc != HT_OK)
                return rc;
            atomic_fetch_add(&own_host_bytes, want.bytes);
            b->data = (char *)b->mem.data + cx->own_off[i];
        }
    }
    return HT_OK;
}

int ht__cx_make_sched(struct ht_coexec *cx, const struct ht_split_sched_opts *sopts,
                      const struct ht_split_sched_ops *ops, struct ht_split_sched **out,
                      struct ht_error *err)
{
    struct ht_split_sched_device *sd = calloc(cx->n, sizeof *sd);
    int rc;

    if (!sd)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < cx->n; i++) {
        sd[i].wg = cx->devs[i].wg * cx->devs[i].per_item;
        sd[i].time_s = cx->devs[i].time_s;
        sd[i].overhead_s = cx->devs[i].overhead_s;
        sd[i].is_gpu = cx->devs[i].dev->is_gpu;
        sd[i].compute_units = cx->devs[i].dev->compute_units;
    }
    rc = ht_split_sched_create(ops ? ops->name : NULL, cx->range_n ? cx->range_n : cx->global,
                               sd, cx->n, sopts, out, err);
    free(sd);
    return rc;
}

/* cx's scheduler becomes s, a plan of the planned scheduler's (factors, a refinement, the
 * bus plan: ht__cx_make_sched with ops NULL) replacing the one it had. */
void ht__cx_set_planned(struct ht_coexec *cx, struct ht_split_sched *s)
{
    ht_split_sched_free(cx->sched);
    cx->sched = s;
    cx->sched_ops = planner_ops();
    cx->opts.scheduler = cx->sched_ops->name;
}

/* Bytes of buffer i inside the element ranges [lo, hi) of its axes. */
static double range_bytes(const struct cxdev *d, size_t i, const uint64_t *lo,
                          const uint64_t *hi)
{
    double n = (double)ht_type_size(d->cx->spec->args[i].type);
    for (unsigned a = 0; a < d->in.shape[i].naxes; a++)
        n *= hi[a] > lo[a] ? (double)(hi[a] - lo[a]) : 0.0;
    return n;
}

/* Bytes of device d's buffers for the whole problem: inputs sliced along d, inputs sent
 * whole, outputs read back by owner, outputs read back whole (one device). With all, also the buffers d works on in place: the
 * bytes its kernel reads and writes in host memory rather than copies. */
void ht__cx_buffer_bytes(const struct cxdev *d, int all, double *sliced_in, double *whole_in,
                         double *owned_out, double *whole_out)
{
    const struct ht_spec *spec = d->cx->spec;
    uint64_t zero[3] = {0, 0, 0};

    *sliced_in = *whole_in = *owned_out = *whole_out = 0.0;
    for (size_t i = 0; i < spec->nargs; i++) {
        const struct bufmap *m = &d->maps[i];
        double b;
        if (!spec->args[i].is_buffer || (!all && d->in.host[i] && !ht__cx_shadowed(d, i)))
            continue;
        b = range_bytes(d, i, zero, d->in.shape[i].dims);
        if (m->in == IN_SLICED)
            *sliced_in += b;
        else if (m->in == IN_WHOLE)
            *whole_in += b;
        if (m->out == OUT_OWNED)
            *owned_out += b;
        else if (m->out == OUT_WHOLE)
            *whole_out += b;
    }
}

/* The bytes device d copies between host and device memory (none for what it works on in
 * place). */
void ht__cx_device_bytes(const struct cxdev *d, double *sliced_in, double *whole_in,
                         double *owned_out, double *whole_out)
{
    ht__cx_buffer_bytes(d, 0, sliced_in, whole_in, owned_out, whole_out);
}

/* The pieces of a copying device (DESIGN.md, "Moving data"): whole work-groups carrying
 * about opts.piece_bytes of sliced inputs and owned outputs, so that one piece's upload,
 * another's kernel and a third's download overlap on the two queues. */
static void plan_pieces(struct ht_coexec *cx, struct cxdev *d)
{
    uint64_t target = cx->opts.piece_bytes ? cx->opts.piece_bytes : UINT64_C(32) << 20;
    uint64_t groups;
    double sliced_in, whole_in, owned_out, whole_out, per_item;

    d->piece = 0;
    /* Pieces pay where a DMA engine moves data while the device computes. A device that
     * shares the host's memory (a CPU told to copy) gains nothing from them, and PoCL 5
     * aborts (pocl_release_dlhandle_cache) when one kernel runs on two of its queues at
     * once: it gets them only when asked for by size. */
    if (d->path == HT_PATH_INPLACE || target == UINT64_MAX || d->g == 0 ||
        (d->dev->host_unified && !cx->opts.piece_bytes))
        return;
    ht__cx_device_bytes(d, &sliced_in, &whole_in, &owned_out, &whole_out);
    per_item = (sliced_in + owned_out) / (double)d->g;
    if (per_item <= 0.0)
        return;
    groups = (uint64_t)((double)target / per_item / (double)d->wg);
    d->piece = (groups ? groups : 1) * d->wg;
}

void ht__coexec_free(struct ht_coexec *cx)
{
    if (!cx)
        return;
    ht__cx_stop_workers(cx);
    /* In-place buffers work on the host arrays, and pinned host memory is unmapped on its
     * device's queue: the buffers go first, then the host memory, then the sessions. */
    for (size_t i = 0; cx->devs && i < cx->n; i++) {
        struct cxdev *d = &cx->devs[i];
        ht__stage_free(d->stage);
        for (size_t a = 0; d->reg_in && d->reg_out && a < cx->spec->nargs; a++)
            release_reg(d, a);
        ht__inst_release(&d->in, cx->spec->nargs);
        for (size_t a = 0; d->shadow && a < cx->spec->nargs; a++)
            ht__hostmem_free(&d->shadow[a]);
        free(d->shadow);
        ht__stage_free(d->copier);
    }
    for (size_t i = 0; i < cx->spec->nargs; i++) {
        if (cx->inputs)
            ht__hostmem_free(&cx->inputs[i].mem);
        if (cx->outputs)
            ht__hostmem_free(&cx->outputs[i].mem);
        if (cx->refs)
            free(cx->refs[i].data);
    }
    for (size_t k = 0; k < cx->nallocs; k++)
        ht__hostmem_free(&cx->allocs[k].mem);
    free(cx->allocs);
    free(cx->bound);
    free(cx->share_host);
    free(cx->own_off);
    for (size_t i = 0; cx->devs && i < cx->n; i++) {
        struct cxdev *d = &cx->devs[i];
        if (d->q2)
            clReleaseCommandQueue(d->q2);
        ht_session_free(d->session);
        if (d->sub)
            clReleaseDevice(d->sub);
        free(d->config);
        free(d->maps);
        free(d->up);
        free(d->down);
        free(d->reg_in);
        free(d->reg_out);
        free(d->owned);
        free(d->events);
    }
    free(cx->inputs);
    free(cx->outputs);
    free(cx->refs);
    free(cx->devs);
    ht_split_sched_free(cx->sched);
    free(cx);
}

int ht__coexec_create(const struct ht_spec *spec, const struct ht_coexec_device *devs, size_t n,
                      const struct ht_coexec_opts *opts, struct ht_coexec **out,
                      struct ht_error *err)
{
    struct ht_coexec *cx;
    size_t na = spec->nargs ? spec->nargs : 1;
    int rc = HT_OK;

    *out = NULL;
    if (n == 0)
        return ht_error_set(err, HT_EINVAL, "no devices to co-execute on");
    rc = check_spec(spec, opts ? opts->dim : 0, opts ? opts->scheduler : NULL, n, 0,
                    opts ? opts->written : NULL, err);
    if (rc != HT_OK)
        return rc;
    cx = calloc(1, sizeof *cx);
    if (!cx)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    cx->spec = spec;
    if (opts)
        cx->opts = *opts;
    else
        ht__coexec_opts_init(&cx->opts);
    cx->opts.sched.factors = NULL; /* borrowed by the caller: only make_sched reads it */
    /* Its sessions lend their contexts and memory to the co-execution: in this process. */
    cx->opts.exec.isolate = HT_ISOLATE_OFF;
    /* check_spec found the name; NULL is the default, the planner's. */
    cx->sched_ops = cx->opts.scheduler ? ht_split_scheduler_find(cx->opts.scheduler)
                                       : planner_ops();
    cx->opts.scheduler = cx->sched_ops->name;
    cx->n = n;
    cx->devs = calloc(n, sizeof *cx->devs);
    cx->inputs = calloc(na, sizeof *cx->inputs);
    cx->outputs = calloc(na, sizeof *cx->outputs);
    cx->refs = calloc(na, sizeof *cx->refs);
    cx->bound = calloc(na, sizeof *cx->bound);
    cx->own_off = calloc(na, sizeof *cx->own_off);
    if (!cx->devs || !cx->inputs || !cx->outputs || !cx->refs || !cx->bound || !cx->own_off) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        struct cxdev *d = &cx->devs[i];
        struct ht_error e;

        d->cx = cx;
        d->index = i;
        d->dev = devs[i].dev;
        d->time_s = d->given_time_s = devs[i].time_s;
        d->overhead_s = d->given_overhead_s = devs[i].overhead_s;
        d->config = malloc((spec->space.nparams ? spec->space.nparams : 1) * sizeof *d->config);
        if (!d->config) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto fail;
        }
        if (spec->space.nparams)
            memcpy(d->config, devs[i].config, spec->space.nparams * sizeof *d->config);
        ht_error_clear(&e);
        {
            /* A build has the first evaluation's generous limit (exec.h). */
            struct ht__watch w = ht__watch_begin(d->dev, HT_TIMEOUT_FIRST_S);
            cx->probe = w.probe;
            rc = device_prepare(cx, d, &e);
            ht__watch_end(&w);
        }
        if (rc != HT_OK) {
            ht__cx_device_fail(err, d, &e);
            goto fail;
        }
    }
    /* Devices whose configurations launch different numbers of work-items along d (an
     * elements-per-work-item parameter tuned differently) share units: the least common
     * multiple of their global sizes, a work-item of device i covering L / G_i of them. */
    cx->global = 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t g = cx->devs[i].in.global[cx->opts.dim], a = cx->global, b = g, t;
        while (b) {
            t = a % b;
            a = b;
            b = t;
        }
        if (cx->global / a > (UINT64_C(1) << 53) / g) {
            rc = ht_error_set(err, HT_ESPEC,
                              "the devices' global sizes along %s have a least common multiple "
                              "above 2^53: they cannot share a split",
                              dim_name(cx->opts.dim));
            goto fail;
        }
        cx->global = cx->global / a * g;
        cx->devs[i].g = g;
    }
    for (size_t i = 0; i < n; i++)
        cx->devs[i].per_item = cx->global / cx->devs[i].g;
    for (size_t i = 0; i < n; i++)
        for (size_t a = 0; a < spec->nargs; a++)
            if (spec->args[a].is_buffer) {
                rc = map_buffer(&cx->devs[i], a,
                                opts && opts->written ? &opts->written[a] : NULL, err);
                if (rc != HT_OK)
                    goto fail;
            }
    cx->opts.written = NULL; /* borrowed for this call only */
    rc = host_buffers(cx, err);
    if (rc != HT_OK)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        struct cxdev *d = &cx->devs[i];
        struct ht_error e;
        ht_error_clear(&e);
        rc = device_buffers(cx, d, &e);
        if (rc != HT_OK) {
            ht__cx_device_fail(err, d, &e);
            goto fail;
        }
        plan_pieces(cx, d);
    }
    rc = ht__cx_make_sched(cx, opts ? &opts->sched : NULL, cx->sched_ops, &cx->sched, err);
    if (rc != HT_OK)
        goto fail;
    *out = cx;
    return HT_OK;
fail:
    ht__coexec_free(cx);
    return rc;
}

const struct ht_split_plan *ht__coexec_plan(const struct ht_coexec *cx)
{
    return ht_split_sched_plan(cx->sched);
}

int ht__coexec_set_factors(struct ht_coexec *cx, const double *factors, struct ht_error *err)
{
    struct ht_split_sched_opts o;
    struct ht_split_sched *s = NULL;
    int rc;

    memset(&o, 0, sizeof o); /* every default (split.h) */
    o.factors = factors;
    o.residue = cx->opts.sched.residue;
    rc = ht__cx_make_sched(cx, &o, NULL, &s, err);
    if (rc != HT_OK)
        return rc;
    ht__cx_set_planned(cx, s);
    return HT_OK;
}

void ht__coexec_reset_models(struct ht_coexec *cx)
{
    for (size_t i = 0; i < cx->n; i++) {
        struct cxdev *d = &cx->devs[i];
        d->time_s = d->given_time_s;
        d->overhead_s = d->given_overhead_s;
        d->seen_f = d->seen_k = 0;
    }
}

void ht__coexec_models(const struct ht_coexec *cx, double *model_s)
{
    for (size_t i = 0; i < cx->n; i++) {
        model_s[2 * i] = cx->devs[i].time_s;
        model_s[2 * i + 1] = cx->devs[i].overhead_s;
    }
}
