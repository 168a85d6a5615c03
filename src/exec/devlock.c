/* One measurement at a time per device, machine-wide: an flock on a file per device
 * (exec.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exec-internal.h"
#include "hetune/exec.h"
#include "util/util.h"

#define LOCK_DIR_DEFAULT "/tmp/hetune-locks"
#define LOCK_POLL_NS 50000000L
/* Looks for the holder's pid before a notice names no process (0.2 s). */
#define LOCK_NAME_LOOKS 4

static const char *lock_dir(void)
{
    const char *d = getenv("HETUNE_LOCK_DIR");

    return d && d[0] ? d : LOCK_DIR_DEFAULT;
}

void ht__device_lock_path(const struct ht_device_info *dev, char *buf, size_t size)
{
    uint64_t h;

    /* The host's CPU devices share its cores: one lock for all (PoCL's pthread and basic
     * devices, another vendor's CPU runtime). */
    if (dev->is_cpu) {
        snprintf(buf, size, "%s/cpu.lock", lock_dir());
        return;
    }
    h = ht__fnv1a(HT__FNV_INIT, dev->platform, strlen(dev->platform) + 1);
    h = ht__fnv1a(h, dev->name, strlen(dev->name) + 1);
    snprintf(buf, size, "%s/device-%016" PRIx64 "-%zu.lock", lock_dir(), h, dev->index);
}

/* mkdir -p of dir's parents (0777 less the umask, as mkdir(1) makes them). Errors are left
 * for the mkdir of dir itself to say. */
static void make_parents(const char *dir)
{
    char p[4096];

    snprintf(p, sizeof p, "%s", dir);
    for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(p, 0777);
        *s = '/';
    }
}

/* Reads the pid the holder wrote into the lock file (0 when there is none). */
static long holder_pid(int fd)
{
    char b[32];
    ssize_t n = pread(fd, b, sizeof b - 1, 0);

    if (n <= 0)
        return 0;
    b[n] = '\0';
    return strtol(b, NULL, 10);
}

/* The waiters of the lock file path: each process waiting for it holds a shared flock on
 * "<path>.wait" while it waits. Returns its descriptor, or -1 when it cannot be opened (the
 * lock then works without turns). */
static int open_waiters(const char *path)
{
    char w[4200];
    int fd;

    snprintf(w, sizeof w, "%s.wait", path);
    fd = open(w, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0)
        fchmod(fd, 0666);
    return fd;
}

/* 1 when another process waits for the lock whose waiters' file is wfd. */
static int others_wait(int wfd)
{
    if (wfd < 0)
        return 0;
    if (flock(wfd, LOCK_EX | LOCK_NB) != 0)
        return 1;
    flock(wfd, LOCK_UN);
    return 0;
}

/* The locks this process holds: a lock file is flocked once per process (a second open
 * and flock of it would wait for the first one forever), and taken again by counting. */
#define HELD_MAX 64
static struct held {
    char path[4096];
    int fd;
    unsigned refs;
} held[HELD_MAX];
static pthread_mutex_t held_mutex = PTHREAD_MUTEX_INITIALIZER;

/* The slot holding path, or -1. With held_mutex held. */
static int held_find(const char *path)
{
    for (int i = 0; i < HELD_MAX; i++)
        if (held[i].refs && !strcmp(held[i].path, path))
            return i;
    return -1;
}

/* Counts one more use of path when this process holds it: returns its slot, else -1. */
static int held_again(const char *path)
{
    int i;

    pthread_mutex_lock(&held_mutex);
    i = held_find(path);
    if (i >= 0)
        held[i].refs++;
    pthread_mutex_unlock(&held_mutex);
    return i;
}

/* Takes the lock file path for this process (dev for the notice): counted when held
 * already, else flocked, waiting as ht__device_lock says. Sets *slot. */
