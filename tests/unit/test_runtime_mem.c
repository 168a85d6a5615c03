/* Tests of the runtime on a program's own memory (issue 26, items 1 and 2) on PoCL:
 * launches on malloc arrays one float past malloc's alignment (so below every device's
 * base alignment), with a readwrite, a write and a read argument, of a size that is no
 * multiple of the staging chunk, on both devices split and on each alone, through every
 * foreign path (stage, register, direct) with the devices copied to (data path pinned)
 * and in place (auto): every element is checked after each launch, and guard bytes around
 * every array must be untouched. The decision follows the memory: binding malloc arrays
 * after the runtime's own ones makes the next launch decide again, for that memory
 * (info.memory, info.decisions, the words of info.decision), and binding the runtime's
 * own arrays again decides once more. A 2-D problem split along its inner axis (each
 * device's slices rectangles) and its outer one, on both devices, in place on shadows and
 * copied. Mode SPLIT plans with the bus plan when the
 * database holds the devices' links. POCL_DEVICES="pthread basic" (unless set) gives two
 * devices. Exits 77 (skipped) when no OpenCL platform is found. */
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
#include "coexec/coexec-internal.h" /* ht__coexec_own_host_bytes */

/* 701 groups of 64: no multiple of the odd chunk below, nor of a page. */
#define N (64 * 701)
#define GUARD 256
#define GUARD_BYTE 0x5A
/* Bytes per staging chunk: not a multiple of an element, so chunks split floats. */
#define CHUNK 5098

static char dir[] = "/tmp/hetune-test-rtmem-XXXXXX";
static char spec_path[512], db_path[512];
static size_t ndevices;

static const char spec_text[] =
    "{\n"
    "  \"name\": \"rtmem\",\n"
    "  \"kernel\": { \"file\": \"kernel.cl\", \"name\": \"upd\" },\n"
    "  \"sizes\": { \"N\": 44864 },\n"
    "  \"ndrange\": { \"global\": [\"N\"], \"local\": [\"WG\"] },\n"
    "  \"params\": { \"WG\": { \"values\": [16, 64] } },\n"
    "  \"args\": [\n"
    "    { \"name\": \"n\", \"type\": \"uint\", \"value\": \"N\" },\n"
    "    { \"name\": \"y\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"readwrite\", "
    "\"index\": [\"gx\"] },\n"
    "    { \"name\": \"z\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"write\", "
    "\"index\": [\"gx\"] },\n"
    "    { \"name\": \"x\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"read\", "
    "\"index\": [\"gx\"] }\n"
    "  ],\n"
    "  \"verify\": { \"reference\": { \"WG\": 16 }, \"rtol\": 0, \"atol\": 0 },\n"
    "  \"timing\": { \"repeats\": 2, \"keep_best\": 1 }\n"
    "}\n";

/* y = 3y + x in place; z = the old y + x. */
static const char kernel_text[] =
    "__kernel void upd(const unsigned int n, __global float *y, __global float *z,\n"
    "                  __global const float *x)\n"
    "{\n"
    "    const size_t i = get_global_id(0);\n"
    "    if (i < n) {\n"
    "        const float v = y[i];\n"
    "        z[i] = v + x[i];\n"
    "        y[i] = 3.0f * v + x[i];\n"
    "    }\n"
    "}\n";

/* A 2-D problem, split along the inner axis (gx: rectangles) or the outer one (gy: rows). */
static char spec2_path[512], kernel2_path[512];
#define W2 96
#define H2 80

static const char spec2_text[] =
    "{\n"
    "  \"name\": \"rtmem2d\",\n"
    "  \"kernel\": { \"file\": \"kernel2.cl\", \"name\": \"scale2\" },\n"
    "  \"sizes\": { \"W\": 96, \"H\": 80 },\n"
    "  \"ndrange\": { \"global\": [\"W\", \"H\"], \"local\": [\"BX\", \"BY\"] },\n"
    "  \"params\": { \"BX\": { \"values\": [8, 16] }, \"BY\": { \"values\": [1, 4] } },\n"
    "  \"args\": [\n"
    "    { \"name\": \"out\", \"type\": \"float\", \"shape\": [\"H\", \"W\"], "
    "\"access\": \"write\", \"index\": [\"gy\", \"gx\"] },\n"
    "    { \"name\": \"in\", \"type\": \"float\", \"shape\": [\"H\", \"W\"], "
    "\"access\": \"read\", \"index\": [\"gy\", \"gx\"] },\n"
    "    { \"name\": \"w\", \"type\": \"int\", \"value\": \"W\" }\n"
    "  ],\n"
    "  \"verify\": { \"reference\": { \"BX\": 8, \"BY\": 1 }, \"rtol\": 0, \"atol\": 0 },\n"
    "  \"timing\": { \"repeats\": 2, \"keep_best\": 1 }\n"
    "}\n";

