/* Progress on stderr: a bar on a terminal, a line every few seconds elsewhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

double cli_now(void)
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

void cli_progress_start(struct cli_progress *p, const char *label, size_t total, int quiet)
{
    const char *term = getenv("TERM");

    memset(p, 0, sizeof *p);
    /* A real terminal gets a bar; a log, a pipe or CI a plain line now and then. */
    p->mode = quiet ? CLI_PROGRESS_OFF
              : isatty(STDERR_FILENO) && !(term && !strcmp(term, "dumb")) && !getenv("CI")
                  ? CLI_PROGRESS_BAR
                  : CLI_PROGRESS_LINES;
    p->total = total;
    /* $HETUNE_PROGRESS_EVERY (seconds) overrides the time between plain lines: a test can
     * see lines without a tune that lasts the default's 5 s, a log can have fewer. */
    p->every = CLI_PROGRESS_EVERY;
    {
        const char *e = getenv("HETUNE_PROGRESS_EVERY");
        char *end;
        double v = e ? strtod(e, &end) : 0.0;
        if (e && end != e && !*end && v >= 0.0 && v < 1e6)
            p->every = v;
    }
    p->start = p->last_draw = cli_now();
    if (p->mode == CLI_PROGRESS_BAR)
        p->last_draw = 0; /* the bar shows at once, the first line after a while */
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
}

void cli_progress_update(struct cli_progress *p, size_t done, const char *note)
{
    char elapsed[32], left[32] = "?", bar[31];
    double t = cli_now(), frac;
    size_t fill;

    if (p->mode == CLI_PROGRESS_OFF ||
        (done < p->total &&
         t - p->last_draw < (p->mode == CLI_PROGRESS_BAR ? 0.1 : p->every)) ||
        (p->mode == CLI_PROGRESS_LINES && done >= p->total))
        return; /* a line for the end would only repeat the result that follows */
    p->last_draw = t;
    format_duration(t - p->start, elapsed, sizeof elapsed);
    if (done > 0)
        format_duration((t - p->start) / (double)done * (double)(p->total - done), left,
                        sizeof left);
    if (p->mode == CLI_PROGRESS_LINES) {
        fprintf(stderr, "%s: %zu/%zu done, %s elapsed, %s left%s%s\n", p->label, done,
                p->total, elapsed, left, note ? ", " : "", note ? note : "");
        return;
    }
    frac = p->total ? (double)done / (double)p->total : 1.0;
    fill = (size_t)(frac * 30.0);
    for (size_t i = 0; i < 30; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[30] = '\0';
    fprintf(stderr, "\r\033[K%s [%s] %zu/%zu %s elapsed, %s left%s%s", p->label, bar, done,
            p->total, elapsed, left, note ? ", " : "", note ? note : "");
    fflush(stderr);
}

void cli_progress_say(struct cli_progress *p, const char *text)
{
    if (p->mode == CLI_PROGRESS_OFF)
        return;
    /* A line of its own in both modes; on a terminal the next update redraws the bar. */
    fprintf(stderr, "%s%s: %s\n", p->mode == CLI_PROGRESS_BAR ? "\r\033[K" : "", p->label,
            text);
    fflush(stderr);
}

void cli_progress_end(struct cli_progress *p)
{
    if (p->mode == CLI_PROGRESS_BAR)
        fprintf(stderr, "\r\033[K");
    fflush(stderr);
    p->mode = CLI_PROGRESS_OFF;
}

void cli_tune_progress(const struct ht_tune_progress *p, void *user)
{
    struct cli_tune_bar *b = user;
    char note[512] = "", t[32], cfg[400] = "", label[128];

    if (b->dev != p->dev) {
        cli_tune_bar_end(b);
        snprintf(label, sizeof label, "%s%zu %.60s", b->prefix ? b->prefix : "",
                 p->dev->index, p->dev->name);
        cli_progress_start(&b->bar, label, p->total, b->quiet);
        b->dev = p->dev;
    }
    if (p->reference == 1) {
        if (p->reference_s > 0.0)
            ht_format_seconds(p->reference_s, t, sizeof t);
        snprintf(note, sizeof note, "reference step: the reference outputs from the cache, "
                 "or computed before the first configuration%s%s%s",
                 p->reference_s > 0.0 ? " (limit " : "",
                 p->reference_s > 0.0 ? t : "", p->reference_s > 0.0 ? ")" : "");
        cli_progress_say(&b->bar, note);
        return;
    }
    if (p->reference == 2) {
        ht_format_seconds(p->reference_s, t, sizeof t);
        snprintf(note, sizeof note, "reference step: %s in %s",
                 p->reference_computed ? "computed" : "read from the cache", t);
        cli_progress_say(&b->bar, note);
        return;
    }
    if (b->verbose && p->config && b->spec) {
        ht_format_config(b->spec, p->config, cfg, sizeof cfg);
        snprintf(note, sizeof note, "evaluated %s: %s", cfg,
                 p->status == HT_OK ? "ok" : ht_err_name(p->status));
        cli_progress_say(&b->bar, note);
        note[0] = cfg[0] = '\0';
    }
    if (p->best) {
        ht_format_seconds(p->best_s, t, sizeof t);
        if (b->spec)
            ht_format_config(b->spec, p->best, cfg, sizeof cfg);
        snprintf(note, sizeof note, "best %s%s%s%s", t, cfg[0] ? " (" : "", cfg,
                 cfg[0] ? ")" : "");
    }
    if (p->cut || p->failed)
        snprintf(note + strlen(note), sizeof note - strlen(note), "%s%zu cut, %zu failed",
                 note[0] ? "; " : "", p->cut, p->failed);
    if (p->building || p->built)
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 "%s%zu building, %zu built ahead", note[0] ? "; " : "", p->building,
                 p->built);
    cli_progress_update(&b->bar, p->done, note[0] ? note : NULL);
}

void cli_tune_bar_end(struct cli_tune_bar *b)
{
    if (b->dev)
        cli_progress_end(&b->bar);
    b->dev = NULL;
}
