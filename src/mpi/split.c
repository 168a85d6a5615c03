/* Co-execution across nodes over MPI (issue 16, deliverable 2; mpi.h, docs/scale.md):
 * `mpirun -n K hetune split SPEC`. Each rank is a node: it co-executes on its own devices
 * as `hetune split` does on one machine (src/coexec/), first the whole problem (its
 * time gives its speed), then its share. The node shares are Eq. 4 one level up: the
 * planner (ht_split_plan_make) on the nodes' measured times, each node's work-group
 * being the least common multiple of its devices' work-groups along the split dimension,
 * so that its slice is whole work-groups of every one of its devices. Rank 0 holds the
 * database (each device's configuration), the inputs and the gathered outputs: inputs go
 * out and outputs come back by slice only (MPI_Scatterv / MPI_Gatherv of the slab of the
 * axis walked by the split dimension, halos included, computed by the co-execution's own
 * slicing, ht__coexec_share), and rank 0 verifies the result against one of its devices
 * alone (ht__coexec_check). A rank whose devices cannot co-execute the whole problem is
 * reported and left out; the others share the work. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/mpi.h"
#include "coexec/coexec.h"
#include "mpi-internal.h"
#include "util/util.h"

#define WHY_MAX HT__MPI_WHY_MAX

/* What rank 0's database holds of one device of some rank. */
struct devcfg {
    int32_t ok, pad;
    double tuned_s;
    int64_t config[HT_STORE_MAX_PARAMS];
    char text[HT_STORE_CONFIG_MAX];
    char why[WHY_MAX];
    int32_t has_bw, pad2;       /* 1: bw is its link from `hetune devices --bandwidth` */
    struct ht_bandwidth bw;
};

/* A rank's host memory rates as rank 0's database holds them for its host
 * (`hetune devices --bandwidth` run there): the floor under its own split's prediction. */
struct hostrate {
    int32_t has, pad;
    struct ht_host_memory hm;
};

/* What a node tells every rank after co-executing the whole problem. */
struct node {
    int32_t ok, ndev;           /* ok 1: it co-executed the whole problem */
    uint64_t units;             /* units along the split dimension (its global size) */
    uint64_t granule;           /* lcm of its devices' work-groups along it, in units */
    double alone_s, kernel_s;   /* its wall and kernel-only times of the whole problem */
    double alone_min_s;         /* its fastest run of it */
    char why[WHY_MAX];          /* why not ok */
    int32_t split, pad;         /* 1: it splits over its devices (ht__decide) */
    double predicted_split_s;   /* ht__decide's figures; -1 unknown */
    double predicted_alone_s, measured_split_s;
    char decision[256];         /* its decision in words (ht__decide) */
    double first_s;             /* alone_s as first measured (the bound's); alone_s is
                                   then refined from its slices (--refine) */
    struct ht_load load;        /* what other processes did while its decision measured */
};

/* Where one node's slice lies in one buffer (its struct ht__slab, as every rank sees
 * it). */
struct want {
    int32_t in_whole, out_whole;
    uint64_t in_lo, in_hi, out_lo, out_hi;
    uint64_t len, outer, inner;
};

/* A node's figures of the distributed runs, per run (mpi-internal.h). */
enum { F_RUN = HT__MPI_F_RUN, F_SCATTER = HT__MPI_F_SCATTER, F_GATHER = HT__MPI_F_GATHER,
       NF = HT__MPI_NF };

/* What run_nodes returns when a node other than rank 0 failed in its slice: the others
 * plan again without it. */
#define REPLAN 1

/* What one distributed run moves around a node's slice (the moves of its share, io of
 * ht__coexec_share): the inputs scattered from rank 0's host arrays, the owned outputs
 * gathered into them, and when each was done. */
struct moves {
    struct msplit *m;
    double t1, t2, t3;          /* the inputs scattered; the outputs' gather begun, ended */
};

/* Everything one call holds; freed in one place. */
struct msplit {
    const struct ht_spec *spec;
    const struct ht_workflow_split_opts *opts;
    int rank0_failed;            /* rank 0 failed while the nodes started, and told this one */
    int runtime;                 /* 1: the runtime across nodes (ht__mpi_nodes_open) */
    struct ht__mpi_world w;
    struct devcfg *cfg;          /* w.total */
    struct hostrate *hostmem;    /* w.size: each rank's host memory rates, from rank 0's
                                    database by the rank's hostname */
    struct node *nodes;          /* w.size */
    struct ht__decision dec;     /* this node's decision: its co-execution (dec.cx), its
                                    run of the whole problem (dec.res) and its share's last
                                    run (dec.last) */
    struct ht_split_plan plan;   /* over the nodes that took part */
    int *part;                   /* w.size: index in the plan, -1 when left out */
    uint64_t *scale;             /* w.size: the plan's units in one of the node's own (the
                                    nodes' units are the lcm of theirs; 1 when they agree) */
    size_t np;
    MPI_Comm comm;               /* the nodes that take part, rank 0 first */
    int crank, csize;
    int *cworld;                 /* csize: their world ranks */
    struct ht__slab *slabs;      /* 2 x nargs: this node's, from its share (prepare) */
    struct moves moves;          /* its share's moves (io.user), each run's times */
    struct want *wants;          /* csize x nargs */
    MPI_Datatype *types;         /* nargs: one index of the split axis */
    int *cnt, *dsp, *ord;        /* csize each: a collective's counts, displacements, order */
    uint64_t *clo, *chi;         /* csize each: the parts of a partition of the slabs */
    unsigned nruns, keep;
    double *walls;               /* rank 0: nruns distributed wall times */
    double *figs;                /* rank 0: csize x nruns x NF; else nruns x NF */
    uint64_t scattered, gathered;/* bytes per run to and from the other nodes */
    int verified;                /* -1 not verified, 0 failed, 1 passed */
    int nodes_split;             /* 1: the work is split over the nodes; 0: rank 0 alone */
    double measured_split_s;     /* > 0: the split over the nodes measured this much, not
                                    faster than rank 0's node alone: it runs alone */
    unsigned rounds;             /* --refine: the rounds made so far */
    double *round_times;         /* rounds x w.size: the node times each round planned with */
    unsigned kept;               /* > 0: round kept - 1 was the shortest and ran again last */
    double round_wall[HT_MAX_REPEATS]; /* rank 0: each round's distributed wall time (the
                                    mean of the best keep of its runs), round 0 first */
    char decision[320];          /* the nodes' split-or-alone decision, in words */
    struct ht_error verr;
    /* The written buffers without "index": rank 0's inference (from its database, else
     * probed on one of its devices and stored), sent to every rank, so that each node's
     * co-execution (copts, m->opts->coexec with it) owns the same slabs. */
    struct ht_split_written *written; /* spec->nargs, or NULL when there is none */
    struct ht_coexec_opts copts;
};

static const char *const dim_names[] = {"gx", "gy", "gz"};

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Rank 0, its database open: which elements each slice of a written buffer without
 * "index" writes, as `hetune split` and the runtime find it (ht__decide's read: stored,
 * else probed on the fastest of rank 0's devices that works in place, with the
 * configuration the database gives it, and stored). A buffer whose writes no slab
 * explains fails the split, saying what the probe saw. */
static int infer_written(struct msplit *m, struct ht_store *store, int64_t problem_id,
                         struct ht_error *err)
{
    struct ht_workflow_device *wd = NULL;
    struct ht__decision read;
    size_t first, n, k = 0, unindexed = 0;
    int rc = HT_OK;

