/* Unit tests of the expression language (src/expr/): parsing, precedence, integer
 * semantics and errors, introspection, MiniZinc output, and a random property test against
 * a reference evaluator written here over the same random trees. When `minizinc` (with
 * Gecode) is installed, emitted MiniZinc is also run and compared with native evaluation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune/expr.h"
#include "util/util.h"

/* Slots: N=0 M=1 TS=2 A=3 B=4 C=5 D=6 E=7 max_work_item_size_0=8. */
static const char *const names_list[] = {"N", "M", "TS", "A", "B", "C", "D", "E",
                                         "max_work_item_size_0"};
static const struct ht_names names = {9, names_list};
enum { S_N, S_M, S_TS, S_A, S_B, S_C, S_D, S_E, S_MWI, NSLOTS };

/* Default values: N=24 M=10 TS=4 A=-7 B=2 C=0 D=INT64_MIN E=-1 mwi=1024. */
static const int64_t defaults[NSLOTS] = {24, 10, 4, -7, 2, 0, INT64_MIN, -1, 1024};

static struct ht_expr *compile_ok(const char *src)
{
    struct ht_expr *e = NULL;
    struct ht_error err;
    int rc;

    ht_error_clear(&err);
    rc = ht_expr_compile(src, &names, &e, &err);
    if (rc != 0)
        fail_msg("compiling '%s' failed: %s (col %d): %s", src, ht_err_name(rc), err.column,
                 err.text);
    assert_non_null(e);
    return e;
}

/* Compiles and evaluates src with vars; returns the eval status. */
static int eval_with(const char *src, const int64_t *vars, int64_t *out)
{
    struct ht_expr *e = compile_ok(src);
    int rc = ht_expr_eval(e, vars, out);
    ht_expr_free(e);
    return rc;
}

static void check_value_at(const char *src, int64_t want, const char *file, int line)
{
    int64_t got = 0x5a5a;
    int rc = eval_with(src, defaults, &got);
    if (rc != 0)
        fail_msg("%s:%d: '%s' failed with %s", file, line, src, ht_err_name(rc));
    if (got != want)
        fail_msg("%s:%d: '%s' gave %lld, want %lld", file, line, src, (long long)got,
                 (long long)want);
}

static void check_fails_at(const char *src, int code, const char *file, int line)
{
    int64_t got = 0x5a5a;
    int rc = eval_with(src, defaults, &got);
    if (rc != code)
        fail_msg("%s:%d: '%s' returned %s (value %lld), want %s", file, line, src,
                 ht_err_name(rc), (long long)got, ht_err_name(code));
    if (got != 0x5a5a)
        fail_msg("%s:%d: '%s' wrote *out on failure", file, line, src);
}

#define CHECK(src, want) check_value_at((src), (want), __FILE__, __LINE__)
#define CHECK_FAILS(src, code) check_fails_at((src), (code), __FILE__, __LINE__)

/* Compilation must fail with code at column, the message containing words. */
static void check_compile_error_at(const char *src, int code, int column, const char *words,
                                   const char *file, int line)
{
    struct ht_expr *e = (struct ht_expr *)0x1;
    struct ht_error err;
    int rc;

    ht_error_clear(&err);
    rc = ht_expr_compile(src, &names, &e, &err);
    if (rc != code || err.code != code)
        fail_msg("%s:%d: compiling '%s' returned %s (err %s: %s), want %s", file, line, src,
                 ht_err_name(rc), ht_err_name(err.code), err.text, ht_err_name(code));
    if (e != NULL)
        fail_msg("%s:%d: '%s': *out not NULL on failure", file, line, src);
    if (err.column != column)
        fail_msg("%s:%d: '%s': column %d, want %d (%s)", file, line, src, err.column, column,
                 err.text);
    if (!strstr(err.text, words))
        fail_msg("%s:%d: '%s': message '%s' lacks '%s'", file, line, src, err.text, words);
}

#define CHECK_COMPILE_ERROR(src, code, column, words) \
    check_compile_error_at((src), (code), (column), (words), __FILE__, __LINE__)

/* ---------------------------------------------------------------------------------------- */

static void test_precedence(void **state)
{
    (void)state;
    CHECK("2+3*4", 14);
    CHECK("(2+3)*4", 20);
    CHECK("10-4-3", 3);
    CHECK("1 - 1 - 1", -1);
    CHECK("2*3%4", 2);
    CHECK("100 / 10 / 5", 2);
    CHECK("10 / 3 * 3", 9);
    CHECK("10 % 4 % 3", 2);
    CHECK("1 ? 2 : 0 ? 3 : 4", 2);
    CHECK("0 ? 2 : 0 ? 3 : 4", 4);
    CHECK("0 ? 2 : 1 ? 3 : 4", 3);
    CHECK("1 ? 0 ? 5 : 6 : 7", 6); /* the middle operand is a whole expression */
    CHECK("1 ? 2 : 3 + 1", 2);
    CHECK("0 ? 2 : 3 + 1", 4);
    CHECK("(1 ? 2 : 3) + 1", 3);
    CHECK("1 == 1 ? 10 : 20", 10);
    CHECK("0 || 1 ? 10 : 20", 10);
    CHECK("!0+1", 2);
    CHECK("!(0+1)", 0);
    CHECK("-2*-3", 6);
    CHECK("- -3", 3);
    CHECK("--3", 3);
    CHECK("+-+3", -3);
    CHECK("!!5", 1);
    CHECK("!-1", 0);
    CHECK("-!0", -1);
    CHECK("2 - -2", 4);
    CHECK("1<2==1", 1);
    CHECK("3>2>1", 0);
    CHECK("1 == 2 < 3", 1); /* 1 == (2 < 3) */
    CHECK("2 + 3 == 5 && 4 < 5", 1);
    CHECK("1 || 0 && 0", 1);
    CHECK("(1 || 0) && 0", 0);
    /* Bitwise operators and shifts sit where C puts them. */
    CHECK("1 << 2 + 1", 8);        /* 1 << (2 + 1) */
    CHECK("1 + 2 << 1", 6);        /* (1 + 2) << 1 */
    CHECK("1 << 3 < 9", 1);        /* (1 << 3) < 9 */
    CHECK("64 >> 2 >> 1", 8);      /* left associative */
    CHECK("6 & 3 == 3", 0);        /* 6 & (3 == 3): & is below ==, as in C */
    CHECK("(6 & 3) == 2", 1);
    CHECK("1 | 2 ^ 3 & 6", 1);     /* 1 | (2 ^ (3 & 6)) */
    CHECK("(1 | 2) ^ 3 & 6", 1);
    CHECK("12 & 10 | 1", 9);       /* (12 & 10) | 1 */
    CHECK("12 | 10 & 1", 12);      /* 12 | (10 & 1) */
    CHECK("5 ^ 3 | 8", 14);        /* (5 ^ 3) | 8 */
    CHECK("4 | 1 && 0", 0);        /* (4 | 1) && 0 */
    CHECK("0 && 0 | 1", 0);        /* 0 && (0 | 1) */
    CHECK("1 || 0 & 0", 1);
    CHECK("~0", -1);
    CHECK("~~5", 5);
    CHECK("-~5", 6);
    CHECK("~-5", 4);
    CHECK("!~-1", 1);
    CHECK("~1 + 1", -1);           /* (~1) + 1 */
    CHECK("~(1 + 1)", -3);
    CHECK("(TS & (TS - 1)) == 0", 1);
    CHECK("(M & (M - 1)) == 0", 0);
    CHECK("1<<2", 4);
    CHECK("8>>1", 4);
    CHECK("1 <= 2 << 1", 1);       /* 1 <= (2 << 1) */
    CHECK("3 >= 16 >> 2", 0);      /* 3 >= (16 >> 2) */
    CHECK("1 ? 2 : 3 | 4", 2);
    CHECK("0 && 0 || 1", 1);
    CHECK("1 != 2 != 0", 1);
    CHECK("5 <= 5 >= 1", 1);
    CHECK("N % TS == 0", 1);
    CHECK("M % TS == 0", 0);
    CHECK("max_work_item_size_0 / TS", 256);
    CHECK("2 * (3 + (4 - (5 * (6 - 7))))", 24);
    CHECK("\t 1 +\n 2\r\n ", 3);
    CHECK("7", 7);
    CHECK("  (((7)))  ", 7);
}

