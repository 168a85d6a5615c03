/* hetune — fuzz target: the expression language (ht_expr_compile: the parser, the checks
 * and the compiler with its constant folding; then evaluation, ht_expr_uses/max_slot and
 * the MiniZinc writer) and the translator of Kernel Tuner's Python restrictions into it
 * (ht_kt_expression), both on the input taken as one expression. */
#include "fuzz.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/expr.h"
#include "hetune/interop.h"

static const char *const names[] = {"N", "M", "TS", "WG", "block_size_x", "tile",
                                    "max_work_group_size", "local_mem_size", "is_cpu"};
#define NNAMES (sizeof names / sizeof names[0])

/* Values that reach the edges of 64-bit arithmetic, so that overflow checks are exercised. */
static const int64_t corners[][NNAMES] = {
    {1024, 7, 16, 64, 32, 2, 1024, 65536, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 1},
    {-1, -1, -1, -1, -1, -1, -1, -1, -1},
    {INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN, 63, 64, INT64_MAX, 1, 0},
    {INT64_MIN, -1, 1, 2, -64, 65, 3, INT64_MAX, 1},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct ht_names tab = {NNAMES, names};
    struct ht_expr *e = NULL;
    struct ht_error err;
    char *src = fuzz_strndup(data, size), *mzn = NULL, *c_expr = NULL;
    int64_t v;

    if (!src)
        return 0;
    memset(&err, 0, sizeof err);
    if (ht_expr_compile(src, &tab, &e, &err) == 0) {
        for (size_t i = 0; i < sizeof corners / sizeof corners[0]; i++)
            (void)ht_expr_eval(e, corners[i], &v);
        long top = ht_expr_max_slot(e);
        if (top >= (long)NNAMES)
            abort(); /* only the names given can be read */
        for (size_t s = 0; s < NNAMES; s++)
            if (ht_expr_uses(e, s) && (long)s > top)
                abort();
        if (strcmp(ht_expr_source(e), src))
            abort();
        for (int as_bool = 0; as_bool < 2; as_bool++) {
            memset(&err, 0, sizeof err);
            if (ht_expr_to_minizinc(e, &tab, as_bool, &mzn, &err) == 0 && !mzn)
                abort();
            free(mzn);
            mzn = NULL;
        }
        ht_expr_free(e);
    } else if (e) {
        abort(); /* a failure must leave nothing to free */
    }
    memset(&err, 0, sizeof err);
    if (ht_kt_expression(src, names, NNAMES, &c_expr, &err) == 0) {
        /* What the translator accepts must compile: it says it checked. */
        if (!c_expr || ht_expr_compile(c_expr, &tab, &e, &err) != 0)
            abort();
        ht_expr_free(e);
    }
    free(c_expr);
    free(src);
    return 0;
}
