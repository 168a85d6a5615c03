/* tune's internal header: a recorded space's lookups (replay.c), which the tuner
 * (tune.c) answers evaluations from under --replay. Once in tune.h. */
#ifndef HETUNE_TUNE_INTERNAL_H
#define HETUNE_TUNE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/tune.h"

/* The recorded device's name (the file's "device" or "device_name", else the file's name
 * without folder and extensions), and the format ("T4" or "KT cache"). Borrowed. */
const char *ht__recording_device(const struct ht_recording *r);
const char *ht__recording_format(const struct ht_recording *r);

/* The number of recorded configurations. */
size_t ht__recording_count(const struct ht_recording *r);

/* The best recorded time of a correct configuration, in seconds. HT_ENOTFOUND when none. */
int ht__recording_optimum(const struct ht_recording *r, double *seconds);

/* Binds the recording to spec's parameters (matched by name, in any order), and when
 * space is not NULL checks that every recorded value is a value of its parameter in that
 * space. A tune binds the recording it is given itself. Errors: HT_ESPEC naming the
 * parameter or the result (a parameter on one side only, a value the spec lacks),
 * HT_ENOMEM. */
int ht__recording_bind(struct ht_recording *r, const struct ht_spec *spec,
                       const struct ht_space *space, struct ht_error *err);

/* Looks up config (the spec's parameter order) in a bound recording. Returns 0,
 * HT_ENOTFOUND when the recording lacks it, HT_EINVAL when the recording is not bound. */
int ht__recording_lookup(const struct ht_recording *r, const int64_t *config,
                         struct ht_recorded *out);

/* Answers one evaluation of config (the spec's parameter order) from a bound recording,
 * as ht_session_eval would measure it: fills res (the recorded runs and statistic, the
 * compile time as build_s, verified 1 for a correct result, 0 for a wrong one) and
 * *simulated_s (NULL allowed) with the seconds it cost where it was recorded. Returns the
 * recorded status (HT_OK, HT_EBUILD, HT_ELAUNCH, HT_EVERIFY, HT_ECONSTRAINT, HT_ETIMEOUT,
 * HT_ECUT, HT_ECRASH, HT_ECL, or HT_EINVAL for another failure; err says it was recorded
 * so), HT_ENOTFOUND when the recording lacks config, HT_EINVAL when it is not bound,
 * HT_ENOMEM. res owns its runs (ht_eval_result_destroy), whatever it returns. */
int ht__recording_eval(const struct ht_recording *r, const int64_t *config,
                       struct ht_eval_result *res, double *simulated_s, struct ht_error *err);

#endif
