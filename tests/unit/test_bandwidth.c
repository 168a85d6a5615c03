/* Unit tests of ht_bandwidth_measure (src/exec/bandwidth.c) on the first OpenCL device:
 * every rate is positive and finite on every path, auto resolves to in place on a CPU, a
 * forced path is kept, sizes are clamped, and bad input is refused. Exits 77 (skipped) when
 * no OpenCL platform is found. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hetune/exec.h"
#include "hetune/platform.h"

static struct ht_platform *plat;
static const struct ht_device_info *dev;

/* Small transfers keep the test fast; the rates need not be the device's best here. */
#define TEST_BYTES (UINT64_C(1) << 20)

static void check_rate(double v, const char *what)
{
    if (!(v > 0) || !isfinite(v))
        fail_msg("%s is %g bytes/s, not positive and finite", what, v);
}

static void measure(enum ht_data_path asked, uint64_t bytes, unsigned repeats,
                    struct ht_bandwidth *bw)
{
    struct ht_exec_opts opts;
    struct ht_error err;
    int rc;

    ht_exec_opts_init(&opts);
    opts.data_path = asked;
    ht_error_clear(&err);
    rc = ht_bandwidth_measure(dev, &opts, bytes, repeats, bw, &err);
    if (rc != HT_OK)
        fail_msg("ht_bandwidth_measure(%s): %s: %s", ht_data_path_name(asked), ht_err_name(rc),
                 err.text);
    check_rate(bw->h2d_Bps, "h2d");
    check_rate(bw->d2h_Bps, "d2h");
    check_rate(bw->pinned_h2d_Bps, "pinned h2d");
    check_rate(bw->pinned_d2h_Bps, "pinned d2h");
    check_rate(bw->pageable_h2d_Bps, "pageable h2d");
    check_rate(bw->pageable_d2h_Bps, "pageable d2h");
}

static void test_every_path(void **state)
{
    static const enum ht_data_path paths[] = {HT_PATH_PAGEABLE, HT_PATH_PINNED,
                                              HT_PATH_INPLACE};
    struct ht_bandwidth bw;
    (void)state;

    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        memset(&bw, 0xff, sizeof bw);
        measure(paths[i], TEST_BYTES, 2, &bw);
        assert_int_equal(bw.path, paths[i]); /* a forced path is kept */
        assert_int_equal(bw.bytes, TEST_BYTES);
        assert_int_equal(bw.repeats, 2);
    }
}

static void test_auto(void **state)
{
    struct ht_bandwidth bw;
    (void)state;

    measure(HT_PATH_AUTO, TEST_BYTES, 1, &bw);
    assert_int_equal(bw.path, ht_data_path_resolve(HT_PATH_AUTO, dev));
    assert_int_not_equal(bw.path, HT_PATH_AUTO);
    if (dev->is_cpu)
        assert_int_equal(bw.path, HT_PATH_INPLACE);

    /* NULL options are auto too. */
    {
        struct ht_error err;
        ht_error_clear(&err);
        assert_int_equal(ht_bandwidth_measure(dev, NULL, TEST_BYTES, 1, &bw, &err), HT_OK);
        assert_int_equal(bw.path, ht_data_path_resolve(HT_PATH_AUTO, dev));
    }
}

static void test_sizes(void **state)
{
    struct ht_device_info small = *dev;
    struct ht_bandwidth bw;
    struct ht_error err;
    (void)state;

    /* Defaults: 64 MiB (or a quarter of the largest allocation), 5 repeats. */
    small.max_mem_alloc_size = 4 * TEST_BYTES;
    ht_error_clear(&err);
    assert_int_equal(ht_bandwidth_measure(&small, NULL, 0, 0, &bw, &err), HT_OK);
    assert_int_equal(bw.bytes, TEST_BYTES);
    assert_int_equal(bw.repeats, 5);
    /* More than a quarter of the largest allocation is clamped. */
    assert_int_equal(ht_bandwidth_measure(&small, NULL, 64 * TEST_BYTES, 1, &bw, &err), HT_OK);
    assert_int_equal(bw.bytes, TEST_BYTES);
    /* Odd sizes work: nothing needs whole pages. */
    assert_int_equal(ht_bandwidth_measure(dev, NULL, 12345, 1, &bw, &err), HT_OK);
    assert_int_equal(bw.bytes, 12345);
    check_rate(bw.h2d_Bps, "h2d of 12345 bytes");
}

