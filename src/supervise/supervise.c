/* A co-executing command supervised from another process (supervise.h): the supervisor
 * (ht_supervise) and the child's side (ht__watch_*: supervise's door supervise/watch.h, for
 * the co-execution; ht_supervised and ht_supervised_lost, public).
 *
 * The two share one page of a memory file (memfd), at descriptor SUPERVISE_FD in the child
 * (named by HETUNE_SUPERVISE_FD). A slot per device index holds how many of the child's
 * threads work on that device now, the monotonic deadline of the latest, and the device's
 * name. The supervisor polls the page and the child every POLL_MS; CLOCK_MONOTONIC is one
 * clock for every process of the machine. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hetune/exec.h"
#include "hetune/supervise.h"
#include "supervise/watch.h"
#include "util/util.h"

#define SUPERVISE_FD 3
#define POLL_MS 50
#define PAGE_MAGIC 0x68747375u /* "htsu" */
#define ENV_FD "HETUNE_SUPERVISE_FD"
#define ENV_LOST "HETUNE_SUPERVISE_LOST"
#define ENV_PROBE "HETUNE_SUPERVISE_PROBE"
/* What a supervised child's signals do under AddressSanitizer (the sanitized test build):
 * end it, so that the supervisor can name the signal. */
#define ASAN_SIGNALS "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0"

struct slot {
    atomic_int busy;             /* threads of the child working on the device */
    atomic_llong deadline_ns;    /* the latest one's deadline */
    double limit_s;              /* its limit */
    char name[64];
};

struct page {
    uint32_t magic;
    struct slot slot[HT_SUPERVISE_MAX_DEVICES];
    atomic_int failed;           /* 1 + the device whose part failed in the driver; 0 none */
    char failed_text[128];       /* its error */
};

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- the child's side ---- */

static pthread_once_t child_once = PTHREAD_ONCE_INIT;
static struct page *child_page;   /* NULL: not supervised */
static int child_probe;
static pthread_mutex_t longest_mu = PTHREAD_MUTEX_INITIALIZER;
static double longest_s;          /* the longest part watched so far, for the automatic limit */

