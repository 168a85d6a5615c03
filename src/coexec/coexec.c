/* Co-execution: one kernel on several devices at once (split.h). Each device has its own
 * exec session (context, profiling queue, binary cache), program, kernel and full-size
 * buffers; a host thread per device asks the scheduler for chunks, sends what each chunk
 * reads, launches it with a global work offset, and at the end reads back the elements it
 * owns into one host result. */
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

/* How one buffer travels for one device. */
enum in_mode {
    IN_NONE,   /* not sent (write buffers, scalars) */
    IN_WHOLE,  /* sent whole, once per run, before the device's first chunk */
    IN_SLICED  /* per chunk: the chunk's elements (plus halo) along the axes d walks */
};
enum out_mode {
    OUT_NONE,  /* not read back (read buffers, scalars) */
    OUT_OWNED, /* per chunk: its owned elements along the axes d walks */
    OUT_WHOLE  /* whole (one device only, a written buffer without an axis walked by d) */
};

struct bufmap {
    enum in_mode in;
    enum out_mode out;
    int split_axis[3];   /* 1: axis walked by the split dimension */
    uint64_t halo[3];    /* evaluated halo of each axis (0 when none) */
};

/* How a device moves a host array that hetune did not allocate (exec.h, enum
 * ht_foreign_path), one direction. */
enum xfer {
    XF_DIRECT = 0, /* clEnqueueWrite/ReadBuffer on the array itself */
    XF_STAGE,      /* through the device's staging rings (exec-internal.h, ht__stage) */
    XF_REGISTER,   /* through reg_in/reg_out, buffers over the array (CL_MEM_USE_HOST_PTR) */
    XF_PIN         /* clEnqueueWrite/ReadBuffer on the array, which reg_in/reg_out (made as
                      for XF_REGISTER, never mapped or copied) keep pinned */
};

/* An owned range of one chunk, kept until the read-back. */
struct owned {
    uint64_t lo, hi;
};

/* A command in flight on a device and what its time counts as. */
enum ev_kind { EV_WRITE, EV_READ, EV_KERNEL };
struct cxevent {
    cl_event ev;
    enum ev_kind kind;
};

struct cxdev {
    struct ht_coexec *cx;
    size_t index;
    const struct ht_device_info *dev;
    int64_t *config;
    double time_s, overhead_s;  /* the model: as given, until ht__coexec_refine */
    double given_time_s, given_overhead_s; /* as given to ht__coexec_create */
    struct ht_bandwidth bw;     /* its measured link (ht__coexec_set_bandwidth); path
                                   HT_PATH_AUTO when none */
    double seen_f, seen_k;      /* the last slice measured in a co-execution (ht__coexec_refine):
                                   its share and kernel time; 0 when none */
    struct ht_device_info sub_info; /* a CPU on fewer compute units (opts.cpu_units): the
                                   device as given, with the sub-device's id and units; dev
                                   then points here */
    cl_device_id sub;           /* that sub-device, or NULL */
    struct ht_session *session; /* context, queue, binary cache */
    enum ht_data_path path;     /* its session's data path */
    cl_command_queue q2;        /* copy paths: the second queue of the pieces, or NULL */
    uint64_t piece;             /* copy paths: work-items per piece (whole work-groups); 0:
                                   one piece per chunk */
    struct ht__inst in;         /* program, kernel, buffers, vars, shapes */
    uint64_t wg;                /* its work-group size along d, in its work-items */
    uint64_t g;                 /* its work-items along d */
    uint64_t per_item;          /* units of the split dimension per work-item: cx->global / g */
    int whole_groups;           /* its program reads group ids (ht__program_prologue): every
                                   slice starts on one of its work-groups */
    double build_s;
    int cache_hit;
    unsigned long seen_gen;     /* the last run its worker thread took part in */
    struct bufmap *maps;        /* per argument */
    size_t align;               /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes */
    size_t inplace_align;       /* the alignment at which the device works in place on a host
                                   array (wraps_in_place): align, or malloc's 16 bytes where
                                   the driver wraps such an array as it is; an array below
                                   it is worked on through a shadow */
    unsigned char *up, *down;   /* per argument: enum xfer of its inputs and outputs */
    cl_mem *reg_in, *reg_out;   /* per argument: XF_REGISTER's buffers over the host input
                                   and output arrays (one buffer, retained twice, when they
                                   are the same array), or NULL */
    struct ht__stage *stage;    /* XF_STAGE's rings, made at the first array that needs them */
    struct ht__hostmem *shadow; /* per argument: a device in place whose host array is below
                                   its base alignment works in place on this page-aligned
                                   copy instead, its slices copied in and its owned elements
                                   out by the copy threads below; else empty */
    struct ht__stage *copier;   /* the shadows' copy threads (a stage without rings) */
    /* one run */
    struct owned *owned;
    size_t nowned, cap_owned;
    struct cxevent *events;     /* commands in flight, with what their time counts as */
    size_t nevents, cap_events;
    unsigned chunks;
    uint64_t items, owned_items;
    double kernel_s, write_s, read_s, busy_s;
    int rc;
    struct ht_error err;
};

