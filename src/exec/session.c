/* Sessions: the context and profiling queue of one device, the eval loop of one
 * configuration (check, build, run repeats times, read back, verify), and output dumps. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec-internal.h"
#include "npy.h"
#include "worker.h"
#include "util/util.h"

void ht_exec_opts_init(struct ht_exec_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->eq3 = HT_EQ3_PRODUCT;
    opts->isolate = HT_ISOLATE_AUTO;
}

void ht__cache_dir(const struct ht_exec_opts *opts, char *buf, size_t size)
{
    const char *env;

    if (opts && opts->cache_dir && opts->cache_dir[0])
        snprintf(buf, size, "%s", opts->cache_dir);
    else if ((env = getenv("HETUNE_CACHE_DIR")) && env[0])
        snprintf(buf, size, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && env[0])
        snprintf(buf, size, "%s/hetune", env);
    else if ((env = getenv("HOME")) && env[0])
        snprintf(buf, size, "%s/.cache/hetune", env);
    else
        snprintf(buf, size, "/tmp/hetune-cache");
}

void ht_eval_result_destroy(struct ht_eval_result *res)
{
    if (!res)
        return;
    free(res->build_log);
    res->build_log = NULL;
    free(res->run_s);
    res->run_s = NULL;
    res->nruns = 0;
}

static void hostbufs_free(struct ht__hostbuf *b, size_t n)
{
    if (!b)
        return;
    for (size_t i = 0; i < n; i++)
        ht__hostbuf_free(&b[i]);
    free(b);
}

/* One OpenCL context per device for the process, for the co-execution's sessions
 * (ht__session_create_kept), made at the first and kept with the programs built on it
 * (ht__context_program_keep): a session takes a reference to it, and gives it back when
 * freed. Making and releasing a context took 96-101 ms and 55-62 ms on the H200
 * (bench/gpu/setupcost.c), twice a runtime's switch between a split and a device alone:
 * the most of it. Sessions on one device share the context (OpenCL's calls on it are
 * thread-safe); each keeps its own queue and buffers, and their builds take turns
 * (ht__context_build_lock: PoCL aborted when two threads built one program on one context
 * at once). A sub-device (ht_coexec_opts.cpu_units), made anew by its co-execution, gets a
 * context of its own as before; past CONTEXTS devices too. Tuning's sessions
 * (ht_session_create) make their own, as before. */
#define CONTEXTS 64
static pthread_mutex_t contexts_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct {
    cl_device_id device;
    cl_context ctx;
    struct ht__programs programs; /* ht__context_program_keep's */
} contexts[CONTEXTS];
static size_t ncontexts;
static pthread_mutex_t build_mutex = PTHREAD_MUTEX_INITIALIZER;

void ht__context_build_lock(int lock)
{
    if (lock)
        pthread_mutex_lock(&build_mutex);
    else
        pthread_mutex_unlock(&build_mutex);
}

/* The kept context ctx's entry, or CONTEXTS; with contexts_mutex held. */
static size_t context_find(cl_context ctx)
{
    for (size_t i = 0; i < ncontexts; i++)
        if (contexts[i].ctx == ctx)
            return i;
    return CONTEXTS;
}

cl_program ht__programs_take(const struct ht__programs *p, const char *key)
{
    for (size_t i = 0; i < HT__SESSION_PROGRAMS; i++)
        if (p->slot[i].key && !strcmp(p->slot[i].key, key) &&
            clRetainProgram(p->slot[i].prog) == CL_SUCCESS)
            return p->slot[i].prog;
    return NULL;
}

void ht__programs_keep(struct ht__programs *p, char *key, cl_program prog)
{
    size_t i;

    if (!key || clRetainProgram(prog) != CL_SUCCESS) {
        free(key);
        return;
    }
    i = p->next++ % HT__SESSION_PROGRAMS;
    if (p->slot[i].prog)
        clReleaseProgram(p->slot[i].prog);
    free(p->slot[i].key);
    p->slot[i].key = key;
    p->slot[i].prog = prog;
}

void ht__programs_free(struct ht__programs *p)
{
    for (size_t i = 0; i < HT__SESSION_PROGRAMS; i++) {
        if (p->slot[i].prog)
            clReleaseProgram(p->slot[i].prog);
        free(p->slot[i].key);
    }
    memset(p, 0, sizeof *p);
}

cl_program ht__context_program_take(cl_context ctx, const char *key)
{
    cl_program prog = NULL;
    size_t c;

    pthread_mutex_lock(&contexts_mutex);
    c = context_find(ctx);
    if (c < CONTEXTS)
        prog = ht__programs_take(&contexts[c].programs, key);
    pthread_mutex_unlock(&contexts_mutex);
    return prog;
}

void ht__context_program_keep(cl_context ctx, const char *key, cl_program prog)
{
    char *copy = strdup(key);
    size_t c;

    pthread_mutex_lock(&contexts_mutex);
    c = context_find(ctx);
    if (c < CONTEXTS) {
        ht__programs_keep(&contexts[c].programs, copy, prog);
        copy = NULL;
    }
    pthread_mutex_unlock(&contexts_mutex);
    free(copy);
}

