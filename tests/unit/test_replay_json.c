/* The fast JSON reader of recorded spaces (src/tune/rjson.c) against jansson, which it
 * stands in for: whatever it accepts, jansson accepts and reads the same (types, values to
 * the bit, keys, order); what it leaves, it leaves to jansson. Hand-picked texts, every
 * prefix of a T4 text, and random byte mutations of it. Then a recording read both ways
 * (a \u escape sends the file to jansson) holds the same. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune/tune.h"
#include "tune/rjson-internal.h"

static const char *const T4 =
    "{\n \"metadata\": {\"timeunit\": \"miliseconds\"},\n \"results\": [\n"
    "  {\"timestamp\": \"2023-12-22 09:54:05\", \"configuration\": {\"bx\": 16, \"by\": 1},\n"
    "   \"times\": {\"compilation\": 918.5990339610726, \"framework\": 105.2,\n"
    "     \"runtimes\": [3.976191997528076, 3.8789119720458984, 3.87e0, 4E-1]},\n"
    "   \"invalidity\": \"correct\", \"correctness\": 1,\n"
    "   \"measurements\": [{\"name\": \"time\", \"value\": 3.8753279224038124, \"unit\": \"\"}]},\n"
    "  {\"timestamp\": \"2023-12-22 09:54:06\", \"configuration\": {\"bx\": 32, \"by\": 2},\n"
    "   \"times\": {\"compilation\": 855, \"framework\": 2.0, \"runtimes\": [-0, 1e-3, 0.5]},\n"
    "   \"invalidity\": \"compile\", \"measurements\": [], \"x\": [true, false, null, {}, []]}\n"
    " ]\n}\n";

/* Whether the two documents are the same tree, bit for bit. */
static int same(const struct ht__rj *a, const struct ht__rj *b)
{
    if (a->type != b->type || a->n != b->n)
        return 0;
    if ((a->key == NULL) != (b->key == NULL) || (a->key && strcmp(a->key, b->key)))
        return 0;
    switch (a->type) {
    case HT__RJ_INT:
        return a->u.i == b->u.i;
    case HT__RJ_REAL:
        return memcmp(&a->u.d, &b->u.d, sizeof a->u.d) == 0;
    case HT__RJ_STRING:
        return memcmp(a->u.s, b->u.s, a->n + 1) == 0;
    case HT__RJ_ARRAY:
    case HT__RJ_OBJECT:
        for (uint32_t i = 0; i < a->n; i++)
            if (!same(&a->u.items[i], &b->u.items[i]))
                return 0;
        return 1;
    default:
        return 1;
    }
}

/* Reads text both ways; returns 1 when the fast reader took it, 0 when it left it. Fails
 * when the fast reader took what jansson refuses or reads otherwise. */
static int check_text(const char *text, size_t len)
{
    struct ht__rj_doc fast = {0}, slow = {0};
    json_error_t jerr;
    int rc = ht__rj_parse(text, len, &fast);

    assert_true(rc == 0 || rc == 1);
    if (rc == 0) {
        json_t *root = json_loadb(text, len, 0, &jerr);
        if (!root)
            fail_msg("the fast reader took what jansson refuses (%s): %.*s", jerr.text,
                     (int)(len < 200 ? len : 200), text);
        assert_int_equal(ht__rj_from_jansson(root, &slow), 0);
        json_decref(root);
        if (!same(fast.root, slow.root))
            fail_msg("read otherwise than jansson: %.*s", (int)(len < 200 ? len : 200), text);
    }
    ht__rj_free(&fast);
    ht__rj_free(&slow);
    return rc == 0;
}

static int check(const char *text)
{
    return check_text(text, strlen(text));
}

