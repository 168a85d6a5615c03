/* hetune — the library as a runtime for applications: a program co-executes the kernel of
 * a spec on its own host arrays, with each device's tuned configuration and the split plan
 * from the results database.
 *
 *     struct ht_runtime_opts o;
 *     struct ht_runtime *rt;
 *     struct ht_error err;
 *     ht_runtime_opts_init(&o);
 *     o.db = "hetune.db";
 *     o.tune_missing = 1;
 *     if (ht_runtime_open("vecadd/spec.json", sizes, 1, &o, &rt, &err) != HT_OK) ...
 *     float *a = ht_runtime_alloc(rt, bytes, &err), ...;   (or the program's own arrays)
 *     ht_runtime_bind(rt, "a", a, bytes, &err); ...
 *     for (...) { fill b and c; ht_runtime_launch(rt, &err); use a; }
 *     ht_runtime_close(rt);
 *
 * Open once, launch many times. ht_runtime_open does everything that costs: it loads the
 * spec, finds the devices, reads each device's best configuration from the database
 * (tuning it first when the caller allows it), decides between splitting and the fastest
 * device alone, opens the contexts, builds the programs (through the binary cache) and
 * makes the buffers and the plan. A launch only moves the caller's data and runs the
 * kernels: inputs are read from the bound arrays, outputs land in them, each element
 * written by the one device that owns it.
 *
 * The decision (mode HT_RUNTIME_AUTO, more than one device): every device runs the whole
 * problem alone a few times (measure_repeats) with the co-execution's own wall clock, and
 * hetune predicts the co-execution's wall time from those measurements with the bus plan
 * (the plan `hetune split` runs unless --plan paper: each device's kernel time for its
 * share, its slice's transfers, overlapped where it moves pieces, its fixed costs). When
 * the prediction is not below the fastest device's wall time alone by the co-execution's
 * margin (ht_split_decide), that device runs alone. Otherwise the split is measured once
 * (the spec's timing; at open on data of its own): what the devices share when they run together
 * is not in the prediction, and a split measured slower than the fastest device alone is
 * not kept either. info->decision says which, in words, and for which memory: the
 * decision made at open is for the runtime's own (ht_runtime_alloc's) memory; the first
 * launch after binds that change the kind of memory bound (enum ht_coexec_memory: the
 * program's own, aligned or not) decides again for that kind, measured the same way: on
 * the arrays bound (each device alone and the split run on them, no data of its own
 * made; an array both read and written is copied first and put back before the launch),
 * unless a written array overlaps another bound one, then on data of its own of that
 * kind. That launch takes as long as
 * the decision (at vecadd 2^22 on two PoCL devices here 29-31 ms measured on the arrays,
 * 139-141 ms on data of its own); info->decisions counts them. Mode SPLIT is not measured: it runs the bus plan from the tuned times and the
 * links stored in the database (`hetune devices --bandwidth`) where some device has one,
 * else the paper's plan from the tuned times.
 *
 * A written buffer without "index" (a spec written for another tuner) is split as `hetune
 * split` splits it: with more than one device and a mode other than ALONE, ht_runtime_open
 * reads from the database which elements each slice writes, else infers it by a probe
 * (coexec.h, ht_split_probe) on arrays of the probe's own, never the caller's, and stores
 * it for the next open; info->written says which (docs/spec.md, "Written buffers without
 * index").
 *
 * Any memory can be bound: a program's malloc arrays move without a byte written outside
 * them or outside a device's slice, a CPU device working on them in place where they are
 * at its base alignment, or at malloc's 16 bytes where its driver wraps such an array as it
 * is (PoCL does), else on a shadow of them, its slices copied in and out on several
 * threads, a device copied to staging them through pinned chunks (or as
 * opts.exec.foreign_up and foreign_down say; exec.h, enum ht_foreign_path).
 *
 * Errors are checked before anything runs: an argument the spec does not have, a scalar
 * bound as an array, an array of the wrong size, an argument left unbound: the call fails
 * naming the argument, and nothing is written into the caller's arrays. A device named in
 * opts.devices that is not there (gone, or never was) fails ht_runtime_open naming it.
 *
 * Misuse is an error, never a crash (issue 26 item 6). Every function refuses, with
 * HT_EINVAL (or NULL), a runtime pointer that is not open: NULL, one closed already, one
 * never returned by ht_runtime_open. The library keeps the list of open runtimes, so
 * closing twice is harmless (the second close does nothing). A closed pointer is only
 * recognised until the address is reused by a later ht_runtime_open, as any allocator may:
 * drop it when you close. A NULL out-parameter is HT_EINVAL. A bind that fails leaves its
 * argument unbound, so a launch after it fails naming the argument instead of reading the
 * array bound before. A launch that fails once running (a device lost, an OpenCL error) is
 * recorded in info (failed_launches, last_status, last_error), returns its error, and
 * leaves the runtime open: launch again, or close it.
 *
 * The caller's contract, as in every C API: an array bound with ht_runtime_bind stays
 * allocated and at least as large until it is bound again, unbound by a bind that fails,
 * or the runtime is closed; the library cannot see that an allocator took it back, and a
 * launch on freed memory is undefined behaviour. A runtime is used by one thread at a
 * time; different runtimes may be used from different threads.
 *
 * Across nodes (opts.nodes = ht_mpi_nodes(), mpi.h, in a build with MPI): every rank of
 * MPI_COMM_WORLD is a node, and the same handle and calls run the kernel over them all.
 * The program names the nodes by calling ht_mpi_nodes, so a program linked with the static
 * libhetune.a links MPI's part of hetune only then (with MPI's libraries, which an MPI
 * program links anyway), and a program on one machine links no MPI.
 *
 *     MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
 *     ht_runtime_opts_init(&o);
 *     o.db = "hetune.db";                      (tuned by mpirun -n K hetune tune, or
 *                                               ht_mpi_tune first)
 *     o.nodes = ht_mpi_nodes();
 *     ht_runtime_open("vecadd/spec.json", sizes, 1, &o, &rt, &err);   (every rank)
 *     if (rank == 0) { ht_runtime_bind(rt, "a", a, bytes, &err); ... }
 *     for (...) { fill b and c on rank 0; ht_runtime_launch(rt, &err); use a on rank 0; }
 *     ht_runtime_close(rt);                    (every rank)
 *     MPI_Finalize();
 *
 * ht_runtime_open does what costs, once, exactly as ht_mpi_split (mpi.h) before its runs
 * (the same code): rank 0 alone opens the database and reads the best configuration of
 * every device of every rank; each node co-executes the whole problem on its devices (its
 * speed), deciding as ht_mpi_split's nodes do; the nodes share it by Eq. 4 one level up, in
 * whole work-groups of every device of a node; each node's co-execution is set to its
 * slice. A launch moves only slices: rank 0's bound inputs are scattered (MPI_Scatterv of
 * the slab of the split axis each node reads, halo included; a buffer some node needs
 * whole is broadcast), every node co-executes its slice, and the owned outputs are gathered
 * into rank 0's bound arrays (MPI_Gatherv). Every node keeps whole host arrays of every
 * buffer (only its slab of them is sent and used). info->nodes says what each node holds
 * and did.
 *
 * A node that cannot co-execute the whole problem at open (no device, no configuration,
 * a failure) is left out, as by ht_mpi_split (info->nodes says why), unless it is rank 0:
 * rank 0 holds the arrays. Across nodes, ht_runtime_open, ht_runtime_launch and
 * ht_runtime_close are collective: every rank of MPI_COMM_WORLD calls them, in the same
 * order, and every rank returns the same status from them (no rank goes on alone), the
 * message naming the rank that failed. ht_runtime_alloc and ht_runtime_bind are rank 0's
 * alone (not collective: the other ranks' arrays are not used, and they refuse them);
 * ht_runtime_arg_bytes, ht_runtime_info and ht_runtime_info_json answer on any rank;
 * ht_runtime_last is NULL. When MPI is not initialized, ht_runtime_open initializes it
 * (MPI_Init_thread, funneled) and ht_runtime_close finalizes it; otherwise neither (mpi.h,
 * "MPI's start"). One rank is enough (a single node).
 *
 * The options across nodes: opts->devices is one selector applied by each rank on its own
 * node (an index from `hetune devices` or a unique part of "<platform> <name>"), or NULL
 * or "all" for every device; a list is refused. opts->mode HT_RUNTIME_AUTO lets each node
 * co-execute as ht_mpi_split's nodes do; HT_RUNTIME_SPLIT asks each node to split over its
 * devices and the nodes to split over them all; HT_RUNTIME_ALONE is refused (name one
 * device a node in opts->devices instead). opts->tune_missing is refused: tune first with
 * `mpirun -n K hetune tune` or ht_mpi_tune, on the same ranks; strategy, budget,
 * measure_repeats, fallback_ratio, the lock waits and store are not used.
 */
