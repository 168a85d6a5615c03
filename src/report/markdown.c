/* report.md: the paper's tables as Markdown tables and its figures as embedded PNGs, each
 * figure followed by a table of its numbers so that nothing depends on the pictures. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report-internal.h"

/* The devices that have a space size in some case, in the model's order. */
static size_t space_devices(const struct rp_model *m, const struct rp_device **out)
{
    size_t n = 0;
    for (size_t i = 0; i < m->ndevices; i++) {
        int used = 0;
        for (size_t k = 0; k < m->ncases && !used; k++)
            for (size_t j = 0; j < m->cases[k].nspaces; j++)
                used |= m->cases[k].spaces[j].device_id == m->devices[i].id;
        if (used)
            out[n++] = &m->devices[i];
    }
    return n;
}

static const struct ht_stored_space *find_space(const struct rp_case *c, int64_t device_id,
                                                enum ht_eq3 eq3)
{
    for (size_t j = 0; j < c->nspaces; j++)
        if (c->spaces[j].device_id == device_id && c->spaces[j].eq3 == eq3)
            return &c->spaces[j];
    return NULL;
}

static void devices_md(const struct rp_model *m, struct rp_buf *b)
{
    ht__rp_puts(b, "## Devices\n\n| device | name | platform | type | compute units | driver |\n"
                   "| --- | --- | --- | --- | ---: | --- |\n");
    for (size_t i = 0; i < m->ndevices; i++) {
        const struct rp_device *d = &m->devices[i];
        ht__rp_puts(b, "| ");
        ht__rp_md_text(b, d->label);
        ht__rp_puts(b, " | ");
        ht__rp_md_text(b, d->name);
        ht__rp_puts(b, " | ");
        ht__rp_md_text(b, d->platform);
        ht__rp_puts(b, " | ");
        ht__rp_md_text(b, d->type);
        ht__rp_printf(b, " | %lld | ", (long long)d->compute_units);
        ht__rp_md_text(b, d->driver);
        ht__rp_puts(b, " |\n");
    }
    ht__rp_puts(b, "\n");
}

/* Tables 1 and 2: one row per case study and Eq. 3 variant, one column (Table 2: two) per
 * device. */
static int spaces_md(const struct rp_model *m, struct rp_buf *b, struct ht_error *err)
{
    const struct rp_device **devs = calloc(m->ndevices + 1, sizeof *devs);
    size_t nd;

    if (!devs)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    nd = space_devices(m, devs);
    for (int table = 1; table <= 2; table++) {
        ht__rp_puts(b, table == 1 ? "## Table 1: exploration space size without pruning\n\n"
                                  : "## Table 2: exploration space size after pruning\n\n");
        if (nd == 0) {
            ht__rp_puts(b, "No space size in the database: `hetune space --db`, `hetune tune` "
                           "and `hetune run` record them.\n\n");
            continue;
        }
        if (table == 1)
            ht__rp_puts(b, "Every value of every parameter, before any rule (the product of "
                           "the domain sizes).\n\n");
        else
            ht__rp_puts(b, "*platform*: left by the platform rules alone (Eq. 1-3, the "
                           "work-item limits, local memory); *pruned*: left by the "
                           "application's constraints as well, the configurations that are "
                           "tuned.\n\n");
        ht__rp_puts(b, "| case study |");
        for (size_t d = 0; d < nd; d++) {
            if (table == 1) {
                ht__rp_puts(b, " ");
                ht__rp_md_text(b, devs[d]->label);
                ht__rp_puts(b, " |");
            } else {
                ht__rp_puts(b, " ");
                ht__rp_md_text(b, devs[d]->label);
                ht__rp_puts(b, " platform | ");
                ht__rp_md_text(b, devs[d]->label);
                ht__rp_puts(b, " pruned |");
            }
        }
        ht__rp_puts(b, "\n| --- |");
        for (size_t d = 0; d < nd * (size_t)table; d++)
            ht__rp_puts(b, " ---: |");
        ht__rp_puts(b, "\n");
        for (size_t i = 0; i < m->ncases; i++) {
            const struct rp_case *c = &m->cases[i];
            for (int e = HT_EQ3_PRODUCT; e <= HT_EQ3_OFF; e++) {
                int any = 0;
                for (size_t j = 0; j < c->nspaces; j++)
                    any |= c->spaces[j].eq3 == (enum ht_eq3)e;
                if (!any)
                    continue;
                ht__rp_puts(b, "| ");
                ht__rp_md_text(b, c->label);
                if (e != HT_EQ3_PRODUCT)
                    ht__rp_printf(b, " (Eq. 3 %s)", ht__report_eq3_name((enum ht_eq3)e));
                ht__rp_puts(b, " |");
                for (size_t d = 0; d < nd; d++) {
                    const struct ht_stored_space *s = find_space(c, devs[d]->id, (enum ht_eq3)e);
                    if (!s)
                        ht__rp_puts(b, table == 1 ? " - |" : " - | - |");
                    else if (table == 1 && s->unpruned < 0x1p53)
                        ht__rp_printf(b, " %.0f |", s->unpruned);
                    else if (table == 1) /* a double rounds past 2^53: say so */
                        ht__rp_printf(b, " ~%.4g |", s->unpruned);
                    else
                        ht__rp_printf(b, " %" PRIu64 " | %" PRIu64 " |", s->platform, s->pruned);
                }
                ht__rp_puts(b, "\n");
            }
        }
        ht__rp_puts(b, "\n");
    }
    free(devs);
    return HT_OK;
}

