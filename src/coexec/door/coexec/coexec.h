/* coexec's door (src/coexec/): the co-execution handle and the one split-or-alone
 * decision, for the modules that drive co-executions: the workflow (`hetune split` and
 * `run`, src/workflow/), the runtime (ht_runtime_open, bind, launch) and MPI's nodes
 * (src/mpi/split.c, each node's share of a split). What it holds:
 *   - the handle: make, plan, run, verify, bind the caller's arrays and launch, the
 *     links and host memory the estimate uses, refinement (coexec.c, chunks.c, bind.c,
 *     outputs.c, estimate.c);
 *   - whether a CPU device can be partitioned (src/workflow/split.c sets its devices up as
 *     the co-execution does), the caller's arrays pinned again (src/runtime/runtime.c,
 *     after a new decision), and a node's share of a split over MPI (share.c);
 *   - the decision (decide.c) and the written buffers without "index" (written.c).
 * Only what other modules call is here; the rest of the handle (the estimate and the bus
 * plan, which the decision makes) is in coexec-internal.h.
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

/* (coexec.c) 1 when dev is a CPU device that clCreateSubDevices can partition (by counts
 * or equally), with *max_sub its CL_DEVICE_PARTITION_MAX_SUB_DEVICES; else 0. */
int ht__device_partitionable(const struct ht_device_info *dev, unsigned *max_sub,
                             int *by_counts, int *equally);

/* (bind.c) Makes again every buffer kept over a caller's array (foreign paths register
 * and pin) on every device of cx, for the runtime (src/runtime/runtime.c) once an older
 * co-execution over the same arrays is freed: NVIDIA's driver unpins host memory when any
 * buffer made over it is released, whatever other buffers over it, in any context, stay
 * (bench/gpu/rereg.c on the H200 machine: 55 GB/s before, 7.9 up and 13.5 down after), so
 * the new co-execution's copies ran at the pageable rate. A buffer that cannot be made
 * again leaves its array moved directly (slower, never wrong); that device's error is
 * returned after the others are done. */
int ht__coexec_repin(struct ht_coexec *cx, struct ht_error *err);

/* --- (share.c) a node's share of a split over MPI, for src/mpi/split.c --- */

/* Makes cx co-execute only the units [offset, offset + size) of its split dimension: the
 * scheduler is made again (with the devices' current models) over size units and every
 * chunk runs offset further on. The host arrays stay whole; only the range's elements
 * are computed and read back. HT_EINVAL when the range is empty or leaves [0, global),
 * the scheduler's errors (a size no device's work-groups fit); cx unchanged on error. */
int ht__coexec_set_range(struct ht_coexec *cx, uint64_t offset, uint64_t size,
                         struct ht_error *err);

/* Sets the untimed and timed runs of the next ht__coexec_run and the runs it keeps. */
void ht__coexec_set_runs(struct ht_coexec *cx, unsigned warmup, unsigned repeats,
                         unsigned keep_best);

/* One timed run of cx into res, not poisoned first (ht__coexec_run poisons every buffer of
 * every device before each run, which costs as much as a short run: 25-30 ms for 2^23
 * floats on an H200 node). For the runs of a split over MPI, whose wall time includes
 * the call: outputs nobody wrote are caught there by poisoning the host arrays once
 * before the first run (ht__coexec_poison_host). */
int ht__coexec_run_once(struct ht_coexec *cx, struct ht_coexec_result *res,
                        struct ht_error *err);

/* The host array of buffer argument arg: its initial data (output 0) or its merged
 * output (output 1), borrowed from cx; NULL when it has none. */
void *ht__coexec_host(struct ht_coexec *cx, size_t arg, int output);

/* Fills the host inputs and/or outputs with the poison pattern of their type, so that an
 * element that nothing sent or wrote later cannot pass verification. */
void ht__coexec_poison_host(struct ht_coexec *cx, int inputs, int outputs);

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

/* The slab of buffer argument i that the units [ulo, uhi) need: with output 0, what any
 * device of cx reads for a chunk inside them (its work-items covering them, halo
 * included: the same ranges a device is sent); with output 1, the elements they own. An
 * empty range needs nothing (lo = hi = 0). HT_EINVAL when i is not a buffer or the range
 * leaves [0, global). */
