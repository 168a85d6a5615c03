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
 *
 * A NULL pointer a function cannot do without is an error, never a crash: the functions
 * with an err return HT_EINVAL with err->text "FUNCTION: ARGUMENT is NULL" (err may be NULL
 * everywhere); those without return HT_EINVAL, or answer NULL, 0 or the value their comment
 * gives; the void functions do nothing with a NULL. Where NULL is taken instead, the
 * function's comment says what it means.
 */
#ifndef HETUNE_SPACE_H
#define HETUNE_SPACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
    int64_t *sorted;       /* HT_PARAM_VALUES: the values in increasing order, so that a
                              check finds one in O(log n); owned (freed with the def), or
                              NULL, and then they are searched one by one */
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

/* The slot of parameter i and of device variable v in def->names; SIZE_MAX for a NULL
 * def. */
size_t ht_space_param_slot(const struct ht_space_def *def, size_t i);
size_t ht_space_devvar_slot(const struct ht_space_def *def, enum ht_device_var v);

/* Fills vars (def->names.count entries) with the sizes, the parameter values params
 * (def->nparams entries; NULL leaves those slots 0) and the device's variables (dev NULL
 * leaves those 0). With def or vars NULL it does nothing. */
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
 * configuration invalid, with the reason in err->text. params may be NULL for a def
 * without parameters only. */
int ht_space_check(const struct ht_space_def *def, const struct ht_device_info *dev,
                   const int64_t *params, enum ht_eq3 eq3, struct ht_error *err);

/* Frees everything a def owns (what the spec module allocated) and zeroes it. NULL:
 * nothing. */
void ht_space_def_destroy(struct ht_space_def *def);

/* --- enumeration --- */

/* A space: a def bound to one device with one Eq. 3 mode, its parameter domains resolved
 * (range bounds evaluated with the device's variables). Opaque; it borrows the def, which
 * must outlive it, and copies the device. Safe to read from several threads at once. */
struct ht_space;

/* Resolves the domains of def's parameters on dev. *out is owned by the caller
 * (ht_space_free). Returns HT_ESPEC, err->field naming the parameter ("params.TS") and
 * err->text the reason, when a range bound cannot be evaluated or uses a parameter, a
 * step is not positive, a range is empty (hi < lo, or no power of two in it) or a value
 * list is empty; HT_ENOMEM. */
int ht_space_create(const struct ht_space_def *def, const struct ht_device_info *dev,
                    enum ht_eq3 eq3, struct ht_space **out, struct ht_error *err);

/* Frees a space; NULL is allowed. */
void ht_space_free(struct ht_space *s);

/* What the space was created from; borrowed, valid as long as s. For a NULL s: NULL, and
 * HT_EQ3_PRODUCT. */
const struct ht_space_def *ht_space_get_def(const struct ht_space *s);
const struct ht_device_info *ht_space_get_device(const struct ht_space *s);
enum ht_eq3 ht_space_get_eq3(const struct ht_space *s);

/* The number of values of parameter i on this device, and its k-th value (k below that
 * number; values in the order of the list, ranges ascending). 0 for a NULL s. */
uint64_t ht_space_domain_size(const struct ht_space *s, size_t i);
int64_t ht_space_domain_value(const struct ht_space *s, size_t i, uint64_t k);

/* Room for a size as text in struct ht_space_counts. */
#define HT_SPACE_COUNT_TEXT 48

