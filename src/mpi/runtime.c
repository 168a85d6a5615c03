/* The runtime across nodes (runtime.h's "Across nodes", through mpi's door
 * "mpi/nodes.h"): what the runtime is on one machine, over the nodes of MPI_COMM_WORLD.
 * The set-up and each launch are split.c's, the same code as ht_mpi_split's
 * (ht__mpi_nodes_open, ht__mpi_nodes_launch); this file holds rank 0's bound arrays, the
 * agreement of every rank on each call's outcome and the nodes' info, and the table the
 * runtime calls (ht_mpi_nodes). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/mpi.h"
#include "hetune/runtime.h"
#include "mpi-internal.h"
#include "mpi/nodes.h"

struct ht__mpi_runtime {
    const struct ht_spec *spec;  /* own_spec, or the caller's */
    struct ht_spec *own_spec;
    struct ht_workflow_split_opts wo; /* what the set-up reads (m->opts points here) */
    struct msplit *m;
    int owned;                   /* 1: open initialized MPI, close finalizes it */
    int rank;
    uint64_t *arg_bytes;         /* per spec argument: its bytes (0 for scalars), every rank */
    void **bound;                /* rank 0: per spec argument, the caller's array or NULL */
    struct ht_runtime_node *nodes;       /* world size */
    struct ht_runtime_node_device *devs; /* every rank's devices */
    double *figs;                /* rank 0: the nodes' figures of the last launch */
    struct ht_runtime_nodes info;
};

/* What info holds of the set-up; NULL's allocation failures are HT_ENOMEM. */
static int describe(struct ht__mpi_runtime *rt, struct ht_error *err)
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
    rt->info.rank = rt->rank;
    rt->info.size = size;
    rt->info.node = rt->nodes;
    rt->info.dim = rt->wo.coexec.dim;
    rt->info.last_scatter_s = rt->info.last_gather_s = -1;
    return HT_OK;
}

static void rt_close(struct ht__mpi_runtime *rt);

static int rt_open(const struct ht__mpi_runtime_in *in, struct ht__mpi_runtime **out,
                   struct ht_error *err)
{
    struct ht__mpi_runtime *rt;
    MPI_Errhandler saved;
    int rc;

    *out = NULL;
    rt = calloc(1, sizeof *rt);
    if (!rt)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    rt->wo = *in->opts;
    rc = ht__mpi_start(0, &rt->owned, &saved, err);
    if (rc != HT_OK) {
        free(rt);
        return rc;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rt->rank);

    /* Every rank reads the spec: each must have it (and its kernel) to agree. */
    rt->spec = in->spec;
    if (!rt->spec) {
        rc = ht_spec_load(in->spec_path, in->sizes, in->nsizes, &rt->own_spec, err);
        rt->spec = rt->own_spec;
    }
    if (rc == HT_OK)
        /* The scheduler is checked where the nodes' co-executions are made. */
        rc = ht__mpi_precheck(rt->spec, rt->wo.coexec.dim, NULL, err);
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
    rc = ht__mpi_nodes_open(rt->spec, in->devices, &rt->wo, &rt->m, err);
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
    rt_close(rt);
    return rc;
}

static void rt_close(struct ht__mpi_runtime *rt)
{
    if (!rt)
        return;
    ht__mpi_nodes_free(rt->m);
    free(rt->figs);
    free(rt->devs);
    free(rt->nodes);
    free(rt->bound);
    free(rt->arg_bytes);
    ht_spec_free(rt->own_spec);
    ht__mpi_stop(0, rt->owned, MPI_ERRHANDLER_NULL, 1);
    free(rt);
}

static const struct ht_spec *rt_spec(const struct ht__mpi_runtime *rt)
{
    return rt->spec;
}

static size_t rt_arg_bytes(const struct ht__mpi_runtime *rt, size_t a)
{
    return (size_t)rt->arg_bytes[a];
}

static void *rt_alloc(struct ht__mpi_runtime *rt, size_t bytes, struct ht_error *err)
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
    return ht__mpi_nodes_alloc(rt->m, bytes, err);
}

static void rt_free_host(struct ht__mpi_runtime *rt, void *data)
{
    if (!rt || !data || rt->rank != 0)
        return;
    for (size_t a = 0; a < rt->spec->nargs; a++)
        if (rt->bound[a] == data)
            rt->bound[a] = NULL;
    ht__mpi_nodes_free_host(rt->m, data);
}

static int rt_bind(struct ht__mpi_runtime *rt, size_t a, const char *name, void *data,
                   size_t bytes, struct ht_error *err)
{
    int rc;

    if (rt->rank != 0)
        return ht_error_set(err, HT_EINVAL, "argument '%s': rank %d binds nothing; rank 0's "
                            "arrays are the ones scattered and gathered (bind on rank 0 only)",
                            name, rt->rank);
    rc = ht__mpi_nodes_bind(rt->m, a, data, bytes, err);
    if (rc == HT_OK)
        rt->bound[a] = data;
    return rc;
}

static int rt_launch(struct ht__mpi_runtime *rt, double *wall_s, struct ht_error *err)
{
    struct ht_runtime_nodes *info = &rt->info;
    double fig[HT__MPI_NF] = {0}, wall = 0;
    uint64_t scattered = 0, gathered = 0;
    int rc = HT_OK;

    /* Rank 0 holds the arrays: it checks them, and every rank learns before anything
     * moves. */
    for (size_t a = 0; rt->rank == 0 && a < rt->spec->nargs && rc == HT_OK; a++) {
        const struct ht_arg *arg = &rt->spec->args[a];
        if (arg->is_buffer && arg->access != HT_ACCESS_TEMP && !rt->bound[a])
            rc = ht_error_set(err, HT_EINVAL, "argument '%s' of '%s' is not bound on rank 0 "
                              "(ht_runtime_bind): nothing was launched", arg->name,
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
    *wall_s = wall;
    info->last_scatter_s = fig[HT__MPI_F_SCATTER];
    info->last_gather_s = fig[HT__MPI_F_GATHER];
    info->last_scattered_bytes = scattered;
    info->last_gathered_bytes = gathered;
    for (int r = 0, c = 0; r < info->size; r++) {
        struct ht_runtime_node *n = &rt->nodes[r];
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

static const struct ht_runtime_nodes *rt_nodes(const struct ht__mpi_runtime *rt)
{
    return &rt->info;
}

/* The runtime's way in (mpi's door "mpi/nodes.h"). */
static const struct ht_nodes mpi_nodes = {
    .unavailable = NULL,
    .open = rt_open,
    .close = rt_close,
    .spec = rt_spec,
    .arg_bytes = rt_arg_bytes,
    .alloc = rt_alloc,
    .free_host = rt_free_host,
    .bind = rt_bind,
    .launch = rt_launch,
    .nodes = rt_nodes,
};

/* Here, beside the table, so that a program that calls it links this file (and MPI) from
 * the static library, and one that does not links neither. */
const struct ht_nodes *ht_mpi_nodes(void)
{
    return &mpi_nodes;
}