static const char kernel2_text[] =
    "__kernel void scale2(__global float *out, __global const float *in, const int w)\n"
    "{\n"
    "    const size_t x = get_global_id(0), y = get_global_id(1);\n"
    "    out[y * w + x] = 2.0f * in[y * w + x] + (float)y;\n"
    "}\n";

/* An array of the program's own: malloc'ed, `skew` bytes past malloc's alignment, with
 * GUARD bytes of GUARD_BYTE on each side. */
struct arr {
    unsigned char *base;
    float *p;
};

static void arr_make_n(struct arr *a, size_t n, size_t skew);

static void arr_make(struct arr *a, size_t skew)
{
    arr_make_n(a, N, skew);
}

static void arr_make_n(struct arr *a, size_t n, size_t skew)
{
    size_t bytes = n * sizeof(float);
    a->base = malloc(bytes + 2 * GUARD + skew);
    assert_non_null(a->base);
    memset(a->base, GUARD_BYTE, bytes + 2 * GUARD + skew);
    a->p = (float *)(void *)(a->base + GUARD + skew);
}

static void arr_check_guards_n(const struct arr *a, size_t n, const char *name)
{
    const unsigned char *p = (const unsigned char *)a->p;
    for (size_t k = 1; k <= GUARD; k++)
        if (p[-(ptrdiff_t)k] != GUARD_BYTE)
            fail_msg("%s: the byte %zu before the array was written", name, k);
    for (size_t k = 0; k < GUARD; k++)
        if (p[n * sizeof(float) + k] != GUARD_BYTE)
            fail_msg("%s: the byte %zu after the array was written", name, k);
}