int ht__coexec_slab(const struct ht_coexec *cx, size_t i, int output, uint64_t ulo,
                    uint64_t uhi, struct ht__slab *s);

/* --- the co-execution handle: what the workflow (hetune split and run), the decision,
 * the runtime and MPI's nodes drive; not public: programs co-execute through runtime.h
 * --- */

/* Fills opts with the defaults: dim 0, static, the spec's timing, one warm-up run. */
void ht__coexec_opts_init(struct ht_coexec_opts *opts);

/* Frees what a result owns and leaves it reusable. NULL is fine. */
void ht__coexec_result_destroy(struct ht_coexec_result *res);

/* Prepares the co-execution of spec on n devices: checks each configuration
 * (ht_space_check with opts->exec.eq3), opens a context and profiling queue per device,
 * builds the programs, creates the buffers and kernels, makes the host data and the
 * scheduler. spec and every devs[i].dev are borrowed and must outlive *out; the configs
 * are copied. *out is owned by the caller (ht__coexec_free). Errors, err filled: HT_EINVAL
 * (n = 0, dim out of range, an unknown scheduler, static without times), HT_ESPEC (the spec
 * cannot be split along dim: a written buffer without a usable index, buffer shapes that
 * differ between the devices' configurations), HT_ECONSTRAINT (a configuration breaks a rule; err->field
 * names it, err->text begins with the device), HT_EBUILD, HT_ECL, HT_ENOMEM. */
int ht__coexec_create(const struct ht_spec *spec, const struct ht_coexec_device *devs, size_t n,
                      const struct ht_coexec_opts *opts, struct ht_coexec **out,
                      struct ht_error *err);

/* The same, but a written buffer without "index" passes: a probe (ht_split_probe) is to
 * infer which elements each slice writes. The other refusals are ht__coexec_check_spec's. */
int ht__coexec_check_spec_probing(const struct ht_spec *spec, unsigned dim,
                                  const char *scheduler, size_t n, struct ht_error *err);

/* Frees a co-execution; NULL is allowed. */
void ht__coexec_free(struct ht_coexec *cx);

/* The paper's plan of the co-execution, when known. Borrowed, valid until the next
 * ht__coexec_set_factors or ht__coexec_free. */
const struct ht_split_plan *ht__coexec_plan(const struct ht_coexec *cx);

/* Replaces the scheduler with static at the given split factors (one per device, see
 * ht_split_plan_from_factors): the split-point sweeps of the paper's Figures 6 and 7.
 * Errors as ht__split_sched_create; the old scheduler stays on error. */
int ht__coexec_set_factors(struct ht_coexec *cx, const double *factors, struct ht_error *err);

/* Runs the co-execution (warm-up, then the timed runs) and fills res (which need not be
 * initialised; free it with ht__coexec_result_destroy). The merged outputs of the last run
 * stay in cx for ht__coexec_verify and ht__coexec_dump. Errors: HT_ELAUNCH (a launch
 * failed; err names the device), HT_ECL, HT_ENOMEM. */
int ht__coexec_run(struct ht_coexec *cx, struct ht_coexec_result *res, struct ht_error *err);

/* Verifies the merged outputs of the last ht__coexec_run against a single-device run: an
 * exec session (exec.h) on device ref (an index into the co-execution's devices) runs the
 * whole NDRange once at that device's configuration (verified itself against the spec's
 * reference, unless the spec has none), and every written buffer is compared with it
 * element by element with the spec's rtol/atol (integers exactly). Fills res's
 * verification fields. Returns HT_OK, HT_EVERIFY (err says how many elements differ and
 * the first), HT_EINVAL (no run yet, ref out of range), or the session's error when the
 * single-device run fails (err then begins with "single-device run"). With
 * opts.exec.no_verify it does nothing (verified -1). The single-device outputs are kept:
 * later calls with the same ref (a sweep's points) only compare. */