static void child_init(void)
{
    const char *fd_text = getenv(ENV_FD), *probe = getenv(ENV_PROBE);
    char *end;
    long fd;
    void *p;

    if (!fd_text || !*fd_text)
        return;
    fd = strtol(fd_text, &end, 10);
    if (*end || fd < 0 || fd > 1024)
        return;
    p = mmap(NULL, sizeof(struct page), PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
    if (p == MAP_FAILED)
        return;
    /* The processes this one starts (tuning workers) neither inherit the page nor count. */
    fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    close((int)fd);
    if (((struct page *)p)->magic != PAGE_MAGIC) {
        munmap(p, sizeof(struct page));
        return;
    }
    /* The supervisor's end is this one's: no orphan goes on using the devices. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    child_page = p;
    child_probe = probe && !strcmp(probe, "1");
}

int ht_supervised(void)
{
    pthread_once(&child_once, child_init);
    return child_page != NULL;
}

/* 1 when the environment variable HETUNE_TEST_SLICE_FAIL names dev's index. Read at each
 * watch's begin, not once per process: a test sets it after its runtime is open
 * (tests/unit/test_runtime_lost.c), when co-executions were made and watched already. */
static int inject(const struct ht_device_info *dev)
{
    const char *v = getenv("HETUNE_TEST_SLICE_FAIL");
    char *end;
    long i;

    if (!v || !*v)
        return 0;
    i = strtol(v, &end, 10);
    return !*end && i >= 0 && (size_t)i == dev->index;
}

struct ht__watch ht__watch_begin(const struct ht_device_info *dev, double limit_s)
{
    struct ht__watch w = {-1, ht__now(), 0, 0};
    struct slot *s;

    /* The test hook and the probe are the child's settings, asked even where nothing is
     * watched (the fault tests inject without a supervisor). */
    w.inject = dev && inject(dev);
    w.probe = ht_supervised() && child_probe;
    if (!ht_supervised() || !dev || dev->index >= HT_SUPERVISE_MAX_DEVICES)
        return w;
    if (!(limit_s > 0)) {
        pthread_mutex_lock(&longest_mu);
        limit_s = longest_s > 0 ? fmax(HT_TIMEOUT_FLOOR_S, HT_TIMEOUT_FACTOR * longest_s)
                                : HT_TIMEOUT_FIRST_S;
        pthread_mutex_unlock(&longest_mu);
    }
    w.slot = (int)dev->index;
    s = &child_page->slot[w.slot];
    if (!s->name[0])
        snprintf(s->name, sizeof s->name, "%.63s", dev->name);
    s->limit_s = limit_s;
    atomic_store(&s->deadline_ns, now_ns() + (long long)(limit_s * 1e9));
    atomic_fetch_add(&s->busy, 1);
    return w;
}

void ht__watch_end(const struct ht__watch *w)
{
    double took;

    if (w->slot < 0)
        return;
    atomic_fetch_sub(&child_page->slot[w->slot].busy, 1);
    took = ht__now() - w->t0;
    pthread_mutex_lock(&longest_mu);
    if (took > longest_s)
        longest_s = took;
    pthread_mutex_unlock(&longest_mu);
}

void ht__watch_failed(const struct ht_device_info *dev, const struct ht_error *e)
{
    int none = 0;

    if (!ht_supervised() || dev->index >= HT_SUPERVISE_MAX_DEVICES)
        return;
    /* The first failure only; the text before the flag, which the supervisor reads once
     * the child has ended. */
    if (atomic_load(&child_page->failed))
        return;
    snprintf(child_page->failed_text, sizeof child_page->failed_text, "%.127s", e->text);
    snprintf(child_page->slot[dev->index].name, sizeof child_page->slot[0].name, "%.63s",
             dev->name);
    atomic_compare_exchange_strong(&child_page->failed, &none, (int)dev->index + 1);
}

int ht_supervised_lost(size_t device, char *reason, size_t size)
{
    const char *p = getenv(ENV_LOST);

    if (!p || !ht_supervised())
        return 0;
    /* Lines "INDEX<tab>REASON". */
    while (*p) {
        char *end;
        unsigned long idx = strtoul(p, &end, 10);
        const char *nl;
        if (end == p || *end != '\t')
            return 0;
        end++;
        nl = strchr(end, '\n');
        if (!nl)
            nl = end + strlen(end);
        if (idx == device) {
            if (reason && size)
                snprintf(reason, size, "%.*s", (int)(nl - end), end);
            return 1;
        }
        p = *nl ? nl + 1 : nl;
    }
    return 0;
}

/* ---- the supervisor ---- */

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
    got_signal = sig;
}

struct out {
    char *data;
    size_t len, cap;
};

/* Reads what is there on fd (non-blocking) into o. 0 at end of file, 1 when more may come,
 * -1 out of memory. */
static int drain(int fd, struct out *o)
{
    for (;;) {
        ssize_t n;
        if (o->cap - o->len < 4096) {
            size_t cap = o->cap ? 2 * o->cap : 65536;
            char *d = realloc(o->data, cap);
            if (!d)
                return -1;
            o->data = d;
            o->cap = cap;
        }
        n = read(fd, o->data + o->len, o->cap - o->len);
        if (n > 0)
            o->len += (size_t)n;
        else if (n == 0)
            return 0;
        else if (errno == EINTR)
            continue;
        else
            return 1;
    }
}

/* The child's environment: the snapshot taken before OpenCL (util.h) without the
 * supervisor's own variables, then the page, the devices lost, the probe, and the ASan
 * signal options. NULL: out of memory. Owned: free each string and the array. */
static char **child_env(const struct ht_supervise_result *res, int probe)
{
    char **env = ht__env_for_child(), **out;
    const char *asan = NULL;
    size_t n = 0, k = 0, lost_len = 1;

    while (env[n])
        n++;
    out = calloc(n + 5, sizeof *out);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!strncmp(env[i], "HETUNE_SUPERVISE_", 17))
            continue;
        if (!strncmp(env[i], "ASAN_OPTIONS=", 13)) {
            asan = env[i] + 13;
            continue;
        }
        if (!(out[k++] = strdup(env[i])))
            goto fail;
    }
    if (asprintf(&out[k++], ENV_FD "=%d", SUPERVISE_FD) < 0)
        goto fail_last;
    if (asprintf(&out[k++], "ASAN_OPTIONS=%s%s" ASAN_SIGNALS, asan ? asan : "",
                 asan && *asan ? ":" : "") < 0)
        goto fail_last;
    if (probe && !(out[k++] = strdup(ENV_PROBE "=1")))
        goto fail;
    if (res->nlost) {
        char *lost, *p;
        for (size_t i = 0; i < res->nlost; i++)
            lost_len += 24 + strlen(res->lost[i].reason);
        if (!(lost = malloc(sizeof ENV_LOST + lost_len)))
            goto fail;
        p = lost + sprintf(lost, ENV_LOST "=");
        for (size_t i = 0; i < res->nlost; i++)
            p += sprintf(p, "%zu\t%s\n", res->lost[i].device, res->lost[i].reason);
        out[k++] = lost;
    }
    return out;
