/* The problems a kernel was stored at (store.h): its sizes, for predictions at new ones,
 * and every problem with its kernel's names, for the report and the exports. */
#include <string.h>

#include "store-internal.h"

/* Column col of the row whole, "" for NULL; valid until the next step. */
static const char *whole(sqlite3_stmt *st, int col)
{
    const char *text = (const char *)sqlite3_column_text(st, col);
    return text ? text : "";
}

int ht_store_list_problems(struct ht_store *store, int64_t kernel_id, ht_store_problem_cb cb,
                           void *user, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc, r;

    if (!store || !cb)
        return ht_error_set(err, HT_EINVAL, "ht_store_list_problems: %s is NULL",
                            !store ? "store" : "cb");

    /* One text with the filter and one without: "?1 = 0 OR p.kernel_id = ?1" is answered
     * by reading the whole table (no index serves an OR). A kernel's problems are found
     * through the index of (kernel_id, sizes, params), which holds their ids, then sorted:
     * as fast as the scan when the kernel has half the table, far faster when it has few
     * (reading them by "p.id IN (...)" instead took 1.4 times the scan's time at half). */
#define PROBLEM_SELECT                                                                     \
    "SELECT p.id, p.kernel_id, p.sizes, p.params, k.kernel_name, k.spec_name FROM problems " \
    "p JOIN kernels k ON k.id = p.kernel_id WHERE "
    rc = ht__store_prepare(store,
                           kernel_id ? PROBLEM_SELECT "p.kernel_id = ?1 ORDER BY p.id"
                                     : PROBLEM_SELECT "?1 = 0 ORDER BY p.id",
                           &st, "cannot read problems", err);
#undef PROBLEM_SELECT
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, kernel_id);
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct ht_stored_problem p;
        memset(&p, 0, sizeof p);
        p.id = sqlite3_column_int64(st, 0);
        p.kernel_id = sqlite3_column_int64(st, 1);
        ht__store_column_text(st, 2, p.sizes, sizeof p.sizes);
        ht__store_column_text(st, 3, p.params, sizeof p.params);
        ht__store_column_text(st, 4, p.kernel_name, sizeof p.kernel_name);
        ht__store_column_text(st, 5, p.spec_name, sizeof p.spec_name);
        /* Valid until the next step: the callback's. Every column is text and read as
         * text only, so no conversion invalidates another's pointer. */
        p.spec_whole = whole(st, 5);
        p.sizes_whole = whole(st, 2);
        p.kernel_whole = whole(st, 4);
        p.params_whole = whole(st, 3);
        rc = cb(&p, user);
        if (rc != 0)
            goto cleanup;
    }
    if (r != SQLITE_DONE)
        rc = ht__store_fail(store, err, "cannot read problems");
cleanup:
    sqlite3_finalize(st);
    return rc;
}
