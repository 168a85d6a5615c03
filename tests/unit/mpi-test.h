/* Helpers the unit tests that run themselves under `mpirun -n 2` share
 * (test_mpi_tune_sink.c, test_mpi_split_stop.c): included after cmocka.h and hetune.h, with
 * MPIRUN_LIMIT_S defined. The test's main calls mpi_test_prepare, then its cmocka tests call
 * mpi_test_run, which starts `mpirun -n 2 SELF --rank [SCENARIO]`; each rank's main checks
 * with CHECK and returns rank_failed. */
#ifndef HETUNE_TESTS_MPI_TEST_H
#define HETUNE_TESTS_MPI_TEST_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *mpi_test_self; /* this program, for mpirun */
static int rank_failed;           /* a rank's CHECK failed */
static int my_rank;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", my_rank, __FILE__,       \
                    __LINE__, #cond);                                                      \
            rank_failed = 1;                                                               \
        }                                                                                  \
    } while (0)

/* 1 when PATH has an executable name. */
static inline int mpi_test_on_path(const char *name)
{
    const char *p = getenv("PATH");
    char path[4096];

    while (p && *p) {
        size_t n = strcspn(p, ":");
        snprintf(path, sizeof path, "%.*s/%s", (int)n, p, name);
        if (n > 0 && access(path, X_OK) == 0)
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

/* What the ranks need, set up in the test's process before mpirun: each rank one PoCL
 * device as on a node of its own; PoCL's cache shared by the ranks (two processes building
 * one program in one folder with it off pull it from under each other: tests/cli/
 * common.bash, mpi_rank_script); Open MPI as the MPI tests run it (require_mpi). Sets
 * mpi_test_self to self. Returns 0, or 77 (said on stderr) when the test cannot run here:
 * hetune built without MPI, no OpenCL device, no mpirun. */
static inline int mpi_test_prepare(const char *self)
{
    struct ht_platform *plat = NULL;
    struct ht_error err;
    const char *asan = getenv("ASAN_OPTIONS");
    char buf[1024];

    if (!ht_mpi_built()) {
        fprintf(stderr, "skipped: hetune was built without MPI\n");
        return 77;
    }
    setenv("POCL_DEVICES", "pthread", 1);
    setenv("POCL_MAX_PTHREAD_COUNT", "1", 1);
    setenv("POCL_KERNEL_CACHE", "1", 1);
    setenv("OMPI_MCA_pml", "ob1", 1);
    snprintf(buf, sizeof buf, "%s:fast_unwind_on_malloc=0", asan ? asan : "");
    setenv("ASAN_OPTIONS", buf, 1);
    ht_error_clear(&err);
    if (ht_platform_discover(&plat, &err) != HT_OK || plat->count == 0) {
        fprintf(stderr, "skipped: no OpenCL device (%s)\n", err.text);
        ht_platform_free(plat);
        return 77;
    }
    ht_platform_free(plat);
    if (!mpi_test_on_path("mpirun")) {
        fprintf(stderr, "skipped: no mpirun\n");
        return 77;
    }
    mpi_test_self = self;
    return 0;
}

/* Runs `mpirun -n 2 mpi_test_self --rank [scenario]` (scenario NULL: none; status 127: it
 * could not start); kills it past MPIRUN_LIMIT_S. Returns its exit status, or -1. */
static inline int mpi_test_run(const char *scenario)
{
    char *argv[10];
    int n = 0, status = 0;
    pid_t pid;
    time_t t0 = time(NULL);

    argv[n++] = "mpirun";
    argv[n++] = "--oversubscribe";
    if (getuid() == 0)
        argv[n++] = "--allow-run-as-root";
    argv[n++] = "-n";
    argv[n++] = "2";
    argv[n++] = (char *)mpi_test_self;
    argv[n++] = "--rank";
    if (scenario)
        argv[n++] = (char *)scenario;
    argv[n] = NULL;
    fflush(NULL);
    if ((pid = fork()) < 0)
        return -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (time(NULL) - t0 > MPIRUN_LIMIT_S) {
            fprintf(stderr, "mpirun -n 2 (%s) took more than %d s: killed\n",
                    scenario ? scenario : "", MPIRUN_LIMIT_S);
            kill(pid, SIGTERM);
            waitpid(pid, &status, 0);
            return -1;
        }
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif
