/* The report's CSV files: one header line, then one line per row; times in seconds, an
 * unknown value an empty field. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "report-internal.h"

/* The columns every per-case file begins with: case,spec,sizes,problem_id. */
static void case_fields(struct rp_buf *b, const struct rp_case *c)
{
    ht__rp_csv_text(b, c->label);
    ht__rp_puts(b, ",");
    ht__rp_csv_text(b, c->spec);
    ht__rp_puts(b, ",");
    ht__rp_csv_text(b, c->sizes);
    ht__rp_printf(b, ",%lld", (long long)c->problem_id);
}

static void device_fields(struct rp_buf *b, const struct rp_model *m, int64_t id)
{
    char tmp[64];
    ht__rp_printf(b, ",%lld,", (long long)id);
    ht__rp_csv_text(b, ht__report_device_label(m, id, tmp, sizeof tmp));
}

static void devices_csv(const struct rp_model *m, struct rp_buf *b)
{
    ht__rp_puts(b, "device_id,device,name,platform,type,compute_units,driver_version\n");
    for (size_t i = 0; i < m->ndevices; i++) {
        const struct rp_device *d = &m->devices[i];
        ht__rp_printf(b, "%lld,", (long long)d->id);
        ht__rp_csv_text(b, d->label);
        ht__rp_puts(b, ",");
        ht__rp_csv_text(b, d->name);
        ht__rp_puts(b, ",");
        ht__rp_csv_text(b, d->platform);
        ht__rp_puts(b, ",");
        ht__rp_csv_text(b, d->type);
        ht__rp_printf(b, ",%lld,", (long long)d->compute_units);
        ht__rp_csv_text(b, d->driver);
        ht__rp_puts(b, "\n");
    }
}

static void spaces_csv(const struct rp_model *m, struct rp_buf *b)
{
    ht__rp_puts(b, "case,spec,sizes,problem_id,device_id,device,eq3,unpruned,platform,pruned,"
                   "seconds\n");
    for (size_t i = 0; i < m->ncases; i++) {
        const struct rp_case *c = &m->cases[i];
        for (size_t k = 0; k < c->nspaces; k++) {
            const struct ht_stored_space *s = &c->spaces[k];
            case_fields(b, c);
            device_fields(b, m, s->device_id);
            /* The unpruned size is a double: exact below 2^53, rounded (and so written
             * with an exponent, 1.024e+27) past it. */
            ht__rp_printf(b, s->unpruned < 0x1p53 ? ",%s,%.0f," : ",%s,%.4g,",
                          ht__report_eq3_name(s->eq3), s->unpruned);
            ht__rp_printf(b, "%" PRIu64 ",%" PRIu64 ",", s->platform, s->pruned);
            ht__rp_csv_time(b, s->seconds);
            ht__rp_puts(b, "\n");
        }
    }
}

static void tuning_csv(const struct rp_model *m, struct rp_buf *b)
{
    ht__rp_puts(b, "case,spec,sizes,problem_id,device_id,device,evaluations,ok,best_config,"
                   "best_seconds\n");
    for (size_t i = 0; i < m->ncases; i++) {
        const struct rp_case *c = &m->cases[i];
        for (size_t k = 0; k < c->ntuning; k++) {
            const struct rp_tuning *t = &c->tuning[k];
            case_fields(b, c);
            device_fields(b, m, t->device_id);
            ht__rp_printf(b, ",%" PRIu64 ",%" PRIu64 ",", t->evaluations, t->ok);
            ht__rp_csv_text(b, t->has_best ? t->config : "");
            ht__rp_puts(b, ",");
            ht__rp_csv_time(b, t->has_best ? t->seconds : -1);
            ht__rp_puts(b, "\n");
        }
    }
}

/* Table 3 for every scheduler: one line per device of each split. */
static void factors_csv(const struct rp_model *m, struct rp_buf *b)
{
    ht__rp_puts(b, "case,spec,sizes,problem_id,split_id,dim,scheduler,global,i,device_id,"
                   "device,config,wg,time_seconds,optimal_factor,adjusted_factor\n");
    for (size_t i = 0; i < m->ncases; i++) {
        const struct rp_case *c = &m->cases[i];
        for (size_t k = 0; k < c->nsplits; k++) {
            const struct ht_stored_split *sp = &c->splits[k];
            for (size_t j = 0; j < sp->ndevices; j++) {
                const struct ht_stored_split_device *d = &sp->devices[j];
                case_fields(b, c);
                ht__rp_printf(b, ",%lld,%u,", (long long)sp->id, sp->dim);
                ht__rp_csv_text(b, sp->scheduler);
                ht__rp_printf(b, ",%" PRIu64 ",%zu", sp->global, j);
                device_fields(b, m, d->device_id);
                ht__rp_puts(b, ",");
                ht__rp_csv_text(b, d->config);
                ht__rp_printf(b, ",%" PRIu64 ",", d->wg);
                ht__rp_csv_time(b, d->time_seconds);
                ht__rp_puts(b, ",");
                ht__rp_csv_time(b, d->optimal_factor);
                ht__rp_puts(b, ",");
                ht__rp_csv_time(b, d->adjusted_factor);
                ht__rp_puts(b, "\n");
            }
        }
    }
}

