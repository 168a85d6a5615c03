/* Tests of src/exec on a real OpenCL device (PoCL in CI): builds, runs, timing, the binary
 * cache, poisoning, readwrite restore, verification and dumps. Exits 77 (skipped) when no
 * OpenCL platform is found. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hetune.h"
#include "exec/exec-internal.h"

static struct ht_platform *plat;
static const struct ht_device_info *dev;
static char source_dir[2048];
/* Every test of buffers runs once per data path (main): in place, pinned, pageable. */
static enum ht_data_path test_path = HT_PATH_AUTO;

static char *fixture(const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/tests/fixtures/exec/%s", source_dir, name);
    return buf;
}

static struct ht_spec *load(const char *path, const struct ht_size_override *ov, size_t nov)
{
    struct ht_spec *spec = NULL;
    struct ht_error err;

    ht_error_clear(&err);
    if (ht_spec_load(path, ov, nov, &spec, &err) != HT_OK)
        fail_msg("cannot load %s: %s", path, err.text);
    return spec;
}

static void config_of(const struct ht_spec *spec, int64_t *config, size_t n, ...)
{
    const char *assign[8];
    struct ht_error err;
    va_list ap;

    assert_true(n <= 8);
    va_start(ap, n);
    for (size_t i = 0; i < n; i++)
        assign[i] = va_arg(ap, const char *);
    va_end(ap);
    ht_error_clear(&err);
    if (ht_spec_config_from_assignments(spec, assign, n, config, &err) != HT_OK)
        fail_msg("bad configuration: %s", err.text);
}

static struct ht_session *open_session(const struct ht_spec *spec,
                                       const struct ht_exec_opts *opts)
{
    struct ht_session *s = NULL;
    struct ht_error err;

    ht_error_clear(&err);
    if (ht_session_create(spec, dev, opts, &s, &err) != HT_OK)
        fail_msg("session: %s", err.text);
    return s;
}

/* Options for the small fixtures: their few work-groups would break Eq. 3 on a device with
 * many compute units, which is not what these tests are about. */
static struct ht_exec_opts fixture_opts(void)
{
    struct ht_exec_opts o;
    ht_exec_opts_init(&o);
    o.eq3 = HT_EQ3_OFF;
    o.data_path = test_path;
    return o;
}

static char *make_tmpdir(void)
{
    char *d = strdup("/tmp/hetune-test-exec-XXXXXX");
    assert_non_null(d);
    assert_non_null(mkdtemp(d));
    return d;
}

static void rm_rf(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];

    if (!d)
        return;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

/* Number of files in dir ending in .bin. */
static int count_bins(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (!d)
        return 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 4 && !strcmp(e->d_name + len - 4, ".bin"))
            n++;
    }
    closedir(d);
    return n;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* examples/vecadd at N = 65536. */
static struct ht_spec *load_vecadd(void)
{
    struct ht_size_override ov = {"N", 65536};
    char path[4096];

    snprintf(path, sizeof path, "%s/examples/vecadd/spec.json", source_dir);
    return load(path, &ov, 1);
}

