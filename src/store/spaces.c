/* Design space sizes: the table of migration 3 (schema.c), the paper's Tables 1 and 2. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "store-internal.h"

/* The texts the spaces.eq3 column holds, indexed by enum ht_eq3. */
static const char *const eq3_texts[] = {"product", "sum", "off"};

void ht_stored_space_init(struct ht_stored_space *sp)
{
    if (!sp)
        return;
    memset(sp, 0, sizeof *sp);
    sp->eq3 = HT_EQ3_PRODUCT;
    sp->seconds = -1;
}

void ht_stored_space_from_counts(struct ht_stored_space *sp,
                                 const struct ht_space_counts *counts)
{
    if (!sp || !counts)
        return;
    sp->unpruned = counts->unpruned;
    sp->platform = counts->platform;
    sp->pruned = counts->pruned;
    sp->seconds = counts->seconds;
    snprintf(sp->last_constraint, sizeof sp->last_constraint, "%s",
             counts->pruned == 0 ? counts->last_constraint : "");
}

static int eq3_ok(enum ht_eq3 eq3)
{
    return (int)eq3 >= 0 && (size_t)eq3 < sizeof eq3_texts / sizeof eq3_texts[0];
}

/* A count above 2^63 is no SQLite integer: it is kept as a REAL (rounded, as large counts
 * are in struct ht_space_counts; the column's INTEGER affinity keeps a REAL that is not a
 * whole number small enough to convert), and read back saturated. */
static void bind_size(sqlite3_stmt *st, int col, uint64_t v)
{
    if (v > INT64_MAX)
        sqlite3_bind_double(st, col, (double)v);
    else
        sqlite3_bind_int64(st, col, (int64_t)v);
}

static uint64_t column_size(sqlite3_stmt *st, int col)
{
    double d;

    if (sqlite3_column_type(st, col) != SQLITE_FLOAT)
        return (uint64_t)sqlite3_column_int64(st, col);
    d = sqlite3_column_double(st, col);
    return !(d > 0.0) ? 0 : d >= 0x1p64 ? UINT64_MAX : (uint64_t)d;
}

int ht_store_put_space(struct ht_store *store, const struct ht_stored_space *sp,
                       struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (!store || !sp)
        return ht_error_set(err, HT_EINVAL, "ht_store_put_space: %s is NULL",
                            !store ? "store" : "sp");
    if (!eq3_ok(sp->eq3) || !(sp->unpruned >= 0) ||
        !memchr(sp->last_constraint, '\0', sizeof sp->last_constraint) ||
        !memchr(sp->created_at, '\0', sizeof sp->created_at))
        return ht_error_set(err, HT_EINVAL, "malformed space size: eq3 or unpruned size");
    rc = ht__store_prepare(store,
                           "INSERT OR REPLACE INTO spaces (problem_id, device_id, eq3, "
                           "unpruned, platform, pruned, seconds, last_constraint, created_at) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
                           "COALESCE(?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))",
                           &st, "cannot store space size", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, sp->problem_id);
    sqlite3_bind_int64(st, 2, sp->device_id);
    sqlite3_bind_text(st, 3, eq3_texts[sp->eq3], -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 4, sp->unpruned);
    bind_size(st, 5, sp->platform);
    bind_size(st, 6, sp->pruned);
    ht__store_bind_time(st, 7, sp->seconds);
    sqlite3_bind_text(st, 8, sp->last_constraint, -1, SQLITE_STATIC);
    if (sp->created_at[0])
        sqlite3_bind_text(st, 9, sp->created_at, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 9);
    return ht__store_step_done(store, st, "cannot store space size", err);
}

/* Fills sp from a row of the SELECT below. */
static void read_row(sqlite3_stmt *st, struct ht_stored_space *sp)
{
    const char *eq3 = (const char *)sqlite3_column_text(st, 2);

    ht_stored_space_init(sp);
    sp->problem_id = sqlite3_column_int64(st, 0);
    sp->device_id = sqlite3_column_int64(st, 1);
    for (size_t i = 0; eq3 && i < sizeof eq3_texts / sizeof eq3_texts[0]; i++)
        if (!strcmp(eq3, eq3_texts[i]))
            sp->eq3 = (enum ht_eq3)i;
    sp->unpruned = sqlite3_column_double(st, 3);
    sp->platform = column_size(st, 4);
    sp->pruned = column_size(st, 5);
    sp->seconds = ht__store_column_time(st, 6);
    ht__store_column_text(st, 7, sp->last_constraint, sizeof sp->last_constraint);
    ht__store_column_text(st, 8, sp->created_at, sizeof sp->created_at);
}

#define SPACE_COLUMNS                                                                          \
    "SELECT problem_id, device_id, eq3, unpruned, platform, pruned, seconds, "                 \
    "last_constraint, created_at FROM spaces "

int ht_store_get_space(struct ht_store *store, int64_t problem_id, int64_t device_id,
                       enum ht_eq3 eq3, struct ht_stored_space *out, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc, r;

    if (!store || !out)
        return ht_error_set(err, HT_EINVAL, "ht_store_get_space: %s is NULL",
                            !store ? "store" : "out");

    if (!eq3_ok(eq3))
        return ht_error_set(err, HT_EINVAL, "eq3 out of range");
    rc = ht__store_prepare(store,
                           SPACE_COLUMNS "WHERE problem_id = ? AND device_id = ? AND eq3 = ?",
                           &st, "cannot read space size", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, problem_id);
    sqlite3_bind_int64(st, 2, device_id);
    sqlite3_bind_text(st, 3, eq3_texts[eq3], -1, SQLITE_STATIC);
    r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        read_row(st, out);
    else if (r == SQLITE_DONE)
        rc = HT_ENOTFOUND;
    else
        rc = ht__store_fail(store, err, "cannot read space size");
    sqlite3_finalize(st);
    return rc;
}

int ht_store_list_spaces(struct ht_store *store, int64_t problem_id, ht_store_space_cb cb,
                         void *user, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc, r;

    if (!store || !cb)
        return ht_error_set(err, HT_EINVAL, "ht_store_list_spaces: %s is NULL",
                            !store ? "store" : "cb");

    /* The eq3 texts in the order of enum ht_eq3, not alphabetically. */
#define SPACE_ORDER                                                                        \
    " ORDER BY problem_id, device_id, CASE eq3 WHEN 'product' THEN 0 WHEN 'sum' THEN 1 "   \
    "ELSE 2 END"
    /* With the filter and without, one text each: an OR of the two would read the whole
     * table; the primary key (problem_id, device_id, eq3) finds a problem's rows. */
    rc = ht__store_prepare(store,
                           problem_id ? SPACE_COLUMNS "WHERE problem_id = ?1" SPACE_ORDER
                                      : SPACE_COLUMNS "WHERE ?1 = 0" SPACE_ORDER,
                           &st, "cannot read space sizes", err);
#undef SPACE_ORDER
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, problem_id);
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct ht_stored_space sp;
        read_row(st, &sp);
        rc = cb(&sp, user);
        if (rc != 0)
            goto cleanup;
    }
    if (r != SQLITE_DONE)
        rc = ht__store_fail(store, err, "cannot read space sizes");
cleanup:
    sqlite3_finalize(st);
    return rc;
}
