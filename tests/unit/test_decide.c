/* Tests of the one split-or-alone rule (ht__decide_split, src/coexec/decide.c), which
 * `hetune split`, `hetune run`, the runtime and each node of a split over MPI all decide
 * with: real co-executions of the stencil fixture on PoCL's pthread and basic devices (one
 * device twice where only one is found), fed made-up times alone so that every verdict is
 * known in advance. A split of 960 work-items measures microseconds: times alone of
 * seconds make it kept, of nanoseconds make it measured slower. Exits 77 (skipped) when no
 * OpenCL platform is found. */
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
#include "coexec/coexec-internal.h" /* ht__coexec_create, ht__decide_split: the handle's own steps */

static struct ht_platform *plat;
static const struct ht_device_info *devA, *devB;
static struct ht_spec *spec;
static int64_t c0[1], c1[1];

/* Device 0 (WG=16) 1.3 s alone, device 1 (WG=32) 2.3 s: the bus plan predicts the split
 * at 0.967 s (test_coexec's test_factors_and_estimate), faster than device 0 alone by 34%. */
static const struct ht_coexec_alone seconds[2] = {{1.0, 0.1, 0.1, 1.3}, {2.0, 0.1, 0.1, 2.3}};

static struct ht_coexec *make(size_t n, const char *sched, double margin)
{
    struct ht_coexec_device devs[2] = {{devA, c0, 1.0, 0}, {devB, c1, 2.0, 0}};
    struct ht_coexec_opts opts;
    struct ht_coexec *cx = NULL;
    struct ht_error err;

    ht__coexec_opts_init(&opts);
    opts.scheduler = sched;
    opts.margin = margin;
    ht_error_clear(&err);
    if (ht__coexec_create(spec, devs, n, &opts, &cx, &err) != HT_OK)
        fail_msg("ht__coexec_create: %s", err.text);
    return cx;
}

/* ht__decide_split on a fresh co-execution; *v filled, its run destroyed. */
static int decide(size_t n, const char *sched, double margin, const struct ht_coexec_alone *alone,
                  struct ht__rule rule, struct ht__verdict *v, struct ht_error *err)
{
    struct ht_coexec *cx = make(n, sched, margin);
    int rc;

    ht_error_clear(err);
    rc = ht__decide_split(cx, alone, n, &rule, v, err);
    if (v->measured) {
        assert_int_equal(v->res.ndevices, n);
        assert_true(v->res.wall_s > 0);
    }
    ht_coexec_result_destroy(&v->res);
    ht__coexec_free(cx);
    return rc;
}

/* Predicted to pay: the bus plan runs once and is kept at or under the fastest alone. */
static void test_worth_it(void **state)
{
    struct ht_coexec_alone ns[2];
    struct ht__verdict v;
    struct ht_error err;
    (void)state;

    assert_int_equal(decide(2, "static", 0.1, seconds, (struct ht__rule){0, 0, 0}, &v, &err),
                     HT_OK);
    assert_int_equal(v.has_est, 1);
    assert_int_equal(v.est.worth_it, 1);
    assert_int_equal(v.fastest, 0);
    assert_int_equal(v.measured, 1);
    assert_int_equal(v.bus_plan, 1);
    assert_true(v.paper_s[0] > 0 && v.paper_s[1] > 0); /* Algorithm 1's, kept apart */
    assert_true(fabs(v.keep_s - 1.3) < 1e-12);
    assert_int_equal(v.keep, 1);
    /* The same times in nanoseconds: predicted to pay, measured slower, not kept. */
    for (size_t i = 0; i < 2; i++) {
        ns[i] = seconds[i];
        ns[i].kernel_s *= 1e-9;
        ns[i].write_s *= 1e-9;
        ns[i].read_s *= 1e-9;
        ns[i].wall_s *= 1e-9;
    }
    assert_int_equal(decide(2, "static", 0.1, ns, (struct ht__rule){0, 0, 0}, &v, &err), HT_OK);
    assert_int_equal(v.est.worth_it, 1);
    assert_int_equal(v.measured, 1);
    assert_true(v.res.wall_s > v.keep_s);
    assert_int_equal(v.keep, 0);
    /* Forced, it is kept whatever it measured. */
    assert_int_equal(decide(2, "static", 0.1, ns, (struct ht__rule){1, 0, 0}, &v, &err), HT_OK);
    assert_int_equal(v.measured, 1);
    assert_int_equal(v.keep, 1);
}

