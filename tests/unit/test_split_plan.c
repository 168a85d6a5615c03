/* The split planner (paper §2.2, Eq. 4-9, Algorithm 1): hand-computed plans (the paper's
 * worked example of 512 work-items split 0.4/0.6, a Table-3-like case, work-group sizes
 * that are not multiples of each other, a device that gets no slice, one, three and four
 * devices, G smaller than a work-group, no device able to end at G), errors, and a
 * property test over thousands of random cases checking every invariant of split.h,
 * Eq. 9's choice against brute force, and the ownership of every work-item; a scheduler
 * instance of every scheduler driven through split.h's public calls as a program drives
 * one (its chunks, its plan, a reset run, the errors). Pure: no OpenCL. */
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
#include "util/util.h"

#define NONE SIZE_MAX

static void close_to(double got, double want, double tol, const char *what)
{
    if (!(fabs(got - want) <= tol)) {
        fprintf(stderr, "%s: got %.17g, want %.17g\n", what, got, want);
        fail();
    }
}

/* ht_split_plan_make with the factors given (NULL: from the times) and the default
 * residue rule. */
static int plan_with(uint64_t G, const struct ht_split_device_in *d, const double *factors,
                     size_t n, struct ht_split_plan *p, struct ht_error *err)
{
    struct ht_split_plan_opts opts = {.factors = factors};
    return ht_split_plan_make(G, d, n, &opts, p, err);
}

/* Plans, failing the test on an error. */
static void plan_times(uint64_t G, const uint64_t *wg, const double *t, size_t n,
                       struct ht_split_plan *p)
{
    struct ht_split_device_in d[8];
    struct ht_error err;

    assert_true(n <= 8);
    memset(d, 0, sizeof d);
    for (size_t i = 0; i < n; i++) {
        d[i].wg = wg[i];
        d[i].time_s = t[i];
    }
    ht_error_clear(&err);
    if (plan_with(G, d, NULL, n, p, &err) != 0) {
        fprintf(stderr, "plan: %s: %s\n", err.field, err.text);
        fail();
    }
    assert_int_equal(p->ndevices, n);
    assert_int_equal(p->global, G);
}

/* Checks one slice: groups, launched range, owned range. */
static void slice_is(const struct ht_split_plan *p, size_t i, uint64_t groups, uint64_t offset,
                     uint64_t own_offset, uint64_t own_size)
{
    const struct ht_split_slice *s = &p->slices[i];
    if (s->groups != groups || s->offset != offset || s->own_offset != own_offset ||
        s->own_size != own_size || s->size != groups * s->wg) {
        fprintf(stderr,
                "slice %zu: groups %llu offset %llu size %llu own [%llu, +%llu); want groups "
                "%llu offset %llu own [%llu, +%llu)\n",
                i, (unsigned long long)s->groups, (unsigned long long)s->offset,
                (unsigned long long)s->size, (unsigned long long)s->own_offset,
                (unsigned long long)s->own_size, (unsigned long long)groups,
                (unsigned long long)offset, (unsigned long long)own_offset,
                (unsigned long long)own_size);
        fail();
    }
    close_to(s->adjusted_factor, (double)own_size / (double)p->global, 1e-15, "adjusted");
    close_to(s->slice_factor, (double)s->size / (double)p->global, 1e-15, "slice factor");
}

/* ---------------------------------------------------------------------------------- */
/* the paper's worked example: 512 work-items, split factors 0.4 and 0.6 */

static void test_paper_example_wg1(void **state)
{
    /* t = 1.5 s and 1.0 s: speeds 2/3 and 1, S = 0.4 and 0.6 (Eq. 4). With work-groups
     * of one work-item: γ = 204.8 and 307.2, γ̂ = 204 and 307, R = 1. Both cover it with
     * 1 work-item; device 0 then finishes at 1.5·205/512 = 0.6006 s, device 1 at
     * 1.0·308/512 = 0.6016 s, so device 0 takes it and goes last. */
    struct ht_split_plan p;
    (void)state;
    plan_times(512, (uint64_t[]){1, 1}, (double[]){1.5, 1.0}, 2, &p);
    close_to(p.slices[0].optimal_factor, 0.4, 1e-15, "S0");
    close_to(p.slices[1].optimal_factor, 0.6, 1e-15, "S1");
    close_to(p.slices[0].gamma, 204.8, 1e-9, "gamma0");
    close_to(p.slices[1].gamma, 307.2, 1e-9, "gamma1");
    assert_int_equal(p.slices[0].base_groups, 204);
    assert_int_equal(p.slices[1].base_groups, 307);
    assert_int_equal(p.residue, 1);
    assert_int_equal(p.residue_device, 0);
    assert_int_equal(p.slices[0].extra_groups, 1);
    slice_is(&p, 1, 307, 0, 0, 307);
    slice_is(&p, 0, 205, 307, 307, 205);
    assert_int_equal(p.overlap, 0);
    assert_int_equal(p.overhang, 0);
    /* Algorithm 1: max(0.4·1.5, 0.6·1.0) = 0.6. */
    close_to(p.theoretical_time_s, 0.6, 1e-15, "theoretical");
    close_to(p.adjusted_time_s, 1.5 * 205 / 512, 1e-15, "adjusted time");
    ht_split_plan_destroy(&p);
    assert_null(p.slices);
}

static void test_paper_example_wg64(void **state)
{
    /* Work-groups of 64 on both: γ = 3.2 and 4.8, γ̂ = 3 and 4, R = 512 - 448 = 64. Both
     * need one group of 64; device 0 would finish at 1.5·256/512 = 0.75 s, device 1 at
     * 1.0·320/512 = 0.625 s: device 1 takes it. Adjusted factors 0.375 and 0.625. */
    struct ht_split_plan p;
    (void)state;
    plan_times(512, (uint64_t[]){64, 64}, (double[]){1.5, 1.0}, 2, &p);
    close_to(p.slices[0].gamma, 3.2, 1e-12, "gamma0");
    close_to(p.slices[1].gamma, 4.8, 1e-12, "gamma1");
    assert_int_equal(p.slices[0].base_groups, 3);
    assert_int_equal(p.slices[1].base_groups, 4);
    assert_int_equal(p.residue, 64);
    assert_int_equal(p.residue_device, 1);
    slice_is(&p, 0, 3, 0, 0, 192);
    slice_is(&p, 1, 5, 192, 192, 320);
    close_to(p.slices[0].adjusted_factor, 0.375, 0, "adjusted0");
    close_to(p.slices[1].adjusted_factor, 0.625, 0, "adjusted1");
    assert_int_equal(p.overlap, 0);
    close_to(p.theoretical_time_s, 0.6, 1e-15, "theoretical");
    close_to(p.adjusted_time_s, 0.625, 1e-15, "adjusted time");
    ht_split_plan_destroy(&p);
}

static void test_table3_like(void **state)
{
    /* As the paper's PLT2 matrix multiplication: optimal (0.5, 0.5), adjusted away from it
     * by the work-group sizes. G = 1024, wg 16 (CPU) and 48 (GPU), equal times: γ = 32
     * and 10.67, γ̂ = 32 and 10 (480), R = 32: the CPU covers it with 32 work-items, the
     * GPU would need 48. 48 is a multiple of 16, so there is no overlap, and the adjusted
     * factors (544/1024, 480/1024) = (0.53125, 0.46875) sum to 1. */
    struct ht_split_plan p;
    (void)state;
    plan_times(1024, (uint64_t[]){16, 48}, (double[]){0.25, 0.25}, 2, &p);
    close_to(p.slices[0].optimal_factor, 0.5, 0, "S0");
    assert_int_equal(p.residue, 32);
    assert_int_equal(p.residue_device, 0);
    assert_int_equal(p.slices[0].extra_groups, 2);
    slice_is(&p, 1, 10, 0, 0, 480);
    slice_is(&p, 0, 34, 480, 480, 544);
    close_to(p.slices[0].adjusted_factor, 0.53125, 0, "adjusted0");
    close_to(p.slices[1].adjusted_factor, 0.46875, 0, "adjusted1");
    assert_int_equal(p.overlap, 0);
    close_to(p.theoretical_time_s, 0.125, 1e-15, "theoretical");
    close_to(p.adjusted_time_s, 0.25 * 544 / 1024, 1e-15, "adjusted time");
    ht_split_plan_destroy(&p);
}

static void test_not_multiples_overlap(void **state)
{
    /* G = 1000, wg 64 and 28, equal times: γ = 7.8125 and 17.86, γ̂ = 7 (448) and 17
     * (476), R = 76. Device 0 would need 128, device 1 ⌈76/28⌉·28 = 84: device 1 takes 3
     * more groups, 20 in all (560 work-items), from 1000 - 560 = 440: it overlaps device
     * 0's last 8 work-items and owns only [448, 1000). */
    struct ht_split_plan p;
    (void)state;
    plan_times(1000, (uint64_t[]){64, 28}, (double[]){1, 1}, 2, &p);
    assert_int_equal(p.residue, 76);
    assert_int_equal(p.residue_device, 1);
    slice_is(&p, 0, 7, 0, 0, 448);
    slice_is(&p, 1, 20, 440, 448, 552);
    assert_int_equal(p.overlap, 8);
    assert_true(p.overlap > 0 && p.overlap < 28);
    assert_int_equal(p.overhang, 0);
    close_to(p.slices[0].adjusted_factor + p.slices[1].adjusted_factor, 1, 1e-15, "sum");
    close_to(p.adjusted_time_s, 0.56, 1e-15, "adjusted time (overlap counted)");
    ht_split_plan_destroy(&p);
}

static void test_device_without_slice(void **state)
{
    /* A device 100 times slower: S1 = 1/101, γ1 = 0.079, no whole group. Device 0:
     * γ = 15.84, 15 groups (480), R = 32, which it covers with one group of 32 against
     * device 1's 64. Device 1 gets nothing. */
    struct ht_split_plan p;
    (void)state;
    plan_times(512, (uint64_t[]){32, 64}, (double[]){1, 100}, 2, &p);
    assert_int_equal(p.residue_device, 0);
    slice_is(&p, 0, 16, 0, 0, 512);
    slice_is(&p, 1, 0, 0, 0, 0);
    assert_int_equal(p.slices[1].size, 0);
    close_to(p.slices[1].adjusted_factor, 0, 0, "no share");
    assert_int_equal(p.overlap, 0);
    ht_split_plan_destroy(&p);

    /* The slow device without a whole group of its own may still take the residue: wg 48
     * and 8: γ̂ = 10 (480) and 0, R = 32; device 0 would need 48 more (and 528 > 512
     * would not fit), device 1 needs 32 = 4 groups. */
    plan_times(512, (uint64_t[]){48, 8}, (double[]){1, 100}, 2, &p);
    assert_int_equal(p.slices[1].base_groups, 0);
    assert_int_equal(p.residue_device, 1);
    slice_is(&p, 0, 10, 0, 0, 480);
    slice_is(&p, 1, 4, 480, 480, 32);
    ht_split_plan_destroy(&p);
}