static void test_vecadd_verifies(void **state)
{
    struct ht_spec *spec;
    struct ht_session *s;
    struct ht_eval_result *res = calloc(1, sizeof *res);
    struct ht_exec_opts opts;
    struct ht_error err;
    int64_t config[2];
    int rc;

    (void)state;
    assert_non_null(res);
    spec = load_vecadd();
    ht_exec_opts_init(&opts);
    opts.eq3 = HT_EQ3_OFF;
    opts.data_path = test_path;
    s = open_session(spec, &opts);

    config_of(spec, config, 2, "WG=64", "EPT=2");
    rc = ht_session_eval(s, config, res, &err);
    if (rc != HT_OK)
        fail_msg("eval: %s", err.text);
    assert_int_equal(res->status, HT_OK);
    assert_int_equal(res->verified, 1);
    assert_int_equal(res->mismatches, 0);
    assert_int_equal(res->ndims, 1);
    assert_int_equal(res->global[0], 32768);
    assert_int_equal(res->local[0], 64);
    assert_int_equal(res->nruns, 10);
    assert_true(res->kernel_s > 0.0);
    assert_true(res->kernel_min_s > 0.0 && res->kernel_min_s <= res->kernel_s);
    for (unsigned r = 0; r < res->nruns; r++)
        assert_true(res->run_s[r] >= res->kernel_min_s);
    if (ht_data_path_resolve(test_path, dev) == HT_PATH_INPLACE)
        /* Nothing is copied: the inputs are read where they are, the outputs mapped. */
        assert_true(res->write_s == 0.0 && res->read_s >= 0.0);
    else
        assert_true(res->write_s > 0.0 && res->read_s > 0.0);
    assert_true(res->gflops > 0.0);
    /* bytes = 3 * N * 4 and flops = N: the two rates keep that ratio exactly. */
    assert_true(fabs(res->gbps / res->gflops - 12.0) < 1e-9);
    assert_null(res->build_log);
    ht_eval_result_destroy(res);

    /* The same session evaluates another configuration. */
    config_of(spec, config, 2, "WG=16", "EPT=1");
    rc = ht_session_eval(s, config, res, &err);
    if (rc != HT_OK)
        fail_msg("eval: %s", err.text);
    assert_int_equal(res->verified, 1);
    assert_int_equal(res->global[0], 65536);
    ht_eval_result_destroy(res);

    ht_session_free(s);
    ht_spec_free(spec);
    free(res);
}

static void test_wrong_kernel_fails(void **state)
{
    struct ht_spec *spec = load(fixture("wrong.json"), NULL, 0);
    struct ht_exec_opts opts = fixture_opts();
    struct ht_session *s = open_session(spec, &opts);
    struct ht_eval_result *res = calloc(1, sizeof *res);
    struct ht_error err;
    int64_t config[2];

    (void)state;
    config_of(spec, config, 2, "P=2", "L=8");
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_EVERIFY);
    assert_int_equal(res->status, HT_EVERIFY);
    assert_int_equal(res->verified, 0);
    assert_int_equal(res->mismatches, 1);
    assert_true(!strncmp(res->mismatch, "C[3][17]: got ", 14));
    assert_non_null(strstr(res->mismatch, "expected"));
    assert_true(res->max_abs_err > 0.4 && res->max_abs_err < 0.6);
    assert_int_equal(err.code, HT_EVERIFY);
    assert_non_null(strstr(err.text, "C[3][17]"));
    assert_true(res->nruns == 3 && res->kernel_s > 0.0); /* timed all the same */
    ht_eval_result_destroy(res);

    /* The failure leaves the session usable. */
    config_of(spec, config, 2, "P=1", "L=32");
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_OK);
    assert_int_equal(res->verified, 1);
    assert_int_equal(res->global[1], 8);
    assert_int_equal(res->local[0], 32);
    assert_int_equal(res->local[1], 1);
    ht_eval_result_destroy(res);

    /* --no-verify: the wrong configuration passes unverified. */
    ht_session_free(s);
    opts.no_verify = 1;
    s = open_session(spec, &opts);
    config_of(spec, config, 2, "P=2", "L=8");
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_OK);
    assert_int_equal(res->verified, -1);
    ht_eval_result_destroy(res);

    ht_session_free(s);
    ht_spec_free(spec);
    free(res);
}

static void test_reference_kernel(void **state)
{
    struct ht_spec *spec = load(fixture("kernelref.json"), NULL, 0);
    struct ht_exec_opts opts = fixture_opts();
    struct ht_session *s = open_session(spec, &opts);
    struct ht_eval_result *res = calloc(1, sizeof *res);
    struct ht_error err;
    int64_t config[2];

    (void)state;
    config_of(spec, config, 2, "P=1", "L=8");
    if (ht_session_eval(s, config, res, &err) != HT_OK)
        fail_msg("eval: %s", err.text);
    assert_int_equal(res->verified, 1);
    ht_eval_result_destroy(res);
    config_of(spec, config, 2, "P=2", "L=32");
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_EVERIFY);
    assert_true(!strncmp(res->mismatch, "C[3][17]: got ", 14));
    ht_eval_result_destroy(res);
    ht_session_free(s);
    ht_spec_free(spec);
    free(res);
}

