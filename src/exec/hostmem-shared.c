/* The host memory shared (issue 26 item 3): the rate host memory serves a CPU's threads and
 * the DMA engines of the devices that copy, all at once, as a split that moves data makes
 * them. What the CPU's threads reach alone is below it: on the H100 machine they got 88-101
 * GB/s (c = a + b) where the CPU's part of vecadd 2^26 in place and the H100's transfers
 * together moved 805 MB at 115 GB/s, so the rate alone, as a floor under a split, turned good
 * splits into wrong "alone" decisions.
 *
 * One thread per copying device moves a pinned buffer to its device and back in a loop
 * (blocking writes and reads, as the pinned ceiling of ht_bandwidth_measure), counting the
 * bytes of every transfer done; meanwhile the CPU's threads (one per core less one per copying
 * device, which drive the copies as a split's host threads do) run ht__host_memory_run. The
 * shared rate is the CPU's bytes and the bytes the copies finished between the CPU's first
 * and last timed pass, over that window.
 *
 * Each thread streams a fixed part, so a pass lasts as long as its slowest thread (1.1-2.7x
 * the fastest's on the H200 and 2 x H200 machines). Two closer copies of a split were tried
 * (results-gpu.md, 2026-11-30) and read 4-21% more beside the copies: threads taking chunks
 * from a counter, and the CPU's OpenCL device itself running c = a + b in place. Both read
 * 7-22% above what the 2 x H200 machine's splits of vecadd 2^26 moved, where this rate is
 * within 6% of it; on the H200 machine all three missed a round, the splits there spreading
 * 33% within one call. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exec-internal.h"
#include "hetune/exec.h"
#include "util/util.h"

/* A transfer of 16 MiB takes 0.3 ms at 55 GB/s: the window (tens of passes over 256 MiB
 * arrays) misses at most one at each end. Each device's transfers walk a pinned region of
 * 256 MiB piece by piece, as a split's transfers walk its arrays: a region of one piece sat
 * in the last-level cache, where DMA reaches it without the memory (on the 2 x H200 machine
 * two devices copying 16 MiB each gave a shared rate of 186-208 GB/s, where the CPU's part of
 * vecadd 2^26 and both GPUs' transfers moved 805 MB at 134-145 GB/s). */
#define DMA_PIECE (UINT64_C(16) << 20)
#define DMA_REGION (UINT64_C(256) << 20)

struct dma {
    const struct ht_device_info *dev;
    size_t bytes;                /* the pinned region */
    size_t piece;                /* one transfer */
    pthread_t id;
    int started;
    atomic_int *stop;
    atomic_int ready;            /* 1 set up and copying, -1 failed */
    atomic_uint_fast64_t moved;  /* bytes of transfers done */
    uint64_t at_open;            /* moved when the window opened */
    uint64_t in_window;          /* moved in the window */
    int rc;
    struct ht_error err;
};

struct window {
    struct dma *jobs;
    size_t n;
    double t0, t1;
};

static void *dma_run(void *arg)
{
    struct dma *j = arg;
    struct ht__pinned_link l;
    size_t at = 0;
    cl_int st;

    j->rc = ht__pinned_link_open(j->dev, j->bytes, &l, &j->err);
    if (j->rc != HT_OK) {
        atomic_store(&j->ready, -1);
        return NULL;
    }
    atomic_store(&j->ready, 1);
    while (!atomic_load(j->stop)) {
        char *host = (char *)l.host + at;

        st = clEnqueueWriteBuffer(l.q, l.mem, CL_TRUE, at, j->piece, host, 0, NULL, NULL);
        if (st == CL_SUCCESS) {
            atomic_fetch_add(&j->moved, j->piece);
            st = clEnqueueReadBuffer(l.q, l.mem, CL_TRUE, at, j->piece, host, 0, NULL, NULL);
        }
        if (st != CL_SUCCESS) {
            j->rc = ht__cl_fail(&j->err, HT_ECL, st, "a copy for the shared host memory");
            atomic_store(&j->ready, -1);
            break;
        }
        atomic_fetch_add(&j->moved, j->piece);
        at = at + 2 * j->piece <= j->bytes ? at + j->piece : 0;
    }
    ht__pinned_link_close(&l);
    return NULL;
}

static void mark(void *user, int end)
{
    struct window *w = user;

    for (size_t k = 0; k < w->n; k++) {
        uint64_t now = atomic_load(&w->jobs[k].moved);
        if (!end)
            w->jobs[k].at_open = now;
        else
            w->jobs[k].in_window = now - w->jobs[k].at_open;
    }
    if (!end)
        w->t0 = ht__now();
    else
        w->t1 = ht__now();
}

