/* Tests of the runtime (src/runtime, runtime.h) on PoCL: open on an empty database without
 * tuning is refused naming the device and what to run; with tuning allowed it tunes, and
 * launches many times on the caller's arrays (outputs right every time, inputs changed
 * between launches), split over two devices or alone; the next open reads the database
 * and tunes nothing; the refusals (an unknown argument, a scalar, a wrong size, an unbound
 * argument, a device that is not there) name what is wrong and write nothing into the
 * caller's outputs. POCL_DEVICES="pthread basic" (unless set) gives two devices. Exits 77
 * (skipped) when no OpenCL platform is found. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "hetune.h"
#include "runtime/runtime-test.h"

#define N 4096

static char dir[] = "/tmp/hetune-test-runtime-XXXXXX";
static char spec_path[512], db_path[512];
static size_t ndevices;
static uint32_t min_cu, max_cu; /* the devices' fewest and most compute units */

static const char spec_text[] =
    "{\n"
    "  \"name\": \"vecadd_rt\",\n"
    "  \"kernel\": { \"file\": \"kernel.cl\", \"name\": \"addvec\" },\n"
    "  \"sizes\": { \"N\": 4096 },\n"
    "  \"ndrange\": { \"global\": [\"N / EPT\"], \"local\": [\"WG\"] },\n"
    "  \"params\": { \"WG\": { \"values\": [16, 64] }, \"EPT\": { \"values\": [1, 2] } },\n"
    "  \"args\": [\n"
    "    { \"name\": \"n\", \"type\": \"uint\", \"value\": \"N\" },\n"
    "    { \"name\": \"a\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"write\", "
    "\"index\": [\"gx\"] },\n"
    "    { \"name\": \"b\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"read\", "
    "\"index\": [\"gx\"] },\n"
    "    { \"name\": \"c\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"read\", "
    "\"index\": [\"gx\"] }\n"
    "  ],\n"
    "  \"verify\": { \"reference\": { \"WG\": 16, \"EPT\": 1 }, \"rtol\": 0, \"atol\": 0 },\n"
    "  \"timing\": { \"repeats\": 3, \"keep_best\": 2 }\n"
    "}\n";

static const char kernel_text[] =
    "__kernel void addvec(const unsigned int n, __global float *a, __global const float *b,\n"
    "                     __global const float *c)\n"
    "{\n"
    "    const size_t first = get_global_id(0) * EPT;\n"
    "    for (int k = 0; k < EPT; k++)\n"
    "        if (first + k < n)\n"
    "            a[first + k] = b[first + k] + c[first + k];\n"
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

static void fill(float *b, float *c, float *a, int round)
{
    for (size_t i = 0; i < N; i++) {
        b[i] = (float)(i % 100) + (float)round;
        c[i] = 0.25f * (float)(i % 7) - (float)round;
        a[i] = -7.0f;
    }
}

static void check(const float *a, const float *b, const float *c)
{
    for (size_t i = 0; i < N; i++)
        if (a[i] != b[i] + c[i])
            fail_msg("a[%zu] = %g, expected %g", i, (double)a[i], (double)(b[i] + c[i]));
}

static void test_no_tuning_refused(void **state)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = (void *)1;
    struct ht_error err;
    (void)state;

    ht_error_clear(&err);
    opts_for(&o, 0, HT_RUNTIME_AUTO);
    assert_int_equal(ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err), HT_ENOTFOUND);
    assert_null(rt);
    assert_non_null(strstr(err.text, "no tuned configuration"));
    assert_non_null(strstr(err.text, "hetune tune"));
    assert_non_null(strstr(err.text, "device 0"));
    /* The database it would have made is not left behind (issue 29 item 12) ... */
    assert_int_equal(access(db_path, F_OK), -1);
    /* ... but one that was there stays. */
    {
        struct ht_store *st = NULL;
        assert_int_equal(ht_store_open(db_path, &st, &err), HT_OK);
        ht_store_close(st);
        rt = (void *)1;
        assert_int_equal(ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err), HT_ENOTFOUND);
        assert_int_equal(access(db_path, F_OK), 0);
        unlink(db_path);
    }
}