/* A context on device: kept 1, the device's kept one (a new reference to it); else, or on
 * a sub-device, one of its own. */
static cl_context context_take(cl_platform_id platform, cl_device_id device, int kept,
                               cl_int *st)
{
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_device_id parent = NULL;
    cl_context ctx = NULL;

    if (!kept || clGetDeviceInfo(device, CL_DEVICE_PARENT_DEVICE, sizeof parent, &parent,
                                 NULL) != CL_SUCCESS || parent)
        return clCreateContext(props, 1, &device, NULL, NULL, st);
    pthread_mutex_lock(&contexts_mutex);
    for (size_t i = 0; i < ncontexts && !ctx; i++)
        if (contexts[i].device == device && clRetainContext(contexts[i].ctx) == CL_SUCCESS)
            ctx = contexts[i].ctx;
    if (ctx) {
        *st = CL_SUCCESS;
    } else {
        ctx = clCreateContext(props, 1, &device, NULL, NULL, st);
        /* The table's own reference, kept for the process. */
        if (ctx && ncontexts < CONTEXTS && clRetainContext(ctx) == CL_SUCCESS) {
            contexts[ncontexts].device = device;
            contexts[ncontexts++].ctx = ctx;
        }
    }
    pthread_mutex_unlock(&contexts_mutex);
    return ctx;
}

static int session_make(const struct ht_spec *spec, const struct ht_device_info *dev,
                        const struct ht_exec_opts *opts, int kept, struct ht_session **out,
                        struct ht_error *err);

int ht_session_create(const struct ht_spec *spec, const struct ht_device_info *dev,
                      const struct ht_exec_opts *opts, struct ht_session **out,
                      struct ht_error *err)
{
    return session_make(spec, dev, opts, 0, out, err);
}

int ht__session_create_kept(const struct ht_spec *spec, const struct ht_device_info *dev,
                            const struct ht_exec_opts *opts, struct ht_session **out,
                            struct ht_error *err)
{
    return session_make(spec, dev, opts, 1, out, err);
}

/* ht_session_create; kept 1: on the device's kept context, its programs kept with it. */
static int session_make(const struct ht_spec *spec, const struct ht_device_info *dev,
                        const struct ht_exec_opts *opts, int kept, struct ht_session **out,
                        struct ht_error *err)
{
    struct ht_session *s;
    size_t n;
    cl_int st;
    int rc = HT_OK;

    if (!spec || !dev || !out)
        return ht_error_set(err, HT_EINVAL, "%s: %s is NULL",
                            kept ? "ht__session_create_kept" : "ht_session_create",
                            !spec ? "spec" : !dev ? "dev" : "out");
    n = spec->nargs ? spec->nargs : 1;
    *out = NULL;
    if (spec->language != HT_LANG_OPENCL)
        return ht_error_set(err, HT_ESPEC, "kernel.language %s: hetune builds and runs OpenCL "
                            "kernels only; replay a recorded space of this kernel with "
                            "hetune tune --replay FILE",
                            ht_kernel_language_name(spec->language));
    /* A buffer the device cannot allocate fails every configuration: say so before any
     * build, naming the shape and the limit, rather than as a failed clCreateBuffer. */
    rc = ht_spec_check_device(spec, dev, err);
    /* So are a reference file of the wrong type or size, and a reference kernel's NDRange
     * the device cannot launch. */
    if (rc == HT_OK && !(opts && opts->no_verify))
        rc = ht__verify_check(spec, dev, err);
    if (rc != HT_OK)
        return rc;
    s = calloc(1, sizeof *s);
    if (!s)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    s->spec = spec;
    s->dev = dev;
    if (opts)
        s->opts = *opts;
    else
        ht_exec_opts_init(&s->opts);
    ht__cache_dir(&s->opts, s->cache_dir, sizeof s->cache_dir);
    s->opts.cache_dir = s->cache_dir;
    s->device = (cl_device_id)dev->cl_device;
    s->path = ht_data_path_resolve(s->opts.data_path, dev);
    if (s->opts.isolate != HT_ISOLATE_OFF) {
        char worker[4096];
        rc = ht__worker_find(s->opts.worker, worker, sizeof worker);
        if (rc == HT_OK) {
            rc = ht__worker_start(spec, dev, &s->opts, worker, NULL, &s->worker, err);
            if (rc != HT_OK)
                goto fail;
            *out = s;
            return HT_OK;
        }
        rc = HT_OK;
        if (s->opts.isolate == HT_ISOLATE_AUTO)
            ht__log(HT_LOG_INFO, "no hetune-worker found (set HETUNE_WORKER): configurations "
                    "of %s run in this process, not isolated", spec->name);
        if (s->opts.isolate == HT_ISOLATE_ON) {
            rc = ht_error_set(err, HT_ENOTFOUND,
                              "no worker executable for isolation: %s%s", 
                              worker[0] ? worker : "hetune-worker",
                              worker[0] ? " is not executable" : " was not found (set "
                              "HETUNE_WORKER)");
            goto fail;
        }
    }
    s->inputs = calloc(n, sizeof *s->inputs);
    s->outputs = calloc(n, sizeof *s->outputs);
    s->refs = calloc(n, sizeof *s->refs);
    s->file_refs = calloc(n, sizeof *s->file_refs);
    s->inplace_out = s->outputs;
    if (!s->inputs || !s->outputs || !s->refs || !s->file_refs) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto fail;
    }
    s->ctx = context_take((cl_platform_id)dev->cl_platform, s->device, kept, &st);
    s->keep_programs = kept;
    if (st != CL_SUCCESS) {
        rc = ht__cl_fail(err, HT_ECL, st, "clCreateContext");
        goto fail;
    }
    s->queue = clCreateCommandQueue(s->ctx, s->device, CL_QUEUE_PROFILING_ENABLE, &st);
    if (st != CL_SUCCESS) {
        rc = ht__cl_fail(err, HT_ECL, st, "clCreateCommandQueue");
        goto fail;
    }
    *out = s;
    return HT_OK;
