/* exec's door for the tuner: what src/tune/tune.c drives of a session beyond exec.h
 * (the MPI tuning queue, src/mpi/queue.c, through tune.h's ht_tune_eval): builds
 * ahead on other cores, in a pool the session owns (ht__session_build_ahead), its
 * reference step and the early cut. Whether the driver caches its programs is the
 * device's (platform.h, ht_device_caches_programs).
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
 * When the step is due, on_start (when not NULL) is called first with user and the step's
 * time limit (isolated: HT_TIMEOUT_REFERENCE_S, or opts.timeout_s where that is longer;
 * 0 in this process), so that the caller can say the step begins.
 * Returns HT_OK with info->needed 0, without calling on_start, when the spec has no such
 * reference (none, a reference kernel run per configuration, files only, or
 * opts.no_verify): a reference configuration or a verify.once reference kernel, with
 * verification on, has one. On failure the
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
                          void (*on_start)(void *user, double limit_s), void *user,
                          struct ht_reference_info *info, struct ht_error *err);

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
 * measures others, so that the session's own build of each becomes a cache hit. The
 * pool is the session's: made at its first build ahead, from the session's spec, device
 * and options, and ended with it (ht_session_free ends the builds in flight first).
 * Where the driver keeps a cache of its own (ht_device_caches_programs, platform.h: PoCL),
 * a build worker fills that one instead, and launches each kernel of the configuration on
 * one work-group of its local size (no reference, no verification, no readback), so that
 * the work-group function PoCL compiles at a first launch is in it as well; the session
 * then finds the program there (ht_eval_result.cache_hit 1, see ht__program_get's marker in
 * build.c) and its kernels compiled for their local sizes. On a CPU device the build
 * workers share the cores with the measurement: the session pauses them while it times runs
 * (from just before the first timed launch of each ht_session_eval to just after its last
 * run, in this process or, isolated, as its worker tells), and only then; the time paused
 * does not count against the builds' limits. On other devices they are never paused.
 *
 * A build that crashes its worker (a compiler's signal), outlasts the time limit the user
 * set (opts.timeout_s), fails to compile or breaks a rule is the configuration's fate:
 * ht__session_take_build says so (config_fault), and the caller stores it without
 * measuring. One that outlasts the automatic limit (as an isolated session's) is not: with
 * every core compiling, a heavy build can outlast a limit drawn from light ones, so the
 * caller builds it again where it measures. Two configurations that build one program are
 * not built at once (two processes building one program into one driver cache get in each
 * other's way). Not thread-safe: one thread builds ahead and takes. */
struct ht_prebuild; /* opaque (exec-internal.h) */

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

/* HT_OK when a pool of jobs build workers could be made for spec with opts: jobs 1 to
 * 1024 (else HT_EINVAL), a spec loaded from a file (the workers load it again; else
 * HT_EINVAL), a worker executable (else HT_ENOTFOUND: see ht_isolation). A tune asks
 * before it has a session, to know how far ahead to propose; err says why not. */
int ht__prebuild_possible(const struct ht_spec *spec, const struct ht_exec_opts *opts,
                          unsigned jobs, struct ht_error *err);

/* Queues config (spec->space.nparams values, copied) for building ahead under the
 * caller's id, in session s's pool of jobs build workers, made at the first call (jobs is
 * read then; the pool's options are the session's, its stop not watched). Builds start in
 * the order queued. HT_EINVAL when id is queued already, or what making the pool met
 * (ht__prebuild_possible's failures, HT_ENOMEM). */
int ht__session_build_ahead(struct ht_session *s, unsigned jobs, uint64_t id,
                            const int64_t *config);

/* Waits for the build ahead of id and takes its outcome into *done (its res owned by the
 * caller: ht_eval_result_destroy), forgetting id. HT_ENOTFOUND when id was not queued
 * (or was taken), or s has no pool. */
int ht__session_take_build(struct ht_session *s, uint64_t id,
                           struct ht_prebuild_done *done);

/* How many builds ahead of s are building, and finished but not taken; 0 and 0 without a
 * pool. */
void ht__session_builds(const struct ht_session *s, size_t *building, size_t *built);

#endif
