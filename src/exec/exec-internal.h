/* Internal interface of the execution module (src/exec), shared by its files:
 *   session.c  the session, the eval loop, verification and dump
 *   run.c      one configuration instantiated on the device: buffers, arguments, launches
 *   pipeline.c the stages of a pipeline spec: their kernels and arguments, the reference
 *              kernel's arguments
 *   build.c    program build through the on-disk binary cache
 *   data.c     host data: initial values and poison patterns
 *   verify.c   element-wise comparison of outputs with the reference
 *   refcache.c the reference outputs of a problem, kept on disk (computed once)
 *   repeats.c  adaptive repeats (exec.h, ht_repeats_decide)
 *   devlock.c  device locks, one at a time and in sets (exec.h)
 *   load.c     the load other processes put on the machine while one measures
 */
#ifndef HETUNE_EXEC_INTERNAL_H
#define HETUNE_EXEC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <CL/cl.h>

#include "hetune/exec.h"

struct ht__worker;

/* One sample of the load watch (load.c): *t the monotonic time, *busy the CPU seconds
 * all processes have used since boot ($HETUNE_LOAD_STAT, else /proc/stat), *own those of
 * this process and its children (waited for, and live ones). Returns 0, or -1 when the
 * figures cannot be read (no /proc): then nothing is watched. */
int ht__load_sample(double *t, double *busy, double *own);

/* Reports a failed OpenCL call: sets err->cl_status (when err holds no error yet) and the
 * message "<what> failed: CL_...", and returns code. */
int ht__cl_fail(struct ht_error *err, int code, cl_int status, const char *what);

/* Host memory as a data path wants it (hostmem.c). */
struct ht__hostmem {
    void *data;              /* NULL when none */
    size_t bytes;
    cl_mem pin;              /* HT_PATH_PINNED: the mapped CL_MEM_ALLOC_HOST_PTR buffer */
    cl_command_queue queue;  /* retained with pin, to unmap it */
};

/* Allocates bytes of host memory for path: HT_PATH_PINNED (with a context and queue) a
 * mapped CL_MEM_ALLOC_HOST_PTR buffer of ctx; HT_PATH_PAGEABLE plain malloc memory; any
 * other path (in place, or pinned without a context) page-aligned memory. *out is freed
 * with ht__hostmem_free. HT_ECL, HT_ENOMEM. */
int ht__hostmem_alloc(cl_context ctx, cl_command_queue q, enum ht_data_path path, size_t bytes,
                      struct ht__hostmem *out, struct ht_error *err);

/* Frees host memory of ht__hostmem_alloc and zeroes *m; an empty one is fine. */
void ht__hostmem_free(struct ht__hostmem *m);

/* A device buffer and a pinned host buffer (CL_MEM_ALLOC_HOST_PTR, mapped, filled) of
 * bytes each, in a context and queue of their own for dev: the two ends of the pinned
 * ceiling's copies (bandwidth.c). ht__pinned_link_close releases what open made; on
 * failure open has released it. HT_ECL (the call's name in err). */
struct ht__pinned_link {
    cl_context ctx;
    cl_command_queue q;
    cl_mem mem, pin;
    void *host; /* pin, mapped */
};
int ht__pinned_link_open(const struct ht_device_info *dev, size_t bytes,
                         struct ht__pinned_link *l, struct ht_error *err);
void ht__pinned_link_close(struct ht__pinned_link *l);

/* ht_host_memory_measure, calling mark(user, 0) just before the first timed pass and
 * mark(user, 1) just after the last (hostmem-rate.c): the window in which the threads stream
 * 5 x bytes a repeat (a read pass over two arrays, c = a + b over three). */
int ht__host_memory_run(unsigned threads, uint64_t bytes, unsigned repeats,
                        void (*mark)(void *user, int end), void *user,
                        struct ht_host_memory *out, struct ht_error *err);

/* Host copy of one buffer argument. */
struct ht__hostbuf {
    void *data;        /* count * type size bytes, NULL when not held: mem.data when the
                          buffer owns its memory, else borrowed (a caller's bound array) */
    struct ht__hostmem mem; /* owned memory (ht__hostbuf_alloc), or empty */
    size_t count;      /* elements */
    unsigned naxes;    /* the shape it was made for, to print multi-dimensional indices */
    uint64_t dims[3];
};

