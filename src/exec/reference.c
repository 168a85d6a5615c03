/* References that come from elsewhere than the configuration under test: reference output
 * files (verify.outputs, raw little-endian or .npy) and the reference kernel's own NDRange
 * (verify.global, verify.local), with the checks made before anything is built. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec-internal.h"
#include "npy.h"
#include "util/util.h"

/* A .npy header is a few hundred bytes; this much is read to check it before the build. */
#define PROBE_BYTES ((size_t)1 << 20)

/* Fills err's file and field (when it holds no error yet) before ht_error_set. */
static void at_field(struct ht_error *err, const struct ht_spec *spec, const char *field)
{
    if (err && !err->code) {
        snprintf(err->file, sizeof err->file, "%s", spec->path ? spec->path : "");
        snprintf(err->field, sizeof err->field, "%s", field);
        err->line = err->column = 0;
    }
}

/* A file as far as it has been read: its path, its first len bytes in buf (none for a raw
 * file, whose header is its size) and its whole size. */
struct file_head {
    const char *path;
    const void *buf;
    size_t len;
    uint64_t size;
};

/* Checks f's header against type t (what names the buffer it is for in messages). Sets *h,
 * its element count in h->count (ndim 0 for a raw file). */
static int check_header(const struct file_head *f, enum ht_type t, const char *what,
                        struct ht__npy *h, struct ht_error *err)
{
    const char *path = f->path;
    const uint64_t size = f->size;
    size_t es = ht_type_size(t);
    char want[24], shape[160];
    struct ht_error pe;

    memset(h, 0, sizeof *h);
    if (!ht__npy_is_path(path)) {
        if (size % es)
            return ht_error_set(err, HT_ESPEC, "'%s' has %" PRIu64 " bytes, not a whole number "
                                "of %s elements (%zu bytes each) for %s", path, size,
                                ht_type_name(t), es, what);
        h->count = size / es;
        return HT_OK;
    }
    ht_error_clear(&pe);
    if (ht__npy_parse(f->buf, f->len, h, &pe) != HT_OK)
        return ht_error_set(err, HT_ESPEC, "'%s' %s", path, pe.text);
    ht__npy_descr(t, want, sizeof want);
    if (h->type != t)
        return ht_error_set(err, HT_ESPEC, "'%s' holds %s ('%s') but %s is %s ('%s', %s in "
                            "numpy)", path, ht__npy_type_name(h->type), h->descr, what,
                            ht_type_name(t), want, ht__npy_type_name(t));
    if (ht__npy_fortran_matters(h))
        return ht_error_set(err, HT_ESPEC, "'%s' is in Fortran order, and hetune reads arrays "
                            "in C order: save np.ascontiguousarray(a)", path);
    ht__npy_format_shape(h->dims, h->ndim, 1, shape, sizeof shape);
    if (h->count > (UINT64_MAX - h->data_off) / es || size != h->data_off + h->count * es)
        return ht_error_set(err, HT_ESPEC, "'%s' has %" PRIu64 " bytes of data but its header "
                            "says %s %s, %" PRIu64 " bytes", path,
                            size > h->data_off ? size - h->data_off : 0, shape,
                            ht__npy_type_name(t), h->count * es);
    return HT_OK;
}

int ht__npy_read(const char *path, enum ht_type t, const char *what, void **data,
                 size_t *count, struct ht__npy *h, struct ht_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    int rc;

    *data = NULL;
    *count = 0;
    rc = ht__read_file(path, &buf, &len, err);
    if (rc != HT_OK)
        return rc;
    rc = check_header(&(struct file_head){path, buf, len, len}, t, what, h, err);
    if (rc != HT_OK) {
        free(buf);
        return rc;
    }
    /* The data to the front: aligned as malloc aligns, and one block to free. */
    if (h->data_off)
        memmove(buf, buf + h->data_off, len - h->data_off);
    *data = buf;
    *count = (size_t)h->count;
    return HT_OK;
}

