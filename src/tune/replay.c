/* Recorded spaces (issue 25): a T4 results file or a Kernel Tuner cache file loaded into a
 * table that answers "what did this configuration cost" for a tune (include/hetune/tune.h,
 * ht_recording_*). Nothing here builds or runs a kernel. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HT_HAVE_ZLIB
#include <zlib.h>
#endif

#include "hetune/tune.h"
#include "rjson-internal.h"
#include "tune-internal.h"
#include "util/util.h"

struct entry {
    int status;          /* HT_OK or the HT_E... of a failure */
    double seconds;      /* the recorded statistic; -1 when none */
    double compile_s;    /* recorded compile time; 0 when none */
    double run_s;        /* recorded benchmarking time (all repeats) plus the framework's */
    size_t first_run, nruns; /* into runs */
    size_t result;       /* its position in the file, for messages */
};

struct ht_recording {
    char *path;
    char device[256];
    char format[16];     /* "T4" or "Kernel Tuner cache" */
    size_t nparams;
    char **names;        /* recording order */
    size_t count, cap;
    int64_t *values;     /* count * nparams, recording order */
    struct entry *entries;
    double *runs;
    size_t nruns, runs_cap;
    size_t *hash;        /* index + 1, 0 empty */
    size_t hmask;
    /* ht__recording_bind: map[i] is the recording's column of the spec's parameter i. */
    size_t *map;
    size_t bound_nparams;
};

/* ---- reading ------------------------------------------------------------------------- */

