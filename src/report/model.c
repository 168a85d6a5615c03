/* The report's model: the case studies, their space sizes, tuning, splits and sweeps, and
 * the devices they use, read from the results database. Space sizes, splits and sweeps come
 * through the store's API; the listings the API lacks (which problems, which splits are the
 * newest) are read directly with the store's connection. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-internal.h"
#include "store/store-internal.h"

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

static void column_text(sqlite3_stmt *st, int i, char *buf, size_t size)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(buf, size, "%s", t ? (const char *)t : "");
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

/* Runs sql with problem_id bound to ?1 and collects the first column of every row. */
static int list_ids(struct ht_store *store, const char *sql, int64_t problem_id, int64_t **ids,
                    size_t *n, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc, r;

    *ids = NULL;
    *n = 0;
    rc = ht__store_prepare(store, sql, &st, "cannot read the database for the report", err);
    if (rc != HT_OK)
        return rc;
    sqlite3_bind_int64(st, 1, problem_id);
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *grown = push(*ids, n, sizeof **ids);
        if (!grown) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
        *ids = grown;
        (*ids)[*n - 1] = sqlite3_column_int64(st, 0);
    }
    if (r != SQLITE_DONE)
        rc = ht__store_fail(store, err, "cannot read the database for the report");
cleanup:
    sqlite3_finalize(st);
    return rc;
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
    sqlite3_stmt *st = NULL;
    struct ht_stored_eval *ev = malloc(sizeof *ev);
    int rc, r;

    if (!ev)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    rc = ht__store_prepare(store,
                           "SELECT device_id, count(*), sum(status = 'ok') FROM evaluations "
                           "WHERE problem_id = ? GROUP BY device_id ORDER BY device_id",
                           &st, "cannot read the evaluations", err);
    if (rc != HT_OK)
        goto cleanup;
    sqlite3_bind_int64(st, 1, c->problem_id);
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct rp_tuning *grown = push(c->tuning, &c->ntuning, sizeof *c->tuning);
        struct rp_tuning *t;
        if (!grown) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
        c->tuning = grown;
        t = &c->tuning[c->ntuning - 1];
        t->device_id = sqlite3_column_int64(st, 0);
        t->evaluations = (uint64_t)sqlite3_column_int64(st, 1);
        t->ok = (uint64_t)sqlite3_column_int64(st, 2);
        t->seconds = -1;
    }
    if (r != SQLITE_DONE) {
        rc = ht__store_fail(store, err, "cannot read the evaluations");
        goto cleanup;
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
    sqlite3_finalize(st);
    free(ev);
    return rc;
}

static int load_splits(struct ht_store *store, struct rp_case *c, struct ht_error *err)
{
    int64_t *ids = NULL;
    size_t n = 0;
    int rc;

    rc = list_ids(store,
                  "SELECT max(id) FROM splits WHERE problem_id = ?1 GROUP BY dim, scheduler "
                  "ORDER BY dim, CASE scheduler WHEN 'static' THEN 0 WHEN 'dynamic' THEN 1 "
                  "WHEN 'guided' THEN 2 ELSE 3 END, scheduler",
                  c->problem_id, &ids, &n, err);
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

    rc = list_ids(store,
                  "SELECT max(s.id) FROM splits s WHERE s.problem_id = ?1 AND EXISTS "
                  "(SELECT 1 FROM sweep_points p WHERE p.split_id = s.id) GROUP BY s.dim "
                  "ORDER BY s.dim",
                  c->problem_id, &ids, &n, err);
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

static int load_cases(struct ht_store *store, const char *spec, struct rp_model *m,
                      struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc, r;

    rc = ht__store_prepare(
        store,
        "SELECT p.id, k.spec_name, p.sizes FROM problems p JOIN kernels k ON k.id = "
        "p.kernel_id WHERE (?1 IS NULL OR k.spec_name = ?1) AND (EXISTS (SELECT 1 FROM spaces "
        "s WHERE s.problem_id = p.id) OR EXISTS (SELECT 1 FROM evaluations e WHERE "
        "e.problem_id = p.id) OR EXISTS (SELECT 1 FROM splits x WHERE x.problem_id = p.id)) "
        "ORDER BY k.spec_name, p.id",
        &st, "cannot read the problems", err);
    if (rc != HT_OK)
        return rc;
    if (spec)
        sqlite3_bind_text(st, 1, spec, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 1);
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct rp_case *grown = push(m->cases, &m->ncases, sizeof *m->cases), *c;
        if (!grown) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
        m->cases = grown;
        c = &m->cases[m->ncases - 1];
        c->problem_id = sqlite3_column_int64(st, 0);
        column_text(st, 1, c->spec, sizeof c->spec);
        column_text(st, 2, c->sizes, sizeof c->sizes);
        snprintf(c->label, sizeof c->label, "%s%s%s", c->spec, c->sizes[0] ? " " : "",
                 c->sizes);
        make_slug(c->spec, c->sizes, c->slug, sizeof c->slug);
    }
    if (r != SQLITE_DONE)
        rc = ht__store_fail(store, err, "cannot read the problems");
cleanup:
    sqlite3_finalize(st);
    if (rc != HT_OK)
        return rc;
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
}

static int load_devices(struct ht_store *store, struct rp_model *m, struct ht_error *err)
{
    int64_t *ids = NULL;
    size_t n = 0;
    sqlite3_stmt *st = NULL;
    int rc = HT_OK;

    for (size_t i = 0; i < m->ncases; i++) {
        const struct rp_case *c = &m->cases[i];
        int bad = 0;
        for (size_t k = 0; k < c->nspaces; k++)
            bad |= want_device(&ids, &n, c->spaces[k].device_id);
        for (size_t k = 0; k < c->ntuning; k++)
            bad |= want_device(&ids, &n, c->tuning[k].device_id);
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
    rc = ht__store_prepare(store,
                           "SELECT name, platform, type, driver_version, compute_units FROM "
                           "devices WHERE id = ?",
                           &st, "cannot read the devices", err);
    if (rc != HT_OK)
        goto cleanup;
    for (size_t i = 0; i < n; i++) {
        struct rp_device *d = &m->devices[m->ndevices];
        int r;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, ids[i]);
        r = sqlite3_step(st);
        if (r == SQLITE_DONE)
            continue; /* foreign keys make this impossible; report it as "device <id>" */
        if (r != SQLITE_ROW) {
            rc = ht__store_fail(store, err, "cannot read the devices");
            goto cleanup;
        }
        d->id = ids[i];
        column_text(st, 0, d->name, sizeof d->name);
        column_text(st, 1, d->platform, sizeof d->platform);
        column_text(st, 2, d->type, sizeof d->type);
        column_text(st, 3, d->driver, sizeof d->driver);
        d->compute_units = sqlite3_column_int64(st, 4);
        m->ndevices++;
    }
    make_labels(m);
cleanup:
    sqlite3_finalize(st);
    free(ids);
    return rc;
}

int ht__report_load(struct ht_store *store, const char *spec, struct rp_model *m,
                    struct ht_error *err)
{
    int rc;

    memset(m, 0, sizeof *m);
    snprintf(m->db, sizeof m->db, "%s", ht_store_path(store));
    rc = ht__store_query_int(store, "PRAGMA user_version", &m->schema_version,
                             "cannot read the schema version", err);
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
    }
    if (rc == HT_OK)
        rc = load_devices(store, m, err);
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
    }
    free(m->cases);
    free(m->devices);
    memset(m, 0, sizeof *m);
}
