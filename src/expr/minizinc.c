/* Writing a compiled expression as a MiniZinc expression.
 *
 * Every subexpression is emitted fully parenthesised, as an int or a bool as its context
 * needs: a comparison used as a number becomes (if c then 1 else 0 endif), a number used as
 * a condition becomes (x != 0). bool2int(c) would say the same, but MiniZinc 2.6.4 (with
 * Gecode) flattens it wrongly under negation: `not (bool2int(x >= 5) >= 1)` accepts every
 * x, as x >= 5 gets half-reified in the wrong direction; the if-then-else form is right
 * there too. MiniZinc's div and mod truncate toward zero like C's / and %.
 *
 * Where native evaluation fails (division or remainder by zero, log2 of a value <= 0), the
 * MiniZinc expression is made to fail the same way, short-circuits included: a definedness
 * condition DEF is built alongside (a / b needs b != 0, a && b needs b defined only when a
 * holds, ...). An int result is `(let { constraint DEF } in E)`, which MiniZinc's relational
 * semantics make undefined, so the caller's nearest enclosing bool is false; a bool result
 * is `(DEF /\ E)`, false where evaluation fails. A configuration whose native evaluation
 * fails is thus rejected by both. Integer overflow is not mirrored: MiniZinc and its
 * solvers have their own range rules.
 *
 * Bitwise operators: ~a is -a - 1; a << b is a * 2^b and a >> b the floor of a / 2^b, both
 * partial like a division (0 <= b <= 63 is their definedness condition). MiniZinc has no
 * bitwise operators on var int and no faithful translation short of decomposing both
 * operands into 64 bits, so & ^ | are refused: ht_expr_to_minizinc fails with HT_EEXPR
 * naming the operator, and the caller reports it (the native enumerator takes them).
 *
 * ceil_div, is_pow2, log2 and the shifts need their arguments several times, so non-trivial arguments
 * are bound once with `let { any: t = ... } in`; the temporaries and generator variables
 * carry a prefix ("ht_", lengthened with underscores) that no name of the table starts
 * with, so they never shadow a user's name. Powers of two are tried up to 2^62, the
 * largest that fits in 64 bits.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr-internal.h"

struct mz {
    const struct ht_expr *e;
    const struct ht_names *names;
    char prefix[64];
    int ntmp; /* temporaries made so far, to name the next one */
    int rc;
    char *buf;
    size_t len, cap;
};

__attribute__((format(printf, 2, 3))) static void put(struct mz *m, const char *fmt, ...)
{
    va_list ap;
    int need;

    if (m->rc)
        return;
    va_start(ap, fmt);
    need = vsnprintf(m->buf + m->len, m->cap - m->len, fmt, ap);
    va_end(ap);
    if (need < 0) {
        m->rc = HT_ENOMEM;
        return;
    }
    if ((size_t)need >= m->cap - m->len) {
        size_t cap = m->cap;
        char *grown;
        while (cap - m->len <= (size_t)need)
            cap *= 2;
        grown = realloc(m->buf, cap);
        if (!grown) {
            m->rc = HT_ENOMEM;
            return;
        }
        m->buf = grown;
        m->cap = cap;
        va_start(ap, fmt);
        vsnprintf(m->buf + m->len, m->cap - m->len, fmt, ap);
        va_end(ap);
    }
    m->len += (size_t)need;
}

static void emit(struct mz *m, int idx, int want_bool);

/* Binds node idx to a temporary when it is not a name or a literal, writing the let
 * opening; afterwards name holds what to write for the value. */
static void bind(struct mz *m, int idx, char *name, size_t size, int *opened)
{
    const struct ht__enode *n = &m->e->nodes[idx];

    if (n->kind == HT__E_VAR && strlen(m->names->names[n->val]) < size) {
        snprintf(name, size, "%s", m->names->names[n->val]);
        return;
    }
    if (n->kind == HT__E_NUM) {
        snprintf(name, size, "%lld", (long long)n->val);
        return;
    }
    snprintf(name, size, "%st%d", m->prefix, ++m->ntmp);
    put(m, *opened ? "; any: %s = " : "(let { any: %s = ", name);
    emit(m, idx, 0);
    *opened = 1;
}

