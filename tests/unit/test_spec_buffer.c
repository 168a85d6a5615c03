/* Specs from memory (ht_spec_load_buffer) and the kernel's source in the spec
 * (kernel.source): the source given beside the JSON, inline or read against base_dir;
 * errors name "<string>" or the caller's name with the line and column in the JSON text;
 * the refusals (the source twice, file and source both, no source at all, NULL arguments);
 * a file spec with kernel.source. Pure: no OpenCL. */
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

static const char kernel[] =
    "__kernel void addvec(__global float *a, __global const float *b) { a[0] = b[0]; }\n";

/* A spec whose "kernel" object is kernel_json, an N of 64. */
static char *spec_text(const char *kernel_json)
{
    static const char fmt[] =
        "{\n"
        "  \"name\": \"mem\",\n"
        "  \"kernel\": %s,\n"
        "  \"sizes\": { \"N\": 64 },\n"
        "  \"ndrange\": { \"global\": [\"N\"], \"local\": [\"WG\"] },\n"
        "  \"params\": { \"WG\": { \"values\": [8, 16] } },\n"
        "  \"args\": [\n"
        "    { \"name\": \"a\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"write\", "
        "\"index\": [\"gx\"] },\n"
        "    { \"name\": \"b\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"read\" }\n"
        "  ]\n"
        "}\n";
    size_t n = sizeof fmt + strlen(kernel_json);
    char *s = malloc(n);
    assert_non_null(s);
    snprintf(s, n, fmt, kernel_json);
    return s;
}

static void test_source_beside(void **state)
{
    char *json = spec_text("{ \"name\": \"addvec\" }");
    struct ht_spec *spec = NULL;
    struct ht_size_override ov = {"N", 128};
    struct ht_error err;
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(ht_spec_load_buffer(
                         json, strlen(json),
                         &(struct ht_spec_buffer_opts){
                             .source = kernel, .source_len = strlen(kernel), .ov = &ov, .nov = 1},
                         &spec, &err),
                     HT_OK);
    assert_null(spec->path);
    assert_null(spec->dir);
    assert_string_equal(spec->name, "mem");
    assert_string_equal(spec->source, kernel);
    assert_int_equal(spec->source_len, strlen(kernel));
    assert_string_equal(spec->kernel_path, "<string>:kernel");
    assert_int_equal(spec->space.size_values[0], 128);
    ht_spec_free(spec);

    /* Lengths of 0: NUL-terminated texts; a kernel.file beside a given source names it. */
    free(json);
    json = spec_text("{ \"file\": \"k.cl\", \"name\": \"addvec\" }");
    assert_int_equal(
        ht_spec_load_buffer(
            json, 0,
            &(struct ht_spec_buffer_opts){.source = kernel, .name = "app", .base_dir = "/opt/app"},
            &spec, &err),
        HT_OK);
    assert_string_equal(spec->source, kernel);
    assert_string_equal(spec->kernel_path, "/opt/app/k.cl");
    assert_string_equal(spec->dir, "/opt/app");
    ht_spec_free(spec);
    free(json);
}

static void test_source_inline(void **state)
{
    char *json = spec_text("{ \"name\": \"addvec\", \"source\": \"__kernel void addvec("
                           "__global float *a, __global const float *b) {}\" }");
    struct ht_spec *spec = NULL;
    struct ht_error err;
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(
        ht_spec_load_buffer(json, 0, &(struct ht_spec_buffer_opts){.name = "inline"}, &spec, &err),
        HT_OK);
    assert_non_null(strstr(spec->source, "__kernel void addvec("));
    assert_string_equal(spec->kernel_path, "inline:kernel.source");
    ht_spec_free(spec);

    /* The source both inline and given. */
    assert_int_equal(
        ht_spec_load_buffer(json, 0, &(struct ht_spec_buffer_opts){.source = kernel}, &spec, &err),
        HT_ESPEC);
    assert_null(spec);
    assert_string_equal(err.file, "<string>");
    assert_string_equal(err.field, "kernel.source");
    assert_int_equal(err.line, 3);
    assert_non_null(strstr(err.text, "given twice"));
    free(json);
}

static void test_file_against_base_dir(void **state)
{
    char dir[] = "/tmp/hetune-test-specbuf-XXXXXX", path[128];
    char *json = spec_text("{ \"file\": \"k.cl\", \"name\": \"addvec\" }");
    struct ht_spec *spec = NULL;
    struct ht_error err;
    FILE *f;
    (void)state;

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/k.cl", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(kernel, f);
    fclose(f);
    ht_error_clear(&err);
    assert_int_equal(
        ht_spec_load_buffer(json, 0, &(struct ht_spec_buffer_opts){.base_dir = dir}, &spec, &err),
        HT_OK);
    assert_string_equal(spec->source, kernel);
    assert_string_equal(spec->kernel_path, path);
    ht_spec_free(spec);
    unlink(path);
    rmdir(dir);

    /* The file is gone: the error names the caller's name and points at kernel.file. */
    ht_error_clear(&err);
    assert_int_equal(
        ht_spec_load_buffer(json, 0, &(struct ht_spec_buffer_opts){.name = "mine", .base_dir = dir},
                            &spec, &err),
        HT_ESPEC);
    assert_string_equal(err.file, "mine");
    assert_string_equal(err.field, "kernel.file");
    assert_int_equal(err.line, 3);
    assert_true(err.column > 1);
    assert_non_null(strstr(err.text, "cannot read kernel file"));
    free(json);
}

