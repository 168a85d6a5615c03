/* hetune plan: the split planner on numbers given on the command line (the paper's
 * §2.2: split factors, adjusted factors, the residue device, Algorithm 1's time). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char plan_usage[] =
    "usage: hetune plan --global G --wg W1,W2,... --times T1,T2,... [options]\n"
    "\n"
    "Splits G work-items along one NDRange dimension between devices, as the paper's\n"
    "section 2.2 does: the split factors S_i = (1/t_i) / sum_j(1/t_j) (Eq. 4); whole\n"
    "work-groups of each device's own size, floor(G*S_i/wg_i) (Eq. 6-7); the residue\n"
    "R = G - sum_i(wg_i*groups_i) (Eq. 8) goes to the device that covers it with the\n"
    "least work (Eq. 9; ties to the device that finishes first, then the first given).\n"
    "Slices lie in the order given with the residue device last, ending at G; when\n"
    "work-group sizes are not multiples of each other its slice overlaps its\n"
    "neighbour's, and each device owns (is read back for) only its own range. Only a\n"
    "device whose slice can still end at G takes the residue; when none can, one\n"
    "device takes all the work and runs past G (the overhang: pad the buffers).\n"
    "\n"
    "With --overheads, each device's time is t_i(S) = a_i + (t_i - a_i)*S for a share\n"
    "S > 0 (a_i: what any slice costs, however small: a launch, waking threads, an\n"
    "unfilled GPU), and the optimal factors make every device that gets work finish\n"
    "together; a device whose overhead alone outlasts the others' shares gets none.\n"
    "With all overheads 0 this is Eq. 4.\n"
    "\n"
    "options:\n"
    "  -g, --global G        work-items along the split dimension (a positive integer,\n"
    "                        at most 2^53)\n"
    "  -w, --wg W1,W2,...    each device's work-group size along that dimension\n"
    "  -t, --times T1,...    each device's time for the whole problem alone, in\n"
    "                        seconds (positive)\n"
    "  -f, --factors F1,...  split by these factors instead of Eq. 4 (not negative,\n"
    "                        normalized to sum 1); the times still give the\n"
    "                        theoretical times and break ties\n"
    "  -a, --overheads A1,.. each device's overhead in seconds (at least 0, below its\n"
    "                        time; default 0: the paper's linear model)\n"
    "      --residue work|time|groups\n"
    "                        who takes the residue: work, the device that covers it\n"
    "                        with the least work (Eq. 9, default), time, the device\n"
    "                        whose slice with it finishes first, or groups, one group\n"
    "                        at a time, each to the device that then finishes first\n"
    "      --xfer X1,...     the bus: each device's transfers that scale with its\n"
    "                        share (its sliced inputs and owned outputs), in seconds\n"
    "                        for the whole problem (at least 0; 0: works in place)\n"
    "      --fixed F1,...    each device's transfers sent whole once per slice (the\n"
    "                        inputs every slice needs), in seconds (at least 0)\n"
    "      --overlap O1,...  1: the device pipelines its transfers with its kernels,\n"
    "                        0: one after the other (default 0)\n"
    "      --pieces P1,...   pieces the whole problem moves in when overlapped (adds\n"
    "                        one piece of the shorter stream; default 0: none)\n"
    "      --margin M        split only when predicted at least M faster than the\n"
    "                        fastest device alone (default 0.1: 10%)\n"
    "  -n, --names A,B,...   names for the devices in the output (default: indices)\n"
    "  -q, --quiet           accepted as every command accepts it: this one shows no\n"
    "                        progress and no notes (errors still go to stderr)\n"
    "  -v, --verbose         say each step of the plan on stderr: Eq. 4's factors,\n"
    "                        Eq. 6-7's groups, the residue (Eq. 8-9), the slices,\n"
    "                        Algorithm 1's time and, with the bus, the decision\n"
    "\n"
    "The lists must have one entry per device, in the same order. Output: per device\n"
    "its work-group size, time, optimal factor (Eq. 4), adjusted factor (owned\n"
    "work-items / G, as the paper's Table 3), slice offset and size in work-items,\n"
    "work-groups, and owned range; then the residue device, the overlap (work-items\n"
    "computed twice, or past G), the theoretical time max_i(S_i*t_i) (Algorithm 1),\n"
    "the same with the slices as launched, and the model's time of those slices\n"
    "(max_i a_i + (t_i - a_i)*size_i/G; the same as the previous without overheads).\n"
    "\n"
    "The bus. Any of --xfer, --fixed, --overlap, --pieces or --margin plans each\n"
    "device's busy time instead of its kernel time: --times (and --overheads) are then\n"
    "the kernels' alone, and device i with share S is busy\n"
    "  F_i + a_i + S*(t_i - a_i + X_i)                   without overlap,\n"
    "  F_i + a_i + m_i/P_i + S*max(t_i - a_i, X_i)       with overlap,\n"
    "m_i = min(t_i - a_i, X_i) (no m_i/P_i term when P_i = 0). The plan balances these\n"
    "(the time and overhead columns and JSON fields become the busy model's). Besides\n"
    "the paper's figures (Algorithm 1 stays on the kernel times) it prints each\n"
    "device's busy time alone and on its slice, the transfer-aware bound (the best any\n"
    "split of these devices can reach with these kernels and links: the work divided\n"
    "continuously, every device that gets work finishing together, never above the\n"
    "fastest device alone) and the decision: split when the plan as launched is\n"
    "predicted at least 1 + M times faster than the fastest device's busy time alone,\n"
    "else run that device alone. JSON then adds per device kernel_time, xfer, fixed,\n"
    "overlap, pieces, busy_alone_s, busy_s and bound_share, and bus_bound_s,\n"
    "kernel_theoretical_time and decision {choice, device, alone_s, split_s, speedup,\n"
    "margin}.\n"
    "\n"
    "exit status: 0 success, 1 out of memory, 2 bad input\n";

enum { OPT_RESIDUE = CLI_OPT_OWN, OPT_XFER, OPT_FIXED, OPT_OVERLAP, OPT_PIECES, OPT_MARGIN };

static const struct option own[] = {
    {"global", required_argument, NULL, 'g'}, {"wg", required_argument, NULL, 'w'},
    {"times", required_argument, NULL, 't'}, {"factors", required_argument, NULL, 'f'},
    {"overheads", required_argument, NULL, 'a'}, {"names", required_argument, NULL, 'n'},
    {"residue", required_argument, NULL, OPT_RESIDUE}, {"xfer", required_argument, NULL, OPT_XFER},
    {"fixed", required_argument, NULL, OPT_FIXED}, {"pieces", required_argument, NULL, OPT_PIECES},
    {"overlap", required_argument, NULL, OPT_OVERLAP},
    {"margin", required_argument, NULL, OPT_MARGIN},
    {NULL, 0, NULL, 0},
};

/* Parses a positive decimal integer of at most max. Returns 0 on success. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (!*s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end || v == 0 || v > max)
        return -1;
    *out = v;
    return 0;
}

/* Parses a finite number; positive when strict, else not negative. Returns 0 on success. */
static int parse_double(const char *s, int strict, double *out)
{
    char *end;
    double v;

    if (!*s)
        return -1;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || (strict ? !(v > 0) : !(v >= 0)))
        return -1;
    *out = v;
    return 0;
}

