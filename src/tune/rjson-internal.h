/* A read-only JSON document for recorded spaces (replay.c): values in one arena, members in
 * document order. Recordings are large (a T4 file of 4,362 configurations is 7.4 MB of
 * JSON, most of it runtimes); building jansson's objects for them took a third of a
 * replay's time (issue 25), this reader a tenth of that. It accepts a strict subset of JSON
 * (no \u escapes, ASCII strings, no repeated key in an object, integers of at most 18
 * digits) and gives up on anything else, so that the caller falls back to jansson, which
 * takes what it takes and says what is wrong with the rest: a file means the same and fails
 * the same either way. */
#ifndef HT_TUNE_RJSON_INTERNAL_H
#define HT_TUNE_RJSON_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

enum ht__rj_type {
    HT__RJ_NULL, HT__RJ_FALSE, HT__RJ_TRUE, HT__RJ_INT, HT__RJ_REAL, HT__RJ_STRING,
    HT__RJ_ARRAY, HT__RJ_OBJECT
};

struct ht__rj {
    const char *key; /* a member's key (NUL-terminated); NULL for an array's element */
    union {
        int64_t i;
        double d;
        const char *s;               /* NUL-terminated */
        const struct ht__rj *items;  /* an array's elements, an object's members */
    } u;
    uint32_t n;      /* elements or members; a string's length */
    uint8_t type;
};

struct ht__rj_doc {
    void *chunks;              /* the arena */
    char *at, *end;            /* free space in the newest chunk */
    const struct ht__rj *root;
};

/* Parses text[0, len) into doc (zeroed by the caller). Returns 0, or 1 when the text is
 * outside the subset (malformed JSON included; nothing is said: ask jansson), or HT_ENOMEM.
 * Free doc with ht__rj_free in every case. text need not end with a NUL. */
int ht__rj_parse(const char *text, size_t len, struct ht__rj_doc *doc);

/* Copies jansson's root into doc (zeroed by the caller). Returns 0 or HT_ENOMEM. */
int ht__rj_from_jansson(const json_t *root, struct ht__rj_doc *doc);

void ht__rj_free(struct ht__rj_doc *doc);

/* The member key of object v, or NULL (v NULL or not an object, or no such member). */
const struct ht__rj *ht__rj_get(const struct ht__rj *v, const char *key);

/* v's string, or NULL when v is NULL or not a string. */
const char *ht__rj_string(const struct ht__rj *v);

/* Whether v is a number; *x its value as a double. */
int ht__rj_number(const struct ht__rj *v, double *x);

/* The elements of an array or members of an object (*n of them); NULL and 0 otherwise. */
const struct ht__rj *ht__rj_items(const struct ht__rj *v, size_t *n);

#endif
