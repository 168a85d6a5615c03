/* The whole-launch prologue (ht__program_prologue, src/exec/build.c): which sources get it,
 * and what it says. Pure text: no OpenCL device needed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "exec/exec-internal.h"
#include "hetune.h"

/* The prologue of src for an NDRange of ndims dimensions with global sizes 96, 48, 1 (NULL
 * when none); owned by the caller. */
static char *prologue_of(const char *src, unsigned ndims, size_t npipeline)
{
    static const uint64_t global[3] = {96, 48, 1};
    struct ht_spec spec;
    char *out = (char *)1;

    memset(&spec, 0, sizeof spec);
    spec.source = (char *)src;
    spec.source_len = strlen(src);
    spec.npipeline = npipeline;
    assert_int_equal(ht__program_prologue(&spec, ndims, global, &out), HT_OK);
    return out;
}

static void test_global_id_only(void **state)
{
    (void)state;
    /* The kernels of get_global_id alone build exactly as before: no prologue, so the
     * binary cache key and the program text are unchanged. */
    assert_null(prologue_of("__kernel void k(__global float *a) {\n"
                            "  a[get_global_id(0)] = get_local_id(0) * get_local_size(0);\n}\n",
                            1, 0));
    /* Identifiers that only contain the names are not the builtins. */
    assert_null(prologue_of("#define my_get_group_id_x 3\nint get_group_idx;\n"
                            "int xget_num_groups;\n/* included */ int include_me;\n",
                            1, 0));
}

static void test_group_builtins(void **state)
{
    static const char *const uses[] = {
        "int g = get_group_id(1);", "int n = get_num_groups (0);",
        "int w = get_global_size(0);", "#include \"common.cl\"\n", "  #  include <x.h>\n",
        "/* get_group_id in a comment costs an unused prologue only */"};
    (void)state;
    for (size_t i = 0; i < sizeof uses / sizeof *uses; i++) {
        char *p = prologue_of(uses[i], 2, 0);
        assert_non_null(p);
        /* The whole launch's sizes of this configuration; 1 past its dimensions. */
        assert_non_null(strstr(p, "(size_t)96 : (d) == 1 ? (size_t)48 : (d) == 2 ? (size_t)1"));
        assert_non_null(strstr(p, "#define get_group_id(d) (get_group_id(d) + "
                                  "get_global_offset(d) / get_local_size(d))\n"));
        assert_non_null(strstr(p, "#define get_num_groups(d) (__hetune_global_size(d) / "
                                  "get_local_size(d))\n"));
        assert_non_null(strstr(p, "#define get_global_size(d) __hetune_global_size(d)\n"));
        /* It ends by giving the kernel file its own line numbers back. */
        assert_true(strlen(p) > 8 && !strcmp(p + strlen(p) - 8, "#line 1\n"));
        free(p);
    }
    {
        /* One dimension: the others are 1, whatever global holds past it. */
        char *p = prologue_of("get_group_id(0)", 1, 0);
        assert_non_null(strstr(p, "(size_t)96 : (d) == 1 ? (size_t)1 : (d) == 2 ? (size_t)1"));
        free(p);
    }
    /* A pipeline is never split, and its stages have NDRanges of their own. */
    assert_null(prologue_of("int g = get_group_id(0);", 1, 2));
}

/* ht__program_options on src: the options without definitions the code never names. */
static void expect_options(const char *src, const char *options, const char *want)
{
    char *got = ht__program_options(src, strlen(src), options);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_unused_definitions(void **state)
{
    static const char *const opts = "-D N=1024 -D WG=64 -D EPT=2 -cl-fast-relaxed-math";
    (void)state;
    /* WG only sizes the NDRange: left out; N and EPT are used, as a whole word each. */
    expect_options("__kernel void k(__global float *a) {\n"
                   "  for (int k = 0; k < EPT; k++) a[get_global_id(0) * EPT + k] = N;\n}\n",
                   opts, "-D N=1024 -D EPT=2 -cl-fast-relaxed-math");
    /* Named only in comments, or inside a longer identifier: not used. */
    expect_options("/* WG work-items, N elements */\n// EPT per work-item\n"
                   "__kernel void k(__global float *a) { a[0] = NWG + EPTS; }\n",
                   opts, "-cl-fast-relaxed-math");
    /* In a directive it is used: #ifndef WG decides what the program is. */
    expect_options("#ifndef WG\n#define WG 1\n#endif\n__kernel void k() {}\n", opts,
                   "-D WG=64 -cl-fast-relaxed-math");
    /* Behind #include or token pasting a name can hide: everything is kept. */
    expect_options("#include \"tile.h\"\n__kernel void k() {}\n", opts, opts);
    expect_options("#define CAT(a, b) a##b\n__kernel void k() { int x = CAT(W, G); }\n", opts,
                   opts);
    /* The trailing blank ht__build_options leaves, a quoted value and -DNAME are kept as
     * they are; only "-D NAME=VALUE" forms are left out. */
    expect_options("__kernel void k() {}\n", "-D A=1 -D B=2 ", "");
    expect_options("__kernel void k() {}\n", "-D MSG=\"a b\" -DX=1 -D Y",
                   "-D MSG=\"a b\" -DX=1 -D Y");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_global_id_only),
        cmocka_unit_test(test_group_builtins),
        cmocka_unit_test(test_unused_definitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
