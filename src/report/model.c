/* The report's model: the case studies, their space sizes, tuning, splits and sweeps, and
 * the devices they use, read from the results database. Space sizes, splits and sweeps come
 * through the store's API, the listings (which problems, which splits are the newest, the
 * devices) through its friend door for readers, src/store/query.h; no SQL here. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-internal.h"
#include "store/query.h"

const char *ht__report_dim_name(unsigned dim)
{
    static const char *const names[] = {"gx", "gy", "gz"};
    return dim < 3 ? names[dim] : "d?";
}

const char *ht__report_eq3_name(enum ht_eq3 eq3)
{
    return eq3 == HT_EQ3_SUM ? "sum" : eq3 == HT_EQ3_OFF ? "off" : "product";
}

const struct rp_device *ht__report_device(const struct rp_model *m, int64_t id)
{
    for (size_t i = 0; i < m->ndevices; i++)
        if (m->devices[i].id == id)
            return &m->devices[i];
    return NULL;
}

const char *ht__report_device_label(const struct rp_model *m, int64_t id, char *buf,
                                    size_t size)
{
    const struct rp_device *d = ht__report_device(m, id);
    if (d)
        return d->label;
    snprintf(buf, size, "device %lld", (long long)id);
    return buf;
}

/* Copies src into dst (size bytes), cut to fit, always terminated: the model keeps shorter
 * fields than the store's rows, as it always did. */
static void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);

    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Appends one element of size bytes to a growing array; NULL when out of memory. */
static void *push(void *arr, size_t *n, size_t size)
{
    char *p = realloc(arr, (*n + 1) * size);
    if (!p)
        return NULL;
    memset(p + *n * size, 0, size);
    (*n)++;
    return p;
}

static int add_space(const struct ht_stored_space *sp, void *user)
{
    struct rp_case *c = user;
    struct ht_stored_space *grown = push(c->spaces, &c->nspaces, sizeof *c->spaces);
    if (!grown)
        return HT_ENOMEM;
    c->spaces = grown;
    c->spaces[c->nspaces - 1] = *sp;
    return 0;
}

static int load_tuning(struct ht_store *store, struct rp_case *c, struct ht_error *err)
{
    struct ht__store_eval_tally *tally = NULL;
    struct ht_stored_eval *ev = malloc(sizeof *ev);
    size_t n = 0;
    int rc;

    if (!ev)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    rc = ht__store_query_eval_tally(store, c->problem_id, &tally, &n, err);
    if (rc != HT_OK)
        goto cleanup;
    c->tuning = calloc(n ? n : 1, sizeof *c->tuning);
    if (!c->tuning) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        struct rp_tuning *t = &c->tuning[c->ntuning++];
        t->device_id = tally[i].device_id;
        t->evaluations = tally[i].evaluations;
        t->ok = tally[i].ok;
        t->seconds = -1;
    }
    /* The best as hetune split chooses it: ok, and not failed verification. */
    for (size_t i = 0; i < c->ntuning; i++) {
        struct rp_tuning *t = &c->tuning[i];
        rc = ht_store_best_unverified(store, c->problem_id, t->device_id, ev, err);
        if (rc == HT_ENOTFOUND) {
            rc = HT_OK;
            continue;
        }
        if (rc != HT_OK)
            goto cleanup;
        t->has_best = 1;
        snprintf(t->config, sizeof t->config, "%s", ev->config);
        t->seconds = ev->seconds;
    }
cleanup:
    free(tally);
    free(ev);
    return rc;
}

static int load_splits(struct ht_store *store, struct rp_case *c, struct ht_error *err)
{
    int64_t *ids = NULL;
    size_t n = 0;
    int rc;

    rc = ht__store_query_split_ids(store, c->problem_id, HT__STORE_SPLITS_NEWEST_PER_SCHEDULER,
                                   &ids, &n, err);
    if (rc != HT_OK)
        goto cleanup;
    c->splits = calloc(n ? n : 1, sizeof *c->splits);
    if (!c->splits) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        rc = ht_store_get_split(store, ids[i], &c->splits[i], err);
        if (rc != HT_OK)
            goto cleanup;
        c->nsplits++;
    }
