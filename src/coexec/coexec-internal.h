/* Internal interface of the coexec module (src/coexec/), shared by its files:
 *   coexec.c    the handle made and freed: the spec's checks, each device's context,
 *               sub-device, program and buffers, how each buffer travels, the host
 *               data, the scheduler and its plan
 *   chunks.c    the chunk engine: a host thread per device, chunks sent, launched and
 *               read back; the runs (warm-up, poisoning, the timed runs)
 *   bind.c      the caller's arrays: bind, host memory, launch, pinned again
 *   outputs.c   the merged outputs against a device alone; dump, read
 *   estimate.c  the bus models, the estimate of split against alone, the bus plan, and
 *               refinement from a measured run
 *   share.c     a node's share of a split over MPI (src/mpi/split.c)
 *   ranges.c    which elements of a buffer a range of work-items reads or owns, and
 *               which work-items a chunk of units needs
 *   probe.c     inferring what a kernel without "index" writes (ht_split_probe)
 *   written.c   the one inference of written buffers without "index", kept in the store
 *   decide.c    the one split-or-alone decision
 * What other modules use of it is its door, coexec/coexec.h, which this header includes.
 */
#ifndef HETUNE_COEXEC_INTERNAL_H
#define HETUNE_COEXEC_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "hetune/coexec.h"
#include "coexec/coexec.h" /* coexec's door: what the workflow, runtime and MPI drive */
#include "exec/engine.h"   /* exec's door: sessions, instances, host memory, staging */

/* --- the co-execution handle's insides, shared by coexec.c, chunks.c, bind.c, outputs.c,
 * estimate.c and share.c --- */

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
    XF_STAGE,      /* through the device's staging rings (stage.c, ht__stage below) */
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
    int probe;                   /* a supervisor's probe: each device's part alone before
                                    each run (the watch's probe, read at create) */
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
    void **share_host;           /* spec->nargs: the host arrays a run of a node's share
                                    hands its moves (made by ht__coexec_share: not NULL
                                    once cx is a share, share) */
    struct ht__share_of share;   /* ht__coexec_share's of: how its runs go, its moves */
    unsigned share_runs;         /* runs of the share since it was taken */
};

struct hostalloc {
    struct ht__hostmem mem;
};


/* The elements [*lo, *hi) of an axis of `shape` elements that the work-items [wlo, whi)
 * of an NDRange of `global` work-items along the axis's dimension touch, `halo` more
 * elements read past the last (see coexec.h, "Data"): returns 1 and sets them, clipped
 * to the axis, when the axis maps evenly onto the work-items, else 0 (the axis is needed whole).
 * With owned = 1 (written buffers) the halo is not counted and only e = shape / global is
 * tried. */
int ht__split_axis_range(uint64_t shape, uint64_t global, uint64_t halo, uint64_t wlo,
                         uint64_t whi, int owned, uint64_t *lo, uint64_t *hi);

/* The work-items [*wlo, *wlo + *wn) of a device with g work-items along the split
 * dimension, per_item units each (see coexec.h, Units), that cover the units [offset,
 * offset + size): from the work-item holding the first unit to the one holding the last,
 * rounded up to whole work-groups of wg, moved back to end at g when that overshoots (as
 * the planner's residue device). Needs wg to divide g and the units to lie in
 * [0, g * per_item). With one unit per work-item and a chunk of whole work-groups this is
 * the chunk itself. */
void ht__split_chunk_items(uint64_t offset, uint64_t size, uint64_t per_item, uint64_t wg,
                           uint64_t g, uint64_t *wlo, uint64_t *wn);

/* --- (probe.c) inferring what a kernel writes, see coexec.h --- */

/* One probed run: the work-items [wlo, whi) along the split dimension, and one byte per
 * element of the buffer (row-major), non-zero where the run wrote it. */
struct ht__probe_run {
    uint64_t wlo, whi;
    const uint8_t *written;
};

/* Infers the slab that explains the writes of runs[0] and runs[1], both of which it must
 * fit (see coexec.h, "inferring what a kernel writes"), whole being the mask of a run over
 * all the global work-items; among several axes that fit, the one with the least halo
 * (the first among equals). naxes (1..3) and dims give the buffer's shape. Pure. Returns HT_OK
 * and fills *out (inferred = 1), or HT_ENOTFOUND with why (NUL-terminated, at most
 * why_size bytes) saying what runs[0] wrote, in the words of the refusal: "the probe's
 * slice [24, 48) along gy wrote 37 elements scattered over 12 rows of 'c' ...", name
 * being the buffer's name and dim the split dimension. */
