/* exec's door for the tuner: what src/tune/tune.c drives of a session beyond exec.h
 * (the MPI tuning queue, src/mpi/queue.c, through tune's door: ht__tune_eval): builds
 * ahead on other cores (ht__prebuild_*), its reference step, the early cut, and whether
 * the driver caches its programs.
 *
 * A friend header (docs/architecture.md, scripts/walls-allowed.txt): only the modules
 * named there include it; the names stay inside the shared library (ht__, src/hetune.map). */
#ifndef HETUNE_EXEC_TUNING_H
#define HETUNE_EXEC_TUNING_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/exec.h"

/* The reference step (issue 25, the slow case). A spec whose reference outputs are the
 * same for every configuration (a reference configuration, or a reference kernel with
 * verify.once) needs them once per problem; computed inside a first evaluation, they
 * would count against its time limit, and a naive reference of a large problem can take
 * longer than that limit by itself (the configuration stored as timeout, the reference
 * lost with the killed worker and computed again by the next). ht__session_reference
 * makes them a step of their own, before the first evaluation: read from the reference
 * cache, or computed (and kept there, and in the session) under a limit of their own,
 * HT_TIMEOUT_REFERENCE_S (or opts.timeout_s where that is longer), in the worker of an
 * isolated session, so that a reference that crashes costs only the worker. Every later
 * evaluation finds them held; a worker started again after a configuration crashed or
 * timed out runs the step again (a read of the cache, or without the cache the
 * computation again) before that configuration's limit starts.
 *
 * config is a configuration to build the reference kernel's program with (verify.once:
 * the reference kernel lives in the tuned program); a reference configuration ignores it.
 * Returns HT_OK with info->needed 0 when the spec has no such reference (none, a
 * reference kernel run per configuration, files only, or opts.no_verify). On failure the
 * error is the reference's ("reference configuration: ...", "reference kernel: ...";
 * HT_ECRASH, HT_ETIMEOUT isolated, HT_EINTR), except when config itself could not be
 * set up or built (a kernel reference only): then info->config_fault is 1 and the error
 * is the configuration's, which its own evaluation will meet again; call again with
 * another configuration. */
#define HT_TIMEOUT_REFERENCE_S 1800.0

struct ht_reference_info {
    int needed;       /* 1: the spec's reference is computed once per problem */
    int computed;     /* 1: computed in this call; 0: read from the cache, or held */
    int config_fault; /* on failure: config's own setup or build failed, not the reference */
    double seconds;   /* wall time of the call */
    double limit_s;   /* isolated: the step's time limit; 0 in this process */
};

int ht__session_reference(struct ht_session *s, const int64_t *config,
                          struct ht_reference_info *info, struct ht_error *err);

/* 1 when ht__session_reference has anything to do for this session's spec and options: a
 * reference configuration or a verify.once reference kernel, with verification on. */
int ht__session_reference_needed(const struct ht_session *s);

/* Early termination (issue 4, item 2). From the next ht_session_eval on, a configuration
 * stops being repeated once the fastest of its runs so far is more than factor times
 * best_so_far_s (the statistic of the best configuration so far; the rule of
 * ht__search_should_cut, search's core): ht_session_eval then returns HT_ECUT with
 * res->status HT_ECUT, the runs it made in res->run_s[0..nruns), kernel_s and kernel_min_s
 * computed from them, and neither reads the outputs back nor verifies them (verified -1).
 * The rule is first applied after HT_CUT_MIN_RUNS runs (the first launch of a program
 * may include the driver's last compilation step, PoCL's for one); a configuration is
 * never cut after its last run, and never when best_so_far_s is not a positive finite
 * number or factor <= 0 (the default: no early termination). best_so_far_s is also the
 * b of exec.h's adaptive repeats (a cut as clearly slower, HT_ECUT too, and a stop once
 * precise); factor <= 0 turns those off too. */
void ht__session_set_cut(struct ht_session *s, double best_so_far_s, double factor);