static void test_one_device(void **state)
{
    struct ht_split_plan p;
    (void)state;
    /* wg divides G: everything, no residue. */
    plan_times(1024, (uint64_t[]){64}, (double[]){2}, 1, &p);
    close_to(p.slices[0].optimal_factor, 1, 0, "S");
    assert_int_equal(p.residue_device, NONE);
    assert_int_equal(p.residue, 0);
    slice_is(&p, 0, 16, 0, 0, 1024);
    close_to(p.theoretical_time_s, 2, 0, "theoretical");
    close_to(p.adjusted_time_s, 2, 0, "adjusted");
    ht_split_plan_destroy(&p);

    /* wg does not divide G: 15 groups leave R = 40, and 16 groups (1024) cannot end at
     * 1000, so the device takes it all from 0 and runs 24 work-items past G. */
    plan_times(1000, (uint64_t[]){64}, (double[]){2}, 1, &p);
    assert_int_equal(p.residue_device, 0);
    assert_int_equal(p.residue, 1000);
    assert_int_equal(p.slices[0].base_groups, 0);
    assert_int_equal(p.slices[0].extra_groups, 16);
    slice_is(&p, 0, 16, 0, 0, 1000);
    assert_int_equal(p.overhang, 24);
    assert_int_equal(p.overlap, 24);
    close_to(p.slices[0].adjusted_factor, 1, 0, "adjusted");
    ht_split_plan_destroy(&p);
}

static void test_global_smaller_than_wg(void **state)
{
    /* G = 100 with wg 128 and 4: device 0 has no whole group and 128 cannot fit; device
     * 1 has 12 (48), R = 52, covered by 13 more: device 1 computes everything. */
    struct ht_split_plan p;
    (void)state;
    plan_times(100, (uint64_t[]){128, 4}, (double[]){1, 1}, 2, &p);
    assert_int_equal(p.residue_device, 1);
    assert_int_equal(p.residue, 52);
    slice_is(&p, 0, 0, 0, 0, 0);
    slice_is(&p, 1, 25, 0, 0, 100);
    assert_int_equal(p.overlap, 0);
    assert_int_equal(p.overhang, 0);
    ht_split_plan_destroy(&p);
}

static void test_no_whole_group_anywhere(void **state)
{
    struct ht_split_plan p;
    (void)state;
    /* G = 100, wg 64 on both, equal times: no whole groups, R = 100, and no device can
     * end at 100 with groups of 64. The residue device takes all: 128 on either, equal
     * finish times, so the first. */
    plan_times(100, (uint64_t[]){64, 64}, (double[]){1, 1}, 2, &p);
    assert_int_equal(p.residue_device, 0);
    assert_int_equal(p.residue, 100);
    slice_is(&p, 0, 2, 0, 0, 100);
    slice_is(&p, 1, 0, 0, 0, 0);
    assert_int_equal(p.overhang, 28);
    assert_int_equal(p.overlap, 28);
    ht_split_plan_destroy(&p);

    /* G = 50, wg 64, device 1 twice as fast: both need 64, device 1 finishes first. */
    plan_times(50, (uint64_t[]){64, 64}, (double[]){2, 1}, 2, &p);
    assert_int_equal(p.residue_device, 1);
    slice_is(&p, 0, 0, 0, 0, 0);
    slice_is(&p, 1, 1, 0, 0, 50);
    assert_int_equal(p.overhang, 14);
    ht_split_plan_destroy(&p);

    /* G = 15, wg 2 and 16, equal times: γ̂ = 3 and 0, R = 9. Device 0 would need 5 more
     * groups, 8 in all, ending at 16; device 1 one group, ending at 16: neither fits.
     * Taking all, both run 16 work-items with equal finish times: the first. */
    plan_times(15, (uint64_t[]){2, 16}, (double[]){1, 1}, 2, &p);
    assert_int_equal(p.residue_device, 0);
    slice_is(&p, 0, 8, 0, 0, 15);
    slice_is(&p, 1, 0, 0, 0, 0);
    assert_int_equal(p.overhang, 1);
    ht_split_plan_destroy(&p);
}

static void test_fit_rule(void **state)
{
    /* G = 100, wg 64 and 7, times 1 and 1.3: γ̂ = 0 and 6 (42), R = 58. Device 1 would
     * cover it with the least work (63 against 64), but its slice would be 105 > 100
     * long and could not end at G; device 0 takes it with one group of 64 from 36. */
    struct ht_split_plan p;
    (void)state;
    plan_times(100, (uint64_t[]){64, 7}, (double[]){1, 1.3}, 2, &p);
    assert_int_equal(p.residue_device, 0);
    slice_is(&p, 1, 6, 0, 0, 42);
    slice_is(&p, 0, 1, 36, 42, 58);
    assert_int_equal(p.overlap, 6);
    assert_int_equal(p.overhang, 0);
    ht_split_plan_destroy(&p);
}

static void test_three_devices(void **state)
{
    /* Times 1, 2, 4: S = 4/7, 2/7, 1/7; with wg 32, 16, 8 every γ = 18.29, γ̂ = 18
     * (576, 288, 144), R = 16. Devices 1 and 2 both cover it with 16; device 1 finishes
     * at 2·304/1024 = 0.594 s, device 2 at 4·160/1024 = 0.625 s: device 1, last. */
    struct ht_split_plan p;
    (void)state;
    plan_times(1024, (uint64_t[]){32, 16, 8}, (double[]){1, 2, 4}, 3, &p);
    close_to(p.slices[0].optimal_factor, 4.0 / 7, 1e-15, "S0");
    close_to(p.slices[1].optimal_factor, 2.0 / 7, 1e-15, "S1");
    close_to(p.slices[2].optimal_factor, 1.0 / 7, 1e-15, "S2");
    assert_int_equal(p.residue, 16);
    assert_int_equal(p.residue_device, 1);
    slice_is(&p, 0, 18, 0, 0, 576);
    slice_is(&p, 2, 18, 576, 576, 144);
    slice_is(&p, 1, 19, 720, 720, 304);
    assert_int_equal(p.overlap, 0);
    close_to(p.theoretical_time_s, 4.0 / 7, 1e-15, "theoretical");
    close_to(p.adjusted_time_s, 2.0 * 304 / 1024, 1e-15, "adjusted time");
    ht_split_plan_destroy(&p);
}

static void test_four_devices(void **state)
{
    /* Equal times, G = 4096, wg 64, 96, 40, 7: 1024 work-items each ideally; γ̂ = 16
     * (1024), 10 (960), 25 (1000), 146 (1022); R = 90. The extra work: 128, 96, 120,
     * ⌈90/7⌉·7 = 91: device 3 takes 13 more groups (159 in all, 1113 work-items) from
     * 4096 - 1113 = 2983, one work-item into device 2's slice. */
    struct ht_split_plan p;
    (void)state;
    plan_times(4096, (uint64_t[]){64, 96, 40, 7}, (double[]){3, 3, 3, 3}, 4, &p);
    assert_int_equal(p.residue, 90);
    assert_int_equal(p.residue_device, 3);
    slice_is(&p, 0, 16, 0, 0, 1024);
    slice_is(&p, 1, 10, 1024, 1024, 960);
    slice_is(&p, 2, 25, 1984, 1984, 1000);
    slice_is(&p, 3, 159, 2983, 2984, 1112);
    assert_int_equal(p.overlap, 1);
    close_to(p.theoretical_time_s, 0.75, 1e-15, "theoretical");
    ht_split_plan_destroy(&p);
}

static void test_exact_ratios(void **state)
{
    /* Times in ratio b:a over G = (a + b)·m work-items of size 1 split exactly a·m and
     * b·m, whatever the rounding of 1/t: no residue. */
    (void)state;
    for (int a = 1; a <= 12; a++)
        for (int b = 1; b <= 12; b++)
            for (uint64_t m = 1; m <= 7; m++) {
                struct ht_split_plan p;
                uint64_t G = (uint64_t)(a + b) * m;
                plan_times(G, (uint64_t[]){1, 1}, (double[]){(double)b, (double)a}, 2, &p);
                if (p.residue != 0 || p.slices[0].size != (uint64_t)a * m) {
                    fprintf(stderr, "a %d b %d m %llu: residue %llu, size0 %llu\n", a, b,
                            (unsigned long long)m, (unsigned long long)p.residue,
                            (unsigned long long)p.slices[0].size);
                    fail();
                }
                ht_split_plan_destroy(&p);
            }
    /* Three devices, thirds: times 3, 3, 3 over 3·m. */
    for (uint64_t m = 1; m <= 50; m++) {
        struct ht_split_plan p;
        plan_times(3 * m, (uint64_t[]){1, 1, 1}, (double[]){3, 3, 3}, 3, &p);
        assert_int_equal(p.residue, 0);
        for (size_t i = 0; i < 3; i++)
            assert_int_equal(p.slices[i].size, m);
        ht_split_plan_destroy(&p);
    }
}

static void test_factors(void **state)
{
    struct ht_split_device_in d[2] = {{64, 1.0, 0}, {1, 2.0, 0}};
    struct ht_split_plan p;
    struct ht_error err;
    (void)state;

    /* A zero factor: no slice, and never the residue device. */
    ht_error_clear(&err);
    assert_int_equal(plan_with(100, d, (double[]){0, 3}, 2, &p, &err), 0);
    close_to(p.slices[1].optimal_factor, 1, 0, "normalized");
    slice_is(&p, 0, 0, 0, 0, 0);
    slice_is(&p, 1, 100, 0, 0, 100);
    assert_int_equal(p.residue_device, NONE);
    close_to(p.theoretical_time_s, 2, 0, "theoretical");
    ht_split_plan_destroy(&p);

    /* Device 1 has factor 0 and cannot take the residue, though it needs the least work;
     * device 0's 2 groups cannot end at 100: it takes all and runs 28 past G. */
    assert_int_equal(plan_with(100, d, (double[]){1, 0}, 2, &p, &err), 0);
    assert_int_equal(p.residue_device, 0);
    slice_is(&p, 0, 2, 0, 0, 100);
    slice_is(&p, 1, 0, 0, 0, 0);
    assert_int_equal(p.overhang, 28);
    ht_split_plan_destroy(&p);

    /* The factors, not the times, split: 0.25 / 0.75 of 512 with wg 64 and 1. */
    assert_int_equal(plan_with(512, d, (double[]){0.25, 0.75}, 2, &p, &err),
                     0);
    assert_int_equal(p.residue_device, NONE);
    slice_is(&p, 0, 2, 0, 0, 128);
    slice_is(&p, 1, 384, 128, 128, 384);
    close_to(p.theoretical_time_s, 1.5, 0, "theoretical");
    ht_split_plan_destroy(&p);
}

/* ---------------------------------------------------------------------------------- */
/* errors */

static void expect_error(uint64_t G, const struct ht_split_device_in *d, size_t n,
                         const double *factors, const char *field, const char *words)
{
    struct ht_split_plan p;
    struct ht_error err;
    int rc;

    memset(&p, 0xab, sizeof p);
    ht_error_clear(&err);
    rc = plan_with(G, d, factors, n, &p, &err);
    assert_int_equal(rc, HT_EINVAL);
    assert_int_equal(err.code, HT_EINVAL);
    if (strcmp(err.field, field) || !strstr(err.text, words)) {
        fprintf(stderr, "error '%s: %s', want field '%s' and '%s'\n", err.field, err.text,
                field, words);
        fail();
    }
    /* The plan is left empty: destroying it is harmless. */
    assert_null(p.slices);
    assert_int_equal(p.ndevices, 0);
    ht_split_plan_destroy(&p);
}

