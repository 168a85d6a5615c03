/* hetune — the presentation layer: what the command line shows, for the CLI and for
 * programs (the Python package) that want the same documents. The core API returns
 * structs (workflow.h, tune.h, exec.h, report.h, split.h, coexec.h, mpi.h); the functions here
 * write them as the JSON documents `hetune COMMAND --json` prints (docs/cli.md) and as
 * the text and sentences it shows, and map error codes to its exit statuses. Nothing in the core
 * library calls them.
 *
 * A NULL pointer a function cannot do without (its input, *text's place) is HT_EINVAL with
 * err->text "FUNCTION: ARGUMENT is NULL", never a crash; err may be NULL everywhere. The
 * sentence helpers answer 0 for a NULL result or buf instead.
 */
#ifndef HETUNE_PRESENT_H
#define HETUNE_PRESENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hetune/error.h"
#include "hetune/exec.h"
#include "hetune/mpi.h"
#include "hetune/platform.h"
#include "hetune/report.h"
#include "hetune/space.h"
#include "hetune/spec.h"
#include "hetune/split.h"
#include "hetune/tune.h"
#include "hetune/workflow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The process exit status the command-line tool uses for an error code: 0 success,
 * 2 bad input (usage, spec, expression, build, constraint), 3 verification failed,
 * 130 interrupted (HT_EINTR), 1 any other runtime failure (a configuration cut by early
 * termination, crashed or timed out included). */
int ht_present_exit_status(int code);

/* --- sentences: one line each, no newline, no command name --- */

/* That l was under load and what to do, into buf; returns 1, or 0 (buf empty) when
 * ht_load_under(l) is 0 (l NULL included); 0 when buf is NULL. E.g. "measured under load: other
 * processes used 1.6 of 2 cores while it measured; times may be slow: rerun with --fresh when
 * the machine is quiet". */
int ht_present_load_sentence(const struct ht_load *l, char *buf, size_t size);

/* Why r's result is a device alone when ht_workflow_split decided so itself (predicted
 * slower, measured slower, or no refined round beat it), into buf ("the split took 8.1
 * ms, longer than device 1 (NAME) alone (7.2 ms): running on it alone (--force keeps the
 * split)"); returns 1, or 0 (buf empty) when there is nothing to say, r or r->devs is
 * NULL; 0 (buf untouched) when buf is NULL or size 0. */
int ht_present_split_decision(const struct ht_workflow_split_result *r, char *buf,
                              size_t size);

/* The CPU compute units of r in buf: "all", "8 (a sub-device)", or with opts.dop each
 * count tried and its wall time ("8 of 16, 15, 12, 8, 4 tried: 7.41 ms, 7.02 ms, ...");
 * returns 1, or 0 (buf empty) when r ran on all units and tried nothing else, or r is
 * NULL; 0 (buf untouched) when buf is NULL or size 0. */
int ht_present_split_units(const struct ht_workflow_split_result *r, char *buf, size_t size);

/* --- `hetune split` and `hetune run` --- */

/* Writes r, the result of ht_workflow_split(spec, ..., opts, ...), as the JSON document
 * `hetune split --json` prints (docs/cli.md) into *text, owned by the caller (free): the
 * decision, each device's configuration, times alone, slice and times, the plan's residue,
 * the times against Algorithm 1's, the refinement's rounds, the estimate, the
 * verification, the stored split and the sweep; a device name or path that is not UTF-8
 * has its stray bytes as U+FFFD, a time that is not finite is null. HT_ENOMEM when it
 * cannot. HT_EINVAL (err set) when spec, opts, r or text is NULL. */
int ht_present_split_json(const struct ht_spec *spec, const struct ht_workflow_split_opts *opts,
                          const struct ht_workflow_split_result *r, char **text,
                          struct ht_error *err);

/* Writes r, the result of ht_workflow_run on spec with the database db (NULL:
 * HT_STORE_DEFAULT_PATH) that took elapsed seconds, as the JSON document `hetune run
 * --json` prints (docs/cli.md) into *text, owned by the caller (free): each device's
 * space sizes, tuning and times, each co-execution (ht_workflow_run_coexecs) and the
 * report; reals to 9 significant digits. HT_ENOMEM when it cannot. HT_EINVAL (err set) when
 * spec, r or text is NULL. */
