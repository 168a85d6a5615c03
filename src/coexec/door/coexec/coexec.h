/* coexec's door (src/coexec/): the co-execution handle and the one split-or-alone
 * decision, for the modules that drive co-executions: the workflow (`hetune split` and
 * `run`, src/workflow/), the runtime (ht_runtime_open, bind, launch) and MPI's nodes
 * (src/mpi/split.c, each node's share of a split). It offers the steps its users make
 * together as one call each, so that the sequences live here once:
 *   - what the spec and the devices say against a co-execution before anything is tuned
 *     (ht__coexec_precheck);
 *   - one decision, ht__decide, whatever asks: the runtime and each MPI node (the devices
 *     measured alone, the co-execution made with its links and host memory, the rule,
 *     what was chosen run once when asked; with in->from, the program's arrays handed
 *     over to what a new decision chose; the runtime's with in->program, its options made
 *     here and its links, host memory rates and written buffers the basis in->read read
 *     at open, handed from each decision to the next), `hetune split` and `run` (in->runs:
 *     each device's run alone, kept in the decision for several co-executions; in->alone:
 *     the co-execution made with the links and host memory its database holds, the rule
 *     on those runs alone) and `--refine` (in->measured: the rule's last comparison); a
 *     decision owns what it made, measured and read (its holder's last run too: the
 *     runtime's last launch, an MPI node's last share), and ht__decision_destroy frees it;
 *   - a run checked: ht__coexec_check (verify, then dump), and the rounds after the
 *     decision, ht__coexec_rounds (a refinement's rounds or a sweep's points, each the
 *     plan changed, the run, the verification, told to the caller, who stores it);
 *   - the program's arrays: bind, alloc, free_host, launch (bind.c; a launch tells of a
 *     change of the kind of memory bound, for the runtime to decide again);
 *   - a node's share over MPI, one call (share.c): ht__coexec_share (its slice, how its
 *     runs go and the node's moves of its host arrays around each, its arrays, where its
 *     slice lies in each buffer), each run of it then a launch.
 * What the store holds for a co-execution (each device's link, the host memory's rates)
 * and the written buffers without "index" are read with ht__decide's in->read, by the
 * runtime, `hetune split` and `run`, and MPI's rank 0 alike.
 * Only what other modules call is here; the steps those calls make (create, free, run,
 * verify, dump, set_factors, refine, set_range, the kind of memory bound, the stored
 * rates and the written buffers' inference, ..., the estimate and the bus plan) are in
 * coexec-internal.h.
 *
 * A friend header (docs/architecture.md, scripts/walls-allowed.txt): only the modules
 * named there include it; the names stay inside the shared library (ht__, src/hetune.map).
 * coexec-internal.h includes it. */
#ifndef HETUNE_COEXEC_DOOR_H
#define HETUNE_COEXEC_DOOR_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/coexec.h"
#include "hetune/store.h"

/* --- (share.c) a node's share of a split over MPI, for src/mpi/split.c: one call,
 * ht__coexec_share (take a slice, with how its runs go and the node's moves of its host
 * arrays around each); each run is then ht__coexec_launch --- */

/* Where a range of units lies in one buffer: a slab of the axis walked by the split
 * dimension, the other axes whole. */
struct ht__slab {
    int whole;          /* 1: the buffer is needed (inputs) or written (outputs) whole: no
                           single axis walked by the split dimension, or a device of the
                           node does not slice it */
    unsigned axis;      /* the axis walked by the split dimension */
    uint64_t lo, hi;    /* its elements [lo, hi) (the whole axis when whole) */
    uint64_t len;       /* its length */
    uint64_t outer;     /* the product of the axes before it */
    uint64_t inner;     /* bytes of one of its indices: the axes after it, times the
                           element's size */
    size_t bytes;       /* the whole buffer's bytes */
};

