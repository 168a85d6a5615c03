/* A device that fails between launches (issue 26 item 6): the runtime records the failure
 * in its info, returns the error (also to a caller that passes no error report), stays open
 * and closes cleanly. The failure is the co-execution's injected one
 * (HETUNE_TEST_SLICE_FAIL=INDEX: the device's chunk past offset 0 fails as
 * CL_OUT_OF_RESOURCES would), read once per process, hence a program of its own; it takes
 * effect from the first launch, before which the runtime is opened with mode SPLIT (no
 * measurement launches anything). The split is over device 0 named twice (two contexts of
 * one device), so that whichever slice the plan puts second, past offset 0, is device 0's
 * and fails. Exits 77 without an OpenCL platform. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune.h"

#define N 1024

static char dir[] = "/tmp/hetune-test-rtlost-XXXXXX";
static char db_path[512];

static const char spec_json[] =
    "{\n"
    "  \"name\": \"vecadd_lost\",\n"
    "  \"kernel\": { \"name\": \"addvec\", \"source\": \"__kernel void addvec(const unsigned "
    "int n, __global float *a, __global const float *b) { size_t i = get_global_id(0); if (i "
    "< n) a[i] = 2.0f * b[i]; }\" },\n"
    "  \"sizes\": { \"N\": 1024 },\n"
    "  \"ndrange\": { \"global\": [\"N\"], \"local\": [\"WG\"] },\n"
    "  \"params\": { \"WG\": { \"values\": [16, 64] } },\n"
    "  \"args\": [\n"
    "    { \"name\": \"n\", \"type\": \"uint\", \"value\": \"N\" },\n"
    "    { \"name\": \"a\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"write\", "
    "\"index\": [\"gx\"] },\n"
    "    { \"name\": \"b\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"read\", "
    "\"index\": [\"gx\"] }\n"
    "  ],\n"
    "  \"verify\": { \"reference\": { \"WG\": 16 }, \"rtol\": 0, \"atol\": 0 },\n"
    "  \"timing\": { \"repeats\": 2, \"keep_best\": 1 }\n"
    "}\n";

static void test_device_lost(void **state)
{
    struct ht_spec *spec = NULL;
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    const struct ht_runtime_info *info;
    struct ht_error err;
    float a[N], b[N];
    char *json = NULL;
    (void)state;

    ht_error_clear(&err);
    if (ht_spec_load_buffer(spec_json, 0, NULL, &spec, &err) != HT_OK)
        fail_msg("load: %s", err.text);
    ht_runtime_opts_init(&o);
    o.db = db_path;
    o.tune_missing = 1;
    o.mode = HT_RUNTIME_SPLIT;
    o.devices = "0,0";
    if (ht_runtime_open_spec(spec, &o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);
    info = ht_runtime_info(rt);
    assert_int_equal(info->split, 1);
    assert_int_equal(info->ndevices, 2);
    if (!info->devices[0].used || !info->devices[1].used) {
        ht_runtime_close(rt);
        ht_spec_free(spec);
        skip(); /* the plan gave one context everything */
        return;
    }
    setenv("HETUNE_TEST_SLICE_FAIL", "0", 1);

    for (size_t i = 0; i < N; i++)
        b[i] = (float)i;
    assert_int_equal(ht_runtime_bind(rt, "a", a, sizeof a, &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "b", b, sizeof b, &err), HT_OK);
    assert_int_equal(ht_runtime_launch(rt, &err), HT_ELAUNCH);
    assert_non_null(strstr(err.text, "injected"));
    info = ht_runtime_info(rt);
    assert_non_null(info);
    assert_int_equal(info->launches, 0);
    assert_int_equal(info->failed_launches, 1);
    assert_int_equal(info->last_status, HT_ELAUNCH);
    assert_non_null(strstr(info->last_error, "injected"));
    assert_null(ht_runtime_last(rt));
    /* Again, with no error report: still returned and recorded. */
    assert_int_equal(ht_runtime_launch(rt, NULL), HT_ELAUNCH);
    assert_int_equal(ht_runtime_info(rt)->failed_launches, 2);
    ht_error_clear(&err);
    assert_int_equal(ht_runtime_info_json(rt, &json, &err), HT_OK);
    assert_non_null(strstr(json, "\"failed_launches\": 2"));
    assert_non_null(strstr(json, "\"last_status\": \"HT_ELAUNCH\""));
    free(json);
    ht_runtime_close(rt);
    ht_runtime_close(rt);
    ht_spec_free(spec);
    unsetenv("HETUNE_TEST_SLICE_FAIL");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_lost),
    };
    struct ht_platform *plat = NULL;
    struct ht_error err;
    int rc;

    ht_error_clear(&err);
    if (ht_platform_discover(&plat, &err) != HT_OK) {
        fprintf(stderr, "skipped: %s\n", err.text);
        return 77;
    }
    ht_platform_free(plat);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(db_path, sizeof db_path, "%s/hetune.db", dir);
    rc = cmocka_run_group_tests_name("runtime_lost", tests, NULL, NULL);
    unlink(db_path);
    rmdir(dir);
    return rc;
}
