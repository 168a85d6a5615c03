/* Kernel Tuner's T1 input format into a hetune spec (include/hetune/interop.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/expr.h"
#include "hetune/interop.h"
#include "util/util.h"

/* Refuses the field at path: HT_ESPEC with err->field the path (err never NULL: every
 * caller passes its import's, import_init). */
static int refuse(struct ht_error *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(struct ht_error *err, const char *path, const char *fmt, ...)
{
    char text[1024];
    va_list ap;

    if (err->code != 0)
        return err->code;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(err->field, sizeof err->field, "%s", path);
    /* ht_error_format names the field: the text need not start with it too. */
    size_t n = strlen(path);
    int named = !strncmp(text, path, n) && !strncmp(text + n, ": ", 2);
    return ht_error_set(err, HT_ESPEC, "%s", named ? text + n + 2 : text);
}

/* Refuses any key of obj (at path) that is not in known (NULL-terminated). */
static int check_keys(json_t *obj, const char *path, const char *const *known,
                      struct ht_error *err)
{
    const char *key;
    json_t *v;
    char field[256];

    if (!json_is_object(obj))
        return refuse(err, path, "%s: expected an object", path);
    json_object_foreach(obj, key, v) {
        size_t i;
        for (i = 0; known[i] && strcmp(known[i], key); i++)
            ;
        if (!known[i]) {
            snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
            return refuse(err, field, "%s: not a field of the T1 format hetune knows", field);
        }
    }
    return 0;
}

static const char *get_string(json_t *obj, const char *key, const char *path,
                              struct ht_error *err)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_string(v)) {
        char field[256];
        /* A path and key too long for the field are cut, not the message. */
        snprintf(field, sizeof field, "%.200s.%.50s", path, key);
        refuse(err, field, "%s: expected a string", field);
        return NULL;
    }
    return json_string_value(v);
}

/* The names an imported expression may use: the parameters and hetune's device variables. */
static const char *const device_vars[] = {
    "max_work_group_size", "max_work_item_size_0", "max_work_item_size_1",
    "max_work_item_size_2", "compute_units", "local_mem_size", "global_mem_size",
    "max_mem_alloc_size", "is_cpu", "is_gpu",
};

struct import {
    const char **names; /* parameters, then ProblemSize_k, then device_vars */
    size_t nparams, nnames;
    json_t *values;     /* each parameter's values, by name (borrowed from the spec) */
    size_t nsizes;      /* ProblemSize entries, named ProblemSize_0.. in expressions */
    /* Never NULL (import_init): the translation reads err->code as it goes, the first
     * error kept, so a caller's err NULL becomes own. */
    struct ht_error *err;
    struct ht_error own;
};

/* Starts an import that tells its errors in err, or in im->own when err is NULL. */
static void import_init(struct import *im, struct ht_error *err)
{
    memset(im, 0, sizeof *im);
    im->err = err ? err : &im->own;
}

static const char *const problem_size_names[] = {"ProblemSize_0", "ProblemSize_1",
                                                 "ProblemSize_2"};

/* max(P) or min(P) of one tuning parameter P (Kernel Tuner evaluates it over P's values,
 * as in an argument's Size): the value as text in buf, or 0 when w (len letters, p after
 * them) is not such a call. *end is set past the closing parenthesis. */
static int param_extreme(struct import *im, const char *w, size_t len, const char *p,
                         char *buf, size_t size, const char **end)
{
    const char *a = p, *b;
    json_t *vals = NULL, *v;
    size_t i;
    int is_max = len == 3 && !strncmp(w, "max", 3), found = 0;
    json_int_t best = 0;

    if (!(is_max || (len == 3 && !strncmp(w, "min", 3))) || !im->values)
        return 0;
    while (*a == ' ')
        a++;
    if (*a++ != '(')
        return 0;
    while (*a == ' ')
        a++;
    for (b = a; isalnum((unsigned char)*b) || *b == '_'; b++)
        ;
    if (b == a)
        return 0;
    for (i = 0; i < im->nparams; i++)
        if (strlen(im->names[i]) == (size_t)(b - a) && !strncmp(im->names[i], a, (size_t)(b - a)))
            vals = json_object_get(json_object_get(im->values, im->names[i]), "values");
    while (*b == ' ')
        b++;
    if (!vals || *b != ')')
        return 0;
    json_array_foreach(vals, i, v)
        if (!found++ || (is_max ? json_integer_value(v) > best : json_integer_value(v) < best))
            best = json_integer_value(v);
    snprintf(buf, size, "%lld", (long long)best);
    *end = b + 1;
    return 1;
}

/* Python's true division ("/"; "//" is C's integer division), marked by translate with a
 * byte that no expression holds until a comparison gives it an exact integer form
 * (comparison below); expression refuses one left over. */
#define TRUE_DIV '\x01'
/* Python's // and %, which floor where C's truncate: marked by translate, written out by
 * floor_ops once the operands are known. */
#define FLOOR_DIV '\x02'
#define PY_MOD '\x03'

/* A growing string; ok 0 once out of memory. */
/* The most bytes a restriction may grow to once translated. A true division compared with
 * a value copies its divisor four times (comparison below), and a divisor holding another
 * such comparison in parentheses is copied with it: the text grows fourfold per level, so
 * that 193 bytes of nested quotients became 480 MB in 195 s (found by fuzz/fuzz_expr.c).
 * A real restriction translates to a few hundred bytes. */
#define MAX_TRANSLATED 65536
/* The deepest nesting of parentheses a translated restriction may have (floor_ops recurses
 * once per level). */
#define MAX_NESTING 256

/* A growing string; ok 0 once out of memory or past MAX_TRANSLATED (too_long 1). */
struct sbuf {
    char *s;
    size_t len, cap;
    int ok, too_long;
};

