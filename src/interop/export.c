/* The results database as Kernel Tuner T4 JSON or as a C header of tuned values
 * (include/hetune/interop.h). Everything comes through the store's public API
 * (include/hetune/store.h): its problems with their kernel's names, devices, evaluations
 * and splits. No SQL here. */
#define _GNU_SOURCE
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/interop.h"
#include "hetune/store.h"
#include "util/util.h"

/* A problem's texts whole, however long: the store's fields cut a spec name at 255 bytes
 * and sizes at 1023, and an export that wrote those lost a problem's ends (two problems
 * differing past the cut were written alike). */
struct problem {
    int64_t id;
    char *kernel, *spec, *sizes, *params; /* owned */
};

struct device {
    int64_t id;
    /* The store's name as it comes, and its slug with "_<id>" for a second of the name. */
    char name[sizeof ((struct ht_stored_device *)0)->name], slug[300];
};

struct catalog {
    const struct ht_export_filter *filter;
    struct problem *problems; /* in id order, filtered */
    size_t nproblems;
    struct device *devices;   /* in id order */
    size_t ndevices;
};

static void problem_free(struct problem *p)
{
    free(p->kernel);
    free(p->spec);
    free(p->sizes);
    free(p->params);
}

static void catalog_free(struct catalog *c)
{
    for (size_t i = 0; i < c->nproblems; i++)
        problem_free(&c->problems[i]);
    free(c->problems);
    free(c->devices);
    c->problems = NULL;
    c->devices = NULL;
    c->nproblems = c->ndevices = 0;
}

/* 1 when the stored sizes ("N=4096,M=512") hold NAME=VALUE. */
static int has_size(const char *sizes, const struct ht_size_override *o)
{
    size_t n = strlen(o->name);

    for (const char *p = sizes; *p;) {
        char *end;
        if (!strncmp(p, o->name, n) && p[n] == '=' &&
            strtoll(p + n + 1, &end, 10) == o->value && (*end == ',' || *end == ' ' || !*end))
            return 1;
        p += strcspn(p, ", ");
        p += strspn(p, ", ");
    }
    return 0;
}

static int wanted(const struct ht_export_filter *f, const char *spec, const char *sizes)
{
    int named = !f || f->nnames == 0;

    for (size_t i = 0; f && i < f->nnames; i++)
        named |= !strcmp(f->names[i], spec);
    for (size_t i = 0; named && f && i < f->nsizes; i++)
        named = has_size(sizes, &f->sizes[i]);
    return named;
}

/* Writes text from the database to f made safe inside a C comment or a string literal of a
 * generated header: a value holding a newline and "*\/" must not end the comment and put
 * lines of its own into the user's build. Control characters become spaces; for a comment
 * "*\/" becomes "* /"; for a string, '"' and '\\' are escaped. Whole, however long: the
 * buffers it was written into cut a long spec name or sizes text. */
static void c_put(FILE *f, const char *in, int string)
{
    int last = 0;

    for (; *in; in++) {
        int c = (unsigned char)*in;
        if (c < 0x20 || c == 0x7f)
            c = ' ';
        if (!string && c == '/' && last == '*')
            putc(' ', f);
        if (string && (c == '"' || c == '\\'))
            putc('\\', f);
        putc(c, f);
        last = c;
    }
}

/* NAME upper-cased, every character but A-Z and 0-9 made '_', runs of them one '_'. Never
 * longer than NAME, so out may be name itself. */
static void slug(const char *name, char *out, size_t size)
{
    size_t n = 0;
    for (; *name && n + 1 < size; name++) {
        int c = (unsigned char)*name;
        if (isalnum(c))
            out[n++] = (char)toupper(c);
        else if (n > 0 && out[n - 1] != '_')
            out[n++] = '_';
    }
    while (n > 0 && out[n - 1] == '_')
        n--;
    out[n] = '\0';
}