/* What a node does with its host arrays around each run of its share: move is called
 * twice, whether the node has a slice and whether its run fails (MPI's collectives need
 * every node): with output 0 before the run, host[i] the array that each buffer the run
 * reads (not write-only, not temp) is read from, and with output 1 after it, host[i] the
 * array each buffer it writes (not read-only, not temp) is written to; NULL for the other
 * arguments. host has one entry per argument of the spec, borrowed for the call. */
struct ht__share_io {
    void (*move)(void *user, int output, void *const *host);
    void *user;                    /* must live as long as the share */
};

/* A node's slice, in units of its co-execution's split dimension, and how it runs. */
struct ht__share_of {
    uint64_t offset, size;         /* the units it runs, [offset, offset + size); size 0:
                                      no slice (the whole range is kept, nothing runs) */
    uint64_t own_offset, own_size; /* the units whose outputs it owns */
    int poison;                    /* 1: its host inputs and outputs poisoned (a node
                                      other than rank 0: its inputs are only what rank 0
                                      sends it) */
    int bind_own;                  /* 1: every buffer but temp bound to the co-execution's
                                      own host array (a readwrite one's input array taking
                                      its outputs too), for launches on a node whose arrays
                                      are not the caller's */
    int measured;                  /* 1 (ht_mpi_split): each run is one measured run of
                                      the co-execution's own host data (ht__coexec_run), the
                                      first after the share with every buffer poisoned
                                      first (untimed: nothing unwritten passes rank 0's
                                      check), the next ones without (ht__coexec_run_once:
                                      timed, their wall time would otherwise include
                                      poisoning every buffer of every device); 0 (the
                                      runtime across nodes): a launch on the bound arrays */
    struct ht__share_io io;        /* the node's moves around each run */
};

/* Makes cx the node's share of->* (of->io kept for its runs): the units [offset, offset
 * + size) when size is not 0 (a node without a slice keeps the whole range and runs
 * nothing), one timed run and no warm-up from then on, its host arrays poisoned with
 * of->poison and bound to with of->bind_own; then fills slabs (2 per argument of cx's
 * spec, zeroed where it is not a buffer) with where the slice lies in each buffer:
 * slabs[2 * i] what any device of cx reads for a chunk inside [offset, offset + size)
 * (its work-items covering them, halo included: the same ranges a device is sent),
 * slabs[2 * i + 1] the elements [own_offset, own_offset + own_size) own; an empty range
 * needs nothing (lo = hi = 0). From then on each ht__coexec_launch of cx is one run of
 * the share: io's moves of the inputs, the slice run as of->measured says when it has
 * one, else, for a measured run, its host outputs poisoned instead (nothing of its own
 * counts), then io's moves of the outputs. Errors: HT_EINVAL when the range is not inside
 * cx's units (cx unchanged), those of ht__coexec_bind, HT_ENOMEM. */
int ht__coexec_share(struct ht_coexec *cx, const struct ht__share_of *of,
                     struct ht__slab *slabs, struct ht_error *err);

/* --- the co-execution handle: what the workflow (hetune split and run), the decision,
 * the runtime and MPI's nodes drive; not public: programs co-execute through runtime.h
 * --- */

/* What ht__coexec_precheck checks of a co-execution before anything is tuned. Borrowed
 * for the call. */
struct ht__precheck {
    const struct ht_spec *spec;       /* NULL: the spec is not checked */
    unsigned dim;                     /* the split dimension */
    const char *scheduler;            /* NULL: static */
    size_t n;                         /* the devices of the co-execution */
    const struct ht_device_info *const *devs; /* n of them; NULL: the units are not
                                         checked */
    unsigned units;                   /* the CPU compute units asked (ht_coexec_opts.cpu_units;
                                         0: all) */
};

/* (coexec.c) What the spec and the devices say against a co-execution before anything is
 * tuned. With p->spec: ht__coexec_check_spec's refusals, but a written buffer without
 * "index" passes (a probe, ht_split_probe, is to infer which elements each slice
 * writes). Then, with p->devs, the count of CPU compute units: HT_EINVAL naming the
 * limit when a CPU device that can be partitioned (clCreateSubDevices, by counts or
 * equally) has fewer than p->units, or when p->units is not 0 and none can be. *largest
 * (may be NULL) is set to the compute units of the largest such device of p->devs, 0
 * when none (or no devs). */
