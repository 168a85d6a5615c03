/* Tests of co-execution (src/split): the schedulers' chunks as pure arithmetic (every
 * owned range partitions the work, chunks are whole work-groups of their device, the tail
 * rule), with threads hammering the shared counter; then real co-executions on PoCL: the
 * merged output equals a single-device run for every scheduler, 1-D and 2-D kernels, split
 * along dimension 0 and 1, work-group sizes that are not multiples of each other, a device
 * with no slice, one device alone, readwrite and elements-per-work-item buffers, and the
 * refusals. The device tests set POCL_DEVICES="pthread basic" (unless already set) to get
 * two devices; with one device they split it with itself (two contexts). They exit 77
 * (skipped) when no OpenCL platform is found. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune.h"
#include "coexec/coexec-internal.h"
#include "split/split-internal.h"

/* --- pure: element ranges --- */

static void test_axis_range(void **state)
{
    uint64_t lo, hi;
    (void)state;

    /* One element per work-item. */
    assert_int_equal(ht__split_axis_range(100, 100, 0, 10, 20, 0, &lo, &hi), 1);
    assert_int_equal(lo, 10);
    assert_int_equal(hi, 20);
    /* conv1d: N + MASK - 1 inputs for N work-items, halo MASK - 1. */
    assert_int_equal(ht__split_axis_range(64 + 624, 64, 624, 16, 32, 0, &lo, &hi), 1);
    assert_int_equal(lo, 16);
    assert_int_equal(hi, 32 + 624);
    /* ... and owned (written) ranges never take the halo. */
    assert_int_equal(ht__split_axis_range(64, 64, 624, 16, 32, 1, &lo, &hi), 1);
    assert_int_equal(lo, 16);
    assert_int_equal(hi, 32);
    /* Elements per work-item: 4 each. */
    assert_int_equal(ht__split_axis_range(960, 240, 0, 10, 20, 0, &lo, &hi), 1);
    assert_int_equal(lo, 40);
    assert_int_equal(hi, 80);
    /* The halo is clipped to the axis. */
    assert_int_equal(ht__split_axis_range(102, 100, 2, 90, 100, 0, &lo, &hi), 1);
    assert_int_equal(hi, 102);
    assert_int_equal(ht__split_axis_range(100, 100, 5, 90, 100, 0, &lo, &hi), 1);
    assert_int_equal(hi, 100);
    /* Not a multiple either way: whole. */
    assert_int_equal(ht__split_axis_range(101, 100, 0, 0, 10, 0, &lo, &hi), 0);
    assert_int_equal(ht__split_axis_range(50, 100, 0, 0, 10, 0, &lo, &hi), 0);
    assert_int_equal(ht__split_axis_range(103, 100, 2, 0, 10, 1, &lo, &hi), 0);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The work-items that cover a chunk of units, when a work-item covers several units. */
static void test_chunk_items(void **state)
{
    uint64_t lo, n;
    (void)state;

    /* One unit per work-item: the chunk itself. */
    ht__split_chunk_items(48, 96, 1, 48, 960, &lo, &n);
    assert_int_equal(lo, 48);
    assert_int_equal(n, 96);
    /* Units [12, 52) with 8 units per work-item: work-items 1 to 6 (units 8 to 55), 6
     * rounded up to whole groups of 5: 10 work-items from 1. */
    ht__split_chunk_items(12, 40, 8, 5, 120, &lo, &n);
    assert_int_equal(lo, 1);
    assert_int_equal(n, 10);
    /* Near the end: moved back to end at g. */
    ht__split_chunk_items(900, 60, 8, 5, 120, &lo, &n);
    assert_int_equal(lo + n, 120);
    assert_int_equal(n % 5, 0);
    assert_true(lo * 8 <= 900);
    /* Properties. */
    for (int iter = 0; iter < 200000; iter++) {
        uint64_t per = 1 + rnd() % 16, wg = 1 + rnd() % 16, g = wg * (1 + rnd() % 64);
        uint64_t units = g * per, off = rnd() % units, size = 1 + rnd() % (units - off);
        if (size > wg * per * 4)
            size = 1 + size % (wg * per * 4);
        ht__split_chunk_items(off, size, per, wg, g, &lo, &n);
        if (!(n % wg == 0 && n > 0 && lo + n <= g && lo * per <= off &&
              (lo + n) * per >= off + size))
            fail_msg("units [%llu, %llu) per %llu wg %llu g %llu: items [%llu, %llu)",
                     (unsigned long long)off, (unsigned long long)(off + size),
                     (unsigned long long)per, (unsigned long long)wg, (unsigned long long)g,
                     (unsigned long long)lo, (unsigned long long)(lo + n));
    }
}

/* --- pure: schedulers --- */

/* Hands out every chunk of one run, asking devices in a random order, and checks the
 * chunks: whole work-groups of their device, inside [0, G), owned inside launched, the
 * owned ranges a partition of [0, G), an overlap below the device's work-group. */
static void check_run(struct ht_split_sched *s, uint64_t g, const struct ht_split_sched_device *d,
                      size_t n, unsigned *chunks_out)
{
    unsigned char *seen = calloc(g, 1);
    int *done = calloc(n, sizeof *done);
    size_t left = n;
    unsigned chunks = 0;

    assert_non_null(seen);
    assert_non_null(done);
    ht_split_sched_reset(s);
    while (left) {
        size_t i = (size_t)(rnd() % n);
        struct ht_split_chunk c;
        if (done[i])
            continue;
        if (ht_split_sched_next(s, i, &c) == HT_DONE) {
            done[i] = 1;
            left--;
            continue;
        }
        chunks++;
        assert_true(c.size > 0);
        assert_int_equal(c.size % d[i].wg, 0);
        assert_true(c.offset + c.size <= g);
        assert_true(c.own_offset >= c.offset);
        assert_true(c.own_offset + c.own_size <= c.offset + c.size);
        assert_true(c.own_size > 0);
        assert_true(c.size - c.own_size < d[i].wg);
        for (uint64_t k = c.own_offset; k < c.own_offset + c.own_size; k++) {
            assert_int_equal(seen[k], 0);
            seen[k] = 1;
        }
        ht_split_sched_report(s, i, &c, (double)c.size * (d[i].time_s > 0 ? d[i].time_s : 1));
    }
    for (uint64_t k = 0; k < g; k++)
        if (!seen[k])
            fail_msg("work-item %llu owned by nobody", (unsigned long long)k);
    /* Asking again after the end still says done. */
    for (size_t i = 0; i < n; i++) {
        struct ht_split_chunk c;
        assert_int_equal(ht_split_sched_next(s, i, &c), HT_DONE);
    }
    if (chunks_out)
        *chunks_out = chunks;
    free(seen);
    free(done);
}

static void test_sched_properties(void **state)
{
    static const uint64_t wgs[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48, 64};
    (void)state;

    for (int iter = 0; iter < 3000; iter++) {
        size_t n = 1 + (size_t)(rnd() % 4);
        struct ht_split_sched_device d[4];
        uint64_t g = 1;

        memset(d, 0, sizeof d);
        for (size_t i = 0; i < n; i++) {
            uint64_t a, b, t;
            d[i].wg = wgs[rnd() % (sizeof wgs / sizeof wgs[0])];
            d[i].time_s = 0.001 * (double)(1 + rnd() % 1000);
            d[i].is_gpu = (int)(rnd() % 2);
            d[i].compute_units = (uint32_t)(1 + rnd() % 8);
            /* g: a multiple of every wg (Eq. 2 makes every configuration's do). */
            a = g;
            b = d[i].wg;
            while (b) {
                t = a % b;
                a = b;
                b = t;
            }
            g = g / a * d[i].wg;
        }
        g *= 1 + rnd() % 40;
        for (size_t k = 0; ht_split_schedulers[k]; k++) {
            struct ht_split_sched *s = NULL;
            struct ht_error err;
            ht_error_clear(&err);
            if (ht_split_sched_create(ht_split_schedulers[k]->name, g, d, n, NULL, &s, &err) !=
                HT_OK)
                fail_msg("%s: %s", ht_split_schedulers[k]->name, err.text);
            check_run(s, g, d, n, NULL);
            check_run(s, g, d, n, NULL); /* reset makes it hand out everything again */
            ht_split_sched_free(s);
        }
    }
}

/* The shapes the descriptions promise. */
static void test_sched_chunks(void **state)
{
    struct ht_split_sched_device d[2] = {{16, 1.0, 1, 80, 0}, {16, 4.0, 0, 8, 0}};
    struct ht_split_sched *s = NULL;
    struct ht_split_chunk c;
    struct ht_error err;
    unsigned chunks;
    (void)state;

    ht_error_clear(&err);
    /* dynamic: a GPU takes a tenth of the 100 work-groups, a CPU max(1/50, 2 per CU). */
    assert_int_equal(ht_split_sched_create("dynamic", 1600, d, 2, NULL, &s, &err), HT_OK);
    assert_int_equal(ht_split_sched_next(s, 0, &c), HT_OK);
    assert_int_equal(c.offset, 0);
    assert_int_equal(c.size, 160);
    assert_int_equal(ht_split_sched_next(s, 1, &c), HT_OK);
    assert_int_equal(c.offset, 160);
    assert_int_equal(c.size, 16 * 16);
    assert_non_null(ht_split_sched_plan(s)); /* every scheduler knows Algorithm 1's time */
    ht_split_sched_free(s);

    /* guided: chunks shrink. */
    assert_int_equal(ht_split_sched_create("guided", 1600, d, 2, NULL, &s, &err), HT_OK);
    {
        uint64_t prev = UINT64_MAX;
        while (ht_split_sched_next(s, 0, &c) == HT_OK) {
            assert_true(c.size <= prev);
            prev = c.size;
        }
    }
    ht_split_sched_free(s);

    /* guided: a CPU a thousand times slower than the GPU leaves it the work, even when it
     * asks first; at equal speeds both take work. */
    {
        struct ht_split_sched_device h[2] = {{16, 0.001, 1, 80, 0}, {16, 1.0, 0, 4, 0}};
        assert_int_equal(ht_split_sched_create("guided", 1600, h, 2, NULL, &s, &err), HT_OK);
        assert_int_equal(ht_split_sched_next(s, 1, &c), HT_DONE);
        check_run(s, 1600, h, 2, &chunks);
        ht_split_sched_reset(s);
        assert_int_equal(ht_split_sched_next(s, 1, &c), HT_DONE);
        ht_split_sched_free(s);
        h[1].time_s = 0.001;
        assert_int_equal(ht_split_sched_create("guided", 1600, h, 2, NULL, &s, &err), HT_OK);
        assert_int_equal(ht_split_sched_next(s, 1, &c), HT_OK);
        assert_int_equal(ht_split_sched_next(s, 0, &c), HT_OK);
        ht_split_sched_free(s);
    }

    /* static: the plan's slices, one each; a zero factor gives no slice. */
    {
        struct ht_split_sched_opts o;
        double f[2] = {1.0, 0.0};
        ht__split_sched_opts_init(&o);
        o.factors = f;
        assert_int_equal(ht_split_sched_create("static", 1600, d, 2, &o, &s, &err), HT_OK);
        check_run(s, 1600, d, 2, &chunks);
        assert_int_equal(chunks, 1);
        assert_int_equal(ht_split_sched_next(s, 1, &c), HT_DONE);
        ht_split_sched_free(s);
    }

    /* The tail: wg 6 and 4 over 12; device 1 (wg 4) first takes 8, the rest (4) is not
     * a whole group of 6, so device 0's chunk moves back to [6, 12) and owns [8, 12). */
    {
        struct ht_split_sched_device t[2] = {{6, 0, 1, 1, 0}, {4, 0, 1, 1, 0}};
        struct ht_split_sched_opts o;
        ht__split_sched_opts_init(&o);
        o.chunk_fraction = 0.5;
        assert_int_equal(ht_split_sched_create("dynamic", 12, t, 2, &o, &s, &err), HT_OK);
        assert_int_equal(ht_split_sched_next(s, 1, &c), HT_OK);
        assert_int_equal(c.offset, 0);
        assert_int_equal(c.size, 8);
        assert_int_equal(ht_split_sched_next(s, 0, &c), HT_OK);
        assert_int_equal(c.offset, 6);
        assert_int_equal(c.size, 6);
        assert_int_equal(c.own_offset, 8);
        assert_int_equal(c.own_size, 4);
        assert_int_equal(ht_split_sched_next(s, 1, &c), HT_DONE);
        ht_split_sched_free(s);
    }

    /* The kinds: static alone plans every chunk up front, and is the default. */
    for (size_t k = 0; ht_split_schedulers[k]; k++)
        assert_int_equal(ht_split_schedulers[k]->kind,
                         !strcmp(ht_split_schedulers[k]->name, "static")
                             ? HT_SPLIT_SCHED_PLANNED : HT_SPLIT_SCHED_ON_DEMAND);
    assert_ptr_equal(ht__split_sched_planner(), ht_split_scheduler_find("static"));
    assert_int_equal(ht_split_sched_create(NULL, 1600, d, 2, NULL, &s, &err), HT_OK);
    assert_ptr_equal(ht__split_sched_get_ops(s), ht__split_sched_planner());
    ht_split_sched_free(s);

    /* Errors. */
    ht_error_clear(&err);
    assert_int_equal(ht_split_sched_create("nope", 16, d, 2, NULL, &s, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "static, dynamic, guided"));
    ht_error_clear(&err);
    {
        struct ht_split_sched_device u[1] = {{16, 0, 0, 1, 0}};
        assert_int_equal(ht_split_sched_create("static", 16, u, 1, NULL, &s, &err), HT_EINVAL);
        assert_non_null(strstr(err.text, "time"));
        ht_error_clear(&err);
        u[0].wg = 5;
        assert_int_equal(ht_split_sched_create("dynamic", 16, u, 1, NULL, &s, &err), HT_EINVAL);
        assert_non_null(strstr(err.text, "divide"));
    }
}

/* Threads taking chunks at once from one scheduler. */
struct hammer {
    struct ht_split_sched *s;
    size_t device;
    _Atomic unsigned char *owned;
};

static void *hammer_thread(void *arg)
{
    struct hammer *h = arg;
    struct ht_split_chunk c;

    while (ht_split_sched_next(h->s, h->device, &c) == HT_OK) {
        for (uint64_t k = c.own_offset; k < c.own_offset + c.own_size; k++)
            atomic_fetch_add(&h->owned[k], 1);
        ht_split_sched_report(h->s, h->device, &c, 1e-6 * (double)c.size);
    }
    return NULL;
}

static void test_sched_threads(void **state)
{
    struct ht_split_sched_device d[4] = {
        {4, 1.0, 0, 1, 0}, {6, 2.0, 0, 1, 0}, {16, 0.5, 1, 1, 0}, {1, 3.0, 0, 2, 0}};
    const uint64_t g = 48 * 500;
    (void)state;

    for (size_t k = 0; ht_split_schedulers[k]; k++) {
        struct ht_split_sched *s = NULL;
        struct ht_split_sched_opts o;
        struct ht_error err;
        struct hammer h[4];
        pthread_t t[4];
        _Atomic unsigned char *owned = calloc(g, 1);

        assert_non_null(owned);
        ht_error_clear(&err);
        ht__split_sched_opts_init(&o);
        o.chunk_fraction = !strcmp(ht_split_schedulers[k]->name, "dynamic") ? 0.001 : 0;
        assert_int_equal(ht_split_sched_create(ht_split_schedulers[k]->name, g, d, 4, &o, &s,
                                               &err),
                         HT_OK);
        for (size_t i = 0; i < 4; i++) {
            h[i].s = s;
            h[i].device = i;
            h[i].owned = owned;
            assert_int_equal(pthread_create(&t[i], NULL, hammer_thread, &h[i]), 0);
        }
        for (size_t i = 0; i < 4; i++)
            pthread_join(t[i], NULL);
        for (uint64_t i = 0; i < g; i++)
            if (owned[i] != 1)
                fail_msg("%s: work-item %llu owned %u times", ht_split_schedulers[k]->name,
                         (unsigned long long)i, (unsigned)owned[i]);
        ht_split_sched_free(s);
        free((void *)owned);
    }
}

/* --- pure: split results in the store --- */

static int collect_point(const struct ht_stored_sweep_point *pt, void *user)
{
    struct ht_stored_sweep_point *out = user;
    out[pt->index] = *pt;
    return 0;
}

static void test_store_split(void **state)
{
    struct ht_store *store = NULL;
    struct ht_error err;
    struct ht_device_info dev;
    struct ht_spec spec;
    struct ht_stored_split sp, back;
    struct ht_stored_split_device d[2];
    struct ht_stored_sweep_point pts[3], got[3];
    int64_t dev_id, kernel_id, problem_id, split_id = 0;
    char *size_names[] = {"N"};
    int64_t size_values[] = {960};
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(ht_store_open(":memory:", &store, &err), HT_OK);
    memset(&dev, 0, sizeof dev);
    snprintf(dev.name, sizeof dev.name, "fake");
    snprintf(dev.platform, sizeof dev.platform, "fake platform");
    dev.compute_units = 4;
    assert_int_equal(ht_store_device_id(store, &dev, &dev_id, &err), HT_OK);
    memset(&spec, 0, sizeof spec);
    spec.name = "s";
    spec.path = "s.json";
    spec.kernel_path = "k.cl";
    spec.kernel_name = "k";
    spec.kernel_options = "";
    spec.source = "kernel";
    spec.source_len = 6;
    spec.space.nsizes = 1;
    spec.space.size_names = size_names;
    spec.space.size_values = size_values;
    assert_int_equal(ht_store_kernel_id(store, &spec, &kernel_id, &err), HT_OK);
    assert_int_equal(ht_store_problem_id(store, kernel_id, &spec, &problem_id, &err), HT_OK);

    ht_stored_split_init(&sp);
    sp.problem_id = problem_id;
    assert_int_equal(ht_store_put_split(store, &sp, NULL, &err), HT_EINVAL); /* no devices */
    ht_error_clear(&err);
    memset(d, 0, sizeof d);
    for (int i = 0; i < 2; i++) {
        d[i].device_id = dev_id;
        snprintf(d[i].config, sizeof d[i].config, "WG=%d", 16 << i);
        d[i].wg = 16u << i;
        d[i].time_seconds = 1.0 + i;
        d[i].optimal_factor = i ? 1 / 3.0 : 2 / 3.0;
        d[i].adjusted_factor = i ? 0.3 : 0.7;
        d[i].offset = i ? 672 : 0;
        d[i].size = i ? 288 : 672;
        d[i].own_offset = d[i].offset;
        d[i].own_size = d[i].size;
        d[i].chunks = 1;
        d[i].kernel_seconds = 0.5;
        d[i].write_seconds = -1; /* not measured: NULL */
        d[i].read_seconds = 0.01;
    }
    snprintf(sp.scheduler, sizeof sp.scheduler, "static");
    sp.dim = 1;
    sp.global = 960;
    sp.theoretical_seconds = 0.667;
    sp.seconds = 0.8;
    sp.verified = 1;
    sp.ndevices = 2;
    sp.devices = d;
    assert_int_equal(ht_store_put_split(store, &sp, &split_id, &err), HT_OK);
    assert_true(split_id > 0);
    assert_int_equal(ht_store_get_split(store, split_id, &back, &err), HT_OK);
    assert_string_equal(back.scheduler, "static");
    assert_int_equal(back.dim, 1);
    assert_int_equal(back.global, 960);
    assert_true(back.seconds == 0.8 && back.kernel_seconds == -1 && back.verified == 1);
    assert_true(back.created_at[0] != '\0');
    assert_int_equal(back.ndevices, 2);
    assert_string_equal(back.devices[1].config, "WG=32");
    assert_int_equal(back.devices[1].offset, 672);
    assert_true(back.devices[0].optimal_factor == 2 / 3.0);
    assert_true(back.devices[0].write_seconds == -1 && back.devices[0].read_seconds == 0.01);
    free(back.devices);
    assert_int_equal(ht_store_get_split(store, split_id + 1, &back, &err), HT_ENOTFOUND);

    for (unsigned k = 0; k < 3; k++) {
        pts[k].index = k;
        pts[k].factor = k / 2.0;
        pts[k].theoretical_seconds = 1.0 + k;
        pts[k].seconds = 2.0 + k;
        pts[k].kernel_seconds = -1;
        pts[k].verified = 1;
    }
    /* Out of order, and one stored twice (replaced). */
    assert_int_equal(ht_store_put_sweep_point(store, split_id, &pts[2], &err), HT_OK);
    assert_int_equal(ht_store_put_sweep_point(store, split_id, &pts[0], &err), HT_OK);
    pts[0].seconds = 9.0;
    assert_int_equal(ht_store_put_sweep_point(store, split_id, &pts[0], &err), HT_OK);
    assert_int_equal(ht_store_put_sweep_point(store, split_id, &pts[1], &err), HT_OK);
    memset(got, 0, sizeof got);
    assert_int_equal(ht_store_list_sweep(store, split_id, collect_point, got, &err), HT_OK);
    for (unsigned k = 0; k < 3; k++) {
        assert_true(got[k].factor == k / 2.0);
        assert_true(got[k].seconds == pts[k].seconds);
        assert_true(got[k].kernel_seconds == -1);
    }
    assert_true(got[0].seconds == 9.0);
    ht_store_close(store);
}

/* --- co-execution on real devices --- */

static struct ht_platform *plat;
static const struct ht_device_info *devA, *devB;
static char source_dir[2048];

/* The device tests run twice (main): on the data path PoCL's CPU devices take by default,
 * in place, then copied through pinned memory in pieces of a few bytes, so that every
 * chunk is moved and launched in many pieces over the two queues. */
static enum ht_data_path test_path = HT_PATH_AUTO;
static uint64_t test_piece_bytes;

static void test_opts_init(struct ht_coexec_opts *opts)
{
    ht__coexec_opts_init(opts);
    opts->exec.data_path = test_path;
    opts->piece_bytes = test_piece_bytes;
}

/* The workflow's public defaults of the co-execution's options (ht_workflow_split_opts_init,
 * written out in src/workflow/split.c) are coexec's own, for the co-executions it makes
 * itself (ht__coexec_opts_init): the two agree field for field. */
static void test_opts_defaults(void **state)
{
    struct ht_workflow_split_opts w;
    struct ht_coexec_opts c;

    (void)state;
    ht_workflow_split_opts_init(&w);
    ht__coexec_opts_init(&c);
    assert_int_equal(w.coexec.warmup, 1);
    assert_true(w.coexec.margin == HT_SPLIT_MARGIN_DEFAULT);
    assert_memory_equal(&w.coexec, &c, sizeof c);
}

static struct ht_spec *load(const char *name)
{
    char path[4096];
    struct ht_spec *spec = NULL;
    struct ht_error err;

    snprintf(path, sizeof path, "%s/tests/fixtures/split/%s", source_dir, name);
    ht_error_clear(&err);
    if (ht_spec_load(path, NULL, 0, &spec, &err) != HT_OK)
        fail_msg("cannot load %s: %s", path, err.text);
    return spec;
}

static void config_of(const struct ht_spec *spec, const char *assign, int64_t *config)
{
    /* assign: "WX=4,WY=3" */
    char buf[256], *items[8], *p;
    size_t n = 0;
    struct ht_error err;

    snprintf(buf, sizeof buf, "%s", assign);
    for (p = strtok(buf, ","); p && n < 8; p = strtok(NULL, ","))
        items[n++] = p;
    ht_error_clear(&err);
    if (ht_spec_config_from_assignments(spec, (const char *const *)items, n, config, &err) !=
        HT_OK)
        fail_msg("bad configuration %s: %s", assign, err.text);
}

struct case_opts {
    const char *spec;
    const char *sched;
    unsigned dim;
    size_t ndev;              /* 1 or 2 */
    const char *config[2];
    double time[2];
    const double *factors;    /* static: instead of the times */
    double chunk_fraction;
    int expect_overlap;       /* 1: the static plan must overlap */
    size_t expect_idle;       /* device index + 1 that must get no work, or 0 */
};

/* Co-executes, checks the merged output against a single-device run and returns the
 * result's first device's items for further checks. */
static void run_case(const struct case_opts *o)
{
    struct ht_spec *spec = load(o->spec);
    struct ht_coexec_device devs[2];
    int64_t cfg[2][8];
    struct ht_coexec_opts opts;
    struct ht_coexec *cx = NULL;
    struct ht_coexec_result res;
    struct ht_error err;
    uint64_t owned = 0;
    int rc;

    memset(devs, 0, sizeof devs);
    for (size_t i = 0; i < o->ndev; i++) {
        config_of(spec, o->config[i], cfg[i]);
        devs[i].dev = i == 0 ? devA : devB;
        devs[i].config = cfg[i];
        devs[i].time_s = o->time[i];
    }
    test_opts_init(&opts);
    opts.dim = o->dim;
    opts.scheduler = o->sched;
    opts.sched.factors = o->factors;
    opts.sched.chunk_fraction = o->chunk_fraction;
    ht_error_clear(&err);
    rc = ht__coexec_create(spec, devs, o->ndev, &opts, &cx, &err);
    if (rc != HT_OK)
        fail_msg("%s %s dim %u: create: %s", o->spec, o->sched, o->dim, err.text);
    if (o->expect_overlap) {
        const struct ht_split_plan *p = ht__coexec_plan(cx);
        assert_non_null(p);
        if (p->overlap == 0)
            fail_msg("%s: the plan should overlap", o->spec);
    }
    rc = ht__coexec_run(cx, &res, &err);
    if (rc != HT_OK)
        fail_msg("%s %s dim %u: run: %s", o->spec, o->sched, o->dim, err.text);
    assert_int_equal(res.nruns, spec->repeats);
    assert_true(res.wall_s > 0);
    assert_true(res.kernel_s > 0);
    assert_true(res.wall_s >= res.devices[0].kernel_s);
    for (size_t i = 0; i < o->ndev; i++) {
        owned += res.devices[i].owned;
        assert_true(res.devices[i].items >= res.devices[i].owned);
        if (o->expect_idle == i + 1) {
            assert_int_equal(res.devices[i].chunks, 0);
            assert_int_equal(res.devices[i].items, 0);
        } else if (o->ndev == 1 || !strcmp(res.scheduler, "static")) {
            assert_true(res.devices[i].chunks >= 1);
        }
    }
    assert_int_equal(owned, res.global);
    rc = ht__coexec_verify(cx, 0, &res, &err);
    if (rc != HT_OK)
        fail_msg("%s %s dim %u: verify: %s", o->spec, o->sched, o->dim, err.text);
    assert_int_equal(res.verified, 1);
    assert_int_equal(res.mismatches, 0);
    ht_coexec_result_destroy(&res);
    ht__coexec_free(cx);
    ht_spec_free(spec);
}

static const char *const scheds[] = {"static", "dynamic", "guided"};

static void test_stencil_1d(void **state)
{
    (void)state;
    for (size_t k = 0; k < 3; k++) {
        /* 48 and 64 are not multiples of each other: the residue device overlaps. */
        struct case_opts o = {"stencil.json", scheds[k], 0, 2, {"WG=48", "WG=64"},
                              {1.0, 2.1}, NULL, 0, k == 0, 0};
        run_case(&o);
        o.config[0] = "WG=12";
        o.config[1] = "WG=40";
        o.time[1] = 1.3;
        run_case(&o);
    }
}

static void test_grid_2d(void **state)
{
    (void)state;
    for (size_t k = 0; k < 3; k++)
        for (unsigned dim = 0; dim < 2; dim++) {
            /* Along x: 96 work-items, wg 12 and 32; along y: 60, wg 4 and 6; the static
             * plans overlap (8 and 2 work-items). */
            struct case_opts o = {"grid.json", scheds[k], dim, 2, {"WX=12,WY=4", "WX=32,WY=6"},
                                  {1.0, dim ? 2.3 : 1.3}, NULL, 0, k == 0, 0};
            run_case(&o);
        }
}

static void test_readwrite(void **state)
{
    (void)state;
    for (size_t k = 0; k < 3; k++) {
        struct case_opts o = {"triple.json", scheds[k], 0, 2, {"WG=16", "WG=24"},
                              {1.0, 1.0}, NULL, 0, 0, 0};
        run_case(&o);
        /* 48 and 80 are not multiples of each other: some work-items are computed twice
         * (the residue's overlap, a tail chunk moved back), which an update in place
         * cannot survive (x = 3x + i applied twice); seen failing in cli/split. */
        o.config[0] = "WG=48";
        o.config[1] = "WG=80";
        o.time[1] = 1.4;
        run_case(&o);
    }
}

static void test_elements_per_item(void **state)
{
    (void)state;
    for (size_t k = 0; k < 3; k++) {
        struct case_opts o = {"ept.json", scheds[k], 0, 2, {"WG=16", "WG=6"},
                              {2.0, 1.0}, NULL, 0, 0, 0};
        run_case(&o);
    }
}

/* Devices tuned to different elements per work-item: 240 and 480 work-items along x, units
 * lcm = 480; device 0's work-group of 16 covers 32 units, device 1's of 6 covers 6. */
static void test_different_global(void **state)
{
    (void)state;
    for (size_t k = 0; k < 3; k++) {
        struct case_opts o = {"ept2.json", scheds[k], 0, 2, {"WG=16,EPT=4", "WG=6,EPT=2"},
                              {1.0, 1.5}, NULL, 0, 0, 0};
        run_case(&o);
        /* Units 960: device 1's work-items cover 8 units each; device 0's chunks of 12
         * units leave device 1's chunks starting inside one of its work-items. */
        o.config[0] = "WG=12,EPT=1";
        o.config[1] = "WG=5,EPT=8";
        o.time[1] = 0.7;
        o.chunk_fraction = 0.01;
        run_case(&o);
    }
}

static void test_idle_device(void **state)
{
    static const double all_first[2] = {1.0, 0.0}, all_second[2] = {0.0, 1.0};
    (void)state;
    {
        struct case_opts o = {"stencil.json", "static", 0, 2, {"WG=48", "WG=64"},
                              {1.0, 1.0}, all_first, 0, 0, 2};
        run_case(&o);
    }
    {
        struct case_opts o = {"grid.json", "static", 1, 2, {"WX=12,WY=4", "WX=32,WY=6"},
                              {1.0, 1.0}, all_second, 0, 0, 1};
        run_case(&o);
    }
    {
        /* By Eq. 4: a device 1000 times slower gets less than a work-group. */
        struct case_opts o = {"stencil.json", "static", 0, 2, {"WG=64", "WG=96"},
                              {1.0, 1000.0}, NULL, 0, 0, 2};
        run_case(&o);
    }
}

static void test_one_device(void **state)
{
    (void)state;
    for (size_t k = 0; k < 3; k++) {
        struct case_opts o = {"grid.json", scheds[k], 1, 1, {"WX=8,WY=5", NULL},
                              {1.0, 0}, NULL, 0, 0, 0};
        run_case(&o);
        o.spec = "triple.json";
        o.config[0] = "WG=32";
        o.dim = 0;
        run_case(&o);
    }
}

/* Many small chunks: each device launches several kernels at different offsets. */
static void test_small_chunks(void **state)
{
    (void)state;
    struct case_opts o = {"stencil.json", "dynamic", 0, 2, {"WG=12", "WG=40"},
                          {1.0, 1.0}, NULL, 0.02, 0, 0};
    run_case(&o);
    o.spec = "grid.json";
    o.dim = 1;
    o.config[0] = "WX=12,WY=4";
    o.config[1] = "WX=32,WY=6";
    o.chunk_fraction = 0.1;
    run_case(&o);
}

static void test_refusals(void **state)
{
    struct ht_spec *spec = load("noindex.json");
    struct ht_coexec_device devs[2];
    int64_t c0[1], c1[1];
    struct ht_coexec_opts opts;
    struct ht_coexec *cx = NULL;
    struct ht_coexec_result res;
    struct ht_error err;
    (void)state;

    config_of(spec, "WG=8", c0);
    config_of(spec, "WG=16", c1);
    devs[0] = (struct ht_coexec_device){devA, c0, 1.0, 0};
    devs[1] = (struct ht_coexec_device){devB, c1, 1.0, 0};
    test_opts_init(&opts);
    ht_error_clear(&err);
    assert_int_equal(ht__coexec_create(spec, devs, 2, &opts, &cx, &err), HT_ESPEC);
    assert_null(cx);
    assert_non_null(strstr(err.text, "written buffer 'out' has no index"));
    assert_string_equal(err.field, "args[1].index");

    /* One device needs no merge: it runs, and matches. */
    ht_error_clear(&err);
    assert_int_equal(ht__coexec_create(spec, devs, 1, &opts, &cx, &err), HT_OK);
    assert_int_equal(ht__coexec_run(cx, &res, &err), HT_OK);
    assert_int_equal(ht__coexec_verify(cx, 0, &res, &err), HT_OK);
    assert_int_equal(res.verified, 1);
    ht_coexec_result_destroy(&res);
    ht__coexec_free(cx);

    /* A split dimension the NDRange lacks, an unknown scheduler, static without times. */
    ht_error_clear(&err);
    opts.dim = 1;
    assert_int_equal(ht__coexec_create(spec, devs, 1, &opts, &cx, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "split dimension 1"));
    ht_error_clear(&err);
    opts.dim = 0;
    opts.scheduler = "roundrobin";
    assert_int_equal(ht__coexec_create(spec, devs, 1, &opts, &cx, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "unknown scheduler 'roundrobin'"));
    ht_error_clear(&err);
    opts.scheduler = NULL;
    devs[0].time_s = 0;
    assert_int_equal(ht__coexec_create(spec, devs, 1, &opts, &cx, &err), HT_EINVAL);
    ht_spec_free(spec);

    /* Different global sizes along the split dimension. (grid with x along y: n/a.) A
     * configuration that breaks a rule names its device. */
    spec = load("stencil.json");
    config_of(spec, "WG=48", c0);
    devs[0] = (struct ht_coexec_device){devA, c0, 1.0, 0};
    c1[0] = 7; /* not in the domain */
    devs[1] = (struct ht_coexec_device){devB, c1, 1.0, 0};
    ht_error_clear(&err);
    assert_int_equal(ht__coexec_create(spec, devs, 2, &opts, &cx, &err), HT_ECONSTRAINT);
    assert_non_null(strstr(err.text, "device "));
    ht_spec_free(spec);
}

/* Verification can fail: a configuration that leaves elements unwritten. */
static void test_verify_catches_holes(void **state)
{
    struct ht_spec *spec = load("holes.json");
    struct ht_coexec_device devs[2];
    int64_t good[2], bad[2];
    struct ht_coexec_opts opts;
    struct ht_coexec *cx = NULL;
    struct ht_coexec_result res;
    struct ht_error err;
    (void)state;

    config_of(spec, "WG=8,P=1", good);
    config_of(spec, "WG=16,P=2", bad);
    devs[0] = (struct ht_coexec_device){devA, good, 1.0, 0};
    devs[1] = (struct ht_coexec_device){devB, bad, 1.0, 0};
    test_opts_init(&opts);
    ht_error_clear(&err);
    assert_int_equal(ht__coexec_create(spec, devs, 2, &opts, &cx, &err), HT_OK);
    assert_int_equal(ht__coexec_run(cx, &res, &err), HT_OK);
    assert_int_equal(ht__coexec_verify(cx, 0, &res, &err), HT_EVERIFY);
    assert_int_equal(res.verified, 0);
    assert_true(res.mismatches > 0);
    assert_non_null(strstr(err.text, "out["));
    ht_coexec_result_destroy(&res);
    ht__coexec_free(cx);
    ht_spec_free(spec);
}

/* Sweeps reuse one co-execution; the estimate predicts from measurements alone. */
static void test_factors_and_estimate(void **state)
{
    struct ht_spec *spec = load("stencil.json");
    struct ht_coexec_device devs[2];
    int64_t c0[1], c1[1];
    struct ht_coexec_opts opts;
    struct ht_coexec *cx = NULL;
    struct ht_coexec_result res;
    struct ht_coexec_alone alone[2] = {{1.0, 0.1, 0.1, 1.3}, {2.0, 0.1, 0.1, 2.3}};
    struct ht_coexec_estimate est;
    struct ht_error err;
    char dir[] = "/tmp/hetune-coexec-XXXXXX";
    (void)state;

    config_of(spec, "WG=16", c0);
    config_of(spec, "WG=32", c1);
    devs[0] = (struct ht_coexec_device){devA, c0, 1.0, 0};
    devs[1] = (struct ht_coexec_device){devB, c1, 2.0, 0};
    test_opts_init(&opts);
    ht_error_clear(&err);
    assert_int_equal(ht__coexec_create(spec, devs, 2, &opts, &cx, &err), HT_OK);
    assert_int_equal(ht__coexec_estimate(cx, alone, &est, &err), HT_OK);
    assert_int_equal(est.fastest, 0);
    assert_true(fabs(est.alone_s - 1.3) < 1e-12);
    /* Measured when worth it (kept at or under alone), or when predicted faster but within
     * the margin (kept at or under alone less the margin); not when predicted slower. */
    assert_int_equal(est.worth_it, 1);
    assert_int_equal(est.check, 0);
    assert_true(fabs(est.keep_s - 1.3) < 1e-12);
    {
        /* The same split (0.967 s against 1.3 alone) under a margin of 50%: predicted
         * faster, not by the margin: measured, kept at or under 1.3 / 1.5. */
        struct ht_coexec_opts wide = opts;
        struct ht_coexec *cx2 = NULL;
        struct ht_coexec_estimate e;
        wide.margin = 0.5;
        assert_int_equal(ht__coexec_create(spec, devs, 2, &wide, &cx2, &err), HT_OK);
        assert_int_equal(ht__coexec_estimate(cx2, alone, &e, &err), HT_OK);
        assert_int_equal(e.worth_it, 0);
        assert_int_equal(e.check, 1);
        assert_true(fabs(e.keep_s - 1.3 / 1.5) < 1e-12);
        ht__coexec_free(cx2);
    }
    /* Each device's bus model has the same fixed cost, 0.3 s: in place, its wall alone
     * beyond its kernel; copied in pieces, its host overhead beyond max(kernel, transfers)
     * plus one piece of transfers (the fill). Its slope is its kernel time (transfers of
     * 0.2 s overlap kernels of 1 s and 2 s). Both finish together at 0.3 + T' with
     * T' / 1 + T' / 2 = 1: T' = 2/3, device 0 with 640 work-items, 40 whole groups of 16. */
    assert_true(fabs(est.bound_s - (0.3 + 2.0 / 3)) < 1e-9);
    assert_true(fabs(est.split_s - (0.3 + 2.0 / 3)) < 1e-9);
    assert_true(fabs(est.paper_s - (0.3 + 2.0 / 3)) < 1e-9);
    assert_true(fabs(est.kernel_bound_s - 2.0 / 3) < 1e-12);
    assert_int_equal(est.worth_it, 1);
    /* Each model's time for the whole problem is the wall time measured alone, on every
     * path, with the link measured or not: above it (transfers measured alone that sum to
     * more than the wall, as uploads and downloads that overlapped both ways of the link)
     * the model is scaled down to it, below it the rest is a fixed cost. */
    {
        struct ht_coexec_alone duplex[2] = {{1.0, 1.5, 1.5, 1.2}, {0.5, 4.0, 3.0, 4.5}};
        struct ht_split_device_in m[2];
        struct ht_bandwidth slow;
        memset(&slow, 0, sizeof slow);
        slow.h2d_Bps = slow.d2h_Bps = 1000.0;
        for (int link = 0; link < 2; link++) {
            assert_int_equal(ht__coexec_set_bandwidth(cx, 0, link ? &slow : NULL, &err), HT_OK);
            assert_int_equal(ht__coexec_bus_models(cx, duplex, m, &err), HT_OK);
            assert_true(fabs(m[0].time_s - 1.2) < 1e-9);
            assert_true(fabs(m[1].time_s - 4.5) < 1e-9);
            assert_true(m[0].overhead_s >= 0 && m[0].overhead_s < m[0].time_s);
        }
        assert_int_equal(ht__coexec_set_bandwidth(cx, 2, &slow, &err), HT_EINVAL);
        /* A kilobyte a second, and device 0's wall alone as such a link makes it: device
         * 1 alone is predicted faster than any split by the margin. */
        {
            struct ht_coexec_alone slowed[2] = {{1.0, 3.85, 3.84, 9.0}, {2.0, 0.1, 0.1, 2.3}};
            struct ht_coexec_estimate e2;
            assert_int_equal(ht__coexec_set_bandwidth(cx, 0, &slow, &err), HT_OK);
            assert_int_equal(ht__coexec_estimate(cx, slowed, &e2, &err), HT_OK);
            assert_true(e2.bound_s > est.bound_s);
            assert_true(e2.bound_s <= 2.3 + 1e-12);
            assert_int_equal(e2.worth_it, 0);
            assert_int_equal(e2.fastest, 1);
        }
        assert_int_equal(ht__coexec_set_bandwidth(cx, 0, NULL, &err), HT_OK);
    }
    /* A device whose 9 us of kernel sit in 0.43 ms of launches and transfers (a GPU on a
     * small problem, blackscholes on the H100) beside one that takes 3.2 ms: its model
     * of the whole problem is its wall time alone, so no split is predicted to beat it by
     * the margin (a model that kept only its kernel time predicted one). */
    {
        struct ht_coexec_alone small[2] = {{9e-6, 0, 0, 4.3e-4}, {3.1e-3, 0, 0, 3.2e-3}};
        struct ht_coexec_estimate e3;
        assert_int_equal(ht__coexec_estimate(cx, small, &e3, &err), HT_OK);
        assert_int_equal(e3.worth_it, 0);
        assert_int_equal(e3.fastest, 0);
        assert_true(e3.bound_s <= 4.3e-4 + 1e-12 && e3.bound_s > 4.2e-4);
    }
    /* The host memory's time for the split: both PoCL devices work in place, so the bytes
     * through host memory are the problem's own, in (962 floats) and out (960), whatever
     * the shares. At 7,688 bytes in 5 s it is 5 s, shown beside the prediction, which stays
     * the bus plan's; forgotten, it is 0. */
    {
        struct ht_coexec_estimate e4;
        struct ht_host_memory hm;
        memset(&hm, 0, sizeof hm);
        hm.Bps = 7688.0 / 5.0;
        assert_int_equal(ht__coexec_set_host_memory(cx, &hm, &err), HT_OK);
        assert_int_equal(ht__coexec_estimate(cx, alone, &e4, &err), HT_OK);
        assert_true(fabs(e4.host_bytes - 7688.0) < 7688.0 * 0.01);
        assert_true(fabs(e4.host_s - e4.host_bytes / (7688.0 / 5.0)) < 1e-9);
        assert_true(fabs(e4.host_Bps - 7688.0 / 5.0) < 1e-6);
        assert_true(fabs(e4.split_s - (0.3 + 2.0 / 3)) < 1e-9);
        assert_int_equal(e4.worth_it, 1);
        /* With a read rate, reads (3848 bytes of in) and writes (3840 of out) each cost
         * their own: reads at 3848 bytes a second, c = a + b's 3 bytes in 2 s, so a written
         * byte costs 3/1.5 - 2/3848 s. */
        hm.Bps = 1.5;
        hm.read_Bps = 3848.0;
        assert_int_equal(ht__coexec_set_host_memory(cx, &hm, &err), HT_OK);
        assert_int_equal(ht__coexec_estimate(cx, alone, &e4, &err), HT_OK);
        assert_true(fabs(e4.host_s - (1.0 + 3840.0 * (2.0 - 2.0 / 3848.0))) < 0.05 * e4.host_s);
        assert_true(e4.host_s > 7000.0);
        /* A read rate that would make writes cheaper than reads is not believed. */
        hm.Bps = 7688.0 / 5.0;
        hm.read_Bps = 1.0;
        assert_int_equal(ht__coexec_set_host_memory(cx, &hm, &err), HT_OK);
        assert_int_equal(ht__coexec_estimate(cx, alone, &e4, &err), HT_OK);
        assert_true(fabs(e4.host_s - e4.host_bytes / hm.Bps) < 1e-9);
        assert_true(e4.host_split_s == 0.0);
        /* Measured with the copies (shared_Bps), it is a floor: at 7,688 bytes in 5 s, with
         * each part's fixed cost of 0.3 s on top (both parts' 2/3 s of proportional time
         * stretched to 5 s), the split is predicted at 5.3 s and does not pay. */
        hm.shared_Bps = 7688.0 / 5.0;
        assert_int_equal(ht__coexec_set_host_memory(cx, &hm, &err), HT_OK);
        assert_int_equal(ht__coexec_estimate(cx, alone, &e4, &err), HT_OK);
        assert_int_equal(e4.host_floor, 1);
        assert_true(fabs(e4.host_s - e4.host_bytes / hm.shared_Bps) < 1e-9);
        assert_true(fabs(e4.host_split_s - (e4.host_s + 0.3)) < 1e-3);
        assert_true(fabs(e4.split_s - e4.host_split_s) < 1e-12);
        assert_int_equal(e4.worth_it, 0);
        assert_int_equal(e4.check, 0);
        /* Fixed costs of 0.5 s and 0.1 s: the plan gives device 1 the longer proportional
         * part (0.5 + S = 0.1 + 2 (1 - S): S = 0.533, 0.933 s of it against 0.533), so the
         * bytes' 5 s are its, and its 0.1 s goes on top, not device 0's 0.5. */
        {
            struct ht_coexec_alone uneven[2] = {{1.0, 0.1, 0.1, 1.5}, {2.0, 0.1, 0.1, 2.1}};
            assert_int_equal(ht__coexec_estimate(cx, uneven, &e4, &err), HT_OK);
            assert_int_equal(e4.host_floor, 1);
            assert_true(fabs(e4.host_split_s - (e4.host_s + 0.1)) < 0.01);
            assert_true(fabs(e4.split_s - e4.host_split_s) < 1e-12);
        }
        /* Predicted above alone (1.3 s) but within the margin (1.35 s against 1.43):
         * measured, kept only under 1.3 / 1.1. */
        hm.shared_Bps = 7688.0 / 1.05;
        assert_int_equal(ht__coexec_set_host_memory(cx, &hm, &err), HT_OK);
        assert_int_equal(ht__coexec_estimate(cx, alone, &e4, &err), HT_OK);
        assert_true(e4.split_s > 1.3 && e4.split_s < 1.3 * 1.1);
        assert_int_equal(e4.worth_it, 0);
        assert_int_equal(e4.check, 1);
        assert_true(fabs(e4.keep_s - 1.3 / 1.1) < 1e-12);
        /* Bytes that take less than the parts' proportional time leave the plan's. */
        hm.shared_Bps = 7688.0 / 0.1;
        assert_int_equal(ht__coexec_set_host_memory(cx, &hm, &err), HT_OK);
        assert_int_equal(ht__coexec_estimate(cx, alone, &e4, &err), HT_OK);
        assert_int_equal(e4.host_floor, 1);
        assert_true(fabs(e4.host_split_s - (e4.host_s + 0.3)) < 1e-3);
        assert_true(fabs(e4.split_s - (0.3 + 2.0 / 3)) < 1e-9);
        assert_int_equal(e4.worth_it, 1);
        hm.shared_Bps = 7688.0 / 5.0;
        /* The rate measured with as many devices copying as the split uses is the one: in
         * place (auto) neither copies and the rate of all stays; copied to (pinned), the
         * devices that got a part copy, one or both. */
        hm.shared_by_Bps[0] = hm.shared_by_Bps[1] = 7688.0 / 10.0;
        assert_int_equal(ht__coexec_set_host_memory(cx, &hm, &err), HT_OK);
        assert_int_equal(ht__coexec_estimate(cx, alone, &e4, &err), HT_OK);
        assert_true(fabs(e4.host_s - e4.host_bytes / (test_path == HT_PATH_PINNED
                                                           ? hm.shared_by_Bps[1]
                                                           : hm.shared_Bps)) < 1e-9);
        hm.shared_by_Bps[1] = NAN;
        assert_int_equal(ht__coexec_set_host_memory(cx, &hm, &err), HT_EINVAL);
        hm.shared_by_Bps[0] = hm.shared_by_Bps[1] = 0.0;
        hm.shared_Bps = 0.0;
        hm.Bps = -1.0;
        assert_int_equal(ht__coexec_set_host_memory(cx, &hm, &err), HT_EINVAL);
        assert_int_equal(ht__coexec_set_host_memory(cx, NULL, &err), HT_OK);
        assert_int_equal(ht__coexec_estimate(cx, alone, &e4, &err), HT_OK);
        assert_true(fabs(e4.split_s - (0.3 + 2.0 / 3)) < 1e-9);
        assert_true(e4.host_s == 0.0 && e4.host_Bps == 0.0 && e4.host_bytes > 0);
    }
    /* The bus plan replaces the scheduler: device 0 gets its 640 work-items. */
    assert_int_equal(ht__coexec_plan_bus(cx, alone, &err), HT_OK);
    {
        const struct ht_split_plan *bp = ht__coexec_plan(cx);
        assert_non_null(bp);
        assert_int_equal(bp->slices[0].own_size, 640);
        assert_true(fabs(bp->model_time_s - (0.3 + 2.0 / 3)) < 1e-9);
    }
    ht__coexec_reset_models(cx);

    for (int step = 0; step <= 4; step++) {
        double f[2] = {step / 4.0, 1 - step / 4.0};
        assert_int_equal(ht__coexec_set_factors(cx, f, &err), HT_OK);
        assert_int_equal(ht__coexec_run(cx, &res, &err), HT_OK);
        assert_string_equal(res.scheduler, "static");
        if (step == 0)
            assert_int_equal(res.devices[0].items, 0);
        if (step == 4)
            assert_int_equal(res.devices[1].items, 0);
        if (ht__coexec_verify(cx, 1, &res, &err) != HT_OK)
            fail_msg("factor %g: %s", f[0], err.text);
        ht_coexec_result_destroy(&res);
    }
    {
        double bad[2] = {-1, 2};
        assert_int_equal(ht__coexec_set_factors(cx, bad, &err), HT_EINVAL);
    }
    /* The dump holds the merged output. */
    assert_non_null(mkdtemp(dir));
    {
        char path[512];
        size_t count = 0;
        const float *out = ht__coexec_output(cx, 1, &count);
        FILE *f;
        float *back;
        assert_non_null(out);
        assert_int_equal(count, 960);
        assert_null(ht__coexec_output(cx, 0, NULL)); /* a read buffer */
        assert_int_equal(ht__coexec_dump(cx, dir, &err), HT_OK);
        snprintf(path, sizeof path, "%s/out.bin", dir);
        f = fopen(path, "rb");
        assert_non_null(f);
        back = malloc(count * sizeof *back);
        assert_int_equal(fread(back, sizeof *back, count, f), count);
        fclose(f);
        assert_memory_equal(back, out, count * sizeof *back);
        free(back);
        remove(path);
        rmdir(dir);
    }
    ht__coexec_free(cx);
    ht_spec_free(spec);
}

/* --- the caller's arrays (ht__coexec_bind, ht__coexec_launch) --- */

/* The stencil of kernel.cl on the host. */
static void stencil_host(const float *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = in[i] + 2.0f * in[i + 1] + 3.0f * in[i + 2] + 0.25f * (float)i;
}

/* A co-execution for bound arrays on devA (config c0, 1 s) and devB (c1, t1 s). */
static struct ht_coexec *bound_coexec(struct ht_spec *spec, size_t ndev, const char *c0,
                                      const char *c1, double t1)
{
    struct ht_coexec_device devs[2];
    int64_t cfg[2][8];
    struct ht_coexec_opts opts;
    struct ht_coexec *cx = NULL;
    struct ht_error err;

    memset(devs, 0, sizeof devs);
    config_of(spec, c0, cfg[0]);
    config_of(spec, c1, cfg[1]);
    devs[0].dev = devA;
    devs[0].config = cfg[0];
    devs[0].time_s = 1.0;
    devs[1].dev = devB;
    devs[1].config = cfg[1];
    devs[1].time_s = t1;
    test_opts_init(&opts);
    opts.bind_only = 1;
    ht_error_clear(&err);
    if (ht__coexec_create(spec, devs, ndev, &opts, &cx, &err) != HT_OK)
        fail_msg("create: %s", err.text);
    return cx;
}

/* Launches on the caller's arrays, memory of its own (malloc, not page-aligned) and of
 * ht__coexec_alloc, changing the inputs between launches: every output is the host's. */
static void test_bind_launch(void **state)
{
    struct ht_spec *spec = load("stencil.json");
    size_t n = 960, nin = n + 2;
    struct ht_coexec *cx;
    struct ht_coexec_result res;
    struct ht_error err;
    float *expect = malloc(n * sizeof *expect);

    (void)state;
    assert_non_null(expect);
    memset(&res, 0, sizeof res); /* each launch destroys the last one's first */
    for (size_t ndev = 1; ndev <= 2; ndev++) {
        cx = bound_coexec(spec, ndev, "WG=48", "WG=64", 2.1);
        for (int kind = 0; kind < 2; kind++) {
            float *in = kind ? ht__coexec_alloc(cx, nin * sizeof *in, &err)
                             : malloc(nin * sizeof *in + 4);
            float *out = kind ? ht__coexec_alloc(cx, n * sizeof *out, &err)
                              : malloc(n * sizeof *out + 4);
            float *in_use = kind ? in : in + 1, *out_use = kind ? out : out + 1; /* unaligned */
            enum ht_coexec_memory seen = HT_COEXEC_MEM_OWN;
            int rc;
            assert_non_null(in);
            assert_non_null(out);
            ht_error_clear(&err);
            assert_int_equal(ht__coexec_bind(cx, 0, in_use, nin * sizeof *in, &err), HT_OK);
            assert_int_equal(ht__coexec_bind(cx, 1, out_use, n * sizeof *out, &err), HT_OK);
            for (int launch = 0; launch < 3; launch++) {
                for (size_t i = 0; i < nin; i++)
                    in_use[i] = (float)((i * 7 + (size_t)launch * 13) % 101) * 0.5f;
                for (size_t i = 0; i < n; i++)
                    out_use[i] = -1.0f;
                stencil_host(in_use, expect, n);
                ht_error_clear(&err);
                rc = ht__coexec_launch(cx, &res, &seen, &err);
                if (launch == 0 && !kind) {
                    /* The caller's arrays, another kind than the co-execution's own: told,
                     * nothing run; launched again, it runs. */
                    assert_int_equal(rc, HT_DONE);
                    assert_int_not_equal(seen, HT_COEXEC_MEM_OWN);
                    rc = ht__coexec_launch(cx, &res, &seen, &err);
                }
                if (rc != HT_OK)
                    fail_msg("launch: %s", err.text);
                assert_int_equal(res.nruns, 1);
                assert_true(res.wall_s > 0);
                for (size_t i = 0; i < n; i++)
                    if (fabsf(out_use[i] - expect[i]) > 1e-4f * (1.0f + fabsf(expect[i])))
                        fail_msg("%zu devices, %s memory, launch %d: out[%zu] = %g, expected %g",
                                 ndev, kind ? "allocated" : "caller's", launch, i,
                                 (double)out_use[i], (double)expect[i]);
                ht_coexec_result_destroy(&res);
            }
            if (kind) {
                ht__coexec_free_host(cx, in);
                ht__coexec_free_host(cx, out);
                /* Freed memory is unbound: a launch now says so. */
                ht_error_clear(&err);
                assert_int_equal(ht__coexec_launch(cx, NULL, NULL, &err), HT_EINVAL);
                assert_non_null(strstr(err.text, "not bound"));
            } else {
                free(in);
                free(out);
            }
        }
        ht__coexec_free(cx);
    }
    free(expect);
    ht_spec_free(spec);
}

/* Wrong sizes, wrong arguments, nothing bound: clear errors, nothing launched. */
static void test_bind_errors(void **state)
{
    struct ht_spec *spec = load("stencil.json");
    struct ht_coexec *cx = bound_coexec(spec, 2, "WG=48", "WG=64", 2.1);
    struct ht_coexec_result res;
    struct ht_error err;
    float *in = calloc(962, sizeof *in), *out = calloc(960, sizeof *out);

    (void)state;
    memset(&res, 0, sizeof res);
    ht_error_clear(&err);
    assert_int_equal(ht__coexec_launch(cx, &res, NULL, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "buffer 'in' is not bound"));
    ht_error_clear(&err);
    assert_int_equal(ht__coexec_bind(cx, 0, in, 961 * sizeof *in, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "buffer 'in' holds 3848 bytes"));
    ht_error_clear(&err);
    assert_int_equal(ht__coexec_bind(cx, 5, in, 962 * sizeof *in, &err), HT_EINVAL);
    assert_string_equal(err.field, "args[5]");
    ht_error_clear(&err);
    assert_int_equal(ht__coexec_bind(cx, 1, NULL, 960 * sizeof *out, &err), HT_EINVAL);
    ht_error_clear(&err);
    assert_int_equal(ht__coexec_bind(cx, 0, in, 962 * sizeof *in, &err), HT_OK);
    assert_int_equal(ht__coexec_launch(cx, NULL, NULL, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "buffer 'out' is not bound"));
    /* The harness's runs need data of its own. */
    ht_error_clear(&err);
    assert_int_equal(ht__coexec_run(cx, &res, &err), HT_EINVAL);
    ht__coexec_free(cx);
    free(in);
    free(out);
    ht_spec_free(spec);
}

/* readwrite in place on the caller's array: x = 3 x + i, launch after launch. */
static void test_bind_readwrite(void **state)
{
    struct ht_spec *spec = load("triple.json");
    struct ht_coexec *cx = bound_coexec(spec, 2, "WG=40", "WG=24", 1.7);
    struct ht_error err;
    int *x = malloc(960 * sizeof *x), *want = malloc(960 * sizeof *want);

    (void)state;
    ht_error_clear(&err);
    for (int i = 0; i < 960; i++)
        x[i] = want[i] = i % 17;
    assert_int_equal(ht__coexec_bind(cx, 0, x, 960 * sizeof *x, &err), HT_OK);
    for (int launch = 0; launch < 3; launch++) {
        for (int i = 0; i < 960; i++)
            want[i] = 3 * want[i] + i;
        if (ht__coexec_launch(cx, NULL, NULL, &err) != HT_OK)
            fail_msg("launch: %s", err.text);
        for (int i = 0; i < 960; i++)
            if (x[i] != want[i])
                fail_msg("launch %d: x[%d] = %d, expected %d", launch, i, x[i], want[i]);
    }
    ht__coexec_free(cx);
    free(x);
    free(want);
    ht_spec_free(spec);
}

int main(void)
{
    const struct CMUnitTest pure[] = {
        cmocka_unit_test(test_opts_defaults),
        cmocka_unit_test(test_axis_range),
        cmocka_unit_test(test_chunk_items),
        cmocka_unit_test(test_sched_properties),
        cmocka_unit_test(test_sched_chunks),
        cmocka_unit_test(test_sched_threads),
        cmocka_unit_test(test_store_split),
    };
    const struct CMUnitTest device[] = {
        cmocka_unit_test(test_stencil_1d),
        cmocka_unit_test(test_grid_2d),
        cmocka_unit_test(test_readwrite),
        cmocka_unit_test(test_elements_per_item),
        cmocka_unit_test(test_different_global),
        cmocka_unit_test(test_idle_device),
        cmocka_unit_test(test_one_device),
        cmocka_unit_test(test_small_chunks),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_verify_catches_holes),
        cmocka_unit_test(test_factors_and_estimate),
        cmocka_unit_test(test_bind_launch),
        cmocka_unit_test(test_bind_errors),
        cmocka_unit_test(test_bind_readwrite),
    };
    const char *src = getenv("HETUNE_SOURCE_DIR");
    struct ht_error err;
    int rc;

    rc = cmocka_run_group_tests_name("coexec_pure", pure, NULL, NULL);
    if (rc)
        return rc;
    snprintf(source_dir, sizeof source_dir, "%s", src ? src : ".");
    /* Two CPU devices of different speed, unless the caller chose devices. */
    setenv("POCL_DEVICES", "pthread basic", 0);
    ht_error_clear(&err);
    if (ht_platform_discover(&plat, &err) != HT_OK) {
        fprintf(stderr, "skipped: %s\n", err.text);
        return 77;
    }
    devA = &plat->devices[0];
    devB = plat->count > 1 ? &plat->devices[1] : &plat->devices[0];
    fprintf(stderr, "devices: %s / %s\n", devA->name, devB->name);
    rc = cmocka_run_group_tests_name("coexec_device", device, NULL, NULL);
    if (rc == 0) {
        /* Again through pinned memory, in pieces of about 100 bytes. */
        test_path = HT_PATH_PINNED;
        test_piece_bytes = 100;
        rc = cmocka_run_group_tests_name("coexec_device_pinned_pieces", device, NULL, NULL);
    }
    ht_platform_free(plat);
    return rc;
}
