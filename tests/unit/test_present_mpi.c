/* What `mpirun -n K hetune tune` and `split` show, from results made here (present.h,
 * mpi.h): ht_present_mpi_tune and ht_present_mpi_split, text, JSON and exit status, on
 * the cases the CLI tests cannot make on demand (a model without a best, a
 * stopped run, a rank that left or died, a failed or skipped verification, a node not
 * used or left out, a refinement that ran an earlier round again), and the empty result
 * of a rank other than 0. Pure: no OpenCL, no MPI. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hetune.h"

static struct ht_spec *spec;

static int setup(void **state)
{
    char path[4096];
    const char *src = getenv("HETUNE_SOURCE_DIR");
    struct ht_error err;

    (void)state;
    ht_error_clear(&err);
    snprintf(path, sizeof path, "%s/tests/fixtures/mpi/spec.json", src ? src : ".");
    return ht_spec_load(path, NULL, 0, &spec, &err) == HT_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ht_spec_free(spec);
    return 0;
}

/* The text's line that starts with prefix, NULL when none. */
static const char *line_of(const char *text, const char *prefix)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, prefix, strlen(prefix)))
            return p;
    return NULL;
}

static void assert_line(const char *text, const char *line)
{
    const char *p = line_of(text, line);

    if (!p || (p[strlen(line)] != '\n' && p[strlen(line)] != '\0'))
        fail_msg("no line '%s' in:\n%.3000s", line, text);
}

/* A tune of two models over three ranks: model 0 has a stored best, model 1 none; rank 1
 * died with a configuration in flight, rank 2 left. */
struct tune_case {
    struct ht_device_info dev[2];
    int on0[2], on1[1];
    int64_t best[2];
    const char *configs[2], *lost[1];
    double windows[4];
    struct ht_mpi_tune_model models[2];
    struct ht_mpi_tune_rank ranks[3];
    struct ht_mpi_tune_result r;
};

static void tune_case(struct tune_case *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->dev[0].name, sizeof c->dev[0].name, "cpu");
    snprintf(c->dev[0].vendor, sizeof c->dev[0].vendor, "V");
    snprintf(c->dev[0].driver_version, sizeof c->dev[0].driver_version, "1.0");
    c->dev[0].compute_units = 4;
    c->dev[1] = c->dev[0];
    snprintf(c->dev[1].name, sizeof c->dev[1].name, "gpu");
    c->on0[0] = 0;
    c->on0[1] = 2;
    c->on1[0] = 1;
    c->best[0] = 16;
    c->best[1] = 2;
    c->configs[0] = "EPT=1,WG=8";
    c->configs[1] = "EPT=2,WG=16";
    c->lost[0] = "EPT=4,WG=8";
    c->windows[0] = 1.0;
    c->windows[1] = 1.5;
    c->windows[2] = 2.0;
    c->windows[3] = 2.25;
    c->models[0] = (struct ht_mpi_tune_model){.device = &c->dev[0], .ranks = c->on0,
                                              .nranks = 2, .space = 12, .from_db = 3,
                                              .evaluated = 2, .cut = 1, .lost = 1,
                                              .has_best = 1, .best_from_db = 1,
                                              .best = c->best, .best_text = "EPT=2,WG=16",
                                              .best_s = 0.0025};
    c->models[1] = (struct ht_mpi_tune_model){.device = &c->dev[1], .ranks = c->on1,
                                              .nranks = 1, .space = 12, .evaluated = 1,
                                              .failed = 1, .crashed = 1, .best_text = ""};
    c->ranks[0] = (struct ht_mpi_tune_rank){.rank = 0, .host = "a", .ndevices = 1,
                                            .measured = 2, .ok = 1, .cut = 1, .busy_s = 1.5,
                                            .configs = c->configs, .windows = c->windows,
                                            .lost_configs = c->lost, .note = ""};
    c->ranks[1] = (struct ht_mpi_tune_rank){.rank = 1, .host = "b", .ndevices = 1,
                                            .state = HT_MPI_RANK_DIED, .lost = 1,
                                            .lost_configs = c->lost, .configs = c->configs,
                                            .windows = c->windows,
                                            .note = "died (silent for 5.2 s)"};
    c->ranks[2] = (struct ht_mpi_tune_rank){.rank = 2, .host = "c", .ndevices = 2,
                                            .state = HT_MPI_RANK_LEFT, .configs = c->configs,
                                            .windows = c->windows, .lost_configs = c->lost,
                                            .note = "left (interrupted)"};
    c->r = (struct ht_mpi_tune_result){.rank = 0, .size = 3, .strategy = "exhaustive",
                                       .db = "x.db", .models = c->models, .nmodels = 2,
                                       .ranks = c->ranks, .nranks = 3, .seconds = 4.0,
                                       .messages = 9, .assign_bytes = 100,
                                       .result_bytes = 200};
}

