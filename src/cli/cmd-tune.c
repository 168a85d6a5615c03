/* hetune tune: explores the pruned space of a spec on each selected device and stores every
 * evaluation in the results database. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"

static const char tune_usage[] =
    "usage: hetune tune SPEC [options]\n"
    "\n"
    "Tunes the spec's kernel on each selected device in turn: every valid configuration\n"
    "of the pruned space (or those a search strategy picks) is built through the binary\n"
    "cache, run up to the spec's timing.repeats times (fewer once it is clearly slower\n"
    "than the best so far or its time is known closely enough: docs/spec.md, Timing),\n"
    "timed (mean of the best keep_best runs) and verified, and stored with all its runs\n"
    "in the results database before the next one starts. A configuration that fails to\n"
    "build, launch or verify is stored with its reason and never chosen as best. What the\n"
    "database already holds for the same kernel, problem sizes and device is not\n"
    "measured again: an interrupted or killed tune resumes where it stopped. Each\n"
    "configuration runs in a worker process: one that crashes or hangs is stored as\n"
    "crashed or timeout (not retried unless --retry-failed) and the tune goes on. While\n"
    "the device measures one configuration, --jobs N worker processes build the next\n"
    "ones into the binary cache (PoCL's own cache where it keeps one), so that the\n"
    "measured builds are cache hits; a build that crashes, hangs or fails is stored as\n"
    "such and not measured. Ctrl-C (or SIGTERM) stops within a second, prints the best so\n"
    "far and exits with 130. A wait for another process's lock on the database is said\n"
    "on stderr after a second, stops at Ctrl-C (130) and gives up after 30 s (or\n"
    "$HETUNE_DB_TIMEOUT seconds) with an error naming the database. One device is\n"
    "measured by one process at a time, machine-wide, whatever the database: a lock per\n"
    "device in $HETUNE_LOCK_DIR (default /tmp/hetune-locks; all CPU devices share one);\n"
    "a tune that finds it held says so and waits (Ctrl-C stops); a lock folder that\n"
    "cannot be made is no error: the tune measures without it and says so at the end.\n"
    "It ends saying 'measured under load' when other processes used 0.25 of a core or\n"
    "more on average while it measured (/proc/stat less its own and its workers' CPU\n"
    "time; docs/reliability.md), since its times may then be slow: measure again when\n"
    "the machine is quiet, with --fresh (--json: each device's \"load\"; not under\n"
    "-q). Under 'mpirun -n K'\n"
    "(a build with MPI) the K ranks share the configurations: rank 0 queues them and\n"
    "stores every result (docs/scale.md). With --replay, a recorded space answers\n"
    "instead of a device (docs/guide.md).\n"
    "\n"
    "options:\n"
    "  -d, --device D        a device: an index from 'hetune devices', a unique part of\n"
    "                        \"<platform> <name>\", or all (default: all)\n"
    "      --time-budget S   start no new configuration after S seconds per device\n"
    "                        (simulated seconds under --replay; default: no limit);\n"
    "                        --time S is the same\n"
    "      --seed N          the seed of the random, genetic, anneal and bayes strategies\n"
    "                        (default 0)\n"
    "      --cut-factor F    early termination: stop repeating a configuration whose\n"
    "                        fastest run is more than F times the best so far and store\n"
    "                        it as cut; 0 turns it off, else F >= 1 (default 3)\n"
    "      --fresh           forget what the database holds for this kernel, problem\n"
    "                        and device, and measure everything again\n"
    "      --retry-failed    measure again every configuration stored as failed (build,\n"
    "                        launch, verify, constraint, cl, crashed, timeout). Without\n"
    "                        it a stored failure counts as known: a kernel's own (build,\n"
    "                        crashed, timeout) while the kernel is the same, one that may\n"
    "                        come from the spec (launch, verify, constraint, cl) only\n"
    "                        while the spec file is the same too\n"
    "      --replay FILE     answer every evaluation from a recorded space instead of a\n"
    "                        device: a T4 results file (hetune export --format t4) or a\n"
    "                        Kernel Tuner cache file, gzip'd or not. Nothing is built and\n"
    "                        no OpenCL platform is needed; a configuration the file lacks\n"
    "                        counts as missing (failed, not stored); --time and the time\n"
    "                        printed are simulated seconds (the recorded compile and\n"
    "                        benchmark times). Results are stored under the recorded\n"
    "                        device (platform 'hetune replay'), apart from measured ones\n"
    "      --replay-device NAME  the device to replay from a T4 file holding several\n"
    "\n"
    "exit status: 0 success, 1 runtime failure (no platform, database error, or a device\n"
    "where no configuration ran and verified), 2 bad input (usage, spec, unknown device\n"
    "or strategy, or a spec whose rules refused every configuration alike), 130\n"
    "interrupted\n";

static volatile sig_atomic_t stop_flag;

static void on_wait(const struct ht_device_info *d, const struct ht_lease_info *h, void *u)
{
    if (!((struct cli_waiter *)u)->quiet)
        fprintf(stderr, "hetune tune: device %zu is being tuned by process %lld on host %s; "
                "waiting\n", d->index, (long long)h->pid, h->hostname);
}

static void print_text_device(const struct ht_spec *spec, const struct ht_device_info *dev,
                              const struct ht_tune_result *r)
{
    char a[64], b[32], c[32], cfg[1100];

    if (r->replayed)
        printf("device %s (%s, %s)\n", dev->name, dev->platform, dev->platform_version);
    else
        printf("device %zu: %s (%s)\n", dev->index, dev->name, dev->platform);
    if (r->space_text[0])
        printf("  space        %s valid configurations\n", r->space_text);
    else
        printf("  space        %zu valid configurations\n", r->space);
    snprintf(a, sizeof a, ": %zu crashed, %zu timeout", r->crashed, r->timed_out);
    printf("  evaluated    %zu in this run (%zu cut, %zu failed%s), %zu from the database%s\n",
           r->evaluated, r->cut, r->failed, r->crashed + r->timed_out ? a : "", r->from_db,
           r->stopped ? "; interrupted" : "");
    if (r->failed_reused)
        printf("  stored       %zu failure%s taken from the database as known: --retry-failed "
               "measures them again\n", r->failed_reused, r->failed_reused == 1 ? "" : "s");
    if (r->failed_stale)
        printf("  spec changed %zu stored failure%s of the spec's making (launch, verify, "
               "constraint, cl) not taken as known\n", r->failed_stale,
               r->failed_stale == 1 ? "" : "s");
    if (r->has_best) {
        ht_format_seconds(r->best_s, a, sizeof a);
        ht_format_config(spec, r->best, cfg, sizeof cfg);
        printf("  best         %s: %s%s\n", cfg, a, r->best_from_db ? " (stored)" : "");
    } else if (r->failure[0]) {
        size_t failed = r->failed + r->from_db;
        printf("  best         none: no configuration ran and verified\n");
        printf("  failures     %zu of %zu %s (%s), the first: %s\n", r->failure_like, failed,
               r->failure_like == failed ? "alike" : "of one kind", r->failure_status,
               r->failure);
        if (r->from_db && !r->evaluated)
            printf("               all from the database: --retry-failed measures them "
                   "again\n");
    } else {
        printf("  best         none: no configuration ran and verified\n");
    }
    if (spec->verify == HT_VERIFY_NONE && !r->replayed && r->evaluated)
        printf("  verified     no: the spec has no \"verify\", so no result was checked\n");
    if (r->replayed) {
        ht_format_seconds(r->simulated_s, a, sizeof a);
        ht_format_seconds(r->tuning_s, b, sizeof b);
        printf("  replayed     %zu missing from the recording\n", r->missing);
        printf("  time         %s simulated (recorded compile and benchmark times), %s real\n",
               a, b);
        return;
    }
    ht_format_seconds(r->tuning_s, a, sizeof a);
    ht_format_seconds(r->build_s, b, sizeof b);
    ht_format_seconds(r->launch_compile_s, c, sizeof c);
    printf("  time         %s tuning, of which %s building and %s in first launches"
           " (%.0f%%)\n", a, b, c,
           r->tuning_s > 0 ? 100.0 * (r->build_s + r->launch_compile_s) / r->tuning_s : 0.0);
    if (r->reference) {
        ht_format_seconds(r->reference_s, b, sizeof b);
        printf("  reference    %s in %s, before the first configuration and outside its "
               "time limit\n", r->reference == 2 ? "computed once" : "read from the cache", b);
    }
    printf("  cache        %zu of %zu binaries from the binary cache%s\n", r->cache_hits,
           r->evaluated, r->driver_cache ? " (the driver keeps its own)" : "");
    if (r->jobs) {
        ht_format_seconds(r->prebuild_s, a, sizeof a);
        printf("  built ahead  %zu by %u build workers (%s of builds off the measuring path)\n",
               r->prebuilt, r->jobs, a);
    }
}

int cmd_tune(int argc, char **argv)
{
    enum { OPT_TIME = CLI_OPT_OWN, OPT_TIME_BUDGET, OPT_SEED, OPT_CUT, OPT_FRESH, OPT_RETRY,
           OPT_REPLAY, OPT_REPLAY_DEVICE };
    static const struct option own[] = {
        {"time", required_argument, NULL, OPT_TIME}, {"seed", required_argument, NULL, OPT_SEED},
        {"time-budget", required_argument, NULL, OPT_TIME_BUDGET},
        {"cut-factor", required_argument, NULL, OPT_CUT}, {"fresh", no_argument, NULL, OPT_FRESH},
        {"retry-failed", no_argument, NULL, OPT_RETRY},
        {"replay", required_argument, NULL, OPT_REPLAY},
        {"replay-device", required_argument, NULL, OPT_REPLAY_DEVICE}, {NULL, 0, NULL, 0},
    };
    struct cli_common co;
    size_t first = 0, last = 0, ndone = 0;
    const char *db;
    struct ht_tune_opts opts;
    struct ht_spec *spec = NULL;
    struct ht_platform *plat = NULL;
    struct ht_store *store = NULL;
    struct ht_tune_sink sink;
    const struct ht_device_info **dl = NULL;
    struct ht_tune_result *tr = NULL;
    char *text = NULL;
    struct cli_tune_bar bar = {.dev = NULL};
    struct cli_sigint sig = {.held = 0};
    struct ht_error err;
    const char *replay_path = NULL, *replay_device = NULL;
    struct ht_recording *rec = NULL;
    struct ht_device_info replayed;
    int c, status = 2, rc, interrupted = 0, missing_best = 0;
    struct cli_waiter waiter = {"tune", 0, 0, 0};
    struct ht_load load = {0};

    ht_tune_opts_init(&opts);
    ht_error_clear(&err);
    cli_common_init(&co, "tune", tune_usage,
                    CLI_F_DEVICE | CLI_F_STRATEGY | CLI_F_BUDGET | CLI_F_JOBS | CLI_F_DB |
                        CLI_F_SIZE |
                        CLI_F_EQ3 | CLI_F_DATA_PATH | CLI_F_TIMEOUT | CLI_F_NO_ISOLATE |
                        CLI_F_NO_CACHE | CLI_F_CACHE_DIR | CLI_F_JSON | CLI_F_QUIET |
                        CLI_F_VERBOSE,
                    own);
    while ((c = cli_getopt(&co, argc, argv)) != -1) {
        switch (c) {
        case OPT_TIME:
        case OPT_TIME_BUDGET: /* the message names the spelling given */
            if ((status = cli_parse_seconds("tune", c == OPT_TIME ? "--time" : "--time-budget",
                                            optarg, &opts.time_limit_s)))
                goto cleanup;
            break;
        case OPT_SEED:
            if ((status = cli_parse_uint("tune", "--seed", optarg, UINT64_MAX, &opts.seed)))
                goto cleanup;
            break;
        case OPT_CUT:
            if ((status = cli_parse_seconds("tune", "--cut-factor", optarg, &opts.cut_factor)))
                goto cleanup;
            if (opts.cut_factor > 0 && opts.cut_factor < 1) {
                status = cli_usage_error("tune", 2,
                                         "--cut-factor takes 0 (off) or a number >= 1, not '%s'",
                                         optarg);
                goto cleanup;
            }
            break;
        case OPT_FRESH: opts.fresh = 1; break;
        case OPT_RETRY: opts.retry_failed = 1; break;
        case OPT_REPLAY: replay_path = optarg; break;
        case OPT_REPLAY_DEVICE: replay_device = optarg; break;
        default:
            if ((status = cli_common_option(&co, c, optarg, argv)) != CLI_CONTINUE)
                goto cleanup;
        }
    }
    opts.strategy = co.strategy ? co.strategy : opts.strategy;
    opts.eq3 = co.exec.eq3;
    opts.exec = co.exec;
    opts.budget = co.budget;
    opts.jobs = co.jobs;
    db = co.db;
    if ((status = cli_common_spec(&co, argc, argv, &spec)) != 0)
        goto cleanup;
    /* The first Ctrl-C asks for a clean stop, prints the best so far and exits with 130. */
    cli_sigint_catch(&sig, &stop_flag);
    opts.stop = &stop_flag;
    opts.on_device_wait = cli_device_wait;
    waiter.quiet = co.quiet;
    opts.wait_user = &waiter;
    if (ht_mpi_env_size() > 1) { /* mpirun -n K: rank 0 queues, every rank measures (mpi.h) */
        struct ht_mpi_tune_opts mo = {.device = co.device, .db = db, .tune = &opts};
        struct ht_mpi_tune_result mr;
        if ((rc = ht_mpi_tune(spec, &mo, &mr, &err)) == HT_OK)
            rc = ht_present_mpi_tune(spec, &mr, co.json, &text, &status, &err);
        if (rc != HT_OK)
            status = cli_fail("tune", &err);
        else
            fputs(text, stdout);
        if (rc != HT_OK && mr.rank0_failed)
            status = 0; /* rank 0 reports it and ends the job with its status (mpi.h) */
        ht_mpi_tune_result_destroy(&mr);
        goto cleanup;
    }
    if (replay_device && !replay_path) {
        status = cli_usage_error("tune", 2, "--replay-device needs --replay FILE");
        goto cleanup;
    }
    if (replay_path) {
        /* A recorded space stands for the device: no platform is looked for. */
        if (co.device) {
            status = cli_usage_error("tune", 2, "--replay answers from the recorded device: "
                                     "--device does not apply");
            goto cleanup;
        }
        if ((rc = ht_recording_load(replay_path, replay_device, &rec, &err)) != HT_OK) {
            status = cli_fail("tune", &err);
            goto cleanup;
        }
        ht_recording_device_info(rec, &replayed);
        opts.replay = rec;
        if (spec->language != HT_LANG_OPENCL && !co.quiet)
            fprintf(stderr, "hetune tune: kernel.language %s: replaying %s; the kernel is never "
                    "built\n", ht_kernel_language_name(spec->language), replay_path);
        last = 1;
    } else if ((status = cli_devices_range("tune", co.device ? co.device : "all", &plat, &first,
                                           &last)))
        goto cleanup;
    dl = calloc(last - first + 1, sizeof *dl);
    tr = calloc(last - first + 1, sizeof *tr);
    if ((!dl || !tr) && (status = cli_usage_error("tune", 1, "out of memory")))
        goto cleanup;
    if ((rc = cli_store_open("tune", db, 0, &stop_flag, co.quiet, &store, &err)) != HT_OK &&
        (status = cli_fail("tune", &err)))
        goto cleanup;

    opts.progress = cli_tune_progress;
    opts.progress_user = &bar;
    bar.spec = spec;
    bar.quiet = co.quiet;
    bar.verbose = co.verbose;
    opts.on_wait = on_wait;

    ht_tune_sink_store(&sink, store);
    status = 0;
    for (size_t i = first; i < last && !interrupted; i++) {
        const struct ht_device_info *dev = dl[ndone] = rec ? &replayed : &plat->devices[i];
        struct ht_tune_result *r = &tr[ndone];

        rc = ht_tune_device(spec, dev, &sink, &opts, r, &err);
        cli_tune_bar_end(&bar); /* nothing when no bar was started */
        if (rc != HT_OK) {
            char why[4096];
            ht_error_format(&err, why, sizeof why);
            status = cli_usage_error("tune", ht_present_exit_status(err.code),
                                     "device %zu (%s): %s", dev->index, dev->name, why);
            goto cleanup;
        }
        ndone++;
        interrupted = r->stopped;
        if (!r->has_best && !interrupted) {
            size_t failed = r->failed + r->from_db;
            /* Every configuration refused alike by a rule of the spec (Eq. 2 in a stage,
             * say): the spec is the cause, bad input as eval reports it (status 2). */
            int of_spec = r->failure[0] && failed && r->failure_like == failed &&
                          !strcmp(r->failure_status, "constraint");

            if (r->failure[0])
                fprintf(stderr, "hetune tune: device %zu (%s): no configuration ran and "
                        "verified: %zu of %zu failed %s (%s), the first: %s\n", dev->index,
                        dev->name, r->failure_like, failed,
                        r->failure_like == failed ? "alike" : "of one kind",
                        r->failure_status, r->failure);
            else
                fprintf(stderr, "hetune tune: device %zu (%s): no configuration ran and "
                        "verified%s\n", dev->index, dev->name,
                        r->space ? "" : " (the pruned space is empty)");
            missing_best = of_spec ? 2 : missing_best ? missing_best : 1;
        }
        if (!co.json) {
            if (ndone == 1)
                printf("spec %s (%s), strategy %s, db %s\n", spec->name, spec->path,
                       r->strategy, db);
            print_text_device(spec, dev, r);
            fflush(stdout);
        }
    }
    if (co.json) {
        struct ht_present_tune shown = {.spec = spec, .db = db, .opts = &opts, .devs = dl,
                                        .results = tr, .n = ndone, .interrupted = interrupted};
        rc = ht_present_tune_json(&shown, &text, &err);
        if (cli_json_text("tune", rc, text) != 0)
            status = 1;
    }
    for (size_t i = 0; i < ndone; i++)
        ht_load_add(&load, &tr[i].load);
    cli_load_notice("tune", &load, co.quiet);
    if (interrupted) {
        fprintf(stderr, "hetune tune: interrupted; what was measured is stored in %s: the same "
                "command resumes\n", db);
        status = 130;
    } else if (missing_best && status == 0) {
        status = missing_best; /* 2: the spec refused every configuration */
    }

cleanup:
    cli_sigint_release(&sig);
    ht_store_close(store);
    free(text);
    free(tr);
    free(dl);
    ht_platform_free(plat);
    ht_recording_free(rec);
    ht_spec_free(spec);
    cli_common_free(&co);
    return status;
}
