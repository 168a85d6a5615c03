/* Times and sizes written for people (include/hetune/util.h). */
#include <math.h>
#include <stdio.h>

#include "hetune/util.h"

void ht_format_seconds(double s, char *buf, size_t size)
{
    if (!buf)
        return;
    if (!(s >= 0) || !isfinite(s))
        snprintf(buf, size, "-");
    else if (s < 1e-3)
        snprintf(buf, size, "%.2f us", s * 1e6);
    else if (s < 1.0)
        snprintf(buf, size, "%.3f ms", s * 1e3);
    else
        snprintf(buf, size, "%.3f s", s);
}

void ht_format_bytes(uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    size_t u = 0;
    long long tenths;

    if (!buf)
        return;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    if (u == 0) {
        snprintf(buf, size, "%llu B", (unsigned long long)bytes);
        return;
    }
    /* v < 1024 here, so the tenths fit easily. */
    tenths = (long long)(v * 10.0 + 0.5);
    if (tenths % 10 == 0)
        snprintf(buf, size, "%lld %s", tenths / 10, units[u]);
    else
        snprintf(buf, size, "%lld.%lld %s", tenths / 10, tenths % 10, units[u]);
}
