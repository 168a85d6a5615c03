/* The malformed-spec corpus (tests/specs/bad): every NAME.json must fail to load with the
 * exit status of the first line of NAME.expect and a message holding each of the following
 * lines. "# ..." lines are comments; a "# needs-device" case fails only once the kernel is
 * built, so it must load here and is checked by tests/cli/bad_specs.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune.h"
#include "util/util.h"

#define MIN_CASES 35

static char *corpus_dir(void)
{
    const char *src = getenv("HETUNE_SOURCE_DIR");
    char *root, *dir;

    if (src && src[0])
        return ht__asprintf("%s/tests/specs/bad", src);
    root = ht__dirname(__FILE__); /* tests/unit */
    dir = ht__asprintf("%s/../specs/bad", root);
    free(root);
    return dir;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Checks one case; returns 1 when it behaves as its .expect says, printing why not. */
static int check_case(const char *dir, const char *name, int *device_cases)
{
    char *json = ht__asprintf("%s/%s.json", dir, name);
    char *expect = ht__asprintf("%s/%s.expect", dir, name);
    char *text = NULL, *save = NULL;
    char *lines[64];
    size_t nlines = 0;
    struct ht_spec *spec = NULL;
    struct ht_error err, ignored;
    char msg[4096];
    int status = -1, needs_device = 0, ok = 0, rc, nphrases = 0;

    assert_non_null(json);
    assert_non_null(expect);
    ht_error_clear(&ignored);
    if (ht__read_file(expect, &text, NULL, &ignored) != HT_OK) {
        print_error("%s: no readable %s.expect\n", name, name);
        goto cleanup;
    }
    for (char *l = strtok_r(text, "\n", &save); l && nlines < 64; l = strtok_r(NULL, "\n", &save))
        lines[nlines++] = l;
    if (nlines == 0 || sscanf(lines[0], "%d", &status) != 1) {
        print_error("%s.expect: the first line must be the exit status\n", name);
        goto cleanup;
    }
    for (size_t i = 1; i < nlines; i++)
        if (!strcmp(lines[i], "# needs-device"))
            needs_device = 1;

    ht_error_clear(&err);
    rc = ht_spec_load(json, NULL, 0, &spec, &err);
    ht_error_format(&err, msg, sizeof msg);
    ok = 1;
    if (needs_device) {
        (*device_cases)++;
        if (rc != HT_OK) {
            print_error("%s: a needs-device case must load (it fails after the build): %s\n",
                        name, msg);
            ok = 0;
        }
        goto cleanup;
    }
    if (rc == HT_OK || spec) {
        print_error("%s: loaded, but must fail\n", name);
        ok = 0;
        goto cleanup;
    }
    if (rc != err.code) {
        print_error("%s: returned %s but err holds %s\n", name, ht_err_name(rc),
                    ht_err_name(err.code));
        ok = 0;
    }
    if (ht_present_exit_status(rc) != status) {
        print_error("%s: exit status %d (%s), expected %d: %s\n", name, ht_present_exit_status(rc),
                    ht_err_name(rc), status, msg);
        ok = 0;
    }
    if (strcmp(err.file, json) != 0) {
        print_error("%s: err.file is '%s', not the spec's path\n", name, err.file);
        ok = 0;
    }
    for (size_t i = 1; i < nlines; i++) {
        if (lines[i][0] == '#')
            continue;
        nphrases++;
        if (!strstr(msg, lines[i])) {
            print_error("%s: the message lacks \"%s\":\n    %s\n", name, lines[i], msg);
            ok = 0;
        }
    }
    if (nphrases == 0) {
        print_error("%s.expect lists no phrase\n", name);
        ok = 0;
    }
cleanup:
    ht_spec_free(spec);
    free(text);
    free(json);
    free(expect);
    return ok;
}

static void test_corpus(void **state)
{
    char *dir = corpus_dir();
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, failed = 0;
    int device_cases = 0;
    (void)state;

    if (!d)
        fail_msg("cannot open the corpus folder %s", dir);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        char *expect;
        FILE *f;

        if (len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        names = realloc(names, (n + 1) * sizeof *names);
        assert_non_null(names);
        names[n] = ht__asprintf("%.*s", (int)(len - 5), e->d_name);
        /* Every spec has its .expect, so no case is silently left out. */
        expect = ht__asprintf("%s/%s.expect", dir, names[n]);
        f = fopen(expect, "r");
        if (!f)
            fail_msg("%s.json has no %s.expect", names[n], names[n]);
        fclose(f);
        free(expect);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        if (!check_case(dir, names[i], &device_cases))
            failed++;
        free(names[i]);
    }
    free(names);
    free(dir);
    print_message("%zu cases, %d left to the device test, %zu failed\n", n, device_cases,
                  failed);
    assert_true(n - (size_t)device_cases >= MIN_CASES);
    assert_int_equal(failed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