static void test_cases(void **state)
{
    (void)state;
    /* Taken. */
    assert_true(check(T4));
    assert_true(check("{}"));
    assert_true(check(" [ ] "));
    assert_true(check("{\"a\": -0, \"b\": 0.5e-3, \"c\": 1E+2, \"d\": -123456789012345678}"));
    assert_true(check("{\"s\": \"q\\\"b\\\\s\\/n\\nt\\tr\\rb\\bf\\f\"}"));
    assert_true(check("[1e-400, 0.0, -0.0, 1.7e308]"));
    assert_true(check("{\"\": \"\", \"k\": [[[[]]]]}"));
    /* Left to jansson: outside the subset, valid or not. */
    assert_false(check("{\"a\": 1, \"a\": 2}"));
    assert_false(check("{\"s\": \"\\u00e9\"}"));
    assert_false(check("{\"s\": \"\xc3\xa9\"}"));
    assert_false(check("[1234567890123456789]"));
    assert_false(check("[99999999999999999999]"));
    assert_false(check("[1e400]"));
    assert_false(check("[1.7e308, 2.5e308]"));
    assert_false(check("1"));
    assert_false(check("\"s\""));
    assert_false(check("{} x"));
    assert_false(check("[01]"));
    assert_false(check("[1.]"));
    assert_false(check("[.5]"));
    assert_false(check("[-]"));
    assert_false(check("[tru]"));
    assert_false(check("[1,]"));
    assert_false(check("{\"a\" 1}"));
    assert_false(check("{\"a\": \"x\ty\"}"));
    assert_false(check("[\"\\x\"]"));
    assert_false(check("\xef\xbb\xbf{}"));
    assert_false(check_text("{\"a\": 1}\0", 9));
    assert_false(check_text("[\"a\0b\"]", 7));
    /* 17 keys or more are checked for repeats by sorting. */
    assert_false(check("{\"a\":1,\"b\":1,\"c\":1,\"d\":1,\"e\":1,\"f\":1,\"g\":1,\"h\":1,\"i\":1,"
                       "\"j\":1,\"k\":1,\"l\":1,\"m\":1,\"n\":1,\"o\":1,\"p\":1,\"q\":1,\"a\":2}"));
    assert_true(check("{\"a\":1,\"b\":1,\"c\":1,\"d\":1,\"e\":1,\"f\":1,\"g\":1,\"h\":1,\"i\":1,"
                      "\"j\":1,\"k\":1,\"l\":1,\"m\":1,\"n\":1,\"o\":1,\"p\":1,\"q\":1,\"r\":2}"));
    /* Deeper than the fast reader goes. */
    char deep[1200];
    memset(deep, '[', 600);
    memset(deep + 600, ']', 600);
    assert_false(check_text(deep, sizeof deep));
}

static void test_prefixes_and_mutations(void **state)
{
    size_t len = strlen(T4);
    char *buf = malloc(len + 1);
    unsigned seed = 12345;
    int taken = 0;
    static const char alphabet[] = "{}[]\",:.-+eE0123456789 \\tfnu\x01\x80";

    (void)state;
    assert_non_null(buf);
    /* No proper prefix is a document (the text ends with a newline after its last '}'). */
    for (size_t n = 0; n + 1 < len; n++)
        assert_false(check_text(T4, n));
    for (int k = 0; k < 20000; k++) {
        memcpy(buf, T4, len + 1);
        int edits = 1 + k % 3;
        for (int e = 0; e < edits; e++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len;
            seed = seed * 1103515245u + 12345u;
            buf[at] = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
        }
        taken += check_text(buf, len);
    }
    /* Both ways were exercised: a digit for a digit keeps a document, a brace breaks it. */
    print_message("mutations taken by the fast reader: %d of 20000\n", taken);
    assert_true(taken > 1000 && taken < 19000);
    free(buf);
}

static char *write_temp(const char *text)
{
    char *path = strdup("/tmp/hetune-test-rjson-XXXXXX");
    int fd;
    assert_non_null(path);
    fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* The same recording through the fast reader and through jansson (a \u escape in a
 * timestamp sends the whole file there) holds the same results. */
static void test_recording_both_ways(void **state)
{
    struct ht_recording *fast = NULL, *slow = NULL;
    struct ht_error err = {0};
    char *text = strdup(T4), *p;
    (void)state;

    assert_non_null(text);
    char *a = write_temp(text);
    p = strstr(text, "09:54:06");
    memcpy(p, "\\u0030", 6); /* "09:5" becomes "\u0030..." : other text, same results */
    assert_false(check(text));
    char *b = write_temp(text);
    assert_int_equal(ht_recording_load(a, NULL, &fast, &err), 0);
    assert_int_equal(ht_recording_load(b, NULL, &slow, &err), 0);
    assert_int_equal(ht__recording_count(fast), 2);
    assert_int_equal(ht__recording_count(slow), 2);
    double of = 0, os = 0;
    assert_int_equal(ht__recording_optimum(fast, &of), 0);
    assert_int_equal(ht__recording_optimum(slow, &os), 0);
    assert_true(of == os && of == 3.8753279224038124 * 1e-3);
    ht_recording_free(fast);
    ht_recording_free(slow);
    unlink(a);
    unlink(b);
    free(a);
    free(b);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_prefixes_and_mutations),
        cmocka_unit_test(test_recording_both_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
