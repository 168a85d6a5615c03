/* Simulated annealing with restarts.
 *
 * A step moves from the current configuration to one that differs in one parameter, nearer
 * values more likely (the weight halves with each rank of distance), among those not known
 * yet. A step to the next value that breaks a constraint goes to the nearest valid
 * configuration instead; when no move is left it takes the nearest configuration not known
 * yet. A worse move is accepted with probability exp(-relative increase / T); T starts at
 * sa_temperature and is multiplied by sa_cooling after every step.
 *
 * A run ends after sa_steps evaluations or, when sa_steps is 0, once 2 * nparams + 8
 * evaluations in a row have not improved the run's best while the run stands at its best;
 * standing elsewhere (a hot start wandered off), it goes back to its best and tries again,
 * so every run ends in a local minimum. The next run starts from a random configuration
 * not known yet, which is what gets the search out of a deceptive basin; the search ends
 * after sa_restarts restarts. The first run starts from the best pre-seeded result when
 * there is one, so a resumed search carries on from what it learnt. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search-internal.h"

struct anneal {
    struct ht__geom geom;
    size_t steps_per_run; /* sa_steps, or 0 */
    size_t stall;         /* without sa_steps: a run ends after this many evaluations that
                             do not improve its best */
    size_t run, steps;    /* the current run (0 is the first) and its evaluations */
    size_t since_best;    /* evaluations since the run's best last improved */
    size_t run_best;      /* the run's best configuration and cost */
    double run_best_cost;
    int have_cur;
    size_t cur;
    double cur_cost, T;
    int start_pending;    /* the proposal start_index, in flight, starts a run */
    size_t start_index;
    size_t *tag_index;    /* the proposals in flight and the run each belongs to, */
    size_t *tag_run;      /* max_in_flight entries: a result of a run that has ended */
    size_t ntags, tag_cap;/* teaches the current one nothing */
    size_t *cand;         /* scratch: candidate neighbours and their weights */
    double *w;
    uint32_t *pt;         /* scratch: nparams ranks */
};

static void anneal_destroy(struct ht_search *s)
{
    struct anneal *a = s->state;
    if (!a)
        return;
    ht__geom_destroy(&a->geom);
    free(a->cand);
    free(a->w);
    free(a->pt);
    free(a->tag_index);
    free(a->tag_run);
    free(a);
    s->state = NULL;
}

