/* hetune — tuning: the exploration of one spec's pruned space on one device.
 *
 * ht_tune_device ties the modules together (issue 4): it enumerates the valid
 * configurations of the spec on the device (space.h), lets a search strategy choose which
 * to evaluate (search.h), builds, runs, times and verifies each in one session
 * (exec.h), and records every evaluation with all its runs through its sink (the results
 * database of store.h, or a program's own) before asking for the next one. So a tune
 * killed at any moment loses at most the configuration in flight, and running it again
 * measures nothing that is recorded: recorded results are handed to the search first, as
 * results obtained elsewhere, and count neither as evaluations nor against the budget.
 *
 * A configuration that fails to build, to launch or to verify is stored with its status
 * and reason and is never chosen as best. Early termination: once a best time is known, a
 * configuration whose fastest run so far is more than cut_factor times that best is not
 * repeated further and is stored as "cut" with the runs it made (`hetune tune --cut-factor`;
 * exec.h, "Adaptive repeats").
 *
 * A NULL pointer a function cannot do without (the spec, the device, the sink, a path, an
 * output) is HT_EINVAL with err->text "FUNCTION: ARGUMENT is NULL", never a crash; err may
 * be NULL everywhere. The void functions do nothing with a NULL, and those that answer a
 * number or a pointer answer 0 or NULL for a NULL; where NULL is taken instead, the
 * function's comment says what it means.
 */
#ifndef HETUNE_TUNE_H
#define HETUNE_TUNE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"
#include "hetune/exec.h"
#include "hetune/platform.h"
#include "hetune/search.h"
#include "hetune/space.h"
#include "hetune/spec.h"
#include "hetune/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the progress callback sees. Everything is borrowed for the duration of the call. */
struct ht_tune_progress {
    const struct ht_device_info *dev;
    size_t space;            /* valid configurations on the device; SIZE_MAX: that many
                                or more (space_text says how many) */
    char space_text[HT_SPACE_COUNT_TEXT]; /* the same in decimal, exact below 2^128
                                (ht_space_counts's pruned_text) */
    size_t from_db;          /* known from the database, not measured again */
    size_t done;             /* evaluations of this run so far (cut and failed included) */
    size_t total;            /* evaluations this run will make at most: the configurations
                                not stored yet, capped by the budget. The genetic and
                                annealing strategies may finish earlier. */
    size_t cut, failed;      /* of this run's evaluations */
    const int64_t *config;   /* the configuration just evaluated (NULL in the first call,
                                made before any evaluation) */
    int status;              /* its HT_OK / HT_E... status (HT_OK in the first call) */
    const int64_t *best;     /* the best configuration so far, or NULL when none */
    double best_s;           /* its time; -1 when none */
    double elapsed_s;        /* since ht_tune_device started */
    double eta_s;            /* estimated seconds left: from the mean time per evaluation
                                so far and total, capped by the time limit; -1 unknown */
    size_t building, built;  /* builds ahead (opts.jobs): configurations being built, and
                                built and waiting to be measured */
    int reference;           /* the reference step (the spec's reference outputs,
                                computed or read once per problem), before
                                the first evaluation: 1 in a call made as it starts
                                (reference_s is its time limit, 0: none), 2 in one made once
                                the reference outputs are there (reference_s is how long
                                it took, reference_computed 1 when computed rather than read
                                from the cache); 0 in every other call */
    double reference_s;
    int reference_computed;
};

typedef void (*ht_tune_progress_fn)(const struct ht_tune_progress *p, void *user);

/* Called when the tune of dev must wait for another process (holder, borrowed for the
 * call) that holds the device's lease (store.h). */
typedef void (*ht_tune_wait_fn)(const struct ht_device_info *dev,
                                const struct ht_lease_info *holder, void *user);

