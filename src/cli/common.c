/* The option, argument, spec and device handling that every subcommand shares. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define CLI_SHARED_ENTRY(name, l, has, v, help) {{l, has, NULL, v}, help},
static const struct {
    struct option opt;
    const char *help;
} shared[] = {CLI_SHARED_OPTIONS(CLI_SHARED_ENTRY)};
#define CLI_SHORT_ENTRY(c, l) {c, l},
static const struct {
    int c;
    const char *name;
} shorts[] = {CLI_SHORT_OPTIONS(CLI_SHORT_ENTRY)};
static const struct option help_option = {"help", no_argument, NULL, 'h'};

/* Adds o to co's tables; a short option must be o's in CLI_SHORT_OPTIONS. */
static void add_option(struct cli_common *co, const struct option *o, size_t *n)
{
    size_t k = 0, len = strlen(co->shortopts);

    co->longopts[(*n)++] = *o;
    if (o->val >= 0x100)
        return;
    while (k < sizeof shorts / sizeof shorts[0] && shorts[k].c != o->val)
        k++;
    if (k == sizeof shorts / sizeof shorts[0] || strcmp(shorts[k].name, o->name)) {
        fprintf(stderr, "hetune %s: -%c, --%s is not in CLI_SHORT_OPTIONS\n", co->cmd, o->val,
                o->name);
        abort();
    }
    co->shortopts[len++] = (char)o->val;
    if (o->has_arg == required_argument)
        co->shortopts[len++] = ':';
}

void cli_common_init(struct cli_common *co, const char *cmd, const char *usage, unsigned flags,
                     const struct option *own)
{
    size_t n = 0;

    memset(co, 0, sizeof *co);
    co->cmd = cmd;
    co->usage = usage;
    co->flags = flags;
    co->db = HT_STORE_DEFAULT_PATH;
    ht_exec_opts_init(&co->exec);
    co->shortopts[0] = ':';
    for (; own && own->name; own++)
        add_option(co, own, &n);
    for (size_t i = 0; i < CLI_NSHARED; i++)
        if (flags & (1u << i))
            add_option(co, &shared[i].opt, &n);
    add_option(co, &help_option, &n);
    opterr = 0;
    optind = 1;
}

int cli_getopt(struct cli_common *co, int argc, char **argv)
{
    return getopt_long(argc, argv, co->shortopts, co->longopts, NULL);
}

/* --help: the usage with the help of the shared options added at the end of its options. */
static void print_usage(const struct cli_common *co)
{
    const char *opts = strstr(co->usage, "options:\n");
    const char *end = opts ? strstr(opts, "\n\n") : NULL;
    int n = end ? (int)(end - co->usage) + 1 : (int)strlen(co->usage);

    printf("%.*s", n, co->usage);
    for (size_t i = 0; end && i < CLI_NSHARED; i++)
        if ((co->flags & ~co->own_help & (1u << i)) && shared[i].help)
            fputs(shared[i].help, stdout);
    if (end)
        printf("  -h, --help            show this help\n%s", end + 1);
}

void cli_log_stderr(int level, const char *msg, void *user)
{
    (void)level;
    fprintf(stderr, "hetune %s: %s\n", (const char *)user, msg);
}