static void test_build_error(void **state)
{
    struct ht_spec *spec = load(fixture("syntax.json"), NULL, 0);
    struct ht_exec_opts opts = fixture_opts();
    struct ht_session *s;
    struct ht_eval_result *res = calloc(1, sizeof *res);
    struct ht_error err;
    char want[512];
    int64_t config[1];

    (void)state;
    opts.no_cache = 1;
    s = open_session(spec, &opts);
    config_of(spec, config, 1, "WG=1");
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_EBUILD);
    assert_int_equal(res->status, HT_EBUILD);
    assert_non_null(res->build_log);
    assert_non_null(strstr(res->build_log, "error"));
    snprintf(want, sizeof want, "kernel build failed on %s: ", dev->name);
    assert_true(!strncmp(err.text, want, strlen(want)));
    assert_int_equal(res->nruns, 0);
    ht_eval_result_destroy(res);
    assert_null(res->build_log);
    ht_session_free(s);
    ht_spec_free(spec);
    free(res);
}

static void test_constraint_before_build(void **state)
{
    struct ht_spec *spec;
    struct ht_exec_opts opts = fixture_opts();
    struct ht_session *s;
    struct ht_eval_result *res;
    struct ht_error err;
    int64_t config[1];

    (void)state;
    if (dev->max_work_group_size >= 1048576)
        skip();
    spec = load(fixture("syntax.json"), NULL, 0);
    s = open_session(spec, &opts);
    res = calloc(1, sizeof *res);
    /* The kernel does not compile, so HT_ECONSTRAINT proves nothing was built. */
    config_of(spec, config, 1, "WG=1048576");
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_ECONSTRAINT);
    assert_int_equal(res->status, HT_ECONSTRAINT);
    assert_string_equal(err.field, "Eq. 1");
    assert_null(res->build_log);
    assert_int_equal(res->cache_hit, 0);
    assert_true(res->build_s == 0.0);
    assert_int_equal(res->verified, -1);
    ht_eval_result_destroy(res);
    ht_session_free(s);
    ht_spec_free(spec);
    free(res);
}

static void test_program_reuse(void **state)
{
    /* vecadd's kernel names EPT but not WG (it only sizes the work-groups): configurations
     * that differ in WG alone build one program, which the session keeps. */
    struct ht_spec *spec;
    struct ht_exec_opts opts = fixture_opts();
    struct ht_session *s;
    struct ht_eval_result *res = calloc(1, sizeof *res);
    struct ht_error err;
    char *dir = make_tmpdir();
    int64_t config[2];

    (void)state;
    spec = load_vecadd();
    opts.cache_dir = dir;
    s = open_session(spec, &opts);
    config_of(spec, config, 2, "WG=16", "EPT=2");
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_OK);
    assert_int_equal(res->cache_hit, 0);
    ht_eval_result_destroy(res);
    /* No binary on disk to load: only the session can give the program back. */
    rm_rf(dir);
    config_of(spec, config, 2, "WG=32", "EPT=2");
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_OK);
    assert_int_equal(res->cache_hit, 1);
    assert_int_equal(res->verified, 1);
    assert_int_equal(res->local[0], 32);
    ht_eval_result_destroy(res);
    /* Another EPT is another program. */
    config_of(spec, config, 2, "WG=32", "EPT=4");
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_OK);
    assert_int_equal(res->cache_hit, 0);
    assert_int_equal(res->verified, 1);
    ht_eval_result_destroy(res);
    ht_session_free(s);
    /* Built in this process (not in a worker), then in another session on the device with
     * its binary and marker gone from disk: the program kept with the device's context for
     * the process (a runtime's next co-execution builds nothing). */
    opts.isolate = HT_ISOLATE_OFF;
    config_of(spec, config, 2, "WG=32", "EPT=8");
    for (int k = 0; k < 2; k++) {
        rm_rf(dir);
        ht_error_clear(&err);
        assert_int_equal(ht__session_create_kept(spec, dev, &opts, &s, &err), HT_OK);
        assert_int_equal(ht_session_eval(s, config, res, &err), HT_OK);
        assert_int_equal(res->cache_hit, k);
        assert_int_equal(res->verified, 1);
        ht_eval_result_destroy(res);
        ht_session_free(s);
    }
    opts.isolate = HT_ISOLATE_AUTO;
    /* --no-cache builds every time. */
    opts.no_cache = 1;
    s = open_session(spec, &opts);
    for (int k = 0; k < 2; k++) {
        config_of(spec, config, 2, k ? "WG=32" : "WG=16", "EPT=2");
        assert_int_equal(ht_session_eval(s, config, res, &err), HT_OK);
        assert_int_equal(res->cache_hit, 0);
        ht_eval_result_destroy(res);
    }
    ht_session_free(s);
    rm_rf(dir);
    free(dir);
    ht_spec_free(spec);
    free(res);
}

