/* Isolation (issue 13): a session whose configurations are built and run in a worker
 * process, so that a configuration that crashes the OpenCL driver (a signal) or never
 * ends costs only that configuration.
 *
 * The parent spawns the worker executable (hetune-worker, which calls ht__worker_serve)
 * with one end of a socket pair as its fd 3, and speaks a small framed protocol over it:
 * INIT once per worker (the spec's file and sizes, the device, the execution options),
 * then REFERENCE once (the reference step, exec.h), EVAL per configuration and DUMP on
 * request, or BUILD per configuration for a build worker of a pool (prebuild.c). Every reply is awaited with a time
 * limit, and the stop flag is polled every 100 ms. A worker that dies is respawned at the
 * next EVAL; one that outlasts the limit is killed first. OpenCL cannot be used in a child
 * forked from a process that already initialised it (the drivers' threads are not forked),
 * hence an executable of its own rather than fork().
 */
/* dladdr (glibc: _GNU_SOURCE): the worker is looked up beside the library's own file. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec-internal.h"
#include "worker.h"
#include "util/util.h"

/* MSG_TIMED: from the worker, within an EVAL whose request asked for it, before its reply:
 * its timed runs start (1) or ended (0); the parent pauses or continues its pool of build
 * workers (ht__session_pause_builds). */
enum { MSG_INIT = 1, MSG_EVAL, MSG_DUMP, MSG_REPLY, MSG_BUILD, MSG_REFERENCE, MSG_TIMED };

#define WORKER_FD 3
#define MAX_MSG (64u << 20)

/* --- a growable buffer and a reader over one message ------------------------------ */

struct wbuf {
    unsigned char *data;
    size_t len, cap;
    int failed;
};

static void put(struct wbuf *b, const void *p, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        unsigned char *grown;
        while (cap < b->len + n)
            cap *= 2;
        grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void put_u32(struct wbuf *b, uint32_t v) { put(b, &v, sizeof v); }
static void put_i64(struct wbuf *b, int64_t v) { put(b, &v, sizeof v); }
static void put_f64(struct wbuf *b, double v) { put(b, &v, sizeof v); }

static void put_str(struct wbuf *b, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) : 0;
    put_u32(b, s ? n : UINT32_MAX);
    if (s)
        put(b, s, n);
}

struct rbuf {
    const unsigned char *data;
    size_t len, pos;
    int failed;
};

static void get(struct rbuf *r, void *p, size_t n)
{
    if (r->failed || r->len - r->pos < n) {
        r->failed = 1;
        memset(p, 0, n);
        return;
    }
    memcpy(p, r->data + r->pos, n);
    r->pos += n;
}

static uint32_t get_u32(struct rbuf *r) { uint32_t v; get(r, &v, sizeof v); return v; }
static int64_t get_i64(struct rbuf *r) { int64_t v; get(r, &v, sizeof v); return v; }
static double get_f64(struct rbuf *r) { double v; get(r, &v, sizeof v); return v; }

/* A string of the message, malloc'ed (NULL for a NULL string or a failure). */
static char *get_str(struct rbuf *r)
{
    uint32_t n = get_u32(r);
    char *s;

    if (r->failed || n == UINT32_MAX)
        return NULL;
    if (r->len - r->pos < n) {
        r->failed = 1;
        return NULL;
    }
    s = malloc((size_t)n + 1);
    if (!s) {
        r->failed = 1;
        return NULL;
    }
    memcpy(s, r->data + r->pos, n);
    s[n] = '\0';
    r->pos += n;
    return s;
}

/* n run times of the message, malloc'ed (NULL for none or a failure; more than
 * HT_MAX_REPEATS is a failure). */
static double *get_runs(struct rbuf *r, unsigned n)
{
    double *runs;

    if (r->failed || n == 0)
        return NULL;
    if (n > HT_MAX_REPEATS || !(runs = malloc(n * sizeof *runs))) {
        r->failed = 1;
        return NULL;
    }
    get(r, runs, n * sizeof *runs);
    if (r->failed) {
        free(runs);
        return NULL;
    }
    return runs;
}

/* --- framing ------------------------------------------------------------------------- */

