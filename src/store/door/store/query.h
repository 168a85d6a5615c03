/* The store's friend door for the modules that read the whole database to present it:
 * src/report (the paper's tables and figures) and src/interop (T4 JSON, C headers). They
 * used to run SQL on the store's tables through store-internal.h; these queries are what
 * they asked, answered as arrays the caller owns, so the schema stays the store's alone.
 *
 * A friend header, not part of include/hetune/store.h: only these two presentation modules
 * need listings of this shape (docs/architecture.md), the public API is meant to get
 * smaller (issue 27), and the names stay inside the shared library (ht__, src/hetune.map).
 * Nothing here includes sqlite3.h. Every function returns 0, HT_EDB (err names the
 * database and the operation) or HT_ENOMEM; on failure the outputs are empty (NULL, 0). */
#ifndef HETUNE_STORE_QUERY_H
#define HETUNE_STORE_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/store.h"

/* Sets *version to the database's schema version (PRAGMA user_version). */
int ht__store_schema_version(struct ht_store *store, int64_t *version, struct ht_error *err);

/* One problem with the names of its kernel, as stored. Text longer than a field is cut. */
struct ht__store_problem_row {
    int64_t id;
    char kernel[256];                 /* the kernel's name in its source */
    char spec[256];                   /* the spec's "name" as last seen */
    char sizes[HT_STORE_CONFIG_MAX];  /* "M=7,N=1024" */
    char params[HT_STORE_CONFIG_MAX]; /* "TS,WG" */
    int has_results;                  /* 1 when a space size, an evaluation or a split of
                                         it is stored */
};

/* Fills *rows (owned by the caller: free()) with every stored problem, of spec name spec
 * when not NULL, in id order (the order they were first stored); *n their number. */
int ht__store_query_problems(struct ht_store *store, const char *spec,
                             struct ht__store_problem_row **rows, size_t *n,
                             struct ht_error *err);

/* One device as stored (the fields a report names it by). */
struct ht__store_device_row {
    int64_t id;
    char name[256], platform[256], type[64], driver[128];
    int64_t compute_units;
};

/* Fills *rows (owned by the caller: free()) with every stored device in id order. */
int ht__store_query_devices(struct ht_store *store, struct ht__store_device_row **rows,
                            size_t *n, struct ht_error *err);

/* How many evaluations of a problem one device has, and how many of them are "ok". */
struct ht__store_eval_tally {
    int64_t device_id;
    uint64_t evaluations, ok;
};

/* Fills *rows (owned by the caller: free()) with one tally per device that has an
 * evaluation of problem problem_id, in device id order. */
int ht__store_query_eval_tally(struct ht_store *store, int64_t problem_id,
                               struct ht__store_eval_tally **rows, size_t *n,
                               struct ht_error *err);

/* Which splits of a problem ht__store_query_split_ids lists. */
enum ht__store_split_pick {
    /* every split, newest first */
    HT__STORE_SPLITS_NEWEST_FIRST,
    /* the newest of each (dimension, scheduler), by dimension, then static, dynamic,
     * guided, and other schedulers by name */
    HT__STORE_SPLITS_NEWEST_PER_SCHEDULER,
    /* the newest split with sweep points of each dimension, by dimension */
    HT__STORE_SPLITS_NEWEST_SWEEP
};

/* Fills *ids (owned by the caller: free()) with the ids of problem problem_id's splits
 * that pick selects, in its order (read each with ht_store_get_split); HT_EINVAL for a
 * pick out of range. */
int ht__store_query_split_ids(struct ht_store *store, int64_t problem_id,
                              enum ht__store_split_pick pick, int64_t **ids, size_t *n,
                              struct ht_error *err);

/* One tuning run of a problem (ht_store_put_tune_run), with its number of steps. */
struct ht__store_tune_run_row {
    int64_t id, device_id;
    char strategy[64];
    uint64_t seed, budget;       /* budget 0: none */
    double time_limit_s;         /* -1: none */
    int replayed;                /* 1: a replay, its clock simulated */
    uint64_t from_db;            /* evaluations it found stored */
    double best_before_s;        /* the best of those; -1 none */
    uint64_t steps;              /* steps stored */
    char created_at[32];
};

/* Fills *rows (owned by the caller: free()) with every tuning run of problem problem_id
 * that has at least one step, by device id, then in the order they started. */
int ht__store_query_tune_runs(struct ht_store *store, int64_t problem_id,
                              struct ht__store_tune_run_row **rows, size_t *n,
                              struct ht_error *err);

/* One step of a run (ht_store_put_tune_step), without its configuration. */
struct ht__store_tune_step_row {
    uint64_t i;
    char status[16];
    double seconds;              /* -1: none competes for best */
    double elapsed_s;
};

/* Fills *rows (owned by the caller: free()) with the steps of run run_id in order. */
int ht__store_query_tune_steps(struct ht_store *store, int64_t run_id,
                               struct ht__store_tune_step_row **rows, size_t *n,
                               struct ht_error *err);

/* One evaluation's outcome, for the distribution of a device's configuration times. */
struct ht__store_eval_time_row {
    int64_t device_id;
    char status[16];
    double seconds;              /* the statistic; -1 when none was measured */
    int verified;                /* 1, 0 (failed verification), -1 */
};

/* Fills *rows (owned by the caller: free()) with every evaluation of problem problem_id:
 * by device id, then by time (the fastest first, those without a time last), then id. */
int ht__store_query_eval_times(struct ht_store *store, int64_t problem_id,
                               struct ht__store_eval_time_row **rows, size_t *n,
                               struct ht_error *err);

#endif
