/* The hetune command-line tool: one file per subcommand, dispatched from main.c. */
#ifndef HETUNE_CLI_H
#define HETUNE_CLI_H

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

/* Prints "hetune <cmd>: <formatted error>" to stderr and returns ht_exit_status(err->code). */
int cli_fail(const char *cmd, const struct ht_error *err);

/* Prints "hetune <cmd>: <message>" to stderr and returns status. */
int cli_usage_error(const char *cmd, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Collects a --size NAME=VALUE option into a growing array (owned by the caller, free()).
 * Returns 0, or an exit status (2) after printing the problem. */
int cli_add_size(const char *cmd, const char *arg, struct ht_size_override **ov, size_t *n);

/* Prints s as a JSON string literal (with quotes) to f. */
void cli_json_string(FILE *f, const char *s);

#endif
