/* Evaluations and their runs: storing, looking up, choosing the best, listing, forgetting. */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-internal.h"

static const char *const status_names[] = {
    HT_STORE_OK,     HT_STORE_CUT,        HT_STORE_BUILD, HT_STORE_LAUNCH,
    HT_STORE_VERIFY, HT_STORE_CONSTRAINT, HT_STORE_CL,    HT_STORE_ERROR,
    HT_STORE_CRASHED, HT_STORE_TIMEOUT,
};

const char *ht_store_status_name(int code)
{
    switch (code) {
    case HT_OK:
        return HT_STORE_OK;
    case HT_EBUILD:
        return HT_STORE_BUILD;
    case HT_ELAUNCH:
        return HT_STORE_LAUNCH;
    case HT_EVERIFY:
        return HT_STORE_VERIFY;
    case HT_ECONSTRAINT:
        return HT_STORE_CONSTRAINT;
    case HT_ECL:
        return HT_STORE_CL;
    case HT_ECUT:
        return HT_STORE_CUT;
    case HT_ECRASH:
        return HT_STORE_CRASHED;
    case HT_ETIMEOUT:
        return HT_STORE_TIMEOUT;
    default:
        return HT_STORE_ERROR;
    }
}

/* A brief walk leaves the runs alone (read_row): nothing else may come after them. */
_Static_assert(offsetof(struct ht_stored_eval, runs) + sizeof((struct ht_stored_eval *)0)->runs ==
                   sizeof(struct ht_stored_eval),
               "the runs are the last field of struct ht_stored_eval");

/* Zeroes ev's first `bytes` bytes and sets its times and errors, and verified, to -1
 * (none of them lies among the runs, which come last). */
static void eval_empty(struct ht_stored_eval *ev, size_t bytes)
{
    memset(ev, 0, bytes);
    ev->seconds = ev->min_seconds = -1;
    ev->write_seconds = ev->read_seconds = ev->build_seconds = -1;
    ev->max_abs_err = ev->max_rel_err = -1;
    ev->verified = -1;
}

void ht_stored_eval_init(struct ht_stored_eval *ev)
{
    if (ev)
        eval_empty(ev, sizeof *ev);
}

/* The columns read_row expects, in its order. */
#define EVAL_COLUMNS                                                                       \
    "id, problem_id, device_id, config, config_values, status, reason, seconds, "          \
    "min_seconds, write_seconds, read_seconds, build_seconds, cache_hit, verified, "       \
    "max_abs_err, max_rel_err, mismatches, global_size, local_size, nruns, strategy, seed, " \
    "created_at, spec_hash"

/* A time or error: negative (not measured) is NULL; NaN, which SQLite would turn into NULL,
 * is kept as the text 'NaN' (REAL affinity leaves text that is no number alone). */
static int bind_real(sqlite3_stmt *st, int i, double v, int negative_is_null)
{
    if (isnan(v))
        return sqlite3_bind_text(st, i, "NaN", -1, SQLITE_STATIC);
    if (negative_is_null && v < 0)
        return sqlite3_bind_null(st, i);
    return sqlite3_bind_double(st, i, v);
}

static double column_real(sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL:
        return -1;
    case SQLITE_TEXT:
        return NAN;
    default:
        return sqlite3_column_double(st, i);
    }
}