int ht__split_infer_slab(unsigned naxes, const uint64_t *dims, uint64_t global,
                         const struct ht__probe_run runs[2], const uint8_t *whole,
                         const char *name, unsigned dim, struct ht_split_written *out,
                         char *why, size_t why_size);

/* --- the handle's functions that only coexec's own files call (the door, coexec/coexec.h,
 * holds what other modules call) --- */

/* Checks what can be checked of a co-execution of spec on n devices along dim with the
 * scheduler called scheduler (NULL: static) before any device is tuned or opened: the
 * spec is no pipeline (HT_ESPEC, err->field "pipeline"), dim is one of its NDRange's
 * (HT_EINVAL), the scheduler exists (HT_EINVAL), and with n > 1 every written buffer has
 * an `index` with an axis walked by dim (HT_ESPEC, err->field "args[i].index", err->file
 * the spec). ht__coexec_create checks the same, and what needs configurations (sizes that
 * are not multiples, halos). */
int ht__coexec_check_spec(const struct ht_spec *spec, unsigned dim, const char *scheduler,
                          size_t n, struct ht_error *err);

/* The shape of buffer argument arg as made for device 0 (every device agrees): its axes
 * and their lengths (1 past naxes). HT_EINVAL when arg is not a buffer. */
int ht__coexec_shape(const struct ht_coexec *cx, size_t arg, unsigned *naxes,
                     uint64_t dims[3]);

/* The merged host copy of argument arg after the last run: its data (borrowed, valid until
 * the next run or free) and element count; NULL when arg is not a written buffer or
 * nothing ran yet. */
const void *ht__coexec_output(const struct ht_coexec *cx, size_t arg, size_t *count);

/* Each device's bus model (ht_split_bus) from its measurements alone (alone[i] for device
 * i) and the bytes the co-execution moves (ht__coexec_create knows them): K its kernel
 * time alone; for a device that copies (not in place), X the seconds its sliced inputs
 * and owned outputs take for the whole problem and F those of the inputs every slice needs
 * whole, at the rates ht__coexec_set_bandwidth gave for it, else split from its transfers
 * measured alone in proportion to the bytes; overlap when it moves its slice in more than
 * one piece, the uploads and downloads then going both ways of the link at once (X is the
 * longer direction, or half of upload + kernel + download: two queues, whichever is
 * longer); and what it spent alone beyond that (launches, its host thread, an overlap less
 * perfect than the model's: wall − the model's busy time) as a further fixed cost, or, where
 * the model is above the wall, its share-proportional part scaled down to it, so that each
 * model's time for the whole problem is the wall time measured alone. A device not
 * measured (wall_s exactly 0, kernel_s its tuned kernel time) keeps the model as it is:
 * its kernel time plus its transfers at its stored link's rates. out[i] receives device
 * i's affine model (ht_split_bus_model). HT_EINVAL when an alone time is neither positive
 * and finite nor such an unmeasured one. */
int ht__coexec_bus_models(const struct ht_coexec *cx, const struct ht_coexec_alone *alone,
                          struct ht_split_device_in *out, struct ht_error *err);

/* Predicts the co-execution from each device's measurements alone: the bus models
 * (ht__coexec_bus_models), the transfer-aware bound, the plan they make (ht_split_plan_make
 * with the co-execution's residue rule, except that the paper's rule by work becomes
 * HT_SPLIT_RESIDUE_GROUPS: the paper's rule can give a CPU far slower than a GPU the
 * residue rows; its model time is split_s) and the paper's plan
 * under the same models, and the decision (ht_split_decide, opts.margin). Errors as
 * ht__coexec_bus_models; HT_ENOMEM. */
int ht__coexec_estimate(const struct ht_coexec *cx, const struct ht_coexec_alone *alone,
                        struct ht_coexec_estimate *out, struct ht_error *err);

/* Replaces the scheduler with static planned from the bus models (the plan whose time
 * ht__coexec_estimate predicts): each device's model becomes its bus model, as
 * ht__coexec_refine's do (ht__coexec_reset_models gives the tuned ones back). Errors as
 * ht__coexec_bus_models and ht_split_sched_create. */
int ht__coexec_plan_bus(struct ht_coexec *cx, const struct ht_coexec_alone *alone,
                        struct ht_error *err);

/* --- helpers shared between the files (ht__cx_: coexec's own, never outside it) --- */

/* (coexec.c) */

/* Whether some device works on buffer i in place. */
int ht__cx_any_inplace(const struct ht_coexec *cx, size_t i);