/* Makes b->data hold bytes of memory for path (ht__hostmem_alloc), keeping what it holds
 * when that is already the right size and kind. The contents are undefined. */
int ht__hostbuf_alloc(struct ht__hostbuf *b, cl_context ctx, cl_command_queue q,
                      enum ht_data_path path, size_t bytes, struct ht_error *err);

/* Frees b's owned memory; b->data becomes NULL. */
void ht__hostbuf_free(struct ht__hostbuf *b);

/* (stage.c) Staging of host memory that hetune did not allocate (HT_FOREIGN_STAGE): two
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

/* How many built programs a session keeps for configurations that build the same one. */
#define HT__SESSION_PROGRAMS 16

struct ht_session {
    const struct ht_spec *spec;        /* borrowed */
    const struct ht_device_info *dev;  /* borrowed */
    struct ht_exec_opts opts;          /* opts.cache_dir points at cache_dir below */
    char cache_dir[4096];
    cl_context ctx;
    cl_device_id device;
    cl_command_queue queue;            /* in order, profiling enabled */
    enum ht_data_path path;            /* opts.data_path resolved for the device */
    struct ht__hostbuf *inputs;        /* per arg: initial data of read and readwrite buffers */
    struct ht__hostbuf *outputs;       /* per arg: written buffers of the last eval */
    struct ht__hostbuf *refs;          /* per arg: the reference outputs */
    struct ht__hostbuf *file_refs;     /* per arg: reference outputs read from files
                                          (verify.outputs; npy.h), read once */
    int have_file_refs;
    struct ht__hostbuf *inplace_out;   /* where in-place written buffers live: outputs, or
                                          refs while the reference configuration runs */
    int have_outputs;                  /* outputs hold the last eval's results */
    int have_refs;                     /* refs hold the reference configuration's outputs
                                          (or, with verify.once, the reference kernel's) */
    double cut_best, cut_factor;       /* early termination (ht_session_set_cut); 0: off */
    int ref_load_only;                 /* a build's evaluation (ht__session_prebuild): a
                                          reference computed once per problem is read
                                          from the cache or left out, never computed */
    double last_launch_wall_s;         /* ht__inst_launch: enqueue to completion, seconds */
    double *stage_run_s;               /* pipelines: HT_MAX_STAGES stage times per run of the
                                          current eval (run r at r * HT_MAX_STAGES), or NULL */
    struct ht__worker *worker;         /* isolated: the worker process that holds the
                                          context and data; NULL in this process */
    struct {                           /* programs built in this session (ht__program_get): */
        char *key;                     /* prologue, newline, options (ht__program_options) */
        cl_program prog;               /* retained; released by ht_session_free */
    } programs[HT__SESSION_PROGRAMS];
    size_t next_program;               /* the next slot to fill, modulo HT__SESSION_PROGRAMS */
};

/* One active stage of a pipeline, instantiated: its kernel (arguments set) and NDRange. */
struct ht__stage_inst {
    size_t index;                /* into spec->pipeline */
    unsigned ndims;
    uint64_t global[3], local[3];  /* local all 0: left to the runtime */
    cl_kernel kernel;
};

/* One configuration instantiated on the device. Zero it before ht__inst_prepare; release
 * it with ht__inst_release whatever happened. */
struct ht__inst {
    int64_t *vars;               /* owned; def->names.count values */
    unsigned ndims;
    uint64_t global[3], local[3];  /* local all 0: left to the runtime */
    cl_program prog;
    cl_kernel kernel;
    cl_mem *mem;                 /* per arg; NULL for scalars */
    void **host;                 /* per arg: the host memory mem[i] works on in place
                                    (CL_MEM_USE_HOST_PTR; borrowed), or NULL */
    struct ht__hostbuf *shape;   /* per arg: count and dims (data unused) */
    /* Pipelines: kernel stays NULL and the configuration's active stages, in launch order,
     * are here; nstages is 0 for a single kernel. */
    size_t nstages;
    struct ht__stage_inst stages[HT_MAX_STAGES];
};

/* Seconds between a finished command's START and END, or fallback when the runtime does
 * not give them. */
double ht__event_seconds(cl_event ev, double fallback);

