/* The report's figures: a data file and a gnuplot script per figure, drawn by running
 * gnuplot on each script inside the report's folder. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report-internal.h"
#include "util/util.h"

/* The kinds of bars of Figure 5 and their colours (Paul Tol's bright scheme). */
static const struct {
    const char *title, *colour;
} kinds[] = {
    {NULL, NULL},
    {"device alone (tuned)", "#4477aa"},
    {"theoretical (Algorithm 1)", "#ee7733"},
    {"co-execution, wall", "#228833"},
    {"co-execution, kernel-only", "#99cc99"},
    {"fastest device alone, wall", "#777777"},
};

/* --- Figure 5's bars --- */

static int add_bar(struct rp_bar **bars, size_t *n, const char *label, double seconds, int kind)
{
    struct rp_bar *grown;

    if (!(seconds >= 0) || !isfinite(seconds))
        return 0; /* unknown: no bar */
    grown = realloc(*bars, (*n + 1) * sizeof **bars);
    if (!grown)
        return -1;
    *bars = grown;
    snprintf(grown[*n].label, sizeof grown[*n].label, "%s", label);
    grown[*n].seconds = seconds;
    grown[*n].kind = kind;
    (*n)++;
    return 0;
}

int ht__report_fig5_bars(const struct rp_model *m, const struct rp_case *c,
                         struct rp_bar **bars, size_t *n, struct ht_error *err)
{
    char label[160], tmp[64];
    int bad = 0, several_dims = 0;
    const struct ht_stored_split *newest = NULL;

    *bars = NULL;
    *n = 0;
    if (c->nsplits == 0)
        return HT_OK;
    for (size_t k = 1; k < c->nsplits; k++)
        several_dims |= c->splits[k].dim != c->splits[0].dim;
    for (size_t k = 0; k < c->nsplits; k++)
        if (!newest || c->splits[k].id > newest->id)
            newest = &c->splits[k];

