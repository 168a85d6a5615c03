/* hetune — the results database (SQLite).
 *
 * One file (./hetune.db by default) keeps what tuning learns:
 *   devices      one row per device as the tuner sees it: platform, platform version, name,
 *                vendor, type, device version, driver version and the limits the pruning
 *                depends on (compute units, work-group and work-item limits, local memory).
 *                A new driver, or a device whose limits changed, is a new row.
 *   kernels      one row per kernel source: FNV-1a 64 of source, kernel name and build
 *                options (16 hex digits), with the spec's name and paths as last seen.
 *   problems     a kernel at given problem sizes ("M=7,N=1024", sorted by name) with its
 *                parameter names ("TS,WG", in spec order).
 *   evaluations  one configuration of a problem on a device: canonical text ("TS=16,WG=8",
 *                in parameter order), its values, status, reason, the statistic (mean of the
 *                best keep_best runs), the minimum, transfers, build time, verification...
 *                UNIQUE(problem, device, config): a re-run skips what is stored.
 *   runs         every timed run of an evaluation, (eval_id, i, seconds).
 *
 * Durability: the journal is WAL with synchronous=FULL, so a committed evaluation survives
 * a killed process and a power cut alike (the fsync per evaluation costs far less than the
 * evaluation). ht_store_put_eval writes an evaluation and all its runs in one
 * BEGIN IMMEDIATE ... COMMIT transaction: killing the process at any moment loses at most
 * the evaluation in flight, never leaves half of one. Several processes may share a file,
 * and may create it at the same moment; a writer waits up to 30 s for another's
 * transaction (a busy handler of this module's: ht_store_open_opts sets the limit, a
 * flag that stops the wait, and a notice once it lasts a second). One process measures
 * a device at a time: see the device leases below.
 *
 * The schema is versioned: PRAGMA application_id marks a hetune database, PRAGMA
 * user_version holds the schema version and table schema_version records each migration
 * applied. Opening an older database migrates it forward; later modules (split results,
 * sweeps, reports) add their tables by appending a migration to src/store/schema.c. The
 * owner's marks and the schema are read in one transaction, and created or migrated in one
 * BEGIN IMMEDIATE transaction, so no process ever sees half a schema.
 *
 * Opening a hetune database runs PRAGMA quick_check on it (the structure of every page):
 * a database with garbage in it is refused with HT_EDB naming the file rather than used.
 * It costs about 6 ms of CPU per MB: 0.3 s for a 50 MB database (120,000 evaluations, 1.2
 * million runs), a few ms for a typical one.
 *
 * Every SQLite failure returns HT_EDB with err->file the database's path and err->text
 * naming the operation and SQLite's message ("cannot store evaluation: database is
 * locked"). This module does not use OpenCL.
 *
 * A NULL pointer a function cannot do without (the store, the struct it writes or reads, an
 * output) is HT_EINVAL with err->text "FUNCTION: ARGUMENT is NULL", never a crash; err may be
 * NULL everywhere. Where NULL is taken instead, the function's comment says what it means.
 */
#ifndef HETUNE_STORE_H
#define HETUNE_STORE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"
#include "hetune/platform.h"
#include "hetune/space.h"
#include "hetune/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The schema version this build writes (PRAGMA user_version). A store open (ht_store_open,
 * ht_store_open_opts) is always at this version: an older database is migrated to it, or
 * refused where it may not be written, and a newer one is refused. */
#define HT_STORE_SCHEMA_VERSION 12

/* The default database file. */
#define HT_STORE_DEFAULT_PATH "hetune.db"

#define HT_STORE_MAX_PARAMS 64    /* values an evaluation keeps */
#define HT_STORE_MAX_RUNS 1000    /* runs an evaluation keeps (HT_MAX_REPEATS of exec.h) */
#define HT_STORE_CONFIG_MAX 1024  /* bytes of the canonical configuration text, NUL included */

/* Status texts of an evaluation. Only HT_STORE_OK evaluations that passed verification
 * are ever chosen as best. */
#define HT_STORE_OK "ok"                 /* built, ran and was timed */
#define HT_STORE_CUT "cut"               /* early termination: its first runs were too slow */
#define HT_STORE_BUILD "build"           /* the kernel did not build */
#define HT_STORE_LAUNCH "launch"         /* the NDRange did not launch */
#define HT_STORE_VERIFY "verify"         /* wrong answer */
#define HT_STORE_CONSTRAINT "constraint" /* breaks a platform rule or a constraint */
#define HT_STORE_CL "cl"                 /* another OpenCL call failed */
#define HT_STORE_CRASHED "crashed"       /* its worker process died: "crashed: SIGSEGV" */
#define HT_STORE_TIMEOUT "timeout"       /* outlasted its time limit: "timeout after 2.0 s" */
#define HT_STORE_ERROR "error"           /* anything else */