static void time_line(struct rp_buf *b, const struct rp_model *m, const struct rp_case *c,
                      const struct ht_stored_split *sp, const char *series, int64_t device_id,
                      double seconds)
{
    case_fields(b, c);
    ht__rp_printf(b, ",%lld,%u,", (long long)sp->id, sp->dim);
    ht__rp_csv_text(b, sp->scheduler);
    ht__rp_printf(b, ",%s", series);
    if (device_id > 0)
        device_fields(b, m, device_id);
    else
        ht__rp_puts(b, ",,");
    ht__rp_puts(b, ",");
    ht__rp_csv_time(b, seconds);
    ht__rp_puts(b, "\n");
}

/* Figure 5's numbers: per split, each device alone (its tuned time), the theoretical time
 * (Algorithm 1), the measured wall and kernel-only times, the fastest device's measured
 * wall time alone, and what the split was predicted to take where it was ("predicted"). */
static void times_csv(const struct rp_model *m, struct rp_buf *b)
{
    ht__rp_puts(b, "case,spec,sizes,problem_id,split_id,dim,scheduler,series,device_id,device,"
                   "seconds\n");
    for (size_t i = 0; i < m->ncases; i++) {
        const struct rp_case *c = &m->cases[i];
        for (size_t k = 0; k < c->nsplits; k++) {
            const struct ht_stored_split *sp = &c->splits[k];
            for (size_t j = 0; j < sp->ndevices; j++)
                time_line(b, m, c, sp, "alone", sp->devices[j].device_id,
                          sp->devices[j].time_seconds);
            time_line(b, m, c, sp, "theoretical", 0, sp->theoretical_seconds);
            time_line(b, m, c, sp, "wall", 0, sp->seconds);
            time_line(b, m, c, sp, "kernel", 0, sp->kernel_seconds);
            time_line(b, m, c, sp, "fastest_alone_wall", 0, sp->alone_seconds);
            if (sp->predicted_seconds > 0)
                time_line(b, m, c, sp, "predicted", 0, sp->predicted_seconds);
        }
    }
}

static void sweep_csv(const struct rp_model *m, struct rp_buf *b)
{
    ht__rp_puts(b, "case,spec,sizes,problem_id,split_id,dim,i,factor,theoretical_seconds,"
                   "seconds,kernel_seconds,verified\n");
    for (size_t i = 0; i < m->ncases; i++) {
        const struct rp_case *c = &m->cases[i];
        for (size_t k = 0; k < c->nsweeps; k++) {
            const struct rp_sweep *s = &c->sweeps[k];
            for (size_t j = 0; j < s->npoints; j++) {
                const struct ht_stored_sweep_point *p = &s->points[j];
                case_fields(b, c);
                ht__rp_printf(b, ",%lld,%u,%u,%.9g,", (long long)s->split.id, s->split.dim,
                              p->index, p->factor);
                ht__rp_csv_time(b, p->theoretical_seconds);
                ht__rp_puts(b, ",");
                ht__rp_csv_time(b, p->seconds);
                ht__rp_puts(b, ",");
                ht__rp_csv_time(b, p->kernel_seconds);
                ht__rp_printf(b, ",%d\n", p->verified);
            }
        }
    }
}

int ht__report_csv(const struct rp_model *m, const char *dir, struct ht_error *err)
{
    static const struct {
        const char *name;
        void (*write)(const struct rp_model *m, struct rp_buf *b);
    } files[] = {
        {"devices.csv", devices_csv}, {"spaces.csv", spaces_csv}, {"tuning.csv", tuning_csv},
        {"factors.csv", factors_csv}, {"times.csv", times_csv},   {"sweep.csv", sweep_csv},
    };
    int rc = HT_OK;

    for (size_t i = 0; rc == HT_OK && i < sizeof files / sizeof files[0]; i++) {
        struct rp_buf b = {NULL, 0, 0, 0};
        files[i].write(m, &b);
        rc = ht__rp_write(dir, files[i].name, &b, err);
        ht__rp_free(&b);
    }
    return rc;
}
