/* Unit tests of the results database (src/store/), without OpenCL: devices and specs are
 * filled by hand. Round trip of every field, identities of devices, kernels and problems,
 * uniqueness and replacement, the choice of the best evaluation, listing and forgetting,
 * reopening, refusing files that are not hetune databases, and crash safety: children
 * writing evaluations are SIGKILLed at random moments and the database must hold every
 * evaluation they reported stored, at most one more, and never part of one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hetune/exec.h"
#include "hetune/store.h"
#include "store/store-internal.h"
#include "util/util.h"

static char tmpdir[256];

/* ---- fixtures ------------------------------------------------------------------------- */

static int make_tmpdir(void **state)
{
    const char *base = getenv("TMPDIR");
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "%s/test_store.XXXXXX", base && base[0] ? base : "/tmp");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    (void)state;
    if (!d)
        return 0;
    while ((e = readdir(d))) {
        char path[600];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(tmpdir);
    return 0;
}

static void db_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", tmpdir, name);
}

static void fill_device(struct ht_device_info *d, const char *name, const char *driver)
{
    memset(d, 0, sizeof *d);
    snprintf(d->platform, sizeof d->platform, "Portable Computing Language");
    snprintf(d->platform_version, sizeof d->platform_version, "OpenCL 3.0 PoCL 5.0");
    snprintf(d->name, sizeof d->name, "%s", name);
    snprintf(d->vendor, sizeof d->vendor, "GenuineIntel");
    snprintf(d->type, sizeof d->type, "CPU");
    d->is_cpu = 1;
    snprintf(d->version, sizeof d->version, "OpenCL 3.0 PoCL HSTR: cpu");
    snprintf(d->driver_version, sizeof d->driver_version, "%s", driver);
    d->compute_units = 2;
    d->max_work_group_size = 4096;
    d->max_work_item_dims = 3;
    d->max_work_item_sizes[0] = d->max_work_item_sizes[1] = d->max_work_item_sizes[2] = 4096;
    d->local_mem_size = 4194304;
    d->global_mem_size = UINT64_C(8) << 30;
    d->max_mem_alloc_size = UINT64_C(2) << 30;
}

/* A spec with only what the store reads. Its strings point into the struct itself. */
struct mini_spec {
    struct ht_spec spec;
    char name[32], path[64], kernel_path[64], kernel_name[32], options[32], source[128];
    char *size_names[3];
    int64_t size_values[3];
    char size_buf[3][8];
    struct ht_param params[3];
    char param_buf[3][8];
};

static void fill_spec(struct mini_spec *m, const char *source, const char *sizes[],
                      const int64_t *values, size_t nsizes, const char *params[],
                      size_t nparams)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "matmul");
    snprintf(m->path, sizeof m->path, "examples/matmul/spec.json");
    snprintf(m->kernel_path, sizeof m->kernel_path, "examples/matmul/matmul.cl");
    snprintf(m->kernel_name, sizeof m->kernel_name, "matmul_tiled");
    snprintf(m->source, sizeof m->source, "%s", source);
    m->spec.name = m->name;
    m->spec.path = m->path;
    m->spec.kernel_path = m->kernel_path;
    m->spec.kernel_name = m->kernel_name;
    m->spec.kernel_options = m->options;
    m->spec.source = m->source;
    m->spec.source_len = strlen(m->source);
    for (size_t i = 0; i < nsizes; i++) {
        snprintf(m->size_buf[i], sizeof m->size_buf[i], "%s", sizes[i]);
        m->size_names[i] = m->size_buf[i];
        m->size_values[i] = values[i];
    }
    m->spec.space.nsizes = nsizes;
    m->spec.space.size_names = m->size_names;
    m->spec.space.size_values = m->size_values;
    for (size_t i = 0; i < nparams; i++) {
        snprintf(m->param_buf[i], sizeof m->param_buf[i], "%s", params[i]);
        m->params[i].name = m->param_buf[i];
    }
    m->spec.space.nparams = nparams;
    m->spec.space.params = m->params;
}

static const char *const std_sizes[] = {"N", "M"};
static const int64_t std_values[] = {1024, 7};
static const char *const std_params[] = {"TS", "WG"};

static void std_spec(struct mini_spec *m)
{
    fill_spec(m, "__kernel void matmul_tiled() {}", (const char **)std_sizes, std_values, 2,
              (const char **)std_params, 2);
}

static struct ht_store *open_ok(const char *path)
{
    struct ht_store *s = NULL;
    struct ht_error err;
    int rc;

    ht_error_clear(&err);
    rc = ht_store_open(path, &s, &err);
    if (rc != HT_OK)
        fail_msg("opening '%s' failed: %s: %s", path, ht_err_name(rc), err.text);
    assert_non_null(s);
    return s;
}

static void check_rc(int rc, const struct ht_error *err, const char *what)
{
    if (rc != HT_OK)
        fail_msg("%s failed: %s: %s", what, ht_err_name(rc), err->text);
}

/* Creates the device, kernel and problem rows of the standard spec. */
static void std_ids(struct ht_store *s, int64_t *problem, int64_t *device)
{
    struct ht_device_info dev;
    struct mini_spec m;
    struct ht_error err;
    int64_t kernel;

    ht_error_clear(&err);
    fill_device(&dev, "pthread-cpu", "5.0+debian");
    std_spec(&m);
    check_rc(ht_store_device_id(s, &dev, device, &err), &err, "device id");
    check_rc(ht_store_kernel_id(s, &m.spec, &kernel, &err), &err, "kernel id");
    check_rc(ht_store_problem_id(s, kernel, &m.spec, problem, &err), &err, "problem id");
}

/* An evaluation of config "TS=ts,WG=8" whose every field depends on ts. */
static void make_eval(struct ht_stored_eval *ev, int64_t problem, int64_t device, int64_t ts,
                      const char *status, int verified, double seconds)
{
    const char *names[] = {"TS", "WG"};

    ht_stored_eval_init(ev);
    ev->problem_id = problem;
    ev->device_id = device;
    ev->nvalues = 2;
    ev->values[0] = ts;
    ev->values[1] = 8;
    ht_store_config_text(names, ev->values, 2, ev->config, sizeof ev->config);
    snprintf(ev->status, sizeof ev->status, "%s", status);
    if (strcmp(status, HT_STORE_OK) != 0)
        snprintf(ev->reason, sizeof ev->reason, "reason for TS=%" PRId64, ts);
    ev->verified = verified;
    ev->seconds = seconds;
    ev->nruns = (unsigned)(3 + ts % 5);
    for (unsigned i = 0; i < ev->nruns; i++)
        ev->runs[i] = seconds + 0.001 * i;
    ev->min_seconds = seconds;
}

/* ---- pure helpers --------------------------------------------------------------------- */

