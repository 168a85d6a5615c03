/* Tuning runs and their steps: the tables of migration 10 (schema.c), written by the tuner
 * (src/tune/) and read back by the report (the convergence figures). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-internal.h"

int ht_store_put_tune_run(struct ht_store *store, const struct ht_stored_tune_run *run,
                          int64_t *id, struct ht_error *err)
{
    static const char *const op = "cannot store the tuning run";
    sqlite3_stmt *st = NULL;
    int rc;

    if (!store)
        return ht_error_set(err, HT_EINVAL, "ht_store_put_tune_run: store is NULL");
    if (!run)
        return ht_error_set(err, HT_EINVAL, "ht_store_put_tune_run: run is NULL");
    if (run->problem_id <= 0 || run->device_id <= 0 || !run->strategy[0] ||
        !memchr(run->strategy, '\0', sizeof run->strategy))
        return ht_error_set(err, HT_EINVAL, "malformed tuning run: a problem, a device and a "
                                            "strategy are required");
    rc = ht__store_prepare(store,
                           "INSERT INTO tune_runs (problem_id, device_id, strategy, seed, "
                           "budget, time_limit, replayed, from_db, best_before, created_at) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                           "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                           &st, op, err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, run->problem_id);
    sqlite3_bind_int64(st, 2, run->device_id);
    sqlite3_bind_text(st, 3, run->strategy, -1, SQLITE_STATIC);
    /* SQLite's integers are signed: a seed above INT64_MAX keeps its bits. */
    sqlite3_bind_int64(st, 4, (int64_t)run->seed);
    sqlite3_bind_int64(st, 5, run->budget > INT64_MAX ? INT64_MAX : (int64_t)run->budget);
    ht__store_bind_time(st, 6, run->time_limit_s > 0 ? run->time_limit_s : -1);
    sqlite3_bind_int(st, 7, run->replayed ? 1 : 0);
    sqlite3_bind_int64(st, 8, run->from_db > INT64_MAX ? INT64_MAX : (int64_t)run->from_db);
    ht__store_bind_time(st, 9, run->best_before_s > 0 ? run->best_before_s : -1);
    rc = ht__store_step_done(store, st, op, err);
    if (rc == HT_OK && id)
        *id = sqlite3_last_insert_rowid(store->db);
    return rc;
}

int ht_store_put_tune_step(struct ht_store *store, int64_t run_id,
                           const struct ht_stored_tune_step *s, struct ht_error *err)
{
    if (!store)
        return ht_error_set(err, HT_EINVAL, "ht_store_put_tune_step: store is NULL");
    if (!s)
        return ht_error_set(err, HT_EINVAL, "ht_store_put_tune_step: st is NULL");
    return ht__store_insert_tune_step(store, run_id, s, err);
}

int ht__store_insert_tune_step(struct ht_store *store, int64_t run_id,
                               const struct ht_stored_tune_step *s, struct ht_error *err)
{
    static const char *const op = "cannot store the tuning step";
    sqlite3_stmt *st = NULL;
    int rc;

    if (!s || run_id <= 0 || !s->status[0] || !memchr(s->status, '\0', sizeof s->status) ||
        !s->config[0] || !memchr(s->config, '\0', sizeof s->config) ||
        !(s->elapsed_s >= 0) || !isfinite(s->elapsed_s) || s->i > INT64_MAX)
        return ht_error_set(err, HT_EINVAL, "malformed tuning step: a run, a configuration, a "
                                            "status and the run's clock are required");
    rc = ht__store_kept(store, HT__KEPT_INS_STEP,
                        "INSERT INTO tune_steps (run_id, i, config, status, seconds, elapsed) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        &st, op, err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, (int64_t)s->i);
    sqlite3_bind_text(st, 3, s->config, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, s->status, -1, SQLITE_STATIC);
    ht__store_bind_time(st, 5, s->seconds);
    sqlite3_bind_double(st, 6, s->elapsed_s);
    /* The message is the connection's: read it before the reset. */
    rc = sqlite3_step(st) == SQLITE_DONE ? HT_OK : ht__store_fail(store, err, op);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st); /* the texts are the caller's */
    return rc;
}