    for (size_t i = 0; i < m->spec->nargs; i++) {
        const struct ht_arg *a = &m->spec->args[i];
        unindexed += a->is_buffer && !a->has_index &&
                     (a->access == HT_ACCESS_WRITE || a->access == HT_ACCESS_READWRITE);
    }
    if (!unindexed)
        return HT_OK; /* every written buffer has its index: nothing to look up */
    first = ht__mpi_world_rank_devices(&m->w, 0, &n);
    wd = calloc(n ? n : 1, sizeof *wd);
    if (!wd)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t j = 0; j < n; j++) {
        const struct devcfg *c = &m->cfg[first + j];
        if (!c->ok)
            continue;
        wd[k].dev = &m->w.plat->devices[m->w.first + j];
        /* The row the probe is stored with: the device as rank 0's database knows it. */
        if (ht_store_device_id(store, wd[k].dev, &wd[k].device_id, err) != HT_OK) {
            free(wd);
            return err && err->code ? err->code : HT_EDB;
        }
        memcpy(wd[k].config, c->config, sizeof wd[k].config);
        snprintf(wd[k].config_text, sizeof wd[k].config_text, "%s", c->text);
        wd[k++].tuned_s = c->tuned_s;
    }
    rc = ht__decide(&(struct ht__decide_in){
                        .spec = m->spec, .devs = wd, .n = k,
                        .read = &(struct ht__read){
                            .store = store, .problem_id = problem_id,
                            .path = m->opts->coexec.exec.data_path, .infer = 1,
                            .dim = m->opts->coexec.dim, .exec = &m->opts->coexec.exec,
                            .on_note = m->opts->on_note, .user = m->opts->user,
                            .devices_are = "rank 0's devices with a configuration"}},
                    &read, err);
    if (rc == HT_OK) {
        m->written = read.basis.written; /* taken from the decision */
        read.basis.written = NULL;
    }
    ht__decision_destroy(&read);
    free(wd);
    return rc;
}

/* Rank 0: each device's best configuration from the database (nothing is tuned: over MPI
 * that is `mpirun -n K hetune tune`'s work). */
static int find_configs(struct msplit *m, struct ht_error *err)
{
    const struct ht_workflow_split_opts *o = m->opts;
    struct ht_workflow_best_opts bo;
    struct ht_tune_opts topts;
    struct ht_store *store = NULL;
    int64_t problem_id;
    int rc;

    if (o->tune) {
        topts = *o->tune;
    } else {
        ht_tune_opts_init(&topts);
        topts.eq3 = o->coexec.exec.eq3;
        topts.exec = o->coexec.exec;
    }
    memset(&bo, 0, sizeof bo);
    bo.topts = &topts;
    bo.no_predict = o->no_predict;
    bo.unverified = m->spec->verify == HT_VERIFY_NONE || topts.exec.no_verify;
    /* Its stop ends the database's wait too, unless o->store has one (workflow.h). */
    rc = ht_workflow_open(o->db, o->store, o->stop, m->spec, &store, &problem_id, err);
    for (size_t d = 0; rc == HT_OK && d < m->w.total; d++) {
        struct ht_workflow_device wd;
        struct ht_error e;
        int brc;

        memset(&wd, 0, sizeof wd);
        wd.dev = &m->w.all[d];
        ht_error_clear(&e);
        brc = ht_workflow_best(m->spec, store, problem_id, &bo, &wd, &e);
        if (brc == HT_OK) {
            struct ht__decision read; /* its host memory rates are rank 0's: each rank's
                                         are read below */
            m->cfg[d].ok = 1;
            m->cfg[d].tuned_s = wd.tuned_s;
            memcpy(m->cfg[d].config, wd.config, sizeof wd.config);
            snprintf(m->cfg[d].text, sizeof m->cfg[d].text, "%s", wd.config_text);
            /* The device's stored link, read as the runtime reads its devices'. */
            rc = ht__decide(&(struct ht__decide_in){
                                .spec = m->spec, .devs = &wd, .n = 1,
                                .read = &(struct ht__read){
                                    .store = store, .path = o->coexec.exec.data_path}},
                            &read, err);
            if (rc == HT_OK && read.basis.link[0]) {
                m->cfg[d].bw = read.basis.links[0];
                m->cfg[d].has_bw = 1;
            }
            ht__decision_destroy(&read);
        } else if (brc == HT_ENOTFOUND) {
            /* Short enough for the node's reason (WHY_MAX, after the device's name): the
             * workflow's message, longer, names the database last and lost it. */
            snprintf(m->cfg[d].why, sizeof m->cfg[d].why,
                     "no configuration of '%.40s' at these sizes in %.80s (run 'mpirun -n K "
                     "hetune tune' on the same ranks first)",
                     m->spec->name, ht_store_path(store));
        } else {
            rc = brc;
            *err = e;
        }
    }
    for (int r = 0; rc == HT_OK && r < m->w.size; r++)
        /* Left zeroed (calloc) where the store holds none. */
        m->hostmem[r].has = ht_store_get_host_memory_of(
            store, &m->w.hosts[(size_t)r * HT__MPI_HOST_MAX], &m->hostmem[r].hm, NULL) == HT_OK;
    if (rc == HT_OK)
        rc = infer_written(m, store, problem_id, err);
    ht_store_close(store);
    return rc;
}

/* This node decides between co-executing on its devices that have a configuration and
 * the fastest of them alone, as `hetune split` does on one machine (ht__decide: --force,
 * --margin and --plan apply), and measures what it decided on the whole problem: its
 * speed. Fills m->nodes[rank] (ok, or why not). */
static void node_whole(struct msplit *m, struct node *me)
{
    struct ht__mpi_world *w = &m->w;
    const struct ht_bandwidth **bw = NULL;
    struct ht_workflow_device *wd = NULL;
    struct ht__decide_in in;
    struct ht__decision d;
    struct ht_error e;
    size_t first, n, k = 0;
    int rc;

    memset(me, 0, sizeof *me);
    memset(&d, 0, sizeof d);
    ht_error_clear(&e);
    first = ht__mpi_world_rank_devices(w, w->rank, &n);
    if (n == 0) {
        snprintf(me->why, sizeof me->why, "no device: %s",
                 w->whys[(size_t)w->rank * WHY_MAX] ? &w->whys[(size_t)w->rank * WHY_MAX]
                                                    : "none selected");
        return;
    }
    wd = calloc(n, sizeof *wd);
    bw = calloc(n, sizeof *bw);
    if (!wd || !bw) {
        snprintf(me->why, sizeof me->why, "out of memory");
        goto done;
    }
    for (size_t j = 0; j < n; j++)
        if (m->cfg[first + j].ok) {
            const struct devcfg *c = &m->cfg[first + j];
            wd[k].dev = &w->plat->devices[w->first + j];
            memcpy(wd[k].config, c->config, sizeof wd[k].config);
            snprintf(wd[k].config_text, sizeof wd[k].config_text, "%s", c->text);
            wd[k].tuned_s = c->tuned_s;
            bw[k++] = c->has_bw ? &c->bw : NULL;
        }
    if (k == 0) {
        snprintf(me->why, sizeof me->why, "device %zu (%.40s): %.190s",
                 w->plat->devices[w->first].index, w->plat->devices[w->first].name,
                 m->cfg[first].why);
        goto done;
    }
    in = (struct ht__decide_in){m->spec, wd, k, bw, &m->copts, &m->copts,
                                m->opts->force ? HT__DECIDE_SPLIT : HT__DECIDE_AUTO, 1,
                                m->opts->paper_plan,
                                m->hostmem[w->rank].has ? &m->hostmem[w->rank].hm : NULL,
                                m->opts->stop, m->opts->on_device_wait, m->opts->wait_user,
                                &me->load, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0};
    rc = ht__decide(&in, &d, &e);
    if (rc != HT_OK) {
        ht_error_format(&e, me->why, sizeof me->why);
        goto done;
    }
    /* What it decided, and its run of the whole problem (run_chosen), are the node's. */
    m->dec = d;
    memset(&d, 0, sizeof d);
    me->ok = 1;
    me->ndev = (int32_t)m->dec.ncx;
    me->units = m->dec.res.global;
    me->alone_s = m->dec.res.wall_s;
    me->first_s = me->alone_s;
    me->alone_min_s = m->dec.res.wall_min_s;
    me->kernel_s = m->dec.res.kernel_s;
    me->split = m->dec.split;
    me->predicted_split_s = m->dec.predicted_split_s;
    me->predicted_alone_s = m->dec.predicted_alone_s;
    me->measured_split_s = m->dec.measured_split_s;
    snprintf(me->decision, sizeof me->decision, "%s", m->dec.text);
    me->granule = 1;
    for (size_t j = 0; j < m->dec.res.ndevices; j++) {
        uint64_t g = m->dec.res.devices[j].wg ? m->dec.res.devices[j].wg : 1;
        me->granule = me->granule / gcd64(me->granule, g) * g;
    }
done:
    ht__decision_destroy(&d);
    free(wd);
    free(bw);
}

