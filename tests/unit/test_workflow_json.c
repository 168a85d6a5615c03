/* The library's documents for people and programs (workflow.h): ht_format_bytes,
 * ht_present_plan_json (names escaped, every number to 17 digits: JSON that parses back
 * to the plan), ht_present_report_json, ht_present_split_decision's words for a split
 * measured and not kept, and the JSON builder under them (util.h,
 * ht__json_*): text that is not UTF-8, control characters, numbers JSON cannot hold and
 * integers past 2^63. Pure: no OpenCL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hetune.h"
#include "util/util.h"

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
    assert_int_equal(ht_workflow_plan(1000, devs, 2,
                                      &(struct ht_workflow_plan_opts){.bus = bus, .margin = 0.1},
                                      &r, &err),
                     HT_OK);
    assert_int_equal(ht_present_plan_json(&r, bus, names, &text, &err), HT_OK);
    assert_non_null(strstr(text, "\"name\": \"c\\\"pu\\t\""));
    assert_int_not_equal(text[strlen(text) - 1], '\n');
    doc = json_loads(text, 0, &jerr);
    assert_non_null(doc);
    assert_int_equal(json_integer_value(json_object_get(doc, "global")), 1000);
    d = json_array_get(json_object_get(doc, "devices"), 0);
    assert_string_equal(json_string_value(json_object_get(d, "name")), "c\"pu\t");
    /* Every number to 17 digits: each parses back to the very double of the plan. */
    assert_true(json_real_value(json_object_get(d, "optimal_factor")) ==
                r.plan.slices[0].optimal_factor);
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
    char path[] = "out/report.md";
    struct ht_report_result res;
    struct ht_error err;
    json_error_t jerr;
    json_t *doc;
    char *text = NULL;

    (void)state;
    memset(&res, 0, sizeof res);
    res.path = path; /* figure_list NULL: no figure names */
    res.cases = 2;
    strcpy(res.no_pictures, "gnuplot not found");
    ht_error_clear(&err);
    assert_int_equal(ht_present_report_json("a.db", "out", &res, &text, &err), HT_OK);
    doc = json_loads(text, 0, &jerr);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "report")), "out/report.md");
    assert_int_equal(json_integer_value(json_object_get(doc, "cases")), 2);
    assert_true(json_is_false(json_object_get(doc, "pictures")));
    assert_string_equal(json_string_value(json_object_get(doc, "no_pictures")),
                        "gnuplot not found");
    assert_true(json_is_array(json_object_get(doc, "figure_names")));
    assert_int_equal(json_array_size(json_object_get(doc, "figure_names")), 0);
    json_decref(doc);
    free(text);
}

/* Dumps {"v": v} through ht__json_dump and returns the text (free). */
static char *dump_one(json_t *v)
{
    struct ht_error err;
    char *text = NULL;

    assert_non_null(v);
    ht_error_clear(&err);
    assert_int_equal(ht__json_dump(json_pack("{s:o}", "v", v), 0, &text, &err), HT_OK);
    assert_non_null(text);
    return text;
}

/* The string s becomes, dumped and parsed back by jansson (which refuses what is not
 * UTF-8), want. */
static void string_becomes(const char *s, const char *want)
{
    char *text = dump_one(ht__json_string(s));
    json_error_t jerr;
    json_t *doc = json_loads(text, 0, &jerr);

    if (!doc)
        fail_msg("%s does not parse back: %s", text, jerr.text);
    assert_string_equal(json_string_value(json_object_get(doc, "v")), want);
    json_decref(doc);
    free(text);
}