/* Co-execution sessions (ht__session_create_kept) on one device opened, built, run and
 * freed from several threads at once share the device's context and its kept programs,
 * their builds taking turns (PoCL aborted, "Can't get stat()" on its build directory, when
 * two built one program on one context at once): every one runs and verifies. */
struct session_thread {
    const struct ht_spec *spec;
    const struct ht_exec_opts *opts;
    const int64_t *config;
    int rc, verified;
    char text[256];
};

static void *session_thread(void *arg)
{
    struct session_thread *t = arg;
    struct ht_session *s = NULL;
    struct ht_eval_result res;
    struct ht_error err;

    memset(&res, 0, sizeof res);
    ht_error_clear(&err);
    for (int k = 0; k < 3; k++) {
        t->rc = ht__session_create_kept(t->spec, dev, t->opts, &s, &err);
        if (t->rc == HT_OK)
            t->rc = ht_session_eval(s, t->config, &res, &err);
        t->verified = res.verified;
        ht_eval_result_destroy(&res);
        ht_session_free(s);
        s = NULL;
        if (t->rc != HT_OK) {
            snprintf(t->text, sizeof t->text, "%.200s", err.text);
            break;
        }
    }
    return NULL;
}

static void test_sessions_threads(void **state)
{
    enum { THREADS = 4 };
    struct ht_spec *spec;
    struct ht_exec_opts opts = fixture_opts();
    struct session_thread t[THREADS];
    pthread_t tid[THREADS];
    char *dir = make_tmpdir();
    int64_t config[2];

    (void)state;
    spec = load_vecadd();
    opts.cache_dir = dir;
    opts.isolate = HT_ISOLATE_OFF; /* in this process: the table is the process's */
    config_of(spec, config, 2, "WG=64", "EPT=1");
    for (int i = 0; i < THREADS; i++) {
        t[i] = (struct session_thread){spec, &opts, config, HT_OK, 0, ""};
        assert_int_equal(pthread_create(&tid[i], NULL, session_thread, &t[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(tid[i], NULL);
        if (t[i].rc != HT_OK)
            fail_msg("thread %d: %s", i, t[i].text);
        assert_int_equal(t[i].verified, 1);
    }
    rm_rf(dir);
    free(dir);
    ht_spec_free(spec);
}

static void test_cache(void **state)
{
    struct ht_spec *spec = load(fixture("holes.json"), NULL, 0);
    struct ht_exec_opts opts = fixture_opts();
    struct ht_session *s;
    struct ht_eval_result *res = calloc(1, sizeof *res);
    struct ht_error err;
    char *dir = make_tmpdir(), *empty = make_tmpdir();
    int64_t config[1];

    (void)state;
    opts.cache_dir = dir;
    config_of(spec, config, 1, "P=1");

    /* First: compiled, and both the configuration and the reference are written. */
    s = open_session(spec, &opts);
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_OK);
    assert_int_equal(res->cache_hit, 0);
    assert_true(res->build_s > 0.0);
    ht_eval_result_destroy(res);
    ht_session_free(s);
    assert_int_equal(count_bins(dir), 1); /* the reference is the same configuration */

    /* Second, in a new session: from the cache. */
    s = open_session(spec, &opts);
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_OK);
    assert_int_equal(res->cache_hit, 1);
    assert_int_equal(res->verified, 1);
    ht_eval_result_destroy(res);
    ht_session_free(s);

    /* A corrupt file is compiled again and rewritten. */
    {
        DIR *d = opendir(dir);
        struct dirent *e;
        char path[4096];
        assert_non_null(d);
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            write_text(path, "HTBIN garbage, not a device binary");
        }
        closedir(d);
    }
    s = open_session(spec, &opts);
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_OK);
    assert_int_equal(res->cache_hit, 0);
    assert_int_equal(res->verified, 1);
    ht_eval_result_destroy(res);
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_OK);
    assert_int_equal(res->cache_hit, 1);
    ht_eval_result_destroy(res);
    ht_session_free(s);

    /* no_cache neither reads nor writes. */
    opts.no_cache = 1;
    s = open_session(spec, &opts);
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_OK);
    assert_int_equal(res->cache_hit, 0);
    ht_eval_result_destroy(res);
    ht_session_free(s);
    opts.cache_dir = empty;
    s = open_session(spec, &opts);
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_OK);
    assert_int_equal(res->cache_hit, 0);
    ht_eval_result_destroy(res);
    ht_session_free(s);
    assert_int_equal(count_bins(empty), 0);

    rm_rf(dir);
    rm_rf(empty);
    free(dir);
    free(empty);
    ht_spec_free(spec);
    free(res);
}

