/* What hetune split and hetune run share of printing and parsing around the library's
 * workflow (workflow.h). CLI-internal. */
#ifndef HETUNE_CLI_SPLIT_COMMON_H
#define HETUNE_CLI_SPLIT_COMMON_H

#include "cli.h"

/* The co-execution options of split and run, declared once (cli.h's scheme). */
enum {
    CLI_OPT_SWEEP = 0x180, CLI_OPT_RESIDUE, CLI_OPT_REFINE, CLI_OPT_REFINE_BY, CLI_OPT_PLAN,
    CLI_OPT_MARGIN, CLI_OPT_PIECE_BYTES
};
#define CLI_OPTION_SCHEDULER {"scheduler", required_argument, NULL, 's'}
#define CLI_OPTION_SWEEP {"sweep", required_argument, NULL, CLI_OPT_SWEEP}
#define CLI_OPTION_RESIDUE {"residue", required_argument, NULL, CLI_OPT_RESIDUE}
#define CLI_OPTION_REFINE {"refine", required_argument, NULL, CLI_OPT_REFINE}
#define CLI_OPTION_REFINE_BY {"refine-by", required_argument, NULL, CLI_OPT_REFINE_BY}
#define CLI_OPTION_PLAN {"plan", required_argument, NULL, CLI_OPT_PLAN}
#define CLI_OPTION_MARGIN {"margin", required_argument, NULL, CLI_OPT_MARGIN}
#define CLI_OPTION_PIECE_BYTES {"piece-bytes", required_argument, NULL, CLI_OPT_PIECE_BYTES}

/* The options split and run both take, for their getopt_long tables. */
#define CLI_OPTIONS_COEXEC                                                                     \
    CLI_OPTION_DEVICE, CLI_OPTION_SCHEDULER, CLI_OPTION_SWEEP, CLI_OPTION_RESIDUE,            \
    CLI_OPTION_REFINE, CLI_OPTION_REFINE_BY, CLI_OPTION_PLAN, CLI_OPTION_MARGIN,              \
    CLI_OPTION_DATA_PATH, CLI_OPTION_PIECE_BYTES, CLI_OPTION_STRATEGY, CLI_OPTION_BUDGET,     \
    CLI_OPTION_REPEATS, CLI_OPTION_DB, CLI_OPTION_SIZE, CLI_OPTION_EQ3, CLI_OPTION_NO_CACHE,  \
    CLI_OPTION_CACHE_DIR, CLI_OPTION_JSON, CLI_OPTION_QUIET, CLI_OPTION_HELP

/* The help of --plan and --piece-bytes. */
#define CLI_PLAN_HELP                                                                          \
    "      --plan bus|paper  static: the plan that balances busy times, transfers\n"           \
    "                        included (default), or the paper's from the tuned times\n"
#define CLI_PIECE_BYTES_HELP                                                                   \
    "      --piece-bytes N   devices that copy move their slice in pieces of about N\n"       \
    "                        bytes on two queues (default 33554432); 0: one piece\n"

/* Handles option c of split and run into wo: a co-execution option above, else the
 * shared ones (cli_common_option, which also takes --repeats into wo). Returns
 * CLI_CONTINUE or the exit status to return. */
int cli_split_option(struct cli_common *co, struct ht_workflow_split_opts *wo, int c,
                     const char *arg, char **argv);

/* Checks that arg names a scheduler (or, when all_too, is "all") and sets *name to it.
 * Returns 0, or 2 after naming the schedulers. */
int cli_parse_scheduler(const char *cmd, const char *arg, int all_too, const char **name);

/* Checks the combinations of options split and run refuse: --refine with a scheduler
 * other than static (has_static 0). Returns 0, or 2 after saying so. */
int cli_split_check(const char *cmd, const struct ht_workflow_split_opts *wo,
                    const char *scheduler, int has_static);

/* Discovers the devices (*plat owned by the caller, ht_platform_free) and resolves list
 * as cli_devices_list does into *n devices (*dl owned by the caller, free; borrowed from
 * *plat), refusing a sweep (wo->sweep) without exactly two. Returns 0, or an exit status
 * after the message. */
int cli_split_devices(const char *cmd, char *list, const struct ht_workflow_split_opts *wo,
                      struct ht_platform **plat, const struct ht_device_info ***dl, size_t *n);

/* Parses --refine-by wall|kernel into *target. Returns 0, or 2. */
int cli_parse_refine_by(const char *cmd, const char *arg, enum ht_refine_target *target);

/* Prints the rounds as a table (text output of split and run). */
void cli_refine_print(const struct ht_workflow_refine *r);

/* A ht_workflow_verify_fn: prints "hetune <cmd>: ..." on stderr and sets failed. */
struct cli_verify {
    const char *cmd;
    int failed;
};
void cli_verify_failed(const struct ht_error *err, void *user);

#endif
