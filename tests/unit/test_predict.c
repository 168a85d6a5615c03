/* Unit tests of predictions at sizes never measured (predict.h), without OpenCL: the fit
 * t = a + b * work with a, b >= 0 on exact and constrained data, and the choice of the
 * best configuration from synthetic store contents (a spec loaded from a file written
 * here, a device filled by hand, evaluations put at three sizes): the configuration whose
 * model is least at the new size wins although another was faster at every measured size,
 * a configuration invalid at the new size or measured at one size only is never chosen,
 * unverified and other devices' evaluations are not used, fewer than two sizes is
 * HT_ENOTFOUND with what to tune, and ht_workflow_best predicts, or not with no_predict. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune/predict.h"
#include "hetune/workflow.h"

/* ---- the fit ------------------------------------------------------------------------- */

static void test_fit_exact(void **state)
{
    const double x[] = {1000, 2000, 4000, 8000};
    double t[4], a, b;
    (void)state;
    for (int i = 0; i < 4; i++)
        t[i] = 2e-4 + 3e-8 * x[i];
    assert_int_equal(ht_predict_fit(x, t, 4, &a, &b), HT_OK);
    assert_true(fabs(a - 2e-4) < 1e-12 && fabs(b - 3e-8) < 1e-15);
    /* Two points: the line through them. */
    assert_int_equal(ht_predict_fit(x + 1, t + 1, 2, &a, &b), HT_OK);
    assert_true(fabs(a - 2e-4) < 1e-12 && fabs(b - 3e-8) < 1e-15);
}

static void test_fit_constrained(void **state)
{
    /* The free fit has a negative intercept: the model goes through the origin. */
    const double x[] = {1, 2, 3};
    const double up[] = {1, 3, 5}, down[] = {3, 2, 1};
    double a, b;
    (void)state;
    assert_int_equal(ht_predict_fit(x, up, 3, &a, &b), HT_OK);
    assert_true(a == 0 && b > 1 && b < 2);
    /* Time falling with work (noise): a constant, never a negative slope. */
    assert_int_equal(ht_predict_fit(x, down, 3, &a, &b), HT_OK);
    assert_true(b == 0 && a > 1 && a < 3);
    /* One point, or one work: a constant or a line through the origin, exact there. */
    assert_int_equal(ht_predict_fit(x, up, 1, &a, &b), HT_OK);
    assert_true(fabs(a + b * x[0] - up[0]) < 1e-12 && a >= 0 && b >= 0);
}

static void test_fit_bad(void **state)
{
    const double x[] = {1, 2}, t[] = {1, 0}, tn[] = {1, NAN};
    double a, b;
    (void)state;
    assert_int_equal(ht_predict_fit(x, t, 0, &a, &b), HT_EINVAL);
    assert_int_equal(ht_predict_fit(x, t, 2, &a, &b), HT_EINVAL);
    assert_int_equal(ht_predict_fit(x, tn, 2, &a, &b), HT_EINVAL);
}

/* ---- the choice ---------------------------------------------------------------------- */

static char dir[256], spec_path[300];

static int setup(void **state)
{
    const char *base = getenv("TMPDIR");
    FILE *f;
    char path[300];
    (void)state;
    snprintf(dir, sizeof dir, "%s/test_predict.XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/k.cl", dir);
    f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("__kernel void k(__global float *o) { o[get_global_id(0)] = 1.0f; }\n", f);
    fclose(f);
    snprintf(spec_path, sizeof spec_path, "%s/spec.json", dir);
    f = fopen(spec_path, "w");
    if (!f)
        return -1;
    fputs("{ \"name\": \"t\", \"kernel\": { \"file\": \"k.cl\", \"name\": \"k\" },\n"
          "  \"sizes\": { \"N\": 1000 },\n"
          "  \"ndrange\": { \"global\": [\"N\"], \"local\": [\"WG\"] },\n"
          "  \"params\": { \"WG\": { \"values\": [1, 2, 4, 8, 16] } },\n"
          "  \"args\": [ { \"name\": \"o\", \"type\": \"float\", \"shape\": [\"N\"],\n"
          "              \"access\": \"write\", \"index\": [\"gx\"] } ],\n"
          "  \"verify\": { \"reference\": { \"WG\": 1 } } }\n", f);
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    char path[300];
    (void)state;
    snprintf(path, sizeof path, "%s/k.cl", dir);
    unlink(path);
    unlink(spec_path);
    rmdir(dir);
    return 0;
}

