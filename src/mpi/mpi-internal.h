/* Internal interface of the MPI module (src/mpi), shared by its files:
 *   env.c     launched by mpirun? (no MPI call), the refusals
 *   world.c   MPI's start shared by the commands: the plug-ins kept under ASan, each rank's
 *             devices and host gathered on every rank
 *   queue.c   distributed tuning (ht_mpi_tune)
 *   split.c   co-execution across nodes: the set-up (each device's configuration, each
 *             node's whole run, the plan over the nodes, their communicator, the slabs) and
 *             one distributed run (scatter, slices, gather), shared by ht_mpi_split and
 *             the runtime
 *   runtime.c the runtime across nodes (its table struct ht_nodes, mpi's door "mpi/nodes.h",
 *             and ht_mpi_nodes, for ht_runtime_open's opts.nodes = ht_mpi_nodes())
 */
#ifndef HETUNE_MPI_INTERNAL_H
#define HETUNE_MPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "hetune/error.h"
#include "hetune/mpi.h"
#include "hetune/platform.h"
#include "hetune/runtime.h"
#include "hetune/workflow.h"

#define HT__MPI_HOST_MAX 64
#define HT__MPI_WHY_MAX 256

/* In a sanitized build, keeps Open MPI's plug-ins loaded past MPI_Finalize so that
 * LeakSanitizer can name what they keep; nothing otherwise. */
void ht__mpi_keep_plugins(void);

/* Every rank's host and devices, the same on every rank. Owned:
 * ht__mpi_world_destroy. */
struct ht__mpi_world {
    int rank, size;
    struct ht_platform *plat;    /* this rank's platform (NULL when it has none) */
    size_t first, ndev;          /* this rank's selected devices: plat->devices[first..) */
    char *hosts;                 /* size x HT__MPI_HOST_MAX */
    char *whys;                  /* size x HT__MPI_WHY_MAX: why a rank has no device */
    int *counts, *displs;        /* per rank: bytes of its devices in all, and where */
    struct ht_device_info *all;  /* total devices of every rank, rank by rank (their cl
                                    handles NULL: they are another process's) */
    size_t total;
};

/* Collective: discovers this rank's OpenCL platform, selects its devices by the selector
 * of --device (NULL or "all": every one; else the one it names; a rank that finds none
 * says why) and gathers every rank's host, devices and reason on every rank (MPI must be
 * initialized). HT_ENOMEM (w is then the caller's to destroy; the other ranks go on). */
int ht__mpi_world_gather(const char *device, struct ht__mpi_world *w, struct ht_error *err);

/* Frees what w owns. */
void ht__mpi_world_destroy(struct ht__mpi_world *w);

/* The first device of rank r in w->all, and how many it has. */
size_t ht__mpi_world_rank_devices(const struct ht__mpi_world *w, int r, size_t *n);

/* Starts MPI for one call of the library unless the program already did: *owned is 1
 * when this call initialized it (MPI_Init_thread, funneled; ht__mpi_stop then finalizes
 * it), 0 when the program had. With errors_return, MPI_COMM_WORLD's error handler becomes
 * MPI_ERRORS_RETURN until ht__mpi_stop, which gives back the program's (*saved). HT_EINVAL
 * when MPI was finalized already (it cannot start again) or MPI_Init_thread fails. */
int ht__mpi_start(int errors_return, int *owned, MPI_Errhandler *saved, struct ht_error *err);

/* Ends what ht__mpi_start began: the program's error handler back (when errors_return
 * was given), MPI_Finalize when owned and finalize (a rank that saw another die skips it:
 * Open MPI waits there for the dead). */
void ht__mpi_stop(int errors_return, int owned, MPI_Errhandler saved, int finalize);

/* Collective over comm: every rank gives rc (and err when rc is not HT_OK) and learns
 * whether all succeeded. Returns HT_OK when every rank's rc was; else the code of the
 * lowest rank that failed, with err its message (prefixed "rank R: " on the other ranks,
 * unless it already names a rank), so that no rank goes on alone and every one can say
 * which failed. */
int ht__mpi_agree(MPI_Comm comm, int rc, struct ht_error *err);

/* --- split.c: co-execution across nodes, for ht_mpi_split and the runtime --- */

/* Everything a co-execution across nodes holds (defined in split.c). */
struct msplit;