fail:
    ht_session_free(s);
    return rc;
}

void ht_session_free(struct ht_session *s)
{
    size_t n;

    if (!s)
        return;
    /* The builds still in flight end with the pool, before the session. */
    if (s->pause) {
        if (s->worker)
            ht__worker_pause_builds(s->worker, NULL);
        ht__prebuild_free(s->pause);
    }
    ht__worker_free(s->worker);
    n = s->spec->nargs;
    /* Pinned host memory is unmapped on the queue: before it goes. */
    hostbufs_free(s->inputs, n);
    hostbufs_free(s->outputs, n);
    hostbufs_free(s->refs, n);
    hostbufs_free(s->file_refs, n);
    ht__programs_free(&s->programs);
    if (s->queue)
        clReleaseCommandQueue(s->queue);
    if (s->ctx)
        clReleaseContext(s->ctx);
    free(s->stage_run_s);
    free(s);
}

static void result_reset(struct ht_eval_result *res)
{
    memset(res, 0, sizeof *res);
    res->verified = -1;
    res->gflops = -1.0;
    res->gbps = -1.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Mean of the best keep runs, and the minimum. */
static void summarise_runs(struct ht_eval_result *res, unsigned keep)
{
    double sorted[HT_MAX_REPEATS], sum = 0.0;

    memcpy(sorted, res->run_s, res->nruns * sizeof *sorted);
    qsort(sorted, res->nruns, sizeof *sorted, cmp_double);
    if (keep == 0 || keep > res->nruns)
        keep = res->nruns;
    for (unsigned i = 0; i < keep; i++)
        sum += sorted[i];
    res->kernel_s = keep ? sum / keep : 0.0;
    res->kernel_min_s = res->nruns ? sorted[0] : 0.0;
}

/* A rate per second from an expression over the configuration's vars, or -1. */
static double rate(const struct ht_expr *e, const int64_t *vars, double seconds)
{
    int64_t v;

    if (!e || seconds <= 0.0 || ht_expr_eval(e, vars, &v) != HT_OK)
        return -1.0;
    return (double)v / seconds * 1e-9;
}

/* Runs the reference configuration once and keeps its outputs in s->refs. */
static int compute_reference_config(struct ht_session *s, struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;
    struct ht__inst in;
    struct ht_eval_result *tmp;
    struct ht_error e;
    double unused = 0.0, kernel_s = 0.0, read_s = 0.0;
    size_t local[3];
    int rc;

    memset(&in, 0, sizeof in);
    ht_error_clear(&e);
    tmp = malloc(sizeof *tmp);
    if (!tmp)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    result_reset(tmp);
    /* Eq. 3 is about speed, not correctness: a small reference configuration may break it
     * and still give the right answer. */
    rc = ht_space_check(&spec->space, s->dev, spec->reference, HT_EQ3_OFF, &e);
    if (rc == HT_OK)
        rc = ht_spec_check_stages(spec, s->dev, spec->reference, &e);
    /* In place, its written buffers are the reference outputs themselves, so that the
     * configuration's outputs in s->outputs are left alone. */
    s->inplace_out = s->refs;
    if (rc == HT_OK)
        rc = ht__inst_prepare(s, spec->reference, &in, tmp, &unused, &e);
    if (rc == HT_OK && in.nstages) {
        /* A pipeline configuration: all its stages, as an evaluation runs them. */
        rc = ht__inst_run(s, &in, &kernel_s, NULL, &unused, &e);
    } else if (rc == HT_OK) {
        for (unsigned d = 0; d < 3; d++)
            local[d] = (size_t)in.local[d];
        rc = ht__inst_launch(s, &in, in.kernel, in.local[0] ? local : NULL, &kernel_s,
                             &unused, &e);
    }
    if (rc == HT_OK)
        rc = ht__inst_read(s, &in, s->refs, &read_s, &e);
    s->inplace_out = s->outputs;
    if (rc == HT_OK) {
        s->have_refs = 1;
    } else {
        char msg[2400];
        ht_error_format(&e, msg, sizeof msg);
        if (err && !err->code)
            err->cl_status = e.cl_status;
        ht_error_set(err, rc, "reference configuration: %s", msg);
    }
    ht__inst_release(&in, spec->nargs);
    ht_eval_result_destroy(tmp);
    free(tmp);
    return rc;
}

/* Launches the reference kernel k once on its own NDRange (verify.global and verify.local),
 * from the initial contents every run of the configuration starts from (ht__inst_reset:
 * readwrite buffers restored, write buffers poisoned). */
static int launch_own_ndrange(struct ht_session *s, struct ht__inst *in, cl_kernel k,
                              double *kernel_s, struct ht_error *err)
{
    size_t global[3], local[3];
    double unused = 0.0, t0;
    cl_event ev = NULL;
    int rc = ht__verify_ndrange(s->spec, s->dev, in->vars, global, local, err);

    if (rc == HT_OK)
        rc = ht__inst_reset(s, in, &unused, err);
    if (rc != HT_OK)
        return rc;
    t0 = ht__now();
    rc = ht__enqueue_wait(s->queue, k, s->spec->verify_ndims, global, local[0] ? local : NULL,
                          &ev, err);
    if (rc != HT_OK) {
        clFinish(s->queue); /* leave nothing queued behind for the next configuration */
        return rc;
    }
    s->last_launch_wall_s = ht__now() - t0;
    *kernel_s = ht__event_seconds(ev, s->last_launch_wall_s);
    clReleaseEvent(ev);
    return HT_OK;
}

/* The program of config with the prologue for the reference kernel's own NDRange
 * (verify.global), in *out (clReleaseProgram), or *out NULL when the source needs no
 * prologue (the tuned program serves). */
static int reference_program(struct ht_session *s, const int64_t *config, struct ht__inst *in,
                             cl_program *out, struct ht_error *err)
{
    size_t g[3], l[3];
    uint64_t g64[3];
    char *prologue = NULL, *options;
    struct ht__program built;
    int rc;

    *out = NULL;
    rc = ht__verify_ndrange(s->spec, s->dev, in->vars, g, l, err);
    for (unsigned d = 0; d < 3; d++)
        g64[d] = g[d];
    if (rc == HT_OK && ht__program_prologue(s->spec, s->spec->verify_ndims, g64, &prologue) !=
                           HT_OK)
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
    if (rc != HT_OK || !prologue)
        return rc;
    free(prologue);
    if (!(options = ht__build_options(s->spec, config)))
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    rc = ht__program_get(s, options, s->spec->verify_ndims, g64, &built, err);
    *out = built.prog;
    free(options);
    free(built.log);
    return rc;
}

/* Runs the reference kernel once on the configuration's buffers, into s->refs. Its
 * launch's extra wall time (its lazy compilation) goes to res->launch_compile_s. */
static int compute_reference_kernel(struct ht_session *s, const int64_t *config,
                                    struct ht__inst *in, struct ht_eval_result *res,
                                    struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;
    cl_kernel k = NULL;
    cl_program own = NULL, tuned = in->prog;
    double unused = 0.0, kernel_s = 0.0, read_s = 0.0;
    void **saved;
    int rc = HT_OK;

    s->have_refs = 0; /* these outputs belong to this configuration's options only */
    /* A buffer that works in place holds the configuration's outputs in s->outputs, where
     * the reference kernel is about to write its own: they are kept aside meanwhile. */
    saved = calloc(spec->nargs ? spec->nargs : 1, sizeof *saved);
    if (!saved)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < spec->nargs; i++) {
        size_t bytes = s->outputs[i].count * ht_type_size(spec->args[i].type);
        if (!in->host[i] || in->host[i] != s->outputs[i].data)
            continue;
        saved[i] = malloc(bytes ? bytes : 1);
        if (!saved[i]) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
        memcpy(saved[i], s->outputs[i].data, bytes);
    }
    /* On its own NDRange, the reference kernel must see that NDRange's group ids and
     * sizes, not the tuned one's that the program's prologue holds (ht__program_prologue):
     * it comes from a program whose prologue is for its own NDRange, when there is one. */
    if (spec->verify_ndims)
        rc = reference_program(s, config, in, &own, err);
    if (rc == HT_OK && own)
        in->prog = own;
    /* A pipeline's args belong to no single kernel, and verify.args gives the reference
     * kernel its own list: both bind the arguments by name. */
    if (rc != HT_OK)
        ;
    else if (s->spec->npipeline || s->spec->nverify_args)
        rc = ht__inst_ref_kernel(s, in, &k, err);
    else
        rc = ht__inst_kernel(s, in, s->spec->reference_kernel, &k, err);
    in->prog = tuned;
    if (rc == HT_OK && spec->verify_ndims)
        rc = launch_own_ndrange(s, in, k, &kernel_s, err);
    else if (rc == HT_OK)
        rc = ht__inst_launch(s, in, k, NULL, &kernel_s, &unused, err);
    if (rc == HT_OK && s->last_launch_wall_s > kernel_s)
        res->launch_compile_s += s->last_launch_wall_s - kernel_s;
    if (rc == HT_OK)
        rc = ht__inst_read(s, in, s->refs, &read_s, err);
cleanup:
    for (size_t i = 0; i < spec->nargs; i++)
        if (saved[i]) {
            memcpy(s->outputs[i].data, saved[i],
                   s->outputs[i].count * ht_type_size(spec->args[i].type));
            free(saved[i]);
        }
    free(saved);
    if (k)
        clReleaseKernel(k);
    if (own)
        clReleaseProgram(own);
    return rc;
}

