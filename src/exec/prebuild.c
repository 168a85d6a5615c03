/* Builds ahead (exec.h, ht_prebuild_*): a queue of configurations and one thread per build
 * worker. Each thread drives its own hetune-worker process (worker.c, started with
 * build_only) through the blocking ht__worker_build, whose time limit and crash detection
 * are those of an isolated session's evaluations; the caller's thread only queues and
 * takes. Threads, not an event loop, so that the worker protocol stays the one isolation
 * uses.
 *
 * A pause (ht__prebuild_pause) stops the workers' processes with SIGSTOP and continues them
 * with SIGCONT. The pool knows which processes are alive through each worker's watch
 * (worker.h): a slot's pid is set when its worker is spawned and cleared, under the pool's
 * lock, before the process is killed or waited for, so a signal never reaches a reaped
 * pid; each worker leads a process group of its own, which the signals go to (the
 * linker PoCL starts is paused too); and the worker's time limits run on a clock that
 * stands still while paused. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "exec-internal.h"
#include "worker.h"
#include "util/util.h"

#define MAX_JOBS 1024

enum job_state { QUEUED, BUILDING, FINISHED };

struct job {
    uint64_t id;
    int64_t *config;
    char *program;              /* the options the program is built with: one at a time */
    enum job_state state;
    struct ht_prebuild_done done;
    struct job *next;
};

struct slot {
    struct ht_prebuild *pool;
    pthread_t thread;
    int started;
    struct ht__worker_watch watch; /* the pool's side of this slot's worker */
    pid_t pid;                  /* its process, alive (not reaped); 0: none. Under mu */
};

struct ht_prebuild {
    const struct ht_spec *spec;
    const struct ht_device_info *dev;
    struct ht_exec_opts opts;   /* stop points at quit */
    char worker[4096];
    pthread_mutex_t mu;
    pthread_cond_t cv;          /* a job queued, finished, or the end */
    struct job *head, *tail;    /* in the order submitted */
    int ending;
    int pausing;                /* ht__prebuild_pause acts (ht__prebuild_pausing) */
    int paused;                 /* the workers are stopped (SIGSTOP) */
    double paused_since;        /* when the pause in progress began (ht__now) */
    double paused_s;            /* the seconds of the pauses that ended */
    volatile sig_atomic_t quit; /* raised at the end: builds in flight are abandoned */
    unsigned nslots;
    struct slot *slots;
};

/* Whether a build's failure is the configuration's own. A build that outlasted the
 * automatic limit is not: that limit follows the slowest build this worker has seen, and
 * with every core compiling at once a heavy configuration can outlast it (11 of 100 on
 * the H100 machine's 16 cores, none of which hung built alone). The session builds such a
 * configuration again under its own limit. A limit the user set (opts.timeout_s) is the
 * same for both, so a build that outlasts it is the configuration's fate. */
static int config_fault(int status, const struct ht_exec_opts *opts)
{
    return status == HT_EBUILD || status == HT_ECONSTRAINT || status == HT_ECRASH ||
           (status == HT_ETIMEOUT && opts->timeout_s > 0.0);
}

/* The first queued job whose program no job builds now. Called locked. */
static struct job *next_job(struct ht_prebuild *p)
{
    for (struct job *j = p->head; j; j = j->next) {
        int busy = 0;
        if (j->state != QUEUED)
            continue;
        for (struct job *k = p->head; k && !busy; k = k->next)
            busy = k->state == BUILDING && !strcmp(k->program, j->program);
        if (!busy)
            return j;
    }
    return NULL;
}

/* The watch's pid: a slot's worker was spawned (pid), or is about to be reaped (0). A
 * process spawned during a pause is stopped at once; one about to be reaped is continued
 * first, so that it can end (a graceful reap waits for it). */
static void slot_pid(void *ctx, pid_t pid)
{
    struct slot *sl = ctx;
    struct ht_prebuild *p = sl->pool;

    pthread_mutex_lock(&p->mu);
    if (pid > 0 && p->paused)
        kill(-pid, SIGSTOP);
    else if (pid == 0 && sl->pid > 0 && p->paused)
        kill(-sl->pid, SIGCONT);
    sl->pid = pid;
    pthread_mutex_unlock(&p->mu);
}