int ht__coexec_precheck(const struct ht__precheck *p, unsigned *largest, struct ht_error *err);

/* --- (outputs.c) the steps the users make together around a run --- */

/* Verifies the outputs of cx's last run against device ref alone (ht__coexec_verify, into
 * res and verr) and, when dump is not NULL and the verification did not fail otherwise
 * than by a difference (HT_EVERIFY), writes them to dump (ht__coexec_dump; its error goes
 * to derr, which is left alone when it succeeds). Returns ht__coexec_verify's code; a
 * failed dump is only derr's, the caller says whether it stops on it (`hetune split`
 * reports it, a split over MPI fails). */
int ht__coexec_check(struct ht_coexec *cx, size_t ref, struct ht_coexec_result *res,
                     const char *dump, struct ht_error *verr, struct ht_error *derr);

/* What ht__coexec_rounds tells its caller of each round it made. Borrowed for the call,
 * but *plan, which the caller may take. */
struct ht__round_made {
    size_t k;                  /* a refinement's round (1, 2, ...: round 0 is the first
                                  run, refined from), or a sweep's point (0, 1, ...) */
    double factor;             /* a sweep's point: device 0's split factor (device 1 takes
                                  1 - factor); 0 for a refinement */
    const struct ht_coexec_result *res; /* its run, verified (res->verified); a
                                  refinement's is named "refined" and has the first run's
                                  theoretical time (Algorithm 1 from the tuned times) */
    const double *model_s;     /* a refinement's: 2 per device of cx, the time model and
                                  the overhead the round was planned by (as
                                  ht__decision.model_s); NULL for a sweep */
    struct ht_split_plan *plan; /* a refinement's: a copy of the plan the round ran, the
                                  caller's to take (zeroing *plan), else destroyed after
                                  the call; NULL for a sweep */
    const struct ht_error *verr; /* not NULL: the outputs differ from device ref's alone
                                  (what differs); the round is kept all the same */
};

/* The measured rounds on a co-execution decided already, for `hetune split` and `run`: a
 * refinement's (refine not 0) or a sweep's (npoints not 0). Borrowed for the call. */
struct ht__rounds {
    /* A refinement: up to refine rounds, each the plan refined from the last run (first,
     * the run of the plan decided, for round 1) towards target, with each device's run
     * alone, then run; it stops when the plan no longer changes. */
    unsigned refine;
    const struct ht_coexec_result *first;
    const struct ht_coexec_alone *alone;
    enum ht_refine_target target;
    /* Else a sweep of a two-device static co-execution: npoints points k = 0, 1, ...,
     * device 0's factor min(k step, 1). The first gives every device back its tuned time
     * model: a refinement left its fitted ones in cx, and the sweep's plans (and their
     * theoretical times) come from the tuned times. */
    size_t npoints;
    double step;
    size_t ref;                /* the device alone the outputs are verified against */
    /* Told of each round in order, once it ran and was verified (a round whose outputs
     * differ too). A code other than HT_OK stops the rounds and is returned. */
    int (*made)(void *user, const struct ht__round_made *m, struct ht_error *err);
    void *user;
};

/* Makes r's rounds on cx, each told to r->made: the sequence of a refinement or of a
 * sweep (a round is the change of plan, ht__coexec_run, ht__coexec_verify against
 * r->ref). Returns HT_DONE when a refinement converged (the last refinement left the plan
 * as it was: nothing run, nothing told), HT_OK when every round was made, else the first
 * error of a round (that round not told) or of r->made. HT_ENOMEM. */
int ht__coexec_rounds(struct ht_coexec *cx, const struct ht__rounds *r, struct ht_error *err);