static void arr_check_guards(const struct arr *a, const char *name)
{
    arr_check_guards_n(a, N, name);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* ht_runtime_opts.cpu_units of every open (test_cpu_units). */
static unsigned cpu_units;

static void opts_for(struct ht_runtime_opts *o, enum ht_runtime_mode mode)
{
    ht_runtime_opts_init(o);
    o->db = db_path;
    o->tune_missing = 1;
    o->mode = mode;
    o->measure_repeats = 2;
    o->exec.stage_bytes = CHUNK;
    o->exec.stage_threads = 3;
    o->cpu_units = cpu_units;
}

/* Fills the inputs for round r and poisons z; keeps the y it set in y0. */
static void fill(float *y, float *z, float *x, float *y0, int r)
{
    for (size_t i = 0; i < N; i++) {
        y[i] = y0[i] = (float)(i % 97) - 40.0f + (float)r;
        x[i] = 0.5f * (float)(i % 13) + (float)r;
        z[i] = -1234.5f;
    }
}

static void check(const float *y, const float *z, const float *x, const float *y0,
                  const char *what, int r)
{
    for (size_t i = 0; i < N; i++) {
        if (z[i] != y0[i] + x[i])
            fail_msg("%s, round %d: z[%zu] = %g, expected %g", what, r, i, (double)z[i],
                     (double)(y0[i] + x[i]));
        if (y[i] != 3.0f * y0[i] + x[i])
            fail_msg("%s, round %d: y[%zu] = %g, expected %g", what, r, i, (double)y[i],
                     (double)(3.0f * y0[i] + x[i]));
    }
}

/* Opens on devices with mode, binds y, z, x (arrays skewed by skew bytes) and launches
 * three rounds, each checked element by element, guards included. */
static void rounds(const char *devices, enum ht_runtime_mode mode, enum ht_data_path path,
                   enum ht_foreign_path fp, size_t skew)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    const struct ht_runtime_info *info;
    struct ht_error err;
    struct arr y, z, x;
    size_t bytes = N * sizeof(float);
    float *y0 = malloc(bytes);
    char what[200];

    snprintf(what, sizeof what, "devices %s, %s, %s, skew %zu", devices,
             ht_data_path_name(path), ht_foreign_path_name(fp), skew);
    assert_non_null(y0);
    ht_error_clear(&err);
    opts_for(&o, mode);
    o.devices = devices;
    o.exec.data_path = path;
    o.exec.foreign_up = o.exec.foreign_down = fp;
    if (ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("%s: open: %s", what, err.text);
    arr_make(&y, skew);
    arr_make(&z, skew);
    arr_make(&x, skew);
    assert_int_equal(ht_runtime_bind(rt, "y", y.p, bytes, &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "z", z.p, bytes, &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "x", x.p, bytes, &err), HT_OK);
    for (int r = 0; r < 3; r++) {
        fill(y.p, z.p, x.p, y0, r);
        if (ht_runtime_launch(rt, &err) != HT_OK)
            fail_msg("%s: launch %d: %s", what, r, err.text);
        check(y.p, z.p, x.p, y0, what, r);
        arr_check_guards(&y, "y");
        arr_check_guards(&z, "z");
        arr_check_guards(&x, "x");
    }
    info = ht_runtime_info(rt);
    /* Alignment counts only where a device works in place, and PoCL works in place on
     * arrays at malloc's 16 bytes too (the probe of src/coexec/coexec.c, wraps_in_place):
     * the arrays are skew bytes past malloc's 16, GUARD being a multiple of it. */
    assert_int_equal(info->memory, path == HT_PATH_AUTO && skew % 16
                                       ? HT_COEXEC_MEM_UNALIGNED
                                       : HT_COEXEC_MEM_ALIGNED);
    assert_non_null(strstr(info->decision, "the program's"));
    if (mode == HT_RUNTIME_SPLIT && strchr(devices, ','))
        assert_int_equal(info->split, 1);
    ht_runtime_close(rt);
    free(y.base);
    free(z.base);
    free(x.base);
    free(y0);
}

static void test_paths(void **state)
{
    static const enum ht_foreign_path fps[] = {HT_FOREIGN_STAGE, HT_FOREIGN_REGISTER,
                                               HT_FOREIGN_DIRECT, HT_FOREIGN_PIN};
    static const char *const two[] = {"0,1", "0", "1"}, *const one[] = {"0"};
    const char *const *sets = ndevices > 1 ? two : one;
    size_t nsets = ndevices > 1 ? 3 : 1;
    (void)state;

    for (size_t s = 0; s < nsets; s++) {
        enum ht_runtime_mode mode = strchr(sets[s], ',') ? HT_RUNTIME_SPLIT : HT_RUNTIME_AUTO;
        /* Copied to: each foreign path. */
        for (size_t f = 0; f < sizeof fps / sizeof fps[0]; f++)
            rounds(sets[s], mode, HT_PATH_PINNED, fps[f], sizeof(float));
        /* In place where aligned (a page past malloc's block: skew to the next page is not
         * known, so aligned_alloc stands for it below), else copied slice by slice. */
        rounds(sets[s], mode, HT_PATH_AUTO, HT_FOREIGN_AUTO, sizeof(float));
        /* At malloc's own alignment, below PoCL's base alignment of 128 bytes: in place on
         * the array itself, as PoCL wraps such an array as it is. */
        rounds(sets[s], mode, HT_PATH_AUTO, HT_FOREIGN_AUTO, 0);
    }
}

/* The CPU devices on a sub-device of one compute unit (ht_runtime_opts.cpu_units), in a
 * split and alone, in place and pinned in place: every element right. */
static void test_cpu_units(void **state)
{
    (void)state;
    cpu_units = 1;
    rounds(ndevices > 1 ? "0,1" : "0", ndevices > 1 ? HT_RUNTIME_SPLIT : HT_RUNTIME_AUTO,
           HT_PATH_AUTO, HT_FOREIGN_AUTO, sizeof(float));
    rounds(ndevices > 1 ? "0,1" : "0", ndevices > 1 ? HT_RUNTIME_SPLIT : HT_RUNTIME_AUTO,
           HT_PATH_PINNED, HT_FOREIGN_PIN, sizeof(float));
    rounds("0", HT_RUNTIME_AUTO, HT_PATH_AUTO, HT_FOREIGN_AUTO, sizeof(float));
    cpu_units = 0;
}

/* In place on the program's page-aligned memory, with guards: aligned_alloc with the
 * guards inside the block. */
static void test_aligned_inplace(void **state)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    struct ht_error err;
    size_t bytes = N * sizeof(float), whole = (bytes + 2 * 4096 + 4095) / 4096 * 4096;
    unsigned char *block[3];
    float *arr[3], *y0 = malloc(bytes);
    const char *names[] = {"y", "z", "x"};
    (void)state;

    assert_non_null(y0);
    ht_error_clear(&err);
    opts_for(&o, ndevices > 1 ? HT_RUNTIME_SPLIT : HT_RUNTIME_AUTO);
    if (ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);
    for (int k = 0; k < 3; k++) {
        block[k] = aligned_alloc(4096, whole);
        assert_non_null(block[k]);
        memset(block[k], GUARD_BYTE, whole);
        arr[k] = (float *)(void *)(block[k] + 4096);
        assert_int_equal(ht_runtime_bind(rt, names[k], arr[k], bytes, &err), HT_OK);
    }
    for (int r = 0; r < 3; r++) {
        fill(arr[0], arr[1], arr[2], y0, r);
        if (ht_runtime_launch(rt, &err) != HT_OK)
            fail_msg("launch %d: %s", r, err.text);
        check(arr[0], arr[1], arr[2], y0, "aligned", r);
        for (int k = 0; k < 3; k++) {
            for (size_t b = 0; b < 4096; b++)
                if (block[k][b] != GUARD_BYTE)
                    fail_msg("%s: a byte before the array was written", names[k]);
            for (size_t b = 4096 + bytes; b < whole; b++)
                if (block[k][b] != GUARD_BYTE)
                    fail_msg("%s: a byte after the array was written", names[k]);
        }
    }
    assert_int_equal(ht_runtime_info(rt)->memory, HT_COEXEC_MEM_ALIGNED);
    ht_runtime_close(rt);
    for (int k = 0; k < 3; k++)
        free(block[k]);
    free(y0);
}

