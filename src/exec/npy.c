/* NumPy's .npy format (format versions 1.0 to 3.0, as numpy.save writes them): the header's
 * parser, for reference outputs and init files. The format is documented in numpy's
 * numpy/lib/format.py: the magic "\x93NUMPY", a major and a minor version byte, the
 * header's length (2 bytes little-endian in 1.0, 4 in 2.0 and 3.0), then a Python dict
 * literal with the keys 'descr', 'fortran_order' and 'shape', padded with spaces and ending
 * in '\n'; the data follows. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

static const char magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/* numpy's names of the types, for messages: "float32" for '<f4'. */
static const char *const numpy_names[HT_NTYPES] = {
    [HT_TYPE_CHAR] = "int8",     [HT_TYPE_UCHAR] = "uint8",    [HT_TYPE_SHORT] = "int16",
    [HT_TYPE_USHORT] = "uint16", [HT_TYPE_INT] = "int32",      [HT_TYPE_UINT] = "uint32",
    [HT_TYPE_LONG] = "int64",    [HT_TYPE_ULONG] = "uint64",   [HT_TYPE_FLOAT] = "float32",
    [HT_TYPE_DOUBLE] = "float64"};

const char *ht__npy_type_name(enum ht_type t)
{
    return (unsigned)t < HT_NTYPES ? numpy_names[t] : "?";
}

void ht__npy_descr(enum ht_type t, char *buf, size_t size)
{
    snprintf(buf, size, "%c%c%zu", ht_type_size(t) == 1 ? '|' : '<',
             ht_type_is_float(t) ? 'f' : ht_type_is_signed(t) ? 'i' : 'u', ht_type_size(t));
}

int ht__npy_is_path(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n >= 4 && !strcmp(path + n - 4, ".npy");
}

struct cursor {
    const char *p, *end;
};

static void skip_space(struct cursor *c)
{
    while (c->p < c->end && isspace((unsigned char)*c->p))
        c->p++;
}

static int take(struct cursor *c, char ch)
{
    skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A Python string literal in quotes ' or " (no escapes: none of the header's strings has
 * any) into buf. */
static int string_lit(struct cursor *c, char *buf, size_t size)
{
    char q;
    size_t n = 0;

    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return 0;
    q = *c->p++;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || n + 1 >= size)
            return 0;
        buf[n++] = *c->p++;
    }
    if (c->p >= c->end)
        return 0;
    c->p++;
    buf[n] = '\0';
    return 1;
}

static int word(struct cursor *c, const char *w)
{
    size_t n = strlen(w);

    skip_space(c);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0)
        return 0;
    c->p += n;
    return 1;
}

/* The shape tuple: "()", "(5,)", "(3, 4)" (a trailing comma is allowed). */
static int shape_tuple(struct cursor *c, struct ht__npy *h, struct ht_error *err)
{
    if (!take(c, '('))
        return ht_error_set(err, HT_EPARSE, "its header's 'shape' is not a tuple");
    h->ndim = 0;
    h->count = 1;
    for (;;) {
        uint64_t v = 0;
        int digits = 0;

        if (take(c, ')'))
            return HT_OK;
        skip_space(c);
        while (c->p < c->end && isdigit((unsigned char)*c->p)) {
            unsigned d = (unsigned)(*c->p++ - '0');
            if (v > (UINT64_MAX - d) / 10)
                return ht_error_set(err, HT_EPARSE, "its header's 'shape' overflows");
            v = v * 10 + d;
            digits++;
        }
        if (c->p < c->end && (*c->p == 'L' || *c->p == 'l')) /* Python 2's long literals */
            c->p++;
        if (!digits)
            return ht_error_set(err, HT_EPARSE, "its header's 'shape' is not a tuple of "
                                "integers");
        if (h->ndim >= HT__NPY_MAX_DIMS)
            return ht_error_set(err, HT_EPARSE, "its array has more than %d axes",
                                HT__NPY_MAX_DIMS);
        h->dims[h->ndim++] = v;
        if (v && h->count > UINT64_MAX / v)
            return ht_error_set(err, HT_EPARSE, "its header's 'shape' overflows");
        h->count *= v;
        if (!take(c, ',')) {
            if (take(c, ')'))
                return HT_OK;
            return ht_error_set(err, HT_EPARSE, "its header's 'shape' is not a tuple of "
                                "integers");
        }
    }
}

