/* A program built against an installed hetune through <hetune.h> alone (tests/install/run.sh):
 * loads the spec named on the command line and counts the OpenCL devices. */
#include <hetune.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    struct ht_error err;
    struct ht_spec *spec = NULL;
    struct ht_platform *plat = NULL;
    int rc;

    if (argc != 2) {
        fprintf(stderr, "usage: consumer SPEC\n");
        return 2;
    }
    ht_error_clear(&err);
    rc = ht_spec_load(argv[1], NULL, 0, &spec, &err);
    if (rc != HT_OK) {
        fprintf(stderr, "consumer: %s: %s: %s\n", argv[1], ht_strerror(rc), err.text);
        return 1;
    }
    ht_spec_free(spec);

    ht_error_clear(&err);
    rc = ht_platform_discover(&plat, &err);
    if (rc == HT_ENOPLATFORM) {
        printf("spec loaded; devices: 0\n");
        return 0;
    }
    if (rc != HT_OK) {
        fprintf(stderr, "consumer: devices: %s: %s\n", ht_strerror(rc), err.text);
        return 1;
    }
    printf("spec loaded; devices: %zu\n", plat->count);
    ht_platform_free(plat);
    return 0;
}
