/* hetune — search strategies over a pruned space of configurations.
 *
 * A search proposes configurations to evaluate, one at a time, and learns from the cost the
 * caller reports for each (lower is better; seconds in practice). It knows nothing of
 * OpenCL or of the results database: the space is a flat array of the valid configurations
 * that pruning left, and a configuration is named by its index in that array.
 *
 * The protocol:
 *
 *     struct ht_search *s;
 *     ht_search_create("genetic", &space, &opts, &s, &err);
 *     for each result stored earlier:  ht_search_report(s, index, cost);   (pre-seeding)
 *     while (ht_search_next(s, &i) == 0) {
 *         cost = evaluate(space.configs + i * space.nparams);
 *         ht_search_report(s, i, cost);
 *     }
 *     ht_search_best(s, &best, &best_cost);
 *     ht_search_free(s);
 *
 * By default exactly one proposal is in flight: every index ht_search_next returns must be
 * reported before the next call. With opts.max_in_flight K > 1, ht_search_next may be
 * called up to K times before the reports, which may come in any order (a tuner builds the
 * next configurations while the device measures one):
 *
 *     while (in flight < K && (rc = ht_search_next(s, &i)) == 0)  start building i;
 *     (rc HT_BUSY: the strategy needs a result first; HT_DONE: nothing more to propose)
 *     when one of them is measured:  ht_search_report(s, i, cost);  and ask again
 *
 * A proposal is then chosen without the results of those still in flight: exhaustive and
 * random propose what they would have anyway; genetic proposes a whole generation ahead and
 * waits (HT_BUSY) for all of it before breeding the next, so it proposes the same sequence
 * as with K 1; anneal proposes several neighbours of its current configuration and learns
 * each result as it comes, ignoring those of a run that has ended, and waits for the first
 * result of a run. A strategy whose ops.lookahead is 0 gets one proposal in flight at a
 * time whatever K is (the core returns HT_BUSY). A search never proposes the same index
 * twice, nor an index in flight, nor an index whose result was reported beforehand. Report
 * INFINITY for a configuration that failed to build, to launch or to verify: such a
 * configuration is never chosen as best. For a configuration cut by early termination (a
 * tuner's cut factor, HT_SEARCH_CUT_FACTOR) report INFINITY or the time of its runs so
 * far; that time exceeds the cut factor times the best, so it cannot become best either,
 * and it tells the genetic and annealing strategies more than INFINITY does.
 *
 * Repeatable: the same strategy, space, options (seed included) and pre-seeded results give
 * the same sequence of proposals for the same reported costs. The time limit is the only
 * input that depends on the clock; inject one (opts.now) to make it repeatable too.
 *
 * A space too large to list is drawn from instead (ht_search_space.pruned): the search
 * keeps a table of the configurations it knows, those reported by value before the first
 * ht_search_next (ht_search_report_config, typically from the results database) and those
 * its strategy draws at the first ht_search_next (see enum ht_search_draw), and indexes
 * name rows of that table (ht_search_config gives their values). Memory then grows with
 * the budget and the parameters' domains, never with the number of valid configurations.
 *
 * Strategies (ht_search_strategies[]):
 *   exhaustive  every configuration, in the order of the space (the paper's exploration);
 *   random      uniform sampling without replacement;
 *   genetic     OCLoptimizer's genetic algorithm: one gene per parameter, tournament
 *               selection, uniform crossover, mutation, elitism; children that are not valid
 *               configurations become the nearest valid one; stops after ga_patience
 *               generations without improvement of the best cost;
 *   anneal      simulated annealing over the configurations that differ in one parameter
 *               (nearer values more likely), with restarts from random configurations;
 *   bayes       Bayesian optimisation: a random forest over the parameters' ranks learns
 *               the log of the cost (failures as worse than the worst) from every known
 *               result; each proposal maximises expected improvement over a sample of the
 *               unknown configurations and a local search from the best known ones. It
 *               does not stop by itself: give it a budget or a time limit.
 *
 * A NULL pointer a function cannot do without is an error, never a crash: ht_search_create
 * returns HT_EINVAL with err->text "ht_search_create: ARGUMENT is NULL" (err may be NULL);
 * the functions without an err return HT_EINVAL, or NULL for those that answer a pointer;
 * the void functions do nothing with a NULL. Where NULL is taken instead, the function's
 * comment says what it means.
 */