static void test_errors(void **state)
{
    struct ht_split_device_in ok[2] = {{64, 1, 0}, {32, 2, 0}};
    (void)state;
    expect_error(512, ok, 0, NULL, "devices", "no devices");
    expect_error(512, NULL, 2, NULL, "devices", "devs is NULL");
    expect_error(0, ok, 2, NULL, "global", "must be positive");
    expect_error((UINT64_C(1) << 53) + 1, ok, 2, NULL, "global", "2^53");
    expect_error(512, (struct ht_split_device_in[]){{64, 1, 0}, {0, 1, 0}}, 2, NULL,
                 "devices[1].wg", "work-group size must be positive");
    expect_error(512, (struct ht_split_device_in[]){{64, 0, 0}, {32, 1, 0}}, 2, NULL,
                 "devices[0].time", "positive, finite");
    expect_error(512, (struct ht_split_device_in[]){{64, 1, 0}, {32, -1, 0}}, 2, NULL,
                 "devices[1].time", "got -1");
    expect_error(512, (struct ht_split_device_in[]){{64, NAN, 0}, {32, 1, 0}}, 2, NULL,
                 "devices[0].time", "positive, finite");
    expect_error(512, (struct ht_split_device_in[]){{64, 1, 0}, {32, INFINITY, 0}}, 2, NULL,
                 "devices[1].time", "got inf");
    expect_error(512, ok, 2, (double[]){0.5, -0.1}, "factors[1]", "not negative");
    expect_error(512, ok, 2, (double[]){NAN, 1}, "factors[0]", "finite");
    expect_error(512, ok, 2, (double[]){INFINITY, 1}, "factors[0]", "finite");
    expect_error(512, ok, 2, (double[]){0, 0}, "factors", "positive, finite sum");
    expect_error(512, ok, 2, (double[]){1e308, 1e308}, "factors", "positive, finite sum");

    /* 2^53 itself is fine, with a wg larger than G too. */
    {
        struct ht_split_plan p;
        plan_times(UINT64_C(1) << 53, (uint64_t[]){1, UINT64_C(1) << 60}, (double[]){1, 1},
                   2, &p);
        slice_is(&p, 0, UINT64_C(1) << 53, 0, 0, UINT64_C(1) << 53);
        slice_is(&p, 1, 0, 0, 0, 0);
        ht_split_plan_destroy(&p);
    }
    ht_split_plan_destroy(NULL);
}

/* ---------------------------------------------------------------------------------- */
/* ht_split_plan_make: the affine model (overheads) and the residue rule */

static void check_plan(const struct ht_split_plan *p, const struct ht_split_device_in *d,
                       const double *factors, size_t n, uint64_t G, enum ht_split_residue rule,
                       const char *label);

/* Plans with ht_split_plan_make, failing the test on an error. */
static void plan_make(uint64_t G, const uint64_t *wg, const double *t, const double *a, size_t n,
                      enum ht_split_residue rule, struct ht_split_plan *p)
{
    struct ht_split_device_in d[8];
    struct ht_split_plan_opts opts;
    struct ht_error err;

    assert_true(n <= 8);
    memset(d, 0, sizeof d);
    memset(&opts, 0, sizeof opts);
    opts.residue = rule;
    for (size_t i = 0; i < n; i++) {
        d[i].wg = wg[i];
        d[i].time_s = t[i];
        d[i].overhead_s = a ? a[i] : 0;
    }
    ht_error_clear(&err);
    if (ht_split_plan_make(G, d, n, &opts, p, &err) != 0) {
        fprintf(stderr, "plan: %s: %s\n", err.field, err.text);
        fail();
    }
    assert_int_equal(p->ndevices, n);
    assert_int_equal(p->global, G);
}

/* Two plans are the same, field by field, bit for bit. */
static void same_plan(const struct ht_split_plan *p, const struct ht_split_plan *q,
                      const char *label)
{
    int same = p->global == q->global && p->ndevices == q->ndevices &&
               p->residue_device == q->residue_device && p->residue == q->residue &&
               p->overlap == q->overlap && p->overhang == q->overhang &&
               p->theoretical_time_s == q->theoretical_time_s &&
               p->adjusted_time_s == q->adjusted_time_s && p->model_time_s == q->model_time_s;
    for (size_t i = 0; same && i < p->ndevices; i++) {
        const struct ht_split_slice *a = &p->slices[i], *b = &q->slices[i];
        same = a->wg == b->wg && a->time_s == b->time_s && a->overhead_s == b->overhead_s &&
               a->optimal_factor == b->optimal_factor && a->gamma == b->gamma &&
               a->base_groups == b->base_groups && a->extra_groups == b->extra_groups &&
               a->groups == b->groups && a->offset == b->offset && a->size == b->size &&
               a->own_offset == b->own_offset && a->own_size == b->own_size &&
               a->adjusted_factor == b->adjusted_factor && a->slice_factor == b->slice_factor;
    }
    if (!same) {
        fprintf(stderr, "%s: the plans differ\n", label);
        fail();
    }
}

static void test_make_without_overheads(void **state)
{
    /* All overheads 0 (and -0.0, which is not below 0): ht_split_plan_make plans the same
     * with no options (NULL), zero-initialized ones and the paper's residue rule named,
     * and the model's time is the adjusted time. */
    static const struct {
        uint64_t G;
        size_t n;
        uint64_t wg[4];
        double t[4];
    } sets[] = {
        {512, 2, {1, 1}, {1.5, 1.0}},
        {512, 2, {64, 64}, {1.5, 1.0}},
        {1024, 2, {16, 48}, {0.25, 0.25}},
        {1000, 2, {64, 28}, {1, 1}},
        {100, 2, {64, 64}, {1, 1}},     /* no device fits: overhang */
        {512, 2, {32, 64}, {1, 100}},   /* a device without a slice */
        {1024, 3, {32, 16, 8}, {1, 2, 4}},
        {4096, 4, {64, 96, 40, 7}, {3, 3, 3, 3}},
        {1000, 1, {64}, {2}},
    };
    (void)state;
    for (size_t c = 0; c < sizeof sets / sizeof sets[0]; c++) {
        struct ht_split_device_in d[4];
        struct ht_split_plan_opts opts;
        struct ht_split_plan ref, p;
        char label[32];

        snprintf(label, sizeof label, "set %zu", c);
        memset(d, 0, sizeof d);
        for (size_t i = 0; i < sets[c].n; i++) {
            d[i].wg = sets[c].wg[i];
            d[i].time_s = sets[c].t[i];
        }
        assert_int_equal(ht_split_plan_make(sets[c].G, d, sets[c].n, NULL, &ref, NULL), 0);
        close_to(ref.model_time_s, ref.adjusted_time_s, 0, label);
        assert_true(ref.model_time_s > 0);

        memset(&opts, 0, sizeof opts);
        assert_int_equal(ht_split_plan_make(sets[c].G, d, sets[c].n, &opts, &p, NULL), 0);
        same_plan(&ref, &p, label);
        ht_split_plan_destroy(&p);

        opts.residue = HT_SPLIT_RESIDUE_WORK;
        assert_int_equal(ht_split_plan_make(sets[c].G, d, sets[c].n, &opts, &p, NULL), 0);
        same_plan(&ref, &p, label);
        ht_split_plan_destroy(&p);

        for (size_t i = 0; i < sets[c].n; i++)
            d[i].overhead_s = -0.0;
        assert_int_equal(ht_split_plan_make(sets[c].G, d, sets[c].n, &opts, &p, NULL), 0);
        same_plan(&ref, &p, label);
        ht_split_plan_destroy(&p);
        ht_split_plan_destroy(&ref);
    }
}

static void test_affine_two_devices(void **state)
{
    /* t = 1 and 1, a = 0 and 0.5: T = S0·1 = 0.5 + 0.5·S1 with S0 + S1 = 1, so
     * T = 2/3, S0 = 2/3, S1 = 1/3 (Eq. 4 would say 1/2 and 1/2). */
    struct ht_split_plan p;
    (void)state;
    plan_make(1000, (uint64_t[]){1, 1}, (double[]){1, 1}, (double[]){0, 0.5}, 2,
              HT_SPLIT_RESIDUE_WORK, &p);
    close_to(p.slices[0].optimal_factor, 2.0 / 3, 1e-12, "S0");
    close_to(p.slices[1].optimal_factor, 1.0 / 3, 1e-12, "S1");
    close_to(p.slices[0].overhead_s, 0, 0, "a0 copied");
    close_to(p.slices[1].overhead_s, 0.5, 0, "a1 copied");
    assert_int_equal(p.slices[0].base_groups, 666);
    assert_int_equal(p.slices[1].base_groups, 333);
    assert_int_equal(p.residue, 1);
    assert_int_equal(p.slices[0].size + p.slices[1].size, 1000);
    /* Whichever takes the last work-item: 667 on device 0 finishes at 0.667 s, 334 on
     * device 1 at 0.5 + 0.5·0.334 = 0.667 s, the other at 0.666 s. */
    close_to(p.model_time_s, 0.667, 1e-12, "model time");
    close_to(p.model_time_s,
             fmax(0 + 1.0 * ((double)p.slices[0].size / 1000),
                  0.5 + 0.5 * ((double)p.slices[1].size / 1000)),
             1e-15, "model time from the slices");
    /* Algorithm 1 and the adjusted time still ignore the overheads. */
    close_to(p.theoretical_time_s, 2.0 / 3, 1e-12, "theoretical");
    close_to(p.adjusted_time_s,
             fmax((double)p.slices[0].size / 1000, (double)p.slices[1].size / 1000), 1e-15,
             "adjusted time");
    ht_split_plan_destroy(&p);

    /* G = 999: 666 + 333 exactly, no residue, both finish at 0.666 s. */
    plan_make(999, (uint64_t[]){1, 1}, (double[]){1, 1}, (double[]){0, 0.5}, 2,
              HT_SPLIT_RESIDUE_WORK, &p);
    assert_int_equal(p.residue_device, NONE);
    slice_is(&p, 0, 666, 0, 0, 666);
    slice_is(&p, 1, 333, 666, 666, 333);
    close_to(p.model_time_s, 0.666 / 0.999, 1e-12, "model time");
    close_to(p.adjusted_time_s, 0.666 / 0.999, 1e-12, "adjusted time");
    ht_split_plan_destroy(&p);

    /* The order of the devices does not matter. */
    plan_make(999, (uint64_t[]){1, 1}, (double[]){1, 1}, (double[]){0.5, 0}, 2,
              HT_SPLIT_RESIDUE_WORK, &p);
    close_to(p.slices[0].optimal_factor, 1.0 / 3, 1e-12, "S0 swapped");
    close_to(p.slices[1].optimal_factor, 2.0 / 3, 1e-12, "S1 swapped");
    slice_is(&p, 0, 333, 0, 0, 333);
    slice_is(&p, 1, 666, 333, 333, 666);
    ht_split_plan_destroy(&p);
}