static void test_json_string(void **state)
{
    char *text;

    (void)state;
    string_becomes("pthread-haswell-AMD EPYC", "pthread-haswell-AMD EPYC");
    string_becomes("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                   "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    /* Control characters and quotes are escaped, DEL kept: all come back as they were. */
    string_becomes("a\"b\\c\nd\te\x01" "f\x1f\x7f/", "a\"b\\c\nd\te\x01" "f\x1f\x7f/");
    text = dump_one(ht__json_string("\x01\n"));
    assert_non_null(strstr(text, "\"\\u0001\\n\""));
    free(text);
    /* Each byte that starts no valid UTF-8 sequence is one U+FFFD, the rest kept: Latin-1,
     * a lone continuation byte, a sequence cut short (alone and at the end), an overlong
     * form, a surrogate, past U+10FFFF, 0xff. */
    string_becomes("GeForce \xe9t\xe9", "GeForce \xef\xbf\xbdt\xef\xbf\xbd");
    string_becomes("a\x80" "b", "a\xef\xbf\xbd" "b");
    string_becomes("a\xe2\x82" "b", "a\xef\xbf\xbd\xef\xbf\xbd" "b");
    string_becomes("\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd");
    string_becomes("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");
    string_becomes("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    string_becomes("\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    string_becomes("\xff\xc3\xa9", "\xef\xbf\xbd\xc3\xa9");
    /* NULL is null; a string that only looks like a marked number stays a string. */
    text = dump_one(ht__json_string(NULL));
    assert_non_null(strstr(text, "\"v\": null"));
    free(text);
    string_becomes("\\u0000123", "\\u0000123");
    string_becomes("\"\\u0000123\"", "\"\\u0000123\"");
}

static void test_json_numbers(void **state)
{
    json_error_t jerr;
    json_t *doc;
    char *text;

    (void)state;
    /* jansson has no NaN or infinity (json_real gives NULL): null. */
    text = dump_one(ht__json_real(NAN));
    assert_non_null(strstr(text, "\"v\": null"));
    free(text);
    text = dump_one(ht__json_real(-INFINITY));
    assert_non_null(strstr(text, "\"v\": null"));
    free(text);
    /* 17 digits by default: a double parses back to itself. */
    text = dump_one(ht__json_real(0.1 + 0.2));
    doc = json_loads(text, 0, &jerr);
    assert_non_null(doc);
    assert_true(json_real_value(json_object_get(doc, "v")) == 0.1 + 0.2);
    json_decref(doc);
    free(text);
}

static void test_json_big(void **state)
{
    struct ht_error err;
    json_t *a = json_array();
    json_error_t jerr;
    json_t *doc;
    char *text;

    (void)state;
    /* What fits in 63 bits is a jansson integer; past it, the dump holds the exact text. */
    doc = ht__json_uint_text("0");
    assert_true(json_is_integer(doc) && json_integer_value(doc) == 0);
    json_decref(doc);
    json_array_append_new(a, ht__json_uint_text("9223372036854775807"));
    json_array_append_new(a, ht__json_uint_text("9223372036854775808"));
    json_array_append_new(a, ht__json_uint_text("340282366920938463463374607431768211455"));
    json_array_append_new(a, ht__json_string("\\u0000"));
    assert_int_equal(json_array_size(a), 4);
    assert_true(json_is_integer(json_array_get(a, 0)));
    assert_int_equal(json_integer_value(json_array_get(a, 0)), INT64_MAX);
    ht_error_clear(&err);
    assert_int_equal(ht__json_dump(json_pack("{s:o, s:s}", "v", a, "w", "x"), 0, &text, &err),
                     HT_OK);
    assert_non_null(strstr(text, "\n    9223372036854775807,\n"));
    assert_non_null(strstr(text, "\n    9223372036854775808,\n"));
    assert_non_null(strstr(text, "\n    340282366920938463463374607431768211455,\n"));
    assert_non_null(strstr(text, "\n    \"\\\\u0000\"\n"));
    /* JSON all the same: jansson reads it back with its big integers as reals. */
    doc = json_loads(text, JSON_DECODE_INT_AS_REAL, &jerr);
    if (!doc)
        fail_msg("%s: %s", text, jerr.text);
    assert_true(json_real_value(json_array_get(json_object_get(doc, "v"), 2)) ==
                340282366920938463463374607431768211455.0);
    json_decref(doc);
    free(text);
    /* No text of a whole number, no value. */
    assert_null(ht__json_uint_text(""));
    assert_null(ht__json_uint_text("-1"));
    assert_null(ht__json_uint_text("~3.403e+38"));
    assert_null(ht__json_uint_text("012"));
    assert_null(ht__json_uint_text("12a"));
    assert_null(ht__json_uint_text(NULL));
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

/* ht_present_split_decision for a split measured and not kept, without the estimate's
 * check (predicted worth it): its words follow the measured split against the fastest
 * alone, "longer than" only when it was. */
static void test_decision_measured(void **state)
{
    struct ht_device_info info;
    struct ht_workflow_device dev;
    struct ht_workflow_split_result r;
    char buf[512];

    (void)state;
    memset(&info, 0, sizeof info);
    snprintf(info.name, sizeof info.name, "cpu");
    memset(&dev, 0, sizeof dev);
    dev.dev = &info;
    memset(&r, 0, sizeof r);
    r.devs = &dev;
    r.n = 1;
    r.ran_alone = r.measured_alone = 1;
    r.res.wall_s = 6.723e-3;
    r.measured_split_s = 7.1e-3;
    assert_int_equal(ht_present_split_decision(&r, buf, sizeof buf), 1);
    assert_non_null(strstr(buf, "the split took 7.100 ms, longer than device 0 (cpu) alone"));
    r.measured_split_s = 6.114e-3;
    assert_int_equal(ht_present_split_decision(&r, buf, sizeof buf), 1);
    assert_non_null(strstr(buf, "the split took 6.114 ms, not enough faster than device 0"));
    assert_null(strstr(buf, "longer"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_plan_json),
        cmocka_unit_test(test_report_json),
        cmocka_unit_test(test_scheduler_planned),
        cmocka_unit_test(test_decision_measured),
        cmocka_unit_test(test_json_string),
        cmocka_unit_test(test_json_numbers),
        cmocka_unit_test(test_json_big),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
