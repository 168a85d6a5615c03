/* The native enumerator of the space module: hand-counted small spaces for each platform
 * rule (Eq. 1-3, work-item limits, local memory) and for application constraints, the
 * reasons given for an empty space, domain errors, and a property test against brute
 * force (every point of the cartesian product through ht_space_check) on hundreds of
 * random specs and random fake devices. Pure: no OpenCL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune.h"
#include "space/enum-internal.h"
#include "util/util.h"

/* ---------------------------------------------------------------------------------- */
/* building defs by hand */

struct tparam {
    const char *name;
    int range;               /* 0: values, 1: range */
    int64_t values[16];
    size_t nvalues;
    const char *lo, *hi, *step;
    int pow2;
};

struct tspec {
    size_t nsizes;
    const char *size_names[4];
    int64_t size_values[4];
    size_t nparams;
    struct tparam params[8];
    unsigned ndims;
    const char *global[3];
    const char *local[3];    /* local[0] NULL: open */
    const char *local_mem;   /* NULL: none */
    size_t ncons;
    const char *cons[8];
};

static int compile(const char *src, const struct ht_space_def *def, struct ht_expr **out)
{
    struct ht_error err;
    ht_error_clear(&err);
    if (ht_expr_compile(src, &def->names, out, &err) != 0) {
        fprintf(stderr, "compile '%s': %s (column %d)\n", src, err.text, err.column);
        return -1;
    }
    return 0;
}

/* Builds a def the way the spec module lays it out (freed with ht_space_def_destroy).
 * Returns 0, or -1 when an expression does not compile. */
static int make_def(const struct tspec *t, struct ht_space_def *def)
{
    const char **names;
    size_t n = t->nsizes + t->nparams + HT_DEVICE_NVARS, k = 0;

    memset(def, 0, sizeof *def);
    def->nsizes = t->nsizes;
    def->size_names = calloc(t->nsizes + 1, sizeof *def->size_names);
    def->size_values = calloc(t->nsizes + 1, sizeof *def->size_values);
    def->nparams = t->nparams;
    def->params = calloc(t->nparams + 1, sizeof *def->params);
    names = calloc(n, sizeof *names);
    assert_non_null(def->size_names);
    assert_non_null(def->params);
    assert_non_null(names);
    for (size_t i = 0; i < t->nsizes; i++) {
        def->size_names[i] = ht__strdup(t->size_names[i]);
        def->size_values[i] = t->size_values[i];
        names[k++] = def->size_names[i];
    }
    for (size_t i = 0; i < t->nparams; i++) {
        def->params[i].name = ht__strdup(t->params[i].name);
        names[k++] = def->params[i].name;
    }
    for (size_t v = 0; v < HT_DEVICE_NVARS; v++)
        names[k++] = ht_device_var_names[v];
    def->names.count = n;
    def->names.names = names;
    for (size_t i = 0; i < t->nparams; i++) {
        const struct tparam *tp = &t->params[i];
        struct ht_param *p = &def->params[i];
        if (!tp->range) {
            p->kind = HT_PARAM_VALUES;
            p->nvalues = tp->nvalues;
            p->values = calloc(tp->nvalues + 1, sizeof *p->values);
            memcpy(p->values, tp->values, tp->nvalues * sizeof *p->values);
            continue;
        }
        p->kind = HT_PARAM_RANGE;
        p->pow2 = tp->pow2;
        if (compile(tp->lo, def, &p->lo) || compile(tp->hi, def, &p->hi) ||
            (tp->step && compile(tp->step, def, &p->step)))
            return -1;
    }
    def->ndims = t->ndims;
    for (unsigned d = 0; d < t->ndims; d++) {
        if (compile(t->global[d], def, &def->global[d]))
            return -1;
        if (t->local[0] && compile(t->local[d], def, &def->local[d]))
            return -1;
    }
    if (t->local_mem && compile(t->local_mem, def, &def->local_mem))
        return -1;
    def->constraints = calloc(t->ncons + 1, sizeof *def->constraints);
    def->nconstraints = t->ncons;
    for (size_t i = 0; i < t->ncons; i++) {
        def->constraints[i].origin = ht__asprintf("constraints[%zu]", i);
        if (compile(t->cons[i], def, &def->constraints[i].expr))
            return -1;
    }
    return 0;
}

static struct ht_device_info fake_device(uint64_t maxwg, uint64_t i0, uint64_t i1, uint64_t i2,
                                         uint32_t cu, uint64_t lmem)
{
    struct ht_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "fake");
    snprintf(d.type, sizeof d.type, "GPU");
    d.is_gpu = 1;
    d.max_work_group_size = maxwg;
    d.max_work_item_dims = 3;
    d.max_work_item_sizes[0] = i0;
    d.max_work_item_sizes[1] = i1;
    d.max_work_item_sizes[2] = i2;
    d.compute_units = cu;
    d.local_mem_size = lmem;
    d.global_mem_size = UINT64_C(1) << 30;
    d.max_mem_alloc_size = UINT64_C(1) << 28;
    return d;
}

/* Counts t on dev with eq3 natively; also checks the unpruned size when unpruned >= 0. */
static struct ht_space_counts count_of(const struct tspec *t, const struct ht_device_info *dev,
                                       enum ht_eq3 eq3)
{
    struct ht_space_def def;
    struct ht_space *s = NULL;
    struct ht_space_counts c;
    struct ht_error err;

    ht_error_clear(&err);
    assert_int_equal(make_def(t, &def), 0);
    if (ht_space_create(&def, dev, eq3, &s, &err) != 0)
        fail_msg("create: %s: %s", err.field, err.text);
    assert_int_equal(ht_space_count(s, &c, &err), 0);
    ht_space_free(s);
    ht_space_def_destroy(&def);
    return c;
}

/* ---------------------------------------------------------------------------------- */
/* hand-counted spaces */

static const struct tspec two_d = {
    .nsizes = 1, .size_names = {"G"}, .size_values = {840},
    .nparams = 2,
    .params = {{.name = "A", .range = 1, .lo = "1", .hi = "8"},
               {.name = "B", .range = 1, .lo = "1", .hi = "8"}},
    .ndims = 2, .global = {"G", "G"}, .local = {"A", "B"},
};

static void test_eq1(void **state)
{
    /* 840 is a multiple of 1..8, so only Eq. 1 cuts: pairs with A*B <= 16 are
     * 8 + 8 + 5 + 4 + 3 + 2 + 2 + 2 = 34. */
    struct ht_device_info dev = fake_device(16, 8, 8, 8, 1, 1 << 20);
    struct ht_space_counts c = count_of(&two_d, &dev, HT_EQ3_OFF);
    (void)state;
    assert_true(c.unpruned == 64.0);
    assert_int_equal(c.platform, 34);
    assert_int_equal(c.pruned, 34);
    assert_string_equal(c.last_constraint, "");
}

static void test_work_item_limit(void **state)
{
    struct ht_device_info dev = fake_device(1024, 4, 2, 1, 1, 1 << 20);
    struct ht_space_counts c = count_of(&two_d, &dev, HT_EQ3_OFF);
    (void)state;
    assert_int_equal(c.platform, 4 * 2);
}

