/* What ht_workflow_split and ht_workflow_run share (src/workflow/split.c): the devices of a
 * co-execution measured alone, and one co-execution on them. Internal to src/workflow. */
#ifndef HETUNE_WORKFLOW_INTERNAL_H
#define HETUNE_WORKFLOW_INTERNAL_H

#include <signal.h>

#include "hetune/store.h"
#include "hetune/workflow.h"
#include "coexec/coexec.h" /* coexec's door: the co-execution handle, the decision */

/* The devices of the co-executions of one spec, each with its best configuration and its
 * run alone. */
struct ht__split_base {
    const struct ht_spec *spec;          /* borrowed */
    struct ht_store *store;              /* borrowed */
    int64_t problem_id;
    size_t n;
    struct ht_workflow_device *devs;     /* n, borrowed: configurations set by the caller,
                                            alone times by ht__split_base_alone */
    struct ht__decision runs;            /* owned: each device's run alone
                                            (ht__split_base_alone): runs.alone,
                                            alone_cx, alone_res and fastest, the
                                            fastest alone by wall time */
    struct ht_split_written *written;    /* spec->nargs, owned, or NULL: what
                                            ht__split_written found for the written
                                            buffers without "index" */
};

/* Fills b->written (b's spec, store, problem_id, n and devs with their configurations
 * set) for the written buffers without "index", when b has two devices or more: from the
 * results database, else by a probe (ht_split_probe) on the device of b that works in
 * place with the shortest tuned time, stored for next time. opts->on_note (may be NULL) is told what was found.
 * Errors: ht_split_probe's (HT_ESPEC saying what the probe saw), HT_ESPEC when no device
 * of b works in place, HT_EDB, HT_ENOMEM; b->written is unchanged on error. */
/* The arguments ht_workflow_split and ht_workflow_run (fn) share: HT_EINVAL "fn: ARG is
 * NULL" for spec, opts, out, devs (with n > 0) or one of devs[0..n) NULL; else HT_OK. */
int ht__workflow_args(const char *fn, const struct ht_spec *spec,
                      const struct ht_device_info *const *devs, size_t n, const void *opts,
                      const void *out, struct ht_error *err);

int ht__split_written(struct ht__split_base *b, const struct ht_workflow_split_opts *opts,
                      struct ht_error *err);

/* Runs every device of b (spec, store, problem_id, n and devs set) alone with the
 * co-execution's clock (options base) and fills b's times and runs; on_step (may be NULL)
 * is told "devices alone" after each (ht__decide with runs, into b->runs).
 * ht__split_base_destroy frees them, also on error. Errors as ht__decide's; HT_ENOMEM. */
int ht__split_base_alone(struct ht__split_base *b, const struct ht_coexec_opts *base,
                         ht_workflow_step_fn on_step, void *user, struct ht_error *err);

/* Takes the device locks of b's devices (b->n, their dev set) for its measurements, as
 * opts says (on_device_wait, wait_user, stop): ht_device_locks_take, load
 * (may be NULL) told of a lock that cannot be made. Give back with
 * ht_device_locks_release. Errors: HT_EINTR (stopped while waiting), HT_ENOMEM. */
int ht__split_lock(const struct ht__split_base *b, const struct ht_workflow_split_opts *opts,
                   struct ht_device_locks *locks, struct ht_load *load, struct ht_error *err);

/* Frees what b owns (not its devs). */
void ht__split_base_destroy(struct ht__split_base *b);

/* One co-execution on b's devices with opts (its db, tune and on_tune unused), as
 * ht_workflow_split describes: the estimate and the decision, the run, verification,
 * dump, storing, refinement and sweep. out is zeroed but for devs and skipped: when devs
 * is NULL, a copy of b->devs is made; with one device and some skipped, it runs alone
 * (out->left_alone). It may take a run alone out of b. keep_first: a refinement never
 * replaces the first run as the result (hetune run shows both). A device's factor with
 * no plan is stored as no_plan_factor. Errors as ht_workflow_split. */
int ht__split_once(struct ht__split_base *b, const struct ht_workflow_split_opts *opts,
                   int keep_first, double no_plan_factor, struct ht_workflow_split_result *out,
                   struct ht_error *err);

/* Appends dev to *list (*n entries, realloc'ed; the caller frees it) as skipped because of
 * why, a device's error from ht_workflow_best: its text without the leading "device I
 * (NAME): " is the reason. HT_ENOMEM, err filled. */
int ht__skip_device(struct ht_workflow_skipped **list, size_t *n,
                    const struct ht_device_info *dev, const struct ht_error *why,
                    struct ht_error *err);

