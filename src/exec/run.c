/* One configuration instantiated on the device: its program and kernel, buffers, scalar
 * arguments, timed launches and read-back. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec-internal.h"
#include "hetune/util.h"
#include "util/util.h"

double ht__event_seconds(cl_event ev, double fallback)
{
    cl_ulong start = 0, end = 0;

    if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) !=
            CL_SUCCESS ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) !=
            CL_SUCCESS ||
        end < start)
        return fallback;
    return (double)(end - start) * 1e-9;
}

/* A blocking host-to-device or device-to-host copy; its time is added to *seconds. */
static int transfer(struct ht_session *s, cl_mem mem, int to_device, void *host, size_t bytes,
                    double *seconds, struct ht_error *err)
{
    cl_event ev = NULL;
    double t0 = ht__now();
    cl_int st;

    if (to_device)
        st = clEnqueueWriteBuffer(s->queue, mem, CL_TRUE, 0, bytes, host, 0, NULL, &ev);
    else
        st = clEnqueueReadBuffer(s->queue, mem, CL_TRUE, 0, bytes, host, 0, NULL, &ev);
    if (st != CL_SUCCESS)
        return ht__cl_fail(err, HT_ECL, st,
                           to_device ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer");
    *seconds += ht__event_seconds(ev, ht__now() - t0);
    clReleaseEvent(ev);
    return HT_OK;
}

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* 1 when the source declares a variable or argument called name (`const int W`, `float *N`)
 * and never names it in a preprocessor line: such a kernel takes the size as an argument,
 * and a -D would turn its declaration into `const int 1024`. A kernel that names it in a
 * directive (#ifndef N) or uses it undeclared gets the -D. */
static int size_is_variable(const char *src, size_t len, const char *name)
{
    static const char *const before[] = {"char", "uchar", "short", "ushort", "int", "uint",
                                         "long", "ulong", "float", "double", "half", "size_t",
                                         "bool", "unsigned", "signed", "const", "restrict",
                                         "volatile"};
    size_t n = strlen(name);
    int declared = 0;

    for (size_t i = 0; i + n <= len; i++) {
        size_t j, k, line;
        if (memcmp(src + i, name, n) != 0 || (i > 0 && ident_char(src[i - 1])) ||
            (i + n < len && ident_char(src[i + n])))
            continue;
        for (line = i; line > 0 && src[line - 1] != '\n'; line--)
            ;
        while (line < i && (src[line] == ' ' || src[line] == '\t'))
            line++;
        if (src[line] == '#')
            return 0;
        for (j = i; j > 0 && (src[j - 1] == ' ' || src[j - 1] == '\t' || src[j - 1] == '\n'); j--)
            ;
        if (j > 0 && src[j - 1] == '*') {
            declared = 1;
            continue;
        }
        for (k = j; k > 0 && ident_char(src[k - 1]); k--)
            ;
        for (size_t w = 0; w < sizeof before / sizeof *before; w++)
            if (j - k == strlen(before[w]) && !memcmp(src + k, before[w], j - k))
                declared = 1;
    }
    return declared;
}

char *ht__build_options(const struct ht_spec *spec, const int64_t *config)
{
    const struct ht_space_def *def = &spec->space;
    size_t cap = strlen(spec->kernel_options) + 1, len = 0;
    char *buf;

    for (size_t i = 0; i < def->nsizes; i++)
        cap += strlen(def->size_names[i]) + 32;
    for (size_t i = 0; i < def->nparams; i++)
        cap += strlen(def->params[i].name) + 32;
    buf = malloc(cap);
    if (!buf)
        return NULL;
    buf[0] = '\0';
    /* The sizes too, so that a kernel that fixes N with #define (#ifndef N) follows --size;
     * but not over a kernel argument of the size's name. */
    for (size_t i = 0; i < def->nsizes; i++)
        if (!spec->source || !size_is_variable(spec->source, spec->source_len, def->size_names[i]))
            len += (size_t)snprintf(buf + len, cap - len, "-D %s=%" PRId64 " ",
                                    def->size_names[i], def->size_values[i]);
    for (size_t i = 0; i < def->nparams; i++)
        len += (size_t)snprintf(buf + len, cap - len, "-D %s=%" PRId64 " ",
                                def->params[i].name, config[i]);
    snprintf(buf + len, cap - len, "%s", spec->kernel_options);
    return buf;
}

/* Evaluates arg i's shape into in->shape[i]; the axes past its own have 1 element. A
 * buffer the device cannot hold in one allocation (only a shape that uses a parameter can
 * get here: ht_session_create refused the others) breaks a platform rule for this
 * configuration, as a work-group too large does. */
static int eval_shape(const struct ht_session *s, struct ht__inst *in, size_t i,
                      struct ht_error *err)
{
    const struct ht_arg *arg = &s->spec->args[i];
    struct ht__hostbuf *b = &in->shape[i];
    uint64_t bytes, limit = s->dev->max_mem_alloc_size;
    char need[32], most[32];
    int rc;

    b->naxes = arg->naxes;
    rc = ht_spec_buffer_bytes(s->spec, i, in->vars, &bytes, b->dims, err);
    if (rc == HT_EOVERFLOW) {
        if (err)
            err->code = HT_ECONSTRAINT;
        return HT_ECONSTRAINT;
    }
    if (rc != HT_OK)
        return rc;
    if (limit && bytes > limit) {
        ht_format_bytes(bytes, need, sizeof need);
        ht_format_bytes(limit, most, sizeof most);
        if (err && !err->code) {
            snprintf(err->file, sizeof err->file, "%s", s->spec->path ? s->spec->path : "");
            snprintf(err->field, sizeof err->field, "args[%zu].shape", i);
        }
        return ht_error_set(err, HT_ECONSTRAINT,
                            "buffer '%s' needs %s (%" PRIu64 " bytes), more than the %s (%" PRIu64
                            " bytes) device '%s' allocates at once (max_mem_alloc_size)",
                            arg->name, need, bytes, most, limit, s->dev->name);
    }
    b->count = (size_t)(bytes / ht_type_size(arg->type));
    return HT_OK;
}

/* Gives b the element count and axes of shape (its data stays). */
static void hostbuf_shape(struct ht__hostbuf *b, const struct ht__hostbuf *shape)
{
    b->count = shape->count;
    b->naxes = shape->naxes;
    memcpy(b->dims, shape->dims, sizeof b->dims);
}

/* Makes s->inputs[i] hold arg i's initial data for count elements. */
static int ensure_input(struct ht_session *s, size_t i, const struct ht__hostbuf *shape,
                        struct ht_error *err)
{
    const struct ht_arg *arg = &s->spec->args[i];
    struct ht__hostbuf *b = &s->inputs[i];
    int rc;

    /* Inputs depend on the name and the count only, so they are made once per size, in
     * the memory the data path wants (pinned for a GPU, page-aligned for in place). */
    if (b->data && b->count == shape->count)
        return HT_OK;
    /* A new count is a new size: the memory held is freed first, not reused. */
    ht__hostbuf_free(b);
    rc = ht__hostmem_alloc(&(struct ht__hostmem_want){.ctx = s->ctx, .queue = s->queue,
                                                      .path = s->path,
                                                      .bytes = shape->count *
                                                               ht_type_size(arg->type),
                                                      .init = arg, .spec = s->spec},
                           &b->mem, err);
    if (rc != HT_OK) {
        b->count = 0;
        return rc;
    }
    b->data = b->mem.data;
    hostbuf_shape(b, shape);
    return HT_OK;
}

static int create_kernel(struct ht_session *s, cl_program prog, const char *name,
                         cl_kernel *out, struct ht_error *err)
{
    cl_int st;
    cl_uint nargs = 0;
    cl_kernel k = clCreateKernel(prog, name, &st);
    int rc;

    *out = NULL;
    if (st == CL_INVALID_KERNEL_NAME) {
        if (err && !err->code)
            snprintf(err->field, sizeof err->field, "%s",
                     name == s->spec->kernel_name ? "kernel.name" : "verify.reference");
        return ht_error_set(err, HT_ESPEC, "no kernel named '%s' in '%s'", name,
                            s->spec->kernel_path);
    }
    if (st != CL_SUCCESS)
        return ht__cl_fail(err, HT_ECL, st, "clCreateKernel");
    st = clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
    if (st != CL_SUCCESS) {
        rc = ht__cl_fail(err, HT_ECL, st, "clGetKernelInfo");
        goto fail;
    }
    rc = ht_spec_check_kernel_args(s->spec, nargs, err);
    if (rc != HT_OK)
        goto fail;
    *out = k;
    return HT_OK;
fail:
    clReleaseKernel(k);
    return rc;
}

/* A scalar argument's value converted to its type; HT_EINVAL when it does not fit. */
static int scalar_value(const struct ht_arg *arg, size_t i, const int64_t *vars, void *out,
                        struct ht_error *err)
{
    int64_t v;
    int rc = ht_expr_eval(arg->value, vars, &v);
    int fits = 1;

    if (rc != HT_OK) {
        if (err && !err->code)
            snprintf(err->field, sizeof err->field, "args[%zu].value", i);
        return ht_error_set(err, HT_EINVAL, "value '%s' of '%s': %s",
                            ht_expr_source(arg->value), arg->name, ht_strerror(rc));
    }
    switch (arg->type) {
    case HT_TYPE_CHAR: fits = v >= INT8_MIN && v <= INT8_MAX; *(int8_t *)out = (int8_t)v; break;
    case HT_TYPE_UCHAR: fits = v >= 0 && v <= UINT8_MAX; *(uint8_t *)out = (uint8_t)v; break;
    case HT_TYPE_SHORT:
        fits = v >= INT16_MIN && v <= INT16_MAX;
        *(int16_t *)out = (int16_t)v;
        break;
    case HT_TYPE_USHORT: fits = v >= 0 && v <= UINT16_MAX; *(uint16_t *)out = (uint16_t)v; break;
    case HT_TYPE_INT:
        fits = v >= INT32_MIN && v <= INT32_MAX;
        *(int32_t *)out = (int32_t)v;
        break;
    case HT_TYPE_UINT: fits = v >= 0 && v <= UINT32_MAX; *(uint32_t *)out = (uint32_t)v; break;
    case HT_TYPE_LONG: *(int64_t *)out = v; break;
    case HT_TYPE_ULONG: fits = v >= 0; *(uint64_t *)out = (uint64_t)v; break;
    case HT_TYPE_FLOAT: *(float *)out = (float)v; break;
    case HT_TYPE_DOUBLE: *(double *)out = (double)v; break;
    default: fits = 0; break;
    }
    if (!fits) {
        if (err && !err->code)
            snprintf(err->field, sizeof err->field, "args[%zu].value", i);
        return ht_error_set(err, HT_EINVAL, "value %" PRId64 " of '%s' does not fit in %s", v,
                            arg->name, ht_type_name(arg->type));
    }
    return HT_OK;
}

int ht__inst_set_args(struct ht_session *s, struct ht__inst *in, cl_kernel k,
                      const size_t *idx, size_t n, struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;

    for (size_t j = 0; j < n; j++) {
        size_t i = idx ? idx[j] : j;
        const struct ht_arg *arg = &spec->args[i];
        cl_int st;
        if (arg->is_buffer) {
            st = clSetKernelArg(k, (cl_uint)j, sizeof(cl_mem), &in->mem[i]);
        } else {
            union { int8_t c; int16_t s; int32_t i; int64_t l; float f; double d; } v;
            int rc = scalar_value(arg, i, in->vars, &v, err);
            if (rc != HT_OK)
                return rc;
            st = clSetKernelArg(k, (cl_uint)j, ht_type_size(arg->type), &v);
        }
        if (st != CL_SUCCESS) {
            char what[300];
            snprintf(what, sizeof what, "clSetKernelArg of '%s'", arg->name);
            return ht__cl_fail(err, HT_ECL, st, what);
        }
    }
    return HT_OK;
}

static int set_args(struct ht_session *s, struct ht__inst *in, cl_kernel k,
                    struct ht_error *err)
{
    return ht__inst_set_args(s, in, k, NULL, s->spec->nargs, err);
}

int ht__inst_kernel(struct ht_session *s, struct ht__inst *in, const char *name,
                    cl_kernel *out, struct ht_error *err)
{
    int rc = create_kernel(s, in->prog, name, out, err);

    if (rc == HT_OK && (rc = set_args(s, in, *out, err)) != HT_OK) {
        clReleaseKernel(*out);
        *out = NULL;
    }
    return rc;
}

int ht__inst_setup(struct ht_session *s, const int64_t *config, struct ht__inst *in,
                   struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;
    const struct ht_space_def *def = &spec->space;
    int rc;

    in->vars = calloc(def->names.count ? def->names.count : 1, sizeof *in->vars);
    in->mem = calloc(spec->nargs ? spec->nargs : 1, sizeof *in->mem);
    in->shape = calloc(spec->nargs ? spec->nargs : 1, sizeof *in->shape);
    in->host = calloc(spec->nargs ? spec->nargs : 1, sizeof *in->host);
    if (!in->vars || !in->mem || !in->shape || !in->host)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    ht_space_vars(def, s->dev, config, in->vars);
    in->ndims = def->ndims;
    rc = ht_space_ndrange(def, in->vars, in->global, in->local, err);
    /* Every buffer's shape now, so a configuration the device cannot hold is refused
     * before its build. */
    for (size_t i = 0; i < spec->nargs && rc == HT_OK; i++)
        if (spec->args[i].is_buffer)
            rc = eval_shape(s, in, i, err);
    return rc;
}

int ht__inst_program(struct ht_session *s, const int64_t *config, struct ht__inst *in,
                     double *build_s, int *cache_hit, char **log, struct ht_error *err)
{
    char *options = ht__build_options(s->spec, config);
    struct ht__program built;
    int rc;

    if (!options)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    rc = ht__program_get(s, options, in->ndims, in->global, &built, err);
    in->prog = built.prog;
    *build_s = built.build_s;
    *cache_hit = built.cache_hit;
    *log = built.log;
    free(options);
    return rc;
}

int ht__inst_buffer(struct ht_session *s, struct ht__inst *in, size_t i, void *host,
                    struct ht_error *err)
{
    const struct ht_arg *arg = &s->spec->args[i];
    size_t bytes = in->shape[i].count * ht_type_size(arg->type);
    cl_mem_flags flags;
    cl_int st;

    flags = arg->access == HT_ACCESS_READ    ? CL_MEM_READ_ONLY
            : arg->access == HT_ACCESS_WRITE ? CL_MEM_WRITE_ONLY
                                             : CL_MEM_READ_WRITE;
    if (host)
        flags |= CL_MEM_USE_HOST_PTR;
    if (in->mem[i])
        clReleaseMemObject(in->mem[i]);
    in->mem[i] = clCreateBuffer(s->ctx, flags, bytes, host, &st);
    in->host[i] = st == CL_SUCCESS ? host : NULL;
    if (st != CL_SUCCESS) {
        char what[300];
        in->mem[i] = NULL;
        snprintf(what, sizeof what, "clCreateBuffer%s of '%s' (%zu bytes)",
                 host ? " (in place)" : "", arg->name, bytes);
        return ht__cl_fail(err, HT_ECL, st, what);
    }
    return HT_OK;
}

int ht__inst_build(struct ht_session *s, const int64_t *config, struct ht__inst *in,
                   double *build_s, int *cache_hit, int *whole_groups, struct ht_error *err)
{
    char *log = NULL, *prologue = NULL;
    int rc = ht__inst_setup(s, config, in, err);

    *whole_groups = 0;
    if (rc != HT_OK)
        return rc;
    rc = ht__inst_program(s, config, in, build_s, cache_hit, &log, err);
    free(log); /* err holds the log's first error line; the rest is for ht_session_eval */
    if (rc != HT_OK)
        return rc;
    if (ht__program_prologue(s->spec, in->ndims, in->global, &prologue) != HT_OK)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    *whole_groups = prologue != NULL;
    free(prologue);
    /* Its buffers are NULL until bound: ht__inst_bind sets the arguments again. */
    return ht__inst_kernel(s, in, s->spec->kernel_name, &in->kernel, err);
}

int ht__inst_bind(struct ht_session *s, struct ht__inst *in, size_t i, void *host,
                  struct ht_error *err)
{
    int rc = ht__inst_buffer(s, in, i, host, err);

    if (rc == HT_OK && in->kernel)
        rc = set_args(s, in, in->kernel, err);
    return rc;
}

int ht__inst_sync(cl_command_queue q, cl_mem mem, size_t bytes, int to_host, void *copy,
                  double *seconds, struct ht_error *err)
{
    double t0 = ht__now(), t_map, t_copy;
    cl_event map_ev = NULL, unmap_ev = NULL;
    cl_int st;
    void *p;

    if (bytes == 0)
        return HT_OK;
    p = clEnqueueMapBuffer(q, mem, CL_TRUE, to_host ? CL_MAP_READ : CL_MAP_WRITE, 0, bytes, 0,
                           NULL, &map_ev, &st);
    if (st != CL_SUCCESS)
        return ht__cl_fail(err, HT_ECL, st, "clEnqueueMapBuffer");
    t_map = ht__now();
    if (copy && to_host)
        memcpy(copy, p, bytes);
    else if (copy)
        memcpy(p, copy, bytes);
    t_copy = ht__now() - t_map;
    st = clEnqueueUnmapMemObject(q, mem, p, 0, NULL, &unmap_ev);
    if (st == CL_SUCCESS)
        st = clFinish(q);
    /* The map and unmap commands' own times, from their profiling events, plus the copy:
     * the blocking map also waits for what the queue holds before it (a kernel). */
    if (st == CL_SUCCESS)
        *seconds += ht__event_seconds(map_ev, t_map - t0) + t_copy +
                    ht__event_seconds(unmap_ev, 0.0);
    if (map_ev)
        clReleaseEvent(map_ev);
    if (unmap_ev)
        clReleaseEvent(unmap_ev);
    if (st != CL_SUCCESS)
        return ht__cl_fail(err, HT_ECL, st, "clEnqueueUnmapMemObject");
    return HT_OK;
}

int ht__inst_poison(struct ht_session *s, struct ht__inst *in, size_t i, struct ht_error *err)
{
    enum ht_type t = s->spec->args[i].type;
    unsigned char pat[8];
    cl_int st;

    ht__poison_pattern(t, pat);
    st = clEnqueueFillBuffer(s->queue, in->mem[i], pat, ht_type_size(t), 0,
                             in->shape[i].count * ht_type_size(t), 0, NULL, NULL);
    if (st != CL_SUCCESS)
        return ht__cl_fail(err, HT_ECL, st, "clEnqueueFillBuffer");
    return HT_OK;
}

int ht__enqueue_wait(cl_command_queue q, cl_kernel k, unsigned ndims, const size_t *global,
                     const size_t *local, cl_event *out, struct ht_error *err)
{
    cl_event ev = NULL;
    cl_int st, exec = CL_COMPLETE;

    *out = NULL;
    st = clEnqueueNDRangeKernel(q, k, ndims, NULL, global, local, 0, NULL, &ev);
    if (st != CL_SUCCESS)
        return ht__cl_fail(err, HT_ELAUNCH, st, "clEnqueueNDRangeKernel");
    st = clWaitForEvents(1, &ev);
    if (clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL) !=
        CL_SUCCESS)
        exec = st;
    if (st != CL_SUCCESS || exec < 0) {
        clReleaseEvent(ev);
        return ht__cl_fail(err, HT_ELAUNCH, exec < 0 ? exec : st, "kernel execution");
    }
    *out = ev;
    return HT_OK;
}

int ht__inst_prepare(struct ht_session *s, const int64_t *config, struct ht__inst *in,
                     struct ht_eval_result *res, double *write_s, struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;
    int rc;

    rc = ht__inst_setup(s, config, in, err);
    if (rc != HT_OK)
        return rc;
    res->ndims = in->ndims;
    memcpy(res->global, in->global, sizeof res->global);
    memcpy(res->local, in->local, sizeof res->local);

    rc = ht__inst_program(s, config, in, &res->build_s, &res->cache_hit, &res->build_log, err);
    if (rc != HT_OK)
        return rc;
    if (spec->npipeline)
        rc = ht__inst_stages(s, in, err);
    else
        rc = create_kernel(s, in->prog, spec->kernel_name, &in->kernel, err);
    if (rc != HT_OK)
        return rc;

    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *arg = &spec->args[i];
        void *host = NULL;

        if (!arg->is_buffer)
            continue;
        if (arg->access != HT_ACCESS_WRITE && arg->access != HT_ACCESS_TEMP) {
            rc = ensure_input(s, i, &in->shape[i], err);
            if (rc != HT_OK)
                return rc;
        }
        /* In place, the device reads the inputs where they are and writes the outputs
         * where ht__inst_read finds them: nothing is copied (DESIGN.md, "Moving data"). */
        if (s->path == HT_PATH_INPLACE && arg->access == HT_ACCESS_READ) {
            host = s->inputs[i].data;
        } else if (s->path == HT_PATH_INPLACE && arg->access != HT_ACCESS_TEMP) {
            struct ht__hostbuf *o = &s->inplace_out[i];
            rc = ht__hostbuf_alloc(o, s->ctx, s->queue, s->path,
                                   in->shape[i].count * ht_type_size(arg->type), err);
            if (rc != HT_OK)
                return rc;
            hostbuf_shape(o, &in->shape[i]);
            host = o->data;
        }
        rc = ht__inst_buffer(s, in, i, host, err);
        if (rc != HT_OK)
            return rc;
        /* Write buffers are poisoned before every run; temp buffers too, and they never
         * leave the device. */
        if (arg->access == HT_ACCESS_WRITE || arg->access == HT_ACCESS_TEMP || host)
            continue;
        /* Read-only inputs go over once per configuration; readwrite buffers are written
         * before every run (ht__inst_launch) since the kernel changes them. */
        if (arg->access == HT_ACCESS_READ) {
            rc = transfer(s, in->mem[i], 1, s->inputs[i].data,
                          in->shape[i].count * ht_type_size(arg->type), write_s, err);
            if (rc != HT_OK)
                return rc;
        }
    }
    if (spec->npipeline)
        return ht__inst_stage_args(s, in, err);
    return set_args(s, in, in->kernel, err);
}

