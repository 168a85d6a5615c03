/* Tuning runs and their steps: the tables of migration 10 (schema.c), written by the tuner
 * (src/search/tune.c) and read by the report through query.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "store-internal.h"

int ht_store_put_tune_run(struct ht_store *store, const struct ht_stored_tune_run *run,
                          int64_t *id, struct ht_error *err)
{
    static const char *const op = "cannot store the tuning run";
    sqlite3_stmt *st = NULL;
    int rc;

    if (!run || run->problem_id <= 0 || run->device_id <= 0 || !run->strategy[0] ||
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