/* The 2-D problem split along dim on both devices, on arrays skewed by a float: in place
 * on shadows (auto) and copied to (pinned: whole rows staged, rectangles direct). */
static void test_2d(void **state)
{
    static const enum ht_data_path paths[] = {HT_PATH_AUTO, HT_PATH_PINNED};
    size_t n = (size_t)W2 * H2, bytes = n * sizeof(float);
    (void)state;

    if (ndevices < 2) {
        skip();
        return;
    }
    for (unsigned dim = 0; dim < 2; dim++)
        for (size_t p = 0; p < 2; p++) {
            struct ht_runtime_opts o;
            struct ht_runtime *rt = NULL;
            struct ht_error err;
            struct arr out, in;

            ht_error_clear(&err);
            opts_for(&o, HT_RUNTIME_SPLIT);
            o.dim = dim;
            o.exec.data_path = paths[p];
            if (ht_runtime_open(spec2_path, NULL, 0, &o, &rt, &err) != HT_OK)
                fail_msg("dim %u: open: %s", dim, err.text);
            assert_int_equal(ht_runtime_info(rt)->split, 1);
            arr_make_n(&out, n, sizeof(float));
            arr_make_n(&in, n, sizeof(float));
            assert_int_equal(ht_runtime_bind(rt, "out", out.p, bytes, &err), HT_OK);
            assert_int_equal(ht_runtime_bind(rt, "in", in.p, bytes, &err), HT_OK);
            for (int r = 0; r < 2; r++) {
                for (size_t i = 0; i < n; i++) {
                    in.p[i] = (float)(i % 1009) * 0.5f + (float)r;
                    out.p[i] = -99.0f;
                }
                if (ht_runtime_launch(rt, &err) != HT_OK)
                    fail_msg("dim %u, %s: launch: %s", dim, ht_data_path_name(paths[p]),
                             err.text);
                for (size_t i = 0; i < n; i++)
                    if (out.p[i] != 2.0f * in.p[i] + (float)(i / W2))
                        fail_msg("dim %u, %s, round %d: out[%zu][%zu] = %g, expected %g", dim,
                                 ht_data_path_name(paths[p]), r, i / W2, i % W2,
                                 (double)out.p[i], (double)(2.0f * in.p[i] + (float)(i / W2)));
                arr_check_guards_n(&out, n, "out");
                arr_check_guards_n(&in, n, "in");
            }
            ht_runtime_close(rt);
            free(out.base);
            free(in.base);
        }
}