/* The reference outputs of a problem whose reference does not depend on the configuration
 * (a reference configuration, or a reference kernel with verify.once), into s->refs: from
 * the reference cache when it holds them, else computed and written there. */
/* *computed (when not NULL) is 1 when the outputs were computed. */
static int reference_once(struct ht_session *s, const int64_t *config, struct ht__inst *in,
                          struct ht_eval_result *res, int *computed, struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;
    const struct ht__inst *shapes = in;
    struct ht__inst ref;
    struct ht_error e;
    char key[33], *path = NULL;
    int rc = HT_OK;

    memset(&ref, 0, sizeof ref);
    ht_error_clear(&e);
    if (!s->opts.no_cache) {
        /* The reference configuration's buffers may be shaped otherwise than this one's.
         * When they cannot even be set up, computing it reports why. */
        if (spec->verify == HT_VERIFY_CONFIG)
            shapes = ht__inst_setup(s, spec->reference, &ref, &e) == HT_OK ? &ref : NULL;
        if (shapes && ht__refcache_key(s, key, &e) == HT_OK &&
            !(path = ht__refcache_path(s, key))) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
        if (path) {
            rc = ht__refcache_load(s, path, shapes, err);
            if (rc == HT_OK) {
                s->have_refs = 1;
                ht__log(HT_LOG_INFO, "%s: reference outputs read from %s", s->dev->name,
                        path);
                goto cleanup;
            }
            if (rc != HT_ENOTFOUND)
                goto cleanup;
            rc = HT_OK;
        }
    }
    if (spec->verify == HT_VERIFY_CONFIG)
        rc = compute_reference_config(s, err);
    else
        rc = compute_reference_kernel(s, config, in, res, err);
    if (rc != HT_OK)
        goto cleanup;
    s->have_refs = 1;
    if (computed)
        *computed = 1;
    ht__log(HT_LOG_INFO, "%s: reference outputs computed (%s)", s->dev->name,
            spec->verify == HT_VERIFY_CONFIG ? "reference configuration" : "reference kernel");
    if (path)
        ht__refcache_save(s, path);
cleanup:
    ht__inst_release(&ref, spec->nargs);
    free(path);
    return rc;
}