/* The sizes of a space on its device (the paper's Tables 1 and 2). */
struct ht_space_counts {
    double unpruned;           /* the paper's Table 1: the product of the domain sizes
                                  (ht_space_domain_size); rounded above 2^53 */
    uint64_t platform;         /* valid under the domains and the platform rules alone;
                                  UINT64_MAX: that many or more (see platform_text) */
    uint64_t pruned;           /* valid under the platform rules and the constraints;
                                  UINT64_MAX: that many or more (see pruned_text) */
    double seconds;            /* wall time the backend spent counting (and visiting) */
    /* When pruned is 0: the rule that removed the last configurations, named as
     * ht_space_check names it ("Eq. 3", "local memory", "constraints[1]"), and a sentence
     * saying so; both empty otherwise. */
    char last_constraint[256];
    char empty_reason[1024];
    /* The three sizes in decimal, exact below 2^128 ("1000000000000000000000000000");
     * a size of 2^128 or more is approximate: "~" and 4 significant digits ("~3.403e+38"),
     * and approximate is 1. Every backend sets them. */
    char unpruned_text[HT_SPACE_COUNT_TEXT];
    char platform_text[HT_SPACE_COUNT_TEXT];
    char pruned_text[HT_SPACE_COUNT_TEXT];
    int approximate;
};

/* Called with one valid configuration: config[i] is the value of def->params[i], borrowed
 * for the duration of the call. Return 0 to go on, a positive value to stop. */
typedef int (*ht_space_visit_fn)(const int64_t *config, void *user);

/* Counts the space with the native enumerator. Returns 0 or HT_ENOMEM. */
int ht_space_count(const struct ht_space *s, struct ht_space_counts *out,
                   struct ht_error *err);

/* Calls cb on every valid configuration (the same set as ht_space_check accepts), in an
 * unspecified but repeatable order, with the native enumerator; memory does not grow with
 * the space. Returns 0 when all were visited, the positive value cb returned when it
 * stopped, HT_ENOMEM, or HT_EINVAL when s or cb is NULL (user may be NULL). */
int ht_space_foreach(const struct ht_space *s, ht_space_visit_fn cb, void *user);

/* --- ranks: drawing from a space without listing it --- */

/* The valid configurations of a space numbered 0..count-1 in one fixed order (the walk of
 * the counting plan), so that a uniform rank is a uniform configuration. Opaque; it
 * borrows the space, and caches subtree counts as ranks are drawn (at most 64 MiB for the
 * counts of the walk, as counting; the counts along drawn paths besides). One thread at a
 * time; several rankers of one space may run at once. */
struct ht_space_ranker;

/* Counts s into a new ranker (*out, owned: ht_space_ranker_free). Costs a count of the
 * space (ht_space_count's full-rules walk). Returns 0, HT_ENOMEM, HT_EOVERFLOW when
 * the space holds 2^64 configurations or more, or HT_EINVAL when s or out is NULL. */
int ht_space_ranker_create(const struct ht_space *s, struct ht_space_ranker **out);

/* The number of valid configurations; 0 for a NULL r. */
uint64_t ht_space_ranker_count(const struct ht_space_ranker *r);

/* Writes the configuration of rank `rank` (below the count) to config (nparams values,
 * parameter order): a descent that subtracts the counts of the subtrees before it, each
 * counted once and cached. Every valid configuration has exactly one rank. Returns 0,
 * HT_EDOMAIN when rank is not below the count (whatever config), or HT_EINVAL when r or
 * config is NULL. */
int ht_space_unrank(struct ht_space_ranker *r, uint64_t rank, int64_t *config);

/* Frees a ranker; NULL is allowed. */
void ht_space_ranker_free(struct ht_space_ranker *r);

/* --- listing (hetune space --list) --- */

/* How a listing writes each configuration: a text line, or fixed-width binary records. */
enum ht_space_list_format { HT_SPACE_LIST_TEXT, HT_SPACE_LIST_BINARY };

/* Parses "text" or "binary". Returns HT_EINVAL for anything else, or a NULL s or out. */
int ht_space_list_format_parse(const char *s, enum ht_space_list_format *out);

/* The options of `hetune space --list` as its help shows them (docs/cli.md): the order
 * and the two formats, the binary header byte by byte. */
