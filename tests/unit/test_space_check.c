/* ht_space_check and the other helpers of src/space/def.c, on defs loaded from inline specs
 * or built by hand, against a fake device: no OpenCL is needed. */
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
#include "util/util.h"

static void fake_device(struct ht_device_info *d)
{
    memset(d, 0, sizeof *d);
    d->max_work_group_size = 512;
    d->max_work_item_dims = 3;
    d->max_work_item_sizes[0] = 512;
    d->max_work_item_sizes[1] = 64;
    d->max_work_item_sizes[2] = 8;
    d->compute_units = 12;
    d->local_mem_size = 32768;
    d->global_mem_size = UINT64_C(1) << 32;
    d->max_mem_alloc_size = UINT64_C(1) << 30;
    d->is_gpu = 1;
}

/* Loads a spec whose text is made of the given sections (without the name, kernel and args,
 * which are added) from a scratch folder. */
static struct ht_spec *load_sections(const char *sections)
{
    char dir[] = "/tmp/hetune-test-space-XXXXXX";
    char *kpath, *spath, *text;
    struct ht_spec *spec = NULL;
    struct ht_error err;
    char msg[4096];
    FILE *f;

    assert_non_null(mkdtemp(dir));
    kpath = ht__asprintf("%s/k.cl", dir);
    spath = ht__asprintf("%s/spec.json", dir);
    text = ht__asprintf("{\"name\": \"t\", \"kernel\": {\"file\": \"k.cl\", \"name\": \"k\"},\n%s,\n"
                        "\"args\": [{\"name\": \"x\", \"type\": \"int\", \"value\": 1}]}\n",
                        sections);
    f = fopen(kpath, "w");
    assert_non_null(f);
    fputs("__kernel void k(int x) { }\n", f);
    fclose(f);
    f = fopen(spath, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    ht_error_clear(&err);
    if (ht_spec_load(spath, NULL, 0, &spec, &err) != HT_OK) {
        ht_error_format(&err, msg, sizeof msg);
        fail_msg("the test spec does not load: %s", msg);
    }
    unlink(kpath);
    unlink(spath);
    rmdir(dir);
    free(kpath);
    free(spath);
    free(text);
    return spec;
}

/* Checks config and expects rc; for a refusal, the rule's field and a piece of the text. */
static void check_config(const struct ht_space_def *def, const struct ht_device_info *dev,
                         const int64_t *config, enum ht_eq3 eq3, int rc, const char *field,
                         const char *text)
{
    struct ht_error err;
    int got;

    ht_error_clear(&err);
    got = ht_space_check(def, dev, config, eq3, &err);
    if (got != rc)
        fail_msg("expected %s, got %s (%s: %s)", ht_err_name(rc), ht_err_name(got), err.field,
                 err.text);
    if (rc == HT_OK) {
        assert_int_equal(err.code, 0);
        return;
    }
    assert_int_equal(err.code, rc);
    assert_string_equal(err.field, field);
    if (!strstr(err.text, text))
        fail_msg("'%s' lacks '%s'", err.text, text);
}

static void test_slots_and_vars(void **state)
{
    struct ht_spec *spec = load_sections(
        "\"sizes\": {\"N\": 100, \"M\": 7},\n"
        "\"params\": {\"A\": {\"values\": [1]}, \"B\": {\"values\": [2]}, \"C\": {\"values\": [3]}},\n"
        "\"ndrange\": {\"global\": [\"N\"]}");
    const struct ht_space_def *d = &spec->space;
    struct ht_device_info dev;
    int64_t params[3] = {10, 20, 30};
    int64_t vars[2 + 3 + HT_DEVICE_NVARS];
    (void)state;

    fake_device(&dev);
    assert_int_equal(ht_space_param_slot(d, 0), 2);
    assert_int_equal(ht_space_param_slot(d, 2), 4);
    assert_int_equal(ht_space_devvar_slot(d, HT_DEVVAR_MAX_WORK_GROUP_SIZE), 5);
    assert_int_equal(ht_space_devvar_slot(d, HT_DEVVAR_IS_GPU), 5 + HT_DEVICE_NVARS - 1);
    assert_int_equal(d->names.count, sizeof vars / sizeof vars[0]);

    ht_space_vars(d, &dev, params, vars);
    assert_int_equal(vars[0], 100);
    assert_int_equal(vars[1], 7);
    assert_int_equal(vars[2], 10);
    assert_int_equal(vars[4], 30);
    assert_int_equal(vars[5 + HT_DEVVAR_MAX_WORK_GROUP_SIZE], 512);
    assert_int_equal(vars[5 + HT_DEVVAR_MAX_WORK_ITEM_SIZE_1], 64);
    assert_int_equal(vars[5 + HT_DEVVAR_COMPUTE_UNITS], 12);
    assert_int_equal(vars[5 + HT_DEVVAR_LOCAL_MEM_SIZE], 32768);
    assert_int_equal(vars[5 + HT_DEVVAR_IS_CPU], 0);
    assert_int_equal(vars[5 + HT_DEVVAR_IS_GPU], 1);
    ht_space_vars(d, &dev, NULL, vars);
    assert_int_equal(vars[2], 0);
    assert_int_equal(vars[4], 0);
    assert_int_equal(vars[1], 7);
    ht_spec_free(spec);
}

static void test_ndrange(void **state)
{
    struct ht_spec *spec = load_sections(
        "\"sizes\": {\"N\": 96},\n"
        "\"params\": {\"T\": {\"range\": [0, 8]}},\n"
        "\"ndrange\": {\"global\": [\"N\", \"N / T\", 5], \"local\": [\"T\", 1, \"T - 2\"]}");
    struct ht_spec *open = load_sections("\"sizes\": {\"N\": 96},\n"
                                         "\"ndrange\": {\"global\": [\"N\", 3]}");
    struct ht_device_info dev;
    int64_t vars[64], t = 4;
    uint64_t g[3], l[3];
    struct ht_error err;
    (void)state;

    fake_device(&dev);
    ht_space_vars(&spec->space, &dev, &t, vars);
    ht_error_clear(&err);
    assert_int_equal(ht_space_ndrange(&spec->space, vars, g, l, &err), HT_OK);
    assert_true(g[0] == 96 && g[1] == 24 && g[2] == 5);
    assert_true(l[0] == 4 && l[1] == 1 && l[2] == 2);

    t = 2; /* local[2] = 0 */
    ht_space_vars(&spec->space, &dev, &t, vars);
    assert_int_equal(ht_space_ndrange(&spec->space, vars, g, l, &err), HT_EINVAL);
    assert_string_equal(err.field, "ndrange.local[2]");
    assert_non_null(strstr(err.text, "must be positive"));

    t = 0; /* N / T */
    ht_error_clear(&err);
    ht_space_vars(&spec->space, &dev, &t, vars);
    assert_int_equal(ht_space_ndrange(&spec->space, vars, g, l, &err), HT_EINVAL);
    assert_string_equal(err.field, "ndrange.global[1]");
    assert_non_null(strstr(err.text, "division by zero"));

    /* An open local size is all zeros; dimensions beyond ndims are 1. */
    ht_error_clear(&err);
    ht_space_vars(&open->space, &dev, NULL, vars);
    assert_int_equal(ht_space_ndrange(&open->space, vars, g, l, &err), HT_OK);
    assert_true(g[0] == 96 && g[1] == 3 && g[2] == 1);
    assert_true(l[0] == 0 && l[1] == 0 && l[2] == 0);
    ht_spec_free(spec);
    ht_spec_free(open);
}

static void test_param_domains(void **state)
{
    struct ht_spec *spec = load_sections(
        "\"sizes\": {\"N\": 64},\n"
        "\"params\": {\"TS\": {\"values\": [1, 2, 4, 8]},\n"
        "             \"S\": {\"range\": [2, 16], \"step\": 2},\n"
        "             \"P\": {\"range\": [1, \"min(N, max_work_item_size_1) / 2\"], \"pow2\": true},\n"
        "             \"R\": {\"range\": [-3, 3]}},\n"
        "\"ndrange\": {\"global\": [\"N\"]}");
    const struct ht_space_def *d = &spec->space;
    struct ht_device_info dev;
    (void)state;

    fake_device(&dev);
    {
        int64_t c[] = {4, 6, 32, -3};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_OK, NULL, NULL);
    }
    {
        int64_t c[] = {3, 6, 32, 0};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "params.TS",
                     "3 is not one of 1, 2, 4, 8");
    }
    {
        int64_t c[] = {4, 3, 32, 0};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "params.S",
                     "S = 3 is outside the range [2, 16] step 2");
    }
    {
        int64_t c[] = {4, 18, 32, 0};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "params.S",
                     "S = 18 is outside the range [2, 16] step 2");
    }
    {
        int64_t c[] = {4, 16, 12, 0};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "params.P",
                     "P = 12 is not a power of two");
    }
    {
        /* The bound reads the device: min(64, 64) / 2 = 32. */
        int64_t c[] = {4, 16, 64, 0};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "params.P",
                     "P = 64 is outside the range [1, 32]");
    }
    {
        int64_t c[] = {4, 16, 1, 4};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "params.R",
                     "R = 4 is outside the range [-3, 3]");
    }
    {
        /* The first parameter out of its domain is the one reported. */
        int64_t c[] = {5, 5, 5, 5};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "params.TS", "5 is not");
    }
    dev.max_work_item_sizes[1] = 16;
    {
        int64_t c[] = {4, 16, 16, 0};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "params.P",
                     "P = 16 is outside the range [1, 8]");
    }
    ht_spec_free(spec);
}

