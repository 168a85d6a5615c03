/* hetune eval: builds, runs, times and verifies one configuration on one device. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char eval_usage[] =
    "usage: hetune eval SPEC --device D [--set P=V]... [options]\n"
    "\n"
    "Builds the spec's kernel with -D P=V for every parameter, runs it the spec's\n"
    "timing.repeats times on one device, reports the mean of the best keep_best kernel\n"
    "times (profiling events) and the transfers apart, and verifies the outputs against\n"
    "the spec's reference. Write buffers are poisoned before every run. It measures\n"
    "holding the device's lock, as tune does (another process measuring it is waited\n"
    "for, said on stderr; Ctrl-C stops the wait, 130), and ends saying 'measured under\n"
    "load' when other processes used 0.25 of a core or more on average over half a\n"
    "second or more of it (--json: \"load\"; docs/reliability.md; not under -q).\n"
    "\n"
    "options:\n"
    "  -d, --device D        the device: an index from 'hetune devices' or a unique part\n"
    "                        of \"<platform> <name>\" (required)\n"
    "  -s, --set P=V         the value of parameter P; every parameter needs one, except\n"
    "                        those with a single value\n"
    "      --dump DIR        write every written buffer as raw DIR/<name>.bin\n"
    "      --no-verify       skip verification\n"
    "\n"
    "exit status: 0 success, 1 runtime failure (no platform, launch error),\n"
    "2 bad input (usage, spec, unknown device or parameter, build error, broken\n"
    "constraint), 3 verification failed\n";

static void print_sizes(FILE *f, unsigned ndims, const uint64_t *v)
{
    for (unsigned d = 0; d < ndims; d++)
        fprintf(f, "%s%llu", d ? " x " : "", (unsigned long long)v[d]);
}

static void print_text(const struct ht_spec *spec, const struct ht_device_info *dev,
                       const int64_t *config, const struct ht_eval_result *res)
{
    char a[32], b[32], cfg[4096];
    unsigned keep = spec->keep_best && spec->keep_best < res->nruns ? spec->keep_best
                                                                   : res->nruns;

    printf("spec           %s (%s)\n", spec->name, spec->path);
    printf("device         %zu: %s (%s)\n", dev->index, dev->name, dev->platform);
    ht_format_config(spec, config, cfg, sizeof cfg);
    printf("configuration  %s\n", cfg);
    if (res->ndims) {
        printf("ndrange        global ");
        print_sizes(stdout, res->ndims, res->global);
        printf(", local ");
        if (res->local[0])
            print_sizes(stdout, res->ndims, res->local);
        else
            printf("left to the runtime");
        putchar('\n');
    }
    if (res->status == HT_ECONSTRAINT || res->status == HT_EBUILD || !res->ndims)
        return;
    ht_format_seconds(res->build_s, a, sizeof a);
    printf("build          %s (%s)\n", a, res->cache_hit ? "cached binary" : "compiled");
    if (!res->nruns)
        return;
    ht_format_seconds(res->kernel_s, a, sizeof a);
    ht_format_seconds(res->kernel_min_s, b, sizeof b);
    printf("kernel         %s (mean of best %u of %u runs), min %s\n", a, keep, res->nruns, b);
    ht_format_seconds(res->write_s, a, sizeof a);
    ht_format_seconds(res->read_s, b, sizeof b);
    printf("transfers      write %s, read %s\n", a, b);
    if (res->gflops >= 0 && res->gbps >= 0)
        printf("performance    %.2f GFLOP/s, %.2f GB/s\n", res->gflops, res->gbps);
    else if (res->gflops >= 0)
        printf("performance    %.2f GFLOP/s\n", res->gflops);
    else if (res->gbps >= 0)
        printf("performance    %.2f GB/s\n", res->gbps);
    if (res->verified == 1)
        printf("verification   passed (max abs err %.3g, max rel err %.3g)\n", res->max_abs_err,
               res->max_rel_err);
    else if (res->verified == 0)
        printf("verification   FAILED: %zu mismatch%s (max abs err %.3g, max rel err %.3g);"
               " first %s\n",
               res->mismatches, res->mismatches == 1 ? "" : "es", res->max_abs_err,
               res->max_rel_err, res->mismatch);
    else if (res->status == HT_OK)
        printf("verification   skipped\n");
}

int cmd_eval(int argc, char **argv)
{
    enum { OPT_DUMP = CLI_OPT_OWN, OPT_NO_VERIFY };
    static const struct option own[] = {
        {"set", required_argument, NULL, 's'}, {"dump", required_argument, NULL, OPT_DUMP},
        {"no-verify", no_argument, NULL, OPT_NO_VERIFY}, {NULL, 0, NULL, 0},
    };
    struct cli_common co;
    size_t nsets = 0, devidx = 0;
    const char **sets = NULL;
    const char *dump = NULL;
    struct ht_exec_opts opts;
    struct ht_spec *spec = NULL;
    struct ht_platform *plat = NULL;
    struct ht_session *session = NULL;
    struct ht_eval_result *res = NULL;
    const struct ht_device_info *dev;
    struct ht_device_locks locks;
    struct ht_device_wait wait = {0};
    struct cli_waiter waiter = {"eval", 0, 0, 0};
    struct ht_load load = {0};
    struct cli_sigint sig;
    volatile sig_atomic_t stop = 0;
    int64_t *config = NULL;
    struct ht_error err, jerr;
    char *text = NULL;
    int c, status = 2, rc;

    ht_error_clear(&err);
    sets = calloc((size_t)argc + 1, sizeof *sets);
    if (!sets)
        return cli_usage_error("eval", 1, "out of memory");
    cli_common_init(&co, "eval", eval_usage,
                    CLI_F_DEVICE | CLI_F_SIZE | CLI_F_EQ3 | CLI_F_DATA_PATH | CLI_F_TIMEOUT |
                        CLI_F_NO_ISOLATE | CLI_F_NO_CACHE | CLI_F_CACHE_DIR | CLI_F_JSON |
                        CLI_F_QUIET | CLI_F_VERBOSE,
                    own);
    while ((c = cli_getopt(&co, argc, argv)) != -1) {
        switch (c) {
        case 's': {
            /* Checked here to name the option: the library's message names the value only. */
            const char *name;
            size_t len;
            int64_t v;
            if (ht_parse_assignment(optarg, &name, &len, &v, &err) != HT_OK) {
                status = cli_usage_error("eval", 2, "--set %s: %s", optarg, err.text);
                goto cleanup;
            }
            sets[nsets++] = optarg;
            break;
        }
        case OPT_DUMP: dump = optarg; break;
        case OPT_NO_VERIFY: co.exec.no_verify = 1; break;
        default:
            if ((status = cli_common_option(&co, c, optarg, argv)) != CLI_CONTINUE)
                goto cleanup;
        }
    }
    opts = co.exec;
    status = 2;
    if (cli_spec_arg("eval", argc, argv) != 0)
        goto cleanup;
    if (!co.device) {
        cli_usage_error("eval", 2, "--device is required (see 'hetune devices')");
        goto cleanup;
    }
    if ((status = cli_common_spec(&co, argc, argv, &spec)) != 0)
        goto cleanup;
    rc = ht_platform_discover(&plat, &err);
    if (rc == HT_OK)
        rc = ht_platform_find(plat, co.device, &devidx, &err);
    if (rc != HT_OK) {
        status = cli_fail("eval", &err);
        goto cleanup;
    }
    dev = &plat->devices[devidx];
    config = calloc(spec->space.nparams + 1, sizeof *config);
    res = calloc(1, sizeof *res);
    if (!config || !res) {
        status = cli_usage_error("eval", 1, "out of memory");
        goto cleanup;
    }
    rc = ht_spec_config_from_assignments(spec, sets, nsets, config, &err);
    if (rc == HT_OK)
        rc = ht_session_create(spec, dev, &opts, &session, &err);
    if (rc != HT_OK) {
        status = cli_fail("eval", &err);
        goto cleanup;
    }

    /* Timed like a tune's evaluation: with the device's lock, the wait said. */
    waiter.quiet = co.quiet;
    /* Ctrl-C stops the wait (130); once measuring, it kills as it always did. */
    cli_sigint_catch(&sig, &stop);
    wait.stop = &stop;
    wait.on_wait = cli_device_wait;
    wait.user = &waiter;
    rc = ht_device_locks_take(&dev, 1, &wait, &locks, &load, &err);
    cli_sigint_release(&sig);
    if (rc != HT_OK) {
        status = cli_fail("eval", &err);
        goto cleanup;
    }
    rc = ht_session_eval(session, config, res, &err);
    ht_device_locks_release(&locks, &load);
    if (rc == HT_EBUILD && res->build_log && res->build_log[0]) {
        size_t n = strlen(res->build_log);
        fprintf(stderr, "%s%s", res->build_log, res->build_log[n - 1] == '\n' ? "" : "\n");
    }
    status = 0;
    if (co.json) {
        ht_error_clear(&jerr);
        struct ht_present_eval pe = {spec, dev, config, res, &err, &load};

        status = ht_present_eval_json(&pe, &text, &jerr);
        status = cli_json_text("eval", status, text);
    } else
        print_text(spec, dev, config, res);
    cli_load_notice("eval", &load, co.quiet);
    if (rc != HT_OK)
        status = cli_fail("eval", &err);
    if (dump && (rc == HT_OK || rc == HT_EVERIFY)) {
        struct ht_error derr;
        ht_error_clear(&derr);
        if (ht_session_dump(session, dump, &derr) != HT_OK) {
            int s2 = cli_fail("eval", &derr);
            if (status == 0)
                status = s2;
        }
    }

cleanup:
    free(text);
    if (res)
        ht_eval_result_destroy(res);
    free(res);
    free(config);
    ht_session_free(session);
    ht_platform_free(plat);
    ht_spec_free(spec);
    cli_common_free(&co);
    free(sets);
    return status;
}