#ifndef HETUNE_SEARCH_H
#define HETUNE_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ht_space; /* space.h */

/* The space a search runs over: count valid configurations of nparams values each, row
 * major (configuration i is configs[i * nparams .. i * nparams + nparams - 1]). Borrowed
 * by the search: configs and param_names must outlive it. param_names (nparams names) is
 * optional, NULL allowed; it only makes error messages clearer. The genetic and annealing
 * strategies need the configurations to be distinct (ht_search_create returns HT_EINVAL
 * otherwise); they treat each parameter's values as ordered, so "nearest" means nearest in
 * rank of value.
 *
 * Or, with configs NULL and count 0, pruned: a space (space.h, borrowed, it must outlive
 * the search) whose nparams parameters the search draws configurations from without
 * listing them, as its strategy's draw says. */
struct ht_search_space {
    size_t count, nparams;
    const int64_t *configs;
    const char *const *param_names;
    const struct ht_space *pruned;
};

/* What a strategy takes from a space it draws from (ht_search_space.pruned), at the first
 * ht_search_next, leaving out the configurations reported before. */
enum ht_search_draw {
    /* The first configurations of the space's walk (ht_space_foreach's order): as many as
     * the budget, or HT_SEARCH_DRAW_MAX without one. The walk stops there. */
    HT_SEARCH_DRAW_WALK,
    /* A uniform sample of the valid configurations, without replacement: as many as the
     * budget, or HT_SEARCH_DRAW_MAX without one. */
    HT_SEARCH_DRAW_BUDGET,
    /* A uniform sample of HT_SEARCH_SAMPLE valid configurations: with a budget,
     * HT_SEARCH_SAMPLE_PER_EVAL per evaluation of the budget (HT_SEARCH_SAMPLE_MIN at
     * least, HT_SEARCH_SAMPLE at most, or the budget when it is larger); the strategy
     * moves among them (and those reported before), so its neighbours are the nearest
     * drawn ones. */
    HT_SEARCH_DRAW_SAMPLE
};

/* The most configurations a draw takes without a budget, and the sample of
 * HT_SEARCH_DRAW_SAMPLE. A tuner lists a space of up to HT_SEARCH_DRAW_MAX valid
 * configurations whole and draws from a larger one. */
#define HT_SEARCH_DRAW_MAX ((size_t)1 << 18)
#define HT_SEARCH_SAMPLE ((size_t)1 << 16)
/* The sample of HT_SEARCH_DRAW_SAMPLE under a budget: so many per evaluation, no fewer
 * than HT_SEARCH_SAMPLE_MIN in all. */
#define HT_SEARCH_SAMPLE_PER_EVAL ((size_t)64)
#define HT_SEARCH_SAMPLE_MIN ((size_t)1 << 12)

/* Options. Fill with ht_search_opts_init, then change what you need. Every knob is read at
 * ht_search_create; the structure is copied. */
struct ht_search_opts {
    uint64_t seed;            /* seeds the strategy's random numbers; default 0 */
    size_t budget;            /* most evaluations this run proposes; 0 = no limit (default).
                                 Pre-seeded results do not count against it. */
    double time_limit_s;      /* no new proposal once this many seconds have passed since
                                 ht_search_create; 0 = no limit (default) */
    double (*now)(void *user);/* the clock for time_limit_s, in seconds; NULL = monotonic
                                 wall-clock time (default). Tests inject a fake one. */
    void *now_user;           /* passed to now */
    size_t max_in_flight;     /* proposals that may await their report at once; 0 or 1
                                 (default): one, as before */

