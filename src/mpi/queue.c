/* Distributed tuning over MPI (issue 16; mpi.h, docs/scale.md): rank 0 holds the work
 * queue and the database, every rank measures on its own devices.
 *
 * On every rank the main thread alone calls MPI (MPI_THREAD_FUNNELED) and a measuring
 * thread evaluates the configurations it is handed, without MPI, so that rank 0 serves the
 * queue while it measures, and the other ranks beat their heart while they measure. Every
 * wait polls (MPI_Iprobe, then a short sleep) rather than blocking in MPI, because Open
 * MPI spins in a blocking receive and would take the core the measurement needs. */
#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hetune/mpi.h"
#include "mpi-internal.h"
#include "util/util.h"

enum { TAG_REQ = 1, TAG_RESULT, TAG_BEAT, TAG_LEAVE, TAG_ASSIGN, TAG_DONE };

#define BEAT_S 0.5
#define POLL_NS 2000000L
#define HOST_MAX HT__MPI_HOST_MAX
#define WHY_MAX HT__MPI_WHY_MAX

/* One configuration handed to a rank. */
struct assign_msg {
    int32_t model, pad;
    int64_t problem_id, device_id;
    double best_s;              /* the model's best so far, for early termination; 0 none */
    int64_t values[HT_STORE_MAX_PARAMS];
    char text[HT_STORE_CONFIG_MAX];
};

/* What a rank sends back: the evaluation to store, or that it cannot measure the model. */
struct result_msg {
    int32_t model, unable;      /* unable 1: no session on this rank (reason in ev.reason) */
    int32_t status, pad;
    double build_s, launch_compile_s, wall_s;
    double locked_at, unlocked_at; /* the device lock's window, on the host's monotonic
                                      clock (ht__now: ranks of one host share it) */
    struct ht_load load;        /* what other processes did in that window */
    struct ht_stored_eval ev;
};

/* The hand-over between a rank's main thread and its measuring thread. */
struct mailbox {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int has_work, has_result, quit;
    struct assign_msg work;
    struct result_msg result;
};

/* The strategies distributed: exhaustive (the walk's order) and random (a seeded uniform
 * permutation of the valid configurations, cut by the budget: draws without repeats). */
static const char *strategy_name(const struct ht_tune_opts *opts)
{
    return opts->strategy && !strcmp(opts->strategy, "random") ? "random" : "exhaustive";
}

/* What the measuring thread needs; the devices and sessions are this rank's. */
struct measurer {
    const struct ht_spec *spec;
    const struct ht_tune_opts *opts;
    struct ht_exec_opts eopts;
    const struct ht_device_info *devs; /* this rank's selected devices */
    const int *dev_model;        /* the model of each */
    size_t ndev;
    struct ht_session **sessions;
    struct mailbox *mb;
    long die_after;              /* test hook: exit on receiving this many (0: never) */
    long received;
    double delay_s;              /* test hook: the other ranks wait this long before each
                                    measurement, so that the dying one gets its Nth */
};

/* A device model: identical devices of any rank, tuned together. Rank 0's queue. */
struct model {
    struct ht_device_info info;  /* the first device of the model (cl handles NULL) */
    int64_t device_id, problem_id;
    size_t count, nparams;
    int64_t *configs;            /* count x nparams, as ht_space_foreach lists them (random:
                                    shuffled) */
    unsigned char *state;        /* 0 pending, 1 in flight, 2 done */
    size_t next;                 /* the first index not yet handed out in order */
    size_t *again, nagain;       /* lost in flight: handed out first */
    size_t assigned;             /* handed out in this run (the budget counts these) */
    size_t from_db, evaluated, cut, failed, crashed, timed_out, lost;
    int has_best, best_from_db;
    size_t best;
    double best_s;
};

/* splitmix64: the permutation's generator (a 64-bit state, one step a draw). */
static uint64_t mix_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Random: the listed configurations in a uniformly random order (Fisher-Yates), the same
 * for the same seed and model. */
static void shuffle_configs(struct model *m, uint64_t seed, size_t model_index)
{
    uint64_t st = seed ^ (0xD1B54A32D192ED03ull * (model_index + 1));
    int64_t tmp[HT_STORE_MAX_PARAMS];
    size_t np = m->nparams, row = np * sizeof *m->configs;

    for (size_t i = m->count; i > 1; i--) {
        size_t j = (size_t)(mix_next(&st) % i);
        if (j == i - 1)
            continue;
        memcpy(tmp, m->configs + j * np, row);
        memcpy(m->configs + j * np, m->configs + (i - 1) * np, row);
        memcpy(m->configs + (i - 1) * np, tmp, row);
    }
}

/* Rank 0's view of one rank. */
struct rank {
    char host[HOST_MAX];
    char why[WHY_MAX];           /* why it has no device, or why it stopped */
    size_t first_dev, ndev;      /* its devices in the gathered list */
    int alive, finished, wants, asked, left, dead;
    unsigned char *unable;       /* per model: its session failed */
    int inflight;                /* model of the configuration in flight, -1 none */
    size_t inflight_idx;
    double last_heard, busy_s;
    size_t measured, ok, cut, failed, lost;
    struct ht_load load;         /* what others did while it measured (its results') */
    char **texts;                /* ntexts: the configurations it measured, as text */
    double *wins;                /* ntexts x 2: [locked_at, unlocked_at] of each */
    size_t ntexts, cap;
    char **lost_texts;           /* nlost_texts: its configurations lost in flight */
    size_t nlost_texts, lost_cap;
};

/* Appends a copy of text to *v (*n entries, room for *cap); -1 when out of memory. */
static int push_text(char ***v, size_t *n, size_t *cap, const char *text)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        char **grown = realloc(*v, c * sizeof *grown);
        if (!grown)
            return -1;
        *v = grown;
        *cap = c;
    }
    if (!((*v)[*n] = strdup(text)))
        return -1;
    (*n)++;
    return 0;
}

