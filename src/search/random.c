/* Random search: uniform sampling without replacement, by a Fisher-Yates shuffle drawn one
 * element at a time, so stopping early costs nothing. Over a space drawn from, the urn is
 * a uniform sample of the valid configurations not pre-seeded, as large as the budget
 * (HT_SEARCH_DRAW_BUDGET, draw.c), so the proposals are still a uniform sample. */
#include <stdlib.h>

#include "search-internal.h"

struct random_state {
    size_t *perm; /* perm[0..pos) drawn, perm[pos..count) still in the urn */
    size_t pos;
};

static int random_init(struct ht_search *s, struct ht_error *err)
{
    size_t n = s->space.count;
    struct random_state *r = calloc(1, sizeof *r);
    if (r)
        r->perm = malloc((n ? n : 1) * sizeof *r->perm);
    if (!r || !r->perm) {
        free(r);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        r->perm[i] = i;
    s->state = r;
    return 0;
}

static int random_next(struct ht_search *s, size_t *index)
{
    struct random_state *r = s->state;
    size_t n = s->space.count;
    while (r->pos < n) {
        size_t j = r->pos + ht__rng_below(&s->rng, n - r->pos);
        size_t i = r->perm[j];
        r->perm[j] = r->perm[r->pos];
        r->perm[r->pos++] = i;
        /* Pre-seeded configurations stay in the urn and are drawn, then passed over, so
         * the sequence depends only on the seed and on which ones were pre-seeded. */
        if (!ht__search_visited(s, i)) {
            *index = i;
            return 0;
        }
    }
    return HT_DONE;
}

static void random_report(struct ht_search *s, size_t index, double cost)
{
    (void)s;
    (void)index;
    (void)cost;
}

static void random_destroy(struct ht_search *s)
{
    struct random_state *r = s->state;
    if (r)
        free(r->perm);
    free(r);
    s->state = NULL;
}

const struct ht_search_ops ht__search_random = {
    .name = "random",
    .description = "uniform random sampling without replacement",
    .init = random_init,
    .next = random_next,
    .report = random_report,
    .destroy = random_destroy,
    .draw = HT_SEARCH_DRAW_BUDGET,
    .lookahead = 1,
};