#define HT_SPACE_LIST_HELP                                                                   \
    "  -l, --list            also print the valid configurations, a line each, in the\n"     \
    "                        order the solver finds them: the native enumerator's walk\n"    \
    "                        order (repeatable, each configuration once, not sorted;\n"      \
    "                        'sort -n' sorts it), streamed as found in constant memory;\n"   \
    "                        --solver both: sorted\n"                                         \
    "      --list-format F   text (default) or binary: instead of the text or JSON\n"        \
    "                        output, per device a header then the configurations as\n"       \
    "                        records of signed little-endian integers: bytes 0-7\n"          \
    "                        \"HTSPACE1\", 8-11 nparams (u32), 12-15 W, bytes a value\n"     \
    "                        (u32: 1, 2, 4 or 8, the fewest that hold every value of\n"      \
    "                        the domains), 16-23 the number of records (u64), 24-31 the\n"   \
    "                        device index (u64), then the parameter names, each ending\n"    \
    "                        in a NUL byte; a record is nparams values of W bytes, in\n"     \
    "                        parameter order; implies --list\n"

/* What a listing writes besides the configurations. */
struct ht_space_list_opts {
    enum ht_space_list_format format;
    const char *prefix; /* text: written before each line; NULL: nothing */
    uint64_t count;     /* binary: the number of records the header announces */
    uint64_t device;    /* binary: the device index the header names */
};

/* Writes every valid configuration of s to f in o->format as the native enumerator finds
 * them (ht_space_foreach's walk order): text, a line each (o->prefix, the values in
 * decimal as printf's "%" PRId64 writes them, separated by single spaces, a newline);
 * binary, the header of HT_SPACE_LIST_HELP then a record each. Nothing is kept: memory
 * does not grow with the space. *written (may be NULL) gets the number written. Returns 0,
 * HT_EIO (writing failed), HT_ENOMEM, or HT_EINVAL when a binary listing holds another
 * number of records than o->count or s, f or o is NULL. */
int ht_space_list(const struct ht_space *s, FILE *f, const struct ht_space_list_opts *o,
                  uint64_t *written);

/* Writes the n configurations configs (n x nparams values, e.g. another backend's) of s
 * to f as ht_space_list does. Same errors; configs may be NULL when n is 0. */
int ht_space_list_configs(const struct ht_space *s, const int64_t *configs, size_t n,
                          FILE *f, const struct ht_space_list_opts *o);

/* A backend that finds the valid configurations: one file each in src/space/. */
struct ht_space_backend_ops {
    const char *name;
    const char *description;
    /* Fills counts and, when cb is not NULL, calls it on every valid configuration as
     * ht_space_foreach does (a positive return stops the visit, counts.pruned then counts
     * the visited ones). Returns 0, the positive value cb stopped with, HT_ENOMEM,
     * HT_EIO or HT_ESOLVER (the external solver is missing or failed; err says why). */
    int (*solve)(const struct ht_space *s, struct ht_space_counts *counts,
                 ht_space_visit_fn cb, void *user, struct ht_error *err);
};

/* The backends, "native" first (the default), NULL-terminated. Static storage. */
extern const struct ht_space_backend_ops *const ht_space_backends[];

/* The backend called name, or NULL (also for a NULL name). */
const struct ht_space_backend_ops *ht_space_backend_find(const char *name);

/* Writes the MiniZinc model of def (parameters over their domains as expressions of the
 * device data, the platform rules with eq3, and, unless platform_only, the application's
 * constraints) to path; the data come from ht_device_write_dzn. Its output item prints
 * one line "hz: v0 v1 ..." per solution, values in parameter order. Returns HT_EIO,
 * HT_ENOMEM or HT_EEXPR (an expression MiniZinc cannot express) with err filled. */
int ht_space_write_minizinc(const struct ht_space_def *def, enum ht_eq3 eq3,
                            int platform_only, const char *path, struct ht_error *err);

#ifdef __cplusplus
}
#endif
#endif
