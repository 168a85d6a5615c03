/* Misuse of the search's, space's, report's, interop's, MPI's, supervisor's, prediction's
 * and util's API is an error, never a crash: every function declared in
 * include/hetune/search.h, space.h, report.h, interop.h, mpi.h, supervise.h, predict.h and
 * util.h is called with NULL in each of its pointer arguments in turn, the others valid,
 * each in a child process of its own (api-null-test.h, shared with test_api_null.c and
 * test_api_null_exec.c). A NULL the function cannot do without is HT_EINVAL with err->text
 * "... ARG is NULL" (and HT_EINVAL again with err NULL); a NULL it takes is its documented
 * answer; a function without an err answers its documented failure value. Two more cases
 * give the interop's functions err NULL where they fail for another reason: they wrote
 * into err as they went.
 *
 * No case needs an OpenCL device (the device is a struct filled by hand) nor MPI: the MPI
 * functions refuse a NULL before MPI starts, in a build with MPI or without, and their one
 * NULL that is taken (ht_mpi_tune's opts) is given a spec that is refused before MPI starts
 * too. ht_supervise with opts NULL runs this program again (/proc/self/exe), which main
 * answers at once. */
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

/* One parameter over two values, for the space and the search. */
static const char spec_json[] =
    "{ \"name\": \"null_search\",\n"
    "  \"kernel\": { \"source\": \"__kernel void scale(__global float *x) {\\n"
    "  x[get_global_id(0)] *= 2.0f; }\", \"name\": \"scale\" },\n"
    "  \"sizes\": { \"N\": 64 },\n"
    "  \"ndrange\": { \"global\": [\"N\"], \"local\": [\"WG\"] },\n"
    "  \"params\": { \"WG\": { \"values\": [8, 16] } },\n"
    "  \"args\": [ { \"name\": \"x\", \"type\": \"float\", \"shape\": [\"N\"],\n"
    "              \"access\": \"readwrite\", \"index\": [\"gx\"] } ] }\n";

/* No parameter: ht_mpi_tune refuses it before MPI starts ("nothing to tune"). */
static const char flat_json[] =
    "{ \"name\": \"null_search_flat\",\n"
    "  \"kernel\": { \"source\": \"__kernel void scale(__global float *x) {}\",\n"
    "              \"name\": \"scale\" },\n"
    "  \"sizes\": { \"N\": 64 },\n"
    "  \"ndrange\": { \"global\": [\"N\"] },\n"
    "  \"args\": [ { \"name\": \"x\", \"type\": \"float\", \"shape\": [\"N\"],\n"
    "              \"access\": \"readwrite\" } ] }\n";

/* The argument main answers at once: ht_supervise's child (opts NULL runs this program). */
#define CHILD_ARG "--null-supervised-child"

static char tmp_dir[] = "/tmp/hetune-test-api-null-search-XXXXXX";
static char self_t1[4200]; /* tests/fixtures/interop/vecadd-t1.json */
static char bad_t1[sizeof tmp_dir + 16]; /* not JSON */
/* T1 files that fail deep inside the import, for err NULL: absent, a field the format does
 * not have, values Python cannot read, a condition naming no parameter. */
static char absent_t1[sizeof tmp_dir + 16], field_t1[sizeof tmp_dir + 16],
    values_t1[sizeof tmp_dir + 16], cond_t1[sizeof tmp_dir + 16];

/* What a case's call is given: valid arguments for every pointer but the one under test,
 * and somewhere for its outputs. Made afresh in each child. */
struct fx {
    struct ht_spec *spec, *flat;
    struct ht_device_info dev; /* filled by hand: no OpenCL handles */
    struct ht_space *space, *sout;
    struct ht_space_ranker *ranker, *rout;
    struct ht_space_counts counts;
    struct ht_space_list_opts lo;
    enum ht_space_list_format lf;
    enum ht_eq3 eq3;
    FILE *null;
    int64_t configs[2];
    struct ht_search_space ss;
    struct ht_search_opts so;
    struct ht_search *s, *sr;
    struct ht_store *st;
    struct ht_report_opts ro;
    struct ht_report_result rr;
    struct ht_mpi_tune_result mtr;
    struct ht_mpi_split_result msr;
    struct ht_workflow_split_opts wso;
    struct ht_supervise_opts svo;
    struct ht_supervise_result svr;
    struct ht_predict_opts po;
    struct ht_predict_result pr;
    char *text, *notes;
    char *argv[3];
    size_t index;
    double cost, work[2], t[2], a, b;
    int64_t vars[64], config[1];
    uint64_t global[3], local[3], written;
    char path[sizeof tmp_dir + 32];
    char buf[256];
    struct ht_error err; /* what a call that answers without err said */
};

