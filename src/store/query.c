/* The listings the report and the exports read (store/query.h): problems with their
 * kernel's names, devices, tallies of evaluations, and which splits to show. */
#include <stdlib.h>
#include <string.h>

#include "store/query.h"
#include "store-internal.h"

/* Fills one row of the caller's type from the statement's current row. */
typedef void (*fill_fn)(sqlite3_stmt *st, void *row);

/* One listing: its statement, the row it fills (size bytes, filled by fill from each result
 * row) and what an error says failed (op). */
struct listing {
    const char *sql;
    size_t size;
    fill_fn fill;
    const char *op;
};

/* Runs q's statement, with spec bound to :spec (NULL binds NULL) and id to :id where the
 * statement names them, and collects one row per result row into *rows (owned by the
 * caller). On failure *rows is NULL and *n 0. */
static int collect(struct ht_store *store, const struct listing *q, const char *spec,
                   int64_t id, void **rows, size_t *n, struct ht_error *err)
{
    const char *op = q->op;
    const size_t size = q->size;
    sqlite3_stmt *st = NULL;
    char *arr = NULL;
    size_t count = 0, cap = 0;
    int rc, r, i;

    *rows = NULL;
    *n = 0;
    rc = ht__store_prepare(store, q->sql, &st, op, err);
    if (rc != HT_OK)
        return rc;
    if ((i = sqlite3_bind_parameter_index(st, ":spec")) > 0) {
        if (spec)
            sqlite3_bind_text(st, i, spec, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, i);
    }
    if ((i = sqlite3_bind_parameter_index(st, ":id")) > 0)
        sqlite3_bind_int64(st, i, id);
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        if (count == cap) {
            size_t grown_cap = cap ? 2 * cap : 8;
            char *grown = realloc(arr, grown_cap * size);
            if (!grown) {
                rc = ht_error_set(err, HT_ENOMEM, "out of memory");
                goto cleanup;
            }
            arr = grown;
            cap = grown_cap;
        }
        memset(arr + count * size, 0, size);
        q->fill(st, arr + count * size);
        count++;
    }
    if (r != SQLITE_DONE)
        rc = ht__store_fail(store, err, op);
cleanup:
    sqlite3_finalize(st);
    if (rc != HT_OK) {
        free(arr);
        return rc;
    }
    *rows = arr;
    *n = count;
    return HT_OK;
}

int ht__store_schema_version(struct ht_store *store, int64_t *version, struct ht_error *err)
{
    return ht__store_query_int(store, "PRAGMA user_version", version,
                               "cannot read the schema version", err);
}

static void fill_problem(sqlite3_stmt *st, void *row)
{
    struct ht__store_problem_row *p = row;

    p->id = sqlite3_column_int64(st, 0);
    ht__store_column_text(st, 1, p->kernel, sizeof p->kernel);
    ht__store_column_text(st, 2, p->spec, sizeof p->spec);
    ht__store_column_text(st, 3, p->sizes, sizeof p->sizes);
    ht__store_column_text(st, 4, p->params, sizeof p->params);
    p->has_results = sqlite3_column_int(st, 5) != 0;
}

int ht__store_query_problems(struct ht_store *store, const char *spec,
                             struct ht__store_problem_row **rows, size_t *n,
                             struct ht_error *err)
{
    static const struct listing q = {
        "SELECT p.id, k.kernel_name, k.spec_name, p.sizes, p.params, "
        "EXISTS (SELECT 1 FROM spaces s WHERE s.problem_id = p.id) OR "
        "EXISTS (SELECT 1 FROM evaluations e WHERE e.problem_id = p.id) OR "
        "EXISTS (SELECT 1 FROM splits x WHERE x.problem_id = p.id) "
        "FROM problems p JOIN kernels k ON k.id = p.kernel_id "
        "WHERE :spec IS NULL OR k.spec_name = :spec ORDER BY p.id",
        sizeof **rows, fill_problem, "cannot read the problems"};
    void *arr;
    int rc = collect(store, &q, spec, 0, &arr, n, err);