/* Predicted faster within the margin (check): measured, kept at or under alone / (1 +
 * margin); predicted slower than alone: nothing runs unless forced. */
static void test_margin(void **state)
{
    struct ht__verdict v;
    struct ht_error err;
    (void)state;

    assert_int_equal(decide(2, "static", 0.5, seconds, (struct ht__rule){0, 0, 0}, &v, &err),
                     HT_OK);
    assert_int_equal(v.est.worth_it, 0);
    assert_int_equal(v.est.check, 1);
    assert_int_equal(v.measured, 1);
    assert_true(fabs(v.keep_s - 1.3 / 1.5) < 1e-12);
    assert_int_equal(v.keep, 1);
    /* A margin of 10^9: kept only under 1.3 ns, which no run is, though faster than alone. */
    assert_int_equal(decide(2, "static", 1e9, seconds, (struct ht__rule){0, 0, 0}, &v, &err),
                     HT_OK);
    assert_int_equal(v.est.check, 1);
    assert_int_equal(v.measured, 1);
    assert_true(v.res.wall_s > v.keep_s && v.res.wall_s < v.est.alone_s);
    assert_int_equal(v.keep, 0);
    /* Device 1's fixed cost alone (1.5 s) above device 0's whole time (0.9 s): no split is
     * faster than device 0 alone, which runs; nothing is measured. */
    {
        struct ht_coexec_alone fast0[2] = {{0.6, 0.1, 0.1, 0.9}, {0.5, 0.1, 0.1, 2.0}};
        assert_int_equal(decide(2, "static", 0.1, fast0, (struct ht__rule){0, 0, 0}, &v, &err),
                         HT_OK);
        assert_int_equal(v.has_est, 1);
        assert_int_equal(v.est.worth_it, 0);
        assert_int_equal(v.est.check, 0);
        assert_int_equal(v.fastest, 0);
        assert_int_equal(v.measured, 0);
        assert_int_equal(v.bus_plan, 0);
        assert_int_equal(v.keep, 0);
        assert_int_equal(decide(2, "static", 0.1, fast0, (struct ht__rule){1, 0, 0}, &v, &err),
                         HT_OK);
        assert_int_equal(v.measured, 1);
        assert_int_equal(v.bus_plan, 1);
        assert_int_equal(v.keep, 1);
    }
}

/* The bus plan only replaces a static plan, and not with the paper's asked for. */
static void test_plans(void **state)
{
    struct ht__verdict v;
    struct ht_error err;
    (void)state;

    assert_int_equal(decide(2, "static", 0.1, seconds, (struct ht__rule){0, 1, 0}, &v, &err),
                     HT_OK);
    assert_int_equal(v.measured, 1);
    assert_int_equal(v.bus_plan, 0);
    assert_true(v.paper_s[0] == -1 && v.paper_s[1] == -1);
    assert_int_equal(decide(2, "dynamic", 0.1, seconds, (struct ht__rule){0, 0, 0}, &v, &err),
                     HT_OK);
    assert_int_equal(v.measured, 1);
    assert_int_equal(v.bus_plan, 0);
    assert_int_equal(v.keep, 1);
}

/* One device: nothing to predict, run and kept. An estimate that fails: an error for the
 * runtime's rule, a split judged against the fastest alone for `hetune split`'s. */