struct ht_coexec {
    const struct ht_spec *spec;
    struct ht_coexec_opts opts;
    const struct ht_split_sched_ops *sched_ops; /* sched's: what it is (static storage) */
    size_t n;
    struct cxdev *devs;
    struct ht_split_sched *sched;
    /* The host threads of devices 1..n-1, started at the first run and kept until the
     * co-execution is freed (device 0 runs on the calling thread): a run wakes them by
     * raising gen and waits until ndone of them are done. */
    pthread_t *workers;
    size_t nworkers;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    int sync_made;
    unsigned long gen;
    size_t ndone;
    int quit;
    struct ht_host_memory host;  /* the host memory's rates (ht__coexec_set_host_memory);
                                    Bps 0: not known, no floor from them */
    uint64_t global;             /* units along the split dimension: the least common
                                    multiple of the devices' global sizes along it (their
                                    common global size when they agree) */
    struct ht__hostbuf *inputs;  /* per arg: initial data of read and readwrite buffers */
    struct ht__hostbuf *outputs; /* per arg: merged written buffers */
    int have_outputs;
    struct ht__hostbuf *refs;    /* per arg: the single-device run's written buffers */
    size_t ref_device;           /* the device refs come from, when have_refs */
    int have_refs;
    double t0;                   /* start of the run being timed */
    /* Bound arrays (ht__coexec_bind): the caller's, per arg (NULL: not bound). With
     * opts.bind_only the co-execution holds no host data of its own. */
    void **bound;
    struct hostalloc *allocs;    /* ht__coexec_alloc's memory */
    size_t *own_off;             /* per arg: where its own host arrays start past their
                                    allocation (opts.memory HT_COEXEC_MEM_UNALIGNED: one
                                    element, to sit below every device's base alignment) */
    size_t nallocs, cap_allocs;
    /* A node's share of a split over MPI (ht__coexec_set_range): the scheduler hands out
     * [0, range_n) and every chunk runs range_lo further on; range_n 0: the whole. */
    uint64_t range_lo, range_n;
};

struct hostalloc {
    struct ht__hostmem mem;
};

void ht__coexec_opts_init(struct ht_coexec_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    ht__split_sched_opts_init(&opts->sched);
    ht_exec_opts_init(&opts->exec);
    opts->warmup = 1;
    opts->margin = HT_SPLIT_MARGIN_DEFAULT;
}

void ht__coexec_result_destroy(struct ht_coexec_result *res)
{
    if (!res)
        return;
    free(res->devices);
    res->devices = NULL;
    res->ndevices = 0;
}

/* Reports a device's failure as "device I (NAME): <its error>" in err, keeping the code,
 * the field and the OpenCL status. Returns the code. */
static int device_fail(struct ht_error *err, const struct cxdev *d, const struct ht_error *e)
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

/* Decides how buffer i travels for device d (splitting along dim into `units`, nd devices
 * in all). Inputs map onto the device's own work-items, outputs onto the units. w: what a
 * probe inferred for it when it has no index, or NULL. */
static int map_buffer(const struct ht_spec *spec, struct cxdev *d, size_t i, unsigned dim,
                      uint64_t units, size_t nd, const struct ht_split_written *w,
                      struct ht_error *err)
{
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