static int send_all(int fd, const void *p, size_t n)
{
    const char *c = p;

    while (n > 0) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int send_msg(int fd, uint32_t type, const struct wbuf *b)
{
    uint32_t head[2] = {type, (uint32_t)b->len};

    if (b->failed || b->len > MAX_MSG)
        return -1;
    if (send_all(fd, head, sizeof head) != 0)
        return -1;
    return b->len ? send_all(fd, b->data, b->len) : 0;
}

/* The clock of a worker's time limits: monotonic seconds less the time its pool was
 * paused (worker.h), so that it stands still while the pool is paused. */
static double clock_now(const struct ht__worker_watch *watch)
{
    return watch ? ht__now() - watch->paused(watch->ctx) : ht__now();
}

/* Reads n bytes before deadline (a time of clock_now(watch); <= 0: none), polling stop
 * every 100 ms. Returns 0, or HT_ETIMEOUT, HT_EINTR (stop raised), HT_EIO (end of file or
 * a read error: the other side is gone). */
static int recv_all(int fd, void *p, size_t n, double deadline, volatile sig_atomic_t *stop,
                    const struct ht__worker_watch *watch)
{
    char *c = p;

    while (n > 0) {
        struct pollfd pfd = {fd, POLLIN, 0};
        int wait_ms = 100, pr;
        ssize_t got;

        if (stop && *stop)
            return HT_EINTR;
        if (deadline > 0.0) {
            double left = deadline - clock_now(watch);
            if (left <= 0.0)
                return HT_ETIMEOUT;
            if (left < 0.1)
                wait_ms = (int)(left * 1000.0) + 1;
        }
        pr = poll(&pfd, 1, wait_ms);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr < 0)
            return HT_EIO;
        if (pr == 0)
            continue;
        got = recv(fd, c, n, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return HT_EIO;
        c += got;
        n -= (size_t)got;
    }
    return HT_OK;
}

/* Receives one message into b (its data malloc'ed); *type gets its type. */
static int recv_msg(int fd, uint32_t *type, struct wbuf *b, double deadline,
                    volatile sig_atomic_t *stop, const struct ht__worker_watch *watch)
{
    uint32_t head[2];
    int rc = recv_all(fd, head, sizeof head, deadline, stop, watch);

    if (rc != HT_OK)
        return rc;
    if (head[1] > MAX_MSG)
        return HT_EIO;
    *type = head[0];
    b->len = 0;
    b->failed = 0;
    if (head[1] == 0)
        return HT_OK;
    if (b->cap < head[1]) {
        unsigned char *grown = realloc(b->data, head[1]);
        if (!grown)
            return HT_ENOMEM;
        b->data = grown;
        b->cap = head[1];
    }
    rc = recv_all(fd, b->data, head[1], deadline, stop, watch);
    if (rc == HT_OK)
        b->len = head[1];
    return rc;
}

static void put_error(struct wbuf *b, const struct ht_error *e) { put(b, e, sizeof *e); }
static void get_error(struct rbuf *r, struct ht_error *e) { get(r, e, sizeof *e); }

/* --- the parent's side ---------------------------------------------------------------- */

struct ht__worker {
    pid_t pid;               /* 0 when no worker runs */
    int fd;                  /* the parent's end of the socket pair; -1 when none */
    char path[PATH_MAX];     /* the worker executable */
    struct wbuf init;        /* the INIT message, kept to respawn */
    struct wbuf io;          /* the last reply */
    double timeout_s;        /* the user's limit per evaluation; 0: automatic */
    double slowest_s;        /* the longest evaluation that ran, for the automatic limit */
    volatile sig_atomic_t *stop;
    const struct ht__worker_watch *watch; /* a build worker's pool, or NULL */
    size_t nparams;
    int64_t *ref_config;     /* the reference step's configuration once it succeeded, to run
                                it again in a worker started again; NULL before */
    struct ht_prebuild *pause; /* paused around the timed runs of each EVAL, or NULL */
};

static int executable(const char *path)
{
    return path[0] && access(path, X_OK) == 0;
}

/* The file the library's code was loaded from: libhetune.so, or the program it is linked
 * into statically. Empty when the dynamic linker cannot say. */
static void library_file(char *buf, size_t size)
{
    Dl_info info;
    char real[PATH_MAX];

    buf[0] = '\0';
    if (!dladdr((void *)&ht__worker_find, &info) || !info.dli_fname || !info.dli_fname[0])
        return;
    if (realpath(info.dli_fname, real))
        snprintf(buf, size, "%s", real);
    else
        snprintf(buf, size, "%s", info.dli_fname);
}

/* Puts "dir-of-file/rel" in buf and says whether it is an executable. */
static int beside(const char *file, const char *rel, char *buf, size_t size)
{
    const char *slash = strrchr(file, '/');

    if (!slash)
        return 0;
    snprintf(buf, size, "%.*s/%s", (int)(slash - file), file, rel);
    return executable(buf);
}

int ht__worker_find(const char *explicit_path, char *buf, size_t size)
{
    const char *env = getenv("HETUNE_WORKER");
    char self[PATH_MAX], lib[PATH_MAX];
    ssize_t n;

    if (explicit_path && explicit_path[0]) {
        snprintf(buf, size, "%s", explicit_path);
        return executable(buf) ? HT_OK : HT_ENOTFOUND;
    }
    if (env && env[0]) {
        snprintf(buf, size, "%s", env);
        return executable(buf) ? HT_OK : HT_ENOTFOUND;
    }
    /* The worker installed with this library: where the library itself lies decides, not
     * where it was built nor where it was meant to be installed (a prefix given to
     * cmake --install, a package moved elsewhere). */
    library_file(lib, sizeof lib);
#ifdef HT_WORKER_FROM_LIBDIR
    if (lib[0] && beside(lib, HT_WORKER_FROM_LIBDIR, buf, size))
        return HT_OK;
#endif
    /* Beside the running program (the hetune binary, a test, an installed bin/). */
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        if (beside(self, "hetune-worker", buf, size) ||
            beside(self, "../libexec/hetune/hetune-worker", buf, size))
            return HT_OK;
    }
#ifdef HT_WORKER_BUILD_PATH
    /* The build tree's worker serves only the build tree's library (its tests, its
     * Python package): an installed library never runs a build tree's worker. */
    if (lib[0] && strncmp(lib, HT_BUILD_DIR "/", strlen(HT_BUILD_DIR "/")) == 0) {
        snprintf(buf, size, "%s", HT_WORKER_BUILD_PATH);
        if (executable(buf))
            return HT_OK;
    }
#endif
#ifdef HT_WORKER_INSTALL_PATH
    snprintf(buf, size, "%s", HT_WORKER_INSTALL_PATH);
    if (executable(buf))
        return HT_OK;
#endif
    buf[0] = '\0';
    return HT_ENOTFOUND;
}

