/* hetune — configurations as text or binary records: what `hetune space --list` writes, a
 * configuration at a time as the enumerator finds them (walk order), into one large buffer
 * written with fwrite, without printf (a listing of 10^8 configurations of a dozen
 * parameters is 10^9 integers) and without holding the configurations: memory stays flat
 * however large the space. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/space.h"
#include "enum-internal.h"

/* The buffer a listing fills before each fwrite (at least; a line longer than a quarter of
 * it grows it). */
#define LIST_BUF (256u << 10)

static const char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Writes v in decimal ending just before end, two digits at a time; returns where it
 * starts. */
static char *put_int(char *end, int64_t v)
{
    /* The magnitude as unsigned, so that INT64_MIN has one. */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *p = end;

    while (u >= 100) {
        unsigned r = (unsigned)(u % 100) * 2;
        u /= 100;
        *--p = digit_pairs[r + 1];
        *--p = digit_pairs[r];
    }
    if (u >= 10) {
        *--p = digit_pairs[u * 2 + 1];
        *--p = digit_pairs[u * 2];
    } else {
        *--p = (char)('0' + (int)u);
    }
    if (v < 0)
        *--p = '-';
    return p;
}

/* Appends config (n values) in decimal, separated by single spaces, at p; returns the
 * end. p must have room for 21 characters a value. */
static char *put_config(char *p, const int64_t *config, size_t n)
{
    char tmp[24];

    for (size_t i = 0; i < n; i++) {
        char *start = put_int(tmp + sizeof tmp, config[i]);
        size_t k = (size_t)(tmp + sizeof tmp - start);
        if (i)
            *p++ = ' ';
        memcpy(p, start, k);
        p += k;
    }
    return p;
}

int ht__space_print_config(FILE *f, const int64_t *config, size_t n)
{
    /* 20 characters hold any int64 with its sign, one more the separator. */
    char buf[64 * 21 + 1];
    size_t len = 0;

    for (size_t i = 0; i < n; i += 64) {
        size_t m = n - i < 64 ? n - i : 64;
        if (i)
            buf[len++] = ' ';
        len = (size_t)(put_config(buf + len, config + i, m) - buf);
        if (fwrite(buf, 1, len, f) != len)
            return HT_EIO;
        len = 0;
    }
    return 0;
}

int ht_space_list_format_parse(const char *s, enum ht_space_list_format *out)
{
    if (!s || !out)
        return HT_EINVAL;
    if (!strcmp(s, "text"))
        *out = HT_SPACE_LIST_TEXT;
    else if (!strcmp(s, "binary"))
        *out = HT_SPACE_LIST_BINARY;
    else
        return HT_EINVAL;
    return 0;
}

/* A listing being written: the buffer and what each record needs. */
struct writer {
    FILE *f;
    enum ht_space_list_format format;
    const char *prefix;
    size_t np, plen, line_max;
    unsigned width; /* binary: bytes a value */
    char *buf;
    size_t len, cap;
    uint64_t n;
    int rc;
};

/* The fewest bytes (1, 2, 4 or 8) that hold every value of every domain of s as a signed
 * two's complement integer. Ranges ascend: their ends are their extremes. */