/* The status text for a code ht_session_eval returns: HT_OK "ok", HT_EBUILD "build",
 * HT_ELAUNCH "launch", HT_EVERIFY "verify", HT_ECONSTRAINT "constraint", HT_ECL "cl",
 * HT_ECUT "cut" (early termination), HT_ECRASH "crashed", HT_ETIMEOUT "timeout", anything
 * else "error". Static storage. */
const char *ht_store_status_name(int code);

struct ht_store; /* opaque: one SQLite connection */

/* An evaluation as stored. Plain data owned by the caller. Times are seconds; a time or an
 * error that was not measured is -1 (stored as NULL). */
struct ht_stored_eval {
    int64_t id;                 /* set by the store; ignored by ht_store_put_eval */
    int64_t problem_id, device_id;
    char config[HT_STORE_CONFIG_MAX]; /* canonical text, see ht_store_config_text */
    size_t nvalues;             /* the configuration's values, in parameter order */
    int64_t values[HT_STORE_MAX_PARAMS];
    char status[16];            /* one of the HT_STORE_... texts above */
    char reason[1024];          /* why it failed or was cut; "" when ok */
    double seconds;             /* the statistic: mean of the best keep_best kernel runs */
    double min_seconds;         /* the fastest run */
    double write_seconds;       /* host-to-device transfers of one run */
    double read_seconds;        /* device-to-host transfers of one run */
    double build_seconds;       /* getting the program: compile or binary-cache load */
    int cache_hit;              /* 1 when the binary came from the cache */
    int verified;               /* 1 passed, 0 failed, -1 not verified */
    double max_abs_err, max_rel_err; /* NaN is kept as NaN */
    uint64_t mismatches;        /* elements outside rtol/atol */
    unsigned ndims;             /* the NDRange it ran with (0 when it never got that far) */
    uint64_t global[3], local[3]; /* local all 0 when left to the runtime */
    char strategy[64];          /* the search strategy that chose it, e.g. "exhaustive" */
    uint64_t seed;              /* that strategy's seed (0 when it has none) */
    char created_at[32];        /* UTC, "2024-05-01T12:00:00.000Z"; put fills it when "" */
    char spec_hash[17];         /* the hash of the spec it was measured with (ht_spec.hash);
                                   "" unknown (stored NULL: before schema 8) */
    unsigned nruns;             /* every timed run, in the order they ran */
    double runs[HT_STORE_MAX_RUNS];
};

/* Empties ev: zeroes and sets every time and error to -1, verified to -1. NULL: nothing. */
void ht_stored_eval_init(struct ht_stored_eval *ev);

/* Opens the database at path, creating the file and its schema when missing and migrating
 * an older schema forward. *out is owned by the caller (ht_store_close). Returns HT_EDB when
 * the file cannot be opened, is not an SQLite database, is another program's database, was
 * written by a newer hetune (schema version above HT_STORE_SCHEMA_VERSION), or is damaged
 * (PRAGMA quick_check finds a fault: "the results database is damaged (quick_check: ...)");
 * the file is left untouched in those cases. Several processes may open (and create) the
 * same file at once. ":memory:" gives a private in-memory database; an empty path is
 * HT_EINVAL (SQLite would give a temporary one, deleted at close, and nothing kept), as is
 * a NULL path or out. */
int ht_store_open(const char *path, struct ht_store **out, struct ht_error *err);

/* How ht_store_open_opts opens a database. Fill with ht_store_opts_init. */
struct ht_store_opts {
    /* 1: the caller only reads. A missing file is HT_EDB (never created). Where this
     * process may write the file and its folder, it is opened as for writing (an older
     * schema is migrated); where it may not (another user's file, a read-only mount), it
     * is opened read-only (SQLITE_OPEN_READONLY), and where SQLite cannot create the WAL's
     * -shm beside it either (a folder that may not be written) immutable (nothing locked,
     * no WAL read), which on_note says. Read-only, a database of an older schema is
     * refused (HT_EDB: a command that writes migrates it). */
    int readonly;
    /* When not NULL, a wait for another process's lock on the database stops within
     * 0.05 s of *stop becoming non-zero (set by a signal handler): the operation that
     * waited fails with HT_EINTR ("interrupted while waiting for the database lock"). */
    volatile sig_atomic_t *stop;
    /* The longest wait for another process's lock, in seconds; <= 0 is the default,
     * HT_STORE_BUSY_TIMEOUT_S. A lock held longer fails the operation with HT_EDB naming
     * the file and the wait. */
    double busy_timeout_s;
    /* When not NULL, called once per wait that has lasted HT_STORE_WAIT_NOTICE_S: path
     * is the database's, waited_s the seconds so far (a notice for the user; must not use
     * the store). */
    void (*on_wait)(const char *path, double waited_s, void *user);
    /* When not NULL, called with a sentence about how the file was opened when it differs
     * from what was asked (the immutable fallback of readonly). */
    void (*on_note)(const char *path, const char *note, void *user);
    void *user;             /* passed to on_wait and on_note */
};