int ht__inst_reset(struct ht_session *s, struct ht__inst *in, double *restore_s,
                   struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;
    int rc;

    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *arg = &spec->args[i];
        size_t bytes = in->shape[i].count * ht_type_size(arg->type);

        if (!arg->is_buffer || arg->access == HT_ACCESS_READ)
            continue;
        if (arg->access == HT_ACCESS_READWRITE && in->host[i])
            rc = ht__inst_sync(s->queue, in->mem[i], bytes, 0, s->inputs[i].data, restore_s,
                               err);
        else if (arg->access == HT_ACCESS_READWRITE)
            rc = transfer(s, in->mem[i], 1, s->inputs[i].data, bytes, restore_s, err);
        else /* poison, so that an element no work-item writes cannot pass verification */
            rc = ht__inst_poison(s, in, i, err);
        if (rc != HT_OK)
            return rc;
    }
    return HT_OK;
}

int ht__inst_launch(struct ht_session *s, struct ht__inst *in, cl_kernel k,
                    const size_t *local, double *kernel_s, double *restore_s,
                    struct ht_error *err)
{
    size_t global[3];
    cl_event ev = NULL;
    double t0;
    int rc;

    rc = ht__inst_reset(s, in, restore_s, err);
    if (rc != HT_OK)
        return rc;
    for (unsigned d = 0; d < 3; d++)
        global[d] = (size_t)in->global[d];
    t0 = ht__now();
    rc = ht__enqueue_wait(s->queue, k, in->ndims, global, local, &ev, err);
    if (rc != HT_OK) {
        clFinish(s->queue); /* leave nothing queued behind for the next configuration */
        return rc;
    }
    s->last_launch_wall_s = ht__now() - t0;
    *kernel_s = ht__event_seconds(ev, s->last_launch_wall_s);
    clReleaseEvent(ev);
    return HT_OK;
}

