/* Opening and closing the results database, and the SQLite helpers of the module. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store-internal.h"
#include "util/util.h"

/* The sleep between two looks at another process's lock: short, so that a Ctrl-C during
 * the wait is answered at once (SQLite's own handler sleeps up to 100 ms and knows no
 * stop flag). */
#define BUSY_STEP_MS 20

sqlite3 *ht__store_db(struct ht_store *store)
{
    return store->db;
}

const char *ht_store_path(const struct ht_store *store)
{
    return store ? store->path : NULL;
}

static double busy_limit_s(const struct ht_store *store)
{
    return store->opts.busy_timeout_s > 0.0 ? store->opts.busy_timeout_s
                                            : HT_STORE_BUSY_TIMEOUT_S;
}

int ht__store_fail(struct ht_store *store, struct ht_error *err, const char *op)
{
    int end = store->wait_end, code = sqlite3_extended_errcode(store->db) & 0xff;

    store->wait_end = 0;
    if (err && !err->code)
        snprintf(err->file, sizeof err->file, "%s", store->path);
    /* A wait our busy handler ended: say why in the user's words, not SQLite's. */
    if (end == 1 && (code == SQLITE_BUSY || code == SQLITE_LOCKED))
        return ht_error_set(err, HT_EINTR, "%s: interrupted while waiting for the database "
                            "lock", op);
    if (end == 2 && (code == SQLITE_BUSY || code == SQLITE_LOCKED))
        return ht_error_set(err, HT_EDB, "%s: the database is locked: another process held "
                            "its lock for more than %.0f s (another hetune, or a program with "
                            "a write transaction open); try again once it is done", op,
                            busy_limit_s(store));
    /* A damaged file says so in the words of the integrity check, whichever page the damage
     * hit (the schema's pages too, not only an evaluation's). */
    if (code == SQLITE_CORRUPT)
        return ht_error_set(err, HT_EDB, "%s: the results database is damaged (%s); move it "
                            "aside and start a new one, or restore a copy", op,
                            sqlite3_errmsg(store->db));
    return ht_error_set(err, HT_EDB, "%s: %s", op, sqlite3_errmsg(store->db));
}

/* SQLite's busy handler: called while another connection holds the lock we need (count is
 * 0 on the first call of a wait). Sleeps BUSY_STEP_MS and asks for another try (1), or
 * ends the wait (0: the operation fails with SQLITE_BUSY) when the stop flag was raised or
 * the wait reached its limit, recording which in wait_end for ht__store_fail. A wait past
 * HT_STORE_WAIT_NOTICE_S is said once, so that a process that seems stuck says why. */
static int on_busy(void *user, int count)
{
    struct ht_store *s = user;
    double now = ht__now();

    if (count == 0) {
        s->wait_t0 = now;
        s->wait_told = 0;
        s->wait_end = 0;
    }
    if (s->opts.stop && *s->opts.stop) {
        s->wait_end = 1;
        return 0;
    }
    if (now - s->wait_t0 >= busy_limit_s(s)) {
        s->wait_end = 2;
        return 0;
    }
    if (!s->wait_told && now - s->wait_t0 >= HT_STORE_WAIT_NOTICE_S && s->opts.on_wait) {
        s->wait_told = 1;
        s->opts.on_wait(s->path, now - s->wait_t0, s->opts.user);
    }
    sqlite3_sleep(BUSY_STEP_MS);
    return 1;
}

int ht__store_exec(struct ht_store *store, const char *sql, const char *op,
                   struct ht_error *err)
{
    /* A write that takes a transaction of its own (a lease, a split, a migration) first
     * commits the evaluations of an open group (ht_store_batch): BEGIN cannot nest. */
    if (store->batch_open && !strncmp(sql, "BEGIN", 5)) {
        int rc = ht__store_batch_commit(store, op, err);
        if (rc != HT_OK)
            return rc;
    }
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
    /* A copy of the bytes rather than snprintf's "%s", which reads its format again for
     * every text of every row: a walk of the evaluations reads six of them a row. */
    const unsigned char *t = sqlite3_column_text(st, i);
    size_t n = t ? (size_t)sqlite3_column_bytes(st, i) : 0;