static unsigned value_width(const struct ht_space *s)
{
    const struct ht_space_def *def = ht_space_get_def(s);
    int64_t lo = 0, hi = 0;
    unsigned w = 1;

    for (size_t i = 0; i < def->nparams; i++) {
        uint64_t size = ht_space_domain_size(s, i);
        int all = def->params[i].kind == HT_PARAM_VALUES;
        for (uint64_t k = 0; k < size; k = all || k + 1 == size ? k + 1 : size - 1) {
            int64_t v = ht_space_domain_value(s, i, k);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    }
    while (w < 8 && (lo < -(INT64_C(1) << (8 * w - 1)) || hi >= INT64_C(1) << (8 * w - 1)))
        w *= 2;
    return w;
}

static void put_le(unsigned char *p, uint64_t v, unsigned width)
{
    for (unsigned b = 0; b < width; b++, v >>= 8)
        p[b] = (unsigned char)(v & 0xff);
}

static int flush(struct writer *w)
{
    if (w->len && fwrite(w->buf, 1, w->len, w->f) != w->len)
        w->rc = HT_EIO;
    w->len = 0;
    return w->rc;
}

/* Starts a listing of s's configurations to f: the binary header (docs/cli.md). */
static int writer_init(struct writer *w, const struct ht_space *s, FILE *f,
                       const struct ht_space_list_opts *o)
{
    const struct ht_space_def *def = ht_space_get_def(s);

    memset(w, 0, sizeof *w);
    w->f = f;
    w->format = o->format;
    w->prefix = o->prefix ? o->prefix : "";
    w->plen = strlen(w->prefix);
    w->np = def->nparams;
    w->width = o->format == HT_SPACE_LIST_BINARY ? value_width(s) : 8;
    w->line_max = w->plen + 21 * w->np + 1;
    for (size_t i = 0; i < w->np; i++)
        w->line_max += strlen(def->params[i].name) + 1; /* the header's names */
    w->cap = w->line_max * 4 > LIST_BUF ? w->line_max * 4 : LIST_BUF;
    w->buf = malloc(w->cap);
    if (!w->buf)
        return HT_ENOMEM;
    if (w->format == HT_SPACE_LIST_BINARY) {
        unsigned char *h = (unsigned char *)w->buf;
        memcpy(h, "HTSPACE1", 8);
        put_le(h + 8, w->np, 4);
        put_le(h + 12, w->width, 4);
        put_le(h + 16, o->count, 8);
        put_le(h + 24, o->device, 8);
        w->len = 32;
        for (size_t i = 0; i < w->np; i++) {
            size_t k = strlen(def->params[i].name) + 1;
            memcpy(w->buf + w->len, def->params[i].name, k);
            w->len += k;
        }
    }
    return 0;
}

/* A visit callback: appends one configuration. */
static int writer_put(const int64_t *config, void *user)
{
    struct writer *w = user;
    char *p;

    if (w->cap - w->len < w->line_max && flush(w) != 0)
        return 1;
    p = w->buf + w->len;
    if (w->format == HT_SPACE_LIST_BINARY) {
        for (size_t i = 0; i < w->np; i++, p += w->width)
            put_le((unsigned char *)p, (uint64_t)config[i], w->width);
    } else {
        memcpy(p, w->prefix, w->plen);
        p = put_config(p + w->plen, config, w->np);
        *p++ = '\n';
    }
    w->len = (size_t)(p - w->buf);
    w->n++;
    return 0;
}

static int writer_finish(struct writer *w, int rc, const struct ht_space_list_opts *o,
                         uint64_t *written)
{
    if (rc == 0 && flush(w) == 0 && o->format == HT_SPACE_LIST_BINARY && w->n != o->count)
        rc = HT_EINVAL; /* the header announced another number */
    if (written)
        *written = w->n;
    free(w->buf);
    return rc > 0 || w->rc ? w->rc ? w->rc : HT_EIO : rc;
}

int ht_space_list(const struct ht_space *s, FILE *f, const struct ht_space_list_opts *o,
                  uint64_t *written)
{
    struct writer w;
    int rc;

    if (!s || !f || !o)
        return HT_EINVAL;
    if ((rc = writer_init(&w, s, f, o)) != 0)
        return rc;
    return writer_finish(&w, ht_space_foreach(s, writer_put, &w), o, written);
}

int ht_space_list_configs(const struct ht_space *s, const int64_t *configs, size_t n,
                          FILE *f, const struct ht_space_list_opts *o)
{
    struct writer w;
    int rc;

    /* An empty listing (a solver that found nothing) may come without an array. */
    if (!s || (!configs && n) || !f || !o)
        return HT_EINVAL;
    if ((rc = writer_init(&w, s, f, o)) != 0)
        return rc;
    for (size_t k = 0; rc == 0 && k < n; k++)
        rc = writer_put(configs + k * w.np, &w);
    return writer_finish(&w, rc, o, NULL);
}