/* The default longest wait for another process's lock: 30 s. */
#define HT_STORE_BUSY_TIMEOUT_S 30.0
/* A wait for the lock longer than this is said (ht_store_opts.on_wait). */
#define HT_STORE_WAIT_NOTICE_S 1.0

/* Fills o with the defaults: read and write, no stop flag, the default wait, no notices.
 * NULL: nothing. */
void ht_store_opts_init(struct ht_store_opts *o);

/* ht_store_open with options (o NULL: the defaults; path or out NULL: HT_EINVAL). A
 * readonly open of a missing file is HT_EDB ("no such file"); an open for writing of a file
 * or folder this process may not write is HT_EDB naming the file and why, before anything
 * is changed. HT_EINTR when o->stop ended a wait for the lock. */
int ht_store_open_opts(const char *path, const struct ht_store_opts *o, struct ht_store **out,
                       struct ht_error *err);

/* Whether each committed evaluation is flushed to the disk before the commit returns
 * (durable 1, the default: PRAGMA synchronous = FULL) or only at the WAL's checkpoints
 * (0: synchronous = NORMAL; a power cut may lose the last commits, a killed process loses
 * nothing). A replay, whose results can be replayed again, turns it off for its run: it
 * writes hundreds of evaluations a second. Returns HT_EDB. HT_EINVAL (err set) when store is
 * NULL. */
int ht_store_set_durable(struct ht_store *store, int durable, struct ht_error *err);

/* Groups the evaluations stored next (ht_store_put_eval, ht_store_put_eval_step) n at a
 * time into one transaction (n > 1), each still all or nothing (a savepoint of its own in
 * it); n 0 or 1 commits what is pending and goes back to one transaction each, the
 * default. A replay, hundreds of evaluations a second, groups them: a commit each was a
 * tenth of its time. ht_store_close commits what is pending, as does a write that takes a
 * transaction of its own (a lease, a split); a process killed loses it (at most n - 1
 * evaluations), and holds the database's write lock while a group is open. Returns HT_EDB
 * (the commit failed). HT_EINVAL (err set) when store is NULL. */
int ht_store_batch(struct ht_store *store, unsigned n, struct ht_error *err);

/* Closes the database; NULL is allowed. */
void ht_store_close(struct ht_store *store);

/* The path the store was opened with. Borrowed; lives as long as the store. NULL for a NULL
 * store. */
const char *ht_store_path(const struct ht_store *store);

/* Get-or-create ids. Each sets *id to the row of the device, kernel or problem, inserting
 * it first when missing; safe when several processes do it at once. HT_EINVAL (err set)
 * when store, the device or spec, or id is NULL. */
int ht_store_device_id(struct ht_store *store, const struct ht_device_info *dev, int64_t *id,
                       struct ht_error *err);
/* Uses spec->source (source_len bytes), kernel_name and kernel_options for the identity and
 * keeps spec->name, spec->path and spec->kernel_path as last seen. */
int ht_store_kernel_id(struct ht_store *store, const struct ht_spec *spec, int64_t *id,
                       struct ht_error *err);
/* Uses spec->space's sizes (values after --size overrides) and parameter names. */
int ht_store_problem_id(struct ht_store *store, int64_t kernel_id, const struct ht_spec *spec,
                        int64_t *id, struct ht_error *err);

/* The kernel identity: FNV-1a 64 over source, a NUL, kernel_name, a NUL and options,
 * written as 16 lowercase hex digits plus NUL into hex. source NULL is empty (source_len
 * not read), kernel_name or options NULL is ""; hex NULL: nothing is written. */
void ht_store_kernel_hash(const char *source, size_t source_len, const char *kernel_name,
                          const char *options, char hex[17]);

/* The canonical text of a configuration: "NAME=VALUE" pairs in the order given, joined by
 * ',' ("TS=16,WG=8"; "" when n is 0). Writes at most size bytes including the NUL and
 * returns the length the whole text needs, like snprintf (buf NULL: size is taken as 0,
 * nothing written). HT_EINVAL (negative, buf untouched) when n > 0 and names or values is
 * NULL. */
int ht_store_config_text(const char *const *names, const int64_t *values, size_t n, char *buf,
                         size_t size);

/* Stores an evaluation and all its runs in one transaction. ev->problem_id and device_id
 * must exist; ev->config must not be empty; ev->status must be one of the HT_STORE_...
 * texts; ev->nvalues <= HT_STORE_MAX_PARAMS and ev->nruns <= HT_STORE_MAX_RUNS. An
 * evaluation already stored for the same (problem, device, config) is replaced, runs and
 * all. Sets *id (when not NULL) to the new row. Returns HT_EINVAL for a malformed ev (err
 * set; store or ev NULL too), HT_EDB when SQLite fails (nothing of ev is then stored). */
int ht_store_put_eval(struct ht_store *store, const struct ht_stored_eval *ev, int64_t *id,
                      struct ht_error *err);

/* Fills *out with the fastest evaluation (least seconds; the earliest stored on ties) of
 * the problem on the device whose status is "ok" and that passed verification
 * (verified == 1). Returns HT_ENOTFOUND (err left untouched) when there is none. HT_EINVAL (err
 * set) when store or out is NULL. */