int ht__coexec_verify(struct ht_coexec *cx, size_t ref, struct ht_coexec_result *res,
                      struct ht_error *err);

/* Writes each written buffer of the last run as raw little-endian DIR/<name>.bin (as
 * ht_session_dump does), creating DIR. HT_EINVAL when nothing ran yet, HT_EIO. */
int ht__coexec_dump(const struct ht_coexec *cx, const char *dir, struct ht_error *err);

/* --- (outputs.c) the steps the users make together around a run --- */

/* Verifies the outputs of cx's last run against device ref alone (ht__coexec_verify, into
 * res and verr) and, when dump is not NULL and the verification did not fail otherwise
 * than by a difference (HT_EVERIFY), writes them to dump (ht__coexec_dump; its error goes
 * to derr, which is left alone when it succeeds). Returns ht__coexec_verify's code; a
 * failed dump is only derr's, the caller says whether it stops on it (`hetune split`
 * reports it, a split over MPI fails). */
int ht__coexec_check(struct ht_coexec *cx, size_t ref, struct ht_coexec_result *res,
                     const char *dump, struct ht_error *verr, struct ht_error *derr);

/* One measured round: what changes the plan first (at most one of factors and from), the
 * run, the verification. */
struct ht__round {
    const double *factors;     /* not NULL: static at these split factors first
                                  (ht__coexec_set_factors: a sweep's point) */
    const struct ht_coexec_result *from; /* not NULL: the plan refined first from this run
                                  (ht__coexec_refine with alone and target) */
    const struct ht_coexec_alone *alone;
    enum ht_refine_target target;
    int reset_models;          /* 1: every device's time model back to its tuned time
                                  before anything (ht__coexec_reset_models: a sweep's first
                                  point after a refinement) */
    size_t ref;                /* the device the outputs are verified against */
};

/* Makes round r on cx: the change of plan it asks, ht__coexec_run into res (which need not
 * be initialised; the caller destroys it with ht__coexec_result_destroy whatever is
 * returned), then ht__coexec_verify against r->ref. Returns HT_DONE when the refinement
 * converged (nothing run, res untouched), HT_EVERIFY when the outputs differ (res filled,
 * err says how), else the first error of the steps. */
int ht__coexec_round(struct ht_coexec *cx, const struct ht__round *r,
                     struct ht_coexec_result *res, struct ht_error *err);

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
 * freed by ht__coexec_free_host or ht__coexec_free. NULL with err set (HT_ECL, HT_ENOMEM). */
void *ht__coexec_alloc(struct ht_coexec *cx, size_t bytes, struct ht_error *err);

/* Moves every array of ht__coexec_alloc from `from` to `to`: they stay where they are,
 * valid, and are freed with `to` (ht__coexec_free_host(to, ...) or ht__coexec_free(to)), so
 * that `from` can be freed while the caller keeps using them (the runtime replacing its
 * co-execution after a new decision). They keep the kind they were made as (pinned in a
 * device context of `from`: another context may move them at the pageable rate). Arrays
 * bound in `from` are not bound in `to`. HT_ENOMEM, nothing moved. */
int ht__coexec_adopt_host(struct ht_coexec *to, struct ht_coexec *from, struct ht_error *err);

/* The kind of memory cx's buffers are bound to now (an unbound one counts as the
 * co-execution's own, of opts.memory): HT_COEXEC_MEM_OWN when every array is ht__coexec_alloc's
 * (or its own of that kind), else HT_COEXEC_MEM_UNALIGNED when some array is below the
 * alignment at which some device that works in place wraps it as it is (its base
 * alignment, or malloc's 16 bytes: ht__coexec_bind), else HT_COEXEC_MEM_ALIGNED. */
enum ht_coexec_memory ht__coexec_memory_bound(const struct ht_coexec *cx);

/* Frees memory of ht__coexec_alloc (unbinding it first where it is bound); NULL and memory
 * cx did not give are ignored. */
void ht__coexec_free_host(struct ht_coexec *cx, void *data);

