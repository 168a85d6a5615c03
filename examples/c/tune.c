/* Tunes one spec on one device into a temporary results database and prints the best
 * configuration, like `hetune tune`, from the public header alone.
 *
 *   tune-example [SPEC [DEVICE [N]]]
 *
 * SPEC defaults to ../vecadd/spec.json (run it from examples/c/), DEVICE to 0, N (the size
 * called N) to 65536, small enough to tune in seconds. A random search of at most 8
 * configurations, each built, run, timed and verified against the spec's reference, every
 * evaluation stored in the database; the best is then read back from the database and must
 * be the one the tune reported. Exit status 0 when a configuration verified and the
 * database agrees, 77 when there is no OpenCL platform, ht_present_exit_status's for a spec that
 * does not load (2 for an invalid one, 1 for an unreadable file), 2 for a bad argument, 1
 * otherwise (with a message). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hetune.h>

static int fail(const char *what, const struct ht_error *err, int status)
{
    char msg[2600];
    ht_error_format(err, msg, sizeof msg);
    fprintf(stderr, "tune-example: %s: %s\n", what, msg);
    return status;
}

/* Prints the space before the first evaluation, the reference step, then one line per
 * evaluation as the tune makes it. */
static void progress(const struct ht_tune_progress *p, void *user)
{
    (void)user;
    if (p->config)
        printf("  %zu/%zu  %s%s\n", p->done, p->total, ht_strerror(p->status),
               p->best ? "" : " (no best yet)");
    else if (p->reference == 2)
        printf("  reference outputs %s in %.2f s\n",
               p->reference_computed ? "computed" : "read from the cache", p->reference_s);
    else if (p->reference == 0)
        printf("  %zu valid configurations, %zu known from the database\n", p->space,
               p->from_db);
    /* reference == 1: the reference step starts; its end (2) says how it went */
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "../vecadd/spec.json";
    const char *device = argc > 2 ? argv[2] : "0";
    struct ht_size_override size = {"N", argc > 3 ? atoll(argv[3]) : 65536};
    char dir[] = "/tmp/hetune-tune-example-XXXXXX", db[4096] = "";
    struct ht_platform *p = NULL;
    struct ht_spec *spec = NULL;
    struct ht_store *store = NULL;
    struct ht_tune_opts opts;
    struct ht_tune_sink sink;
    struct ht_tune_result res;
    struct ht_stored_eval *best = NULL;
    struct ht_error err;
    size_t index = 0;
    int status = 1, rc;

    ht_error_clear(&err);
    if (size.value <= 0) {
        fprintf(stderr, "tune-example: N must be positive\n");
        return 2;
    }
    if ((rc = ht_spec_load(path, &size, 1, &spec, &err)) != HT_OK)
        return fail("cannot load the spec", &err, ht_present_exit_status(rc));
    if ((rc = ht_platform_discover(&p, &err)) != HT_OK) {
        status = fail("no device", &err, rc == HT_ENOPLATFORM ? 77 : 1);
        goto out;
    }
    if (ht_platform_find(p, device, &index, &err) != HT_OK) {
        status = fail("no such device", &err, 2);
        goto out;
    }
    if (!mkdtemp(dir)) {
        perror("tune-example: mkdtemp");
        goto out;
    }
    snprintf(db, sizeof db, "%s/hetune.db", dir);
    if (ht_store_open(db, &store, &err) != HT_OK) {
        status = fail("cannot open the database", &err, 1);
        goto out;
    }

    ht_tune_opts_init(&opts);
    opts.strategy = "random";
    opts.budget = 8;
    opts.seed = 1;
    opts.progress = progress;
    printf("tuning %s (N = %lld) on device %zu, %s\n", spec->name, (long long)size.value,
           index, p->devices[index].name);
    ht_tune_sink_store(&sink, store);
    if ((rc = ht_tune_device(spec, &p->devices[index], &sink, &opts, &res, &err)) != HT_OK) {
        status = fail("tuning failed", &err, ht_present_exit_status(rc));
        goto out;
    }
    printf("evaluated %zu of %zu (%zu failed, %zu cut) in %.2f s with %s\n", res.evaluated,
           res.space, res.failed, res.cut, res.tuning_s, res.strategy);
    if (!res.has_best) {
        fprintf(stderr, "tune-example: no configuration ran and verified\n");
        goto out;
    }
    printf("best      %s: %.3f ms\n", res.best_text, 1e3 * res.best_s);

    /* What the tune stored: the database's best of this problem on this device. */
    best = malloc(sizeof *best); /* about 9 KB: kept off the stack */
    if (!best) {
        fprintf(stderr, "tune-example: out of memory\n");
        goto out;
    }
    ht_stored_eval_init(best);
    if (ht_store_best(store, res.problem_id, res.device_id, best, &err) != HT_OK) {
        status = fail("no best in the database", &err, 1);
        goto out;
    }
    if (strcmp(best->config, res.best_text) || best->verified != 1 ||
        best->seconds > res.best_s * (1 + 1e-9) || best->seconds < res.best_s * (1 - 1e-9)) {
        fprintf(stderr, "tune-example: the database's best is %s (%g s), the tune's %s (%g s)\n",
                best->config, best->seconds, res.best_text, res.best_s);
        goto out;
    }
    printf("stored    %s, %u runs, verified\n", best->config, best->nruns);
    status = 0;
out:
    free(best);
    ht_store_close(store);
    ht_platform_free(p);
    ht_spec_free(spec);
    if (*db) {
        /* The database and its WAL files. */
        static const char *const suffix[] = {"", "-wal", "-shm"};
        char f[4200];
        for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
            snprintf(f, sizeof f, "%s%s", db, suffix[i]);
            unlink(f);
        }
        rmdir(dir);
    }
    return status;
}
