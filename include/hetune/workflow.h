/* hetune — the workflow around a co-execution: each device's best configuration from the
 * results database (tuning it first when allowed), each device measured alone with the
 * co-execution's own clock, the split-or-alone decision, the refinement rounds, the
 * split-point sweep and storing a split. `hetune split`, `hetune run` and the runtime
 * (runtime.h) are built on these functions; none of them prints: their results are
 * structs, which present.h writes as the documents the command line prints.
 *
 * A NULL pointer a function cannot do without (the spec, the devices, the store, the
 * options of a split or a run, an output) is HT_EINVAL with err->text "FUNCTION: ARGUMENT
 * is NULL", never a crash; err may be NULL everywhere. The void functions do nothing with a
 * NULL, and those that answer a number or a pointer answer 0 or NULL for a NULL; where NULL
 * is taken instead, the function's comment says what it means. The results of
 * ht_workflow_split, _run, _space_solve and _plan are emptied first whenever out is given,
 * so that their destroy is safe after any error, a NULL argument's too.
 */
#ifndef HETUNE_WORKFLOW_H
#define HETUNE_WORKFLOW_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/coexec.h"
#include "hetune/error.h"
#include "hetune/platform.h"
#include "hetune/predict.h"
#include "hetune/report.h"
#include "hetune/space.h"
#include "hetune/spec.h"
#include "hetune/split.h"
#include "hetune/store.h"
#include "hetune/tune.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called by ht_workflow_best just before it tunes a device the database has no
 * configuration of (so that a command can say so); dev and db are borrowed for the call. */
typedef void (*ht_workflow_tune_fn)(const struct ht_device_info *dev, const char *db,
                                    const char *strategy, void *user);

/* How ht_workflow_best finds a configuration. Zero-initialized: no tuning, prediction. */
struct ht_workflow_best_opts {
    int tune_missing;                 /* 1: tune a device with none first (topts) */
    int no_predict;                   /* 1: never predict (below) */
    ht_workflow_note_fn on_note;      /* told of a prediction or a tuning; NULL: nobody */
    const struct ht_tune_opts *topts; /* NULL: ht_tune_opts_init's defaults */
    int unverified;                   /* 1: unverified evaluations compete too (a spec
                                         with no reference, or verification off) */
    ht_workflow_tune_fn on_tune;      /* NULL: nobody is told */
    void *user;
    struct ht_load *load;             /* a tuning's load (ht_tune_result.load) is added
                                         here; NULL: not kept */
};

/* Reads the best configuration of d->dev (set by the caller) for problem_id from store
 * into d (device_id, config, config_text, tuned_s). When the database holds no evaluation
 * of problem_id on the device but holds the kernel at two other sizes or more, and not
 * opts->no_predict, the configuration and its time are ht_predict_best's (eq3 of topts),
 * d->predicted is set and opts->on_note told. Else, when the database has none and
 * opts->tune_missing, tunes the device first (ht_tune_device, storing every evaluation)
 * and sets d->tuned_now. Errors, err filled: HT_ENOTFOUND when there is still none (err
 * names the device and says what to run, or that nothing verified even after tuning);
 * HT_EDB (also when the stored best lacks the spec's parameters), HT_EINVAL (more
 * parameters than HT_STORE_MAX_PARAMS), the tuner's errors, HT_ENOMEM. opts NULL is
 * taken as zero-initialized options (no tuning, prediction). */
int ht_workflow_best(const struct ht_spec *spec, struct ht_store *store, int64_t problem_id,
                     const struct ht_workflow_best_opts *opts, struct ht_workflow_device *d,
                     struct ht_error *err);

/* 1 when a co-execution's scheduler name (ht_coexec_result's scheduler, as stored) ran the
 * planner's fixed slices: a scheduler of kind HT_SPLIT_SCHED_PLANNED ("static", split.h),
 * or "refined" (a refinement's round of such a plan, a name of results only); 0 for any
 * other name (dynamic and guided hand out chunks at run time) and for NULL. For results
 * read by name (the store, the CLI); the library itself asks the scheduler's kind. */
