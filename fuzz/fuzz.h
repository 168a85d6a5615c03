/* hetune — what the fuzz targets of fuzz/ share (a test harness, like tests/unit).
 *
 * Each fuzz/fuzz_<target>.c defines LLVMFuzzerTestOneInput. It is linked either with
 * libFuzzer (HETUNE_FUZZ=ON, clang: the fuzzer itself) or with fuzz/driver.c, which feeds
 * it every file of the target's corpus once (the regression test of CTest, label "fuzz").
 */
#ifndef HETUNE_FUZZ_H
#define HETUNE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A private folder made once per process (under $TMPDIR, else /tmp) and removed with its
 * files at exit. Static storage; aborts when it cannot be made, since a target that cannot
 * write its input anywhere tests nothing. */
const char *fuzz_tmpdir(void);

/* Writes data[0..size) to the file name inside fuzz_tmpdir(), replacing it, and returns
 * its path (static storage, overwritten by the next call). Aborts on a write failure. */
const char *fuzz_write_file(const char *name, const uint8_t *data, size_t size);

/* data[0..size) as a NUL-terminated string (malloc'd, owned by the caller; NULL when out of
 * memory). An input holding a NUL byte is cut there, as a C string reader would see it. */
char *fuzz_strndup(const uint8_t *data, size_t size);

#endif
