/* Drawing from a space too large to list (ht_search_space.pruned): what a strategy takes
 * at its first proposal, appended to the search's table after the configurations reported
 * before, which are left out.
 *
 * HT_SEARCH_DRAW_WALK streams the space's walk and stops it once it has enough.
 *
 * The uniform draws are rejection sampling: a point of the product of the parameters'
 * domains, each value uniform in its domain, is kept when ht_space_check accepts it (the
 * same set the walk visits) and it is neither known nor drawn already. Every valid
 * configuration is equally likely at every try, so the kept ones are a uniform sample
 * without replacement; a try costs one check, and memory holds only what is kept. When
 * the valid fraction is tiny, tries are wasted: after ht__search_reject_min tries plus
 * ht__search_reject_factor per configuration wanted, the draw starts again by rank when
 * the space holds more than twice the rows known and wanted: a uniform rank below the
 * number of valid configurations is unranked (ht_space_unrank, over the counting plan's
 * cached subtree counts), which costs a count of the space and a descent a draw, never a
 * walk of every configuration. A smaller space is drawn by reservoir sampling over one
 * walk of it (Vitter's algorithm R: the i-th valid configuration not known replaces a
 * kept one with probability want / i), which is uniform too and holds only the sample.
 * Each branch gives a uniform sample on its own, so their mixture does. */
#include <stdlib.h>
#include <string.h>

#include "hetune/space.h"
#include "search-internal.h"

size_t ht__search_reject_min = 65536;
size_t ht__search_reject_factor = 64;

/* A uniform integer in [0, n), n > 0, without modulo bias (domains pass 2^32). */
static uint64_t below64(struct ht__rng *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
    do
        x = ht__rng_next(r);
    while (x >= limit);
    return x % n;
}

struct draw {
    struct ht_search *s;
    size_t base, want; /* rows before the draw; rows to add */
    uint64_t seen;     /* reservoir: valid configurations not known, so far */
    int rc;
};

static int walk_cb(const int64_t *config, void *user)
{
    struct draw *d = user;
    size_t i;
    int rc = ht__search_lookup(d->s, config, &i);

    if (rc == 0)
        return 0; /* reported before */
    if (rc != HT_ENOTFOUND || (rc = ht__search_append(d->s, config, 1)) != 0) {
        d->rc = rc;
        return 1;
    }
    return d->s->space.count - d->base >= d->want; /* positive: the walk stops */
}

static int reservoir_cb(const int64_t *config, void *user)
{
    struct draw *d = user;
    struct ht_search *s = d->s;
    size_t i, np = s->space.nparams;
    int rc = ht__search_lookup(s, config, &i); /* the index holds the rows before only */

    if (rc == 0)
        return 0;
    if (rc != HT_ENOTFOUND) {
        d->rc = rc;
        return 1;
    }
    d->seen++;
    if (s->space.count - d->base < d->want) {
        if ((d->rc = ht__search_append(s, config, 0)) != 0)
            return 1;
        return 0;
    }
    uint64_t j = below64(&s->rng, d->seen);
    if (j < d->want)
        memcpy(s->table + (d->base + (size_t)j) * np, config, np * sizeof *config);
    return 0;
}

/* Draws by rank: a uniform rank below the count of valid configurations, unranked
 * (ht_space_unrank); one known or drawn already is drawn again. Each kept configuration
 * is uniform over the valid ones not known and not kept. Used when the space holds more
 * than twice the rows known and wanted, so that fewer than half the draws repeat. Returns
 * 0 (done), 1 (the space is too small for it: walk it instead) or an HT_E... code. */
static int draw_ranks(struct draw *d, int64_t *point)
{
    struct ht_search *s = d->s;
    struct ht_space_ranker *r = NULL;
    size_t i;
    int rc = ht_space_ranker_create(s->space.pruned, &r);

    if (rc == HT_EOVERFLOW)
        return 1; /* 2^64 or more: not reached by the fallback of rejection sampling */
    if (rc != 0)
        return rc;
    if (ht_space_ranker_count(r) / 2 <= d->base + d->want) {
        ht_space_ranker_free(r);
        return 1;
    }
    while (rc == 0 && s->space.count - d->base < d->want) {
        if ((rc = ht_space_unrank(r, below64(&s->rng, ht_space_ranker_count(r)), point)))
            break;
        rc = ht__search_lookup(s, point, &i);
        if (rc == HT_ENOTFOUND)
            rc = ht__search_append(s, point, 1);
    }
    ht_space_ranker_free(r);
    return rc;
}