static void tuning_md(const struct rp_model *m, struct rp_buf *b)
{
    int any = 0;

    ht__rp_puts(b, "## Tuning: the best configuration of each device\n\n");
    for (size_t i = 0; i < m->ncases; i++)
        any |= m->cases[i].ntuning > 0;
    if (!any) {
        ht__rp_puts(b, "No evaluation in the database: `hetune tune` or `hetune run` makes "
                       "them.\n\n");
        return;
    }
    ht__rp_puts(b, "The time is the mean of the best `keep_best` of `repeats` runs (kernel "
                   "only, from profiling events).\n\n"
                   "| case study | device | evaluations | ok | best configuration | time |\n"
                   "| --- | --- | ---: | ---: | --- | ---: |\n");
    for (size_t i = 0; i < m->ncases; i++) {
        const struct rp_case *c = &m->cases[i];
        for (size_t k = 0; k < c->ntuning; k++) {
            const struct rp_tuning *t = &c->tuning[k];
            char tmp[64], time[32];
            ht_format_seconds(t->has_best ? t->seconds : -1, time, sizeof time);
            ht__rp_puts(b, "| ");
            ht__rp_md_text(b, c->label);
            ht__rp_puts(b, " | ");
            ht__rp_md_text(b, ht__report_device_label(m, t->device_id, tmp, sizeof tmp));
            ht__rp_printf(b, " | %" PRIu64 " | %" PRIu64 " | ", t->evaluations, t->ok);
            ht__rp_md_text(b, t->has_best ? t->config : "(none verified)");
            ht__rp_printf(b, " | %s |\n", time);
        }
    }
    ht__rp_puts(b, "\n");
}

/* "(0.750, 0.250)", or "-" when a factor is unknown. */
static void factors(struct rp_buf *b, const struct ht_stored_split *sp, int adjusted)
{
    for (size_t j = 0; j < sp->ndevices; j++) {
        double f = adjusted ? sp->devices[j].adjusted_factor : sp->devices[j].optimal_factor;
        if (f < 0) {
            ht__rp_puts(b, "-");
            return;
        }
    }
    ht__rp_puts(b, "(");
    for (size_t j = 0; j < sp->ndevices; j++)
        ht__rp_printf(b, "%s%.3f", j ? ", " : "",
                      adjusted ? sp->devices[j].adjusted_factor : sp->devices[j].optimal_factor);
    ht__rp_puts(b, ")");
}

