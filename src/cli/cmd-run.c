/* hetune run: the whole pipeline of the paper on one spec: prune, tune, split, report.
 *
 * Why the orchestration lives here and not in a library function: every step already is
 * one (ht_space_count, ht_tune_device, ht_coexec_*, ht_store_*, ht_report_write), and the
 * layout of DESIGN.md lets no library module use all of them (search may not use split,
 * split may not use search, report may use the store only): only the CLI sits above them
 * all. What is left to this file is the order of the steps, what is shown, and what is
 * stored of each co-execution, the same calls and the same rows as hetune split. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
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
    "\n"
    "options:\n"
    "  -d, --device D,D,...  the devices, each an index from 'hetune devices' or a unique\n"
    "                        part of \"<platform> <name>\", or all (default: all)\n"
    "      --dim d,d,...     the NDRange dimensions to split along, 0 (gx), 1 (gy), 2 (gz),\n"
    "                        or all (default: all of the spec's dimensions)\n"
    "  -s, --scheduler S     static (the paper's plan, default), dynamic, guided, or all\n"
    "                        (the three, one after the other)\n"
    "      --sweep STEP      with two devices: static split points from 0 to 1 by STEP\n"
    "                        (device 0's factor), each verified and stored\n"
    "      --residue work|time|groups\n"
    "                        static: who takes the residue work-items, work (the device\n"
    "                        that covers them with the least work, Eq. 9, default), time\n"
    "                        (the device whose slice with them finishes first) or groups\n"
    "                        (one group at a time, each to the device that then finishes\n"
    "                        first)\n"
    "      --refine N        static: after the paper's plan, up to N rounds that fit each\n"
    "                        device's time to overhead + rate*share from its kernel time\n"
    "                        alone and on its slice in the last round, re-plan so that\n"
    "                        all devices finish together, and run again (verified);\n"
    "                        stops early when the plan no longer changes. The refined\n"
    "                        round with the shortest time is shown and stored as\n"
    "                        scheduler \"refined\", next to static (default 0)\n"
    "      --refine-by wall|kernel\n"
    "                        what --refine balances and minimizes: each device's whole\n"
    "                        busy time, transfers included, and the wall time (default),\n"
    "                        or the kernel-only times (Algorithm 1's terms)\n"
    "  -S, --strategy S      the search strategy of tuning (default exhaustive)\n"
    "  -b, --budget N        at most N evaluations per device in this run's tuning\n"
    "      --repeats N       timed runs of each co-execution (default: the spec's\n"
    "                        timing.repeats)\n"
    "      --db FILE         the results database (default ./hetune.db)\n"
    "  -o, --out DIR         the report's folder (default report)\n"
    "      --no-pictures     write the report without running gnuplot\n"
    "      --size NAME=VALUE override a problem size of the spec\n"
    "      --eq3 product|sum|off\n"
    "                        the Eq. 3 rule of the pruned space (default product)\n"
    "      --no-cache        neither read nor write the kernel binary cache\n"
    "      --cache-dir DIR   the binary cache folder (default: $HETUNE_CACHE_DIR, else\n"
    "                        $XDG_CACHE_HOME/hetune, else ~/.cache/hetune)\n"
    "      --json            print one JSON object instead of text\n"
    "  -h, --help            show this help\n"
    "\n"
    "On a terminal, progress lines on stderr show the tuning of each device and the\n"
    "co-executions.\n"
    "\n"
    "exit status: 0 success, 1 runtime failure (no platform, database error, a device\n"
    "with no verified configuration, a launch error), 2 bad input (usage, spec, unknown\n"
    "device, a spec that cannot be split), 3 a co-execution failed verification (the\n"
    "report is still written), 130 interrupted while tuning\n";

static const char *const all_schedulers[] = {"static", "dynamic", "guided"};

static volatile sig_atomic_t stop_flag;

static void on_sigint(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What the prune and tune steps found of one device of the run. */
struct rstep {
    struct ht_space_counts counts;
    struct ht_tune_result tune;
};

/* One co-execution of the run, as shown and stored. */
struct rsplit {
    unsigned dim;
    char scheduler[32];
    int64_t id;
    double theoretical_s, wall_s, kernel_s;
    int verified;
    double *optimal, *adjusted;   /* one per device; owned */
    size_t nsweep;
    struct ht_stored_sweep_point *sweep; /* owned */
    double predicted_s;           /* the prediction of ht_coexec_estimate, -1 unknown */
};