/* Records a configuration rk measured and its lock window; -1 when out of memory. */
static int push_measured(struct rank *rk, const char *text, double locked_at,
                         double unlocked_at)
{
    if (rk->ntexts == rk->cap) {
        double *w = realloc(rk->wins, 2 * (rk->cap ? 2 * rk->cap : 16) * sizeof *w);
        if (!w)
            return -1;
        rk->wins = w;
    }
    /* wins has room for the capacity push_text grows texts to. */
    if (push_text(&rk->texts, &rk->ntexts, &rk->cap, text) != 0)
        return -1;
    rk->wins[2 * (rk->ntexts - 1)] = locked_at;
    rk->wins[2 * (rk->ntexts - 1) + 1] = unlocked_at;
    return 0;
}

static double now_s(void)
{
    return ht__now();
}

static void nap(void)
{
    struct timespec ts = {0, POLL_NS};
    nanosleep(&ts, NULL);
}

static int same_model(const struct ht_device_info *a, const struct ht_device_info *b)
{
    return !strcmp(a->name, b->name) && !strcmp(a->vendor, b->vendor) &&
           !strcmp(a->driver_version, b->driver_version) &&
           a->compute_units == b->compute_units;
}

/* --- the measuring thread (no MPI here) --- */

static int measure(struct measurer *m, const struct assign_msg *a, struct result_msg *r)
{
    const struct ht_device_info *dev = NULL;
    struct ht_session **session = NULL;
    struct ht_eval_result res;
    struct ht_error eerr;
    struct ht_tune_one one;
    struct ht_device_locks locks;
    struct ht_device_wait wait;
    double t0 = now_s();
    int st;

    memset(r, 0, sizeof *r);
    ht_stored_eval_init(&r->ev);
    r->model = a->model;
    for (size_t d = 0; d < m->ndev && !dev; d++)
        if (m->dev_model[d] == a->model) {
            dev = &m->devs[d];
            session = &m->sessions[d];
        }
    ht_error_clear(&eerr);
    if (!dev) {
        r->unable = 1;
        snprintf(r->ev.reason, sizeof r->ev.reason, "no device of model %d here", a->model);
        return 0;
    }
    if (!*session) {
        st = ht_session_create(m->spec, dev, &m->eopts, session, &eerr);
        if (st != HT_OK) {
            r->unable = 1;
            ht_error_format(&eerr, r->ev.reason, sizeof r->ev.reason);
            return 0;
        }
    }
    memset(&res, 0, sizeof res);
    one = (struct ht_tune_one){*session, a->values, a->text, m->spec->space.nparams, a->best_s,
                               m->opts->cut_factor, a->problem_id, a->device_id,
                               strategy_name(m->opts), m->opts->seed, m->spec->hash};
    /* Ranks of one host that share a device measure on it one at a time, as processes
     * do (exec.h): one lock, held for one configuration, in this thread alone, so that
     * the rank's main thread goes on answering the others meanwhile. */
    wait.stop = m->opts->stop;
    wait.on_wait = m->opts->on_device_wait;
    wait.user = m->opts->wait_user;
    st = ht_device_locks_take(&dev, 1, &wait, &locks, &r->load, &eerr);
    if (st == HT_EINTR)
        return -1;
    r->locked_at = now_s();
    /* As the tuner evaluates (its early cut from the best so far), its row filled. */
    st = ht_tune_eval(&one, &res, &r->ev, &eerr);
    r->unlocked_at = now_s();
    ht_device_locks_release(&locks, &r->load);
    /* A signal can make an OpenCL call fail: such a failure is abandoned, not sent. */
    if (m->opts->stop && *m->opts->stop && st != HT_OK && st != HT_ECUT) {
        ht_eval_result_destroy(&res);
        return -1;
    }
    r->status = st;
    r->build_s = st == HT_ECONSTRAINT ? 0.0 : res.build_s;
    r->launch_compile_s = res.launch_compile_s;
    ht_eval_result_destroy(&res);
    r->wall_s = now_s() - t0;
    return 0;
}

static void *measurer_main(void *arg)
{
    struct measurer *m = arg;
    struct mailbox *mb = m->mb;
    struct assign_msg a;
    struct result_msg *r = malloc(sizeof *r);

    for (;;) {
        pthread_mutex_lock(&mb->mu);
        while (!mb->has_work && !mb->quit)
            pthread_cond_wait(&mb->cv, &mb->mu);
        if (mb->quit) {
            pthread_mutex_unlock(&mb->mu);
            break;
        }
        a = mb->work;
        mb->has_work = 0;
        pthread_mutex_unlock(&mb->mu);
        /* The test hook of tests/cli/mpi_tune.sh: this rank dies with a configuration in
         * flight, as a node that fails does. */
        if (m->die_after > 0 && ++m->received >= m->die_after)
            _exit(3);
        if (m->delay_s > 0.0) {
            struct timespec ts = {(time_t)m->delay_s,
                                  (long)((m->delay_s - (double)(time_t)m->delay_s) * 1e9)};
            nanosleep(&ts, NULL);
        }
        if (!r || measure(m, &a, r) != 0) {
            if (!r)
                break;
            continue; /* abandoned: the stop flag is raised, the main thread leaves */
        }
        pthread_mutex_lock(&mb->mu);
        mb->result = *r;
        mb->has_result = 1;
        pthread_mutex_unlock(&mb->mu);
    }
    free(r);
    return NULL;
}

static void mailbox_give(struct mailbox *mb, const struct assign_msg *a)
{
    pthread_mutex_lock(&mb->mu);
    mb->work = *a;
    mb->has_work = 1;
    pthread_cond_signal(&mb->cv);
    pthread_mutex_unlock(&mb->mu);
}

static int mailbox_take(struct mailbox *mb, struct result_msg *r)
{
    int got;

    pthread_mutex_lock(&mb->mu);
    got = mb->has_result;
    if (got) {
        *r = mb->result;
        mb->has_result = 0;
    }
    pthread_mutex_unlock(&mb->mu);
    return got;
}

static void mailbox_quit(struct mailbox *mb)
{
    pthread_mutex_lock(&mb->mu);
    mb->quit = 1;
    pthread_cond_signal(&mb->cv);
    pthread_mutex_unlock(&mb->mu);
}

static int stop_raised(const struct ht_tune_opts *o)
{
    return o->stop && *o->stop;
}

/* --- rank 0: the queue and the database --- */

struct collect {
    struct model *m;
    size_t cap;
};