/* Bytes of device d's buffers for the whole problem: inputs sliced along d, inputs sent whole,
 * outputs read back by owner, outputs read back whole (one device). With all, also the buffers
 * d works on in place: the bytes its kernel reads and writes in host memory rather than copies. */
void ht__cx_buffer_bytes(const struct cxdev *d, int all, double *sliced_in, double *whole_in,
                         double *owned_out, double *whole_out);

/* A box of a buffer: the elements [lo[a], hi[a]) of each axis a. */
struct ht__box {
    uint64_t lo[3], hi[3];
};

/* Copies the elements of box r of buffer i between two host arrays of its layout (d's copy
 * threads for one contiguous range, row by row otherwise), adding the time to *seconds. */
void ht__cx_copy_rect(struct cxdev *d, size_t i, void *dst, const void *src,
                      const struct ht__box *r, double *seconds);

/* The bytes device d copies between host and device memory (none for what it works on in
 * place). */
void ht__cx_device_bytes(const struct cxdev *d, double *sliced_in, double *whole_in,
                         double *owned_out, double *whole_out);

/* Reports a device's failure as "device I (NAME): <its error>" in err, keeping the code,
 * the field and the OpenCL status. Returns the code. */
int ht__cx_device_fail(struct ht_error *err, const struct cxdev *d, const struct ht_error *e);

/* What device d's buffer i wraps in place (NULL: none, a device buffer): the host array
 * of inplace_host, or, when that array is below d's base alignment, d's shadow of it
 * (made here). Below its alignment a driver wraps a copy of its own around the array
 * (PoCL does) and copies all of it at every launch and map, elements another device owns
 * included; the shadow moves only the slices, on several threads. */
int ht__cx_inplace_target(const struct ht_coexec *cx, struct cxdev *d, size_t i, void **out,
                          struct ht_error *err);

/* Whether p, the host array of buffer i, is memory hetune did not allocate: a bound array
 * that is not ht__coexec_alloc's, or the co-execution's own data made as a program's memory
 * (opts.memory). */
int ht__cx_is_foreign(const struct ht_coexec *cx, size_t i, const void *p);

/* Makes a scheduler of ops (NULL: the planned scheduler, split's "static") for cx's devices
 * (their current models, cx's range when a node's share is set) with sopts into *out.
 * Errors as ht_split_sched_create. */
int ht__cx_make_sched(struct ht_coexec *cx, const struct ht_split_sched_opts *sopts,
                      const struct ht_split_sched_ops *ops, struct ht_split_sched **out,
                      struct ht_error *err);

/* cx's scheduler becomes s, a plan of the planned scheduler's (factors, a refinement, the
 * bus plan: ht__cx_make_sched with ops NULL) replacing the one it had. */
void ht__cx_set_planned(struct ht_coexec *cx, struct ht_split_sched *s);

/* Decides how device d moves buffer i's host arrays (d->up, d->down; exec.h, enum
 * ht_foreign_path) and makes what that needs: a copied device (HT_PATH_PINNED) moves
 * memory hetune did not allocate as opts.exec.foreign_up and foreign_down say; everything
 * else goes directly. Call it whenever the arrays or d's buffer change. */
int ht__cx_set_xfer(struct ht_coexec *cx, struct cxdev *d, size_t i, struct ht_error *err);

/* Whether device d works on buffer i in place on its shadow (see struct cxdev). */
int ht__cx_shadowed(const struct cxdev *d, size_t i);

/* (chunks.c) */

/* Stops and joins cx's worker threads (ht__coexec_free). */
void ht__cx_stop_workers(struct ht_coexec *cx);

/* The work-items device d launches for chunk c (in units): see ht__split_chunk_items. */
void ht__cx_chunk_items(const struct cxdev *d, const struct ht_split_chunk *c, uint64_t *wlo,
                        uint64_t *wn);

/* warmup untimed and repeats timed co-executions (poisoned first by the harness, not on
 * bound arrays), into res: the mean of the best keep. */
int ht__cx_run_many(struct ht_coexec *cx, struct ht_coexec_result *res, unsigned warmup,
                    unsigned repeats, unsigned keep, int do_poison, struct ht_error *err);

/* The box of buffer i for the range [wlo, whi) of the g work-items (inputs: the device's
 * own, g = d->g) or units (owned outputs, g = cx->global) along the split dimension: the
 * axes it walks get their slice (owned: without the halo), the others stay whole. */
void ht__cx_slice_ranges(const struct cxdev *d, size_t i, uint64_t g, uint64_t wlo,
                         uint64_t whi, int owned, struct ht__box *out);