static void test_tune_text(void **state)
{
    struct tune_case c;
    struct ht_error err;
    char *text = NULL, head[8192];

    (void)state;
    tune_case(&c);
    ht_error_clear(&err);
    assert_int_equal(ht_present_mpi_tune(spec, &c.r, 0, &text, NULL, &err), HT_OK);
    snprintf(head, sizeof head, "spec vecadd_mpi (%s), strategy exhaustive, db x.db",
             spec->path);
    assert_line(text, head);
    assert_line(text, "ranks 3 took part (MPI); rank 0 held the queue and the database");
    assert_line(text, "model 0: cpu (V, driver 1.0, 4 compute units) on ranks 0, 2");
    assert_line(text, "model 1: gpu (V, driver 1.0, 4 compute units) on ranks 1");
    assert_line(text, "  evaluated    2 in this run (1 cut, 0 failed), 3 from the database; 1 "
                      "lost in flight and measured again");
    assert_line(text, "  best         WG=16 EPT=2: 2.500 ms (stored)");
    assert_line(text, "  best         none: no configuration ran and verified");
    assert_line(text, "rank 0 (a): 1 device, measured 2 (1 ok, 1 cut, 0 failed), 1.500 s "
                      "measuring; done");
    assert_line(text, "rank 1 (b): 1 device, measured 0 (0 ok, 0 cut, 0 failed), 0.00 us "
                      "measuring; died, 1 in flight lost and put back in the queue: died "
                      "(silent for 5.2 s)");
    assert_line(text, "rank 2 (c): 2 devices, measured 0 (0 ok, 0 cut, 0 failed), 0.00 us "
                      "measuring; left: left (interrupted)");
    free(text);
    /* A tune into the caller's sink (ht_mpi_tune_opts.sink) names no database. */
    c.r.db = "";
    text = NULL;
    assert_int_equal(ht_present_mpi_tune(spec, &c.r, 0, &text, NULL, &err), HT_OK);
    snprintf(head, sizeof head, "spec vecadd_mpi (%s), strategy exhaustive, the caller's sink",
             spec->path);
    assert_line(text, head);
    assert_line(text, "ranks 3 took part (MPI); rank 0 held the queue and the sink");
    assert_line(text, "  evaluated    2 in this run (1 cut, 0 failed), 3 from the sink; 1 "
                      "lost in flight and measured again");
    assert_null(strstr(text, "database"));
    free(text);
}