static void test_integer_semantics(void **state)
{
    (void)state;
    CHECK("-7/2", -3);
    CHECK("-7%2", -1);
    CHECK("7/-2", -3);
    CHECK("7%-2", 1);
    CHECK("-7/-2", 3);
    CHECK("-7%-2", -1);
    CHECK("A / B", -3);
    CHECK("A % B", -1);
    CHECK("0x10", 16);
    CHECK("0XfF + 0x0", 255);
    CHECK("0x7fffffffffffffff", INT64_MAX);
    CHECK("0x7FFFFFFFFFFFFFFF == 9223372036854775807", 1);
    CHECK("9223372036854775807", INT64_MAX);
    CHECK("-9223372036854775807 - 1", INT64_MIN);
    CHECK("007", 7); /* decimal, not octal: the language has decimal and hex literals only */
    CHECK("D", INT64_MIN);
    CHECK("D + 1", INT64_MIN + 1);
    CHECK("D / 1", INT64_MIN);
    CHECK("D % 2", 0);
    CHECK("D / 2", INT64_MIN / 2);
    CHECK("(D + 1) / -1", INT64_MAX);
    CHECK("3 * 3037000499 * 1", INT64_C(9111001497));
    CHECK("3037000499 * 3037000499", INT64_C(9223372030926249001));
    CHECK("5 > 3", 1);
    CHECK("5 < 3", 0);
    CHECK("7 && 9", 1);
    CHECK("0 || -4", 1);
    /* Bitwise: two's complement on 64 bits; >> is arithmetic (the floor of a / 2^b). */
    CHECK("A & 0xff", 249);
    CHECK("A | 3", -5);
    CHECK("A ^ -1", 6);
    CHECK("~A", 6);
    CHECK("D & E", INT64_MIN);
    CHECK("D | 1", INT64_MIN + 1);
    CHECK("~D", INT64_MAX);
    CHECK("D ^ E", INT64_MAX);
    CHECK("A >> 1", -4);
    CHECK("A >> 63", -1);
    CHECK("-1 >> 10", -1);
    CHECK("D >> 63", -1);
    CHECK("D >> 62", -2);
    CHECK("0x7fffffffffffffff >> 62", 1);
    CHECK("0x7fffffffffffffff >> 63", 0);
    CHECK("5 >> 0", 5);
    CHECK("1 << 62", INT64_C(1) << 62);
    CHECK("-1 << 63", INT64_MIN);
    CHECK("A << 2", -28);
    CHECK("0 << 63", 0);
    CHECK("(D >> 1) << 1", INT64_MIN);
    CHECK("0x3fffffffffffffff << 1", INT64_MAX - 1);
    CHECK("1 << TS", 16);
    CHECK("N >> log2(TS)", 6);
}

static void test_eval_errors(void **state)
{
    int64_t vars[NSLOTS], out;
    (void)state;

    CHECK_FAILS("1/0", HT_EDIVZERO);
    CHECK_FAILS("1%0", HT_EDIVZERO);
    CHECK_FAILS("N / C", HT_EDIVZERO);
    CHECK_FAILS("N % C", HT_EDIVZERO);
    CHECK_FAILS("N / (TS - 4)", HT_EDIVZERO);
    CHECK_FAILS("D / E", HT_EOVERFLOW);
    CHECK_FAILS("D % E", HT_EOVERFLOW);
    CHECK_FAILS("(-9223372036854775807 - 1) / -1", HT_EOVERFLOW);
    CHECK_FAILS("(-9223372036854775807 - 1) % -1", HT_EOVERFLOW);
    CHECK_FAILS("9223372036854775807 + 1", HT_EOVERFLOW);
    CHECK_FAILS("-9223372036854775807 - 2", HT_EOVERFLOW);
    CHECK_FAILS("D - 1", HT_EOVERFLOW);
    CHECK_FAILS("-D", HT_EOVERFLOW);
    CHECK_FAILS("D * E", HT_EOVERFLOW);
    CHECK_FAILS("3037000500 * 3037000500", HT_EOVERFLOW);
    CHECK_FAILS("0x7fffffffffffffff * 2", HT_EOVERFLOW);
    CHECK_FAILS("log2(0)", HT_EDOMAIN);
    CHECK_FAILS("log2(A)", HT_EDOMAIN);
    /* A shift by a negative amount or by 64 or more fails, as C leaves it undefined. */
    CHECK_FAILS("1 << -1", HT_EDOMAIN);
    CHECK_FAILS("1 >> -1", HT_EDOMAIN);
    CHECK_FAILS("1 << 64", HT_EDOMAIN);
    CHECK_FAILS("1 >> 64", HT_EDOMAIN);
    CHECK_FAILS("0 << 64", HT_EDOMAIN);
    CHECK_FAILS("N >> A", HT_EDOMAIN);
    CHECK_FAILS("N << D", HT_EDOMAIN);
    CHECK_FAILS("N << 0x7fffffffffffffff", HT_EDOMAIN);
    /* A left shift overflows where a * 2^b would. */
    CHECK_FAILS("1 << 63", HT_EOVERFLOW);
    CHECK_FAILS("2 << 62", HT_EOVERFLOW);
    CHECK_FAILS("-2 << 63", HT_EOVERFLOW);
    CHECK_FAILS("0x4000000000000000 << 1", HT_EOVERFLOW);
    CHECK_FAILS("D << 1", HT_EOVERFLOW);
    CHECK_FAILS("(D >> 1) - 1 << 1", HT_EOVERFLOW);
    CHECK("0 && 1 << 64", 0);
    CHECK_FAILS("1 << 64 & 0", HT_EDOMAIN);

    /* Short-circuit: the unevaluated side cannot fail. */
    CHECK("C == 0 ? 0 : M / C", 0);
    CHECK("N == 0 ? 0 : M / N", 0); /* M / 24 */
    CHECK("0 && 1/0", 0);
    CHECK("C && M / C", 0);
    CHECK("1 || 1/0", 1);
    CHECK("N || M / C", 1);
    CHECK("1 ? 5 : 1/0", 5);
    CHECK("0 ? 1/0 : 6", 6);
    CHECK("C ? log2(C) : 6", 6);
    CHECK("0 && log2(0) || 1", 1);
    CHECK_FAILS("1 && 1/0", HT_EDIVZERO);
    CHECK_FAILS("0 || 1/0", HT_EDIVZERO);
    CHECK_FAILS("1/0 ? 1 : 2", HT_EDIVZERO);
    CHECK_FAILS("(C == 0) ? M / C : 0", HT_EDIVZERO);

    /* Evaluation goes left to right; the first failure is the one returned. */
    CHECK_FAILS("1/0 + log2(0)", HT_EDIVZERO);
    CHECK_FAILS("log2(0) + 1/0", HT_EDOMAIN);
    CHECK_FAILS("min(-D, 1/0)", HT_EOVERFLOW);
    CHECK_FAILS("min(1/0, -D)", HT_EDIVZERO);

    /* The header's own example, with N from the variables. */
    memcpy(vars, defaults, sizeof vars);
    vars[S_N] = 0;
    assert_int_equal(eval_with("N == 0 ? 0 : M / N", vars, &out), 0);
    assert_int_equal(out, 0);
    vars[S_N] = 3;
    assert_int_equal(eval_with("N == 0 ? 0 : M / N", vars, &out), 0);
    assert_int_equal(out, 3);
    vars[S_N] = INT64_MIN;
    vars[S_M] = -1;
    assert_int_equal(eval_with("N / M", vars, &out), HT_EOVERFLOW);
    assert_int_equal(eval_with("ceil_div(N, M)", vars, &out), HT_EOVERFLOW);

    /* Bad arguments. */
    assert_int_equal(ht_expr_eval(NULL, defaults, &out), HT_EINVAL);
}

