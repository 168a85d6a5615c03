/* How a workflow opens its results database (src/workflow/space.c), for the runtime's
 * ht_runtime_open (src/runtime/runtime.c), which opens it as `hetune split` and run do.
 * Internal to the library: workflow's door for src/runtime, a friend header
 * (docs/architecture.md, scripts/walls-allowed.txt). workflow-internal.h includes it. */
#ifndef HETUNE_WORKFLOW_STORE_OPTS_H
#define HETUNE_WORKFLOW_STORE_OPTS_H

#include <signal.h>

#include "hetune/store.h"

/* Sets *so to how a workflow opens its database: given (NULL: the defaults), with stop as
 * its stop flag unless given has one (a raised flag ends a wait for another process's
 * lock on the database: HT_EINTR). */
void ht__workflow_store_opts(const struct ht_store_opts *given, volatile sig_atomic_t *stop,
                             struct ht_store_opts *so);

#endif