/* --- the handle's steps that only coexec's own files call: the door's coarser calls
 * (ht__coexec_check, ht__coexec_rounds, ht__decide, ht__coexec_share,
 * ht__coexec_launch) make them in the order the workflow, the
 * runtime and MPI's nodes made them before --- */

/* (decide.c) Runs d alone at its configuration with the co-execution's wall clock
 * (base's options, the static scheduler) and fills d->alone: on on's arrays, bound to it
 * (base->bind_only set), else (on NULL) on host data of its own. On success *cx
 * (ht__coexec_free) and *res (ht_coexec_result_destroy) are the caller's; on failure
 * *cx is NULL and *res is still the caller's to destroy. Errors as ht__coexec_create,
 * ht__coexec_bind and ht__coexec_run. */
int ht__coexec_measure_alone(const struct ht_spec *spec, struct ht_workflow_device *d,
                             const struct ht_coexec_opts *base, const struct ht__handover *on,
                             struct ht_coexec **cx, struct ht_coexec_result *res,
                             struct ht_error *err);

/* (coexec.c) Bytes of host data the process's co-executions made of their own so far
 * (inputs and outputs; none with opts.bind_only): the tests' measure of what a decision
 * on a program's arrays still makes. */
uint64_t ht__coexec_own_host_bytes(void);

/* (coexec.c) 1 when dev is a CPU device that clCreateSubDevices can partition (by counts
 * or equally), with *max_sub its CL_DEVICE_PARTITION_MAX_SUB_DEVICES; else 0. */
int ht__device_partitionable(const struct ht_device_info *dev, unsigned *max_sub,
                             int *by_counts, int *equally);

/* The paper's plan of the co-execution, when known. Borrowed, valid until the next
 * ht__coexec_set_factors or ht__coexec_free. */
const struct ht_split_plan *ht__coexec_plan(const struct ht_coexec *cx);

/* (coexec.c) Writes cx's devices' current time models into model_s, 2 each, as
 * ht__decision.model_s: the time for the whole problem and the overhead (both as given to
 * ht__coexec_create, until ht__coexec_refine changes them). */
void ht__coexec_models(const struct ht_coexec *cx, double *model_s);

/* (outputs.c) Copies plan src into *dst (slices allocated: ht_split_plan_destroy); src
 * NULL: *dst zeroed. HT_ENOMEM, *dst zeroed. */
int ht__coexec_plan_copy(struct ht_split_plan *dst, const struct ht_split_plan *src,
                         struct ht_error *err);

/* (bind.c) Makes again every buffer kept over a caller's array (foreign paths register
 * and pin) on every device of cx, for the runtime (src/runtime/runtime.c) once an older
 * co-execution over the same arrays is freed: NVIDIA's driver unpins host memory when any
 * buffer made over it is released, whatever other buffers over it, in any context, stay
 * (bench/gpu/rereg.c on the H200 machine: 55 GB/s before, 7.9 up and 13.5 down after), so
 * the new co-execution's copies ran at the pageable rate. A buffer that cannot be made
 * again leaves its array moved directly (slower, never wrong); that device's error is
 * returned after the others are done. */
int ht__coexec_repin(struct ht_coexec *cx, struct ht_error *err);

/* Makes cx co-execute only the units [offset, offset + size) of its split dimension: the
 * scheduler is made again (with the devices' current models) over size units and every
 * chunk runs offset further on. The host arrays stay whole; only the range's elements
 * are computed and read back. HT_EINVAL when the range is empty or leaves [0, global),
 * the scheduler's errors (a size no device's work-groups fit); cx unchanged on error. */
int ht__coexec_set_range(struct ht_coexec *cx, uint64_t offset, uint64_t size,
                         struct ht_error *err);

/* Sets the untimed and timed runs of the next ht__coexec_run and the runs it keeps. */
void ht__coexec_set_runs(struct ht_coexec *cx, unsigned warmup, unsigned repeats,
                         unsigned keep_best);

/* One timed run of cx into res, not poisoned first (ht__coexec_run poisons every buffer of
 * every device before each run, which costs as much as a short run: 25-30 ms for 2^23
 * floats on an H200 node). For the runs of a split over MPI, whose wall time includes
 * the call: outputs nobody wrote are caught there by poisoning the host arrays once
 * before the first run (ht__coexec_poison_host). */
int ht__coexec_run_once(struct ht_coexec *cx, struct ht_coexec_result *res,
                        struct ht_error *err);

