/* hetune — fuzz target: the results database opened from hostile bytes. The input is
 * written as the database file (no -wal or -shm beside it), opened with ht_store_open (its
 * checks: SQLite's header, the application id, the schema version, quick_check, the
 * migrations), and read as `hetune report` and a resumed tune read it: the problems, the
 * evaluations with their runs, the counts, and the whole report written into a folder
 * (no pictures). The bytes of a database are best mutated from a real one: the corpus holds
 * small databases hetune wrote. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ht_store *store = NULL;
    struct ht_error err;
    char extra[4096 + 16], dir[4096 + 16];
    size_t n = 0;
    uint64_t count;

    const char *path = fuzz_write_file("results.db", data, size);
    snprintf(extra, sizeof extra, "%s-wal", path);
    unlink(extra);
    snprintf(extra, sizeof extra, "%s-shm", path);
    unlink(extra);
    snprintf(dir, sizeof dir, "%s/report", fuzz_tmpdir());

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
