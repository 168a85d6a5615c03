/* hetune — internals of the expression language, shared by the files of src/expr/.
 *
 * An expression lives in two forms inside struct ht_expr:
 *  - the syntax tree (struct ht__enode, an array indexed by int, children before parents),
 *    kept for ht_expr_to_minizinc, ht_expr_uses and ht_expr_max_slot;
 *  - a flat postfix bytecode (struct ht__insn) run by a stack machine whose stack lives on
 *    the C stack of ht_expr_eval. Jumps implement the short-circuit of && || and ?:.
 *
 * parse.c builds the tree, compile.c turns it into bytecode (folding constant subtrees
 * whose evaluation succeeds), eval.c runs bytecode, minizinc.c writes the tree as MiniZinc.
 */
#ifndef HETUNE_EXPR_INTERNAL_H
#define HETUNE_EXPR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/expr.h"

/* The evaluation stack has this many entries; deeper expressions are refused at compile
 * time ("expression too deep"). */
#define HT__EXPR_STACK 64
/* The parser recursion (parentheses, function arguments, ?: branches, unary operators) may
 * nest this deep. */
#define HT__EXPR_MAX_NEST 64
/* The syntax tree may be this high; it bounds the recursion of the tree walkers (long
 * chains such as a+b+c+... grow the tree without nesting the parser). */
#define HT__EXPR_MAX_HEIGHT 256

/* Tree node kinds. The comment gives the children used (a, b, c). */
enum ht__ekind {
    HT__E_NUM,     /* val */
    HT__E_VAR,     /* val = slot */
    HT__E_NEG,     /* a */
    HT__E_NOT,     /* a */
    HT__E_ADD,     /* a, b; the binary kinds from here to HT__E_NE all use a, b */
    HT__E_SUB,
    HT__E_MUL,
    HT__E_DIV,
    HT__E_MOD,
    HT__E_LT,
    HT__E_LE,
    HT__E_GT,
    HT__E_GE,
    HT__E_EQ,
    HT__E_NE,
    HT__E_AND,     /* a, b, short-circuit */
    HT__E_OR,      /* a, b, short-circuit */
    HT__E_COND,    /* a ? b : c */
    HT__E_MIN,     /* a, b */
    HT__E_MAX,     /* a, b */
    HT__E_CEILDIV, /* a, b */
    HT__E_ISPOW2,  /* a */
    HT__E_LOG2,    /* a */
    HT__E_BNOT,    /* a: ~a */
    HT__E_SHL,     /* a, b: a << b; the binary kinds from here to HT__E_BOR all use a, b */
    HT__E_SHR,     /* a >> b */
    HT__E_BAND,    /* a & b */
    HT__E_BXOR,    /* a ^ b */
    HT__E_BOR,     /* a | b */
};

struct ht__enode {
    uint8_t kind;     /* enum ht__ekind */
    uint8_t is_const; /* reads no variable */
    uint8_t is_bool;  /* the value is always 0 or 1 (comparisons, logic, is_pow2) */
    uint16_t height;  /* 1 for a leaf */
    uint16_t depth;   /* evaluation stack entries the subtree needs */
    int a, b, c;      /* child node indices, -1 when unused */
    int column;       /* 1-based column in the source where the node starts */
    int64_t val;      /* literal value, or slot for HT__E_VAR */
};

/* Bytecode operations. Jump offsets are relative to the next instruction, so a slice of
 * code can run on its own (compile.c folds constants that way). */
enum ht__op {
    HT__OP_PUSH,    /* push arg */
    HT__OP_LOAD,    /* push vars[arg] */
    HT__OP_NEG,
    HT__OP_NOT,
    HT__OP_BOOL,    /* top = top != 0 */
    HT__OP_ADD,
    HT__OP_SUB,
    HT__OP_MUL,
    HT__OP_DIV,
    HT__OP_MOD,
    HT__OP_LT,
    HT__OP_LE,
    HT__OP_GT,
    HT__OP_GE,
    HT__OP_EQ,
    HT__OP_NE,
    HT__OP_MIN,
    HT__OP_MAX,
    HT__OP_CEILDIV,
    HT__OP_ISPOW2,
    HT__OP_LOG2,
    HT__OP_BNOT,
    HT__OP_SHL,
    HT__OP_SHR,
    HT__OP_BAND,
    HT__OP_BXOR,
    HT__OP_BOR,
    HT__OP_ANDJ,    /* top == 0: keep it (0) and jump by arg; else pop */
    HT__OP_ORJ,     /* top != 0: make it 1 and jump by arg; else pop */
    HT__OP_JZ,      /* pop; jump by arg when it was 0 */
    HT__OP_JMP,     /* jump by arg */
};

struct ht__insn {
    int64_t arg;
    uint8_t op; /* enum ht__op */
};

struct ht_expr {
    char *source;
    struct ht__enode *nodes; /* children always precede their parent */
    int nnodes;
    int root;
    struct ht__insn *code;
    size_t ncode;
    size_t *slots; /* the slots the tree reads, sorted, without duplicates */
    size_t nslots;
};

/* Parses src against names into e->nodes, e->nnodes and e->root (e->source is not touched).
 * Returns 0, HT_ENOMEM, HT_EPARSE or HT_EEXPR with err filled as ht_expr_compile says. On
 * failure e->nodes may hold a partial tree that the caller frees. */
int ht__expr_parse(struct ht_expr *e, const char *src, const struct ht_names *names,
                   struct ht_error *err);

/* 1 when a node of this kind is a bool by nature: !, the comparisons, && and ||,
 * ispow2. ?: is a bool only when both its branches are; the callers decide it. */
int ht__expr_kind_is_bool(enum ht__ekind kind);

/* Runs n instructions of code with vars as the variables (NULL is fine when the code has no
 * LOAD). Returns 0 with *out set, or HT_EDIVZERO, HT_EOVERFLOW or HT_EDOMAIN. The code must
 * need at most HT__EXPR_STACK stack entries. */
int ht__expr_run(const struct ht__insn *code, size_t n, const int64_t *vars, int64_t *out);

#endif
