/* hetune devices: lists the OpenCL devices and their limits; writes MiniZinc data files. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

static const char devices_usage[] =
    "usage: hetune devices [--json | --dzn DIR]\n"
    "\n"
    "Lists every OpenCL device of every platform with the limits hetune prunes with.\n"
    "The index shown is what --device takes elsewhere (or a unique part of the name).\n"
    "\n"
    "options:\n"
    "  --json      print the devices as JSON, sizes in bytes\n"
    "  --dzn DIR   write DIR/<index>_<name>.dzn (MiniZinc data: max_wg_size_0..2,\n"
    "              max_total_wg_size, num_compute_units, local_mem_size, ...) for\n"
    "              each device, creating DIR when missing, and print each path\n"
    "  -h, --help  show this help\n"
    "\n"
    "exit status: 0 success, 1 no OpenCL platform or an OpenCL failure, 2 bad usage\n";

/* Bytes in binary units, one decimal when it is not a whole number: "256 KiB", "15.5 GiB". */
static void human_size(uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    size_t u = 0;

    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    if (u == 0) {
        snprintf(buf, size, "%llu B", (unsigned long long)bytes);
        return;
    }
    /* v < 1024 here, so the tenths fit easily. */
    long long tenths = (long long)(v * 10.0 + 0.5);
    if (tenths % 10 == 0)
        snprintf(buf, size, "%lld %s", tenths / 10, units[u]);
    else
        snprintf(buf, size, "%lld.%lld %s", tenths / 10, tenths % 10, units[u]);
}

static void item_sizes(const struct ht_device_info *d, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < d->max_work_item_dims && len < size; i++) {
        int k = snprintf(buf + len, size - len, "%s%llu", i ? "x" : "",
                         (unsigned long long)d->max_work_item_sizes[i]);
        if (k < 0)
            break;
        len += (size_t)k;
    }
}

/* One block per device: a long version string fits no fixed-width column, so each value
 * gets its own labelled line and wraps, if at all, on its own. */
static void print_text(const struct ht_platform *p)
{
    for (size_t i = 0; i < p->count; i++) {
        const struct ht_device_info *d = &p->devices[i];
        char items[96], local[32], global[32], alloc[32];

        item_sizes(d, items, sizeof items);
        human_size(d->local_mem_size, local, sizeof local);
        human_size(d->global_mem_size, global, sizeof global);
        human_size(d->max_mem_alloc_size, alloc, sizeof alloc);
        printf("%s%-3zu %s\n", i ? "\n" : "", d->index, d->name);
        printf("    platform    %s\n", d->platform);
        printf("    type        %s, %u compute unit%s\n", d->type, (unsigned)d->compute_units,
               d->compute_units == 1 ? "" : "s");
        printf("    version     %s\n", d->version);
        printf("    driver      %s\n", d->driver_version);
        printf("    work-group  max %llu, work-item sizes %s\n",
               (unsigned long long)d->max_work_group_size, items);
        printf("    memory      local %s, global %s, max alloc %s\n", local, global, alloc);
    }
}

static json_t *device_json(const struct ht_device_info *d)
{
    json_t *o = json_object(), *sizes = json_array();
    int64_t vals[HT_DEVICE_NVARS];

    if (!o || !sizes) {
        json_decref(o);
        json_decref(sizes);
        return NULL;
    }
    /* ht_device_vars gives the limits as the signed 64-bit numbers JSON integers are. */
    ht_device_vars(d, vals);
    for (uint32_t i = 0; i < d->max_work_item_dims; i++)
        json_array_append_new(sizes, json_integer(vals[HT_DEVVAR_MAX_WORK_ITEM_SIZE_0 + i]));
    json_object_set_new(o, "index", json_integer((json_int_t)d->index));
    json_object_set_new(o, "platform", json_string(d->platform));
    json_object_set_new(o, "name", json_string(d->name));
    json_object_set_new(o, "type", json_string(d->type));
    json_object_set_new(o, "version", json_string(d->version));
    json_object_set_new(o, "driver_version", json_string(d->driver_version));
    json_object_set_new(o, "compute_units", json_integer(vals[HT_DEVVAR_COMPUTE_UNITS]));
    json_object_set_new(o, "max_work_group_size",
                        json_integer(vals[HT_DEVVAR_MAX_WORK_GROUP_SIZE]));
    json_object_set_new(o, "max_work_item_dims", json_integer(d->max_work_item_dims));
    json_object_set_new(o, "max_work_item_sizes", sizes);
    json_object_set_new(o, "local_mem_size", json_integer(vals[HT_DEVVAR_LOCAL_MEM_SIZE]));
    json_object_set_new(o, "global_mem_size", json_integer(vals[HT_DEVVAR_GLOBAL_MEM_SIZE]));
    json_object_set_new(o, "max_mem_alloc_size",
                        json_integer(vals[HT_DEVVAR_MAX_MEM_ALLOC_SIZE]));
    json_object_set_new(o, "is_cpu", json_boolean(d->is_cpu));
    json_object_set_new(o, "is_gpu", json_boolean(d->is_gpu));
    return o;
}

static int print_json(const struct ht_platform *p)
{
    json_t *root = json_object(), *list = json_array();
    char *text = NULL;
    int status = 1;

    if (!root || !list) {
        json_decref(list);
        goto cleanup;
    }
    json_object_set_new(root, "devices", list);
    for (size_t i = 0; i < p->count; i++) {
        json_t *o = device_json(&p->devices[i]);
        if (!o || json_array_append_new(list, o) != 0)
            goto cleanup;
    }
    /* Strings from drivers are not always UTF-8; jansson then refuses them and this fails. */
    text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (!text)
        goto cleanup;
    printf("%s\n", text);
    status = 0;

cleanup:
    if (status != 0)
        fprintf(stderr, "hetune devices: cannot write the device list as JSON\n");
    free(text);
    json_decref(root);
    return status;
}

static int write_dzn(const struct ht_platform *p, const char *dir)
{
    struct ht_error err;
    char path[4096];

    for (size_t i = 0; i < p->count; i++) {
        ht_error_clear(&err);
        if (ht_device_write_dzn(&p->devices[i], dir, path, sizeof path, &err) != HT_OK)
            return cli_fail("devices", &err);
        printf("%s\n", path);
    }
    return 0;
}

int cmd_devices(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"dzn", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct ht_platform *p = NULL;
    struct ht_error err;
    const char *dzn = NULL;
    int json = 0, c, status;

    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'd': dzn = optarg; break;
        case 'h': fputs(devices_usage, stdout); return 0;
        default: return cli_getopt_error("devices", c, argv);
        }
    }
    if (cli_no_args("devices", argc, argv) != 0)
        return 2;
    if (json && dzn)
        return cli_usage_error("devices", 2, "--json and --dzn cannot be combined");
    if (dzn && !*dzn)
        return cli_usage_error("devices", 2, "--dzn needs a folder name");

    ht_error_clear(&err);
    if (ht_platform_discover(&p, &err) != HT_OK)
        return cli_fail("devices", &err);
    if (dzn)
        status = write_dzn(p, dzn);
    else if (json)
        status = print_json(p);
    else {
        print_text(p);
        status = 0;
    }
    ht_platform_free(p);
    return status;
}
