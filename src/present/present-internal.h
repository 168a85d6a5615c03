/* Internal interface of the presentation module (src/present), shared by its files:
 *   json.c      the JSON documents of the commands on one machine
 *   mpi.c       what `mpirun -n K hetune tune` and `split` show (text or JSON) and
 *               their exit statuses
 *   sentence.c  the one-line sentences
 *   space.c     `hetune space`'s table and listings
 *   status.c    the exit status of an error code
 */
#ifndef HETUNE_PRESENT_INTERNAL_H
#define HETUNE_PRESENT_INTERNAL_H

#include <jansson.h>

#include "hetune/exec.h"

/* What other processes did while a run measured (struct ht_load), as every document
 * writes it: {"under_load", "other_cores", "cores", "window_seconds", "locked",
 * "unlocked_why", "notice"}. A new reference; NULL when jansson cannot make it. */
json_t *ht__present_load_json(const struct ht_load *l);

#endif
