/* Tests of the pure parts of verification (src/exec/verify.c, npy.c), without OpenCL: the
 * .npy header parser, and the comparison of a buffer with its reference element by element,
 * where the reference wrote ("written"), by sums ("sum") or not at all ("none"). The device
 * side is tests/cli/verify.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exec/exec-internal.h"
#include "exec/npy.h"

/* A .npy file's start: magic, version, header length and header (padded to 64 bytes). */
static size_t make_npy(unsigned char *buf, int version, const char *dict)
{
    size_t pre = version == 1 ? 10 : 12, len = strlen(dict), hlen = len + 1;

    while ((pre + hlen) % 64)
        hlen++;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)version;
    buf[7] = 0;
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    if (version != 1)
        buf[10] = buf[11] = 0;
    memcpy(buf + pre, dict, len);
    memset(buf + pre + len, ' ', hlen - len - 1);
    buf[pre + hlen - 1] = '\n';
    return pre + hlen;
}

static void test_npy_header(void **state)
{
    unsigned char buf[512];
    struct ht__npy h;
    struct ht_error err;
    size_t n;

    (void)state;
    n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }");
    ht_error_clear(&err);
    assert_int_equal(ht__npy_parse(buf, n, &h, &err), HT_OK);
    assert_int_equal(h.type, HT_TYPE_FLOAT);
    assert_int_equal(h.ndim, 2);
    assert_int_equal(h.dims[0], 3);
    assert_int_equal(h.dims[1], 4);
    assert_int_equal(h.count, 12);
    assert_int_equal(h.data_off, n);
    assert_int_equal(n % 64, 0);
    assert_false(h.fortran);

    /* Version 2, keys in another order, 1-D with its trailing comma, 1-byte '|u1'. */
    n = make_npy(buf, 2, "{'shape': (5,), 'fortran_order': False, 'descr': '|u1'}");
    ht_error_clear(&err);
    assert_int_equal(ht__npy_parse(buf, n, &h, &err), HT_OK);
    assert_int_equal(h.type, HT_TYPE_UCHAR);
    assert_int_equal(h.ndim, 1);
    assert_int_equal(h.count, 5);

    /* A scalar has one element; every type maps to one OpenCL type. */
    n = make_npy(buf, 1, "{'descr': '<i8', 'fortran_order': False, 'shape': (), }");
    ht_error_clear(&err);
    assert_int_equal(ht__npy_parse(buf, n, &h, &err), HT_OK);
    assert_int_equal(h.type, HT_TYPE_LONG);
    assert_int_equal(h.ndim, 0);
    assert_int_equal(h.count, 1);
    static const struct {
        const char *descr;
        enum ht_type t;
    } types[] = {{"|i1", HT_TYPE_CHAR},  {"<u2", HT_TYPE_USHORT}, {"<i2", HT_TYPE_SHORT},
                 {"<i4", HT_TYPE_INT},   {"<u4", HT_TYPE_UINT},   {"<u8", HT_TYPE_ULONG},
                 {"<f8", HT_TYPE_DOUBLE}, {"=f4", HT_TYPE_FLOAT}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        char dict[128], descr[8];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (2,), }",
                 types[i].descr);
        n = make_npy(buf, 1, dict);
        ht_error_clear(&err);
        assert_int_equal(ht__npy_parse(buf, n, &h, &err), HT_OK);
        assert_int_equal(h.type, types[i].t);
        ht__npy_descr(types[i].t, descr, sizeof descr);
        if (types[i].descr[0] != '=')
            assert_string_equal(descr, types[i].descr);
    }

    /* Fortran order is reported, and matters only with two axes longer than 1. */
    n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }");
    ht_error_clear(&err);
    assert_int_equal(ht__npy_parse(buf, n, &h, &err), HT_OK);
    assert_true(h.fortran);
    assert_true(ht__npy_fortran_matters(&h));
    n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 4), }");
    ht_error_clear(&err);
    assert_int_equal(ht__npy_parse(buf, n, &h, &err), HT_OK);
    assert_false(ht__npy_fortran_matters(&h));
}