cleanup:
    free(ids);
    return rc;
}

static int add_point(const struct ht_stored_sweep_point *pt, void *user)
{
    struct rp_sweep *s = user;
    struct ht_stored_sweep_point *grown = push(s->points, &s->npoints, sizeof *s->points);
    if (!grown)
        return HT_ENOMEM;
    s->points = grown;
    s->points[s->npoints - 1] = *pt;
    return 0;
}

static int load_sweeps(struct ht_store *store, struct rp_case *c, struct ht_error *err)
{
    int64_t *ids = NULL;
    size_t n = 0;
    int rc;

    rc = ht__store_query_split_ids(store, c->problem_id, HT__STORE_SPLITS_NEWEST_SWEEP, &ids,
                                   &n, err);
    if (rc != HT_OK)
        goto cleanup;
    c->sweeps = calloc(n ? n : 1, sizeof *c->sweeps);
    if (!c->sweeps) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        struct rp_sweep *s = &c->sweeps[i];
        rc = ht_store_get_split(store, ids[i], &s->split, err);
        if (rc != HT_OK)
            goto cleanup;
        c->nsweeps++;
        rc = ht_store_list_sweep(store, ids[i], add_point, s, err);
        if (rc == HT_ENOMEM)
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        if (rc != HT_OK)
            goto cleanup;
    }
cleanup:
    free(ids);
    return rc;
}

static int time_order(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The distribution of each device's configuration times (store order: by device). */
static int load_dists(struct ht_store *store, struct rp_case *c, struct ht_error *err)
{
    struct ht__store_eval_time_row *rows = NULL;
    size_t n = 0;
    int rc;

    rc = ht__store_query_eval_times(store, c->problem_id, &rows, &n, err);
    if (rc != HT_OK)
        return rc;
    c->dists = calloc(n ? n : 1, sizeof *c->dists);
    if (!c->dists) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        struct rp_dist *d;
        if (i == 0 || rows[i].device_id != rows[i - 1].device_id) {
            size_t k = i;
            d = &c->dists[c->ndists++];
            d->device_id = rows[i].device_id;
            while (k < n && rows[k].device_id == d->device_id)
                k++;
            d->times = malloc((k - i) * sizeof *d->times);
            d->cut_times = malloc((k - i) * sizeof *d->cut_times);
            if (!d->times || !d->cut_times) {
                rc = ht_error_set(err, HT_ENOMEM, "out of memory");
                goto cleanup;
            }
        }
        d = &c->dists[c->ndists - 1];
        d->evaluations++;
        /* As the tuner counts them: ok and not failed verification competes; cut is a
         * lower bound only; everything else failed. */
        if (!strcmp(rows[i].status, HT_STORE_OK) && rows[i].verified != 0 &&
            rows[i].seconds > 0)
            d->times[d->ntimes++] = rows[i].seconds;
        else if (!strcmp(rows[i].status, HT_STORE_CUT)) {
            d->cut++;
            if (rows[i].seconds > 0)
                d->cut_times[d->ncut_times++] = rows[i].seconds;
        }
        else
            d->failed++;
    }
    /* The store sorts numbers; sorting again costs nothing and keeps the promise. */
    for (size_t i = 0; i < c->ndists; i++) {
        qsort(c->dists[i].times, c->dists[i].ntimes, sizeof *c->dists[i].times, time_order);
        qsort(c->dists[i].cut_times, c->dists[i].ncut_times, sizeof *c->dists[i].cut_times,
              time_order);
    }
cleanup:
    free(rows);
    return rc;
}