/* Eq. 4 one level up: the nodes that co-executed the whole problem share it by their
 * times, in whole granules. Every rank computes the same plan from the same numbers. */
static int plan_nodes(struct msplit *m, struct ht_error *err)
{
    struct ht_split_device_in *in = calloc((size_t)m->w.size, sizeof *in);
    const struct node *n0 = &m->nodes[0];
    double margin = m->opts->coexec.margin;
    uint64_t units = 1, common = 1;
    int same = 1, rc;

    if (!in)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    /* The nodes' units: the lcm of each node's own (a node whose configurations launch
     * fewer work-items along the split dimension, each covering more elements, has
     * fewer), as a node's devices share theirs. Where they differ, every node's granule
     * is the lcm of all of them in those units, so that each slice and offset is whole
     * units of every node and whole work-groups of every device. */
    for (int r = 0; r < m->w.size; r++) {
        const struct node *n = &m->nodes[r];
        uint64_t g;
        if (!n->ok)
            continue;
        same &= n->units == n0->units;
        g = gcd64(units, n->units);
        if (units / g > (UINT64_C(1) << 53) / n->units) {
            free(in);
            return ht_error_set(err, HT_ESPEC,
                                "the nodes' global sizes along %s (rank %d's %" PRIu64 ") "
                                "have a least common multiple above 2^53: they cannot share "
                                "a split", dim_names[m->opts->coexec.dim], r, n->units);
        }
        units = units / g * n->units;
    }
    for (int r = 0; r < m->w.size; r++) {
        const struct node *n = &m->nodes[r];
        uint64_t gr;
        m->scale[r] = n->ok ? units / n->units : 1;
        if (!n->ok)
            continue;
        gr = n->granule * m->scale[r];
        common = common / gcd64(common, gr) * gr;
    }
    m->np = 0;
    for (int r = 0; r < m->w.size; r++) {
        const struct node *n = &m->nodes[r];
        m->part[r] = -1;
        if (!n->ok)
            continue;
        in[m->np].wg = same ? n->granule : common;
        in[m->np].time_s = n->alone_s;
        m->part[r] = (int)m->np++;
    }
    rc = ht_split_plan_make(units, in, m->np, NULL, &m->plan, err);
    m->nodes_split = m->np > 1;
    if (rc != HT_OK || m->np < 2) {
        snprintf(m->decision, sizeof m->decision, "one node: nothing to split");
        free(in);
        return rc;
    }
    /* The split-or-alone decision one level up: rank 0 holds the data, so the other
     * nodes must win the margin over rank 0's node alone (ht_split_decide's rule, against
     * rank 0 rather than the fastest), as a node's devices must over its fastest alone
     * (the nodes' times: each node's measured run of the whole problem;
     * the slices as launched, in whole granules). */
    if (!(margin >= 0.0 && isfinite(margin)))
        margin = HT_SPLIT_MARGIN_DEFAULT;
    m->nodes_split = m->opts->force || (m->measured_split_s <= 0 &&
                                        m->plan.adjusted_time_s * (1.0 + margin) <= n0->alone_s);
    if (m->nodes_split) {
        snprintf(m->decision, sizeof m->decision,
                 "split over %zu nodes%s: Eq. 4 predicts %.6g s, rank 0's node alone %.6g s",
                 m->np, m->opts->force ? " as asked" : "", m->plan.adjusted_time_s,
                 n0->alone_s);
        free(in);
        return HT_OK;
    }
    if (m->measured_split_s > 0)
        snprintf(m->decision, sizeof m->decision,
                 "rank 0's node alone: the split over %zu nodes measured %.6g s (Eq. 4 "
                 "predicted %.6g s), not faster than rank 0's node alone (%.6g s; --force "
                 "splits anyway)",
                 m->np, m->measured_split_s, m->plan.adjusted_time_s, n0->alone_s);
    else
        snprintf(m->decision, sizeof m->decision,
                 "rank 0's node alone: Eq. 4 over %zu nodes predicts %.6g s, not %.0f%% "
                 "faster than rank 0's node alone (%.6g s; --force splits anyway)",
                 m->np, m->plan.adjusted_time_s, 100.0 * margin, n0->alone_s);
    for (int r = 1; r < m->w.size; r++)
        m->part[r] = -1;
    m->np = 1;
    ht_split_plan_destroy(&m->plan);
    rc = ht_split_plan_make(units, in, 1, NULL, &m->plan, err);
    free(in);
    return rc;
}

/* The MPI type of one index of buffer i's split axis: outer blocks of inner bytes, one per
 * index of the axes before it, len * inner bytes apart; its extent one index. */
static int make_type(const struct want *wt, MPI_Datatype *t, struct ht_error *err)
{
    MPI_Datatype v;

    if (wt->outer > INT_MAX || wt->inner > INT_MAX || wt->len * wt->inner > INT_MAX)
        return ht_error_set(err, HT_EINVAL, "a buffer's slab is too large for one MPI "
                            "datatype (2^31 bytes a row)");
    if (wt->outer == 1) {
        /* The axis is the leading one: a slab is contiguous, and MPI copies it as is. */
        MPI_Type_contiguous((int)wt->inner, MPI_BYTE, t);
    } else {
        MPI_Type_vector((int)wt->outer, (int)wt->inner, (int)(wt->len * wt->inner), MPI_BYTE,
                        &v);
        MPI_Type_create_resized(v, 0, (MPI_Aint)wt->inner, t);
        MPI_Type_free(&v);
    }
    MPI_Type_commit(t);
    return HT_OK;
}

/* Each node's slab of every buffer, on every rank of the nodes' communicator. */
static int gather_wants(struct msplit *m, struct ht_error *err)
{
    const struct ht_spec *spec = m->spec;
    size_t na = spec->nargs;
    struct want *mine = calloc(na ? na : 1, sizeof *mine);
    int rc = HT_OK, ok, all_ok;

    m->wants = calloc((size_t)m->csize * (na ? na : 1), sizeof *m->wants);
    m->types = calloc(na ? na : 1, sizeof *m->types);
    m->cnt = calloc((size_t)m->csize, sizeof *m->cnt);
    m->dsp = calloc((size_t)m->csize, sizeof *m->dsp);
    m->ord = calloc((size_t)m->csize, sizeof *m->ord);
    m->clo = calloc((size_t)m->csize, sizeof *m->clo);
    m->chi = calloc((size_t)m->csize, sizeof *m->chi);
    ok = mine && m->wants && m->types && m->cnt && m->dsp && m->ord && m->clo && m->chi;
    for (size_t i = 0; m->types && i < na; i++)
        m->types[i] = MPI_DATATYPE_NULL;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, m->comm); /* all fail, or none */
    if (!all_ok) {
        free(mine);
        return ht_error_set(err, HT_ENOMEM, "out of memory (on rank %d or another)",
                            m->w.rank);
    }
    for (size_t i = 0; i < na; i++) {
        const struct ht__slab *in = &m->slabs[2 * i], *out = &m->slabs[2 * i + 1];
        if (!spec->args[i].is_buffer)
            continue;
        mine[i] = (struct want){in->whole, out->whole, in->lo, in->hi, out->lo, out->hi,
                                in->len, in->outer, in->inner};
    }
    MPI_Allgather(mine, (int)(na * sizeof *mine), MPI_BYTE, m->wants, (int)(na * sizeof *mine),
                  MPI_BYTE, m->comm);
    free(mine);
    for (size_t i = 0; i < na && rc == HT_OK; i++) {
        const struct want *w0 = &m->wants[i];
        if (!spec->args[i].is_buffer)
            continue;
        for (int r = 1; r < m->csize; r++) {
            const struct want *wr = &m->wants[(size_t)r * na + i];
            if (wr->len != w0->len || wr->outer != w0->outer || wr->inner != w0->inner) {
                snprintf(err->field, sizeof err->field, "args[%zu].shape", i);
                return ht_error_set(err, HT_ESPEC, "buffer '%s' has another shape on rank %d "
                                    "than on rank 0: the nodes' configurations must agree "
                                    "on it", spec->args[i].name, m->cworld[r]);
            }
        }
        rc = make_type(w0, &m->types[i], err);
    }
    return rc;
}

