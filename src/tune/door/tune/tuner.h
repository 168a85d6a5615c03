/* tune's door for the MPI tuning queue (src/mpi/queue.c): a rank evaluates the
 * configurations it is given as the tuner (src/tune/tune.c) evaluates its own, early cut
 * included, and fills their rows as the tuner fills its own: one call.
 *
 * A friend header (docs/architecture.md, scripts/walls-allowed.txt): only the modules
 * named there include it; the names stay inside the shared library (ht__, src/hetune.map). */
#ifndef HETUNE_TUNE_TUNER_H
#define HETUNE_TUNE_TUNER_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"

/* Whose tune an evaluation belongs to: its row's problem, device and search. */
struct ht__tune_ident {
    int64_t problem_id, device_id;
    size_t nparams;
    const char *strategy;
    uint64_t seed;
    const char *spec_hash;  /* ht_spec.hash of the spec measured */
};
struct ht_eval_result;
struct ht_stored_eval;
struct ht_session;

/* One evaluation of the tune of id's problem and device. Borrowed for the call. */
struct ht__tune_one {
    const struct ht__tune_ident *id;
    struct ht_session *session;  /* the device's session (ht_session_create) */
    const int64_t *config;       /* id->nparams values */
    const char *text;            /* config's canonical text */
    double best_s;               /* the best kernel time of the tune so far; 0: none yet */
    double cut_factor;           /* ht_tune_opts.cut_factor */
};

/* Evaluates one->config as the tuner does: the session's early cut set from best_s and
 * cut_factor (exec's ht__session_set_cut: the run stops, HT_ECUT, once it is clearly
 * slower than the best), ht_session_eval into *res (the caller's: ht_eval_result_destroy
 * whatever is returned), eerr its error; then *ev filled from it as the tuner fills the
 * evaluations it stores. Returns ht_session_eval's status. The caller holds the device's
 * lock if it takes one (src/mpi/queue.c does, around this call). */
int ht__tune_eval(const struct ht__tune_one *one, struct ht_eval_result *res,
                  struct ht_stored_eval *ev, struct ht_error *eerr);

#endif
