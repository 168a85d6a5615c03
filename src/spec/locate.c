/* Where a JSON value sits in the spec's raw text, and suggestions for misspelt fields.
 *
 * jansson keeps no positions for the values it parses, so error messages that point into
 * the file walk the raw text again along the JSON path. The text has already been accepted
 * by jansson (with duplicate keys rejected), so every path names at most one value and the
 * walker can be small and trusting; it still never reads past len. */
#include <string.h>

#include "hetune/spec.h"
#include "spec-internal.h"
#include "util/util.h"

static size_t skip_ws(const char *t, size_t len, size_t i)
{
    while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        i++;
    return i;
}

/* i at an opening quote; returns the offset just past the closing one. */
static size_t skip_string(const char *t, size_t len, size_t i)
{
    for (i++; i < len && t[i] != '"'; i++)
        if (t[i] == '\\')
            i++;
    return i < len ? i + 1 : len;
}

static size_t skip_value(const char *t, size_t len, size_t i)
{
    int depth = 0;

    if (i >= len)
        return len;
    if (t[i] == '"')
        return skip_string(t, len, i);
    if (t[i] != '{' && t[i] != '[') {
        while (i < len && !strchr(",]} \t\r\n", t[i]))
            i++;
        return i;
    }
    while (i < len) {
        if (t[i] == '"') {
            i = skip_string(t, len, i);
            continue;
        }
        if (t[i] == '{' || t[i] == '[')
            depth++;
        else if (t[i] == '}' || t[i] == ']')
            if (--depth == 0)
                return i + 1;
        i++;
    }
    return len;
}

/* Compares the string literal at i (an opening quote) with key. Escapes other than the
 * simple ones and \u00XX ASCII compare unequal, which only costs a less precise position. */
static int string_equals(const char *t, size_t len, size_t i, const char *key)
{
    const unsigned char *k = (const unsigned char *)key;

    for (i++; i < len && t[i] != '"'; i++, k++) {
        int c = (unsigned char)t[i];
        if (c == '\\') {
            if (++i >= len)
                return 0;
            switch (t[i]) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u':
                if (i + 4 >= len)
                    return 0;
                c = 0;
                for (int j = 1; j <= 4; j++) {
                    int h = ht__hex_digit(t[i + j]);
                    if (h < 0)
                        return 0;
                    c = c * 16 + h;
                }
                if (c >= 0x80)
                    return 0;
                i += 4;
                break;
            default: c = (unsigned char)t[i]; break;
            }
        }
        if (*k != c)
            return 0;
    }
    return *k == '\0';
}

size_t ht__json_locate(const char *text, size_t len, const struct ht__json_seg *path,
                       size_t n, int at_key)
{
    size_t i = skip_ws(text, len, 0);
    for (size_t s = 0; s < n; s++) {
        size_t found = (size_t)-1, key_off = 0;
        size_t j;

        if (i >= len)
            return 0;
        if (path[s].key && text[i] == '{') {
            j = skip_ws(text, len, i + 1);
            while (j < len && text[j] == '"') {
                int match = string_equals(text, len, j, path[s].key);
                key_off = j;
                j = skip_ws(text, len, skip_string(text, len, j));
                if (j < len && text[j] == ':')
                    j = skip_ws(text, len, j + 1);
                if (match) {
                    found = j;
                    break;
                }
                j = skip_ws(text, len, skip_value(text, len, j));
                if (j < len && text[j] == ',')
                    j = skip_ws(text, len, j + 1);
            }
        } else if (!path[s].key && text[i] == '[') {
            size_t k = 0;
            j = skip_ws(text, len, i + 1);
            while (j < len && text[j] != ']') {
                if (k == path[s].index) {
                    found = j;
                    break;
                }
                j = skip_ws(text, len, skip_value(text, len, j));
                if (j < len && text[j] == ',')
                    j = skip_ws(text, len, j + 1);
                k++;
            }
        }
        if (found == (size_t)-1)
            return i;
        if (at_key && path[s].key && s + 1 == n)
            return key_off;
        i = found;
    }
    return i;
}

size_t ht__json_string_offset(const char *text, size_t len, size_t quote_off, int column)
{
    size_t i;

    if (quote_off >= len || text[quote_off] != '"')
        return (size_t)-1;
    i = quote_off + 1;
    for (int c = 1; c < column && i < len && text[i] != '"'; c++) {
        if (text[i] == '\\')
            i += (i + 1 < len && text[i + 1] == 'u') ? 6 : 2;
        else
            i++;
    }
    return i < len ? i : len;
}

void ht__line_col(const char *text, size_t len, size_t off, int *line, int *column)
{
    int l = 1;
    size_t start = 0;

    if (off > len)
        off = len;
    for (size_t i = 0; i < off; i++)
        if (text[i] == '\n') {
            l++;
            start = i + 1;
        }
    *line = l;
    *column = (int)(off - start) + 1;
}

int ht__edit_distance(const char *a, const char *b)
{
    enum { MAXLEN = 64 };
    int d[MAXLEN + 1][MAXLEN + 1];
    size_t la = strlen(a), lb = strlen(b);

    if (la > MAXLEN || lb > MAXLEN)
        return 100;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb] < 100 ? d[la][lb] : 100;
}

const char *ht_closest_word(const char *s, const char *const *words, size_t n)
{
    const char *best = NULL;
    int best_d = 100;
    size_t ls;

    if (!s || !words)
        return NULL;
    ls = strlen(s);

    for (size_t i = 0; i < n; i++) {
        int d = ht__edit_distance(s, words[i]);
        size_t lw = strlen(words[i]);
        size_t longer = ls > lw ? ls : lw;
        /* Close enough: at most two edits, and fewer than a third of the longer word, so
         * that "hi" is not offered for "lo". */
        if (d <= 2 && (size_t)d * 3 <= longer && d < best_d) {
            best = words[i];
            best_d = d;
        }
    }
    return best;
}
