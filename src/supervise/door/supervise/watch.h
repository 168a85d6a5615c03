/* The child's side of a supervised command (supervise.h, src/supervise/supervise.c): the
 * co-execution (src/coexec/) marks which device works until when, and tells of a
 * device whose part failed in the driver. Which devices the supervisor lost in an earlier
 * child is public (ht_supervised_lost). Nothing is watched outside a supervised child
 * (ht_supervised).
 *
 * Internal to the library: supervise's door for coexec, a friend header
 * (docs/architecture.md, scripts/walls-allowed.txt). */
#ifndef HETUNE_SUPERVISE_WATCH_H
#define HETUNE_SUPERVISE_WATCH_H

#include <stddef.h>

#include "hetune/error.h"
#include "hetune/platform.h"

/* A device's part of the work, watched: its slot (-1 when nothing is watched) and start,
 * and what the child was asked to do with the part, read once by ht__watch_begin. */
struct ht__watch {
    int slot;
    double t0;
    int inject;  /* 1 when the environment variable HETUNE_TEST_SLICE_FAIL names the
                    device's index: the fault tests make its parts past offset 0 fail as a
                    GPU's illegal address would (supervised or not) */
    int probe;   /* 1 when the supervisor asked for each device's part alone before each
                    co-execution (the same for every watch of the process) */
};

/* Marks that this thread starts working on dev, for at most limit_s seconds (0: the
 * automatic limit of exec.h, over the parts watched so far); nothing is marked outside a
 * supervised child, but inject and probe are filled everywhere. End it with
 * ht__watch_end. */
struct ht__watch ht__watch_begin(const struct ht_device_info *dev, double limit_s);
void ht__watch_end(const struct ht__watch *w);

/* Records, for the supervisor, that dev's part of the co-execution failed in the driver
 * (HT_ELAUNCH, HT_ECL: an illegal address on a GPU, say) with e: it runs the command again
 * without dev. Nothing outside a supervised child. */
void ht__watch_failed(const struct ht_device_info *dev, const struct ht_error *e);

#endif
