/* tune's door for the MPI tuning queue (src/mpi/queue.c): the evaluations other ranks
 * made are filled as the tuner (src/tune/tune.c) fills its own.
 *
 * A friend header (docs/architecture.md, scripts/walls-allowed.txt): only the modules
 * named there include it; the names stay inside the shared library (ht__, src/hetune.map). */
#ifndef HETUNE_TUNE_TUNER_H
#define HETUNE_TUNE_TUNER_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"

/* tune.c: fills ev from one evaluation of config (text its canonical text) by the tune of
 * id's problem and device; src/mpi fills the evaluations other ranks made with it. */
struct ht__tune_ident {
    int64_t problem_id, device_id;
    size_t nparams;
    const char *strategy;
    uint64_t seed;
    const char *spec_hash;  /* ht_spec.hash of the spec measured */
};
struct ht_eval_result;
struct ht_stored_eval;
void ht__tune_fill_eval(const struct ht__tune_ident *id, const int64_t *config,
                        const char *text, int status, const struct ht_eval_result *res,
                        const struct ht_error *eerr, struct ht_stored_eval *ev);

#endif