static void test_config_text(void **state)
{
    const char *names[] = {"TS", "WG", "V"};
    const int64_t values[] = {16, 8, -3};
    char buf[64], small[6];
    (void)state;

    assert_int_equal(ht_store_config_text(names, values, 3, buf, sizeof buf), 15);
    assert_string_equal(buf, "TS=16,WG=8,V=-3");
    assert_int_equal(ht_store_config_text(names, values, 0, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    /* Truncated like snprintf, returning the length needed. */
    assert_int_equal(ht_store_config_text(names, values, 3, small, sizeof small), 15);
    assert_string_equal(small, "TS=16");
    assert_int_equal(ht_store_config_text(names, values, 3, NULL, 0), 15);
}

static void test_kernel_hash(void **state)
{
    char a[17], b[17], c[17], d[17], e[17];
    (void)state;

    ht_store_kernel_hash("src", 3, "k", "", a);
    ht_store_kernel_hash("src", 3, "k", NULL, b);
    assert_string_equal(a, b);
    assert_int_equal(strlen(a), 16);
    assert_int_equal(strspn(a, "0123456789abcdef"), 16);
    ht_store_kernel_hash("src", 3, "k", "-cl-fast-relaxed-math", c);
    ht_store_kernel_hash("srck", 4, "", "", d); /* the separator keeps these apart */
    ht_store_kernel_hash("src", 2, "k", "", e);
    assert_string_not_equal(a, c);
    assert_string_not_equal(a, d);
    assert_string_not_equal(a, e);
    /* FNV-1a 64 of the empty input, then two NUL separators: known value. */
    {
        uint64_t h = HT__FNV_INIT;
        char want[17];
        h = ht__fnv1a(h, "", 1);
        h = ht__fnv1a(h, "", 1);
        snprintf(want, sizeof want, "%016" PRIx64, h);
        ht_store_kernel_hash("", 0, "", "", a);
        assert_string_equal(a, want);
    }
    assert_string_equal(ht_store_status_name(HT_OK), "ok");
    assert_string_equal(ht_store_status_name(HT_EBUILD), "build");
    assert_string_equal(ht_store_status_name(HT_ELAUNCH), "launch");
    assert_string_equal(ht_store_status_name(HT_EVERIFY), "verify");
    assert_string_equal(ht_store_status_name(HT_ECONSTRAINT), "constraint");
    assert_string_equal(ht_store_status_name(HT_ECL), "cl");
    assert_string_equal(ht_store_status_name(HT_ENOMEM), "error");
}

/* ---- identities ----------------------------------------------------------------------- */

static void test_ids(void **state)
{
    char path[512];
    struct ht_store *s;
    struct ht_device_info dev;
    struct mini_spec m;
    struct ht_error err;
    int64_t d1, d1b, d2, d3, k1, k1b, k2, k3, p1, p1b, p2, p3, p4, p5;
    (void)state;

    db_path(path, sizeof path, "ids.db");
    s = open_ok(path);
    ht_error_clear(&err);

    fill_device(&dev, "pthread-cpu", "5.0+debian");
    check_rc(ht_store_device_id(s, &dev, &d1, &err), &err, "device");
    check_rc(ht_store_device_id(s, &dev, &d1b, &err), &err, "device again");
    assert_true(d1 > 0);
    assert_int_equal(d1, d1b);
    /* A new driver is a new device; so is a device whose limits changed. */
    fill_device(&dev, "pthread-cpu", "6.0");
    check_rc(ht_store_device_id(s, &dev, &d2, &err), &err, "new driver");
    assert_int_not_equal(d1, d2);
    fill_device(&dev, "pthread-cpu", "5.0+debian");
    dev.compute_units = 1;
    check_rc(ht_store_device_id(s, &dev, &d3, &err), &err, "fewer compute units");
    assert_int_not_equal(d1, d3);
    assert_int_not_equal(d2, d3);
    /* Fields outside the identity (OpenCL handles, the index) do not matter. */
    fill_device(&dev, "pthread-cpu", "5.0+debian");
    dev.index = 7;
    dev.cl_device = &dev;
    check_rc(ht_store_device_id(s, &dev, &d1b, &err), &err, "same device, other index");
    assert_int_equal(d1, d1b);

    std_spec(&m);
    check_rc(ht_store_kernel_id(s, &m.spec, &k1, &err), &err, "kernel");
    /* The spec moved: same kernel, its path is updated. */
    snprintf(m.path, sizeof m.path, "elsewhere/spec.json");
    check_rc(ht_store_kernel_id(s, &m.spec, &k1b, &err), &err, "kernel moved");
    assert_int_equal(k1, k1b);
    {
        sqlite3_stmt *st;
        assert_int_equal(sqlite3_prepare_v2(ht__store_db(s),
                                            "SELECT spec_path, hash, kernel_name FROM kernels "
                                            "WHERE id = ?",
                                            -1, &st, NULL),
                         SQLITE_OK);
        sqlite3_bind_int64(st, 1, k1);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        assert_string_equal((const char *)sqlite3_column_text(st, 0), "elsewhere/spec.json");
        char want[17];
        ht_store_kernel_hash(m.source, strlen(m.source), "matmul_tiled", "", want);
        assert_string_equal((const char *)sqlite3_column_text(st, 1), want);
        assert_string_equal((const char *)sqlite3_column_text(st, 2), "matmul_tiled");
        sqlite3_finalize(st);
    }
    snprintf(m.options, sizeof m.options, "-DX=1");
    check_rc(ht_store_kernel_id(s, &m.spec, &k2, &err), &err, "other options");
    assert_int_not_equal(k1, k2);
    std_spec(&m);
    m.source[0] = ' ';
    check_rc(ht_store_kernel_id(s, &m.spec, &k3, &err), &err, "other source");
    assert_int_not_equal(k1, k3);
    assert_int_not_equal(k2, k3);

    std_spec(&m);
    check_rc(ht_store_problem_id(s, k1, &m.spec, &p1, &err), &err, "problem");
    /* The order of the sizes does not make a new problem. */
    {
        const char *sz[] = {"M", "N"};
        const int64_t v[] = {7, 1024};
        fill_spec(&m, "__kernel void matmul_tiled() {}", sz, v, 2, (const char **)std_params,
                  2);
        check_rc(ht_store_problem_id(s, k1, &m.spec, &p1b, &err), &err, "sizes reordered");
        assert_int_equal(p1, p1b);
    }
    {
        const char *sz[] = {"N", "M"};
        const int64_t v[] = {2048, 7};
        fill_spec(&m, "x", sz, v, 2, (const char **)std_params, 2);
        check_rc(ht_store_problem_id(s, k1, &m.spec, &p2, &err), &err, "other size");
        assert_int_not_equal(p1, p2);
    }
    {
        const char *pa[] = {"TS"};
        fill_spec(&m, "x", (const char **)std_sizes, std_values, 2, pa, 1);
        check_rc(ht_store_problem_id(s, k1, &m.spec, &p3, &err), &err, "other params");
        assert_int_not_equal(p1, p3);
    }
    std_spec(&m);
    check_rc(ht_store_problem_id(s, k2, &m.spec, &p4, &err), &err, "other kernel");
    assert_int_not_equal(p1, p4);
    fill_spec(&m, "x", NULL, NULL, 0, NULL, 0);
    check_rc(ht_store_problem_id(s, k1, &m.spec, &p5, &err), &err, "no sizes, no params");
    assert_int_not_equal(p1, p5);
    {
        sqlite3_stmt *st;
        assert_int_equal(sqlite3_prepare_v2(ht__store_db(s),
                                            "SELECT sizes, params FROM problems WHERE id = ?",
                                            -1, &st, NULL),
                         SQLITE_OK);
        sqlite3_bind_int64(st, 1, p1);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        assert_string_equal((const char *)sqlite3_column_text(st, 0), "M=7,N=1024");
        assert_string_equal((const char *)sqlite3_column_text(st, 1), "TS,WG");
        sqlite3_finalize(st);
    }
    /* A problem of a kernel that does not exist breaks the foreign key. */
    std_spec(&m);
    assert_int_equal(ht_store_problem_id(s, 9999, &m.spec, &p5, &err), HT_EDB);
    assert_non_null(strstr(err.text, "cannot store the problem"));
    assert_non_null(strstr(err.text, "FOREIGN KEY"));
    assert_string_equal(err.file, path);
    ht_store_close(s);
}

/* ---- evaluations ---------------------------------------------------------------------- */

static void assert_same_eval(const struct ht_stored_eval *a, const struct ht_stored_eval *b)
{
    assert_int_equal(a->problem_id, b->problem_id);
    assert_int_equal(a->device_id, b->device_id);
    assert_string_equal(a->config, b->config);
    assert_int_equal(a->nvalues, b->nvalues);
    for (size_t i = 0; i < a->nvalues; i++)
        assert_int_equal(a->values[i], b->values[i]);
    assert_string_equal(a->status, b->status);
    assert_string_equal(a->reason, b->reason);
#define SAME_REAL(f)                                                                        \
    do {                                                                                    \
        if (!(isnan(a->f) && isnan(b->f)) && a->f != b->f)                                  \
            fail_msg(#f ": %.17g != %.17g", a->f, b->f);                                    \
    } while (0)
    SAME_REAL(seconds);
    SAME_REAL(min_seconds);
    SAME_REAL(write_seconds);
    SAME_REAL(read_seconds);
    SAME_REAL(build_seconds);
    SAME_REAL(max_abs_err);
    SAME_REAL(max_rel_err);
    assert_int_equal(a->cache_hit, b->cache_hit);
    assert_int_equal(a->verified, b->verified);
    assert_int_equal(a->mismatches, b->mismatches);
    assert_int_equal(a->ndims, b->ndims);
    for (unsigned d = 0; d < a->ndims; d++) {
        assert_int_equal(a->global[d], b->global[d]);
        assert_int_equal(a->local[d], b->local[d]);
    }
    assert_string_equal(a->strategy, b->strategy);
    assert_int_equal(a->seed, b->seed);
    assert_int_equal(a->nruns, b->nruns);
    for (unsigned i = 0; i < a->nruns; i++)
        SAME_REAL(runs[i]);
#undef SAME_REAL
}

static void test_round_trip(void **state)
{
    char path[512];
    struct ht_store *s;
    struct ht_stored_eval *in = malloc(sizeof *in), *out = malloc(sizeof *out);
    struct ht_error err;
    int64_t problem, device, id = 0;
    (void)state;

    assert_non_null(in);
    assert_non_null(out);
    db_path(path, sizeof path, "round.db");
    s = open_ok(path);
    ht_error_clear(&err);
    std_ids(s, &problem, &device);

    /* Every field set to something other than its default. */
    make_eval(in, problem, device, 16, HT_STORE_VERIFY, 0, 0.00125);
    in->min_seconds = 0.001;
    in->write_seconds = 0.0002;
    in->read_seconds = 0.0003;
    in->build_seconds = 0.75;
    in->cache_hit = 1;
    in->max_abs_err = NAN; /* a NaN output: kept as NaN, not "not measured" */
    in->max_rel_err = INFINITY;
    in->mismatches = 42;
    in->ndims = 2;
    in->global[0] = 1024;
    in->global[1] = 512;
    in->local[0] = 16;
    in->local[1] = 8;
    snprintf(in->strategy, sizeof in->strategy, "genetic");
    in->seed = UINT64_MAX - 5; /* above INT64_MAX: stored by its bits */
    in->nruns = HT_STORE_MAX_RUNS;
    for (unsigned i = 0; i < in->nruns; i++)
        in->runs[i] = 1e-6 * (i + 1) + 1e-12;
    snprintf(in->reason, sizeof in->reason, "C[3][17]: got nan, expected 12.5 'quoted'");
    check_rc(ht_store_put_eval(s, in, &id, &err), &err, "put");
    assert_true(id > 0);

    assert_int_equal(ht__store_lookup_eval(s, problem, device, "TS=16,WG=8", out, &err), HT_OK);
    assert_int_equal(out->id, id);
    assert_same_eval(in, out);
    assert_true(isnan(out->max_abs_err));
    assert_true(isinf(out->max_rel_err));
    /* created_at was filled: "YYYY-MM-DDTHH:MM:SS.mmmZ". */
    assert_int_equal(strlen(out->created_at), 24);
    assert_int_equal(out->created_at[10], 'T');
    assert_int_equal(out->created_at[23], 'Z');

    /* Defaults: -1 means not measured and comes back as -1; a given timestamp is kept;
     * the local size left to the runtime comes back as zeros. */
    make_eval(in, problem, device, 32, HT_STORE_BUILD, -1, -1);
    in->nruns = 0;
    in->min_seconds = -1;
    in->ndims = 1;
    in->global[0] = 100;
    snprintf(in->created_at, sizeof in->created_at, "2020-01-02T03:04:05.678Z");
    check_rc(ht_store_put_eval(s, in, NULL, &err), &err, "put build failure");
    assert_int_equal(ht__store_lookup_eval(s, problem, device, "TS=32,WG=8", out, &err), HT_OK);
    assert_same_eval(in, out);
    assert_true(out->seconds == -1 && out->build_seconds == -1 && out->max_abs_err == -1);
    assert_int_equal(out->local[0], 0);
    assert_string_equal(out->created_at, "2020-01-02T03:04:05.678Z");

    /* Absent: HT_ENOTFOUND, err untouched. */
    assert_int_equal(ht__store_lookup_eval(s, problem, device, "TS=64,WG=8", out, &err),
                     HT_ENOTFOUND);
    assert_int_equal(ht__store_lookup_eval(s, problem, device + 100, "TS=16,WG=8", out, &err),
                     HT_ENOTFOUND);
    assert_int_equal(err.code, 0);

    /* Malformed evaluations are refused before anything is written. */
    make_eval(in, problem, device, 8, "fast", 1, 1.0);
    assert_int_equal(ht_store_put_eval(s, in, NULL, &err), HT_EINVAL);
    assert_non_null(strstr(err.text, "unknown evaluation status 'fast'"));
    ht_error_clear(&err);
    make_eval(in, problem, device, 8, HT_STORE_OK, 1, 1.0);
    in->config[0] = '\0';
    assert_int_equal(ht_store_put_eval(s, in, NULL, &err), HT_EINVAL);
    ht_error_clear(&err);
    make_eval(in, problem, device, 8, HT_STORE_OK, 2, 1.0);
    assert_int_equal(ht_store_put_eval(s, in, NULL, &err), HT_EINVAL);
    ht_error_clear(&err);
    make_eval(in, problem, device, 8, HT_STORE_OK, 1, 1.0);
    in->nruns = HT_STORE_MAX_RUNS + 1;
    assert_int_equal(ht_store_put_eval(s, in, NULL, &err), HT_EINVAL);
    ht_error_clear(&err);
    /* A device that does not exist: the foreign key fails, nothing is kept. */
    make_eval(in, problem, device + 100, 8, HT_STORE_OK, 1, 1.0);
    assert_int_equal(ht_store_put_eval(s, in, NULL, &err), HT_EDB);
    assert_non_null(strstr(err.text, "cannot store the evaluation"));
    ht_error_clear(&err);
    {
        uint64_t n = 0;
        check_rc(ht_store_count_evals(s, 0, 0, &n, &err), &err, "count");
        assert_int_equal(n, 2);
        /* The failed put rolled back: a new one goes through. */
        make_eval(in, problem, device, 8, HT_STORE_OK, 1, 1.0);
        check_rc(ht_store_put_eval(s, in, NULL, &err), &err, "put after failure");
        check_rc(ht_store_count_evals(s, 0, 0, &n, &err), &err, "count");
        assert_int_equal(n, 3);
    }
    ht_store_close(s);
    free(in);
    free(out);
}

static int64_t count_rows(struct ht_store *s, const char *sql)
{
    int64_t n = -1;
    struct ht_error err;
    ht_error_clear(&err);
    check_rc(ht__store_query_int(s, sql, &n, "count", &err), &err, sql);
    return n;
}

/* Stores a split of problem over devs[0..n) that measured seconds against predicted (-1:
 * none); its id into *id. */
static void put_split(struct ht_store *s, int64_t problem, const int64_t *devs, size_t n,
                      double seconds, double predicted, int64_t *id)
{
    struct ht_stored_split sp;
    struct ht_stored_split_device sd[3];
    struct ht_error err;

    ht_error_clear(&err);
    ht_stored_split_init(&sp);
    memset(sd, 0, sizeof sd);
    sp.problem_id = problem;
    snprintf(sp.scheduler, sizeof sp.scheduler, "static");
    sp.global = 1024;
    sp.seconds = seconds;
    sp.predicted_seconds = predicted;
    for (size_t i = 0; i < n; i++) {
        sd[i].device_id = devs[i];
        snprintf(sd[i].config, sizeof sd[i].config, "TS=4,WG=8");
        sd[i].wg = 8;
    }
    sp.ndevices = n;
    sp.devices = sd;
    check_rc(ht_store_put_split(s, &sp, id, &err), &err, "put split");
}

/* ht_store_split_errors: only the problem's splits with a prediction over exactly the
 * devices asked (any order, a device twice counted twice), the newest by id; the
 * prediction read back; a database of schema 11 migrated, its splits without one. */
static void test_split_errors(void **state)
{
    char path[512];
    struct ht_store *s;
    struct ht_device_info dev;
    struct ht_split_errors e;
    struct ht_stored_split got;
    struct ht_error err;
    int64_t problem, a, b, c, id, first;
    (void)state;

    db_path(path, sizeof path, "split-errors.db");
    s = open_ok(path);
    ht_error_clear(&err);
    std_ids(s, &problem, &a);
    fill_device(&dev, "gpu-one", "1.0");
    check_rc(ht_store_device_id(s, &dev, &b, &err), &err, "device b");
    fill_device(&dev, "gpu-two", "1.0");
    check_rc(ht_store_device_id(s, &dev, &c, &err), &err, "device c");

    check_rc(ht_store_split_errors(s, problem, (int64_t[]){a, b}, 2, &e, &err), &err, "none");
    assert_int_equal(e.count, 0);
    assert_true(e.min == 0 && e.max == 0 && e.newest == 0);

    put_split(s, problem, (int64_t[]){a, b}, 2, 1.1, 1.0, &first);   /* +10% */
    put_split(s, problem, (int64_t[]){b, a}, 2, 0.8, 1.0, &id);      /* -20%, reordered */
    put_split(s, problem, (int64_t[]){a, b}, 2, 5.0, -1, &id);       /* no prediction */
    put_split(s, problem, (int64_t[]){a}, 1, 3.0, 1.0, &id);         /* one device */
    put_split(s, problem, (int64_t[]){a, b, c}, 3, 3.0, 1.0, &id);   /* one more */
    put_split(s, problem, (int64_t[]){a, a}, 2, 3.0, 1.0, &id);      /* a twice */
    put_split(s, problem, (int64_t[]){a, c}, 2, 3.0, 1.0, &id);      /* another pair */
    put_split(s, problem, (int64_t[]){a, b}, 2, 1.05, 1.0, &id);     /* +5%, the newest */
    put_split(s, problem, (int64_t[]){a, b}, 2, -1, 1.0, &id);       /* not measured */

    check_rc(ht_store_split_errors(s, problem, (int64_t[]){b, a}, 2, &e, &err), &err, "a, b");
    assert_int_equal(e.count, 3);
    assert_true(fabs(e.min + 0.2) < 1e-12);
    assert_true(fabs(e.max - 0.1) < 1e-12);
    assert_true(fabs(e.newest - 0.05) < 1e-12);
    check_rc(ht_store_split_errors(s, problem, (int64_t[]){a, a}, 2, &e, &err), &err, "a, a");
    assert_int_equal(e.count, 1);
    assert_true(fabs(e.max - 2.0) < 1e-12);
    check_rc(ht_store_split_errors(s, problem, (int64_t[]){c, b, a}, 3, &e, &err), &err, "3");
    assert_int_equal(e.count, 1);
    check_rc(ht_store_split_errors(s, problem + 1, (int64_t[]){a, b}, 2, &e, &err), &err,
             "another problem");
    assert_int_equal(e.count, 0);
    check_rc(ht_store_split_errors(s, problem, NULL, 0, &e, &err), &err, "no devices");
    assert_int_equal(e.count, 0);

    check_rc(ht_store_get_split(s, first, &got, &err), &err, "get");
    assert_true(got.predicted_seconds == 1.0);
    free(got.devices);

    /* A database of schema 11: the column gone, the version lowered; opening adds it back. */
    assert_int_equal(sqlite3_exec(ht__store_db(s),
                                  "ALTER TABLE splits DROP COLUMN predicted_seconds; "
                                  "DELETE FROM schema_version WHERE version >= 12; "
                                  "PRAGMA user_version = 11",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    ht_store_close(s);
    s = open_ok(path);
    assert_int_equal(count_rows(s, "PRAGMA user_version"), HT_STORE_SCHEMA_VERSION);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM schema_version WHERE version = 12 AND "
                                   "description = 'split predictions'"),
                     1);
    check_rc(ht_store_get_split(s, first, &got, &err), &err, "get after migration");
    assert_true(got.predicted_seconds == -1);
    assert_true(got.seconds == 1.1);
    free(got.devices);
    check_rc(ht_store_split_errors(s, problem, (int64_t[]){a, b}, 2, &e, &err), &err,
             "after migration");
    assert_int_equal(e.count, 0);
    ht_store_close(s);
}

static void test_unique_replaces(void **state)
{
    char path[512];
    struct ht_store *s;
    struct ht_stored_eval *ev = malloc(sizeof *ev), *out = malloc(sizeof *out);
    struct ht_error err;
    int64_t problem, device, id1, id2;
    uint64_t n;
    (void)state;

    db_path(path, sizeof path, "unique.db");
    s = open_ok(path);
    ht_error_clear(&err);
    std_ids(s, &problem, &device);
    make_eval(ev, problem, device, 4, HT_STORE_OK, 1, 2.0);
    ev->nruns = 10;
    check_rc(ht_store_put_eval(s, ev, &id1, &err), &err, "put");
    make_eval(ev, problem, device, 4, HT_STORE_OK, 1, 1.5);
    ev->nruns = 3;
    check_rc(ht_store_put_eval(s, ev, &id2, &err), &err, "put again");
    check_rc(ht_store_count_evals(s, problem, device, &n, &err), &err, "count");
    assert_int_equal(n, 1);
    assert_int_equal(ht__store_lookup_eval(s, problem, device, "TS=4,WG=8", out, &err), HT_OK);
    assert_int_equal(out->id, id2);
    assert_true(out->seconds == 1.5);
    assert_int_equal(out->nruns, 3);
    /* The old evaluation's runs went with it. */
    assert_int_equal(count_rows(s, "SELECT count(*) FROM runs"), 3);
    /* The UNIQUE constraint itself holds, whatever the API does. */
    assert_int_not_equal(sqlite3_exec(ht__store_db(s),
                                      "INSERT INTO evaluations (problem_id, device_id, config, "
                                      "config_values, status, verified, nruns, created_at) "
                                      "SELECT problem_id, device_id, config, config_values, "
                                      "status, verified, nruns, created_at FROM evaluations",
                                      NULL, NULL, NULL),
                         SQLITE_OK);
    assert_non_null(strstr(sqlite3_errmsg(ht__store_db(s)), "UNIQUE"));
    ht_store_close(s);
    free(ev);
    free(out);
}

static void test_best(void **state)
{
    char path[512];
    struct ht_store *s;
    struct ht_stored_eval *ev = malloc(sizeof *ev), *out = malloc(sizeof *out);
    struct ht_error err;
    int64_t problem, device;
    (void)state;

    db_path(path, sizeof path, "best.db");
    s = open_ok(path);
    ht_error_clear(&err);
    std_ids(s, &problem, &device);
    assert_int_equal(ht_store_best(s, problem, device, out, &err), HT_ENOTFOUND);
    assert_int_equal(ht_store_best_unverified(s, problem, device, out, &err), HT_ENOTFOUND);

    /* Faster than the winner, but failed, cut, wrong or unverified. */
    make_eval(ev, problem, device, 1, HT_STORE_VERIFY, 0, 0.001);
    check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "wrong answer");
    assert_int_equal(ht_store_best(s, problem, device, out, &err), HT_ENOTFOUND);
    assert_int_equal(ht_store_best_unverified(s, problem, device, out, &err), HT_ENOTFOUND);
    make_eval(ev, problem, device, 2, HT_STORE_CUT, -1, 0.002);
    check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "cut");
    make_eval(ev, problem, device, 3, HT_STORE_OK, 0, 0.003); /* ok status, failed verify */
    check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "ok but wrong");
    make_eval(ev, problem, device, 4, HT_STORE_LAUNCH, -1, -1);
    check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "launch");
    make_eval(ev, problem, device, 5, HT_STORE_OK, -1, 0.004);
    check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "unverified");
    make_eval(ev, problem, device, 6, HT_STORE_OK, 1, NAN);
    check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "nan statistic");
    assert_int_equal(ht_store_best(s, problem, device, out, &err), HT_ENOTFOUND);
    /* The winners: verified, ok; the tie goes to the earlier one. */
    make_eval(ev, problem, device, 7, HT_STORE_OK, 1, 0.02);
    check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "slow");
    make_eval(ev, problem, device, 8, HT_STORE_OK, 1, 0.01);
    check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "best");
    make_eval(ev, problem, device, 9, HT_STORE_OK, 1, 0.01);
    check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "tie");
    assert_int_equal(ht_store_best(s, problem, device, out, &err), HT_OK);
    assert_string_equal(out->config, "TS=8,WG=8");
    assert_true(out->seconds == 0.01);
    assert_int_equal(out->nruns, 3 + 8 % 5);
    assert_int_equal(ht_store_best_unverified(s, problem, device, out, &err), HT_OK);
    assert_string_equal(out->config, "TS=5,WG=8");
    /* Another device's results are not this device's. */
    assert_int_equal(ht_store_best(s, problem, device + 1, out, &err), HT_ENOTFOUND);
    assert_int_equal(err.code, 0);
    ht_store_close(s);
    free(ev);
    free(out);
}