    *rows = arr;
    return rc;
}

static void fill_device(sqlite3_stmt *st, void *row)
{
    struct ht__store_device_row *d = row;

    d->id = sqlite3_column_int64(st, 0);
    ht__store_column_text(st, 1, d->name, sizeof d->name);
    ht__store_column_text(st, 2, d->platform, sizeof d->platform);
    ht__store_column_text(st, 3, d->type, sizeof d->type);
    ht__store_column_text(st, 4, d->driver, sizeof d->driver);
    d->compute_units = sqlite3_column_int64(st, 5);
}

int ht__store_query_devices(struct ht_store *store, struct ht__store_device_row **rows,
                            size_t *n, struct ht_error *err)
{
    static const struct listing q = {
        "SELECT id, name, platform, type, driver_version, compute_units "
        "FROM devices ORDER BY id",
        sizeof **rows, fill_device, "cannot read the devices"};
    void *arr;
    int rc = collect(store, &q, NULL, 0, &arr, n, err);

    *rows = arr;
    return rc;
}

static void fill_tally(sqlite3_stmt *st, void *row)
{
    struct ht__store_eval_tally *t = row;

    t->device_id = sqlite3_column_int64(st, 0);
    t->evaluations = (uint64_t)sqlite3_column_int64(st, 1);
    t->ok = (uint64_t)sqlite3_column_int64(st, 2);
}

int ht__store_query_eval_tally(struct ht_store *store, int64_t problem_id,
                               struct ht__store_eval_tally **rows, size_t *n,
                               struct ht_error *err)
{
    static const struct listing q = {
        "SELECT device_id, count(*), sum(status = 'ok') FROM evaluations "
        "WHERE problem_id = :id GROUP BY device_id "
        "ORDER BY device_id",
        sizeof **rows, fill_tally, "cannot read the evaluations"};
    void *arr;
    int rc = collect(store, &q, NULL, problem_id, &arr, n, err);

    *rows = arr;
    return rc;
}

static void fill_id(sqlite3_stmt *st, void *row)
{
    *(int64_t *)row = sqlite3_column_int64(st, 0);
}

int ht__store_query_split_ids(struct ht_store *store, int64_t problem_id,
                              enum ht__store_split_pick pick, int64_t **ids, size_t *n,
                              struct ht_error *err)
{
    static const char *const sql[] = {
        [HT__STORE_SPLITS_NEWEST_FIRST] =
            "SELECT id FROM splits WHERE problem_id = :id ORDER BY id DESC",
        /* The schedulers in the order hetune split --help lists them (split.h's registry:
         * static, dynamic, guided), any other after them by name. */
        [HT__STORE_SPLITS_NEWEST_PER_SCHEDULER] =
            "SELECT max(id) FROM splits WHERE problem_id = :id "
            "GROUP BY dim, scheduler ORDER BY dim, CASE scheduler WHEN 'static' THEN 0 "
            "WHEN 'dynamic' THEN 1 WHEN 'guided' THEN 2 ELSE 3 END, scheduler",
        [HT__STORE_SPLITS_NEWEST_SWEEP] =
            "SELECT max(s.id) FROM splits s WHERE s.problem_id = :id AND "
            "EXISTS (SELECT 1 FROM sweep_points p WHERE p.split_id = s.id) GROUP BY s.dim "
            "ORDER BY s.dim",
    };
    void *arr;
    int rc;

    *ids = NULL;
    *n = 0;
    if ((unsigned)pick >= sizeof sql / sizeof *sql)
        return ht_error_set(err, HT_EINVAL, "unknown listing of splits %d", (int)pick);
    rc = collect(store, &(struct listing){sql[pick], sizeof **ids, fill_id,
                                          "cannot read the splits"},
                 NULL, problem_id, &arr, n, err);
    *ids = arr;
    return rc;
}

