/* The runtime splits kernels whose written buffer has no "index" (issue 26 item 4), on
 * PoCL's two devices (POCL_DEVICES="pthread basic" unless set): a 2-D kernel written as
 * other tuners' users write it (its output's columns walked by gx, nothing saying so).
 * Mode SPLIT on a fresh database tunes, probes at ht_runtime_open which elements each
 * slice writes (axis 1 of the output, one element per work-item), stores it, and every
 * launch on the program's own malloc arrays is right; the next open, in mode AUTO, reads
 * the stored inference and probes no more (info says which); mode ALONE probes nothing. A
 * kernel whose writes no slab explains (a scatter) is refused at open in mode SPLIT, saying
 * what the probe saw; in mode AUTO it runs the fastest device alone, saying why; alone, it
 * runs. Exits 77 (skipped) when no OpenCL platform is found, and
 * skips the cases that need two devices when there is one. */
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

#define W 128
#define H 48
#define NS 512 /* the scatter's elements */

static char dir[] = "/tmp/hetune-test-runtime-noindex-XXXXXX";
static char grid_path[512], scatter_path[512], kernel_path[512], db_path[512];
static size_t ndevices;

/* out[y][x] = 2 a[y][x] + b[x] - y: the output's axis 1 is walked by gx, axis 0 by gy. */
static const char grid_spec[] =
    "{\n"
    "  \"name\": \"grid_noindex_rt\",\n"
    "  \"kernel\": { \"file\": \"kernel.cl\", \"name\": \"grid\" },\n"
    "  \"sizes\": { \"W\": 128, \"H\": 48 },\n"
    "  \"ndrange\": { \"global\": [\"W\", \"H\"], \"local\": [\"WG\", 1] },\n"
    "  \"params\": { \"WG\": { \"values\": [8, 16] } },\n"
    "  \"args\": [\n"
    "    { \"name\": \"out\", \"type\": \"float\", \"shape\": [\"H\", \"W\"], "
    "\"access\": \"write\" },\n"
    "    { \"name\": \"a\", \"type\": \"float\", \"shape\": [\"H\", \"W\"], \"access\": \"read\", "
    "\"init\": \"random\" },\n"
    "    { \"name\": \"b\", \"type\": \"float\", \"shape\": [\"W\"], \"access\": \"read\", "
    "\"init\": \"random\" },\n"
    "    { \"name\": \"w\", \"type\": \"int\", \"value\": \"W\" }\n"
    "  ],\n"
    "  \"verify\": { \"reference\": { \"WG\": 8 }, \"rtol\": 0, \"atol\": 0 },\n"
    "  \"timing\": { \"repeats\": 2, \"keep_best\": 1 }\n"
    "}\n";

/* out[(i * 37) % n] = in[i] + 1: each slice writes elements all over the output. */
static const char scatter_spec[] =
    "{\n"
    "  \"name\": \"scatter_noindex_rt\",\n"
    "  \"kernel\": { \"file\": \"kernel.cl\", \"name\": \"scatter\" },\n"
    "  \"sizes\": { \"R\": 32, \"C\": 16 },\n"
    "  \"ndrange\": { \"global\": [\"R * C\"], \"local\": [\"WG\"] },\n"
    "  \"params\": { \"WG\": { \"values\": [8, 16] } },\n"
    "  \"args\": [\n"
    "    { \"name\": \"in\", \"type\": \"float\", \"shape\": [\"R * C\"], \"access\": \"read\", "
    "\"init\": \"random\" },\n"
    "    { \"name\": \"out\", \"type\": \"float\", \"shape\": [\"R\", \"C\"], "
    "\"access\": \"write\" },\n"
    "    { \"name\": \"n\", \"type\": \"int\", \"value\": \"R * C\" }\n"
    "  ],\n"
    "  \"verify\": { \"reference\": { \"WG\": 8 }, \"rtol\": 0, \"atol\": 0 },\n"
    "  \"timing\": { \"repeats\": 2, \"keep_best\": 1 }\n"
    "}\n";