/* Fills the host inputs and/or outputs with the poison pattern of their type, so that an
 * element that nothing sent or wrote later cannot pass verification. */
void ht__coexec_poison_host(struct ht_coexec *cx, int inputs, int outputs);

/* The host array of buffer argument arg: its initial data (output 0) or its merged
 * output (output 1), borrowed from cx; NULL when it has none. */
void *ht__coexec_host(struct ht_coexec *cx, size_t arg, int output);

/* The slab of buffer argument i that the units [ulo, uhi) need: with output 0, what any
 * device of cx reads for a chunk inside them (its work-items covering them, halo
 * included: the same ranges a device is sent); with output 1, the elements they own. An
 * empty range needs nothing (lo = hi = 0). HT_EINVAL when i is not a buffer or the range
 * leaves [0, global). ht__coexec_share fills them for every buffer. */
int ht__coexec_slab(const struct ht_coexec *cx, size_t i, int output, uint64_t ulo,
                    uint64_t uhi, struct ht__slab *s);

/* Refines the static plan from what a run measured. The paper's plan assumes that a
 * device's time grows in proportion to its work; a CPU's launch costs, a GPU that a small
 * slice does not fill, and the host threads that all devices share make it otherwise.
 * For each device with a slice strictly between nothing and everything, its affine model
 * is fitted (ht_split_fit_model) to its time on its slice in last (a result of
 * ht__coexec_run on cx, its share items/global; the time is the target's, coexec.h's
 * enum ht_refine_target) and,
 * when an earlier refinement saw it on a slice of another share, that slice's time (the
 * secant: both measured while the devices shared the host), else its time alone on the
 * whole problem (alone[i]; when not positive, the time the co-execution was given), its
 * slope at least a quarter of that time alone (so that no device looks as if more work
 * cost it nearly nothing, which makes the next plan swing all the work to it). A device
 * without a slice keeps its overhead (at most its new time)
 * with its time alone; a device that had all the work takes its measured time. Then the
 * scheduler is replaced by static planned from these models (ht_split_plan_make, with
 * the co-execution's residue rule). Repeat run and refine until it converges. Returns
 * HT_OK with the new plan in place; HT_DONE when the new plan launches the same slices as
 * the current one (nothing is replaced); HT_EINVAL when cx has no plan or last is not a
 * run of it; HT_ENOMEM. The models are kept in cx: ht__coexec_rounds reports them
 * (model_s). */
int ht__coexec_refine(struct ht_coexec *cx, const struct ht_coexec_alone *alone,
                      const struct ht_coexec_result *last, enum ht_refine_target target,
                      struct ht_error *err);

/* The link of dev that `hetune devices --bandwidth` stored in store, into *bw: 1 when the
 * store holds one measured on the path that asked resolves to for dev, else 0. */
int ht__store_link(struct ht_store *store, const struct ht_device_info *dev,
                   enum ht_data_path asked, struct ht_bandwidth *bw);

/* Frees a co-execution; NULL is allowed. */
void ht__coexec_free(struct ht_coexec *cx);

/* (bind.c) ht__coexec_launch on the bound arrays, whatever cx is (a node's share's launch
 * too); res not NULL, destroyed first when it runs. */
/* (bind.c) HT_OK when every buffer of cx but temporaries is bound; else HT_EINVAL naming
 * the first that is not (err->field "args[i]"). */
int ht__cx_all_bound(const struct ht_coexec *cx, struct ht_error *err);

/* (bind.c) Binds bound[a] (bytes[a] long) to argument a of cx for every a < nargs where
 * bound[a] is not NULL, stopping at the first error (ht__coexec_bind's). */
int ht__coexec_bind_all(struct ht_coexec *cx, void *const *bound, const size_t *bytes,
                        size_t nargs, struct ht_error *err);

int ht__cx_launch_bound(struct ht_coexec *cx, struct ht_coexec_result *res,
                        enum ht_coexec_memory *seen, struct ht_error *err);

/* (share.c) ht__coexec_launch on a node's share (cx->share_host not NULL): one run as
 * ht__coexec_share took it, between its moves; res not NULL. */
int ht__cx_share_run(struct ht_coexec *cx, struct ht_coexec_result *res,
                     struct ht_error *err);

/* Fills opts with coexec's defaults for the co-executions it makes itself (the runtime's
 * decisions, the probe, ht__coexec_create without options): dim 0, static, the spec's
 * timing, one warm-up run, HT_SPLIT_MARGIN_DEFAULT, ht_exec_opts_init's; the same as
 * ht_workflow_split_opts_init's (unit/test_coexec checks that they agree). */