/* The file's bytes, gunzipped when it is gzip (zlib reads plain files as they are). */
static int read_all(const char *path, char **out, size_t *len, struct ht_error *err)
{
#ifdef HT_HAVE_ZLIB
    FILE *probe = NULL;
    uint64_t size = 0;
    int rc = ht__open_regular(path, &probe, &size, err);
    if (rc)
        return rc;
    fclose(probe);
    gzFile gz = gzopen(path, "rb");
    size_t cap = size + 1 > 4096 ? (size_t)size + 1 : 4096, n = 0;
    char *buf = malloc(cap);
    if (!gz || !buf) {
        if (gz)
            gzclose(gz);
        free(buf);
        return gz ? ht_error_set(err, HT_ENOMEM, "out of memory")
                  : ht_error_set(err, HT_EIO, "%s: cannot open", path);
    }
    for (;;) {
        while (cap - n < 65536 + 1) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                gzclose(gz);
                return ht_error_set(err, HT_ENOMEM, "out of memory");
            }
            buf = grown;
            cap *= 2;
        }
        int got = gzread(gz, buf + n, 65536);
        if (got < 0) {
            int zerr = 0;
            const char *why = gzerror(gz, &zerr);
            snprintf(err->file, sizeof err->file, "%s", path);
            rc = ht_error_set(err, HT_EPARSE, "not a readable gzip file: %s",
                              why && *why ? why : "corrupt data");
            free(buf);
            gzclose(gz);
            return rc;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    /* gzread stops early, without an error, at a gzip stream cut short. */
    int zerr = 0;
    gzerror(gz, &zerr);
    int direct = gzdirect(gz);
    gzclose(gz);
    if (zerr != Z_OK && zerr != Z_BUF_ERROR) {
        free(buf);
        snprintf(err->file, sizeof err->file, "%s", path);
        return ht_error_set(err, HT_EPARSE, "the gzip data is damaged");
    }
    if (!direct && zerr == Z_BUF_ERROR) {
        free(buf);
        snprintf(err->file, sizeof err->file, "%s", path);
        return ht_error_set(err, HT_EPARSE, "the gzip file is truncated");
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
#else
    size_t plen = strlen(path);
    if (plen > 3 && !strcmp(path + plen - 3, ".gz")) {
        snprintf(err->file, sizeof err->file, "%s", path);
        return ht_error_set(err, HT_EINVAL, "this hetune was built without zlib: gunzip the "
                            "file first");
    }
    return ht__read_file(path, out, len, err);
#endif
}

static int fail_at(struct ht_recording *r, struct ht_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_at(struct ht_recording *r, struct ht_error *err, int code, const char *fmt, ...)
{
    char text[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (err->code)
        return err->code;
    snprintf(err->file, sizeof err->file, "%s", r->path);
    return ht_error_set(err, code, "%s", text);
}

static size_t hash_row(const struct ht_recording *r, const int64_t *v)
{
    return (size_t)ht__fnv1a(HT__FNV_INIT, v, r->nparams * sizeof *v);
}

/* The row of values v (recording order), or count when none. */
static size_t find_row(const struct ht_recording *r, const int64_t *v)
{
    if (!r->hash)
        return r->count;
    for (size_t h = hash_row(r, v) & r->hmask; r->hash[h]; h = (h + 1) & r->hmask) {
        size_t i = r->hash[h] - 1;
        if (!memcmp(r->values + i * r->nparams, v, r->nparams * sizeof *v))
            return i;
    }
    return r->count;
}

static int rehash(struct ht_recording *r)
{
    size_t size = 64;
    while (size < 2 * r->count + 2)
        size *= 2;
    size_t *h = calloc(size, sizeof *h);
    if (!h)
        return HT_ENOMEM;
    free(r->hash);
    r->hash = h;
    r->hmask = size - 1;
    for (size_t i = 0; i < r->count; i++) {
        size_t k = hash_row(r, r->values + i * r->nparams) & r->hmask;
        while (r->hash[k])
            k = (k + 1) & r->hmask;
        r->hash[k] = i + 1;
    }
    return 0;
}

static int set_params(struct ht_recording *r, const struct ht__rj *names_or_conf,
                      struct ht_error *err)
{
    size_t n;
    const struct ht__rj *v = ht__rj_items(names_or_conf, &n);

    if (n == 0)
        return fail_at(r, err, HT_ESPEC, "the recording names no tuning parameter");
    if (n > HT_STORE_MAX_PARAMS)
        return fail_at(r, err, HT_ESPEC, "%zu tuning parameters: hetune keeps %d at most", n,
                       HT_STORE_MAX_PARAMS);
    if (!(r->names = calloc(n, sizeof *r->names)))
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    r->nparams = n;
    for (size_t i = 0; i < n; i++) {
        const char *name = names_or_conf->type == HT__RJ_ARRAY ? ht__rj_string(&v[i])
                                                               : v[i].key;
        if (!name)
            return fail_at(r, err, HT_ESPEC, "tune_params_keys[%zu]: expected a name", i);
        if (!(r->names[i] = ht__strdup(name)))
            return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    return 0;
}

/* An integer value of a configuration: a JSON integer, or a real that is one. */
static int int_value(const struct ht__rj *v, int64_t *out)
{
    if (v->type == HT__RJ_INT) {
        *out = v->u.i;
        return 1;
    }
    if (v->type == HT__RJ_REAL && fabs(v->u.d) < 9e15 && v->u.d == floor(v->u.d)) {
        *out = (int64_t)v->u.d;
        return 1;
    }
    return 0;
}

/* Appends one result e, whose runs are runs[0..e->nruns): conf holds every parameter by
 * name, among others when subset (a Kernel Tuner cache entry: its parameters are those the
 * recording names). */
static int add_row(struct ht_recording *r, const struct ht__rj *conf, int subset,
                   const char *where, struct entry *e, const double *runs,
                   struct ht_error *err)
{
    const size_t nruns = e->nruns;
    size_t have = 0;

    if (!conf || conf->type != HT__RJ_OBJECT)
        return fail_at(r, err, HT_ESPEC, "%s: the configuration is not an object", where);
    for (size_t i = 0; subset && i < r->nparams; i++) { /* distinct names, as jansson's */
        size_t j = 0;
        while (j < i && strcmp(r->names[j], r->names[i]))
            j++;
        have += j == i && ht__rj_get(conf, r->names[i]) != NULL;
    }
    if (!subset)
        have = conf->n;
    if (have != r->nparams)
        return fail_at(r, err, HT_ESPEC, "%s: %zu parameters where the recording has %zu",
                       where, have, r->nparams);
    if (r->count == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 1024;
        int64_t *v = realloc(r->values, cap * r->nparams * sizeof *v);
        if (!v)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        r->values = v;
        struct entry *en = realloc(r->entries, cap * sizeof *en);
        if (!en)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        r->entries = en;
        r->cap = cap;
    }
    int64_t *row = r->values + r->count * r->nparams;
    for (size_t i = 0; i < r->nparams; i++) {
        const struct ht__rj *v = ht__rj_get(conf, r->names[i]);
        if (!v)
            return fail_at(r, err, HT_ESPEC, "%s: no value of parameter '%s'", where,
                           r->names[i]);
        if (!int_value(v, &row[i]))
            return fail_at(r, err, HT_ESPEC, "%s: parameter '%s' is not an integer (hetune "
                           "tunes integer parameters)", where, r->names[i]);
    }
    if (nruns) {
        if (r->nruns + nruns > r->runs_cap) {
            size_t cap = r->runs_cap ? r->runs_cap : 4096;
            while (cap < r->nruns + nruns)
                cap *= 2;
            double *g = realloc(r->runs, cap * sizeof *g);
            if (!g)
                return ht_error_set(err, HT_ENOMEM, "out of memory");
            r->runs = g;
            r->runs_cap = cap;
        }
        memcpy(r->runs + r->nruns, runs, nruns * sizeof *runs);
    }
    e->first_run = r->nruns;
    r->nruns += nruns;
    r->entries[r->count] = *e;
    r->count++;
    return 0;
}

/* A time in milliseconds, or -1 when v is not a finite number >= 0. */
static double ms(const struct ht__rj *v)
{
    double x = -1.0;
    if (!ht__rj_number(v, &x))
        x = -1.0;
    return isfinite(x) && x >= 0.0 ? x : -1.0;
}

/* The runs of a list of times in ms (those that are times), in seconds into buf (the first
 * HT_STORE_MAX_RUNS; *n of them); returns the sum of all, in seconds. */
static double read_runs(const struct ht__rj *list, double unit, double *buf, size_t *n)
{
    double sum = 0.0;
    size_t count = 0;
    const struct ht__rj *x = list && list->type == HT__RJ_ARRAY ? ht__rj_items(list, &count)
                                                                 : NULL;

    *n = 0;
    for (size_t k = 0; k < count; k++) {
        double t = ms(&x[k]);
        if (t < 0)
            continue;
        sum += t * unit;
        if (*n < HT_STORE_MAX_RUNS)
            buf[(*n)++] = t * unit;
    }
    return sum;
}

/* The sum of obj's positive times among keys (nkeys of them), in seconds. */
static double extra_times(const struct ht__rj *obj, const char *const *keys, size_t nkeys,
                          double unit)
{
    double sum = 0.0;
    for (size_t k = 0; k < nkeys; k++)
        if (ms(ht__rj_get(obj, keys[k])) > 0)
            sum += ms(ht__rj_get(obj, keys[k])) * unit;
    return sum;
}

/* T4's invalidity into a status (hetune's own "status", when the file has it, is finer). */
static int t4_status(const struct ht__rj *res)
{
    static const struct { const char *name; int code; } map[] = {
        {"correct", HT_OK},          {"ok", HT_OK},
        {"compile", HT_EBUILD},      {"build", HT_EBUILD},
        {"runtime", HT_ELAUNCH},     {"launch", HT_ELAUNCH},
        {"correctness", HT_EVERIFY}, {"verify", HT_EVERIFY},
        {"constraints", HT_ECONSTRAINT}, {"constraint", HT_ECONSTRAINT},
        {"timeout", HT_ETIMEOUT},    {"cut", HT_ECUT},
        {"crashed", HT_ECRASH},      {"cl", HT_ECL},
    };
    const char *s = ht__rj_string(ht__rj_get(res, "status"));
    if (!s)
        s = ht__rj_string(ht__rj_get(res, "invalidity"));
    if (!s)
        return HT_EINVAL;
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(map[i].name, s))
            return map[i].code;
    return HT_EINVAL; /* "error" and anything new: a failure */
}

static int load_t4(struct ht_recording *r, const struct ht__rj *root, const char *want_device,
                   struct ht_error *err)
{
    const struct ht__rj *results = ht__rj_get(root, "results"), *all;
    double unit = 1e-3; /* T4 times are milliseconds */
    const char *tu = ht__rj_string(ht__rj_get(ht__rj_get(root, "metadata"), "timeunit"));
    double runbuf[HT_STORE_MAX_RUNS];
    char where[64];
    size_t nresults;
    int rc;

    if (tu && (!strcmp(tu, "seconds") || !strcmp(tu, "s")))
        unit = 1.0;
    else if (tu && (!strcmp(tu, "microseconds") || !strcmp(tu, "us")))
        unit = 1e-6;
    if (!results || results->type != HT__RJ_ARRAY)
        return fail_at(r, err, HT_ESPEC, "results: expected an array (a T4 file)");
    snprintf(r->format, sizeof r->format, "T4");
    all = ht__rj_items(results, &nresults);
    for (size_t i = 0; i < nresults; i++) {
        const struct ht__rj *res = &all[i], *times = ht__rj_get(res, "times"),
                            *runs = ht__rj_get(times, "runtimes"), *x;
        const char *dev = ht__rj_string(ht__rj_get(res, "device"));
        size_t nx;
        struct entry e = {0};

        snprintf(where, sizeof where, "results[%zu]", i);
        if (res->type != HT__RJ_OBJECT)
            return fail_at(r, err, HT_ESPEC, "%s: expected an object", where);
        /* hetune's own export may hold several devices: one is replayed. */
        if (dev && *dev) {
            if (want_device && strcmp(dev, want_device))
                continue;
            if (!r->device[0])
                snprintf(r->device, sizeof r->device, "%s", dev);
            else if (strcmp(r->device, dev))
                return fail_at(r, err, HT_ESPEC, "%s: results of devices '%s' and '%s': name "
                               "the one to replay (--replay-device)", where, r->device, dev);
        }
        if (!r->names && (rc = set_params(r, ht__rj_get(res, "configuration"), err)))
            return rc;
        e.status = t4_status(res);
        e.result = i;
        e.seconds = -1.0;
        const struct ht__rj *meas = ht__rj_get(res, "measurements");
        x = meas && meas->type == HT__RJ_ARRAY ? ht__rj_items(meas, &nx) : (nx = 0, NULL);
        for (size_t k = 0; k < nx; k++)
            if (ht__rj_string(ht__rj_get(&x[k], "name")) &&
                !strcmp(ht__rj_string(ht__rj_get(&x[k], "name")), "time") &&
                ms(ht__rj_get(&x[k], "value")) >= 0)
                e.seconds = ms(ht__rj_get(&x[k], "value")) * unit;
        double sum = read_runs(runs, unit, runbuf, &e.nruns);
        if (e.seconds < 0 && e.nruns)
            e.seconds = sum / (double)e.nruns;
        if ((e.status == HT_OK || e.status == HT_ECUT) && !(e.seconds > 0))
            return fail_at(r, err, HT_ESPEC, "%s: a correct result without a time "
                           "(measurements 'time' or times.runtimes)", where);
        double c = ms(ht__rj_get(times, "compilation"));
        if (c < 0)
            c = ms(ht__rj_get(times, "compilation_time"));
        e.compile_s = c > 0 ? c * unit : 0.0;
        double b = ms(ht__rj_get(times, "benchmark"));
        e.run_s = (b >= 0 ? b * unit : sum);
        static const char *const extra[] = {"framework", "validation", "verification"};
        e.run_s += extra_times(times, extra, sizeof extra / sizeof *extra, unit);
        if ((rc = add_row(r, ht__rj_get(res, "configuration"), 0, where, &e, runbuf, err)))
            return rc;
    }
    if (want_device && r->count == 0)
        return fail_at(r, err, HT_ENOTFOUND, "no result of device '%s'", want_device);
    return 0;
}

/* Kernel Tuner's error markers in a cache entry's "time". */
static int kt_status(const char *marker)
{
    if (!strcmp(marker, "CompilationFailedConfig"))
        return HT_EBUILD;
    if (!strcmp(marker, "RuntimeFailedConfig"))
        return HT_ELAUNCH;
    if (!strcmp(marker, "InvalidConfig"))
        return HT_ECONSTRAINT;
    return HT_EINVAL;
}

static int load_kt_cache(struct ht_recording *r, const struct ht__rj *root,
                         struct ht_error *err)
{
    const struct ht__rj *cache = ht__rj_get(root, "cache"), *all;
    const char *dev = ht__rj_string(ht__rj_get(root, "device_name"));
    double runbuf[HT_STORE_MAX_RUNS];
    char where[300];
    size_t n = 0, nentries;
    int rc;

    snprintf(r->format, sizeof r->format, "KT cache");
    if (dev)
        snprintf(r->device, sizeof r->device, "%s", dev);
    if (!cache || cache->type != HT__RJ_OBJECT)
        return fail_at(r, err, HT_ESPEC, "cache: expected an object (a Kernel Tuner cache file)");
    if ((rc = set_params(r, ht__rj_get(root, "tune_params_keys"), err)))
        return rc;
    all = ht__rj_items(cache, &nentries);
    for (size_t k = 0; k < nentries; k++) {
        const struct ht__rj *e = &all[k], *t = ht__rj_get(e, "time");
        struct entry en = {0};

        snprintf(where, sizeof where, "cache[\"%.200s\"]", e->key);
        if (e->type != HT__RJ_OBJECT)
            return fail_at(r, err, HT_ESPEC, "%s: expected an object", where);
        en.result = n++;
        en.seconds = -1.0;
        if (ht__rj_string(t))
            en.status = kt_status(ht__rj_string(t));
        else if (ms(t) > 0) {
            en.status = HT_OK;
            en.seconds = ms(t) * 1e-3;
        } else
            return fail_at(r, err, HT_ESPEC, "%s.time: expected a time in ms or an error "
                           "marker such as \"CompilationFailedConfig\"", where);
        double sum = read_runs(ht__rj_get(e, "times"), 1e-3, runbuf, &en.nruns);
        en.compile_s = ms(ht__rj_get(e, "compile_time")) > 0
                           ? ms(ht__rj_get(e, "compile_time")) * 1e-3 : 0.0;
        en.run_s = ms(ht__rj_get(e, "benchmark_time")) >= 0
                       ? ms(ht__rj_get(e, "benchmark_time")) * 1e-3 : sum;
        static const char *const extra[] = {"framework_time", "verification_time"};
        en.run_s += extra_times(e, extra, sizeof extra / sizeof *extra, 1e-3);
        if ((rc = add_row(r, e, 1, where, &en, runbuf, err)))
            return rc;
    }
    return 0;
}

int ht_recording_load(const char *path, const char *device, struct ht_recording **out,
                      struct ht_error *err)
{
    struct ht_recording *r;
    struct ht__rj_doc doc = {0};
    json_error_t jerr;
    json_t *root = NULL;
    char *text = NULL;
    size_t len = 0;
    int rc;

    if (out)
        *out = NULL;
    if (!path || !out)
        return ht_error_set(err, HT_EINVAL, "ht_recording_load: %s is NULL",
                            !path ? "path" : "out");
    r = calloc(1, sizeof *r);
    if (!r || !(r->path = ht__strdup(path))) {
        free(r);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    if ((rc = read_all(path, &text, &len, err)))
        goto fail;
    /* The fast reader first; what it leaves (malformed or unusual JSON) jansson reads, or
     * says what is wrong. */
    rc = ht__rj_parse(text, len, &doc);
    if (rc == HT_ENOMEM) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto fail;
    }
    if (rc) {
        ht__rj_free(&doc);
        if (!(root = json_loadb(text, len, 0, &jerr))) {
            snprintf(err->file, sizeof err->file, "%s", path);
            err->line = jerr.line;
            err->column = jerr.column;
            rc = ht_error_set(err, HT_EPARSE, "%s", jerr.text);
            goto fail;
        }
        if (ht__rj_from_jansson(root, &doc)) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto fail;
        }
        json_decref(root);
        root = NULL;
    }
    free(text);
    text = NULL;
    if (ht__rj_get(doc.root, "results"))
        rc = load_t4(r, doc.root, device, err);
    else if (ht__rj_get(doc.root, "cache"))
        rc = load_kt_cache(r, doc.root, err);
    else
        rc = fail_at(r, err, HT_ESPEC, "neither a T4 results file (\"results\") nor a Kernel "
                     "Tuner cache file (\"cache\")");
    if (rc)
        goto fail;
    if (r->count == 0) {
        rc = fail_at(r, err, HT_ESPEC, "the recording holds no configuration");
        goto fail;
    }
    if (device && r->format[0] == 'K' && strcmp(r->device, device)) {
        rc = fail_at(r, err, HT_ENOTFOUND, "the cache is of device '%s', not '%s'", r->device,
                     device);
        goto fail;
    }
    if (!r->device[0]) {
        /* A file of one device that does not name it: its name without folder and
         * extensions ("convolution_milo-A100"). */
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        size_t n = strcspn(base, ".");
        snprintf(r->device, sizeof r->device, "%.*s", (int)(n ? n : strlen(base)), base);
    }
    if ((rc = rehash(r)) != 0) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < r->count; i++) {
        size_t j = find_row(r, r->values + i * r->nparams);
        if (j != i) {
            rc = fail_at(r, err, HT_ESPEC, "results %zu and %zu hold the same configuration: "
                         "a recording is of one device and one problem",
                         r->entries[j].result, r->entries[i].result);
            goto fail;
        }
    }
    ht__rj_free(&doc);
    *out = r;
    return 0;

fail:
    free(text);
    json_decref(root);
    ht__rj_free(&doc);
    ht_recording_free(r);
    return rc;
}

void ht_recording_free(struct ht_recording *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->names && i < r->nparams; i++)
        free(r->names[i]);
    free(r->names);
    free(r->values);
    free(r->entries);
    free(r->runs);
    free(r->hash);
    free(r->map);
    free(r->path);
    free(r);
}

