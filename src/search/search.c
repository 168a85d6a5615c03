/* The search core: the strategy registry, the bookkeeping every strategy shares (known
 * results, the proposals in flight, best, budget, time limit), the table and hash index of
 * the configurations of a space drawn from, and early termination. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/space.h"
#include "search-internal.h"

const struct ht_search_ops *const ht_search_strategies[] = {
    &ht__search_exhaustive,
    &ht__search_random,
    &ht__search_genetic,
    &ht__search_anneal,
    &ht__search_bayes,
    NULL,
};

void ht_search_opts_init(struct ht_search_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->ga_population = 20;
    opts->ga_elite = 2;
    opts->ga_tournament = 5;
    opts->ga_mutation = 0.05;
    opts->ga_patience = 20;
    opts->sa_temperature = 0.5;
    opts->sa_cooling = 0.9;
    opts->sa_restarts = 8;
    opts->bo_trees = 24;
    opts->bo_candidates = 1024;
}

const struct ht_search_ops *ht_search_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; ht_search_strategies[i]; i++)
        if (strcmp(ht_search_strategies[i]->name, name) == 0)
            return ht_search_strategies[i];
    return NULL;
}

size_t ht__rng_below(struct ht__rng *r, size_t n)
{
    /* Reject the top partial block of 2^64 so every value is equally likely. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % (uint64_t)n;
    uint64_t x;
    do
        x = ht__rng_next(r);
    while (x >= limit);
    return (size_t)(x % (uint64_t)n);
}

int ht__search_skip_visited(void *user, size_t index)
{
    return ht__search_visited(user, index);
}

int ht__search_random_unvisited(struct ht_search *s, int (*skip)(void *user, size_t index),
                                void *user, size_t *out)
{
    size_t n = s->space.count;
    if (n == 0)
        return HT_DONE;
    /* Rejection sampling is uniform and fast while few are refused; a scan from a random
     * start always ends, at the price of favouring those after long refused runs. */
    for (int tries = 0; tries < 64; tries++) {
        size_t i = ht__rng_below(&s->rng, n);
        if (!ht__search_visited(s, i) && !(skip && skip(user, i))) {
            *out = i;
            return 0;
        }
    }
    size_t start = ht__rng_below(&s->rng, n);
    for (size_t k = 0; k < n; k++) {
        size_t i = (start + k) % n;
        if (!ht__search_visited(s, i) && !(skip && skip(user, i))) {
            *out = i;
            return 0;
        }
    }
    return HT_DONE;
}

static size_t hash_config(const struct ht_search *s, const int64_t *config)
{
    return (size_t)ht__fnv1a(HT__FNV_INIT, config, s->space.nparams * sizeof *config);
}

static int same_config(const struct ht_search *s, size_t index, const int64_t *config)
{
    return memcmp(s->space.configs + index * s->space.nparams, config,
                  s->space.nparams * sizeof *config) == 0;
}

/* Inserts index unless an equal configuration is there already (a listed space may hold
 * duplicates; the first one is found). */
static void hash_insert(struct ht_search *s, size_t index)
{
    const int64_t *c = s->space.configs + index * s->space.nparams;
    size_t h = hash_config(s, c) & s->hmask;
    while (s->hash[h]) {
        if (same_config(s, s->hash[h] - 1, c))
            return;
        h = (h + 1) & s->hmask;
    }
    s->hash[h] = index + 1;
}

int ht__search_rehash(struct ht_search *s)
{
    size_t size = 16, *grown;
    while (size < 2 * s->space.count + 2)
        size *= 2;
    grown = calloc(size, sizeof *grown);
    if (!grown)
        return HT_ENOMEM;
    free(s->hash);
    s->hash = grown;
    s->hmask = size - 1;
    for (size_t i = 0; i < s->space.count; i++)
        hash_insert(s, i);
    return 0;
}

int ht__search_lookup(struct ht_search *s, const int64_t *config, size_t *index)
{
    int rc;
    if (s->space.count == 0)
        return HT_ENOTFOUND;
    if (!s->hash && (rc = ht__search_rehash(s)) != 0)
        return rc;
    for (size_t h = hash_config(s, config) & s->hmask; s->hash[h]; h = (h + 1) & s->hmask)
        if (same_config(s, s->hash[h] - 1, config)) {
            *index = s->hash[h] - 1;
            return 0;
        }
    return HT_ENOTFOUND;
}

