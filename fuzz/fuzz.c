/* hetune — the helpers of fuzz.h. */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[4096];

/* Removes path and, when it is a folder, what is inside (the report target writes one). */
static void remove_tree(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    char sub[4096 + 256 + 2];

    if (lstat(path, &st))
        return;
    if (S_ISDIR(st.st_mode) && (d = opendir(path))) {
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                remove_tree(sub);
            }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void cleanup(void)
{
    if (tmpdir[0])
        remove_tree(tmpdir);
}

const char *fuzz_tmpdir(void)
{
    if (!tmpdir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/hetune-fuzz-XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(tmpdir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(cleanup);
    }
    return tmpdir;
}

const char *fuzz_write_file(const char *name, const uint8_t *data, size_t size)
{
    static char path[4096 + 256 + 2];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", fuzz_tmpdir(), name);
    if (!(f = fopen(path, "wb")) || (size && fwrite(data, 1, size, f) != size) || fclose(f)) {
        perror("fuzz: writing the input");
        abort();
    }
    return path;
}

char *fuzz_strndup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);

    if (s) {
        if (size)
            memcpy(s, data, size);
        s[size] = '\0';
    }
    return s;
}
