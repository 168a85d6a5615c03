/* hetune — tuning and co-execution over MPI (issue 16): `mpirun -n K hetune tune SPEC`
 * spreads the configurations of a spec over K processes (ranks), on one machine or many.
 *
 * Rank 0 holds a work queue: each rank asks for one configuration at a time, measures it on
 * its own node's devices (its own OpenCL platform, its own worker processes) and sends the
 * evaluation back; rank 0 stores it in the results database as it arrives (only rank 0
 * opens the database) and hands out the next. Identical devices on different ranks (same
 * name, vendor, driver version and compute units) are one device model, tuned together:
 * each configuration of a model is measured once, on whichever of its ranks asks first. A
 * rank that dies (an MPI call that fails, or silence: no heartbeat for silence_s seconds)
 * loses only its configuration in flight, which goes back into the queue; the others go
 * on. docs/scale.md has the design and the cost model for many nodes.
 *
 * `mpirun -n K hetune split SPEC` co-executes one kernel across the K ranks (nodes), each
 * on its own devices, on its share of Eq. 4 one level up (ht_mpi_split).
 *
 * With Open MPI 4, mpirun ends the whole job when one rank exits early unless it runs with
 * --enable-recovery; with it, the survivors finish the work.
 *
 * The functions are in every build; those that need MPI fail with HT_EINVAL in a build
 * without it (ht_mpi_built says which). */
#ifndef HETUNE_MPI_H
#define HETUNE_MPI_H

#include "hetune/error.h"
#include "hetune/spec.h"
#include "hetune/tune.h"
#include "hetune/workflow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this libhetune was built with MPI (the build feature HETUNE_MPI), else 0. */
int ht_mpi_built(void);

/* The number of processes an MPI launcher started with this one, read from the
 * environment before any MPI call: OMPI_COMM_WORLD_SIZE (Open MPI), else PMI_SIZE (MPICH,
 * Slurm), else 2 when PMIX_RANK is above 0 (a PMIx launcher that gives no size); 1 when
 * none is set (not launched by mpirun, or a single process). */
int ht_mpi_env_size(void);

/* Whether `hetune COMMAND` may run in this process: NULL when it may (not under an MPI
 * launcher with more than one process, or a command that runs over MPI in a build with
 * it: "tune" and "split"), else a static message that says why not (a build without MPI
 * under mpirun, or a command that does not run over MPI), meant for a refusal with exit
 * status 2 instead of K processes racing on one database. */
const char *ht_mpi_refusal(const char *command);

/* The heartbeat silence after which rank 0 counts a rank as dead (seconds). */
#define HT_MPI_SILENCE_S 5.0

/* Runs one distributed tune; every rank of MPI_COMM_WORLD calls it with the same spec,
 * options and device selector. It initializes MPI (MPI_Init_thread, funneled) and
 * finalizes it before it returns, so it is called once per process.
 *
 * device is the selector of `hetune tune --device` (an index, a unique part of
 * "<platform> <name>", or "all"; NULL is "all"), applied by each rank to its own platform.
 * db is the results database that rank 0 opens. opts as for ht_tune_device (tune.h):
 * strategy must be "exhaustive" or "random" (a uniformly random order of the valid
 * configurations, seeded by seed, the same on every run; HT_EINVAL otherwise: genetic and
 * anneal choose from the last results); budget caps the evaluations per
 * device model; time_limit_s stops handing out new configurations; stop (raised on any
 * rank) makes that rank leave and rank 0 stop handing out; fresh, retry_failed,
 * cut_factor (the best time so far of the model goes with each configuration), eq3 and
 * exec apply on every rank; progress and on_wait are not used.
 *
 * On rank 0, *text (owned by the caller, free()) receives the report: text, or one JSON
 * object when json is 1; on the other ranks "" . *status receives the exit status the
 * command should end with: on rank 0 0 when each device model has a best configuration, 1
 * when one has none, 130 when stopped; on the others 0 (130 when stopped).
 *
 * Returns HT_OK, or: HT_EINVAL (a build without MPI, genetic or anneal,
 * fewer than 2 ranks), HT_ENODEVICE when no rank has a device (a rank
 * without is reported and left out), HT_EDB (rank 0's database), HT_ENOMEM; the other
 * ranks learn of rank 0's failure and return HT_EINVAL "rank 0 failed". */
int ht_mpi_tune(const struct ht_spec *spec, const char *device, const char *db,
                const struct ht_tune_opts *opts, int json, char **text, int *status,
                struct ht_error *err);

/* Co-executes spec across the nodes of MPI_COMM_WORLD (`mpirun -n K hetune split`); every
 * rank calls it with the same spec, options and device selector, once per process (it
 * initializes and finalizes MPI). Each rank is a node: its devices (device as in
 * ht_mpi_tune, applied on its own node) co-execute as ht_workflow_split's do, with the
 * scheduler and options of opts->coexec. Rank 0 alone opens the database opts->db and
 * reads each device's best configuration (nothing is tuned: a device without one is
 * reported and left out, as is a node whose devices all are or that cannot co-execute).
 * Each node first co-executes the whole problem; its wall time gives its share by Eq. 4
 * one level up (ht_split_plan_compute on the nodes' times), its work-group being the least
 * common multiple of its devices' work-groups along the split dimension. Then, per run
 * (the spec's repeats, the mean of the best keep_best, one untimed run first): rank 0's
 * inputs are scattered by slice (the slab of the axis walked by the split dimension that
 * the node's devices read, halo included; whole where a buffer has no such axis), every
 * node co-executes its slice, and the owned outputs are gathered at rank 0, which then
 * verifies them against one of its devices alone (ht_coexec_verify).
 *
 * On rank 0, *text (owned by the caller, free()) receives the report, text or one JSON
 * object (json 1): the ranks that took part, each node's devices, time, shares, slice and
 * times in the runs, Eq. 4's bound from the nodes' times, the measured wall time and
 * efficiency = bound / wall, the bytes moved and the verification; on the other ranks "".
 * *status: 0, 3 when verification failed, else the exit status of the error.
 *
 * Errors, err filled: HT_EINVAL (a build without MPI, fewer than 2 ranks, opts->refine,
 * sweep or dop), the spec's refusals of ht_coexec_check_spec (before MPI starts),
 * HT_ENOTFOUND (rank 0 cannot co-execute: it holds the inputs), HT_ESPEC (nodes whose
 * configurations launch different global sizes along the split dimension, or disagree on
 * a buffer's shape), HT_ELAUNCH (a node failed during the runs), HT_EDB (rank 0's
 * database), HT_ENOMEM; the other ranks learn of rank 0's failure and return HT_EINVAL
 * "rank 0 failed". */
int ht_mpi_split(const struct ht_spec *spec, const char *device,
                 const struct ht_workflow_split_opts *opts, int json, char **text, int *status,
                 struct ht_error *err);

#ifdef __cplusplus
}
#endif
#endif