static void test_tune_json(void **state)
{
    struct tune_case c;
    struct ht_error err;
    json_error_t jerr;
    json_t *doc, *m, *k;
    char *text = NULL;

    (void)state;
    tune_case(&c);
    c.r.stopped = 1;
    ht_error_clear(&err);
    assert_int_equal(ht_present_mpi_tune(spec, &c.r, 1, &text, NULL, &err), HT_OK);
    assert_int_equal(text[strlen(text) - 1], '\n');
    doc = json_loads(text, 0, &jerr);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "db")), "x.db");
    assert_true(json_is_true(json_object_get(doc, "interrupted")));
    assert_int_equal(json_integer_value(json_object_get(doc, "ranks")), 3);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "queue"),
                                                        "result_bytes")), 200);
    m = json_array_get(json_object_get(doc, "models"), 0);
    assert_string_equal(json_string_value(json_object_get(m, "best")), "EPT=2,WG=16");
    assert_int_equal(json_array_size(json_object_get(m, "ranks")), 2);
    m = json_array_get(json_object_get(doc, "models"), 1);
    assert_true(json_is_null(json_object_get(m, "best")));
    assert_int_equal(json_integer_value(json_object_get(m, "crashed")), 1);
    k = json_array_get(json_object_get(doc, "per_rank"), 0);
    assert_int_equal(json_array_size(json_object_get(k, "configs")), 2);
    assert_true(json_real_value(json_array_get(json_array_get(json_object_get(k, "windows"),
                                                              1), 1)) == 2.25);
    k = json_array_get(json_object_get(doc, "per_rank"), 1);
    assert_string_equal(json_string_value(json_object_get(k, "state")), "died");
    assert_string_equal(json_string_value(json_array_get(json_object_get(k, "lost"), 0)),
                        "EPT=4,WG=8");
    k = json_array_get(json_object_get(doc, "per_rank"), 2);
    assert_string_equal(json_string_value(json_object_get(k, "state")), "left");
    json_decref(doc);
    free(text);
}

/* The exit status ht_present_mpi_tune gives r, the same with the text and the JSON. */
static int tune_status(const struct ht_mpi_tune_result *r)
{
    struct ht_error err;
    char *text = NULL;
    int status = -1, json_status = -2;

    ht_error_clear(&err);
    assert_int_equal(ht_present_mpi_tune(spec, r, 0, &text, &status, &err), HT_OK);
    free(text);
    assert_int_equal(ht_present_mpi_tune(spec, r, 1, &text, &json_status, &err), HT_OK);
    free(text);
    assert_int_equal(status, json_status);
    return status;
}

static void test_tune_status(void **state)
{
    struct tune_case c;
    struct ht_mpi_tune_result other = {.rank = 1, .size = 3};
    struct ht_error err;
    char *text = NULL;

    (void)state;
    tune_case(&c);
    assert_int_equal(tune_status(&c.r), 1); /* model 1 has no best */
    c.models[1].has_best = 1; /* a best as model 0's: shown, text and JSON */
    c.models[1].best = c.best;
    c.models[1].best_text = "EPT=2,WG=16";
    c.models[1].best_s = 0.003;
    assert_int_equal(tune_status(&c.r), 0);
    c.r.stopped = 1;
    assert_int_equal(tune_status(&c.r), 130);
    /* Another rank: nothing to show, 0 unless stopped. */
    assert_int_equal(tune_status(&other), 0);
    other.stopped = 1;
    assert_int_equal(tune_status(&other), 130);
    ht_error_clear(&err);
    assert_int_equal(ht_present_mpi_tune(spec, &other, 0, &text, NULL, &err), HT_OK);
    assert_string_equal(text, "");
    free(text);
    assert_int_equal(ht_present_mpi_tune(spec, &other, 1, &text, NULL, &err), HT_OK);
    assert_string_equal(text, "");
    free(text);
    ht_mpi_tune_result_destroy(&other); /* empty: nothing to free */
    assert_int_equal(other.rank, 0);
    ht_mpi_tune_result_destroy(NULL);
}

/* A split over three nodes: rank 0 took part, rank 1 was not used, rank 2 was left out;
 * refined twice, round 0's plan ran again; the verification failed. */
struct split_case {
    struct ht_device_info dev[3];
    struct ht_mpi_split_device devs[3];
    struct ht_mpi_split_node nodes[3];
    double walls[2];
    struct ht_mpi_split_result r;
};