/* Binds the caller's host array to buffer argument arg (an index into spec->args) for
 * the next ht__coexec_launch calls: read and readwrite buffers are read from data, write
 * and readwrite buffers are written into it (each element by its owner only). data must
 * hold exactly the buffer's bytes (its shape times its type's size) and stays the
 * caller's; it must live until it is unbound (bound again, or the co-execution freed).
 * Devices that work in place (HT_PATH_INPLACE) wrap data itself when it sits at their
 * base alignment (CL_DEVICE_MEM_BASE_ADDR_ALIGN; ht__coexec_alloc's memory is page-aligned),
 * or at malloc's 16 bytes where their driver wraps such an array as it is (a fill through
 * a buffer over one, seen in the array without a map, tells at setup), else work in place on a page-aligned shadow of it, their slices copied in and the
 * elements they own copied out by exec.stage_threads threads, only the directions the
 * argument's access needs. The others copy from and to it: directly at the pinned rate when data comes from
 * ht__coexec_alloc, else as opts.exec.foreign_up and foreign_down say (exec.h: staged
 * through pinned chunks by default). Nothing outside data, and nothing outside the
 * elements a device owns, is written. Binding the pointer already bound does nothing.
 * Errors, with nothing
 * changed: HT_EINVAL when arg is not a buffer argument (err->field "args[arg]"), when
 * bytes differ from the buffer's (the message gives both), or when data is NULL; a
 * readwrite buffer with a halo along the split dimension (its slices would read what
 * another device writes) is HT_ESPEC; HT_ECL, HT_ENOMEM. */
int ht__coexec_bind(struct ht_coexec *cx, size_t arg, void *data, size_t bytes,
                    struct ht_error *err);

/* Host memory for the caller's arrays, as the co-execution's data path wants it: pinned in
 * the context of its first device that is copied to (a GPU's DMA reads and writes it at
 * the bus's speed), page-aligned in any case (a CPU device uses it in place). Owned by cx:
 * freed by ht__coexec_free_host or with cx (ht__decision_destroy of the decision that holds
 * it). NULL with err set (HT_ECL, HT_ENOMEM). */
void *ht__coexec_alloc(struct ht_coexec *cx, size_t bytes, struct ht_error *err);

/* Frees memory of ht__coexec_alloc (unbinding it first where it is bound); NULL and memory
 * cx did not give are ignored. */
void ht__coexec_free_host(struct ht_coexec *cx, void *data);

/* One co-execution on the bound arrays (every buffer argument that is not temp must be
 * bound: HT_EINVAL naming the first that is not, before anything is sent): no warm-up,
 * no poisoning, no repeats; outputs land in the bound arrays. On a node's share
 * (ht__coexec_share) one run of the share instead, as it was taken (its moves around it;
 * seen is not read): the errors of its run, the moves made all the same. res may be NULL;
 * otherwise it is the caller's last launch (zeroed before the first), destroyed first
 * when something runs, then filled as by ht__coexec_run with one run (the runtime and an
 * MPI node keep it in their decision's last, which ht__decision_destroy frees). seen not
 * NULL (the runtime, whose decision was made for one kind of memory): *seen is the kind
 * of memory the caller last saw bound to cx; when the arrays bound now are of another
 * kind (ht__coexec_memory_bound), nothing runs, res is left alone, *seen is set to that
 * kind and HT_DONE is returned: the caller decides again, or launches again.
 * Errors: HT_EINVAL, HT_ELAUNCH (err names the device), HT_ECL, HT_ENOMEM. */
int ht__coexec_launch(struct ht_coexec *cx, struct ht_coexec_result *res,
                      enum ht_coexec_memory *seen, struct ht_error *err);

/* --- the split-or-alone decision (decide.c) --- */

enum ht__decide_mode {
    HT__DECIDE_AUTO = 0, /* split when predicted to pay and measured faster, else the
                            fastest device alone */
    HT__DECIDE_SPLIT,    /* split over every device whatever the prediction (--force) */
    HT__DECIDE_ALONE     /* the fastest device by its tuned time, alone (no measurement) */
};