static int add_problem(const struct ht_stored_problem *row, void *user)
{
    struct catalog *c = user;
    struct problem *grown, *p;

    /* The whole texts: spec_name is cut at 255 bytes and sizes at 1023, where a size can
     * be cut in its value ("N=40" of "N=4096") or left out. */
    if (!wanted(c->filter, row->spec_whole, row->sizes_whole))
        return 0;
    grown = realloc(c->problems, (c->nproblems + 1) * sizeof *grown);
    if (!grown)
        return HT_ENOMEM;
    c->problems = grown;
    p = &c->problems[c->nproblems];
    p->id = row->id;
    /* Copies: the whole texts are borrowed for this call only. */
    p->kernel = ht__strdup(row->kernel_whole);
    p->spec = ht__strdup(row->spec_whole);
    p->sizes = ht__strdup(row->sizes_whole);
    p->params = ht__strdup(row->params_whole);
    if (!p->kernel || !p->spec || !p->sizes || !p->params) {
        problem_free(p);
        return HT_ENOMEM;
    }
    c->nproblems++;
    return 0;
}

static int add_device(const struct ht_stored_device *row, void *user)
{
    struct catalog *c = user;
    struct device *grown, *d;

    grown = realloc(c->devices, (c->ndevices + 1) * sizeof *grown);
    if (!grown)
        return HT_ENOMEM;
    c->devices = grown;
    d = &c->devices[c->ndevices];
    memset(d, 0, sizeof *d);
    d->id = row->id;
    memcpy(d->name, row->name, sizeof d->name);
    d->name[sizeof d->name - 1] = '\0';
    slug(d->name, d->slug, sizeof d->slug);
    /* Two devices of one name (two identical GPUs, a new driver) need distinct macros. */
    for (size_t k = 0; k < c->ndevices; k++)
        if (!strcmp(c->devices[k].name, d->name)) {
            size_t n = strlen(d->slug);
            snprintf(d->slug + n, sizeof d->slug - n, "_%lld", (long long)d->id);
            break;
        }
    c->ndevices++;
    return 0;
}

static int catalog_load(struct ht_store *store, const struct ht_export_filter *f,
                        struct catalog *c, struct ht_error *err)
{
    int rc;

    memset(c, 0, sizeof *c);
    c->filter = f;
    rc = ht_store_list_problems(store, 0, add_problem, c, err);
    if (rc == HT_OK)
        rc = ht_store_list_devices(store, add_device, c, err);
    if (rc == HT_ENOMEM)
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
    if (rc != 0)
        catalog_free(c);
    return rc;
}

static const struct device *device_of(const struct catalog *c, int64_t id)
{
    for (size_t i = 0; i < c->ndevices; i++)
        if (c->devices[i].id == id)
            return &c->devices[i];
    return NULL;
}

/* The i-th name of "A,B,C", whole (a long name was cut at 255 bytes); owned (free()),
 * NULL when out of memory. */
static char *nth_name(const char *list, size_t i)
{
    const char *p = list, *end;
    for (; i > 0 && p; i--)
        if ((p = strchr(p, ',')))
            p++;
    if (!p)
        return ht__asprintf("p%zu", i);
    end = strchr(p, ',');
    return strndup(p, end ? (size_t)(end - p) : strlen(p));
}

static const char *invalidity(const char *status)
{
    static const struct { const char *status, *t4; } map[] = {
        {HT_STORE_OK, "correct"},          {HT_STORE_CUT, "correct"},
        {HT_STORE_BUILD, "compile"},       {HT_STORE_VERIFY, "correctness"},
        {HT_STORE_CONSTRAINT, "constraints"}, {HT_STORE_TIMEOUT, "timeout"},
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(map[i].status, status))
            return map[i].t4;
    return "runtime";
}

struct t4_walk {
    const struct catalog *cat;
    const struct problem *problem;
    json_t *results;
};

