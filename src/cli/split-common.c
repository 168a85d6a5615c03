/* What hetune split and hetune run share of printing a co-execution's workflow
 * (split-common.h); the workflow itself is the library's (workflow.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "split-common.h"

int cli_parse_refine_by(const char *cmd, const char *arg, enum ht_refine_target *target)
{
    if (!strcmp(arg, "wall"))
        *target = HT_REFINE_WALL;
    else if (!strcmp(arg, "kernel"))
        *target = HT_REFINE_KERNEL;
    else
        return cli_usage_error(cmd, 2, "--refine-by takes wall or kernel, not '%s'", arg);
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