/* Builds ahead (issue 25): a pool of build workers, each a hetune-worker process as an
 * isolated session's is, that build configurations into the binary cache while the device
 * measures others, so that the session's own build of each becomes a cache hit. Where the
 * driver keeps a cache of its own (ht__driver_caches: PoCL), a build worker fills that one
 * instead, and launches each kernel of the configuration on one work-group of its local
 * size (no reference, no verification, no readback), so that the work-group function PoCL
 * compiles at a first launch is in it as well; the session then finds the program there
 * (ht_eval_result.cache_hit 1, see ht__program_get's marker in build.c) and its kernels
 * compiled for their local sizes. On a CPU device the build workers share the cores with
 * the measurement: they are paused while the session times runs
 * (ht__session_pause_builds).
 *
 * A build that crashes its worker (a compiler's signal), outlasts the time limit the user
 * set (opts.timeout_s), fails to compile or breaks a rule is the configuration's fate:
 * ht__prebuild_take says so (config_fault), and the caller stores it without measuring. One
 * that outlasts the automatic limit (as an isolated session's) is not: with every core
 * compiling, a heavy build can outlast a limit drawn from light ones, so the caller builds
 * it again where it measures. Two configurations that build one program are not built at
 * once (two processes building one program into one driver cache get in each other's
 * way). Not thread-safe: one thread submits and takes. */
struct ht_prebuild; /* opaque */

/* What became of one build ahead. */
struct ht_prebuild_done {
    int status;              /* HT_OK, or the build's failure: HT_EBUILD, HT_ECONSTRAINT,
                                HT_ECRASH ("crashed: SIGSEGV"), HT_ETIMEOUT, or trouble of
                                the pool's own (a worker that cannot start, HT_EINTR) */
    int config_fault;        /* 1 when status is the configuration's own failure (the
                                four above, HT_ETIMEOUT only under opts.timeout_s): store
                                it so, do not measure it */
    struct ht_eval_result res; /* the build worker's result: build_s, cache_hit, ndims,
                                global, local, build_log (owned: ht_eval_result_destroy);
                                nothing timed or verified (nruns 0, verified -1) */
    struct ht_error err;     /* why, when status is not HT_OK */
};

/* Starts a pool of jobs build workers (1 to 1024) for spec (loaded from a file: the
 * workers load it again) on dev with opts (copied; its timeout_s and worker apply, its
 * stop is not watched: ht__prebuild_free ends the builds in flight). spec and dev are
 * borrowed and must outlive the pool. The processes start at the first submissions, in
 * the pool's threads. *out is owned by the caller (ht__prebuild_free). HT_EINVAL (jobs out
 * of range, a spec without a file), HT_ENOTFOUND (no worker executable: see
 * ht_isolation), HT_ENOMEM. */
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

/* Pauses pool p's build workers while session s times a configuration's runs, and only
 * then: from just before the first timed launch of each ht_session_eval to just after its
 * last run (not while it builds or loads the program, stages the data, reads back or
 * verifies), in this process or, for an isolated session, as its worker tells the tuner
 * (worker.c, MSG_TIMED). For a CPU device, whose cores a build would take from the timed
 * runs. p NULL: no pause (the default). p is borrowed: call again with NULL before
 * ht__prebuild_free. The pool's time paused does not count against its builds' limits. */
void ht__session_pause_builds(struct ht_session *s, struct ht_prebuild *p);

/* Ends the builds in flight (their workers are killed within 0.1 s), the workers and the
 * pool; what was queued is dropped. Paused workers are continued as they end. NULL is
 * allowed. */
void ht__prebuild_free(struct ht_prebuild *p);

/* 1 when dev's driver keeps the programs it builds in a cache of its own, which is on: PoCL
 * unless POCL_KERNEL_CACHE is 0. hetune's binary cache is then read but not written. */
int ht__driver_caches(const struct ht_device_info *dev);

#endif
