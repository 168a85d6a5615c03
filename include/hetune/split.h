/* hetune — splitting one kernel's work between several devices (the paper's §2.2): the
 * split planner (pure arithmetic, below), the bus model and the schedulers' policies
 * (the section "schedulers" further down). All of it is pure: no OpenCL, nothing run.
 * Running a split, the co-execution, is coexec.h's (src/coexec/).
 *
 * The split planner is pure arithmetic, without OpenCL. It works along one dimension of
 * the NDRange: the caller picks the dimension and passes its global size G and, for each
 * device, that device's own work-group size along it (its tuned local size) and the time
 * the device takes to run the whole problem alone. The plan gives each device a slice of
 * [0, G) made of whole work-groups of its own size, as DESIGN.md states it:
 *
 *   S_i = (1/t_i) / Σ_j (1/t_j)                                    (Eq. 4)
 *   γ_i = G·S_i / wg_i,  γ̂_i = ⌊γ_i⌋                                (Eq. 6-7)
 *   R   = G − Σ_i wg_i·γ̂_i                                         (Eq. 8)
 *   the device k that covers R with the least work wg_k·⌈R/wg_k⌉ takes ⌈R/wg_k⌉ more
 *   groups                                                          (Eq. 9)
 *   theoretical time = max_i(S_i·t_i)                               (Algorithm 1)
 *
 * Rules the paper leaves open, decided here:
 *
 * - Rounding. A γ_i that lies within a few units of floating-point rounding below an
 *   integer counts as that integer (times of 2 s and 1 s over 3 work-items of size 1 split
 *   1 + 2, whatever the last bit of 1/3 is), and the whole groups never add up to more
 *   than G (should rounding make them, the device rounded up the most gives one back).
 * - The residue device (Eq. 9), by work (the default; HT_SPLIT_RESIDUE_TIME chooses the
 *   device that finishes first instead, and HT_SPLIT_RESIDUE_GROUPS hands the residue out
 *   one group at a time, see enum ht_split_residue). Ties in least work go to
 *   the device that finishes first:
 *   the smallest t_k·size_k/G, size_k being k's whole slice once it holds the residue;
 *   remaining ties go to the lowest index. Only a device whose whole slice still fits in
 *   [0, G) (size_k <= G, so that it can end at G) is a candidate, and only one with a
 *   positive factor. When every wg divides G (as Eq. 2 makes every tuned configuration
 *   do) every device fits, and this is exactly Eq. 9.
 * - No device fits (G is smaller than, or not a multiple of, the work-group sizes that
 *   could take the residue; e.g. G = 100 with work-groups of 64 on both devices): the
 *   residue device takes all the work, as ⌈G/wg_k⌉ groups from offset 0, k being the
 *   device with the least work wg_k·⌈G/wg_k⌉ (same ties); the other devices get nothing,
 *   and its slice runs `overhang` work-items past G. The executor must then pad its
 *   buffers, or refuse the plan.
 *
 * Layout. Slices lie in device order with the residue device last, ending exactly at G
 * (its offset is G − its size). When the work-group sizes are not multiples of each other,
 * its slice starts inside its neighbour's: those work-items are computed twice (the
 * overlap). Every output element must be read back from one owner only: each slice owns
 * [own_offset, own_offset + own_size); the other devices own their whole slices, the
 * residue device owns only what follows them, up to G. The owned ranges partition [0, G).
 * By HT_SPLIT_RESIDUE_GROUPS other devices may hold extra groups too: they lie, whole, with
 * the device's own slice; only the residue device's (the last group given) can overlap.
 * A device with no whole group and no residue gets no slice: its size, groups, offset,
 * own_offset and own_size are all 0, and it is not launched.
 *
 * Launching a slice: global size `size` (a multiple of `wg`) with global work offset
 * `offset` along the split dimension, local size `wg`; keep the other dimensions whole.
 *
 * A NULL pointer a function cannot do without (the devices, the bus model, an output) is
 * HT_EINVAL with err->text "FUNCTION: ARGUMENT is NULL", never a crash; err may be NULL
 * everywhere. The void functions do nothing with a NULL, and those that answer a number or
 * a pointer answer 0 or NULL for a NULL; where NULL is taken instead, the function's
 * comment says what it means.
 */
