/* Internals of the results database, shared by the files of src/store/ (and the store's
 * unit tests). Other modules read the database through include/hetune/store.h. Not part
 * of the public API. */
#ifndef HETUNE_STORE_INTERNAL_H
#define HETUNE_STORE_INTERNAL_H

#include <sqlite3.h>

#include "hetune/store.h"

/* Statements a store keeps prepared until it closes (ht__store_kept): those of storing an
 * evaluation and a tuning step, hundreds a second in a replay, and of reading an
 * evaluation's runs, once per evaluation read. */
enum {
    HT__KEPT_DEL_EVAL, HT__KEPT_INS_EVAL, HT__KEPT_INS_RUN, HT__KEPT_INS_STEP,
    HT__KEPT_SEL_RUNS, HT__KEPT_N
};

/* PRAGMA application_id of a hetune database: "HTun". */
#define HT__STORE_APP_ID 0x4854756e

struct ht_store {
    sqlite3 *db;
    char *path;
    int nleases;            /* device leases this connection holds (lease.c) */
    char host[256];         /* this host's name, filled by the first lease */
    struct ht_store_opts opts; /* as opened (stop, the wait and its notice) */
    int readonly;           /* opened SQLITE_OPEN_READONLY */
    double wait_t0;         /* when the current wait for the lock began (ht__now) */
    int wait_told;          /* the current wait was said (opts.on_wait) */
    int wait_end;           /* why the last wait ended unsuccessfully: 0 none, 1 stop,
                               2 the busy timeout */
    unsigned batch;         /* ht_store_batch: evaluations per transaction; 0, 1: one each */
    int batch_open;         /* the group's transaction is open (BEGIN IMMEDIATE) */
    unsigned pending;       /* evaluations stored in it, not yet committed */
    sqlite3_stmt *kept[HT__KEPT_N]; /* ht__store_kept's */
};

/* Statement slot (HT__KEPT_...) of sql, prepared the first time and kept until the store
 * closes (preparing them each time was a tenth of a replay's time), reset and without
 * bindings; borrowed: reset it (sqlite3_reset) after use, never finalize it. HT_EDB naming
 * op when it cannot be prepared. */
int ht__store_kept(struct ht_store *store, int slot, const char *sql, sqlite3_stmt **st,
                   const char *op, struct ht_error *err);

/* Commits the open group of ht_store_batch, if any. HT_EDB naming op when the commit
 * fails (the group's transaction is then still open, or rolled back by SQLite). */
int ht__store_batch_commit(struct ht_store *store, const char *op, struct ht_error *err);

/* The connection, borrowed for as long as the store is open. Other modules may read with
 * it; they must not change the schema outside a migration of src/store/schema.c. */
sqlite3 *ht__store_db(struct ht_store *store);

/* Records the connection's last SQLite error as HT_EDB: err->file the database's path,
 * err->text "<op>: <sqlite3_errmsg>". Returns HT_EDB. */
int ht__store_fail(struct ht_store *store, struct ht_error *err, const char *op);

/* Runs sql (one or more statements, no result rows wanted). HT_EDB naming op on failure. */
int ht__store_exec(struct ht_store *store, const char *sql, const char *op,
                   struct ht_error *err);

/* Prepares one statement. HT_EDB naming op on failure (*stmt is then NULL). */
int ht__store_prepare(struct ht_store *store, const char *sql, sqlite3_stmt **stmt,
                      const char *op, struct ht_error *err);

/* Steps st, a statement that returns no rows, once and finalizes it. HT_EDB naming op
 * when the step does not end in SQLITE_DONE. */
int ht__store_step_done(struct ht_store *store, sqlite3_stmt *st, const char *op,
                        struct ht_error *err);

/* Binds a time or error to parameter i: negative (not measured) and non-finite values are
 * NULL. */
void ht__store_bind_time(sqlite3_stmt *st, int i, double v);

/* Reads what ht__store_bind_time stored in column i: NULL reads as -1. */
double ht__store_column_time(sqlite3_stmt *st, int i);

/* Copies text column i of the current row into buf (size bytes, truncated, always
 * terminated); NULL reads as "". */
void ht__store_column_text(sqlite3_stmt *st, int i, char *buf, size_t size);

/* Reads one integer from a statement that returns one row of one column. */
int ht__store_query_int(struct ht_store *store, const char *sql, int64_t *out, const char *op,
                        struct ht_error *err);

/* Finds who owns the file without changing it: sets *version to its schema version when it
 * is a hetune database or empty (0). Returns HT_EDB when it is another program's database,
 * a newer hetune's, or not a database at all. */
int ht__store_check_owner(struct ht_store *store, int *version, struct ht_error *err);

/* ht__store_check_owner and, for a hetune database (*version > 0), PRAGMA quick_check, in
 * one read transaction. HT_EDB naming the file when the database is another program's, a
 * newer hetune's, or damaged. */
int ht__store_check(struct ht_store *store, int *version, struct ht_error *err);

/* Renews the lease this process holds on device_id (its heartbeat), if any; a no-op when
 * the connection holds none. Called inside the transaction that stores an evaluation. */
int ht__store_lease_renew(struct ht_store *store, int64_t device_id, struct ht_error *err);

/* This machine's name (gethostname; "localhost" when it has none), kept in store->host: the
 * key of leases and of the host memory's rate. */
const char *ht__store_host(struct ht_store *store);

/* Checks step st of run run_id and inserts it, inside the caller's transaction or none
 * (runs.c). Errors as ht_store_put_tune_step's. */
int ht__store_insert_tune_step(struct ht_store *store, int64_t run_id,
                               const struct ht_stored_tune_step *st, struct ht_error *err);

/* Brings the schema of a database that is known to be empty or hetune's up to
 * HT_STORE_SCHEMA_VERSION in one BEGIN IMMEDIATE transaction, checking the owner again
 * inside it (another process may have created the schema meanwhile). */
int ht__store_migrate(struct ht_store *store, struct ht_error *err);

/* --- the store's own reads (once in store.h): one evaluation, one lease --- */

/* Fills *out with the stored evaluation of config_text (canonical) for the problem on the
 * device, runs included. Returns HT_ENOTFOUND (err left untouched) when there is none. */
int ht__store_lookup_eval(struct ht_store *store, int64_t problem_id, int64_t device_id,
                          const char *config_text, struct ht_stored_eval *out,
                          struct ht_error *err);

/* Fills *out with the lease of device device_id as stored, stale or not. HT_ENOTFOUND (err
 * untouched) when there is none, HT_EDB. */
int ht__store_get_lease(struct ht_store *store, int64_t device_id, struct ht_lease_info *out,
                        struct ht_error *err);

#endif
