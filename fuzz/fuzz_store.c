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
 * after a bounded number of steps.
 *
 * With HETUNE_FUZZ_SEEDS set in the environment (CTest's fuzz/store_seed/<seed>, one per seed
 * fuzz/seed-store.sh writes), an input is a seed that must still reach the readers: its SQL
 * runs without an error, the database opens, it holds a problem with its kernel's names and
 * an evaluation, and the report is written; else the target says why and exits 1. A table
 * grown by a migration, or a struct of store.h the callbacks no longer read right, then
 * fails the ordinary build's tests instead of leaving the seeds to test nothing. */
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
    /* Every text field, the kernel's names (added to the struct last) included; each
     * whole text begins with its cut one. */
    size_t *n = user;
    if (!memchr(p->sizes, '\0', sizeof p->sizes) || !memchr(p->params, '\0', sizeof p->params) ||
        !memchr(p->kernel_name, '\0', sizeof p->kernel_name) ||
        !memchr(p->spec_name, '\0', sizeof p->spec_name) || !p->spec_whole ||
        strncmp(p->spec_whole, p->spec_name, strlen(p->spec_name)) || !p->sizes_whole ||
        strncmp(p->sizes_whole, p->sizes, strlen(p->sizes)) || !p->kernel_whole ||
        strncmp(p->kernel_whole, p->kernel_name, strlen(p->kernel_name)) || !p->params_whole ||
        strncmp(p->params_whole, p->params, strlen(p->params)))
        abort();
    if (p->kernel_name[0])
        ++*n;
    return 0;
}

/* A seed that no longer reaches the readers, in HETUNE_FUZZ_SEEDS mode. */
static int seeds_mode(void)
{
    const char *s = getenv("HETUNE_FUZZ_SEEDS");
    return s && *s;
}

static void seed_failed(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz-store: a seed %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
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
        char *msg = NULL;
        if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK && seeds_mode())
            seed_failed("no longer runs as SQL", msg);
        sqlite3_free(msg);
    } else if (seeds_mode()) {
        seed_failed("could not be run as SQL", NULL);
    }
    sqlite3_close(db);
    free(sql);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ht_store *store = NULL;
    struct ht_error err;
    char extra[4096 + 16], dir[4096 + 16];
    size_t problems = 0, evals = 0;
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
        if (seeds_mode())
            seed_failed("no longer opens", err.text);
        return 0;
    }
    memset(&err, 0, sizeof err);
    (void)ht_store_list_problems(store, 0, on_problem, &problems, &err);
    memset(&err, 0, sizeof err);
    (void)ht_store_list_evals(store, 0, 0, on_eval, &evals, &err);
    if (seeds_mode() && (!problems || !evals))
        seed_failed("holds no problem with its kernel's name or no evaluation", NULL);
    memset(&err, 0, sizeof err);
    (void)ht_store_count_evals(store, 0, 0, &count, &err);
    {
        /* The splits of the seeds' problem 1 over its two devices. */
        const int64_t ids[2] = {1, 2};
        struct ht_split_errors se;
        memset(&err, 0, sizeof err);
        (void)ht_store_split_errors(store, 1, ids, 2, &se, &err);
    }

    struct ht_report_opts opts;
    struct ht_report_result res;
    ht_report_opts_init(&opts);
    opts.gnuplot = ""; /* no pictures: no process started per input */
    memset(&err, 0, sizeof err);
    if (ht_report_write(store, dir, &opts, &res, &err) != 0 && seeds_mode())
        seed_failed("is not reported", err.text);
    ht_report_result_destroy(&res);
    ht_store_close(store);
    return 0;
}