/* Kills (when kill_it) and reaps the worker; describes how it ended in what. */
static void worker_reap(struct ht__worker *w, int kill_it, char *what, size_t size)
{
    int status = 0;
    pid_t r;

    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    if (!w->pid)
        return;
    /* The pool forgets the process (and continues it, if it was stopped) while it is not
     * reaped yet: a reaped pid may be another process's. */
    if (w->watch)
        w->watch->pid(w->watch->ctx, 0);
    if (kill_it)
        kill(w->pid, SIGKILL);
    do
        r = waitpid(w->pid, &status, 0);
    while (r < 0 && errno == EINTR);
    w->pid = 0;
    if (!what)
        return;
    if (r < 0)
        snprintf(what, size, "ended");
    else if (WIFSIGNALED(status) && ht__signal_name(WTERMSIG(status)))
        snprintf(what, size, "%s", ht__signal_name(WTERMSIG(status)));
    else if (WIFSIGNALED(status))
        snprintf(what, size, "signal %d", WTERMSIG(status));
    else
        snprintf(what, size, "exit %d", WEXITSTATUS(status));
}

/* Spawns the worker and sends it INIT; waits for its reply. */
/* Whether HETUNE_QUIET asks for workers that print nothing (error.h). */
static int quiet_children(void)
{
    const char *q = getenv("HETUNE_QUIET");
    return q && *q && strcmp(q, "0") != 0;
}

