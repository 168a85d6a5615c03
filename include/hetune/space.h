/* hetune — tuning parameters, constraints and the platform rules.
 *
 * A struct ht_space_def is the pure description of a design space: the problem sizes, the
 * tuning parameters and their domains, the NDRange as expressions, the local memory use
 * and the application's constraints. The spec module fills one from a spec file; this module
 * never touches OpenCL.
 *
 * Every expression of a space is compiled against one table of names (def->names), laid out
 * in slots: first the sizes, then the parameters, then the device variables of
 * platform.h (HT_DEVICE_NVARS of them, in enum ht_device_var order).
 */
#ifndef HETUNE_SPACE_H
#define HETUNE_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"
#include "hetune/expr.h"
#include "hetune/platform.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ht_param_kind { HT_PARAM_VALUES, HT_PARAM_RANGE };

struct ht_param {
    char *name;
    enum ht_param_kind kind;
    size_t nvalues;        /* HT_PARAM_VALUES: the values, in the order given */
    int64_t *values;
    struct ht_expr *lo;    /* HT_PARAM_RANGE: inclusive bounds, expressions over sizes and */
    struct ht_expr *hi;    /* device variables */
    struct ht_expr *step;  /* NULL means 1; ignored when pow2 */
    int pow2;              /* the powers of two in [lo, hi] */
};

struct ht_constraint {
    struct ht_expr *expr;  /* valid when it evaluates to non-zero */
    char *origin;          /* where it came from, e.g. "constraints[2]" */
};

struct ht_space_def {
    size_t nsizes;
    char **size_names;
    int64_t *size_values;
    size_t nparams;
    struct ht_param *params;
    struct ht_names names;       /* nsizes + nparams + HT_DEVICE_NVARS names */
    unsigned ndims;              /* 1..3 */
    struct ht_expr *global[3];   /* NULL beyond ndims */
    struct ht_expr *local[3];    /* all NULL when the spec leaves the local size open */
    struct ht_expr *local_mem;   /* bytes of local memory a work-group uses, or NULL */
    size_t nconstraints;
    struct ht_constraint *constraints;
};

/* The slot of parameter i and of device variable v in def->names. */
size_t ht_space_param_slot(const struct ht_space_def *def, size_t i);
size_t ht_space_devvar_slot(const struct ht_space_def *def, enum ht_device_var v);

/* Fills vars (def->names.count entries) with the sizes, the parameter values params
 * (def->nparams entries; NULL leaves those slots 0) and the device's variables. */
void ht_space_vars(const struct ht_space_def *def, const struct ht_device_info *dev,
                   const int64_t *params, int64_t *vars);

/* Evaluates the NDRange for filled vars: global[d] and local[d] for d < def->ndims, 1
 * beyond; local[] is all 0 when the spec leaves it open. Returns HT_EINVAL (err names the
 * field, e.g. "ndrange.global[1]") when a size does not evaluate or is not positive. */
int ht_space_ndrange(const struct ht_space_def *def, const int64_t *vars, uint64_t global[3],
                     uint64_t local[3], struct ht_error *err);

/* Eq. 3 variants: the number of work-groups compared with compute_units is the product over
 * dimensions (the total, default), the paper's literal sum, or not checked. */
enum ht_eq3 { HT_EQ3_PRODUCT, HT_EQ3_SUM, HT_EQ3_OFF };

/* Parses "product", "sum" or "off". Returns HT_EINVAL for anything else. */
int ht_eq3_parse(const char *s, enum ht_eq3 *out);

/* Checks one configuration on one device, in this order: each parameter within its domain,
 * Eq. 1 (product of local sizes <= max_work_group_size), the per-dimension limits, Eq. 2
 * (global a multiple of local), local memory (local_mem <= local_mem_size), Eq. 3, then the
 * application's constraints in order. Returns 0 when it is valid, else HT_ECONSTRAINT with
 * err->field naming the rule ("Eq. 1", "Eq. 2", "work-item limit", "local memory",
 * "Eq. 3", "params.TS" or the constraint's origin) and err->text saying which values broke
 * it. An expression that cannot be evaluated (division by zero...) also makes the
 * configuration invalid, with the reason in err->text. */
int ht_space_check(const struct ht_space_def *def, const struct ht_device_info *dev,
                   const int64_t *params, enum ht_eq3 eq3, struct ht_error *err);

/* Frees everything a def owns (what the spec module allocated) and zeroes it. */
void ht_space_def_destroy(struct ht_space_def *def);

#ifdef __cplusplus
}
#endif
#endif