static const char kernel_text[] =
    "__kernel void grid(__global float *out, __global const float *a,\n"
    "                   __global const float *b, const int w)\n"
    "{\n"
    "    const int x = (int)get_global_id(0), y = (int)get_global_id(1);\n"
    "    out[y * w + x] = 2.0f * a[y * w + x] + b[x] - (float)y;\n"
    "}\n"
    "__kernel void scatter(__global const float *in, __global float *out, const int n)\n"
    "{\n"
    "    const int i = (int)get_global_id(0);\n"
    "    out[(i * 37) % n] = in[i] + 1.0f;\n"
    "}\n";

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void opts_for(struct ht_runtime_opts *o, int tune, enum ht_runtime_mode mode)
{
    ht_runtime_opts_init(o);
    o->db = db_path;
    o->tune_missing = tune;
    o->mode = mode;
    o->measure_repeats = 2;
}

/* What a case checks of the runtime's info, the runtime still open. */
typedef void (*info_check_fn)(const struct ht_runtime_info *info, struct ht_runtime *rt);

/* Opens the grid spec with mode, launches 3 times on malloc arrays with new inputs each
 * time, checks every output element and that the inputs are as the program left them,
 * then what check checks of the info, and closes. */
static void grid_rounds(enum ht_runtime_mode mode, int tune, info_check_fn check)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    struct ht_error err;
    float *out = malloc(sizeof(float) * W * H), *a = malloc(sizeof(float) * W * H);
    float *b = malloc(sizeof(float) * W);

    assert_non_null(out);
    assert_non_null(a);
    assert_non_null(b);
    ht_error_clear(&err);
    opts_for(&o, tune, mode);
    if (ht_runtime_open(grid_path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);
    assert_int_equal(ht_runtime_bind(rt, "out", out, sizeof(float) * W * H, &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "a", a, sizeof(float) * W * H, &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "b", b, sizeof(float) * W, &err), HT_OK);
    for (int r = 0; r < 3; r++) {
        for (size_t i = 0; i < (size_t)W * H; i++) {
            a[i] = (float)(i % 97) * 0.5f + (float)r;
            out[i] = -7.0f;
        }
        for (size_t x = 0; x < W; x++)
            b[x] = (float)(x % 13) - 2.0f * (float)r;
        if (ht_runtime_launch(rt, &err) != HT_OK)
            fail_msg("launch %d: %s", r, err.text);
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++) {
                float want = 2.0f * a[y * W + x] + b[x] - (float)y;
                if (out[y * W + x] != want)
                    fail_msg("round %d: out[%zu][%zu] = %g, expected %g", r, y, x,
                             (double)out[y * W + x], (double)want);
                if (a[y * W + x] != (float)((y * W + x) % 97) * 0.5f + (float)r)
                    fail_msg("round %d: the input a[%zu][%zu] changed", r, y, x);
            }
    }
    assert_int_equal(ht_runtime_info(rt)->launches, 3);
    check(ht_runtime_info(rt), rt);
    ht_runtime_close(rt);
    free(b);
    free(a);
    free(out);
}

/* Mode SPLIT on a fresh database: tuned, probed at open, stored, split and right. */
static void probed_now(const struct ht_runtime_info *info, struct ht_runtime *rt)
{
    (void)rt;
    assert_int_equal(info->split, 1);
    for (size_t i = 0; i < info->ndevices; i++)
        assert_true(info->devices[i].used && info->devices[i].share > 0);
    assert_int_equal(info->written_probed, 1);
    assert_int_equal(info->written_stored, 0);
    if (!strstr(info->written, "written buffer 'out' has no index: a probe found it written "
                               "by slabs of its axis 1, 1 element per work-item along gx") ||
        !strstr(info->written, "; stored"))
        fail_msg("info.written: %s", info->written);
}

static void test_split_probes(void **state)
{
    (void)state;
    if (ndevices < 2) {
        skip();
        return;
    }
    grid_rounds(HT_RUNTIME_SPLIT, 1, probed_now);
}

/* The next open, mode AUTO: the stored inference, no probe; whatever it decides, right. */
static void read_stored(const struct ht_runtime_info *info, struct ht_runtime *rt)
{
    char *json = NULL;
    struct ht_error err;

    assert_int_equal(info->written_probed, 0);
    assert_int_equal(info->written_stored, 1);
    if (!strstr(info->written, "written buffer 'out' has no index: as a probe found before, "
                               "slabs of its axis 1"))
        fail_msg("info.written: %s", info->written);
    assert_null(strstr(info->written, "a probe found it written"));
    ht_error_clear(&err);
    assert_int_equal(ht_runtime_info_json(rt, &json, &err), HT_OK);
    assert_non_null(strstr(json, "\"written_stored\": 1"));
    free(json);
}