int ht__npy_fits(const struct ht_spec *spec, size_t i, unsigned ndim, const uint64_t *dims,
                 uint64_t count, const struct ht__hostbuf *shape, struct ht_error *err)
{
    const struct ht_arg *arg = &spec->args[i];
    const char *path = arg->ref_path;
    size_t es = ht_type_size(arg->type);
    char file_shape[160], buf_shape[160], field[200];
    unsigned naxes = shape->naxes ? shape->naxes : 1;
    uint64_t one[1] = {shape->count};
    int same = 1;

    snprintf(field, sizeof field, "verify.outputs.%s", arg->name);
    ht__npy_format_shape(shape->naxes ? shape->dims : one, naxes, 0, buf_shape,
                         sizeof buf_shape);
    if (arg->check == HT_CHECK_SUM) {
        if (count > 0)
            return HT_OK;
        at_field(err, spec, field);
        return ht_error_set(err, HT_ESPEC, "'%s' holds no element to sum", path);
    }
    if (ndim >= 2) {
        same = ndim == naxes;
        for (unsigned a = 0; same && a < ndim; a++)
            same = dims[a] == (shape->naxes ? shape->dims[a] : shape->count);
    }
    if (same && count == shape->count)
        return HT_OK;
    at_field(err, spec, field);
    if (ndim == 0)
        return ht_error_set(err, HT_ESPEC, "'%s' has %" PRIu64 " bytes (%" PRIu64 " %s "
                            "elements) but buffer '%s' of shape %s has %zu elements (%zu bytes)",
                            path, count * es, count, ht_type_name(arg->type), arg->name,
                            buf_shape, shape->count, shape->count * es);
    ht__npy_format_shape(dims, ndim, 1, file_shape, sizeof file_shape);
    return ht_error_set(err, HT_ESPEC, "'%s' has shape %s (%" PRIu64 " elements) but buffer "
                        "'%s' has shape %s (%zu elements): save it with the buffer's shape, or "
                        "flattened", path, file_shape, count, arg->name, buf_shape,
                        shape->count);
}

/* The header of arg i's reference file and its element count, from the file's start. */
static int probe(const struct ht_spec *spec, size_t i, struct ht__npy *h, uint64_t *count,
                 struct ht_error *err)
{
    const struct ht_arg *arg = &spec->args[i];
    char what[200], *buf = NULL;
    uint64_t size = 0;
    size_t len = 0;
    FILE *f = NULL;
    int rc;

    snprintf(what, sizeof what, "buffer '%s'", arg->name);
    rc = ht__open_regular(arg->ref_path, &f, &size, err);
    if (rc != HT_OK)
        return rc;
    if (ht__npy_is_path(arg->ref_path)) {
        len = size < PROBE_BYTES ? (size_t)size : PROBE_BYTES;
        buf = malloc(len ? len : 1);
        if (!buf) {
            fclose(f);
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        }
        if (fread(buf, 1, len, f) != len) {
            fclose(f);
            free(buf);
            return ht_error_set(err, HT_EIO, "cannot read '%s'", arg->ref_path);
        }
    }
    fclose(f);
    rc = check_header(&(struct file_head){arg->ref_path, buf, len, size}, arg->type, what, h,
                      err);
    free(buf);
    if (rc == HT_OK)
        *count = h->count;
    return rc;
}

/* 1 when buffer i's shape uses no parameter: it is the same for every configuration. */
static int shape_fixed(const struct ht_spec *spec, size_t i)
{
    const struct ht_arg *arg = &spec->args[i];

    for (unsigned a = 0; a < arg->naxes; a++)
        for (size_t p = 0; p < spec->space.nparams; p++)
            if (ht_expr_uses(arg->shape[a], ht_space_param_slot(&spec->space, p)))
                return 0;
    return 1;
}

static int check_files(const struct ht_spec *spec, const int64_t *vars, struct ht_error *err)
{
    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *arg = &spec->args[i];
        struct ht__hostbuf shape;
        struct ht__npy h;
        char field[200];
        uint64_t count = 0, bytes = 0;
        int rc;

        if (!arg->is_buffer || !arg->ref_path)
            continue;
        snprintf(field, sizeof field, "verify.outputs.%s", arg->name);
        rc = probe(spec, i, &h, &count, err);
        if (rc != HT_OK) {
            if (err && err->code == rc && !err->field[0]) {
                snprintf(err->file, sizeof err->file, "%s", spec->path ? spec->path : "");
                snprintf(err->field, sizeof err->field, "%s", field);
            }
            return rc;
        }
        if (!shape_fixed(spec, i))
            continue; /* checked for each configuration, as it is verified */
        memset(&shape, 0, sizeof shape);
        shape.naxes = arg->naxes;
        /* ht_session_create's ht_spec_check_device has evaluated this shape already. */
        if (ht_spec_buffer_bytes(spec, i, vars, &bytes, shape.dims, err) != HT_OK)
            return err ? err->code : HT_EINVAL;
        shape.count = (size_t)(bytes / ht_type_size(arg->type));
        rc = ht__npy_fits(spec, i, h.ndim ? h.ndim : (h.descr[0] ? 1 : 0), h.dims, count,
                          &shape, err);
        if (rc != HT_OK)
            return rc;
    }
    return HT_OK;
}

int ht__verify_ndrange(const struct ht_spec *spec, const struct ht_device_info *dev,
                       const int64_t *vars, size_t global[3], size_t local[3],
                       struct ht_error *err)
{
    uint64_t items = 1;
    char field[64];