static void emit_function(struct mz *m, const struct ht__enode *n)
{
    char a[96], b[96]; /* a name, a literal or a temporary; longer names get a temporary */
    int opened = 0;
    const char *p = m->prefix;

    bind(m, n->a, a, sizeof a, &opened);
    if (n->kind == HT__E_CEILDIV || n->kind == HT__E_SHL || n->kind == HT__E_SHR)
        bind(m, n->b, b, sizeof b, &opened);
    if (opened)
        put(m, " } in ");
    switch (n->kind) {
    case HT__E_CEILDIV:
        /* The truncated quotient, plus one when there is a remainder and the quotient is
         * positive; right for every sign, partial where b = 0 like C's. */
        put(m, "((%s div %s) + (if ((%s mod %s) != 0) /\\ ((%s > 0) = (%s > 0)) then 1 else 0 "
               "endif))",
            a, b, a, b, a, b);
        break;
    case HT__E_SHL:
        /* DEF keeps b in 0..63; the clamp keeps MiniZinc's pow away from a negative
         * exponent in branches it flattens anyway. */
        put(m, "(%s * pow(2, max(0, min(%s, 62))) * (if %s > 62 then 2 else 1 endif))", a, b, b);
        break;
    case HT__E_SHR:
        /* The floor of a / 2^b: the truncated quotient, one less when a negative a leaves a
         * remainder (MiniZinc's mod takes the sign of a). 2^63 does not fit: a >> 63 is the
         * sign. */
        put(m, "(if %s > 62 then (if %s < 0 then -1 else 0 endif) else ((%s div pow(2, max(0, "
               "%s))) - (if (%s mod pow(2, max(0, %s))) < 0 then 1 else 0 endif)) endif)",
            b, a, a, b, a, b);
        break;
    case HT__E_ISPOW2:
        put(m, "((%s > 0) /\\ exists(%sk in 0..62)(pow(2, %sk) = %s))", a, p, p, a);
        break;
    default: /* HT__E_LOG2: the number of powers 2^1..2^62 not above x is floor(log2 x)
              * for x > 0, which DEF ensures. */
        put(m, "sum(%sk in 1..62)(if pow(2, %sk) <= %s then 1 else 0 endif)", p, p, a);
        break;
    }
    if (opened)
        put(m, ")");
}

static void emit_natural(struct mz *m, const struct ht__enode *n)
{
    static const char *const infix[] = {
        [HT__E_ADD] = "+", [HT__E_SUB] = "-",  [HT__E_MUL] = "*",  [HT__E_DIV] = "div",
        [HT__E_MOD] = "mod", [HT__E_LT] = "<", [HT__E_LE] = "<=", [HT__E_GT] = ">",
        [HT__E_GE] = ">=", [HT__E_EQ] = "=",   [HT__E_NE] = "!=", [HT__E_AND] = "/\\",
        [HT__E_OR] = "\\/",
    };

    switch ((enum ht__ekind)n->kind) {
    case HT__E_NUM:
        put(m, n->val < 0 ? "(%lld)" : "%lld", (long long)n->val);
        break;
    case HT__E_VAR:
        put(m, "%s", m->names->names[n->val]);
        break;
    case HT__E_NEG:
        put(m, "(-");
        emit(m, n->a, 0);
        put(m, ")");
        break;
    case HT__E_NOT:
        put(m, "(not ");
        emit(m, n->a, 1);
        put(m, ")");
        break;
    case HT__E_MIN:
    case HT__E_MAX:
        put(m, n->kind == HT__E_MIN ? "min(" : "max(");
        emit(m, n->a, 0);
        put(m, ", ");
        emit(m, n->b, 0);
        put(m, ")");
        break;
    case HT__E_CEILDIV:
    case HT__E_ISPOW2:
    case HT__E_LOG2:
    case HT__E_SHL:
    case HT__E_SHR:
        emit_function(m, n);
        break;
    case HT__E_BNOT:
        put(m, "((-");
        emit(m, n->a, 0);
        put(m, ") - 1)");
        break;
    case HT__E_BAND:
    case HT__E_BXOR:
    case HT__E_BOR:
        break; /* refused by ht_expr_to_minizinc before anything is written */
    case HT__E_COND:
        break; /* handled by emit */
    default: {
        /* && and || take bools, everything else (== and != included: C compares the
         * values, so (a < b) == 1 is legal) takes ints. */
        int operands_bool = n->kind == HT__E_AND || n->kind == HT__E_OR;
        put(m, "(");
        emit(m, n->a, operands_bool);
        put(m, " %s ", infix[n->kind]);
        emit(m, n->b, operands_bool);
        put(m, ")");
        break;
    }
    }
}