struct run {
    const char *db, *out;
    const struct ht_spec *spec;
    struct ht_store *store;
    int64_t problem_id;
    struct ht_workflow_device *devs;
    struct rstep *steps;          /* one per device */
    size_t n, fastest;
    struct rsplit *splits;
    size_t nsplits;
    struct cli_progress bar;
    size_t bar_done;
    int json;
    unsigned refine;              /* --refine: rounds of each static split */
    enum ht_refine_target refine_by;
};

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

/* --- progress --- */

struct tune_progress {
    struct cli_progress bar;
    int started;
};

static void on_tune_progress(const struct ht_tune_progress *p, void *user)
{
    struct tune_progress *tp = user;
    char note[64] = "", t[32];

    if (!tp->started) {
        char label[64];
        snprintf(label, sizeof label, "tune %zu %.20s", p->dev->index, p->dev->name);
        cli_progress_start(&tp->bar, label, p->total);
        tp->started = 1;
    }
    if (p->best) {
        ht_format_seconds(p->best_s, t, sizeof t);
        snprintf(note, sizeof note, "best %s", t);
    }
    cli_progress_update(&tp->bar, p->done, note[0] ? note : NULL);
}

static void step_done(struct run *r, const char *note)
{
    r->bar_done++;
    cli_progress_update(&r->bar, r->bar_done, note);
}

/* --- the steps --- */

/* Step 1: the space sizes of every device, stored. */
static int prune(struct run *r, enum ht_eq3 eq3, struct ht_error *err)
{
    for (size_t i = 0; i < r->n; i++) {
        struct ht_workflow_device *d = &r->devs[i];
        struct ht_space_counts *counts = &r->steps[i].counts;
        struct ht_space *space = NULL;
        struct ht_stored_space sp;
        int rc = ht_space_create(&r->spec->space, d->dev, eq3, &space, err);
        if (rc == HT_OK)
            rc = ht_space_count(space, counts, err);
        ht_space_free(space);
        if (rc == HT_OK)
            rc = ht_store_device_id(r->store, d->dev, &d->device_id, err);
        if (rc == HT_OK) {
            ht_stored_space_init(&sp);
            sp.problem_id = r->problem_id;
            sp.device_id = d->device_id;
            sp.eq3 = eq3;
            ht_stored_space_from_counts(&sp, counts);
            rc = ht_store_put_space(r->store, &sp, err);
        }
        if (rc != HT_OK) {
            fprintf(stderr, "hetune run: device %zu (%s): ", d->dev->index, d->dev->name);
            return rc;
        }
    }
    return HT_OK;
}

/* Step 2: tunes every device (measuring only what the database lacks) and reads its best
 * configuration back. Returns 130 when interrupted, else an HT_ code. */
static int tune(struct run *r, struct ht_tune_opts *topts, struct ht_error *err)
{
    int unverified = r->spec->verify == HT_VERIFY_NONE || topts->exec.no_verify;
    int rc = HT_OK;

    for (size_t i = 0; i < r->n && rc == HT_OK; i++) {
        struct ht_workflow_device *d = &r->devs[i];
        struct ht_tune_result *tr = &r->steps[i].tune;
        struct tune_progress tp;

        memset(&tp, 0, sizeof tp);
        topts->progress = on_tune_progress;
        topts->progress_user = &tp;
        rc = ht_tune_device(r->spec, d->dev, r->store, topts, tr, err);
        if (tp.started)
            cli_progress_end(&tp.bar);
        if (rc != HT_OK) {
            fprintf(stderr, "hetune run: device %zu (%s): ", d->dev->index, d->dev->name);
            break;
        }
        if (tr->stopped) {
            rc = 130;
            break;
        }
        {
            struct ht_workflow_best_opts bo;
            struct ht_error e;
            memset(&bo, 0, sizeof bo);
            bo.unverified = unverified;
            ht_error_clear(&e);
            rc = ht_workflow_best(r->spec, r->store, r->problem_id, &bo, d, &e);
            if (rc != HT_OK && rc != HT_ENOTFOUND)
                *err = e;
        }
        if (rc == HT_ENOTFOUND)
            rc = ht_error_set(err, HT_ENOTFOUND,
                              "device %zu (%s): no configuration ran and verified%s",
                              d->dev->index, d->dev->name,
                              tr->space ? "" : " (the pruned space is empty)");
    }
    return rc;
}