int ht_workflow_scheduler_planned(const char *scheduler);

/* Called when a run of a refinement or a sweep fails verification (err borrowed for the
 * call): the run is kept, and the caller is told. */
typedef void (*ht_workflow_verify_fn)(const struct ht_error *err, void *user);

/* The rounds of a refinement (hetune split --refine, hetune run --refine), in a result of
 * ht_workflow_split or ht_workflow_run: owned by it, freed with it. */
struct ht_workflow_refine {
    size_t n;                   /* devices */
    size_t nrounds;             /* rounds run, round 0 (the paper's plan) included */
    enum ht_refine_target target; /* what is balanced, and what "best" means: the wall
                                     time, or the kernel-only time */
    size_t best;                /* the round with the shortest time (of the target) */
    size_t best_refined;        /* the best round after round 0; 0 when none ran */
    int converged;              /* the last refinement left the plan as it was */
    double *factors;            /* nrounds x n: the shares (owned ranges / G) */
    double *times, *overheads;  /* nrounds x n: the models the round was planned by */
    double *model_s, *wall_s, *kernel_s; /* per round */
    int *verified;              /* per round: 1, 0, -1 */
    struct ht_coexec_result best_res;  /* round best_refined's result (when > 0), its
                                          scheduler "refined" and its theoretical time
                                          round 0's (Algorithm 1 with the tuned times) */
    struct ht_split_plan best_plan;    /* its plan */
};

/* The smallest sweep step: 10,000 points. */
#define HT_SWEEP_MIN_STEP 1e-4

/* The number of split points of a sweep by step (in [HT_SWEEP_MIN_STEP, 1]): 0, step,
 * 2 step, ..., and 1. 0 for any other step (0, negative, NaN, past 1). */
size_t ht_workflow_sweep_points(double step);

/* --- the whole of `hetune split` --- */

/* Told after each step of ht_workflow_split and ht_workflow_run, so that a command can
 * show progress: step is "tuned" (a device tuned, ht_workflow_run only), "devices alone"
 * (a device measured alone), a scheduler's name (a co-execution run and stored),
 * "refined" (a refinement's rounds) or "sweep" (a sweep point); borrowed for the call. */
typedef void (*ht_workflow_step_fn)(const char *step, void *user);

struct ht_workflow_split_opts {
    const char *db;                   /* NULL: HT_STORE_DEFAULT_PATH */
    struct ht_coexec_opts coexec;     /* dim, scheduler, residue, repeats, exec options */
    const struct ht_tune_opts *tune;  /* tuning a device with no configuration; NULL:
                                         the defaults (eq3 and exec from coexec) */
    int force;                        /* split even when predicted or measured slower */
    int paper_plan;                   /* static: split by the paper's plan (Eq. 4-9 from the
                                         tuned times) instead of the bus plan
                                         (kernels and transfers measured
                                         alone, each device's link from the database) */
    unsigned refine;                  /* static: the most rounds of refinement after the
                                         first run (`hetune split --refine N`: each
                                         re-plans from the last round's times and runs
                                         again, verified) */
    enum ht_refine_target refine_by;
    double sweep;                     /* two devices: sweep split points by this step */
    int dop;                          /* 1: choose the CPU devices' compute units jointly
                                         with the split (Dopia's degree of parallelism):
                                         the whole split at each of up to
                                         HT_WORKFLOW_DOP_MAX counts (all, all but one,
                                         3/4, 1/2, 1/4 of the largest partitionable CPU
                                         device's), the fastest measured kept; coexec's
                                         cpu_units is then ignored */
    const char *dump;                 /* write the merged outputs there; NULL: no */
    ht_workflow_tune_fn on_tune;      /* told before a device is tuned; may be NULL */
    int no_predict;                   /* 1: tune at sizes never measured rather than
                                         predict from other sizes (ht_workflow_best) */
    ht_workflow_note_fn on_note;      /* told of a prediction or a tuning; may be NULL */
    ht_workflow_verify_fn on_verify;  /* told of a refined round or sweep point that
                                         failed verification; may be NULL */
    ht_workflow_step_fn on_step;      /* told after each step; may be NULL */
    void *user;
    ht_device_lock_wait_fn on_device_wait; /* the measurements (each device alone, the
                                         split, refinement, sweep) hold every device's
                                         lock (ht_device_locks_take, exec.h), taken after
                                         any tuning; told once per lock another process
                                         holds, with wait_user. NULL: it waits silently */
    void *wait_user;
    volatile sig_atomic_t *stop;      /* when not NULL and raised (a signal handler), a
                                         wait for a device lock or for the database's
                                         lock ends: HT_EINTR */
    const struct ht_store_opts *store;/* how db opens (ht_store_opts: its wait for
                                         another process's lock, on_wait telling of it);
                                         NULL: the defaults. Either way stop above also
                                         ends that wait */
};