static const char *const kt_names[] = {"block_size_x", "N"};

static void fx_make(struct fx *f)
{
    struct ht_stored_eval ev;
    struct ht_error err;
    int64_t dev_id = 0, kernel_id = 0, problem_id = 0;

    memset(f, 0, sizeof *f);
    ht_error_clear(&err);
    if (ht_spec_load_buffer(spec_json, 0, NULL, &f->spec, &err) != HT_OK ||
        ht_spec_load_buffer(flat_json, 0, NULL, &f->flat, &err) != HT_OK)
        die("fixture spec", err.text);
    null_device(&f->dev);
    f->config[0] = 8;
    ht_space_vars(&f->spec->space, &f->dev, f->config, f->vars);
    if (ht_space_create(&f->spec->space, &f->dev, HT_EQ3_OFF, &f->space, &err) != HT_OK ||
        ht_space_ranker_create(f->space, &f->ranker) != HT_OK)
        die("fixture space", err.text);
    f->null = fopen("/dev/null", "w");
    if (!f->null)
        die("fixture", "cannot open /dev/null");

    f->configs[0] = 8;
    f->configs[1] = 16;
    f->ss = (struct ht_search_space){2, 1, f->configs, NULL, NULL};
    ht_search_opts_init(&f->so);
    if (ht_search_create("exhaustive", &f->ss, &f->so, &f->s, &err) != HT_OK ||
        ht_search_create("exhaustive", &f->ss, &f->so, &f->sr, &err) != HT_OK ||
        ht_search_report(f->sr, 0, 1.0) != HT_OK)
        die("fixture search", err.text);

    /* A store with one evaluation of the spec on the device: something to report and
     * export. */
    if (ht_store_open(":memory:", &f->st, &err) != HT_OK ||
        ht_store_device_id(f->st, &f->dev, &dev_id, &err) != HT_OK ||
        ht_store_kernel_id(f->st, f->spec, &kernel_id, &err) != HT_OK ||
        ht_store_problem_id(f->st, kernel_id, f->spec, &problem_id, &err) != HT_OK)
        die("fixture store", err.text);
    ht_stored_eval_init(&ev);
    ev.device_id = dev_id;
    ev.problem_id = problem_id;
    snprintf(ev.config, sizeof ev.config, "WG=8");
    ev.nvalues = 1;
    ev.values[0] = 8;
    snprintf(ev.status, sizeof ev.status, "%s", HT_STORE_OK);
    ev.seconds = ev.min_seconds = 1e-3;
    ev.verified = 1;
    if (ht_store_put_eval(f->st, &ev, NULL, &err) != HT_OK)
        die("fixture eval", err.text);
    ht_report_opts_init(&f->ro);
    f->ro.gnuplot = ""; /* no pictures: nothing outside the folder runs */
    ht_workflow_split_opts_init(&f->wso);

    f->argv[0] = "null-child";
    f->argv[1] = CHILD_ARG;
    f->svo.path = "/proc/self/exe";
    f->work[0] = 1, f->work[1] = 2;
    f->t[0] = 1, f->t[1] = 2;
    ht_predict_opts_init(&f->po);
    snprintf(f->path, sizeof f->path, "%s/model.mzn", tmp_dir);
    snprintf(f->buf, sizeof f->buf, "untouched");
    ht_error_clear(&f->err);
}

static struct fx *fx_new(void)
{
    static struct fx f; /* large: not on the stack */
    fx_make(&f);
    return &f;
}

/* 0 when a void call into buf left it as it was ("untouched"). */
static int untouched(struct fx *f)
{
    return strcmp(f->buf, "untouched") == 0 ? 0 : -1;
}