int ht_present_run_json(const struct ht_spec *spec, const char *db,
                        const struct ht_workflow_run_result *r, double elapsed, char **text,
                        struct ht_error *err);

/* --- the design space (`hetune space`) --- */

/* The spaces that ht_workflow_space_solve found, as `hetune space` shows them; every
 * pointer borrowed. */
struct ht_present_space {
    const struct ht_spec *spec;
    const char *solver;               /* as given to ht_workflow_space_solve */
    enum ht_eq3 eq3;                  /* as given to ht_workflow_space_solve */
    const struct ht_workflow_space *spaces; /* one per device, n of them */
    size_t n;
    int list;                         /* 1: with each device's configurations */
    enum ht_space_list_format format; /* the listing's format (ht_present_space_print) */
};

/* Writes the spaces of s to f as `hetune space` prints them: the table of sizes (text),
 * with each device's configurations when s->list (struct ht_space_list_opts: s->format;
 * prefix, count and device are set here); a binary listing writes the configurations
 * alone (HT_SPACE_LIST_HELP). Native configurations are streamed in walk order as found:
 * memory stays flat. Returns 0, HT_EIO or HT_ENOMEM, err filled. HT_EINVAL (err set) when f, s,
 * s->spec or s->solver is NULL, or s->spaces is NULL with s->n > 0. */
int ht_present_space_print(FILE *f, const struct ht_present_space *s, struct ht_error *err);

/* Writes the spaces of s (with their configurations when s->list; s->format is not used)
 * as the JSON document `hetune space --json` prints (docs/cli.md) into *text, owned by the
 * caller (free). Names, paths and reasons that are not UTF-8 have their stray bytes as
 * U+FFFD; a size past 2^63 is an exact JSON integer. HT_ENOMEM when it cannot. HT_EINVAL (err
 * set) when s, s->spec, s->solver or text is NULL, or s->spaces is NULL with s->n > 0. */
int ht_present_space_json(const struct ht_present_space *s, char **text, struct ht_error *err);

/* --- the split planner on given numbers (`hetune plan`) --- */

/* Writes plan result r (with bus, its n entries, when r->bus; names may be NULL) as the
 * JSON document `hetune plan --json` prints (docs/cli.md; a device a line, numbers to 17
 * digits) into *text, owned by the caller (free). HT_ENOMEM when it cannot. HT_EINVAL (err set)
 * when r or text is NULL. */
int ht_present_plan_json(const struct ht_workflow_plan_result *r, const struct ht_split_bus *bus,
                         char *const *names, char **text, struct ht_error *err);

/* --- the devices (`hetune devices`) --- */

/* Writes devs[0..n) with their limits as the JSON document `hetune devices --json` prints
 * (docs/cli.md) into *text, owned by the caller (free); with bw (n entries, may be NULL)
 * each device gets its "bandwidth" object, rates in GB/s, and with host (may be NULL) the
 * document its "host_memory" object; a driver's string that is not UTF-8 has its stray
 * bytes as U+FFFD. HT_ENOMEM when it cannot. HT_EINVAL (err set) when text is NULL, or
 * devs is NULL with n > 0. */
int ht_present_devices_json(const struct ht_device_info *devs, size_t n,
                            const struct ht_bandwidth *bw, const struct ht_host_memory *host,
                            char **text, struct ht_error *err);

/* --- tuning (`hetune tune`) --- */

/* A tuning of n devices as `hetune tune` shows it; every pointer borrowed. */
struct ht_present_tune {
    const struct ht_spec *spec;
    const char *db;                   /* the database; NULL: HT_STORE_DEFAULT_PATH */
    const struct ht_tune_opts *opts;  /* the options it ran with */
    const struct ht_device_info *const *devs; /* n devices */
    const struct ht_tune_result *results;     /* and their n results, in the same order */
    size_t n;
    int interrupted;                  /* stopped by opts->stop */
};