/* The walk's text for runs of problem ?1 on device ?2, 0 matching any: one per case, each
 * naming both parameters, rather than "(?1 = 0 OR r.problem_id = ?1) AND ...", which SQLite
 * answers by reading every run (no index serves an OR). The runs of a problem are found
 * through tune_runs_problem and read by id, in order: "r.problem_id = ?1 ORDER BY r.id"
 * would sort every step of them. A device alone has no index: every run is read. */
static const char *steps_sql(int64_t problem_id, int64_t device_id)
{
#define STEPS_SELECT                                                                       \
    "SELECT r.id, r.problem_id, r.device_id, r.strategy, r.seed, r.budget, r.time_limit, " \
    "r.replayed, r.from_db, r.best_before, r.created_at, s.i, s.config, s.status, "        \
    "s.seconds, s.elapsed FROM tune_runs r JOIN tune_steps s ON s.run_id = r.id WHERE "
#define STEPS_ORDER " ORDER BY r.id, s.i"
    if (problem_id && device_id)
        return STEPS_SELECT "r.problem_id = ?1 AND r.device_id = ?2" STEPS_ORDER;
    if (problem_id)
        return STEPS_SELECT "r.id IN (SELECT id FROM tune_runs WHERE problem_id = ?1) "
                            "AND ?2 = 0" STEPS_ORDER;
    if (device_id)
        return STEPS_SELECT "r.device_id = ?2 AND ?1 = 0" STEPS_ORDER;
    return STEPS_SELECT "?1 = 0 AND ?2 = 0" STEPS_ORDER;
#undef STEPS_SELECT
#undef STEPS_ORDER
}

int ht_store_list_tune_steps(struct ht_store *store, int64_t problem_id, int64_t device_id,
                             ht_store_tune_step_cb cb, void *user, struct ht_error *err)
{
    static const char *const op = "cannot read the tuning runs";
    struct ht_stored_tune_run run;
    struct ht_stored_tune_step *s = NULL;
    sqlite3_stmt *st = NULL;
    int rc, r;

    if (!store || !cb)
        return ht_error_set(err, HT_EINVAL, "ht_store_list_tune_steps: %s is NULL",
                            !store ? "store" : "cb");

    rc = ht__store_prepare(store, steps_sql(problem_id, device_id), &st, op, err);
    if (rc != HT_OK)
        return rc;
    if (!(s = malloc(sizeof *s))) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    sqlite3_bind_int64(st, 1, problem_id);
    sqlite3_bind_int64(st, 2, device_id);
    memset(&run, 0, sizeof run);
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_int64(st, 0) != run.id) {
            double limit;
            memset(&run, 0, sizeof run);
            run.id = sqlite3_column_int64(st, 0);
            run.problem_id = sqlite3_column_int64(st, 1);
            run.device_id = sqlite3_column_int64(st, 2);
            ht__store_column_text(st, 3, run.strategy, sizeof run.strategy);
            run.seed = (uint64_t)sqlite3_column_int64(st, 4);
            run.budget = (uint64_t)sqlite3_column_int64(st, 5);
            /* Stored NULL when there was none, as put takes it: 0. */
            limit = ht__store_column_time(st, 6);
            run.time_limit_s = limit > 0 ? limit : 0;
            run.replayed = sqlite3_column_int(st, 7) != 0;
            run.from_db = (uint64_t)sqlite3_column_int64(st, 8);
            run.best_before_s = ht__store_column_time(st, 9);
            ht__store_column_text(st, 10, run.created_at, sizeof run.created_at);
        }
        s->i = (uint64_t)sqlite3_column_int64(st, 11);
        ht__store_column_text(st, 12, s->config, sizeof s->config);
        ht__store_column_text(st, 13, s->status, sizeof s->status);
        s->seconds = ht__store_column_time(st, 14);
        s->elapsed_s = sqlite3_column_double(st, 15);
        rc = cb(&run, s, user);
        if (rc != 0)
            goto cleanup;
    }
    if (r != SQLITE_DONE)
        rc = ht__store_fail(store, err, op);
cleanup:
    free(s);
    sqlite3_finalize(st);
    return rc;
}