/* The answer of a call that made something, which is freed. */
static int freed(struct fx *f, int rc)
{
    ht_space_free(f->sout);
    ht_space_ranker_free(f->rout);
    ht_search_free(f->s);
    ht_report_result_destroy(&f->rr);
    ht_supervise_result_destroy(&f->svr);
    free(f->text);
    free(f->notes);
    f->sout = NULL;
    f->rout = NULL;
    f->s = NULL;
    f->text = f->notes = NULL;
    return rc;
}

/* The answer of a call whose NULL was taken, -1 when err says a NULL was refused instead. */
static int taken(struct ht_error *err, int rc)
{
    return err && strstr(err->text, "is NULL") ? -1 : rc;
}

/* The child's exit status when ht_supervise ran it (rc HT_OK), else rc. */
static int child_status(struct fx *f, int rc)
{
    return rc == HT_OK ? f->svr.status : rc;
}

/* A visit that walks everything. */
static int any_config(const int64_t *config, void *user)
{
    (void)config, (void)user;
    return 0;
}

/* ht_mpi_refusal under a launcher of two processes: NULL is no command of those that run
 * over MPI, so it is refused (0 when it was). */
static int refused_null_command(void)
{
    setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    return ht_mpi_refusal(NULL) ? 0 : -1;
}

/* The search's cases. */
#define SEARCH_CASES(X)                                                                            \
    X(ht_search_opts_init, opts, ANSWER, 0, (ht_search_opts_init(NULL), 0))                        \
    X(ht_search_find, name, ANSWER, 0, ht_search_find(NULL) == NULL ? 0 : -1)                      \
    X(ht_search_create, strategy, NAMED, HT_EINVAL,                                                \
      ht_search_create(NULL, &f->ss, &f->so, &f->s, err))                                          \
    X(ht_search_create, space, NAMED, HT_EINVAL,                                                   \
      ht_search_create("random", NULL, &f->so, &f->s, err))                                        \
    X(ht_search_create, opts, ANSWER, HT_OK,                                                       \
      freed(f, ht_search_create("random", &f->ss, NULL, &f->s, err)))                              \
    X(ht_search_create, out, NAMED, HT_EINVAL,                                                     \
      ht_search_create("random", &f->ss, &f->so, NULL, err))                                       \
    X(ht_search_free, s, ANSWER, 0, (ht_search_free(NULL), 0))                                     \
    X(ht_search_name, s, ANSWER, 0, ht_search_name(NULL) == NULL ? 0 : -1)                         \
    X(ht_search_next, s, ANSWER, HT_EINVAL, ht_search_next(NULL, &f->index))                       \
    X(ht_search_next, index, ANSWER, HT_EINVAL, ht_search_next(f->s, NULL))                        \
    X(ht_search_report, s, ANSWER, HT_EINVAL, ht_search_report(NULL, 0, 1.0))                      \
    X(ht_search_report_config, s, ANSWER, HT_EINVAL,                                               \
      ht_search_report_config(NULL, f->configs, 1.0, &f->index))                                   \
    X(ht_search_report_config, config, ANSWER, HT_EINVAL,                                          \
      ht_search_report_config(f->s, NULL, 1.0, &f->index))                                         \
    X(ht_search_report_config, index, ANSWER, HT_OK,                                               \
      ht_search_report_config(f->s, f->configs, 1.0, NULL))                                        \
    X(ht_search_config, s, ANSWER, 0, ht_search_config(NULL, 0) == NULL ? 0 : -1)                  \
    X(ht_search_best, s, ANSWER, HT_EINVAL, ht_search_best(NULL, &f->index, &f->cost))             \
    X(ht_search_best, index, ANSWER, HT_OK, ht_search_best(f->sr, NULL, &f->cost))                 \
    X(ht_search_best, cost, ANSWER, HT_OK, ht_search_best(f->sr, &f->index, NULL))

