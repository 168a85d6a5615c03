/* Compiling the syntax tree to bytecode, and the small public accessors. */
#include <stdlib.h>
#include <string.h>

#include "expr-internal.h"
#include "util/util.h"

struct gen {
    const struct ht__enode *nodes;
    struct ht__insn *code;
    size_t n, cap;
};

/* Appends one instruction; returns its index, or -1 when out of memory. */
static long put(struct gen *g, enum ht__op op, int64_t arg)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 16;
        struct ht__insn *grown = realloc(g->code, cap * sizeof *grown);
        if (!grown)
            return -1;
        g->code = grown;
        g->cap = cap;
    }
    g->code[g->n].op = (uint8_t)op;
    g->code[g->n].arg = arg;
    return (long)g->n++;
}

/* Points the jump at index j to the end of the code emitted so far. */
static void land(struct gen *g, long j)
{
    g->code[j].arg = (int64_t)(g->n - (size_t)j - 1);
}

/* When the code from start on is a single PUSH (a folded constant), removes it and gives
 * its value: lets a constant condition select its branch at compile time. */
static int take_constant(struct gen *g, size_t start, int64_t *v)
{
    if (g->n != start + 1 || g->code[start].op != HT__OP_PUSH)
        return 0;
    *v = g->code[start].arg;
    g->n = start;
    return 1;
}

static enum ht__op op_of(enum ht__ekind kind)
{
    switch (kind) {
    case HT__E_NEG: return HT__OP_NEG;
    case HT__E_NOT: return HT__OP_NOT;
    case HT__E_ADD: return HT__OP_ADD;
    case HT__E_SUB: return HT__OP_SUB;
    case HT__E_MUL: return HT__OP_MUL;
    case HT__E_DIV: return HT__OP_DIV;
    case HT__E_MOD: return HT__OP_MOD;
    case HT__E_LT: return HT__OP_LT;
    case HT__E_LE: return HT__OP_LE;
    case HT__E_GT: return HT__OP_GT;
    case HT__E_GE: return HT__OP_GE;
    case HT__E_EQ: return HT__OP_EQ;
    case HT__E_NE: return HT__OP_NE;
    case HT__E_MIN: return HT__OP_MIN;
    case HT__E_MAX: return HT__OP_MAX;
    case HT__E_CEILDIV: return HT__OP_CEILDIV;
    case HT__E_ISPOW2: return HT__OP_ISPOW2;
    case HT__E_LOG2: return HT__OP_LOG2;
    case HT__E_BNOT: return HT__OP_BNOT;
    case HT__E_SHL: return HT__OP_SHL;
    case HT__E_SHR: return HT__OP_SHR;
    case HT__E_BAND: return HT__OP_BAND;
    case HT__E_BXOR: return HT__OP_BXOR;
    case HT__E_BOR: return HT__OP_BOR;
    default: return HT__OP_PUSH; /* not reached: the other kinds are handled by gen */
    }
}

/* Emits the code of node idx. The tree height is bounded (HT__EXPR_MAX_HEIGHT), so is
 * this recursion. Returns 0 or -1 when out of memory. */