static void split_name(struct rp_buf *b, unsigned dim)
{
    ht__rp_printf(b, "%s (dim %u)", ht__report_dim_name(dim), dim);
}

static void table3_md(const struct rp_model *m, struct rp_buf *b)
{
    int any = 0;

    ht__rp_puts(b, "## Table 3: data split factors\n\n");
    for (size_t i = 0; i < m->ncases; i++)
        any |= m->cases[i].nsplits > 0;
    if (!any) {
        ht__rp_puts(b, "No split in the database: `hetune split` or `hetune run` makes "
                       "them.\n\n");
        return;
    }
    ht__rp_puts(b, "Factors are listed in the order of the devices. *Optimal*: Eq. 4, "
                   "S_i = (1/t_i) / sum_j(1/t_j) from the tuned times; *adjusted*: the share "
                   "each device computes once its slice is made of whole work-groups of its "
                   "own size (Eq. 5-9; for the dynamic and guided schedulers, the share it "
                   "took). *Theoretical*: Algorithm 1, max_i(S_i t_i). *Wall*: the "
                   "co-execution's wall time, transfers included; *kernel*: the slowest "
                   "device's kernel-only time.\n\n"
                   "| case study | split | scheduler | devices | optimal | adjusted | "
                   "theoretical | wall | kernel | verified |\n"
                   "| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | --- |\n");
    for (size_t i = 0; i < m->ncases; i++) {
        const struct rp_case *c = &m->cases[i];
        for (size_t k = 0; k < c->nsplits; k++) {
            const struct ht_stored_split *sp = &c->splits[k];
            char t[3][32], tmp[64];
            ht_format_seconds(sp->theoretical_seconds, t[0], sizeof t[0]);
            ht_format_seconds(sp->seconds, t[1], sizeof t[1]);
            ht_format_seconds(sp->kernel_seconds, t[2], sizeof t[2]);
            ht__rp_puts(b, "| ");
            ht__rp_md_text(b, c->label);
            ht__rp_puts(b, " | ");
            split_name(b, sp->dim);
            ht__rp_puts(b, " | ");
            ht__rp_md_text(b, sp->scheduler);
            ht__rp_puts(b, " | (");
            for (size_t j = 0; j < sp->ndevices; j++) {
                ht__rp_puts(b, j ? ", " : "");
                ht__rp_md_text(b, ht__report_device_label(m, sp->devices[j].device_id, tmp,
                                                          sizeof tmp));
            }
            ht__rp_puts(b, ") | ");
            factors(b, sp, 0);
            ht__rp_puts(b, " | ");
            factors(b, sp, 1);
            ht__rp_printf(b, " | %s | %s | %s | %s |\n", t[0], t[1], t[2],
                          sp->verified == 1 ? "yes" : sp->verified == 0 ? "**no**" : "-");
        }
    }
    ht__rp_puts(b, "\n");
}

static void image(struct rp_buf *b, const struct rp_figure *f)
{
    if (!f->drawn)
        return;
    ht__rp_puts(b, "![");
    ht__rp_md_text(b, f->title);
    ht__rp_printf(b, "](%s.png)\n\n[SVG](%s.svg) · data `%s.dat` · script `%s.gp`\n\n", f->base,
                  f->base, f->base, f->base);
}

static void no_pictures(struct rp_buf *b, const struct rp_figures *f)
{
    if (f->pictures)
        return;
    ht__rp_printf(b, "> **No pictures**: %s. Every figure's numbers are in the table under "
                     "it and in `times.csv` and `sweep.csv`; its gnuplot script (`.gp`) and "
                     "data (`.dat`) are in this folder.\n\n",
                  f->no_pictures);
}

static int fig5_md(const struct rp_model *m, const struct rp_figures *f, struct rp_buf *b,
                   struct ht_error *err)
{
    size_t k = 0;

