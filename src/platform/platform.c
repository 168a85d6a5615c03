/* OpenCL platform and device discovery: every device of every platform, its limits kept as
 * plain data (include/hetune/platform.h), and resolving a device as users name it. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

#include "hetune/platform.h"
#include "util/util.h"

/* ocl-icd and the Khronos loader return this when no ICD is registered; cl.h of OpenCL 1.2
 * defines it only in cl_ext.h (cl_khr_icd), so it is spelled out here. */
#define HT__CL_PLATFORM_NOT_FOUND_KHR (-1001)

#define HT__NO_PLATFORM_HINT \
    "no OpenCL platform found (is an ICD such as pocl-opencl-icd installed? see /etc/OpenCL/vendors)"

/* Copies a string property into a fixed buffer, cut to fit. OpenCL refuses a buffer smaller
 * than the value with CL_INVALID_VALUE, so the size is asked first. */
static cl_int query_string(cl_platform_id platform, cl_device_id device, cl_uint param,
                           char *buf, size_t size)
{
    size_t need = 0;
    char *tmp = NULL;
    cl_int st;

    st = device ? clGetDeviceInfo(device, param, 0, NULL, &need)
                : clGetPlatformInfo(platform, param, 0, NULL, &need);
    if (st != CL_SUCCESS)
        goto cleanup;
    tmp = malloc(need + 1);
    if (!tmp) {
        st = CL_OUT_OF_HOST_MEMORY;
        goto cleanup;
    }
    st = device ? clGetDeviceInfo(device, param, need, tmp, NULL)
                : clGetPlatformInfo(platform, param, need, tmp, NULL);
    if (st != CL_SUCCESS)
        goto cleanup;
    tmp[need] = '\0';
    snprintf(buf, size, "%s", tmp);
cleanup:
    free(tmp);
    return st;
}

/* Sets err to HT_ECL with the raw status kept, unless err already holds an error. */
static int cl_fail(struct ht_error *err, cl_int st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int cl_fail(struct ht_error *err, cl_int st, const char *fmt, ...)
{
    char what[1024];
    va_list ap;

    if (!err || err->code != 0)
        return HT_ECL;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    ht_error_set(err, HT_ECL, "%s: %s", what, ht__cl_err_name(st));
    err->cl_status = st;
    return HT_ECL;
}

/* Reads one fixed-size device property; the size must match what OpenCL reports. */
#define HT__DEV_QUERY(dev, param, var)                                                 \
    do {                                                                                \
        st = clGetDeviceInfo((dev), (param), sizeof(var), &(var), NULL);                \
        if (st != CL_SUCCESS) {                                                         \
            rc = cl_fail(err, st, "clGetDeviceInfo(%s) failed for device %zu", #param, \
                         d->index);                                                     \
            goto cleanup;                                                               \
        }                                                                               \
    } while (0)

/* Reads one string device property into a fixed buffer. */
#define HT__DEV_STRING(dev, param, buf)                                                \
    do {                                                                                \
        st = query_string(NULL, (dev), (param), (buf), sizeof(buf));                    \
        if (st != CL_SUCCESS) {                                                         \
            rc = cl_fail(err, st, "clGetDeviceInfo(%s) failed for device %zu", #param, \
                         d->index);                                                     \
            goto cleanup;                                                               \
        }                                                                               \
    } while (0)

static int fill_device(struct ht_device_info *d, cl_device_id dev, struct ht_error *err)
{
    cl_device_type type = 0;
    cl_uint units = 0, dims = 0;
    size_t wg = 0, *items = NULL;
    cl_ulong local = 0, global = 0, alloc = 0;
    cl_command_queue_properties qprops = 0;
    cl_int st;
    int rc = HT_OK;

    d->cl_device = dev;
    HT__DEV_STRING(dev, CL_DEVICE_NAME, d->name);
    HT__DEV_STRING(dev, CL_DEVICE_VENDOR, d->vendor);
    HT__DEV_STRING(dev, CL_DEVICE_VERSION, d->version);
    HT__DEV_STRING(dev, CL_DRIVER_VERSION, d->driver_version);
    HT__DEV_QUERY(dev, CL_DEVICE_TYPE, type);
    HT__DEV_QUERY(dev, CL_DEVICE_MAX_COMPUTE_UNITS, units);
    HT__DEV_QUERY(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, wg);
    HT__DEV_QUERY(dev, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, dims);
    HT__DEV_QUERY(dev, CL_DEVICE_LOCAL_MEM_SIZE, local);
    HT__DEV_QUERY(dev, CL_DEVICE_GLOBAL_MEM_SIZE, global);
    HT__DEV_QUERY(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, alloc);
    HT__DEV_QUERY(dev, CL_DEVICE_QUEUE_PROPERTIES, qprops);

    /* hetune's NDRanges have at most 3 dimensions (the spec's global and local sizes), so a
     * 4th would never be used; keeping at most 3 keeps the struct's dims and sizes in
     * agreement. */
    if (dims > 0) {
        items = calloc(dims, sizeof *items);
        if (!items) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
        st = clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof *items, items,
                             NULL);
        if (st != CL_SUCCESS) {
            rc = cl_fail(err, st,
                         "clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES) failed for device %zu",
                         d->index);
            goto cleanup;
        }
    }
    d->max_work_item_dims = dims > 3 ? 3 : dims;
    for (cl_uint i = 0; i < 3; i++)
        d->max_work_item_sizes[i] = i < d->max_work_item_dims ? (uint64_t)items[i] : 1;

    d->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    d->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    snprintf(d->type, sizeof d->type, "%s",
             d->is_gpu                             ? "GPU"
             : d->is_cpu                           ? "CPU"
             : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "ACCELERATOR"
             : (type & CL_DEVICE_TYPE_CUSTOM)      ? "CUSTOM"
                                                   : "DEFAULT");
    d->compute_units = units;
    d->max_work_group_size = wg;
    d->local_mem_size = local;
    d->global_mem_size = global;
    d->max_mem_alloc_size = alloc;
    d->profiling = (qprops & CL_QUEUE_PROFILING_ENABLE) != 0;
    {
        cl_bool unified = CL_FALSE;
        /* Deprecated in OpenCL 2.0 but still answered; a device that does not answer is
         * taken to have its own memory. */
        if (clGetDeviceInfo(dev, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL) !=
            CL_SUCCESS)
            unified = CL_FALSE;
        d->host_unified = d->is_cpu || unified == CL_TRUE;
    }

cleanup:
    free(items);
    return rc;
}

