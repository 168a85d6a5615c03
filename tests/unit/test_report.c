/* Unit tests of the report (src/report/), of the space sizes of the store
 * (src/store/spaces.c) and of the store's listings it reads through (store.h: problems,
 * devices, splits), without OpenCL: a database is filled by hand through the store's
 * API (space sizes, evaluations, splits, sweeps), the report is written into a temporary
 * folder and its CSV files are compared exactly, its Markdown tables line by line. The
 * pictures are checked when gnuplot is on PATH (skipped otherwise); with PATH set to an
 * empty folder, and with a gnuplot that fails, the report must say why there are none. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hetune/report.h"
#include "hetune/store.h"
#include "util/util.h"

static char tmpdir[256];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int make_tmpdir(void **state)
{
    const char *base = getenv("TMPDIR");
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "%s/test_report.XXXXXX", base && base[0] ? base : "/tmp");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    (void)state;
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

static char *path_in(const char *a, const char *b)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    if (b)
        snprintf(buf[k], sizeof buf[k], "%s/%s/%s", tmpdir, a, b);
    else
        snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, a);
    return buf[k];
}

static char *slurp(const char *path)
{
    char *text = NULL;
    size_t len;
    struct ht_error err;
    ht_error_clear(&err);
    if (ht__read_file(path, &text, &len, &err) != HT_OK)
        fail_msg("cannot read %s: %s", path, err.text);
    return text;
}

static void check_file(const char *path, const char *want)
{
    char *have = slurp(path);
    if (strcmp(have, want) != 0)
        fail_msg("%s differs.\n--- want\n%s--- have\n%s", path, want, have);
    free(have);
}

static void check_contains(const char *path, const char *line)
{
    char *have = slurp(path);
    if (!strstr(have, line))
        fail_msg("%s lacks:\n%s\n--- have\n%s", path, line, have);
    free(have);
}

static void check_lacks(const char *path, const char *text)
{
    char *have = slurp(path);
    if (strstr(have, text))
        fail_msg("%s holds what it should not: %s", path, text);
    free(have);
}

static off_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

static void check_rc(int rc, const struct ht_error *err, const char *what)
{
    if (rc != HT_OK)
        fail_msg("%s failed: %s: %s", what, ht_err_name(rc), err->text);
}

/* ---- a database filled by hand -------------------------------------------------------- */

static void fill_device(struct ht_device_info *d, const char *name, uint32_t cu)
{
    memset(d, 0, sizeof *d);
    snprintf(d->platform, sizeof d->platform, "Portable Computing Language");
    snprintf(d->platform_version, sizeof d->platform_version, "OpenCL 3.0 PoCL 5.0");
    snprintf(d->name, sizeof d->name, "%s", name);
    snprintf(d->vendor, sizeof d->vendor, "GenuineIntel");
    snprintf(d->type, sizeof d->type, "CPU");
    d->is_cpu = 1;
    snprintf(d->version, sizeof d->version, "OpenCL 3.0 PoCL");
    snprintf(d->driver_version, sizeof d->driver_version, "5.0");
    d->compute_units = cu;
    d->max_work_group_size = 4096;
    d->max_work_item_dims = 3;
    d->max_work_item_sizes[0] = d->max_work_item_sizes[1] = d->max_work_item_sizes[2] = 4096;
    d->local_mem_size = 1 << 20;
    d->global_mem_size = UINT64_C(1) << 32;
    d->max_mem_alloc_size = UINT64_C(1) << 30;
}

/* The conv1d of the paper in miniature: sizes N=64, parameters WG and MASK. */
struct mini_spec {
    struct ht_spec spec;
    char name[16], path[32], kernel_path[32], kernel_name[16], options[4], source[64];
    char size_name[4];
    char *size_names[1];
    int64_t size_values[1];
    char param_names[2][8];
    struct ht_param params[2];
};

static void fill_spec(struct mini_spec *m, const char *source)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "conv1d");
    snprintf(m->path, sizeof m->path, "conv1d.json");
    snprintf(m->kernel_path, sizeof m->kernel_path, "conv1d.cl");
    snprintf(m->kernel_name, sizeof m->kernel_name, "conv1d_local");
    snprintf(m->source, sizeof m->source, "%s", source);
    m->spec.name = m->name;
    m->spec.path = m->path;
    m->spec.kernel_path = m->kernel_path;
    m->spec.kernel_name = m->kernel_name;
    m->spec.kernel_options = m->options;
    m->spec.source = m->source;
    m->spec.source_len = strlen(m->source);
    snprintf(m->size_name, sizeof m->size_name, "N");
    m->size_names[0] = m->size_name;
    m->size_values[0] = 64;
    m->spec.space.nsizes = 1;
    m->spec.space.size_names = m->size_names;
    m->spec.space.size_values = m->size_values;
    snprintf(m->param_names[0], sizeof m->param_names[0], "WG");
    snprintf(m->param_names[1], sizeof m->param_names[1], "MASK");
    m->params[0].name = m->param_names[0];
    m->params[1].name = m->param_names[1];
    m->spec.space.nparams = 2;
    m->spec.space.params = m->params;
}

static void put_eval(struct ht_store *s, int64_t problem, int64_t device, int64_t wg,
                     const char *status, double seconds)
{
    struct ht_stored_eval *ev = calloc(1, sizeof *ev);
    struct ht_error err;

    assert_non_null(ev);
    ht_error_clear(&err);
    ht_stored_eval_init(ev);
    ev->problem_id = problem;
    ev->device_id = device;
    snprintf(ev->config, sizeof ev->config, "WG=%lld,MASK=5", (long long)wg);
    ev->nvalues = 2;
    ev->values[0] = wg;
    ev->values[1] = 5;
    snprintf(ev->status, sizeof ev->status, "%s", status);
    ev->seconds = seconds;
    ev->verified = strcmp(status, "ok") ? -1 : 1;
    check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "put_eval");
    free(ev);
}

static void put_space(struct ht_store *s, int64_t problem, int64_t device, enum ht_eq3 eq3,
                      uint64_t platform, double seconds)
{
    struct ht_stored_space sp;
    struct ht_error err;

    ht_error_clear(&err);
    ht_stored_space_init(&sp);
    sp.problem_id = problem;
    sp.device_id = device;
    sp.eq3 = eq3;
    sp.unpruned = 4096;
    sp.platform = platform;
    sp.pruned = platform;
    sp.seconds = seconds;
    check_rc(ht_store_put_space(s, &sp, &err), &err, "put_space");
}