static void test_platform_rules(void **state)
{
    struct ht_spec *spec = load_sections(
        "\"sizes\": {\"N\": 1024, \"M\": 100},\n"
        "\"params\": {\"TX\": {\"range\": [1, 1024]}, \"TY\": {\"range\": [1, 1024]}},\n"
        "\"ndrange\": {\"global\": [\"N\", \"M\"], \"local\": [\"TX\", \"TY\"]},\n"
        "\"local_mem\": \"TX * TY * 16\"");
    const struct ht_space_def *d = &spec->space;
    struct ht_device_info dev;
    (void)state;

    fake_device(&dev);
    {
        int64_t c[] = {32, 4}; /* 128 work-items, 2048 bytes, 32 x 25 groups */
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_OK, NULL, NULL);
    }
    {
        int64_t c[] = {32, 32};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "Eq. 1",
                     "local size 32x32 = 1024 work-items exceeds max_work_group_size 512");
    }
    {
        int64_t c[] = {1, 100}; /* 100 <= 512 in total, but dimension 1 allows 64 */
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "work-item limit",
                     "local size 100 in dimension 1 exceeds max_work_item_size_1 64");
    }
    {
        int64_t c[] = {32, 3};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "Eq. 2",
                     "global size 100 is not a multiple of local size 3 in dimension 1");
    }
    {
        int64_t c[] = {48, 2};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "Eq. 2",
                     "global size 1024 is not a multiple of local size 48 in dimension 0");
    }
    dev.local_mem_size = 2047;
    {
        int64_t c[] = {32, 4};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "local memory",
                     "local memory 2048 bytes exceeds local_mem_size 2047");
    }
    /* Eq. 1 comes before the per-dimension limit, Eq. 2 and local memory. */
    {
        int64_t c[] = {1024, 3};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "Eq. 1",
                     "local size 1024x3 = 3072 work-items");
    }
    ht_spec_free(spec);
}