static int collect_cb(const int64_t *config, void *user)
{
    struct collect *c = user;
    struct model *m = c->m;

    if (m->count == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        int64_t *grown = realloc(m->configs, cap * m->nparams * sizeof *grown);
        if (!grown)
            return 1;
        m->configs = grown;
        c->cap = cap;
    }
    memcpy(m->configs + m->count * m->nparams, config, m->nparams * sizeof *config);
    m->count++;
    return 0;
}

struct preseed {
    struct model *m;
    const struct ht_tune_opts *opts;
    size_t *hash;                /* open addressing over the configurations; SIZE_MAX empty */
    size_t mask;
};

static size_t hash_values(const int64_t *v, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint64_t)v[i]) * 1099511628211u;
    return (size_t)h;
}

static int preseed_cb(const struct ht_stored_eval *ev, void *user)
{
    struct preseed *p = user;
    struct model *m = p->m;
    size_t h;

    if (ev->nvalues != m->nparams)
        return 0;
    if (p->opts->retry_failed && (!strcmp(ev->status, HT_STORE_CRASHED) ||
                                  !strcmp(ev->status, HT_STORE_TIMEOUT)))
        return 0;
    for (h = hash_values(ev->values, m->nparams) & p->mask; p->hash[h] != SIZE_MAX;
         h = (h + 1) & p->mask) {
        size_t i = p->hash[h];
        if (memcmp(m->configs + i * m->nparams, ev->values, m->nparams * sizeof *ev->values))
            continue;
        if (m->state[i] == 2)
            return 0; /* stored twice: the first counts */
        m->state[i] = 2;
        m->from_db++;
        if (!strcmp(ev->status, HT_STORE_OK) && ev->verified != 0 && ev->seconds > 0.0 &&
            isfinite(ev->seconds) && (!m->has_best || ev->seconds < m->best_s)) {
            m->has_best = m->best_from_db = 1;
            m->best = i;
            m->best_s = ev->seconds;
        }
        return 0;
    }
    return 0; /* outside today's space */
}

/* Lists the model's configurations, and registers the model through the sink the way
 * ht_tune_device does (ids, --fresh, the space's sizes), then marks what it holds done. */
static int model_setup(const struct ht_spec *spec, const struct ht_tune_opts *opts,
                       const struct ht_tune_sink *sink, struct model *m, size_t mi,
                       struct ht_error *err)
{
    struct ht_space *space = NULL;
    struct ht_space_counts counts;
    struct ht_stored_space sp;
    struct collect col = {m, 0};
    struct preseed p = {m, opts, NULL, 0};
    uint64_t forgotten;
    size_t size = 16;
    int rc;

    m->nparams = spec->space.nparams;
    rc = ht_space_create(&spec->space, &m->info, opts->eq3, &space, err);
    if (rc == HT_OK)
        rc = ht_space_count(space, &counts, err);
    if (rc != HT_OK)
        goto cleanup;
    rc = ht_space_foreach(space, collect_cb, &col);
    if (rc != HT_OK) {
        rc = ht_error_set(err, rc > 0 ? HT_ENOMEM : rc, "cannot list the configurations");
        goto cleanup;
    }
    if (!strcmp(strategy_name(opts), "random"))
        shuffle_configs(m, opts->seed, mi);
    m->state = calloc(m->count ? m->count : 1, 1);
    m->again = malloc((m->count ? m->count : 1) * sizeof *m->again);
    while (size < 2 * m->count)
        size *= 2;
    p.hash = malloc(size * sizeof *p.hash);
    p.mask = size - 1;
    if (!m->state || !m->again || !p.hash) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    memset(p.hash, 0xff, size * sizeof *p.hash);
    for (size_t i = 0; i < m->count; i++) {
        size_t h = hash_values(m->configs + i * m->nparams, m->nparams) & p.mask;
        while (p.hash[h] != SIZE_MAX)
            h = (h + 1) & p.mask;
        p.hash[h] = i;
    }
    rc = sink->ops->identify(sink->user, spec, &m->info, &m->problem_id, &m->device_id, err);
    if (rc == HT_OK && opts->fresh)
        rc = sink->ops->forget(sink->user, m->problem_id, m->device_id, &forgotten, err);
    if (rc == HT_OK && sink->ops->put_space) {
        ht_stored_space_init(&sp);
        sp.problem_id = m->problem_id;
        sp.device_id = m->device_id;
        sp.eq3 = ht_space_get_eq3(space);
        ht_stored_space_from_counts(&sp, &counts);
        rc = sink->ops->put_space(sink->user, &sp, err);
    }
    if (rc == HT_OK)
        rc = sink->ops->list_evals(sink->user, m->problem_id, m->device_id, preseed_cb, &p,
                                   err);

cleanup:
    free(p.hash);
    ht_space_free(space);
    return rc;
}

struct server {
    const struct ht_spec *spec;
    const struct ht_tune_opts *opts;
    const struct ht_tune_sink *sink; /* where the evaluations go: the caller's or the
                                        database's */
    struct model *models;
    size_t nmodels;
    struct rank *ranks;
    int size;
    const int *dev_model;        /* the model of every gathered device */
    const char **names;          /* the parameters' names */
    struct mailbox *mb;          /* rank 0's own measuring thread */
    int rc;                      /* the first database error */
    struct ht_error *err;
    int stopping;
    double store_s;              /* rank 0's time storing results (the cost model's input) */
    size_t messages;             /* messages rank 0 received */
    double serve_s;              /* the queue's whole run */
    int died;                    /* some rank died: nobody calls MPI_Finalize */
};

static int rank_has_model(const struct server *s, int r, int m)
{
    const struct rank *rk = &s->ranks[r];

    if (rk->unable[m])
        return 0;
    for (size_t d = 0; d < rk->ndev; d++)
        if (s->dev_model[rk->first_dev + d] == m)
            return 1;
    return 0;
}

static int model_pending(struct model *m, const struct ht_tune_opts *opts)
{
    if (opts->budget && m->assigned >= opts->budget && !m->nagain)
        return 0;
    if (m->nagain)
        return 1;
    while (m->next < m->count && m->state[m->next] != 0)
        m->next++;
    return m->next < m->count;
}