#ifndef HETUNE_RUNTIME_H
#define HETUNE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/coexec.h"
#include "hetune/error.h"
#include "hetune/exec.h"
#include "hetune/platform.h"
#include "hetune/spec.h"
#include "hetune/split.h"
#include "hetune/store.h"
#include "hetune/workflow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which nodes a runtime spans (ht_runtime_opts.nodes), opaque: NULL for this machine, or
 * ht_mpi_nodes() (mpi.h) for the ranks of MPI_COMM_WORLD. */
struct ht_nodes;

/* Whether the runtime splits. */
enum ht_runtime_mode {
    HT_RUNTIME_AUTO = 0, /* split when predicted to pay (see above), else the fastest alone */
    HT_RUNTIME_SPLIT,    /* always split over every device given (no measurement) */
    HT_RUNTIME_ALONE     /* the fastest device by its tuned time, alone (no measurement) */
};

struct ht_runtime_opts {
    const char *db;          /* the results database; NULL: HT_STORE_DEFAULT_PATH */
    const char *devices;     /* "D,D,...": each an index from `hetune devices` or a unique
                                part of "<platform> <name>" (a device named twice gets two
                                contexts); NULL or "all": every device */
    int tune_missing;        /* 1: a device with no tuned configuration of this problem is
                                tuned first (stored in db); 0: that is an error */
    const char *strategy;    /* the search strategy when tuning; NULL: "exhaustive" */
    size_t budget;           /* at most this many evaluations per device when tuning; 0:
                                no limit */
    unsigned dim;            /* the NDRange dimension split; default 0 */
    enum ht_runtime_mode mode;
    unsigned measure_repeats;/* timed runs of each device alone for the decision; 0: 3 */
    enum ht_split_residue residue; /* the plan's residue rule (default Eq. 9's) */
    struct ht_exec_opts exec;/* binary cache, data path, verification while tuning, Eq. 3 */
    int no_predict;          /* 1: at sizes the database holds nothing of, never predict
                                from the kernel's other sizes (ht_workflow_best) */
    /* Waiting for another process's device lock. The decision's measurements (AUTO with
     * more than one device, at open and at a launch that decides again) and a tuning
     * (tune_missing) hold each device's lock (ht_device_locks_take, exec.h); while another
     * process measures the device they wait for it, for as long as it measures. */
    ht_device_lock_wait_fn on_device_wait; /* told once per lock found held (the device,
                                the lock file, its holder's pid) and once when that wait
                                ends, with wait_user; NULL: the wait is silent */
    void *wait_user;
    volatile sig_atomic_t *stop; /* when not NULL and raised (a signal handler, another
                                thread), a wait for a device lock ends: ht_runtime_open, or
                                the launch deciding again, fails with HT_EINTR ("interrupted
                                while waiting for the device lock ..."); a tuning under
                                tune_missing stops too (what it measured stays stored) and
                                ht_runtime_open fails with HT_EINTR. Borrowed until
                                ht_runtime_close: a launch may decide again. NULL: waits
                                until the lock is free */
    /* How db opens in ht_runtime_open (ht_store_opts, store.h): a wait for another
     * process's lock on the database is told to its on_wait once it has lasted
     * HT_STORE_WAIT_NOTICE_S, ends after its busy_timeout_s (HT_EDB), and ends with
     * HT_EINTR when its stop, or when that is NULL this struct's stop, is raised.
     * Borrowed during ht_runtime_open only. NULL: the defaults with this struct's stop. */
    const struct ht_store_opts *store;
    /* Mode AUTO, after a decision that split: when even the fastest of its first
     * HT_RUNTIME_WATCH_LAUNCHES launches took longer than the fastest device's measured
     * wall time alone (info->predicted_alone_s, a mean of the best runs) times this ratio,
     * that device runs alone from the next launch on, and info->decision says so (a split
     * that measured fast on the decision's data can run slower on the caller's arrays: a
     * GPU's transfers of a program's registered malloc arrays beside the CPU's kernel took
     * 5x the decision's time on the H200 machine, docs/results-gpu.md). That device's own
     * first HT_RUNTIME_WATCH_LAUNCHES launches are then watched in turn, launches of now
     * against launches of now: when their median exceeds the split's (the machine slowed
     * down since the decision, the device alone too) times this ratio, the split runs
     * again from the next launch on, as it was decided and planned (unmeasured), and
     * stays. Else the device stays alone, and the split is tried again (a recheck): its
     * next HT_RUNTIME_WATCH_LAUNCHES launches, their median judged by this ratio against
     * the device alone's last ones; the split stays, or the device runs alone again. A
     * recheck comes after as many launches alone as take 8 times its two switches (as the
     * last switches took; at least 8 launches), twice as many after each recheck the
     * split lost: a split that really is slower costs at most 1/8 of the time alone in
     * switches, then 1/16, ... (two switches took 92-132 ms on the H200 machine at 2^26
     * elements). Once the split stays, the watch ends; a switch that fails to set up
     * keeps what runs and ends it too. info->decision says what it found;
     * info->rechecks, info->switches and info->switch_s count. 0: 1.02; < 0: never. */
    double fallback_ratio;
    /* CPU devices co-execute on a sub-device of this many of their compute units
     * (ht_coexec_opts.cpu_units), leaving the others to the host: to the GPU drivers'
     * threads that move a split's data, to the program. Measured and launched alike; a
     * device that cannot be partitioned keeps all its units. 0: all. */
    unsigned cpu_units;
    /* NULL: this machine, the devices of this process (the default); ht_mpi_nodes()
     * (mpi.h): every rank of MPI_COMM_WORLD is a node ("Across nodes" above). Borrowed. */
    const struct ht_nodes *nodes;
};

