/* Bayesian optimisation with a random forest surrogate (after SMAC: Hutter, Hoos and
 * Leyton-Brown, "Sequential model-based optimization for general algorithm configuration",
 * LION 2011), suited to discrete spaces whose constraints leave holes in the grid.
 *
 * The model. Each configuration is described by the ranks of its values (geom.c) and of
 * the products of each pair of its varying parameters (the work-group size block_size_x *
 * block_size_y, a tile's width block_size_x * tile_size_x: interactions that axis-aligned
 * cuts on single parameters approximate poorly; pairs are dropped past MAX_FEATURE_CELLS
 * entries of the table, computed once). The log of a value is no feature: a tree's cut is
 * the same on any increasing function of it. Over 40 seeds (the whole forest regrown, 5/6
 * of the features per cut) the pairs raised the median fraction of the optimum at 50
 * evaluations of the A100 convolution space from 0.68 to 0.89 and left the A4000
 * convolution and dedispersion spaces as they were. The target is the log
 * of its cost, so that a kernel ten times slower weighs as much as one ten times faster
 * (costs that are not all positive are taken as they are). A configuration that failed
 * (INFINITY) is learnt as worse than the worst seen by a margin (FAIL_MARGIN of the range),
 * so the trees carve out failing regions and the search avoids them. bo_trees regression
 * trees are grown on bootstrap samples of the known results (pre-seeded ones included),
 * each split the best cut "rank <= t" of one of a random third of the features (the usual
 * choice for regression forests; 5/6, SMAC's, cost three times as much for no gain that
 * 40 seeds could tell), down to leaves of MIN_SPLIT results. A proposal regrows an eighth
 * of the trees (REGROW_PART; 3 of 24), in turn, on the results known then, so a tree is
 * at most seven proposals behind: the fit dominated the cost of a proposal, and regrowing
 * an eighth changed nothing that 40 seeds could tell against regrowing half. Replayed
 * (docs/results/search-2026-11-26-b.txt), the scores on the A100 and A4000 convolution
 * and the dedispersion spaces were 0.861, 0.904 and 0.997 against 0.885, 0.916 and 0.998
 * before, while regrowing half with this file's grow (the same algorithm as before drawing
 * other random numbers) gave 0.855, 0.915 and 0.997. A tree is grown on the
 * bootstrap sample as multiplicities over the distinct results, and a split's scan reads
 * the training set's ranks by feature (one column): trees drawn the same way, grown in
 * about half the time (gprof over the same runs). The forest's prediction for a configuration is the mean of its trees' leaves, its
 * uncertainty their spread.
 *
 * The acquisition: expected improvement over the best known cost (in log space). Two
 * proposals in three (GLOBAL_EVERY) maximise it near the best known configuration: over
 * the configurations not known nor in flight that differ from it in one parameter or, when
 * none is left, in two. The third maximises it over the whole space: a uniform sample of
 * at most bo_candidates configurations not known, and a local search in the style of
 * SMAC's, which climbs the expected improvement from each of the best LOCAL_STARTS known
 * configurations through configurations differing in one parameter, visited ones included,
 * and offers every new one it sees. On recorded GPU spaces (issue 25) the optimum is often
 * one or two parameters away from a configuration within 10% of it, a step that the
 * forest, sure of a region it has sampled, rarely takes on expected improvement alone
 * (the median fraction of the optimum at 100 evaluations of the A4000 convolution space
 * was 0.81 with the whole space only, 0.996 so, before the pairs); the third proposal
 * seldom leaves a basin.
 *
 * Flags. A parameter of at most FLAG_VALUES values (use_shmem, read_only) often splits a
 * GPU space into basins whose best points share the other parameters' values: the A4000
 * convolution's optimum has use_shmem 0 and block, tile sizes that are poor with
 * use_shmem 1, while with use_shmem 1 nearly everything is fair, a plateau the model
 * settles on after a few poor draws of the other basin (half of the seeds did, at 0.81 of
 * the optimum). So in every FLIP_CYCLES-th cycle of GLOBAL_EVERY proposals, the near
 * proposals instead take the highest expected improvement among the configurations that
 * differ from one of the best FLIP_TOP known configurations in flags only, any number of
 * them, the other parameters kept: a move across basins at a point that is good in one of
 * them, which one- and two-parameter moves rarely reach when two flags must change at once
 * or a flag alone is poor. When every such configuration is known the near search takes
 * the turn. Judged by bench/search/table_replay (the recorded spaces as tables, through
 * ht_search_*), 80 seeds, the seeds at 0.95 of the optimum at 100 evaluations,
 * before -> after: A4000 convolution 31 -> 59; its variants (each time times exp(N(0, s))
 * for s = 0.1, 0.15, 0.2; the best 5 or 10 configurations dropped) 40 -> 62, 33 -> 42,
 * 42 -> 41, 35 -> 48, 7 -> 12; A100 convolution 21 -> 20 and its variants 45 -> 48,
 * 24 -> 21, 33 -> 30, 42 -> 37, 32 -> 39 (no change that 80 seeds can tell: the A100's
 * stuck seeds sit where a flip changes nothing, with use_padding 1, or need the tile sizes
 * changed too); dedispersion 40 of 40 both (40 seeds). Flips of the best five instead of
 * two, one cycle in three, flips only after 5 proposals without a better best, and
 * parameters of up to four values as flags (the A100: 12 -> 20 of 40; the A4000's family
 * lost as much) did no better.
 *
 * The initial design: bo_init configurations (0: automatic, one more than the parameters
 * that vary, 4 to 20, at most a fifth of the budget), spread over the space (each the
 * farthest in rank distance from those already chosen among a few random ones); results
 * known beforehand count towards it. Until a finite cost is known, and when no candidate
 * promises any improvement, the search proposes such a spread-out random configuration, so
 * a space that fails everywhere is sampled, not stuck.
 *
 * Several proposals in flight: the model learns from every result the core knows, read
 * from its table of costs at each proposal, never from the order of reports, and the
 * candidates leave out everything the core says is visited, pending proposals included.
 *
 * Cost: at 10^4 configurations test_cost in tests/unit/test_search_bayes.c prints it and
 * bounds it. It grows with results times the trees regrown (the fit) and with
 * bo_candidates times trees (the acquisition: a third of the proposals score the uniform
 * sample). Before this file's fit was made cheaper it was 2.0 to 2.1 ms on average over the
 * recorded spaces (RelWithDebInfo, 24 trees, 400 evaluations), the fit about four fifths
 * of it; docs/results/search-2026-11-26-b.txt gives the replay's whole time then. Since
 * the forest's walks go in lockstep (expected_improvement), test_cost's mean is 0.6 ms
 * (0.9 before), and a replay of 400 evaluations of the A100 convolution 0.3 s of CPU,
 * whole command (docs/results/search-2026-11-27-a.txt, with the fit's speed-ups that
 * gave nothing).
 *
 * Tried without gain (issue 25, 20 to 40 seeds, budget 100): the trailing zero bits of each
 * value as a feature (a power-of-two effect is plain in both convolution spaces); searching
 * near the best k = 3 or 5 instead of the best alone; a second region near the best
 * configuration differing from the best in 2 to 4 parameters, or near the best for each
 * value of the most important parameter, given a share of the proposals; Thompson sampling
 * (one tree's prediction) for the global proposal; larger initial designs (20, 30) and 48
 * trees. None lifted the worst seeds, which settle in the other basin (use_shmem and
 * read_only the other way) before the 100th evaluation. Nor, in a second round (40 seeds
 * on the recorded spaces, and as a check against fitting them, on two variants of each
 * convolution space: every time multiplied by exp(N(0, 0.15)), and the best five dropped).
 * Restarts of the near search in the style of trust regions (after TuRBO: when the best
 * had not improved for 10 proposals, the near proposals moved their centre, 10 proposals
 * each, to the best three configurations two moves or more from the best): seeds at 0.95
 * at 100 evaluations went from 13 to 20 of 40 (A100) and 19 to 22 (A4000), 5 or 20
 * proposals gave about as much, but on the four variants it lost every time (13 to 6, 18
 * to 12, 25 to 22, 17 to 8), and the replayed benchmark's A4000 median at 100 fell to 0.83:
 * left out. Also without gain: SMAC's uncertainty (the leaves' own variance added to the
 * spread of the trees), no change; updating the trees not regrown with each new result
 * (online bagging, Poisson(1) weights), worse on both convolution spaces; the configurations
 * two moves from the centre always among the near ones, or while stalled, better on the
 * A100 and worse on the A4000; a share of the near proposals, or the restarts' centres,
 * among the known local optima two moves or more from the best, worse; one proposal in
 * two over the whole space, worse; 16 trees, or 256 candidates instead of 1024 (cheaper),
 * worse on both. In a third round (40 seeds, the spaces and variants above): when the
 * best's neighbourhood is exhausted, those of the next best three instead of the two-move
 * one (a little better alone, 258 seeds at 0.95 at 100 against 247 over the 14 spaces, and
 * nothing on top of the flips, 282 against 278); global candidates at least three moves
 * from the best (234); and on the two convolution spaces alone, a share of the near
 * proposals around the best of each other value of a flag, that value kept, and Breiman's
 * subset splits (a parameter's values ordered by their mean target, then cut): no better.
 * A fourth round, 80 seeds of table_replay on the 14 tables of the third (the recorded
 * spaces and perturbed copies; bench/search/families.sh makes such a set), seeds at 0.95
 * of the optimum at 100 evaluations per family (A100 convolution and its five copies /
 * the A4000's / dedispersion and its copy): this code 195 / 264 / 81, and 194 /
 * 297 / 80 when only the random numbers differ (another shuffle at the start), so a family
 * moves by some 30 on noise alone. A stratified initial design (the spread-out draws taken
 * in turn from each combination of the flags' values that the space holds, so each basin
 * is sampled before the model commits) 190 / 286 / 81, with twice as many initial draws as
 * combinations 192 / 281 / 80; the near proposals centred on the best of one flag
 * combination chosen by UCB over combinations (the incumbent's closeness to the best,
 * exp(-dlog / 0.1), plus 0.3 sqrt(ln N / n)) 197 / 294 / 80; Thompson sampling (one random
 * tree's prediction) for the near proposals 188 / 314 / 80, with the noisiest A100 copies
 * losing (30 -> 19, 22 -> 15 of 80); leaves of 2 results instead of 3, 190 / 287 / 80;
 * pattern moves (two of the best known one-move changes of the best, from its three best
 * parameters, combined), when its one-move neighbourhood is exhausted or always among the
 * near ones: the A100 space alone, 14 and 16 seeds of 80 against 19, no further look.
 * None moves the A100 family: its optimum is an isolated point (its 27 configurations one
 * move away reach 0.13 to 0.83 of it; the next best, 0.93, is two moves away through two
 * configurations at 0.71 and 0.83), found by the seeds whose near search happens to pass
 * next to it; a quarter of the seeds settle by evaluation 15 to 94 on 16x4 blocks with
 * use_padding 1 (0.64), whose flag flips are all worse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search-internal.h"

#define FAIL_MARGIN 0.25  /* a failure is learnt as worst + this times (worst - best) */
#define MIN_SPLIT 3       /* a node of fewer results is a leaf */
#define MAX_FEATURE_CELLS (1u << 23) /* entries of the feature table, pairs dropped past it */
#define LOCAL_STARTS 5    /* local searches of the acquisition, from the best known */
#define LOCAL_STEPS 16    /* most moves of one local search */
#define SPREAD_TRIES 16   /* random configurations compared for a spread-out one */
#define REGROW_PART 8     /* a proposal regrows 1/REGROW_PART of the trees */
#define GLOBAL_EVERY 3    /* one proposal in so many searches the whole space */
#define FLAG_VALUES 2     /* a parameter of at most so many values is a flag */
#define FLIP_TOP 2        /* flag changes are tried on the best so many configurations */
#define FLIP_CYCLES 2     /* one cycle of GLOBAL_EVERY proposals in so many flips flags */
#define MAX_FLAG_COMBOS 4096 /* more combinations of flags than this: no flips */
#define WALK_GROUP 12     /* trees walked in lockstep */
#define TOP_RANKED (LOCAL_STARTS > FLIP_TOP ? LOCAL_STARTS : FLIP_TOP) /* known, in order */