static void fill_device(struct ht_device_info *d, const char *name)
{
    memset(d, 0, sizeof *d);
    snprintf(d->platform, sizeof d->platform, "Portable Computing Language");
    snprintf(d->name, sizeof d->name, "%s", name);
    snprintf(d->type, sizeof d->type, "CPU");
    d->is_cpu = 1;
    d->compute_units = 1;
    d->max_work_group_size = 4096;
    d->max_work_item_dims = 3;
    d->max_work_item_sizes[0] = d->max_work_item_sizes[1] = d->max_work_item_sizes[2] = 4096;
    d->local_mem_size = 1 << 20;
    d->global_mem_size = UINT64_C(1) << 32;
    d->max_mem_alloc_size = UINT64_C(1) << 30;
}

static struct ht_spec *load(int64_t n)
{
    struct ht_size_override ov = {"N", n};
    struct ht_spec *spec = NULL;
    struct ht_error err;
    ht_error_clear(&err);
    if (ht_spec_load(spec_path, &ov, 1, &spec, &err) != HT_OK)
        fail_msg("spec: %s", err.text);
    return spec;
}

/* Stores WG=wg of the kernel at size n on dev, t seconds, verified (1, -1 or 0). */
static void put(struct ht_store *s, const struct ht_device_info *dev, int64_t n, int64_t wg,
                double t, int verified)
{
    struct ht_spec *spec = load(n);
    struct ht_stored_eval *ev = malloc(sizeof *ev);
    const char *names[] = {"WG"};
    int64_t kernel_id;
    struct ht_error err;
    ht_error_clear(&err);
    assert_non_null(ev);
    ht_stored_eval_init(ev);
    assert_int_equal(ht_store_kernel_id(s, spec, &kernel_id, &err), HT_OK);
    assert_int_equal(ht_store_problem_id(s, kernel_id, spec, &ev->problem_id, &err), HT_OK);
    assert_int_equal(ht_store_device_id(s, dev, &ev->device_id, &err), HT_OK);
    ev->nvalues = 1;
    ev->values[0] = wg;
    ht_store_config_text(names, &wg, 1, ev->config, sizeof ev->config);
    snprintf(ev->status, sizeof ev->status, "%s", HT_STORE_OK);
    ev->seconds = ev->min_seconds = t;
    ev->verified = verified;
    assert_int_equal(ht_store_put_eval(s, ev, NULL, &err), HT_OK);
    free(ev);
    ht_spec_free(spec);
}

/* Three sizes: WG=2 (t = 4e-8 N) is fastest at each, WG=1 (t = 1e-3 + 1e-8 N) wins from
 * N = 33334 on; WG=4 (1 us everywhere) does not divide the new N; WG=8 is fast but measured
 * at one size; WG=16 only unverified; another device's WG=16 is the fastest of all. */
static struct ht_store *fill(struct ht_device_info *dev, struct ht_device_info *other)
{
    static const int64_t sizes[] = {1000, 2000, 4000};
    struct ht_store *s = NULL;
    struct ht_error err;
    ht_error_clear(&err);
    fill_device(dev, "cpu one");
    fill_device(other, "cpu two");
    assert_int_equal(ht_store_open(":memory:", &s, &err), HT_OK);
    for (int i = 0; i < 3; i++) {
        double n = (double)sizes[i];
        put(s, dev, sizes[i], 1, 1e-3 + 1e-8 * n, 1);
        put(s, dev, sizes[i], 2, 4e-8 * n, 1);
        put(s, dev, sizes[i], 4, 1e-6, 1);
        put(s, dev, sizes[i], 16, 1e-9 * n, -1);
        put(s, other, sizes[i], 16, 1e-10 * n, 1);
    }
    put(s, dev, 4000, 8, 1e-7, 1);
    return s;
}

