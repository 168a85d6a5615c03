/* The runtime for applications (runtime.h): open once, bind the caller's arrays, launch
 * many times on the co-execution of coexec.h. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "hetune/runtime.h"
#include "hetune/expr.h"
#include "hetune/mpi.h"
#include "hetune/space.h"
#include "hetune/tune.h"
#include "coexec/coexec.h"
#include "mpi/nodes.h"
#include "runtime-test.h"

/* ht_runtime_opts_set's "nodes" "mpi" only, weakly: a program linked with the static
 * library that never calls ht_mpi_nodes itself links no MPI, and finds it NULL here.
 * (Programs that set opts.nodes = ht_mpi_nodes() refer to it as any function.) */
#pragma weak ht_mpi_nodes

struct ht_runtime {
    /* Across nodes (opts.nodes not NULL): mpi's runtime does the work, and of what follows
     * only spec (mpi's) and info are used. */
    struct ht__mpi_runtime *mpi;
    const struct ht_nodes *ops; /* opts.nodes, with mpi */
    const struct ht_spec *spec;       /* own_spec, or the caller's (ht_runtime_open_spec) */
    struct ht_spec *own_spec;         /* loaded by ht_runtime_open, freed at close */
    struct ht_platform *plat;
    size_t n;
    struct ht_workflow_device *wd;    /* n */
    struct ht_runtime_device *devs;   /* n */
    /* What was decided (ht__decide): dec.cx launches, all used devices or one alone, its
     * device k is devs[dec.idx[k]] (dec.ncx of them); dec.basis is what the next decision
     * is made from (each device's stored link, the host memory's rates, the written
     * buffers without "index"), read at open. */
    struct ht__decision dec;
    /* The kind of memory bound as dec.cx sees it when it was decided (dec.bound, then as
     * ht__coexec_launch tells): a launch decides again when cx sees another. Not info.memory, the kind the decision
     * was made for over every device: cx may hold fewer (a GPU alone sees a program's
     * array as aligned, having no device that works in place), and comparing with that
     * decided again at every launch (seconds each, measured on the H100 machine). */
    enum ht_coexec_memory cx_memory;
    size_t *arg_bytes;                /* per spec argument: its bytes (0 for scalars) */
    void **bound;                     /* per spec argument: the caller's array, or NULL */
    int have_last;                    /* 1: dec.last is the last launch, and it succeeded */
    struct ht_runtime_skipped *skipped; /* devices left out: nothing usable */
    struct ht_runtime_info info;
    /* What a new decision needs (ht_runtime_launch after a bind that changes the kind of
     * memory) besides dec.basis: the options of open. */
    struct ht_runtime_opts opts;      /* as given; its strings are not kept */
    char cache_dir[4096];             /* opts.exec.cache_dir's copy */
    /* Mode AUTO after a decision that split with the fastest device alone measured: the
     * wall times of the split's first launches (fallback_ratio), then, after a fallback,
     * of the device alone's first launches (watching_alone), judged against the split's
     * watched median (split_median_s). */
    int watching;
    int watching_alone;
    unsigned nwatch;
    double watch_wall[HT_RUNTIME_WATCH_LAUNCHES];
    double split_median_s;            /* the split's watched median, with watching_alone */
    size_t fallback_cut;              /* where the fallback's words begin in info.decision */
    double force_split_median_s; /* > 0: the split's watched median (runtime-test.h) */
    /* After the device alone stayed: the split is tried again (a recheck) after
     * recheck_in more launches alone, its launches watched (rechecking) against the device
     * alone's last ones (alone_wall, a ring of the last nalone), judged by the same ratio. */
    uint64_t recheck_in;
    int rechecking;
    double alone_wall[HT_RUNTIME_WATCH_LAUNCHES];
    unsigned nalone;
    double alone_median_s;            /* the device alone's, when the recheck began */
    unsigned nrechecks;               /* since the decision */
    double alone_switch_s, split_switch_s; /* the last switches' times (go_alone, go_split) */
    double force_recheck_median_s; /* > 0: a recheck's split median (runtime-test.h) */
    unsigned force_recheck_first;  /* > 0: the launches before the first recheck (same) */
    unsigned fail_switch, switch_tries; /* the switch that fails, those tried (same) */
    int force_walls;               /* 1: the split's first watched walls are force_wall */
    double force_wall[HT_RUNTIME_WATCH_LAUNCHES];
};

static void destroy(struct ht_runtime *rt);

void ht_runtime_opts_init(struct ht_runtime_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->db = NULL;
    opts->mode = HT_RUNTIME_AUTO;
    ht_exec_opts_init(&opts->exec);
}

/* ---- the handles that are open ------------------------------------------------------
 *
 * Every runtime ht_runtime_open returned and ht_runtime_close has not closed, so that a
 * pointer that is not one (NULL, closed already, never opened) is refused with HT_EINVAL
 * instead of being used: close(struct *) cannot clear the caller's copy of the pointer.
 * A few runtimes are open at a time, so a list is searched; the mutex makes open and close
 * from several threads safe (one runtime is still used by one thread at a time). */

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct ht_runtime **live;
static size_t nlive, live_cap;

static int live_add(const struct ht_runtime *rt)
{
    int rc = HT_OK;

    pthread_mutex_lock(&live_lock);
    if (nlive == live_cap) {
        size_t cap = live_cap ? 2 * live_cap : 8;
        const struct ht_runtime **grown = realloc(live, cap * sizeof *live);
        if (grown) {
            live = grown;
            live_cap = cap;
        } else {
            rc = HT_ENOMEM;
        }
    }
    if (rc == HT_OK)
        live[nlive++] = rt;
    pthread_mutex_unlock(&live_lock);
    return rc;
}

/* Removes rt from the open handles: 1 when it was there, 0 otherwise. */
static int live_remove(const struct ht_runtime *rt)
{
    int found = 0;

    pthread_mutex_lock(&live_lock);
    for (size_t i = 0; i < nlive && !found; i++) {
        if (live[i] != rt)
            continue;
        live[i] = live[--nlive];
        found = 1;
    }
    if (nlive == 0) { /* nothing held at exit when every runtime was closed */
        free(live);
        live = NULL;
        live_cap = 0;
    }
    pthread_mutex_unlock(&live_lock);
    return found;
}

static int is_live(const struct ht_runtime *rt)
{
    int found = 0;

    if (!rt)
        return 0;
    pthread_mutex_lock(&live_lock);
    for (size_t i = 0; i < nlive && !found; i++)
        found = live[i] == rt;
    pthread_mutex_unlock(&live_lock);
    return found;
}

/* HT_EINVAL, err filled, for a pointer that is not an open runtime. */
static int not_open(const struct ht_runtime *rt, const char *fn, struct ht_error *err)
{
    if (!rt)
        return ht_error_set(err, HT_EINVAL, "%s: the runtime is NULL", fn);
    return ht_error_set(err, HT_EINVAL, "%s: %p is not an open runtime (closed already, or "
                        "never returned by ht_runtime_open)", fn, (const void *)rt);
}

/* ---- options by name ------------------------------------------------------------------ */

size_t ht_runtime_opts_size(void)
{
    return sizeof(struct ht_runtime_opts);
}

static int parse_uint(const char *v, unsigned long long max, unsigned long long *out)
{
    char *end;
    unsigned long long x;

    if (!v || !*v || *v == '-' || *v == '+')
        return HT_EINVAL;
    errno = 0;
    x = strtoull(v, &end, 10);
    if (errno || *end || x > max)
        return HT_EINVAL;
    *out = x;
    return HT_OK;
}