    ht__rp_puts(b, "## Figure 5: execution times of heterogeneous runs\n\n");
    if (f->n5 == 0) {
        ht__rp_puts(b, "No split in the database.\n\n");
        return HT_OK;
    }
    ht__rp_puts(b, "Each device alone (its tuned time, the t_i of Eq. 4), the theoretical time "
                   "of the split (Algorithm 1), the co-execution's measured wall and "
                   "kernel-only times for each scheduler, and the fastest device's wall time "
                   "alone measured with the same clock.\n\n");
    no_pictures(b, f);
    for (size_t i = 0; i < m->ncases; i++) {
        const struct rp_case *c = &m->cases[i];
        struct rp_bar *bars = NULL;
        size_t n = 0;
        int rc;
        if (c->nsplits == 0)
            continue;
        rc = ht__report_fig5_bars(m, c, &bars, &n, err);
        if (rc != HT_OK)
            return rc;
        ht__rp_puts(b, "### ");
        ht__rp_md_text(b, c->label);
        ht__rp_puts(b, "\n\n");
        image(b, &f->fig5[k++]);
        ht__rp_puts(b, "| bar | time |\n| --- | ---: |\n");
        for (size_t j = 0; j < n; j++) {
            char t[32];
            ht_format_seconds(bars[j].seconds, t, sizeof t);
            ht__rp_puts(b, "| ");
            ht__rp_md_text(b, bars[j].label);
            ht__rp_printf(b, " | %s |\n", t);
        }
        ht__rp_puts(b, "\n");
        free(bars);
    }
    return HT_OK;
}

static void sweeps_md(const struct rp_model *m, const struct rp_figures *f, struct rp_buf *b)
{
    size_t k = 0;

    ht__rp_puts(b, "## Figures 6 and 7: split factor evaluations\n\n");
    if (f->nsweep == 0) {
        ht__rp_puts(b, "No sweep in the database: `hetune split --sweep STEP` or `hetune run "
                       "--sweep STEP` with two devices makes them.\n\n");
        return;
    }
    ht__rp_puts(b, "The time of the co-execution on two devices against the first device's "
                   "split factor f: measured (wall, and kernel-only) at each point of the "
                   "sweep, and theoretical, max(f t0, (1 - f) t1) from the tuned times. The "
                   "circle is the factor the method computed (the split's adjusted factor) "
                   "at its measured wall time.\n\n");
    no_pictures(b, f);
    for (size_t i = 0; i < m->ncases; i++) {
        const struct rp_case *c = &m->cases[i];
        for (size_t s = 0; s < c->nsweeps; s++) {
            const struct rp_sweep *sw = &c->sweeps[s];
            const struct ht_stored_split *sp = &sw->split;
            char d0[64], d1[64], t[32];
            const char *l0 = sp->ndevices > 0
                                 ? ht__report_device_label(m, sp->devices[0].device_id, d0,
                                                           sizeof d0)
                                 : "device 0";
            const char *l1 = sp->ndevices > 1
                                 ? ht__report_device_label(m, sp->devices[1].device_id, d1,
                                                           sizeof d1)
                                 : "device 1";
            ht__rp_puts(b, "### ");
            ht__rp_md_text(b, c->label);
            ht__rp_printf(b, ", split along %s\n\n", ht__report_dim_name(sp->dim));
            image(b, &f->sweep[k++]);
            if (sp->ndevices > 0 && sp->devices[0].adjusted_factor >= 0) {
                ht_format_seconds(sp->seconds, t, sizeof t);
                ht__rp_puts(b, "Computed factor of ");
                ht__rp_md_text(b, l0);
                ht__rp_printf(b, ": %.3f adjusted", sp->devices[0].adjusted_factor);
                if (sp->devices[0].optimal_factor >= 0)
                    ht__rp_printf(b, " (optimal %.3f)", sp->devices[0].optimal_factor);
                ht__rp_printf(b, ", measured wall %s.\n\n", t);
            }
            ht__rp_puts(b, "| f (");
            ht__rp_md_text(b, l0);
            ht__rp_puts(b, ") | 1 - f (");
            ht__rp_md_text(b, l1);
            ht__rp_puts(b, ") | theoretical | wall | kernel | verified |\n"
                           "| ---: | ---: | ---: | ---: | ---: | --- |\n");
            for (size_t j = 0; j < sw->npoints; j++) {
                const struct ht_stored_sweep_point *p = &sw->points[j];
                char tt[3][32];
                ht_format_seconds(p->theoretical_seconds, tt[0], sizeof tt[0]);
                ht_format_seconds(p->seconds, tt[1], sizeof tt[1]);
                ht_format_seconds(p->kernel_seconds, tt[2], sizeof tt[2]);
                ht__rp_printf(b, "| %.3f | %.3f | %s | %s | %s | %s |\n", p->factor,
                              1.0 - p->factor, tt[0], tt[1], tt[2],
                              p->verified == 1 ? "yes" : p->verified == 0 ? "**no**" : "-");
            }
            ht__rp_puts(b, "\n");
        }
    }
}