double ht__prebuild_paused_s(struct ht_prebuild *p)
{
    double s;

    pthread_mutex_lock(&p->mu);
    s = p->paused_s + (p->paused ? ht__now() - p->paused_since : 0.0);
    pthread_mutex_unlock(&p->mu);
    return s;
}

/* The watch's paused: the seconds paused so far, the pause in progress included. */
static double pool_paused(void *ctx)
{
    return ht__prebuild_paused_s(((struct slot *)ctx)->pool);
}

static void *slot_main(void *arg)
{
    struct slot *sl = arg;
    struct ht_prebuild *p = sl->pool;
    struct ht__worker *w = NULL;

    pthread_mutex_lock(&p->mu);
    for (;;) {
        struct job *j = NULL;
        struct ht_prebuild_done d;
        int rc;

        while (!p->ending && !(j = next_job(p)))
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->ending)
            break;
        j->state = BUILDING;
        pthread_mutex_unlock(&p->mu);

        memset(&d, 0, sizeof d);
        ht_error_clear(&d.err);
        /* A worker that cannot start says nothing about the configuration. */
        rc = w ? ht__worker_ensure(w, &d.err)
               : ht__worker_start(p->spec, p->dev, &p->opts, p->worker, &sl->watch, &w,
                                  &d.err);
        if (rc == HT_OK) {
            rc = ht__worker_build(w, j->config, &d.res, &d.err);
            d.config_fault = config_fault(rc, &p->opts);
        }
        d.status = rc;

        pthread_mutex_lock(&p->mu);
        j->done = d;
        j->state = FINISHED;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    ht__worker_free(w);
    return NULL;
}

/* ht__prebuild_possible's checks, the worker executable found into worker[0..size). */
static int pool_check(const struct ht_spec *spec, const struct ht_exec_opts *opts,
                      unsigned jobs, char *worker, size_t size, struct ht_error *err)
{
    if (jobs < 1 || jobs > MAX_JOBS)
        return ht_error_set(err, HT_EINVAL, "%u build workers: between 1 and %d", jobs,
                            MAX_JOBS);
    if (!spec->path)
        return ht_error_set(err, HT_EINVAL, "building ahead needs a spec loaded from a file");
    if (ht__worker_find(opts ? opts->worker : NULL, worker, size) != HT_OK)
        return ht_error_set(err, HT_ENOTFOUND, "no worker executable to build ahead in (set "
                            "HETUNE_WORKER)");
    return HT_OK;
}

int ht__prebuild_possible(const struct ht_spec *spec, const struct ht_exec_opts *opts,
                          unsigned jobs, struct ht_error *err)
{
    char worker[4096];

    return pool_check(spec, opts, jobs, worker, sizeof worker, err);
}

int ht__prebuild_create(const struct ht_spec *spec, const struct ht_device_info *dev,
                        const struct ht_exec_opts *opts, unsigned jobs,
                        struct ht_prebuild **out, struct ht_error *err)
{
    struct ht_prebuild *p;
    int rc;

