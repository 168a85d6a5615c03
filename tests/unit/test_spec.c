/* Spec loading: every field of a good spec reaching the struct, defaults, size overrides,
 * assignments, configurations from assignments, the kernel argument count, and the
 * positions error reports point at. The malformed corpus is test_bad_specs.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hetune.h"
#include "spec/spec-internal.h"
#include "util/util.h"

/* tests/specs/good/NAME, found from $HETUNE_SOURCE_DIR or else from this file's path. */
static char *good_path(const char *name)
{
    const char *src = getenv("HETUNE_SOURCE_DIR");
    char *root, *path;

    if (src && src[0])
        return ht__asprintf("%s/tests/specs/good/%s", src, name);
    root = ht__dirname(__FILE__); /* tests/unit */
    path = ht__asprintf("%s/../specs/good/%s", root, name);
    free(root);
    return path;
}

static struct ht_spec *load_good(const char *name, const struct ht_size_override *ov,
                                 size_t nov)
{
    char *path = good_path(name);
    struct ht_spec *spec = NULL;
    struct ht_error err;
    char msg[4096];
    int rc;

    ht_error_clear(&err);
    rc = ht_spec_load(path, ov, nov, &spec, &err);
    if (rc != HT_OK) {
        ht_error_format(&err, msg, sizeof msg);
        print_error("%s\n", msg);
    }
    assert_int_equal(rc, HT_OK);
    assert_non_null(spec);
    assert_string_equal(spec->path, path);
    free(path);
    return spec;
}

/* A scratch folder holding kernel.cl and spec.json = text; loads it into *spec. */
struct scratch {
    char dir[64];
    char path[128];
};

static int load_text(struct scratch *s, const char *text, struct ht_spec **spec,
                     struct ht_error *err)
{
    char kpath[128];
    FILE *f;