struct ht_tune_opts {
    const char *strategy;    /* a name of ht_search_strategies[]; NULL (the default):
                                automatic, HT_TUNE_BUDGET_STRATEGY for a budgeted run (a
                                budget below the number of valid configurations, or a time
                                limit), else "exhaustive" */
    size_t budget;           /* most evaluations of this run; 0: no limit */
    double time_limit_s;     /* no new evaluation after this many seconds; 0: no limit */
    uint64_t seed;           /* the strategy's seed */
    double cut_factor;       /* early termination factor (default HT_SEARCH_CUT_FACTOR,
                                3: a configuration whose fastest run is more than 3 times
                                the best so far is cut); 0 turns it off; else >= 1 */
    int fresh;               /* 1: forget the stored evaluations of this problem on the
                                device first and measure everything again */
    enum ht_eq3 eq3;         /* the Eq. 3 variant of the space (and of exec.eq3, which it
                                overrides); default HT_EQ3_PRODUCT */
    struct ht_exec_opts exec;/* binary cache, verification (see exec.h) */
    const struct ht_search_opts *search; /* strategy knobs (genetic, anneal); NULL: the
                                defaults. Its seed, budget and time limit are replaced by
                                the fields above. Borrowed for the call. */
    ht_tune_progress_fn progress; /* called before the first evaluation and after each;
                                NULL: none. It must not use the store. */
    void *progress_user;
    ht_tune_wait_fn on_wait; /* one process measures a device at a time (a lease in the
                                database, store.h, or the sink's lease op): when another
                                holds the device, the tune
                                calls this once, then waits until the lease is given back
                                or goes stale, or until *stop is raised (result.stopped 1).
                                NULL: it waits silently. */
    void *wait_user;         /* passed to on_wait and on_device_wait */
    ht_device_lock_wait_fn on_device_wait; /* one measurement per device machine-wide,
                                whatever the database (exec.h, ht_device_locks_take): the tune
                                holds the device's lock while it measures (a lock that
                                cannot be made is no error: result.load says the tune
                                measured without it); when another
                                process holds it, the tune calls this once and waits,
                                until *stop is raised (result.stopped 1). NULL: it waits
                                silently. Not for a replay, which measures nothing. */
    volatile sig_atomic_t *stop; /* when not NULL and non-zero (set by a signal handler,
                                typically for SIGINT), no new configuration is started and
                                ht_tune_device returns with result.stopped 1. The one in
                                flight is abandoned within 0.1 s and not stored when it
                                runs in a worker (exec.isolate); in this process it is
                                finished and stored (unless it failed after the flag was
                                raised, as a signal can make a call fail). exec.stop is
                                set to it when NULL. */
    int retry_failed;        /* 1: every configuration stored as failed (build, launch,
                                verify, constraint, cl, crashed, timeout) is measured
                                again. By default a failure counts as known: a kernel's
                                own (build, crashed, timeout) as long as the kernel is the
                                same (it is part of the problem), one of the spec's making
                                (launch, verify, constraint, cl) only when stored with the
                                same spec (ht_spec.hash); "error" is always measured again */
    unsigned jobs;           /* build workers (hetune-worker processes, docs/guide.md) that build the
                                next configurations while the device measures one; 1
                                (default): none, each is built when it is measured; 0:
                                automatic, one per online core, but none under replay nor
                                on a CPU device (is_cpu) of a machine with fewer than 8
                                cores. On a CPU device the build workers are paused while
                                it measures (they would take the cores the measurement
                                runs on), a pause not counted against their time limits
                                (docs/guide.md). With
                                jobs > 1 the search has jobs + 1 proposals in flight
                                (ht_search_opts.max_in_flight): each is chosen without the
                                results of those still in flight (search.h says what that
                                changes per strategy), and a time limit may end the tune
                                with some built and never measured. A build that crashes,
                                hangs, fails or breaks a rule is stored as such, not
                                measured. Under replay nothing is built: jobs only sets how
                                far ahead the search proposes. */
    struct ht_recording *replay; /* not NULL: answer every evaluation from this recording
                                (see above; the tune binds it to the spec); dev is then
                                the replayed device (ht_recording_device_info) and the
                                time limit is in simulated seconds. Borrowed. */
};

/* Fills opts with the defaults above. */
void ht_tune_opts_init(struct ht_tune_opts *opts);

/* The strategy of a budgeted run when none is named: the best of hetune's strategies on
 * the recorded spaces of bench/search (docs/results/search-*.txt). */
#define HT_TUNE_BUDGET_STRATEGY "bayes"

