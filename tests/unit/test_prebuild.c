/* Tests of the pool of build workers (src/exec/prebuild.c, exec's door exec/tuning.h) on
 * a CPU device: a pause stops the workers' processes and does not count against a build's
 * time limit, a pool freed while paused ends without leaving a process behind, and a
 * session's own pool (ht__session_build_ahead) is paused around its timed runs and ends
 * with it. Exits
 * 77 (skipped) when no OpenCL CPU device is found or no worker executable. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune.h"
#include "exec/tuning.h"
#include "exec/exec-internal.h" /* the pool (ht__prebuild_*), struct ht_session */
#include "util/util.h"              /* ht__now */

static struct ht_platform *plat;
static const struct ht_device_info *dev;
static char source_dir[2048];

/* How many of this process's children are alive, and how many of those are stopped (state
 * T), from /proc. */
static void children(int *alive, int *stopped)
{
    DIR *d = opendir("/proc");
    struct dirent *e;

    *alive = *stopped = 0;
    assert_non_null(d);
    while ((e = readdir(d))) {
        char path[300], buf[1024], *close_paren, state;
        int ppid;
        FILE *f;

        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        if (!(f = fopen(path, "r")))
            continue;
        buf[0] = '\0';
        if (!fgets(buf, sizeof buf, f))
            buf[0] = '\0';
        fclose(f);
        /* pid (comm) state ppid ...: comm may hold spaces. */
        if (!(close_paren = strrchr(buf, ')')) ||
            sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2 || ppid != getpid())
            continue;
        if (state == 'Z')
            continue;
        (*alive)++;
        *stopped += state == 'T';
    }
    closedir(d);
}

static struct ht_spec *load_jobs(void)
{
    char path[4096];
    struct ht_spec *spec = NULL;
    struct ht_error err;

    snprintf(path, sizeof path, "%s/tests/fixtures/tune/jobs.json", source_dir);
    ht_error_clear(&err);
    if (ht_spec_load(path, NULL, 0, &spec, &err) != HT_OK)
        fail_msg("cannot load %s: %s", path, err.text);
    return spec;
}

static void config_of(const struct ht_spec *spec, const char *work, int64_t *config)
{
    const char *assign[3] = {"WG=64", work, "BAD=0"};
    struct ht_error err;

    ht_error_clear(&err);
    if (ht_spec_config_from_assignments(spec, assign, 3, config, &err) != HT_OK)
        fail_msg("bad configuration: %s", err.text);
}

/* A pool of one worker, its worker started by a first build: what follows is timed from a
 * worker that runs. timeout_s is the user's limit. */
static struct ht_prebuild *warm_pool(const struct ht_spec *spec, double timeout_s)
{
    struct ht_prebuild *p = NULL;
    struct ht_prebuild_done d;
    struct ht_exec_opts o;
    struct ht_error err;
    int64_t config[3];

    ht_exec_opts_init(&o);
    o.eq3 = HT_EQ3_OFF;
    o.timeout_s = timeout_s;
    ht_error_clear(&err);
    if (ht__prebuild_create(spec, dev, &o, 1, &p, &err) != HT_OK)
        fail_msg("pool: %s", err.text);
    config_of(spec, "WORK=1", config);
    assert_int_equal(ht__prebuild_submit(p, 1, config), HT_OK);
    assert_int_equal(ht__prebuild_take(p, 1, 1, &d), HT_OK);
    if (d.status != HT_OK)
        fail_msg("the first build: %s", d.err.text);
    ht_eval_result_destroy(&d.res);
    return p;
}

/* Pauses pool p (ht__prebuild_pause) and a second later (a SIGSTOP takes effect
 * asynchronously) checks how many of this process's children are alive and stopped. */
static void pause_and_count(struct ht_prebuild *p, int alive, int stopped)
{
    int n, nstopped;

    ht__prebuild_pause(p, 1);
    sleep(1);
    children(&n, &nstopped);
    assert_int_equal(n, alive);
    assert_int_equal(nstopped, stopped);
}

/* Ends pool p and session s (with the pool it owns), either NULL, within a minute (alarm:
 * a worker left stopped would hang its reap), and no process of theirs is left. */
static void end_leaving_none(struct ht_prebuild *p, struct ht_session *s)
{
    int alive, stopped;

    alarm(60);
    ht__prebuild_free(p);
    ht_session_free(s);
    alarm(0);
    children(&alive, &stopped);
    assert_int_equal(alive, 0);
}

/* A build paused for twice the user's limit ends well once let go on: the pause stopped
 * its worker (state T, the build still unfinished), and did not count against the limit.
 * Both of the limited pool's builds are first made without a limit, into the tests' binary
 * cache, so that what the limit times is a cached program's load (a tenth of a second),
 * not a cold build: a cold build here takes 1 to 2.5 s at a load of 3 to 4 (PoCL asked for
 * a binary file) and timed out against the 2 s limit (3 of 3 runs from an empty cache at a
 * load of about 3, as a fresh clone's make test runs this test). */