#ifndef HETUNE_SPLIT_H
#define HETUNE_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One device's input to the planner. */
struct ht_split_device_in {
    uint64_t wg;        /* work-group size along the split dimension, in work-items; > 0 */
    double time_s;      /* seconds the device takes for the whole problem alone; must be
                           positive and finite (leave a device that cannot run out) */
    double overhead_s;  /* the part of time_s that any slice costs, however small (launch,
                           waking threads, an unfilled GPU): the affine model below.
                           0 <= overhead_s < time_s; 0 (the paper's linear model) when the
                           struct is zero-initialized */
};

/* The residue rule (Eq. 9's choice of device k). */
enum ht_split_residue {
    HT_SPLIT_RESIDUE_WORK = 0, /* the paper: the least work wg_k·⌈R/wg_k⌉, ties to the
                                  earliest finish */
    HT_SPLIT_RESIDUE_TIME,     /* the device whose whole slice, residue included, finishes
                                  first by the time model; ties to the least work. A CPU
                                  400 times slower than a GPU with smaller work-groups then
                                  no longer takes the residue rows. */
    HT_SPLIT_RESIDUE_GROUPS    /* the residue one work-group at a time, each to the device
                                  that finishes first with one more group of its own size
                                  (ties to the smaller group, then the lowest index); the
                                  device given the last group is the residue device. Two
                                  equal GPUs with 15 groups each and 2 left over get 16 and
                                  16, where the time rule gives one of them 17. Its model
                                  time is never above the time rule's. */
};

/* The rule's name: "work", "time" or "groups" (NULL for no rule). */
const char *ht_split_residue_name(enum ht_split_residue rule);

/* Sets *rule from its name. HT_EINVAL for any other string, or a NULL name or rule. */
int ht_split_residue_parse(const char *name, enum ht_split_residue *rule);

/* Planner options; zero-initialized: Eq. 4 from the times (or the affine model when
 * overheads are given), the paper's residue rule. */
struct ht_split_plan_opts {
    const double *factors;     /* the factors instead of the times (see
                                  ht_split_plan_make); NULL: from the times */
    enum ht_split_residue residue;
};

/* One device's part of a plan. Sizes and offsets count work-items along the split
 * dimension. */
struct ht_split_slice {
    uint64_t wg;               /* copied from the input */
    double time_s;             /* copied from the input */
    double overhead_s;         /* copied from the input */
    double optimal_factor;     /* S_i (Eq. 4, or the factor given); positive from times,
                                  unless a device is some 1e308 times slower than the
                                  fastest and its share rounds to 0 */
    double gamma;              /* γ_i = G·S_i / wg_i (Eq. 6), real */
    uint64_t base_groups;      /* γ̂_i (Eq. 7), after the rounding rule above; 0 for every
                                  device when no device fits the residue */
    uint64_t extra_groups;     /* ⌈R/wg_k⌉ for the residue device (Eq. 9a), else 0; by
                                  HT_SPLIT_RESIDUE_GROUPS, the groups of the residue this
                                  device took (any device) */
    uint64_t groups;           /* work-groups launched: base_groups + extra_groups */
    uint64_t offset, size;     /* the launched slice [offset, offset + size);
                                  size = groups·wg */
    uint64_t own_offset, own_size; /* the range read back from this device */
    double adjusted_factor;    /* own_size / G: the adjusted factor of Table 3 (the
                                  factors of all devices sum to 1; overlap not counted) */
    double slice_factor;       /* size / G: the share the device computes, overlap and
                                  overhang included */
    double model_s;            /* the affine model's time of the slice as launched,
                                  overhead_s + (time_s − overhead_s)·slice_factor; 0 with
                                  no slice (a device's busy time, from a bus model) */
};