static void test_affine_excluded_device(void **state)
{
    /* t = 0.1 and 1, a = 0 and 0.5: device 0 alone is done at 0.1 s, before device 1's
     * overhead alone: device 1 gets factor 0 and no slice (Eq. 4 would give it 1/11). */
    struct ht_split_plan p;
    (void)state;
    plan_make(1024, (uint64_t[]){32, 32}, (double[]){0.1, 1.0}, (double[]){0, 0.5}, 2,
              HT_SPLIT_RESIDUE_WORK, &p);
    close_to(p.slices[0].optimal_factor, 1, 0, "S0");
    close_to(p.slices[1].optimal_factor, 0, 0, "S1");
    assert_int_equal(p.residue_device, NONE);
    slice_is(&p, 0, 32, 0, 0, 1024);
    slice_is(&p, 1, 0, 0, 0, 0);
    close_to(p.model_time_s, 0.1, 0, "model time");
    close_to(p.theoretical_time_s, 0.1, 0, "theoretical");
    ht_split_plan_destroy(&p);

    /* Just below: a1 = 0.09 < 0.1 takes a share; T = (1 + 0.09/0.91)/(1/0.1 + 1/0.91)
     * = 1/10.1, S0 = T/0.1 = 1/1.01, S1 = (T − 0.09)/0.91 = 0.01/1.01. */
    plan_make(1024, (uint64_t[]){1, 1}, (double[]){0.1, 1.0}, (double[]){0, 0.09}, 2,
              HT_SPLIT_RESIDUE_WORK, &p);
    close_to(p.slices[0].optimal_factor, 1 / 1.01, 1e-12, "S0");
    close_to(p.slices[1].optimal_factor, 0.01 / 1.01, 1e-12, "S1");
    ht_split_plan_destroy(&p);

    /* Three devices, t = 1, 2, 4, a = 0, 0.3, 0.9: device 0 alone: T = 1; with device 1:
     * T = (1 + 0.3/1.7)/(1 + 1/1.7) = 2/2.7 = 20/27, below device 2's 0.9, which gets
     * nothing. S = 20/27, (20/27 − 0.3)/1.7 = 7/27, 0. In any order. */
    {
        static const size_t perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                           {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        const double t[3] = {1, 2, 4}, a[3] = {0, 0.3, 0.9}, S[3] = {20.0 / 27, 7.0 / 27, 0};
        for (size_t q = 0; q < 6; q++) {
            double tp[3], ap[3];
            for (size_t i = 0; i < 3; i++) {
                tp[i] = t[perms[q][i]];
                ap[i] = a[perms[q][i]];
            }
            plan_make(2700, (uint64_t[]){1, 1, 1}, tp, ap, 3, HT_SPLIT_RESIDUE_WORK, &p);
            for (size_t i = 0; i < 3; i++)
                close_to(p.slices[i].optimal_factor, S[perms[q][i]], 1e-12, "S, permuted");
            for (size_t i = 0; i < 3; i++)
                assert_int_equal(p.slices[i].size, perms[q][i] == 0   ? 2000
                                                   : perms[q][i] == 1 ? 700
                                                                      : 0);
            close_to(p.model_time_s, 20.0 / 27, 1e-12, "model time");
            ht_split_plan_destroy(&p);
        }
    }
}

static void test_affine_three_devices(void **state)
{
    /* t = 1, 2, 4 with a = 0.1, 0.3, 0.2: every device finishes at the same T,
     * T = (1 + 0.1/0.9 + 0.3/1.7 + 0.2/3.8) / (1/0.9 + 1/1.7 + 1/3.8). */
    const double t[3] = {1, 2, 4}, a[3] = {0.1, 0.3, 0.2};
    double T = (1 + 0.1 / 0.9 + 0.3 / 1.7 + 0.2 / 3.8) / (1 / 0.9 + 1 / 1.7 + 1 / 3.8), sum = 0;
    struct ht_split_device_in d[3];
    struct ht_split_plan p;
    (void)state;
    plan_make(1 << 20, (uint64_t[]){64, 32, 16}, t, a, 3, HT_SPLIT_RESIDUE_WORK, &p);
    for (size_t i = 0; i < 3; i++) {
        assert_true(p.slices[i].optimal_factor > 0);
        close_to(a[i] + (t[i] - a[i]) * p.slices[i].optimal_factor, T, 1e-9 * T, "T");
        sum += p.slices[i].optimal_factor;
    }
    close_to(sum, 1, 1e-15, "sum of factors");
    /* Not Eq. 4: T = 0.683, S = 0.648, 0.225, 0.127 against 4/7, 2/7, 1/7. */
    close_to(T, 0.68291, 1e-5, "T by hand");
    assert_true(p.slices[0].optimal_factor > 4.0 / 7 + 0.05);
    assert_true(p.slices[2].optimal_factor < 1.0 / 7 - 0.01);
    memset(d, 0, sizeof d);
    for (size_t i = 0; i < 3; i++) {
        d[i].wg = p.slices[i].wg;
        d[i].time_s = t[i];
        d[i].overhead_s = a[i];
    }
    check_plan(&p, d, NULL, 3, 1 << 20, HT_SPLIT_RESIDUE_WORK, "three");
    /* The slices are within a few work-groups of the optimum: the model's time too. */
    assert_true(p.model_time_s >= T * (1 - 1e-12));
    assert_true(p.model_time_s <= T + 1e-3);
    ht_split_plan_destroy(&p);
}

static void test_residue_by_time(void **state)
{
    /* The matrix multiplication of the GPU bench: G = 1024, wg 2 (CPU) and 32 (GPU), the
     * CPU 400 times slower. S0 = 0.000305/0.124305: γ = 1.26 and 31.92, γ̂ = 1 (2) and
     * 31 (992), R = 30. By work (Eq. 9) the CPU covers it with 30 against 32 and takes 15
     * more groups, finishing at 0.124·32/1024 = 3.875 ms; by time the GPU, with all 1024
     * work-items, finishes at 0.305 ms, and starts at 0 inside the CPU's one group. */
    struct ht_split_plan p;
    (void)state;
    plan_make(1024, (uint64_t[]){2, 32}, (double[]){0.124, 0.000305}, NULL, 2,
              HT_SPLIT_RESIDUE_WORK, &p);
    assert_int_equal(p.residue, 30);
    assert_int_equal(p.residue_device, 0);
    assert_int_equal(p.slices[0].extra_groups, 15);
    slice_is(&p, 1, 31, 0, 0, 992);
    slice_is(&p, 0, 16, 992, 992, 32);
    assert_int_equal(p.overlap, 0);
    close_to(p.model_time_s, 0.003875, 1e-15, "model time by work");
    ht_split_plan_destroy(&p);

    plan_make(1024, (uint64_t[]){2, 32}, (double[]){0.124, 0.000305}, NULL, 2,
              HT_SPLIT_RESIDUE_TIME, &p);
    assert_int_equal(p.residue, 30);
    assert_int_equal(p.residue_device, 1);
    assert_int_equal(p.slices[0].extra_groups, 0);
    assert_int_equal(p.slices[1].extra_groups, 1);
    slice_is(&p, 0, 1, 0, 0, 2);
    slice_is(&p, 1, 32, 0, 2, 1022);
    assert_int_equal(p.slices[1].size, 1024);
    assert_int_equal(p.overlap, 2);
    assert_int_equal(p.overhang, 0);
    close_to(p.model_time_s, 0.000305, 0, "model time by time");
    close_to(p.adjusted_time_s, 0.000305, 0, "adjusted time by time");
    ht_split_plan_destroy(&p);

    /* The Table-3-like case: wg 16 and 48, equal times 0.25, γ̂ = 32 (512) and 10 (480),
     * R = 32. By work device 0 (32 against 48), finishing at 0.25·544/1024; by time
     * device 1, whose 11 groups (528) finish at 0.25·528/1024, from 496: 16 work-items
     * computed twice. */
    plan_make(1024, (uint64_t[]){16, 48}, (double[]){0.25, 0.25}, NULL, 2,
              HT_SPLIT_RESIDUE_TIME, &p);
    assert_int_equal(p.residue, 32);
    assert_int_equal(p.residue_device, 1);
    slice_is(&p, 0, 32, 0, 0, 512);
    slice_is(&p, 1, 11, 496, 512, 512);
    assert_int_equal(p.overlap, 16);
    close_to(p.adjusted_time_s, 0.25 * 528 / 1024, 1e-15, "adjusted time");
    ht_split_plan_destroy(&p);

    /* No device fits (G = 100, wg 64 and 256, t = 1 and 0.1): by work device 0 takes all
     * as 2 groups (128, finishing at 1.28 s); by time device 1, one group of 256 at
     * 0.256 s, 156 past G. */
    plan_make(100, (uint64_t[]){64, 256}, (double[]){1, 0.1}, NULL, 2, HT_SPLIT_RESIDUE_WORK,
              &p);
    assert_int_equal(p.residue_device, 0);
    slice_is(&p, 0, 2, 0, 0, 100);
    slice_is(&p, 1, 0, 0, 0, 0);
    assert_int_equal(p.overhang, 28);
    ht_split_plan_destroy(&p);
    plan_make(100, (uint64_t[]){64, 256}, (double[]){1, 0.1}, NULL, 2, HT_SPLIT_RESIDUE_TIME,
              &p);
    assert_int_equal(p.residue_device, 1);
    assert_int_equal(p.residue, 100);
    slice_is(&p, 0, 0, 0, 0, 0);
    slice_is(&p, 1, 1, 0, 0, 100);
    assert_int_equal(p.overhang, 156);
    close_to(p.model_time_s, 0.256, 1e-15, "model time");
    ht_split_plan_destroy(&p);

    /* With overheads the finish times are the model's. t = 1 and 1, a = 0 and 0.6, G =
     * 1000, wg 1 and 2: T = (1 + 0.6/0.4)/(1 + 1/0.4) = 5/7, S = 5/7 and 2/7, γ̂ = 714 and
     * 142 (284), R = 2. Both need 2 work-items; device 0 would finish at 0.716 s, device 1
     * at 0.6 + 0.4·0.286 = 0.7144 s (linearly it would be 0.286 s either way): device 1
     * by either rule. */
    {
        struct ht_split_plan q;
        plan_make(1000, (uint64_t[]){1, 2}, (double[]){1, 1}, (double[]){0, 0.6}, 2,
                  HT_SPLIT_RESIDUE_WORK, &p);
        plan_make(1000, (uint64_t[]){1, 2}, (double[]){1, 1}, (double[]){0, 0.6}, 2,
                  HT_SPLIT_RESIDUE_TIME, &q);
        assert_int_equal(p.residue, 2);
        assert_int_equal(p.residue_device, 1);
        slice_is(&p, 0, 714, 0, 0, 714);
        slice_is(&p, 1, 143, 714, 714, 286);
        close_to(p.model_time_s, 0.6 + 0.4 * 0.286, 1e-12, "model time");
        same_plan(&p, &q, "both rules");
        ht_split_plan_destroy(&q);
        ht_split_plan_destroy(&p);
    }

    /* The rules agree: the paper's example with wg 1 (both need 1 work-item; device 0
     * finishes first, 0.6006 s against 0.6016 s). */
    {
        struct ht_split_plan q;
        plan_make(512, (uint64_t[]){1, 1}, (double[]){1.5, 1.0}, NULL, 2,
                  HT_SPLIT_RESIDUE_WORK, &p);
        plan_make(512, (uint64_t[]){1, 1}, (double[]){1.5, 1.0}, NULL, 2,
                  HT_SPLIT_RESIDUE_TIME, &q);
        assert_int_equal(q.residue_device, 0);
        slice_is(&q, 1, 307, 0, 0, 307);
        slice_is(&q, 0, 205, 307, 307, 205);
        same_plan(&p, &q, "paper example");
        ht_split_plan_destroy(&q);
        ht_split_plan_destroy(&p);
    }
}

static void test_residue_by_groups(void **state)
{
    struct ht_split_plan p, q;
    (void)state;

    /* matmul N=1024 on two H200s with the CPU out: wg 32 and 32, 0.306 and 0.307 ms,
     * γ = 16.03 and 15.97: γ̂ = 16 and 15, R = 32. Both rules give the group to device 1
     * (16 + 16). With the CPU in (wg 2, 61 ms): γ̂ = 1 (2), 15 (480), 15 (480), R = 62.
     * By time GPU 1 takes 2 groups (17: 0.163 ms); by groups each GPU takes one, GPU 2
     * last from 960 (2 work-items computed twice), and each finishes at 0.1535 ms. */
    plan_make(1024, (uint64_t[]){32, 32}, (double[]){0.000306, 0.000307}, NULL, 2,
              HT_SPLIT_RESIDUE_GROUPS, &p);
    slice_is(&p, 0, 16, 0, 0, 512);
    slice_is(&p, 1, 16, 512, 512, 512);
    assert_int_equal(p.residue_device, 1);
    ht_split_plan_destroy(&p);

    plan_make(1024, (uint64_t[]){2, 32, 32}, (double[]){0.061, 0.000306, 0.000307}, NULL, 3,
              HT_SPLIT_RESIDUE_TIME, &q);
    assert_int_equal(q.residue, 62);
    assert_int_equal(q.residue_device, 1);
    assert_int_equal(q.slices[1].groups, 17);
    close_to(q.model_time_s, 0.000306 * 544 / 1024, 1e-15, "by time");
    plan_make(1024, (uint64_t[]){2, 32, 32}, (double[]){0.061, 0.000306, 0.000307}, NULL, 3,
              HT_SPLIT_RESIDUE_GROUPS, &p);
    assert_int_equal(p.residue, 62);
    slice_is(&p, 0, 1, 0, 0, 2);
    slice_is(&p, 1, 16, 2, 2, 512);
    assert_int_equal(p.slices[1].extra_groups, 1);
    assert_int_equal(p.slices[2].extra_groups, 1);
    assert_int_equal(p.residue_device, 2);
    slice_is(&p, 2, 16, 512, 514, 510);
    assert_int_equal(p.overlap, 2);
    close_to(p.model_time_s, 0.000307 * 512 / 1024, 1e-15, "by groups");
    ht_split_plan_destroy(&q);
    ht_split_plan_destroy(&p);

    /* Ties go to the smaller group: equal times, wg 16 and 48, γ̂ = 32 (512) and 10 (480),
     * R = 32. Device 0 with one more group (528) and device 1 (528) tie: device 0, then
     * 544 against 528: device 1 (overlap 32, from 496). The time rule gives device 1 its
     * one group (528, from 496): both finish at 0.25·528/1024. */
    plan_make(1024, (uint64_t[]){16, 48}, (double[]){0.25, 0.25}, NULL, 2,
              HT_SPLIT_RESIDUE_GROUPS, &p);
    assert_int_equal(p.slices[0].extra_groups, 1);
    assert_int_equal(p.slices[1].extra_groups, 1);
    assert_int_equal(p.residue_device, 1);
    slice_is(&p, 0, 33, 0, 0, 528);
    slice_is(&p, 1, 11, 496, 528, 496);
    assert_int_equal(p.overlap, 32);
    close_to(p.model_time_s, 0.25 * 528 / 1024, 1e-15, "ties");
    ht_split_plan_destroy(&p);

    /* Where the time rule cannot fit the residue on one device (G = 100, wg 64 and 64,
     * equal times), the groups can: 64 + 64 from 36, no overhang. */
    plan_make(100, (uint64_t[]){64, 64}, (double[]){1, 1}, NULL, 2, HT_SPLIT_RESIDUE_TIME, &q);
    assert_int_equal(q.overhang, 28);
    plan_make(100, (uint64_t[]){64, 64}, (double[]){1, 1}, NULL, 2, HT_SPLIT_RESIDUE_GROUPS,
              &p);
    assert_int_equal(p.overhang, 0);
    slice_is(&p, 0, 1, 0, 0, 64);
    slice_is(&p, 1, 1, 36, 64, 36);
    assert_int_equal(p.overlap, 28);
    ht_split_plan_destroy(&q);
    ht_split_plan_destroy(&p);

    /* No device can take a group (G = 100, wg 256 and 128): the time rule's fallback,
     * device 1 with one group of 128. */
    plan_make(100, (uint64_t[]){256, 128}, (double[]){1, 1}, NULL, 2, HT_SPLIT_RESIDUE_TIME,
              &q);
    plan_make(100, (uint64_t[]){256, 128}, (double[]){1, 1}, NULL, 2, HT_SPLIT_RESIDUE_GROUPS,
              &p);
    same_plan(&p, &q, "fallback");
    assert_int_equal(p.residue_device, 1);
    assert_int_equal(p.overhang, 28);
    ht_split_plan_destroy(&q);
    ht_split_plan_destroy(&p);

    /* Names. */
    {
        enum ht_split_residue r;
        assert_string_equal(ht_split_residue_name(HT_SPLIT_RESIDUE_GROUPS), "groups");
        assert_null(ht_split_residue_name((enum ht_split_residue)3));
        assert_int_equal(ht_split_residue_parse("time", &r), HT_OK);
        assert_int_equal(r, HT_SPLIT_RESIDUE_TIME);
        assert_int_equal(ht_split_residue_parse("Time", &r), HT_EINVAL);
        assert_int_equal(ht_split_residue_parse(NULL, &r), HT_EINVAL);
    }
}

static void expect_make_error(const struct ht_split_device_in *d, size_t n,
                              const struct ht_split_plan_opts *opts, const char *field,
                              const char *words)
{
    struct ht_split_plan p;
    struct ht_error err;

    memset(&p, 0xab, sizeof p);
    ht_error_clear(&err);
    assert_int_equal(ht_split_plan_make(512, d, n, opts, &p, &err), HT_EINVAL);
    assert_int_equal(err.code, HT_EINVAL);
    if (strcmp(err.field, field) || !strstr(err.text, words)) {
        fprintf(stderr, "error '%s: %s', want field '%s' and '%s'\n", err.field, err.text,
                field, words);
        fail();
    }
    assert_null(p.slices);
    assert_int_equal(p.ndevices, 0);
    ht_split_plan_destroy(&p);
}

static void test_make_errors(void **state)
{
    struct ht_split_device_in ok[2] = {{64, 1, 0.25}, {32, 2, 0}};
    struct ht_split_plan_opts opts;
    struct ht_split_plan p;
    (void)state;

    expect_make_error((struct ht_split_device_in[]){{64, 1, 0}, {32, 2, -0.1}}, 2, NULL,
                      "devices[1].overhead", "at least 0 and below the time");
    expect_make_error((struct ht_split_device_in[]){{64, 1, NAN}, {32, 2, 0}}, 2, NULL,
                      "devices[0].overhead", "at least 0 and below the time");
    expect_make_error((struct ht_split_device_in[]){{64, 1, 0}, {32, 2, 2}}, 2, NULL,
                      "devices[1].overhead", "below the time 2 s (got 2)");
    expect_make_error((struct ht_split_device_in[]){{64, 1, 1.5}, {32, 2, 0}}, 2, NULL,
                      "devices[0].overhead", "got 1.5");
    expect_make_error((struct ht_split_device_in[]){{64, 1, INFINITY}, {32, 2, 0}}, 2, NULL,
                      "devices[0].overhead", "below the time");
    /* The time is checked before the overhead. */
    expect_make_error((struct ht_split_device_in[]){{64, -1, -2}, {32, 2, 0}}, 2, NULL,
                      "devices[0].time", "positive, finite");

    memset(&opts, 0, sizeof opts);
    opts.residue = (enum ht_split_residue)7;
    expect_make_error(ok, 2, &opts, "residue", "unknown residue rule");
    opts.residue = (enum ht_split_residue)-1;
    expect_make_error(ok, 2, &opts, "residue", "unknown residue rule");
    /* With factors too; and the factors' own errors through the options. */
    opts.factors = (double[]){0.5, 0.5};
    opts.residue = (enum ht_split_residue)7;
    expect_make_error(ok, 2, &opts, "residue", "unknown residue rule");
    opts.residue = HT_SPLIT_RESIDUE_TIME;
    opts.factors = (double[]){0.5, -1};
    expect_make_error(ok, 2, &opts, "factors[1]", "not negative");

    /* An overhead just below the time is fine, and with factors the overheads do not
     * change the factors (0.25 / 0.75 of 512, wg 64 and 32: 128 and 384). */
    opts.factors = (double[]){0.25, 0.75};
    opts.residue = HT_SPLIT_RESIDUE_WORK;
    assert_int_equal(ht_split_plan_make(512, (struct ht_split_device_in[]){{64, 1, 0.999},
                                                                        {32, 2, 0}},
                                        2, &opts, &p, NULL),
                     0);
    close_to(p.slices[0].optimal_factor, 0.25, 0, "factor kept");
    slice_is(&p, 0, 2, 0, 0, 128);
    slice_is(&p, 1, 12, 128, 128, 384);
    close_to(p.model_time_s, fmax(0.999 + 0.001 * 0.25, 2 * 0.75), 1e-15, "model time");
    ht_split_plan_destroy(&p);
}

/* An overhead a few units of rounding below the common time: its share must not come out
 * negative (which once made the planner give back groups one by one, G/wg times). */
static void test_affine_rounding(void **state)
{
    struct ht_split_device_in d[2];
    struct ht_split_plan p;
    struct ht_error err;
    (void)state;
    memset(d, 0, sizeof d);
    d[0].wg = d[1].wg = 1;
    d[0].time_s = 1;
    d[1].time_s = 1.05;
    d[1].overhead_s = nextafter(1, 0);
    ht_error_clear(&err);
    assert_int_equal(ht_split_plan_make(UINT64_C(1) << 40, d, 2, NULL, &p, &err), 0);
    assert_true(p.slices[1].optimal_factor >= 0);
    assert_int_equal(p.slices[1].size, 0);
    assert_int_equal(p.slices[0].size, UINT64_C(1) << 40);
    ht_split_plan_destroy(&p);
}

static void test_fit_model(void **state)
{
    double time = -1, overhead = -1;
    (void)state;

    /* Share 1 in 1 s, share 0.5 in 0.6 s: slope 0.8, overhead 0.2, whole problem 1 s. */
    assert_int_equal(ht_split_fit_model(1.0, 1.0, 0.5, 0.6, 0, &time, &overhead), HT_OK);
    close_to(overhead, 0.2, 1e-15, "overhead");
    close_to(time, 1.0, 1e-15, "time");
    close_to(time - overhead, 0.8, 1e-15, "slope");
    /* The points in the other order: the same line. */
    time = overhead = -1;
    assert_int_equal(ht_split_fit_model(0.5, 0.6, 1.0, 1.0, 0, &time, &overhead), HT_OK);
    close_to(overhead, 0.2, 1e-15, "overhead, swapped");
    close_to(time, 1.0, 1e-15, "time, swapped");

    /* The half ran faster than in proportion: no overhead, the line through the origin
     * and the second point: slope 0.4/0.5 = 0.8. */
    assert_int_equal(ht_split_fit_model(1.0, 1.0, 0.5, 0.4, 0, &time, &overhead), HT_OK);
    close_to(overhead, 0, 0, "overhead, faster");
    close_to(time, 0.8, 1e-15, "time, faster");

    /* As long for half as for all: the slope floor given, 0.25; the line goes through the
     * second point: a = 1 − 0.25·0.5 = 0.875, time 1.125. */
    assert_int_equal(ht_split_fit_model(1.0, 1.0, 0.5, 1.0, 0.25, &time, &overhead), HT_OK);
    close_to(overhead, 0.875, 1e-15, "overhead, floor");
    close_to(time, 1.125, 1e-15, "time, floor");
    /* Without a floor given, max(t1, t2)/1000: slope 0.002, a = 2 − 0.001 = 1.999. */
    assert_int_equal(ht_split_fit_model(1.0, 2.0, 0.5, 2.0, 0, &time, &overhead), HT_OK);
    close_to(overhead, 1.999, 1e-15, "overhead, implicit floor");
    close_to(time, 2.001, 1e-15, "time, implicit floor");
    /* Slower for half than for all (a negative slope): the floor too. */
    assert_int_equal(ht_split_fit_model(1.0, 1.0, 0.5, 1.5, 0.5, &time, &overhead), HT_OK);
    close_to(overhead, 1.25, 1e-15, "overhead, negative slope");
    close_to(time, 1.75, 1e-15, "time, negative slope");
    /* A floor below the measured slope changes nothing. */
    assert_int_equal(ht_split_fit_model(1.0, 1.0, 0.5, 0.6, 0.5, &time, &overhead), HT_OK);
    close_to(overhead, 0.2, 1e-15, "overhead, low floor");

    /* Invalid inputs: HT_EINVAL, the outputs untouched. */
    {
        static const double bad[][4] = {
            {0, 1, 0.5, 0.6},   {1, 1, 0, 0.6},    {1.5, 1, 0.5, 0.6}, {1, 1, 1.0001, 0.6},
            {-0.5, 1, 1, 1},    {0.5, 1, 0.5, 2},  {1, 0, 0.5, 0.6},   {1, 1, 0.5, 0},
            {1, -1, 0.5, 0.6},  {1, 1, 0.5, -0.6}, {NAN, 1, 0.5, 0.6}, {1, NAN, 0.5, 0.6},
            {1, 1, NAN, 0.6},   {1, 1, 0.5, NAN},  {1, INFINITY, 0.5, 0.6},
            {1, 1, 0.5, INFINITY},
        };
        for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
            time = 123;
            overhead = 456;
            if (ht_split_fit_model(bad[c][0], bad[c][1], bad[c][2], bad[c][3], 0, &time,
                                   &overhead) != HT_EINVAL ||
                time != 123 || overhead != 456) {
                fprintf(stderr, "bad case %zu: accepted, or outputs touched\n", c);
                fail();
            }
        }
    }
}