const char *ht__recording_device(const struct ht_recording *r)
{
    return r->device;
}

const char *ht_recording_path(const struct ht_recording *r)
{
    return r ? r->path : NULL;
}

const char *ht__recording_format(const struct ht_recording *r)
{
    return r->format;
}

size_t ht__recording_count(const struct ht_recording *r)
{
    return r->count;
}

int ht__recording_optimum(const struct ht_recording *r, double *seconds)
{
    int found = 0;
    for (size_t i = 0; i < r->count; i++)
        if (r->entries[i].status == HT_OK &&
            (!found++ || r->entries[i].seconds < *seconds))
            *seconds = r->entries[i].seconds;
    return found ? 0 : HT_ENOTFOUND;
}

void ht_recording_device_info(const struct ht_recording *r, struct ht_device_info *dev)
{
    if (!dev)
        return;
    memset(dev, 0, sizeof *dev);
    if (!r)
        return;
    /* A platform no OpenCL driver has: replayed results never mix with measured ones. */
    snprintf(dev->platform, sizeof dev->platform, "%s", HT_REPLAY_PLATFORM);
    snprintf(dev->platform_version, sizeof dev->platform_version, "%s", r->format);
    snprintf(dev->name, sizeof dev->name, "%s", r->device);
    snprintf(dev->vendor, sizeof dev->vendor, "recorded");
    snprintf(dev->type, sizeof dev->type, "GPU");
    dev->is_gpu = 1;
    snprintf(dev->version, sizeof dev->version, "recorded");
    snprintf(dev->driver_version, sizeof dev->driver_version, "recorded");
    /* The recording's own conditions pruned it: the platform rules prune nothing more. */
    dev->compute_units = 1;
    dev->max_work_group_size = (uint64_t)1 << 40;
    dev->max_work_item_dims = 3;
    for (int d = 0; d < 3; d++)
        dev->max_work_item_sizes[d] = (uint64_t)1 << 40;
    dev->local_mem_size = (uint64_t)1 << 40;
    dev->global_mem_size = (uint64_t)1 << 50;
    dev->max_mem_alloc_size = (uint64_t)1 << 50;
    dev->profiling = 1;
}