/* 64 x 64 in 16 x 16 groups is 4 x 4 groups: 16 in total, 8 summed over dimensions. */
static void test_eq3_variants(void **state)
{
    struct ht_spec *spec = load_sections(
        "\"sizes\": {\"N\": 64},\n"
        "\"params\": {\"T\": {\"values\": [8, 16, 32]}},\n"
        "\"ndrange\": {\"global\": [\"N\", \"N\"], \"local\": [\"T\", \"T\"]}");
    struct ht_spec *open = load_sections(
        "\"sizes\": {\"N\": 64},\n"
        "\"params\": {\"T\": {\"values\": [8, 16, 32]}},\n"
        "\"ndrange\": {\"global\": [\"N\", \"N\"]}");
    const struct ht_space_def *d = &spec->space;
    struct ht_device_info dev;
    int64_t c16 = 16, c32 = 32;
    (void)state;

    fake_device(&dev); /* 12 compute units */
    dev.max_work_group_size = 1024;
    check_config(d, &dev, &c16, HT_EQ3_PRODUCT, HT_OK, NULL, NULL);
    check_config(d, &dev, &c16, HT_EQ3_SUM, HT_ECONSTRAINT, "Eq. 3",
                 "8 work-groups (4 + 4, summed over dimensions) is fewer than compute_units 12");
    check_config(d, &dev, &c16, HT_EQ3_OFF, HT_OK, NULL, NULL);
    /* 2 x 2 = 4 groups: the product fails too, and off still accepts. */
    check_config(d, &dev, &c32, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "Eq. 3",
                 "4 work-groups (2x2) is fewer than compute_units 12");
    check_config(d, &dev, &c32, HT_EQ3_SUM, HT_ECONSTRAINT, "Eq. 3", "4 work-groups");
    check_config(d, &dev, &c32, HT_EQ3_OFF, HT_OK, NULL, NULL);
    /* The boundary: exactly compute_units groups is enough. */
    dev.compute_units = 16;
    check_config(d, &dev, &c16, HT_EQ3_PRODUCT, HT_OK, NULL, NULL);
    dev.compute_units = 17;
    check_config(d, &dev, &c16, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "Eq. 3", "16 work-groups");

    /* With the local size left open, none of the local-size rules applies. */
    dev.compute_units = 1000;
    dev.max_work_group_size = 1;
    check_config(&open->space, &dev, &c32, HT_EQ3_PRODUCT, HT_OK, NULL, NULL);
    check_config(&open->space, &dev, &c32, HT_EQ3_SUM, HT_OK, NULL, NULL);
    ht_spec_free(spec);
    ht_spec_free(open);
}

