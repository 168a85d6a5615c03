/* Misuse of the execution's, spec's, platform's and expressions' API is an error, never a
 * crash: every function declared in include/hetune/exec.h, spec.h, platform.h and expr.h is
 * called with NULL in each of its pointer arguments in turn, the others valid, each in a
 * child process of its own (api-null-test.h, shared with test_api_null.c). A NULL the
 * function cannot do without is HT_EINVAL with err->text "... ARG is NULL" (and HT_EINVAL
 * again with err NULL); a NULL it takes is its documented answer.
 *
 * Most cases need no OpenCL: a NULL is refused before the device is touched, so the device is
 * a struct filled by hand. Those whose other arguments need a real device (a session to
 * evaluate or dump, a session or a bandwidth measured with default options) run afterwards on
 * PoCL's first device, POCL_DEVICES="pthread basic" unless set; with no OpenCL platform they
 * are skipped and the test exits 77. The platform is discovered in each child only: PoCL's
 * threads do not survive a fork. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hetune.h"

#include "api-null-test.h"

/* A pipeline of two stages with one parameter, for the spec's own functions: the second stage
 * runs when WG is 8. Never built. */
static const char pipe_json[] =
    "{ \"name\": \"null_exec_pipe\",\n"
    "  \"kernel\": { \"source\": \"__kernel void a(__global float *x) {}\\n"
    "__kernel void b(__global float *x) {}\", \"name\": \"a\" },\n"
    "  \"sizes\": { \"N\": 64 },\n"
    "  \"ndrange\": { \"global\": [\"N\"], \"local\": [\"WG\"] },\n"
    "  \"params\": { \"WG\": { \"values\": [8, 16] } },\n"
    "  \"args\": [ { \"name\": \"x\", \"type\": \"float\", \"shape\": [\"N\"],\n"
    "              \"access\": \"readwrite\" } ],\n"
    "  \"pipeline\": [ { \"kernel\": \"a\", \"args\": [\"x\"] },\n"
    "                { \"kernel\": \"b\", \"args\": [\"x\"], \"when\": \"WG == 8\" } ] }\n";

/* One kernel, for a session on a device. */
static const char scale_json[] =
    "{ \"name\": \"null_exec_scale\",\n"
    "  \"kernel\": { \"source\": \"__kernel void scale(__global float *x) {\\n"
    "  x[get_global_id(0)] *= 2.0f; }\", \"name\": \"scale\" },\n"
    "  \"sizes\": { \"N\": 64 },\n"
    "  \"ndrange\": { \"global\": [\"N\"], \"local\": [\"WG\"] },\n"
    "  \"params\": { \"WG\": { \"values\": [8] } },\n"
    "  \"args\": [ { \"name\": \"x\", \"type\": \"float\", \"shape\": [\"N\"],\n"
    "              \"access\": \"readwrite\" } ] }\n";

static char tmp_dir[] = "/tmp/hetune-test-api-null-XXXXXX";
static char spec_path[sizeof tmp_dir + 16]; /* pipe_json as a file, for ht_spec_load */

/* What a case's call is given: valid arguments for every pointer but the one under test,
 * and somewhere for its outputs. Made afresh in each child. */
struct fx {
    struct ht_spec *spec, *scale, *sout;
    struct ht_device_info dev; /* filled by hand: no OpenCL handles */
    const struct ht_device_info *devs[1];
    struct ht_platform plat;   /* {1, &dev} */
    struct ht_platform *real;  /* the device cases: discovered */
    const struct ht_device_info *rdev;
    struct ht_session *s, *s2;
    struct ht_exec_opts opts;
    struct ht_eval_result res;
    struct ht_bandwidth bw;
    struct ht_host_memory hm;
    struct ht_load load;
    struct ht_device_locks locks;
    struct ht_device_wait wait;
    enum ht_data_path path;
    enum ht_foreign_path fpath;
    struct ht_names names;
    struct ht_expr *e, *eout;
    char *text;
    const char *name;
    size_t name_len, index, arg, active[HT_MAX_STAGES], nactive;
    int64_t config[1], vars[64], value;
    uint64_t bytes, global[3], local[3];
    char buf[256];
};

static const char *const expr_names[] = {"N", "WG"};
static const char *const assigns[] = {"WG=8"};