static void test_poison_caught(void **state)
{
    struct ht_spec *spec = load(fixture("holes.json"), NULL, 0);
    struct ht_exec_opts opts = fixture_opts();
    struct ht_session *s = open_session(spec, &opts);
    struct ht_eval_result *res = calloc(1, sizeof *res);
    struct ht_error err;
    int64_t config[1];

    (void)state;
    config_of(spec, config, 1, "P=2");
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_EVERIFY);
    /* i % 5 == 3 for i < 256: 3, 8, ..., 253. */
    assert_int_equal(res->mismatches, 51);
    assert_string_equal(res->mismatch, "out[3]: got nan, expected 4");
    ht_session_free(s);
    ht_spec_free(spec);
    ht_eval_result_destroy(res);
    free(res);
}

static void test_readwrite_restored(void **state)
{
    struct ht_spec *spec = load(fixture("bump.json"), NULL, 0);
    struct ht_exec_opts opts = fixture_opts();
    struct ht_session *s = open_session(spec, &opts);
    struct ht_eval_result *res = calloc(1, sizeof *res);
    struct ht_error err;
    char *dir = make_tmpdir(), path[4096];
    int32_t x[128];
    FILE *f;
    int64_t config[2];

    (void)state;
    config_of(spec, config, 2, "P=2", "L=16");
    if (ht_session_eval(s, config, res, &err) != HT_OK)
        fail_msg("eval: %s", err.text);
    assert_int_equal(res->nruns, 10);
    assert_int_equal(res->verified, 1);
    /* After 10 runs x is iota + 1, not iota + 10. */
    assert_int_equal(ht_session_dump(s, dir, &err), HT_OK);
    snprintf(path, sizeof path, "%s/x.bin", dir);
    assert_int_equal(file_size(path), (long)sizeof x);
    f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(x, sizeof x[0], 128, f), 128);
    fclose(f);
    for (int i = 0; i < 128; i++)
        assert_int_equal(x[i], i + 1);
    rm_rf(dir);
    free(dir);
    ht_session_free(s);
    ht_spec_free(spec);
    ht_eval_result_destroy(res);
    free(res);
}