static void test_one_device_and_unpredicted(void **state)
{
    struct ht_coexec_alone broken[2] = {{1.0, 0.1, 0.1, 1.3}, {2.0, 0.1, 0.1, INFINITY}};
    struct ht__verdict v;
    struct ht_error err;
    (void)state;

    assert_int_equal(decide(1, "static", 0.1, seconds, (struct ht__rule){0, 0, 0}, &v, &err),
                     HT_OK);
    assert_int_equal(v.has_est, 0);
    assert_int_equal(v.measured, 1);
    assert_int_equal(v.keep, 1);
    assert_int_equal(decide(2, "static", 0.1, broken, (struct ht__rule){0, 0, 0}, &v, &err),
                     HT_EINVAL);
    assert_non_null(strstr(err.text, "no time alone"));
    assert_int_equal(v.measured, 0);
    assert_int_equal(decide(2, "static", 0.1, broken, (struct ht__rule){0, 0, 1}, &v, &err),
                     HT_OK);
    assert_int_equal(err.code, 0);
    assert_int_equal(v.has_est, 0);
    assert_int_equal(v.fastest, 0);
    assert_true(fabs(v.keep_s - 1.3) < 1e-12);
    assert_int_equal(v.measured, 1);
    assert_int_equal(v.bus_plan, 0);
    assert_int_equal(v.keep, 1);
}

/* ht__decide_measured's answer, checked against the door's one entry that asks it
 * (ht__decide with in->measured, as --refine does): the same device, or SIZE_MAX. */
static size_t measured(const struct ht__measured *m)
{
    struct ht__decision d;
    size_t direct = ht__decide_measured(m);

    memset(&d, 0xff, sizeof d); /* filled by ht__decide, whatever was there */
    assert_int_equal(ht__decide(&(struct ht__decide_in){.measured = m}, &d, NULL), HT_OK);
    assert_int_equal(d.split, direct == SIZE_MAX);
    assert_true(d.cx == NULL && d.idx == NULL && d.ncx == 0 && !d.has_res && !d.has_plan);
    if (direct != SIZE_MAX)
        assert_true(d.fastest == direct);
    ht__decision_destroy(&d);
    return direct;
}

/* The rule's comparison, as ht__decide_split and --refine (ht__workflow_refine_alone) put
 * it: kept at most keep_s, the fastest alone above it, the one device that holds all the
 * work otherwise, always when forced. */
static void test_measured(void **state)
{
    struct ht__measured m = {.forced = 0, .split_s = 1.0, .keep_s = 1.0, .fastest = 1,
                             .only = SIZE_MAX};
    (void)state;

    assert_true(measured(&m) == SIZE_MAX);   /* equal: kept */
    m.split_s = nextafter(1.0, 2.0);
    assert_int_equal(measured(&m), 1);       /* longer: the fastest alone */
    m.forced = 1;
    assert_true(measured(&m) == SIZE_MAX);
    m.forced = 0;
    m.split_s = NAN;
    assert_int_equal(measured(&m), 1);
    m.split_s = 0.5;
    m.only = 0;                                         /* faster, but all on device 0 */
    assert_int_equal(measured(&m), 0);
    m.keep_s = INFINITY;                                /* no device alone has a time */
    m.split_s = 1e300;
    assert_int_equal(measured(&m), 0);
    m.only = SIZE_MAX;
    assert_true(measured(&m) == SIZE_MAX);
}

/* The runtime's return to its split after the watch's fallback (ht__decide with
 * in->program->again): the split over every device again, unmeasured (nothing run, no
 * lock taken), planned by the bus plan from the runs alone the devices keep from the
 * decision that split, the plan ht__decide_split gave the split it kept; devices without
 * runs alone get the plan an unmeasured split makes (here, no link stored: the paper's,
 * from the tuned times). The runs alone (device 1 the faster) and the tuned times (device
 * 0 the faster) give plans that differ, so either check can fail. */
