/* The bus in the split planner (split.h, "the bus"): the busy-time model as an affine
 * model, the transfer-aware bound and the split-or-alone decision. Hand cases (the paper's
 * 0.4/0.6 example with no transfers gives Eq. 4 and Algorithm 1 exactly; a GPU with large
 * transfers loses share to a CPU in place; overlap against none; a fixed cost that
 * outlasts the other device's whole time), properties against brute force (a fine sweep of
 * shares for 2 and 3 devices never beats the bound; the bound is never above the fastest
 * device alone and is reached by its own shares), plans made from the model, and bad
 * inputs. Pure: no OpenCL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune.h"

static void close_to(double got, double want, double tol, const char *what)
{
    if (!(fabs(got - want) <= tol)) {
        fprintf(stderr, "%s: got %.17g, want %.17g\n", what, got, want);
        fail();
    }
}

static struct ht_split_device_in model(double k, double x, double f, int overlap)
{
    struct ht_split_bus b = {.kernel_s = k, .xfer_s = x, .fixed_s = f, .overlap = overlap};
    struct ht_split_device_in d = {.wg = 1};
    struct ht_error err;

    ht_error_clear(&err);
    if (ht_split_bus_model(&b, &d, &err)) {
        fprintf(stderr, "model: %s: %s\n", err.field, err.text);
        fail();
    }
    return d;
}

/* The affine model's busy time of device d for the share s (0 for none). */
static double busy(const struct ht_split_device_in *d, double s)
{
    return s > 0 ? d->overhead_s + (d->time_s - d->overhead_s) * s : 0;
}

static double bound(const struct ht_split_device_in *d, size_t n, double *shares)
{
    struct ht_error err;
    double t = -1;

    ht_error_clear(&err);
    if (ht_split_bound(d, n, &t, shares, &err)) {
        fprintf(stderr, "bound: %s: %s\n", err.field, err.text);
        fail();
    }
    return t;
}

/* ---------------------------------------------------------------------------------- */
/* the model */

static void test_model_formulas(void **state)
{
    struct ht_split_bus b;
    struct ht_split_device_in d = {.wg = 64};
    (void)state;

    /* No overlap: F + S·(K + X). */
    b = (struct ht_split_bus){.kernel_s = 2, .xfer_s = 3, .fixed_s = 0.5};
    assert_int_equal(ht_split_bus_model(&b, &d, NULL), 0);
    close_to(d.time_s, 5.5, 0, "no overlap: time");
    close_to(d.overhead_s, 0.5, 0, "no overlap: overhead");
    assert_int_equal(d.wg, 64); /* left as it is */

    /* Overlap, no fill: F + S·max(K, X). */
    b.overlap = 1;
    assert_int_equal(ht_split_bus_model(&b, &d, NULL), 0);
    close_to(d.time_s, 3.5, 0, "overlap: time");
    close_to(d.overhead_s, 0.5, 0, "overlap: overhead");

    /* Overlap in 4 pieces: one piece of the shorter stream (the kernel, 2/4) sticks out. */
    b.pieces = 4;
    assert_int_equal(ht_split_bus_model(&b, &d, NULL), 0);
    close_to(d.overhead_s, 1.0, 0, "fill: overhead");
    close_to(d.time_s, 4.0, 0, "fill: time");
    /* One piece: no overlap at all, and the model is then exactly the sum at S = 1. */
    b.pieces = 1;
    assert_int_equal(ht_split_bus_model(&b, &d, NULL), 0);
    close_to(d.time_s, 5.5, 0, "one piece: time");
    /* Pieces do not matter without overlap. */
    b.overlap = 0;
    b.pieces = 1000;
    assert_int_equal(ht_split_bus_model(&b, &d, NULL), 0);
    close_to(d.time_s, 5.5, 0, "pieces ignored");
    close_to(d.overhead_s, 0.5, 0, "pieces ignored: overhead");

    /* The kernel's own fixed part joins the fixed transfers; only K − k0 scales. */
    b = (struct ht_split_bus){.kernel_s = 2, .overhead_s = 0.25, .xfer_s = 1, .fixed_s = 0.5};
    assert_int_equal(ht_split_bus_model(&b, &d, NULL), 0);
    close_to(d.overhead_s, 0.75, 0, "kernel overhead: overhead");
    close_to(d.time_s, 0.75 + 1.75 + 1, 0, "kernel overhead: time");
    b.overlap = 1;
    b.pieces = 7;
    assert_int_equal(ht_split_bus_model(&b, &d, NULL), 0);
    close_to(d.overhead_s, 0.75 + 1.0 / 7, 1e-16, "kernel overhead, fill: overhead");
    close_to(d.time_s, 0.75 + 1.0 / 7 + 1.75, 1e-15, "kernel overhead, fill: time");

    /* In place: the model is the kernel's, the paper's linear one. */
    b = (struct ht_split_bus){.kernel_s = 1.5};
    assert_int_equal(ht_split_bus_model(&b, &d, NULL), 0);
    close_to(d.time_s, 1.5, 0, "in place: time");
    close_to(d.overhead_s, 0, 0, "in place: overhead");
    b.overlap = 1;
    b.pieces = 8;
    assert_int_equal(ht_split_bus_model(&b, &d, NULL), 0);
    close_to(d.time_s, 1.5, 0, "in place, overlap: time");
    close_to(d.overhead_s, 0, 0, "in place, overlap: overhead");
}