static void fx_make(struct fx *f)
{
    struct ht_error err;

    memset(f, 0, sizeof *f);
    ht_error_clear(&err);
    if (ht_spec_load_buffer(pipe_json, 0, NULL, &f->spec, &err) != HT_OK ||
        ht_spec_load_buffer(scale_json, 0, NULL, &f->scale, &err) != HT_OK)
        die("fixture spec", err.text);
    f->names = (struct ht_names){2, expr_names};
    if (ht_expr_compile("N / WG", &f->names, &f->e, &err) != HT_OK)
        die("fixture expression", err.text);
    null_device(&f->dev);
    f->devs[0] = &f->dev;
    f->plat = (struct ht_platform){1, &f->dev};
    f->config[0] = 8;
    ht_space_vars(&f->spec->space, &f->dev, f->config, f->vars);
    ht_exec_opts_init(&f->opts);
    f->opts.isolate = HT_ISOLATE_OFF;
    snprintf(f->buf, sizeof f->buf, "untouched");
    /* ht_device_write_dzn with dir NULL writes into the current folder: tmp_dir, where
     * null_suite_run runs the cases. */
}

static struct fx *fx_new(void)
{
    static struct fx f; /* large: not on the stack */
    fx_make(&f);
    return &f;
}

/* With a session of the scale spec on PoCL's first device, in this process. */
static struct fx *fx_new_device(void)
{
    struct fx *f = fx_new();
    struct ht_error err;

    ht_error_clear(&err);
    f->rdev = null_discover(&f->real);
    if (ht_session_create(f->scale, f->rdev, &f->opts, &f->s, &err) != HT_OK)
        die("fixture session", err.text);
    return f;
}

/* The answer of a call that made something (a spec, an expression or a session), which is
 * freed. */
static int freed(struct fx *f, int rc)
{
    ht_spec_free(f->sout);
    ht_expr_free(f->eout);
    ht_session_free(f->s2);
    f->sout = NULL;
    f->eout = NULL;
    f->s2 = NULL;
    return rc;
}

static int released(struct fx *f, int rc)
{
    ht_device_locks_release(&f->locks, NULL);
    return rc;
}

/* 0 when a void call into buf left it empty (it held "untouched"). */
static int emptied(struct fx *f)
{
    return f->buf[0] == '\0' ? 0 : -1;
}

/* The .dzn of f->dev in folder dir removed: the answer rc. */
static int dzn_removed(int rc, const char *dir)
{
    char path[sizeof tmp_dir + 32];
    snprintf(path, sizeof path, "%s/0_null_device.dzn", dir);
    return unlink(path) == 0 ? rc : -1;
}

/* The four cases of one spec function that reads vars: spec, vars, and two outputs. */
#define STAGE_CASES(X)                                                                             \
    X(ht_spec_active_stages, spec, NAMED, HT_EINVAL,                                               \
      ht_spec_active_stages(NULL, f->vars, f->active, &f->nactive, err))                           \
    X(ht_spec_active_stages, vars, NAMED, HT_EINVAL,                                               \
      ht_spec_active_stages(f->spec, NULL, f->active, &f->nactive, err))                           \
    X(ht_spec_active_stages, active, NAMED, HT_EINVAL,                                             \
      ht_spec_active_stages(f->spec, f->vars, NULL, &f->nactive, err))                             \
    X(ht_spec_active_stages, nactive, NAMED, HT_EINVAL,                                            \
      ht_spec_active_stages(f->spec, f->vars, f->active, NULL, err))                               \
    X(ht_spec_stage_ndrange, spec, NAMED, HT_EINVAL,                                               \
      ht_spec_stage_ndrange(NULL, 0, f->vars, f->global, f->local, err))                           \
    X(ht_spec_stage_ndrange, vars, NAMED, HT_EINVAL,                                               \
      ht_spec_stage_ndrange(f->spec, 0, NULL, f->global, f->local, err))                           \
    X(ht_spec_stage_ndrange, global, NAMED, HT_EINVAL,                                             \
      ht_spec_stage_ndrange(f->spec, 0, f->vars, NULL, f->local, err))                             \
    X(ht_spec_stage_ndrange, local, NAMED, HT_EINVAL,                                              \
      ht_spec_stage_ndrange(f->spec, 0, f->vars, f->global, NULL, err))                            \
    X(ht_spec_check_stages, spec, NAMED, HT_EINVAL,                                                \
      ht_spec_check_stages(NULL, &f->dev, f->config, err))                                         \
    X(ht_spec_check_stages, dev, NAMED, HT_EINVAL,                                                 \
      ht_spec_check_stages(f->spec, NULL, f->config, err))                                         \
    X(ht_spec_check_stages, config, NAMED, HT_EINVAL,                                              \
      ht_spec_check_stages(f->spec, &f->dev, NULL, err))