/* A leaf is its own child (feat 0, thr LEAF, left its own number), so that a walk that
 * goes on past a leaf stays there: the forest's walks go in lockstep (expected_improvement),
 * each a chain of dependent loads that the processor overlaps with the others'. */
#define LEAF UINT32_MAX
struct node {
    uint32_t feat;        /* the feature cut */
    uint32_t thr;         /* ranks <= thr go left; LEAF for a leaf */
    uint32_t left;        /* the left child's number in the tree; the right one is next */
    double value;         /* the mean target of the node's results */
};

struct ranked {
    double cost;
    size_t index;
};

struct tree {
    struct node *nodes;   /* the root first */
    size_t n, cap;
    size_t depth;         /* the longest walk from the root to a leaf, in steps */
};

struct bayes {
    struct ht__geom geom;
    size_t ntrees, ninit, ncand;
    size_t nvar;          /* parameters of more than one value */
    size_t *vars;         /* nvar: those parameters */
    size_t nflag;         /* flags among them (FLAG_VALUES values or fewer) */
    size_t *flags;        /* nflag: those parameters */
    size_t combos;        /* combinations of the flags' values; 0: no flips */
    /* The features the trees split on, as ranks of their distinct values: count * nfeat. */
    size_t nfeat, mtry;
    uint32_t *fr;
    size_t *fnv;          /* nfeat: distinct values of each feature */
    /* The training set, rebuilt at each proposal: known indices and their targets. */
    size_t *train, ntrain, cap;
    double *y;
    size_t *boot;         /* bootstrap sample's distinct results, partitioned in place
                             while a tree grows */
    uint32_t *wt;         /* ntrain: each result's multiplicity in the bootstrap sample */
    uint32_t *xc;         /* nfeat * ntrain: the training set's ranks, by feature */
    struct ranked *rk;    /* the finite results, the best TOP_RANKED first and in order */
    size_t nrk;
    struct tree *trees;   /* ntrees */
    size_t nfitted;       /* trees grown at least once */
    size_t next_tree;     /* the next to regrow */
    /* Split search scratch. */
    size_t maxnv;
    double *hsum;
    size_t *hcnt;
    size_t *feats;
    /* Acquisition: the value cached per configuration for this proposal (stamp). */
    uint32_t *stamp, epoch;
    double *acq;
    size_t *starts;       /* LOCAL_STARTS */
    uint32_t *pt;         /* nparams ranks */
    double best_y;
    size_t proposals;     /* made by the model, which alternate near and far */
};

