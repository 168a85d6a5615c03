/* A program built against an installed hetune through <hetune.h> alone (tests/install/run.sh):
 * loads the spec named on the command line and counts the OpenCL devices. With "session"
 * after the spec, also opens a session on the first device with the default options and
 * says whether its configurations run in a worker process (the installed one). */
#include <hetune.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    struct ht_error err;
    struct ht_spec *spec = NULL;
    struct ht_platform *plat = NULL;
    struct ht_size_override size = {"N", 4096};
    int rc;

    if (argc != 2 && !(argc == 3 && strcmp(argv[2], "session") == 0)) {
        fprintf(stderr, "usage: consumer SPEC [session]\n");
        return 2;
    }
    ht_error_clear(&err);
    rc = ht_spec_load(argv[1], &size, 1, &spec, &err);
    if (rc != HT_OK) {
        fprintf(stderr, "consumer: %s: %s: %s\n", argv[1], ht_strerror(rc), err.text);
        return 1;
    }

    ht_error_clear(&err);
    rc = ht_platform_discover(&plat, &err);
    if (rc == HT_ENOPLATFORM) {
        printf("spec loaded; devices: 0\n");
        ht_spec_free(spec);
        return 0;
    }
    if (rc != HT_OK) {
        fprintf(stderr, "consumer: devices: %s: %s\n", ht_strerror(rc), err.text);
        ht_spec_free(spec);
        return 1;
    }
    printf("spec loaded; devices: %zu\n", plat->count);
    if (argc == 3 && plat->count > 0) {
        struct ht_exec_opts opts;
        struct ht_session *s = NULL;
        ht_exec_opts_init(&opts);
        rc = ht_session_create(spec, &plat->devices[0], &opts, &s, &err);
        if (rc != HT_OK) {
            fprintf(stderr, "consumer: session: %s: %s\n", ht_strerror(rc), err.text);
            ht_platform_free(plat);
            ht_spec_free(spec);
            return 1;
        }
        printf("isolated: %d\n", ht_session_isolated(s));
        ht_session_free(s);
    }
    ht_platform_free(plat);
    ht_spec_free(spec);
    return 0;
}