/* The decision follows the memory bound: copied to (pinned), then in place (auto). */
static void redecide(enum ht_data_path path);

static void test_redecide(void **state)
{
    (void)state;
    if (ndevices < 2) {
        skip(); /* one device: nothing to decide */
        return;
    }
    redecide(HT_PATH_PINNED);
    redecide(HT_PATH_AUTO);
}

static void redecide(enum ht_data_path path)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    const struct ht_runtime_info *info;
    struct ht_error err;
    size_t bytes = N * sizeof(float);
    float *own[3], *y0 = malloc(bytes);
    struct arr mine[3];
    const char *names[] = {"y", "z", "x"};
    enum ht_coexec_memory kind =
        path == HT_PATH_AUTO ? HT_COEXEC_MEM_UNALIGNED : HT_COEXEC_MEM_ALIGNED;
    char words[64];

    assert_non_null(y0);
    ht_error_clear(&err);
    opts_for(&o, HT_RUNTIME_AUTO);
    o.exec.data_path = path;
    if (ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);
    info = ht_runtime_info(rt);
    assert_int_equal(info->memory, HT_COEXEC_MEM_OWN);
    assert_int_equal(info->decisions, 1);
    assert_non_null(strstr(info->decision, "for the runtime's own memory"));
    for (int k = 0; k < 3; k++) {
        own[k] = ht_runtime_alloc(rt, bytes, &err);
        assert_non_null(own[k]);
        assert_int_equal(ht_runtime_bind(rt, names[k], own[k], bytes, &err), HT_OK);
        arr_make(&mine[k], sizeof(float));
    }
    fill(own[0], own[1], own[2], y0, 0);
    assert_int_equal(ht_runtime_launch(rt, &err), HT_OK);
    check(own[0], own[1], own[2], y0, "own", 0);
    info = ht_runtime_info(rt);
    assert_int_equal(info->decisions, 1); /* the memory it was decided for */

    /* The program's own arrays: decided again at the next launch, for them. */
    for (int k = 0; k < 3; k++)
        assert_int_equal(ht_runtime_bind(rt, names[k], mine[k].p, bytes, &err), HT_OK);
    for (int r = 1; r < 3; r++) {
        fill(mine[0].p, mine[1].p, mine[2].p, y0, r);
        if (ht_runtime_launch(rt, &err) != HT_OK)
            fail_msg("launch on malloc arrays: %s", err.text);
        check(mine[0].p, mine[1].p, mine[2].p, y0, "mine", r);
        for (int k = 0; k < 3; k++)
            arr_check_guards(&mine[k], names[k]);
    }
    info = ht_runtime_info(rt);
    /* Copied to, alignment does not count: the program's memory is "aligned" enough; in
     * place, one float past malloc's alignment is below PoCL's 128 bytes. */
    assert_int_equal(info->memory, kind);
    assert_int_equal(info->decisions, 2);
    assert_int_equal(info->launches, 3);
    snprintf(words, sizeof words, "for the program's %s memory", ht_coexec_memory_name(kind));
    assert_non_null(strstr(info->decision, words));

    /* The runtime's arrays are still valid after the co-execution was replaced. */
    for (int k = 0; k < 3; k++)
        assert_int_equal(ht_runtime_bind(rt, names[k], own[k], bytes, &err), HT_OK);
    fill(own[0], own[1], own[2], y0, 5);
    assert_int_equal(ht_runtime_launch(rt, &err), HT_OK);
    check(own[0], own[1], own[2], y0, "own again", 5);
    info = ht_runtime_info(rt);
    assert_int_equal(info->memory, HT_COEXEC_MEM_OWN);
    assert_int_equal(info->decisions, 3);
    ht_runtime_close(rt);
    for (int k = 0; k < 3; k++)
        free(mine[k].base);
    free(y0);
}

