/* hetune split: co-executes a spec's kernel on several devices at once, each at its tuned
 * configuration, and compares with the paper's theoretical time (§2.2, Algorithm 1). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "split-common.h"

static const char split_usage[] =
    "usage: hetune split SPEC [options]\n"
    "\n"
    "Runs the spec's kernel on several devices at once, each at its best configuration\n"
    "from the results database (a device that has none is tuned first), each on its\n"
    "slice of the NDRange along one dimension with a global work offset, and merges the\n"
    "outputs. First every device runs the whole problem alone, with the same wall clock;\n"
    "then the paper's plan (section 2.2) splits the work by the tuned times: optimal\n"
    "factors S_i = (1/t_i) / sum_j(1/t_j) (Eq. 4), adjusted to whole work-groups of each\n"
    "device's own size (Eq. 5-9), theoretical time max_i(S_i*t_i) (Algorithm 1). The\n"
    "split run is planned knowing the bus (unless --plan paper): each device's busy\n"
    "time is its kernel time of its share plus its slice's bytes over its link (the\n"
    "database's 'hetune devices --bandwidth', else its transfers alone), overlapped\n"
    "when it moves its slice in pieces, plus its fixed costs; the plan balances the\n"
    "busy times, and the transfer-aware bound (the best any split of these devices can\n"
    "reach) is printed beside Algorithm 1's. When that plan is predicted slower than\n"
    "the fastest device alone by more than the margin, it says so and runs that device\n"
    "alone, unless --force; predicted within the margin of it, faster or slower, the\n"
    "split is measured and kept only when it beats that device alone by the margin; so\n"
    "it runs that device alone when the split ran slower than it, or not the margin\n"
    "faster where that was asked (the split stays stored, with its prediction), or\n"
    "when with --refine it beat every round or the best round gave it\n"
    "all the work (stored as \"alone\"). The merged output is verified against one\n"
    "run of the fastest device alone (itself verified against the spec's\n"
    "reference), and the split is stored in the database. Under 'mpirun -n K' (a build\n"
    "with MPI) each rank is a node that decides so on its own devices (--plan, --margin\n"
    "and --force apply there) and runs its Eq. 4 share of the nodes, or rank 0's node\n"
    "runs alone where that does not pay; --refine N then refines the nodes' shares\n"
    "from their slices' times (docs/scale.md).\n"
    "\n"
    "Its measurements (each device alone, the split, refinement and sweep) hold the\n"
    "lock of every device in $HETUNE_LOCK_DIR (as tune's; taken after any tuning, in\n"
    "the order of the lock files' names): another process measuring one of them makes\n"
    "it say so and wait, Ctrl-C stops (130). It ends saying 'measured under load' as\n"
    "tune does (--json: \"load\").\n"
    "\n"
    "Printed: per device its configuration, work-group size along the split dimension,\n"
    "time alone (tuned, and measured here), optimal and adjusted factors (the paper's\n"
    "Table 3; for dynamic and guided the adjusted factor is the share it took), slice\n"
    "and owned range, kernels launched, kernel-only and transfer times (each the sum\n"
    "of its commands' profiled times: a device that moves its slice in pieces on two\n"
    "queues overlaps them, so its transfers can add up to more than the wall time);\n"
    "then the theoretical time, the measured wall time (mean of the best keep_best runs,\n"
    "transfers, launches and host threads included) and the slowest device's\n"
    "kernel-only time, the overhead over the theoretical time, and the speedup over the\n"
    "fastest device alone. Once the database holds splits of this problem over these\n"
    "devices with their predictions, 'history' says how far they measured from them,\n"
    "this one included (--json: \"prediction_history\"): on a machine whose runs\n"
    "spread, what to expect of the prediction.\n"
    "\n"
    "options:\n"
    "  -d, --device D,D,...  the devices, each an index from 'hetune devices' or a unique\n"
    "                        part of \"<platform> <name>\", or all (default: all). A\n"
    "                        device named twice gets two contexts.\n"
    "      --dim d           the NDRange dimension to split: 0 (gx), 1 (gy) or 2 (gz)\n"
    "                        (default 0)\n"
    "      --scheduler S     static (the paper's plan, default), dynamic (a shared work\n"
    "                        counter, chunks on demand: a GPU a tenth of the work at a\n"
    "                        time, a CPU a fiftieth but at least two work-groups per\n"
    "                        compute unit) or guided (chunks that shrink as the work\n"
    "                        runs out, proportional to each device's speed)\n"
    "      --force           split even when it is predicted to be slower\n"
    "      --margin F        split when predicted at least F faster than the fastest\n"
    "                        device alone; predicted within F of it, when measured so\n"
    "                        (default 0.1: 10%)\n"
    "      --dump DIR        write every merged written buffer as raw DIR/<name>.bin\n"
    "\n"
    "Written buffers without an \"index\" (specs written for other tuners) are probed:\n"
    "the fastest CPU device's configuration runs, its written buffers poisoned, over two\n"
    "slices of the split dimension and whole; the slab of rows or columns each slice\n"
    "writes becomes the buffer's split axis, stored in the database for next time. A\n"
    "buffer whose writes no slab explains (scattered writes, a reduction) is refused,\n"
    "saying what the probe saw.\n"
    "\n"
    "Limitations: every written buffer needs an axis walked by the split dimension\n"
    "(given by \"index\" or found by the probe); the devices' configurations must launch\n"
    "the same number of work-items along it; readwrite buffers are right only when each\n"
    "work-item reads and writes its own elements.\n"
    "\n"
    "exit status: 0 success, 1 runtime failure (no platform, launch error, database\n"
    "error, no device with a verified configuration), 2 bad input (usage, spec, unknown\n"
    "device, a spec that cannot be split), 3 verification failed, 130 interrupted\n";

static const char *const dim_names[] = {"gx", "gy", "gz"};

static volatile sig_atomic_t stop_flag;
static struct cli_waiter waiter = {"split", 0, 0, 0};

/* Ctrl-C (or SIGTERM) while split waits for a device lock stops the wait (130, said);
 * at any other moment it ends split at once, as it always did (the co-execution has no
 * stop flag; its supervisor says so and exits 130). */