int ht__inst_run(struct ht_session *s, struct ht__inst *in, double *kernel_s, double *stage_s,
                 double *restore_s, struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;
    cl_event ev[HT_MAX_STAGES] = {NULL};
    size_t n = in->nstages, queued = 0;
    double t0, wall, sum = 0.0;
    cl_int st;
    int rc;

    if (n == 0) {
        size_t local[3];
        for (unsigned d = 0; d < 3; d++)
            local[d] = (size_t)in->local[d];
        rc = ht__inst_launch(s, in, in->kernel, in->local[0] ? local : NULL, kernel_s, restore_s,
                             err);
        if (rc == HT_OK && stage_s)
            stage_s[0] = *kernel_s;
        return rc;
    }
    rc = ht__inst_reset(s, in, restore_s, err);
    if (rc != HT_OK)
        return rc;
    t0 = ht__now();
    /* One in-order queue: each stage sees its predecessors' results without a host round
     * trip, and the temp buffers never leave the device. */
    for (size_t k = 0; k < n; k++) {
        const struct ht__stage_inst *si = &in->stages[k];
        size_t global[3], local[3];
        for (unsigned d = 0; d < 3; d++) {
            global[d] = (size_t)si->global[d];
            local[d] = (size_t)si->local[d];
        }
        st = clEnqueueNDRangeKernel(s->queue, si->kernel, si->ndims, NULL, global,
                                    si->local[0] ? local : NULL, 0, NULL, &ev[k]);
        if (st != CL_SUCCESS) {
            char what[300];
            snprintf(what, sizeof what, "clEnqueueNDRangeKernel of stage %zu ('%s')", si->index,
                     spec->pipeline[si->index].kernel);
            rc = ht__cl_fail(err, HT_ELAUNCH, st, what);
            goto cleanup;
        }
        queued = k + 1;
    }
    st = clWaitForEvents((cl_uint)n, ev);
    wall = ht__now() - t0;
    for (size_t k = 0; k < n; k++) {
        const struct ht__stage_inst *si = &in->stages[k];
        cl_int exec = CL_COMPLETE;
        double t;
        if (clGetEventInfo(ev[k], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec,
                           NULL) != CL_SUCCESS)
            exec = st != CL_SUCCESS ? st : CL_INVALID_EVENT;
        if (exec != CL_COMPLETE) {
            char what[300];
            snprintf(what, sizeof what, "kernel execution of stage %zu ('%s')", si->index,
                     spec->pipeline[si->index].kernel);
            rc = ht__cl_fail(err, HT_ELAUNCH, exec < 0 ? exec : st, what);
            goto cleanup;
        }
        t = ht__event_seconds(ev[k], wall / (double)n);
        if (stage_s)
            stage_s[k] = t;
        sum += t;
    }
    s->last_launch_wall_s = wall;
    *kernel_s = sum;
cleanup:
    for (size_t k = 0; k < queued; k++)
        clReleaseEvent(ev[k]);
    if (rc != HT_OK)
        clFinish(s->queue); /* leave nothing queued behind for the next configuration */
    return rc;
}

