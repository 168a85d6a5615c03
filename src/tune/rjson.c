/* A read-only JSON document for recorded spaces: see rjson-internal.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/tune.h"
#include "rjson-internal.h"

#define CHUNK (1u << 20) /* arena chunk; a larger allocation gets a chunk of its own */
#define MAX_DEPTH 256    /* deeper documents are left to jansson */
#define SORT_KEYS_FROM 16 /* objects of more members check their keys sorted */

/* ---- the arena ----------------------------------------------------------------------- */

struct chunk {
    struct chunk *next;
    double align; /* what follows is aligned for any member of struct ht__rj */
};

static void *arena_alloc(struct ht__rj_doc *doc, size_t size)
{
    size = (size + 7) & ~(size_t)7;
    if ((size_t)(doc->end - doc->at) < size) {
        size_t cap = size > CHUNK / 4 ? size : CHUNK;
        struct chunk *c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        if (size > CHUNK / 4) { /* its own chunk, behind the current one */
            struct chunk *head = doc->chunks;
            c->next = head ? head->next : NULL;
            if (head)
                head->next = c;
            else
                doc->chunks = c;
            return (char *)(c + 1);
        }
        c->next = doc->chunks;
        doc->chunks = c;
        doc->at = (char *)(c + 1);
        doc->end = doc->at + cap;
    }
    void *p = doc->at;
    doc->at += size;
    return p;
}

void ht__rj_free(struct ht__rj_doc *doc)
{
    struct chunk *c = doc->chunks;
    while (c) {
        struct chunk *next = c->next;
        free(c);
        c = next;
    }
    memset(doc, 0, sizeof *doc);
}

/* ---- the parser ---------------------------------------------------------------------- */

struct parser {
    const char *p, *end;
    struct ht__rj_doc *doc;
    struct ht__rj *vs; /* values of the open containers, innermost last */
    size_t vn, vcap;
    int depth, nomem;
};

static void skip_ws(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' ||
                               *ps->p == '\t'))
        ps->p++;
}

