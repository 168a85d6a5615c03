/* hetune — the native enumerator of a pruned design space (paper §2.1), and the registry
 * of space backends.
 *
 * The enumerator is a depth-first walk over the parameters. Every rule (the platform
 * rules Eq. 1-3, the per-dimension limits, local memory, and each application constraint)
 * is attached to the first depth at which all the parameters it reads are bound, and a
 * node that breaks one is cut with its whole subtree. Before walking, the rules that read
 * one parameter alone filter its domain once (node consistency), and the parameters are
 * ordered to check as few nodes as possible (by pass rates sampled from the rules, for
 * large spaces). Expressions are compiled once (by the spec module) and evaluated over a
 * single array of variables whose parameter slots are overwritten in place, so a walk
 * allocates nothing per point; memory grows with the domain sizes, never with their
 * product. The set visited is exactly the set ht_space_check accepts: an expression that
 * fails to evaluate rejects the point, as it does there (tests/unit/test_space_enum.c
 * checks this against brute force).
 *
 * A rule over two or more parameters whose domains are small enough together (the local
 * memory rule, a constraint) is tabulated once per plan: the rule becomes a table lookup,
 * and each prefix of its parameters in walk order gets a table of the values that some
 * completion can satisfy, checked as soon as that prefix is bound (a sum of products is
 * thus cut term by term, exactly). A rule too large to tabulate that reads as a bound on
 * a sum of terms (local_mem, or 'E <= C' with C constant; struct sop) is checked term by
 * term instead: once some terms are bound, their values plus the minima of the others
 * over their domains past the bound cut the subtree, and their values plus the maxima
 * within it mean every completion passes (entailed), which counting multiplies out.
 * Parameters that no rule links are walked group after group.
 *
 * Counting does not visit: it caches the count of a subtree keyed by what the rules below
 * read of the values bound above (the parameters they read directly, and the partial
 * products of Eq. 1 and Eq. 3 instead of the local and global sizes they come from), so
 * independent groups cost the sum of their walks and conditionally independent ones
 * (once a few parameters are bound) the walks of the distinct keys; the plans it walks
 * are ordered to keep those keys short (order_width). The cache is capped
 * (MEMO_MAX_BYTES a walk): memory stays flat. Counting runs two such walks, the platform
 * rules alone and every rule, on two threads.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/space.h"
#include "enum-internal.h"
#include "util/util.h"

enum dom_kind { DOM_VALUES, DOM_RANGE, DOM_POW2 };

/* A parameter's domain on one device. Ranges are kept as progressions, never expanded. */
struct dom {
    enum dom_kind kind;
    const int64_t *values; /* DOM_VALUES: borrowed from the def, or owned by a plan */
    int64_t first, step;   /* DOM_RANGE: first + k*step; DOM_POW2: first << k */
    uint64_t size;
};

/* Rule groups in ht_space_check's order; the application's constraints follow. */
enum {
    RULE_NDRANGE,
    RULE_EQ1,
    RULE_LIMIT,
    RULE_EQ2,
    RULE_LMEM,
    RULE_EQ3,
    RULE_APP0
};

/* Check kinds in the order they run within one depth: the NDRange sizes are evaluated
 * first because the platform rules of the same depth read them from the cache. */
enum chk_kind {
    CHK_GLOBAL, /* global[dim] evaluates and is positive; cached */
    CHK_LOCAL,  /* local[dim] evaluates and is positive; cached */
    CHK_LIMIT,  /* local[dim] <= max_work_item_size_dim */
    CHK_EQ1,    /* product of local[d], d in mask, <= max_work_group_size */
    CHK_EQ2,    /* global[dim] % local[dim] == 0 */
    CHK_EQ3,    /* work-groups (product or sum) >= compute_units */
    CHK_SOP,    /* a partial bound on a sum of products (struct sopchk) */
    CHK_SUPPORT, /* the values of the levels bound so far of a rule's parameters can be
                  * completed into values that pass it: a table lookup (struct support) */
    CHK_EXPR,   /* an application constraint evaluates to non-zero; these usually cut
                 * more than the local memory rule, so they run before it */
    CHK_LMEM    /* local_mem evaluates and is <= local_mem_size */
};

struct chk {
    enum chk_kind kind;
    unsigned dim;
    unsigned mask;
    unsigned rule;
    const struct ht_expr *e;
    size_t depth;
    size_t tmpl; /* the template it comes from (s->tmpl, s->uses) */
    size_t sup;  /* CHK_SUPPORT: its table in plan->sup; CHK_SOP: plan->sopc */
};

/* A rule read as a bound on a sum of products: sum of sign[i] * terms[i] <= limit (the
 * local memory rule, or a constraint 'E <= C' / 'E < C' with C constant, E possibly a
 * positive literal times a parenthesised sum). n is 0 when the rule is not of that form. */
struct sop {
    size_t n;
    struct ht_expr **terms;
    int *sign;
    int64_t limit;
    int64_t scale; /* the rule is scale * sum <= scale * limit (+ scale - 1) */
};

/* A partial bound of a sum of products at one depth: the terms bound there are
 * evaluated; the others are bounded by their minimum (lbk) and maximum (ubk, with every
 * evaluation successful and no partial sum near overflow) over their domains. Past the
 * limit with the minima: cut. Within it with the maxima: every completion passes
 * (entailed), which counting uses. */
struct sopchk {
    const struct sop *sop;
    unsigned char *bound;
    int lbk, ubk;
    __int128 lbsum, ubsum;
};

/* A rule's support table over a prefix of its parameters, in plan order: bit k is set
 * when the values at levels lev[0..m) whose domain indexes i_0..i_m-1 give
 * k = sum i_j * stride[j] extend, over the remaining parameters of the rule, to values
 * that pass it. With m all of the rule's parameters it is the rule itself, tabulated.
 * The last level has stride 1: once the others are bound, the values of the last that
 * pass are the set bits of one run, which a walk skips to (plan.skip). */
struct support {
    size_t m;
    size_t *lev;
    uint64_t *stride;
    unsigned char *bits;
};

/* A walk plan: an order of the parameters and the checks attached to each depth (depth k
 * means the first k parameters of the order are bound; depth 0 needs none). */
struct plan {
    size_t n;
    size_t *order;     /* parameter index at each level */
    size_t *slot;      /* its slot in the variables */
    struct dom *dom;   /* the domain walked at each level: filtered by the unary checks */
    int64_t **vals;    /* owned value arrays of filtered domains, one per parameter */
    struct chk *chks;  /* sorted by depth, then kind */
    size_t nchks;
    size_t *first;     /* checks of depth k are chks[first[k] .. first[k+1]) */
    size_t last_depth; /* no check is attached deeper than this */
    uint64_t *tail;    /* tail[k]: product of the domain sizes of levels k..n-1, saturated */
    struct support *sup; /* the support tables the CHK_SUPPORT checks read */
    size_t nsup;
    size_t *skip;        /* skip[k]: 1 + a table of sup whose check is at depth k + 1 (its
                            last level k), which walks use to step over the values of
                            level k that fail it without running the checks; or 0 */
    struct sopchk *sopc; /* the partial bounds the CHK_SOP checks read */
    size_t nsopc;
    size_t *ent_tail; /* ent_tail[d]: 1 + the template of every check deeper than d when
                         they all belong to one rule with a CHK_SOP check at depth d (an
                         entailed bound there lets counting multiply by the tail), else 0 */
    /* Counting caches the count of the subtree below a node of level k (levels 0..k
     * bound) keyed by the values of live[k][0..nlive[k]), the bound levels that a check
     * deeper than k + 1 reads directly, and by what the deeper NDRange checks read of
     * the NDRange sizes already computed (derived[k], DER_* bits): the product of the
     * local sizes for Eq. 1 and the work-groups for Eq. 3 of the dimensions whose sizes
     * are all known (capped where the rule no longer changes), a lone known size raw.
     * memo[k] says whether it is worth it (some bound level is no longer read raw: else
     * every key is new). dg[d], dl[d]: the depth where global[d] and local[d] are
     * computed. */
    size_t **live;
    size_t *nlive;
    unsigned *derived;
    unsigned char *memo;
    size_t dg[3], dl[3];
};

enum { DER_EQ1 = 1u, DER_EQ3 = 2u, DER_G0 = 4u, DER_L0 = 32u };

struct ht_space {
    const struct ht_space_def *def;
    struct ht_device_info dev;
    enum ht_eq3 eq3;
    size_t nparams;
    struct dom *doms;
    size_t nvars;
    int64_t *base;      /* sizes, params (0) and device variables */
    size_t *slots;      /* slot of each parameter */
    int contiguous;     /* slots[i] == slots[0] + i: configs are read in place */
    int64_t maxwg, maxitem[3], cu, lmem;
    /* The rules before ordering: each check, and the parameters it reads. EQ1 appears once
     * with every dimension; plans split it into partial products. */
    struct chk *tmpl;
    size_t ntmpl;
    unsigned char *uses; /* ntmpl rows of nparams flags */
    unsigned nrules;     /* RULE_APP0 + nconstraints */
    struct sop *sops;    /* ntmpl entries: each rule as a sum of products, when it is one */
    struct plan platform, full, count; /* count: the full rules ordered for counting */
    struct filter_cache *fc; /* while ht_space_create builds the plans, else NULL */
    double prep_seconds; /* time spent building the plans (filtering the domains) */
};

/* The filtered domains of the plans built so far, by rule limit: the plans of one rule
 * set (full, count, and count's fallback) filter each domain once between them. */
struct filter_cache {
    unsigned rule_limit[2];
    size_t used;
    signed char *state[2]; /* per parameter: 0 not yet, 1 filtered, -1 left as it is */
    int64_t **vals[2];
    uint64_t *n[2];
};

/* The walk's mutable state: one per walk, so a space can be walked by several threads. */
/* Counts pass 2^64 quickly (they multiply domain sizes): gcc's and clang's 128-bit
 * integers keep them exact up to 2^128 - 1, where they saturate; a double follows each
 * count for the sizes past that. */
__extension__ typedef unsigned __int128 u128;
#define U128_MAX (~(u128)0)

struct count {
    u128 n;   /* exact; U128_MAX: that many or more */
    double d; /* the same, rounded: the size shown when n saturates */
};

/* One level's cache: open addressing over keys of klen values. */
struct memo {
    size_t klen, cap, used;
    int64_t *keys;
    struct count *vals;
    unsigned char *full; /* slot taken */
};

struct walk {
    const struct ht_space *s;
    const struct plan *p;
    int64_t *vars;
    uint64_t *idx;
    int64_t *config;    /* in parameter order, when slots are not contiguous */
    int64_t g[3], l[3]; /* cached NDRange sizes of the current path */
    u128 *tail;         /* tail[k]: product of the domain sizes of levels k..n-1 */
    double *tail_d;     /* the same in a double */
    /* Counting's cache of subtree counts (plan.memo), one table per level, and the
     * totals before the subtree of each level's node being walked. */
    struct memo *memo;
    struct count *saved;
    unsigned char *pending;
    int64_t *key;
    size_t memo_bytes;
    size_t ent;     /* the depth of a CHK_SOP check that found its rule entailed, or 0 */
    size_t ent_rule; /* that check's template */
};

/* ---------------------------------------------------------------------------------- */
/* domains */

static int64_t dom_value(const struct dom *d, uint64_t k)
{
    switch (d->kind) {
    case DOM_VALUES:
        return d->values[k];
    case DOM_RANGE:
        /* Unsigned arithmetic wraps back into range: the result lies in [lo, hi]. */
        return (int64_t)((uint64_t)d->first + k * (uint64_t)d->step);
    case DOM_POW2:
    default:
        return d->first << k;
    }
}

