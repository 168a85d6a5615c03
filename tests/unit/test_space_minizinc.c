/* The MiniZinc backend against the native enumerator: the example specs (the paper's
 * spaces) on fake devices with every Eq. 3 mode, small random specs, an empty space, the
 * model file itself, and the message without minizinc. Skipped (77) when minizinc is
 * not on PATH. No OpenCL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hetune.h"
#include "util/util.h"

static struct ht_device_info fake_device(const char *name, uint64_t maxwg, uint64_t i0,
                                         uint64_t i1, uint64_t i2, uint32_t cu, uint64_t lmem)
{
    struct ht_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "%s", name);
    snprintf(d.type, sizeof d.type, "GPU");
    d.is_gpu = 1;
    d.max_work_group_size = maxwg;
    d.max_work_item_dims = 3;
    d.max_work_item_sizes[0] = i0;
    d.max_work_item_sizes[1] = i1;
    d.max_work_item_sizes[2] = i2;
    d.compute_units = cu;
    d.local_mem_size = lmem;
    d.global_mem_size = UINT64_C(1) << 32;
    d.max_mem_alloc_size = UINT64_C(1) << 30;
    return d;
}

struct configs {
    size_t n, cap, nparams;
    int64_t *v;
};

static int add_config(const int64_t *config, void *user)
{
    struct configs *c = user;
    size_t np = c->nparams ? c->nparams : 1;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->v = realloc(c->v, c->cap * np * sizeof *c->v);
        assert_non_null(c->v);
    }
    memcpy(c->v + c->n * np, config, c->nparams * sizeof *config);
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

/* Solves def on dev with both backends and requires the same counts and sets. Returns
 * the number of valid configurations. */
static uint64_t compare(const struct ht_space_def *def, const struct ht_device_info *dev,
                        enum ht_eq3 eq3, const char *what)
{
    const struct ht_space_backend_ops *nat = ht_space_backend_find("native");
    const struct ht_space_backend_ops *mzn = ht_space_backend_find("minizinc");
    struct ht_space *s = NULL;
    struct ht_space_counts a, b;
    struct ht_error err;
    struct configs ca = {0, 0, def->nparams, NULL}, cb = {0, 0, def->nparams, NULL};

    ht_error_clear(&err);
    if (ht_space_create(def, dev, eq3, &s, &err) != 0)
        fail_msg("%s: create: %s: %s", what, err.field, err.text);
    assert_int_equal(nat->solve(s, &a, add_config, &ca, &err), 0);
    if (mzn->solve(s, &b, add_config, &cb, &err) != 0)
        fail_msg("%s: minizinc: %s", what, err.text);
    if (a.platform != b.platform || a.pruned != b.pruned || ca.n != cb.n)
        fail_msg("%s on %s: native %llu/%llu (%zu listed), minizinc %llu/%llu (%zu listed)",
                 what, dev->name, (unsigned long long)a.platform,
                 (unsigned long long)a.pruned, ca.n, (unsigned long long)b.platform,
                 (unsigned long long)b.pruned, cb.n);
    cmp_n = def->nparams;
    if (def->nparams && ca.n) {
        qsort(ca.v, ca.n, def->nparams * sizeof *ca.v, cmp_config);
        qsort(cb.v, cb.n, def->nparams * sizeof *cb.v, cmp_config);
        assert_memory_equal(ca.v, cb.v, ca.n * def->nparams * sizeof *ca.v);
    }
    assert_true(a.unpruned == b.unpruned);
    assert_string_equal(a.last_constraint, b.last_constraint);
    assert_true(b.seconds > 0);
    free(ca.v);
    free(cb.v);
    ht_space_free(s);
    return a.pruned;
}

static struct ht_spec *load_example(const char *name)
{
    const char *src = getenv("HETUNE_SOURCE_DIR");
    char *path = ht__asprintf("%s/examples/%s/spec.json", src ? src : ".", name);
    struct ht_spec *spec = NULL;
    struct ht_error err;

    ht_error_clear(&err);
    assert_non_null(path);
    if (ht_spec_load(path, NULL, 0, &spec, &err) != 0)
        fail_msg("%s: %s: %s", path, err.field, err.text);
    free(path);
    return spec;
}

static const struct ht_device_info *devices(size_t *n)
{
    static struct ht_device_info d[3];
    /* A Fermi-like GPU, a CPU like PoCL's, and a small embedded GPU. */
    d[0] = fake_device("fermi", 1024, 1024, 1024, 64, 16, 48 * 1024);
    d[1] = fake_device("cpu", 4096, 4096, 4096, 4096, 2, 2 * 1024 * 1024);
    d[2] = fake_device("small", 256, 256, 256, 8, 4, 16 * 1024);
    *n = 3;
    return d;
}

