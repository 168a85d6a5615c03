/* hetune — the util module's public part beyond errors (error.h): how hetune writes times
 * and sizes for people. Every module and program may use it; it uses nothing but the C
 * library. */
#ifndef HETUNE_UTIL_PUBLIC_H
#define HETUNE_UTIL_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes seconds s into buf (size bytes, always terminated) with a unit that keeps three or
 * four significant digits: "12.34 us", "1.234 ms", "2.500 s"; "-" when s is negative or not
 * finite (unknown). The form of every time in the report's text and hetune's output. A
 * NULL buf: nothing. */
void ht_format_seconds(double s, char *buf, size_t size);

/* Writes bytes in binary units into buf (size bytes, cut to fit), one decimal when it is
 * not a whole number: "512 B", "256 KiB", "15.5 GiB". A NULL buf: nothing. */
void ht_format_bytes(uint64_t bytes, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