/* Sends each node the input slab its slice reads, from rank 0's host array: first each
 * node's part of a partition of them (a node's slab up to where the next one's begins),
 * then, round by round, what each still lacks of the k-th next node's part (the halo), so
 * that no element of rank 0 is read twice in one MPI_Scatterv. A buffer some node needs
 * whole, or slabs out of order, is broadcast whole. */
static void scatter_input(struct msplit *m, size_t i, void *base)
{
    size_t na = m->spec->nargs;
    int cs = m->csize, whole = 0, *cnt = m->cnt, *dsp = m->dsp, *ord = m->ord;
    uint64_t *clo = m->clo, *chi = m->chi;
    const struct want *w0 = &m->wants[i];
    int nord = 0;

    /* The nodes with a slab, by where it starts. */
    for (int r = 0; r < cs; r++) {
        const struct want *wr = &m->wants[(size_t)r * na + i];
        int k;
        whole |= wr->in_whole;
        if (wr->in_hi <= wr->in_lo)
            continue;
        for (k = nord; k > 0 && m->wants[(size_t)ord[k - 1] * na + i].in_lo > wr->in_lo; k--)
            ord[k] = ord[k - 1];
        ord[k] = r;
        nord++;
    }
    for (int k = 1; k < nord && !whole; k++)
        whole = m->wants[(size_t)ord[k] * na + i].in_hi <
                m->wants[(size_t)ord[k - 1] * na + i].in_hi;
    if (whole)
        goto bcast;
    for (int k = 0; k < nord; k++) {
        const struct want *wr = &m->wants[(size_t)ord[k] * na + i];
        clo[ord[k]] = wr->in_lo;
        chi[ord[k]] = wr->in_hi;
        if (k + 1 < nord && m->wants[(size_t)ord[k + 1] * na + i].in_lo < chi[ord[k]])
            chi[ord[k]] = m->wants[(size_t)ord[k + 1] * na + i].in_lo;
    }
    for (int round = 0; round < (nord ? nord : 1); round++) {
        int any = 0;
        for (int k = 0; k < nord; k++) {
            int r = ord[k];
            const struct want *wr = &m->wants[(size_t)r * na + i];
            uint64_t lo = clo[r], hi = chi[r];
            if (round > 0) {
                /* What r lacks of the part of the node round places after it. */
                int o = k + round < nord ? ord[k + round] : -1;
                lo = o < 0 ? 0 : clo[o] > chi[r] ? clo[o] : chi[r];
                hi = o < 0 ? 0 : chi[o] < wr->in_hi ? chi[o] : wr->in_hi;
            }
            cnt[r] = hi > lo ? (int)(hi - lo) : 0;
            dsp[r] = hi > lo ? (int)lo : 0;
            any |= cnt[r] > 0 && r != 0;
            if (m->crank == 0 && r != 0)
                m->scattered += (uint64_t)cnt[r] * w0->outer * w0->inner;
        }
        if (!any)
            continue;
        if (m->crank == 0)
            MPI_Scatterv(base, cnt, dsp, m->types[i], MPI_IN_PLACE, 0, m->types[i], 0, m->comm);
        else
            MPI_Scatterv(NULL, cnt, dsp, m->types[i],
                         (char *)base + (size_t)dsp[m->crank] * w0->inner, cnt[m->crank],
                         m->types[i], 0, m->comm);
    }
    return;
bcast:
    if (m->crank == 0)
        m->scattered += (uint64_t)(cs - 1) * w0->len * w0->outer * w0->inner;
    MPI_Bcast(base, (int)(w0->len * w0->outer * w0->inner), MPI_BYTE, 0, m->comm);
}

/* Brings each node's owned slab of written buffer i into rank 0's host array. */
static void gather_output(struct msplit *m, size_t i, void *base)
{
    size_t na = m->spec->nargs;
    int cs = m->csize, *cnt = m->cnt, *dsp = m->dsp;
    const struct want *mine = &m->wants[(size_t)m->crank * na + i];

    for (int r = 0; r < cs; r++) {
        const struct want *wr = &m->wants[(size_t)r * na + i];
        cnt[r] = wr->out_hi > wr->out_lo ? (int)(wr->out_hi - wr->out_lo) : 0;
        dsp[r] = (int)wr->out_lo;
        if (m->crank == 0 && r != 0)
            m->gathered += (uint64_t)cnt[r] * wr->outer * wr->inner;
    }
    if (m->crank == 0)
        MPI_Gatherv(MPI_IN_PLACE, 0, m->types[i], base, cnt, dsp, m->types[i], 0, m->comm);
    else
        MPI_Gatherv((char *)base + mine->out_lo * mine->inner, cnt[m->crank], m->types[i], NULL,
                    NULL, NULL, m->types[i], 0, m->comm);
}

static void move_slabs(void *user, int output, void *const *host)
{
    struct moves *mv = user;
    struct msplit *m = mv->m;

    if (output)
        mv->t2 = MPI_Wtime();
    for (size_t i = 0; i < m->spec->nargs; i++)
        if (host[i] && output)
            gather_output(m, i, host[i]);
        else if (host[i])
            scatter_input(m, i, host[i]);
    if (output)
        mv->t3 = MPI_Wtime();
    else
        mv->t1 = MPI_Wtime();
}

/* One distributed run over the nodes that take part: inputs scattered from rank 0's
 * host arrays, every node's slice, the owned outputs gathered into rank 0's, timed at
 * rank 0 from a barrier to the last slab gathered. Each slice runs as its share was
 * taken (prepare; a launch of the share, ht__coexec_launch): the runtime's on its
 * co-execution's bound arrays; ht_mpi_split's as one measured run, the first after the
 * share (its untimed run) with every buffer poisoned first, the timed ones without it.
 * fig (NF) receives
 * this node's scatter, run and gather seconds, *wall (rank 0) the whole. Returns HT_OK,
 * REPLAN when some node failed in its slice, every node then holding *whys (owned,
 * free(); csize x WHY_MAX, empty for the nodes that did not fail), or HT_ENOMEM. */
static int run_once(struct msplit *m, double *fig, double *wall, char **whys,
                    struct ht_error *err)
{
    struct moves *mv = &m->moves;
    char why[WHY_MAX] = "";
    double t0;
    int ok = 1, all_ok;
    struct ht_error e;

    *whys = NULL;
    ht_error_clear(&e);
    *mv = (struct moves){m, 0, 0, 0};
    MPI_Barrier(m->comm);
    t0 = MPI_Wtime();
    if (ht__coexec_launch(m->dec.cx, &m->dec.last, NULL, &e) != HT_OK) {
        ok = 0;
        ht_error_format(&e, why, sizeof why);
    }
    fig[F_RUN] = mv->t2 - mv->t1;
    fig[F_SCATTER] = mv->t1 - t0;
    fig[F_GATHER] = mv->t3 - mv->t2;
    *wall = mv->t3 - t0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, m->comm);
    if (all_ok)
        return HT_OK;
    /* Every node learns who failed, and why. */
    *whys = calloc((size_t)m->csize, WHY_MAX);
    ok = *whys != NULL;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, m->comm);
    if (!all_ok) {
        free(*whys);
        *whys = NULL;
        return ht_error_set(err, HT_ENOMEM, "out of memory (on rank %d or another)",
                            m->w.rank);
    }
    MPI_Allgather(why, WHY_MAX, MPI_CHAR, *whys, WHY_MAX, MPI_CHAR, m->comm);
    return REPLAN;
}