int cli_common_option(struct cli_common *co, int c, const char *arg, char **argv)
{
    const char *cmd = co->cmd;
    struct ht_workflow_split_opts *wo = co->split;
    uint64_t u = 0;
    int status = 0;
    char *end;
    double v;

    switch (c) {
    case 'd': co->device = (char *)arg; break;
    case 'S':
        if (!ht_search_find(arg)) {
            fprintf(stderr, "hetune %s: unknown strategy '%s'; the strategies are:", cmd, arg);
            for (size_t i = 0; ht_search_strategies[i]; i++)
                fprintf(stderr, " %s", ht_search_strategies[i]->name);
            fputc('\n', stderr);
            return 2;
        }
        co->strategy = arg;
        break;
    case 'b':
        status = cli_parse_uint(cmd, "--budget", arg, UINT32_MAX, &u);
        co->budget = (size_t)u;
        break;
    case CLI_OPT_JOBS:
        /* 0 is not a value: the range said is the one taken. */
        if (cli_parse_uint(cmd, NULL, arg, 1024, &u) != 0 || u < 1)
            status = cli_usage_error(cmd, 2, "--jobs takes 1 to 1024, not '%s'", arg);
        co->jobs = (unsigned)u;
        break;
    case CLI_OPT_SIZE: {
        struct ht_size_override *grown;
        const char *name;
        size_t len;
        int64_t value;
        struct ht_error err;

        ht_error_clear(&err);
        if (ht_parse_assignment(arg, &name, &len, &value, &err) != 0)
            return cli_usage_error(cmd, 2, "--size %s: %s", arg, err.text);
        grown = realloc(co->sizes, (co->nsizes + 1) * sizeof *grown);
        if (!grown)
            return cli_usage_error(cmd, 1, "out of memory");
        co->sizes = grown;
        /* The name points into argv, which lives as long as the process; cut it at '='. */
        ((char *)name)[len] = '\0';
        grown[co->nsizes].name = name;
        grown[co->nsizes++].value = value;
        break;
    }
    case CLI_OPT_DB: co->db = arg; break;
    case CLI_OPT_EQ3:
        if (ht_eq3_parse(arg, &co->exec.eq3) != HT_OK)
            status = cli_usage_error(cmd, 2, "--eq3 takes product, sum or off, not '%s'", arg);
        break;
    case CLI_OPT_NO_CACHE: co->exec.no_cache = 1; break;
    case CLI_OPT_CACHE_DIR: co->exec.cache_dir = arg; break;
    case CLI_OPT_DATA_PATH:
        status = cli_parse_data_path(cmd, "--data-path", arg, &co->exec.data_path);
        break;
    case CLI_OPT_JSON: co->json = 1; break;
    case 'q':
        if (co->verbose)
            return cli_usage_error(cmd, 2, "-q and -v do not go together");
        co->quiet = 1;
        /* The worker processes print nothing either (a kernel's printf, the driver). */
        setenv("HETUNE_QUIET", "1", 1);
        break;
    case 'v':
        if (co->quiet)
            return cli_usage_error(cmd, 2, "-q and -v do not go together");
        /* The worker processes of isolated sessions log on their own stderr (ht_set_log). */
        co->verbose = 1;
        ht_set_log(cli_log_stderr, (void *)co->cmd);
        setenv("HETUNE_VERBOSE", "1", 1);
        break;
    case CLI_OPT_TIMEOUT: status = cli_parse_seconds(cmd, "--timeout", arg, &co->exec.timeout_s); break;
    case CLI_OPT_NO_ISOLATE: co->exec.isolate = HT_ISOLATE_OFF; break;
    case CLI_OPT_NO_PREDICT: wo->no_predict = 1; break;
    case CLI_OPT_REPEATS:
        if (cli_parse_uint(cmd, NULL, arg, HT_MAX_REPEATS, &u) != 0 || u == 0)
            status = cli_usage_error(cmd, 2, "--repeats takes an integer from 1 to %d, not '%s'",
                                     HT_MAX_REPEATS, arg);
        co->repeats = (unsigned)u;
        if (wo)
            wo->coexec.repeats = co->repeats;
        break;
    /* The co-execution options of split and run go into co->split. */
    case CLI_OPT_SWEEP:
        errno = 0;
        v = strtod(arg, &end);
        if (errno || end == arg || *end || ht_workflow_sweep_points(v) == 0)
            return cli_usage_error(cmd, 2, "--sweep takes a step in (0, 1] (at most 10000 "
                                           "points), not '%s'", arg);
        wo->sweep = v;
        break;
    case CLI_OPT_RESIDUE: status = cli_parse_residue(cmd, arg, &wo->coexec.sched.residue); break;
    case CLI_OPT_REFINE:
        status = cli_parse_uint(cmd, "--refine", arg, 20, &u);
        wo->refine = (unsigned)u;
        break;
    case CLI_OPT_REFINE_BY:
        if (strcmp(arg, "wall") && strcmp(arg, "kernel"))
            return cli_usage_error(cmd, 2, "--refine-by takes wall or kernel, not '%s'", arg);
        wo->refine_by = !strcmp(arg, "wall") ? HT_REFINE_WALL : HT_REFINE_KERNEL;
        break;
    case CLI_OPT_PLAN:
        if (strcmp(arg, "bus") && strcmp(arg, "paper"))
            return cli_usage_error(cmd, 2, "--plan takes bus or paper, not '%s'", arg);
        wo->paper_plan = !strcmp(arg, "paper");
        break;
    case CLI_OPT_MARGIN:
        v = strtod(arg, &end);
        if (end == arg || *end || !(v >= 0 && v < 100))
            return cli_usage_error(cmd, 2, "--margin takes a number from 0 up to (not "
                                   "including) 100, not '%s'", arg);
        wo->coexec.margin = v;
        break;
    case CLI_OPT_CPU_UNITS:
        if (!(wo->dop = !strcmp(arg, "auto")))
            status = cli_parse_uint(cmd, "--cpu-units", arg, 65536, &u);
        wo->coexec.cpu_units = (unsigned)u;
        break;
    case CLI_OPT_PIECE_BYTES:
        status = cli_parse_uint(cmd, "--piece-bytes", arg, UINT64_MAX - 1, &u);
        wo->coexec.piece_bytes = u ? u : UINT64_MAX;
        break;
    case 'h':
        print_usage(co);
        return 0;
    default:
        return cli_getopt_error(cmd, c, argv);
    }
    return status ? status : CLI_CONTINUE;
}