/* ---------------------------------------------------------------------------------- */
/* property test */

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* The affine model's time of a device for `total` of the G work-items, as split.h states
 * it: a + (t − a)·total/G, 0 for none. */
static double model_of(const struct ht_split_device_in *d, uint64_t total, uint64_t G)
{
    if (total == 0)
        return 0;
    return d->overhead_s + (d->time_s - d->overhead_s) * ((double)total / (double)G);
}

/* HT_SPLIT_RESIDUE_GROUPS against the time rule on the same input: where the time rule
 * fits the residue on one device, the groups fit too and finish no later by the model (at
 * every step the device the time rule picks was a candidate no later than its finish);
 * where it does not, the groups either fit (e.g. G = 100, wg 64 and 64: 64 + 64) or fall
 * back exactly as it does. The groups given are the fewest that cover the residue: without
 * the last one, they would not. */
static void check_groups(const struct ht_split_plan *p, const struct ht_split_device_in *d,
                         const double *factors, size_t n, uint64_t G, int fallback,
                         const char *label)
{
    struct ht_split_plan_opts opts = {.factors = factors, .residue = HT_SPLIT_RESIDUE_TIME};
    struct ht_split_plan q;
    struct ht_error err;
    size_t k = p->residue_device;
    int q_fallback;

    ht_error_clear(&err);
    if (ht_split_plan_make(G, d, n, &opts, &q, &err) != 0) {
        fprintf(stderr, "%s: by time: %s\n", label, err.text);
        fail();
    }
    q_fallback = q.residue_device != NONE && q.residue == G &&
                 q.slices[q.residue_device].base_groups == 0 &&
                 q.slices[q.residue_device].offset + q.slices[q.residue_device].size > G;
    if (fallback) {
        assert_true(q_fallback);
        same_plan(p, &q, label);
    } else {
        uint64_t extra = 0;
        for (size_t i = 0; i < n; i++)
            extra += p->slices[i].extra_groups * p->slices[i].wg;
        assert_true(extra >= p->residue);
        assert_true(extra - p->slices[k].wg < p->residue);
        if (!q_fallback)
            assert_int_equal(p->residue, q.residue);
        if (!q_fallback && !(p->model_time_s <= q.model_time_s)) {
            fprintf(stderr, "%s: by groups %.17g s, by time %.17g s\n", label,
                    p->model_time_s, q.model_time_s);
            fail();
        }
    }
    ht_split_plan_destroy(&q);
}