/* One option of struct ht_runtime_opts: its name, what its value is, and where it goes. */
struct opt_key {
    const char *name, *what;
    enum { K_STR, K_BOOL, K_UINT, K_SIZE, K_WORD, K_DOUBLE, K_NODES } kind;
    size_t offset;
    const char *const *words; /* K_WORD: the values, in their enum's order */
    size_t nwords;
};

/* K_WORD stores an int: the enums it sets must be int-sized. */
_Static_assert(sizeof(enum ht_runtime_mode) == sizeof(int), "enum ht_runtime_mode is an int");
_Static_assert(sizeof(enum ht_isolation) == sizeof(int), "enum ht_isolation is an int");
_Static_assert(sizeof(enum ht_foreign_path) == sizeof(int), "enum ht_foreign_path is an int");
static const char *const mode_words[] = {"auto", "split", "alone"}; /* enum ht_runtime_mode */
static const char *const isolate_words[] = {"auto", "off", "on"}; /* enum ht_isolation */
static const char *const foreign_words[] = {"auto", "stage", "register", "direct",
                                            "pin"}; /* enum ht_foreign_path */

#define OPT(name, what, kind, field) {name, what, kind, offsetof(struct ht_runtime_opts, field), NULL, 0}
#define OPT_WORD(name, field, words) \
    {name, NULL, K_WORD, offsetof(struct ht_runtime_opts, field), words, \
     sizeof(words) / sizeof(words[0])}
static const struct opt_key opt_keys[] = {
    OPT("db", "a path", K_STR, db),
    OPT("devices", "\"all\" or a list \"D,D,...\"", K_STR, devices),
    OPT("tune_missing", "0 or 1", K_BOOL, tune_missing),
    OPT("strategy", "a strategy's name", K_STR, strategy),
    OPT("budget", "a count", K_SIZE, budget),
    OPT("dim", "0, 1 or 2", K_UINT, dim),
    OPT_WORD("mode", mode, mode_words),
    OPT("measure_repeats", "a count", K_UINT, measure_repeats),
    OPT("no_predict", "0 or 1", K_BOOL, no_predict),
    OPT("no_verify", "0 or 1", K_BOOL, exec.no_verify),
    OPT("no_cache", "0 or 1", K_BOOL, exec.no_cache),
    OPT_WORD("isolate", exec.isolate, isolate_words),
    OPT_WORD("foreign_up", exec.foreign_up, foreign_words),
    OPT_WORD("foreign_down", exec.foreign_down, foreign_words),
    OPT("fallback_ratio", "a number (0: 1.02; below 0: never)", K_DOUBLE, fallback_ratio),
    OPT("cpu_units", "a count (0: all)", K_UINT, cpu_units),
    OPT("nodes", "local or mpi", K_NODES, nodes),
};
#undef OPT
#undef OPT_WORD

int ht_runtime_opts_set(struct ht_runtime_opts *opts, const char *key, const char *value,
                        struct ht_error *err)
{
    const struct opt_key *k = NULL;
    unsigned long long x = 0;
    char *at;
    char names[512] = "";
    size_t n = 0;

    if (!opts || !key)
        return ht_error_set(err, HT_EINVAL, "ht_runtime_opts_set: %s is NULL",
                            opts ? "the key" : "the options");
    for (size_t i = 0; i < sizeof opt_keys / sizeof opt_keys[0]; i++) {
        if (!strcmp(opt_keys[i].name, key))
            k = &opt_keys[i];
        n += (size_t)snprintf(names + n, n < sizeof names ? sizeof names - n : 0, "%s%s",
                              i ? ", " : "", opt_keys[i].name);
    }
    if (!k)
        return ht_error_set(err, HT_EINVAL, "no runtime option '%s'; the options are %s", key,
                            names);
    at = (char *)opts + k->offset;
    switch (k->kind) {
    case K_STR: /* borrowed, as the struct's strings are */
        memcpy(at, &value, sizeof value);
        return HT_OK;
    case K_WORD:
        for (size_t w = 0; value && w < k->nwords; w++) {
            if (strcmp(k->words[w], value))
                continue;
            int v = (int)w;
            memcpy(at, &v, sizeof v); /* the enums are int-sized */
            return HT_OK;
        }
        {
            char list[128] = "";
            size_t m = 0;
            for (size_t w = 0; w < k->nwords && m < sizeof list; w++)
                m += (size_t)snprintf(list + m, sizeof list - m, "%s%s",
                                      w == 0 ? "" : w + 1 < k->nwords ? ", " : " or ",
                                      k->words[w]);
            return ht_error_set(err, HT_EINVAL, "runtime option %s: '%s' is not %s", key,
                                value ? value : "(null)", list);
        }
    case K_NODES:
        if (value && (!strcmp(value, "local") || !strcmp(value, "mpi"))) {
            const struct ht_nodes *v = NULL;
            if (!strcmp(value, "mpi")) {
                if (!ht_mpi_nodes)
                    return ht_error_set(err, HT_EINVAL, "runtime option nodes: 'mpi' is not "
                                        "linked into this program: %s", ht_mpi_built()
                                        ? "with the static libhetune.a, set "
                                          "ht_runtime_opts.nodes to ht_mpi_nodes() (mpi.h) "
                                          "instead, or link libhetune.so"
                                        : "this hetune was built without MPI");
                v = ht_mpi_nodes();
            }
            memcpy(at, &v, sizeof v);
            return HT_OK;
        }
        break;
    case K_BOOL:
        if (parse_uint(value, 1, &x) != HT_OK)
            break;
        {
            int v = (int)x;
            memcpy(at, &v, sizeof v);
        }
        return HT_OK;
    case K_UINT:
        if (parse_uint(value, k->offset == offsetof(struct ht_runtime_opts, dim) ? 2 : UINT32_MAX,
                       &x) != HT_OK)
            break;
        {
            unsigned v = (unsigned)x;
            memcpy(at, &v, sizeof v);
        }
        return HT_OK;
    case K_SIZE:
        if (parse_uint(value, SIZE_MAX, &x) != HT_OK)
            break;
        {
            size_t v = (size_t)x;
            memcpy(at, &v, sizeof v);
        }
        return HT_OK;
    case K_DOUBLE:
        if (value && *value) {
            char *end = NULL;
            double v;
            errno = 0;
            v = strtod(value, &end);
            if (end && !*end && errno == 0 && isfinite(v)) {
                memcpy(at, &v, sizeof v);
                return HT_OK;
            }
        }
        break;
    }
    return ht_error_set(err, HT_EINVAL, "runtime option %s: '%s' is not %s", key,
                        value ? value : "(null)", k->what);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Resolves opts->devices into rt->n devices of rt->plat (rt->wd allocated). */
static int resolve_devices(struct ht_runtime *rt, const char *list, struct ht_error *err)
{
    size_t cap = 0;
    char *copy = NULL, *save = NULL, *tok;
    int rc = HT_OK;

    if (!list || !strcmp(list, "all")) {
        rt->n = rt->plat->count;
        rt->wd = calloc(rt->n, sizeof *rt->wd);
        if (!rt->wd)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        for (size_t i = 0; i < rt->n; i++)
            rt->wd[i].dev = &rt->plat->devices[i];
        return HT_OK;
    }
    copy = strdup(list);
    if (!copy)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (const char *p = list; *p; p++)
        cap += *p == ',';
    cap += 1;
    rt->wd = calloc(cap, sizeof *rt->wd);
    if (!rt->wd) {
        free(copy);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t idx;
        rc = ht_platform_find(rt->plat, tok, &idx, err);
        if (rc != HT_OK)
            break;
        rt->wd[rt->n++].dev = &rt->plat->devices[idx];
    }
    if (rc == HT_OK && rt->n == 0)
        rc = ht_error_set(err, HT_EINVAL, "no device in the list '%s'", list);
    free(copy);
    return rc;
}

/* Each buffer argument's bytes at the configuration of device d (the co-execution
 * refuses configurations whose shapes differ). */
static int arg_sizes(struct ht_runtime *rt, const struct ht_workflow_device *d,
                     struct ht_error *err)
{
    const struct ht_spec *spec = rt->spec;
    int64_t *vars = calloc(spec->space.names.count, sizeof *vars);