    if (size == 0)
        return;
    if (n >= size)
        n = size - 1;
    if (n)
        memcpy(buf, t, n);
    buf[n] = '\0';
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
    int tries = 0;

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
        /* The same wait as any other for the lock: a stop flag, a limit, a notice. */
        if ((step != SQLITE_BUSY && step != SQLITE_LOCKED) || !on_busy(store, tries++)) {
            rc = ht__store_fail(store, err, op);
            sqlite3_finalize(st);
            return rc;
        }
        sqlite3_finalize(st);
    }
}

int ht__store_kept(struct ht_store *store, int slot, const char *sql, sqlite3_stmt **st,
                   const char *op, struct ht_error *err)
{
    if (!store->kept[slot]) {
        int rc = ht__store_prepare(store, sql, &store->kept[slot], op, err);
        if (rc != HT_OK)
            return rc;
    }
    sqlite3_reset(store->kept[slot]);
    sqlite3_clear_bindings(store->kept[slot]);
    *st = store->kept[slot];
    return HT_OK;
}

int ht__store_batch_commit(struct ht_store *store, const char *op, struct ht_error *err)
{
    if (!store->batch_open)
        return HT_OK;
    if (sqlite3_exec(store->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return ht__store_fail(store, err, op);
    store->batch_open = 0;
    store->pending = 0;
    return HT_OK;
}

int ht_store_batch(struct ht_store *store, unsigned n, struct ht_error *err)
{
    int rc;

    if (!store)
        return ht_error_set(err, HT_EINVAL, "ht_store_batch: store is NULL");
    rc = n > 1 ? HT_OK : ht__store_batch_commit(store, "cannot commit the evaluations", err);
    if (rc == HT_OK)
        store->batch = n;
    return rc;
}

int ht_store_set_durable(struct ht_store *store, int durable, struct ht_error *err)
{
    if (!store)
        return ht_error_set(err, HT_EINVAL, "ht_store_set_durable: store is NULL");
    return ht__store_exec(store, durable ? "PRAGMA synchronous = FULL"
                                         : "PRAGMA synchronous = NORMAL",
                          "cannot set synchronous", err);
}

void ht_store_opts_init(struct ht_store_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
}

/* The folder of path into dir (size bytes): "." for a bare name. */
static void dir_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');

    if (!slash)
        snprintf(dir, size, ".");
    else if (slash == path)
        snprintf(dir, size, "/");
    else
        snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

/* 1 when name+suffix exists and this process may write it. */
static int writable_beside(const char *path, const char *suffix)
{
    char p[4096];

    snprintf(p, sizeof p, "%s%s", path, suffix);
    return access(p, W_OK) == 0;
}

/* 1 for an errno of access() that means "not allowed" (any other, a missing folder say,
 * is left for SQLite to say). */
static int denied(int e)
{
    return e == EACCES || e == EROFS || e == EPERM;
}

/* Refuses, before SQLite changes anything, to open for writing a file or a folder this
 * process may not write: SQLite would open the file read-only without a word and fail
 * later with "attempt to write a readonly database", or fail to create the WAL beside it
 * with "unable to open database file". */
static int check_writable(const char *path, struct ht_error *err)
{
    char dir[4096];
    int e;

    if (strcmp(path, ":memory:") == 0 || strncmp(path, "file:", 5) == 0)
        return HT_OK;
    dir_of(path, dir, sizeof dir);
    if (access(path, F_OK) == 0) {
        if (access(path, W_OK) != 0 && denied(errno)) {
            e = errno;
            snprintf(err->file, sizeof err->file, "%s", path);
            return ht_error_set(err, HT_EDB, "cannot write the results database: %s ("
                                "report and export can still read it)", strerror(e));
        }
        /* WAL keeps two files beside the database, created by the first process that
         * opens it: the folder must take them, unless they are there and writable. */
        e = access(dir, W_OK) != 0 ? errno : 0;
        if (denied(e) && !(writable_beside(path, "-wal") && writable_beside(path, "-shm"))) {
            snprintf(err->file, sizeof err->file, "%s", path);
            return ht_error_set(err, HT_EDB, "cannot write the results database: its folder "
                                "%s may not be written (%s), and SQLite keeps its journal "
                                "(%s-wal, -shm) there (report and export can still read "
                                "it)", dir, strerror(e), path);
        }
    } else if (errno == ENOENT && access(dir, W_OK) != 0 && denied(errno)) {
        e = errno;
        snprintf(err->file, sizeof err->file, "%s", path);
        return ht_error_set(err, HT_EDB, "cannot create the results database: its folder %s "
                            "may not be written (%s)", dir, strerror(e));
    }
    return HT_OK;
}

/* Writes "file:<path>?immutable=1" into uri (size bytes), path percent-encoded where a URI
 * would read it otherwise. HT_EINVAL when it does not fit. */
static int immutable_uri(const char *path, char *uri, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;

    n += (size_t)snprintf(uri, size, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p && n + 4 < size; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p < 0x21 || *p >= 0x7f) {
            uri[n++] = '%';
            uri[n++] = hex[*p >> 4];
            uri[n++] = hex[*p & 15];
        } else {
            uri[n++] = (char)*p;
        }
    }
    uri[n] = '\0';
    if (n + sizeof "?immutable=1" > size)
        return HT_EINVAL;
    memcpy(uri + n, "?immutable=1", sizeof "?immutable=1");
    return HT_OK;
}

/* Opens s->db on path (or the URI) with flags, with our busy handler. */
static int open_db(struct ht_store *s, const char *name, int flags, struct ht_error *err)
{
    sqlite3_close(s->db);
    s->db = NULL;
    if (sqlite3_open_v2(name, &s->db, flags, NULL) != SQLITE_OK) {
        if (!s->db)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        return ht__store_fail(s, err, "cannot open the results database");
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_handler(s->db, on_busy, s);
    return ht__store_exec(s, "PRAGMA foreign_keys = ON", "cannot enable foreign keys", err);
}

/* Opens path read-only and reads its owner and schema version. Where the folder may not
 * be written and SQLite cannot create the -shm a WAL reader needs, opens it immutable
 * instead and says so. */
static int open_readonly(struct ht_store *s, const char *path, int *version,
                         struct ht_error *err)
{
    char dir[4096], uri[4200];
    struct ht_error first;
    int rc;

    if (access(path, R_OK) != 0) {
        int e = errno;
        snprintf(err->file, sizeof err->file, "%s", path);
        return ht_error_set(err, HT_EDB, "cannot read the results database: %s",
                            strerror(e));
    }
    ht_error_clear(&first);
    rc = open_db(s, path, SQLITE_OPEN_READONLY, &first);
    if (rc == HT_OK)
        rc = ht__store_check(s, version, &first);
    if (rc == HT_OK)
        return HT_OK;
    dir_of(path, dir, sizeof dir);
    /* SQLite's code is gone by now (the check rolled back), and it says the same thing in
     * several ways (CANTOPEN; READONLY_CANTINIT, _CANTLOCK, _DIRECTORY: "attempt to write
     * a readonly database"): what matters is whether the folder could take the -shm. */
    if (access(dir, W_OK) == 0) {
        *err = first;
        return rc;
    }
    /* No other process can be writing it in WAL mode: a writer would need this folder
     * for its -wal. (A WAL left by a writer that was killed is not read: its last
     * commits are missing from what this reads; the note says so.) */
    if (immutable_uri(path, uri, sizeof uri) != HT_OK) {
        *err = first;
        return rc;
    }
    rc = open_db(s, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, err);
    if (rc == HT_OK)
        rc = ht__store_check(s, version, err);
    if (rc != HT_OK) { /* not the -shm, then: the first error says what it is */
        *err = first;
        return rc;
    }
    if (s->opts.on_note) {
        char note[1024], wal[4096];
        struct stat st;
        snprintf(wal, sizeof wal, "%s-wal", path);
        snprintf(note, sizeof note, "its folder %.600s may not be written, so SQLite cannot "
                 "keep the shared-memory file (-shm) a reader needs there: read as an "
                 "unchanging file (immutable)%s", dir,
                 stat(wal, &st) == 0 && st.st_size > 0
                     ? "; the commits still in its -wal file are not read" : "");
        s->opts.on_note(path, note, s->opts.user);
    }
    return rc;
}

int ht_store_open(const char *path, struct ht_store **out, struct ht_error *err)
{
    if (!path || !out)
        return ht_error_set(err, HT_EINVAL, "ht_store_open: %s is NULL", !path ? "path" : "out");
    return ht_store_open_opts(path, NULL, out, err);
}

int ht_store_open_opts(const char *path, const struct ht_store_opts *o, struct ht_store **out,
                       struct ht_error *err)
{
    struct ht_error local, probe;
    struct ht_store *s = NULL;
    int version = 0, rc;

    ht_error_clear(&probe);
    if (!err) {
        ht_error_clear(&local);
        err = &local;
    }
    if (!path || !out)
        return ht_error_set(err, HT_EINVAL, "ht_store_open_opts: %s is NULL",
                            !path ? "path" : "out");
    *out = NULL;
    /* SQLite takes "" for a private temporary database, deleted at close: every result
     * would be lost, and a script with an unset $DB would measure forever. (":memory:" is
     * asked for by name, and documented.) */
    if (!path[0])
        return ht_error_set(err, HT_EINVAL, "an empty database path: SQLite would keep the "
                            "results in a temporary database and delete them at exit (give "
                            "a file)");
    rc = check_magic(path, err);
    if (rc == HT_OK && o && o->readonly && access(path, F_OK) != 0) {
        snprintf(err->file, sizeof err->file, "%s", path);
        rc = ht_error_set(err, HT_EDB, "cannot read the results database: %s",
                          strerror(errno));
    }
    if (rc == HT_OK && !(o && o->readonly))
        rc = check_writable(path, err);
    if (rc != HT_OK)
        return rc;
    s = calloc(1, sizeof *s);
    if (!s || !(s->path = ht__strdup(path))) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    if (o)
        s->opts = *o;
    /* A command that only reads opens read-write where it may (as before: an older schema
     * is migrated, and the last connection to close tidies the -wal and -shm away, which
     * a read-only one never does), and read-only only where it must. */
    s->readonly = s->opts.readonly && check_writable(path, &probe) != HT_OK;
    if (s->readonly) {
        rc = open_readonly(s, path, &version, err);
        if (rc == HT_OK && version != HT_STORE_SCHEMA_VERSION) {
            snprintf(err->file, sizeof err->file, "%s", path);
            rc = ht_error_set(err, HT_EDB, "%s (schema %d, this hetune's is %d): a command "
                              "that writes it (tune) brings it up to date first",
                              version ? "written by an older hetune" : "holds no results",
                              version, HT_STORE_SCHEMA_VERSION);
        }
        if (rc != HT_OK)
            goto cleanup;
        *out = s;
        s = NULL;
        goto cleanup;
    }
    rc = open_db(s, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, err);
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
    /* The evaluations of an open group are kept, as each would have been alone. */
    ht__store_batch_commit(store, "cannot commit the evaluations", NULL);
    for (int k = 0; k < HT__KEPT_N; k++)
        sqlite3_finalize(store->kept[k]);
    sqlite3_close(store->db);
    free(store->path);
    free(store);
}