static void expect_refused(const char *dict, int version, const char *words)
{
    unsigned char buf[512];
    struct ht__npy h;
    struct ht_error err;
    size_t n = make_npy(buf, version, dict);

    ht_error_clear(&err);
    assert_int_equal(ht__npy_parse(buf, n, &h, &err), HT_EPARSE);
    if (!strstr(err.text, words))
        fail_msg("'%s': message '%s' lacks '%s'", dict, err.text, words);
}

static void test_npy_refused(void **state)
{
    unsigned char buf[512];
    struct ht__npy h;
    struct ht_error err;

    (void)state;
    expect_refused("{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }", 1,
                   "is big-endian");
    expect_refused("{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", 1,
                   "no OpenCL type");
    expect_refused("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", 1,
                   "no OpenCL type");
    expect_refused("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }", 1,
                   "structured dtype");
    expect_refused("{'descr': '<f4', 'shape': (3,), }", 1, "without 'fortran_order'");
    expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3, x), }", 1,
                   "not a tuple of integers");
    expect_refused("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,), }", 1,
                   "neither True nor False");
    expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}", 1,
                   "unknown key 'x'");
    expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': "
                   "(99999999999, 99999999999, 99999999999), }", 1, "overflows");
    expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 4,
                   "version 4.0");
    ht_error_clear(&err);
    assert_int_equal(ht__npy_parse("PK\x03\x04 not numpy", 14, &h, &err), HT_EPARSE);
    assert_non_null(strstr(err.text, "is not a .npy file"));
    /* A header longer than the bytes there. */
    make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }");
    ht_error_clear(&err);
    assert_int_equal(ht__npy_parse(buf, 40, &h, &err), HT_EPARSE);
    assert_non_null(strstr(err.text, "truncated"));
}

static struct ht__hostbuf hb(void *data, size_t count)
{
    struct ht__hostbuf b;
    memset(&b, 0, sizeof b);
    b.data = data;
    b.count = count;
    b.naxes = 1;
    b.dims[0] = count;
    return b;
}

static void test_compare_written(void **state)
{
    struct ht_arg arg;
    struct ht__cmp c;
    float got[6] = {NAN, 1.0f, 2.0f, 7.0f, NAN, 5.0f};
    float exp[6] = {NAN, 1.0f, 2.0f, NAN, NAN, 5.0f};
    int gi[4] = {1, 2, 3, 4}, ei[4];
    struct ht__hostbuf g = hb(got, 6), e = hb(exp, 6);

    (void)state;
    memset(&arg, 0, sizeof arg);
    arg.name = "out";
    arg.type = HT_TYPE_FLOAT;
    arg.is_buffer = 1;
    arg.access = HT_ACCESS_WRITE;
    /* Every element: the NaN the reference and the kernel left (poison) never matches. */
    memset(&c, 0, sizeof c);
    ht__compare(&arg, &g, &e, 1e-5, 1e-6, &c);
    assert_int_equal(c.compared, 6);
    assert_int_equal(c.mismatches, 3);
    /* Written: the 3 elements the reference wrote, which match. */
    arg.check = HT_CHECK_WRITTEN;
    memset(&c, 0, sizeof c);
    ht__compare(&arg, &g, &e, 1e-5, 1e-6, &c);
    assert_int_equal(c.compared, 3);
    assert_int_equal(c.mismatches, 0);
    /* An element the reference wrote and the kernel did not is still caught. */
    got[1] = NAN;
    memset(&c, 0, sizeof c);
    ht__compare(&arg, &g, &e, 1e-5, 1e-6, &c);
    assert_int_equal(c.mismatches, 1);
    assert_string_equal(c.first, "out[1]: got nan, expected 1");
    /* None: nothing. */
    arg.check = HT_CHECK_NONE;
    memset(&c, 0, sizeof c);
    ht__compare(&arg, &g, &e, 1e-5, 1e-6, &c);
    assert_int_equal(c.compared, 0);
    assert_int_equal(c.mismatches, 0);

    /* Integers: the poison is the 0xA5 byte pattern. */
    arg.type = HT_TYPE_INT;
    arg.check = HT_CHECK_WRITTEN;
    memset(ei, 0xA5, sizeof ei);
    ei[0] = 1;
    ei[2] = 3;
    g = hb(gi, 4);
    e = hb(ei, 4);
    memset(&c, 0, sizeof c);
    ht__compare(&arg, &g, &e, 0, 0, &c);
    assert_int_equal(c.compared, 2);
    assert_int_equal(c.mismatches, 0);
    gi[2] = 9;
    memset(&c, 0, sizeof c);
    ht__compare(&arg, &g, &e, 0, 0, &c);
    assert_int_equal(c.mismatches, 1);
    assert_string_equal(c.first, "out[2]: got 9, expected 3");
}

