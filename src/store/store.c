/* Opening and closing the results database, and the SQLite helpers of the module. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store/store-internal.h"
#include "util/util.h"

/* How long a writer waits for another process's transaction before giving up: generous,
 * since a process that waits a little is better than one that fails (issue 13). */
#define BUSY_TIMEOUT_MS 30000

sqlite3 *ht__store_db(struct ht_store *store)
{
    return store->db;
}

const char *ht_store_path(const struct ht_store *store)
{
    return store->path;
}

int ht__store_fail(struct ht_store *store, struct ht_error *err, const char *op)
{
    if (err && !err->code)
        snprintf(err->file, sizeof err->file, "%s", store->path);
    return ht_error_set(err, HT_EDB, "%s: %s", op, sqlite3_errmsg(store->db));
}

int ht__store_exec(struct ht_store *store, const char *sql, const char *op,
                   struct ht_error *err)
{
    if (sqlite3_exec(store->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return ht__store_fail(store, err, op);
    return HT_OK;
}

int ht__store_step_done(struct ht_store *store, sqlite3_stmt *st, const char *op,
                        struct ht_error *err)
{
    /* The message is the connection's: read it before finalize can change it. */
    int rc = sqlite3_step(st) == SQLITE_DONE ? HT_OK : ht__store_fail(store, err, op);

    sqlite3_finalize(st);
    return rc;
}

void ht__store_bind_time(sqlite3_stmt *st, int i, double v)
{
    if (v < 0 || !isfinite(v))
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, v);
}

double ht__store_column_time(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? -1.0 : sqlite3_column_double(st, i);
}

void ht__store_column_text(sqlite3_stmt *st, int i, char *buf, size_t size)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(buf, size, "%s", t ? (const char *)t : "");
}

int ht__store_prepare(struct ht_store *store, const char *sql, sqlite3_stmt **stmt,
                      const char *op, struct ht_error *err)
{
    if (sqlite3_prepare_v2(store->db, sql, -1, stmt, NULL) != SQLITE_OK) {
        sqlite3_finalize(*stmt);
        *stmt = NULL;
        return ht__store_fail(store, err, op);
    }
    return HT_OK;
}

int ht__store_query_int(struct ht_store *store, const char *sql, int64_t *out, const char *op,
                        struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = ht__store_prepare(store, sql, &st, op, err);

    if (rc != HT_OK)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else
        rc = ht__store_fail(store, err, op);
    sqlite3_finalize(st);
    return rc;
}

/* Refuses, before SQLite sees it, a file that is not an SQLite database: SQLite would take
 * some short files for an empty database and write its schema over them. */
static int check_magic(const char *path, struct ht_error *err)
{
    static const char magic[16] = "SQLite format 3";
    char head[16];
    struct stat st;
    FILE *f;
    size_t n;

    if (strcmp(path, ":memory:") == 0 || path[0] == '\0' || stat(path, &st) != 0)
        return HT_OK; /* new: SQLite creates it (or says why it cannot) */
    if (!S_ISREG(st.st_mode)) {
        snprintf(err->file, sizeof err->file, "%s", path);
        return ht_error_set(err, HT_EDB, "not a hetune results database (not a regular file)");
    }
    if (st.st_size == 0)
        return HT_OK; /* empty, or created and still all in its WAL file */
    f = fopen(path, "rb");
    if (!f) {
        snprintf(err->file, sizeof err->file, "%s", path);
        return ht_error_set(err, HT_EDB, "cannot open the results database: %s",
                            strerror(errno));
    }
    n = fread(head, 1, sizeof head, f);
    fclose(f);
    if (n != sizeof head || memcmp(head, magic, sizeof head) != 0) {
        snprintf(err->file, sizeof err->file, "%s", path);
        return ht_error_set(err, HT_EDB, "not a hetune results database (not an SQLite file)");
    }
    return HT_OK;
}

/* Switches the journal to WAL. Changing the journal mode needs the file to itself, and
 * SQLite answers "database is locked" at once rather than wait when another connection
 * reads or writes it at that moment (two processes creating the same new database), so
 * this waits and tries again, up to the busy timeout. */
static int set_wal(struct ht_store *store, struct ht_error *err)
{
    const char *op = "cannot set the WAL journal";
    int waited_ms = 0;

    for (;;) {
        sqlite3_stmt *st = NULL;
        int rc = ht__store_prepare(store, "PRAGMA journal_mode = WAL", &st, op, err), step;

        if (rc != HT_OK)
            return rc;
        step = sqlite3_step(st);
        if (step == SQLITE_ROW) {
            sqlite3_finalize(st);
            return HT_OK;
        }
        step &= 0xff;
        if ((step != SQLITE_BUSY && step != SQLITE_LOCKED) || waited_ms >= BUSY_TIMEOUT_MS) {
            rc = ht__store_fail(store, err, op);
            sqlite3_finalize(st);
            return rc;
        }
        sqlite3_finalize(st);
        waited_ms += sqlite3_sleep(5);
    }
}

int ht_store_set_durable(struct ht_store *store, int durable, struct ht_error *err)
{
    return ht__store_exec(store, durable ? "PRAGMA synchronous = FULL"
                                         : "PRAGMA synchronous = NORMAL",
                          "cannot set synchronous", err);
}

int ht_store_open(const char *path, struct ht_store **out, struct ht_error *err)
{
    struct ht_error local;
    struct ht_store *s = NULL;
    int version = 0, rc;

    if (!err) {
        ht_error_clear(&local);
        err = &local;
    }
    if (!path || !out)
        return ht_error_set(err, HT_EINVAL, "ht_store_open: path and out are required");
    *out = NULL;
    /* SQLite takes "" for a private temporary database, deleted at close: every result
     * would be lost, and a script with an unset $DB would measure forever. (":memory:" is
     * asked for by name, and documented.) */
    if (!path[0])
        return ht_error_set(err, HT_EINVAL, "an empty database path: SQLite would keep the "
                            "results in a temporary database and delete them at exit (give "
                            "a file)");
    rc = check_magic(path, err);
    if (rc != HT_OK)
        return rc;
    s = calloc(1, sizeof *s);
    if (!s || !(s->path = ht__strdup(path))) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        if (!s->db)
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        else
            rc = ht__store_fail(s, err, "cannot open the results database");
        goto cleanup;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
    rc = ht__store_exec(s, "PRAGMA foreign_keys = ON", "cannot enable foreign keys", err);
    if (rc != HT_OK)
        goto cleanup;
    /* Find the owner before changing anything: another program's database keeps its
     * journal mode. A hetune database is checked for damage too (ht__store_check). */
    rc = ht__store_check(s, &version, err);
    if (rc != HT_OK)
        goto cleanup;
    /* WAL: a killed writer leaves the database as of its last commit; FULL also syncs the
     * WAL at each commit, so a commit survives a power cut too. */
    rc = set_wal(s, err);
    if (rc == HT_OK)
        rc = ht__store_exec(s, "PRAGMA synchronous = FULL", "cannot set synchronous", err);
    if (rc == HT_OK && version != HT_STORE_SCHEMA_VERSION)
        rc = ht__store_migrate(s, err);
    if (rc != HT_OK)
        goto cleanup;
    *out = s;
    s = NULL;
cleanup:
    ht_store_close(s);
    return rc;
}

void ht_store_close(struct ht_store *store)
{
    if (!store)
        return;
    sqlite3_close(store->db);
    free(store->path);
    free(store);
}