static void expect_model_error(struct ht_split_bus b, const char *field, const char *words)
{
    struct ht_split_device_in d = {.wg = 3, .time_s = 7, .overhead_s = 1};
    struct ht_error err;

    ht_error_clear(&err);
    assert_int_equal(ht_split_bus_model(&b, &d, &err), HT_EINVAL);
    assert_int_equal(err.code, HT_EINVAL);
    if (strcmp(err.field, field) || !strstr(err.text, words)) {
        fprintf(stderr, "want field %s and '%s', got %s: %s\n", field, words, err.field,
                err.text);
        fail();
    }
    /* Untouched. */
    assert_int_equal(d.wg, 3);
    close_to(d.time_s, 7, 0, "untouched time");
    close_to(d.overhead_s, 1, 0, "untouched overhead");
    /* Without an error struct too. */
    assert_int_equal(ht_split_bus_model(&b, &d, NULL), HT_EINVAL);
}

static void test_model_errors(void **state)
{
    struct ht_split_device_in d;
    struct ht_split_bus ok = {.kernel_s = 1};
    (void)state;

    expect_model_error((struct ht_split_bus){.kernel_s = 0}, "kernel_s", "positive, finite");
    expect_model_error((struct ht_split_bus){.kernel_s = -1}, "kernel_s", "got -1");
    expect_model_error((struct ht_split_bus){.kernel_s = NAN}, "kernel_s", "positive");
    expect_model_error((struct ht_split_bus){.kernel_s = INFINITY}, "kernel_s", "finite");
    expect_model_error((struct ht_split_bus){.kernel_s = 1, .overhead_s = 1}, "overhead_s",
                       "below the kernel time");
    expect_model_error((struct ht_split_bus){.kernel_s = 1, .overhead_s = -0.1}, "overhead_s",
                       "at least 0");
    expect_model_error((struct ht_split_bus){.kernel_s = 1, .overhead_s = NAN}, "overhead_s",
                       "at least 0");
    expect_model_error((struct ht_split_bus){.kernel_s = 1, .xfer_s = -1}, "xfer_s",
                       "at least 0");
    expect_model_error((struct ht_split_bus){.kernel_s = 1, .xfer_s = NAN}, "xfer_s", "finite");
    expect_model_error((struct ht_split_bus){.kernel_s = 1, .xfer_s = INFINITY}, "xfer_s",
                       "finite");
    expect_model_error((struct ht_split_bus){.kernel_s = 1, .fixed_s = -1e-9}, "fixed_s",
                       "at least 0");
    expect_model_error((struct ht_split_bus){.kernel_s = 1, .fixed_s = INFINITY}, "fixed_s",
                       "finite");
    expect_model_error((struct ht_split_bus){.kernel_s = 1e-300, .fixed_s = 1e300}, "fixed_s",
                       "swamps");
    assert_int_equal(ht_split_bus_model(NULL, &d, NULL), HT_EINVAL);
    assert_int_equal(ht_split_bus_model(&ok, NULL, NULL), HT_EINVAL);
}

