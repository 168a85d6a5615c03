/* The OpenCL devices hetune sees and the limits that decide what can launch on them, the
 * same as `hetune devices`, from the public header alone.
 *
 *   devices-example
 *
 * Exit status 0 when at least one device was found and every limit is sane, 77 when there
 * is no OpenCL platform (the test suite's "skipped"), 1 otherwise (with a message). */
#include <inttypes.h>
#include <stdio.h>

#include <hetune.h>

int main(void)
{
    struct ht_platform *p = NULL;
    struct ht_error err;
    char msg[2600];
    int status = 1;

    ht_error_clear(&err);
    int rc = ht_platform_discover(&p, &err);
    if (rc != HT_OK) {
        ht_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "devices-example: %s\n", msg);
        return rc == HT_ENOPLATFORM ? 77 : 1;
    }
    for (size_t i = 0; i < p->count; i++) {
        const struct ht_device_info *d = &p->devices[i];
        int64_t vars[HT_DEVICE_NVARS];
        char slug[256];

        ht_device_slug(d, slug, sizeof slug);
        printf("%zu  %s (%s)\n", d->index, d->name, slug);
        printf("   platform    %s\n", d->platform);
        printf("   type        %s, %" PRIu32 " compute units\n", d->type, d->compute_units);
        printf("   work-group  max %" PRIu64 ", work-item sizes %" PRIu64 "x%" PRIu64
               "x%" PRIu64 "\n",
               d->max_work_group_size, d->max_work_item_sizes[0], d->max_work_item_sizes[1],
               d->max_work_item_sizes[2]);
        printf("   memory      local %" PRIu64 " B, global %" PRIu64 " B, max alloc %" PRIu64
               " B\n",
               d->local_mem_size, d->global_mem_size, d->max_mem_alloc_size);

        /* The same limits as the variables a spec's expressions may name. */
        ht_device_vars(d, vars);
        for (int v = 0; v < HT_DEVICE_NVARS; v++)
            printf("   %-21s %" PRId64 "\n", ht_device_var_names[v], vars[v]);

        if (d->index != i || d->compute_units == 0 || d->max_work_group_size == 0 ||
            d->local_mem_size == 0 || d->max_mem_alloc_size == 0 ||
            d->max_mem_alloc_size > d->global_mem_size ||
            (uint64_t)vars[HT_DEVVAR_MAX_WORK_GROUP_SIZE] != d->max_work_group_size) {
            fprintf(stderr, "devices-example: device %zu reports impossible limits\n", i);
            goto out;
        }
    }

    /* Devices are named by index or by a unique part of "<platform> <name>". */
    size_t found = SIZE_MAX;
    if (ht_platform_find(p, "0", &found, &err) != HT_OK || found != 0) {
        ht_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "devices-example: device \"0\" not found: %s\n", msg);
        goto out;
    }
    printf("%zu device%s\n", p->count, p->count == 1 ? "" : "s");
    status = p->count > 0 ? 0 : 1;
out:
    ht_platform_free(p);
    return status;
}