int ht_store_best(struct ht_store *store, int64_t problem_id, int64_t device_id,
                  struct ht_stored_eval *out, struct ht_error *err);

/* Like ht_store_best, but also accepts evaluations that were not verified (verified == -1,
 * e.g. a spec without a reference or a run with verification off). Failed verification
 * (verified == 0) is still never chosen. HT_EINVAL (err set) when store or out is NULL. */
int ht_store_best_unverified(struct ht_store *store, int64_t problem_id, int64_t device_id,
                             struct ht_stored_eval *out, struct ht_error *err);

/* Calls cb for each stored evaluation of the problem on the device, in the order they were
 * stored, runs included. 0 as problem_id or device_id matches any. ev is borrowed for the
 * call only. cb must not write to the store. A non-zero return of cb stops the walk and is
 * returned. HT_EINVAL (err set) when store or cb is NULL. */
typedef int (*ht_store_eval_cb)(const struct ht_stored_eval *ev, void *user);
int ht_store_list_evals(struct ht_store *store, int64_t problem_id, int64_t device_id,
                        ht_store_eval_cb cb, void *user, struct ht_error *err);

/* ht_store_list_evals without the runs: ev->nruns is 0, ev->runs all 0. For a reader
 * of outcomes (status, times, verification): the runs are most of what a walk reads where
 * each evaluation kept many. HT_EINVAL (err set) when store or cb is NULL. */
int ht_store_list_evals_brief(struct ht_store *store, int64_t problem_id, int64_t device_id,
                              ht_store_eval_cb cb, void *user, struct ht_error *err);

/* Sets *count to the number of stored evaluations of the problem on the device (0 matches
 * any, as for ht_store_list_evals). HT_EINVAL (err set) when store or count is NULL; HT_EDB. */
int ht_store_count_evals(struct ht_store *store, int64_t problem_id, int64_t device_id,
                         uint64_t *count, struct ht_error *err);

/* One problem as stored: a kernel at given sizes. Plain data owned by the caller. Text
 * longer than a field is cut; spec_whole is the spec's name uncut, to compare a name with,
 * and sizes_whole the sizes text uncut, to compare a size with; kernel_whole and
 * params_whole are the kernel's name and the parameter names uncut, for a writer that must
 * not lose their ends (the exports).
 * ABI: kernel_name and spec_name came last, after params (the store's listings for the
 * report and the exports), spec_whole after them, sizes_whole after it and kernel_whole
 * and params_whole last; the library only fills this struct for a callback, so a program
 * built before them reads the fields it knows. */
struct ht_stored_problem {
    int64_t id, kernel_id;
    char sizes[HT_STORE_CONFIG_MAX];  /* "M=7,N=1024": NAME=VALUE sorted by name */
    char params[HT_STORE_CONFIG_MAX]; /* "TS,WG": the parameter names in spec order */
    char kernel_name[256];            /* its kernel's name in the source */
    char spec_name[256];              /* the "name" of the spec it was last seen in */
    const char *spec_whole;           /* that name whole, however long (never NULL):
                                         borrowed for the callback only */
    const char *sizes_whole;          /* sizes whole, however long (never NULL): borrowed
                                         for the callback only */
    const char *kernel_whole;         /* kernel_name whole (never NULL): borrowed for the
                                         callback only */
    const char *params_whole;         /* params whole (never NULL): borrowed for the
                                         callback only */
};

/* Calls cb for each stored problem of kernel kernel_id (0: of every kernel), in the order
 * they were stored (the predictions of predict.h read a kernel's other sizes this way,
 * the report and the exports every problem); p is borrowed for the call. A non-zero
 * return of cb stops the walk and is returned. HT_EDB. HT_EINVAL (err set) when store or cb is
 * NULL. */
typedef int (*ht_store_problem_cb)(const struct ht_stored_problem *p, void *user);
int ht_store_list_problems(struct ht_store *store, int64_t kernel_id, ht_store_problem_cb cb,
                           void *user, struct ht_error *err);

/* One device as stored (ht_store_device_id): what tuning saw of it. Plain data owned by
 * the caller. Text longer than a field is cut. */
struct ht_stored_device {
    int64_t id;
    char platform[256];         /* HT_REPLAY_PLATFORM (tune.h) for a replayed recording's */
    char platform_version[256];
    char name[272];             /* the device's name, " #2" added for the second of two
                                   identical devices */
    char vendor[256];
    char type[32];              /* "CPU", "GPU", "ACCELERATOR", "CUSTOM" or "DEFAULT" */
    char version[256], driver_version[256];
    uint32_t compute_units;
    uint64_t max_work_group_size;
    uint64_t max_work_item_sizes[3];
    uint64_t local_mem_size, global_mem_size, max_mem_alloc_size;
    char first_seen[32];        /* UTC, when it was first stored */
};