static int64_t put_split(struct ht_store *s, int64_t problem, const char *scheduler,
                         double wall, double kernel, double adj0, double predicted)
{
    struct ht_stored_split sp;
    struct ht_stored_split_device d[2];
    struct ht_error err;
    int64_t id = 0;

    ht_error_clear(&err);
    ht_stored_split_init(&sp);
    memset(d, 0, sizeof d);
    sp.problem_id = problem;
    snprintf(sp.scheduler, sizeof sp.scheduler, "%s", scheduler);
    sp.dim = 0;
    sp.global = 64;
    sp.theoretical_seconds = 2.0 / 3.0 * 0.001;
    sp.seconds = wall;
    sp.min_seconds = wall * 0.9;
    sp.kernel_seconds = kernel;
    sp.alone_seconds = 0.0011;
    sp.verified = 1;
    sp.predicted_seconds = predicted;
    d[0].device_id = 1;
    snprintf(d[0].config, sizeof d[0].config, "WG=8,MASK=5");
    d[0].wg = 8;
    d[0].time_seconds = 0.001;
    d[0].optimal_factor = 2.0 / 3.0;
    d[0].adjusted_factor = adj0;
    d[1].device_id = 2;
    snprintf(d[1].config, sizeof d[1].config, "WG=16,MASK=5");
    d[1].wg = 16;
    d[1].time_seconds = 0.002;
    d[1].optimal_factor = 1.0 / 3.0;
    d[1].adjusted_factor = 1.0 - adj0;
    for (int i = 0; i < 2; i++)
        d[i].kernel_seconds = d[i].write_seconds = d[i].read_seconds = -1;
    sp.ndevices = 2;
    sp.devices = d;
    check_rc(ht_store_put_split(s, &sp, &id, &err), &err, "put_split");
    return id;
}

static void put_point(struct ht_store *s, int64_t split, unsigned i, double f, double theo,
                      double wall, double kernel, int verified)
{
    struct ht_stored_sweep_point pt = {i, f, theo, wall, kernel, verified};
    struct ht_error err;
    ht_error_clear(&err);
    check_rc(ht_store_put_sweep_point(s, split, &pt, &err), &err, "put_sweep_point");
}

/* A tuning run of device on problem that made the evaluations above: WG=16, then the
 * build failure, then WG=8 (store.h, tuning runs). */
static void put_run(struct ht_store *s, int64_t problem, int64_t device)
{
    static const struct {
        const char *config, *status;
        double seconds, elapsed;
    } steps[] = {{"WG=16,MASK=5", "ok", 0.0015, 0.5},
                 {"WG=32,MASK=5", "build", -1, 1.25},
                 {"WG=8,MASK=5", "ok", 0.001, 2.0}};
    struct ht_stored_tune_run run;
    struct ht_stored_tune_step step;
    struct ht_error err;
    int64_t id = 0;

    ht_error_clear(&err);
    memset(&run, 0, sizeof run);
    run.problem_id = problem;
    run.device_id = device;
    snprintf(run.strategy, sizeof run.strategy, "random");
    run.seed = 3;
    run.budget = 3;
    run.best_before_s = -1;
    check_rc(ht_store_put_tune_run(s, &run, &id, &err), &err, "put_tune_run");
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        memset(&step, 0, sizeof step);
        step.i = i;
        snprintf(step.config, sizeof step.config, "%s", steps[i].config);
        snprintf(step.status, sizeof step.status, "%s", steps[i].status);
        step.seconds = steps[i].seconds;
        step.elapsed_s = steps[i].elapsed;
        check_rc(ht_store_put_tune_step(s, id, &step, &err), &err, "put_tune_step");
    }
}

/* Creates the database `name` in tmpdir with two devices, space sizes, evaluations, an old
 * and a new static split (the new one with a sweep), and a dynamic split. */
static struct ht_store *make_db(const char *name)
{
    struct ht_store *s = NULL;
    struct ht_device_info dev;
    struct mini_spec spec;
    struct ht_error err;
    int64_t dev1, dev2, kernel, problem, old, split;

    ht_error_clear(&err);
    check_rc(ht_store_open(path_in(name, NULL), &s, &err), &err, "open");
    fill_device(&dev, "pthread-skylake", 2);
    check_rc(ht_store_device_id(s, &dev, &dev1, &err), &err, "device 1");
    fill_device(&dev, "basic-skylake", 1);
    check_rc(ht_store_device_id(s, &dev, &dev2, &err), &err, "device 2");
    assert_int_equal(dev1, 1);
    assert_int_equal(dev2, 2);
    fill_spec(&spec, "__kernel void conv1d_local() {}");
    check_rc(ht_store_kernel_id(s, &spec.spec, &kernel, &err), &err, "kernel");
    check_rc(ht_store_problem_id(s, kernel, &spec.spec, &problem, &err), &err, "problem");
    assert_int_equal(problem, 1);

    put_space(s, problem, dev1, HT_EQ3_PRODUCT, 13, 0.5);
    put_space(s, problem, dev2, HT_EQ3_PRODUCT, 12, -1);
    put_space(s, problem, dev1, HT_EQ3_SUM, 10, 0.25);

    put_eval(s, problem, dev1, 16, "ok", 0.0015);
    put_eval(s, problem, dev1, 8, "ok", 0.001);
    put_eval(s, problem, dev1, 32, "build", -1);
    put_eval(s, problem, dev2, 16, "ok", 0.002);
    put_run(s, problem, dev1);

    old = put_split(s, problem, "static", 0.005, 0.004, 0.5, -1);
    put_point(s, old, 0, 0.0, 0.002, 0.009, 0.008, 1);
    split = put_split(s, problem, "static", 0.0008, 0.0007, 0.625, 0.00075);
    assert_int_equal(split, 2);
    put_point(s, split, 0, 0.0, 0.002, 0.0021, 0.002, 1);
    put_point(s, split, 1, 0.5, 0.001, 0.0012, 0.0011, 1);
    put_point(s, split, 2, 1.0, 0.001, 0.0011, 0.001, 0);
    assert_int_equal(put_split(s, problem, "dynamic", 0.0009, 0.00085, 0.5, -1), 3);
    return s;
}

/* ---- tests ---------------------------------------------------------------------------- */

