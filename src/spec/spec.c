/* Loading and validating the JSON spec (the format is in DESIGN.md and docs/spec.md).
 *
 * Validation runs top-down in the order of the format's sections and stops at the first
 * problem, which is reported with the JSON path of the offending field and, found by
 * walking the raw text again (locate.c), its line and column in the file. Expressions are
 * compiled once here against the space's table of names; problems that only the device can
 * reveal (Eq. 1-3, limits) are left to ht_space_check. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "hetune/exec.h"
#include "hetune/spec.h"
#include "spec-internal.h"
#include "util/util.h"

#define MAX_DEPTH 8
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct loader {
    const char *path;    /* what errors name: the file, or ht_spec_load_buffer's name */
    const char *text;    /* the raw file, for positions */
    const char *source;  /* ht_spec_load_buffer's kernel source, or NULL */
    size_t source_len;
    size_t len;
    struct ht_error *err;
    struct ht__json_seg segs[MAX_DEPTH]; /* the JSON path being validated */
    size_t nsegs;
    struct ht_spec *spec;
    int64_t *vars;       /* sizes filled, every other slot 0: evaluates size-only expressions */
};

static const char *const top_fields[] = {
    "name", "description", "kernel", "sizes", "ndrange", "params", "local_mem",
    "constraints", "args", "verify", "timing", "flops", "bytes", "pipeline"};
static const char *const kernel_fields[] = {"file", "source", "name", "options", "language"};
/* The kernel languages a spec may name (enum ht_kernel_language); only OpenCL is built. */
static const char *const language_names[] = {"OpenCL", "CUDA", "HIP"};
static const char *const ndrange_fields[] = {"global", "local"};
static const char *const param_fields[] = {"values", "range", "step", "pow2"};
static const char *const arg_fields[] = {"name", "type", "shape", "access",
                                         "init", "index", "value", "verify"};
static const char *const index_fields[] = {"dim", "halo"};
static const char *const verify_fields[] = {"reference", "kernel", "rtol",    "atol", "args",
                                            "global",    "local",  "outputs", "once"};
static const char *const stage_fields[] = {"kernel", "ndrange", "args", "when"};
static const char *const timing_fields[] = {"repeats", "keep_best", "adaptive", "min_repeats",
                                            "precision", "margin"};
static const char *const dim_names[] = {"gx", "gy", "gz"};
static const char *const access_names[] = {"read", "write", "readwrite", "temp"};
static const char *const init_names[] = {"random", "zero", "iota"};
static const char *const check_names[] = {"all", "written", "sum", "none"}; /* enum ht_check */
static const char *const function_names[] = {"min", "max", "ceil_div", "is_pow2", "log2"};

/* ---- the JSON path and error reports ---------------------------------------------------- */

static void push_key(struct loader *l, const char *key)
{
    if (l->nsegs < MAX_DEPTH) {
        l->segs[l->nsegs].key = key;
        l->segs[l->nsegs].index = 0;
    }
    l->nsegs++;
}

static void push_index(struct loader *l, size_t index)
{
    if (l->nsegs < MAX_DEPTH) {
        l->segs[l->nsegs].key = NULL;
        l->segs[l->nsegs].index = index;
    }
    l->nsegs++;
}

static void pop(struct loader *l)
{
    l->nsegs--;
}

static size_t depth(const struct loader *l)
{
    return l->nsegs < MAX_DEPTH ? l->nsegs : MAX_DEPTH;
}