/* The cases that need no device: X(function, the argument passed NULL, kind, the answer
 * expected, the call), as api-null-test.h describes. */
#define NULL_CASES(X)                                                                              \
    X(ht_data_path_name, none, ANSWER, 0, ht_data_path_name(HT_PATH_AUTO) ? 0 : -1)                \
    X(ht_data_path_parse, name, ANSWER, HT_EINVAL, ht_data_path_parse(NULL, &f->path))             \
    X(ht_data_path_parse, path, ANSWER, HT_EINVAL, ht_data_path_parse("auto", NULL))               \
    X(ht_data_path_resolve, dev, ANSWER, HT_PATH_AUTO,                                             \
      (int)ht_data_path_resolve(HT_PATH_AUTO, NULL))                                               \
    X(ht_foreign_path_name, none, ANSWER, 0, ht_foreign_path_name(HT_FOREIGN_PIN) ? 0 : -1)        \
    X(ht_foreign_path_parse, name, ANSWER, HT_EINVAL, ht_foreign_path_parse(NULL, &f->fpath))      \
    X(ht_foreign_path_parse, path, ANSWER, HT_EINVAL, ht_foreign_path_parse("pin", NULL))          \
    X(ht_exec_opts_init, opts, ANSWER, 0, (ht_exec_opts_init(NULL), 0))                            \
    X(ht_eval_result_destroy, res, ANSWER, 0, (ht_eval_result_destroy(NULL), 0))                   \
    X(ht_session_create, spec, NAMED, HT_EINVAL,                                                   \
      ht_session_create(NULL, &f->dev, &f->opts, &f->s2, err))                                     \
    X(ht_session_create, dev, NAMED, HT_EINVAL,                                                    \
      ht_session_create(f->scale, NULL, &f->opts, &f->s2, err))                                    \
    X(ht_session_create, out, NAMED, HT_EINVAL,                                                    \
      ht_session_create(f->scale, &f->dev, &f->opts, NULL, err))                                   \
    X(ht_session_free, s, ANSWER, 0, (ht_session_free(NULL), 0))                                   \
    X(ht_session_isolated, s, ANSWER, 0, ht_session_isolated(NULL))                                \
    X(ht_session_eval, s, NAMED, HT_EINVAL, ht_session_eval(NULL, f->config, &f->res, err))        \
    X(ht_session_dump, s, NAMED, HT_EINVAL, ht_session_dump(NULL, tmp_dir, err))                   \
    X(ht_bandwidth_measure, dev, NAMED, HT_EINVAL,                                                 \
      ht_bandwidth_measure(NULL, &f->opts, 4096, 1, &f->bw, err))                                  \
    X(ht_bandwidth_measure, out, NAMED, HT_EINVAL,                                                 \
      ht_bandwidth_measure(&f->dev, &f->opts, 4096, 1, NULL, err))                                 \
    X(ht_host_memory_measure, out, NAMED, HT_EINVAL, ht_host_memory_measure(1, 0, 1, NULL, err))   \
    X(ht_host_memory_min_bytes, none, ANSWER, 0,                                                   \
      ht_host_memory_min_bytes(2) == 2 * 64 * sizeof(float) ? 0 : -1)                              \
    X(ht_host_memory_measure_shared, devs, NAMED, HT_EINVAL,                                       \
      ht_host_memory_measure_shared(NULL, 1, 0, 1, &f->hm, err))                                   \
    X(ht_host_memory_measure_shared, out, NAMED, HT_EINVAL,                                        \
      ht_host_memory_measure_shared(f->devs, 1, 0, 1, NULL, err))                                  \
    X(ht_load_other_cores, l, ANSWER, 0, ht_load_other_cores(NULL) == 0 ? 0 : -1)                  \
    X(ht_load_under, l, ANSWER, 0, ht_load_under(NULL))                                            \
    X(ht_load_add, dst, ANSWER, 0, (ht_load_add(NULL, &f->load), 0))                               \
    X(ht_load_add, src, ANSWER, 0, (ht_load_add(&f->load, NULL), f->load.window_s != 0))           \
    X(ht_device_locks_take, devs, NAMED, HT_EINVAL,                                                \
      ht_device_locks_take(NULL, 1, &f->wait, &f->locks, &f->load, err))                           \
    X(ht_device_locks_take, wait, ANSWER, HT_OK,                                                   \
      released(f, ht_device_locks_take(f->devs, 1, NULL, &f->locks, &f->load, err)))               \
    X(ht_device_locks_take, l, NAMED, HT_EINVAL,                                                   \
      ht_device_locks_take(f->devs, 1, &f->wait, NULL, &f->load, err))                             \
    X(ht_device_locks_take, load, ANSWER, HT_OK,                                                   \
      released(f, ht_device_locks_take(f->devs, 1, &f->wait, &f->locks, NULL, err)))               \
    X(ht_device_locks_release, l, ANSWER, 0, (ht_device_locks_release(NULL, &f->load), 0))         \
    X(ht_device_locks_release, load, ANSWER, HT_OK,                                                \
      released(f, ht_device_locks_take(f->devs, 1, &f->wait, &f->locks, &f->load, err)))           \
    X(ht_type_name, none, ANSWER, 0, ht_type_name(HT_TYPE_FLOAT) ? 0 : -1)                         \
    X(ht_type_size, none, ANSWER, 4, (int)ht_type_size(HT_TYPE_FLOAT))                             \
    X(ht_type_is_float, none, ANSWER, 1, ht_type_is_float(HT_TYPE_FLOAT))                          \
    X(ht_type_is_signed, none, ANSWER, 1, ht_type_is_signed(HT_TYPE_INT))                          \
    X(ht_kernel_language_name, none, ANSWER, 0, ht_kernel_language_name(HT_LANG_OPENCL) ? 0 : -1)  \
    X(ht_spec_load, path, NAMED, HT_EINVAL, ht_spec_load(NULL, NULL, 0, &f->sout, err))            \
    X(ht_spec_load, ov, ANSWER, HT_OK,                                                             \
      freed(f, ht_spec_load(spec_path, NULL, 0, &f->sout, err)))                                   \
    X(ht_spec_load, out, NAMED, HT_EINVAL, ht_spec_load(spec_path, NULL, 0, NULL, err))            \
    X(ht_spec_load_buffer, json, NAMED, HT_EINVAL,                                                 \
      ht_spec_load_buffer(NULL, 0, NULL, &f->sout, err))                                           \
    X(ht_spec_load_buffer, opts, ANSWER, HT_OK,                                                    \
      freed(f, ht_spec_load_buffer(pipe_json, 0, NULL, &f->sout, err)))                            \
    X(ht_spec_load_buffer, out, NAMED, HT_EINVAL,                                                  \
      ht_spec_load_buffer(pipe_json, 0, NULL, NULL, err))                                          \
    X(ht_spec_free, spec, ANSWER, 0, (ht_spec_free(NULL), 0))                                      \
    X(ht_parse_assignment, s, NAMED, HT_EINVAL,                                                    \
      ht_parse_assignment(NULL, &f->name, &f->name_len, &f->value, err))                           \
    X(ht_parse_assignment, name, NAMED, HT_EINVAL,                                                 \
      ht_parse_assignment("WG=8", NULL, &f->name_len, &f->value, err))                             \
    X(ht_parse_assignment, name_len, NAMED, HT_EINVAL,                                             \
      ht_parse_assignment("WG=8", &f->name, NULL, &f->value, err))                                 \
    X(ht_parse_assignment, value, NAMED, HT_EINVAL,                                                \
      ht_parse_assignment("WG=8", &f->name, &f->name_len, NULL, err))                              \
    X(ht_closest_word, s, ANSWER, 0, ht_closest_word(NULL, expr_names, 2) == NULL ? 0 : -1)        \
    X(ht_closest_word, words, ANSWER, 0, ht_closest_word("WG", NULL, 2) == NULL ? 0 : -1)          \
    X(ht_format_config, spec, ANSWER, 0,                                                           \
      (ht_format_config(NULL, f->config, f->buf, sizeof f->buf), emptied(f)))                      \
    X(ht_format_config, config, ANSWER, 0,                                                         \
      (ht_format_config(f->spec, NULL, f->buf, sizeof f->buf), emptied(f)))                        \
    X(ht_format_config, buf, ANSWER, 0, (ht_format_config(f->spec, f->config, NULL, 64), 0))       \
    X(ht_spec_config_from_assignments, spec, NAMED, HT_EINVAL,                                     \
      ht_spec_config_from_assignments(NULL, assigns, 1, f->config, err))                           \
    X(ht_spec_config_from_assignments, assign, NAMED, HT_EINVAL,                                   \
      ht_spec_config_from_assignments(f->spec, NULL, 1, f->config, err))                           \
    X(ht_spec_config_from_assignments, config, NAMED, HT_EINVAL,                                   \
      ht_spec_config_from_assignments(f->spec, assigns, 1, NULL, err))                             \
    X(ht_spec_check_kernel_args, spec, NAMED, HT_EINVAL, ht_spec_check_kernel_args(NULL, 1, err))  \
    X(ht_spec_check_stage_args, spec, NAMED, HT_EINVAL,                                            \
      ht_spec_check_stage_args(NULL, 0, 1, err))                                                   \
    STAGE_CASES(X)                                                                                 \
    X(ht_spec_buffer_bytes, spec, NAMED, HT_EINVAL,                                                \
      ht_spec_buffer_bytes(NULL, 0, f->vars, &f->bytes, NULL, err))                                \
    X(ht_spec_buffer_bytes, vars, NAMED, HT_EINVAL,                                                \
      ht_spec_buffer_bytes(f->spec, 0, NULL, &f->bytes, NULL, err))                                \
    X(ht_spec_buffer_bytes, bytes, NAMED, HT_EINVAL,                                               \
      ht_spec_buffer_bytes(f->spec, 0, f->vars, NULL, NULL, err))                                  \
    X(ht_spec_buffer_bytes, dims, ANSWER, HT_OK,                                                   \
      ht_spec_buffer_bytes(f->spec, 0, f->vars, &f->bytes, NULL, err))                             \
    X(ht_spec_bind_arg, spec, NAMED, HT_EINVAL, ht_spec_bind_arg(NULL, "x", &f->arg, err))         \
    X(ht_spec_bind_arg, name, NAMED, HT_EINVAL, ht_spec_bind_arg(f->spec, NULL, &f->arg, err))     \
    X(ht_spec_bind_arg, arg, NAMED, HT_EINVAL, ht_spec_bind_arg(f->spec, "x", NULL, err))          \
    X(ht_spec_check_array, spec, NAMED, HT_EINVAL,                                                 \
      ht_spec_check_array(NULL, 0, f->vars, 256, 256, err))                                        \
    X(ht_spec_check_array, data, ANSWER, HT_EINVAL,                                                \
      ht_spec_check_array(f->spec, 0, NULL, 256, 256, err))                                        \
    X(ht_spec_check_device, spec, NAMED, HT_EINVAL, ht_spec_check_device(NULL, &f->dev, err))      \
    X(ht_spec_check_device, dev, NAMED, HT_EINVAL, ht_spec_check_device(f->spec, NULL, err))       \
    X(ht_platform_discover, out, NAMED, HT_EINVAL, ht_platform_discover(NULL, err))                \
    X(ht_platform_free, p, ANSWER, 0, (ht_platform_free(NULL), 0))                                 \
    X(ht_platform_find, p, NAMED, HT_EINVAL, ht_platform_find(NULL, "0", &f->index, err))          \
    X(ht_platform_find, name, ANSWER, HT_ENODEVICE,                                                \
      ht_platform_find(&f->plat, NULL, &f->index, err))                                            \
    X(ht_platform_find, index, NAMED, HT_EINVAL, ht_platform_find(&f->plat, "0", NULL, err))       \
    X(ht_device_vars, d, ANSWER, 0, (ht_device_vars(NULL, f->vars), 0))                            \
    X(ht_device_vars, vals, ANSWER, 0, (ht_device_vars(&f->dev, NULL), 0))                         \
    X(ht_device_slug, d, ANSWER, 0, (ht_device_slug(NULL, f->buf, sizeof f->buf), emptied(f)))     \
    X(ht_device_slug, buf, ANSWER, 0, (ht_device_slug(&f->dev, NULL, 64), 0))                      \
    X(ht_device_caches_programs, d, ANSWER, 0, ht_device_caches_programs(NULL))                    \
    X(ht_device_write_dzn, d, NAMED, HT_EINVAL,                                                    \
      ht_device_write_dzn(NULL, tmp_dir, f->buf, sizeof f->buf, err))                              \
    X(ht_device_write_dzn, dir, ANSWER, HT_OK,                                                     \
      dzn_removed(ht_device_write_dzn(&f->dev, NULL, f->buf, sizeof f->buf, err), tmp_dir))        \
    X(ht_device_write_dzn, path, ANSWER, HT_OK,                                                    \
      dzn_removed(ht_device_write_dzn(&f->dev, tmp_dir, NULL, 0, err), tmp_dir))                   \
    X(ht_expr_compile, src, NAMED, HT_EINVAL, ht_expr_compile(NULL, &f->names, &f->eout, err))     \
    X(ht_expr_compile, names, ANSWER, HT_OK,                                                       \
      freed(f, ht_expr_compile("1 + 2", NULL, &f->eout, err)))                                     \
    X(ht_expr_compile, out, NAMED, HT_EINVAL, ht_expr_compile("N", &f->names, NULL, err))          \
    X(ht_expr_free, e, ANSWER, 0, (ht_expr_free(NULL), 0))                                         \
    X(ht_expr_eval, e, ANSWER, HT_EINVAL, ht_expr_eval(NULL, f->vars, &f->value))                  \
    X(ht_expr_eval, vars, ANSWER, HT_EINVAL, ht_expr_eval(f->e, NULL, &f->value))                  \
    X(ht_expr_eval, out, ANSWER, HT_EINVAL, ht_expr_eval(f->e, f->vars, NULL))                     \
    X(ht_expr_source, e, ANSWER, 0, ht_expr_source(NULL) == NULL ? 0 : -1)                         \
    X(ht_expr_uses, e, ANSWER, 0, ht_expr_uses(NULL, 0))                                           \
    X(ht_expr_max_slot, e, ANSWER, -1, (int)ht_expr_max_slot(NULL))                                \
    X(ht_expr_to_minizinc, e, NAMED, HT_EINVAL,                                                    \
      ht_expr_to_minizinc(NULL, &f->names, 0, &f->text, err))                                      \
    X(ht_expr_to_minizinc, names, NAMED, HT_EINVAL,                                                \
      ht_expr_to_minizinc(f->e, NULL, 0, &f->text, err))                                           \
    X(ht_expr_to_minizinc, out, NAMED, HT_EINVAL,                                                  \
      ht_expr_to_minizinc(f->e, &f->names, 0, NULL, err))

