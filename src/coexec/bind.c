/* The caller's arrays (the runtime, ht_runtime_bind and _launch): bound to a
 * co-execution's buffers, host memory as its data path wants it, one launch on them, and
 * the arrays pinned again after a new decision. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coexec-internal.h"
#include "exec/engine.h"
#include "util/util.h"

/* --- the caller's arrays (the runtime) --- */

/* Points the host arrays of buffer i at data (NULL: back to the co-execution's own) and
 * re-creates the buffers of the devices that work on it in place. */
static int rebind(struct ht_coexec *cx, size_t i, void *data, struct ht_error *err)
{
    const struct ht_arg *arg = &cx->spec->args[i];

    if (arg->access != HT_ACCESS_WRITE)
        cx->inputs[i].data = data                    ? data
                             : cx->inputs[i].mem.data ? (char *)cx->inputs[i].mem.data +
                                                           cx->own_off[i]
                                                     : NULL;
    if (arg->access != HT_ACCESS_READ)
        cx->outputs[i].data = data                     ? data
                              : cx->outputs[i].mem.data ? (char *)cx->outputs[i].mem.data +
                                                             cx->own_off[i]
                                                       : NULL;
    cx->bound[i] = data;
    for (size_t j = 0; j < cx->n; j++) {
        struct cxdev *d = &cx->devs[j];
        void *host = NULL;
        struct ht_error e;
        int rc;
        ht_error_clear(&e);
        rc = ht__cx_inplace_target(cx, d, i, &host, &e);
        if (rc == HT_OK && (d->in.host[i] || host)) {
            /* Unbound with no memory of its own (host NULL): a device buffer until bound
             * again. */
            rc = ht__inst_bind(d->session, &d->in, i, host, &e);
        }
        if (rc == HT_OK)
            rc = ht__cx_set_xfer(cx, d, i, &e);
        if (rc != HT_OK)
            return ht__cx_device_fail(err, d, &e);
        /* A shadow no buffer wraps any more (its buffer was made again above). */
        if (d->shadow[i].data && !ht__cx_shadowed(d, i))
            ht__hostmem_free(&d->shadow[i]);
    }
    return HT_OK;
}

int ht__coexec_bind(struct ht_coexec *cx, size_t arg, void *data, size_t bytes,
                    struct ht_error *err)
{
    const struct ht_spec *spec = cx->spec;
    const struct ht_arg *a;
    size_t want;

    if (arg >= spec->nargs || !spec->args[arg].is_buffer ||
        spec->args[arg].access == HT_ACCESS_TEMP) {
        if (err && !err->code)
            snprintf(err->field, sizeof err->field, "args[%zu]", arg);
        return ht_error_set(err, HT_EINVAL, "argument %zu of '%s' is not a buffer to bind", arg,
                            spec->name);
    }
    a = &spec->args[arg];
    if (!data)
        return ht_error_set(err, HT_EINVAL, "buffer '%s': no memory given (NULL)", a->name);
    want = cx->devs[0].in.shape[arg].count * ht_type_size(a->type);
    if (bytes != want)
        return ht_error_set(err, HT_EINVAL,
                            "buffer '%s' holds %zu bytes (%zu elements of %zu bytes), not %zu",
                            a->name, want, (size_t)cx->devs[0].in.shape[arg].count,
                            ht_type_size(a->type), bytes);
    if (a->access == HT_ACCESS_READWRITE && cx->n > 1)
        for (size_t j = 0; j < cx->n; j++)
            for (unsigned x = 0; x < 3; x++)
                if (cx->devs[j].maps[arg].split_axis[x] && cx->devs[j].maps[arg].halo[x])
                    return ht_error_set(err, HT_ESPEC,
                                        "readwrite buffer '%s' has a halo along the split "
                                        "dimension: a device would read what another writes "
                                        "in the same array",
                                        a->name);
    if (cx->bound[arg] == data)
        return HT_OK;
    return rebind(cx, arg, data, err);
}