/* The space's cases. */
#define SPACE_CASES(X)                                                                             \
    X(ht_space_param_slot, def, ANSWER, 0, ht_space_param_slot(NULL, 0) == SIZE_MAX ? 0 : -1)      \
    X(ht_space_devvar_slot, def, ANSWER, 0,                                                        \
      ht_space_devvar_slot(NULL, HT_DEVVAR_COMPUTE_UNITS) == SIZE_MAX ? 0 : -1)                    \
    X(ht_space_vars, def, ANSWER, 0, (ht_space_vars(NULL, &f->dev, f->config, f->vars), 0))       \
    X(ht_space_vars, dev, ANSWER, 0,                                                               \
      (ht_space_vars(&f->spec->space, NULL, f->config, f->vars),                                   \
       f->vars[ht_space_devvar_slot(&f->spec->space, HT_DEVVAR_COMPUTE_UNITS)] != 0))              \
    X(ht_space_vars, params, ANSWER, 0,                                                            \
      (ht_space_vars(&f->spec->space, &f->dev, NULL, f->vars),                                     \
       f->vars[ht_space_param_slot(&f->spec->space, 0)] != 0))                                     \
    X(ht_space_vars, vars, ANSWER, 0, (ht_space_vars(&f->spec->space, &f->dev, f->config, NULL), 0)) \
    X(ht_space_ndrange, def, NAMED, HT_EINVAL,                                                     \
      ht_space_ndrange(NULL, f->vars, f->global, f->local, err))                                   \
    X(ht_space_ndrange, vars, NAMED, HT_EINVAL,                                                    \
      ht_space_ndrange(&f->spec->space, NULL, f->global, f->local, err))                           \
    X(ht_space_ndrange, global, NAMED, HT_EINVAL,                                                  \
      ht_space_ndrange(&f->spec->space, f->vars, NULL, f->local, err))                             \
    X(ht_space_ndrange, local, NAMED, HT_EINVAL,                                                   \
      ht_space_ndrange(&f->spec->space, f->vars, f->global, NULL, err))                            \
    X(ht_eq3_parse, s, ANSWER, HT_EINVAL, ht_eq3_parse(NULL, &f->eq3))                             \
    X(ht_eq3_parse, out, ANSWER, HT_EINVAL, ht_eq3_parse("sum", NULL))                             \
    X(ht_space_check, def, NAMED, HT_EINVAL,                                                       \
      ht_space_check(NULL, &f->dev, f->config, HT_EQ3_OFF, err))                                   \
    X(ht_space_check, dev, NAMED, HT_EINVAL,                                                       \
      ht_space_check(&f->spec->space, NULL, f->config, HT_EQ3_OFF, err))                           \
    X(ht_space_check, params, NAMED, HT_EINVAL,                                                    \
      ht_space_check(&f->spec->space, &f->dev, NULL, HT_EQ3_OFF, err))                             \
    X(ht_space_def_destroy, def, ANSWER, 0, (ht_space_def_destroy(NULL), 0))                       \
    X(ht_space_create, def, NAMED, HT_EINVAL,                                                      \
      ht_space_create(NULL, &f->dev, HT_EQ3_OFF, &f->sout, err))                                   \
    X(ht_space_create, dev, NAMED, HT_EINVAL,                                                      \
      ht_space_create(&f->spec->space, NULL, HT_EQ3_OFF, &f->sout, err))                           \
    X(ht_space_create, out, NAMED, HT_EINVAL,                                                      \
      ht_space_create(&f->spec->space, &f->dev, HT_EQ3_OFF, NULL, err))                            \
    X(ht_space_free, s, ANSWER, 0, (ht_space_free(NULL), 0))                                       \
    X(ht_space_get_def, s, ANSWER, 0, ht_space_get_def(NULL) == NULL ? 0 : -1)                     \
    X(ht_space_get_device, s, ANSWER, 0, ht_space_get_device(NULL) == NULL ? 0 : -1)               \
    X(ht_space_get_eq3, s, ANSWER, HT_EQ3_PRODUCT, (int)ht_space_get_eq3(NULL))                    \
    X(ht_space_domain_size, s, ANSWER, 0, (int)ht_space_domain_size(NULL, 0))                      \
    X(ht_space_domain_value, s, ANSWER, 0, (int)ht_space_domain_value(NULL, 0, 0))                 \
    X(ht_space_count, s, NAMED, HT_EINVAL, ht_space_count(NULL, &f->counts, err))                  \
    X(ht_space_count, out, NAMED, HT_EINVAL, ht_space_count(f->space, NULL, err))                  \
    X(ht_space_foreach, s, ANSWER, HT_EINVAL, ht_space_foreach(NULL, any_config, NULL))            \
    X(ht_space_foreach, cb, ANSWER, HT_EINVAL, ht_space_foreach(f->space, NULL, NULL))             \
    X(ht_space_foreach, user, ANSWER, HT_OK, ht_space_foreach(f->space, any_config, NULL))         \
    X(ht_space_ranker_create, s, ANSWER, HT_EINVAL, ht_space_ranker_create(NULL, &f->rout))        \
    X(ht_space_ranker_create, out, ANSWER, HT_EINVAL, ht_space_ranker_create(f->space, NULL))      \
    X(ht_space_ranker_count, r, ANSWER, 0, (int)ht_space_ranker_count(NULL))                       \
    X(ht_space_unrank, r, ANSWER, HT_EINVAL, ht_space_unrank(NULL, 0, f->config))                  \
    X(ht_space_unrank, config, ANSWER, HT_EINVAL, ht_space_unrank(f->ranker, 0, NULL))             \
    X(ht_space_ranker_free, r, ANSWER, 0, (ht_space_ranker_free(NULL), 0))                         \
    X(ht_space_list_format_parse, s, ANSWER, HT_EINVAL, ht_space_list_format_parse(NULL, &f->lf))  \
    X(ht_space_list_format_parse, out, ANSWER, HT_EINVAL,                                          \
      ht_space_list_format_parse("text", NULL))                                                    \
    X(ht_space_list, s, ANSWER, HT_EINVAL, ht_space_list(NULL, f->null, &f->lo, &f->written))      \
    X(ht_space_list, f, ANSWER, HT_EINVAL, ht_space_list(f->space, NULL, &f->lo, &f->written))     \
    X(ht_space_list, o, ANSWER, HT_EINVAL, ht_space_list(f->space, f->null, NULL, &f->written))    \
    X(ht_space_list, written, ANSWER, HT_OK, ht_space_list(f->space, f->null, &f->lo, NULL))       \
    X(ht_space_list_configs, s, ANSWER, HT_EINVAL,                                                 \
      ht_space_list_configs(NULL, f->configs, 2, f->null, &f->lo))                                 \
    X(ht_space_list_configs, configs, ANSWER, HT_EINVAL,                                           \
      ht_space_list_configs(f->space, NULL, 2, f->null, &f->lo))                                   \
    X(ht_space_list_configs, f, ANSWER, HT_EINVAL,                                                 \
      ht_space_list_configs(f->space, f->configs, 2, NULL, &f->lo))                                \
    X(ht_space_list_configs, o, ANSWER, HT_EINVAL,                                                 \
      ht_space_list_configs(f->space, f->configs, 2, f->null, NULL))                               \
    X(ht_space_backend_find, name, ANSWER, 0, ht_space_backend_find(NULL) == NULL ? 0 : -1)        \
    X(ht_space_write_minizinc, def, NAMED, HT_EINVAL,                                              \
      ht_space_write_minizinc(NULL, HT_EQ3_OFF, 0, f->path, err))                                  \
    X(ht_space_write_minizinc, path, NAMED, HT_EINVAL,                                             \
      ht_space_write_minizinc(&f->spec->space, HT_EQ3_OFF, 0, NULL, err))