/* The launches after a decision that split whose wall times mode AUTO compares with the
 * fastest device alone, after a fallback the launches of that device alone compared with
 * the split's, and a recheck's launches of the split (ht_runtime_opts.fallback_ratio). */
#define HT_RUNTIME_WATCH_LAUNCHES 3

/* Fills opts with the defaults: ./hetune.db, every device, no tuning, dimension 0, AUTO.
 * NULL is ignored. */
void ht_runtime_opts_init(struct ht_runtime_opts *opts);

/* The options by name, for callers that cannot mirror struct ht_runtime_opts field by field
 * (the Python package over ctypes, other languages' bindings): allocate
 * ht_runtime_opts_size() bytes (suitably aligned, as malloc gives), ht_runtime_opts_init
 * them, set options by name, pass them to ht_runtime_open. The struct may gain fields in
 * later versions; a binding that goes through these three functions keeps working, where
 * one that mirrors the layout would silently pass garbage. */
size_t ht_runtime_opts_size(void);

/* Sets the option key of opts from its text value: "db" (a path), "devices" ("all" or
 * "D,D,..."), "strategy" (a strategy's name), "tune_missing", "no_predict", "no_verify",
 * "no_cache" ("0" or "1"), "budget", "measure_repeats" (decimal counts), "dim" ("0" to "2"),
 * "mode" ("auto", "split" or "alone"), "isolate" ("auto", "off" or "on"; tuning only),
 * "foreign_up", "foreign_down" ("auto", "stage", "register", "direct" or "pin": how a GPU
 * moves a program's arrays, exec.h), "fallback_ratio" (a finite number), "nodes" ("local":
 * NULL, or "mpi": ht_mpi_nodes(), mpi.h). "mpi" is there in libhetune.so built with MPI
 * (without MPI, ht_runtime_open then says so); a program linked with the static
 * libhetune.a has it only when it calls ht_mpi_nodes itself, and otherwise gets HT_EINVAL
 * saying so: such a program sets opts.nodes = ht_mpi_nodes() instead.
 * String values are borrowed, like the struct's own strings: value must live until
 * ht_runtime_open returns (NULL: the default). Returns HT_EINVAL, err naming the option,
 * for an unknown key (err lists the keys), a value that is not of its kind, or opts or key
 * NULL; opts is then unchanged. */