/* Opens with mode, launches 3 times with new inputs, checks every output. */
static void launch_rounds(enum ht_runtime_mode mode, int tune, int expect_tuned)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    const struct ht_runtime_info *info;
    struct ht_error err;
    float *a, *b, *c, mine[N];
    size_t bytes = 0, used = 0;
    double shares = 0;

    ht_error_clear(&err);
    opts_for(&o, tune, mode);
    if (ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);
    info = ht_runtime_info(rt);
    assert_int_equal(info->ndevices, ndevices);
    assert_true(strlen(info->decision) > 0);
    for (size_t i = 0; i < info->ndevices; i++) {
        assert_int_equal(info->devices[i].tuned_now, expect_tuned);
        assert_true(info->devices[i].tuned_s > 0);
        used += info->devices[i].used;
        shares += info->devices[i].share;
    }
    assert_true(shares > 0.999 && shares < 1.001);
    if (mode == HT_RUNTIME_SPLIT && ndevices > 1) {
        assert_int_equal(info->split, 1);
        assert_int_equal(used, ndevices);
    }
    if (mode == HT_RUNTIME_ALONE || ndevices == 1) {
        assert_int_equal(info->split, 0);
        assert_int_equal(used, 1);
    }
    assert_int_equal(ht_runtime_arg_bytes(rt, "a", &bytes, &err), HT_OK);
    assert_int_equal(bytes, N * sizeof(float));
    /* Runtime memory for a and b, the program's own array for c. */
    a = ht_runtime_alloc(rt, bytes, &err);
    b = ht_runtime_alloc(rt, bytes, &err);
    c = mine;
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(ht_runtime_bind(rt, "a", a, bytes, &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "b", b, bytes, &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "c", c, bytes, &err), HT_OK);
    assert_null(ht_runtime_last(rt));
    for (int r = 0; r < 3; r++) {
        fill(b, c, a, r);
        if (ht_runtime_launch(rt, &err) != HT_OK)
            fail_msg("launch %d: %s", r, err.text);
        check(a, b, c);
    }
    info = ht_runtime_info(rt);
    assert_int_equal(info->launches, 3);
    assert_true(info->last_wall_s > 0);
    assert_non_null(ht_runtime_last(rt));
    ht_runtime_free_host(rt, b);
    /* b was unbound with its memory. */
    assert_int_equal(ht_runtime_launch(rt, &err), HT_EINVAL);
    ht_runtime_close(rt);
}

/* A device where nothing is usable (a constraint only the device with the most compute
 * units meets) is skipped and reported; the runtime goes on with the others. */
static void test_skipped_device(void **state)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    const struct ht_runtime_info *info;
    struct ht_error err;
    char text[sizeof spec_text + 128], path[600], db[600];
    const char *at = strstr(spec_text, "  \"args\"");
    float a[N], b[N], c[N];
    (void)state;

    if (ndevices < 2 || min_cu == max_cu) {
        skip(); /* needs two devices that differ in compute units */
        return;
    }
    snprintf(text, sizeof text, "%.*s  \"constraints\": [\"compute_units >= %u\"],\n%s",
             (int)(at - spec_text), spec_text, max_cu, at);
    snprintf(path, sizeof path, "%s/skip.json", dir);
    snprintf(db, sizeof db, "%s/skip.db", dir);
    write_file(path, text);
    ht_error_clear(&err);
    opts_for(&o, 1, HT_RUNTIME_SPLIT);
    o.db = db;
    if (ht_runtime_open(path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);
    info = ht_runtime_info(rt);
    assert_int_equal(info->ndevices + info->nskipped, ndevices);
    assert_true(info->nskipped >= 1);
    assert_int_equal(info->split, info->ndevices > 1);
    assert_true(info->skipped[0].dev->compute_units < max_cu);
    assert_non_null(strstr(info->skipped[0].reason, "no configuration"));
    assert_int_equal(ht_runtime_bind(rt, "a", a, sizeof a, &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "b", b, sizeof b, &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "c", c, sizeof c, &err), HT_OK);
    fill(b, c, a, 1);
    if (ht_runtime_launch(rt, &err) != HT_OK)
        fail_msg("launch: %s", err.text);
    check(a, b, c);
    ht_runtime_close(rt);
    unlink(path);
    unlink(db);
}

static void test_tune_then_split(void **state)
{
    (void)state;
    launch_rounds(HT_RUNTIME_SPLIT, 1, 1);
}

static void test_from_database(void **state)
{
    (void)state;
    launch_rounds(HT_RUNTIME_AUTO, 0, 0);
    launch_rounds(HT_RUNTIME_ALONE, 0, 0);
}

