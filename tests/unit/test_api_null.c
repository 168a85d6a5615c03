/* Misuse of the store's and present's API is an error, never a crash: every function
 * declared in include/hetune/store.h and include/hetune/present.h is called with NULL in
 * each of its pointer arguments in turn, the others valid (an in-memory store with a device,
 * a problem, a tuning run; a spec loaded from memory; zeroed results), each in a child
 * process of its own (api-null-test.h, shared with test_api_null_exec.c). A NULL the
 * function cannot do without is HT_EINVAL with err->text "... ARG is NULL" (and HT_EINVAL
 * again with err NULL); a NULL it takes is its documented neutral answer.
 *
 * The two headers are read at run time: a function declared there, or a pointer argument of
 * one, that has no case in the table fails the test, so a new public function cannot come
 * without its NULL checks. No OpenCL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune.h"

#include "api-null-test.h"

static const char spec_json[] =
    "{ \"name\": \"null_args\",\n"
    "  \"kernel\": { \"source\": \"__kernel void scale(__global float *x) {}\",\n"
    "              \"name\": \"scale\" },\n"
    "  \"sizes\": { \"N\": 64 },\n"
    "  \"ndrange\": { \"global\": [\"N\"] },\n"
    "  \"args\": [ { \"name\": \"x\", \"type\": \"float\", \"shape\": [\"N\"],\n"
    "              \"access\": \"readwrite\", \"index\": [\"gx\"] } ] }\n";

/* What a case's call is given: valid arguments for every pointer but the one under test,
 * and somewhere for its outputs. Made afresh in each child. */
struct fx {
    struct ht_store *st, *opened;
    struct ht_spec *spec;
    int64_t dev_id, kernel_id, problem_id, run_id, id;
    uint64_t count;
    struct ht_device_info dev;
    struct ht_stored_eval ev;
    struct ht_stored_tune_run run;
    struct ht_stored_tune_step step;
    struct ht_stored_split sp;
    struct ht_stored_split_device sd;
    struct ht_stored_sweep_point pt;
    struct ht_stored_space spc;
    struct ht_space_counts counts;
    struct ht_stored_written w;
    struct ht_bandwidth bw;
    struct ht_host_memory hm;
    struct ht_lease_info holder;
    volatile sig_atomic_t stop;
    struct ht_load load;
    struct ht_workflow_split_result wsr;
    struct ht_workflow_split_opts wso;
    struct ht_workflow_run_result wrr;
    struct ht_workflow_plan_result wpr;
    struct ht_present_space ps;
    struct ht_present_tune pt_tune;
    struct ht_present_eval pe;
    struct ht_report_result rr;
    struct ht_mpi_tune_result mtr;
    struct ht_mpi_split_result msr;
    int status;
    char *text;
    char buf[256];
    char hex[17];
};

/* Callbacks that walk everything. */
#define ANY_CB(name, type)                                                                         \
    static int name(const type *x, void *user)                                                     \
    {                                                                                              \
        (void)x, (void)user;                                                                       \
        return 0;                                                                                  \
    }
ANY_CB(any_eval, struct ht_stored_eval)
ANY_CB(any_problem, struct ht_stored_problem)
ANY_CB(any_device, struct ht_stored_device)
ANY_CB(any_split, struct ht_stored_split)
ANY_CB(any_space, struct ht_stored_space)
ANY_CB(any_point, struct ht_stored_sweep_point)

static int any_step(const struct ht_stored_tune_run *run, const struct ht_stored_tune_step *st,
                    void *user)
{
    (void)run, (void)st, (void)user;
    return 0;
}