/* Calls cb for each stored device, in the order they were stored (id order); d is
 * borrowed for the call. A non-zero return of cb stops the walk and is returned. HT_EDB,
 * HT_ENOMEM. HT_EINVAL (err set) when store or cb is NULL. */
typedef int (*ht_store_device_cb)(const struct ht_stored_device *d, void *user);
int ht_store_list_devices(struct ht_store *store, ht_store_device_cb cb, void *user,
                          struct ht_error *err);

/* Deletes every evaluation (and its runs) of the problem on the device, for --fresh.
 * Both ids must be given (positive; HT_EINVAL otherwise): nothing wider is ever deleted.
 * Sets *deleted (when not NULL) to how many there were. HT_EINVAL (err set) when store is NULL. */
int ht_store_forget(struct ht_store *store, int64_t problem_id, int64_t device_id,
                    uint64_t *deleted, struct ht_error *err);

/* --- tuning runs (hetune tune; src/store/runs.c) ---
 * What an evaluation's own row cannot keep: which run made it, in which order, and when
 * on the run's clock. A configuration measured again replaces its evaluation, while every
 * run keeps its steps, so a run's convergence (its best-so-far against evaluations and
 * time) can be drawn after later runs. */

/* One tuning run as stored. Plain data owned by the caller. */
struct ht_stored_tune_run {
    int64_t id;                 /* set by the store; ignored by ht_store_put_tune_run */
    int64_t problem_id, device_id;
    char strategy[64];          /* the strategy that ran, e.g. "random" */
    uint64_t seed;
    uint64_t budget;            /* most evaluations asked for; 0 no limit */
    double time_limit_s;        /* seconds asked for; 0 no limit */
    int replayed;               /* 1 when answered from a recording on a simulated clock */
    uint64_t from_db;           /* evaluations the run found stored and did not make */
    double best_before_s;       /* the best time among those, the run's best before its
                                   first evaluation; -1 none */
    char created_at[32];        /* UTC; set by the store */
};

/* Stores a tuning run that is starting; sets *id (when not NULL) to its id, the run_id of
 * its steps. HT_EINVAL (err set) for a NULL store or run, a run without problem, device or
 * strategy; HT_EDB. */
int ht_store_put_tune_run(struct ht_store *store, const struct ht_stored_tune_run *run,
                          int64_t *id, struct ht_error *err);

/* One step of a run: its i-th evaluation (from 0, in the order the run made them). */
struct ht_stored_tune_step {
    uint64_t i;
    char config[HT_STORE_CONFIG_MAX]; /* canonical text */
    char status[16];            /* an HT_STORE_... text, or "missing" for a configuration a
                                   replayed recording does not hold (never an evaluation) */
    double seconds;             /* the time that competes for best (status ok, verification
                                   not failed); -1 otherwise */
    double elapsed_s;           /* the run's clock at the step's end: wall seconds since the
                                   search began, or simulated seconds for a replay */
};

/* Stores step st of run run_id. HT_EINVAL (err set) for a NULL store or st, a malformed
 * step (no status, no configuration, a negative or non-finite clock); HT_EDB (a repeated i,
 * an unknown run). */
int ht_store_put_tune_step(struct ht_store *store, int64_t run_id,
                           const struct ht_stored_tune_step *st, struct ht_error *err);

/* Calls cb for each step of each tuning run of the problem on the device (0 matches any,
 * as for ht_store_list_evals): by run, in the order the runs started (id order), then by
 * step (i); a run that stored no step is not walked. run (time_limit_s 0 for none) and st
 * are borrowed for the call. A non-zero return of cb stops the walk and is returned.
 * HT_EDB, HT_ENOMEM. HT_EINVAL (err set) when store or cb is NULL. */
typedef int (*ht_store_tune_step_cb)(const struct ht_stored_tune_run *run,
                                     const struct ht_stored_tune_step *st, void *user);
int ht_store_list_tune_steps(struct ht_store *store, int64_t problem_id, int64_t device_id,
                             ht_store_tune_step_cb cb, void *user, struct ht_error *err);

/* ht_store_put_eval and ht_store_put_tune_step in one transaction: the evaluation and the
 * step of run run_id that made it are both stored or neither, for the price of one commit
 * (a durable commit costs a few milliseconds). Errors as theirs. */
int ht_store_put_eval_step(struct ht_store *store, const struct ht_stored_eval *ev,
                           int64_t run_id, const struct ht_stored_tune_step *st, int64_t *id,
                           struct ht_error *err);

/* --- split results and sweeps (hetune split; src/store/split.c) ---
 *
 *   splits         one co-execution of a problem: scheduler, split dimension, global size,
 *                  Algorithm 1's theoretical time, the measured wall time (mean of the
 *                  best keep_best runs, transfers included; and the fastest run), the
 *                  slowest device's kernel-only time, the fastest device's measured time
 *                  alone, verification.
 *   split_devices  each device's part of it, in device order: configuration, work-group
 *                  size along the split dimension, time alone, optimal and adjusted factors
 *                  (the paper's Table 3), slice and owned range (static), chunks, times.
 *   sweep_points   the split-point sweep of a two-device split (Figures 6 and 7): device
 *                  0's factor, the theoretical and the measured times.
 * Times not measured are -1 (NULL). */

