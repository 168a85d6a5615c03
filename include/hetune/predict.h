/* hetune — a device's best configuration at sizes never measured (issue 18).
 *
 * Programs launch at sizes nobody tuned. From the evaluations the results database holds of
 * the same kernel (same source, kernel name, options and parameter names) at other problem
 * sizes on a device, each configuration measured at two sizes or more gets a model of its
 * time against the work of a run, t = a + b * work (Dopia's and PetaBricks' tuned models),
 * fitted by least squares on the relative error with a, b >= 0. The work of a configuration
 * at given sizes is the spec's "flops" expression when it has one, else the product of the
 * NDRange's global sizes. At the new sizes, the configuration with the least predicted time
 * among those still valid there (the space's platform rules and constraints at the new
 * sizes) is the prediction. Nothing is measured: this module reads the store and evaluates
 * expressions only.
 *
 * A NULL pointer a function cannot do without is HT_EINVAL with err->text "FUNCTION:
 * ARGUMENT is NULL", never a crash; err may be NULL everywhere. The void functions do
 * nothing with a NULL. Where NULL is taken instead, the function's comment says what it
 * means.
 */
#ifndef HETUNE_PREDICT_H
#define HETUNE_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"
#include "hetune/platform.h"
#include "hetune/space.h"
#include "hetune/spec.h"
#include "hetune/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most other sizes a prediction names in its result (more are used, not named). */
#define HT_PREDICT_MAX_SIZES 16

/* Fits t = a + b * work to n points (work[i], t[i]), n >= 1, every t[i] > 0, minimizing
 * the sum of ((a + b * work[i] - t[i]) / t[i])^2 with a >= 0 and b >= 0 (the best of the
 * free fit when it is feasible, the fit through the origin and the constant). Sets *a and
 * *b, and returns 0; HT_EINVAL when n is 0, a point is not finite and positive, or a pointer
 * is NULL. */
int ht_predict_fit(const double *work, const double *t, size_t n, double *a, double *b);

struct ht_predict_opts {
    enum ht_eq3 eq3;   /* the Eq. 3 rule of validity at the new sizes (default product) */
    int unverified;    /* 1: evaluations that were not verified count too (a spec with no
                          reference); failed verification never does */
};

/* Fills opts with the defaults. NULL: nothing. */
void ht_predict_opts_init(struct ht_predict_opts *opts);

/* A prediction. Plain data owned by the caller. */
struct ht_predict_result {
    int64_t config[HT_STORE_MAX_PARAMS]; /* the configuration, in parameter order */
    char config_text[HT_STORE_CONFIG_MAX]; /* its canonical text, "WG=64,EPT=2" */
    double predicted_s;        /* its predicted time at the new sizes */
    double a, b;               /* its model, t = a + b * work (seconds, seconds per unit) */
    double work;               /* its work at the new sizes */
    size_t nsizes;             /* the other sizes of the kernel measured on the device */
    char sizes[HT_PREDICT_MAX_SIZES][256]; /* the first of them, "N=1024" (stored text) */
    size_t nfitted;            /* configurations fitted and valid at the new sizes */
};

/* Predicts the best configuration of spec (at its sizes, overrides applied) on dev from
 * what store holds of spec's kernel at other sizes on dev, as described above; the
 * evaluations at spec's own sizes are not used; opts NULL means the defaults
 * (ht_predict_opts_init). Fills *out. Errors, err filled:
 * HT_ENOTFOUND when fewer than two other sizes have a usable evaluation on dev ("tune at
 * least two sizes of 'KERNEL' first: hetune tune SPEC --size N=..."), or when no
 * configuration measured at two sizes is valid at the new ones; HT_EDB, HT_EINVAL (more
 * parameters than HT_STORE_MAX_PARAMS), HT_ENOMEM. */
int ht_predict_best(const struct ht_spec *spec, struct ht_store *store,
                    const struct ht_device_info *dev, const struct ht_predict_opts *opts,
                    struct ht_predict_result *out, struct ht_error *err);

#ifdef __cplusplus
}
#endif
#endif