static void test_functions(void **state)
{
    (void)state;
    CHECK("min(3, 5)", 3);
    CHECK("min(5, 3)", 3);
    CHECK("min(-3, 3)", -3);
    CHECK("max(-3, 3)", 3);
    CHECK("max(-3, -5)", -3);
    CHECK("min(D, 0x7fffffffffffffff)", INT64_MIN);
    CHECK("max(D, 0x7fffffffffffffff)", INT64_MAX);
    CHECK("min(N, max_work_item_size_0)", 24);
    CHECK("max ( 1 , min(2, 3) )", 2);

    CHECK("ceil_div(7, 2)", 4);
    CHECK("ceil_div(6, 2)", 3);
    CHECK("ceil_div(-7, 2)", -3);
    CHECK("ceil_div(7, -2)", -3);
    CHECK("ceil_div(-7, -2)", 4);
    CHECK("ceil_div(-6, -2)", 3);
    CHECK("ceil_div(-6, 3)", -2);
    CHECK("ceil_div(0, 5)", 0);
    CHECK("ceil_div(0, -5)", 0);
    CHECK("ceil_div(1, 0x7fffffffffffffff)", 1);
    CHECK("ceil_div(-1, 0x7fffffffffffffff)", 0);
    CHECK("ceil_div(0x7fffffffffffffff, 2)", INT64_C(1) << 62);
    CHECK("ceil_div(D, 2)", -(INT64_C(1) << 62));
    CHECK("ceil_div(D, -2)", INT64_C(1) << 62);
    CHECK("ceil_div(D, D)", 1);
    CHECK("ceil_div(N, TS)", 6);
    CHECK("ceil_div(M, TS)", 3);
    CHECK_FAILS("ceil_div(5, 0)", HT_EDIVZERO);
    CHECK_FAILS("ceil_div(0, C)", HT_EDIVZERO);
    CHECK_FAILS("ceil_div(D, -1)", HT_EOVERFLOW);

    CHECK("is_pow2(0)", 0);
    CHECK("is_pow2(1)", 1);
    CHECK("is_pow2(2)", 1);
    CHECK("is_pow2(3)", 0);
    CHECK("is_pow2(64)", 1);
    CHECK("is_pow2(96)", 0);
    CHECK("is_pow2(-4)", 0);
    CHECK("is_pow2(D)", 0);
    CHECK("is_pow2(0x4000000000000000)", 1);
    CHECK("is_pow2(0x7fffffffffffffff)", 0);
    CHECK("is_pow2(TS) + is_pow2(M)", 1);

    CHECK("log2(1)", 0);
    CHECK("log2(2)", 1);
    CHECK("log2(3)", 1);
    CHECK("log2(1023)", 9);
    CHECK("log2(1024)", 10);
    CHECK("log2(1025)", 10);
    CHECK("log2(0x7fffffffffffffff)", 62);
    CHECK("log2(0x4000000000000000)", 62);
    CHECK("log2(max_work_item_size_0)", 10);
    CHECK_FAILS("log2(-8)", HT_EDOMAIN);
    CHECK_FAILS("log2(D)", HT_EDOMAIN);
    CHECK_FAILS("log2(C)", HT_EDOMAIN);

    CHECK("min(max(1, 2), ceil_div(log2(1024), is_pow2(4)))", 2);
    CHECK("ceil_div(max_work_item_size_0, min(TS, 3)) * 3 >= max_work_item_size_0", 1);
}

static void test_syntax_errors(void **state)
{
    (void)state;
    CHECK_COMPILE_ERROR("", HT_EPARSE, 1, "empty expression");
    CHECK_COMPILE_ERROR("   ", HT_EPARSE, 1, "empty expression");
    CHECK_COMPILE_ERROR("1 +", HT_EPARSE, 4, "but found end of expression");
    CHECK_COMPILE_ERROR("1 + ", HT_EPARSE, 5, "expected a number, a name or '('");
    CHECK_COMPILE_ERROR("(1 + 2", HT_EPARSE, 7, "expected ')' but found end of expression");
    CHECK_COMPILE_ERROR("((1 + 2) * 3", HT_EPARSE, 13, "expected ')' but found end of expression");
    CHECK_COMPILE_ERROR("(1 + 2 3)", HT_EPARSE, 8, "expected ')' but found '3'");
    CHECK_COMPILE_ERROR("1 $ 2", HT_EPARSE, 3, "unexpected character '$'");
    CHECK_COMPILE_ERROR("N#", HT_EPARSE, 2, "unexpected character '#'");
    CHECK_COMPILE_ERROR("1 & & 2", HT_EPARSE, 5, "but found '&'");
    CHECK_COMPILE_ERROR("1 | | 2", HT_EPARSE, 5, "but found '|'");
    CHECK_COMPILE_ERROR("1 <<< 2", HT_EPARSE, 5, "but found '<'");
    CHECK_COMPILE_ERROR("1 ~ 2", HT_EPARSE, 3, "expected an operator but found '~'");
    CHECK_COMPILE_ERROR("1 >> ", HT_EPARSE, 6, "but found end of expression");
    CHECK_COMPILE_ERROR("N = 2", HT_EPARSE, 3, "did you mean '=='?");
    CHECK_COMPILE_ERROR("1 + \xc3\xa9", HT_EPARSE, 5, "unexpected byte 0xc3");
    CHECK_COMPILE_ERROR("1 +\x01", HT_EPARSE, 4, "unexpected byte 0x01");
    CHECK_COMPILE_ERROR("N\xc3\xa9", HT_EPARSE, 2, "unexpected byte 0xc3");
    CHECK_COMPILE_ERROR("1 2", HT_EPARSE, 3, "expected an operator but found '2'");
    CHECK_COMPILE_ERROR("N M", HT_EPARSE, 3, "expected an operator but found 'M'");
    CHECK_COMPILE_ERROR("1 + 2)", HT_EPARSE, 6, "unmatched ')'");
    CHECK_COMPILE_ERROR("1 ? 2", HT_EPARSE, 6, "expected ':' but found end of expression");
    CHECK_COMPILE_ERROR("1 ? 2 , 3", HT_EPARSE, 7, "expected ':' but found ','");
    CHECK_COMPILE_ERROR("1 : 2", HT_EPARSE, 3, "expected an operator but found ':'");
    CHECK_COMPILE_ERROR("? 1", HT_EPARSE, 1, "expected a number, a name or '(' but found '?'");
    CHECK_COMPILE_ERROR("()", HT_EPARSE, 2, "but found ')'");
    CHECK_COMPILE_ERROR("1 +* 2", HT_EPARSE, 4, "but found '*'");
    CHECK_COMPILE_ERROR("min(1 2)", HT_EPARSE, 7, "expected ',' or ')' but found '2'");
    CHECK_COMPILE_ERROR("min(1,", HT_EPARSE, 7, "but found end of expression");
    CHECK_COMPILE_ERROR("min(,1)", HT_EPARSE, 5, "but found ','");
    CHECK_COMPILE_ERROR("max(1, 2", HT_EPARSE, 9, "expected ',' or ')' but found end");
    CHECK_COMPILE_ERROR("12ab", HT_EPARSE, 1, "invalid number '12ab'");
    CHECK_COMPILE_ERROR("1 + 0x", HT_EPARSE, 5, "invalid number '0x'");
    CHECK_COMPILE_ERROR("0xfg", HT_EPARSE, 1, "invalid number '0xfg'");
    CHECK_COMPILE_ERROR("9223372036854775808", HT_EPARSE, 1, "out of range");
    CHECK_COMPILE_ERROR("-9223372036854775808", HT_EPARSE, 2, "out of range");
    CHECK_COMPILE_ERROR("1 + 99999999999999999999", HT_EPARSE, 5,
                        "number '99999999999999999999' is out of range");
    CHECK_COMPILE_ERROR("0x8000000000000000", HT_EPARSE, 1, "out of range");
    CHECK_COMPILE_ERROR("0x10000000000000000", HT_EPARSE, 1, "out of range");
    /* The first problem from the left wins. */
    CHECK_COMPILE_ERROR("TZ $", HT_EEXPR, 1, "unknown name 'TZ'");
    CHECK_COMPILE_ERROR("1 $ TZ", HT_EPARSE, 3, "unexpected character '$'");
}