/* --- the rule: split or alone, for one co-execution (src/coexec/decide.c) ---
 *
 * The one place where the split-or-alone rule lives is ht__decide_split (coexec-internal.h),
 * which ht__decide asks for the runtime, each node of a split over MPI, and `hetune split`
 * and `hetune run` (src/workflow/split.c; they measure the devices alone themselves:
 * ht__decide_in.alone); each acts on its verdict its own way (the runtime and MPI's nodes
 * take the fastest device's co-execution alone; `hetune split` stores the split it
 * measured, then the fastest device's run alone). */

/* What ht__decide_split found. */
struct ht__verdict {
    struct ht_coexec_estimate est; /* ht__coexec_estimate's, when has_est (partly filled
                                      when it failed) */
    int has_est;
    size_t fastest;             /* the fastest device alone by measured wall time (the
                                   estimate's when has_est) */
    int measured;               /* 1: the split ran once on the whole problem: res */
    int bus_plan;               /* 1: it ran the bus plan (ht__coexec_plan_bus) */
    double paper_s[2];          /* then the paper plan's theoretical and adjusted times
                                   (Algorithm 1 from the tuned times) it replaced; -1 */
    double keep_s;              /* the longest the measured split may take and be kept:
                                   est.keep_s, the fastest alone without an estimate */
    int keep;                   /* 1: split (forced, one device, or measured within
                                   keep_s); 0: the fastest device alone (predicted so, or
                                   measured slower) */
    struct ht_coexec_result res;/* the split's run when measured; the caller's whatever is
                                   returned (in a decision: ht__decision_destroy frees it,
                                   a caller that takes it zeroes it) */
};

/* The rule's last step, its one comparison: a split measured at split_s against the
 * fastest device alone. ht__decide_split judges its one run with it, and `hetune split
 * --refine` (ht__workflow_refine_alone, src/workflow/workflow.c) the best of its rounds;
 * what they put in differs, each field says how and why. */
struct ht__measured {
    int forced;       /* keep the split whatever it measured: --force; ht__decide_split
                         also with one device (nothing to compare) */
    double split_s;   /* the split's measured time: ht__decide_split's one run's wall time;
                         refine's best round by its target (--refine-by kernel compares
                         kernel times, as asked, wall by default) */
    double keep_s;    /* the longest it may take and be kept: ht__decide_split's verdict's
                         keep_s (the fastest alone, divided by 1 + margin when the split was
                         predicted faster only within the margin); refine's, the fastest
                         alone by its target, no margin (its rounds are measurements of plans
                         fitted to measured runs, not the estimate's prediction, and it judged
                         so before the rule was shared: kept, as nothing a user sees may
                         change); INFINITY when no device alone has a time */
    size_t fastest;   /* the device that runs alone when the split took longer */
    size_t only;      /* SIZE_MAX, or the one device the split gave all the work to: it
                         then runs alone, the co-execution adding only its overheads.
                         Refine's rounds can do that (their fitted models may leave a device
                         nothing); ht__decide_split passes SIZE_MAX: its split is the plan
                         the estimate judged */
};


/* What the runtime's decisions are made from besides its devices: read once from the
 * results database when it opens (ht__decide with in->read), then handed from each
 * decision to the next (in->program->prev); `hetune split`, `run` and MPI's rank 0 read
 * the same way and take the parts they use. Owned by the decision that holds it
 * (ht__decision_destroy). */
struct ht__basis {
    struct ht_bandwidth *links;       /* n: each device's stored link (ht__store_rates) */
    const struct ht_bandwidth **link; /* n: &links[i], or NULL where none is stored */
    struct ht_host_memory host;       /* the host memory's stored rates, when has_host */
    int has_host;
    struct ht_split_written *written; /* spec->nargs, or NULL: what ht__written_infer found
                                         for the written buffers without "index" */
    unsigned probed, stored;          /* its buffers probed now, and found stored */
    int unsplittable;                 /* 1 (read->may_alone): a written buffer no slab
                                         explains; every decision keeps the fastest device
                                         alone (read->on_note was told the probe's words) */
};