int ht__recording_bind(struct ht_recording *r, const struct ht_spec *spec,
                       const struct ht_space *space, struct ht_error *err)
{
    const struct ht_space_def *def = &spec->space;
    size_t np = def->nparams;

    free(r->map);
    r->map = NULL;
    r->bound_nparams = 0;
    for (size_t j = 0; j < r->nparams; j++) {
        size_t i;
        for (i = 0; i < np && strcmp(def->params[i].name, r->names[j]); i++)
            ;
        if (i == np)
            return fail_at(r, err, HT_ESPEC, "parameter '%s' of the recording is not a "
                           "parameter of spec '%s'", r->names[j], spec->name);
    }
    if (!(r->map = calloc(np ? np : 1, sizeof *r->map)))
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < np; i++) {
        size_t j;
        for (j = 0; j < r->nparams && strcmp(def->params[i].name, r->names[j]); j++)
            ;
        if (j == r->nparams)
            return fail_at(r, err, HT_ESPEC, "the recording has no parameter '%s' of spec "
                           "'%s'", def->params[i].name, spec->name);
        r->map[i] = j;
    }
    /* Every recorded value must be one the spec's parameter takes: another space's
     * recording would otherwise be replayed as if it were this one's. */
    for (size_t i = 0; space && i < np; i++) {
        uint64_t nd = ht_space_domain_size(space, i);
        for (size_t row = 0; row < r->count; row++) {
            int64_t v = r->values[row * r->nparams + r->map[i]];
            uint64_t k;
            for (k = 0; k < nd && ht_space_domain_value(space, i, k) != v; k++)
                ;
            if (k == nd)
                return fail_at(r, err, HT_ESPEC, "result %zu: %s=%lld is not a value of the "
                               "spec's parameter %s", r->entries[row].result,
                               def->params[i].name, (long long)v, def->params[i].name);
        }
    }
    r->bound_nparams = np;
    return 0;
}