/* One device of a stored split. */
struct ht_stored_split_device {
    int64_t device_id;
    char config[HT_STORE_CONFIG_MAX]; /* canonical text */
    uint64_t wg;
    double time_seconds;       /* alone (the tuned best) */
    double optimal_factor, adjusted_factor; /* -1 when there is no plan */
    uint64_t offset, size, own_offset, own_size; /* the static plan's slice; 0 otherwise */
    unsigned chunks;           /* kernels it launched per run */
    double kernel_seconds, write_seconds, read_seconds;
};

struct ht_stored_split {
    int64_t id;                /* set by the store */
    int64_t problem_id;
    char scheduler[32];
    unsigned dim;
    uint64_t global;
    double theoretical_seconds, seconds, min_seconds, kernel_seconds, alone_seconds;
    int verified;              /* 1 passed, 0 failed, -1 not verified */
    double max_abs_err, max_rel_err;
    char created_at[32];       /* UTC; put fills it when "" */
    size_t ndevices;
    struct ht_stored_split_device *devices; /* borrowed by put, owned by the caller */
    double predicted_seconds;  /* the wall time predicted for it before it ran (the bus
                                  plan's, ht_coexec_estimate.split_s); -1 when none (run
                                  alone, another plan, or stored before schema 12). Added at
                                  the end: the struct's size changed in 0.x, rebuild */
};

/* Empties sp: zeroes, every time and error -1, verified -1. NULL: nothing. */
void ht_stored_split_init(struct ht_stored_split *sp);

/* Stores a split and its devices in one transaction; sets *id (when not NULL). The problem
 * and every device id must exist. Returns HT_EINVAL (err set) for a NULL store or sp, a
 * malformed sp (no devices, an empty scheduler), HT_EDB (nothing stored). */
int ht_store_put_split(struct ht_store *store, const struct ht_stored_split *sp, int64_t *id,
                       struct ht_error *err);

/* Calls cb for each stored split of the problem (0: of every problem), devices included,
 * in the order they were stored (id order, the newest last); sp and its devices are
 * borrowed for the call. A non-zero return of cb stops the walk and is returned. HT_EDB,
 * HT_ENOMEM. HT_EINVAL (err set) when store or cb is NULL. */
typedef int (*ht_store_split_cb)(const struct ht_stored_split *sp, void *user);
int ht_store_list_splits(struct ht_store *store, int64_t problem_id, ht_store_split_cb cb,
                         void *user, struct ht_error *err);

/* How far a problem's splits over one set of devices measured from their predictions:
 * over each stored split with a prediction and a measured wall time (predicted_seconds and
 * seconds above 0) whose devices are device_ids, in any order (a device named twice must be
 * there twice). Errors are seconds / predicted_seconds - 1: +0.1 took 10% longer. */
struct ht_split_errors {
    size_t count;              /* such splits; 0: none, and the rest 0 */
    double min, max;           /* the smallest and largest error */
    double newest;             /* the newest split's (the highest id) */
};

/* Fills *out over the splits of problem problem_id on device_ids[0..n). HT_EINVAL for a
 * NULL store, out, or device_ids with n above 0. */
int ht_store_split_errors(struct ht_store *store, int64_t problem_id,
                          const int64_t *device_ids, size_t n, struct ht_split_errors *out,
                          struct ht_error *err);

/* One point of a split-point sweep. */
struct ht_stored_sweep_point {
    unsigned index;            /* its position in the sweep, from 0 */
    double factor;             /* device 0's split factor; device 1 takes 1 - factor */
    double theoretical_seconds, seconds, kernel_seconds;
    int verified;
};

/* Stores (or replaces) point pt->index of the sweep of split split_id. HT_EINVAL (err set)
 * when store or pt is NULL; HT_EDB. */
int ht_store_put_sweep_point(struct ht_store *store, int64_t split_id,
                             const struct ht_stored_sweep_point *pt, struct ht_error *err);

/* Calls cb for each point of the sweep of split split_id, in index order (pt borrowed for
 * the call). A non-zero return of cb stops the walk and is returned. HT_EDB. HT_EINVAL (err set)
 * when store or cb is NULL. */
typedef int (*ht_store_sweep_cb)(const struct ht_stored_sweep_point *pt, void *user);
int ht_store_list_sweep(struct ht_store *store, int64_t split_id, ht_store_sweep_cb cb,
                        void *user, struct ht_error *err);

/* Fills *out with split split_id, devices included (out->devices allocated, owned by the
 * caller: free()). HT_ENOTFOUND (err untouched) when there is none, HT_EDB, HT_ENOMEM. HT_EINVAL
 * (err set) when store or out is NULL. */
int ht_store_get_split(struct ht_store *store, int64_t split_id, struct ht_stored_split *out,
                       struct ht_error *err);

