/* Misuse of the split planner's, the co-execution's, the workflow's and the tuner's API is
 * an error, never a crash: every function declared in include/hetune/split.h, coexec.h,
 * workflow.h and tune.h is called with NULL in each of its pointer arguments in turn, the
 * others valid, each in a child process of its own (api-null-test.h, shared with
 * test_api_null.c and test_api_null_exec.c). A NULL the function cannot do without is
 * HT_EINVAL with err->text "... ARG is NULL" (and HT_EINVAL again with err NULL); a NULL it
 * takes is its documented answer.
 *
 * Most cases need no OpenCL: a NULL is refused before any device is touched, so the device
 * is a struct filled by hand, the database is in memory and the scheduler, plans and
 * recording are pure. Those whose other arguments need a real device (a probe, a bandwidth
 * measured with default options, a tune with default options) run afterwards on PoCL's
 * first device, POCL_DEVICES="pthread basic" unless set; with no OpenCL platform they are
 * skipped and the test exits 77. The platform is discovered in each child only: PoCL's
 * threads do not survive a fork. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune.h"

#include "api-null-test.h"

/* The spec of every case: one kernel, one parameter, a written buffer without index, which
 * a probe runs the kernel for (eight groups of 8). */
static const char fill_json[] =
    "{ \"name\": \"null_split_fill\",\n"
    "  \"kernel\": { \"source\": \"__kernel void fill(__global float *c) {\\n"
    "  c[get_global_id(0)] = 1.0f; }\", \"name\": \"fill\" },\n"
    "  \"sizes\": { \"N\": 64 },\n"
    "  \"ndrange\": { \"global\": [\"N\"], \"local\": [\"WG\"] },\n"
    "  \"params\": { \"WG\": { \"values\": [8] } },\n"
    "  \"args\": [ { \"name\": \"c\", \"type\": \"float\", \"shape\": [\"N\"],\n"
    "              \"access\": \"write\" } ] }\n";

/* A Kernel Tuner cache file of the spec's space (tune.h, "Recorded spaces"). */
static const char cache_json[] =
    "{ \"device_name\": \"null device\", \"kernel_name\": \"fill\",\n"
    "  \"tune_params_keys\": [\"WG\"], \"tune_params\": { \"WG\": [8] },\n"
    "  \"cache\": { \"8\": { \"WG\": 8, \"time\": 1.5, \"times\": [1.5, 1.5],\n"
    "                      \"compile_time\": 10.0, \"benchmark_time\": 3.0 } } }\n";

static char tmp_dir[] = "/tmp/hetune-test-api-null-split-XXXXXX";
static char rec_path[sizeof tmp_dir + 16]; /* cache_json as a file */

/* What a case's call is given: valid arguments for every pointer but the one under test,
 * and somewhere for its outputs. Made afresh in each child. */
struct fx {
    struct ht_spec *spec;
    struct ht_device_info dev, info; /* dev filled by hand: no OpenCL handles */
    const struct ht_device_info *devs[1];
    struct ht_platform *real, *pout;  /* real: the device cases' platform, discovered */
    const struct ht_device_info *rdev;
    struct ht_store *st, *sout;
    int64_t problem_id, id, config[1];
    /* split.h */
    enum ht_split_residue rule;
    struct ht_split_device_in in[2], din;
    struct ht_split_plan_opts popts;
    struct ht_split_plan plan;
    struct ht_split_bus bus;
    double time_s, overhead_s, shares[2], alone[2];
    struct ht_split_decision dec;
    struct ht_split_sched_device sdevs[2];
    struct ht_split_sched_opts sopts;
    struct ht_split_sched *sched, *sout_sched;
    struct ht_split_chunk chunk;
    /* coexec.h */
    struct ht_exec_opts exec;
    struct ht_split_written written[1];
    /* workflow.h */
    struct ht_workflow_best_opts bo;
    struct ht_workflow_device wd;
    struct ht_workflow_split_opts wso;
    struct ht_workflow_split_result wsr;
    struct ht_workflow_run_opts wro;
    struct ht_workflow_run_result wrr;
    struct ht_workflow_coexec coexecs[2];
    struct ht_bandwidth bw;
    struct ht_load load;
    struct ht_space_counts counts;
    struct ht_workflow_space ws;
    struct ht_workflow_plan_opts wpo;
    struct ht_workflow_plan_result wpr;
    struct ht_host_memory hm;
    struct ht_store_opts so;
    volatile sig_atomic_t stop;
    /* tune.h */
    struct ht_recording *rec;
    struct ht_tune_sink sink;
    struct ht_tune_memory mem;
    struct ht_stored_eval evals[4], ev;
    struct ht_tune_opts topts;
    struct ht_tune_result tr;
    struct ht_tune_one one;
    struct ht_eval_result res;
};