static void test_store_spaces(void **state)
{
    struct ht_store *s = NULL;
    struct ht_stored_space sp;
    struct ht_space_counts counts;
    struct ht_error err;
    (void)state;

    ht_error_clear(&err);
    check_rc(ht_store_open(":memory:", &s, &err), &err, "open");
    {
        struct ht_device_info dev;
        struct mini_spec spec;
        int64_t id;
        fill_device(&dev, "cpu", 4);
        check_rc(ht_store_device_id(s, &dev, &id, &err), &err, "device");
        fill_spec(&spec, "x");
        check_rc(ht_store_kernel_id(s, &spec.spec, &id, &err), &err, "kernel");
        check_rc(ht_store_problem_id(s, id, &spec.spec, &id, &err), &err, "problem");
    }
    assert_int_equal(ht_store_get_space(s, 1, 1, HT_EQ3_PRODUCT, &sp, &err), HT_ENOTFOUND);
    assert_int_equal(err.code, 0);

    memset(&counts, 0, sizeof counts);
    counts.unpruned = 16777216.0;
    counts.platform = 85;
    counts.pruned = 0;
    counts.seconds = 0.125;
    snprintf(counts.last_constraint, sizeof counts.last_constraint, "constraints[0]");
    ht_stored_space_init(&sp);
    sp.problem_id = 1;
    sp.device_id = 1;
    sp.eq3 = HT_EQ3_SUM;
    ht_stored_space_from_counts(&sp, &counts);
    check_rc(ht_store_put_space(s, &sp, &err), &err, "put");
    memset(&sp, 0, sizeof sp);
    check_rc(ht_store_get_space(s, 1, 1, HT_EQ3_SUM, &sp, &err), &err, "get");
    assert_true(sp.unpruned == 16777216.0);
    assert_int_equal(sp.platform, 85);
    assert_int_equal(sp.pruned, 0);
    assert_true(sp.seconds == 0.125);
    assert_int_equal(sp.eq3, HT_EQ3_SUM);
    assert_string_equal(sp.last_constraint, "constraints[0]");
    assert_int_equal(strlen(sp.created_at), 24);
    /* The product variant is another row; a new count replaces the old. */
    assert_int_equal(ht_store_get_space(s, 1, 1, HT_EQ3_PRODUCT, &sp, &err), HT_ENOTFOUND);
    sp.pruned = 7;
    sp.last_constraint[0] = '\0';
    sp.seconds = -1;
    check_rc(ht_store_put_space(s, &sp, &err), &err, "replace");
    check_rc(ht_store_get_space(s, 1, 1, HT_EQ3_SUM, &sp, &err), &err, "get again");
    assert_int_equal(sp.pruned, 7);
    assert_true(sp.seconds == -1);
    /* Counts past 2^63 (a space past 2^64 saturates) and an unpruned size past a double's
     * range are kept, rounded: `hetune space --db` refused them before. */
    sp.platform = UINT64_MAX;
    sp.pruned = (uint64_t)1 << 63;
    sp.unpruned = INFINITY;
    check_rc(ht_store_put_space(s, &sp, &err), &err, "put huge");
    check_rc(ht_store_get_space(s, 1, 1, HT_EQ3_SUM, &sp, &err), &err, "get huge");
    assert_true(sp.platform == UINT64_MAX);
    assert_true(sp.pruned == (uint64_t)1 << 63);
    assert_true(isinf(sp.unpruned));
    /* Malformed sizes and unknown rows are refused. */
    sp.eq3 = (enum ht_eq3)7;
    assert_int_equal(ht_store_put_space(s, &sp, &err), HT_EINVAL);
    ht_error_clear(&err);
    sp.eq3 = HT_EQ3_OFF;
    sp.unpruned = -1;
    assert_int_equal(ht_store_put_space(s, &sp, &err), HT_EINVAL);
    ht_error_clear(&err);
    sp.unpruned = 1;
    sp.device_id = 99;
    assert_int_equal(ht_store_put_space(s, &sp, &err), HT_EDB);
    ht_store_close(s);
}