/* ---------------------------------------------------------------------------------- */
/* the bound, by hand */

/* The paper's example with no transfers: t = 1.5 and 1 give Eq. 4's 0.4 and 0.6, and the
 * bound is Algorithm 1's theoretical time of the planner's plan, bit for bit. */
static void test_bound_paper_example(void **state)
{
    struct ht_split_device_in d[2] = {model(1.5, 0, 0, 0), model(1, 0, 0, 1)};
    struct ht_split_plan p;
    double S[2], T;
    (void)state;

    d[0].wg = d[1].wg = 64;
    T = bound(d, 2, S);
    close_to(S[0], 0.4, 1e-15, "S0");
    close_to(S[1], 0.6, 1e-15, "S1");
    close_to(T, 0.6, 1e-15, "T");
    assert_int_equal(ht_split_plan_make(512, d, 2, NULL, &p, NULL), 0);
    assert_true(S[0] == p.slices[0].optimal_factor);
    assert_true(S[1] == p.slices[1].optimal_factor);
    assert_true(T == p.theoretical_time_s);
    ht_split_plan_destroy(&p);
}

/* A GPU four times faster in its kernels, but which must move its share's data: 3 s of
 * transfers for the whole problem, not overlapped. The CPU works in place. */
static void test_bound_gpu_loses_to_cpu_in_place(void **state)
{
    struct ht_split_device_in cpu = model(4, 0, 0, 0), gpu = model(1, 0, 0, 0), d[2];
    double S[2], T0, T;
    (void)state;

    d[0] = cpu;
    d[1] = gpu;
    T0 = bound(d, 2, S);
    close_to(S[1], 0.8, 1e-15, "kernels only: the GPU's share");
    close_to(T0, 0.8, 1e-15, "kernels only: T");

    /* With its transfers the GPU is as slow as the CPU: half each, T = 2. */
    d[1] = model(1, 3, 0, 0);
    close_to(d[1].time_s, 4, 0, "busy alone");
    T = bound(d, 2, S);
    close_to(S[0], 0.5, 1e-15, "CPU share");
    close_to(S[1], 0.5, 1e-15, "GPU share");
    close_to(T, 2, 1e-15, "T");

    /* Overlapped, the GPU is busy max(1, 3) = 3 s alone: speeds 1/4 and 1/3, T = 12/7. */
    d[1] = model(1, 3, 0, 1);
    T = bound(d, 2, S);
    close_to(S[0], 3.0 / 7, 1e-15, "overlap: CPU share");
    close_to(S[1], 4.0 / 7, 1e-15, "overlap: GPU share");
    close_to(T, 12.0 / 7, 1e-15, "overlap: T");

    /* Transfers 9 s: the CPU now takes the larger share (4/13 each second against 9). */
    d[1] = model(1, 9, 0, 0);
    T = bound(d, 2, S);
    close_to(S[0], 10.0 / 14, 1e-15, "huge transfers: CPU share");
    close_to(T, 40.0 / 14, 1e-14, "huge transfers: T");
    assert_true(S[0] > S[1]);
}

/* Overlap against none, with a fixed part and a fill: both by the formulas of split.h. */
static void test_bound_overlap_vs_not(void **state)
{
    struct ht_split_bus b = {.kernel_s = 2, .xfer_s = 2, .fixed_s = 0.2, .pieces = 10};
    struct ht_split_device_in d[2], cpu = model(6, 0, 0, 0);
    double S[2], Tno, Tov;
    (void)state;

    d[0] = cpu;
    assert_int_equal(ht_split_bus_model(&b, &d[1], NULL), 0); /* 0.2 + 4·S */
    Tno = bound(d, 2, S);
    /* 6·S0 = 0.2 + 4·(1 − S0): S0 = 0.42, T = 2.52. */
    close_to(S[0], 0.42, 1e-15, "no overlap: S0");
    close_to(Tno, 2.52, 1e-14, "no overlap: T");

    b.overlap = 1;
    assert_int_equal(ht_split_bus_model(&b, &d[1], NULL), 0); /* 0.2 + 0.2 + 2·S */
    Tov = bound(d, 2, S);
    /* 6·S0 = 0.4 + 2·(1 − S0): S0 = 0.3, T = 1.8. */
    close_to(S[0], 0.3, 1e-15, "overlap: S0");
    close_to(Tov, 1.8, 1e-14, "overlap: T");
    assert_true(Tov < Tno);
}