/* Every invariant of split.h, and Eq. 9's choice (by `rule`) checked by brute force. With
 * overheads (and no factors), the affine model's factors instead of Eq. 4's balance. */
static void check_plan(const struct ht_split_plan *p, const struct ht_split_device_in *d,
                       const double *factors, size_t n, uint64_t G, enum ht_split_residue rule,
                       const char *label)
{
    const struct ht_split_slice *s = p->slices;
    uint64_t base_total = 0, sum = 0, pos;
    double sumS = 0, sumA = 0, theo = 0, adj = 0, model = 0;
    size_t k = p->residue_device;
    int all_divide = 1, fallback, affine = 0;

    for (size_t i = 0; i < n; i++)
        affine |= !factors && d[i].overhead_s > 0;

    assert_int_equal(p->global, G);
    assert_int_equal(p->ndevices, n);
    for (size_t i = 0; i < n; i++) {
        double g = s[i].gamma;
        assert_int_equal(s[i].wg, d[i].wg);
        close_to(s[i].time_s, d[i].time_s, 0, label);
        close_to(s[i].overhead_s, d[i].overhead_s, 0, label);
        all_divide &= G % d[i].wg == 0;
        /* Eq. 4 or the normalized factor; Eq. 6. The affine model gives nothing to a
         * device whose overhead outlasts the others' time, never a negative factor. */
        if (factors || affine)
            assert_true(s[i].optimal_factor >= 0);
        else
            assert_true(s[i].optimal_factor > 0);
        close_to(g, (double)G * s[i].optimal_factor / (double)d[i].wg, 1e-9 * (g + 1), label);
        sumS += s[i].optimal_factor;
        base_total += s[i].base_groups * s[i].wg;
        /* Whole groups: a slice is groups · wg; extra groups only on the residue device. */
        assert_int_equal(s[i].groups, s[i].base_groups + s[i].extra_groups);
        assert_int_equal(s[i].size, s[i].groups * s[i].wg);
        if (i != k && rule != HT_SPLIT_RESIDUE_GROUPS)
            assert_int_equal(s[i].extra_groups, 0);
        if (s[i].extra_groups)
            assert_true(s[i].optimal_factor > 0);
        if (s[i].size == 0) {
            assert_int_equal(s[i].offset, 0);
            assert_int_equal(s[i].own_offset, 0);
            assert_int_equal(s[i].own_size, 0);
        } else {
            assert_true(s[i].offset < G);
            assert_true(s[i].own_size > 0);
            /* The owned range lies inside the launched slice. */
            assert_true(s[i].own_offset >= s[i].offset);
            assert_true(s[i].own_offset + s[i].own_size <= s[i].offset + s[i].size);
            assert_true(s[i].own_offset + s[i].own_size <= G);
        }
        if (i != k)
            assert_true(s[i].offset + s[i].size <= G);
        sum += s[i].size;
        sumA += s[i].adjusted_factor;
        close_to(s[i].adjusted_factor, (double)s[i].own_size / (double)G, 0, label);
        close_to(s[i].slice_factor, (double)s[i].size / (double)G, 0, label);
        if (s[i].optimal_factor * s[i].time_s > theo)
            theo = s[i].optimal_factor * s[i].time_s;
        if (s[i].slice_factor * s[i].time_s > adj)
            adj = s[i].slice_factor * s[i].time_s;
        if (model_of(&d[i], s[i].size, G) > model)
            model = model_of(&d[i], s[i].size, G);
    }
    close_to(sumS, 1, 1e-12, "optimal factors sum to 1");
    close_to(sumA, 1, 1e-12, "adjusted factors sum to 1");
    close_to(p->theoretical_time_s, theo, 0, "Algorithm 1");
    close_to(p->adjusted_time_s, adj, 0, "adjusted time");
    close_to(p->model_time_s, model, 1e-15 * model, "model time");
    if (!affine)
        /* Without overheads the model is the linear one: exactly the adjusted time. */
        close_to(p->model_time_s, p->adjusted_time_s, 0, "model time without overheads");
    if (!factors && !affine)
        /* Eq. 4 balances the optimal shares: S_i·t_i is the same on every device. */
        for (size_t i = 0; i < n; i++)
            close_to(s[i].optimal_factor * s[i].time_s, theo, 1e-12 * theo, "balance");
    if (affine) {
        /* Every device with a share finishes at the same T = a_i + (t_i − a_i)·S_i, the
         * closed form (1 + Σ a_i/(t_i − a_i)) / Σ 1/(t_i − a_i) over them; every device
         * without one has an overhead of at least T. */
        double num = 1, den = 0, T;
        for (size_t i = 0; i < n; i++)
            if (s[i].optimal_factor > 0) {
                num += d[i].overhead_s / (d[i].time_s - d[i].overhead_s);
                den += 1 / (d[i].time_s - d[i].overhead_s);
            }
        assert_true(den > 0);
        T = num / den;
        for (size_t i = 0; i < n; i++) {
            if (s[i].optimal_factor > 0)
                close_to(d[i].overhead_s + (d[i].time_s - d[i].overhead_s) *
                                               s[i].optimal_factor,
                         T, 1e-9 * T, "affine balance");
            else if (!(d[i].overhead_s >= T * (1 - 1e-9))) {
                fprintf(stderr, "%s: device %zu: overhead %.17g below T %.17g, no share\n",
                        label, i, d[i].overhead_s, T);
                fail();
            }
        }
    }

    /* Owned ranges partition [0, G): in the order of own_offset they follow each other. */
    for (pos = 0; pos < G;) {
        size_t owner = NONE;
        for (size_t i = 0; i < n; i++)
            if (s[i].own_size && s[i].own_offset == pos) {
                assert_int_equal(owner, NONE);
                owner = i;
            }
        if (owner == NONE) {
            fprintf(stderr, "%s: nothing owns work-item %llu\n", label,
                    (unsigned long long)pos);
            fail();
        }
        pos += s[owner].own_size;
    }
    assert_int_equal(pos, G);
    assert_int_equal(p->overlap, sum - G);

    fallback = k != NONE && p->residue == G && s[k].base_groups == 0 &&
               s[k].offset + s[k].size > G;
    if (!fallback)
        /* Eq. 7: the floors, within the rounding rule (never above γ beyond rounding; one
         * below the floor where a device gave a group back). */
        for (size_t i = 0; i < n; i++)
            if (!((double)s[i].base_groups <= s[i].gamma * (1 + 1e-12) &&
                  (double)s[i].base_groups + 2 > s[i].gamma * (1 - 1e-12))) {
                fprintf(stderr, "%s: device %zu: γ %.17g, γ̂ %llu\n", label, i, s[i].gamma,
                        (unsigned long long)s[i].base_groups);
                fail();
            }
    if (k == NONE) {
        assert_int_equal(p->residue, 0);
        assert_int_equal(base_total, G);
        assert_int_equal(p->overlap, 0);
        assert_int_equal(p->overhang, 0);
        return;
    }
    assert_true(s[k].optimal_factor > 0);
    assert_true(s[k].extra_groups > 0);
    assert_true(p->overlap < s[k].wg);
    assert_int_equal(p->residue, G - base_total);
    /* The residue device is last, ending at G, unless it took all and overruns. */
    assert_int_equal(p->overhang, s[k].offset + s[k].size > G ? s[k].offset + s[k].size - G : 0);
    if (p->overhang) {
        assert_true(fallback);
        assert_int_equal(s[k].offset, 0);
        assert_int_equal(s[k].own_offset, 0);
        assert_int_equal(s[k].own_size, G);
        /* Every wg dividing G, every device fits: never an overhang. */
        assert_false(all_divide);
    } else {
        assert_int_equal(s[k].offset + s[k].size, G);
        for (size_t i = 0; i < n; i++)
            if (i != k && s[i].size)
                assert_true(s[i].offset + s[i].size <= s[k].own_offset);
    }

    if (rule == HT_SPLIT_RESIDUE_GROUPS) {
        check_groups(p, d, factors, n, G, fallback, label);
        return;
    }

    /* Eq. 9 by brute force: no candidate with less work, or as little and an earlier
     * finish, or as early and a lower index (by time: no earlier finish, or as early and
     * less work, or as little and a lower index). Finish times by the affine model. */
    {
        uint64_t need = p->residue;
        uint64_t kwork = s[k].wg * ceil_div(need, s[k].wg);
        double kfinish = model_of(&d[k], s[k].size, G);
        int any_fit = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t work, total;
            if (!(s[i].optimal_factor > 0))
                continue;
            if (fallback) {
                work = s[i].wg * ceil_div(G, s[i].wg);
                total = work;
            } else {
                work = s[i].wg * ceil_div(need, s[i].wg);
                total = s[i].base_groups * s[i].wg + work;
                if (total > G)
                    continue;
            }
            any_fit = 1;
            if (i == k)
                continue;
            double finish = model_of(&d[i], total, G);
            if (rule == HT_SPLIT_RESIDUE_TIME) {
                assert_true(finish >= kfinish);
                if (finish == kfinish) {
                    assert_true(work >= kwork);
                    if (work == kwork)
                        assert_true(i > k);
                }
            } else {
                assert_true(work >= kwork);
                if (work == kwork) {
                    assert_true(finish >= kfinish);
                    if (finish == kfinish)
                        assert_true(i > k);
                }
            }
        }
        assert_true(any_fit);
        assert_true(s[k].groups * s[k].wg == (fallback ? kwork : s[k].base_groups * s[k].wg + kwork));
    }
}

