/* Content keys and checksums (XXH3 of xxHash, header-only here: nothing to link). The
 * binary and reference caches name their files by a key of everything their contents
 * depend on: a collision would load the wrong binary, hence 128 bits of a hash made for it
 * rather than two 64-bit FNV-1a passes. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "util/util.h"

int ht__key_init(struct ht__key *k)
{
    k->state = XXH3_createState();
    if (!k->state)
        return HT_ENOMEM;
    XXH3_128bits_reset(k->state);
    return HT_OK;
}

void ht__key_field(struct ht__key *k, const void *data, size_t size)
{
    uint64_t n = size;

    /* The length first, so that field boundaries cannot shift between keys. */
    XXH3_128bits_update(k->state, &n, sizeof n);
    XXH3_128bits_update(k->state, data, size);
}

void ht__key_hex(struct ht__key *k, char buf[33])
{
    XXH128_hash_t h = XXH3_128bits_digest(k->state);

    snprintf(buf, 33, "%016llx%016llx", (unsigned long long)h.high64,
             (unsigned long long)h.low64);
    XXH3_freeState(k->state);
    k->state = NULL;
}

void ht__key_free(struct ht__key *k)
{
    XXH3_freeState(k->state);
    k->state = NULL;
}

uint64_t ht__checksum(const void *data, size_t size)
{
    return XXH3_64bits(data, size);
}