    if (ht_spec_is_pipeline(spec)) {
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
        rc = ht__split_sched_create(scheduler, 1, NULL, 0, NULL, &probe, err);
        ht__split_sched_free(probe);
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

int ht__coexec_check_spec_probing(const struct ht_spec *spec, unsigned dim,
                                  const char *scheduler, size_t n, struct ht_error *err)
{
    return check_spec(spec, dim, scheduler, n, 1, NULL, err);
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
    char *log = NULL;
    cl_kernel k = NULL;
    int rc;

    if (cx->opts.cpu_units && d->dev->is_cpu && cx->opts.cpu_units != d->dev->compute_units) {
        rc = make_subdevice(d, cx->opts.cpu_units, err);
        if (rc != HT_OK)
            return rc;
    }

    rc = ht_space_check(&spec->space, d->dev, d->config, cx->opts.exec.eq3, err);
    if (rc != HT_OK)
        return rc;
    rc = ht_session_create(spec, d->dev, &cx->opts.exec, &d->session, err);
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
    /* The same instantiation as exec's (ht__inst_prepare), so that both share the binary
     * cache and the shapes; buffers are left unwritten, as each run sends its own parts. */
    rc = ht__inst_setup(d->session, d->config, &d->in, err);
    if (rc != HT_OK)
        return rc;
    d->wg = d->in.local[0] ? d->in.local[cx->opts.dim] : 1;

    rc = ht__inst_program(d->session, d->config, &d->in, &d->build_s, &d->cache_hit, &log,
                          err);
    free(log); /* err holds the log's first error line; the rest is for ht_session_eval */
    if (rc != HT_OK)
        return rc;
    {
        char *prologue = NULL;
        if (ht__program_prologue(spec, d->in.ndims, d->in.global, &prologue) != HT_OK)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        d->whole_groups = prologue != NULL;
        free(prologue);
    }

    for (size_t i = 0; i < spec->nargs; i++) {
        if (!spec->args[i].is_buffer)
            continue;
        rc = ht__inst_shape(d->session, &d->in, i, err);
        if (rc != HT_OK)
            return rc;
    }
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
    (void)k;
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
static int shadowed(const struct cxdev *d, size_t i)
{
    return d->shadow && d->shadow[i].data && d->in.host[i] == d->shadow[i].data;
}

/* What device d's buffer i wraps in place (NULL: none, a device buffer): the host array
 * of inplace_host, or, when that array is below d's base alignment, d's shadow of it
 * (made here). Below its alignment a driver wraps a copy of its own around the array
 * (PoCL does) and copies all of it at every launch and map, elements another device owns
 * included; the shadow moves only the slices, on several threads. */
static int inplace_target(const struct ht_coexec *cx, struct cxdev *d, size_t i, void **out,
                          struct ht_error *err)
{
    void *p = inplace_host(cx, d, i);
    size_t bytes = d->in.shape[i].count * ht_type_size(cx->spec->args[i].type);
    int rc;

    *out = p;
    if (!p || (uintptr_t)p % d->inplace_align == 0)
        return HT_OK;
    if (!d->shadow[i].data) {
        rc = ht__hostmem_alloc(NULL, NULL, HT_PATH_INPLACE, bytes, &d->shadow[i], err);
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

/* Copies the elements [lo[a], hi[a]) of every axis a of buffer i between two host arrays
 * of its layout (d's copy threads for one contiguous range, row by row otherwise), adding
 * the time to *seconds. */
static void copy_rect(struct cxdev *d, size_t i, void *dst, const void *src,
                      const uint64_t *lo, const uint64_t *hi, double *seconds)
{
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
static int is_foreign(const struct ht_coexec *cx, size_t i, const void *p)
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
static int set_xfer(struct ht_coexec *cx, struct cxdev *d, size_t i, struct ht_error *err)
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
    if (is_foreign(cx, i, hin))
        d->up[i] = (unsigned char)xfer_of(cx, cx->opts.exec.foreign_up);
    if (is_foreign(cx, i, hout))
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
static int any_inplace(const struct ht_coexec *cx, size_t i)
{
    for (size_t j = 0; j < cx->n; j++)
        if (cx->devs[j].in.host[i])
            return 1;
    return 0;
}

/* Creates device d's buffers (in place over the host arrays when its path says so) and
 * its kernel with its arguments set. */
static int device_buffers(struct ht_coexec *cx, struct cxdev *d, struct ht_error *err)
{
    const struct ht_spec *spec = cx->spec;
    cl_kernel k = NULL;
    int rc;

    for (size_t i = 0; i < spec->nargs; i++) {
        if (!spec->args[i].is_buffer)
            continue;
        void *host = NULL;
        rc = inplace_target(cx, d, i, &host, err);
        if (rc == HT_OK)
            rc = ht__inst_buffer(d->session, &d->in, i, host, err);
        if (rc == HT_OK)
            rc = set_xfer(cx, d, i, err);
        if (rc != HT_OK)
            return rc;
    }
    rc = ht__inst_kernel(d->session, &d->in, spec->kernel_name, &k, err);
    if (rc != HT_OK)
        return rc;
    d->in.kernel = k;
    return HT_OK;
}

/* Makes the host data: initial values of the inputs (the same as exec makes: the seed
 * comes from the argument's name) and room for the merged outputs. Shapes come from
 * device 0; every device must agree. */
static int host_buffers(struct ht_coexec *cx, struct ht_error *err)
{
    const struct ht_spec *spec = cx->spec;
    enum ht_data_path path = HT_PATH_PAGEABLE;
    cl_context ctx = NULL;
    cl_command_queue q = NULL;

    /* One host copy serves every device: pinned in the first copying device's context
     * when one wants pinned memory, page-aligned when a device works in place, plain
     * otherwise (the pageable path kept for comparisons). */
    for (size_t j = 0; j < cx->n; j++) {
        const struct cxdev *d = &cx->devs[j];
        if (d->path == HT_PATH_PINNED && !ctx) {
            ctx = d->session->ctx;
            q = d->session->queue;
            path = HT_PATH_PINNED;
        } else if (d->path == HT_PATH_INPLACE && path == HT_PATH_PAGEABLE) {
            path = HT_PATH_INPLACE;
        }
    }
    /* Made as a program makes its arrays (the decision for the memory bound): plain
     * memory at a page, or one element past malloc's alignment. */
    if (cx->opts.memory == HT_COEXEC_MEM_ALIGNED)
        path = HT_PATH_INPLACE;
    else if (cx->opts.memory == HT_COEXEC_MEM_UNALIGNED)
        path = HT_PATH_PAGEABLE;

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
            rc = ht__hostbuf_alloc(b, ctx, q, path, bytes + cx->own_off[i], err);
            if (rc == HT_OK) {
                b->data = (char *)b->mem.data + cx->own_off[i];
                rc = ht__data_init(arg, b->data, b->count, err);
            }
            if (rc != HT_OK)
                return rc;
        }
        if (arg->access != HT_ACCESS_READ) {
            struct ht__hostbuf *b = &cx->outputs[i];
            int rc;
            *b = *shape;
            memset(&b->mem, 0, sizeof b->mem);
            if (cx->opts.bind_only)
                continue;
            rc = ht__hostbuf_alloc(b, ctx, q, path, bytes + cx->own_off[i], err);
            if (rc != HT_OK)
                return rc;
            b->data = (char *)b->mem.data + cx->own_off[i];
        }
    }
    return HT_OK;
}

static int make_sched(struct ht_coexec *cx, const struct ht_split_sched_opts *sopts,
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
    rc = ht__split_sched_create_ops(ops, cx->range_n ? cx->range_n : cx->global, sd, cx->n,
                                    sopts, out, err);
    free(sd);
    return rc;
}

/* cx's scheduler becomes s, a plan of ht__split_sched_planner's (factors, a refinement,
 * the bus plan) replacing the one it had. */
static void set_planned(struct ht_coexec *cx, struct ht_split_sched *s)
{
    ht__split_sched_free(cx->sched);
    cx->sched = s;
    cx->sched_ops = ht__split_sched_get_ops(s);
    cx->opts.scheduler = cx->sched_ops->name;
}

static double range_bytes(const struct cxdev *d, size_t i, const uint64_t *lo,
                          const uint64_t *hi);

/* Bytes of device d's buffers for the whole problem: inputs sliced along d, inputs sent
 * whole, outputs read back by owner, outputs read back whole (one device). With all, also the buffers d works on in place: the
 * bytes its kernel reads and writes in host memory rather than copies. */
static void buffer_bytes(const struct cxdev *d, int all, double *sliced_in, double *whole_in,
                         double *owned_out, double *whole_out)
{
    const struct ht_spec *spec = d->cx->spec;
    uint64_t zero[3] = {0, 0, 0};

    *sliced_in = *whole_in = *owned_out = *whole_out = 0.0;
    for (size_t i = 0; i < spec->nargs; i++) {
        const struct bufmap *m = &d->maps[i];
        double b;
        if (!spec->args[i].is_buffer || (!all && d->in.host[i] && !shadowed(d, i)))
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
static void device_bytes(const struct cxdev *d, double *sliced_in, double *whole_in,
                         double *owned_out, double *whole_out)
{
    buffer_bytes(d, 0, sliced_in, whole_in, owned_out, whole_out);
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
    device_bytes(d, &sliced_in, &whole_in, &owned_out, &whole_out);
    per_item = (sliced_in + owned_out) / (double)d->g;
    if (per_item <= 0.0)
        return;
    groups = (uint64_t)((double)target / per_item / (double)d->wg);
    d->piece = (groups ? groups : 1) * d->wg;
}

static void stop_workers(struct ht_coexec *cx);

void ht__coexec_free(struct ht_coexec *cx)
{
    if (!cx)
        return;
    stop_workers(cx);
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
            ht__hostbuf_free(&cx->inputs[i]);
        if (cx->outputs)
            ht__hostbuf_free(&cx->outputs[i]);
        if (cx->refs)
            free(cx->refs[i].data);
    }
    for (size_t k = 0; k < cx->nallocs; k++)
        ht__hostmem_free(&cx->allocs[k].mem);
    free(cx->allocs);
    free(cx->bound);
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
    ht__split_sched_free(cx->sched);
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
                                       : ht__split_sched_planner();
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
            rc = device_prepare(cx, d, &e);
            ht__watch_end(&w);
        }
        if (rc != HT_OK) {
            device_fail(err, d, &e);
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
                rc = map_buffer(spec, &cx->devs[i], a, cx->opts.dim, cx->global, n,
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
            device_fail(err, d, &e);
            goto fail;
        }
        plan_pieces(cx, d);
    }
    rc = make_sched(cx, opts ? &opts->sched : NULL, cx->sched_ops, &cx->sched, err);
    if (rc != HT_OK)
        goto fail;
    *out = cx;
    return HT_OK;
fail:
    ht__coexec_free(cx);
    return rc;
}

const struct ht_split_sched *ht__coexec_sched(const struct ht_coexec *cx)
{
    return cx->sched;
}

const struct ht_split_plan *ht__coexec_plan(const struct ht_coexec *cx)
{
    return ht__split_sched_plan(cx->sched);
}

int ht__coexec_set_factors(struct ht_coexec *cx, const double *factors, struct ht_error *err)
{
    struct ht_split_sched_opts o;
    struct ht_split_sched *s = NULL;
    int rc;

    ht__split_sched_opts_init(&o);
    o.factors = factors;
    o.residue = cx->opts.sched.residue;
    rc = make_sched(cx, &o, ht__split_sched_planner(), &s, err);
    if (rc != HT_OK)
        return rc;
    set_planned(cx, s);
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

int ht__coexec_model(const struct ht_coexec *cx, size_t i, double *time_s, double *overhead_s)
{
    if (i >= cx->n)
        return HT_EINVAL;
    *time_s = cx->devs[i].time_s;
    *overhead_s = cx->devs[i].overhead_s;
    return HT_OK;
}

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
    ht__split_sched_opts_init(&o);
    o.residue = cx->opts.sched.residue;
    rc = make_sched(cx, &o, ht__split_sched_planner(), &s, err);
    if (rc == HT_OK) {
        const struct ht_split_plan *p = ht__split_sched_plan(s);
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
        ht__split_sched_free(s);
        free(old);
        return rc != HT_OK ? rc : HT_DONE;
    }
    free(old);
    set_planned(cx, s);
    return HT_OK;
}

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

/* A rectangular transfer of the elements [lo[a], hi[a]) of every axis a of buffer i,
 * between the device buffer and the host buffer of the same layout, on queue q
 * (non-blocking; the event is kept in d->events). */
static int transfer_rect(struct cxdev *d, cl_command_queue q, size_t i, void *host,
                         const uint64_t *lo, const uint64_t *hi, int to_device,
                         struct ht_error *err)
{
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

/* The element ranges of buffer i for the range [lo, hi) of the g work-items (inputs: the
 * device's own, g = d->g) or units (owned outputs, g = cx->global) along the split
 * dimension: the axes it walks get their slice (owned: without the halo), the others stay
 * whole. */
static void slice_ranges(const struct cxdev *d, size_t i, uint64_t g, uint64_t wlo,
                         uint64_t whi, int owned, uint64_t *lo, uint64_t *hi)
{
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
static void chunk_items(const struct cxdev *d, const struct ht_split_chunk *c, uint64_t *wlo,
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
        uint64_t lo[3], hi[3];
        int rc;
        if (d->maps[i].in != mode || !spec->args[i].is_buffer ||
            (d->in.host[i] && !shadowed(d, i)))
            continue;
        if (mode == IN_SLICED)
            slice_ranges(d, i, d->g, wlo, wlo + wn, 0, lo, hi);
        else
            for (unsigned a = 0; a < 3; a++) {
                lo[a] = 0;
                hi[a] = d->in.shape[i].dims[a];
            }
        if (shadowed(d, i)) {
            /* Before the kernel is enqueued: it reads the shadow in place. */
            copy_rect(d, i, d->shadow[i].data, d->cx->inputs[i].data, lo, hi, &d->write_s);
            continue;
        }
        rc = transfer_rect(d, q, i, d->cx->inputs[i].data, lo, hi, 1, err);
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
        uint64_t lo[3], hi[3];
        int rc;
        if (d->maps[i].out != OUT_OWNED || d->in.host[i])
            continue;
        slice_ranges(d, i, d->cx->global, ulo, uhi, 1, lo, hi);
        rc = transfer_rect(d, q, i, d->cx->outputs[i].data, lo, hi, 0, err);
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
    chunk_items(d, c, &wlo, &wn);
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
        uint64_t lo[3] = {0, 0, 0}, hi[3];
        int rc;

        if (m->out == OUT_NONE)
            continue;
        if (d->in.host[i]) {
            double t = 0.0;
            rc = ht__inst_sync(q, d->in.mem[i], 0, bytes, 1, NULL, &t, err);
            d->read_s += t;
            /* On a shadow, the kernels are done: the elements it owns go to the host array,
             * and nothing else. */
            for (size_t k = 0; rc == HT_OK && shadowed(d, i) && k < d->nowned; k++) {
                uint64_t slo[3], shi[3];
                if (m->out == OUT_WHOLE) {
                    for (unsigned a = 0; a < 3; a++) {
                        slo[a] = 0;
                        shi[a] = d->in.shape[i].dims[a];
                    }
                    k = d->nowned;
                } else {
                    slice_ranges(d, i, d->cx->global, d->owned[k].lo, d->owned[k].hi, 1, slo,
                                 shi);
                }
                copy_rect(d, i, d->cx->outputs[i].data, d->shadow[i].data, slo, shi,
                          &d->read_s);
            }
        } else if (m->out == OUT_WHOLE) {
            for (unsigned a = 0; a < 3; a++)
                hi[a] = d->in.shape[i].dims[a];
            rc = transfer_rect(d, q, i, d->cx->outputs[i].data, lo, hi, 0, err);
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

    while (ht__split_sched_next(cx->sched, d->index, &c) == HT_OK) {
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
        if (rc == HT_OK && c.offset > 0 && ht__watch_inject(d->dev))
            rc = ht_error_set(&d->err, HT_ELAUNCH, "clFinish: CL_OUT_OF_RESOURCES (injected "
                              "by HETUNE_TEST_SLICE_FAIL)");
        if (rc == HT_OK && remember_owned(d, c.own_offset, c.own_offset + c.own_size) != HT_OK)
            rc = ht_error_set(&d->err, HT_ENOMEM, "out of memory");
        if (rc != HT_OK)
            break;
        d->chunks++;
        d->items += c.size;
        d->owned_items += c.own_size;
        ht__split_sched_report(cx->sched, d->index, &sc, ht__now() - t);
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
        if (arg->access == HT_ACCESS_READWRITE && any_inplace(cx, i))
            memcpy(cx->outputs[i].data, cx->inputs[i].data,
                   cx->outputs[i].count * ht_type_size(arg->type));
        else if (arg->access != HT_ACCESS_READ && arg->access != HT_ACCESS_TEMP)
            ht__poison_fill(arg->type, cx->outputs[i].data, cx->outputs[i].count);
        for (size_t j = 0; j < cx->n; j++) {
            struct cxdev *d = &cx->devs[j];
            int rc;
            /* A shadow holds only what was copied in, as a copied device's buffer. */
            if (shadowed(d, i))
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
static void stop_workers(struct ht_coexec *cx)
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
    ht__split_sched_reset(cx->sched);
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
    for (size_t j = 0; cx->n > 1 && ht__watch_probe() && j < cx->n; j++) {
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
            return device_fail(err, &cx->devs[j], &cx->devs[j].err);
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
static int run_many(struct ht_coexec *cx, struct ht_coexec_result *res, unsigned warmup,
                    unsigned repeats, unsigned keep, int do_poison, struct ht_error *err)
{
    const struct ht_split_plan *plan = ht__split_sched_plan(cx->sched);
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
    snprintf(res->scheduler, sizeof res->scheduler, "%s", ht__split_sched_get_ops(cx->sched)->name);
    if (plan) {
        res->theoretical_s = plan->theoretical_time_s;
        res->adjusted_s = plan->adjusted_time_s;
        res->model_s = plan->model_time_s;
    }
    res->ndevices = cx->n;
    res->devices = calloc(cx->n, sizeof *res->devices);
    per = calloc((size_t)repeats * cx->n * NPER, sizeof *per);
    order = calloc(repeats, sizeof *order);
    if (!res->devices || !per || !order) {
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

    if (cx->opts.bind_only) {
        memset(res, 0, sizeof *res);
        return ht_error_set(err, HT_EINVAL,
                            "a co-execution made for bound arrays (ht_coexec_opts.bind_only) "
                            "runs through ht_runtime_launch");
    }
    return run_many(cx, res, cx->opts.warmup, repeats, keep, 1, err);
}

int ht__coexec_run_once(struct ht_coexec *cx, struct ht_coexec_result *res,
                        struct ht_error *err)
{
    return run_many(cx, res, 0, 1, 1, 0, err);
}

/* --- the caller's arrays (the runtime) --- */

/* Points the host arrays of buffer i at data (NULL: back to the co-execution's own) and
 * re-creates the buffers of the devices that work on it in place. */
static int rebind(struct ht_coexec *cx, size_t i, void *data, struct ht_error *err)
{
    const struct ht_arg *arg = &cx->spec->args[i];

    if (arg->access != HT_ACCESS_WRITE)
        cx->inputs[i].data = data                    ? data
                             : cx->inputs[i].mem.data ? (char *)cx->inputs[i].mem.data +
                                                           cx->own_off[i]
                                                     : NULL;
    if (arg->access != HT_ACCESS_READ)
        cx->outputs[i].data = data                     ? data
                              : cx->outputs[i].mem.data ? (char *)cx->outputs[i].mem.data +
                                                             cx->own_off[i]
                                                       : NULL;
    cx->bound[i] = data;
    for (size_t j = 0; j < cx->n; j++) {
        struct cxdev *d = &cx->devs[j];
        void *host = NULL;
        struct ht_error e;
        int rc;
        ht_error_clear(&e);
        rc = inplace_target(cx, d, i, &host, &e);
        if (rc == HT_OK && (d->in.host[i] || host)) {
            /* Unbound with no memory of its own (host NULL): a device buffer until bound
             * again. */
            rc = ht__inst_buffer(d->session, &d->in, i, host, &e);
            if (rc == HT_OK)
                rc = ht__inst_set_args(d->session, &d->in, d->in.kernel, NULL,
                                       cx->spec->nargs, &e);
        }
        if (rc == HT_OK)
            rc = set_xfer(cx, d, i, &e);
        if (rc != HT_OK)
            return device_fail(err, d, &e);
        /* A shadow no buffer wraps any more (its buffer was made again above). */
        if (d->shadow[i].data && !shadowed(d, i))
            ht__hostmem_free(&d->shadow[i]);
    }
    return HT_OK;
}

int ht__coexec_bind(struct ht_coexec *cx, size_t arg, void *data, size_t bytes,
                    struct ht_error *err)
{
    const struct ht_spec *spec = cx->spec;
    const struct ht_arg *a;
    size_t want;

    if (arg >= spec->nargs || !spec->args[arg].is_buffer ||
        spec->args[arg].access == HT_ACCESS_TEMP) {
        if (err && !err->code)
            snprintf(err->field, sizeof err->field, "args[%zu]", arg);
        return ht_error_set(err, HT_EINVAL, "argument %zu of '%s' is not a buffer to bind", arg,
                            spec->name);
    }
    a = &spec->args[arg];
    if (!data)
        return ht_error_set(err, HT_EINVAL, "buffer '%s': no memory given (NULL)", a->name);
    want = cx->devs[0].in.shape[arg].count * ht_type_size(a->type);
    if (bytes != want)
        return ht_error_set(err, HT_EINVAL,
                            "buffer '%s' holds %zu bytes (%zu elements of %zu bytes), not %zu",
                            a->name, want, (size_t)cx->devs[0].in.shape[arg].count,
                            ht_type_size(a->type), bytes);
    if (a->access == HT_ACCESS_READWRITE && cx->n > 1)
        for (size_t j = 0; j < cx->n; j++)
            for (unsigned x = 0; x < 3; x++)
                if (cx->devs[j].maps[arg].split_axis[x] && cx->devs[j].maps[arg].halo[x])
                    return ht_error_set(err, HT_ESPEC,
                                        "readwrite buffer '%s' has a halo along the split "
                                        "dimension: a device would read what another writes "
                                        "in the same array",
                                        a->name);
    if (cx->bound[arg] == data)
        return HT_OK;
    return rebind(cx, arg, data, err);
}

int ht__coexec_launch(struct ht_coexec *cx, struct ht_coexec_result *res, struct ht_error *err)
{
    struct ht_coexec_result local;
    int rc;

    for (size_t i = 0; i < cx->spec->nargs; i++) {
        const struct ht_arg *a = &cx->spec->args[i];
        if (a->is_buffer && a->access != HT_ACCESS_TEMP && !cx->bound[i]) {
            if (err && !err->code)
                snprintf(err->field, sizeof err->field, "args[%zu]", i);
            if (res)
                memset(res, 0, sizeof *res);
            return ht_error_set(err, HT_EINVAL, "buffer '%s' is not bound", a->name);
        }
    }
    rc = run_many(cx, res ? res : &local, 0, 1, 1, 0, err);
    if (!res)
        ht__coexec_result_destroy(&local);
    return rc;
}

const char *ht_coexec_memory_name(enum ht_coexec_memory m)
{
    static const char *const names[] = {"own", "aligned", "unaligned"};
    return (unsigned)m < sizeof names / sizeof names[0] ? names[m] : NULL;
}

enum ht_coexec_memory ht__coexec_memory_bound(const struct ht_coexec *cx)
{
    enum ht_coexec_memory kind = HT_COEXEC_MEM_OWN;

    for (size_t i = 0; i < cx->spec->nargs; i++) {
        const struct ht_arg *arg = &cx->spec->args[i];
        const void *p = arg->access != HT_ACCESS_WRITE ? cx->inputs[i].data : cx->outputs[i].data;
        if (!arg->is_buffer || arg->access == HT_ACCESS_TEMP || !is_foreign(cx, i, p))
            continue;
        if (kind == HT_COEXEC_MEM_OWN)
            kind = HT_COEXEC_MEM_ALIGNED;
        /* Alignment matters where a device would work in place; a device copied to
         * stages any alignment alike. */
        for (size_t j = 0; j < cx->n; j++)
            if (cx->devs[j].path == HT_PATH_INPLACE && (uintptr_t)p % cx->devs[j].inplace_align)
                kind = HT_COEXEC_MEM_UNALIGNED;
    }
    return kind;
}

void *ht__coexec_alloc(struct ht_coexec *cx, size_t bytes, struct ht_error *err)
{
    cl_context ctx = NULL;
    cl_command_queue q = NULL;
    enum ht_data_path path = HT_PATH_INPLACE;
    struct ht__hostmem m;

    for (size_t j = 0; j < cx->n && !ctx; j++)
        if (cx->devs[j].path == HT_PATH_PINNED) {
            ctx = cx->devs[j].session->ctx;
            q = cx->devs[j].session->queue;
            path = HT_PATH_PINNED;
        }
    if (cx->nallocs == cx->cap_allocs) {
        size_t cap = cx->cap_allocs ? 2 * cx->cap_allocs : 8;
        struct hostalloc *grown = realloc(cx->allocs, cap * sizeof *grown);
        if (!grown) {
            ht_error_set(err, HT_ENOMEM, "out of memory");
            return NULL;
        }
        cx->allocs = grown;
        cx->cap_allocs = cap;
    }
    if (ht__hostmem_alloc(ctx, q, path, bytes, &m, err) != HT_OK)
        return NULL;
    cx->allocs[cx->nallocs++].mem = m;
    return m.data;
}

int ht__coexec_adopt_host(struct ht_coexec *to, struct ht_coexec *from, struct ht_error *err)
{
    if (!from || from == to || from->nallocs == 0)
        return HT_OK;
    if (to->nallocs + from->nallocs > to->cap_allocs) {
        size_t cap = to->nallocs + from->nallocs;
        struct hostalloc *grown = realloc(to->allocs, cap * sizeof *grown);
        if (!grown)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        to->allocs = grown;
        to->cap_allocs = cap;
    }
    memcpy(to->allocs + to->nallocs, from->allocs, from->nallocs * sizeof *from->allocs);
    to->nallocs += from->nallocs;
    /* from's buffers may still wrap them in place: unbind there, without freeing. */
    for (size_t k = 0; k < from->nallocs; k++)
        for (size_t i = 0; i < from->spec->nargs; i++)
            if (from->bound[i] == from->allocs[k].mem.data)
                rebind(from, i, NULL, NULL);
    from->nallocs = 0;
    return HT_OK;
}

void ht__coexec_free_host(struct ht_coexec *cx, void *data)
{
    if (!data)
        return;
    for (size_t k = 0; k < cx->nallocs; k++) {
        if (cx->allocs[k].mem.data != data)
            continue;
        for (size_t i = 0; i < cx->spec->nargs; i++)
            if (cx->bound[i] == data)
                rebind(cx, i, NULL, NULL);
        ht__hostmem_free(&cx->allocs[k].mem);
        cx->allocs[k] = cx->allocs[--cx->nallocs];
        return;
    }
}

/* Runs device ref alone once through an exec session and keeps its written buffers in
 * cx->refs. */
static int reference_run(struct ht_coexec *cx, size_t ref, struct ht_error *err)
{
    const struct ht_spec *spec = cx->spec;
    const struct cxdev *d = &cx->devs[ref];
    struct ht_spec once;
    struct ht_session *s = NULL;
    struct ht_eval_result *ev = NULL;
    struct ht_error e;
    int rc;

    cx->have_refs = 0;
    /* One run is enough for outputs: a copy of the spec that repeats once. It shares every
     * pointer with spec, which outlives it; the session only reads it. */
    once = *spec;
    once.repeats = 1;
    once.keep_best = 1;
    ev = calloc(1, sizeof *ev);
    if (!ev)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    ht_error_clear(&e);
    rc = ht_session_create(&once, d->dev, &cx->opts.exec, &s, &e);
    if (rc == HT_OK)
        rc = ht_session_eval(s, d->config, ev, &e);
    if (rc != HT_OK) {
        if (err && !err->code) {
            err->cl_status = e.cl_status;
            snprintf(err->field, sizeof err->field, "%s", e.field);
        }
        ht_error_set(err, rc, "single-device run on device %zu (%s): %s", d->dev->index,
                     d->dev->name, e.text);
        goto cleanup;
    }
    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *arg = &spec->args[i];
        struct ht__hostbuf *r = &cx->refs[i];
        size_t bytes;
        if (!arg->is_buffer || arg->access == HT_ACCESS_READ)
            continue;
        bytes = s->outputs[i].count * ht_type_size(arg->type);
        free(r->data);
        *r = s->outputs[i];
        memset(&r->mem, 0, sizeof r->mem); /* refs are plain memory of their own */
        r->data = malloc(bytes ? bytes : 1);
        if (!r->data) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
        memcpy(r->data, s->outputs[i].data, bytes);
    }
    cx->have_refs = 1;
    cx->ref_device = ref;
cleanup:
    if (ev)
        ht_eval_result_destroy(ev);
    free(ev);
    ht_session_free(s);
    return rc;
}

int ht__coexec_verify(struct ht_coexec *cx, size_t ref, struct ht_coexec_result *res,
                      struct ht_error *err)
{
    const struct ht_spec *spec = cx->spec;
    struct ht__cmp c;
    int rc;

    res->verified = -1;
    if (cx->opts.exec.no_verify)
        return HT_OK;
    if (!cx->have_outputs)
        return ht_error_set(err, HT_EINVAL, "nothing to verify: no co-execution ran");
    if (ref >= cx->n)
        return ht_error_set(err, HT_EINVAL, "reference device %zu out of range", ref);
    /* The single-device outputs do not change between runs (the inputs are fixed): a
     * sweep verifies every point against one reference run. */
    if (!cx->have_refs || cx->ref_device != ref) {
        rc = reference_run(cx, ref, err);
        if (rc != HT_OK)
            return rc;
    }
    snprintf(res->reference, sizeof res->reference,
             "one run of device %zu (%s) alone at its configuration",
             cx->devs[ref].dev->index, cx->devs[ref].dev->name);
    /* A co-executed spec is no pipeline, so it has no temp buffers to leave out. */
    ht__compare_outputs(spec, cx->outputs, cx->refs, &c);
    res->verified = c.mismatches == 0;
    res->max_abs_err = c.max_abs;
    res->max_rel_err = c.max_rel;
    res->mismatches = c.mismatches;
    snprintf(res->mismatch, sizeof res->mismatch, "%s", c.first);
    if (c.mismatches)
        return ht_error_set(err, HT_EVERIFY,
                            "merged output differs from the single-device run: %zu of %zu "
                            "elements; first %s",
                            c.mismatches, c.compared, c.first);
    return HT_OK;
}

int ht__coexec_dump(const struct ht_coexec *cx, const char *dir, struct ht_error *err)
{
    if (!cx->have_outputs)
        return ht_error_set(err, HT_EINVAL, "no outputs to dump: no co-execution ran");
    return ht__dump_outputs(cx->spec, cx->outputs, dir, err);
}

const void *ht__coexec_output(const struct ht_coexec *cx, size_t arg, size_t *count)
{
    if (!cx->have_outputs || arg >= cx->spec->nargs || !cx->outputs[arg].data)
        return NULL;
    if (count)
        *count = cx->outputs[arg].count;
    return cx->outputs[arg].data;
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
    buffer_bytes(d, 1, &sin, &win, &oout, &wout);
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
        device_bytes(d, &sin, &win, &oout, &wout);
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
    const struct ht_split_plan *paper = ht__split_sched_plan(cx->sched);
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
     * split, so without shared_Bps the time is only shown. */
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
            out->split_s = fmax(out->split_s, out->host_s);
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
    out->check = !dec.split && cx->n > 1 && out->split_s < dec.alone_s;
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
        ht__split_sched_opts_init(&o);
        o.residue = bus_residue(cx->opts.sched.residue);
        rc = make_sched(cx, &o, ht__split_sched_planner(), &s, err);
        if (rc == HT_OK) {
            set_planned(cx, s);
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
    rc = make_sched(cx, &cx->opts.sched, cx->sched_ops, &s, err);
    if (rc != HT_OK) {
        cx->range_lo = old_lo;
        cx->range_n = old_n;
        return rc;
    }
    ht__split_sched_free(cx->sched);
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

int ht__coexec_repin(struct ht_coexec *cx, struct ht_error *err)
{
    int first = HT_OK;

    for (size_t j = 0; j < cx->n; j++) {
        struct cxdev *d = &cx->devs[j];
        for (size_t i = 0; i < cx->spec->nargs; i++) {
            struct ht_error e;
            int rc;
            if (!d->reg_in[i] && !d->reg_out[i])
                continue;
            ht_error_clear(&e);
            rc = set_xfer(cx, d, i, &e);
            if (rc != HT_OK && first == HT_OK)
                first = device_fail(err, d, &e);
        }
    }
    return first;
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
    uint64_t lo[3], hi[3];

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
            slice_ranges(d0, i, cx->global, ulo, uhi, 1, lo, hi);
            s->lo = lo[s->axis];
            s->hi = hi[s->axis];
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
        chunk_items(d, &c, &wlo, &wn);
        slice_ranges(d, i, d->g, wlo, wlo + wn, 0, lo, hi);
        if (j == 0 || lo[s->axis] < s->lo)
            s->lo = lo[s->axis];
        if (j == 0 || hi[s->axis] > s->hi)
            s->hi = hi[s->axis];
    }
    return HT_OK;
}