static struct fx *fx_new(void)
{
    static struct fx fx; /* large: not on the stack */
    struct fx *f = &fx;
    struct ht_error err;
    int64_t kernel_id = 0;

    memset(f, 0, sizeof *f);
    ht_error_clear(&err);
    if (ht_spec_load_buffer(fill_json, 0, NULL, &f->spec, &err) != HT_OK)
        die("fixture spec", err.text);
    null_device(&f->dev);
    f->devs[0] = &f->dev;
    f->config[0] = 8;
    if (ht_store_open(":memory:", &f->st, &err) != HT_OK ||
        ht_store_kernel_id(f->st, f->spec, &kernel_id, &err) != HT_OK ||
        ht_store_problem_id(f->st, kernel_id, f->spec, &f->problem_id, &err) != HT_OK)
        die("fixture store", err.text);

    for (int i = 0; i < 2; i++) {
        f->in[i] = (struct ht_split_device_in){8, 1.0 + i, 0.0};
        f->sdevs[i] = (struct ht_split_sched_device){8, 1.0 + i, i == 0, 1, 0.0};
        f->alone[i] = 1.0 + i;
    }
    f->bus = (struct ht_split_bus){1.0, 0.0, 0.5, 0.0, 0, 0};
    if (ht_split_sched_create("static", 64, f->sdevs, 2, NULL, &f->sched, &err) != HT_OK)
        die("fixture scheduler", err.text);
    f->chunk = (struct ht_split_chunk){0, 8, 0, 8};

    ht_exec_opts_init(&f->exec);
    f->exec.isolate = HT_ISOLATE_OFF;
    f->wd.dev = &f->dev;
    ht_workflow_split_opts_init(&f->wso);
    ht_workflow_run_opts_init(&f->wro);
    ht_store_opts_init(&f->so);
    /* One split (all zero) for ht_workflow_run_coexecs to walk. */
    f->wrr.nsplits = 1;
    f->wrr.splits = &f->wsr;

    if (ht_recording_load(rec_path, NULL, &f->rec, &err) != HT_OK)
        die("fixture recording", err.text);
    f->mem = (struct ht_tune_memory){.evals = f->evals, .cap = 4};
    ht_tune_sink_memory(&f->sink, &f->mem);
    ht_tune_opts_init(&f->topts);
    f->one = (struct ht_tune_one){.config = f->config, .text = "WG=8", .nparams = 1};
    /* ht_workflow_open with db NULL makes hetune.db in the current folder: tmp_dir, where
     * null_suite_run runs the cases. */
    return f;
}

/* With PoCL's first device, in this process. */
static struct fx *fx_new_device(void)
{
    struct fx *f = fx_new();

    f->rdev = null_discover(&f->real);
    return f;
}

/* The answer of a call that made something: what it made is freed, and nothing is reset,
 * each case being a child of its own that calls this once. */
static int freed(struct fx *f, int rc)
{
    ht_split_plan_destroy(&f->plan);
    ht_workflow_plan_result_destroy(&f->wpr);
    ht_split_sched_free(f->sout_sched);
    ht_recording_free(f->rec);
    ht_store_close(f->sout);
    return rc;
}