int ht__recording_lookup(const struct ht_recording *r, const int64_t *config,
                         struct ht_recorded *out)
{
    int64_t row[HT_STORE_MAX_PARAMS];

    memset(out, 0, sizeof *out);
    if (!r->map || r->bound_nparams != r->nparams)
        return HT_EINVAL;
    for (size_t i = 0; i < r->nparams; i++)
        row[r->map[i]] = config[i];
    size_t i = find_row(r, row);
    if (i == r->count)
        return HT_ENOTFOUND;
    const struct entry *e = r->entries + i;
    out->status = e->status;
    out->seconds = e->seconds;
    out->compile_s = e->compile_s;
    out->run_s = e->run_s;
    out->nruns = e->nruns;
    out->runs = e->nruns ? r->runs + e->first_run : NULL;
    out->result = e->result;
    return 0;
}

int ht__recording_eval(const struct ht_recording *r, const int64_t *config,
                       struct ht_eval_result *res, double *simulated_s, struct ht_error *err)
{
    struct ht_recorded rec;
    int rc = ht__recording_lookup(r, config, &rec);
    unsigned nruns;

    memset(res, 0, sizeof *res);
    res->verified = -1;
    res->gflops = res->gbps = -1.0;
    if (simulated_s)
        *simulated_s = 0.0;
    if (rc == HT_EINVAL)
        return ht_error_set(err, HT_EINVAL, "the recording is not bound to a spec");
    if (rc == HT_ENOTFOUND)
        return ht_error_set(err, HT_ENOTFOUND, "not in the recording %s", r->path);
    res->status = rec.status;
    res->build_s = rec.compile_s;
    nruns = rec.nruns < HT_MAX_REPEATS ? (unsigned)rec.nruns : HT_MAX_REPEATS;
    /* A statistic alone (below) is one run of that time. */
    if ((nruns || rec.seconds > 0) &&
        !(res->run_s = malloc((nruns ? nruns : 1) * sizeof *res->run_s)))
        return res->status = ht_error_set(err, HT_ENOMEM, "out of memory");
    res->nruns = nruns;
    if (res->nruns)
        memcpy(res->run_s, rec.runs, res->nruns * sizeof *res->run_s);
    if (rec.seconds > 0) {
        res->kernel_s = rec.seconds;
        res->kernel_min_s = rec.seconds;
        for (unsigned i = 0; i < res->nruns; i++)
            if (res->run_s[i] < res->kernel_min_s)
                res->kernel_min_s = res->run_s[i];
        if (!res->nruns) { /* a statistic alone: one run of that time */
            res->nruns = 1;
            res->run_s[0] = rec.seconds;
        }
    }
    /* The recording counted it correct (or wrong): that is its verification. */
    if (rec.status == HT_OK)
        res->verified = 1;
    else if (rec.status == HT_EVERIFY)
        res->verified = 0;
    if (simulated_s)
        *simulated_s = rec.compile_s + rec.run_s;
    if (rec.status != HT_OK)
        ht_error_set(err, rec.status,
                     "recorded as failed (%s, result %zu of %s)",
                     ht_store_status_name(rec.status), rec.result, r->path);
    return rec.status;
}