/* A runtime opened with o on the vecadd spec, a, b and c (N floats each) bound. */
static struct ht_runtime *open_bound(const struct ht_runtime_opts *o, float *a, float *b,
                                     float *c)
{
    struct ht_runtime *rt = NULL;
    struct ht_error err;

    ht_error_clear(&err);
    if (ht_runtime_open(spec_path, NULL, 0, o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);
    assert_int_equal(ht_runtime_bind(rt, "a", a, N * sizeof *a, &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "b", b, N * sizeof *b, &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "c", c, N * sizeof *c, &err), HT_OK);
    return rt;
}

/* Mode AUTO: a split whose first launches run slower than the fastest device alone by
 * opts.fallback_ratio gives way to that device alone, and says so; the outputs stay right
 * through the change. On PoCL's CPU devices the decision never splits (two devices share
 * the cores), so mode SPLIT is watched as AUTO would be after a split (runtime-test.h),
 * against an alone time no launch can beat (1 ns), once with fallback and once with the
 * ratio below 0 (never). A decision that keeps one device alone watches nothing. */
static void test_fallback(void **state)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    const struct ht_runtime_info *info;
    struct ht_error err;
    float a[N], b[N], c[N];
    (void)state;

    if (ndevices < 2) {
        skip(); /* one device: nothing is split */
        return;
    }
    for (int never = 0; never < 2; never++) {
        size_t used = 0;
        unsigned decisions = 0;
        char before[256];
        opts_for(&o, 0, HT_RUNTIME_SPLIT);
        o.fallback_ratio = never ? -1 : 0; /* the default ratio, or never */
        ht_error_clear(&err);
        rt = open_bound(&o, a, b, c);
        info = ht_runtime_info(rt);
        assert_int_equal(info->split, 1);
        /* The first launch decides again for the program's arrays (split as asked); the
         * watch starts after it. */
        for (int r = 0; r < HT_RUNTIME_WATCH_LAUNCHES + 3; r++) {
            if (r == 1) {
                snprintf(before, sizeof before, "%s", ht_runtime_info(rt)->decision);
                decisions = ht_runtime_info(rt)->decisions;
                ht__runtime_watch_as_auto(rt, 1, 1e-9);
            }
            fill(b, c, a, r);
            if (ht_runtime_launch(rt, &err) != HT_OK)
                fail_msg("launch %d: %s", r, err.text);
            check(a, b, c);
            info = ht_runtime_info(rt);
            /* Split until the watch has seen its launches; then alone, unless never. */
            if (info->split != (never || r < HT_RUNTIME_WATCH_LAUNCHES))
                fail_msg("launch %d: split %d: %s", r, info->split, info->decision);
            /* The launch the watch ended on ran split: the decision after it took its
             * result over, still the last (ht__decision.last); then the device alone's. */
            if (!never && r >= HT_RUNTIME_WATCH_LAUNCHES) {
                const struct ht_coexec_result *last = ht_runtime_last(rt);
                assert_non_null(last);
                assert_int_equal(last->ndevices, r == HT_RUNTIME_WATCH_LAUNCHES ? 2 : 1);
            }
        }
        info = ht_runtime_info(rt);
        for (size_t i = 0; i < info->ndevices; i++)
            used += info->devices[i].used;
        assert_true(strncmp(info->decision, before, strlen(before)) == 0);
        if (never) {
            assert_int_equal(used, info->ndevices);
            assert_string_equal(info->decision, before);
        } else {
            assert_int_equal(used, 1);
            assert_int_equal(info->fastest, 1);
            assert_true(info->devices[1].used && info->devices[1].share == 1.0);
            assert_non_null(strstr(info->decision, "; then device"));
            assert_non_null(strstr(info->decision, "longer than it alone"));
            assert_true(info->predicted_alone_s == 1e-9); /* what was measured stays */
        }
        assert_int_equal(info->decisions, decisions); /* a fallback is not measured */
        ht_runtime_close(rt);
    }
}

/* Fails showing the decision's words when they do not hold words. */
static void said(const char *decision, const char *words)
{
    if (!strstr(decision, words))
        fail_msg("'%s' not in the decision: %s", words, decision);
}

/* The fallback judges the fastest of the split's first launches against the device
 * alone's measured time (both best-of figures): walls of 1, 5 and 5 s against 2 s alone
 * keep the split (their median, 5 s, would not); 3, 5 and 5 s fall back. */
/* What the watch is told before launch 1 (runtime-test.h's seams), for watched_run. */
struct watch_setup {
    double alone_s;          /* ht__runtime_watch_as_auto's, device 1 */
    double split_median_s;   /* > 0: ht__runtime_watch_split_as */
    double recheck_median_s; /* > 0: ht__runtime_recheck_split_as, the first after 8 */
    const double *walls;     /* ht__runtime_watch_walls_as, or NULL */
    unsigned fail;           /* ht__runtime_fail_switch, 0: none */
};

/* A runtime opened in mode SPLIT and watched from launch 1 on as after a mode AUTO decision
 * that split, set up as w, launched `launches` times, every output right. The caller reads
 * its info and closes it. */
static struct ht_runtime *watched_run(const struct watch_setup *w, int launches)
{
    static float a[N], b[N], c[N]; /* bound while the caller holds the runtime */
    struct ht_runtime_opts o;
    struct ht_runtime *rt;
    struct ht_error err;

    opts_for(&o, 0, HT_RUNTIME_SPLIT);
    rt = open_bound(&o, a, b, c);
    for (int r = 0; r < launches; r++) {
        if (r == 1) {
            ht__runtime_watch_as_auto(rt, 1, w->alone_s);
            if (w->split_median_s > 0)
                ht__runtime_watch_split_as(rt, w->split_median_s);
            if (w->recheck_median_s > 0)
                ht__runtime_recheck_split_as(rt, w->recheck_median_s, 8);
            ht__runtime_watch_walls_as(rt, w->walls);
            ht__runtime_fail_switch(rt, w->fail);
        }
        fill(b, c, a, r);
        ht_error_clear(&err);
        if (ht_runtime_launch(rt, &err) != HT_OK)
            fail_msg("launch %d: %s", r, err.text);
        check(a, b, c);
    }
    return rt;
}

