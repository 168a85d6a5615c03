/* A progress bar on stderr for long work: shown only when stderr is a terminal, so pipes and
 * CI stay quiet. Redraws at most ten times a second. */
#ifndef HETUNE_CLI_PROGRESS_H
#define HETUNE_CLI_PROGRESS_H

#include <stddef.h>

struct cli_progress {
    int active;          /* 0 when stderr is not a terminal: every call does nothing */
    size_t total;
    double start, last_draw;
    char label[64];
};

/* Starts a bar of total steps labelled label (e.g. a device name). */
void cli_progress_start(struct cli_progress *p, const char *label, size_t total);

/* Shows done of total, the elapsed time, the time left estimated from the rate so far and
 * an optional note (e.g. "best 1.23 ms"; NULL for none). */
void cli_progress_update(struct cli_progress *p, size_t done, const char *note);

/* Erases the bar so that the next output starts on a clean line. */
void cli_progress_end(struct cli_progress *p);

#endif
