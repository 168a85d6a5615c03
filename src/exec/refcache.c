/* The reference cache (issue 25, item 5): the reference outputs of a problem, computed once
 * and kept in the binary cache's folder as <key>.ref, so that the next session (another
 * device, another tune, a restarted worker, a split's single-device check) reads them
 * instead of running the reference again. The key covers everything the reference outputs
 * depend on, and not the device: a problem has one reference, and the tolerances that
 * already absorb the rounding of each configuration's order of operations absorb a
 * device's too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec-internal.h"
#include "util/util.h"

static const char ref_magic[8] = {'H', 'T', 'R', 'E', 'F', '\0', '\0', '\1'};
#define REF_HEADER 24 /* magic, payload bytes, FNV-1a of the payload */
#define REF_SEED2 UINT64_C(0x84222325cbf29ce4)

/* The hash state of a key: two FNV-1a hashes with different seeds, and the device
 * variables that some hashed expression names. */
struct keyer {
    uint64_t h[2];
    int devvar_used[HT_DEVICE_NVARS];
    const struct ht_space_def *def;
};

static void put(struct keyer *k, const void *data, size_t size)
{
    uint64_t n = size;

    /* The length first, so that field boundaries cannot shift between keys. */
    for (int i = 0; i < 2; i++) {
        k->h[i] = ht__fnv1a(k->h[i], &n, sizeof n);
        k->h[i] = ht__fnv1a(k->h[i], data, size);
    }
}

static void put_str(struct keyer *k, const char *s)
{
    put(k, s ? s : "", s ? strlen(s) : 0);
}

static void put_i64(struct keyer *k, int64_t v)
{
    put(k, &v, sizeof v);
}

/* An expression by its text (NULL hashes as empty), noting the device variables it uses. */
static void put_expr(struct keyer *k, const struct ht_expr *e)
{
    put_str(k, e ? ht_expr_source(e) : NULL);
    if (!e)
        return;
    for (int v = 0; v < HT_DEVICE_NVARS; v++)
        if (ht_expr_uses(e, ht_space_devvar_slot(k->def, (enum ht_device_var)v)))
            k->devvar_used[v] = 1;
}

/* An init file by its contents, as it is the data. */
static int put_file(struct keyer *k, const char *path, struct ht_error *err)
{
    char *data = NULL;
    size_t len = 0;
    int rc = ht__read_file(path, &data, &len, err);

    if (rc == HT_OK)
        put(k, data, len);
    free(data);
    return rc;
}

int ht__refcache_key(const struct ht_session *s, char *buf, struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;
    const struct ht_space_def *def = &spec->space;
    struct keyer k;
    int64_t devvals[HT_DEVICE_NVARS];
    static const char format[] = "hetune-reference-1";
    int rc;

    memset(&k, 0, sizeof k);
    k.h[0] = HT__FNV_INIT;
    k.h[1] = REF_SEED2;
    k.def = def;
    put(&k, format, sizeof format - 1);
    put_i64(&k, spec->verify);
    put_str(&k, spec->source);
    put_str(&k, spec->kernel_name);
    put_str(&k, spec->kernel_options);
    for (size_t i = 0; i < def->nsizes; i++) {
        put_str(&k, def->size_names[i]);
        put_i64(&k, def->size_values[i]);
    }
    if (spec->verify == HT_VERIFY_CONFIG) {
        /* The reference configuration: its values, and the NDRange they give. */
        for (size_t i = 0; i < def->nparams; i++) {
            put_str(&k, def->params[i].name);
            put_i64(&k, spec->reference[i]);
        }
        put_i64(&k, def->ndims);
        for (unsigned d = 0; d < def->ndims; d++) {
            put_expr(&k, def->global[d]);
            put_expr(&k, def->local[d]);
        }
    } else {
        /* The reference kernel with verify.once: the same outputs for every configuration
         * (the spec promises it), so no parameter is part of the key. */
        put_str(&k, spec->reference_kernel);
        put_i64(&k, spec->verify_ndims);
        for (unsigned d = 0; d < 3; d++) {
            put_expr(&k, d < def->ndims && !spec->verify_ndims ? def->global[d] : NULL);
            put_expr(&k, spec->verify_global[d]);
            put_expr(&k, spec->verify_local[d]);
        }
        put_i64(&k, (int64_t)spec->nverify_args);
        for (size_t i = 0; i < spec->nverify_args; i++)
            put_i64(&k, (int64_t)spec->verify_args[i]);
    }
    put_i64(&k, (int64_t)spec->nargs);
    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *a = &spec->args[i];
        put_str(&k, a->name);
        put_i64(&k, a->type);
        put_i64(&k, a->is_buffer);
        if (!a->is_buffer) {
            put_expr(&k, a->value);
            continue;
        }
        put_i64(&k, a->naxes);
        for (unsigned x = 0; x < a->naxes; x++)
            put_expr(&k, a->shape[x]);
        put_i64(&k, a->access);
        put_i64(&k, a->init);
        if (a->init == HT_INIT_FILE && a->access != HT_ACCESS_WRITE &&
            (rc = put_file(&k, a->init_path, err)) != HT_OK)
            return rc;
    }
    put_i64(&k, (int64_t)spec->npipeline);
    for (size_t i = 0; i < spec->npipeline; i++) {
        const struct ht_stage *st = &spec->pipeline[i];
        put_str(&k, st->kernel);
        put_i64(&k, st->ndims);
        for (unsigned d = 0; d < 3; d++) {
            put_expr(&k, st->global[d]);
            put_expr(&k, st->local[d]);
        }
        put_expr(&k, st->when);
        put_i64(&k, (int64_t)st->nargs);
        for (size_t j = 0; j < st->nargs; j++)
            put_i64(&k, (int64_t)st->args[j]);
    }
    /* A device variable reaches the outputs only through an expression that names it
     * (a shape of compute_units partial sums, say): its value is then part of the key. */
    ht_device_vars(s->dev, devvals);
    for (int v = 0; v < HT_DEVICE_NVARS; v++)
        if (k.devvar_used[v]) {
            put_str(&k, ht_device_var_names[v]);
            put_i64(&k, devvals[v]);
        }
    snprintf(buf, 33, "%016llx%016llx", (unsigned long long)k.h[0],
             (unsigned long long)k.h[1]);
    return HT_OK;
}

