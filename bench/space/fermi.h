/* The synthetic Fermi-like GPU the space benches prune for (bench_space, bench_mzn): the
 * limits of the paper's device class, so that the benches need no OpenCL platform. */
#ifndef HETUNE_BENCH_FERMI_H
#define HETUNE_BENCH_FERMI_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hetune.h"

static inline struct ht_device_info fermi_like(void)
{
    struct ht_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "Fermi-like GPU (synthetic)");
    snprintf(d.platform, sizeof d.platform, "synthetic");
    snprintf(d.type, sizeof d.type, "GPU");
    d.is_gpu = 1;
    d.compute_units = 16;
    d.max_work_group_size = 1024;
    d.max_work_item_dims = 3;
    d.max_work_item_sizes[0] = 1024;
    d.max_work_item_sizes[1] = 1024;
    d.max_work_item_sizes[2] = 64;
    d.local_mem_size = 48 * 1024;
    d.global_mem_size = UINT64_C(3) << 30;
    d.max_mem_alloc_size = UINT64_C(768) << 20;
    return d;
}

#endif