static int verify(struct ht_session *s, const int64_t *config, struct ht__inst *in,
                  struct ht_eval_result *res,
                  struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;
    struct ht__cmp c;
    int rc;

    if (spec->verify == HT_VERIFY_NONE || s->opts.no_verify)
        return HT_OK;
    if ((spec->verify == HT_VERIFY_CONFIG || spec->verify_once) && !s->have_refs) {
        rc = reference_once(s, config, in, res, NULL, err);
    } else if (spec->verify == HT_VERIFY_KERNEL && !spec->verify_once)
        rc = compute_reference_kernel(s, config, in, res, err);
    else
        rc = HT_OK;
    /* Reference files do not change: read once per session. */
    if (rc == HT_OK && !s->have_file_refs) {
        rc = ht__ref_files_load(spec, s->file_refs, err);
        s->have_file_refs = rc == HT_OK;
    }
    if (rc != HT_OK)
        return rc;

    memset(&c, 0, sizeof c);
    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *arg = &spec->args[i];
        const struct ht__hostbuf *exp = &s->refs[i];
        if (!arg->is_buffer || arg->access == HT_ACCESS_READ || arg->access == HT_ACCESS_TEMP ||
            arg->check == HT_CHECK_NONE)
            continue;
        if (arg->ref_path) {
            /* A file that does not fit this configuration's buffer (whose shape may
             * depend on the parameters) is the spec's mistake, not the kernel's. */
            exp = &s->file_refs[i];
            rc = ht__npy_fits(spec, i, exp->naxes, exp->dims, exp->count, &in->shape[i], err);
            if (rc != HT_OK)
                return rc;
        }
        ht__compare(arg, &s->outputs[i], exp, spec->rtol, spec->atol, &c);
    }
    res->verified = c.mismatches == 0;
    res->max_abs_err = c.max_abs;
    res->max_rel_err = c.max_rel;
    res->mismatches = c.mismatches;
    snprintf(res->mismatch, sizeof res->mismatch, "%s", c.first);
    if (c.mismatches)
        return ht_error_set(err, HT_EVERIFY,
                            "verification failed: %zu of %zu elements differ; first %s",
                            c.mismatches, c.compared, c.first);
    return HT_OK;
}

/* 1 when ht__session_reference has anything to do for this session's spec and options: a
 * reference configuration or a verify.once reference kernel, with verification on. */
static int reference_needed(const struct ht_session *s)
{
    const struct ht_spec *spec = s->spec;

    return spec->verify != HT_VERIFY_NONE && !s->opts.no_verify &&
           (spec->verify == HT_VERIFY_CONFIG ||
            (spec->verify == HT_VERIFY_KERNEL && spec->verify_once));
}