static void test_examples(void **state)
{
    static const char *const names[] = {"matmul", "conv1d", "fermi"};
    static const enum ht_eq3 modes[] = {HT_EQ3_PRODUCT, HT_EQ3_SUM, HT_EQ3_OFF};
    size_t ndev;
    const struct ht_device_info *dev = devices(&ndev);
    (void)state;

    for (size_t e = 0; e < 3; e++) {
        struct ht_spec *spec = load_example(names[e]);
        for (size_t d = 0; d < ndev; d++)
            for (size_t m = 0; m < 3; m++)
                compare(&spec->space, &dev[d], modes[m], names[e]);
        ht_spec_free(spec);
    }
    /* The paper's Table 2 for matmul on the Fermi-like device: TS = 1 .. 32. */
    {
        struct ht_spec *spec = load_example("matmul");
        assert_int_equal(compare(&spec->space, &dev[0], HT_EQ3_PRODUCT, "matmul"), 6);
        assert_int_equal(compare(&spec->space, &dev[1], HT_EQ3_PRODUCT, "matmul"), 7);
        ht_spec_free(spec);
    }
}

/* A def built by hand (freed with ht_space_def_destroy). */
static void make_def(struct ht_space_def *def, size_t nparams, const char *const *pnames,
                     const char *const (*ranges)[3], unsigned ndims, const char *const *global,
                     const char *const *local, const char *local_mem, size_t ncons,
                     const char *const *cons)
{
    const char **names;
    size_t n = 1 + nparams + HT_DEVICE_NVARS, k = 0;
    struct ht_error err;

    ht_error_clear(&err);
    memset(def, 0, sizeof *def);
    def->nsizes = 1;
    def->size_names = calloc(1, sizeof *def->size_names);
    def->size_values = calloc(1, sizeof *def->size_values);
    def->size_names[0] = ht__strdup("N");
    def->size_values[0] = 48;
    def->nparams = nparams;
    def->params = calloc(nparams + 1, sizeof *def->params);
    names = calloc(n, sizeof *names);
    names[k++] = def->size_names[0];
    for (size_t i = 0; i < nparams; i++) {
        def->params[i].name = ht__strdup(pnames[i]);
        names[k++] = def->params[i].name;
    }
    for (size_t v = 0; v < HT_DEVICE_NVARS; v++)
        names[k++] = ht_device_var_names[v];
    def->names.count = n;
    def->names.names = names;
#define COMPILE(src, dst)                                                                  \
    do {                                                                                   \
        if (ht_expr_compile((src), &def->names, (dst), &err) != 0)                         \
            fail_msg("'%s': %s", (src), err.text);                                         \
    } while (0)
    for (size_t i = 0; i < nparams; i++) {
        struct ht_param *p = &def->params[i];
        p->kind = HT_PARAM_RANGE;
        COMPILE(ranges[i][0], &p->lo);
        COMPILE(ranges[i][1], &p->hi);
        if (ranges[i][2] && !strcmp(ranges[i][2], "pow2"))
            p->pow2 = 1;
        else if (ranges[i][2])
            COMPILE(ranges[i][2], &p->step);
    }
    def->ndims = ndims;
    for (unsigned d = 0; d < ndims; d++) {
        COMPILE(global[d], &def->global[d]);
        if (local)
            COMPILE(local[d], &def->local[d]);
    }
    if (local_mem)
        COMPILE(local_mem, &def->local_mem);
    def->nconstraints = ncons;
    def->constraints = calloc(ncons + 1, sizeof *def->constraints);
    for (size_t i = 0; i < ncons; i++) {
        def->constraints[i].origin = ht__asprintf("constraints[%zu]", i);
        COMPILE(cons[i], &def->constraints[i].expr);
    }
#undef COMPILE
}

static void test_small_specs(void **state)
{
    static const char *const pn[] = {"A", "B", "C"};
    static const char *const r1[][3] = {{"1", "16", NULL}, {"0", "20", "4"}, {"1", "64", "pow2"}};
    static const char *const g2[] = {"N", "B + 4"};
    static const char *const l2[] = {"A", "C"};
    static const char *const cons[] = {"A * C <= 64 || B == 0", "(B / A) % 2 == 0",
                                       "max(A, C) - min(A, C) != 3", "ceil_div(N, A) > 4",
                                       "log2(B + 1) <= 3 ? 1 : is_pow2(C)"};
    static const char *const lm = "(A + B * C) * 4";
    size_t ndev;
    const struct ht_device_info *dev = devices(&ndev);
    struct ht_space_def def;
    uint64_t total = 0;
    (void)state;

    /* Each constraint alone, then all together, with and without local memory. */
    for (size_t k = 0; k <= 5; k++) {
        make_def(&def, 3, pn, r1, 2, g2, l2, k % 2 ? lm : NULL, k < 5 ? 1 : 5,
                 k < 5 ? cons + k : cons);
        for (size_t d = 0; d < ndev; d++)
            total += compare(&def, &dev[d], d == 1 ? HT_EQ3_SUM : HT_EQ3_PRODUCT, "small");
        ht_space_def_destroy(&def);
    }
    /* An open local size: no Eq. 1-3. */
    make_def(&def, 3, pn, r1, 1, g2, NULL, NULL, 2, cons);
    total += compare(&def, &dev[0], HT_EQ3_PRODUCT, "open");
    ht_space_def_destroy(&def);
    assert_true(total > 0);
}