static void fastest_case(const double *walls, int falls)
{
    struct watch_setup w = {2.0, 0, 0, walls, 0};
    struct ht_runtime *rt = watched_run(&w, HT_RUNTIME_WATCH_LAUNCHES + 2);
    const struct ht_runtime_info *info = ht_runtime_info(rt);

    if (info->split != !falls)
        fail_msg("walls %g %g %g: split %d: %s", walls[0], walls[1], walls[2], info->split,
                 info->decision);
    assert_int_equal(info->switches, (unsigned)falls);
    if (falls)
        said(info->decision, "launches took 3 s and more, longer than it alone (2 s)");
    ht_runtime_close(rt);
}

static void test_fallback_fastest(void **state)
{
    static const double walls[2][HT_RUNTIME_WATCH_LAUNCHES] = {{5, 1, 5}, {5, 5, 3}};

    (void)state;
    if (ndevices < 2) {
        skip(); /* one device: nothing is split */
        return;
    }
    fastest_case(walls[0], 0);
    fastest_case(walls[1], 1);
}

/* After a fallback, the device alone's first HT_RUNTIME_WATCH_LAUNCHES launches are
 * watched against the split's watched median (issue 26: both launched now, not the alone
 * time measured at the decision), and when it stays alone the split is tried again after
 * 8, 16, ... launches alone. The split's medians are forced (runtime-test.h) so that each
 * outcome is sure whatever PoCL's devices take. WATCH_BACK: the split's median 1 ns, the
 * alone time at the decision 0.1 ns (fallback), the device alone's real launches far
 * longer than 1 ns: the split again, the same plan, once, and nothing more changes.
 * WATCH_RECHECK_WINS: the split's median 1000 s (fallback), the device alone's launches
 * far shorter: it stays alone; at the first recheck the split's median is 1 ns: the split
 * again for good. WATCH_RECHECK_LOSES: the recheck's median 1000 s too: alone again, and
 * again after the second recheck, 16 launches later. The outputs are right at every
 * launch; neither a switch nor a recheck is a decision measured (info->decisions). */
enum watch_how { WATCH_BACK, WATCH_RECHECK_WINS, WATCH_RECHECK_LOSES };

/* info->split after each launch r < n of watch_alone_case, as the watch should move: the
 * split watched at launches 1-3 (the fallback after 3), the device alone's at 4-6 (the
 * outcome after END), then rechecks after 8 << k launches alone, their split's 3 launches
 * judged after the last. */
static void watch_model(enum watch_how how, int *split, int n)
{
    enum { W = HT_RUNTIME_WATCH_LAUNCHES, END = 2 * W };
    int at = END;

    for (int r = 0; r < n; r++)
        split[r] = r < W || (how == WATCH_BACK && r >= END);
    for (unsigned k = 0; how != WATCH_BACK; k++) {
        int sw = at + (8 << k); /* after this launch, the split runs again */
        for (int r = sw; r < sw + W && r < n; r++)
            split[r] = 1;
        if (how == WATCH_RECHECK_WINS) {
            for (int r = sw + W; r < n; r++)
                split[r] = 1;
            break;
        }
        at = sw + W;
        if (at >= n)
            break;
    }
}

