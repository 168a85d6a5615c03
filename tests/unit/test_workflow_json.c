/* The library's documents for people and programs (workflow.h): ht_format_bytes,
 * ht_workflow_plan_json (hand-laid: a device a line, names escaped, every number to 17
 * digits; JSON that parses back to the plan) and ht_workflow_report_json. Pure: no
 * OpenCL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hetune.h"

static void test_bytes(void **state)
{
    char buf[32];

    (void)state;
    ht_format_bytes(512, buf, sizeof buf);
    assert_string_equal(buf, "512 B");
    ht_format_bytes(256 * 1024, buf, sizeof buf);
    assert_string_equal(buf, "256 KiB");
    ht_format_bytes(UINT64_C(31) << 29, buf, sizeof buf);
    assert_string_equal(buf, "15.5 GiB");
    ht_format_bytes(UINT64_MAX, buf, sizeof buf);
    assert_string_equal(buf, "16 EiB");
}

static void test_plan_json(void **state)
{
    struct ht_split_device_in devs[2] = {{.wg = 64, .time_s = 1.5}, {.wg = 16, .time_s = 1}};
    struct ht_split_bus bus[2] = {{.kernel_s = 1.5}, {.kernel_s = 1, .xfer_s = 0.25}};
    char *names[] = {"c\"pu\t", "gpu"};
    struct ht_workflow_plan_result r;
    struct ht_error err;
    json_error_t jerr;
    json_t *doc, *d;
    char *text = NULL;

    (void)state;
    ht_error_clear(&err);
    assert_int_equal(ht_workflow_plan(1000, devs, bus, 2, NULL, 0.1, &r, &err), HT_OK);
    assert_int_equal(ht_workflow_plan_json(&r, bus, names, &text, &err), HT_OK);
    assert_non_null(strstr(text, "\n    {\"index\": 0, \"name\": \"c\\\"pu\\t\", \"wg\": 64, "));
    assert_int_not_equal(text[strlen(text) - 1], '\n');
    doc = json_loads(text, 0, &jerr);
    assert_non_null(doc);
    assert_int_equal(json_integer_value(json_object_get(doc, "global")), 1000);
    d = json_array_get(json_object_get(doc, "devices"), 1);
    assert_int_equal(json_integer_value(json_object_get(d, "size")), r.plan.slices[1].size);
    assert_true(json_real_value(json_object_get(d, "busy_s")) == r.plan.slices[1].model_s);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(doc, "decision"), "choice")),
                        r.dec.split ? "split" : "alone");
    json_decref(doc);
    free(text);
    ht_workflow_plan_result_destroy(&r);
}

static void test_report_json(void **state)
{
    struct ht_report_result res;
    struct ht_error err;
    json_error_t jerr;
    json_t *doc;
    char *text = NULL;

    (void)state;
    memset(&res, 0, sizeof res);
    strcpy(res.path, "out/report.md");
    res.cases = 2;
    strcpy(res.no_pictures, "gnuplot not found");
    ht_error_clear(&err);
    assert_int_equal(ht_workflow_report_json("a.db", "out", &res, &text, &err), HT_OK);
    doc = json_loads(text, 0, &jerr);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "report")), "out/report.md");
    assert_int_equal(json_integer_value(json_object_get(doc, "cases")), 2);
    assert_true(json_is_false(json_object_get(doc, "pictures")));
    assert_string_equal(json_string_value(json_object_get(doc, "no_pictures")),
                        "gnuplot not found");
    json_decref(doc);
    free(text);
}

/* The one test of a scheduler's name for fixed slices (cmd-split and the stored split). */
static void test_scheduler_planned(void **state)
{
    (void)state;
    assert_int_equal(ht_workflow_scheduler_planned("static"), 1);
    assert_int_equal(ht_workflow_scheduler_planned("refined"), 1);
    assert_int_equal(ht_workflow_scheduler_planned("dynamic"), 0);
    assert_int_equal(ht_workflow_scheduler_planned("guided"), 0);
    assert_int_equal(ht_workflow_scheduler_planned("alone"), 0);
    assert_int_equal(ht_workflow_scheduler_planned("statics"), 0);
    assert_int_equal(ht_workflow_scheduler_planned(""), 0);
    assert_int_equal(ht_workflow_scheduler_planned(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_plan_json),
        cmocka_unit_test(test_report_json),
        cmocka_unit_test(test_scheduler_planned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