int ht_runtime_opts_set(struct ht_runtime_opts *opts, const char *key, const char *value,
                        struct ht_error *err);

/* One device the runtime knows. */
struct ht_runtime_device {
    const struct ht_device_info *dev; /* borrowed from the runtime; lives as long as it */
    char config[HT_STORE_CONFIG_MAX]; /* its tuned configuration, "WG=64,EPT=2" */
    double tuned_s;          /* its tuned kernel time for the whole problem */
    int tuned_now;           /* 1: ht_runtime_open tuned it */
    int predicted;           /* 1: config and tuned_s were predicted from other sizes of
                                the kernel (predict.h), nothing being stored at these */
    double alone_s;          /* its wall time alone as measured by ht_runtime_open (the
                                decision), -1 when not measured */
    int used;                /* 1: it takes part in launches */
    double share;            /* the planned share of the work it owns (0 when not used) */
    double kernel_s;         /* the last launch: its kernel time (0 before any) */
    double transfer_s;       /* the last launch: its transfers */
};

/* A device of opts.devices left out because none of its configurations ran and verified,
 * even after tuning (as hetune split and run skip it). */
struct ht_runtime_skipped {
    const struct ht_device_info *dev; /* borrowed from the runtime */
    char reason[512];
};

/* One device of a node of a runtime across nodes, as rank 0's database gave it. */
struct ht_runtime_node_device {
    const struct ht_device_info *dev; /* borrowed from the runtime; on the other ranks'
                                         entries its OpenCL handles are NULL */
    int usable;              /* 1: it has a configuration (config); 0: why says why not */
    char config[HT_STORE_CONFIG_MAX]; /* "WG=64,EPT=2" */
    double tuned_s;          /* its tuned kernel time of the whole problem */
    const char *why;         /* borrowed; "" when usable */
};

