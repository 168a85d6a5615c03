/* The expression parser: a lexer and a recursive-descent parser with C precedence, from
 * lowest to highest:
 *   ?: (right associative)  ||  &&  |  ^  &  == !=  < <= > >=  << >>  + -  * / %
 *   unary - + ! ~  primary
 * building the syntax tree of expr-internal.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr-internal.h"
#include "util/util.h"

enum tok {
    T_END,
    T_NUM,
    T_NAME,
    T_LP,
    T_RP,
    T_COMMA,
    T_QUEST,
    T_COLON,
    T_PLUS,
    T_MINUS,
    T_STAR,
    T_SLASH,
    T_PCT,
    T_LT,
    T_LE,
    T_GT,
    T_GE,
    T_EQ,
    T_NE,
    T_AND,
    T_OR,
    T_NOT,
    T_BAND,
    T_BOR,
    T_BXOR,
    T_BNOT,
    T_SHL,
    T_SHR,
};

struct parser {
    const char *src;
    size_t pos; /* where the next token starts looking */
    const struct ht_names *names;
    struct ht_error *err;
    struct ht_expr *e;
    int cap;  /* allocated entries of e->nodes */
    int nest; /* current recursion nesting, see HT__EXPR_MAX_NEST */
    int rc;   /* the first failure */
    /* The current token. */
    int tok;
    size_t tstart, tlen;
    int64_t num;
};

struct func {
    const char *name;
    enum ht__ekind kind;
    int nargs;
};

static const struct func funcs[] = {
    {"min", HT__E_MIN, 2},         {"max", HT__E_MAX, 2},   {"ceil_div", HT__E_CEILDIV, 2},
    {"is_pow2", HT__E_ISPOW2, 1}, {"log2", HT__E_LOG2, 1},
};

/* Records the first failure: code, message and 1-based column (only when err held no error,
 * so that a caller's earlier report keeps its location). Returns -1 for the callers. */
__attribute__((format(printf, 4, 5))) static int fail(struct parser *p, int code, size_t offset,
                                                      const char *fmt, ...)
{
    char text[sizeof p->err->text];
    va_list ap;

    if (p->rc)
        return -1;
    p->rc = code;
    if (p->err && p->err->code == 0) {
        va_start(ap, fmt);
        vsnprintf(text, sizeof text, fmt, ap);
        va_end(ap);
        ht_error_set(p->err, code, "%s", text);
        p->err->column = (int)offset + 1;
    }
    return -1;
}

/* The current token in words for messages: 'text' or "end of expression". */
static void describe(const struct parser *p, char *buf, size_t size)
{
    if (p->tok == T_END)
        snprintf(buf, size, "end of expression");
    else if (p->tlen > 40)
        snprintf(buf, size, "'%.40s...'", p->src + p->tstart);
    else
        snprintf(buf, size, "'%.*s'", (int)p->tlen, p->src + p->tstart);
}

/* ASCII only, whatever the locale: identifiers are [A-Za-z_][A-Za-z0-9_]*. */
static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int is_ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident_char(int c)
{
    return is_ident_start(c) || is_digit(c);
}

static int is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Reads the literal starting at p->tstart. A literal runs on while letters, digits or
 * underscores follow, so "12ab" is one bad literal rather than a literal and a name. */
static int lex_number(struct parser *p)
{
    const char *s = p->src;
    size_t start = p->tstart, i = start, end = start;
    uint64_t v = 0;
    int base = 10, ok = 1, overflow = 0;

    while (is_ident_char((unsigned char)s[end]))
        end++;
    p->tlen = end - start;
    if (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        base = 16;
        i += 2;
        if (i == end)
            ok = 0;
    }
    for (; i < end && ok; i++) {
        int d = base == 16 ? ht__hex_digit((unsigned char)s[i])
                           : (is_digit((unsigned char)s[i]) ? s[i] - '0' : -1);
        if (d < 0) {
            ok = 0;
            break;
        }
        if (v > (UINT64_C(0x7fffffffffffffff) - (uint64_t)d) / (uint64_t)base)
            overflow = 1;
        else
            v = v * (uint64_t)base + (uint64_t)d;
    }
    if (!ok)
        return fail(p, HT_EPARSE, start, "invalid number '%.*s'", (int)p->tlen, s + start);
    if (overflow)
        return fail(p, HT_EPARSE, start, "number '%.*s' is out of range (the largest is %lld)",
                    (int)p->tlen, s + start, 0x7fffffffffffffffLL);
    p->num = (int64_t)v;
    p->pos = end;
    p->tok = T_NUM;
    return 0;
}

