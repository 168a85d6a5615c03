/* hetune devices: lists the OpenCL devices and their limits; writes MiniZinc data files. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char devices_usage[] =
    "usage: hetune devices [--json | --dzn DIR]\n"
    "       hetune devices --bandwidth [--json] [--db FILE] [--bytes N] [--host-bytes N]\n"
    "                      [--path P] [--device D]\n"
    "\n"
    "Lists every OpenCL device of every platform with the limits hetune prunes with.\n"
    "The index shown is what --device takes elsewhere (or a unique part of the name).\n"
    "\n"
    "With --bandwidth, also measures each device's link: what hetune's data path achieves\n"
    "host->device and device->host, beside the ceiling (a plain OpenCL copy from and to a\n"
    "pinned host buffer) and plain malloc memory (pageable), in GB/s (10^9 bytes per\n"
    "second, the best of 5 transfers each way after one untimed), with the ratio of\n"
    "hetune's path to the ceiling; and stores the measurement in the results database\n"
    "for the planner. A device working in place (inplace) copies nothing: its rates are\n"
    "those of mapping and unmapping the memory it works on. Then it measures the host\n"
    "memory, which a CPU device working in place and every GPU's transfers share: its\n"
    "rates for the CPU's threads alone (reading two 256 MiB arrays, and c = a + b over\n"
    "three, one thread per core, best of 10), and the rate it serves them and the devices\n"
    "that copy at once (each moving 16 MiB pieces of a pinned 256 MiB region to itself and\n"
    "back meanwhile), with the first one copying, the first two, and so on up to all of\n"
    "them; and stores them for this machine (its hostname). A split predicts no time\n"
    "below the bytes it moves through host memory at the shared rate of as many devices\n"
    "copying as its parts use.\n"
    "Each link is measured holding the device's lock (as tune does: another process\n"
    "measuring it is waited for, said on stderr; Ctrl-C stops the wait, 130); the end\n"
    "says 'measured under load' when other processes used 0.25 of a core or more on\n"
    "average meanwhile (docs/reliability.md; not under -q).\n"
    "\n"
    "options:\n"
    "      --json            print the devices as JSON, sizes in bytes (with --bandwidth,\n"
    "                        each device gets a \"bandwidth\" object and the document a\n"
    "                        \"host_memory\" one)\n"
    "      --dzn DIR         write DIR/<index>_<name>.dzn (MiniZinc data: max_wg_size_0..2,\n"
    "                        max_total_wg_size, num_compute_units, local_mem_size, ...)\n"
    "                        for each device, creating DIR when missing, and print each path\n"
    "      --bandwidth       measure each device's host<->device bandwidth and store it\n"
    "      --db FILE         with --bandwidth: the results database (default ./hetune.db)\n"
    "      --bytes N         with --bandwidth: bytes per transfer (default 64 MiB, at most\n"
    "                        a quarter of the device's largest allocation), and per array\n"
    "                        of the host memory's measurement (default 256 MiB) unless\n"
    "                        --host-bytes is given\n"
    "      --host-bytes N    with --bandwidth: bytes per array of the host memory's\n"
    "                        measurement alone (default --bytes when given, else 256 MiB;\n"
    "                        at least 256 a core): the links keep --bytes\n"
    "      --path P          with --bandwidth: the data path, auto (default: inplace on CPUs\n"
    "                        and host-unified devices, pinned on the others), pinned,\n"
    "                        pageable or inplace\n"
    "  -d, --device D        with --bandwidth: only device D (an index or a unique part of\n"
    "                        \"<platform> <name>\")\n"
    "  -v, --verbose         say on stderr each device found: its platform and that\n"
    "                        platform's version, type, OpenCL version and driver; with\n"
    "                        --bandwidth also each OpenCL call that failed\n"
    "\n"
    "exit status: 0 success, 1 no OpenCL platform or an OpenCL failure, 2 bad usage\n";

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
static void print_device_text(const struct ht_device_info *d, int first)
{
    char items[96], local[32], global[32], alloc[32];

    item_sizes(d, items, sizeof items);
    ht_format_bytes(d->local_mem_size, local, sizeof local);
    ht_format_bytes(d->global_mem_size, global, sizeof global);
    ht_format_bytes(d->max_mem_alloc_size, alloc, sizeof alloc);
    printf("%s%-3zu %s\n", first ? "" : "\n", d->index, d->name);
    printf("    platform    %s\n", d->platform);
    printf("    type        %s, %u compute unit%s\n", d->type, (unsigned)d->compute_units,
           d->compute_units == 1 ? "" : "s");
    printf("    version     %s\n", d->version);
    printf("    driver      %s\n", d->driver_version);
    printf("    work-group  max %llu, work-item sizes %s\n",
           (unsigned long long)d->max_work_group_size, items);
    printf("    memory      local %s, global %s, max alloc %s\n", local, global, alloc);
}

static void print_text(const struct ht_platform *p)
{
    for (size_t i = 0; i < p->count; i++)
        print_device_text(&p->devices[i], i == 0);
}

#define GBPS(bps) ((bps) / 1e9)

/* One direction of a measurement: hetune's rate, the ceiling and the ratio, pageable. */
static void print_rate_line(const char *label, double path, double pinned, double pageable)
{
    printf("                %-13s%10.2f GB/s   pinned %7.2f GB/s   ratio %6.2f   "
           "pageable %7.2f GB/s\n",
           label, GBPS(path), GBPS(pinned), pinned > 0 ? path / pinned : 0.0, GBPS(pageable));
}

