/* The supervisor and a supervised child (supervise.h), without OpenCL: this program
 * supervises itself. Its first child marks a device at work (the watch the co-execution
 * begins, supervise's door) and dies of a signal; the supervisor names that device lost and
 * runs a second child, which asks ht_supervised_lost about each device, as hetune split
 * and run do to leave the lost one out, and writes the answers to a file for the parent.
 * Outside a supervised child ht_supervised_lost answers 0 whatever the environment says.
 * The supervisor out of memory as it records a device lost: the first or the second (a
 * child that dies on device 1, then on device 2): realloc is wrapped at link time
 * (-Wl,--wrap=realloc, tests/CMakeLists.txt) to fail once at the size of that array. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune.h"
#include "supervise/watch.h"

static char dir[] = "/tmp/hetune-test-supervise-XXXXXX";
static char answers[512];

/* The link-time wrapper of realloc: the next call for fail_size bytes fails (once), and
 * failed counts those that did, so that a test knows its failure was reached. */
static size_t fail_size;
static unsigned failed;
void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size)
{
    if (fail_size && size == fail_size) {
        fail_size = 0;
        failed++;
        return NULL;
    }
    return __real_realloc(p, size);
}

/* Marks device (index) at work as the co-execution does, and dies of a signal there. */
static int die_at(size_t device)
{
    struct ht_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.index = device;
    snprintf(dev.name, sizeof dev.name, "fake device %zu", device);
    (void)ht__watch_begin(&dev, 60.0);
    raise(SIGKILL);
    return 4; /* not reached */
}

/* The child: the first one (nothing lost yet) dies at work on device 1; the second
 * writes, for devices 0 to 2, whether each is lost and the reason, then the reason cut to
 * an 8-byte buffer. */
static int child(const char *path)
{
    char reason[256], cut[8];
    FILE *f;

    if (!ht_supervised())
        return 3;
    if (!ht_supervised_lost(1, reason, sizeof reason))
        return die_at(1);
    f = fopen(path, "w");
    if (!f)
        return 5;
    for (size_t i = 0; i < 3; i++) {
        snprintf(reason, sizeof reason, "untouched");
        int lost = ht_supervised_lost(i, reason, sizeof reason);
        fprintf(f, "%zu %d %s\n", i, lost, reason);
    }
    memset(cut, 'x', sizeof cut);
    fprintf(f, "cut %d %s\n", ht_supervised_lost(1, cut, sizeof cut), cut);
    fprintf(f, "no reason %d %d\n", ht_supervised_lost(1, NULL, 64),
            ht_supervised_lost(2, NULL, 0));
    return fclose(f) == 0 ? 0 : 6;
}

/* The child of test_lost_second_no_memory: dies on device 1, then on device 2, then ends. */
static int child_two(void)
{
    if (!ht_supervised())
        return 3;
    if (!ht_supervised_lost(1, NULL, 0))
        return die_at(1);
    if (!ht_supervised_lost(2, NULL, 0))
        return die_at(2);
    return 0;
}

static void test_not_supervised(void **state)
{
    char reason[32] = "untouched";
    (void)state;
    /* The supervisor's variable without its page: not a supervised child. */
    setenv("HETUNE_SUPERVISE_LOST", "0\tcrashed (SIGSEGV) in its part of the co-execution\n", 1);
    assert_int_equal(ht_supervised(), 0);
    assert_int_equal(ht_supervised_lost(0, reason, sizeof reason), 0);
    assert_string_equal(reason, "untouched");
    unsetenv("HETUNE_SUPERVISE_LOST");
}