/* What ht__decide reads with in->read, for in->devs[0..n) of in->spec. Borrowed. */
struct ht__read {
    struct ht_store *store;
    int64_t problem_id;
    enum ht_data_path path;           /* the links stored on the path it resolves to for
                                         each device */
    int infer;                        /* 1 (the runtime: the program may split, two
                                         devices or more, not alone as asked): the written
                                         buffers without "index" are inferred, stored or
                                         else probed on the device of in->devs that works
                                         in place with the shortest tuned time and stored
                                         (ht__written_infer: each device's device_id,
                                         config, config_text and tuned_s set; along dim,
                                         the probe with exec, on_note told what was found,
                                         devices_are naming the devices, NULL: "the
                                         split's devices") */
    int may_alone;                    /* 1 (the runtime's mode AUTO): a written buffer no
                                         slab explains makes the basis unsplittable, not an
                                         error */
    unsigned dim;
    const struct ht_exec_opts *exec;
    ht_workflow_note_fn on_note;
    void *user;
    const char *devices_are;
};

/* The runtime's decisions (in->program): the co-execution's options are made here, the
 * defaults but these, and the links, host memory rates and written buffers are prev's
 * basis. Borrowed for the call. */
struct ht__program {
    struct ht__decision *prev;        /* the decision before (the first: in->read's): its
                                         basis is taken over when this one succeeds, and
                                         with in->from (prev->cx's arrays) its co-execution
                                         is freed then (prev->cx NULL) */
    unsigned dim;                     /* ht_coexec_opts's dim, sched.residue, cpu_units,
                                         exec */
    enum ht_split_residue residue;
    unsigned cpu_units;
    const struct ht_exec_opts *exec;
    enum ht_coexec_memory memory;     /* the kind of memory it is for: the stored links
                                         model the co-execution's own (and a split
                                         unmeasured, mode SPLIT, on any); on a program's,
                                         what its transfers took alone is the model */
    unsigned measure_repeats;         /* each device's timed runs alone; 0: 3 (the best
                                         half and one kept) */
    size_t only;                      /* < n: that device alone, unmeasured (the runtime's
                                         fallback after watching a split); else SIZE_MAX */
    int again;                        /* 1 (only SIZE_MAX): the split over every device
                                         again, unmeasured (the runtime's return to its
                                         split after the fallback's device alone ran
                                         slower): made as the decision that split made it
                                         (in->mode's links) and planned by the runs alone
                                         it measured (in->plan_alone), so the same split */
};

