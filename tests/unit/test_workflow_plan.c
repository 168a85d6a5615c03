/* ht_workflow_plan (workflow.h, `hetune plan`): without a bus it is ht_split_plan_make;
 * with one, the plan, Algorithm 1 on the kernels, the transfer-aware bound and the
 * decision agree with the split module's functions called one by one, and a bad bus entry
 * names its device. Pure: no OpenCL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hetune.h"

static void test_no_bus(void **state)
{
    struct ht_split_device_in devs[2] = {{.wg = 64, .time_s = 1}, {.wg = 32, .time_s = 2}};
    struct ht_split_plan want = {0};
    struct ht_workflow_plan_result r;
    struct ht_error err;

    (void)state;
    ht_error_clear(&err);
    assert_int_equal(
        ht_workflow_plan(1000, devs, 2, &(struct ht_workflow_plan_opts){.margin = 0.1}, &r, &err),
        HT_OK);
    assert_int_equal(ht_split_plan_make(1000, devs, 2, NULL, &want, &err), HT_OK);
    assert_int_equal(r.bus, 0);
    assert_null(r.shares);
    assert_int_equal(r.plan.ndevices, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(r.plan.slices[i].offset, want.slices[i].offset);
        assert_int_equal(r.plan.slices[i].size, want.slices[i].size);
    }
    assert_true(r.plan.theoretical_time_s == want.theoretical_time_s);
    ht_split_plan_destroy(&want);
    ht_workflow_plan_result_destroy(&r);
}

static void test_bus(void **state)
{
    struct ht_split_device_in devs[2] = {{.wg = 64, .time_s = 1}, {.wg = 32, .time_s = 2}};
    struct ht_split_bus bus[2] = {{.kernel_s = 1, .xfer_s = 3}, {.kernel_s = 2}};
    struct ht_split_device_in busy[2] = {{.wg = 64}, {.wg = 32}};
    struct ht_split_plan kplan = {0}, bplan = {0};
    struct ht_workflow_plan_result r;
    struct ht_split_decision dec;
    double bound, shares[2], alone[2];
    struct ht_error err;

    (void)state;
    ht_error_clear(&err);
    assert_int_equal(ht_workflow_plan(1000, devs, 2,
                                      &(struct ht_workflow_plan_opts){.bus = bus, .margin = 0.1},
                                      &r, &err),
                     HT_OK);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(ht_split_bus_model(&bus[i], &busy[i], &err), HT_OK);
        alone[i] = busy[i].time_s;
    }
    assert_int_equal(ht_split_plan_make(1000, devs, 2, NULL, &kplan, &err), HT_OK);
    assert_int_equal(ht_split_plan_make(1000, busy, 2, NULL, &bplan, &err), HT_OK);
    assert_int_equal(ht_split_bound(busy, 2, &bound, shares, &err), HT_OK);
    assert_int_equal(ht_split_decide(bplan.model_time_s, alone, 2, 0.1, &dec, &err), HT_OK);
    assert_int_equal(r.bus, 1);
    assert_true(r.kernel_theoretical_s == kplan.theoretical_time_s);
    assert_true(r.plan.model_time_s == bplan.model_time_s);
    assert_true(r.bound_s == bound);
    assert_true(r.shares[0] == shares[0] && r.shares[1] == shares[1]);
    assert_int_equal(r.dec.split, dec.split);
    assert_int_equal(r.dec.fastest, dec.fastest);
    assert_true(r.margin == 0.1);
    ht_split_plan_destroy(&kplan);
    ht_split_plan_destroy(&bplan);
    ht_workflow_plan_result_destroy(&r);
}

static void test_bad_bus(void **state)
{
    struct ht_split_device_in devs[2] = {{.wg = 64, .time_s = 1}, {.wg = 32, .time_s = 2}};
    struct ht_split_bus bus[2] = {{.kernel_s = 1}, {.kernel_s = 2, .xfer_s = -1}};
    struct ht_workflow_plan_result r;
    struct ht_error err;

    (void)state;
    ht_error_clear(&err);
    assert_int_equal(ht_workflow_plan(1000, devs, 2,
                                      &(struct ht_workflow_plan_opts){.bus = bus, .margin = 0.1},
                                      &r, &err),
                     HT_EINVAL);
    assert_string_equal(err.field, "devices[1].xfer_s");
    ht_workflow_plan_result_destroy(&r);
}

/* A sweep's points, and a step out of [HT_SWEEP_MIN_STEP, 1]: none (1 / 0 as a size_t was
 * undefined), and ht_workflow_split refuses it before any device is used. */