/* When the supervisor of this process lost dev in an earlier attempt (supervise.h), appends
 * it to *list as ht__skip_device does, with the supervisor's reason, and sets *lost; else
 * *lost is 0 and nothing is added. HT_ENOMEM, err filled. */
int ht__skip_lost(struct ht_workflow_skipped **list, size_t *n,
                  const struct ht_device_info *dev, int *lost, struct ht_error *err);

/* --- the steps hetune split and run share (workflow.c), once in workflow.h --- */

/* A co-execution to store as a split (ht__workflow_store_split); every pointer borrowed. */
struct ht__workflow_split_record {
    const struct ht_workflow_device *devs; /* its devices, n of them */
    size_t n;
    size_t fastest;                   /* the device alone that is the reference */
    const struct ht_coexec_result *res; /* what it measured */
    const struct ht_split_plan *plan; /* its plan; NULL when it has none */
    int ran_alone;                    /* 1: res is devs[fastest] alone */
    double no_plan_factor;            /* each device's optimal factor when plan is NULL */
    double predicted_s;               /* what it was predicted to take; 0: nothing */
};

/* How ht__workflow_refine_run refines. Zero-initialized but for model0: no round after
 * round 0, the wall time balanced, nobody told. */
struct ht__workflow_refine_opts {
    unsigned rounds;                  /* the most refinements after round 0 */
    enum ht_refine_target target;     /* what is balanced */
    ht_workflow_verify_fn on_verify;  /* told of a round that fails verification; NULL:
                                         nobody */
    void *user;                       /* on_verify's */
    const double *model0;             /* round 0's models, 2 per device: the decision's
                                         model_s (coexec/coexec.h), which the first run was
                                         planned by */
};

/* Stores the co-execution rec->res of rec->devs as a split of problem_id and sets *id.
 * Without a plan each device's optimal factor is stored as rec->no_plan_factor. When
 * rec->ran_alone, the result is devs[fastest] alone, stored as scheduler "alone" with no
 * theoretical time. Errors as ht_store_put_split; HT_ENOMEM. */
int ht__workflow_store_split(struct ht_store *store, int64_t problem_id,
                             const struct ht__workflow_split_record *rec, int64_t *id,
                             struct ht_error *err);

/* Copies result src into *dst (devices and run_s allocated: ht_coexec_result_destroy).
 * HT_ENOMEM, *dst zeroed. */
int ht__workflow_result_copy(struct ht_coexec_result *dst, const struct ht_coexec_result *src,
                             struct ht_error *err);

/* Refines the static co-execution cx after its first run *first (of the paper's plan, as
 * round 0): up to opts->rounds rounds of ht__coexec_rounds (the plan refined from the last
 * run towards opts->target, then a run verified against device ref alone), until the plan
 * no longer changes, each round recorded in *out and the best after round 0 kept. A round
 * that fails verification is kept and reported through opts->on_verify. Fills *out
 * (ht__workflow_refine_free, also on error). Errors as ht__coexec_rounds; HT_ENOMEM. */
int ht__workflow_refine_run(struct ht_coexec *cx, const struct ht_coexec_alone *alone,
                            const struct ht_coexec_result *first, size_t ref,
                            const struct ht__workflow_refine_opts *opts,
                            struct ht_workflow_refine *out, struct ht_error *err);

/* The device better run alone than r's best round, or SIZE_MAX (always when forced): the
 * split-or-alone rule's comparison (ht__decide with in->measured, coexec/coexec.h) of the
 * best round by r's target time against the fastest alone by it (alone[0..r->n)), without the
 * estimate's margin: the fastest alone when it beat every round; else the one device the
 * best round gave all the work (the co-execution then only adds its overheads). */
size_t ht__workflow_refine_alone(const struct ht_workflow_refine *r,
                                 const struct ht_coexec_alone *alone, int forced);

/* Frees what r owns and empties it. NULL is fine. */
void ht__workflow_refine_free(struct ht_workflow_refine *r);

/* The sweep of opts->sweep on the two-device co-execution cx after out's first run
 * (ht__coexec_rounds: device 0's factor min(k step, 1) for each of the
 * ht_workflow_sweep_points, the first with every device's tuned time model back), each
 * point verified against device out->fastest alone, then stored with split
 * out->first_split_id in store and kept in out->sweep (out->nsweep, out->verify_failed;
 * opts->on_step told "sweep"). A point that fails verification is reported through
 * opts->on_verify and stored all the same. Errors as ht__coexec_rounds and the store;
 * HT_ENOMEM. */
int ht__workflow_sweep(struct ht_store *store, struct ht_coexec *cx,
                       const struct ht_workflow_split_opts *opts,
                       struct ht_workflow_split_result *out, struct ht_error *err);

#endif