/* A fixed cost beyond the other device's whole time: that device gets nothing, and the
 * bound is the other alone. */
static void test_bound_fixed_cost_excludes(void **state)
{
    struct ht_split_device_in d[3];
    double S[3], T;
    (void)state;

    d[0] = model(1, 0, 0, 0);
    d[1] = model(0.001, 0.001, 1.5, 1); /* 1.5 s of whole inputs before anything */
    T = bound(d, 2, S);
    assert_true(S[1] == 0);
    assert_true(S[0] == 1);
    assert_true(T == 1);

    /* Exactly at the other's whole time: still nothing (a fixed cost that reaches T). */
    d[1] = model(0.5, 0, 1, 0);
    T = bound(d, 2, S);
    assert_true(S[1] == 0 && T == 1);

    /* A third device, in place: the first two share, the third still gets nothing. */
    d[1] = model(1, 0, 0, 0);
    d[2] = model(0.001, 0, 0.75, 0);
    T = bound(d, 3, S);
    close_to(S[0], 0.5, 0, "three: S0");
    close_to(S[1], 0.5, 0, "three: S1");
    assert_true(S[2] == 0);
    close_to(T, 0.5, 0, "three: T");
    /* A fixed cost just below that T: it joins, and everyone finishes together. */
    d[2] = model(0.1, 0, 0.4, 0);
    T = bound(d, 3, S);
    assert_true(S[2] > 0);
    close_to(S[0] + S[1] + S[2], 1, 1e-15, "three: sum");
    close_to(busy(&d[0], S[0]), T, 1e-15, "three: T0");
    close_to(busy(&d[2], S[2]), T, 1e-15, "three: T2");
    /* (1 + 0.4/0.1) / (1 + 1 + 10) = 5/12. */
    close_to(T, 5.0 / 12, 1e-15, "three: T");
}

static void test_bound_one_device(void **state)
{
    struct ht_split_device_in d = model(2, 1, 0.5, 0);
    double S = -1, T;
    (void)state;

    T = bound(&d, 1, &S);
    assert_true(S == 1);
    assert_true(T == 3.5);
    T = bound(&d, 1, NULL);
    assert_true(T == 3.5);
}

static void expect_bound_error(const struct ht_split_device_in *d, size_t n, int with_time,
                               const char *field, const char *words)
{
    struct ht_error err;
    double T = 42, S[4] = {42, 42, 42, 42};

    ht_error_clear(&err);
    assert_int_equal(ht_split_bound(d, n, with_time ? &T : NULL, S, &err), HT_EINVAL);
    if (strcmp(err.field, field) || !strstr(err.text, words)) {
        fprintf(stderr, "want field %s and '%s', got %s: %s\n", field, words, err.field,
                err.text);
        fail();
    }
    assert_true(T == 42 && S[0] == 42 && S[1] == 42);
    assert_int_equal(ht_split_bound(d, n, with_time ? &T : NULL, S, NULL), HT_EINVAL);
}

static void test_bound_errors(void **state)
{
    struct ht_split_device_in ok[2] = {{0, 1, 0}, {0, 2, 0.5}};
    (void)state;

    expect_bound_error(ok, 0, 1, "devices", "no devices");
    expect_bound_error(NULL, 2, 1, "devices", "devs is NULL");
    expect_bound_error(ok, 2, 0, "time", "time_s is NULL");
    expect_bound_error((struct ht_split_device_in[]){{0, 1, 0}, {0, 0, 0}}, 2, 1,
                       "devices[1].time", "positive, finite");
    expect_bound_error((struct ht_split_device_in[]){{0, NAN, 0}}, 1, 1, "devices[0].time",
                       "positive");
    expect_bound_error((struct ht_split_device_in[]){{0, INFINITY, 0}}, 1, 1,
                       "devices[0].time", "finite");
    expect_bound_error((struct ht_split_device_in[]){{0, 1, 0}, {0, 2, 2}}, 2, 1,
                       "devices[1].overhead", "below the time");
    expect_bound_error((struct ht_split_device_in[]){{0, 1, -1}}, 1, 1, "devices[0].overhead",
                       "at least 0");
}