    strcpy(s->dir, "/tmp/hetune-test-spec-XXXXXX");
    assert_non_null(mkdtemp(s->dir));
    snprintf(kpath, sizeof kpath, "%s/kernel.cl", s->dir);
    snprintf(s->path, sizeof s->path, "%s/spec.json", s->dir);
    f = fopen(kpath, "w");
    assert_non_null(f);
    fputs("__kernel void k(__global float *x) { x[get_global_id(0)] = 0; }\n", f);
    fclose(f);
    f = fopen(s->path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    ht_error_clear(err);
    return ht_spec_load(s->path, NULL, 0, spec, err);
}

static void scratch_remove(struct scratch *s)
{
    char kpath[128];
    snprintf(kpath, sizeof kpath, "%s/kernel.cl", s->dir);
    unlink(kpath);
    unlink(s->path);
    rmdir(s->dir);
}

static int64_t eval(const struct ht_expr *e, const int64_t *vars)
{
    int64_t v = -12345;
    assert_int_equal(ht_expr_eval(e, vars, &v), HT_OK);
    return v;
}

static void fake_device(struct ht_device_info *d)
{
    memset(d, 0, sizeof *d);
    d->max_work_group_size = 1024;
    d->max_work_item_sizes[0] = 64;
    d->max_work_item_sizes[1] = 1024;
    d->max_work_item_sizes[2] = 16;
    d->compute_units = 8;
    d->local_mem_size = 65536;
    d->is_cpu = 1;
}

static void test_full_spec(void **state)
{
    struct ht_spec *spec = load_good("full.json", NULL, 0);
    const struct ht_space_def *d = &spec->space;
    struct ht_device_info dev;
    int64_t vars[64];
    int64_t config[4] = {8, 2, 4, 2};
    (void)state;

    assert_string_equal(spec->name, "matmul");
    assert_non_null(strstr(spec->kernel_path, "specs/good/matmul.cl"));
    assert_string_equal(spec->kernel_name, "matmul_tiled");
    assert_string_equal(spec->kernel_options, "-cl-mad-enable");
    assert_non_null(strstr(spec->source, "__kernel void matmul_tiled"));
    assert_int_equal(spec->source_len, strlen(spec->source));
    assert_non_null(strstr(spec->dir, "specs/good"));

    /* Sizes, then parameters, in file order, then the device variables. */
    assert_int_equal(d->nsizes, 2);
    assert_string_equal(d->size_names[0], "N");
    assert_int_equal(d->size_values[0], 256);
    assert_string_equal(d->size_names[1], "M");
    assert_int_equal(d->size_values[1], 128);
    assert_int_equal(d->nparams, 4);
    assert_int_equal(d->names.count, 2 + 4 + HT_DEVICE_NVARS);
    assert_string_equal(d->names.names[0], "N");
    assert_string_equal(d->names.names[2], "TS");
    assert_string_equal(d->names.names[5], "VEC");
    assert_string_equal(d->names.names[6], "max_work_group_size");
    assert_string_equal(d->names.names[6 + HT_DEVVAR_IS_GPU], "is_gpu");
    assert_int_equal(ht_space_param_slot(d, 1), 3);
    assert_int_equal(ht_space_devvar_slot(d, HT_DEVVAR_COMPUTE_UNITS), 6 + 4);

    fake_device(&dev);
    assert_true(d->names.count <= 64);
    ht_space_vars(d, &dev, config, vars);
    assert_int_equal(vars[0], 256);
    assert_int_equal(vars[3], 2);
    assert_int_equal(vars[6 + HT_DEVVAR_MAX_WORK_ITEM_SIZE_0], 64);

    assert_string_equal(d->params[0].name, "TS");
    assert_int_equal(d->params[0].kind, HT_PARAM_VALUES);
    assert_int_equal(d->params[0].nvalues, 5);
    assert_int_equal(d->params[0].values[4], 16);
    assert_string_equal(d->params[1].name, "WPT");
    assert_int_equal(d->params[1].kind, HT_PARAM_RANGE);
    assert_int_equal(d->params[1].pow2, 1);
    assert_null(d->params[1].step);
    assert_int_equal(eval(d->params[1].lo, vars), 1);
    assert_int_equal(eval(d->params[1].hi, vars), 64); /* min(N, max_work_item_size_0) */
    assert_string_equal(d->params[2].name, "UNROLL");
    assert_int_equal(d->params[2].pow2, 0);
    assert_non_null(d->params[2].step);
    assert_int_equal(eval(d->params[2].step, vars), 3);
    assert_int_equal(eval(d->params[2].hi, vars), 8);
    assert_string_equal(d->params[3].name, "VEC");

    assert_int_equal(d->ndims, 2);
    assert_string_equal(ht_expr_source(d->global[0]), "N");
    assert_string_equal(ht_expr_source(d->global[1]), "M");
    assert_null(d->global[2]);
    assert_string_equal(ht_expr_source(d->local[1]), "TS");
    assert_null(d->local[2]);
    assert_int_equal(eval(d->local_mem, vars), 2 * 8 * 8 * 4);
    assert_int_equal(d->nconstraints, 2);
    assert_string_equal(d->constraints[1].origin, "constraints[1]");
    assert_string_equal(ht_expr_source(d->constraints[1].expr), "M % (TS * WPT) == 0");

    assert_int_equal(spec->nargs, 6);
    assert_string_equal(spec->args[0].name, "A");
    assert_int_equal(spec->args[0].type, HT_TYPE_FLOAT);
    assert_true(spec->args[0].is_buffer);
    assert_int_equal(spec->args[0].naxes, 2);
    assert_int_equal(spec->args[0].access, HT_ACCESS_READ);
    assert_int_equal(spec->args[0].init, HT_INIT_IOTA);
    assert_true(spec->args[0].has_index);
    assert_int_equal(spec->args[0].index[0].dim, 1);
    assert_int_equal(spec->args[0].index[1].dim, -1);
    assert_null(spec->args[0].index[0].halo);

    assert_int_equal(spec->args[1].type, HT_TYPE_DOUBLE);
    assert_int_equal(spec->args[1].naxes, 1);
    assert_int_equal(eval(spec->args[1].shape[0], vars), 129);
    assert_int_equal(spec->args[1].access, HT_ACCESS_READWRITE);
    assert_int_equal(spec->args[1].init, HT_INIT_FILE);
    assert_non_null(strstr(spec->args[1].init_path, "specs/good/data/b.bin"));
    assert_int_equal(access(spec->args[1].init_path, R_OK), 0);
    assert_int_equal(spec->args[1].index[0].dim, 0);
    assert_int_equal(eval(spec->args[1].index[0].halo, vars), 7);

    assert_int_equal(spec->args[2].access, HT_ACCESS_WRITE);
    assert_int_equal(spec->args[2].index[0].dim, 1);
    assert_int_equal(spec->args[2].index[1].dim, 0);

    assert_int_equal(spec->args[3].type, HT_TYPE_UCHAR);
    assert_int_equal(spec->args[3].init, HT_INIT_ZERO);
    assert_false(spec->args[3].has_index);
    assert_int_equal(eval(spec->args[3].shape[0], vars), 16);

    assert_false(spec->args[4].is_buffer);
    assert_int_equal(spec->args[4].type, HT_TYPE_INT);
    assert_int_equal(eval(spec->args[4].value, vars), 256);
    assert_int_equal(spec->args[5].type, HT_TYPE_ULONG);
    assert_int_equal(eval(spec->args[5].value, vars), 7);

    /* The reference is stored in parameter order, whatever order the file gives. */
    assert_int_equal(spec->verify, HT_VERIFY_CONFIG);
    assert_int_equal(spec->reference[0], 1);
    assert_int_equal(spec->reference[1], 4);
    assert_int_equal(spec->reference[2], 1);
    assert_int_equal(spec->reference[3], 2);
    assert_null(spec->reference_kernel);
    assert_true(spec->rtol == 1e-4);
    assert_true(spec->atol == 0.0);
    assert_int_equal(spec->repeats, 20);
    assert_int_equal(spec->keep_best, 7);
    assert_int_equal(spec->adaptive, 0);
    assert_int_equal(spec->min_repeats, 4);
    assert_true(spec->precision == 0.05 && spec->margin == 0.5);
    assert_int_equal(eval(spec->flops, vars), 2 * 256 * 256 * 128);
    assert_int_equal(eval(spec->bytes, vars), 4 * (256 * 128 * 2 + 128));
    ht_spec_free(spec);
}

static void test_minimal_defaults(void **state)
{
    struct ht_spec *spec = load_good("minimal.json", NULL, 0);
    (void)state;

    assert_string_equal(spec->kernel_options, "");
    assert_int_equal(spec->space.nparams, 0);
    assert_int_equal(spec->space.names.count, 1 + HT_DEVICE_NVARS);
    assert_int_equal(spec->space.ndims, 1);
    assert_null(spec->space.local[0]);
    assert_null(spec->space.local_mem);
    assert_int_equal(spec->space.nconstraints, 0);
    assert_int_equal(spec->verify, HT_VERIFY_NONE);
    assert_null(spec->reference);
    assert_true(spec->rtol == 1e-5);
    assert_true(spec->atol == 1e-6);
    assert_int_equal(spec->repeats, 10);
    assert_int_equal(spec->keep_best, 5);
    assert_int_equal(spec->adaptive, 1);
    assert_int_equal(spec->min_repeats, HT_TIMING_MIN_REPEATS);
    assert_true(spec->precision == HT_TIMING_PRECISION && spec->margin == HT_TIMING_MARGIN);
    assert_null(spec->flops);
    assert_null(spec->bytes);
    assert_int_equal(spec->args[0].init, HT_INIT_RANDOM);
    ht_spec_free(spec);
    ht_spec_free(NULL);
}

static void test_reference_kernel(void **state)
{
    struct ht_spec *spec = load_good("refkernel.json", NULL, 0);
    (void)state;

    assert_int_equal(spec->verify, HT_VERIFY_KERNEL);
    assert_string_equal(spec->reference_kernel, "scale_ref");
    assert_null(spec->reference);
    assert_true(spec->atol == 1e-3);
    assert_true(spec->rtol == 1e-5);
    /* keep_best defaults to 5 but never more than repeats. */
    assert_int_equal(spec->repeats, 3);
    assert_int_equal(spec->keep_best, 3);
    ht_spec_free(spec);
}

static void test_size_overrides(void **state)
{
    struct ht_size_override ov[] = {{"M", 64}, {"N", 512}};
    struct ht_size_override bad[] = {{"N", 512}, {"Q", 3}};
    struct ht_size_override zero[] = {{"N", 0}};
    struct ht_spec *spec = load_good("full.json", ov, 2);
    struct ht_error err;
    char *path = good_path("full.json");
    char msg[4096];
    (void)state;

    assert_int_equal(spec->space.size_values[0], 512);
    assert_int_equal(spec->space.size_values[1], 64);
    ht_spec_free(spec);
    spec = NULL;

    ht_error_clear(&err);
    assert_int_equal(ht_spec_load(path, bad, 2, &spec, &err), HT_EINVAL);
    assert_null(spec);
    assert_string_equal(err.text, "unknown size 'Q' in --size");
    assert_string_equal(err.file, path);
    assert_int_equal(ht_present_exit_status(err.code), 2);

    /* Overrides apply before validation: N = 0 makes the NDRange empty. */
    ht_error_clear(&err);
    assert_int_equal(ht_spec_load(path, zero, 1, &spec, &err), HT_ESPEC);
    ht_error_format(&err, msg, sizeof msg);
    assert_string_equal(err.field, "ndrange.global[0]");
    assert_non_null(strstr(msg, "must be positive"));
    free(path);
}

static void test_unreadable_spec(void **state)
{
    struct ht_spec *spec = (struct ht_spec *)&spec; /* must be reset to NULL */
    struct ht_error err;
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(ht_spec_load("/nonexistent/spec.json", NULL, 0, &spec, &err), HT_EIO);
    assert_null(spec);
    assert_string_equal(err.file, "/nonexistent/spec.json");
    assert_int_equal(ht_present_exit_status(err.code), 1);
}

/* The line and column of an expression error point at the character, escapes included. */
static void test_expression_position(void **state)
{
    static const char text[] =
        "{\n"
        "  \"name\": \"p\",\n"
        "  \"kernel\": {\"file\": \"kernel.cl\", \"name\": \"k\"},\n"
        "  \"sizes\": {\"N\": 8},\n"
        "  \"ndrange\": {\"global\": [\"N\"]},\n"
        "  \"constraints\": [\"N \\u003e 1\", \"N \\u003e 1 && TZ\"],\n"
        "  \"args\": [{\"name\": \"x\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"write\"}]\n"
        "}\n";
    struct scratch s;
    struct ht_spec *spec = NULL;
    struct ht_error err;
    char msg[4096], want[256];
    (void)state;

    assert_int_equal(load_text(&s, text, &spec, &err), HT_EEXPR);
    assert_null(spec);
    assert_string_equal(err.file, s.path);
    assert_string_equal(err.field, "constraints[1]");
    /* "N > 1 && TZ": TZ is the 10th character; the string opens at column 33 of line 6
     * and its \u003e takes six bytes in the file. */
    assert_int_equal(err.line, 6);
    assert_int_equal(err.column, 48);
    ht_error_format(&err, msg, sizeof msg);
    snprintf(want, sizeof want, "%s:6:48: constraints[1]: unknown name 'TZ'", s.path);
    assert_non_null(strstr(msg, want));
    scratch_remove(&s);
}

static void test_errors_name_file_and_field(void **state)
{
    static const char text[] =
        "{\"name\": \"p\", \"kernel\": {\"file\": \"kernel.cl\", \"name\": \"k\"},\n"
        " \"ndrange\": {\"global\": [8]},\n"
        " \"args\": [{\"name\": \"x\", \"type\": \"float\", \"shape\": [8], \"access\": \"wirte\"}]}";
    struct scratch s;
    struct ht_spec *spec = NULL;
    struct ht_error err;
    (void)state;

    assert_int_equal(load_text(&s, text, &spec, &err), HT_ESPEC);
    assert_string_equal(err.file, s.path);
    assert_string_equal(err.field, "args[0].access");
    assert_int_equal(err.line, 3);
    assert_int_equal(err.column, 66);
    assert_non_null(strstr(err.text, "unknown access 'wirte'"));
    assert_non_null(strstr(err.text, "did you mean 'write'?"));
    scratch_remove(&s);
}

/* A good spec written inline: ranges over device variables are not checked for being
 * reversed (the device decides), and parameters of one literal value may be left out. */
static void test_device_bounds_and_literals(void **state)
{
    static const char text[] =
        "{\"name\": \"p\", \"kernel\": {\"file\": \"kernel.cl\", \"name\": \"k\"},\n"
        " \"sizes\": {\"N\": 8},\n"
        " \"params\": {\"A\": {\"range\": [\"max_work_group_size\", 1]},\n"
        "            \"B\": {\"values\": [5]}, \"C\": {\"range\": [3, 3]},\n"
        "            \"D\": {\"range\": [1, \"N\"], \"step\": \"N / 4\", \"pow2\": false}},\n"
        " \"ndrange\": {\"global\": [8]},\n"
        " \"args\": [{\"name\": \"x\", \"type\": \"float\", \"shape\": [8], \"access\": \"write\"}]}";
    const char *const ok[] = {"A=3", "D=0x3"};
    const char *const missing[] = {"A=3"};
    const char *const unknown[] = {"A=3", "D=1", "E=2"};
    const char *const twice[] = {"A=3", "D=1", "A=4"};
    const char *const malformed[] = {"A=3", "D"};
    const char *const all[] = {"C=4", "B=6", "D=1", "A=-2"};
    struct scratch s;
    struct ht_spec *spec = NULL;
    struct ht_error err;
    int64_t config[4] = {0, 0, 0, 0};
    (void)state;

    assert_int_equal(load_text(&s, text, &spec, &err), HT_OK);
    assert_int_equal(spec->space.nparams, 4);
    assert_int_equal(ht__spec_param_index(spec, "C"), 2);
    assert_int_equal(ht__spec_param_index(spec, "D"), 3);
    assert_int_equal(ht__spec_param_index(spec, "Z"), -1);

    ht_error_clear(&err);
    assert_int_equal(ht_spec_config_from_assignments(spec, ok, 2, config, &err), HT_OK);
    assert_int_equal(config[0], 3);
    assert_int_equal(config[1], 5);
    assert_int_equal(config[2], 3);
    assert_int_equal(config[3], 3);

    /* Given values win over the literal, even out of the domain (the check comes later). */
    assert_int_equal(ht_spec_config_from_assignments(spec, all, 4, config, &err), HT_OK);
    assert_int_equal(config[0], -2);
    assert_int_equal(config[1], 6);
    assert_int_equal(config[2], 4);
    assert_int_equal(config[3], 1);

    assert_int_equal(ht_spec_config_from_assignments(spec, missing, 1, config, &err),
                     HT_EINVAL);
    assert_non_null(strstr(err.text, "'D'"));
    ht_error_clear(&err);
    assert_int_equal(ht_spec_config_from_assignments(spec, unknown, 3, config, &err),
                     HT_EINVAL);
    assert_string_equal(err.text, "unknown parameter 'E'");
    ht_error_clear(&err);
    assert_int_equal(ht_spec_config_from_assignments(spec, twice, 3, config, &err), HT_EINVAL);
    assert_string_equal(err.text, "parameter 'A' is given twice");
    ht_error_clear(&err);
    assert_int_equal(ht_spec_config_from_assignments(spec, malformed, 2, config, &err),
                     HT_EINVAL);
    assert_non_null(strstr(err.text, "NAME=VALUE"));
    ht_spec_free(spec);
    scratch_remove(&s);
}

/* A parameter with one value, whatever the device, needs no value in a reference or from
 * --set: a list of one, a range over sizes with lo == hi, one step or one power of two. */
static void test_single_value_params(void **state)
{
    static const char text[] =
        "{\"name\": \"p\", \"kernel\": {\"file\": \"kernel.cl\", \"name\": \"k\"},\n"
        " \"sizes\": {\"N\": 512, \"M\": 100},\n"
        " \"params\": {\"W\": {\"range\": [\"N\", \"N\"]},\n"
        "            \"P\": {\"range\": [3, 7], \"pow2\": true},\n"
        "            \"S\": {\"range\": [\"M\", \"M + 5\"], \"step\": 10},\n"
        "            \"Q\": {\"range\": [1, \"N\"], \"pow2\": true},\n"
        "            \"R\": {\"range\": [\"max_work_group_size\", \"max_work_group_size\"]},\n"
        "            \"V\": {\"values\": [7]}},\n"
        " \"ndrange\": {\"global\": [8]},\n"
        " \"args\": [{\"name\": \"x\", \"type\": \"float\", \"shape\": [8], \"access\": \"write\"}],\n"
        " \"verify\": {\"reference\": {\"Q\": 4, \"R\": \"N / 8\"}}}";
    static const char *const bad[][2] = {
        {"{\"Q\": 4}", "misses parameter 'R'"},
        {"{\"Q\": 4, \"R\": \"Q\"}", "may use sizes only"},
        {"{\"Q\": 4, \"R\": [1]}", "must be an integer or an expression over sizes"},
        {"{\"Q\": 4, \"R\": \"N / 0\"}", "cannot be evaluated"},
    };
    const char *const set[] = {"Q=8", "R=16"};
    const char *const only_q[] = {"Q=8"};
    struct ht_size_override ov[] = {{"N", 1024}};
    struct scratch s;
    struct ht_spec *spec = NULL;
    struct ht_error err;
    int64_t config[6];
    char *t;
    (void)state;

    assert_int_equal(load_text(&s, text, &spec, &err), HT_OK);
    assert_int_equal(spec->verify, HT_VERIFY_CONFIG);
    /* W P S Q R V, in the spec's order. */
    assert_int_equal(spec->reference[0], 512);
    assert_int_equal(spec->reference[1], 4);
    assert_int_equal(spec->reference[2], 100);
    assert_int_equal(spec->reference[3], 4);
    assert_int_equal(spec->reference[4], 64);
    assert_int_equal(spec->reference[5], 7);
    ht_error_clear(&err);
    assert_int_equal(ht_spec_config_from_assignments(spec, set, 2, config, &err), HT_OK);
    assert_int_equal(config[0], 512);
    assert_int_equal(config[1], 4);
    assert_int_equal(config[2], 100);
    assert_int_equal(config[3], 8);
    assert_int_equal(config[4], 16);
    assert_int_equal(config[5], 7);
    /* A bound on a device variable is known per device only: R still needs a value. */
    assert_int_equal(ht_spec_config_from_assignments(spec, only_q, 1, config, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "'R'"));
    ht_spec_free(spec);
    spec = NULL;

    /* A --size moves the one value with it, in the reference and in a configuration. */
    ht_error_clear(&err);
    assert_int_equal(ht_spec_load(s.path, ov, 1, &spec, &err), HT_OK);
    assert_int_equal(spec->reference[0], 1024);
    assert_int_equal(spec->reference[4], 128);
    assert_int_equal(ht_spec_config_from_assignments(spec, set, 2, config, &err), HT_OK);
    assert_int_equal(config[0], 1024);
    ht_spec_free(spec);
    spec = NULL;
    scratch_remove(&s);

    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const char *at = strstr(text, "{\"Q\": 4, \"R\": \"N / 8\"}");
        assert_non_null(at);
        t = ht__asprintf("%.*s%s}}", (int)(at - text), text, bad[k][0]);
        assert_non_null(t);
        assert_int_not_equal(load_text(&s, t, &spec, &err), HT_OK);
        assert_null(spec);
        if (!strstr(err.text, bad[k][1]))
            fail_msg("reference %s: '%s' lacks '%s'", bad[k][0], err.text, bad[k][1]);
        assert_int_equal(ht_present_exit_status(err.code), 2);
        scratch_remove(&s);
        free(t);
    }
}

