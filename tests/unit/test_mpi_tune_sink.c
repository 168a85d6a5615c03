/* A distributed tune into the caller's sink (mpi.h, ht_mpi_tune_opts.sink): each test
 * runs this program again under `mpirun -n 2` (each rank with its own PoCL device,
 * POCL_DEVICES=pthread, as tests/cli/mpi_tune.sh does), as many ranks as the tune needs;
 * the ranks check what came back and end with status 0 or 1, which mpirun returns.
 *   memory  rank 0 first tunes 5 configurations of tests/fixtures/mpi/spec.json (12) alone
 *           into its memory (ht_tune_sink_memory, ht_tune_device), then the 2 ranks tune
 *           the rest over MPI into the same memory: the 5 come from it (list_evals), the 7
 *           others are measured and arrive there (put_eval), the space's sizes too
 *           (put_space), and no database file is made, neither opts.db nor the default;
 *           rank 1's memory, given too, is left as it was (only rank 0 records).
 *   lacks   a sink without put_eval is refused by rank 0 (HT_EINVAL naming it), and rank 1
 *           learns that rank 0 failed; no file is made.
 *   nospace a memory sink without put_space (optional, mpi.h): the 12 are tuned into it,
 *           the space's sizes not recorded; no file is made.
 * Skipped (77) in a build without MPI, without mpirun, or without an OpenCL device. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hetune.h"

#define CAP 64
#define SPACE 12                 /* tests/fixtures/mpi/spec.json's configurations */
#define ALONE 5                  /* measured by rank 0 alone first */
#define MPIRUN_LIMIT_S 300

#include "mpi-test.h"

/* ---- the ranks' side: `mpirun -n 2 test_mpi_tune_sink --rank SCENARIO` ---- */

/* The files of dir but . and .. */
static int files_in(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (!d)
        return -1;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];

    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* Rank 0 alone, before MPI: ALONE configurations tuned on its device into mem. */
static int tune_alone(const struct ht_spec *spec, const struct ht_tune_sink *sink)
{
    struct ht_platform *plat = NULL;
    struct ht_tune_opts o;
    struct ht_tune_result *res = calloc(1, sizeof *res);
    struct ht_error err;
    int rc;

    ht_error_clear(&err);
    ht_tune_opts_init(&o);
    o.strategy = "exhaustive";
    o.budget = ALONE;
    rc = res ? ht_platform_discover(&plat, &err) : HT_ENOMEM;
    if (rc == HT_OK)
        rc = ht_tune_device(spec, &plat->devices[0], sink, &o, res, &err);
    if (rc != HT_OK)
        fprintf(stderr, "rank 0: the tune alone failed: %s\n", err.text);
    else
        CHECK(res->evaluated == ALONE);
    free(res);
    ht_platform_free(plat);
    return rc;
}