fail_last:
    out[--k] = NULL;
fail:
    for (size_t i = 0; i < k; i++)
        free(out[i]);
    free(out);
    return NULL;
}

static void env_free(char **env)
{
    for (size_t i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}

static void note(const struct ht_supervise_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void note(const struct ht_supervise_opts *o, const char *fmt, ...)
{
    char text[512];
    va_list ap;

    if (!o->on_note)
        return;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    o->on_note(HT_LOG_INFO, text, o->user);
}

/* Adds device to the devices lost; 0 when it was lost already (the child did not leave it
 * out), then nothing is added; -1 out of memory (err filled). */
static int lose(struct ht_supervise_result *res, const struct page *pg, size_t device,
                const char *why, struct ht_error *err)
{
    struct ht_supervise_lost *l;

    for (size_t i = 0; i < res->nlost; i++)
        if (res->lost[i].device == device)
            return 0;
    l = realloc(res->lost, (res->nlost + 1) * sizeof *l);
    if (!l) {
        ht_error_set(err, HT_ENOMEM, "out of memory");
        return -1;
    }
    res->lost = l;
    l = &res->lost[res->nlost++];

    l->device = device;
    snprintf(l->name, sizeof l->name, "%s", pg->slot[device].name);
    snprintf(l->reason, sizeof l->reason, "%.200s in its part of the co-execution", why);
    return 1;
}

/* What starts a child: the program at path, its argv and its environment. */
struct command {
    const char *path;
    char *const *argv;
    char **env;
};

/* One child: started as cmd says, watched until it ends, what it writes gathered in o.
 * *status is its wait status; *timed_out the device whose deadline passed (it was
 * killed), or -1; the page stays mapped at *pg for the caller (munmap). */
static int run_child(const struct command *cmd, double grace_s, struct out *o,
                     struct page **pg, int *status, int *timed_out, struct ht_error *err)
{
    const char *path = cmd->path;
    posix_spawn_file_actions_t fa;
    int memfd, pipefd[2], rc, eof = 0, forwarded = 0;
    double forward_t = 0;
    pid_t pid;

    *timed_out = -1;
    *pg = NULL;
    memfd = memfd_create("hetune-supervise", MFD_CLOEXEC);
    if (memfd < 0 || ftruncate(memfd, sizeof(struct page)) != 0) {
        rc = ht_error_set(err, HT_EIO, "cannot make the supervisor's memory file: %s",
                          strerror(errno));
        if (memfd >= 0)
            close(memfd);
        return rc;
    }
    *pg = mmap(NULL, sizeof(struct page), PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    if (*pg == MAP_FAILED) {
        *pg = NULL;
        close(memfd);
        return ht_error_set(err, HT_EIO, "cannot map the supervisor's memory file: %s",
                            strerror(errno));
    }
    (*pg)->magic = PAGE_MAGIC;
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        close(memfd);
        return ht_error_set(err, HT_EIO, "cannot make a pipe: %s", strerror(errno));
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, memfd, SUPERVISE_FD);
    rc = posix_spawn(&pid, path, &fa, NULL, cmd->argv, cmd->env);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    close(memfd);
    if (rc != 0) {
        close(pipefd[0]);
        return ht_error_set(err, HT_EIO, "cannot start %s: %s", path, strerror(rc));
    }
    fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
    for (;;) {
        struct pollfd p = {pipefd[0], POLLIN, 0};
        pid_t r;
        if (!eof && poll(&p, 1, POLL_MS) > 0 && drain(pipefd[0], o) == 0)
            eof = 1;
        else if (eof)
            usleep(POLL_MS * 1000);
        r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            break;
        if (got_signal && !forwarded) {
            kill(pid, got_signal);
            forwarded = 1;
            forward_t = ht__now();
        } else if (forwarded && ht__now() - forward_t > grace_s) {
            kill(pid, SIGKILL);
        }
        for (int d = 0; *timed_out < 0 && d < HT_SUPERVISE_MAX_DEVICES; d++) {
            struct slot *s = &(*pg)->slot[d];
            if (atomic_load(&s->busy) > 0 && now_ns() > atomic_load(&s->deadline_ns)) {
                *timed_out = d;
                kill(pid, SIGKILL);
            }
        }
    }
    /* What it wrote before it ended; a process it left holding the pipe is not waited
     * for. */
    if (!eof)
        drain(pipefd[0], o);
    close(pipefd[0]);
    return HT_OK;
}

static void write_out(const struct out *o)
{
    if (o->len)
        fwrite(o->data, 1, o->len, stdout);
    fflush(stdout);
}

void ht_supervise_result_destroy(struct ht_supervise_result *r)
{
    if (!r)
        return;
    free(r->lost);
    memset(r, 0, sizeof *r);
}

int ht_supervise(char *const argv[], const struct ht_supervise_opts *opts,
                 struct ht_supervise_result *res, struct ht_error *err)
{
    struct ht_supervise_opts o = {0};
    struct sigaction sa, old_int, old_term;
    unsigned max;
    int probe = 0, rc = HT_OK;
    double grace;

    if (!res)
        return ht_error_set(err, HT_EINVAL, "ht_supervise: res is NULL");
    memset(res, 0, sizeof *res);
    if (!argv)
        return ht_error_set(err, HT_EINVAL, "ht_supervise: argv is NULL");
    if (opts)
        o = *opts;
    max = o.max_attempts ? o.max_attempts : HT_SUPERVISE_MAX_DEVICES + 2;
    grace = o.grace_s > 0 ? o.grace_s : 0.5;
    got_signal = 0;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    for (;;) {
        struct out out = {0};
        struct page *pg = NULL;
        char **env = child_env(res, probe);
        int status = 0, timed_out, busy[HT_SUPERVISE_MAX_DEVICES], nbusy = 0, added;
        char busy_text[256] = "";

        if (!env) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            break;
        }
        res->attempts++;
        rc = run_child(&(struct command){o.path ? o.path : "/proc/self/exe", argv, env}, grace,
                       &out, &pg, &status, &timed_out, err);
        env_free(env);
        for (int d = 0; pg && d < HT_SUPERVISE_MAX_DEVICES; d++)
            if (atomic_load(&pg->slot[d].busy) > 0) {
                size_t len = strlen(busy_text);
                busy[nbusy++] = d;
                snprintf(busy_text + len, sizeof busy_text - len, "%s%d (%s)",
                         len ? ", " : "", d, pg->slot[d].name);
            }
        if (rc != HT_OK) {
            /* Nothing ran. */
        } else if (got_signal) {
            res->interrupted = 1;
            write_out(&out);
            res->status = WIFEXITED(status) ? WEXITSTATUS(status) : 130;
            /* A child that had no handler of its own (tune's says so itself). */
            if (WIFSIGNALED(status))
                note(&o, "interrupted: what was measured is stored, and the same command "
                     "resumes");
        } else if (timed_out >= 0 || (WIFSIGNALED(status) && nbusy == 1)) {
            char why[64];
            size_t d = timed_out >= 0 ? (size_t)timed_out : (size_t)busy[0];
            const char *sig = ht__signal_name(WTERMSIG(status));
            if (timed_out >= 0)
                snprintf(why, sizeof why, "timeout after %.1f s", pg->slot[d].limit_s);
            else if (sig)
                snprintf(why, sizeof why, "crashed (%s)", sig);
            else
                snprintf(why, sizeof why, "crashed (signal %d)", WTERMSIG(status));
            probe = 0;
            added = lose(res, pg, d, why, err);
            if (added < 0) {
                rc = HT_ENOMEM;
            } else if (!added) {
                write_out(&out);
                note(&o, "device %zu (%s): %s in its part of the co-execution, though it "
                     "was left out", d, pg->slot[d].name, why);
                res->status = 1;
            } else if (res->nlost < HT_SUPERVISE_MAX_DEVICES && res->attempts < max) {
                note(&o, "device %zu (%s): %s; running again without it", d,
                     res->lost[res->nlost - 1].name, res->lost[res->nlost - 1].reason);
                munmap(pg, sizeof *pg);
                free(out.data);
                continue;
            } else {
                note(&o, "device %zu (%s): %s; giving up after %u attempts", d,
                     res->lost[res->nlost - 1].name, res->lost[res->nlost - 1].reason,
                     res->attempts);
                res->status = 1;
            }
        } else if (WIFSIGNALED(status) && nbusy > 1 && !probe && res->attempts < max) {
            const char *sig = ht__signal_name(WTERMSIG(status));
            note(&o, "crashed (%s) while devices %s worked; running again with each "
                 "device's part alone first, to find which", sig ? sig : "a signal", busy_text);
            probe = 1;
            munmap(pg, sizeof *pg);
            free(out.data);
            continue;
        } else if (WIFSIGNALED(status)) {
            const char *sig = ht__signal_name(WTERMSIG(status));
            write_out(&out);
            if (nbusy)
                note(&o, "crashed (%s) while devices %s worked, and again with their parts "
                     "alone: giving up", sig ? sig : "a signal", busy_text);
            else
                note(&o, "crashed (%s) with no device at work (not in a co-execution)",
                     sig ? sig : "a signal");
            res->status = 1;
        } else if (WIFEXITED(status) && WEXITSTATUS(status) && pg &&
                   atomic_load(&pg->failed) > 0) {
            /* A device's part failed in its driver (a GPU's illegal address, say): its
             * context may be spoilt; the next child goes on without it. */
            size_t d = (size_t)atomic_load(&pg->failed) - 1;
            char why[160];
            snprintf(why, sizeof why, "failed (%.120s)", pg->failed_text);
            added = lose(res, pg, d, why, err);
            if (added < 0) {
                rc = HT_ENOMEM;
            } else if (added && res->attempts < max) {
                note(&o, "device %zu (%s): %s; running again without it", d,
                     res->lost[res->nlost - 1].name, res->lost[res->nlost - 1].reason);
                munmap(pg, sizeof *pg);
                free(out.data);
                continue;
            } else {
                write_out(&out);
                res->status = WEXITSTATUS(status);
            }
        } else {
            write_out(&out);
            res->status = WEXITSTATUS(status);
        }
        if (pg)
            munmap(pg, sizeof *pg);
        free(out.data);
        break;
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}