static int t4_eval(const struct ht_stored_eval *ev, void *user)
{
    struct t4_walk *w = user;
    const struct device *dev = device_of(w->cat, ev->device_id);
    json_t *conf = json_object(), *runs = json_array(), *times, *r;

    for (size_t i = 0; i < ev->nvalues; i++) {
        char *name = nth_name(w->problem->params, i);
        if (!name) {
            json_decref(conf);
            json_decref(runs);
            return HT_ENOMEM;
        }
        json_object_set_new(conf, name, json_integer(ev->values[i]));
        free(name);
    }
    for (unsigned i = 0; i < ev->nruns; i++)
        json_array_append_new(runs, json_real(ev->runs[i] * 1e3));
    times = json_pack("{s:o}", "runtimes", runs);
    if (ev->build_seconds >= 0)
        json_object_set_new(times, "compilation_time", json_real(ev->build_seconds * 1e3));
    /* Every text of the database through ht__json_string: a device name in a driver's
     * own encoding made json_pack or json_string fail, and the result lost its device. */
    r = json_pack("{s:o,s:o,s:[s],s:o,s:s,s:f}", "timestamp", ht__json_string(ev->created_at),
                  "configuration", conf, "objectives", "time", "times", times,
                  "invalidity", invalidity(ev->status), "correctness",
                  strcmp(ev->status, HT_STORE_VERIFY) && ev->verified != 0 ? 1.0 : 0.0);
    if (!r)
        return HT_ENOMEM;
    if (ev->seconds >= 0)
        json_object_set_new(r, "measurements",
                            json_pack("[{s:s,s:f,s:s}]", "name", "time", "value",
                                      ev->seconds * 1e3, "unit", "ms"));
    json_object_set_new(r, "device", ht__json_string(dev ? dev->name : ""));
    json_object_set_new(r, "kernel", ht__json_string(w->problem->kernel));
    json_object_set_new(r, "problem", ht__json_string(w->problem->sizes));
    json_object_set_new(r, "status", ht__json_string(ev->status));
    return json_array_append_new(w->results, r) == 0 ? 0 : HT_ENOMEM;
}

static int nothing(const struct ht_export_filter *f, const char *what, struct ht_error *err)
{
    if (f && f->nnames > 0)
        return ht_error_set(err, HT_ENOTFOUND, "the database holds no %s of spec '%s'%s", what,
                            f->names[0], f->nnames > 1 ? " or the others named" : "");
    return ht_error_set(err, HT_ENOTFOUND, "the database holds no %s", what);
}

int ht_export_t4(struct ht_store *store, const struct ht_export_filter *filter, char **json,
                 struct ht_error *err)
{
    struct catalog cat;
    struct t4_walk w;
    json_t *doc = NULL;
    int rc;

    if (!store || !json)
        return ht_error_set(err, HT_EINVAL, "ht_export_t4: %s is NULL", !store ? "store" : "json");
    *json = NULL;
    if ((rc = catalog_load(store, filter, &cat, err)) != 0)
        return rc;
    w.cat = &cat;
    w.results = json_array();
    doc = json_pack("{s:s,s:o}", "schema_version", "1.0.0", "results", w.results);
    if (!doc) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < cat.nproblems; i++) {
        w.problem = &cat.problems[i];
        rc = ht_store_list_evals(store, w.problem->id, 0, t4_eval, &w, err);
        if (rc == HT_ENOMEM)
            ht_error_set(err, HT_ENOMEM, "out of memory");
        if (rc != 0)
            goto cleanup;
    }
    if (json_array_size(w.results) == 0) {
        rc = nothing(filter, "evaluation", err);
        goto cleanup;
    }
    if (!(*json = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(12))))
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
cleanup:
    json_decref(doc);
    catalog_free(&cat);
    return rc;
}

/* The newest split of a problem whose slices are fixed, and how many newer splits were
 * passed over; walked in the order stored, the newest last. */
struct split_walk {
    struct ht_stored_split *sp; /* devices owned when found */
    int found;
    size_t newer_dynamic;
};