/* The program's build options: "-D NAME=value " for every size of the spec and every
 * parameter of config (sizes first, each in the spec's order), then the
 * spec's own options (the text the binary cache keys on). Owned by the caller (free());
 * NULL when out of memory. */
char *ht__build_options(const struct ht_spec *spec, const int64_t *config);

/* First step of ht__inst_prepare: allocates in's vars, mem and shape (nargs entries), sets
 * the vars from config and the device, and in->ndims, global and local. */
int ht__inst_setup(struct ht_session *s, const int64_t *config, struct ht__inst *in,
                   struct ht_error *err);

/* Gets in->prog for config through ht__program_get (build options of ht__build_options,
 * the prologue for in's NDRange: call it after ht__inst_setup); *build_s, *cache_hit and
 * *log as there. Tuning and co-execution both build through it: one program, one binary
 * cache key per configuration. */
int ht__inst_program(struct ht_session *s, const int64_t *config, struct ht__inst *in,
                     double *build_s, int *cache_hit, char **log, struct ht_error *err);

/* Evaluates buffer argument i's shape into in->shape[i] (the axes past its own get 1
 * element; HT_EINVAL with err->field "args[i].shape[a]" when an axis is not positive,
 * HT_ECONSTRAINT with err->field "args[i].shape" when its bytes overflow or pass the
 * device's max_mem_alloc_size). ht__inst_setup has done it for every buffer already. */
int ht__inst_shape(struct ht_session *s, struct ht__inst *in, size_t i, struct ht_error *err);

/* Evaluates buffer argument i's shape (ht__inst_shape) and creates in->mem[i] in the
 * session's context with the access of the argument: on the device (host NULL; nothing is
 * written to it), or in place over host (CL_MEM_USE_HOST_PTR; in->host[i] = host), which
 * must hold the buffer's bytes and outlive in->mem[i]. */
int ht__inst_buffer(struct ht_session *s, struct ht__inst *in, size_t i, void *host,
                    struct ht_error *err);

/* Makes the device's view of in->mem[i]'s elements [off, off + bytes) and the host's agree
 * when the buffer works in place: a blocking map (for reading when to_host, else for
 * writing) and unmap, plus, when copy is not NULL, a copy through the mapping (to copy
 * from the device, or from copy to the device). The map's and unmap's times (their
 * profiling events; the map's wall time where the queue has no profiling) and the copy's
 * are added to *seconds: not the wait for what the queue held before. HT_ECL. */
int ht__inst_sync(cl_command_queue q, cl_mem mem, size_t off, size_t bytes, int to_host,
                  void *copy, double *seconds, struct ht_error *err);

/* Enqueues a fill of the whole of in->mem[i] with its type's poison pattern
 * (ht__poison_pattern) on the session's queue; does not wait. */
int ht__inst_poison(struct ht_session *s, struct ht__inst *in, size_t i, struct ht_error *err);

/* Launches k on queue q (offset may be NULL) and waits for it. On success *out is the
 * finished kernel's event (released by the caller); on failure *out is NULL and the error
 * is HT_ELAUNCH with err->cl_status set. */
int ht__enqueue_wait(cl_command_queue q, cl_kernel k, unsigned ndims, const size_t *offset,
                     const size_t *global, const size_t *local, cl_event *out,
                     struct ht_error *err);

/* Evaluates sizes, builds the program (res->build_s, cache_hit, build_log), creates the
 * kernel, checks its argument count, creates the buffers, writes the read-only ones (their
 * transfer time, from profiling events, is added to *write_s) and sets the arguments.
 * res->ndims, global and local are filled as soon as they are known. For a pipeline spec
 * the kernels are those of ht__inst_stages instead (in->kernel stays NULL), and temp
 * buffers are created but neither initialised nor written. */
int ht__inst_prepare(struct ht_session *s, const int64_t *config, struct ht__inst *in,
                     struct ht_eval_result *res, double *write_s, struct ht_error *err);

/* Creates kernel `name` from in's program, checks its argument count against the spec and
 * sets its arguments to in's buffers and scalars. *out is released by the caller. */
int ht__inst_kernel(struct ht_session *s, struct ht__inst *in, const char *name,
                    cl_kernel *out, struct ht_error *err);

