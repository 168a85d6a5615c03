/* Kernel Tuner's T1 input format into a hetune spec (include/hetune/interop.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/expr.h"
#include "hetune/interop.h"
#include "util/util.h"

/* Refuses the field at path: HT_ESPEC with err->field the path. */
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
    struct ht_error *err;
};

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
            const char *after = NULL;
            if (len == 11 && !strncmp(w, "ProblemSize", 11) && p[0] == '[' &&
                p[1] >= '0' && p[1] < '0' + (char)im->nsizes && p[2] == ']') {
                idx = p[1];
                p += 3;
            } else if (param_extreme(im, w, len, p, num, sizeof num, &after)) {
                p = after;
                memcpy(out + n, num, strlen(num));
                n += strlen(num);
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
            out[n++] = '/';
            p += 2;
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

/* The most bytes a restriction may grow to once translated. A true division compared with
 * a value copies its divisor four times (comparison below), and a divisor holding another
 * such comparison in parentheses is copied with it: the text grows fourfold per level, so
 * that 193 bytes of nested quotients became 480 MB in 195 s (found by fuzz/fuzz_expr.c).
 * A real restriction translates to a few hundred bytes. */
#define MAX_TRANSLATED 65536

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
    if (b->len + n + 1 > MAX_TRANSLATED) {
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
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
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
        if (depth == 0 && strchr("*%/" "\x01", ch))
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

/* Copies the comparison "c[a, ae) op c[o, ze)". Where one side is a quotient of Python's
 * true division, P / Q, it becomes the exact integer comparison of P with the other side
 * times Q, the operator mirrored when Q is negative: "P / Q > X" is
 * "(0 / (Q) == 0 && ((Q) > 0 ? (P) > (X) * (Q) : (P) < (X) * (Q)))", where 0 / (Q) makes a
 * zero Q invalid, as a division by zero is in hetune (Python raises). Anything else is
 * copied as it is (a true division left in it is refused by expression). */
static void comparison(const char *c, size_t a, size_t ae, const char *op, size_t opl,
                       size_t o, size_t ze, struct sbuf *out)
{
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
            size_t a = start, ae = ops[0], o = ops[0] + opl[0], ze = end;
            comparison(c, a, ae, c + ops[0], opl[0], o, ze, out);
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
                comparison(c, a, ae, c + ops[m], opl[m], o, ze, out);
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
    *out = c;
    return 0;
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
        json_t *vals = json_loads(values, JSON_DECODE_ANY, NULL), *v;
        size_t j;
        int ok = json_is_array(vals) && json_array_size(vals) > 0;
        json_array_foreach(vals, j, v)
            ok = ok && json_is_integer(v);
        if (!ok) {
            json_decref(vals);
            strcat(path, ".Values");
            return refuse(im->err, path, "%s: '%s' is not a list of integers such as "
                          "\"[1, 2, 4]\"", path, values);
        }
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
        json_object_set_new(out, "init", json_sprintf("file:%s", abs ? abs : file));
        free(abs);
        free(file);
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

/* KernelFile relative to the spec: as written when the spec goes beside the T1 file. */
static json_t *kernel_file(const char *t1_dir, const char *spec_dir, const char *file)
{
    char *a = realpath(t1_dir, NULL), *b = realpath(spec_dir ? spec_dir : ".", NULL);
    char *joined = ht__path_join(t1_dir, file), *abs = NULL;
    json_t *out;

    if (file[0] == '/' || (a && b && !strcmp(a, b)))
        out = json_string(file);
    else {
        abs = joined ? realpath(joined, NULL) : NULL;
        out = json_string(abs ? abs : joined ? joined : file);
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
    json_object_set_new(spec, "description", json_sprintf("imported from Kernel Tuner T1 file "
                                                          "%s", t1_path));
    json_t *kernel = json_pack("{s:o,s:s}", "file", kernel_file(t1_dir, spec_dir, file),
                               "name", name);
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
    struct import im = {NULL, 0, 0, NULL, 0, err};

    *c_expr = NULL;
    if (!python)
        return ht_error_set(err, HT_EINVAL, "no expression");
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
    struct import im = {NULL, 0, 0, NULL, 0, err};
    json_error_t jerr;
    json_t *t1 = NULL, *spec = json_object();
    char *dir = ht__dirname(t1_path), *nt = NULL, *text = NULL;
    char *src = NULL;
    size_t len;
    int rc;

    *spec_json = NULL;
    if (notes)
        *notes = NULL;
    if (!spec || !dir) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    if ((rc = ht__read_file(t1_path, &src, &len, err)) != 0)
        goto cleanup;
    if (!(t1 = json_loadb(src, len, 0, &jerr))) {
        snprintf(err->file, sizeof err->file, "%s", t1_path);
        err->line = jerr.line;
        err->column = jerr.column;
        if (looks_like_python(src))
            rc = ht_error_set(err, HT_EPARSE, "a Python script, not a T1 file: import-kt reads "
                              "the JSON of the tuning standard (T1); for a Kernel Tuner script, "
                              "call hetune.tune from Python (python/hetune) or write its "
                              "tune_params and restrictions into a spec (docs/spec.md) (JSON: "
                              "%s)", jerr.text);
        else
            rc = ht_error_set(err, HT_EPARSE, "%s", jerr.text);
        goto cleanup;
    }
    if ((rc = convert(&im, t1, t1_path, dir, spec_dir, spec, &nt)) != 0) {
        snprintf(err->file, sizeof err->file, "%s", t1_path);
        goto cleanup;
    }
    if (!(text = json_dumps(spec, JSON_INDENT(2)))) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
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
