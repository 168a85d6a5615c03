/* The runtime across nodes (mpi.h, ht_mpi_runtime_*): what runtime.h is on one machine,
 * over the nodes of MPI_COMM_WORLD. The set-up and each launch are split.c's, the same
 * code as ht_mpi_split's (ht__mpi_nodes_open, ht__mpi_nodes_launch); this file holds the
 * options, rank 0's bound arrays, the agreement of every rank on each call's outcome and
 * the info. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/mpi.h"
#include "mpi-internal.h"
#include "split/coexec.h"

struct ht_mpi_runtime {
    struct ht_spec *spec;
    struct ht_workflow_split_opts wo; /* what the set-up reads (m->opts points here) */
    struct msplit *m;
    int owned;                   /* 1: open initialized MPI, close finalizes it */
    int rank;
    uint64_t *arg_bytes;         /* per spec argument: its bytes (0 for scalars), every rank */
    void **bound;                /* rank 0: per spec argument, the caller's array or NULL */
    struct ht_mpi_runtime_node *nodes;   /* world size */
    struct ht_mpi_runtime_device *devs;  /* every rank's devices */
    double *figs;                /* rank 0: the nodes' figures of the last launch */
    struct ht_mpi_runtime_info info;
};

/* The options of ht_runtime_open that make sense across nodes, as ht_mpi_split's. */
static int split_opts(const struct ht_runtime_opts *o, struct ht_workflow_split_opts *wo,
                      struct ht_error *err)
{
    if (o->devices && strchr(o->devices, ',')) {
        if (err)
            snprintf(err->field, sizeof err->field, "devices");
        return ht_error_set(err, HT_EINVAL, "across nodes, each rank selects its devices with "
                            "one selector (an index or a unique part of a name) or \"all\", "
                            "not the list '%s'", o->devices);
    }
    if (o->tune_missing) {
        if (err)
            snprintf(err->field, sizeof err->field, "tune_missing");
        return ht_error_set(err, HT_EINVAL, "across nodes, the runtime does not tune: tune "
                            "first on the same ranks (mpirun -n K hetune tune SPEC, or "
                            "ht_mpi_tune), then open it with tune_missing 0");
    }
    if (o->mode == HT_RUNTIME_ALONE || o->mode > HT_RUNTIME_ALONE) {
        if (err)
            snprintf(err->field, sizeof err->field, "mode");
        return ht_error_set(err, HT_EINVAL, o->mode == HT_RUNTIME_ALONE
                            ? "across nodes, every node takes a share: HT_RUNTIME_ALONE is "
                              "refused (name one device a node in devices instead)"
                            : "unknown runtime mode %d", (int)o->mode);
    }
    ht_workflow_split_opts_init(wo);
    wo->db = o->db;
    wo->coexec.dim = o->dim;
    wo->coexec.exec = o->exec;
    wo->coexec.sched.residue = o->residue;
    wo->force = o->mode == HT_RUNTIME_SPLIT;
    wo->no_predict = o->no_predict;
    return HT_OK;
}

/* What info holds of the set-up; NULL's allocation failures are HT_ENOMEM. */
static int describe(struct ht_mpi_runtime *rt, struct ht_error *err)
{
    size_t ndev;
    int size;

    ht__mpi_nodes_size(rt->m, &size, &ndev);
    rt->nodes = calloc((size_t)size, sizeof *rt->nodes);
    rt->devs = calloc(ndev ? ndev : 1, sizeof *rt->devs);
    rt->figs = calloc((size_t)size * HT__MPI_NF, sizeof *rt->figs);
    if (!rt->nodes || !rt->devs || !rt->figs)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    ht__mpi_nodes_describe(rt->m, rt->nodes, rt->devs, &rt->info.took_part, &rt->info.global,
                           &rt->info.bound_s, &rt->info.decision);
    rt->info.spec = rt->spec->name;
    rt->info.rank = rt->rank;
    rt->info.size = size;
    rt->info.nodes = rt->nodes;
    rt->info.dim = rt->wo.coexec.dim;
    rt->info.last_wall_s = rt->info.last_scatter_s = rt->info.last_gather_s = -1;
    return HT_OK;
}