static int load_runs(struct ht_store *store, struct rp_case *c, struct ht_error *err)
{
    struct ht__store_tune_run_row *rows = NULL;
    size_t n = 0;
    int rc;

    rc = ht__store_query_tune_runs(store, c->problem_id, &rows, &n, err);
    if (rc != HT_OK)
        return rc;
    c->runs = calloc(n ? n : 1, sizeof *c->runs);
    if (!c->runs) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        struct rp_run *r = &c->runs[c->nruns++];
        r->run = rows[i];
        rc = ht__store_query_tune_steps(store, rows[i].id, &r->steps, &r->nsteps, err);
        if (rc != HT_OK)
            goto cleanup;
    }
cleanup:
    free(rows);
    return rc;
}

/* A file-name-safe form of the spec name and sizes: "matmul" and "M=7,N=1024" give
 * "matmul_M7_N1024". */
static void make_slug(const char *spec, const char *sizes, char *buf, size_t size)
{
    size_t k = 0;

    for (const char *p = spec; *p && k + 1 < size; p++)
        buf[k++] = isalnum((unsigned char)*p) || *p == '-' || *p == '_' ? *p : '-';
    if (*sizes && k + 1 < size)
        buf[k++] = '_';
    for (const char *p = sizes; *p && k + 1 < size; p++) {
        if (*p == '=')
            continue;
        buf[k++] = isalnum((unsigned char)*p) || *p == '-' ? *p : '_';
    }
    buf[k] = '\0';
    if (k == 0)
        snprintf(buf, size, "case");
}

/* Case studies in the order of the report: by spec name, then problem id (the order the
 * SQL of earlier versions gave: BINARY collation is strcmp's). */
static int case_order(const void *a, const void *b)
{
    const struct rp_case *x = a, *y = b;
    int c = strcmp(x->spec, y->spec);

    if (c)
        return c;
    return (x->problem_id > y->problem_id) - (x->problem_id < y->problem_id);
}

static int load_cases(struct ht_store *store, const char *spec, struct rp_model *m,
                      struct ht_error *err)
{
    struct ht__store_problem_row *rows = NULL;
    size_t n = 0;
    int rc;

    rc = ht__store_query_problems(store, spec, &rows, &n, err);
    if (rc != HT_OK)
        return rc;
    m->cases = calloc(n ? n : 1, sizeof *m->cases);
    if (!m->cases) {
        free(rows);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        struct rp_case *c;
        /* A problem with nothing stored (its spec was only loaded) is no case study. */
        if (!rows[i].has_results)
            continue;
        c = &m->cases[m->ncases++];
        c->problem_id = rows[i].id;
        copy_text(c->spec, sizeof c->spec, rows[i].spec);
        copy_text(c->sizes, sizeof c->sizes, rows[i].sizes);
        snprintf(c->label, sizeof c->label, "%s%s%s", c->spec, c->sizes[0] ? " " : "",
                 c->sizes);
        make_slug(c->spec, c->sizes, c->slug, sizeof c->slug);
    }
    free(rows);
    if (m->ncases > 1)
        qsort(m->cases, m->ncases, sizeof *m->cases, case_order);
    /* Two problems can share a name and sizes (an edited kernel): their files must not. */
    for (size_t i = 0; i < m->ncases; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(m->cases[i].slug, m->cases[j].slug)) {
                size_t len = strlen(m->cases[i].slug);
                snprintf(m->cases[i].slug + len, sizeof m->cases[i].slug - len, "_p%lld",
                         (long long)m->cases[i].problem_id);
                snprintf(m->cases[i].label + strlen(m->cases[i].label),
                         sizeof m->cases[i].label - strlen(m->cases[i].label),
                         " (problem %lld)", (long long)m->cases[i].problem_id);
                break;
            }
    return HT_OK;
}