static void requeue(struct server *s, int r)
{
    struct rank *rk = &s->ranks[r];
    struct model *m;

    if (rk->inflight < 0)
        return;
    m = &s->models[rk->inflight];
    m->state[rk->inflight_idx] = 0;
    m->again[m->nagain++] = rk->inflight_idx;
    m->lost++;
    rk->lost++;
    {
        char text[HT_STORE_CONFIG_MAX];
        ht_store_config_text(s->names, m->configs + rk->inflight_idx * m->nparams, m->nparams,
                             text, sizeof text);
        if (push_text(&rk->lost_texts, &rk->nlost_texts, &rk->lost_cap, text) != 0 &&
            s->rc == HT_OK) {
            s->rc = ht_error_set(s->err, HT_ENOMEM, "out of memory");
            s->stopping = 1;
        }
    }
    rk->inflight = -1;
}

static void rank_gone(struct server *s, int r, int dead, const char *why)
{
    struct rank *rk = &s->ranks[r];

    if (!rk->alive)
        return;
    rk->alive = 0;
    rk->dead = dead;
    rk->left = !dead;
    snprintf(rk->why, sizeof rk->why, "%.200s", why);
    requeue(s, r);
}

/* Sends without waiting on a rank that may be dead: a blocking send to a dead process
 * returns with some transports (shared memory) and never with others (libfabric). The
 * message is copied; a send that has not completed after HT_MPI_SILENCE_S seconds is given
 * up (its copy is left to MPI) and returns -1. */
static int send_bounded(int r, const void *buf, int bytes, int tag)
{
    void *copy = malloc(bytes > 0 ? (size_t)bytes : 1);
    MPI_Request req;
    double t0 = now_s();
    int done = 0;

    if (!copy)
        return -1;
    memcpy(copy, buf, (size_t)bytes);
    if (MPI_Isend(copy, bytes, MPI_BYTE, r, tag, MPI_COMM_WORLD, &req) != MPI_SUCCESS) {
        free(copy);
        return -1;
    }
    while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done &&
           now_s() - t0 < HT_MPI_SILENCE_S)
        nap();
    if (!done) {
        MPI_Request_free(&req);
        return -1;
    }
    free(copy);
    return 0;
}

static int send_to(struct server *s, int r, const void *buf, int bytes, int tag)
{
    if (send_bounded(r, buf, bytes, tag) == 0)
        return 0;
    rank_gone(s, r, 1, "a message to it was not taken");
    return -1;
}

/* Hands rank r its next configuration, if any. */
static int assign(struct server *s, int r)
{
    struct rank *rk = &s->ranks[r];
    struct assign_msg a;

    if (s->stopping)
        return 0;
    for (size_t mi = 0; mi < s->nmodels; mi++) {
        struct model *m = &s->models[mi];
        size_t idx;

        if (!rank_has_model(s, r, (int)mi) || !model_pending(m, s->opts))
            continue;
        if (m->nagain) {
            idx = m->again[--m->nagain];
        } else {
            idx = m->next++;
            m->assigned++;
        }
        memset(&a, 0, sizeof a);
        a.model = (int32_t)mi;
        a.problem_id = m->problem_id;
        a.device_id = m->device_id;
        a.best_s = m->has_best ? m->best_s : 0.0;
        memcpy(a.values, m->configs + idx * m->nparams, m->nparams * sizeof *a.values);
        ht_store_config_text(s->names, a.values, m->nparams, a.text, sizeof a.text);
        m->state[idx] = 1;
        rk->inflight = (int)mi;
        rk->inflight_idx = idx;
        rk->wants = 0;
        if (r == 0)
            mailbox_give(s->mb, &a);
        else
            send_to(s, r, &a, sizeof a, TAG_ASSIGN);
        return 1;
    }
    return 0;
}

/* Stores what rank r measured, as it arrives. */
static void take_result(struct server *s, int r, const struct result_msg *res)
{
    struct rank *rk = &s->ranks[r];
    struct model *m;
    size_t idx;
    int st = res->status;

    if (rk->inflight < 0 || rk->inflight != res->model)
        return; /* not what it was given: a stray message, ignored */
    m = &s->models[rk->inflight];
    idx = rk->inflight_idx;
    if (res->unable) {
        /* Its devices of this model cannot run the spec: reported, and the others go on. */
        rk->unable[res->model] = 1;
        snprintf(rk->why, sizeof rk->why, "cannot measure model %d: %.200s", res->model,
                 res->ev.reason);
        m->state[idx] = 0;
        m->again[m->nagain++] = idx;
        rk->inflight = -1;
        return;
    }
    rk->inflight = -1;
    if (s->rc == HT_OK) {
        double t0 = now_s();
        int rc = s->sink->ops->put_eval(s->sink->user, &res->ev, s->err);
        s->store_s += now_s() - t0;
        if (rc != HT_OK) {
            s->rc = rc;
            s->stopping = 1;
        }
    }
    m->state[idx] = 2;
    m->evaluated++;
    rk->measured++;
    rk->busy_s += res->wall_s;
    ht_load_add(&rk->load, &res->load);
    if (push_measured(rk, res->ev.config, res->locked_at, res->unlocked_at) != 0 &&
        s->rc == HT_OK) {
        s->rc = ht_error_set(s->err, HT_ENOMEM, "out of memory");
        s->stopping = 1;
    }
    if (st == HT_ECUT) {
        m->cut++;
        rk->cut++;
    } else if (st != HT_OK) {
        m->failed++;
        rk->failed++;
    } else {
        rk->ok++;
    }
    m->crashed += st == HT_ECRASH;
    m->timed_out += st == HT_ETIMEOUT;
    if (st == HT_OK && res->ev.verified != 0 && res->ev.seconds > 0.0 &&
        isfinite(res->ev.seconds) && (!m->has_best || res->ev.seconds < m->best_s)) {
        m->has_best = 1;
        m->best_from_db = 0;
        m->best = idx;
        m->best_s = res->ev.seconds;
    }
}