static void test_report_tables(void **state)
{
    struct ht_store *s = make_db("tables.db");
    struct ht_report_opts opts;
    struct ht_report_result res;
    struct ht_error err;
    const char *dir = path_in("tables", NULL);
    (void)state;

    ht_error_clear(&err);
    ht_report_opts_init(&opts);
    opts.gnuplot = ""; /* pictures: test_report_pictures */
    check_rc(ht_report_write(s, dir, &opts, &res, &err), &err, "report");
    assert_int_equal(res.cases, 1);
    assert_int_equal(res.devices, 2);
    assert_int_equal(res.spaces, 3);
    assert_int_equal(res.splits, 2); /* the newest static and the dynamic */
    assert_int_equal(res.sweeps, 1);
    assert_int_equal(res.tunings, 2);
    assert_int_equal(res.runs, 1);
    assert_int_equal(res.figures, 5); /* Figure 5, a sweep, two devices' times, one's runs */
    assert_string_equal(res.figure_list,
                        "fig5-conv1d_N64\nsweep-conv1d_N64-dim0\n"
                        "tune-conv1d_N64-pthread-times\ntune-conv1d_N64-pthread-best\n"
                        "tune-conv1d_N64-basic-times\n");
    assert_int_equal(res.pictures, 0);
    assert_string_equal(res.no_pictures, "drawing was turned off");
    /* The tuning figures' data: times by rank (the failure counted), each run's steps
     * with the best so far. */
    check_file(path_in("tables", "tune-conv1d_N64-pthread-times.dat"),
               "# Configuration times: conv1d N=64 on pthread (3 evaluations: 2 timed, 0 cut, "
               "1 failed)\n"
               "# evaluations 3, timed 2, cut 0, failed 1\n"
               "# rank (fastest first), time (s), status (ok: timed in full; cut: stopped "
               "early, its time a lower bound)\n"
               "1 0.001 ok\n"
               "2 0.0015 ok\n");
    check_contains(path_in("tables", "tune-conv1d_N64-pthread-best.dat"),
                   "1 random 1 0.5 0.0015 0.0015 ok");
    check_contains(path_in("tables", "tune-conv1d_N64-pthread-best.dat"),
                   "1 random 2 1.25 NaN 0.0015 build");
    check_contains(path_in("tables", "tune-conv1d_N64-pthread-best.dat"),
                   "1 random 3 2 0.001 0.001 ok");
    assert_true(file_size(path_in("tables", "tune-conv1d_N64-basic-times.gp")) > 0);
    assert_int_equal(access(path_in("tables", "tune-conv1d_N64-basic-best.dat"), F_OK), -1);
    assert_string_equal(res.path, path_in("tables", "report.md"));
    ht_report_result_destroy(&res);
    assert_null(res.path);
    assert_null(res.figure_list);
    ht_report_result_destroy(&res); /* a zeroed result: nothing to free */
    ht_report_result_destroy(NULL);

    check_file(path_in("tables", "devices.csv"),
               "device_id,device,name,platform,type,compute_units,driver_version\n"
               "1,pthread,pthread-skylake,Portable Computing Language,CPU,2,5.0\n"
               "2,basic,basic-skylake,Portable Computing Language,CPU,1,5.0\n");
    check_file(path_in("tables", "spaces.csv"),
               "case,spec,sizes,problem_id,device_id,device,eq3,unpruned,platform,pruned,"
               "seconds\n"
               "conv1d N=64,conv1d,N=64,1,1,pthread,product,4096,13,13,0.5\n"
               "conv1d N=64,conv1d,N=64,1,1,pthread,sum,4096,10,10,0.25\n"
               "conv1d N=64,conv1d,N=64,1,2,basic,product,4096,12,12,\n");
    check_file(path_in("tables", "tuning.csv"),
               "case,spec,sizes,problem_id,device_id,device,evaluations,ok,best_config,"
               "best_seconds\n"
               "conv1d N=64,conv1d,N=64,1,1,pthread,3,2,\"WG=8,MASK=5\",0.001\n"
               "conv1d N=64,conv1d,N=64,1,2,basic,1,1,\"WG=16,MASK=5\",0.002\n");
    check_file(path_in("tables", "factors.csv"),
               "case,spec,sizes,problem_id,split_id,dim,scheduler,global,i,device_id,device,"
               "config,wg,time_seconds,optimal_factor,adjusted_factor\n"
               "conv1d N=64,conv1d,N=64,1,2,0,static,64,0,1,pthread,\"WG=8,MASK=5\",8,0.001,"
               "0.666666667,0.625\n"
               "conv1d N=64,conv1d,N=64,1,2,0,static,64,1,2,basic,\"WG=16,MASK=5\",16,0.002,"
               "0.333333333,0.375\n"
               "conv1d N=64,conv1d,N=64,1,3,0,dynamic,64,0,1,pthread,\"WG=8,MASK=5\",8,0.001,"
               "0.666666667,0.5\n"
               "conv1d N=64,conv1d,N=64,1,3,0,dynamic,64,1,2,basic,\"WG=16,MASK=5\",16,0.002,"
               "0.333333333,0.5\n");
    check_file(path_in("tables", "times.csv"),
               "case,spec,sizes,problem_id,split_id,dim,scheduler,series,device_id,device,"
               "seconds\n"
               "conv1d N=64,conv1d,N=64,1,2,0,static,alone,1,pthread,0.001\n"
               "conv1d N=64,conv1d,N=64,1,2,0,static,alone,2,basic,0.002\n"
               "conv1d N=64,conv1d,N=64,1,2,0,static,theoretical,,,0.000666666667\n"
               "conv1d N=64,conv1d,N=64,1,2,0,static,wall,,,0.0008\n"
               "conv1d N=64,conv1d,N=64,1,2,0,static,kernel,,,0.0007\n"
               "conv1d N=64,conv1d,N=64,1,2,0,static,fastest_alone_wall,,,0.0011\n"
               "conv1d N=64,conv1d,N=64,1,2,0,static,predicted,,,0.00075\n"
               "conv1d N=64,conv1d,N=64,1,3,0,dynamic,alone,1,pthread,0.001\n"
               "conv1d N=64,conv1d,N=64,1,3,0,dynamic,alone,2,basic,0.002\n"
               "conv1d N=64,conv1d,N=64,1,3,0,dynamic,theoretical,,,0.000666666667\n"
               "conv1d N=64,conv1d,N=64,1,3,0,dynamic,wall,,,0.0009\n"
               "conv1d N=64,conv1d,N=64,1,3,0,dynamic,kernel,,,0.00085\n"
               "conv1d N=64,conv1d,N=64,1,3,0,dynamic,fastest_alone_wall,,,0.0011\n");
    check_file(path_in("tables", "sweep.csv"),
               "case,spec,sizes,problem_id,split_id,dim,i,factor,theoretical_seconds,seconds,"
               "kernel_seconds,verified\n"
               "conv1d N=64,conv1d,N=64,1,2,0,0,0,0.002,0.0021,0.002,1\n"
               "conv1d N=64,conv1d,N=64,1,2,0,1,0.5,0.001,0.0012,0.0011,1\n"
               "conv1d N=64,conv1d,N=64,1,2,0,2,1,0.001,0.0011,0.001,0\n");

    {
        const char *md = path_in("tables", "report.md");
        check_contains(md, "## Table 1: exploration space size without pruning");
        check_contains(md, "| case study | pthread | basic |\n| --- | ---: | ---: |\n"
                           "| conv1d N=64 | 4096 | 4096 |\n"
                           "| conv1d N=64 (Eq. 3 sum) | 4096 | - |\n");
        check_contains(md, "| case study | pthread platform | pthread pruned | basic platform "
                           "| basic pruned |\n| --- | ---: | ---: | ---: | ---: |\n"
                           "| conv1d N=64 | 13 | 13 | 12 | 12 |\n"
                           "| conv1d N=64 (Eq. 3 sum) | 10 | 10 | - | - |\n");
        check_contains(md, "| conv1d N=64 | pthread | 3 | 2 | WG=8,MASK=5 | 1.000 ms |\n"
                           "| conv1d N=64 | basic | 1 | 1 | WG=16,MASK=5 | 2.000 ms |\n");
        check_contains(md, "| conv1d N=64 | gx (dim 0) | static | (pthread, basic) | "
                           "(0.667, 0.333) | (0.625, 0.375) | 666.67 us | 800.00 us | "
                           "700.00 us | yes |\n"
                           "| conv1d N=64 | gx (dim 0) | dynamic | (pthread, basic) | "
                           "(0.667, 0.333) | (0.500, 0.500) | 666.67 us | 900.00 us | "
                           "850.00 us | yes |\n");
        check_contains(md, "| bar | time |\n| --- | ---: |\n"
                           "| pthread alone | 1.000 ms |\n"
                           "| basic alone | 2.000 ms |\n"
                           "| theoretical | 666.67 us |\n"
                           "| static wall | 800.00 us |\n"
                           "| static kernel | 700.00 us |\n"
                           "| dynamic wall | 900.00 us |\n"
                           "| dynamic kernel | 850.00 us |\n"
                           "| fastest alone wall | 1.100 ms |\n");
        check_contains(md, "Computed factor of pthread: 0.625 adjusted (optimal 0.667), "
                           "measured wall 800.00 us.");
        check_contains(md, "| f (pthread) | 1 - f (basic) | theoretical | wall | kernel | "
                           "verified |\n| ---: | ---: | ---: | ---: | ---: | --- |\n"
                           "| 0.000 | 1.000 | 2.000 ms | 2.100 ms | 2.000 ms | yes |\n"
                           "| 0.500 | 0.500 | 1.000 ms | 1.200 ms | 1.100 ms | yes |\n"
                           "| 1.000 | 0.000 | 1.000 ms | 1.100 ms | 1.000 ms | **no** |\n");
        check_contains(md, "> **No pictures**: drawing was turned off.");
        check_lacks(md, "![");
    }
    /* The figures' data and scripts are written even without drawing. */
    check_file(path_in("tables", "fig5-conv1d_N64.dat"),
               "# Figure 5: execution times, conv1d N=64\n"
               "# bar, time (ms), kind (1 device alone, 2 theoretical, 3 wall, 4 kernel, 5 "
               "fastest alone wall)\n"
               "\"pthread alone\" 1 1\n"
               "\"basic alone\" 2 1\n"
               "\"theoretical\" 0.666667 2\n"
               "\"static wall\" 0.8 3\n"
               "\"static kernel\" 0.7 4\n"
               "\"dynamic wall\" 0.9 3\n"
               "\"dynamic kernel\" 0.85 4\n"
               "\"fastest alone wall\" 1.1 5\n");
    check_file(path_in("tables", "sweep-conv1d_N64-dim0.dat"),
               "# Split factor evaluations: conv1d N=64, split along gx\n"
               "# factor of pthread, measured wall (ms), measured kernel-only, theoretical\n"
               "0 2.1 2 2\n"
               "0.5 1.2 1.1 1\n"
               "1 1.1 1 1\n");
    {
        const char *gp = path_in("tables", "sweep-conv1d_N64-dim0.gp");
        check_contains(gp, "t0 = 1\nt1 = 2\n");
        check_contains(gp, "theory(f) = max(f * t0, (1 - f) * t1)");
        check_contains(gp, "$computed << EOD\n0.625 0.8\nEOD\n");
        check_contains(gp, "set output 'sweep-conv1d_N64-dim0.png'");
        check_contains(gp, "set output 'sweep-conv1d_N64-dim0.svg'");
    }
    assert_int_equal(access(path_in("tables", "fig5-conv1d_N64.png"), F_OK), -1);
    ht_store_close(s);
}

