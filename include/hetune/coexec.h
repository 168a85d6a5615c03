/* hetune — co-execution: one kernel run on several devices at once, each at its own tuned
 * configuration, the work split along one NDRange dimension by a scheduler of split.h
 * (src/coexec/). What a program uses of it is the runtime's handle (runtime.h) and the
 * workflow's `hetune split` and `run` (workflow.h); this header holds the types they
 * share: a co-execution's devices, options and results, each device measured alone and
 * the prediction made from those runs, the probe that infers what a kernel without
 * "index" writes, and the device as the split-or-alone decision sees it (its best
 * configuration and its run alone, struct ht_workflow_device, which workflow.h's
 * functions fill). The planner itself (Eq. 4-9, the bus model, the schedulers) is split.h's.
 *
 * A NULL pointer a function cannot do without (the spec, the device, its configuration, an
 * output) is HT_EINVAL with err->text "FUNCTION: ARGUMENT is NULL", never a crash; err may
 * be NULL everywhere. The void functions do nothing with a NULL, and those that answer a
 * number or a pointer answer 0 or NULL for a NULL; where NULL is taken instead, the
 * function's comment says what it means.
 */
#ifndef HETUNE_COEXEC_H
#define HETUNE_COEXEC_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"
#include "hetune/exec.h"
#include "hetune/platform.h"
#include "hetune/spec.h"
#include "hetune/split.h"
#include "hetune/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Co-execution: one kernel on several devices at once.
 *
 * Each device (an entry of the device list; the same OpenCL device may appear twice, it
 * then gets two contexts) runs the spec's kernel at its own configuration: its own program
 * (built with its own -D values through the binary cache), its own context, profiling
 * queue and full-size buffers. The work is split along one NDRange dimension d by a
 * scheduler; every chunk is launched with a global work offset along d and the device's
 * whole global size along the other dimensions, at the device's own local size.
 *
 * Data. Buffers are allocated whole on every device (kernels index them with
 * get_global_id, offset included), but only what a chunk needs is sent:
 * - A read (or readwrite) buffer whose `index` maps an axis to d is sent per chunk: along
 *   that axis only the elements of the chunk's work-items plus the halo, the other axes
 *   whole (a rectangular write). A work-item range [lo, hi) of a device launching G
 *   work-items along d covers the elements [lo·e, hi·e + halo) of an axis of S elements,
 *   e = (S − halo)/G elements per work-item when that divides exactly (conv1d: S = N +
 *   MASK − 1, halo MASK − 1, e = 1), else e = S/G when that does (an EPT-like kernel that
 *   walks e elements per work-item), clipped to [0, S). When neither divides, the buffer
 *   is sent whole.
 * - Other read buffers are sent whole, once per run, before the device's first chunk (a
 *   device that gets no work gets no data).
 * - A written buffer (write, readwrite) must have an axis walked by d whose size S is a
 *   multiple of G (e = S/G elements per work-item; see Units below for devices whose G
 *   differ): only each chunk's owned elements are
 *   read back (rectangular reads when d walks a non-leading axis) into one host result.
 *   Written buffers without an `index`, or without an axis walked by d, or whose axis is
 *   not a multiple of G, make the co-execution refuse the spec (HT_ESPEC) when there is
 *   more than one device (a buffer without `index` is probed first: see "inferring what a
 *   kernel writes" below); with one device they are read back whole.
 * - readwrite buffers: every device starts from the initial data of the range it is sent
 *   and only owned ranges are merged back. This is right only when a work-item reads and
 *   writes nothing but its own elements (plus the declared read halo); a kernel whose
 *   work-items read elements that others write (an in-place stencil) cannot be split.
 *
 * Units. The work is split in units along d. When every device's configuration launches
 * the same number G of work-items along d, a unit is a work-item. When they differ (an
 * elements-per-work-item parameter tuned differently per device, G_i = N / EPT_i), the
 * units are L = lcm(G_i) and a work-item of device i covers L / G_i of them: its
 * work-group counts wg_i·L/G_i units, and a chunk is launched as the device's work-items
 * that cover it, rounded up to whole work-groups (moved back to end at G_i when that
 * overshoots; the owned units are unchanged). Written buffers must then have S elements
 * along d with S a multiple of L (so of every G_i). The other dimensions may differ freely.
 *
 * Group ids. A kernel that names get_group_id, get_num_groups or get_global_size (or
 * #includes a file, which might) is built, for tuning and co-execution alike, after a
 * prologue that makes a chunk launched with a global work offset see the whole NDRange of
 * its device's configuration: get_group_id(d) + get_global_offset(d) / get_local_size(d),
 * the whole launch's number of groups and global size (docs/spec.md). Such a device's
 * chunks start on one of its own work-groups: a chunk that would start inside one starts
 * at its first work-item, recomputing up to wg - 1 work-items it does not own.
 *
 * Timing. A measured co-execution (`hetune split`, ht_workflow_split) makes `repeats`
 * co-executions (after `warmup` untimed ones). The wall time of each is measured from
 * before the device threads start to after the last output is on the host: transfers
 * both ways, launches and the host threads included
 * (programs and buffers are made once, before the first). Every buffer is poisoned on
 * the devices, and the merged outputs on the host, before every run, outside the
 * measurement, so that neither an element nobody writes nor an input element that a chunk
 * reads but was not sent can pass verification. Each device's kernel-only time is the
 * sum of its launches' profiling times. The figures are the mean of the best keep_best
 * runs (by wall time), as for one device.
 */

/* One device of a co-execution. */
struct ht_coexec_device {
    const struct ht_device_info *dev; /* borrowed; must outlive the co-execution */
    const int64_t *config;   /* its configuration, spec->space.nparams values; copied */
    double time_s;           /* its time for the whole problem alone (the database's
                                best); <= 0 when unknown (see ht_split_sched_device) */
    double overhead_s;       /* the affine model's overhead (ht_split_plan_make); 0 */
};

/* The kind of host memory a co-execution's arrays are: what the data path costs depends on
 * it (exec.h, enum ht_foreign_path), so decisions are made for the kind bound. */
enum ht_coexec_memory {
    HT_COEXEC_MEM_OWN = 0,   /* the data path's own memory (ht_runtime_alloc's, the
                                co-execution's own data): pinned where a device is copied
                                to, page-aligned where one works in place */
    HT_COEXEC_MEM_ALIGNED,   /* a program's own memory (malloc) that every device working
                                in place wraps as it is: at its base alignment
                                (CL_DEVICE_MEM_BASE_ADDR_ALIGN), or at malloc's 16 bytes
                                where its driver wraps such an array in place (PoCL does);
                                devices that copy move it as foreign memory */
    HT_COEXEC_MEM_UNALIGNED  /* a program's own memory below that for some device that
                                works in place:
                                devices that copy move it as foreign memory, CPU devices work
                                on a shadow, their slices copied in and out */
};

/* "own", "aligned" or "unaligned" (NULL for another value). */
const char *ht_coexec_memory_name(enum ht_coexec_memory m);

struct ht_split_written; /* below, "inferring what a kernel writes" */

struct ht_coexec_opts {
    unsigned dim;            /* the split dimension, below the spec's ndims; default 0 */
    const char *scheduler;   /* a name of ht_split_schedulers[]; NULL: "static" */
    struct ht_split_sched_opts sched; /* factors (static), chunk fraction (dynamic) */
    unsigned repeats;        /* timed co-executions per measurement; 0: the spec's
                                timing.repeats */
    unsigned keep_best;      /* 0: the spec's timing.keep_best */
    unsigned warmup;         /* untimed co-executions first (drivers that compile at the
                                first launch); default 1 */
    struct ht_exec_opts exec;/* binary cache, data path and Eq. 3 rule of the configuration
                                check; no_verify: the merged outputs are not verified
                                (ht_coexec_result.verified -1) */
    uint64_t piece_bytes;    /* devices that are copied to (HT_PATH_PINNED, _PAGEABLE): a
                                chunk is moved and launched in pieces of whole work-groups
                                of about this many bytes of sliced inputs and outputs, on
                                two queues, so that uploads, kernels and downloads overlap;
                                0: 32 MiB, and none on a device that shares the
                                host's memory (a CPU told to copy: no DMA engine to
                                overlap); UINT64_MAX: one piece per chunk */
    double margin;           /* the split-or-alone decision's margin (ht_split_decide);
                                default HT_SPLIT_MARGIN_DEFAULT */
    int bind_only;           /* 1: no host data of its own; every buffer is bound (as
                                ht_runtime_bind does) before it runs, and what it runs
                                (launches, the runtime's measurements on a program's
                                arrays) is never poisoned: ht_runtime_open sets it for its
                                launches; leave it 0 for ht_workflow_split, which fails
                                with it (HT_EINVAL) */
    enum ht_coexec_memory memory; /* the kind of memory the co-execution's own host data is
                                made of (each device measured alone, and the split): the
                                runtime's decision measures on memory of the kind the program bound;
                                default HT_COEXEC_MEM_OWN */
    unsigned cpu_units;      /* CPU devices co-execute on this many of their compute units,
                                a sub-device (clCreateSubDevices; Dopia's degree of
                                parallelism); 0: all. A device that cannot be partitioned
                                keeps all its units; making the co-execution fails with
                                HT_EINVAL naming the limit when one that can has fewer */
    const struct ht_split_written *written; /* spec->nargs entries or NULL, borrowed while
                                the co-execution is made (ht_workflow_split and
                                ht_runtime_open fill it themselves): what a probe
                                (ht_split_probe) inferred for the written buffers without
                                "index"; an entry with inferred
                                set is split as if its axis were walked by dim */
};

/* What one device did in a co-execution. Times are means over the kept runs. */
struct ht_coexec_device_result {
    unsigned ndims;
    uint64_t global[3], local[3]; /* its whole NDRange (local all 0: left to the runtime) */
    uint64_t wg;             /* its work-group size along the split dimension, in units (see
                                Units above: work-items when the devices' global sizes
                                agree); 1 work-item when the local size is left to the
                                runtime */
    double time_s;           /* as given */
    double build_s;          /* getting its program (compile or cache load) */
    unsigned compute_units;  /* the compute units it ran on: a sub-device's with
                                ht_coexec_opts.cpu_units, else the device's */
    int cache_hit;
    unsigned chunks;         /* kernels it launched in the fastest run */
    uint64_t items;          /* units along d of the chunks it took in the fastest run
                                (overlap included) */
    uint64_t owned;          /* units along d read back from it in the fastest run */
    double share;            /* owned / global, the mean over the kept runs: the adjusted
                                factor it actually took (a dynamic scheduler's shares vary
                                between runs) */
    double kernel_s;         /* kernel-only: the sum of its launches' profiling times */
    double write_s, read_s;  /* its transfers, from profiling events */
    double busy_s;           /* wall time of its host thread, from the start of the run to
                                its last read */
};

struct ht_coexec_result {
    unsigned dim;            /* the split dimension */
    uint64_t global;         /* units along it: work-items when the devices' global sizes
                                agree, else their least common multiple (see Units) */
    char scheduler[32];
    unsigned nruns;
    double *run_s;           /* nruns entries (NULL may stand for none): the wall time
                                of each timed co-execution, in run order; owned by the
                                result and freed with devices, below. ABI: an array of
                                HT_MAX_REPEATS inside the struct until branch abi40,
                                which made the struct 8 KB smaller; a program built
                                against the older header must be built again. Its
                                source needs no change: run_s[k] reads the same */
    double wall_s;           /* mean of the best keep_best wall times: the figure of merit */
    double wall_min_s;
    double kernel_s;         /* the slowest device's kernel-only time (means over the
                                kept runs): the co-execution without its transfers */
    double theoretical_s;    /* Algorithm 1 with the given times, -1 when unknown */
    double adjusted_s;       /* the plan's time with the slices as launched, -1 unknown */
    double model_s;          /* the plan's affine-model time (ht_split_plan's
                                model_time_s), -1 unknown */
    size_t ndevices;
    struct ht_coexec_device_result *devices; /* owned by the result, freed with what holds
                                it (ht_workflow_split_result_destroy,
                                ht_workflow_run_result_destroy; ht_runtime_last's by
                                ht_runtime_close) */
    /* Verification of the merged outputs against one run of a device alone: 1 passed, 0
     * failed, -1 not verified. */
    int verified;
    double max_abs_err, max_rel_err;
    size_t mismatches;
    char mismatch[256];
    char reference[512];     /* what the outputs were compared with */
};

/* Frees what res owns (its devices and run_s) and leaves them NULL and their counts 0, the
 * rest as it was. A result inside another (ht_workflow_split_result, ...) is freed with it
 * by that one's destroy; ht_runtime_last's by ht_runtime_close. NULL: nothing. */
void ht_coexec_result_destroy(struct ht_coexec_result *res);

struct ht_coexec; /* opaque */

/* --- inferring what a kernel writes (src/coexec/probe.c) ---
 *
 * A written buffer without "index" (specs written for other tuners never have one) is
 * split by what a probe sees. The kernel runs, with one device's configuration, over two
 * different slices of whole work-groups along the split dimension and once whole, each
 * time with the buffer poisoned by two different byte patterns (0x5A.. and 0xA5..): an
 * element that differs from its poison in either run was written (an element the kernel
 * writes with one poison's value still differs from the other). The writes are explained
 * by a slab when, for one axis of k = its length / G elements per work-item (G the
 * work-items along the split dimension), the slice of work-items [a, b):
 *   - writes only elements whose index along the axis lies in [a·k − halo_lo, b·k + halo_hi),
 *     the halos (elements a slice also writes beyond its own, the same values as their
 *     owner's, as a stencil writing its neighbours' borders) no wider than the slice;
 *   - writes every element of its own rows [a·k, b·k) that the whole run writes;
 * the halos are the larger of the two slices' (a slice at an end of the axis has its
 * halo clipped), and both slices must fit: the second checks the first. Each slice then
 * owns its rows and the split merges them as it merges an "index" on that axis. Writes
 * that depend on the input data (a branch on the values) may differ at other sizes or
 * data: the split's verification is the final word. */
struct ht_split_written {
    int inferred;       /* 1: a probe found the slab below */
    unsigned axis;      /* the buffer axis walked by the split dimension */
    uint64_t per_item;  /* k: elements of the axis per work-item of the probed
                           configuration */
    uint64_t halo_lo, halo_hi; /* elements a slice wrote before and past its own rows */
};

/* Probes spec's written buffers without "index" on device dev with configuration config,
 * splitting along dim: fills written[i] (spec->nargs entries, zeroed first) for each such
 * buffer i. The device works on host memory in place (a CPU or host-unified device;
 * HT_EINVAL otherwise, naming it). exec gives the binary cache and the Eq. 3 rule (NULL:
 * defaults). Errors: HT_ESPEC, err->field "args[i].index", err->file the spec, when no
 * slab explains a buffer's writes, err->text saying what the probe saw ("the probe's slice
 * [24, 48) along gy wrote 37 elements scattered over 12 rows of 'c'"), or when the
 * configuration has fewer than two work-groups along dim; the errors of making and
 * running the co-execution (HT_ECONSTRAINT, HT_EBUILD, HT_ECL, HT_ELAUNCH); HT_ENOMEM.
 * written is left zeroed on error. */
int ht_split_probe(const struct ht_spec *spec, const struct ht_device_info *dev,
                   const int64_t *config, unsigned dim, const struct ht_exec_opts *exec,
                   struct ht_split_written *written, struct ht_error *err);

/* A device measured alone, as a co-execution of that one device (the same wall clock as
 * a split): its kernel-only time, its transfers and its whole wall time. */
struct ht_coexec_alone {
    double kernel_s, write_s, read_s, wall_s;
};

enum ht_refine_target {
    HT_REFINE_WALL = 0, /* each device's whole busy time: its host thread's wall time in
                           the run (transfers, launches, kernel; busy_s), and its wall time
                           alone: the co-execution's wall time is what gets balanced */
    HT_REFINE_KERNEL    /* kernel-only times (kernel_s, alone kernel_s): Algorithm 1's
                           terms */
};

/* The prediction of whether splitting pays. */
struct ht_coexec_estimate {
    double split_s;          /* the predicted wall time of the co-execution: the bus plan's
                                time with its slices as launched (model_time_s), or
                                host_split_s when host_floor and that is longer */
    double alone_s;          /* the fastest device's measured wall time alone */
    size_t fastest;          /* that device's index */
    int worth_it;            /* ht_split_decide with opts.margin: split_s·(1 + margin) <=
                                alone_s */
    double bound_s;          /* the transfer-aware bound: the best any split of these
                                devices can reach with these kernels and these links
                                (ht_split_bound over the bus models) */
    double kernel_bound_s;   /* Algorithm 1 on the kernel-only times measured alone */
    double paper_s;          /* the paper's plan (Eq. 4-9, `hetune split --plan paper`)
                                under the same models: what splitting by Eq. 4 alone
                                would take; -1 without it */
    double host_bytes;       /* bytes the bus plan's split moves through host memory: what
                                copying devices transfer and what devices in place read and
                                write there */
    double host_s;           /* the time host memory needs for them: at the shared rate
                                (ht_host_memory_measure_shared) when known, a floor under
                                split_s (host_floor); else at the rates the CPU's threads
                                reach alone (reads and writes each at its cost), only shown:
                                a CPU beside a GPU's DMA got more from host memory than its
                                threads alone (115-119 GB/s against 88-101 on the H100
                                machine); 0 when no rate is known */
    double host_Bps;         /* host_bytes / host_s: the rate they get; 0 when not known */
    int host_floor;          /* 1: host_s is at the rate measured with the devices' copies
                                and the CPU's threads together (shared_Bps), and split_s is
                                at least host_s */
    int check;               /* 1: not worth_it, but the plan gives two devices or more
                                work and is predicted under alone_s·(1 + margin): close
                                enough to measure (the prediction's error is of the margin's
                                size, either way: on the 2 x H200 machine CPU+H200 vecadd
                                2^26 was predicted at 6.72 ms against 7.39 alone, 1.0995x,
                                and split in 6.19; on the H200 machine at 8.52 ms against
                                8.518 alone, and split in 6.4-7.0) */
    double keep_s;           /* a split measured at or under this keeps the split: alone_s
                                when worth_it, alone_s / (1 + margin) when only check */
    double host_split_s;     /* with host_floor: the split with host memory shared. Each
                                part's share-proportional time stretched alike until the
                                longest takes host_s, plus its fixed cost (its launches,
                                waking threads, what its host thread does beyond the
                                model: none of it moves the split's bytes); the longest of
                                the parts, so at least host_s. 0 without host_floor. On
                                the 2 x H200 machine (vecadd 2^26, CPU + 2 H200) the
                                splits took 0.96-1.20x host_s and 0.91-1.13x this over 28
                                rounds of five leases, the CPU's fixed cost being
                                0.26-0.43 ms. On the H200 machine (16 cores) CPU + H200
                                split faster than host_s (the probe's shared rate is below
                                what the split reaches there): this is further off.
                                ABI: added at the end */
};

/* One device of a co-execution with what the database and a measurement know of it. */
struct ht_workflow_device {
    const struct ht_device_info *dev; /* borrowed from the caller's platform */
    int64_t device_id;                /* its row in the results database */
    int64_t config[HT_STORE_MAX_PARAMS]; /* its best configuration, in parameter order */
    char config_text[HT_STORE_CONFIG_MAX]; /* its canonical text, "WG=64,EPT=2" */
    double tuned_s;                   /* the database's best time */
    int tuned_now;                    /* 1: tuned by ht_workflow_best itself */
    struct ht_coexec_alone alone;     /* measured alone, with the co-execution's wall
                                         clock (the split-or-alone decision's first
                                         step); 0 before */
    int predicted;                    /* 1: config and tuned_s are ht_predict_best's from
                                         the kernel's other sizes (nothing stored at these) */
    size_t predicted_from;            /* ... from that many other sizes */
};

/* Told, in a sentence without the command's name, how ht_workflow_best finds a device's
 * configuration the database does not hold at these sizes: predicted from other sizes, or
 * tuned first (told before the tuning, as on_tune is); borrowed for the call. */
typedef void (*ht_workflow_note_fn)(const char *note, void *user);

#ifdef __cplusplus
}
#endif
#endif