/* "[16,8]" from n integers; buf holds at least 2 + 21 * n bytes. */
static void write_int_array(char *buf, size_t size, const int64_t *v, size_t n)
{
    size_t len = 0;

    len += (size_t)snprintf(buf, size, "[");
    for (size_t i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%" PRId64, i ? "," : "", v[i]);
    if (len < size)
        snprintf(buf + len, size - len, "]");
}

/* Parses what write_int_array wrote. Returns 0, or -1 when text is malformed or has more
 * than max values. */
static int parse_int_array(const char *text, int64_t *v, size_t max, size_t *n)
{
    const char *p = text;

    *n = 0;
    if (!p || *p++ != '[')
        return -1;
    if (*p == ']')
        return p[1] == '\0' ? 0 : -1;
    for (;;) {
        char *end;
        if (*n == max)
            return -1;
        v[(*n)++] = strtoll(p, &end, 10);
        if (end == p)
            return -1;
        p = end;
        if (*p == ']')
            return p[1] == '\0' ? 0 : -1;
        if (*p++ != ',')
            return -1;
    }
}

static int damaged(struct ht_store *store, struct ht_error *err, int64_t id, const char *what)
{
    if (err && !err->code)
        snprintf(err->file, sizeof err->file, "%s", store->path);
    return ht_error_set(err, HT_EDB, "evaluation %" PRId64 " is damaged: %s", id, what);
}

static int load_runs(struct ht_store *store, struct ht_stored_eval *ev, int64_t nruns,
                     struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc, r;
    unsigned k = 0;

    /* Kept prepared: a listing reads the runs of every evaluation it walks. Never nested:
     * each use steps it to its end and resets it before returning. */
    rc = ht__store_kept(store, HT__KEPT_SEL_RUNS,
                        "SELECT i, seconds FROM runs WHERE eval_id = ? ORDER BY i", &st,
                        "cannot read runs", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, ev->id);
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        if (k >= HT_STORE_MAX_RUNS || sqlite3_column_int64(st, 0) != (int64_t)k) {
            rc = damaged(store, err, ev->id, "its runs are not numbered 0, 1, 2...");
            goto cleanup;
        }
        ev->runs[k++] = column_real(st, 1);
    }
    if (r != SQLITE_DONE) {
        rc = ht__store_fail(store, err, "cannot read runs");
        goto cleanup;
    }
    if ((int64_t)k != nruns) {
        rc = damaged(store, err, ev->id, "some of its runs are missing");
        goto cleanup;
    }
    ev->nruns = k;
cleanup:
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
}

/* Fills ev from a row of EVAL_COLUMNS, then its runs when with_runs (else nruns 0). */
static int read_row(struct ht_store *store, sqlite3_stmt *st, struct ht_stored_eval *ev,
                    int with_runs, struct ht_error *err)
{
    int64_t sizes[3];
    size_t n;
    int64_t nruns, mismatches;

    /* Without the runs, as ht_stored_eval_init but for them: ten kilobytes a row were a
     * tenth of a brief walk's time. The caller's ev was zeroed whole before its first row. */
    eval_empty(ev, with_runs ? sizeof *ev : offsetof(struct ht_stored_eval, runs));
    ev->id = sqlite3_column_int64(st, 0);
    ev->problem_id = sqlite3_column_int64(st, 1);
    ev->device_id = sqlite3_column_int64(st, 2);
    ht__store_column_text(st, 3, ev->config, sizeof ev->config);
    if (parse_int_array((const char *)sqlite3_column_text(st, 4), ev->values,
                        HT_STORE_MAX_PARAMS, &ev->nvalues) != 0)
        return damaged(store, err, ev->id, "malformed config_values");
    ht__store_column_text(st, 5, ev->status, sizeof ev->status);
    ht__store_column_text(st, 6, ev->reason, sizeof ev->reason);
    ev->seconds = column_real(st, 7);
    ev->min_seconds = column_real(st, 8);
    ev->write_seconds = column_real(st, 9);
    ev->read_seconds = column_real(st, 10);
    ev->build_seconds = column_real(st, 11);
    ev->cache_hit = sqlite3_column_int(st, 12);
    ev->verified = sqlite3_column_int(st, 13);
    ev->max_abs_err = column_real(st, 14);
    ev->max_rel_err = column_real(st, 15);
    mismatches = sqlite3_column_int64(st, 16);
    ev->mismatches = mismatches > 0 ? (uint64_t)mismatches : 0;
    if (parse_int_array((const char *)sqlite3_column_text(st, 17), sizes, 3, &n) != 0)
        return damaged(store, err, ev->id, "malformed global_size");
    ev->ndims = (unsigned)n;
    for (size_t d = 0; d < n; d++)
        ev->global[d] = (uint64_t)sizes[d];
    if (parse_int_array((const char *)sqlite3_column_text(st, 18), sizes, 3, &n) != 0 ||
        (n != 0 && n != ev->ndims))
        return damaged(store, err, ev->id, "malformed local_size");
    for (size_t d = 0; d < n; d++)
        ev->local[d] = (uint64_t)sizes[d];
    nruns = sqlite3_column_int64(st, 19);
    ht__store_column_text(st, 20, ev->strategy, sizeof ev->strategy);
    ev->seed = (uint64_t)sqlite3_column_int64(st, 21);
    ht__store_column_text(st, 22, ev->created_at, sizeof ev->created_at);
    ht__store_column_text(st, 23, ev->spec_hash, sizeof ev->spec_hash);
    if (nruns < 0 || nruns > HT_STORE_MAX_RUNS)
        return damaged(store, err, ev->id, "its run count is out of range");
    return with_runs ? load_runs(store, ev, nruns, err) : HT_OK;
}