/* Each device alone, with the co-execution's wall clock (the fastest is the reference
 * of verification and of the "alone" time stored with each split). */
static int measure_alone(struct run *r, const struct ht_coexec_opts *base, struct ht_error *err)
{
    for (size_t i = 0; i < r->n; i++) {
        struct ht_coexec *cx = NULL;
        struct ht_coexec_result res;
        int rc;

        memset(&res, 0, sizeof res);
        rc = ht_workflow_alone(r->spec, &r->devs[i], base, &cx, &res, err);
        if (rc == HT_OK && r->devs[i].alone.wall_s < r->devs[r->fastest].alone.wall_s)
            r->fastest = i;
        ht_coexec_result_destroy(&res);
        ht_coexec_free(cx);
        if (rc != HT_OK)
            return rc;
        step_done(r, "devices alone");
    }
    return HT_OK;
}

/* Runs the static split at every point of the sweep on cx, verifying and storing each. */
static int sweep(struct run *r, struct ht_coexec *cx, double step, struct rsplit *out,
                 int *verify_failed, struct ht_error *err)
{
    size_t npoints = ht_workflow_sweep_points(step);
    int rc = HT_OK;

    out->sweep = calloc(npoints, sizeof *out->sweep);
    if (!out->sweep)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t k = 0; k < npoints; k++) {
        struct cli_verify v = {"run", 0};
        rc = ht_workflow_sweep_point(cx, k, step, r->fastest, r->store, out->id,
                                     cli_verify_failed, &v, &out->sweep[k], err);
        *verify_failed |= v.failed;
        if (rc != HT_OK)
            break;
        out->nsweep++;
        step_done(r, "sweep");
    }
    return rc;
}

/* Appends a co-execution to r->splits (cmd_run makes room for all of them), its factors
 * allocated; NULL when out of memory (it is appended all the same, to be freed). */
static struct rsplit *add_split(struct run *r, unsigned dim, const char *scheduler)
{
    struct rsplit *s = &r->splits[r->nsplits++];

    s->dim = dim;
    snprintf(s->scheduler, sizeof s->scheduler, "%s", scheduler);
    s->predicted_s = -1;
    s->optimal = calloc(r->n, sizeof *s->optimal);
    s->adjusted = calloc(r->n, sizeof *s->adjusted);
    return s->optimal && s->adjusted ? s : NULL;
}

/* Fills s with what res measured: Table 3's optimal factors from plan (-1 when NULL), the
 * shares taken, the times and the verification. */
static void fill_split(struct rsplit *s, size_t n, const struct ht_split_plan *plan,
                       const struct ht_coexec_result *res)
{
    for (size_t i = 0; i < n; i++) {
        s->optimal[i] = plan ? plan->slices[i].optimal_factor : -1;
        s->adjusted[i] = res->devices[i].share;
    }
    s->theoretical_s = res->theoretical_s;
    s->wall_s = res->wall_s;
    s->kernel_s = res->kernel_s;
    s->verified = res->verified;
}

/* Step 3 for one dimension and scheduler: co-execute, verify, store, refine (static),
 * sweep; appends the co-execution to r->splits, and the best refined round after it. */
static int split_one(struct run *r, const struct ht_coexec_opts *copts, double step,
                     const struct ht_coexec_alone *alone, int *verify_failed,
                     struct ht_error *err)
{
    struct ht_coexec_device *cdevs = calloc(r->n, sizeof *cdevs);
    struct rsplit *out = add_split(r, copts->dim, copts->scheduler);
    int is_static = !strcmp(copts->scheduler, "static");
    struct ht_coexec *cx = NULL;
    struct ht_coexec_result res;
    struct ht_coexec_estimate est;
    struct ht_workflow_refine rf;
    const struct ht_split_plan *plan;
    int rc;

