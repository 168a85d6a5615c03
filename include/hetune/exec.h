/* hetune — OpenCL execution of one configuration on one device.
 *
 * A session holds what does not change between configurations of one spec on one device:
 * the context and profiling queue, the host input data (generated once, with a fixed seed),
 * and the reference output (computed on first need; a reference configuration's, or a
 * reference kernel's with verify.once, only once per problem: kept in the cache folder as
 * <key>.ref, keyed by everything the outputs depend on but the device, and read by every
 * later session, unless opts.no_cache). ht_session_eval builds the kernel for one
 * configuration (through the on-disk binary cache), creates and fills the buffers, runs
 * the NDRange up to spec->repeats times (fewer with adaptive repeats, see below)
 * timing each run with profiling events, restores readwrite buffers and poisons write
 * buffers before every repeat, reads the outputs back and verifies them.
 *
 * A pipeline spec (docs/spec.md, "Pipelines") is evaluated the same way with one program
 * (the same -D options) whose active stages run in order on the one in-order queue in
 * every run: the run's kernel time is the sum of the stages' profiling times, temp buffers
 * live on the device only (created once per configuration, poisoned before every run, not
 * read back, verified or dumped), and each active stage's platform rules are checked
 * before the build (ht_spec_check_stages).
 *
 * A NULL pointer a function cannot do without (the spec, device, session, an output) is
 * HT_EINVAL with err->text "FUNCTION: ARGUMENT is NULL", never a crash; err may be NULL
 * everywhere. The void functions do nothing with a NULL, and those that answer a number
 * answer 0 for a NULL; where NULL is taken instead, the function's comment says what it means.
 */
#ifndef HETUNE_EXEC_H
#define HETUNE_EXEC_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"
#include "hetune/platform.h"
#include "hetune/space.h"
#include "hetune/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The data path: how a device's buffers meet host memory (DESIGN.md, "Moving data").
 * Tuning (ht_session_eval) and co-execution (coexec.h) use the same path, so that a tuned
 * time is a time the runtime will see. */
enum ht_data_path {
    HT_PATH_AUTO = 0,  /* in place on CPU and host-unified devices, pinned on the others */
    HT_PATH_PAGEABLE,  /* plain host memory that the driver copies (hetune up to 0.1: the
                          pageable rate, 5.8 GB/s host to H100) */
    HT_PATH_PINNED,    /* host data in pinned memory (a CL_MEM_ALLOC_HOST_PTR buffer of the
                          device's context, mapped) copied by DMA (54 GB/s host to H100) */
    HT_PATH_INPLACE    /* the device works on page-aligned host memory in place
                          (CL_MEM_USE_HOST_PTR); outputs are mapped, not copied */
};

/* The path's name: "auto", "pageable", "pinned" or "inplace" (NULL for no path). */
const char *ht_data_path_name(enum ht_data_path path);

/* Sets *path from its name. HT_EINVAL for any other string, or a NULL one or path. */
int ht_data_path_parse(const char *name, enum ht_data_path *path);

/* The path a device takes when path is asked for: HT_PATH_AUTO becomes HT_PATH_INPLACE on
 * a device with dev->host_unified (CPUs) and HT_PATH_PINNED on the others; the others are
 * taken as they are. With dev NULL, path is returned as it is (HT_PATH_AUTO too). */
enum ht_data_path ht_data_path_resolve(enum ht_data_path path, const struct ht_device_info *dev);

/* How a device that is copied to (HT_PATH_PINNED) moves a host array hetune did not
 * allocate: a program's own memory bound with ht_runtime_bind (malloc, pageable, at any
 * alignment), or the decision's data when it measures for such memory. Chosen per
 * direction (ht_exec_opts.foreign_up, foreign_down); arrays of ht_runtime_alloc are
 * pinned already and always go directly. Only whole contiguous ranges (a slice of whole
 * rows) take staging or registering; a rectangle of a split along an inner axis goes
 * directly. */
