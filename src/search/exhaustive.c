/* Exhaustive search: every configuration of the pruned space, in its order. This is the
 * paper's exploration phase; pre-seeded configurations are skipped. Over a space drawn
 * from, the space is the walk's first configurations not pre-seeded, as many as the budget
 * (HT_SEARCH_DRAW_WALK): the walk is streamed and stopped, never listed. */
#include <stdlib.h>

#include "search-internal.h"

struct exhaustive {
    size_t cursor;
};

static int exhaustive_init(struct ht_search *s, struct ht_error *err)
{
    s->state = calloc(1, sizeof(struct exhaustive));
    return s->state ? 0 : ht_error_set(err, HT_ENOMEM, "out of memory");
}

static int exhaustive_next(struct ht_search *s, size_t *index)
{
    struct exhaustive *e = s->state;
    while (e->cursor < s->space.count) {
        size_t i = e->cursor++;
        if (!ht__search_visited(s, i)) {
            *index = i;
            return 0;
        }
    }
    return HT_DONE;
}

static void exhaustive_report(struct ht_search *s, size_t index, double cost)
{
    (void)s;
    (void)index;
    (void)cost;
}

static void exhaustive_destroy(struct ht_search *s)
{
    free(s->state);
    s->state = NULL;
}

const struct ht_search_ops ht__search_exhaustive = {
    .name = "exhaustive",
    .description = "every configuration of the pruned space, in order (the paper)",
    .init = exhaustive_init,
    .next = exhaustive_next,
    .report = exhaustive_report,
    .destroy = exhaustive_destroy,
    .draw = HT_SEARCH_DRAW_WALK,
    .lookahead = 1,
};
