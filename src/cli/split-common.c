/* What hetune split and hetune run share of printing a co-execution's workflow
 * (split-common.h); the workflow itself is the library's (workflow.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "split-common.h"

int cli_parse_scheduler(const char *cmd, const char *arg, int all_too, const char **name)
{
    if ((all_too && !strcmp(arg, "all")) || ht_split_scheduler_find(arg)) {
        *name = arg;
        return 0;
    }
    fprintf(stderr, "hetune %s: unknown scheduler '%s'; the schedulers are:", cmd, arg);
    for (size_t i = 0; ht_split_schedulers[i]; i++)
        fprintf(stderr, " %s", ht_split_schedulers[i]->name);
    fprintf(stderr, "%s\n", all_too ? " (or all)" : "");
    return 2;
}

int cli_scheduler_planned(const char *name)
{
    const struct ht_split_sched_ops *ops = ht_split_scheduler_find(name);
    return ops && ops->kind == HT_SPLIT_SCHED_PLANNED;
}

int cli_split_check(const char *cmd, const struct ht_workflow_split_opts *wo,
                    const char *scheduler, int has_static)
{
    if (wo->refine && !has_static)
        return cli_usage_error(cmd, 2, "--refine refines the static plan, not the %s "
                                       "scheduler", scheduler);
    return 0;
}

void cli_refine_print(const struct ht_workflow_refine *r)
{
    char a[32], b[32], c[32];

    printf("\nrefine        round: shares (model: time alone, overhead per device), model "
           "time, wall, kernel-only, verified\n");
    for (size_t k = 0; k < r->nrounds; k++) {
        printf("%13s %zu%s (", "", k, k == r->best ? "*" : " ");
        for (size_t i = 0; i < r->n; i++)
            printf("%s%.4f", i ? ", " : "", r->factors[k * r->n + i]);
        printf(") (");
        for (size_t i = 0; i < r->n; i++) {
            ht_format_seconds(r->times[k * r->n + i], a, sizeof a);
            ht_format_seconds(r->overheads[k * r->n + i], b, sizeof b);
            printf("%s%s %s", i ? "; " : "", a, b);
        }
        ht_format_seconds(r->model_s[k], a, sizeof a);
        ht_format_seconds(r->wall_s[k], b, sizeof b);
        ht_format_seconds(r->kernel_s[k], c, sizeof c);
        printf(") %s, %s, %s, %s\n", a, b, c,
               r->verified[k] == 1 ? "yes" : r->verified[k] == 0 ? "NO" : "-");
    }
    printf("%13s * the shortest %s time; %s\n", "",
           r->target == HT_REFINE_KERNEL ? "kernel-only" : "wall", r->converged ? "the plan converged" : "stopped after the rounds asked for");
}

void cli_verify_failed(const struct ht_error *err, void *user)
{
    struct cli_verify *v = user;

    cli_fail(v->cmd, err);
    v->failed = 1;
}

void cli_split_note(const char *note, void *user)
{
    fprintf(stderr, "hetune %s: %s\n", ((struct cli_verify *)user)->cmd, note);
}

int cli_split_devices(const char *cmd, char *list, const struct ht_workflow_split_opts *wo,
                      struct ht_platform **plat, const struct ht_device_info ***dl, size_t *n)
{
    size_t *idx = NULL;
    int status = cli_devices_list(cmd, list, plat, &idx, n);

    /* run on one device has nothing to split or sweep (ht_workflow_run says so). */
    if (status == 0 && wo->sweep > 0 && *n != 2 && !(*n == 1 && !strcmp(cmd, "run")))
        status = cli_usage_error(cmd, 2, "--sweep needs exactly two devices, not %zu (see "
                                         "--device)", *n);
    if (status == 0 && !(*dl = calloc(*n, sizeof **dl)))
        status = cli_usage_error(cmd, 1, "out of memory");
    for (size_t i = 0; status == 0 && i < *n; i++)
        (*dl)[i] = &(*plat)->devices[idx[i]];
    free(idx);
    return status;
}