static void watch_alone_case(enum watch_how how)
{
    enum { W = HT_RUNTIME_WATCH_LAUNCHES, END = 2 * W, LAUNCHES = 40 };
    /* the launch after which nothing more changes: the return, the first recheck's end */
    const int settled = how == WATCH_BACK ? END : how == WATCH_RECHECK_WINS ? END + 8 + W
                                                                           : LAUNCHES;
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    const struct ht_runtime_info *info;
    struct ht_error err;
    float a[N], b[N], c[N];
    double share[8] = {0};
    char before[256], after[256] = "";
    unsigned decisions = 0;
    size_t used = 0;
    int split[LAUNCHES];

    watch_model(how, split, LAUNCHES);
    opts_for(&o, 0, HT_RUNTIME_SPLIT);
    ht_error_clear(&err);
    rt = open_bound(&o, a, b, c);
    for (int r = 0; r < LAUNCHES; r++) {
        /* r 0 decides again for the program's arrays; the watch starts at launch 1. */
        if (r == 1) {
            info = ht_runtime_info(rt);
            snprintf(before, sizeof before, "%s", info->decision);
            decisions = info->decisions;
            assert_true(info->ndevices <= sizeof share / sizeof share[0]);
            for (size_t i = 0; i < info->ndevices; i++)
                share[i] = info->devices[i].share;
            ht__runtime_watch_as_auto(rt, 1, how == WATCH_BACK ? 1e-10 : 1e-9);
            ht__runtime_watch_split_as(rt, how == WATCH_BACK ? 1e-9 : 1e3);
            ht__runtime_recheck_split_as(rt, how == WATCH_RECHECK_WINS ? 1e-9 : 1e3, 8);
        }
        fill(b, c, a, r);
        if (ht_runtime_launch(rt, &err) != HT_OK)
            fail_msg("launch %d: %s", r, err.text);
        check(a, b, c);
        info = ht_runtime_info(rt);
        if (info->split != split[r])
            fail_msg("launch %d: split %d, expected %d: %s", r, info->split, split[r],
                     info->decision);
        /* The launch a change happened after ran before it: the new one keeps its result. */
        {
            const struct ht_coexec_result *last = ht_runtime_last(rt);
            int ran_split = r == 0 || split[r - 1];
            assert_non_null(last);
            assert_int_equal(last->ndevices, ran_split ? info->ndevices : 1);
        }
        if (r == settled)
            snprintf(after, sizeof after, "%s", info->decision);
        else if (r > settled)
            assert_string_equal(info->decision, after); /* nothing more changes */
    }
    info = ht_runtime_info(rt);
    for (size_t i = 0; i < info->ndevices; i++)
        used += info->devices[i].used;
    assert_true(strncmp(info->decision, before, strlen(before)) == 0);
    assert_int_equal(info->decisions, decisions);
    assert_int_equal(info->fastest, 1);
    assert_true(info->predicted_alone_s == (how == WATCH_BACK ? 1e-10 : 1e-9));
    assert_true(info->switch_s > 0);
    said(info->decision, "; then device");
    switch (how) {
    case WATCH_BACK:
        said(info->decision, "; then the split again: device");
        said(info->decision, "longer than the split's 1e-09 s");
        assert_int_equal(info->rechecks, 0);
        assert_int_equal(info->switches, 2);
        break;
    case WATCH_RECHECK_WINS:
        said(info->decision, "; the split again at recheck 1: 1e-09 s against it alone");
        assert_int_equal(info->rechecks, 1);
        assert_int_equal(info->switches, 2);
        break;
    case WATCH_RECHECK_LOSES:
        said(info->decision, "; 2 rechecks of the split kept it alone, the last 1e+03 s");
        assert_int_equal(info->rechecks, 2);
        assert_int_equal(info->switches, 5);
        break;
    }
    if (how != WATCH_RECHECK_LOSES) {
        assert_int_equal(used, info->ndevices);
        for (size_t i = 0; i < info->ndevices; i++) /* the split decided, planned again */
            assert_true(info->devices[i].share == share[i]);
    } else {
        assert_int_equal(used, 1);
        assert_true(info->devices[1].used && info->devices[1].share == 1.0);
    }
    ht_runtime_close(rt);
}

/* The launches alone before a recheck: 8 times the two switches' time in launches, at
 * least 8, doubled after each recheck the split lost (9 times at most). */
static void test_recheck_launches(void **state)
{
    (void)state;
    /* 20 ms alone, the split's not timed yet: 20 + 2 x 20 ms, 8 x 60 / 11 = 43.6 */
    assert_int_equal(ht__runtime_recheck_launches(0.020, 0, 2, 0.011, 0), 44);
    assert_int_equal(ht__runtime_recheck_launches(0.020, 0, 2, 0.011, 1), 88);
    /* the split's switch timed: 8 x (20 + 30) / 11 = 36.4 */
    assert_int_equal(ht__runtime_recheck_launches(0.020, 0.030, 2, 0.011, 0), 37);
    assert_int_equal(ht__runtime_recheck_launches(0.020, 0.030, 2, 0.011, 12), 37 << 9);
    /* switches quicker than launches, or nothing timed: 8 launches */
    assert_int_equal(ht__runtime_recheck_launches(1e-6, 1e-6, 2, 0.011, 0), 8);
    assert_int_equal(ht__runtime_recheck_launches(0, 0, 2, 0.011, 2), 32);
    assert_int_equal(ht__runtime_recheck_launches(0.02, 0, 2, 0, 0), 8);
    assert_int_equal(ht__runtime_recheck_launches(0.02, 0, 2, -1, 0), 8);
    /* launches of a nanosecond: bounded */
    assert_true(ht__runtime_recheck_launches(10, 10, 2, 1e-12, 9) == (uint64_t)1000000000 << 9);
}

/* A switch that fails to set up (runtime-test.h: the fail-th switch from launch 1 on)
 * keeps what runs, and the decision says so; the watch of that path ends there. Set up as
 * watch_alone_case's how; after LAUNCHES launches, all right, split is split_end. */