    memset(&res, 0, sizeof res);
    memset(&rf, 0, sizeof rf);
    if (!cdevs || !out) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < r->n; i++)
        cdevs[i] = (struct ht_coexec_device){r->devs[i].dev, r->devs[i].config,
                                             r->devs[i].tuned_s, 0};
    rc = ht_coexec_create(r->spec, cdevs, r->n, copts, &cx, err);
    if (rc != HT_OK)
        goto cleanup;
    if (ht_coexec_estimate(cx, alone, &est, NULL) == HT_OK)
        out->predicted_s = est.split_s;
    rc = ht_coexec_run(cx, &res, err);
    if (rc != HT_OK)
        goto cleanup;
    rc = ht_coexec_verify(cx, r->fastest, &res, err);
    if (rc == HT_EVERIFY) {
        cli_fail("run", err);
        ht_error_clear(err);
        *verify_failed = 1;
        rc = HT_OK;
    }
    if (rc != HT_OK)
        goto cleanup;
    plan = ht_coexec_plan(cx);
    fill_split(out, r->n, plan, &res);
    /* Stored as hetune split stores it: Table 3's factors from the plan (static) or the
     * shares taken (dynamic, guided). */
    rc = ht_workflow_store_split(r->store, r->problem_id, r->devs, r->n, r->fastest, &res, plan, 0, -1,
                         &out->id, err);
    if (rc != HT_OK)
        goto cleanup;
    step_done(r, out->scheduler);
    /* Refined from the paper's plan, before the sweep replaces it; stored as hetune split
     * --refine stores it, as a co-execution of its own. One step of the bar: the rounds
     * may stop early. */
    if (r->refine && is_static) {
        struct cli_verify v = {"run", 0};
        rc = ht_workflow_refine_run(cx, alone, &res, r->fastest, r->refine, r->refine_by,
                                    cli_verify_failed, &v, &rf, err);
        *verify_failed |= v.failed;
        if (rc == HT_OK && rf.best_refined) {
            struct rsplit *ref = add_split(r, copts->dim, "refined");
            if (!ref)
                rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            if (rc == HT_OK) {
                fill_split(ref, r->n, &rf.best_plan, &rf.best_res);
                rc = ht_workflow_store_split(r->store, r->problem_id, r->devs, r->n, r->fastest,
                                     &rf.best_res, &rf.best_plan, 0, -1, &ref->id, err);
            }
        }
        if (rc != HT_OK)
            goto cleanup;
        step_done(r, "refined");
        /* A refined round left its fitted models in cx: the sweep's plans (and their
         * theoretical times) come from the tuned times. */
        ht_coexec_reset_models(cx);
    }
    if (step > 0 && r->n == 2 && is_static)
        rc = sweep(r, cx, step, out, verify_failed, err);
cleanup:
    ht_workflow_refine_free(&rf);
    ht_coexec_result_destroy(&res);
    ht_coexec_free(cx);
    free(cdevs);
    return rc;
}

/* --- output --- */

static void print_factors(const double *f, size_t n)
{
    printf("(");
    for (size_t i = 0; i < n; i++) {
        if (f[i] < 0)
            printf("%s-", i ? ", " : "");
        else
            printf("%s%.3f", i ? ", " : "", f[i]);
    }
    printf(")");
}