static void test_eq2(void **state)
{
    /* The divisors of 96 = 2^5 * 3: 6 * 2 = 12. */
    struct tspec t = {
        .nsizes = 1, .size_names = {"N"}, .size_values = {96},
        .nparams = 1, .params = {{.name = "WG", .range = 1, .lo = "1", .hi = "100"}},
        .ndims = 1, .global = {"N"}, .local = {"WG"},
    };
    struct ht_device_info dev = fake_device(1024, 1024, 1, 1, 1, 1 << 20);
    struct ht_space_counts c = count_of(&t, &dev, HT_EQ3_OFF);
    (void)state;
    assert_true(c.unpruned == 100.0);
    assert_int_equal(c.platform, 12);
}

static void test_local_mem(void **state)
{
    /* (WG + 9) * 4 <= 100 leaves WG <= 16; the global size follows WG so Eq. 2 holds. */
    struct tspec t = {
        .nparams = 1, .params = {{.name = "WG", .range = 1, .lo = "1", .hi = "64"}},
        .ndims = 1, .global = {"WG * 10"}, .local = {"WG"}, .local_mem = "(WG + 9) * 4",
    };
    struct ht_device_info dev = fake_device(1024, 1024, 1, 1, 1, 100);
    struct ht_space_counts c = count_of(&t, &dev, HT_EQ3_OFF);
    (void)state;
    assert_int_equal(c.platform, 16);
}

static void test_eq3(void **state)
{
    /* A, B powers of two up to 16 over a 16x16 NDRange, 16 compute units.
     * product: (16/A)(16/B) >= 16 iff A*B <= 16: i + j <= 4 for A = 2^i, B = 2^j: 15.
     * sum: 16/A + 16/B >= 16: A = 1 or B = 1 (9 pairs), or A = B = 2: 10. off: 25. */
    struct tspec t = {
        .nparams = 2,
        .params = {{.name = "A", .range = 1, .lo = "1", .hi = "16", .pow2 = 1},
                   {.name = "B", .range = 1, .lo = "1", .hi = "16", .pow2 = 1}},
        .ndims = 2, .global = {"16", "16"}, .local = {"A", "B"},
    };
    struct ht_device_info dev = fake_device(1024, 1024, 1024, 1024, 16, 1 << 20);
    (void)state;
    assert_int_equal(count_of(&t, &dev, HT_EQ3_PRODUCT).platform, 15);
    assert_int_equal(count_of(&t, &dev, HT_EQ3_SUM).platform, 10);
    assert_int_equal(count_of(&t, &dev, HT_EQ3_OFF).platform, 25);
    assert_true(count_of(&t, &dev, HT_EQ3_OFF).unpruned == 25.0);
}

static void test_values_step_and_constraints(void **state)
{
    /* A in {2, 3, 5, 8}, B in 0..20 step 4 (0 4 8 12 16 20), open local size.
     * A < B: 3 + 3 + 3 + 2 = 11 of 24; and B % A == 0 as well:
     * A=2: 4 8 12 16 20 (5), A=3: 12 (1), A=5: 20 (1), A=8: 16 (1) = 8. */
    struct tspec t = {
        .nparams = 2,
        .params = {{.name = "A", .values = {2, 3, 5, 8}, .nvalues = 4},
                   {.name = "B", .range = 1, .lo = "0", .hi = "20", .step = "4"}},
        .ndims = 1, .global = {"64"},
        .ncons = 2, .cons = {"A < B", "B % A == 0"},
    };
    struct ht_device_info dev = fake_device(1, 1, 1, 1, 64, 0);
    struct ht_space_counts c = count_of(&t, &dev, HT_EQ3_PRODUCT);
    (void)state;
    assert_true(c.unpruned == 24.0);
    assert_int_equal(c.platform, 24); /* an open local size: no Eq. 1-3 */
    assert_int_equal(c.pruned, 8);
}

static void test_division_by_zero_rejects(void **state)
{
    /* 100 / (WG - 3) > 0: WG = 3 fails to evaluate, 1 and 2 give negatives: 4 and 5. */
    struct tspec t = {
        .nparams = 1, .params = {{.name = "WG", .range = 1, .lo = "1", .hi = "5"}},
        .ndims = 1, .global = {"60"}, .local = {"WG"},
        .ncons = 1, .cons = {"100 / (WG - 3) > 0"},
    };
    struct ht_device_info dev = fake_device(1024, 1024, 1, 1, 1, 1 << 20);
    struct ht_space_counts c = count_of(&t, &dev, HT_EQ3_PRODUCT);
    (void)state;
    assert_int_equal(c.platform, 5);
    assert_int_equal(c.pruned, 2);
}

static void test_device_bounds_and_free_params(void **state)
{
    /* WG up to the device's limit (the paper's Table 1 space), and two parameters no rule
     * reads: they only multiply the count. */
    struct tspec t = {
        .nsizes = 1, .size_names = {"N"}, .size_values = {1024},
        .nparams = 3,
        .params = {{.name = "U", .values = {1, 2, 3}, .nvalues = 3},
                   {.name = "WG", .range = 1, .lo = "1", .hi = "min(N, max_work_item_size_0)"},
                   {.name = "V", .range = 1, .lo = "10", .hi = "19"}},
        .ndims = 1, .global = {"N"}, .local = {"WG"},
    };
    struct ht_device_info dev = fake_device(256, 512, 1, 1, 1, 1 << 20);
    struct ht_space_counts c = count_of(&t, &dev, HT_EQ3_PRODUCT);
    (void)state;
    assert_true(c.unpruned == 3.0 * 512 * 10);
    /* WG: powers of two up to 256 (Eq. 1): 9 values. */
    assert_int_equal(c.platform, 3 * 9 * 10);
}

/* The paper's spaces. Matmul: TS = WG0 = WG1 over 1024x1024 with 2*TS*TS*4 bytes. */
static void test_paper_matmul(void **state)
{
    struct tspec t = {
        .nsizes = 1, .size_names = {"N"}, .size_values = {1024},
        .nparams = 2,
        .params = {{.name = "WG0", .range = 1, .lo = "1", .hi = "max_work_item_size_0"},
                   {.name = "WG1", .range = 1, .lo = "1", .hi = "max_work_item_size_1"}},
        .ndims = 2, .global = {"N", "N"}, .local = {"WG0", "WG1"},
        .local_mem = "2 * WG0 * WG1 * 4",
        .ncons = 1, .cons = {"WG0 == WG1"},
    };
    /* A Fermi-like GPU: 1024 work-items, 48 KiB: TS in 1 2 4 8 16 32 (TS = 64 needs
     * 32 KiB but 4096 work-items). */
    struct ht_device_info dev = fake_device(1024, 1024, 1024, 64, 16, 48 * 1024);
    struct ht_space_counts c = count_of(&t, &dev, HT_EQ3_PRODUCT);
    (void)state;
    assert_true(c.unpruned == 1048576.0);
    assert_int_equal(c.pruned, 6);
    /* Platform alone: pairs of powers of two with product <= 1024, 8*a*b <= 48K. */
    assert_int_equal(c.platform, 66);
}