static void test_constraints(void **state)
{
    struct ht_spec *spec = load_sections(
        "\"sizes\": {\"N\": 100},\n"
        "\"params\": {\"T\": {\"range\": [1, 10]}, \"U\": {\"range\": [0, 10]}},\n"
        "\"ndrange\": {\"global\": [\"N\"]},\n"
        "\"constraints\": [\"N % T == 0\", \"N / (U - 4) > 0\", \"U == 0 || N / U > 10\","
        "                 \"is_gpu || T == 1\"]");
    const struct ht_space_def *d = &spec->space;
    struct ht_device_info dev;
    (void)state;

    fake_device(&dev);
    {
        int64_t c[] = {5, 5};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_OK, NULL, NULL);
    }
    {
        int64_t c[] = {3, 5};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "constraints[0]",
                     "'N % T == 0' does not hold (N = 100, T = 3)");
    }
    {
        /* Division by zero: invalid, with the reason, and no crash. */
        int64_t c[] = {5, 4};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "constraints[1]",
                     "division by zero");
    }
    {
        /* Short-circuit: U == 0 guards the division of the third constraint... */
        int64_t c[] = {5, 0};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "constraints[1]",
                     "'N / (U - 4) > 0' does not hold");
    }
    {
        int64_t c[] = {5, 10};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "constraints[2]",
                     "does not hold (N = 100, U = 10)");
    }
    /* ...and constraints read device variables. */
    dev.is_gpu = 0;
    {
        int64_t c[] = {5, 5};
        check_config(d, &dev, c, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "constraints[3]",
                     "(T = 5, is_gpu = 0)");
    }
    ht_spec_free(spec);
}

/* Rules that cannot be evaluated make the configuration invalid, whatever the rule. */
static void test_unevaluable_rules(void **state)
{
    struct ht_spec *spec = load_sections(
        "\"sizes\": {\"N\": 64},\n"
        "\"params\": {\"T\": {\"range\": [0, 64]}, \"S\": {\"range\": [1, \"N\"], \"step\": \"max_work_item_size_2 - 8\"}},\n"
        "\"ndrange\": {\"global\": [\"N\"], \"local\": [\"N / T\"]},\n"
        "\"local_mem\": \"log2(T - 1)\"");
    const struct ht_space_def *d = &spec->space;
    struct ht_device_info dev;
    (void)state;

    fake_device(&dev);
    dev.max_work_item_sizes[2] = 9;
    {
        int64_t c[] = {0, 1};
        check_config(d, &dev, c, HT_EQ3_OFF, HT_ECONSTRAINT, "ndrange.local[0]",
                     "division by zero");
    }
    {
        int64_t c[] = {1, 1};
        check_config(d, &dev, c, HT_EQ3_OFF, HT_ECONSTRAINT, "local memory",
                     "cannot be evaluated");
    }
    {
        int64_t c[] = {4, 1};
        check_config(d, &dev, c, HT_EQ3_OFF, HT_OK, NULL, NULL);
    }
    dev.max_work_item_sizes[2] = 8; /* the step becomes 0 */
    {
        int64_t c[] = {4, 1};
        check_config(d, &dev, c, HT_EQ3_OFF, HT_ECONSTRAINT, "params.S", "must be positive");
    }
    ht_spec_free(spec);
}