void ht__coexec_opts_init(struct ht_coexec_opts *opts);

/* The kind of memory cx's buffers are bound to now (an unbound one counts as the
 * co-execution's own, of opts.memory): HT_COEXEC_MEM_OWN when every array is ht__coexec_alloc's
 * (or its own of that kind), else HT_COEXEC_MEM_UNALIGNED when some array is below the
 * alignment at which some device that works in place wraps it as it is (its base
 * alignment, or malloc's 16 bytes: ht__coexec_bind), else HT_COEXEC_MEM_ALIGNED. */
enum ht_coexec_memory ht__coexec_memory_bound(const struct ht_coexec *cx);

/* What store holds for a co-execution over devs[0..n): each device's link on the path
 * asked resolves to for it (the one `hetune devices --bandwidth` measured on that path)
 * into links[i], link[i] = &links[i], or NULL where none is stored (links[i] may be
 * written all the same); and this machine's host memory rates into *host
 * (ht_store_get_host_memory): 1 when some are, else 0 (*host zeroed). */
int ht__store_rates(struct ht_store *store, const struct ht_workflow_device *devs, size_t n,
                    enum ht_data_path asked, struct ht_bandwidth *links,
                    const struct ht_bandwidth **link, struct ht_host_memory *host);

/* --- the written buffers without "index" (src/coexec/written.c, issue 26 item 4) ---
 *
 * What a split of such a spec rests on besides the decision: which elements each slice
 * writes, inferred once by a probe (coexec.h, ht_split_probe) and kept in the results
 * database with the problem (the spec's hash and sizes), so that `hetune split`, the
 * runtime and each split over MPI find the same inference and probe only once. */
struct ht__written_in {
    const struct ht_spec *spec;            /* borrowed for the call */
    struct ht_store *store;                /* where inferences are read and stored */
    int64_t problem_id;                    /* the problem's row in store */
    const struct ht_workflow_device *devs; /* n, dev, device_id, config, config_text and
                                              tuned_s set: the probe runs on the one that
                                              works in place with the shortest tuned_s */
    size_t n;
    unsigned dim;                          /* the split dimension */
    const struct ht_exec_opts *exec;       /* the probe's binary cache, Eq. 3; NULL:
                                              defaults */
    ht_workflow_note_fn on_note;           /* told, per buffer, what was found (probed now
                                              or stored); NULL: nobody */
    void *user;
    const char *devices_are;               /* the devs in words for the refusal when none
                                              works in place ("rank 0's devices"); NULL:
                                              "the split's devices" */
};

/* What ht__written_infer found. */
struct ht__written {
    struct ht_split_written *written;      /* spec->nargs entries, owned (free()), for
                                              ht_coexec_opts.written; NULL when the spec
                                              has no written buffer without "index" */
    unsigned probed;                       /* buffers a probe inferred now (stored) */
    unsigned stored;                       /* buffers whose inference store held */
};

/* Fills *out for the written buffers without "index" of in->spec: each from in->store
 * when it holds an inference for the buffer's layout at this problem, else by one probe
 * (ht_split_probe) on the device of in->devs that works in place with the shortest tuned
 * time, stored for next time. Errors, *out zeroed: ht_split_probe's (HT_ESPEC saying what
 * the probe saw: "written buffer 'out' has no index, and the probe's slice ..."), HT_ESPEC
 * when no device of in->devs works in place, HT_EDB, HT_ENOMEM. */
int ht__written_infer(const struct ht__written_in *in, struct ht__written *out,
                      struct ht_error *err);


/* Prepares the co-execution of spec on n devices: checks each configuration (ht_space_check
 * with opts->exec.eq3), opens a context and profiling queue per device, builds the programs,
 * creates the buffers and kernels, makes the host data and the scheduler. spec and every
 * devs[i].dev are borrowed and must outlive *out; the configs are copied. *out is owned by the
 * caller (ht__coexec_free). Errors, err filled: HT_EINVAL (n = 0, dim out of range, an unknown
 * scheduler, static without times), HT_ESPEC (the spec cannot be split along dim: a written
 * buffer without a usable index, buffer shapes that differ between the devices'
 * configurations), HT_ECONSTRAINT (a configuration breaks a rule; err->field names it,
 * err->text begins with the device), HT_EBUILD, HT_ECL, HT_ENOMEM. */
int ht__coexec_create(const struct ht_spec *spec, const struct ht_coexec_device *devs, size_t n,
                      const struct ht_coexec_opts *opts, struct ht_coexec **out,
                      struct ht_error *err);