/* The report's, interop's, MPI's, supervisor's, prediction's and util's cases. */
#define OTHER_CASES(X)                                                                             \
    X(ht_report_opts_init, opts, ANSWER, 0, (ht_report_opts_init(NULL), 0))                        \
    X(ht_report_write, store, NAMED, HT_EINVAL,                                                    \
      ht_report_write(NULL, tmp_dir, &f->ro, &f->rr, err))                                         \
    X(ht_report_write, dir, NAMED, HT_EINVAL, ht_report_write(f->st, NULL, &f->ro, &f->rr, err))   \
    X(ht_report_write, opts, ANSWER, HT_OK,                                                        \
      freed(f, ht_report_write(f->st, tmp_dir, NULL, &f->rr, err)))                                \
    X(ht_report_write, out, ANSWER, HT_OK, ht_report_write(f->st, tmp_dir, &f->ro, NULL, err))     \
    X(ht_report_result_destroy, r, ANSWER, 0, (ht_report_result_destroy(NULL), 0))                 \
    X(ht_kt_import_t1, t1_path, NAMED, HT_EINVAL,                                                  \
      ht_kt_import_t1(NULL, tmp_dir, &f->text, &f->notes, err))                                    \
    X(ht_kt_import_t1, spec_dir, ANSWER, HT_OK,                                                    \
      freed(f, ht_kt_import_t1(self_t1, NULL, &f->text, &f->notes, err)))                          \
    X(ht_kt_import_t1, spec_json, NAMED, HT_EINVAL,                                                \
      ht_kt_import_t1(self_t1, tmp_dir, NULL, &f->notes, err))                                     \
    X(ht_kt_import_t1, notes, ANSWER, HT_OK,                                                       \
      freed(f, ht_kt_import_t1(self_t1, tmp_dir, &f->text, NULL, err)))                            \
    X(ht_kt_expression, python, NAMED, HT_EINVAL,                                                  \
      ht_kt_expression(NULL, kt_names, 2, &f->text, err))                                          \
    X(ht_kt_expression, names, NAMED, HT_EINVAL,                                                   \
      ht_kt_expression("block_size_x > 8", NULL, 2, &f->text, err))                                \
    X(ht_kt_expression, c_expr, NAMED, HT_EINVAL,                                                  \
      ht_kt_expression("block_size_x > 8", kt_names, 2, NULL, err))                                \
    X(ht_export_t4, store, NAMED, HT_EINVAL, ht_export_t4(NULL, NULL, &f->text, err))              \
    X(ht_export_t4, filter, ANSWER, HT_OK, freed(f, ht_export_t4(f->st, NULL, &f->text, err)))     \
    X(ht_export_t4, json, NAMED, HT_EINVAL, ht_export_t4(f->st, NULL, NULL, err))                  \
    X(ht_export_header, store, NAMED, HT_EINVAL, ht_export_header(NULL, NULL, &f->text, err))      \
    X(ht_export_header, filter, ANSWER, HT_OK,                                                     \
      freed(f, ht_export_header(f->st, NULL, &f->text, err)))                                      \
    X(ht_export_header, text, NAMED, HT_EINVAL, ht_export_header(f->st, NULL, NULL, err))          \
    X(ht_mpi_built, none, ANSWER, 0, ht_mpi_built() == 0 || ht_mpi_built() == 1 ? 0 : -1)          \
    X(ht_mpi_nodes, none, ANSWER, 0, ht_mpi_nodes() ? 0 : -1)                                      \
    X(ht_mpi_env_size, none, ANSWER, 1, ht_mpi_env_size())                                         \
    X(ht_mpi_refusal, command, ANSWER, 0, refused_null_command())                                  \
    X(ht_mpi_tune, spec, NAMED, HT_EINVAL, ht_mpi_tune(NULL, NULL, &f->mtr, err))                  \
    X(ht_mpi_tune, opts, ANSWER, HT_EINVAL, taken(err, ht_mpi_tune(f->flat, NULL, &f->mtr, err)))  \
    X(ht_mpi_tune, out, NAMED, HT_EINVAL, ht_mpi_tune(f->flat, NULL, NULL, err))                   \
    X(ht_mpi_tune_result_destroy, r, ANSWER, 0, (ht_mpi_tune_result_destroy(NULL), 0))             \
    X(ht_mpi_split, spec, NAMED, HT_EINVAL, ht_mpi_split(NULL, "0", &f->wso, &f->msr, err))        \
    X(ht_mpi_split, device, ANSWER, HT_EINVAL,                                                     \
      taken(err, (f->wso.dop = 1, ht_mpi_split(f->spec, NULL, &f->wso, &f->msr, err))))            \
    X(ht_mpi_split, opts, NAMED, HT_EINVAL, ht_mpi_split(f->spec, "0", NULL, &f->msr, err))        \
    X(ht_mpi_split, out, NAMED, HT_EINVAL, ht_mpi_split(f->spec, "0", &f->wso, NULL, err))         \
    X(ht_mpi_split_result_destroy, r, ANSWER, 0, (ht_mpi_split_result_destroy(NULL), 0))           \
    X(ht_supervise, argv, NAMED, HT_EINVAL, ht_supervise(NULL, &f->svo, &f->svr, err))             \
    X(ht_supervise, opts, ANSWER, HT_OK,                                                           \
      freed(f, child_status(f, ht_supervise(f->argv, NULL, &f->svr, err))))                        \
    X(ht_supervise, res, NAMED, HT_EINVAL, ht_supervise(f->argv, &f->svo, NULL, err))              \
    X(ht_supervise_result_destroy, r, ANSWER, 0, (ht_supervise_result_destroy(NULL), 0))           \
    X(ht_supervised, none, ANSWER, 0, ht_supervised())                                             \
    X(ht_supervised_lost, reason, ANSWER, 0, ht_supervised_lost(0, NULL, 64))                      \
    X(ht_predict_fit, work, ANSWER, HT_EINVAL, ht_predict_fit(NULL, f->t, 2, &f->a, &f->b))        \
    X(ht_predict_fit, t, ANSWER, HT_EINVAL, ht_predict_fit(f->work, NULL, 2, &f->a, &f->b))        \
    X(ht_predict_fit, a, ANSWER, HT_EINVAL, ht_predict_fit(f->work, f->t, 2, NULL, &f->b))         \
    X(ht_predict_fit, b, ANSWER, HT_EINVAL, ht_predict_fit(f->work, f->t, 2, &f->a, NULL))         \
    X(ht_predict_opts_init, opts, ANSWER, 0, (ht_predict_opts_init(NULL), 0))                      \
    X(ht_predict_best, spec, NAMED, HT_EINVAL,                                                     \
      ht_predict_best(NULL, f->st, &f->dev, &f->po, &f->pr, err))                                  \
    X(ht_predict_best, store, NAMED, HT_EINVAL,                                                    \
      ht_predict_best(f->spec, NULL, &f->dev, &f->po, &f->pr, err))                                \
    X(ht_predict_best, dev, NAMED, HT_EINVAL,                                                      \
      ht_predict_best(f->spec, f->st, NULL, &f->po, &f->pr, err))                                  \
    X(ht_predict_best, opts, ANSWER, HT_ENOTFOUND,                                                 \
      ht_predict_best(f->spec, f->st, &f->dev, NULL, &f->pr, err))                                 \
    X(ht_predict_best, out, NAMED, HT_EINVAL,                                                      \
      ht_predict_best(f->spec, f->st, &f->dev, &f->po, NULL, err))                                 \
    X(ht_format_seconds, buf, ANSWER, 0, (ht_format_seconds(1.0, NULL, 64), untouched(f)))         \
    X(ht_format_bytes, buf, ANSWER, 0, (ht_format_bytes(1024, NULL, 64), untouched(f)))