/* Names a -D would turn against OpenCL C, and names that only look like them. */
static void test_reserved_names(void **state)
{
    static const char *const reserved[] = {
        "read_only", "__read_only", "write_only", "read_write", "kernel", "__kernel", "global",
        "__local", "constant", "private", "int", "while", "sizeof", "float4", "uchar16",
        "double3", "size_t", "half", "uint", "image2d_t", "get_global_id", "get_group_id",
        "barrier", "mad", "convert_float4_sat", "convert_int", "convert_uchar_rte", "as_uint",
        "as_float2", "vload4", "vstore_half", "native_sin", "half_exp", "atom_add", "__N",
        "CLK_LOCAL_MEM_FENCE", "FLT_MAX", "M_PI"};
    static const char *const allowed[] = {
        "N", "TS", "WG", "half_width", "as_rows", "convert", "converted", "vec", "local_size",
        "floats", "float5", "kernels", "global_n", "_N", "MAX", "vloader", "atom_x",
        "native", "read", "WIDTH", "sizes", "get", "K"};
    (void)state;

    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
        if (!ht__opencl_reserved(reserved[i]))
            fail_msg("'%s' is not refused", reserved[i]);
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
        if (ht__opencl_reserved(allowed[i]))
            fail_msg("'%s' is refused as %s", allowed[i], ht__opencl_reserved(allowed[i]));
    assert_string_equal(ht__opencl_reserved("read_only"), "an OpenCL C keyword");
    assert_string_equal(ht__opencl_reserved("float4"), "an OpenCL C type name");
}