/* Replaces the scheduler with static at the given split factors (one per device, see
 * ht_split_plan_make's factors): the split-point sweeps of the paper's Figures 6 and 7.
 * Errors as ht_split_sched_create; the old scheduler stays on error. */
int ht__coexec_set_factors(struct ht_coexec *cx, const double *factors, struct ht_error *err);

/* Runs the co-execution (warm-up, then the timed runs) and fills res (which need not be
 * initialised; free it with ht_coexec_result_destroy). The merged outputs of the last run
 * stay in cx for ht__coexec_verify and ht__coexec_dump. Errors: HT_ELAUNCH (a launch
 * failed; err names the device), HT_ECL, HT_ENOMEM. */
int ht__coexec_run(struct ht_coexec *cx, struct ht_coexec_result *res, struct ht_error *err);

/* Verifies the merged outputs of the last ht__coexec_run against a single-device run: an
 * exec session (exec.h) on device ref (an index into the co-execution's devices) runs the
 * whole NDRange once at that device's configuration (verified itself against the spec's
 * reference, unless the spec has none), and every written buffer is compared with it
 * element by element with the spec's rtol/atol (integers exactly). Fills res's
 * verification fields. Returns HT_OK, HT_EVERIFY (err says how many elements differ and
 * the first), HT_EINVAL (no run yet, ref out of range), or the session's error when the
 * single-device run fails (err then begins with "single-device run"). With
 * opts.exec.no_verify it does nothing (verified -1). The single-device outputs are kept:
 * later calls with the same ref (a sweep's points) only compare. */
int ht__coexec_verify(struct ht_coexec *cx, size_t ref, struct ht_coexec_result *res,
                      struct ht_error *err);

/* Writes each written buffer of the last run as raw little-endian DIR/<name>.bin (as
 * ht_session_dump does), creating DIR. HT_EINVAL when nothing ran yet, HT_EIO. */
int ht__coexec_dump(const struct ht_coexec *cx, const char *dir, struct ht_error *err);

/* Moves every array of ht__coexec_alloc from `from` to `to`: they stay where they are,
 * valid, and are freed with `to` (ht__coexec_free_host(to, ...) or ht__coexec_free(to)), so
 * that `from` can be freed while the caller keeps using them (the runtime replacing its
 * co-execution after a new decision). They keep the kind they were made as (pinned in a
 * device context of `from`: another context may move them at the pageable rate). Arrays
 * bound in `from` are not bound in `to`. HT_ENOMEM, nothing moved. */
int ht__coexec_adopt_host(struct ht_coexec *to, struct ht_coexec *from, struct ht_error *err);

/* (bind.c) Hands a program's arrays over from the co-execution from to to, which replaces it
 * (ht__decide with in->from: the runtime after a new decision): the arrays of ht__coexec_alloc
 * move (ht__coexec_adopt_host), and every bound[a] that is not NULL (a buffer argument, its
 * bytes[a]) is bound to to. On success from is freed and to's buffers over the arrays are made
 * again (ht__coexec_repin; its failure is only pin_err's: that array is moved unpinned, slower,
 * never wrong) and HT_OK returned. On failure from stays as it was, holding and bound to the
 * arrays again, and the error is returned (to is the caller's to free). Errors as
 * ht__coexec_adopt_host and ht__coexec_bind. */
int ht__coexec_hand_over(struct ht_coexec *to, struct ht_coexec *from, void *const *bound,
                         const size_t *bytes, size_t nargs, struct ht_error *pin_err,
                         struct ht_error *err);

/* Gives every device back the time model given to ht__coexec_create and forgets the slices
 * ht__coexec_refine measured; the scheduler stays. Plans made after it (ht__coexec_set_factors:
 * a sweep after a refinement) take their theoretical times from the tuned times again. */
void ht__coexec_reset_models(struct ht_coexec *cx);

/* Tells the co-execution the host memory's rates (ht_host_memory_measure, the results
 * database's ht_store_get_host_memory; copied); NULL or a Bps of 0 forgets them.
 * ht__coexec_estimate then says how long the bytes the split reads and writes through host
 * memory take at those rates (host_s). HT_EINVAL when a rate is negative or not finite. */
int ht__coexec_set_host_memory(struct ht_coexec *cx, const struct ht_host_memory *hm,
                               struct ht_error *err);

/* Tells the co-execution the measured link of device i (`hetune devices --bandwidth`, the
 * results database): the bus models convert bytes to seconds at its path's rates
 * (h2d_Bps, d2h_Bps). NULL forgets it. HT_EINVAL when i is out of range. */
