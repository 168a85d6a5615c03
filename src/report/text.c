/* Text helpers of the report: a string builder, CSV and Markdown escaping. */
#include <math.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-internal.h"
#include "util/util.h"

static int grow(struct rp_buf *b, size_t more)
{
    size_t cap;
    char *p;

    if (b->oom)
        return -1;
    if (b->len + more + 1 <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 1024;
    while (cap < b->len + more + 1)
        cap *= 2;
    p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void ht__rp_printf(struct rp_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if (grow(b, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void ht__rp_puts(struct rp_buf *b, const char *s)
{
    size_t n = strlen(s);

    if (grow(b, n) != 0)
        return;
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

void ht__rp_free(struct rp_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void ht__rp_csv_text(struct rp_buf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        ht__rp_puts(b, s);
        return;
    }
    ht__rp_puts(b, "\"");
    for (const char *p = s; *p; p++)
        ht__rp_puts(b, *p == '"' ? "\"\"" : (char[2]){*p, '\0'});
    ht__rp_puts(b, "\"");
}

void ht__rp_csv_time(struct rp_buf *b, double v)
{
    if (v >= 0 && isfinite(v))
        ht__rp_printf(b, "%.9g", v);
}

void ht__rp_md_text(struct rp_buf *b, const char *s)
{
    for (const char *p = s; *p; p++) {
        if (*p == '|')
            ht__rp_puts(b, "\\|");
        else if (*p == '\n' || *p == '\r')
            ht__rp_puts(b, " ");
        else
            ht__rp_puts(b, (char[2]){*p, '\0'});
    }
}

int ht__rp_write(const char *dir, const char *name, const struct rp_buf *b,
                 struct ht_error *err)
{
    char *path;
    int rc;

    if (b->oom)
        return ht_error_set(err, HT_ENOMEM, "out of memory writing %s", name);
    path = ht__path_join(dir, name);
    if (!path)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    rc = ht__write_file(path, b->p ? b->p : "", b->len, err);
    free(path);
    return rc;
}
