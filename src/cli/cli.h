/* The hetune command-line tool: one file per subcommand, dispatched from main.c. */
#ifndef HETUNE_CLI_H
#define HETUNE_CLI_H

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
 * A command lists in its getopt_long table the shared options it takes (CLI_OPTION_SIZE,
 * ...; their values below CLI_OPT_OWN, its own from CLI_OPT_OWN on) and hands every option
 * its own switch does not handle to cli_common_option, which also answers --help, a
 * missing value and an unknown option. */
enum {
    CLI_OPT_SIZE = 0x100, CLI_OPT_DB, CLI_OPT_EQ3, CLI_OPT_NO_CACHE, CLI_OPT_CACHE_DIR,
    CLI_OPT_DATA_PATH, CLI_OPT_JSON, CLI_OPT_REPEATS, CLI_OPT_TIMEOUT, CLI_OPT_NO_ISOLATE,
    CLI_OPT_OWN = 0x200
};
#define CLI_OPTION_DEVICE {"device", required_argument, NULL, 'd'}
#define CLI_OPTION_STRATEGY {"strategy", required_argument, NULL, 'S'}
#define CLI_OPTION_BUDGET {"budget", required_argument, NULL, 'b'}
#define CLI_OPTION_SIZE {"size", required_argument, NULL, CLI_OPT_SIZE}
#define CLI_OPTION_DB {"db", required_argument, NULL, CLI_OPT_DB}
#define CLI_OPTION_EQ3 {"eq3", required_argument, NULL, CLI_OPT_EQ3}
#define CLI_OPTION_NO_CACHE {"no-cache", no_argument, NULL, CLI_OPT_NO_CACHE}
#define CLI_OPTION_CACHE_DIR {"cache-dir", required_argument, NULL, CLI_OPT_CACHE_DIR}
#define CLI_OPTION_DATA_PATH {"data-path", required_argument, NULL, CLI_OPT_DATA_PATH}
#define CLI_OPTION_JSON {"json", no_argument, NULL, CLI_OPT_JSON}
#define CLI_OPTION_REPEATS {"repeats", required_argument, NULL, CLI_OPT_REPEATS}
#define CLI_OPTION_HELP {"help", no_argument, NULL, 'h'}
#define CLI_OPTION_QUIET {"quiet", no_argument, NULL, 'q'}
#define CLI_QUIET_HELP                                                                        \
    "  -q, --quiet           show no progress (default: on stderr, a bar on a terminal,\n" \
    "                        else a line every 5 s: done of total, elapsed, best)\n"
#define CLI_OPTION_TIMEOUT {"timeout", required_argument, NULL, CLI_OPT_TIMEOUT}
#define CLI_OPTION_NO_ISOLATE {"no-isolate", no_argument, NULL, CLI_OPT_NO_ISOLATE}
#define CLI_ISOLATE_HELP                                                                      \
    "      --timeout S       stop a configuration after S seconds and store it as timeout\n" \
    "                        (default: 10 times the longest so far, at least 10 s)\n"       \
    "      --no-isolate      run configurations in this process, not in a worker that a\n"  \
    "                        crash or a hang cannot take down\n"

/* What the shared options set. */
struct cli_common {
    const char *cmd;                  /* the command, for messages */
    const char *usage;                /* printed by --help */
    char *device;                     /* -d, --device; NULL when not given */
    const char *strategy;             /* -S, --strategy; NULL: the default */
    size_t budget;                    /* -b, --budget; 0: none */
    struct ht_size_override *sizes;   /* --size, in order; owned (cli_common_free) */
    size_t nsizes;
    const char *db;                   /* --db; HT_STORE_DEFAULT_PATH when not given */
    struct ht_exec_opts exec;         /* --eq3, --no-cache, --cache-dir, --data-path,
                                         --timeout, --no-isolate */
    int json;                         /* --json */
    unsigned repeats;                 /* --repeats (at least 1); 0 when not given */
    int quiet;                        /* -q, --quiet: no progress on stderr */
};

/* Returned by cli_common_option when parsing goes on. */
#define CLI_CONTINUE (-1)