    if (!vars)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    ht_space_vars(&spec->space, d->dev, d->config, vars);
    for (size_t a = 0; a < spec->nargs; a++) {
        const struct ht_arg *arg = &spec->args[a];
        uint64_t elems = 1;
        if (!arg->is_buffer)
            continue;
        for (unsigned x = 0; x < arg->naxes; x++) {
            int64_t v = 0;
            if (ht_expr_eval(arg->shape[x], vars, &v) != HT_OK || v <= 0) {
                free(vars);
                return ht_error_set(err, HT_ESPEC, "argument '%s': axis %u of its shape does "
                                    "not evaluate to a positive size", arg->name, x);
            }
            elems *= (uint64_t)v;
        }
        rt->arg_bytes[a] = (size_t)elems * ht_type_size(arg->type);
    }
    free(vars);
    return HT_OK;
}

/* Fills the devices' used flags and planned shares from decision d (rt->dec.cx's): the
 * others are not used. */
static void note_plan(struct ht_runtime *rt, const struct ht__decision *d)
{
    for (size_t i = 0; i < rt->n; i++) {
        rt->devs[i].used = 0;
        rt->devs[i].share = 0;
    }
    for (size_t k = 0; k < rt->dec.ncx; k++) {
        struct ht_runtime_device *dev = &rt->devs[rt->dec.idx[k]];
        dev->share = rt->dec.ncx == 1 ? 1.0
                     : d->has_plan ? d->plan.slices[k].adjusted_factor : 0;
        dev->used = rt->dec.ncx == 1 || dev->share > 0;
    }
}

/* Each device's best configuration (tuning it first when bo allows). A device where none
 * ran and verified even after tuning is left out and listed in rt->info.skipped, as split
 * and run do; the others move up in rt->wd. HT_ENOTFOUND when none is left. */
static int find_bests(struct ht_runtime *rt, struct ht_store *store, int64_t problem_id,
                      const struct ht_workflow_best_opts *bo, struct ht_error *err)
{
    size_t kept = 0, ns = 0;
    int rc = HT_OK;

    rt->skipped = calloc(rt->n, sizeof *rt->skipped);
    if (!rt->skipped)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; rc == HT_OK && i < rt->n; i++) {
        struct ht_error e;
        ht_error_clear(&e);
        rc = ht_workflow_best(rt->spec, store, problem_id, bo, &rt->wd[i], &e);
        if (rc == HT_ENOTFOUND && bo->tune_missing) {
            rt->skipped[ns].dev = rt->wd[i].dev;
            snprintf(rt->skipped[ns++].reason, sizeof rt->skipped[0].reason, "%.511s", e.text);
            rc = HT_OK;
        } else if (rc == HT_OK) {
            rt->wd[kept++] = rt->wd[i];
        } else if (err && !err->code) {
            *err = e;
        }
    }
    /* A tuning stopped early found a best among what it measured: not what was asked. */
    if (rc == HT_OK && bo->topts && bo->topts->stop && *bo->topts->stop)
        rc = ht_error_set(err, HT_EINTR, "interrupted while tuning");
    if (rc == HT_OK && kept == 0)
        rc = ht_error_set(err, HT_ENOTFOUND, "no device has a usable configuration: %s",
                          rt->skipped[0].reason);
    rt->n = kept;
    rt->info.nskipped = ns;
    rt->info.skipped = rt->skipped;
    return rc;
}

/* The kind of memory in the words of info->decision. */
static const char *memory_words(enum ht_coexec_memory m)
{
    return m == HT_COEXEC_MEM_OWN       ? "the runtime's own"
           : m == HT_COEXEC_MEM_ALIGNED ? "the program's aligned"
                                        : "the program's unaligned";
}

/* The decision between splitting over every device and the fastest alone (decide.c), for
 * memory, with the exec options exec, into rt->dec (the decision before freed, its basis
 * taken over), its devices' shares noted. only < rt->n: that device alone, unmeasured;
 * again (only SIZE_MAX): the split over every device, unmeasured, as the last decision
 * that split made and planned it (ht__program.again). Neither is a decision: rt->info's
 * times and words are left to the caller. from not NULL: a new decision, which takes the
 * program's arrays over from rt->dec.cx (ht__decide). On error rt->dec is as it was. */
static int decide(struct ht_runtime *rt, const struct ht_runtime_opts *opts,
                  const struct ht_exec_opts *exec, enum ht_coexec_memory memory,
                  size_t only, int again, const struct ht__handover *from,
                  struct ht_error *err)
{
    static const enum ht__decide_mode modes[] = {
        [HT_RUNTIME_AUTO] = HT__DECIDE_AUTO,
        [HT_RUNTIME_SPLIT] = HT__DECIDE_SPLIT,
        [HT_RUNTIME_ALONE] = HT__DECIDE_ALONE,
    };
    struct ht_runtime_info *info = &rt->info;
    struct ht__decision d;
    int rc;

    rc = ht__decide(&(struct ht__decide_in){
                        .spec = rt->spec, .devs = rt->wd, .n = rt->n,
                        .mode = modes[opts->mode], .stop = opts->stop,
                        .on_wait = opts->on_device_wait, .wait_user = opts->wait_user,
                        .load = &info->load, .from = from,
                        .program = &(struct ht__program){
                            .prev = &rt->dec, .dim = opts->dim, .residue = opts->residue,
                            .cpu_units = opts->cpu_units, .exec = exec, .memory = memory,
                            .measure_repeats = opts->measure_repeats, .only = only,
                            .again = again}},
                    &d, err);
    if (rc != HT_OK) {
        ht__decision_destroy(&d);
        return rc;
    }
    ht__decision_destroy(&rt->dec);
    rt->dec = d;
    if (only >= rt->n && !again) {
        info->fastest = d.fastest;
        info->predicted_split_s = d.predicted_split_s;
        info->predicted_alone_s = d.predicted_alone_s;
        info->measured_split_s = d.measured_split_s;
        info->memory = memory;
        info->decisions++;
        if (d.basis.unsplittable)
            snprintf(info->decision, sizeof info->decision, "%.120s; for %s memory; never "
                     "split: a written buffer's slices are not known (see written)", d.text,
                     memory_words(memory));
        else
            snprintf(info->decision, sizeof info->decision, "%.180s; for %s memory%s", d.text,
                     memory_words(memory), d.on_bound ? ", measured on its arrays" : "");
        for (size_t i = 0; i < rt->n; i++)
            if (rt->wd[i].alone.wall_s > 0)
                rt->devs[i].alone_s = rt->wd[i].alone.wall_s;
        /* A split chosen beside a measured alone time: its first launches are watched. */
        rt->watching = opts->mode == HT_RUNTIME_AUTO && opts->fallback_ratio >= 0 &&
                       d.ncx > 1 && info->predicted_alone_s > 0 && info->fastest < rt->n;
        rt->watching_alone = 0;
        rt->nwatch = 0;
        rt->recheck_in = 0;
        rt->rechecking = 0;
        rt->nrechecks = 0;
    }
    note_plan(rt, &rt->dec);
    return HT_OK;
}