/* One timed run of kernel k: restores the readwrite buffers from the host inputs (their
 * transfer time goes to *restore_s), poisons the write buffers, launches k on in's global
 * size with local (NULL: left to the runtime) and waits. *kernel_s is the kernel's time
 * from its profiling event; s->last_launch_wall_s the wall time from the enqueue to the
 * kernel's completion. Launch failures are HT_ELAUNCH with err->cl_status set. */
int ht__inst_launch(struct ht_session *s, struct ht__inst *in, cl_kernel k,
                    const size_t *local, double *kernel_s, double *restore_s,
                    struct ht_error *err);

/* Reads every written buffer (write, readwrite; not temp) back into dst[arg],
 * (re)allocating as needed. The transfer time is added to *read_s. */
int ht__inst_read(struct ht_session *s, struct ht__inst *in, struct ht__hostbuf *dst,
                  double *read_s, struct ht_error *err);

/* Releases every OpenCL object and allocation of in (the stages' kernels included) and
 * zeroes it. */
void ht__inst_release(struct ht__inst *in, size_t nargs);

/* Pipelines (pipeline.c). Creates the kernel of every stage of the spec from in->prog and
 * checks each one's argument count (a missing kernel is HT_ESPEC with err->field
 * "pipeline[i].kernel", a count that differs HT_ESPEC "pipeline[i].args"), checks that
 * kernel.name exists, and keeps in in->stages the kernels and NDRanges of the stages that
 * in->vars make active, releasing the others. Arguments are set by ht__inst_stage_args once
 * the buffers exist. */
int ht__inst_stages(struct ht_session *s, struct ht__inst *in, struct ht_error *err);

/* Sets the arguments of every active stage's kernel from in's buffers and scalars. */
int ht__inst_stage_args(struct ht_session *s, struct ht__inst *in, struct ht_error *err);

/* Sets kernel k's arguments: argument j is spec->args[idx[j]] (idx NULL: argument j is
 * spec->args[j]), j < n. */
int ht__inst_set_args(struct ht_session *s, struct ht__inst *in, cl_kernel k,
                      const size_t *idx, size_t n, struct ht_error *err);

/* Restores the readwrite buffers from the host inputs (transfer time to *restore_s) and
 * poisons the write and temp buffers: what ht__inst_launch does before its launch. */
int ht__inst_reset(struct ht_session *s, struct ht__inst *in, double *restore_s,
                   struct ht_error *err);

/* (run.c) One timed run of a configuration: for a single kernel, ht__inst_launch of in->kernel on
 * in's NDRange; for a pipeline, ht__inst_reset once, then every active stage enqueued in
 * order with no host round trip between them, and a wait for the last. *kernel_s is the
 * sum of the stages' profiling times, stage_s[k] (when not NULL; in->nstages entries) each
 * stage's, and s->last_launch_wall_s the wall time from the first enqueue to the last
 * completion. Launch failures are HT_ELAUNCH naming the stage's kernel. */
int ht__inst_run(struct ht_session *s, struct ht__inst *in, double *kernel_s, double *stage_s,
                 double *restore_s, struct ht_error *err);

/* Creates the reference kernel (spec->reference_kernel) from in's program with its
 * arguments: verify.args when the spec gives them, else all of args (counted against the
 * kernel without ht_spec_check_kernel_args, which refuses pipelines). *out is released by
 * the caller. */
int ht__inst_ref_kernel(struct ht_session *s, struct ht__inst *in, cl_kernel *out,
                        struct ht_error *err);

/* Returns a built program for the session's source (after its prologue for the whole
 * NDRange global[0..ndims), ht__program_prologue) with options, from the binary cache
 * when it holds a usable binary (then *cache_hit is 1) or compiled (and written to the
 * cache unless no_cache). Where the driver keeps a cache of its own (ht_driver_caches),
 * hetune's cache holds a marker KEY.drv per program built instead of its binary, and a
 * build of a program with a marker (built before by some hetune process with the same
 * driver cache folder, a build worker of a pool say) is the driver's cache hit: *cache_hit
 * is 1 there too. *build_s is the wall time it took. On a build failure returns
 * HT_EBUILD with *log set to the whole build log (owned by the caller, free()) and err
 * naming the device and the log's first error line. */