int ht__search_append(struct ht_search *s, const int64_t *config, int hashed)
{
    size_t np = s->space.nparams, row = np ? np : 1, n = s->space.count;

    if (n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        int64_t *t = realloc(s->table, cap * row * sizeof *t);
        if (!t)
            return HT_ENOMEM;
        s->table = t;
        double *c = realloc(s->cost, cap * sizeof *c);
        if (!c)
            return HT_ENOMEM;
        s->cost = c;
        s->cap = cap;
    }
    memcpy(s->table + n * np, config, np * sizeof *config);
    s->cost[n] = NAN;
    s->space.configs = s->table;
    s->space.count = n + 1;
    if (!hashed)
        return 0;
    if (!s->hash || 2 * s->space.count + 2 > s->hmask + 1)
        return ht__search_rehash(s);
    hash_insert(s, n);
    return 0;
}

static int check_opts(const struct ht_search_opts *o, struct ht_error *err)
{
    const char *field = NULL, *why = NULL;
    if (!(o->time_limit_s >= 0))
        field = "time_limit_s", why = "must be >= 0";
    else if (o->ga_population < 2)
        field = "ga_population", why = "must be at least 2";
    else if (o->ga_elite >= o->ga_population)
        field = "ga_elite", why = "must be less than ga_population";
    else if (o->ga_tournament < 1)
        field = "ga_tournament", why = "must be at least 1";
    else if (!(o->ga_mutation >= 0 && o->ga_mutation <= 1))
        field = "ga_mutation", why = "must be in [0, 1]";
    else if (o->ga_patience < 1)
        field = "ga_patience", why = "must be at least 1";
    else if (!(o->sa_temperature >= 0) || isinf(o->sa_temperature))
        field = "sa_temperature", why = "must be a finite number >= 0";
    else if (!(o->sa_cooling > 0 && o->sa_cooling <= 1))
        field = "sa_cooling", why = "must be in (0, 1]";
    else if (o->bo_trees < 1 || o->bo_trees > 1024)
        field = "bo_trees", why = "must be in [1, 1024]";
    else if (o->bo_candidates < 1)
        field = "bo_candidates", why = "must be at least 1";
    if (!field)
        return 0;
    if (err && !err->code)
        snprintf(err->field, sizeof err->field, "%s", field);
    return ht_error_set(err, HT_EINVAL, "search option %s %s", field, why);
}

int ht_search_create(const char *strategy, const struct ht_search_space *space,
                     const struct ht_search_opts *opts, struct ht_search **out,
                     struct ht_error *err)
{
    struct ht_search *s = NULL;
    int rc;

    if (!strategy || !space || !out)
        return ht_error_set(err, HT_EINVAL, "ht_search_create: %s is NULL",
                            !strategy ? "strategy" : !space ? "space" : "out");
    *out = NULL;
    const struct ht_search_ops *ops = ht_search_find(strategy);
    if (!ops) {
        char names[256] = "";
        size_t len = 0;
        for (size_t i = 0; ht_search_strategies[i] && len < sizeof names; i++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                                    ht_search_strategies[i]->name);
        return ht_error_set(err, HT_EINVAL, "unknown search strategy '%s' (available: %s)",
                            strategy, names);
    }
    if (space->pruned) {
        size_t np = ht_space_get_def(space->pruned)->nparams;
        if (space->count || space->configs)
            return ht_error_set(err, HT_EINVAL,
                                "search space with both a list of configurations and a "
                                "space to draw from");
        if (space->nparams != np)
            return ht_error_set(err, HT_EINVAL,
                                "search space of %zu parameters over a space of %zu",
                                space->nparams, np);
    } else if (space->count > 0 && space->nparams > 0 && !space->configs)
        return ht_error_set(err, HT_EINVAL, "search space of %zu configurations without values",
                            space->count);

    s = calloc(1, sizeof *s);
    if (!s)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    s->ops = ops;
    s->space = *space;
    if (opts)
        s->opts = *opts;
    else
        ht_search_opts_init(&s->opts);
    rc = check_opts(&s->opts, err);
    if (rc)
        goto fail;
    ht__rng_seed(&s->rng, s->opts.seed);
    s->cost = malloc((space->count ? space->count : 1) * sizeof *s->cost);
    if (!s->cost) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < space->count; i++)
        s->cost[i] = NAN;
    s->best_cost = INFINITY;
    /* Over a space drawn from, the strategy starts once the draw is made (the first
     * ht_search_next), so that it sees the configurations reported before. */
    rc = space->pruned ? 0 : ops->init(s, err);
    if (rc)
        goto fail; /* a strategy that fails to init frees what it took */
    s->t_start = s->opts.now ? s->opts.now(s->opts.now_user) : ht__now();
    *out = s;
    return 0;

fail:
    free(s->cost);
    free(s);
    return rc;
}

void ht_search_free(struct ht_search *s)
{
    if (!s)
        return;
    if (s->ops && s->ops->destroy)
        s->ops->destroy(s);
    free(s->cost);
    free(s->table);
    free(s->hash);
    free(s->inflight);
    free(s);
}

const char *ht_search_name(const struct ht_search *s)
{
    return s ? s->ops->name : NULL;
}