/* The answer of ht_workflow_open with db NULL: the database it made removed. */
static int default_db_removed(struct fx *f, int rc)
{
    char path[sizeof tmp_dir + 32];
    freed(f, rc);
    snprintf(path, sizeof path, "%s/%s", tmp_dir, HT_STORE_DEFAULT_PATH);
    return unlink(path) == 0 ? rc : -1;
}

/* 0 when ht_recording_device_info(NULL, info) zeroed info (it was filled first). */
static int info_zeroed(struct fx *f)
{
    memset(&f->info, 0x5a, sizeof f->info);
    ht_recording_device_info(NULL, &f->info);
    return f->info.name[0] == '\0' && f->info.compute_units == 0 ? 0 : -1;
}

/* split.h: X(function, the argument passed NULL, kind, the answer expected, the call), as
 * api-null-test.h describes. */
#define SPLIT_CASES(X)                                                                             \
    X(ht_split_residue_name, none, ANSWER, 0,                                                      \
      ht_split_residue_name(HT_SPLIT_RESIDUE_WORK) ? 0 : -1)                                       \
    X(ht_split_residue_parse, name, ANSWER, HT_EINVAL, ht_split_residue_parse(NULL, &f->rule))     \
    X(ht_split_residue_parse, rule, ANSWER, HT_EINVAL, ht_split_residue_parse("work", NULL))       \
    X(ht_split_plan_make, devs, NAMED, HT_EINVAL,                                                  \
      ht_split_plan_make(64, NULL, 2, &f->popts, &f->plan, err))                                   \
    X(ht_split_plan_make, opts, ANSWER, HT_OK,                                                     \
      freed(f, ht_split_plan_make(64, f->in, 2, NULL, &f->plan, err)))                             \
    X(ht_split_plan_make, out, NAMED, HT_EINVAL,                                                   \
      ht_split_plan_make(64, f->in, 2, &f->popts, NULL, err))                                      \
    X(ht_split_fit_model, time_s, ANSWER, HT_EINVAL,                                               \
      ht_split_fit_model(0.5, 1.0, 1.0, 1.5, 0.0, NULL, &f->overhead_s))                           \
    X(ht_split_fit_model, overhead_s, ANSWER, HT_EINVAL,                                           \
      ht_split_fit_model(0.5, 1.0, 1.0, 1.5, 0.0, &f->time_s, NULL))                               \
    X(ht_split_plan_destroy, plan, ANSWER, 0, (ht_split_plan_destroy(NULL), 0))                    \
    X(ht_split_bus_model, b, NAMED, HT_EINVAL, ht_split_bus_model(NULL, &f->din, err))             \
    X(ht_split_bus_model, out, NAMED, HT_EINVAL, ht_split_bus_model(&f->bus, NULL, err))           \
    X(ht_split_bound, devs, NAMED, HT_EINVAL,                                                      \
      ht_split_bound(NULL, 2, &f->time_s, f->shares, err))                                         \
    X(ht_split_bound, time_s, NAMED, HT_EINVAL, ht_split_bound(f->in, 2, NULL, f->shares, err))    \
    X(ht_split_bound, shares, ANSWER, HT_OK, ht_split_bound(f->in, 2, &f->time_s, NULL, err))      \
    X(ht_split_decide, alone_s, NAMED, HT_EINVAL,                                                  \
      ht_split_decide(1.0, NULL, 2, HT_SPLIT_MARGIN_DEFAULT, &f->dec, err))                        \
    X(ht_split_decide, out, NAMED, HT_EINVAL,                                                      \
      ht_split_decide(1.0, f->alone, 2, HT_SPLIT_MARGIN_DEFAULT, NULL, err))                       \
    X(ht_split_scheduler_find, name, ANSWER, 0, ht_split_scheduler_find(NULL) == NULL ? 0 : -1)    \
    X(ht_split_sched_create, name, ANSWER, HT_OK,                                                  \
      freed(f, ht_split_sched_create(NULL, 64, f->sdevs, 2, &f->sopts, &f->sout_sched, err)))      \
    X(ht_split_sched_create, devs, NAMED, HT_EINVAL,                                               \
      ht_split_sched_create("dynamic", 64, NULL, 2, &f->sopts, &f->sout_sched, err))               \
    X(ht_split_sched_create, opts, ANSWER, HT_OK,                                                  \
      freed(f, ht_split_sched_create("dynamic", 64, f->sdevs, 2, NULL, &f->sout_sched, err)))      \
    X(ht_split_sched_create, out, NAMED, HT_EINVAL,                                                \
      ht_split_sched_create("dynamic", 64, f->sdevs, 2, &f->sopts, NULL, err))                     \
    X(ht_split_sched_reset, s, ANSWER, 0, (ht_split_sched_reset(NULL), 0))                         \
    X(ht_split_sched_next, s, ANSWER, HT_EINVAL, ht_split_sched_next(NULL, 0, &f->chunk))          \
    X(ht_split_sched_next, out, ANSWER, HT_EINVAL, ht_split_sched_next(f->sched, 0, NULL))         \
    X(ht_split_sched_report, s, ANSWER, 0, (ht_split_sched_report(NULL, 0, &f->chunk, 1.0), 0))    \
    X(ht_split_sched_report, c, ANSWER, 0, (ht_split_sched_report(f->sched, 0, NULL, 1.0), 0))     \
    X(ht_split_sched_plan, s, ANSWER, 0, ht_split_sched_plan(NULL) == NULL ? 0 : -1)               \
    X(ht_split_sched_free, s, ANSWER, 0, (ht_split_sched_free(NULL), 0))