/* The mean of the best keep of n values (the runs kept). */
static double mean_best(const double *v, unsigned n, unsigned keep)
{
    double sorted[HT_MAX_REPEATS], sum = 0;

    for (unsigned k = 0; k < n; k++)
        sorted[k] = v[k];
    for (unsigned a = 0; a < keep && a < n; a++)
        for (unsigned b = a + 1; b < n; b++)
            if (sorted[b] < sorted[a]) {
                double t = sorted[a];
                sorted[a] = sorted[b];
                sorted[b] = t;
            }
    for (unsigned k = 0; k < keep && k < n; k++)
        sum += sorted[k] / keep;
    return sum;
}

/* One round of --refine one level up (`hetune split --refine`'s idea for nodes): each
 * node's time for the whole problem becomes its slice's measured time over its share (the
 * mean of the best runs, in the split's own conditions: what the nodes share, on a shared
 * host, is in it), and the nodes plan again (REPLAN). Rank 0 holds every node's figures. */
static int refine_nodes(struct msplit *m, struct ht_error *err)
{
    double *t = calloc((size_t)m->csize, sizeof *t);

    if (!t)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    if (m->crank == 0) {
        m->round_wall[m->rounds] = mean_best(m->walls, m->nruns, m->keep);
        for (int c = 0; c < m->csize; c++) {
            const struct ht_split_slice *sl = &m->plan.slices[m->part[m->cworld[c]]];
            double run[HT_MAX_REPEATS];
            for (unsigned k = 0; k < m->nruns; k++)
                run[k] = m->figs[((size_t)c * m->nruns + k) * NF + F_RUN];
            t[c] = sl->size ? mean_best(run, m->nruns, m->keep) * (double)m->plan.global /
                                  (double)sl->size
                            : 0;
        }
    }
    MPI_Bcast(t, m->csize, MPI_DOUBLE, 0, m->comm);
    MPI_Bcast(m->round_wall, (int)(m->rounds + 1), MPI_DOUBLE, 0, m->comm);
    if (!m->round_times)
        m->round_times = calloc((size_t)HT_MAX_REPEATS * (size_t)m->w.size,
                                sizeof *m->round_times);
    for (int r = 0; m->round_times && r < m->w.size; r++)
        m->round_times[(size_t)m->rounds * (size_t)m->w.size + r] = m->nodes[r].alone_s;
    for (int c = 0; c < m->csize; c++)
        if (t[c] > 0 && isfinite(t[c]))
            m->nodes[m->cworld[c]].alone_s = t[c];
    free(t);
    m->rounds++;
    return REPLAN;
}

/* After the last round, as one machine's refinement keeps its best round: when an earlier
 * round's runs were shorter than the last's, its plan runs again and is the result (the
 * rounds move shares little where runs vary more than plans differ). */
static int keep_best_round(struct msplit *m)
{
    int best = -1;

    if (m->crank == 0) {
        double last = mean_best(m->walls, m->nruns, m->keep), least = last;
        for (unsigned k = 0; k < m->rounds; k++)
            if (m->round_wall[k] < least) {
                least = m->round_wall[k];
                best = (int)k;
            }
    }
    MPI_Bcast(&best, 1, MPI_INT, 0, m->comm);
    if (best < 0 || !m->round_times)
        return HT_OK;
    for (int r = 0; r < m->w.size; r++)
        m->nodes[r].alone_s = m->round_times[(size_t)best * (size_t)m->w.size + r];
    m->kept = (unsigned)best + 1;
    return REPLAN;
}

/* The distributed runs of ht_mpi_split: one untimed run, then nruns timed ones. A node
 * that fails in its slice: without rank 0 (its inputs, its check) there is no split;
 * without another, it is marked and the others split again (REPLAN). */
static int run_nodes(struct msplit *m, struct ht_error *err)
{
    double *mine = calloc((size_t)m->nruns * NF, sizeof *mine);
    char *whys = NULL;
    int rc = HT_OK;

    if (!mine)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (int run = -1; run < (int)m->nruns && rc == HT_OK; run++) {
        double fig[NF], wall;

        /* run -1, the share's first, poisons every buffer first (prepare's share). */
        rc = run_once(m, fig, &wall, &whys, err);
        if (rc == REPLAN) {
            for (int r = 0; r < m->csize; r++) {
                struct node *n = &m->nodes[m->cworld[r]];
                if (!whys[(size_t)r * WHY_MAX])
                    continue;
                if (r == 0) {
                    rc = ht_error_set(err, HT_ELAUNCH, "rank 0 failed in its slice: %s",
                                      whys);
                    break;
                }
                n->ok = 0;
                snprintf(n->why, sizeof n->why, "failed in its slice (the others split "
                         "again): %.200s", &whys[(size_t)r * WHY_MAX]);
            }
            break;
        }
        if (rc != HT_OK)
            break;
        if (run < 0) {
            m->scattered = m->gathered = 0; /* the bytes of the timed runs, averaged below */
            continue;
        }
        if (m->crank == 0)
            m->walls[run] = wall;
        memcpy(&mine[(size_t)run * NF], fig, sizeof fig);
    }
    free(whys);
    if (rc == HT_OK)
        MPI_Gather(mine, (int)(m->nruns * NF), MPI_DOUBLE, m->figs, (int)(m->nruns * NF),
                   MPI_DOUBLE, 0, m->comm);
    free(mine);
    if (m->nruns)
        m->scattered /= m->nruns, m->gathered /= m->nruns;
    if (rc == HT_OK && m->csize > 1 && !m->opts->force) {
        /* Measured as well as predicted, as one machine's decision: a split over the nodes
         * no faster than rank 0's node alone (the bytes it moves are not in Eq. 4) is not
         * kept; rank 0's node runs alone instead (the others plan again without them). */
        double wall = 0;
        if (m->crank == 0) {
            wall = mean_best(m->walls, m->nruns, m->keep);
            if (wall < m->nodes[0].alone_s)
                wall = 0;
        }
        MPI_Bcast(&wall, 1, MPI_DOUBLE, 0, m->comm);
        if (wall > 0) {
            m->measured_split_s = wall;
            rc = REPLAN;
        }
    }
    if (rc == HT_OK && m->csize > 1 && m->rounds < m->opts->refine &&
        m->rounds + 1 < HT_MAX_REPEATS)
        rc = refine_nodes(m, err);
    else if (rc == HT_OK && m->csize > 1 && m->rounds > 0 && !m->kept)
        rc = keep_best_round(m);
    return rc;
}

/* The runs kept (the best keep by wall time), rank 0. */
static void kept_runs(const struct msplit *m, unsigned *idx)
{
    for (unsigned k = 0; k < m->nruns; k++)
        idx[k] = k;
    /* A selection by wall time, stable on ties. */
    for (unsigned a = 0; a < m->nruns; a++)
        for (unsigned b = a + 1; b < m->nruns; b++)
            if (m->walls[idx[b]] < m->walls[idx[a]]) {
                unsigned t = idx[a];
                idx[a] = idx[b];
                idx[b] = t;
            }
}

/* Rank 0's figures: the distributed wall time, the bound, each node's means. */
struct figures {
    double wall_s, wall_min_s, bound_s, adjusted_s, efficiency;
    double bound_min_s, efficiency_min; /* the same from the fastest runs alone */
    double *node;                /* csize x NF means over the kept runs */
};