#undef HT__DEV_QUERY
#undef HT__DEV_STRING

/* Appends the devices of one platform to p. A platform without devices adds none. */
static int add_platform(struct ht_platform *p, cl_platform_id plat, size_t plat_index,
                        struct ht_error *err)
{
    char name[256], version[256];
    cl_uint n = 0;
    cl_device_id *ids = NULL;
    struct ht_device_info *grown;
    cl_int st;
    int rc = HT_OK;

    st = query_string(plat, NULL, CL_PLATFORM_NAME, name, sizeof name);
    if (st == CL_SUCCESS)
        st = query_string(plat, NULL, CL_PLATFORM_VERSION, version, sizeof version);
    if (st != CL_SUCCESS) {
        rc = cl_fail(err, st, "clGetPlatformInfo failed for platform %zu", plat_index);
        goto cleanup;
    }
    st = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
    if (st == CL_DEVICE_NOT_FOUND || (st == CL_SUCCESS && n == 0))
        goto cleanup;
    if (st != CL_SUCCESS)
        goto ids_failed;
    ids = calloc(n, sizeof *ids);
    grown = realloc(p->devices, (p->count + n) * sizeof *p->devices);
    if (grown)
        p->devices = grown;
    if (!ids || !grown) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    st = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, n, ids, NULL);
    if (st != CL_SUCCESS)
        goto ids_failed;
    for (cl_uint i = 0; i < n; i++) {
        struct ht_device_info *d = &p->devices[p->count];
        memset(d, 0, sizeof *d);
        d->index = p->count;
        d->platform_index = plat_index;
        d->cl_platform = plat;
        memcpy(d->platform, name, sizeof d->platform);
        memcpy(d->platform_version, version, sizeof d->platform_version);
        rc = fill_device(d, ids[i], err);
        if (rc != HT_OK)
            goto cleanup;
        for (size_t k = 0; k < p->count; k++)
            if (!strcmp(p->devices[k].platform, d->platform) &&
                !strcmp(p->devices[k].name, d->name) &&
                !strcmp(p->devices[k].driver_version, d->driver_version))
                d->ordinal++;
        p->count++;
    }
    goto cleanup;

ids_failed:
    rc = cl_fail(err, st, "clGetDeviceIDs failed for platform %zu (%s)", plat_index, name);
cleanup:
    free(ids);
    return rc;
}