/* The four cases of ht_workflow_split or ht_workflow_run (fn), whose arguments are alike:
 * spec, devs, opts and out. */
#define WHOLE_CASES(X, fn, o, r)                                                                   \
    X(fn, spec, NAMED, HT_EINVAL, fn(NULL, f->devs, 1, o, r, err))                                 \
    X(fn, devs, NAMED, HT_EINVAL, fn(f->spec, NULL, 1, o, r, err))                                 \
    X(fn, opts, NAMED, HT_EINVAL, fn(f->spec, f->devs, 1, NULL, r, err))                           \
    X(fn, out, NAMED, HT_EINVAL, fn(f->spec, f->devs, 1, o, NULL, err))

/* coexec.h and workflow.h. */
#define WORKFLOW_CASES(X)                                                                          \
    X(ht_coexec_memory_name, none, ANSWER, 0, ht_coexec_memory_name(HT_COEXEC_MEM_OWN) ? 0 : -1)   \
    X(ht_coexec_result_destroy, res, ANSWER, 0, (ht_coexec_result_destroy(NULL), 0))               \
    X(ht_split_probe, spec, NAMED, HT_EINVAL,                                                      \
      ht_split_probe(NULL, &f->dev, f->config, 0, &f->exec, f->written, err))                      \
    X(ht_split_probe, dev, NAMED, HT_EINVAL,                                                       \
      ht_split_probe(f->spec, NULL, f->config, 0, &f->exec, f->written, err))                     \
    X(ht_split_probe, config, NAMED, HT_EINVAL,                                                    \
      ht_split_probe(f->spec, &f->dev, NULL, 0, &f->exec, f->written, err))                       \
    X(ht_split_probe, written, NAMED, HT_EINVAL,                                                   \
      ht_split_probe(f->spec, &f->dev, f->config, 0, &f->exec, NULL, err))                        \
    X(ht_workflow_best, spec, NAMED, HT_EINVAL,                                                    \
      ht_workflow_best(NULL, f->st, f->problem_id, &f->bo, &f->wd, err))                           \
    X(ht_workflow_best, store, NAMED, HT_EINVAL,                                                   \
      ht_workflow_best(f->spec, NULL, f->problem_id, &f->bo, &f->wd, err))                         \
    X(ht_workflow_best, opts, ANSWER, HT_ENOTFOUND,                                                \
      ht_workflow_best(f->spec, f->st, f->problem_id, NULL, &f->wd, err))                          \
    X(ht_workflow_best, d, NAMED, HT_EINVAL,                                                       \
      ht_workflow_best(f->spec, f->st, f->problem_id, &f->bo, NULL, err))                          \
    X(ht_workflow_scheduler_planned, scheduler, ANSWER, 0, ht_workflow_scheduler_planned(NULL))    \
    X(ht_workflow_sweep_points, none, ANSWER, 3, (int)ht_workflow_sweep_points(0.5))               \
    X(ht_workflow_split_opts_init, opts, ANSWER, 0, (ht_workflow_split_opts_init(NULL), 0))        \
    WHOLE_CASES(X, ht_workflow_split, &f->wso, &f->wsr)                                           \
    X(ht_workflow_split_result_destroy, r, ANSWER, 0, (ht_workflow_split_result_destroy(NULL), 0)) \
    X(ht_workflow_run_opts_init, opts, ANSWER, 0, (ht_workflow_run_opts_init(NULL), 0))            \
    WHOLE_CASES(X, ht_workflow_run, &f->wro, &f->wrr)                                             \
    X(ht_workflow_run_result_destroy, r, ANSWER, 0, (ht_workflow_run_result_destroy(NULL), 0))     \
    X(ht_workflow_run_coexecs, r, ANSWER, 0, (int)ht_workflow_run_coexecs(NULL, f->coexecs))       \
    X(ht_workflow_run_coexecs, out, ANSWER, 0, (int)ht_workflow_run_coexecs(&f->wrr, NULL))        \
    X(ht_workflow_bandwidth, store, NAMED, HT_EINVAL,                                              \
      ht_workflow_bandwidth(NULL, &f->dev, &f->exec, 4096, &f->load, &f->bw, err))                 \
    X(ht_workflow_bandwidth, dev, NAMED, HT_EINVAL,                                                \
      ht_workflow_bandwidth(f->st, NULL, &f->exec, 4096, &f->load, &f->bw, err))                   \
    X(ht_workflow_bandwidth, bw, NAMED, HT_EINVAL,                                                 \
      ht_workflow_bandwidth(f->st, &f->dev, &f->exec, 4096, &f->load, NULL, err))                  \
    X(ht_workflow_open, db, ANSWER, HT_OK,                                                         \
      default_db_removed(f, ht_workflow_open(NULL, NULL, NULL, f->spec, &f->sout, &f->id, err)))   \
    X(ht_workflow_open, so, ANSWER, HT_OK,                                                         \
      freed(f, ht_workflow_open(":memory:", NULL, &f->stop, f->spec, &f->sout, &f->id, err)))      \
    X(ht_workflow_open, stop, ANSWER, HT_OK,                                                       \
      freed(f, ht_workflow_open(":memory:", &f->so, NULL, f->spec, &f->sout, &f->id, err)))        \
    X(ht_workflow_open, spec, NAMED, HT_EINVAL,                                                    \
      ht_workflow_open(":memory:", NULL, NULL, NULL, &f->sout, &f->id, err))                       \
    X(ht_workflow_open, store, NAMED, HT_EINVAL,                                                   \
      ht_workflow_open(":memory:", NULL, NULL, f->spec, NULL, &f->id, err))                        \
    X(ht_workflow_open, problem_id, NAMED, HT_EINVAL,                                              \
      ht_workflow_open(":memory:", NULL, NULL, f->spec, &f->sout, NULL, err))                      \
    X(ht_workflow_store_space, store, NAMED, HT_EINVAL,                                            \
      ht_workflow_store_space(NULL, f->problem_id, &f->dev, HT_EQ3_PRODUCT, &f->counts, &f->id,    \
                              err))                                                                \
    X(ht_workflow_store_space, dev, NAMED, HT_EINVAL,                                              \
      ht_workflow_store_space(f->st, f->problem_id, NULL, HT_EQ3_PRODUCT, &f->counts, &f->id,      \
                              err))                                                                \
    X(ht_workflow_store_space, counts, NAMED, HT_EINVAL,                                           \
      ht_workflow_store_space(f->st, f->problem_id, &f->dev, HT_EQ3_PRODUCT, NULL, &f->id, err))   \
    X(ht_workflow_store_space, device_id, ANSWER, HT_OK,                                           \
      ht_workflow_store_space(f->st, f->problem_id, &f->dev, HT_EQ3_PRODUCT, &f->counts, NULL,     \
                              err))                                                                \
    X(ht_workflow_devices_load, path, NAMED, HT_EINVAL,                                            \
      ht_workflow_devices_load(NULL, &f->pout, err))                                               \
    X(ht_workflow_devices_load, out, NAMED, HT_EINVAL,                                             \
      ht_workflow_devices_load(rec_path, NULL, err))                                               \
    X(ht_workflow_space_solve, spec, NAMED, HT_EINVAL,                                             \
      ht_workflow_space_solve(NULL, &f->dev, HT_EQ3_PRODUCT, "native", 0, &f->ws, err))            \
    X(ht_workflow_space_solve, dev, NAMED, HT_EINVAL,                                              \
      ht_workflow_space_solve(f->spec, NULL, HT_EQ3_PRODUCT, "native", 0, &f->ws, err))            \
    X(ht_workflow_space_solve, solver, NAMED, HT_EINVAL,                                           \
      ht_workflow_space_solve(f->spec, &f->dev, HT_EQ3_PRODUCT, NULL, 0, &f->ws, err))             \
    X(ht_workflow_space_solve, out, NAMED, HT_EINVAL,                                              \
      ht_workflow_space_solve(f->spec, &f->dev, HT_EQ3_PRODUCT, "native", 0, NULL, err))           \
    X(ht_workflow_space_destroy, r, ANSWER, 0, (ht_workflow_space_destroy(NULL), 0))               \
    X(ht_workflow_plan, devs, NAMED, HT_EINVAL, ht_workflow_plan(64, NULL, 2, &f->wpo, &f->wpr, err)) \
    X(ht_workflow_plan, opts, ANSWER, HT_OK,                                                       \
      freed(f, ht_workflow_plan(64, f->in, 2, NULL, &f->wpr, err)))                                \
    X(ht_workflow_plan, out, NAMED, HT_EINVAL, ht_workflow_plan(64, f->in, 2, &f->wpo, NULL, err)) \
    X(ht_workflow_plan_result_destroy, r, ANSWER, 0, (ht_workflow_plan_result_destroy(NULL), 0))   \
    X(ht_workflow_host_memory, store, NAMED, HT_EINVAL,                                            \
      ht_workflow_host_memory(NULL, f->devs, 1, 0, &f->hm, err))                                   \
    X(ht_workflow_host_memory, copying, NAMED, HT_EINVAL,                                          \
      ht_workflow_host_memory(f->st, NULL, 1, 0, &f->hm, err))                                     \
    X(ht_workflow_host_memory, hm, NAMED, HT_EINVAL,                                               \
      ht_workflow_host_memory(f->st, f->devs, 1, 0, NULL, err))

