/* The geometry of a search space: parameter values as ranks, a hash table from ranks to
 * configuration, and nearest configurations. The genetic and annealing strategies move in
 * this rank space and map every point they make back to a valid configuration. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search-internal.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static size_t hash_ranks(const struct ht__geom *g, const uint32_t *ranks)
{
    return (size_t)ht__fnv1a(HT__FNV_INIT, ranks, g->nparams * sizeof *ranks);
}

/* The distinct values of parameter p in col, increasing; returns how many. They are kept
 * sorted as they come while they are few (a drawn sample has 2^16 rows and a parameter a
 * handful of values, so this beats sorting the column); past DISTINCT_FEW the column is
 * sorted instead, so a parameter of many values stays O(n log n). */
#define DISTINCT_FEW 256
static size_t distinct_values(const struct ht_search_space *space, size_t p, int64_t *col)
{
    size_t n = space->count, np = space->nparams, nv = 0;

    for (size_t i = 0; i < n && nv <= DISTINCT_FEW; i++) {
        int64_t v = space->configs[i * np + p];
        size_t lo = 0, hi = nv;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (col[mid] < v)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < nv && col[lo] == v)
            continue;
        memmove(col + lo + 1, col + lo, (nv - lo) * sizeof *col);
        col[lo] = v;
        nv++;
    }
    if (nv <= DISTINCT_FEW)
        return nv;
    for (size_t i = 0; i < n; i++)
        col[i] = space->configs[i * np + p];
    qsort(col, n, sizeof *col, cmp_i64);
    nv = 0;
    for (size_t i = 0; i < n; i++)
        if (nv == 0 || col[i] != col[nv - 1])
            col[nv++] = col[i];
    return nv;
}

void ht__geom_destroy(struct ht__geom *g)
{
    free(g->nvalues);
    free(g->ranks);
    free(g->weight);
    free(g->table);
    memset(g, 0, sizeof *g);
}

int ht__geom_build(struct ht__geom *g, const struct ht_search_space *space,
                   struct ht_error *err)
{
    size_t n = space->count, np = space->nparams, tsize = 2;
    int64_t *col = NULL;
    int rc = HT_ENOMEM;

    memset(g, 0, sizeof *g);
    g->count = n;
    g->nparams = np;
    g->nvalues = calloc(np ? np : 1, sizeof *g->nvalues);
    g->weight = calloc(np ? np : 1, sizeof *g->weight);
    g->ranks = malloc((n * np > 0 ? n * np : 1) * sizeof *g->ranks);
    col = malloc((n ? n : 1) * sizeof *col);
    while (tsize < 2 * n)
        tsize *= 2;
    g->table = calloc(tsize, sizeof *g->table);
    g->mask = tsize - 1;
    if (!g->nvalues || !g->weight || !g->ranks || !col || !g->table)
        goto fail;

    for (size_t p = 0; p < np; p++) {
        size_t nv = distinct_values(space, p, col);
        g->nvalues[p] = nv;
        g->weight[p] = nv > 1 ? 1.0 / (double)(nv - 1) : 0.0;
        for (size_t i = 0; i < n; i++) {
            int64_t v = space->configs[i * np + p];
            size_t lo = 0, hi = nv;
            while (hi - lo > 1) {
                size_t mid = lo + (hi - lo) / 2;
                if (col[mid] <= v)
                    lo = mid;
                else
                    hi = mid;
            }
            g->ranks[i * np + p] = (uint32_t)lo;
        }
    }

    for (size_t i = 0; i < n; i++) {
        const uint32_t *r = ht__geom_ranks(g, i);
        size_t h = hash_ranks(g, r) & g->mask;
        while (g->table[h]) {
            size_t j = g->table[h] - 1;
            if (memcmp(ht__geom_ranks(g, j), r, np * sizeof *r) == 0) {
                rc = ht_error_set(err, HT_EINVAL,
                                  "search space has equal configurations %zu and %zu", j, i);
                goto fail;
            }
            h = (h + 1) & g->mask;
        }
        g->table[h] = i + 1;
    }
    free(col);
    return 0;

fail:
    if (rc == HT_ENOMEM)
        ht_error_set(err, HT_ENOMEM, "out of memory");
    free(col);
    ht__geom_destroy(g);
    return rc;
}

int ht__geom_lookup(const struct ht__geom *g, const uint32_t *ranks, size_t *index)
{
    size_t h = hash_ranks(g, ranks) & g->mask;
    while (g->table[h]) {
        size_t j = g->table[h] - 1;
        if (memcmp(ht__geom_ranks(g, j), ranks, g->nparams * sizeof *ranks) == 0) {
            *index = j;
            return 0;
        }
        h = (h + 1) & g->mask;
    }
    return HT_ENOTFOUND;
}

double ht__geom_distance(const struct ht__geom *g, const uint32_t *a, const uint32_t *b)
{
    double d = 0;
    for (size_t p = 0; p < g->nparams; p++)
        d += (a[p] > b[p] ? a[p] - b[p] : b[p] - a[p]) * g->weight[p];
    return d;
}

int ht__geom_nearest(const struct ht__geom *g, const uint32_t *ranks, struct ht__rng *rng,
                     int (*skip)(void *user, size_t index), void *user, size_t *out)
{
    double best = INFINITY;
    size_t ties = 0;

    for (size_t i = 0; i < g->count; i++) {
        if (skip && skip(user, i))
            continue;
        double d = ht__geom_distance(g, ranks, ht__geom_ranks(g, i));
        /* Distances are sums of fractions; treat those within rounding as equal. */
        if (d < best - 1e-9) {
            best = d;
            ties = 1;
            *out = i;
        } else if (d <= best + 1e-9) {
            /* Reservoir sampling: each of the k tied ones is kept with probability 1/k. */
            ties++;
            if (ht__rng_below(rng, ties) == 0)
                *out = i;
        }
    }
    return ties ? 0 : HT_DONE;
}