/* The tuning figures: per case and device, its configuration times and its runs'
 * best-so-far, each with a table of its numbers (tuning figures follow the order of
 * ht__report_figures: per case, per device, times then runs). */
static void tuning_figures_md(const struct rp_model *m, const struct rp_figures *f,
                              struct rp_buf *b)
{
    size_t k = 0;

    ht__rp_puts(b, "## Tuning: configuration times and search convergence\n\n");
    if (f->ntune == 0) {
        ht__rp_puts(b, "No evaluation in the database: `hetune tune` or `hetune run` makes "
                       "them.\n\n");
        return;
    }
    ht__rp_puts(b, "For each device, the time of every configuration that ran to a time, "
                   "fastest first on a log axis (those cut early at their partial time, a lower "
                   "bound; the failed ones counted), "
                   "and for each tuning run the best time found so far against the number of "
                   "evaluations and against the run's clock: wall time since its search "
                   "began, or simulated time for a replayed recording (its results are never "
                   "mixed with measured ones: a replay has a device of its own). A run that "
                   "found results stored before it knew them without evaluating them.\n\n");
    no_pictures(b, f);
    for (size_t i = 0; i < m->ncases; i++) {
        const struct rp_case *c = &m->cases[i];
        size_t r = 0;
        for (size_t d = 0; d <= c->ndists; d++) {
            int64_t dev = d < c->ndists ? c->dists[d].device_id : INT64_MAX;
            if (d < c->ndists) {
                const struct rp_dist *ds = &c->dists[d];
                char tt[3][32];
                ht__rp_puts(b, "### ");
                ht__rp_md_text(b, f->tune[k].title);
                ht__rp_puts(b, "\n\n");
                image(b, &f->tune[k++]);
                ht_format_seconds(ds->ntimes ? ds->times[0] : -1, tt[0], sizeof tt[0]);
                ht_format_seconds(ds->ntimes ? ds->times[ds->ntimes / 2] : -1, tt[1],
                                  sizeof tt[1]);
                ht_format_seconds(ds->ntimes ? ds->times[ds->ntimes - 1] : -1, tt[2],
                                  sizeof tt[2]);
                ht__rp_printf(b, "| evaluations | timed | cut | failed | fastest | median | "
                                 "slowest |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
                                 "| %llu | %zu | %llu | %llu | %s | %s | %s |\n\n",
                              (unsigned long long)ds->evaluations, ds->ntimes,
                              (unsigned long long)ds->cut, (unsigned long long)ds->failed,
                              tt[0], tt[1], tt[2]);
            }
            if (r < c->nruns && c->runs[r].run.device_id <= dev) {
                ht__rp_puts(b, "### ");
                ht__rp_md_text(b, f->tune[k].title);
                ht__rp_puts(b, "\n\n");
                image(b, &f->tune[k++]);
                ht__rp_puts(b, "| run | strategy | seed | budget | evaluations | stored before "
                               "| best | at evaluation | at clock |\n"
                               "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
                for (int64_t id = c->runs[r].run.device_id;
                     r < c->nruns && c->runs[r].run.device_id == id; r++) {
                    const struct rp_run *run = &c->runs[r];
                    double best = run->run.best_before_s, at = -1;
                    size_t at_i = 0;
                    char tb[32], tc[32], tbud[32], tat[32];
                    for (size_t j = 0; j < run->nsteps; j++)
                        if (run->steps[j].seconds > 0 &&
                            (best < 0 || run->steps[j].seconds < best)) {
                            best = run->steps[j].seconds;
                            at = run->steps[j].elapsed_s;
                            at_i = j + 1;
                        }
                    ht_format_seconds(best, tb, sizeof tb);
                    ht_format_seconds(at, tc, sizeof tc);
                    snprintf(tbud, sizeof tbud, "%llu", (unsigned long long)run->run.budget);
                    snprintf(tat, sizeof tat, "%zu", at_i);
                    ht__rp_printf(b, "| %lld | ", (long long)run->run.id);
                    ht__rp_md_text(b, run->run.strategy);
                    ht__rp_printf(b, " | %llu | %s | %zu | %llu | %s | %s | %s%s |\n",
                                  (unsigned long long)run->run.seed,
                                  run->run.budget ? tbud : "-", run->nsteps,
                                  (unsigned long long)run->run.from_db, tb,
                                  at_i ? tat : "-", tc,
                                  run->run.replayed && at >= 0 ? " simulated" : "");
                }
                ht__rp_puts(b, "\n");
            }
        }
    }
}

int ht__report_markdown(const struct rp_model *m, const struct rp_figures *f, const char *dir,
                        struct ht_error *err)
{
    struct rp_buf b = {NULL, 0, 0, 0};
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    int rc;