/* ---- Recorded spaces (replay) -------------------------------------------------------------
 *
 * A recording is a tuning space measured elsewhere: a T4 results file (Kernel Tuner's and
 * the benchmark hub's results format; hetune export --format t4 writes one) or a Kernel
 * Tuner cache file, either plain or gzip'd. A tune given one (ht_tune_opts.replay) answers
 * every evaluation from it instead of a device, with the same search and the same store:
 *   - a configuration's cost is its recorded statistic (T4: the "time" measurement, else
 *     the mean of times.runtimes; cache: "time"), its runs are the recorded runs;
 *   - a recorded failure is a failure of the same kind (T4 invalidity compile: build,
 *     runtime: launch, correctness: verify, constraints, timeout; cache markers
 *     CompilationFailedConfig: build, RuntimeFailedConfig: launch, InvalidConfig:
 *     constraint);
 *   - a configuration of the spec's space that the recording lacks is "missing": a failed
 *     evaluation for the search, counted apart (ht_tune_result.missing), never stored;
 *   - a simulated clock advances by each evaluation's recorded compile time, benchmark
 *     time (T4 times.benchmark, else the sum of times.runtimes; cache benchmark_time, else
 *     the sum of times) and framework and verification times: the time limit is in
 *     simulated seconds and ht_tune_result.simulated_s reports the total;
 *   - results are stored under a device of platform HT_REPLAY_PLATFORM named after the
 *     recorded device (ht_recording_device_info), so replayed results never mix with
 *     measured ones, and a replay stored once is not replayed again (as a tune resumes).
 * Nothing is built and no OpenCL platform is needed. Everything is deterministic for a
 * seed. */

/* The platform name of replayed devices. */
#define HT_REPLAY_PLATFORM "hetune replay"

struct ht_recording; /* opaque */

/* Loads the recording at path (T4 or Kernel Tuner cache JSON, gzip'd or not). device
 * (NULL: the only one) picks the device of a T4 file holding several (hetune's export
 * writes each result's "device"). *out is owned by the caller (ht_recording_free).
 * Errors, err->file the path: HT_EIO (unreadable), HT_EPARSE (not JSON: err->line and
 * column; damaged or truncated gzip), HT_ESPEC (not a T4 or cache file, a malformed result,
 * a configuration twice, a correct result without a time, several devices and device
 * NULL: err->text names the result), HT_ENOTFOUND (no result of device), HT_EINVAL (a
 * gzip file and a hetune built without zlib), HT_ENOMEM. */
int ht_recording_load(const char *path, const char *device, struct ht_recording **out,
                      struct ht_error *err);

/* Frees a recording; NULL is allowed. */
void ht_recording_free(struct ht_recording *r);

/* The path the recording was loaded from. Borrowed. NULL for a NULL r. */
const char *ht_recording_path(const struct ht_recording *r);

/* Fills dev with the replayed device: platform HT_REPLAY_PLATFORM, the recorded name, a
 * GPU with limits so large that the platform rules prune nothing the recording's own
 * conditions did not; no OpenCL handles. With r NULL dev is zeroed; with dev NULL nothing
 * is done. */
void ht_recording_device_info(const struct ht_recording *r, struct ht_device_info *dev);

/* What a recording holds of one configuration. Borrowed from the recording. */
struct ht_recorded {
    int status;              /* HT_OK, or the HT_E... of the recorded failure */
    double seconds;          /* the recorded statistic, seconds; -1 when none */
    double compile_s, run_s; /* recorded compile time, and benchmark plus framework time */
    size_t nruns;
    const double *runs;      /* the recorded runs, seconds */
    size_t result;           /* its position in the file */
};

/* ---- Where a tune's results go: the sink ------------------------------------------------
 *
 * The tuner records and looks up everything through a sink, an ops table and its user
 * pointer: the ids of the problem and the device, the space's sizes, each evaluation with
 * its step of the run, the evaluations known before (a resumed or warm tune hands them to
 * the search first, as ht_tune_device says), and the device's lease. ht_tune_sink_store
 * makes the results database's sink (store.h), which hetune tune, the workflow and the
 * Python package use. A program that wants no database gives ht_tune_sink_memory's (below),
 * which keeps the evaluations in an array of its own, or a sink of its own (the store's,
 * src/tune/sink.c, and the memory's, src/tune/memory.c, show how): the tune then opens no
 * SQLite file. ht_mpi_tune takes a sink too, on rank 0 (mpi.h, ht_mpi_tune_opts.sink).
 *
 * The rows are the store's types (store.h: struct ht_stored_eval and the others, plain
 * data), filled by the tuner and borrowed for the call. Every op receives the sink's user
 * pointer first, and returns HT_OK or a negative HT_E... code after setting err
 * (ht_error_set): the tune then ends with that error, keeping what was recorded before,
 * as it does on HT_EDB from the store. The ops are called from the thread that called
 * ht_tune_device, never two at once. */
