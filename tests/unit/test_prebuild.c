/* Builds ahead (src/exec/prebuild.c, exec/tuning.h) on PoCL's CPU device: the builds come
 * back as built (nothing timed), and their worker processes, which share the cores the CPU
 * device is measured on, run under SCHED_IDLE with every thread, where the tuning
 * session's own isolated worker does not (issue 25: builds beside a measured kernel slowed
 * the measuring about four times on two cores). Exits 77 (skipped) when no OpenCL platform
 * or no CPU device is found. */
#define _GNU_SOURCE /* SCHED_IDLE */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune/exec.h"
#include "hetune/platform.h"
#include "hetune/spec.h"
#include "exec/exec-internal.h"

static struct ht_platform *plat;
static const struct ht_device_info *dev;
static char source_dir[4096];

static struct ht_spec *load_vecadd(void)
{
    struct ht_size_override n = {"N", 4096};
    struct ht_spec *spec = NULL;
    struct ht_error err;
    char path[4200];

    snprintf(path, sizeof path, "%s/examples/vecadd/spec.json", source_dir);
    ht_error_clear(&err);
    if (ht_spec_load(path, &n, 1, &spec, &err) != HT_OK)
        fail_msg("cannot load %s: %s", path, err.text);
    return spec;
}

static void config_wg(const struct ht_spec *spec, const char *wg, int64_t *config)
{
    const char *assign[2] = {wg, "EPT=1"};
    struct ht_error err;

    ht_error_clear(&err);
    if (ht_spec_config_from_assignments(spec, assign, 2, config, &err) != HT_OK)
        fail_msg("bad configuration: %s", err.text);
}

/* The worker processes this process started (comm "hetune-worker"): up to max pids. */
static size_t workers(pid_t *pids, size_t max)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    size_t n = 0;

    assert_non_null(d);
    while ((e = readdir(d)) && n < max) {
        char path[300], buf[512], *rp;
        FILE *f;
        long ppid;
        pid_t pid = (pid_t)atol(e->d_name);

        if (pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        f = fopen(path, "r");
        if (!f)
            continue;
        if (!fgets(buf, sizeof buf, f)) {
            fclose(f);
            continue;
        }
        fclose(f);
        /* pid (comm) state ppid ...: comm may hold spaces, so from the last ')'. */
        rp = strrchr(buf, ')');
        if (!rp || !strstr(buf, "(hetune-worker)") || sscanf(rp + 2, "%*c %ld", &ppid) != 1)
            continue;
        if (ppid == (long)getpid())
            pids[n++] = pid;
    }
    closedir(d);
    return n;
}

/* The scheduling policy of every thread of pid: the one they share, or -1 when they
 * differ (or none could be read). */
static int threads_policy(pid_t pid)
{
    char path[64];
    DIR *d;
    struct dirent *e;
    int policy = -2;

    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    d = opendir(path);
    if (!d)
        return -1;
    while ((e = readdir(d))) {
        pid_t tid = (pid_t)atol(e->d_name);
        int p;
        if (tid <= 0)
            continue;
        p = sched_getscheduler(tid);
        if (p < 0)
            continue;
        policy = policy == -2 || policy == p ? p : -1;
    }
    closedir(d);
    return policy == -2 ? -1 : policy;
}

static void test_builders_idle(void **state)
{
    struct ht_spec *spec = load_vecadd();
    struct ht_prebuild *pool = NULL;
    struct ht_exec_opts opts;
    struct ht_error err;
    int64_t config[2][2];
    pid_t pids[8];
    size_t n;

    (void)state;
    config_wg(spec, "WG=64", config[0]);
    config_wg(spec, "WG=32", config[1]);
    ht_exec_opts_init(&opts);
    ht_error_clear(&err);
    assert_int_equal(ht__prebuild_create(spec, dev, &opts, 2, &pool, &err), HT_OK);
    for (uint64_t id = 0; id < 2; id++)
        assert_int_equal(ht__prebuild_submit(pool, id, config[id]), HT_OK);
    for (uint64_t id = 0; id < 2; id++) {
        struct ht_prebuild_done done;
        assert_int_equal(ht__prebuild_take(pool, id, 1, &done), HT_OK);
        if (done.status != HT_OK)
            fail_msg("build %d: %s", (int)id, done.err.text);
        assert_int_equal(done.res.nruns, 0); /* built, nothing timed */
        ht_eval_result_destroy(&done.res);
    }
    /* Each slot keeps its worker until the pool is freed. A slot that found the first
     * job taken by the other may not have started one: at least one, at most two. */
    n = workers(pids, 8);
    assert_true(n >= 1 && n <= 2);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(threads_policy(pids[i]), SCHED_IDLE);
    ht__prebuild_free(pool);
    assert_int_equal(workers(pids, 8), 0);
    ht_spec_free(spec);
}

/* The session measures: its worker keeps the ordinary policy. */
static void test_session_not_idle(void **state)
{
    struct ht_spec *spec = load_vecadd();
    struct ht_session *s = NULL;
    struct ht_exec_opts opts;
    struct ht_error err;
    pid_t pids[8];
    size_t n;

    (void)state;
    ht_exec_opts_init(&opts);
    opts.isolate = HT_ISOLATE_ON;
    ht_error_clear(&err);
    if (ht_session_create(spec, dev, &opts, &s, &err) != HT_OK)
        fail_msg("session: %s", err.text);
    assert_true(ht_session_isolated(s));
    n = workers(pids, 8);
    assert_int_equal(n, 1);
    assert_int_equal(threads_policy(pids[0]), SCHED_OTHER);
    ht_session_free(s);
    ht_spec_free(spec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builders_idle),
        cmocka_unit_test(test_session_not_idle),
    };
    struct ht_error err;
    const char *src = getenv("HETUNE_SOURCE_DIR");
    int rc;

    snprintf(source_dir, sizeof source_dir, "%s", src && *src ? src : ".");
    ht_error_clear(&err);
    if (ht_platform_discover(&plat, &err) != HT_OK) {
        fprintf(stderr, "skipped: %s\n", err.text);
        return 77;
    }
    for (size_t i = 0; i < plat->count && !dev; i++)
        if (plat->devices[i].is_cpu)
            dev = &plat->devices[i];
    if (!dev) {
        fprintf(stderr, "skipped: no CPU device\n");
        ht_platform_free(plat);
        return 77;
    }
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    ht_platform_free(plat);
    return rc;
}
