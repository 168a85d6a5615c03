/* ht_report_write: the model from the database, then the CSV files, the figures and
 * report.md, in that order, so that a failing gnuplot never costs a table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-internal.h"
#include "util/util.h"

void ht_report_opts_init(struct ht_report_opts *opts)
{
    if (opts)
        memset(opts, 0, sizeof *opts);
}

/* Figure i of f: Figures 5 first, then the sweeps, then the tuning figures. */
static const struct rp_figure *figure_at(const struct rp_figures *f, size_t i)
{
    if (i < f->n5)
        return &f->fig5[i];
    if (i < f->n5 + f->nsweep)
        return &f->sweep[i - f->n5];
    return &f->tune[i - f->n5 - f->nsweep];
}

/* The figures' names, one per line ("" when there is none), allocated; NULL when out of
 * memory. */
static char *list_figures(const struct rp_figures *f)
{
    size_t total = f->n5 + f->nsweep + f->ntune, size = 1, len = 0;
    char *list;

    for (size_t i = 0; i < total; i++)
        size += strlen(figure_at(f, i)->base) + 1;
    list = malloc(size);
    if (!list)
        return NULL;
    for (size_t i = 0; i < total; i++) {
        size_t n = strlen(figure_at(f, i)->base);
        memcpy(list + len, figure_at(f, i)->base, n);
        list[len + n] = '\n';
        len += n + 1;
    }
    list[len] = '\0';
    return list;
}

void ht_report_result_destroy(struct ht_report_result *r)
{
    if (!r)
        return;
    free(r->path);
    free(r->figure_list);
    memset(r, 0, sizeof *r);
}

int ht_report_write(struct ht_store *store, const char *dir, const struct ht_report_opts *opts,
                    struct ht_report_result *out, struct ht_error *err)
{
    struct ht_report_opts defaults;
    struct ht_report_result local;
    struct rp_model m;
    struct rp_figures f;
    char *path = NULL, *list = NULL;
    int rc;

    memset(&f, 0, sizeof f);
    if (!out)
        out = &local;
    memset(out, 0, sizeof *out);
    if (!opts) {
        ht_report_opts_init(&defaults);
        opts = &defaults;
    }
    if (!store || !dir)
        return ht_error_set(err, HT_EINVAL, "ht_report_write: %s is NULL",
                            !store ? "store" : "dir");
    if (!dir[0])
        return ht_error_set(err, HT_EINVAL, "ht_report_write: a folder is required");
    rc = ht__report_load(store, opts->spec, &m, err);
    if (rc != HT_OK)
        return rc;
    if (m.ncases == 0) {
        if (err && !err->code)
            snprintf(err->file, sizeof err->file, "%s", ht_store_path(store));
        if (opts->spec)
            rc = ht_error_set(err, HT_ENOTFOUND,
                              "nothing to report for spec '%s': no space size, evaluation or "
                              "split of it in the database",
                              opts->spec);
        else
            rc = ht_error_set(err, HT_ENOTFOUND,
                              "nothing to report: no space size, evaluation or split in the "
                              "database (run hetune run, tune or split first)");
        goto cleanup;
    }
    rc = ht__mkdir_p(dir, err);
    if (rc == HT_OK)
        rc = ht__report_csv(&m, dir, err);
    if (rc == HT_OK)
        rc = ht__report_figures(&m, dir, opts->gnuplot, &f, err);
    if (rc == HT_OK)
        rc = ht__report_markdown(&m, &f, dir, err);
    if (rc != HT_OK)
        goto cleanup;

    out->cases = m.ncases;
    out->devices = m.ndevices;
    for (size_t i = 0; i < m.ncases; i++) {
        out->spaces += m.cases[i].nspaces;
        out->splits += m.cases[i].nsplits;
        out->sweeps += m.cases[i].nsweeps;
    }
    for (size_t i = 0; i < m.ncases; i++) {
        out->tunings += m.cases[i].ndists;
        out->runs += m.cases[i].nruns;
    }
    out->figures = f.n5 + f.nsweep + f.ntune;
    out->pictures = f.pictures;
    snprintf(out->no_pictures, sizeof out->no_pictures, "%s", f.pictures ? "" : f.no_pictures);
    path = ht__path_join(dir, "report.md");
    list = list_figures(&f);
    if (!path || !list) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    out->path = path;
    out->figure_list = list;
    path = list = NULL;
cleanup:
    free(path);
    free(list);
    if (out == &local)
        ht_report_result_destroy(&local);
    ht__report_figures_free(&f);
    ht__report_model_free(&m);
    return rc;
}