/* The dtype descr "<f4" into h->type; numpy's other types have no OpenCL counterpart here. */
static int descr_type(const char *d, struct ht__npy *h, struct ht_error *err)
{
    char order = '|', kind;
    unsigned long size;
    char *end;

    snprintf(h->descr, sizeof h->descr, "%s", d);
    if (*d == '<' || *d == '>' || *d == '|' || *d == '=')
        order = *d++;
    kind = *d++;
    size = strtoul(d, &end, 10);
    if (!*d || *end || !size)
        return ht_error_set(err, HT_EPARSE, "its dtype '%s' is not a plain number type",
                            h->descr);
    if (order == '>' && size > 1)
        return ht_error_set(err, HT_EPARSE, "its dtype '%s' is big-endian: save it little-endian "
                            "(a.astype(a.dtype.newbyteorder('<')))", h->descr);
    for (int t = 0; t < HT_NTYPES; t++) {
        enum ht_type ty = (enum ht_type)t;
        char k = ht_type_is_float(ty) ? 'f' : ht_type_is_signed(ty) ? 'i' : 'u';
        if (k == kind && ht_type_size(ty) == size) {
            h->type = ty;
            return HT_OK;
        }
    }
    return ht_error_set(err, HT_EPARSE, "its dtype '%s' has no OpenCL type hetune knows "
                        "(int8 to int64, uint8 to uint64, float32, float64)", h->descr);
}

int ht__npy_parse(const void *buf, size_t len, struct ht__npy *h, struct ht_error *err)
{
    const unsigned char *b = buf;
    size_t hlen, start;
    struct cursor c;
    int have_descr = 0, have_order = 0, have_shape = 0, rc;

    memset(h, 0, sizeof *h);
    if (len < 10 || memcmp(b, magic, sizeof magic) != 0)
        return ht_error_set(err, HT_EPARSE, "is not a .npy file (no \\x93NUMPY magic)");
    if (b[6] == 1) {
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
        start = 10;
    } else if (b[6] == 2 || b[6] == 3) {
        if (len < 12)
            return ht_error_set(err, HT_EPARSE, "is truncated in its header");
        hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
        start = 12;
    } else {
        return ht_error_set(err, HT_EPARSE, "has .npy format version %u.%u, which hetune does "
                            "not read (1.0 to 3.0)", b[6], b[7]);
    }
    if (hlen > len - start)
        return ht_error_set(err, HT_EPARSE, "is truncated in its header");
    h->data_off = start + hlen;
    c.p = (const char *)b + start;
    c.end = c.p + hlen;
    if (!take(&c, '{'))
        return ht_error_set(err, HT_EPARSE, "has a header that is not a dict");
    while (!take(&c, '}')) {
        char key[32], val[64];
        if (!string_lit(&c, key, sizeof key) || !take(&c, ':'))
            return ht_error_set(err, HT_EPARSE, "has a header that is not a dict");
        if (!strcmp(key, "descr")) {
            if (!string_lit(&c, val, sizeof val))
                return ht_error_set(err, HT_EPARSE, "has a structured dtype: save a plain "
                                    "array of numbers");
            if ((rc = descr_type(val, h, err)) != HT_OK)
                return rc;
            have_descr = 1;
        } else if (!strcmp(key, "fortran_order")) {
            if (word(&c, "True"))
                h->fortran = 1;
            else if (!word(&c, "False"))
                return ht_error_set(err, HT_EPARSE, "has a header whose 'fortran_order' is "
                                    "neither True nor False");
            have_order = 1;
        } else if (!strcmp(key, "shape")) {
            if ((rc = shape_tuple(&c, h, err)) != HT_OK)
                return rc;
            have_shape = 1;
        } else {
            return ht_error_set(err, HT_EPARSE, "has an unknown key '%s' in its header", key);
        }
        if (!take(&c, ',')) {
            if (take(&c, '}'))
                break;
            return ht_error_set(err, HT_EPARSE, "has a header that is not a dict");
        }
    }
    if (!have_descr || !have_order || !have_shape)
        return ht_error_set(err, HT_EPARSE, "has a header without '%s'",
                            !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
    return HT_OK;
}

int ht__npy_fortran_matters(const struct ht__npy *h)
{
    unsigned long_axes = 0;

    /* With at most one axis longer than 1, both orders lay the data out alike. */
    for (unsigned i = 0; i < h->ndim; i++)
        long_axes += h->dims[i] > 1;
    return h->fortran && long_axes > 1;
}

void ht__npy_format_shape(const uint64_t *dims, unsigned ndim, int tuple, char *buf,
                          size_t size)
{
    size_t n = 0;
    int w = snprintf(buf, size, "%c", tuple ? '(' : '[');

    if (w < 0 || !size)
        return;
    n = (size_t)w;
    for (unsigned i = 0; i < ndim && n < size; i++) {
        w = snprintf(buf + n, size - n, "%s%" PRIu64, i ? ", " : "", dims[i]);
        if (w < 0)
            return;
        n += (size_t)w;
    }
    if (n < size)
        snprintf(buf + n, size - n, "%s%c", tuple && ndim == 1 ? "," : "", tuple ? ')' : ']');
}