    /* Each device alone, its time from the newest split that has it, in the order the
     * splits list the devices. */
    for (size_t k = 0; k < c->nsplits; k++) {
        for (size_t j = 0; j < c->splits[k].ndevices; j++) {
            int64_t id = c->splits[k].devices[j].device_id;
            const struct ht_stored_split_device *best = NULL;
            const struct ht_stored_split *best_split = NULL;
            int seen = 0;
            for (size_t a = 0; a < k && !seen; a++)
                for (size_t b = 0; b < c->splits[a].ndevices; b++)
                    seen |= c->splits[a].devices[b].device_id == id;
            for (size_t b = 0; b < j; b++)
                seen |= c->splits[k].devices[b].device_id == id;
            if (seen)
                continue;
            for (size_t a = 0; a < c->nsplits; a++)
                for (size_t b = 0; b < c->splits[a].ndevices; b++)
                    if (c->splits[a].devices[b].device_id == id &&
                        (!best_split || c->splits[a].id > best_split->id)) {
                        best_split = &c->splits[a];
                        best = &c->splits[a].devices[b];
                    }
            snprintf(label, sizeof label, "%s alone",
                     ht__report_device_label(m, id, tmp, sizeof tmp));
            bad |= add_bar(bars, n, label, best->time_seconds, 1);
        }
    }
    /* Per dimension: the theoretical time, then every scheduler's wall and kernel time. */
    for (size_t k = 0; k < c->nsplits; k++) {
        const struct ht_stored_split *sp = &c->splits[k];
        char dim[16] = "";
        if (several_dims)
            snprintf(dim, sizeof dim, " %s", ht__report_dim_name(sp->dim));
        if (k == 0 || c->splits[k - 1].dim != sp->dim) {
            double theo = -1;
            for (size_t a = k; a < c->nsplits && c->splits[a].dim == sp->dim; a++)
                if (theo < 0 && c->splits[a].theoretical_seconds >= 0)
                    theo = c->splits[a].theoretical_seconds;
            snprintf(label, sizeof label, "theoretical%s", dim);
            bad |= add_bar(bars, n, label, theo, 2);
        }
        snprintf(label, sizeof label, "%s%s wall", sp->scheduler, dim);
        bad |= add_bar(bars, n, label, sp->seconds, 3);
        snprintf(label, sizeof label, "%s%s kernel", sp->scheduler, dim);
        bad |= add_bar(bars, n, label, sp->kernel_seconds, 4);
    }
    bad |= add_bar(bars, n, "fastest alone wall", newest->alone_seconds, 5);
    if (bad) {
        free(*bars);
        *bars = NULL;
        *n = 0;
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    return HT_OK;
}

/* --- scripts --- */

/* A unit for times up to max seconds: its name and the factor seconds are multiplied by. */
static void pick_unit(double max, const char **name, double *scale)
{
    if (max >= 1.0) {
        *name = "s";
        *scale = 1.0;
    } else if (max >= 1e-3) {
        *name = "ms";
        *scale = 1e3;
    } else {
        *name = "us";
        *scale = 1e6;
    }
}

/* A gnuplot single-quoted string: quotes doubled. */
static void gp_string(struct rp_buf *b, const char *s)
{
    ht__rp_puts(b, "'");
    for (const char *p = s; *p; p++)
        ht__rp_puts(b, *p == '\'' ? "''" : (char[2]){*p, '\0'});
    ht__rp_puts(b, "'");
}

/* A label in a data file: double-quoted, so a double quote inside becomes a single one. */
static void dat_label(struct rp_buf *b, const char *s)
{
    ht__rp_puts(b, "\"");
    for (const char *p = s; *p; p++)
        ht__rp_puts(b, *p == '"' ? "'" : (char[2]){*p, '\0'});
    ht__rp_puts(b, "\"");
}

static void dat_value(struct rp_buf *b, double seconds, double scale)
{
    if (seconds >= 0 && isfinite(seconds))
        ht__rp_printf(b, " %.6g", seconds * scale);
    else
        ht__rp_puts(b, " NaN");
}

/* The head of every script: PNG through cairo when this gnuplot has it, else libgd. */
static void script_head(struct rp_buf *b, const struct rp_figure *f)
{
    ht__rp_printf(b, "# %s\n# Written by hetune report; run 'gnuplot %s.gp' in this folder.\n",
                  f->title, f->base);
    ht__rp_puts(b, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                   "    set terminal pngcairo size 960,600 noenhanced font ',10'\n"
                   "} else {\n"
                   "    set terminal png size 960,600 noenhanced\n"
                   "}\n");
    ht__rp_printf(b, "set output '%s.png'\n", f->base);
    ht__rp_puts(b, "set title ");
    gp_string(b, f->title);
    ht__rp_puts(b, "\n");
}

static void script_tail(struct rp_buf *b, const struct rp_figure *f)
{
    ht__rp_printf(b, "set terminal svg size 960,600 noenhanced font 'sans,10' background "
                     "'#ffffff'\nset output '%s.svg'\nreplot\nset output\n",
                  f->base);
}

/* Writes figure f's data (dat) and gnuplot script (gp) as DIR/<base>.dat and .gp, and
 * frees both. */
static int write_figure(const char *dir, const struct rp_figure *f, struct rp_buf *dat,
                        struct rp_buf *gp, struct ht_error *err)
{
    char name[512];
    int rc;

    snprintf(name, sizeof name, "%s.dat", f->base);
    rc = ht__rp_write(dir, name, dat, err);
    snprintf(name, sizeof name, "%s.gp", f->base);
    if (rc == HT_OK)
        rc = ht__rp_write(dir, name, gp, err);
    ht__rp_free(dat);
    ht__rp_free(gp);
    return rc;
}

static int write_fig5(const struct rp_model *m, const struct rp_case *c, const char *dir,
                      struct rp_figure *f, struct ht_error *err)
{
    struct rp_buf dat = {NULL, 0, 0, 0}, gp = {NULL, 0, 0, 0};
    struct rp_bar *bars = NULL;
    size_t n = 0;
    double max = 0, scale;
    const char *unit;
    int present[6] = {0}, rc;

    rc = ht__report_fig5_bars(m, c, &bars, &n, err);
    if (rc != HT_OK)
        return rc;
    snprintf(f->base, sizeof f->base, "fig5-%s", c->slug);
    f->title = ht__asprintf("Figure 5: execution times, %s", c->label);
    if (!f->title) {
        free(bars);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        if (bars[i].seconds > max)
            max = bars[i].seconds;
        present[bars[i].kind] = 1;
    }
    pick_unit(max, &unit, &scale);

    ht__rp_printf(&dat, "# %s\n# bar, time (%s), kind (1 device alone, 2 theoretical, 3 "
                        "wall, 4 kernel, 5 fastest alone wall)\n",
                  f->title, unit);
    for (size_t i = 0; i < n; i++) {
        dat_label(&dat, bars[i].label);
        dat_value(&dat, bars[i].seconds, scale);
        ht__rp_printf(&dat, " %d\n", bars[i].kind);
    }

