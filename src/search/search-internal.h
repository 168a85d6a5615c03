/* Internals shared by the search core (search.c), the geometry of a space (geom.c) and the
 * strategies (one file each). Not part of the public API. */
#ifndef HETUNE_SEARCH_INTERNAL_H
#define HETUNE_SEARCH_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "hetune/search.h"
#include "util/util.h"

struct ht_search {
    const struct ht_search_ops *ops;
    struct ht_search_space space;   /* borrowed arrays; over a space drawn from, configs and
                                       count are the table below */
    struct ht_search_opts opts;
    struct ht__rng rng;
    double *cost;                   /* count entries; NAN while unknown */
    size_t known, evaluated;
    size_t npending;                /* proposals in flight (at most opts.max_in_flight) */
    unsigned char *inflight;        /* count entries, 1 for a proposal in flight; made at
                                       the first ht_search_next, when the table is final */
    int has_best;
    size_t best;
    double best_cost;
    int finished;                   /* the strategy said HT_DONE */
    double t_start;
    void *state;                    /* the strategy's */
    /* A space drawn from (space.pruned): the table of configurations, owned. */
    int64_t *table;
    size_t cap;                     /* rows allocated in table and cost */
    int drawn;                      /* the draw was made and the strategy initialised */
    /* A hash index of space.configs by value: index + 1, 0 for empty. Built on the first
     * lookup of a listed space; kept up to date for a table. */
    size_t *hash;
    size_t hmask;
};

/* Whether index is proposed or known: a strategy must not propose it. */
static inline int ht__search_visited(const struct ht_search *s, size_t index)
{
    return (s->inflight && s->inflight[index]) || !isnan(s->cost[index]);
}

/* A uniform integer in [0, n), n > 0, without modulo bias. */
size_t ht__rng_below(struct ht__rng *r, size_t n);

/* Picks a configuration uniformly among those not visited and not refused by skip (NULL:
 * refuses none). Returns 0, or HT_DONE when there is none. */
int ht__search_random_unvisited(struct ht_search *s, int (*skip)(void *user, size_t index),
                                void *user, size_t *out);

/* The geometry of a space, for strategies that move between neighbouring configurations:
 * each parameter's distinct values in increasing order, each configuration as the ranks of
 * its values, and a hash table from ranks to index. */
struct ht__geom {
    size_t count, nparams;
    size_t *nvalues;        /* nparams: distinct values of each parameter */
    uint32_t *ranks;        /* count * nparams */
    double *weight;         /* nparams: 1 / (nvalues - 1), 0 for a single value */
    size_t *table;          /* index + 1, 0 for empty */
    size_t mask;            /* table size - 1 (a power of two) */
};

/* Builds the geometry of space. Returns HT_EINVAL when two configurations are equal (err
 * names them), HT_ENOMEM. On failure g needs no ht__geom_destroy. */
int ht__geom_build(struct ht__geom *g, const struct ht_search_space *space,
                   struct ht_error *err);
void ht__geom_destroy(struct ht__geom *g);

/* The ranks of configuration index (nparams entries). Borrowed from g. */
static inline const uint32_t *ht__geom_ranks(const struct ht__geom *g, size_t index)
{
    return g->ranks + index * g->nparams;
}

/* The configuration whose ranks are ranks. Returns 0, or HT_ENOTFOUND when it is not in
 * the space (it broke a constraint). */
int ht__geom_lookup(const struct ht__geom *g, const uint32_t *ranks, size_t *index);

/* The distance between ranks a and b: the sum over parameters of the rank difference
 * divided by the parameter's number of values less one, so each parameter spans [0, 1]. */
double ht__geom_distance(const struct ht__geom *g, const uint32_t *a, const uint32_t *b);

/* The configuration nearest to ranks among those that skip (NULL: none) does not refuse;
 * ties broken at random with rng. Returns 0, or HT_DONE when every one is refused. */
int ht__geom_nearest(const struct ht__geom *g, const uint32_t *ranks, struct ht__rng *rng,
                     int (*skip)(void *user, size_t index), void *user, size_t *out);

/* The skip callback that refuses visited configurations; user is the struct ht_search. */
int ht__search_skip_visited(void *user, size_t index);

/* The index of the configuration whose values are config, or HT_ENOTFOUND. HT_ENOMEM when
 * the hash index cannot be built. */
int ht__search_lookup(struct ht_search *s, const int64_t *config, size_t *index);

/* Appends config to the table of a space drawn from (its cost unknown), and to the hash
 * index unless hashed is 0 (the caller rebuilds it). Returns 0 or HT_ENOMEM. */
int ht__search_append(struct ht_search *s, const int64_t *config, int hashed);

/* Rebuilds the hash index of the table. Returns 0 or HT_ENOMEM. */
int ht__search_rehash(struct ht_search *s);

/* Makes the draw of the strategy (enum ht_search_draw) from space.pruned: appends to the
 * table what it takes. Returns 0, HT_ENOMEM. (draw.c) */
int ht__search_draw(struct ht_search *s);

/* Rejection sampling gives up after this many tries plus this factor times the number of
 * configurations to draw, and the draw falls back to reservoir sampling over the walk;
 * tests lower them to exercise the fallback. Not thread-safe to change during a draw. */
extern size_t ht__search_reject_min;
extern size_t ht__search_reject_factor;

extern const struct ht_search_ops ht__search_exhaustive;
extern const struct ht_search_ops ht__search_random;
extern const struct ht_search_ops ht__search_genetic;
extern const struct ht_search_ops ht__search_anneal;
extern const struct ht_search_ops ht__search_bayes;

/* --- the search core's counters and the cut rule, for the strategies and session.c's
 * tests (once in search.h) --- */

/* Evaluations of this run: proposals whose result was reported. Pre-seeded results are not
 * counted. */
size_t ht__search_evaluated(const struct ht_search *s);

/* Configurations whose result is known: evaluations plus pre-seeded results. */
size_t ht__search_known(const struct ht_search *s);

/* Proposals in flight: returned by ht_search_next and not reported yet. */
size_t ht__search_in_flight(const struct ht_search *s);

/* Whether to stop repeating a configuration after its first n runs (run times in seconds,
 * n >= 1): 1 when even the fastest of them is more than factor times best_so_far, the
 * statistic of the best configuration so far; 0 otherwise. The fastest run is used so that
 * one slow run (a cold cache, a noisy neighbour) does not cut a good configuration. Never
 * cuts when n is 0, when best_so_far is not a positive finite number (no best yet) or when
 * factor <= 0 (early termination off). The caller records such a configuration as cut,
 * never chooses it as best, and reports it to the search as said at the top of search.h. */
int ht__search_should_cut(const double *runs, size_t n, double best_so_far, double factor);

#endif