    *out = NULL;
    p = calloc(1, sizeof *p);
    if (!p)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    rc = pool_check(spec, opts, jobs, p->worker, sizeof p->worker, err);
    if (rc != HT_OK) {
        free(p);
        return rc;
    }
    if (!(p->slots = calloc(jobs, sizeof *p->slots))) {
        free(p);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    p->spec = spec;
    p->dev = dev;
    if (opts)
        p->opts = *opts;
    else
        ht_exec_opts_init(&p->opts);
    p->opts.stop = &p->quit;
    p->pausing = 1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    for (unsigned i = 0; i < jobs; i++) {
        p->slots[i].pool = p;
        p->slots[i].watch = (struct ht__worker_watch){slot_pid, pool_paused, &p->slots[i]};
        if (pthread_create(&p->slots[i].thread, NULL, slot_main, &p->slots[i]) != 0)
            break;
        p->slots[i].started = 1;
        p->nslots++;
    }
    if (!p->nslots) {
        ht__prebuild_free(p);
        return ht_error_set(err, HT_ENOMEM, "cannot start a thread to build ahead");
    }
    *out = p;
    return HT_OK;
}

int ht__prebuild_submit(struct ht_prebuild *p, uint64_t id, const int64_t *config)
{
    size_t np = p->spec->space.nparams;
    struct job *j;

    pthread_mutex_lock(&p->mu);
    for (j = p->head; j; j = j->next)
        if (j->id == id) {
            pthread_mutex_unlock(&p->mu);
            return HT_EINVAL;
        }
    pthread_mutex_unlock(&p->mu);
    j = calloc(1, sizeof *j);
    if (!j)
        return HT_ENOMEM;
    j->id = id;
    j->config = malloc((np ? np : 1) * sizeof *j->config);
    {
        char *options = ht__build_options(p->spec, config);
        j->program = options ? ht__program_options(p->spec->source, p->spec->source_len,
                                                   options)
                             : NULL;
        free(options);
    }
    if (!j->config || !j->program) {
        free(j->config);
        free(j->program);
        free(j);
        return HT_ENOMEM;
    }
    memcpy(j->config, config, np * sizeof *config);
    pthread_mutex_lock(&p->mu);
    if (p->tail)
        p->tail->next = j;
    else
        p->head = j;
    p->tail = j;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return HT_OK;
}

static void job_free(struct job *j)
{
    free(j->config);
    free(j->program);
    free(j);
}

int ht__prebuild_take(struct ht_prebuild *p, uint64_t id, int wait,
                      struct ht_prebuild_done *done)
{
    struct job *j, *prev = NULL;

    pthread_mutex_lock(&p->mu);
    for (j = p->head; j && j->id != id; j = j->next)
        prev = j;
    if (!j) {
        pthread_mutex_unlock(&p->mu);
        return HT_ENOTFOUND;
    }
    while (j->state != FINISHED && wait)
        pthread_cond_wait(&p->cv, &p->mu);
    if (j->state != FINISHED) {
        pthread_mutex_unlock(&p->mu);
        return HT_BUSY;
    }
    /* The list may have changed while waiting: find j's predecessor again. */
    prev = NULL;
    for (struct job *k = p->head; k != j; k = k->next)
        prev = k;
    if (prev)
        prev->next = j->next;
    else
        p->head = j->next;
    if (p->tail == j)
        p->tail = prev;
    pthread_mutex_unlock(&p->mu);
    *done = j->done;
    job_free(j);
    return HT_OK;
}

void ht__prebuild_counts(struct ht_prebuild *p, size_t *queued, size_t *building,
                         size_t *finished)
{
    size_t n[3] = {0, 0, 0};

    pthread_mutex_lock(&p->mu);
    for (const struct job *j = p->head; j; j = j->next)
        n[j->state]++;
    pthread_mutex_unlock(&p->mu);
    if (queued)
        *queued = n[QUEUED];
    if (building)
        *building = n[BUILDING];
    if (finished)
        *finished = n[FINISHED];
}

void ht__prebuild_pausing(struct ht_prebuild *p, int on)
{
    pthread_mutex_lock(&p->mu);
    p->pausing = !!on;
    pthread_mutex_unlock(&p->mu);
}

void ht__prebuild_pause(struct ht_prebuild *p, int on)
{
    double now = ht__now();

    pthread_mutex_lock(&p->mu);
    if (p->pausing && !on != !p->paused) {
        for (unsigned i = 0; i < p->nslots; i++)
            if (p->slots[i].pid > 0)
                kill(-p->slots[i].pid, on ? SIGSTOP : SIGCONT);
        if (on)
            p->paused_since = now;
        else
            p->paused_s += now - p->paused_since;
        p->paused = !!on;
    }
    pthread_mutex_unlock(&p->mu);
}

void ht__prebuild_free(struct ht_prebuild *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->ending = 1;
    p->quit = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->nslots; i++)
        if (p->slots[i].started)
            pthread_join(p->slots[i].thread, NULL);
    while (p->head) {
        struct job *j = p->head;
        p->head = j->next;
        if (j->state == FINISHED)
            ht_eval_result_destroy(&j->done.res);
        job_free(j);
    }
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p->slots);
    free(p);
}