/* Appends a note of the written buffers' inference (what ht__decide read finds or probes) to
 * info->written ("; " between two). */
static void written_note(const char *note, void *user)
{
    struct ht_runtime_info *info = user;
    size_t len = strlen(info->written), n;

    if (len + 3 >= sizeof info->written)
        return;
    if (len) {
        memcpy(info->written + len, "; ", 2);
        len += 2;
    }
    /* Cut to what is left, as the note that fills it is (copied, not snprintf's "%s": gcc
     * 12 saw the cut and failed the build with -Werror=format-truncation). */
    n = strnlen(note, sizeof info->written - 1 - len);
    memcpy(info->written + len, note, n);
    info->written[len + n] = '\0';
}

/* ht_runtime_open (spec NULL: loaded from spec_path with sizes) and ht_runtime_open_spec
 * (spec borrowed). */
/* Removes the database file at path and SQLite's files beside it. */
static void remove_db(const char *path)
{
    static const char *const ext[] = {"", "-wal", "-shm", "-journal"};
    char name[4096];

    for (size_t k = 0; k < sizeof ext / sizeof ext[0]; k++)
        if ((size_t)snprintf(name, sizeof name, "%s%s", path, ext[k]) < sizeof name)
            unlink(name);
}

/* ht_runtime_open with opts->nodes (ht_mpi_nodes()): the options that make sense across
 * nodes, refused alike on every rank before MPI starts (they are the same on every rank),
 * then mpi's runtime (mpi's door "mpi/nodes.h"), collective. */
static int open_nodes(const char *spec_path, const struct ht_spec *spec,
                      const struct ht_size_override *sizes, size_t nsizes,
                      const struct ht_runtime_opts *opts, struct ht_runtime **out,
                      struct ht_error *err)
{
    struct ht_workflow_split_opts wo;
    struct ht__mpi_runtime_in in = {spec_path, sizes, nsizes, spec, opts->devices, &wo};
    const struct ht_runtime_nodes *nodes;
    struct ht_runtime *rt;
    int rc;

    if (opts->devices && strchr(opts->devices, ',')) {
        if (err)
            snprintf(err->field, sizeof err->field, "devices");
        return ht_error_set(err, HT_EINVAL, "across nodes, each rank selects its devices with "
                            "one selector (an index or a unique part of a name) or \"all\", "
                            "not the list '%s'", opts->devices);
    }
    if (opts->tune_missing) {
        if (err)
            snprintf(err->field, sizeof err->field, "tune_missing");
        return ht_error_set(err, HT_EINVAL, "across nodes, the runtime does not tune: tune "
                            "first on the same ranks (mpirun -n K hetune tune SPEC, or "
                            "ht_mpi_tune), then open it with tune_missing 0");
    }
    if (opts->mode == HT_RUNTIME_ALONE) {
        if (err)
            snprintf(err->field, sizeof err->field, "mode");
        return ht_error_set(err, HT_EINVAL, "across nodes, every node takes a share: "
                            "HT_RUNTIME_ALONE is refused (name one device a node in devices "
                            "instead)");
    }
    if (opts->nodes->unavailable) /* a build without MPI */
        return ht_error_set(err, HT_EINVAL, "%s", opts->nodes->unavailable);
    ht_workflow_split_opts_init(&wo);
    wo.db = opts->db;
    wo.coexec.dim = opts->dim;
    wo.coexec.exec = opts->exec;
    wo.coexec.sched.residue = opts->residue;
    wo.force = opts->mode == HT_RUNTIME_SPLIT;
    wo.no_predict = opts->no_predict;
    rt = calloc(1, sizeof *rt);
    if (!rt)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    /* Listed before the open: after it, a failure here would leave this rank out of the
     * collective close the others make. */
    if (live_add(rt) != HT_OK) {
        free(rt);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    rt->ops = opts->nodes;
    rc = rt->ops->open(&in, &rt->mpi, err);
    if (rc != HT_OK) {
        live_remove(rt);
        free(rt);
        return rc;
    }
    nodes = rt->ops->nodes(rt->mpi);
    rt->spec = rt->ops->spec(rt->mpi);
    rt->info.spec = rt->spec->name;
    rt->info.split = nodes->took_part > 1;
    rt->info.predicted_split_s = rt->info.predicted_alone_s = rt->info.last_wall_s = -1;
    rt->info.measured_split_s = -1;
    rt->info.decisions = 1;
    snprintf(rt->info.decision, sizeof rt->info.decision, "%s", nodes->decision);
    rt->info.nodes = nodes;
    *out = rt;
    return HT_OK;
}

static int open_runtime(const char *spec_path, const struct ht_spec *spec,
                        const struct ht_size_override *sizes, size_t nsizes,
                        const struct ht_runtime_opts *opts, struct ht_runtime **out,
                        struct ht_error *err)
{
    const char *dbpath;
    int made_db;
    struct ht_runtime_opts defaults;
    struct ht_runtime *rt;
    struct ht_store *store = NULL;
    struct ht_tune_opts topts;
    struct ht_workflow_best_opts bo;
    int64_t problem_id = 0;
    int rc;

    if (!out)
        return ht_error_set(err, HT_EINVAL, "ht_runtime_open: out is NULL");
    *out = NULL;
    if (!opts) {
        ht_runtime_opts_init(&defaults);
        opts = &defaults;
    }
    if (!spec_path && !spec)
        return ht_error_set(err, HT_EINVAL, "no spec given");
    if (nsizes && !sizes)
        return ht_error_set(err, HT_EINVAL, "ht_runtime_open: %zu sizes given as NULL", nsizes);
    if (opts->mode > HT_RUNTIME_ALONE)
        return ht_error_set(err, HT_EINVAL, "unknown runtime mode %d", (int)opts->mode);
    if (opts->nodes)
        return open_nodes(spec_path, spec, sizes, nsizes, opts, out, err);
    rt = calloc(1, sizeof *rt);
    if (!rt)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    rt->info.predicted_split_s = rt->info.predicted_alone_s = rt->info.last_wall_s = -1;
    rt->info.measured_split_s = -1;

