/* The hetune command-line tool: one file per subcommand, dispatched from main.c. */
#ifndef HETUNE_CLI_H
#define HETUNE_CLI_H

#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "hetune.h"

/* Each subcommand: argv[0] is the subcommand's name; returns the process exit status. */
int cmd_devices(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_space(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_split(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_import_kt(int argc, char **argv); /* cmd-interop.c */
int cmd_export(int argc, char **argv);    /* cmd-interop.c */

/* --- the options several commands share, declared once (common.c) ---
 *
 * A command names the shared options it takes by their flags (CLI_F_DEVICE | ...) and
 * lists its own in a getopt_long table (values from CLI_OPT_OWN on, or a letter of
 * CLI_SHORT_OPTIONS); cli_common_init builds the getopt tables of both, cli_getopt parses,
 * and the command hands every option its own switch does not handle to cli_common_option,
 * which also answers --help (the command's usage with the shared options' help added at
 * the end of its options), a missing value and an unknown option. */

/* Every short option of every command, each with its one meaning: X(letter, long name).
 * cli_common_init refuses a command's short option that is not here with that long name,
 * and tests/cli/options.sh checks that no letter appears twice. */
#define CLI_SHORT_OPTIONS(X)                                                                  \
    X('a', "overheads") X('b', "budget") X('d', "device") X('f', "factors") X('g', "global")   \
    X('h', "help") X('l', "list") X('n', "names") X('o', "out") X('q', "quiet")                \
    X('s', "set") X('S', "strategy") X('t', "times") X('v', "verbose") X('w', "wg")

/* The shared options: X(NAME, long name, has_arg, getopt value, help; NULL when each
 * command words its own), in the order --help lists them. */
#define CLI_SHARED_OPTIONS(X)                                                                  \
    X(DEVICE, "device", required_argument, 'd', NULL)                                          \
    X(SCHEDULER, "scheduler", required_argument, CLI_OPT_SCHEDULER, NULL)                      \
    X(SWEEP, "sweep", required_argument, CLI_OPT_SWEEP,                                        \
      "      --sweep STEP      with two devices: also run static split points from 0 to 1\n" \
      "                        by STEP (device 0's factor), each verified and stored (the\n" \
      "                        paper's Figures 6 and 7)\n")                                  \
    X(REFINE, "refine", required_argument, CLI_OPT_REFINE,                                     \
      "      --refine N        static: after the paper's plan, up to N rounds that fit each\n" \
      "                        device's time to overhead + rate*share from its kernel time\n" \
      "                        alone and on its slice in the last round, re-plan so that\n"  \
      "                        all devices finish together, and run again (verified);\n"    \
      "                        stops early when the plan no longer changes. The round with\n" \
      "                        the shortest time is shown, the best refined round stored\n"  \
      "                        as scheduler \"refined\" (default 0)\n")                      \
    X(MARGIN, "margin", required_argument, CLI_OPT_MARGIN, NULL)                               \
    X(RESIDUE, "residue", required_argument, CLI_OPT_RESIDUE,                                  \
      "      --residue work|time|groups\n"                                                     \
      "                        static: who takes the residue work-items, work (the device\n" \
      "                        that covers them with the least work, Eq. 9, default), time\n" \
      "                        (the device whose slice with them finishes first) or groups\n" \
      "                        (one group at a time, each to the device that then finishes\n" \
      "                        first)\n")                                                      \
    X(REFINE_BY, "refine-by", required_argument, CLI_OPT_REFINE_BY,                            \
      "      --refine-by wall|kernel\n"                                                        \
      "                        what --refine balances and minimizes: each device's whole\n"  \
      "                        busy time, transfers included, and the wall time (default),\n" \
      "                        or the kernel-only times (Algorithm 1's terms)\n")              \
    X(PLAN, "plan", required_argument, CLI_OPT_PLAN,                                           \
      "      --plan bus|paper  static: the plan that balances busy times, transfers\n"         \
      "                        included (default), or the paper's from the tuned times\n")    \
    X(PIECE_BYTES, "piece-bytes", required_argument, CLI_OPT_PIECE_BYTES,                      \
      "      --piece-bytes N   devices that copy move their slice in pieces of about N\n"     \
      "                        bytes on two queues (default 33554432); 0: one piece\n")       \
    X(STRATEGY, "strategy", required_argument, 'S',                                            \
      "  -S, --strategy S      the search strategy of tuning: exhaustive, random, genetic,\n" \
      "                        anneal or bayes; by default bayes for a budgeted run (a\n"     \
      "                        --budget below the valid configurations, or a time limit),\n" \
      "                        else exhaustive\n")                                            \
    X(BUDGET, "budget", required_argument, 'b',                                                \
      "  -b, --budget N        evaluate at most N configurations per device tuned in this\n"  \
      "                        run (stored ones do not count; default 0: no limit)\n")        \
    X(JOBS, "jobs", required_argument, CLI_OPT_JOBS,                                           \
      "      --jobs N          build the next N configurations in N worker processes while\n" \
      "                        the device measures one (default: one per online core, but\n" \
      "                        none on a CPU device of fewer than 8 cores; on a CPU device\n" \
      "                        the builds pause while it times runs; 1: no building ahead).\n" \
      "                        A search then proposes without the results of those still\n" \
      "                        building (docs/guide.md)\n")                                 \
    X(REPEATS, "repeats", required_argument, CLI_OPT_REPEATS,                                  \
      "      --repeats N       timed runs of each co-execution (default: the spec's\n"        \
      "                        timing.repeats)\n")                                            \
    X(DB, "db", required_argument, CLI_OPT_DB,                                                 \
      "      --db FILE         the results database (default ./hetune.db)\n")                 \
    X(SIZE, "size", required_argument, CLI_OPT_SIZE,                                           \
      "      --size NAME=VALUE override a problem size of the spec\n")                        \
    X(EQ3, "eq3", required_argument, CLI_OPT_EQ3,                                              \
      "      --eq3 product|sum|off\n"                                                          \
      "                        Eq. 3, work-groups >= compute units, counts them as the\n"    \
      "                        product over the dimensions (default, the total), the\n"     \
      "                        paper's sum, or is off\n")                                    \
    X(CPU_UNITS, "cpu-units", required_argument, CLI_OPT_CPU_UNITS,                            \
      "      --cpu-units N|auto\n"                                                             \
      "                        co-execute on N compute units of each CPU device that can be\n" \
      "                        partitioned (a sub-device; Dopia's degree of parallelism),\n"   \
      "                        or (split) auto: the whole split at all, all but one, 3/4,\n"  \
      "                        1/2 and 1/4 of them, the fastest kept (default: all)\n")      \
    X(DATA_PATH, "data-path", required_argument, CLI_OPT_DATA_PATH,                            \
      "      --data-path P     how buffers meet host memory: auto (default: in place on CPU\n" \
      "                        devices, pinned memory elsewhere), pinned, pageable (plain\n"  \
      "                        memory, the old path), inplace\n")                             \
    X(TIMEOUT, "timeout", required_argument, CLI_OPT_TIMEOUT,                                  \
      "      --timeout S       stop a configuration after S seconds and store it as timeout;\n" \
      "                        in split and run, also a device's part of a co-execution\n"  \
      "                        (0, the default: automatic, 10 times the longest so far, at\n" \
      "                        least 10 s, and 120 s for the first, so a first configuration\n" \
      "                        that hangs costs 120 s); the reference outputs, computed once\n" \
      "                        before the first, have their own limit (1800 s, or S if\n"    \
      "                        longer)\n")                                                    \
    X(NO_ISOLATE, "no-isolate", no_argument, CLI_OPT_NO_ISOLATE,                               \
      "      --no-isolate      run configurations in this process, not in a worker that a\n"  \
      "                        crash or a hang cannot take down; in split and run, also\n"   \
      "                        the co-execution, not in a supervised child process\n")       \
    X(NO_PREDICT, "no-predict", no_argument, CLI_OPT_NO_PREDICT,                               \
      "      --no-predict      at sizes the database holds nothing of, tune each device\n"  \
      "                        rather than predict its best configuration and time from\n" \
      "                        two or more other sizes of the kernel stored there\n")      \
    X(NO_CACHE, "no-cache", no_argument, CLI_OPT_NO_CACHE,                                     \
      "      --no-cache        neither read nor write the kernel binary cache\n")             \
    X(CACHE_DIR, "cache-dir", required_argument, CLI_OPT_CACHE_DIR,                            \
      "      --cache-dir DIR   the binary cache folder (default: $HETUNE_CACHE_DIR, else\n"   \
      "                        $XDG_CACHE_HOME/hetune, else ~/.cache/hetune)\n")              \
    X(JSON, "json", no_argument, CLI_OPT_JSON,                                                 \
      "      --json            print one JSON object instead of text\n")                      \
    X(QUIET, "quiet", no_argument, 'q',                                                        \
      "  -q, --quiet           show no progress and no notes on stderr (default: progress\n"  \
      "                        on stderr, a bar on a terminal, else a line every 5 s or\n"  \
      "                        $HETUNE_PROGRESS_EVERY seconds)\n")                          \
    X(VERBOSE, "verbose", no_argument, 'v',                                                    \
      "  -v, --verbose         say on stderr what was built and where (the binary cache\n"    \
      "                        path), each cache hit, each OpenCL call that failed and,\n"   \
      "                        when tuning, each configuration evaluated and how it\n"      \
      "                        ended; not with -q (exit status 2)\n")

enum {
    CLI_OPT_SIZE = 0x100, CLI_OPT_DB, CLI_OPT_EQ3, CLI_OPT_NO_CACHE, CLI_OPT_CACHE_DIR,
    CLI_OPT_DATA_PATH, CLI_OPT_JSON, CLI_OPT_REPEATS, CLI_OPT_TIMEOUT, CLI_OPT_NO_ISOLATE,
    CLI_OPT_SCHEDULER, CLI_OPT_SWEEP, CLI_OPT_RESIDUE, CLI_OPT_REFINE, CLI_OPT_REFINE_BY,
    CLI_OPT_PLAN, CLI_OPT_MARGIN, CLI_OPT_PIECE_BYTES, CLI_OPT_CPU_UNITS, CLI_OPT_NO_PREDICT,
    CLI_OPT_JOBS, CLI_OPT_OWN = 0x200
};
#define CLI_BIT(name, l, h, v, help) CLI_BIT_##name,
enum { CLI_SHARED_OPTIONS(CLI_BIT) CLI_NSHARED };
#undef CLI_BIT
#define CLI_FLAG(name, l, h, v, help) CLI_F_##name = 1u << CLI_BIT_##name,
enum { CLI_SHARED_OPTIONS(CLI_FLAG) };
#undef CLI_FLAG
/* What split and run share. */
#define CLI_F_COEXEC                                                                           \
    (CLI_F_DEVICE | CLI_F_SCHEDULER | CLI_F_SWEEP | CLI_F_RESIDUE | CLI_F_REFINE |             \
     CLI_F_REFINE_BY | CLI_F_PLAN | CLI_F_MARGIN | CLI_F_DATA_PATH | CLI_F_PIECE_BYTES |       \
     CLI_F_STRATEGY | CLI_F_BUDGET | CLI_F_JOBS | CLI_F_REPEATS | CLI_F_DB | CLI_F_SIZE | CLI_F_EQ3 |       \
     CLI_F_NO_CACHE | CLI_F_CACHE_DIR | CLI_F_JSON | CLI_F_QUIET | CLI_F_VERBOSE |             \
     CLI_F_TIMEOUT | CLI_F_NO_ISOLATE | CLI_F_CPU_UNITS | CLI_F_NO_PREDICT)

/* What the shared options set. */
struct cli_common {
    const char *cmd;                  /* the command, for messages */
    const char *usage;                /* printed by --help, with the shared options' help */
    unsigned own_help;                /* shared options whose help the usage words itself */
    unsigned flags;                   /* the shared options taken */
    struct option longopts[64];       /* getopt_long's tables (cli_common_init) */
    char shortopts[64];
    char *device;                     /* -d, --device; NULL when not given */
    const char *strategy;             /* -S, --strategy; NULL: the default */
    size_t budget;                    /* -b, --budget; 0: none */
    unsigned jobs;                    /* --jobs; 0 when not given: automatic
                                         (ht_tune_opts.jobs) */
    struct ht_size_override *sizes;   /* --size, in order; owned (cli_common_free) */
    size_t nsizes;
    const char *db;                   /* --db; HT_STORE_DEFAULT_PATH when not given */
    struct ht_exec_opts exec;         /* --eq3, --no-cache, --cache-dir, --data-path,
                                         --timeout, --no-isolate */
    int json;                         /* --json */
    unsigned repeats;                 /* --repeats (at least 1); 0 when not given */
    int quiet;                        /* -q, --quiet: no progress or notes on stderr */
    int verbose;                      /* -v, --verbose: the library's log on stderr */
    struct ht_workflow_split_opts *split; /* split and run: where --sweep, --residue,
                                             --refine(-by), --plan, --margin, --piece-bytes
                                             and --repeats go; NULL elsewhere */
};

/* Returned by cli_common_option when parsing goes on. */
#define CLI_CONTINUE (-1)

/* Fills co with the defaults, builds the getopt_long tables of the shared options in
 * flags (CLI_F_*; -h, --help always) and of own (the command's, ending with a zero entry;
 * NULL: none), and readies getopt_long (opterr off, optind 1). A short option of own
 * missing from CLI_SHORT_OPTIONS, or there with another long name, aborts. */
void cli_common_init(struct cli_common *co, const char *cmd, const char *usage, unsigned flags,
                     const struct option *own);

/* getopt_long over argv with co's tables. */
int cli_getopt(struct cli_common *co, int argc, char **argv);

/* Handles option c (getopt_long's return; arg its optarg): a shared option, -h (prints the
 * usage and returns 0), a missing value or an unknown option (a message, 2). Returns
 * CLI_CONTINUE when parsing goes on, else the exit status to return. */
int cli_common_option(struct cli_common *co, int c, const char *arg, char **argv);

/* Checks that exactly one SPEC follows the options and loads it with the --size
 * overrides (*spec owned by the caller, ht_spec_free). Returns 0, or an exit status. */
int cli_common_spec(struct cli_common *co, int argc, char **argv, struct ht_spec **spec);

/* Frees what co owns. */
void cli_common_free(struct cli_common *co);

/* While held, the first Ctrl-C only raises flag (what runs finishes cleanly and stops), a
 * second one kills; a SIGINT that is ignored (a background job, nohup) stays ignored. */
struct cli_sigint {
    struct sigaction old, old_term;
    int held, held_term;
};
void cli_sigint_catch(struct cli_sigint *s, volatile sig_atomic_t *flag);
void cli_sigint_release(struct cli_sigint *s);

/* Opens the results database db for command cmd (ht_store_open_opts): readonly for a
 * command that only reads it; a wait for another process's lock stops when *stop is raised
 * (stop may be NULL) and, unless quiet, is said on stderr once it lasts a second, as is
 * the read-only fallback. Returns ht_store_open_opts's code, err filled. */
int cli_store_open(const char *cmd, const char *db, int readonly, volatile sig_atomic_t *stop,
                   int quiet, struct ht_store **out, struct ht_error *err);

/* The options cli_store_open opens with, for a workflow that opens the database itself
 * (ht_workflow_split_opts.store, ht_workflow_open). Its callbacks' state is static: one
 * command, one database at a time. */
void cli_store_opts(const char *cmd, int readonly, volatile sig_atomic_t *stop, int quiet,
                    struct ht_store_opts *o);

/* Who is told of a wait for a device lock, and how (cli_device_wait's user). */
struct cli_waiter {
    const char *cmd;
    int quiet;
    volatile sig_atomic_t waiting; /* 1 while it waits for a device lock */
    uint64_t told;                 /* bit i: the wait for device i was said already */
};

/* An ht_device_lock_wait_fn: unless the cli_waiter user is quiet, says on stderr that
 * device d is being measured by another process and that this one waits (Ctrl-C stops),
 * once per device: two processes sharing a device hand its lock to each other between
 * configurations, each hand-off a new wait, and saying each would repeat the line for
 * every configuration (13 times in a 52-configuration tune of two MPI ranks). A device
 * of index 64 or more is told at every wait. Keeps the waiter's waiting flag. */
void cli_device_wait(const struct ht_device_info *d, const char *path, long holder,
                     void *user);

/* Unless quiet, says on stderr "hetune <cmd>: measured under load: ..." when load says
 * the measurements were made under load (ht_present_load_sentence). */
void cli_load_notice(const char *cmd, const struct ht_load *load, int quiet);

/* Prints "hetune <cmd>: <formatted error>" to stderr and returns
 * ht_present_exit_status(err->code). */
int cli_fail(const char *cmd, const struct ht_error *err);

/* Prints "hetune <cmd>: <message>" to stderr and returns status. */
int cli_usage_error(const char *cmd, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The shared handling of options and arguments (common.c). Each prints its message as
 * "hetune <cmd>: ..." to stderr and returns an exit status: 0 when all is well. */

/* After getopt_long returned c, ':' (a missing value) or an unknown option: returns 2. */
int cli_getopt_error(const char *cmd, int c, char **argv);

/* Checks that exactly one positional argument, the SPEC, follows the options (at optind). */
/* "hetune CMD: MSG" on stderr, user the command's name (ht_log_fn). */
void cli_log_stderr(int level, const char *msg, void *user);

int cli_spec_arg(const char *cmd, int argc, char **argv);

/* Checks that no positional argument follows the options (at optind). */
int cli_no_args(const char *cmd, int argc, char **argv);

/* Parses a non-negative number (seconds), or an integer from 0 to max, given to option
 * opt. Returns 0, or 2 after the message; cli_parse_uint with opt NULL prints none (the
 * caller says its own range). */
int cli_parse_seconds(const char *cmd, const char *opt, const char *arg, double *out);
int cli_parse_uint(const char *cmd, const char *opt, const char *arg, uint64_t max,
                   uint64_t *out);

/* Prints, with no newline, where plan p's residue went (p->residue_device set): "R
 * work-items, to device K (+N groups)", or each device that took groups of it and which is
 * last. names label the devices (NULL: their indices). */
void cli_print_residue(const struct ht_split_plan *p, char **names);

/* Parses auto|pinned|pageable|inplace given to option opt into *path. Returns 0, or 2. */
int cli_parse_data_path(const char *cmd, const char *opt, const char *arg,
                        enum ht_data_path *path);

/* Parses --residue work|time|groups into *rule. Returns 0, or 2. */
int cli_parse_residue(const char *cmd, const char *arg, enum ht_split_residue *rule);

/* Discovers the devices unless *plat holds some already (*plat owned by the caller,
 * ht_platform_free) and resolves device
 * ("all", an index or a unique part of "<platform> <name>") into [*first, *last). */
int cli_devices_range(const char *cmd, const char *device, struct ht_platform **plat,
                      size_t *first, size_t *last);

/* Discovers the devices (*plat owned by the caller) and resolves list, "D,D,..." or "all"
 * (NULL is all; cut by strtok_r), into *n device indices (*idx owned by the caller, free). */
int cli_devices_list(const char *cmd, char *list, struct ht_platform **plat, size_t **idx,
                     size_t *n);

/* With verbose (-v), prints "hetune <cmd>: <message>" and a newline on stderr: a step of
 * what the command does; nothing otherwise. */
void cli_verbose(const char *cmd, int verbose, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prints text, a JSON document the library wrote (rc its status), on stdout. Returns 0,
 * or 1 after saying that it cannot (rc not HT_OK). */
int cli_json_text(const char *cmd, int rc, const char *text);

#endif
