/* The report's model: the case studies, their space sizes, tuning, splits and sweeps, and
 * the devices they use, read from the results database through the store's public API
 * (include/hetune/store.h, its listings); which splits are the newest, the tallies and the
 * distributions of times are counted and sorted here. No SQL here. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/tune.h" /* HT_REPLAY_PLATFORM */
#include "report-internal.h"
#include "util/util.h"

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

/* Appends one element of size bytes, zeroed, to a growing array of *n made only by push:
 * its room is *n rounded up to a power of two, doubled when full (a run's steps are tens
 * of thousands). NULL when out of memory, arr and *n unchanged. */
static void *push(void *arr, size_t *n, size_t size)
{
    char *p = arr;

    if ((*n & (*n - 1)) == 0) {
        p = realloc(arr, (*n ? 2 * *n : 1) * size);
        if (!p)
            return NULL;
    }
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

/* Appends v to arr (n values). -1 when out of memory. */
static int append_time(double **arr, size_t *n, double v)
{
    double *grown = push(*arr, n, sizeof **arr);

    if (!grown)
        return -1;
    *arr = grown;
    grown[*n - 1] = v;
    return 0;
}

/* The index of device id in c's dists and tuning (the same devices, by id), inserting it
 * in both when missing; -1 when out of memory. */
static long device_slot(struct rp_case *c, int64_t id)
{
    size_t k = 0;
    struct rp_dist *dists;
    struct rp_tuning *tuning;

    while (k < c->ndists && c->dists[k].device_id < id)
        k++;
    if (k < c->ndists && c->dists[k].device_id == id)
        return (long)k;
    dists = realloc(c->dists, (c->ndists + 1) * sizeof *dists);
    if (dists)
        c->dists = dists;
    tuning = realloc(c->tuning, (c->ntuning + 1) * sizeof *tuning);
    if (tuning)
        c->tuning = tuning;
    if (!dists || !tuning)
        return -1;
    memmove(c->dists + k + 1, c->dists + k, (c->ndists - k) * sizeof *c->dists);
    memmove(c->tuning + k + 1, c->tuning + k, (c->ntuning - k) * sizeof *c->tuning);
    memset(&c->dists[k], 0, sizeof c->dists[k]);
    memset(&c->tuning[k], 0, sizeof c->tuning[k]);
    c->dists[k].device_id = c->tuning[k].device_id = id;
    c->tuning[k].seconds = -1;
    c->ndists++;
    c->ntuning++;
    return (long)k;
}

/* One evaluation counted into its device's tally and distribution of times. */
static int add_eval(const struct ht_stored_eval *ev, void *user)
{
    struct rp_case *c = user;
    long k = device_slot(c, ev->device_id);
    struct rp_dist *d;
    int bad = 0;

    if (k < 0)
        return HT_ENOMEM;
    d = &c->dists[k];
    c->tuning[k].evaluations++;
    c->tuning[k].ok += !strcmp(ev->status, HT_STORE_OK);
    d->evaluations++;
    /* As the tuner counts them: ok and not failed verification competes; cut is a lower
     * bound only; everything else failed. A time not measured is -1, NaN none either. */
    if (!strcmp(ev->status, HT_STORE_OK) && ev->verified != 0 && ev->seconds > 0)
        bad = append_time(&d->times, &d->ntimes, ev->seconds);
    else if (!strcmp(ev->status, HT_STORE_CUT)) {
        d->cut++;
        if (ev->seconds > 0)
            bad = append_time(&d->cut_times, &d->ncut_times, ev->seconds);
    }
    else
        d->failed++;
    return bad ? HT_ENOMEM : 0;
}

static int time_order(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* A case by its problem's id, for a walk of every problem's evaluations. */
struct case_ref {
    int64_t problem_id;
    struct rp_case *c;
};

struct eval_route {
    struct case_ref *refs;     /* by problem id */
    size_t n;
    struct rp_case *last;      /* the last evaluation's case: a problem's come together */
};

static int ref_order(const void *a, const void *b)
{
    int64_t x = ((const struct case_ref *)a)->problem_id,
            y = ((const struct case_ref *)b)->problem_id;

    return (x > y) - (x < y);
}

/* One evaluation of any problem counted into its case (none: a problem not shown). */
static int route_eval(const struct ht_stored_eval *ev, void *user)
{
    struct eval_route *r = user;

    if (!r->last || r->last->problem_id != ev->problem_id) {
        struct case_ref key = {ev->problem_id, NULL};
        const struct case_ref *ref = bsearch(&key, r->refs, r->n, sizeof *r->refs, ref_order);
        if (!ref)
            return 0;
        r->last = ref->c;
    }
    return add_eval(ev, r->last);
}

/* Every case's tallies and distributions of times, from the evaluations without their
 * runs: one walk of the whole table when every problem with evaluations is a case (no
 * spec asked for), else one walk of each case's, found by the index. */
static int load_evals(struct ht_store *store, const char *spec, struct rp_model *m,
                      struct ht_error *err)
{
    struct eval_route r = {NULL, m->ncases, NULL};
    int rc = HT_OK;

    if (spec) {
        for (size_t i = 0; rc == HT_OK && i < m->ncases; i++)
            rc = ht_store_list_evals_brief(store, m->cases[i].problem_id, 0, add_eval,
                                           &m->cases[i], err);
    } else if (m->ncases > 0) {
        if (!(r.refs = malloc(m->ncases * sizeof *r.refs)))
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        for (size_t i = 0; i < m->ncases; i++)
            r.refs[i] = (struct case_ref){m->cases[i].problem_id, &m->cases[i]};
        qsort(r.refs, r.n, sizeof *r.refs, ref_order);
        rc = ht_store_list_evals_brief(store, 0, 0, route_eval, &r, err);
        free(r.refs);
    }
    if (rc == HT_ENOMEM)
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
    return rc;
}

/* Each device's tuning of the case: its times sorted, and its best. */
static int finish_tuning(struct ht_store *store, struct rp_case *c, struct ht_error *err)
{
    struct ht_stored_eval *ev = malloc(sizeof *ev);
    int rc = HT_OK;

    if (!ev)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < c->ndists; i++) {
        /* An empty list has no array (qsort wants one). */
        if (c->dists[i].ntimes > 1)
            qsort(c->dists[i].times, c->dists[i].ntimes, sizeof *c->dists[i].times,
                  time_order);
        if (c->dists[i].ncut_times > 1)
            qsort(c->dists[i].cut_times, c->dists[i].ncut_times,
                  sizeof *c->dists[i].cut_times, time_order);
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
            break;
        t->has_best = 1;
        snprintf(t->config, sizeof t->config, "%s", ev->config);
        t->seconds = ev->seconds;
    }
    free(ev);
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

/* A case's splits, every one in the order stored, devices owned. */
struct split_list {
    struct ht_stored_split *v;
    size_t n;
};

/* *dst = *src with a copy of its devices (owned). -1 when out of memory. */
static int copy_split(struct ht_stored_split *dst, const struct ht_stored_split *src)
{
    *dst = *src;
    dst->devices = NULL;
    if (src->ndevices == 0)
        return 0;
    dst->devices = malloc(src->ndevices * sizeof *dst->devices);
    if (!dst->devices)
        return -1;
    memcpy(dst->devices, src->devices, src->ndevices * sizeof *dst->devices);
    return 0;
}

static int add_split(const struct ht_stored_split *sp, void *user)
{
    struct split_list *l = user;
    struct ht_stored_split *grown = push(l->v, &l->n, sizeof *l->v);

    if (!grown)
        return HT_ENOMEM;
    l->v = grown;
    if (copy_split(&l->v[l->n - 1], sp) != 0) {
        l->n--;
        return HT_ENOMEM;
    }
    return 0;
}

/* The schedulers in the order hetune split --help lists them (split.h's registry: static,
 * dynamic, guided), any other after them by name. */
static int scheduler_rank(const char *name)
{
    static const char *const known[] = {"static", "dynamic", "guided"};

    for (int i = 0; i < 3; i++)
        if (!strcmp(name, known[i]))
            return i;
    return 3;
}

/* Table 3 and Figure 5's order: by dimension, then scheduler. */
static int split_order(const void *a, const void *b)
{
    const struct ht_stored_split *x = a, *y = b;
    int rx = scheduler_rank(x->scheduler), ry = scheduler_rank(y->scheduler);

    if (x->dim != y->dim)
        return x->dim < y->dim ? -1 : 1;
    if (rx != ry)
        return rx - ry;
    return strcmp(x->scheduler, y->scheduler);
}

static int sweep_order(const void *a, const void *b)
{
    const struct rp_sweep *x = a, *y = b;

    return (x->split.dim > y->split.dim) - (x->split.dim < y->split.dim);
}

/* The newest split of each (dimension, scheduler) and the newest split with sweep points
 * of each dimension. */
static int load_splits(struct ht_store *store, struct rp_case *c, struct ht_error *err)
{
    struct split_list all = {NULL, 0};
    int rc;

    rc = ht_store_list_splits(store, c->problem_id, add_split, &all, err);
    if (rc != HT_OK)
        goto cleanup;
    c->splits = calloc(all.n ? all.n : 1, sizeof *c->splits);
    c->sweeps = calloc(all.n ? all.n : 1, sizeof *c->sweeps);
    if (!c->splits || !c->sweeps) {
        rc = HT_ENOMEM;
        goto cleanup;
    }
    for (size_t i = all.n; i-- > 0;) {
        const struct ht_stored_split *sp = &all.v[i];
        int newer = 0;
        for (size_t k = 0; k < c->nsplits; k++)
            newer |= c->splits[k].dim == sp->dim && !strcmp(c->splits[k].scheduler,
                                                            sp->scheduler);
        if (newer)
            continue;
        if (copy_split(&c->splits[c->nsplits], sp) != 0) {
            rc = HT_ENOMEM;
            goto cleanup;
        }
        c->nsplits++;
    }
    qsort(c->splits, c->nsplits, sizeof *c->splits, split_order);
    for (size_t i = all.n; i-- > 0;) {
        struct rp_sweep *s = &c->sweeps[c->nsweeps];
        int newer = 0;
        for (size_t k = 0; k < c->nsweeps; k++)
            newer |= c->sweeps[k].split.dim == all.v[i].dim;
        if (newer)
            continue;
        rc = ht_store_list_sweep(store, all.v[i].id, add_point, s, err);
        if (rc == HT_OK && s->npoints > 0 && copy_split(&s->split, &all.v[i]) != 0)
            rc = HT_ENOMEM;
        if (rc != HT_OK) {
            free(s->points);
            goto cleanup;
        }
        if (s->npoints > 0)
            c->nsweeps++;
    }
    qsort(c->sweeps, c->nsweeps, sizeof *c->sweeps, sweep_order);
cleanup:
    if (rc == HT_ENOMEM)
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < all.n; i++)
        free(all.v[i].devices);
    free(all.v);
    return rc;
}

_Static_assert(sizeof ((struct rp_step *)0)->status ==
                   sizeof ((struct ht_stored_tune_step *)0)->status,
               "add_step copies a step's status whole");

/* One step of a run, appended to its run (a new one when the walk reaches the next). */
static int add_step(const struct ht_stored_tune_run *run, const struct ht_stored_tune_step *st,
                    void *user)
{
    struct rp_case *c = user;
    struct rp_run *r;
    struct rp_step *grown;

    if (c->nruns == 0 || c->runs[c->nruns - 1].run.id != run->id) {
        struct rp_run *runs = push(c->runs, &c->nruns, sizeof *c->runs);
        if (!runs)
            return HT_ENOMEM;
        c->runs = runs;
        c->runs[c->nruns - 1].run = *run;
    }
    r = &c->runs[c->nruns - 1];
    if (!(grown = push(r->steps, &r->nsteps, sizeof *r->steps)))
        return HT_ENOMEM;
    r->steps = grown;
    grown[r->nsteps - 1] = (struct rp_step){st->i, "", st->seconds, st->elapsed_s};
    memcpy(grown[r->nsteps - 1].status, st->status, sizeof grown->status);
    return 0;
}

/* The convergence figures' order: by device, then in the order the runs started. */
static int run_order(const void *a, const void *b)
{
    const struct ht_stored_tune_run *x = &((const struct rp_run *)a)->run,
                                    *y = &((const struct rp_run *)b)->run;

    if (x->device_id != y->device_id)
        return x->device_id < y->device_id ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* Every tuning run of the case that has steps, with its steps. */
static int load_runs(struct ht_store *store, struct rp_case *c, struct ht_error *err)
{
    int rc = ht_store_list_tune_steps(store, c->problem_id, 0, add_step, c, err);

    if (rc == HT_ENOMEM)
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
    if (rc == HT_OK && c->nruns > 1)
        qsort(c->runs, c->nruns, sizeof *c->runs, run_order);
    return rc;
}

/* The longest slug kept whole. A figure's file name is "tune-SLUG-DEVICE-times.dat" with a
 * device slug of up to 99 bytes and a problem suffix ("_p123") where two cases share a slug:
 * with slugs of at most this many bytes every name stays under the 255 bytes a file system
 * takes. A longer slug keeps its first SLUG_KEEP - 9 bytes and ends in "-" and 8 hex digits
 * of a checksum of the whole, so that two long names that differ late still differ. */
#define SLUG_KEEP 112

/* A file-name-safe form of the spec name and sizes: "matmul" and "M=7,N=1024" give
 * "matmul_M7_N1024"; past SLUG_KEEP bytes, cut and marked by a checksum of the whole form
 * (of the first size - 1 bytes it was, and two sizes texts differing later shared a slug).
 * HT_ENOMEM. */
static int make_slug(const char *spec, const char *sizes, char *buf, size_t size)
{
    char *whole = malloc(strlen(spec) + strlen(sizes) + 2);
    size_t k = 0;

    if (!whole)
        return HT_ENOMEM;
    for (const char *p = spec; *p; p++)
        whole[k++] = isalnum((unsigned char)*p) || *p == '-' || *p == '_' ? *p : '-';
    if (*sizes)
        whole[k++] = '_';
    for (const char *p = sizes; *p; p++) {
        if (*p == '=')
            continue;
        whole[k++] = isalnum((unsigned char)*p) || *p == '-' ? *p : '_';
    }
    whole[k] = '\0';
    copy_text(buf, size, k ? whole : "case");
    if (k > SLUG_KEEP && size > SLUG_KEEP) {
        uint64_t sum = ht__checksum(whole, k);
        snprintf(buf + SLUG_KEEP - 9, size - (SLUG_KEEP - 9), "-%08x",
                 (unsigned)(sum & 0xffffffffu));
    }
    free(whole);
    return HT_OK;
}

/* Case studies in the order of the report: by spec name, whole (two names can share the
 * 255 bytes spec keeps), then problem id (the order the SQL of earlier versions gave:
 * BINARY collation is strcmp's). */
static int case_order(const void *a, const void *b)
{
    const struct rp_case *x = a, *y = b;
    int c = strcmp(x->spec, y->spec);

    if (c)
        return c;
    return (x->problem_id > y->problem_id) - (x->problem_id < y->problem_id);
}

/* The problems of the spec asked for (every one when NULL), in id order; each v[i] owns
 * its spec and sizes. */
struct problem_walk {
    const char *spec;
    struct rp_case *v;
    size_t n;
};

static int add_problem(const struct ht_stored_problem *p, void *user)
{
    struct problem_walk *w = user;
    struct rp_case *grown, *c;

    /* The whole name: spec_name is cut at 255 bytes. */
    if (w->spec && strcmp(p->spec_whole, w->spec))
        return 0;
    grown = push(w->v, &w->n, sizeof *w->v);
    if (!grown)
        return HT_ENOMEM;
    w->v = grown;
    c = &w->v[w->n - 1];
    /* Whole, copied: the store's spec_name and sizes are cut (255 and 1023 bytes), and
     * cases differing only past the cut were labelled alike. */
    c->spec = ht__strdup(p->spec_whole);
    c->sizes = ht__strdup(p->sizes_whole);
    if (!c->spec || !c->sizes) {
        free(c->spec);
        free(c->sizes);
        w->n--;
        return HT_ENOMEM;
    }
    c->problem_id = p->id;
    return 0;
}

static int stop_at_first_space(const struct ht_stored_space *sp, void *user)
{
    (void)sp;
    (void)user;
    return 1;
}

static int stop_at_first_split(const struct ht_stored_split *sp, void *user)
{
    (void)sp;
    (void)user;
    return 1;
}

/* *has 1 when a space size, an evaluation or a split of the problem is stored. */
static int has_results(struct ht_store *store, int64_t problem_id, int *has,
                       struct ht_error *err)
{
    uint64_t evals = 0;
    int rc = ht_store_list_spaces(store, problem_id, stop_at_first_space, NULL, err);

    *has = rc == 1;
    if (rc == 1 || rc != HT_OK)
        return rc == 1 ? HT_OK : rc;
    rc = ht_store_count_evals(store, problem_id, 0, &evals, err);
    if (rc != HT_OK || evals > 0) {
        *has = evals > 0;
        return rc;
    }
    rc = ht_store_list_splits(store, problem_id, stop_at_first_split, NULL, err);
    *has = rc == 1;
    return rc == 1 ? HT_OK : rc;
}

/* Frees the texts of v[from..to). */
static void free_names(struct rp_case *v, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        free(v[i].spec);
        free(v[i].sizes);
        free(v[i].label);
    }
}

static int load_cases(struct ht_store *store, const char *spec, struct rp_model *m,
                      struct ht_error *err)
{
    struct problem_walk w = {spec, NULL, 0};
    int rc;

    rc = ht_store_list_problems(store, 0, add_problem, &w, err);
    if (rc == HT_ENOMEM)
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
    if (rc != HT_OK) {
        free_names(w.v, 0, w.n);
        free(w.v);
        return rc;
    }
    m->cases = w.v;
    for (size_t i = 0; i < w.n; i++) {
        struct rp_case *c;
        int has = 0;
        /* A problem with nothing stored (its spec was only loaded) is no case study. On
         * an error the cases kept so far are the model's to free, and the problems from
         * i on still own their names (those between were moved or freed). */
        if ((rc = has_results(store, w.v[i].problem_id, &has, err)) != HT_OK) {
            free_names(w.v, i, w.n);
            return rc;
        }
        if (!has) {
            free_names(w.v, i, i + 1);
            continue;
        }
        c = &m->cases[m->ncases++];
        if (c != &w.v[i])
            *c = w.v[i];
        c->label = ht__asprintf("%s%s%s", c->spec, c->sizes[0] ? " " : "", c->sizes);
        if (!c->label || make_slug(c->spec, c->sizes, c->slug, sizeof c->slug) != HT_OK) {
            free_names(w.v, i + 1, w.n);
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        }
    }
    if (m->ncases > 1)
        qsort(m->cases, m->ncases, sizeof *m->cases, case_order);
    /* Two problems can share a name and sizes (an edited kernel): their files must not. */
    for (size_t i = 0; i < m->ncases; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(m->cases[i].slug, m->cases[j].slug)) {
                size_t len = strlen(m->cases[i].slug);
                snprintf(m->cases[i].slug + len, sizeof m->cases[i].slug - len, "_p%lld",
                         (long long)m->cases[i].problem_id);
                char *label = ht__asprintf("%s (problem %lld)", m->cases[i].label,
                                           (long long)m->cases[i].problem_id);
                if (!label)
                    return ht_error_set(err, HT_ENOMEM, "out of memory");
                free(m->cases[i].label);
                m->cases[i].label = label;
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

/* The devices the cases use: wanted, their ids in order (n); m->devices filled from the
 * walk of every stored device, in id order too. */
struct device_walk {
    const int64_t *ids;
    size_t n, next;
    struct rp_model *m;
};

static int add_device(const struct ht_stored_device *row, void *user)
{
    struct device_walk *w = user;
    struct rp_device *d;

    /* Both lists are in id order. A device missing is impossible with foreign keys; the
     * report would name it "device <id>". */
    while (w->next < w->n && w->ids[w->next] < row->id)
        w->next++;
    if (w->next == w->n || w->ids[w->next] != row->id)
        return 0;
    d = &w->m->devices[w->m->ndevices++];
    d->id = row->id;
    copy_text(d->name, sizeof d->name, row->name);
    copy_text(d->platform, sizeof d->platform, row->platform);
    copy_text(d->type, sizeof d->type, row->type);
    copy_text(d->driver, sizeof d->driver, row->driver_version);
    d->compute_units = row->compute_units;
    /* The platform a replay's device gets: its results were never measured here. */
    d->replayed = !strcmp(d->platform, HT_REPLAY_PLATFORM);
    w->next++;
    return 0;
}

static int load_devices(struct ht_store *store, struct rp_model *m, struct ht_error *err)
{
    int64_t *ids = NULL;
    size_t n = 0;
    struct device_walk w;
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
    w = (struct device_walk){ids, n, 0, m};
    rc = ht_store_list_devices(store, add_device, &w, err);
    if (rc != HT_OK)
        goto cleanup;
    make_labels(m);
cleanup:
    free(ids);
    return rc;
}

int ht__report_load(struct ht_store *store, const char *spec, struct rp_model *m,
                    struct ht_error *err)
{
    int rc;

    memset(m, 0, sizeof *m);
    snprintf(m->db, sizeof m->db, "%s", ht_store_path(store));
    /* An open store is at this build's schema: ht_store_open migrates or refuses. */
    m->schema_version = HT_STORE_SCHEMA_VERSION;
    rc = load_cases(store, spec, m, err);
    if (rc == HT_OK)
        rc = load_evals(store, spec, m, err);
    for (size_t i = 0; rc == HT_OK && i < m->ncases; i++) {
        struct rp_case *c = &m->cases[i];
        rc = ht_store_list_spaces(store, c->problem_id, add_space, c, err);
        if (rc == HT_ENOMEM)
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        if (rc == HT_OK)
            rc = finish_tuning(store, c, err);
        if (rc == HT_OK)
            rc = load_splits(store, c, err);
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
        free(c->spec);
        free(c->sizes);
        free(c->label);
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