static int take_split(const struct ht_stored_split *sp, void *user)
{
    struct split_walk *w = user;
    int fixed = 0;

    for (size_t i = 0; i < sp->ndevices; i++)
        fixed |= sp->devices[i].size > 0;
    if (!fixed) {
        w->newer_dynamic++;
        return 0;
    }
    if (w->found)
        free(w->sp->devices);
    *w->sp = *sp;
    w->sp->devices = NULL;
    w->found = 0;
    if (sp->ndevices > 0) {
        w->sp->devices = malloc(sp->ndevices * sizeof *sp->devices);
        if (!w->sp->devices)
            return HT_ENOMEM;
        memcpy(w->sp->devices, sp->devices, sp->ndevices * sizeof *sp->devices);
    }
    w->found = 1;
    w->newer_dynamic = 0;
    return 0;
}

/* The newest split of the problem whose slices are fixed (a static plan: some device owns a
 * slice), a dynamic or guided split handing out chunks at run time having none to write:
 * 0 and *found 1 with *sp filled (devices owned); *newer_dynamic says how many newer splits
 * were passed over. */
static int latest_split(struct ht_store *store, int64_t problem_id, struct ht_stored_split *sp,
                        int *found, size_t *newer_dynamic, struct ht_error *err)
{
    struct split_walk w = {sp, 0, 0};
    int rc;

    ht_stored_split_init(sp);
    rc = ht_store_list_splits(store, problem_id, take_split, &w, err);
    if (rc == HT_ENOMEM)
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
    if (rc != 0 && w.found)
        free(sp->devices);
    *found = rc == 0 && w.found;
    *newer_dynamic = w.newer_dynamic;
    return rc;
}

static int header_problem(struct ht_store *store, const struct catalog *cat,
                          const struct problem *p, FILE *f, int *wrote, struct ht_error *err)
{
    struct ht_stored_eval *ev = malloc(sizeof *ev);
    struct ht_stored_split sp;
    /* The kernel's slug whole: cut, two kernels whose names differ late defined one macro. */
    char *k = ht__strdup(p->kernel);
    int rc = 0, found, any = 0;
    size_t passed;

    if (!ev || !k) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    slug(k, k, strlen(k) + 1);
    for (size_t d = 0; d < cat->ndevices; d++) {
        int64_t dev = cat->devices[d].id;
        rc = ht_store_best(store, p->id, dev, ev, err);
        if (rc == HT_ENOTFOUND)
            rc = ht_store_best_unverified(store, p->id, dev, ev, err);
        if (rc == HT_ENOTFOUND) {
            rc = 0;
            continue;
        }
        if (rc != 0)
            goto cleanup;
        if (!any) {
            fputs("\n/* kernel ", f);
            c_put(f, p->kernel, 0);
            fputs(" of spec ", f);
            c_put(f, p->spec, 0);
            fputs(" at ", f);
            c_put(f, p->sizes[0] ? p->sizes : "no sizes", 0);
            fputs(" */\n", f);
        }
        any = 1;
        fputs("/* ", f);
        c_put(f, cat->devices[d].name, 0);
        fputs(": ", f);
        c_put(f, ev->config, 0);
        fprintf(f, ", %.6g s%s */\n", ev->seconds,
                ev->verified == 1 ? ", verified" : ", not verified");
        for (size_t i = 0; i < ev->nvalues; i++) {
            char *pn = nth_name(p->params, i);
            if (!pn) {
                rc = ht_error_set(err, HT_ENOMEM, "out of memory");
                goto cleanup;
            }
            slug(pn, pn, strlen(pn) + 1);
            fprintf(f, "#define HETUNE_%s_%s_%s %lld\n", k, cat->devices[d].slug, pn,
                    (long long)ev->values[i]);
            free(pn);
        }
    }
    if (!any)
        goto cleanup;
    *wrote = 1;
    if ((rc = latest_split(store, p->id, &sp, &found, &passed, err)) != 0)
        goto cleanup;
    if (!found) {
        if (passed)
            fprintf(f, "/* no split with fixed slices: the %zu stored hand out chunks at run "
                    "time (dynamic, guided) */\n", passed);
        goto cleanup;
    }
    fputs("/* the newest split with fixed slices (", f);
    c_put(f, sp.scheduler, 0);
    fputs("), stored ", f);
    c_put(f, sp.created_at, 0);
    fprintf(f, "%s */\n", passed ? "; newer ones hand out chunks at run time" : "");
    fprintf(f, "#define HETUNE_%s_SPLIT_SCHEDULER \"", k);
    c_put(f, sp.scheduler, 1);
    fputs("\"\n", f);
    fprintf(f, "#define HETUNE_%s_SPLIT_DIM %u\n", k, sp.dim);
    fprintf(f, "#define HETUNE_%s_SPLIT_GLOBAL %llu\n", k, (unsigned long long)sp.global);
    for (size_t i = 0; i < sp.ndevices; i++) {
        const struct ht_stored_split_device *sd = &sp.devices[i];
        const struct device *dev = device_of(cat, sd->device_id);
        const char *s = dev ? dev->slug : "UNKNOWN";
        fprintf(f, "#define HETUNE_%s_SPLIT_%s_FACTOR %.6f\n", k, s,
                sd->adjusted_factor >= 0 ? sd->adjusted_factor : sd->optimal_factor);
        fprintf(f, "#define HETUNE_%s_SPLIT_%s_OFFSET %llu\n", k, s,
                (unsigned long long)sd->offset);
        fprintf(f, "#define HETUNE_%s_SPLIT_%s_SIZE %llu\n", k, s, (unsigned long long)sd->size);
    }
    free(sp.devices);
cleanup:
    free(ev);
    free(k);
    return rc;
}