/* The cases whose other arguments need a device: f->s, a session of the scale spec on
 * f->rdev. */
#define DEVICE_CASES(X)                                                                            \
    X(ht_session_create, opts, ANSWER, HT_OK,                                                      \
      freed(f, ht_session_create(f->scale, f->rdev, NULL, &f->s2, err)))                           \
    X(ht_session_eval, config, NAMED, HT_EINVAL, ht_session_eval(f->s, NULL, &f->res, err))        \
    X(ht_session_eval, res, NAMED, HT_EINVAL, ht_session_eval(f->s, f->config, NULL, err))         \
    X(ht_session_dump, dir, NAMED, HT_EINVAL, ht_session_dump(f->s, NULL, err))                    \
    X(ht_bandwidth_measure, opts, ANSWER, HT_OK,                                                   \
      ht_bandwidth_measure(f->rdev, NULL, 4096, 1, &f->bw, err))

NULL_CASES(NULL_CASE_CALLS)
DEVICE_CASES(NULL_CASE_CALLS)
static const struct null_case cases[] = {NULL_CASES(NULL_CASE_ENTRIES)};
static const struct null_case device_cases[] = {DEVICE_CASES(NULL_CASE_ENTRIES)};

/* The four headers declare 56 functions. */
static const struct null_suite suite = {
    "api_null_exec", "test_api_null_exec.c", {"exec.h", "spec.h", "platform.h", "expr.h"}, 50,
    NULL_TABLE(cases), NULL_TABLE(device_cases), fx_new, fx_new_device, tmp_dir, "spec.json",
    pipe_json, spec_path, sizeof spec_path};

int main(void)
{
    return null_suite_run(&suite);
}
