/* The split planner (paper §2.2, Eq. 4-9, Algorithm 1): hand-computed plans (the paper's
 * worked example of 512 work-items split 0.4/0.6, a Table-3-like case, work-group sizes
 * that are not multiples of each other, a device that gets no slice, one, three and four
 * devices, G smaller than a work-group, no device able to end at G), errors, and a
 * property test over thousands of random cases checking every invariant of split.h,
 * Eq. 9's choice against brute force, and the ownership of every work-item. Pure: no
 * OpenCL. */
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
    if (ht_split_plan_compute(G, d, n, p, &err) != 0) {
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
    assert_int_equal(ht_split_plan_from_factors(100, d, (double[]){0, 3}, 2, &p, &err), 0);
    close_to(p.slices[1].optimal_factor, 1, 0, "normalized");
    slice_is(&p, 0, 0, 0, 0, 0);
    slice_is(&p, 1, 100, 0, 0, 100);
    assert_int_equal(p.residue_device, NONE);
    close_to(p.theoretical_time_s, 2, 0, "theoretical");
    ht_split_plan_destroy(&p);

    /* Device 1 has factor 0 and cannot take the residue, though it needs the least work;
     * device 0's 2 groups cannot end at 100: it takes all and runs 28 past G. */
    assert_int_equal(ht_split_plan_from_factors(100, d, (double[]){1, 0}, 2, &p, &err), 0);
    assert_int_equal(p.residue_device, 0);
    slice_is(&p, 0, 2, 0, 0, 100);
    slice_is(&p, 1, 0, 0, 0, 0);
    assert_int_equal(p.overhang, 28);
    ht_split_plan_destroy(&p);

    /* The factors, not the times, split: 0.25 / 0.75 of 512 with wg 64 and 1. */
    assert_int_equal(ht_split_plan_from_factors(512, d, (double[]){0.25, 0.75}, 2, &p, &err),
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
    rc = factors ? ht_split_plan_from_factors(G, d, factors, n, &p, &err)
                 : ht_split_plan_compute(G, d, n, &p, &err);
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
    expect_error(512, NULL, 2, NULL, "devices", "no devices");
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
/* property test */

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* Every invariant of split.h, and Eq. 9's choice checked by brute force. */
static void check_plan(const struct ht_split_plan *p, const struct ht_split_device_in *d,
                       const double *factors, size_t n, uint64_t G, const char *label)
{
    const struct ht_split_slice *s = p->slices;
    uint64_t base_total = 0, sum = 0, pos;
    double sumS = 0, sumA = 0, theo = 0, adj = 0;
    size_t k = p->residue_device;
    int all_divide = 1, fallback;

    assert_int_equal(p->global, G);
    assert_int_equal(p->ndevices, n);
    for (size_t i = 0; i < n; i++) {
        double g = s[i].gamma;
        assert_int_equal(s[i].wg, d[i].wg);
        close_to(s[i].time_s, d[i].time_s, 0, label);
        all_divide &= G % d[i].wg == 0;
        /* Eq. 4 or the normalized factor; Eq. 6. */
        if (factors)
            assert_true(s[i].optimal_factor >= 0);
        else
            assert_true(s[i].optimal_factor > 0);
        close_to(g, (double)G * s[i].optimal_factor / (double)d[i].wg, 1e-9 * (g + 1), label);
        sumS += s[i].optimal_factor;
        base_total += s[i].base_groups * s[i].wg;
        /* Whole groups: a slice is groups · wg; extra groups only on the residue device. */
        assert_int_equal(s[i].groups, s[i].base_groups + s[i].extra_groups);
        assert_int_equal(s[i].size, s[i].groups * s[i].wg);
        if (i != k)
            assert_int_equal(s[i].extra_groups, 0);
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
    }
    close_to(sumS, 1, 1e-12, "optimal factors sum to 1");
    close_to(sumA, 1, 1e-12, "adjusted factors sum to 1");
    close_to(p->theoretical_time_s, theo, 0, "Algorithm 1");
    close_to(p->adjusted_time_s, adj, 0, "adjusted time");
    if (!factors)
        /* Eq. 4 balances the optimal shares: S_i·t_i is the same on every device. */
        for (size_t i = 0; i < n; i++)
            close_to(s[i].optimal_factor * s[i].time_s, theo, 1e-12 * theo, "balance");

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

    /* Eq. 9 by brute force: no candidate with less work, or as little and an earlier
     * finish, or as early and a lower index. */
    {
        uint64_t need = p->residue;
        uint64_t kwork = s[k].wg * ceil_div(need, s[k].wg);
        double kfinish = s[k].time_s * ((double)s[k].size / (double)G);
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
            double finish = s[i].time_s * ((double)total / (double)G);
            assert_true(work >= kwork);
            if (work == kwork) {
                assert_true(finish >= kfinish);
                if (finish == kfinish)
                    assert_true(i > k);
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
    struct ht__rng rng;
    size_t cases = 0, with_residue = 0, with_overlap = 0, with_overhang = 0, empty = 0;
    (void)state;

    ht__rng_seed(&rng, 20180513);
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
        if ((use_factors ? ht_split_plan_from_factors(G, d, factors, n, &p, &err)
                         : ht_split_plan_compute(G, d, n, &p, &err)) != 0) {
            fprintf(stderr, "%s: %s\n", label, err.text);
            fail();
        }
        check_plan(&p, d, use_factors ? factors : NULL, n, G, label);
        if (G <= 65536)
            check_ownership(&p, G);
        cases++;
        with_residue += p.residue_device != NONE;
        with_overlap += p.overlap > 0 && p.overhang == 0;
        with_overhang += p.overhang > 0;
        for (size_t i = 0; i < n; i++)
            empty += p.slices[i].size == 0;
        ht_split_plan_destroy(&p);
    }
    /* The cases reach every branch. */
    assert_true(with_residue > cases / 2);
    assert_true(with_overlap > 100);
    assert_true(with_overhang > 10);
    assert_true(empty > 100);
    assert_true(with_residue < cases);
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
    assert_int_equal(ht_split_plan_compute(G, d, 2, &p, NULL), 0);
    check_plan(&p, d, NULL, 2, G, "huge");
    total = p.slices[0].base_groups + p.slices[1].base_groups;
    assert_true(total <= G);
    assert_true(total >= G - 2);
    ht_split_plan_destroy(&p);
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
        cmocka_unit_test(test_random_plans),
        cmocka_unit_test(test_huge_global),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