struct collect {
    int count;
    char configs[16][32];
    int stop_after; /* return 99 after this many; 0: never */
};

static int collect_cb(const struct ht_stored_eval *ev, void *user)
{
    struct collect *c = user;
    if (c->count < 16)
        snprintf(c->configs[c->count], sizeof c->configs[0], "%" PRId64 ":%.20s", ev->device_id,
                 ev->config);
    c->count++;
    /* The runs come with every listed evaluation. */
    if (ev->nruns != (unsigned)(3 + ev->values[0] % 5) || ev->runs[1] != ev->seconds + 0.001)
        return 77;
    return c->stop_after && c->count == c->stop_after ? 99 : 0;
}

static void test_list_forget(void **state)
{
    char path[512];
    struct ht_store *s;
    struct ht_stored_eval *ev = malloc(sizeof *ev);
    struct ht_device_info dev;
    struct ht_error err;
    struct collect c;
    int64_t problem, d1, d2;
    uint64_t n, deleted = 0;
    (void)state;

    db_path(path, sizeof path, "list.db");
    s = open_ok(path);
    ht_error_clear(&err);
    std_ids(s, &problem, &d1);
    fill_device(&dev, "basic-cpu", "5.0+debian");
    check_rc(ht_store_device_id(s, &dev, &d2, &err), &err, "second device");
    for (int64_t ts = 1; ts <= 4; ts++) {
        make_eval(ev, problem, d1, ts, HT_STORE_OK, 1, 0.1 * (double)ts);
        check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "put d1");
    }
    for (int64_t ts = 10; ts <= 12; ts++) {
        make_eval(ev, problem, d2, ts, HT_STORE_OK, 1, 0.1 * (double)ts);
        check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "put d2");
    }

    memset(&c, 0, sizeof c);
    check_rc(ht_store_list_evals(s, problem, d1, collect_cb, &c, &err), &err, "list d1");
    assert_int_equal(c.count, 4);
    assert_string_equal(c.configs[0], "1:TS=1,WG=8");
    assert_string_equal(c.configs[3], "1:TS=4,WG=8");
    memset(&c, 0, sizeof c);
    check_rc(ht_store_list_evals(s, problem, 0, collect_cb, &c, &err), &err, "list all");
    assert_int_equal(c.count, 7);
    assert_string_equal(c.configs[6], "2:TS=12,WG=8");
    memset(&c, 0, sizeof c);
    c.stop_after = 2;
    assert_int_equal(ht_store_list_evals(s, 0, 0, collect_cb, &c, &err), 99);
    assert_int_equal(c.count, 2);

    check_rc(ht_store_count_evals(s, problem, d2, &n, &err), &err, "count d2");
    assert_int_equal(n, 3);
    check_rc(ht_store_forget(s, problem, d1, &deleted, &err), &err, "forget d1");
    assert_int_equal(deleted, 4);
    check_rc(ht_store_count_evals(s, problem, d1, &n, &err), &err, "count d1");
    assert_int_equal(n, 0);
    check_rc(ht_store_count_evals(s, problem, d2, &n, &err), &err, "count d2");
    assert_int_equal(n, 3);
    /* Their runs are gone too; the other device's are all there. */
    assert_int_equal(count_rows(s, "SELECT count(*) FROM runs"), (3 + 0) + (3 + 1) + (3 + 2));
    assert_int_equal(ht_store_best(s, problem, d1, ev, &err), HT_ENOTFOUND);
    assert_int_equal(ht_store_best(s, problem, d2, ev, &err), HT_OK);
    assert_string_equal(ev->config, "TS=10,WG=8");
    check_rc(ht_store_forget(s, problem, d1, &deleted, &err), &err, "forget again");
    assert_int_equal(deleted, 0);
    assert_int_equal(ht_store_forget(s, 0, d1, NULL, &err), HT_EINVAL);
    ht_store_close(s);
    free(ev);
}

