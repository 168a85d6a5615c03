/* The load other processes put on the machine while this one measures (exec.h, struct
 * ht_load): the CPU time of every process from /proc/stat less this process's own and its
 * children's. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "exec-internal.h"
#include "hetune/exec.h"
#include "util/util.h"

/* The busy ticks of the first line of a /proc/stat ("cpu  user nice system idle iowait
 * irq softirq steal guest guest_nice"): all but idle and iowait; guest time is already in
 * user's. -1 when it cannot be read. */
static double stat_busy_ticks(void)
{
    const char *path = getenv("HETUNE_LOAD_STAT");
    unsigned long long v[8] = {0};
    FILE *f = fopen(path && path[0] ? path : "/proc/stat", "r");
    int got;

    if (!f)
        return -1;
    got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                 &v[3], &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (got < 4)
        return -1;
    return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]);
}

static double tv_s(struct timeval t)
{
    return (double)t.tv_sec + t.tv_usec / 1e6;
}

/* The ticks of this process's live children (the isolated workers, build workers): their
 * utime, stime and their own waited-for children's, from /proc/PID/stat. */
static double children_ticks(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t me = getpid();
    double sum = 0;

    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        char path[300], line[1024], *p;
        unsigned long long ut, st;
        long long cut, cst;
        int ppid;
        FILE *f;

        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        f = fopen(path, "r");
        if (!f)
            continue;
        p = fgets(line, sizeof line, f);
        fclose(f);
        /* The name in parentheses may hold spaces: the fields start after the last ')'. */
        if (!p || !(p = strrchr(line, ')')))
            continue;
        /* state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime
         * stime cutime cstime */
        if (sscanf(p + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld",
                   &ppid, &ut, &st, &cut, &cst) != 5 || ppid != me)
            continue;
        sum += (double)(ut + st) + (double)(cut + cst);
    }
    closedir(d);
    return sum;
}

int ht__load_sample(double *t, double *busy, double *own)
{
    struct rusage self, kids;
    long hz = sysconf(_SC_CLK_TCK);
    double ticks = stat_busy_ticks();

    if (ticks < 0 || hz <= 0 || getrusage(RUSAGE_SELF, &self) != 0 ||
        getrusage(RUSAGE_CHILDREN, &kids) != 0)
        return -1;
    *t = ht__now();
    *busy = ticks / (double)hz;
    *own = tv_s(self.ru_utime) + tv_s(self.ru_stime) + tv_s(kids.ru_utime) +
           tv_s(kids.ru_stime) + children_ticks() / (double)hz;
    return 0;
}

double ht_load_other_cores(const struct ht_load *l)
{
    return l && l->window_s > 0 ? l->other_cpu_s / l->window_s : 0;
}

int ht_load_under(const struct ht_load *l)
{
    if (!l)
        return 0;
    return l->unlocked ||
           (l->window_s >= HT_LOAD_MIN_WINDOW_S && ht_load_other_cores(l) >= HT_LOAD_CORES);
}

void ht_load_add(struct ht_load *dst, const struct ht_load *src)
{
    if (!dst || !src)
        return;
    dst->window_s += src->window_s;
    dst->other_cpu_s += src->other_cpu_s;
    if (src->cores)
        dst->cores = src->cores;
    if (src->unlocked && !dst->unlocked) {
        dst->unlocked = 1;
        snprintf(dst->unlocked_why, sizeof dst->unlocked_why, "%s", src->unlocked_why);
    }
}
