/* Internal interface of the execution module (src/exec), shared by its files:
 *   session.c  the session, the eval loop, verification and dump
 *   run.c      one configuration instantiated on the device: buffers, arguments, launches
 *   pipeline.c the stages of a pipeline spec: their kernels and arguments, the reference
 *              kernel's arguments
 *   build.c    program build through the on-disk binary cache
 *   data.c     host data: initial values and poison patterns
 *   verify.c   element-wise comparison of outputs with the reference
 *   refcache.c the reference outputs of a problem, kept on disk (computed once)
 *   repeats.c  adaptive repeats (exec.h, ht__repeats_decide)
 *   devlock.c  device locks, one at a time and in sets (exec.h)
 *   load.c     the load other processes put on the machine while one measures
 */
#ifndef HETUNE_EXEC_INTERNAL_H
#define HETUNE_EXEC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <CL/cl.h>

#include "hetune/exec.h"
#include "exec/engine.h" /* exec's door: the part of these internals co-execution uses */
#include "exec/tuning.h" /* exec's door: the part the tuner drives */

/* The steps of one configuration's instantiation (run.c, build.c) that exec's door
 * (exec/engine.h) offers as ht__inst_build and ht__inst_bind. */

/* Evaluates sizes, builds the program (res->build_s, cache_hit, build_log), creates the
 * kernel, checks its argument count, creates the buffers, writes the read-only ones (their
 * transfer time, from profiling events, is added to *write_s) and sets the arguments.
 * res->ndims, global and local are filled as soon as they are known. For a pipeline spec
 * the kernels are those of ht__inst_stages instead (in->kernel stays NULL), and temp
 * buffers are created but neither initialised nor written. */
int ht__inst_prepare(struct ht_session *s, const int64_t *config, struct ht__inst *in,
                     struct ht_eval_result *res, double *write_s, struct ht_error *err);

/* Fills count elements at buf with arg's initial data (ht__hostmem_want.init says which);
 * a file whose size is not count elements is HT_ESPEC, one that cannot be read HT_EIO. */
int ht__data_init(const struct ht_arg *arg, void *buf, size_t count, struct ht_error *err);

/* Makes b->data hold bytes of memory for path (ht__hostmem_alloc), keeping what it holds
 * when that is already the right size and kind. The contents are undefined. */
int ht__hostbuf_alloc(struct ht__hostbuf *b, cl_context ctx, cl_command_queue q,
                      enum ht_data_path path, size_t bytes, struct ht_error *err);

/* Frees b's owned memory; b->data becomes NULL. */
void ht__hostbuf_free(struct ht__hostbuf *b);

/* First step of ht__inst_prepare: allocates in's vars, mem and shape (nargs entries), sets
 * the vars from config and the device, and in->ndims, global and local, and evaluates
 * every buffer's shape into in->shape (the axes past its own get 1 element; HT_EINVAL with
 * err->field "args[i].shape[a]" when an axis is not positive, HT_ECONSTRAINT with
 * err->field "args[i].shape" when its bytes overflow or pass the device's
 * max_mem_alloc_size). */
int ht__inst_setup(struct ht_session *s, const int64_t *config, struct ht__inst *in,
                   struct ht_error *err);

/* Gets in->prog for config through ht__program_get (build options of ht__build_options,
 * the prologue for in's NDRange: call it after ht__inst_setup); *build_s, *cache_hit and
 * *log as there. Tuning and co-execution both build through it: one program, one binary
 * cache key per configuration. */
int ht__inst_program(struct ht_session *s, const int64_t *config, struct ht__inst *in,
                     double *build_s, int *cache_hit, char **log, struct ht_error *err);

/* Creates in->mem[i], of the shape ht__inst_setup evaluated into in->shape[i], in the
 * session's context with the access of the argument: on the device (host NULL; nothing is
 * written to it), or in place over host (CL_MEM_USE_HOST_PTR; in->host[i] = host), which
 * must hold the buffer's bytes and outlive in->mem[i]. */