/* One node (rank) of a runtime across nodes. */
struct ht_runtime_node {
    int rank;
    const char *host;        /* borrowed */
    int took_part;           /* 1: it has a share of the launches */
    const char *why;         /* borrowed: why it takes no part (its failure, or the nodes'
                                decision); "" when it does */
    size_t ndevices;
    const struct ht_runtime_node_device *devices; /* ndevices, borrowed */
    double alone_s;          /* its wall time co-executing the whole problem at open */
    double share;            /* its share of the work (Eq. 4 adjusted to whole
                                work-groups); 0 when it takes no part */
    uint64_t offset, size;   /* its slice of the split dimension (units: work-items when
                                every node's devices agree; else the lcm of their global
                                sizes, as global below) */
    uint64_t own_offset, own_size; /* the part of it whose outputs it owns (the residue
                                node's slice may overlap its neighbour's, Eq. 9) */
    double run_s, scatter_s, gather_s; /* the last launch: its slice's co-execution, its
                                wait for the scatter, for the gather (seconds). On rank
                                0 every node's; on another rank its own only (0 for
                                the others); 0 before any launch */
};

/* The nodes of a runtime across nodes (ht_runtime_info.nodes). Borrowed from the
 * runtime. */
struct ht_runtime_nodes {
    int rank, size;          /* this process's rank, the ranks of MPI_COMM_WORLD */
    size_t took_part;        /* the nodes that take part */
    const char *decision;    /* the nodes' split-or-alone decision, in words, whole
                                (info.decision holds its first 255 bytes): the other nodes
                                must make Eq. 4's time over them at least 10% faster than
                                rank 0's node alone, which holds the data; else rank 0
                                runs alone (mode HT_RUNTIME_SPLIT: they split anyway) */
    const struct ht_runtime_node *node; /* size, by rank */
    unsigned dim;            /* the split dimension */
    uint64_t global;         /* its units */
    double bound_s;          /* Eq. 4's bound from the times alone of every node that could
                                take part: 1 / sum 1/t */
    double last_scatter_s, last_gather_s; /* this rank's part of the last launch; -1
                                before any */
    uint64_t last_scattered_bytes, last_gathered_bytes; /* rank 0: the bytes the last
                                launch sent to and received from the other nodes; 0 on
                                the others */
};

