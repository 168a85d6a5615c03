/* Staging of host memory hetune did not allocate (exec.h, HT_FOREIGN_STAGE): a ring of
 * pinned chunks per direction, and copies into and out of them spread over a few threads.
 * A pageable array handed to the driver moves at the driver's pageable rate (5.8 GB/s to
 * an H100, against 54 GB/s pinned); one core's memcpy runs at about 10 GB/s. Copying
 * chunk k+1 with several threads while the DMA engine moves chunk k keeps the bus busy. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coexec-internal.h"
#include "util/util.h"

/* Below this many bytes a copy is not worth waking threads for. */
#define COPY_SPLIT_MIN (256u << 10)
#define STAGE_CHUNK_DEFAULT (4u << 20)
#define STAGE_THREADS_DEFAULT 8u
#define STAGE_THREADS_MAX 64u
/* Slots per ring at most: each is a pinned buffer of its own. */
#define STAGE_SLOTS_MAX 64u

struct slot {
    struct ht__hostmem mem; /* pinned, chunk bytes */
    cl_event ev;            /* the last DMA from or into it, until waited for */
    void *out;              /* read ring: where its contents go once ev is done, or NULL */
    size_t out_bytes;
};

struct ring {
    struct slot *slots;
    size_t n, next;
    double *seconds;        /* the stage's write_s or read_s */
};

struct ht__stage {
    size_t chunk;
    struct ring w, r;
    double write_s, read_s; /* since the last ht__stage_finish */
    /* The copy threads (threads - 1 of them; the caller's thread copies a part too). */
    pthread_t *threads;
    unsigned nthreads, started;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned long gen;
    unsigned ndone;
    int quit;
    char *dst;
    const char *src;
    size_t bytes;
};

/* Part k of n of a copy of bytes: whole cache lines, the last part takes the rest. */
static void part(size_t bytes, unsigned k, unsigned n, size_t *off, size_t *len)
{
    size_t each = bytes / n / 64 * 64;
    *off = each * k;
    *len = k + 1 == n ? bytes - *off : each;
}