/* Marks every work-item with its owner, and checks that the owner's slice computes it. */
static void check_ownership(const struct ht_split_plan *p, uint64_t G)
{
    unsigned char *owners = calloc(G, 1);
    assert_non_null(owners);
    for (size_t i = 0; i < p->ndevices; i++) {
        const struct ht_split_slice *s = &p->slices[i];
        for (uint64_t x = s->own_offset; x < s->own_offset + s->own_size; x++) {
            assert_true(x >= s->offset && x < s->offset + s->size);
            owners[x]++;
        }
    }
    for (uint64_t x = 0; x < G; x++)
        if (owners[x] != 1) {
            fprintf(stderr, "work-item %llu has %d owners\n", (unsigned long long)x, owners[x]);
            fail();
        }
    free(owners);
}

static void test_random_plans(void **state)
{
    struct ht__rng rng, orng;
    size_t cases = 0, with_residue = 0, with_overlap = 0, with_overhang = 0, empty = 0;
    size_t affine_cases = 0, no_share = 0, by_time = 0, time_differs = 0, spread = 0;
    (void)state;

    ht__rng_seed(&rng, 20180513);
    ht__rng_seed(&orng, 20240229); /* the overheads' own, so the cases above stay as they were */
    for (int it = 0; it < 20000; it++) {
        struct ht_split_device_in d[5];
        double factors[5];
        size_t n = 1 + ht__rng_next(&rng) % 5;
        int kind = (int)(ht__rng_next(&rng) % 5), use_factors = it % 5 == 4;
        uint64_t G;
        struct ht_split_plan p;
        struct ht_error err;
        char label[64];

        memset(d, 0, sizeof d);
        for (size_t i = 0; i < n; i++) {
            if (kind == 0) /* powers of two that divide G below */
                d[i].wg = UINT64_C(1) << (ht__rng_next(&rng) % 11);
            else if (kind == 4) /* huge G: rounding makes the floors pass G */
                d[i].wg = 1 + ht__rng_next(&rng) % 3;
            else
                d[i].wg = 1 + ht__rng_next(&rng) % 1024;
            if (kind == 4 || ht__rng_next(&rng) % 3 == 0) /* small integers: exact ratios */
                d[i].time_s = (double)(1 + ht__rng_next(&rng) % 8);
            else /* log-uniform over 1e-4 .. 1e3 s */
                d[i].time_s = pow(10, -4 + 7 * ht__rng_double(&rng));
            factors[i] = ht__rng_next(&rng) % 4 == 0 ? 0 : ht__rng_double(&rng);
        }
        if (use_factors && factors[0] == 0)
            factors[0] = 0.5;
        if (kind == 0)
            G = 1024 * (1 + ht__rng_next(&rng) % 1024);
        else if (kind == 1) /* small: often below a wg */
            G = 1 + ht__rng_next(&rng) % 2048;
        else if (kind == 4)
            G = (UINT64_C(1) << 53) - ht__rng_next(&rng) % 1000000;
        else
            G = 1 + ht__rng_next(&rng) % (UINT64_C(1) << 20);

        snprintf(label, sizeof label, "case %d", it);
        ht_error_clear(&err);
        if (plan_with(G, d, use_factors ? factors : NULL, n, &p, &err) != 0) {
            fprintf(stderr, "%s: %s\n", label, err.text);
            fail();
        }
        check_plan(&p, d, use_factors ? factors : NULL, n, G, HT_SPLIT_RESIDUE_WORK, label);
        if (G <= 65536)
            check_ownership(&p, G);
        cases++;
        with_residue += p.residue_device != NONE;
        with_overlap += p.overlap > 0 && p.overhang == 0;
        with_overhang += p.overhang > 0;
        for (size_t i = 0; i < n; i++)
            empty += p.slices[i].size == 0;

        /* The same devices through ht_split_plan_make: a quarter without overheads but
         * with the residue rule by time, the others with overheads in [0, 0.9·t) on about
         * half the devices and either rule. */
        if (!use_factors) {
            struct ht_split_device_in d2[5];
            struct ht_split_plan_opts opts;
            struct ht_split_plan p2;
            int mode = (int)(ht__rng_next(&orng) % 4), any = 0;

            memcpy(d2, d, sizeof d2);
            memset(&opts, 0, sizeof opts);
            opts.residue = mode == 0 || ht__rng_next(&orng) % 2 ? HT_SPLIT_RESIDUE_TIME
                                                               : HT_SPLIT_RESIDUE_WORK;
            for (size_t i = 0; mode != 0 && i < n; i++)
                if (ht__rng_next(&orng) % 2) {
                    d2[i].overhead_s = 0.9 * d2[i].time_s * ht__rng_double(&orng);
                    any |= d2[i].overhead_s > 0;
                }
            snprintf(label, sizeof label, "case %d (overheads %d, rule %d)", it, any,
                     (int)opts.residue);
            ht_error_clear(&err);
            if (ht_split_plan_make(G, d2, n, &opts, &p2, &err) != 0) {
                fprintf(stderr, "%s: %s\n", label, err.text);
                fail();
            }
            check_plan(&p2, d2, NULL, n, G, opts.residue, label);
            if (G <= 65536)
                check_ownership(&p2, G);
            affine_cases += any;
            by_time += opts.residue == HT_SPLIT_RESIDUE_TIME;
            for (size_t i = 0; any && i < n; i++)
                no_share += p2.slices[i].optimal_factor == 0;
            if (!any && opts.residue == HT_SPLIT_RESIDUE_TIME)
                time_differs += p2.residue_device != p.residue_device;
            ht_split_plan_destroy(&p2);

            /* The same input by groups, checked against the time rule. */
            opts.residue = HT_SPLIT_RESIDUE_GROUPS;
            snprintf(label, sizeof label, "case %d (overheads %d, by groups)", it, any);
            if (ht_split_plan_make(G, d2, n, &opts, &p2, &err) != 0) {
                fprintf(stderr, "%s: %s\n", label, err.text);
                fail();
            }
            check_plan(&p2, d2, NULL, n, G, opts.residue, label);
            if (G <= 65536)
                check_ownership(&p2, G);
            for (size_t i = 0, takers = 0; i < n; i++) {
                takers += p2.slices[i].extra_groups > 0;
                spread += takers == 2;
            }
            ht_split_plan_destroy(&p2);
        }
        ht_split_plan_destroy(&p);
    }
    /* The cases reach every branch. */
    assert_true(with_residue > cases / 2);
    assert_true(with_overlap > 100);
    assert_true(with_overhang > 10);
    assert_true(empty > 100);
    assert_true(with_residue < cases);
    assert_true(affine_cases > 5000);
    assert_true(by_time > 5000);
    assert_true(no_share > 100);
    assert_true(time_differs > 100);
    assert_true(spread > 1000);
}

static void test_huge_global(void **state)
{
    /* Near 2^53 a double's γ has no bits left for the fraction: the rounding rule of
     * split.h lifts γ1 = 1801439850879505.75 to the next integer, γ0 = 0.8·G comes out
     * rounded up, and the whole groups would pass G by one until a device gives one back.
     * The plan still partitions [0, G). */
    struct ht_split_device_in d[2] = {{1, 1, 0}, {1, 4, 0}};
    struct ht_split_plan p;
    uint64_t G = UINT64_C(9007199254397529), total;
    (void)state;
    assert_int_equal(ht_split_plan_make(G, d, 2, NULL, &p, NULL), 0);
    check_plan(&p, d, NULL, 2, G, HT_SPLIT_RESIDUE_WORK, "huge");
    total = p.slices[0].base_groups + p.slices[1].base_groups;
    assert_true(total <= G);
    assert_true(total >= G - 2);
    ht_split_plan_destroy(&p);
}

/* --- a scheduler instance through split.h's public calls, as a program drives one --- */

#define SCHED_MAX_CHUNKS 4096

/* One run: the devices ask in turn (each until its HT_DONE, as a device thread does), each
 * chunk reported with the time its share takes by the device's time alone. Checks every
 * chunk against split.h's rules and that the owned ranges partition [0, g); returns the
 * chunks handed out, in order, in cs. */
static size_t sched_run(struct ht_split_sched *s, uint64_t g,
                        const struct ht_split_sched_device *d, size_t n,
                        struct ht_split_chunk *cs, size_t *who)
{
    unsigned char *owned = calloc(g, 1);
    int done[8] = {0};
    size_t left = n, nc = 0;

    assert_non_null(owned);
    assert_true(n <= 8);
    while (left) {
        for (size_t i = 0; i < n; i++) {
            struct ht_split_chunk c;
            if (done[i])
                continue;
            if (ht_split_sched_next(s, i, &c) == HT_DONE) {
                done[i] = 1;
                left--;
                continue;
            }
            assert_true(nc < SCHED_MAX_CHUNKS);
            assert_true(c.size > 0 && c.size % d[i].wg == 0); /* whole groups of its own */
            assert_true(c.offset + c.size <= g);
            assert_true(c.own_size > 0);
            assert_true(c.own_offset >= c.offset &&
                        c.own_offset + c.own_size <= c.offset + c.size);
            for (uint64_t x = c.own_offset; x < c.own_offset + c.own_size; x++)
                assert_int_equal(owned[x]++, 0);
            cs[nc] = c;
            who[nc++] = i;
            ht_split_sched_report(s, i, &c, d[i].time_s * (double)c.size / (double)g);
        }
    }
    for (uint64_t x = 0; x < g; x++)
        assert_int_equal(owned[x], 1);
    free(owned);
    return nc;
}