/* The kinds of entries a list option holds, and what its message says of a bad one. */
enum kind { K_WG, K_TIME, K_FACTOR, K_OVERHEAD, K_SECONDS, K_FLAG, K_COUNT, K_NAME };
static const char *const kind_want[] = {
    [K_WG] = "is not a positive integer",
    [K_TIME] = "is not a positive, finite number of seconds",
    [K_FACTOR] = "is not a finite number of at least 0",
    [K_OVERHEAD] = "is not a number of seconds of at least 0 and below the time",
    [K_SECONDS] = "is not a finite number of seconds of at least 0",
    [K_FLAG] = "is not 0 or 1",
    [K_COUNT] = "is not an integer of at least 0",
    [K_NAME] = "is not a name (empty)",
};

/* One list option, "V1,V2,...", one entry per device: where its entries go (entry i at
 * base + i * stride) once split in place (arg lives in argv). */
struct list {
    const char *opt;
    enum kind kind;
    char *arg;                  /* NULL when not given */
    char **items;               /* n, owned (free) */
    size_t n;
    void *base;
    size_t stride;
};

/* Splits l->arg at its commas. Returns 0, or -1 when out of memory. */
static int list_split(struct list *l)
{
    size_t n = 1;

    for (const char *p = l->arg; *p; p++)
        n += *p == ',';
    l->items = malloc(n * sizeof *l->items);
    if (!l->items)
        return -1;
    l->n = 0;
    for (char *p = l->arg;;) {
        char *comma = strchr(p, ',');
        l->items[l->n++] = p;
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return 0;
}

/* Parses entry i of l into its place; time is the device's time (K_OVERHEAD) and
 * time_text its text. Returns 0, or 2 after the message. */
static int list_entry(const char *cmd, const struct list *l, size_t i, double time,
                      const char *time_text)
{
    void *at = (char *)l->base + i * l->stride;
    const char *v = l->items[i];
    uint64_t u = 0;
    int ok;

    switch (l->kind) {
    case K_WG: ok = !parse_u64(v, UINT64_MAX, at); break;
    case K_TIME: ok = !parse_double(v, 1, at); break;
    case K_OVERHEAD: ok = !parse_double(v, 0, at) && *(double *)at < time; break;
    case K_FLAG:
        ok = !strcmp(v, "0") || !strcmp(v, "1");
        *(int *)at = *v == '1';
        break;
    case K_COUNT:
        ok = !strcmp(v, "0") || !parse_u64(v, UINT64_MAX, &u);
        *(uint64_t *)at = u;
        break;
    case K_NAME: ok = *v != '\0'; break;
    default: ok = !parse_double(v, 0, at); break;
    }
    if (ok)
        return 0;
    return cli_usage_error(cmd, 2, "%s: entry %zu '%s' %s%s%s", l->opt, i + 1, v,
                           kind_want[l->kind], l->kind == K_OVERHEAD ? " " : "",
                           l->kind == K_OVERHEAD ? time_text : "");
}

/* The device's label in the text table: its name, or its index. */
static const char *label(char **names, size_t i, char *buf, size_t size)
{
    if (names)
        return names[i];
    snprintf(buf, size, "%zu", i);
    return buf;
}

static void print_bus_text(const struct ht_split_plan *p, char **names,
                           const struct ht_workflow_plan_result *bv,
                           const struct ht_split_bus *bus, int w)
{
    char buf[32];

    printf("\nthe bus: busy(S) = fixed + S*slope per device; alone = busy(1)\n");
    printf("%-*s %11s %11s %11s %7s %7s %11s %11s %9s\n", w, "device", "kernel (s)",
           "xfer (s)", "fixed (s)", "overlap", "pieces", "alone (s)", "busy (s)", "bound");
    for (size_t i = 0; i < p->ndevices; i++) {
        const struct ht_split_bus *b = &bus[i];
        printf("%-*s %11.6g %11.6g %11.6g %7s %7" PRIu64 " %11.6g %11.6g %9.6f\n", w,
               label(names, i, buf, sizeof buf), b->kernel_s, b->xfer_s, b->fixed_s,
               b->overlap ? "yes" : "no", b->pieces, p->slices[i].time_s,
               p->slices[i].model_s, bv->shares[i]);
    }
    printf("\ntransfer-aware bound:           %.6g s\n", bv->bound_s);
    printf("fastest alone:                  %.6g s (%s)\n", bv->dec.alone_s,
           label(names, bv->dec.fastest, buf, sizeof buf));
    if (bv->dec.split)
        printf("decision: split (the plan by the model is %.3fx the fastest alone, at least "
               "%.3fx)\n", bv->dec.speedup, 1 + bv->margin);
    else if (p->ndevices == 1)
        printf("decision: alone on %s (one device: nothing to split)\n",
               label(names, bv->dec.fastest, buf, sizeof buf));
    else
        printf("decision: alone on %s (the plan by the model is %.3fx the fastest alone, "
               "below %.3fx)\n", label(names, bv->dec.fastest, buf, sizeof buf),
               bv->dec.speedup, 1 + bv->margin);
}

static void print_text(const struct ht_split_plan *p, char **names, const struct ht_workflow_plan_result *bv,
                       const struct ht_split_bus *bus)
{
    char buf[32];
    int w = 6;

    for (size_t i = 0; names && i < p->ndevices; i++)
        if ((int)strlen(names[i]) > w)
            w = (int)strlen(names[i]);
    printf("global: %" PRIu64 " work-items, %zu device%s\n\n", p->global, p->ndevices,
           p->ndevices == 1 ? "" : "s");
    printf("%-*s %8s %12s %9s %9s %10s %10s %8s  %s\n", w, "device", "wg", "time (s)",
           "optimal", "adjusted", "offset", "size", "groups", "owns");
    for (size_t i = 0; i < p->ndevices; i++) {
        const struct ht_split_slice *s = &p->slices[i];
        printf("%-*s %8" PRIu64 " %12.6g %9.6f %9.6f %10" PRIu64 " %10" PRIu64 " %8" PRIu64,
               w, label(names, i, buf, sizeof buf), s->wg, s->time_s, s->optimal_factor,
               s->adjusted_factor, s->offset, s->size, s->groups);
        if (s->own_size)
            printf("  [%" PRIu64 ", %" PRIu64 ")\n", s->own_offset,
                   s->own_offset + s->own_size);
        else
            printf("  (no slice)\n");
    }
    putchar('\n');
    if (p->residue_device == SIZE_MAX)
        printf("residue: none (the whole groups cover G)\n");
    else {
        printf("residue: ");
        cli_print_residue(p, names);
        putchar('\n');
    }
    printf("overlap: %" PRIu64 " work-items\n", p->overlap);
    if (p->overhang)
        printf("overhang: %" PRIu64 " work-items past G (no device can end at G: pad the "
               "buffers)\n", p->overhang);
    if (!bv) {
        printf("theoretical time (Algorithm 1): %.6g s\n", p->theoretical_time_s);
        printf("with the adjusted slices:       %.6g s\n", p->adjusted_time_s);
        printf("by the model (overheads):       %.6g s\n", p->model_time_s);
        return;
    }
    printf("theoretical time (Algorithm 1): %.6g s (kernels only)\n",
           bv->kernel_theoretical_s);
    printf("with the adjusted slices:       %.6g s (busy times)\n", p->adjusted_time_s);
    printf("by the model (busy):            %.6g s\n", p->model_time_s);
    print_bus_text(p, names, bv, bus, w);
}

/* -v: the steps of the plan (paper §2.2) on stderr, each from the numbers the planner
 * left in r, names labelling the devices (NULL: their indices). */
static void print_steps(const struct ht_workflow_plan_result *r, char **names, int given,
                        int verbose)
{
    const struct ht_split_plan *p = &r->plan;
    char label[64];
    int affine = r->bus != 0;

    /* With overheads or a bus the shares balance an affine model: Eq. 4 only without. */
    for (size_t i = 0; i < p->ndevices; i++)
        affine |= p->slices[i].overhead_s > 0;

    for (size_t i = 0; verbose && i < p->ndevices; i++) {
        const struct ht_split_slice *s = &p->slices[i];
        if (names)
            snprintf(label, sizeof label, "%.60s", names[i]);
        else
            snprintf(label, sizeof label, "%zu", i);
        if (given)
            cli_verbose("plan", 1, "device %s: factor S = %.6g (given)", label,
                        s->optimal_factor);
        else if (affine)
            cli_verbose("plan", 1, "device %s: S = %.6g, the share with which every device's "
                        "%s (%.6g s alone, %.6g s of it overhead) ends together", label,
                        s->optimal_factor, r->bus ? "busy time" : "time", s->time_s,
                        s->overhead_s);
        else
            cli_verbose("plan", 1, "device %s: Eq. 4: S = (1/%.6g s) / sum(1/t) = %.6g",
                        label, s->time_s, s->optimal_factor);
        cli_verbose("plan", 1, "device %s: Eq. 6-7: gamma = G*S/wg = %" PRIu64 "*%.6g/%"
                    PRIu64 " = %.6g, floor %" PRIu64 " groups", label, p->global,
                    s->optimal_factor, s->wg, s->gamma, s->base_groups);
    }
    if (!verbose)
        return;
    cli_verbose("plan", 1, "Eq. 8: residue R = G - sum(wg*floor) = %" PRIu64 " work-items",
                p->residue);
    if (p->residue_device != SIZE_MAX)
        cli_verbose("plan", 1, "Eq. 9: device %zu takes %" PRIu64 " more group%s",
                    p->residue_device, p->slices[p->residue_device].extra_groups,
                    p->slices[p->residue_device].extra_groups == 1 ? "" : "s");
    for (size_t i = 0; i < p->ndevices; i++) {
        const struct ht_split_slice *s = &p->slices[i];
        cli_verbose("plan", 1, "device %zu: slice [%" PRIu64 ", %" PRIu64 "), %" PRIu64
                    " groups, reads back [%" PRIu64 ", %" PRIu64 ")", i, s->offset,
                    s->offset + s->size, s->groups, s->own_offset,
                    s->own_offset + s->own_size);
    }
    cli_verbose("plan", 1, "Algorithm 1: max_i(S_i*t_i) = %.6g s",
                r->bus ? r->kernel_theoretical_s : p->theoretical_time_s);
    if (r->bus)
        cli_verbose("plan", 1, "the bus: split %.6g s against %.6g s alone on device %zu, "
                    "margin %.6g: %s", r->dec.split_s, r->dec.alone_s, r->dec.fastest,
                    r->margin, r->dec.split ? "split" : "alone");
}

int cmd_plan(int argc, char **argv)
{
    enum { L_WG, L_TIMES, L_FACTORS, L_OVERHEADS, L_XFER, L_FIXED, L_OVERLAP, L_PIECES,
           L_NAMES, NLISTS };
    const char *cmd = "plan";
    struct list lists[NLISTS] = {
        [L_WG] = {.opt = "--wg", .kind = K_WG},
        [L_TIMES] = {.opt = "--times", .kind = K_TIME},
        [L_FACTORS] = {.opt = "--factors", .kind = K_FACTOR},
        [L_OVERHEADS] = {.opt = "--overheads", .kind = K_OVERHEAD},
        [L_XFER] = {.opt = "--xfer", .kind = K_SECONDS},
        [L_FIXED] = {.opt = "--fixed", .kind = K_SECONDS},
        [L_OVERLAP] = {.opt = "--overlap", .kind = K_FLAG},
        [L_PIECES] = {.opt = "--pieces", .kind = K_COUNT},
        [L_NAMES] = {.opt = "--names", .kind = K_NAME},
    };
    char *garg = NULL, *marg = NULL;
    size_t n = 0;
    struct ht_split_plan_opts popts = {0};
    struct ht_workflow_plan_opts wopts = {0};
    struct ht_split_device_in *devs = NULL;
    struct ht_split_bus *bus = NULL;
    struct ht_workflow_plan_result res = {0};
    double *factors = NULL, margin = HT_SPLIT_MARGIN_DEFAULT;
    struct ht_error err;
    uint64_t global = 0;
    int json = 0, c, status = 0, with_bus = 0, mismatch = 0;
    struct cli_common co;

    ht_error_clear(&err);
    cli_common_init(&co, cmd, plan_usage, CLI_F_JSON | CLI_F_QUIET | CLI_F_VERBOSE, own);
    co.own_help = CLI_F_QUIET | CLI_F_VERBOSE;
    while ((c = cli_getopt(&co, argc, argv)) != -1) {
        switch (c) {
        case 'g': garg = optarg; break;
        case 'w': lists[L_WG].arg = optarg; break;
        case 't': lists[L_TIMES].arg = optarg; break;
        case 'f': lists[L_FACTORS].arg = optarg; break;
        case 'n': lists[L_NAMES].arg = optarg; break;
        case 'a': lists[L_OVERHEADS].arg = optarg; break;
        case OPT_XFER: lists[L_XFER].arg = optarg; with_bus = 1; break;
        case OPT_FIXED: lists[L_FIXED].arg = optarg; with_bus = 1; break;
        case OPT_OVERLAP: lists[L_OVERLAP].arg = optarg; with_bus = 1; break;
        case OPT_PIECES: lists[L_PIECES].arg = optarg; with_bus = 1; break;
        case OPT_MARGIN: marg = optarg; with_bus = 1; break;
        case OPT_RESIDUE:
            if (cli_parse_residue(cmd, optarg, &popts.residue))
                return 2;
            break;
        default:
            if ((status = cli_common_option(&co, c, optarg, argv)) != CLI_CONTINUE)
                return status;
        }
    }
    json = co.json;
    status = 0;
    if (cli_no_args(cmd, argc, argv) != 0)
        return 2;
    if (!garg || !lists[L_WG].arg || !lists[L_TIMES].arg)
        return cli_usage_error(cmd, 2, "--global, --wg and --times are all needed "
                                       "(see 'hetune plan --help')");
    if (parse_u64(garg, UINT64_C(1) << 53, &global))
        return cli_usage_error(cmd, 2, "--global %s: want a positive integer of at most 2^53",
                               garg);
    if (marg && parse_double(marg, 0, &margin))
        return cli_usage_error(cmd, 2, "--margin %s: want a finite number of at least 0",
                               marg);

    for (int k = 0; k < NLISTS; k++) {
        if (lists[k].arg && list_split(&lists[k])) {
            status = cli_usage_error(cmd, 1, "out of memory");
            goto cleanup;
        }
        mismatch |= lists[k].arg && lists[k].n != lists[L_WG].n;
    }
    n = lists[L_WG].n;
    if (mismatch) {
        char more[320] = "";
        int len = 0;
        for (int k = L_FACTORS; k < NLISTS; k++)
            if (lists[k].arg)
                len += snprintf(more + len, sizeof more - (size_t)len, ", %s %zu",
                                lists[k].opt, lists[k].n);
        status = cli_usage_error(cmd, 2, "the lists need one entry per device: --wg has %zu, "
                                 "--times %zu%s", n, lists[L_TIMES].n, more);
        goto cleanup;
    }
    devs = calloc(n, sizeof *devs);
    factors = calloc(n, sizeof *factors);
    bus = calloc(n, sizeof *bus);
    if (!devs || !factors || !bus) {
        status = cli_usage_error(cmd, 1, "out of memory");
        goto cleanup;
    }
    lists[L_WG].base = &devs->wg;
    lists[L_TIMES].base = &devs->time_s;
    lists[L_OVERHEADS].base = &devs->overhead_s;
    lists[L_WG].stride = lists[L_TIMES].stride = lists[L_OVERHEADS].stride = sizeof *devs;
    lists[L_FACTORS].base = factors;
    lists[L_FACTORS].stride = sizeof *factors;
    lists[L_XFER].base = &bus->xfer_s;
    lists[L_FIXED].base = &bus->fixed_s;
    lists[L_OVERLAP].base = &bus->overlap;
    lists[L_PIECES].base = &bus->pieces;
    for (int k = L_XFER; k <= L_PIECES; k++)
        lists[k].stride = sizeof *bus;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < NLISTS; k++)
            if (lists[k].arg && (status = list_entry(cmd, &lists[k], i, devs[i].time_s,
                                                     lists[L_TIMES].items[i])) != 0)
                goto cleanup;
        bus[i].kernel_s = devs[i].time_s;
        bus[i].overhead_s = devs[i].overhead_s;
    }

    if (lists[L_FACTORS].arg) {
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += factors[i];
        if (!(sum > 0) || !isfinite(sum)) {
            status = cli_usage_error(cmd, 2, "--factors: want at least one positive factor "
                                     "and a finite sum");
            goto cleanup;
        }
        popts.factors = factors;
    }
    wopts.plan = &popts;
    wopts.bus = with_bus ? bus : NULL;
    wopts.margin = margin;
    if (ht_workflow_plan(global, devs, n, &wopts, &res, &err)) {
        status = cli_fail(cmd, &err);
        goto cleanup;
    }
    print_steps(&res, lists[L_NAMES].items, lists[L_FACTORS].arg != NULL, co.verbose);
    if (json) {
        char *text = NULL;
        int rc = ht_present_plan_json(&res, bus, lists[L_NAMES].items, &text, &err);
        status = cli_json_text(cmd, rc, text);
        free(text);
    } else
        print_text(&res.plan, lists[L_NAMES].items, with_bus ? &res : NULL, bus);

cleanup:
    ht_workflow_plan_result_destroy(&res);
    free(devs);
    free(bus);
    free(factors);
    for (int k = 0; k < NLISTS; k++)
        free(lists[k].items);
    return status;
}