static void put(struct sbuf *b, const char *p, size_t n)
{
    if (!b->ok)
        return;
    /* Also bounds n for gcc's -O3 flow analysis (stringop-overflow). */
    if (n > MAX_TRANSLATED || b->len + n + 1 > MAX_TRANSLATED) {
        b->ok = 0;
        b->too_long = 1;
        return;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = 2 * (b->len + n + 1) + 64;
        char *g = realloc(b->s, cap);
        if (!g) {
            b->ok = 0;
            return;
        }
        b->s = g;
        b->cap = cap;
    }
    if (n) /* p may be the NULL of an empty buffer (memcpy's arguments are never NULL) */
        memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static char *translate(struct import *im, const char *src, const char *path);
static void unchain(const char *c, size_t n, struct sbuf *out);
static void strip(const char *c, size_t *a, size_t *z);
static size_t quotient_at(const char *c, size_t a, size_t z);

/* The argument list of a call whose '(' is at p (past blanks): *a and *z bound the text
 * inside the parentheses; returns the position past the matching ')', or NULL. */
static const char *call_span(const char *p, const char **a, const char **z)
{
    int depth = 0;

    while (*p == ' ')
        p++;
    if (*p != '(')
        return NULL;
    *a = p + 1;
    for (; *p; p++) {
        depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
        if (depth == 0) {
            *z = p;
            return p + 1;
        }
    }
    return NULL;
}

/* ceil(X), floor(X) or int(X) (kind 'c', 'f', 'i') as an exact integer expression, where X
 * is an integer expression or a quotient P / Q of Python's true division: ceil_div(P, Q),
 * its mirror -ceil_div(-P, Q), or C's truncating P / Q. Owned by the caller; NULL after
 * refusing (a true division elsewhere in X) or when out of memory. */
static char *rounding(struct import *im, char kind, const char *arg, size_t len,
                      const char *src, const char *path)
{
    static const char *const names[] = {"ceil", "floor", "int"};
    const char *fn = names[kind == 'c' ? 0 : kind == 'f' ? 1 : 2];
    char *a = strndup(arg, len), *t = NULL, *res = NULL;
    struct sbuf c = {NULL, 0, 0, 1, 0};
    size_t s0 = 0, z, d, pa, pz, qa, qz;

    if (!a)
        goto nomem;
    if (!(t = translate(im, a, path)))
        goto cleanup;
    unchain(t, strlen(t), &c);
    put(&c, "", 0);
    if (!c.ok)
        goto nomem;
    z = c.len;
    strip(c.s, &s0, &z);
    d = quotient_at(c.s, s0, z);
    pa = s0, pz = d, qa = d + 1, qz = z;
    if (d != z) {
        strip(c.s, &pa, &pz);
        strip(c.s, &qa, &qz);
    }
    if (d == z ? memchr(c.s + s0, TRUE_DIV, z - s0) != NULL
               : memchr(c.s + pa, TRUE_DIV, pz - pa) || memchr(c.s + qa, TRUE_DIV, qz - qa)) {
        refuse(im->err, path, "%s: '%s(%s)' in '%s' has no exact form in hetune's integer "
               "expressions: %s of an integer expression or of one quotient P / Q is "
               "translated", path, fn, a, src, fn);
        goto cleanup;
    }
    if (d == z)
        res = ht__asprintf("(%.*s)", (int)(z - s0), c.s + s0);
    else if (kind == 'c')
        res = ht__asprintf("ceil_div((%.*s), (%.*s))", (int)(pz - pa), c.s + pa,
                           (int)(qz - qa), c.s + qa);
    else if (kind == 'f')
        res = ht__asprintf("(-ceil_div(-(%.*s), (%.*s)))", (int)(pz - pa), c.s + pa,
                           (int)(qz - qa), c.s + qa);
    else /* int() truncates toward zero, as C's division does */
        res = ht__asprintf("((%.*s) / (%.*s))", (int)(pz - pa), c.s + pa, (int)(qz - qa),
                           c.s + qa);
    if (!res)
        goto nomem;
    goto cleanup;
nomem:
    ht_error_set(im->err, HT_ENOMEM, "out of memory");
cleanup:
    free(a);
    free(t);
    free(c.s);
    return res;
}

/* min(a, b, c, ...) of three or more values as hetune's two-argument min and max nest:
 * min(a, min(b, c)), translated; min or max of one value that is not a tuning parameter is
 * refused (Python iterates it). Owned by the caller; NULL after refusing. */
static char *extreme(struct import *im, const char *w, const char *arg, size_t len,
                     const char *src, const char *path)
{
    size_t commas[64], ncommas = 0, i;
    int depth = 0;
    struct sbuf nested = {NULL, 0, 0, 1, 0};
    char *res = NULL;

    for (i = 0; i < len && ncommas < 64; i++) {
        depth += arg[i] == '(' ? 1 : arg[i] == ')' ? -1 : 0;
        if (depth == 0 && arg[i] == ',')
            commas[ncommas++] = i;
    }
    if (ncommas == 0) {
        refuse(im->err, path, "%s: '%.3s(%.*s)' in '%s': min and max of one value are "
               "translated for a tuning parameter only (its least or greatest value)", path,
               w, (int)len, arg, src);
        return NULL;
    }
    /* min(a, b, c) -> min(a, min(b, c)) */
    for (i = 0; i <= ncommas; i++) {
        size_t from = i ? commas[i - 1] + 1 : 0, to = i < ncommas ? commas[i] : len;
        while (from < to && arg[from] == ' ')
            from++;
        if (i < ncommas) {
            put(&nested, w, 3);
            put(&nested, "(", 1);
        }
        put(&nested, arg + from, to - from);
        if (i < ncommas)
            put(&nested, ", ", 2);
    }
    for (i = 0; i < ncommas; i++)
        put(&nested, ")", 1);
    put(&nested, "", 0);
    if (!nested.ok) {
        ht_error_set(im->err, HT_ENOMEM, "out of memory");
        free(nested.s);
        return NULL;
    }
    if (ncommas == 1) { /* hetune's own min(a, b): its arguments translated */
        char *inner = NULL;
        struct sbuf b = {NULL, 0, 0, 1, 0};
        put(&b, w, 3);
        put(&b, "(", 1);
        for (i = 0; i < 2; i++) {
            size_t from = i ? commas[0] + 1 : 0, to = i ? len : commas[0];
            while (from < to && arg[from] == ' ')
                from++;
            char *piece = strndup(arg + from, to - from);
            inner = piece ? translate(im, piece, path) : NULL;
            free(piece);
            if (!inner)
                break;
            put(&b, inner, strlen(inner));
            put(&b, i ? ")" : ", ", i ? 1 : 2);
            free(inner);
        }
        free(nested.s);
        if (i < 2 || !b.ok) {
            if (b.ok && !im->err->code)
                ht_error_set(im->err, HT_ENOMEM, "out of memory");
            free(b.s);
            return NULL;
        }
        return b.s;
    }
    res = translate(im, nested.s, path);
    free(nested.s);
    return res;
}

/* Python's operators into C's: and/or, //, True/False, and not, which binds looser than a
 * comparison in Python ("not a > b" is "!(a > b)"), so its operand runs to the next and/or
 * or closing parenthesis of its level. & | ^ are refused: they bind tighter than a
 * comparison in Python and looser in C. Owned by the caller; NULL after refusing or when
 * out of memory. */
static char *translate(struct import *im, const char *src, const char *path)
{
    size_t cap = 4 * strlen(src) + 16, n = 0, nnot = 0;
    int depth = 0, nots[64];
    char *out = malloc(cap);
    const char *p = src;

    if (!out) {
        ht_error_set(im->err, HT_ENOMEM, "out of memory");
        return NULL;
    }
    for (;;) {
        int at_end = !*p, closes = *p == ')';
        int word_and = 0;
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *w = p;
            while (isalnum((unsigned char)w[0]) || w[0] == '_')
                w++;
            word_and = (w - p == 3 && !strncmp(p, "and", 3)) ||
                       (w - p == 2 && !strncmp(p, "or", 2));
        }
        /* Close the not operands that end here. */
        while (nnot > 0 && nots[nnot - 1] == depth && (at_end || closes || word_and)) {
            while (n > 0 && out[n - 1] == ' ')
                n--;
            out[n++] = ')';
            if (word_and || closes)
                out[n++] = ' ';
            nnot--;
        }
        if (at_end)
            break;
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *w = p, *rep = NULL;
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
            size_t len = (size_t)(p - w);
            char num[32], idx = 0;
            const char *after = NULL, *aa = NULL, *az = NULL;
            if (len == 11 && !strncmp(w, "ProblemSize", 11) && p[0] == '[' &&
                p[1] >= '0' && p[1] < '0' + (char)im->nsizes && p[2] == ']') {
                idx = p[1];
                p += 3;
            } else if (param_extreme(im, w, len, p, num, sizeof num, &after)) {
                p = after;
                memcpy(out + n, num, strlen(num));
                n += strlen(num);
                continue;
            } else if (((len == 4 && !strncmp(w, "ceil", 4)) ||
                        (len == 5 && !strncmp(w, "floor", 5)) ||
                        (len == 3 && (!strncmp(w, "int", 3) || !strncmp(w, "min", 3) ||
                                      !strncmp(w, "max", 3)))) &&
                       (after = call_span(p, &aa, &az)) != NULL) {
                char *call = w[0] == 'm' ? extreme(im, w, aa, (size_t)(az - aa), src, path)
                                         : rounding(im, w[0], aa, (size_t)(az - aa), src, path);
                if (!call) {
                    free(out);
                    return NULL;
                }
                size_t need = n + strlen(call) + 4 * strlen(after) + 16;
                if (need > cap) {
                    char *g = realloc(out, need);
                    if (!g) {
                        free(call);
                        free(out);
                        ht_error_set(im->err, HT_ENOMEM, "out of memory");
                        return NULL;
                    }
                    out = g;
                    cap = need;
                }
                memcpy(out + n, call, strlen(call));
                n += strlen(call);
                free(call);
                p = after;
                continue;
            }
            if (idx) rep = problem_size_names[idx - '0'];
            else if (len == 3 && !strncmp(w, "and", 3)) rep = "&&";
            else if (len == 2 && !strncmp(w, "or", 2)) rep = "||";
            else if (len == 4 && !strncmp(w, "True", 4)) rep = "1";
            else if (len == 5 && !strncmp(w, "False", 5)) rep = "0";
            else if (len == 3 && !strncmp(w, "not", 3) && nnot < 64) {
                nots[nnot++] = depth;
                rep = "!(";
                while (*p == ' ')
                    p++;
            }
            if (rep) {
                memcpy(out + n, rep, strlen(rep));
                n += strlen(rep);
            } else {
                memcpy(out + n, w, len);
                n += len;
            }
        } else if ((p[0] == '*' && p[1] == '*') || strchr("&|^", *p)) {
            free(out);
            refuse(im->err, path, "%s: '%.*s' in '%s' has no safe form in hetune's expressions",
                   path, *p == '*' ? 2 : 1, p, src);
            return NULL;
        } else if (p[0] == '/' && p[1] == '/') {
            out[n++] = FLOOR_DIV;
            p += 2;
        } else if (p[0] == '%') {
            out[n++] = PY_MOD;
            p++;
        } else if (p[0] == '/') {
            out[n++] = TRUE_DIV;
            p++;
        } else {
            depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    return out;
}

/* The length of the comparison operator at p (<, <=, >, >=, ==, !=), or 0. */
static size_t comparison_at(const char *p)
{
    if ((p[0] == '<' || p[0] == '>' || p[0] == '=' || p[0] == '!') && p[1] == '=')
        return 2;
    return p[0] == '<' || p[0] == '>' ? 1 : 0;
}

static void unchain(const char *c, size_t n, struct sbuf *out);

/* Copies an operand, its parenthesised parts unchained inside. */
static void unchain_operand(const char *c, size_t n, struct sbuf *out)
{
    size_t i = 0;
    /* Stops once out is full: the walk itself would otherwise grow as the text does. */
    while (i < n && out->ok) {
        if (c[i] != '(') {
            put(out, c + i++, 1);
            continue;
        }
        /* The matching ')', or none (an unbalanced one is left to the parser). */
        size_t j = i + 1;
        int depth = 1;
        for (; j < n; j++) {
            depth += c[j] == '(' ? 1 : c[j] == ')' ? -1 : 0;
            if (depth == 0)
                break;
        }
        put(out, "(", 1);
        unchain(c + i + 1, j - i - 1, out);
        if (j < n) {
            put(out, ")", 1);
            j++;
        }
        i = j;
    }
}

/* Narrows c[*a, *z) to what its blanks and its parentheses around the whole enclose. */
static void strip(const char *c, size_t *a, size_t *z)
{
    for (;;) {
        size_t i;
        int depth = 0;
        while (*a < *z && c[*a] == ' ')
            (*a)++;
        while (*z > *a && c[*z - 1] == ' ')
            (*z)--;
        if (*z - *a < 2 || c[*a] != '(' || c[*z - 1] != ')')
            return;
        for (i = *a; i < *z; i++) {
            depth += c[i] == '(' ? 1 : c[i] == ')' ? -1 : 0;
            if (depth == 0)
                break;
        }
        if (i != *z - 1)
            return;
        (*a)++;
        (*z)--;
    }
}

/* Where c[a, z) is "P / Q" with Python's true division as its last operation (the last
 * operator of the top level, which has only * / // %): the position of the '/'; else z. */
static size_t quotient_at(const char *c, size_t a, size_t z)
{
    size_t last = z, div = z;
    int depth = 0, operand = 0;

    for (size_t i = a; i < z; i++) {
        char ch = c[i];
        depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
        if (depth == 0 && strchr("*%/" "\x01\x02\x03", ch))
            last = i;
        if (depth == 0 && ch == TRUE_DIV) {
            if (div != z)
                return z;
            div = i;
        }
        /* A binary + or -, a shift: the quotient is not the last operation. */
        if (depth == 0 && (((ch == '+' || ch == '-') && operand) || ch == '<' || ch == '>'))
            return z;
        if (ch != ' ')
            operand = isalnum((unsigned char)ch) || ch == '_' || ch == ')';
    }
    return div != z && last == div ? div : z;
}

/* The comparison that holds when both sides are swapped, or multiplied by a negative. */
static const char *mirrored(const char *op, size_t len)
{
    if (op[0] == '<')
        return len == 2 ? ">=" : ">";
    if (op[0] == '>')
        return len == 2 ? "<=" : "<";
    return op[0] == '=' ? "==" : "!=";
}

/* A part of an expression's text c: c[a, z). */
struct span {
    size_t a, z;
};

/* Copies the comparison "left op right", the three spans of c. Where one side is a
 * quotient of Python's true division, P / Q, it becomes the exact integer comparison of P
 * with the other side times Q, the operator mirrored when Q is negative: "P / Q > X" is
 * "(0 / (Q) == 0 && ((Q) > 0 ? (P) > (X) * (Q) : (P) < (X) * (Q)))", where 0 / (Q) makes a
 * zero Q invalid, as a division by zero is in hetune (Python raises). Anything else is
 * copied as it is (a true division left in it is refused by expression). */
static void comparison(const char *c, struct span left, struct span at, struct span right,
                       struct sbuf *out)
{
    const char *op = c + at.a;
    size_t opl = at.z - at.a, a = left.a, ae = left.z, o = right.a, ze = right.z;
    size_t la = a, lz = ae, ra = o, rz = ze, pa, pz, qa, qz, xa, xz;
    size_t ld, rd;
    char pos[3], neg[3];

    strip(c, &la, &lz);
    strip(c, &ra, &rz);
    ld = quotient_at(c, la, lz);
    rd = quotient_at(c, ra, rz);
    if ((ld == lz) == (rd == rz)) {
        unchain_operand(c + a, ae - a, out);
        put(out, " ", 1);
        put(out, op, opl);
        put(out, " ", 1);
        unchain_operand(c + o, ze - o, out);
        return;
    }
    snprintf(pos, sizeof pos, "%.*s", (int)opl, op);
    if (ld != lz) {
        pa = la, pz = ld, qa = ld + 1, qz = lz, xa = ra, xz = rz;
    } else {
        pa = ra, pz = rd, qa = rd + 1, qz = rz, xa = la, xz = lz;
        snprintf(pos, sizeof pos, "%s", mirrored(op, opl));
    }
    snprintf(neg, sizeof neg, "%s", mirrored(pos, strlen(pos)));
    strip(c, &pa, &pz);
    strip(c, &qa, &qz);
    for (int k = 0; k < 2; k++) {
        put(out, k ? " : (" : "(0 / (", k ? 4 : 6);
        if (!k) {
            unchain_operand(c + qa, qz - qa, out);
            put(out, ") == 0 && ((", 12);
            unchain_operand(c + qa, qz - qa, out);
            put(out, ") > 0 ? (", 9);
        }
        unchain_operand(c + pa, pz - pa, out);
        put(out, ") ", 2);
        put(out, k ? neg : pos, strlen(k ? neg : pos));
        put(out, " (", 2);
        unchain_operand(c + xa, xz - xa, out);
        put(out, ") * (", 5);
        unchain_operand(c + qa, qz - qa, out);
        put(out, k ? ")))" : ")", k ? 3 : 1);
    }
}

/* Python's chained comparisons into C's: "a < b <= c" means "a < b and b <= c" in Python
 * and "(a < b) <= c" in C, so an operand region (between && || ? : , at one level of
 * parentheses) with several comparisons at its own level becomes "(a < b && b <= c)". */
static void unchain(const char *c, size_t n, struct sbuf *out)
{
    size_t start = 0;

    for (;;) {
        size_t end, ops[64], opl[64], nops = 0;
        if (!out->ok)
            return;
        int depth = 0;
        for (end = start; end < n; end++) {
            char ch = c[end];
            if (ch == '(')
                depth++;
            else if (ch == ')')
                depth--;
            else if (depth == 0 && ((ch == '&' && c[end + 1] == '&') ||
                                    (ch == '|' && c[end + 1] == '|') || ch == '?' ||
                                    ch == ':' || ch == ','))
                break;
            else if (depth == 0 && comparison_at(c + end) && nops < 64) {
                ops[nops] = end;
                opl[nops++] = comparison_at(c + end);
                end += opl[nops - 1] - 1;
            }
        }
        if (nops == 1 && memchr(c + start, TRUE_DIV, end - start)) {
            comparison(c, (struct span){start, ops[0]}, (struct span){ops[0], ops[0] + opl[0]},
                       (struct span){ops[0] + opl[0], end}, out);
        } else if (nops < 2) {
            unchain_operand(c + start, end - start, out);
        } else {
            /* The region's own leading and trailing blanks stay outside the parentheses. */
            size_t lead = 0, trail = 0;
            while (start + lead < ops[0] && c[start + lead] == ' ')
                lead++;
            while (end - trail > ops[nops - 1] && c[end - trail - 1] == ' ')
                trail++;
            put(out, c + start, lead);
            put(out, "(", 1);
            for (size_t m = 0; m < nops; m++) {
                size_t a = m == 0 ? start : ops[m - 1] + opl[m - 1];
                size_t z = m + 1 == nops ? end : ops[m + 1];
                size_t o = ops[m] + opl[m];
                size_t ae = ops[m], ze = z;
                while (a < ae && c[a] == ' ')
                    a++;
                while (ae > a && c[ae - 1] == ' ')
                    ae--;
                while (o < ze && c[o] == ' ')
                    o++;
                while (ze > o && c[ze - 1] == ' ')
                    ze--;
                if (m)
                    put(out, " && ", 4);
                comparison(c, (struct span){a, ae}, (struct span){ops[m], ops[m] + opl[m]},
                           (struct span){o, ze}, out);
            }
            put(out, ")", 1);
            put(out, c + end - trail, trail);
        }
        if (end >= n)
            return;
        size_t sl = c[end] == '&' || c[end] == '|' ? 2 : 1;
        put(out, c + end, sl);
        start = end + sl;
    }
}

/* 1 when c[a, z) cannot be negative: no '-' in it, and every name a tuning parameter whose
 * values are all >= 0, a problem size, a device variable, or a function of hetune that
 * gives no negative value from such arguments. */
static int nonnegative(const struct import *im, const char *c, size_t a, size_t z)
{
    static const char *const fns[] = {"min", "max", "ceil_div", "is_pow2", "log2", NULL};
    size_t i = a;

    while (i < z) {
        if (c[i] == '-' || c[i] == '~')
            return 0;
        if (!(isalpha((unsigned char)c[i]) || c[i] == '_') ||
            (i > a && (isalnum((unsigned char)c[i - 1]) || c[i - 1] == '_'))) {
            i++;
            continue;
        }
        size_t b = i, k;
        while (i < z && (isalnum((unsigned char)c[i]) || c[i] == '_'))
            i++;
        size_t len = i - b, j = i;
        int ok = 0;
        while (j < z && c[j] == ' ')
            j++;
        if (j < z && c[j] == '(') {
            for (k = 0; fns[k] && !ok; k++)
                ok = strlen(fns[k]) == len && !strncmp(c + b, fns[k], len);
        } else {
            for (k = im->nparams; k < im->nnames && !ok; k++)
                ok = strlen(im->names[k]) == len && !strncmp(c + b, im->names[k], len);
            for (k = 0; k < im->nparams && !ok && im->values; k++)
                if (strlen(im->names[k]) == len && !strncmp(c + b, im->names[k], len)) {
                    json_t *v, *vals = json_object_get(json_object_get(im->values,
                                                                       im->names[k]), "values");
                    size_t m;
                    ok = json_array_size(vals) > 0;
                    json_array_foreach(vals, m, v)
                        ok = ok && json_integer_value(v) >= 0;
                }
        }
        if (!ok)
            return 0;
    }
    return 1;
}

static void floor_ops(const struct import *im, const char *c, const size_t *match, size_t a,
                      size_t z, struct sbuf *out);

/* For every '(' of c, the index of its ')' (SIZE_MAX where it has none), so that the
 * passes below skip a parenthesis in one step: scanning for it at every level of nesting
 * took seconds on a translated text of 64 KiB (found by fuzzing). NULL: out of memory. */
static size_t *paren_matches(const char *c, size_t n, size_t *deepest)
{
    size_t *match = malloc((n ? n : 1) * sizeof *match), *open, depth = 0;

    *deepest = 0;
    open = malloc((n ? n : 1) * sizeof *open);
    if (!match || !open) {
        free(match);
        free(open);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        match[i] = SIZE_MAX;
        if (c[i] == '(') {
            open[depth++] = i;
            *deepest = depth > *deepest ? depth : *deepest;
        } else if (c[i] == ')' && depth > 0)
            match[open[--depth]] = i;
    }
    free(open);
    return match;
}

/* Copies c[a, z), its parenthesised parts through floor_ops. */
static void floor_copy(const struct import *im, const char *c, const size_t *match, size_t a,
                       size_t z, struct sbuf *out)
{
    while (a < z && out->ok) {
        if (c[a] != '(') {
            put(out, c + a++, 1);
            continue;
        }
        size_t j = match[a] < z ? match[a] : z;
        put(out, "(", 1);
        floor_ops(im, c, match, a + 1, j, out);
        if (j < z) {
            put(out, ")", 1);
            j++;
        }
        a = j;
    }
}

/* Writes c[a, z) with Python's // and % (FLOOR_DIV, PY_MOD) as exact C: where both operands
 * cannot be negative, C's / and % (the same there); else floor(x / y) as
 * -ceil_div(-(x), y) and x mod y as ((x) % (y) + (y)) % (y), which has y's sign as
 * Python's has. A run of * / % // between operators that bind looser is a left-to-right
 * chain of factors (a unary sign, a name, a number, a call or a parenthesis each). */
static void floor_ops(const struct import *im, const char *c, const size_t *match, size_t a,
                      size_t z, struct sbuf *out)
{
    size_t seg = a;

    while (seg < z && out->ok) {
        size_t end = seg, ops = 0;
        int depth = 0, operand = 0;
        for (; end < z; end++) {
            char ch = c[end];
            if (ch == '(' && depth == 0) {
                /* The whole parenthesis at once; one without its ')' runs to the end. */
                if (match[end] >= z) {
                    end = z;
                    break;
                }
                end = match[end];
                operand = 1;
                continue;
            }
            if (ch == '(')
                depth++;
            else if (ch == ')')
                depth--;
            else if (depth == 0 && (ch == FLOOR_DIV || ch == PY_MOD))
                ops++;
            else if (depth == 0 && (strchr("<>=?:,&|^", ch) || (ch == '!' && c[end + 1] == '=') ||
                                    ((ch == '+' || ch == '-') && operand)))
                break;
            if (ch != ' ')
                operand = isalnum((unsigned char)ch) || ch == '_' || ch == ')';
        }
        if (!ops) {
            floor_copy(im, c, match, seg, end, out);
        } else {
            struct sbuf acc = {NULL, 0, 0, 1, 0};
            size_t i = seg, fa = 0, fz = 0, acc_a = 0;
            char op = 0;
            int acc_raw = 1; /* acc is still c[acc_a, fz): its sign can be judged */
            put(out, "", 0);
            while (i < end) {
                /* The next factor: blanks, unary signs, then a primary. */
                while (i < end && c[i] == ' ')
                    i++;
                fa = i;
                while (i < end && strchr("-+!~ ", c[i]))
                    i++;
                if (i < end && c[i] == '(') {
                    i = match[i] < end ? match[i] + 1 : end;
                } else {
                    while (i < end && (isalnum((unsigned char)c[i]) || c[i] == '_'))
                        i++;
                    size_t j = i;
                    while (j < end && c[j] == ' ')
                        j++;
                    if (j < end && c[j] == '(') /* a call */
                        i = match[j] < end ? match[j] + 1 : end;
                }
                fz = i;
                while (fz > fa && c[fz - 1] == ' ')
                    fz--;
                struct sbuf f = {NULL, 0, 0, 1, 0};
                floor_copy(im, c, match, fa, fz, &f);
                put(&f, "", 0);
                if (!f.ok) { /* a factor cut short must not pass as translated */
                    acc.ok = 0;
                    acc.too_long |= f.too_long;
                }
                if (!op) {
                    put(&acc, f.s ? f.s : "", f.len);
                    acc_a = fa;
                } else {
                    struct sbuf next = {NULL, 0, 0, 1, 0};
                    int plain = op != FLOOR_DIV && op != PY_MOD;
                    if (!plain && acc_raw && nonnegative(im, c, acc_a, fz))
                        plain = 1;
                    if (plain) {
                        char o = op == FLOOR_DIV ? '/' : op == PY_MOD ? '%' : op;
                        put(&next, acc.s, acc.len);
                        put(&next, " ", 1);
                        put(&next, &o, 1);
                        put(&next, " ", 1);
                        put(&next, f.s, f.len);
                    } else if (op == FLOOR_DIV) {
                        put(&next, "(-ceil_div(-(", 13);
                        put(&next, acc.s, acc.len);
                        put(&next, "), ", 3);
                        put(&next, f.s, f.len);
                        put(&next, "))", 2);
                        acc_raw = 0;
                    } else {
                        put(&next, "(((", 3);
                        put(&next, acc.s, acc.len);
                        put(&next, ") % (", 5);
                        put(&next, f.s, f.len);
                        put(&next, ") + (", 5);
                        put(&next, f.s, f.len);
                        put(&next, ")) % (", 6);
                        put(&next, f.s, f.len);
                        put(&next, "))", 2);
                        acc_raw = 0;
                    }
                    put(&next, "", 0);
                    free(acc.s);
                    acc = next;
                }
                free(f.s);
                while (i < end && c[i] == ' ')
                    i++;
                if (i >= end)
                    break;
                op = c[i++]; /* * / % // or a true division left for expression to refuse */
            }
            if (!acc.ok) {
                out->ok = 0;
                out->too_long |= acc.too_long;
            }
            /* The segment's own leading and trailing blanks stay as they were. */
            size_t lead = seg;
            while (lead < end && c[lead] == ' ')
                lead++;
            put(out, c + seg, lead - seg);
            put(out, acc.s ? acc.s : "", acc.len);
            size_t trail = end;
            while (trail > lead && c[trail - 1] == ' ')
                trail--;
            put(out, c + trail, end - trail);
            free(acc.s);
        }
        if (end >= z)
            return;
        /* The operator that ended the segment: two characters for && || <= >= == !=. */
        size_t ol = ((c[end] == '&' || c[end] == '|') && c[end + 1] == c[end]) ||
                    (strchr("<>=!", c[end]) && c[end + 1] == '=') ? 2 : 1;
        put(out, c + end, ol);
        seg = end + ol;
    }
}

/* Translates src and checks that it compiles; sets *out (owned) to the C form. */
static int expression(struct import *im, const char *src, const char *path, char **out)
{
    struct ht_names names = {im->nnames, im->names};
    struct ht_expr *e = NULL;
    char *t = translate(im, src, path), *c;
    struct sbuf chained = {NULL, 0, 0, 1, 0};

    if (!t)
        return im->err->code;
    unchain(t, strlen(t), &chained);
    free(t);
    put(&chained, "", 0);
    if (!chained.ok) {
        free(chained.s);
        if (chained.too_long)
            return refuse(im->err, path, "%s: '%.200s' grows past %d bytes once translated "
                          "(each true division compared with a value repeats its divisor, "
                          "and the quotients nested in it repeat theirs): simplify it",
                          path, src, MAX_TRANSLATED);
        return ht_error_set(im->err, HT_ENOMEM, "out of memory");
    }
    c = chained.s;
    if (!strchr(c, TRUE_DIV)) {
        struct sbuf floored = {NULL, 0, 0, 1, 0};
        size_t deepest = 0, *match = paren_matches(c, strlen(c), &deepest);
        /* floor_ops recurses once per level: a bound, where the stack is sure to hold
         * (a translated text of 64 KiB nested thousands deep overflowed it, fuzzing). */
        if (match && deepest > MAX_NESTING) {
            free(match);
            free(c);
            return refuse(im->err, path, "%s: '%.200s' nests parentheses %zu deep once "
                          "translated (at most %d): simplify it", path, src, deepest,
                          MAX_NESTING);
        }
        if (match)
            floor_ops(im, c, match, 0, strlen(c), &floored);
        else
            floored.ok = 0;
        free(match);
        put(&floored, "", 0);
        free(c);
        if (!floored.ok) {
            free(floored.s);
            if (floored.too_long)
                return refuse(im->err, path, "%s: '%.200s' grows past %d bytes once "
                              "translated (Python's // and %% become exact C that repeats "
                              "their operands): simplify it", path, src, MAX_TRANSLATED);
            return ht_error_set(im->err, HT_ENOMEM, "out of memory");
        }
        c = floored.s;
    }
    if (strchr(c, TRUE_DIV)) {
        free(c);
        return refuse(im->err, path, "%s: '/' in '%s' is Python's true division, which has no "
                      "exact form in hetune's integer expressions there: only a quotient "
                      "compared with a value is translated (a / b > 1); write '//' for "
                      "integer division", path, src);
    }
    if (ht_expr_compile(c, &names, &e, im->err) != 0) {
        snprintf(im->err->field, sizeof im->err->field, "%.*s",
                 (int)sizeof im->err->field - 1, path);
        free(c);
        return im->err->code;
    }
    ht_expr_free(e);
    /* import-kt -v shows each translation: the step most worth checking by eye. */
    ht__log(HT_LOG_DEBUG, "%s: '%s' translated to '%s'", path, src, c);
    *out = c;
    return 0;
}

/* A T1 Values string is a Python expression that Kernel Tuner evaluates to a list: a list
 * of integer expressions, a list comprehension over range() with if clauses, or
 * list(range(...)). It is evaluated here as Python would, on exact rationals (so a true
 * division is exact, and a value that Python would give as a float is refused, not cut):
 * int, + - * / // % ** (floor division and remainder as Python's), comparisons (chained),
 * and or not, x if c else y, ceil floor min max int. Anything else is refused naming the
 * expression. */
struct q {
    long long n, d; /* n / d, d > 0, in lowest terms */
    int kind;       /* Python's type: 0 int, 1 float, 2 bool */
};

#define PY_MAX_VARS 8
#define PY_MAX_VALUES 100000

struct py {
    const char *s, *path;
    size_t i;
    int skip; /* parse only: no arithmetic and no name lookups */
    const char *var[PY_MAX_VARS];
    size_t varlen[PY_MAX_VARS];
    long long val[PY_MAX_VARS];
    int nvars, depth;
    struct ht_error *err;
};

static int py_fail(struct py *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int py_fail(struct py *p, const char *fmt, ...)
{
    char text[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    refuse(p->err, p->path, "%s: '%s': %s", p->path, p->s, text);
    return -1;
}

static long long gcd_ll(long long a, long long b)
{
    if (a < 0)
        a = -a;
    while (b) {
        long long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* n / d in lowest terms with d > 0; -1 on overflow (n or d LLONG_MIN). */
static int q_make(struct py *p, long long n, long long d, int kind, struct q *out)
{
    if (d == 0)
        return py_fail(p, "division by zero");
    if (n == LLONG_MIN || d == LLONG_MIN)
        return py_fail(p, "a value out of 64-bit range");
    if (d < 0) {
        n = -n;
        d = -d;
    }
    long long g = gcd_ll(n, d);
    out->n = g ? n / g : n;
    out->d = g ? d / g : d;
    out->kind = kind;
    return 0;
}

static int q_over(struct py *p)
{
    return py_fail(p, "a value out of 64-bit range");
}

/* a op b for op in + - * /: exact. */
static int q_arith(struct py *p, struct q a, char op, struct q b, struct q *out)
{
    long long x, y, n, d;
    int kind = (a.kind == 1 || b.kind == 1 || op == '/') ? 1 : 0;

    if (op == '*') {
        if (__builtin_mul_overflow(a.n, b.n, &n) || __builtin_mul_overflow(a.d, b.d, &d))
            return q_over(p);
    } else if (op == '/') {
        if (b.n == 0)
            return py_fail(p, "division by zero");
        if (__builtin_mul_overflow(a.n, b.d, &n) || __builtin_mul_overflow(a.d, b.n, &d))
            return q_over(p);
    } else {
        if (__builtin_mul_overflow(a.n, b.d, &x) || __builtin_mul_overflow(b.n, a.d, &y) ||
            __builtin_mul_overflow(a.d, b.d, &d) ||
            (op == '+' ? __builtin_add_overflow(x, y, &n) : __builtin_sub_overflow(x, y, &n)))
            return q_over(p);
    }
    return q_make(p, n, d, kind, out);
}

static long long q_floor(struct q a)
{
    return a.n / a.d - (a.n % a.d != 0 && a.n < 0);
}

/* -1, 0 or 1 as a is below, equal to or above b; sets *ok 0 on overflow. */
static int q_cmp(struct q a, struct q b, int *ok)
{
    long long x, y;
    if (__builtin_mul_overflow(a.n, b.d, &x) || __builtin_mul_overflow(b.n, a.d, &y)) {
        *ok = 0;
        return 0;
    }
    return (x > y) - (x < y);
}

static void py_blank(struct py *p)
{
    while (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r')
        p->i++;
}

/* 1 and past it when the next token is the keyword or name w. */
static int py_word(struct py *p, const char *w)
{
    size_t n = strlen(w);
    py_blank(p);
    if (strncmp(p->s + p->i, w, n) || isalnum((unsigned char)p->s[p->i + n]) ||
        p->s[p->i + n] == '_')
        return 0;
    p->i += n;
    return 1;
}

/* 1 and past it when the next token is the operator o (not the start of a longer one). */
static int py_op(struct py *p, const char *o)
{
    size_t n = strlen(o);
    py_blank(p);
    if (strncmp(p->s + p->i, o, n))
        return 0;
    char next = p->s[p->i + n];
    if ((o[0] == '*' || o[0] == '/') && n == 1 && next == o[0])
        return 0; /* '*' of '**', '/' of '//' */
    if ((o[0] == '<' || o[0] == '>' || o[0] == '=') && n == 1 && next == '=')
        return 0;
    p->i += n;
    return 1;
}

static int py_expect(struct py *p, const char *o)
{
    if (py_op(p, o))
        return 0;
    return py_fail(p, "expected '%s' at column %zu", o, p->i + 1);
}

static int py_test(struct py *p, struct q *out);
static int py_or(struct py *p, struct q *out);

static int py_truth(struct q a)
{
    return a.n != 0;
}

/* The arguments of a call, at p after its '(': at most max, at least one. */
static int py_args(struct py *p, struct q *a, int max, int *n)
{
    *n = 0;
    do {
        if (*n == max)
            return py_fail(p, "too many arguments at column %zu", p->i + 1);
        if (py_test(p, &a[(*n)++]) != 0)
            return -1;
    } while (py_op(p, ","));
    return py_expect(p, ")");
}

static int py_call(struct py *p, const char *w, size_t len, struct q *out)
{
    struct q a[16];
    int n, i;

    if (py_args(p, a, 16, &n) != 0)
        return -1;
    if (p->skip)
        return 0;
    if ((len == 4 && !strncmp(w, "ceil", 4)) || (len == 5 && !strncmp(w, "floor", 5)) ||
        (len == 3 && !strncmp(w, "int", 3))) {
        if (n != 1)
            return py_fail(p, "%.*s takes one argument", (int)len, w);
        long long f = q_floor(a[0]);
        if (w[0] == 'c' && a[0].n % a[0].d != 0)
            f++;
        else if (w[0] == 'i' && a[0].n < 0 && a[0].n % a[0].d != 0)
            f++; /* int() truncates toward zero */
        out->n = f;
        out->d = 1;
        out->kind = 0;
        return 0;
    }
    if (len == 3 && (!strncmp(w, "min", 3) || !strncmp(w, "max", 3))) {
        int ok = 1;
        if (n < 2)
            return py_fail(p, "%.*s of one argument: only min and max of several values are "
                           "translated", (int)len, w);
        *out = a[0];
        for (i = 1; i < n; i++) {
            int c = q_cmp(a[i], *out, &ok);
            if (w[1] == 'a' ? c > 0 : c < 0)
                *out = a[i]; /* the first of equal ones stays, as in Python */
        }
        return ok ? 0 : q_over(p);
    }
    return py_fail(p, "'%.*s(...)' has no translation (ceil, floor, min, max and int do)",
                   (int)len, w);
}

static int py_atom(struct py *p, struct q *out)
{
    const char *s = p->s;

    py_blank(p);
    if (isdigit((unsigned char)s[p->i])) {
        char *end;
        errno = 0;
        long long v = strtoll(s + p->i, &end, 10);
        if (errno == ERANGE)
            return q_over(p);
        if (*end == '.' || *end == 'e' || *end == 'E' || *end == 'x' || *end == '_' ||
            isalpha((unsigned char)*end))
            return py_fail(p, "only decimal integer literals are translated (column %zu)",
                           p->i + 1);
        p->i = (size_t)(end - s);
        out->n = v;
        out->d = 1;
        out->kind = 0;
        return 0;
    }
    if (py_op(p, "(")) {
        int rc;
        if (++p->depth > 64)
            return py_fail(p, "nested too deeply (column %zu)", p->i);
        rc = py_test(p, out) != 0 ? -1 : py_expect(p, ")");
        p->depth--;
        return rc;
    }
    if (isalpha((unsigned char)s[p->i]) || s[p->i] == '_') {
        static const char *const keywords[] = {"not", "and", "or", "if", "else", "for", "in",
                                               "lambda", "is", NULL};
        const char *w = s + p->i;
        size_t len = 0;
        while (isalnum((unsigned char)w[len]) || w[len] == '_')
            len++;
        for (int k = 0; keywords[k]; k++)
            if (strlen(keywords[k]) == len && !strncmp(w, keywords[k], len))
                return py_fail(p, "unexpected '%s' at column %zu", keywords[k], p->i + 1);
        p->i += len;
        if (py_op(p, "("))
            return py_call(p, w, len, out);
        if (len == 4 && !strncmp(w, "True", 4)) {
            *out = (struct q){1, 1, 2};
            return 0;
        }
        if (len == 5 && !strncmp(w, "False", 5)) {
            *out = (struct q){0, 1, 2};
            return 0;
        }
        if (p->skip)
            return 0;
        for (int k = p->nvars - 1; k >= 0; k--)
            if (p->varlen[k] == len && !strncmp(p->var[k], w, len)) {
                *out = (struct q){p->val[k], 1, 0};
                return 0;
            }
        return py_fail(p, "unknown name '%.*s'", (int)len, w);
    }
    if (!s[p->i])
        return py_fail(p, "unexpected end");
    return py_fail(p, "unexpected '%c' at column %zu", s[p->i], p->i + 1);
}

static int py_factor(struct py *p, struct q *out);

/* atom ['**' factor]: ** binds tighter than a unary minus on its left, looser on its right. */
static int py_power(struct py *p, struct q *out)
{
    struct q e;

    if (py_atom(p, out) != 0)
        return -1;
    if (!py_op(p, "**"))
        return 0;
    if (py_factor(p, &e) != 0)
        return -1;
    if (p->skip)
        return 0;
    if (e.d != 1 || e.kind == 1)
        return py_fail(p, "'**' with a fractional exponent has no exact value");
    struct q r = {1, 1, out->kind == 1};
    long long k = e.n < 0 ? -e.n : e.n;
    for (long long j = 0; j < k; j++) {
        if (r.n == 0 || (out->n == 1 && out->d == 1))
            break; /* 0 and 1 stay; the loop need not run to a huge k */
        if (r.n == 1 && r.d == 1 && out->n == -1 && out->d == 1) {
            r.n = k % 2 ? -1 : 1;
            break;
        }
        if (q_arith(p, r, '*', *out, &r) != 0)
            return -1;
        r.kind = out->kind == 1;
    }
    if (out->n == 0 && k == 0)
        r = (struct q){1, 1, out->kind == 1};
    if (e.n < 0) {
        if (q_arith(p, (struct q){1, 1, 0}, '/', r, &r) != 0)
            return -1; /* an int to a negative power is a float in Python */
    }
    *out = r;
    return 0;
}

static int py_factor(struct py *p, struct q *out)
{
    if (py_op(p, "-") || py_op(p, "+")) {
        int neg = p->s[p->i - 1] == '-';
        if (py_factor(p, out) != 0)
            return -1;
        if (!p->skip && neg) {
            if (out->n == LLONG_MIN)
                return q_over(p);
            out->n = -out->n;
        }
        if (!p->skip && out->kind == 2)
            out->kind = 0;
        return 0;
    }
    return py_power(p, out);
}

static int py_term(struct py *p, struct q *out)
{
    if (py_factor(p, out) != 0)
        return -1;
    for (;;) {
        const char *op = py_op(p, "*") ? "*" : py_op(p, "//") ? "//" : py_op(p, "/") ? "/"
                       : py_op(p, "%") ? "%" : NULL;
        struct q b, f;
        if (!op)
            return 0;
        if (py_factor(p, &b) != 0)
            return -1;
        if (p->skip)
            continue;
        if (op[0] == '*' || (op[0] == '/' && !op[1])) {
            if (q_arith(p, *out, op[0], b, out) != 0)
                return -1;
            continue;
        }
        /* Python's floor division and remainder: a // b = floor(a / b), a % b has b's sign. */
        int kind = out->kind == 1 || b.kind == 1;
        if (q_arith(p, *out, '/', b, &f) != 0)
            return -1;
        f = (struct q){q_floor(f), 1, kind};
        if (op[0] == '%') {
            struct q m;
            if (q_arith(p, b, '*', f, &m) != 0 || q_arith(p, *out, '-', m, out) != 0)
                return -1;
            out->kind = kind;
        } else
            *out = f;
    }
}

static int py_arith(struct py *p, struct q *out)
{
    if (py_term(p, out) != 0)
        return -1;
    for (;;) {
        char op = py_op(p, "+") ? '+' : py_op(p, "-") ? '-' : 0;
        struct q b;
        if (!op)
            return 0;
        if (py_term(p, &b) != 0)
            return -1;
        if (!p->skip && q_arith(p, *out, op, b, out) != 0)
            return -1;
    }
}

/* Chained comparisons: a < b < c is a < b and b < c, b evaluated once, c only when a < b. */
static int py_comparison(struct py *p, struct q *out)
{
    static const char *const ops[] = {"<=", ">=", "==", "!=", "<", ">", NULL};
    struct q left;
    int result = 1, any = 0, skip = p->skip;

    if (py_arith(p, &left) != 0)
        return -1;
    for (;;) {
        int k, ok = 1;
        struct q right;
        for (k = 0; ops[k] && !py_op(p, ops[k]); k++)
            ;
        if (!ops[k])
            break;
        any = 1;
        if (py_arith(p, &right) != 0) {
            p->skip = skip;
            return -1;
        }
        if (!p->skip) {
            int c = q_cmp(left, right, &ok);
            if (!ok) {
                p->skip = skip;
                return q_over(p);
            }
            int holds = k == 0 ? c <= 0 : k == 1 ? c >= 0 : k == 2 ? c == 0 : k == 3 ? c != 0
                      : k == 4 ? c < 0 : c > 0;
            result = result && holds;
            if (!result)
                p->skip = 1;
        }
        left = right;
    }
    p->skip = skip;
    if (any && !skip)
        *out = (struct q){result, 1, 2};
    else if (!any)
        *out = left;
    return 0;
}

static int py_not(struct py *p, struct q *out)
{
    if (!py_word(p, "not"))
        return py_comparison(p, out);
    if (py_not(p, out) != 0)
        return -1;
    if (!p->skip)
        *out = (struct q){!py_truth(*out), 1, 2};
    return 0;
}

/* and / or give one of their operands, as in Python; the right one only when needed. */
static int py_andor(struct py *p, struct q *out, int is_or)
{
    int skip = p->skip;

    if ((is_or ? py_andor(p, out, 0) : py_not(p, out)) != 0)
        return -1;
    while (py_word(p, is_or ? "or" : "and")) {
        struct q b;
        if (!p->skip && py_truth(*out) == is_or)
            p->skip = 1;
        int rc = is_or ? py_andor(p, &b, 0) : py_not(p, &b);
        if (rc == 0 && !p->skip)
            *out = b;
        p->skip = skip;
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int py_or(struct py *p, struct q *out)
{
    return py_andor(p, out, 1);
}

/* 1 when an 'if' of a conditional expression follows at p's level: before a ',', 'for',
 * 'else' or a closing bracket of that level. */
static int py_has_if(const struct py *p)
{
    int depth = 0;

    for (size_t i = p->i; p->s[i]; i++) {
        char c = p->s[i];
        int word = (isalpha((unsigned char)c) || c == '_') &&
                   (i == 0 || !(isalnum((unsigned char)p->s[i - 1]) || p->s[i - 1] == '_'));
        if (c == '(' || c == '[')
            depth++;
        else if (c == ')' || c == ']') {
            if (--depth < 0)
                return 0;
        } else if (depth == 0 && c == ',')
            return 0;
        else if (depth == 0 && word) {
            size_t n = 0;
            while (isalnum((unsigned char)p->s[i + n]) || p->s[i + n] == '_')
                n++;
            if ((n == 3 && !strncmp(p->s + i, "for", 3)) ||
                (n == 4 && !strncmp(p->s + i, "else", 4)))
                return 0;
            if (n == 2 && !strncmp(p->s + i, "if", 2))
                return 1;
            i += n - 1;
        }
    }
    return 0;
}

/* or_test ['if' or_test 'else' test]: the condition first, then the branch it picks, as
 * Python does (the other branch may divide by zero). */
static int py_test(struct py *p, struct q *out)
{
    size_t start = p->i, after_cond;
    struct q c, unused;
    int rc;

    if (p->skip || !py_has_if(p)) {
        if (py_or(p, out) != 0)
            return -1;
        if (!p->skip)
            return 0;
        if (!py_word(p, "if"))
            return 0;
        if (py_or(p, &c) != 0)
            return -1;
        if (!py_word(p, "else"))
            return py_fail(p, "expected 'else' at column %zu", p->i + 1);
        return py_test(p, out);
    }
    p->skip = 1;
    rc = py_or(p, &unused);
    p->skip = 0;
    if (rc != 0)
        return -1;
    if (!py_word(p, "if"))
        return py_fail(p, "expected 'if' at column %zu", p->i + 1);
    if (py_or(p, &c) != 0)
        return -1;
    if (!py_word(p, "else"))
        return py_fail(p, "expected 'else' at column %zu", p->i + 1);
    if (!py_truth(c))
        return py_test(p, out);
    after_cond = p->i;
    p->i = start;
    if (py_or(p, out) != 0)
        return -1;
    p->i = after_cond;
    p->skip = 1;
    rc = py_test(p, &unused);
    p->skip = 0;
    return rc;
}

/* range(...)'s start, stop and step, at p past "range". */
static int py_range(struct py *p, long long r[3])
{
    struct q a[3];
    int n;

    if (py_expect(p, "(") != 0 || py_args(p, a, 3, &n) != 0)
        return -1;
    if (p->skip)
        return 0;
    for (int k = 0; k < n; k++)
        if (a[k].d != 1 || a[k].kind == 1)
            return py_fail(p, "range() takes integers");
    r[0] = n == 1 ? 0 : a[0].n;
    r[1] = n == 1 ? a[0].n : a[1].n;
    r[2] = n == 3 ? a[2].n : 1;
    if (r[2] == 0)
        return py_fail(p, "range() step must not be zero");
    return 0;
}

/* The number of values of range r, or -1 past PY_MAX_VALUES. Unsigned arithmetic: the
 * distance between two long longs always fits. */
static long long range_len(const long long r[3])
{
    unsigned long long dist, step, n;

    if (r[2] > 0 ? r[1] <= r[0] : r[1] >= r[0])
        return 0;
    dist = r[2] > 0 ? (unsigned long long)r[1] - (unsigned long long)r[0]
                    : (unsigned long long)r[0] - (unsigned long long)r[1];
    step = r[2] > 0 ? (unsigned long long)r[2] : 0ULL - (unsigned long long)r[2];
    n = dist / step + (dist % step != 0);
    return n > PY_MAX_VALUES ? -1 : (long long)n;
}

/* The k-th value of range r (k below its length). */
static long long range_at(const long long r[3], long long k)
{
    return (long long)((unsigned long long)r[0] +
                       (unsigned long long)k * (unsigned long long)r[2]);
}

static int py_append(struct py *p, struct q v, json_t *list)
{
    if (v.kind == 1)
        return v.d == 1 ? py_fail(p, "gives %lld.0, a float in Python: hetune's parameters "
                                  "are integers", v.n)
                        : py_fail(p, "gives %lld/%lld, a float in Python: hetune's parameters "
                                  "are integers", v.n, v.d);
    if (v.kind == 2)
        return py_fail(p, "gives %s, a bool: hetune's parameters are integers",
                       v.n ? "True" : "False");
    if (json_array_size(list) >= PY_MAX_VALUES)
        return py_fail(p, "more than %d values", PY_MAX_VALUES);
    json_array_append_new(list, json_integer(v.n));
    return 0;
}

/* The comprehension's clauses from position at on (element at elem) into list: each for
 * binds its name over a range, each if keeps what its condition holds for. */
static int py_clauses(struct py *p, size_t at, size_t elem, json_t *list)
{
    struct q v;

    p->i = at;
    if (py_word(p, "for")) {
        long long r[3] = {0, 0, 1};
        size_t nlen = 0;
        py_blank(p);
        const char *name = p->s + p->i;
        while (isalnum((unsigned char)name[nlen]) || name[nlen] == '_')
            nlen++;
        if (!nlen || isdigit((unsigned char)name[0]))
            return py_fail(p, "expected a name after 'for' at column %zu", p->i + 1);
        p->i += nlen;
        if (!py_word(p, "in"))
            return py_fail(p, "expected 'in' at column %zu", p->i + 1);
        if (!py_word(p, "range"))
            return py_fail(p, "only a comprehension over range(...) is translated (column "
                           "%zu)", p->i + 1);
        if (py_range(p, r) != 0)
            return -1;
        size_t next = p->i;
        if (p->nvars == PY_MAX_VARS)
            return py_fail(p, "too many nested for clauses");
        p->var[p->nvars] = name;
        p->varlen[p->nvars] = nlen;
        p->nvars++;
        int rc = 0;
        if (p->skip)
            rc = py_clauses(p, next, elem, list);
        else {
            long long count = range_len(r);
            if (count < 0)
                rc = py_fail(p, "a range of more than %d values", PY_MAX_VALUES);
            for (long long k = 0; rc == 0 && k < count; k++) {
                p->val[p->nvars - 1] = range_at(r, k);
                rc = py_clauses(p, next, elem, list);
            }
        }
        p->nvars--;
        return rc;
    }
    if (py_word(p, "if")) {
        if (py_or(p, &v) != 0)
            return -1;
        if (p->skip || py_truth(v))
            return py_clauses(p, p->i, elem, list);
        return 0;
    }
    if (!py_op(p, "]"))
        return py_fail(p, "expected 'for', 'if' or ']' at column %zu", p->i + 1);
    if (p->skip)
        return 0;
    size_t end = p->i;
    p->i = elem;
    if (py_test(p, &v) != 0 || py_append(p, v, list) != 0)
        return -1;
    p->i = end;
    return 0;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* 1 with *v a value list holds twice, 0 when none does, -1 out of memory. */
static int duplicate(json_t *list, long long *v)
{
    size_t n = json_array_size(list), k;
    long long *a = malloc((n ? n : 1) * sizeof *a);
    int found = 0;

    if (!a)
        return -1;
    for (k = 0; k < n; k++)
        a[k] = json_integer_value(json_array_get(list, k));
    qsort(a, n, sizeof *a, cmp_ll);
    for (k = 1; k < n && !found; k++)
        if (a[k] == a[k - 1]) {
            *v = a[k];
            found = 1;
        }
    free(a);
    return found;
}

/* Values (at path) as Kernel Tuner's Python reads them: *out (owned) a list of integers. */
static int py_values(const char *src, const char *path, struct ht_error *err, json_t **out)
{
    struct py p = {.s = src, .path = path, .err = err};
    json_t *list = json_array();
    struct q v;
    int rc = -1, dup;
    long long dupv;

    *out = NULL;
    if (!list)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    if (py_word(&p, "list")) {
        long long r[3];
        if (py_expect(&p, "(") != 0 || !(py_word(&p, "range") ||
                                         py_fail(&p, "only list(range(...)) is translated")) ||
            py_range(&p, r) != 0 || py_expect(&p, ")") != 0)
            goto cleanup;
        long long count = range_len(r);
        if (count < 0) {
            py_fail(&p, "a range of more than %d values", PY_MAX_VALUES);
            goto cleanup;
        }
        for (long long k = 0; k < count; k++)
            json_array_append_new(list, json_integer(range_at(r, k)));
    } else if (!py_op(&p, "[")) {
        py_fail(&p, "not a list such as \"[1, 2, 4]\", \"[2**i for i in range(1, 6)]\" or "
                "\"list(range(1, 9))\"");
        goto cleanup;
    } else {
        size_t elem = p.i;
        p.skip = 1;
        if (py_test(&p, &v) != 0)
            goto cleanup;
        if (py_word(&p, "for")) {
            size_t at = p.i - 3;
            /* Once without values, so that a syntax error in clauses an empty range never
             * reaches is still found; then for real. */
            if (py_clauses(&p, at, elem, list) != 0)
                goto cleanup;
            size_t end = p.i;
            p.skip = 0;
            if (py_clauses(&p, at, elem, list) != 0)
                goto cleanup;
            p.i = end;
        } else {
            p.skip = 0;
            p.i = elem;
            do {
                py_blank(&p);
                if (p.s[p.i] == ']')
                    break; /* a trailing comma */
                if (py_test(&p, &v) != 0 || py_append(&p, v, list) != 0)
                    goto cleanup;
            } while (py_op(&p, ","));
            if (py_expect(&p, "]") != 0)
                goto cleanup;
        }
    }
    py_blank(&p);
    if (p.s[p.i]) {
        py_fail(&p, "unexpected '%s' at column %zu", p.s + p.i, p.i + 1);
        goto cleanup;
    }
    if (json_array_size(list) == 0) {
        py_fail(&p, "gives no value");
        goto cleanup;
    }
    if ((dup = duplicate(list, &dupv)) < 0) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    if (dup) {
        /* Kernel Tuner would tune the value twice; a spec's values are a set. */
        py_fail(&p, "gives %lld twice", dupv);
        goto cleanup;
    }
    *out = list;
    list = NULL;
    rc = 0;
cleanup:
    json_decref(list);
    return rc < 0 && err->code ? err->code : rc;
}

static int params(struct import *im, json_t *space, json_t *spec)
{
    static const char *const known_space[] = {"TuningParameters", "Conditions", NULL};
    /* Default: the configuration Kernel Tuner starts from; a search needs none. */
    static const char *const known_param[] = {"Name", "Type", "Values", "Default", NULL};
    static const char *const known_cond[] = {"Parameters", "Expression", NULL};
    json_t *list = json_object_get(space, "TuningParameters"), *p, *out, *cons;
    char path[256];
    size_t i;

    if (check_keys(space, "ConfigurationSpace", known_space, im->err) != 0)
        return im->err->code;
    if (!json_is_array(list))
        return refuse(im->err, "ConfigurationSpace.TuningParameters", "expected an array");
    out = json_object();
    json_object_set_new(spec, "params", out);
    im->names = calloc(json_array_size(list) + im->nsizes +
                       sizeof device_vars / sizeof *device_vars, sizeof *im->names);
    im->values = out;
    if (!im->names)
        return ht_error_set(im->err, HT_ENOMEM, "out of memory");
    json_array_foreach(list, i, p) {
        snprintf(path, sizeof path, "ConfigurationSpace.TuningParameters[%zu]", i);
        if (check_keys(p, path, known_param, im->err) != 0)
            return im->err->code;
        const char *name = get_string(p, "Name", path, im->err);
        const char *type = get_string(p, "Type", path, im->err);
        const char *values = get_string(p, "Values", path, im->err);
        if (!name || !type || !values)
            return im->err->code;
        if (strcmp(type, "int") && strcmp(type, "uint")) {
            strcat(path, ".Type");
            return refuse(im->err, path, "%s: parameters of type '%s' have no form in hetune "
                          "(integers only)", path, type);
        }
        json_t *vals = NULL;
        strcat(path, ".Values");
        if (py_values(values, path, im->err, &vals) != 0)
            return im->err->code;
        json_object_set_new(out, name, json_pack("{s:o}", "values", vals));
        im->names[im->nparams++] = name;
    }
    for (i = 0; i < im->nsizes; i++)
        im->names[im->nparams + i] = problem_size_names[i];
    for (i = 0; i < sizeof device_vars / sizeof *device_vars; i++)
        im->names[im->nparams + im->nsizes + i] = device_vars[i];
    im->nnames = im->nparams + im->nsizes + i;

    cons = json_array();
    json_object_set_new(spec, "constraints", cons);
    json_array_foreach(json_object_get(space, "Conditions"), i, p) {
        char *c = NULL;
        const char *src;
        json_t *v;
        size_t j;
        snprintf(path, sizeof path, "ConfigurationSpace.Conditions[%zu]", i);
        if (check_keys(p, path, known_cond, im->err) != 0 ||
            !(src = get_string(p, "Expression", path, im->err)))
            return im->err->code;
        json_array_foreach(json_object_get(p, "Parameters"), j, v) {
            size_t k;
            for (k = 0; k < im->nparams && json_is_string(v) &&
                        strcmp(im->names[k], json_string_value(v)); k++)
                ;
            if (k == im->nparams)
                return refuse(im->err, path, "%s.Parameters[%zu]: not a tuning parameter",
                              path, j);
        }
        strcat(path, ".Expression");
        if (expression(im, src, path, &c) != 0)
            return im->err->code;
        json_array_append_new(cons, json_string(c));
        free(c);
    }
    return 0;
}

/* T1's argument types and hetune's, with their sizes in bytes. */
static const struct { const char *t1, *ht; int size; } types[] = {
    {"int8", "char", 1},   {"uint8", "uchar", 1}, {"int16", "short", 2}, {"uint16", "ushort", 2},
    {"int32", "int", 4},   {"uint32", "uint", 4}, {"int64", "long", 8},  {"uint64", "ulong", 8},
    {"float", "float", 4}, {"double", "double", 8},
};

/* p, a file path the spec will name, as a JSON string (a new reference). A path that is not
 * UTF-8 (a folder named in another encoding) cannot be written in a JSON spec as it is, and
 * ht__json_string's U+FFFD would name another file: refused (HT_ESPEC on field, NULL). */
static json_t *path_json(struct import *im, const char *field, const char *p)
{
    json_t *v = ht__json_string(p);

    if (v && strcmp(json_string_value(v), p)) {
        refuse(im->err, field, "%s: the path '%s' is not UTF-8, which a JSON spec cannot hold",
               field, json_string_value(v));
        json_decref(v);
        return NULL;
    }
    if (!v)
        ht_error_set(im->err, HT_ENOMEM, "out of memory");
    return v;
}

static int argument(struct import *im, json_t *a, size_t i, const char *t1_dir, json_t *args)
{
    static const char *const known[] = {"Name", "Type", "Size", "TypeSize", "FillType",
                                        "FillValue", "DataSource", "RandomSeed", "AccessType",
                                        "MemoryType", "MemType", "Output", NULL};
    char path[256], field[300];
    const char *type, *mem, *fill;
    json_t *out, *v;
    size_t t;

    snprintf(path, sizeof path, "KernelSpecification.Arguments[%zu]", i);
    if (check_keys(a, path, known, im->err) != 0 || !(type = get_string(a, "Type", path, im->err))
        || !(mem = get_string(a, "MemoryType", path, im->err)))
        return im->err->code;
    for (t = 0; t < sizeof types / sizeof *types && strcmp(types[t].t1, type); t++)
        ;
    if (t == sizeof types / sizeof *types) {
        snprintf(field, sizeof field, "%s.Type", path);
        return refuse(im->err, field, "%s: '%s' has no hetune type", field, type);
    }
    if (json_object_get(a, "RandomSeed")) {
        snprintf(field, sizeof field, "%s.RandomSeed", path);
        return refuse(im->err, field, "%s: hetune seeds each argument itself", field);
    }
    v = json_object_get(a, "TypeSize");
    if (v && (!json_is_integer(v) || json_integer_value(v) != types[t].size)) {
        snprintf(field, sizeof field, "%s.TypeSize", path);
        return refuse(im->err, field, "%s: %s is %d bytes", field, type, types[t].size);
    }
    out = json_object();
    json_array_append_new(args, out);
    v = json_object_get(a, "Name");
    json_object_set_new(out, "name", json_is_string(v) ? json_copy(v)
                                                       : json_sprintf("arg%zu", i));
    json_object_set_new(out, "type", json_string(types[t].ht));
    fill = json_string_value(json_object_get(a, "FillType"));
    v = json_object_get(a, "FillValue");
    if (!strcmp(mem, "Scalar")) {
        /* A real is integral only inside long long's range: casting 1e308 would be
         * undefined (and a NaN never is integral). */
        double r = json_is_real(v) ? json_real_value(v) : 0.0;
        if (!json_is_integer(v) &&
            !(json_is_real(v) && r >= -9.2233720368547e18 && r <= 9.2233720368547e18 &&
              r == (double)(long long)r)) {
            snprintf(field, sizeof field, "%s.FillValue", path);
            return refuse(im->err, field, "%s: a scalar's value must be an integer", field);
        }
        json_object_set_new(out, "value", json_integer((json_int_t)json_number_value(v)));
        return 0;
    }
    if (strcmp(mem, "Vector")) {
        snprintf(field, sizeof field, "%s.MemoryType", path);
        return refuse(im->err, field, "%s: '%s' arguments have no form in hetune", field, mem);
    }
    json_t *size = json_object_get(a, "Size");
    if (json_is_integer(size))
        json_object_set_new(out, "shape", json_pack("[I]", json_integer_value(size)));
    else if (json_is_string(size)) {
        char *c = NULL;
        snprintf(field, sizeof field, "%s.Size", path);
        if (expression(im, json_string_value(size), field, &c) != 0)
            return im->err->code;
        json_object_set_new(out, "shape", json_pack("[s]", c));
        free(c);
    } else {
        snprintf(field, sizeof field, "%s.Size", path);
        return refuse(im->err, field, "%s: a vector needs an integer or expression Size", field);
    }
    const char *access = json_string_value(json_object_get(a, "AccessType"));
    json_object_set_new(out, "access", json_string(!access || !strcmp(access, "ReadWrite")
                                                       ? "readwrite"
                                                   : !strcmp(access, "ReadOnly") ? "read"
                                                                                 : "write"));
    snprintf(field, sizeof field, "%s.FillType", path);
    if (!fill || !strcmp(fill, "Random"))
        json_object_set_new(out, "init", json_string("random"));
    else if (!strcmp(fill, "Constant") && json_is_number(v) && json_number_value(v) == 0)
        json_object_set_new(out, "init", json_string("zero"));
    else if (!strcmp(fill, "Constant")) {
        snprintf(field, sizeof field, "%s.FillValue", path);
        return refuse(im->err, field, "%s: hetune fills a buffer with a constant 0 only", field);
    } else if (!strcmp(fill, "BinaryRaw") && json_is_string(json_object_get(a, "DataSource"))) {
        char *file = ht__path_join(t1_dir, json_string_value(json_object_get(a, "DataSource")));
        char *abs = file ? realpath(file, NULL) : NULL;
        char *init = file ? ht__asprintf("file:%s", abs ? abs : file) : NULL;
        json_t *j;
        snprintf(field, sizeof field, "%s.DataSource", path);
        j = init ? path_json(im, field, init) : NULL;
        free(init);
        free(abs);
        free(file);
        if (!j)
            return im->err->code ? im->err->code
                                 : ht_error_set(im->err, HT_ENOMEM, "out of memory");
        json_object_set_new(out, "init", j);
    } else
        return refuse(im->err, field, "%s: '%s' has no form in hetune (Random, Constant 0 and "
                      "BinaryRaw do)", field, fill);
    return 0;
}

static int ndrange(struct import *im, json_t *ks, json_t *spec)
{
    static const char *const axes[] = {"X", "Y", "Z", NULL};
    const char *gtype = json_string_value(json_object_get(ks, "GlobalSizeType"));
    json_t *g = json_object_get(ks, "GlobalSize"), *l = json_object_get(ks, "LocalSize");
    json_t *global = json_array(), *local = json_array();
    char path[256];
    int cuda = gtype && !strcmp(gtype, "CUDA");

    json_object_set_new(spec, "ndrange", json_pack("{s:o,s:o}", "global", global, "local", local));
    if (gtype && strcmp(gtype, "OpenCL") && !cuda)
        return refuse(im->err, "KernelSpecification.GlobalSizeType",
                      "KernelSpecification.GlobalSizeType: '%s' has no form in hetune", gtype);
    if (check_keys(g, "KernelSpecification.GlobalSize", axes, im->err) != 0 ||
        check_keys(l, "KernelSpecification.LocalSize", axes, im->err) != 0)
        return im->err->code;
    for (int d = 0; d < 3; d++) {
        const char *gs = json_string_value(json_object_get(g, axes[d]));
        const char *ls = json_string_value(json_object_get(l, axes[d]));
        char *gc = NULL, *lc = NULL;
        if (!gs && !ls)
            break;
        snprintf(path, sizeof path, "KernelSpecification.%s.%s", gs ? "LocalSize" : "GlobalSize",
                 axes[d]);
        if (!gs || !ls)
            return refuse(im->err, path, "%s: GlobalSize and LocalSize need the same axes", path);
        snprintf(path, sizeof path, "KernelSpecification.GlobalSize.%s", axes[d]);
        if (expression(im, gs, path, &gc) != 0)
            return im->err->code;
        snprintf(path, sizeof path, "KernelSpecification.LocalSize.%s", axes[d]);
        if (expression(im, ls, path, &lc) != 0) {
            free(gc);
            return im->err->code;
        }
        /* A CUDA-style global size counts blocks: hetune's counts work-items. */
        json_array_append_new(global, cuda ? json_sprintf("(%s) * (%s)", gc, lc)
                                           : json_string(gc));
        json_array_append_new(local, json_string(lc));
        free(gc);
        free(lc);
    }
    return 0;
}

/* KernelFile relative to the spec: as written when the spec goes beside the T1 file. NULL
 * with im->err set when it cannot be written (path_json). */
static json_t *kernel_file(struct import *im, const char *t1_dir, const char *spec_dir,
                           const char *file)
{
    char *a = realpath(t1_dir, NULL), *b = realpath(spec_dir ? spec_dir : ".", NULL);
    char *joined = ht__path_join(t1_dir, file), *abs = NULL;
    json_t *out;

    if (file[0] == '/' || (a && b && !strcmp(a, b)))
        out = path_json(im, "KernelSpecification.KernelFile", file);
    else {
        abs = joined ? realpath(joined, NULL) : NULL;
        out = path_json(im, "KernelSpecification.KernelFile", abs ? abs : joined ? joined : file);
    }
    free(a);
    free(b);
    free(joined);
    free(abs);
    return out;
}

static void verify_note(json_t *list, char **notes);

static void note(char **notes, const char *fmt, const char *value)
{
    char *line = ht__asprintf(fmt, value), *joined;
    if (!line)
        return;
    joined = ht__asprintf("%s%s\n", *notes ? *notes : "", line);
    free(line);
    if (joined) {
        free(*notes);
        *notes = joined;
    }
}

static int convert(struct import *im, json_t *t1, const char *t1_path, const char *t1_dir,
                   const char *spec_dir, json_t *spec, char **notes)
{
    static const char *const known_top[] = {"ConfigurationSpace", "KernelSpecification",
                                            "Search", "Budget", "General", NULL};
    static const char *const known_ks[] = {"Device", "Language", "CompilerOptions", "Profiling",
                                           "KernelName", "KernelFile", "GlobalSizeType",
                                           "SharedMemory", "SimulationInput", "GlobalSize",
                                           "LocalSize", "Arguments", "ReferenceArguments",
                                           "BenchmarkName", "GridDivX", "GridDivY", "GridDivZ",
                                           "ProblemSize", "Stream", NULL};
    static const char *const refused[] = {"SharedMemory", "SimulationInput",
                                          "ReferenceArguments", NULL};
    json_t *ks = json_object_get(t1, "KernelSpecification"), *v;
    const char *lang, *name, *file;
    size_t i;

    if (check_keys(t1, "", known_top, im->err) != 0 || check_keys(ks, "KernelSpecification",
                                                                  known_ks, im->err) != 0)
        return im->err->code;
    for (i = 0; refused[i]; i++)
        /* SharedMemory 0: no dynamic shared memory, nothing to express. */
        if (json_object_get(ks, refused[i]) &&
            !(i == 0 && json_is_integer(json_object_get(ks, refused[i])) &&
              json_integer_value(json_object_get(ks, refused[i])) == 0)) {
            char field[128];
            snprintf(field, sizeof field, "KernelSpecification.%s", refused[i]);
            return refuse(im->err, field, "%s: has no form in a hetune spec%s", field,
                          i == 2 ? " (hetune verifies against a reference configuration or "
                                   "kernel: add \"verify\" by hand)" : "");
        }
    if (!(lang = get_string(ks, "Language", "KernelSpecification", im->err)) ||
        !(name = get_string(ks, "KernelName", "KernelSpecification", im->err)) ||
        !(file = get_string(ks, "KernelFile", "KernelSpecification", im->err)))
        return im->err->code;
    int replay_only = !strcmp(lang, "CUDA") || !strcmp(lang, "HIP");
    if (strcmp(lang, "OpenCL") && !replay_only)
        return refuse(im->err, "KernelSpecification.Language", "KernelSpecification.Language: "
                      "'%s': hetune tunes OpenCL kernels (and replays recorded spaces of CUDA "
                      "and HIP ones)", lang);
    if (replay_only)
        note(notes, "KernelSpecification.Language %s: hetune never builds this kernel; the spec "
             "replays a recorded space of it (hetune tune SPEC --replay T4_OR_CACHE)", lang);
    /* ProblemSize[k] in expressions: the sizes ProblemSize_0.. of the spec. GlobalSize and
     * the GridDiv lists say the same for a CUDA grid: hetune reads GlobalSize. */
    v = json_object_get(ks, "ProblemSize");
    if (v) {
        json_t *sizes = json_object(), *e;
        if (!json_is_array(v) || json_array_size(v) > 3) {
            json_decref(sizes);
            return refuse(im->err, "KernelSpecification.ProblemSize", "KernelSpecification."
                          "ProblemSize: expected a list of at most 3 integers");
        }
        json_array_foreach(v, i, e) {
            if (!json_is_integer(e) || json_integer_value(e) < 1) {
                json_decref(sizes);
                return refuse(im->err, "KernelSpecification.ProblemSize", "KernelSpecification."
                              "ProblemSize[%zu]: expected a positive integer", i);
            }
            json_object_set(sizes, problem_size_names[i], e);
        }
        im->nsizes = json_array_size(v);
        json_object_set_new(spec, "sizes", sizes);
    }
    json_object_set_new(spec, "name", json_string(name));
    /* The T1 file's path is only told here: one in another encoding is kept, its odd bytes
     * as U+FFFD (json_sprintf refused it, and the spec had no description). */
    char *desc = ht__asprintf("imported from Kernel Tuner T1 file %s", t1_path);
    if (!desc)
        return ht_error_set(im->err, HT_ENOMEM, "out of memory");
    json_object_set_new(spec, "description", ht__json_string(desc));
    free(desc);
    json_t *kfile = kernel_file(im, t1_dir, spec_dir, file);
    if (!kfile)
        return im->err->code ? im->err->code : ht_error_set(im->err, HT_ENOMEM, "out of memory");
    json_t *kernel = json_pack("{s:o,s:s}", "file", kfile, "name", name);
    json_object_set_new(spec, "kernel", kernel);
    if (replay_only)
        json_object_set_new(kernel, "language", json_string(lang));
    v = json_object_get(ks, "CompilerOptions");
    if (json_array_size(v)) {
        char *opts = NULL;
        json_t *o;
        json_array_foreach(v, i, o) {
            char *s = ht__asprintf("%s%s%s", opts ? opts : "", opts ? " " : "",
                                   json_is_string(o) ? json_string_value(o) : "");
            free(opts);
            if (!(opts = s))
                return ht_error_set(im->err, HT_ENOMEM, "out of memory");
        }
        json_object_set_new(kernel, "options", json_string(opts));
        free(opts);
    }
    if (params(im, json_object_get(t1, "ConfigurationSpace"), spec) != 0 ||
        ndrange(im, ks, spec) != 0)
        return im->err->code;
    json_t *args = json_array(), *a;
    json_object_set_new(spec, "args", args);
    json_array_foreach(json_object_get(ks, "Arguments"), i, a)
        if (argument(im, a, i, t1_dir, args) != 0)
            return im->err->code;

    if ((v = json_object_get(t1, "Search")) && json_is_string(json_object_get(v, "Name")))
        note(notes, "Search.Name '%s': not part of a spec; pass --strategy to hetune tune",
             json_string_value(json_object_get(v, "Name")));
    json_array_foreach(json_object_get(t1, "Budget"), i, a)
        note(notes, "Budget %s: not part of a spec; pass --budget to hetune tune",
             json_string_value(json_object_get(a, "Type")));
    if (!replay_only)
        verify_note(json_object_get(json_object_get(t1, "ConfigurationSpace"),
                                    "TuningParameters"), notes);
    return 0;
}

/* A T1 file names no reference output: says that tune's results will not be checked, and
 * how to check them against Kernel Tuner's Default configuration when the file gives one. */
static void verify_note(json_t *list, char **notes)
{
    json_t *p, *ref = json_object();
    size_t i;
    int all = json_array_size(list) > 0;
    char *text;

    json_array_foreach(list, i, p) {
        json_t *d = json_object_get(p, "Default");
        const char *name = json_string_value(json_object_get(p, "Name"));
        if (json_is_integer(d) && name)
            json_object_set(ref, name, d);
        else
            all = 0;
    }
    text = all ? json_dumps(ref, JSON_COMPACT) : NULL;
    if (text)
        note(notes, "no verification: a T1 file names no reference output, so tune will not "
             "check results; to check every configuration against Kernel Tuner's Default, add "
             "\"verify\": {\"reference\": %s} to the spec (docs/spec.md)", text);
    else
        note(notes, "no verification: a T1 file names no reference output, so tune will not "
             "check results; add \"verify\" to the spec (docs/spec.md)%s", "");
    free(text);
    json_decref(ref);
}

int ht_kt_expression(const char *python, const char *const *names, size_t nnames,
                     char **c_expr, struct ht_error *err)
{
    struct import im;

    if (!python || (!names && nnames) || !c_expr)
        return ht_error_set(err, HT_EINVAL, "ht_kt_expression: %s is NULL",
                            !python ? "python" : !c_expr ? "c_expr" : "names");
    import_init(&im, err);
    *c_expr = NULL;
    im.names = (const char **)names;
    im.nparams = im.nnames = nnames;
    return expression(&im, python, "restriction", c_expr);
}

/* 1 when text starts, past blank and comment lines, the way a Python script does. */
static int looks_like_python(const char *text)
{
    static const char *const starts[] = {"import ", "from ", "def ", "#!", "\"\"\"", NULL};
    const char *p = text;

    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' ||
           (*p == '#' && p[1] != '!')) {
        if (*p == '#')
            p += strcspn(p, "\n");
        else
            p++;
    }
    for (size_t i = 0; starts[i]; i++)
        if (!strncmp(p, starts[i], strlen(starts[i])))
            return 1;
    return 0;
}

int ht_kt_import_t1(const char *t1_path, const char *spec_dir, char **spec_json, char **notes,
                    struct ht_error *err)
{
    struct import im;
    json_error_t jerr;
    json_t *t1 = NULL, *spec;
    char *dir, *nt = NULL, *text = NULL;
    char *src = NULL;
    size_t len;
    int rc;

    if (!t1_path || !spec_json)
        return ht_error_set(err, HT_EINVAL, "ht_kt_import_t1: %s is NULL",
                            !t1_path ? "t1_path" : "spec_json");
    /* From here on im.err is written, never err (it may be NULL). */
    import_init(&im, err);
    spec = json_object();
    dir = ht__dirname(t1_path);
    *spec_json = NULL;
    if (notes)
        *notes = NULL;
    if (!spec || !dir) {
        rc = ht_error_set(im.err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    if ((rc = ht__read_file(t1_path, &src, &len, im.err)) != 0)
        goto cleanup;
    if (!(t1 = json_loadb(src, len, 0, &jerr))) {
        snprintf(im.err->file, sizeof im.err->file, "%s", t1_path);
        im.err->line = jerr.line;
        im.err->column = jerr.column;
        if (looks_like_python(src))
            rc = ht_error_set(im.err, HT_EPARSE, "a Python script, not a T1 file: import-kt "
                              "reads the JSON of the tuning standard (T1); for a Kernel Tuner "
                              "script, call hetune.tune from Python (python/hetune) or write "
                              "its tune_params and restrictions into a spec (docs/spec.md) "
                              "(JSON: %s)", jerr.text);
        else
            rc = ht_error_set(im.err, HT_EPARSE, "%s", jerr.text);
        goto cleanup;
    }
    if ((rc = convert(&im, t1, t1_path, dir, spec_dir, spec, &nt)) != 0) {
        snprintf(im.err->file, sizeof im.err->file, "%s", t1_path);
        goto cleanup;
    }
    if (!(text = json_dumps(spec, JSON_INDENT(2)))) {
        rc = ht_error_set(im.err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    *spec_json = text;
    if (notes) {
        *notes = nt;
        nt = NULL;
    }
cleanup:
    free(nt);
    free(im.names);
    free(src);
    free(dir);
    json_decref(t1);
    json_decref(spec);
    return rc;
}