/* With gnuplot on PATH: every figure is a PNG and an SVG, embedded in report.md. */
static void test_report_pictures(void **state)
{
    struct ht_store *s = make_db("pictures.db");
    struct ht_report_result res;
    struct ht_error err;
    char head[8] = {0};
    FILE *f;
    (void)state;

    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        skip(); /* test_report_no_gnuplot covers the other side */
    ht_error_clear(&err);
    check_rc(ht_report_write(s, path_in("pictures", NULL), NULL, &res, &err), &err, "report");
    if (!res.pictures)
        fail_msg("gnuplot is on PATH but drew nothing: %s", res.no_pictures);
    assert_string_equal(res.no_pictures, "");
    assert_true(file_size(path_in("pictures", "fig5-conv1d_N64.png")) > 0);
    assert_true(file_size(path_in("pictures", "fig5-conv1d_N64.svg")) > 0);
    assert_true(file_size(path_in("pictures", "sweep-conv1d_N64-dim0.png")) > 0);
    assert_true(file_size(path_in("pictures", "sweep-conv1d_N64-dim0.svg")) > 0);
    f = fopen(path_in("pictures", "fig5-conv1d_N64.png"), "rb");
    assert_non_null(f);
    assert_int_equal(fread(head, 1, 4, f), 4);
    fclose(f);
    assert_memory_equal(head, "\x89PNG", 4);
    check_contains(path_in("pictures", "sweep-conv1d_N64-dim0.svg"), "<svg");
    assert_true(file_size(path_in("pictures", "tune-conv1d_N64-pthread-times.png")) > 0);
    assert_true(file_size(path_in("pictures", "tune-conv1d_N64-basic-times.svg")) > 0);
    assert_true(file_size(path_in("pictures", "tune-conv1d_N64-pthread-best.png")) > 0);
    check_contains(path_in("pictures", "tune-conv1d_N64-pthread-best.svg"), "<svg");
    check_contains(path_in("pictures", "report.md"),
                   "![Figure 5: execution times, conv1d N=64](fig5-conv1d_N64.png)");
    check_contains(path_in("pictures", "report.md"),
                   "![Split factor evaluations: conv1d N=64, split along gx]"
                   "(sweep-conv1d_N64-dim0.png)");
    check_lacks(path_in("pictures", "report.md"), "No pictures");
    ht_report_result_destroy(&res);
    ht_store_close(s);
}

/* PATH without gnuplot, and a gnuplot that fails: the tables come out, and report.md says
 * why there are no pictures. */
static void test_report_no_gnuplot(void **state)
{
    struct ht_store *s = make_db("nognuplot.db");
    struct ht_report_opts opts;
    struct ht_report_result res;
    struct ht_error err;
    char *old_path = ht__strdup(getenv("PATH"));
    const char *empty = path_in("emptybin", NULL);
    (void)state;

    assert_int_equal(mkdir(empty, 0777), 0);
    setenv("PATH", empty, 1);
    ht_error_clear(&err);
    check_rc(ht_report_write(s, path_in("nognuplot", NULL), NULL, &res, &err), &err, "report");
    if (old_path)
        setenv("PATH", old_path, 1);
    else
        unsetenv("PATH");
    free(old_path);
    assert_int_equal(res.pictures, 0);
    assert_int_equal(res.figures, 5);
    assert_non_null(strstr(res.no_pictures, "gnuplot was not found on PATH"));
    assert_true(file_size(path_in("nognuplot", "tune-conv1d_N64-pthread-best.dat")) > 0);
    assert_true(file_size(path_in("nognuplot", "tune-conv1d_N64-pthread-best.gp")) > 0);
    assert_int_equal(access(path_in("nognuplot", "tune-conv1d_N64-pthread-best.png"), F_OK), -1);
    check_contains(path_in("nognuplot", "report.md"),
                   "> **No pictures**: gnuplot was not found on PATH (install gnuplot");
    check_lacks(path_in("nognuplot", "report.md"), "![");
    assert_true(file_size(path_in("nognuplot", "factors.csv")) > 0);
    assert_true(file_size(path_in("nognuplot", "fig5-conv1d_N64.gp")) > 0);
    assert_int_equal(access(path_in("nognuplot", "fig5-conv1d_N64.png"), F_OK), -1);
    assert_int_equal(access(path_in("nognuplot", "gnuplot.log"), F_OK), -1);
    ht_report_result_destroy(&res);

    ht_report_opts_init(&opts);
    opts.gnuplot = "/bin/false";
    check_rc(ht_report_write(s, path_in("failing", NULL), &opts, &res, &err), &err, "report");
    assert_int_equal(res.pictures, 0);
    assert_non_null(strstr(res.no_pictures, "gnuplot (/bin/false) failed on fig5-conv1d_N64.gp"));
    check_contains(path_in("failing", "report.md"), "its messages are in gnuplot.log");
    ht_report_result_destroy(&res);

    opts.gnuplot = "/no/such/gnuplot";
    check_rc(ht_report_write(s, path_in("missing", NULL), &opts, &res, &err), &err, "report");
    assert_int_equal(res.pictures, 0);
    assert_non_null(strstr(res.no_pictures, "/no/such/gnuplot was not found ("));
    ht_report_result_destroy(&res);
    ht_store_close(s);
}

/* Nothing to report is an error; --spec keeps only its case studies; two problems with the
 * same name and sizes get files of their own. */