static void test_choice(void **state)
{
    struct ht_device_info dev, other;
    struct ht_store *s;
    struct ht_spec *spec;
    struct ht_predict_result r;
    struct ht_predict_opts o;
    struct ht_error err;
    (void)state;
    s = fill(&dev, &other);
    ht_predict_opts_init(&o);
    ht_error_clear(&err);

    /* Large and not a multiple of 4: WG=1 by its model, although slower where measured. */
    spec = load(1000002);
    assert_int_equal(ht_predict_best(spec, s, &dev, &o, &r, &err), HT_OK);
    assert_string_equal(r.config_text, "WG=1");
    assert_int_equal(r.config[0], 1);
    assert_int_equal(r.nsizes, 3);
    assert_int_equal(r.nfitted, 2); /* WG=1 and WG=2: 4 invalid, 8 one size, 16 unverified */
    assert_true(fabs(r.predicted_s - (1e-3 + 1e-8 * 1000002)) < 1e-9);
    assert_true(fabs(r.work - 1000002) < 0.5);
    assert_string_equal(r.sizes[0], "N=1000");
    ht_spec_free(spec);

    /* Small: WG=2; a multiple of 4 lets WG=4 win. */
    spec = load(3002);
    assert_int_equal(ht_predict_best(spec, s, &dev, &o, &r, &err), HT_OK);
    assert_string_equal(r.config_text, "WG=2");
    assert_true(fabs(r.predicted_s - 4e-8 * 3002) < 1e-12);
    ht_spec_free(spec);
    spec = load(1000000);
    assert_int_equal(ht_predict_best(spec, s, &dev, &o, &r, &err), HT_OK);
    assert_string_equal(r.config_text, "WG=4");
    assert_int_equal(r.nfitted, 3);
    ht_spec_free(spec);

    /* Unverified evaluations compete when asked: WG=16 is fitted too. */
    o.unverified = 1;
    spec = load(1000000);
    assert_int_equal(ht_predict_best(spec, s, &dev, &o, &r, &err), HT_OK);
    assert_string_equal(r.config_text, "WG=4"); /* 1 us is still less */
    assert_int_equal(r.nfitted, 4);              /* WG=16 fitted too */
    ht_spec_free(spec);
    spec = load(1000002);
    assert_int_equal(ht_predict_best(spec, s, &dev, &o, &r, &err), HT_OK);
    assert_string_equal(r.config_text, "WG=1"); /* 16 does not divide it either */
    ht_spec_free(spec);
    ht_store_close(s);
}

static void test_too_few_sizes(void **state)
{
    struct ht_device_info dev, other;
    struct ht_store *s = NULL;
    struct ht_spec *spec;
    struct ht_predict_result r;
    struct ht_error err;
    (void)state;
    fill_device(&dev, "cpu one");
    fill_device(&other, "cpu two");
    ht_error_clear(&err);
    assert_int_equal(ht_store_open(":memory:", &s, &err), HT_OK);
    put(s, &dev, 1000, 2, 1e-5, 1);
    put(s, &dev, 2000, 2, 2e-5, 0);    /* failed verification: not a size */
    put(s, &other, 4000, 2, 4e-5, 1);  /* another device: not a size of dev */
    spec = load(8000);
    put(s, &dev, 8000, 2, 8e-5, 1);    /* the new size itself is never used */
    assert_int_equal(ht_predict_best(spec, s, &dev, NULL, &r, &err), HT_ENOTFOUND);
    assert_non_null(strstr(err.text, "tune at least two sizes of 't' first: hetune tune"));
    assert_non_null(strstr(err.text, "--size N=..."));
    assert_non_null(strstr(err.text, "1 other size of it"));
    assert_int_equal(r.nsizes, 1);
    ht_spec_free(spec);
    ht_store_close(s);
}

static void test_workflow_best(void **state)
{
    struct ht_device_info dev, other;
    struct ht_store *s;
    struct ht_spec *spec;
    struct ht_workflow_best_opts bo;
    struct ht_workflow_device d;
    struct ht_tune_opts topts;
    struct ht_error err;
    int64_t kernel_id, problem_id;
    (void)state;
    s = fill(&dev, &other);
    spec = load(1000002);
    ht_error_clear(&err);
    assert_int_equal(ht_store_kernel_id(s, spec, &kernel_id, &err), HT_OK);
    assert_int_equal(ht_store_problem_id(s, kernel_id, spec, &problem_id, &err), HT_OK);
    ht_tune_opts_init(&topts);
    memset(&bo, 0, sizeof bo);
    bo.topts = &topts;
    memset(&d, 0, sizeof d);
    d.dev = &dev;
    assert_int_equal(ht_workflow_best(spec, s, problem_id, &bo, &d, &err), HT_OK);
    assert_true(d.predicted && !d.tuned_now);
    assert_int_equal(d.predicted_from, 3);
    assert_string_equal(d.config_text, "WG=1");
    assert_int_equal(d.config[0], 1);

    /* --no-predict: nothing at these sizes, no tuning allowed: not found, saying so. */
    bo.no_predict = 1;
    memset(&d, 0, sizeof d);
    d.dev = &dev;
    ht_error_clear(&err);
    assert_int_equal(ht_workflow_best(spec, s, problem_id, &bo, &d, &err), HT_ENOTFOUND);
    assert_false(d.predicted);
    assert_non_null(strstr(err.text, "no tuned configuration"));
    ht_spec_free(spec);
    ht_store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_exact),
        cmocka_unit_test(test_fit_constrained),
        cmocka_unit_test(test_fit_bad),
        cmocka_unit_test(test_choice),
        cmocka_unit_test(test_too_few_sizes),
        cmocka_unit_test(test_workflow_best),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