    if (spec) {
        rt->spec = spec;
    } else {
        rc = ht_spec_load(spec_path, sizes, nsizes, &rt->own_spec, err);
        if (rc != HT_OK)
            goto fail;
        rt->spec = rt->own_spec;
    }
    if (rt->spec->npipeline) {
        rc = ht_error_set(err, HT_ESPEC, "'%s' is a pipeline of %zu kernels: the runtime "
                          "supports one kernel only", rt->spec->name, rt->spec->npipeline);
        goto fail;
    }
    if (opts->dim >= rt->spec->space.ndims) {
        rc = ht_error_set(err, HT_EINVAL, "dimension %u: the NDRange of '%s' has %u",
                          opts->dim, rt->spec->name, rt->spec->space.ndims);
        goto fail;
    }
    rt->arg_bytes = calloc(rt->spec->nargs, sizeof *rt->arg_bytes);
    rt->bound = calloc(rt->spec->nargs, sizeof *rt->bound);
    if (!rt->arg_bytes || !rt->bound) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto fail;
    }
    rc = ht_platform_discover(&rt->plat, err);
    if (rc == HT_OK)
        rc = resolve_devices(rt, opts->devices, err);
    if (rc != HT_OK)
        goto fail;
    rt->devs = calloc(rt->n, sizeof *rt->devs);
    if (!rt->devs) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto fail;
    }

    /* Each device's best configuration, tuning first when allowed. */
    ht_tune_opts_init(&topts);
    topts.strategy = opts->strategy;
    topts.budget = opts->budget;
    topts.eq3 = opts->exec.eq3;
    topts.exec = opts->exec;
    topts.on_device_wait = opts->on_device_wait;
    topts.wait_user = opts->wait_user;
    topts.stop = opts->stop;
    /* A spec from memory has no file for the isolated worker to load again: it is tuned in
     * this process unless isolation was demanded (the session then says why it fails). */
    if (!rt->spec->path && topts.exec.isolate == HT_ISOLATE_AUTO)
        topts.exec.isolate = HT_ISOLATE_OFF;
    memset(&bo, 0, sizeof bo);
    bo.tune_missing = opts->tune_missing;
    bo.no_predict = opts->no_predict;
    bo.topts = &topts;
    bo.unverified = rt->spec->verify == HT_VERIFY_NONE || opts->exec.no_verify;
    dbpath = opts->db ? opts->db : HT_STORE_DEFAULT_PATH;
    made_db = dbpath[0] && strcmp(dbpath, ":memory:") && access(dbpath, F_OK) != 0;
    /* runtime.h: the caller's store options, or the defaults, with this struct's stop unless
     * they have their own: ht_workflow_open's rule. */
    rc = ht_workflow_open(opts->db, opts->store, opts->stop, rt->spec, &store, &problem_id, err);
    if (rc == HT_OK)
        rc = find_bests(rt, store, problem_id, &bo, err);
    /* What every decision is made from: the links `hetune devices --bandwidth` stored
     * (the bus plan's rates) and the host memory's, and, when the runtime may split (more
     * than one device, not ALONE), the written buffers without "index": from the
     * database, else by a probe on the runtime's own scratch arrays (the probe's
     * co-execution makes its own host data, never the caller's arrays), stored there for
     * the next open, as `hetune split` does. What it found goes to rt->info (written,
     * written_probed, written_stored). A buffer whose writes no slab explains is refused
     * (HT_ESPEC), saying what the probe saw; in mode AUTO, which may run alone, the
     * runtime runs the fastest device alone instead (dec.basis.unsplittable), and
     * info.written says why. */
    if (rc == HT_OK)
        rc = ht__decide(&(struct ht__decide_in){
                            .spec = rt->spec, .devs = rt->wd, .n = rt->n,
                            .read = &(struct ht__read){
                                .store = store, .problem_id = problem_id,
                                .path = opts->exec.data_path,
                                .infer = rt->n >= 2 && opts->mode != HT_RUNTIME_ALONE,
                                .may_alone = opts->mode == HT_RUNTIME_AUTO, .dim = opts->dim,
                                .exec = &opts->exec, .on_note = written_note,
                                .user = &rt->info,
                                .devices_are = "the runtime's devices"}},
                        &rt->dec, err);
    if (rc == HT_OK) {
        rt->info.written_probed = rt->dec.basis.probed;
        rt->info.written_stored = rt->dec.basis.stored;
    }
    ht_store_close(store);
    /* A database this call made for nothing goes with it (a failing open left an empty
     * file behind); where it may have tuned (tune_missing), what it measured stays. */
    if (rc != HT_OK && made_db && !opts->tune_missing)
        remove_db(dbpath);
    if (rc != HT_OK)
        goto fail;
    for (size_t i = 0; i < rt->n; i++) {
        struct ht_runtime_device *d = &rt->devs[i];
        d->dev = rt->wd[i].dev;
        snprintf(d->config, sizeof d->config, "%s", rt->wd[i].config_text);
        d->tuned_s = rt->wd[i].tuned_s;
        d->tuned_now = rt->wd[i].tuned_now;
        d->predicted = rt->wd[i].predicted;
        d->alone_s = -1;
    }

    rt->opts = *opts;
    rt->opts.db = rt->opts.devices = rt->opts.strategy = NULL;
    rt->opts.exec.worker = NULL; /* a co-execution runs in this process */
    rt->opts.exec.stop = NULL;
    rt->opts.store = NULL; /* borrowed for the open only */
    if (opts->exec.cache_dir) {
        snprintf(rt->cache_dir, sizeof rt->cache_dir, "%s", opts->exec.cache_dir);
        rt->opts.exec.cache_dir = rt->cache_dir;
    }
    rc = decide(rt, opts, &opts->exec, HT_COEXEC_MEM_OWN, SIZE_MAX, 0, NULL, err);
    if (rc != HT_OK)
        goto fail;
    rt->cx_memory = HT_COEXEC_MEM_OWN;
    rc = arg_sizes(rt, &rt->wd[rt->dec.idx[0]], err);
    if (rc != HT_OK)
        goto fail;
    rt->info.spec = rt->spec->name;
    rt->info.ndevices = rt->n;
    rt->info.devices = rt->devs;
    rt->info.split = rt->dec.ncx > 1;
    rc = live_add(rt);
    if (rc != HT_OK) {
        ht_error_set(err, rc, "out of memory");
        goto fail;
    }
    *out = rt;
    return HT_OK;
fail:
    destroy(rt);
    return rc;
}

int ht_runtime_open(const char *spec_path, const struct ht_size_override *sizes,
                    size_t nsizes, const struct ht_runtime_opts *opts,
                    struct ht_runtime **out, struct ht_error *err)
{
    if (!spec_path) {
        if (out)
            *out = NULL;
        return ht_error_set(err, HT_EINVAL, "ht_runtime_open: no spec given (spec_path is "
                            "NULL)");
    }
    return open_runtime(spec_path, NULL, sizes, nsizes, opts, out, err);
}

int ht_runtime_open_spec(const struct ht_spec *spec, const struct ht_runtime_opts *opts,
                         struct ht_runtime **out, struct ht_error *err)
{
    if (!spec) {
        if (out)
            *out = NULL;
        return ht_error_set(err, HT_EINVAL, "ht_runtime_open_spec: the spec is NULL");
    }
    return open_runtime(NULL, spec, NULL, 0, opts, out, err);
}

void ht_runtime_close(struct ht_runtime *rt)
{
    /* Anything but an open runtime (NULL, closed already) is left alone. */
    if (live_remove(rt))
        destroy(rt);
}

static void destroy(struct ht_runtime *rt)
{
    if (!rt)
        return;
    if (rt->mpi)
        rt->ops->close(rt->mpi); /* collective across nodes */
    ht__decision_destroy(&rt->dec); /* the last launch's result with it */
    free(rt->arg_bytes);
    free(rt->bound);
    free(rt->devs);
    free(rt->wd);
    free(rt->skipped);
    ht_platform_free(rt->plat);
    ht_spec_free(rt->own_spec);
    free(rt);
}

int ht_runtime_arg_bytes(const struct ht_runtime *rt, const char *name, size_t *bytes,
                         struct ht_error *err)
{
    size_t a;
    int rc;

    if (!is_live(rt))
        return not_open(rt, "ht_runtime_arg_bytes", err);
    if (!bytes)
        return ht_error_set(err, HT_EINVAL, "ht_runtime_arg_bytes: bytes is NULL");
    rc = ht_spec_bind_arg(rt->spec, name, &a, err);
    if (rc == HT_OK)
        *bytes = rt->mpi ? rt->ops->arg_bytes(rt->mpi, a) : rt->arg_bytes[a];
    return rc;
}