int ht__session_reference(struct ht_session *s, const int64_t *config,
                          void (*on_start)(void *user, double limit_s), void *user,
                          struct ht_reference_info *info, struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;
    struct ht_eval_result *tmp = NULL;
    struct ht_error local_err;
    struct ht__inst in;
    double t0 = ht__now(), write_s = 0.0;
    int rc = HT_OK;

    if (!err)
        err = &local_err;
    ht_error_clear(err);
    memset(info, 0, sizeof *info);
    memset(&in, 0, sizeof in);
    info->needed = reference_needed(s);
    if (!info->needed)
        return HT_OK;
    if (on_start)
        on_start(user, s->worker ? fmax(HT_TIMEOUT_REFERENCE_S, s->opts.timeout_s) : 0.0);
    if (s->worker) {
        rc = ht__worker_reference(s->worker, config, info, err);
        info->needed = 1;
        info->seconds = ht__now() - t0;
        return rc;
    }
    if (s->have_refs)
        goto cleanup;
    if (spec->verify == HT_VERIFY_KERNEL) {
        /* The reference kernel is built in config's program and runs on its buffers. */
        tmp = malloc(sizeof *tmp);
        if (!tmp) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
        result_reset(tmp);
        rc = ht_space_check(&spec->space, s->dev, config, s->opts.eq3, err);
        if (rc == HT_OK)
            rc = ht_spec_check_stages(spec, s->dev, config, err);
        if (rc == HT_OK)
            rc = ht__inst_prepare(s, config, &in, tmp, &write_s, err);
        if (rc != HT_OK) {
            info->config_fault = 1;
            goto cleanup;
        }
    }
    rc = reference_once(s, config, &in, tmp, &info->computed, err);
    if (rc != HT_OK && spec->verify == HT_VERIFY_KERNEL) {
        char msg[2400];
        struct ht_error e = *err;
        ht_error_format(&e, msg, sizeof msg);
        ht_error_clear(err);
        err->cl_status = e.cl_status;
        ht_error_set(err, rc, "reference kernel: %s", msg);
    }
cleanup:
    ht__inst_release(&in, spec->nargs);
    if (tmp)
        ht_eval_result_destroy(tmp);
    free(tmp);
    info->seconds = ht__now() - t0;
    return rc;
}

int ht_session_isolated(const struct ht_session *s)
{
    return s && s->worker != NULL;
}

double ht__session_time_limit(const struct ht_session *s)
{
    return s->worker ? ht__worker_limit(s->worker) : 0.0;
}

void ht__session_set_cut(struct ht_session *s, double best_so_far_s, double factor)
{
    s->cut_best = best_so_far_s;
    s->cut_factor = factor;
}

/* The rule of ht__repeats_decide for this session's spec and best so far. */
static void repeats_rule(const struct ht_session *s, unsigned repeats,
                         struct ht_repeats_rule *rule)
{
    const struct ht_spec *spec = s->spec;

    memset(rule, 0, sizeof *rule);
    rule->repeats = repeats;
    rule->keep_best = spec->keep_best;
    rule->adaptive = spec->adaptive;
    rule->min_repeats = spec->min_repeats;
    rule->precision = spec->precision;
    rule->margin = spec->margin;
    rule->margin_time_s = HT_REPEATS_MARGIN_TIME_S;
    rule->margin_floor = HT_REPEATS_MARGIN_FLOOR;
    rule->best_s = s->cut_best;
    rule->cut_factor = s->cut_factor;
}

/* The stages of a pipeline run in res: which ran, and each one's mean time over the runs
 * that summarise_runs kept (the keep fastest), so that the stages sum to kernel_s. */
static void summarise_stages(const struct ht_session *s, const struct ht__inst *in,
                             struct ht_eval_result *res, unsigned keep)
{
    unsigned order[HT_MAX_REPEATS];

    res->nstages = (unsigned)in->nstages;
    for (unsigned k = 0; k < res->nstages; k++) {
        res->stage_index[k] = (unsigned)in->stages[k].index;
        res->stage_s[k] = 0.0;
    }
    if (!s->stage_run_s || res->nruns == 0)
        return;
    if (keep == 0 || keep > res->nruns)
        keep = res->nruns;
    /* The indices of the fastest runs: a stable insertion sort, as few runs are kept. */
    for (unsigned r = 0; r < res->nruns; r++) {
        unsigned j = r;
        for (; j > 0 && res->run_s[order[j - 1]] > res->run_s[r]; j--)
            order[j] = order[j - 1];
        order[j] = r;
    }
    for (unsigned k = 0; k < res->nstages; k++) {
        double sum = 0.0;
        for (unsigned i = 0; i < keep; i++)
            sum += s->stage_run_s[(size_t)order[i] * HT_MAX_STAGES + k];
        res->stage_s[k] = sum / keep;
    }
}

void ht__session_pause_builds(struct ht_session *s, struct ht_prebuild *p)
{
    s->pause = p;
    if (s->worker)
        ht__worker_pause_builds(s->worker, p);
}