static int gen(struct gen *g, int idx)
{
    const struct ht__enode *n = &g->nodes[idx];
    size_t start = g->n;
    int64_t v;
    long j, k;

    switch ((enum ht__ekind)n->kind) {
    case HT__E_NUM:
        return put(g, HT__OP_PUSH, n->val) < 0 ? -1 : 0;
    case HT__E_VAR:
        return put(g, HT__OP_LOAD, n->val) < 0 ? -1 : 0;
    case HT__E_NEG:
    case HT__E_NOT:
    case HT__E_BNOT:
    case HT__E_ISPOW2:
    case HT__E_LOG2:
        if (gen(g, n->a) < 0 || put(g, op_of(n->kind), 0) < 0)
            return -1;
        break;
    case HT__E_AND:
    case HT__E_OR:
        if (gen(g, n->a) < 0)
            return -1;
        if (take_constant(g, start, &v)) {
            /* 0 && x is 0 and 1 || x is 1 without looking at x; otherwise the result is x
             * made 0 or 1. */
            if ((v == 0) == (n->kind == HT__E_AND))
                return put(g, HT__OP_PUSH, v != 0) < 0 ? -1 : 0;
            if (gen(g, n->b) < 0 || (!g->nodes[n->b].is_bool && put(g, HT__OP_BOOL, 0) < 0))
                return -1;
            break;
        }
        if ((j = put(g, n->kind == HT__E_AND ? HT__OP_ANDJ : HT__OP_ORJ, 0)) < 0 ||
            gen(g, n->b) < 0 || (!g->nodes[n->b].is_bool && put(g, HT__OP_BOOL, 0) < 0))
            return -1;
        land(g, j);
        break;
    case HT__E_COND:
        if (gen(g, n->a) < 0)
            return -1;
        if (take_constant(g, start, &v))
            return gen(g, v ? n->b : n->c);
        if ((j = put(g, HT__OP_JZ, 0)) < 0 || gen(g, n->b) < 0 || (k = put(g, HT__OP_JMP, 0)) < 0)
            return -1;
        land(g, j);
        if (gen(g, n->c) < 0)
            return -1;
        land(g, k);
        break;
    default: /* binary operators and two-argument functions */
        if (gen(g, n->a) < 0 || gen(g, n->b) < 0 || put(g, op_of(n->kind), 0) < 0)
            return -1;
        break;
    }
    /* Fold a constant subtree, but only when it evaluates: 1 / 0 stays code and fails when
     * evaluated, as the language promises. */
    if (n->is_const && g->n - start > 1 && ht__expr_run(g->code + start, g->n - start, NULL, &v) == 0) {
        g->n = start;
        if (put(g, HT__OP_PUSH, v) < 0)
            return -1;
    }
    return 0;
}

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return (a > b) - (a < b);
}

/* Collects the slots the tree reads. On success every node of e->nodes is in the tree. */
static int collect_slots(struct ht_expr *e)
{
    size_t n = 0, kept = 0;

    for (int i = 0; i < e->nnodes; i++)
        n += e->nodes[i].kind == HT__E_VAR;
    if (n == 0)
        return 0;
    e->slots = malloc(n * sizeof *e->slots);
    if (!e->slots)
        return -1;
    n = 0;
    for (int i = 0; i < e->nnodes; i++)
        if (e->nodes[i].kind == HT__E_VAR)
            e->slots[n++] = (size_t)e->nodes[i].val;
    qsort(e->slots, n, sizeof *e->slots, cmp_size);
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || e->slots[kept - 1] != e->slots[i])
            e->slots[kept++] = e->slots[i];
    e->nslots = kept;
    return 0;
}

int ht_expr_compile(const char *src, const struct ht_names *names, struct ht_expr **out,
                    struct ht_error *err)
{
    struct ht_expr *e = NULL;
    struct gen g = {0};
    int rc;

    if (!src || !out)
        return ht_error_set(err, HT_EINVAL, "ht_expr_compile: %s is NULL", !src ? "src" : "out");
    *out = NULL;
    e = calloc(1, sizeof *e);
    if (!e || !(e->source = ht__strdup(src))) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    rc = ht__expr_parse(e, src, names, err);
    if (rc)
        goto cleanup;
    g.nodes = e->nodes;
    if (gen(&g, e->root) < 0 || collect_slots(e) < 0) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    e->code = g.code;
    e->ncode = g.n;
    g.code = NULL;
    *out = e;
    e = NULL;
cleanup:
    free(g.code);
    ht_expr_free(e);
    return rc;
}

void ht_expr_free(struct ht_expr *e)
{
    if (!e)
        return;
    free(e->source);
    free(e->nodes);
    free(e->code);
    free(e->slots);
    free(e);
}

const char *ht_expr_source(const struct ht_expr *e)
{
    return e ? e->source : NULL;
}

int ht_expr_uses(const struct ht_expr *e, size_t slot)
{
    if (!e || e->nslots == 0)
        return 0;
    return bsearch(&slot, e->slots, e->nslots, sizeof *e->slots, cmp_size) != NULL;
}

long ht_expr_max_slot(const struct ht_expr *e)
{
    if (!e || e->nslots == 0)
        return -1;
    return (long)e->slots[e->nslots - 1];
}
