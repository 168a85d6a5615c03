/* hetune run: the whole pipeline of the paper on one spec, prune, tune, split and report,
 * as the library's ht_workflow_run does it (workflow.h); this file parses, shows progress
 * and prints. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "split-common.h"

static const char run_usage[] =
    "usage: hetune run SPEC [options]\n"
    "\n"
    "The whole pipeline of the paper on one spec, every step stored in the results\n"
    "database, then the report:\n"
    "  1. prune    the design space on each device: unpruned, after the platform rules,\n"
    "              after the constraints too (Tables 1 and 2), recorded in the database;\n"
    "  2. tune     each device's pruned space (as hetune tune): what the database holds\n"
    "              for the same kernel, sizes and device is not measured again, so a\n"
    "              second run tunes nothing;\n"
    "  3. split    with two devices or more: each device is measured alone, then the\n"
    "              kernel is co-executed on all of them at their best configurations (as\n"
    "              hetune split --force: always, even where splitting is predicted not to\n"
    "              pay, which is printed) along each split dimension with each scheduler,\n"
    "              verified against the fastest device alone and stored (Table 3, Figure\n"
    "              5); with --refine, the static split is refined and its best refined\n"
    "              round is a co-execution of its own, scheduler \"refined\"; with --sweep\n"
    "              and two devices, the static split (the paper's plan) is also run at\n"
    "              split points from 0 to 1 (Figures 6 and 7);\n"
    "  4. report   the report of this spec's case studies in the database (as hetune report\n"
    "              --spec NAME), with figures when gnuplot is on PATH.\n"
    "Co-executions are measured again at every run; the report shows the newest.\n"
    "Tuning holds each device's lock as tune does, the co-executions every device's (as\n"
    "split): a wait for another process is said and Ctrl-C stops it (130); the run ends\n"
    "saying 'measured under load' as tune does (--json: \"load\").\n"
    "\n"
    "options:\n"
    "  -d, --device D,D,...  the devices, each an index from 'hetune devices' or a unique\n"
    "                        part of \"<platform> <name>\", or all (default: all)\n"
    "      --dim d,d,...     the NDRange dimensions to split along, 0 (gx), 1 (gy), 2 (gz),\n"
    "                        or all (default: all of the spec's dimensions)\n"
    "      --scheduler S     static (the paper's plan, default), dynamic, guided, or all\n"
    "                        (the three, one after the other)\n"
    "      --margin F        a split not predicted at least F faster than the fastest\n"
    "                        device alone is shown as predicted not to pay (it runs all\n"
    "                        the same) (default 0.1: 10%)\n"
    "  -o, --out DIR         the report's folder (default report)\n"
    "      --no-pictures     write the report without running gnuplot\n"
    "\n"
    "exit status: 0 success, 1 runtime failure (no platform, database error, no device\n"
    "with a verified configuration, a launch error), 2 bad input (usage, spec, unknown\n"
    "device, a spec that cannot be split), 3 a co-execution failed verification (the\n"
    "report is still written), 130 interrupted\n";

static const char *const dim_names[] = {"gx", "gy", "gz"};

static volatile sig_atomic_t stop_flag;

/* "0,1" or "all" into a mask of dimensions (checked against the spec later). */
static int parse_dims(const char *arg, unsigned *mask)
{
    const char *p = arg;

    *mask = 0;
    if (!strcmp(arg, "all")) {
        *mask = 7;
        return 0;
    }
    while (*p) {
        if (p[0] < '0' || p[0] > '2' || (p[1] && p[1] != ','))
            return cli_usage_error("run", 2, "--dim takes 0, 1, 2, a list of them or all, "
                                             "not '%s'", arg);
        *mask |= 1u << (p[0] - '0');
        p += p[1] ? 2 : 1;
    }
    if (!*mask)
        return cli_usage_error("run", 2, "--dim takes 0, 1, 2, a list of them or all");
    return 0;
}

/* --- progress: a bar per device's tuning, then one for the co-executions --- */

struct progress {
    struct cli_verify verify; /* first: the user of cli_verify_failed is the progress */
    struct cli_tune_bar tune;
    struct cli_progress split;
    int splitting;
    size_t split_total, split_done;
};