/* One co-execution on the bound arrays (every buffer argument that is not temp must be
 * bound: HT_EINVAL naming the first that is not, before anything is sent): no warm-up,
 * no poisoning, no repeats; outputs land in the bound arrays. res may be NULL; otherwise
 * it is filled as by ht__coexec_run with one run (free it with ht__coexec_result_destroy).
 * Errors: HT_EINVAL, HT_ELAUNCH (err names the device), HT_ECL, HT_ENOMEM. */
int ht__coexec_launch(struct ht_coexec *cx, struct ht_coexec_result *res, struct ht_error *err);

/* Refines the static plan from what a run measured. The paper's plan assumes that a
 * device's time grows in proportion to its work; a CPU's launch costs, a GPU that a small
 * slice does not fill, and the host threads that all devices share make it otherwise.
 * For each device with a slice strictly between nothing and everything, its affine model
 * is fitted (ht_split_fit_model) to its time on its slice in last (a result of
 * ht__coexec_run on cx, its share items/global; the time is the target's, coexec.h's
 * enum ht_refine_target) and,
 * when an earlier refinement saw it on a slice of another share, that slice's time (the
 * secant: both measured while the devices shared the host), else its time alone on the
 * whole problem (alone[i]; when not positive, the time the co-execution was given), its
 * slope at least a quarter of that time alone (so that no device looks as if more work
 * cost it nearly nothing, which makes the next plan swing all the work to it). A device
 * without a slice keeps its overhead (at most its new time)
 * with its time alone; a device that had all the work takes its measured time. Then the
 * scheduler is replaced by static planned from these models (ht_split_plan_make, with
 * the co-execution's residue rule). Repeat run and refine until it converges. Returns
 * HT_OK with the new plan in place; HT_DONE when the new plan launches the same slices as
 * the current one (nothing is replaced); HT_EINVAL when cx has no plan or last is not a
 * run of it; HT_ENOMEM. The models are kept in cx: ht__coexec_model reads them. */
int ht__coexec_refine(struct ht_coexec *cx, const struct ht_coexec_alone *alone,
                      const struct ht_coexec_result *last, enum ht_refine_target target,
                      struct ht_error *err);

/* Device i's current time model: its time for the whole problem and its overhead (both
 * as given to ht__coexec_create, until ht__coexec_refine changes them). HT_EINVAL when i is
 * out of range. */
int ht__coexec_model(const struct ht_coexec *cx, size_t i, double *time_s, double *overhead_s);

/* Gives every device back the time model given to ht__coexec_create and forgets the slices
 * ht__coexec_refine measured; the scheduler stays. Plans made after it (ht__coexec_set_factors:
 * a sweep after a refinement) take their theoretical times from the tuned times again. */
void ht__coexec_reset_models(struct ht_coexec *cx);

/* Tells the co-execution the host memory's rates (ht_host_memory_measure, the results
 * database's ht_store_get_host_memory; copied); NULL or a Bps of 0 forgets them.
 * ht__coexec_estimate then says how long the bytes the split reads and writes through host
 * memory take at those rates (host_s). HT_EINVAL when a rate is negative or not finite. */
int ht__coexec_set_host_memory(struct ht_coexec *cx, const struct ht_host_memory *hm,
                               struct ht_error *err);

/* Tells the co-execution the measured link of device i (`hetune devices --bandwidth`, the
 * results database): the bus models convert bytes to seconds at its path's rates
 * (h2d_Bps, d2h_Bps). NULL forgets it. HT_EINVAL when i is out of range. */
int ht__coexec_set_bandwidth(struct ht_coexec *cx, size_t i, const struct ht_bandwidth *bw,
                             struct ht_error *err);

/* (decide.c) Runs d alone at its configuration with the co-execution's wall clock
 * (base's options, the static scheduler) and fills d->alone. On success *cx
 * (ht__coexec_free) and *res (ht__coexec_result_destroy) are the caller's; on failure
 * *cx is NULL and *res is still the caller's to destroy. Errors as ht__coexec_create and
 * ht__coexec_run. */
int ht__coexec_measure_alone(const struct ht_spec *spec, struct ht_workflow_device *d,
                             const struct ht_coexec_opts *base, struct ht_coexec **cx,
                             struct ht_coexec_result *res, struct ht_error *err);

