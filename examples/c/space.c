/* Counts and lists the pruned design space of a spec on one device, like
 * `hetune space --list`, from the public header alone.
 *
 *   space-example [SPEC [DEVICE [N=VALUE...]]]
 *
 * SPEC defaults to ../vecadd/spec.json (run it from examples/c/), DEVICE to 0 (an index from
 * `hetune devices` or a unique part of its name); N=VALUE overrides a problem size. It
 * prints the space's sizes (the paper's Tables 1 and 2: unpruned, under the platform rules,
 * pruned by the constraints too) and every valid configuration, and checks that the list
 * has as many as the count and that each passes ht_space_check. Exit status 0 when they
 * agree, 77 when there is no OpenCL platform, ht_present_exit_status's for a spec that
 * does not load (2 for an invalid one, 1 for an unreadable file), 2 for a bad argument, 1
 * otherwise. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hetune.h>

#define MAX_SIZES 8

struct listing {
    const struct ht_spec *spec;
    const struct ht_space *space;
    uint64_t n, invalid;
};

/* Called once per valid configuration. */
static int visit(const int64_t *config, void *user)
{
    struct listing *l = user;
    struct ht_error err;
    char text[1024];

    ht_format_config(l->spec, config, text, sizeof text);
    printf("  %s\n", text);
    ht_error_clear(&err);
    if (ht_space_check(&l->spec->space, ht_space_get_device(l->space), config,
                       ht_space_get_eq3(l->space), &err) != HT_OK)
        l->invalid++;
    l->n++;
    return 0;
}

static int fail(const char *what, const struct ht_error *err, int status)
{
    char msg[2600];
    ht_error_format(err, msg, sizeof msg);
    fprintf(stderr, "space-example: %s: %s\n", what, msg);
    return status;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "../vecadd/spec.json";
    const char *device = argc > 2 ? argv[2] : "0";
    struct ht_size_override sizes[MAX_SIZES];
    size_t nsizes = 0, index = 0;
    struct ht_platform *p = NULL;
    struct ht_spec *spec = NULL;
    struct ht_space *space = NULL;
    struct ht_space_counts counts;
    struct listing l = {0};
    struct ht_error err;
    int status = 1, rc;

    ht_error_clear(&err);
    for (int i = 3; i < argc; i++) {
        const char *name;
        size_t len;
        if (nsizes == MAX_SIZES ||
            ht_parse_assignment(argv[i], &name, &len, &sizes[nsizes].value, &err) != HT_OK) {
            fprintf(stderr, "space-example: expected NAME=VALUE, not '%s'\n", argv[i]);
            return 2;
        }
        argv[i][len] = '\0'; /* the name ends where '=' was */
        sizes[nsizes++].name = name;
    }

    if ((rc = ht_spec_load(path, sizes, nsizes, &spec, &err)) != HT_OK)
        return fail("cannot load the spec", &err, ht_present_exit_status(rc));
    if ((rc = ht_platform_discover(&p, &err)) != HT_OK) {
        status = fail("no device", &err, rc == HT_ENOPLATFORM ? 77 : 1);
        goto out;
    }
    if (ht_platform_find(p, device, &index, &err) != HT_OK) {
        status = fail("no such device", &err, 2);
        goto out;
    }
    if ((rc = ht_space_create(&spec->space, &p->devices[index], HT_EQ3_PRODUCT, &space,
                              &err)) != HT_OK) {
        status = fail("cannot create the space", &err, ht_present_exit_status(rc));
        goto out;
    }
    if (ht_space_count(space, &counts, &err) != HT_OK) {
        status = fail("cannot count the space", &err, 1);
        goto out;
    }
    printf("spec      %s on device %zu (%s)\n", spec->name, index, p->devices[index].name);
    printf("unpruned  %s\nplatform  %s\npruned    %s\n", counts.unpruned_text,
           counts.platform_text, counts.pruned_text);
    if (counts.pruned == 0)
        printf("empty     %s\n", counts.empty_reason);

    l.spec = spec;
    l.space = space;
    printf("configurations:\n");
    if (ht_space_foreach(space, visit, &l) != HT_OK) {
        fprintf(stderr, "space-example: out of memory\n");
        goto out;
    }
    if (l.n != counts.pruned || l.invalid) {
        fprintf(stderr, "space-example: listed %" PRIu64 " (%" PRIu64
                        " invalid), counted %s\n",
                l.n, l.invalid, counts.pruned_text);
        goto out;
    }
    printf("listed    %" PRIu64 ", as counted\n", l.n);
    status = 0;
out:
    ht_space_free(space);
    ht_platform_free(p);
    ht_spec_free(spec);
    return status;
}