/* A plan. Initialized by ht_split_plan_make, released with ht_split_plan_destroy. */
struct ht_split_plan {
    uint64_t global;           /* G */
    size_t ndevices;
    struct ht_split_slice *slices; /* ndevices slices, in the order of the input; owned by
                                      the plan */
    size_t residue_device;     /* k, or SIZE_MAX when R = 0 (no device takes extra groups) */
    uint64_t residue;          /* R (Eq. 8); G when no device fits the residue */
    uint64_t overlap;          /* Σ size_i − G: the work-items computed for nothing (twice,
                                  or past G); always less than the residue device's wg */
    uint64_t overhang;         /* work-items of the residue device's slice past G; 0 unless
                                  no device fits the residue */
    double theoretical_time_s; /* Algorithm 1: max_i(S_i·t_i) with the optimal factors */
    double adjusted_time_s;    /* max_i(t_i·size_i/G): the same with the slices as launched
                                  (each device's whole slice, overlap included) */
    double model_time_s;       /* the affine model's time of the slices as launched:
                                  max over devices with a slice of a_i + (t_i − a_i)·size_i/G,
                                  a_i the overheads; adjusted_time_s when they are all 0 */
};

/* Plans the split of global work-items between n devices by Eq. 4-9 (see above) and fills
 * *out, which the caller frees with ht_split_plan_destroy. devs is borrowed for the call;
 * opts (NULL: all defaults, Eq. 4 from the times and the paper's residue rule) chooses
 * factors or times, and the residue rule. Errors (HT_EINVAL, err filled, err->field naming
 * the input such as "devices[1].wg"): n = 0, global = 0 or above 2^53 (beyond which
 * doubles cannot hold G exactly), a wg of 0, a time that is not positive and finite,
 * devs (with n > 0) or out NULL; HT_ENOMEM. On error *out is left empty
 * (ht_split_plan_destroy on it is harmless).
 *
 * The factors. With opts->factors the split factors are given instead of Eq. 4 (the
 * split-point sweeps of the paper's Figures 6 and 7): factors[i] >= 0 and finite,
 * normalized to sum 1, zero allowed (such a device gets no slice and is never the residue
 * device). The times still give the theoretical times and break ties. Errors as above,
 * plus a negative or non-finite factor (field "factors[i]"), or factors that sum to 0
 * ("factors").
 *
 * The affine model. When some device has overhead_s > 0 (and no factors are given), the
 * optimal factors are not Eq. 4's but those that make every device that gets work finish
 * at the same time T under t_i(S) = a_i + (t_i − a_i)·S (a_i = overhead_s):
 *
 *   S_i = (T − a_i)/(t_i − a_i) for the devices with a_i < T, 0 for the others,
 *   T   = (1 + Σ a_i/(t_i − a_i)) / Σ 1/(t_i − a_i) over the devices that get work,
 *
 * the devices being taken in order of overhead while the next one's overhead is below T
 * (a device whose fixed cost alone outlasts the others' whole share gets nothing). With
 * every a_i = 0 this is Eq. 4 exactly. Errors as above, plus an overhead that is negative,
 * not finite or not below the time (field "devices[i].overhead"). */
int ht_split_plan_make(uint64_t global, const struct ht_split_device_in *devs, size_t n,
                       const struct ht_split_plan_opts *opts, struct ht_split_plan *out,
                       struct ht_error *err);

/* Fits one device's affine time model to two measurements: t1 seconds for the share f1
 * of the work and t2 for the share f2 (0 < f <= 1, f1 != f2; share 1 is the whole
 * problem). The line through both points gives the slope b = (t2 − t1)/(f2 − f1), kept at
 * least min_slope (seconds per whole problem; at least max(t1, t2)/1000 in any case: a
 * smaller share that took as long, or longer, still costs something per work-item, and
 * two noisy points must not make more work look free), and the overhead a = t2 − b·f2:
 * the model goes through the second point, the newer one. Should a be negative (the
 * smaller share ran faster than in proportion), a = 0 and b = t2/f2. *time_s = a + b (the
 * whole problem by the model), *overhead_s = a. HT_EINVAL when a share is not in (0, 1],
 * the shares are equal, a time is not positive and finite, or time_s or overhead_s is
 * NULL; the outputs are then untouched. */
