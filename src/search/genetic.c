/* Genetic search, after OCLoptimizer (Fabeiro et al., Sec. 2.1): a chromosome has one gene
 * per tuning parameter; the best individuals produce the next generation by crossover and
 * mutation; the search stops when the best time has not improved for ga_patience
 * generations (three in the paper).
 *
 * Genes are ranks of parameter values (see geom.c), so crossover and mutation never leave
 * the parameters' domains, but a child can still break a constraint: it then becomes the
 * nearest valid configuration. A child that is already known (evaluated, pre-seeded or
 * already in its generation) is mutated again a few times and, failing that, replaced by
 * the nearest configuration not known yet, so every generation spends its evaluations on
 * new configurations and the search is never stuck proposing nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search-internal.h"

#define RETRIES 4

struct genetic {
    struct ht__geom geom;
    size_t P, E;          /* population and elite sizes, capped by the space */
    size_t *gen, ngen;    /* the current generation */
    size_t *next, nnext;  /* the one being bred */
    size_t qpos;          /* gen[0..qpos) proposed or known */
    size_t *order;        /* scratch: gen sorted by cost */
    uint32_t *child;      /* scratch: nparams ranks */
    int started;
    size_t stale;         /* generations without improvement */
    int had_best;
    double gen_start_best;
    struct ht_search *s;  /* for the sort's comparison and skip callbacks */
};

static void genetic_destroy(struct ht_search *s)
{
    struct genetic *g = s->state;
    if (!g)
        return;
    ht__geom_destroy(&g->geom);
    free(g->gen);
    free(g->next);
    free(g->order);
    free(g->child);
    free(g);
    s->state = NULL;
}