/* A copy thread: waits for a copy (a new gen), copies its part, counts itself done. */
static void *copy_thread(void *arg)
{
    struct ht__stage *s = arg;
    unsigned long seen = 0;
    unsigned me;

    pthread_mutex_lock(&s->mu);
    me = ++s->started; /* 1 .. nthreads: part 0 is the caller's */
    for (;;) {
        size_t off, len;
        while (!s->quit && s->gen == seen)
            pthread_cond_wait(&s->go, &s->mu);
        if (s->quit)
            break;
        seen = s->gen;
        part(s->bytes, me, s->nthreads + 1, &off, &len);
        pthread_mutex_unlock(&s->mu);
        memcpy(s->dst + off, s->src + off, len);
        pthread_mutex_lock(&s->mu);
        if (++s->ndone == s->nthreads)
            pthread_cond_signal(&s->done);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

void ht__stage_copy(struct ht__stage *s, void *dst, const void *src, size_t bytes)
{
    size_t off, len;

    if (!s || s->nthreads == 0 || bytes < COPY_SPLIT_MIN) {
        memcpy(dst, src, bytes);
        return;
    }
    pthread_mutex_lock(&s->mu);
    s->dst = dst;
    s->src = src;
    s->bytes = bytes;
    s->ndone = 0;
    s->gen++;
    pthread_cond_broadcast(&s->go);
    pthread_mutex_unlock(&s->mu);
    part(bytes, 0, s->nthreads + 1, &off, &len);
    memcpy((char *)dst + off, (const char *)src + off, len);
    pthread_mutex_lock(&s->mu);
    while (s->ndone < s->nthreads)
        pthread_cond_wait(&s->done, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

/* Makes ring g of n pinned slots of chunk bytes each; its times go to *seconds. */
static int ring_init(struct ring *g, size_t n, size_t chunk, cl_context ctx, cl_command_queue q,
                     double *seconds, struct ht_error *err)
{
    g->slots = calloc(n, sizeof *g->slots);
    g->n = n;
    g->next = 0;
    g->seconds = seconds;
    if (!g->slots)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t k = 0; k < n; k++) {
        int rc = ht__hostmem_alloc(&(struct ht__hostmem_want){.ctx = ctx, .queue = q,
                                                              .path = HT_PATH_PINNED,
                                                              .bytes = chunk},
                                   &g->slots[k].mem, err);
        if (rc != HT_OK)
            return rc;
    }
    return HT_OK;
}

/* Waits for slot t's DMA, counts its time and, in the read ring, copies its contents to
 * where they belong. */
static int settle(struct ht__stage *s, struct ring *g, struct slot *t, struct ht_error *err)
{
    cl_int st, exec = CL_COMPLETE;
    double t0;

    if (!t->ev)
        return HT_OK;
    st = clWaitForEvents(1, &t->ev);
    if (st == CL_SUCCESS &&
        clGetEventInfo(t->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL) !=
            CL_SUCCESS)
        exec = CL_INVALID_EVENT;
    *g->seconds += ht__event_seconds(t->ev, 0.0);
    clReleaseEvent(t->ev);
    t->ev = NULL;
    if (st != CL_SUCCESS || exec != CL_COMPLETE) {
        t->out = NULL;
        return ht__cl_fail(err, HT_ECL, st != CL_SUCCESS ? st : exec < 0 ? exec : CL_INVALID_EVENT,
                           "a staged transfer");
    }
    if (t->out) {
        t0 = ht__now();
        ht__stage_copy(s, t->out, t->mem.data, t->out_bytes);
        *g->seconds += ht__now() - t0;
        t->out = NULL;
    }
    return HT_OK;
}

int ht__stage_create(cl_context ctx, cl_command_queue q, size_t chunk_bytes, size_t ring_bytes,
                     unsigned threads, struct ht__stage **out, struct ht_error *err)
{
    struct ht__stage *s;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n;
    int rc;

    *out = NULL;
    if (chunk_bytes == 0)
        chunk_bytes = STAGE_CHUNK_DEFAULT;
    if (threads == 0)
        threads = STAGE_THREADS_DEFAULT;
    if (cores > 0 && threads > (unsigned long)cores)
        threads = (unsigned)cores;
    if (threads > STAGE_THREADS_MAX)
        threads = STAGE_THREADS_MAX;
    /* Two slots at least: one filling while the other moves. */
    n = ring_bytes / chunk_bytes;
    if (n < 2)
        n = 2;
    if (n > STAGE_SLOTS_MAX)
        n = STAGE_SLOTS_MAX;
    s = calloc(1, sizeof *s);
    if (!s)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    s->chunk = chunk_bytes;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->go, NULL);
    pthread_cond_init(&s->done, NULL);
    /* Without a context: the copy threads alone (a CPU device's slices of an array it
     * cannot work on in place). */
    rc = ctx ? ring_init(&s->w, n, chunk_bytes, ctx, q, &s->write_s, err) : HT_OK;
    if (rc == HT_OK && ctx)
        rc = ring_init(&s->r, n, chunk_bytes, ctx, q, &s->read_s, err);
    if (rc == HT_OK && threads > 1) {
        s->threads = calloc(threads - 1, sizeof *s->threads);
        if (!s->threads)
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        for (unsigned k = 0; rc == HT_OK && k < threads - 1; k++) {
            if (pthread_create(&s->threads[k], NULL, copy_thread, s) != 0)
                break; /* fewer threads copy; the copies stay right */
            s->nthreads++;
        }
    }
    if (rc != HT_OK) {
        ht__stage_free(s);
        return rc;
    }
    *out = s;
    return HT_OK;
}

/* Waits for g's transfers in flight (nothing is delivered any more) and frees it. */
static void ring_free(struct ring *g)
{
    for (size_t k = 0; g->slots && k < g->n; k++) {
        if (g->slots[k].ev) {
            clWaitForEvents(1, &g->slots[k].ev);
            clReleaseEvent(g->slots[k].ev);
        }
        ht__hostmem_free(&g->slots[k].mem);
    }
    free(g->slots);
    g->slots = NULL;
}

void ht__stage_free(struct ht__stage *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->quit = 1;
    pthread_cond_broadcast(&s->go);
    pthread_mutex_unlock(&s->mu);
    for (unsigned k = 0; k < s->nthreads; k++)
        pthread_join(s->threads[k], NULL);
    free(s->threads);
    ring_free(&s->w);
    ring_free(&s->r);
    pthread_cond_destroy(&s->go);
    pthread_cond_destroy(&s->done);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* The ring's next slot, its earlier DMA finished (and, read ring, its contents delivered). */
static int take(struct ht__stage *s, struct ring *g, struct slot **out, struct ht_error *err)
{
    struct slot *t = &g->slots[g->next];
    int rc = settle(s, g, t, err);

    g->next = (g->next + 1) % g->n;
    *out = t;
    return rc;
}

int ht__stage_write(struct ht__stage *s, cl_command_queue q, cl_mem mem, size_t off,
                    const void *src, size_t bytes, struct ht_error *err)
{
    if (s->w.n == 0)
        return ht_error_set(err, HT_EINVAL, "a stage without a context has no rings");
    for (size_t pos = 0; pos < bytes; pos += s->chunk) {
        size_t n = bytes - pos < s->chunk ? bytes - pos : s->chunk;
        struct slot *t;
        double t0;
        cl_int st;
        int rc = take(s, &s->w, &t, err);

        if (rc != HT_OK)
            return rc;
        t0 = ht__now();
        ht__stage_copy(s, t->mem.data, (const char *)src + pos, n);
        s->write_s += ht__now() - t0;
        st = clEnqueueWriteBuffer(q, mem, CL_FALSE, off + pos, n, t->mem.data, 0, NULL, &t->ev);
        if (st != CL_SUCCESS) {
            t->ev = NULL;
            return ht__cl_fail(err, HT_ECL, st, "clEnqueueWriteBuffer (staged)");
        }
        /* Started now, while the next chunk is copied. */
        clFlush(q);
    }
    return HT_OK;
}

int ht__stage_read(struct ht__stage *s, cl_command_queue q, cl_mem mem, size_t off, void *dst,
                   size_t bytes, struct ht_error *err)
{
    if (s->w.n == 0)
        return ht_error_set(err, HT_EINVAL, "a stage without a context has no rings");
    for (size_t pos = 0; pos < bytes; pos += s->chunk) {
        size_t n = bytes - pos < s->chunk ? bytes - pos : s->chunk;
        struct slot *t;
        cl_int st;
        int rc = take(s, &s->r, &t, err);

        if (rc != HT_OK)
            return rc;
        st = clEnqueueReadBuffer(q, mem, CL_FALSE, off + pos, n, t->mem.data, 0, NULL, &t->ev);
        if (st != CL_SUCCESS) {
            t->ev = NULL;
            return ht__cl_fail(err, HT_ECL, st, "clEnqueueReadBuffer (staged)");
        }
        t->out = (char *)dst + pos;
        t->out_bytes = n;
        clFlush(q);
    }
    /* Deliver what has arrived already, so that the copies out overlap the DMA still in
     * flight instead of all waiting for ht__stage_finish. */
    for (size_t k = 0; k < s->r.n; k++) {
        struct slot *t = &s->r.slots[k];
        cl_int exec = CL_QUEUED;
        if (t->ev && t->out &&
            clGetEventInfo(t->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec,
                           NULL) == CL_SUCCESS &&
            exec == CL_COMPLETE) {
            int rc = settle(s, &s->r, t, err);
            if (rc != HT_OK)
                return rc;
        }
    }
    return HT_OK;
}

int ht__stage_finish(struct ht__stage *s, double *write_s, double *read_s, struct ht_error *err)
{
    int rc = HT_OK;

    if (!s)
        return HT_OK;
    /* Every slot, in the order they were filled, so that a failure still settles the rest. */
    for (size_t k = 0; k < s->w.n; k++) {
        int r = settle(s, &s->w, &s->w.slots[(s->w.next + k) % s->w.n], err);
        if (rc == HT_OK)
            rc = r;
    }
    for (size_t k = 0; k < s->r.n; k++) {
        int r = settle(s, &s->r, &s->r.slots[(s->r.next + k) % s->r.n], err);
        if (rc == HT_OK)
            rc = r;
    }
    if (write_s)
        *write_s += s->write_s;
    if (read_s)
        *read_s += s->read_s;
    s->write_s = s->read_s = 0.0;
    return rc;
}