static void on_stop(int sig)
{
    stop_flag = 1;
    if (!waiter.waiting) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

/* What split prints: the library's result, and what it was asked. */
struct report {
    const struct ht_spec *spec;
    const struct ht_workflow_split_opts *opts;
    const struct ht_workflow_split_result *w;
    const struct ht_split_plan *plan;          /* NULL when run alone */
    const struct ht_coexec_estimate *est;      /* NULL when not estimated */
    const struct ht_workflow_refine *refine;   /* NULL without --refine */
};

static double share(const struct report *r, size_t i)
{
    return r->w->res.devices[i].share;
}

/* The result ran a plan of the planner: the static scheduler's, or a refined one. */
static int is_planned(const struct report *r)
{
    return r->plan && !r->w->ran_alone && ht_workflow_scheduler_planned(r->w->res.scheduler);
}

static void print_text(const struct report *r)
{
    const struct ht_coexec_result *res = &r->w->res;
    const struct ht_workflow_device *fast = &r->w->devs[r->w->fastest];
    char a[32], b[32], c[32], d[32], e[32], line[512];
    int w = 6, planned = is_planned(r), same = 1;

    printf("spec          %s (%s)\n", r->spec->name, r->spec->path);
    for (size_t i = 0; i < res->ndevices; i++)
        same &= res->devices[i].global[res->dim] == res->global;
    printf("split         along %s (dimension %u), %" PRIu64 " %s, scheduler %s\n",
           dim_names[res->dim], res->dim, res->global,
           same ? "work-items" : "units (the lcm of the devices' global sizes)", res->scheduler);
    if (ht_present_split_units(r->w, line, sizeof line))
        printf("cpu units     %s\n", line);
    for (size_t i = 0; i < r->w->n; i++)
        if ((int)strlen(r->w->devs[i].config_text) > w)
            w = (int)strlen(r->w->devs[i].config_text);
    printf("\n%-3s %-28s %-*s %6s %10s %10s %8s %8s %20s %6s %10s %10s\n", "#", "device", w,
           "config", "wg", "tuned", "alone", "optimal", "adjusted", "slice", "chunks",
           "kernel", "transfers");
    for (size_t i = 0; i < r->w->n; i++) {
        const struct ht_workflow_device *sd = &r->w->devs[i];
        const struct ht_coexec_device_result *dr = &res->devices[r->w->ran_alone ? 0 : i];
        char name[64], slice[48];
        if (r->w->ran_alone && i != r->w->fastest)
            continue;
        snprintf(name, sizeof name, "%zu %.26s", sd->dev->index, sd->dev->name);
        ht_format_seconds(sd->tuned_s, a, sizeof a);
        ht_format_seconds(sd->alone.wall_s, b, sizeof b);
        ht_format_seconds(dr->kernel_s, c, sizeof c);
        ht_format_seconds(dr->write_s + dr->read_s, d, sizeof d);
        if (planned && r->plan->slices[i].size)
            snprintf(slice, sizeof slice, "[%" PRIu64 ", %" PRIu64 ")", r->plan->slices[i].offset,
                     r->plan->slices[i].offset + r->plan->slices[i].size);
        else if (planned)
            snprintf(slice, sizeof slice, "(no slice)");
        else
            snprintf(slice, sizeof slice, "%" PRIu64 " items", dr->items);
        printf("%-3zu %-28s %-*s %6" PRIu64 " %10s %10s %8.4f %8.4f %20s %6u %10s %10s\n", i,
               name, w, sd->config_text, dr->wg, a, b,
               r->plan ? r->plan->slices[i].optimal_factor : 1.0,
               r->w->ran_alone ? 1.0 : share(r, i), slice, dr->chunks, c, d);
    }
    if (r->plan && !r->w->ran_alone) {
        printf("\nTable 3       optimal (");
        for (size_t i = 0; i < r->w->n; i++)
            printf("%s%.3f", i ? ", " : "", r->plan->slices[i].optimal_factor);
        printf("), adjusted (");
        for (size_t i = 0; i < r->w->n; i++)
            printf("%s%.3f", i ? ", " : "", share(r, i));
        printf(")%s\n", planned ? "" : " (shares taken)");
        if (planned && r->plan->residue_device != SIZE_MAX) {
            printf("residue       ");
            cli_print_residue(r->plan, NULL);
            printf(", overlap %" PRIu64 "\n", r->plan->overlap);
        } else if (planned) {
            printf("residue       none\n");
        }
    }
    putchar('\n');
    if (r->est) {
        ht_format_seconds(r->est->split_s, a, sizeof a);
        ht_format_seconds(r->est->alone_s, b, sizeof b);
        printf("predicted     split %s, device %zu alone %s: %s\n", a, fast->dev->index, b,
               r->est->worth_it ? "splitting pays" : "splitting does not pay");
        ht_format_seconds(r->est->bound_s, a, sizeof a);
        ht_format_seconds(r->est->kernel_bound_s, b, sizeof b);
        ht_format_seconds(r->est->paper_s, c, sizeof c);
        printf("bounds        transfer-aware %s (the best any split of these devices can "
               "reach), kernel-only %s; the paper's plan %s\n",
               a, b, r->est->paper_s >= 0 ? c : "unknown");
        if (r->est->host_Bps > 0) {
            ht_format_seconds(r->est->host_s, a, sizeof a);
            ht_format_seconds(r->est->host_split_s, b, sizeof b);
            if (r->est->host_floor)
                printf("host memory   %.0f MB through it (the CPU's part in place and every "
                       "transfer): at least %s at the %.1f GB/s they share; %s with each "
                       "part's fixed cost on top\n",
                       r->est->host_bytes / 1e6, a, r->est->host_Bps / 1e9, b);
            else
                printf("host memory   %.0f MB through it (the CPU's part in place and every "
                       "transfer): %s at the %.1f GB/s its threads reach alone\n",
                       r->est->host_bytes / 1e6, a, r->est->host_Bps / 1e9);
        }
    }
    if (r->w->ran_alone) {
        ht_format_seconds(res->wall_s, a, sizeof a);
        ht_format_seconds(res->kernel_s, b, sizeof b);
        printf("ran alone     device %zu (%s): wall %s, kernel-only %s (%s)\n",
               fast->dev->index, fast->dev->name, a, b,
               r->w->left_alone ? "the only device left" : "--force splits anyway");
        if (r->w->measured_alone && r->refine)
            printf("measured      no round of the refinement below beat it by %s time, or "
                   "the best gave it all the work\n",
                   r->refine->target == HT_REFINE_KERNEL ? "kernel-only" : "wall");
        else if (r->w->measured_alone) {
            /* Measured because predicted within the margin of alone, faster or slower, and
             * not kept: slower than it alone, or faster by less than the margin. */
            ht_format_seconds(r->w->measured_split_s, a, sizeof a);
            if (r->w->measured_split_s < res->wall_s)
                printf("measured      the split took %s, not %g%% faster than it alone (the "
                       "margin)\n", a, 100 * r->opts->coexec.margin);
            else
                printf("measured      the split took %s, longer than it alone\n", a);
        }
    } else {
        ht_format_seconds(res->theoretical_s, a, sizeof a);
        ht_format_seconds(res->adjusted_s, b, sizeof b);
        printf("theoretical   %s (Algorithm 1: max_i S_i*t_i); %s with the slices as "
               "launched\n",
               a, b);
        if (r->refine && r->refine->best) {
            ht_format_seconds(res->model_s, a, sizeof a);
            printf("refined       round %zu of the refinement below: the model predicts %s\n",
                   r->refine->best, a);
        }
        ht_format_seconds(res->wall_s, a, sizeof a);
        ht_format_seconds(res->wall_min_s, b, sizeof b);
        ht_format_seconds(res->kernel_s, c, sizeof c);
        printf("measured      wall %s (mean of the best of %u runs, transfers included; "
               "fastest %s), kernel-only %s\n",
               a, res->nruns, b, c);
        if (res->theoretical_s > 0)
            printf("overhead      %+.1f%% wall, %+.1f%% kernel-only, over the theoretical "
                   "time\n",
                   100.0 * (res->wall_s / res->theoretical_s - 1.0),
                   100.0 * (res->kernel_s / res->theoretical_s - 1.0));
        ht_format_seconds(fast->alone.wall_s, a, sizeof a);
        ht_format_seconds(fast->alone.kernel_s, b, sizeof b);
        ht_format_seconds(fast->tuned_s, c, sizeof c);
        printf("alone         fastest device %zu (%s): wall %s, kernel-only %s (tuned %s)\n",
               fast->dev->index, fast->dev->name, a, b, c);
        if (res->wall_s > 0 && res->kernel_s > 0)
            printf("speedup       %.2fx wall, %.2fx kernel-only, over the fastest device "
                   "alone\n",
                   fast->alone.wall_s / res->wall_s, fast->alone.kernel_s / res->kernel_s);
    }
    if (r->w->history.count == 1)
        printf("history       1 split of this problem on these devices: measured %+.1f%% "
               "against its prediction\n", 100 * r->w->history.newest);
    else if (r->w->history.count > 1)
        printf("history       %zu splits of this problem on these devices: measured %+.1f%% "
               "to %+.1f%% against their predictions (the newest %+.1f%%)\n",
               r->w->history.count, 100 * r->w->history.min, 100 * r->w->history.max,
               100 * r->w->history.newest);
    if (res->verified == 1)
        printf("verification  passed against %s (max abs err %.3g, max rel err %.3g)\n",
               res->reference, res->max_abs_err, res->max_rel_err);
    else if (res->verified == 0)
        printf("verification  FAILED: %zu mismatch%s against %s; first %s\n", res->mismatches,
               res->mismatches == 1 ? "" : "es", res->reference, res->mismatch);
    else
        printf("verification  skipped\n");
    if (r->w->split_id > 0)
        printf("stored        split %" PRId64 " in %s\n", r->w->split_id, r->opts->db);
    if (r->refine)
        cli_refine_print(r->refine);
    if (r->w->nsweep) {
        printf("\nsweep         device 0 factor, device 1 factor: theoretical and measured "
               "times (* Eq. 4's factor %.3f)\n",
               r->w->eq4_factor);
        printf("%8s %8s %12s %12s %12s %9s\n", "f0", "f1", "theoretical", "wall", "kernel",
               "verified");
        for (size_t k = 0; k < r->w->nsweep; k++) {
            const struct ht_stored_sweep_point *p = &r->w->sweep[k];
            ht_format_seconds(p->theoretical_seconds, a, sizeof a);
            ht_format_seconds(p->seconds, b, sizeof b);
            ht_format_seconds(p->kernel_seconds, e, sizeof e);
            printf("%8.3f %8.3f %12s %12s %12s %9s\n", p->factor, 1.0 - p->factor, a, b, e,
                   p->verified == 1 ? "yes" : p->verified == 0 ? "NO" : "-");
        }
        /* Where Eq. 4's point lies on the curve. */
        ht_format_seconds(res->wall_s, a, sizeof a);
        if (!r->w->ran_alone && cli_scheduler_planned(res->scheduler))
            printf("%7.3f* %8.3f %12s %12s\n", r->w->eq4_factor, 1.0 - r->w->eq4_factor, "", a);
    }
}

int cmd_split(int argc, char **argv)
{
    enum { OPT_DIM = CLI_OPT_OWN, OPT_FORCE, OPT_DUMP };
    static const struct option own[] = {
        {"dim", required_argument, NULL, OPT_DIM}, {"force", no_argument, NULL, OPT_FORCE},
        {"dump", required_argument, NULL, OPT_DUMP}, {NULL, 0, NULL, 0},
    };
    struct cli_common co;
    size_t n = 0;
    const char *scheduler = "static";
    uint64_t u = 0;
    int c, status = 2, rc;
    struct ht_tune_opts topts;
    struct ht_spec *spec = NULL;
    struct ht_platform *plat = NULL;
    const struct ht_device_info **dl = NULL;
    struct ht_workflow_split_opts wo;
    struct ht_store_opts store_opts;
    struct ht_workflow_split_result wr;
    struct cli_verify v = {"split", 0};
    struct report rep;
    struct cli_tune_bar bar = {.spec = NULL};
    struct ht_error err;
    char *text = NULL, line[512];
    struct sigaction sa, old_int, old_term;
    int caught = 0;

    memset(&wr, 0, sizeof wr);
    ht_workflow_split_opts_init(&wo);
    ht_tune_opts_init(&topts);
    ht_error_clear(&err);
    cli_common_init(&co, "split", split_usage, CLI_F_COEXEC, own);
    co.split = &wo;
    while ((c = cli_getopt(&co, argc, argv)) != -1) {
        switch (c) {
        case OPT_DIM:
            if ((status = cli_parse_uint("split", "--dim", optarg, 2, &u)) != 0)
                goto cleanup;
            wo.coexec.dim = (unsigned)u;
            break;
        case CLI_OPT_SCHEDULER:
            if ((status = cli_parse_scheduler("split", optarg, 0, &scheduler)) != 0)
                goto cleanup;
            break;
        case OPT_FORCE: wo.force = 1; break;
        case OPT_DUMP: wo.dump = optarg; break;
        default:
            if ((status = cli_common_option(&co, c, optarg, argv)) != CLI_CONTINUE)
                goto cleanup;
        }
    }
    status = 2;
    if (cli_spec_arg("split", argc, argv) != 0 ||
        cli_split_check("split", &wo, scheduler, cli_scheduler_planned(scheduler)) != 0)
        goto cleanup;
    wo.coexec.scheduler = scheduler;
    wo.coexec.exec = co.exec;
    topts.eq3 = co.exec.eq3;
    topts.exec = co.exec;
    topts.budget = co.budget;
    topts.jobs = co.jobs;
    if (co.strategy)
        topts.strategy = co.strategy;

    if ((status = cli_common_spec(&co, argc, argv, &spec)) != 0)
        goto cleanup;
    status = 2;
    /* The library refuses a pipeline and too many parameters before tuning anything. */
    if (wo.coexec.dim >= spec->space.ndims) {
        cli_usage_error("split", 2, "--dim %u: the NDRange of '%s' has %u dimension%s",
                        wo.coexec.dim, spec->name, spec->space.ndims,
                        spec->space.ndims == 1 ? "" : "s");
        goto cleanup;
    }
    /* A signal ignored (a background job, nohup) stays ignored. */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, NULL, &old_int) == 0 && old_int.sa_handler != SIG_IGN &&
        sigaction(SIGTERM, NULL, &old_term) == 0 && old_term.sa_handler != SIG_IGN)
        caught = sigaction(SIGINT, &sa, NULL) == 0 && sigaction(SIGTERM, &sa, NULL) == 0;
    waiter.quiet = co.quiet;
    wo.stop = topts.stop = &stop_flag;
    /* The database's lock: waited for with a notice, Ctrl-C ends the wait. */
    cli_store_opts("split", 0, &stop_flag, co.quiet, &store_opts);
    wo.store = &store_opts;
    wo.on_device_wait = topts.on_device_wait = cli_device_wait;
    wo.wait_user = topts.wait_user = &waiter;
    if (ht_mpi_env_size() > 1) { /* mpirun -n K: each node co-executes its share (mpi.h) */
        wo.db = co.db;
        /* Rank 0 says what it found for the written buffers without "index". */
        wo.on_note = co.quiet ? NULL : cli_split_note;
        wo.user = &v;
        struct ht_mpi_split_result mr;
        if ((rc = ht_mpi_split(spec, co.device, &wo, &mr, &err)) == HT_OK)
            rc = ht_present_mpi_split(spec, &mr, co.json, &text, &status, &err);
        if (rc != HT_OK)
            status = cli_fail("split", &err);
        else
            fputs(text, stdout);
        if (rc != HT_OK && mr.rank0_failed)
            status = 0; /* rank 0 reports it and ends the job with its status (mpi.h) */
        ht_mpi_split_result_destroy(&mr);
        goto cleanup;
    }
    if ((status = cli_split_devices("split", co.device, &wo, &plat, &dl, &n)) != 0)
        goto cleanup;
    wo.db = co.db;
    wo.tune = &topts;
    topts.progress = cli_tune_progress;
    topts.progress_user = &bar;
    wo.on_note = co.quiet ? NULL : cli_split_note;
    wo.on_verify = cli_verify_failed;
    wo.user = &v;
    bar.quiet = co.quiet;
    bar.verbose = co.verbose;
    if (co.verbose) /* the per-configuration lines name the values */
        bar.spec = spec;
    rc = ht_workflow_split(spec, dl, n, &wo, &wr, &err);
    cli_tune_bar_end(&bar);
    /* Stopped (a tuning cut short, a wait for a device lock): 130, whatever came of it. */
    if (stop_flag && rc != HT_EINTR) {
        ht_error_clear(&err);
        rc = ht_error_set(&err, HT_EINTR, "interrupted; what was measured is stored in %s",
                          co.db ? co.db : HT_STORE_DEFAULT_PATH);
    }
    if (rc != HT_OK) {
        status = cli_fail("split", &err);
        cli_load_notice("split", &wr.load, co.quiet);
        goto cleanup;
    }
    status = wr.verify_failed || v.failed ? 3 : 0;
    for (size_t i = 0; i < wr.nskipped; i++)
        fprintf(stderr, "hetune split: skipped device %zu (%s): %s\n",
                wr.skipped[i].dev->index, wr.skipped[i].dev->name, wr.skipped[i].reason);
    if (wr.dump_err.code) {
        int s2 = cli_fail("split", &wr.dump_err);
        if (status == 0)
            status = s2;
    }
    if (!co.quiet && ht_present_split_decision(&wr, line, sizeof line))
        fprintf(stderr, "hetune split: %s\n", line);

    rep = (struct report){spec, &wo, &wr, wr.has_plan ? &wr.plan : NULL,
                          wr.has_est ? &wr.est : NULL, wr.has_refine ? &wr.refine : NULL};
    if (co.json) {
        rc = ht_present_split_json(spec, &wo, &wr, &text, &err);
        if (cli_json_text("split", rc, text) != 0 && status == 0)
            status = 1;
    } else {
        print_text(&rep);
    }
    cli_load_notice("split", &wr.load, co.quiet);
    if (wr.res.verified == 0) {
        ht_error_clear(&err);
        ht_error_set(&err, HT_EVERIFY, "merged output differs from the single-device run: %zu "
                                       "mismatches; first %s",
                     wr.res.mismatches, wr.res.mismatch);
        cli_fail("split", &err);
    }

cleanup:
    if (caught) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
    free(text);
    ht_workflow_split_result_destroy(&wr);
    free(dl);
    ht_platform_free(plat);
    ht_spec_free(spec);
    cli_common_free(&co);
    return status;
}
