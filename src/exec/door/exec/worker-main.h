/* exec's door for the program hetune-worker (src/worker/main.c), the other half of an
 * isolated session (src/exec/worker.c, issue 13): the loop it runs.
 *
 * A friend header (docs/architecture.md, scripts/walls-allowed.txt); the name stays inside
 * the shared library (ht__, src/hetune.map): the worker links the static library. */
#ifndef HETUNE_EXEC_WORKER_MAIN_H
#define HETUNE_EXEC_WORKER_MAIN_H

/* The worker's loop (hetune-worker): serves the requests on fd until it closes. Returns
 * the process's exit status. */
int ht__worker_serve(int fd);

#endif
