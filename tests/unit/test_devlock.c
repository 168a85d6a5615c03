/* Device lock sets and the load watch (src/exec/devlock.c, src/exec/load.c): the order and
 * the sharing of lock files, taking a held lock again within one process, a wait that
 * another process's lock causes (told, stopped), a lock folder that cannot be made, and the
 * load figures from a fake /proc/stat ($HETUNE_LOAD_STAT). No OpenCL: devices are made up. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hetune/exec.h"
#include "hetune/present.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/hetune-test-devlock.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    setenv("HETUNE_LOCK_DIR", dir, 1);
    unsetenv("HETUNE_LOAD_STAT");
    return 0;
}

static int teardown(void **state)
{
    char cmd[300];

    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static struct ht_device_info device(size_t index, int is_cpu, const char *name)
{
    struct ht_device_info d;

    memset(&d, 0, sizeof d);
    d.index = index;
    d.is_cpu = is_cpu;
    d.is_gpu = !is_cpu;
    snprintf(d.platform, sizeof d.platform, "Test");
    snprintf(d.name, sizeof d.name, "%s", name);
    return d;
}

/* 1 when another process cannot take path's flock now. */
static int locked_elsewhere(const char *path)
{
    pid_t p = fork();
    int st;

    if (p == 0) {
        int fd = open(path, O_RDWR);
        _exit(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : 1);
    }
    waitpid(p, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 1;
}

static void cpu_devices_share_one_lock_and_nest(void **state)
{
    struct ht_device_info a = device(0, 1, "pthread"), b = device(1, 1, "basic"),
                          g = device(2, 0, "gpu");
    const struct ht_device_info *set[] = {&g, &a, &b};
    struct ht_device_locks l, inner;
    struct ht_load load = {0};
    struct ht_error err;
    char pa[4096], pb[4096], pg[4096];
    int fd;

    (void)state;
    ht__device_lock_path(&a, pa, sizeof pa);
    ht__device_lock_path(&b, pb, sizeof pb);
    ht__device_lock_path(&g, pg, sizeof pg);
    assert_string_equal(pa, pb);
    assert_string_not_equal(pa, pg);
    ht_error_clear(&err);
    assert_int_equal(ht_device_locks_take(set, 3, NULL, &l, &load, &err), HT_OK);
    assert_int_equal(l.n, 2); /* cpu.lock once, the GPU's */
    assert_true(l.cpu);
    assert_true(locked_elsewhere(pa));
    assert_true(locked_elsewhere(pg));
    /* Within the process a held lock is taken again at once (else this would hang). */
    assert_int_equal(ht_device_locks_take(set + 1, 1, NULL, &inner, &load, &err), HT_OK);
    assert_int_equal(ht__device_lock(&g, NULL, NULL, NULL, &fd, &err), HT_OK);
    ht__device_unlock(fd);
    ht_device_locks_release(&inner, &load);
    assert_true(locked_elsewhere(pa)); /* the outer set still holds both */
    assert_true(locked_elsewhere(pg));
    ht_device_locks_release(&l, &load);
    assert_false(locked_elsewhere(pa));
    assert_false(locked_elsewhere(pg));
    assert_false(load.unlocked);
    ht_device_locks_release(&l, &load); /* twice: nothing */
}

static int told, ended;
static long told_holder;
static volatile sig_atomic_t stop_now;

static void on_wait(const struct ht_device_info *d, const char *path, long holder, void *user)
{
    (void)d;
    (void)user;
    if (!path) { /* the wait ended */
        ended++;
        return;
    }
    told++;
    told_holder = holder;
    stop_now = 1; /* as a Ctrl-C during the wait */
}

static void a_wait_is_told_and_stopped(void **state)
{
    struct ht_device_info a = device(0, 1, "pthread");
    const struct ht_device_info *set[] = {&a};
    struct ht_device_wait stopping = {&stop_now, on_wait, NULL};
    struct ht_device_locks l;
    struct ht_error err;
    int to_child[2], to_parent[2];
    char c = 0;
    int rc, st = 0;
    pid_t p;

    (void)state;
    assert_int_equal(pipe(to_child), 0);
    assert_int_equal(pipe(to_parent), 0);
    p = fork();
    if (p == 0) {
        struct ht_device_locks cl;
        struct ht_error e;
        int ok = ht_device_locks_take(set, 1, NULL, &cl, NULL, &e) == HT_OK;
        close(to_child[1]);
        close(to_parent[0]);
        /* Held until the parent closes its end (or dies): read returns 0 then. */
        if (write(to_parent[1], "x", 1) != 1 || read(to_child[0], &c, 1) != 0)
            ok = 0;
        ht_device_locks_release(&cl, NULL);
        _exit(ok ? 0 : 1);
    }
    close(to_child[0]);
    close(to_parent[1]);
    assert_int_equal(read(to_parent[0], &c, 1), 1);
    told = ended = 0;
    stop_now = 0;
    ht_error_clear(&err);
    rc = ht_device_locks_take(set, 1, &stopping, &l, NULL, &err);
    /* The child goes before any check can fail: it must not hold the lock for the tests
     * after this one. */
    close(to_child[1]);
    waitpid(p, &st, 0);
    assert_int_equal(rc, HT_EINTR);
    assert_int_equal(told, 1);
    assert_int_equal(ended, 1);
    assert_int_equal(told_holder, (long)p);
    assert_int_equal(l.n, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    /* Given back by the other: taken without a wait. */
    told = ended = 0;
    stop_now = 0;
    assert_int_equal(ht_device_locks_take(set, 1, &stopping, &l, NULL, &err), HT_OK);
    assert_int_equal(told, 0);
    assert_int_equal(ended, 0);
    ht_device_locks_release(&l, NULL);
    close(to_parent[0]);
}

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Turns: another process that gives the lock back and takes it again at once (an MPI rank
 * between configurations, holding it 20 ms each time, for up to 10 s) does not starve a
 * process that waits for it: the waiter gets it at the other's next release. Without the
 * waiters' file, the waiter (looking every 50 ms) finds it free only by chance, and waited
 * the other's whole loop. */
static void a_waiter_gets_its_turn(void **state)
{
    struct ht_device_info a = device(0, 1, "pthread");
    const struct ht_device_info *set[] = {&a};
    struct ht_device_locks l;
    struct ht_error err;
    int to_parent[2], st = 0;
    double t0, waited;
    char c = 0;
    pid_t p;

    (void)state;
    assert_int_equal(pipe(to_parent), 0);
    p = fork();
    if (p == 0) {
        double end = now_s() + 10;
        int first = 1;
        close(to_parent[0]);
        while (now_s() < end) {
            struct ht_device_locks cl;
            struct ht_error e;
            if (ht_device_locks_take(set, 1, NULL, &cl, NULL, &e) != HT_OK)
                _exit(1);
            if (first && write(to_parent[1], "x", 1) != 1)
                _exit(1);
            first = 0;
            nanosleep(&(struct timespec){0, 20000000L}, NULL);
            ht_device_locks_release(&cl, NULL);
        }
        _exit(0);
    }
    close(to_parent[1]);
    assert_int_equal(read(to_parent[0], &c, 1), 1); /* it holds the lock now */
    close(to_parent[0]);
    ht_error_clear(&err);
    t0 = now_s();
    assert_int_equal(ht_device_locks_take(set, 1, NULL, &l, NULL, &err), HT_OK);
    waited = now_s() - t0;
    ht_device_locks_release(&l, NULL);
    kill(p, SIGKILL);
    waitpid(p, &st, 0);
    /* Its turn comes within a release or two (tens of ms); 5 s leaves room for a machine
     * at load 20, and is half the other's loop. */
    if (waited > 5.0)
        fail_msg("waited %.2f s for a lock another process gives back every 20 ms", waited);
}

static void an_unusable_folder_measures_unlocked(void **state)
{
    struct ht_device_info a = device(0, 1, "pthread");
    const struct ht_device_info *set[] = {&a};
    struct ht_device_locks l;
    struct ht_load load = {0};
    struct ht_error err;
    char file[300], sub[320], line[1024];
    FILE *f;

    (void)state;
    snprintf(file, sizeof file, "%s/file", dir);
    f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(sub, sizeof sub, "%s/locks", file);
    setenv("HETUNE_LOCK_DIR", sub, 1);
    ht_error_clear(&err);
    assert_int_equal(ht_device_locks_take(set, 1, NULL, &l, &load, &err), HT_OK);
    assert_int_equal(l.n, 0);
    ht_device_locks_release(&l, &load);
    setenv("HETUNE_LOCK_DIR", dir, 1);
    assert_true(load.unlocked);
    assert_non_null(strstr(load.unlocked_why, "cannot make the device lock folder"));
    assert_true(ht_load_under(&load));
    assert_int_equal(ht_present_load_sentence(&load, line, sizeof line), 1);
    assert_non_null(strstr(line, "measured under load: without a device lock"));
}

/* Writes a /proc/stat first line with busy ticks. */
static void write_stat(const char *path, unsigned long long busy)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fprintf(f, "cpu  %llu 0 0 1000000 0 0 0 0 0 0\n", busy);
    fclose(f);
}

static void the_load_from_a_fake_stat(void **state)
{
    struct ht_device_info a = device(0, 1, "pthread"), g = device(1, 0, "gpu");
    const struct ht_device_info *cpu[] = {&a}, *gpu[] = {&g};
    struct ht_device_locks l;
    struct ht_load load = {0}, quiet = {0}, sum = {0};
    struct ht_error err;
    char stat[300], line[1024];
    long hz = sysconf(_SC_CLK_TCK);

    (void)state;
    snprintf(stat, sizeof stat, "%s/stat", dir);
    setenv("HETUNE_LOAD_STAT", stat, 1);
    ht_error_clear(&err);

    /* Nobody else: the ticks do not move. */
    write_stat(stat, 1000);
    assert_int_equal(ht_device_locks_take(cpu, 1, NULL, &l, &quiet, &err), HT_OK);
    nanosleep(&(struct timespec){0, 600000000L}, NULL);
    ht_device_locks_release(&l, &quiet);
    assert_true(quiet.window_s >= 0.59);
    assert_true(quiet.other_cpu_s == 0);
    assert_false(ht_load_under(&quiet));
    assert_int_equal(ht_present_load_sentence(&quiet, line, sizeof line), 0);
    assert_string_equal(line, "");

    /* Others busy: 1.2 s of CPU in a 0.6 s window, two cores' worth less this process's
     * own (it sleeps: nearly none). */
    write_stat(stat, 1000);
    assert_int_equal(ht_device_locks_take(cpu, 1, NULL, &l, &load, &err), HT_OK);
    nanosleep(&(struct timespec){0, 600000000L}, NULL);
    write_stat(stat, 1000 + (unsigned long long)(1.2 * hz));
    ht_device_locks_release(&l, &load);
    assert_true(ht_load_other_cores(&load) > 1.5 && ht_load_other_cores(&load) < 2.1);
    assert_true(ht_load_under(&load));
    assert_true(load.cores >= 1);
    assert_int_equal(ht_present_load_sentence(&load, line, sizeof line), 1);
    assert_non_null(strstr(line, "measured under load: other processes used"));
    assert_non_null(strstr(line, "measure again when the machine is quiet"));

    /* A GPU's window is watched too: the host launches its kernels and copies its data. */
    {
        struct ht_load g0 = {0};
        write_stat(stat, 1000);
        assert_int_equal(ht_device_locks_take(gpu, 1, NULL, &l, &g0, &err), HT_OK);
        nanosleep(&(struct timespec){0, 600000000L}, NULL);
        write_stat(stat, 1000 + (unsigned long long)(1.2 * hz));
        ht_device_locks_release(&l, &g0);
        assert_true(g0.window_s >= 0.59);
        assert_true(ht_load_under(&g0));
    }

    /* Summed over windows: the quiet one dilutes the busy one. */
    ht_load_add(&sum, &quiet);
    ht_load_add(&sum, &load);
    assert_true(ht_load_other_cores(&sum) > 0.7 && ht_load_other_cores(&sum) < 1.1);

    /* A window too short to judge says nothing, however busy. */
    {
        struct ht_load s = {.window_s = 0.1, .other_cpu_s = 0.2, .cores = 2};
        assert_false(ht_load_under(&s));
    }
    unsetenv("HETUNE_LOAD_STAT");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_devices_share_one_lock_and_nest),
        cmocka_unit_test(a_wait_is_told_and_stopped),
        cmocka_unit_test(a_waiter_gets_its_turn),
        cmocka_unit_test(an_unusable_folder_measures_unlocked),
        cmocka_unit_test(the_load_from_a_fake_stat),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
