/* Internal helpers shared by the library's modules (not part of the public API). */
#ifndef HETUNE_UTIL_H
#define HETUNE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hetune/error.h"

/* Opens path for reading ("rb") and checks with fstat that it is a regular file. *out is
 * owned by the caller (fclose()); *size (when size is not NULL) is the file's size. Returns
 * HT_EIO with err naming the file and strerror(errno) when it cannot be opened, HT_EINVAL
 * with err->file the path and err->text "is a directory" (or "is not a regular file") when
 * it is no regular file. */
int ht__open_regular(const char *path, FILE **out, uint64_t *size, struct ht_error *err);

/* Reads a whole regular file (ht__open_regular) into a NUL-terminated buffer owned by the
 * caller (free()). Returns HT_EIO with err naming the file and strerror(errno) on failure,
 * HT_EINVAL as ht__open_regular for a folder or another file that is not regular, HT_ENOMEM
 * when it does not fit in memory. */
int ht__read_file(const char *path, char **out, size_t *len, struct ht_error *err);

/* The exit status of the command line for an error code (error.c): ht_present_exit_status
 * (present.h) is this, for the CLI and programs; inside the library it says which errors
 * are bad input (2). */
int ht__exit_status(int code);

/* Passes a printf-style message to the hook of ht_set_log, if any (error.c). */
void ht__log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes size bytes to path atomically (a temporary file renamed over it). Returns HT_EIO. */
int ht__write_file(const char *path, const void *data, size_t size, struct ht_error *err);

/* Creates a folder and its parents (mode 0777 & ~umask); existing folders are fine.
 * Returns HT_EIO with err filled. */
int ht__mkdir_p(const char *path, struct ht_error *err);

/* strdup that returns NULL for NULL. */
char *ht__strdup(const char *s);

/* printf into a newly allocated string owned by the caller (free()); NULL when out of memory. */
char *ht__asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "dir/name", or name alone when name is absolute or dir is empty. Owned by the caller. */
char *ht__path_join(const char *dir, const char *name);

/* The folder part of path ("." when it has none). Owned by the caller. */
char *ht__dirname(const char *path);

/* The value of the hexadecimal digit c (0-9, a-f, A-F), or -1 when it is none. */
int ht__hex_digit(int c);

/* Monotonic wall-clock seconds. */
double ht__now(void);

/* The environment as it was before OpenCL first started in this process (which may edit
 * it), for the processes hetune starts: ht__env_snapshot copies environ once (later calls
 * do nothing; call it before the first OpenCL call); ht__env_for_child returns that copy,
 * or environ when none was taken. Static storage, never freed. */
void ht__env_snapshot(void);
char **ht__env_for_child(void);

/* The name of signal sig ("SIGSEGV"), or NULL for one without a name here: how the
 * processes hetune starts ended (exec's worker, supervise's child). */
const char *ht__signal_name(int sig);

/* A 128-bit content key (XXH3-128, src/util/hash.c) of fields given in order, each with
 * its length, so that field boundaries cannot shift between keys: ht__key_init (HT_ENOMEM),
 * ht__key_field per field, then ht__key_hex writes 32 hex digits and frees the state (or
 * ht__key_free without a key). */
struct ht__key {
    void *state;
};
int ht__key_init(struct ht__key *k);
void ht__key_field(struct ht__key *k, const void *data, size_t size);
void ht__key_hex(struct ht__key *k, char buf[33]);
void ht__key_free(struct ht__key *k);

/* A 64-bit checksum of a cache file's payload (XXH3-64). */
uint64_t ht__checksum(const void *data, size_t size);

/* 64-bit FNV-1a of data, continuing from h (start with HT__FNV_INIT): hash tables and
 * seeds, never a key whose collision would cost a wrong answer. */
#define HT__FNV_INIT UINT64_C(0xcbf29ce484222325)
uint64_t ht__fnv1a(uint64_t h, const void *data, size_t size);

/* A small, fast, repeatable pseudo-random generator (xoshiro256**), seeded by splitmix64. */
struct ht__rng {
    uint64_t s[4];
};
void ht__rng_seed(struct ht__rng *r, uint64_t seed);
uint64_t ht__rng_next(struct ht__rng *r);
/* Uniform double in [0, 1). */
double ht__rng_double(struct ht__rng *r);

/* --- JSON documents through jansson (json.c) ---
 * jansson refuses text that is not UTF-8, reals that are not finite and integers past
 * 2^63; these make such values into ones it takes, and ht__json_dump is how the library
 * writes a document. Each returns a new reference (NULL only when out of memory, or as
 * said), for json_object_set_new, json_array_append_new or json_pack's "o". */
struct json_t;

/* s as a JSON string, null for NULL. Control characters are escaped when dumped; each
 * byte of s that starts no valid UTF-8 sequence becomes U+FFFD, so that a driver's name
 * or a path in another encoding still gives valid JSON (the rest of it kept). */
struct json_t *ht__json_string(const char *s);

/* v as a JSON real, or null when it is not finite (NaN, inf). */
struct json_t *ht__json_real(double v);

/* The whole number whose decimal text is digits (no sign, no leading zeros, at most 63
 * digits) as a JSON integer, exact even past 2^63 (written by ht__json_dump only; a tree
 * holding one must be dumped there). NULL when digits is no such text. */
struct json_t *ht__json_uint_text(const char *digits);

/* Dumps root, taking its reference (NULL: out of memory already), into *text (owned by the
 * caller, free): keys in their order, two spaces of indent, reals to digits significant
 * digits (0: 17, which round-trips a double), no newline at the end. Returns HT_OK, or
 * HT_ENOMEM with *text NULL. */
int ht__json_dump(struct json_t *root, int digits, char **text, struct ht_error *err);

/* --- OpenCL status names and failures (error.c), for the messages of exec, coexec and
 * platform --- */

/* The name of an OpenCL status code ("CL_OUT_OF_RESOURCES"), or "CL_UNKNOWN_ERROR(<n>)"
 * written into a thread-local buffer for codes it does not know. Borrowed; valid until the
 * next call on the same thread. */
const char *ht__cl_err_name(int cl_status);

/* Reports a failed OpenCL call (cl_status, a cl_int): sets err->cl_status (when err holds
 * no error yet) and the message "<what> failed: CL_...", logs it, and returns code. */
int ht__cl_fail(struct ht_error *err, int code, int cl_status, const char *what);

#endif