int ht__coexec_launch(struct ht_coexec *cx, struct ht_coexec_result *res,
                      enum ht_coexec_memory *seen, struct ht_error *err)
{
    struct ht_coexec_result local;
    int rc;

    memset(&local, 0, sizeof local);
    rc = cx->share_host ? ht__cx_share_run(cx, res ? res : &local, err)
                        : ht__cx_launch_bound(cx, res ? res : &local, seen, err);
    ht_coexec_result_destroy(&local);
    return rc;
}

int ht__cx_all_bound(const struct ht_coexec *cx, struct ht_error *err)
{
    for (size_t i = 0; i < cx->spec->nargs; i++) {
        const struct ht_arg *a = &cx->spec->args[i];
        if (a->is_buffer && a->access != HT_ACCESS_TEMP && !cx->bound[i]) {
            if (err && !err->code)
                snprintf(err->field, sizeof err->field, "args[%zu]", i);
            return ht_error_set(err, HT_EINVAL, "buffer '%s' is not bound", a->name);
        }
    }
    return HT_OK;
}

int ht__coexec_bind_all(struct ht_coexec *cx, void *const *bound, const size_t *bytes,
                        size_t nargs, struct ht_error *err)
{
    int rc = HT_OK;

    for (size_t a = 0; rc == HT_OK && a < nargs; a++)
        if (bound[a])
            rc = ht__coexec_bind(cx, a, bound[a], bytes[a], err);
    return rc;
}

int ht__cx_launch_bound(struct ht_coexec *cx, struct ht_coexec_result *res,
                        enum ht_coexec_memory *seen, struct ht_error *err)
{
    if (ht__cx_all_bound(cx, err) != HT_OK) {
        ht_coexec_result_destroy(res);
        return HT_EINVAL;
    }
    if (seen) {
        enum ht_coexec_memory kind = ht__coexec_memory_bound(cx);
        if (kind != *seen) {
            *seen = kind;
            return HT_DONE;
        }
    }
    ht_coexec_result_destroy(res); /* the last launch's */
    return ht__cx_run_many(cx, res, 0, 1, 1, 0, err);
}

const char *ht_coexec_memory_name(enum ht_coexec_memory m)
{
    static const char *const names[] = {"own", "aligned", "unaligned"};
    return (unsigned)m < sizeof names / sizeof names[0] ? names[m] : NULL;
}

enum ht_coexec_memory ht__coexec_memory_bound(const struct ht_coexec *cx)
{
    enum ht_coexec_memory kind = HT_COEXEC_MEM_OWN;

    for (size_t i = 0; i < cx->spec->nargs; i++) {
        const struct ht_arg *arg = &cx->spec->args[i];
        const void *p = arg->access != HT_ACCESS_WRITE ? cx->inputs[i].data : cx->outputs[i].data;
        if (!arg->is_buffer || arg->access == HT_ACCESS_TEMP || !ht__cx_is_foreign(cx, i, p))
            continue;
        if (kind == HT_COEXEC_MEM_OWN)
            kind = HT_COEXEC_MEM_ALIGNED;
        /* Alignment matters where a device would work in place; a device copied to
         * stages any alignment alike. */
        for (size_t j = 0; j < cx->n; j++)
            if (cx->devs[j].path == HT_PATH_INPLACE && (uintptr_t)p % cx->devs[j].inplace_align)
                kind = HT_COEXEC_MEM_UNALIGNED;
    }
    return kind;
}