static void test_semantic_errors(void **state)
{
    char deep[512];
    struct ht_expr *e;
    struct ht_error err;
    int64_t out;
    (void)state;

    CHECK_COMPILE_ERROR("TZ + 1", HT_EEXPR, 1, "unknown name 'TZ'");
    CHECK_COMPILE_ERROR("N + TZ", HT_EEXPR, 5, "unknown name 'TZ'");
    CHECK_COMPILE_ERROR("  n", HT_EEXPR, 3, "unknown name 'n'"); /* names are case-sensitive */
    CHECK_COMPILE_ERROR("N_", HT_EEXPR, 1, "unknown name 'N_'");
    CHECK_COMPILE_ERROR("min", HT_EEXPR, 1, "unknown name 'min'");
    CHECK_COMPILE_ERROR("  foo(1)", HT_EEXPR, 3, "unknown function 'foo'");
    CHECK_COMPILE_ERROR("N(1)", HT_EEXPR, 1, "unknown function 'N'");
    CHECK_COMPILE_ERROR("min(1)", HT_EEXPR, 1, "min() takes 2 arguments");
    CHECK_COMPILE_ERROR("1 + max()", HT_EEXPR, 5, "max() takes 2 arguments");
    CHECK_COMPILE_ERROR("ceil_div(1, 2, 3)", HT_EEXPR, 1, "ceil_div() takes 2 arguments");
    CHECK_COMPILE_ERROR("log2(1, 2)", HT_EEXPR, 1, "log2() takes 1 argument");
    CHECK_COMPILE_ERROR("is_pow2()", HT_EEXPR, 1, "is_pow2() takes 1 argument");
    CHECK_COMPILE_ERROR("min(1, TZ)", HT_EEXPR, 8, "unknown name 'TZ'");

    /* Nesting: 63 parentheses need a 64-entry stack and compile; one more is refused (the
     * outermost addition, column 2, would need 65 entries). */
    deep[0] = '\0';
    for (int i = 0; i < 63; i++)
        strcat(deep, "1+(");
    strcat(deep, "1");
    for (int i = 0; i < 63; i++)
        strcat(deep, ")");
    assert_int_equal(eval_with(deep, defaults, &out), 0);
    assert_int_equal(out, 64);
    deep[0] = '\0';
    for (int i = 0; i < 64; i++)
        strcat(deep, "1+(");
    strcat(deep, "1");
    for (int i = 0; i < 64; i++)
        strcat(deep, ")");
    CHECK_COMPILE_ERROR(deep, HT_EEXPR, 2, "expression too deep");
    /* 64 levels of nesting are allowed, the 65th is refused where it starts. */
    memset(deep, '(', 64);
    strcpy(deep + 64, "7");
    memset(deep + 65, ')', 64);
    deep[129] = '\0';
    assert_int_equal(eval_with(deep, defaults, &out), 0);
    assert_int_equal(out, 7);
    memset(deep, '(', 200);
    strcpy(deep + 200, "1");
    CHECK_COMPILE_ERROR(deep, HT_EEXPR, 65, "expression too deep");
    memset(deep, '-', 300);
    strcpy(deep + 300, "1");
    CHECK_COMPILE_ERROR(deep, HT_EEXPR, 65, "expression too deep");
    deep[0] = '\0';
    for (int i = 0; i < 70; i++)
        strcat(deep, "0?1:");
    strcat(deep, "2");
    CHECK_COMPILE_ERROR(deep, HT_EEXPR, 4 * 64 + 2, "expression too deep");
    deep[0] = '\0';
    for (int i = 0; i < 70; i++)
        strcat(deep, "min(1,");
    CHECK_COMPILE_ERROR(deep, HT_EEXPR, 6 * 64 + 4, "expression too deep");
    {
        /* A long flat chain nests nothing but makes a tall tree. */
        char *chain = malloc(4 * 400 + 2);
        assert_non_null(chain);
        strcpy(chain, "1");
        for (int i = 0; i < 200; i++)
            strcat(chain, " + 1");
        assert_int_equal(eval_with(chain, defaults, &out), 0);
        assert_int_equal(out, 201);
        for (int i = 200; i < 400; i++)
            strcat(chain, " + 1");
        ht_error_clear(&err);
        e = NULL;
        assert_int_equal(ht_expr_compile(chain, &names, &e, &err), HT_EEXPR);
        assert_null(e);
        assert_string_equal(err.text, "expression too deep");
        free(chain);
    }

    /* The report keeps the caller's location fields and an earlier error. */
    ht_error_clear(&err);
    strcpy(err.file, "spec.json");
    err.line = 12;
    strcpy(err.field, "constraints[0]");
    assert_int_equal(ht_expr_compile("N % TZ == 0", &names, &e, &err), HT_EEXPR);
    assert_string_equal(err.file, "spec.json");
    assert_int_equal(err.line, 12);
    assert_string_equal(err.field, "constraints[0]");
    assert_int_equal(err.column, 5);
    assert_string_equal(err.text, "unknown name 'TZ'");
    assert_int_equal(ht_expr_compile("1 +", &names, &e, &err), HT_EPARSE);
    assert_int_equal(err.code, HT_EEXPR);
    assert_int_equal(err.column, 5);
    assert_string_equal(err.text, "unknown name 'TZ'");

    /* NULL err is allowed, as are a NULL or empty name table for constant expressions. */
    e = NULL;
    assert_int_equal(ht_expr_compile("1 +", &names, &e, NULL), HT_EPARSE);
    assert_null(e);
    assert_int_equal(ht_expr_compile("2 * 3", NULL, &e, NULL), 0);
    assert_int_equal(ht_expr_eval(e, NULL, &out), 0);
    assert_int_equal(out, 6);
    ht_expr_free(e);
    assert_int_equal(ht_expr_compile("N", NULL, &e, NULL), HT_EEXPR);
    assert_int_equal(ht_expr_compile(NULL, &names, &e, NULL), HT_EINVAL);
    ht_expr_free(NULL);
}

static void test_introspection(void **state)
{
    struct ht_expr *e;
    char *src;
    (void)state;

    e = compile_ok("N % TS == 0");
    assert_int_equal(ht_expr_uses(e, S_N), 1);
    assert_int_equal(ht_expr_uses(e, S_M), 0);
    assert_int_equal(ht_expr_uses(e, S_TS), 1);
    assert_int_equal(ht_expr_uses(e, S_MWI), 0);
    assert_int_equal(ht_expr_uses(e, 1000), 0);
    assert_int_equal(ht_expr_max_slot(e), S_TS);
    ht_expr_free(e);

    e = compile_ok("1 + 2 * 3");
    for (size_t s = 0; s < NSLOTS; s++)
        assert_int_equal(ht_expr_uses(e, s), 0);
    assert_int_equal(ht_expr_max_slot(e), -1);
    ht_expr_free(e);

    /* Uses are what the text reads, even where short-circuit never gets there. */
    e = compile_ok("0 && max_work_item_size_0 + A + A");
    assert_int_equal(ht_expr_uses(e, S_MWI), 1);
    assert_int_equal(ht_expr_uses(e, S_A), 1);
    assert_int_equal(ht_expr_uses(e, S_N), 0);
    assert_int_equal(ht_expr_max_slot(e), S_MWI);
    ht_expr_free(e);

    e = compile_ok("1 ? M : N");
    assert_int_equal(ht_expr_uses(e, S_M), 1);
    assert_int_equal(ht_expr_uses(e, S_N), 1);
    assert_int_equal(ht_expr_max_slot(e), S_M);
    ht_expr_free(e);

    assert_int_equal(ht_expr_uses(NULL, 0), 0);
    assert_int_equal(ht_expr_max_slot(NULL), -1);

    /* The source is copied: it outlives the caller's buffer. */
    src = strdup("  min(N, TS) * 2 ");
    assert_non_null(src);
    e = compile_ok(src);
    memset(src, 'x', strlen(src));
    free(src);
    assert_string_equal(ht_expr_source(e), "  min(N, TS) * 2 ");
    ht_expr_free(e);
}

/* ---------------------------------------------------------------------------------------- */
/* MiniZinc output. */

static void check_mzn_at(const char *src, int as_bool, const char *want, const char *file,
                         int line)
{
    struct ht_expr *e = compile_ok(src);
    struct ht_error err;
    char *out = NULL;
    int rc;

    ht_error_clear(&err);
    rc = ht_expr_to_minizinc(e, &names, as_bool, &out, &err);
    ht_expr_free(e);
    if (rc != 0)
        fail_msg("%s:%d: to_minizinc('%s') failed: %s", file, line, src, err.text);
    if (strcmp(out, want) != 0) {
        fprintf(stderr, "%s:%d: to_minizinc('%s', %d)\n  got  %s\n  want %s\n", file, line, src,
                as_bool, out, want);
        free(out);
        fail();
    }
    free(out);
}

#define CHECK_MZN(src, as_bool, want) check_mzn_at((src), (as_bool), (want), __FILE__, __LINE__)

