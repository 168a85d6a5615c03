/* What hetune split and hetune run share of driving a co-execution: each device's best
 * configuration from the database, each device measured alone, a split stored, a sweep of
 * split points. CLI-internal. */
#ifndef HETUNE_CLI_SPLIT_COMMON_H
#define HETUNE_CLI_SPLIT_COMMON_H

#include "cli.h"

/* One device of a co-execution, as the commands see it. */
struct cli_split_dev {
    const struct ht_device_info *dev;
    int64_t device_id;
    int64_t config[HT_STORE_MAX_PARAMS];
    char config_text[HT_STORE_CONFIG_MAX];
    double tuned_s;               /* the database's best */
    int tuned_now;                /* tuned by this command (hetune split) */
    struct ht_coexec_alone alone; /* measured alone with the co-execution's clock */
};

/* Reads the best configuration of d->device_id for problem_id (of unverified evaluations
 * too when unverified) into d's config, config_text and tuned_s. Errors, err filled by the
 * store: HT_ENOTFOUND when it has none (the caller says why); HT_EDB when the stored best
 * does not have the spec's parameters; HT_ENOMEM. */
int cli_split_best(const struct ht_spec *spec, struct ht_store *store, int64_t problem_id,
                   int unverified, struct cli_split_dev *d, struct ht_error *err);

/* Runs d alone at its configuration with the co-execution's wall clock (base's options,
 * the static scheduler, one launch) and fills d->alone. On success *cx (ht_coexec_free)
 * and *res (ht_coexec_result_destroy) are the caller's; on failure *cx is NULL and *res
 * is still the caller's to destroy. Errors as ht_coexec_create and ht_coexec_run. */
int cli_split_alone(const struct ht_spec *spec, struct cli_split_dev *d,
                    const struct ht_coexec_opts *base, struct ht_coexec **cx,
                    struct ht_coexec_result *res, struct ht_error *err);

/* Stores the co-execution res of devs[0..n) (all borrowed) and sets *id. plan is the
 * co-execution's plan, NULL when it has none: then each device's optimal factor is stored
 * as no_plan_factor. When ran_alone, res is devs[fastest] alone, stored as scheduler
 * "alone" with no theoretical time. Errors as ht_store_put_split; HT_ENOMEM. */
int cli_split_store(struct ht_store *store, int64_t problem_id,
                    const struct cli_split_dev *devs, size_t n, size_t fastest,
                    const struct ht_coexec_result *res, const struct ht_split_plan *plan,
                    int ran_alone, double no_plan_factor, int64_t *id, struct ht_error *err);

/* Copies plan src into *dst (slices allocated: ht_split_plan_destroy). HT_ENOMEM. */
int cli_plan_copy(struct ht_split_plan *dst, const struct ht_split_plan *src,
                  struct ht_error *err);

/* The rounds of a refinement (hetune split --refine, hetune run --refine). */
struct cli_refine {
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

/* Refines the static co-execution cx after its first run *first (of the paper's plan, as
 * round 0): up to rounds times ht_coexec_refine, then a run verified against device ref
 * alone, until the plan no longer changes. A round that fails verification is reported as
 * "hetune <cmd>: ..." on stderr and sets *verify_failed. Fills *out (cli_refine_free).
 * Errors as ht_coexec_refine, ht_coexec_run and ht_coexec_verify; HT_ENOMEM. */
int cli_split_refine(const char *cmd, struct ht_coexec *cx, const struct ht_coexec_alone *alone,
                     const struct ht_coexec_result *first, size_t ref, unsigned rounds,
                     enum ht_refine_target target, struct cli_refine *out, int *verify_failed,
                     struct ht_error *err);

/* The device better run alone than r's best round, or SIZE_MAX: the fastest alone by r's
 * target time (alone[0..r->n)), when it beat every round; else the one device the best
 * round gave all the work (the co-execution then only adds its overheads). */
size_t cli_refine_alone(const struct cli_refine *r, const struct ht_coexec_alone *alone);

/* Parses --refine-by wall|kernel into *target. Returns 0, or 2. */
int cli_parse_refine_by(const char *cmd, const char *arg, enum ht_refine_target *target);

/* Prints the rounds as a table (text output of split and run). */
void cli_refine_print(const struct cli_refine *r);

/* Frees what out owns. */
void cli_refine_free(struct cli_refine *r);

/* The split points of a sweep by step: 0, step, 2 step, ..., and 1. */
size_t cli_split_sweep_points(double step);

/* Runs point k of the sweep by step on the two-device co-execution cx, verifies it against
 * device fastest alone and stores it as *pt of split split_id. A point that fails
 * verification is reported as "hetune <cmd>: ..." on stderr, sets *verify_failed and is
 * stored all the same. Errors as ht_coexec_run, ht_coexec_verify and the store. */
int cli_split_sweep_point(const char *cmd, struct ht_coexec *cx, size_t k, double step,
                          size_t fastest, struct ht_store *store, int64_t split_id,
                          struct ht_stored_sweep_point *pt, int *verify_failed,
                          struct ht_error *err);

#endif