int ht_split_fit_model(double f1, double t1, double f2, double t2, double min_slope,
                       double *time_s, double *overhead_s);

/* Frees what a plan owns and empties it. NULL and empty plans are fine. */
void ht_split_plan_destroy(struct ht_split_plan *plan);

/* --- the bus: busy time with transfers, the transfer-aware bound, split or alone ---
 *
 * Algorithm 1 balances kernel times only. A device with its own memory must also move its
 * slice's data over its link, and a split that ignores it is as slow as its slowest
 * device's transfers. The model below predicts a device's busy time for the share S of the
 * work (0 < S <= 1) from seconds measured (or computed from bytes over the measured
 * bandwidth) for the whole problem:
 *
 *   K  kernel_s    its kernels for the whole problem alone (> 0), of which
 *   k0 overhead_s  the part any slice costs however small (a launch, waking threads);
 *   X  xfer_s      its transfers that scale with its share: the sliced inputs it receives
 *                  and the outputs it owns, for the whole problem;
 *   F  fixed_s     its transfers that do not: the inputs every slice needs whole, sent once;
 *
 *   no overlap (one shot):   busy(S) = F + k0 + S·(K − k0 + X)
 *   overlap (pipelined):     busy(S) = F + k0 + fill + S·max(K − k0, X),
 *                            fill = min(K − k0, X) / P
 *   in place (a CPU, host-unified memory): X = F = 0, either formula.
 *
 * A device that pipelines its slice in pieces (uploads, kernels and downloads of successive
 * pieces overlapping) is busy for the longer of its two streams, plus the fill: the first
 * piece's transfer before any kernel can start, and the last piece's kernel after the
 * transfers end, together one piece of the shorter stream. With P pieces for the whole
 * problem (a fixed piece size, so a share S moves S·P pieces) one piece of the shorter
 * stream costs min(K − k0, X)/P whatever the share. P = 0 leaves the fill out (pieces so
 * small it vanishes). For a share below one piece (S·P < 1) the model overstates the
 * fill, by at most min(K − k0, X)/P.
 *
 * Both are affine in S, so the model is the planner's affine model (time_s = busy(1),
 * overhead_s = busy(S) − S·slope, see ht_split_plan_make): Eq. 6-9's whole work-groups and
 * the residue rules apply unchanged to a plan made from it. */
struct ht_split_bus {
    double kernel_s;    /* K: kernels for the whole problem alone, > 0 and finite */
    double overhead_s;  /* k0: the kernels' fixed part, 0 <= k0 < K (0: proportional) */
    double xfer_s;      /* X: share-proportional transfers for the whole problem, >= 0 */
    double fixed_s;     /* F: transfers sent whole once per slice, >= 0 */
    int overlap;        /* nonzero: transfers overlap kernels (pipelined pieces) */
    uint64_t pieces;    /* P: pieces the whole problem moves in when overlapping; 0: no
                           fill term. Ignored without overlap. */
};

/* Turns one device's bus model into the planner's affine model: sets out->time_s to
 * busy(1) and out->overhead_s to the fixed part of busy(S) (see above); out->wg is left as
 * it is. Errors (HT_EINVAL, err filled when given, err->field naming the field:
 * "kernel_s", "overhead_s", "xfer_s", "fixed_s"): kernel_s not positive and finite,
 * overhead_s not in [0, kernel_s), xfer_s or fixed_s negative or not finite, a NULL
 * pointer. *out is untouched on error. */
int ht_split_bus_model(const struct ht_split_bus *b, struct ht_split_device_in *out,
                       struct ht_error *err);