static void emit(struct mz *m, int idx, int want_bool)
{
    const struct ht__enode *n = &m->e->nodes[idx];
    int natural;

    if (m->rc)
        return;
    if (n->kind == HT__E_COND) {
        put(m, "(if ");
        emit(m, n->a, 1);
        put(m, " then ");
        emit(m, n->b, want_bool);
        put(m, " else ");
        emit(m, n->c, want_bool);
        put(m, " endif)");
        return;
    }
    natural = ht__expr_kind_is_bool((enum ht__ekind)n->kind);
    if (want_bool && !natural) {
        put(m, "(");
        emit_natural(m, n);
        put(m, " != 0)");
    } else if (!want_bool && natural) {
        put(m, "(if ");
        emit_natural(m, n);
        put(m, " then 1 else 0 endif)");
    } else {
        emit_natural(m, n);
    }
}

/* 1 when the operation of node n itself can fail (not counting overflow): a division by
 * something other than a non-zero literal, log2 of something other than a literal > 0, a
 * shift by something other than a literal in 0..63. */
static int partial_op(const struct ht_expr *e, const struct ht__enode *n)
{
    if (n->kind == HT__E_DIV || n->kind == HT__E_MOD || n->kind == HT__E_CEILDIV)
        return !(e->nodes[n->b].kind == HT__E_NUM && e->nodes[n->b].val != 0);
    if (n->kind == HT__E_SHL || n->kind == HT__E_SHR)
        return !(e->nodes[n->b].kind == HT__E_NUM && e->nodes[n->b].val >= 0 &&
                 e->nodes[n->b].val <= 63);
    if (n->kind == HT__E_LOG2)
        return !(e->nodes[n->a].kind == HT__E_NUM && e->nodes[n->a].val > 0);
    return 0;
}

/* 1 when evaluating node idx can fail with something other than an overflow. */
static int partial(const struct ht_expr *e, int idx)
{
    const struct ht__enode *n = &e->nodes[idx];

    if (partial_op(e, n))
        return 1;
    return (n->a >= 0 && partial(e, n->a)) || (n->b >= 0 && partial(e, n->b)) ||
           (n->c >= 0 && partial(e, n->c));
}

/* Opens one more conjunct of a definedness condition. */
static void and_part(struct mz *m, int *nparts)
{
    put(m, *nparts ? " /\\ " : "(");
    (*nparts)++;
}

/* Writes the condition under which node idx (partial) evaluates without failing, following
 * the native evaluation order and its short-circuits. */
static void emit_def(struct mz *m, int idx)
{
    const struct ht__enode *n = &m->e->nodes[idx];
    const struct ht_expr *e = m->e;
    size_t open = m->len; /* where conj writes the opening parenthesis */
    int parts = 0;

    if (m->rc)
        return;
    switch ((enum ht__ekind)n->kind) {
    case HT__E_AND:
    case HT__E_OR:
        if (partial(e, n->a)) {
            and_part(m, &parts);
            emit_def(m, n->a);
        }
        if (partial(e, n->b)) {
            /* b is evaluated only when a does not decide the result. */
            and_part(m, &parts);
            put(m, n->kind == HT__E_AND ? "((not " : "(");
            emit(m, n->a, 1);
            put(m, n->kind == HT__E_AND ? ") \\/ " : " \\/ ");
            emit_def(m, n->b);
            put(m, ")");
        }
        break;
    case HT__E_COND:
        if (partial(e, n->a)) {
            and_part(m, &parts);
            emit_def(m, n->a);
        }
        if (partial(e, n->b) && partial(e, n->c)) {
            and_part(m, &parts);
            put(m, "(if ");
            emit(m, n->a, 1);
            put(m, " then ");
            emit_def(m, n->b);
            put(m, " else ");
            emit_def(m, n->c);
            put(m, " endif)");
        } else if (partial(e, n->b) || partial(e, n->c)) {
            /* Only the taken branch must be defined. */
            int then_side = partial(e, n->b);
            and_part(m, &parts);
            put(m, then_side ? "((not " : "(");
            emit(m, n->a, 1);
            put(m, then_side ? ") \\/ " : " \\/ ");
            emit_def(m, then_side ? n->b : n->c);
            put(m, ")");
        }
        break;
    default:
        if (n->a >= 0 && partial(e, n->a)) {
            and_part(m, &parts);
            emit_def(m, n->a);
        }
        if (n->b >= 0 && partial(e, n->b)) {
            and_part(m, &parts);
            emit_def(m, n->b);
        }
        if (partial_op(e, n) && (n->kind == HT__E_SHL || n->kind == HT__E_SHR)) {
            and_part(m, &parts);
            put(m, "(");
            emit(m, n->b, 0);
            put(m, " >= 0) /\\ (");
            emit(m, n->b, 0);
            put(m, " <= 63)");
            /* Two conjuncts: keep the single-condition trim below from stripping one. */
            parts++;
        } else if (partial_op(e, n)) {
            int is_log2 = n->kind == HT__E_LOG2;
            and_part(m, &parts);
            put(m, "(");
            emit(m, is_log2 ? n->a : n->b, 0);
            put(m, is_log2 ? " > 0)" : " != 0)");
        }
        break;
    }
    if (m->rc)
        return;
    if (parts > 1) {
        put(m, ")");
    } else {
        /* A single condition needs no parentheses of its own. */
        memmove(m->buf + open, m->buf + open + 1, m->len - open);
        m->len--;
    }
}