int ht__program_get(struct ht_session *s, const char *options, unsigned ndims,
                    const uint64_t *global, cl_program *out, double *build_s, int *cache_hit,
                    char **log, struct ht_error *err);

/* 1 in a worker process (hetune-worker, worker.c), where the test hooks of
 * HETUNE_TEST_BUILD_CRASH and HETUNE_TEST_BUILD_HANG act: a compilation from source of
 * a program whose options hold "-D NAME=VALUE " for the NAME=VALUE they name raises
 * SIGSEGV or never ends, as a compiler that crashes or hangs would (tests/cli/
 * tune_jobs.sh). */
extern int ht__in_worker;

/* What a build worker of a pool (prebuild.c) does for config: the checks of
 * ht_session_eval, then the program through the binary cache (res->build_s, cache_hit,
 * build_log, ndims, global and local filled). Where the driver caches programs itself
 * (ht_driver_caches: PoCL), it also compiles what the driver compiles only at a first
 * launch (PoCL's work-group functions, per local size): it evaluates config once
 * (ht_session_eval with the worker's spec's repeats of 1, verification included, which
 * launches the reference kernel of a program too), so that the session that measures it
 * later finds all of it in the driver's cache. Returns what ht_session_eval would. */
int ht__session_prebuild(struct ht_session *s, const int64_t *config,
                         struct ht_eval_result *res, struct ht_error *err);

/* The text compiled before the spec's source for a configuration whose whole NDRange is
 * global[0..ndims), so that a slice launched with a global work offset (a split) sees the
 * group ids, numbers of groups and global sizes of the whole launch: get_group_id(d)
 * becomes get_group_id(d) + get_global_offset(d) / get_local_size(d), get_num_groups(d)
 * and get_global_size(d) the whole launch's, and "#line 1" ends it. *out is NULL (no
 * prologue) when the source names none of those builtins and has no #include, and for a
 * pipeline; else owned by the caller (free()). HT_ENOMEM. */
int ht__program_prologue(const struct ht_spec *spec, unsigned ndims, const uint64_t *global,
                         char **out);

/* The cache key of a program: 32 lowercase hex digits (two FNV-1a hashes) over the source,
 * the prologue (ht__program_prologue; NULL or "" when none), the options, and the device
 * and driver identity. buf holds at least 33 bytes. */
/* options (ht__build_options' text) without each "-D NAME=VALUE" whose NAME the program's
 * source src[0..len) never names outside comments: such a definition cannot change the
 * program, so configurations that differ only there build one. All are kept when the
 * source has #include or ## (a name could be used without being written). Owned by the
 * caller (free()); NULL when out of memory. */
char *ht__program_options(const char *src, size_t len, const char *options);

/* The binary cache's key of a program (32 hex digits and a NUL into buf): XXH3-128 of the
 * source, prologue, options, device and driver. HT_ENOMEM. */
int ht__cache_key(const struct ht_session *s, const char *prologue, const char *options,
                  char *buf);

/* Fills count elements at buf with arg's initial data: random (fixed seed from the
 * argument's name; floats uniform in [-1, 1), integers in [0, 100)), zero, iota, or a raw
 * little-endian file whose size must be count elements (HT_ESPEC when it is not, HT_EIO
 * when it cannot be read). */
int ht__data_init(const struct ht_arg *arg, void *buf, size_t count, struct ht_error *err);

/* The poison value of one element of type t into pat (ht_type_size(t) bytes): NaN for
 * float and double, the byte 0xA5 repeated for integers. */
void ht__poison_pattern(enum ht_type t, void *pat);

/* Fills buf, count elements of type t, with the poison pattern. */
void ht__poison_fill(enum ht_type t, void *buf, size_t count);

/* Result of comparing outputs with the reference. */
struct ht__cmp {
    size_t compared;     /* elements looked at */
    size_t mismatches;   /* elements outside the tolerance */
    double max_abs, max_rel;
    char first[256];     /* the first mismatch, "" when none */
};

/* Compares got with exp as arg->check says and accumulates into c (initialise it to
 * zeros): element by element (HT_CHECK_ALL), the elements exp does not hold poison in
 * (HT_CHECK_WRITTEN: NaN for floats, the 0xA5 bytes for integers), the sums (HT_CHECK_SUM:
 * every element of got against exp's elements that are not poison; one comparison), or not
 * at all (HT_CHECK_NONE). Floats match when |got - exp| <= atol + rtol * |exp| and neither
 * is NaN; integers match exactly. A count that differs from the reference, but for a sum,
 * is one mismatch with a message saying so. */