static int rank_main(const char *scenario)
{
    const char *src = getenv("HETUNE_SOURCE_DIR");
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    struct ht_spec *spec = NULL;
    struct ht_tune_memory mem = {0};
    struct ht_tune_sink sink;
    struct ht_tune_sink_ops lacking;
    struct ht_tune_opts topts;
    struct ht_mpi_tune_opts mopts = {0};
    struct ht_mpi_tune_result res;
    struct ht_error err;
    char path[4096], dir[64] = "/tmp/hetune-test-mpi-sink-XXXXXX";
    int memory = !strcmp(scenario, "memory"), nospace = !strcmp(scenario, "nospace"), rc;

    my_rank = r ? atoi(r) : 0;
    ht_error_clear(&err);
    snprintf(path, sizeof path, "%s/tests/fixtures/mpi/spec.json", src ? src : ".");
    mem.evals = calloc(CAP, sizeof *mem.evals);
    mem.cap = CAP;
    if (!mem.evals || ht_spec_load(path, NULL, 0, &spec, &err) != HT_OK || !mkdtemp(dir) ||
        chdir(dir) != 0) {
        fprintf(stderr, "rank %d: cannot start: %s\n", my_rank, err.text);
        return 1;
    }
    ht_tune_sink_memory(&sink, &mem);
    if (!memory) {
        lacking = *sink.ops;
        if (nospace)
            lacking.put_space = NULL;
        else
            lacking.put_eval = NULL;
        sink.ops = &lacking;
    }
    if (memory && my_rank == 0 && tune_alone(spec, &sink) != HT_OK)
        return 1; /* mpirun then ends rank 1, which waits for rank 0 */
    ht_tune_opts_init(&topts);
    topts.strategy = "exhaustive";
    /* A database named, and the default one in this folder: neither must be made. */
    mopts.db = "tune.db";
    mopts.tune = &topts;
    mopts.sink = &sink;
    rc = ht_mpi_tune(spec, &mopts, &res, &err);
    if (nospace) {
        if (rc != HT_OK)
            fprintf(stderr, "rank %d: %s\n", my_rank, err.text);
        CHECK(rc == HT_OK);
        if (my_rank == 0) {
            CHECK(res.nmodels == 1 && res.models[0].evaluated == SPACE);
            CHECK(mem.count == SPACE && mem.runs == 0);
            CHECK(mem.space.pruned == 0 && mem.space.unpruned == 0);
        } else {
            CHECK(mem.count == 0 && mem.key[0] == '\0');
        }
    } else if (memory && my_rank == 0) {
        size_t measured = 0;
        if (rc != HT_OK)
            fprintf(stderr, "rank 0: %s\n", err.text);
        CHECK(rc == HT_OK);
        CHECK(res.db && !strcmp(res.db, ""));
        CHECK(res.nmodels == 1);
        if (res.nmodels == 1) {
            CHECK(res.models[0].space == SPACE);
            CHECK(res.models[0].from_db == ALONE);
            CHECK(res.models[0].evaluated == SPACE - ALONE);
            CHECK(res.models[0].has_best);
        }
        for (size_t i = 0; i < res.nranks; i++)
            measured += res.ranks[i].measured;
        CHECK(measured == SPACE - ALONE);
        /* Every configuration once, in the memory: the first ALONE from the tune alone. */
        CHECK(mem.count == SPACE);
        for (size_t i = 0; i < mem.count; i++)
            for (size_t j = 0; j < i; j++)
                CHECK(strcmp(mem.evals[i].config, mem.evals[j].config) != 0);
        CHECK(mem.space.pruned == SPACE);
        /* The tune alone's run; the distributed tune records none (mpi.h). */
        CHECK(mem.runs == 1 && mem.steps == ALONE);
    } else if (memory) {
        CHECK(rc == HT_OK);
        CHECK(mem.count == 0 && mem.runs == 0 && mem.key[0] == '\0');
    } else if (my_rank == 0) {
        CHECK(rc == HT_EINVAL);
        CHECK(strstr(err.text, "put_eval") != NULL);
        CHECK(mem.count == 0 && mem.key[0] == '\0');
    } else {
        CHECK(rc == HT_EINVAL && res.rank0_failed);
    }
    CHECK(files_in(dir) == 0);
    ht_mpi_tune_result_destroy(&res);
    remove_dir(dir);
    ht_spec_free(spec);
    free(mem.evals);
    return rank_failed;
}

/* ---- the test's side: runs the ranks ---- */

static void test_memory(void **state)
{
    (void)state;
    assert_int_equal(mpi_test_run("memory"), 0);
}

static void test_lacks_put_eval(void **state)
{
    (void)state;
    assert_int_equal(mpi_test_run("lacks"), 0);
}

static void test_no_put_space(void **state)
{
    (void)state;
    assert_int_equal(mpi_test_run("nospace"), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_lacks_put_eval),
        cmocka_unit_test(test_no_put_space),
    };

    if (argc == 3 && !strcmp(argv[1], "--rank"))
        return rank_main(argv[2]);
    if (mpi_test_prepare(argv[0]) != 0)
        return 77;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