static void test_minizinc_text(void **state)
{
    struct ht_expr *e;
    struct ht_error err;
    char *out;
    (void)state;

    /* Total expressions. */
    CHECK_MZN("N / 2", 0,
              "(N div 2)");
    CHECK_MZN("~A", 0,
              "((-A) - 1)");
    CHECK_MZN("~A", 1,
              "(((-A) - 1) != 0)");
    /* Shifts: partial where the amount may leave 0..63, total by a literal inside it. */
    CHECK_MZN("A << 3", 0,
              "(A * pow(2, max(0, min(3, 62))) * (if 3 > 62 then 2 else 1 endif))");
    CHECK_MZN("A >> B", 1,
              "(((B >= 0) /\\ (B <= 63)) /\\ ((if B > 62 then (if A < 0 then -1 else 0 endif) "
              "else ((A div pow(2, max(0, B))) - (if (A mod pow(2, max(0, B))) < 0 then 1 else "
              "0 endif)) endif) != 0))");
    CHECK_MZN("N / A << 1", 0,
              "(let { constraint (A != 0) } in (let { any: ht_t1 = (N div A) } in (ht_t1 * "
              "pow(2, max(0, min(1, 62))) * (if 1 > 62 then 2 else 1 endif))))");
    /* & ^ | have no MiniZinc form: refused, naming the operator. */
    {
        static const char *const refused[][2] = {
            {"(TS & (TS - 1)) == 0", "'&'"}, {"N ^ 1", "'^'"}, {"0 && (N | 1)", "'|'"}};
        for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
            e = compile_ok(refused[k][0]);
            out = (char *)0x1;
            ht_error_clear(&err);
            assert_int_equal(ht_expr_to_minizinc(e, &names, 1, &out, &err), HT_EEXPR);
            assert_null(out);
            assert_non_null(strstr(err.text, refused[k][1]));
            assert_non_null(strstr(err.text, "no MiniZinc equivalent"));
            assert_non_null(strstr(err.text, refused[k][0]));
            ht_expr_free(e);
        }
    }
    CHECK_MZN("N / 2", 1,
              "((N div 2) != 0)");
    CHECK_MZN("A && !B || C", 1,
              "(((A != 0) /\\ (not (B != 0))) \\/ (C != 0))");
    CHECK_MZN("A && B", 0,
              "(if ((A != 0) /\\ (B != 0)) then 1 else 0 endif)");
    CHECK_MZN("N ? A < B : C", 1,
              "(if (N != 0) then (A < B) else (C != 0) endif)");
    CHECK_MZN("N ? A < B : C", 0,
              "(if (N != 0) then (if (A < B) then 1 else 0 endif) else C endif)");
    CHECK_MZN("(A < B) + 1", 0,
              "((if (A < B) then 1 else 0 endif) + 1)");
    CHECK_MZN("(A < B) == (C >= D)", 1,
              "((if (A < B) then 1 else 0 endif) = (if (C >= D) then 1 else 0 endif))");
    CHECK_MZN("A <= B != (C > D)", 1,
              "((if (A <= B) then 1 else 0 endif) != (if (C > D) then 1 else 0 endif))");
    CHECK_MZN("-A * +B - 3", 0,
              "(((-A) * B) - 3)");
    CHECK_MZN("- -A", 0,
              "(-(-A))");
    CHECK_MZN("!!A", 1,
              "(not (not (A != 0)))");
    CHECK_MZN("min(A, max(B, 3))", 0,
              "min(A, max(B, 3))");
    CHECK_MZN("0x10", 0,
              "16");
    CHECK_MZN("max_work_item_size_0 >= TS", 1,
              "(max_work_item_size_0 >= TS)");
    CHECK_MZN("ceil_div(A, 4)", 0,
              "((A div 4) + (if ((A mod 4) != 0) /\\ ((A > 0) = (4 > 0)) then 1 else 0"
              " endif))");
    CHECK_MZN("is_pow2(TS)", 1,
              "((TS > 0) /\\ exists(ht_k in 0..62)(pow(2, ht_k) = TS))");
    CHECK_MZN("is_pow2(TS * 2)", 0,
              "(if (let { any: ht_t1 = (TS * 2) } in ((ht_t1 > 0) /\\ exists(ht_k in"
              " 0..62)(pow(2, ht_k) = ht_t1))) then 1 else 0 endif)");
    CHECK_MZN("log2(1024)", 0,
              "sum(ht_k in 1..62)(if pow(2, ht_k) <= 1024 then 1 else 0 endif)");

    /* Partial expressions carry the condition under which native evaluation succeeds. */
    CHECK_MZN("N % TS == 0", 1,
              "((TS != 0) /\\ ((N mod TS) = 0))");
    CHECK_MZN("N % TS == 0", 0,
              "(let { constraint (TS != 0) } in (if ((N mod TS) = 0) then 1 else 0 endif))");
    CHECK_MZN("N == 0 ? 0 : M / N", 0,
              "(let { constraint ((N = 0) \\/ (N != 0)) } in (if (N = 0) then 0 else (M div"
              " N) endif))");
    CHECK_MZN("C && A / C", 1,
              "(((not (C != 0)) \\/ (C != 0)) /\\ ((C != 0) /\\ ((A div C) != 0)))");
    CHECK_MZN("C || log2(A)", 1,
              "(((C != 0) \\/ (A > 0)) /\\ ((C != 0) \\/ (sum(ht_k in 1..62)(if pow(2, ht_k)"
              " <= A then 1 else 0 endif) != 0)))");
    CHECK_MZN("C ? A / B : log2(A)", 0,
              "(let { constraint (if (C != 0) then (B != 0) else (A > 0) endif) } in (if (C"
              " != 0) then (A div B) else sum(ht_k in 1..62)(if pow(2, ht_k) <= A then 1"
              " else 0 endif) endif))");
    CHECK_MZN("A / B / C", 0,
              "(let { constraint ((B != 0) /\\ (C != 0)) } in ((A div B) div C))");
    CHECK_MZN("ceil_div(A + 1, B)", 0,
              "(let { constraint (B != 0) } in (let { any: ht_t1 = (A + 1) } in ((ht_t1 div"
              " B) + (if ((ht_t1 mod B) != 0) /\\ ((ht_t1 > 0) = (B > 0)) then 1 else 0"
              " endif))))");
    CHECK_MZN("log2(N)", 0,
              "(let { constraint (N > 0) } in sum(ht_k in 1..62)(if pow(2, ht_k) <= N then 1"
              " else 0 endif))");
    CHECK_MZN("1 / 0", 1,
              "((0 != 0) /\\ ((1 div 0) != 0))");

    /* Temporaries never collide with the caller's names. */
    {
        static const char *const clash_list[] = {"x", "ht_k", "ht__y"};
        static const struct ht_names clash = {3, clash_list};
        e = NULL;
        ht_error_clear(&err);
        assert_int_equal(ht_expr_compile("log2(x + 1) + log2(ht_k)", &clash, &e, &err), 0);
        out = NULL;
        assert_int_equal(ht_expr_to_minizinc(e, &clash, 0, &out, &err), 0);
        assert_string_equal(out,
                            "(let { constraint (((x + 1) > 0) /\\ (ht_k > 0)) } in ((let { any: "
                            "ht___t1 = (x + 1) } in sum(ht___k in 1..62)(if pow(2, ht___k) <= "
                            "ht___t1 then 1 else 0 endif)) + sum(ht___k in 1..62)(if pow(2, "
                            "ht___k) <= ht_k then 1 else 0 endif)))");
        free(out);

        /* A name too long to repeat inline is bound to a temporary, never cut. */
        {
            char longname[160], src[200], want[600];
            const char *long_list[1] = {longname};
            struct ht_expr *le = NULL;
            char *lout = NULL;
            memset(longname, 'n', 150);
            longname[150] = '\0';
            snprintf(src, sizeof src, "is_pow2(%s)", longname);
            snprintf(want, sizeof want,
                     "(let { any: ht_t1 = %s } in ((ht_t1 > 0) /\\ exists(ht_k in 0..62)(pow(2, "
                     "ht_k) = ht_t1)))",
                     longname);
            assert_int_equal(ht_expr_compile(src, &(struct ht_names){1, long_list}, &le, NULL), 0);
            assert_int_equal(
                ht_expr_to_minizinc(le, &(struct ht_names){1, long_list}, 1, &lout, NULL), 0);
            assert_string_equal(lout, want);
            free(lout);
            ht_expr_free(le);
        }

        /* A table that lacks a slot the expression reads is refused. */
        out = (char *)0x1;
        ht_error_clear(&err);
        assert_int_equal(ht_expr_to_minizinc(e, &(struct ht_names){1, clash_list}, 0, &out, &err),
                         HT_EINVAL);
        assert_null(out);
        assert_int_equal(err.code, HT_EINVAL);
        ht_expr_free(e);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Random trees, printed with C precedence and evaluated by a reference written here. */

enum rkind {
    R_NUM, R_VAR, R_NEG, R_NOT, R_ADD, R_SUB, R_MUL, R_DIV, R_MOD, R_LT, R_LE, R_GT, R_GE,
    R_EQ, R_NE, R_AND, R_OR, R_COND, R_MIN, R_MAX, R_CEIL, R_POW2, R_LOG2, R_BNOT, R_SHL,
    R_SHR, R_BAND, R_BXOR, R_BOR, R_NKINDS
};

struct rnode {
    enum rkind kind;
    int64_t v; /* literal or slot */
    struct rnode *a, *b, *c;
};

struct rtree {
    struct rnode pool[512];
    int n;
    struct ht__rng rng;
    int use_vars;
    int small; /* small literals only (for MiniZinc) */
};

static uint64_t rnd(struct rtree *t, uint64_t n)
{
    return ht__rng_next(&t->rng) % n;
}

static struct rnode *gen_tree(struct rtree *t, int depth)
{
    struct rnode *n = &t->pool[t->n++];
    memset(n, 0, sizeof *n);
    if (depth == 0 || rnd(t, 5) == 0) {
        if (t->use_vars && rnd(t, 2) == 0) {
            n->kind = R_VAR;
            n->v = (int64_t)(S_A + rnd(t, 5)); /* A..E */
        } else {
            static const int64_t big[] = {INT64_MAX, INT64_C(1) << 62, INT64_C(1) << 32,
                                          INT64_C(3037000499), INT64_C(3037000500),
                                          INT64_MAX - 1};
            n->kind = R_NUM;
            if (!t->small && rnd(t, 8) == 0)
                n->v = big[rnd(t, sizeof big / sizeof big[0])];
            else
                n->v = (int64_t)rnd(t, t->small ? 12 : 20);
        }
        return n;
    }
    do
        n->kind = (enum rkind)(R_NEG + rnd(t, R_NKINDS - R_NEG));
    while (t->small && n->kind >= R_BAND); /* & ^ | have no MiniZinc form */
    n->a = gen_tree(t, depth - 1);
    if (t->small && (n->kind == R_SHL || n->kind == R_SHR)) {
        /* A shift amount MiniZinc can take: a name (-20..20) or a literal up to 12, so that
         * no value leaves 64 bits there. */
        n->b = &t->pool[t->n++];
        memset(n->b, 0, sizeof *n->b);
        if (rnd(t, 2)) {
            n->b->kind = R_VAR;
            n->b->v = (int64_t)(S_A + rnd(t, 5));
        } else {
            n->b->kind = R_NUM;
            n->b->v = (int64_t)rnd(t, 13);
        }
    } else if (n->kind != R_NEG && n->kind != R_NOT && n->kind != R_POW2 && n->kind != R_LOG2 &&
               n->kind != R_BNOT) {
        n->b = gen_tree(t, depth - 1);
    }
    if (n->kind == R_COND)
        n->c = gen_tree(t, depth - 1);
    return n;
}

typedef __int128 i128;

struct rref {
    const int64_t *vars;
    i128 maxabs; /* the largest magnitude of any value computed */
};

/* Returns 0 and *out, or the error code the language defines. Written independently of
 * src/expr: 128-bit arithmetic with a range check instead of overflow builtins, and the
 * ceiling from the floor. */
static int ref_eval(struct rref *r, const struct rnode *n, int64_t *out)
{
    int64_t a = 0, b = 0;
    i128 v = 0;
    int rc;

    switch (n->kind) {
    case R_NUM:
        *out = n->v;
        return 0;
    case R_VAR:
        *out = r->vars[n->v];
        return 0;
    case R_AND:
    case R_OR:
        if ((rc = ref_eval(r, n->a, &a)))
            return rc;
        if ((n->kind == R_AND) == (a == 0)) {
            *out = a != 0;
            return 0;
        }
        if ((rc = ref_eval(r, n->b, &b)))
            return rc;
        *out = b != 0;
        return 0;
    case R_COND:
        if ((rc = ref_eval(r, n->a, &a)))
            return rc;
        return ref_eval(r, a ? n->b : n->c, out);
    default:
        break;
    }
    if ((rc = ref_eval(r, n->a, &a)))
        return rc;
    if (n->b && (rc = ref_eval(r, n->b, &b)))
        return rc;
    switch (n->kind) {
    case R_NEG: v = -(i128)a; break;
    case R_NOT: v = a == 0; break;
    case R_ADD: v = (i128)a + b; break;
    case R_SUB: v = (i128)a - b; break;
    case R_MUL: v = (i128)a * b; break;
    case R_DIV:
    case R_MOD:
        if (b == 0)
            return HT_EDIVZERO;
        v = n->kind == R_DIV ? (i128)a / b : (i128)a % b;
        if (n->kind == R_MOD && (i128)a / b > INT64_MAX)
            return HT_EOVERFLOW; /* INT64_MIN % -1: the quotient does not fit */
        break;
    case R_LT: v = a < b; break;
    case R_LE: v = a <= b; break;
    case R_GT: v = a > b; break;
    case R_GE: v = a >= b; break;
    case R_EQ: v = a == b; break;
    case R_NE: v = a != b; break;
    case R_MIN: v = a < b ? a : b; break;
    case R_MAX: v = a > b ? a : b; break;
    case R_CEIL: {
        /* ceil(a / b) = -floor(-a / b), floor from the truncated quotient. */
        i128 x = -(i128)a, q;
        if (b == 0)
            return HT_EDIVZERO;
        q = x / b;
        if (x % b != 0 && ((x < 0) != (b < 0)))
            q -= 1;
        v = -q;
        break;
    }
    case R_POW2: {
        v = 0;
        for (int k = 0; k < 63; k++)
            if (a == (int64_t)(INT64_C(1) << k))
                v = 1;
        break;
    }
    case R_LOG2:
        if (a <= 0)
            return HT_EDOMAIN;
        v = 0;
        while (((i128)1 << (v + 1)) <= a)
            v++;
        break;
    case R_BNOT: v = -(i128)a - 1; break;
    case R_SHL:
    case R_SHR: {
        /* a * 2^b, or the floor of a / 2^b, in 128 bits. */
        i128 d;
        if (b < 0 || b > 63)
            return HT_EDOMAIN;
        d = (i128)1 << b;
        if (n->kind == R_SHL) {
            v = (i128)a * d;
        } else {
            v = (i128)a / d;
            if ((i128)a % d != 0 && a < 0)
                v -= 1;
        }
        break;
    }
    case R_BAND:
    case R_BXOR:
    case R_BOR: {
        /* Bit by bit over the two's complement words. */
        uint64_t x = (uint64_t)a, y = (uint64_t)b, z = 0;
        for (int k = 0; k < 64; k++) {
            unsigned bx = (unsigned)(x >> k) & 1u, by = (unsigned)(y >> k) & 1u;
            unsigned bz = n->kind == R_BAND ? bx & by : n->kind == R_BOR ? bx | by : bx ^ by;
            z |= (uint64_t)bz << k;
        }
        v = (int64_t)z;
        break;
    }
    default:
        fail_msg("bad node kind %d", n->kind);
    }
    if (v > INT64_MAX || v < INT64_MIN)
        return HT_EOVERFLOW;
    if ((v < 0 ? -v : v) > r->maxabs)
        r->maxabs = v < 0 ? -v : v;
    *out = (int64_t)v;
    return 0;
}

/* Precedence levels as in C: 1 ?:, 2 ||, 3 &&, 4 |, 5 ^, 6 &, 7 == !=, 8 relational,
 * 9 shifts, 10 additive, 11 multiplicative, 12 unary, 13 primary. */
enum { P_UNARY = 12 };

static int prec_of(enum rkind k)
{
    switch (k) {
    case R_COND: return 1;
    case R_OR: return 2;
    case R_AND: return 3;
    case R_BOR: return 4;
    case R_BXOR: return 5;
    case R_BAND: return 6;
    case R_EQ: case R_NE: return 7;
    case R_LT: case R_LE: case R_GT: case R_GE: return 8;
    case R_SHL: case R_SHR: return 9;
    case R_ADD: case R_SUB: return 10;
    case R_MUL: case R_DIV: case R_MOD: return 11;
    case R_NEG: case R_NOT: case R_BNOT: return P_UNARY;
    default: return 13;
    }
}

struct buf {
    char s[16384];
    size_t len;
};

static void add(struct buf *b, const char *text)
{
    size_t n = strlen(text);
    assert_true(b->len + n < sizeof b->s);
    memcpy(b->s + b->len, text, n + 1);
    b->len += n;
}

static void space(struct rtree *t, struct buf *b)
{
    static const char *const spaces[] = {"", "", " ", " ", "\t", "  \n"};
    add(b, spaces[rnd(t, 6)]);
}

/* Prints n so that it parses back to the same tree with C precedence and associativity,
 * with as few parentheses as that needs plus some random extra ones. */
static void render(struct rtree *t, struct buf *b, const struct rnode *n, int min_prec)
{
    static const char *const op[R_NKINDS] = {
        [R_NEG] = "-", [R_NOT] = "!",  [R_ADD] = "+",  [R_SUB] = "-",   [R_MUL] = "*",
        [R_DIV] = "/", [R_MOD] = "%",  [R_LT] = "<",   [R_LE] = "<=",   [R_GT] = ">",
        [R_GE] = ">=", [R_EQ] = "==",  [R_NE] = "!=",  [R_AND] = "&&",  [R_OR] = "||",
        [R_MIN] = "min", [R_MAX] = "max", [R_CEIL] = "ceil_div", [R_POW2] = "is_pow2",
        [R_LOG2] = "log2", [R_BNOT] = "~", [R_SHL] = "<<", [R_SHR] = ">>", [R_BAND] = "&",
        [R_BXOR] = "^", [R_BOR] = "|",
    };
    int p = prec_of(n->kind);
    int paren = p < min_prec || rnd(t, 10) == 0;
    char num[32];

    if (paren)
        add(b, "(");
    space(t, b);
    switch (n->kind) {
    case R_NUM:
        if (rnd(t, 4) == 0)
            snprintf(num, sizeof num, rnd(t, 2) ? "0x%llx" : "0X%llX", (unsigned long long)n->v);
        else
            snprintf(num, sizeof num, "%lld", (long long)n->v);
        add(b, num);
        break;
    case R_VAR:
        add(b, names_list[n->v]);
        break;
    case R_NEG:
    case R_NOT:
    case R_BNOT:
        add(b, op[n->kind]);
        space(t, b);
        render(t, b, n->a, P_UNARY);
        break;
    case R_COND:
        render(t, b, n->a, 2);
        space(t, b);
        add(b, "?");
        render(t, b, n->b, 1);
        add(b, ":");
        render(t, b, n->c, 1);
        break;
    case R_MIN:
    case R_MAX:
    case R_CEIL:
    case R_POW2:
    case R_LOG2:
        add(b, op[n->kind]);
        space(t, b);
        add(b, "(");
        render(t, b, n->a, 1);
        if (n->b) {
            add(b, ",");
            render(t, b, n->b, 1);
        }
        add(b, ")");
        break;
    default:
        render(t, b, n->a, p);
        space(t, b);
        add(b, op[n->kind]);
        render(t, b, n->b, p + 1);
        break;
    }
    space(t, b);
    if (paren)
        add(b, ")");
}

static void collect_vars(const struct rnode *n, int *used)
{
    if (!n)
        return;
    if (n->kind == R_VAR)
        used[n->v] = 1;
    collect_vars(n->a, used);
    collect_vars(n->b, used);
    collect_vars(n->c, used);
}

static int64_t random_value(struct rtree *t)
{
    static const int64_t edge[] = {0, 1, -1, 2, INT64_MAX, INT64_MIN, INT64_MAX - 1,
                                   INT64_MIN + 1, INT64_C(1) << 32, -(INT64_C(1) << 32),
                                   INT64_C(1) << 62, 3037000499, -3037000499, 1024};
    if (rnd(t, 4) == 0)
        return edge[rnd(t, sizeof edge / sizeof edge[0])];
    return (int64_t)rnd(t, 41) - 20;
}

static void test_random_property(void **state)
{
    struct rtree *t = calloc(1, sizeof *t);
    struct buf *b = calloc(1, sizeof *b);
    int counts[3] = {0, 0, 0}; /* successes, eval errors, constant trees */
    (void)state;

    assert_non_null(t);
    assert_non_null(b);
    ht__rng_seed(&t->rng, 20240611);
    for (int iter = 0; iter < 3000; iter++) {
        struct ht_expr *e;
        struct ht_error err;
        struct rnode *root;
        int used[NSLOTS] = {0};
        long max_slot = -1;

        t->n = 0;
        t->use_vars = rnd(t, 5) != 0;
        root = gen_tree(t, 1 + (int)rnd(t, 6));
        b->len = 0;
        b->s[0] = '\0';
        render(t, b, root, 1);
        ht_error_clear(&err);
        e = NULL;
        if (ht_expr_compile(b->s, &names, &e, &err) != 0)
            fail_msg("'%s' does not compile: col %d: %s", b->s, err.column, err.text);

        collect_vars(root, used);
        for (int s = 0; s < NSLOTS; s++) {
            assert_int_equal(ht_expr_uses(e, (size_t)s), used[s]);
            if (used[s])
                max_slot = s;
        }
        assert_int_equal(ht_expr_max_slot(e), max_slot);
        counts[2] += max_slot < 0;

        for (int round = 0; round < 6; round++) {
            int64_t vars[NSLOTS], want = 0, got = 0;
            struct rref r = {vars, 0};
            int want_rc, got_rc;
            memcpy(vars, defaults, sizeof vars);
            for (int s = S_A; s <= S_E; s++)
                vars[s] = random_value(t);
            want_rc = ref_eval(&r, root, &want);
            got_rc = ht_expr_eval(e, vars, &got);
            if (want_rc != got_rc || (want_rc == 0 && want != got))
                fail_msg("'%s' with A=%lld B=%lld C=%lld D=%lld E=%lld: got %s %lld, want "
                         "%s %lld",
                         b->s, (long long)vars[S_A], (long long)vars[S_B], (long long)vars[S_C],
                         (long long)vars[S_D], (long long)vars[S_E], ht_err_name(got_rc),
                         (long long)got, ht_err_name(want_rc), (long long)want);
            counts[want_rc != 0]++;
        }
        ht_expr_free(e);
    }
    /* The generator must reach both outcomes and constant trees, or the test proves little. */
    assert_true(counts[0] > 5000);
    assert_true(counts[1] > 1000);
    assert_true(counts[2] > 300);
    free(t);
    free(b);
}

/* ---------------------------------------------------------------------------------------- */
/* Evaluation in bulk and from several threads. */

struct worker {
    const struct ht_expr *e;
    int64_t sum;
    int rc;
};

static const char bulk_src[] =
    "N % TS == 0 && TS <= max_work_item_size_0 && is_pow2(TS) ? ceil_div(N, TS) * log2(TS) : "
    "-min(N, TS)";

/* The value of bulk_src for N=n, TS=ts, written out in C. */
static int64_t bulk_ref(int64_t n, int64_t ts)
{
    if (n % ts == 0 && ts <= 1024 && ts > 0 && (ts & (ts - 1)) == 0) {
        int64_t lg = 0;
        while ((INT64_C(2) << lg) <= ts)
            lg++;
        return (n + ts - 1) / ts * lg;
    }
    return -(n < ts ? n : ts);
}

static void *bulk_run(void *arg)
{
    struct worker *w = arg;
    int64_t vars[NSLOTS];

    memcpy(vars, defaults, sizeof vars);
    w->sum = 0;
    for (int64_t n = 1; n <= 2000; n++) {
        for (int64_t ts = 1; ts <= 128; ts++) {
            int64_t v;
            vars[S_N] = n;
            vars[S_TS] = ts;
            if ((w->rc = ht_expr_eval(w->e, vars, &v)) != 0)
                return NULL;
            w->sum += v;
        }
    }
    return NULL;
}

static void test_bulk_and_threads(void **state)
{
    struct ht_expr *e = compile_ok(bulk_src);
    struct worker w[4];
    pthread_t th[4];
    int64_t want = 0;
    (void)state;

    for (int64_t n = 1; n <= 2000; n++)
        for (int64_t ts = 1; ts <= 128; ts++)
            want += bulk_ref(n, ts);
    for (int i = 0; i < 4; i++) {
        w[i].e = e;
        w[i].rc = -100;
        assert_int_equal(pthread_create(&th[i], NULL, bulk_run, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(w[i].rc, 0);
        assert_int_equal(w[i].sum, want);
    }
    ht_expr_free(e);
}

/* ---------------------------------------------------------------------------------------- */
/* Running emitted MiniZinc (skipped without minizinc and Gecode). */

static int have_minizinc(void)
{
    return system("minizinc --solvers 2>/dev/null | grep -qi gecode") == 0;
}

/* Runs minizinc on model text; returns its stdout (owned by the caller) or NULL. */
static char *run_minizinc(const char *model, const char *flags)
{
    char dir[] = "/tmp/hetune-expr-XXXXXX";
    char *path = NULL, *cmd = NULL, *outpath = NULL, *errpath = NULL, *out = NULL;
    struct ht_error err;
    int status;

    if (!mkdtemp(dir))
        return NULL;
    path = ht__path_join(dir, "model.mzn");
    outpath = ht__path_join(dir, "out.txt");
    errpath = ht__path_join(dir, "err.txt");
    cmd = ht__asprintf("minizinc --solver gecode %s '%s' >'%s' 2>'%s'", flags, path, outpath,
                       errpath);
    ht_error_clear(&err);
    if (!path || !outpath || !errpath || !cmd ||
        ht__write_file(path, model, strlen(model), &err) != 0)
        goto cleanup;
    status = system(cmd);
    if (ht__read_file(outpath, &out, NULL, &err) != 0)
        goto cleanup;
    if (status != 0) {
        char *msg = NULL;
        if (ht__read_file(errpath, &msg, NULL, &err) == 0)
            fprintf(stderr, "minizinc failed:\n%s\n", msg);
        free(msg);
        free(out);
        out = NULL;
    }
cleanup:
    if (path)
        unlink(path);
    if (outpath)
        unlink(outpath);
    if (errpath)
        unlink(errpath);
    rmdir(dir);
    free(path);
    free(outpath);
    free(errpath);
    free(cmd);
    return out;
}

/* Random expressions on small values, evaluated by MiniZinc as parameters. Cases whose
 * native evaluation fails must be false as bools, and undefined as ints (`(x) = (x)` is
 * false only when x is undefined). Trees stay shallow so that no subexpression, evaluated
 * or not, leaves the range MiniZinc computes exactly. */
static void test_minizinc_random(void **state)
{
    struct rtree *t;
    struct buf *b;
    char *model = NULL, *out, *line, *save = NULL;
    size_t model_len = 0;
    FILE *mf;
    int64_t *want;
    int *want_bool, ncase = 0, i = 0, nfail = 0;
    enum { NCASES = 300 };
    (void)state;

    if (!have_minizinc())
        skip();
    t = calloc(1, sizeof *t);
    b = calloc(1, sizeof *b);
    want = calloc(NCASES, sizeof *want);
    want_bool = calloc(NCASES, sizeof *want_bool);
    assert_true(t && b && want && want_bool);
    mf = open_memstream(&model, &model_len);
    assert_non_null(mf);
    fprintf(mf, "output [\n");
    ht__rng_seed(&t->rng, 77);
    t->use_vars = 1;
    t->small = 1;
    while (ncase < NCASES) {
        int64_t vars[NSLOTS], v;
        struct rref r = {vars, 0};
        struct rnode *root;
        struct ht_expr *e;
        char *mzn = NULL;
        int rc, mode;

        t->n = 0;
        root = gen_tree(t, 1 + (int)rnd(t, 3));
        memcpy(vars, defaults, sizeof vars);
        for (int s = S_A; s <= S_E; s++)
            vars[s] = (int64_t)rnd(t, 41) - 20;
        rc = ref_eval(&r, root, &v);
        assert_int_not_equal(rc, HT_EOVERFLOW);
        /* Failing cases are rarer; keep a third of the cases for them. */
        if ((rc == 0 && ncase - nfail >= NCASES - NCASES / 3) || (rc != 0 && nfail >= NCASES / 3))
            continue;
        b->len = 0;
        b->s[0] = '\0';
        render(t, b, root, 1);
        e = compile_ok(b->s);
        /* 0: the int, 1: the bool, 2: whether the int is defined. */
        mode = rc ? 1 + (int)rnd(t, 2) : (int)rnd(t, 3);
        nfail += rc != 0;
        want_bool[ncase] = mode != 0;
        want[ncase] = mode == 0 ? v : mode == 1 ? rc == 0 && v != 0 : rc == 0;
        assert_int_equal(ht_expr_to_minizinc(e, &names, mode == 1, &mzn, NULL), 0);
        fprintf(mf, "  show(let { int: A = %lld; int: B = %lld; int: C = %lld; int: D = %lld; "
                    "int: E = %lld } in ",
                (long long)vars[S_A], (long long)vars[S_B], (long long)vars[S_C],
                (long long)vars[S_D], (long long)vars[S_E]);
        if (mode == 2)
            fprintf(mf, "(%s) = (%s)), \"\\n\",\n", mzn, mzn);
        else
            fprintf(mf, "%s), \"\\n\",\n", mzn);
        free(mzn);
        ht_expr_free(e);
        ncase++;
    }
    fprintf(mf, "];\n");
    fclose(mf);

    out = run_minizinc(model, "");
    if (!out)
        fail_msg("minizinc could not run the model:\n%s", model);
    for (line = strtok_r(out, "\n", &save); line && i < NCASES;
         line = strtok_r(NULL, "\n", &save), i++) {
        char expect[32];
        if (want_bool[i])
            snprintf(expect, sizeof expect, "%s", want[i] ? "true" : "false");
        else
            snprintf(expect, sizeof expect, "%lld", (long long)want[i]);
        if (strcmp(line, expect) != 0)
            fail_msg("case %d: minizinc printed '%s', want '%s'\nmodel:\n%s", i, line, expect,
                     model);
    }
    assert_int_equal(i, NCASES);
    assert_int_equal(nfail, NCASES / 3);
    free(out);
    free(model);
    free(t);
    free(b);
    free(want);
    free(want_bool);
}

/* Constraints over a decision variable: the solutions MiniZinc finds must be the values
 * for which native evaluation succeeds and is non-zero. Partial operations sit where the
 * relational semantics of MiniZinc agree with the native failure. */
static void test_minizinc_constraints(void **state)
{
    static const char *const constraints[] = {
        "N % TS == 0 && TS > 1",
        "N % TS == 0",
        "!(N / TS > 2)",
        "TS == 0 || N % TS != 0",
        "log2(TS) >= 2 || TS == -3",
        "!(log2(TS + 3) >= 2) || TS > 10",
        "TS < 0 ? log2(-TS) == 1 : N / TS < 5",
        "TS && N / TS == 2 || TS == -1",
        "(TS - 2) / (TS - 3) == 2 && TS != 5",
        "N / TS > 2",
        "log2(TS) >= 2 || TS == -3",
        "is_pow2(TS) && ceil_div(N, TS) >= 3",
        "TS > 3 ? N % (TS - 4) == 0 : TS < -2",
        "ceil_div(TS, 3) == 2 || ceil_div(TS, -3) == 2",
        "min(TS, 5) + max(TS, -1) == 7",
        "!(TS % 3) && TS != 0",
        "(TS < 4) + (TS < 8) == 1",
        "!((TS >= 5) >= 1)", /* MiniZinc 2.6 gets this wrong with bool2int */
        "log2(TS - 1) == 2",
        "TS",
        "N / TS * TS == N ? TS % 2 : 0",
        "ceil_div(N, TS) - 3",
        "log2(TS) - log2(N / TS)",
        "(1 << TS) > 100 || TS == -2",
        "N >> TS == 3",
        "TS >= 0 ? (N >> TS) % 2 == 1 : TS == -5",
        "~TS == -5 || (TS << 2) == 32",
        "-N >> TS == -2",
        "TS << 1 >> 2 == 3",
        "!(N >> TS)",
    };
    (void)state;

    if (!have_minizinc())
        skip();
    /* Each constraint twice: k even, the bool form; k odd, the int form compared with 0. */
    for (size_t k = 0; k < 2 * (sizeof constraints / sizeof constraints[0]); k++) {
        const char *src = constraints[k / 2];
        struct ht_expr *e = compile_ok(src);
        char *mzn = NULL, *model, *out, *line, *save = NULL;
        char want[1024] = "", got[1024] = "";
        int64_t vars[NSLOTS];

        memcpy(vars, defaults, sizeof vars);
        for (int64_t ts = -6; ts <= 20; ts++) {
            int64_t v;
            vars[S_TS] = ts;
            if (ht_expr_eval(e, vars, &v) == 0 && v != 0)
                snprintf(want + strlen(want), sizeof want - strlen(want), "%lld ",
                         (long long)ts);
        }
        assert_int_equal(ht_expr_to_minizinc(e, &names, k % 2 == 0, &mzn, NULL), 0);
        model = ht__asprintf("int: N = 24;\nvar -6..20: TS;\nconstraint %s%s;\n"
                             "solve satisfy;\noutput [\"\\(TS)\\n\"];\n",
                             mzn, k % 2 ? " != 0" : "");
        assert_non_null(model);
        out = run_minizinc(model, "--all-solutions");
        if (!out)
            fail_msg("minizinc could not run:\n%s", model);
        /* Solutions come in search order; gather and sort them. */
        {
            int64_t sol[64];
            int nsol = 0;
            for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                if (line[0] == '-' ? line[1] >= '0' && line[1] <= '9'
                                   : line[0] >= '0' && line[0] <= '9') {
                    assert_true(nsol < 64);
                    sol[nsol++] = strtoll(line, NULL, 10);
                }
            for (int x = 0; x < nsol; x++)
                for (int y = x + 1; y < nsol; y++)
                    if (sol[y] < sol[x]) {
                        int64_t tmp = sol[x];
                        sol[x] = sol[y];
                        sol[y] = tmp;
                    }
            for (int x = 0; x < nsol; x++)
                snprintf(got + strlen(got), sizeof got - strlen(got), "%lld ",
                         (long long)sol[x]);
        }
        if (strcmp(got, want) != 0)
            fail_msg("'%s' as '%s': minizinc found {%s}, native {%s}", src, mzn, got, want);
        free(out);
        free(model);
        free(mzn);
        ht_expr_free(e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_integer_semantics),
        cmocka_unit_test(test_eval_errors),
        cmocka_unit_test(test_functions),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_semantic_errors),
        cmocka_unit_test(test_introspection),
        cmocka_unit_test(test_minizinc_text),
        cmocka_unit_test(test_random_property),
        cmocka_unit_test(test_bulk_and_threads),
        cmocka_unit_test(test_minizinc_random),
        cmocka_unit_test(test_minizinc_constraints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