    script_head(&gp, f);
    ht__rp_printf(&gp,
                  "set ylabel 'time (%s)'\n"
                  "set style fill solid 0.85 border -1\n"
                  "set yrange [0:*]\n"
                  "set offsets 0, 0, graph 0.08, 0\n"
                  "set xrange [-0.6:%zu.4]\n"
                  "set xtics rotate by 30 right nomirror\n"
                  "set grid ytics\n"
                  "set key below\n",
                  unit, n ? n - 1 : 0);
    for (int k = 1; k <= 5; k++)
        ht__rp_printf(&gp, "set linetype %d lc rgb '%s'\n", k, kinds[k].colour);
    ht__rp_printf(&gp,
                  "plot '%s.dat' using 0:2:(0.7):3:xtic(1) with boxes lc variable notitle, \\\n"
                  "     '' using 0:2:(sprintf('%%.3g', $2)) with labels offset 0,0.7 notitle",
                  f->base);
    for (int k = 1; k <= 5; k++)
        if (present[k]) {
            ht__rp_printf(&gp, ", \\\n     NaN with boxes lt %d title ", k);
            gp_string(&gp, kinds[k].title);
        }
    ht__rp_puts(&gp, "\n");
    script_tail(&gp, f);

    rc = write_figure(dir, f, &dat, &gp, err);
    free(bars);
    return rc;
}

/* Figures 6 and 7: time against device 0's split factor. */
static int write_sweep(const struct rp_model *m, const struct rp_case *c,
                       const struct rp_sweep *s, const char *dir, struct rp_figure *f,
                       struct ht_error *err)
{
    struct rp_buf dat = {NULL, 0, 0, 0}, gp = {NULL, 0, 0, 0};
    const struct ht_stored_split *sp = &s->split;
    int two = sp->ndevices == 2 && sp->devices[0].time_seconds > 0 &&
              sp->devices[1].time_seconds > 0;
    double max = 0, scale;
    const char *unit, *d0, *d1;
    char t0[64], t1[64];
    int rc;

    snprintf(f->base, sizeof f->base, "sweep-%s-dim%u", c->slug, sp->dim);
    f->title = ht__asprintf("Split factor evaluations: %s, split along %s", c->label,
                            ht__report_dim_name(sp->dim));
    if (!f->title)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    d0 = sp->ndevices > 0 ? ht__report_device_label(m, sp->devices[0].device_id, t0, sizeof t0)
                          : "device 0";
    d1 = sp->ndevices > 1 ? ht__report_device_label(m, sp->devices[1].device_id, t1, sizeof t1)
                          : "device 1";
    for (size_t i = 0; i < s->npoints; i++) {
        const struct ht_stored_sweep_point *p = &s->points[i];
        if (p->seconds > max)
            max = p->seconds;
        if (p->kernel_seconds > max)
            max = p->kernel_seconds;
        if (p->theoretical_seconds > max)
            max = p->theoretical_seconds;
    }
    if (sp->seconds > max)
        max = sp->seconds;
    pick_unit(max, &unit, &scale);

    ht__rp_printf(&dat, "# %s\n# factor of %s, measured wall (%s), measured kernel-only, "
                        "theoretical\n",
                  f->title, d0, unit);
    for (size_t i = 0; i < s->npoints; i++) {
        const struct ht_stored_sweep_point *p = &s->points[i];
        ht__rp_printf(&dat, "%.6g", p->factor);
        dat_value(&dat, p->seconds, scale);
        dat_value(&dat, p->kernel_seconds, scale);
        dat_value(&dat, p->theoretical_seconds, scale);
        ht__rp_puts(&dat, "\n");
    }

