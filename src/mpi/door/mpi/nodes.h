/* MPI's door for the runtime (src/runtime): a runtime whose nodes are the ranks of
 * MPI_COMM_WORLD, what ht_runtime_open makes of opts.nodes = ht_mpi_nodes() (runtime.h,
 * "Across nodes"). The runtime keeps the one handle and its checks (open handles, NULL
 * arguments, the options that make no sense across nodes); these functions do the rest,
 * collective where runtime.h says so, through one table, struct ht_nodes (runtime.h's
 * opaque type), which ht_mpi_nodes (mpi.h) returns: src/mpi/runtime.c's in a build with
 * MPI, src/mpi/env.c's refusing one (unavailable) without it. No MPI header is named here:
 * the runtime does not see MPI. */
#ifndef HETUNE_MPI_NODES_H
#define HETUNE_MPI_NODES_H

#include <stddef.h>

#include "hetune/error.h"
#include "hetune/runtime.h"
#include "hetune/spec.h"
#include "hetune/workflow.h"

struct ht__mpi_runtime; /* opaque */

/* What ht__mpi_runtime_open opens. */
struct ht__mpi_runtime_in {
    const char *spec_path;   /* loaded by every rank (with sizes, nsizes) when spec is NULL */
    const struct ht_size_override *sizes;
    size_t nsizes;
    const struct ht_spec *spec; /* borrowed until close: every rank's own (ht_runtime_open_spec) */
    const char *devices;     /* one selector each rank applies on its own node, NULL: all */
    const struct ht_workflow_split_opts *opts; /* as ht_mpi_split's (db, coexec.dim, exec,
                                residue, force, no_predict); copied */
};

/* The nodes of a runtime (runtime.h's struct ht_nodes): what mpi's runtime does, one
 * function a call of runtime.h. ht_mpi_nodes (mpi.h) gives the one of src/mpi/runtime.c in
 * a build with MPI; without MPI, src/mpi/env.c's, whose functions are NULL. */
struct ht_nodes {
    /* NULL, or why these nodes cannot open (a build without MPI): ht_runtime_open fails
     * with HT_EINVAL and this text, after its checks of the options. */
    const char *unavailable;
    /* Collective: opens the runtime across the nodes (MPI started unless the program did:
     * ht_mpi_split's start), every rank returning the same status. *out owned: close
     * (collective). Errors as runtime.h's "Across nodes" says. */
    int (*open)(const struct ht__mpi_runtime_in *in, struct ht__mpi_runtime **out,
                struct ht_error *err);
    /* Collective: frees what rt holds and finalizes MPI when the open initialized it. */
    void (*close)(struct ht__mpi_runtime *rt);
    /* The spec the runtime runs (its own or the borrowed one), borrowed. */
    const struct ht_spec *(*spec)(const struct ht__mpi_runtime *rt);
    /* The bytes of spec argument a (a buffer: its whole array; 0 for a scalar), any rank. */
    size_t (*arg_bytes)(const struct ht__mpi_runtime *rt, size_t a);
    /* Rank 0: host memory its node's data path likes, owned by rt (ht__coexec_alloc). NULL
     * with err filled: HT_EINVAL on another rank, HT_ECL, HT_ENOMEM. */
    void *(*alloc)(struct ht__mpi_runtime *rt, size_t bytes, struct ht_error *err);
    /* Rank 0: frees memory of alloc, unbinding it where bound; elsewhere, and memory rt
     * did not give, nothing. */
    void (*free_host)(struct ht__mpi_runtime *rt, void *data);
    /* Rank 0: binds data (checked by the caller: argument a's bytes) to argument a (called
     * name); HT_EINVAL naming it on another rank; ht__coexec_bind's errors. Not
     * collective. */
    int (*bind)(struct ht__mpi_runtime *rt, size_t a, const char *name, void *data,
                size_t bytes, struct ht_error *err);
    /* Collective: one launch across the nodes, *wall_s its wall time on this rank. Every
     * rank returns the same status. */
    int (*launch)(struct ht__mpi_runtime *rt, double *wall_s, struct ht_error *err);
    /* What rt planned and the last launch measured, borrowed until the next launch or
     * close. */
    const struct ht_runtime_nodes *(*nodes)(const struct ht__mpi_runtime *rt);
};

/* A program reaches the table by calling ht_mpi_nodes (mpi.h), which is in the object of
 * src/mpi/runtime.c in a build with MPI: a program linked with the static libhetune.a that
 * never calls it links no MPI. The runtime refers to ht_mpi_nodes weakly, for
 * ht_runtime_opts_set's "nodes" "mpi" only (libhetune.so always holds it). */

#endif