enum ht_foreign_path {
    HT_FOREIGN_AUTO = 0,  /* HT_FOREIGN_PIN, alone and in a split: the fastest on the
                             H200 machine (bench/gpu/foreign.sh, bench/gpu/leavecore.sh;
                             docs/results-gpu.md) */
    HT_FOREIGN_STAGE,     /* through a ring of pinned chunks (stage_bytes each): the copy of
                             chunk k+1 into pinned memory, spread over stage_threads threads,
                             overlaps the DMA of chunk k; both ways */
    HT_FOREIGN_REGISTER,  /* a CL_MEM_USE_HOST_PTR buffer over the array in the device's
                             context, synchronised by map and unmap of the slice and copied to
                             or from the device's buffer on the device (the driver may or may
                             not pin the array) */
    HT_FOREIGN_DIRECT,    /* the array handed to clEnqueueWrite/ReadBuffer as it is: the
                             driver's pageable copies (hetune up to 0.2) */
    HT_FOREIGN_PIN        /* a CL_MEM_USE_HOST_PTR buffer over the array, made once and
                             kept only so that the driver pins the array in place (NVIDIA's
                             does at its creation), and the array handed to
                             clEnqueueWrite/ReadBuffer as it is: a driver that pinned it moves
                             it at the pinned rate, with no map and no copy on the device;
                             one that did not, at its pageable rate */
};

/* The foreign path's name: "auto", "stage", "register", "direct" or "pin" (NULL for
 * none). */
const char *ht_foreign_path_name(enum ht_foreign_path path);

/* Sets *path from its name. HT_EINVAL for any other string, or a NULL one or path. */
int ht_foreign_path_parse(const char *name, enum ht_foreign_path *path);

/* Isolation (docs/guide.md, "When a configuration crashes or hangs"): where a session
 * builds and runs its configurations. In a worker process (the executable hetune-worker),
 * a configuration that crashes the driver or never ends costs only itself: ht_session_eval
 * returns HT_ECRASH ("crashed: SIGSEGV") or HT_ETIMEOUT ("timeout after 2.0 s"), and the
 * next evaluation starts a new worker. The worker is found as opts.worker names it, else
 * $HETUNE_WORKER, else installed beside the library's own file (libhetune.so's
 * ../libexec/hetune, wherever the prefix lies), else beside the running program (or in its
 * ../libexec/hetune), else the build tree's (for the build tree's library only), else the
 * install location compiled in. With HT_ISOLATE_AUTO and none found, the configurations
 * run in this process and the log hook (ht_set_log) is told so. */
enum ht_isolation {
    HT_ISOLATE_AUTO = 0, /* a worker when one is found, else in this process (default) */
    HT_ISOLATE_OFF,      /* in this process */
    HT_ISOLATE_ON        /* a worker, or ht_session_create fails with HT_ENOTFOUND */
};

/* The automatic time limit of an isolated evaluation (opts.timeout_s 0): HT_TIMEOUT_FACTOR
 * times the longest evaluation of the session that ran (its build, runs and
 * verification), at least HT_TIMEOUT_FLOOR_S; HT_TIMEOUT_FIRST_S before any has run. */
#define HT_TIMEOUT_FACTOR 10.0
#define HT_TIMEOUT_FLOOR_S 10.0
#define HT_TIMEOUT_FIRST_S 120.0

struct ht_exec_opts {
    enum ht_data_path data_path; /* HT_PATH_AUTO unless a comparison asks for another */
    enum ht_foreign_path foreign_up, foreign_down; /* copied devices, arrays hetune did not
                               allocate, host to device and back (see above); AUTO: stage */
    size_t stage_bytes;     /* HT_FOREIGN_STAGE: bytes per pinned chunk; 0: 4 MiB */
    unsigned stage_threads; /* HT_FOREIGN_STAGE: threads that copy a chunk; 0: 8, at most
                               the cores online */
    int no_cache;           /* 1: neither read nor write the binary cache (nor the
                               reference outputs kept beside it). It is never
                               written for PoCL's devices unless POCL_KERNEL_CACHE=0:
                               PoCL caches built programs itself, and asking it for a
                               binary costs a second code generation */
    const char *cache_dir;  /* NULL: $HETUNE_CACHE_DIR, else $XDG_CACHE_HOME/hetune,
                               else $HOME/.cache/hetune */
    int no_verify;          /* 1: skip verification (verified = -1) */
    enum ht_eq3 eq3;        /* Eq. 3 variant used when checking the configuration */
    enum ht_isolation isolate; /* default HT_ISOLATE_AUTO */
    double timeout_s;       /* isolated: the time limit of one evaluation; 0: automatic */
    const char *worker;     /* isolated: the worker executable; NULL: found (see above) */
    volatile sig_atomic_t *stop; /* isolated: when not NULL and raised (by a signal
                               handler), the evaluation in flight is abandoned within
                               0.1 s and returns HT_EINTR */
};