/* PoCL's CPU drivers compile a work-group function specialised for grids narrower than
 * this in every dimension ("smallgrid", their grid_width_specialization_limit of
 * USHRT_MAX), and a generic one for wider grids: a warm-up must fall on the same side. */
#define POCL_SMALLGRID_LIMIT 65535u

/* The warm-up's width along one dimension of a launch global wide in groups of local:
 * one group, or the fewest whole groups that reach PoCL's wide-grid limit when the real
 * launch reaches it (never more than global: global is a multiple of local). */
static size_t warm_width(uint64_t global, uint64_t local)
{
    uint64_t w;

    if (global < POCL_SMALLGRID_LIMIT)
        return (size_t)local;
    w = (POCL_SMALLGRID_LIMIT + local - 1) / local * local;
    return (size_t)(w < global ? w : global);
}

int ht__inst_warm(struct ht_session *s, struct ht__inst *in, unsigned *groups,
                  struct ht_error *err)
{
    size_t n = in->nstages ? in->nstages : 1;
    double restore_s = 0.0;
    int rc;

    *groups = 0;
    /* Inputs restored and outputs poisoned as for a measured run: a kernel that reads an
     * index from a buffer reads one it would read then. */
    rc = ht__inst_reset(s, in, &restore_s, err);
    for (size_t k = 0; k < n && rc == HT_OK; k++) {
        const struct ht__stage_inst *si = in->nstages ? &in->stages[k] : NULL;
        cl_kernel kern = si ? si->kernel : in->kernel;
        unsigned ndims = si ? si->ndims : in->ndims;
        const uint64_t *global = si ? si->global : in->global;
        const uint64_t *local = si ? si->local : in->local;
        size_t g[3] = {1, 1, 1}, l[3] = {1, 1, 1};
        unsigned count = 1;
        cl_event ev = NULL;

        for (unsigned d = 0; d < ndims && d < 3; d++) {
            /* A local size left to the runtime is chosen from the whole grid: only the
             * whole grid compiles what the measured launch will use. */
            g[d] = local[0] ? warm_width(global[d], local[d]) : (size_t)global[d];
            l[d] = local[0] ? (size_t)local[d] : 1;
            count *= local[0] ? (unsigned)(g[d] / l[d]) : 0;
        }
        rc = ht__enqueue_wait(s->queue, kern, ndims, g, local[0] ? l : NULL, &ev, err);
        if (ev)
            clReleaseEvent(ev);
        if (rc != HT_OK) {
            clFinish(s->queue);
            break;
        }
        *groups += count;
    }
    return rc;
}

