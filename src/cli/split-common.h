/* What hetune split and hetune run share of printing and parsing around the library's
 * workflow (workflow.h). CLI-internal. */
#ifndef HETUNE_CLI_SPLIT_COMMON_H
#define HETUNE_CLI_SPLIT_COMMON_H

#include "cli.h"

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