/* Fills opts with the defaults: coexec's are dim 0, the static scheduler, the spec's
 * timing, one warm-up run, HT_SPLIT_MARGIN_DEFAULT and ht_exec_opts_init's; no refine,
 * no sweep. */
void ht_workflow_split_opts_init(struct ht_workflow_split_opts *opts);

/* A device that ht_workflow_split or ht_workflow_run left out because nothing on it is
 * usable: no configuration of its pruned space (empty or not) ran and verified. */
struct ht_workflow_skipped {
    const struct ht_device_info *dev; /* borrowed from the caller's devices */
    char reason[256];                 /* why, without the device's name: "no configuration
                                         ran and verified (the pruned space is empty)" */
};

/* The most CPU compute unit counts ht_workflow_split tries (opts.dop). */
#define HT_WORKFLOW_DOP_MAX 5

/* One count of CPU compute units that ht_workflow_split tried (opts.dop). */
struct ht_workflow_dop {
    unsigned units;                   /* the partitionable CPU devices' compute units */
    double wall_s;                    /* its result's wall time: the split, or alone */
    int ran_alone;                    /* 1: that result was a device alone */
    int64_t split_id;                 /* where it is stored */
};

/* What ht_workflow_split did. Owned: ht_workflow_split_result_destroy. */
struct ht_workflow_split_result {
    size_t n;
    struct ht_workflow_device *devs;  /* n: configurations, tuned and alone times */
    size_t fastest;                   /* the device alone that is the reference */
    struct ht_coexec_result res;      /* the result: the split, or fastest alone */
    struct ht_split_plan plan;        /* its plan (ndevices 0 when none) */
    int has_plan;
    struct ht_coexec_estimate est;    /* the prediction, when has_est */
    int has_est;
    int ran_alone;                    /* 1: res is devs[fastest] alone */
    int left_alone;                   /* ... because it is the only device left: every
                                         other one was skipped */
    struct ht_workflow_skipped *skipped; /* nskipped devices with nothing usable, left out
                                         of devs (and of n) */
    size_t nskipped;
    int bus_plan;                     /* 1: the split ran the bus plan; res.theoretical_s
                                         stays Algorithm 1's from the tuned times and
                                         res.model_s is the bus plan's prediction */
    int measured_alone;               /* ... because the refinement measured it better, or
                                         (no refinement) the split was measured and not
                                         kept: slower than it, or faster by less than the
                                         margin */
    double measured_split_s;          /* that split's wall time when it was measured and
                                         not kept (no refinement); -1 */
    int64_t split_id;                 /* the stored split of res */
    int64_t first_split_id;           /* the first split stored (the sweep's) */
    int64_t refined_split_id;         /* the stored split of the best refined round, 0
                                         when none ran (split_id too when it is res) */
    struct ht_workflow_refine refine; /* the rounds, when has_refine */
    int has_refine;
    struct ht_stored_sweep_point *sweep; /* nsweep points */
    size_t nsweep;
    double eq4_factor;                /* device 0's optimal factor (sweep), -1 */
    int verify_failed;                /* 1: res, a round or a point failed verification */
    struct ht_error verify_err;       /* why res failed verification (code 0 when not) */
    struct ht_error dump_err;         /* code != 0 when the dump failed (the rest ran) */
    unsigned cpu_units;               /* the partitionable CPU devices' compute units in res;
                                         0: all of them */
    size_t ndop;                      /* opts.dop: the counts tried, in order (0: none, no
                                         device could be partitioned) */
    struct ht_workflow_dop dop[HT_WORKFLOW_DOP_MAX];
    struct ht_load load;              /* what other processes did while it tuned and
                                         measured (exec.h: ht_load_under; present.h:
                                         ht_present_load_sentence) */
    struct ht_split_errors history;   /* how far this problem's splits over these devices,
                                         this one included when it split, measured from
                                         their predictions (ht_store_split_errors); count
                                         0: none stored. Added at the end */
};