static int lock_path(const char *path, const struct ht_device_info *dev,
                     volatile sig_atomic_t *stop, ht_device_lock_wait_fn on_wait, void *user,
                     int *slot, struct ht_error *err)
{
    char pid[32];
    const char *dir = lock_dir();
    int fd = -1, wfd, waiting = 0, told = 0, looks = 0, e, n, i;

    *slot = held_again(path);
    if (*slot >= 0)
        return HT_OK;
    /* Sticky and open to all, as /tmp is: users share the devices, so they share the
     * locks, and none can remove another's file. An existing folder is taken as it is. */
    make_parents(dir);
    if (mkdir(dir, 01777) == 0)
        chmod(dir, 01777); /* the umask took some bits away */
    else if (errno != EEXIST) {
        e = errno;
        return ht_error_set(err, HT_EIO, "cannot make the device lock folder %s: %s "
                            "($HETUNE_LOCK_DIR chooses another)", dir, strerror(e));
    }
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        e = errno;
        return ht_error_set(err, HT_EIO, "cannot open the device lock %s: %s "
                            "($HETUNE_LOCK_DIR chooses another folder)", path, strerror(e));
    }
    fchmod(fd, 0666); /* another user must be able to open it too; fails harmlessly
                         when the file is another's */
    wfd = open_waiters(path);
    for (;;) {
        /* Turns: a process that is not waiting yet leaves a free lock to those that are
         * (else one that gives it back and takes it again at once, an MPI rank between
         * two configurations, would starve a waiter that looks every 50 ms). */
        int queue = !waiting && others_wait(wfd);
        if (!queue && flock(fd, LOCK_EX | LOCK_NB) == 0)
            break;
        if (!queue && errno != EWOULDBLOCK && errno != EINTR) {
            e = errno;
            close(fd);
            if (wfd >= 0)
                close(wfd);
            return ht_error_set(err, HT_EIO, "cannot lock the device lock %s: %s", path,
                                strerror(e));
        }
        if (stop && *stop) {
            close(fd);
            if (wfd >= 0)
                close(wfd);
            if (told && on_wait)
                on_wait(dev, NULL, 0, user);
            return ht_error_set(err, HT_EINTR, "interrupted while waiting for the device "
                                "lock %s", path);
        }
        /* Shared by every waiter; a momentary check of another holds it exclusively, so
         * this may take a few looks. */
        if (!waiting && wfd >= 0)
            waiting = flock(wfd, LOCK_SH | LOCK_NB) == 0;
        /* The notice names the holder, which writes its pid just after it took the lock:
         * two processes that start at once may look in between, so a notice without a pid
         * waits a few looks (LOCK_NAME_LOOKS) for one. */
        if (!told && on_wait) {
            long holder = holder_pid(fd);
            if (holder > 0 || ++looks >= LOCK_NAME_LOOKS) {
                on_wait(dev, path, holder, user);
                told = 1;
            }
        }
        nanosleep(&(struct timespec){0, LOCK_POLL_NS}, NULL);
    }
    if (wfd >= 0)
        close(wfd); /* no longer waiting */
    if (told && on_wait)
        on_wait(dev, NULL, 0, user);
    /* Who holds it, for the notice of the next process that waits. */
    n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    /* A failure here costs only the pid in the notice: the lock holds all the same. */
    if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)n, 0) != n)
        pid[0] = '\0';
    pthread_mutex_lock(&held_mutex);
    for (i = 0; i < HELD_MAX && held[i].refs; i++)
        ;
    if (i < HELD_MAX) {
        snprintf(held[i].path, sizeof held[i].path, "%s", path);
        held[i].fd = fd;
        held[i].refs = 1;
    }
    pthread_mutex_unlock(&held_mutex);
    if (i == HELD_MAX) {
        flock(fd, LOCK_UN);
        close(fd);
        return ht_error_set(err, HT_EINVAL, "more than %d device locks held at once",
                            HELD_MAX);
    }
    *slot = i;
    return HT_OK;
}

/* Gives back one use of slot; the last one empties the file and unlocks it. */
static void unlock_slot(int slot)
{
    int fd = -1;

    if (slot < 0 || slot >= HELD_MAX)
        return;
    pthread_mutex_lock(&held_mutex);
    if (held[slot].refs && --held[slot].refs == 0) {
        fd = held[slot].fd;
        held[slot].path[0] = '\0';
    }
    pthread_mutex_unlock(&held_mutex);
    if (fd < 0)
        return;
    /* Emptied first: a waiter reading it after this learns no stale pid. */
    {
    int cleared = ftruncate(fd, 0);

    (void)cleared; /* at worst the next waiter's notice names this process */
    }
    flock(fd, LOCK_UN);
    close(fd);
}

int ht__device_lock(const struct ht_device_info *dev, volatile sig_atomic_t *stop,
                    ht_device_lock_wait_fn on_wait, void *user, int *fd_out,
                    struct ht_error *err)
{
    char path[4096];
    int slot, rc;