/* Fills opts with the defaults: cache on, default folder, verification on, Eq. 3 product,
 * isolation when a worker is found, automatic time limit. */
void ht_exec_opts_init(struct ht_exec_opts *opts);

#define HT_MAX_REPEATS 1000

struct ht_eval_result {
    int status;              /* HT_OK, or HT_ECONSTRAINT, HT_EBUILD, HT_ELAUNCH, HT_ECL,
                                HT_EVERIFY, HT_ECUT (early termination, tune.h's
                                cut_factor): the same value ht_session_eval returns */
    unsigned ndims;
    uint64_t global[3], local[3];  /* local all 0 when left to the runtime */
    double build_s;          /* wall time to get the program: compile (and write the
                                binary cache), or load from the cache */
    int cache_hit;           /* 1 when the program binary came from the cache */
    unsigned nruns;          /* how many runs were timed */
    double *run_s;           /* nruns entries (NULL may stand for none): the kernel time
                                of each run, from profiling events, in run order; owned,
                                freed with build_log by ht_eval_result_destroy. ABI: an
                                array of HT_MAX_REPEATS inside the struct until branch
                                abi40, which made the struct 8 KB smaller; a program
                                built against the older header must be built again. Its
                                source needs no change: run_s[k] reads the same */
    double kernel_s;         /* mean of the best keep_best runs: the figure of merit */
    double kernel_min_s;
    double write_s;          /* host-to-device transfers of one run (mean over runs) */
    double read_s;           /* device-to-host transfers of the outputs */
    double gflops;           /* from spec->flops and kernel_s, or -1 when not given */
    double gbps;             /* from spec->bytes and kernel_s, or -1 when not given */
    int verified;            /* 1 passed, 0 failed, -1 not verified */
    double max_abs_err, max_rel_err;
    size_t mismatches;       /* elements outside rtol/atol */
    char mismatch[256];      /* the first mismatch, e.g. "C[3][17]: got nan, expected 12.5" */
    char *build_log;         /* owned; the compiler's log when the build failed, else NULL */
    double launch_compile_s; /* the first launch's wall time beyond its kernel time, less
                                that of the second run (or of none with one run): what the
                                driver does once at a first launch, chiefly the compilation
                                some drivers leave until then (PoCL generates the
                                work-group function for the local size at the first launch),
                                plus, with a reference kernel, the same for its one launch.
                                Not part of build_s; 0 when no run was made. */
    /* Pipelines (spec->npipeline > 0): the stages this configuration launched, in order,
     * as indices into spec->pipeline, and each one's kernel time: the mean over the same
     * best keep_best runs as kernel_s, so that they sum to kernel_s (each run's time is
     * the sum of its stages' profiling times). nstages is 0 for a single kernel. */
    unsigned nstages;
    unsigned stage_index[HT_MAX_STAGES];
    double stage_s[HT_MAX_STAGES];
};

/* Frees what a result owns (the build log and the runs, run_s) and leaves it reusable,
 * nruns 0. */
void ht_eval_result_destroy(struct ht_eval_result *res);

struct ht_session; /* opaque */

/* Opens a session for spec on dev. spec and dev are borrowed and must outlive the
 * session; opts is copied (NULL: the defaults of ht_exec_opts_init). *out is owned by the
 * caller (ht_session_free). Returns HT_ECL
 * (with the OpenCL error's name in err) when the context or queue cannot be created.
 * Isolated (opts.isolate), the session starts its worker, which loads spec->path again
 * with spec's sizes, repeats, keep_best and tolerances (a spec whose kernel changed on
 * disk since is refused: HT_ESPEC); HT_ECRASH or HT_ETIMEOUT when it cannot start,
 * HT_ENOTFOUND with HT_ISOLATE_ON when there is no worker. ht_session_isolated says which. */
int ht_session_create(const struct ht_spec *spec, const struct ht_device_info *dev,
                      const struct ht_exec_opts *opts, struct ht_session **out,
                      struct ht_error *err);

/* Frees a session; NULL is allowed. */
void ht_session_free(struct ht_session *s);

/* 1 when the session's configurations run in a worker process, else 0 (0 for NULL). */
int ht_session_isolated(const struct ht_session *s);

