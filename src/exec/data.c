/* Host data of buffer arguments: initial values and the poison written before every run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec-internal.h"
#include "util/util.h"

/* Stores v, converted to type t, as element i of buf. */
static void store_int(enum ht_type t, void *buf, size_t i, int64_t v)
{
    switch (t) {
    case HT_TYPE_CHAR: ((int8_t *)buf)[i] = (int8_t)v; break;
    case HT_TYPE_UCHAR: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case HT_TYPE_SHORT: ((int16_t *)buf)[i] = (int16_t)v; break;
    case HT_TYPE_USHORT: ((uint16_t *)buf)[i] = (uint16_t)v; break;
    case HT_TYPE_INT: ((int32_t *)buf)[i] = (int32_t)v; break;
    case HT_TYPE_UINT: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case HT_TYPE_LONG: ((int64_t *)buf)[i] = v; break;
    case HT_TYPE_ULONG: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case HT_TYPE_FLOAT: ((float *)buf)[i] = (float)v; break;
    case HT_TYPE_DOUBLE: ((double *)buf)[i] = (double)v; break;
    default: break;
    }
}

static void fill_random(const struct ht_arg *arg, void *buf, size_t count)
{
    struct ht__rng rng;

    /* The seed depends on the name only, so every session, device and configuration sees
     * the same inputs and the reference stays comparable. */
    ht__rng_seed(&rng, ht__fnv1a(HT__FNV_INIT, arg->name, strlen(arg->name)));
    if (arg->type == HT_TYPE_FLOAT) {
        for (size_t i = 0; i < count; i++)
            ((float *)buf)[i] = (float)(2.0 * ht__rng_double(&rng) - 1.0);
    } else if (arg->type == HT_TYPE_DOUBLE) {
        for (size_t i = 0; i < count; i++)
            ((double *)buf)[i] = 2.0 * ht__rng_double(&rng) - 1.0;
    } else {
        for (size_t i = 0; i < count; i++)
            store_int(arg->type, buf, i, (int64_t)(ht__rng_next(&rng) % 100));
    }
}

static int fill_file(const struct ht_arg *arg, void *buf, size_t count, struct ht_error *err)
{
    size_t want = count * ht_type_size(arg->type);
    char *data = NULL;
    size_t len = 0;
    int rc;

    rc = ht__read_file(arg->init_path, &data, &len, err);
    if (rc != HT_OK)
        return rc;
    if (len != want) {
        rc = ht_error_set(err, HT_ESPEC,
                          "'%s' has %zu bytes but argument '%s' needs %zu (%zu %s elements)",
                          arg->init_path, len, arg->name, want, count,
                          ht_type_name(arg->type));
        goto cleanup;
    }
    /* Raw little-endian data: the byte order of every host hetune runs on. */
    memcpy(buf, data, want);
cleanup:
    free(data);
    return rc;
}

int ht__data_init(const struct ht_arg *arg, void *buf, size_t count, struct ht_error *err)
{
    switch (arg->init) {
    case HT_INIT_RANDOM:
        fill_random(arg, buf, count);
        return HT_OK;
    case HT_INIT_ZERO:
        memset(buf, 0, count * ht_type_size(arg->type));
        return HT_OK;
    case HT_INIT_IOTA:
        for (size_t i = 0; i < count; i++)
            store_int(arg->type, buf, i, (int64_t)i);
        return HT_OK;
    case HT_INIT_FILE:
        return fill_file(arg, buf, count, err);
    }
    return ht_error_set(err, HT_EINVAL, "argument '%s' has an unknown init kind", arg->name);
}

void ht__poison_fill(enum ht_type t, void *buf, size_t count)
{
    size_t es = ht_type_size(t), have = es, total = count * es;

    if (count == 0)
        return;
    ht__poison_pattern(t, buf);
    /* Doubling copies: log2(count) calls, not one a element (8M floats: 3 ms, not 25). */
    while (have < total) {
        size_t n = have < total - have ? have : total - have;
        memcpy((char *)buf + have, buf, n);
        have += n;
    }
}

void ht__poison_pattern(enum ht_type t, void *pat)
{
    if (t == HT_TYPE_FLOAT) {
        float f = NAN;
        memcpy(pat, &f, sizeof f);
    } else if (t == HT_TYPE_DOUBLE) {
        double d = NAN;
        memcpy(pat, &d, sizeof d);
    } else {
        memset(pat, 0xA5, ht_type_size(t));
    }
}