int ht__session_build_ahead(struct ht_session *s, unsigned jobs, uint64_t id,
                            const int64_t *config)
{
    if (!s->pause) {
        struct ht_prebuild *p;
        int rc = ht__prebuild_create(s->spec, s->dev, &s->opts, jobs, &p, NULL);
        if (rc != HT_OK)
            return rc;
        /* A CPU device's cores are the device: the builds ahead stop while it times runs,
         * and build on every core the rest of the time (loads, staging, verification).
         * Another device's session keeps the pool without pausing it (nor asking an
         * isolated worker to say when it times). */
        ht__prebuild_pausing(p, s->dev->is_cpu);
        s->pause = p;
        if (s->worker && s->dev->is_cpu)
            ht__worker_pause_builds(s->worker, p);
    }
    return ht__prebuild_submit(s->pause, id, config);
}

int ht__session_take_build(struct ht_session *s, uint64_t id, struct ht_prebuild_done *done)
{
    return s->pause ? ht__prebuild_take(s->pause, id, 1, done) : HT_ENOTFOUND;
}

void ht__session_builds(const struct ht_session *s, size_t *building, size_t *built)
{
    *building = *built = 0;
    if (s->pause)
        ht__prebuild_counts(s->pause, NULL, building, built);
}

/* The timed runs start (on 1) or ended (on 0): the builds ahead given to the session
 * (ht__session_pause_builds; its own pool, ht__session_build_ahead's, where it pauses)
 * stop meanwhile, in this process or, in a worker, as the parent is told. */
static void timed_runs(struct ht_session *s, int on)
{
    if (s->pause)
        ht__prebuild_pause(s->pause, on);
    else if (s->timed_tell && !on != !s->timed_on) {
        ht__worker_tell_timed(s->timed_fd, on);
        s->timed_on = on;
    }
}

int ht_session_eval(struct ht_session *s, const int64_t *config, struct ht_eval_result *res,
                    struct ht_error *err)
{
    const struct ht_spec *spec;
    struct ht__inst in;
    struct ht_error local_err;
    unsigned repeats;
    double restore_s = 0.0, write_s = 0.0, extra[2] = {0.0, 0.0};
    struct ht_repeats_rule rule;
    enum ht_repeats_verdict verdict;
    size_t local[3];
    int rc;

    if (!err)
        err = &local_err;
    ht_error_clear(err);
    /* A spec without parameters has no values to give: config may be NULL then. */
    if (!s || !res || (!config && s->spec->space.nparams))
        return ht_error_set(err, HT_EINVAL, "ht_session_eval: %s is NULL",
                            !s ? "s" : !res ? "res" : "config");
    spec = s->spec;
    repeats = spec->repeats ? spec->repeats : 1;
    if (s->worker) {
        rc = ht__worker_eval(s->worker, s->cut_best, s->cut_factor, config, res, err);
        if (s->pause) /* a worker that crashed or hung while timing told no end */
            ht__prebuild_pause(s->pause, 0);
        return rc;
    }
    result_reset(res);
    memset(&in, 0, sizeof in);
    s->have_outputs = 0;
    if (repeats > HT_MAX_REPEATS)
        repeats = HT_MAX_REPEATS;
    repeats_rule(s, repeats, &rule);