void ht__compare(const struct ht_arg *arg, const struct ht__hostbuf *got,
                 const struct ht__hostbuf *exp, double rtol, double atol, struct ht__cmp *c);

/* Zeroes c and compares every written buffer (write, readwrite; not temp) of got with the
 * same of exp (both nargs entries), as ht__compare. */
void ht__compare_outputs(const struct ht_spec *spec, const struct ht__hostbuf *got,
                         const struct ht__hostbuf *exp, struct ht__cmp *c);

/* (refcache.c) The reference cache: the reference outputs of a problem kept on disk in
 * the cache folder, so that they are computed once per problem, not once per session.
 * Used for a reference configuration and for a reference kernel with verify.once (whose
 * outputs depend on no parameter); never with opts.no_cache. */

/* The key of the session's problem, 32 lowercase hex digits into buf (33 bytes): two
 * FNV-1a hashes over the kernel source and options, the sizes, the reference (the
 * configuration's values, or the kernel's name and NDRange), every argument (an init
 * file's contents included), the pipeline, and the values of the device variables that
 * any of their expressions names. Not the device otherwise: one reference per problem.
 * HT_EIO when an init file cannot be read. */
int ht__refcache_key(const struct ht_session *s, char *buf, struct ht_error *err);

/* The cache file of key, in the session's cache folder. Owned by the caller (free());
 * NULL when out of memory. */
char *ht__refcache_path(const struct ht_session *s, const char *key);

/* Reads the reference outputs at path into s->refs, each written buffer checked against
 * in->shape's element count. HT_ENOTFOUND when there is no usable file (missing,
 * damaged, another shape: a miss), HT_ENOMEM. */
int ht__refcache_load(struct ht_session *s, const char *path, const struct ht__inst *in,
                      struct ht_error *err);

/* Writes s->refs' written buffers to path atomically; a failure is only logged. */
void ht__refcache_save(const struct ht_session *s, const char *path);

/* (session.c) Writes every written buffer (write, readwrite; not temp) of outputs (nargs
 * entries) to dir/NAME.bin, creating dir as needed. HT_EIO (or HT_ENOMEM) on failure. */
int ht__dump_outputs(const struct ht_spec *spec, const struct ht__hostbuf *outputs,
                     const char *dir, struct ht_error *err);

/* Writes "NAME[i][j]" for linear element index i of a buffer shaped like b. */
void ht__format_index(const char *name, const struct ht__hostbuf *b, size_t i, char *buf,
                      size_t size);


/* (supervise.c) The child's side of a supervised command (supervise.h). */

/* The name of signal sig ("SIGSEGV"), or NULL for one without a name here. */
const char *ht__signal_name(int sig);

/* A device's part of the work, watched: its slot (-1 when nothing is watched) and start. */
struct ht__watch {
    int slot;
    double t0;
};

/* Marks that this thread starts working on dev, for at most limit_s seconds (0: the
 * automatic limit of exec.h, over the parts watched so far); nothing outside a supervised
 * child. End it with ht__watch_end. */
struct ht__watch ht__watch_begin(const struct ht_device_info *dev, double limit_s);
void ht__watch_end(const struct ht__watch *w);

/* Records, for the supervisor, that dev's part of the co-execution failed in the driver
 * (HT_ELAUNCH, HT_ECL: an illegal address on a GPU, say) with e: it runs the command again
 * without dev. Nothing outside a supervised child. */
void ht__watch_failed(const struct ht_device_info *dev, const struct ht_error *e);

/* 1 when the environment variable HETUNE_TEST_SLICE_FAIL names dev's index: the fault tests
 * make that device's parts past offset 0 fail as a GPU's illegal address would. */
int ht__watch_inject(const struct ht_device_info *dev);

/* 1 when the supervisor asked for each device's part alone before each co-execution. */
int ht__watch_probe(void);

/* 1, with the reason in reason, when the supervisor lost device (an index) in an earlier
 * child and it is to be left out; else 0. */
int ht__supervise_lost(size_t device, char *reason, size_t size);

#endif
