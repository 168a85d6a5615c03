/* Internals of the report (src/report): the model read from the database, a string builder
 * and the writers of each kind of output. Not part of the public API. */
#ifndef HETUNE_REPORT_INTERNAL_H
#define HETUNE_REPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/report.h"
#include "hetune/store.h"

/* --- the model: what the report shows, read once from the database (model.c) --- */

struct rp_device {
    int64_t id;
    char name[256], platform[256], type[64], driver[128];
    int64_t compute_units;
    char label[80];            /* short and unique: "pthread", "NVIDIA H100 80GB HBM3" */
    char slug[100];            /* the label for file names, unique too: "pthread" */
    int replayed;              /* a replayed recording's device, not a measured one */
};

/* One device's tuning of a case study. */
struct rp_tuning {
    int64_t device_id;
    uint64_t evaluations, ok;  /* stored evaluations, of which status "ok" */
    int has_best;
    char config[HT_STORE_CONFIG_MAX];
    double seconds;
};

/* A sweep: the split it belongs to and its points in index order. */
struct rp_sweep {
    struct ht_stored_split split; /* devices owned (free()) */
    size_t npoints;
    struct ht_stored_sweep_point *points; /* owned */
};

/* One step of a tuning run, without its configuration (ht_stored_tune_step's fields the
 * figures draw). */
struct rp_step {
    uint64_t i;
    char status[16];
    double seconds;            /* -1: none competes for best */
    double elapsed_s;
};

/* One tuning run of a case study and its steps in order (the convergence figures). */
struct rp_run {
    struct ht_stored_tune_run run;
    size_t nsteps;
    struct rp_step *steps;     /* owned */
};

/* One device's configuration times of a case study (the distribution figures). */
struct rp_dist {
    int64_t device_id;
    uint64_t evaluations;      /* stored evaluations */
    uint64_t cut;              /* stopped early: their time is only a lower bound */
    uint64_t failed;           /* neither ok nor cut, or ok but failed verification */
    size_t ntimes;
    double *times;             /* owned: the ok ones not failing verification, fastest
                                  first */
    size_t ncut_times;
    double *cut_times;         /* owned: the cut ones' partial times, fastest first */
    int replayed;              /* the device is a replayed recording's */
};

/* A case study: one problem of the database. */
struct rp_case {
    int64_t problem_id;
    /* The texts whole, however long, each owned (free()): two problems whose names or
     * sizes differ only late must not be labelled alike. */
    char *spec;                /* the spec's name, which orders the cases */
    char *sizes;               /* "N=512" */
    char *label;               /* "matmul N=512" */
    char slug[300];            /* for file names: "matmul_N512", cut and checksummed */
    size_t nspaces;
    struct ht_stored_space *spaces;   /* ordered by device, eq3 */
    size_t ntuning;
    struct rp_tuning *tuning;         /* ordered by device */
    size_t nsplits;
    struct ht_stored_split *splits;   /* newest per (dim, scheduler); by dim, then static,
                                         dynamic, guided, the others by name; devices
                                         owned (free()) */
    size_t nsweeps;
    struct rp_sweep *sweeps;          /* newest per dim, by dim */
    size_t ndists;
    struct rp_dist *dists;            /* per device with evaluations, by device id */
    size_t nruns;
    struct rp_run *runs;              /* every run with steps, by device id, then start */
};

struct rp_model {
    char db[4096];
    int64_t schema_version;
    size_t ndevices;
    struct rp_device *devices;        /* those the cases use, by id */
    size_t ncases;
    struct rp_case *cases;            /* by spec name, then problem id */
};

/* Reads the model of the database (only spec `spec` when not NULL). HT_EDB, HT_ENOMEM.
 * An empty model is not an error here. */
int ht__report_load(struct ht_store *store, const char *spec, struct rp_model *m,
                    struct ht_error *err);

void ht__report_model_free(struct rp_model *m);

/* The device of id in m, or NULL. */
const struct rp_device *ht__report_device(const struct rp_model *m, int64_t id);

/* The device's label, or "device <id>" written into buf when m lacks it. */
const char *ht__report_device_label(const struct rp_model *m, int64_t id, char *buf,
                                    size_t size);

/* "gx", "gy", "gz" (or "d<dim>" beyond). Static storage or buf. */
const char *ht__report_dim_name(unsigned dim);

/* "product", "sum" or "off". */
const char *ht__report_eq3_name(enum ht_eq3 eq3);

/* --- text (text.c) --- */

/* A growing string; every append sets oom instead of failing, checked once at the end. */
struct rp_buf {
    char *p;
    size_t len, cap;
    int oom;
};

void ht__rp_printf(struct rp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ht__rp_puts(struct rp_buf *b, const char *s);
void ht__rp_free(struct rp_buf *b);

/* A CSV field (RFC 4180: quoted when it holds a comma, a quote or a line break), without
 * the separator. */
void ht__rp_csv_text(struct rp_buf *b, const char *s);
/* A real as %.9g, or nothing when negative or not finite (unknown). */
void ht__rp_csv_time(struct rp_buf *b, double v);

/* A Markdown table cell's text: '|' escaped, line breaks as spaces. */
void ht__rp_md_text(struct rp_buf *b, const char *s);

/* Writes b to dir/name atomically. HT_ENOMEM when b ran out of memory, HT_EIO. */
int ht__rp_write(const char *dir, const char *name, const struct rp_buf *b,
                 struct ht_error *err);

/* --- the outputs --- */

/* Writes devices.csv, spaces.csv, tuning.csv, factors.csv, times.csv and sweep.csv
 * (csv.c). */
int ht__report_csv(const struct rp_model *m, const char *dir, struct ht_error *err);

/* Figures (figures.c). */
struct rp_figure {
    char base[400];            /* file name without extension: "fig5-matmul_N512" */
    char *title;               /* owned (ht__report_figures_free): whole, with its case's
                                  whole label */
    int drawn;                 /* PNG and SVG exist and are not empty */
};

struct rp_figures {
    struct rp_figure *fig5;    /* one per case with a split, in case order */
    size_t n5;
    struct rp_figure *sweep;   /* one per sweep of every case, in case order */
    size_t nsweep;
    struct rp_figure *tune;    /* per case and device with evaluations: its times, then its
                                  runs' best-so-far when it has runs; in case order */
    size_t ntune;
    int pictures;              /* 1 when every figure was drawn */
    char no_pictures[512];
};

/* Writes every figure's data and gnuplot script into dir, and draws them with the gnuplot
 * program (NULL: from PATH; "": none) when found; fills f (ht__report_figures_free). Only
 * HT_EIO and HT_ENOMEM are errors; gnuplot's absence or failure is told in f. */
int ht__report_figures(const struct rp_model *m, const char *dir, const char *gnuplot,
                       struct rp_figures *f, struct ht_error *err);

void ht__report_figures_free(struct rp_figures *f);

/* The bars of Figure 5 of a case, in order (figures.c; report.md shows them as a table). */
struct rp_bar {
    char label[160];
    double seconds;
    int kind;                  /* 1 device alone, 2 theoretical, 3 wall, 4 kernel, 5 the
                                  fastest device's wall alone */
};

/* Fills *bars (owned by the caller, free()) with the bars of case c; *n 0 when the case has
 * no split. HT_ENOMEM. */
int ht__report_fig5_bars(const struct rp_model *m, const struct rp_case *c,
                         struct rp_bar **bars, size_t *n, struct ht_error *err);

/* Writes report.md (markdown.c). */
int ht__report_markdown(const struct rp_model *m, const struct rp_figures *f, const char *dir,
                        struct ht_error *err);

#endif