static int param_error(struct ht_error *err, const struct ht_space_def *def, size_t i,
                       const char *part, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Fills err (when it holds no error yet) with HT_ESPEC about parameter i. */
static int param_error(struct ht_error *err, const struct ht_space_def *def, size_t i,
                       const char *part, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    if (err && err->code == 0) {
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        snprintf(err->field, sizeof err->field, "params.%s.%s", def->params[i].name, part);
        ht_error_set(err, HT_ESPEC, "%s", msg);
    }
    return HT_ESPEC;
}

/* Evaluates one range bound; the bounds may read sizes and device variables only. */
static int eval_bound(const struct ht_space *s, size_t i, const struct ht_expr *e,
                      const char *what, const char *part, int64_t *out, struct ht_error *err)
{
    const struct ht_space_def *def = s->def;
    int rc;

    for (size_t j = 0; j < def->nparams; j++)
        if (ht_expr_uses(e, s->slots[j]))
            return param_error(err, def, i, part,
                               "the %s '%s' may use sizes and device variables, not the "
                               "parameter '%s'",
                               what, ht_expr_source(e), def->params[j].name);
    rc = ht_expr_eval(e, s->base, out);
    if (rc != 0)
        return param_error(err, def, i, part,
                           "the %s '%s' cannot be evaluated on device %zu: %s", what,
                           ht_expr_source(e), s->dev.index, ht_strerror(rc));
    return 0;
}

static int resolve_domain(struct ht_space *s, size_t i, struct ht_error *err)
{
    const struct ht_param *p = &s->def->params[i];
    struct dom *d = &s->doms[i];
    int64_t lo, hi, step = 1;
    int rc;

    if (p->kind == HT_PARAM_VALUES) {
        if (p->nvalues == 0)
            return param_error(err, s->def, i, "values", "the list of values is empty");
        d->kind = DOM_VALUES;
        d->values = p->values;
        d->size = p->nvalues;
        return 0;
    }
    if ((rc = eval_bound(s, i, p->lo, "lower bound", "range", &lo, err)) != 0)
        return rc;
    if ((rc = eval_bound(s, i, p->hi, "upper bound", "range", &hi, err)) != 0)
        return rc;
    if (hi < lo)
        return param_error(err, s->def, i, "range",
                           "the range is empty on device %zu: hi (%lld) < lo (%lld)",
                           s->dev.index, (long long)hi, (long long)lo);
    if (p->pow2) {
        int64_t v = 1;
        uint64_t n = 0;
        while (v < lo && v <= INT64_MAX / 2)
            v <<= 1;
        d->kind = DOM_POW2;
        d->first = v;
        for (; v >= lo && v <= hi; n++) {
            if (v > INT64_MAX / 2) {
                n++;
                break;
            }
            v <<= 1;
        }
        if (n == 0)
            return param_error(err, s->def, i, "range",
                               "no power of two lies in the range [%lld, %lld] on device %zu",
                               (long long)lo, (long long)hi, s->dev.index);
        d->size = n;
        return 0;
    }
    if (p->step && (rc = eval_bound(s, i, p->step, "step", "step", &step, err)) != 0)
        return rc;
    if (step <= 0)
        return param_error(err, s->def, i, "step", "the step must be positive, not %lld",
                           (long long)step);
    d->kind = DOM_RANGE;
    d->first = lo;
    d->step = step;
    /* hi - lo fits in uint64 even when it does not fit in int64. */
    d->size = ((uint64_t)hi - (uint64_t)lo) / (uint64_t)step + 1;
    if (d->size == 0 || d->size > (UINT64_C(1) << 62))
        return param_error(err, s->def, i, "range", "the range [%lld, %lld] has too many values",
                           (long long)lo, (long long)hi);
    return 0;
}

/* ---------------------------------------------------------------------------------- */
/* rules */

static int add_tmpl(struct ht_space *s, enum chk_kind kind, unsigned dim, unsigned rule,
                    const struct ht_expr *const *exprs, size_t nexprs)
{
    struct chk *c;
    unsigned char *u;
    size_t np = s->nparams;

    c = realloc(s->tmpl, (s->ntmpl + 1) * sizeof *c);
    if (!c)
        return HT_ENOMEM;
    s->tmpl = c;
    u = realloc(s->uses, (s->ntmpl + 1) * (np ? np : 1));
    if (!u)
        return HT_ENOMEM;
    s->uses = u;
    c = &s->tmpl[s->ntmpl];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->dim = dim;
    c->mask = 0;
    c->rule = rule;
    c->tmpl = s->ntmpl;
    c->e = nexprs > 0 && (kind == CHK_GLOBAL || kind == CHK_LOCAL || kind == CHK_LMEM ||
                          kind == CHK_EXPR)
               ? exprs[0]
               : NULL;
    u += s->ntmpl * (np ? np : 1);
    for (size_t i = 0; i < np; i++) {
        u[i] = 0;
        for (size_t k = 0; k < nexprs; k++)
            if (exprs[k] && ht_expr_uses(exprs[k], s->slots[i]))
                u[i] = 1;
    }
    s->ntmpl++;
    return 0;
}

static int build_rules(struct ht_space *s)
{
    const struct ht_space_def *def = s->def;
    unsigned nd = def->ndims;
    int has_local = nd > 0 && def->local[0] != NULL;
    const struct ht_expr *all[6];
    size_t nall = 0;
    int rc;

    for (unsigned d = 0; d < nd; d++) {
        const struct ht_expr *e = def->global[d];
        if ((rc = add_tmpl(s, CHK_GLOBAL, d, RULE_NDRANGE, &e, 1)) != 0)
            return rc;
        all[nall++] = e;
    }
    if (has_local) {
        const struct ht_expr *locals[3];
        for (unsigned d = 0; d < nd; d++) {
            const struct ht_expr *e = def->local[d];
            locals[d] = e;
            if ((rc = add_tmpl(s, CHK_LOCAL, d, RULE_NDRANGE, &e, 1)) != 0)
                return rc;
            all[nall++] = e;
        }
        if ((rc = add_tmpl(s, CHK_EQ1, 0, RULE_EQ1, locals, nd)) != 0)
            return rc;
        s->tmpl[s->ntmpl - 1].mask = (1u << nd) - 1;
        for (unsigned d = 0; d < nd; d++) {
            const struct ht_expr *e = def->local[d];
            const struct ht_expr *both[2] = {def->global[d], def->local[d]};
            if ((rc = add_tmpl(s, CHK_LIMIT, d, RULE_LIMIT, &e, 1)) != 0)
                return rc;
            if ((rc = add_tmpl(s, CHK_EQ2, d, RULE_EQ2, both, 2)) != 0)
                return rc;
        }
    }
    if (def->local_mem) {
        const struct ht_expr *e = def->local_mem;
        if ((rc = add_tmpl(s, CHK_LMEM, 0, RULE_LMEM, &e, 1)) != 0)
            return rc;
    }
    if (has_local && s->eq3 != HT_EQ3_OFF)
        if ((rc = add_tmpl(s, CHK_EQ3, 0, RULE_EQ3, all, nall)) != 0)
            return rc;
    for (size_t i = 0; i < def->nconstraints; i++) {
        const struct ht_expr *e = def->constraints[i].expr;
        if ((rc = add_tmpl(s, CHK_EXPR, 0, (unsigned)(RULE_APP0 + i), &e, 1)) != 0)
            return rc;
    }
    s->nrules = (unsigned)(RULE_APP0 + def->nconstraints);
    return 0;
}

/* ---------------------------------------------------------------------------------- */
/* sums of products */

static int word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* The index of the ')' closing the '(' at i, or 0. */
static size_t close_paren(const char *t, size_t i)
{
    int depth = 0;
    for (size_t j = i; t[j]; j++) {
        depth += t[j] == '(';
        depth -= t[j] == ')';
        if (depth == 0)
            return j;
    }
    return 0;
}

static void trim(char **b, char **e)
{
    while (*b < *e && (**b == ' ' || **b == '\t'))
        (*b)++;
    while (*e > *b && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
        (*e)--;
}

/* Reads t[0..len) as "K * (SUM)", "(SUM) * K" (K a positive literal) or "SUM", SUM a
 * chain of terms joined by binary + and - outside parentheses; the terms are compiled
 * into sp with limit / K (rounded down) as the bound. Returns 1 when it is such a sum of
 * two or more terms, else 0 (sp untouched but for what it frees). The terms are exactly
 * the operands of the top-level + and -: C gives them a higher precedence than anything
 * else allowed here, and anything that would bind looser (comparisons, logic, bitwise,
 * shifts, ?:) refuses the rule. */
static int sop_sum(const struct ht_space *s, char *t, size_t len, int64_t limit,
                   struct sop *sp)
{
    char *b = t, *e = t + len, *start;
    long long scale = 1;
    size_t cl;
    int depth = 0, sign = 1;
    char prev = 0;

    trim(&b, &e);
    if (b < e && *b == '(' && (cl = close_paren(b, 0)) != 0 && b + cl < e) {
        char *r = b + cl + 1, *end;
        while (r < e && *r == ' ')
            r++;
        if (r < e && *r == '*') {
            scale = strtoll(r + 1, &end, 10);
            while (end < e && *end == ' ')
                end++;
            if (end == e && scale > 0 && scale < (1LL << 31)) {
                b++;
                e = b + cl - 1;
            } else {
                scale = 1;
            }
        }
    } else if (b < e && *b >= '0' && *b <= '9') {
        char *end;
        long long k = strtoll(b, &end, 10);
        while (end < e && *end == ' ')
            end++;
        if (end < e && *end == '*') {
            char *r = end + 1;
            while (r < e && *r == ' ')
                r++;
            if (r < e && *r == '(' && (cl = close_paren(r, 0)) != 0 && r + cl + 1 == e &&
                k > 0 && k < (1LL << 31)) {
                scale = k;
                b = r + 1;
                e = r + cl;
            }
        }
    }
    sp->limit = limit >= 0 ? limit / scale : -((-(limit + 1)) / scale) - 1;
    sp->scale = scale;
    start = b;
    for (char *c = b;; c++) {
        int cut = c == e;
        if (!cut && *c == '(')
            depth++;
        else if (!cut && *c == ')')
            depth--;
        else if (!cut && depth == 0 && strchr("<>=!&|^?:,~", *c))
            return 0;
        else if (!cut && depth == 0 && (*c == '+' || *c == '-') &&
                 (word_char(prev) || prev == ')'))
            cut = 2;
        if (cut) {
            char *tb = start, *te = c, save;
            struct ht_expr **terms;
            int *signs;
            struct ht_error err;
            trim(&tb, &te);
            if (tb == te)
                return 0;
            terms = realloc(sp->terms, (sp->n + 1) * sizeof *terms);
            if (!terms)
                return 0;
            sp->terms = terms;
            signs = realloc(sp->sign, (sp->n + 1) * sizeof *signs);
            if (!signs)
                return 0;
            sp->sign = signs;
            save = *te;
            *te = '\0';
            ht_error_clear(&err);
            if (ht_expr_compile(tb, &s->def->names, &sp->terms[sp->n], &err) != 0) {
                *te = save;
                return 0;
            }
            *te = save;
            sp->sign[sp->n++] = sign;
            if (c == e)
                break;
            sign = *c == '-' ? -1 : 1;
            start = c + 1;
            prev = 0;
            continue;
        }
        if (*c != ' ' && *c != '\t')
            prev = *c;
    }
    return sp->n >= 2;
}

static void sop_free(struct sop *sp)
{
    for (size_t i = 0; i < sp->n; i++)
        ht_expr_free(sp->terms[i]);
    free(sp->terms);
    free(sp->sign);
    memset(sp, 0, sizeof *sp);
}

/* Reads template c as a sum of products (struct sop): the local memory rule against
 * local_mem_size, or a constraint "E <= C" or "E < C" with C reading no parameter. */
static void sop_parse(const struct ht_space *s, size_t c, struct sop *sp)
{
    const struct chk *ch = &s->tmpl[c];
    const char *src = ch->e ? ht_expr_source(ch->e) : NULL;
    char *t;
    size_t len, at = 0, ncmp = 0, rhs = 0;
    int depth = 0, ok = 0;
    int64_t limit = 0;

    memset(sp, 0, sizeof *sp);
    if (!src || (ch->kind != CHK_LMEM && ch->kind != CHK_EXPR))
        return;
    t = ht__strdup(src);
    if (!t)
        return;
    len = strlen(t);
    if (ch->kind == CHK_LMEM) {
        limit = s->lmem;
        ok = 1;
    } else {
        for (size_t i = 0; i < len; i++) {
            depth += t[i] == '(';
            depth -= t[i] == ')';
            if (depth == 0 && t[i] == '<' && t[i + 1] != '<' && (i == 0 || t[i - 1] != '<')) {
                at = i;
                rhs = t[i + 1] == '=' ? i + 2 : i + 1;
                ncmp++;
            }
        }
        /* Anything binding looser than the comparison after it ('E <= C && X', 'E <= C
         * == X', 'E <= C ? X : Y') makes C not the bound. */
        depth = 0;
        for (size_t i = rhs; ncmp == 1 && i < len; i++) {
            depth += t[i] == '(';
            depth -= t[i] == ')';
            if (depth == 0 && strchr("<>=!&|^?:,", t[i]))
                ncmp = 0;
        }
        if (ncmp == 1) {
            struct ht_expr *r = NULL;
            struct ht_error err;
            int64_t v;
            int reads = 0;
            ht_error_clear(&err);
            if (ht_expr_compile(t + rhs, &s->def->names, &r, &err) == 0) {
                for (size_t i = 0; i < s->nparams; i++)
                    reads |= ht_expr_uses(r, s->slots[i]);
                if (!reads && ht_expr_eval(r, s->base, &v) == 0 &&
                    (rhs == at + 2 || v > INT64_MIN)) {
                    limit = rhs == at + 2 ? v : v - 1;
                    ok = 1;
                }
                ht_expr_free(r);
            }
            len = at;
        }
    }
    if (!ok || !sop_sum(s, t, len, limit, sp))
        sop_free(sp);
    free(t);
}

/* ---------------------------------------------------------------------------------- */
/* walks */

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return (b != 0 && a > UINT64_MAX / b) ? UINT64_MAX : a * b;
}

/* Runs one check on the current path. Returns 1 when it passes. */
static inline int check_one(struct walk *w, const struct chk *c)
{
    const struct ht_space *s = w->s;
    int64_t v;

    switch (c->kind) {
    case CHK_GLOBAL:
        if (ht_expr_eval(c->e, w->vars, &v) != 0 || v <= 0)
            return 0;
        w->g[c->dim] = v;
        return 1;
    case CHK_LOCAL:
        if (ht_expr_eval(c->e, w->vars, &v) != 0 || v <= 0)
            return 0;
        w->l[c->dim] = v;
        return 1;
    case CHK_LIMIT:
        return w->l[c->dim] <= s->maxitem[c->dim];
    case CHK_EQ1: {
        uint64_t prod = 1;
        for (unsigned d = 0; d < 3; d++)
            if (c->mask & (1u << d))
                prod = sat_mul(prod, (uint64_t)w->l[d]);
        return prod <= (uint64_t)s->maxwg;
    }
    case CHK_EQ2:
        return w->g[c->dim] % w->l[c->dim] == 0;
    case CHK_EQ3: {
        uint64_t groups = s->eq3 == HT_EQ3_SUM ? 0 : 1;
        for (unsigned d = 0; d < s->def->ndims; d++) {
            uint64_t n = (uint64_t)(w->g[d] / w->l[d]);
            if (s->eq3 == HT_EQ3_SUM)
                groups = groups + n < groups ? UINT64_MAX : groups + n;
            else
                groups = sat_mul(groups, n);
        }
        return groups >= (uint64_t)s->cu;
    }
    case CHK_SOP: {
        const struct sopchk *q = &w->p->sopc[c->sup];
        const struct sop *sp = q->sop;
        __int128 sum = 0;
        for (size_t t = 0; t < sp->n; t++) {
            if (!q->bound[t])
                continue;
            if (ht_expr_eval(sp->terms[t], w->vars, &v) != 0)
                return 0;
            sum += sp->sign[t] < 0 ? -(__int128)v : (__int128)v;
        }
        if (q->lbk && sum + q->lbsum > sp->limit)
            return 0;
        if (q->ubk && sum + q->ubsum <= sp->limit) {
            w->ent = c->depth;
            w->ent_rule = c->tmpl;
        }
        return 1;
    }
    case CHK_SUPPORT: {
        const struct support *sp = &w->p->sup[c->sup];
        uint64_t k = 0;
        for (size_t j = 0; j < sp->m; j++)
            k += (w->idx[sp->lev[j]] - 1) * sp->stride[j];
        return (sp->bits[k >> 3] >> (k & 7)) & 1;
    }
    case CHK_LMEM:
        return ht_expr_eval(c->e, w->vars, &v) == 0 && v <= s->lmem;
    case CHK_EXPR:
    default:
        return ht_expr_eval(c->e, w->vars, &v) == 0 && v != 0;
    }
}

/* Runs the checks of one depth. Returns 1 when the current path passes them all. */
static int run_checks(struct walk *w, size_t depth)
{
    const struct plan *p = w->p;

    for (size_t i = p->first[depth]; i < p->first[depth + 1]; i++)
        if (!check_one(w, &p->chks[i]))
            return 0;
    return 1;
}

/* The first index k' >= k of level's domain (size values) whose value passes the
 * support table plan.skip names, given the levels above; size when none does. Values
 * skipped fail a check of depth level + 1, so skipping them changes no result. */
static inline uint64_t skip_to(const struct walk *w, size_t level, uint64_t k, uint64_t size)
{
    size_t t = w->p->skip ? w->p->skip[level] : 0;
    const struct support *sp;
    uint64_t base = 0, b, end;

    if (!t || k >= size)
        return k;
    sp = &w->p->sup[t - 1];
    for (size_t j = 0; j + 1 < sp->m; j++)
        base += (w->idx[sp->lev[j]] - 1) * sp->stride[j];
    for (b = base + k, end = base + size; b < end; b++) {
        while ((b & 7) == 0 && end - b >= 8 && sp->bits[b >> 3] == 0)
            b += 8;
        if (b >= end || (sp->bits[b >> 3] >> (b & 7)) & 1)
            break;
    }
    return (b < end ? b : end) - base;
}

static const int64_t *current_config(struct walk *w)
{
    const struct ht_space *s = w->s;
    if (s->contiguous)
        return s->nparams ? w->vars + s->slots[0] : w->vars;
    for (size_t i = 0; i < s->nparams; i++)
        w->config[i] = w->vars[s->slots[i]];
    return w->config;
}

/* Walks plan p. With cb NULL it only counts, multiplying by the domain sizes of the
 * levels below the last check instead of walking them. Returns 0, or cb's positive value
 * when it stopped the walk. *count gets the number of valid (or visited) points. */
static int walk_run(struct walk *w, ht_space_visit_fn cb, void *user, struct count *count)
{
    const struct plan *p = w->p;
    size_t n = p->n, level = 0;
    u128 total = 0;
    double total_d = 0;
    int stop = 0;

    *count = (struct count){0, 0};
    if (!run_checks(w, 0))
        return 0;
    if (n == 0 || (!cb && p->last_depth == 0)) {
        *count = (struct count){w->tail[0], w->tail_d[0]};
        if (cb && count->n)
            stop = cb(current_config(w), user);
        return stop > 0 ? stop : 0;
    }
    w->idx[0] = 0;
    for (;;) {
        const struct dom *d = &p->dom[level];
        uint64_t k = skip_to(w, level, w->idx[level], d->size);
        if (k >= d->size) {
            if (level == 0)
                break;
            level--;
            continue;
        }
        w->idx[level] = k + 1;
        w->vars[p->slot[level]] = dom_value(d, k);
        if (!run_checks(w, level + 1))
            continue;
        if (level + 1 == n) {
            total += total != U128_MAX;
            total_d++;
            if (cb && (stop = cb(current_config(w), user)) > 0)
                break;
            continue;
        }
        if (!cb && level + 1 >= p->last_depth) {
            u128 t = w->tail[level + 1];
            total = total + t < total ? U128_MAX : total + t;
            total_d += w->tail_d[level + 1];
            continue;
        }
        level++;
        w->idx[level] = 0;
    }
    *count = (struct count){total, total_d};
    return stop > 0 ? stop : 0;
}

/* The cache of subtree counts takes at most this many bytes per walk; past it, counts
 * are no longer kept (the walk stays exact, only slower): memory stays flat. */
#define MEMO_MAX_BYTES ((size_t)64 << 20)

static uint64_t memo_hash(const int64_t *key, size_t klen)
{
    uint64_t h = UINT64_C(0x9e3779b97f4a7c15);
    for (size_t i = 0; i < klen; i++) {
        h ^= (uint64_t)key[i];
        h *= UINT64_C(0xff51afd7ed558ccd);
        h ^= h >> 32;
    }
    return h;
}

/* Fills w->key with the live values of level k; returns its table. */
static struct memo *memo_key(struct walk *w, size_t k)
{
    const struct plan *p = w->p;
    const struct ht_space *s = w->s;
    unsigned der = p->derived[k];
    size_t n = p->nlive[k], done = k + 1;

    for (size_t j = 0; j < n; j++)
        w->key[j] = w->vars[p->slot[p->live[k][j]]];
    if (der & DER_EQ1) {
        uint64_t prod = 1;
        for (unsigned d = 0; d < s->def->ndims; d++)
            if (p->dl[d] <= done)
                prod = sat_mul(prod, (uint64_t)w->l[d]);
        w->key[n++] = (int64_t)(prod > (uint64_t)s->maxwg ? (uint64_t)s->maxwg + 1 : prod);
    }
    if (der & DER_EQ3) {
        uint64_t groups = s->eq3 == HT_EQ3_SUM ? 0 : 1;
        for (unsigned d = 0; d < s->def->ndims; d++) {
            uint64_t g;
            if (p->dl[d] > done || p->dg[d] > done)
                continue;
            g = (uint64_t)(w->g[d] / w->l[d]);
            if (s->eq3 == HT_EQ3_SUM)
                groups = groups + g < groups ? UINT64_MAX : groups + g;
            else
                groups = sat_mul(groups, g);
        }
        w->key[n++] = (int64_t)(groups > (uint64_t)s->cu ? (uint64_t)s->cu : groups);
    }
    for (unsigned d = 0; d < 3; d++) {
        if (der & (DER_G0 << d))
            w->key[n++] = w->g[d];
        if (der & (DER_L0 << d))
            w->key[n++] = w->l[d];
    }
    w->memo[k].klen = n;
    return &w->memo[k];
}

/* The slot of key in m: where it is, or the empty slot where it would go. */
static size_t memo_find(const struct memo *m, const int64_t *key)
{
    size_t mask = m->cap - 1, i = (size_t)memo_hash(key, m->klen) & mask;
    while (m->full[i] && memcmp(m->keys + i * m->klen, key, m->klen * sizeof *key) != 0)
        i = (i + 1) & mask;
    return i;
}

static int memo_get(struct walk *w, size_t k, struct count *out)
{
    struct memo *m = memo_key(w, k);
    size_t i;
    if (m->cap == 0)
        return 0;
    i = memo_find(m, w->key);
    if (!m->full[i])
        return 0;
    *out = m->vals[i];
    return 1;
}

/* Grows m to cap slots; returns 0, or -1 when the memory cap or malloc says no. */
static int memo_grow(struct walk *w, struct memo *m, size_t cap)
{
    size_t kl = m->klen ? m->klen : 1;
    size_t bytes = cap * (kl * sizeof *m->keys + sizeof *m->vals + 1);
    struct memo g = {m->klen, cap, m->used, NULL, NULL, NULL};
    size_t old = m->cap * (kl * sizeof *m->keys + sizeof *m->vals + 1);

    if (w->memo_bytes - old + bytes > MEMO_MAX_BYTES)
        return -1;
    g.keys = malloc(cap * kl * sizeof *g.keys);
    g.vals = malloc(cap * sizeof *g.vals);
    g.full = calloc(cap, 1);
    if (!g.keys || !g.vals || !g.full) {
        free(g.keys);
        free(g.vals);
        free(g.full);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        size_t j;
        if (!m->full[i])
            continue;
        j = memo_find(&g, m->keys + i * m->klen);
        g.full[j] = 1;
        memcpy(g.keys + j * m->klen, m->keys + i * m->klen, m->klen * sizeof *g.keys);
        g.vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    free(m->full);
    *m = g;
    w->memo_bytes = w->memo_bytes - old + bytes;
    return 0;
}

static void memo_put(struct walk *w, size_t k, struct count c)
{
    struct memo *m = memo_key(w, k);
    size_t i;
    if ((m->used + 1) * 2 > m->cap && memo_grow(w, m, m->cap ? m->cap * 2 : 64) != 0)
        return;
    i = memo_find(m, w->key);
    if (m->full[i])
        return;
    m->full[i] = 1;
    memcpy(m->keys + i * m->klen, w->key, m->klen * sizeof *w->key);
    m->vals[i] = c;
    m->used++;
}

static void count_add(u128 *total, double *total_d, u128 n, double d)
{
    *total = *total + n < *total ? U128_MAX : *total + n;
    *total_d += d;
}

/* Counts plan p: walk_run without a callback, and with the cache of subtree counts. A
 * node of a level marked memo looks its live values up before walking its subtree, and
 * keeps the subtree's count after: the subtree's checks read no other bound value, so
 * its count depends on those values only. Parameters that no rule links (independent
 * groups, placed one after the other by plan_build) thus cost the sum of the groups'
 * walks, not their product. */
static void walk_count_from(struct walk *w, size_t start, struct count *count);

static void walk_count(struct walk *w, struct count *count)
{
    const struct plan *p = w->p;

    *count = (struct count){0, 0};
    if (!run_checks(w, 0))
        return;
    if (p->n == 0 || p->last_depth == 0) {
        *count = (struct count){w->tail[0], w->tail_d[0]};
        return;
    }
    walk_count_from(w, 0, count);
}

/* Counts the subtree below the current node of level start - 1 (levels 0..start-1 bound
 * and their checks passed; start < p->n): walk_count's loop from level start. */
static void walk_count_from(struct walk *w, size_t start, struct count *count)
{
    const struct plan *p = w->p;
    size_t n = p->n, level = start;
    u128 total = 0;
    double total_d = 0;

    w->idx[start] = 0;
    for (;;) {
        const struct dom *d = &p->dom[level];
        uint64_t k = skip_to(w, level, w->idx[level], d->size);
        struct count c;
        if (k >= d->size) {
            if (level == start)
                break;
            level--;
            if (w->pending[level]) {
                w->pending[level] = 0;
                if (total != U128_MAX)
                    memo_put(w, level,
                             (struct count){total - w->saved[level].n,
                                            total_d - w->saved[level].d});
            }
            continue;
        }
        w->idx[level] = k + 1;
        w->vars[p->slot[level]] = dom_value(d, k);
        w->ent = 0;
        if (!run_checks(w, level + 1))
            continue;
        if (level + 1 == n) {
            count_add(&total, &total_d, 1, 1);
            continue;
        }
        if (level + 1 >= p->last_depth ||
            (w->ent == level + 1 && p->ent_tail[level + 1] == w->ent_rule + 1)) {
            count_add(&total, &total_d, w->tail[level + 1], w->tail_d[level + 1]);
            continue;
        }
        if (p->memo[level]) {
            if (memo_get(w, level, &c)) {
                count_add(&total, &total_d, c.n, c.d);
                continue;
            }
            w->saved[level] = (struct count){total, total_d};
            w->pending[level] = 1;
        }
        level++;
        w->idx[level] = 0;
    }
    *count = (struct count){total, total_d};
}

static void walk_destroy(struct walk *w);

static int walk_init(struct walk *w, const struct ht_space *s, const struct plan *p)
{
    memset(w, 0, sizeof *w);
    w->s = s;
    w->p = p;
    w->vars = malloc((s->nvars ? s->nvars : 1) * sizeof *w->vars);
    w->idx = malloc((s->nparams + 1) * sizeof *w->idx);
    w->config = malloc((s->nparams + 1) * sizeof *w->config);
    w->tail = malloc((p->n + 1) * sizeof *w->tail);
    w->tail_d = malloc((p->n + 1) * sizeof *w->tail_d);
    w->memo = calloc(s->nparams + 1, sizeof *w->memo);
    w->saved = calloc(s->nparams + 1, sizeof *w->saved);
    w->pending = calloc(s->nparams + 1, 1);
    w->key = calloc(s->nparams + 9, sizeof *w->key);
    if (!w->vars || !w->idx || !w->config || !w->tail || !w->tail_d || !w->memo ||
        !w->saved || !w->pending || !w->key) {
        walk_destroy(w);
        return HT_ENOMEM;
    }
    /* plan_build's walk comes before the domains: its tails are 0 and unused. */
    w->tail[p->n] = 1;
    w->tail_d[p->n] = 1;
    for (size_t k = p->n; k-- > 0;) {
        uint64_t size = p->dom[k].size;
        w->tail[k] = size && w->tail[k + 1] > U128_MAX / size ? U128_MAX
                                                              : w->tail[k + 1] * size;
        w->tail_d[k] = w->tail_d[k + 1] * (double)size;
    }
    memcpy(w->vars, s->base, s->nvars * sizeof *w->vars);
    for (unsigned d = 0; d < 3; d++)
        w->g[d] = w->l[d] = 1;
    return 0;
}

static void walk_destroy(struct walk *w)
{
    for (size_t k = 0; w->memo && k <= w->s->nparams; k++) {
        free(w->memo[k].keys);
        free(w->memo[k].vals);
        free(w->memo[k].full);
    }
    free(w->memo);
    free(w->saved);
    free(w->pending);
    free(w->key);
    free(w->vars);
    free(w->idx);
    free(w->config);
    free(w->tail);
    free(w->tail_d);
}

/* Walks p once; cb may be NULL (count only). */
static int run_plan(const struct ht_space *s, const struct plan *p, ht_space_visit_fn cb,
                    void *user, struct count *count)
{
    struct walk w;
    int rc = walk_init(&w, s, p);
    if (rc != 0)
        return rc;
    if (cb)
        rc = walk_run(&w, cb, user, count);
    else
        walk_count(&w, count);
    walk_destroy(&w);
    return rc;
}

/* ---------------------------------------------------------------------------------- */
/* ranks: the valid configurations numbered in the count plan's walk order */

struct ht_space_ranker {
    struct walk w;
    struct memo *prefix; /* per level whose plan.memo is off: subtree counts keyed by
                            every bound value (the path), so that draws after the first
                            walk no subtree twice */
    uint64_t count;
};

/* The count of the subtree below the current node of level `level` (levels 0..level
 * bound, their checks just passed). */
static struct count subtree_count(struct ht_space_ranker *r, size_t level)
{
    struct walk *w = &r->w;
    const struct plan *p = w->p;
    struct memo *m = NULL;
    struct count c;
    size_t i = 0;

    if (level + 1 == p->n)
        return (struct count){1, 1};
    if (level + 1 >= p->last_depth ||
        (w->ent == level + 1 && p->ent_tail[level + 1] == w->ent_rule + 1))
        return (struct count){w->tail[level + 1], w->tail_d[level + 1]};
    if (p->memo[level]) {
        if (memo_get(w, level, &c))
            return c;
    } else {
        m = &r->prefix[level];
        m->klen = level + 1;
        for (size_t j = 0; j <= level; j++)
            w->key[j] = w->vars[p->slot[j]];
        if (m->cap && m->full[i = memo_find(m, w->key)])
            return m->vals[i];
    }
    walk_count_from(w, level + 1, &c);
    if (c.n == U128_MAX)
        return c;
    if (!m) {
        memo_put(w, level, c);
    } else if ((m->used + 1) * 2 <= m->cap || memo_grow(w, m, m->cap ? m->cap * 2 : 64) == 0) {
        /* walk_count_from overwrote the key: make it again. */
        for (size_t j = 0; j <= level; j++)
            w->key[j] = w->vars[p->slot[j]];
        i = memo_find(m, w->key);
        m->full[i] = 1;
        memcpy(m->keys + i * m->klen, w->key, m->klen * sizeof *w->key);
        m->vals[i] = c;
        m->used++;
    }
    return c;
}

int ht_space_ranker_create(const struct ht_space *s, struct ht_space_ranker **out)
{
    struct ht_space_ranker *r;
    struct count c;

    if (!s || !out)
        return HT_EINVAL;
    *out = NULL;
    r = calloc(1, sizeof *r);
    if (!r)
        return HT_ENOMEM;
    r->prefix = calloc(s->nparams + 1, sizeof *r->prefix);
    if (!r->prefix || walk_init(&r->w, s, &s->count) != 0) {
        free(r->prefix);
        free(r);
        return HT_ENOMEM;
    }
    walk_count(&r->w, &c);
    if (c.n > UINT64_MAX) {
        ht_space_ranker_free(r);
        return HT_EOVERFLOW;
    }
    r->count = (uint64_t)c.n;
    *out = r;
    return 0;
}

uint64_t ht_space_ranker_count(const struct ht_space_ranker *r)
{
    return r ? r->count : 0;
}

int ht_space_unrank(struct ht_space_ranker *r, uint64_t rank, int64_t *config)
{
    struct walk *w;
    const struct plan *p;
    const struct ht_space *s;
    u128 left = rank;

    if (!r)
        return HT_EINVAL;
    w = &r->w;
    p = w->p;
    s = w->s;
    if (rank >= r->count)
        return HT_EDOMAIN;
    /* A rank out of range is HT_EDOMAIN first, whatever config: an empty space's caller
     * may ask with no room for a configuration. */
    if (!config)
        return HT_EINVAL;
    if (!run_checks(w, 0))
        return HT_EDOMAIN; /* not reached: the count is 0 */
    for (size_t level = 0, free_from = p->last_depth; level < p->n; level++) {
        const struct dom *d = &p->dom[level];
        uint64_t k;
        if (level >= free_from) {
            /* No check below (or the rule left is entailed): every completion is valid,
             * the rank's digits in the mixed radix of the domain sizes. */
            k = (uint64_t)(left / w->tail[level + 1]);
            left -= (u128)k * w->tail[level + 1];
            w->vars[p->slot[level]] = dom_value(d, k);
            continue;
        }
        for (k = skip_to(w, level, 0, d->size); k < d->size;
             k = skip_to(w, level, k + 1, d->size)) {
            struct count c;
            int ent;
            w->vars[p->slot[level]] = dom_value(d, k);
            w->idx[level] = k + 1;
            w->ent = 0;
            if (!run_checks(w, level + 1))
                continue;
            ent = w->ent == level + 1 && p->ent_tail[level + 1] == w->ent_rule + 1;
            c = subtree_count(r, level);
            if (left < c.n) {
                free_from = ent ? level + 1 : free_from;
                break;
            }
            left -= c.n;
        }
        /* The sub-walks moved only deeper levels and the NDRange sizes computed there:
         * this level's value and the checks up to it still hold. */
        if (k == d->size)
            return HT_EDOMAIN; /* not reached: the counts add up to r->count */
    }
    memcpy(config, current_config(w), s->nparams * sizeof *config);
    return 0;
}

void ht_space_ranker_free(struct ht_space_ranker *r)
{
    if (!r)
        return;
    for (size_t k = 0; k <= r->w.s->nparams; k++) {
        free(r->prefix[k].keys);
        free(r->prefix[k].vals);
        free(r->prefix[k].full);
    }
    free(r->prefix);
    walk_destroy(&r->w);
    free(r);
}

/* ---------------------------------------------------------------------------------- */
/* plans */

/* Domains up to this size are filtered by their unary checks when a plan is built. */
#define FILTER_MAX (UINT64_C(1) << 22)

static void plan_destroy(struct plan *p)
{
    for (size_t i = 0; p->vals && i < p->n; i++)
        free(p->vals[i]);
    free(p->vals);
    free(p->dom);
    free(p->order);
    free(p->slot);
    free(p->chks);
    free(p->first);
    free(p->tail);
    for (size_t i = 0; p->sup && i < p->nsup; i++) {
        free(p->sup[i].lev);
        free(p->sup[i].stride);
        free(p->sup[i].bits);
    }
    free(p->sup);
    free(p->skip);
    for (size_t i = 0; p->sopc && i < p->nsopc; i++)
        free(p->sopc[i].bound);
    free(p->sopc);
    free(p->ent_tail);
    for (size_t k = 0; p->live && k < p->n; k++)
        free(p->live[k]);
    free(p->live);
    free(p->nlive);
    free(p->derived);
    free(p->memo);
    memset(p, 0, sizeof *p);
}

static int chk_cmp(const void *a, const void *b)
{
    const struct chk *x = a, *y = b;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->dim != y->dim)
        return x->dim < y->dim ? -1 : 1;
    if (x->rule != y->rule)
        return x->rule < y->rule ? -1 : 1;
    return 0;
}

/* The number of parameters check c reads; *which gets one of them. */
static size_t nuses(const struct ht_space *s, size_t c, size_t *which)
{
    size_t np = s->nparams, row = np ? np : 1, n = 0;
    const unsigned char *u = s->uses + c * row;
    for (size_t i = 0; i < np; i++)
        if (u[i]) {
            n++;
            *which = i;
        }
    return n;
}

/* Node consistency: keeps the values of parameter i's domain that pass every active check
 * reading i alone (checks reading no parameter have run on w already, filling the cache
 * of constant NDRange sizes). Sets *filtered when it did (the domain is small enough). */
/* The slot of s->fc for rule_limit (taken when new), or -1 when there is none. */
static int fc_slot(const struct ht_space *s, unsigned rule_limit)
{
    struct filter_cache *fc = s->fc;
    size_t k;

    if (!fc)
        return -1;
    for (k = 0; k < fc->used; k++)
        if (fc->rule_limit[k] == rule_limit)
            return (int)k;
    if (k == 2)
        return -1;
    fc->rule_limit[k] = rule_limit;
    fc->used++;
    return (int)k;
}

/* Sets p's domain of parameter i: filtered as before (cached), or NULL when it was not. */
static int fc_get(const struct ht_space *s, int slot, size_t i, struct plan *p, int *filtered)
{
    struct filter_cache *fc = s->fc;
    int64_t *vals;
    uint64_t n;

    if (slot < 0 || fc->state[slot][i] == 0)
        return 0;
    *filtered = fc->state[slot][i] > 0;
    p->dom[i] = s->doms[i];
    if (!*filtered)
        return 1;
    n = fc->n[slot][i];
    vals = malloc((n ? n : 1) * sizeof *vals);
    if (!vals)
        return -1;
    memcpy(vals, fc->vals[slot][i], n * sizeof *vals);
    p->vals[i] = vals;
    p->dom[i].kind = DOM_VALUES;
    p->dom[i].values = vals;
    p->dom[i].size = n;
    return 1;
}

static void fc_put(const struct ht_space *s, int slot, size_t i, const struct plan *p,
                   int filtered)
{
    struct filter_cache *fc = s->fc;
    uint64_t n = p->dom[i].size;

    if (slot < 0)
        return;
    if (filtered) {
        fc->vals[slot][i] = malloc((n ? n : 1) * sizeof **fc->vals[slot]);
        if (!fc->vals[slot][i])
            return; /* not cached: filtered again next time */
        memcpy(fc->vals[slot][i], p->vals[i], n * sizeof **fc->vals[slot]);
        fc->n[slot][i] = n;
    }
    fc->state[slot][i] = filtered ? 1 : -1;
}

static void fc_free(struct filter_cache *fc, size_t np)
{
    for (size_t k = 0; fc && k < 2; k++) {
        for (size_t i = 0; fc->vals[k] && i < np; i++)
            free(fc->vals[k][i]);
        free(fc->vals[k]);
        free(fc->n[k]);
        free(fc->state[k]);
    }
    free(fc);
}

static struct filter_cache *fc_create(size_t np)
{
    struct filter_cache *fc = calloc(1, sizeof *fc);
    size_t row = np ? np : 1;

    for (size_t k = 0; fc && k < 2; k++) {
        fc->vals[k] = calloc(row, sizeof *fc->vals[k]);
        fc->n[k] = calloc(row, sizeof *fc->n[k]);
        fc->state[k] = calloc(row, 1);
        if (!fc->vals[k] || !fc->n[k] || !fc->state[k]) {
            fc_free(fc, np);
            return NULL;
        }
    }
    return fc;
}

static int filter_domain_once(const struct ht_space *s, const unsigned char *active, size_t i,
                              struct walk *w, struct plan *p, int *filtered);

/* Filters parameter i's domain by the unary checks of active (rule_limit) into p, or
 * takes what an earlier plan of the same rules filtered. */
static int filter_domain(const struct ht_space *s, unsigned rule_limit,
                         const unsigned char *active, size_t i, struct walk *w,
                         struct plan *p, int *filtered)
{
    int slot = fc_slot(s, rule_limit), rc = fc_get(s, slot, i, p, filtered);

    if (rc != 0)
        return rc < 0 ? HT_ENOMEM : 0;
    rc = filter_domain_once(s, active, i, w, p, filtered);
    if (rc == 0)
        fc_put(s, slot, i, p, *filtered);
    return rc;
}

static int filter_domain_once(const struct ht_space *s, const unsigned char *active, size_t i,
                              struct walk *w, struct plan *p, int *filtered)
{
    const struct dom *d = &s->doms[i];
    size_t *list = NULL, nlist = 0;
    int64_t *vals = NULL;
    uint64_t n = 0;

    *filtered = 0;
    p->dom[i] = *d;
    if (d->size > FILTER_MAX)
        return 0;
    list = malloc((s->ntmpl + 1) * sizeof *list);
    if (!list)
        return HT_ENOMEM;
    for (size_t c = 0; c < s->ntmpl; c++) {
        size_t which = 0;
        if (active[c] && nuses(s, c, &which) == 1 && which == i)
            list[nlist++] = c;
    }
    /* The producers of the NDRange cache run first, as in a walk. */
    for (size_t a = 1; a < nlist; a++)
        for (size_t b = a; b > 0 && s->tmpl[list[b]].kind < s->tmpl[list[b - 1]].kind; b--) {
            size_t t = list[b];
            list[b] = list[b - 1];
            list[b - 1] = t;
        }
    if (nlist == 0) {
        free(list);
        return 0;
    }
    vals = malloc((d->size ? d->size : 1) * sizeof *vals);
    if (!vals) {
        free(list);
        return HT_ENOMEM;
    }
    for (uint64_t k = 0; k < d->size; k++) {
        int64_t v = dom_value(d, k);
        size_t c;
        w->vars[s->slots[i]] = v;
        for (c = 0; c < nlist; c++)
            if (!check_one(w, &s->tmpl[list[c]]))
                break;
        if (c == nlist)
            vals[n++] = v;
    }
    w->vars[s->slots[i]] = s->base[s->slots[i]];
    p->vals[i] = vals;
    p->dom[i].kind = DOM_VALUES;
    p->dom[i].values = vals;
    p->dom[i].size = n;
    *filtered = 1;
    free(list);
    return 0;
}

/* The greedy order: next comes the parameter that completes the most checks, then the
 * one most tied by checks to those already placed, then the one read by the most checks,
 * then the smallest (filtered) domain. Parameters no check reads go last, so counting can
 * multiply by their domain sizes instead of walking them. */
static void order_greedy(const struct ht_space *s, const unsigned char *active,
                         const struct dom *byparam, unsigned char *placed, size_t *order)
{
    size_t np = s->nparams, row = np ? np : 1;

    memset(placed, 0, row);
    for (size_t k = 0; k < np; k++) {
        size_t best = SIZE_MAX;
        size_t bscore[3] = {0, 0, 0};
        for (size_t i = 0; i < np; i++) {
            size_t score[3] = {0, 0, 0};
            int take;
            if (placed[i])
                continue;
            for (size_t c = 0; c < s->ntmpl; c++) {
                const unsigned char *u = s->uses + c * row;
                int complete = 1, linked = 0;
                if (!active[c] || !u[i])
                    continue;
                for (size_t j = 0; j < np; j++) {
                    if (j == i || !u[j])
                        continue;
                    if (placed[j])
                        linked = 1;
                    else
                        complete = 0;
                }
                score[0] += (size_t)complete;
                score[1] += (size_t)linked;
                score[2]++;
            }
            if (best == SIZE_MAX)
                take = 1;
            else if ((score[2] > 0) != (bscore[2] > 0))
                take = score[2] > 0; /* a parameter some check reads beats a free one */
            else if (score[0] != bscore[0])
                take = score[0] > bscore[0];
            else if (score[1] != bscore[1])
                take = score[1] > bscore[1];
            else if (score[2] != bscore[2])
                take = score[2] > bscore[2];
            else
                take = byparam[i].size < byparam[best].size;
            if (take) {
                best = i;
                memcpy(bscore, score, sizeof bscore);
            }
        }
        placed[best] = 1;
        order[k] = best;
    }
}

/* Samples this many points per check to estimate how often it passes. */
#define SAMPLES 128
/* The cost-based order is searched over subsets of at most this many parameters... */
#define DP_MAXP 16
/* ...when the filtered domains hold more points than this; smaller spaces are walked
 * faster than the search would take. A variable so that tests can force the search. */
double ht__space_cost_order_min_points = 1e6;

/* The order that minimises the expected number of checked nodes, sum over levels k of
 * nodes(S_k-1) * |D_k|, where nodes(S) is the product of the domain sizes of the set S
 * of parameters times the pass rate of every check S binds. Pass rates are estimated
 * by running each check on random points of its parameters' domains. The best order is
 * found exactly by dynamic programming over the subsets. Returns 0 (order set), 1 when
 * not worth it or not possible (too many parameters), or HT_ENOMEM. */
static int order_by_cost(const struct ht_space *s, const unsigned char *active,
                         const unsigned char *filtered, const struct dom *byparam,
                         struct walk *w, size_t *order)
{
    size_t np = s->nparams, row = np ? np : 1, nc = 0;
    uint32_t *cmask = NULL, full;
    double *rate = NULL, *nodes = NULL, *cost = NULL, points = 1;
    unsigned char *choice = NULL;
    struct ht__rng rng;
    int rc = HT_ENOMEM;

    if (np < 2 || np > DP_MAXP)
        return 1;
    for (size_t i = 0; i < np; i++) {
        if (byparam[i].size == 0)
            return 1;
        points *= (double)byparam[i].size;
    }
    if (points < ht__space_cost_order_min_points)
        return 1;
    full = (UINT32_C(1) << np) - 1;
    cmask = calloc(s->ntmpl + 1, sizeof *cmask);
    rate = calloc(s->ntmpl + 1, sizeof *rate);
    nodes = malloc(((size_t)full + 1) * sizeof *nodes);
    cost = malloc(((size_t)full + 1) * sizeof *cost);
    choice = malloc((size_t)full + 1);
    if (!cmask || !rate || !nodes || !cost || !choice)
        goto cleanup;

    /* The checks that will be in the plan, and their pass rates. */
    ht__rng_seed(&rng, 0x5eed);
    for (size_t c = 0; c < s->ntmpl; c++) {
        const unsigned char *u = s->uses + c * row;
        size_t which = 0;
        unsigned pass = 0;
        if (!active[c])
            continue;
        for (size_t i = 0; i < np; i++)
            if (u[i])
                cmask[nc] |= UINT32_C(1) << i;
        if (cmask[nc] == 0 || (nuses(s, c, &which) == 1 && filtered[which]))
            continue;
        for (unsigned t = 0; t < SAMPLES; t++) {
            int ok = 1;
            for (size_t i = 0; i < np; i++)
                if (u[i])
                    w->vars[s->slots[i]] =
                        dom_value(&byparam[i], ht__rng_next(&rng) % byparam[i].size);
            /* The NDRange sizes this check reads come from the producers first. */
            for (size_t q = 0; ok && q < s->ntmpl; q++) {
                const unsigned char *uq = s->uses + q * row;
                int inside = 1;
                if (q == c || !active[q] ||
                    (s->tmpl[q].kind != CHK_GLOBAL && s->tmpl[q].kind != CHK_LOCAL))
                    continue;
                for (size_t i = 0; i < np; i++)
                    if (uq[i] && !u[i])
                        inside = 0;
                if (inside)
                    ok = check_one(w, &s->tmpl[q]);
            }
            pass += ok && check_one(w, &s->tmpl[c]);
        }
        rate[nc] = (pass + 0.5) / (SAMPLES + 1.0);
        nc++;
    }
    for (size_t i = 0; i < np; i++)
        w->vars[s->slots[i]] = s->base[s->slots[i]];

    nodes[0] = 1;
    cost[0] = 0;
    for (uint32_t set = 1; set <= full; set++) {
        unsigned low = (unsigned)__builtin_ctz(set);
        uint32_t rest = set & (set - 1);
        double n = nodes[rest] * (double)byparam[low].size;
        for (size_t c = 0; c < nc; c++)
            if ((cmask[c] & (UINT32_C(1) << low)) && (cmask[c] & ~set) == 0)
                n *= rate[c];
        nodes[set] = n;
        cost[set] = -1;
        for (uint32_t m = set; m; m &= m - 1) {
            unsigned p = (unsigned)__builtin_ctz(m);
            uint32_t prev = set & ~(UINT32_C(1) << p);
            double cst = cost[prev] + nodes[prev] * (double)byparam[p].size;
            if (cost[set] < 0 || cst < cost[set]) {
                cost[set] = cst;
                choice[set] = (unsigned char)p;
            }
        }
    }
    for (uint32_t set = full, k = (uint32_t)np; set; set &= ~(UINT32_C(1) << choice[set]))
        order[--k] = choice[set];
    rc = 0;

cleanup:
    free(cmask);
    free(rate);
    free(nodes);
    free(cost);
    free(choice);
    return rc;
}

/* Places the parameters that rules link (the connected groups of the graph whose edges
 * are the active checks) one group after the other, each group in the order given, and
 * the parameters no check reads last: once a group is bound nothing deeper reads it, and
 * counting caches the count of the groups after it (walk_count). */
static void order_groups(const struct ht_space *s, const unsigned char *active,
                         size_t *order, size_t *tmp, size_t *group)
{
    size_t np = s->nparams, row = np ? np : 1, n = 0;

    for (size_t i = 0; i < np; i++)
        group[i] = i;
    for (size_t c = 0; c < s->ntmpl; c++) {
        const unsigned char *u = s->uses + c * row;
        size_t first = SIZE_MAX;
        if (!active[c])
            continue;
        for (size_t i = 0; i < np; i++) {
            size_t a, b;
            if (!u[i])
                continue;
            if (first == SIZE_MAX) {
                first = i;
                continue;
            }
            for (a = first; group[a] != a; a = group[a])
                ;
            for (b = i; group[b] != b; b = group[b])
                ;
            if (a != b)
                group[a > b ? a : b] = a < b ? a : b;
        }
    }
    /* group[i] becomes the root; a parameter no active check reads is its own root and
     * stays free (group SIZE_MAX). */
    for (size_t i = 0; i < np; i++) {
        size_t r = i;
        while (group[r] != r)
            r = group[r];
        tmp[i] = r;
    }
    for (size_t i = 0; i < np; i++) {
        int read = 0;
        for (size_t c = 0; c < s->ntmpl && !read; c++)
            read = active[c] && s->uses[c * row + i];
        group[i] = read ? tmp[i] : SIZE_MAX;
    }
    for (size_t k = 0; k < np; k++) {
        size_t g = group[order[k]];
        int seen = 0;
        if (g == SIZE_MAX)
            continue;
        for (size_t j = 0; j < k && !seen; j++)
            seen = group[order[j]] == g;
        if (seen)
            continue;
        for (size_t j = k; j < np; j++)
            if (group[order[j]] == g)
                tmp[n++] = order[j];
    }
    for (size_t k = 0; k < np; k++)
        if (group[order[k]] == SIZE_MAX)
            tmp[n++] = order[k];
    memcpy(order, tmp, np * sizeof *order);
}

/* The order for counting: next comes the parameter that leaves the fewest bound
 * parameters still read by a rule over an unbound one (what keys the cache of subtree
 * counts; Eq. 1 and Eq. 3 are left out, they are keyed by their partial products), then
 * the one that completes the most rules, then the earliest in order. Parameters no rule
 * reads go last. The result replaces order. */
static void order_width(const struct ht_space *s, const unsigned char *active, size_t *order,
                        size_t *tmp, unsigned char *placed)
{
    size_t np = s->nparams, row = np ? np : 1;

    memset(placed, 0, row);
    for (size_t k = 0; k < np; k++) {
        size_t best = SIZE_MAX, bw = 0, bc = 0;
        int bread = 0;
        for (size_t r = 0; r < np; r++) {
            size_t i = order[r], width = 0, complete = 0;
            int read = 0;
            if (placed[i])
                continue;
            placed[i] = 1;
            for (size_t c = 0; c < s->ntmpl; c++) {
                const unsigned char *u = s->uses + c * row;
                int open = 0;
                if (!active[c] || !u[i])
                    continue;
                read = 1;
                for (size_t j = 0; j < np && !open; j++)
                    open = u[j] && !placed[j];
                complete += !open;
            }
            for (size_t j = 0; j < np; j++) {
                int live = 0;
                if (!placed[j])
                    continue;
                for (size_t c = 0; c < s->ntmpl && !live; c++) {
                    const unsigned char *u = s->uses + c * row;
                    if (!active[c] || !u[j] || s->tmpl[c].kind == CHK_EQ1 ||
                        s->tmpl[c].kind == CHK_EQ3)
                        continue;
                    for (size_t q = 0; q < np && !live; q++)
                        live = u[q] && !placed[q];
                }
                width += (size_t)live;
            }
            placed[i] = 0;
            if (best == SIZE_MAX || (read && !bread) ||
                (read == bread && (width < bw || (width == bw && complete > bc)))) {
                best = i;
                bw = width;
                bc = complete;
                bread = read;
            }
        }
        placed[best] = 1;
        tmp[k] = best;
    }
    memcpy(order, tmp, np * sizeof *order);
}

/* Support tables are built for rules whose parameters' domains hold at most this many
 * points together (each point is one evaluation, once per plan); a variable so that tests
 * can turn them off and exercise the partial bounds of sums of products instead. */
uint64_t ht__space_support_max_points = UINT64_C(1) << 20;
#define SUPPORT_MAX ht__space_support_max_points

/* Tabulates check p->chks[ci] (an application constraint or the local memory rule over
 * two or more parameters, levels lev[0..m) in plan order): the rule itself becomes a table
 * lookup, and each prefix of its parameters gets a table that cuts, as soon as those are
 * bound, the values no completion of the others can satisfy (a sum-of-products such as
 * local memory is thus checked term by term, and exactly). Returns 0 or HT_ENOMEM. */
static int build_support(const struct ht_space *s, struct plan *p, size_t ci,
                         const size_t *lev, size_t m, struct walk *w)
{
    struct chk ch = p->chks[ci];
    uint64_t *size = NULL, *idx = NULL, total = 1;
    unsigned char **bits = NULL;
    size_t first = p->nsup;
    struct support *sup;
    struct chk *chks;
    int rc = HT_ENOMEM;

    for (size_t j = 0; j < m; j++) {
        uint64_t n = p->dom[lev[j]].size;
        if (n == 0 || total > SUPPORT_MAX / n)
            return 0;
        total *= n;
    }
    sup = realloc(p->sup, (p->nsup + m) * sizeof *sup);
    if (!sup)
        return HT_ENOMEM;
    p->sup = sup;
    chks = realloc(p->chks, (p->nchks + m + s->ntmpl + 4) * sizeof *chks);
    if (!chks)
        return HT_ENOMEM;
    p->chks = chks;
    size = calloc(m, sizeof *size);
    idx = calloc(m, sizeof *idx);
    bits = calloc(m, sizeof *bits);
    if (!size || !idx || !bits)
        goto cleanup;
    for (size_t j = 0; j < m; j++) {
        struct support *sp = &p->sup[first + j];
        memset(sp, 0, sizeof *sp);
        size[j] = (j ? size[j - 1] : 1) * p->dom[lev[j]].size;
        sp->m = j + 1;
        sp->lev = malloc((j + 1) * sizeof *sp->lev);
        sp->stride = malloc((j + 1) * sizeof *sp->stride);
        sp->bits = calloc(size[j] / 8 + 1, 1);
        bits[j] = sp->bits;
        p->nsup++;
        if (!sp->lev || !sp->stride || !sp->bits)
            goto cleanup;
        /* Horner's layout: k = ((i_0 * n_1 + i_1) * n_2 + ...) + i_j. */
        for (size_t i = j + 1; i-- > 0;) {
            sp->lev[i] = lev[i];
            sp->stride[i] = i == j ? 1 : sp->stride[i + 1] * p->dom[lev[i + 1]].size;
        }
    }
    for (size_t j = 0; j < m; j++)
        w->vars[p->slot[lev[j]]] = dom_value(&p->dom[lev[j]], 0);
    for (uint64_t t = 0; t < total; t++) {
        if (check_one(w, &ch)) {
            uint64_t k = 0;
            for (size_t j = 0; j < m; j++) {
                k = k * p->dom[lev[j]].size + idx[j];
                bits[j][k >> 3] |= (unsigned char)(1u << (k & 7));
            }
        }
        for (size_t j = 0; j < m; j++) {
            if (++idx[j] < p->dom[lev[j]].size) {
                w->vars[p->slot[lev[j]]] = dom_value(&p->dom[lev[j]], idx[j]);
                break;
            }
            idx[j] = 0;
            w->vars[p->slot[lev[j]]] = dom_value(&p->dom[lev[j]], 0);
        }
    }
    for (size_t j = 0; j < m; j++)
        w->vars[p->slot[lev[j]]] = s->base[p->slot[lev[j]]];
    /* The rule itself becomes its full table; a prefix whose every value has a
     * completion cuts nothing and is left out. */
    p->chks[ci].kind = CHK_SUPPORT;
    p->chks[ci].sup = first + m - 1;
    for (size_t j = 0; j + 1 < m; j++) {
        uint64_t k = 0;
        while (k < size[j] && (bits[j][k >> 3] >> (k & 7)) & 1)
            k++;
        if (k == size[j])
            continue;
        ch.kind = CHK_SUPPORT;
        ch.sup = first + j;
        ch.depth = lev[j] + 1;
        p->chks[p->nchks++] = ch;
    }
    rc = 0;

cleanup:
    free(size);
    free(idx);
    free(bits);
    return rc;
}

/* Terms are bounded over their parameters' domains when those hold at most this many
 * points together. */
#define SOP_ENUM_MAX (UINT64_C(1) << 18)

/* Adds the partial bounds (CHK_SOP) of check p->chks[ci], whose rule is a sum of
 * products: one at each depth where a term becomes bound, before the rule's own depth.
 * Returns 0 or HT_ENOMEM. */
static int build_sop(const struct ht_space *s, struct plan *p, size_t ci, const size_t *pos,
                     struct walk *w)
{
    const struct sop *sp = &s->sops[p->chks[ci].tmpl];
    struct chk ch = p->chks[ci];
    size_t n = sp->n, *tdepth = NULL, *lev = NULL;
    int *lbk = NULL, *ubk = NULL, safe = 1, rc = HT_ENOMEM;
    __int128 *lb = NULL, *ub = NULL, mag = 0;
    struct sopchk *q;
    struct chk *chks;

    tdepth = calloc(n, sizeof *tdepth);
    lev = calloc(s->nparams + 1, sizeof *lev);
    lbk = calloc(n, sizeof *lbk);
    ubk = calloc(n, sizeof *ubk);
    lb = calloc(n, sizeof *lb);
    ub = calloc(n, sizeof *ub);
    if (!tdepth || !lev || !lbk || !ubk || !lb || !ub)
        goto cleanup;
    for (size_t t = 0; t < n; t++) {
        size_t m = 0;
        uint64_t total = 1, idx[64];
        int any = 0, fail = 0;
        for (size_t i = 0; i < s->nparams; i++)
            if (ht_expr_uses(sp->terms[t], s->slots[i])) {
                lev[m++] = pos[i];
                if (pos[i] + 1 > tdepth[t])
                    tdepth[t] = pos[i] + 1;
                total = p->dom[pos[i]].size && total <= SOP_ENUM_MAX / p->dom[pos[i]].size
                            ? total * p->dom[pos[i]].size
                            : SOP_ENUM_MAX + 1;
            }
        if (total > SOP_ENUM_MAX || m > 64) {
            safe = 0;
            continue;
        }
        for (size_t j = 0; j < m; j++) {
            idx[j] = 0;
            w->vars[p->slot[lev[j]]] = dom_value(&p->dom[lev[j]], 0);
        }
        for (uint64_t k = 0; k < total; k++) {
            int64_t v;
            if (ht_expr_eval(sp->terms[t], w->vars, &v) != 0) {
                fail = 1;
            } else {
                __int128 x = sp->sign[t] < 0 ? -(__int128)v : (__int128)v;
                if (!any || x < lb[t])
                    lb[t] = x;
                if (!any || x > ub[t])
                    ub[t] = x;
                any = 1;
            }
            for (size_t j = 0; j < m; j++) {
                if (++idx[j] < p->dom[lev[j]].size) {
                    w->vars[p->slot[lev[j]]] = dom_value(&p->dom[lev[j]], idx[j]);
                    break;
                }
                idx[j] = 0;
                w->vars[p->slot[lev[j]]] = dom_value(&p->dom[lev[j]], 0);
            }
        }
        for (size_t j = 0; j < m; j++)
            w->vars[p->slot[lev[j]]] = s->base[p->slot[lev[j]]];
        lbk[t] = any;
        ubk[t] = any && !fail;
        if (ubk[t])
            mag += (lb[t] < 0 ? -lb[t] : lb[t]) > (ub[t] < 0 ? -ub[t] : ub[t])
                       ? (lb[t] < 0 ? -lb[t] : lb[t])
                       : (ub[t] < 0 ? -ub[t] : ub[t]);
        else
            safe = 0;
    }
    /* Entailment claims the whole rule evaluates: no partial sum may overflow. */
    if (safe && mag * sp->scale >= ((__int128)1 << 62))
        safe = 0;
    for (size_t d = 1; d < ch.depth; d++) {
        struct sopchk c = {sp, NULL, 1, safe, 0, 0};
        int here = 0;
        for (size_t t = 0; t < n; t++) {
            here |= tdepth[t] == d;
            if (tdepth[t] > d) {
                c.lbk &= lbk[t];
                c.ubk &= ubk[t];
                c.lbsum += lb[t];
                c.ubsum += ub[t];
            }
        }
        if (!here || (!c.lbk && !c.ubk))
            continue;
        c.bound = malloc(n);
        if (!c.bound)
            goto cleanup;
        for (size_t t = 0; t < n; t++)
            c.bound[t] = tdepth[t] <= d;
        q = realloc(p->sopc, (p->nsopc + 1) * sizeof *q);
        chks = realloc(p->chks, (p->nchks + 1) * sizeof *chks);
        if (q)
            p->sopc = q;
        if (chks)
            p->chks = chks;
        if (!q || !chks) {
            free(c.bound);
            goto cleanup;
        }
        p->sopc[p->nsopc] = c;
        ch.kind = CHK_SOP;
        ch.depth = d;
        ch.sup = p->nsopc++;
        p->chks[p->nchks++] = ch;
    }
    rc = 0;

cleanup:
    free(tdepth);
    free(lev);
    free(lbk);
    free(ubk);
    free(lb);
    free(ub);
    return rc;
}

/* The levels check c of plan p reads, into lev (ascending); returns their number. */
static size_t chk_levels(const struct ht_space *s, const struct plan *p, const struct chk *c,
                         const size_t *pos, size_t *lev)
{
    size_t np = s->nparams, row = np ? np : 1, m = 0;
    const unsigned char *u = s->uses + c->tmpl * row;

    if (c->kind == CHK_SUPPORT) {
        memcpy(lev, p->sup[c->sup].lev, p->sup[c->sup].m * sizeof *lev);
        return p->sup[c->sup].m;
    }
    for (size_t k = 0; k < np; k++)
        if (u[p->order[k]])
            lev[m++] = k;
    (void)pos;
    return m;
}

/* The live levels and derived values of each level, and whether counting caches there
 * (struct plan). */
static int plan_live(const struct ht_space *s, struct plan *p, const size_t *pos)
{
    size_t np = p->n, *lev = NULL;
    unsigned char *raw = NULL;
    int rc = HT_ENOMEM;

    p->live = calloc(np + 1, sizeof *p->live);
    p->nlive = calloc(np + 1, sizeof *p->nlive);
    p->derived = calloc(np + 1, sizeof *p->derived);
    p->memo = calloc(np + 1, 1);
    raw = calloc(np + 1, 1);
    lev = malloc((np + 1) * sizeof *lev);
    if (!p->live || !p->nlive || !p->derived || !p->memo || !raw || !lev)
        goto cleanup;
    for (unsigned d = 0; d < 3; d++)
        p->dg[d] = p->dl[d] = 0;
    for (size_t c = 0; c < p->nchks; c++) {
        const struct chk *ch = &p->chks[c];
        if (ch->kind == CHK_GLOBAL && ch->dim < 3)
            p->dg[ch->dim] = ch->depth;
        if (ch->kind == CHK_LOCAL && ch->dim < 3)
            p->dl[ch->dim] = ch->depth;
    }
    for (size_t k = 0; k < np; k++) {
        size_t done = k + 1;
        unsigned der = 0;
        memset(raw, 0, np + 1);
        for (size_t c = 0; c < p->nchks; c++) {
            const struct chk *ch = &p->chks[c];
            size_t m;
            if (ch->depth <= done)
                continue;
            switch (ch->kind) {
            case CHK_EQ1:
                for (unsigned d = 0; d < 3; d++)
                    if ((ch->mask & (1u << d)) && p->dl[d] <= done)
                        der |= DER_EQ1;
                break;
            case CHK_EQ3:
                for (unsigned d = 0; d < s->def->ndims; d++) {
                    if (p->dg[d] <= done && p->dl[d] <= done)
                        der |= DER_EQ3;
                    else if (p->dg[d] <= done)
                        der |= DER_G0 << d;
                    else if (p->dl[d] <= done)
                        der |= DER_L0 << d;
                }
                break;
            case CHK_EQ2:
            case CHK_LIMIT:
                if (ch->kind == CHK_EQ2 && p->dg[ch->dim] <= done)
                    der |= DER_G0 << ch->dim;
                if (p->dl[ch->dim] <= done)
                    der |= DER_L0 << ch->dim;
                break;
            default:
                m = chk_levels(s, p, ch, pos, lev);
                for (size_t j = 0; j < m; j++)
                    if (lev[j] <= k)
                        raw[lev[j]] = 1;
            }
        }
        p->live[k] = malloc((k + 1) * sizeof **p->live);
        if (!p->live[k])
            goto cleanup;
        for (size_t j = 0; j <= k; j++)
            if (raw[j])
                p->live[k][p->nlive[k]++] = j;
        p->derived[k] = der;
        p->memo[k] = k + 1 < p->last_depth && k + 1 < np && p->nlive[k] < k + 1;
    }
    rc = 0;

cleanup:
    free(raw);
    free(lev);
    return rc;
}

/* plan_build's scratch: per parameter (row entries) unless said otherwise. */
struct plan_scratch {
    unsigned char *active;   /* per rule template: 1 when its rule is in the plan */
    unsigned char *filtered; /* the parameter's domain was filtered by its unary checks */
    unsigned char *placed;
    size_t *pos;             /* the parameter's level in p->order */
    size_t *tmp, *group, *lev;
    size_t depth_local[3];   /* the depth at which each dimension's local size is bound */
};

static void plan_scratch_free(struct plan_scratch *x)
{
    free(x->active);
    free(x->filtered);
    free(x->placed);
    free(x->pos);
    free(x->tmp);
    free(x->group);
    free(x->lev);
    memset(x, 0, sizeof *x);
}

/* Zeroes p and allocates its per-level arrays, and x's arrays; the rules with rule <
 * rule_limit are x's active ones. HT_ENOMEM, p and x then to be freed by the caller. */
static int plan_alloc(const struct ht_space *s, unsigned rule_limit, struct plan *p,
                      struct plan_scratch *x)
{
    size_t np = s->nparams, row = np ? np : 1;

    memset(p, 0, sizeof *p);
    memset(x, 0, sizeof *x);
    p->n = np;
    p->order = malloc(row * sizeof *p->order);
    p->slot = malloc(row * sizeof *p->slot);
    p->dom = calloc(row, sizeof *p->dom);
    p->vals = calloc(row, sizeof *p->vals);
    p->chks = malloc((s->ntmpl + 4) * sizeof *p->chks);
    p->first = malloc((np + 2) * sizeof *p->first);
    p->tail = malloc((np + 1) * sizeof *p->tail);
    x->placed = calloc(row, 1);
    x->filtered = calloc(row, 1);
    x->active = calloc(s->ntmpl ? s->ntmpl : 1, 1);
    x->pos = malloc(row * sizeof *x->pos);
    x->tmp = malloc(row * sizeof *x->tmp);
    x->group = malloc(row * sizeof *x->group);
    x->lev = malloc(row * sizeof *x->lev);
    if (!x->tmp || !x->group || !x->lev ||
        !p->order || !p->slot || !p->dom || !p->vals || !p->chks || !p->first || !p->tail ||
        !x->placed || !x->filtered || !x->active || !x->pos)
        return HT_ENOMEM;
    for (size_t c = 0; c < s->ntmpl; c++)
        x->active[c] = s->tmpl[c].rule < rule_limit;
    return 0;
}

/* Filters each domain by the checks that read its parameter alone (filter_domain): their
 * values are tried once here instead of at every node of the walk. p->dom is indexed by
 * parameter. */
static int plan_filter(const struct ht_space *s, unsigned rule_limit, struct plan_scratch *x,
                       struct walk *w, struct plan *p)
{
    /* The checks that read no parameter fill the cache the unary checks read. When one
     * fails the space is empty and the walk stops at depth 0 whatever the domains. */
    for (size_t c = 0; c < s->ntmpl; c++) {
        size_t which;
        if (x->active[c] && nuses(s, c, &which) == 0 &&
            (s->tmpl[c].kind == CHK_GLOBAL || s->tmpl[c].kind == CHK_LOCAL))
            check_one(w, &s->tmpl[c]);
    }
    for (size_t i = 0; i < s->nparams; i++) {
        int f, rc = filter_domain(s, rule_limit, x->active, i, w, p, &f);
        if (rc != 0)
            return rc;
        x->filtered[i] = (unsigned char)f;
    }
    return 0;
}

/* Orders the parameters (by expected cost for large spaces, else greedily; then for the
 * cache of subtree counts when for_count, else in groups) into p->order and x->pos, and
 * makes p's domains and slots indexed by level instead of by parameter. */
static int plan_order(const struct ht_space *s, int for_count, struct plan_scratch *x,
                      struct walk *w, struct plan *p)
{
    size_t np = s->nparams, row = np ? np : 1;
    struct dom *byparam = p->dom;
    int rc = HT_ENOMEM;

    p->dom = calloc(row, sizeof *p->dom);
    if (!p->dom)
        goto cleanup;
    rc = order_by_cost(s, x->active, x->filtered, byparam, w, p->order);
    if (rc < 0)
        goto cleanup;
    if (rc > 0)
        order_greedy(s, x->active, byparam, x->placed, p->order);
    if (for_count)
        order_width(s, x->active, p->order, x->tmp, x->placed);
    else
        order_groups(s, x->active, p->order, x->tmp, x->group);
    for (size_t k = 0; k < np; k++) {
        x->pos[p->order[k]] = k;
        p->slot[k] = s->slots[p->order[k]];
        p->dom[k] = byparam[p->order[k]];
    }
    rc = 0;

cleanup:
    free(byparam);
    return rc;
}

/* Puts each active check but Eq. 1 at the depth of the deepest parameter it reads, and
 * notes in x->depth_local where each local size is bound. */
static void plan_place_checks(const struct ht_space *s, struct plan_scratch *x,
                              struct plan *p)
{
    size_t np = s->nparams, row = np ? np : 1;

    for (size_t c = 0; c < s->ntmpl; c++) {
        const unsigned char *u = s->uses + c * row;
        size_t which = 0, nu;
        struct chk ch;
        if (!x->active[c])
            continue;
        ch = s->tmpl[c];
        ch.depth = 0;
        for (size_t i = 0; i < np; i++)
            if (u[i] && x->pos[i] + 1 > ch.depth)
                ch.depth = x->pos[i] + 1;
        if (ch.kind == CHK_LOCAL && ch.dim < 3)
            x->depth_local[ch.dim] = ch.depth;
        if (ch.kind == CHK_EQ1)
            continue; /* plan_split_eq1 */
        /* A unary check the filter applied always passes now; the producers still run,
         * to fill the cache. */
        nu = nuses(s, c, &which);
        if (nu == 1 && x->filtered[which] && ch.kind != CHK_GLOBAL && ch.kind != CHK_LOCAL)
            continue;
        p->chks[p->nchks++] = ch;
    }
}

/* Eq. 1 as partial products: every local size must be at least 1, so once the product of
 * the local sizes bound so far passes max_work_group_size no completion can satisfy Eq. 1,
 * and the subtree is cut early. One check at each depth where a local size is bound. */
static void plan_split_eq1(const struct ht_space *s, const struct plan_scratch *x,
                           struct plan *p)
{
    for (size_t c = 0; c < s->ntmpl; c++) {
        unsigned nd = s->def->ndims;
        if (!x->active[c] || s->tmpl[c].kind != CHK_EQ1)
            continue;
        for (unsigned d = 0; d < nd; d++) {
            struct chk ch = s->tmpl[c];
            int dup = 0;
            ch.depth = x->depth_local[d];
            ch.mask = 0;
            for (unsigned e = 0; e < nd; e++)
                if (x->depth_local[e] <= ch.depth)
                    ch.mask |= 1u << e;
            for (size_t k = 0; k < p->nchks; k++)
                if (p->chks[k].kind == CHK_EQ1 && p->chks[k].depth == ch.depth)
                    dup = 1;
            if (!dup)
                p->chks[p->nchks++] = ch;
        }
    }
}

/* The supports (build_support) and sums of products (build_sop) of the expression and
 * local memory checks that read two levels or more. HT_ENOMEM. */
static int plan_supports(const struct ht_space *s, struct plan_scratch *x, struct walk *w,
                         struct plan *p)
{
    for (size_t c = 0, n0 = p->nchks; c < n0; c++) {
        size_t m;
        if (p->chks[c].kind != CHK_EXPR && p->chks[c].kind != CHK_LMEM)
            continue;
        m = chk_levels(s, p, &p->chks[c], x->pos, x->lev);
        if (m >= 2 && build_support(s, p, c, x->lev, m, w) != 0)
            return HT_ENOMEM;
        if (p->chks[c].kind != CHK_SUPPORT && s->sops[p->chks[c].tmpl].n >= 2 &&
            build_sop(s, p, c, x->pos, w) != 0)
            return HT_ENOMEM;
    }
    return 0;
}

/* Sorts the checks by depth and indexes them: p->first, last_depth, the support that lets
 * each level skip (p->skip), and the tails of the domain sizes. HT_ENOMEM. */
static int plan_index(struct plan *p)
{
    size_t np = p->n;

    qsort(p->chks, p->nchks, sizeof *p->chks, chk_cmp);
    p->last_depth = 0;
    for (size_t k = 0, c = 0; k <= np + 1; k++) {
        while (c < p->nchks && p->chks[c].depth < k)
            c++;
        p->first[k] = c;
    }
    for (size_t c = 0; c < p->nchks; c++)
        if (p->chks[c].depth > p->last_depth)
            p->last_depth = p->chks[c].depth;
    if (p->nsup) {
        p->skip = calloc(np + 1, sizeof *p->skip);
        if (!p->skip)
            return HT_ENOMEM;
        for (size_t c = 0; c < p->nchks; c++) {
            const struct chk *ch = &p->chks[c];
            if (ch->kind == CHK_SUPPORT && ch->depth > 0 &&
                p->sup[ch->sup].lev[p->sup[ch->sup].m - 1] == ch->depth - 1 &&
                (!p->skip[ch->depth - 1] || p->sup[ch->sup].m > p->sup[p->skip[ch->depth - 1] - 1].m))
                p->skip[ch->depth - 1] = ch->sup + 1;
        }
    }
    p->tail[np] = 1;
    for (size_t k = np; k-- > 0;)
        p->tail[k] = sat_mul(p->tail[k + 1], p->dom[k].size);
    return 0;
}

/* p->ent_tail (struct plan): the depths below which one sum-of-products rule is the only
 * check left. HT_ENOMEM. */
static int plan_entail(struct plan *p)
{
    p->ent_tail = calloc(p->n + 2, sizeof *p->ent_tail);
    if (!p->ent_tail)
        return HT_ENOMEM;
    for (size_t c = 0; c < p->nchks; c++) {
        size_t d = p->chks[c].depth, rule = p->chks[c].tmpl;
        int sole = 1;
        if (p->chks[c].kind != CHK_SOP)
            continue;
        for (size_t k = 0; k < p->nchks && sole; k++)
            sole = p->chks[k].depth <= d || p->chks[k].tmpl == rule;
        if (sole)
            p->ent_tail[d] = rule + 1;
    }
    return 0;
}

/* Builds the plan of the rules with rule < rule_limit.
 *
 * First each domain is filtered by the checks that read its parameter alone (Eq. 2
 * against a constant global size, the work-item limit, a unary constraint): their
 * values are tried once here instead of at every node of the walk. Then the parameters
 * are ordered: by expected cost for large spaces, else greedily. */
static int plan_build(const struct ht_space *s, unsigned rule_limit, int for_count,
                      struct plan *p)
{
    struct plan_scratch x;
    struct walk w;
    int walk_ok = 0, rc;

    if ((rc = plan_alloc(s, rule_limit, p, &x)) != 0)
        goto cleanup;
    rc = HT_ENOMEM;
    if (walk_init(&w, s, p) != 0)
        goto cleanup;
    walk_ok = 1;
    if ((rc = plan_filter(s, rule_limit, &x, &w, p)) != 0 ||
        (rc = plan_order(s, for_count, &x, &w, p)) != 0)
        goto cleanup;
    plan_place_checks(s, &x, p);
    plan_split_eq1(s, &x, p);
    if ((rc = plan_supports(s, &x, &w, p)) != 0 || (rc = plan_index(p)) != 0 ||
        (rc = plan_live(s, p, x.pos)) != 0 || (rc = plan_entail(p)) != 0)
        goto cleanup;

cleanup:
    if (walk_ok)
        walk_destroy(&w);
    plan_scratch_free(&x);
    if (rc != 0)
        plan_destroy(p);
    return rc;
}

/* A plan for counting: ordered for the cache of subtree counts (order_width) when the
 * cache then works at some level, else as for walking (its order prunes earlier). */
static int plan_build_count(const struct ht_space *s, unsigned rule_limit, struct plan *p)
{
    int rc = plan_build(s, rule_limit, 1, p);
    if (rc != 0)
        return rc;
    for (size_t k = 0; k < p->n; k++)
        if (p->memo[k])
            return 0;
    plan_destroy(p);
    return plan_build(s, rule_limit, 0, p);
}

/* ---------------------------------------------------------------------------------- */
/* public */

int ht_space_create(const struct ht_space_def *def, const struct ht_device_info *dev,
                    enum ht_eq3 eq3, struct ht_space **out, struct ht_error *err)
{
    struct ht_space *s;
    double t0;
    int rc = HT_ENOMEM;

    if (!def || !dev || !out)
        return ht_error_set(err, HT_EINVAL, "ht_space_create: %s is NULL",
                            !def ? "def" : !dev ? "dev" : "out");
    *out = NULL;
    s = calloc(1, sizeof *s);
    if (!s)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    s->def = def;
    s->dev = *dev;
    s->eq3 = eq3;
    s->nparams = def->nparams;
    s->nvars = def->names.count;
    s->doms = calloc(s->nparams ? s->nparams : 1, sizeof *s->doms);
    s->slots = calloc(s->nparams ? s->nparams : 1, sizeof *s->slots);
    s->base = calloc(s->nvars ? s->nvars : 1, sizeof *s->base);
    if (!s->doms || !s->slots || !s->base)
        goto fail;
    ht_space_vars(def, dev, NULL, s->base);
    s->contiguous = 1;
    for (size_t i = 0; i < s->nparams; i++) {
        s->slots[i] = ht_space_param_slot(def, i);
        if (s->slots[i] != s->slots[0] + i)
            s->contiguous = 0;
    }
    s->maxwg = s->base[ht_space_devvar_slot(def, HT_DEVVAR_MAX_WORK_GROUP_SIZE)];
    s->maxitem[0] = s->base[ht_space_devvar_slot(def, HT_DEVVAR_MAX_WORK_ITEM_SIZE_0)];
    s->maxitem[1] = s->base[ht_space_devvar_slot(def, HT_DEVVAR_MAX_WORK_ITEM_SIZE_1)];
    s->maxitem[2] = s->base[ht_space_devvar_slot(def, HT_DEVVAR_MAX_WORK_ITEM_SIZE_2)];
    s->cu = s->base[ht_space_devvar_slot(def, HT_DEVVAR_COMPUTE_UNITS)];
    s->lmem = s->base[ht_space_devvar_slot(def, HT_DEVVAR_LOCAL_MEM_SIZE)];
    for (size_t i = 0; i < s->nparams; i++)
        if ((rc = resolve_domain(s, i, err)) != 0)
            goto fail;
    rc = HT_ENOMEM;
    if (build_rules(s) != 0)
        goto fail;
    s->sops = calloc(s->ntmpl + 1, sizeof *s->sops);
    if (!s->sops)
        goto fail;
    for (size_t c = 0; c < s->ntmpl; c++)
        sop_parse(s, c, &s->sops[c]);
    t0 = ht__now();
    s->fc = fc_create(s->nparams); /* NULL: each plan filters on its own */
    if (plan_build_count(s, RULE_APP0, &s->platform) != 0)
        goto fail;
    if (plan_build(s, s->nrules, 0, &s->full) != 0)
        goto fail;
    if (plan_build_count(s, s->nrules, &s->count) != 0)
        goto fail;
    fc_free(s->fc, s->nparams);
    s->fc = NULL;
    s->prep_seconds = ht__now() - t0;
    *out = s;
    return 0;

fail:
    if (rc == HT_ENOMEM)
        ht_error_set(err, HT_ENOMEM, "out of memory");
    ht_space_free(s);
    return rc;
}

void ht_space_free(struct ht_space *s)
{
    if (!s)
        return;
    fc_free(s->fc, s->nparams);
    plan_destroy(&s->platform);
    plan_destroy(&s->full);
    plan_destroy(&s->count);
    free(s->doms);
    free(s->slots);
    free(s->base);
    for (size_t c = 0; s->sops && c < s->ntmpl; c++)
        sop_free(&s->sops[c]);
    free(s->sops);
    free(s->tmpl);
    free(s->uses);
    free(s);
}

const struct ht_space_def *ht_space_get_def(const struct ht_space *s)
{
    return s ? s->def : NULL;
}

const struct ht_device_info *ht_space_get_device(const struct ht_space *s)
{
    return s ? &s->dev : NULL;
}

enum ht_eq3 ht_space_get_eq3(const struct ht_space *s)
{
    return s ? s->eq3 : HT_EQ3_PRODUCT;
}

uint64_t ht_space_domain_size(const struct ht_space *s, size_t i)
{
    return s ? s->doms[i].size : 0;
}

int64_t ht_space_domain_value(const struct ht_space *s, size_t i, uint64_t k)
{
    return s ? dom_value(&s->doms[i], k) : 0;
}

double ht__space_count_unpruned(const struct ht_space *s)
{
    double n = 1.0;
    for (size_t i = 0; i < s->nparams; i++)
        n *= (double)s->doms[i].size;
    return n;
}

int ht_space_foreach(const struct ht_space *s, ht_space_visit_fn cb, void *user)
{
    struct count n;

    if (!s || !cb)
        return HT_EINVAL;
    return run_plan(s, &s->full, cb, user, &n);
}

/* The unpruned size: the product of the domain sizes. */
static struct count unpruned_count(const struct ht_space *s)
{
    struct count c = {1, 1};

    for (size_t i = 0; i < s->nparams; i++) {
        uint64_t size = s->doms[i].size;
        c.n = size && c.n > U128_MAX / size ? U128_MAX : c.n * size;
        c.d *= (double)size;
    }
    return c;
}

/* Writes c in decimal, or, saturated, "~" and its double to 4 significant digits. */
static void count_text(char *buf, size_t size, const struct count *c)
{
    char digits[48];
    size_t k = sizeof digits - 1;
    u128 v = c->n;

    if (c->n == U128_MAX) {
        snprintf(buf, size, "~%.4g", c->d);
        return;
    }
    digits[k] = '\0';
    do {
        digits[--k] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    snprintf(buf, size, "%s", digits + k);
}

/* Sets the texts of counts: the unpruned size from s, the others from platform and
 * pruned. */
static void counts_text(const struct ht_space *s, struct ht_space_counts *counts,
                        const struct count *platform, const struct count *pruned)
{
    struct count u = unpruned_count(s);

    count_text(counts->unpruned_text, sizeof counts->unpruned_text, &u);
    count_text(counts->platform_text, sizeof counts->platform_text, platform);
    count_text(counts->pruned_text, sizeof counts->pruned_text, pruned);
    counts->approximate = u.n == U128_MAX || platform->n == U128_MAX || pruned->n == U128_MAX;
}

void ht__space_counts_text(const struct ht_space *s, struct ht_space_counts *counts)
{
    struct count platform = {counts->platform, (double)counts->platform};
    struct count pruned = {counts->pruned, (double)counts->pruned};

    counts_text(s, counts, &platform, &pruned);
}

/* A count in 64 bits, saturated. */
static uint64_t count64(const struct count *c)
{
    return c->n > UINT64_MAX ? UINT64_MAX : (uint64_t)c->n;
}

/* ---------------------------------------------------------------------------------- */
/* why a space is empty */

static void appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Appends to buf[*len..], cutting what does not fit. */
static void appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (*len + 1 >= size)
        return;
    va_start(ap, fmt);
    k = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (k > 0)
        *len = *len + (size_t)k < size ? *len + (size_t)k : size - 1;
}

static const char *rule_name(const struct ht_space *s, unsigned rule)
{
    static const char *const names[] = {"ndrange", "Eq. 1", "work-item limit", "Eq. 2",
                                        "local memory", "Eq. 3"};
    if (rule < RULE_APP0)
        return names[rule];
    return s->def->constraints[rule - RULE_APP0].origin;
}

static void rule_text(const struct ht_space *s, unsigned rule, char *buf, size_t size)
{
    const struct ht_space_def *def = s->def;
    switch (rule) {
    case RULE_NDRANGE:
        snprintf(buf, size, "the NDRange sizes must evaluate to positive integers");
        break;
    case RULE_EQ1:
        snprintf(buf, size,
                 "Eq. 1 (the product of the local sizes must be at most "
                 "max_work_group_size = %lld)",
                 (long long)s->maxwg);
        break;
    case RULE_LIMIT:
        snprintf(buf, size,
                 "the work-item limit (each local size must be at most its "
                 "max_work_item_size: %lld, %lld, %lld)",
                 (long long)s->maxitem[0], (long long)s->maxitem[1], (long long)s->maxitem[2]);
        break;
    case RULE_EQ2:
        snprintf(buf, size, "Eq. 2 (each global size must be a multiple of its local size)");
        break;
    case RULE_LMEM:
        snprintf(buf, size,
                 "the local memory rule (local_mem = %s must be at most local_mem_size = "
                 "%lld bytes)",
                 def->local_mem ? ht_expr_source(def->local_mem) : "?", (long long)s->lmem);
        break;
    case RULE_EQ3:
        snprintf(buf, size,
                 "Eq. 3 (the number of work-groups, the %s over the dimensions, must be at "
                 "least compute_units = %lld)",
                 s->eq3 == HT_EQ3_SUM ? "sum" : "product", (long long)s->cu);
        break;
    default:
        snprintf(buf, size, "%s '%s'", def->constraints[rule - RULE_APP0].origin,
                 ht_expr_source(def->constraints[rule - RULE_APP0].expr));
        break;
    }
}

struct witness {
    size_t n;
    int64_t *config;
};

static int keep_witness(const int64_t *config, void *user)
{
    struct witness *w = user;
    memcpy(w->config, config, w->n * sizeof *config);
    return 1;
}

/* Whether any point passes the rules below rule_limit; keeps one in wit. */
static int prefix_exists(const struct ht_space *s, unsigned rule_limit, struct witness *wit,
                         int *exists)
{
    struct plan p;
    struct count n = {0, 0};
    int rc = plan_build(s, rule_limit, 0, &p);
    if (rc != 0)
        return rc;
    rc = run_plan(s, &p, keep_witness, wit, &n);
    plan_destroy(&p);
    if (rc < 0)
        return rc;
    *exists = n.n > 0;
    return 0;
}

int ht__space_explain_empty(const struct ht_space *s, uint64_t platform,
                            struct ht_space_counts *counts)
{
    unsigned present[RULE_APP0], npresent = 0, lo, hi, culprit;
    unsigned *rules = NULL;
    struct witness wit = {s->nparams, NULL};
    char desc[1024], example[512];
    size_t len = 0;
    int rc = HT_ENOMEM, exists = 0;

    rules = malloc((s->nrules + 1) * sizeof *rules);
    wit.config = calloc(s->nparams + 1, sizeof *wit.config);
    if (!rules || !wit.config)
        goto cleanup;
    for (unsigned r = 0; r < RULE_APP0; r++) {
        present[r] = 0;
        for (size_t c = 0; c < s->ntmpl; c++)
            if (s->tmpl[c].rule == r)
                present[r] = 1;
    }
    /* The candidates: the platform rules when they alone empty the space, else the
     * application's constraints (on top of every platform rule). */
    if (platform == 0) {
        for (unsigned r = 0; r < RULE_APP0; r++)
            if (present[r])
                rules[npresent++] = r;
    } else {
        for (unsigned r = RULE_APP0; r < s->nrules; r++)
            rules[npresent++] = r;
    }
    if (npresent == 0) {
        rc = 0;
        goto cleanup;
    }
    /* Binary search for the first rule after which nothing is left: the counts of the
     * prefixes never grow, and the full prefix is known to be empty. */
    lo = 0;
    hi = npresent - 1;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if ((rc = prefix_exists(s, rules[mid] + 1, &wit, &exists)) != 0)
            goto cleanup;
        if (exists)
            lo = mid + 1;
        else
            hi = mid;
    }
    culprit = rules[lo];
    if ((rc = prefix_exists(s, culprit, &wit, &exists)) != 0)
        goto cleanup;
    snprintf(counts->last_constraint, sizeof counts->last_constraint, "%s",
             rule_name(s, culprit));
    rule_text(s, culprit, desc, sizeof desc);
    example[0] = '\0';
    if (exists)
        for (size_t i = 0; i < s->nparams; i++)
            appendf(example, sizeof example, &len, "%s%s=%lld", i ? " " : "",
                    s->def->params[i].name, (long long)wit.config[i]);
    len = 0;
    appendf(counts->empty_reason, sizeof counts->empty_reason, &len,
            "%s removed the last configurations", desc);
    if (exists && s->nparams)
        appendf(counts->empty_reason, sizeof counts->empty_reason, &len,
                " (e.g. %s passes every rule before it, not this one)", example);
    rc = 0;

cleanup:
    free(rules);
    free(wit.config);
    return rc;
}