static int worker_spawn(struct ht__worker *w, struct ht_error *err)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    char *argv[3];
    int sv[2], child, rc;
    uint32_t type;
    struct rbuf r;
    struct ht_error werr;
    char what[64];

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return ht_error_set(err, HT_EIO, "cannot create the worker's socket: %s",
                            strerror(errno));
    /* Above the descriptors dup2 writes, so that no dup2 overwrites another's source. */
    child = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
    close(sv[1]);
    if (child < 0) {
        close(sv[0]);
        return ht_error_set(err, HT_EIO, "cannot create the worker's socket: %s",
                            strerror(errno));
    }
    argv[0] = w->path;
    argv[1] = (char *)"--serve";
    argv[2] = NULL;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, child, WORKER_FD);
    /* The worker's stdout is the parent's stderr: a driver's chatter must not mix with
     * what the parent prints (JSON, say). */
    posix_spawn_file_actions_adddup2(&fa, 2, 1);
    /* Quiet (`-q`: HETUNE_QUIET): nothing of the worker's reaches the terminal, a kernel's
     * printf, a compiler's or the C library's messages; what matters is in the results
     * (a build log, "crashed: SIGABRT"). */
    if (quiet_children()) {
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    }
    /* A build worker leads a process group of its own: its pool pauses the group, the
     * linker PoCL runs as a child process included. */
    posix_spawnattr_init(&attr);
    if (w->watch) {
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&attr, 0);
    }
    rc = posix_spawn(&w->pid, w->path, &fa, &attr, argv, ht__env_for_child());
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    close(child);
    if (rc != 0) {
        close(sv[0]);
        w->pid = 0;
        return ht_error_set(err, HT_EIO, "cannot start the worker %s: %s", w->path,
                            strerror(rc));
    }
    if (w->watch)
        w->watch->pid(w->watch->ctx, w->pid);
    w->fd = sv[0];
    if (send_msg(w->fd, MSG_INIT, &w->init) != 0) {
        worker_reap(w, 1, what, sizeof what);
        return ht_error_set(err, HT_ECRASH, "the worker %s ended before it started (%s)",
                            w->path, what);
    }
    /* Starting means finding the platform, a context and the host data: generous. */
    rc = recv_msg(w->fd, &type, &w->io, clock_now(w->watch) + HT_TIMEOUT_FIRST_S, w->stop,
                  w->watch);
    if (rc != HT_OK || type != MSG_REPLY) {
        worker_reap(w, 1, what, sizeof what);
        if (rc == HT_EINTR)
            return ht_error_set(err, HT_EINTR, "interrupted while the worker started");
        if (rc == HT_ETIMEOUT)
            return ht_error_set(err, HT_ETIMEOUT, "the worker did not start within %g s",
                                HT_TIMEOUT_FIRST_S);
        return ht_error_set(err, HT_ECRASH, "the worker %s crashed while starting: %s",
                            w->path, what);
    }
    r = (struct rbuf){w->io.data, w->io.len, 0, 0};
    rc = (int)get_i64(&r);
    get_error(&r, &werr);
    if (r.failed)
        rc = HT_EIO;
    if (rc != HT_OK) {
        worker_reap(w, 1, NULL, 0);
        if (err && !err->code)
            *err = werr;
        return rc;
    }
    return HT_OK;
}

int ht__worker_start(const struct ht_spec *spec, const struct ht_device_info *dev,
                     const struct ht_exec_opts *opts, const char *path,
                     const struct ht__worker_watch *build, struct ht__worker **out,
                     struct ht_error *err)
{
    const struct ht_space_def *def = &spec->space;
    struct ht__worker *w;
    int rc;

    *out = NULL;
    w = calloc(1, sizeof *w);
    if (!w)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    w->fd = -1;
    w->timeout_s = opts->timeout_s;
    w->stop = opts->stop;
    w->watch = build;
    w->nparams = def->nparams;
    snprintf(w->path, sizeof w->path, "%s", path);

    /* The spec as the worker will load it: its file with every size given, and what a
     * caller may change after loading (the timing). */
    put_str(&w->init, spec->path);
    put_u32(&w->init, (uint32_t)def->nsizes);
    for (size_t i = 0; i < def->nsizes; i++) {
        put_str(&w->init, def->size_names[i]);
        put_i64(&w->init, def->size_values[i]);
    }
    /* A build worker times nothing (ht__session_prebuild). */
    put_u32(&w->init, build ? 1 : spec->repeats);
    put_u32(&w->init, build ? 1 : spec->keep_best);
    put_f64(&w->init, spec->rtol);
    put_f64(&w->init, spec->atol);
    put_u32(&w->init, (uint32_t)spec->adaptive);
    put_u32(&w->init, spec->min_repeats);
    put_f64(&w->init, spec->precision);
    put_f64(&w->init, spec->margin);
    put_i64(&w->init, (int64_t)ht__fnv1a(14695981039346656037ull, spec->source,
                                         spec->source_len));
    put_u32(&w->init, (uint32_t)def->nparams);
    /* The device, checked by name in the worker. */
    put_i64(&w->init, (int64_t)dev->index);
    put_str(&w->init, dev->name);
    put_str(&w->init, dev->platform);
    put_u32(&w->init, dev->ordinal);
    /* The execution options. */
    put_u32(&w->init, (uint32_t)opts->data_path);
    put_u32(&w->init, (uint32_t)opts->no_cache);
    put_str(&w->init, opts->cache_dir);
    put_u32(&w->init, (uint32_t)opts->no_verify);
    put_u32(&w->init, (uint32_t)opts->eq3);
    if (w->init.failed) {
        ht__worker_free(w);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    rc = worker_spawn(w, err);
    if (rc != HT_OK) {
        ht__worker_free(w);
        return rc;
    }
    *out = w;
    return HT_OK;
}

void ht__worker_free(struct ht__worker *w)
{
    if (!w)
        return;
    if (w->pid) {
        /* Closing the socket ends the worker's loop; it frees its session and exits. */
        close(w->fd);
        w->fd = -1;
        worker_reap(w, 0, NULL, 0);
    }
    free(w->init.data);
    free(w->io.data);
    free(w->ref_config);
    free(w);
}

double ht__worker_limit(const struct ht__worker *w)
{
    if (w->timeout_s > 0.0)
        return w->timeout_s;
    if (w->slowest_s > 0.0)
        return fmax(HT_TIMEOUT_FLOOR_S, HT_TIMEOUT_FACTOR * w->slowest_s);
    return HT_TIMEOUT_FIRST_S;
}

/* The REFERENCE request (ht__worker_reference) in a worker that runs, under its own
 * limit. */
static int reference_request(struct ht__worker *w, const int64_t *config,
                             struct ht_reference_info *info, struct ht_error *err)
{
    struct wbuf req = {NULL, 0, 0, 0};
    struct rbuf r;
    double limit = fmax(HT_TIMEOUT_REFERENCE_S, w->timeout_s);
    uint32_t type;
    char what[64];
    int rc;