int ht__inst_buffer(struct ht_session *s, struct ht__inst *in, size_t i, void *host,
                    struct ht_error *err);

/* Creates kernel `name` from in's program, checks its argument count against the spec and
 * sets its arguments to in's buffers and scalars. *out is released by the caller. */
int ht__inst_kernel(struct ht_session *s, struct ht__inst *in, const char *name,
                    cl_kernel *out, struct ht_error *err);

/* Sets kernel k's arguments: argument j is spec->args[idx[j]] (idx NULL: argument j is
 * spec->args[j]), j < n. */
int ht__inst_set_args(struct ht_session *s, struct ht__inst *in, cl_kernel k,
                      const size_t *idx, size_t n, struct ht_error *err);

/* The text compiled before the spec's source for a configuration whose whole NDRange is
 * global[0..ndims), so that a slice launched with a global work offset (a split) sees the
 * group ids, numbers of groups and global sizes of the whole launch: get_group_id(d)
 * becomes get_group_id(d) + get_global_offset(d) / get_local_size(d), get_num_groups(d)
 * and get_global_size(d) the whole launch's, and "#line 1" ends it. *out is NULL (no
 * prologue) when the source names none of those builtins and has no #include, and for a
 * pipeline; else owned by the caller (free()). HT_ENOMEM. */
int ht__program_prologue(const struct ht_spec *spec, unsigned ndims, const uint64_t *global,
                         char **out);

/* One sample of the load watch (load.c): *t the monotonic time, *busy the CPU seconds
 * all processes have used since boot ($HETUNE_LOAD_STAT, else /proc/stat), *own those of
 * this process and its children (waited for, and live ones). Returns 0, or -1 when the
 * figures cannot be read (no /proc): then nothing is watched. */
int ht__load_sample(double *t, double *busy, double *own);

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

/* The program's build options: "-D NAME=value " for every size of the spec and every
 * parameter of config (sizes first, each in the spec's order), then the
 * spec's own options (the text the binary cache keys on). Owned by the caller (free());
 * NULL when out of memory. */
char *ht__build_options(const struct ht_spec *spec, const int64_t *config);

/* Launches k on queue q over the NDRange global[0..ndims) (no offset; local NULL: the
 * runtime's choice) and waits for it. On success *out is the finished kernel's event
 * (released by the caller); on failure *out is NULL and the error is HT_ELAUNCH with
 * err->cl_status set. */
int ht__enqueue_wait(cl_command_queue q, cl_kernel k, unsigned ndims, const size_t *global,
                     const size_t *local, cl_event *out, struct ht_error *err);

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

/* Pipelines (pipeline.c). Creates the kernel of every stage of the spec from in->prog and
 * checks each one's argument count (a missing kernel is HT_ESPEC with err->field
 * "pipeline[i].kernel", a count that differs HT_ESPEC "pipeline[i].args"), checks that
 * kernel.name exists, and keeps in in->stages the kernels and NDRanges of the stages that
 * in->vars make active, releasing the others. Arguments are set by ht__inst_stage_args once
 * the buffers exist. */
int ht__inst_stages(struct ht_session *s, struct ht__inst *in, struct ht_error *err);

/* Sets the arguments of every active stage's kernel from in's buffers and scalars. */
int ht__inst_stage_args(struct ht_session *s, struct ht__inst *in, struct ht_error *err);

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

/* (run.c) What a build ahead launches on PoCL (ht__session_prebuild): in's kernel, or each
 * active stage in order, on one work-group of its local size (global = local, no offset:
 * the launch PoCL compiles the same work-group function for as the measured one, which it
 * then finds in its kernel cache), after ht__inst_reset. Where a real launch is 65,535
 * work-items wide or more along a dimension, the warm-up spans the fewest groups that reach
 * that width there (PoCL compiles another function for such grids); where the local size
 * is left to the runtime, it is the whole NDRange. Nothing is timed, read back or
 * verified; the buffers are those of the configuration, full size, so a kernel that
 * reaches past its group's range stays inside them. *groups is the number of work-groups
 * launched with a given local size, summed over the kernels (0 counted for a whole
 * NDRange left to the runtime). HT_ELAUNCH as ht__enqueue_wait, and ht__inst_reset's. */