static void split_case(struct split_case *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 3; i++) {
        c->dev[i].index = (size_t)i;
        snprintf(c->dev[i].name, sizeof c->dev[i].name, "dev%d", i);
        c->devs[i] = (struct ht_mpi_split_device){.device = &c->dev[i], .usable = i != 2,
                                                  .config = i != 2 ? "EPT=1,WG=8" : "",
                                                  .why = i != 2 ? "" : "no configuration"};
    }
    c->nodes[0] = (struct ht_mpi_split_node){
        .rank = 0, .host = "a", .state = HT_MPI_NODE_OK, .why = "", .devices = &c->devs[0],
        .ndevices = 1, .granule = 8, .alone_s = 0.002, .refined_s = 0.003,
        .alone_min_s = 0.0015, .alone_kernel_s = 0.001, .decision = "dev0 alone",
        .predicted_split_s = -1, .predicted_alone_s = -1, .measured_split_s = -1,
        .optimal_factor = 1, .share = 1, .offset = 0, .size = 8192, .own_offset = 0,
        .own_size = 8192, .split_s = 0.001, .scatter_s = 0.0005, .gather_s = 0.00025};
    c->nodes[1] = (struct ht_mpi_split_node){
        .rank = 1, .host = "b", .state = HT_MPI_NODE_NOT_USED, .why = "rank 0 alone",
        .devices = &c->devs[1], .ndevices = 1, .granule = 16, .alone_s = 0.004,
        .refined_s = 0.005, .decision = "dev1 alone", .predicted_split_s = 0.25,
        .predicted_alone_s = -1, .measured_split_s = -1};
    c->nodes[2] = (struct ht_mpi_split_node){.rank = 2, .host = "c",
                                             .state = HT_MPI_NODE_LEFT_OUT,
                                             .why = "no device with a configuration",
                                             .devices = &c->devs[2], .ndevices = 1,
                                             .decision = ""};
    c->walls[0] = 0.002;
    c->walls[1] = 0.004;
    c->r = (struct ht_mpi_split_result){
        .rank = 0, .size = 3, .took_part = 1, .dim = 0, .global = 8192, .scheduler = "static",
        .nodes = c->nodes, .nnodes = 3, .nodes_split = 0, .decision = "rank 0 alone",
        .rounds = 2, .round_wall_s = c->walls, .kept_round = 0, .kept_again = 1,
        .bound_s = 0.001, .adjusted_s = 0.001, .wall_s = 0.002, .wall_min_s = 0.0015,
        .runs = 3, .keep_best = 2, .efficiency = 0.5, .bound_min_s = 0.001,
        .efficiency_min = 0.25, .scattered_bytes = 10, .gathered_bytes = 20, .verified = 0,
        .reference = "dev0 alone", .mismatch = "a[3] differs"};
}