int ht_mpi_runtime_open(const char *spec_path, const struct ht_size_override *sizes,
                        size_t nsizes, const struct ht_runtime_opts *opts,
                        struct ht_mpi_runtime **out, struct ht_error *err)
{
    struct ht_runtime_opts defaults;
    struct ht_mpi_runtime *rt;
    MPI_Errhandler saved;
    int rc;

    *out = NULL;
    if (!opts) {
        ht_runtime_opts_init(&defaults);
        opts = &defaults;
    }
    if (!spec_path)
        return ht_error_set(err, HT_EINVAL, "no spec given");
    rt = calloc(1, sizeof *rt);
    if (!rt)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    /* The options are the same on every rank: refused on every rank alike, before MPI. */
    rc = split_opts(opts, &rt->wo, err);
    if (rc == HT_OK)
        rc = ht__mpi_start(0, &rt->owned, &saved, err);
    if (rc != HT_OK) {
        free(rt);
        return rc;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rt->rank);

    /* Every rank reads the spec: each must have it (and its kernel) to agree. */
    rc = ht_spec_load(spec_path, sizes, nsizes, &rt->spec, err);
    if (rc == HT_OK)
        /* A written buffer without "index" passes: rank 0 infers it (split.c). */
        rc = ht__coexec_check_spec_probing(rt->spec, rt->wo.coexec.dim, NULL, 2, err);
    if (rc == HT_OK) {
        rt->arg_bytes = calloc(rt->spec->nargs, sizeof *rt->arg_bytes);
        rt->bound = calloc(rt->spec->nargs, sizeof *rt->bound);
        if (!rt->arg_bytes || !rt->bound)
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    rc = ht__mpi_agree(MPI_COMM_WORLD, rc, err);
    if (rc != HT_OK)
        goto fail;

    /* The set-up of ht_mpi_split: configurations, each node's speed, the plan, slices. */
    rc = ht__mpi_nodes_open(rt->spec, opts->devices, &rt->wo, &rt->m, err);
    if (rc != HT_OK)
        goto fail;
    if (rt->rank == 0)
        for (size_t i = 0; i < rt->spec->nargs; i++)
            rt->arg_bytes[i] = ht__mpi_nodes_arg_bytes(rt->m, i);
    MPI_Bcast(rt->arg_bytes, (int)rt->spec->nargs, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    rc = ht__mpi_agree(MPI_COMM_WORLD, describe(rt, err), err);
    if (rc != HT_OK)
        goto fail;
    *out = rt;
    return HT_OK;
fail:
    ht_mpi_runtime_close(rt);
    return rc;
}

void ht_mpi_runtime_close(struct ht_mpi_runtime *rt)
{
    if (!rt)
        return;
    ht__mpi_nodes_free(rt->m);
    free(rt->figs);
    free(rt->devs);
    free(rt->nodes);
    free(rt->bound);
    free(rt->arg_bytes);
    ht_spec_free(rt->spec);
    ht__mpi_stop(0, rt->owned, MPI_ERRHANDLER_NULL, 1);
    free(rt);
}

int ht_mpi_runtime_arg_bytes(const struct ht_mpi_runtime *rt, const char *name,
                             size_t *bytes, struct ht_error *err)
{
    size_t a;
    int rc = ht_spec_bind_arg(rt->spec, name, &a, err);

    if (rc == HT_OK)
        *bytes = (size_t)rt->arg_bytes[a];
    return rc;
}

void *ht_mpi_runtime_alloc(struct ht_mpi_runtime *rt, size_t bytes, struct ht_error *err)
{
    if (bytes == 0) {
        ht_error_set(err, HT_EINVAL, "cannot allocate 0 bytes");
        return NULL;
    }
    if (rt->rank != 0) {
        ht_error_set(err, HT_EINVAL, "rank %d allocates nothing: rank 0's arrays are the only "
                     "ones scattered and gathered", rt->rank);
        return NULL;
    }
    return ht__coexec_alloc(ht__mpi_nodes_coexec(rt->m), bytes, err);
}

void ht_mpi_runtime_free_host(struct ht_mpi_runtime *rt, void *data)
{
    if (!rt || !data || rt->rank != 0)
        return;
    for (size_t a = 0; a < rt->spec->nargs; a++)
        if (rt->bound[a] == data)
            rt->bound[a] = NULL;
    ht__coexec_free_host(ht__mpi_nodes_coexec(rt->m), data);
}

int ht_mpi_runtime_bind(struct ht_mpi_runtime *rt, const char *name, void *data,
                        size_t bytes, struct ht_error *err)
{
    size_t a;
    int rc = ht_spec_bind_arg(rt->spec, name, &a, err);

    if (rc == HT_OK)
        rc = ht_spec_check_array(rt->spec, a, data, bytes, (size_t)rt->arg_bytes[a], err);
    if (rc != HT_OK)
        return rc;
    if (rt->rank != 0)
        return ht_error_set(err, HT_EINVAL, "argument '%s': rank %d binds nothing; rank 0's "
                            "arrays are the ones scattered and gathered (bind on rank 0 only)",
                            name, rt->rank);
    rc = ht__coexec_bind(ht__mpi_nodes_coexec(rt->m), a, data, bytes, err);
    if (rc == HT_OK)
        rt->bound[a] = data;
    return rc;
}

int ht_mpi_runtime_launch(struct ht_mpi_runtime *rt, struct ht_error *err)
{
    struct ht_mpi_runtime_info *info = &rt->info;
    double fig[HT__MPI_NF] = {0}, wall = 0;
    uint64_t scattered = 0, gathered = 0;
    int rc = HT_OK;

    /* Rank 0 holds the arrays: it checks them, and every rank learns before anything
     * moves. */
    for (size_t a = 0; rt->rank == 0 && a < rt->spec->nargs && rc == HT_OK; a++) {
        const struct ht_arg *arg = &rt->spec->args[a];
        if (arg->is_buffer && arg->access != HT_ACCESS_TEMP && !rt->bound[a])
            rc = ht_error_set(err, HT_EINVAL, "argument '%s' of '%s' is not bound on rank 0 "
                              "(ht_mpi_runtime_bind): nothing was launched", arg->name,
                              rt->spec->name);
    }
    rc = ht__mpi_agree(MPI_COMM_WORLD, rc, err);
    if (rc != HT_OK)
        return rc;
    if (ht__mpi_nodes_part(rt->m))
        rc = ht__mpi_nodes_launch(rt->m, fig, rt->figs, &wall, &scattered, &gathered, err);
    /* The nodes that take no part learn the outcome too. */
    rc = ht__mpi_agree(MPI_COMM_WORLD, rc, err);
    if (rc != HT_OK)
        return rc;
    info->launches++;
    info->last_wall_s = wall;
    info->last_scatter_s = fig[HT__MPI_F_SCATTER];
    info->last_gather_s = fig[HT__MPI_F_GATHER];
    info->last_scattered_bytes = scattered;
    info->last_gathered_bytes = gathered;
    for (int r = 0, c = 0; r < info->size; r++) {
        struct ht_mpi_runtime_node *n = &rt->nodes[r];
        const double *f = rt->rank == 0 ? &rt->figs[(size_t)c * HT__MPI_NF]
                                        : r == rt->rank ? fig : NULL;
        if (!n->took_part)
            continue;
        c++; /* the nodes that take part, in rank order: their communicator's order */
        if (!f)
            continue;
        n->run_s = f[HT__MPI_F_RUN];
        n->scatter_s = f[HT__MPI_F_SCATTER];
        n->gather_s = f[HT__MPI_F_GATHER];
    }
    return HT_OK;
}

const struct ht_mpi_runtime_info *ht_mpi_runtime_info(const struct ht_mpi_runtime *rt)
{
    return &rt->info;
}