static int terminated(const char *s, size_t size)
{
    return memchr(s, '\0', size) != NULL;
}

static int check_eval(const struct ht_stored_eval *ev, struct ht_error *err)
{
    int known = 0;

    if (ev->problem_id <= 0 || ev->device_id <= 0)
        return ht_error_set(err, HT_EINVAL, "an evaluation needs a problem and a device id");
    if (!terminated(ev->config, sizeof ev->config) || ev->config[0] == '\0')
        return ht_error_set(err, HT_EINVAL, "an evaluation needs its configuration text");
    if (!terminated(ev->reason, sizeof ev->reason) ||
        !terminated(ev->strategy, sizeof ev->strategy) ||
        !terminated(ev->created_at, sizeof ev->created_at) ||
        !terminated(ev->status, sizeof ev->status))
        return ht_error_set(err, HT_EINVAL, "a text field of the evaluation is not terminated");
    for (size_t i = 0; i < sizeof status_names / sizeof status_names[0]; i++)
        known |= strcmp(ev->status, status_names[i]) == 0;
    if (!known)
        return ht_error_set(err, HT_EINVAL, "unknown evaluation status '%s'", ev->status);
    if (ev->nvalues > HT_STORE_MAX_PARAMS || ev->nruns > HT_STORE_MAX_RUNS || ev->ndims > 3)
        return ht_error_set(err, HT_EINVAL,
                            "evaluation has too many values (%zu), runs (%u) or dimensions (%u)",
                            ev->nvalues, ev->nruns, ev->ndims);
    if (ev->verified < -1 || ev->verified > 1)
        return ht_error_set(err, HT_EINVAL, "verified must be -1, 0 or 1, not %d",
                            ev->verified);
    return HT_OK;
}

