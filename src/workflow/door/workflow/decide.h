/* The split-or-alone decision over one machine's devices (src/workflow/decide.c): what
 * ht_workflow_split and ht_runtime_open decide, and what each node of ht_mpi_split
 * (src/mpi/split.c) decides for its own devices. Internal to the library: workflow's door
 * for src/runtime and src/mpi, a friend header (docs/architecture.md,
 * scripts/walls-allowed.txt). */
#ifndef HETUNE_WORKFLOW_DECIDE_H
#define HETUNE_WORKFLOW_DECIDE_H

#include "hetune/store.h"
#include "hetune/workflow.h"

enum ht__decide_mode {
    HT__DECIDE_AUTO = 0, /* split when predicted to pay and measured faster, else the
                            fastest device alone */
    HT__DECIDE_SPLIT,    /* split over every device whatever the prediction (--force) */
    HT__DECIDE_ALONE     /* the fastest device by its tuned time, alone (no measurement) */
};

/* --- the rule: split or alone, for one co-execution (src/workflow/decide.c) ---
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
 * (ht__workflow_alone, in->alone_opts), ht__coexec_estimate predicts the split with the
 * bus plan (the links in->bw where known) and decides with in->copts->margin; a split
 * predicted to pay (or forced), or predicted faster within the margin (estimate.check),
 * runs the bus plan (unless in->paper_plan, or the scheduler is not static) once: measured
 * above estimate.keep_s, and not forced, the fastest device runs alone (the rule is
 * ht__decide_split's). *out is filled (zeroed first); on error it may hold part of it:
 * ht__decision_destroy it either way. Errors as ht__workflow_alone, ht__coexec_create,
 * ht__coexec_estimate, ht__coexec_plan_bus and ht__coexec_run; HT_EINVAL when n is 0;
 * HT_ENOMEM. */
int ht__decide(const struct ht__decide_in *in, struct ht__decision *out, struct ht_error *err);

/* Frees what d owns; d may be zeroed or partly filled. */
void ht__decision_destroy(struct ht__decision *d);

/* The link of dev that `hetune devices --bandwidth` stored in store, into *bw: 1 when the
 * store holds one measured on the path that asked resolves to for dev, else 0. */
int ht__store_link(struct ht_store *store, const struct ht_device_info *dev,
                   enum ht_data_path asked, struct ht_bandwidth *bw);

/* --- the written buffers without "index" (src/workflow/written.c, issue 26 item 4) ---
 *
 * What a split of such a spec rests on besides the decision: which elements each slice
 * writes, inferred once by a probe (split.h, ht_split_probe) and kept in the results
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