/* ---- files ---------------------------------------------------------------------------- */

static void test_reopen(void **state)
{
    char path[512];
    struct ht_store *s;
    struct ht_stored_eval *ev = malloc(sizeof *ev), *out = malloc(sizeof *out);
    struct ht_error err;
    int64_t problem, device, problem2, device2;
    (void)state;

    db_path(path, sizeof path, "reopen.db");
    s = open_ok(path);
    ht_error_clear(&err);
    assert_string_equal(ht_store_path(s), path);
    std_ids(s, &problem, &device);
    make_eval(ev, problem, device, 16, HT_STORE_OK, 1, 0.5);
    check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "put");
    ht_store_close(s);

    s = open_ok(path);
    std_ids(s, &problem2, &device2);
    assert_int_equal(problem, problem2);
    assert_int_equal(device, device2);
    assert_int_equal(ht__store_lookup_eval(s, problem, device, "TS=16,WG=8", out, &err), HT_OK);
    assert_same_eval(ev, out);
    assert_int_equal(count_rows(s, "PRAGMA user_version"), HT_STORE_SCHEMA_VERSION);
    assert_int_equal(count_rows(s, "PRAGMA application_id"), HT__STORE_APP_ID);
    assert_int_equal(count_rows(s, "SELECT max(version) FROM schema_version"),
                     HT_STORE_SCHEMA_VERSION);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM schema_version"),
                     HT_STORE_SCHEMA_VERSION);
    assert_int_equal(count_rows(s, "PRAGMA foreign_keys"), 1);
    assert_int_equal(count_rows(s, "PRAGMA synchronous"), 2); /* FULL */
    {
        sqlite3_stmt *st;
        assert_int_equal(sqlite3_prepare_v2(ht__store_db(s), "PRAGMA journal_mode", -1, &st,
                                            NULL),
                         SQLITE_OK);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
        sqlite3_finalize(st);
    }
    ht_store_close(s);

    /* Two connections at once (two processes tuning two devices) see each other's writes. */
    {
        struct ht_store *a = open_ok(path), *b = open_ok(path);
        make_eval(ev, problem, device, 32, HT_STORE_OK, 1, 0.25);
        check_rc(ht_store_put_eval(a, ev, NULL, &err), &err, "put through a");
        assert_int_equal(ht_store_best(b, problem, device, out, &err), HT_OK);
        assert_string_equal(out->config, "TS=32,WG=8");
        ht_store_close(a);
        ht_store_close(b);
    }
    /* An in-memory database works too (no WAL there). */
    s = open_ok(":memory:");
    std_ids(s, &problem, &device);
    ht_store_close(s);
    ht_store_close(NULL);
    free(ev);
    free(out);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void expect_refused(const char *path, const char *words)
{
    struct ht_store *s = (struct ht_store *)&s; /* must be reset to NULL */
    struct ht_error err;
    int rc;

    ht_error_clear(&err);
    rc = ht_store_open(path, &s, &err);
    if (rc != HT_EDB)
        fail_msg("opening '%s' gave %s, not HT_EDB", path, ht_err_name(rc));
    assert_null(s);
    assert_string_equal(err.file, path);
    if (!strstr(err.text, words))
        fail_msg("message '%s' lacks '%s'", err.text, words);
}

