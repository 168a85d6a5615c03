/* Internal helpers: files, folders, strings, time, hashing, random numbers. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

int ht__open_regular(const char *path, FILE **out, uint64_t *size, struct ht_error *err)
{
    /* Non-blocking, so that a FIFO is refused below rather than waited on; it changes
     * nothing for a regular file. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    FILE *f;

    *out = NULL;
    if (fd < 0)
        return ht_error_set(err, HT_EIO, "cannot open '%s': %s", path, strerror(errno));
    if (fstat(fd, &st) != 0) {
        ht_error_set(err, HT_EIO, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return HT_EIO;
    }
    /* A folder opens too, and fseek/ftell then give a size that is no size at all: only a
     * regular file has one to trust. */
    if (!S_ISREG(st.st_mode)) {
        if (err && !err->code)
            snprintf(err->file, sizeof err->file, "%s", path);
        ht_error_set(err, HT_EINVAL, "%s", S_ISDIR(st.st_mode) ? "is a directory"
                                                                : "is not a regular file");
        close(fd);
        return HT_EINVAL;
    }
    if (!(f = fdopen(fd, "rb"))) {
        ht_error_set(err, HT_EIO, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return HT_EIO;
    }
    *out = f;
    if (size)
        *size = (uint64_t)st.st_size;
    return HT_OK;
}

int ht__read_file(const char *path, char **out, size_t *len, struct ht_error *err)
{
    FILE *f;
    char *buf = NULL;
    uint64_t size;
    int rc = ht__open_regular(path, &f, &size, err);

    if (rc != HT_OK)
        return rc;
    rc = HT_EIO;
    buf = size < SIZE_MAX ? malloc((size_t)size + 1) : NULL;
    if (!buf) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory reading '%s'", path);
        goto cleanup;
    }
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        ht_error_set(err, HT_EIO, "cannot read '%s': %s", path,
                     ferror(f) ? strerror(errno) : "it became shorter while read");
        goto cleanup;
    }
    buf[size] = '\0';
    *out = buf;
    if (len)
        *len = (size_t)size;
    buf = NULL;
    rc = HT_OK;
cleanup:
    free(buf);
    fclose(f);
    return rc;
}

int ht__write_file(const char *path, const void *data, size_t size, struct ht_error *err)
{
    char *tmp = ht__asprintf("%s.tmp.%ld", path, (long)getpid());
    FILE *f;
    int rc = HT_EIO;

    if (!tmp)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    f = fopen(tmp, "wb");
    if (!f) {
        ht_error_set(err, HT_EIO, "cannot create '%s': %s", tmp, strerror(errno));
        goto cleanup;
    }
    /* fclose runs whether or not the write failed: the file is closed on every path. */
    int wrote = !size || fwrite(data, 1, size, f) == size;
    int closed = fclose(f) == 0;
    if (!wrote || !closed) {
        ht_error_set(err, HT_EIO, "cannot write '%s': %s", tmp, strerror(errno));
        unlink(tmp);
        goto cleanup;
    }
    if (rename(tmp, path) != 0) {
        ht_error_set(err, HT_EIO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
        unlink(tmp);
        goto cleanup;
    }
    rc = HT_OK;
cleanup:
    free(tmp);
    return rc;
}

int ht__mkdir_p(const char *path, struct ht_error *err)
{
    char *p = ht__strdup(path);
    struct stat st;
    int rc = HT_OK;

    if (!p)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                rc = ht_error_set(err, HT_EIO, "cannot create folder '%s': %s", p,
                                  strerror(errno));
                break;
            }
            *s = c;
            if (c == '\0')
                break;
        }
    }
    if (rc == HT_OK && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)))
        rc = ht_error_set(err, HT_EIO, "'%s' is not a folder", path);
    free(p);
    return rc;
}

char *ht__strdup(const char *s)
{
    size_t n;
    char *d;

    if (!s)
        return NULL;
    n = strlen(s) + 1;
    d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

char *ht__asprintf(const char *fmt, ...)
{
    va_list ap;
    int n;
    char *s;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

char *ht__path_join(const char *dir, const char *name)
{
    if (name[0] == '/' || !dir || !dir[0])
        return ht__strdup(name);
    return ht__asprintf("%s/%s", dir, name);
}

char *ht__dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *d;

    if (!slash)
        return ht__strdup(".");
    if (slash == path)
        return ht__strdup("/");
    d = malloc((size_t)(slash - path) + 1);
    if (!d)
        return NULL;
    memcpy(d, path, (size_t)(slash - path));
    d[slash - path] = '\0';
    return d;
}

int ht__hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

extern char **environ;

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static char **env_copy;

static void env_take(void)
{
    size_t n = 0;
    char **copy;

    while (environ && environ[n])
        n++;
    copy = calloc(n + 1, sizeof *copy);
    if (!copy)
        return; /* environ then serves, as it is */
    for (size_t i = 0; i < n; i++) {
        copy[i] = ht__strdup(environ[i]);
        if (!copy[i]) {
            for (size_t j = 0; j < i; j++)
                free(copy[j]);
            free(copy);
            return;
        }
    }
    env_copy = copy;
}

void ht__env_snapshot(void)
{
    pthread_once(&env_once, env_take);
}

char **ht__env_for_child(void)
{
    return env_copy ? env_copy : environ;
}

const char *ht__signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    default: return NULL;
    }
}

double ht__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t ht__fnv1a(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void ht__rng_seed(struct ht__rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t ht__rng_next(struct ht__rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double ht__rng_double(struct ht__rng *r)
{
    return (double)(ht__rng_next(r) >> 11) * 0x1.0p-53;
}