static void test_report_selection(void **state)
{
    struct ht_store *s = NULL;
    struct ht_report_opts opts;
    struct ht_report_result res;
    struct ht_error err;
    struct mini_spec spec;
    int64_t kernel, problem;
    (void)state;

    ht_error_clear(&err);
    check_rc(ht_store_open(path_in("empty.db", NULL), &s, &err), &err, "open");
    assert_int_equal(ht_report_write(s, path_in("empty", NULL), NULL, &res, &err), HT_ENOTFOUND);
    assert_null(res.path); /* an error leaves no string to free */
    assert_null(res.figure_list);
    assert_non_null(strstr(err.text, "nothing to report"));
    assert_string_equal(err.file, path_in("empty.db", NULL));
    assert_int_equal(access(path_in("empty", NULL), F_OK), -1);
    ht_store_close(s);

    s = make_db("selection.db");
    ht_report_opts_init(&opts);
    opts.gnuplot = "";
    opts.spec = "matmul";
    ht_error_clear(&err);
    assert_int_equal(ht_report_write(s, path_in("sel", NULL), &opts, &res, &err), HT_ENOTFOUND);
    assert_non_null(strstr(err.text, "spec 'matmul'"));

    /* The same spec name and sizes, another kernel source: a second case study. */
    fill_spec(&spec, "__kernel void conv1d_local() { /* edited */ }");
    ht_error_clear(&err);
    check_rc(ht_store_kernel_id(s, &spec.spec, &kernel, &err), &err, "kernel");
    check_rc(ht_store_problem_id(s, kernel, &spec.spec, &problem, &err), &err, "problem");
    assert_int_equal(problem, 2);
    put_eval(s, problem, 2, 32, "ok", 0.003);
    opts.spec = "conv1d";
    check_rc(ht_report_write(s, path_in("sel", NULL), &opts, &res, &err), &err, "report");
    assert_int_equal(res.cases, 2);
    ht_report_result_destroy(&res);
    /* No result asked for: what would have filled it is freed (LeakSanitizer). */
    check_rc(ht_report_write(s, path_in("sel", NULL), &opts, NULL, &err), &err, "report");
    check_file(path_in("sel", "tuning.csv"),
               "case,spec,sizes,problem_id,device_id,device,evaluations,ok,best_config,"
               "best_seconds\n"
               "conv1d N=64,conv1d,N=64,1,1,pthread,3,2,\"WG=8,MASK=5\",0.001\n"
               "conv1d N=64,conv1d,N=64,1,2,basic,1,1,\"WG=16,MASK=5\",0.002\n"
               "conv1d N=64 (problem 2),conv1d,N=64,2,2,basic,1,1,\"WG=32,MASK=5\",0.003\n");
    ht_store_close(s);
}

/* What a listing walked: problems, devices or splits, each a copy. */
struct walked {
    struct ht_stored_problem problems[4];
    struct ht_stored_device devices[4];
    struct ht_stored_split splits[4]; /* devices not kept */
    size_t ndevices_of[4];
    char config_of_second[HT_STORE_CONFIG_MAX]; /* the split's second device's configuration */
    size_t n, stop_at;               /* return 5 at the stop_at-th (0: never) */
};

static int walked_next(struct walked *w)
{
    assert_true(w->n < 4);
    return ++w->n == w->stop_at ? 5 : 0;
}

static int walk_problem(const struct ht_stored_problem *p, void *user)
{
    struct walked *w = user;
    w->problems[w->n] = *p;
    return walked_next(w);
}

static int walk_device(const struct ht_stored_device *d, void *user)
{
    struct walked *w = user;
    w->devices[w->n] = *d;
    return walked_next(w);
}

static int walk_split(const struct ht_stored_split *sp, void *user)
{
    struct walked *w = user;
    w->splits[w->n] = *sp;
    w->splits[w->n].devices = NULL;
    w->ndevices_of[w->n] = sp->ndevices;
    if (sp->ndevices > 1)
        snprintf(w->config_of_second, sizeof w->config_of_second, "%s", sp->devices[1].config);
    return walked_next(w);
}

/* The store's listings the report and the exports read (store.h): problems with their
 * kernel's names, devices, splits with their devices, in the order stored, a non-zero
 * return of the callback stopping each. Then the report leaves out a problem with nothing
 * stored and orders its case studies by spec name, not by id. */