/* ---------------------------------------------------------------------------------- */
/* the bound against brute force */

static double rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (double)((*seed >> 8) & 0xffffff) / (double)0x1000000;
}

/* A random device: kernels from 1 ms to 1 s, transfers from none (half the time: in
 * place) to 10× the kernels, a fixed part sometimes, overlap or not. */
static struct ht_split_device_in random_device(unsigned *seed)
{
    struct ht_split_bus b = {0};
    struct ht_split_device_in d = {.wg = 1};

    b.kernel_s = pow(10, -3 + 3 * rnd(seed));
    b.overhead_s = rnd(seed) < 0.3 ? b.kernel_s * 0.5 * rnd(seed) : 0;
    if (rnd(seed) < 0.5) {
        b.xfer_s = b.kernel_s * 10 * rnd(seed);
        b.fixed_s = rnd(seed) < 0.5 ? b.kernel_s * 2 * rnd(seed) : 0;
        b.overlap = rnd(seed) < 0.5;
        b.pieces = (uint64_t)(16 * rnd(seed));
    }
    assert_int_equal(ht_split_bus_model(&b, &d, NULL), 0);
    return d;
}

static double makespan(const struct ht_split_device_in *d, const double *s, size_t n)
{
    double t = 0;
    for (size_t i = 0; i < n; i++)
        t = fmax(t, busy(&d[i], s[i]));
    return t;
}

/* The bound's own checks: the shares sum to 1 and reach it; never above the fastest alone. */
static double check_bound(const struct ht_split_device_in *d, size_t n, double *S)
{
    double T = bound(d, n, S), sum = 0, tmin = INFINITY;

    for (size_t i = 0; i < n; i++) {
        assert_true(S[i] >= 0 && S[i] <= 1);
        sum += S[i];
        tmin = fmin(tmin, d[i].time_s);
        /* A device with work finishes at T (within rounding); one without would not gain:
         * its fixed cost alone is at least T. */
        if (S[i] > 0)
            assert_true(busy(&d[i], S[i]) <= T * (1 + 1e-12));
        else if (T < tmin)
            assert_true(d[i].overhead_s >= T * (1 - 1e-12));
    }
    close_to(sum, 1, 1e-12, "shares sum");
    assert_true(T <= tmin);
    assert_true(T > 0);
    close_to(makespan(d, S, n), T, T * 1e-12, "the shares reach the bound");
    return T;
}

static void test_bound_brute_force_two(void **state)
{
    unsigned seed = 12;
    (void)state;

    for (int c = 0; c < 400; c++) {
        struct ht_split_device_in d[2] = {random_device(&seed), random_device(&seed)};
        double S[2], T = check_bound(d, 2, S), best = INFINITY;
        const int steps = 20000;

        for (int k = 0; k <= steps; k++) {
            double s[2] = {(double)k / steps, 1 - (double)k / steps};
            best = fmin(best, makespan(d, s, 2));
        }
        if (!(best >= T * (1 - 1e-12))) {
            fprintf(stderr, "case %d: the sweep reaches %.17g below the bound %.17g\n", c,
                    best, T);
            fail();
        }
        /* And the bound is tight: the sweep comes within one step of it. */
        assert_true(best <= T + (d[0].time_s + d[1].time_s) / steps + 1e-15);
    }
}

static void test_bound_brute_force_three(void **state)
{
    unsigned seed = 77;
    (void)state;

    for (int c = 0; c < 60; c++) {
        struct ht_split_device_in d[3] = {random_device(&seed), random_device(&seed),
                                          random_device(&seed)};
        double S[3], T = check_bound(d, 3, S), best = INFINITY;
        const int steps = 400;

        for (int a = 0; a <= steps; a++)
            for (int b = 0; a + b <= steps; b++) {
                double s[3] = {(double)a / steps, (double)b / steps,
                               (double)(steps - a - b) / steps};
                best = fmin(best, makespan(d, s, 3));
            }
        if (!(best >= T * (1 - 1e-12))) {
            fprintf(stderr, "case %d: the sweep reaches %.17g below the bound %.17g\n", c,
                    best, T);
            fail();
        }
        assert_true(best <= T + 2 * (d[0].time_s + d[1].time_s + d[2].time_s) / steps);
    }
}