    /* genetic */
    size_t ga_population;     /* individuals per generation; default 20, at least 2 */
    size_t ga_elite;          /* best individuals carried unchanged into the next
                                 generation; default 2, less than ga_population */
    size_t ga_tournament;     /* tournament size of parent selection; default 5, >= 1 */
    double ga_mutation;       /* probability that a gene of a child is replaced by another
                                 value of its parameter (half the time any other, half the
                                 time a nearby one); default 0.05, in [0, 1] */
    size_t ga_patience;       /* generations without improvement before it stops; default
                                 20, >= 1 (OCLoptimizer's rule is 3: on the recorded
                                 convolution spaces of issue 25 it stopped after 74 to 140
                                 evaluations at a median 0.86-0.92 of the optimum, 10 reached
                                 0.93-1.0 within 400, the same proposals up to its stop).
                                 The defaults of tournament, mutation and patience (3, 0.1
                                 and 10 before) were chosen on bench/search/families.sh's
                                 recorded and perturbed spaces (docs/results/
                                 search-2026-11-26-d.txt) */

    /* anneal */
    double sa_temperature;    /* initial temperature, in relative cost: a move that is 10%
                                 slower is accepted with probability exp(-0.1 / T);
                                 default 0.5, >= 0 */
    double sa_cooling;        /* the temperature is multiplied by this after every step;
                                 default 0.9, in (0, 1] */
    size_t sa_steps;          /* evaluations per run before a restart; 0 = automatic
                                 (default): a run ends once 2 * nparams + 8 evaluations in
                                 a row have not improved its best (see anneal.c) */
    size_t sa_restarts;       /* runs after the first, each from a random configuration not
                                 evaluated yet; default 8 (4 before: on the recorded convolution
                                 spaces of issue 25 it stopped before 400 evaluations, the
                                 same proposals up to its stop). The search stops after them. */

    /* bayes */
    size_t bo_init;           /* configurations of the initial design, spread over the
                                 space, results known beforehand included; 0 = automatic
                                 (default): one more than the parameters that vary, 4 to
                                 20, at most a fifth of the budget (see bayes.c) */
    size_t bo_trees;          /* trees of the random forest, an eighth of them regrown at
                                 each proposal; default 24, 1 to 1024. The trees split on the
                                 parameters and the products of pairs of them (see
                                 bayes.c) */
    size_t bo_candidates;     /* configurations not known, drawn uniformly, whose expected
                                 improvement is computed at each proposal besides the local
                                 search's; default 1024, >= 1. All of them when fewer. */
};

/* Fills opts with the defaults above. NULL: nothing. */
void ht_search_opts_init(struct ht_search_opts *opts);

struct ht_search; /* opaque */

/* A strategy: a table of functions, one per file src/search/<name>.c. The registry below
 * is public so that tools can list the strategies; the functions are called only by the
 * ht_search_* functions. */
struct ht_search_ops {
    const char *name;         /* "genetic" */
    const char *description;  /* one line, lowercase */
    /* Sets up the strategy's state. Returns 0, HT_ENOMEM or HT_EINVAL (err says why). */
    int (*init)(struct ht_search *s, struct ht_error *err);
    /* The next index to evaluate, never one the search knows (proposed or reported).
     * Returns 0, HT_DONE when the strategy has finished, or HT_ENOMEM. */
    int (*next)(struct ht_search *s, size_t *index);
    /* The cost of an index the strategy proposed (with lookahead, any of those in flight,
     * in any order). */
    void (*report)(struct ht_search *s, size_t index, double cost);
    /* Frees the strategy's state. */
    void (*destroy)(struct ht_search *s);
    /* What it draws from a space too large to list; init runs after the draw. */
    enum ht_search_draw draw;
    /* 1 when next may be called while proposals are in flight (it then returns HT_BUSY
     * when it needs a result first) and report may come in any order; 0: the core keeps
     * one proposal in flight at a time for it. */
    int lookahead;
};