static int figures(const struct msplit *m, struct figures *f)
{
    unsigned *idx = calloc(m->nruns ? m->nruns : 1, sizeof *idx);
    double inv = 0, inv_min = 0;

    memset(f, 0, sizeof *f);
    f->node = calloc((size_t)m->csize * NF, sizeof *f->node);
    if (!idx || !f->node) {
        free(idx);
        return HT_ENOMEM;
    }
    kept_runs(m, idx);
    f->wall_min_s = m->walls[idx[0]];
    for (unsigned k = 0; k < m->keep; k++) {
        f->wall_s += m->walls[idx[k]] / m->keep;
        for (int r = 0; r < m->csize; r++)
            for (int q = 0; q < NF; q++)
                f->node[(size_t)r * NF + q] +=
                    m->figs[((size_t)r * m->nruns + idx[k]) * NF + q] / m->keep;
    }
    free(idx);
    /* Eq. 4's bound from the nodes' times: max_i S_i t_i = 1 / sum_j (1 / t_j). */
    /* Over every node that could take part, whether or not the nodes' decision used it:
     * the best split of the nodes' measured times. */
    for (int r = 0; r < m->w.size; r++)
        if (m->nodes[r].ok) {
            inv += 1.0 / m->nodes[r].first_s;
            inv_min += 1.0 / m->nodes[r].alone_min_s;
        }
    f->bound_s = inv > 0 ? 1.0 / inv : 0;
    f->bound_min_s = inv_min > 0 ? 1.0 / inv_min : 0;
    f->efficiency_min = f->wall_min_s > 0 ? f->bound_min_s / f->wall_min_s : 0;
    f->adjusted_s = m->plan.adjusted_time_s;
    f->efficiency = f->wall_s > 0 ? f->bound_s / f->wall_s : 0;
    return HT_OK;
}

/* The comm rank of world rank r, or -1. */
static int crank_of(const struct msplit *m, int r)
{
    for (int c = 0; c < m->csize; c++)
        if (m->cworld[c] == r)
            return c;
    return -1;
}

/* A copy of s ("" for NULL), NULL when out of memory. */
static char *dup_text(const char *s)
{
    return strdup(s ? s : "");
}

/* Rank 0: what the split did, into out. HT_ENOMEM, out holding what it could
 * (ht_mpi_split_result_destroy). */
static int split_result(const struct msplit *m, const struct figures *f,
                        struct ht_mpi_split_result *out, struct ht_error *err)
{
    const struct ht__mpi_world *w = &m->w;
    double *walls = m->rounds ? calloc(m->rounds, sizeof *walls) : NULL;

    out->took_part = m->np;
    out->dim = m->opts->coexec.dim;
    out->global = m->plan.global;
    /* No scheduler named: the registry's first, the default (split.h). */
    out->scheduler = dup_text(m->opts->coexec.scheduler ? m->opts->coexec.scheduler
                                                        : ht_split_schedulers[0]->name);
    out->decision = dup_text(m->decision);
    out->round_wall_s = walls;
    out->reference = dup_text(m->verified >= 0 ? m->dec.last.reference : "");
    out->mismatch = dup_text(m->verified == 0 ? m->verr.text : "");
    out->nodes = calloc((size_t)w->size, sizeof *out->nodes);
    if (!out->scheduler || !out->decision || (m->rounds && !walls) || !out->reference ||
        !out->mismatch || !out->nodes)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    out->nodes_split = m->nodes_split;
    out->rounds = m->rounds;
    for (unsigned k = 0; k < m->rounds; k++)
        walls[k] = m->round_wall[k];
    out->kept_again = m->kept > 0;
    out->kept_round = m->kept ? m->kept - 1 : m->rounds;
    out->bound_s = f->bound_s;
    out->adjusted_s = f->adjusted_s;
    out->wall_s = f->wall_s;
    out->wall_min_s = f->wall_min_s;
    out->runs = m->nruns;
    out->keep_best = m->keep;
    out->efficiency = f->efficiency;
    out->bound_min_s = f->bound_min_s;
    out->efficiency_min = f->efficiency_min;
    out->scattered_bytes = m->scattered;
    out->gathered_bytes = m->gathered;
    out->verified = m->verified;
    if (m->verified >= 0) {
        out->max_abs_err = m->dec.last.max_abs_err;
        out->max_rel_err = m->dec.last.max_rel_err;
    }
    for (int r = 0; r < w->size; r++) {
        const struct node *n = &m->nodes[r];
        struct ht_mpi_split_node *o = &out->nodes[out->nnodes++];
        struct ht_mpi_split_device *devs;
        size_t first, nd;

        first = ht__mpi_world_rank_devices(w, r, &nd);
        o->rank = r;
        o->state = m->part[r] >= 0 ? HT_MPI_NODE_OK
                   : n->ok         ? HT_MPI_NODE_NOT_USED
                                   : HT_MPI_NODE_LEFT_OUT;
        o->host = dup_text(&w->hosts[(size_t)r * HT__MPI_HOST_MAX]);
        o->why = dup_text(o->state == HT_MPI_NODE_OK         ? ""
                          : o->state == HT_MPI_NODE_NOT_USED ? m->decision
                                                             : n->why);
        o->decision = dup_text(n->ok ? n->decision : "");
        o->devices = devs = calloc(nd ? nd : 1, sizeof *devs);
        if (!o->host || !o->why || !o->decision || !devs)
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        for (size_t j = 0; j < nd; j++) {
            const struct devcfg *dc = &m->cfg[first + j];
            struct ht_device_info *dev = malloc(sizeof *dev);
            struct ht_mpi_split_device *d = &devs[o->ndevices++];
            d->device = dev;
            d->usable = dc->ok;
            d->tuned_s = dc->ok ? dc->tuned_s : 0;
            d->config = dup_text(dc->ok ? dc->text : "");
            d->why = dup_text(dc->ok ? "" : dc->why);
            if (!dev || !d->config || !d->why)
                return ht_error_set(err, HT_ENOMEM, "out of memory");
            *dev = w->all[first + j];
        }
        o->load = n->load;
        if (n->ok) {
            o->granule = n->granule;
            o->alone_s = n->first_s;
            o->refined_s = n->alone_s;
            o->alone_min_s = n->alone_min_s;
            o->alone_kernel_s = n->kernel_s;
            o->node_split = n->split;
            o->predicted_split_s = n->predicted_split_s;
            o->predicted_alone_s = n->predicted_alone_s;
            o->measured_split_s = n->measured_split_s;
        }
        if (o->state == HT_MPI_NODE_OK) {
            const struct ht_split_slice *s = &m->plan.slices[m->part[r]];
            const double *fg = &f->node[(size_t)crank_of(m, r) * NF];
            o->optimal_factor = s->optimal_factor;
            o->share = s->adjusted_factor;
            o->offset = s->offset;
            o->size = s->size;
            o->own_offset = s->own_offset;
            o->own_size = s->own_size;
            o->split_s = fg[F_RUN];
            o->scatter_s = fg[F_SCATTER];
            o->gather_s = fg[F_GATHER];
        }
    }
    return HT_OK;
}

