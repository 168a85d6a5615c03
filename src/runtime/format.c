/* Numbers and configurations as people read them (workflow.h). */
#include <inttypes.h>
#include <stdio.h>

#include "hetune/workflow.h"

void ht_format_bytes(uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    size_t u = 0;
    long long tenths;

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

void ht_format_config(const struct ht_spec *spec, const int64_t *config, char *buf, size_t size)
{
    size_t used = 0;

    if (!size)
        return;
    buf[0] = '\0';
    if (!spec->space.nparams)
        snprintf(buf, size, "(no parameters)");
    for (size_t i = 0; i < spec->space.nparams && used < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%s=%" PRId64, i ? " " : "",
                         spec->space.params[i].name, config[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}