static void test_parse_assignment(void **state)
{
    static const struct {
        const char *s;
        const char *name;
        int64_t value;
    } good[] = {
        {"TS=16", "TS", 16},
        {"TS=0x10", "TS", 16},
        {"_a1=0XfF", "_a1", 255},
        {"N=-3", "N", -3},
        {"N=+3", "N", 3},
        {"N=0", "N", 0},
        {"N=010", "N", 10},
        {"BIG=9223372036854775807", "BIG", INT64_MAX},
        {"SMALL=-9223372036854775808", "SMALL", INT64_MIN},
    };
    static const char *const bad[] = {
        "TS", "=3", "TS=", "TS=abc", "TS=1.5", "TS=99999999999999999999", "1TS=3", "TS=0x",
        "TS= 3", "T S=3", "TS=3x", "BIG=9223372036854775808", "TS=--3", "TS=-0x",
    };
    (void)state;

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct ht_error err;
        const char *name = NULL;
        size_t len = 0;
        int64_t v = 0;

        ht_error_clear(&err);
        assert_int_equal(ht_parse_assignment(good[i].s, &name, &len, &v, &err), HT_OK);
        assert_ptr_equal(name, good[i].s);
        assert_int_equal(len, strlen(good[i].name));
        assert_memory_equal(name, good[i].name, len);
        assert_true(v == good[i].value);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct ht_error err;
        const char *name = NULL;
        size_t len = 0;
        int64_t v = 0;

        ht_error_clear(&err);
        if (ht_parse_assignment(bad[i], &name, &len, &v, &err) != HT_EINVAL)
            fail_msg("'%s' was accepted", bad[i]);
        assert_int_equal(err.code, HT_EINVAL);
        assert_true(err.text[0] != '\0');
    }
}