/* The transfer-aware bound: the shortest time any split of the work between these devices
 * can take with their affine models (from ht_split_bus_model, or any), work divided
 * continuously (no work-groups). It is the water-filling optimum of ht_split_plan_make:
 * every device that gets work finishes at the same T, the shares sum to 1, and a device
 * whose fixed cost alone reaches T gets nothing. *time_s = max over devices with work of
 * a_i + (t_i − a_i)·S_i (with every overhead 0, this is Eq. 4's factors and Algorithm 1's
 * max_i(S_i·t_i) exactly); it is never above the fastest device alone (min_i t_i), which
 * is taken, all its share to it (the lowest index among equals), should rounding make the
 * split come out slower. shares (n of them; may be NULL) receives the S_i. The devices' wg
 * is ignored. Errors (HT_EINVAL, err filled, field "devices[i].time" or
 * "devices[i].overhead" as ht_split_plan_make; "devices" when n = 0 or devs is NULL;
 * "time" when time_s is NULL); outputs untouched on error. */
int ht_split_bound(const struct ht_split_device_in *devs, size_t n, double *time_s,
                   double *shares, struct ht_error *err);

/* The margin hetune uses by default: splitting must be predicted at least 10% faster than
 * the fastest device alone. The models leave out what devices share when they run together
 * (host memory bandwidth, the host's cores driving them); on CPU+H100 vecadd the measured
 * best split was 1.27× the contention-free bound. */
#define HT_SPLIT_MARGIN_DEFAULT 0.10

/* The split-or-alone decision. */
struct ht_split_decision {
    int split;          /* 1: split; 0: run the fastest device alone */
    size_t fastest;     /* the fastest device alone (the lowest index among equals) */
    double alone_s;     /* its time alone */
    double split_s;     /* the predicted split time, as given */
    double speedup;     /* alone_s / split_s */
};

/* Decides whether to split. The rule: split when the predicted split time, split_s (the
 * transfer-aware bound, or a plan's model_time_s for the slices as launched), beats the
 * fastest device alone by the margin: alone_s / split_s >= 1 + margin, i.e. split_s ·
 * (1 + margin) <= min_i alone_s[i]; otherwise run the fastest device alone. With n = 1
 * there is nothing to split: alone. margin >= 0 and finite (HT_SPLIT_MARGIN_DEFAULT
 * unless measured otherwise); margin 0 splits whenever the split is predicted no slower.
 * alone_s[i] is each device's time for the whole problem alone on the same footing as
 * split_s (busy times from the bus model with busy times, kernel times with kernel times).
 * Errors (HT_EINVAL, err filled, field "split", "alone[i]", "margin" or "devices"):
 * split_s or an alone time not positive and finite, margin negative or not finite, n = 0
 * or a NULL pointer; *out is untouched on error. */
int ht_split_decide(double split_s, const double *alone_s, size_t n, double margin,
                    struct ht_split_decision *out, struct ht_error *err);

/* --- schedulers: how a co-execution (coexec.h) hands out the work --- */

/* One piece of work handed to one device, in work-items along the split dimension: the
 * device launches [offset, offset + size) (whole work-groups of its own size, with a global
 * work offset) and only [own_offset, own_offset + own_size) of its outputs is read back.
 * The owned range lies inside the launched one; the rest was (or is being) computed by
 * another device too (the overlap of the planner's residue device, or of a scheduler's
 * last chunk). */
struct ht_split_chunk {
    uint64_t offset, size;
    uint64_t own_offset, own_size;
};

/* What a scheduler knows of one device. */
struct ht_split_sched_device {
    uint64_t wg;             /* work-group size along the split dimension; > 0 */
    double time_s;           /* the device's time for the whole problem alone (its tuned
                                best); <= 0 when unknown. The static scheduler needs it
                                (unless given factors); guided uses it as the first guess
                                of the device's speed. */
    int is_gpu;              /* dynamic: a GPU takes a tenth of the work at a time */
    uint32_t compute_units;  /* dynamic and guided: a CPU's smallest chunk */
    double overhead_s;       /* static: the affine model's overhead (see
                                ht_split_plan_make); 0: the paper's linear model */
};

