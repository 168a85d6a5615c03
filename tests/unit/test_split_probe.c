/* The slab inference of the probe of written buffers without "index"
 * (ht__split_infer_slab, split.h "inferring what a kernel writes") on synthetic masks of
 * what two slices and a whole run wrote: row slabs (one and several rows per work-item),
 * column slabs, halos, interiors that a whole run leaves unwritten, and the refusals
 * (scattered writes, a reduction into one element, a halo wider than the slice, a second
 * slice that disagrees, a slice that misses its own rows, nothing written) with the words
 * of the message. Pure: no OpenCL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune.h"
#include "coexec/coexec-internal.h"

/* The masks of one case: an R x C buffer (C = 1 and naxes 1 for one axis). */
struct masks {
    unsigned naxes;
    uint64_t dims[3];
    uint8_t *m[3]; /* slice 0, slice 1, whole */
    struct ht__probe_run runs[2];
};

static void masks_init(struct masks *k, unsigned naxes, uint64_t rows, uint64_t cols,
                       uint64_t lo0, uint64_t hi0, uint64_t lo1, uint64_t hi1)
{
    memset(k, 0, sizeof *k);
    k->naxes = naxes;
    k->dims[0] = rows;
    k->dims[1] = naxes > 1 ? cols : 1;
    k->dims[2] = 1;
    for (int r = 0; r < 3; r++) {
        k->m[r] = calloc(rows * k->dims[1], 1);
        assert_non_null(k->m[r]);
    }
    k->runs[0].wlo = lo0;
    k->runs[0].whi = hi0;
    k->runs[1].wlo = lo1;
    k->runs[1].whi = hi1;
    k->runs[0].written = k->m[0];
    k->runs[1].written = k->m[1];
}

static void masks_free(struct masks *k)
{
    for (int r = 0; r < 3; r++)
        free(k->m[r]);
}

/* Marks rows [rlo, rhi) x columns [clo, chi) of mask r (clipped to the buffer). */
static void mark(struct masks *k, int r, int64_t rlo, int64_t rhi, int64_t clo, int64_t chi)
{
    for (int64_t y = rlo < 0 ? 0 : rlo; y < rhi && y < (int64_t)k->dims[0]; y++)
        for (int64_t x = clo < 0 ? 0 : clo; x < chi && x < (int64_t)k->dims[1]; x++)
            k->m[r][y * (int64_t)k->dims[1] + x] = 1;
}

static int infer(struct masks *k, uint64_t global, struct ht_split_written *w, char *why,
                 size_t n)
{
    return ht__split_infer_slab(k->naxes, k->dims, global, k->runs, k->m[2], "c", 1, w, why,
                                n);
}

/* Work-items [a, b) along gy write rows [a, b) of an 8 x 6 buffer. */
static void test_rows(void **state)
{
    struct masks k;
    struct ht_split_written w;
    char why[256] = "";
    (void)state;

    masks_init(&k, 2, 8, 6, 2, 4, 5, 8);
    mark(&k, 0, 2, 4, 0, 6);
    mark(&k, 1, 5, 8, 0, 6);
    mark(&k, 2, 0, 8, 0, 6);
    assert_int_equal(infer(&k, 8, &w, why, sizeof why), HT_OK);
    assert_int_equal(w.inferred, 1);
    assert_int_equal(w.axis, 0);
    assert_int_equal(w.per_item, 1);
    assert_int_equal(w.halo_lo, 0);
    assert_int_equal(w.halo_hi, 0);
    masks_free(&k);
}

/* Two rows per work-item (a tile of rows per thread): 16 rows for 8 work-items. */
static void test_rows_per_item(void **state)
{
    struct masks k;
    struct ht_split_written w;
    (void)state;

    masks_init(&k, 2, 16, 4, 2, 4, 4, 7);
    mark(&k, 0, 4, 8, 0, 4);
    mark(&k, 1, 8, 14, 0, 4);
    mark(&k, 2, 0, 16, 0, 4);
    assert_int_equal(infer(&k, 8, &w, NULL, 0), HT_OK);
    assert_int_equal(w.axis, 0);
    assert_int_equal(w.per_item, 2);
    masks_free(&k);
}

/* Work-items along gx write columns: two columns each of a 4 x 12 buffer, 6 work-items. */
static void test_columns(void **state)
{
    struct masks k;
    struct ht_split_written w;
    (void)state;

    masks_init(&k, 2, 4, 12, 1, 3, 3, 6);
    mark(&k, 0, 0, 4, 2, 6);
    mark(&k, 1, 0, 4, 6, 12);
    mark(&k, 2, 0, 4, 0, 12);
    assert_int_equal(infer(&k, 6, &w, NULL, 0), HT_OK);
    assert_int_equal(w.axis, 1);
    assert_int_equal(w.per_item, 2);
    assert_int_equal(w.halo_lo + w.halo_hi, 0);
    masks_free(&k);
}

/* A slice also writes one element before and two past its own (a stencil writing its
 * neighbours' borders): halos 1 and 2, the slab still owns [a, b). */
static void test_halo(void **state)
{
    struct masks k;
    struct ht_split_written w;
    (void)state;

    masks_init(&k, 1, 32, 1, 8, 16, 20, 28);
    mark(&k, 0, 7, 18, 0, 1);
    mark(&k, 1, 19, 30, 0, 1);
    mark(&k, 2, 0, 32, 0, 1);
    assert_int_equal(infer(&k, 32, &w, NULL, 0), HT_OK);
    assert_int_equal(w.axis, 0);
    assert_int_equal(w.per_item, 1);
    assert_int_equal(w.halo_lo, 1);
    assert_int_equal(w.halo_hi, 2);
    masks_free(&k);
}