static void print_text(const struct run *r, const struct ht_report_result *rep, double elapsed)
{
    char a[32], b[32], c[32], d[32];
    int w = 6;

    printf("spec          %s (%s)\n", r->spec->name, r->spec->path);
    printf("database      %s\n", r->db);
    printf("\nprune         the design space per device (Tables 1 and 2)\n");
    printf("  %-3s %-34s %14s %10s %10s\n", "#", "device", "unpruned", "platform", "pruned");
    for (size_t i = 0; i < r->n; i++) {
        const struct ht_workflow_device *dv = &r->devs[i];
        const struct ht_space_counts *counts = &r->steps[i].counts;
        printf("  %-3zu %-34.34s %14.0f %10" PRIu64 " %10" PRIu64 "\n", dv->dev->index,
               dv->dev->name, counts->unpruned, counts->platform, counts->pruned);
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
        for (size_t k = 0; k < r->nsplits; k++) {
            const struct rsplit *s = &r->splits[k];
            ht_format_seconds(s->theoretical_s, a, sizeof a);
            ht_format_seconds(s->wall_s, b, sizeof b);
            ht_format_seconds(s->kernel_s, c, sizeof c);
            printf("  %s %-8s optimal ", k == 0 || r->splits[k - 1].dim != s->dim
                                              ? (s->dim == 0 ? "gx" : s->dim == 1 ? "gy" : "gz")
                                              : "  ",
                   s->scheduler);
            print_factors(s->optimal, r->n);
            printf(" adjusted ");
            print_factors(s->adjusted, r->n);
            printf(" theoretical %s, wall %s, kernel %s, %s", a, b, c,
                   s->verified == 1 ? "verified" : s->verified == 0 ? "VERIFICATION FAILED"
                                                                     : "not verified");
            if (s->predicted_s >= 0 &&
                s->predicted_s >= r->devs[r->fastest].alone.wall_s)
                printf(" (predicted not to pay)");
            printf("\n");
            if (s->nsweep)
                printf("     sweep    %zu split points stored\n", s->nsweep);
        }
    }
    printf("\nreport        %s\n", rep->path);
    if (rep->figures == 0)
        printf("figures       none\n");
    else if (rep->pictures)
        printf("figures       %zu, drawn as PNG and SVG\n", rep->figures);
    else
        printf("figures       %zu gnuplot scripts, no pictures: %s\n", rep->figures,
               rep->no_pictures);
    printf("time          %.1f s\n", elapsed);
}

static void json_num(double v)
{
    if (v >= 0 && isfinite(v))
        printf("%.9g", v);
    else
        printf("null");
}

static void json_factors(const double *f, size_t n)
{
    printf("[");
    for (size_t i = 0; i < n; i++) {
        printf("%s", i ? ", " : "");
        json_num(f[i]);
    }
    printf("]");
}

static void print_json(const struct run *r, const struct ht_report_result *rep, double elapsed)
{
    printf("{\n  \"spec\": ");
    cli_json_string(stdout, r->spec->name);
    printf(",\n  \"spec_path\": ");
    cli_json_string(stdout, r->spec->path);
    printf(",\n  \"db\": ");
    cli_json_string(stdout, r->db);
    printf(",\n  \"problem_id\": %" PRId64 ",\n  \"devices\": [", r->problem_id);
    for (size_t i = 0; i < r->n; i++) {
        const struct ht_workflow_device *d = &r->devs[i];
        const struct rstep *st = &r->steps[i];
        printf("%s\n    {\"index\": %zu, \"name\": ", i ? "," : "", d->dev->index);
        cli_json_string(stdout, d->dev->name);
        printf(", \"device_id\": %" PRId64 ",\n     \"space\": {\"unpruned\": %.0f, "
               "\"platform\": %" PRIu64 ", \"pruned\": %" PRIu64 "},\n     \"tune\": "
               "{\"evaluated\": %zu, \"from_db\": %zu, \"best\": ",
               d->device_id, st->counts.unpruned, st->counts.platform, st->counts.pruned,
               st->tune.evaluated, st->tune.from_db);
        cli_json_string(stdout, d->config_text);
        printf(", \"best_seconds\": ");
        json_num(d->tuned_s);
        printf("},\n     \"alone_wall_seconds\": ");
        json_num(r->n > 1 ? d->alone.wall_s : -1);
        printf("}");
    }
    printf("\n  ],\n  \"fastest\": ");
    if (r->n > 1)
        printf("%zu", r->fastest);
    else
        printf("null");
    printf(",\n  \"splits\": [");
    for (size_t k = 0; k < r->nsplits; k++) {
        const struct rsplit *s = &r->splits[k];
        printf("%s\n    {\"dim\": %u, \"scheduler\": ", k ? "," : "", s->dim);
        cli_json_string(stdout, s->scheduler);
        printf(", \"split_id\": %" PRId64 ", \"optimal\": ", s->id);
        json_factors(s->optimal, r->n);
        printf(", \"adjusted\": ");
        json_factors(s->adjusted, r->n);
        printf(",\n     \"theoretical_seconds\": ");
        json_num(s->theoretical_s);
        printf(", \"wall_seconds\": ");
        json_num(s->wall_s);
        printf(", \"kernel_seconds\": ");
        json_num(s->kernel_s);
        printf(", \"predicted_seconds\": ");
        json_num(s->predicted_s);
        printf(", \"verified\": %s, \"sweep_points\": %zu}",
               s->verified < 0 ? "null" : s->verified ? "true" : "false", s->nsweep);
    }
    printf("%s],\n  \"report\": {\"path\": ", r->nsplits ? "\n  " : "");
    cli_json_string(stdout, rep->path);
    printf(", \"cases\": %zu, \"figures\": %zu, \"pictures\": %s, \"no_pictures\": ",
           rep->cases, rep->figures, rep->pictures ? "true" : "false");
    if (rep->pictures)
        printf("null");
    else
        cli_json_string(stdout, rep->no_pictures);
    printf("},\n  \"seconds\": %.3f\n}\n", elapsed);
}