static void test_pause_not_timed(void **state)
{
    struct ht_spec *spec = load_jobs();
    struct ht_prebuild *p;
    struct ht_prebuild_done d;
    size_t building = 0, finished = 0;
    int64_t config[3];
    int alive, stopped;

    (void)state;
    config_of(spec, "WORK=64", config);
    p = warm_pool(spec, 0.0);
    assert_int_equal(ht__prebuild_submit(p, 2, config), HT_OK);
    assert_int_equal(ht__prebuild_take(p, 2, 1, &d), HT_OK);
    if (d.status != HT_OK)
        fail_msg("a build without a limit: %s", d.err.text);
    ht_eval_result_destroy(&d.res);
    ht__prebuild_free(p);
    p = warm_pool(spec, 2.0);
    ht__prebuild_pause(p, 1);
    assert_int_equal(ht__prebuild_submit(p, 2, config), HT_OK);
    sleep(4);
    ht__prebuild_counts(p, NULL, &building, &finished);
    children(&alive, &stopped);
    assert_int_equal(alive, 1);
    assert_int_equal(stopped, 1);
    assert_int_equal(building, 1);
    assert_int_equal(finished, 0);
    ht__prebuild_pause(p, 0);
    children(&alive, &stopped);
    assert_int_equal(stopped, 0);
    assert_int_equal(ht__prebuild_take(p, 2, 1, &d), HT_OK);
    if (d.status != HT_OK)
        fail_msg("a paused build: %s", d.err.text);
    assert_int_equal(d.config_fault, 0);
    assert_int_equal(d.res.cache_hit, 1);
    ht_eval_result_destroy(&d.res);
    ht__prebuild_free(p);
    children(&alive, &stopped);
    assert_int_equal(alive, 0);
    ht_spec_free(spec);
}

/* A pool freed while paused, with a build in flight (its worker is killed) or none (its
 * worker is let end, and waited for): it ends (alarm: a worker left stopped would hang its
 * reap) and no process of its is left, stopped or not. */
static void free_while_paused(int in_flight)
{
    struct ht_spec *spec = load_jobs();
    struct ht_prebuild *p;
    int64_t config[3];

    p = warm_pool(spec, 0.0);
    if (in_flight) {
        config_of(spec, "WORK=1024", config);
        assert_int_equal(ht__prebuild_submit(p, 2, config), HT_OK);
    }
    pause_and_count(p, 1, 1);
    end_leaving_none(p, NULL);
    ht_spec_free(spec);
}

static void test_free_while_paused_building(void **state)
{
    (void)state;
    free_while_paused(1);
}

static void test_free_while_paused_idle(void **state)
{
    (void)state;
    free_while_paused(0);
}

/* A session given the pool (ht__session_pause_builds) pauses it around its timed runs
 * only: after an evaluation with a cold build (about 0.5 s here against runs of
 * milliseconds), the pool was paused at least as long as the runs took but not for the
 * build, and is let go on; in this process and, told by the measuring worker (MSG_TIMED),
 * isolated. Pausing the whole evaluation, as the tuner did before, fails it. */
static void timed_only(enum ht_isolation isolate)
{
    struct ht_spec *spec = load_jobs();
    struct ht_prebuild *p;
    struct ht_session *s = NULL;
    struct ht_eval_result res;
    struct ht_exec_opts o;
    struct ht_error err;
    int64_t config[3];
    double before, paused, t0, wall, runs = 0.0;
    char cache[] = "/tmp/hetune-test-prebuild.XXXXXX", rm[64];
    int alive, stopped;

    p = warm_pool(spec, 0.0);
    ht_exec_opts_init(&o);
    o.eq3 = HT_EQ3_OFF;
    o.isolate = isolate;
    o.no_verify = 1;
    o.cache_dir = mkdtemp(cache); /* a cold build: seconds beside the runs' milliseconds */
    assert_non_null(o.cache_dir);
    ht_error_clear(&err);
    if (ht_session_create(spec, dev, &o, &s, &err) != HT_OK)
        fail_msg("session: %s", err.text);
    assert_int_equal(ht_session_isolated(s), isolate == HT_ISOLATE_ON);
    ht__session_pause_builds(s, p);
    config_of(spec, "WORK=64", config);
    before = ht__prebuild_paused_s(p);
    memset(&res, 0, sizeof res);
    t0 = ht__now();
    if (ht_session_eval(s, config, &res, &err) != HT_OK)
        fail_msg("eval: %s", err.text);
    wall = ht__now() - t0;
    paused = ht__prebuild_paused_s(p) - before;
    for (unsigned r = 0; r < res.nruns; r++)
        runs += res.run_s[r];
    print_message("isolate %d: paused %.4f s, runs %.4f s (%u), eval %.4f s, build %.4f s\n", (int)isolate, paused, runs, res.nruns, wall, res.build_s);
    assert_true(res.nruns >= 1);
    {
        /* The runs themselves came back, from the worker too (after the struct): the
         * fastest is kernel_min_s, computed from them where they were timed. */
        double least = res.run_s[0];
        for (unsigned r = 1; r < res.nruns; r++)
            least = res.run_s[r] < least ? res.run_s[r] : least;
        assert_true(least > 0.0 && least == res.kernel_min_s);
    }
    assert_int_equal(res.cache_hit, 0);
    assert_true(paused >= runs);                    /* the runs were paused */
    assert_true(paused + 0.5 * res.build_s < wall); /* the build was not */
    children(&alive, &stopped);
    assert_int_equal(stopped, 0);
    ht_eval_result_destroy(&res);
    ht__session_pause_builds(s, NULL);
    ht__prebuild_free(p);
    ht_session_free(s);
    ht_spec_free(spec);
    snprintf(rm, sizeof rm, "rm -rf %s", cache);
    assert_int_equal(system(rm), 0);
}