static void test_eq3_parse(void **state)
{
    enum ht_eq3 e = HT_EQ3_OFF;
    (void)state;

    assert_int_equal(ht_eq3_parse("product", &e), HT_OK);
    assert_int_equal(e, HT_EQ3_PRODUCT);
    assert_int_equal(ht_eq3_parse("sum", &e), HT_OK);
    assert_int_equal(e, HT_EQ3_SUM);
    assert_int_equal(ht_eq3_parse("off", &e), HT_OK);
    assert_int_equal(e, HT_EQ3_OFF);
    assert_int_equal(ht_eq3_parse("Sum", &e), HT_EINVAL);
    assert_int_equal(ht_eq3_parse("", &e), HT_EINVAL);
    assert_int_equal(ht_eq3_parse(NULL, &e), HT_EINVAL);
}

/* A def built by hand, the way a caller other than the spec module would. */
static void test_hand_built_def(void **state)
{
    struct ht_space_def def;
    struct ht_device_info dev;
    struct ht_error err;
    const char **names;
    int64_t config[1] = {8};
    (void)state;

    memset(&def, 0, sizeof def);
    def.nsizes = 1;
    def.size_names = malloc(sizeof *def.size_names);
    def.size_values = malloc(sizeof *def.size_values);
    def.size_names[0] = ht__strdup("N");
    def.size_values[0] = 40;
    def.nparams = 1;
    def.params = calloc(1, sizeof *def.params);
    def.params[0].name = ht__strdup("W");
    def.params[0].kind = HT_PARAM_VALUES;
    def.params[0].nvalues = 2;
    def.params[0].values = malloc(2 * sizeof(int64_t));
    def.params[0].values[0] = 8;
    def.params[0].values[1] = 16;
    names = malloc((2 + HT_DEVICE_NVARS) * sizeof *names);
    names[0] = def.size_names[0];
    names[1] = def.params[0].name;
    for (size_t v = 0; v < HT_DEVICE_NVARS; v++)
        names[2 + v] = ht_device_var_names[v];
    def.names.count = 2 + HT_DEVICE_NVARS;
    def.names.names = names;
    def.ndims = 1;
    ht_error_clear(&err);
    assert_int_equal(ht_expr_compile("N", &def.names, &def.global[0], &err), HT_OK);
    assert_int_equal(ht_expr_compile("W", &def.names, &def.local[0], &err), HT_OK);
    def.nconstraints = 1;
    def.constraints = calloc(1, sizeof *def.constraints);
    def.constraints[0].origin = ht__strdup("--constraint");
    assert_int_equal(ht_expr_compile("N % W == 0", &def.names, &def.constraints[0].expr, &err),
                     HT_OK);

    fake_device(&dev);
    dev.compute_units = 1;
    check_config(&def, &dev, config, HT_EQ3_PRODUCT, HT_OK, NULL, NULL);
    config[0] = 16;
    check_config(&def, &dev, config, HT_EQ3_PRODUCT, HT_ECONSTRAINT, "Eq. 2",
                 "global size 40 is not a multiple of local size 16 in dimension 0");
    ht_space_def_destroy(&def);
    assert_int_equal(def.nsizes, 0);
    assert_null(def.params);
    assert_null(def.names.names);
    assert_null(def.global[0]);
    ht_space_def_destroy(&def); /* a zeroed def may be destroyed again */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slots_and_vars),
        cmocka_unit_test(test_ndrange),
        cmocka_unit_test(test_param_domains),
        cmocka_unit_test(test_platform_rules),
        cmocka_unit_test(test_eq3_variants),
        cmocka_unit_test(test_constraints),
        cmocka_unit_test(test_unevaluable_rules),
        cmocka_unit_test(test_eq3_parse),
        cmocka_unit_test(test_hand_built_def),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
