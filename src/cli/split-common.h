/* What hetune split and hetune run share of printing and parsing around the library's
 * workflow (workflow.h). CLI-internal. */
#ifndef HETUNE_CLI_SPLIT_COMMON_H
#define HETUNE_CLI_SPLIT_COMMON_H

#include "cli.h"

/* Checks that arg names a scheduler (or, when all_too, is "all") and sets *name to it.
 * Returns 0, or 2 after naming the schedulers. */
int cli_parse_scheduler(const char *cmd, const char *arg, int all_too, const char **name);

/* 1 when name is a scheduler that plans every chunk up front (HT_SPLIT_SCHED_PLANNED:
 * static), else 0: names are what people type, the kind is what the commands act on. */
int cli_scheduler_planned(const char *name);

/* Checks the combinations of options split and run refuse: --refine with a scheduler
 * other than static (has_static 0: none of the schedulers asked for is planned). Returns 0, or 2 after saying so. */
int cli_split_check(const char *cmd, const struct ht_workflow_split_opts *wo,
                    const char *scheduler, int has_static);

/* Discovers the devices (*plat owned by the caller, ht_platform_free) and resolves list
 * as cli_devices_list does into *n devices (*dl owned by the caller, free; borrowed from
 * *plat), refusing a sweep (wo->sweep) without exactly two. Returns 0, or an exit status
 * after the message. */
int cli_split_devices(const char *cmd, char *list, const struct ht_workflow_split_opts *wo,
                      struct ht_platform **plat, const struct ht_device_info ***dl, size_t *n);

/* Prints the rounds as a table (text output of split and run). */
void cli_refine_print(const struct ht_workflow_refine *r);

/* A ht_workflow_verify_fn: prints "hetune <cmd>: ..." on stderr and sets failed. */
struct cli_verify {
    const char *cmd;
    int failed;
};
void cli_verify_failed(const struct ht_error *err, void *user);

/* A ht_workflow_note_fn: prints "hetune <cmd>: NOTE" on stderr; user starts with a struct
 * cli_verify (its cmd). */
void cli_split_note(const char *note, void *user);

#endif