/* What the spec says against a split over nodes, before anything starts (coexec's
 * precheck, its devices not yet known): as against a co-execution over several devices,
 * but a written buffer without "index" passes (rank 0 infers it). scheduler NULL: not
 * checked here. Errors HT_ESPEC, HT_EINVAL, err saying where. */
int ht__mpi_precheck(const struct ht_spec *spec, unsigned dim, const char *scheduler,
                     struct ht_error *err);

/* Collective over MPI_COMM_WORLD (MPI started): gathers every rank's devices (device as in
 * ht_mpi_split), reads each device's best configuration from rank 0's database opts->db,
 * co-executes the whole problem on each node (its speed), plans the nodes' shares (Eq. 4
 * one level up), makes the communicator of the nodes that take part, sets each node's
 * slice (ht__coexec_share, which binds the host arrays of the nodes other than rank 0 to
 * their co-execution's own, so that ht__mpi_nodes_launch runs on bound arrays, rank 0's
 * being the caller's: ht__mpi_nodes_bind) and gathers every node's slabs. opts must
 * outlive *out. Every rank
 * returns the same status (ht__mpi_agree). *out owned: ht__mpi_nodes_free (also on
 * error, when not NULL). */
int ht__mpi_nodes_open(const struct ht_spec *spec, const char *device,
                       const struct ht_workflow_split_opts *opts, struct msplit **out,
                       struct ht_error *err);

/* Frees what m holds (its communicator too: collective over the nodes that take part).
 * NULL is fine. */
void ht__mpi_nodes_free(struct msplit *m);

/* Rank 0's arrays, on this rank's co-execution (its node's slice; the rank takes part):
 * host memory as its data path wants it (ht__coexec_alloc), given back
 * (ht__coexec_free_host), and the caller's array bound to buffer argument a
 * (ht__coexec_bind). Errors as those. */
void *ht__mpi_nodes_alloc(struct msplit *m, size_t bytes, struct ht_error *err);
void ht__mpi_nodes_free_host(struct msplit *m, void *data);
int ht__mpi_nodes_bind(struct msplit *m, size_t a, void *data, size_t bytes,
                       struct ht_error *err);

/* 1 when this rank takes part (has a slice in the plan). */
int ht__mpi_nodes_part(const struct msplit *m);

/* The bytes of buffer argument i (its whole array), from the slabs; 0 for a scalar. Rank
 * 0 only (it always takes part). */
uint64_t ht__mpi_nodes_arg_bytes(const struct msplit *m, size_t i);

/* One distributed launch, collective over the nodes that take part: rank 0's bound
 * inputs scattered by slice, every node's slice on its bound arrays (ht__coexec_launch),
 * the owned outputs gathered into rank 0's. fig receives this node's scatter, run and
 * gather seconds (HT__MPI_F_*), *wall (rank 0) the whole from a barrier, *scattered and
 * *gathered (rank 0) the bytes moved to and from the other nodes. Every node that takes
 * part returns the same: HT_OK, HT_ELAUNCH naming the first rank that failed in its
 * slice and why, HT_ENOMEM. On rank 0, every node's fig lands in figs (csize x
 * HT__MPI_NF, in the order of ht__mpi_nodes_describe's nodes that take part). */
enum { HT__MPI_F_RUN, HT__MPI_F_SCATTER, HT__MPI_F_GATHER, HT__MPI_NF };
int ht__mpi_nodes_launch(struct msplit *m, double *fig, double *figs, double *wall,
                         uint64_t *scattered, uint64_t *gathered, struct ht_error *err);

/* Fills nodes (world size entries) and devs (every rank's devices, rank by rank) with what
 * m knows of each node: host, devices and their configurations, whether it takes part and
 * why not, its time alone, share and slice. The strings and devices are borrowed from m.
 * *took_part, *global, *bound_s (Eq. 4 on the times of every node that could take part)
 * and *decision (the nodes' split-or-alone decision in words, borrowed) with them. */
void ht__mpi_nodes_describe(const struct msplit *m, struct ht_runtime_node *nodes,
                            struct ht_runtime_node_device *devs, size_t *took_part,
                            uint64_t *global, double *bound_s, const char **decision);

/* The world size and the number of devices of every rank together (for describe's
 * arrays). */
void ht__mpi_nodes_size(const struct msplit *m, int *size, size_t *ndevices);

#endif