void *ht_runtime_alloc(struct ht_runtime *rt, size_t bytes, struct ht_error *err)
{
    if (!is_live(rt)) {
        not_open(rt, "ht_runtime_alloc", err);
        return NULL;
    }
    if (bytes == 0) {
        ht_error_set(err, HT_EINVAL, "cannot allocate 0 bytes");
        return NULL;
    }
    if (rt->mpi)
        return rt->ops->alloc(rt->mpi, bytes, err);
    return ht__coexec_alloc(rt->dec.cx, bytes, err);
}

void ht_runtime_free_host(struct ht_runtime *rt, void *data)
{
    if (!is_live(rt) || !data)
        return;
    if (rt->mpi) {
        rt->ops->free_host(rt->mpi, data);
        return;
    }
    for (size_t a = 0; a < rt->spec->nargs; a++)
        if (rt->bound[a] == data)
            rt->bound[a] = NULL;
    ht__coexec_free_host(rt->dec.cx, data);
}

int ht_runtime_bind(struct ht_runtime *rt, const char *name, void *data, size_t bytes,
                    struct ht_error *err)
{
    size_t a;
    int rc;

    if (!is_live(rt))
        return not_open(rt, "ht_runtime_bind", err);
    rc = ht_spec_bind_arg(rt->spec, name, &a, err);
    if (rc != HT_OK)
        return rc;
    if (rt->mpi) {
        /* Rank 0's arrays are bound; elsewhere refused, nothing changed. */
        size_t want = rt->ops->arg_bytes(rt->mpi, a);
        rc = ht_spec_check_array(rt->spec, a, data, bytes, want, err);
        return rc == HT_OK ? rt->ops->bind(rt->mpi, a, name, data, bytes, err) : rc;
    }
    rc = ht_spec_check_array(rt->spec, a, data, bytes, rt->arg_bytes[a], err);
    if (rc == HT_OK)
        rc = ht__coexec_bind(rt->dec.cx, a, data, bytes, err);
    /* A failed bind leaves the argument unbound: the next launch fails naming it rather
     * than running on the array the program meant to replace. */
    rt->bound[a] = rc == HT_OK ? data : NULL;
    return rc;
}

/* Decides again for the kind of memory bound now (ht_runtime_launch): a new co-execution
 * (measured as at open, on data of that kind; only and again as decide's), the arrays of
 * ht_runtime_alloc moved to it and every bound array bound to it. On failure the old one
 * stays as it was. */