static void test_refuses_other_files(void **state)
{
    char path[512], buf[64];
    struct ht_store *s;
    sqlite3 *db;
    FILE *f;
    size_t n;
    (void)state;

    /* Text, long and short: refused and left as they were. */
    db_path(path, sizeof path, "notes.txt");
    write_text(path, "These are my notes, not a database. They are long enough to look like "
                     "something more than a header, with many many characters in them.\n");
    expect_refused(path, "not a hetune results database");
    db_path(path, sizeof path, "short.txt");
    write_text(path, "hi\n");
    expect_refused(path, "not a hetune results database");
    f = fopen(path, "rb");
    assert_non_null(f);
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_int_equal(n, 3);
    assert_memory_equal(buf, "hi\n", 3);

    /* A corrupt SQLite file: the magic is right, the rest is not. */
    db_path(path, sizeof path, "corrupt.db");
    {
        char junk[4096];
        memset(junk, 0x5a, sizeof junk);
        memcpy(junk, "SQLite format 3", 16);
        f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(junk, 1, sizeof junk, f), sizeof junk);
        fclose(f);
    }
    expect_refused(path, "not a hetune results database");

    /* Another program's SQLite database: refused, its journal mode untouched. */
    db_path(path, sizeof path, "other.db");
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    expect_refused(path, "another program");
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    {
        sqlite3_stmt *st;
        assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL),
                         SQLITE_OK);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        assert_string_equal((const char *)sqlite3_column_text(st, 0), "delete");
        sqlite3_finalize(st);
    }
    sqlite3_close(db);

    /* A database of a newer hetune. */
    db_path(path, sizeof path, "newer.db");
    s = open_ok(path);
    assert_int_equal(sqlite3_exec(ht__store_db(s), "PRAGMA user_version = 99", NULL, NULL, NULL),
                     SQLITE_OK);
    ht_store_close(s);
    expect_refused(path, "newer hetune");

    /* A folder, and a file in a folder that does not exist. */
    expect_refused(tmpdir, "not a regular file");
    db_path(path, sizeof path, "missing/x.db");
    expect_refused(path, "cannot open the results database");

    /* An empty file is a new database. */
    db_path(path, sizeof path, "empty.db");
    write_text(path, "");
    s = open_ok(path);
    assert_int_equal(count_rows(s, "PRAGMA user_version"), HT_STORE_SCHEMA_VERSION);
    ht_store_close(s);
}