/* Co-executes spec on devs[0..n) (borrowed; they must outlive the call) as `hetune split`
 * does: each device's best configuration (tuned first when missing), each device alone
 * with the co-execution's clock, the split or (predicted slower, unless opts->force) the
 * fastest alone, verified against the fastest alone and stored; then the refinement
 * rounds (and the fastest alone when they measure it better, unless forced) and the
 * sweep, each stored. A device with no configuration that ran and verified, even after
 * tuning, is left out (out->skipped) and the others go on; when one device is left it
 * runs alone (out->left_alone, no sweep). Fills *out (ht_workflow_split_result_destroy,
 * also on error). A failed verification is not an error: out->verify_failed says so.
 * With opts->dop, all of that at each count of CPU compute units (the result kept is the
 * fastest measured; out->dop lists them all; a failed verification of any counts).
 * Every measurement after the tuning holds all the devices' locks (opts->on_device_wait;
 * HT_EINTR when opts->stop ends a wait); out->load says what other processes did
 * meanwhile.
 * Errors, err filled: HT_ENOTFOUND when no device is left (err names one), HT_EINVAL
 * (before tuning) when opts->coexec.cpu_units exceeds a partitionable CPU device's compute
 * units or no device can be partitioned, those of ht_workflow_best, those of making and
 * running the co-execution (HT_ESPEC, HT_ECONSTRAINT and HT_ELAUNCH naming the device,
 * HT_EBUILD, HT_ECL), of the single-device run that verifies it, and of the store;
 * HT_ENOMEM. */
int ht_workflow_split(const struct ht_spec *spec, const struct ht_device_info *const *devs,
                      size_t n, const struct ht_workflow_split_opts *opts,
                      struct ht_workflow_split_result *out, struct ht_error *err);

/* Frees what r owns and empties it. NULL is fine. */
void ht_workflow_split_result_destroy(struct ht_workflow_split_result *r);

/* --- the whole of `hetune run` --- */

struct ht_workflow_run_opts {
    struct ht_workflow_split_opts split; /* each co-execution's options (db, coexec, paper
                                         plan, refine, sweep, callbacks) as in
                                         ht_workflow_split; coexec's dim and scheduler are
                                         replaced by each of dims and schedulers, every
                                         split is forced, refine and sweep apply to the
                                         static scheduler only (a sweep needs two
                                         devices; with one there is no split and the
                                         sweep is left out with a note), tune and dump
                                         are unused */
    struct ht_tune_opts tune;         /* the tuning step (strategy, budget, stop,
                                         progress); its eq3 and exec are split.coexec.exec */
    unsigned dims;                    /* bit d: split along dimension d; 0: every
                                         dimension of the spec */
    const char *const *schedulers;    /* nschedulers names, run one after the other;
                                         NULL: static alone */
    size_t nschedulers;
    const char *out;                  /* the report's folder; NULL: "report" */
    struct ht_report_opts report;     /* its spec is set to the spec's name */
};

/* Fills opts with the defaults (ht_workflow_split_opts_init, ht_tune_opts_init,
 * ht_report_opts_init; every dimension, the static scheduler). */