/* Binds everything but the runs to the INSERT of ht_store_put_eval. */
static int bind_eval(sqlite3_stmt *st, const struct ht_stored_eval *ev)
{
    char values[2 + 21 * HT_STORE_MAX_PARAMS], global[2 + 21 * 3], local[2 + 21 * 3];
    int64_t g[3] = {0, 0, 0}, l[3] = {0, 0, 0};
    int has_local = 0, r = SQLITE_OK;

    for (unsigned d = 0; d < ev->ndims; d++) {
        g[d] = (int64_t)ev->global[d];
        l[d] = (int64_t)ev->local[d];
        has_local |= ev->local[d] != 0;
    }
    write_int_array(values, sizeof values, ev->values, ev->nvalues);
    write_int_array(global, sizeof global, g, ev->ndims);
    write_int_array(local, sizeof local, l, has_local ? ev->ndims : 0);
#define BIND(call)              \
    do {                        \
        if (r == SQLITE_OK)     \
            r = (call);         \
    } while (0)
    BIND(sqlite3_bind_int64(st, 1, ev->problem_id));
    BIND(sqlite3_bind_int64(st, 2, ev->device_id));
    BIND(sqlite3_bind_text(st, 3, ev->config, -1, SQLITE_STATIC));
    BIND(sqlite3_bind_text(st, 4, values, -1, SQLITE_TRANSIENT));
    BIND(sqlite3_bind_text(st, 5, ev->status, -1, SQLITE_STATIC));
    BIND(sqlite3_bind_text(st, 6, ev->reason, -1, SQLITE_STATIC));
    BIND(bind_real(st, 7, ev->seconds, 1));
    BIND(bind_real(st, 8, ev->min_seconds, 1));
    BIND(bind_real(st, 9, ev->write_seconds, 1));
    BIND(bind_real(st, 10, ev->read_seconds, 1));
    BIND(bind_real(st, 11, ev->build_seconds, 1));
    BIND(sqlite3_bind_int(st, 12, ev->cache_hit != 0));
    BIND(sqlite3_bind_int(st, 13, ev->verified));
    BIND(bind_real(st, 14, ev->max_abs_err, 1));
    BIND(bind_real(st, 15, ev->max_rel_err, 1));
    BIND(sqlite3_bind_int64(st, 16, ev->mismatches > INT64_MAX ? INT64_MAX
                                                               : (int64_t)ev->mismatches));
    BIND(sqlite3_bind_text(st, 17, global, -1, SQLITE_TRANSIENT));
    BIND(sqlite3_bind_text(st, 18, local, -1, SQLITE_TRANSIENT));
    BIND(sqlite3_bind_int64(st, 19, ev->nruns));
    BIND(sqlite3_bind_text(st, 20, ev->strategy, -1, SQLITE_STATIC));
    BIND(sqlite3_bind_int64(st, 21, (int64_t)ev->seed));
    BIND(ev->created_at[0] ? sqlite3_bind_text(st, 22, ev->created_at, -1, SQLITE_STATIC)
                           : sqlite3_bind_null(st, 22));
    BIND(ev->spec_hash[0] ? sqlite3_bind_text(st, 23, ev->spec_hash, -1, SQLITE_STATIC)
                          : sqlite3_bind_null(st, 23));
#undef BIND
    return r;
}