static void test_split_text(void **state)
{
    struct split_case c;
    struct ht_error err;
    char *text = NULL;

    (void)state;
    split_case(&c);
    ht_error_clear(&err);
    assert_int_equal(ht_present_mpi_split(spec, &c.r, 0, &text, NULL, &err), HT_OK);
    assert_line(text, "ranks         1 of 3 took part (MPI); split along gx (dimension 0), "
                      "8192 units, each node scheduler static");
    assert_line(text, "0    a                      8   2.000 ms   1.0000   1.0000            "
                      "[0, 8192)   1.000 ms  500.00 us  250.00 us");
    assert_line(text, "1    b                     16   4.000 ms not used: the nodes' decision "
                      "(below)");
    assert_line(text, "       decision dev1 alone");
    assert_line(text, "2    c                left out: no device with a configuration");
    assert_line(text, "       device 2 dev2: no configuration");
    assert_line(text, "nodes         rank 0 alone");
    assert_line(text, "refined       2 rounds one level up (each node's time from its slice "
                      "in the split; the last round's runs below): wall 2.000 ms, 4.000 ms, "
                      "then round 0's plan again (the shortest): 2.000 ms; node times 0: "
                      "3.000 ms 1: 5.000 ms");
    assert_line(text, "measured      wall 2.000 ms (mean of the best 2 of 3 runs: scatter, "
                      "co-execution, gather; fastest 1.500 ms)");
    assert_line(text, "efficiency    0.500 (the bound over the measured wall time); 0.250 "
                      "from the fastest runs (bound 1.000 ms)");
    assert_line(text, "moved         10 bytes scattered, 20 gathered per run (rank 0 and the "
                      "other nodes)");
    assert_line(text, "verification  FAILED: a[3] differs");
    free(text);
    c.r.verified = -1;
    c.r.rounds = 0;
    assert_int_equal(ht_present_mpi_split(spec, &c.r, 0, &text, NULL, &err), HT_OK);
    assert_line(text, "verification  skipped");
    assert_null(line_of(text, "refined"));
    free(text);
}

static void test_split_json(void **state)
{
    struct split_case c;
    struct ht_error err;
    json_error_t jerr;
    json_t *doc, *n;
    char *text = NULL;

    (void)state;
    split_case(&c);
    ht_error_clear(&err);
    assert_int_equal(ht_present_mpi_split(spec, &c.r, 1, &text, NULL, &err), HT_OK);
    assert_int_equal(text[strlen(text) - 1], '\n');
    doc = json_loads(text, 0, &jerr);
    assert_non_null(doc);
    assert_true(json_is_false(json_object_get(doc, "verified")));
    assert_string_equal(json_string_value(json_object_get(doc, "mismatch")), "a[3] differs");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "refine"),
                                                        "kept")), 0);
    n = json_array_get(json_object_get(doc, "per_rank"), 0);
    assert_string_equal(json_string_value(json_object_get(n, "state")), "ok");
    assert_true(json_real_value(json_object_get(n, "refined_s")) == 0.003);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(n, "owned"), 1)), 8192);
    assert_true(json_is_null(json_object_get(n, "predicted_split_s")));
    n = json_array_get(json_object_get(doc, "per_rank"), 1);
    assert_string_equal(json_string_value(json_object_get(n, "state")), "not used");
    assert_string_equal(json_string_value(json_object_get(n, "why")), "rank 0 alone");
    assert_true(json_real_value(json_object_get(n, "predicted_split_s")) == 0.25);
    assert_null(json_object_get(n, "share"));
    n = json_array_get(json_object_get(doc, "per_rank"), 2);
    assert_string_equal(json_string_value(json_object_get(n, "state")), "left out");
    assert_null(json_object_get(n, "granule"));
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(n, "devices"), 0), "why")),
                        "no configuration");
    json_decref(doc);
    free(text);
    /* Not verified: null, and no reference. */
    c.r.verified = -1;
    c.r.rounds = 0;
    assert_int_equal(ht_present_mpi_split(spec, &c.r, 1, &text, NULL, &err), HT_OK);
    doc = json_loads(text, 0, &jerr);
    assert_true(json_is_null(json_object_get(doc, "verified")));
    assert_null(json_object_get(doc, "reference"));
    assert_null(json_object_get(doc, "refine"));
    json_decref(doc);
    free(text);
}

/* The exit status ht_present_mpi_split gives r, the same with the text and the JSON. */
static int split_status(const struct ht_mpi_split_result *r)
{
    struct ht_error err;
    char *text = NULL;
    int status = -1, json_status = -2;

    ht_error_clear(&err);
    assert_int_equal(ht_present_mpi_split(spec, r, 0, &text, &status, &err), HT_OK);
    free(text);
    assert_int_equal(ht_present_mpi_split(spec, r, 1, &text, &json_status, &err), HT_OK);
    free(text);
    assert_int_equal(status, json_status);
    return status;
}