    script_head(&gp, f);
    ht__rp_puts(&gp, "$computed << EOD\n");
    if (sp->ndevices > 0 && sp->devices[0].adjusted_factor >= 0 && sp->seconds >= 0)
        ht__rp_printf(&gp, "%.6g %.6g\n", sp->devices[0].adjusted_factor, sp->seconds * scale);
    else
        ht__rp_puts(&gp, "NaN NaN\n");
    ht__rp_puts(&gp, "EOD\n");
    ht__rp_puts(&gp, "set xlabel ");
    {
        char text[256];
        snprintf(text, sizeof text, "split factor f of %s (%s takes 1 - f)", d0, d1);
        gp_string(&gp, text);
    }
    ht__rp_printf(&gp,
                  "\nset ylabel 'time (%s)'\n"
                  "set xrange [0:1]\n"
                  "set yrange [0:*]\n"
                  "set grid\n"
                  "set key below\n"
                  "set samples 401\n",
                  unit);
    if (two) {
        /* The paper's dashed theoretical curve: Algorithm 1 at every factor. */
        ht__rp_printf(&gp,
                      "t0 = %.9g\nt1 = %.9g\nmax(a, b) = a > b ? a : b\n"
                      "theory(f) = max(f * t0, (1 - f) * t1)\n"
                      "plot theory(x) with lines dt 2 lw 2 lc rgb '#4477aa' "
                      "title 'theoretical max(f t0, (1 - f) t1)', \\\n",
                      sp->devices[0].time_seconds * scale, sp->devices[1].time_seconds * scale);
    } else {
        ht__rp_printf(&gp, "plot '%s.dat' using 1:4 with lines dt 2 lw 2 lc rgb '#4477aa' "
                           "title 'theoretical', \\\n",
                      f->base);
    }
    ht__rp_printf(&gp,
                  "     '%s.dat' using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#228833' "
                  "title 'measured, wall', \\\n"
                  "     '' using 1:3 with linespoints dt 3 lw 1.5 pt 7 ps 0.5 lc rgb '#66aa66' "
                  "title 'measured, kernel-only', \\\n"
                  "     $computed using 1:2 with points pt 6 ps 3 lw 2 lc rgb '#cc3311' "
                  "title 'computed factor (the split)'\n",
                  f->base);
    script_tail(&gp, f);

    rc = write_figure(dir, f, &dat, &gp, err);
    return rc;
}

/* --- tuning: each device's configuration times and each run's best-so-far --- */

/* The head of a figure drawn twice (PNG, then SVG) because it is a multiplot, which
 * gnuplot's replot cannot redraw: the body is written after each terminal. */
static void script_twice(struct rp_buf *gp, const struct rp_figure *f, const char *body)
{
    ht__rp_printf(gp, "# %s\n# Written by hetune report; run 'gnuplot %s.gp' in this folder.\n",
                  f->title, f->base);
    ht__rp_puts(gp, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                    "    set terminal pngcairo size 1200,520 noenhanced font ',10'\n"
                    "} else {\n"
                    "    set terminal png size 1200,520 noenhanced\n"
                    "}\n");
    ht__rp_printf(gp, "set output '%s.png'\n%s", f->base, body);
    ht__rp_printf(gp, "set terminal svg size 1200,520 noenhanced font 'sans,10' background "
                      "'#ffffff'\nset output '%s.svg'\n%sset output\n",
                  f->base, body);
}

/* The time axis of a tuning figure whose times lie in [lo, hi]: logarithmic where they
 * span a decade or more (gnuplot then labels the decades), else linear, since a log axis
 * narrower than a decade gets one label or none. yfix: the data's own range, not whole
 * decades or round numbers around it. */
static void time_axis(struct rp_buf *b, double lo, double hi)
{
    ht__rp_printf(b, "%sset autoscale yfix\nset offsets 0, 0, graph 0.08, graph 0.08\n",
                  lo > 0 && hi >= 10 * lo ? "set logscale y\n" : "");
}

static const char *const run_colours[] = {"#4477aa", "#ee6677", "#228833", "#ccbb44",
                                          "#66ccee", "#aa3377", "#bbbbbb", "#000000"};

/* The distribution of one device's configuration times: every configuration with a time
 * by rank, fastest first, on a log time axis: those timed in full, and those cut early at
 * their partial time (a lower bound); the failed ones counted in the title. */
static int write_tune_times(const struct rp_model *m, const struct rp_case *c,
                            const struct rp_dist *d, const char *dir, struct rp_figure *f,
                            struct ht_error *err)
{
    struct rp_buf dat = {NULL, 0, 0, 0}, gp = {NULL, 0, 0, 0};
    const struct rp_device *dev = ht__report_device(m, d->device_id);
    size_t n = d->ntimes + d->ncut_times;
    double max = 0, scale;
    const char *unit;
    char tmp[64], lname[64];
    int rc;