/* What a runtime is doing. Borrowed from the runtime (ht_runtime_info). */
struct ht_runtime_info {
    const char *spec;        /* the spec's name */
    size_t ndevices;
    const struct ht_runtime_device *devices; /* ndevices, in the order of opts.devices,
                                skipped ones left out */
    size_t nskipped;
    const struct ht_runtime_skipped *skipped; /* nskipped: devices with nothing usable */
    int split;               /* 1: launches co-execute over the used devices; 0: one device
                                (devices[fastest]) runs alone */
    size_t fastest;          /* the fastest device alone (measured, else by tuned time) */
    double predicted_split_s;/* the split's predicted wall time (the bus plan's, see the
                                decision above); -1 unknown */
    double predicted_alone_s;/* the fastest device's measured wall time alone; -1 unknown */
    double measured_split_s; /* AUTO: the split's wall time measured once at open (when it
                                was predicted to pay); -1 when not measured. Slower than
                                the fastest device alone, that device runs alone. */
    char decision[256];      /* why it splits or not, in words, ending "; for the
                                runtime's own memory" (or "the program's aligned", "the
                                program's unaligned": memory below; ", measured on its
                                arrays" added when it measured on them); after a fallback
                                (ht_runtime_opts.fallback_ratio) it continues with "; then
                                device D alone: the split's first 3 launches took ... s
                                and more, ...",
                                then with "; then the split again: device D alone took
                                ... (median), longer than the split's ..." or "; it
                                stayed alone: its first 3 launches took ..." (where both
                                would not fit, the fallback's words are cut to "; then
                                device D alone"); after a recheck, the words after the
                                fallback's are "; then device D alone; the split again at
                                recheck K: ..." or "...; K rechecks of the split kept it
                                alone, ...". None is a decision measured: the times
                                above and decisions stay the decision's */
    enum ht_coexec_memory memory; /* the kind of memory the decision was made for: the
                                runtime's own at open; at a launch that finds another kind
                                bound (by ht_runtime_bind), it is decided again for that
                                kind (more than one device and a mode other than ALONE) */
    unsigned decisions;      /* decisions made: 1 at open, one more per new decision */
    uint64_t launches;       /* launches so far (that succeeded) */
    double last_wall_s;      /* the last launch's wall time (transfers included); -1 */
    uint64_t failed_launches;/* launches that failed once running (a device lost or
                                failing); a refusal before anything runs is not counted */
    int last_status;         /* the last launch that ran: 0, or its HT_E... code */
    char last_error[512];    /* its error's text when it failed, else "" */
    struct ht_load load;     /* what other processes did while the decisions measured
                                (exec.h): the measurements hold each device's lock
                                (ht_device_locks_take; a wait for another process's is
                                told to opts.on_device_wait), and ht_load_under says
                                whether they were made under load, so that the decision
                                may be wrong */
    /* The written buffers without "index" (issue 26 item 4), when the runtime may split
     * (more than one device, mode other than ALONE): which elements each slice writes is
     * inferred by a probe at ht_runtime_open, on arrays of the probe's own (never the
     * caller's), and stored in the database with the problem (the spec's hash and sizes);
     * the next open, or `hetune split` of the same problem, reads it instead of probing. */
    unsigned written_probed; /* buffers probed at this open (and stored) */
    unsigned written_stored; /* buffers whose inference the database held already */
    char written[1024];      /* what was found, one sentence a buffer ("written buffer 'C'
                                has no index: a probe found it written by slabs of its
                                axis 0, ..."; "...: as a probe found before, ..."), joined
                                by "; "; "" when there is none */
    /* Across nodes (opts.nodes ht_mpi_nodes()): the nodes, their slices and the last
     * launch's scatter and gather; NULL on one machine. A runtime across nodes fills, of
     * the fields above, spec, split (more than one node takes part), decision (the nodes'),
     * launches, last_wall_s (rank 0: from the barrier to the last output gathered; on the
     * others their own scatter, run and gather), failed_launches, last_status and
     * last_error; ndevices and nskipped are 0 (each node's devices are in nodes), fastest
     * 0 and the times of the decision -1. */
    const struct ht_runtime_nodes *nodes;
    /* The watch (ht_runtime_opts.fallback_ratio) since open. ABI: added after nodes; a
     * program built against an older header reads the fields above as before. */
    unsigned rechecks;       /* times the split was tried again after the device alone
                                stayed */
    unsigned switches;       /* times it changed between the split and the device alone
                                (fallback, return, rechecks) */
    double switch_s;         /* the time those changes took, in the launches they ended
                                (not in last_wall_s) */
};