static void test_split_status(void **state)
{
    struct split_case c;
    struct ht_mpi_split_result other = {.rank = 2, .size = 3, .verified = -1};
    struct ht_error err;
    char *text = NULL;

    (void)state;
    split_case(&c);
    assert_int_equal(split_status(&c.r), 3);
    c.r.verified = 1;
    assert_int_equal(split_status(&c.r), 0);
    c.r.verified = -1;
    assert_int_equal(split_status(&c.r), 0);
    assert_int_equal(split_status(&other), 0);
    ht_error_clear(&err);
    assert_int_equal(ht_present_mpi_split(spec, &other, 0, &text, NULL, &err), HT_OK);
    assert_string_equal(text, "");
    free(text);
    assert_int_equal(ht_present_mpi_split(spec, &other, 1, &text, NULL, &err), HT_OK);
    assert_string_equal(text, "");
    free(text);
    ht_mpi_split_result_destroy(&other);
    ht_mpi_split_result_destroy(NULL);
}

/* Misuse is an error, never a crash: a NULL result, spec or text is HT_EINVAL with err set
 * (and *status untouched) from the two calls above and from present.h's other writers. */
static void test_nulls(void **state)
{
    struct ht_mpi_tune_result tr;
    struct ht_mpi_split_result sr;
    struct ht_present_space ps = {0};
    struct ht_present_tune pt = {0};
    struct ht_present_eval pe = {0};
    struct ht_error err;
    char *text = NULL;
    int status = 42;

    (void)state;
    memset(&tr, 0, sizeof tr);
    memset(&sr, 0, sizeof sr);
    for (int json = 0; json < 2; json++) {
        ht_error_clear(&err);
        assert_int_equal(ht_present_mpi_tune(spec, NULL, json, &text, &status, &err), HT_EINVAL);
        assert_int_equal(err.code, HT_EINVAL);
        ht_error_clear(&err);
        assert_int_equal(ht_present_mpi_split(spec, NULL, json, &text, &status, &err), HT_EINVAL);
        assert_int_equal(err.code, HT_EINVAL);
        assert_int_equal(ht_present_mpi_tune(NULL, &tr, json, &text, &status, NULL), HT_EINVAL);
        assert_int_equal(ht_present_mpi_split(NULL, &sr, json, &text, &status, NULL), HT_EINVAL);
        assert_int_equal(ht_present_mpi_tune(spec, &tr, json, NULL, &status, NULL), HT_EINVAL);
        assert_int_equal(ht_present_mpi_split(spec, &sr, json, NULL, &status, NULL), HT_EINVAL);
    }
    assert_int_equal(status, 42);
    assert_null(text);

    ht_error_clear(&err);
    assert_int_equal(ht_present_split_json(spec, NULL, NULL, &text, &err), HT_EINVAL);
    assert_int_equal(err.code, HT_EINVAL);
    assert_int_equal(ht_present_run_json(spec, NULL, NULL, 0, &text, NULL), HT_EINVAL);
    assert_int_equal(ht_present_space_print(stdout, NULL, NULL), HT_EINVAL);
    assert_int_equal(ht_present_space_print(stdout, &ps, NULL), HT_EINVAL); /* no spec */
    assert_int_equal(ht_present_space_print(NULL, &ps, NULL), HT_EINVAL);
    assert_int_equal(ht_present_space_json(NULL, &text, NULL), HT_EINVAL);
    assert_int_equal(ht_present_space_json(&ps, &text, NULL), HT_EINVAL);
    assert_int_equal(ht_present_plan_json(NULL, NULL, NULL, &text, NULL), HT_EINVAL);
    assert_int_equal(ht_present_devices_json(NULL, 1, NULL, NULL, &text, NULL), HT_EINVAL);
    assert_int_equal(ht_present_devices_json(NULL, 0, NULL, NULL, NULL, NULL), HT_EINVAL);
    assert_int_equal(ht_present_tune_json(NULL, &text, NULL), HT_EINVAL);
    assert_int_equal(ht_present_tune_json(&pt, &text, NULL), HT_EINVAL);
    assert_int_equal(ht_present_eval_json(NULL, &text, NULL), HT_EINVAL);
    assert_int_equal(ht_present_eval_json(&pe, &text, NULL), HT_EINVAL);
    assert_int_equal(ht_present_report_json(NULL, NULL, NULL, &text, NULL), HT_EINVAL);
    assert_null(text);

    /* Given everything, the same calls still write: an empty result of a rank other
     * than 0 is "". */
    tr.rank = sr.rank = 1;
    assert_int_equal(ht_present_mpi_tune(spec, &tr, 0, &text, &status, NULL), HT_OK);
    assert_string_equal(text, "");
    free(text);
    text = NULL;
    assert_int_equal(ht_present_devices_json(NULL, 0, NULL, NULL, &text, NULL), HT_OK);
    assert_non_null(text);
    free(text);
}