/* ---- crash safety --------------------------------------------------------------------- */

/* Put number p writes config c (a new one, or every third put an earlier one again) with
 * every field a function of p, so a stored row shows which put wrote it and whether all of
 * it came from that put. */
static int64_t crash_config(int64_t p)
{
    return p % 3 == 2 ? p - 2 : p;
}

static unsigned crash_nruns(int64_t p)
{
    return (unsigned)(1 + p % 40);
}

static void crash_eval(struct ht_stored_eval *ev, int64_t problem, int64_t device, int round,
                       int64_t p)
{
    ht_stored_eval_init(ev);
    ev->problem_id = problem;
    ev->device_id = device;
    snprintf(ev->config, sizeof ev->config, "R=%d,C=%" PRId64, round, crash_config(p));
    ev->nvalues = 2;
    ev->values[0] = round;
    ev->values[1] = crash_config(p);
    snprintf(ev->status, sizeof ev->status, "ok");
    ev->verified = 1;
    ev->seconds = (double)p;
    ev->seed = (uint64_t)p;
    ev->nruns = crash_nruns(p);
    for (unsigned i = 0; i < ev->nruns; i++)
        ev->runs[i] = (double)p * 1000 + i;
}

/* The child: writes puts 0, 1, 2... and reports each one stored on fd, until killed. */
static void crash_child(const char *path, int fd, int round, int64_t problem, int64_t device)
{
    struct ht_stored_eval *ev = malloc(sizeof *ev);
    struct ht_store *s = NULL;
    struct ht_error err;

    ht_error_clear(&err);
    if (!ev || ht_store_open(path, &s, &err) != HT_OK)
        _exit(2);
    for (int64_t p = 0; p < 1000000; p++) {
        crash_eval(ev, problem, device, round, p);
        if (ht_store_put_eval(s, ev, NULL, &err) != HT_OK)
            _exit(3);
        if (write(fd, &p, sizeof p) != (ssize_t)sizeof p)
            _exit(4);
    }
    _exit(5); /* should have been killed long before */
}

struct crash_check {
    int round;
    int64_t last_reported; /* the last put the child reported stored */
    int64_t *latest;       /* per config: the latest reported put that wrote it, or -1 */
    int64_t nconfigs;
    int in_flight;         /* stored evaluations newer than what was reported */
    int bad;
    char why[256];
};

static int crash_cb(const struct ht_stored_eval *ev, void *user)
{
    struct crash_check *c = user;
    int64_t p = (int64_t)ev->seed, conf;

    if (ev->values[0] != c->round)
        return 0;
    conf = ev->values[1];
    /* Everything in the row and its runs comes from one put. */
    if (ev->seconds != (double)p || crash_config(p) != conf || ev->nruns != crash_nruns(p)) {
        snprintf(c->why, sizeof c->why, "%.64s mixes puts", ev->config);
        return c->bad = 1;
    }
    for (unsigned i = 0; i < ev->nruns; i++)
        if (ev->runs[i] != (double)p * 1000 + i) {
            snprintf(c->why, sizeof c->why, "%.64s run %u is not from put %" PRId64, ev->config,
                     i, p);
            return c->bad = 1;
        }
    if (p > c->last_reported) {
        /* Only the put in flight when the kill came may be there unreported. */
        if (p != c->last_reported + 1) {
            snprintf(c->why, sizeof c->why, "put %" PRId64 " stored but only %" PRId64
                     " reported", p, c->last_reported);
            return c->bad = 1;
        }
        c->in_flight++;
    } else if (conf >= c->nconfigs || c->latest[conf] != p) {
        snprintf(c->why, sizeof c->why, "%.64s holds put %" PRId64 ", expected %" PRId64,
                 ev->config, p, conf < c->nconfigs ? c->latest[conf] : -1);
        return c->bad = 1;
    }
    if (conf < c->nconfigs)
        c->latest[conf] = -2; /* seen */
    return 0;
}