static void test_kernel_args(void **state)
{
    struct ht_spec *spec = load_good("full.json", NULL, 0);
    struct ht_error err;
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(ht_spec_check_kernel_args(spec, 6, &err), HT_OK);
    assert_int_equal(err.code, 0);
    assert_int_equal(ht_spec_check_kernel_args(spec, 7, &err), HT_ESPEC);
    assert_string_equal(err.field, "args");
    assert_string_equal(err.file, spec->path);
    assert_string_equal(err.text,
                        "the spec lists 6 arguments but kernel 'matmul_tiled' takes 7");
    assert_int_equal(ht_present_exit_status(err.code), 2);
    ht_spec_free(spec);
}

static void test_types(void **state)
{
    enum ht_type t;
    (void)state;

    for (int i = 0; i < HT_NTYPES; i++) {
        assert_int_equal(ht__type_parse(ht_type_name((enum ht_type)i), &t), HT_OK);
        assert_int_equal(t, i);
    }
    assert_int_equal(ht__type_parse("flaot", &t), HT_EINVAL);
    assert_int_equal(ht__type_parse("", &t), HT_EINVAL);
    assert_string_equal(ht_type_name(HT_TYPE_USHORT), "ushort");
    assert_int_equal(ht_type_size(HT_TYPE_CHAR), 1);
    assert_int_equal(ht_type_size(HT_TYPE_SHORT), 2);
    assert_int_equal(ht_type_size(HT_TYPE_FLOAT), 4);
    assert_int_equal(ht_type_size(HT_TYPE_ULONG), 8);
    assert_int_equal(ht_type_size(HT_TYPE_DOUBLE), 8);
    assert_true(ht_type_is_float(HT_TYPE_DOUBLE));
    assert_false(ht_type_is_float(HT_TYPE_LONG));
    assert_true(ht_type_is_signed(HT_TYPE_INT));
    assert_false(ht_type_is_signed(HT_TYPE_UINT));
    assert_true(ht_type_is_signed(HT_TYPE_FLOAT));
}