static void serve(struct server *s, double silence_s)
{
    const struct ht_tune_opts *o = s->opts;
    struct result_msg *res = malloc(sizeof *res);
    double t0 = now_s(), roll_call = 0.0;
    int one = 1, busy;

    if (!res) {
        s->rc = ht_error_set(s->err, HT_ENOMEM, "out of memory");
        s->stopping = 1;
    }
    /* Rank 0 starts at once; the others when their request arrives. */
    s->ranks[0].wants = s->ranks[0].asked = 1;
    for (int r = 0; r < s->size; r++)
        s->ranks[r].last_heard = t0;
    for (;;) {
        double now = now_s();
        int flag = 0;
        MPI_Status st;

        if (stop_raised(o) || (o->time_limit_s > 0.0 && now - t0 > o->time_limit_s))
            s->stopping = 1;
        if (res && mailbox_take(s->mb, res)) {
            take_result(s, 0, res);
            s->ranks[0].wants = 1;
        }
        while (res && MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) ==
                          MPI_SUCCESS && flag) {
            int src = st.MPI_SOURCE, bytes = 0;
            struct rank *rk = &s->ranks[src];

            MPI_Get_count(&st, MPI_BYTE, &bytes);
            s->messages++;
            if (bytes < 0 || bytes > (int)sizeof *res ||
                MPI_Recv(res, bytes, MPI_BYTE, src, st.MPI_TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE) != MPI_SUCCESS) {
                rank_gone(s, src, 1, "an MPI call to it failed");
                continue;
            }
            if (!rk->alive && !rk->finished) {
                /* Counted as dead, yet it speaks: it is told to stop, its work was
                 * handed to others already. */
                rk->finished = 1;
                send_bounded(src, &one, sizeof one, TAG_DONE);
                continue;
            }
            if (st.MPI_TAG == TAG_RESULT && bytes == (int)sizeof *res) {
                if (rk->alive)
                    take_result(s, src, res);
                rk->wants = rk->asked = 1;
            } else if (st.MPI_TAG == TAG_REQ) {
                rk->wants = rk->inflight < 0;
                rk->asked = 1;
            } else if (st.MPI_TAG == TAG_LEAVE) {
                rank_gone(s, src, 0, "left (interrupted)");
            }
            rk->last_heard = now;
        }
        if (roll_call > 0.0) {
            /* The queue is done: every rank still counted alive must be heard once more
             * (its heartbeat) or be counted dead, so that the survivors know whether to
             * skip MPI_Finalize, which waits for dead processes (mpi.h). */
            int waiting = 0;
            for (int r = 1; r < s->size; r++) {
                struct rank *rk = &s->ranks[r];
                if (!rk->alive || rk->last_heard > roll_call)
                    continue;
                if (now - rk->last_heard > silence_s)
                    rank_gone(s, r, 1, "died (silent at the end)");
                else
                    waiting = 1;
            }
            if (!waiting)
                break;
            nap();
            continue;
        }
        for (int r = 0; r < s->size; r++) {
            struct rank *rk = &s->ranks[r];

            if (!rk->alive)
                continue;
            /* A rank that stops answering (no heartbeat) is counted as dead. */
            if (r > 0 && now - rk->last_heard > silence_s) {
                char why[WHY_MAX];
                snprintf(why, sizeof why, "died (silent for %.1f s)", now - rk->last_heard);
                rank_gone(s, r, 1, why);
                continue;
            }
            if (rk->wants)
                assign(s, r);
        }
        /* Done when nothing is in flight and every rank has asked once: whatever is still
         * pending has no live rank able to measure it. */
        busy = 0;
        for (int r = 0; r < s->size; r++)
            busy |= s->ranks[r].alive && (s->ranks[r].inflight >= 0 || !s->ranks[r].asked);
        /* Stopped by a signal here: this rank's own configuration in flight is abandoned
         * (measure), not waited for. */
        if (stop_raised(o) && s->ranks[0].inflight >= 0) {
            busy = 0;
            for (int r = 1; r < s->size; r++)
                busy |= s->ranks[r].alive && s->ranks[r].inflight >= 0;
        }
        if (!busy)
            roll_call = now_s();
        nap();
    }
    s->serve_s = now_s() - t0;
    mailbox_quit(s->mb);
    for (int r = 1; r < s->size; r++)
        s->died |= s->ranks[r].dead;
    for (int r = 1; r < s->size; r++)
        if (s->ranks[r].alive)
            send_bounded(r, &s->died, sizeof s->died, TAG_DONE);
    free(res);
}

/* --- the other ranks --- */

/* Asks rank 0 for configurations and hands them to the measuring thread until rank 0 says
 * it is done; *died receives what it says of the others (1: one died). */