static int draw_uniform(struct draw *d)
{
    struct ht_search *s = d->s;
    const struct ht_space *sp = s->space.pruned;
    const struct ht_space_def *def = ht_space_get_def(sp);
    const struct ht_device_info *dev = ht_space_get_device(sp);
    enum ht_eq3 eq3 = ht_space_get_eq3(sp);
    size_t np = s->space.nparams, tries, i;
    int64_t *point = malloc((np ? np : 1) * sizeof *point);
    int rc = 0;

    if (!point)
        return HT_ENOMEM;
    tries = ht__search_reject_factor && d->want > (SIZE_MAX - ht__search_reject_min) /
                                                     ht__search_reject_factor
                ? SIZE_MAX
                : ht__search_reject_min + ht__search_reject_factor * d->want;
    for (size_t t = 0; t < tries && s->space.count - d->base < d->want; t++) {
        for (size_t p = 0; p < np; p++)
            point[p] = ht_space_domain_value(sp, p,
                                             below64(&s->rng, ht_space_domain_size(sp, p)));
        if (ht_space_check(def, dev, point, eq3, NULL) != HT_OK)
            continue;
        rc = ht__search_lookup(s, point, &i);
        if (rc == 0)
            continue;
        if (rc != HT_ENOTFOUND || (rc = ht__search_append(s, point, 1)) != 0)
            goto done;
        rc = 0;
    }
    if (s->space.count - d->base >= d->want)
        goto done;

    /* Too few kept: the valid fraction is tiny (or the space holds fewer than want).
     * Start again, with the index holding the rows before only: by rank when the space
     * is much larger than what is wanted, else over the walk. */
    s->space.count = d->base;
    if ((rc = ht__search_rehash(s)) != 0)
        goto done;
    if ((rc = draw_ranks(d, point)) <= 0)
        goto done;
    rc = ht_space_foreach(sp, reservoir_cb, d);
    if (rc > 0)
        rc = d->rc;
    if (rc == 0)
        rc = ht__search_rehash(s);

done:
    free(point);
    return rc;
}

int ht__search_draw(struct ht_search *s)
{
    size_t budget = s->opts.budget;
    struct draw d = {s, s->space.count, 0, 0, 0};
    int rc;

    /* The index must exist before the walk looks things up in it. */
    if ((rc = ht__search_rehash(s)) != 0)
        return rc;
    switch (s->ops->draw) {
    case HT_SEARCH_DRAW_WALK:
        d.want = budget ? budget : HT_SEARCH_DRAW_MAX;
        rc = ht_space_foreach(s->space.pruned, walk_cb, &d);
        return rc > 0 ? d.rc : rc;
    case HT_SEARCH_DRAW_BUDGET:
        d.want = budget ? budget : HT_SEARCH_DRAW_MAX;
        return draw_uniform(&d);
    case HT_SEARCH_DRAW_SAMPLE:
    default:
        /* A budget spends at most budget evaluations: a sample HT_SEARCH_SAMPLE_PER_EVAL
         * times as large (HT_SEARCH_SAMPLE_MIN at least) leaves that many candidates per
         * evaluation, where drawing all of HT_SEARCH_SAMPLE for 10 evaluations of a GEMM
         * space took 0.6 s of a 3 s warm tune (bench/kt). */
        d.want = HT_SEARCH_SAMPLE;
        if (budget && budget <= HT_SEARCH_SAMPLE / HT_SEARCH_SAMPLE_PER_EVAL)
            d.want = budget * HT_SEARCH_SAMPLE_PER_EVAL > HT_SEARCH_SAMPLE_MIN
                         ? budget * HT_SEARCH_SAMPLE_PER_EVAL
                         : HT_SEARCH_SAMPLE_MIN;
        else if (budget > HT_SEARCH_SAMPLE)
            d.want = budget;
        return draw_uniform(&d);
    }
}
