/* The data path's host memory (DESIGN.md, "Moving data"): pinned memory for devices that
 * copy, page-aligned memory for devices that work in place, plain memory for the pageable
 * path that the comparisons keep. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec-internal.h"
#include "util/util.h"

/* Alignment of in-place memory: a page, more than any device's CL_DEVICE_MEM_BASE_ADDR_ALIGN
 * (PoCL wants 128 bytes), so that CL_MEM_USE_HOST_PTR never makes the driver copy. */
#define HOSTMEM_ALIGN 4096

static const char *const foreign_names[] = {"auto", "stage", "register", "direct",
                                              "pin"};

const char *ht_foreign_path_name(enum ht_foreign_path path)
{
    if ((unsigned)path >= sizeof foreign_names / sizeof foreign_names[0])
        return NULL;
    return foreign_names[path];
}

int ht_foreign_path_parse(const char *name, enum ht_foreign_path *path)
{
    if (!path)
        return HT_EINVAL;
    for (unsigned i = 0; name && i < sizeof foreign_names / sizeof foreign_names[0]; i++)
        if (strcmp(name, foreign_names[i]) == 0) {
            *path = (enum ht_foreign_path)i;
            return HT_OK;
        }
    return HT_EINVAL;
}

static const char *const path_names[] = {"auto", "pageable", "pinned", "inplace"};

const char *ht_data_path_name(enum ht_data_path path)
{
    if ((unsigned)path >= sizeof path_names / sizeof path_names[0])
        return NULL;
    return path_names[path];
}

int ht_data_path_parse(const char *name, enum ht_data_path *path)
{
    if (!path)
        return HT_EINVAL;
    for (unsigned i = 0; name && i < sizeof path_names / sizeof path_names[0]; i++)
        if (strcmp(name, path_names[i]) == 0) {
            *path = (enum ht_data_path)i;
            return HT_OK;
        }
    return HT_EINVAL;
}

enum ht_data_path ht_data_path_resolve(enum ht_data_path path, const struct ht_device_info *dev)
{
    if (path != HT_PATH_AUTO || !dev)
        return path;
    return dev->host_unified ? HT_PATH_INPLACE : HT_PATH_PINNED;
}

/* The memory of ht__hostmem_alloc, contents undefined. */
static int hostmem_make(cl_context ctx, cl_command_queue q, enum ht_data_path path,
                        size_t bytes, struct ht__hostmem *out, struct ht_error *err)
{
    size_t size = bytes ? bytes : 1;
    cl_int st;

    memset(out, 0, sizeof *out);
    out->bytes = bytes;
    if (path == HT_PATH_PINNED && ctx && q) {
        cl_mem m = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, size, NULL, &st);
        void *p;
        if (st != CL_SUCCESS)
            return ht__cl_fail(err, HT_ECL, st, "clCreateBuffer of pinned host memory");
        p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, NULL, NULL,
                               &st);
        if (st != CL_SUCCESS) {
            clReleaseMemObject(m);
            return ht__cl_fail(err, HT_ECL, st, "clEnqueueMapBuffer of pinned host memory");
        }
        clRetainCommandQueue(q);
        out->data = p;
        out->pin = m;
        out->queue = q;
        return HT_OK;
    }
    if (path == HT_PATH_PAGEABLE) {
        out->data = malloc(size);
    } else {
        /* Rounded up to whole pages: aligned_alloc wants a multiple of the alignment. */
        size_t whole = (size + HOSTMEM_ALIGN - 1) / HOSTMEM_ALIGN * HOSTMEM_ALIGN;
        out->data = whole >= size ? aligned_alloc(HOSTMEM_ALIGN, whole) : NULL;
    }
    if (!out->data)
        return ht_error_set(err, HT_ENOMEM, "out of memory for %zu bytes of host memory", bytes);
    return HT_OK;
}

int ht__hostmem_alloc(const struct ht__hostmem_want *w, struct ht__hostmem *out,
                      struct ht_error *err)
{
    int rc = hostmem_make(w->ctx, w->queue, w->path, w->bytes, out, err);

    if (rc == HT_OK && w->init) {
        size_t n = w->bytes > w->offset ? w->bytes - w->offset : 0;
        rc = ht__data_init(w->init, (char *)out->data + w->offset,
                           n / ht_type_size(w->init->type), err);
        if (rc != HT_OK)
            ht__hostmem_free(out);
        /* An init file of the wrong size: the message names the file, this the field. */
        if (rc == HT_ESPEC && w->spec && err && !err->field[0]) {
            snprintf(err->file, sizeof err->file, "%s", w->spec->path ? w->spec->path : "");
            snprintf(err->field, sizeof err->field, "args[%td].init", w->init - w->spec->args);
        }
    }
    return rc;
}

void ht__hostmem_free(struct ht__hostmem *m)
{
    if (!m)
        return;
    if (m->pin) {
        clEnqueueUnmapMemObject(m->queue, m->pin, m->data, 0, NULL, NULL);
        clFinish(m->queue);
        clReleaseMemObject(m->pin);
        clReleaseCommandQueue(m->queue);
    } else {
        free(m->data);
    }
    memset(m, 0, sizeof *m);
}

int ht__hostbuf_alloc(struct ht__hostbuf *b, cl_context ctx, cl_command_queue q,
                      enum ht_data_path path, size_t bytes, struct ht_error *err)
{
    struct ht__hostmem m;
    int rc;

    if (b->mem.data && b->mem.bytes == bytes && (path == HT_PATH_PINNED) == (b->mem.pin != NULL))
        return HT_OK;
    rc = hostmem_make(ctx, q, path, bytes, &m, err);
    if (rc != HT_OK)
        return rc;
    ht__hostmem_free(&b->mem);
    b->mem = m;
    b->data = m.data;
    return HT_OK;
}

void ht__hostbuf_free(struct ht__hostbuf *b)
{
    if (!b)
        return;
    ht__hostmem_free(&b->mem);
    b->data = NULL;
}