/* Convolution: mask 625 over 2^16, (WG + 624) * 4 bytes. */
static void test_paper_conv(void **state)
{
    struct tspec t = {
        .nsizes = 2, .size_names = {"N", "MASK"}, .size_values = {65536, 625},
        .nparams = 1,
        .params = {{.name = "WG", .range = 1, .lo = "1", .hi = "max_work_item_size_0"}},
        .ndims = 1, .global = {"N"}, .local = {"WG"}, .local_mem = "(WG + MASK - 1) * 4",
    };
    struct ht_device_info dev = fake_device(1024, 1024, 1024, 64, 16, 48 * 1024);
    struct ht_space_counts c = count_of(&t, &dev, HT_EQ3_PRODUCT);
    (void)state;
    assert_true(c.unpruned == 1024.0);
    assert_int_equal(c.pruned, 11); /* 1, 2, 4, ..., 1024 */
}

/* Fermi: 2^26 points; Eq. 2 over 1024x1024x64 leaves powers of two. */
static void test_paper_fermi(void **state)
{
    struct tspec t = {
        .nparams = 3,
        .params = {{.name = "X", .range = 1, .lo = "1", .hi = "1024"},
                   {.name = "Y", .range = 1, .lo = "1", .hi = "1024"},
                   {.name = "Z", .range = 1, .lo = "1", .hi = "64"}},
        .ndims = 3, .global = {"1024", "1024", "64"}, .local = {"X", "Y", "Z"},
    };
    struct ht_device_info dev = fake_device(1024, 1024, 1024, 64, 16, 48 * 1024);
    struct ht_space_counts c;
    size_t brute = 0;
    (void)state;
    /* (i, j, k) with i, j <= 10, k <= 6, i + j + k <= 10 and (10-i)+(10-j)+(6-k) >= 4. */
    for (int i = 0; i <= 10; i++)
        for (int j = 0; j <= 10; j++)
            for (int k = 0; k <= 6; k++)
                if (i + j + k <= 10 && 26 - i - j - k >= 4)
                    brute++;
    c = count_of(&t, &dev, HT_EQ3_PRODUCT);
    assert_true(c.unpruned == 67108864.0);
    assert_int_equal(c.pruned, brute);
    assert_true(c.seconds < 1.0);
}

/* ---------------------------------------------------------------------------------- */
/* empty spaces and errors */

static void test_empty_reason_constraint(void **state)
{
    struct tspec t = {
        .nparams = 1, .params = {{.name = "WG", .range = 1, .lo = "1", .hi = "64"}},
        .ndims = 1, .global = {"64"}, .local = {"WG"},
        .ncons = 3, .cons = {"WG > 2", "WG < 4 || WG > 40", "WG % 3 == 0"},
    };
    struct ht_device_info dev = fake_device(1024, 1024, 1, 1, 1, 1 << 20);
    struct ht_space_counts c = count_of(&t, &dev, HT_EQ3_PRODUCT);
    (void)state;
    /* Platform: divisors of 64 (7); WG > 2: 4..64 (5); then 64 alone (WG > 40); then none. */
    assert_int_equal(c.platform, 7);
    assert_int_equal(c.pruned, 0);
    assert_string_equal(c.last_constraint, "constraints[2]");
    assert_non_null(strstr(c.empty_reason, "WG % 3 == 0"));
    assert_non_null(strstr(c.empty_reason, "WG=64"));
}

static void test_empty_reason_platform(void **state)
{
    struct tspec t = {
        .nparams = 1, .params = {{.name = "WG", .range = 1, .lo = "1", .hi = "8"}},
        .ndims = 1, .global = {"8"}, .local = {"WG"},
    };
    struct ht_device_info dev = fake_device(1024, 1024, 1, 1, 100, 1 << 20);
    struct ht_space_counts c = count_of(&t, &dev, HT_EQ3_PRODUCT);
    (void)state;
    assert_int_equal(c.platform, 0);
    assert_string_equal(c.last_constraint, "Eq. 3");
    assert_non_null(strstr(c.empty_reason, "compute_units = 100"));
}

static void expect_create_error(const struct tspec *t, const char *field, const char *words)
{
    struct ht_space_def def;
    struct ht_space *s = NULL;
    struct ht_error err;
    struct ht_device_info dev = fake_device(1024, 1024, 1024, 64, 16, 48 * 1024);

    ht_error_clear(&err);
    assert_int_equal(make_def(t, &def), 0);
    assert_int_equal(ht_space_create(&def, &dev, HT_EQ3_PRODUCT, &s, &err), HT_ESPEC);
    assert_null(s);
    assert_string_equal(err.field, field);
    if (!strstr(err.text, words))
        fail_msg("'%s' lacks '%s'", err.text, words);
    ht_space_def_destroy(&def);
}

static void test_domain_errors(void **state)
{
    struct tspec t = {
        .nsizes = 1, .size_names = {"N"}, .size_values = {0},
        .nparams = 2,
        .params = {{.name = "A", .range = 1, .lo = "8", .hi = "4"},
                   {.name = "B", .range = 1, .lo = "1", .hi = "4"}},
        .ndims = 1, .global = {"64"}, .local = {"A"},
    };
    (void)state;
    expect_create_error(&t, "params.A.range", "hi (4) < lo (8)");
    t.params[0].hi = "16";
    t.params[0].step = "0";
    expect_create_error(&t, "params.A.step", "step must be positive");
    t.params[0].step = NULL;
    t.params[0].hi = "64 / N";
    expect_create_error(&t, "params.A.range", "division by zero");
    t.params[0].hi = "B * 2";
    expect_create_error(&t, "params.A.range", "not the parameter 'B'");
    t.params[0].lo = "3";
    t.params[0].hi = "3";
    t.params[0].pow2 = 1;
    expect_create_error(&t, "params.A.range", "no power of two");
}

static int stop_after_three(const int64_t *config, void *user)
{
    int *n = user;
    (void)config;
    return ++*n == 3 ? 42 : 0;
}

/* Sizes past 2^64 are exact in the texts (the 64-bit fields saturate); past 2^128 they are
 * approximate and say so. WG in 1..8 divides 960 but for 7 (Eq. 2), and the constraint
 * removes 3; the other parameters are free and multiplied in. */