static void test_dump(void **state)
{
    struct ht_spec *spec = load(fixture("wrong.json"), NULL, 0);
    struct ht_exec_opts opts = fixture_opts();
    struct ht_session *s = open_session(spec, &opts);
    struct ht_eval_result *res = calloc(1, sizeof *res);
    struct ht_error err;
    char *dir = make_tmpdir(), sub[1024], path[4096];
    int64_t config[2];

    (void)state;
    ht_error_clear(&err);
    /* Nothing evaluated yet: nothing to dump. */
    assert_int_equal(ht_session_dump(s, dir, &err), HT_EINVAL);
    config_of(spec, config, 2, "P=1", "L=8");
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_OK);
    snprintf(sub, sizeof sub, "%s/a/b", dir);
    assert_int_equal(ht_session_dump(s, sub, &err), HT_OK);
    snprintf(path, sizeof path, "%s/C.bin", sub);
    assert_int_equal(file_size(path), 8 * 32 * 4);
    snprintf(path, sizeof path, "%s/A.bin", sub);
    assert_int_equal(file_size(path), -1); /* read-only buffers are not outputs */
    snprintf(path, sizeof path, "%s/C.bin", sub);
    unlink(path);
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/a", dir);
    rmdir(sub);
    rm_rf(dir);
    free(dir);
    ht_session_free(s);
    ht_spec_free(spec);
    ht_eval_result_destroy(res);
    free(res);
}

/* A spec written into a temporary folder, reading its input from a file. */
static void test_file_init_and_arg_count(void **state)
{
    char *dir = make_tmpdir(), path[4096], text[16384];
    float data[64];
    FILE *f;
    struct ht_spec *spec;
    struct ht_session *s;
    struct ht_exec_opts opts = fixture_opts();
    struct ht_eval_result *res = calloc(1, sizeof *res);
    struct ht_error err;
    int64_t config[1];
    static const char spec_fmt[] =
        "{\"name\": \"file\", \"kernel\": {\"file\": \"%s\", \"name\": \"holes\"},\n"
        " \"sizes\": {\"N\": %d}, \"ndrange\": {\"global\": [\"N\"]},\n"
        " \"params\": {\"P\": {\"values\": [1]}},\n"
        " \"args\": [{\"name\": \"out\", \"type\": \"float\", \"shape\": [\"N\"],"
        " \"access\": \"write\", \"index\": [\"gx\"]}%s],\n"
        " \"timing\": {\"repeats\": 1, \"keep_best\": 1}}\n";
    static const char in_arg[] =
        ", {\"name\": \"in\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"read\","
        " \"init\": \"file:in.bin\", \"index\": [\"gx\"]}";

    (void)state;
    for (int i = 0; i < 64; i++)
        data[i] = 0.25f * (float)i;
    snprintf(path, sizeof path, "%s/in.bin", dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, sizeof data[0], 64, f), 64);
    fclose(f);
    snprintf(path, sizeof path, "%s/spec.json", dir);

    /* The right size: out = in + 1 exactly. */
    snprintf(text, sizeof text, spec_fmt, fixture("fixture.cl"), 64, in_arg);
    write_text(path, text);
    spec = load(path, NULL, 0);
    s = open_session(spec, &opts);
    config_of(spec, config, 0);
    if (ht_session_eval(s, config, res, &err) != HT_OK)
        fail_msg("eval: %s", err.text);
    assert_int_equal(res->verified, -1); /* no verify section */
    assert_true(res->gflops < 0 && res->gbps < 0);
    assert_int_equal(ht_session_dump(s, dir, &err), HT_OK);
    {
        float out[64];
        char p2[4096];
        snprintf(p2, sizeof p2, "%s/out.bin", dir);
        f = fopen(p2, "rb");
        assert_non_null(f);
        assert_int_equal(fread(out, sizeof out[0], 64, f), 64);
        fclose(f);
        for (int i = 0; i < 64; i++)
            assert_true(out[i] == data[i] + 1.0f);
    }
    ht_eval_result_destroy(res);
    ht_session_free(s);
    ht_spec_free(spec);

    /* A file of the wrong size is refused. */
    snprintf(text, sizeof text, spec_fmt, fixture("fixture.cl"), 65, in_arg);
    write_text(path, text);
    spec = load(path, NULL, 0);
    s = open_session(spec, &opts);
    ht_error_clear(&err);
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_ESPEC);
    assert_non_null(strstr(err.text, "in.bin"));
    ht_eval_result_destroy(res);
    ht_session_free(s);
    ht_spec_free(spec);

    /* One argument fewer than the kernel has. */
    snprintf(text, sizeof text, spec_fmt, fixture("fixture.cl"), 64, "");
    write_text(path, text);
    spec = load(path, NULL, 0);
    s = open_session(spec, &opts);
    assert_int_equal(ht_session_eval(s, config, res, &err), HT_ESPEC);
    assert_string_equal(err.field, "args");
    ht_eval_result_destroy(res);
    ht_session_free(s);
    ht_spec_free(spec);

    rm_rf(dir);
    free(dir);
    free(res);
}

