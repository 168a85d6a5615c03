/* hetune — OpenCL platform and device discovery.
 *
 * Learns every OpenCL device on every platform with clGetPlatformIDs / clGetDeviceIDs /
 * clGetDeviceInfo and keeps its limits as plain data. This header does not include the
 * OpenCL headers: the OpenCL handles are kept as void pointers for src/exec to use.
 *
 * A NULL pointer a function cannot do without is HT_EINVAL with err->text "FUNCTION:
 * ARGUMENT is NULL", never a crash; err may be NULL everywhere. The void functions do nothing
 * with a NULL (ht_device_slug writes "" for a NULL device), ht_device_caches_programs(NULL)
 * is 0.
 */
#ifndef HETUNE_PLATFORM_H
#define HETUNE_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device variables expressions may name, in slot order (see ht_device_vars). */
#define HT_DEVICE_VAR_MAP(X)                                                     \
    X(MAX_WORK_GROUP_SIZE, "max_work_group_size")                                \
    X(MAX_WORK_ITEM_SIZE_0, "max_work_item_size_0")                              \
    X(MAX_WORK_ITEM_SIZE_1, "max_work_item_size_1")                              \
    X(MAX_WORK_ITEM_SIZE_2, "max_work_item_size_2")                              \
    X(COMPUTE_UNITS, "compute_units")                                            \
    X(LOCAL_MEM_SIZE, "local_mem_size")                                          \
    X(GLOBAL_MEM_SIZE, "global_mem_size")                                        \
    X(MAX_MEM_ALLOC_SIZE, "max_mem_alloc_size")                                  \
    X(IS_CPU, "is_cpu")                                                          \
    X(IS_GPU, "is_gpu")

enum ht_device_var {
#define HT__DEVVAR_ENUM(id, name) HT_DEVVAR_##id,
    HT_DEVICE_VAR_MAP(HT__DEVVAR_ENUM)
#undef HT__DEVVAR_ENUM
    HT_DEVICE_NVARS
};

/* The names of the device variables, indexed by enum ht_device_var. Static storage. */
extern const char *const ht_device_var_names[HT_DEVICE_NVARS];

struct ht_device_info {
    size_t index;               /* position in ht_platform.devices, the number users type */
    size_t platform_index;      /* position of its platform in clGetPlatformIDs order */
    char platform[256];         /* CL_PLATFORM_NAME */
    char platform_version[256]; /* CL_PLATFORM_VERSION */
    char name[256];             /* CL_DEVICE_NAME */
    char vendor[256];           /* CL_DEVICE_VENDOR */
    char type[32];              /* "CPU", "GPU", "ACCELERATOR", "CUSTOM" or "DEFAULT" */
    int is_cpu, is_gpu;
    char version[256];          /* CL_DEVICE_VERSION */
    char driver_version[256];   /* CL_DRIVER_VERSION */
    uint32_t compute_units;
    uint64_t max_work_group_size;
    uint32_t max_work_item_dims;
    uint64_t max_work_item_sizes[3]; /* dimensions beyond max_work_item_dims hold 1 */
    uint64_t local_mem_size, global_mem_size, max_mem_alloc_size;
    int profiling;              /* CL_QUEUE_PROFILING_ENABLE is supported */
    int host_unified;           /* CL_DEVICE_HOST_UNIFIED_MEMORY: the device shares the host's
                                   memory (integrated GPUs); CPU devices always do */
    uint32_t ordinal;           /* how many devices before this one share its platform, name
                                   and driver version: 0, or 1 for the second of two
                                   identical GPUs; keeps them apart in the results database */
    void *cl_platform;          /* cl_platform_id, borrowed from the OpenCL runtime */
    void *cl_device;            /* cl_device_id, borrowed from the OpenCL runtime */
};

struct ht_platform {
    size_t count;
    struct ht_device_info *devices; /* owned by the ht_platform */
};

/* Finds every device of every platform. *out is owned by the caller (ht_platform_free).
 * Returns HT_ENOPLATFORM when the ICD loader finds no platform or no platform has a
 * device, HT_ECL (err->cl_status set) when a query fails. */
int ht_platform_discover(struct ht_platform **out, struct ht_error *err);

/* Frees what ht_platform_discover returned; NULL is allowed. */
void ht_platform_free(struct ht_platform *p);

/* Resolves a device as users name it: a decimal index from `hetune devices`, or a
 * case-insensitive substring of "<platform> <name>" that matches exactly one device.
 * Sets *index. Returns HT_ENODEVICE with a message listing the candidates when the name
 * matches none or several, or is empty or NULL. */
int ht_platform_find(const struct ht_platform *p, const char *name, size_t *index,
                     struct ht_error *err);

/* Fills vals (HT_DEVICE_NVARS entries, indexed by enum ht_device_var) from the device. */
void ht_device_vars(const struct ht_device_info *d, int64_t *vals);

/* A file-name-safe identifier of the device: its name lowercased, runs of characters other
 * than [a-z0-9] turned into '_', prefixed by its index ("0_pthread_skylake_avx512").
 * Writes at most size bytes including the terminating NUL. */
void ht_device_slug(const struct ht_device_info *d, char *buf, size_t size);

/* 1 when the device's driver keeps the programs it builds in a cache of its own, and that
 * cache is on: PoCL, unless its environment variable POCL_KERNEL_CACHE is 0 (read at each
 * call). hetune's binary cache then holds markers of the programs built rather than their
 * binaries (a tune's summary says so: ht_tune_result.driver_cache). */
int ht_device_caches_programs(const struct ht_device_info *d);

/* Writes DIR/<slug>.dzn, the paper's device data for MiniZinc:
 *   max_wg_size_0..2 (per dimension), max_total_wg_size, num_compute_units,
 *   local_mem_size, plus global_mem_size, max_mem_alloc_size, is_cpu, is_gpu.
 * Creates DIR when missing; dir NULL or "": the current folder. When path is not NULL the
 * written path is copied there.
 * Returns HT_EIO with err filled on failure. */
int ht_device_write_dzn(const struct ht_device_info *d, const char *dir, char *path,
                        size_t path_size, struct ht_error *err);

#ifdef __cplusplus
}
#endif
#endif