/* Builds, runs, times and verifies one configuration (spec->space.nparams values).
 * Fills res (which need not be initialised) and returns res->status. err says why when it
 * is not HT_OK: the rule a configuration breaks, the OpenCL error's name, the build log's
 * first line (the whole log is in res->build_log), or the first mismatch. Isolated, also
 * HT_ECRASH, HT_ETIMEOUT and HT_EINTR (see ht_exec_opts). Whatever it returns, res owns
 * what it holds (run_s, build_log): ht_eval_result_destroy before res is filled again or
 * dropped, as what res held is not freed here. config may be NULL for a spec without
 * parameters. */
int ht_session_eval(struct ht_session *s, const int64_t *config, struct ht_eval_result *res,
                    struct ht_error *err);

/* The fewest runs after which a configuration may be cut early (ht_tune_opts' cut factor,
 * the rule below): the first launch of a program may include the driver's last
 * compilation step (PoCL's for one). */
#define HT_CUT_MIN_RUNS 2

/* Adaptive repeats (issue 25, item 5; docs/spec.md, "Timing"). With the spec's
 * timing.adaptive on (the default), timing.repeats is a ceiling: after each run,
 * ht_session_eval decides by the rule below whether the configuration has been measured
 * enough. The rule, with the n runs so far sorted, x1 <= x2 <= ... <= xn,
 * k = max(keep_best, min_repeats, 3) (keep_best 0: repeats), and b the statistic of the
 * best configuration so far (set by the tuner that drives the session, ht_tune_device;
 * none when not a positive finite number, as in a session no tuner drives):
 *
 *   - never before min_repeats runs (clamped to 1..repeats), never after the ceiling,
 *     never with cut_factor <= 0 (the tuner's --cut-factor 0: every configuration runs
 *     all its repeats, as it did with early termination off);
 *   - HT_REPEATS_CUT_FACTOR: the tuner's cut by the factor, also with adaptive off:
 *     n >= HT_CUT_MIN_RUNS and x1 > cut_factor * b (cut_factor > 0);
 *   - HT_REPEATS_SLOWER: n >= max(min_repeats, 2) and x1 > b * (1 + d), where
 *     d = max(m, 2 * (x2 - x1) / x1) and m the margin for runs as long as b's
 *     (the margin, shrinking for long runs as sqrt(margin_time_s / b) down to
 *     margin_floor): even the fastest run is above the best by more than that
 *     margin and by more than twice the gap between its two fastest runs (the scale by
 *     which a further run could still come in faster). ht_session_eval returns HT_ECUT,
 *     as for a cut by the factor;
 *   - HT_REPEATS_PRECISE: n >= k, the fastest k runs lie within precision of x1
 *     ((xk - x1) / x1 <= precision), there is a best so far, and the configuration is no
 *     competitor: x1 * (1 - precision) > b (its statistic, at least x1, could come below
 *     b only if a further run were faster than x1 by more than the precision). Its time
 *     is then known to about precision and it cannot become the best; it is verified and
 *     stored as a full result (HT_OK) with its nruns runs. Runs of HT_REPEATS_LONG_S or
 *     longer stop so too without the last two conditions (no best needed, a competitor
 *     or the first configuration included): k runs of seconds each that agree within the
 *     precision say the time as well as more would, which would cost seconds each.
 *
 * Why a good configuration cannot lose: the mean of the best keep_best runs (kernel_s)
 * can only fall as runs are added, so stopping early never makes a configuration look
 * faster; one that beats the best so far, any close competitor and the first
 * configuration (no b) are never stopped for precision with runs shorter than
 * HT_REPEATS_LONG_S and then run all repeats (unless cut),
 * so the best is always measured as with adaptive off; a configuration cut as slower is
 * stored as cut and never chosen as best (the tuner's rule), and is cut only when its
 * fastest run is clearly above b. What remains is the chance every measurement has: k
 * runs (rather than repeats) of a faster configuration all slowed alike by more than the
 * precision, or min_repeats runs all slowed by more than the margin. */
/* Runs at least this long (seconds) are known by k of them agreeing within the precision:
 * HT_REPEATS_PRECISE needs no best so far then. */
#define HT_REPEATS_LONG_S 2.0

enum ht_repeats_verdict {
    HT_REPEATS_MORE = 0,   /* run again */
    HT_REPEATS_CEILING,    /* repeats runs made: done, as always */
    HT_REPEATS_PRECISE,    /* known closely enough, and not a competitor: done */
    HT_REPEATS_SLOWER,     /* clearly slower than the best so far: cut */
    HT_REPEATS_CUT_FACTOR  /* more than cut_factor times the best so far: cut */
};