static void fail_case(unsigned fail, enum watch_how how, int split_end, unsigned switches,
                      unsigned rechecks, const char *words)
{
    struct watch_setup w = {how == WATCH_BACK ? 1e-10 : 1e-9, how == WATCH_BACK ? 1e-9 : 1e3,
                            how == WATCH_RECHECK_WINS ? 1e-9 : 1e3, NULL, fail};
    struct ht_runtime *rt = watched_run(&w, 40);
    const struct ht_runtime_info *info = ht_runtime_info(rt);

    if (info->split != split_end || info->switches != switches || info->rechecks != rechecks)
        fail_msg("switch %u fails: split %d switches %u rechecks %u, expected %d %u %u: %s",
                 fail, info->split, info->switches, info->rechecks, split_end, switches,
                 rechecks, info->decision);
    said(info->decision, words);
    said(info->decision, "failed as the test asked");
    assert_int_equal(info->failed_launches, 0);
    ht_runtime_close(rt);
}

static void test_switch_fails(void **state)
{
    (void)state;
    if (ndevices < 2) {
        skip(); /* one device: nothing is split */
        return;
    }
    /* the fallback: the split runs on */
    fail_case(1, WATCH_BACK, 1, 0, 0, "but running it alone failed");
    /* the return: the device alone runs on, tried no more */
    fail_case(2, WATCH_BACK, 0, 1, 0, "but splitting again failed");
    /* a recheck's split: the device alone runs on, tried no more */
    fail_case(2, WATCH_RECHECK_WINS, 0, 1, 0, "; trying the split again failed");
    /* a recheck the split lost, the device alone again: the split runs on */
    fail_case(3, WATCH_RECHECK_LOSES, 1, 2, 1, "the split again at recheck 1: running it alone");
}

static void test_fallback_watched(void **state)
{
    (void)state;
    if (ndevices < 2) {
        skip(); /* one device: nothing is split */
        return;
    }
    watch_alone_case(WATCH_BACK);
    watch_alone_case(WATCH_RECHECK_WINS);
    watch_alone_case(WATCH_RECHECK_LOSES);
}

/* ---- the decision's wait for another process's device lock ---- */

static int lock_told, lock_ended;
static long lock_holder;
static volatile sig_atomic_t lock_stop;
static int stop_when_told; /* 1: the notice raises lock_stop, as a Ctrl-C during the wait */

static void on_lock_wait(const struct ht_device_info *d, const char *path, long holder,
                         void *user)
{
    (void)d;
    (void)user;
    if (!path) {
        lock_ended++;
        return;
    }
    lock_told++;
    lock_holder = holder;
    if (stop_when_told)
        lock_stop = 1;
}

/* A child process that holds every CPU device's lock (cpu.lock) for hold_s seconds, or
 * until the pipe whose write end *release is closed; returns once it holds it. */
static pid_t hold_cpu_lock(double hold_s, int *release)
{
    struct ht_device_info cpu;
    int to_child[2], to_parent[2];
    char c = 0;
    pid_t p;

    memset(&cpu, 0, sizeof cpu);
    cpu.is_cpu = 1;
    assert_int_equal(pipe(to_child), 0);
    assert_int_equal(pipe(to_parent), 0);
    p = fork();
    assert_true(p >= 0);
    if (p == 0) {
        const struct ht_device_info *set[] = {&cpu};
        struct ht_device_locks l;
        struct ht_error e;
        struct pollfd pf = {0};
        int ok = ht_device_locks_take(set, 1, NULL, &l, NULL, &e) == HT_OK;
        close(to_child[1]);
        close(to_parent[0]);
        if (write(to_parent[1], "x", 1) != 1)
            ok = 0;
        pf.fd = to_child[0];
        pf.events = POLLIN;
        poll(&pf, 1, (int)(hold_s * 1000));
        ht_device_locks_release(&l, NULL);
        _exit(ok ? 0 : 1);
    }
    close(to_child[0]);
    close(to_parent[1]);
    assert_int_equal(read(to_parent[0], &c, 1), 1);
    close(to_parent[0]);
    *release = to_child[1];
    return p;
}

/* Issue 29: ht_runtime_open's measured decision (AUTO, two devices) waits for another
 * process's device lock: the wait is told to opts.on_device_wait (the holder's pid), a
 * raised opts.stop ends it with HT_EINTR and nothing open, and without a stop it waits
 * until the lock is free, told once, and opens. */