/* --- the split-or-alone decision (decide.c) --- */

enum ht__decide_mode {
    HT__DECIDE_AUTO = 0, /* split when predicted to pay and measured faster, else the
                            fastest device alone */
    HT__DECIDE_SPLIT,    /* split over every device whatever the prediction (--force) */
    HT__DECIDE_ALONE     /* the fastest device by its tuned time, alone (no measurement) */
};

/* --- the rule: split or alone, for one co-execution (src/coexec/decide.c) ---
 *
 * The one place where the split-or-alone rule lives. ht__decide (the runtime, each node of
 * a split over MPI) and ht_workflow_split / ht_workflow_run (`hetune split`, `hetune run`,
 * src/workflow/split.c) each measure the devices alone and make the co-execution their
 * own way, then ask ht__decide_split, and act on its verdict their own way (ht__decide
 * hands over the fastest device's co-execution alone; `hetune split` stores the split it
 * measured, then the fastest device's run alone). */
struct ht__rule {
    int forced;       /* split whatever the prediction and the measurement (--force) */
    int paper_plan;   /* 1: the split runs the paper's plan (Eq. 4-9 from the tuned
                         times), not the bus plan */
    int unpredicted;  /* when the estimate fails: 1, the split runs anyway and is judged
                         against the fastest device alone (hetune split, hetune run); 0,
                         the estimate's error is returned (the runtime, each MPI node) */
};

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
    struct ht_coexec_result res;/* the split's run when measured; the caller's to destroy
                                   (ht__coexec_result_destroy) whatever is returned */
};

/* Decides between the co-execution cx (made over its n >= 1 devices, their links and host
 * memory set) and the fastest of them alone, from alone[0..n) (each device's run
 * alone with the co-execution's clock), as rule says. With two devices or more
 * ht__coexec_estimate predicts the split (the bus plan) and decides with cx's margin. A
 * split predicted to pay (est.worth_it), predicted faster within the margin (est.check),
 * forced, or with one device, runs once (ht__coexec_run), after ht__coexec_plan_bus
 * replaced cx's plan when its scheduler is static (not with rule->paper_plan); it is kept
 * when forced, with one device, or measured at most keep_s. *v is filled (zeroed first).
 * Errors: ht__coexec_estimate's (unless rule->unpredicted), ht__coexec_plan_bus's and
 * ht__coexec_run's. */
int ht__decide_split(struct ht_coexec *cx, const struct ht_coexec_alone *alone, size_t n,
                     const struct ht__rule *rule, struct ht__verdict *v,
                     struct ht_error *err);

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

/* SIZE_MAX to keep the split (forced, or measured at most keep_s and not all on one
 * device), else the device that runs alone: m->fastest when the split took longer than
 * keep_s (or split_s is not a number), else m->only. */
size_t ht__decide_measured(const struct ht__measured *m);

/* What the decision is made from. Everything is borrowed for the call. */
struct ht__decide_in {
    const struct ht_spec *spec;
    struct ht_workflow_device *devs;       /* n: dev, config and tuned_s set; each one's
                                              alone is filled when it is measured */
    size_t n;
    const struct ht_bandwidth *const *bw;  /* n links (ht__store_link), an entry NULL where
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
    const struct ht_host_memory *host;     /* the host memory's rates (ht__stored_host_memory):
                                              a floor under the predicted split; NULL: none */
    /* The measurements (each device alone, the split) hold every device's lock
     * (ht_device_locks_take); a wait stops when *stop is raised (HT_EINTR), on_wait is
     * told (with wait_user) once per lock found held. All may be NULL. */
    volatile sig_atomic_t *stop;
    ht_device_lock_wait_fn on_wait;
    void *wait_user;
    struct ht_load *load;                  /* what others did meanwhile is added here;
                                              NULL: not kept */
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
    char text[256];             /* the decision in words */
};

/* This machine's host memory rates stored in store (ht_store_get_host_memory) into *hm;
 * 1 when some are, else 0 (*hm zeroed). */