static void test_counts_past_2_64(void **state)
{
    struct tspec t = {
        .nsizes = 1, .size_names = {"N"}, .size_values = {960},
        .nparams = 4,
        .params = {{.name = "WG", .range = 1, .lo = "1", .hi = "8"},
                   {.name = "A", .range = 1, .lo = "1", .hi = "1000000000"},
                   {.name = "B", .range = 1, .lo = "1", .hi = "1000000000"},
                   {.name = "C", .range = 1, .lo = "1", .hi = "1000000000"},
                   {.name = "D", .range = 1, .lo = "1", .hi = "1000000000"},
                   {.name = "E", .range = 1, .lo = "1", .hi = "1000000000"}},
        .ndims = 1, .global = {"N"}, .local = {"WG"},
        .ncons = 1, .cons = {"WG != 3"},
    };
    struct ht_device_info dev = fake_device(1024, 1024, 1, 1, 1, 1 << 20);
    struct ht_space_counts c = count_of(&t, &dev, HT_EQ3_OFF);
    (void)state;
    assert_true(c.unpruned == 8e27);
    assert_true(c.platform == UINT64_MAX && c.pruned == UINT64_MAX);
    assert_string_equal(c.unpruned_text, "8000000000000000000000000000");
    assert_string_equal(c.platform_text, "7000000000000000000000000000");
    assert_string_equal(c.pruned_text, "6000000000000000000000000000");
    assert_int_equal(c.approximate, 0);
    /* 7 * 10^36 < 2^128 = 3.4e38 < 7 * 10^45. */
    t.nparams = 5;
    c = count_of(&t, &dev, HT_EQ3_OFF);
    assert_string_equal(c.platform_text, "7000000000000000000000000000000000000");
    assert_int_equal(c.approximate, 0);
    t.nparams = 6;
    c = count_of(&t, &dev, HT_EQ3_OFF);
    assert_string_equal(c.unpruned_text, "~8e+45");
    assert_string_equal(c.platform_text, "~7e+45");
    assert_string_equal(c.pruned_text, "~6e+45");
    assert_int_equal(c.approximate, 1);
}

static void test_foreach_stops(void **state)
{
    struct ht_space_def def;
    struct ht_space *s = NULL;
    struct ht_error err;
    struct ht_device_info dev = fake_device(1024, 1024, 1024, 64, 1, 48 * 1024);
    int n = 0;
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(make_def(&two_d, &def), 0);
    assert_int_equal(ht_space_create(&def, &dev, HT_EQ3_OFF, &s, &err), 0);
    assert_int_equal(ht_space_foreach(s, stop_after_three, &n), 42);
    assert_int_equal(n, 3);
    assert_int_equal(ht_space_domain_size(s, 0), 8);
    assert_int_equal(ht_space_domain_value(s, 1, 7), 8);
    assert_ptr_equal(ht_space_get_def(s), &def);
    ht_space_free(s);
    ht_space_def_destroy(&def);
}

static void test_backends_registry(void **state)
{
    (void)state;
    assert_non_null(ht_space_backends[0]);
    assert_string_equal(ht_space_backends[0]->name, "native");
    assert_ptr_equal(ht_space_backend_find("native"), ht_space_backends[0]);
    assert_non_null(ht_space_backend_find("minizinc"));
    assert_null(ht_space_backend_find("nonesuch"));
}

/* ---------------------------------------------------------------------------------- */
/* the property test */

static struct ht__rng rng;

static uint64_t rnd(uint64_t n)
{
    return ht__rng_next(&rng) % n;
}

static int64_t rnd_range(int64_t lo, int64_t hi)
{
    return lo + (int64_t)rnd((uint64_t)(hi - lo + 1));
}

/* A random expression over the parameters, sizes and a few device variables; owned by
 * the caller (free()). */
static char *rand_expr(const struct tspec *t, int depth)
{
    static const char *const binops[] = {"+", "-", "*", "/", "%", "<", "<=", ">", ">=",
                                         "==", "!=", "&&", "||"};
    static const char *const devvars[] = {"compute_units", "max_work_group_size",
                                          "local_mem_size", "max_work_item_size_0", "is_gpu"};
    static const char *const f2[] = {"min", "max", "ceil_div"};
    static const char *const f1[] = {"is_pow2", "log2", "!", "-"};
    uint64_t pick = depth <= 0 ? rnd(3) : rnd(10);
    char *a, *b, *c, *out;

    switch (pick) {
    case 0:
        return ht__strdup(t->params[rnd(t->nparams)].name);
    case 1:
        if (t->nsizes && rnd(2))
            return ht__strdup(t->size_names[rnd(t->nsizes)]);
        if (rnd(3) == 0)
            return ht__strdup(devvars[rnd(5)]);
        return ht__strdup(t->params[rnd(t->nparams)].name);
    case 2:
        return ht__asprintf("%lld", (long long)rnd_range(0, 12));
    case 3: case 4: case 5: case 6:
        a = rand_expr(t, depth - 1);
        b = rand_expr(t, depth - 1);
        out = ht__asprintf("(%s %s %s)", a, binops[rnd(13)], b);
        free(a);
        free(b);
        return out;
    case 7:
        a = rand_expr(t, depth - 1);
        b = rand_expr(t, depth - 1);
        c = rand_expr(t, depth - 1);
        out = ht__asprintf("(%s ? %s : %s)", a, b, c);
        free(a);
        free(b);
        free(c);
        return out;
    case 8:
        a = rand_expr(t, depth - 1);
        b = rand_expr(t, depth - 1);
        out = ht__asprintf("%s(%s, %s)", f2[rnd(3)], a, b);
        free(a);
        free(b);
        return out;
    default:
        a = rand_expr(t, depth - 1);
        out = ht__asprintf("%s(%s)", f1[rnd(4)], a);
        free(a);
        return out;
    }
}

/* Every point of the cartesian product of the domains, computed here independently by
 * scanning [lo, hi], through ht_space_check. Returns -1 when a domain is empty or a step
 * not positive (the enumerator must refuse the space), else the number of valid points,
 * which are appended to *list (nparams values each). */
static long brute_force(const struct ht_space_def *def, const struct ht_device_info *dev,
                        enum ht_eq3 eq3, int64_t **list)
{
    int64_t vars[64], dom[8][2100], config[8];
    size_t ndom[8], idx[8];
    long valid = 0;
    size_t cap = 0;

    ht_space_vars(def, dev, NULL, vars);
    for (size_t i = 0; i < def->nparams; i++) {
        const struct ht_param *p = &def->params[i];
        int64_t lo, hi, step = 1;
        ndom[i] = 0;
        if (p->kind == HT_PARAM_VALUES) {
            for (size_t k = 0; k < p->nvalues; k++)
                dom[i][ndom[i]++] = p->values[k];
        } else {
            if (ht_expr_eval(p->lo, vars, &lo) || ht_expr_eval(p->hi, vars, &hi))
                return -1;
            if (p->step && !p->pow2 && ht_expr_eval(p->step, vars, &step))
                return -1;
            if (step <= 0)
                return -1;
            assert_true(hi - lo < 2000);
            for (int64_t v = lo; v <= hi; v++) {
                if (p->pow2 ? (v > 0 && (v & (v - 1)) == 0) : (v - lo) % step == 0)
                    dom[i][ndom[i]++] = v;
            }
        }
        if (ndom[i] == 0)
            return -1;
        idx[i] = 0;
    }
    *list = NULL;
    for (;;) {
        size_t i;
        for (i = 0; i < def->nparams; i++)
            config[i] = dom[i][idx[i]];
        if (ht_space_check(def, dev, config, eq3, NULL) == 0) {
            if ((size_t)(valid + 1) * def->nparams > cap) {
                cap = cap * 2 + 64 * def->nparams;
                *list = realloc(*list, cap * sizeof **list);
                assert_non_null(*list);
            }
            memcpy(*list + (size_t)valid * def->nparams, config, def->nparams * sizeof *config);
            valid++;
        }
        for (i = 0; i < def->nparams; i++) {
            if (++idx[i] < ndom[i])
                break;
            idx[i] = 0;
        }
        if (i == def->nparams)
            break;
    }
    return valid;
}

