/* The design spaces as `hetune space` prints them (present.h): the table of sizes, and
 * the configurations streamed as the walk finds them, so that memory stays flat. */
#include <stdio.h>
#include <string.h>

#include "hetune/present.h"

/* Writes r's configurations to f as o says: the collected ones, or the space's walk. */
static int list_configs(FILE *f, const struct ht_workflow_space *r,
                        const struct ht_space_list_opts *o, struct ht_error *err)
{
    int rc = r->collected ? ht_space_list_configs(r->space, r->configs, r->nconfigs, f, o)
                          : ht_space_list(r->space, f, o, NULL);

    if (rc == HT_EIO)
        return ht_error_set(err, rc, "writing the configurations failed");
    return rc ? ht_error_set(err, rc, "listing the configurations of device %zu failed",
                             r->dev->index)
              : 0;
}

int ht_present_space_print(FILE *f, const struct ht_present_space *s, struct ht_error *err)
{
    if (!f || !s)
        return ht_error_set(err, HT_EINVAL, "ht_present_space_print: %s is NULL",
                            !f ? "f" : "s");
    if (!s->spec || !s->solver || (s->n && !s->spaces))
        return ht_error_set(err, HT_EINVAL, "ht_present_space_print: no spec, solver or spaces");

    const struct ht_spec *spec = s->spec;
    const struct ht_workflow_space *r = s->spaces;
    const char *solver = s->solver;
    enum ht_eq3 eq3 = s->eq3;
    enum ht_space_list_format format = s->format;
    int both = !strcmp(solver, "both"), text = format != HT_SPACE_LIST_BINARY;

    if (text) {
        fprintf(f, "spec %s (%s), eq3 %s, solver %s\n", spec->name,
                spec->path ? spec->path : "from memory",
                eq3 == HT_EQ3_SUM ? "sum" : eq3 == HT_EQ3_OFF ? "off" : "product", solver);
        fprintf(f, "%-3s %-34s %14s %12s %12s %11s%s\n", "#", "device", "unpruned", "platform",
                "pruned", both ? "native s" : "seconds", both ? "  minizinc s" : "");
    }
    for (size_t k = 0; k < s->n; k++) {
        const struct ht_space_counts *c = &r[k].counts;
        struct ht_space_list_opts o = {format, "    ",
                                       r[k].collected ? r[k].nconfigs : c->pruned,
                                       r[k].dev->index};
        int rc;
        if (text) {
            fprintf(f, "%-3zu %-34.34s %14s %12s %12s %11.6f", r[k].dev->index,
                    r[k].dev->name, c->unpruned_text, c->platform_text, c->pruned_text,
                    c->seconds);
            if (r[k].mzn_seconds >= 0)
                fprintf(f, " %11.6f", r[k].mzn_seconds);
            fputc('\n', f);
            if (c->pruned == 0 && c->empty_reason[0])
                fprintf(f, "    empty: %s\n", c->empty_reason);
            if (!s->list || c->pruned == 0)
                continue;
            fputs("   ", f);
            for (size_t i = 0; i < spec->space.nparams; i++)
                fprintf(f, " %s", spec->space.params[i].name);
            fputc('\n', f);
        }
        if ((rc = list_configs(f, &r[k], &o, err)) != 0)
            return rc;
    }
    return fflush(f) == 0 ? 0 : ht_error_set(err, HT_EIO, "writing the output failed");
}
