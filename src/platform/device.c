/* A device's limits as expression variables, whether its driver caches programs, as a
 * file-name-safe slug, and as MiniZinc data (the paper's generated .dzn files, §2.1). Pure:
 * no OpenCL calls. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/platform.h"
#include "util/util.h"

const char *const ht_device_var_names[HT_DEVICE_NVARS] = {
#define HT__DEVVAR_NAME(id, name) [HT_DEVVAR_##id] = name,
    HT_DEVICE_VAR_MAP(HT__DEVVAR_NAME)
#undef HT__DEVVAR_NAME
};

/* Limits are unsigned in OpenCL; none real comes near 2^63, but a driver reporting
 * all-ones must not turn negative. */
static int64_t clamp_i64(uint64_t v)
{
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

void ht_device_vars(const struct ht_device_info *d, int64_t *vals)
{
    if (!d || !vals)
        return;
    vals[HT_DEVVAR_MAX_WORK_GROUP_SIZE] = clamp_i64(d->max_work_group_size);
    vals[HT_DEVVAR_MAX_WORK_ITEM_SIZE_0] = clamp_i64(d->max_work_item_sizes[0]);
    vals[HT_DEVVAR_MAX_WORK_ITEM_SIZE_1] = clamp_i64(d->max_work_item_sizes[1]);
    vals[HT_DEVVAR_MAX_WORK_ITEM_SIZE_2] = clamp_i64(d->max_work_item_sizes[2]);
    vals[HT_DEVVAR_COMPUTE_UNITS] = d->compute_units;
    vals[HT_DEVVAR_LOCAL_MEM_SIZE] = clamp_i64(d->local_mem_size);
    vals[HT_DEVVAR_GLOBAL_MEM_SIZE] = clamp_i64(d->global_mem_size);
    vals[HT_DEVVAR_MAX_MEM_ALLOC_SIZE] = clamp_i64(d->max_mem_alloc_size);
    vals[HT_DEVVAR_IS_CPU] = d->is_cpu != 0;
    vals[HT_DEVVAR_IS_GPU] = d->is_gpu != 0;
}

int ht_device_caches_programs(const struct ht_device_info *d)
{
    const char *env = getenv("POCL_KERNEL_CACHE");

    if (!d)
        return 0;
    return strstr(d->platform, "Portable Computing Language") && !(env && !strcmp(env, "0"));
}

void ht_device_slug(const struct ht_device_info *d, char *buf, size_t size)
{
    size_t len;
    int gap = 1;

    if (!buf || size == 0)
        return;
    if (!d) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, size, "%zu", d->index);
    len = strlen(buf);
    /* The '_' of a run is written only when an alphanumeric follows, so the slug neither
     * ends in '_' nor doubles the one after the index. */
    for (const char *s = d->name; *s && len + 1 < size; s++) {
        unsigned char c = (unsigned char)tolower((unsigned char)*s);
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
            gap = 1;
            continue;
        }
        if (gap) {
            if (len + 2 >= size)
                break;
            buf[len++] = '_';
            gap = 0;
        }
        buf[len++] = (char)c;
    }
    buf[len] = '\0';
}

/* Copies s into a MiniZinc comment: a newline in a device string would end the comment. */
static void comment_text(char *dst, size_t size, const char *s)
{
    size_t i = 0;
    for (; *s && i + 1 < size; s++)
        dst[i++] = (unsigned char)*s < 0x20 ? ' ' : *s;
    dst[i] = '\0';
}

int ht_device_write_dzn(const struct ht_device_info *d, const char *dir, char *path,
                        size_t path_size, struct ht_error *err)
{
    char slug[300], name[256], platform[256], version[256], driver[256];
    char *file = NULL, *text = NULL;
    int rc = HT_OK;

    if (!d)
        return ht_error_set(err, HT_EINVAL, "ht_device_write_dzn: d is NULL");
    ht_device_slug(d, slug, sizeof slug);
    if (strlen(slug) + 5 > sizeof slug) {
        rc = ht_error_set(err, HT_EINVAL, "device slug too long");
        goto cleanup;
    }
    strcat(slug, ".dzn");
    file = ht__path_join(dir, slug);
    if (!file) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    if (path && strlen(file) >= path_size) {
        rc = ht_error_set(err, HT_EINVAL, "path buffer too small for '%s'", file);
        goto cleanup;
    }
    comment_text(name, sizeof name, d->name);
    comment_text(platform, sizeof platform, d->platform);
    comment_text(version, sizeof version, d->version);
    comment_text(driver, sizeof driver, d->driver_version);
    /* Names follow the paper's platform model: one maximum work-group size per dimension
     * (the device's max work-item sizes), the total, and the compute units. */
    text = ht__asprintf("%% hetune device data for MiniZinc\n"
                        "%% device %zu: %s (%s)\n"
                        "%% platform: %s\n"
                        "%% version: %s\n"
                        "%% driver: %s\n"
                        "max_wg_size_0 = %lld;\n"
                        "max_wg_size_1 = %lld;\n"
                        "max_wg_size_2 = %lld;\n"
                        "max_total_wg_size = %lld;\n"
                        "num_compute_units = %lld;\n"
                        "local_mem_size = %lld;\n"
                        "global_mem_size = %lld;\n"
                        "max_mem_alloc_size = %lld;\n"
                        "is_cpu = %d;\n"
                        "is_gpu = %d;\n",
                        d->index, name, d->type, platform, version, driver,
                        (long long)clamp_i64(d->max_work_item_sizes[0]),
                        (long long)clamp_i64(d->max_work_item_sizes[1]),
                        (long long)clamp_i64(d->max_work_item_sizes[2]),
                        (long long)clamp_i64(d->max_work_group_size),
                        (long long)d->compute_units,
                        (long long)clamp_i64(d->local_mem_size),
                        (long long)clamp_i64(d->global_mem_size),
                        (long long)clamp_i64(d->max_mem_alloc_size), d->is_cpu != 0,
                        d->is_gpu != 0);
    if (!text) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    /* An empty dir means the current folder, which exists. */
    if (dir && dir[0]) {
        rc = ht__mkdir_p(dir, err);
        if (rc != HT_OK)
            goto cleanup;
    }
    rc = ht__write_file(file, text, strlen(text), err);
    if (rc != HT_OK)
        goto cleanup;
    if (path)
        memcpy(path, file, strlen(file) + 1);

cleanup:
    free(file);
    free(text);
    return rc;
}