/* The buffers a reference holds: written by the kernel and read back (not temp). */
static int is_output(const struct ht_arg *a)
{
    return a->is_buffer && (a->access == HT_ACCESS_WRITE || a->access == HT_ACCESS_READWRITE);
}

char *ht__refcache_path(const struct ht_session *s, const char *key)
{
    return ht__asprintf("%s/%s.ref", s->cache_dir, key);
}

int ht__refcache_load(struct ht_session *s, const char *path, const struct ht__inst *in,
                      struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;
    char *data = NULL;
    size_t len = 0, off = REF_HEADER;
    uint64_t payload, sum;
    struct ht_error e;
    int rc;

    ht_error_clear(&e);
    if (ht__read_file(path, &data, &len, &e) != HT_OK) {
        free(data);
        return HT_ENOTFOUND;
    }
    rc = HT_ENOTFOUND; /* anything that does not fit is a miss, computed again */
    if (len < REF_HEADER || memcmp(data, ref_magic, sizeof ref_magic))
        goto cleanup;
    memcpy(&payload, data + 8, sizeof payload);
    memcpy(&sum, data + 16, sizeof sum);
    if (payload != len - REF_HEADER ||
        ht__fnv1a(HT__FNV_INIT, data + REF_HEADER, len - REF_HEADER) != sum)
        goto cleanup;
    for (size_t i = 0; i < spec->nargs; i++) {
        const struct ht_arg *a = &spec->args[i];
        size_t bytes = in->shape[i].count * ht_type_size(a->type);
        uint64_t count;
        if (!is_output(a))
            continue;
        if (len - off < sizeof count)
            goto cleanup;
        memcpy(&count, data + off, sizeof count);
        off += sizeof count;
        if (count != in->shape[i].count || len - off < bytes)
            goto cleanup;
        rc = ht__hostbuf_alloc(&s->refs[i], s->ctx, s->queue, HT_PATH_PAGEABLE, bytes, err);
        if (rc != HT_OK)
            goto cleanup;
        rc = HT_ENOTFOUND;
        memcpy(s->refs[i].data, data + off, bytes);
        off += bytes;
        s->refs[i].count = in->shape[i].count;
        s->refs[i].naxes = in->shape[i].naxes;
        memcpy(s->refs[i].dims, in->shape[i].dims, sizeof s->refs[i].dims);
    }
    if (off == len)
        rc = HT_OK;
cleanup:
    free(data);
    return rc;
}

void ht__refcache_save(const struct ht_session *s, const char *path)
{
    const struct ht_spec *spec = s->spec;
    size_t len = REF_HEADER, off;
    uint64_t payload, sum;
    char *data;
    struct ht_error e;

    for (size_t i = 0; i < spec->nargs; i++)
        if (is_output(&spec->args[i]))
            len += sizeof(uint64_t) + s->refs[i].count * ht_type_size(spec->args[i].type);
    data = malloc(len);
    if (!data)
        return;
    off = REF_HEADER;
    for (size_t i = 0; i < spec->nargs; i++) {
        uint64_t count = s->refs[i].count;
        size_t bytes = s->refs[i].count * ht_type_size(spec->args[i].type);
        if (!is_output(&spec->args[i]))
            continue;
        memcpy(data + off, &count, sizeof count);
        off += sizeof count;
        if (bytes)
            memcpy(data + off, s->refs[i].data, bytes);
        off += bytes;
    }
    payload = len - REF_HEADER;
    sum = ht__fnv1a(HT__FNV_INIT, data + REF_HEADER, payload);
    memcpy(data, ref_magic, sizeof ref_magic);
    memcpy(data + 8, &payload, sizeof payload);
    memcpy(data + 16, &sum, sizeof sum);
    ht_error_clear(&e);
    /* A cache that cannot be written costs the next session a reference run, no more. */
    if (ht__mkdir_p(s->cache_dir, &e) == HT_OK && ht__write_file(path, data, len, &e) == HT_OK)
        ht__log(HT_LOG_INFO, "%s: reference outputs saved to %s", s->dev->name, path);
    else
        ht__log(HT_LOG_INFO, "%s: reference outputs not saved: %s", s->dev->name, e.text);
    free(data);
}