static void test_crash_safety(void **state)
{
    char path[512];
    struct ht_store *s;
    struct ht_error err;
    struct ht__rng rng;
    int64_t problem, device, total = 0;
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16);
    (void)state;

    db_path(path, sizeof path, "crash.db");
    s = open_ok(path);
    std_ids(s, &problem, &device);
    ht_store_close(s);
    ht__rng_seed(&rng, seed);
    ht_error_clear(&err);

    for (int round = 0; round < 6; round++) {
        int fds[2];
        pid_t pid;
        int status;
        int64_t *reported = NULL, nreported = 0, cap = 0, p;
        double delay = 0.02 + 0.2 * ht__rng_double(&rng);
        double deadline;
        struct crash_check c;

        assert_int_equal(pipe(fds), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            crash_child(path, fds[1], round, problem, device);
        }
        close(fds[1]);
        /* Drain the pipe while waiting, so the child never blocks on it and is killed in
         * the middle of its work, not in write(). */
        deadline = ht__now() + delay;
        for (;;) {
            struct pollfd pfd = {fds[0], POLLIN, 0};
            double left = deadline - ht__now();
            ssize_t r;

            if (left <= 0)
                break;
            if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
                continue;
            if (nreported == cap) {
                cap = cap ? 2 * cap : 1024;
                reported = realloc(reported, (size_t)cap * sizeof *reported);
                assert_non_null(reported);
            }
            r = read(fds[0], &reported[nreported], sizeof p);
            if (r == (ssize_t)sizeof p)
                nreported++;
            else if (r == 0)
                break; /* the child died on its own */
        }
        assert_int_equal(kill(pid, SIGKILL), 0);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
            fail_msg("round %d: the child ended by itself (status %d, seed %" PRIu64 ")",
                     round, status, seed);
        /* What it reported before dying is still in the pipe. */
        for (;;) {
            ssize_t r;
            if (nreported == cap) {
                cap = cap ? 2 * cap : 1024;
                reported = realloc(reported, (size_t)cap * sizeof *reported);
                assert_non_null(reported);
            }
            r = read(fds[0], &reported[nreported], sizeof p);
            if (r != (ssize_t)sizeof p)
                break;
            nreported++;
        }
        close(fds[0]);
        for (int64_t i = 0; i < nreported; i++)
            assert_int_equal(reported[i], i);

        s = open_ok(path);
        {
            sqlite3_stmt *st;
            assert_int_equal(sqlite3_prepare_v2(ht__store_db(s), "PRAGMA integrity_check", -1,
                                                &st, NULL),
                             SQLITE_OK);
            assert_int_equal(sqlite3_step(st), SQLITE_ROW);
            assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
            sqlite3_finalize(st);
        }
        {
            sqlite3_stmt *st;
            assert_int_equal(sqlite3_prepare_v2(ht__store_db(s), "PRAGMA foreign_key_check",
                                                -1, &st, NULL),
                             SQLITE_OK);
            assert_int_equal(sqlite3_step(st), SQLITE_DONE); /* no violations */
            sqlite3_finalize(st);
        }
        /* No evaluation lacks any of its runs, nor has extra ones. */
        assert_int_equal(count_rows(s, "SELECT count(*) FROM evaluations e WHERE nruns <> "
                                       "(SELECT count(*) FROM runs r WHERE r.eval_id = e.id)"),
                         0);
        assert_int_equal(count_rows(s, "SELECT count(*) FROM runs r WHERE NOT EXISTS "
                                       "(SELECT 1 FROM evaluations e WHERE e.id = r.eval_id)"),
                         0);

        memset(&c, 0, sizeof c);
        c.round = round;
        c.last_reported = nreported - 1;
        c.nconfigs = nreported + 1;
        c.latest = malloc((size_t)c.nconfigs * sizeof *c.latest);
        assert_non_null(c.latest);
        for (int64_t i = 0; i < c.nconfigs; i++)
            c.latest[i] = -1;
        for (int64_t i = 0; i < nreported; i++)
            c.latest[crash_config(i)] = i;
        check_rc(ht_store_list_evals(s, problem, device, crash_cb, &c, &err), &err, "list");
        if (c.bad)
            fail_msg("round %d (seed %" PRIu64 "): %s", round, seed, c.why);
        assert_true(c.in_flight <= 1);
        /* Every reported put is there (as the latest of its config). */
        for (int64_t i = 0; i < c.nconfigs; i++)
            if (c.latest[i] >= 0)
                fail_msg("round %d (seed %" PRIu64 "): config %" PRId64
                         " reported stored by put %" PRId64 " but missing",
                         round, seed, i, c.latest[i]);
        total += nreported;
        free(c.latest);
        free(reported);
        ht_store_close(s);
    }
    /* The children must have stored something, or the test proved nothing. */
    if (total == 0)
        fail_msg("no child stored anything (seed %" PRIu64 ")", seed);
    print_message("crash safety: %" PRId64 " evaluations stored over 6 kills (seed %" PRIu64
                  ")\n",
                  total, seed);
}

/* ---- misuse: a NULL store, callback or output is HT_EINVAL, never a crash ------------- */

static int eval_cb(const struct ht_stored_eval *ev, void *user)
{
    (void)ev, (void)user;
    return 0;
}
static int problem_cb(const struct ht_stored_problem *p, void *user)
{
    (void)p, (void)user;
    return 0;
}
static int device_cb(const struct ht_stored_device *d, void *user)
{
    (void)d, (void)user;
    return 0;
}
static int step_cb(const struct ht_stored_tune_run *run, const struct ht_stored_tune_step *st,
                   void *user)
{
    (void)run, (void)st, (void)user;
    return 0;
}
static int split_cb(const struct ht_stored_split *sp, void *user)
{
    (void)sp, (void)user;
    return 0;
}
static int sweep_cb(const struct ht_stored_sweep_point *pt, void *user)
{
    (void)pt, (void)user;
    return 0;
}
static int space_cb(const struct ht_stored_space *sp, void *user)
{
    (void)sp, (void)user;
    return 0;
}

/* Runs call (an expression using st and &err) and checks it is HT_EINVAL with err set. */
#define EINVAL_WITH_ERR(call)                                                              \
    do {                                                                                   \
        ht_error_clear(&err);                                                              \
        assert_int_equal((call), HT_EINVAL);                                               \
        assert_int_equal(err.code, HT_EINVAL);                                             \
    } while (0)

static void test_nulls(void **state)
{
    struct ht_store *st = NULL;
    struct ht_error err;
    struct ht_stored_eval ev;
    struct ht_stored_split sp;
    struct ht_stored_space spc;
    struct ht_bandwidth bw;
    struct ht_host_memory hm;
    uint64_t n = 7;

    (void)state;
    ht_error_clear(&err);
    assert_int_equal(ht_store_open(":memory:", &st, &err), HT_OK);
    for (int pass = 0; pass < 2; pass++) {
        /* pass 0: a NULL store and every other argument good; pass 1: a real store and
         * the callback or output NULL. */
        struct ht_store *s = pass ? st : NULL;
        EINVAL_WITH_ERR(ht_store_list_devices(s, pass ? NULL : device_cb, NULL, &err));
        EINVAL_WITH_ERR(ht_store_list_splits(s, 0, pass ? NULL : split_cb, NULL, &err));
        EINVAL_WITH_ERR(ht_store_list_tune_steps(s, 0, 0, pass ? NULL : step_cb, NULL, &err));
        EINVAL_WITH_ERR(ht_store_list_evals_brief(s, 0, 0, pass ? NULL : eval_cb, NULL, &err));
        EINVAL_WITH_ERR(ht_store_list_evals(s, 0, 0, pass ? NULL : eval_cb, NULL, &err));
        EINVAL_WITH_ERR(ht_store_list_problems(s, 0, pass ? NULL : problem_cb, NULL, &err));
        EINVAL_WITH_ERR(ht_store_list_spaces(s, 0, pass ? NULL : space_cb, NULL, &err));
        EINVAL_WITH_ERR(ht_store_list_sweep(s, 1, pass ? NULL : sweep_cb, NULL, &err));
        EINVAL_WITH_ERR(ht_store_count_evals(s, 0, 0, pass ? NULL : &n, &err));
        EINVAL_WITH_ERR(ht_store_best(s, 1, 1, pass ? NULL : &ev, &err));
        EINVAL_WITH_ERR(ht_store_best_unverified(s, 1, 1, pass ? NULL : &ev, &err));
        EINVAL_WITH_ERR(ht_store_get_split(s, 1, pass ? NULL : &sp, &err));
        EINVAL_WITH_ERR(ht_store_get_space(s, 1, 1, HT_EQ3_PRODUCT, pass ? NULL : &spc, &err));
        EINVAL_WITH_ERR(ht_store_get_bandwidth(s, 1, pass ? NULL : &bw, &err));
        EINVAL_WITH_ERR(ht_store_get_host_memory(s, pass ? NULL : &hm, &err));
        EINVAL_WITH_ERR(ht_store_get_host_memory_of(s, "node1", pass ? NULL : &hm, &err));
    }
    EINVAL_WITH_ERR(ht_store_forget(NULL, 1, 1, NULL, &err));
    EINVAL_WITH_ERR(ht_store_batch(NULL, 8, &err));
    EINVAL_WITH_ERR(ht_store_set_durable(NULL, 1, &err));
    assert_null(ht_store_path(NULL));
    assert_int_equal(n, 7);
    /* The walks still work on the same store with everything given. */
    assert_int_equal(ht_store_count_evals(st, 0, 0, &n, &err), HT_OK);
    assert_int_equal(n, 0);
    assert_int_equal(ht_store_list_devices(st, device_cb, NULL, &err), HT_OK);
    ht_store_close(st);
    ht_store_close(NULL);
}