struct collect {
    size_t n, nparams, cap;
    int64_t *list;
};

static int collect_config(const int64_t *config, void *user)
{
    struct collect *c = user;
    if ((c->n + 1) * c->nparams > c->cap) {
        c->cap = c->cap * 2 + 64 * c->nparams;
        c->list = realloc(c->list, c->cap * sizeof *c->list);
        assert_non_null(c->list);
    }
    memcpy(c->list + c->n * c->nparams, config, c->nparams * sizeof *config);
    c->n++;
    return 0;
}

static size_t cmp_n;

static int cmp_config(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    for (size_t i = 0; i < cmp_n; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

static void random_spec(struct tspec *t, char **exprs)
{
    static const char *const lo_choices[] = {"1", "1", "0", "-2", "2", "N0 / 16"};
    static const char *const hi_choices[] = {"max_work_item_size_0", "N0", "min(N0, 9)",
                                             "max_work_group_size / 2"};
    size_t e = 0;

    memset(t, 0, sizeof *t);
    t->nsizes = rnd(3);
    t->size_names[0] = "N0";
    t->size_names[1] = "N1";
    t->size_values[0] = rnd_range(1, 40);
    t->size_values[1] = rnd_range(0, 24);
    if (t->nsizes == 0)
        t->nsizes = 1; /* N0 is read by some bounds */
    t->nparams = (size_t)rnd_range(1, 4);
    for (size_t i = 0; i < t->nparams; i++) {
        static const char *const names[] = {"P0", "P1", "P2", "P3"};
        struct tparam *p = &t->params[i];
        p->name = names[i];
        if (rnd(3) == 0) {
            p->nvalues = (size_t)rnd_range(1, 5);
            for (size_t k = 0; k < p->nvalues; k++)
                p->values[k] = rnd_range(-2, 20);
            continue;
        }
        p->range = 1;
        if (rnd(3) == 0) {
            p->lo = lo_choices[rnd(6)];
            p->hi = hi_choices[rnd(4)];
        } else {
            int64_t lo = rnd_range(-1, 6);
            p->lo = exprs[e++] = ht__asprintf("%lld", (long long)lo);
            p->hi = exprs[e++] = ht__asprintf("%lld", (long long)(lo + rnd_range(-1, 14)));
        }
        if (rnd(4) == 0)
            p->pow2 = 1;
        else if (rnd(3) == 0)
            p->step = rnd(8) == 0 ? "0" : (rnd(2) ? "2" : "3");
    }
    t->ndims = rnd(4) == 0 ? 3 : (unsigned)rnd_range(1, 2);
    for (unsigned d = 0; d < t->ndims; d++) {
        static const char *const globals[] = {"N0", "N0 * 12", "P0 * 4", "60", "P1 * N1 + 1",
                                              "36 - P0", "max_work_item_size_1 * 2", "720"};
        const char *g = globals[rnd(8)];
        if (strstr(g, "P1") && (t->nparams < 2 || t->nsizes < 2))
            g = "48";
        t->global[d] = g;
        if (rnd(4)) {
            t->local[d] = t->params[rnd(t->nparams)].name;
        } else {
            t->local[d] = exprs[e++] = rand_expr(t, 1);
        }
    }
    if (rnd(6) == 0)
        t->local[0] = NULL;
    if (rnd(3) == 0) {
        t->local_mem = exprs[e++] = rand_expr(t, 2);
    }
    t->ncons = rnd(4);
    for (size_t i = 0; i < t->ncons; i++) {
        /* Half are comparisons of two random terms, which hold more often than random
         * trees do, so that constraints cut without emptying the space. */
        if (rnd(2)) {
            static const char *const cmp[] = {"<", "<=", ">", ">=", "!=", "=="};
            char *a = rand_expr(t, 1), *b = rand_expr(t, 1);
            t->cons[i] = exprs[e++] = ht__asprintf("%s %s %s", a, cmp[rnd(6)], b);
            free(a);
            free(b);
        } else {
            t->cons[i] = exprs[e++] = rand_expr(t, 3);
        }
    }
}

/* Ranks: every rank below the count gives a valid configuration, each once (the sorted
 * unranked list is brute's, sorted), whatever the order ranks are asked in; col->list has
 * room for nb configurations. */
static void check_ranks(const struct ht_space *s, long nb, const int64_t *brute,
                        struct collect *col, int run)
{
    struct ht_space_ranker *rk = NULL;
    size_t np = col->nparams;

    assert_int_equal(ht_space_ranker_create(s, &rk), 0);
    assert_int_equal(ht_space_ranker_count(rk), (uint64_t)nb);
    for (uint64_t j = 0; j < (uint64_t)nb; j++) {
        /* odd runs ask the ranks from the last, so that the caches fill in another order */
        uint64_t rank = run % 2 ? (uint64_t)nb - 1 - j : j;
        assert_int_equal(ht_space_unrank(rk, rank, col->list + j * np), 0);
    }
    assert_int_equal(ht_space_unrank(rk, (uint64_t)nb, col->list), HT_EDOMAIN);
    ht_space_ranker_free(rk);
    if (nb == 0)
        return;
    qsort(col->list, (size_t)nb, np * sizeof *col->list, cmp_config);
    if (memcmp(col->list, brute, (size_t)nb * np * sizeof *brute) != 0)
        fail_msg("run %d: the unranked configurations are not the valid ones", run);
}

/* Runs the property test on runs random specs; with cost_order, every space is ordered
 * by the cost-based search (sampled pass rates), which only large spaces use normally. */
static void property(int runs, int cost_order)
{
    static const enum ht_eq3 modes[] = {HT_EQ3_PRODUCT, HT_EQ3_SUM, HT_EQ3_OFF};
    int nonempty = 0, pruned_some = 0, refused = 0, explained = 0;
    double saved = ht__space_cost_order_min_points;

    if (cost_order)
        ht__space_cost_order_min_points = 0;
    ht__rng_seed(&rng, 20180322);
    for (int run = 0; run < runs; run++) {
        char *exprs[24] = {NULL}, text[64];
        struct tspec t;
        struct ht_space_def def;
        struct ht_device_info dev;
        enum ht_eq3 eq3 = modes[rnd(3)];
        struct ht_space *s = NULL;
        struct ht_space_counts c;
        struct ht_error err;
        struct collect col = {0, 0, 0, NULL};
        int64_t *brute = NULL, *plat = NULL;
        long nb, np;
        size_t ncons;

        random_spec(&t, exprs);
        dev = fake_device((uint64_t)rnd_range(2, 300), (uint64_t)rnd_range(2, 40),
                          (uint64_t)rnd_range(2, 40), (uint64_t)rnd_range(1, 16),
                          (uint32_t)rnd_range(1, 4), (uint64_t)rnd_range(0, 2000));
        assert_int_equal(make_def(&t, &def), 0);
        nb = brute_force(&def, &dev, eq3, &brute);
        ht_error_clear(&err);
        if (nb < 0) {
            /* An empty domain or a bad step: the space must be refused. */
            assert_int_equal(ht_space_create(&def, &dev, eq3, &s, &err), HT_ESPEC);
            assert_true(strncmp(err.field, "params.", 7) == 0);
            refused++;
            ht_space_def_destroy(&def);
            for (size_t k = 0; k < 24; k++)
                free(exprs[k]);
            continue;
        }
        if (ht_space_create(&def, &dev, eq3, &s, &err) != 0)
            fail_msg("run %d: create: %s: %s", run, err.field, err.text);
        assert_int_equal(ht_space_count(s, &c, &err), 0);
        col.nparams = def.nparams;
        assert_int_equal(ht_space_foreach(s, collect_config, &col), 0);
        if ((long)c.pruned != nb || (long)col.n != nb)
            fail_msg("run %d: native %llu (visited %zu), brute force %ld", run,
                     (unsigned long long)c.pruned, col.n, nb);
        cmp_n = def.nparams;
        if (nb > 0) {
            qsort(col.list, col.n, def.nparams * sizeof *col.list, cmp_config);
            qsort(brute, (size_t)nb, def.nparams * sizeof *brute, cmp_config);
            assert_memory_equal(col.list, brute, (size_t)nb * def.nparams * sizeof *brute);
        }
        check_ranks(s, nb, brute, &col, run);
        /* The platform count: the same check with the constraints left out. */
        ncons = def.nconstraints;
        def.nconstraints = 0;
        np = brute_force(&def, &dev, eq3, &plat);
        def.nconstraints = ncons;
        if ((long)c.platform != np)
            fail_msg("run %d: platform native %llu, brute force %ld", run,
                     (unsigned long long)c.platform, np);
        {
            double u = 1;
            for (size_t i = 0; i < def.nparams; i++)
                u *= (double)ht_space_domain_size(s, i);
            assert_true(c.unpruned == u);
            /* Below 2^64 the texts are the counts in decimal. */
            assert_int_equal(c.approximate, 0);
            snprintf(text, sizeof text, "%.0f", u);
            assert_string_equal(c.unpruned_text, text);
            snprintf(text, sizeof text, "%llu", (unsigned long long)c.platform);
            assert_string_equal(c.platform_text, text);
            snprintf(text, sizeof text, "%llu", (unsigned long long)c.pruned);
            assert_string_equal(c.pruned_text, text);
        }
        /* An empty space names the first constraint after which nothing is left. */
        if (nb == 0 && np > 0) {
            size_t k;
            int64_t *tmp = NULL;
            for (k = 0; k < ncons; k++) {
                long m;
                def.nconstraints = k + 1;
                m = brute_force(&def, &dev, eq3, &tmp);
                free(tmp);
                tmp = NULL;
                if (m == 0)
                    break;
            }
            def.nconstraints = ncons;
            assert_true(k < ncons);
            assert_string_equal(c.last_constraint, def.constraints[k].origin);
            explained++;
        } else if (nb == 0) {
            assert_true(c.last_constraint[0] != '\0');
            assert_true(c.empty_reason[0] != '\0');
        } else {
            assert_string_equal(c.last_constraint, "");
        }
        nonempty += nb > 0;
        pruned_some += nb > 0 && np > nb;
        free(col.list);
        free(brute);
        free(plat);
        ht_space_free(s);
        ht_space_def_destroy(&def);
        for (size_t k = 0; k < 24; k++)
            free(exprs[k]);
    }
    /* The generator must exercise all cases, or the test proves little. */
    fprintf(stderr, "property: %d runs, %d non-empty, %d cut by constraints, %d refused, "
                    "%d empty explained\n", runs, nonempty, pruned_some, refused, explained);
    ht__space_cost_order_min_points = saved;
    assert_true(nonempty > runs / 5);
    assert_true(pruned_some > runs / 30);
    assert_true(refused > 0);
    assert_true(explained > 0);
}

static void test_property_vs_brute_force(void **state)
{
    (void)state;
    property(1500, 0);
}

static void test_property_cost_order(void **state)
{
    (void)state;
    property(1500, 1);
}

/* ---------------------------------------------------------------------------------- */
/* structured spaces: the shapes the decomposition and the support tables work on */

/* A term of a rule: one of the shapes users write (divisibility, sums of products,
 * bitwise tests) over parameters a, b, c, d; owned by the caller (free()). */
static char *shape_rule(const char *a, const char *b, const char *c, const char *d)
{
    switch (rnd(15)) {
    case 9:
        return ht__asprintf("(%s * %s + %s - %s) * 3 <= %lld", a, b, c, d,
                            (long long)rnd_range(-6, 60));
    case 10:
        return ht__asprintf("2 * (%s * %s + %s * %s) < %lld", a, c, b, d,
                            (long long)rnd_range(-3, 80));
    case 11:
        return ht__asprintf("-%s + %s * %s - %s / 2 <= %lld", a, b, c, d,
                            (long long)rnd_range(-10, 10));
    case 12:
        return ht__asprintf("%s * %s + (%s + %s) %% 3 <= max_work_group_size / 20", a, b, c,
                            d);
    case 13:
        return ht__asprintf("(%s + %s) * (%s + %s) <= %lld", a, b, c, d,
                            (long long)rnd_range(0, 60));
    case 14:
        /* Not a bound on the sum: (a * b + c <= 9) && 1, (a + b <= 0) == (c < 2). */
        return rnd(2) ? ht__asprintf("%s * %s + %s <= 9 && 1", a, b, c)
                      : ht__asprintf("%s + %s <= 0 == (%s < 2)", a, b, c);
    case 0:
        return ht__asprintf("%s %% %s == 0", a, b);
    case 1:
        return ht__asprintf("(N0 / %s) %% %s == 0", a, b);
    case 2:
        return ht__asprintf("%s * %s + %s * %s <= %lld", a, b, c, d,
                            (long long)rnd_range(4, 60));
    case 3:
        return ht__asprintf("%s * %s - %s <= %lld", a, b, c, (long long)rnd_range(0, 20));
    case 4:
        return ht__asprintf("(%s & %s) == 0", a, b);
    case 5:
        return ht__asprintf("(%s ^ %s) != %lld", a, c, (long long)rnd_range(0, 6));
    case 6:
        return ht__asprintf("(%s | %s) < %lld", b, d, (long long)rnd_range(2, 9));
    case 7:
        return ht__asprintf("(%s << 1) >= %s", a, b);
    default:
        return ht__asprintf("%s + %s + %s != %lld", a, b, c, (long long)rnd_range(3, 12));
    }
}

/* 5 to 8 parameters in two or three groups that no rule links, each group tied by rules
 * of shape_rule; sometimes a local memory sum of products, inside a group or across. */
static void shaped_spec(struct tspec *t, char **exprs)
{
    static const char *const names[] = {"P0", "P1", "P2", "P3", "P4", "P5", "P6", "P7"};
    size_t e = 0, ngroups = (size_t)rnd_range(2, 3), group[8];

    memset(t, 0, sizeof *t);
    t->nsizes = 1;
    t->size_names[0] = "N0";
    t->size_values[0] = rnd(2) ? 24 : 36;
    t->nparams = (size_t)rnd_range(5, 8);
    for (size_t i = 0; i < t->nparams; i++) {
        struct tparam *p = &t->params[i];
        p->name = names[i];
        group[i] = i < ngroups ? i : rnd(ngroups);
        switch (rnd(3)) {
        case 0:
            p->nvalues = (size_t)rnd_range(2, 4);
            for (size_t k = 0; k < p->nvalues; k++)
                p->values[k] = rnd_range(0, 9);
            break;
        case 1:
            p->range = 1;
            p->lo = "1";
            p->hi = "N0";
            p->pow2 = 1;
            break;
        default:
            p->range = 1;
            p->lo = exprs[e++] = ht__asprintf("%lld", (long long)rnd_range(0, 2));
            p->hi = exprs[e++] = ht__asprintf("%lld", (long long)rnd_range(3, 5));
        }
    }
    t->ncons = (size_t)rnd_range(1, 6);
    for (size_t k = 0; k < t->ncons; k++) {
        size_t g = rnd(ngroups), in[8], n = 0;
        for (size_t i = 0; i < t->nparams; i++)
            if (group[i] == g)
                in[n++] = i;
        t->cons[k] = exprs[e++] =
            shape_rule(names[in[rnd(n)]], names[in[rnd(n)]], names[in[rnd(n)]],
                       names[in[rnd(n)]]);
    }
    t->ndims = (unsigned)rnd_range(1, 2);
    for (unsigned d = 0; d < t->ndims; d++) {
        t->global[d] = rnd(2) ? "N0" : "N0 * 2";
        t->local[d] = rnd(5) ? names[rnd(t->nparams)] : "1";
    }
    if (rnd(2))
        t->local_mem = exprs[e++] =
            ht__asprintf("(%s * %s + %s * %s) * 4", names[rnd(t->nparams)],
                         names[rnd(t->nparams)], names[rnd(t->nparams)],
                         names[rnd(t->nparams)]);
}

/* The count, the platform count and the visited set of structured spaces against brute
 * force: independent groups (cached sub-counts), divisibility, sums of products in a
 * constraint and in local_mem (support tables), bitwise tests, each order. */
static void test_property_shapes(void **state)
{
    static const enum ht_eq3 modes[] = {HT_EQ3_PRODUCT, HT_EQ3_SUM, HT_EQ3_OFF};
    double saved = ht__space_cost_order_min_points;
    uint64_t saved_support = ht__space_support_max_points;
    int runs = 400, nonempty = 0, cut = 0;
    (void)state;

    ht__rng_seed(&rng, 17);
    for (int run = 0; run < runs; run++) {
        char *exprs[24] = {NULL};
        struct tspec t;
        struct ht_space_def def;
        struct ht_device_info dev;
        enum ht_eq3 eq3 = modes[rnd(3)];
        struct ht_space *s = NULL;
        struct ht_space_counts c;
        struct ht_error err;
        struct collect col = {0, 0, 0, NULL};
        int64_t *brute = NULL, *plat = NULL;
        long nb, np;
        size_t ncons;

        ht__space_cost_order_min_points = run % 2 ? 0 : saved;
        /* One run in two without support tables: sums of products by partial bounds. */
        ht__space_support_max_points = run % 4 < 2 ? 0 : saved_support;
        shaped_spec(&t, exprs);
        dev = fake_device((uint64_t)rnd_range(8, 300), 64, 64, 64, (uint32_t)rnd_range(1, 4),
                          (uint64_t)rnd_range(40, 400));
        assert_int_equal(make_def(&t, &def), 0);
        nb = brute_force(&def, &dev, eq3, &brute);
        assert_true(nb >= 0);
        ht_error_clear(&err);
        if (ht_space_create(&def, &dev, eq3, &s, &err) != 0)
            fail_msg("run %d: create: %s: %s", run, err.field, err.text);
        assert_int_equal(ht_space_count(s, &c, &err), 0);
        col.nparams = def.nparams;
        assert_int_equal(ht_space_foreach(s, collect_config, &col), 0);
        if ((long)c.pruned != nb || (long)col.n != nb)
            fail_msg("run %d: native %llu (visited %zu), brute force %ld", run,
                     (unsigned long long)c.pruned, col.n, nb);
        cmp_n = def.nparams;
        if (nb > 0) {
            qsort(col.list, col.n, def.nparams * sizeof *col.list, cmp_config);
            qsort(brute, (size_t)nb, def.nparams * sizeof *brute, cmp_config);
            assert_memory_equal(col.list, brute, (size_t)nb * def.nparams * sizeof *brute);
        }
        check_ranks(s, nb, brute, &col, run);
        ncons = def.nconstraints;
        def.nconstraints = 0;
        np = brute_force(&def, &dev, eq3, &plat);
        def.nconstraints = ncons;
        if ((long)c.platform != np)
            fail_msg("run %d: platform native %llu, brute force %ld", run,
                     (unsigned long long)c.platform, np);
        nonempty += nb > 0;
        cut += nb > 0 && np > nb;
        free(col.list);
        free(brute);
        free(plat);
        ht_space_free(s);
        ht_space_def_destroy(&def);
        for (size_t k = 0; k < 24; k++)
            free(exprs[k]);
    }
    ht__space_cost_order_min_points = saved;
    ht__space_support_max_points = saved_support;
    fprintf(stderr, "shapes: %d runs, %d non-empty, %d cut by constraints\n", runs, nonempty,
            cut);
    assert_true(nonempty > runs / 4);
    assert_true(cut > runs / 8);
}

/* ht__space_print_config writes what printf's PRId64 writes: the extremes, and more
 * values than its buffer holds at once. */
static void test_print_config(void **state)
{
    int64_t v[150];
    char *got = NULL, want[150 * 22] = "";
    size_t size = 0, len = 0;
    FILE *f;
    (void)state;

    v[0] = INT64_MIN;
    v[1] = INT64_MAX;
    v[2] = 0;
    v[3] = -1;
    v[4] = 10;
    for (size_t i = 5; i < 150; i++)
        v[i] = (int64_t)(ht__rng_next(&rng) >> (i % 64)) * (i % 3 ? 1 : -1);
    for (size_t n = 0; n <= 150; n += 1 + n / 2) {
        f = open_memstream(&got, &size);
        assert_non_null(f);
        assert_int_equal(ht__space_print_config(f, v, n), 0);
        fclose(f);
        len = 0;
        want[0] = '\0';
        for (size_t i = 0; i < n; i++)
            len += (size_t)snprintf(want + len, sizeof want - len, "%s%lld", i ? " " : "",
                                    (long long)v[i]);
        assert_string_equal(got, want);
        free(got);
        got = NULL;
    }
}

/* ht_space_list: the text lines are ht_space_foreach's configurations in its order, as
 * ht__space_print_config writes them after the prefix; the binary records hold the same
 * values after the header, in the fewest bytes that hold every domain value (a value of
 * -200 needs 2, one of 70000 needs 4); ht_space_list_configs writes given ones alike; a
 * binary count that differs from the header's is refused. */
struct listed {
    int64_t v[4096];
    size_t n;
};

static int listed_cb(const int64_t *c, void *user)
{
    struct listed *k = user;
    memcpy(k->v + k->n, c, 2 * sizeof *c);
    k->n += 2;
    return 0;
}

static void test_list(void **state)
{
    static const int64_t bigs[] = {1, 3, 70000};
    struct tspec t = {
        .nsizes = 1, .size_names = {"G"}, .size_values = {840},
        .nparams = 2,
        .params = {{.name = "A", .range = 1, .lo = "1", .hi = "8"},
                   {.name = "B", .values = {5, -200, 7, 100}, .nvalues = 4}},
        .ndims = 1, .global = {"G"}, .local = {"A"},
        .ncons = 1, .cons = {"A * B < 40"},
    };
    struct ht_device_info dev = fake_device(1024, 1024, 1024, 1024, 1, 1 << 20);
    struct ht_space_def def;
    struct ht_space *s = NULL;
    struct ht_error err;
    struct listed *k = calloc(1, sizeof *k);
    char *got = NULL, *want = NULL;
    size_t gsize = 0, wsize = 0;
    uint64_t written = 0;
    (void)state;

    assert_non_null(k);
    ht_error_clear(&err);
    for (int big = 0; big < 2; big++) {
        struct ht_space_list_opts o = {HT_SPACE_LIST_TEXT, "  > ", 0, 7};
        unsigned width = big ? 4 : 2;
        FILE *g, *w;
        if (big) /* the second space: B's values pass 2^16 */
            memcpy(t.params[1].values, bigs, sizeof bigs), t.params[1].nvalues = 3;
        assert_int_equal(make_def(&t, &def), 0);
        assert_int_equal(ht_space_create(&def, &dev, HT_EQ3_OFF, &s, &err), 0);
        k->n = 0;
        assert_int_equal(ht_space_foreach(s, listed_cb, k), 0);
        assert_true(k->n >= 8);
        g = open_memstream(&got, &gsize);
        w = open_memstream(&want, &wsize);
        assert_int_equal(ht_space_list(s, g, &o, &written), 0);
        assert_int_equal(written, k->n / 2);
        for (size_t i = 0; i < k->n; i += 2) {
            fputs("  > ", w);
            assert_int_equal(ht__space_print_config(w, k->v + i, 2), 0);
            fputc('\n', w);
        }
        fclose(g);
        fclose(w);
        assert_string_equal(got, want);
        free(got);
        free(want);

        for (int given = 0; given < 2; given++) {
            const unsigned char *b;
            o.format = HT_SPACE_LIST_BINARY;
            o.count = k->n / 2;
            g = open_memstream(&got, &gsize);
            if (given)
                assert_int_equal(ht_space_list_configs(s, k->v, k->n / 2, g, &o), 0);
            else
                assert_int_equal(ht_space_list(s, g, &o, NULL), 0);
            fclose(g);
            b = (const unsigned char *)got;
            assert_int_equal(gsize, 32 + 4 + k->n * width);
            assert_memory_equal(b, "HTSPACE1\2\0\0\0", 12);
            assert_int_equal(b[12], width);
            assert_int_equal(b[16], k->n / 2);
            assert_int_equal(b[24], 7);
            assert_memory_equal(b + 32, "A\0B\0", 4);
            for (size_t i = 0; i < k->n; i++) {
                uint64_t u = 0;
                for (unsigned j = width; j-- > 0;)
                    u = u << 8 | b[36 + i * width + j];
                if (u >> (8 * width - 1)) /* sign-extend */
                    u |= ~UINT64_C(0) << (8 * width);
                assert_int_equal((int64_t)u, k->v[i]);
            }
            free(got);
        }
        o.count++;
        g = open_memstream(&got, &gsize);
        assert_int_equal(ht_space_list(s, g, &o, NULL), HT_EINVAL);
        fclose(g);
        free(got);
        ht_space_free(s);
        ht_space_def_destroy(&def);
    }
    free(k);
}

/* ---------------------------------------------------------------------------------- */
/* speed: 10^8 unpruned points with about 10^6 valid ones */

static void test_speed(void **state)
{
    /* Four parameters of 100 values each (10^8 points): A, B the local sizes of a
     * 2-D NDRange of 5040 x 5040 (5040 has many divisors), C, D free but for one
     * constraint; about 10^6 configurations survive. */
    struct tspec t = {
        .nsizes = 1, .size_names = {"G"}, .size_values = {5040},
        .nparams = 4,
        .params = {{.name = "A", .range = 1, .lo = "1", .hi = "100"},
                   {.name = "B", .range = 1, .lo = "1", .hi = "100"},
                   {.name = "C", .range = 1, .lo = "1", .hi = "100"},
                   {.name = "D", .range = 1, .lo = "1", .hi = "100"}},
        .ndims = 2, .global = {"G", "G"}, .local = {"A", "B"},
        .local_mem = "(A * C + B * D) * 4",
        .ncons = 1, .cons = {"(C + D) % 8 == 0"},
    };
    struct ht_device_info dev = fake_device(1024, 1024, 1024, 64, 16, 48 * 1024);
    struct ht_space_def def;
    struct ht_space *s = NULL;
    struct ht_space_counts c;
    struct ht_error err;
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(make_def(&t, &def), 0);
    assert_int_equal(ht_space_create(&def, &dev, HT_EQ3_PRODUCT, &s, &err), 0);
    assert_int_equal(ht_space_count(s, &c, &err), 0);
    fprintf(stderr, "speed: unpruned %.0f platform %llu pruned %llu in %.3f s\n", c.unpruned,
            (unsigned long long)c.platform, (unsigned long long)c.pruned, c.seconds);
    assert_true(c.unpruned == 1e8);
    assert_true(c.pruned > 900000 && c.pruned < 1200000);
    ht_space_free(s);
    ht_space_def_destroy(&def);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eq1),
        cmocka_unit_test(test_work_item_limit),
        cmocka_unit_test(test_eq2),
        cmocka_unit_test(test_local_mem),
        cmocka_unit_test(test_eq3),
        cmocka_unit_test(test_values_step_and_constraints),
        cmocka_unit_test(test_division_by_zero_rejects),
        cmocka_unit_test(test_device_bounds_and_free_params),
        cmocka_unit_test(test_paper_matmul),
        cmocka_unit_test(test_paper_conv),
        cmocka_unit_test(test_paper_fermi),
        cmocka_unit_test(test_empty_reason_constraint),
        cmocka_unit_test(test_empty_reason_platform),
        cmocka_unit_test(test_domain_errors),
        cmocka_unit_test(test_counts_past_2_64),
        cmocka_unit_test(test_foreach_stops),
        cmocka_unit_test(test_backends_registry),
        cmocka_unit_test(test_property_vs_brute_force),
        cmocka_unit_test(test_property_cost_order),
        cmocka_unit_test(test_property_shapes),
        cmocka_unit_test(test_print_config),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_speed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