static void test_again(void **state)
{
    static const struct ht_coexec_alone ran1[2] = {{1.0, 0.1, 0.1, 1.3}, {0.4, 0.05, 0.05, 0.6}};
    struct ht_workflow_device wd[2];
    struct ht__decision prev, d;
    struct ht_exec_opts eo;
    struct ht_coexec *bus = make(2, "static", 0.1), *tuned = make(2, "static", 0.1);
    const struct ht_split_plan *want[2];
    struct ht_error err;
    int differ = 0;
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(ht__coexec_plan_bus(bus, ran1, &err), HT_OK);
    want[1] = ht__coexec_plan(bus);
    want[0] = ht__coexec_plan(tuned);
    for (size_t k = 0; k < 2; k++)
        differ |= want[0]->slices[k].adjusted_factor != want[1]->slices[k].adjusted_factor;
    assert_true(differ);
    memset(wd, 0, sizeof wd);
    memset(&prev, 0, sizeof prev);
    ht_exec_opts_init(&eo);
    for (size_t i = 0; i < 2; i++) {
        wd[i].dev = i ? devB : devA;
        memcpy(wd[i].config, i ? c1 : c0, sizeof c0);
        wd[i].tuned_s = i ? 2.0 : 1.0;
    }
    for (int ran = 1; ran >= 0; ran--) {
        for (size_t i = 0; i < 2; i++)
            wd[i].alone = ran ? ran1[i] : (struct ht_coexec_alone){0, 0, 0, 0};
        ht_error_clear(&err);
        if (ht__decide(&(struct ht__decide_in){
                           .spec = spec, .devs = wd, .n = 2, .mode = HT__DECIDE_AUTO,
                           .program = &(struct ht__program){
                               .prev = &prev, .exec = &eo, .memory = HT_COEXEC_MEM_OWN,
                               .only = SIZE_MAX, .again = 1}},
                       &d, &err) != HT_OK)
            fail_msg("ht__decide: %s", err.text);
        assert_int_equal(d.ncx, 2);
        assert_int_equal(d.split, 1);
        assert_int_equal(d.has_res, 0);
        assert_true(d.measured_split_s == -1);
        assert_int_equal(d.has_plan, 1);
        for (size_t k = 0; k < 2; k++)
            assert_true(d.plan.slices[k].adjusted_factor == want[ran]->slices[k].adjusted_factor);
        if (ran)
            assert_non_null(strstr(d.text, "the bus plan from their runs alone"));
        ht__decision_destroy(&d);
    }
    ht__coexec_free(bus);
    ht__coexec_free(tuned);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worth_it),
        cmocka_unit_test(test_margin),
        cmocka_unit_test(test_plans),
        cmocka_unit_test(test_one_device_and_unpredicted),
        cmocka_unit_test(test_measured),
        cmocka_unit_test(test_again),
    };
    const char *src = getenv("HETUNE_SOURCE_DIR");
    const char *assign[2] = {"WG=16", "WG=32"};
    char path[4096];
    struct ht_error err;
    int rc;

    setenv("POCL_DEVICES", "pthread basic", 0);
    ht_error_clear(&err);
    if (ht_platform_discover(&plat, &err) != HT_OK) {
        fprintf(stderr, "skipped: %s\n", err.text);
        return 77;
    }
    devA = &plat->devices[0];
    devB = plat->count > 1 ? &plat->devices[1] : &plat->devices[0];
    snprintf(path, sizeof path, "%s/tests/fixtures/split/stencil.json", src ? src : ".");
    if (ht_spec_load(path, NULL, 0, &spec, &err) != HT_OK ||
        ht_spec_config_from_assignments(spec, &assign[0], 1, c0, &err) != HT_OK ||
        ht_spec_config_from_assignments(spec, &assign[1], 1, c1, &err) != HT_OK) {
        fprintf(stderr, "%s: %s\n", path, err.text);
        return 1;
    }
    rc = cmocka_run_group_tests_name("decide", tests, NULL, NULL);
    ht_spec_free(spec);
    ht_platform_free(plat);
    return rc;
}