    snprintf(f->base, sizeof f->base, "tune-%.280s-%.90s-times", c->slug,
             dev ? dev->slug : "device");
    snprintf(lname, sizeof lname, "%s", ht__report_device_label(m, d->device_id, tmp, sizeof tmp));
    f->title = ht__asprintf("Configuration times: %s on %s%s (%llu evaluations: %zu timed, "
                            "%llu cut, %llu failed)",
                            c->label, lname, d->replayed ? ", replayed" : "",
                            (unsigned long long)d->evaluations, d->ntimes,
                            (unsigned long long)d->cut, (unsigned long long)d->failed);
    if (!f->title)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    if (d->ntimes)
        max = d->times[d->ntimes - 1];
    if (d->ncut_times && d->cut_times[d->ncut_times - 1] > max)
        max = d->cut_times[d->ncut_times - 1];
    pick_unit(max, &unit, &scale);

    ht__rp_printf(&dat, "# %s\n# evaluations %llu, timed %zu, cut %llu, failed %llu%s\n"
                        "# rank (fastest first), time (s), status (ok: timed in full; cut: "
                        "stopped early, its time a lower bound)\n",
                  f->title, (unsigned long long)d->evaluations, d->ntimes,
                  (unsigned long long)d->cut, (unsigned long long)d->failed,
                  d->replayed ? "; replayed: recorded times, not measured here" : "");
    /* The two sorted lists merged: the rank is among every configuration with a time. */
    for (size_t i = 0, a = 0, b = 0; i < n; i++) {
        int cut = a == d->ntimes || (b < d->ncut_times && d->cut_times[b] < d->times[a]);
        ht__rp_printf(&dat, "%zu %.9g %s\n", i + 1, cut ? d->cut_times[b++] : d->times[a++],
                      cut ? HT_STORE_CUT : HT_STORE_OK);
    }

    script_head(&gp, f);
    ht__rp_printf(&gp,
                  "set xlabel 'configurations, fastest first (rank)'\n"
                  "set ylabel 'kernel time (%s)'\n"
                  "set grid\n"
                  "set key top left\n",
                  unit);
    if (n == 0) {
        /* gnuplot refuses a plot with no point: say so on an empty frame instead. */
        ht__rp_puts(&gp, "set xrange [0:1]\nset yrange [0:1]\n"
                         "set label 1 'no configuration ran to a time' at graph 0.5, 0.5 "
                         "center\nplot NaN notitle\n");
    } else {
        char key[256];
        double lo = d->ntimes ? d->times[0] : d->cut_times[0];
        if (d->ncut_times && d->cut_times[0] < lo)
            lo = d->cut_times[0];
        time_axis(&gp, lo, max);
        ht__rp_printf(&gp, "set xrange [0.5:%zu.5]\nplot '%s.dat' using 1:(strcol(3) eq "
                           "'ok' ? $2 * %g : NaN) with points pt 7 ps 0.8 lc rgb '#4477aa' title ",
                      n, f->base, scale);
        if (d->ntimes)
            snprintf(key, sizeof key, "%zu timed in full (fastest %.3g %s)", d->ntimes,
                     d->times[0] * scale, unit);
        else
            snprintf(key, sizeof key, "none timed in full");
        gp_string(&gp, key);
        ht__rp_printf(&gp, ", \\\n     '' using 1:(strcol(3) eq 'cut' ? $2 * %g : NaN) with "
                           "points pt 6 ps 0.8 lc rgb '#ee7733' title ",
                      scale);
        snprintf(key, sizeof key, "%llu cut early (at least this long)%s",
                 (unsigned long long)d->cut, d->failed ? "" : "; none failed");
        gp_string(&gp, key);
        if (d->failed) {
            snprintf(key, sizeof key, "%llu failed (no time, not drawn)",
                     (unsigned long long)d->failed);
            ht__rp_puts(&gp, ", \\\n     NaN with points pt 2 lc rgb '#cc3311' title ");
            gp_string(&gp, key);
        }
        ht__rp_puts(&gp, "\n");
    }
    script_tail(&gp, f);