int ht__coexec_set_bandwidth(struct ht_coexec *cx, size_t i, const struct ht_bandwidth *bw,
                             struct ht_error *err);

/* How ht__decide_split judges (ht__decide fills it from its input). */
struct ht__rule {
    int forced;       /* split whatever the prediction and the measurement (--force) */
    int paper_plan;   /* 1: the split runs the paper's plan (Eq. 4-9 from the tuned
                         times), not the bus plan */
    int unpredicted;  /* when the estimate fails: 1, the split runs anyway and is judged
                         against the fastest device alone (hetune split, hetune run); 0,
                         the estimate's error is returned (the runtime, each MPI node) */
};

/* (decide.c, ht__decide with in->measured) SIZE_MAX to keep the split (forced, or measured at
 * most keep_s and not all on one device), else the device that runs alone: m->fastest when the
 * split took longer than keep_s (or split_s is not a number), else m->only. */
size_t ht__decide_measured(const struct ht__measured *m);

/* Decides between the co-execution cx (made over its n >= 1 devices, their links and host
 * memory set) and the fastest of them alone, from alone[0..n) (each device's run
 * alone with the co-execution's clock), as rule says. With two devices or more
 * ht__coexec_estimate predicts the split (the bus plan) and decides with cx's margin. A
 * split predicted to pay (est.worth_it), predicted faster within the margin (est.check),
 * forced, or with one device, runs once (ht__coexec_run), after ht__coexec_plan_bus
 * replaced cx's plan when its scheduler is static (not with rule->paper_plan); it is kept
 * when forced, with one device, or measured at most keep_s. *v is filled (zeroed first).
 * Errors: ht__coexec_estimate's (unless rule->unpredicted), ht__coexec_plan_bus's and
 * ht__coexec_run's. */
int ht__decide_split(struct ht_coexec *cx, const struct ht_coexec_alone *alone, size_t n,
                     const struct ht__rule *rule, struct ht__verdict *v,
                     struct ht_error *err);

/* --- the staging rings (stage.c) ---
 *
 * Staging of host memory that hetune did not allocate (HT_FOREIGN_STAGE): two
 * rings of pinned chunks (one for each direction) in one device's context, and threads that
 * copy a chunk together. One thread at a time uses a stage. */
struct ht__stage;

/* Makes a stage in ctx (pinned memory mapped on q): rings of ring_bytes / chunk_bytes
 * slots (at least 2, at most 64) of chunk_bytes (0: 4 MiB) each, and threads - 1 copy
 * threads (0: 8 threads; at most the cores online). ctx NULL makes the copy threads alone
 * (ht__stage_copy; ht__stage_write and _read are HT_EINVAL). *out is freed with
 * ht__stage_free. HT_ECL, HT_ENOMEM. */
int ht__stage_create(cl_context ctx, cl_command_queue q, size_t chunk_bytes, size_t ring_bytes,
                     unsigned threads, struct ht__stage **out, struct ht_error *err);

/* Waits for what s has in flight and frees it; NULL is fine. */
void ht__stage_free(struct ht__stage *s);

/* Copies bytes from src to dst with s's threads (one memcpy when s is NULL or the copy is
 * small). */
void ht__stage_copy(struct ht__stage *s, void *dst, const void *src, size_t bytes);

/* Enqueues on q the write of src[0..bytes) into mem at off through the write ring: chunk by
 * chunk, each copied into a free slot (waiting for that slot's earlier DMA) and enqueued
 * without blocking. src may be reused when ht__stage_finish returns. HT_ECL. */
int ht__stage_write(struct ht__stage *s, cl_command_queue q, cl_mem mem, size_t off,
                    const void *src, size_t bytes, struct ht_error *err);

/* Enqueues on q the read of mem's bytes at off into dst through the read ring; each chunk
 * lands in dst once its DMA is done, at the latest in ht__stage_finish. Nothing outside
 * dst[0..bytes) is written. HT_ECL. */
int ht__stage_read(struct ht__stage *s, cl_command_queue q, cl_mem mem, size_t off, void *dst,
                   size_t bytes, struct ht_error *err);

/* Waits for every staged transfer, delivers what was read, and adds the time spent since
 * the last finish (the DMA's profiling times and the copies' wall times) to *write_s and
 * *read_s (either may be NULL). s NULL does nothing. HT_ECL for a transfer that failed. */
int ht__stage_finish(struct ht__stage *s, double *write_s, double *read_s, struct ht_error *err);

#endif
