/* hetune — tuning: the exploration of one spec's pruned space on one device.
 *
 * ht_tune_device ties the modules together (issue 4): it enumerates the valid
 * configurations of the spec on the device (space.h), lets a search strategy choose which
 * to evaluate (search.h), builds, runs, times and verifies each in one session
 * (exec.h), and stores every evaluation with all its runs in the results database
 * (store.h) before asking for the next one. So a tune killed at any moment loses at most
 * the configuration in flight, and running it again measures nothing that is stored:
 * stored results are handed to the search first, as results obtained elsewhere, and count
 * neither as evaluations nor against the budget.
 *
 * A configuration that fails to build, to launch or to verify is stored with its status
 * and reason and is never chosen as best. Early termination: once a best time is known, a
 * configuration whose fastest run so far is more than cut_factor times that best is not
 * repeated further and is stored as "cut" with the runs it made (ht_session_set_cut).
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
    size_t space;            /* valid configurations on the device */
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
};

typedef void (*ht_tune_progress_fn)(const struct ht_tune_progress *p, void *user);

/* Called when the tune of dev must wait for another process (holder, borrowed for the
 * call) that holds the device's lease (store.h). */
typedef void (*ht_tune_wait_fn)(const struct ht_device_info *dev,
                                const struct ht_lease_info *holder, void *user);

struct ht_tune_opts {
    const char *strategy;    /* a name of ht_search_strategies[]; NULL: "exhaustive" */
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
                                database, store.h): when another holds the device, the tune
                                calls this once, then waits until the lease is given back
                                or goes stale, or until *stop is raised (result.stopped 1).
                                NULL: it waits silently. */
    void *wait_user;
    volatile sig_atomic_t *stop; /* when not NULL and non-zero (set by a signal handler,
                                typically for SIGINT), no new configuration is started and
                                ht_tune_device returns with result.stopped 1. The one in
                                flight is abandoned within 0.1 s and not stored when it
                                runs in a worker (exec.isolate); in this process it is
                                finished and stored (unless it failed after the flag was
                                raised, as a signal can make a call fail). exec.stop is
                                set to it when NULL. */
    int retry_failed;        /* 1: configurations stored as crashed or timeout are
                                measured again (by default they count as known) */
};

/* Fills opts with the defaults above. */
void ht_tune_opts_init(struct ht_tune_opts *opts);

/* What one tune of one device found. Plain data owned by the caller. */
struct ht_tune_result {
    int64_t device_id, problem_id; /* rows of the results database */
    size_t space;            /* valid configurations on the device */
    size_t evaluated;        /* measured by this run: ok, cut and failed */
    size_t from_db;          /* configurations of the space found stored (not measured) */
    size_t cut;              /* this run's configurations cut by early termination */
    size_t failed;           /* this run's configurations that failed to build, launch or
                                verify (or broke a rule, crashed or timed out), stored with
                                their reason */
    size_t crashed, timed_out; /* of failed: those that crashed their worker or outlasted
                                the time limit (exec.isolate) */
    int isolated;            /* 1 when the configurations ran in a worker process */
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
                                cache is not written (ht_driver_caches) */
    int stopped;             /* 1 when opts.stop ended the run early */
    char strategy[64];       /* the strategy used */
};

/* Tunes spec on dev and stores what it measures in store (all borrowed): every evaluation,
 * and the space's sizes on the device (unpruned, platform, pruned; ht_store_put_space) for
 * the report's Tables 1 and 2. Fills *out. Returns HT_OK when the search finished, its budget or time limit was reached or opts.stop
 * was raised (out->stopped), whether or not a configuration verified (out->has_best says);
 * a configuration's failure is never an error of the call. Stored results compete for
 * best when their status is "ok" and they did not fail verification (verified 1, or -1
 * from a spec without a reference). Errors: HT_EINVAL for a bad option (an unknown
 * strategy: err lists the strategies; a cut factor in (0, 1)) or a spec with no parameters
 * or more than HT_STORE_MAX_PARAMS; HT_ESPEC when the space cannot be created on the
 * device; HT_ECL when no session can be opened; HT_EDB when the database fails (what was
 * stored before stays); HT_ENOMEM. out is filled as far as the run got. */
int ht_tune_device(const struct ht_spec *spec, const struct ht_device_info *dev,
                   struct ht_store *store, const struct ht_tune_opts *opts,
                   struct ht_tune_result *out, struct ht_error *err);

#ifdef __cplusplus
}
#endif
#endif