/* Writes the tuning t as the JSON document `hetune tune --json` prints (docs/cli.md) into
 * *text, owned by the caller (free). HT_ENOMEM when it cannot. HT_EINVAL (err set) when t,
 * t->spec, t->opts or text is NULL, or t->devs or t->results is NULL with t->n > 0. */
int ht_present_tune_json(const struct ht_present_tune *t, char **text, struct ht_error *err);

/* --- one evaluation (`hetune eval`) --- */

/* One evaluation as ht_present_eval_json writes it. */
struct ht_present_eval {
    const struct ht_spec *spec;
    const struct ht_device_info *dev;
    const int64_t *config;              /* spec->space.nparams values */
    const struct ht_eval_result *res;
    const struct ht_error *eval_err;    /* how it ended: code 0 on success */
    const struct ht_load *load;         /* what other processes did while it measured (as
                                           the device lock's watch saw it), written as
                                           "load": {"under_load", "other_cores", "cores",
                                           "window_seconds", "locked", "unlocked_why",
                                           "notice"}, as `tune --json` per device; NULL:
                                           no "load" key */
};

/* Writes the evaluation e as the JSON document `hetune eval --json` prints (docs/cli.md)
 * into *text, owned by the caller (free): the configuration, the NDRange, the status, the
 * build, kernel and transfer times, the performance, the verification and the load.
 * HT_ENOMEM when it cannot. HT_EINVAL (err set) when e, e->spec, e->dev, e->config, e->res or
 * text is NULL. */
int ht_present_eval_json(const struct ht_present_eval *e, char **text, struct ht_error *err);

/* --- the report (`hetune report`) --- */

/* Writes res, a report of the database db written into the folder out, as the JSON
 * document `hetune report --json` prints (docs/cli.md) into *text, owned by the caller
 * (free). HT_ENOMEM when it cannot. HT_EINVAL (err set) when res or text is NULL. */
int ht_present_report_json(const char *db, const char *out, const struct ht_report_result *res,
                           char **text, struct ht_error *err);

/* --- over MPI (`mpirun -n K hetune tune` and `mpirun -n K hetune split`) --- */

/* What `hetune tune` under mpirun shows of r, the result of ht_mpi_tune on spec, and the
 * exit status it ends with. With json 0, *text is the text: the spec, strategy and
 * database, each device model (its ranks, space, evaluations and best configuration) and
 * each rank (its measurements, how it ended, and a line when it measured under load);
 * with json 1, the JSON document `hetune tune --json` prints (docs/cli.md; a newline at
 * the end). *text is owned by the caller (free); "" on a rank other than 0 (an empty
 * result). *status (may be NULL) is the exit status of a distributed tune that returned
 * HT_OK with r, set whatever this returns: 130 when stopped (r->stopped), else on rank 0
 * 1 when a device model has no best configuration, else 0. HT_ENOMEM when it cannot. HT_EINVAL
 * (err set; *status untouched) when spec, r or text is NULL. */
int ht_present_mpi_tune(const struct ht_spec *spec, const struct ht_mpi_tune_result *r,
                        int json, char **text, int *status, struct ht_error *err);

/* What `hetune split` under mpirun shows of r, the result of ht_mpi_split on spec, and the
 * exit status it ends with. With json 0, *text is the text: the ranks that took part,
 * each node's devices, time, share, slice and times in the runs, the refinement, Eq. 4's
 * bound, the measured wall time and efficiency, the bytes moved, the verification and
 * each node's load; with json 1, the JSON document `hetune split --json` prints
 * (docs/cli.md; reals to 9 significant digits, a newline at the end). *text is owned by
 * the caller (free); "" on a rank other than 0. *status (may be NULL) is the exit status
 * of a split across nodes that returned HT_OK with r, set whatever this returns: 3 when
 * the verification failed (r->verified 0), else 0. HT_ENOMEM when it cannot. HT_EINVAL (err set;
 * *status untouched) when spec, r or text is NULL. */
int ht_present_mpi_split(const struct ht_spec *spec, const struct ht_mpi_split_result *r,
                         int json, char **text, int *status, struct ht_error *err);

#ifdef __cplusplus
}
#endif
#endif