#define NULL_CASES(X) SEARCH_CASES(X) SPACE_CASES(X) OTHER_CASES(X)

/* err NULL where the call fails for another reason, deep inside: the interop's translation
 * writes into an error as it goes (the first kept) and crashed without one; a missing file,
 * a field the format lacks, values and expressions that fail must answer their code. */
#define ERR_CASES(X)                                                                               \
    X(ht_kt_expression, err, ANSWER, HT_ESPEC,                                                     \
      ht_kt_expression("block_size_x ** 2", kt_names, 2, &f->text, NULL))                          \
    X(ht_kt_import_t1, err, ANSWER, HT_EPARSE,                                                     \
      ht_kt_import_t1(bad_t1, NULL, &f->text, &f->notes, NULL))                                    \
    X(ht_kt_import_t1, err_absent, ANSWER, HT_EIO,                                                 \
      ht_kt_import_t1(absent_t1, NULL, &f->text, &f->notes, NULL))                                 \
    X(ht_kt_import_t1, err_field, ANSWER, HT_ESPEC,                                                \
      ht_kt_import_t1(field_t1, NULL, &f->text, &f->notes, NULL))                                  \
    X(ht_kt_import_t1, err_values, ANSWER, HT_ESPEC,                                               \
      ht_kt_import_t1(values_t1, NULL, &f->text, &f->notes, NULL))                                 \
    X(ht_kt_import_t1, err_cond, ANSWER, HT_EEXPR,                                                 \
      ht_kt_import_t1(cond_t1, NULL, &f->text, &f->notes, NULL))                                   \
    X(ht_kt_expression, err_name, ANSWER, HT_EEXPR,                                                \
      ht_kt_expression("nosuch > 1", kt_names, 2, &f->text, NULL))                                 \
    X(ht_kt_expression, err_div, ANSWER, HT_ESPEC,                                                 \
      ht_kt_expression("block_size_x / 3 + 1 > 2", kt_names, 2, &f->text, NULL))