static void fx_make(struct fx *f)
{
    struct ht_spec_buffer_opts so = {0};
    struct ht_error err;

    memset(f, 0, sizeof *f);
    ht_error_clear(&err);
    so.name = "null_args.json";
    if (ht_store_open(":memory:", &f->st, &err) != HT_OK ||
        ht_spec_load_buffer(spec_json, 0, &so, &f->spec, &err) != HT_OK)
        die("fixture", err.text);
    snprintf(f->dev.name, sizeof f->dev.name, "null device");
    snprintf(f->dev.type, sizeof f->dev.type, "CPU");
    if (ht_store_device_id(f->st, &f->dev, &f->dev_id, &err) != HT_OK ||
        ht_store_kernel_id(f->st, f->spec, &f->kernel_id, &err) != HT_OK ||
        ht_store_problem_id(f->st, f->kernel_id, f->spec, &f->problem_id, &err) != HT_OK)
        die("fixture ids", err.text);

    ht_stored_eval_init(&f->ev);
    f->ev.problem_id = f->problem_id;
    f->ev.device_id = f->dev_id;
    snprintf(f->ev.config, sizeof f->ev.config, "WG=8");
    snprintf(f->ev.status, sizeof f->ev.status, "%s", HT_STORE_OK);
    f->run.problem_id = f->problem_id;
    f->run.device_id = f->dev_id;
    snprintf(f->run.strategy, sizeof f->run.strategy, "exhaustive");
    if (ht_store_put_tune_run(f->st, &f->run, &f->run_id, &err) != HT_OK)
        die("fixture run", err.text);
    snprintf(f->step.config, sizeof f->step.config, "WG=8");
    snprintf(f->step.status, sizeof f->step.status, "%s", HT_STORE_OK);

    ht_stored_split_init(&f->sp);
    f->sd.device_id = f->dev_id;
    snprintf(f->sd.config, sizeof f->sd.config, "WG=8");
    f->sp.problem_id = f->problem_id;
    snprintf(f->sp.scheduler, sizeof f->sp.scheduler, "static");
    f->sp.ndevices = 1;
    f->sp.devices = &f->sd;
    ht_stored_space_init(&f->spc);
    f->spc.problem_id = f->problem_id;
    f->spc.device_id = f->dev_id;
    f->w.problem_id = f->problem_id;
    snprintf(f->w.arg, sizeof f->w.arg, "x");
    f->w.per_item = 1;
    /* Stored, so that ht_store_get_written finds a row to write into its out. */
    if (ht_store_put_written(f->st, &f->w, &err) != HT_OK)
        die("fixture written", err.text);
    f->bw.path = HT_PATH_INPLACE;
    f->bw.bytes = 4096;
    f->bw.h2d_Bps = f->bw.d2h_Bps = 1e9;
    f->hm.Bps = f->hm.read_Bps = 1e10;
    f->hm.bytes = 1 << 20;
    f->hm.threads = 1;
    snprintf(f->buf, sizeof f->buf, "untouched");
}

/* 0 when ht_store_kernel_hash with these arguments (one of them NULL) wrote the hash it
 * gives with the NULL text as "" (and source_len not read for a NULL source). */
static int hash_as_empty(struct fx *f, const char *source, const char *name, const char *opts)
{
    char want[17];
    ht_store_kernel_hash(source ? source : "", 0, name ? name : "", opts ? opts : "", want);
    ht_store_kernel_hash(source, source ? 0 : 99, name, opts, f->hex);
    return strcmp(want, f->hex) == 0 ? 0 : -1;
}

/* 0 when a sentence helper answered 0 and left buf empty. */
static int said_nothing(struct fx *f, int rc)
{
    return rc == 0 && f->buf[0] == '\0' ? 0 : -1;
}

/* Calls ht_present_* writing into f->text: the answer, the text freed. */
static int freed(struct fx *f, int rc)
{
    free(f->text);
    f->text = NULL;
    return rc;
}

static const char *const names1[] = {"WG"};
static const int64_t values1[] = {8};

/* The three cases of a walk: fn(store, ARGS..., cb, user, err). */
#define WALK_CASES(X, fn, walker, ...)                                                             \
    X(fn, store, NAMED, HT_EINVAL, fn(NULL, __VA_ARGS__, walker, NULL, err))                       \
    X(fn, cb, NAMED, HT_EINVAL, fn(f->st, __VA_ARGS__, NULL, NULL, err))                           \
    X(fn, user, ANSWER, HT_OK, fn(f->st, __VA_ARGS__, walker, NULL, err))

/* The four cases of ht_present_mpi_tune and _split, given result res. */
#define MPI_CASES(X, fn, res)                                                                      \
    X(fn, spec, NAMED, HT_EINVAL, fn(NULL, res, 1, &f->text, &f->status, err))                     \
    X(fn, r, NAMED, HT_EINVAL, fn(f->spec, NULL, 1, &f->text, &f->status, err))                    \
    X(fn, text, NAMED, HT_EINVAL, fn(f->spec, res, 1, NULL, &f->status, err))                      \
    X(fn, status, ANSWER, HT_OK, freed(f, fn(f->spec, res, 1, &f->text, NULL, err)))

