/* hetune — the regression driver of a fuzz target: feeds LLVMFuzzerTestOneInput every
 * file of the folders (or the files) named on the command line, once each, in name order,
 * without libFuzzer, so that the regular build (gcc, and the ASan build) keeps every input
 * of the corpus, crashers that were fixed included. A crash, a sanitizer report or a leak
 * fails it as it would fail the fuzzer. Exits 0 after the last input, 2 on a usage error or
 * an unreadable input, 1 when a folder holds no input at all (a corpus lost would otherwise
 * pass). */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long size;
    int rc = 2;

    if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
        fprintf(stderr, "fuzz driver: cannot read %s\n", path);
        goto cleanup;
    }
    /* Exactly size bytes (one for an empty file, which libFuzzer passes too), so that
     * ASan sees a read past the input's end. */
    if (!(buf = malloc(size ? (size_t)size : 1)) ||
        fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "fuzz driver: cannot read %s\n", path);
        goto cleanup;
    }
    LLVMFuzzerTestOneInput(buf, (size_t)size);
    rc = 0;
cleanup:
    free(buf);
    if (f)
        fclose(f);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, size_t *ran)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;

    if (!d) {
        fprintf(stderr, "fuzz driver: cannot open %s\n", dir);
        return 2;
    }
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            char **grown = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
            if (!grown) {
                rc = 2;
                goto cleanup;
            }
            names = grown;
        }
        if (!(names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2))) {
            rc = 2;
            goto cleanup;
        }
        sprintf(names[n++], "%s/%s", dir, e->d_name);
    }
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n && !rc; i++) {
        struct stat st;
        if (stat(names[i], &st) || !S_ISREG(st.st_mode))
            continue;
        rc = run_file(names[i]);
        ++*ran;
    }
cleanup:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    size_t ran = 0;
    int rc = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc && !rc; i++) {
        struct stat st;
        if (!stat(argv[i], &st) && S_ISDIR(st.st_mode))
            rc = run_dir(argv[i], &ran);
        else {
            rc = run_file(argv[i]);
            ran++;
        }
    }
    if (rc)
        return rc;
    if (!ran) {
        fprintf(stderr, "fuzz driver: no input found\n");
        return 1;
    }
    printf("%zu inputs ran\n", ran);
    return 0;
}