/* Forgets what one attempt of the nodes' split made (its plan, communicator, slabs). */
static void attempt_reset(struct msplit *m)
{
    for (size_t i = 0; m->types && i < m->spec->nargs; i++)
        if (m->types[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&m->types[i]);
    free(m->types);
    free(m->slabs);
    m->slabs = NULL;
    free(m->wants);
    free(m->walls);
    free(m->figs);
    free(m->cworld);
    free(m->cnt);
    free(m->dsp);
    free(m->ord);
    free(m->clo);
    free(m->chi);
    m->cnt = m->dsp = m->ord = NULL;
    m->clo = m->chi = NULL;
    m->types = NULL;
    m->wants = NULL;
    m->walls = m->figs = NULL;
    m->cworld = NULL;
    m->scattered = m->gathered = 0;
    ht_split_plan_destroy(&m->plan);
}

/* The set-up over the nodes left: plan, the communicator of those that take part (split
 * from the last attempt's, or from the world), each node's slice (then gather_wants, its
 * slabs). HT_OK (this rank takes no part: m->comm is MPI_COMM_NULL; or it has its slice)
 * or an error, the same on every node that takes part. */
static int prepare(struct msplit *m, struct ht_error *err)
{
    MPI_Comm prev = m->comm;
    int rc, ok, all_ok, mine;

    attempt_reset(m);
    if (!m->nodes[0].ok)
        return ht_error_set(err, HT_ENOTFOUND, "rank 0 (%s) cannot co-execute the whole "
                            "problem, and it holds the inputs and verifies the result: %s",
                            m->w.hosts, m->nodes[0].why);
    rc = plan_nodes(m, err);
    if (rc != HT_OK)
        return rc;
    mine = m->part[m->w.rank] >= 0;
    /* The nodes that take part talk among themselves; the others are done. */
    MPI_Comm_split(prev != MPI_COMM_NULL ? prev : MPI_COMM_WORLD, mine ? 0 : MPI_UNDEFINED,
                   m->w.rank, &m->comm);
    if (prev != MPI_COMM_NULL)
        MPI_Comm_free(&prev);
    if (!mine)
        return HT_OK;
    MPI_Comm_rank(m->comm, &m->crank);
    MPI_Comm_size(m->comm, &m->csize);
    m->cworld = calloc((size_t)m->csize, sizeof *m->cworld);
    if (!m->cworld)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    MPI_Allgather(&m->w.rank, 1, MPI_INT, m->cworld, 1, MPI_INT, m->comm);

    /* This node's slice; its inputs are only what rank 0 sends it. */
    {
        const struct ht_split_slice *sl = &m->plan.slices[m->part[m->w.rank]];
        uint64_t k = m->scale[m->w.rank]; /* the plan's units in one of this node's */
        /* The runtime's launches run on bound arrays: on the nodes other than rank 0,
         * their co-execution's own; rank 0's are the caller's. ht_mpi_split's runs are
         * measured, the first poisoned (run_nodes). */
        struct ht__share_of of = {.offset = sl->offset / k, .size = sl->size / k,
                                  .own_offset = sl->own_offset / k,
                                  .own_size = sl->own_size / k, .poison = m->crank != 0,
                                  .bind_own = m->runtime && m->crank != 0,
                                  .measured = !m->runtime, .io = {move_slabs, &m->moves}};
        struct ht_error e;
        char why[WHY_MAX] = "";
        ht_error_clear(&e);
        m->slabs = calloc(2 * (m->spec->nargs ? m->spec->nargs : 1), sizeof *m->slabs);
        ok = m->slabs != NULL;
        if (!ok)
            snprintf(why, sizeof why, "out of memory");
        if (ok && ht__coexec_share(m->dec.cx, &of, m->slabs, &e) != HT_OK) {
            ok = 0;
            ht_error_format(&e, why, sizeof why);
        }
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, m->comm);
        if (!all_ok)
            return ht_error_set(err, HT_EINVAL, "a node cannot take its slice%s%s",
                                why[0] ? ": " : "", why);
    }
    return HT_OK;
}

/* One attempt of ht_mpi_split over the nodes left: the set-up, then the runs. HT_OK
 * (done: this rank took no part, or the runs were made), REPLAN (a node other than rank
 * 0 failed in its slice and is marked), or an error. */
static int attempt(struct msplit *m, struct ht_error *err)
{
    const struct ht_spec *spec = m->spec;
    int rc = prepare(m, err), ok, all_ok;

    if (rc != HT_OK || m->comm == MPI_COMM_NULL)
        return rc;
    rc = gather_wants(m, err);
    m->nruns = m->opts->coexec.repeats ? m->opts->coexec.repeats : spec->repeats;
    m->keep = m->opts->coexec.keep_best ? m->opts->coexec.keep_best : spec->keep_best;
    if (m->nruns == 0)
        m->nruns = 1;
    if (m->nruns > HT_MAX_REPEATS)
        m->nruns = HT_MAX_REPEATS;
    if (m->keep == 0 || m->keep > m->nruns)
        m->keep = m->nruns;
    m->walls = calloc(m->nruns, sizeof *m->walls);
    m->figs = calloc((size_t)m->csize * m->nruns * NF, sizeof *m->figs);
    if (rc == HT_OK && (!m->walls || !m->figs))
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
    ok = rc == HT_OK;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, m->comm);
    if (!all_ok)
        return rc != HT_OK ? rc : ht_error_set(err, HT_EINVAL, "another node failed; see "
                                               "its message");
    return run_nodes(m, err);
}

/* The part after every node measured the whole problem: the plan and the runs, again
 * without a node that fails in its slice; then rank 0's check and result. */
static int split_nodes(struct msplit *m, struct ht_mpi_split_result *out,
                       struct ht_error *err)
{
    struct figures f = {0};
    struct ht_error de;
    int rc;

    while ((rc = attempt(m, err)) == REPLAN)
        ;
    if (rc != HT_OK || m->comm == MPI_COMM_NULL || m->crank != 0)
        return rc;

    /* Rank 0: the gathered outputs against one of its devices alone. */
    ht_error_clear(&m->verr);
    ht_error_clear(&de);
    rc = ht__coexec_check(m->dec.cx, 0, &m->dec.last, m->opts->dump, &m->verr, &de);
    m->verified = m->dec.last.verified;
    if (rc != HT_OK && rc != HT_EVERIFY) {
        *err = m->verr;
        return rc;
    }
    if (de.code) {
        *err = de;
        return de.code;
    }
    if (figures(m, &f) != HT_OK)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    rc = split_result(m, &f, out, err);
    free(f.node);
    return rc;
}

/* Every rank's devices, each device's configuration from rank 0's database, each node's
 * whole run (its speed), gathered on every rank: the set-up before any plan. Collective
 * over MPI_COMM_WORLD; fewer than min_ranks ranks is HT_EINVAL. */
static int nodes_start(struct msplit *m, const char *device, int min_ranks,
                       struct ht_error *err)
{
    struct node me;
    int ok = 1, rc;

    rc = ht__mpi_world_gather(device, &m->w, err);
    if (rc != HT_OK)
        return rc;
    if (m->w.size < min_ranks)
        return ht_error_set(err, HT_EINVAL, "over MPI, split needs at least %d ranks, not %d",
                            min_ranks, m->w.size);
    m->cfg = calloc(m->w.total ? m->w.total : 1, sizeof *m->cfg);
    m->hostmem = calloc((size_t)m->w.size, sizeof *m->hostmem);
    m->nodes = calloc((size_t)m->w.size, sizeof *m->nodes);
    m->part = calloc((size_t)m->w.size, sizeof *m->part);
    m->scale = calloc((size_t)m->w.size, sizeof *m->scale);
    if (!m->cfg || !m->hostmem || !m->nodes || !m->part || !m->scale)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    /* Rank 0's database gives every device its configuration, every node its host
     * memory's rates. */
    if (m->w.rank == 0)
        ok = (rc = find_configs(m, err)) == HT_OK;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok && m->w.rank != 0)
        m->rank0_failed = 1;
    if (!ok)
        return m->w.rank != 0 ? ht_error_set(err, HT_EINVAL, "rank 0 failed; see its message")
                              : rc;
    MPI_Bcast(m->cfg, (int)(m->w.total * sizeof *m->cfg), MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Bcast(m->hostmem, (int)((size_t)m->w.size * sizeof *m->hostmem), MPI_BYTE, 0,
              MPI_COMM_WORLD);
    /* Rank 0's inference of the written buffers without "index", for every node. */
    {
        int has = m->written != NULL;
        MPI_Bcast(&has, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (has && !m->written)
            m->written = calloc(m->spec->nargs, sizeof *m->written);
        ok = !has || m->written;
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!ok)
            return ht_error_set(err, HT_ENOMEM, "out of memory (on rank %d or another)",
                                m->w.rank);
        if (has)
            MPI_Bcast(m->written, (int)(m->spec->nargs * sizeof *m->written), MPI_BYTE, 0,
                      MPI_COMM_WORLD);
        m->copts.written = m->written;
    }

    /* Each node's speed: its co-execution of the whole problem. */
    node_whole(m, &me);
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, m->nodes, (int)sizeof me, MPI_BYTE,
                  MPI_COMM_WORLD);
    return HT_OK;
}