/* More transfers never lower the bound; and a plan made from the model: its model time is
 * never below the bound, and comes close to it when work-groups are small against G. */
static void test_bound_monotone_and_plans(void **state)
{
    unsigned seed = 5;
    (void)state;

    for (int c = 0; c < 300; c++) {
        size_t n = 1 + (size_t)(4 * rnd(&seed));
        struct ht_split_device_in d[4], e[4];
        struct ht_split_plan p;
        struct ht_split_plan_opts opts = {.residue = HT_SPLIT_RESIDUE_TIME};
        double S[4], T, T2;
        uint64_t G = UINT64_C(1) << 24;

        for (size_t i = 0; i < n; i++) {
            d[i] = random_device(&seed);
            d[i].wg = (uint64_t)1 << (int)(8 * rnd(&seed));
            e[i] = d[i];
        }
        T = check_bound(d, n, S);
        /* One device's transfers grow (its busy time gains a slope). */
        e[c % n].time_s += e[c % n].time_s * rnd(&seed);
        T2 = check_bound(e, n, S);
        assert_true(T2 >= T * (1 - 1e-12));

        assert_int_equal(ht_split_plan_make(G, d, n, &opts, &p, NULL), 0);
        assert_true(p.model_time_s >= T * (1 - 1e-12));
        {
            double m = 0;
            for (size_t i = 0; i < n; i++) {
                const struct ht_split_slice *sl = &p.slices[i];
                close_to(sl->model_s, sl->size ? busy(&d[i], sl->slice_factor) : 0, 0,
                         "slice model time");
                m = fmax(m, sl->model_s);
            }
            assert_true(m == p.model_time_s);
        }
        /* The residue (at most 4 groups of 128 of 2^24 work-items) goes to the device that
         * finishes first with it: it costs at most what it costs the device with the
         * largest share, whose slope is at most n·T. */
        if (!(p.model_time_s <= T * (1 + 1e-3))) {
            fprintf(stderr, "case %d: plan %.17g, bound %.17g\n", c, p.model_time_s, T);
            fail();
        }
        ht_split_plan_destroy(&p);
    }
}

/* ---------------------------------------------------------------------------------- */
/* the decision */

static void test_decide(void **state)
{
    struct ht_split_decision dec;
    double alone[3] = {4, 2, 3};
    (void)state;

    /* 2 s alone against 1.5 s split: 1.33×, above 1.10. */
    assert_int_equal(ht_split_decide(1.5, alone, 3, 0.10, &dec, NULL), 0);
    assert_int_equal(dec.split, 1);
    assert_int_equal(dec.fastest, 1);
    assert_true(dec.alone_s == 2 && dec.split_s == 1.5);
    close_to(dec.speedup, 4.0 / 3, 1e-15, "speedup");
    /* 1.9 s: 1.05×, below the margin. */
    assert_int_equal(ht_split_decide(1.9, alone, 3, 0.10, &dec, NULL), 0);
    assert_int_equal(dec.split, 0);
    assert_int_equal(dec.fastest, 1);
    /* Exactly at the margin: split (1.6·1.25 = 2). */
    assert_int_equal(ht_split_decide(1.6, alone, 3, 0.25, &dec, NULL), 0);
    assert_int_equal(dec.split, 1);
    assert_int_equal(ht_split_decide(nextafter(1.6, 2), alone, 3, 0.25, &dec, NULL), 0);
    assert_int_equal(dec.split, 0);
    /* Margin 0: no slower splits; slower does not. */
    assert_int_equal(ht_split_decide(2, alone, 3, 0, &dec, NULL), 0);
    assert_int_equal(dec.split, 1);
    assert_int_equal(ht_split_decide(2.5, alone, 3, 0, &dec, NULL), 0);
    assert_int_equal(dec.split, 0);
    close_to(dec.speedup, 0.8, 1e-15, "slower");
    /* One device: nothing to split, however fast the "split". */
    assert_int_equal(ht_split_decide(0.1, alone, 1, 0, &dec, NULL), 0);
    assert_int_equal(dec.split, 0);
    assert_int_equal(dec.fastest, 0);
    /* Ties go to the lowest index. */
    assert_int_equal(ht_split_decide(1, (double[]){3, 2, 2}, 3, 0, &dec, NULL), 0);
    assert_int_equal(dec.fastest, 1);

    /* With the bound: the CPU in place and the GPU with its transfers (test above). */
    {
        struct ht_split_device_in d[2] = {model(4, 0, 0, 0), model(1, 3, 0, 0)};
        double T = bound(d, 2, NULL), a[2] = {d[0].time_s, d[1].time_s};
        assert_int_equal(ht_split_decide(T, a, 2, HT_SPLIT_MARGIN_DEFAULT, &dec, NULL), 0);
        assert_int_equal(dec.split, 1); /* 2 s against 4 */
        /* A GPU whose fixed part leaves the split 9% faster (T = 11/12 against 1 alone):
         * below the margin, alone. */
        d[0] = model(1, 0, 0, 0);
        d[1] = model(0.2, 0, 0.9, 0);
        T = bound(d, 2, NULL);
        a[0] = d[0].time_s;
        a[1] = d[1].time_s;
        close_to(T, 11.0 / 12, 1e-15, "fixed part: T");
        assert_int_equal(ht_split_decide(T, a, 2, HT_SPLIT_MARGIN_DEFAULT, &dec, NULL), 0);
        assert_int_equal(dec.split, 0);
        assert_int_equal(dec.fastest, 0);
        assert_int_equal(ht_split_decide(T, a, 2, 0.05, &dec, NULL), 0);
        assert_int_equal(dec.split, 1);
    }
}