static int anneal_init(struct ht_search *s, struct ht_error *err)
{
    struct anneal *a = calloc(1, sizeof *a);
    size_t np = s->space.nparams, moves = 0;
    int rc;

    if (!a)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    s->state = a;
    rc = ht__geom_build(&a->geom, &s->space, err);
    if (rc) {
        free(a);
        s->state = NULL;
        return rc;
    }
    for (size_t p = 0; p < np; p++)
        moves += a->geom.nvalues[p] ? a->geom.nvalues[p] - 1 : 0; /* 0 in an empty space */
    a->cand = malloc((moves ? moves : 1) * sizeof *a->cand);
    a->w = malloc((moves ? moves : 1) * sizeof *a->w);
    a->pt = malloc((np ? np : 1) * sizeof *a->pt);
    a->tag_cap = s->opts.max_in_flight > 1 ? s->opts.max_in_flight : 1;
    a->tag_index = malloc(a->tag_cap * sizeof *a->tag_index);
    a->tag_run = malloc(a->tag_cap * sizeof *a->tag_run);
    if (!a->cand || !a->w || !a->pt || !a->tag_index || !a->tag_run) {
        anneal_destroy(s);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    a->steps_per_run = s->opts.sa_steps;
    a->stall = 2 * np + 8;
    return 0;
}

/* A neighbour of the current configuration not known yet, or HT_DONE when none is left. */
static int neighbour(struct ht_search *s, struct anneal *a, size_t *out)
{
    size_t np = a->geom.nparams, n = 0;
    const uint32_t *cur = ht__geom_ranks(&a->geom, a->cur);
    uint32_t dmin = UINT32_MAX;

    memcpy(a->pt, cur, np * sizeof *a->pt);
    for (size_t p = 0; p < np; p++) {
        for (uint32_t r = 0; r < a->geom.nvalues[p]; r++) {
            size_t idx;
            if (r == cur[p])
                continue;
            uint32_t d = r > cur[p] ? r - cur[p] : cur[p] - r;
            int ok;
            a->pt[p] = r;
            if (ht__geom_lookup(&a->geom, a->pt, &idx) == 0)
                ok = !ht__search_visited(s, idx);
            else
                /* A step to the next value that breaks a constraint goes to the nearest
                 * valid configuration not known yet instead, which lets the search slide
                 * along the constraint's edge, where optima often lie. Only next values:
                 * each costs a pass over the space. */
                ok = d == 1 && ht__geom_nearest(&a->geom, a->pt, &s->rng,
                                                ht__search_skip_visited, s, &idx) == 0;
            if (ok) {
                a->cand[n] = idx;
                a->w[n++] = (double)d;
                if (d < dmin)
                    dmin = d;
            }
        }
        a->pt[p] = cur[p];
    }
    if (n == 0)
        return ht__geom_nearest(&a->geom, cur, &s->rng, ht__search_skip_visited, s, out);

    /* Weights relative to the nearest candidate, so far ones underflow, never near ones. */
    double total = 0;
    for (size_t k = 0; k < n; k++) {
        a->w[k] = ldexp(1.0, -(int)fmin(a->w[k] - dmin, 1000.0));
        total += a->w[k];
    }
    double x = ht__rng_double(&s->rng) * total;
    for (size_t k = 0; k < n; k++) {
        if (x < a->w[k]) {
            *out = a->cand[k];
            return 0;
        }
        x -= a->w[k];
    }
    *out = a->cand[n - 1]; /* rounding left x past the last weight */
    return 0;
}

/* Remembers that index, proposed now, belongs to the current run. */
static void tag(struct anneal *a, size_t index)
{
    /* The core never lets more than max_in_flight be in flight. */
    if (a->ntags < a->tag_cap) {
        a->tag_index[a->ntags] = index;
        a->tag_run[a->ntags++] = a->run;
    }
}

/* The run index was proposed in (and forgets it), or SIZE_MAX when it was not tagged. */
static size_t untag(struct anneal *a, size_t index)
{
    for (size_t k = 0; k < a->ntags; k++)
        if (a->tag_index[k] == index) {
            size_t run = a->tag_run[k];
            a->tag_index[k] = a->tag_index[--a->ntags];
            a->tag_run[k] = a->tag_run[a->ntags];
            return run;
        }
    return SIZE_MAX;
}

static int anneal_next(struct ht_search *s, size_t *index)
{
    struct anneal *a = s->state;
    int rc;

    if (a->run > s->opts.sa_restarts)
        return HT_DONE;
    if (!a->have_cur) {
        /* A run moves from its start: it needs the start's result first. */
        if (a->start_pending)
            return HT_BUSY;
        if (a->run == 0 && s->has_best) {
            a->have_cur = 1;
            a->cur = s->best;
            a->cur_cost = s->best_cost;
            a->T = s->opts.sa_temperature;
            a->steps = 0;
            a->since_best = 0;
            a->run_best = a->cur;
            a->run_best_cost = a->cur_cost;
        } else {
            rc = ht__search_random_unvisited(s, NULL, NULL, index);
            if (rc == 0) {
                a->start_pending = 1;
                a->start_index = *index;
                tag(a, *index);
            }
            return rc;
        }
    }
    /* With proposals in flight, the other neighbours of the same current configuration:
     * chosen without the results still to come. */
    rc = neighbour(s, a, index);
    if (rc == 0)
        tag(a, *index);
    return rc;
}

static int accept(struct ht_search *s, struct anneal *a, double cost)
{
    if (cost <= a->cur_cost)
        return 1;
    if (!isfinite(cost))
        return 0;
    if (!isfinite(a->cur_cost))
        return 1;
    double rise = a->cur_cost > 0 ? (cost - a->cur_cost) / a->cur_cost : cost - a->cur_cost;
    double p = a->T > 0 ? exp(-rise / a->T) : 0.0;
    return ht__rng_double(&s->rng) < p;
}

static void anneal_report(struct ht_search *s, size_t index, double cost)
{
    struct anneal *a = s->state;
    size_t run = untag(a, index);

    if (a->start_pending && index == a->start_index) {
        a->start_pending = 0;
        a->have_cur = 1;
        a->cur = index;
        a->cur_cost = cost;
        a->T = s->opts.sa_temperature;
        a->steps = 1;
        a->since_best = 0;
        a->run_best = index;
        a->run_best_cost = cost;
    } else if (run != a->run || !a->have_cur) {
        return; /* a neighbour proposed in a run that has ended since */
    } else {
        if (accept(s, a, cost)) {
            a->cur = index;
            a->cur_cost = cost;
        }
        a->steps++;
        a->T *= s->opts.sa_cooling;
        if (cost < a->run_best_cost) {
            a->run_best = index;
            a->run_best_cost = cost;
            a->since_best = 0;
        } else {
            a->since_best++;
        }
    }
    if (!a->steps_per_run && a->since_best >= a->stall && a->cur != a->run_best) {
        /* Stalled away from the run's best, where a hot start wandered off: go back there
         * and give the neighbourhood of the best another chance before ending the run. */
        a->cur = a->run_best;
        a->cur_cost = a->run_best_cost;
        a->since_best = 0;
    }
    if (a->steps_per_run ? a->steps >= a->steps_per_run : a->since_best >= a->stall) {
        a->run++;
        a->have_cur = 0;
    }
}

const struct ht_search_ops ht__search_anneal = {
    .name = "anneal",
    .description = "simulated annealing over one-parameter moves, with random restarts",
    .init = anneal_init,
    .next = anneal_next,
    .report = anneal_report,
    .destroy = anneal_destroy,
    .draw = HT_SEARCH_DRAW_SAMPLE,
    .lookahead = 1,
};