    for (size_t i = 0; i < w->nparams; i++)
        put_i64(&req, config[i]);
    rc = send_msg(w->fd, MSG_REFERENCE, &req) == 0 ? HT_OK : HT_EIO;
    free(req.data);
    if (req.failed)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    if (rc == HT_OK)
        rc = recv_msg(w->fd, &type, &w->io, clock_now(w->watch) + limit, w->stop, w->watch);
    if (rc == HT_OK && type != MSG_REPLY)
        rc = HT_EIO;
    switch (rc) {
    case HT_OK:
        break;
    case HT_ETIMEOUT:
        worker_reap(w, 1, NULL, 0);
        return ht_error_set(err, HT_ETIMEOUT, "reference: timeout after %.1f s (the reference "
                            "step's own limit)", limit);
    case HT_EINTR:
        worker_reap(w, 1, NULL, 0);
        return ht_error_set(err, HT_EINTR, "interrupted while computing the reference");
    case HT_ENOMEM:
        worker_reap(w, 1, NULL, 0);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    default:
        worker_reap(w, 0, what, sizeof what);
        return ht_error_set(err, HT_ECRASH, "reference: crashed: %s", what);
    }
    r = (struct rbuf){w->io.data, w->io.len, 0, 0};
    rc = (int)get_i64(&r);
    get_error(&r, err ? err : &(struct ht_error){0});
    get(&r, info, sizeof *info);
    if (r.failed) {
        worker_reap(w, 1, NULL, 0);
        return ht_error_set(err, HT_EIO, "the worker sent a malformed reply");
    }
    info->limit_s = limit;
    /* A computed reference did the problem's work once: the first configuration's
     * automatic limit counts it as the longest evaluation so far (a naive reference of
     * seconds on a slow device says that 120 s may not hold a configuration's runs). */
    if (rc == HT_OK && info->computed)
        w->slowest_s = fmax(w->slowest_s, info->seconds);
    if (rc == HT_ELAUNCH || rc == HT_ECL)
        worker_reap(w, 1, NULL, 0);
    return rc;
}

int ht__worker_reference(struct ht__worker *w, const int64_t *config,
                         struct ht_reference_info *info, struct ht_error *err)
{
    int rc;