/* The strategies, ending with NULL. Static storage. */
extern const struct ht_search_ops *const ht_search_strategies[];

/* The strategy called name, or NULL when there is none (or name is NULL). Borrowed, static
 * storage. */
const struct ht_search_ops *ht_search_find(const char *name);

/* Starts a search with the strategy called strategy over space (borrowed: it and the
 * arrays it points to must outlive the search). opts is copied; NULL means the defaults.
 * *out is owned by the caller (ht_search_free). Returns HT_EINVAL when the strategy is
 * unknown (err lists the available ones), when the space is malformed (configs NULL with a
 * count, neither configs nor pruned with parameters, a pruned space whose parameters are
 * not nparams, duplicate configurations for genetic and anneal) or when an option is out of range
 * (err->field names it, e.g. "ga_elite"); HT_ENOMEM. */
int ht_search_create(const char *strategy, const struct ht_search_space *space,
                     const struct ht_search_opts *opts, struct ht_search **out,
                     struct ht_error *err);

/* Frees a search; NULL is allowed. */
void ht_search_free(struct ht_search *s);

/* The name of the search's strategy (NULL for a NULL s). Borrowed, static storage. */
const char *ht_search_name(const struct ht_search *s);

/* Puts in *index the next configuration to evaluate. Returns 0; HT_DONE when the budget is
 * spent (the proposals in flight count against it, so that at most budget are evaluated),
 * the time limit has passed, every configuration is known or in flight, or the strategy has
 * finished (a finished strategy stays finished); HT_BUSY when proposals are in flight and
 * the strategy needs one of their results before it can propose more; HT_EINVAL when
 * opts.max_in_flight proposals (one by default) await their report, or when s or index is
 * NULL; HT_ENOMEM. */
int ht_search_next(struct ht_search *s, size_t *index);

/* Records the cost of configuration index: lower is better, INFINITY (or NaN, read as
 * INFINITY) for a configuration that failed. When index is a proposal in flight, it is
 * an evaluation of this run and counts against the budget. Any other index not known yet is
 * a result obtained elsewhere (pre-seeding, typically from the results database before the
 * first ht_search_next): it becomes known, so it is never proposed, it competes for best,
 * and it does not count against the budget. Returns HT_EINVAL when index is out of range,
 * its result is already known or s is NULL. */
int ht_search_report(struct ht_search *s, size_t index, double cost);

/* Pre-seeding by value: records the cost of the configuration config (nparams values), as
 * ht_search_report does for a result obtained elsewhere, and puts its index in *index when
 * index is not NULL. Over a listed space it finds the configuration in the list; over a
 * space drawn from, before the first ht_search_next, it adds the configuration to the
 * search's table when ht_space_check accepts it (after that, only configurations already
 * in the table are found). Returns HT_ENOTFOUND when the configuration is not in the space
 * (or no longer can be added), HT_EINVAL when its result is already known (*index set) or
 * s or config is NULL, HT_ENOMEM. */
int ht_search_report_config(struct ht_search *s, const int64_t *config, double cost,
                            size_t *index);

/* The values of configuration index (nparams of them), or NULL when index is out of
 * range or s is NULL. Borrowed: valid until the next ht_search_report_config or
 * ht_search_next (which can grow the table of a space drawn from) or ht_search_free; copy
 * them to keep them. */
const int64_t *ht_search_config(const struct ht_search *s, size_t index);

/* The best configuration known (evaluated or pre-seeded) and its cost; ties go to the one
 * reported first. index or cost may be NULL: that one is not written. Returns HT_ENOTFOUND
 * when no finite cost has been reported, HT_EINVAL when s is NULL. */
int ht_search_best(const struct ht_search *s, size_t *index, double *cost);

/* Early termination (issue 4, item 2). The default factor. */
#define HT_SEARCH_CUT_FACTOR 3.0

#ifdef __cplusplus
}
#endif
#endif
