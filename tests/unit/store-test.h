/* Helpers the results-database unit tests share (test_store_bandwidth.c,
 * test_store_concurrent.c): included after cmocka.h, hetune/store.h and
 * store/store-internal.h. */
#ifndef HETUNE_TESTS_STORE_TEST_H
#define HETUNE_TESTS_STORE_TEST_H

static inline void check_rc(int rc, const struct ht_error *err, const char *what)
{
    if (rc != HT_OK)
        fail_msg("%s: %s: %s", what, ht_err_name(rc), err->text);
}

static inline struct ht_store *open_ok(const char *path)
{
    struct ht_store *s = NULL;
    struct ht_error err;
    ht_error_clear(&err);
    check_rc(ht_store_open(path, &s, &err), &err, path);
    return s;
}

static inline int64_t count_rows(struct ht_store *s, const char *sql)
{
    int64_t n = -1;
    struct ht_error err;
    ht_error_clear(&err);
    check_rc(ht__store_query_int(s, sql, &n, "count", &err), &err, sql);
    return n;
}

#endif