/* Moves to the next token. Returns 0, or -1 after recording a syntax error. */
static int lex(struct parser *p)
{
    static const struct {
        char text[3];
        int tok;
    } ops[] = {
        /* Two-character operators first: the longest match wins, as in C. */
        {"<<", T_SHL}, {">>", T_SHR}, {"<=", T_LE},    {">=", T_GE},   {"==", T_EQ},
        {"!=", T_NE},  {"&&", T_AND}, {"||", T_OR},    {"(", T_LP},    {")", T_RP},
        {",", T_COMMA}, {"?", T_QUEST}, {":", T_COLON}, {"+", T_PLUS}, {"-", T_MINUS},
        {"*", T_STAR}, {"/", T_SLASH}, {"%", T_PCT},   {"<", T_LT},    {">", T_GT},
        {"!", T_NOT},  {"&", T_BAND}, {"|", T_BOR},    {"^", T_BXOR},  {"~", T_BNOT},
    };
    const char *s = p->src;
    size_t i = p->pos;
    unsigned char c;

    while (is_space((unsigned char)s[i]))
        i++;
    p->tstart = i;
    c = (unsigned char)s[i];
    if (!c) {
        p->tok = T_END;
        p->tlen = 0;
        p->pos = i;
        return 0;
    }
    if (is_digit(c))
        return lex_number(p);
    if (is_ident_start(c)) {
        size_t end = i + 1;
        while (is_ident_char((unsigned char)s[end]))
            end++;
        p->tok = T_NAME;
        p->tlen = end - i;
        p->pos = end;
        return 0;
    }
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        size_t n = strlen(ops[k].text);
        if (strncmp(s + i, ops[k].text, n) == 0) {
            p->tok = ops[k].tok;
            p->tlen = n;
            p->pos = i + n;
            return 0;
        }
    }
    if (c == '=')
        return fail(p, HT_EPARSE, i, "unexpected character '=' (did you mean '=='?)");
    if (c >= 0x20 && c < 0x7f)
        return fail(p, HT_EPARSE, i, "unexpected character '%c'", c);
    return fail(p, HT_EPARSE, i, "unexpected byte 0x%02x", c);
}

/* Appends a node, checking the limits that keep evaluation and the tree walkers bounded.
 * offset locates the operator for the "too deep" message. Returns its index or -1. */
int ht__expr_kind_is_bool(enum ht__ekind kind)
{
    switch (kind) {
    case HT__E_NOT:
    case HT__E_LT:
    case HT__E_LE:
    case HT__E_GT:
    case HT__E_GE:
    case HT__E_EQ:
    case HT__E_NE:
    case HT__E_AND:
    case HT__E_OR:
    case HT__E_ISPOW2:
        return 1;
    default:
        return 0;
    }
}

static int add_node(struct parser *p, enum ht__ekind kind, int a, int b, int c, int64_t val,
                    size_t offset)
{
    struct ht_expr *e = p->e;
    struct ht__enode *n, *na, *nb, *nc;
    int height = 1, depth = 1;

    if (e->nnodes == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        struct ht__enode *grown = realloc(e->nodes, (size_t)cap * sizeof *grown);
        if (!grown)
            return fail(p, HT_ENOMEM, offset, "out of memory");
        e->nodes = grown;
        p->cap = cap;
    }
    na = a >= 0 ? &e->nodes[a] : NULL;
    nb = b >= 0 ? &e->nodes[b] : NULL;
    nc = c >= 0 ? &e->nodes[c] : NULL;
    if (na)
        height = na->height + 1;
    if (nb && nb->height + 1 > height)
        height = nb->height + 1;
    if (nc && nc->height + 1 > height)
        height = nc->height + 1;

    switch (kind) {
    case HT__E_NUM:
    case HT__E_VAR:
        depth = 1;
        break;
    case HT__E_NEG:
    case HT__E_NOT:
    case HT__E_BNOT:
    case HT__E_ISPOW2:
    case HT__E_LOG2:
        depth = na->depth;
        break;
    case HT__E_AND:
    case HT__E_OR:
        /* The left value is popped before the right one is computed. */
        depth = na->depth > nb->depth ? na->depth : nb->depth;
        break;
    case HT__E_COND:
        depth = na->depth;
        if (nb->depth > depth)
            depth = nb->depth;
        if (nc->depth > depth)
            depth = nc->depth;
        break;
    default: /* binary operators and two-argument functions */
        depth = na->depth > nb->depth + 1 ? na->depth : nb->depth + 1;
        break;
    }
    if (height > HT__EXPR_MAX_HEIGHT || depth > HT__EXPR_STACK)
        return fail(p, HT_EEXPR, offset, "expression too deep");

    n = &e->nodes[e->nnodes];
    memset(n, 0, sizeof *n);
    n->kind = (uint8_t)kind;
    n->a = a;
    n->b = b;
    n->c = c;
    n->val = val;
    n->height = (uint16_t)height;
    n->depth = (uint16_t)depth;
    n->is_const = kind != HT__E_VAR && (!na || na->is_const) && (!nb || nb->is_const) &&
                  (!nc || nc->is_const);
    n->is_bool = kind == HT__E_COND ? nb->is_bool && nc->is_bool
                                    : ht__expr_kind_is_bool(kind);
    return e->nnodes++;
}