int ht__inst_read(struct ht_session *s, struct ht__inst *in, struct ht__hostbuf *dst,
                  double *read_s, struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;

    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *arg = &spec->args[i];
        size_t bytes = in->shape[i].count * ht_type_size(arg->type);
        int rc;

        if (!arg->is_buffer || arg->access == HT_ACCESS_READ || arg->access == HT_ACCESS_TEMP)
            continue;
        if (in->host[i] && dst[i].data == in->host[i]) {
            /* In place: the outputs are where the device wrote them; the map makes sure. */
            rc = ht__inst_sync(s->queue, in->mem[i], bytes, 1, NULL, read_s, err);
            if (rc != HT_OK)
                return rc;
            continue;
        }
        if (!dst[i].data || dst[i].count != in->shape[i].count) {
            rc = ht__hostbuf_alloc(&dst[i], s->ctx, s->queue, s->path, bytes, err);
            if (rc != HT_OK)
                return rc;
        }
        hostbuf_shape(&dst[i], &in->shape[i]);
        if (in->host[i])
            rc = ht__inst_sync(s->queue, in->mem[i], bytes, 1, dst[i].data, read_s, err);
        else
            rc = transfer(s, in->mem[i], 0, dst[i].data, bytes, read_s, err);
        if (rc != HT_OK)
            return rc;
    }
    return HT_OK;
}

void ht__inst_release(struct ht__inst *in, size_t nargs)
{
    if (in->mem)
        for (size_t i = 0; i < nargs; i++)
            if (in->mem[i])
                clReleaseMemObject(in->mem[i]);
    if (in->kernel)
        clReleaseKernel(in->kernel);
    for (size_t k = 0; k < in->nstages && k < HT_MAX_STAGES; k++)
        if (in->stages[k].kernel)
            clReleaseKernel(in->stages[k].kernel);
    if (in->prog)
        clReleaseProgram(in->prog);
    free(in->mem);
    free(in->host);
    free(in->shape);
    free(in->vars);
    memset(in, 0, sizeof *in);
}