/* Fills co with the defaults and readies getopt_long for argv (opterr off, optind 1). */
void cli_common_init(struct cli_common *co, const char *cmd, const char *usage);

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

/* Prints "hetune <cmd>: <formatted error>" to stderr and returns ht_exit_status(err->code). */
int cli_fail(const char *cmd, const struct ht_error *err);

/* Prints "hetune <cmd>: <message>" to stderr and returns status. */
int cli_usage_error(const char *cmd, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Collects a --size NAME=VALUE option into a growing array (owned by the caller, free()).
 * Returns 0, or an exit status (2) after printing the problem. */
int cli_add_size(const char *cmd, const char *arg, struct ht_size_override **ov, size_t *n);

/* The shared handling of options and arguments (common.c). Each prints its message as
 * "hetune <cmd>: ..." to stderr and returns an exit status: 0 when all is well. */

/* After getopt_long returned c, ':' (a missing value) or an unknown option: returns 2. */
int cli_getopt_error(const char *cmd, int c, char **argv);

/* Checks that exactly one positional argument, the SPEC, follows the options (at optind). */
int cli_spec_arg(const char *cmd, int argc, char **argv);

/* Checks that no positional argument follows the options (at optind). */
int cli_no_args(const char *cmd, int argc, char **argv);

/* Loads the spec at path with the size overrides; *spec is owned by the caller
 * (ht_spec_free). Returns 0, 1 when out of memory, else 2 (an unreadable spec is bad input). */
int cli_load_spec(const char *cmd, const char *path, const struct ht_size_override *ov,
                  size_t nov, struct ht_spec **spec);

/* Parses an integer from 0 to max given to option opt. Returns 0, or 2. */
int cli_parse_seconds(const char *cmd, const char *opt, const char *arg, double *out);
int cli_parse_uint(const char *cmd, const char *opt, const char *arg, uint64_t max,
                   uint64_t *out);

/* Parses --eq3 product|sum|off into *eq3. Returns 0, or 2. */
int cli_parse_eq3(const char *cmd, const char *arg, enum ht_eq3 *eq3);

/* Prints, with no newline, where plan p's residue went (p->residue_device set): "R
 * work-items, to device K (+N groups)", or each device that took groups of it and which is
 * last. names label the devices (NULL: their indices). */
void cli_print_residue(const struct ht_split_plan *p, char **names);

/* Parses auto|pinned|pageable|inplace given to option opt into *path. Returns 0, or 2. */
int cli_parse_data_path(const char *cmd, const char *opt, const char *arg,
                        enum ht_data_path *path);

/* The help text of --data-path, for every command that moves data. */
#define CLI_DATA_PATH_HELP                                                                     \
    "      --data-path P     how buffers meet host memory: auto (default: in place on CPU\n" \
    "                        devices, pinned memory elsewhere), pinned, pageable (plain\n"    \
    "                        memory, the old path), inplace\n"

/* Parses --residue work|time|groups into *rule. Returns 0, or 2. */
int cli_parse_residue(const char *cmd, const char *arg, enum ht_split_residue *rule);

/* Checks that arg names a search strategy and sets *strategy to it (borrowed from argv).
 * Returns 0, or 2 after naming the strategies. */
int cli_parse_strategy(const char *cmd, const char *arg, const char **strategy);

/* Discovers the devices (*plat owned by the caller, ht_platform_free) and resolves device
 * ("all", an index or a unique part of "<platform> <name>") into [*first, *last). */
int cli_devices_range(const char *cmd, const char *device, struct ht_platform **plat,
                      size_t *first, size_t *last);

/* Discovers the devices (*plat owned by the caller) and resolves list, "D,D,..." or "all"
 * (NULL is all; cut by strtok_r), into *n device indices (*idx owned by the caller, free). */
int cli_devices_list(const char *cmd, char *list, struct ht_platform **plat, size_t **idx,
                     size_t *n);

/* Prints text, a JSON document the library wrote (rc its status), on stdout. Returns 0,
 * or 1 after saying that it cannot (rc not HT_OK). */
int cli_json_text(const char *cmd, int rc, const char *text);

#endif