    rc = ht_space_check(&spec->space, s->dev, config, s->opts.eq3, err);
    if (rc != HT_OK)
        goto cleanup;
    /* The space's pruning sees the top-level ndrange only: each stage's own rules. */
    rc = ht_spec_check_stages(spec, s->dev, config, err);
    if (rc != HT_OK)
        goto cleanup;
    if (spec->npipeline && !s->stage_run_s &&
        !(s->stage_run_s = calloc((size_t)HT_MAX_REPEATS * HT_MAX_STAGES,
                                  sizeof *s->stage_run_s))) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    rc = ht__inst_prepare(s, config, &in, res, &write_s, err);
    if (rc != HT_OK)
        goto cleanup;
    for (unsigned d = 0; d < 3; d++)
        local[d] = (size_t)in.local[d];
    res->run_s = malloc(repeats * sizeof *res->run_s);
    if (!res->run_s) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    timed_runs(s, 1);
    for (unsigned r = 0; r < repeats; r++) {
        if (in.nstages)
            rc = ht__inst_run(s, &in, &res->run_s[r],
                              s->stage_run_s + (size_t)r * HT_MAX_STAGES, &restore_s, err);
        else
            rc = ht__inst_launch(s, &in, in.kernel, in.local[0] ? local : NULL,
                                 &res->run_s[r], &restore_s, err);
        if (rc != HT_OK)
            goto cleanup;
        res->nruns = r + 1;
        /* The first launch's wall time beyond the kernel, less a later launch's: what the
         * driver does once (lazy compilation), not what every launch costs. */
        if (r < 2)
            extra[r] = fmax(0.0, s->last_launch_wall_s - res->run_s[r]);
        res->launch_compile_s = fmax(0.0, extra[0] - extra[1]);
        /* Cutting after the last run would save nothing and lose the verification; the
         * first run alone says little, as some drivers (PoCL) finish compiling the kernel
         * for its work-group size at its first launch (ht__repeats_decide knows both). */
        verdict = ht__repeats_decide(&rule, res->run_s, res->nruns);
        if (verdict == HT_REPEATS_CUT_FACTOR || verdict == HT_REPEATS_SLOWER) {
            summarise_runs(res, spec->keep_best);
            summarise_stages(s, &in, res, spec->keep_best);
            res->write_s = write_s + restore_s / res->nruns;
            if (verdict == HT_REPEATS_CUT_FACTOR)
                rc = ht_error_set(err, HT_ECUT,
                                  "cut after %u of %u runs: fastest run %.6g s is more than %g "
                                  "times the best so far (%.6g s)",
                                  res->nruns, repeats, res->kernel_min_s, s->cut_factor,
                                  s->cut_best);
            else
                rc = ht_error_set(err, HT_ECUT,
                                  "cut after %u of %u runs (adaptive): fastest run %.6g s is "
                                  "%.1f%% above the best so far (%.6g s), beyond the margin "
                                  "(%g%%) and the noise of its runs",
                                  res->nruns, repeats, res->kernel_min_s,
                                  100.0 * (res->kernel_min_s / s->cut_best - 1.0),
                                  s->cut_best, 100.0 * ht__repeats_margin(&rule));
            goto cleanup;
        }
        if (verdict != HT_REPEATS_MORE)
            break;
    }
    timed_runs(s, 0);
    summarise_runs(res, spec->keep_best);
    summarise_stages(s, &in, res, spec->keep_best);
    /* The transfers one run needs: read-only inputs once, readwrite ones per run. */
    res->write_s = write_s + restore_s / res->nruns;
    rc = ht__inst_read(s, &in, s->outputs, &res->read_s, err);
    if (rc != HT_OK)
        goto cleanup;
    s->have_outputs = 1;
    res->gflops = rate(spec->flops, in.vars, res->kernel_s);
    res->gbps = rate(spec->bytes, in.vars, res->kernel_s);
    rc = verify(s, config, &in, res, err);
cleanup:
    timed_runs(s, 0); /* an error or a cut within the runs */
    ht__inst_release(&in, spec->nargs);
    res->status = rc;
    return rc;
}

int ht__session_prebuild(struct ht_session *s, const int64_t *config,
                         struct ht_eval_result *res, struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;
    struct ht__inst in;
    double write_s = 0.0;
    unsigned groups = 0;
    int rc;

    result_reset(res);
    memset(&in, 0, sizeof in);
    rc = ht_space_check(&spec->space, s->dev, config, s->opts.eq3, err);
    if (rc == HT_OK)
        rc = ht_spec_check_stages(spec, s->dev, config, err);
    if (rc != HT_OK)
        goto cleanup;
    if (!ht_device_caches_programs(s->dev)) {
        rc = ht__inst_setup(s, config, &in, err);
        if (rc == HT_OK) {
            res->ndims = in.ndims;
            memcpy(res->global, in.global, sizeof res->global);
            memcpy(res->local, in.local, sizeof res->local);
            rc = ht__inst_program(s, config, &in, &res->build_s, &res->cache_hit,
                                  &res->build_log, err);
        }
        goto cleanup;
    }
    /* PoCL compiles a kernel for its local size at its first launch (and keeps it in its
     * cache): a launch of one work-group compiles it as the measured launch would, at a
     * fraction of a run. The reference, the comparison and the readback are the measuring
     * session's: on a CPU device they would take the cores it measures on. */
    rc = ht__inst_prepare(s, config, &in, res, &write_s, err);
    if (rc == HT_OK)
        rc = ht__inst_warm(s, &in, &groups, err);
    if (rc == HT_OK)
        ht__log(HT_LOG_DEBUG, "%s: built ahead, and warmed on %u work-group%s", s->dev->name,
                groups, groups == 1 ? "" : "s");
cleanup:
    ht__inst_release(&in, spec->nargs);
    res->status = rc;
    return rc;
}

int ht__dump_outputs(const struct ht_spec *spec, const struct ht__hostbuf *outputs,
                     const char *dir, struct ht_error *err)
{
    int rc = ht__mkdir_p(dir, err);

    if (rc != HT_OK)
        return rc;
    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *arg = &spec->args[i];
        char *path;
        if (!arg->is_buffer || arg->access == HT_ACCESS_READ || arg->access == HT_ACCESS_TEMP)
            continue;
        path = ht__asprintf("%s/%s.bin", dir, arg->name);
        if (!path)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        rc = ht__write_file(path, outputs[i].data, outputs[i].count * ht_type_size(arg->type),
                            err);
        free(path);
        if (rc != HT_OK)
            return rc;
    }
    return HT_OK;
}

int ht_session_dump(const struct ht_session *s, const char *dir, struct ht_error *err)
{
    if (!s || !dir)
        return ht_error_set(err, HT_EINVAL, "ht_session_dump: %s is NULL", !s ? "s" : "dir");
    if (s->worker)
        return ht__worker_dump(s->worker, dir, err);
    if (!s->have_outputs)
        return ht_error_set(err, HT_EINVAL, "no outputs to dump: no evaluation ran to the end");
    return ht__dump_outputs(s->spec, s->outputs, dir, err);
}