/* --- design space sizes (src/store/spaces.c) ---
 *
 *   spaces         the size of a problem's design space on a device under one Eq. 3
 *                  variant (the paper's Tables 1 and 2): unpruned, left by the platform
 *                  rules, left by the constraints too, and the seconds the count took.
 *                  One row per (problem, device, eq3): a new count replaces the old one. */

/* One space size. Plain data owned by the caller. */
struct ht_stored_space {
    int64_t problem_id, device_id;
    enum ht_eq3 eq3;
    double unpruned;           /* exact up to 2^53 (see struct ht_space_counts) */
    uint64_t platform, pruned; /* exact below 2^63, rounded above (kept as REAL), and
                                  UINT64_MAX for a count that passed 2^64 */
    double seconds;            /* -1 when not measured */
    char last_constraint[256]; /* when pruned is 0: the rule that emptied it; else "" */
    char created_at[32];       /* UTC; put fills it when "" */
};

/* Empties sp: zeroes, eq3 HT_EQ3_PRODUCT, seconds -1. NULL: nothing. */
void ht_stored_space_init(struct ht_stored_space *sp);

/* Fills sp (after ht_stored_space_init) from counts: unpruned, platform, pruned, seconds
 * and last_constraint; problem_id, device_id and eq3 are the caller's. sp or counts NULL:
 * nothing. */
void ht_stored_space_from_counts(struct ht_stored_space *sp,
                                 const struct ht_space_counts *counts);

/* Stores (or replaces) the size of sp->problem_id's space on sp->device_id under sp->eq3.
 * The problem and the device must exist. HT_EINVAL (err set: a NULL store or sp, an eq3 out
 * of range, a negative or non-finite unpruned size), HT_EDB. */
int ht_store_put_space(struct ht_store *store, const struct ht_stored_space *sp,
                       struct ht_error *err);

/* Fills *out with the stored size of the problem's space on the device under eq3.
 * HT_ENOTFOUND (err untouched) when there is none, HT_EDB. HT_EINVAL (err set) when store or out
 * is NULL. */
int ht_store_get_space(struct ht_store *store, int64_t problem_id, int64_t device_id,
                       enum ht_eq3 eq3, struct ht_stored_space *out, struct ht_error *err);

/* Calls cb for each stored space size of the problem (0: of every problem), ordered by
 * problem, device and eq3 ("product", "sum", "off"); sp is borrowed for the call. A
 * non-zero return of cb stops the walk and is returned. HT_EDB. HT_EINVAL (err set) when store
 * or cb is NULL. */
typedef int (*ht_store_space_cb)(const struct ht_stored_space *sp, void *user);
int ht_store_list_spaces(struct ht_store *store, int64_t problem_id, ht_store_space_cb cb,
                         void *user, struct ht_error *err);

/* --- host-device bandwidth (hetune devices --bandwidth; src/store/bandwidth.c) ---
 *
 *   bandwidth      one row per measurement of a device's link (struct ht_bandwidth of
 *                  exec.h): the data path measured, bytes per transfer, repeats, hetune's
 *                  path and the pinned and pageable references both ways in bytes per
 *                  second, and when. The planner uses the latest row of a device. */

struct ht_bandwidth; /* exec.h */
struct ht_host_memory; /* exec.h */

/* Stores bw, measured on device device_id (which must exist), as a new row. HT_EINVAL (err set)
 * when store or bw is NULL, bw->path is not pageable, pinned or inplace, bw->bytes is 0 or
 * above 2^63, or a rate is negative or not finite (0, not measured, is stored as NULL); HT_EDB. */
int ht_store_put_bandwidth(struct ht_store *store, int64_t device_id,
                           const struct ht_bandwidth *bw, struct ht_error *err);

/* Fills *out with the latest measurement stored for device device_id (rates not measured
 * read as 0). HT_ENOTFOUND (err untouched) when there is none, HT_EDB. HT_EINVAL (err set) when
 * store or out is NULL. */
int ht_store_get_bandwidth(struct ht_store *store, int64_t device_id, struct ht_bandwidth *out,
                           struct ht_error *err);

/* --- the host memory's rate (src/store/hostmem.c) --- */

/* Stores hm (ht_host_memory_measure, exec.h) as this machine's (its hostname) latest. HT_EINVAL
 * (err set) when store or hm is NULL or its rate, bytes or threads are not positive; HT_EDB. */
int ht_store_put_host_memory(struct ht_store *store, const struct ht_host_memory *hm,
                             struct ht_error *err);

/* Fills *out with the latest rate stored for this machine (its hostname; another machine's
 * is never taken). HT_ENOTFOUND (err untouched) when there is none, HT_EDB. HT_EINVAL (err set)
 * when store or out is NULL. */
int ht_store_get_host_memory(struct ht_store *store, struct ht_host_memory *out,
                             struct ht_error *err);