/* Lengthens "ht_" with underscores until no name of the table starts with it. */
static int choose_prefix(struct mz *m)
{
    size_t len;
    int clash;

    strcpy(m->prefix, "ht_");
    do {
        clash = 0;
        len = strlen(m->prefix);
        for (size_t i = 0; i < m->names->count && !clash; i++)
            clash = strncmp(m->names->names[i], m->prefix, len) == 0;
        if (clash) {
            if (len + 2 >= sizeof m->prefix)
                return -1;
            m->prefix[len] = '_';
            m->prefix[len + 1] = '\0';
        }
    } while (clash);
    return 0;
}

int ht_expr_to_minizinc(const struct ht_expr *e, const struct ht_names *names, int as_bool,
                        char **out, struct ht_error *err)
{
    struct mz m;

    if (!e || !names || !out)
        return ht_error_set(err, HT_EINVAL, "ht_expr_to_minizinc: %s is NULL",
                            !e ? "e" : !names ? "names" : "out");
    *out = NULL;
    for (size_t i = 0; i < e->nslots; i++)
        if (e->slots[i] >= names->count || !names->names[e->slots[i]])
            return ht_error_set(err, HT_EINVAL,
                                "expression '%s' reads slot %zu that the name table lacks",
                                e->source, e->slots[i]);
    for (size_t i = 0; i < names->count; i++)
        if (!names->names[i])
            return ht_error_set(err, HT_EINVAL, "name %zu of the table is missing", i);
    for (int i = 0; i < e->nnodes; i++) {
        static const char *const bitwise[] = {[HT__E_BAND] = "&", [HT__E_BXOR] = "^",
                                              [HT__E_BOR] = "|"};
        int k = e->nodes[i].kind;
        if (k == HT__E_BAND || k == HT__E_BXOR || k == HT__E_BOR) {
            return ht_error_set(err, HT_EEXPR,
                                "'%s' in '%s' has no MiniZinc equivalent (MiniZinc has no "
                                "bitwise operators); the native backend supports it",
                                bitwise[k], e->source);
        }
    }
    memset(&m, 0, sizeof m);
    m.e = e;
    m.names = names;
    if (choose_prefix(&m) < 0)
        return ht_error_set(err, HT_EINVAL, "cannot name temporaries apart from the names");
    m.cap = 128;
    m.buf = malloc(m.cap);
    if (!m.buf)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    m.buf[0] = '\0';
    if (!partial(e, e->root)) {
        emit(&m, e->root, as_bool != 0);
    } else if (as_bool) {
        put(&m, "(");
        emit_def(&m, e->root);
        put(&m, " /\\ ");
        emit(&m, e->root, 1);
        put(&m, ")");
    } else {
        put(&m, "(let { constraint ");
        emit_def(&m, e->root);
        put(&m, " } in ");
        emit(&m, e->root, 0);
        put(&m, ")");
    }
    if (m.rc) {
        free(m.buf);
        return ht_error_set(err, m.rc, "out of memory");
    }
    *out = m.buf;
    return 0;
}
