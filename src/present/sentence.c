/* The sentences the command line shows about a result (present.h): a run under load, why a
 * split ran on one device alone, the CPU compute units it used. */
#include <stdio.h>
#include <string.h>

#include "hetune/present.h"
#include "hetune/util.h"

int ht_present_load_sentence(const struct ht_load *l, char *buf, size_t size)
{
    const char *tail = "times may be slow: measure again when the machine is quiet";
    double oc = ht_load_other_cores(l);
    int busy = l && l->window_s >= HT_LOAD_MIN_WINDOW_S && oc >= HT_LOAD_CORES;

    if (!buf)
        return 0;
    if (size)
        buf[0] = '\0';
    if (!ht_load_under(l))
        return 0;
    if (busy && l->unlocked)
        snprintf(buf, size, "measured under load: other processes used %.1f of %u cores "
                 "while it measured, and it measured without a device lock (%s); %s", oc,
                 l->cores, l->unlocked_why, tail);
    else if (busy)
        snprintf(buf, size, "measured under load: other processes used %.1f of %u cores "
                 "while it measured; %s", oc, l->cores, tail);
    else
        snprintf(buf, size, "measured under load: without a device lock (%s), another "
                 "process may have measured at once; %s", l->unlocked_why, tail);
    return 1;
}

int ht_present_split_decision(const struct ht_workflow_split_result *r, char *buf,
                              size_t size)
{
    const struct ht_workflow_device *f;
    char a[32], b[32];

    if (!buf || !size)
        return 0;
    buf[0] = '\0';
    if (!r || !r->devs)
        return 0;
    f = &r->devs[r->fastest];
    if (r->ran_alone && !r->measured_alone && !r->left_alone) {
        ht_format_seconds(r->est.split_s, a, sizeof a);
        ht_format_seconds(r->est.alone_s, b, sizeof b);
        snprintf(buf, size, "splitting is predicted to be slower (%s) than device %zu (%s) "
                 "alone (%s): running on it alone (--force splits anyway)", a, f->dev->index,
                 f->dev->name, b);
    } else if (r->measured_alone && r->has_refine) {
        snprintf(buf, size, "no round beat device %zu (%s) alone, or the best gave it all "
                 "the work: running on it alone (--force keeps the split)", f->dev->index,
                 f->dev->name);
    } else if (r->measured_alone && r->has_est && r->est.check) {
        ht_format_seconds(r->measured_split_s, a, sizeof a);
        ht_format_seconds(r->res.wall_s, b, sizeof b);
        snprintf(buf, size, "the split, predicted within the margin of device %zu (%s) "
                 "alone, took %s: not enough faster than it alone (%s): running on it alone "
                 "(--force keeps the split)", f->dev->index, f->dev->name, a, b);
    } else if (r->measured_alone) {
        ht_format_seconds(r->measured_split_s, a, sizeof a);
        ht_format_seconds(r->res.wall_s, b, sizeof b);
        snprintf(buf, size, "the split took %s, %s device %zu (%s) alone (%s): running "
                 "on it alone (--force keeps the split)", a,
                 r->measured_split_s < r->res.wall_s ? "not enough faster than"
                                                     : "longer than",
                 f->dev->index, f->dev->name, b);
    }
    return buf[0] != '\0';
}

int ht_present_split_units(const struct ht_workflow_split_result *r, char *buf, size_t size)
{
    size_t len;

    if (!buf || !size)
        return 0;
    buf[0] = '\0';
    if (!r || (!r->ndop && !r->cpu_units))
        return 0;
    if (!r->ndop) {
        snprintf(buf, size, "%u of each CPU device that can be partitioned (a sub-device)",
                 r->cpu_units);
        return 1;
    }
    snprintf(buf, size, "%u of %u (the fastest of", r->cpu_units ? r->cpu_units : r->dop[0].units,
             r->dop[0].units);
    for (size_t k = 0; k < r->ndop && (len = strlen(buf)) + 1 < size; k++) {
        char t[32];
        ht_format_seconds(r->dop[k].wall_s, t, sizeof t);
        snprintf(buf + len, size - len, "%s %u: %s%s", k ? "," : "", r->dop[k].units, t,
                 r->dop[k].ran_alone ? " alone" : "");
    }
    if ((len = strlen(buf)) + 1 < size)
        snprintf(buf + len, size - len, ")");
    return 1;
}