    memset(info, 0, sizeof *info);
    if (!w->pid && (rc = worker_spawn(w, err)) != HT_OK)
        return rc;
    rc = reference_request(w, config, info, err);
    if (rc != HT_OK)
        return rc;
    if (!w->ref_config) {
        w->ref_config = calloc(w->nparams ? w->nparams : 1, sizeof *w->ref_config);
        if (!w->ref_config)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    memcpy(w->ref_config, config, w->nparams * sizeof *config);
    return HT_OK;
}

/* One EVAL or BUILD request and its reply, as ht__worker_eval says. */
static int request(struct ht__worker *w, uint32_t kind, double cut_best, double cut_factor,
                   const int64_t *config, struct ht_eval_result *res, struct ht_error *err)
{
    struct wbuf req = {NULL, 0, 0, 0};
    struct rbuf r;
    double t0, limit;
    uint32_t type;
    char what[64];
    int rc;

    memset(res, 0, sizeof *res);
    res->verified = -1;
    res->gflops = res->gbps = -1.0;
    if (!w->pid) {
        rc = worker_spawn(w, err);
        /* A worker started again holds no reference: its step first, under its own limit
         * rather than this configuration's. */
        if (rc == HT_OK && w->ref_config) {
            struct ht_reference_info info;
            rc = reference_request(w, w->ref_config, &info, err);
        }
        if (rc != HT_OK)
            return res->status = rc;
    }
    put_f64(&req, cut_best);
    put_f64(&req, cut_factor);
    for (size_t i = 0; i < w->nparams; i++)
        put_i64(&req, config[i]);
    put_i64(&req, kind == MSG_EVAL && w->pause); /* tell when the timed runs run */
    limit = ht__worker_limit(w);
    t0 = clock_now(w->watch);
    rc = send_msg(w->fd, kind, &req) == 0 ? HT_OK : HT_EIO;
    free(req.data);
    if (req.failed)
        return res->status = ht_error_set(err, HT_ENOMEM, "out of memory");
    while (rc == HT_OK) {
        rc = recv_msg(w->fd, &type, &w->io, t0 + limit, w->stop, w->watch);
        if (rc != HT_OK || type != MSG_TIMED)
            break;
        r = (struct rbuf){w->io.data, w->io.len, 0, 0};
        int on = (int)get_i64(&r);
        if (w->pause && !r.failed)
            ht__prebuild_pause(w->pause, on);
    }
    if (rc == HT_OK && type != MSG_REPLY)
        rc = HT_EIO;
    switch (rc) {
    case HT_OK:
        break;
    case HT_ETIMEOUT:
        worker_reap(w, 1, NULL, 0);
        return res->status = ht_error_set(err, HT_ETIMEOUT, "timeout after %.1f s", limit);
    case HT_EINTR:
        worker_reap(w, 1, NULL, 0);
        return res->status = ht_error_set(err, HT_EINTR, "interrupted");
    case HT_ENOMEM:
        worker_reap(w, 1, NULL, 0);
        return res->status = ht_error_set(err, HT_ENOMEM, "out of memory");
    default:
        /* The worker died: how, from its exit status. */
        worker_reap(w, 0, what, sizeof what);
        return res->status = ht_error_set(err, HT_ECRASH, "crashed: %s", what);
    }
    r = (struct rbuf){w->io.data, w->io.len, 0, 0};
    rc = (int)get_i64(&r);
    get_error(&r, err ? err : &(struct ht_error){0});
    get(&r, res, sizeof *res);
    /* The worker's pointers mean nothing here: what they held follows the struct. */
    res->build_log = NULL;
    res->run_s = NULL;
    res->build_log = get_str(&r);
    res->run_s = get_runs(&r, res->nruns);
    if (r.failed) {
        worker_reap(w, 1, NULL, 0);
        ht_eval_result_destroy(res);
        return res->status = ht_error_set(err, HT_EIO, "the worker sent a malformed reply");
    }
    if (res->nruns > 0 || rc == HT_OK)
        w->slowest_s = fmax(w->slowest_s, clock_now(w->watch) - t0);
    /* A failed launch or OpenCL call can leave the context unusable (NVIDIA's driver fails
     * every later call of a context after an illegal address): the next configuration
     * gets a fresh worker. */
    if (rc == HT_ELAUNCH || rc == HT_ECL)
        worker_reap(w, 1, NULL, 0);
    res->status = rc;
    return rc;
}

void ht__worker_pause_builds(struct ht__worker *w, struct ht_prebuild *p)
{
    w->pause = p;
}

void ht__worker_tell_timed(int fd, int on)
{
    struct wbuf b = {NULL, 0, 0, 0};

    put_i64(&b, on);
    if (!b.failed)
        (void)send_msg(fd, MSG_TIMED, &b);
    free(b.data);
}

int ht__worker_ensure(struct ht__worker *w, struct ht_error *err)
{
    return w->pid ? HT_OK : worker_spawn(w, err);
}

int ht__worker_eval(struct ht__worker *w, double cut_best, double cut_factor,
                    const int64_t *config, struct ht_eval_result *res, struct ht_error *err)
{
    return request(w, MSG_EVAL, cut_best, cut_factor, config, res, err);
}

int ht__worker_build(struct ht__worker *w, const int64_t *config, struct ht_eval_result *res,
                     struct ht_error *err)
{
    return request(w, MSG_BUILD, 0.0, 0.0, config, res, err);
}

int ht__worker_dump(struct ht__worker *w, const char *dir, struct ht_error *err)
{
    struct wbuf req = {NULL, 0, 0, 0};
    struct rbuf r;
    uint32_t type;
    int rc;

    if (!w->pid)
        return ht_error_set(err, HT_EINVAL, "no outputs to dump: the worker is gone");
    put_str(&req, dir);
    rc = send_msg(w->fd, MSG_DUMP, &req) == 0 ? HT_OK : HT_EIO;
    free(req.data);
    if (rc == HT_OK)
        rc = recv_msg(w->fd, &type, &w->io, clock_now(w->watch) + HT_TIMEOUT_FIRST_S, w->stop,
                  w->watch);
    if (rc != HT_OK || type != MSG_REPLY) {
        worker_reap(w, 1, NULL, 0);
        return ht_error_set(err, rc == HT_EINTR ? HT_EINTR : HT_ECRASH,
                            "the worker ended while dumping the outputs");
    }
    r = (struct rbuf){w->io.data, w->io.len, 0, 0};
    rc = (int)get_i64(&r);
    get_error(&r, err ? err : &(struct ht_error){0});
    return r.failed ? HT_EIO : rc;
}

/* --- the worker's side ---------------------------------------------------------------- */

struct serve {
    struct ht_platform *platform;
    struct ht_spec *spec;
    struct ht_session *session;
    char *cache_dir;
};

static void serve_free(struct serve *sv)
{
    ht_session_free(sv->session);
    ht_spec_free(sv->spec);
    ht_platform_free(sv->platform);
    free(sv->cache_dir);
}

/* INIT: the spec, the device and a session in this process. */
static int serve_init(struct serve *sv, struct rbuf *r, struct ht_error *err)
{
    struct ht_size_override *ov = NULL;
    char **names = NULL, *path, *dev_name, *dev_platform;
    struct ht_exec_opts opts;
    const struct ht_device_info *dev = NULL;
    uint32_t nsizes, repeats, keep_best, nparams, ordinal, adaptive, min_repeats;
    double rtol, atol, precision, margin;
    int64_t hash, index;
    int rc = HT_OK;

    path = get_str(r);
    nsizes = get_u32(r);
    if (!r->failed && nsizes < 4096) {
        ov = calloc(nsizes + 1, sizeof *ov);
        names = calloc(nsizes + 1, sizeof *names);
    }
    for (uint32_t i = 0; ov && names && i < nsizes && !r->failed; i++) {
        names[i] = get_str(r);
        ov[i].name = names[i] ? names[i] : "";
        ov[i].value = get_i64(r);
    }
    repeats = get_u32(r);
    keep_best = get_u32(r);
    rtol = get_f64(r);
    atol = get_f64(r);
    adaptive = get_u32(r);
    min_repeats = get_u32(r);
    precision = get_f64(r);
    margin = get_f64(r);
    hash = get_i64(r);
    nparams = get_u32(r);
    index = get_i64(r);
    dev_name = get_str(r);
    dev_platform = get_str(r);
    ordinal = get_u32(r);
    ht_exec_opts_init(&opts);
    opts.data_path = (enum ht_data_path)get_u32(r);
    opts.no_cache = (int)get_u32(r);
    sv->cache_dir = get_str(r);
    opts.cache_dir = sv->cache_dir;
    opts.no_verify = (int)get_u32(r);
    opts.eq3 = (enum ht_eq3)get_u32(r);
    opts.isolate = HT_ISOLATE_OFF;
    if (r->failed || !path || !ov || !names || !dev_name || !dev_platform) {
        rc = ht_error_set(err, HT_EIO, "the worker got a malformed start message");
        goto done;
    }
    rc = ht_platform_discover(&sv->platform, err);
    if (rc != HT_OK)
        goto done;
    /* The same platform, name and ordinal (the index may differ if the platforms are
     * listed in another order); the index breaks ties. */
    for (size_t i = 0; i < sv->platform->count; i++) {
        const struct ht_device_info *d = &sv->platform->devices[i];
        if (strcmp(d->name, dev_name) || strcmp(d->platform, dev_platform) ||
            d->ordinal != ordinal)
            continue;
        if (!dev || d->index == (size_t)index)
            dev = d;
    }
    if (!dev) {
        char found[1024] = "";
        for (size_t i = 0; i < sv->platform->count; i++) {
            size_t n = strlen(found);
            snprintf(found + n, sizeof found - n, "%s%zu %s (%s)", i ? ", " : "",
                     sv->platform->devices[i].index, sv->platform->devices[i].name,
                     sv->platform->devices[i].platform);
        }
        rc = ht_error_set(err, HT_ENODEVICE,
                          "the worker does not find device %" PRId64 " (%s, %s); it finds %s",
                          index, dev_name, dev_platform, found[0] ? found : "none");
        goto done;
    }
    rc = ht_spec_load(path, ov, nsizes, &sv->spec, err);
    if (rc != HT_OK)
        goto done;
    if ((int64_t)ht__fnv1a(14695981039346656037ull, sv->spec->source,
                           sv->spec->source_len) != hash ||
        sv->spec->space.nparams != nparams) {
        rc = ht_error_set(err, HT_ESPEC, "%s or its kernel changed on disk since it was loaded",
                          path);
        goto done;
    }
    sv->spec->repeats = repeats;
    sv->spec->keep_best = keep_best;
    sv->spec->rtol = rtol;
    sv->spec->atol = atol;
    sv->spec->adaptive = (int)adaptive;
    sv->spec->min_repeats = min_repeats;
    sv->spec->precision = precision;
    sv->spec->margin = margin;
    rc = ht_session_create(sv->spec, dev, &opts, &sv->session, err);
done:
    for (uint32_t i = 0; names && i < nsizes; i++)
        free(names[i]);
    free(names);
    free(ov);
    free(path);
    free(dev_name);
    free(dev_platform);
    return rc;
}

static int reply(int fd, int rc, const struct ht_error *err, const struct ht_eval_result *res)
{
    struct wbuf b = {NULL, 0, 0, 0};
    int out;

    put_i64(&b, rc);
    put_error(&b, err);
    if (res) {
        /* The struct, then what its pointers hold, rebuilt by request's reader. */
        put(&b, res, sizeof *res);
        put_str(&b, res->build_log);
        if (res->nruns)
            put(&b, res->run_s, res->nruns * sizeof *res->run_s);
    }
    out = send_msg(fd, MSG_REPLY, &b);
    free(b.data);
    return out;
}

static int reference_reply(int fd, int rc, const struct ht_error *err,
                           const struct ht_reference_info *info)
{
    struct wbuf b = {NULL, 0, 0, 0};
    int out;

    put_i64(&b, rc);
    put_error(&b, err);
    put(&b, info, sizeof *info);
    out = send_msg(fd, MSG_REPLY, &b);
    free(b.data);
    return out;
}

int ht__worker_serve(int fd)
{
    struct serve sv;
    struct wbuf msg = {NULL, 0, 0, 0};
    struct ht_eval_result *res = calloc(1, sizeof *res);
    int64_t *config = NULL;
    int started = 0;

    memset(&sv, 0, sizeof sv);
    ht__in_worker = 1;
    /* The parent decides what a Ctrl-C means; a parent that dies takes the worker along. */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (!res)
        return 1;
    for (;;) {
        struct ht_error err;
        struct rbuf r;
        uint32_t type;
        int rc;

        if (recv_msg(fd, &type, &msg, 0.0, NULL, NULL) != HT_OK)
            break; /* the parent closed the socket: done */
        r = (struct rbuf){msg.data, msg.len, 0, 0};
        ht_error_clear(&err);
        if (type == MSG_INIT && !started) {
            rc = serve_init(&sv, &r, &err);
            started = rc == HT_OK;
            config = started ? calloc(sv.spec->space.nparams + 1, sizeof *config) : NULL;
            if (started && !config)
                rc = ht_error_set(&err, HT_ENOMEM, "out of memory");
            if (reply(fd, rc, &err, NULL) != 0 || rc != HT_OK)
                break;
        } else if ((type == MSG_EVAL || type == MSG_BUILD) && started) {
            double best = get_f64(&r), factor = get_f64(&r);
            int tell;
            for (size_t i = 0; i < sv.spec->space.nparams; i++)
                config[i] = get_i64(&r);
            tell = (int)get_i64(&r);
            ht_eval_result_destroy(res);
            if (r.failed) {
                memset(res, 0, sizeof *res);
                rc = res->status = ht_error_set(&err, HT_EIO, "malformed request");
            } else if (type == MSG_BUILD) {
                rc = ht__session_prebuild(sv.session, config, res, &err);
            } else {
                ht__session_set_cut(sv.session, best, factor);
                sv.session->timed_tell = tell;
                sv.session->timed_fd = fd;
                rc = ht_session_eval(sv.session, config, res, &err);
                sv.session->timed_tell = sv.session->timed_on = 0;
            }
            if (reply(fd, rc, &err, res) != 0)
                break;
        } else if (type == MSG_REFERENCE && started) {
            struct ht_reference_info info;
            memset(&info, 0, sizeof info);
            for (size_t i = 0; i < sv.spec->space.nparams; i++)
                config[i] = get_i64(&r);
            rc = r.failed ? ht_error_set(&err, HT_EIO, "malformed request")
                          : ht__session_reference(sv.session, config, NULL, NULL, &info,
                                                   &err);
            if (reference_reply(fd, rc, &err, &info) != 0)
                break;
        } else if (type == MSG_DUMP && started) {
            char *dir = get_str(&r);
            rc = dir ? ht_session_dump(sv.session, dir, &err)
                     : ht_error_set(&err, HT_EIO, "malformed request");
            free(dir);
            if (reply(fd, rc, &err, NULL) != 0)
                break;
        } else {
            break;
        }
    }
    ht_eval_result_destroy(res);
    free(res);
    free(config);
    free(msg.data);
    serve_free(&sv);
    return 0;
}