    if (gmtime_r(&now, &tm))
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    else
        snprintf(stamp, sizeof stamp, "(unknown time)");
    ht__rp_puts(&b, "# hetune report\n\n");
    ht__rp_puts(&b, "From the results database `");
    ht__rp_md_text(&b, m->db);
    ht__rp_printf(&b, "` (schema version %lld), written %s: %zu case stud%s on %zu "
                      "device%s. The tables and figures follow Erdem et al. 2018 (Tables 1-3, "
                      "Figures 5-7); every table is also a CSV file in this folder.\n\n",
                  (long long)m->schema_version, stamp, m->ncases, m->ncases == 1 ? "y" : "ies",
                  m->ndevices, m->ndevices == 1 ? "" : "s");
    devices_md(m, &b);
    rc = spaces_md(m, &b, err);
    if (rc == HT_OK) {
        tuning_md(m, &b);
        table3_md(m, &b);
        rc = fig5_md(m, f, &b, err);
    }
    if (rc == HT_OK) {
        sweeps_md(m, f, &b);
        tuning_figures_md(m, f, &b);
        ht__rp_puts(&b, "## Files\n\n"
                        "- `devices.csv`: the devices\n"
                        "- `spaces.csv`: Tables 1 and 2\n"
                        "- `tuning.csv`: the best configuration per device\n"
                        "- `factors.csv`: Table 3, every scheduler, one line per device\n"
                        "- `times.csv`: Figure 5's numbers\n"
                        "- `sweep.csv`: Figures 6 and 7's numbers\n"
                        "- `tune-<case>-<device>-times.dat`: one device's configuration "
                        "times, one row per configuration with a time (ok or cut)\n"
                        "- `tune-<case>-<device>-best.dat`: the best-so-far of each tuning "
                        "run, one row per evaluation, one block per run\n");
        rc = ht__rp_write(dir, "report.md", &b, err);
    }
    ht__rp_free(&b);
    return rc;
}
