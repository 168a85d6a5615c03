/* hetune — internals shared by the space backends (enumerate.c, minizinc.c) and the
 * listing (format.c). Not part of the public API. */
#ifndef HETUNE_SPACE_ENUM_INTERNAL_H
#define HETUNE_SPACE_ENUM_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "hetune/space.h"

/* The backends' ops tables, collected in ht_space_backends[] (enumerate.c). */
extern const struct ht_space_backend_ops ht__space_backend_native;
extern const struct ht_space_backend_ops ht__space_backend_minizinc;

/* Fills counts->last_constraint and counts->empty_reason for a space whose pruned size is
 * 0 (platform says whether the platform rules alone left any), using the native
 * enumerator: the first rule, in ht_space_check's order, after which nothing is left.
 * Returns 0 or HT_ENOMEM. */
int ht__space_explain_empty(const struct ht_space *s, uint64_t platform,
                            struct ht_space_counts *counts);

/* Sets counts' texts (unpruned_text from s's domains, exact up to 2^128; platform_text
 * and pruned_text from counts->platform and counts->pruned) and counts->approximate. */
void ht__space_counts_text(const struct ht_space *s, struct ht_space_counts *counts);

/* The unpruned size, the paper's Table 1: the product of the domain sizes. A double
 * because it can pass 2^64; exact up to 2^53. */
double ht__space_count_unpruned(const struct ht_space *s);

/* Writes config (n values) to f in decimal, separated by single spaces, without a
 * newline: what printf's "%" PRId64 would write, faster (the listing's line). Returns 0,
 * or HT_EIO when writing fails. */
int ht__space_print_config(FILE *f, const int64_t *config, size_t n);

/* Spaces whose filtered domains hold fewer points than this are ordered greedily, larger
 * ones by expected cost (default 1e6). Tests set it to 0 to exercise the cost-based order
 * on small spaces; not thread-safe to change while spaces are being created. */
extern double ht__space_cost_order_min_points;

/* Rules over parameters whose domains hold at most this many points together are
 * tabulated (support tables, default 2^20); tests set it to 0 to exercise the partial
 * bounds of sums of products on small spaces. Not thread-safe to change while spaces are
 * being created. */
extern uint64_t ht__space_support_max_points;

#endif