static void format_path(const struct loader *l, char *buf, size_t size)
{
    size_t n = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < depth(l) && n < size; i++) {
        int w;
        if (l->segs[i].key)
            w = snprintf(buf + n, size - n, "%s%s", i ? "." : "", l->segs[i].key);
        else
            w = snprintf(buf + n, size - n, "[%zu]", l->segs[i].index);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

/* Records the first error, at the current path; at_key points at the last key itself
 * (an unknown or misnamed field) rather than at its value. */
static int vfail(struct loader *l, int code, int at_key, const char *fmt, va_list ap)
{
    struct ht_error *e = l->err;
    size_t off;

    if (!e || e->code)
        return code;
    e->code = code;
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    snprintf(e->file, sizeof e->file, "%s", l->path);
    format_path(l, e->field, sizeof e->field);
    off = ht__json_locate(l->text, l->len, l->segs, depth(l), at_key);
    ht__line_col(l->text, l->len, off, &e->line, &e->column);
    return code;
}

static int fail(struct loader *l, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct loader *l, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(l, code, 0, fmt, ap);
    va_end(ap);
    return code;
}

static int fail_key(struct loader *l, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_key(struct loader *l, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(l, code, 1, fmt, ap);
    va_end(ap);
    return code;
}

static int nomem(struct loader *l)
{
    return fail(l, HT_ENOMEM, "out of memory");
}

/* An expression that did not compile: point at the offending character in the file. */
static int expr_fail(struct loader *l, const struct ht_error *ee, int rc, const char *src)
{
    struct ht_error *e = l->err;
    int code = rc == HT_ENOMEM ? HT_ENOMEM : HT_EEXPR;
    const char *why = ee->text[0] ? ee->text : ht_strerror(rc);
    size_t quote, at;

    if (!e || e->code)
        return code;
    e->code = code;
    snprintf(e->file, sizeof e->file, "%s", l->path);
    format_path(l, e->field, sizeof e->field);
    quote = ht__json_locate(l->text, l->len, l->segs, depth(l), 0);
    at = ht__json_string_offset(l->text, l->len, quote, ee->column > 0 ? ee->column : 1);
    if (at != (size_t)-1) {
        ht__line_col(l->text, l->len, at, &e->line, &e->column);
        snprintf(e->text, sizeof e->text, "%.1500s in '%.300s'", why, src);
    } else {
        e->line = 0;
        e->column = ee->column;
        snprintf(e->text, sizeof e->text, "%.1500s at column %d of '%.300s'", why, ee->column, src);
    }
    return code;
}

/* ---- small checks ----------------------------------------------------------------------- */

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

static void join_words(const char *const *w, size_t n, const char *last_sep, char *buf,
                       size_t size)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n && used < size; i++) {
        int k = snprintf(buf + used, size - used, "%s%s",
                         i == 0 ? "" : (i + 1 == n ? last_sep : ", "), w[i]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

/* A hint for a misspelt word: " (did you mean 'x'? expected a, b or c)", or without the
 * guess when no word is close. extra is appended to the list of words when not NULL. */
static void hint(const char *s, const char *const *words, size_t n, const char *extra,
                 char *buf, size_t size)
{
    const char *guess = ht_closest_word(s, words, n);
    char list[256];

    if (extra) {
        const char *all[16];
        for (size_t i = 0; i < n && i < 15; i++)
            all[i] = words[i];
        all[n < 15 ? n : 15] = extra;
        join_words(all, (n < 15 ? n : 15) + 1, " or ", list, sizeof list);
    } else {
        join_words(words, n, " or ", list, sizeof list);
    }
    if (guess)
        snprintf(buf, size, " (did you mean '%s'? expected %s)", guess, list);
    else
        snprintf(buf, size, " (expected %s)", list);
}

static int check_fields(struct loader *l, json_t *obj, const char *const *known, size_t n)
{
    for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
        const char *key = json_object_iter_key(it);
        size_t i = 0;

        while (i < n && strcmp(key, known[i]) != 0)
            i++;
        if (i < n)
            continue;
        const char *guess = ht_closest_word(key, known, n);
        char list[600];
        push_key(l, key);
        if (guess)
            return fail_key(l, HT_ESPEC, "unknown field '%s' (did you mean '%s'?)", key, guess);
        join_words(known, n, ", ", list, sizeof list);
        return fail_key(l, HT_ESPEC, "unknown field '%s' (known fields: %s)", key, list);
    }
    return 0;
}

/* The field key of obj in *out; when it is missing, an error if required, else NULL. */
static int field(struct loader *l, json_t *obj, const char *key, int required, json_t **out)
{
    *out = json_object_get(obj, key);
    if (*out || !required)
        return 0;
    push_key(l, key);
    return fail(l, HT_ESPEC, "missing required field '%s'", key);
}

static int want_object(struct loader *l, json_t *v)
{
    if (json_is_object(v))
        return 0;
    return fail(l, HT_ESPEC, "must be an object, not %s", json_kind(v));
}

static int want_array(struct loader *l, json_t *v)
{
    if (json_is_array(v))
        return 0;
    return fail(l, HT_ESPEC, "must be an array, not %s", json_kind(v));
}

/* The string field key of obj (NULL when optional and absent). */
static int get_string(struct loader *l, json_t *obj, const char *key, int required,
                      const char **out)
{
    json_t *v;
    int rc = field(l, obj, key, required, &v);

    *out = NULL;
    if (rc || !v)
        return rc;
    if (!json_is_string(v)) {
        push_key(l, key);
        return fail(l, HT_ESPEC, "must be a string, not %s", json_kind(v));
    }
    *out = json_string_value(v);
    return 0;
}

static char *dup_or_fail(struct loader *l, const char *s)
{
    char *d = ht__strdup(s);
    if (!d)
        nomem(l);
    return d;
}

static int is_identifier(const char *s)
{
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

static int word_index(const char *s, const char *const *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(s, words[i]))
            return (int)i;
    return -1;
}

/* A size or parameter name (the current path's last key): an identifier that no other
 * name of the expression language already means. */
static int check_name(struct loader *l, const char *name, const char *what)
{
    const struct ht_space_def *d = &l->spec->space;
    const char *reserved;

    if (!is_identifier(name))
        return fail_key(l, HT_ESPEC,
                        "'%s' is not a valid %s name (letters, digits and '_', not starting "
                        "with a digit)", name, what);
    if (word_index(name, dim_names, COUNT(dim_names)) >= 0)
        return fail_key(l, HT_ESPEC,
                        "%s name '%s' is reserved: gx, gy and gz name the global id dimensions",
                        what, name);
    if (word_index(name, ht_device_var_names, HT_DEVICE_NVARS) >= 0)
        return fail_key(l, HT_ESPEC,
                        "%s name '%s' clashes with the device variable of the same name",
                        what, name);
    if (word_index(name, function_names, COUNT(function_names)) >= 0)
        return fail_key(l, HT_ESPEC, "%s name '%s' clashes with the function of the same name",
                        what, name);
    for (size_t i = 0; i < d->nsizes; i++)
        if (!strcmp(d->size_names[i], name))
            return fail_key(l, HT_ESPEC, "%s name '%s' clashes with the size of the same name "
                            "(sizes.%s): both would reach the kernel as -D %s=VALUE", what,
                            name, name, name);
    /* Sizes and parameters become macros of an OpenCL kernel's build (a CUDA or HIP kernel
     * is never built here). */
    if (l->spec->language == HT_LANG_OPENCL && (reserved = ht__opencl_reserved(name)))
        return fail_key(l, HT_ESPEC, "%s name '%s' is %s: as -D %s=VALUE it would break the "
                        "kernel's build; rename the %s", what, name, reserved, name, what);
    return 0;
}

static const char *lower_strerror(int e, char *buf, size_t size)
{
    snprintf(buf, size, "%s", strerror(e));
    buf[0] = (char)tolower((unsigned char)buf[0]);
    return buf;
}

/* ---- expressions -------------------------------------------------------------------------- */

/* Compiles the value at the current path: a JSON integer or an expression string. */
static int compile(struct loader *l, json_t *v, struct ht_expr **out)
{
    char num[32];
    const char *src;
    struct ht_error ee;
    int rc;

    if (json_is_integer(v)) {
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        src = num;
    } else if (json_is_string(v)) {
        src = json_string_value(v);
    } else {
        return fail(l, HT_ESPEC, "must be an integer or an expression string, not %s",
                    json_kind(v));
    }
    ht_error_clear(&ee);
    rc = ht_expr_compile(src, &l->spec->space.names, out, &ee);
    if (rc != HT_OK)
        return expr_fail(l, &ee, rc, src);
    return 0;
}

/* 1 when e reads nothing but sizes, so it can be evaluated now. */
static int size_only(const struct loader *l, const struct ht_expr *e)
{
    return ht_expr_max_slot(e) < (long)l->spec->space.nsizes;
}

static int eval_now(struct loader *l, const struct ht_expr *e, int64_t *v)
{
    int rc = ht_expr_eval(e, l->vars, v);
    if (rc != HT_OK)
        return fail(l, HT_EEXPR, "'%s' cannot be evaluated: %s", ht_expr_source(e),
                    ht_strerror(rc));
    return 0;
}

/* An NDRange or shape extent: compiled, and positive when it depends on sizes only. */
static int compile_extent(struct loader *l, json_t *v, struct ht_expr **out)
{
    int64_t x;
    int rc = compile(l, v, out);

    if (rc || !size_only(l, *out))
        return rc;
    if ((rc = eval_now(l, *out, &x)) != 0)
        return rc;
    if (x <= 0)
        return fail(l, HT_ESPEC, "'%s' is %" PRId64 ", but a size must be positive",
                    ht_expr_source(*out), x);
    return 0;
}

/* A range bound or step may not depend on another parameter's value. */
static int no_params(struct loader *l, const struct ht_expr *e)
{
    const struct ht_space_def *d = &l->spec->space;

    for (size_t i = 0; i < d->nparams; i++)
        if (ht_expr_uses(e, ht_space_param_slot(d, i)))
            return fail(l, HT_EEXPR,
                        "'%s' uses the parameter '%s': range bounds and steps may use sizes "
                        "and device variables only", ht_expr_source(e), d->params[i].name);
    return 0;
}

/* The optional top-level expression key. */
static int optional_expr(struct loader *l, json_t *root, const char *key, struct ht_expr **out)
{
    json_t *v = json_object_get(root, key);
    int rc;

    if (!v)
        return 0;
    push_key(l, key);
    rc = compile(l, v, out);
    pop(l);
    return rc;
}

/* ---- sections ----------------------------------------------------------------------------- */

/* The kernel's text when it does not come from kernel.file: ht_spec_load_buffer's source,
 * or kernel.source written in the spec. kernel_path then names it for messages (a build
 * log's positions, "no kernel named ..."): kernel.file when given, else a label. */
static int kernel_text(struct loader *l, const char *file, const char *inline_src)
{
    struct ht_spec *spec = l->spec;
    const char *text = l->source ? l->source : inline_src;
    size_t len = l->source ? l->source_len : strlen(inline_src);

    if (file && file[0])
        spec->kernel_path = ht__path_join(spec->dir, file);
    else
        spec->kernel_path = ht__asprintf("%s:kernel%s", l->path, l->source ? "" : ".source");
    if (!spec->kernel_path || !(spec->source = malloc(len + 1)))
        return nomem(l);
    memcpy(spec->source, text, len);
    spec->source[len] = '\0';
    spec->source_len = len;
    return 0;
}

static int load_kernel(struct loader *l, json_t *root)
{
    struct ht_spec *spec = l->spec;
    struct ht_error rerr;
    const char *file = NULL, *source = NULL, *name, *options, *language = NULL;
    json_t *k;
    char why[256];
    int rc;

    if ((rc = field(l, root, "kernel", 1, &k)) != 0)
        return rc;
    push_key(l, "kernel");
    if ((rc = want_object(l, k)) || (rc = check_fields(l, k, kernel_fields, COUNT(kernel_fields))))
        return rc;
    /* kernel.file is required unless the source is in the spec (kernel.source) or given
     * beside it (ht_spec_load_buffer), where a file, when named, is only a label. */
    if ((rc = get_string(l, k, "source", 0, &source)) ||
        (rc = get_string(l, k, "file", 0, &file)) ||
        (rc = get_string(l, k, "name", 1, &name)) ||
        (rc = get_string(l, k, "options", 0, &options)) ||
        (rc = get_string(l, k, "language", 0, &language)))
        return rc;
    if (!file && !source && !l->source) {
        push_key(l, "file");
        return fail(l, HT_ESPEC, "missing required field 'file' (or 'source', the kernel's "
                    "text in the spec)");
    }
    if (language) {
        size_t i;
        push_key(l, "language");
        for (i = 0; i < COUNT(language_names) && strcmp(language_names[i], language); i++)
            ;
        if (i == COUNT(language_names))
            return fail(l, HT_ESPEC, "'%s' is not a kernel language hetune knows (OpenCL, or "
                        "CUDA and HIP for replaying a recorded space)", language);
        spec->language = (enum ht_kernel_language)i;
        pop(l);
    }
    push_key(l, "name");
    if (!is_identifier(name))
        return fail(l, HT_ESPEC, "'%s' is not a valid kernel name", name);
    pop(l);
    if (!(spec->kernel_name = dup_or_fail(l, name)) ||
        !(spec->kernel_options = dup_or_fail(l, options ? options : "")))
        return HT_ENOMEM;
    if (source) {
        push_key(l, "source");
        if (l->source)
            return fail_key(l, HT_ESPEC, "the kernel's source is given twice: here and to "
                            "ht_spec_load_buffer; give one");
        if (file)
            return fail_key(l, HT_ESPEC, "give kernel.file or kernel.source, not both");
        if (!source[0])
            return fail(l, HT_ESPEC, "must hold the kernel's source");
        pop(l);
    }
    if (l->source && !l->source_len)
        return fail(l, HT_ESPEC, "the kernel source given beside the spec is empty");
    if (source || l->source) {
        if ((rc = kernel_text(l, file, source)) != 0)
            return rc;
        pop(l);
        return 0;
    }
    push_key(l, "file");
    if (!file[0])
        return fail(l, HT_ESPEC, "must name the kernel's source file");
    if (!(spec->kernel_path = ht__path_join(spec->dir, file)))
        return nomem(l);
    /* A CUDA or HIP kernel is never built (its recorded space is replayed): its source,
     * when present, only names the kernel in the results database. */
    if (spec->language != HT_LANG_OPENCL && access(spec->kernel_path, R_OK) != 0) {
        if (!(spec->source = dup_or_fail(l, "")))
            return HT_ENOMEM;
        pop(l);
        pop(l);
        return 0;
    }
    if (access(spec->kernel_path, R_OK) != 0)
        return fail(l, HT_ESPEC, "cannot read kernel file '%s': %s", spec->kernel_path,
                    lower_strerror(errno, why, sizeof why));
    ht_error_clear(&rerr);
    if (ht__read_file(spec->kernel_path, &spec->source, &spec->source_len, &rerr) != 0)
        return fail(l, rerr.code == HT_ENOMEM ? HT_ENOMEM : HT_ESPEC, "%s%s%s", rerr.file,
                    rerr.file[0] ? ": " : "", rerr.text);
    pop(l);
    pop(l);
    return 0;
}

static int load_sizes(struct loader *l, json_t *root, const struct ht_size_override *ov,
                      size_t nov)
{
    struct ht_space_def *d = &l->spec->space;
    json_t *s = json_object_get(root, "sizes");
    size_t n;
    int rc;

    if (s) {
        push_key(l, "sizes");
        if ((rc = want_object(l, s)))
            return rc;
        n = json_object_size(s);
        d->size_names = calloc(n ? n : 1, sizeof *d->size_names);
        d->size_values = calloc(n ? n : 1, sizeof *d->size_values);
        if (!d->size_names || !d->size_values)
            return nomem(l);
        for (void *it = json_object_iter(s); it; it = json_object_iter_next(s, it)) {
            const char *key = json_object_iter_key(it);
            json_t *v = json_object_iter_value(it);

            push_key(l, key);
            if ((rc = check_name(l, key, "size")))
                return rc;
            if (!json_is_integer(v))
                return fail(l, HT_ESPEC, "size '%s' must be an integer, not %s", key,
                            json_kind(v));
            if (!(d->size_names[d->nsizes] = dup_or_fail(l, key)))
                return HT_ENOMEM;
            d->size_values[d->nsizes++] = json_integer_value(v);
            pop(l);
        }
        pop(l);
    }
    for (size_t i = 0; i < nov; i++) {
        size_t j = 0;
        while (j < d->nsizes && strcmp(d->size_names[j], ov[i].name) != 0)
            j++;
        if (j == d->nsizes) {
            struct ht_error *e = l->err;
            if (e && !e->code) {
                e->line = e->column = 0;
                e->field[0] = '\0';
                snprintf(e->file, sizeof e->file, "%s", l->path);
            }
            return ht_error_set(e, HT_EINVAL, "unknown size '%s' in --size%s", ov[i].name,
                                d->nsizes ? "" : " (the spec has no sizes)");
        }
        d->size_values[j] = ov[i].value;
    }
    return 0;
}

static int load_param_names(struct loader *l, json_t *params)
{
    struct ht_space_def *d = &l->spec->space;
    size_t n = json_object_size(params);
    int rc;

    push_key(l, "params");
    if ((rc = want_object(l, params)))
        return rc;
    n = json_object_size(params);
    if (!(d->params = calloc(n ? n : 1, sizeof *d->params)))
        return nomem(l);
    for (void *it = json_object_iter(params); it; it = json_object_iter_next(params, it)) {
        const char *key = json_object_iter_key(it);
        json_t *v = json_object_iter_value(it);

        push_key(l, key);
        if ((rc = check_name(l, key, "parameter")))
            return rc;
        if (!json_is_object(v))
            return fail(l, HT_ESPEC,
                        "must be an object such as {\"values\": [1, 2, 4]} or {\"range\": [1, "
                        "16]}, not %s", json_kind(v));
        if ((rc = check_fields(l, v, param_fields, COUNT(param_fields))))
            return rc;
        if (!(d->params[d->nparams++].name = dup_or_fail(l, key)))
            return HT_ENOMEM;
        pop(l);
    }
    pop(l);
    return 0;
}

/* The table every expression compiles against: sizes, parameters, device variables. */
static int build_names(struct loader *l)
{
    struct ht_space_def *d = &l->spec->space;
    size_t count = d->nsizes + d->nparams + HT_DEVICE_NVARS;
    const char **names = calloc(count, sizeof *names);

    if (!names || !(l->vars = calloc(count, sizeof *l->vars))) {
        free(names);
        return nomem(l);
    }
    for (size_t i = 0; i < d->nsizes; i++) {
        names[i] = d->size_names[i];
        l->vars[i] = d->size_values[i];
    }
    for (size_t i = 0; i < d->nparams; i++)
        names[d->nsizes + i] = d->params[i].name;
    for (size_t v = 0; v < HT_DEVICE_NVARS; v++)
        names[d->nsizes + d->nparams + v] = ht_device_var_names[v];
    d->names.count = count;
    d->names.names = names;
    return 0;
}

struct value_at {
    int64_t value;
    size_t index;
};

static int by_value_then_index(const void *a, const void *b)
{
    const struct value_at *x = a, *y = b;

    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The first index i of values[0..n) whose value appears before i, n when none does, or
 * (size_t)-1 when out of memory. In O(n log n): a parameter may list hundreds of thousands
 * of values. When none repeats and sorted is not NULL, *sorted is the values in increasing
 * order, owned by the caller (free()). */
static size_t first_repeat(const int64_t *values, size_t n, int64_t **sorted)
{
    struct value_at *v = malloc((n ? n : 1) * sizeof *v);
    size_t first = n;

    if (!v)
        return (size_t)-1;
    for (size_t i = 0; i < n; i++)
        v[i] = (struct value_at){values[i], i};
    qsort(v, n, sizeof *v, by_value_then_index);
    /* Within a run of equal values, the second index is that value's first repeat. */
    for (size_t k = 1; k < n; k++)
        if (v[k].value == v[k - 1].value && (k < 2 || v[k - 2].value != v[k].value) &&
            v[k].index < first)
            first = v[k].index;
    if (first == n && sorted) {
        if (!(*sorted = malloc((n ? n : 1) * sizeof **sorted)))
            first = (size_t)-1;
        for (size_t k = 0; k < n && *sorted; k++)
            (*sorted)[k] = v[k].value;
    }
    free(v);
    return first;
}

static int load_values(struct loader *l, struct ht_param *p, json_t *values)
{
    size_t n, bad, dup;
    int rc;

    push_key(l, "values");
    if ((rc = want_array(l, values)))
        return rc;
    n = json_array_size(values);
    if (n == 0)
        return fail(l, HT_ESPEC, "values must not be empty");
    if (!(p->values = calloc(n, sizeof *p->values)))
        return nomem(l);
    for (bad = 0; bad < n && json_is_integer(json_array_get(values, bad)); bad++)
        p->values[p->nvalues++] = json_integer_value(json_array_get(values, bad));
    /* The first error in the array's order: a repeat before the first non-integer. */
    if ((dup = first_repeat(p->values, bad, bad == n ? &p->sorted : NULL)) == (size_t)-1)
        return nomem(l);
    if (dup < bad) {
        push_index(l, dup);
        return fail(l, HT_ESPEC, "value %" PRId64 " appears twice in '%s'", p->values[dup],
                    p->name);
    }
    if (bad < n) {
        push_index(l, bad);
        return fail(l, HT_ESPEC, "a value must be an integer, not %s",
                    json_kind(json_array_get(values, bad)));
    }
    pop(l);
    return 0;
}

static int load_range(struct loader *l, struct ht_param *p, json_t *obj, json_t *range)
{
    json_t *step = json_object_get(obj, "step"), *pow2 = json_object_get(obj, "pow2");
    int64_t lo, hi, st;
    int rc;

    push_key(l, "range");
    if ((rc = want_array(l, range)))
        return rc;
    if (json_array_size(range) != 2)
        return fail(l, HT_ESPEC, "a range is [lo, hi], not %zu values", json_array_size(range));
    for (size_t i = 0; i < 2; i++) {
        push_index(l, i);
        if ((rc = compile(l, json_array_get(range, i), i ? &p->hi : &p->lo)) ||
            (rc = no_params(l, i ? p->hi : p->lo)))
            return rc;
        pop(l);
    }
    pop(l);
    if (pow2) {
        push_key(l, "pow2");
        if (!json_is_boolean(pow2))
            return fail(l, HT_ESPEC, "must be true or false, not %s", json_kind(pow2));
        p->pow2 = json_is_true(pow2);
        if (p->pow2 && step)
            return fail(l, HT_ESPEC, "pow2 and step cannot be used together");
        pop(l);
    }
    if (step) {
        push_key(l, "step");
        if (json_is_integer(step) && json_integer_value(step) <= 0)
            return fail(l, HT_ESPEC, "step must be a positive integer, not %" JSON_INTEGER_FORMAT,
                        json_integer_value(step));
        if ((rc = compile(l, step, &p->step)) || (rc = no_params(l, p->step)))
            return rc;
        if (size_only(l, p->step)) {
            if ((rc = eval_now(l, p->step, &st)))
                return rc;
            if (st <= 0)
                return fail(l, HT_ESPEC, "step must be positive, but '%s' is %" PRId64,
                            ht_expr_source(p->step), st);
        }
        pop(l);
    }
    /* With bounds that do not depend on the device, an empty domain is a mistake now. */
    if (size_only(l, p->lo) && size_only(l, p->hi)) {
        push_key(l, "range");
        if ((rc = eval_now(l, p->lo, &lo)) || (rc = eval_now(l, p->hi, &hi)))
            return rc;
        if (lo > hi)
            return fail(l, HT_ESPEC, "range is reversed: %" PRId64 " > %" PRId64, lo, hi);
        if (p->pow2) {
            int64_t v = 1;
            while (v < lo && v <= INT64_MAX / 2)
                v *= 2;
            if (v < lo || v > hi)
                return fail(l, HT_ESPEC, "range [%" PRId64 ", %" PRId64 "] holds no power of two",
                            lo, hi);
        }
        pop(l);
    }
    return 0;
}

static int load_param_domains(struct loader *l, json_t *params)
{
    struct ht_space_def *d = &l->spec->space;
    size_t i = 0;
    int rc;

    push_key(l, "params");
    for (void *it = json_object_iter(params); it; it = json_object_iter_next(params, it), i++) {
        const char *key = json_object_iter_key(it);
        json_t *v = json_object_iter_value(it);
        json_t *values = json_object_get(v, "values"), *range = json_object_get(v, "range");
        struct ht_param *p = &d->params[i];

        push_key(l, key);
        if (values && range)
            return fail(l, HT_ESPEC, "parameter '%s' has both 'values' and 'range'; give one",
                        key);
        if (!values && !range)
            return fail(l, HT_ESPEC,
                        "parameter '%s' needs 'values' (a list) or 'range' ([lo, hi])", key);
        if (values) {
            const char *extra = json_object_get(v, "step") ? "step" :
                                json_object_get(v, "pow2") ? "pow2" : NULL;
            if (extra) {
                push_key(l, extra);
                return fail_key(l, HT_ESPEC, "'%s' applies to a range, not to values", extra);
            }
            p->kind = HT_PARAM_VALUES;
            rc = load_values(l, p, values);
        } else {
            p->kind = HT_PARAM_RANGE;
            rc = load_range(l, p, v, range);
        }
        if (rc)
            return rc;
        pop(l);
    }
    pop(l);
    return 0;
}

/* The ndrange object nd (the current path) into ndims, global[] and local[]: shared by the
 * top-level ndrange and the stages of a pipeline. */
static int ndrange_body(struct loader *l, json_t *nd, unsigned *ndims, struct ht_expr **glob,
                        struct ht_expr **loc)
{
    json_t *global, *local;
    size_t n;
    int rc;

    if ((rc = want_object(l, nd)) ||
        (rc = check_fields(l, nd, ndrange_fields, COUNT(ndrange_fields))) ||
        (rc = field(l, nd, "global", 1, &global)))
        return rc;
    push_key(l, "global");
    if ((rc = want_array(l, global)))
        return rc;
    n = json_array_size(global);
    if (n < 1 || n > 3)
        return fail(l, HT_ESPEC, "global must have 1 to 3 dimensions, not %zu", n);
    *ndims = (unsigned)n;
    for (size_t i = 0; i < n; i++) {
        push_index(l, i);
        if ((rc = compile_extent(l, json_array_get(global, i), &glob[i])))
            return rc;
        pop(l);
    }
    pop(l);
    local = json_object_get(nd, "local");
    if (local) {
        push_key(l, "local");
        if ((rc = want_array(l, local)))
            return rc;
        if (json_array_size(local) != n)
            return fail(l, HT_ESPEC, "local has %zu dimension%s but global has %zu",
                        json_array_size(local), json_array_size(local) == 1 ? "" : "s", n);
        for (size_t i = 0; i < n; i++) {
            push_index(l, i);
            if ((rc = compile_extent(l, json_array_get(local, i), &loc[i])))
                return rc;
            pop(l);
        }
        pop(l);
    }
    return 0;
}

static int load_ndrange(struct loader *l, json_t *root)
{
    struct ht_space_def *d = &l->spec->space;
    json_t *nd;
    int rc;

    if ((rc = field(l, root, "ndrange", 1, &nd)))
        return rc;
    push_key(l, "ndrange");
    if ((rc = ndrange_body(l, nd, &d->ndims, d->global, d->local)))
        return rc;
    pop(l);
    return 0;
}

static int load_constraints(struct loader *l, json_t *root)
{
    struct ht_space_def *d = &l->spec->space;
    json_t *c = json_object_get(root, "constraints");
    size_t n;
    int rc;

    if (!c)
        return 0;
    push_key(l, "constraints");
    if ((rc = want_array(l, c)))
        return rc;
    n = json_array_size(c);
    if (!(d->constraints = calloc(n ? n : 1, sizeof *d->constraints)))
        return nomem(l);
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(c, i);
        struct ht_constraint *k = &d->constraints[d->nconstraints++];

        push_index(l, i);
        if (!json_is_string(v))
            return fail(l, HT_ESPEC, "a constraint must be an expression string, not %s",
                        json_kind(v));
        if ((rc = compile(l, v, &k->expr)))
            return rc;
        if (!(k->origin = ht__asprintf("constraints[%zu]", i)))
            return nomem(l);
        pop(l);
    }
    pop(l);
    return 0;
}

static int parse_dim(struct loader *l, const char *s)
{
    char h[400];
    int dim = word_index(s, dim_names, COUNT(dim_names));

    if (dim < 0) {
        hint(s, dim_names, COUNT(dim_names), NULL, h, sizeof h);
        return fail(l, HT_ESPEC, "unknown index dimension '%s'%s", s, h);
    }
    if ((unsigned)dim >= l->spec->space.ndims)
        return fail(l, HT_ESPEC, "'%s' is not a dimension of the %u-dimensional ndrange", s,
                    l->spec->space.ndims);
    return dim;
}

static int load_index(struct loader *l, struct ht_arg *a, json_t *index)
{
    int rc;

    push_key(l, "index");
    if ((rc = want_array(l, index)))
        return rc;
    if (json_array_size(index) != a->naxes)
        return fail(l, HT_ESPEC, "index has %zu entr%s but shape has %u ax%s",
                    json_array_size(index), json_array_size(index) == 1 ? "y" : "ies", a->naxes,
                    a->naxes == 1 ? "is" : "es");
    a->has_index = 1;
    for (size_t i = 0; i < a->naxes; i++) {
        json_t *v = json_array_get(index, i);
        struct ht_axis_index *ax = &a->index[i];

        push_index(l, i);
        ax->dim = -1;
        if (json_is_string(v)) {
            if ((rc = parse_dim(l, json_string_value(v))) < 0)
                return rc;
            ax->dim = rc;
        } else if (json_is_object(v)) {
            const char *dim;
            json_t *halo;
            int64_t x;

            if ((rc = check_fields(l, v, index_fields, COUNT(index_fields))) ||
                (rc = get_string(l, v, "dim", 1, &dim)))
                return rc;
            push_key(l, "dim");
            if ((rc = parse_dim(l, dim)) < 0)
                return rc;
            ax->dim = rc;
            pop(l);
            halo = json_object_get(v, "halo");
            if (halo) {
                push_key(l, "halo");
                if ((rc = compile(l, halo, &ax->halo)))
                    return rc;
                if (size_only(l, ax->halo)) {
                    if ((rc = eval_now(l, ax->halo, &x)))
                        return rc;
                    if (x < 0)
                        return fail(l, HT_ESPEC, "halo '%s' is %" PRId64 ", but must not be "
                                    "negative", ht_expr_source(ax->halo), x);
                }
                pop(l);
            }
        } else if (!json_is_null(v)) {
            return fail(l, HT_ESPEC,
                        "an index entry is null, \"gx\", \"gy\", \"gz\" or {\"dim\": \"gx\", "
                        "\"halo\": ...}, not %s", json_kind(v));
        }
        pop(l);
    }
    pop(l);
    return 0;
}

static int load_init(struct loader *l, struct ht_arg *a, const char *init)
{
    struct ht_spec *spec = l->spec;
    struct ht_error rerr;
    char why[256], h[400];
    FILE *f;
    int k;

    push_key(l, "init");
    if (!strncmp(init, "file:", 5)) {
        if (!init[5])
            return fail(l, HT_ESPEC, "'file:' needs a path after it");
        a->init = HT_INIT_FILE;
        if (!(a->init_path = ht__path_join(spec->dir, init + 5)))
            return nomem(l);
        if (access(a->init_path, R_OK) != 0)
            return fail(l, HT_ESPEC, "cannot read init file '%s': %s", a->init_path,
                        lower_strerror(errno, why, sizeof why));
        /* Readable is not enough: a folder is too, and fails only once the data is made. */
        ht_error_clear(&rerr);
        if (ht__open_regular(a->init_path, &f, NULL, &rerr) != HT_OK)
            return fail(l, HT_ESPEC, "init file %s%s%s", rerr.file, rerr.file[0] ? ": " : "",
                        rerr.text);
        fclose(f);
    } else if ((k = word_index(init, init_names, COUNT(init_names))) >= 0) {
        a->init = (enum ht_init)k;
    } else {
        hint(init, init_names, COUNT(init_names), "file:PATH", h, sizeof h);
        return fail(l, HT_ESPEC, "unknown init '%s'%s", init, h);
    }
    pop(l);
    return 0;
}

/* The buffer's optional "verify": how verification compares it (write and readwrite
 * buffers only, which are the ones compared). */
static int load_check(struct loader *l, struct ht_arg *a, json_t *obj)
{
    const char *check;
    char h[400];
    int k, rc;

    if ((rc = get_string(l, obj, "verify", 0, &check)) || !check)
        return rc;
    push_key(l, "verify");
    if (a->access == HT_ACCESS_READ || a->access == HT_ACCESS_TEMP)
        return fail_key(l, HT_ESPEC, "%s buffer '%s' is never compared: 'verify' is for write "
                        "and readwrite buffers", access_names[a->access], a->name);
    if ((k = word_index(check, check_names, COUNT(check_names))) < 0) {
        hint(check, check_names, COUNT(check_names), NULL, h, sizeof h);
        return fail(l, HT_ESPEC, "unknown verify '%s'%s", check, h);
    }
    a->check = (enum ht_check)k;
    pop(l);
    return 0;
}

static int load_buffer(struct loader *l, struct ht_arg *a, json_t *obj, json_t *shape)
{
    json_t *index = json_object_get(obj, "index");
    const char *access_s, *init;
    struct ht_error e;
    uint64_t bytes;
    char h[400];
    size_t n;
    int rc, k, sized = 1;

    a->is_buffer = 1;
    for (size_t i = 0; i < 3; i++)
        a->index[i].dim = -1;
    push_key(l, "shape");
    if ((rc = want_array(l, shape)))
        return rc;
    n = json_array_size(shape);
    if (n < 1 || n > 3)
        return fail(l, HT_ESPEC, "shape has %zu axes, but a buffer has 1 to 3", n);
    for (size_t i = 0; i < n; i++) {
        push_index(l, i);
        if ((rc = compile_extent(l, json_array_get(shape, i), &a->shape[i])))
            return rc;
        a->naxes++;
        sized &= size_only(l, a->shape[i]);
        pop(l);
    }
    /* Known now, so a buffer larger than 2^64 bytes is refused now, not once built. */
    ht_error_clear(&e);
    if (sized && ht_spec_buffer_bytes(l->spec, (size_t)(a - l->spec->args), l->vars, &bytes,
                                      NULL, &e) != HT_OK)
        return fail(l, HT_ESPEC, "%s", e.text);
    pop(l);
    if ((rc = get_string(l, obj, "access", 1, &access_s)))
        return rc;
    if ((k = word_index(access_s, access_names, COUNT(access_names))) < 0) {
        push_key(l, "access");
        hint(access_s, access_names, COUNT(access_names), NULL, h, sizeof h);
        return fail(l, HT_ESPEC, "unknown access '%s'%s", access_s, h);
    }
    a->access = (enum ht_access)k;
    a->init = HT_INIT_RANDOM;
    if ((rc = get_string(l, obj, "init", 0, &init)))
        return rc;
    if (init && a->access == HT_ACCESS_TEMP) {
        push_key(l, "init");
        return fail_key(l, HT_ESPEC, "temp buffer '%s' lives on the device only and is never "
                        "initialised: remove 'init'", a->name);
    }
    if (init && (rc = load_init(l, a, init)))
        return rc;
    if (index && (rc = load_index(l, a, index)))
        return rc;
    return load_check(l, a, obj);
}

static int load_arg(struct loader *l, size_t i, json_t *obj)
{
    static const char *const buffer_only[] = {"access", "init", "index", "verify"};
    struct ht_arg *a = &l->spec->args[i];
    const char *name, *type;
    json_t *shape, *value;
    char types[256], h[600];
    int rc;

    if ((rc = want_object(l, obj)) ||
        (rc = check_fields(l, obj, arg_fields, COUNT(arg_fields))) ||
        (rc = get_string(l, obj, "name", 1, &name)))
        return rc;
    push_key(l, "name");
    if (!is_identifier(name))
        return fail(l, HT_ESPEC, "'%s' is not a valid argument name (letters, digits and '_', "
                    "not starting with a digit)", name);
    for (size_t j = 0; j < i; j++)
        if (!strcmp(l->spec->args[j].name, name))
            return fail(l, HT_ESPEC, "argument name '%s' is used twice (args[%zu] and "
                        "args[%zu])", name, j, i);
    if (!(a->name = dup_or_fail(l, name)))
        return HT_ENOMEM;
    pop(l);
    if ((rc = get_string(l, obj, "type", 1, &type)))
        return rc;
    if (ht__type_parse(type, &a->type) != HT_OK) {
        const char *tn[HT_NTYPES];
        const char *guess;
        for (int t = 0; t < HT_NTYPES; t++)
            tn[t] = ht_type_name((enum ht_type)t);
        guess = ht_closest_word(type, tn, HT_NTYPES);
        join_words(tn, HT_NTYPES, ", ", types, sizeof types);
        if (guess)
            snprintf(h, sizeof h, " (did you mean '%s'? expected one of %s)", guess, types);
        else
            snprintf(h, sizeof h, " (expected one of %s)", types);
        push_key(l, "type");
        return fail(l, HT_ESPEC, "unknown type '%s'%s", type, h);
    }
    shape = json_object_get(obj, "shape");
    value = json_object_get(obj, "value");
    if (shape && value) {
        push_key(l, "shape");
        return fail_key(l, HT_ESPEC, "argument '%s' has both a shape (a buffer) and a value "
                        "(a scalar); give one", name);
    }
    if (value) {
        for (size_t k = 0; k < COUNT(buffer_only); k++)
            if (json_object_get(obj, buffer_only[k])) {
                push_key(l, buffer_only[k]);
                return fail_key(l, HT_ESPEC, "scalar argument '%s' has a value, so it takes no "
                                "'%s' (that is for buffers, which have a shape)", name,
                                buffer_only[k]);
            }
        push_key(l, "value");
        if ((rc = compile(l, value, &a->value)))
            return rc;
        pop(l);
        return 0;
    }
    if (!shape) {
        for (size_t k = 0; k < COUNT(buffer_only); k++)
            if (json_object_get(obj, buffer_only[k])) {
                push_key(l, "shape");
                return fail(l, HT_ESPEC, "buffer argument '%s' needs a shape", name);
            }
        return fail(l, HT_ESPEC, "argument '%s' needs a shape (a buffer) or a value (a scalar)",
                    name);
    }
    return load_buffer(l, a, obj, shape);
}

static int load_args(struct loader *l, json_t *root)
{
    struct ht_spec *spec = l->spec;
    json_t *args;
    size_t n;
    int rc;

    if ((rc = field(l, root, "args", 1, &args)))
        return rc;
    push_key(l, "args");
    if ((rc = want_array(l, args)))
        return rc;
    n = json_array_size(args);
    if (n == 0)
        return fail(l, HT_ESPEC, "args must list the kernel's arguments");
    if (!(spec->args = calloc(n, sizeof *spec->args)))
        return nomem(l);
    for (size_t i = 0; i < n; i++) {
        push_index(l, i);
        spec->nargs++;
        if ((rc = load_arg(l, i, json_array_get(args, i))))
            return rc;
        pop(l);
    }
    pop(l);
    return 0;
}

/* An array of top-level argument names (the current path) into indices into spec->args:
 * a stage's arguments or verify.args. *out is owned by the spec once set. */
static int arg_list(struct loader *l, json_t *names, size_t **out, size_t *n)
{
    const struct ht_spec *spec = l->spec;
    const char **an = NULL;
    size_t count;
    int rc = 0;

    if ((rc = want_array(l, names)))
        return rc;
    count = json_array_size(names);
    if (!(*out = calloc(count ? count : 1, sizeof **out)) ||
        !(an = calloc(spec->nargs ? spec->nargs : 1, sizeof *an)))
        return nomem(l);
    for (size_t i = 0; i < spec->nargs; i++)
        an[i] = spec->args[i].name;
    for (size_t j = 0; j < count; j++) {
        json_t *v = json_array_get(names, j);
        const char *name, *guess;
        size_t k = 0;

        push_index(l, j);
        if (!json_is_string(v)) {
            rc = fail(l, HT_ESPEC, "an argument is named by a string (a name from args), not %s",
                      json_kind(v));
            goto cleanup;
        }
        name = json_string_value(v);
        while (k < spec->nargs && strcmp(spec->args[k].name, name) != 0)
            k++;
        if (k == spec->nargs) {
            guess = ht_closest_word(name, an, spec->nargs);
            if (guess)
                rc = fail(l, HT_ESPEC, "unknown argument '%s' (did you mean '%s'?)", name,
                          guess);
            else
                rc = fail(l, HT_ESPEC, "unknown argument '%s': every name must be one of the "
                          "top-level args", name);
            goto cleanup;
        }
        (*out)[(*n)++] = k;
        pop(l);
    }
cleanup:
    free(an);
    return rc;
}

static int load_stage(struct loader *l, size_t i, json_t *obj)
{
    struct ht_spec *spec = l->spec;
    const struct ht_space_def *d = &spec->space;
    struct ht_stage *st = &spec->pipeline[i];
    const char *kernel;
    json_t *nd, *args, *when;
    int rc;

    if ((rc = want_object(l, obj)) ||
        (rc = check_fields(l, obj, stage_fields, COUNT(stage_fields))) ||
        (rc = get_string(l, obj, "kernel", 0, &kernel)))
        return rc;
    if (kernel) {
        push_key(l, "kernel");
        if (!is_identifier(kernel))
            return fail(l, HT_ESPEC, "'%s' is not a valid kernel name", kernel);
        pop(l);
    }
    if (!(st->kernel = dup_or_fail(l, kernel ? kernel : spec->kernel_name)))
        return HT_ENOMEM;
    nd = json_object_get(obj, "ndrange");
    if (nd) {
        push_key(l, "ndrange");
        if ((rc = ndrange_body(l, nd, &st->ndims, st->global, st->local)))
            return rc;
        pop(l);
    } else {
        /* The top-level ndrange, compiled again so that the stage owns its expressions. */
        st->ndims = d->ndims;
        for (unsigned k = 0; k < d->ndims; k++) {
            struct ht_error ee;
            ht_error_clear(&ee);
            if ((rc = ht_expr_compile(ht_expr_source(d->global[k]), &d->names, &st->global[k],
                                      &ee)) ||
                (d->local[0] && (rc = ht_expr_compile(ht_expr_source(d->local[k]), &d->names,
                                                      &st->local[k], &ee))))
                return expr_fail(l, &ee, rc, ht_expr_source(d->global[k]));
        }
    }
    if ((rc = field(l, obj, "args", 1, &args)))
        return rc;
    push_key(l, "args");
    if ((rc = arg_list(l, args, &st->args, &st->nargs)))
        return rc;
    pop(l);
    when = json_object_get(obj, "when");
    if (when) {
        push_key(l, "when");
        if ((rc = compile(l, when, &st->when)))
            return rc;
        pop(l);
    }
    return 0;
}

/* The optional pipeline, after args (its stages name them); then every temp buffer must
 * belong to a pipeline. */
static int load_pipeline(struct loader *l, json_t *root)
{
    struct ht_spec *spec = l->spec;
    json_t *p = json_object_get(root, "pipeline");
    size_t n;
    int rc;

    if (p) {
        push_key(l, "pipeline");
        if ((rc = want_array(l, p)))
            return rc;
        n = json_array_size(p);
        if (n == 0)
            return fail(l, HT_ESPEC, "a pipeline lists at least one stage");
        if (n > HT_MAX_STAGES)
            return fail(l, HT_ESPEC, "a pipeline has at most %d stages, not %zu", HT_MAX_STAGES,
                        n);
        if (!(spec->pipeline = calloc(n, sizeof *spec->pipeline)))
            return nomem(l);
        for (size_t i = 0; i < n; i++) {
            push_index(l, i);
            spec->npipeline++;
            if ((rc = load_stage(l, i, json_array_get(p, i))))
                return rc;
            pop(l);
        }
        pop(l);
    }
    for (size_t i = 0; i < spec->nargs && !spec->npipeline; i++)
        if (spec->args[i].is_buffer && spec->args[i].access == HT_ACCESS_TEMP) {
            push_key(l, "args");
            push_index(l, i);
            push_key(l, "access");
            return fail(l, HT_ESPEC, "access \"temp\" is for the intermediate buffers of a "
                        "pipeline, and this spec has no \"pipeline\" ('%s')", spec->args[i].name);
        }
    return 0;
}

static int nonneg_number(struct loader *l, json_t *obj, const char *key, double *out)
{
    json_t *v = json_object_get(obj, key);
    double x;

    if (!v)
        return 0;
    push_key(l, key);
    if (!json_is_number(v))
        return fail(l, HT_ESPEC, "must be a number, not %s", json_kind(v));
    x = json_number_value(v);
    if (!(x >= 0))
        return fail(l, HT_ESPEC, "%s must be >= 0, not %g", key, x);
    *out = x;
    pop(l);
    return 0;
}

static int load_reference(struct loader *l, json_t *ref)
{
    struct ht_spec *spec = l->spec;
    const struct ht_space_def *d = &spec->space;
    const char **pn = NULL;
    unsigned char *given = NULL;
    int rc = 0;

    push_key(l, "reference");
    if (json_is_string(ref)) {
        if (strcmp(json_string_value(ref), "kernel") != 0)
            return fail(l, HT_ESPEC,
                        "must be a configuration such as {\"TS\": 1} or \"kernel\", not '%s'",
                        json_string_value(ref));
        spec->verify = HT_VERIFY_KERNEL;
        pop(l);
        return 0;
    }
    if (!json_is_object(ref))
        return fail(l, HT_ESPEC, "must be a configuration such as {\"TS\": 1} or \"kernel\", "
                    "not %s", json_kind(ref));
    spec->verify = HT_VERIFY_CONFIG;
    spec->reference = calloc(d->nparams ? d->nparams : 1, sizeof *spec->reference);
    given = calloc(d->nparams ? d->nparams : 1, 1);
    pn = calloc(d->nparams ? d->nparams : 1, sizeof *pn);
    if (!spec->reference || !given || !pn) {
        rc = nomem(l);
        goto cleanup;
    }
    for (size_t i = 0; i < d->nparams; i++)
        pn[i] = d->params[i].name;
    for (void *it = json_object_iter(ref); it; it = json_object_iter_next(ref, it)) {
        const char *key = json_object_iter_key(it);
        json_t *v = json_object_iter_value(it);
        long k = ht__spec_param_index(spec, key);

        push_key(l, key);
        if (k < 0) {
            const char *guess = ht_closest_word(key, pn, d->nparams);
            if (guess)
                rc = fail_key(l, HT_ESPEC, "unknown parameter '%s' (did you mean '%s'?)", key,
                              guess);
            else
                rc = fail_key(l, HT_ESPEC, "unknown parameter '%s'%s", key,
                              d->nparams ? "" : " (the spec has no parameters)");
            goto cleanup;
        }
        if (json_is_integer(v)) {
            spec->reference[k] = json_integer_value(v);
        } else if (json_is_string(v)) {
            /* An expression over sizes, such as "N", follows a --size. */
            struct ht_expr *e = NULL;
            if ((rc = compile(l, v, &e)) == 0 && !size_only(l, e))
                rc = fail(l, HT_ESPEC, "the reference value of '%s' may use sizes only", key);
            if (rc == 0)
                rc = eval_now(l, e, &spec->reference[k]);
            ht_expr_free(e);
            if (rc)
                goto cleanup;
        } else {
            rc = fail(l, HT_ESPEC, "the reference value of '%s' must be an integer or an "
                      "expression over sizes, not %s", key, json_kind(v));
            goto cleanup;
        }
        given[k] = 1;
        pop(l);
    }
    /* A parameter with one value may be left out: it takes that value. */
    for (size_t i = 0; i < d->nparams; i++)
        if (!given[i] && !ht__param_single_value(d, i, &spec->reference[i])) {
            rc = fail(l, HT_ESPEC, "the reference configuration misses parameter '%s'",
                      d->params[i].name);
            goto cleanup;
        }
    pop(l);
cleanup:
    free(given);
    free(pn);
    return rc;
}

/* verify.global and verify.local: the reference kernel's own NDRange, which must not depend
 * on the configuration (it computes the same outputs for every one). */
static int load_verify_ndrange(struct loader *l, json_t *v)
{
    struct ht_spec *spec = l->spec;
    const struct ht_space_def *d = &spec->space;
    static const char *const keys[2] = {"global", "local"};
    json_t *arr[2] = {json_object_get(v, "global"), json_object_get(v, "local")};
    struct ht_expr **exprs[2] = {spec->verify_global, spec->verify_local};
    int rc;

    if (!arr[0] && !arr[1])
        return 0;
    if (spec->verify != HT_VERIFY_KERNEL) {
        push_key(l, arr[0] ? "global" : "local");
        return fail_key(l, HT_ESPEC, "verify.%s is the reference kernel's NDRange: it is only "
                        "used with verify.kernel", arr[0] ? "global" : "local");
    }
    if (!arr[0]) {
        push_key(l, "local");
        return fail_key(l, HT_ESPEC, "verify.local needs verify.global, the reference kernel's "
                        "global size");
    }
    for (unsigned k = 0; k < 2; k++) {
        size_t n;
        if (!arr[k])
            continue;
        push_key(l, keys[k]);
        if ((rc = want_array(l, arr[k])))
            return rc;
        n = json_array_size(arr[k]);
        if (k == 0 && (n < 1 || n > 3))
            return fail(l, HT_ESPEC, "global must have 1 to 3 dimensions, not %zu", n);
        if (k == 1 && n != spec->verify_ndims)
            return fail(l, HT_ESPEC, "local has %zu dimension%s but global has %u", n,
                        n == 1 ? "" : "s", spec->verify_ndims);
        if (k == 0)
            spec->verify_ndims = (unsigned)n;
        for (size_t i = 0; i < n; i++) {
            push_index(l, i);
            if ((rc = compile_extent(l, json_array_get(arr[k], i), &exprs[k][i])))
                return rc;
            for (size_t p = 0; p < d->nparams; p++)
                if (ht_expr_uses(exprs[k][i], ht_space_param_slot(d, p)))
                    return fail(l, HT_EEXPR, "'%s' uses the parameter '%s': the reference "
                                "kernel's NDRange is the same for every configuration, so it "
                                "may use sizes and device variables only",
                                ht_expr_source(exprs[k][i]), d->params[p].name);
            pop(l);
        }
        pop(l);
    }
    /* Eq. 2 now when both extents are known. */
    for (unsigned i = 0; arr[1] && i < spec->verify_ndims; i++) {
        int64_t g, w;
        if (!size_only(l, spec->verify_global[i]) || !size_only(l, spec->verify_local[i]))
            continue;
        push_key(l, "local");
        push_index(l, i);
        if ((rc = eval_now(l, spec->verify_global[i], &g)) ||
            (rc = eval_now(l, spec->verify_local[i], &w)))
            return rc;
        if (g % w)
            return fail(l, HT_ESPEC, "the reference kernel's global size %" PRId64 " is not a "
                        "multiple of its local size %" PRId64 " in dimension %u (Eq. 2)", g, w,
                        i);
        pop(l);
        pop(l);
    }
    return 0;
}

/* verify.outputs: {"name": "file:PATH"}, the reference output of written buffers read from
 * files (raw little-endian or .npy; their contents are checked before anything is built,
 * when a session is created, against the buffer's type and shape). */
static int load_outputs(struct loader *l, json_t *outputs)
{
    struct ht_spec *spec = l->spec;
    const char **names = NULL;
    size_t nnames = 0;
    int rc = 0;

    push_key(l, "outputs");
    if ((rc = want_object(l, outputs)))
        return rc;
    if (!(names = calloc(spec->nargs ? spec->nargs : 1, sizeof *names)))
        return nomem(l);
    for (size_t i = 0; i < spec->nargs; i++)
        if (spec->args[i].is_buffer && (spec->args[i].access == HT_ACCESS_WRITE ||
                                        spec->args[i].access == HT_ACCESS_READWRITE))
            names[nnames++] = spec->args[i].name;
    for (void *it = json_object_iter(outputs); it && !rc;
         it = json_object_iter_next(outputs, it)) {
        const char *key = json_object_iter_key(it), *path;
        json_t *val = json_object_iter_value(it);
        struct ht_arg *a = NULL;
        struct ht_error rerr;
        char why[256], h[400];
        FILE *f;

        push_key(l, key);
        for (size_t i = 0; i < spec->nargs && !a; i++)
            if (!strcmp(spec->args[i].name, key))
                a = &spec->args[i];
        if (!a) {
            hint(key, names, nnames, NULL, h, sizeof h);
            rc = fail_key(l, HT_ESPEC, "no argument named '%s'%s", key, nnames ? h : "");
            break;
        }
        if (!a->is_buffer || a->access == HT_ACCESS_READ || a->access == HT_ACCESS_TEMP) {
            rc = fail_key(l, HT_ESPEC, "'%s' is %s: only write and readwrite buffers have "
                          "reference outputs", key, !a->is_buffer ? "a scalar" :
                          a->access == HT_ACCESS_READ ? "a read buffer" : "a temp buffer");
            break;
        }
        if (a->check == HT_CHECK_NONE) {
            rc = fail_key(l, HT_ESPEC, "buffer '%s' is not compared (\"verify\": \"none\"): "
                          "its reference output would never be read", key);
            break;
        }
        if (!json_is_string(val) || strncmp(json_string_value(val), "file:", 5) != 0) {
            rc = json_is_string(val)
                     ? fail(l, HT_ESPEC, "a reference output is \"file:PATH\" (raw "
                            "little-endian, or .npy), not '%s'", json_string_value(val))
                     : fail(l, HT_ESPEC, "must be a string \"file:PATH\", not %s",
                            json_kind(val));
            break;
        }
        path = json_string_value(val) + 5;
        if (!path[0]) {
            rc = fail(l, HT_ESPEC, "'file:' needs a path after it");
            break;
        }
        if (!(a->ref_path = ht__path_join(spec->dir, path))) {
            rc = nomem(l);
            break;
        }
        ht_error_clear(&rerr);
        if (access(a->ref_path, R_OK) != 0) {
            rc = fail(l, HT_ESPEC, "cannot read reference file '%s': %s", a->ref_path,
                      lower_strerror(errno, why, sizeof why));
            break;
        }
        if (ht__open_regular(a->ref_path, &f, NULL, &rerr) != HT_OK) {
            rc = fail(l, HT_ESPEC, "reference file %s%s%s", rerr.file, rerr.file[0] ? ": " : "",
                      rerr.text);
            break;
        }
        fclose(f);
        pop(l);
    }
    free(names);
    if (!rc)
        pop(l);
    return rc;
}

/* verify.once: the reference kernel computes the same outputs for every configuration (as
 * a tuner's answer computed once), so it runs once per session. That holds only where no
 * buffer's shape and no scalar's value names a parameter: each is checked here. */
static int load_verify_once(struct loader *l, json_t *once)
{
    struct ht_spec *spec = l->spec;
    const struct ht_space_def *d = &spec->space;

    if (!once)
        return 0;
    push_key(l, "once");
    if (!json_is_boolean(once))
        return fail(l, HT_ESPEC, "once must be true or false, not %s", json_kind(once));
    if (json_is_true(once) && spec->verify != HT_VERIFY_KERNEL)
        return fail_key(l, HT_ESPEC, "verify.once is only used with a reference kernel (a "
                        "reference configuration runs once already, and files are read once)");
    spec->verify_once = json_is_true(once);
    for (size_t i = 0; spec->verify_once && i < spec->nargs; i++) {
        const struct ht_arg *a = &spec->args[i];
        for (unsigned x = 0; x < (a->is_buffer ? a->naxes : 1); x++) {
            const struct ht_expr *e = a->is_buffer ? a->shape[x] : a->value;
            for (size_t p = 0; e && p < d->nparams; p++)
                if (ht_expr_uses(e, ht_space_param_slot(d, p)))
                    return fail(l, HT_ESPEC, "args[%zu] ('%s') has a %s that uses the parameter "
                                "'%s': the reference's outputs may differ between "
                                "configurations, so it cannot run once", i, a->name,
                                a->is_buffer ? "shape" : "value", d->params[p].name);
        }
    }
    pop(l);
    return 0;
}

static int load_verify(struct loader *l, json_t *root)
{
    struct ht_spec *spec = l->spec;
    json_t *v = json_object_get(root, "verify"), *ref, *args, *outputs;
    const char *kernel;
    int rc;

    if (!v)
        return 0;
    push_key(l, "verify");
    if ((rc = want_object(l, v)) ||
        (rc = check_fields(l, v, verify_fields, COUNT(verify_fields))) ||
        (rc = get_string(l, v, "kernel", 0, &kernel)))
        return rc;
    ref = json_object_get(v, "reference");
    outputs = json_object_get(v, "outputs");
    if (!ref && !kernel && !outputs) {
        push_key(l, "reference");
        return fail(l, HT_ESPEC, "missing required field 'reference' (a configuration, or "
                    "\"kernel\" with verify.kernel), or reference files in verify.outputs");
    }
    /* verify.kernel alone means a reference kernel; verify.outputs alone, files only. */
    if (ref && (rc = load_reference(l, ref)))
        return rc;
    if (!ref)
        spec->verify = kernel ? HT_VERIFY_KERNEL : HT_VERIFY_FILE;
    if (spec->verify == HT_VERIFY_KERNEL && !kernel) {
        push_key(l, "kernel");
        return fail(l, HT_ESPEC, "reference \"kernel\" needs the reference kernel's name in "
                    "verify.kernel");
    }
    if (kernel) {
        push_key(l, "kernel");
        if (spec->verify != HT_VERIFY_KERNEL)
            return fail_key(l, HT_ESPEC, "verify.kernel is only used with reference \"kernel\"");
        if (!is_identifier(kernel))
            return fail(l, HT_ESPEC, "'%s' is not a valid kernel name", kernel);
        if (!strcmp(kernel, spec->kernel_name))
            return fail(l, HT_ESPEC, "the reference kernel must differ from the kernel under "
                        "test ('%s')", kernel);
        if (!(spec->reference_kernel = dup_or_fail(l, kernel)))
            return HT_ENOMEM;
        pop(l);
    }
    if ((args = json_object_get(v, "args"))) {
        push_key(l, "args");
        if (spec->verify != HT_VERIFY_KERNEL)
            return fail_key(l, HT_ESPEC, "verify.args is only used with reference \"kernel\"");
        if ((rc = arg_list(l, args, &spec->verify_args, &spec->nverify_args)))
            return rc;
        if (spec->nverify_args == 0)
            return fail(l, HT_ESPEC, "verify.args lists no argument (leave it out to pass all "
                        "of args)");
        pop(l);
    }
    if ((rc = load_verify_ndrange(l, v)) || (outputs && (rc = load_outputs(l, outputs))) ||
        (rc = nonneg_number(l, v, "rtol", &spec->rtol)) ||
        (rc = nonneg_number(l, v, "atol", &spec->atol)))
        return rc;
    if ((rc = load_verify_once(l, json_object_get(v, "once"))))
        return rc;
    /* Without a reference run, a compared buffer with no file would pass unverified. */
    for (size_t i = 0; i < spec->nargs && spec->verify == HT_VERIFY_FILE; i++) {
        const struct ht_arg *a = &spec->args[i];
        if (!a->is_buffer || a->access == HT_ACCESS_READ || a->access == HT_ACCESS_TEMP ||
            a->check == HT_CHECK_NONE || a->ref_path)
            continue;
        push_key(l, "outputs");
        return fail(l, HT_ESPEC, "buffer '%s' has no reference: give its file here, a "
                    "verify.reference, or \"verify\": \"none\" in args[%zu]", a->name, i);
    }
    pop(l);
    return 0;
}

/* timing.precision and timing.margin: a number from 0 to 1, left as it is when absent. */
static int load_fraction(struct loader *l, json_t *t, const char *key, double *out)
{
    json_t *v = json_object_get(t, key);

    if (!v)
        return 0;
    push_key(l, key);
    if (!json_is_number(v))
        return fail(l, HT_ESPEC, "%s must be a number, not %s", key, json_kind(v));
    if (!(json_number_value(v) >= 0.0 && json_number_value(v) <= 1.0))
        return fail(l, HT_ESPEC, "%s must be from 0 to 1, not %g", key, json_number_value(v));
    *out = json_number_value(v);
    pop(l);
    return 0;
}

static int load_timing(struct loader *l, json_t *root)
{
    struct ht_spec *spec = l->spec;
    json_t *t = json_object_get(root, "timing"), *r, *k, *a, *m;
    int rc;

    if (!t)
        return 0;
    push_key(l, "timing");
    if ((rc = want_object(l, t)) ||
        (rc = check_fields(l, t, timing_fields, COUNT(timing_fields))))
        return rc;
    r = json_object_get(t, "repeats");
    k = json_object_get(t, "keep_best");
    if (r) {
        push_key(l, "repeats");
        if (!json_is_integer(r))
            return fail(l, HT_ESPEC, "repeats must be an integer, not %s", json_kind(r));
        if (json_integer_value(r) < 1 || json_integer_value(r) > HT_MAX_REPEATS)
            return fail(l, HT_ESPEC, "repeats must be from 1 to %d, not %" JSON_INTEGER_FORMAT,
                        HT_MAX_REPEATS, json_integer_value(r));
        spec->repeats = (unsigned)json_integer_value(r);
        spec->keep_best = spec->repeats < spec->keep_best ? spec->repeats : spec->keep_best;
        pop(l);
    }
    if (k) {
        push_key(l, "keep_best");
        if (!json_is_integer(k))
            return fail(l, HT_ESPEC, "keep_best must be an integer, not %s", json_kind(k));
        if (json_integer_value(k) < 1)
            return fail(l, HT_ESPEC, "keep_best must be at least 1, not %" JSON_INTEGER_FORMAT,
                        json_integer_value(k));
        if (json_integer_value(k) > (json_int_t)spec->repeats)
            return fail(l, HT_ESPEC, "keep_best %" JSON_INTEGER_FORMAT " is more than repeats %u",
                        json_integer_value(k), spec->repeats);
        spec->keep_best = (unsigned)json_integer_value(k);
        pop(l);
    }
    if ((a = json_object_get(t, "adaptive"))) {
        push_key(l, "adaptive");
        if (!json_is_boolean(a))
            return fail(l, HT_ESPEC, "adaptive must be true or false, not %s", json_kind(a));
        spec->adaptive = json_is_true(a);
        pop(l);
    }
    if ((m = json_object_get(t, "min_repeats"))) {
        push_key(l, "min_repeats");
        if (!json_is_integer(m))
            return fail(l, HT_ESPEC, "min_repeats must be an integer, not %s", json_kind(m));
        if (json_integer_value(m) < 1 || json_integer_value(m) > (json_int_t)spec->repeats)
            return fail(l, HT_ESPEC, "min_repeats must be from 1 to repeats (%u), not %"
                        JSON_INTEGER_FORMAT, spec->repeats, json_integer_value(m));
        spec->min_repeats = (unsigned)json_integer_value(m);
        pop(l);
    }
    if ((rc = load_fraction(l, t, "precision", &spec->precision)) ||
        (rc = load_fraction(l, t, "margin", &spec->margin)))
        return rc;
    pop(l);
    return 0;
}

static int load_all(struct loader *l, json_t *root, const struct ht_size_override *ov,
                    size_t nov)
{
    struct ht_spec *spec = l->spec;
    json_t *params;
    const char *name, *description;
    int rc;

    if (!json_is_object(root))
        return fail(l, HT_ESPEC, "a spec is a json object, not %s", json_kind(root));
    if ((rc = check_fields(l, root, top_fields, COUNT(top_fields))) ||
        (rc = get_string(l, root, "name", 1, &name)) ||
        (rc = get_string(l, root, "description", 0, &description)))
        return rc;
    if (!name[0]) {
        push_key(l, "name");
        return fail(l, HT_ESPEC, "name must not be empty");
    }
    if (!(spec->name = dup_or_fail(l, name)))
        return HT_ENOMEM;
    if ((rc = load_kernel(l, root)) || (rc = load_sizes(l, root, ov, nov)))
        return rc;
    params = json_object_get(root, "params");
    if (params && (rc = load_param_names(l, params)))
        return rc;
    if ((rc = build_names(l)))
        return rc;
    if (params && (rc = load_param_domains(l, params)))
        return rc;
    if ((rc = load_ndrange(l, root)) ||
        (rc = optional_expr(l, root, "local_mem", &spec->space.local_mem)) ||
        (rc = load_constraints(l, root)) ||
        (rc = optional_expr(l, root, "flops", &spec->flops)) ||
        (rc = optional_expr(l, root, "bytes", &spec->bytes)) || (rc = load_args(l, root)) ||
        (rc = load_pipeline(l, root)) || (rc = load_verify(l, root)) ||
        (rc = load_timing(l, root)))
        return rc;
    return 0;
}

const char *ht_kernel_language_name(enum ht_kernel_language lang)
{
    return (size_t)lang < COUNT(language_names) ? language_names[lang] : "unknown";
}

/* Parses and validates text (len bytes) as a spec. path is the spec's file (NULL for one
 * from memory, whose folder is then o->base_dir); o->name is what errors name (err->file),
 * o->source when not NULL the kernel's text given beside it (o->source_len bytes, resolved:
 * 0 is empty here), o->ov the sizes overridden. */
static int load_text(const char *path, const char *text, size_t len,
                     const struct ht_spec_buffer_opts *o, struct ht_spec **out,
                     struct ht_error *err)
{
    const char *label = o->name, *dir = o->base_dir;
    struct loader l;
    struct ht_spec *spec = NULL;
    json_t *root = NULL;
    json_error_t jerr;
    int rc;

    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        if (err && !err->code) {
            snprintf(err->file, sizeof err->file, "%s", label);
            err->field[0] = '\0';
            err->line = jerr.line > 0 ? jerr.line : 0;
            err->column = jerr.column > 0 ? jerr.column : 0;
        }
        return ht_error_set(err, HT_EPARSE, "invalid json: %s", jerr.text);
    }
    spec = calloc(1, sizeof *spec);
    if (!spec || (path && !(spec->path = ht__strdup(path))) ||
        (path && !(spec->dir = ht__dirname(path))) ||
        (!path && dir && !(spec->dir = ht__strdup(dir)))) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    spec->rtol = 1e-5;
    spec->atol = 1e-6;
    spec->repeats = 10;
    spec->keep_best = 5;
    spec->adaptive = 1;
    spec->min_repeats = HT_TIMING_MIN_REPEATS;
    spec->precision = HT_TIMING_PRECISION;
    spec->margin = HT_TIMING_MARGIN;
    memset(&l, 0, sizeof l);
    l.path = label;
    l.text = text;
    l.len = len;
    l.source = o->source;
    l.source_len = o->source_len;
    l.err = err;
    l.spec = spec;
    rc = load_all(&l, root, o->ov, o->nov);
    free(l.vars);
    if (rc != HT_OK)
        goto cleanup;
    snprintf(spec->hash, sizeof spec->hash, "%016" PRIx64, ht__fnv1a(HT__FNV_INIT, text, len));
    *out = spec;
    spec = NULL;
cleanup:
    ht_spec_free(spec);
    json_decref(root);
    return rc;
}

int ht_spec_load(const char *path, const struct ht_size_override *ov, size_t nov,
                 struct ht_spec **out, struct ht_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc;

    if (out)
        *out = NULL;
    if (!path || !out || (nov && !ov))
        return ht_error_set(err, HT_EINVAL, "ht_spec_load: %s is NULL",
                            !path ? "path" : !out ? "out" : "ov");
    rc = ht__read_file(path, &text, &len, err);
    if (rc != HT_OK) {
        if (err && err->code == rc && !err->file[0])
            snprintf(err->file, sizeof err->file, "%s", path);
        return rc;
    }
    rc = load_text(path, text, len,
                   &(struct ht_spec_buffer_opts){.name = path, .ov = ov, .nov = nov}, out, err);
    free(text);
    return rc;
}

int ht_spec_load_buffer(const char *json, size_t json_len, const struct ht_spec_buffer_opts *opts,
                        struct ht_spec **out, struct ht_error *err)
{
    static const struct ht_spec_buffer_opts none;
    const struct ht_spec_buffer_opts *o = opts ? opts : &none;
    const char *label = o->name && o->name[0] ? o->name : "<string>";
    const char *source = o->source;
    size_t source_len = o->source_len;

    if (out)
        *out = NULL;
    if (!json || !out || (o->nov && !o->ov) || (!source && source_len)) {
        int rc = ht_error_set(err, HT_EINVAL, "ht_spec_load_buffer: %s is NULL",
                              !json ? "json" : !out ? "out"
                              : !source && source_len ? "opts->source" : "opts->ov");
        if (err && err->code == rc && !err->file[0])
            snprintf(err->file, sizeof err->file, "%s", label);
        return rc;
    }
    /* A length of 0 stands for a NUL-terminated text: neither may be empty. */
    if (!json_len)
        json_len = strlen(json);
    if (source && !source_len)
        source_len = strlen(source);
    struct ht_spec_buffer_opts resolved = *o;
    resolved.name = label;
    resolved.source_len = source_len;
    return load_text(NULL, json, json_len, &resolved, out, err);
}

void ht_spec_free(struct ht_spec *spec)
{
    if (!spec)
        return;
    for (size_t i = 0; i < spec->nargs; i++) {
        struct ht_arg *a = &spec->args[i];
        free(a->name);
        for (unsigned k = 0; k < 3; k++) {
            ht_expr_free(a->shape[k]);
            ht_expr_free(a->index[k].halo);
        }
        free(a->init_path);
        free(a->ref_path);
        ht_expr_free(a->value);
    }
    free(spec->args);
    for (size_t i = 0; i < spec->npipeline; i++) {
        struct ht_stage *st = &spec->pipeline[i];
        free(st->kernel);
        for (unsigned k = 0; k < 3; k++) {
            ht_expr_free(st->global[k]);
            ht_expr_free(st->local[k]);
        }
        free(st->args);
        ht_expr_free(st->when);
    }
    free(spec->pipeline);
    free(spec->verify_args);
    for (unsigned k = 0; k < 3; k++) {
        ht_expr_free(spec->verify_global[k]);
        ht_expr_free(spec->verify_local[k]);
    }
    free(spec->path);
    free(spec->dir);
    free(spec->name);
    free(spec->kernel_path);
    free(spec->kernel_name);
    free(spec->kernel_options);
    free(spec->source);
    free(spec->reference);
    free(spec->reference_kernel);
    ht_expr_free(spec->flops);
    ht_expr_free(spec->bytes);
    ht_space_def_destroy(&spec->space);
    free(spec);
}

void ht_format_config(const struct ht_spec *spec, const int64_t *config, char *buf, size_t size)
{
    size_t used = 0;

    if (!buf || !size)
        return;
    buf[0] = '\0';
    if (!spec || (!config && spec->space.nparams))
        return;
    if (!spec->space.nparams)
        snprintf(buf, size, "(no parameters)");
    for (size_t i = 0; i < spec->space.nparams && used < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%s=%" PRId64, i ? " " : "",
                         spec->space.params[i].name, config[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}