/* tune.h. */
#define TUNE_CASES(X)                                                                              \
    X(ht_tune_opts_init, opts, ANSWER, 0, (ht_tune_opts_init(NULL), 0))                            \
    X(ht_recording_load, path, NAMED, HT_EINVAL, ht_recording_load(NULL, NULL, &f->rec, err))      \
    X(ht_recording_load, device, ANSWER, HT_OK,                                                    \
      freed(f, ht_recording_load(rec_path, NULL, &f->rec, err)))                                   \
    X(ht_recording_load, out, NAMED, HT_EINVAL, ht_recording_load(rec_path, NULL, NULL, err))      \
    X(ht_recording_free, r, ANSWER, 0, (ht_recording_free(NULL), 0))                               \
    X(ht_recording_path, r, ANSWER, 0, ht_recording_path(NULL) == NULL ? 0 : -1)                   \
    X(ht_recording_device_info, r, ANSWER, 0, info_zeroed(f))                                      \
    X(ht_recording_device_info, dev, ANSWER, 0, (ht_recording_device_info(f->rec, NULL), 0))       \
    X(ht_tune_sink_store, sink, ANSWER, 0, (ht_tune_sink_store(NULL, f->st), 0))                   \
    X(ht_tune_sink_store, store, ANSWER, 0,                                                        \
      (ht_tune_sink_store(&f->sink, NULL), f->sink.ops || f->sink.user ? -1 : 0))                  \
    X(ht_tune_sink_memory, sink, ANSWER, 0, (ht_tune_sink_memory(NULL, &f->mem), 0))               \
    X(ht_tune_sink_memory, mem, ANSWER, 0,                                                         \
      (ht_tune_sink_memory(&f->sink, NULL), f->sink.ops || f->sink.user ? -1 : 0))                 \
    X(ht_tune_device, spec, NAMED, HT_EINVAL,                                                      \
      ht_tune_device(NULL, &f->dev, &f->sink, &f->topts, &f->tr, err))                             \
    X(ht_tune_device, dev, NAMED, HT_EINVAL,                                                       \
      ht_tune_device(f->spec, NULL, &f->sink, &f->topts, &f->tr, err))                             \
    X(ht_tune_device, sink, NAMED, HT_EINVAL,                                                      \
      ht_tune_device(f->spec, &f->dev, NULL, &f->topts, &f->tr, err))                              \
    X(ht_tune_device, out, NAMED, HT_EINVAL,                                                       \
      ht_tune_device(f->spec, &f->dev, &f->sink, &f->topts, NULL, err))                            \
    X(ht_tune_eval, one, NAMED, HT_EINVAL, ht_tune_eval(NULL, &f->res, &f->ev, err))               \
    X(ht_tune_eval, res, NAMED, HT_EINVAL, ht_tune_eval(&f->one, NULL, &f->ev, err))               \
    X(ht_tune_eval, ev, NAMED, HT_EINVAL, ht_tune_eval(&f->one, &f->res, NULL, err))