static void test_locate(void **state)
{
    static const char t[] = "{\"a\": [1, {\"b\\\"c\": \"x\\ny\"}, [2]],\n \"d\": {\"e\": true}}";
    struct ht__json_seg p1[] = {{"a", 0}, {NULL, 1}, {"b\"c", 0}};
    struct ht__json_seg p2[] = {{"d", 0}, {"e", 0}};
    struct ht__json_seg p3[] = {{"d", 0}, {"nope", 0}};
    struct ht__json_seg p4[] = {{"a", 0}, {NULL, 2}, {NULL, 0}};
    size_t len = strlen(t), off;
    int line, col;
    (void)state;

    off = ht__json_locate(t, len, p1, 3, 0);
    assert_int_equal(t[off], '"');
    assert_memory_equal(t + off, "\"x\\ny\"", 6);
    /* Column 3 of "x\ny" is the y, after a two-byte escape. */
    assert_int_equal(t[ht__json_string_offset(t, len, off, 3)], 'y');
    assert_int_equal(ht__json_string_offset(t, len, off, 99), off + 5);
    assert_int_equal(ht__json_string_offset(t, len, off - 1, 1), (size_t)-1);
    off = ht__json_locate(t, len, p1, 3, 1);
    assert_memory_equal(t + off, "\"b\\\"c\"", 6);
    off = ht__json_locate(t, len, p2, 2, 0);
    assert_memory_equal(t + off, "true", 4);
    ht__line_col(t, len, off, &line, &col);
    assert_int_equal(line, 2);
    assert_int_equal(col, 13);
    /* A missing key gives the object that lacks it. */
    off = ht__json_locate(t, len, p3, 2, 0);
    assert_memory_equal(t + off, "{\"e\"", 4);
    off = ht__json_locate(t, len, p4, 3, 0);
    assert_int_equal(t[off], '2');
    assert_int_equal(ht__json_locate(t, len, NULL, 0, 0), 0);
}

static void test_suggestions(void **state)
{
    static const char *const words[] = {"constraints", "range", "repeats", "hi", "lo"};
    (void)state;

    assert_int_equal(ht__edit_distance("constriants", "constraints"), 1);
    assert_int_equal(ht__edit_distance("", "abc"), 3);
    assert_int_equal(ht__edit_distance("kitten", "sitting"), 3);
    assert_string_equal(ht_closest_word("constriants", words, 5), "constraints");
    assert_string_equal(ht_closest_word("rnage", words, 5), "range");
    assert_string_equal(ht_closest_word("repeat", words, 5), "repeats");
    assert_null(ht_closest_word("lo2", words, 3));
    assert_null(ht_closest_word("hx", words, 5));
    assert_null(ht_closest_word("completely", words, 5));
}

/* A folder given as the spec is refused as such (fopen succeeds on a folder, and its
 * fseek/ftell "size" once made this "out of memory", exit 1). */
