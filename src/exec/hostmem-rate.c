/* The host memory's own rate (issue 26 item 3): what a CPU device working in place and the
 * DMA of every GPU draw on at once when a memory-bound kernel is split between them. On the
 * GPU machine (16 Xeon cores, H100) vecadd 2^26 split over both moved 805 MB through host
 * memory in 6.9 ms whatever the split (the CPU reads and writes its part in place, the GPU's
 * part crosses host memory on its way over PCIe): 117 GB/s, where c = a + b on 16 threads
 * reaches 121 GB/s and the bus model without this term predicted 5.3 ms.
 *
 * Measured as c[i] = a[i] + b[i] over three arrays, one thread per online core, each thread
 * its own contiguous part (first touched by that thread, so that its pages sit on its NUMA
 * node), all threads released together by a barrier; the rate is the bytes read and written
 * (three arrays) over the slowest thread's pass, the best of the repeats. A pass that only
 * reads a and b gives the read rate beside it: writes cost more than reads (a CPU reads a
 * line before it writes it), so a split that mostly reads (gesummv: 537 MB of matrices in
 * 3.8 ms, 140 GB/s) goes faster than c = a + b's rate would say. The arrays are
 * 256 MiB by default: with 64 MiB each, part of them stayed in the H100 machine's last-level
 * cache and the rate read 141-150 GB/s, above what a CPU and a DMA engine together got. */
#define _GNU_SOURCE /* pthread_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec-internal.h"
#include "hetune/exec.h"
#include "util/util.h"

#define HM_DEFAULT_BYTES (UINT64_C(256) << 20)
#define HM_DEFAULT_REPEATS 10u
#define HM_MAX_REPEATS 1000u
#define HM_MAX_THREADS 4096u
#define HM_MIN_SECONDS 1e-9

struct hm_shared {
    float *a, *b, *c;
    size_t n;
    unsigned threads, repeats;
    pthread_barrier_t start, done;
    pthread_mutex_t lock;
    pthread_cond_t gate;
    int go; /* 0 while threads start, 1 when all did, -1 when one could not */
    int pin; /* 1: each thread on the CPU th->cpu */
};

struct hm_thread {
    struct hm_shared *sh;
    volatile uint32_t sink; /* the read pass's sum, kept */
    unsigned index;
    int cpu;
    double t0[2], t1[2]; /* the last read (0) and c = a + b (1) pass: start and end */
    pthread_t id;
};

static void part(const struct hm_shared *sh, unsigned t, size_t *lo, size_t *hi)
{
    *lo = sh->n * t / sh->threads;
    *hi = sh->n * (t + 1) / sh->threads;
}

static void *hm_run(void *arg)
{
    struct hm_thread *th = arg;
    struct hm_shared *sh = th->sh;
    size_t lo, hi;

    /* The barriers count every thread: none enters them before all have started. */
    pthread_mutex_lock(&sh->lock);
    while (sh->go == 0)
        pthread_cond_wait(&sh->gate, &sh->lock);
    pthread_mutex_unlock(&sh->lock);
    if (sh->go < 0)
        return NULL;
    /* One thread a core, each kept on its own: in a virtual machine an unpinned thread
     * that the scheduler moved or stacked made passes read 89 to 244 GB/s in turn. */
    if (sh->pin) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(th->cpu, &set);
        (void)pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    part(sh, th->index, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        sh->a[i] = (float)(i & 1023);
        sh->b[i] = 1.0f;
        sh->c[i] = 0.0f;
    }
    /* Each repeat is a read pass then a c = a + b pass, each between barriers; the first
     * repeat is untimed. Each thread clocks its own part (t0, t1), and a pass lasts from
     * the first start to the last end: the main thread's own clock around the barriers
     * would count its wake-ups, which in a virtual machine came late enough to read 300 to
     * 1,500 GB/s. The read pass folds a and b into four independent integer sums, far
     * faster than memory, and leaves them in sink so that the compiler keeps it. */
    for (unsigned r = 0; r <= sh->repeats; r++) {
        uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        size_t i = lo;
        pthread_barrier_wait(&sh->start);
        th->t0[0] = ht__now();
        for (; i + 4 <= hi; i += 4) {
            uint32_t x[8];
            memcpy(x, sh->a + i, 4 * sizeof *x);
            memcpy(x + 4, sh->b + i, 4 * sizeof *x);
            s0 += x[0] ^ x[4];
            s1 += x[1] ^ x[5];
            s2 += x[2] ^ x[6];
            s3 += x[3] ^ x[7];
        }
        th->sink = s0 + s1 + s2 + s3;
        th->t1[0] = ht__now();
        pthread_barrier_wait(&sh->done);
        pthread_barrier_wait(&sh->start);
        th->t0[1] = ht__now();
        for (i = lo; i < hi; i++)
            sh->c[i] = sh->a[i] + sh->b[i];
        th->t1[1] = ht__now();
        pthread_barrier_wait(&sh->done);
    }
    return NULL;
}

static unsigned online_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)(n < (long)HM_MAX_THREADS ? n : (long)HM_MAX_THREADS) : 1u;
}

uint64_t ht_host_memory_min_bytes(unsigned threads)
{
    return (uint64_t)(threads ? threads : online_threads()) * 64 * sizeof(float);
}

int ht__host_memory_run(unsigned threads, uint64_t bytes, unsigned repeats,
                        void (*mark)(void *user, int end), void *user,
                        struct ht_host_memory *out, struct ht_error *err)
{
    struct hm_shared sh;
    struct hm_thread *th = NULL;
    unsigned started = 0;
    int sync = 0, barriers = 0, rc = HT_OK;
    double best = 0.0, best_read = 0.0;