    *fd_out = -1;
    ht__device_lock_path(dev, path, sizeof path);
    rc = lock_path(path, dev, stop, on_wait, user, &slot, err);
    if (rc == HT_OK)
        *fd_out = held[slot].fd; /* the slot's fd stays until its last use is given back */
    return rc;
}

void ht__device_unlock(int fd)
{
    int slot = -1;

    if (fd < 0)
        return;
    pthread_mutex_lock(&held_mutex);
    for (int i = 0; i < HELD_MAX && slot < 0; i++)
        if (held[i].refs && held[i].fd == fd)
            slot = i;
    pthread_mutex_unlock(&held_mutex);
    unlock_slot(slot);
}

/* --- sets of locks, and the load watch --- */

struct named {
    char path[4096];
    const struct ht_device_info *dev;
};

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct named *)a)->path, ((const struct named *)b)->path);
}

int ht_device_locks_take(const struct ht_device_info *const *devs, size_t n,
                         const struct ht_device_wait *wait, struct ht_device_locks *l,
                         struct ht_load *load, struct ht_error *err)
{
    static const struct ht_device_wait silent;
    struct named *names = NULL;
    struct ht_error why;
    size_t k = 0;
    int rc = HT_OK;

    if (!l || (n && !devs))
        return ht_error_set(err, HT_EINVAL, "ht_device_locks_take: %s is NULL",
                            !l ? "l" : "devs");
    for (size_t i = 0; i < n; i++)
        if (!devs[i])
            return ht_error_set(err, HT_EINVAL, "ht_device_locks_take: devs[%zu] is NULL", i);
    memset(l, 0, sizeof *l);
    if (!wait)
        wait = &silent;
    names = calloc(n ? n : 1, sizeof *names);
    if (!names)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        char path[4096];
        ht__device_lock_path(devs[i], path, sizeof path);
        l->cpu |= devs[i]->is_cpu;
        for (size_t j = 0; j < k && !seen; j++)
            seen = !strcmp(names[j].path, path);
        if (seen)
            continue;
        snprintf(names[k].path, sizeof names[k].path, "%s", path);
        names[k++].dev = devs[i];
    }
    if (k > HT_DEVICE_LOCKS_MAX) {
        rc = ht_error_set(err, HT_EINVAL, "%zu device locks in one set: at most %d", k,
                          HT_DEVICE_LOCKS_MAX);
        goto cleanup;
    }
    /* The global order: whoever holds a lock waits only for those after it, so no two
     * processes ever wait for each other. */
    qsort(names, k, sizeof *names, by_path);
    for (size_t j = 0; j < k; j++) {
        int slot;
        ht_error_clear(&why);
        rc = lock_path(names[j].path, names[j].dev, wait->stop, wait->on_wait, wait->user,
                       &slot, &why);
        if (rc == HT_EIO) {
            /* Measuring unlocked beats not measuring: the run says so at its end. */
            if (load && !load->unlocked) {
                load->unlocked = 1;
                ht_error_format(&why, load->unlocked_why, sizeof load->unlocked_why);
            }
            rc = HT_OK;
            continue;
        }
        if (rc != HT_OK) {
            *err = why;
            ht_device_locks_release(l, NULL);
            goto cleanup;
        }
        l->slot[l->n++] = slot;
    }
    /* Every window, a GPU's too: the host launches its kernels (a short kernel's time is
     * mostly launch latency), copies its data through pinned staging on host threads
     * (the transfer times the bus plan uses) and clocks a co-execution's wall time; a
     * busy host slows all of these. */
    l->watching = ht__load_sample(&l->t0, &l->busy0, &l->own0) == 0;

cleanup:
    free(names);
    return rc;
}

void ht_device_locks_release(struct ht_device_locks *l, struct ht_load *load)
{
    double t1, busy1, own1;

    if (!l)
        return;
    if (l->watching && ht__load_sample(&t1, &busy1, &own1) == 0 && load) {
        double other = (busy1 - l->busy0) - (own1 - l->own0);
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        load->cores = cores > 0 ? (unsigned)cores : 1;
        load->window_s += t1 - l->t0;
        load->other_cpu_s += other > 0 ? other : 0;
    }
    l->watching = 0;
    /* In the opposite order: any order is safe to give back, this one is the tidy one. */
    while (l->n > 0)
        unlock_slot(l->slot[--l->n]);
}
