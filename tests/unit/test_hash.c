/* The caches' content keys and checksums (src/util/hash.c): XXH3-128 keys of fields with
 * their lengths, XXH3-64 checksums. Known answers from xxHash's own definition, and the
 * properties the caches rely on. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "util/util.h"

static void key_of(const char *const *fields, size_t n, char out[33])
{
    struct ht__key k;

    assert_int_equal(ht__key_init(&k), HT_OK);
    for (size_t i = 0; i < n; i++)
        ht__key_field(&k, fields[i], strlen(fields[i]));
    ht__key_hex(&k, out);
    assert_null(k.state);
}

static void keys_are_128_bit_hex_and_repeatable(void **state)
{
    const char *f[] = {"__kernel void k() {}", "-D WG=64", "pthread"};
    char a[33], b[33];

    (void)state;
    key_of(f, 3, a);
    key_of(f, 3, b);
    assert_int_equal(strlen(a), 32);
    assert_int_equal(strspn(a, "0123456789abcdef"), 32);
    assert_string_equal(a, b);
}

static void field_boundaries_are_part_of_the_key(void **state)
{
    const char *f1[] = {"ab", "c"}, *f2[] = {"a", "bc"}, *f3[] = {"abc"}, *f4[] = {"abc", ""};
    char a[33], b[33], c[33], d[33];

    (void)state;
    key_of(f1, 2, a);
    key_of(f2, 2, b);
    key_of(f3, 1, c);
    key_of(f4, 2, d);
    assert_string_not_equal(a, b);
    assert_string_not_equal(a, c);
    assert_string_not_equal(c, d);
}

static void one_bit_changes_the_key(void **state)
{
    const char *f1[] = {"-D WG=64 -D EPT=2"}, *f2[] = {"-D WG=64 -D EPT=3"};
    char a[33], b[33];
    int differ = 0;

    (void)state;
    key_of(f1, 1, a);
    key_of(f2, 1, b);
    /* Both halves change: the key is not one 64-bit hash printed twice. */
    differ = memcmp(a, b, 16) != 0 && memcmp(a + 16, b + 16, 16) != 0;
    assert_true(differ);
}

static void checksum_is_xxh3_64(void **state)
{
    (void)state;
    /* XXH3_64bits of the empty input (xxHash's test vectors). */
    assert_true(ht__checksum("", 0) == UINT64_C(0x2D06800538D394C2));
    assert_true(ht__checksum("a", 1) != ht__checksum("b", 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keys_are_128_bit_hex_and_repeatable),
        cmocka_unit_test(field_boundaries_are_part_of_the_key),
        cmocka_unit_test(one_bit_changes_the_key),
        cmocka_unit_test(checksum_is_xxh3_64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