struct ht_tune_sink_ops {
    /* Called first: the ids, in the sink, of dev and of spec's problem (its kernel, sizes
     * and parameters; an edited spec of the same problem, another ht_spec.hash, is the same
     * problem: each evaluation carries the hash), which the other ops are given as keys and
     * ht_tune_result reports. Required. */
    int (*identify)(void *user, const struct ht_spec *spec, const struct ht_device_info *dev,
                    int64_t *problem_id, int64_t *device_id, struct ht_error *err);
    /* opts.fresh: forgets the problem's evaluations on the device (*forgotten how many)
     * before anything is looked up. NULL: a tune with opts.fresh is refused (HT_EINVAL). */
    int (*forget)(void *user, int64_t problem_id, int64_t device_id, uint64_t *forgotten,
                  struct ht_error *err);
    /* The sizes of the space on the device (sp->eq3, unpruned, platform, pruned), after
     * identify. NULL: not recorded. */
    int (*put_space)(void *user, const struct ht_stored_space *sp, struct ht_error *err);
    /* Hands every evaluation recorded before of the problem on the device to cb (cb_user
     * its user), in the order they were recorded; stops early, returning HT_OK, when cb
     * returns non-zero. A sink that keeps nothing calls cb never. Required. */
    int (*list_evals)(void *user, int64_t problem_id, int64_t device_id,
                      ht_store_eval_cb cb, void *cb_user, struct ht_error *err);
    /* A run of the tuner, made with its first step (a tune that finds everything known
     * records none): *run_id, non-zero, is the key its steps are recorded under.
     * Required. */
    int (*put_run)(void *user, const struct ht_stored_tune_run *run, int64_t *run_id,
                   struct ht_error *err);
    /* The next step of run run_id (its order and clock) and, when ev is not NULL, the
     * evaluation it made, both or neither; ev is NULL for a configuration a replayed
     * recording lacks ("missing"), never an evaluation. Required. */
    int (*put_step)(void *user, int64_t run_id, const struct ht_stored_tune_step *step,
                    const struct ht_stored_eval *ev, struct ht_error *err);
    /* One process measures a device at a time: takes the lease of device_id as
     * ht_store_lease_device does (wait_s 0: no wait, -1: until given back, stale or *stop),
     * returning HT_OK (leased), HT_STORE_LEASE_BUSY (holder filled) or an error; release
     * gives it back. NULL (both): no lease; the device's lock (exec.h) still keeps the
     * measurements of two processes apart. Not called for a replay. */
    int (*lease)(void *user, int64_t device_id, double wait_s, volatile sig_atomic_t *stop,
                 struct ht_lease_info *holder, struct ht_error *err);
    void (*release)(void *user, int64_t device_id);
    /* A replay records hundreds of evaluations a second: on 1 before its first, and, once
     * 1 was given, 0 when it ends (stopped or failed too, with what is pending to be kept;
     * an error of it is the tune's when the tune had none). NULL: not told. */
    int (*replaying)(void *user, int on, struct ht_error *err);
    /* An evaluation made outside a run of ht_tune_device (ht_tune_eval's, below), stored
     * alone, with no run nor step: ht_mpi_tune's rank 0 stores its ranks' evaluations so,
     * as they arrive. As put_step's does, it replaces the evaluation of ev->config kept
     * before. NULL: the sink cannot take them; ht_tune_device never calls it. ABI: the
     * last op, added after the others: ops made before it stay valid for ht_tune_device,
     * which never reads it. */
    int (*put_eval)(void *user, const struct ht_stored_eval *ev, struct ht_error *err);
};

/* A sink: ops (borrowed, typically static) and the pointer they are given. */
struct ht_tune_sink {
    const struct ht_tune_sink_ops *ops;
    void *user;
};

/* Fills sink with the results database's: store (borrowed, until the tunes given the sink
 * return) keeps every evaluation, its run and the space's sizes, forgets for opts.fresh,
 * leases the device, and writes a replay without waiting for the disk, 64 evaluations a
 * transaction (ht_store_set_durable, ht_store_batch). With store NULL the sink has no
 * ops (and user NULL), which ht_tune_device refuses (HT_EINVAL); with sink NULL nothing is
 * done. */
void ht_tune_sink_store(struct ht_tune_sink *sink, struct ht_store *store);

/* A sink that keeps one problem's evaluations on one device in the caller's memory
 * (ht_tune_sink_memory), for a program that tunes with no database. Set evals and cap,
 * every other field zero; read it when the tune returns. A later tune given the same
 * memory resumes from what it holds, as from the database (opts.fresh forgets it); a tune
 * of another problem (another kernel, other sizes or parameters) or another device is
 * refused (HT_EINVAL). It leases nothing (the device's lock of exec.h still keeps two
 * processes' measurements apart) and records no replay apart. Plain data owned by the
 * caller. */