void ht_workflow_run_opts_init(struct ht_workflow_run_opts *opts);

/* What the prune and tune steps of ht_workflow_run found of one device. */
struct ht_workflow_run_step {
    struct ht_space_counts counts;    /* its space sizes (Tables 1 and 2) */
    struct ht_tune_result tune;
};

/* What ht_workflow_run did. Owned: ht_workflow_run_result_destroy. */
struct ht_workflow_run_result {
    int64_t problem_id;
    size_t n;
    struct ht_workflow_device *devs;  /* n: configurations, tuned times; with two
                                         devices or more, times alone */
    struct ht_workflow_run_step *steps; /* n */
    size_t fastest;                   /* the fastest device alone (two devices or more) */
    struct ht_workflow_split_result *splits; /* nsplits: per dimension, each scheduler's
                                         co-execution, in order; a static one's refinement
                                         keeps its first run in res and its best refined
                                         round in refine (stored as refined_split_id) */
    size_t nsplits;
    struct ht_workflow_skipped *skipped; /* nskipped devices with nothing usable after
                                         tuning, left out of devs, steps and n */
    size_t nskipped;
    int stopped;                      /* tuning was stopped (opts->tune.stop): nothing
                                         after it ran */
    int verify_failed;                /* a co-execution, round or point failed it */
    struct ht_report_result report;   /* the report written; its path and figure_list
                                         are freed by ht_workflow_run_result_destroy */
    struct ht_load load;              /* what other processes did while it tuned and
                                         measured (exec.h: ht_load_under; present.h:
                                         ht_present_load_sentence) */
};

/* The whole pipeline of `hetune run` on spec and devs[0..n) (borrowed; they must outlive
 * the call), every step stored in the database opts->split.db: each device's space sizes
 * (prune), its tuning (what the database holds is not measured again) and its best
 * configuration; with two devices or more, each device alone, then for each dimension of
 * opts->dims each scheduler's co-execution as ht_workflow_split runs it with force (and
 * refinement and sweep on the static one); last the report of the spec's case studies
 * into opts->out. Fills *out (ht_workflow_run_result_destroy, also on error). A failed
 * verification is not an error (out->verify_failed), nor a stopped tuning (out->stopped:
 * the function returns at once). A device with no configuration that ran and verified
 * after its tuning is left out of the steps after it (out->skipped); with one device left
 * nothing is split. The tuning holds each device's lock in turn, the co-executions all
 * of them (opts->split.on_device_wait, opts->split.stop); out->load says what other
 * processes did meanwhile. Errors, err filled: HT_EINTR (opts->split.stop ended a wait
 * for a device lock), HT_EINVAL (no device, a dimension the spec lacks,
 * a sweep without two devices, no parameter or too many), HT_ENOTFOUND (no device with a
 * configuration that ran and verified, or nothing to report), those of the space, the
 * tuner, ht_workflow_split and ht_report_write; HT_ENOMEM. */
int ht_workflow_run(const struct ht_spec *spec, const struct ht_device_info *const *devs,
                    size_t n, const struct ht_workflow_run_opts *opts,
                    struct ht_workflow_run_result *out, struct ht_error *err);

/* Frees what r owns and empties it. NULL is fine. */
void ht_workflow_run_result_destroy(struct ht_workflow_run_result *r);

/* One co-execution of ht_workflow_run as `hetune run` shows it: a split, or the best
 * refined round of a static one (a co-execution of its own, scheduler "refined"). Its
 * pointers are borrowed from the run's result. */
struct ht_workflow_coexec {
    unsigned dim;
    const char *scheduler;
    int64_t split_id;                 /* its stored split */
    const struct ht_coexec_result *res;
    const struct ht_split_plan *plan; /* NULL when none */
    double predicted_s;               /* the estimate's split time; -1 when unknown */
    int pays;                         /* 0: predicted not to pay (it ran all the same) */
    size_t nsweep;                    /* sweep points stored with it */
};

