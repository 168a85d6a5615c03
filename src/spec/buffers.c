/* The sizes of buffer arguments, their check against a device's largest allocation, and the
 * checks of a program's array bound to one (the runtimes). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/util.h"
#include "hetune/spec.h"

/* Fills err's location (when it holds no error yet) with the spec and a field. */
static void locate(struct ht_error *err, const struct ht_spec *spec, const char *field)
{
    if (!err || err->code)
        return;
    snprintf(err->file, sizeof err->file, "%s", spec->path ? spec->path : "");
    snprintf(err->field, sizeof err->field, "%s", field);
    err->line = err->column = 0;
}

int ht_spec_buffer_bytes(const struct ht_spec *spec, size_t i, const int64_t *vars,
                         uint64_t *bytes, uint64_t dims[3], struct ht_error *err)
{
    const struct ht_arg *arg;
    uint64_t total, d[3] = {1, 1, 1};
    char field[64], shape[128] = "";
    size_t len = 0;
    int overflow = 0;

    if (!spec || !vars || !bytes)
        return ht_error_set(err, HT_EINVAL, "ht_spec_buffer_bytes: %s is NULL",
                            !spec ? "spec" : !vars ? "vars" : "bytes");
    if (i >= spec->nargs || !spec->args[i].is_buffer)
        return ht_error_set(err, HT_EINVAL, "argument %zu is not a buffer", i);
    arg = &spec->args[i];
    total = ht_type_size(arg->type);
    for (unsigned a = 0; a < arg->naxes; a++) {
        int64_t v;
        int rc = ht_expr_eval(arg->shape[a], vars, &v);
        if (rc == HT_OK && v <= 0)
            rc = HT_EINVAL;
        if (rc != HT_OK) {
            snprintf(field, sizeof field, "args[%zu].shape[%u]", i, a);
            locate(err, spec, field);
            return ht_error_set(err, HT_EINVAL, "shape '%s' of '%s' is %s",
                                ht_expr_source(arg->shape[a]), arg->name,
                                rc == HT_EINVAL ? "not positive" : ht_strerror(rc));
        }
        d[a] = (uint64_t)v;
        overflow |= __builtin_mul_overflow(total, d[a], &total);
        len += (size_t)snprintf(shape + len, sizeof shape - len, "%s%" PRIu64, a ? " x " : "",
                                d[a]);
    }
    /* The host holds every buffer too: past what a size_t counts, it cannot exist. */
    if (overflow || total > SIZE_MAX) {
        snprintf(field, sizeof field, "args[%zu].shape", i);
        locate(err, spec, field);
        return ht_error_set(err, HT_EOVERFLOW,
                            "buffer '%s' of %s %s elements (%zu bytes each) is larger than "
                            "2^64 bytes",
                            arg->name, shape, ht_type_name(arg->type), ht_type_size(arg->type));
    }
    *bytes = total;
    if (dims)
        memcpy(dims, d, sizeof d);
    return HT_OK;
}

int ht_spec_check_device(const struct ht_spec *spec, const struct ht_device_info *dev,
                         struct ht_error *err)
{
    const struct ht_space_def *def;
    int64_t *vars;
    int rc = HT_OK;

    if (!spec || !dev)
        return ht_error_set(err, HT_EINVAL, "ht_spec_check_device: %s is NULL",
                            !spec ? "spec" : "dev");
    def = &spec->space;
    vars = calloc(def->names.count ? def->names.count : 1, sizeof *vars);
    if (!vars)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    ht_space_vars(def, dev, NULL, vars);
    for (size_t i = 0; i < spec->nargs && rc == HT_OK; i++) {
        const struct ht_arg *arg = &spec->args[i];
        uint64_t bytes;
        int per_config = 0;
        char need[32], limit[32], field[64];
        struct ht_error e;

        if (!arg->is_buffer)
            continue;
        /* A shape that uses a parameter is known per configuration only (ht_session_eval
         * checks it then); the others are the same for every configuration. */
        for (unsigned a = 0; a < arg->naxes; a++)
            for (size_t p = 0; p < def->nparams; p++)
                per_config |= ht_expr_uses(arg->shape[a], ht_space_param_slot(def, p));
        if (per_config)
            continue;
        ht_error_clear(&e);
        if (ht_spec_buffer_bytes(spec, i, vars, &bytes, NULL, &e) != HT_OK) {
            /* The same for every configuration: the spec is wrong for this device. */
            if (err && !err->code) {
                *err = e;
                err->code = HT_ESPEC;
            }
            rc = HT_ESPEC;
            break;
        }
        if (dev->max_mem_alloc_size == 0 || bytes <= dev->max_mem_alloc_size)
            continue;
        ht_format_bytes(bytes, need, sizeof need);
        ht_format_bytes(dev->max_mem_alloc_size, limit, sizeof limit);
        snprintf(field, sizeof field, "args[%zu].shape", i);
        locate(err, spec, field);
        rc = ht_error_set(err, HT_ESPEC,
                          "buffer '%s' needs %s (%" PRIu64 " bytes), more than the %s (%" PRIu64
                          " bytes) device '%s' allocates at once (max_mem_alloc_size)",
                          arg->name, need, bytes, limit, dev->max_mem_alloc_size, dev->name);
    }
    free(vars);
    return rc;
}

int ht_spec_bind_arg(const struct ht_spec *spec, const char *name, size_t *arg,
                     struct ht_error *err)
{
    char list[512] = "";
    size_t len = 0;

    if (!spec || !name || !arg)
        return ht_error_set(err, HT_EINVAL, "ht_spec_bind_arg: %s is NULL",
                            !spec ? "spec" : !name ? "name" : "arg");
    for (size_t a = 0; a < spec->nargs; a++) {
        if (strcmp(spec->args[a].name, name))
            continue;
        if (!spec->args[a].is_buffer)
            return ht_error_set(err, HT_EINVAL, "argument '%s' of '%s' is a scalar: its value "
                                "comes from the spec's sizes, it cannot be bound",
                                name, spec->name);
        if (spec->args[a].access == HT_ACCESS_TEMP)
            return ht_error_set(err, HT_EINVAL, "argument '%s' of '%s' is a temp buffer: it "
                                "lives on the devices only", name, spec->name);
        *arg = a;
        return HT_OK;
    }
    for (size_t a = 0; a < spec->nargs && len < sizeof list; a++)
        if (spec->args[a].is_buffer && spec->args[a].access != HT_ACCESS_TEMP)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                    spec->args[a].name);
    return ht_error_set(err, HT_EINVAL, "'%s' has no argument '%s'; its buffers are %s",
                        spec->name, name, list);
}

int ht_spec_check_array(const struct ht_spec *spec, size_t arg, const void *data,
                        size_t bytes, size_t need, struct ht_error *err)
{
    const struct ht_arg *a;

    if (!spec)
        return ht_error_set(err, HT_EINVAL, "ht_spec_check_array: spec is NULL");
    if (arg >= spec->nargs)
        return ht_error_set(err, HT_EINVAL, "ht_spec_check_array: argument %zu of '%s' is past "
                            "its %zu", arg, spec->name, spec->nargs);
    a = &spec->args[arg];
    /* A NULL data is the program's mistake this check is for: named by its argument. */
    if (!data)
        return ht_error_set(err, HT_EINVAL, "argument '%s': no array given (NULL)", a->name);
    if (bytes != need)
        return ht_error_set(err, HT_EINVAL, "argument '%s' of '%s' needs %zu bytes (%zu %s), "
                            "not %zu", a->name, spec->name, need,
                            need / ht_type_size(a->type), ht_type_name(a->type), bytes);
    return HT_OK;
}