static void print_bandwidth_text(const struct ht_bandwidth *bw, const char *db)
{
    char size[32];

    ht_format_bytes(bw->bytes, size, sizeof size);
    printf("    bandwidth   path %s, %s per transfer, best of %u each way, stored in %s\n",
           ht_data_path_name(bw->path), size, bw->repeats, db);
    print_rate_line("host->device", bw->h2d_Bps, bw->pinned_h2d_Bps, bw->pageable_h2d_Bps);
    print_rate_line("device->host", bw->d2h_Bps, bw->pinned_d2h_Bps, bw->pageable_d2h_Bps);
}

/* The devices [first, last) of p as JSON; with bw (last - first entries, may be NULL) each
 * device gets its "bandwidth" object. */
static int print_json(const struct ht_platform *p, size_t first, size_t last,
                      const struct ht_bandwidth *bw, const struct ht_host_memory *host)
{
    struct ht_error err;
    char *text = NULL;
    int rc;

    ht_error_clear(&err);
    /* Strings from drivers are not always UTF-8; jansson then refuses them and this fails. */
    rc = ht_present_devices_json(p->devices + first, last - first, bw, host, &text, &err);
    rc = cli_json_text("devices", rc, text);
    free(text);
    return rc;
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

/* -v: each device found, with what identifies its driver. */
static void say_devices(const struct cli_common *co, const struct ht_platform *p)
{
    cli_verbose("devices", co->verbose, "found %zu OpenCL device%s", p->count,
                p->count == 1 ? "" : "s");
    for (size_t i = 0; i < p->count; i++) {
        const struct ht_device_info *d = &p->devices[i];
        cli_verbose("devices", co->verbose, "device %zu: %s of %s (%s), %s, %s, driver %s", i,
                    d->name, d->platform, d->platform_version, d->type, d->version,
                    d->driver_version);
    }
}

/* --bandwidth: measures the devices o->device names (all by default) through the data path
 * o->exec.data_path, bytes a transfer, stores each measurement, and prints them. */
static int run_bandwidth(const struct cli_common *o, uint64_t bytes, uint64_t host_bytes)
{
    struct ht_platform *p = NULL;
    struct ht_store *store = NULL;
    struct ht_bandwidth *bw = NULL;
    struct ht_host_memory hm;
    const struct ht_device_info **copying = NULL;
    size_t ncopying = 0;
    char size[32];
    struct ht_exec_opts eo;
    struct ht_error err;
    struct ht_load load = {0};
    struct cli_waiter waiter = {"devices", 0, 0, 0};
    struct ht_device_wait wait = {0};
    struct cli_sigint sig;
    volatile sig_atomic_t stop = 0;
    size_t first = 0, last = 0;
    int status;

    status = cli_devices_range("devices", o->device ? o->device : "all", &p, &first, &last);
    if (status != 0)
        goto cleanup;
    say_devices(o, p);
    ht_error_clear(&err);
    /* The database's lock and each device's: waited for with a notice, Ctrl-C ends the
     * wait (130); once measuring, Ctrl-C kills as it always did (the locks go with it). */
    waiter.quiet = o->quiet;
    wait.stop = &stop;
    wait.on_wait = cli_device_wait;
    wait.user = &waiter;
    cli_sigint_catch(&sig, &stop);
    status = cli_store_open("devices", o->db, 0, &stop, o->quiet, &store, &err);
    cli_sigint_release(&sig);
    if (status != HT_OK) {
        status = cli_fail("devices", &err);
        goto cleanup;
    }
    bw = calloc(last - first + 1, sizeof *bw);
    copying = calloc(last - first + 1, sizeof *copying);
    if (!bw || !copying) {
        status = cli_usage_error("devices", 1, "out of memory");
        goto cleanup;
    }
    eo = o->exec;
    for (size_t i = first; i < last; i++) {
        const struct ht_device_info *d = &p->devices[i];
        struct ht_device_locks locks;
        int rc;

        ht_error_clear(&err);
        /* Taken here to wait with a notice; ht_workflow_bandwidth takes it again (a
         * process's locks are re-entrant) and watches the load. */
        cli_sigint_catch(&sig, &stop);
        rc = ht_device_locks_take(&d, 1, &wait, &locks, NULL, &err);
        cli_sigint_release(&sig);
        if (rc == HT_OK) {
            rc = ht_workflow_bandwidth(store, d, &eo, bytes, &load, &bw[i - first], &err);
            ht_device_locks_release(&locks, NULL);
        }
        if (rc != HT_OK) {
            status = cli_fail("devices", &err);
            goto cleanup;
        }
        if (!o->json) {
            print_device_text(d, i == first);
            print_bandwidth_text(&bw[i - first], o->db);
            fflush(stdout);
        }
    }
    /* The host memory, once per machine: what the CPU's part in place and every GPU's
     * transfers share when a split moves data, alone and with every device that copies
     * copying at once. */
    for (size_t i = first; i < last; i++)
        if (bw[i - first].path != HT_PATH_INPLACE)
            copying[ncopying++] = &p->devices[i];
    if (ht_workflow_host_memory(store, copying, ncopying, host_bytes, &hm, &err) != HT_OK) {
        status = cli_fail("devices", &err);
        goto cleanup;
    }
    if (o->json) {
        status = print_json(p, first, last, bw, &hm);
    } else {
        ht_format_bytes(hm.bytes, size, sizeof size);
        printf("\nhost memory     %.2f GB/s   c = a + b over 3 x %s, %u threads, best of %u; "
               "stored in %s\n", hm.Bps / 1e9, size, hm.threads, hm.repeats, o->db);
        printf("                %.2f GB/s   reading a and b alone\n", hm.read_Bps / 1e9);
        if (hm.shared_Bps > 0)
            printf("                %.2f GB/s   shared: %u threads' passes beside %u device%s "
                   "copying\n",
                   hm.shared_Bps / 1e9, hm.shared_threads, hm.shared_devices,
                   hm.shared_devices == 1 ? "" : "s");
        for (unsigned k = 1; k < hm.shared_devices && k <= HT_HOST_SHARED_MAX; k++)
            if (hm.shared_by_Bps[k - 1] > 0)
                printf("                %.2f GB/s   shared beside the first %u copying\n",
                       hm.shared_by_Bps[k - 1] / 1e9, k);
        printf("                shared by the CPU's part in place and every GPU's transfers "
               "when a split moves data\n");
    }
    /* The links' windows (each device's, with its lock held); the host memory's passes
     * hold no device lock and are not watched. */
    cli_load_notice("devices", &load, o->quiet);

cleanup:
    free(copying);
    free(bw);
    ht_store_close(store);
    ht_platform_free(p);
    return status;
}

int cmd_devices(int argc, char **argv)
{
    enum { OPT_DZN = CLI_OPT_OWN, OPT_BANDWIDTH, OPT_BYTES, OPT_HOST_BYTES, OPT_PATH };
    static const struct option own[] = {
        {"dzn", required_argument, NULL, OPT_DZN}, {"bandwidth", no_argument, NULL, OPT_BANDWIDTH},
        {"bytes", required_argument, NULL, OPT_BYTES}, {"path", required_argument, NULL, OPT_PATH},
        {"host-bytes", required_argument, NULL, OPT_HOST_BYTES},
        {NULL, 0, NULL, 0},
    };
    struct cli_common co;
    struct ht_platform *p = NULL;
    struct ht_error err;
    const char *dzn = NULL, *bw_only = NULL;
    uint64_t bytes = 0, host_bytes = 0; /* 0: the default */
    int bandwidth = 0, c, status;

    cli_common_init(&co, "devices", devices_usage,
                    CLI_F_JSON | CLI_F_DB | CLI_F_DEVICE | CLI_F_VERBOSE | CLI_F_QUIET, own);
    co.own_help = CLI_F_JSON | CLI_F_DB | CLI_F_DEVICE | CLI_F_VERBOSE;
    while ((c = cli_getopt(&co, argc, argv)) != -1) {
        switch (c) {
        case OPT_DZN: dzn = optarg; break;
        case OPT_BANDWIDTH: bandwidth = 1; break;
        case OPT_BYTES:
            bw_only = "--bytes";
            /* 0 is not taken: the range said is 1 to 2^40. */
            if (cli_parse_uint("devices", NULL, optarg, UINT64_C(1) << 40, &bytes) != 0 ||
                bytes == 0)
                return cli_usage_error("devices", 2, "--bytes takes 1 to 2^40 bytes, not '%s'",
                                       optarg);
            break;
        case OPT_HOST_BYTES:
            bw_only = "--host-bytes";
            if (cli_parse_uint("devices", NULL, optarg, UINT64_C(1) << 40, &host_bytes) != 0 ||
                host_bytes == 0)
                return cli_usage_error("devices", 2,
                                       "--host-bytes takes 1 to 2^40 bytes, not '%s'", optarg);
            break;
        case OPT_PATH:
            bw_only = "--path";
            if (cli_parse_data_path("devices", "--path", optarg, &co.exec.data_path) != 0)
                return 2;
            break;
        default:
            if ((status = cli_common_option(&co, c, optarg, argv)) != CLI_CONTINUE)
                return status;
        }
    }
    bw_only = co.device ? "--device" : strcmp(co.db, HT_STORE_DEFAULT_PATH) ? "--db" : bw_only;
    if (cli_no_args("devices", argc, argv) != 0)
        return 2;
    if (co.json && dzn)
        return cli_usage_error("devices", 2, "--json and --dzn cannot be combined");
    if (bandwidth && dzn)
        return cli_usage_error("devices", 2, "--bandwidth and --dzn cannot be combined");
    if (bw_only && !bandwidth)
        return cli_usage_error("devices", 2, "%s needs --bandwidth", bw_only);
    if (dzn && !*dzn)
        return cli_usage_error("devices", 2, "--dzn needs a folder name");
    if (bandwidth && !*co.db)
        return cli_usage_error("devices", 2, "--db needs a file name");
    if (bandwidth) {
        /* The host memory's arrays: --host-bytes, else --bytes, else the default (0). */
        const char *named = host_bytes ? "--host-bytes" : "--bytes";
        uint64_t min = ht_host_memory_min_bytes(0);
        if (!host_bytes)
            host_bytes = bytes;
        if (host_bytes && host_bytes < min)
            return cli_usage_error("devices", 2, "%s %llu: the host memory's measurement "
                                   "takes at least %llu bytes per array here (256 a core)",
                                   named, (unsigned long long)host_bytes,
                                   (unsigned long long)min);
        return run_bandwidth(&co, bytes, host_bytes);
    }

    ht_error_clear(&err);
    if (ht_platform_discover(&p, &err) != HT_OK)
        return cli_fail("devices", &err);
    say_devices(&co, p);
    if (dzn)
        status = write_dzn(p, dzn);
    else if (co.json)
        status = print_json(p, 0, p->count, NULL, NULL);
    else {
        print_text(p);
        status = 0;
    }
    ht_platform_free(p);
    return status;
}