int cmd_run(int argc, char **argv)
{
    enum { OPT_DIM = 256, OPT_SWEEP, OPT_REPEATS, OPT_DB, OPT_SIZE, OPT_EQ3, OPT_NO_CACHE,
           OPT_CACHE_DIR, OPT_NO_PICTURES, OPT_JSON, OPT_RESIDUE, OPT_REFINE, OPT_REFINE_BY };
    static const struct option longopts[] = {
        {"device", required_argument, NULL, 'd'},
        {"dim", required_argument, NULL, OPT_DIM},
        {"scheduler", required_argument, NULL, 's'},
        {"sweep", required_argument, NULL, OPT_SWEEP},
        {"residue", required_argument, NULL, OPT_RESIDUE},
        {"refine", required_argument, NULL, OPT_REFINE},
        {"refine-by", required_argument, NULL, OPT_REFINE_BY},
        {"strategy", required_argument, NULL, 'S'},
        {"budget", required_argument, NULL, 'b'},
        {"repeats", required_argument, NULL, OPT_REPEATS},
        {"db", required_argument, NULL, OPT_DB},
        {"out", required_argument, NULL, 'o'},
        {"no-pictures", no_argument, NULL, OPT_NO_PICTURES},
        {"size", required_argument, NULL, OPT_SIZE},
        {"eq3", required_argument, NULL, OPT_EQ3},
        {"no-cache", no_argument, NULL, OPT_NO_CACHE},
        {"cache-dir", required_argument, NULL, OPT_CACHE_DIR},
        {"json", no_argument, NULL, OPT_JSON},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct ht_size_override *ov = NULL;
    size_t nov = 0, *idx = NULL, nsched = 1;
    char *device_list = NULL;
    const char *scheduler = "static", *const *schedulers = NULL;
    double step = 0, t0 = now();
    uint64_t u = 0;
    unsigned dims = 0;
    int c, status = 2, rc, verify_failed = 0, have_old_sa = 0, has_static = 0;
    struct ht_coexec_opts copts;
    struct ht_tune_opts topts;
    struct ht_report_opts ropts;
    struct ht_report_result rep;
    struct ht_spec *spec = NULL;
    struct ht_platform *plat = NULL;
    struct ht_coexec_alone *alone = NULL;
    struct sigaction sa, old_sa;
    int64_t kernel_id = 0;
    struct run r;
    struct ht_error err;

    memset(&r, 0, sizeof r);
    memset(&rep, 0, sizeof rep);
    r.db = HT_STORE_DEFAULT_PATH;
    r.out = "report";
    ht_coexec_opts_init(&copts);
    ht_tune_opts_init(&topts);
    ht_report_opts_init(&ropts);
    ht_error_clear(&err);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":hd:s:S:b:o:", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': device_list = optarg; break;
        case OPT_DIM:
            if ((status = parse_dims(optarg, &dims)) != 0)
                goto cleanup;
            break;
        case 's':
            if (strcmp(optarg, "all") && !ht_split_scheduler_find(optarg)) {
                fprintf(stderr, "hetune run: unknown scheduler '%s'; the schedulers are:",
                        optarg);
                for (size_t i = 0; ht_split_schedulers[i]; i++)
                    fprintf(stderr, " %s", ht_split_schedulers[i]->name);
                fprintf(stderr, " (or all)\n");
                status = 2;
                goto cleanup;
            }
            scheduler = optarg;
            break;
        case OPT_SWEEP: {
            char *end;
            errno = 0;
            step = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(step > 0) || step > 1 || 1.0 / step > 10000) {
                status = cli_usage_error("run", 2,
                                         "--sweep takes a step in (0, 1] (at most 10000 "
                                         "points), not '%s'",
                                         optarg);
                goto cleanup;
            }
            break;
        }
        case OPT_RESIDUE:
            if ((status = cli_parse_residue("run", optarg, &copts.sched.residue)) != 0)
                goto cleanup;
            break;
        case OPT_REFINE:
            if ((status = cli_parse_uint("run", "--refine", optarg, 20, &u)) != 0)
                goto cleanup;
            r.refine = (unsigned)u;
            break;
        case OPT_REFINE_BY:
            if ((status = cli_parse_refine_by("run", optarg, &r.refine_by)) != 0)
                goto cleanup;
            break;
        case 'S':
            if ((status = cli_parse_strategy("run", optarg, &topts.strategy)) != 0)
                goto cleanup;
            break;
        case 'b':
            if ((status = cli_parse_uint("run", "--budget", optarg, UINT32_MAX, &u)) != 0)
                goto cleanup;
            topts.budget = (size_t)u;
            break;
        case OPT_REPEATS:
            if ((status = cli_parse_uint("run", "--repeats", optarg, HT_MAX_REPEATS, &u)) != 0)
                goto cleanup;
            if (u == 0) {
                status = cli_usage_error("run", 2, "--repeats takes at least 1");
                goto cleanup;
            }
            copts.repeats = (unsigned)u;
            break;
        case OPT_DB: r.db = optarg; break;
        case 'o': r.out = optarg; break;
        case OPT_NO_PICTURES: ropts.gnuplot = ""; break;
        case OPT_SIZE:
            if ((status = cli_add_size("run", optarg, &ov, &nov)) != 0)
                goto cleanup;
            break;
        case OPT_EQ3:
            if ((status = cli_parse_eq3("run", optarg, &copts.exec.eq3)) != 0)
                goto cleanup;
            break;
        case OPT_NO_CACHE: copts.exec.no_cache = 1; break;
        case OPT_CACHE_DIR: copts.exec.cache_dir = optarg; break;
        case OPT_JSON: r.json = 1; break;
        case 'h':
            fputs(run_usage, stdout);
            status = 0;
            goto cleanup;
        default:
            status = cli_getopt_error("run", c, argv);
            goto cleanup;
        }
    }
    status = 2;
    if (cli_spec_arg("run", argc, argv) != 0)
        goto cleanup;
    if (!r.out[0]) {
        cli_usage_error("run", 2, "--out needs a folder");
        goto cleanup;
    }
    has_static = !strcmp(scheduler, "static") || !strcmp(scheduler, "all");
    if (r.refine && !has_static) {
        cli_usage_error("run", 2, "--refine refines the static plan, not the %s scheduler",
                        scheduler);
        goto cleanup;
    }
    if (!strcmp(scheduler, "all")) {
        schedulers = all_schedulers;
        nsched = sizeof all_schedulers / sizeof all_schedulers[0];
    } else {
        schedulers = &scheduler;
    }
    topts.eq3 = copts.exec.eq3;
    topts.exec = copts.exec;

    rc = cli_load_spec("run", argv[optind], ov, nov, &spec);
    if (rc != 0) {
        status = rc;
        goto cleanup;
    }
    r.spec = spec;
    if (dims == 0)
        dims = (1u << spec->space.ndims) - 1;
    for (unsigned d = spec->space.ndims; d < 3; d++)
        if (dims & (1u << d)) {
            cli_usage_error("run", 2, "--dim %u: the NDRange of '%s' has %u dimension%s", d,
                            spec->name, spec->space.ndims, spec->space.ndims == 1 ? "" : "s");
            goto cleanup;
        }
    if (spec->space.nparams == 0 || spec->space.nparams > HT_STORE_MAX_PARAMS) {
        cli_usage_error("run", 2, "the spec has %zu parameters: hetune run needs 1 to %d",
                        spec->space.nparams, HT_STORE_MAX_PARAMS);
        goto cleanup;
    }
    rc = cli_devices_list("run", device_list, &plat, &idx, &r.n);
    if (rc != 0) {
        status = rc;
        goto cleanup;
    }
    if (step > 0 && r.n != 2) {
        cli_usage_error("run", 2, "--sweep needs exactly two devices, not %zu (see --device)",
                        r.n);
        goto cleanup;
    }
    r.devs = calloc(r.n, sizeof *r.devs);
    r.steps = calloc(r.n, sizeof *r.steps);
    alone = calloc(r.n, sizeof *alone);
    /* Per dimension each scheduler's co-execution, and the refined one. */
    r.splits = calloc(3 * (nsched + (r.refine > 0)), sizeof *r.splits);
    if (!r.devs || !r.steps || !alone || !r.splits) {
        status = cli_usage_error("run", 1, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < r.n; i++)
        r.devs[i].dev = &plat->devices[idx[i]];

    rc = ht_store_open(r.db, &r.store, &err);
    if (rc == HT_OK)
        rc = ht_store_kernel_id(r.store, spec, &kernel_id, &err);
    if (rc == HT_OK)
        rc = ht_store_problem_id(r.store, kernel_id, spec, &r.problem_id, &err);
    if (rc == HT_OK)
        rc = prune(&r, copts.exec.eq3, &err);
    if (rc != HT_OK) {
        status = cli_fail("run", &err);
        goto cleanup;
    }

    /* Ctrl-C finishes the configuration in flight; what was tuned stays stored. A SIGINT
     * that is ignored (a background job) stays ignored. */
    stop_flag = 0;
    if (sigaction(SIGINT, NULL, &old_sa) == 0 && old_sa.sa_handler != SIG_IGN) {
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigint;
        sa.sa_flags = SA_RESETHAND | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGINT, &sa, NULL) == 0)
            have_old_sa = 1;
    }
    topts.stop = &stop_flag;
    rc = tune(&r, &topts, &err);
    if (have_old_sa) {
        sigaction(SIGINT, &old_sa, NULL);
        have_old_sa = 0;
    }
    if (rc == 130) {
        fprintf(stderr, "hetune run: interrupted while tuning; what was measured is stored in "
                        "%s\n",
                r.db);
        status = 130;
        goto cleanup;
    }
    if (rc != HT_OK) {
        status = cli_fail("run", &err);
        if (rc == HT_ENOTFOUND)
            status = 1;
        goto cleanup;
    }

    if (r.n > 1) {
        size_t total = r.n;
        for (unsigned d = 0; d < 3; d++)
            if (dims & (1u << d))
                total += nsched + (has_static && r.refine) +
                         (has_static && step > 0 ? ht_workflow_sweep_points(step) : 0);
        cli_progress_start(&r.bar, "split", total);
        rc = measure_alone(&r, &copts, &err);
        for (size_t i = 0; i < r.n; i++)
            alone[i] = r.devs[i].alone;
        for (unsigned d = 0; rc == HT_OK && d < 3; d++) {
            if (!(dims & (1u << d)))
                continue;
            for (size_t s = 0; rc == HT_OK && s < nsched; s++) {
                struct ht_coexec_opts o = copts;
                o.dim = d;
                o.scheduler = schedulers[s];
                rc = split_one(&r, &o, step, alone, &verify_failed, &err);
            }
        }
        cli_progress_end(&r.bar);
        if (rc != HT_OK) {
            status = cli_fail("run", &err);
            goto cleanup;
        }
    }

    ropts.spec = spec->name;
    rc = ht_report_write(r.store, r.out, &ropts, &rep, &err);
    if (rc != HT_OK) {
        status = cli_fail("run", &err);
        goto cleanup;
    }
    if (r.json)
        print_json(&r, &rep, now() - t0);
    else
        print_text(&r, &rep, now() - t0);
    status = verify_failed ? 3 : 0;

cleanup:
    if (have_old_sa)
        sigaction(SIGINT, &old_sa, NULL);
    for (size_t k = 0; r.splits && k < r.nsplits; k++) {
        free(r.splits[k].optimal);
        free(r.splits[k].adjusted);
        free(r.splits[k].sweep);
    }
    free(r.splits);
    free(r.devs);
    free(r.steps);
    free(alone);
    free(idx);
    ht_store_close(r.store);
    ht_platform_free(plat);
    ht_spec_free(spec);
    free(ov);
    return status;
}