struct ht_tune_memory {
    struct ht_stored_eval *evals; /* the caller's array of cap evaluations */
    size_t cap;              /* a tune that would keep more fails with HT_ENOMEM */
    size_t count;            /* evaluations kept, evals[0..count), in the order made; one
                                of a configuration measured again replaces the earlier
                                and comes last */
    size_t runs, steps;      /* tune runs and steps recorded (a replay's missing
                                configurations are steps, not evaluations) */
    struct ht_stored_space space; /* the space's sizes, of the last tune */
    char key[33];            /* the problem and device kept (32 hex digits of a 128-bit
                                content key); "": none yet */
};

/* Fills sink with one that keeps the results in mem (borrowed, until the tunes given the
 * sink return). With mem NULL the sink has no ops, as ht_tune_sink_store's with no store. */
void ht_tune_sink_memory(struct ht_tune_sink *sink, struct ht_tune_memory *mem);

/* What one tune of one device found. Plain data owned by the caller. */
struct ht_tune_result {
    int64_t device_id, problem_id; /* the sink's ids (rows of the results database) */
    size_t space;            /* valid configurations on the device; SIZE_MAX: that many
                                or more (space_text says how many) */
    char space_text[HT_SPACE_COUNT_TEXT]; /* the same in decimal, exact below 2^128
                                (ht_space_counts's pruned_text) */
    size_t evaluated;        /* measured by this run: ok, cut and failed */
    size_t from_db;          /* configurations of the space found stored (not measured) */
    size_t cut;              /* this run's configurations cut by early termination */
    size_t failed;           /* this run's configurations that failed to build, launch or
                                verify (or broke a rule, crashed or timed out), stored with
                                their reason */
    size_t crashed, timed_out; /* of failed: those that crashed their worker or outlasted
                                the time limit (exec.isolate) */
    int isolated;            /* 1 when the configurations ran in a worker process */
    int reference;           /* the reference step (exec.h): 0 none (not needed, or no
                                configuration measured), 1 read from the cache, 2 computed */
    double reference_s;      /* its wall time: not in any configuration's time limit */
    uint64_t forgotten;      /* evaluations deleted first because of opts.fresh */
    int has_best;            /* 1 when some configuration ran and verified */
    size_t nparams;
    int64_t best[HT_STORE_MAX_PARAMS]; /* the best configuration, in parameter order */
    char best_text[HT_STORE_CONFIG_MAX]; /* its canonical text, "WG=64,EPT=2" */
    double best_s;           /* its statistic (mean of the best keep_best runs); -1 when none */
    int best_from_db;        /* 1 when the best was stored before this run */
    double tuning_s;         /* wall time of the whole call */
    double build_s;          /* of which getting programs (compile or cache load), summed */
    double launch_compile_s; /* and the drivers' work at first launches (lazy compilation,
                                see ht_eval_result.launch_compile_s), summed */
    size_t cache_hits;       /* this run's evaluations whose binary came from the cache */
    int driver_cache;        /* 1: the device's driver caches programs itself, and hetune's
                                cache is read but not written: PoCL unless
                                POCL_KERNEL_CACHE is 0) */
    int stopped;             /* 1 when opts.stop ended the run early */
    unsigned jobs;           /* build workers that built ahead (opts.jobs), 0: none */
    size_t prebuilt;         /* this run's evaluations built ahead by them */
    double prebuild_s;       /* their builds' wall time, summed over the workers (not in
                                build_s, which is what the measuring path spent) */
    char strategy[64];       /* the strategy used */
    int replayed;            /* 1: answered from opts.replay, nothing measured */
    size_t missing;          /* replay: proposals the recording lacks (in evaluated,
                                not in failed; never stored) */
    double simulated_s;      /* replay: the simulated clock at the end (recorded compile
                                and benchmark times of this run's evaluations) */
    /* The first failure this run met or found stored, so that a run where nothing verified
     * can say why: failure "WG=64,EPT=2: <reason>" ("" when none), failure_status its
     * status ("build", "verify", ...), failure_like how many failures (of this run and
     * stored) had that status. */
    char failure[HT_STORE_CONFIG_MAX + 1024 + 8];
    char failure_status[16];
    size_t failure_like;
    size_t failed_reused;    /* of from_db: stored failures taken as known (not measured;
                                opts.retry_failed measures them again) */
    size_t failed_stale;     /* stored failures of the spec's making not taken as known
                                because the spec changed since (their spec hash differs):
                                measured again when proposed */
    struct ht_load load;     /* what other processes did while this run measured
                                (exec.h): ht_load_under says whether its times may be
                                slow, ht_present_load_sentence (present.h) says it;
                                zero under replay */
};