static void test_lost_device(void **state)
{
    char *argv[] = {"test_supervise", "--child", answers, NULL};
    struct ht_supervise_opts o;
    struct ht_supervise_result res;
    struct ht_error err;
    char line[5][320];
    FILE *f;

    (void)state;
    memset(&o, 0, sizeof o);
    ht_error_clear(&err);
    assert_int_equal(ht_supervise(argv, &o, &res, &err), HT_OK);
    assert_int_equal(res.status, 0);
    assert_int_equal(res.attempts, 2);
    assert_int_equal(res.nlost, 1);
    assert_int_equal(res.lost[0].device, 1);
    assert_string_equal(res.lost[0].name, "fake device 1");
    assert_string_equal(res.lost[0].reason, "crashed (SIGKILL) in its part of the co-execution");
    f = fopen(answers, "r");
    assert_non_null(f);
    for (size_t i = 0; i < 5; i++) {
        assert_non_null(fgets(line[i], sizeof line[i], f));
        line[i][strcspn(line[i], "\n")] = '\0';
    }
    fclose(f);
    assert_string_equal(line[0], "0 0 untouched");
    assert_string_equal(line[1], "1 1 crashed (SIGKILL) in its part of the co-execution");
    assert_string_equal(line[2], "2 0 untouched");
    assert_string_equal(line[3], "cut 1 crashed");
    assert_string_equal(line[4], "no reason 1 0");
    ht_supervise_result_destroy(&res);
    assert_null(res.lost);
    assert_int_equal(res.nlost, 0);
    ht_supervise_result_destroy(&res); /* a zeroed result: nothing to free */
    ht_supervise_result_destroy(NULL);
}

/* The supervisor out of memory as it records the first device lost: HT_ENOMEM, err
 * filled, no device lost recorded and no array, one child run; the result destroys as
 * any. */
static void test_lost_first_no_memory(void **state)
{
    char *argv[] = {"test_supervise", "--child", answers, NULL};
    struct ht_supervise_result res;
    struct ht_error err;

    (void)state;
    unlink(answers);
    ht_error_clear(&err);
    failed = 0;
    fail_size = sizeof(struct ht_supervise_lost);
    assert_int_equal(ht_supervise(argv, NULL, &res, &err), HT_ENOMEM);
    fail_size = 0;
    assert_int_equal(failed, 1);
    assert_int_equal(err.code, HT_ENOMEM);
    assert_string_equal(err.text, "out of memory");
    assert_int_equal(res.attempts, 1);
    assert_int_equal(res.nlost, 0);
    assert_null(res.lost);
    assert_int_equal(access(answers, F_OK), -1); /* no second child */
    ht_supervise_result_destroy(&res);
}

/* The same at the second device lost: the first stays recorded as it was, in the array
 * the result still owns (no leak, no dangling pointer: ASan's and valgrind's runs). */
static void test_lost_second_no_memory(void **state)
{
    char *argv[] = {"test_supervise", "--child-two", NULL};
    struct ht_supervise_result res;
    struct ht_error err;

    (void)state;
    ht_error_clear(&err);
    failed = 0;
    fail_size = 2 * sizeof(struct ht_supervise_lost);
    assert_int_equal(ht_supervise(argv, NULL, &res, &err), HT_ENOMEM);
    fail_size = 0;
    assert_int_equal(failed, 1);
    assert_int_equal(err.code, HT_ENOMEM);
    assert_int_equal(res.attempts, 2);
    assert_int_equal(res.nlost, 1);
    assert_non_null(res.lost);
    assert_int_equal(res.lost[0].device, 1);
    assert_string_equal(res.lost[0].name, "fake device 1");
    assert_string_equal(res.lost[0].reason, "crashed (SIGKILL) in its part of the co-execution");
    ht_supervise_result_destroy(&res);
    assert_null(res.lost);
    assert_int_equal(res.nlost, 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_supervised),
        cmocka_unit_test(test_lost_device),
        cmocka_unit_test(test_lost_first_no_memory),
        cmocka_unit_test(test_lost_second_no_memory),
    };
    int rc;

    if (argc == 3 && !strcmp(argv[1], "--child"))
        return child(argv[2]);
    if (argc == 2 && !strcmp(argv[1], "--child-two"))
        return child_two();
    if (!mkdtemp(dir))
        return 1;
    snprintf(answers, sizeof answers, "%s/answers", dir);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(answers);
    rmdir(dir);
    return rc;
}
