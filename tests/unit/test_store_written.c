/* Unit tests of the table of written buffers inferred by a probe (src/store/written.c),
 * without OpenCL: a round trip of every field, a newer probe replaces the row, rows are
 * per (problem, buffer, dimension), HT_ENOTFOUND when none, malformed rows refused, and the
 * rows go with their problem. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune/store.h"
#include "store/store-internal.h"
#include "store-test.h"

/* A new database in a temporary file with one kernel and two problems (ids 1 and 2). */
static struct ht_store *open_with_problems(char *file, size_t size)
{
    const char *base = getenv("TMPDIR");
    struct ht_store *s;
    int fd;

    snprintf(file, size, "%s/test_store_written.XXXXXX", base && base[0] ? base : "/tmp");
    fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);
    s = open_ok(file);
    assert_int_equal(sqlite3_exec(ht__store_db(s),
                                  "INSERT INTO kernels (id, hash, kernel_name, options, "
                                  "spec_name, spec_path, kernel_path) VALUES (1, "
                                  "'0123456789abcdef', 'conv', '', 'conv', 's.json', 'k.cl');"
                                  "INSERT INTO problems (id, kernel_id, sizes, params) VALUES "
                                  "(1, 1, 'N=256', 'TS'), (2, 1, 'N=512', 'TS');",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    return s;
}

static void make(struct ht_stored_written *w, int64_t problem, const char *arg, unsigned dim)
{
    memset(w, 0, sizeof *w);
    w->problem_id = problem;
    snprintf(w->arg, sizeof w->arg, "%s", arg);
    w->dim = dim;
    snprintf(w->layout, sizeof w->layout, "fedcba9876543210");
    w->axis = 1;
    w->per_item = 4;
    w->halo_lo = 2;
    w->halo_hi = 3;
    snprintf(w->config, sizeof w->config, "TS=16");
}

static void test_round_trip(void **state)
{
    char file[512];
    struct ht_store *s = open_with_problems(file, sizeof file);
    struct ht_stored_written in, out;
    struct ht_error err;
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(ht_store_get_written(s, 1, "c", 0, &out, &err), HT_ENOTFOUND);
    assert_int_equal(err.code, 0);
    make(&in, 1, "c", 0);
    check_rc(ht_store_put_written(s, &in, &err), &err, "put");
    check_rc(ht_store_get_written(s, 1, "c", 0, &out, &err), &err, "get");
    assert_int_equal(out.problem_id, 1);
    assert_string_equal(out.arg, "c");
    assert_int_equal(out.dim, 0);
    assert_string_equal(out.layout, "fedcba9876543210");
    assert_int_equal(out.axis, 1);
    assert_int_equal(out.per_item, 4);
    assert_int_equal(out.halo_lo, 2);
    assert_int_equal(out.halo_hi, 3);
    assert_int_equal(out.device_id, 0);
    assert_string_equal(out.config, "TS=16");
    assert_non_null(strstr(out.created_at, "Z"));

    /* Another dimension, buffer or problem is another row. */
    assert_int_equal(ht_store_get_written(s, 1, "c", 1, &out, &err), HT_ENOTFOUND);
    assert_int_equal(ht_store_get_written(s, 1, "d", 0, &out, &err), HT_ENOTFOUND);
    assert_int_equal(ht_store_get_written(s, 2, "c", 0, &out, &err), HT_ENOTFOUND);
    make(&in, 1, "c", 1);
    in.axis = 0;
    check_rc(ht_store_put_written(s, &in, &err), &err, "put dim 1");
    make(&in, 2, "c", 0);
    in.per_item = 1;
    check_rc(ht_store_put_written(s, &in, &err), &err, "put problem 2");
    assert_int_equal(count_rows(s, "SELECT count(*) FROM written_maps"), 3);

    /* A newer probe replaces the row. */
    make(&in, 1, "c", 0);
    in.axis = 2;
    in.halo_lo = in.halo_hi = 0;
    check_rc(ht_store_put_written(s, &in, &err), &err, "replace");
    assert_int_equal(count_rows(s, "SELECT count(*) FROM written_maps"), 3);
    check_rc(ht_store_get_written(s, 1, "c", 0, &out, &err), &err, "get replaced");
    assert_int_equal(out.axis, 2);
    assert_int_equal(out.halo_lo + out.halo_hi, 0);
    check_rc(ht_store_get_written(s, 1, "c", 1, &out, &err), &err, "get dim 1");
    assert_int_equal(out.axis, 0);

    /* The rows go with their problem. */
    assert_int_equal(sqlite3_exec(ht__store_db(s), "DELETE FROM problems WHERE id = 1", NULL,
                                  NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM written_maps"), 1);
    ht_store_close(s);
    unlink(file);
}

static void test_refuses_malformed(void **state)
{
    char file[512];
    struct ht_store *s = open_with_problems(file, sizeof file);
    struct ht_stored_written w;
    struct ht_error err;
    (void)state;

    make(&w, 1, "", 0);
    assert_int_equal(ht_store_put_written(s, &w, NULL), HT_EINVAL);
    make(&w, 1, "c", 3);
    assert_int_equal(ht_store_put_written(s, &w, NULL), HT_EINVAL);
    make(&w, 1, "c", 0);
    w.axis = 3;
    assert_int_equal(ht_store_put_written(s, &w, NULL), HT_EINVAL);
    make(&w, 1, "c", 0);
    w.per_item = 0;
    assert_int_equal(ht_store_put_written(s, &w, NULL), HT_EINVAL);
    make(&w, 1, "c", 0);
    w.halo_hi = UINT64_MAX;
    assert_int_equal(ht_store_put_written(s, &w, NULL), HT_EINVAL);
    assert_int_equal(ht_store_put_written(s, NULL, NULL), HT_EINVAL);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM written_maps"), 0);

    /* A problem that does not exist: the foreign key refuses it, as HT_EDB. */
    make(&w, 99, "c", 0);
    ht_error_clear(&err);
    assert_int_equal(ht_store_put_written(s, &w, &err), HT_EDB);
    assert_non_null(strstr(err.text, "cannot store an inferred written buffer"));
    ht_store_close(s);
    unlink(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refuses_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