/* The shared rate with devs[0..n) copying into *Bps, the CPU's threads into *threads_out. */
static int measure_with(const struct ht_device_info *const *devs, size_t n, uint64_t bytes,
                        unsigned repeats, double *Bps, unsigned *threads_out,
                        struct ht_error *err)
{
    struct ht_host_memory cpu;
    struct window w;
    struct dma *jobs = NULL;
    atomic_int stop = 0;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads;
    int rc = HT_OK;

    *Bps = 0.0;
    threads = online > (long)n ? (unsigned)(online - (long)n) : 1u;
    jobs = calloc(n, sizeof *jobs);
    if (!jobs)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t k = 0; k < n; k++) {
        uint64_t b = DMA_REGION, most = devs[k]->max_mem_alloc_size / 4;

        if (most > 0 && b > most)
            b = most;
        jobs[k].dev = devs[k];
        jobs[k].bytes = (size_t)b;
        jobs[k].piece = (size_t)(b < DMA_PIECE ? b : DMA_PIECE);
        jobs[k].stop = &stop;
        ht_error_clear(&jobs[k].err);
        if (pthread_create(&jobs[k].id, NULL, dma_run, &jobs[k]) != 0) {
            rc = ht_error_set(err, HT_ENOMEM, "cannot start a copying thread");
            goto stop;
        }
        jobs[k].started = 1;
    }
    /* Every device copying before the CPU starts. */
    for (size_t k = 0; k < n; k++) {
        struct timespec ms = {0, 1000000};
        while (atomic_load(&jobs[k].ready) == 0)
            nanosleep(&ms, NULL);
        if (atomic_load(&jobs[k].ready) < 0) {
            rc = HT_ECL;
            goto stop;
        }
    }
    memset(&w, 0, sizeof w);
    w.jobs = jobs;
    w.n = n;
    rc = ht__host_memory_run(threads, bytes, repeats, mark, &w, &cpu, err);
stop:
    atomic_store(&stop, 1);
    for (size_t k = 0; k < n; k++)
        if (jobs[k].started)
            pthread_join(jobs[k].id, NULL);
    for (size_t k = 0; rc == HT_ECL && k < n; k++)
        if (jobs[k].rc != HT_OK) {
            if (err && !err->code)
                *err = jobs[k].err;
            break;
        }
    for (size_t k = 0; rc == HT_OK && k < n; k++)
        if (jobs[k].rc != HT_OK) {
            rc = jobs[k].rc;
            if (err && !err->code)
                *err = jobs[k].err;
        }
    if (rc == HT_OK && w.t1 > w.t0) {
        double moved = 5.0 * (double)cpu.bytes * (double)cpu.repeats;
        for (size_t k = 0; k < n; k++)
            moved += (double)jobs[k].in_window;
        *Bps = moved / (w.t1 - w.t0);
        *threads_out = threads;
    }
    free(jobs);
    return rc;
}

int ht_host_memory_measure_shared(const struct ht_device_info *const *devs, size_t n,
                                  uint64_t bytes, unsigned repeats, struct ht_host_memory *out,
                                  struct ht_error *err)
{
    size_t most = n < HT_HOST_SHARED_MAX ? n : HT_HOST_SHARED_MAX;

    if (!out || (n && !devs))
        return ht_error_set(err, HT_EINVAL, "ht_host_memory_measure_shared: %s is NULL",
                            !out ? "out" : "devs");
    if (n == 0)
        return HT_OK;
    for (size_t k = 0; k < n; k++)
        if (!devs[k] || !devs[k]->cl_device || !devs[k]->cl_platform)
            return ht_error_set(err, HT_EINVAL, "shared host memory: device %zu missing", k);
    memset(out->shared_by_Bps, 0, sizeof out->shared_by_Bps);
    for (size_t k = 1; k <= n; k++) {
        /* Every count up to the most kept, then all of them (past the most: only all). */
        if (k > most && k < n)
            continue;
        double Bps = 0.0;
        unsigned threads = 0;
        int rc = measure_with(devs, k, bytes, repeats, &Bps, &threads, err);
        if (rc != HT_OK)
            return rc;
        if (k <= most)
            out->shared_by_Bps[k - 1] = Bps;
        if (k == n) {
            out->shared_Bps = Bps;
            out->shared_threads = threads;
            out->shared_devices = (unsigned)n;
        }
    }
    return HT_OK;
}