static void fill_tune_run(sqlite3_stmt *st, void *row)
{
    struct ht__store_tune_run_row *r = row;

    r->id = sqlite3_column_int64(st, 0);
    r->device_id = sqlite3_column_int64(st, 1);
    ht__store_column_text(st, 2, r->strategy, sizeof r->strategy);
    r->seed = (uint64_t)sqlite3_column_int64(st, 3);
    r->budget = (uint64_t)sqlite3_column_int64(st, 4);
    r->time_limit_s = ht__store_column_time(st, 5);
    r->replayed = sqlite3_column_int(st, 6) != 0;
    r->from_db = (uint64_t)sqlite3_column_int64(st, 7);
    r->steps = (uint64_t)sqlite3_column_int64(st, 8);
    ht__store_column_text(st, 9, r->created_at, sizeof r->created_at);
    r->best_before_s = ht__store_column_time(st, 10);
}

int ht__store_query_tune_runs(struct ht_store *store, int64_t problem_id,
                              struct ht__store_tune_run_row **rows, size_t *n,
                              struct ht_error *err)
{
    static const struct listing q = {
        "SELECT r.id, r.device_id, r.strategy, r.seed, r.budget, r.time_limit, "
        "r.replayed, r.from_db, count(s.i), r.created_at, r.best_before "
        "FROM tune_runs r JOIN tune_steps s ON s.run_id = r.id WHERE r.problem_id = :id "
        "GROUP BY r.id ORDER BY r.device_id, r.id",
        sizeof **rows, fill_tune_run, "cannot read the tuning runs"};
    void *arr;
    int rc = collect(store, &q, NULL, problem_id, &arr, n, err);

    *rows = arr;
    return rc;
}

static void fill_tune_step(sqlite3_stmt *st, void *row)
{
    struct ht__store_tune_step_row *s = row;

    s->i = (uint64_t)sqlite3_column_int64(st, 0);
    ht__store_column_text(st, 1, s->status, sizeof s->status);
    s->seconds = ht__store_column_time(st, 2);
    s->elapsed_s = sqlite3_column_double(st, 3);
}

int ht__store_query_tune_steps(struct ht_store *store, int64_t run_id,
                               struct ht__store_tune_step_row **rows, size_t *n,
                               struct ht_error *err)
{
    static const struct listing q = {
        "SELECT i, status, seconds, elapsed FROM tune_steps WHERE run_id = :id "
        "ORDER BY i",
        sizeof **rows, fill_tune_step, "cannot read the tuning steps"};
    void *arr;
    int rc = collect(store, &q, NULL, run_id, &arr, n, err);

    *rows = arr;
    return rc;
}

static void fill_eval_time(sqlite3_stmt *st, void *row)
{
    struct ht__store_eval_time_row *e = row;

    e->device_id = sqlite3_column_int64(st, 0);
    ht__store_column_text(st, 1, e->status, sizeof e->status);
    /* A NaN statistic is stored as text (evals.c): no time. */
    e->seconds = sqlite3_column_type(st, 2) == SQLITE_FLOAT ? sqlite3_column_double(st, 2)
                                                             : -1.0;
    e->verified = sqlite3_column_int(st, 3);
}

int ht__store_query_eval_times(struct ht_store *store, int64_t problem_id,
                               struct ht__store_eval_time_row **rows, size_t *n,
                               struct ht_error *err)
{
    static const struct listing q = {
        "SELECT device_id, status, seconds, verified FROM evaluations "
        "WHERE problem_id = :id ORDER BY device_id, "
        "typeof(seconds) <> 'real', seconds, id",
        sizeof **rows, fill_eval_time, "cannot read the evaluations"};
    void *arr;
    int rc = collect(store, &q, NULL, problem_id, &arr, n, err);

    *rows = arr;
    return rc;
}