int cli_common_spec(struct cli_common *co, int argc, char **argv, struct ht_spec **spec)
{
    struct ht_error err;
    int rc;

    if (cli_spec_arg(co->cmd, argc, argv) != 0)
        return 2;
    ht_error_clear(&err);
    rc = ht_spec_load(argv[optind], co->sizes, co->nsizes, spec, &err);
    if (rc == HT_OK)
        return 0;
    cli_fail(co->cmd, &err);
    /* An unreadable spec is bad input too; only running out of memory is not. */
    return rc == HT_ENOMEM ? 1 : 2;
}

void cli_common_free(struct cli_common *co)
{
    free(co->sizes);
    co->sizes = NULL;
}

static volatile sig_atomic_t *sigint_flag;

static void on_sigint(int sig)
{
    (void)sig;
    *sigint_flag = 1;
}

void cli_sigint_catch(struct cli_sigint *s, volatile sig_atomic_t *flag)
{
    struct sigaction sa;

    s->held = 0;
    *flag = 0;
    sigint_flag = flag;
    if (sigaction(SIGINT, NULL, &s->old) == 0 && s->old.sa_handler != SIG_IGN) {
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigint;
        /* SA_RESETHAND: a second Ctrl-C kills. */
        sa.sa_flags = SA_RESETHAND | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        s->held = sigaction(SIGINT, &sa, NULL) == 0;
        s->held_term = sigaction(SIGTERM, &sa, &s->old_term) == 0;
    }
}

void cli_sigint_release(struct cli_sigint *s)
{
    if (s->held)
        sigaction(SIGINT, &s->old, NULL);
    if (s->held_term)
        sigaction(SIGTERM, &s->old_term, NULL);
    s->held = s->held_term = 0;
}

void cli_device_wait(const struct ht_device_info *d, const char *path, long holder,
                     void *user)
{
    struct cli_waiter *w = user;
    char who[64] = "another process";

    w->waiting = path != NULL;
    if (!path)
        return; /* the wait ended */
    if (d->index < 64) {
        if (w->told & (UINT64_C(1) << d->index))
            return;
        w->told |= UINT64_C(1) << d->index;
    }
    if (holder > 0)
        snprintf(who, sizeof who, "process %ld", holder);
    if (!w->quiet)
        fprintf(stderr, "hetune %s: device %zu is being measured by %s (lock %s); waiting, "
                "so that neither skews the other's times (Ctrl-C stops)\n", w->cmd,
                d->index, who, path);
}

void cli_load_notice(const char *cmd, const struct ht_load *load, int quiet)
{
    char line[1024];

    /* Only tune has an option to measure again what it stored: --fresh. */
    if (!quiet && ht_present_load_sentence(load, line, sizeof line))
        fprintf(stderr, "hetune %s: %s%s\n", cmd, line,
                strcmp(cmd, "tune") ? "" : ", with --fresh");
}