/* What the decision is made from. Everything is borrowed for the call. */
struct ht__decide_in {
    const struct ht_spec *spec;
    struct ht_workflow_device *devs;       /* n: dev, config and tuned_s set; each one's
                                              alone is filled when it is measured */
    size_t n;
    const struct ht_bandwidth *const *bw;  /* n links (ht__store_rates), an entry NULL where
                                              none is known; NULL: none at all */
    const struct ht_coexec_opts *copts;    /* the co-execution's options (margin included) */
    const struct ht_coexec_opts *alone_opts; /* the runs of each device alone */
    enum ht__decide_mode mode;
    int measure_forced;                    /* HT__DECIDE_SPLIT: still measure each device
                                              alone, plan the bus and measure the split;
                                              0: split unmeasured, by the bus plan from the
                                              tuned times and the links in bw where some
                                              are known (not with paper_plan), else by the
                                              tuned times */
    int paper_plan;                        /* 1: a split runs the paper's plan (Eq. 4-9
                                              from the tuned times), not the bus plan */
    const struct ht_host_memory *host;     /* the host memory's rates (ht_store_get_host_memory):
                                              a floor under the predicted split; NULL: none */
    /* The measurements (each device alone, the split) hold every device's lock
     * (ht_device_locks_take); a wait stops when *stop is raised (HT_EINTR), on_wait is
     * told (with wait_user) once per lock found held. All may be NULL. */
    volatile sig_atomic_t *stop;
    ht_device_lock_wait_fn on_wait;
    void *wait_user;
    struct ht_load *load;                  /* what others did meanwhile is added here;
                                              NULL: not kept */
    int run_chosen;                        /* 1: what was decided runs once on the whole
                                              problem after the locks are given back, when
                                              the decision measured no run of it (res,
                                              has_res): a node's speed over MPI */
    /* Not NULL: a new decision for the program whose arrays from->cx holds (the runtime
     * after a bind that changes the kind of memory): they are handed over to the
     * co-execution decided (below, ht__decide). */
    const struct ht__handover *from;
    /* Not NULL (`hetune split` and `run`): each device's run alone, n of them, measured
     * by the caller, who holds the devices' locks. Nothing is measured alone then: the
     * co-execution over every device is made with copts and the links and host memory
     * rates store holds (one it refuses is left out; bw and host are not read), the rule
     * judges it from alone (with mode HT__DECIDE_SPLIT forced; an estimate that fails
     * leaves the split to its measurement), and cx stays that co-execution whatever the
     * verdict (verdict). */
    const struct ht_coexec_alone *alone;
    struct ht_store *store;                /* with alone */
    /* Not NULL (`hetune split --refine`, its best round): only the rule's last
     * comparison, of a split measured already; nothing else is read, made or run, and
     * out->split (1: keep the split) and out->fastest (else the device that runs alone)
     * say what it found. */
    const struct ht__measured *measured;
    /* Not NULL (the runtime when it opens; `hetune split` and `run`, and MPI's rank 0, for
     * the written buffers' inference and each device's link): only the basis of decisions
     * is read into out->basis (the caller may take its parts, zeroing them); nothing is
     * decided, made or run. */
    const struct ht__read *read;
    /* Not NULL (the runtime's decisions): copts, alone_opts, bw and host are made from it
     * and its prev's basis (not read), and mode is HT__DECIDE_ALONE when that basis is
     * unsplittable. */
    const struct ht__program *program;
    /* Not NULL (`hetune split` and `run`, which judge several co-executions by the same
     * runs alone, the devices' locks held): only each device's run alone, with alone_opts
     * (ht__coexec_measure_alone: in->devs[i].alone filled), into out->alone_cx, alone_res
     * and alone, out->fastest the fastest by wall time; runs->on_step is told "devices
     * alone" after each. */
    const struct ht__runs *runs;
    /* 1, with HT__DECIDE_SPLIT unmeasured (the runtime's return to its split,
     * ht__program.again): when every device of devs has a run alone measured by an
     * earlier decision (alone.wall_s > 0), the split runs the bus plan from those runs, as
     * ht__decide_split planned the split it kept, not the plan from the tuned times. */
    int plan_alone;
    /* 1, with from (the runtime's measured decision for a program whose every buffer is
     * bound, none read and written): each device alone and the split are measured on
     * from's arrays, bound to them (copts and alone_opts with bind_only), not on host data
     * of their own. */
    int measure_bound;
};

/* What ht__decide tells while it measures the runs alone of in->runs. Borrowed. */
struct ht__runs {
    void (*on_step)(const char *step, void *user); /* NULL: nobody */
    void *user;
};

/* The program's arrays a new decision takes over (ht__decide_in.from). Borrowed. */
struct ht__handover {
    struct ht_coexec *cx;       /* the co-execution decided before: freed when the new one
                                   took them over, else left as it was */
    void *const *bound;         /* nargs: the array bound to each argument, or NULL */
    const size_t *bytes;        /* nargs: their bytes */
    size_t nargs;
    struct ht_error *pin_err;   /* an array pinned again in vain (moved unpinned, slower,
                                   never wrong) says so here; the decision stands */
};