    if (!out)
        return ht_error_set(err, HT_EINVAL, "no place for the host memory's rate");
    memset(out, 0, sizeof *out);
    memset(&sh, 0, sizeof sh);
    if (threads == 0)
        threads = online_threads();
    if (threads > HM_MAX_THREADS)
        return ht_error_set(err, HT_EINVAL, "%u threads: at most %u", threads, HM_MAX_THREADS);
    if (repeats == 0)
        repeats = HM_DEFAULT_REPEATS;
    if (repeats > HM_MAX_REPEATS)
        return ht_error_set(err, HT_EINVAL, "%u repeats: at most %u", repeats, HM_MAX_REPEATS);
    if (bytes == 0)
        bytes = HM_DEFAULT_BYTES;
    if (bytes < ht_host_memory_min_bytes(threads) || bytes > (UINT64_C(1) << 40))
        return ht_error_set(err, HT_EINVAL, "%llu bytes per array: between %llu and 2^40",
                            (unsigned long long)bytes,
                            (unsigned long long)ht_host_memory_min_bytes(threads));
    sh.n = (size_t)(bytes / sizeof(float));
    sh.threads = threads;
    sh.repeats = repeats;
    /* Untouched pages: each thread touches its own part first. */
    if (posix_memalign((void **)&sh.a, 4096, sh.n * sizeof(float)) ||
        posix_memalign((void **)&sh.b, 4096, sh.n * sizeof(float)) ||
        posix_memalign((void **)&sh.c, 4096, sh.n * sizeof(float)) ||
        !(th = calloc(threads, sizeof *th))) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory: three arrays of %llu bytes",
                          (unsigned long long)bytes);
        goto cleanup;
    }
    if (pthread_mutex_init(&sh.lock, NULL) != 0) {
        rc = ht_error_set(err, HT_ENOMEM, "cannot make a mutex");
        goto cleanup;
    }
    if (pthread_cond_init(&sh.gate, NULL) != 0) {
        pthread_mutex_destroy(&sh.lock);
        rc = ht_error_set(err, HT_ENOMEM, "cannot make a condition variable");
        goto cleanup;
    }
    sync = 1;
    if (pthread_barrier_init(&sh.start, NULL, threads + 1) != 0) {
        rc = ht_error_set(err, HT_ENOMEM, "cannot make a barrier of %u threads", threads + 1);
        goto cleanup;
    }
    if (pthread_barrier_init(&sh.done, NULL, threads + 1) != 0) {
        pthread_barrier_destroy(&sh.start);
        rc = ht_error_set(err, HT_ENOMEM, "cannot make a barrier of %u threads", threads + 1);
        goto cleanup;
    }
    barriers = 1;
    {
        /* Pinned when there is one thread for each CPU this process may use. */
        cpu_set_t mine;
        unsigned k = 0;
        if (sched_getaffinity(0, sizeof mine, &mine) == 0 && (unsigned)CPU_COUNT(&mine) == threads) {
            sh.pin = 1;
            for (int c = 0; c < CPU_SETSIZE && k < threads; c++)
                if (CPU_ISSET(c, &mine))
                    th[k++].cpu = c;
        }
    }
    for (; started < threads; started++) {
        th[started].sh = &sh;
        th[started].index = started;
        if (pthread_create(&th[started].id, NULL, hm_run, &th[started]) != 0)
            break;
    }
    pthread_mutex_lock(&sh.lock);
    sh.go = started == threads ? 1 : -1;
    pthread_cond_broadcast(&sh.gate);
    pthread_mutex_unlock(&sh.lock);
    if (started < threads) {
        rc = ht_error_set(err, HT_ENOMEM, "cannot start thread %u of %u", started + 1, threads);
        goto join;
    }
    for (unsigned r = 0; r <= repeats; r++) {
        for (int pass = 0; pass < 2; pass++) {
            double *b = pass ? &best : &best_read, t0, t1;
            if (mark && r == 1 && pass == 0)
                mark(user, 0);
            pthread_barrier_wait(&sh.start);
            pthread_barrier_wait(&sh.done);
            t0 = th[0].t0[pass];
            t1 = th[0].t1[pass];
            for (unsigned k = 1; k < threads; k++) {
                t0 = th[k].t0[pass] < t0 ? th[k].t0[pass] : t0;
                t1 = th[k].t1[pass] > t1 ? th[k].t1[pass] : t1;
            }
            if (r > 0 && t1 - t0 >= HM_MIN_SECONDS && (*b == 0.0 || t1 - t0 < *b))
                *b = t1 - t0;
        }
    }
    if (mark)
        mark(user, 1);
join:
    for (unsigned t = 0; t < started; t++)
        pthread_join(th[t].id, NULL);
    if (rc == HT_OK) {
        out->Bps = best > 0 ? 3.0 * (double)(sh.n * sizeof(float)) / best : 0.0;
        out->read_Bps = best_read > 0 ? 2.0 * (double)(sh.n * sizeof(float)) / best_read : 0.0;
        out->bytes = (uint64_t)(sh.n * sizeof(float));
        out->threads = threads;
        out->repeats = repeats;
    }
cleanup:
    if (barriers) {
        pthread_barrier_destroy(&sh.start);
        pthread_barrier_destroy(&sh.done);
    }
    if (sync) {
        pthread_cond_destroy(&sh.gate);
        pthread_mutex_destroy(&sh.lock);
    }
    free(th);
    free(sh.a);
    free(sh.b);
    free(sh.c);
    return rc;
}

int ht_host_memory_measure(unsigned threads, uint64_t bytes, unsigned repeats,
                           struct ht_host_memory *out, struct ht_error *err)
{
    if (!out)
        return ht_error_set(err, HT_EINVAL, "ht_host_memory_measure: out is NULL");
    return ht__host_memory_run(threads, bytes, repeats, NULL, NULL, out, err);
}