static void test_bad_input(void **state)
{
    struct ht_device_info none = *dev;
    struct ht_exec_opts opts;
    struct ht_bandwidth bw;
    struct ht_error err;
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(ht_bandwidth_measure(NULL, NULL, 0, 0, &bw, &err), HT_EINVAL);
    ht_error_clear(&err);
    assert_int_equal(ht_bandwidth_measure(dev, NULL, 0, 0, NULL, &err), HT_EINVAL);
    none.cl_device = NULL;
    ht_error_clear(&err);
    assert_int_equal(ht_bandwidth_measure(&none, NULL, 0, 0, &bw, &err), HT_EINVAL);
    ht_exec_opts_init(&opts);
    opts.data_path = (enum ht_data_path)42;
    ht_error_clear(&err);
    assert_int_equal(ht_bandwidth_measure(dev, &opts, 0, 0, &bw, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "data path"));
    ht_error_clear(&err);
    assert_int_equal(ht_bandwidth_measure(dev, NULL, TEST_BYTES, 1000000, &bw, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "repeats"));
    /* err may be NULL. */
    assert_int_equal(ht_bandwidth_measure(NULL, NULL, 0, 0, &bw, NULL), HT_EINVAL);
}

static void test_path_names(void **state)
{
    enum ht_data_path p;
    (void)state;

    for (int i = HT_PATH_AUTO; i <= HT_PATH_INPLACE; i++) {
        assert_int_equal(ht_data_path_parse(ht_data_path_name((enum ht_data_path)i), &p), HT_OK);
        assert_int_equal(p, i);
    }
    assert_int_equal(ht_data_path_parse("dma", &p), HT_EINVAL);
    assert_null(ht_data_path_name((enum ht_data_path)9));
}

/* The host memory's rate: measured with a few threads over small arrays, and bad
 * arguments refused. */
static void test_host_memory(void **state)
{
    struct ht_host_memory hm;
    struct ht_error err;
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(ht_host_memory_measure(2, UINT64_C(1) << 20, 2, &hm, &err), HT_OK);
    assert_true(hm.Bps > 1e6 && isfinite(hm.Bps));
    assert_true(hm.read_Bps > 1e6 && isfinite(hm.read_Bps));
    assert_int_equal(hm.threads, 2);
    assert_int_equal(hm.repeats, 2);
    assert_true(hm.bytes == UINT64_C(1) << 20);
    assert_int_equal(ht_host_memory_measure(0, UINT64_C(1) << 20, 1, &hm, &err), HT_OK);
    assert_true(hm.threads >= 1 && hm.Bps > 0);
    assert_int_equal(ht_host_memory_measure(2, UINT64_C(1) << 20, 1001, &hm, &err), HT_EINVAL);
    assert_int_equal(ht_host_memory_measure(5000, UINT64_C(1) << 30, 1, &hm, &err), HT_EINVAL);
    /* Shared with a device copying (PoCL's, through pinned copies): the rate of both, the
     * rest of hm untouched; no device: nothing; a device without OpenCL handles: refused. */
    {
        const struct ht_device_info *one[1] = {dev};
        struct ht_device_info none;
        const struct ht_device_info *bad[1] = {&none};
        double bps = hm.Bps;
        ht_error_clear(&err);
        assert_int_equal(ht_host_memory_measure_shared(one, 1, UINT64_C(1) << 20, 2, &hm, &err),
                         HT_OK);
        assert_true(hm.shared_Bps > 1e6 && isfinite(hm.shared_Bps));
        assert_int_equal(hm.shared_devices, 1);
        assert_true(hm.shared_threads >= 1);
        assert_true(hm.Bps == bps);
        assert_true(hm.shared_by_Bps[0] == hm.shared_Bps);
        assert_true(hm.shared_by_Bps[1] == 0.0);
        /* Two copying (the same device twice): each count measured, the last as shared. */
        {
            const struct ht_device_info *two[2] = {dev, dev};
            assert_int_equal(ht_host_memory_measure_shared(two, 2, UINT64_C(1) << 20, 2, &hm,
                                                           &err), HT_OK);
            assert_true(hm.shared_by_Bps[0] > 1e6 && hm.shared_by_Bps[1] > 1e6);
            assert_true(hm.shared_by_Bps[1] == hm.shared_Bps);
            assert_int_equal(hm.shared_devices, 2);
            assert_true(hm.shared_by_Bps[2] == 0.0);
        }
        hm.shared_Bps = 0;
        assert_int_equal(ht_host_memory_measure_shared(one, 0, 0, 0, &hm, &err), HT_OK);
        assert_true(hm.shared_Bps == 0);
        memset(&none, 0, sizeof none);
        assert_int_equal(ht_host_memory_measure_shared(bad, 1, 0, 0, &hm, &err), HT_EINVAL);
    }
    ht_error_clear(&err);
    assert_int_equal(ht_host_memory_measure(4, 64, 1, &hm, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "bytes per array"));
    assert_int_equal(ht_host_memory_measure(1, 4096, 1, NULL, &err), HT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_path),
        cmocka_unit_test(test_auto),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_path_names),
        cmocka_unit_test(test_host_memory),
    };
    struct ht_error err;
    int failed;

    ht_error_clear(&err);
    if (ht_platform_discover(&plat, &err) != HT_OK) {
        fprintf(stderr, "skipped: %s\n", err.text);
        return 77;
    }
    dev = &plat->devices[0];
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    ht_platform_free(plat);
    return failed;
}