struct store_notice {
    const char *cmd;
    int quiet;
};

static void on_store_wait(const char *path, double waited_s, void *user)
{
    const struct store_notice *n = user;

    if (!n->quiet)
        fprintf(stderr, "hetune %s: waiting for the lock of the database %s, held by "
                "another process for %.0f s (another hetune, or a program writing it); "
                "Ctrl-C stops\n", n->cmd, path, waited_s);
}

static void on_store_note(const char *path, const char *note, void *user)
{
    const struct store_notice *n = user;

    if (!n->quiet)
        fprintf(stderr, "hetune %s: note: %s: %s\n", n->cmd, path, note);
}

void cli_store_opts(const char *cmd, int readonly, volatile sig_atomic_t *stop, int quiet,
                    struct ht_store_opts *o)
{
    /* Static: the callbacks outlive this call (they run on later waits of the store), and
     * a command opens one database at a time. */
    static struct store_notice n;

    n.cmd = cmd;
    n.quiet = quiet;
    ht_store_opts_init(o);
    o->readonly = readonly;
    o->stop = stop;
    o->on_wait = on_store_wait;
    o->on_note = on_store_note;
    o->user = &n;
    /* $HETUNE_DB_TIMEOUT: the longest wait for another process's lock, in seconds (a
     * script that would rather fail soon than wait the default 30 s). */
    if (getenv("HETUNE_DB_TIMEOUT")) {
        char *end;
        double v = strtod(getenv("HETUNE_DB_TIMEOUT"), &end);
        if (end != getenv("HETUNE_DB_TIMEOUT") && !*end && v > 0.0 && isfinite(v))
            o->busy_timeout_s = v;
        else
            fprintf(stderr, "hetune %s: HETUNE_DB_TIMEOUT='%s' is not a positive number of "
                    "seconds: the default %.0f s applies\n", cmd, getenv("HETUNE_DB_TIMEOUT"),
                    HT_STORE_BUSY_TIMEOUT_S);
    }
}

int cli_store_open(const char *cmd, const char *db, int readonly, volatile sig_atomic_t *stop,
                   int quiet, struct ht_store **out, struct ht_error *err)
{
    struct ht_store_opts o;

    cli_store_opts(cmd, readonly, stop, quiet, &o);
    return ht_store_open_opts(db, &o, out, err);
}

int cli_getopt_error(const char *cmd, int c, char **argv)
{
    if (c == ':')
        return cli_usage_error(cmd, 2, "option '%s' needs a value (see --help)",
                               argv[optind - 1]);
    return cli_usage_error(cmd, 2, "unknown option '%s' (see --help)", argv[optind - 1]);
}

int cli_spec_arg(const char *cmd, int argc, char **argv)
{
    if (optind >= argc)
        return cli_usage_error(cmd, 2, "missing SPEC (see --help)");
    if (optind + 1 < argc)
        return cli_usage_error(cmd, 2, "unexpected argument '%s' (see --help)",
                               argv[optind + 1]);
    return 0;
}

int cli_no_args(const char *cmd, int argc, char **argv)
{
    if (optind < argc)
        return cli_usage_error(cmd, 2, "unexpected argument '%s' (see --help)", argv[optind]);
    return 0;
}

int cli_parse_uint(const char *cmd, const char *opt, const char *arg, uint64_t max,
                   uint64_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(arg, &end, 10);
    if (errno || end == arg || *end || arg[0] == '-' || v > max)
        return !opt ? 2
                    : cli_usage_error(cmd, 2, "%s takes an integer from 0 to %" PRIu64
                                      ", not '%s'", opt, max, arg);
    *out = (uint64_t)v;
    return 0;
}

int cli_parse_seconds(const char *cmd, const char *opt, const char *arg, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(arg, &end);
    if (errno || end == arg || *end || !isfinite(v) || v < 0)
        return cli_usage_error(cmd, 2, "%s takes a non-negative number, not '%s'", opt, arg);
    *out = v;
    return 0;
}