/* X(function, the argument passed NULL, kind, the answer expected, the call): the call uses
 * f (struct fx *) and err; `none` for a function with no pointer argument. */
#define NULL_CASES(X)                                                                              \
    X(ht_store_status_name, none, ANSWER, 0, ht_store_status_name(HT_OK) ? 0 : -1)                 \
    X(ht_stored_eval_init, ev, ANSWER, 0, (ht_stored_eval_init(NULL), 0))                          \
    X(ht_store_open, path, NAMED, HT_EINVAL, ht_store_open(NULL, &f->opened, err))                 \
    X(ht_store_open, out, NAMED, HT_EINVAL, ht_store_open(":memory:", NULL, err))                  \
    X(ht_store_opts_init, o, ANSWER, 0, (ht_store_opts_init(NULL), 0))                             \
    X(ht_store_open_opts, path, NAMED, HT_EINVAL, ht_store_open_opts(NULL, NULL, &f->opened, err)) \
    X(ht_store_open_opts, o, ANSWER, HT_OK, ht_store_open_opts(":memory:", NULL, &f->opened, err)) \
    X(ht_store_open_opts, out, NAMED, HT_EINVAL, ht_store_open_opts(":memory:", NULL, NULL, err))  \
    X(ht_store_set_durable, store, NAMED, HT_EINVAL, ht_store_set_durable(NULL, 1, err))           \
    X(ht_store_batch, store, NAMED, HT_EINVAL, ht_store_batch(NULL, 4, err))                       \
    X(ht_store_close, store, ANSWER, 0, (ht_store_close(NULL), 0))                                 \
    X(ht_store_path, store, ANSWER, 0, ht_store_path(NULL) == NULL ? 0 : -1)                       \
    X(ht_store_device_id, store, NAMED, HT_EINVAL, ht_store_device_id(NULL, &f->dev, &f->id, err)) \
    X(ht_store_device_id, dev, NAMED, HT_EINVAL, ht_store_device_id(f->st, NULL, &f->id, err))     \
    X(ht_store_device_id, id, NAMED, HT_EINVAL, ht_store_device_id(f->st, &f->dev, NULL, err))     \
    X(ht_store_kernel_id, store, NAMED, HT_EINVAL, ht_store_kernel_id(NULL, f->spec, &f->id, err)) \
    X(ht_store_kernel_id, spec, NAMED, HT_EINVAL, ht_store_kernel_id(f->st, NULL, &f->id, err))    \
    X(ht_store_kernel_id, id, NAMED, HT_EINVAL, ht_store_kernel_id(f->st, f->spec, NULL, err))     \
    X(ht_store_problem_id, store, NAMED, HT_EINVAL,                                                \
      ht_store_problem_id(NULL, f->kernel_id, f->spec, &f->id, err))                               \
    X(ht_store_problem_id, spec, NAMED, HT_EINVAL,                                                 \
      ht_store_problem_id(f->st, f->kernel_id, NULL, &f->id, err))                                 \
    X(ht_store_problem_id, id, NAMED, HT_EINVAL,                                                   \
      ht_store_problem_id(f->st, f->kernel_id, f->spec, NULL, err))                                \
    X(ht_store_kernel_hash, source, ANSWER, 0, hash_as_empty(f, NULL, "k", "-O2"))                 \
    X(ht_store_kernel_hash, kernel_name, ANSWER, 0, hash_as_empty(f, "", NULL, "-O2"))             \
    X(ht_store_kernel_hash, options, ANSWER, 0, hash_as_empty(f, "", "k", NULL))                   \
    X(ht_store_kernel_hash, hex, ANSWER, 0, (ht_store_kernel_hash("s", 1, "k", "", NULL), 0))      \
    X(ht_store_config_text, names, ANSWER, HT_EINVAL,                                              \
      ht_store_config_text(NULL, values1, 1, f->buf, sizeof f->buf))                               \
    X(ht_store_config_text, values, ANSWER, HT_EINVAL,                                             \
      ht_store_config_text(names1, NULL, 1, f->buf, sizeof f->buf))                                \
    X(ht_store_config_text, buf, ANSWER, 4, ht_store_config_text(names1, values1, 1, NULL, 64))    \
    X(ht_store_put_eval, store, NAMED, HT_EINVAL, ht_store_put_eval(NULL, &f->ev, &f->id, err))    \
    X(ht_store_put_eval, ev, NAMED, HT_EINVAL, ht_store_put_eval(f->st, NULL, &f->id, err))        \
    X(ht_store_put_eval, id, ANSWER, HT_OK, ht_store_put_eval(f->st, &f->ev, NULL, err))           \
    X(ht_store_best, store, NAMED, HT_EINVAL, ht_store_best(NULL, 1, 1, &f->ev, err))              \
    X(ht_store_best, out, NAMED, HT_EINVAL, ht_store_best(f->st, 1, 1, NULL, err))                 \
    X(ht_store_best_unverified, store, NAMED, HT_EINVAL,                                           \
      ht_store_best_unverified(NULL, 1, 1, &f->ev, err))                                           \
    X(ht_store_best_unverified, out, NAMED, HT_EINVAL,                                             \
      ht_store_best_unverified(f->st, 1, 1, NULL, err))                                            \
    WALK_CASES(X, ht_store_list_evals, any_eval, 0, 0)                                             \
    WALK_CASES(X, ht_store_list_evals_brief, any_eval, 0, 0)                                       \
    X(ht_store_count_evals, store, NAMED, HT_EINVAL,                                               \
      ht_store_count_evals(NULL, 0, 0, &f->count, err))                                            \
    X(ht_store_count_evals, count, NAMED, HT_EINVAL, ht_store_count_evals(f->st, 0, 0, NULL, err)) \
    WALK_CASES(X, ht_store_list_problems, any_problem, 0)                                          \
    X(ht_store_list_devices, store, NAMED, HT_EINVAL,                                              \
      ht_store_list_devices(NULL, any_device, NULL, err))                                          \
    X(ht_store_list_devices, cb, NAMED, HT_EINVAL, ht_store_list_devices(f->st, NULL, NULL, err))  \
    X(ht_store_list_devices, user, ANSWER, HT_OK,                                                  \
      ht_store_list_devices(f->st, any_device, NULL, err))                                         \
    X(ht_store_forget, store, NAMED, HT_EINVAL, ht_store_forget(NULL, 1, 1, &f->count, err))       \
    X(ht_store_forget, deleted, ANSWER, HT_OK,                                                     \
      ht_store_forget(f->st, f->problem_id, f->dev_id, NULL, err))                                 \
    X(ht_store_put_tune_run, store, NAMED, HT_EINVAL,                                              \
      ht_store_put_tune_run(NULL, &f->run, &f->id, err))                                           \
    X(ht_store_put_tune_run, run, NAMED, HT_EINVAL,                                                \
      ht_store_put_tune_run(f->st, NULL, &f->id, err))                                             \
    X(ht_store_put_tune_run, id, ANSWER, HT_OK, ht_store_put_tune_run(f->st, &f->run, NULL, err))  \
    X(ht_store_put_tune_step, store, NAMED, HT_EINVAL,                                             \
      ht_store_put_tune_step(NULL, f->run_id, &f->step, err))                                      \
    X(ht_store_put_tune_step, st, NAMED, HT_EINVAL,                                                \
      ht_store_put_tune_step(f->st, f->run_id, NULL, err))                                         \
    WALK_CASES(X, ht_store_list_tune_steps, any_step, 0, 0)                                        \
    X(ht_store_put_eval_step, store, NAMED, HT_EINVAL,                                             \
      ht_store_put_eval_step(NULL, &f->ev, f->run_id, &f->step, &f->id, err))                      \
    X(ht_store_put_eval_step, ev, NAMED, HT_EINVAL,                                                \
      ht_store_put_eval_step(f->st, NULL, f->run_id, &f->step, &f->id, err))                       \
    X(ht_store_put_eval_step, st, NAMED, HT_EINVAL,                                                \
      ht_store_put_eval_step(f->st, &f->ev, f->run_id, NULL, &f->id, err))                         \
    X(ht_store_put_eval_step, id, ANSWER, HT_OK,                                                   \
      ht_store_put_eval_step(f->st, &f->ev, f->run_id, &f->step, NULL, err))                       \
    X(ht_stored_split_init, sp, ANSWER, 0, (ht_stored_split_init(NULL), 0))                        \
    X(ht_store_put_split, store, NAMED, HT_EINVAL, ht_store_put_split(NULL, &f->sp, &f->id, err))  \
    X(ht_store_put_split, sp, NAMED, HT_EINVAL, ht_store_put_split(f->st, NULL, &f->id, err))      \
    X(ht_store_put_split, id, ANSWER, HT_OK, ht_store_put_split(f->st, &f->sp, NULL, err))         \
    WALK_CASES(X, ht_store_list_splits, any_split, 0)                                              \
    X(ht_store_put_sweep_point, store, NAMED, HT_EINVAL,                                           \
      ht_store_put_sweep_point(NULL, 1, &f->pt, err))                                              \
    X(ht_store_put_sweep_point, pt, NAMED, HT_EINVAL,                                              \
      ht_store_put_sweep_point(f->st, 1, NULL, err))                                               \
    WALK_CASES(X, ht_store_list_sweep, any_point, 1)                                               \
    X(ht_store_get_split, store, NAMED, HT_EINVAL, ht_store_get_split(NULL, 1, &f->sp, err))       \
    X(ht_store_get_split, out, NAMED, HT_EINVAL, ht_store_get_split(f->st, 1, NULL, err))          \
    X(ht_store_split_errors, store, NAMED, HT_EINVAL,                                              \
      ht_store_split_errors(NULL, f->problem_id, &f->dev_id, 1, &(struct ht_split_errors){0}, err)) \
    X(ht_store_split_errors, device_ids, NAMED, HT_EINVAL,                                         \
      ht_store_split_errors(f->st, f->problem_id, NULL, 1, &(struct ht_split_errors){0}, err))     \
    X(ht_store_split_errors, out, NAMED, HT_EINVAL,                                                \
      ht_store_split_errors(f->st, f->problem_id, &f->dev_id, 1, NULL, err))                       \
    X(ht_stored_space_init, sp, ANSWER, 0, (ht_stored_space_init(NULL), 0))                        \
    X(ht_stored_space_from_counts, sp, ANSWER, 0,                                                  \
      (ht_stored_space_from_counts(NULL, &f->counts), 0))                                          \
    X(ht_stored_space_from_counts, counts, ANSWER, 0,                                              \
      (ht_stored_space_from_counts(&f->spc, NULL), f->spc.seconds == -1 ? 0 : -1))                 \
    X(ht_store_put_space, store, NAMED, HT_EINVAL, ht_store_put_space(NULL, &f->spc, err))         \
    X(ht_store_put_space, sp, NAMED, HT_EINVAL, ht_store_put_space(f->st, NULL, err))              \
    X(ht_store_get_space, store, NAMED, HT_EINVAL,                                                 \
      ht_store_get_space(NULL, 1, 1, HT_EQ3_PRODUCT, &f->spc, err))                                \
    X(ht_store_get_space, out, NAMED, HT_EINVAL,                                                   \
      ht_store_get_space(f->st, 1, 1, HT_EQ3_PRODUCT, NULL, err))                                  \
    WALK_CASES(X, ht_store_list_spaces, any_space, 0)                                              \
    X(ht_store_put_bandwidth, store, NAMED, HT_EINVAL,                                             \
      ht_store_put_bandwidth(NULL, f->dev_id, &f->bw, err))                                        \
    X(ht_store_put_bandwidth, bw, NAMED, HT_EINVAL,                                                \
      ht_store_put_bandwidth(f->st, f->dev_id, NULL, err))                                         \
    X(ht_store_get_bandwidth, store, NAMED, HT_EINVAL,                                             \
      ht_store_get_bandwidth(NULL, f->dev_id, &f->bw, err))                                        \
    X(ht_store_get_bandwidth, out, NAMED, HT_EINVAL,                                               \
      ht_store_get_bandwidth(f->st, f->dev_id, NULL, err))                                         \
    X(ht_store_put_host_memory, store, NAMED, HT_EINVAL,                                           \
      ht_store_put_host_memory(NULL, &f->hm, err))                                                 \
    X(ht_store_put_host_memory, hm, NAMED, HT_EINVAL, ht_store_put_host_memory(f->st, NULL, err))  \
    X(ht_store_get_host_memory, store, NAMED, HT_EINVAL,                                           \
      ht_store_get_host_memory(NULL, &f->hm, err))                                                 \
    X(ht_store_get_host_memory, out, NAMED, HT_EINVAL, ht_store_get_host_memory(f->st, NULL, err)) \
    X(ht_store_get_host_memory_of, store, NAMED, HT_EINVAL,                                        \
      ht_store_get_host_memory_of(NULL, "node1", &f->hm, err))                                     \
    X(ht_store_get_host_memory_of, hostname, ANSWER, HT_ENOTFOUND,                                 \
      ht_store_get_host_memory_of(f->st, NULL, &f->hm, err))                                       \
    X(ht_store_get_host_memory_of, out, NAMED, HT_EINVAL,                                          \
      ht_store_get_host_memory_of(f->st, "node1", NULL, err))                                      \
    X(ht_store_lease_device, store, NAMED, HT_EINVAL,                                              \
      ht_store_lease_device(NULL, f->dev_id, 0, &f->stop, &f->holder, err))                        \
    X(ht_store_lease_device, stop, ANSWER, HT_OK,                                                  \
      ht_store_lease_device(f->st, f->dev_id, 0, NULL, &f->holder, err))                           \
    X(ht_store_lease_device, holder, ANSWER, HT_OK,                                                \
      ht_store_lease_device(f->st, f->dev_id, 0, &f->stop, NULL, err))                             \
    X(ht_store_release_device, store, NAMED, HT_EINVAL, ht_store_release_device(NULL, 1, err))     \
    X(ht_store_put_written, store, NAMED, HT_EINVAL, ht_store_put_written(NULL, &f->w, err))       \
    X(ht_store_put_written, w, NAMED, HT_EINVAL, ht_store_put_written(f->st, NULL, err))           \
    X(ht_store_get_written, store, NAMED, HT_EINVAL,                                               \
      ht_store_get_written(NULL, f->problem_id, "x", 0, &f->w, err))                               \
    X(ht_store_get_written, arg, NAMED, HT_EINVAL,                                                 \
      ht_store_get_written(f->st, f->problem_id, NULL, 0, &f->w, err))                             \
    X(ht_store_get_written, out, NAMED, HT_EINVAL,                                                 \
      ht_store_get_written(f->st, f->problem_id, "x", 0, NULL, err))                               \
    X(ht_present_exit_status, none, ANSWER, 0, ht_present_exit_status(HT_OK))                      \
    X(ht_present_load_sentence, l, ANSWER, 0,                                                      \
      said_nothing(f, ht_present_load_sentence(NULL, f->buf, sizeof f->buf)))                      \
    X(ht_present_load_sentence, buf, ANSWER, 0, ht_present_load_sentence(&f->load, NULL, 64))      \
    X(ht_present_split_decision, r, ANSWER, 0,                                                     \
      said_nothing(f, ht_present_split_decision(NULL, f->buf, sizeof f->buf)))                     \
    X(ht_present_split_decision, buf, ANSWER, 0, ht_present_split_decision(&f->wsr, NULL, 64))     \
    X(ht_present_split_units, r, ANSWER, 0,                                                        \
      said_nothing(f, ht_present_split_units(NULL, f->buf, sizeof f->buf)))                        \
    X(ht_present_split_units, buf, ANSWER, 0, ht_present_split_units(&f->wsr, NULL, 64))           \
    X(ht_present_split_json, spec, NAMED, HT_EINVAL,                                               \
      ht_present_split_json(NULL, &f->wso, &f->wsr, &f->text, err))                                \
    X(ht_present_split_json, opts, NAMED, HT_EINVAL,                                               \
      ht_present_split_json(f->spec, NULL, &f->wsr, &f->text, err))                                \
    X(ht_present_split_json, r, NAMED, HT_EINVAL,                                                  \
      ht_present_split_json(f->spec, &f->wso, NULL, &f->text, err))                                \
    X(ht_present_split_json, text, NAMED, HT_EINVAL,                                               \
      ht_present_split_json(f->spec, &f->wso, &f->wsr, NULL, err))                                 \
    X(ht_present_run_json, spec, NAMED, HT_EINVAL,                                                 \
      ht_present_run_json(NULL, "db", &f->wrr, 1.0, &f->text, err))                                \
    X(ht_present_run_json, db, ANSWER, HT_OK,                                                      \
      freed(f, ht_present_run_json(f->spec, NULL, &f->wrr, 1.0, &f->text, err)))                   \
    X(ht_present_run_json, r, NAMED, HT_EINVAL,                                                    \
      ht_present_run_json(f->spec, "db", NULL, 1.0, &f->text, err))                                \
    X(ht_present_run_json, text, NAMED, HT_EINVAL,                                                 \
      ht_present_run_json(f->spec, "db", &f->wrr, 1.0, NULL, err))                                 \
    X(ht_present_space_print, f, NAMED, HT_EINVAL, ht_present_space_print(NULL, &f->ps, err))      \
    X(ht_present_space_print, s, NAMED, HT_EINVAL, ht_present_space_print(stdout, NULL, err))      \
    X(ht_present_space_json, s, NAMED, HT_EINVAL, ht_present_space_json(NULL, &f->text, err))      \
    X(ht_present_space_json, text, NAMED, HT_EINVAL, ht_present_space_json(&f->ps, NULL, err))     \
    X(ht_present_plan_json, r, NAMED, HT_EINVAL,                                                   \
      ht_present_plan_json(NULL, NULL, NULL, &f->text, err))                                       \
    X(ht_present_plan_json, bus, ANSWER, HT_OK,                                                    \
      freed(f, ht_present_plan_json(&f->wpr, NULL, NULL, &f->text, err)))                          \
    X(ht_present_plan_json, names, ANSWER, HT_OK,                                                  \
      freed(f, ht_present_plan_json(&f->wpr, NULL, NULL, &f->text, err)))                          \
    X(ht_present_plan_json, text, NAMED, HT_EINVAL,                                                \
      ht_present_plan_json(&f->wpr, NULL, NULL, NULL, err))                                        \
    X(ht_present_devices_json, devs, NAMED, HT_EINVAL,                                             \
      ht_present_devices_json(NULL, 1, NULL, NULL, &f->text, err))                                 \
    X(ht_present_devices_json, bw, ANSWER, HT_OK,                                                  \
      freed(f, ht_present_devices_json(&f->dev, 1, NULL, &f->hm, &f->text, err)))                  \
    X(ht_present_devices_json, host, ANSWER, HT_OK,                                                \
      freed(f, ht_present_devices_json(&f->dev, 1, &f->bw, NULL, &f->text, err)))                  \
    X(ht_present_devices_json, text, NAMED, HT_EINVAL,                                             \
      ht_present_devices_json(&f->dev, 1, NULL, NULL, NULL, err))                                  \
    X(ht_present_tune_json, t, NAMED, HT_EINVAL, ht_present_tune_json(NULL, &f->text, err))        \
    X(ht_present_tune_json, text, NAMED, HT_EINVAL, ht_present_tune_json(&f->pt_tune, NULL, err))  \
    X(ht_present_eval_json, e, NAMED, HT_EINVAL, ht_present_eval_json(NULL, &f->text, err))        \
    X(ht_present_eval_json, text, NAMED, HT_EINVAL, ht_present_eval_json(&f->pe, NULL, err))       \
    X(ht_present_report_json, db, ANSWER, HT_OK,                                                   \
      freed(f, ht_present_report_json(NULL, "out", &f->rr, &f->text, err)))                        \
    X(ht_present_report_json, out, ANSWER, HT_OK,                                                  \
      freed(f, ht_present_report_json("db", NULL, &f->rr, &f->text, err)))                         \
    X(ht_present_report_json, res, NAMED, HT_EINVAL,                                               \
      ht_present_report_json("db", "out", NULL, &f->text, err))                                    \
    X(ht_present_report_json, text, NAMED, HT_EINVAL,                                              \
      ht_present_report_json("db", "out", &f->rr, NULL, err))                                      \
    MPI_CASES(X, ht_present_mpi_tune, &f->mtr)                                                     \
    MPI_CASES(X, ht_present_mpi_split, &f->msr)

NULL_CASES(NULL_CASE_CALLS)
static const struct null_case cases[] = {NULL_CASES(NULL_CASE_ENTRIES)};

static struct fx *fx_new(void)
{
    static struct fx f; /* large: not on the stack */
    fx_make(&f);
    return &f;
}

static void test_null_arguments(void **state)
{
    (void)state;
    null_cases_run((struct null_table){cases, sizeof cases / sizeof cases[0]}, fx_new);
}

static void test_headers_covered(void **state)
{
    static const char *const headers[] = {"store.h", "present.h"};
    const struct null_table table = {cases, sizeof cases / sizeof cases[0]};
    (void)state;

    /* store.h alone declares dozens. */
    null_headers_covered(headers, 2, &table, 1, 60, "test_api_null.c");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headers_covered),
        cmocka_unit_test(test_null_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