static void test_lock_wait_told_and_stopped(void **state)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = (void *)1;
    struct ht_error err;
    int release, st = 0, rc;
    pid_t p;
    (void)state;

    if (ndevices < 2) {
        skip(); /* one device: nothing is measured, no lock taken */
        return;
    }
    /* Stopped while it waits (test_tune_then_split tuned both devices into db_path). */
    opts_for(&o, 0, HT_RUNTIME_AUTO);
    o.on_device_wait = on_lock_wait;
    o.stop = &lock_stop;
    lock_told = lock_ended = 0;
    lock_stop = 0;
    stop_when_told = 1;
    ht_error_clear(&err);
    p = hold_cpu_lock(60, &release);
    rc = ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err);
    close(release); /* the child lets go before any check can fail */
    waitpid(p, &st, 0);
    assert_int_equal(rc, HT_EINTR);
    assert_null(rt);
    assert_non_null(strstr(err.text, "interrupted while waiting for the device lock"));
    assert_int_equal(lock_told, 1);
    assert_int_equal(lock_ended, 1);
    assert_int_equal(lock_holder, (long)p);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

    /* No stop: it waits until the holder lets go (0.5 s), told once, and opens. */
    o.stop = NULL;
    lock_told = lock_ended = 0;
    stop_when_told = 0;
    rt = NULL;
    p = hold_cpu_lock(0.5, &release);
    rc = ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err);
    close(release);
    waitpid(p, &st, 0);
    if (rc != HT_OK)
        fail_msg("open after the wait: %s", err.text);
    assert_int_equal(lock_told, 1);
    assert_int_equal(lock_ended, 1);
    assert_true(ht_runtime_info(rt)->decisions == 1);
    ht_runtime_close(rt);

    /* Nobody holds it: nothing told. */
    lock_told = lock_ended = 0;
    o.stop = &lock_stop;
    lock_stop = 0;
    if (ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);
    assert_int_equal(lock_told, 0);
    assert_int_equal(lock_ended, 0);
    ht_runtime_close(rt);
}

/* ---- the open's wait for another process's lock on the database ---- */

static int db_told;
static double db_waited;
static volatile sig_atomic_t db_stop;

static void on_db_wait(const char *path, double waited_s, void *user)
{
    (void)user;
    assert_non_null(strstr(path, "hetune.db"));
    db_told++;
    db_waited = waited_s;
    db_stop = 1; /* as a Ctrl-C during the wait */
}

/* A child process that holds the database's write lock (BEGIN EXCLUSIVE) until the pipe
 * whose write end *release is closed, or 60 s; returns once it holds it. */
static pid_t hold_db_lock(int *release)
{
    int to_child[2], to_parent[2];
    char c = 0;
    pid_t p;

    assert_int_equal(pipe(to_child), 0);
    assert_int_equal(pipe(to_parent), 0);
    p = fork();
    assert_true(p >= 0);
    if (p == 0) {
        sqlite3 *db = NULL;
        struct pollfd pf = {0};
        int ok = sqlite3_open(db_path, &db) == SQLITE_OK &&
                 sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL) == SQLITE_OK;
        close(to_child[1]);
        close(to_parent[0]);
        if (write(to_parent[1], ok ? "x" : "-", 1) != 1)
            ok = 0;
        pf.fd = to_child[0];
        pf.events = POLLIN;
        poll(&pf, 1, 60000);
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_close(db);
        _exit(ok ? 0 : 1);
    }
    close(to_child[0]);
    close(to_parent[1]);
    assert_int_equal(read(to_parent[0], &c, 1), 1);
    close(to_parent[0]);
    assert_int_equal(c, 'x');
    *release = to_child[1];
    return p;
}

/* Issue 29: ht_runtime_open waits for another process's lock on the database as tune
 * does: opts.store's on_wait is told once the wait has lasted HT_STORE_WAIT_NOTICE_S,
 * a raised stop ends it (HT_EINTR, nothing open), and its busy_timeout_s ends it too
 * (HT_EDB naming the file); the lock once free, it opens. */
static void test_db_lock_wait_told_and_stopped(void **state)
{
    struct ht_runtime_opts o;
    struct ht_store_opts so;
    struct ht_runtime *rt = (void *)1;
    struct ht_error err;
    int release, st = 0, rc;
    pid_t p;
    (void)state;

    opts_for(&o, 0, HT_RUNTIME_ALONE);
    ht_store_opts_init(&so);
    so.on_wait = on_db_wait;
    so.busy_timeout_s = 30;
    o.store = &so;
    o.stop = &db_stop; /* so.stop is NULL: the runtime's stop serves */
    db_told = 0;
    db_stop = 0;
    ht_error_clear(&err);
    p = hold_db_lock(&release);
    rc = ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err);
    close(release);
    waitpid(p, &st, 0);
    assert_int_equal(rc, HT_EINTR);
    assert_null(rt);
    assert_non_null(strstr(err.text, "interrupted while waiting for the database lock"));
    assert_int_equal(db_told, 1);
    assert_true(db_waited >= HT_STORE_WAIT_NOTICE_S - 0.01 && db_waited < 20);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

    /* A lock held past the wait allowed: HT_EDB naming the file. */
    so.on_wait = NULL;
    so.busy_timeout_s = 0.3;
    db_stop = 0;
    rt = (void *)1;
    ht_error_clear(&err);
    p = hold_db_lock(&release);
    rc = ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err);
    close(release);
    waitpid(p, &st, 0);
    assert_int_equal(rc, HT_EDB);
    assert_null(rt);
    assert_non_null(strstr(err.file, "hetune.db"));
    assert_non_null(strstr(err.text, "the database is locked"));

    /* Free: it opens, and its stored results are all there. */
    ht_error_clear(&err);
    if (ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);
    ht_runtime_close(rt);
}