/* The sentence helpers (issue 26 item 6): a NULL result or buffer, or a buffer of size 0,
 * returns 0 and writes nothing, never a crash; given everything they still write. */
static void test_sentence_nulls(void **state)
{
    struct ht_workflow_split_result r;
    struct ht_workflow_device wd;
    struct ht_device_info dev;
    struct ht_load l;
    char buf[256];

    (void)state;
    memset(&r, 0, sizeof r);
    memset(&l, 0, sizeof l);
    l.unlocked = 1;
    snprintf(l.unlocked_why, sizeof l.unlocked_why, "no lock");
    r.cpu_units = 8;

    strcpy(buf, "x");
    assert_int_equal(ht_present_split_decision(NULL, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    strcpy(buf, "x");
    assert_int_equal(ht_present_split_units(NULL, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    assert_int_equal(ht_present_split_decision(&r, NULL, 64), 0);
    assert_int_equal(ht_present_split_units(&r, NULL, 64), 0);
    assert_int_equal(ht_present_load_sentence(&l, NULL, 64), 0);
    strcpy(buf, "x");
    assert_int_equal(ht_present_split_decision(&r, buf, 0), 0);
    assert_int_equal(ht_present_split_units(&r, buf, 0), 0);
    assert_string_equal(buf, "x");
    assert_int_equal(ht_present_load_sentence(NULL, buf, sizeof buf), 0);
    assert_string_equal(buf, "");

    /* Everything given: a result that has nothing to say (a split that ran), then one
     * that ran alone as predicted, units and load that do. */
    memset(&wd, 0, sizeof wd);
    memset(&dev, 0, sizeof dev);
    dev.index = 1;
    snprintf(dev.name, sizeof dev.name, "cpu");
    wd.dev = &dev;
    r.n = 1;
    r.devs = &wd;
    strcpy(buf, "x");
    assert_int_equal(ht_present_split_decision(&r, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    r.ran_alone = 1;
    assert_int_equal(ht_present_split_decision(&r, buf, sizeof buf), 1);
    assert_non_null(strstr(buf, "than device 1 (cpu) alone"));
    assert_int_equal(ht_present_split_units(&r, buf, sizeof buf), 1);
    assert_non_null(strstr(buf, "8 of each CPU device"));
    assert_int_equal(ht_present_load_sentence(&l, buf, sizeof buf), 1);
    assert_non_null(strstr(buf, "without a device lock (no lock)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tune_text),  cmocka_unit_test(test_tune_json),
        cmocka_unit_test(test_tune_status), cmocka_unit_test(test_split_text),
        cmocka_unit_test(test_split_json), cmocka_unit_test(test_split_status),
        cmocka_unit_test(test_nulls),
        cmocka_unit_test(test_sentence_nulls),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