static void on_step(const char *step, void *user)
{
    struct progress *pg = user;

    if (!strcmp(step, "tuned")) {
        cli_tune_bar_end(&pg->tune);
        return;
    }
    if (!pg->splitting) {
        cli_progress_start(&pg->split, "split", pg->split_total, pg->tune.quiet);
        pg->splitting = 1;
    }
    cli_progress_update(&pg->split, ++pg->split_done, step);
}

/* --- output --- */

/* Table 3's optimal factor of device i (-1 without a plan), and the share it took. */
static double optimal(const struct ht_workflow_coexec *w, size_t i)
{
    return w->plan ? w->plan->slices[i].optimal_factor : -1;
}

static double adjusted(const struct ht_workflow_coexec *w, size_t i)
{
    return w->res->devices[i].share;
}

static void print_factors(const struct ht_workflow_coexec *w, size_t n, double (*f)(const struct ht_workflow_coexec *, size_t))
{
    printf("(");
    for (size_t i = 0; i < n; i++) {
        if (f(w, i) < 0)
            printf("%s-", i ? ", " : "");
        else
            printf("%s%.3f", i ? ", " : "", f(w, i));
    }
    printf(")");
}

static void print_text(const struct ht_workflow_run_result *r, const struct ht_spec *spec,
                       const char *db, const struct ht_workflow_coexec *rows, size_t nrows, double elapsed)
{
    const struct ht_report_result *rep = &r->report;
    char a[32], b[32], c[32], d[32];
    int w = 6;

    printf("spec          %s (%s)\n", spec->name, spec->path);
    printf("database      %s\n", db);
    printf("\nprune         the design space per device (Tables 1 and 2)\n");
    printf("  %-3s %-34s %14s %10s %10s\n", "#", "device", "unpruned", "platform", "pruned");
    for (size_t i = 0; i < r->n; i++) {
        const struct ht_workflow_device *dv = &r->devs[i];
        const struct ht_space_counts *counts = &r->steps[i].counts;
        printf("  %-3zu %-34.34s %14s %10s %10s\n", dv->dev->index, dv->dev->name,
               counts->unpruned_text, counts->platform_text, counts->pruned_text);
    }
    for (size_t i = 0; i < r->n; i++)
        if ((int)strlen(r->devs[i].config_text) > w)
            w = (int)strlen(r->devs[i].config_text);
    printf("\ntune          the best configuration per device\n");
    printf("  %-3s %-34s %9s %8s  %-*s %10s %10s\n", "#", "device", "measured", "from db", w,
           "best", "time", "alone");
    for (size_t i = 0; i < r->n; i++) {
        const struct ht_workflow_device *dv = &r->devs[i];
        const struct ht_tune_result *tr = &r->steps[i].tune;
        ht_format_seconds(dv->tuned_s, a, sizeof a);
        ht_format_seconds(r->n > 1 ? dv->alone.wall_s : -1, b, sizeof b);
        printf("  %-3zu %-34.34s %9zu %8zu  %-*s %10s %10s\n", dv->dev->index, dv->dev->name,
               tr->evaluated, tr->from_db, w, dv->config_text, a, b);
    }
    if (r->n < 2) {
        printf("\nsplit         one device: nothing to split\n");
    } else {
        printf("\nsplit         on %zu devices (Table 3, Figure 5); fastest alone: device %zu, "
               "wall %s\n",
               r->n, r->devs[r->fastest].dev->index,
               (ht_format_seconds(r->devs[r->fastest].alone.wall_s, d, sizeof d), d));
        for (size_t k = 0; k < nrows; k++) {
            const struct ht_workflow_coexec *s = &rows[k];
            ht_format_seconds(s->res->theoretical_s, a, sizeof a);
            ht_format_seconds(s->res->wall_s, b, sizeof b);
            ht_format_seconds(s->res->kernel_s, c, sizeof c);
            printf("  %s %-8s optimal ",
                   k == 0 || rows[k - 1].dim != s->dim ? dim_names[s->dim] : "  ",
                   s->scheduler);
            print_factors(s, r->n, optimal);
            printf(" adjusted ");
            print_factors(s, r->n, adjusted);
            printf(" theoretical %s, wall %s, kernel %s, %s", a, b, c,
                   s->res->verified == 1   ? "verified"
                   : s->res->verified == 0 ? "VERIFICATION FAILED"
                                           : "not verified");
            if (!s->pays)
                printf(" (predicted not to pay)");
            printf("\n");
            if (s->nsweep)
                printf("     sweep    %zu split points stored\n", s->nsweep);
        }
    }
    printf("\nreport        %s\n", rep->path ? rep->path : "");
    if (rep->figures == 0)
        printf("figures       none\n");
    else if (rep->pictures)
        printf("figures       %zu, drawn as PNG and SVG\n", rep->figures);
    else
        printf("figures       %zu gnuplot scripts, no pictures: %s\n", rep->figures,
               rep->no_pictures);
    printf("time          %.1f s\n", elapsed);
}