static void test_cache_dir_default(void **state)
{
    struct ht_exec_opts opts;
    char buf[4096];

    (void)state;
    ht_exec_opts_init(&opts);
    assert_int_equal(opts.no_cache, 0);
    assert_int_equal(opts.no_verify, 0);
    assert_int_equal(opts.eq3, HT_EQ3_PRODUCT);
    opts.cache_dir = "/x/y";
    ht__cache_dir(&opts, buf, sizeof buf);
    assert_string_equal(buf, "/x/y");
    opts.cache_dir = NULL;
    setenv("HETUNE_CACHE_DIR", "/from/env", 1);
    ht__cache_dir(&opts, buf, sizeof buf);
    assert_string_equal(buf, "/from/env");
    unsetenv("HETUNE_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    ht__cache_dir(&opts, buf, sizeof buf);
    assert_string_equal(buf, "/xdg/hetune");
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/u", 1);
    ht__cache_dir(&opts, buf, sizeof buf);
    assert_string_equal(buf, "/home/u/.cache/hetune");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vecadd_verifies),
        cmocka_unit_test(test_wrong_kernel_fails),
        cmocka_unit_test(test_reference_kernel),
        cmocka_unit_test(test_build_error),
        cmocka_unit_test(test_constraint_before_build),
        cmocka_unit_test(test_poison_caught),
        cmocka_unit_test(test_readwrite_restored),
        cmocka_unit_test(test_dump),
        cmocka_unit_test(test_file_init_and_arg_count),
    };
    /* What programs are built, cached and reused does not depend on the data path (buffers
     * are made after the build): these run once, on the default path, and not three times
     * (each compiles cold in a folder of its own, two thirds of the whole test's time). */
    const struct CMUnitTest once[] = {
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_program_reuse),
        cmocka_unit_test(test_sessions_threads),
        /* Last: it changes the environment. */
        cmocka_unit_test(test_cache_dir_default),
    };
    struct ht_error err;
    const char *src = getenv("HETUNE_SOURCE_DIR");
    int failed;

    snprintf(source_dir, sizeof source_dir, "%s", src && *src ? src : ".");
    ht_error_clear(&err);
    if (ht_platform_discover(&plat, &err) != HT_OK) {
        fprintf(stderr, "skipped: %s\n", err.text);
        return 77;
    }
    dev = &plat->devices[0];
    failed = 0;
    for (unsigned p = 0; p < 3; p++) {
        static const enum ht_data_path paths[] = {HT_PATH_AUTO, HT_PATH_PINNED,
                                                  HT_PATH_PAGEABLE};
        test_path = paths[p];
        fprintf(stderr, "data path: %s\n", ht_data_path_name(test_path));
        failed += _cmocka_run_group_tests(ht_data_path_name(test_path), tests,
                                          sizeof tests / sizeof tests[0], NULL, NULL);
    }
    test_path = HT_PATH_AUTO;
    failed += _cmocka_run_group_tests("builds", once, sizeof once / sizeof once[0], NULL, NULL);
    ht_platform_free(plat);
    return failed;
}
