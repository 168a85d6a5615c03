/* Building JSON documents with jansson (util.h): the values jansson refuses (text that is
 * not UTF-8, numbers that are not finite, integers past 2^63) made into values it takes,
 * and the one way the library dumps a document. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util.h"

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

/* Writes the numbers ht__json_uint_text marked in text (NUL-terminated) back in place. */
static void unmark(char *text)
{
    char *w = text;
    const char *r = text;
    const size_t mark = sizeof BIG_MARK - 1;

    while (*r) {
        if (strncmp(r, BIG_MARK, mark) == 0) {
            size_t n = strspn(r + mark, "0123456789");
            /* Only a marked number is followed by its closing quote. */
            if (n && r[mark + n] == '"') {
                memmove(w, r + mark, n);
                w += n;
                r += mark + n + 1;
                continue;
            }
        }
        *w++ = *r++;
    }
    *w = '\0';
}

/* json_dump_callback's writer into a memory stream: json_dumps would copy the whole text
 * once more at its end, which a listing of millions of configurations feels. */
static int put(const char *buffer, size_t size, void *data)
{
    return fwrite(buffer, 1, size, data) == size ? 0 : -1;
}

int ht__json_dump(json_t *root, int digits, char **text, struct ht_error *err)
{
    size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                   JSON_REAL_PRECISION(digits > 0 ? digits : 17);
    size_t size = 0;
    FILE *f = NULL;
    int rc = HT_OK;

    *text = NULL;
    if (!root || !(f = open_memstream(text, &size)) || json_dump_callback(root, put, f, flags) ||
        ferror(f))
        rc = ht_error_set(err, HT_ENOMEM, "out of memory writing the JSON document");
    if (f && fclose(f) && rc == HT_OK)
        rc = ht_error_set(err, HT_ENOMEM, "out of memory writing the JSON document");
    json_decref(root);
    if (rc != HT_OK) {
        free(*text);
        *text = NULL;
        return rc;
    }
    unmark(*text);
    return HT_OK;
}