/* A whole run leaves a border unwritten (a convolution's interior): the slices leave the
 * same elements of their rows, and the slab holds. */
static void test_interior(void **state)
{
    struct masks k;
    struct ht_split_written w;
    (void)state;

    masks_init(&k, 2, 8, 8, 2, 4, 4, 7);
    mark(&k, 0, 2, 4, 1, 7);
    mark(&k, 1, 4, 7, 1, 7);
    mark(&k, 2, 1, 7, 1, 7);
    assert_int_equal(infer(&k, 8, &w, NULL, 0), HT_OK);
    assert_int_equal(w.axis, 0);
    masks_free(&k);
}

/* A permutation (i * 37 mod 512) by 512 work-items over a 32 x 16 buffer: refused with
 * what the slice wrote. */
static void test_scattered(void **state)
{
    struct masks k;
    struct ht_split_written w;
    char why[512] = "";
    (void)state;

    masks_init(&k, 2, 32, 16, 128, 256, 320, 448);
    for (int r = 0; r < 2; r++)
        for (uint64_t i = k.runs[r].wlo; i < k.runs[r].whi; i++)
            k.m[r][i * 37 % 512] = 1;
    mark(&k, 2, 0, 32, 0, 16);
    assert_int_equal(infer(&k, 512, &w, why, sizeof why), HT_ENOTFOUND);
    assert_int_equal(w.inferred, 0);
    assert_non_null(strstr(why, "the probe's slice [128, 256) along gy wrote 128 elements "
                                "scattered over 32 rows of 'c'"));
    assert_non_null(strstr(why, "a whole run writes 512"));
    masks_free(&k);

    /* Scattered within fewer rows: 37 elements over 12 rows of a 16 x 16 buffer, 16
     * work-items (an axis of a multiple of them, so a slab is tried and fails). */
    masks_init(&k, 2, 16, 16, 4, 8, 10, 14);
    for (int e = 0; e < 37; e++)
        k.m[0][(e % 12) * 16 + (e * 5) % 16] = 1;
    mark(&k, 1, 10, 14, 0, 16);
    mark(&k, 2, 0, 16, 0, 16);
    assert_int_equal(infer(&k, 16, &w, why, sizeof why), HT_ENOTFOUND);
    assert_non_null(strstr(why, "wrote 37 elements scattered over 12 rows of 'c'"));
    masks_free(&k);
}

/* Every work-item adds into one element. */
static void test_reduction(void **state)
{
    struct masks k;
    struct ht_split_written w;
    char why[512] = "";
    (void)state;

    masks_init(&k, 1, 1, 1, 4, 8, 8, 12);
    k.m[0][0] = k.m[1][0] = k.m[2][0] = 1;
    assert_int_equal(infer(&k, 16, &w, why, sizeof why), HT_ENOTFOUND);
    assert_non_null(strstr(why, "wrote 1 element of 'c' (a whole run writes 1)"));
    masks_free(&k);
}

/* Writes that reach further than the slice is wide are no slab. */
static void test_halo_too_wide(void **state)
{
    struct masks k;
    struct ht_split_written w;
    (void)state;

    masks_init(&k, 1, 64, 1, 16, 20, 40, 44);
    mark(&k, 0, 10, 26, 0, 1);
    mark(&k, 1, 34, 50, 0, 1);
    mark(&k, 2, 0, 64, 0, 1);
    assert_int_equal(infer(&k, 64, &w, NULL, 0), HT_ENOTFOUND);
    masks_free(&k);
}

/* The second slice checks the first's inference: one element written far away (a write
 * that depends on the data, say) makes it disagree. */
static void test_second_disagrees(void **state)
{
    struct masks k;
    struct ht_split_written w;
    (void)state;

    masks_init(&k, 2, 8, 6, 2, 4, 5, 8);
    mark(&k, 0, 2, 4, 0, 6);
    mark(&k, 1, 5, 8, 0, 6);
    mark(&k, 1, 0, 1, 3, 4);
    mark(&k, 2, 0, 8, 0, 6);
    assert_int_equal(infer(&k, 8, &w, NULL, 0), HT_ENOTFOUND);
    masks_free(&k);
}

/* A slice that leaves part of its own rows to others (each work-item writes its row's
 * first half; the second half is written by the work-items of the other end) is no slab,
 * even though everything it wrote lies in its rows. */
static void test_misses_own_rows(void **state)
{
    struct masks k;
    struct ht_split_written w;
    (void)state;

    masks_init(&k, 2, 8, 6, 2, 4, 5, 8);
    mark(&k, 0, 2, 4, 0, 3);
    mark(&k, 1, 5, 8, 0, 3);
    mark(&k, 2, 0, 8, 0, 6);
    assert_int_equal(infer(&k, 8, &w, NULL, 0), HT_ENOTFOUND);
    masks_free(&k);
}

static void test_nothing(void **state)
{
    struct masks k;
    struct ht_split_written w;
    char why[256] = "";
    (void)state;

    masks_init(&k, 1, 16, 1, 4, 8, 8, 12);
    mark(&k, 2, 0, 16, 0, 1);
    assert_int_equal(infer(&k, 16, &w, why, sizeof why), HT_ENOTFOUND);
    assert_non_null(strstr(why, "wrote nothing of 'c' (a whole run writes 16 elements)"));
    masks_free(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_rows_per_item),
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_halo),
        cmocka_unit_test(test_interior),
        cmocka_unit_test(test_scattered),
        cmocka_unit_test(test_reduction),
        cmocka_unit_test(test_halo_too_wide),
        cmocka_unit_test(test_second_disagrees),
        cmocka_unit_test(test_misses_own_rows),
        cmocka_unit_test(test_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