void *ht__coexec_alloc(struct ht_coexec *cx, size_t bytes, struct ht_error *err)
{
    cl_context ctx = NULL;
    cl_command_queue q = NULL;
    enum ht_data_path path = HT_PATH_INPLACE;
    struct ht__hostmem m;

    for (size_t j = 0; j < cx->n && !ctx; j++)
        if (cx->devs[j].path == HT_PATH_PINNED) {
            ctx = cx->devs[j].session->ctx;
            q = cx->devs[j].session->queue;
            path = HT_PATH_PINNED;
        }
    if (cx->nallocs == cx->cap_allocs) {
        size_t cap = cx->cap_allocs ? 2 * cx->cap_allocs : 8;
        struct hostalloc *grown = realloc(cx->allocs, cap * sizeof *grown);
        if (!grown) {
            ht_error_set(err, HT_ENOMEM, "out of memory");
            return NULL;
        }
        cx->allocs = grown;
        cx->cap_allocs = cap;
    }
    if (ht__hostmem_alloc(&(struct ht__hostmem_want){.ctx = ctx, .queue = q, .path = path,
                                                     .bytes = bytes},
                          &m, err) != HT_OK)
        return NULL;
    cx->allocs[cx->nallocs++].mem = m;
    return m.data;
}

int ht__coexec_adopt_host(struct ht_coexec *to, struct ht_coexec *from, struct ht_error *err)
{
    if (!from || from == to || from->nallocs == 0)
        return HT_OK;
    if (to->nallocs + from->nallocs > to->cap_allocs) {
        size_t cap = to->nallocs + from->nallocs;
        struct hostalloc *grown = realloc(to->allocs, cap * sizeof *grown);
        if (!grown)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        to->allocs = grown;
        to->cap_allocs = cap;
    }
    memcpy(to->allocs + to->nallocs, from->allocs, from->nallocs * sizeof *from->allocs);
    to->nallocs += from->nallocs;
    /* from's buffers may still wrap them in place: unbind there, without freeing. */
    for (size_t k = 0; k < from->nallocs; k++)
        for (size_t i = 0; i < from->spec->nargs; i++)
            if (from->bound[i] == from->allocs[k].mem.data)
                rebind(from, i, NULL, NULL);
    from->nallocs = 0;
    return HT_OK;
}

void ht__coexec_free_host(struct ht_coexec *cx, void *data)
{
    if (!data)
        return;
    for (size_t k = 0; k < cx->nallocs; k++) {
        if (cx->allocs[k].mem.data != data)
            continue;
        for (size_t i = 0; i < cx->spec->nargs; i++)
            if (cx->bound[i] == data)
                rebind(cx, i, NULL, NULL);
        ht__hostmem_free(&cx->allocs[k].mem);
        cx->allocs[k] = cx->allocs[--cx->nallocs];
        return;
    }
}

int ht__coexec_repin(struct ht_coexec *cx, struct ht_error *err)
{
    int first = HT_OK;

    for (size_t j = 0; j < cx->n; j++) {
        struct cxdev *d = &cx->devs[j];
        for (size_t i = 0; i < cx->spec->nargs; i++) {
            struct ht_error e;
            int rc;
            if (!d->reg_in[i] && !d->reg_out[i])
                continue;
            ht_error_clear(&e);
            rc = ht__cx_set_xfer(cx, d, i, &e);
            if (rc != HT_OK && first == HT_OK)
                first = ht__cx_device_fail(err, d, &e);
        }
    }
    return first;
}

int ht__coexec_hand_over(struct ht_coexec *to, struct ht_coexec *from, void *const *bound,
                         const size_t *bytes, size_t nargs, struct ht_error *pin_err,
                         struct ht_error *err)
{
    int rc = ht__coexec_adopt_host(to, from, err);

    if (rc == HT_OK)
        rc = ht__coexec_bind_all(to, bound, bytes, nargs, err);
    if (rc != HT_OK) {
        /* Back to from, bound as before (adopting unbound the arrays in to). */
        struct ht_error e;
        ht_error_clear(&e);
        ht__coexec_adopt_host(from, to, &e);
        ht__coexec_bind_all(from, bound, bytes, nargs, &e);
        return rc;
    }
    ht__coexec_free(from);
    /* Freeing from released its buffers over the caller's arrays, and a GPU driver may
     * have unpinned them with it (NVIDIA's does): to's are made again. */
    ht__coexec_repin(to, pin_err);
    return HT_OK;
}
