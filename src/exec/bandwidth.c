/* The link between the host and one device (`hetune devices --bandwidth`): what hetune's
 * data path achieves, beside a plain OpenCL copy from pinned memory (the ceiling) and one
 * from malloc memory (the pageable rate). DESIGN.md, "Moving data".
 *
 * hetune's path is measured through the functions tuning and co-execution use: host memory
 * from ht__hostmem_alloc for the path, copied with blocking clEnqueueWriteBuffer/ReadBuffer,
 * or, in place, a device buffer over that memory made to agree with the host by
 * ht__inst_sync (a blocking map and unmap). The two references are written out plainly
 * here, apart from hetune's code, so that they stay a fixed yardstick when that code
 * changes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec-internal.h"
#include "util/util.h"

#define BW_DEFAULT_BYTES (UINT64_C(64) << 20)
#define BW_DEFAULT_REPEATS 5u
#define BW_MAX_REPEATS 1000u

/* Below a monotonic clock's resolution a time says nothing; a rate from it stays finite. */
#define BW_MIN_SECONDS 1e-9

/* One way of moving bytes between host memory and a device buffer. */
struct link {
    cl_command_queue queue;
    cl_mem mem;      /* the device buffer */
    void *host;      /* the host side of a copy; NULL when mem works in place */
    size_t bytes;
};

/* One blocking transfer; its wall time in *seconds. */
static int transfer(const struct link *l, int to_host, double *seconds, struct ht_error *err)
{
    double t0;
    cl_int st;

    *seconds = 0;
    if (!l->host) /* in place: what hetune does for a device that shares the host's memory */
        return ht__inst_sync(l->queue, l->mem, l->bytes, to_host, NULL, seconds, err);
    t0 = ht__now();
    if (to_host)
        st = clEnqueueReadBuffer(l->queue, l->mem, CL_TRUE, 0, l->bytes, l->host, 0, NULL, NULL);
    else
        st = clEnqueueWriteBuffer(l->queue, l->mem, CL_TRUE, 0, l->bytes, l->host, 0, NULL,
                                  NULL);
    if (st != CL_SUCCESS)
        return ht__cl_fail(err, HT_ECL, st,
                           to_host ? "clEnqueueReadBuffer" : "clEnqueueWriteBuffer");
    *seconds = ht__now() - t0;
    return HT_OK;
}

/* Rates of the links both ways, into rate[k][0] (to the device) and rate[k][1] (to the
 * host): one untimed transfer of each, then the fastest of repeats. The links take turns
 * within each repeat, so that whatever else the machine does falls on all of them alike
 * rather than on whichever was measured then. */
#define NLINKS 3
static int measure(const struct link *links, unsigned repeats, double rate[NLINKS][2],
                   struct ht_error *err)
{
    for (int to_host = 0; to_host < 2; to_host++) {
        double best[NLINKS], t;
        int rc = HT_OK;

        for (int k = 0; k < NLINKS; k++) {
            best[k] = INFINITY;
            rc = transfer(&links[k], to_host, &t, err);
            if (rc != HT_OK)
                return rc;
        }
        for (unsigned r = 0; r < repeats; r++)
            for (int k = 0; k < NLINKS; k++) {
                rc = transfer(&links[k], to_host, &t, err);
                if (rc != HT_OK)
                    return rc;
                if (t < best[k])
                    best[k] = t;
            }
        for (int k = 0; k < NLINKS; k++)
            rate[k][to_host] = (double)links[k].bytes / fmax(best[k], BW_MIN_SECONDS);
    }
    return HT_OK;
}

static int device_buffer(cl_context ctx, cl_mem_flags flags, size_t bytes, void *host,
                         cl_mem *out, struct ht_error *err)
{
    cl_int st;

    *out = clCreateBuffer(ctx, CL_MEM_READ_WRITE | flags, bytes, host, &st);
    if (st != CL_SUCCESS) {
        *out = NULL;
        return ht__cl_fail(err, HT_ECL, st, "clCreateBuffer");
    }
    return HT_OK;
}

int ht__pinned_link_open(const struct ht_device_info *dev, size_t bytes,
                         struct ht__pinned_link *l, struct ht_error *err)
{
    cl_device_id device = (cl_device_id)dev->cl_device;
    cl_context_properties props[3] = {CL_CONTEXT_PLATFORM,
                                      (cl_context_properties)dev->cl_platform, 0};
    cl_int st;
    int rc;

    memset(l, 0, sizeof *l);
    l->ctx = clCreateContext(props, 1, &device, NULL, NULL, &st);
    if (st != CL_SUCCESS) {
        l->ctx = NULL;
        return ht__cl_fail(err, HT_ECL, st, "clCreateContext");
    }
    l->q = clCreateCommandQueue(l->ctx, device, 0, &st);
    if (st != CL_SUCCESS) {
        l->q = NULL;
        rc = ht__cl_fail(err, HT_ECL, st, "clCreateCommandQueue");
        goto fail;
    }
    rc = device_buffer(l->ctx, 0, bytes, NULL, &l->mem, err);
    if (rc != HT_OK)
        goto fail;
    /* The ceiling: a CL_MEM_ALLOC_HOST_PTR buffer, mapped, as the host side of the copy. */
    rc = device_buffer(l->ctx, CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &l->pin, err);
    if (rc != HT_OK)
        goto fail;
    l->host = clEnqueueMapBuffer(l->q, l->pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                 NULL, NULL, &st);
    if (st != CL_SUCCESS) {
        l->host = NULL;
        rc = ht__cl_fail(err, HT_ECL, st, "clEnqueueMapBuffer of pinned host memory");
        goto fail;
    }
    memset(l->host, 0x5a, bytes);
    return HT_OK;
fail:
    ht__pinned_link_close(l);
    return rc;
}