/* Fills out (room for 2 * r->nsplits entries) with r's co-executions in order, each
 * split followed by its best refined round when it has one, and returns how many (0 when
 * r or out is NULL). */
size_t ht_workflow_run_coexecs(const struct ht_workflow_run_result *r,
                               struct ht_workflow_coexec *out);

/* --- the results database's problem, and the design space (`hetune space`) --- */

/* Measures dev's link with the data path of eo (ht_bandwidth_measure, bytes per transfer,
 * 0: the default; eo NULL: ht_exec_opts_init's, with no stop) into *bw and stores it in
 * store for the planner. It holds dev's lock while it measures (ht_device_locks_take,
 * exec.h), waiting silently for another process that holds it until eo->stop is raised
 * (HT_EINTR); what other processes did meanwhile is added to *load (may be NULL;
 * ht_load_under, ht_load_sentence). Errors as ht_bandwidth_measure, ht_store_device_id and
 * ht_store_put_bandwidth; HT_EINTR. */
int ht_workflow_bandwidth(struct ht_store *store, const struct ht_device_info *dev,
                          const struct ht_exec_opts *eo, uint64_t bytes, struct ht_load *load,
                          struct ht_bandwidth *bw, struct ht_error *err);

/* Opens the results database db (NULL: HT_STORE_DEFAULT_PATH) with the options so (NULL: the
 * defaults; its stop ends a wait for another process's lock, its on_wait tells of one) and stop
 * (may be NULL) as their stop when they have none (the rule of every workflow and of
 * ht_runtime_open: a struct's stop serves its database too) into *store (owned by the caller,
 * ht_store_close) and sets *problem_id to spec's problem (its kernel and sizes), adding the
 * rows when new. On error *store is NULL. Errors as ht_store_open_opts (HT_EINTR for a stopped
 * wait), ht_store_kernel_id and ht_store_problem_id. ABI: stop, the third parameter, came in
 * branch loose40: a program built against the declaration without it must be built again
 * (its source then fails to compile until it passes a stop, NULL as before). */
int ht_workflow_open(const char *db, const struct ht_store_opts *so, volatile sig_atomic_t *stop,
                     const struct ht_spec *spec, struct ht_store **store, int64_t *problem_id,
                     struct ht_error *err);

/* Stores the space sizes counts of dev (Eq. 3 rule eq3) for problem_id and sets
 * *device_id (may be NULL) to dev's row. Errors as ht_store_device_id and
 * ht_store_put_space. */
int ht_workflow_store_space(struct ht_store *store, int64_t problem_id,
                            const struct ht_device_info *dev, enum ht_eq3 eq3,
                            const struct ht_space_counts *counts, int64_t *device_id,
                            struct ht_error *err);

/* Reads the devices of a `hetune devices --json` document at path into *out (owned:
 * ht_platform_free), without OpenCL: their limits as written (index by position, no
 * OpenCL handles), so that a space can be pruned for a device this machine lacks, or
 * without the cost of loading the OpenCL drivers (hetune space --devices-from). Returns
 * HT_EPARSE (not JSON), HT_EINVAL (no devices, or one without its limits), HT_ENOMEM. */
int ht_workflow_devices_load(const char *path, struct ht_platform **out, struct ht_error *err);

/* One device's design space. Owned arrays: ht_workflow_space_destroy. */
struct ht_workflow_space {
    const struct ht_device_info *dev; /* borrowed */
    struct ht_space_counts counts;    /* the solver's sizes (native's when "both") */
    double mzn_seconds;               /* "both": MiniZinc's time; -1 otherwise */
    size_t nparams;
    struct ht_space *space;           /* the space on dev (owned), which a native listing
                                         walks (ht_present_space_print) */
    int64_t *configs;                 /* nconfigs x nparams, another solver's, collected
                                         when listing with it (MiniZinc's order) or with
                                         "both" (sorted, parameter by parameter) */
    size_t nconfigs;
    int collected;                    /* configs are the listing (not out->space's walk) */
    int disagree;                     /* "both": the two solvers' sets differ */
    uint64_t mzn_platform;            /* "both": MiniZinc's platform-valid count */
    size_t mzn_nconfigs;              /* "both": MiniZinc's valid configurations */
    int64_t *only_native, *only_minizinc; /* when disagree: each solver's configurations
                                         the other lacks, sorted */
    size_t nonly_native, nonly_minizinc;
};

