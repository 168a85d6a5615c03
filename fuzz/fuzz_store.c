/* hetune — fuzz target: the results database opened from hostile bytes. The input is
 * written as the database file (no -wal or -shm beside it), opened with ht_store_open (its
 * checks: SQLite's header, the application id, the schema version, quick_check, the
 * migrations), and read as `hetune report` and a resumed tune read it: the problems, the
 * evaluations with their runs, the counts, and the whole report written into a folder
 * (no pictures).
 *
 * An input that starts as an SQLite file does ("SQLite format 3") is the file's bytes: the
 * corpus holds small databases hetune wrote, whose bytes the fuzzer mutates. Any other input
 * is SQL run first on a new database of the current schema (as ht_store_open makes it), so
 * that well-formed files with hostile values reach the readers too (NULLs, huge or negative
 * numbers, text where a number belongs, a schema rewritten with writable_schema), as
 * SQLite's own dbsqlfuzz does. That SQL may not attach files (nor VACUUM INTO one) and stops
 * after a bounded number of steps. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "hetune/report.h"
#include "hetune/store.h"

static int on_eval(const struct ht_stored_eval *ev, void *user)
{
    /* Reading every field, so that a value never set is seen by the sanitizers. */
    size_t *n = user;
    if (ev->nruns > HT_STORE_MAX_RUNS)
        abort();
    for (unsigned i = 0; i < ev->nruns; i++)
        if (ev->runs[i] != ev->runs[i] && ev->seconds == 0.0)
            ++*n;
    ++*n;
    return 0;
}

static int on_problem(const struct ht_stored_problem *p, void *user)
{
    size_t *n = user;
    if (!memchr(p->sizes, '\0', sizeof p->sizes) || !memchr(p->params, '\0', sizeof p->params))
        abort();
    ++*n;
    return 0;
}

/* The bytes of a new database as ht_store_open makes it; made once. */
static uint8_t *template_db;
static size_t template_len;

static void make_template(void)
{
    struct ht_store *store = NULL;
    struct ht_error err;
    FILE *f;
    long n;
    char path[4096 + 16];

    snprintf(path, sizeof path, "%s/template.db", fuzz_tmpdir());
    memset(&err, 0, sizeof err);
    if (ht_store_open(path, &store, &err) != 0)
        abort();
    ht_store_close(store);
    if (!(f = fopen(path, "rb")) || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 ||
        fseek(f, 0, SEEK_SET) || !(template_db = malloc((size_t)n)) ||
        fread(template_db, 1, (size_t)n, f) != (size_t)n)
        abort();
    template_len = (size_t)n;
    fclose(f);
}

/* Stops hostile SQL that would run for long (a recursive query without end). */
static int progress(void *steps)
{
    return ++*(int *)steps > 2000;
}

/* Runs sql on the database at path; its errors are the input's business, not findings. */
static void run_sql(const char *path, const uint8_t *data, size_t size)
{
    sqlite3 *db = NULL;
    char *sql = fuzz_strndup(data, size);
    int steps = 0;

    if (sql && sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
        sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
        sqlite3_progress_handler(db, 100, progress, &steps);
        sqlite3_exec(db, sql, NULL, NULL, NULL);
    }
    sqlite3_close(db);
    free(sql);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ht_store *store = NULL;
    struct ht_error err;
    char extra[4096 + 16], dir[4096 + 16];
    size_t n = 0;
    uint64_t count;

    static const char magic[16] = "SQLite format 3";
    int raw = size >= sizeof magic && !memcmp(data, magic, sizeof magic);
    const char *path;

    if (raw) {
        path = fuzz_write_file("results.db", data, size);
    } else {
        if (!template_db)
            make_template();
        path = fuzz_write_file("results.db", template_db, template_len);
    }
    snprintf(extra, sizeof extra, "%s-wal", path);
    unlink(extra);
    snprintf(extra, sizeof extra, "%s-shm", path);
    unlink(extra);
    snprintf(dir, sizeof dir, "%s/report", fuzz_tmpdir());
    if (!raw)
        run_sql(path, data, size);

    memset(&err, 0, sizeof err);
    if (ht_store_open(path, &store, &err) != 0) {
        if (store)
            abort(); /* a failure must leave nothing to close */
        return 0;
    }
    memset(&err, 0, sizeof err);
    (void)ht_store_list_problems(store, 0, on_problem, &n, &err);
    memset(&err, 0, sizeof err);
    (void)ht_store_list_evals(store, 0, 0, on_eval, &n, &err);
    memset(&err, 0, sizeof err);
    (void)ht_store_count_evals(store, 0, 0, &count, &err);

    struct ht_report_opts opts;
    struct ht_report_result res;
    ht_report_opts_init(&opts);
    opts.gnuplot = ""; /* no pictures: no process started per input */
    memset(&err, 0, sizeof err);
    (void)ht_report_write(store, dir, &opts, &res, &err);
    ht_store_close(store);
    return 0;
}