int ht_export_header(struct ht_store *store, const struct ht_export_filter *filter,
                     char **text, struct ht_error *err)
{
    struct catalog cat;
    char *buf = NULL;
    size_t len = 0;
    FILE *f;
    int rc, wrote = 0;

    if (!store || !text)
        return ht_error_set(err, HT_EINVAL, "ht_export_header: %s is NULL",
                            !store ? "store" : "text");
    *text = NULL;
    if ((rc = catalog_load(store, filter, &cat, err)) != 0)
        return rc;
    if (!(f = open_memstream(&buf, &len))) {
        catalog_free(&cat);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    fputs("/* Tuned by hetune from ", f);
    c_put(f, ht_store_path(store), 0);
    fputs(". Generated: do not edit. */\n"
          "#ifndef HETUNE_TUNED_VALUES_H\n#define HETUNE_TUNED_VALUES_H\n", f);
    /* Newest problem first; one problem per kernel name, so that no macro is defined twice. */
    for (size_t i = cat.nproblems; rc == 0 && i-- > 0;) {
        int w = 0;
        if (cat.problems[i].id < 0) /* an older problem of a kernel already written */
            continue;
        rc = header_problem(store, &cat, &cat.problems[i], f, &w, err);
        wrote |= w;
        for (size_t j = 0; w && j < i; j++)
            if (!strcmp(cat.problems[j].kernel, cat.problems[i].kernel) &&
                cat.problems[j].id >= 0) {
                /* Never silently: the macros have no size in their names, so one problem
                 * per kernel; the others are named, with how to pick them. */
                fputs("/* left out: kernel ", f);
                c_put(f, cat.problems[j].kernel, 0);
                fputs(" at ", f);
                c_put(f, cat.problems[j].sizes, 0);
                fputs(" (older); pick it with hetune export --header FILE --size NAME=VALUE "
                      "*/\n", f);
                cat.problems[j].id = -1;
            }
    }
    fprintf(f, "\n#endif\n");
    fclose(f);
    catalog_free(&cat);
    if (rc == 0 && !wrote)
        rc = nothing(filter, "tuned configuration", err);
    if (rc != 0) {
        free(buf);
        return rc;
    }
    *text = buf;
    return 0;
}
