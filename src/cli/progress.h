/* Progress of long work on stderr: a bar redrawn at most ten times a second on a terminal,
 * else (a log, a pipe, CI) a plain line every CLI_PROGRESS_EVERY seconds, and nothing at
 * all when quiet (-q). */
#ifndef HETUNE_CLI_PROGRESS_H
#define HETUNE_CLI_PROGRESS_H

#include <stddef.h>

#include "hetune.h"

#define CLI_PROGRESS_EVERY 5.0

/* Seconds on the monotonic clock. */
double cli_now(void);

struct cli_progress {
    int mode;            /* CLI_PROGRESS_OFF (every call does nothing), _BAR or _LINES */
    size_t total;
    double start, last_draw;
    double every;            /* seconds between plain lines (CLI_PROGRESS_EVERY, or
                                $HETUNE_PROGRESS_EVERY) */
    char label[128];
};
enum { CLI_PROGRESS_OFF, CLI_PROGRESS_BAR, CLI_PROGRESS_LINES };

/* Starts the progress of total steps labelled label (e.g. a device name); quiet shows
 * nothing. */
void cli_progress_start(struct cli_progress *p, const char *label, size_t total, int quiet);

/* Shows done of total, the elapsed time, the time left estimated from the rate so far and
 * an optional note (e.g. "best 1.23 ms"; NULL for none). */
void cli_progress_update(struct cli_progress *p, size_t done, const char *note);

/* Says text on a line of its own, after the label (a step such as the reference outputs);
 * nothing when quiet. */
void cli_progress_say(struct cli_progress *p, const char *text);

/* Erases the bar so that the next output starts on a clean line (a line needs nothing). */
void cli_progress_end(struct cli_progress *p);

/* The progress of tuning one device after another, fed by the library's callback:
 * cli_tune_progress is a ht_tune_progress_fn whose user is a struct cli_tune_bar, which
 * starts a new bar when the device changes; cli_tune_bar_end erases the last one. */
struct cli_tune_bar {
    const struct ht_spec *spec;       /* names the best configuration; NULL: its time only */
    const char *prefix;               /* before the device's index in the label; NULL: none */
    int quiet;
    int verbose;                      /* -v: a line for each configuration evaluated */
    const struct ht_device_info *dev; /* the device of the bar shown; NULL: none */
    struct cli_progress bar;
};
void cli_tune_progress(const struct ht_tune_progress *p, void *user);
void cli_tune_bar_end(struct cli_tune_bar *b);

#endif
