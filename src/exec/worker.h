/* The worker process of an isolated session (worker.c; issue 13). */
#ifndef HETUNE_EXEC_WORKER_H
#define HETUNE_EXEC_WORKER_H

#include <sys/types.h>

#include "hetune/exec.h"

struct ht__worker;
struct ht_prebuild;
struct ht_reference_info; /* exec/tuning.h */

/* The worker's loop, hetune-worker's (worker-main.c): serves the requests on fd until it
 * closes. Returns the process's exit status. */
int ht__worker_serve(int fd);

/* Puts in buf the worker executable to use: explicit_path when given, else
 * $HETUNE_WORKER, else hetune-worker beside the running program or in its
 * ../libexec/hetune, else the install and build locations compiled in. HT_ENOTFOUND (buf
 * empty, or the path that was named and is not executable). */
int ht__worker_find(const char *explicit_path, char *buf, size_t size);

/* What a pool of build workers (prebuild.c) watches of each of its workers, so that it can
 * pause them (SIGSTOP) while a CPU device measures. A build worker leads a process group of
 * its own (its id is the group's), so that the processes it starts (PoCL runs the linker,
 * ld) are paused with it. pid is called with the process's id once it is spawned, and
 * with 0 just before the process is killed or waited for (so that the pool signals only
 * groups whose leader is not reaped yet, and continues a stopped one, which would never
 * end on its own); it is called from the thread that drives the worker.
 * paused returns the seconds the pool has been paused so far, the pause in progress
 * included: every time limit of the worker's replies runs on a clock that stops while the
 * pool is paused, so that a pause never times a worker out, and the automatic limit is
 * drawn from builds' times without their pauses. ctx is passed to both; the watch is
 * borrowed and must outlive the worker. */
struct ht__worker_watch {
    void (*pid)(void *ctx, pid_t pid);
    double (*paused)(void *ctx);
    void *ctx;
};

/* Starts the worker at path for spec on dev with opts (its isolate field is ignored) and
 * waits until it has a session. A build worker (build not NULL, for ht__worker_build, its
 * pool's watch) gets the spec with repeats and keep_best 1. HT_ECRASH or HT_ETIMEOUT when
 * it dies or hangs while starting, HT_EINTR when opts->stop is raised, or the worker's own
 * error (HT_ECL, ...). Each worker is driven by one thread at a time; several may be
 * driven at once. */
int ht__worker_start(const struct ht_spec *spec, const struct ht_device_info *dev,
                     const struct ht_exec_opts *opts, const char *path,
                     const struct ht__worker_watch *build, struct ht__worker **out,
                     struct ht_error *err);

/* Ends the worker (it exits when its socket closes) and frees w; NULL is allowed. */
void ht__worker_free(struct ht__worker *w);

/* ht_session_eval in the worker, respawned first when the last one died. Returns what the
 * worker's session returned, or HT_ECRASH ("crashed: SIGSEGV") when the worker died,
 * HT_ETIMEOUT ("timeout after 2.0 s") when it outlasted the limit (it is killed),
 * HT_EINTR when the stop flag was raised (it is killed). */
int ht__worker_eval(struct ht__worker *w, double cut_best, double cut_factor,
                    const int64_t *config, struct ht_eval_result *res, struct ht_error *err);

/* Starts the worker again when the last one died, as the next request would: so that a
 * failure to start is told apart from the request's own (HT_ECRASH, ...). */
int ht__worker_ensure(struct ht__worker *w, struct ht_error *err);

/* ht__session_prebuild in the worker (a build worker of ht__worker_start), respawned first
 * when the last one died; HT_ECRASH, HT_ETIMEOUT and HT_EINTR as for ht__worker_eval, the
 * time limit being that of the builds this worker made. */
int ht__worker_build(struct ht__worker *w, const int64_t *config, struct ht_eval_result *res,
                     struct ht_error *err);

/* ht__session_reference in the worker, respawned first when the last one died, under the
 * step's own limit (exec.h): HT_ECRASH, HT_ETIMEOUT and HT_EINTR as for ht__worker_eval,
 * prefixed "reference: ". On success the worker remembers config, and a worker started
 * again later runs the step again before its next evaluation. */
int ht__worker_reference(struct ht__worker *w, const int64_t *config,
                         struct ht_reference_info *info, struct ht_error *err);

/* ht_session_dump in the worker. */
int ht__worker_dump(struct ht__worker *w, const char *dir, struct ht_error *err);

/* The pool whose build workers w's evaluations pause around their timed runs (the
 * worker tells when, MSG_TIMED), or NULL (ht__session_pause_builds). Borrowed. */
void ht__worker_pause_builds(struct ht__worker *w, struct ht_prebuild *p);

/* In a worker process, during an evaluation whose parent pauses builds: tells the parent
 * on socket fd that the timed runs start (on 1) or ended (on 0). A failed send is left to
 * the reply's own. */
void ht__worker_tell_timed(int fd, int on);

/* The time limit of the next evaluation, in seconds. */
double ht__worker_limit(const struct ht__worker *w);

#endif