/* A scheduler's options; all zero (memset, or = {0}) is every default. */
struct ht_split_sched_opts {
    const double *factors;   /* static: split by these factors instead of Eq. 4 (one per
                                device, see ht_split_plan_make); NULL: Eq. 4 */
    double chunk_fraction;   /* dynamic: the share of the work every chunk takes, for
                                every device (0: the defaults described below) */
    enum ht_split_residue residue; /* the plan's residue rule (default: Eq. 9's) */
};

struct ht_split_sched; /* opaque: a scheduler instance, for one split's devices
                          (ht_split_sched_create, below) */

/* What a scheduler does with the work, for the code that acts on it: a scheduler's name is
 * for people (what they type and read), its kind for the library's decisions. */
enum ht_split_sched_kind {
    HT_SPLIT_SCHED_ON_DEMAND = 0, /* hands out chunks as devices ask for work (dynamic,
                                     guided): how many, and which device computes what,
                                     is known only as the run goes */
    HT_SPLIT_SCHED_PLANNED        /* plans every chunk up front (static): one chunk per
                                     device, its slice of the split planner's plan (Eq.
                                     4-9), so no work-item is computed twice on a device
                                     alone and a device waits for nothing but its one
                                     slice; the plan comes from the devices' times or
                                     factors, so a co-execution may replace it (the bus
                                     plan, a refinement's round, a sweep's factors) */
};

/* A scheduler hands out chunks to devices that ask for work, each keeping its own
 * work-group size. One file per scheduler in src/split/:
 *
 *   static   the paper's plan (Eq. 4-9): one chunk per device, the plan's slice, read back
 *            from its owned range only.
 *   dynamic  a shared atomic work counter (Dopia §7): a device takes the next chunk of
 *            whole work-groups of its own size whenever it is idle. A GPU takes a tenth of
 *            the work-groups at a time (Dopia's empirical choice); a CPU takes smaller
 *            chunks, a fiftieth of the work-groups but at least two work-groups per compute
 *            unit so that every core gets some. opts.chunk_fraction overrides both.
 *   guided   like OpenMP's guided schedule, chunks shrink as the work runs out: a device
 *            takes half of its speed share of what remains, its speed being first its
 *            time alone (1/time_s; equal for all when unknown) and, once it has finished a
 *            chunk, its measured work-items per second; at least one work-group (a CPU: one
 *            per compute unit) at a time. A device stops taking work once its next chunk
 *            would take longer than the others need for all that remains (it could only
 *            finish last): a CPU hundreds of times slower than a GPU then leaves the work
 *            to the GPU. The device with the fastest time alone never stops, so the work
 *            always gets done.
 *
 * The tail (dynamic and guided). A chunk is whole work-groups of the device that takes it;
 * when what remains is smaller than that (not a multiple of its work-group size), the
 * chunk is moved back to end exactly at the global size, as the planner does with its
 * residue device (Eq. 9): the device recomputes up to wg - 1 work-items that another
 * device owns and owns only the remainder. So the owned ranges of all chunks always
 * partition [0, global), whatever the work-group sizes. This needs every wg to divide the
 * global size, which Eq. 2 makes every valid configuration do.
 *
 * A scheduler's ops: its name, what it is, and the functions of its policy, which the
 * instance calls below (ht_split_sched_create and the rest) call on the instance; a
 * program reads the first three and calls those. */
struct ht_split_sched_ops {
    const char *name;         /* "dynamic" */
    const char *description;  /* one line, lowercase */
    /* Sets up the scheduler's own state (s->priv). HT_ENOMEM or HT_EINVAL with err. */
    int (*init)(struct ht_split_sched *s, struct ht_error *err);
    /* Makes the scheduler hand out the whole work again (before each run). */
    void (*reset)(struct ht_split_sched *s);
    /* The next chunk for device i, or HT_DONE when there is no more work for it. Called
     * from several threads at once (one per device). */
    int (*next)(struct ht_split_sched *s, size_t device, struct ht_split_chunk *out);
    /* Device i finished chunk c in seconds (kernel and the chunk's transfers). Called from
     * the device's thread; may be NULL. */
    void (*report)(struct ht_split_sched *s, size_t device, const struct ht_split_chunk *c,
                   double seconds);
    /* Frees s->priv. */
    void (*destroy)(struct ht_split_sched *s);
    /* What it does with the work (last, so that the fields above keep their places). */
    enum ht_split_sched_kind kind;
};