int ht__stored_host_memory(struct ht_store *store, struct ht_host_memory *hm);
/* The same for the machine named hostname (NULL: this one): MPI's rank 0 for each node. */
int ht__stored_host_memory_of(struct ht_store *store, const char *hostname,
                              struct ht_host_memory *hm);

/* Decides between splitting over in->devs and the fastest of them alone, as `hetune
 * split` and the runtime do. With one device, or HT__DECIDE_ALONE, the fastest by tuned
 * time runs alone, unmeasured. Otherwise every device runs the whole problem alone
 * (ht__coexec_measure_alone, in->alone_opts), ht__coexec_estimate predicts the split with the
 * bus plan (the links in->bw where known) and decides with in->copts->margin; a split
 * predicted to pay (or forced), or predicted faster within the margin (estimate.check),
 * runs the bus plan (unless in->paper_plan, or the scheduler is not static) once: measured
 * above estimate.keep_s, and not forced, the fastest device runs alone (the rule is
 * ht__decide_split's). *out is filled (zeroed first); on error it may hold part of it:
 * ht__decision_destroy it either way. Errors as ht__coexec_measure_alone, ht__coexec_create,
 * ht__coexec_estimate, ht__coexec_plan_bus and ht__coexec_run; HT_EINVAL when n is 0;
 * HT_ENOMEM. */
int ht__decide(const struct ht__decide_in *in, struct ht__decision *out, struct ht_error *err);

/* Frees what d owns; d may be zeroed or partly filled. */
void ht__decision_destroy(struct ht__decision *d);

/* The link of dev that `hetune devices --bandwidth` stored in store, into *bw: 1 when the
 * store holds one measured on the path that asked resolves to for dev, else 0. */
int ht__store_link(struct ht_store *store, const struct ht_device_info *dev,
                   enum ht_data_path asked, struct ht_bandwidth *bw);

/* --- the written buffers without "index" (src/coexec/written.c, issue 26 item 4) ---
 *
 * What a split of such a spec rests on besides the decision: which elements each slice
 * writes, inferred once by a probe (coexec.h, ht_split_probe) and kept in the results
 * database with the problem (the spec's hash and sizes), so that `hetune split`, the
 * runtime and each split over MPI find the same inference and probe only once. */
struct ht__written_in {
    const struct ht_spec *spec;            /* borrowed for the call */
    struct ht_store *store;                /* where inferences are read and stored */
    int64_t problem_id;                    /* the problem's row in store */
    const struct ht_workflow_device *devs; /* n, dev, device_id, config, config_text and
                                              tuned_s set: the probe runs on the one that
                                              works in place with the shortest tuned_s */
    size_t n;
    unsigned dim;                          /* the split dimension */
    const struct ht_exec_opts *exec;       /* the probe's binary cache, Eq. 3; NULL:
                                              defaults */
    ht_workflow_note_fn on_note;           /* told, per buffer, what was found (probed now
                                              or stored); NULL: nobody */
    void *user;
    const char *devices_are;               /* the devs in words for the refusal when none
                                              works in place ("rank 0's devices"); NULL:
                                              "the split's devices" */
};

/* What ht__written_infer found. */
struct ht__written {
    struct ht_split_written *written;      /* spec->nargs entries, owned (free()), for
                                              ht_coexec_opts.written; NULL when the spec
                                              has no written buffer without "index" */
    unsigned probed;                       /* buffers a probe inferred now (stored) */
    unsigned stored;                       /* buffers whose inference store held */
};

/* Fills *out for the written buffers without "index" of in->spec: each from in->store
 * when it holds an inference for the buffer's layout at this problem, else by one probe
 * (ht_split_probe) on the device of in->devs that works in place with the shortest tuned
 * time, stored for next time. Errors, *out zeroed: ht_split_probe's (HT_ESPEC saying what
 * the probe saw: "written buffer 'out' has no index, and the probe's slice ..."), HT_ESPEC
 * when no device of in->devs works in place, HT_EDB, HT_ENOMEM. */
int ht__written_infer(const struct ht__written_in *in, struct ht__written *out,
                      struct ht_error *err);

#endif