static void test_spec_is_a_folder(void **state)
{
    char dir[64] = "/tmp/hetune-test-spec-XXXXXX";
    struct ht_spec *spec = (struct ht_spec *)&spec; /* must be reset to NULL */
    struct ht_error err;
    char msg[4096], want[128];
    (void)state;

    assert_non_null(mkdtemp(dir));
    ht_error_clear(&err);
    assert_int_equal(ht_spec_load(dir, NULL, 0, &spec, &err), HT_EINVAL);
    assert_null(spec);
    assert_string_equal(err.file, dir);
    assert_int_equal(ht_present_exit_status(err.code), 2);
    ht_error_format(&err, msg, sizeof msg);
    snprintf(want, sizeof want, "%s: is a directory", dir);
    assert_string_equal(msg, want);
    rmdir(dir);
}

/* Writes a spec whose parameter U lists n values (value i is i + 1, except that the value
 * at index dup_at repeats the one at index dup_of when dup_at < n) and loads it. */
static int load_values_spec(struct scratch *s, size_t n, size_t dup_at, size_t dup_of,
                            struct ht_spec **spec, struct ht_error *err)
{
    size_t cap = 64 * 1024 + n * 12, len = 0;
    char *text = malloc(cap);
    int rc;

    assert_non_null(text);
    len += (size_t)snprintf(text + len, cap - len,
                            "{\"name\": \"p\", \"kernel\": {\"file\": \"kernel.cl\", \"name\": \"k\"},\n"
                            " \"params\": {\"U\": {\"values\": [");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s%zu", i ? "," : "",
                                i == dup_at ? dup_of + 1 : i + 1);
    snprintf(text + len, cap - len,
             "]}},\n \"ndrange\": {\"global\": [8]},\n"
             " \"args\": [{\"name\": \"x\", \"type\": \"float\", \"shape\": [8], \"access\": \"write\"}]}\n");
    rc = load_text(s, text, spec, err);
    free(text);
    return rc;
}

/* The duplicate check of `values` names the first value, in the array's order, that
 * repeats an earlier one, and takes O(n log n): 200,000 values once took seconds. */
static void test_values_duplicates(void **state)
{
    struct scratch s;
    struct ht_spec *spec = NULL;
    struct ht_device_info dev;
    struct ht_error err;
    struct timespec t0, t1;
    double seconds;
    (void)state;

    /* [1, 2, 3, 2, 5, 1]: index 3 repeats first (index 5 repeats an earlier value too). */
    assert_int_equal(load_text(&s,
                               "{\"name\": \"p\", \"kernel\": {\"file\": \"kernel.cl\", \"name\": \"k\"},\n"
                               " \"params\": {\"U\": {\"values\": [1, 2, 3, 2, 5, 1]}},\n"
                               " \"ndrange\": {\"global\": [8]},\n"
                               " \"args\": [{\"name\": \"x\", \"type\": \"float\", \"shape\": [8], "
                               "\"access\": \"write\"}]}\n",
                               &spec, &err),
                     HT_ESPEC);
    assert_string_equal(err.field, "params.U.values[3]");
    assert_string_equal(err.text, "value 2 appears twice in 'U'");
    scratch_remove(&s);
    /* A repeat before a non-integer is the first error; a non-integer before a repeat is. */
    assert_int_equal(load_text(&s,
                               "{\"name\": \"p\", \"kernel\": {\"file\": \"kernel.cl\", \"name\": \"k\"},\n"
                               " \"params\": {\"U\": {\"values\": [4, 4, \"x\", 5, 5]}},\n"
                               " \"ndrange\": {\"global\": [8]},\n"
                               " \"args\": [{\"name\": \"x\", \"type\": \"float\", \"shape\": [8], "
                               "\"access\": \"write\"}]}\n",
                               &spec, &err),
                     HT_ESPEC);
    assert_string_equal(err.field, "params.U.values[1]");
    scratch_remove(&s);
    assert_int_equal(load_text(&s,
                               "{\"name\": \"p\", \"kernel\": {\"file\": \"kernel.cl\", \"name\": \"k\"},\n"
                               " \"params\": {\"U\": {\"values\": [4, \"x\", 4]}},\n"
                               " \"ndrange\": {\"global\": [8]},\n"
                               " \"args\": [{\"name\": \"x\", \"type\": \"float\", \"shape\": [8], "
                               "\"access\": \"write\"}]}\n",
                               &spec, &err),
                     HT_ESPEC);
    assert_string_equal(err.field, "params.U.values[1]");
    assert_non_null(strstr(err.text, "must be an integer"));
    scratch_remove(&s);

    /* 200,000 values: a repeat near the end is found, and quickly. */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(load_values_spec(&s, 200000, 199990, 7, &spec, &err), HT_ESPEC);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_string_equal(err.field, "params.U.values[199990]");
    assert_string_equal(err.text, "value 8 appears twice in 'U'");
    scratch_remove(&s);
    seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    /* About 0.1 s on two busy cores (ASan included: 0.3 s); the quadratic check took 5 s. */
    if (seconds > 2.0)
        fail_msg("loading 200,000 values took %.2f s", seconds);

    /* Without a repeat, the values stay in their order and a sorted copy serves checks. */
    assert_int_equal(load_values_spec(&s, 200000, 200000, 0, &spec, &err), HT_OK);
    assert_int_equal(spec->space.params[0].nvalues, 200000);
    assert_non_null(spec->space.params[0].sorted);
    for (size_t i = 0; i < 200000; i++)
        assert_int_equal(spec->space.params[0].sorted[i], (int64_t)i + 1);
    fake_device(&dev);
    for (int64_t u = -1; u <= 200002; u += 1 + (u > 3 && u < 199990) * 997) {
        ht_error_clear(&err);
        assert_int_equal(ht_space_check(&spec->space, &dev, &u, HT_EQ3_OFF, &err),
                         u >= 1 && u <= 200000 ? HT_OK : HT_ECONSTRAINT);
        if (err.code)
            assert_string_equal(err.field, "params.U");
    }
    ht_spec_free(spec);
    scratch_remove(&s);
}