static void test_sweep_steps(void **state)
{
    static const char json[] =
        "{ \"name\": \"sw\", \"kernel\": { \"name\": \"k\", \"source\": \"__kernel void "
        "k(__global float *a) { a[get_global_id(0)] = 1; }\" }, \"sizes\": { \"N\": 64 }, "
        "\"ndrange\": { \"global\": [\"N\"], \"local\": [\"WG\"] }, \"params\": { \"WG\": "
        "{ \"values\": [8] } }, \"args\": [ { \"name\": \"a\", \"type\": \"float\", "
        "\"shape\": [\"N\"], \"access\": \"write\", \"index\": [\"gx\"] } ] }";
    const double bad[] = {-0.5, 1.5, 1e-5, NAN, INFINITY};
    struct ht_device_info dev;
    const struct ht_device_info *devs[2] = {&dev, &dev};
    struct ht_workflow_split_opts o;
    struct ht_workflow_split_result r;
    struct ht_spec *spec = NULL;
    struct ht_error err;
    (void)state;

    assert_int_equal(ht_workflow_sweep_points(0.5), 3);
    assert_int_equal(ht_workflow_sweep_points(0.3), 5);
    assert_int_equal(ht_workflow_sweep_points(1.0), 2);
    assert_int_equal(ht_workflow_sweep_points(HT_SWEEP_MIN_STEP), 10001);
    memset(&dev, 0, sizeof dev);
    snprintf(dev.name, sizeof dev.name, "no device");
    ht_error_clear(&err);
    assert_int_equal(ht_spec_load_buffer(json, 0, NULL, &spec, &err), HT_OK);
    assert_int_equal(ht_workflow_sweep_points(0.0), 0);
    /* 0 is no sweep to ht_workflow_split; the others are refused. */
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        assert_int_equal(ht_workflow_sweep_points(bad[k]), 0);
        ht_workflow_split_opts_init(&o);
        o.sweep = bad[k];
        ht_error_clear(&err);
        assert_int_equal(ht_workflow_split(spec, devs, 2, &o, &r, &err), HT_EINVAL);
        assert_string_equal(err.field, "sweep");
        assert_non_null(strstr(err.text, "a sweep's step is in [0.0001, 1]"));
        ht_workflow_split_result_destroy(&r);
    }
    /* A NULL among the devices is named, before anything runs. */
    {
        const struct ht_device_info *holed[2] = {&dev, NULL};
        struct ht_workflow_run_opts ro;
        struct ht_workflow_run_result rr;
        ht_workflow_split_opts_init(&o);
        ht_error_clear(&err);
        assert_int_equal(ht_workflow_split(spec, holed, 2, &o, &r, &err), HT_EINVAL);
        assert_string_equal(err.text, "ht_workflow_split: devs[1] is NULL");
        ht_workflow_split_result_destroy(&r);
        ht_workflow_run_opts_init(&ro);
        ht_error_clear(&err);
        assert_int_equal(ht_workflow_run(spec, holed, 2, &ro, &rr, &err), HT_EINVAL);
        assert_string_equal(err.text, "ht_workflow_run: devs[1] is NULL");
        ht_workflow_run_result_destroy(&rr);
    }
    ht_spec_free(spec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_bus),
        cmocka_unit_test(test_bus),
        cmocka_unit_test(test_bad_bus),
        cmocka_unit_test(test_sweep_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
