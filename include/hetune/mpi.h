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
 * A program of its own co-executes across nodes with the runtime of runtime.h, opened
 * with ht_runtime_opts.nodes = ht_mpi_nodes(): open once, bind its arrays on rank 0, launch
 * many times.
 *
 * MPI's start: each function that runs over MPI initializes MPI (MPI_Init_thread,
 * MPI_THREAD_FUNNELED) and finalizes it before it returns (ht_mpi_tune, ht_mpi_split) or
 * at close (ht_runtime_close of a runtime across nodes) only when MPI was not
 * initialized yet. In a program
 * that initialized MPI itself (an MPI program: MPI_Init, then hetune, then
 * MPI_Finalize), they neither initialize nor finalize it, so it may call ht_mpi_tune, then
 * ht_runtime_open across nodes, and so on; it should ask for MPI_THREAD_FUNNELED at least (hetune
 * calls MPI from the calling thread only, but runs threads of its own). They talk over
 * MPI_COMM_WORLD with collectives (ht_mpi_tune with point-to-point messages of its own
 * tags too): while one runs, the program must have no message of its own in flight on
 * MPI_COMM_WORLD. MPI finalized already is HT_EINVAL.
 *
 * The functions are in every build; those that need MPI fail with HT_EINVAL in a build
 * without it (ht_mpi_built says which).
 *
 * A NULL pointer a function cannot do without (the spec, the result, ht_mpi_split's opts)
 * is HT_EINVAL with err->text "FUNCTION: ARGUMENT is NULL" before MPI starts, in every
 * build, never a crash; err may be NULL everywhere. The void functions do nothing with a
 * NULL. Where NULL is taken instead, the function's comment says what it means. */
#ifndef HETUNE_MPI_H
#define HETUNE_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"
#include "hetune/platform.h"
#include "hetune/spec.h"
#include "hetune/tune.h"
#include "hetune/workflow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this libhetune was built with MPI (the build feature HETUNE_MPI), else 0. */
int ht_mpi_built(void);

struct ht_nodes; /* runtime.h */

/* The nodes of a runtime across the ranks of MPI_COMM_WORLD, every rank a node: set
 * ht_runtime_opts.nodes to it (runtime.h, "Across nodes"). Borrowed, static: never NULL,
 * never freed. In a build without MPI, ht_runtime_open with these nodes fails with
 * HT_EINVAL saying that hetune was built without MPI. A program linked with the static
 * libhetune.a that calls it links MPI's part of hetune (and needs MPI's libraries, which an
 * MPI program links anyway); one that does not call it links no MPI. */
const struct ht_nodes *ht_mpi_nodes(void);

/* The number of processes an MPI launcher started with this one, read from the
 * environment before any MPI call: OMPI_COMM_WORLD_SIZE (Open MPI), else PMI_SIZE (MPICH,
 * Slurm), else 2 when PMIX_RANK is above 0 (a PMIx launcher that gives no size); 1 when
 * none is set (not launched by mpirun, or a single process). */
int ht_mpi_env_size(void);

/* Whether `hetune COMMAND` may run in this process: NULL when it may (not under an MPI
 * launcher with more than one process, or a command that runs over MPI in a build with
 * it: "tune" and "split"), else a static message that says why not (a build without MPI
 * under mpirun, or a command that does not run over MPI), meant for a refusal with exit
 * status 2 instead of K processes racing on one database. A NULL command is one that
 * does not run over MPI. */
const char *ht_mpi_refusal(const char *command);

/* The heartbeat silence after which rank 0 counts a rank as dead (seconds). */
#define HT_MPI_SILENCE_S 5.0

/* What ht_mpi_tune does and where. Zero-initialize: every device, HT_STORE_DEFAULT_PATH,
 * ht_tune_opts_init's defaults. */
struct ht_mpi_tune_opts {
    const char *device;               /* `hetune tune --device` (an index, a unique part of
                                         "<platform> <name>", or "all"); NULL: "all" */
    const char *db;                   /* the results database rank 0 opens; NULL:
                                         HT_STORE_DEFAULT_PATH. Not used with sink */
    const struct ht_tune_opts *tune;  /* as for ht_tune_device (below); NULL: the defaults */
    const struct ht_tune_sink *sink;  /* where rank 0 records the tune (tune.h; borrowed for
                                         the call, read on rank 0 only): the caller's, instead
                                         of the database db, which is then not opened (a
                                         memory sink, ht_tune_sink_memory, keeps no file);
                                         NULL: the database's sink over db
                                         (ht_tune_sink_store). It needs identify, list_evals
                                         and put_eval, forget for opts->tune->fresh;
                                         put_space is optional, the other ops are not
                                         called. ABI: the last field, added after the
                                         others (branch mpisink40), which keep their
                                         offsets; ht_mpi_tune reads it, so a program built
                                         against the header without it (its struct ends
                                         before it) must be built again. Its source needs
                                         no change: zero-initialized, as above, it means the
                                         database db, as before */
};

/* One device model of ht_mpi_tune: identical devices of any rank, tuned together. Every
 * pointer is owned by the result that holds it. */
struct ht_mpi_tune_model {
    const struct ht_device_info *device; /* the first device of the model (its OpenCL
                                            handles NULL: another process's) */
    const int *ranks;            /* nranks: the ranks that have it, ascending */
    size_t nranks;
    size_t space;                /* its valid configurations */
    size_t from_db;              /* evaluations the database held before the run */
    size_t evaluated;            /* measured in this run, of which: */
    size_t cut, failed;          /* cut by early termination; failed (not cut) */
    size_t crashed, timed_out;   /* of the failed: a crashed worker, a timeout */
    size_t lost;                 /* lost in flight (a rank died or left) and handed out
                                    again */
    int has_best;                /* 1: best, best_text and best_s hold its fastest
                                    configuration that ran and verified */
    int best_from_db;            /* 1: that best is one the database held */
    const int64_t *best;         /* the spec's nparams values; NULL without a best */
    const char *best_text;       /* "EPT=2,WG=64" (ht_store_config_text); "" without */
    double best_s;               /* its kernel time (seconds); 0 without */
};

/* How a rank of ht_mpi_tune ended. */
enum ht_mpi_rank_state {
    HT_MPI_RANK_DONE,            /* it stayed until the queue was done */
    HT_MPI_RANK_LEFT,            /* it left (stopped: interrupted) */
    HT_MPI_RANK_DIED             /* rank 0 counted it dead (an MPI call to it failed, or
                                    silence) */
};

/* One rank of ht_mpi_tune, as rank 0 saw it. Every pointer is owned by the result. */
struct ht_mpi_tune_rank {
    int rank;
    const char *host;
    size_t ndevices;             /* its devices selected */
    enum ht_mpi_rank_state state;
    size_t measured;             /* configurations it measured, of which: */
    size_t ok, cut, failed;      /* ran, cut by early termination, failed */
    double busy_s;               /* its time measuring (seconds) */
    const char *const *configs;  /* measured: each configuration it measured, as text
                                    ("EPT=2,WG=64"), in the order it sent them */
    const double *windows;       /* measured x 2: each one's device lock window
                                    [locked_at, unlocked_at] (seconds on its host's
                                    monotonic clock) */
    size_t lost;                 /* its configurations in flight lost when it died or
                                    left, and put back in the queue: */
    const char *const *lost_configs; /* lost, as text */
    const char *note;            /* why it has no device, or why it stopped; "" */
    struct ht_load load;         /* what other processes did while it measured */
};

/* What ht_mpi_tune did. Rank 0 holds the run; on the other ranks only rank, size and
 * stopped are set. Owned: ht_mpi_tune_result_destroy. */
struct ht_mpi_tune_result {
    int rank, size;              /* this process's rank, the ranks of MPI_COMM_WORLD */
    int rank0_failed;            /* on a rank other than 0, when the call failed: it failed
                                    because rank 0 did ("rank 0 failed; see its message"),
                                    which rank 0 reports. A command ends such a rank quietly
                                    with status 0, so that mpirun waits for rank 0's report
                                    and ends with rank 0's status (a rank ending first with
                                    a non-zero status makes mpirun kill the job, rank 0
                                    before its report is written) */
    int stopped;                 /* stopped by opts->tune->stop (rank 0 stopped handing
                                    out; another rank left) */
    const char *strategy;        /* "exhaustive" or "random" (static) */
    const char *db;              /* the database rank 0 opened; "" when it recorded
                                    through the caller's sink (opts->sink) */
    struct ht_mpi_tune_model *models; /* nmodels, by model number */
    size_t nmodels;
    struct ht_mpi_tune_rank *ranks;   /* nranks (size on rank 0, 0 elsewhere), by rank */
    size_t nranks;
    double seconds;              /* the queue's whole run (seconds) */
    double store_s;              /* rank 0's time storing the evaluations */
    size_t messages;             /* the messages rank 0 received */
    size_t assign_bytes, result_bytes; /* one configuration's message to a rank, one
                                    evaluation's back */
};

/* Runs one distributed tune; every rank of MPI_COMM_WORLD calls it with the same spec
 * and options (opts NULL: all defaults). When MPI is not initialized, it initializes it
 * (MPI_Init_thread, funneled) and finalizes it before it returns, so it is then called
 * once per process; in a program that initialized MPI, it leaves MPI as it found it (its
 * error handler of MPI_COMM_WORLD too, MPI_ERRORS_RETURN during the call) and may be
 * called again.
 *
 * opts->device is applied by each rank to its own platform; rank 0 alone records the
 * tune: through opts->sink when given (a memory sink, ht_tune_sink_memory, keeps one device
 * model's evaluations: a second model is refused by its identify, HT_EINVAL), else in the
 * database opts->db, which it opens. Through either, it registers each device model (the
 * sink's identify, forget for fresh, put_space), hands the evaluations held before to the
 * queue (list_evals) and stores each rank's evaluation as it arrives (put_eval), with no
 * tuning run nor step (put_run, put_step: the ranks' evaluations arrive in no order of a
 * search). opts->tune as for ht_tune_device (tune.h):
 * strategy must be "exhaustive" or "random" (a uniformly random order of the valid
 * configurations, seeded by seed, the same on every run; HT_EINVAL otherwise: genetic and
 * anneal choose from the last results); budget caps the evaluations per
 * device model; time_limit_s stops handing out new configurations; stop (raised on any
 * rank) makes that rank leave and rank 0 stop handing out; fresh, retry_failed,
 * cut_factor (the best time so far of the model goes with each configuration), eq3 and
 * exec apply on every rank; progress and on_wait are not used.
 *
 * On rank 0, *out receives what the run did (struct ht_mpi_tune_result: each device
 * model's best configuration, each rank's measurements); on the other ranks it is empty
 * but for rank, size and stopped. present.h writes it as `hetune tune` shows it, text
 * or JSON, and gives the exit status (ht_present_mpi_tune). *out is filled on every
 * return, also on error (ht_mpi_tune_result_destroy).
 *
 * Returns HT_OK, or: HT_EINVAL (a build without MPI, genetic or anneal,
 * fewer than 2 ranks; on rank 0, a sink without identify, list_evals or put_eval, or
 * without forget under fresh), HT_ENODEVICE when no rank has a device (a rank
 * without is reported and left out), HT_EDB (rank 0's database), a sink op's own error,
 * HT_ENOMEM; the other
 * ranks learn of rank 0's failure and return HT_EINVAL "rank 0 failed". */
int ht_mpi_tune(const struct ht_spec *spec, const struct ht_mpi_tune_opts *opts,
                struct ht_mpi_tune_result *out, struct ht_error *err);

/* Frees what r holds and empties it. NULL is fine. */
void ht_mpi_tune_result_destroy(struct ht_mpi_tune_result *r);

/* One device of a node of ht_mpi_split, as rank 0's database gave it. Every pointer is
 * owned by the result. */
struct ht_mpi_split_device {
    const struct ht_device_info *device; /* its OpenCL handles NULL */
    int usable;                  /* 1: config is its configuration; 0: why says why not */
    const char *config;          /* "EPT=2,WG=64"; "" when not usable */
    double tuned_s;              /* its tuned kernel time of the whole problem */
    const char *why;             /* "" when usable */
};

/* What became of a node of ht_mpi_split. */
enum ht_mpi_node_state {
    HT_MPI_NODE_OK,              /* it took part: it has a slice */
    HT_MPI_NODE_NOT_USED,        /* it co-executed the whole problem, but the nodes'
                                    decision left the work to rank 0 */
    HT_MPI_NODE_LEFT_OUT         /* it could not co-execute the whole problem (why) */
};

/* One node (rank) of ht_mpi_split. Every pointer is owned by the result. */
struct ht_mpi_split_node {
    int rank;
    const char *host;
    enum ht_mpi_node_state state;
    const char *why;             /* left out: why; not used: the nodes' decision; "" */
    const struct ht_mpi_split_device *devices; /* ndevices */
    size_t ndevices;
    struct ht_load load;         /* what other processes did while its decision measured */
    /* Unless left out: its run of the whole problem, as it decided to run it. */
    uint64_t granule;            /* the lcm of its devices' work-groups along the split
                                    dimension, in units */
    double alone_s;              /* its wall time, as first measured (the bound's) */
    double refined_s;            /* with opts->refine, its time from its slice in the last
                                    round; else alone_s */
    double alone_min_s;          /* its fastest run */
    double alone_kernel_s;       /* its kernel time */
    const char *decision;        /* its split-or-alone decision over its devices, in words */
    int node_split;              /* 1: it split over its devices */
    double predicted_split_s, predicted_alone_s, measured_split_s; /* its decision's
                                    figures; -1 unknown */
    /* When it took part: its share and slice, and its times in the runs kept (means). */
    double optimal_factor;       /* Eq. 4's share */
    double share;                /* adjusted to whole granules */
    uint64_t offset, size;       /* its slice of the split dimension (units) */
    uint64_t own_offset, own_size; /* the part whose outputs it owns */
    double split_s, scatter_s, gather_s; /* its slice's co-execution, its wait for the
                                    scatter, for the gather */
};

/* What ht_mpi_split did. Rank 0 holds the run; on the other ranks only rank and size are
 * set. Owned: ht_mpi_split_result_destroy. */
struct ht_mpi_split_result {
    int rank, size;              /* this process's rank, the ranks of MPI_COMM_WORLD */
    int rank0_failed;            /* as in struct ht_mpi_tune_result: this rank failed
                                    because rank 0 did; end it quietly with status 0 */
    size_t took_part;            /* the nodes that took part */
    unsigned dim;                /* the split dimension */
    uint64_t global;             /* its units */
    const char *scheduler;       /* each node's scheduler */
    struct ht_mpi_split_node *nodes; /* nnodes (size on rank 0, 0 elsewhere), by rank */
    size_t nnodes;
    int nodes_split;             /* 1: the work was split over the nodes; 0: rank 0 alone */
    const char *decision;        /* the nodes' split-or-alone decision, in words */
    unsigned rounds;             /* opts->refine: the rounds made */
    const double *round_wall_s;  /* rounds: each round's distributed wall time */
    unsigned kept_round;         /* the round whose plan made the runs below: rounds, or an
                                    earlier one when kept_again */
    int kept_again;              /* 1: round kept_round was the shortest and ran again */
    double bound_s;              /* Eq. 4's bound on the nodes' times: 1 / sum 1/t */
    double adjusted_s;           /* the bound with the slices as launched */
    double wall_s;               /* the mean of the best keep_best of the runs */
    double wall_min_s;           /* the fastest run */
    unsigned runs, keep_best;
    double efficiency;           /* bound_s / wall_s */
    double bound_min_s;          /* the bound on the nodes' fastest runs */
    double efficiency_min;       /* bound_min_s / wall_min_s */
    uint64_t scattered_bytes, gathered_bytes; /* per run, rank 0 and the other nodes */
    int verified;                /* -1 not verified, 0 failed, 1 passed */
    const char *reference;       /* what the result was checked against; "" when not */
    double max_abs_err, max_rel_err;
    const char *mismatch;        /* verified 0: what differed; else "" */
};

/* Co-executes spec across the nodes of MPI_COMM_WORLD (`mpirun -n K hetune split`); every
 * rank calls it with the same spec, options and device selector (MPI started and ended as
 * by ht_mpi_tune: once per process unless the program initialized MPI). Each rank is a node: its
 * devices (device as ht_mpi_tune's opts->device, applied on its own node; NULL: "all")
 * co-execute as ht_workflow_split's do, with the scheduler and options of opts->coexec.
 * Rank 0 alone opens the database opts->db and
 * reads each device's best configuration (nothing is tuned: a device without one is
 * reported and left out, as is a node whose devices all are or that cannot co-execute).
 * Each node decides as ht_workflow_split does between splitting over its devices and the
 * fastest of them alone (opts->force, opts->paper_plan and opts->coexec.margin apply).
 * Each node first runs the whole problem so; its wall time gives its share by Eq. 4
 * one level up (ht_split_plan_make on the nodes' times), its work-group being the least
 * common multiple of its devices' work-groups along the split dimension. Then, per run
 * (the spec's repeats, the mean of the best keep_best, one untimed run first): rank 0's
 * inputs are scattered by slice (the slab of the axis walked by the split dimension that
 * the node's devices read, halo included; whole where a buffer has no such axis), every
 * node co-executes its slice, and the owned outputs are gathered at rank 0, which then
 * verifies them against one of its devices alone (as `hetune split` verifies a split: one
 * run of the whole NDRange, element by element with the spec's rtol/atol). The nodes decide
 * as a node's devices do: unless opts->force, the split over the nodes must be predicted
 * (Eq. 4 on their times) faster than rank 0's node alone by opts->coexec.margin and then
 * measure faster in the runs; otherwise rank 0's node runs alone (the others are "not
 * used"), and out->decision says why.
 *
 * On rank 0, *out receives what the run did (struct ht_mpi_split_result): the ranks that
 * took part, each node's devices, time, shares, slice and times in the runs, Eq. 4's
 * bound from the nodes' times, the measured wall time and efficiency = bound / wall, the
 * bytes moved and the verification; on the other ranks it is empty but for rank and
 * size. A failed verification is no error (out->verified 0). present.h writes it as
 * `hetune split` shows it, text or JSON, and gives the exit status
 * (ht_present_mpi_split). *out is filled on every return, also on error
 * (ht_mpi_split_result_destroy).
 *
 * opts->refine N: N rounds one level up, each node's time becoming its slice's measured
 * time over its share before the nodes plan again (out->round_wall_s gives each round's
 * wall time; the bound stays on the times first measured).
 *
 * Errors, err filled: HT_EINVAL (a build without MPI, fewer than 2 ranks, opts->sweep or
 * dop), the spec's refusals before MPI starts (a pipeline spec or a written buffer whose
 * index has no axis walked by the split dimension, HT_ESPEC; dim outside the NDRange or
 * an unknown scheduler, HT_EINVAL),
 * HT_ENOTFOUND (rank 0 cannot co-execute: it holds the inputs), HT_ESPEC (the nodes'
 * global sizes along the split dimension have a least common multiple above 2^53, or
 * nodes disagree on a buffer's shape), HT_ELAUNCH (a node failed during the runs), HT_EDB (rank 0's
 * database), HT_EINTR (opts->stop raised while rank 0 waited for its database's lock, as
 * ht_workflow_split_opts says), HT_ENOMEM; the other ranks learn of rank 0's failure and
 * return HT_EINVAL "rank 0 failed". */
int ht_mpi_split(const struct ht_spec *spec, const char *device,
                 const struct ht_workflow_split_opts *opts, struct ht_mpi_split_result *out,
                 struct ht_error *err);

/* Frees what r holds and empties it. NULL is fine. */
void ht_mpi_split_result_destroy(struct ht_mpi_split_result *r);

#ifdef __cplusplus
}
#endif
#endif
