/* One measurement at a time per device, machine-wide: an flock on a file per device
 * (exec.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hetune/exec.h"
#include "util/util.h"

#define LOCK_DIR_DEFAULT "/tmp/hetune-locks"
#define LOCK_POLL_NS 50000000L

static const char *lock_dir(void)
{
    const char *d = getenv("HETUNE_LOCK_DIR");

    return d && d[0] ? d : LOCK_DIR_DEFAULT;
}

void ht_device_lock_path(const struct ht_device_info *dev, char *buf, size_t size)
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

int ht_device_lock(const struct ht_device_info *dev, volatile sig_atomic_t *stop,
                   ht_device_lock_wait_fn on_wait, void *user, int *fd_out,
                   struct ht_error *err)
{
    char path[4096], pid[32];
    const char *dir = lock_dir();
    int fd = -1, told = 0, e, n;

    *fd_out = -1;
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
    ht_device_lock_path(dev, path, sizeof path);
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        e = errno;
        return ht_error_set(err, HT_EIO, "cannot open the device lock %s: %s "
                            "($HETUNE_LOCK_DIR chooses another folder)", path, strerror(e));
    }
    fchmod(fd, 0666); /* another user must be able to open it too; fails harmlessly
                         when the file is another's */
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            break;
        if (errno != EWOULDBLOCK && errno != EINTR) {
            e = errno;
            close(fd);
            return ht_error_set(err, HT_EIO, "cannot lock the device lock %s: %s", path,
                                strerror(e));
        }
        if (stop && *stop) {
            close(fd);
            return ht_error_set(err, HT_EINTR, "interrupted while waiting for the device "
                                "lock %s", path);
        }
        if (!told && on_wait)
            on_wait(dev, path, holder_pid(fd), user);
        told = 1;
        nanosleep(&(struct timespec){0, LOCK_POLL_NS}, NULL);
    }
    /* Who holds it, for the notice of the next process that waits. */
    n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    /* A failure here costs only the pid in the notice: the lock holds all the same. */
    if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)n, 0) != n)
        pid[0] = '\0';
    *fd_out = fd;
    return HT_OK;
}

void ht_device_unlock(int fd)
{
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