static int genetic_init(struct ht_search *s, struct ht_error *err)
{
    struct genetic *g = calloc(1, sizeof *g);
    size_t np = s->space.nparams;
    int rc;

    if (!g)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    s->state = g;
    g->s = s;
    rc = ht__geom_build(&g->geom, &s->space, err);
    if (rc) {
        free(g);
        s->state = NULL;
        return rc;
    }
    g->P = s->opts.ga_population < s->space.count ? s->opts.ga_population : s->space.count;
    g->E = s->opts.ga_elite < g->P ? s->opts.ga_elite : (g->P ? g->P - 1 : 0);
    g->gen = malloc((g->P ? g->P : 1) * sizeof *g->gen);
    g->next = malloc((g->P ? g->P : 1) * sizeof *g->next);
    g->order = malloc((g->P ? g->P : 1) * sizeof *g->order);
    g->child = malloc((np ? np : 1) * sizeof *g->child);
    if (!g->gen || !g->next || !g->order || !g->child) {
        genetic_destroy(s);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    return 0;
}

static int in_list(const size_t *list, size_t n, size_t index)
{
    for (size_t k = 0; k < n; k++)
        if (list[k] == index)
            return 1;
    return 0;
}

/* Refuses what the search knows and what the generation being bred already holds. */
static int skip_known_or_next(void *user, size_t index)
{
    struct genetic *g = user;
    return ht__search_visited(g->s, index) || in_list(g->next, g->nnext, index);
}

static int skip_known_or_gen(void *user, size_t index)
{
    struct genetic *g = user;
    return ht__search_visited(g->s, index) || in_list(g->gen, g->ngen, index);
}

/* Orders by cost, failures (INFINITY) last, then by index so the order is total. */
static int cmp_cost(const struct ht_search *s, size_t a, size_t b)
{
    double ca = s->cost[a], cb = s->cost[b];
    if (ca < cb)
        return -1;
    if (ca > cb)
        return 1;
    return (a > b) - (a < b);
}

static void sort_by_cost(const struct ht_search *s, size_t *v, size_t n)
{
    /* Insertion sort: n is a population, or the handful of pre-seeded results kept. */
    for (size_t i = 1; i < n; i++) {
        size_t x = v[i], j = i;
        while (j > 0 && cmp_cost(s, x, v[j - 1]) < 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* The first generation: the best pre-seeded results (up to half of it, so a resumed
 * search starts from what it learnt) and random configurations not known yet. */
static void first_generation(struct ht_search *s, struct genetic *g)
{
    size_t keep = g->P / 2;

    g->ngen = 0;
    for (size_t i = 0; i < s->space.count && keep > 0; i++) {
        if (!isfinite(s->cost[i])) /* unknown (NaN) or failed */
            continue;
        if (g->ngen < keep) {
            g->gen[g->ngen++] = i;
            sort_by_cost(s, g->gen, g->ngen);
        } else if (cmp_cost(s, i, g->gen[keep - 1]) < 0) {
            g->gen[keep - 1] = i;
            sort_by_cost(s, g->gen, g->ngen);
        }
    }
    while (g->ngen < g->P) {
        size_t i;
        if (ht__search_random_unvisited(s, skip_known_or_gen, g, &i))
            break;
        g->gen[g->ngen++] = i;
    }
}

static size_t tournament(struct ht_search *s, struct genetic *g)
{
    size_t best = g->gen[ht__rng_below(&s->rng, g->ngen)];
    for (size_t k = 1; k < s->opts.ga_tournament; k++) {
        size_t c = g->gen[ht__rng_below(&s->rng, g->ngen)];
        if (cmp_cost(s, c, best) < 0)
            best = c;
    }
    return best;
}

/* Another rank than r among nv > 1: half the time any other, uniformly, which explores;
 * half the time a step of 1, 2, 4... ranks (each half as likely as the one before) up or
 * down, which refines a good individual the way a plain uniform mutation rarely does. */
static uint32_t mutate_gene(struct ht_search *s, uint32_t r, size_t nv)
{
    if (ht__rng_next(&s->rng) >> 63) {
        uint32_t x = (uint32_t)ht__rng_below(&s->rng, nv - 1);
        return x >= r ? x + 1 : x;
    }
    uint64_t step = 1;
    while (step < nv && (ht__rng_next(&s->rng) >> 63))
        step *= 2;
    int up = (int)(ht__rng_next(&s->rng) >> 63);
    if (up ? r + step >= nv : step > r)
        up = !up;
    if (up)
        return r + step < nv ? (uint32_t)(r + step) : (uint32_t)(nv - 1);
    return step <= r ? (uint32_t)(r - step) : 0;
}

/* Replaces one gene, chosen at random among the parameters with more than one value, by
 * another value of that parameter. */
static void mutate_one(struct ht_search *s, struct genetic *g)
{
    size_t np = g->geom.nparams, choices = 0, pick;
    for (size_t p = 0; p < np; p++)
        choices += g->geom.nvalues[p] > 1;
    if (!choices)
        return;
    pick = ht__rng_below(&s->rng, choices);
    for (size_t p = 0; p < np; p++) {
        size_t nv = g->geom.nvalues[p];
        if (nv < 2 || pick--)
            continue;
        g->child[p] = mutate_gene(s, g->child[p], nv);
        return;
    }
}

/* One child of two parents: uniform crossover, then each gene mutates with probability
 * ga_mutation. Returns 0 with the child's index, or HT_DONE when no new configuration is
 * left to make it. */
static int make_child(struct ht_search *s, struct genetic *g, size_t *out)
{
    size_t np = g->geom.nparams, a = tournament(s, g), b = tournament(s, g), c = 0;
    const uint32_t *ra = ht__geom_ranks(&g->geom, a), *rb = ht__geom_ranks(&g->geom, b);

    for (size_t p = 0; p < np; p++) {
        g->child[p] = (ht__rng_next(&s->rng) >> 63) ? ra[p] : rb[p];
        size_t nv = g->geom.nvalues[p];
        if (nv > 1 && ht__rng_double(&s->rng) < s->opts.ga_mutation) {
            g->child[p] = mutate_gene(s, g->child[p], nv);
        }
    }
    for (int tries = 0; tries <= RETRIES; tries++) {
        if (tries > 0)
            mutate_one(s, g);
        if (ht__geom_lookup(&g->geom, g->child, &c) &&
            ht__geom_nearest(&g->geom, g->child, &s->rng, NULL, NULL, &c))
            return HT_DONE; /* an empty space; not reached, the core stops first */
        if (!skip_known_or_next(g, c)) {
            *out = c;
            return 0;
        }
    }
    return ht__geom_nearest(&g->geom, g->child, &s->rng, skip_known_or_next, g, out);
}

/* The next generation: the ga_elite best of the current one, then children. */
static void breed(struct ht_search *s, struct genetic *g)
{
    if (g->ngen == 0) {
        /* Nothing to breed from (every child was refused): start afresh. */
        first_generation(s, g);
        return;
    }
    memcpy(g->order, g->gen, g->ngen * sizeof *g->order);
    sort_by_cost(s, g->order, g->ngen);
    g->nnext = 0;
    for (size_t k = 0; k < g->E && k < g->ngen; k++)
        g->next[g->nnext++] = g->order[k];
    while (g->nnext < g->P) {
        size_t c;
        if (make_child(s, g, &c))
            break;
        g->next[g->nnext++] = c;
    }
    size_t *t = g->gen;
    g->gen = g->next;
    g->ngen = g->nnext;
    g->next = t;
    g->nnext = 0;
}

static int genetic_next(struct ht_search *s, size_t *index)
{
    struct genetic *g = s->state;

    for (;;) {
        while (g->qpos < g->ngen) {
            size_t i = g->gen[g->qpos++];
            if (!ht__search_visited(s, i)) {
                *index = i;
                return 0;
            }
        }
        /* Breeding reads every member's cost: with proposals in flight, wait for them,
         * so that the generations are those of one proposal at a time. */
        for (size_t k = 0; k < g->ngen; k++)
            if (isnan(s->cost[g->gen[k]]))
                return HT_BUSY;
        /* The generation is complete: every member's cost is known. */
        if (g->started) {
            int improved = s->has_best && (!g->had_best || s->best_cost < g->gen_start_best);
            if (improved)
                g->stale = 0;
            else if (++g->stale >= s->opts.ga_patience)
                return HT_DONE;
        }
        if (g->started)
            breed(s, g);
        else
            first_generation(s, g);
        g->started = 1;
        g->had_best = s->has_best;
        g->gen_start_best = s->best_cost;
        g->qpos = 0;
    }
}

static void genetic_report(struct ht_search *s, size_t index, double cost)
{
    /* Costs live in the core's table, where breeding reads them. */
    (void)s;
    (void)index;
    (void)cost;
}

const struct ht_search_ops ht__search_genetic = {
    .name = "genetic",
    .description = "genetic algorithm; stops after ga_patience generations without "
                   "improvement (OCLoptimizer)",
    .init = genetic_init,
    .next = genetic_next,
    .report = genetic_report,
    .destroy = genetic_destroy,
    .draw = HT_SEARCH_DRAW_SAMPLE,
    .lookahead = 1,
};