int ht__inst_warm(struct ht_session *s, struct ht__inst *in, unsigned *groups,
                  struct ht_error *err);

/* Creates the reference kernel (spec->reference_kernel) from in's program with its
 * arguments: verify.args when the spec gives them, else all of args (counted against the
 * kernel without ht_spec_check_kernel_args, which refuses pipelines). *out is released by
 * the caller. */
int ht__inst_ref_kernel(struct ht_session *s, struct ht__inst *in, cl_kernel *out,
                        struct ht_error *err);

/* What ht__program_get gives back: the program (owned by the caller, clReleaseProgram),
 * whether it came from a cache, the wall time it took, and after a build failure the whole
 * build log (owned by the caller, free(); else NULL). */
struct ht__program {
    cl_program prog;
    int cache_hit;
    double build_s;
    char *log;
};

/* Fills out->prog with a built program for the session's source (after its prologue for the
 * whole NDRange global[0..ndims), ht__program_prologue) with options, from the binary cache
 * when it holds a usable binary (then out->cache_hit is 1) or compiled (and written to the
 * cache unless no_cache). Where the driver keeps a cache of its own
 * (ht_device_caches_programs, platform.h), hetune's cache holds a marker KEY.drv per
 * program built instead of its binary, and a build of a program with a marker (built before
 * by some hetune process with the same driver cache folder, a build worker of a pool say)
 * is the driver's cache hit: out->cache_hit is 1 there too. out->build_s is the wall time
 * it took. On a build failure returns HT_EBUILD with out->log set to the whole build log
 * and err naming the device and the log's first error line. */
int ht__program_get(struct ht_session *s, const char *options, unsigned ndims,
                    const uint64_t *global, struct ht__program *out, struct ht_error *err);

/* 1 in a worker process (hetune-worker, worker.c), where the test hooks of
 * HETUNE_TEST_BUILD_CRASH and HETUNE_TEST_BUILD_HANG act: a compilation from source of
 * a program whose options hold "-D NAME=VALUE " for the NAME=VALUE they name raises
 * SIGSEGV or never ends, as a compiler that crashes or hangs would (tests/cli/
 * tune_jobs.sh). */
extern int ht__in_worker;

/* What a build worker of a pool (prebuild.c) does for config: the checks of
 * ht_session_eval, then the program through the binary cache (res->build_s, cache_hit,
 * build_log, ndims, global and local filled). Where the driver caches programs itself
 * (ht_device_caches_programs: PoCL), it also compiles what the driver compiles only at a
 * first launch (PoCL's work-group functions, per kernel and local size): it sets the
 * configuration up as ht_session_eval does (buffers full size, inputs written, arguments
 * set) and launches each of its kernels once on one work-group (ht__inst_warm), so that
 * the session that measures it later finds them in the driver's cache. No reference, no
 * verification, no readback, nothing timed: res->nruns stays 0 and res->verified -1.
 * Returns HT_OK, or the failure ht_session_eval would meet there (HT_ECONSTRAINT,
 * HT_EBUILD, HT_ELAUNCH, HT_ECL, ...). */
int ht__session_prebuild(struct ht_session *s, const int64_t *config,
                         struct ht_eval_result *res, struct ht_error *err);

/* (prebuild.c) The pool of builds ahead behind ht__session_build_ahead (exec/tuning.h,
 * which says what a pool does). Starts a pool of jobs build workers (1 to 1024) for spec
 * (loaded from a file: the workers load it again) on dev with opts (copied; its timeout_s
 * and worker apply, its stop is not watched: ht__prebuild_free ends the builds in
 * flight). spec and dev are borrowed and must outlive the pool. The processes start at
 * the first submissions, in the pool's threads. *out is owned by the caller
 * (ht__prebuild_free). ht__prebuild_possible's errors, HT_ENOMEM. */