static void test_empty_space(void **state)
{
    static const char *const pn[] = {"WG"};
    static const char *const r1[][3] = {{"1", "64", NULL}};
    static const char *const g[] = {"N"};
    static const char *const l[] = {"WG"};
    static const char *const cons[] = {"WG > 2", "WG % 5 == 0"};
    size_t ndev;
    const struct ht_device_info *dev = devices(&ndev);
    struct ht_space_def def;
    (void)state;

    make_def(&def, 1, pn, r1, 1, g, l, NULL, 2, cons);
    /* N = 48: divisors 1 2 3 4 6 8 12 16 24 48; > 2 and a multiple of 5: none. */
    assert_int_equal(compare(&def, &dev[0], HT_EQ3_OFF, "empty"), 0);
    ht_space_def_destroy(&def);
}

static void test_model_file(void **state)
{
    struct ht_spec *spec = load_example("matmul");
    char path[] = "/tmp/hetune-test-mzn-XXXXXX";
    int fd = mkstemp(path);
    char *text = NULL;
    size_t len = 0;
    struct ht_error err;
    (void)state;

    ht_error_clear(&err);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(ht_space_write_minizinc(&spec->space, HT_EQ3_SUM, 0, path, &err), 0);
    assert_int_equal(ht__read_file(path, &text, &len, &err), 0);
    /* The paper's device data names, Eq. 1-3 and the application constraint. */
    assert_non_null(strstr(text, "int: max_total_wg_size;"));
    assert_non_null(strstr(text, "int: num_compute_units;"));
    assert_non_null(strstr(text, "<= max_total_wg_size;"));
    assert_non_null(strstr(text, ") mod ("));
    assert_non_null(strstr(text, ") + ("));
    assert_non_null(strstr(text, ">= num_compute_units;"));
    assert_non_null(strstr(text, "WG0 == WG1"));
    assert_non_null(strstr(text, "solve satisfy;"));
    free(text);
    assert_int_equal(ht_space_write_minizinc(&spec->space, HT_EQ3_OFF, 1, path, &err), 0);
    assert_int_equal(ht__read_file(path, &text, &len, &err), 0);
    assert_null(strstr(text, "num_compute_units;\n\nsolve"));
    assert_null(strstr(text, "application constraints"));
    free(text);
    unlink(path);
    ht_spec_free(spec);
}

static void test_not_found(void **state)
{
    struct ht_spec *spec = load_example("conv1d");
    size_t ndev;
    const struct ht_device_info *dev = devices(&ndev);
    struct ht_space *s = NULL;
    struct ht_space_counts c;
    struct ht_error err;
    char *path = ht__strdup(getenv("PATH"));
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(ht_space_create(&spec->space, &dev[0], HT_EQ3_PRODUCT, &s, &err), 0);
    setenv("PATH", "/nonexistent", 1);
    assert_int_equal(ht_space_backend_find("minizinc")->solve(s, &c, NULL, NULL, &err),
                     HT_ESOLVER);
    setenv("PATH", path, 1);
    assert_non_null(strstr(err.text, "minizinc not found"));
    assert_non_null(strstr(err.text, "--solver native"));
    free(path);
    ht_space_free(s);
    ht_spec_free(spec);
}

static int have_minizinc(void)
{
    const char *path = getenv("PATH");
    char *copy = ht__strdup(path ? path : ""), *save = NULL;
    int found = 0;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        char *cand = ht__path_join(dir, "minizinc");
        found = cand && access(cand, X_OK) == 0;
        free(cand);
    }
    free(copy);
    return found;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_file),
        cmocka_unit_test(test_not_found),
        cmocka_unit_test(test_empty_space),
        cmocka_unit_test(test_small_specs),
        cmocka_unit_test(test_examples),
    };
    if (!have_minizinc()) {
        fprintf(stderr, "skipped: minizinc is not on PATH\n");
        return 77;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