    for (unsigned d = 0; d < 3; d++) {
        global[d] = 1;
        local[d] = spec->verify_local[0] ? 1 : 0;
    }
    for (unsigned d = 0; d < spec->verify_ndims; d++) {
        for (unsigned k = 0; k < 2; k++) {
            const struct ht_expr *e = k ? spec->verify_local[d] : spec->verify_global[d];
            int64_t v = 0;
            int rc;
            if (!e)
                continue;
            rc = ht_expr_eval(e, vars, &v);
            if (rc != HT_OK || v <= 0) {
                snprintf(field, sizeof field, "verify.%s[%u]", k ? "local" : "global", d);
                at_field(err, spec, field);
                if (rc != HT_OK)
                    return ht_error_set(err, HT_ESPEC, "'%s' cannot be evaluated: %s",
                                        ht_expr_source(e), ht_strerror(rc));
                return ht_error_set(err, HT_ESPEC, "'%s' is %" PRId64 ", but a size must be "
                                    "positive", ht_expr_source(e), v);
            }
            (k ? local : global)[d] = (size_t)v;
        }
    }
    if (!spec->verify_local[0])
        return HT_OK;
    for (unsigned d = 0; d < spec->verify_ndims; d++) {
        snprintf(field, sizeof field, "verify.local[%u]", d);
        if (dev && local[d] > dev->max_work_item_sizes[d]) {
            at_field(err, spec, field);
            return ht_error_set(err, HT_ESPEC, "the reference kernel's local size %zu is more "
                                "than max_work_item_size_%u (%" PRIu64 ") of device '%s'",
                                local[d], d, dev->max_work_item_sizes[d], dev->name);
        }
        if (global[d] % local[d]) {
            at_field(err, spec, field);
            return ht_error_set(err, HT_ESPEC, "the reference kernel's global size %zu is not "
                                "a multiple of its local size %zu in dimension %u (Eq. 2)",
                                global[d], local[d], d);
        }
        items *= local[d];
    }
    if (dev && items > dev->max_work_group_size) {
        at_field(err, spec, "verify.local");
        return ht_error_set(err, HT_ESPEC, "the reference kernel's work-groups of %" PRIu64
                            " work-items are more than max_work_group_size (%" PRIu64 ") of "
                            "device '%s' (Eq. 1)", items, dev->max_work_group_size, dev->name);
    }
    return HT_OK;
}

int ht__verify_check(const struct ht_spec *spec, const struct ht_device_info *dev,
                     struct ht_error *err)
{
    const struct ht_space_def *def = &spec->space;
    int64_t *vars = calloc(def->names.count ? def->names.count : 1, sizeof *vars);
    int64_t *config = calloc(def->nparams ? def->nparams : 1, sizeof *config);
    size_t global[3], local[3];
    int rc = HT_OK;

    if (!vars || !config) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    /* Parameters stay 0: nothing checked here may depend on them. */
    ht_space_vars(def, dev, config, vars);
    if (spec->verify != HT_VERIFY_NONE)
        rc = check_files(spec, vars, err);
    if (rc == HT_OK && spec->verify == HT_VERIFY_KERNEL && spec->verify_ndims)
        rc = ht__verify_ndrange(spec, dev, vars, global, local, err);
cleanup:
    free(vars);
    free(config);
    return rc;
}

int ht__ref_files_load(const struct ht_spec *spec, struct ht__hostbuf *refs,
                       struct ht_error *err)
{
    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *arg = &spec->args[i];
        struct ht__hostbuf *b = &refs[i];
        struct ht__npy h;
        char what[200], field[200];
        void *data = NULL;
        size_t count = 0;
        int rc;

        if (!arg->is_buffer || !arg->ref_path)
            continue;
        snprintf(what, sizeof what, "buffer '%s'", arg->name);
        snprintf(field, sizeof field, "verify.outputs.%s", arg->name);
        rc = ht__npy_read(arg->ref_path, arg->type, what, &data, &count, &h, err);
        if (rc == HT_OK && h.ndim > 3 && arg->check != HT_CHECK_SUM)
            rc = ht_error_set(err, HT_ESPEC, "'%s' has %u axes, and a buffer 1 to 3: save it "
                              "with the buffer's shape, or flattened", arg->ref_path, h.ndim);
        if (rc != HT_OK) {
            free(data);
            if (err && err->code == rc && !err->field[0]) {
                snprintf(err->file, sizeof err->file, "%s", spec->path ? spec->path : "");
                snprintf(err->field, sizeof err->field, "%s", field);
            }
            return rc;
        }
        ht__hostbuf_free(b);
        memset(b, 0, sizeof *b);
        b->mem.data = data; /* plain malloc memory: ht__hostmem_free frees it */
        b->mem.bytes = count * ht_type_size(arg->type);
        b->data = data;
        b->count = count;
        /* naxes 0 marks a raw file, which has a count but no axes. */
        if (h.descr[0] && (h.ndim == 0 || h.ndim > 3)) {
            b->naxes = 1;
            b->dims[0] = count;
        } else {
            b->naxes = h.ndim;
            memcpy(b->dims, h.dims, sizeof b->dims);
        }
    }
    return HT_OK;
}