static void test_store_listings(void **state)
{
    struct ht_store *s = make_db("query.db");
    struct walked *w = calloc(1, sizeof *w);
    struct ht_report_opts opts;
    struct ht_report_result res;
    struct mini_spec spec;
    struct ht_error err;
    int64_t kernel, first_kernel, bare, alpha;
    (void)state;

    assert_non_null(w);
    ht_error_clear(&err);
    /* A problem of another kernel with nothing stored, then one of spec "alpha" with an
     * evaluation: ids 2 and 3, "alpha" sorting before "conv1d". */
    fill_spec(&spec, "__kernel void conv1d_local() { /* bare */ }");
    check_rc(ht_store_kernel_id(s, &spec.spec, &kernel, &err), &err, "kernel");
    check_rc(ht_store_problem_id(s, kernel, &spec.spec, &bare, &err), &err, "problem");
    fill_spec(&spec, "__kernel void conv1d_local() { /* alpha */ }");
    snprintf(spec.name, sizeof spec.name, "alpha");
    snprintf(spec.kernel_name, sizeof spec.kernel_name, "alpha_k");
    check_rc(ht_store_kernel_id(s, &spec.spec, &kernel, &err), &err, "kernel");
    check_rc(ht_store_problem_id(s, kernel, &spec.spec, &alpha, &err), &err, "problem");
    assert_int_equal(bare, 2);
    assert_int_equal(alpha, 3);
    put_eval(s, alpha, 2, 8, "ok", 0.004);

    check_rc(ht_store_list_problems(s, 0, walk_problem, w, &err), &err, "problems");
    assert_int_equal(w->n, 3);
    assert_int_equal(w->problems[0].id, 1);
    assert_string_equal(w->problems[0].kernel_name, "conv1d_local");
    assert_string_equal(w->problems[0].spec_name, "conv1d");
    assert_string_equal(w->problems[0].sizes, "N=64");
    assert_string_equal(w->problems[0].params, "WG,MASK");
    first_kernel = w->problems[0].kernel_id;
    assert_int_equal(w->problems[1].id, 2);
    assert_int_equal(w->problems[2].id, 3);
    assert_int_equal(w->problems[2].kernel_id, kernel);
    assert_string_equal(w->problems[2].kernel_name, "alpha_k");
    assert_string_equal(w->problems[2].spec_name, "alpha");
    memset(w, 0, sizeof *w);
    check_rc(ht_store_list_problems(s, first_kernel, walk_problem, w, &err), &err, "of one");
    assert_int_equal(w->n, 1);
    assert_int_equal(w->problems[0].id, 1);
    memset(w, 0, sizeof *w);
    w->stop_at = 2;
    assert_int_equal(ht_store_list_problems(s, 0, walk_problem, w, &err), 5);
    assert_int_equal(w->n, 2);

    memset(w, 0, sizeof *w);
    check_rc(ht_store_list_devices(s, walk_device, w, &err), &err, "devices");
    assert_int_equal(w->n, 2);
    assert_int_equal(w->devices[0].id, 1);
    assert_string_equal(w->devices[0].name, "pthread-skylake");
    assert_string_equal(w->devices[0].platform, "Portable Computing Language");
    assert_string_equal(w->devices[0].platform_version, "OpenCL 3.0 PoCL 5.0");
    assert_string_equal(w->devices[0].vendor, "GenuineIntel");
    assert_string_equal(w->devices[0].type, "CPU");
    assert_string_equal(w->devices[0].version, "OpenCL 3.0 PoCL");
    assert_string_equal(w->devices[0].driver_version, "5.0");
    assert_int_equal(w->devices[0].compute_units, 2);
    assert_int_equal(w->devices[0].max_work_group_size, 4096);
    for (int k = 0; k < 3; k++)
        assert_int_equal(w->devices[0].max_work_item_sizes[k], 4096);
    assert_int_equal(w->devices[0].local_mem_size, 1 << 20);
    assert_true(w->devices[0].global_mem_size == UINT64_C(1) << 32);
    assert_true(w->devices[0].max_mem_alloc_size == UINT64_C(1) << 30);
    assert_non_null(strstr(w->devices[0].first_seen, "Z"));
    assert_int_equal(w->devices[1].id, 2);
    assert_string_equal(w->devices[1].name, "basic-skylake");
    assert_int_equal(w->devices[1].compute_units, 1);
    memset(w, 0, sizeof *w);
    w->stop_at = 1;
    assert_int_equal(ht_store_list_devices(s, walk_device, w, &err), 5);
    assert_int_equal(w->n, 1);

    /* Splits 1 and 2 static (2 newer, both with sweeps), 3 dynamic; none of the others. */
    memset(w, 0, sizeof *w);
    check_rc(ht_store_list_splits(s, 1, walk_split, w, &err), &err, "splits");
    assert_int_equal(w->n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(w->splits[i].id, (int64_t)i + 1);
        assert_int_equal(w->splits[i].problem_id, 1);
        assert_int_equal(w->ndevices_of[i], 2);
    }
    assert_string_equal(w->splits[0].scheduler, "static");
    assert_string_equal(w->splits[2].scheduler, "dynamic");
    assert_true(w->splits[1].seconds == 0.0008 && w->splits[1].kernel_seconds == 0.0007);
    assert_string_equal(w->config_of_second, "WG=16,MASK=5");
    memset(w, 0, sizeof *w);
    check_rc(ht_store_list_splits(s, 0, walk_split, w, &err), &err, "every split");
    assert_int_equal(w->n, 3);
    memset(w, 0, sizeof *w);
    check_rc(ht_store_list_splits(s, bare, walk_split, w, &err), &err, "no splits");
    assert_int_equal(w->n, 0);
    memset(w, 0, sizeof *w);
    w->stop_at = 2;
    assert_int_equal(ht_store_list_splits(s, 1, walk_split, w, &err), 5);
    assert_int_equal(w->n, 2);

    ht_report_opts_init(&opts);
    opts.gnuplot = "";
    ht_error_clear(&err);
    check_rc(ht_report_write(s, path_in("query", NULL), &opts, &res, &err), &err, "report");
    assert_int_equal(res.cases, 2);
    ht_report_result_destroy(&res);
    check_file(path_in("query", "tuning.csv"),
               "case,spec,sizes,problem_id,device_id,device,evaluations,ok,best_config,"
               "best_seconds\n"
               "alpha N=64,alpha,N=64,3,2,basic,1,1,\"WG=8,MASK=5\",0.004\n"
               "conv1d N=64,conv1d,N=64,1,1,pthread,3,2,\"WG=8,MASK=5\",0.001\n"
               "conv1d N=64,conv1d,N=64,1,2,basic,1,1,\"WG=16,MASK=5\",0.002\n");
    free(w);
    ht_store_close(s);
}

/* Two names of 300 characters that share their first 255: a ends in 'a', b in 'b'. */
static void long_names(char a[301], char b[301])
{
    memset(a, 'n', 300);
    a[300] = '\0';
    memcpy(b, a, 301);
    a[299] = 'a';
    b[299] = 'b';
}

/* Stores a kernel of spec name (its source marked by mark, so that each is a kernel of its
 * own) and its problem, with a space size of the product on device 1; returns the
 * problem's id. */
/* Stores spec's kernel and problem with a space size of `size` on device 1; the problem. */
static int64_t put_problem(struct ht_store *s, const struct ht_spec *spec, uint64_t size)
{
    struct ht_error err;
    int64_t kernel, problem;

    ht_error_clear(&err);
    check_rc(ht_store_kernel_id(s, spec, &kernel, &err), &err, "kernel");
    check_rc(ht_store_problem_id(s, kernel, spec, &problem, &err), &err, "problem");
    put_space(s, problem, 1, HT_EQ3_PRODUCT, size, 0.5);
    return problem;
}

static int64_t put_named(struct ht_store *s, char *name, const char *mark,
                         uint64_t size)
{
    char source[128];
    struct mini_spec spec;

    snprintf(source, sizeof source, "__kernel void conv1d_local() { /* %s */ }", mark);
    fill_spec(&spec, source);
    spec.spec.name = name;
    return put_problem(s, &spec.spec, size);
}

/* --spec compares the whole name (ht_report_opts.spec), not the 255 bytes of it that
 * struct ht_stored_problem's spec_name keeps: two specs whose names of 300 characters share
 * their first 255 are told apart, and those 255 alone name neither. (Space sizes only: a
 * case study's figures are files named after its spec, too long a name for a file.) */
static void test_long_spec_name(void **state)
{
    struct ht_store *s = make_db("longname.db");
    struct ht_report_opts opts;
    struct ht_report_result res;
    struct ht_error err;
    char a[301], b[301], prefix[256], row[64];
    int64_t pa, pb;
    (void)state;

    long_names(a, b);
    memcpy(prefix, a, 255);
    prefix[255] = '\0';
    ht_error_clear(&err);
    pa = put_named(s, a, "a", 13);
    pb = put_named(s, b, "b", 14);
    /* Tuning figures too: their file names carry the name, cut and marked by a checksum so
     * that they stay under a file system's 255 bytes and differ (HT_EIO, "File name too
     * long", before). */
    put_eval(s, pa, 1, 16, "ok", 0.0015);
    put_run(s, pa, 1);
    put_eval(s, pb, 1, 16, "ok", 0.0025);
    put_run(s, pb, 1);

    ht_report_opts_init(&opts);
    opts.gnuplot = "";
    check_rc(ht_report_write(s, path_in("longall", NULL), &opts, &res, &err), &err,
             "report of both");
    assert_int_equal(res.cases, 3); /* make_db's conv1d, a and b */
    {
        char *list = strdup(res.figure_list), *save = NULL, *first = NULL;
        size_t nfig = 0;
        assert_non_null(list);
        for (char *f = strtok_r(list, "\n", &save); f; f = strtok_r(NULL, "\n", &save)) {
            char dat[512];
            assert_true(strlen(f) + strlen(".dat") <= 255);
            snprintf(dat, sizeof dat, "%s.dat", f);
            assert_true(file_size(path_in("longall", dat)) > 0);
            if (!strncmp(f, "tune-nnnn", 9) && strstr(f, "-times")) {
                if (first)
                    assert_string_not_equal(first, f);
                else
                    first = f;
                nfig++;
            }
        }
        assert_int_equal(nfig, 2);
        free(list);
    }
    ht_report_result_destroy(&res);
    const char *const names[] = {a, b};
    const int64_t ids[] = {pa, pb};
    for (int i = 0; i < 2; i++) {
        opts.spec = names[i];
        check_rc(ht_report_write(s, path_in("long", NULL), &opts, &res, &err), &err, "report");
        assert_int_equal(res.cases, 1);
        ht_report_result_destroy(&res);
        snprintf(row, sizeof row, ",N=64,%" PRId64 ",1,", ids[i]);
        char *csv = slurp(path_in("long", "spaces.csv"));
        assert_non_null(strstr(csv, row));
        free(csv);
    }
    opts.spec = prefix;
    ht_error_clear(&err);
    assert_int_equal(ht_report_write(s, path_in("long", NULL), &opts, &res, &err), HT_ENOTFOUND);
    assert_non_null(strstr(err.text, "nothing to report"));
    ht_store_close(s);
}