/* Frees what m holds, not m itself. */
static void nodes_release(struct msplit *m)
{
    attempt_reset(m);
    if (m->comm != MPI_COMM_NULL)
        MPI_Comm_free(&m->comm);
    ht__decision_destroy(&m->dec);
    free(m->part);
    free(m->scale);
    free(m->round_times);
    free(m->nodes);
    free(m->cfg);
    free(m->hostmem);
    free(m->written);
    m->written = NULL;
    ht__mpi_world_destroy(&m->w);
}

int ht__mpi_precheck(const struct ht_spec *spec, unsigned dim, const char *scheduler,
                     struct ht_error *err)
{
    /* A written buffer without "index" passes: rank 0 infers it (infer_written). */
    return ht__coexec_precheck(&(struct ht__precheck){.spec = spec, .dim = dim,
                                                      .scheduler = scheduler, .n = 2},
                               NULL, err);
}

int ht_mpi_split(const struct ht_spec *spec, const char *device,
                 const struct ht_workflow_split_opts *opts, struct ht_mpi_split_result *out,
                 struct ht_error *err)
{
    struct msplit m;
    MPI_Errhandler saved;
    int owned = 0, started = 0, rc;

    if (!out)
        return ht_error_set(err, HT_EINVAL, "ht_mpi_split: out is NULL");
    memset(out, 0, sizeof *out);
    out->verified = -1;
    if (!spec || !opts)
        return ht_error_set(err, HT_EINVAL, "ht_mpi_split: %s is NULL", !spec ? "spec" : "opts");
    memset(&m, 0, sizeof m);
    m.spec = spec;
    m.opts = opts;
    m.copts = opts->coexec;
    m.verified = -1;
    m.comm = MPI_COMM_NULL;
    if (opts->sweep > 0 || opts->dop)
        return ht_error_set(err, HT_EINVAL, "over MPI, split does not take %s: each node runs "
                            "its share once per run",
                            opts->sweep > 0 ? "--sweep" : "--dop");
    rc = ht__mpi_precheck(spec, opts->coexec.dim, opts->coexec.scheduler, err);
    if (rc != HT_OK)
        return rc;
    rc = ht__mpi_start(1, &owned, &saved, err);
    if (rc != HT_OK)
        return rc;
    started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &out->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &out->size);
    rc = nodes_start(&m, device, 2, err);
    if (rc == HT_OK)
        rc = split_nodes(&m, out, err);
    out->rank0_failed = rc != HT_OK && m.rank0_failed;
    nodes_release(&m);
    if (started)
        ht__mpi_stop(1, owned, saved, 1);
    return rc;
}

/* --- the runtime across nodes (runtime.c) --- */

int ht__mpi_nodes_open(const struct ht_spec *spec, const char *device,
                       const struct ht_workflow_split_opts *opts, struct msplit **out,
                       struct ht_error *err)
{
    struct msplit *m = calloc(1, sizeof *m);
    int rc = HT_OK;

    *out = m;
    if (!m)
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
    if (m) {
        m->spec = spec;
        m->opts = opts;
        m->copts = opts->coexec;
        m->verified = -1;
        m->comm = MPI_COMM_NULL;
        m->runtime = 1;
        rc = nodes_start(m, device, 1, err);
    }
    if (rc == HT_OK)
        rc = prepare(m, err);
    /* The nodes other than rank 0 launch on their co-execution's own arrays, bound by
     * their share (prepare). */
    if (rc == HT_OK && m->comm != MPI_COMM_NULL)
        rc = gather_wants(m, err);
    return ht__mpi_agree(MPI_COMM_WORLD, rc, err);
}

void ht__mpi_nodes_free(struct msplit *m)
{
    if (!m)
        return;
    nodes_release(m);
    free(m);
}

/* This rank's co-execution, NULL when it takes no part. */
static struct ht_coexec *nodes_coexec(struct msplit *m)
{
    return m->comm != MPI_COMM_NULL ? m->dec.cx : NULL;
}

void *ht__mpi_nodes_alloc(struct msplit *m, size_t bytes, struct ht_error *err)
{
    return ht__coexec_alloc(nodes_coexec(m), bytes, err);
}

void ht__mpi_nodes_free_host(struct msplit *m, void *data)
{
    ht__coexec_free_host(nodes_coexec(m), data);
}

int ht__mpi_nodes_bind(struct msplit *m, size_t a, void *data, size_t bytes,
                       struct ht_error *err)
{
    return ht__coexec_bind(nodes_coexec(m), a, data, bytes, err);
}

int ht__mpi_nodes_part(const struct msplit *m)
{
    return m->comm != MPI_COMM_NULL;
}

uint64_t ht__mpi_nodes_arg_bytes(const struct msplit *m, size_t i)
{
    const struct want *w0;

    if (!m->wants || i >= m->spec->nargs || !m->spec->args[i].is_buffer)
        return 0;
    w0 = &m->wants[i];
    return w0->len * w0->outer * w0->inner;
}

int ht__mpi_nodes_launch(struct msplit *m, double *fig, double *figs, double *wall,
                         uint64_t *scattered, uint64_t *gathered, struct ht_error *err)
{
    char *whys = NULL;
    int rc;

    m->scattered = m->gathered = 0;
    rc = run_once(m, fig, wall, &whys, err);
    if (rc == REPLAN) {
        int r = 0;
        while (r < m->csize && !whys[(size_t)r * WHY_MAX])
            r++;
        rc = ht_error_set(err, HT_ELAUNCH, "rank %d (%s) failed in its slice: %s",
                          m->cworld[r], &m->w.hosts[(size_t)m->cworld[r] * HT__MPI_HOST_MAX],
                          &whys[(size_t)r * WHY_MAX]);
    }
    free(whys);
    if (rc != HT_OK)
        return rc;
    MPI_Gather(fig, NF, MPI_DOUBLE, figs, NF, MPI_DOUBLE, 0, m->comm);
    *scattered = m->scattered;
    *gathered = m->gathered;
    return HT_OK;
}

void ht__mpi_nodes_size(const struct msplit *m, int *size, size_t *ndevices)
{
    *size = m->w.size;
    *ndevices = m->w.total;
}

void ht__mpi_nodes_describe(const struct msplit *m, struct ht_runtime_node *nodes,
                            struct ht_runtime_node_device *devs, size_t *took_part,
                            uint64_t *global, double *bound_s, const char **decision)
{
    const struct ht__mpi_world *w = &m->w;
    double inv = 0;

    for (size_t d = 0; d < w->total; d++) {
        const struct devcfg *dc = &m->cfg[d];
        devs[d] = (struct ht_runtime_node_device){&w->all[d], dc->ok, "", dc->tuned_s,
                                                 dc->ok ? "" : dc->why};
        if (dc->ok)
            snprintf(devs[d].config, sizeof devs[d].config, "%s", dc->text);
    }
    for (int r = 0; r < w->size; r++) {
        const struct node *n = &m->nodes[r];
        struct ht_runtime_node *o = &nodes[r];
        size_t first = ht__mpi_world_rank_devices(w, r, &o->ndevices);
        o->rank = r;
        o->host = &w->hosts[(size_t)r * HT__MPI_HOST_MAX];
        o->devices = &devs[first];
        o->took_part = m->part[r] >= 0;
        o->why = o->took_part ? "" : n->ok ? m->decision : n->why;
        o->alone_s = n->ok ? n->alone_s : 0;
        if (n->ok)
            inv += 1.0 / n->alone_s;
        if (o->took_part) {
            const struct ht_split_slice *sl = &m->plan.slices[m->part[r]];
            o->share = sl->adjusted_factor;
            o->offset = sl->offset;
            o->size = sl->size;
            o->own_offset = sl->own_offset;
            o->own_size = sl->own_size;
        }
    }
    *took_part = m->np;
    *global = m->plan.global;
    *bound_s = inv > 0 ? 1.0 / inv : 0;
    *decision = m->decision;
}
