/* hetune — configurations as text: what `hetune space --list` prints, a line per
 * configuration, written without printf (a listing of 10^6 configurations of a dozen
 * parameters is 10^7 integers). */
#include <stdio.h>
#include <string.h>

#include "hetune/space.h"

/* Writes v in decimal ending just before end; returns where it starts. */
static char *put_int(char *end, int64_t v)
{
    /* The magnitude as unsigned, so that INT64_MIN has one. */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *p = end;

    do {
        *--p = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    return p;
}

int ht_space_print_config(FILE *f, const int64_t *config, size_t n)
{
    /* 20 characters hold any int64 with its sign, one more the separator. */
    char buf[64 * 21 + 1], tmp[24];
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        char *start = put_int(tmp + sizeof tmp, config[i]);
        size_t k = (size_t)(tmp + sizeof tmp - start);
        if (len + k + 1 > sizeof buf) {
            if (fwrite(buf, 1, len, f) != len)
                return HT_EIO;
            len = 0;
        }
        if (i)
            buf[len++] = ' ';
        memcpy(buf + len, start, k);
        len += k;
    }
    return fwrite(buf, 1, len, f) == len ? 0 : HT_EIO;
}