static int parse_ternary(struct parser *p);

/* Entering a nested parse at the current token ('(', '?' or a unary operator): refuses
 * nesting beyond HT__EXPR_MAX_NEST so that hostile input cannot exhaust the C stack. The
 * caller decrements p->nest when done. */
static int enter(struct parser *p)
{
    if (++p->nest > HT__EXPR_MAX_NEST)
        return fail(p, HT_EEXPR, p->tstart, "expression too deep");
    return 0;
}

static int expect(struct parser *p, int tok, const char *what)
{
    char found[64];

    if (p->tok == tok)
        return lex(p);
    describe(p, found, sizeof found);
    return fail(p, HT_EPARSE, p->tstart, "expected %s but found %s", what, found);
}

static int parse_call(struct parser *p, size_t name_start, size_t name_len)
{
    const struct func *f = NULL;
    int args[2] = {-1, -1}, nargs = 0;

    for (size_t k = 0; k < sizeof funcs / sizeof funcs[0]; k++)
        if (strlen(funcs[k].name) == name_len &&
            strncmp(funcs[k].name, p->src + name_start, name_len) == 0)
            f = &funcs[k];
    if (!f)
        return fail(p, HT_EEXPR, name_start, "unknown function '%.*s'", (int)name_len,
                    p->src + name_start);
    if (enter(p) < 0 || lex(p) < 0) /* the '(' */
        return -1;
    if (p->tok != T_RP) {
        for (;;) {
            int arg = parse_ternary(p);
            char found[64];
            if (arg < 0)
                return -1;
            if (nargs < 2)
                args[nargs] = arg;
            nargs++;
            if (p->tok == T_RP)
                break;
            if (p->tok != T_COMMA) {
                describe(p, found, sizeof found);
                return fail(p, HT_EPARSE, p->tstart, "expected ',' or ')' but found %s", found);
            }
            if (lex(p) < 0)
                return -1;
        }
    }
    if (nargs != f->nargs)
        return fail(p, HT_EEXPR, name_start, "%s() takes %d argument%s", f->name, f->nargs,
                    f->nargs == 1 ? "" : "s");
    if (lex(p) < 0) /* the ')' */
        return -1;
    p->nest--;
    return add_node(p, f->kind, args[0], args[1], -1, 0, name_start);
}

static int parse_primary(struct parser *p)
{
    char found[64];
    size_t start = p->tstart, len = p->tlen;

    switch (p->tok) {
    case T_NUM: {
        int64_t v = p->num;
        if (lex(p) < 0)
            return -1;
        return add_node(p, HT__E_NUM, -1, -1, -1, v, start);
    }
    case T_NAME: {
        const struct ht_names *names = p->names;
        size_t slot, i = p->pos;
        /* A name followed by '(' is a call; look before lexing on so that an unknown name
         * is reported ahead of whatever follows it. */
        while (is_space((unsigned char)p->src[i]))
            i++;
        if (p->src[i] == '(') {
            if (lex(p) < 0)
                return -1;
            return parse_call(p, start, len);
        }
        for (slot = 0; names && slot < names->count; slot++) {
            const char *name = names->names[slot];
            if (name && strlen(name) == len && strncmp(name, p->src + start, len) == 0)
                break;
        }
        if (!names || slot == names->count)
            return fail(p, HT_EEXPR, start, "unknown name '%.*s'", (int)len, p->src + start);
        if (lex(p) < 0)
            return -1;
        return add_node(p, HT__E_VAR, -1, -1, -1, (int64_t)slot, start);
    }
    case T_LP: {
        int n;
        if (enter(p) < 0 || lex(p) < 0 || (n = parse_ternary(p)) < 0 ||
            expect(p, T_RP, "')'") < 0)
            return -1;
        p->nest--;
        return n;
    }
    default:
        describe(p, found, sizeof found);
        return fail(p, HT_EPARSE, start, "expected a number, a name or '(' but found %s",
                    found);
    }
}

static int parse_unary(struct parser *p)
{
    size_t start = p->tstart;
    int tok = p->tok, n;

    if (tok != T_MINUS && tok != T_PLUS && tok != T_NOT && tok != T_BNOT)
        return parse_primary(p);
    if (enter(p) < 0 || lex(p) < 0 || (n = parse_unary(p)) < 0)
        return -1;
    p->nest--;
    if (tok == T_PLUS)
        return n;
    return add_node(p, tok == T_MINUS ? HT__E_NEG : tok == T_NOT ? HT__E_NOT : HT__E_BNOT, n,
                    -1, -1, 0, start);
}

