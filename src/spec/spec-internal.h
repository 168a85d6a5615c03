/* Internal helpers of the spec module: where a JSON value sits in the raw text, and the
 * closest known word for a misspelt one. Not part of the public API. */
#ifndef HETUNE_SPEC_INTERNAL_H
#define HETUNE_SPEC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/space.h"
#include "hetune/spec.h"

/* One step of a JSON path: an object key, or (key NULL) an array index. */
struct ht__json_seg {
    const char *key;
    size_t index;
};

/* Finds the value at path[0..n) in text, which must be valid JSON (jansson accepted it).
 * Returns the byte offset of the value's first character, or of its key's opening quote
 * when at_key is set and the last step is a key. When a step is not there (a missing field)
 * the offset of the deepest value found is returned, the root being 0 at worst. */
size_t ht__json_locate(const char *text, size_t len, const struct ht__json_seg *path,
                       size_t n, int at_key);

/* The byte offset of the column-th (1-based) character of the JSON string literal whose
 * opening quote is at quote_off, counting an escape sequence as one character, so that a
 * column inside the decoded string maps back to the file. A column past the end gives the
 * closing quote. Returns (size_t)-1 when text[quote_off] is not a quote. */
size_t ht__json_string_offset(const char *text, size_t len, size_t quote_off, int column);

/* The 1-based line and column (in bytes) of a byte offset. */
void ht__line_col(const char *text, size_t len, size_t off, int *line, int *column);

/* The optimal-string-alignment distance (edits, a swap of neighbours counting one) of a
 * and b, capped at 100. */
int ht__edit_distance(const char *a, const char *b);

/* 1 with *v set when parameter i of d can take one value only, whatever the device: a
 * list of one value, or a range over sizes (and literals) that holds one value (lo == hi,
 * a step past hi, one power of two). 0 otherwise, or when out of memory. */
int ht__param_single_value(const struct ht_space_def *d, size_t i, int64_t *v);

/* What name is to OpenCL C when a `-D name=...` would break or change every kernel: "an
 * OpenCL C keyword", "a C keyword", "an OpenCL C type name", "a reserved identifier ...",
 * "an OpenCL C builtin"; NULL for a name a size or parameter may take. Static text. */
const char *ht__opencl_reserved(const char *name);

/* --- the spec's own lookups (once in spec.h) --- */

/* Sets *out for a type name; HT_EINVAL when there is no such type. */
int ht__type_parse(const char *name, enum ht_type *out);

/* The index of the parameter called name, or -1. */
long ht__spec_param_index(const struct ht_spec *spec, const char *name);

#endif