static void test_errors_located(void **state)
{
    struct ht_spec *spec = (void *)1;
    struct ht_error err;
    char *json;
    (void)state;

    /* Invalid JSON: line and column in the text. */
    ht_error_clear(&err);
    assert_int_equal(ht_spec_load_buffer("{\n  \"name\": \"x\",\n  oops\n}", 0,
                                         &(struct ht_spec_buffer_opts){.source = kernel}, &spec,
                                         &err),
                     HT_EPARSE);
    assert_null(spec);
    assert_string_equal(err.file, "<string>");
    assert_int_equal(err.line, 3);
    assert_true(err.column >= 3);

    /* An expression that does not compile: its character. */
    json = spec_text("{ \"name\": \"addvec\" }");
    memcpy(strstr(json, "[\"N\"], \"local\""), "[\"N+\"],", 7);
    ht_error_clear(&err);
    assert_int_equal(
        ht_spec_load_buffer(json, 0,
                            &(struct ht_spec_buffer_opts){.source = kernel, .name = "app.json"},
                            &spec, &err),
        HT_EEXPR);
    assert_string_equal(err.file, "app.json");
    assert_int_equal(err.line, 5);
    assert_true(err.column > 10);
    free(json);

    /* No source anywhere. */
    json = spec_text("{ \"name\": \"addvec\" }");
    ht_error_clear(&err);
    assert_int_equal(ht_spec_load_buffer(json, 0, NULL, &spec, &err), HT_ESPEC);
    assert_string_equal(err.field, "kernel.file");
    assert_non_null(strstr(err.text, "'source'"));
    free(json);

    /* Both kernel.file and kernel.source. */
    json = spec_text("{ \"name\": \"addvec\", \"file\": \"k.cl\", \"source\": \"x\" }");
    ht_error_clear(&err);
    assert_int_equal(ht_spec_load_buffer(json, 0, NULL, &spec, &err), HT_ESPEC);
    assert_non_null(strstr(err.text, "not both"));
    free(json);

    /* An empty source given. */
    json = spec_text("{ \"name\": \"addvec\" }");
    ht_error_clear(&err);
    assert_int_equal(
        ht_spec_load_buffer(json, 0, &(struct ht_spec_buffer_opts){.source = ""}, &spec, &err),
        HT_ESPEC);
    assert_non_null(strstr(err.text, "empty"));
    free(json);

    /* NULL arguments. */
    ht_error_clear(&err);
    assert_int_equal(
        ht_spec_load_buffer(NULL, 0, &(struct ht_spec_buffer_opts){.source = kernel}, &spec, &err),
        HT_EINVAL);
    assert_null(spec);
    ht_error_clear(&err);
    assert_int_equal(
        ht_spec_load_buffer("{}", 0, &(struct ht_spec_buffer_opts){.source = kernel}, NULL, &err),
        HT_EINVAL);
    ht_error_clear(&err);
    assert_int_equal(ht_spec_load_buffer("{}", 0,
                                         &(struct ht_spec_buffer_opts){.source = kernel, .nov = 2},
                                         &spec, &err),
                     HT_EINVAL);
    ht_error_clear(&err);
    assert_int_equal(
        ht_spec_load_buffer("{}", 0, &(struct ht_spec_buffer_opts){.source_len = 5}, &spec, &err),
        HT_EINVAL);
    assert_int_equal(
        ht_spec_load_buffer("{}", 0, &(struct ht_spec_buffer_opts){.source = kernel}, &spec, NULL),
        HT_ESPEC);
}

/* A spec file whose kernel is in it: no kernel file beside it. */
static void test_file_spec_inline(void **state)
{
    char dir[] = "/tmp/hetune-test-specbuf-XXXXXX", path[128];
    char *json = spec_text("{ \"name\": \"addvec\", \"source\": \"__kernel void addvec() {}\" }");
    struct ht_spec *spec = NULL;
    struct ht_error err;
    FILE *f;
    (void)state;

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/spec.json", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(json, f);
    fclose(f);
    ht_error_clear(&err);
    assert_int_equal(ht_spec_load(path, NULL, 0, &spec, &err), HT_OK);
    assert_string_equal(spec->path, path);
    assert_string_equal(spec->source, "__kernel void addvec() {}");
    assert_non_null(strstr(spec->kernel_path, "spec.json:kernel.source"));
    ht_spec_free(spec);
    unlink(path);
    rmdir(dir);
    free(json);
}

/* ht_spec_check_array on an argument index past the spec's arguments: HT_EINVAL saying so,
 * not a read past spec->args (it read there before). In range, the checks as documented. */
static void test_check_array_range(void **state)
{
    char *json = spec_text("{ \"name\": \"addvec\", \"source\": \"__kernel void addvec("
                           "__global float *a, __global const float *b) {}\" }");
    struct ht_spec *spec = NULL;
    struct ht_error err;
    float x[64];
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(ht_spec_load_buffer(json, 0, NULL, &spec, &err), HT_OK);
    assert_int_equal(ht_spec_check_array(spec, 1, x, sizeof x, sizeof x, &err), HT_OK);
    assert_int_equal(ht_spec_check_array(spec, 1, x, 4, sizeof x, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "argument 'b' of 'mem' needs 256 bytes"));
    ht_error_clear(&err);
    assert_int_equal(ht_spec_check_array(spec, 2, x, sizeof x, sizeof x, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "ht_spec_check_array: argument 2 of 'mem' is past its 2"));
    assert_int_equal(ht_spec_check_array(spec, SIZE_MAX, NULL, 0, 0, NULL), HT_EINVAL);
    ht_spec_free(spec);
    free(json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_beside),
        cmocka_unit_test(test_source_inline),
        cmocka_unit_test(test_file_against_base_dir),
        cmocka_unit_test(test_errors_located),
        cmocka_unit_test(test_file_spec_inline),
        cmocka_unit_test(test_check_array_range),
    };
    return cmocka_run_group_tests_name("spec_buffer", tests, NULL, NULL);
}