NULL_CASES(NULL_CASE_CALLS)
ERR_CASES(NULL_CASE_CALLS)
static const struct null_case cases[] = {NULL_CASES(NULL_CASE_ENTRIES)};
static const struct null_case err_cases[] = {ERR_CASES(NULL_CASE_ENTRIES)};
static const struct null_table tables[] = {{cases, sizeof cases / sizeof cases[0]}};

static void test_headers_covered(void **state)
{
    static const char *const headers[] = {"search.h", "space.h",     "report.h",  "interop.h",
                                          "mpi.h",    "supervise.h", "predict.h", "util.h"};
    (void)state;

    /* The eight declare 59 functions. */
    null_headers_covered(headers, 8, tables, 1, 55, "test_api_null_search.c");
}

static void test_null_arguments(void **state)
{
    (void)state;
    /* The err cases first: they are not the headers' arguments (not in tables). */
    null_cases_run((struct null_table){err_cases, sizeof err_cases / sizeof err_cases[0]},
                   fx_new);
    null_cases_run(tables[0], fx_new);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headers_covered),
        cmocka_unit_test(test_null_arguments),
    };
    char root[4096];
    int rc;

    if (argc > 1 && strcmp(argv[1], CHILD_ARG) == 0)
        return 0; /* ht_supervise's child */
    source_root(root, sizeof root);
    snprintf(self_t1, sizeof self_t1, "%s/tests/fixtures/interop/vecadd-t1.json", root);
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(bad_t1, sizeof bad_t1, "%s/bad.json", tmp_dir);
    snprintf(absent_t1, sizeof absent_t1, "%s/absent.json", tmp_dir);
    snprintf(field_t1, sizeof field_t1, "%s/field.json", tmp_dir);
    snprintf(values_t1, sizeof values_t1, "%s/values.json", tmp_dir);
    snprintf(cond_t1, sizeof cond_t1, "%s/cond.json", tmp_dir);
    {
        /* One T1 file of vecadd's kind, with its parameter's values and condition. */
#define T1(values, cond)                                                                           \
    "{ \"ConfigurationSpace\": { \"TuningParameters\": [ { \"Name\": \"block_size_x\", "          \
    "\"Type\": \"int\", \"Values\": \"" values "\" } ], \"Conditions\": [ { \"Parameters\": "   \
    "[\"block_size_x\"], \"Expression\": \"" cond "\" } ] }, \"KernelSpecification\": { "        \
    "\"Language\": \"OpenCL\", \"KernelName\": \"vadd\", \"KernelFile\": \"vecadd.cl\", "      \
    "\"GlobalSize\": { \"X\": \"4096\" }, \"LocalSize\": { \"X\": \"block_size_x\" }, "         \
    "\"Arguments\": [] } }"
        const struct { const char *path, *text; } files[] = {
            {bad_t1, "{ not json"},
            {field_t1, "{ \"Bogus\": 1 }"},
            {values_t1, T1("[8, 16", "block_size_x > 8")},
            {cond_t1, T1("[8, 16]", "nosuch > 8")},
        };
#undef T1
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
            FILE *fp = fopen(files[i].path, "w");
            if (!fp || fputs(files[i].text, fp) < 0 || fclose(fp) != 0) {
                perror(files[i].path);
                return 1;
            }
        }
    }
    rc = cmocka_run_group_tests_name("api_null_search", tests, NULL, NULL);
    /* What the report and the model wrote. */
    {
        char cmd[sizeof tmp_dir + 16];
        snprintf(cmd, sizeof cmd, "rm -rf %s", tmp_dir);
        if (system(cmd) != 0)
            rc = rc ? rc : 1;
    }
    return rc;
}