/* Solves spec's space on dev with Eq. 3 rule eq3 and solver, a backend's name
 * (ht_space_backend_find) or "both" (native and minizinc compared), collecting the
 * configurations of a solver other than native when list (native ones are streamed from
 * out->space when printed). Fills *out (ht_workflow_space_destroy, also on error). Two
 * solvers that disagree are not an error: out->disagree says so. Errors, err filled (its
 * file spec's path when the error names none): HT_EINVAL (an unknown solver), those of
 * ht_space_create and the backends; HT_ENOMEM. */
int ht_workflow_space_solve(const struct ht_spec *spec, const struct ht_device_info *dev,
                            enum ht_eq3 eq3, const char *solver, int list,
                            struct ht_workflow_space *out, struct ht_error *err);

/* Frees what r owns and empties it. NULL is fine. */
void ht_workflow_space_destroy(struct ht_workflow_space *r);

/* --- the split planner on given numbers (`hetune plan`) --- */

/* What ht_workflow_plan found. Owned: ht_workflow_plan_result_destroy. */
struct ht_workflow_plan_result {
    struct ht_split_plan plan;        /* on the busy models with a bus, else on the
                                         devices' times (Eq. 4-9, Algorithm 1) */
    int bus;                          /* 1: planned with a bus; the fields below are set */
    double kernel_theoretical_s;      /* Algorithm 1 on the kernel times alone */
    double bound_s;                   /* ht_split_bound on the busy models */
    double *shares;                   /* n: its shares */
    struct ht_split_decision dec;     /* ht_split_decide on the plan's model time against
                                         each device's busy time alone */
    double margin;                    /* the decision's margin */
};

/* How ht_workflow_plan plans. Zero-initialize: ht_split_plan_make's defaults, no bus, no
 * margin. */
struct ht_workflow_plan_opts {
    const struct ht_split_plan_opts *plan; /* as ht_split_plan_make; NULL: its defaults */
    const struct ht_split_bus *bus;   /* one per device; NULL: none */
    double margin;                    /* the split-or-alone decision's, with a bus */
};

/* Plans global work-items over devs[0..n) (opts->plan as ht_split_plan_make; opts NULL:
 * the defaults). With opts->bus, each device's busy model (ht_split_bus_model, its wg from
 * devs) is planned instead, and Algorithm 1 on devs' kernel times, the transfer-aware
 * bound and the split-or-alone decision with opts->margin are added. Fills *out
 * (ht_workflow_plan_result_destroy, also on error). Errors as ht_split_plan_make,
 * ht_split_bus_model (err->field "devices[i].<field>"), ht_split_bound and
 * ht_split_decide; HT_ENOMEM. */
int ht_workflow_plan(uint64_t global, const struct ht_split_device_in *devs, size_t n,
                     const struct ht_workflow_plan_opts *opts,
                     struct ht_workflow_plan_result *out, struct ht_error *err);

/* Frees what r owns and empties it. NULL is fine. */
void ht_workflow_plan_result_destroy(struct ht_workflow_plan_result *r);

/* --- the devices (`hetune devices`) --- */

/* Measures the host memory's rates (ht_host_memory_measure over arrays of bytes each, 0:
 * its default; then, with copying[0..n) the devices that copy rather than work in place,
 * ht_host_memory_measure_shared with them; copying may be NULL when n is 0) and stores
 * them in store as this machine's (ht_store_put_host_memory). Errors of each. */
int ht_workflow_host_memory(struct ht_store *store, const struct ht_device_info *const *copying,
                            size_t n, uint64_t bytes, struct ht_host_memory *hm,
                            struct ht_error *err);

#ifdef __cplusplus
}
#endif
#endif