struct ht_runtime; /* opaque */

/* Opens a runtime for the spec at spec_path with the problem sizes overridden by
 * sizes[0..nsizes) (as hetune's --size; NULL, 0: the spec's own). opts NULL: the
 * defaults. *out is owned by the caller (ht_runtime_close). Errors, err filled, nothing
 * left open: the spec's errors (ht_spec_load); HT_ESPEC for a pipeline spec or one that
 * cannot be split along opts.dim (a written buffer without "index" whose writes the
 * probe explains by no slab: err->text says what the probe saw; mode ALONE never
 * probes); HT_EINVAL for a bad option; HT_ENOPLATFORM;
 * HT_ENODEVICE naming a device of opts.devices that is not there; HT_ENOTFOUND naming a
 * device with no tuned configuration (and what to run) when opts.tune_missing is 0, or
 * when no device has one that verified even after tuning (a device without one, when
 * others have, is skipped: info.skipped); HT_EDB; HT_EBUILD, HT_ECL, HT_ELAUNCH (a device
 * that fails while measured); HT_EINTR when opts.stop was raised while it waited for a
 * device lock or tuned; HT_ENOMEM; HT_EINVAL when spec_path or out is NULL, or
 * sizes is NULL with nsizes not 0. A database file that the failing call made is removed
 * again, unless it may have tuned into it (opts.tune_missing).
 *
 * Across nodes (opts.nodes ht_mpi_nodes(), collective), errors are every rank's alike,
 * nothing left open: HT_EINVAL for a build without MPI (ht_mpi_built 0), an option that
 * makes no sense across nodes (err->field names it), MPI finalized already; the spec's
 * errors and refusals (a pipeline spec or a written buffer whose index has no axis walked
 * by the split dimension, HT_ESPEC) on any rank; HT_ENOTFOUND when rank 0 cannot
 * co-execute (its devices have no configuration, or fail); HT_ESPEC when the nodes'
 * global sizes along the split dimension have a least common multiple above 2^53, or
 * nodes disagree on a buffer's shape; HT_EDB (rank 0's database); HT_ENOMEM. */
int ht_runtime_open(const char *spec_path, const struct ht_size_override *sizes,
                    size_t nsizes, const struct ht_runtime_opts *opts,
                    struct ht_runtime **out, struct ht_error *err);

/* Opens a runtime for a spec already loaded (ht_spec_load, or ht_spec_load_buffer so that
 * the program ships no files), at the sizes it was loaded with; otherwise as
 * ht_runtime_open. spec is borrowed, not copied: it must stay alive and unchanged until
 * the runtime is closed, and is freed by the caller (ht_spec_free) after ht_runtime_close,
 * whether this succeeded or not. One spec may serve several runtimes. A spec from memory
 * has no file for the isolated worker to load again: when tuning is allowed it is tuned in
 * this process (opts.exec.isolate HT_ISOLATE_AUTO), and HT_ISOLATE_ON fails. Errors as
 * ht_runtime_open's after loading; HT_EINVAL when spec or out is NULL. */
int ht_runtime_open_spec(const struct ht_spec *spec, const struct ht_runtime_opts *opts,
                         struct ht_runtime **out, struct ht_error *err);

/* Closes a runtime: frees its contexts, programs, buffers and every array of
 * ht_runtime_alloc. The caller's own arrays stay the caller's, and so does a spec given to
 * ht_runtime_open_spec. NULL, and a runtime closed already, are ignored (see "Misuse"). */
void ht_runtime_close(struct ht_runtime *rt);

/* The bytes buffer argument name must be bound with (its shape times its type's size).
 * HT_EINVAL naming it when the spec has no such argument or it is a scalar; HT_EINVAL when
 * rt is not open or bytes is NULL. */
int ht_runtime_arg_bytes(const struct ht_runtime *rt, const char *name, size_t *bytes,
                         struct ht_error *err);