/* A session's own pool (ht__session_build_ahead, what the tuner uses): made at the first
 * build ahead, its builds taken and counted through the session, paused around the
 * session's timed runs (a CPU device's), and ended with the session while a build is in
 * flight: no process of its is left. Before the first build ahead there is nothing to
 * take. */
static void test_session_owns_pool(void **state)
{
    struct ht_spec *spec = load_jobs();
    struct ht_session *s = NULL;
    struct ht_prebuild_done d;
    struct ht_eval_result res;
    struct ht_exec_opts o;
    struct ht_error err;
    int64_t config[3], other[3];
    size_t building, built;
    double before, t0;
    int alive, stopped;

    (void)state;
    ht_exec_opts_init(&o);
    o.eq3 = HT_EQ3_OFF;
    o.isolate = HT_ISOLATE_OFF;
    o.no_verify = 1;
    ht_error_clear(&err);
    if (ht_session_create(spec, dev, &o, &s, &err) != HT_OK)
        fail_msg("session: %s", err.text);
    assert_int_equal(ht__session_take_build(s, 1, &d), HT_ENOTFOUND);
    ht__session_builds(s, &building, &built);
    assert_int_equal(building + built, 0);
    config_of(spec, "WORK=1", config);
    config_of(spec, "WORK=1024", other);
    assert_int_equal(ht__session_build_ahead(s, 1, 1, config), HT_OK);
    assert_non_null(s->pause);
    assert_int_equal(ht__session_build_ahead(s, 1, 1, config), HT_EINVAL);
    assert_int_equal(ht__session_take_build(s, 1, &d), HT_OK);
    if (d.status != HT_OK)
        fail_msg("a build ahead: %s", d.err.text);
    ht_eval_result_destroy(&d.res);
    assert_int_equal(ht__session_take_build(s, 1, &d), HT_ENOTFOUND);
    before = ht__prebuild_paused_s(s->pause);
    memset(&res, 0, sizeof res);
    if (ht_session_eval(s, config, &res, &err) != HT_OK)
        fail_msg("eval: %s", err.text);
    assert_true(res.nruns >= 1);
    assert_true(ht__prebuild_paused_s(s->pause) > before); /* around its timed runs */
    ht_eval_result_destroy(&res);
    children(&alive, &stopped);
    assert_int_equal(alive, 1);
    assert_int_equal(stopped, 0);
    assert_int_equal(ht__session_build_ahead(s, 1, 2, other), HT_OK);
    /* Queued, then building (counted) once the pool's thread takes it up. */
    t0 = ht__now();
    do {
        ht__session_builds(s, &building, &built);
    } while (building + built == 0 && ht__now() - t0 < 10.0);
    assert_int_equal(building + built, 1);
    end_leaving_none(NULL, s);
    ht_spec_free(spec);
}

/* A pool that does not pause (ht__prebuild_pausing 0, as a session of a device other
 * than the CPU makes its own) ignores ht__prebuild_pause: its worker runs on and no time
 * paused is counted; pausing again, it stops. */
static void test_pausing_off(void **state)
{
    struct ht_spec *spec = load_jobs();
    struct ht_prebuild *p;

    (void)state;
    p = warm_pool(spec, 0.0);
    ht__prebuild_pausing(p, 0);
    pause_and_count(p, 1, 0);
    assert_true(ht__prebuild_paused_s(p) == 0.0);
    ht__prebuild_pause(p, 0);
    ht__prebuild_pausing(p, 1);
    pause_and_count(p, 1, 1);
    ht__prebuild_pause(p, 0);
    end_leaving_none(p, NULL);
    ht_spec_free(spec);
}

static void test_timed_only_in_process(void **state)
{
    (void)state;
    timed_only(HT_ISOLATE_OFF);
}

static void test_timed_only_isolated(void **state)
{
    (void)state;
    timed_only(HT_ISOLATE_ON);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timed_only_in_process),
        cmocka_unit_test(test_timed_only_isolated),
        cmocka_unit_test(test_pause_not_timed),
        cmocka_unit_test(test_free_while_paused_building),
        cmocka_unit_test(test_free_while_paused_idle),
        cmocka_unit_test(test_session_owns_pool),
        cmocka_unit_test(test_pausing_off),
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
    for (size_t i = 0; i < plat->count && !dev; i++)
        if (plat->devices[i].is_cpu)
            dev = &plat->devices[i];
    if (!dev) {
        fprintf(stderr, "skipped: no CPU device\n");
        ht_platform_free(plat);
        return 77;
    }
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    ht_platform_free(plat);
    return failed;
}
