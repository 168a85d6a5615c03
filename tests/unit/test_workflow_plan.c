/* ht_workflow_plan (workflow.h, `hetune plan`): without a bus it is ht_split_plan_make;
 * with one, the plan, Algorithm 1 on the kernels, the transfer-aware bound and the
 * decision agree with the split module's functions called one by one, and a bad bus entry
 * names its device. Pure: no OpenCL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_bus),
        cmocka_unit_test(test_bus),
        cmocka_unit_test(test_bad_bus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