int ht_search_next(struct ht_search *s, size_t *index)
{
    size_t i, k;
    int rc;

    if (!s || !index)
        return HT_EINVAL;
    k = s->opts.max_in_flight > 1 ? s->opts.max_in_flight : 1;
    if (s->npending >= k)
        return HT_EINVAL;
    if (s->finished)
        return HT_DONE;
    /* Those in flight count, so that at most budget are evaluated. */
    if (s->opts.budget && s->evaluated + s->npending >= s->opts.budget)
        return HT_DONE;
    if (s->opts.time_limit_s > 0) {
        double t = s->opts.now ? s->opts.now(s->opts.now_user) : ht__now();
        if (t - s->t_start >= s->opts.time_limit_s)
            return HT_DONE;
    }
    if (s->space.pruned && !s->drawn) {
        if ((rc = ht__search_draw(s)) != 0)
            return rc;
        if ((rc = s->ops->init(s, NULL)) != 0) {
            s->finished = 1;
            return rc;
        }
        s->drawn = 1;
    }
    if (s->known + s->npending >= s->space.count)
        return HT_DONE;
    if (s->npending && !s->ops->lookahead)
        return HT_BUSY;
    /* The table is final from here on (search.h): one mark per row. */
    if (!s->inflight && !(s->inflight = calloc(s->space.count ? s->space.count : 1, 1)))
        return HT_ENOMEM;
    rc = s->ops->next(s, &i);
    if (rc == HT_DONE) {
        s->finished = 1;
        return HT_DONE;
    }
    /* Waiting with nothing in flight would wait forever: a broken strategy. */
    if (rc == HT_BUSY && !s->npending) {
        s->finished = 1;
        return HT_EINVAL;
    }
    if (rc)
        return rc;
    /* A strategy that proposes a known configuration is broken; refuse rather than let
     * the caller measure it twice. */
    if (i >= s->space.count || ht__search_visited(s, i)) {
        s->finished = 1;
        return HT_EINVAL;
    }
    s->inflight[i] = 1;
    s->npending++;
    *index = i;
    return 0;
}

int ht_search_report(struct ht_search *s, size_t index, double cost)
{
    if (!s || index >= s->space.count || !isnan(s->cost[index]))
        return HT_EINVAL;
    if (isnan(cost))
        cost = INFINITY;
    s->cost[index] = cost;
    s->known++;
    if (isfinite(cost) && (!s->has_best || cost < s->best_cost)) {
        s->has_best = 1;
        s->best = index;
        s->best_cost = cost;
    }
    if (s->inflight && s->inflight[index]) {
        s->inflight[index] = 0;
        s->npending--;
        s->evaluated++;
        s->ops->report(s, index, cost);
    }
    return 0;
}

int ht_search_report_config(struct ht_search *s, const int64_t *config, double cost,
                            size_t *index)
{
    const struct ht_space *sp;
    size_t i = 0;
    int rc;

    if (!s || !config)
        return HT_EINVAL;
    sp = s->space.pruned;
    rc = ht__search_lookup(s, config, &i);
    if (rc == HT_ENOTFOUND && sp && !s->drawn) {
        /* ht_space_check accepts exactly the configurations the walk visits. */
        if (ht_space_check(ht_space_get_def(sp), ht_space_get_device(sp), config,
                           ht_space_get_eq3(sp), NULL) != HT_OK)
            return HT_ENOTFOUND;
        rc = ht__search_append(s, config, 1);
        i = s->space.count - 1;
    }
    if (rc)
        return rc;
    if (index)
        *index = i;
    return ht_search_report(s, i, cost);
}

const int64_t *ht_search_config(const struct ht_search *s, size_t index)
{
    if (!s || index >= s->space.count)
        return NULL;
    return s->space.configs + index * s->space.nparams;
}

int ht_search_best(const struct ht_search *s, size_t *index, double *cost)
{
    if (!s)
        return HT_EINVAL;
    if (!s->has_best)
        return HT_ENOTFOUND;
    if (index)
        *index = s->best;
    if (cost)
        *cost = s->best_cost;
    return 0;
}

size_t ht__search_evaluated(const struct ht_search *s)
{
    return s->evaluated;
}

size_t ht__search_known(const struct ht_search *s)
{
    return s->known;
}

size_t ht__search_in_flight(const struct ht_search *s)
{
    return s->npending;
}

int ht__search_should_cut(const double *runs, size_t n, double best_so_far, double factor)
{
    if (n == 0 || !runs || !(factor > 0) || !isfinite(best_so_far) || !(best_so_far > 0))
        return 0;
    double fastest = runs[0];
    for (size_t i = 1; i < n; i++)
        if (runs[i] < fastest)
            fastest = runs[i];
    /* NaN runs compare false everywhere: a run that produced no time cuts nothing. */
    return fastest > factor * best_so_far;
}
