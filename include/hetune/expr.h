/* hetune — the constraint expression language.
 *
 * C-like expressions on 64-bit signed integers:
 *   literals (decimal, 0x hex), names, parentheses,
 *   unary - + ! ~ , binary * / % + - << >> < <= > >= == != & ^ | && || , ternary ?: ,
 *   functions min(a,b) max(a,b) ceil_div(a,b) is_pow2(a) log2(a).
 * Precedence and associativity follow C: & ^ | bind looser than the comparisons, so
 * `(WG & (WG - 1)) == 0` needs its parentheses as in C. && || and ?: short-circuit, so
 * `N == 0 ? 0 : M / N` is valid for N == 0. Comparisons and logic give 0 or 1.
 * / and % truncate toward zero as in C. Division or remainder by zero, an overflowing
 * + - * / (including INT64_MIN / -1) and log2 of a value <= 0 make the evaluation fail with
 * an error code; nothing crashes. & ^ | ~ work on the 64-bit two's complement and never fail.
 * a << b is a * 2^b (an overflow when that does not fit, negative a included); a >> b is
 * arithmetic, the floor of a / 2^b; a shift by b < 0 or b > 63 fails with HT_EDOMAIN. log2(x) is floor(log2(x)). ceil_div(a,b) rounds the
 * quotient toward positive infinity. is_pow2(x) is 1 when x is a positive power of two.
 *
 * An expression is compiled once against a table of names, each name becoming a slot index
 * into the array of values passed to ht_expr_eval. Evaluation does not allocate.
 *
 * A NULL pointer a function cannot do without is HT_EINVAL ("FUNCTION: ARGUMENT is NULL" in
 * err->text where there is one), never a crash; err may be NULL everywhere. For a NULL e,
 * ht_expr_source is NULL, ht_expr_uses 0 and ht_expr_max_slot -1.
 */
#ifndef HETUNE_EXPR_H
#define HETUNE_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ht_expr; /* opaque, compiled */

/* The names an expression may use; names[i] is read from vars[i] at evaluation time. */
struct ht_names {
    size_t count;
    const char *const *names;
};

/* Compiles src against names (NULL: no names). On success *out is owned by the caller (free with
 * ht_expr_free). On failure returns HT_EPARSE (syntax) or HT_EEXPR (unknown name, wrong
 * number of function arguments, too deep), sets err->column to the 1-based column in src
 * where the problem starts and err->text to a message such as "unknown name 'TZ'" or
 * "expected ')' but found end of expression"; err->file, line and field are left untouched
 * for the caller to fill. */
int ht_expr_compile(const char *src, const struct ht_names *names, struct ht_expr **out,
                    struct ht_error *err);

/* Frees a compiled expression; NULL is allowed. */
void ht_expr_free(struct ht_expr *e);

/* Evaluates e with vars[i] the value of names[i]. Returns 0 and sets *out, or
 * HT_EDIVZERO, HT_EOVERFLOW or HT_EDOMAIN (log2 of a non-positive value, a shift out of
 * 0..63); HT_EINVAL for a NULL e or out, or a NULL vars when e reads a name. Does not
 * allocate; safe to call from several threads at once on the same expression. */
int ht_expr_eval(const struct ht_expr *e, const int64_t *vars, int64_t *out);

/* The source text the expression was compiled from. Borrowed, lives as long as e. */
const char *ht_expr_source(const struct ht_expr *e);

/* 1 when e reads the slot, else 0. */
int ht_expr_uses(const struct ht_expr *e, size_t slot);

/* The highest slot e reads, or -1 when it reads none (a constant expression). */
long ht_expr_max_slot(const struct ht_expr *e);

/* Writes e as a MiniZinc expression over the same names (`div`, `mod`, `/\`, `\/`, `not`,
 * `if then else endif`; a comparison used as a number becomes `(if c then 1 else 0 endif)`, since
 * MiniZinc 2.6 with Gecode mistranslates bool2int in negated contexts). With as_bool
 * non-zero the result is a MiniZinc bool (an int x becomes `(x != 0)`), else an int.
 * Where native evaluation would fail (division by zero, log2 of a value <= 0) the MiniZinc
 * expression fails too, so both backends prune the same points. *out is owned by the caller
 * (free()). ~ << >> are translated (a shift's amount must lie in 0..63 as natively); & ^ |
 * have no MiniZinc form: HT_EEXPR, err->text naming the operator and the expression.
 * Returns 0, HT_ENOMEM, HT_EEXPR, or HT_EINVAL when names lacks a slot e uses. */
int ht_expr_to_minizinc(const struct ht_expr *e, const struct ht_names *names, int as_bool,
                        char **out, struct ht_error *err);

#ifdef __cplusplus
}
#endif
#endif