struct ht_repeats_rule {
    unsigned repeats;      /* the ceiling (timing.repeats, at least 1) */
    unsigned keep_best;    /* the statistic's runs (timing.keep_best; 0: all) */
    int adaptive;          /* timing.adaptive: 0 leaves only the cut factor's rule */
    unsigned min_repeats;  /* timing.min_repeats (default HT_TIMING_MIN_REPEATS, spec.h) */
    double precision;      /* timing.precision (HT_TIMING_PRECISION) */
    double margin;         /* timing.margin (HT_TIMING_MARGIN) */
    double margin_time_s;  /* runs longer than this get a smaller margin (the cost-aware
                              margin below; the tuner's HT_REPEATS_MARGIN_TIME_S); <= 0:
                              the margin is the same for every run length */
    double margin_floor;   /* the smallest margin a long run gets
                              (HT_REPEATS_MARGIN_FLOOR) */
    double best_s;         /* the best so far's statistic; <= 0: none */
    double cut_factor;     /* <= 0: no early stop of any kind */
};

/* The cost-aware margin (issue 25, the slow case: a configuration 18% slower than the
 * best, at 8 s a run, ran all 10 repeats under a margin of 20%). Runs up to
 * HT_REPEATS_MARGIN_TIME_S long keep timing.margin; longer ones (the best's runs, b)
 * get margin * sqrt(HT_REPEATS_MARGIN_TIME_S / b), but never less than
 * HT_REPEATS_MARGIN_FLOOR: 10% at 0.4 s, 5% from 1.6 s on. */
#define HT_REPEATS_MARGIN_TIME_S 0.1
#define HT_REPEATS_MARGIN_FLOOR 0.05

/* Writes each written buffer (write and readwrite) of the last ht_session_eval that read
 * its outputs back (it passed, or failed only verification) as raw little-endian
 * DIR/<name>.bin, creating DIR when missing. Returns HT_EINVAL when there is none, HT_EIO. */
int ht_session_dump(const struct ht_session *s, const char *dir, struct ht_error *err);

/* What hetune's data path achieves between the host and one device
 * (`hetune devices --bandwidth`), beside the ceiling: a plain OpenCL copy between a
 * pinned host buffer and device memory. Rates are bytes per second, the best of the
 * repeats, from wall clocks around blocking calls; 0 when not measured. The three are
 * timed in turns within each repeat, so that the machine's other work falls on all alike.
 * For HT_PATH_INPLACE the path's rates are those of mapping and unmapping the host memory
 * the device works on (nothing is copied: they are large, and their ratio to the ceiling
 * far above 1). Stored by ht_store_put_bandwidth (store.h). */
struct ht_bandwidth {
    enum ht_data_path path;   /* the path measured (resolved, never HT_PATH_AUTO) */
    uint64_t bytes;           /* bytes per transfer */
    unsigned repeats;         /* transfers timed each way */
    double h2d_Bps, d2h_Bps;  /* hetune's data path, host to device and back */
    double pinned_h2d_Bps, pinned_d2h_Bps;     /* the ceiling: from and to pinned memory */
    double pageable_h2d_Bps, pageable_d2h_Bps; /* from and to plain malloc memory */
};

/* Measures dev's link with transfers of bytes (0: 64 MiB, clamped to a quarter of the
 * device's max_mem_alloc_size), each way repeats times (0: 5; at most 1000) after one
 * untimed transfer, through the path opts->data_path resolves to for dev (opts NULL:
 * auto), in a context and queue of its own that it releases. Fills *out. HT_EINVAL (no
 * device, an unknown path, too many repeats), HT_ECL (the OpenCL error's name in err),
 * HT_ENOMEM. */
int ht_bandwidth_measure(const struct ht_device_info *dev, const struct ht_exec_opts *opts,
                         uint64_t bytes, unsigned repeats, struct ht_bandwidth *out,
                         struct ht_error *err);

/* The host memory's own rate, which a CPU device working in place and the DMA engines of
 * every GPU share when a split moves data (`hetune devices --bandwidth` measures it once per
 * machine beside the links; the bus model of a split bounds its time by the bytes that pass
 * through host memory over this rate). */
/* The most copying devices whose shared rate is measured one count at a time. */
#define HT_HOST_SHARED_MAX 8