/* Tunes spec on dev and records what it measures through sink (all borrowed; the results
 * database's is ht_tune_sink_store's): every evaluation with its step of the run, and the
 * space's sizes on the device (unpruned, platform, pruned) for the report's Tables 1 and
 * 2; opts NULL: ht_tune_opts_init's defaults. Fills *out. Returns HT_OK when the search
 * finished, its budget or time limit was reached or opts.stop was raised (out->stopped),
 * whether or not a configuration verified (out->has_best says);
 * a configuration's failure is never an error of the call, but an error of the spec met
 * while evaluating one is (a scalar value that does not fit its type, a division by zero
 * in a value, an argument count or kernel name the kernel does not have: HT_ESPEC or
 * HT_EEXPR, err naming the field), and it is not stored: after the fix, nothing stale
 * remains (rows of status "error" stored by earlier versions are measured again). Stored results compete for
 * best when their status is "ok" and they did not fail verification (verified 1, or -1
 * from a spec without a reference). Errors: HT_EINVAL for a bad option (an unknown
 * strategy: err lists the strategies; a cut factor in (0, 1)) or a spec with no parameters
 * or more than HT_STORE_MAX_PARAMS; HT_ESPEC when the space cannot be created on the
 * device; HT_ECL when no session can be opened; HT_EDB when the database fails (what was
 * stored before stays), or a sink op's own error; HT_EINVAL for a sink without the ops
 * it requires (or without forget under opts.fresh); HT_ENOMEM. out is filled as far as
 * the run got. */
int ht_tune_device(const struct ht_spec *spec, const struct ht_device_info *dev,
                   const struct ht_tune_sink *sink, const struct ht_tune_opts *opts,
                   struct ht_tune_result *out, struct ht_error *err);

/* ---- One evaluation as the tuner makes it -----------------------------------------------
 *
 * For a program that hands configurations out itself, to other processes or machines
 * (ht_mpi_tune's ranks, mpi.h): each evaluated as ht_tune_device evaluates its own, early
 * termination included, its row filled as the tuner fills the rows it stores, and stored
 * through a sink's put_eval (the database's: ht_tune_sink_store). */

/* What one evaluation is, and whose row it fills. Borrowed for the call. */
struct ht_tune_one {
    struct ht_session *session; /* the device's session (ht_session_create, exec.h) */
    const int64_t *config;   /* nparams values, in the spec's parameter order */
    const char *text;        /* config's canonical text (ht_store_config_text) */
    size_t nparams;          /* the spec's parameters, at most HT_STORE_MAX_PARAMS */
    double best_s;           /* early termination: the best time of the tune so far (of
                                every process's evaluations); <= 0: none yet, no cut */
    double cut_factor;       /* ht_tune_opts.cut_factor's: cut once the configuration's
                                fastest run is more than cut_factor times best_s; 0: off */
    int64_t problem_id, device_id; /* the sink's ids (its identify op) */
    const char *strategy;    /* the strategy that proposed config, and its seed: the row's */
    uint64_t seed;
    const char *spec_hash;   /* ht_spec.hash of the spec the session measures */
};

/* Evaluates one->config on one->session as ht_tune_device does: the session's early
 * termination set from best_s and cut_factor (exec.h, "Adaptive repeats": the runs stop,
 * HT_ECUT, once it is clearly slower than the best), then ht_session_eval into *res (the
 * caller's, which need not be initialised: ht_eval_result_destroy it whatever is
 * returned), err the configuration's error; and *ev filled from it as the tuner fills the
 * evaluations it stores (status and reason included, when it failed or was cut). Returns
 * ht_session_eval's status: HT_OK, HT_ECUT, or the configuration's failure, which is the
 * row's, not the call's; HT_EINVAL, nothing evaluated nor filled (res empty when given),
 * for a call without one, res or ev, one without session, config or text, or with nparams
 * 0 or above HT_STORE_MAX_PARAMS. The caller holds the device's lock (exec.h) if it takes
 * one. */
int ht_tune_eval(const struct ht_tune_one *one, struct ht_eval_result *res,
                 struct ht_stored_eval *ev, struct ht_error *err);

#ifdef __cplusplus
}
#endif
#endif