void ht__pinned_link_close(struct ht__pinned_link *l)
{
    if (l->host) {
        clEnqueueUnmapMemObject(l->q, l->pin, l->host, 0, NULL, NULL);
        clFinish(l->q);
    }
    if (l->pin)
        clReleaseMemObject(l->pin);
    if (l->mem)
        clReleaseMemObject(l->mem);
    if (l->q)
        clReleaseCommandQueue(l->q);
    if (l->ctx)
        clReleaseContext(l->ctx);
    memset(l, 0, sizeof *l);
}

int ht_bandwidth_measure(const struct ht_device_info *dev, const struct ht_exec_opts *opts,
                         uint64_t bytes, unsigned repeats, struct ht_bandwidth *out,
                         struct ht_error *err)
{
    enum ht_data_path path;
    struct ht__pinned_link pl = {0};
    cl_context ctx;
    cl_command_queue q;
    cl_mem mem, path_mem = NULL;
    struct ht__hostmem path_host = {0};
    void *pinned, *pageable = NULL;
    struct link links[NLINKS];
    double rate[NLINKS][2];
    int rc;

    if (!dev || !out)
        return ht_error_set(err, HT_EINVAL, "ht_bandwidth_measure: %s is NULL",
                            !dev ? "dev" : "out");
    if (!dev->cl_device || !dev->cl_platform)
        return ht_error_set(err, HT_EINVAL, "bandwidth: no device");
    path = ht_data_path_resolve(opts ? opts->data_path : HT_PATH_AUTO, dev);
    if (!ht_data_path_name(path) || path == HT_PATH_AUTO)
        return ht_error_set(err, HT_EINVAL, "bandwidth: unknown data path %d", (int)path);
    if (repeats > BW_MAX_REPEATS)
        return ht_error_set(err, HT_EINVAL, "bandwidth: %u repeats, at most %u", repeats,
                            BW_MAX_REPEATS);
    if (bytes == 0)
        bytes = BW_DEFAULT_BYTES;
    if (dev->max_mem_alloc_size / 4 > 0 && bytes > dev->max_mem_alloc_size / 4)
        bytes = dev->max_mem_alloc_size / 4;
    if (bytes > SIZE_MAX / 2)
        return ht_error_set(err, HT_EINVAL, "bandwidth: %llu bytes do not fit in memory",
                            (unsigned long long)bytes);
    memset(out, 0, sizeof *out);
    out->path = path;
    out->bytes = bytes;
    out->repeats = repeats ? repeats : BW_DEFAULT_REPEATS;

    rc = ht__pinned_link_open(dev, (size_t)bytes, &pl, err);
    if (rc != HT_OK)
        goto cleanup;
    ctx = pl.ctx;
    q = pl.q;
    mem = pl.mem;
    pinned = pl.host;

    /* Pageable: plain malloc memory, touched first so that no page fault is timed. */
    pageable = malloc((size_t)bytes);
    if (!pageable) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory for %llu bytes of host memory",
                          (unsigned long long)bytes);
        goto cleanup;
    }
    memset(pageable, 0x5a, (size_t)bytes);

    /* hetune's own path, through the memory and the calls tuning and co-execution use. */
    rc = ht__hostmem_alloc(
        &(struct ht__hostmem_want){.ctx = ctx, .queue = q, .path = path, .bytes = (size_t)bytes},
        &path_host, err);
    if (rc != HT_OK)
        goto cleanup;
    memset(path_host.data, 0x5a, (size_t)bytes);
    links[0] = (struct link){q, mem, path_host.data, (size_t)bytes};
    if (path == HT_PATH_INPLACE) {
        rc = device_buffer(ctx, CL_MEM_USE_HOST_PTR, (size_t)bytes, path_host.data, &path_mem,
                           err);
        if (rc != HT_OK)
            goto cleanup;
        links[0] = (struct link){q, path_mem, NULL, (size_t)bytes};
    }
    links[1] = (struct link){q, mem, pinned, (size_t)bytes};
    links[2] = (struct link){q, mem, pageable, (size_t)bytes};
    rc = measure(links, out->repeats, rate, err);
    if (rc != HT_OK)
        goto cleanup;
    out->h2d_Bps = rate[0][0];
    out->d2h_Bps = rate[0][1];
    out->pinned_h2d_Bps = rate[1][0];
    out->pinned_d2h_Bps = rate[1][1];
    out->pageable_h2d_Bps = rate[2][0];
    out->pageable_d2h_Bps = rate[2][1];

cleanup:
    free(pageable);
    if (path_mem)
        clReleaseMemObject(path_mem);
    ht__hostmem_free(&path_host);
    ht__pinned_link_close(&pl);
    return rc;
}
