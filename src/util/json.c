/* Building JSON documents with jansson (util.h): the values jansson refuses (text that is
 * not UTF-8, numbers that are not finite, integers past 2^63) made into values it takes,
 * and the one way the library dumps a document. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util/util.h"

/* U+FFFD, the replacement character, in UTF-8. */
static const char replacement[] = "\xef\xbf\xbd";

/* The length of the valid UTF-8 sequence at s[0..len) (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF), or 0 when none starts there. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
    size_t n;
    unsigned lo = 0x80, hi = 0xbf;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4;
    else
        return 0;
    if (n > len)
        return 0;
    /* The second byte's range is what rules out overlong forms and surrogates. */
    if (s[0] == 0xe0)
        lo = 0xa0;
    else if (s[0] == 0xed)
        hi = 0x9f;
    else if (s[0] == 0xf0)
        lo = 0x90;
    else if (s[0] == 0xf4)
        hi = 0x8f;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

json_t *ht__json_string(const char *s)
{
    size_t len, out = 0;
    char *copy;
    json_t *v;

    if (!s)
        return json_null();
    len = strlen(s);
    /* jansson escapes control characters itself; it refuses only text that is not UTF-8,
     * which a driver's device name or a path may be. */
    if ((v = json_stringn(s, len)))
        return v;
    if (len > (SIZE_MAX - 1) / 3 || !(copy = malloc(3 * len + 1)))
        return NULL;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_seq((const unsigned char *)s + i, len - i);
        if (n) {
            memcpy(copy + out, s + i, n);
            out += n;
            i += n;
        } else { /* each byte that starts no valid sequence becomes one U+FFFD */
            memcpy(copy + out, replacement, 3);
            out += 3;
            i++;
        }
    }
    v = json_stringn(copy, out);
    free(copy);
    return v;
}

json_t *ht__json_real(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* A whole number past jansson's integers travels through the tree as a string that no C
 * string can make, a NUL and the digits, and ht__json_dump writes it back as a number:
 * jansson writes that NUL as the escape \u0000, so "\u0000 after an opening quote appears
 * in its output for these strings only. */
#define BIG_MARK "\"\\u0000"

json_t *ht__json_uint_text(const char *digits)
{
    size_t len = digits ? strlen(digits) : 0;
    char buf[64];

    if (len == 0 || len >= sizeof buf || strspn(digits, "0123456789") != len ||
        (digits[0] == '0' && len > 1))
        return NULL;
    /* What fits in jansson's integers is one. */
    if (len < 19 || (len == 19 && strcmp(digits, "9223372036854775807") <= 0))
        return json_integer((json_int_t)strtoll(digits, NULL, 10));
    buf[0] = '\0';
    memcpy(buf + 1, digits, len);
    return json_stringn(buf, len + 1);
}

/* Writes the numbers ht__json_uint_text marked in text (NUL-terminated) back in place; the
 * text between marks moves in one piece. */
static void unmark(char *text)
{
    const size_t mark = sizeof BIG_MARK - 1;
    char *r = strstr(text, BIG_MARK), *w = r;

    while (r) {
        size_t n = strspn(r + mark, "0123456789"), len;
        char *next;

        /* Only a marked number is followed by its closing quote. */
        if (n && r[mark + n] == '"') {
            memmove(w, r + mark, n);
            w += n;
            r += mark + n + 1;
        } else {
            *w++ = *r++;
        }
        next = strstr(r, BIG_MARK);
        len = next ? (size_t)(next - r) : strlen(r);
        memmove(w, r, len);
        w += len;
        r = next;
    }
    if (w)
        *w = '\0';
}

/* The text being dumped: json_dumps would copy the whole of it once more at its end, and
 * a listing of millions of configurations is written token by token. */
struct out {
    char *s;
    size_t len, cap;
};

static int put(const char *buffer, size_t size, void *data)
{
    struct out *o = data;

    if (size >= o->cap - o->len) {
        size_t cap = o->cap ? o->cap : 4096;
        char *grown;
        while (size >= cap - o->len) {
            if (cap > SIZE_MAX / 2)
                return -1;
            cap *= 2;
        }
        if (!(grown = realloc(o->s, cap)))
            return -1;
        o->s = grown;
        o->cap = cap;
    }
    memcpy(o->s + o->len, buffer, size);
    o->len += size;
    o->s[o->len] = '\0';
    return 0;
}

int ht__json_dump(json_t *root, int digits, char **text, struct ht_error *err)
{
    size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                   JSON_REAL_PRECISION(digits > 0 ? digits : 17);
    struct out o = {NULL, 0, 0};
    int rc = HT_OK;

    *text = NULL;
    if (!root || json_dump_callback(root, put, &o, flags) != 0 || !o.s) {
        free(o.s);
        rc = ht_error_set(err, HT_ENOMEM, "out of memory writing the JSON document");
    } else {
        unmark(o.s);
        *text = o.s;
    }
    json_decref(root);
    return rc;
}
