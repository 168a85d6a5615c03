/* The bytecode interpreter behind ht_expr_eval and the constant folder. */
#include "expr-internal.h"

/* floor(log2(x)) for x > 0. */
static int64_t floor_log2(int64_t x)
{
    return 63 - __builtin_clzll((unsigned long long)x);
}

int ht__expr_run(const struct ht__insn *code, size_t n, const int64_t *vars, int64_t *out)
{
    /* The compiler proved that no program needs more entries than this. */
    int64_t stack[HT__EXPR_STACK];
    int64_t *sp = stack; /* the next free entry */
    const struct ht__insn *pc = code, *end = code + n;
    int64_t a, b;

    while (pc < end) {
        const struct ht__insn *in = pc++;
        switch ((enum ht__op)in->op) {
        case HT__OP_PUSH:
            *sp++ = in->arg;
            break;
        case HT__OP_LOAD:
            *sp++ = vars[in->arg];
            break;
        case HT__OP_NEG:
            if (sp[-1] == INT64_MIN)
                return HT_EOVERFLOW;
            sp[-1] = -sp[-1];
            break;
        case HT__OP_NOT:
            sp[-1] = sp[-1] == 0;
            break;
        case HT__OP_BOOL:
            sp[-1] = sp[-1] != 0;
            break;
        case HT__OP_ISPOW2:
            sp[-1] = sp[-1] > 0 && (sp[-1] & (sp[-1] - 1)) == 0;
            break;
        case HT__OP_LOG2:
            if (sp[-1] <= 0)
                return HT_EDOMAIN;
            sp[-1] = floor_log2(sp[-1]);
            break;
        case HT__OP_BNOT:
            sp[-1] = ~sp[-1];
            break;
        case HT__OP_SHL:
        case HT__OP_SHR:
            a = sp[-2];
            b = sp[-1];
            /* C leaves these shifts undefined; here they fail like log2(0). */
            if (b < 0 || b > 63)
                return HT_EDOMAIN;
            if (in->op == HT__OP_SHR) {
                /* Arithmetic: the floor of a / 2^b, negative values included. */
                sp[-2] = a < 0 ? ~(~a >> b) : a >> b;
            } else {
                /* a * 2^b, an overflow when that does not fit, negative a included. */
                if (b > 0 && (a > (INT64_MAX >> b) || a < -(INT64_C(1) << (63 - b))))
                    return HT_EOVERFLOW;
                sp[-2] = (int64_t)((uint64_t)a << b);
            }
            sp--;
            break;
        case HT__OP_BAND:
            sp[-2] &= sp[-1];
            sp--;
            break;
        case HT__OP_BXOR:
            sp[-2] ^= sp[-1];
            sp--;
            break;
        case HT__OP_BOR:
            sp[-2] |= sp[-1];
            sp--;
            break;
        case HT__OP_ADD:
            if (__builtin_add_overflow(sp[-2], sp[-1], &sp[-2]))
                return HT_EOVERFLOW;
            sp--;
            break;
        case HT__OP_SUB:
            if (__builtin_sub_overflow(sp[-2], sp[-1], &sp[-2]))
                return HT_EOVERFLOW;
            sp--;
            break;
        case HT__OP_MUL:
            if (__builtin_mul_overflow(sp[-2], sp[-1], &sp[-2]))
                return HT_EOVERFLOW;
            sp--;
            break;
        case HT__OP_DIV:
        case HT__OP_MOD:
        case HT__OP_CEILDIV:
            a = sp[-2];
            b = sp[-1];
            if (b == 0)
                return HT_EDIVZERO;
            /* The one quotient that does not fit; C leaves INT64_MIN % -1 undefined too. */
            if (b == -1 && a == INT64_MIN)
                return HT_EOVERFLOW;
            if (in->op == HT__OP_DIV) {
                sp[-2] = a / b;
            } else if (in->op == HT__OP_MOD) {
                sp[-2] = a % b;
            } else {
                /* The truncated quotient is one short of the ceiling exactly when there is
                 * a remainder and the true quotient is positive (a and b of one sign).
                 * |a / b| <= 2^62 here, so the increment cannot overflow. */
                sp[-2] = a / b + (a % b != 0 && (a > 0) == (b > 0));
            }
            sp--;
            break;
        case HT__OP_LT:
            sp[-2] = sp[-2] < sp[-1];
            sp--;
            break;
        case HT__OP_LE:
            sp[-2] = sp[-2] <= sp[-1];
            sp--;
            break;
        case HT__OP_GT:
            sp[-2] = sp[-2] > sp[-1];
            sp--;
            break;
        case HT__OP_GE:
            sp[-2] = sp[-2] >= sp[-1];
            sp--;
            break;
        case HT__OP_EQ:
            sp[-2] = sp[-2] == sp[-1];
            sp--;
            break;
        case HT__OP_NE:
            sp[-2] = sp[-2] != sp[-1];
            sp--;
            break;
        case HT__OP_MIN:
            if (sp[-1] < sp[-2])
                sp[-2] = sp[-1];
            sp--;
            break;
        case HT__OP_MAX:
            if (sp[-1] > sp[-2])
                sp[-2] = sp[-1];
            sp--;
            break;
        case HT__OP_ANDJ:
            if (sp[-1] == 0)
                pc += in->arg;
            else
                sp--;
            break;
        case HT__OP_ORJ:
            if (sp[-1] != 0) {
                sp[-1] = 1;
                pc += in->arg;
            } else {
                sp--;
            }
            break;
        case HT__OP_JZ:
            if (*--sp == 0)
                pc += in->arg;
            break;
        case HT__OP_JMP:
            pc += in->arg;
            break;
        }
    }
    *out = sp[-1];
    return 0;
}

int ht_expr_eval(const struct ht_expr *e, const int64_t *vars, int64_t *out)
{
    int64_t v;
    int rc;

    /* vars may be NULL only for an expression that reads no name. */
    if (!e || !out || (!vars && e->nslots))
        return HT_EINVAL;
    rc = ht__expr_run(e->code, e->ncode, vars, &v);
    if (rc == 0)
        *out = v;
    return rc;
}