/* Host memory the data path likes (HT_COEXEC_MEM_OWN): pinned for a device that is copied
 * to (a GPU reads it at the bus's speed), page-aligned in any case (a CPU device uses it
 * in place). Owned by rt: freed by ht_runtime_free_host or ht_runtime_close. NULL with
 * err filled (HT_ECL, HT_ENOMEM, HT_EINVAL for 0 bytes or rt not open). */
void *ht_runtime_alloc(struct ht_runtime *rt, size_t bytes, struct ht_error *err);

/* Frees memory of ht_runtime_alloc (unbinding it where it is bound). NULL, memory that rt
 * did not give and rt not open are ignored. */
void ht_runtime_free_host(struct ht_runtime *rt, void *data);

/* Binds the caller's array data (bytes long, which must be ht_runtime_arg_bytes) to the
 * buffer argument called name: launches read inputs from it and write outputs into it.
 * data stays the caller's and must live until it is bound again or rt is closed (the
 * devices may hold it registered or wrapped in place until then; see "The caller's
 * contract" above). Errors: HT_EINVAL when rt is not open; HT_EINVAL naming the argument
 * when the spec has none of that name (err lists its buffers), it is a scalar or a temp
 * buffer, bytes is not its size (err gives both) or data is NULL; the co-execution's
 * errors: a readwrite buffer with a halo along the split dimension is HT_ESPEC (its slices
 * would read what another device writes); HT_ECL, HT_ENOMEM. An argument whose bind failed
 * is left unbound (a launch then refuses to run without it); nothing else changes. */
int ht_runtime_bind(struct ht_runtime *rt, const char *name, void *data, size_t bytes,
                    struct ht_error *err);

/* Runs the kernel once over the whole problem on the bound arrays, with the plan made at
 * open (or decided again for the kind of memory now bound: see above): the outputs are in
 * the bound arrays when it returns. Every buffer argument must
 * be bound (HT_EINVAL naming the first that is not, before anything runs). Errors:
 * HT_EINVAL (also when rt is not open), HT_ELAUNCH (err names the device), HT_ECL,
 * HT_ENOMEM. A failure once running is recorded in info (failed_launches, last_status,
 * last_error), also when err is NULL; the runtime stays open and may be launched again. */
int ht_runtime_launch(struct ht_runtime *rt, struct ht_error *err);

/* What the runtime decided and measured (see struct ht_runtime_info). Borrowed: valid
 * until the next launch or close. NULL when rt is not open. */
const struct ht_runtime_info *ht_runtime_info(const struct ht_runtime *rt);

/* The last launch's full result (each device's chunks, kernel and transfer times; see
 * ht_coexec_result), NULL before the first launch, after a launch that failed, or when rt
 * is not open. Borrowed: valid until the next launch or close. */
const struct ht_coexec_result *ht_runtime_last(const struct ht_runtime *rt);

/* ht_runtime_info as a JSON document, for bindings that cannot mirror the struct: {"spec",
 * "split", "fastest", "decision", "predicted_split_s", "predicted_alone_s",
 * "measured_split_s", "launches", "failed_launches", "last_status" (the HT_E... name or
 * null), "last_error", "last_wall_s" (null for -1), "under_load" (ht_load_under of
 * load), "load_other_cores", "locked" (no decision measured without its device locks),
 * "written", "written_probed", "written_stored", "devices": [{"index", "name",
 * "platform", "config", "tuned_s", "tuned_now", "predicted", "alone_s", "used", "share",
 * "kernel_s", "transfer_s"}], "skipped": [{"index", "name", "reason"}]}, and across nodes
 * "nodes": {"rank", "size", "took_part", "decision", "dim", "global", "bound_s",
 * "last_scatter_s", "last_gather_s", "last_scattered_bytes", "last_gathered_bytes",
 * "nodes": [{"rank", "host", "took_part", "why", "alone_s", "share", "offset", "size",
 * "own_offset", "own_size", "run_s", "scatter_s", "gather_s", "devices": [{"index",
 * "name", "usable", "config", "tuned_s", "why"}]}]} (info->nodes). *json is owned by
 * the caller (free()). HT_EINVAL when rt is not open or json is NULL, HT_ENOMEM. */
int ht_runtime_info_json(const struct ht_runtime *rt, char **json, struct ht_error *err);

#ifdef __cplusplus
}
#endif
#endif