/* A string after its opening quote: ASCII, the short escapes only. */
static int parse_string(struct parser *ps, const char **out, uint32_t *outlen)
{
    const char *s = ps->p, *q = s;
    int escaped = 0;

    while (q < ps->end && *q != '"') {
        unsigned char c = (unsigned char)*q;
        if (c < 0x20 || c >= 0x80)
            return -1; /* jansson: a control character is an error; UTF-8 it checks */
        if (c == '\\') {
            if (q + 1 >= ps->end || !strchr("\"\\/bfnrt", q[1]) || q[1] == '\0')
                return -1; /* \u and anything else: jansson's */
            escaped = 1;
            q++;
        }
        q++;
    }
    if (q >= ps->end)
        return -1;
    size_t raw = (size_t)(q - s);
    if (raw > UINT32_MAX - 1)
        return -1;
    char *d = arena_alloc(ps->doc, raw + 1);
    if (!d) {
        ps->nomem = 1;
        return -1;
    }
    size_t n = 0;
    if (!escaped) {
        memcpy(d, s, raw);
        n = raw;
    } else {
        for (const char *x = s; x < q; x++) {
            if (*x != '\\') {
                d[n++] = *x;
                continue;
            }
            x++;
            switch (*x) {
            case 'b': d[n++] = '\b'; break;
            case 'f': d[n++] = '\f'; break;
            case 'n': d[n++] = '\n'; break;
            case 'r': d[n++] = '\r'; break;
            case 't': d[n++] = '\t'; break;
            default: d[n++] = *x; break; /* " \ / */
            }
        }
    }
    d[n] = '\0';
    *out = d;
    *outlen = (uint32_t)n;
    ps->p = q + 1;
    return 0;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* JSON's number grammar; an integer as jansson's (no fraction nor exponent). */
static int parse_number(struct parser *ps, struct ht__rj *v)
{
    const char *s = ps->p, *q = s;
    int real = 0;

    if (q < ps->end && *q == '-')
        q++;
    if (q >= ps->end || !is_digit(*q))
        return -1;
    if (*q == '0')
        q++;
    else
        while (q < ps->end && is_digit(*q))
            q++;
    if (q < ps->end && *q == '.') {
        real = 1;
        q++;
        if (q >= ps->end || !is_digit(*q))
            return -1;
        while (q < ps->end && is_digit(*q))
            q++;
    }
    if (q < ps->end && (*q == 'e' || *q == 'E')) {
        real = 1;
        q++;
        if (q < ps->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= ps->end || !is_digit(*q))
            return -1;
        while (q < ps->end && is_digit(*q))
            q++;
    }
    if (!real) {
        const char *d = s + (*s == '-');
        uint64_t x = 0;
        if (q - d > 18)
            return -1; /* may not fit: jansson says whether it does */
        for (; d < q; d++)
            x = 10 * x + (uint64_t)(*d - '0');
        v->type = HT__RJ_INT;
        v->u.i = *s == '-' ? -(int64_t)x : (int64_t)x;
    } else {
        /* strtod reads past the token only where the grammar above would have: the text
         * ends with a NUL or a character no number holds, else it is copied. */
        char buf[64], *e = NULL;
        size_t n = (size_t)(q - s);
        const char *from = s;
        if (q == ps->end || n < sizeof buf) {
            if (n >= sizeof buf)
                return -1;
            memcpy(buf, s, n);
            buf[n] = '\0';
            from = buf;
        }
        double x = strtod(from, &e);
        /* A locale whose decimal point is not '.' stops short: jansson's. Overflow is
         * jansson's error. */
        if (e != from + n || !isfinite(x))
            return -1;
        v->type = HT__RJ_REAL;
        v->u.d = x;
    }
    ps->p = q;
    return 0;
}

static int push(struct parser *ps, const struct ht__rj *v)
{
    if (ps->vn == ps->vcap) {
        size_t cap = ps->vcap ? 2 * ps->vcap : 256;
        struct ht__rj *g = realloc(ps->vs, cap * sizeof *g);
        if (!g) {
            ps->nomem = 1;
            return -1;
        }
        ps->vs = g;
        ps->vcap = cap;
    }
    ps->vs[ps->vn++] = *v;
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether two of the n members m share a key. -1 when memory ran out. */
static int repeated_key(struct parser *ps, const struct ht__rj *m, size_t n)
{
    if (n < SORT_KEYS_FROM) {
        for (size_t i = 1; i < n; i++)
            for (size_t j = 0; j < i; j++)
                if (!strcmp(m[i].key, m[j].key))
                    return 1;
        return 0;
    }
    const char **keys = malloc(n * sizeof *keys);
    int found = 0;
    if (!keys) {
        ps->nomem = 1;
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        keys[i] = m[i].key;
    qsort(keys, n, sizeof *keys, cmp_key);
    for (size_t i = 1; i < n && !found; i++)
        found = !strcmp(keys[i], keys[i - 1]);
    free(keys);
    return found;
}

/* Moves the values pushed since base into the arena as v's items. */
static int close_container(struct parser *ps, struct ht__rj *v, size_t base)
{
    size_t n = ps->vn - base;
    if (n > UINT32_MAX)
        return -1;
    v->n = (uint32_t)n;
    v->u.items = NULL;
    if (n) {
        struct ht__rj *items = arena_alloc(ps->doc, n * sizeof *items);
        if (!items) {
            ps->nomem = 1;
            return -1;
        }
        memcpy(items, ps->vs + base, n * sizeof *items);
        v->u.items = items;
    }
    ps->vn = base;
    return 0;
}

static int parse_value(struct parser *ps, struct ht__rj *v);

static int parse_container(struct parser *ps, struct ht__rj *v)
{
    int object = *ps->p == '{';
    char close = object ? '}' : ']';
    size_t base = ps->vn;

    if (++ps->depth > MAX_DEPTH)
        return -1;
    ps->p++;
    v->type = object ? HT__RJ_OBJECT : HT__RJ_ARRAY;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        ps->depth--;
        return close_container(ps, v, base);
    }
    for (;;) {
        struct ht__rj m = {0};
        const char *key = NULL;
        uint32_t klen;
        if (object) {
            if (ps->p >= ps->end || *ps->p != '"')
                return -1;
            ps->p++;
            if (parse_string(ps, &key, &klen))
                return -1;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':')
                return -1;
            ps->p++;
            skip_ws(ps);
        }
        if (parse_value(ps, &m))
            return -1;
        m.key = key;
        if (push(ps, &m))
            return -1;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            skip_ws(ps);
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            break;
        }
        return -1;
    }
    /* jansson keeps one member of a repeated key: its own reading decides which. */
    if (object && repeated_key(ps, ps->vs + base, ps->vn - base))
        return -1;
    ps->depth--;
    return close_container(ps, v, base);
}

static int literal(struct parser *ps, const char *word, int type, struct ht__rj *v)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
        return -1;
    ps->p += n;
    v->type = (uint8_t)type;
    return 0;
}

static int parse_value(struct parser *ps, struct ht__rj *v)
{
    if (ps->p >= ps->end)
        return -1;
    switch (*ps->p) {
    case '{':
    case '[':
        return parse_container(ps, v);
    case '"':
        ps->p++;
        v->type = HT__RJ_STRING;
        return parse_string(ps, &v->u.s, &v->n);
    case 't':
        return literal(ps, "true", HT__RJ_TRUE, v);
    case 'f':
        return literal(ps, "false", HT__RJ_FALSE, v);
    case 'n':
        return literal(ps, "null", HT__RJ_NULL, v);
    default:
        return parse_number(ps, v);
    }
}