/* Mode ALONE splits nothing, so it needs no inference. */
static void none_alone(const struct ht_runtime_info *info, struct ht_runtime *rt)
{
    (void)rt;
    assert_int_equal(info->split, 0);
    assert_int_equal(info->written_probed + info->written_stored, 0);
    assert_string_equal(info->written, "");
}

static void test_auto_reads_stored(void **state)
{
    (void)state;
    if (ndevices < 2) {
        skip();
        return;
    }
    grid_rounds(HT_RUNTIME_AUTO, 0, read_stored);
    grid_rounds(HT_RUNTIME_ALONE, 0, none_alone);
}

/* Writes no slab explains: refused at open in mode SPLIT, saying what the probe saw; mode
 * AUTO keeps the fastest device alone and says why in info; ALONE runs it. */
static void test_scatter_refused(void **state)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = (void *)1;
    struct ht_error err;
    float in[NS], out[NS];
    static const char saw[] = "written buffer 'out' has no index, and the probe's slice [128, "
                              "256) along gx wrote 128 elements scattered over 32 rows of "
                              "'out' (a whole run writes 512): no slab of one axis per "
                              "work-item explains them";
    (void)state;

    if (ndevices < 2) {
        skip();
        return;
    }
    ht_error_clear(&err);
    opts_for(&o, 1, HT_RUNTIME_SPLIT);
    assert_int_equal(ht_runtime_open(scatter_path, NULL, 0, &o, &rt, &err), HT_ESPEC);
    assert_null(rt);
    if (!strstr(err.text, saw) || !strstr(err.text, "(give it an \"index\")"))
        fail_msg("split: %s", err.text);
    assert_string_equal(err.field, "args[1].index");
    for (enum ht_runtime_mode m = HT_RUNTIME_AUTO; m <= HT_RUNTIME_ALONE;
         m = m == HT_RUNTIME_AUTO ? HT_RUNTIME_ALONE : m + 1) {
        const struct ht_runtime_info *info;

        ht_error_clear(&err);
        opts_for(&o, 1, m);
        if (ht_runtime_open(scatter_path, NULL, 0, &o, &rt, &err) != HT_OK)
            fail_msg("mode %d: %s", (int)m, err.text);
        info = ht_runtime_info(rt);
        assert_int_equal(info->split, 0);
        if (m == HT_RUNTIME_AUTO &&
            (!strstr(info->written, saw) || !strstr(info->decision, "never split")))
            fail_msg("auto: written '%s', decision '%s'", info->written, info->decision);
        for (int i = 0; i < NS; i++) {
            in[i] = (float)i * 0.25f;
            out[i] = -7.0f;
        }
        assert_int_equal(ht_runtime_bind(rt, "in", in, sizeof in, &err), HT_OK);
        assert_int_equal(ht_runtime_bind(rt, "out", out, sizeof out, &err), HT_OK);
        /* The launch re-decides for the program's memory: alone still. */
        assert_int_equal(ht_runtime_launch(rt, &err), HT_OK);
        for (int i = 0; i < NS; i++)
            assert_true(out[(i * 37) % NS] == in[i] + 1.0f);
        assert_int_equal(ht_runtime_info(rt)->split, 0);
        ht_runtime_close(rt);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_probes),
        cmocka_unit_test(test_auto_reads_stored),
        cmocka_unit_test(test_scatter_refused),
    };
    struct ht_platform *plat = NULL;
    struct ht_error err;
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
    snprintf(grid_path, sizeof grid_path, "%s/grid.json", dir);
    snprintf(scatter_path, sizeof scatter_path, "%s/scatter.json", dir);
    snprintf(kernel_path, sizeof kernel_path, "%s/kernel.cl", dir);
    snprintf(db_path, sizeof db_path, "%s/hetune.db", dir);
    write_file(grid_path, grid_spec);
    write_file(scatter_path, scatter_spec);
    write_file(kernel_path, kernel_text);
    rc = cmocka_run_group_tests_name("runtime_noindex", tests, NULL, NULL);
    unlink(grid_path);
    unlink(scatter_path);
    unlink(kernel_path);
    unlink(db_path);
    rmdir(dir);
    return rc;
}