/* The schedulers, "static" (the one HT_SPLIT_SCHED_PLANNED) first, NULL-terminated.
 * Static storage. */
extern const struct ht_split_sched_ops *const ht_split_schedulers[];

/* The scheduler called name, or NULL (also for a NULL name). */
const struct ht_split_sched_ops *ht_split_scheduler_find(const char *name);

/* --- a scheduler instance: one run's chunks for a set of devices ---
 *
 * Made for one split's devices, asked for chunks by each device (from its own thread: next
 * and report are thread-safe), told how long each took, reset before each run. A program
 * that drives its own devices uses it as hetune's co-execution (coexec.h) does:
 *
 *   ht_split_sched_create("guided", G, devs, n, NULL, &s, &err);
 *   // device i, in its thread, until HT_DONE:
 *   while (ht_split_sched_next(s, i, &c) == HT_OK) {
 *       // launch [c.offset, c.offset + c.size), read back [c.own_offset, + c.own_size)
 *       ht_split_sched_report(s, i, &c, seconds);
 *   }
 *   ht_split_sched_free(s);
 *
 * Pure: nothing here runs a kernel. */

/* Creates the scheduler called name (NULL: the one that plans every chunk up front,
 * HT_SPLIT_SCHED_PLANNED, "static") for global work-items along the split dimension and
 * n devices (devs and opts are copied; opts NULL or all zero: every default), ready for
 * its first run. When every time_s is positive (or opts->factors is given) the paper's
 * plan is computed too, so that every scheduler gives Algorithm 1's theoretical time
 * (ht_split_sched_plan). *out is owned by the caller (ht_split_sched_free); NULL on
 * error. Errors (HT_EINVAL, err filled): out NULL, an unknown name (err lists the
 * schedulers, field "scheduler"), n = 0 or devs NULL, global 0 or above 2^53, a wg of 0
 * (field "devices[i].wg"); static without positive times or factors, or with a plan
 * that runs past global; dynamic and guided when a wg does not divide global; the
 * planner's errors (ht_split_plan_make); HT_ENOMEM. */
int ht_split_sched_create(const char *name, uint64_t global,
                          const struct ht_split_sched_device *devs, size_t n,
                          const struct ht_split_sched_opts *opts, struct ht_split_sched **out,
                          struct ht_error *err);

/* Hands out the whole work again: call before each run but the first, when no device is
 * asking. A NULL s does nothing. */
void ht_split_sched_reset(struct ht_split_sched *s);

/* The next chunk for device `device` (< n): HT_OK with *out filled, or HT_DONE when no
 * work is left for it in this run (*out zeroed; always HT_DONE for device >= n).
 * Thread-safe: each device asks from its own thread. HT_EINVAL when s or out is NULL
 * (*out, if given, zeroed). */
int ht_split_sched_next(struct ht_split_sched *s, size_t device, struct ht_split_chunk *out);

/* Tells the scheduler that device `device` finished chunk c (as next gave it) in seconds
 * (its kernel and its transfers): guided sizes the device's next chunks by it, the others
 * ignore it. Thread-safe; a device >= n is ignored, and so is a NULL s or c. */
void ht_split_sched_report(struct ht_split_sched *s, size_t device,
                           const struct ht_split_chunk *c, double seconds);

/* The paper's plan for these devices (Eq. 4-9, or opts->factors), or NULL when their
 * times were not all known and no factors were given, or s is NULL. Borrowed; lives as
 * long as s. For static it is the plan it hands out; with factors and unknown times its
 * theoretical and adjusted times are -1. */
const struct ht_split_plan *ht_split_sched_plan(const struct ht_split_sched *s);

/* Frees a scheduler; NULL is allowed. */
void ht_split_sched_free(struct ht_split_sched *s);

#ifdef __cplusplus
}
#endif
#endif