/* Mode AUTO's decision for the program's malloc arrays measures each device alone and the
 * split on those arrays, with no host data of its own: the 2-D problem, and the first one,
 * whose y is read and written (put back after the runs that change it, so the launch reads
 * what the program set). An output bound over an input: data of its own. */
static void test_measured_on_arrays(void **state)
{
    size_t n = (size_t)W2 * H2, bytes = n * sizeof(float);
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    const struct ht_runtime_info *info;
    struct ht_error err;
    struct arr out, in, mine[3];
    const char *names[] = {"y", "z", "x"};
    float *y0 = malloc(N * sizeof(float));
    uint64_t before;
    (void)state;

    if (ndevices < 2) {
        skip(); /* one device: nothing measured */
        free(y0);
        return;
    }
    assert_non_null(y0);
    ht_error_clear(&err);
    opts_for(&o, HT_RUNTIME_AUTO);
    o.fallback_ratio = -1; /* the decision only, no watch switching in between */
    if (ht_runtime_open(spec2_path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);
    arr_make_n(&out, n, sizeof(float));
    arr_make_n(&in, n, sizeof(float));
    assert_int_equal(ht_runtime_bind(rt, "out", out.p, bytes, &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "in", in.p, bytes, &err), HT_OK);
    for (size_t i = 0; i < n; i++) {
        in.p[i] = (float)(i % 1009) * 0.25f - 7.0f;
        out.p[i] = -99.0f;
    }
    before = ht__coexec_own_host_bytes();
    if (ht_runtime_launch(rt, &err) != HT_OK)
        fail_msg("launch: %s", err.text);
    info = ht_runtime_info(rt);
    assert_int_equal(info->decisions, 2);
    if (!strstr(info->decision, "for the program's unaligned memory, measured on its arrays"))
        fail_msg("decision: %s", info->decision);
    assert_true(info->predicted_alone_s > 0); /* each device alone was measured */
    if (ht__coexec_own_host_bytes() != before)
        fail_msg("the decision made %llu bytes of host data of its own",
                 (unsigned long long)(ht__coexec_own_host_bytes() - before));
    for (size_t i = 0; i < n; i++) {
        float want_in = (float)(i % 1009) * 0.25f - 7.0f;
        if (in.p[i] != want_in)
            fail_msg("in[%zu] = %g after the launch, was %g", i, (double)in.p[i],
                     (double)want_in);
        if (out.p[i] != 2.0f * want_in + (float)(i / W2))
            fail_msg("out[%zu][%zu] = %g, expected %g", i / W2, i % W2, (double)out.p[i],
                     (double)(2.0f * want_in + (float)(i / W2)));
    }
    arr_check_guards_n(&out, n, "out");
    arr_check_guards_n(&in, n, "in");
    ht_runtime_close(rt);
    free(out.base);
    free(in.base);

    /* y read and written: measured on the arrays, y put back before the launch. */
    if (ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);
    for (int k = 0; k < 3; k++) {
        arr_make(&mine[k], sizeof(float));
        assert_int_equal(ht_runtime_bind(rt, names[k], mine[k].p, N * sizeof(float), &err),
                         HT_OK);
    }
    fill(mine[0].p, mine[1].p, mine[2].p, y0, 1);
    before = ht__coexec_own_host_bytes();
    if (ht_runtime_launch(rt, &err) != HT_OK)
        fail_msg("launch (readwrite): %s", err.text);
    check(mine[0].p, mine[1].p, mine[2].p, y0, "readwrite", 1);
    for (int k = 0; k < 3; k++)
        arr_check_guards(&mine[k], names[k]);
    info = ht_runtime_info(rt);
    assert_int_equal(info->decisions, 2);
    if (!strstr(info->decision, "measured on its arrays"))
        fail_msg("decision (readwrite): %s", info->decision);
    assert_true(ht__coexec_own_host_bytes() == before);
    ht_runtime_close(rt);

    /* z bound over x (written over what is read): data of its own. */
    if (ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);
    assert_int_equal(ht_runtime_bind(rt, "y", mine[0].p, N * sizeof(float), &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "z", mine[2].p, N * sizeof(float), &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "x", mine[2].p, N * sizeof(float), &err), HT_OK);
    before = ht__coexec_own_host_bytes();
    if (ht_runtime_launch(rt, &err) != HT_OK)
        fail_msg("launch (z over x): %s", err.text);
    info = ht_runtime_info(rt);
    assert_int_equal(info->decisions, 2);
    assert_true(ht__coexec_own_host_bytes() > before);
    assert_null(strstr(info->decision, "measured on its arrays"));
    ht_runtime_close(rt);
    for (int k = 0; k < 3; k++)
        free(mine[k].base);
    free(y0);
}

/* Mode SPLIT with every device's link in the database: the bus plan. */
static void test_split_bus_plan(void **state)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    struct ht_store *store = NULL;
    struct ht_platform *plat = NULL;
    struct ht_error err;
    (void)state;

    if (ndevices < 2) {
        skip();
        return;
    }
    ht_error_clear(&err);
    /* Tuned first (the database then holds the devices). */
    opts_for(&o, HT_RUNTIME_SPLIT);
    if (ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);
    assert_null(strstr(ht_runtime_info(rt)->decision, "bus plan"));
    ht_runtime_close(rt);

    assert_int_equal(ht_platform_discover(&plat, &err), HT_OK);
    assert_int_equal(ht_store_open(db_path, &store, &err), HT_OK);
    for (size_t i = 0; i < plat->count; i++) {
        struct ht_bandwidth bw;
        int64_t id;
        memset(&bw, 0, sizeof bw);
        bw.path = ht_data_path_resolve(HT_PATH_AUTO, &plat->devices[i]);
        bw.bytes = 1 << 20;
        bw.repeats = 1;
        bw.h2d_Bps = bw.d2h_Bps = 5e9;
        bw.pinned_h2d_Bps = bw.pinned_d2h_Bps = 5e9;
        bw.pageable_h2d_Bps = bw.pageable_d2h_Bps = 2e9;
        assert_int_equal(ht_store_device_id(store, &plat->devices[i], &id, &err), HT_OK);
        assert_int_equal(ht_store_put_bandwidth(store, id, &bw, &err), HT_OK);
    }
    ht_store_close(store);
    ht_platform_free(plat);

    if (ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("open with links: %s", err.text);
    assert_non_null(strstr(ht_runtime_info(rt)->decision, "the bus plan"));
    assert_int_equal(ht_runtime_info(rt)->split, 1);
    ht_runtime_close(rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_cpu_units),
        cmocka_unit_test(test_aligned_inplace),
        cmocka_unit_test(test_2d),
        cmocka_unit_test(test_redecide),
        cmocka_unit_test(test_measured_on_arrays),
        cmocka_unit_test(test_split_bus_plan),
    };
    struct ht_platform *plat = NULL;
    struct ht_error err;
    char path[600];
    int rc;

    setenv("POCL_DEVICES", "pthread basic", 0);
    ht_error_clear(&err);
    if (ht_platform_discover(&plat, &err) != HT_OK) {
        fprintf(stderr, "skipped: %s\n", err.text);
        return 77;
    }
    ndevices = plat->count;
    ht_platform_free(plat);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(spec_path, sizeof spec_path, "%s/spec.json", dir);
    snprintf(db_path, sizeof db_path, "%s/hetune.db", dir);
    write_file(spec_path, spec_text);
    snprintf(path, sizeof path, "%s/kernel.cl", dir);
    write_file(path, kernel_text);
    snprintf(spec2_path, sizeof spec2_path, "%s/spec2.json", dir);
    snprintf(kernel2_path, sizeof kernel2_path, "%s/kernel2.cl", dir);
    write_file(spec2_path, spec2_text);
    write_file(kernel2_path, kernel2_text);
    rc = cmocka_run_group_tests_name("runtime_mem", tests, NULL, NULL);
    unlink(spec2_path);
    unlink(kernel2_path);
    unlink(spec_path);
    unlink(path);
    unlink(db_path);
    rmdir(dir);
    return rc;
}