static int work(struct mailbox *mb, const struct ht_tune_opts *o, int *died)
{
    struct result_msg *res = malloc(sizeof *res);
    struct assign_msg a;
    double last_beat = 0.0;
    int busy = 0, requested = 0, rc = 0;

    if (!res)
        return HT_ENOMEM;
    for (;;) {
        double now = now_s();
        int flag = 0;
        MPI_Status st;

        if (stop_raised(o)) {
            MPI_Send("", 0, MPI_BYTE, 0, TAG_LEAVE, MPI_COMM_WORLD);
            rc = HT_EINTR;
            break;
        }
        if (busy && mailbox_take(mb, res)) {
            /* The result is also the request for the next configuration. */
            if (MPI_Send(res, sizeof *res, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD) !=
                MPI_SUCCESS) {
                rc = HT_EINVAL;
                break;
            }
            busy = 0;
            requested = 1;
        }
        if (!busy && !requested) {
            if (MPI_Send("", 0, MPI_BYTE, 0, TAG_REQ, MPI_COMM_WORLD) != MPI_SUCCESS) {
                rc = HT_EINVAL;
                break;
            }
            requested = 1;
        }
        if (MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && flag) {
            if (st.MPI_TAG == TAG_ASSIGN) {
                MPI_Recv(&a, sizeof a, MPI_BYTE, 0, TAG_ASSIGN, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                mailbox_give(mb, &a);
                busy = 1;
                requested = 0;
            } else if (st.MPI_TAG == TAG_DONE) {
                MPI_Recv(died, sizeof *died, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                break;
            } else {
                MPI_Recv(NULL, 0, MPI_BYTE, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
        if (now - last_beat >= BEAT_S) {
            MPI_Send("", 0, MPI_BYTE, 0, TAG_BEAT, MPI_COMM_WORLD);
            last_beat = now;
        }
        nap();
    }
    free(res);
    return rc;
}

/* --- the result (rank 0) --- */

/* A copy of s ("" for NULL), NULL when out of memory. */
static char *dup_text(const char *s)
{
    return strdup(s ? s : "");
}

/* Rank 0: what the run did, into out (the ranks' lists of configurations moved there).
 * HT_ENOMEM, out holding what it could (ht_mpi_tune_result_destroy). */
static int tune_result(struct server *s, const char *db, struct ht_mpi_tune_result *out,
                       struct ht_error *err)
{
    char cfg[HT_STORE_CONFIG_MAX];

    out->strategy = strategy_name(s->opts);
    out->db = dup_text(db);
    out->seconds = s->serve_s;
    out->store_s = s->store_s;
    out->messages = s->messages;
    out->assign_bytes = sizeof(struct assign_msg);
    out->result_bytes = sizeof(struct result_msg);
    out->models = calloc(s->nmodels ? s->nmodels : 1, sizeof *out->models);
    out->ranks = calloc((size_t)s->size, sizeof *out->ranks);
    if (!out->db || !out->models || !out->ranks)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t mi = 0; mi < s->nmodels; mi++) {
        const struct model *m = &s->models[mi];
        struct ht_mpi_tune_model *o = &out->models[out->nmodels++];
        struct ht_device_info *dev = malloc(sizeof *dev);
        int *on = calloc((size_t)s->size, sizeof *on);
        int64_t *best = m->has_best ? malloc(m->nparams * sizeof *best) : NULL;

        o->device = dev;
        o->ranks = on;
        o->best = best;
        cfg[0] = '\0';
        if (m->has_best)
            ht_store_config_text(s->names, m->configs + m->best * m->nparams, m->nparams,
                                 cfg, sizeof cfg);
        o->best_text = dup_text(cfg);
        if (!dev || !on || (m->has_best && !best) || !o->best_text)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        *dev = m->info;
        for (int r = 0; r < s->size; r++)
            for (size_t d = 0; d < s->ranks[r].ndev; d++)
                if (s->dev_model[s->ranks[r].first_dev + d] == (int)mi) {
                    on[o->nranks++] = r;
                    break;
                }
        o->space = m->count;
        o->from_db = m->from_db;
        o->evaluated = m->evaluated;
        o->cut = m->cut;
        o->failed = m->failed;
        o->crashed = m->crashed;
        o->timed_out = m->timed_out;
        o->lost = m->lost;
        o->has_best = m->has_best;
        o->best_from_db = m->has_best && m->best_from_db;
        if (m->has_best) {
            memcpy(best, m->configs + m->best * m->nparams, m->nparams * sizeof *best);
            o->best_s = m->best_s;
        }
    }
    for (int r = 0; r < s->size; r++) {
        struct rank *rk = &s->ranks[r];
        struct ht_mpi_tune_rank *o = &out->ranks[out->nranks++];

        o->rank = r;
        o->host = dup_text(rk->host);
        o->note = dup_text(rk->why);
        o->ndevices = rk->ndev;
        o->state = rk->dead ? HT_MPI_RANK_DIED : rk->left ? HT_MPI_RANK_LEFT : HT_MPI_RANK_DONE;
        o->measured = rk->ntexts;
        o->ok = rk->ok;
        o->cut = rk->cut;
        o->failed = rk->failed;
        o->busy_s = rk->busy_s;
        o->load = rk->load;
        /* The lists move into the result. */
        o->configs = (const char *const *)rk->texts;
        o->windows = rk->wins;
        o->lost = rk->nlost_texts;
        o->lost_configs = (const char *const *)rk->lost_texts;
        rk->texts = rk->lost_texts = NULL;
        rk->wins = NULL;
        rk->ntexts = rk->nlost_texts = 0;
        if (!o->host || !o->note)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    return HT_OK;
}

/* --- the entry point --- */

/* HETUNE_TEST_MPI_DIE=RANK:N[:DELAY] (tests/cli/mpi_tune.sh): rank RANK exits on receiving
 * its Nth configuration; with DELAY, every other rank waits DELAY seconds before each of its
 * measurements, so that the queue still has work when RANK asks for its Nth (without it, a
 * rank whose first evaluation was slow could find the queue drained by the others and
 * never die). Returns N for RANK (0 for the others), *delay_s DELAY for the others. */
static long die_after_hook(int rank, double *delay_s)
{
    const char *v = getenv("HETUNE_TEST_MPI_DIE");
    int r;
    long n;
    double d = 0.0;

    *delay_s = 0.0;
    if (!v || sscanf(v, "%d:%ld:%lf", &r, &n, &d) < 2 || n <= 0)
        return 0;
    if (r != rank) {
        *delay_s = d > 0.0 && d < 60.0 ? d : 0.0;
        return 0;
    }
    return n;
}

/* The state of one ht_mpi_tune on this rank. */
struct mpi_tune {
    const struct ht_spec *spec;
    const struct ht_tune_opts *opts;
    struct ht__mpi_world w;      /* every rank's host and devices */
    int rank, size;
    const char **names;          /* the parameters' names, NULL-terminated */
    int *dev_model;              /* w.total: each device's model */
    struct model *models;
    size_t nmodels;
    struct ht_store *store;      /* rank 0's, when it opened the database */
    struct ht_tune_sink sink;    /* rank 0's: the caller's (ht_mpi_tune_opts.sink), else the
                                    database's (ht_tune_sink_store) */
    struct rank *ranks;          /* rank 0: size */
    struct mailbox mb;
    struct measurer ms;
    pthread_t thread;
    int started;                 /* the measuring thread runs */
    int died;                    /* a rank died (no MPI_Finalize then) */
    int rank0_failed;            /* rank 0 failed at the start, and told this rank */
};

/* Refuses, before MPI starts, what ht_mpi_tune cannot distribute: a strategy whose next
 * configurations depend on the last results, a spec with no parameters or more than the
 * database keeps: HT_EINVAL. */
static int mpi_tune_refuse(const struct ht_spec *spec, const struct ht_tune_opts *opts,
                           struct ht_error *err)
{
    if (opts->strategy && strcmp(opts->strategy, "exhaustive") &&
        strcmp(opts->strategy, "random")) {
        return ht_error_set(err, HT_EINVAL, "over MPI, tune distributes the exhaustive and "
                            "random strategies, not '%s' (its next configurations depend on "
                            "the last results)", opts->strategy);
    }
    if (spec->space.nparams == 0 || spec->space.nparams > HT_STORE_MAX_PARAMS) {
        return ht_error_set(err, HT_EINVAL, "nothing to tune: the spec has %zu parameters",
                            spec->space.nparams);
    }
    return HT_OK;
}

/* Every rank learns every rank's devices and host (small: one device is 2 KiB), and sorts
 * them into models, the same on every rank: the first device of each kind names it. */
static int mpi_tune_devices(struct mpi_tune *mt, const char *device, struct ht_error *err)
{
    const struct ht_spec *spec = mt->spec;
    size_t total;
    int rc;

    mt->names = calloc(spec->space.nparams + 1, sizeof *mt->names);
    if (!mt->names) /* the others then wait: out of memory at start is not survived */
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < spec->space.nparams; i++)
        mt->names[i] = spec->space.params[i].name;
    if ((rc = ht__mpi_world_gather(device, &mt->w, err)) != HT_OK)
        return rc;
    total = mt->w.total;
    mt->dev_model = calloc(total ? total : 1, sizeof *mt->dev_model);
    mt->models = calloc(total ? total : 1, sizeof *mt->models);
    if (!mt->dev_model || !mt->models)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t d = 0; d < total; d++) {
        size_t mi;
        for (mi = 0; mi < mt->nmodels && !same_model(&mt->models[mi].info, &mt->w.all[d]);
             mi++)
            ;
        if (mi == mt->nmodels)
            mt->models[mt->nmodels++].info = mt->w.all[d];
        mt->dev_model[d] = (int)mi;
    }
    return HT_OK;
}

/* Rank 0's sink: the caller's, with the ops the queue calls, else the database db's,
 * opened. HT_EINVAL (a sink that lacks an op), the store's errors. */
static int mpi_tune_sink(struct mpi_tune *mt, const struct ht_tune_sink *sink, const char *db,
                         struct ht_error *err)
{
    const struct ht_tune_sink_ops *ops = sink ? sink->ops : NULL;
    int rc;

    if (!sink) {
        rc = ht_store_open(db, &mt->store, err);
        if (rc == HT_OK)
            ht_tune_sink_store(&mt->sink, mt->store);
        return rc;
    }
    if (!ops || !ops->identify || !ops->list_evals || !ops->put_eval)
        return ht_error_set(err, HT_EINVAL, "the tune's sink lacks %s",
                            !ops               ? "its ops"
                            : !ops->identify   ? "identify"
                            : !ops->list_evals ? "list_evals"
                                               : "put_eval (over MPI, evaluations are stored "
                                                 "as they arrive)");
    if (mt->opts->fresh && !ops->forget)
        return ht_error_set(err, HT_EINVAL, "the tune's sink cannot forget (opts.fresh)");
    mt->sink = *sink;
    return HT_OK;
}

/* Rank 0 makes its sink and lists every model's queue; the others wait to hear that it
 * could (collective). */
static int mpi_tune_open_queue(struct mpi_tune *mt, const struct ht_tune_sink *sink,
                               const char *db, struct ht_error *err)
{
    int rc = HT_OK, ok = 1;

    if (mt->rank == 0) {
        if (mt->w.total == 0) {
            rc = ht_error_set(err, HT_ENODEVICE, "no rank has an OpenCL device (rank 0: %s)",
                              mt->w.whys[0] ? mt->w.whys : "none selected");
        }
        if (rc == HT_OK)
            rc = mpi_tune_sink(mt, sink, db, err);
        for (size_t mi = 0; mi < mt->nmodels && rc == HT_OK; mi++)
            rc = model_setup(mt->spec, mt->opts, &mt->sink, &mt->models[mi], mi, err);
        ok = rc == HT_OK;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok && mt->rank != 0) {
        mt->rank0_failed = 1;
        rc = ht_error_set(err, HT_EINVAL, "rank 0 failed; see its message");
    }
    return rc;
}

/* Starts this rank's measuring thread over its own devices (every rank measures, rank 0
 * too). On failure this rank falls silent, and the others go on without it. */
static int mpi_tune_start_measurer(struct mpi_tune *mt, struct ht_error *err)
{
    const struct ht_tune_opts *opts = mt->opts;
    struct measurer *ms = &mt->ms;
    size_t ndev = mt->w.ndev;

    ms->spec = mt->spec;
    ms->opts = opts;
    ms->eopts = opts->exec;
    ms->eopts.eq3 = opts->eq3;
    if (!ms->eopts.stop)
        ms->eopts.stop = opts->stop;
    ms->devs = mt->w.plat && ndev ? &mt->w.plat->devices[mt->w.first] : NULL;
    ms->dev_model = mt->dev_model + mt->w.displs[mt->rank] / (int)sizeof(struct ht_device_info);
    ms->ndev = ndev;
    ms->sessions = calloc(ndev ? ndev : 1, sizeof *ms->sessions);
    ms->mb = &mt->mb;
    ms->die_after = die_after_hook(mt->rank, &ms->delay_s);
    if (!ms->sessions || pthread_create(&mt->thread, NULL, measurer_main, ms) != 0)
        return ht_error_set(err, HT_ENOMEM, "cannot start the measuring thread");
    mt->started = 1;
    return HT_OK;
}

/* Rank 0: what it knows of each rank (host, devices, in flight, configurations). */
static int mpi_tune_ranks(struct mpi_tune *mt, struct ht_error *err)
{
    mt->ranks = calloc((size_t)mt->size, sizeof *mt->ranks);
    if (!mt->ranks)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (int r = 0; r < mt->size; r++) {
        struct rank *rk = &mt->ranks[r];
        memcpy(rk->host, mt->w.hosts + (size_t)r * HOST_MAX, HOST_MAX - 1);
        memcpy(rk->why, mt->w.whys + (size_t)r * WHY_MAX, WHY_MAX - 1);
        rk->first_dev = (size_t)mt->w.displs[r] / sizeof(struct ht_device_info);
        rk->ndev = (size_t)mt->w.counts[r] / sizeof(struct ht_device_info);
        rk->alive = 1;
        rk->inflight = -1;
        rk->unable = calloc(mt->nmodels ? mt->nmodels : 1, 1);
        if (!rk->unable)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    return HT_OK;
}

/* Rank 0: serves the queue until every configuration is measured or no rank is left, and
 * fills *out with what the run did. */
static int mpi_tune_serve(struct mpi_tune *mt, const char *db, struct ht_mpi_tune_result *out,
                          struct ht_error *err)
{
    struct server sv;
    int rc;

    if ((rc = mpi_tune_ranks(mt, err)) != HT_OK)
        return rc;
    sv = (struct server){mt->spec, mt->opts, &mt->sink, mt->models, mt->nmodels, mt->ranks,
                         mt->size, mt->dev_model, mt->names, &mt->mb, HT_OK, err, 0, 0.0, 0,
                         0.0, 0};
    serve(&sv, HT_MPI_SILENCE_S);
    rc = sv.rc;
    mt->died = sv.died;
    out->stopped = stop_raised(mt->opts);
    if (rc == HT_OK) {
        rc = tune_result(&sv, db, out, err);
    }
    return rc;
}

/* The other ranks: measure what rank 0 sends until it says the work is done (rank 0
 * reports). */
static int mpi_tune_work(struct mpi_tune *mt, struct ht_mpi_tune_result *out,
                         struct ht_error *err)
{
    int rc = work(&mt->mb, mt->opts, &mt->died);

    out->stopped = rc == HT_EINTR;
    if (rc == HT_EINTR)
        rc = HT_OK;
    else if (rc != HT_OK)
        rc = ht_error_set(err, rc, "rank %d lost rank 0", mt->rank);
    return rc;
}

/* Stops the measuring thread and frees what mt holds (MPI stays up). */
static void mpi_tune_free(struct mpi_tune *mt)
{
    if (mt->started) {
        mailbox_quit(&mt->mb);
        pthread_join(mt->thread, NULL);
        pthread_mutex_destroy(&mt->mb.mu);
        pthread_cond_destroy(&mt->mb.cv);
    }
    for (size_t d = 0; mt->ms.sessions && d < mt->w.ndev; d++)
        ht_session_free(mt->ms.sessions[d]);
    free(mt->ms.sessions);
    for (int r = 0; mt->ranks && r < mt->size; r++) {
        free(mt->ranks[r].unable);
        for (size_t i = 0; i < mt->ranks[r].ntexts; i++)
            free(mt->ranks[r].texts[i]);
        for (size_t i = 0; i < mt->ranks[r].nlost_texts; i++)
            free(mt->ranks[r].lost_texts[i]);
        free(mt->ranks[r].texts);
        free(mt->ranks[r].wins);
        free(mt->ranks[r].lost_texts);
    }
    free(mt->ranks);
    for (size_t mi = 0; mt->models && mi < mt->nmodels; mi++) {
        free(mt->models[mi].configs);
        free(mt->models[mi].state);
        free(mt->models[mi].again);
    }
    free(mt->models);
    ht_store_close(mt->store);
    free(mt->dev_model);
    free(mt->names);
    ht__mpi_world_destroy(&mt->w);
}

int ht_mpi_tune(const struct ht_spec *spec, const struct ht_mpi_tune_opts *mopts,
                struct ht_mpi_tune_result *out, struct ht_error *err)
{
    static const struct ht_mpi_tune_opts none;
    struct ht_tune_opts defaults;
    const struct ht_tune_opts *opts;
    struct mpi_tune mt;
    const char *db;
    int rc, inited = 0, owned = 0;
    MPI_Errhandler saved = MPI_ERRHANDLER_NULL;

    if (!out)
        return ht_error_set(err, HT_EINVAL, "ht_mpi_tune: out is NULL");
    memset(out, 0, sizeof *out);
    if (!spec)
        return ht_error_set(err, HT_EINVAL, "ht_mpi_tune: spec is NULL");
    memset(&mt, 0, sizeof mt);
    if (!mopts)
        mopts = &none;
    /* With the caller's sink no database is opened, and the result names none. */
    db = mopts->sink ? "" : mopts->db ? mopts->db : HT_STORE_DEFAULT_PATH;
    opts = mopts->tune;
    if (!opts) {
        ht_tune_opts_init(&defaults);
        opts = &defaults;
    }
    mt.spec = spec;
    mt.opts = opts;
    mt.size = 1;
    if ((rc = mpi_tune_refuse(spec, opts, err)) != HT_OK)
        return rc;
    /* MPI started here unless the program did (mpi.h); rank deaths are survived through
     * MPI_ERRORS_RETURN. */
    if ((rc = ht__mpi_start(1, &owned, &saved, err)) != HT_OK)
        return rc;
    inited = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &mt.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt.size);
    out->rank = mt.rank;
    out->size = mt.size;
    if (mt.size < 2) {
        rc = ht_error_set(err, HT_EINVAL, "over MPI, tune needs at least 2 ranks, not %d",
                          mt.size);
        goto cleanup;
    }
    pthread_mutex_init(&mt.mb.mu, NULL);
    pthread_cond_init(&mt.mb.cv, NULL);
    mt.mb.has_work = mt.mb.has_result = mt.mb.quit = 0;

    if ((rc = mpi_tune_devices(&mt, mopts->device, err)) != HT_OK ||
        (rc = mpi_tune_open_queue(&mt, mopts->sink, db, err)) != HT_OK ||
        (rc = mpi_tune_start_measurer(&mt, err)) != HT_OK)
        goto cleanup;
    if (mt.rank == 0)
        rc = mpi_tune_serve(&mt, db, out, err);
    else
        rc = mpi_tune_work(&mt, out, err);

cleanup:
    out->rank0_failed = rc != HT_OK && mt.rank0_failed;
    mpi_tune_free(&mt);
    /* MPI_Finalize waits for every process, the dead too (Open MPI 4 hangs there): after
     * a death, the survivors leave without it, which mpirun --enable-recovery allows. */
    if (inited)
        ht__mpi_stop(1, owned, saved, !mt.died);
    return rc;
}