int ht__prebuild_create(const struct ht_spec *spec, const struct ht_device_info *dev,
                        const struct ht_exec_opts *opts, unsigned jobs,
                        struct ht_prebuild **out, struct ht_error *err);

/* Queues config (spec->space.nparams values, copied) for building under the caller's id.
 * Builds start in the order submitted. HT_EINVAL when id is queued already, HT_ENOMEM. */
int ht__prebuild_submit(struct ht_prebuild *p, uint64_t id, const int64_t *config);

/* Takes the outcome of the build of id into *done (its res owned by the caller), and
 * forgets id. With wait 0, returns HT_BUSY while it is queued or building; with wait 1,
 * waits for it. HT_ENOTFOUND when id was not submitted (or was taken). */
int ht__prebuild_take(struct ht_prebuild *p, uint64_t id, int wait,
                      struct ht_prebuild_done *done);

/* How many submitted builds are queued, building, and finished but not taken. */
void ht__prebuild_counts(struct ht_prebuild *p, size_t *queued, size_t *building,
                         size_t *finished);

/* Ends the builds in flight (their workers are killed within 0.1 s), the workers and the
 * pool; what was queued is dropped. Paused workers are continued as they end. NULL is
 * allowed. */
void ht__prebuild_free(struct ht_prebuild *p);

/* Gives session s pool p to pause while it times a configuration's runs, and only then:
 * from just before the first timed launch of each ht_session_eval to just after its last
 * run (not while it builds or loads the program, stages the data, reads back or
 * verifies), in this process or, for an isolated session, as its worker tells the tuner
 * (worker.c, MSG_TIMED). p NULL: no pause. The session holds p in s->pause, which
 * ht_session_free frees: a caller that lends its own pool (a test) gives NULL back
 * before ht_session_free and ht__prebuild_free. ht__session_build_ahead gives the session
 * the pool it makes so, one that pauses (ht__prebuild_pausing) on a CPU device only. */
void ht__session_pause_builds(struct ht_session *s, struct ht_prebuild *p);

/* (prebuild.c) Whether ht__prebuild_pause acts on pool p (on 1, as made) or does nothing
 * (on 0: a pool building beside a device other than the CPU it runs on). */
void ht__prebuild_pausing(struct ht_prebuild *p, int on);

/* (prebuild.c) Pauses the pool's build workers (on 1: their processes are stopped with
 * SIGSTOP, those spawned during the pause too) or lets them go on (on 0: SIGCONT); asking
 * for the state the pool is in does nothing. A session pauses the pool it was given
 * (ht__session_pause_builds) around its timed runs. The time a pool was paused does not
 * count against its builds' time limits (the user's opts.timeout_s and the automatic one),
 * nor in the times the automatic limit is drawn from. Do not wait for a build
 * (ht__prebuild_take with wait 1) while paused: it would wait for ever. */
void ht__prebuild_pause(struct ht_prebuild *p, int on);

/* The seconds the pool has been paused so far, the pause in progress included. */
double ht__prebuild_paused_s(struct ht_prebuild *p);

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

/* p's program under key, a new reference to it, or NULL. */
cl_program ht__programs_take(const struct ht__programs *p, const char *key);
/* Keeps a reference to prog in p under key, which p takes (freed here when prog cannot be
 * retained), the oldest giving way. */
void ht__programs_keep(struct ht__programs *p, char *key, cl_program prog);
/* Releases what p keeps. */
void ht__programs_free(struct ht__programs *p);

/* The programs kept with a device's context for the process (session.c: the context a
 * session takes is the device's one) for sessions that keep them (keep_programs), by key: the binary cache's directory and key
 * (ht__cache_key), a layer over that cache, so that another session on the device with
 * that cache (a runtime's next co-execution) builds nothing, and one with another cache
 * builds as before. take: a new reference to the program kept under key in ctx, or NULL
 * (none, or ctx is not a kept context). keep: keeps a reference to prog under (a copy of)
 * key, the oldest giving way. */