    rc = write_figure(dir, f, &dat, &gp, err);
    return rc;
}

/* The best-so-far of every run of case c on one device (runs[first, last)): against the
 * evaluation number and against the run's clock, one line per run. */
static int write_tune_best(const struct rp_model *m, const struct rp_case *c, size_t first,
                           size_t last, const char *dir, struct rp_figure *f,
                           struct ht_error *err)
{
    struct rp_buf dat = {NULL, 0, 0, 0}, gp = {NULL, 0, 0, 0}, body = {NULL, 0, 0, 0};
    int64_t device_id = c->runs[first].run.device_id;
    const struct rp_device *dev = ht__report_device(m, device_id);
    int replayed = 0, any_best = 0;
    double tmax = 0, smax = 0, smin = 0, tscale, sscale;
    const char *tunit, *sunit;
    char tmp[64], lname[64];
    int rc;

    for (size_t k = first; k < last; k++) {
        replayed |= c->runs[k].run.replayed;
        for (size_t j = 0; j < c->runs[k].nsteps; j++) {
            const struct rp_step *st = &c->runs[k].steps[j];
            if (st->elapsed_s > tmax)
                tmax = st->elapsed_s;
            if (st->seconds > 0) {
                any_best = 1;
                if (st->seconds > smax)
                    smax = st->seconds;
                if (smin <= 0 || st->seconds < smin)
                    smin = st->seconds;
            }
        }
        if (c->runs[k].run.best_before_s > 0) {
            any_best = 1;
            if (c->runs[k].run.best_before_s > smax)
                smax = c->runs[k].run.best_before_s;
            if (smin <= 0 || c->runs[k].run.best_before_s < smin)
                smin = c->runs[k].run.best_before_s;
        }
    }
    pick_unit(smax, &sunit, &sscale);
    pick_unit(tmax, &tunit, &tscale);
    snprintf(f->base, sizeof f->base, "tune-%.280s-%.90s-best", c->slug,
             dev ? dev->slug : "device");
    snprintf(lname, sizeof lname, "%s", ht__report_device_label(m, device_id, tmp, sizeof tmp));
    f->title = ht__asprintf("Search convergence: %s on %s%s, %zu run%s", c->label, lname,
                            replayed ? ", replayed (simulated clock)" : "", last - first,
                            last - first == 1 ? "" : "s");
    if (!f->title)
        return ht_error_set(err, HT_ENOMEM, "out of memory");

    /* One block per run, two blank lines apart (gnuplot's index). */
    ht__rp_printf(&dat, "# %s\n# run, strategy, evaluation, clock (s: %s), its time (s), "
                        "best so far (s), status; NaN: none\n",
                  f->title, replayed ? "simulated, the recording's costs" :
                  "wall, since the search began");
    for (size_t k = first; k < last; k++) {
        const struct rp_run *r = &c->runs[k];
        /* A run that found results stored starts from their best. */
        double best = r->run.best_before_s;
        if (k > first)
            ht__rp_puts(&dat, "\n\n");
        char before[48] = "none";
        if (r->run.best_before_s > 0)
            snprintf(before, sizeof before, "%.9g s", r->run.best_before_s);
        ht__rp_printf(&dat, "# run %lld: %s, seed %llu, budget %llu, %zu evaluations, %llu "
                            "known from the database before it (their best: %s), started "
                            "%s\n",
                      (long long)r->run.id, r->run.strategy, (unsigned long long)r->run.seed,
                      (unsigned long long)r->run.budget, r->nsteps,
                      (unsigned long long)r->run.from_db, before, r->run.created_at);
        for (size_t j = 0; j < r->nsteps; j++) {
            const struct rp_step *st = &r->steps[j];
            if (st->seconds > 0 && (best < 0 || st->seconds < best))
                best = st->seconds;
            ht__rp_printf(&dat, "%lld %s %zu %.9g ", (long long)r->run.id, r->run.strategy,
                          j + 1, st->elapsed_s);
            if (st->seconds > 0)
                ht__rp_printf(&dat, "%.9g", st->seconds);
            else
                ht__rp_puts(&dat, "NaN");
            if (best > 0)
                ht__rp_printf(&dat, " %.9g %s\n", best, st->status);
            else
                ht__rp_printf(&dat, " NaN %s\n", st->status);
        }
    }