int cli_parse_data_path(const char *cmd, const char *opt, const char *arg,
                        enum ht_data_path *path)
{
    if (ht_data_path_parse(arg, path) != HT_OK)
        return cli_usage_error(cmd, 2, "%s takes auto, pinned, pageable or inplace, not '%s'",
                               opt, arg);
    return 0;
}

int cli_parse_residue(const char *cmd, const char *arg, enum ht_split_residue *rule)
{
    if (ht_split_residue_parse(arg, rule) != HT_OK)
        return cli_usage_error(cmd, 2, "--residue takes work (Eq. 9), time or groups, not '%s'",
                               arg);
    return 0;
}

void cli_print_residue(const struct ht_split_plan *p, char **names)
{
    size_t takers = 0;

    for (size_t i = 0; i < p->ndevices; i++)
        takers += p->slices[i].extra_groups > 0;
    printf("%" PRIu64 " work-items, to", p->residue);
    for (size_t i = 0, first = 1; i < p->ndevices; i++) {
        if (!p->slices[i].extra_groups)
            continue;
        printf("%s device ", first ? "" : ",");
        if (names)
            printf("%s", names[i]);
        else
            printf("%zu", i);
        printf(" (+%" PRIu64 " group%s)", p->slices[i].extra_groups,
               p->slices[i].extra_groups == 1 ? "" : "s");
        first = 0;
    }
    if (takers > 1) {
        printf("; device ");
        if (names)
            printf("%s", names[p->residue_device]);
        else
            printf("%zu", p->residue_device);
        printf(" last");
    }
}

int cli_devices_range(const char *cmd, const char *device, struct ht_platform **plat,
                      size_t *first, size_t *last)
{
    struct ht_error err;
    int rc;

    ht_error_clear(&err);
    rc = *plat ? HT_OK : ht_platform_discover(plat, &err);
    if (rc != HT_OK)
        return cli_fail(cmd, &err);
    if (!strcmp(device, "all")) {
        *first = 0;
        *last = (*plat)->count;
        return 0;
    }
    rc = ht_platform_find(*plat, device, first, &err);
    if (rc != HT_OK)
        return cli_fail(cmd, &err);
    *last = *first + 1;
    return 0;
}

/* Resolves "D,D,..." or "all" into plat's device indices (*idx owned by the caller). */
static int parse_devices(const struct ht_platform *plat, char *list, size_t **idx, size_t *n,
                         struct ht_error *err)
{
    size_t cap = 1, k = 0;
    char *save = NULL, *tok;

    if (!strcmp(list, "all")) {
        *idx = malloc((plat->count ? plat->count : 1) * sizeof **idx);
        if (!*idx)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        for (size_t i = 0; i < plat->count; i++)
            (*idx)[i] = i;
        *n = plat->count;
        return plat->count ? HT_OK : ht_error_set(err, HT_ENODEVICE, "no OpenCL device");
    }
    for (const char *p = list; *p; p++)
        cap += *p == ',';
    *idx = malloc(cap * sizeof **idx);
    if (!*idx)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int rc = ht_platform_find(plat, tok, &(*idx)[k], err);
        if (rc != HT_OK)
            return rc;
        k++;
    }
    if (k == 0)
        return ht_error_set(err, HT_ENODEVICE, "--device names no device");
    *n = k;
    return HT_OK;
}

int cli_devices_list(const char *cmd, char *list, struct ht_platform **plat, size_t **idx,
                     size_t *n)
{
    struct ht_error err;
    int rc;

    ht_error_clear(&err);
    rc = ht_platform_discover(plat, &err);
    if (rc == HT_OK)
        rc = parse_devices(*plat, list ? list : "all", idx, n, &err);
    return rc == HT_OK ? 0 : cli_fail(cmd, &err);
}

void cli_verbose(const char *cmd, int verbose, const char *fmt, ...)
{
    va_list ap;

    if (!verbose)
        return;
    fprintf(stderr, "hetune %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_json_text(const char *cmd, int rc, const char *text)
{
    if (rc != HT_OK) {
        fprintf(stderr, "hetune %s: cannot write the result as JSON\n", cmd);
        return 1;
    }
    printf("%s\n", text);
    return 0;
}