cl_program ht__context_program_take(cl_context ctx, const char *key);
/* Takes (lock 1) or gives back (0) the turn of a kept session's build (session.c). */
void ht__context_build_lock(int lock);
void ht__context_program_keep(cl_context ctx, const char *key, cl_program prog);

/* The poison value of one element of type t into pat (ht_type_size(t) bytes): NaN for
 * float and double, the byte 0xA5 repeated for integers. */
void ht__poison_pattern(enum ht_type t, void *pat);

/* Compares got with exp as arg->check says and accumulates into c (initialise it to
 * zeros): element by element (HT_CHECK_ALL), the elements exp does not hold poison in
 * (HT_CHECK_WRITTEN: NaN for floats, the 0xA5 bytes for integers), the sums (HT_CHECK_SUM:
 * every element of got against exp's elements that are not poison; one comparison), or not
 * at all (HT_CHECK_NONE). Floats match when |got - exp| <= atol + rtol * |exp| and neither
 * is NaN; integers match exactly. A count that differs from the reference, but for a sum,
 * is one mismatch with a message saying so. */
void ht__compare(const struct ht_arg *arg, const struct ht__hostbuf *got,
                 const struct ht__hostbuf *exp, double rtol, double atol, struct ht__cmp *c);

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

/* Writes "NAME[i][j]" for linear element index i of a buffer shaped like b. */
void ht__format_index(const char *name, const struct ht__hostbuf *b, size_t i, char *buf,
                      size_t size);

/* --- exec's own helpers, once in exec.h: the time limit of an isolated evaluation, the
 * adaptive repeats' rule (repeats.c), the binary cache's folder, the device locks --- */

/* The time limit the next ht_session_eval of an isolated session has, in seconds (0 for a
 * session in this process). */
double ht__session_time_limit(const struct ht_session *s);

/* The margin m of HT_REPEATS_SLOWER for rule: rule->margin when rule->margin_time_s <= 0
 * or the best's figure b is no longer than it (or none), else
 * max(min(margin_floor, margin), margin * sqrt(margin_time_s / b)). */
double ht__repeats_margin(const struct ht_repeats_rule *rule);

/* What to do after the first n runs (seconds; n >= 1) of a configuration, by the rule
 * of exec.h's "Adaptive repeats". Pure: no OpenCL, no state. NaN runs are never fast
 * enough to cut. */
enum ht_repeats_verdict ht__repeats_decide(const struct ht_repeats_rule *rule,
                                           const double *runs, unsigned n);

/* The verdict's name: "more", "ceiling", "precise", "slower", "cut-factor". */
const char *ht__repeats_verdict_name(enum ht_repeats_verdict v);

/* The binary cache folder that opts selects, written into buf. */
void ht__cache_dir(const struct ht_exec_opts *opts, char *buf, size_t size);

/* The lock file of dev, written into buf (size bytes). */
void ht__device_lock_path(const struct ht_device_info *dev, char *buf, size_t size);

/* Takes dev's lock, waiting while another process holds it (on_wait, when not NULL, is
 * told once), looking again every 50 ms, until *stop (when stop is not NULL) is raised.
 * Sets *fd to the lock's descriptor (give it back with ht__device_unlock). Returns HT_OK,
 * HT_EINTR when *stop ended the wait (*fd -1), HT_EIO when the lock folder or file cannot
 * be made or locked (err names it and why; *fd -1). */
int ht__device_lock(const struct ht_device_info *dev, volatile sig_atomic_t *stop,
                    ht_device_lock_wait_fn on_wait, void *user, int *fd,
                    struct ht_error *err);

/* Gives back a lock ht__device_lock took; fd -1 is allowed (nothing to do). */
void ht__device_unlock(int fd);

#endif