/* What was decided. ht__decision_destroy frees what it owns. */
struct ht__decision {
    struct ht_coexec *cx;       /* owned: what runs, every device or one alone */
    size_t *idx;                /* owned: cx's device k is devs[idx[k]] */
    size_t ncx;
    size_t fastest;             /* the fastest device alone (measured, else by tuned time) */
    int split;                  /* 1: cx splits over every device */
    int has_res;                /* 1: res is a measured run of cx on the whole problem */
    struct ht_coexec_result res;/* the split measured once, or the fastest device's run
                                   alone, when has_res */
    double predicted_split_s;   /* ht__coexec_estimate's wall time of the split; -1 unknown */
    double predicted_alone_s;   /* the fastest device's measured wall time alone; -1 */
    double measured_split_s;    /* the split's measured wall time; -1 when not measured */
    enum ht_coexec_memory bound;/* the kind of memory bound to cx once decided (with
                                   in->from, the arrays handed over: a device alone may see
                                   them as another kind than the decision was made for) */
    char text[256];             /* the decision in words */
    int on_bound;               /* 1: its runs were measured on the program's arrays
                                   (in->measure_bound) */
    int has_plan;               /* 1: cx has a plan, plan */
    struct ht_split_plan plan;  /* owned: a copy of cx's plan as decided */
    struct ht__verdict verdict; /* with in->alone: what the rule found (its res is the
                                   split's run, owned by the decision) */
    double *model_s;            /* owned, with in->alone: 2 * ncx, each device of cx's
                                   time model for the whole problem ([2k]) and overhead
                                   ([2k + 1]) as decided: as given, until a refinement
                                   (ht__coexec_rounds) fits them to its runs */
    struct ht__basis basis;     /* owned, with in->read and in->program: what the next
                                   decision of the runtime is made from */
    struct ht_coexec_result last; /* owned: the last run of cx its holder made, zeroed by
                                   ht__decide (the runtime's last launch, ht__coexec_launch;
                                   an MPI node's last share, ht__coexec_launch too), taken
                                   over from in->program->prev with the basis */
    /* Owned, with in->runs: nalone (in->n) of each, the devices measured alone so far */
    size_t nalone;
    struct ht_coexec **alone_cx;        /* each device's co-execution alone; NULL where
                                           none was made */
    struct ht_coexec_result *alone_res; /* its run (a caller that takes one zeroes it) */
    struct ht_coexec_alone *alone;      /* its times */
};

/* The one decision between splitting over in->devs and the fastest of them alone, for
 * the runtime, `hetune split` and `run`, and each node of a split over MPI. With one
 * device, or HT__DECIDE_ALONE, the fastest by tuned time runs alone, unmeasured. Otherwise
 * every device runs the whole problem alone (in->alone_opts), ht__coexec_estimate
 * predicts the split with the bus plan (the links in->bw where known) and decides with
 * in->copts->margin; a split predicted to pay (or forced), or predicted faster within the
 * margin (estimate.check), runs the bus plan (unless in->paper_plan, or the scheduler is
 * not static) once: measured above estimate.keep_s, and not forced, the fastest device
 * runs alone (the rule is ht__decide_split's). With in->run_chosen, what was decided then
 * runs once if it has no run yet. With in->alone the devices' runs alone are the caller's
 * (in->alone says how). With in->from, the arrays of from->cx move to what was decided
 * (ht__coexec_adopt_host), every bound one is bound to it and pinned again, and from->cx is freed;
 * when that fails, from->cx holds and is bound to the arrays as before, and the error is returned.
 * With in->program the options, links and host memory rates are made from it and its prev's basis,
 * which *out takes over when it succeeds. In->read, in->runs and in->measured decide nothing: each
 * does only what its field says. *out is filled (zeroed first); on error it may hold part of it:
 * ht__decision_destroy it either way. Errors as ht__coexec_create,
 * ht__coexec_estimate, ht__coexec_plan_bus, ht__coexec_run, ht__coexec_adopt_host and
 * ht__coexec_bind; HT_EINVAL when n is 0; HT_ENOMEM. */
int ht__decide(const struct ht__decide_in *in, struct ht__decision *out, struct ht_error *err);

/* Frees what d owns; d may be zeroed or partly filled. */
void ht__decision_destroy(struct ht__decision *d);

#endif