struct ht_host_memory {
    double Bps;        /* bytes read and written per second: c = a + b over three arrays,
                          the best pass */
    double read_Bps;   /* bytes read per second: a pass that only reads a and b */
    double shared_Bps; /* bytes per second host memory served the CPU's threads (both
                          passes) and every copying device's DMA at once
                          (ht_host_memory_measure_shared); 0: not measured */
    unsigned shared_threads;  /* the CPU's threads then */
    unsigned shared_devices;  /* the devices copying then */
    uint64_t bytes;    /* bytes of each array */
    unsigned threads;  /* threads that ran each pass together */
    unsigned repeats;  /* passes timed, after one untimed */
    double shared_by_Bps[HT_HOST_SHARED_MAX]; /* [k - 1]: the shared rate with the first k
                          copying devices only (shared_Bps is that of all of them); 0: not
                          measured. A split whose parts use k of them is held to it: with
                          one of two H200s copying, host memory served less than with both */
};

/* Measures the host memory's rate with threads threads (0: one per online core) over three
 * arrays of bytes each (0: 256 MiB, beyond the last-level caches of today's servers), the best of repeats passes (0: 10; at most 1000). Fills
 * *out. HT_EINVAL (too many threads or repeats, arrays smaller than 64 floats a thread or
 * above 2^40 bytes), HT_ENOMEM (memory, threads). */
int ht_host_memory_measure(unsigned threads, uint64_t bytes, unsigned repeats,
                           struct ht_host_memory *out, struct ht_error *err);

/* The smallest arrays ht_host_memory_measure (and _shared) take with threads threads (0: one
 * per online core, as they count them): 64 floats a thread. */
uint64_t ht_host_memory_min_bytes(unsigned threads);

/* Measures what host memory serves a CPU's threads and the DMA engines of devs[0..n) at
 * once: each device moves 16 MiB pieces of a pinned region of 256 MiB to itself and back in
 * a loop (a region beyond the last-level cache, as a split's arrays are), in a context and
 * thread of its own, while one thread per core less the devices copying run
 * ht_host_memory_measure's passes over arrays of bytes (0: 256 MiB), repeats times (0: 10);
 * the rate is every byte the CPU's passes and the copies moved between the CPU's first and
 * last timed pass, over that time. Measured with devs[0..k) for every k from 1 to n (at
 * most HT_HOST_SHARED_MAX) into shared_by_Bps[k - 1]; shared_Bps, shared_threads and
 * shared_devices are those of the last. Sets nothing else; n 0: nothing. HT_EINVAL (a device without OpenCL handles), HT_ECL (a copy failed: its error),
 * HT_ENOMEM, and ht_host_memory_measure's. */
int ht_host_memory_measure_shared(const struct ht_device_info *const *devs, size_t n,
                                  uint64_t bytes, unsigned repeats, struct ht_host_memory *out,
                                  struct ht_error *err);

/* --- one measurement at a time per device, machine-wide (src/exec/devlock.c) ---
 *
 * Two processes measuring one device at once skew each other's times (x1.6-2 on a CPU,
 * x11 for a sub-microsecond kernel), whatever database each writes. A device lock is an
 * flock(2) on a file named after the device in the lock folder: $HETUNE_LOCK_DIR, else
 * /tmp/hetune-locks (created sticky and writable by all, as /tmp is, so that every
 * user's hetune meets the same locks). Every CPU device of the machine has one lock,
 * "cpu": they share the host's cores. Any other device is named by platform, name and
 * index. The kernel lets the lock go when its holder exits, however it ends, so a killed
 * process never leaves a device locked. The holder's pid is written into the file for
 * the waiting notice. Waiters take turns: each holds a shared flock on "<lock>.wait" while
 * it waits, and a process that is not waiting yet does not take a free lock while others
 * do, so that one giving the lock back and taking it again at once (an MPI rank between
 * configurations) does not starve a waiter. */

/* Called once when the device is locked by another process: path is the lock file,
 * holder its holder's pid (0 when unknown: the holder writes it just after it takes the
 * lock, so a wait that finds none looks again for up to 0.2 s first, and a wait that ends
 * sooner is not told); and once more when that wait ends (the lock taken, or the wait
 * stopped), with path NULL and holder 0. */
typedef void (*ht_device_lock_wait_fn)(const struct ht_device_info *dev, const char *path,
                                       long holder, void *user);

