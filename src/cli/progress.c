/* Progress bar on stderr, for terminals only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void format_duration(double s, char *buf, size_t size)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, size, "%ldh%02ldm", t / 3600, (t / 60) % 60);
    else if (t >= 60)
        snprintf(buf, size, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, size, "%lds", t);
}

void cli_progress_start(struct cli_progress *p, const char *label, size_t total)
{
    const char *term = getenv("TERM");

    memset(p, 0, sizeof *p);
    /* Only a real terminal gets a bar; CI and pipes get nothing. */
    p->active = isatty(STDERR_FILENO) && !(term && !strcmp(term, "dumb")) && !getenv("CI");
    p->total = total;
    p->start = now();
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
}

void cli_progress_update(struct cli_progress *p, size_t done, const char *note)
{
    char elapsed[32], left[32] = "?";
    char bar[31];
    double t, frac;
    size_t fill;

    if (!p->active)
        return;
    t = now();
    if (done < p->total && t - p->last_draw < 0.1)
        return;
    p->last_draw = t;
    frac = p->total ? (double)done / (double)p->total : 1.0;
    fill = (size_t)(frac * 30.0);
    for (size_t i = 0; i < 30; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[30] = '\0';
    format_duration(t - p->start, elapsed, sizeof elapsed);
    if (done > 0)
        format_duration((t - p->start) / (double)done * (double)(p->total - done), left,
                        sizeof left);
    fprintf(stderr, "\r\033[K%s [%s] %zu/%zu %s elapsed, %s left%s%s", p->label, bar, done,
            p->total, elapsed, left, note ? ", " : "", note ? note : "");
    fflush(stderr);
}

void cli_progress_end(struct cli_progress *p)
{
    if (!p->active)
        return;
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
}