static void test_compare_sum(void **state)
{
    struct ht_arg arg;
    struct ht__cmp c;
    float partial[4] = {1.5f, 2.5f, -1.0f, 3.0f}; /* 6 */
    float total[3] = {6.0f, NAN, NAN};              /* one total, the rest unwritten */
    float many[8] = {1, 1, 1, 1, 0.5f, 0.5f, 0.5f, 0.5f};
    int64_t lp[3] = {5, -2, 4}, lt[2] = {7, 0};
    struct ht__hostbuf g = hb(partial, 4), e = hb(total, 3);

    (void)state;
    memset(&arg, 0, sizeof arg);
    arg.name = "partial";
    arg.type = HT_TYPE_FLOAT;
    arg.is_buffer = 1;
    arg.access = HT_ACCESS_WRITE;
    arg.check = HT_CHECK_SUM;
    memset(&c, 0, sizeof c);
    ht__compare(&arg, &g, &e, 1e-5, 1e-6, &c);
    assert_int_equal(c.compared, 1);
    assert_int_equal(c.mismatches, 0);
    /* Against a reference of another length (its own configuration's partial sums). */
    e = hb(many, 8);
    memset(&c, 0, sizeof c);
    ht__compare(&arg, &g, &e, 1e-5, 1e-6, &c);
    assert_int_equal(c.mismatches, 0);
    /* A partial sum off, or one left unwritten (poison), fails. */
    partial[2] = -0.5f;
    memset(&c, 0, sizeof c);
    ht__compare(&arg, &g, &e, 1e-5, 1e-6, &c);
    assert_int_equal(c.mismatches, 1);
    assert_non_null(strstr(c.first, "sum(partial) of 4 elements: got 6.5, expected 6"));
    assert_true(fabs(c.max_abs - 0.5) < 1e-12);
    partial[2] = NAN;
    memset(&c, 0, sizeof c);
    ht__compare(&arg, &g, &e, 1e-5, 1e-6, &c);
    assert_int_equal(c.mismatches, 1);
    /* A reference that wrote nothing matches nothing. */
    partial[2] = -1.0f;
    total[0] = NAN;
    e = hb(total, 3);
    memset(&c, 0, sizeof c);
    ht__compare(&arg, &g, &e, 1e-5, 1e-6, &c);
    assert_int_equal(c.mismatches, 1);

    /* Integer sums are exact. */
    arg.type = HT_TYPE_LONG;
    g = hb(lp, 3);
    e = hb(lt, 2);
    memset(&c, 0, sizeof c);
    ht__compare(&arg, &g, &e, 0, 0, &c);
    assert_int_equal(c.mismatches, 0);
    lp[0] = 6;
    memset(&c, 0, sizeof c);
    ht__compare(&arg, &g, &e, 0, 0, &c);
    assert_int_equal(c.mismatches, 1);
    assert_non_null(strstr(c.first, "got 8, expected 7"));
}

/* A count that differs is one mismatch, and the message points at "sum". */
static void test_compare_count(void **state)
{
    struct ht_arg arg;
    struct ht__cmp c;
    float a[4] = {0}, b[2] = {0};
    struct ht__hostbuf g = hb(a, 4), e = hb(b, 2);

    (void)state;
    memset(&arg, 0, sizeof arg);
    arg.name = "partial";
    arg.type = HT_TYPE_FLOAT;
    arg.is_buffer = 1;
    arg.access = HT_ACCESS_WRITE;
    memset(&c, 0, sizeof c);
    ht__compare(&arg, &g, &e, 1e-5, 1e-6, &c);
    assert_int_equal(c.mismatches, 1);
    assert_non_null(strstr(c.first, "has 4 elements but the reference has 2"));
    assert_non_null(strstr(c.first, "\"verify\": \"sum\""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_npy_header),
        cmocka_unit_test(test_npy_refused),
        cmocka_unit_test(test_compare_written),
        cmocka_unit_test(test_compare_sum),
        cmocka_unit_test(test_compare_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