int cmd_run(int argc, char **argv)
{
    enum { OPT_DIM = CLI_OPT_OWN, OPT_NO_PICTURES };
    static const struct option own[] = {
        {"dim", required_argument, NULL, OPT_DIM}, {"out", required_argument, NULL, 'o'},
        {"no-pictures", no_argument, NULL, OPT_NO_PICTURES}, {NULL, 0, NULL, 0},
    };
    struct cli_common co;
    size_t n = 0, nrows;
    const char *scheduler = "static";
    double t0 = cli_now();
    int c, status = 2, rc, has_static;
    const char *all[16];        /* scheduler "all": the registry's names */
    size_t nall = 0;
    struct ht_spec *spec = NULL;
    struct ht_platform *plat = NULL;
    const struct ht_device_info **dl = NULL;
    struct ht_workflow_run_opts ro;
    struct ht_store_opts store_opts;
    struct ht_workflow_run_result rr;
    struct cli_sigint sig = {.held = 0};
    struct cli_waiter waiter = {"run", 0, 0, 0};
    struct progress pg;
    struct ht_workflow_coexec *rows = NULL;
    char *text = NULL;
    struct ht_error err;

    memset(&rr, 0, sizeof rr);
    memset(&pg, 0, sizeof pg);
    pg.verify.cmd = "run";
    ht_workflow_run_opts_init(&ro);
    ro.out = "report";
    ht_error_clear(&err);
    cli_common_init(&co, "run", run_usage, CLI_F_COEXEC, own);
    co.split = &ro.split;
    while ((c = cli_getopt(&co, argc, argv)) != -1) {
        switch (c) {
        case OPT_DIM:
            if ((status = parse_dims(optarg, &ro.dims)) != 0)
                goto cleanup;
            break;
        case CLI_OPT_SCHEDULER:
            if ((status = cli_parse_scheduler("run", optarg, 1, &scheduler)) != 0)
                goto cleanup;
            break;
        case 'o': ro.out = optarg; break;
        case OPT_NO_PICTURES: ro.report.gnuplot = ""; break;
        default:
            if ((status = cli_common_option(&co, c, optarg, argv)) != CLI_CONTINUE)
                goto cleanup;
        }
    }
    status = 2;
    if (cli_spec_arg("run", argc, argv) != 0)
        goto cleanup;
    if (!ro.out[0]) {
        cli_usage_error("run", 2, "--out needs a folder");
        goto cleanup;
    }
    has_static = 0;
    if (!strcmp(scheduler, "all"))
        /* Every scheduler of the registry, in its order ("static" first). */
        for (const struct ht_split_sched_ops *const *op = ht_split_schedulers;
             *op && nall < sizeof all / sizeof all[0]; op++) {
            all[nall++] = (*op)->name;
            has_static |= cli_scheduler_planned((*op)->name);
        }
    else
        has_static = cli_scheduler_planned(scheduler);
    if (cli_split_check("run", &ro.split, scheduler, has_static) != 0)
        goto cleanup;
    if (!strcmp(scheduler, "all")) {
        ro.schedulers = all;
        ro.nschedulers = nall;
    } else {
        ro.schedulers = &scheduler;
        ro.nschedulers = 1;
    }
    ro.split.db = co.db;
    ro.split.coexec.exec = co.exec;
    ro.tune.budget = co.budget;
    ro.tune.jobs = co.jobs;
    if (co.strategy)
        ro.tune.strategy = co.strategy;

    if ((status = cli_common_spec(&co, argc, argv, &spec)) != 0)
        goto cleanup;
    status = 2;
    if (ro.dims == 0)
        ro.dims = (1u << spec->space.ndims) - 1;
    for (unsigned d = spec->space.ndims; d < 3; d++)
        if (ro.dims & (1u << d)) {
            cli_usage_error("run", 2, "--dim %u: the NDRange of '%s' has %u dimension%s", d,
                            spec->name, spec->space.ndims, spec->space.ndims == 1 ? "" : "s");
            goto cleanup;
        }
    if (spec->space.nparams == 0 || spec->space.nparams > HT_STORE_MAX_PARAMS) {
        cli_usage_error("run", 2, "the spec has %zu parameters: hetune run needs 1 to %d",
                        spec->space.nparams, HT_STORE_MAX_PARAMS);
        goto cleanup;
    }
    if ((status = cli_split_devices("run", co.device, &ro.split, &plat, &dl, &n)) != 0)
        goto cleanup;

    /* The split bar: each device alone, then per dimension each scheduler, the refinement
     * (the rounds may stop early: one step) and the sweep's points. */
    pg.split_total = n;
    for (unsigned d = 0; d < 3; d++)
        if (ro.dims & (1u << d))
            pg.split_total += ro.nschedulers + (has_static && ro.split.refine) +
                              (has_static && ro.split.sweep > 0
                                   ? ht_workflow_sweep_points(ro.split.sweep)
                                   : 0);
    ro.tune.progress = cli_tune_progress;
    ro.tune.progress_user = &pg.tune;
    pg.tune.prefix = "tune ";
    pg.tune.quiet = co.quiet;
    pg.tune.verbose = co.verbose;
    if (co.verbose) /* the per-configuration lines name the values */
        pg.tune.spec = spec;
    ro.split.on_step = on_step;
    ro.split.on_verify = cli_verify_failed; /* its user, &pg, starts with pg.verify */
    ro.split.on_note = co.quiet ? NULL : cli_split_note;
    ro.split.user = &pg;
    /* Ctrl-C finishes the configuration in flight; what was tuned stays stored. */
    ro.tune.stop = ro.split.stop = &stop_flag;
    /* The database's lock: waited for with a notice, Ctrl-C ends the wait. */
    cli_store_opts("run", 0, &stop_flag, co.quiet, &store_opts);
    ro.split.store = &store_opts;
    ro.tune.on_device_wait = ro.split.on_device_wait = cli_device_wait;
    waiter.quiet = co.quiet;
    ro.tune.wait_user = ro.split.wait_user = &waiter;
    cli_sigint_catch(&sig, &stop_flag);
    rc = ht_workflow_run(spec, dl, n, &ro, &rr, &err);
    cli_sigint_release(&sig);
    cli_tune_bar_end(&pg.tune);
    if (pg.splitting)
        cli_progress_end(&pg.split);
    cli_load_notice("run", &rr.load, co.quiet);
    if (rc != HT_OK) {
        status = cli_fail("run", &err);
        /* A device with no configuration that ran and verified is a runtime failure. */
        if (rc == HT_ENOTFOUND)
            status = 1;
        goto cleanup;
    }
    if (rr.stopped) {
        fprintf(stderr, "hetune run: interrupted while tuning; what was measured is stored in "
                        "%s\n",
                co.db);
        status = 130;
        goto cleanup;
    }
    for (size_t k = 0; k < rr.nsplits; k++)
        if (rr.splits[k].verify_err.code)
            cli_fail("run", &rr.splits[k].verify_err);
    rows = calloc(2 * rr.nsplits + 1, sizeof *rows);
    if (!rows) {
        status = cli_usage_error("run", 1, "out of memory");
        goto cleanup;
    }
    nrows = ht_workflow_run_coexecs(&rr, rows);
    status = rr.verify_failed || pg.verify.failed ? 3 : 0;
    for (size_t i = 0; i < rr.nskipped; i++)
        fprintf(stderr, "hetune run: skipped device %zu (%s): %s\n", rr.skipped[i].dev->index,
                rr.skipped[i].dev->name, rr.skipped[i].reason);
    if (!co.json) {
        print_text(&rr, spec, co.db, rows, nrows, cli_now() - t0);
    } else {
        rc = ht_present_run_json(spec, co.db, &rr, cli_now() - t0, &text, &err);
        if (cli_json_text("run", rc, text) != 0 && status == 0)
            status = 1;
    }

cleanup:
    free(text);
    free(rows);
    ht_workflow_run_result_destroy(&rr);
    free(dl);
    ht_platform_free(plat);
    ht_spec_free(spec);
    cli_common_free(&co);
    return status;
}