/* Adds id to the sorted set of device ids. */
static int want_device(int64_t **ids, size_t *n, int64_t id)
{
    size_t k = 0;
    int64_t *grown;

    while (k < *n && (*ids)[k] < id)
        k++;
    if (k < *n && (*ids)[k] == id)
        return 0;
    grown = realloc(*ids, (*n + 1) * sizeof **ids);
    if (!grown)
        return -1;
    *ids = grown;
    memmove(*ids + k + 1, *ids + k, (*n - k) * sizeof **ids);
    (*ids)[k] = id;
    (*n)++;
    return 0;
}

/* The short label: the part of the name before its first '-' (PoCL's "pthread-..."),
 * else the whole name, at most 24 characters; "#<id>" is added to labels that repeat. */
static void make_labels(struct rp_model *m)
{
    for (size_t i = 0; i < m->ndevices; i++) {
        struct rp_device *d = &m->devices[i];
        size_t len = strcspn(d->name, "-");
        if (len == 0 || d->name[len] == '\0')
            len = strlen(d->name);
        if (len > 24)
            len = 24;
        while (len > 0 && d->name[len - 1] == ' ')
            len--;
        if (len == 0)
            snprintf(d->label, sizeof d->label, "device");
        else
            snprintf(d->label, sizeof d->label, "%.*s", (int)len, d->name);
    }
    for (size_t i = 0; i < m->ndevices; i++) {
        int dup = 0;
        for (size_t j = 0; j < m->ndevices; j++)
            dup |= j != i && !strcmp(m->devices[i].label, m->devices[j].label);
        if (dup) {
            size_t len = strlen(m->devices[i].label);
            snprintf(m->devices[i].label + len, sizeof m->devices[i].label - len, " #%lld",
                     (long long)m->devices[i].id);
        }
    }
    /* File names: the label's letters and digits, the rest as '_'; "-d<id>" where two
     * labels read the same so. */
    for (size_t i = 0; i < m->ndevices; i++) {
        struct rp_device *d = &m->devices[i];
        size_t k = 0;
        for (const char *p = d->label; *p && k + 1 < sizeof d->slug; p++)
            d->slug[k++] = isalnum((unsigned char)*p) ? *p : '_';
        d->slug[k] = '\0';
    }
    for (size_t i = 0; i < m->ndevices; i++) {
        int dup = 0;
        for (size_t j = 0; j < m->ndevices; j++)
            dup |= j != i && !strcmp(m->devices[i].slug, m->devices[j].slug);
        if (dup) {
            size_t len = strlen(m->devices[i].slug);
            if (len > sizeof m->devices[i].slug - 24)
                len = sizeof m->devices[i].slug - 24;
            snprintf(m->devices[i].slug + len, sizeof m->devices[i].slug - len, "-d%lld",
                     (long long)m->devices[i].id);
        }
    }
}