    ht__rp_puts(&body, "set multiplot layout 1, 2 title ");
    gp_string(&body, f->title);
    ht__rp_printf(&body, "\nset grid\nset key top right\nset ylabel 'best kernel time so far "
                         "(%s)'\n%s",
                  sunit, any_best ? "" : "set yrange [0:1]\n");
    if (any_best)
        time_axis(&body, smin, smax);
    for (int panel = 0; panel < 2; panel++) {
        if (panel == 0)
            ht__rp_puts(&body, "set xlabel 'evaluation'\n");
        else
            ht__rp_printf(&body, "set xlabel '%s (%s)'\n",
                          replayed ? "simulated time" : "wall time since the search began",
                          tunit);
        ht__rp_puts(&body, "plot ");
        for (size_t k = first; k < last; k++) {
            const struct rp_run *r = &c->runs[k];
            char key[256];
            int n = snprintf(key, sizeof key, "%s (run %lld", r->run.strategy,
                             (long long)r->run.id);
            if (n > 0 && (size_t)n < sizeof key && r->run.from_db)
                n += snprintf(key + n, sizeof key - (size_t)n, ", after %llu stored",
                              (unsigned long long)r->run.from_db);
            if (n > 0 && (size_t)n < sizeof key)
                snprintf(key + n, sizeof key - (size_t)n, ")");
            if (k > first)
                ht__rp_puts(&body, ", \\\n     ");
            if (panel == 0)
                ht__rp_printf(&body, "'%s.dat' index %zu using 3:($6 * %g)", f->base,
                              k - first, sscale);
            else
                ht__rp_printf(&body, "'%s.dat' index %zu using ($4 * %g):($6 * %g)", f->base,
                              k - first, tscale, sscale);
            ht__rp_printf(&body, " with steps lw 2 lc rgb '%s' title ",
                          run_colours[(k - first) % (sizeof run_colours / sizeof *run_colours)]);
            gp_string(&body, any_best ? key : "no configuration ran to a time");
        }
        ht__rp_puts(&body, "\n");
    }
    ht__rp_puts(&body, "unset multiplot\n");
    script_twice(&gp, f, body.p ? body.p : "");
    if (body.oom)
        gp.oom = 1;