static void test_refusals(void **state)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    struct ht_error err;
    float a[N], b[N], c[N];
    (void)state;

    ht_error_clear(&err);
    opts_for(&o, 0, HT_RUNTIME_SPLIT);
    if (ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);
    fill(b, c, a, 1);

    assert_int_equal(ht_runtime_bind(rt, "x", a, sizeof a, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "no argument 'x'"));
    assert_non_null(strstr(err.text, "a, b, c"));
    ht_error_clear(&err);
    assert_int_equal(ht_runtime_bind(rt, "n", a, sizeof a, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "'n'"));
    assert_non_null(strstr(err.text, "scalar"));
    ht_error_clear(&err);
    assert_int_equal(ht_runtime_bind(rt, "a", a, sizeof a - 4, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "'a'"));
    assert_non_null(strstr(err.text, "16384"));
    assert_non_null(strstr(err.text, "16380"));
    ht_error_clear(&err);
    assert_int_equal(ht_runtime_bind(rt, "a", NULL, sizeof a, &err), HT_EINVAL);
    ht_error_clear(&err);

    /* c is not bound: nothing runs, a keeps its poison. */
    assert_int_equal(ht_runtime_bind(rt, "a", a, sizeof a, &err), HT_OK);
    assert_int_equal(ht_runtime_bind(rt, "b", b, sizeof b, &err), HT_OK);
    assert_int_equal(ht_runtime_launch(rt, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "'c'"));
    for (size_t i = 0; i < N; i++)
        assert_true(a[i] == -7.0f);
    ht_error_clear(&err);
    assert_int_equal(ht_runtime_bind(rt, "c", c, sizeof c, &err), HT_OK);
    assert_int_equal(ht_runtime_launch(rt, &err), HT_OK);
    check(a, b, c);
    ht_runtime_close(rt);

    /* A device that is not there. */
    ht_error_clear(&err);
    rt = (void *)1;
    o.devices = "0,no-such-device-anywhere";
    assert_int_equal(ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err), HT_ENODEVICE);
    assert_null(rt);
    assert_non_null(strstr(err.text, "no-such-device-anywhere"));
    /* A size the spec does not have is refused at open. */
    ht_error_clear(&err);
    {
        struct ht_size_override bad = {"M", 5};
        o.devices = NULL;
        assert_int_not_equal(ht_runtime_open(spec_path, &bad, 1, &o, &rt, &err), HT_OK);
        assert_null(rt);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_tuning_refused),
        cmocka_unit_test(test_tune_then_split),
        cmocka_unit_test(test_from_database),
        cmocka_unit_test(test_fallback),
        cmocka_unit_test(test_fallback_fastest),
        cmocka_unit_test(test_fallback_watched),
        cmocka_unit_test(test_recheck_launches),
        cmocka_unit_test(test_switch_fails),
        cmocka_unit_test(test_lock_wait_told_and_stopped),
        cmocka_unit_test(test_db_lock_wait_told_and_stopped),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_skipped_device),
    };
    struct ht_platform *plat = NULL;
    struct ht_error err;
    char path[600];
    int rc;

    setenv("POCL_DEVICES", "pthread basic", 0);
    unsetenv("HETUNE_LOCK_DIR"); /* set below, in the test's folder */
    ht_error_clear(&err);
    if (ht_platform_discover(&plat, &err) != HT_OK) {
        fprintf(stderr, "skipped: %s\n", err.text);
        return 77;
    }
    ndevices = plat->count;
    min_cu = max_cu = plat->devices[0].compute_units;
    for (size_t i = 1; i < plat->count; i++) {
        uint32_t cu = plat->devices[i].compute_units;
        min_cu = cu < min_cu ? cu : min_cu;
        max_cu = cu > max_cu ? cu : max_cu;
    }
    ht_platform_free(plat);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(spec_path, sizeof spec_path, "%s/spec.json", dir);
    snprintf(db_path, sizeof db_path, "%s/hetune.db", dir);
    write_file(spec_path, spec_text);
    /* The device locks in the test's folder: other runs on the machine do not hold them. */
    snprintf(path, sizeof path, "%s/locks", dir);
    setenv("HETUNE_LOCK_DIR", path, 1);
    snprintf(path, sizeof path, "%s/kernel.cl", dir);
    write_file(path, kernel_text);
    rc = cmocka_run_group_tests_name("runtime", tests, NULL, NULL);
    unlink(spec_path);
    unlink(path);
    unlink(db_path);
    snprintf(path, sizeof path, "%s/locks/cpu.lock", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/locks/cpu.lock.wait", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/locks", dir);
    rmdir(path);
    rmdir(dir);
    return rc;
}