/* As ht_store_get_host_memory, for the machine named hostname (NULL: this one): what rank 0
 * of an MPI run reads for every node's host. HT_EINVAL for an empty name. HT_EINVAL (err set)
 * when store or out is NULL. */
int ht_store_get_host_memory_of(struct ht_store *store, const char *hostname,
                                struct ht_host_memory *out, struct ht_error *err);

/* --- device leases (src/store/lease.c) ---
 *
 *   device_leases  at most one row per device: the process measuring it now (pid,
 *                  hostname, when it took the lease, its heartbeat). ht_tune_device takes
 *                  the lease before it measures a device and gives it back when done, so
 *                  two tunes sharing a database never measure one device under each
 *                  other's load: the second waits, then finds the first one's results
 *                  stored.
 *
 * A lease is stale, and taken over, when its holder is gone: a process of this host
 * (same hostname) that no longer exists (kill(pid, 0) fails with ESRCH), or a holder of
 * any host with no sign of life for HT_STORE_LEASE_EXPIRY_S seconds. Storing an
 * evaluation of the device renews its holder's heartbeat (ht_store_put_eval), so only a
 * holder stuck longer than that on one configuration loses its lease. A lease held by
 * the calling process itself (through another connection) is taken again, never waited
 * for. */

/* Seconds without a heartbeat after which a lease of another host is stale: one hour. */
#define HT_STORE_LEASE_EXPIRY_S 3600.0

/* ht_store_lease_device's return when the device is still leased by another process: a
 * positive value, not an error (err is left untouched). */
#define HT_STORE_LEASE_BUSY 2

/* Who holds a lease. Plain data owned by the caller. */
struct ht_lease_info {
    int64_t device_id;
    int64_t pid;               /* the holder's process id on its host */
    char hostname[256];        /* the holder's host (gethostname) */
    char acquired_at[32];      /* UTC, "2024-05-01T12:00:00.000Z" */
    double idle_s;             /* seconds since its last heartbeat */
};

/* Takes the lease of device device_id (which must exist) for this process, taking over a stale
 * one. When another process holds it, polls about every 0.25 s for up to wait_s seconds (0: one
 * try; negative: no limit), and stops waiting within 0.1 s of *stop becoming non-zero (stop may
 * be NULL). Returns HT_OK once the lease is this process's (give it back with
 * ht_store_release_device), HT_STORE_LEASE_BUSY when the wait ended or *stop was raised first,
 * with *holder (when not NULL) describing who holds it; HT_EINVAL (err set) for a NULL store or
 * a device id below 1; HT_EDB. Call it outside any transaction of the store. */
int ht_store_lease_device(struct ht_store *store, int64_t device_id, double wait_s,
                          volatile sig_atomic_t *stop, struct ht_lease_info *holder,
                          struct ht_error *err);

/* Gives back this process's lease of device device_id; a lease taken over by another process
 * meanwhile (or none) is left alone. HT_EINVAL (err set) when store is NULL; HT_EDB. A lease
 * that could not be given back (a full disk) goes stale when this process exits. */
int ht_store_release_device(struct ht_store *store, int64_t device_id, struct ht_error *err);

/* --- written buffers inferred by a probe (src/store/written.c) ---
 *
 *   written_maps   what a probe (coexec.h, ht_split_probe) inferred for a written buffer
 *                  without "index" of a problem, split along one dimension: the buffer axis
 *                  walked by the slices, its elements per work-item and the halos. One row
 *                  per (problem, buffer, dimension); a newer probe replaces it. A split
 *                  finds it there and probes no more. */

/* One inference. Plain data owned by the caller. */
struct ht_stored_written {
    int64_t problem_id;
    char arg[64];              /* the buffer's name */
    unsigned dim;              /* the split dimension, 0..2 */
    char layout[17];           /* the hash of the spec's parts the inference rests on, as the
                                  caller computes it; a row whose layout differs is stale */
    unsigned axis;             /* 0..2 */
    uint64_t per_item;         /* > 0 */
    uint64_t halo_lo, halo_hi;
    int64_t device_id;         /* the device probed; 0: unknown (stored as NULL) */
    char config[HT_STORE_CONFIG_MAX]; /* its configuration, canonical text */
    char created_at[32];       /* UTC; put fills it */
};

/* Stores (or replaces) w. The problem (and the device, when not 0) must exist. HT_EINVAL (err
 * set: a NULL store or w, an empty arg, dim or axis above 2, per_item 0, a halo or per_item
 * above 2^63), HT_EDB. */
int ht_store_put_written(struct ht_store *store, const struct ht_stored_written *w,
                         struct ht_error *err);

/* Fills *out with the inference stored for buffer arg of the problem along dim.
 * HT_ENOTFOUND (err untouched) when there is none, HT_EDB. HT_EINVAL (err set) when store,
 * arg or out is NULL. */
int ht_store_get_written(struct ht_store *store, int64_t problem_id, const char *arg,
                         unsigned dim, struct ht_stored_written *out, struct ht_error *err);

#ifdef __cplusplus
}
#endif
#endif