/* ---------------------------------------------------------------------------------- */
/* the native backend */

/* A platform walk over fewer (filtered) points than this takes less time than starting
 * a thread. */
#define THREAD_MIN_POINTS 1e5

/* The platform-only walk, run on a second thread while the calling thread walks the
 * full plan (and calls cb, so that cb never runs on another thread). */
struct platform_job {
    const struct ht_space *s;
    struct count count;
    int rc;
};

static void *platform_thread(void *arg)
{
    struct platform_job *j = arg;
    j->rc = run_plan(j->s, &j->s->platform, NULL, NULL, &j->count);
    return NULL;
}

static int native_solve(const struct ht_space *s, struct ht_space_counts *counts,
                        ht_space_visit_fn cb, void *user, struct ht_error *err)
{
    double t0 = ht__now();
    struct platform_job job = {s, {0, 0}, 0};
    struct count pruned = {0, 0};
    pthread_t th;
    int rc, stopped = 0, threaded;

    memset(counts, 0, sizeof *counts);
    counts->unpruned = ht__space_count_unpruned(s);
    /* Two walks, each with its own order: the platform rules alone usually leave the
     * parameters that only the application's constraints read free, and those are
     * multiplied in rather than walked; the second walk cuts at every rule. They share
     * nothing mutable, so they run at once when a thread can be had. */
    threaded = s->platform.tail[0] >= THREAD_MIN_POINTS &&
               pthread_create(&th, NULL, platform_thread, &job) == 0;
    rc = run_plan(s, cb ? &s->full : &s->count, cb, user, &pruned);
    if (threaded)
        pthread_join(th, NULL);
    else
        platform_thread(&job);
    counts->platform = count64(&job.count);
    counts->pruned = count64(&pruned);
    counts_text(s, counts, &job.count, &pruned);
    if (rc >= 0 && job.rc < 0)
        rc = job.rc;
    if (rc > 0) {
        stopped = rc;
        rc = 0;
    }
    /* Building the plans (filtering the domains) is part of the solver's work. */
    counts->seconds = ht__now() - t0 + s->prep_seconds;
    if (rc == 0 && !stopped && counts->pruned == 0)
        rc = ht__space_explain_empty(s, counts->platform, counts);
    if (rc < 0)
        return ht_error_set(err, rc, "out of memory");
    return stopped;
}

int ht_space_count(const struct ht_space *s, struct ht_space_counts *out,
                   struct ht_error *err)
{
    if (!s || !out)
        return ht_error_set(err, HT_EINVAL, "ht_space_count: %s is NULL", !s ? "s" : "out");
    return native_solve(s, out, NULL, NULL, err);
}

const struct ht_space_backend_ops ht__space_backend_native = {
    "native",
    "depth-first enumeration that checks each rule as soon as its parameters are bound",
    native_solve,
};

const struct ht_space_backend_ops *const ht_space_backends[] = {
    &ht__space_backend_native,
    &ht__space_backend_minizinc,
    NULL,
};

const struct ht_space_backend_ops *ht_space_backend_find(const char *name)
{
    for (size_t i = 0; name && ht_space_backends[i]; i++)
        if (!strcmp(ht_space_backends[i]->name, name))
            return ht_space_backends[i];
    return NULL;
}
