/* The option, argument, spec and device handling that every subcommand shares. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_getopt_error(const char *cmd, int c, char **argv)
{
    if (c == ':')
        return cli_usage_error(cmd, 2, "option '%s' needs a value (see --help)",
                               argv[optind - 1]);
    return cli_usage_error(cmd, 2, "unknown option '%s' (see --help)", argv[optind - 1]);
}

int cli_spec_arg(const char *cmd, int argc, char **argv)
{
    if (optind >= argc)
        return cli_usage_error(cmd, 2, "missing SPEC (see --help)");
    if (optind + 1 < argc)
        return cli_usage_error(cmd, 2, "unexpected argument '%s' (see --help)",
                               argv[optind + 1]);
    return 0;
}

int cli_no_args(const char *cmd, int argc, char **argv)
{
    if (optind < argc)
        return cli_usage_error(cmd, 2, "unexpected argument '%s' (see --help)", argv[optind]);
    return 0;
}

int cli_load_spec(const char *cmd, const char *path, const struct ht_size_override *ov,
                  size_t nov, struct ht_spec **spec)
{
    struct ht_error err;
    int rc;

    ht_error_clear(&err);
    rc = ht_spec_load(path, ov, nov, spec, &err);
    if (rc == HT_OK)
        return 0;
    cli_fail(cmd, &err);
    /* An unreadable spec is bad input too; only running out of memory is not. */
    return rc == HT_ENOMEM ? 1 : 2;
}

int cli_parse_uint(const char *cmd, const char *opt, const char *arg, uint64_t max,
                   uint64_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(arg, &end, 10);
    if (errno || end == arg || *end || arg[0] == '-' || v > max)
        return cli_usage_error(cmd, 2, "%s takes an integer from 0 to %" PRIu64 ", not '%s'",
                               opt, max, arg);
    *out = (uint64_t)v;
    return 0;
}

int cli_parse_eq3(const char *cmd, const char *arg, enum ht_eq3 *eq3)
{
    if (ht_eq3_parse(arg, eq3) != HT_OK)
        return cli_usage_error(cmd, 2, "--eq3 takes product, sum or off, not '%s'", arg);
    return 0;
}

int cli_parse_data_path(const char *cmd, const char *arg, enum ht_data_path *path)
{
    if (ht_data_path_parse(arg, path) != HT_OK)
        return cli_usage_error(cmd, 2,
                               "--data-path takes auto, pinned, pageable or inplace, not '%s'",
                               arg);
    return 0;
}

int cli_parse_residue(const char *cmd, const char *arg, enum ht_split_residue *rule)
{
    if (ht_split_residue_parse(arg, rule) != HT_OK)
        return cli_usage_error(cmd, 2, "--residue takes work (Eq. 9), time or groups, not '%s'",
                               arg);
    return 0;
}

void cli_print_residue(const struct ht_split_plan *p, char **names)
{
    size_t takers = 0;

    for (size_t i = 0; i < p->ndevices; i++)
        takers += p->slices[i].extra_groups > 0;
    printf("%" PRIu64 " work-items, to", p->residue);
    for (size_t i = 0, first = 1; i < p->ndevices; i++) {
        if (!p->slices[i].extra_groups)
            continue;
        printf("%s device ", first ? "" : ",");
        if (names)
            printf("%s", names[i]);
        else
            printf("%zu", i);
        printf(" (+%" PRIu64 " group%s)", p->slices[i].extra_groups,
               p->slices[i].extra_groups == 1 ? "" : "s");
        first = 0;
    }
    if (takers > 1) {
        printf("; device ");
        if (names)
            printf("%s", names[p->residue_device]);
        else
            printf("%zu", p->residue_device);
        printf(" last");
    }
}

int cli_parse_strategy(const char *cmd, const char *arg, const char **strategy)
{
    if (!ht_search_find(arg))
        return cli_usage_error(cmd, 2, "unknown strategy '%s'", arg);
    *strategy = arg;
    return 0;
}

int cli_devices_range(const char *cmd, const char *device, struct ht_platform **plat,
                      size_t *first, size_t *last)
{
    struct ht_error err;
    int rc;

    ht_error_clear(&err);
    rc = ht_platform_discover(plat, &err);
    if (rc != HT_OK)
        return cli_fail(cmd, &err);
    if (!strcmp(device, "all")) {
        *first = 0;
        *last = (*plat)->count;
        return 0;
    }
    rc = ht_platform_find(*plat, device, first, &err);
    if (rc != HT_OK)
        return cli_fail(cmd, &err);
    *last = *first + 1;
    return 0;
}

/* Resolves "D,D,..." or "all" into plat's device indices (*idx owned by the caller). */
static int parse_devices(const struct ht_platform *plat, char *list, size_t **idx, size_t *n,
                         struct ht_error *err)
{
    size_t cap = 1, k = 0;
    char *save = NULL, *tok;

    if (!strcmp(list, "all")) {
        *idx = malloc((plat->count ? plat->count : 1) * sizeof **idx);
        if (!*idx)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        for (size_t i = 0; i < plat->count; i++)
            (*idx)[i] = i;
        *n = plat->count;
        return plat->count ? HT_OK : ht_error_set(err, HT_ENODEVICE, "no OpenCL device");
    }
    for (const char *p = list; *p; p++)
        cap += *p == ',';
    *idx = malloc(cap * sizeof **idx);
    if (!*idx)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int rc = ht_platform_find(plat, tok, &(*idx)[k], err);
        if (rc != HT_OK)
            return rc;
        k++;
    }
    if (k == 0)
        return ht_error_set(err, HT_ENODEVICE, "--device names no device");
    *n = k;
    return HT_OK;
}

int cli_devices_list(const char *cmd, char *list, struct ht_platform **plat, size_t **idx,
                     size_t *n)
{
    struct ht_error err;
    int rc;

    ht_error_clear(&err);
    rc = ht_platform_discover(plat, &err);
    if (rc == HT_OK)
        rc = parse_devices(*plat, list ? list : "all", idx, n, &err);
    return rc == HT_OK ? 0 : cli_fail(cmd, &err);
}
