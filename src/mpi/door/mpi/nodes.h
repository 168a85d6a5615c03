/* MPI's door for the runtime (src/runtime): a runtime whose nodes are the ranks of
 * MPI_COMM_WORLD, what ht_runtime_open makes of opts.nodes HT_RUNTIME_MPI (runtime.h,
 * "Across nodes"). The runtime keeps the one handle and its checks (open handles, NULL
 * arguments, the options that make no sense across nodes); these functions do the rest,
 * collective where runtime.h says so. They are in every build: without MPI (HETUNE_MPI
 * off, src/mpi/env.c) the open fails with HT_EINVAL saying so, and no other can be
 * reached. No MPI header is named here: the runtime does not see MPI. */
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

/* Collective: opens the runtime across the nodes (MPI started unless the program did:
 * ht_mpi_split's start), every rank returning the same status. *out owned:
 * ht__mpi_runtime_close (collective). Errors as runtime.h's "Across nodes" says; a build
 * without MPI is HT_EINVAL ("built without MPI"). */
int ht__mpi_runtime_open(const struct ht__mpi_runtime_in *in, struct ht__mpi_runtime **out,
                         struct ht_error *err);

/* Collective: frees what rt holds and finalizes MPI when the open initialized it. NULL is
 * fine (on every rank). */
void ht__mpi_runtime_close(struct ht__mpi_runtime *rt);

/* The spec the runtime runs (its own or the borrowed one), borrowed. */
const struct ht_spec *ht__mpi_runtime_spec(const struct ht__mpi_runtime *rt);

/* The bytes of spec argument a (a buffer: its whole array; 0 for a scalar), any rank. */
size_t ht__mpi_runtime_arg_bytes(const struct ht__mpi_runtime *rt, size_t a);

/* Rank 0: host memory its node's data path likes, owned by rt (ht_coexec_alloc). NULL with
 * err filled: HT_EINVAL on another rank, HT_ECL, HT_ENOMEM. */
void *ht__mpi_runtime_alloc(struct ht__mpi_runtime *rt, size_t bytes, struct ht_error *err);

/* Rank 0: frees memory of ht__mpi_runtime_alloc, unbinding it where bound; elsewhere, and
 * memory rt did not give, nothing. */
void ht__mpi_runtime_free_host(struct ht__mpi_runtime *rt, void *data);

/* Rank 0: binds data (checked by the caller: argument a's bytes) to argument a; HT_EINVAL
 * naming it on another rank; the co-execution's errors (ht_coexec_bind). Not collective. */
int ht__mpi_runtime_bind(struct ht__mpi_runtime *rt, size_t a, const char *name, void *data,
                         size_t bytes, struct ht_error *err);

/* Collective: one launch across the nodes (runtime.h, "Across nodes"), *wall_s its wall
 * time on this rank. Every rank returns the same status. */
int ht__mpi_runtime_launch(struct ht__mpi_runtime *rt, double *wall_s, struct ht_error *err);

/* What rt planned and the last launch measured, borrowed: valid until the next launch or
 * close. */
const struct ht_runtime_nodes *ht__mpi_runtime_nodes(const struct ht__mpi_runtime *rt);

#endif