static int load_devices(struct ht_store *store, struct rp_model *m, struct ht_error *err)
{
    int64_t *ids = NULL;
    size_t n = 0, nrows = 0;
    struct ht__store_device_row *rows = NULL;
    int rc = HT_OK;

    for (size_t i = 0; i < m->ncases; i++) {
        const struct rp_case *c = &m->cases[i];
        int bad = 0;
        for (size_t k = 0; k < c->nspaces; k++)
            bad |= want_device(&ids, &n, c->spaces[k].device_id);
        for (size_t k = 0; k < c->ntuning; k++)
            bad |= want_device(&ids, &n, c->tuning[k].device_id);
        for (size_t k = 0; k < c->ndists; k++)
            bad |= want_device(&ids, &n, c->dists[k].device_id);
        for (size_t k = 0; k < c->nruns; k++)
            bad |= want_device(&ids, &n, c->runs[k].run.device_id);
        for (size_t k = 0; k < c->nsplits; k++)
            for (size_t j = 0; j < c->splits[k].ndevices; j++)
                bad |= want_device(&ids, &n, c->splits[k].devices[j].device_id);
        for (size_t k = 0; k < c->nsweeps; k++)
            for (size_t j = 0; j < c->sweeps[k].split.ndevices; j++)
                bad |= want_device(&ids, &n, c->sweeps[k].split.devices[j].device_id);
        if (bad) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
    }
    m->devices = calloc(n ? n : 1, sizeof *m->devices);
    if (!m->devices) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    rc = ht__store_query_devices(store, &rows, &nrows, err);
    if (rc != HT_OK)
        goto cleanup;
    /* Both lists are in id order. A device missing is impossible with foreign keys; the
     * report would name it "device <id>". */
    for (size_t i = 0, k = 0; i < n; i++) {
        struct rp_device *d = &m->devices[m->ndevices];
        while (k < nrows && rows[k].id < ids[i])
            k++;
        if (k == nrows || rows[k].id != ids[i])
            continue;
        d->id = ids[i];
        copy_text(d->name, sizeof d->name, rows[k].name);
        copy_text(d->platform, sizeof d->platform, rows[k].platform);
        copy_text(d->type, sizeof d->type, rows[k].type);
        copy_text(d->driver, sizeof d->driver, rows[k].driver);
        d->compute_units = rows[k].compute_units;
        /* The platform a replay's device gets (HT_REPLAY_PLATFORM of hetune/tune.h, a
         * module the report does not see): its results were never measured here. */
        d->replayed = !strcmp(d->platform, "hetune replay");
        m->ndevices++;
    }
    make_labels(m);
cleanup:
    free(rows);
    free(ids);
    return rc;
}

int ht__report_load(struct ht_store *store, const char *spec, struct rp_model *m,
                    struct ht_error *err)
{
    int rc;

    memset(m, 0, sizeof *m);
    snprintf(m->db, sizeof m->db, "%s", ht_store_path(store));
    rc = ht__store_schema_version(store, &m->schema_version, err);
    if (rc == HT_OK)
        rc = load_cases(store, spec, m, err);
    for (size_t i = 0; rc == HT_OK && i < m->ncases; i++) {
        struct rp_case *c = &m->cases[i];
        rc = ht_store_list_spaces(store, c->problem_id, add_space, c, err);
        if (rc == HT_ENOMEM)
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        if (rc == HT_OK)
            rc = load_tuning(store, c, err);
        if (rc == HT_OK)
            rc = load_splits(store, c, err);
        if (rc == HT_OK)
            rc = load_sweeps(store, c, err);
        if (rc == HT_OK)
            rc = load_dists(store, c, err);
        if (rc == HT_OK)
            rc = load_runs(store, c, err);
    }
    if (rc == HT_OK)
        rc = load_devices(store, m, err);
    for (size_t i = 0; rc == HT_OK && i < m->ncases; i++)
        for (size_t k = 0; k < m->cases[i].ndists; k++) {
            const struct rp_device *d = ht__report_device(m, m->cases[i].dists[k].device_id);
            m->cases[i].dists[k].replayed = d && d->replayed;
        }
    if (rc != HT_OK)
        ht__report_model_free(m);
    return rc;
}

void ht__report_model_free(struct rp_model *m)
{
    for (size_t i = 0; i < m->ncases; i++) {
        struct rp_case *c = &m->cases[i];
        free(c->spaces);
        free(c->tuning);
        for (size_t k = 0; k < c->nsplits; k++)
            free(c->splits[k].devices);
        free(c->splits);
        for (size_t k = 0; k < c->nsweeps; k++) {
            free(c->sweeps[k].split.devices);
            free(c->sweeps[k].points);
        }
        free(c->sweeps);
        for (size_t k = 0; k < c->ndists; k++) {
            free(c->dists[k].times);
            free(c->dists[k].cut_times);
        }
        free(c->dists);
        for (size_t k = 0; k < c->nruns; k++)
            free(c->runs[k].steps);
        free(c->runs);
    }
    free(m->cases);
    free(m->devices);
    memset(m, 0, sizeof *m);
}