/* Buffer sizes: an overflowing product is refused at load naming the shape; a buffer past
 * the device's max_mem_alloc_size by ht_spec_check_device, naming the shape and the limit.
 * Shapes that use a parameter are left to each configuration. */
static void test_buffer_sizes(void **state)
{
    static const char overflow[] =
        "{\"name\": \"p\", \"kernel\": {\"file\": \"kernel.cl\", \"name\": \"k\"},\n"
        " \"sizes\": {\"M\": 4294967296},\n"
        " \"ndrange\": {\"global\": [8]},\n"
        " \"args\": [{\"name\": \"x\", \"type\": \"float\", \"shape\": [\"M\", \"M\"], \"access\": \"write\"}]}\n";
    static const char large[] =
        "{\"name\": \"p\", \"kernel\": {\"file\": \"kernel.cl\", \"name\": \"k\"},\n"
        " \"sizes\": {\"N\": 8, \"M\": 268435456},\n"
        " \"params\": {\"P\": {\"values\": [1, 4]}},\n"
        " \"ndrange\": {\"global\": [8]},\n"
        " \"args\": [{\"name\": \"x\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"write\"},\n"
        "          {\"name\": \"y\", \"type\": \"float\", \"shape\": [\"N * P\", \"M\"], \"access\": \"read\"},\n"
        "          {\"name\": \"z\", \"type\": \"double\", \"shape\": [\"M\"], \"access\": \"read\"}]}\n";
    struct scratch s;
    struct ht_spec *spec = NULL;
    struct ht_device_info dev;
    struct ht_error err;
    int64_t vars[64] = {0};
    uint64_t bytes = 0, dims[3];
    char msg[4096];
    (void)state;

    /* 2^32 x 2^32 floats: 2^66 bytes. */
    assert_int_equal(load_text(&s, overflow, &spec, &err), HT_ESPEC);
    assert_null(spec);
    assert_string_equal(err.field, "args[0].shape");
    assert_int_equal(err.line, 4);
    assert_non_null(strstr(err.text, "4294967296 x 4294967296 float elements"));
    assert_non_null(strstr(err.text, "larger than 2^64 bytes"));
    scratch_remove(&s);

    assert_int_equal(load_text(&s, large, &spec, &err), HT_OK);
    fake_device(&dev);
    snprintf(dev.name, sizeof dev.name, "fake");
    /* z: 2^28 doubles, 2 GiB; y uses P and waits for a configuration. */
    dev.max_mem_alloc_size = UINT64_C(2) << 30;
    ht_error_clear(&err);
    assert_int_equal(ht_spec_check_device(spec, &dev, &err), HT_OK);
    dev.max_mem_alloc_size = UINT64_C(1) << 30;
    assert_int_equal(ht_spec_check_device(spec, &dev, &err), HT_ESPEC);
    assert_string_equal(err.file, s.path);
    assert_string_equal(err.field, "args[2].shape");
    assert_int_equal(ht_present_exit_status(err.code), 2);
    ht_error_format(&err, msg, sizeof msg);
    assert_non_null(strstr(msg, "buffer 'z' needs 2 GiB (2147483648 bytes), more than the "
                                "1 GiB (1073741824 bytes) device 'fake' allocates at once "
                                "(max_mem_alloc_size)"));

    /* y with P = 4: 8 * 4 x 2^28 floats, 32 GiB. */
    ht_space_vars(&spec->space, &dev, (const int64_t[]){4}, vars);
    ht_error_clear(&err);
    assert_int_equal(ht_spec_buffer_bytes(spec, 1, vars, &bytes, dims, &err), HT_OK);
    assert_true(bytes == UINT64_C(32) << 30);
    assert_true(dims[0] == 32 && dims[1] == (UINT64_C(1) << 28) && dims[2] == 1);
    assert_int_equal(ht_spec_buffer_bytes(spec, 3, vars, &bytes, NULL, &err), HT_EINVAL);
    ht_spec_free(spec);
    scratch_remove(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_spec),
        cmocka_unit_test(test_minimal_defaults),
        cmocka_unit_test(test_reference_kernel),
        cmocka_unit_test(test_size_overrides),
        cmocka_unit_test(test_unreadable_spec),
        cmocka_unit_test(test_spec_is_a_folder),
        cmocka_unit_test(test_values_duplicates),
        cmocka_unit_test(test_buffer_sizes),
        cmocka_unit_test(test_expression_position),
        cmocka_unit_test(test_errors_name_file_and_field),
        cmocka_unit_test(test_device_bounds_and_literals),
        cmocka_unit_test(test_single_value_params),
        cmocka_unit_test(test_reserved_names),
        cmocka_unit_test(test_parse_assignment),
        cmocka_unit_test(test_kernel_args),
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_locate),
        cmocka_unit_test(test_suggestions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