int ht__rj_parse(const char *text, size_t len, struct ht__rj_doc *doc)
{
    struct parser ps = {text, text + len, doc, NULL, 0, 0, 0, 0};
    struct ht__rj *root = arena_alloc(doc, sizeof *root);
    int rc = 1;

    if (!root)
        return HT_ENOMEM;
    memset(root, 0, sizeof *root);
    skip_ws(&ps);
    /* jansson (no JSON_DECODE_ANY) takes an object or an array, then nothing but space. */
    if (ps.p < ps.end && (*ps.p == '{' || *ps.p == '[') && parse_value(&ps, root) == 0) {
        skip_ws(&ps);
        if (ps.p == ps.end) {
            doc->root = root;
            rc = 0;
        }
    }
    free(ps.vs);
    return ps.nomem ? HT_ENOMEM : rc;
}

/* ---- from jansson -------------------------------------------------------------------- */

static int copy_text(struct ht__rj_doc *doc, const char *s, size_t n, const char **out)
{
    char *d = arena_alloc(doc, n + 1);
    if (!d)
        return HT_ENOMEM;
    memcpy(d, s, n);
    d[n] = '\0';
    *out = d;
    return 0;
}

static int convert(struct ht__rj_doc *doc, const json_t *j, struct ht__rj *v)
{
    size_t n = 0, k = 0;
    struct ht__rj *items = NULL;

    switch (json_typeof(j)) {
    case JSON_NULL: v->type = HT__RJ_NULL; return 0;
    case JSON_TRUE: v->type = HT__RJ_TRUE; return 0;
    case JSON_FALSE: v->type = HT__RJ_FALSE; return 0;
    case JSON_INTEGER:
        v->type = HT__RJ_INT;
        v->u.i = (int64_t)json_integer_value(j);
        return 0;
    case JSON_REAL:
        v->type = HT__RJ_REAL;
        v->u.d = json_real_value(j);
        return 0;
    case JSON_STRING:
        v->type = HT__RJ_STRING;
        v->n = (uint32_t)json_string_length(j);
        return copy_text(doc, json_string_value(j), json_string_length(j), &v->u.s);
    case JSON_ARRAY:
    case JSON_OBJECT:
        break;
    }
    n = json_is_array(j) ? json_array_size(j) : json_object_size(j);
    v->type = json_is_array(j) ? HT__RJ_ARRAY : HT__RJ_OBJECT;
    v->n = (uint32_t)n;
    if (n && !(items = arena_alloc(doc, n * sizeof *items)))
        return HT_ENOMEM;
    if (n)
        memset(items, 0, n * sizeof *items);
    v->u.items = items;
    if (json_is_array(j)) {
        for (k = 0; k < n; k++)
            if (convert(doc, json_array_get(j, k), &items[k]))
                return HT_ENOMEM;
        return 0;
    }
    const char *key;
    json_t *m;
    json_object_foreach((json_t *)j, key, m) {
        if (convert(doc, m, &items[k]) || copy_text(doc, key, strlen(key), &items[k].key))
            return HT_ENOMEM;
        k++;
    }
    return 0;
}

int ht__rj_from_jansson(const json_t *root, struct ht__rj_doc *doc)
{
    struct ht__rj *v = arena_alloc(doc, sizeof *v);
    if (!v)
        return HT_ENOMEM;
    memset(v, 0, sizeof *v);
    if (convert(doc, root, v))
        return HT_ENOMEM;
    doc->root = v;
    return 0;
}

/* ---- reading ------------------------------------------------------------------------- */

const struct ht__rj *ht__rj_get(const struct ht__rj *v, const char *key)
{
    if (!v || v->type != HT__RJ_OBJECT)
        return NULL;
    for (uint32_t i = 0; i < v->n; i++)
        if (!strcmp(v->u.items[i].key, key))
            return &v->u.items[i];
    return NULL;
}

const char *ht__rj_string(const struct ht__rj *v)
{
    return v && v->type == HT__RJ_STRING ? v->u.s : NULL;
}

int ht__rj_number(const struct ht__rj *v, double *x)
{
    if (v && v->type == HT__RJ_INT) {
        *x = (double)v->u.i;
        return 1;
    }
    if (v && v->type == HT__RJ_REAL) {
        *x = v->u.d;
        return 1;
    }
    return 0;
}

const struct ht__rj *ht__rj_items(const struct ht__rj *v, size_t *n)
{
    if (!v || (v->type != HT__RJ_ARRAY && v->type != HT__RJ_OBJECT)) {
        *n = 0;
        return NULL;
    }
    *n = v->n;
    return v->u.items;
}