/* One left-associative level: operands from next, operators from the table. */
struct level {
    int tok;
    enum ht__ekind kind;
};

static int parse_left(struct parser *p, int (*next)(struct parser *), const struct level *ops,
                      size_t nops)
{
    int left = next(p);

    while (left >= 0) {
        size_t k, at = p->tstart;
        int right;
        for (k = 0; k < nops && ops[k].tok != p->tok; k++)
            ;
        if (k == nops)
            break;
        if (lex(p) < 0 || (right = next(p)) < 0)
            return -1;
        left = add_node(p, ops[k].kind, left, right, -1, 0, at);
    }
    return left;
}

static int parse_mul(struct parser *p)
{
    static const struct level ops[] = {
        {T_STAR, HT__E_MUL}, {T_SLASH, HT__E_DIV}, {T_PCT, HT__E_MOD}};
    return parse_left(p, parse_unary, ops, 3);
}

static int parse_add(struct parser *p)
{
    static const struct level ops[] = {{T_PLUS, HT__E_ADD}, {T_MINUS, HT__E_SUB}};
    return parse_left(p, parse_mul, ops, 2);
}

static int parse_shift(struct parser *p)
{
    static const struct level ops[] = {{T_SHL, HT__E_SHL}, {T_SHR, HT__E_SHR}};
    return parse_left(p, parse_add, ops, 2);
}

static int parse_rel(struct parser *p)
{
    static const struct level ops[] = {
        {T_LT, HT__E_LT}, {T_LE, HT__E_LE}, {T_GT, HT__E_GT}, {T_GE, HT__E_GE}};
    return parse_left(p, parse_shift, ops, 4);
}

static int parse_eq(struct parser *p)
{
    static const struct level ops[] = {{T_EQ, HT__E_EQ}, {T_NE, HT__E_NE}};
    return parse_left(p, parse_rel, ops, 2);
}

/* C puts & ^ | below the comparisons, so `WG & (WG - 1) == 0` is `WG & ((WG - 1) == 0)`,
 * as a C compiler reads it. */
static int parse_band(struct parser *p)
{
    static const struct level ops[] = {{T_BAND, HT__E_BAND}};
    return parse_left(p, parse_eq, ops, 1);
}

static int parse_bxor(struct parser *p)
{
    static const struct level ops[] = {{T_BXOR, HT__E_BXOR}};
    return parse_left(p, parse_band, ops, 1);
}

static int parse_bor(struct parser *p)
{
    static const struct level ops[] = {{T_BOR, HT__E_BOR}};
    return parse_left(p, parse_bxor, ops, 1);
}

static int parse_and(struct parser *p)
{
    static const struct level ops[] = {{T_AND, HT__E_AND}};
    return parse_left(p, parse_bor, ops, 1);
}

static int parse_or(struct parser *p)
{
    static const struct level ops[] = {{T_OR, HT__E_OR}};
    return parse_left(p, parse_and, ops, 1);
}

/* cond ? a : b, where a is any expression and b binds right (a ? b : c ? d : e is
 * a ? b : (c ? d : e)), as in C. */
static int parse_ternary(struct parser *p)
{
    int cond, a, b;
    size_t at;

    if ((cond = parse_or(p)) < 0)
        return -1;
    if (p->tok == T_QUEST) {
        at = p->tstart;
        if (enter(p) < 0 || lex(p) < 0 || (a = parse_ternary(p)) < 0 || expect(p, T_COLON, "':'") < 0 ||
            (b = parse_ternary(p)) < 0)
            return -1;
        p->nest--;
        cond = add_node(p, HT__E_COND, cond, a, b, 0, at);
    }
    return cond;
}

int ht__expr_parse(struct ht_expr *e, const char *src, const struct ht_names *names,
                   struct ht_error *err)
{
    struct parser p;
    char found[64];

    memset(&p, 0, sizeof p);
    p.src = src;
    p.names = names;
    p.err = err;
    p.e = e;
    if (lex(&p) < 0)
        return p.rc;
    if (p.tok == T_END) {
        fail(&p, HT_EPARSE, 0, "empty expression");
        return p.rc;
    }
    e->root = parse_ternary(&p);
    if (e->root < 0)
        return p.rc;
    if (p.tok != T_END) {
        if (p.tok == T_RP) {
            fail(&p, HT_EPARSE, p.tstart, "unmatched ')'");
        } else {
            describe(&p, found, sizeof found);
            fail(&p, HT_EPARSE, p.tstart, "expected an operator but found %s", found);
        }
        return p.rc;
    }
    return 0;
}