/* The writers, the ids, the lease and the inits (issue 26 item 6): each given well-formed
 * arguments but one NULL (the store first, then the struct it writes or the id it sets) is
 * HT_EINVAL with err set, never a crash; the void inits and the hash do nothing with NULL. */
static void test_nulls_writers(void **state)
{
    struct ht_store *st = NULL;
    struct ht_error err;
    struct ht_device_info dev;
    struct mini_spec m;
    struct ht_stored_eval ev;
    struct ht_stored_split sp;
    struct ht_stored_split_device sd;
    struct ht_stored_sweep_point pt;
    struct ht_stored_space spc;
    struct ht_stored_tune_run run;
    struct ht_stored_tune_step step;
    struct ht_stored_written w;
    struct ht_bandwidth bw;
    struct ht_host_memory hm;
    struct ht_space_counts counts;
    const char *const names[] = {"TS"};
    const int64_t values[] = {8};
    int64_t problem = 0, device = 0, id = 0;
    char buf[32] = "x", hex[17] = "";

    (void)state;
    ht_error_clear(&err);
    assert_int_equal(ht_store_open(":memory:", &st, &err), HT_OK);
    std_ids(st, &problem, &device);
    fill_device(&dev, "pthread-cpu", "5.0+debian");
    std_spec(&m);
    make_eval(&ev, problem, device, 8, HT_STORE_OK, 1, 1.0);
    ht_stored_split_init(&sp);
    memset(&sd, 0, sizeof sd);
    sd.device_id = device;
    snprintf(sd.config, sizeof sd.config, "TS=8,WG=8");
    sp.problem_id = problem;
    snprintf(sp.scheduler, sizeof sp.scheduler, "static");
    sp.ndevices = 1;
    sp.devices = &sd;
    memset(&pt, 0, sizeof pt);
    ht_stored_space_init(&spc);
    spc.problem_id = problem;
    spc.device_id = device;
    memset(&run, 0, sizeof run);
    run.problem_id = problem;
    run.device_id = device;
    snprintf(run.strategy, sizeof run.strategy, "random");
    memset(&step, 0, sizeof step);
    snprintf(step.config, sizeof step.config, "TS=8,WG=8");
    snprintf(step.status, sizeof step.status, "%s", HT_STORE_OK);
    memset(&w, 0, sizeof w);
    w.problem_id = problem;
    snprintf(w.arg, sizeof w.arg, "C");
    w.per_item = 1;
    memset(&bw, 0, sizeof bw);
    bw.path = HT_PATH_INPLACE;
    bw.bytes = 4096;
    bw.h2d_Bps = bw.d2h_Bps = 1e9;
    memset(&hm, 0, sizeof hm);
    hm.Bps = hm.read_Bps = 1e10;
    hm.bytes = 1 << 20;
    hm.threads = 1;

    for (int pass = 0; pass < 2; pass++) {
        struct ht_store *s = pass ? st : NULL;
        EINVAL_WITH_ERR(ht_store_device_id(s, pass ? NULL : &dev, &id, &err));
        EINVAL_WITH_ERR(ht_store_kernel_id(s, pass ? NULL : &m.spec, &id, &err));
        EINVAL_WITH_ERR(ht_store_problem_id(s, 1, pass ? NULL : &m.spec, &id, &err));
        EINVAL_WITH_ERR(ht_store_put_eval(s, pass ? NULL : &ev, &id, &err));
        EINVAL_WITH_ERR(ht_store_put_eval_step(s, pass ? NULL : &ev, 1, &step, &id, &err));
        EINVAL_WITH_ERR(ht_store_put_tune_run(s, pass ? NULL : &run, &id, &err));
        EINVAL_WITH_ERR(ht_store_put_tune_step(s, 1, pass ? NULL : &step, &err));
        EINVAL_WITH_ERR(ht_store_put_split(s, pass ? NULL : &sp, &id, &err));
        EINVAL_WITH_ERR(ht_store_put_sweep_point(s, 1, pass ? NULL : &pt, &err));
        EINVAL_WITH_ERR(ht_store_put_space(s, pass ? NULL : &spc, &err));
        EINVAL_WITH_ERR(ht_store_put_bandwidth(s, device, pass ? NULL : &bw, &err));
        EINVAL_WITH_ERR(ht_store_put_host_memory(s, pass ? NULL : &hm, &err));
        EINVAL_WITH_ERR(ht_store_put_written(s, pass ? NULL : &w, &err));
    }
    /* The ids' outputs. */
    EINVAL_WITH_ERR(ht_store_device_id(st, &dev, NULL, &err));
    EINVAL_WITH_ERR(ht_store_kernel_id(st, &m.spec, NULL, &err));
    EINVAL_WITH_ERR(ht_store_problem_id(st, 1, &m.spec, NULL, &err));
    EINVAL_WITH_ERR(ht_store_lease_device(NULL, device, 0, NULL, NULL, &err));
    EINVAL_WITH_ERR(ht_store_release_device(NULL, device, &err));
    /* Nothing was written by the refused calls. */
    uint64_t n = 7;
    assert_int_equal(ht_store_count_evals(st, 0, 0, &n, &err), HT_OK);
    assert_int_equal(n, 0);

    ht_stored_eval_init(NULL);
    ht_stored_split_init(NULL);
    ht_stored_space_init(NULL);
    memset(&counts, 0, sizeof counts);
    ht_stored_space_from_counts(NULL, &counts);
    ht_stored_space_from_counts(&spc, NULL);
    ht_store_opts_init(NULL);
    ht_store_kernel_hash("src", 3, "k", NULL, NULL);
    ht_store_kernel_hash(NULL, 99, NULL, NULL, hex);
    char empty[17];
    ht_store_kernel_hash("", 0, "", "", empty);
    assert_string_equal(hex, empty);
    assert_int_equal(ht_store_config_text(NULL, values, 1, buf, sizeof buf), HT_EINVAL);
    assert_int_equal(ht_store_config_text(names, NULL, 1, buf, sizeof buf), HT_EINVAL);
    assert_string_equal(buf, "x");
    assert_int_equal(ht_store_config_text(names, values, 1, NULL, 99), 4);
    assert_int_equal(ht_store_config_text(NULL, NULL, 0, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    ht_store_close(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_text),
        cmocka_unit_test(test_kernel_hash),
        cmocka_unit_test(test_ids),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_unique_replaces),
        cmocka_unit_test(test_best),
        cmocka_unit_test(test_list_forget),
        cmocka_unit_test(test_reopen),
        cmocka_unit_test(test_refuses_other_files),
        cmocka_unit_test(test_crash_safety),
        cmocka_unit_test(test_nulls),
        cmocka_unit_test(test_nulls_writers),
        cmocka_unit_test(test_split_errors),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