int ht_platform_discover(struct ht_platform **out, struct ht_error *err)
{
    struct ht_platform *p = NULL;
    cl_platform_id *plats = NULL;
    cl_uint n = 0;
    cl_int st;
    int rc = HT_OK;

    if (!out)
        return ht_error_set(err, HT_EINVAL, "ht_platform_discover: out is NULL");
    *out = NULL;
    /* OpenCL implementations edit the environment as they start (PoCL drops entries of
     * OCL_ICD_FILENAMES): worker processes get it as it was before (src/exec/worker.c). */
    ht__env_snapshot();
    st = clGetPlatformIDs(0, NULL, &n);
    if (st == HT__CL_PLATFORM_NOT_FOUND_KHR || (st == CL_SUCCESS && n == 0)) {
        rc = ht_error_set(err, HT_ENOPLATFORM, HT__NO_PLATFORM_HINT);
        goto cleanup;
    }
    if (st != CL_SUCCESS) {
        rc = cl_fail(err, st, "clGetPlatformIDs failed");
        goto cleanup;
    }
    plats = calloc(n, sizeof *plats);
    p = calloc(1, sizeof *p);
    if (!plats || !p) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    st = clGetPlatformIDs(n, plats, NULL);
    if (st != CL_SUCCESS) {
        rc = cl_fail(err, st, "clGetPlatformIDs failed");
        goto cleanup;
    }
    for (cl_uint i = 0; i < n; i++) {
        rc = add_platform(p, plats[i], i, err);
        if (rc != HT_OK)
            goto cleanup;
    }
    if (p->count == 0) {
        rc = ht_error_set(err, HT_ENOPLATFORM,
                          "found %u OpenCL platform%s but no device (is the ICD's driver "
                          "working? see /etc/OpenCL/vendors)",
                          (unsigned)n, n == 1 ? "" : "s");
        goto cleanup;
    }
    *out = p;
    p = NULL;

cleanup:
    ht_platform_free(p);
    free(plats);
    return rc;
}

void ht_platform_free(struct ht_platform *p)
{
    if (!p)
        return;
    free(p->devices);
    free(p);
}

/* Case-insensitive strstr on ASCII. */
static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

static int matches(const struct ht_device_info *d, const char *name)
{
    char full[sizeof d->platform + sizeof d->name + 1];
    snprintf(full, sizeof full, "%s %s", d->platform, d->name);
    return contains_nocase(full, name);
}

/* Appends "  <index>: <platform> <name>" for the devices that pass the filter (all when
 * name is NULL) to a message buffer, cutting it rather than overflowing. */
static void list_devices(const struct ht_platform *p, const char *name, char *buf,
                         size_t size)
{
    size_t len = strlen(buf);
    for (size_t i = 0; i < p->count && len + 1 < size; i++) {
        if (name && !matches(&p->devices[i], name))
            continue;
        int k = snprintf(buf + len, size - len, "%s%zu: %s %s", len ? "; " : "", i,
                         p->devices[i].platform, p->devices[i].name);
        if (k < 0)
            break;
        len += (size_t)k < size - len ? (size_t)k : size - len - 1;
    }
}

int ht_platform_find(const struct ht_platform *p, const char *name, size_t *index,
                     struct ht_error *err)
{
    char list[1536] = "";
    size_t hits = 0, hit = 0;

    if (!p || !index)
        return ht_error_set(err, HT_EINVAL, "ht_platform_find: %s is NULL", !p ? "p" : "index");
    if (!name || !*name) {
        list_devices(p, NULL, list, sizeof list);
        return ht_error_set(err, HT_ENODEVICE, "empty device name; devices are %s", list);
    }
    if (strspn(name, "0123456789") == strlen(name)) {
        errno = 0;
        unsigned long long v = strtoull(name, NULL, 10);
        if (errno == 0 && v < p->count) {
            *index = (size_t)v;
            return HT_OK;
        }
        list_devices(p, NULL, list, sizeof list);
        return ht_error_set(err, HT_ENODEVICE, "no device with index %s; devices are %s", name,
                            list);
    }
    for (size_t i = 0; i < p->count; i++) {
        if (matches(&p->devices[i], name)) {
            hits++;
            hit = i;
        }
    }
    if (hits == 1) {
        *index = hit;
        return HT_OK;
    }
    if (hits == 0) {
        list_devices(p, NULL, list, sizeof list);
        return ht_error_set(err, HT_ENODEVICE, "no device matches '%s'; devices are %s", name,
                            list);
    }
    list_devices(p, name, list, sizeof list);
    return ht_error_set(err, HT_ENODEVICE,
                        "'%s' matches %zu devices (%s); name one by index or a longer part "
                        "of its name",
                        name, hits, list);
}