static void expect_decide_error(double split, const double *alone, size_t n, double margin,
                                const char *field, const char *words)
{
    struct ht_split_decision dec = {.split = 7};
    struct ht_error err;

    ht_error_clear(&err);
    assert_int_equal(ht_split_decide(split, alone, n, margin, &dec, &err), HT_EINVAL);
    if (strcmp(err.field, field) || !strstr(err.text, words)) {
        fprintf(stderr, "want field %s and '%s', got %s: %s\n", field, words, err.field,
                err.text);
        fail();
    }
    assert_int_equal(dec.split, 7);
    assert_int_equal(ht_split_decide(split, alone, n, margin, &dec, NULL), HT_EINVAL);
}

static void test_decide_errors(void **state)
{
    double alone[2] = {1, 2};
    struct ht_split_decision dec;
    (void)state;

    expect_decide_error(0, alone, 2, 0.1, "split", "positive");
    expect_decide_error(-1, alone, 2, 0.1, "split", "got -1");
    expect_decide_error(NAN, alone, 2, 0.1, "split", "finite");
    expect_decide_error(INFINITY, alone, 2, 0.1, "split", "finite");
    expect_decide_error(1, alone, 2, -0.01, "margin", "at least 0");
    expect_decide_error(1, alone, 2, NAN, "margin", "finite");
    expect_decide_error(1, alone, 2, INFINITY, "margin", "finite");
    expect_decide_error(1, (double[]){1, 0}, 2, 0.1, "alone[1]", "positive");
    expect_decide_error(1, (double[]){NAN, 1}, 2, 0.1, "alone[0]", "positive");
    expect_decide_error(1, alone, 0, 0.1, "devices", "no devices");
    expect_decide_error(1, NULL, 2, 0.1, "devices", "alone_s is NULL");
    assert_int_equal(ht_split_decide(1, alone, 2, 0.1, NULL, NULL), HT_EINVAL);
    (void)dec;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_formulas),
        cmocka_unit_test(test_model_errors),
        cmocka_unit_test(test_bound_paper_example),
        cmocka_unit_test(test_bound_gpu_loses_to_cpu_in_place),
        cmocka_unit_test(test_bound_overlap_vs_not),
        cmocka_unit_test(test_bound_fixed_cost_excludes),
        cmocka_unit_test(test_bound_one_device),
        cmocka_unit_test(test_bound_errors),
        cmocka_unit_test(test_bound_brute_force_two),
        cmocka_unit_test(test_bound_brute_force_three),
        cmocka_unit_test(test_bound_monotone_and_plans),
        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_decide_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