/* The cases are ordered by the whole spec name, not the 255 bytes a case keeps of it: of
 * two names of 300 characters that share their first 255, the one stored second (a larger
 * problem id) but smaller as a whole comes first, where the cut names, equal, left the
 * order to the problem ids. */
static void test_long_spec_order(void **state)
{
    struct ht_store *s = make_db("longorder.db");
    struct ht_report_opts opts;
    struct ht_report_result res;
    struct ht_error err;
    char a[301], b[301], row[64];
    int64_t pa, pb;
    (void)state;

    long_names(a, b);
    ht_error_clear(&err);
    pb = put_named(s, b, "b", 14);
    pa = put_named(s, a, "a", 13);
    assert_true(pb < pa);

    ht_report_opts_init(&opts);
    opts.gnuplot = "";
    check_rc(ht_report_write(s, path_in("longorder", NULL), &opts, &res, &err), &err,
             "report");
    assert_int_equal(res.cases, 3); /* make_db's conv1d, then a, then b */
    ht_report_result_destroy(&res);
    char *csv = slurp(path_in("longorder", "spaces.csv")), *at_a, *at_b;
    snprintf(row, sizeof row, ",N=64,%" PRId64 ",1,", pa);
    at_a = strstr(csv, row);
    snprintf(row, sizeof row, ",N=64,%" PRId64 ",1,", pb);
    at_b = strstr(csv, row);
    assert_non_null(at_a);
    assert_non_null(at_b);
    assert_true(at_a < at_b);
    free(csv);
    ht_store_close(s);
}

/* Stores a problem of spec conv1d at sizes A00..A72 = 123456789 and N = n (1026 bytes of
 * sizes text, N's last: two such problems differ only past the 512 bytes a case kept of
 * them and the 1023 the store's sizes field keeps), with a space size, an evaluation and a
 * tuning run on device 1. Fills text with the sizes text. */
static int64_t put_long_sizes(struct ht_store *s, int64_t n, char *text, size_t size)
{
    enum { NA = 73 };
    static char names[NA + 1][16];
    char *size_names[NA + 1];
    int64_t size_values[NA + 1], problem;
    struct mini_spec spec;
    size_t len = 0;

    for (int i = 0; i <= NA; i++) {
        snprintf(names[i], sizeof names[i], i < NA ? "A%02d" : "N", i);
        size_names[i] = names[i];
        size_values[i] = i < NA ? 123456789 : n;
        len += (size_t)snprintf(text + len, size - len, "%s%s=%" PRId64, i ? "," : "",
                                names[i], size_values[i]);
    }
    assert_true(len < size);
    fill_spec(&spec, "__kernel void conv1d_local() { /* long sizes */ }");
    spec.spec.space.nsizes = NA + 1;
    spec.spec.space.size_names = size_names;
    spec.spec.space.size_values = size_values;
    problem = put_problem(s, &spec.spec, 16);
    put_eval(s, problem, 1, 16, "ok", 0.0015);
    put_run(s, problem, 1);
    return problem;
}

/* A case's label is its spec name and sizes whole: two problems whose sizes differ only
 * at their end, past the 512 bytes a case kept (and the 1023 of the store's field), are
 * labelled apart in the CSV tables and in report.md, each label whole, where the cut ones
 * were one text told apart by " (problem N)". */
static void test_long_sizes_labels(void **state)
{
    struct ht_store *s = make_db("longsizes.db");
    struct ht_report_opts opts;
    struct ht_report_result res;
    struct ht_error err;
    char sizes[2][1100], want[2 * sizeof sizes + 64]; /* gcc counts both rows */
    (void)state;

    put_long_sizes(s, 64, sizes[0], sizeof sizes[0]);
    put_long_sizes(s, 65, sizes[1], sizeof sizes[1]);
    assert_true(strlen(sizes[0]) > HT_STORE_CONFIG_MAX);
    assert_int_equal(strncmp(sizes[0], sizes[1], strlen(sizes[0]) - 1), 0);

    ht_error_clear(&err);
    ht_report_opts_init(&opts);
    opts.gnuplot = "";
    check_rc(ht_report_write(s, path_in("longsizes", NULL), &opts, &res, &err), &err,
             "report");
    assert_int_equal(res.cases, 3); /* make_db's conv1d, then the two */
    ht_report_result_destroy(&res);
    for (int i = 0; i < 2; i++) {
        char *csv = slurp(path_in("longsizes", "spaces.csv"));
        /* case and sizes, both quoted: they hold commas. */
        snprintf(want, sizeof want, "\"conv1d %s\",conv1d,\"%s\",", sizes[i], sizes[i]);
        if (!strstr(csv, want))
            fail_msg("spaces.csv lacks case %d's whole label and sizes", i);
        free(csv);
        csv = slurp(path_in("longsizes", "tuning.csv"));
        if (!strstr(csv, want))
            fail_msg("tuning.csv lacks case %d's whole label and sizes", i);
        free(csv);
        char *md = slurp(path_in("longsizes", "report.md"));
        snprintf(want, sizeof want, "| conv1d %s |", sizes[i]);
        if (!strstr(md, want))
            fail_msg("report.md's tables lack case %d's whole label", i);
        snprintf(want, sizeof want, "### Configuration times: conv1d %s on ", sizes[i]);
        if (!strstr(md, want))
            fail_msg("report.md's figure titles lack case %d's whole label", i);
        free(md);
    }
    check_lacks(path_in("longsizes", "report.md"), "(problem ");
    ht_store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_spaces),
        cmocka_unit_test(test_report_tables),
        cmocka_unit_test(test_report_pictures),
        cmocka_unit_test(test_report_no_gnuplot),
        cmocka_unit_test(test_report_selection),
        cmocka_unit_test(test_store_listings),
        cmocka_unit_test(test_long_spec_name),
        cmocka_unit_test(test_long_spec_order),
        cmocka_unit_test(test_long_sizes_labels),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