static void reset_kept(sqlite3_stmt *st)
{
    if (st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
}

/* ht_store_put_eval, and with step (when not NULL) ht_store_put_tune_step of run run_id in
 * the same transaction: its own, or a savepoint in the group of ht_store_batch. */
static int put_eval(struct ht_store *store, const struct ht_stored_eval *ev, int64_t run_id,
                    const struct ht_stored_tune_step *step, int64_t *id, struct ht_error *err)
{
    static const char *const op = "cannot store the evaluation";
    sqlite3_stmt *del = NULL, *ins = NULL, *run = NULL;
    int batched;
    int64_t eval_id;
    int rc;

    if (!store || !ev)
        return ht_error_set(err, HT_EINVAL, "%s: %s is NULL",
                            step ? "ht_store_put_eval_step" : "ht_store_put_eval",
                            !store ? "store" : "ev");
    batched = store->batch > 1;
    rc = check_eval(ev, err);
    if (rc != HT_OK)
        return rc;
    /* One transaction for the evaluation and its runs: a process killed before COMMIT
     * leaves none of it. IMMEDIATE takes the write lock first, so a busy database is
     * waited for here (busy_timeout) rather than failing halfway. In a group, the group's
     * transaction is begun so, and the evaluation is a savepoint in it. */
    if (batched && !store->batch_open) {
        rc = ht__store_exec(store, "BEGIN IMMEDIATE", op, err);
        if (rc != HT_OK)
            return rc;
        store->batch_open = 1;
    }
    rc = ht__store_exec(store, batched ? "SAVEPOINT put_eval" : "BEGIN IMMEDIATE", op, err);
    if (rc != HT_OK)
        return rc;
    if ((rc = ht__store_kept(store, HT__KEPT_DEL_EVAL,
                             "DELETE FROM evaluations WHERE problem_id = ?1 "
                             "AND device_id = ?2 AND config = ?3",
                             &del, op, err)) != HT_OK ||
        (rc = ht__store_kept(
             store, HT__KEPT_INS_EVAL,
             "INSERT INTO evaluations (problem_id, device_id, config, config_values, status, "
             "reason, seconds, min_seconds, write_seconds, read_seconds, build_seconds, "
             "cache_hit, verified, max_abs_err, max_rel_err, mismatches, global_size, "
             "local_size, nruns, strategy, seed, created_at, spec_hash) VALUES (?1, ?2, ?3, "
             "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, "
             "?21, COALESCE(?22, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), ?23)",
             &ins, op, err)) != HT_OK ||
        (rc = ht__store_kept(store, HT__KEPT_INS_RUN,
                             "INSERT INTO runs (eval_id, i, seconds) VALUES (?, ?, ?)", &run,
                             op, err)) != HT_OK)
        goto cleanup;
    /* A re-measured configuration replaces the old one; its runs go with it (ON DELETE
     * CASCADE). */
    if (sqlite3_bind_int64(del, 1, ev->problem_id) != SQLITE_OK ||
        sqlite3_bind_int64(del, 2, ev->device_id) != SQLITE_OK ||
        sqlite3_bind_text(del, 3, ev->config, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_step(del) != SQLITE_DONE || bind_eval(ins, ev) != SQLITE_OK ||
        sqlite3_step(ins) != SQLITE_DONE) {
        rc = ht__store_fail(store, err, op);
        goto cleanup;
    }
    eval_id = sqlite3_last_insert_rowid(store->db);
    for (unsigned i = 0; i < ev->nruns; i++) {
        if (sqlite3_bind_int64(run, 1, eval_id) != SQLITE_OK ||
            sqlite3_bind_int(run, 2, (int)i) != SQLITE_OK ||
            bind_real(run, 3, ev->runs[i], 0) != SQLITE_OK || sqlite3_step(run) != SQLITE_DONE) {
            rc = ht__store_fail(store, err, op);
            goto cleanup;
        }
        sqlite3_reset(run);
    }
    if (step) {
        rc = ht__store_insert_tune_step(store, run_id, step, err);
        if (rc != HT_OK)
            goto cleanup;
    }
    /* A stored evaluation is the holder's sign of life (device leases, lease.c). */
    rc = ht__store_lease_renew(store, ev->device_id, err);
    if (rc == HT_OK)
        rc = ht__store_exec(store, batched ? "RELEASE put_eval" : "COMMIT", op, err);
    if (rc == HT_OK && batched && ++store->pending >= store->batch)
        rc = ht__store_batch_commit(store, op, err);
    if (rc == HT_OK && id)
        *id = eval_id;
cleanup:
    /* The statements are kept: reset, they hold no lock and no text of ev. */
    reset_kept(del);
    reset_kept(ins);
    reset_kept(run);
    if (rc != HT_OK && !sqlite3_get_autocommit(store->db)) {
        /* In a group, this evaluation alone is undone when its savepoint is still there;
         * otherwise (the group's own commit failed) the whole transaction. */
        if (!batched || !store->batch_open ||
            sqlite3_exec(store->db, "ROLLBACK TO put_eval; RELEASE put_eval", NULL, NULL,
                         NULL) != SQLITE_OK) {
            sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
            store->batch_open = 0;
            store->pending = 0;
        }
    }
    return rc;
}

int ht_store_put_eval(struct ht_store *store, const struct ht_stored_eval *ev, int64_t *id,
                      struct ht_error *err)
{
    return put_eval(store, ev, 0, NULL, id, err);
}

int ht_store_put_eval_step(struct ht_store *store, const struct ht_stored_eval *ev,
                           int64_t run_id, const struct ht_stored_tune_step *st, int64_t *id,
                           struct ht_error *err)
{
    if (!st)
        return ht_error_set(err, HT_EINVAL, "ht_store_put_eval_step: st is NULL");
    return put_eval(store, ev, run_id, st, id, err);
}

/* Which evaluations a lookup reads: a problem on a device, and one configuration of it
 * (config, the configuration's text) or, when config is NULL, any. */
struct eval_key {
    int64_t problem_id, device_id;
    const char *config;
};

/* Runs a query of EVAL_COLUMNS bound to k's (problem ?1, device ?2[, config ?3]) and reads
 * its first row. */
static int fetch_one(struct ht_store *store, const char *sql, const struct eval_key *k,
                     struct ht_stored_eval *out, const char *op, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc, r;

    rc = ht__store_prepare(store, sql, &st, op, err);
    if (rc != HT_OK)
        return rc;
    if (sqlite3_bind_int64(st, 1, k->problem_id) != SQLITE_OK ||
        sqlite3_bind_int64(st, 2, k->device_id) != SQLITE_OK ||
        (k->config && sqlite3_bind_text(st, 3, k->config, -1, SQLITE_STATIC) != SQLITE_OK)) {
        rc = ht__store_fail(store, err, op);
        goto cleanup;
    }
    r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        rc = read_row(store, st, out, 1, err);
    else if (r == SQLITE_DONE)
        rc = HT_ENOTFOUND;
    else
        rc = ht__store_fail(store, err, op);
cleanup:
    sqlite3_finalize(st);
    return rc;
}

int ht__store_lookup_eval(struct ht_store *store, int64_t problem_id, int64_t device_id,
                          const char *config_text, struct ht_stored_eval *out,
                          struct ht_error *err)
{
    if (!config_text)
        return ht_error_set(err, HT_EINVAL, "ht__store_lookup_eval: config_text is NULL");
    return fetch_one(store,
                     "SELECT " EVAL_COLUMNS " FROM evaluations WHERE problem_id = ?1 "
                     "AND device_id = ?2 AND config = ?3",
                     &(struct eval_key){problem_id, device_id, config_text}, out,
                     "cannot look up the evaluation", err);
}

/* typeof() keeps a NaN statistic (stored as text) out: text sorts after every number. */
#define BEST_SQL(verified)                                                                 \
    "SELECT " EVAL_COLUMNS " FROM evaluations WHERE problem_id = ?1 AND device_id = ?2 "    \
    "AND status = 'ok' AND " verified " AND typeof(seconds) = 'real' "                     \
    "ORDER BY seconds, id LIMIT 1"

int ht_store_best(struct ht_store *store, int64_t problem_id, int64_t device_id,
                  struct ht_stored_eval *out, struct ht_error *err)
{
    if (!store || !out)
        return ht_error_set(err, HT_EINVAL, "ht_store_best: %s is NULL", !store ? "store" : "out");
    return fetch_one(store, BEST_SQL("verified = 1"),
                     &(struct eval_key){problem_id, device_id, NULL}, out,
                     "cannot find the best evaluation", err);
}

int ht_store_best_unverified(struct ht_store *store, int64_t problem_id, int64_t device_id,
                             struct ht_stored_eval *out, struct ht_error *err)
{
    if (!store || !out)
        return ht_error_set(err, HT_EINVAL, "ht_store_best_unverified: %s is NULL",
                            !store ? "store" : "out");
    return fetch_one(store, BEST_SQL("verified <> 0"),
                     &(struct eval_key){problem_id, device_id, NULL}, out,
                     "cannot find the best evaluation", err);
}

/* The WHERE clause of the evaluations of problem ?1 on device ?2, 0 matching any, each
 * naming both parameters: one text per case rather than "(?1 = 0 OR problem_id = ?1)",
 * which SQLite answers by reading the whole table (no index serves an OR), once per
 * problem for the report. For a walk in id order (walk 1) the index finds the ids and the
 * rows are read by id, in order: "problem_id = ?1 ORDER BY id" sorted every row, runs'
 * count and texts included, in a temporary b-tree, twice the time of the whole table. */
static const char *match_sql(int64_t problem_id, int64_t device_id, int walk)
{
    if (problem_id && walk)
        return "id IN (SELECT id FROM evaluations WHERE problem_id = ?1 AND "
               "(?2 = 0 OR device_id = ?2))";
    if (problem_id)
        return "problem_id = ?1 AND (?2 = 0 OR device_id = ?2)";
    if (device_id && walk)
        return "id IN (SELECT id FROM evaluations WHERE device_id = ?2) AND ?1 = 0";
    if (device_id)
        return "device_id = ?2 AND ?1 = 0";
    return "?1 = 0 AND ?2 = 0";
}

/* The walk of ht_store_list_evals, with the runs of each evaluation or without. */
static int list_evals(struct ht_store *store, int64_t problem_id, int64_t device_id,
                      int with_runs, ht_store_eval_cb cb, void *user, struct ht_error *err)
{
    static const char *const op = "cannot list evaluations";
    struct ht_stored_eval *ev = NULL;
    sqlite3_stmt *st = NULL;
    char sql[sizeof EVAL_COLUMNS + 192];
    int rc, r;

    snprintf(sql, sizeof sql, "SELECT " EVAL_COLUMNS " FROM evaluations WHERE %s ORDER BY id",
             match_sql(problem_id, device_id, 1));
    rc = ht__store_prepare(store, sql, &st, op, err);
    if (rc != HT_OK)
        return rc;
    ev = calloc(1, sizeof *ev);
    if (!ev) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    sqlite3_bind_int64(st, 1, problem_id);
    sqlite3_bind_int64(st, 2, device_id);
    /* While st is active the connection holds one read snapshot, so the runs read for each
     * row belong to the same state of the database as the rows. */
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        rc = read_row(store, st, ev, with_runs, err);
        if (rc == HT_OK)
            rc = cb(ev, user);
        if (rc != HT_OK)
            goto cleanup;
    }
    if (r != SQLITE_DONE)
        rc = ht__store_fail(store, err, op);
cleanup:
    free(ev);
    sqlite3_finalize(st);
    return rc;
}

int ht_store_list_evals(struct ht_store *store, int64_t problem_id, int64_t device_id,
                        ht_store_eval_cb cb, void *user, struct ht_error *err)
{
    if (!store || !cb)
        return ht_error_set(err, HT_EINVAL, "ht_store_list_evals: %s is NULL",
                            !store ? "store" : "cb");
    return list_evals(store, problem_id, device_id, 1, cb, user, err);
}

int ht_store_list_evals_brief(struct ht_store *store, int64_t problem_id, int64_t device_id,
                              ht_store_eval_cb cb, void *user, struct ht_error *err)
{
    if (!store || !cb)
        return ht_error_set(err, HT_EINVAL, "ht_store_list_evals_brief: %s is NULL",
                            !store ? "store" : "cb");
    return list_evals(store, problem_id, device_id, 0, cb, user, err);
}

int ht_store_count_evals(struct ht_store *store, int64_t problem_id, int64_t device_id,
                         uint64_t *count, struct ht_error *err)
{
    static const char *const op = "cannot count evaluations";
    sqlite3_stmt *st = NULL;
    char sql[160];
    int rc;

    if (!store || !count)
        return ht_error_set(err, HT_EINVAL, "ht_store_count_evals: %s is NULL",
                            !store ? "store" : "count");

    snprintf(sql, sizeof sql, "SELECT count(*) FROM evaluations WHERE %s",
             match_sql(problem_id, device_id, 0));
    rc = ht__store_prepare(store, sql, &st, op, err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, problem_id);
    sqlite3_bind_int64(st, 2, device_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        *count = (uint64_t)sqlite3_column_int64(st, 0);
    else
        rc = ht__store_fail(store, err, op);
    sqlite3_finalize(st);
    return rc;
}

int ht_store_forget(struct ht_store *store, int64_t problem_id, int64_t device_id,
                    uint64_t *deleted, struct ht_error *err)
{
    static const char *const op = "cannot forget evaluations";
    sqlite3_stmt *st = NULL;
    int rc;

    if (!store)
        return ht_error_set(err, HT_EINVAL, "ht_store_forget: store is NULL");

    if (problem_id <= 0 || device_id <= 0)
        return ht_error_set(err, HT_EINVAL, "forgetting needs a problem and a device id");
    /* One statement is one transaction; the runs go with their evaluations (CASCADE). */
    rc = ht__store_prepare(store, "DELETE FROM evaluations WHERE problem_id = ? AND device_id = ?",
                           &st, op, err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, problem_id);
    sqlite3_bind_int64(st, 2, device_id);
    if (sqlite3_step(st) == SQLITE_DONE) {
        if (deleted)
            *deleted = (uint64_t)sqlite3_changes(store->db);
    } else {
        rc = ht__store_fail(store, err, op);
    }
    sqlite3_finalize(st);
    return rc;
}