    rc = write_figure(dir, f, &dat, &gp, err);
    ht__rp_free(&body);
    return rc;
}

/* --- running gnuplot --- */

/* Finds prog (a path, or a name searched on PATH) as an executable file; the path goes to
 * *out (owned by the caller). Returns 0 when found. */
static int find_program(const char *prog, char **out)
{
    const char *path = getenv("PATH");
    struct stat st;

    *out = NULL;
    if (strchr(prog, '/')) {
        if (stat(prog, &st) == 0 && S_ISREG(st.st_mode) && access(prog, X_OK) == 0)
            *out = ht__strdup(prog);
        return *out ? 0 : -1;
    }
    if (!path)
        return -1;
    while (*path) {
        size_t len = strcspn(path, ":");
        /* An empty entry is the current folder, as for execvp. */
        char *cand = len ? ht__asprintf("%.*s/%s", (int)len, path, prog)
                         : ht__asprintf("./%s", prog);
        if (cand && stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
            *out = cand;
            return 0;
        }
        free(cand);
        path += len;
        if (*path == ':')
            path++;
    }
    return -1;
}

/* Runs `prog script` inside dir with its output appended to log (a descriptor). Returns
 * the exit status, or -1 when it could not be run. */
static int run_gnuplot(const char *prog, const char *dir, const char *script, int log)
{
    pid_t pid = fork();
    int status;

    if (pid < 0)
        return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, STDIN_FILENO);
        dup2(log, STDOUT_FILENO);
        dup2(log, STDERR_FILENO);
        if (chdir(dir) == 0)
            execl(prog, prog, script, (char *)NULL);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static int nonempty(const char *dir, const char *base, const char *ext)
{
    char *path = ht__asprintf("%s/%s.%s", dir, base, ext);
    struct stat st;
    int ok = path && stat(path, &st) == 0 && st.st_size > 0;
    free(path);
    return ok;
}

static void draw(const char *prog, const char *dir, struct rp_figures *f)
{
    char *found = NULL, *logpath = NULL;
    int log = -1;
    size_t total = f->n5 + f->nsweep + f->ntune, drawn = 0;

    f->pictures = 0;
    if (prog && !prog[0]) {
        snprintf(f->no_pictures, sizeof f->no_pictures, "drawing was turned off");
        return;
    }
    if (!prog)
        prog = "gnuplot";
    if (find_program(prog, &found) != 0) {
        snprintf(f->no_pictures, sizeof f->no_pictures,
                 "%.100s was not found%s (install gnuplot, e.g. the gnuplot-nox package, and run "
                 "hetune report again, or run gnuplot on the .gp scripts in this folder)",
                 prog, strchr(prog, '/') ? "" : " on PATH");
        return;
    }
    logpath = ht__path_join(dir, "gnuplot.log");
    if (logpath)
        log = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (log < 0) {
        snprintf(f->no_pictures, sizeof f->no_pictures, "cannot write gnuplot.log: %s",
                 strerror(errno));
        goto cleanup;
    }
    for (size_t i = 0; i < total; i++) {
        struct rp_figure *fig = i < f->n5                ? &f->fig5[i]
                                : i < f->n5 + f->nsweep ? &f->sweep[i - f->n5]
                                                        : &f->tune[i - f->n5 - f->nsweep];
        char script[512];
        int st;
        snprintf(script, sizeof script, "%s.gp", fig->base);
        st = run_gnuplot(found, dir, script, log);
        fig->drawn = st == 0 && nonempty(dir, fig->base, "png") && nonempty(dir, fig->base, "svg");
        drawn += fig->drawn;
        if (!fig->drawn && !f->no_pictures[0]) {
            if (st < 0)
                snprintf(f->no_pictures, sizeof f->no_pictures, "cannot run %.200s: %.200s", found,
                         strerror(errno));
            else
                snprintf(f->no_pictures, sizeof f->no_pictures,
                         "gnuplot (%.200s) failed on %.200s (exit status %d): its messages are "
                         "in "
                         "gnuplot.log",
                         found, script, st);
        }
    }
    f->pictures = drawn == total;
cleanup:
    if (log >= 0)
        close(log);
    free(logpath);
    free(found);
}

int ht__report_figures(const struct rp_model *m, const char *dir, const char *gnuplot,
                       struct rp_figures *f, struct ht_error *err)
{
    size_t n5 = 0, nsweep = 0, ntune = 0;
    int rc = HT_OK;

    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < m->ncases; i++) {
        n5 += m->cases[i].nsplits > 0;
        nsweep += m->cases[i].nsweeps;
        ntune += m->cases[i].ndists + m->cases[i].nruns; /* at most */
    }
    f->fig5 = calloc(n5 + 1, sizeof *f->fig5);
    f->sweep = calloc(nsweep + 1, sizeof *f->sweep);
    f->tune = calloc(ntune + 1, sizeof *f->tune);
    if (!f->fig5 || !f->sweep || !f->tune)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; rc == HT_OK && i < m->ncases; i++) {
        const struct rp_case *c = &m->cases[i];
        size_t r = 0;
        if (c->nsplits > 0)
            rc = write_fig5(m, c, dir, &f->fig5[f->n5++], err);
        for (size_t k = 0; rc == HT_OK && k < c->nsweeps; k++)
            rc = write_sweep(m, c, &c->sweeps[k], dir, &f->sweep[f->nsweep++], err);
        /* Per device: its times, then its runs (both lists are in device order). A
         * device with runs has evaluations, unless they were forgotten since. */
        for (size_t k = 0; rc == HT_OK && k < c->ndists; k++) {
            rc = write_tune_times(m, c, &c->dists[k], dir, &f->tune[f->ntune++], err);
            while (rc == HT_OK && r < c->nruns &&
                   c->runs[r].run.device_id <= c->dists[k].device_id) {
                size_t end = r;
                while (end < c->nruns && c->runs[end].run.device_id == c->runs[r].run.device_id)
                    end++;
                rc = write_tune_best(m, c, r, end, dir, &f->tune[f->ntune++], err);
                r = end;
            }
        }
        while (rc == HT_OK && r < c->nruns) {
            size_t end = r;
            while (end < c->nruns && c->runs[end].run.device_id == c->runs[r].run.device_id)
                end++;
            rc = write_tune_best(m, c, r, end, dir, &f->tune[f->ntune++], err);
            r = end;
        }
    }
    if (rc != HT_OK)
        return rc;
    if (f->n5 + f->nsweep + f->ntune == 0) {
        f->pictures = 1; /* nothing to draw */
        return HT_OK;
    }
    draw(gnuplot, dir, f);
    return HT_OK;
}

void ht__report_figures_free(struct rp_figures *f)
{
    for (size_t i = 0; i < f->n5; i++)
        free(f->fig5[i].title);
    for (size_t i = 0; i < f->nsweep; i++)
        free(f->sweep[i].title);
    for (size_t i = 0; i < f->ntune; i++)
        free(f->tune[i].title);
    free(f->fig5);
    free(f->sweep);
    free(f->tune);
    memset(f, 0, sizeof *f);
}