static void bayes_destroy(struct ht_search *s)
{
    struct bayes *b = s->state;
    if (!b)
        return;
    ht__geom_destroy(&b->geom);
    free(b->vars);
    free(b->flags);
    free(b->fr);
    free(b->fnv);
    free(b->train);
    free(b->y);
    free(b->boot);
    free(b->wt);
    free(b->xc);
    free(b->rk);
    for (size_t t = 0; b->trees && t < b->ntrees; t++)
        free(b->trees[t].nodes);
    free(b->trees);
    free(b->hsum);
    free(b->hcnt);
    free(b->feats);
    free(b->stamp);
    free(b->acq);
    free(b->starts);
    free(b->pt);
    free(b);
    s->state = NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The value of feature f (a parameter, or the product of two) for configuration i. */
static double feature_value(const struct ht_search *s, const size_t *fp, size_t i)
{
    const int64_t *c = s->space.configs + i * s->space.nparams;
    return fp[0] == fp[1] ? (double)c[fp[0]] : (double)c[fp[0]] * (double)c[fp[1]];
}

/* Fills fr and fnv: each varying parameter, then the product of each pair of them while
 * the table stays under MAX_FEATURE_CELLS. Returns 0 or HT_ENOMEM. */
static int build_features(struct ht_search *s, struct bayes *b)
{
    size_t n = s->space.count, nv = b->nvar, npair = nv * (nv - (nv > 0)) / 2;
    size_t want = nv + npair, *fp = NULL, cells;
    double *val = NULL, *sorted = NULL;
    int rc = HT_ENOMEM;

    if (n && want * n > MAX_FEATURE_CELLS)
        want = MAX_FEATURE_CELLS / n > nv ? MAX_FEATURE_CELLS / n : nv;
    cells = want * n;
    fp = malloc(2 * (want ? want : 1) * sizeof *fp);
    b->fnv = malloc((want ? want : 1) * sizeof *b->fnv);
    /* One rank when there is no feature: a leaf's walk reads feature 0 (and ignores it). */
    b->fr = cells ? malloc(cells * sizeof *b->fr) : calloc(1, sizeof *b->fr);
    b->feats = malloc((want ? want : 1) * sizeof *b->feats);
    val = malloc((n ? n : 1) * sizeof *val);
    sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!fp || !b->fnv || !b->fr || !b->feats || !val || !sorted)
        goto out;
    for (size_t v = 0; v < nv; v++)
        fp[2 * v] = fp[2 * v + 1] = b->vars[v];
    b->nfeat = nv;
    for (size_t v = 0; v < nv && b->nfeat < want; v++)
        for (size_t w = v + 1; w < nv && b->nfeat < want; w++) {
            fp[2 * b->nfeat] = b->vars[v];
            fp[2 * b->nfeat + 1] = b->vars[w];
            b->nfeat++;
        }
    for (size_t f = 0; f < b->nfeat; f++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            sorted[i] = val[i] = feature_value(s, fp + 2 * f, i);
        qsort(sorted, n, sizeof *sorted, cmp_double);
        for (size_t i = 0; i < n; i++)
            if (m == 0 || sorted[i] != sorted[m - 1])
                sorted[m++] = sorted[i];
        b->fnv[f] = m;
        if (m > b->maxnv)
            b->maxnv = m;
        for (size_t i = 0; i < n; i++) {
            size_t lo = 0, hi = m;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (sorted[mid] < val[i])
                    lo = mid + 1;
                else
                    hi = mid;
            }
            b->fr[i * b->nfeat + f] = (uint32_t)lo;
        }
    }
    b->hsum = malloc((b->maxnv ? b->maxnv : 1) * sizeof *b->hsum);
    b->hcnt = malloc((b->maxnv ? b->maxnv : 1) * sizeof *b->hcnt);
    if (!b->hsum || !b->hcnt)
        goto out;
    b->mtry = (b->nfeat + 2) / 3;
    rc = 0;