static int redecide(struct ht_runtime *rt, enum ht_coexec_memory memory, size_t only,
                    int again, struct ht_error *err)
{
    struct ht_runtime_info keep = rt->info;
    struct ht_error pin;
    struct ht__handover from = {rt->dec.cx, rt->bound, rt->arg_bytes, rt->spec->nargs, &pin};
    int rc;

    ht_error_clear(&pin);
    /* The old one is freed, and the new one's buffers over the caller's arrays made again
     * (a GPU driver may have unpinned them with the old ones: NVIDIA's does). On failure
     * the old one is as it was. */
    rc = decide(rt, &rt->opts, &rt->opts.exec, memory, only, again, &from, err);
    if (rc != HT_OK) {
        rt->info = keep;
        return rc;
    }
    /* An array whose pinning failed is moved directly (slower, never wrong), and
     * info->decision says so. */
    {
        size_t at = strlen(rt->info.decision);
        if (pin.code && at < sizeof rt->info.decision)
            snprintf(rt->info.decision + at, sizeof rt->info.decision - at,
                     "; pinning the arrays again failed, moved unpinned: %.120s", pin.text);
    }
    rt->info.split = rt->dec.ncx > 1;
    rt->cx_memory = rt->dec.bound;
    return HT_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of the n wall times at w (1 <= n <= HT_RUNTIME_WATCH_LAUNCHES). */
static double median_of(const double *w, unsigned n)
{
    double sorted[HT_RUNTIME_WATCH_LAUNCHES];

    memcpy(sorted, w, n * sizeof sorted[0]);
    qsort(sorted, n, sizeof sorted[0], cmp_double);
    return sorted[n / 2];
}

/* The ratio the watch judges by (ht_runtime_opts.fallback_ratio). */
static double watch_ratio(const struct ht_runtime *rt)
{
    return rt->opts.fallback_ratio > 0 ? rt->opts.fallback_ratio : 1.02;
}

/* The watch's two switches, unmeasured, from the next launch on; each counted in
 * info.switches and timed in info.switch_s. go_alone: the fastest device alone (the
 * fallback, a recheck the split lost); what the decision measured stays in info.
 * go_split: the split again, as it was decided and planned (the return, a recheck), for
 * the memory it was decided for (info.memory: a device alone may see the program's arrays
 * as another kind). On failure nothing changes. */
/* 1 when this switch is the one runtime-test.h's ht__runtime_fail_switch fails (err set). */
static int switch_fails(struct ht_runtime *rt, struct ht_error *err)
{
    if (!rt->fail_switch || ++rt->switch_tries != rt->fail_switch)
        return 0;
    ht_error_set(err, HT_ECL, "switch %u failed as the test asked", rt->fail_switch);
    return 1;
}

static int go_alone(struct ht_runtime *rt, struct ht_error *err)
{
    struct ht_runtime_info keep = rt->info;
    double t0 = now_s(), took;

    if (switch_fails(rt, err) || redecide(rt, rt->cx_memory, keep.fastest, 0, err) != HT_OK)
        return err->code;
    rt->info.fastest = keep.fastest;
    rt->info.predicted_split_s = keep.predicted_split_s;
    rt->info.predicted_alone_s = keep.predicted_alone_s;
    rt->info.measured_split_s = keep.measured_split_s;
    rt->info.decisions = keep.decisions;
    memcpy(rt->info.decision, keep.decision, sizeof keep.decision);
    took = now_s() - t0;
    rt->info.switches++;
    rt->info.switch_s += took;
    rt->alone_switch_s = took;
    return HT_OK;
}

static int go_split(struct ht_runtime *rt, struct ht_error *err)
{
    double t0 = now_s(), took;

    if (switch_fails(rt, err) || redecide(rt, rt->info.memory, SIZE_MAX, 1, err) != HT_OK)
        return err->code;
    took = now_s() - t0;
    rt->info.switches++;
    rt->info.switch_s += took;
    rt->split_switch_s = took;
    return HT_OK;
}

/* The launches alone before the next recheck (runtime-test.h): as many as take
 * RECHECK_COST times a recheck's two switches (alone_switch_s and split_switch_s as the
 * last ones took; the split's, before one was timed, as the device alone's times the n
 * devices it splits over) at alone_s a launch, and at least RECHECK_FIRST; times 2^k after
 * k rechecks the split lost (k up to RECHECK_DOUBLINGS). The switches of rechecks that
 * lose so cost at most 1/8 of the time alone before the first, 1/16 before the second,
 * and so on (two switches, to the device alone and back, took 92-132 ms on the H200
 * machine at 2^26 elements, 3-4 ms on two PoCL devices at 2^22: docs/results-gpu.md). */
#define RECHECK_FIRST 8.0
#define RECHECK_COST 8.0
#define RECHECK_DOUBLINGS 9u
uint64_t ht__runtime_recheck_launches(double alone_switch_s, double split_switch_s, size_t n,
                                      double alone_s, unsigned k)
{
    double pair = alone_switch_s + (split_switch_s > 0 ? split_switch_s
                                                       : (double)n * alone_switch_s);
    double launches = alone_s > 0 ? ceil(RECHECK_COST * pair / alone_s) : RECHECK_FIRST;

    if (!(launches >= RECHECK_FIRST))
        launches = RECHECK_FIRST;
    if (launches > 1e9)
        launches = 1e9;
    return (uint64_t)launches << (k < RECHECK_DOUBLINGS ? k : RECHECK_DOUBLINGS);
}

/* The device alone stays (alone_s: its launches' median): the split is tried again after
 * ht__runtime_recheck_launches of its launches. */
static void stay_alone(struct ht_runtime *rt, double alone_s)
{
    unsigned k = rt->nrechecks < RECHECK_DOUBLINGS ? rt->nrechecks : RECHECK_DOUBLINGS;

    if (rt->force_recheck_first)
        rt->recheck_in = (uint64_t)rt->force_recheck_first << k;
    else
        rt->recheck_in = ht__runtime_recheck_launches(rt->alone_switch_s, rt->split_switch_s,
                                                      rt->n, alone_s, k);
    rt->nalone = 0;
}

/* Appends said, the words of what the watch of the device alone found, to info.decision.
 * Too long beside the fallback's words, those are cut to "then device D alone" first: said
 * repeats the split's median, and the alone time measured at the decision is
 * info.predicted_alone_s. */
static void say_after_alone(struct ht_runtime *rt, const char *said)
{
    size_t cut = strlen(rt->info.decision), size = sizeof rt->info.decision;

    if (cut + strlen(said) >= size && rt->fallback_cut < cut) {
        cut = rt->fallback_cut;
        cut += (size_t)snprintf(rt->info.decision + cut, size - cut, "; then device %zu alone",
                                rt->devs[rt->info.fastest].dev->index);
        if (cut > size - 1)
            cut = size - 1;
    }
    snprintf(rt->info.decision + cut, size - cut, "%s", said);
}

/* After a fallback: the device alone's first launches (median) against the split's
 * watched ones, launches of now against launches of now (issue 26: the machine slowed
 * between the decision and the split's first launches, and the device alone ran slower
 * still). Longer by the ratio, the split runs again from the next launch on, and the
 * watch ends there; else the device stays alone, and the split is tried again later
 * (recheck). A return that fails to set up keeps the device alone, and says so. */
static void watch_alone(struct ht_runtime *rt, double median, double ratio)
{
    char said[200];
    size_t idx = rt->devs[rt->info.fastest].dev->index;
    double split_s = rt->split_median_s;
    struct ht_error e;

    rt->watching = rt->watching_alone = 0;
    if (!(median > split_s * ratio)) {
        snprintf(said, sizeof said, "; it stayed alone: its first %d launches took %.3g s "
                 "(median), not longer than the split's %.3g s", HT_RUNTIME_WATCH_LAUNCHES,
                 median, split_s);
        say_after_alone(rt, said);
        stay_alone(rt, median);
        return;
    }
    ht_error_clear(&e);
    if (go_split(rt, &e) != HT_OK)
        snprintf(said, sizeof said, "; device %zu alone took %.3g s (median), longer than "
                 "the split's %.3g s, but splitting again failed: %.60s", idx, median,
                 split_s, e.text);
    else
        snprintf(said, sizeof said, "; then the split again: device %zu alone took %.3g s "
                 "(median), longer than the split's %.3g s", idx, median, split_s);
    say_after_alone(rt, said);
}

/* said, what a recheck found, in info.decision after the fallback's words (fallback_cut),
 * replacing whatever followed them. */
static void say_recheck(struct ht_runtime *rt, const char *said)
{
    size_t size = sizeof rt->info.decision;

    if (rt->fallback_cut < size)
        snprintf(rt->info.decision + rt->fallback_cut, size - rt->fallback_cut, "%s", said);
}

/* After the device alone stayed (watch_alone, or a recheck the split lost): its launches
 * are counted, the last HT_RUNTIME_WATCH_LAUNCHES kept, and after rt->recheck_in of them
 * the split runs again, its next HT_RUNTIME_WATCH_LAUNCHES launches watched against them
 * (issue 26: on the H200 machine the CPU device's kernel ran 1.3-1.6x its time in spells
 * of several launches, and a fallback judged in one stayed alone for good at 1.5x the
 * split's time). Their median within the ratio of the device alone's, the split stays and
 * the watch ends; else the device runs alone again until the next recheck, after twice
 * as many launches: the launches a split that really is slower costs halve each time.
 * What happened replaces the words after the fallback's, cut to "; then device D alone". */
static void recheck(struct ht_runtime *rt, double wall_s, double ratio)
{
    char said[200];
    size_t idx = rt->devs[rt->info.fastest].dev->index;
    double median;
    struct ht_error e;

    ht_error_clear(&e);
    if (!rt->rechecking) {
        rt->alone_wall[rt->nalone++ % HT_RUNTIME_WATCH_LAUNCHES] = wall_s;
        if (--rt->recheck_in > 0)
            return;
        rt->alone_median_s = median_of(rt->alone_wall, rt->nalone < HT_RUNTIME_WATCH_LAUNCHES
                                       ? rt->nalone : HT_RUNTIME_WATCH_LAUNCHES);
        if (go_split(rt, &e) != HT_OK) { /* no more rechecks */
            snprintf(said, sizeof said, "; then device %zu alone; trying the split again "
                     "failed: %.100s", idx, e.text);
            say_recheck(rt, said);
            return;
        }
        rt->rechecking = 1;
        rt->nwatch = 0;
        return;
    }
    rt->watch_wall[rt->nwatch++] = wall_s;
    if (rt->nwatch < HT_RUNTIME_WATCH_LAUNCHES)
        return;
    rt->nwatch = 0;
    rt->rechecking = 0;
    rt->nrechecks++;
    rt->info.rechecks++;
    median = rt->force_recheck_median_s > 0 ? rt->force_recheck_median_s
                                            : median_of(rt->watch_wall,
                                                        HT_RUNTIME_WATCH_LAUNCHES);
    if (!(median > rt->alone_median_s * ratio))
        snprintf(said, sizeof said, "; then device %zu alone; the split again at recheck %u: "
                 "%.3g s against it alone %.3g s (medians)", idx, rt->nrechecks, median,
                 rt->alone_median_s);
    else if (go_alone(rt, &e) != HT_OK)
        snprintf(said, sizeof said, "; then device %zu alone; the split again at recheck %u:"
                 " running it alone failed: %.100s", idx, rt->nrechecks, e.text);
    else {
        snprintf(said, sizeof said, "; then device %zu alone; %u rechecks of the split kept "
                 "it alone, the last %.3g s against %.3g s (medians)", idx, rt->nrechecks,
                 median, rt->alone_median_s);
        stay_alone(rt, rt->alone_median_s);
    }
    say_recheck(rt, said);
}

/* Mode AUTO after a decision that split: the split's first launches against the fastest
 * device's measured time alone. When even the fastest of them took longer than it by
 * opts.fallback_ratio (the decision's times are means of the best runs: best against
 * best; a median of three fell back in slow spells that the device alone then ran slower
 * in too, issue 26), that device runs alone from the next launch on (the launches so far
 * were right: only their time is judged), and its own first launches are watched in turn
 * (watch_alone), against the split's median. A fallback that fails to set up keeps the
 * split, and says so. */
static void watch(struct ht_runtime *rt, double wall_s)
{
    double median, best, ratio = watch_ratio(rt), alone_s;
    size_t fastest = rt->info.fastest, cut;
    struct ht_error e;

    rt->watch_wall[rt->nwatch++] = wall_s;
    if (rt->nwatch < HT_RUNTIME_WATCH_LAUNCHES)
        return;
    rt->nwatch = 0;
    median = median_of(rt->watch_wall, HT_RUNTIME_WATCH_LAUNCHES);
    if (rt->watching_alone) {
        watch_alone(rt, median, ratio);
        return;
    }
    rt->watching = 0;
    if (rt->force_walls)
        memcpy(rt->watch_wall, rt->force_wall, sizeof rt->watch_wall);
    best = rt->watch_wall[0];
    for (unsigned k = 1; k < HT_RUNTIME_WATCH_LAUNCHES; k++)
        best = rt->watch_wall[k] < best ? rt->watch_wall[k] : best;
    if (rt->force_split_median_s > 0)
        median = best = rt->force_split_median_s;
    alone_s = rt->info.predicted_alone_s;
    if (!(best > alone_s * ratio))
        return;
    ht_error_clear(&e);
    cut = strlen(rt->info.decision);
    if (go_alone(rt, &e) != HT_OK) {
        snprintf(rt->info.decision + cut, sizeof rt->info.decision - cut,
                 "; the split's launches took %.3g s and more, longer than device %zu alone "
                 "(%.3g s), but running it alone failed: %.60s",
                 best, rt->devs[fastest].dev->index, alone_s, e.text);
        return;
    }
    snprintf(rt->info.decision + cut, sizeof rt->info.decision - cut,
             "; then device %zu alone: the split's first %d launches took %.3g s and more, "
             "longer than it alone (%.3g s)",
             rt->devs[fastest].dev->index, HT_RUNTIME_WATCH_LAUNCHES, best, alone_s);
    rt->fallback_cut = cut;
    rt->split_median_s = median;
    rt->watching = rt->watching_alone = 1;
}

void ht__runtime_watch_as_auto(struct ht_runtime *rt, size_t fastest, double alone_s)
{
    if (!is_live(rt) || rt->dec.ncx < 2 || fastest >= rt->n || !(alone_s > 0))
        return;
    rt->info.fastest = fastest;
    rt->info.predicted_alone_s = alone_s;
    rt->watching = rt->opts.fallback_ratio >= 0;
    rt->watching_alone = 0;
    rt->nwatch = 0;
}

void ht__runtime_watch_split_as(struct ht_runtime *rt, double median_s)
{
    if (is_live(rt))
        rt->force_split_median_s = median_s;
}

void ht__runtime_watch_walls_as(struct ht_runtime *rt, const double *walls)
{
    if (!is_live(rt))
        return;
    rt->force_walls = walls != NULL;
    if (walls)
        memcpy(rt->force_wall, walls, sizeof rt->force_wall);
}

void ht__runtime_fail_switch(struct ht_runtime *rt, unsigned k)
{
    if (is_live(rt)) {
        rt->fail_switch = k;
        rt->switch_tries = 0;
    }
}

void ht__runtime_recheck_split_as(struct ht_runtime *rt, double median_s, unsigned first)
{
    if (is_live(rt)) {
        rt->force_recheck_median_s = median_s;
        rt->force_recheck_first = first;
    }
}

/* A launch across nodes (collective). A refusal before anything moves (an argument not
 * bound on rank 0) is not counted as failed, as on one machine. */
static int launch_nodes(struct ht_runtime *rt, struct ht_error *err)
{
    double wall = -1;
    int rc = rt->ops->launch(rt->mpi, &wall, err);

    if (rc == HT_EINVAL)
        return rc;
    rt->info.last_status = rc;
    if (rc != HT_OK) {
        rt->info.failed_launches++;
        snprintf(rt->info.last_error, sizeof rt->info.last_error, "%.511s",
                 err->code ? err->text : ht_strerror(rc));
        return rc;
    }
    rt->info.last_error[0] = '\0';
    rt->info.launches++;
    rt->info.last_wall_s = wall;
    return HT_OK;
}

int ht_runtime_launch(struct ht_runtime *rt, struct ht_error *err)
{
    struct ht_error mine;
    enum ht_coexec_memory memory;
    double t0;
    int rc;

    if (!is_live(rt))
        return not_open(rt, "ht_runtime_launch", err);
    if (!err) { /* the failure is recorded in info even when the caller takes no error */
        ht_error_clear(&mine);
        err = &mine;
    }
    if (rt->mpi)
        return launch_nodes(rt, err);
    for (size_t a = 0; a < rt->spec->nargs; a++) {
        const struct ht_arg *arg = &rt->spec->args[a];
        if (arg->is_buffer && arg->access != HT_ACCESS_TEMP && !rt->bound[a])
            return ht_error_set(err, HT_EINVAL, "argument '%s' of '%s' is not bound "
                                "(ht_runtime_bind): nothing was launched", arg->name,
                                rt->spec->name);
    }
    /* The decision was made for one kind of memory; bound to another, the data path costs
     * another time (a GPU's share of a program's malloc arrays moved at the pageable rate
     * took 39 ms where pinned took 6): decide again, once per change (the launch tells of
     * it, nothing run). With one device, or alone as asked, nothing depends on it. */
    memory = rt->cx_memory;
    t0 = now_s();
    rc = ht__coexec_launch(rt->dec.cx, &rt->dec.last, &memory, err);
    if (rc == HT_DONE) {
        if (rt->n > 1 && rt->opts.mode != HT_RUNTIME_ALONE) {
            rc = redecide(rt, memory, SIZE_MAX, 0, err);
            if (rc != HT_OK)
                return rc;
        } else {
            size_t cut = strcspn(rt->info.decision, ";");
            rt->info.memory = rt->cx_memory = memory;
            snprintf(rt->info.decision + cut, sizeof rt->info.decision - cut, "; for %s memory",
                     memory_words(memory));
        }
        t0 = now_s();
        rc = ht__coexec_launch(rt->dec.cx, &rt->dec.last, NULL, err);
    }
    /* The launch replaced the last one's result (the decision holds it: a failed launch's
     * part, freed by the next launch or with the decision, is no last). */
    rt->have_last = 0;
    if (rc != HT_OK) {
        /* A device lost or failing: recorded, and the runtime stays closable. */
        rt->info.failed_launches++;
        rt->info.last_status = rc;
        snprintf(rt->info.last_error, sizeof rt->info.last_error, "%.511s",
                 err->code ? err->text : ht_strerror(rc));
        return rc;
    }
    rt->info.last_status = HT_OK;
    rt->info.last_error[0] = '\0';
    rt->have_last = 1;
    rt->info.launches++;
    rt->info.last_wall_s = rt->dec.last.wall_s > 0 ? rt->dec.last.wall_s : now_s() - t0;
    for (size_t k = 0; k < rt->dec.ncx && k < rt->dec.last.ndevices; k++) {
        struct ht_runtime_device *d = &rt->devs[rt->dec.idx[k]];
        d->kernel_s = rt->dec.last.devices[k].kernel_s;
        d->transfer_s = rt->dec.last.devices[k].write_s + rt->dec.last.devices[k].read_s;
    }
    if (rt->watching)
        watch(rt, rt->info.last_wall_s);
    else if (rt->recheck_in || rt->rechecking)
        recheck(rt, rt->info.last_wall_s, watch_ratio(rt));
    return HT_OK;
}

const struct ht_runtime_info *ht_runtime_info(const struct ht_runtime *rt)
{
    return is_live(rt) ? &rt->info : NULL;
}

const struct ht_coexec_result *ht_runtime_last(const struct ht_runtime *rt)
{
    return is_live(rt) && rt->have_last ? &rt->dec.last : NULL;
}