/* The cases whose other arguments need a device: f->rdev, PoCL's first. */
#define DEVICE_CASES(X)                                                                            \
    X(ht_split_probe, exec, ANSWER, HT_OK,                                                         \
      ht_split_probe(f->spec, f->rdev, f->config, 0, NULL, f->written, err))                      \
    X(ht_workflow_bandwidth, eo, ANSWER, HT_OK,                                                    \
      ht_workflow_bandwidth(f->st, f->rdev, NULL, 4096, &f->load, &f->bw, err))                    \
    X(ht_workflow_bandwidth, load, ANSWER, HT_OK,                                                  \
      ht_workflow_bandwidth(f->st, f->rdev, &f->exec, 4096, NULL, &f->bw, err))                    \
    X(ht_tune_device, opts, ANSWER, HT_OK,                                                         \
      ht_tune_device(f->spec, f->rdev, &f->sink, NULL, &f->tr, err))

SPLIT_CASES(NULL_CASE_CALLS)
WORKFLOW_CASES(NULL_CASE_CALLS)
TUNE_CASES(NULL_CASE_CALLS)
DEVICE_CASES(NULL_CASE_CALLS)
static const struct null_case cases[] = {
    SPLIT_CASES(NULL_CASE_ENTRIES) WORKFLOW_CASES(NULL_CASE_ENTRIES) TUNE_CASES(NULL_CASE_ENTRIES)};
static const struct null_case device_cases[] = {DEVICE_CASES(NULL_CASE_ENTRIES)};
/* split.h, coexec.h, workflow.h and tune.h declare 46 functions. */
static const struct null_suite suite = {
    "api_null_split", "test_api_null_split.c",
    {"split.h", "coexec.h", "workflow.h", "tune.h"}, 40, NULL_TABLE(cases),
    NULL_TABLE(device_cases), fx_new, fx_new_device, tmp_dir, "cache.json", cache_json, rec_path,
    sizeof rec_path};

int main(void)
{
    return null_suite_run(&suite);
}