out:
    free(fp);
    free(val);
    free(sorted);
    return rc;
}

static int bayes_init(struct ht_search *s, struct ht_error *err)
{
    struct bayes *b = calloc(1, sizeof *b);
    size_t np = s->space.nparams, n = s->space.count;
    int rc;

    if (!b)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    s->state = b;
    rc = ht__geom_build(&b->geom, &s->space, err);
    if (rc) {
        free(b);
        s->state = NULL;
        return rc;
    }
    b->ntrees = s->opts.bo_trees;
    b->ncand = s->opts.bo_candidates;
    b->vars = malloc((np ? np : 1) * sizeof *b->vars);
    b->flags = malloc((np ? np : 1) * sizeof *b->flags);
    b->pt = malloc((np ? np : 1) * sizeof *b->pt);
    b->trees = calloc(b->ntrees, sizeof *b->trees);
    b->stamp = calloc(n ? n : 1, sizeof *b->stamp);
    b->acq = malloc((n ? n : 1) * sizeof *b->acq);
    b->starts = malloc(LOCAL_STARTS * sizeof *b->starts);
    if (!b->vars || !b->flags || !b->pt || !b->trees || !b->stamp || !b->acq || !b->starts) {
        bayes_destroy(s);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    for (size_t p = 0; p < np; p++)
        if (b->geom.nvalues[p] > 1)
            b->vars[b->nvar++] = p;
    b->combos = 1;
    for (size_t v = 0; v < b->nvar; v++) {
        size_t p = b->vars[v];
        if (b->geom.nvalues[p] > FLAG_VALUES)
            continue;
        b->flags[b->nflag++] = p;
        b->combos = b->combos > MAX_FLAG_COMBOS ? b->combos : b->combos * b->geom.nvalues[p];
    }
    if (!b->nflag || b->combos > MAX_FLAG_COMBOS)
        b->combos = 0;
    if ((rc = build_features(s, b))) {
        bayes_destroy(s);
        return ht_error_set(err, rc, "out of memory");
    }
    b->ninit = s->opts.bo_init;
    if (!b->ninit) {
        b->ninit = b->nvar + 1;
        b->ninit = b->ninit < 4 ? 4 : b->ninit > 20 ? 20 : b->ninit;
        if (s->opts.budget && b->ninit > s->opts.budget / 5)
            b->ninit = s->opts.budget / 5 > 2 ? s->opts.budget / 5 : 2;
    }
    return 0;
}

/* ---- the forest ---------------------------------------------------------------------- */

static int push_node(struct tree *tr, uint32_t *out)
{
    if (tr->n == tr->cap) {
        size_t cap = tr->cap ? 2 * tr->cap : 64;
        struct node *g = realloc(tr->nodes, cap * sizeof *g);
        if (!g)
            return HT_ENOMEM;
        tr->nodes = g;
        tr->cap = cap;
    }
    memset(&tr->nodes[tr->n], 0, sizeof tr->nodes[tr->n]);
    tr->nodes[tr->n].thr = LEAF;
    tr->nodes[tr->n].left = (uint32_t)tr->n;
    *out = (uint32_t)tr->n++;
    return 0;
}

/* Grows the subtree of node over the distinct samples boot[lo, hi), sample k weighing
 * wt[k] (its multiplicity in the bootstrap sample). Recursion depth is at most the number
 * of training results, and in practice their logarithm. */
static int grow(struct ht_search *s, struct bayes *b, struct tree *tr, uint32_t node,
                size_t lo, size_t hi, size_t depth)
{
    size_t n = 0, nf = 0, best_p = 0, nt = b->ntrain;
    const size_t *boot = b->boot;
    const double *y = b->y;
    const uint32_t *wt = b->wt;
    uint32_t best_t = 0;
    double sum = 0, best_gain = 1e-12, mean;
    int rc;

    for (size_t k = lo; k < hi; k++) {
        n += wt[boot[k]];
        sum += wt[boot[k]] * y[boot[k]];
    }
    mean = sum / (double)n;
    tr->nodes[node].value = mean;
    if (depth > tr->depth)
        tr->depth = depth;
    if (n < MIN_SPLIT || hi - lo < 2) /* one distinct result cannot be split */
        return 0;

    /* A random subset of mtry features. */
    for (size_t k = 0; k < b->nfeat; k++)
        b->feats[k] = k;
    for (size_t k = 0; k < b->mtry; k++) {
        size_t j = k + ht__rng_below(&s->rng, b->nfeat - k), t = b->feats[j];
        b->feats[j] = b->feats[k];
        b->feats[k] = t;
        nf++;
    }
    /* Maximises the between-groups sum of squares, sumL^2/nL + sumR^2/nR - sum^2/n. */
    double base = sum * sum / (double)n;
    for (size_t f = 0; f < nf; f++) {
        size_t p = b->feats[f], nv = b->fnv[p];
        const uint32_t *col = b->xc + p * nt;
        memset(b->hcnt, 0, nv * sizeof *b->hcnt);
        memset(b->hsum, 0, nv * sizeof *b->hsum);
        for (size_t k = lo; k < hi; k++) {
            size_t i = boot[k];
            uint32_t r = col[i];
            b->hcnt[r] += wt[i];
            b->hsum[r] += wt[i] * y[i];
        }
        size_t nl = 0;
        double sl = 0;
        for (size_t r = 0; r + 1 < nv; r++) {
            if (!b->hcnt[r])
                continue;
            nl += b->hcnt[r];
            sl += b->hsum[r];
            if (nl == n)
                break;
            double gain = sl * sl / (double)nl + (sum - sl) * (sum - sl) / (double)(n - nl) -
                          base;
            if (gain > best_gain) {
                best_gain = gain;
                best_p = p;
                best_t = (uint32_t)r;
            }
        }
    }
    if (best_gain <= 1e-12)
        return 0;

    size_t mid = lo;
    const uint32_t *col = b->xc + best_p * nt;
    for (size_t k = lo; k < hi; k++)
        if (col[b->boot[k]] <= best_t) {
            size_t t = b->boot[k];
            b->boot[k] = b->boot[mid];
            b->boot[mid++] = t;
        }
    uint32_t l, r;
    if ((rc = push_node(tr, &l)) || (rc = push_node(tr, &r)))
        return rc;
    tr->nodes[node].feat = (uint32_t)best_p;
    tr->nodes[node].thr = best_t;
    tr->nodes[node].left = l; /* r is l + 1: a walk picks the child without a branch */
    if ((rc = grow(s, b, tr, l, lo, mid, depth + 1)))
        return rc;
    return grow(s, b, tr, r, mid, hi, depth + 1);
}

/* Regrows the trees due: all of them the first time, then REGROW_PART of them in turn,
 * each on a new bootstrap sample of the results known now. */
static int fit(struct ht_search *s, struct bayes *b)
{
    size_t count = b->ntrees, nt = b->ntrain;
    int rc;

    /* The training set's ranks by feature, so that a split's scan reads one column. */
    for (size_t k = 0; k < nt; k++) {
        const uint32_t *row = b->fr + b->train[k] * b->nfeat;
        for (size_t f = 0; f < b->nfeat; f++)
            b->xc[f * nt + k] = row[f];
    }
    if (b->nfitted == b->ntrees)
        count = (b->ntrees + REGROW_PART - 1) / REGROW_PART;
    for (size_t c = 0; c < count; c++) {
        struct tree *tr = &b->trees[b->next_tree];
        uint32_t root;
        size_t m = 0;
        b->next_tree = (b->next_tree + 1) % b->ntrees;
        /* A bootstrap sample as multiplicities: trees of the same law as from the list of
         * draws, each distinct result scanned once per node. */
        memset(b->wt, 0, nt * sizeof *b->wt);
        for (size_t k = 0; k < nt; k++)
            b->wt[ht__rng_below(&s->rng, nt)]++;
        for (size_t k = 0; k < nt; k++)
            if (b->wt[k])
                b->boot[m++] = k;
        tr->n = 0;
        tr->depth = 0;
        if ((rc = push_node(tr, &root)))
            return rc;
        if ((rc = grow(s, b, tr, root, 0, m, 0)))
            return rc;
        if (b->nfitted < b->ntrees)
            b->nfitted++;
    }
    return 0;
}

/* Expected improvement of configuration index over best_y, from the forest's mean and
 * spread. */
static double expected_improvement(const struct bayes *b, size_t index)
{
    const uint32_t *r = b->fr + index * b->nfeat;
    double m = 0, m2 = 0;
    /* WALK_GROUP trees at a time, one step of each in turn, until none moves: in the
     * replay of 400 evaluations of the A100 convolution (table_replay, 6 seeds) the
     * acquisition took 1.5 G cycles instead of 2.8 G, one walk after another. */
    for (size_t t0 = 0; t0 < b->ntrees; t0 += WALK_GROUP) {
        size_t g = b->ntrees - t0 < WALK_GROUP ? b->ntrees - t0 : WALK_GROUP, depth = 0;
        uint32_t at[WALK_GROUP] = {0};
        const struct tree *tr = b->trees + t0;
        for (size_t k = 0; k < g; k++)
            depth = tr[k].depth > depth ? tr[k].depth : depth;
        for (size_t d = 0, moved = 1; d < depth && moved; d++) {
            moved = 0;
            for (size_t k = 0; k < g; k++) {
                const struct node *nd = &tr[k].nodes[at[k]];
                uint32_t next = nd->left + (r[nd->feat] > nd->thr);
                moved |= next != at[k];
                at[k] = next;
            }
        }
        /* The sums in the trees' order, as one walk after another made them. */
        for (size_t k = 0; k < g; k++) {
            double v = tr[k].nodes[at[k]].value;
            m += v;
            m2 += v * v;
        }
    }
    m /= (double)b->ntrees;
    double var = m2 / (double)b->ntrees - m * m, d = b->best_y - m;
    if (!(var > 1e-18))
        return d > 0 ? d : 0;
    double sd = sqrt(var), z = d / sd;
    return d * 0.5 * erfc(-z / sqrt(2.0)) + sd * 0.3989422804014327 * exp(-0.5 * z * z);
}

/* ---- the acquisition ----------------------------------------------------------------- */

struct pick {
    int have;
    size_t index;
    double acq;
};

/* The expected improvement of index, computed once per proposal; an unvisited index
 * competes for the proposal. */
static double consider(struct ht_search *s, struct bayes *b, size_t index, struct pick *pk)
{
    if (b->stamp[index] == b->epoch)
        return b->acq[index];
    b->stamp[index] = b->epoch;
    double a = expected_improvement(b, index);
    b->acq[index] = a;
    if (!ht__search_visited(s, index) && (!pk->have || a > pk->acq)) {
        pk->have = 1;
        pk->index = index;
        pk->acq = a;
    }
    return a;
}

/* Climbs the expected improvement from index through configurations that differ in one
 * parameter. */
static void local_search(struct ht_search *s, struct bayes *b, size_t index, struct pick *pk)
{
    size_t np = b->geom.nparams;
    double cur = consider(s, b, index, pk);

    for (int step = 0; step < LOCAL_STEPS; step++) {
        size_t next = index;
        double best = cur;
        memcpy(b->pt, ht__geom_ranks(&b->geom, index), np * sizeof *b->pt);
        for (size_t v = 0; v < b->nvar; v++) {
            size_t p = b->vars[v];
            uint32_t own = b->pt[p];
            for (uint32_t r = 0; r < b->geom.nvalues[p]; r++) {
                size_t j;
                if (r == own)
                    continue;
                b->pt[p] = r;
                if (ht__geom_lookup(&b->geom, b->pt, &j) == 0) {
                    double a = consider(s, b, j, pk);
                    if (a > best) {
                        best = a;
                        next = j;
                    }
                }
            }
            b->pt[p] = own;
        }
        if (next == index)
            return;
        index = next;
        cur = best;
    }
}

/* Offers the configurations not visited that differ from index in one parameter or, when
 * there is none, in two. */
static void near_best(struct ht_search *s, struct bayes *b, size_t index, int moves,
                      struct pick *pk)
{
    size_t np = b->geom.nparams, j;

    memcpy(b->pt, ht__geom_ranks(&b->geom, index), np * sizeof *b->pt);
    {
        for (size_t v = 0; v < b->nvar; v++) {
            size_t p = b->vars[v];
            uint32_t own = b->pt[p];
            for (uint32_t r = 0; r < b->geom.nvalues[p]; r++) {
                if (r == own)
                    continue;
                b->pt[p] = r;
                if (moves == 1) {
                    if (ht__geom_lookup(&b->geom, b->pt, &j) == 0 && !ht__search_visited(s, j))
                        consider(s, b, j, pk);
                    continue;
                }
                for (size_t v2 = v + 1; v2 < b->nvar; v2++) {
                    size_t p2 = b->vars[v2];
                    uint32_t own2 = b->pt[p2];
                    for (uint32_t r2 = 0; r2 < b->geom.nvalues[p2]; r2++) {
                        if (r2 == own2)
                            continue;
                        b->pt[p2] = r2;
                        if (ht__geom_lookup(&b->geom, b->pt, &j) == 0 &&
                            !ht__search_visited(s, j))
                            consider(s, b, j, pk);
                    }
                    b->pt[p2] = own2;
                }
            }
            b->pt[p] = own;
        }
    }
}

/* Offers the configurations not visited that differ from one of the best FLIP_TOP known
 * ones in flags only: every other combination of the flags' values, the other parameters
 * kept. Returns whether one was offered. */
static int flip_flags(struct ht_search *s, struct bayes *b, struct pick *pk)
{
    size_t np = b->geom.nparams, j;

    for (size_t k = 0; k < b->nrk && k < FLIP_TOP; k++) {
        memcpy(b->pt, ht__geom_ranks(&b->geom, b->rk[k].index), np * sizeof *b->pt);
        for (size_t c = 0; c < b->combos; c++) {
            size_t x = c;
            for (size_t f = 0; f < b->nflag; f++) {
                size_t nv = b->geom.nvalues[b->flags[f]];
                b->pt[b->flags[f]] = (uint32_t)(x % nv);
                x /= nv;
            }
            if (ht__geom_lookup(&b->geom, b->pt, &j) == 0 && !ht__search_visited(s, j))
                consider(s, b, j, pk);
        }
    }
    return pk->have;
}

/* A random configuration not visited, the farthest from the known ones among a few.
 * Returns 0 or HT_DONE. */
static int spread(struct ht_search *s, struct bayes *b, size_t *out)
{
    double best = -1;
    int rc = HT_DONE;
    for (int t = 0; t < SPREAD_TRIES; t++) {
        size_t i;
        if (ht__search_random_unvisited(s, NULL, NULL, &i))
            break;
        const uint32_t *ri = ht__geom_ranks(&b->geom, i);
        double d = INFINITY;
        for (size_t k = 0; k < b->ntrain; k++) {
            double dk = ht__geom_distance(&b->geom, ri, ht__geom_ranks(&b->geom, b->train[k]));
            if (dk < d)
                d = dk;
        }
        if (d > best) {
            best = d;
            *out = i;
            rc = 0;
        }
    }
    return rc;
}

/* Reads the known results from the core's table into the training set. Returns the number
 * of finite ones, or a negative HT_E... code. */
static long collect(struct ht_search *s, struct bayes *b)
{
    size_t n = s->space.count, finite = 0;
    double lo = INFINITY, hi = -INFINITY;
    int positive = 1;

    b->ntrain = 0;
    for (size_t i = 0; i < n; i++) {
        double c = s->cost[i];
        if (isnan(c))
            continue;
        if (b->ntrain == b->cap) {
            size_t cap = b->cap ? 2 * b->cap : 256;
            size_t *t = realloc(b->train, cap * sizeof *t);
            if (!t)
                return HT_ENOMEM;
            b->train = t;
            double *y = realloc(b->y, cap * sizeof *y);
            if (!y)
                return HT_ENOMEM;
            b->y = y;
            size_t *bt = realloc(b->boot, cap * sizeof *bt);
            if (!bt)
                return HT_ENOMEM;
            b->boot = bt;
            uint32_t *wt = realloc(b->wt, cap * sizeof *wt);
            if (!wt)
                return HT_ENOMEM;
            b->wt = wt;
            uint32_t *xc = realloc(b->xc, cap * (b->nfeat ? b->nfeat : 1) * sizeof *xc);
            if (!xc)
                return HT_ENOMEM;
            b->xc = xc;
            struct ranked *rk = realloc(b->rk, cap * sizeof *rk);
            if (!rk)
                return HT_ENOMEM;
            b->rk = rk;
            b->cap = cap;
        }
        b->train[b->ntrain++] = i;
        if (isfinite(c) && c <= 0)
            positive = 0;
    }
    for (size_t k = 0; k < b->ntrain; k++) {
        double c = s->cost[b->train[k]];
        if (!isfinite(c))
            continue;
        double y = positive ? log(c) : c;
        b->y[k] = y;
        lo = y < lo ? y : lo;
        hi = y > hi ? y : hi;
        finite++;
    }
    double fail = hi + FAIL_MARGIN * (hi - lo) + (hi > lo ? 0 : 1);
    for (size_t k = 0; k < b->ntrain; k++)
        if (!isfinite(s->cost[b->train[k]]))
            b->y[k] = fail;
    b->best_y = lo;
    return (long)finite;
}

static int cmp_ranked(const void *x, const void *y)
{
    const struct ranked *a = x, *c = y;
    if (a->cost != c->cost)
        return a->cost < c->cost ? -1 : 1;
    return (a->index > c->index) - (a->index < c->index);
}

static int bayes_next(struct ht_search *s, size_t *index)
{
    struct bayes *b = s->state;
    struct pick pk = {0, 0, 0};
    long finite = collect(s, b);
    int rc;

    if (finite < 0)
        return (int)finite;
    if (finite == 0 || b->ntrain < b->ninit)
        return spread(s, b, index);
    if ((rc = fit(s, b)))
        return rc;

    if (++b->epoch == 0) { /* wrapped: old stamps could match again */
        memset(b->stamp, 0, s->space.count * sizeof *b->stamp);
        b->epoch = 1;
    }
    /* The finite results, best first; the best starts local searches. */
    b->nrk = 0;
    for (size_t k = 0; k < b->ntrain; k++) {
        size_t i = b->train[k];
        if (isfinite(s->cost[i])) {
            b->rk[b->nrk].cost = s->cost[i];
            b->rk[b->nrk++].index = i;
        }
    }
    /* Only the best TOP_RANKED are read (the starts, the flips), in order: selected, not
     * all sorted (cmp_ranked is a total order, so they are the same). */
    for (size_t k = 0; k < TOP_RANKED && k < b->nrk; k++) {
        size_t at = k;
        for (size_t j = k + 1; j < b->nrk; j++)
            if (cmp_ranked(&b->rk[j], &b->rk[at]) < 0)
                at = j;
        struct ranked x = b->rk[k];
        b->rk[k] = b->rk[at];
        b->rk[at] = x;
    }
    size_t nstart = b->nrk < LOCAL_STARTS ? b->nrk : LOCAL_STARTS;
    for (size_t k = 0; k < nstart; k++)
        b->starts[k] = b->rk[k].index;
    /* Two proposals in three search near the best, or in every FLIP_CYCLES-th cycle of
     * three, flip the flags of the best; a third, or when nothing is left near it, the
     * whole space. */
    size_t nth = ++b->proposals;
    if (nth % GLOBAL_EVERY != 0 && b->combos && (nth / GLOBAL_EVERY) % FLIP_CYCLES == 1 &&
        flip_flags(s, b, &pk)) {
        *index = pk.index;
        return 0;
    }
    if (nth % GLOBAL_EVERY != 0 && nstart) {
        near_best(s, b, b->starts[0], 1, &pk);
        if (!pk.have)
            near_best(s, b, b->starts[0], 2, &pk);
        if (pk.have) {
            *index = pk.index;
            return 0;
        }
    }
    for (size_t k = 0; k < nstart; k++)
        local_search(s, b, b->starts[k], &pk);

    /* A uniform sample of the rest. */
    size_t unknown = s->space.count - b->ntrain;
    if (unknown <= b->ncand) {
        for (size_t i = 0; i < s->space.count; i++)
            if (!ht__search_visited(s, i))
                consider(s, b, i, &pk);
    } else {
        for (size_t k = 0; k < b->ncand; k++) {
            size_t i;
            if (ht__search_random_unvisited(s, NULL, NULL, &i))
                break;
            consider(s, b, i, &pk);
        }
    }
    if (!pk.have || !(pk.acq > 0))
        return spread(s, b, index);
    *index = pk.index;
    return 0;
}

static void bayes_report(struct ht_search *s, size_t index, double cost)
{
    /* The model reads every known cost from the core's table at the next proposal. */
    (void)s;
    (void)index;
    (void)cost;
}

const struct ht_search_ops ht__search_bayes = {
    .name = "bayes",
    .description = "bayesian optimisation: random forest over parameter ranks, expected "
                   "improvement",
    .init = bayes_init,
    .next = bayes_next,
    .report = bayes_report,
    .destroy = bayes_destroy,
    .draw = HT_SEARCH_DRAW_SAMPLE,
    /* It learns from every known cost at each proposal and skips those in flight, so it
     * may propose ahead: the proposals in flight are chosen without their results. */
    .lookahead = 1,
};