/* --- several devices at once, and the load seen while they measured ---
 *
 * A co-execution measures all its devices together, so it holds all their locks. No
 * deadlock between processes: every set is taken in one fixed global order, that of the
 * lock files' paths (strcmp), each file once (all CPU devices share "cpu.lock"), and a
 * process waits for a lock only while it holds none that sorts after it. Within one
 * process a lock already held (by another set this process took) is taken again at once
 * and counted, so that a measurement nested in another never waits for itself.
 *
 * While a set is held the machine's load is watched: the CPU time every process used
 * (/proc/stat, or the file $HETUNE_LOAD_STAT names, same format, for tests) less the CPU
 * time of this process and its children (getrusage and /proc/PID/stat of each live
 * child, the isolated workers among them). Every window is watched, a GPU's too: a CPU
 * device's kernels share the cores with everything else, and a GPU's measurements depend
 * on the host too (its launches, a short kernel's time being mostly launch latency, its
 * data copied through pinned staging by host threads, a co-execution's wall clock). */

#define HT_DEVICE_LOCKS_MAX 16

/* Other processes using this many cores on average while a device measured make a
 * measurement "under load". An idle machine's daemons use a few hundredths of a core; a
 * second tune or a build uses one or more. */
#define HT_LOAD_CORES 0.25
/* Windows shorter than this in all are not judged: /proc/stat counts in ticks (10 ms), so
 * a short window's figure is mostly rounding. */
#define HT_LOAD_MIN_WINDOW_S 0.5

/* What a run saw of other processes while it measured: summed over every window it held
 * device locks in (ht_device_locks_release adds one). Zero-initialize. */
struct ht_load {
    double window_s;        /* wall time watched (every window locks were held in) */
    double other_cpu_s;     /* CPU seconds others used in those windows */
    unsigned cores;         /* online cores */
    int unlocked;           /* 1: some measurement ran without its device lock */
    char unlocked_why[512]; /* why, the first time ("cannot make the device lock folder
                               ...: Permission denied ..."); "" when locked */
};

/* The cores other processes used on average while l was watched (0 when nothing was). */
double ht_load_other_cores(const struct ht_load *l);

/* 1 when the measurements of l were made under load: others used at least HT_LOAD_CORES
 * on average over windows of HT_LOAD_MIN_WINDOW_S or more in all, or some measurement ran
 * without its device lock. */
int ht_load_under(const struct ht_load *l);

/* Adds what src saw to *dst (windows, CPU time, the first reason for no lock). Nothing when
 * either is NULL. */
void ht_load_add(struct ht_load *dst, const struct ht_load *src);

/* A set of device locks held (ht_device_locks_take); opaque but for the caller's stack. */
struct ht_device_locks {
    size_t n;                                 /* distinct lock files held */
    int slot[HT_DEVICE_LOCKS_MAX];            /* their entries in the process's table */
    int cpu;                                  /* 1: a CPU device is among them */
    int watching;                             /* the load watch below is running */
    double t0, busy0, own0;                   /* the load watch's start */
};

/* How a set of locks waits for one another process holds. Zero-initialize: no zero field
 * changes anything (no stop, a silent wait). */
struct ht_device_wait {
    volatile sig_atomic_t *stop;  /* raised: the wait ends (HT_EINTR); NULL: never */
    ht_device_lock_wait_fn on_wait; /* told once per lock found held, with that device */
    void *user;                   /* on_wait's user */
};

/* Takes the locks of devs[0..n) in the global order above (waiting as wait says, NULL: a
 * silent wait nothing stops; looking again every 50 ms), then starts the load watch. A
 * lock that cannot be made (the folder or file not writable) is not an error: the
 * measurement goes on without it and load->unlocked (with why) says so; load may be
 * NULL. Returns HT_OK with *l to give back with ht_device_locks_release; HT_EINTR when
 * *wait->stop ended a wait (nothing held); HT_EINVAL for more than HT_DEVICE_LOCKS_MAX
 * distinct locks, and for a NULL l, devs (n > 0) or devs[i]. */
int ht_device_locks_take(const struct ht_device_info *const *devs, size_t n,
                         const struct ht_device_wait *wait, struct ht_device_locks *l,
                         struct ht_load *load, struct ht_error *err);

/* Ends l's load watch, adding its window to *load (may be NULL), and gives its locks
 * back. A zeroed l, or one released already, is fine; NULL does nothing. */
void ht_device_locks_release(struct ht_device_locks *l, struct ht_load *load);

#ifdef __cplusplus
}
#endif
#endif