static void test_sched_public(void **state)
{
    (void)state;
    /* Work-group sizes that are not multiples of each other, all dividing G; a fast GPU,
     * a CPU, a slower GPU. */
    const struct ht_split_sched_device d[3] = {
        {8, 0.5, 1, 80, 0}, {6, 2.0, 0, 16, 0}, {4, 1.5, 1, 20, 0.1}};
    const uint64_t g = 4800;
    struct ht_split_chunk *a = calloc(SCHED_MAX_CHUNKS, sizeof *a);
    struct ht_split_chunk *b = calloc(SCHED_MAX_CHUNKS, sizeof *b);
    size_t *wa = calloc(SCHED_MAX_CHUNKS, sizeof *wa), *wb = calloc(SCHED_MAX_CHUNKS, sizeof *wb);
    struct ht_error err;
    size_t k;

    assert_true(a && b && wa && wb);
    for (k = 0; ht_split_schedulers[k]; k++) {
        const struct ht_split_sched_ops *ops = ht_split_schedulers[k];
        struct ht_split_sched *s = NULL;
        const struct ht_split_plan *plan;
        struct ht_split_plan want;
        struct ht_split_device_in in[3];
        size_t na, nb;

        ht_error_clear(&err);
        assert_ptr_equal(ht_split_scheduler_find(ops->name), ops);
        if (ht_split_sched_create(ops->name, g, d, 3, NULL, &s, &err) != HT_OK)
            fail_msg("%s: %s", ops->name, err.text);
        /* Its plan is the planner's for the same devices (Algorithm 1's time for all). */
        plan = ht_split_sched_plan(s);
        assert_non_null(plan);
        for (size_t i = 0; i < 3; i++)
            in[i] = (struct ht_split_device_in){d[i].wg, d[i].time_s, d[i].overhead_s};
        assert_int_equal(ht_split_plan_make(g, in, 3, NULL, &want, &err), HT_OK);
        assert_int_equal(plan->global, g);
        close_to(plan->theoretical_time_s, want.theoretical_time_s, 0, ops->name);
        for (size_t i = 0; i < 3; i++) {
            assert_int_equal(plan->slices[i].offset, want.slices[i].offset);
            assert_int_equal(plan->slices[i].size, want.slices[i].size);
        }
        na = sched_run(s, g, d, 3, a, wa);
        if (ops->kind == HT_SPLIT_SCHED_PLANNED) {
            /* One chunk per device with a slice: the plan's, owned range and all. */
            size_t j = 0;
            for (size_t i = 0; i < 3; i++) {
                if (!want.slices[i].size)
                    continue;
                assert_true(j < na);
                assert_int_equal(wa[j], i);
                assert_int_equal(a[j].offset, want.slices[i].offset);
                assert_int_equal(a[j].size, want.slices[i].size);
                assert_int_equal(a[j].own_offset, want.slices[i].own_offset);
                assert_int_equal(a[j].own_size, want.slices[i].own_size);
                j++;
            }
            assert_int_equal(na, j);
        } else {
            assert_true(na > 3); /* chunks on demand, not one slice each */
        }
        /* A run is over: every device is told so, however often it asks. */
        for (size_t i = 0; i < 3; i++) {
            struct ht_split_chunk c;
            assert_int_equal(ht_split_sched_next(s, i, &c), HT_DONE);
        }
        /* reset hands the whole work out again, the same way for the same reports. */
        ht_split_sched_reset(s);
        nb = sched_run(s, g, d, 3, b, wb);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na * sizeof *a);
        assert_memory_equal(wa, wb, na * sizeof *wa);
        {
            /* A device beyond n gets nothing, a zeroed chunk, and its report is ignored. */
            struct ht_split_chunk c;
            memset(&c, 0xff, sizeof c);
            assert_int_equal(ht_split_sched_next(s, 3, &c), HT_DONE);
            assert_int_equal(c.offset | c.size | c.own_offset | c.own_size, 0);
            ht_split_sched_report(s, 3, &c, 1.0);
        }
        ht_split_plan_destroy(&want);
        ht_split_sched_free(s);
    }
    assert_true(k >= 3);

    {
        /* NULL is the planned scheduler: the same chunks as static's. */
        struct ht_split_sched *s = NULL;
        size_t na, nb;
        assert_int_equal(ht_split_sched_create("static", g, d, 3, NULL, &s, &err), HT_OK);
        na = sched_run(s, g, d, 3, a, wa);
        ht_split_sched_free(s);
        assert_int_equal(ht_split_sched_create(NULL, g, d, 3, NULL, &s, &err), HT_OK);
        nb = sched_run(s, g, d, 3, b, wb);
        ht_split_sched_free(s);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na * sizeof *a);
    }
    {
        /* Unknown times: no plan for dynamic, whose chunks need none; static refuses,
         * unless given factors (then its plan's times are unknown: -1). */
        struct ht_split_sched_device u[2] = {{8, 0, 1, 80, 0}, {6, 0, 0, 16, 0}};
        const double f[2] = {0.25, 0.75};
        struct ht_split_sched_opts o = {0};
        struct ht_split_sched *s = NULL;
        assert_int_equal(ht_split_sched_create("dynamic", g, u, 2, NULL, &s, &err), HT_OK);
        assert_null(ht_split_sched_plan(s));
        sched_run(s, g, u, 2, a, wa);
        ht_split_sched_free(s);
        ht_error_clear(&err);
        assert_int_equal(ht_split_sched_create("static", g, u, 2, NULL, &s, &err), HT_EINVAL);
        assert_null(s);
        o.factors = f;
        assert_int_equal(ht_split_sched_create("static", g, u, 2, &o, &s, &err), HT_OK);
        assert_non_null(ht_split_sched_plan(s));
        close_to(ht_split_sched_plan(s)->theoretical_time_s, -1.0, 0, "factors' time");
        assert_int_equal(ht_split_sched_plan(s)->slices[0].size, 1200);
        ht_split_sched_free(s);
    }
    {
        /* The errors: an unknown name lists the schedulers; no device, no devices' array,
         * no out; a wg that does not divide G for a scheduler of chunks. */
        struct ht_split_sched *s = (struct ht_split_sched *)&err; /* set to NULL on error */
        struct ht_split_sched_device w[2] = {{7, 1.0, 1, 80, 0}, {6, 2.0, 0, 16, 0}};
        ht_error_clear(&err);
        assert_int_equal(ht_split_sched_create("nope", g, d, 3, NULL, &s, &err), HT_EINVAL);
        assert_null(s);
        assert_string_equal(err.field, "scheduler");
        for (k = 0; ht_split_schedulers[k]; k++)
            assert_non_null(strstr(err.text, ht_split_schedulers[k]->name));
        ht_error_clear(&err);
        assert_int_equal(ht_split_sched_create("guided", g, d, 0, NULL, &s, &err), HT_EINVAL);
        ht_error_clear(&err);
        s = (struct ht_split_sched *)&err;
        assert_int_equal(ht_split_sched_create("guided", g, NULL, 3, NULL, &s, &err), HT_EINVAL);
        assert_null(s);
        ht_error_clear(&err);
        assert_int_equal(ht_split_sched_create("static", g, d, 3, NULL, NULL, &err), HT_EINVAL);
        ht_error_clear(&err);
        assert_int_equal(ht_split_sched_create("dynamic", g, w, 2, NULL, &s, &err), HT_EINVAL);
        assert_null(s);
        ht_split_sched_free(NULL);
    }
    free(a);
    free(b);
    free(wa);
    free(wb);
}

/* Misuse is an error, never a crash: every public call of split.h that takes a handle or
 * an output refuses NULL (HT_EINVAL) or, returning nothing, does nothing. */
static void test_nulls(void **state)
{
    struct ht_split_sched_device dev = {.wg = 4, .time_s = 1};
    struct ht_split_chunk c;
    struct ht_split_sched *s = NULL;
    struct ht_error err;
    enum ht_split_residue rule = HT_SPLIT_RESIDUE_TIME;
    double t = -7, a = -7;

    (void)state;
    ht_error_clear(&err);
    memset(&c, 0xff, sizeof c);
    assert_int_equal(ht_split_sched_next(NULL, 0, &c), HT_EINVAL);
    assert_int_equal(c.size, 0); /* *out zeroed though s was NULL */
    assert_int_equal(ht_split_sched_next(NULL, 0, NULL), HT_EINVAL);
    ht_split_sched_report(NULL, 0, &c, 1.0);
    ht_split_sched_reset(NULL);
    assert_null(ht_split_sched_plan(NULL));
    ht_split_sched_free(NULL);

    /* A real scheduler with a NULL output or chunk. */
    assert_int_equal(ht_split_sched_create("guided", 64, &dev, 1, NULL, &s, &err), HT_OK);
    assert_int_equal(ht_split_sched_next(s, 0, NULL), HT_EINVAL);
    assert_int_equal(ht_split_sched_next(s, 0, &c), HT_OK);
    ht_split_sched_report(s, 0, NULL, 1.0);
    ht_split_sched_report(s, 0, &c, 1.0);
    ht_split_sched_free(s);

    assert_int_equal(ht_split_residue_parse("time", NULL), HT_EINVAL);
    assert_int_equal(ht_split_residue_parse(NULL, &rule), HT_EINVAL);
    assert_int_equal(rule, HT_SPLIT_RESIDUE_TIME);
    assert_int_equal(ht_split_fit_model(0.5, 1, 1, 2, 0, NULL, &a), HT_EINVAL);
    assert_int_equal(ht_split_fit_model(0.5, 1, 1, 2, 0, &t, NULL), HT_EINVAL);
    close_to(t, -7, 0, "time untouched");
    close_to(a, -7, 0, "overhead untouched");
    ht_split_plan_destroy(NULL);
    ht_error_clear(&err);
    assert_int_equal(ht_split_plan_make(64, NULL, 0, NULL, NULL, &err), HT_EINVAL);
    assert_int_equal(err.code, HT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_example_wg1),
        cmocka_unit_test(test_paper_example_wg64),
        cmocka_unit_test(test_table3_like),
        cmocka_unit_test(test_not_multiples_overlap),
        cmocka_unit_test(test_device_without_slice),
        cmocka_unit_test(test_one_device),
        cmocka_unit_test(test_global_smaller_than_wg),
        cmocka_unit_test(test_no_whole_group_anywhere),
        cmocka_unit_test(test_fit_rule),
        cmocka_unit_test(test_three_devices),
        cmocka_unit_test(test_four_devices),
        cmocka_unit_test(test_exact_ratios),
        cmocka_unit_test(test_factors),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_make_without_overheads),
        cmocka_unit_test(test_affine_two_devices),
        cmocka_unit_test(test_affine_excluded_device),
        cmocka_unit_test(test_affine_three_devices),
        cmocka_unit_test(test_residue_by_time),
        cmocka_unit_test(test_residue_by_groups),
        cmocka_unit_test(test_make_errors),
        cmocka_unit_test(test_fit_model),
        cmocka_unit_test(test_affine_rounding),
        cmocka_unit_test(test_random_plans),
        cmocka_unit_test(test_huge_global),
        cmocka_unit_test(test_sched_public),
        cmocka_unit_test(test_nulls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
