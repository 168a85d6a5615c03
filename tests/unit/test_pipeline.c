/* Pipelines (docs/spec.md, "Pipelines"): the spec's "pipeline" array and "temp" buffers, their
 * load-time errors, the stages a configuration launches and their platform rules (pure, on a
 * made-up device), then execution on a real OpenCL device: a two-stage fixture
 * (tests/fixtures/pipeline) that verifies, a wrong second stage and an unwritten temp element
 * that are caught, `when` skipping a stage, a pipeline reference configuration, and the
 * errors only a build can reveal (a missing stage kernel, a stage's argument count). The
 * device tests are skipped when no OpenCL platform is found. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hetune.h"
#include "spec/spec-internal.h"

static struct ht_platform *plat;
static const struct ht_device_info *dev; /* NULL: no OpenCL platform */
static char source_dir[2048];

static const char *fixture(const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/tests/fixtures/pipeline/%s", source_dir, name);
    return buf;
}

static struct ht_spec *load(const char *path)
{
    struct ht_spec *spec = NULL;
    struct ht_error err;
    char msg[4096];

    ht_error_clear(&err);
    if (ht_spec_load(path, NULL, 0, &spec, &err) != HT_OK) {
        ht_error_format(&err, msg, sizeof msg);
        fail_msg("cannot load %s: %s", path, msg);
    }
    return spec;
}

/* A scratch spec: text written to a fresh folder, its kernel.file pointing at the fixture's
 * kernel by absolute path ("@KERNEL@" in text). */
struct scratch {
    char dir[64];
    char path[128];
};

static int load_text(struct scratch *s, const char *text, struct ht_spec **spec,
                     struct ht_error *err)
{
    char kernel[4096];
    const char *at = strstr(text, "@KERNEL@");
    FILE *f;

    snprintf(kernel, sizeof kernel, "%s", fixture("kernel.cl"));
    strcpy(s->dir, "/tmp/hetune-test-pipeline-XXXXXX");
    assert_non_null(mkdtemp(s->dir));
    snprintf(s->path, sizeof s->path, "%s/spec.json", s->dir);
    f = fopen(s->path, "w");
    assert_non_null(f);
    if (at) {
        fwrite(text, 1, (size_t)(at - text), f);
        fputs(kernel, f);
        fputs(at + strlen("@KERNEL@"), f);
    } else {
        fputs(text, f);
    }
    fclose(f);
    ht_error_clear(err);
    *spec = NULL;
    return ht_spec_load(s->path, NULL, 0, spec, err);
}

static void scratch_remove(struct scratch *s)
{
    unlink(s->path);
    rmdir(s->dir);
}

/* The fixture pipe.json with one piece replaced: what `from` is becomes `to`. */
static char *pipe_with(const char *from, const char *to)
{
    FILE *f = fopen(fixture("pipe.json"), "r");
    char text[8192], *at, *out;
    size_t n;

    assert_non_null(f);
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    at = strstr(text, "\"kernel.cl\"");
    assert_non_null(at);
    /* The kernel by absolute path, as load_text does. */
    memmove(at + strlen("\"@KERNEL@\""), at + strlen("\"kernel.cl\""),
            strlen(at + strlen("\"kernel.cl\"")) + 1);
    memcpy(at, "\"@KERNEL@\"", strlen("\"@KERNEL@\""));
    at = strstr(text, from);
    if (!at)
        fail_msg("'%s' is not in pipe.json", from);
    out = malloc(strlen(text) + strlen(to) + 1);
    assert_non_null(out);
    memcpy(out, text, (size_t)(at - text));
    strcpy(out + (at - text), to);
    strcat(out, at + strlen(from));
    return out;
}

/* Loads pipe.json with one replacement and expects code at field, with words in the text. */
static void expect_error(const char *from, const char *to, int code, const char *field,
                         const char *words)
{
    struct scratch s;
    struct ht_spec *spec;
    struct ht_error err;
    char *text = pipe_with(from, to);
    int rc = load_text(&s, text, &spec, &err);

    if (rc != code || strcmp(err.field, field) != 0 || !strstr(err.text, words))
        fail_msg("replacing '%s' by '%s': got %s at '%s': %s; expected %s at '%s' with '%s'",
                 from, to, ht_err_name(rc), err.field, err.text, ht_err_name(code), field,
                 words);
    assert_null(spec);
    assert_true(err.line > 0);
    free(text);
    scratch_remove(&s);
}

/* ---- loading --------------------------------------------------------------------------- */

static void test_load(void **state)
{
    struct ht_spec *spec = load(fixture("pipe.json"));
    const struct ht_stage *st;

    (void)state;
    assert_int_equal(spec->npipeline, 3);
    assert_int_equal(spec->args[2].access, HT_ACCESS_TEMP);
    /* Stage 0 has no ndrange: the top-level one. */
    st = &spec->pipeline[0];
    assert_string_equal(st->kernel, "direct");
    assert_int_equal(st->ndims, 2);
    assert_string_equal(ht_expr_source(st->global[0]), "W");
    assert_string_equal(ht_expr_source(st->local[0]), "L");
    assert_int_equal(st->nargs, 4);
    assert_int_equal(st->args[0], 0);
    assert_int_equal(st->args[1], 1);
    assert_int_equal(st->args[2], 3);
    assert_int_equal(st->args[3], 4);
    assert_string_equal(ht_expr_source(st->when), "V == 0");
    st = &spec->pipeline[2];
    assert_string_equal(st->kernel, "add");
    assert_int_equal(st->ndims, 1);
    assert_string_equal(ht_expr_source(st->global[0]), "R * W");
    assert_int_equal(st->nargs, 3);
    assert_int_equal(st->args[0], 2);
    assert_int_equal(spec->nverify_args, 4);
    assert_int_equal(spec->verify_args[2], 3);
    ht_spec_free(spec);

    /* A single-kernel spec is not a pipeline. */
    {
        char path[4096];
        snprintf(path, sizeof path, "%s/examples/vecadd/spec.json", source_dir);
        spec = load(path);
        assert_int_equal(spec->npipeline, 0);
        ht_spec_free(spec);
    }
}

static void test_stage_kernel_defaults_to_main(void **state)
{
    struct scratch s;
    struct ht_spec *spec;
    struct ht_error err;
    char *text = pipe_with("\"kernel\": \"add\", ", "");

    (void)state;
    assert_int_equal(load_text(&s, text, &spec, &err), HT_OK);
    assert_string_equal(spec->pipeline[2].kernel, "add");
    ht_spec_free(spec);
    free(text);
    scratch_remove(&s);
}

static void test_load_errors(void **state)
{
    (void)state;
    /* An unknown argument name in a stage (the corpus of tests/specs/bad has one with a
     * guess: these names are too short for one). */
    expect_error("\"args\": [\"a\", \"t\", \"W\"]", "\"args\": [\"a\", \"tt\", \"W\"]", HT_ESPEC,
                 "pipeline[1].args[1]", "unknown argument 'tt': every name must be one of");
    expect_error("\"args\": [\"a\", \"t\", \"W\"]", "\"args\": [\"a\", 2, \"W\"]", HT_ESPEC,
                 "pipeline[1].args[1]", "named by a string");
    expect_error("\"args\": [\"a\", \"t\", \"W\"], ", "", HT_ESPEC, "pipeline[1].args",
                 "missing required field 'args'");
    /* Bad `when`: a syntax error, an unknown name, a boolean. */
    expect_error("\"when\": \"V == 0\"", "\"when\": \"V ==\"", HT_EEXPR, "pipeline[0].when",
                 "in 'V =='");
    expect_error("\"when\": \"V == 0\"", "\"when\": \"VARIANT == 0\"", HT_EEXPR,
                 "pipeline[0].when", "unknown name 'VARIANT'");
    expect_error("\"when\": \"V == 0\"", "\"when\": true", HT_ESPEC, "pipeline[0].when",
                 "must be an integer or an expression string");
    /* A temp buffer with an init, and one in a spec without a pipeline. */
    expect_error("\"access\": \"temp\"", "\"access\": \"temp\", \"init\": \"zero\"", HT_ESPEC,
                 "args[2].init", "never initialised");
    expect_error("\"pipeline\": [", "\"pipelin\": [", HT_ESPEC, "pipelin",
                 "did you mean 'pipeline'?");
    /* Stage fields, kernel names, ndranges, the stage list itself. */
    expect_error("\"kernel\": \"twice\"", "\"kernal\": \"twice\"", HT_ESPEC,
                 "pipeline[1].kernal", "did you mean 'kernel'?");
    expect_error("\"kernel\": \"twice\"", "\"kernel\": \"twice-1\"", HT_ESPEC,
                 "pipeline[1].kernel", "not a valid kernel name");
    expect_error("\"local\": [\"L\"] }", "\"local\": [\"L\", 1] }", HT_ESPEC,
                 "pipeline[2].ndrange.local", "local has 2 dimensions but global has 1");
    expect_error("\"global\": [\"R * W\"]", "\"global\": [\"R - R\"]", HT_ESPEC,
                 "pipeline[2].ndrange.global[0]", "a size must be positive");
    expect_error("\"global\": [\"R * W\"]", "\"global\": [\"R * Q\"]", HT_EEXPR,
                 "pipeline[2].ndrange.global[0]", "unknown name 'Q'");
    /* verify.args: unknown names, and only with a reference kernel. */
    expect_error("\"args\": [\"a\", \"b\", \"c\", \"W\"] }", "\"args\": [\"a\", \"b\", \"d\", \"W\"] }",
                 HT_ESPEC, "verify.args[2]", "unknown argument 'd'");
    expect_error("\"args\": [\"a\", \"b\", \"c\", \"W\"] }", "\"args\": [] }", HT_ESPEC,
                 "verify.args", "lists no argument");
}

static void test_pipeline_shape_errors(void **state)
{
    struct scratch s;
    struct ht_spec *spec;
    struct ht_error err;
    int rc;

    (void)state;
    rc = load_text(&s,
                   "{\"name\": \"p\", \"kernel\": {\"file\": \"@KERNEL@\", \"name\": \"add\"},\n"
                   " \"ndrange\": {\"global\": [8]},\n"
                   " \"args\": [{\"name\": \"t\", \"type\": \"float\", \"shape\": [8], "
                   "\"access\": \"temp\"}],\n"
                   " \"pipeline\": []}\n",
                   &spec, &err);
    assert_int_equal(rc, HT_ESPEC);
    assert_string_equal(err.field, "pipeline");
    assert_non_null(strstr(err.text, "at least one stage"));
    scratch_remove(&s);

    rc = load_text(&s,
                   "{\"name\": \"p\", \"kernel\": {\"file\": \"@KERNEL@\", \"name\": \"add\"},\n"
                   " \"ndrange\": {\"global\": [8]},\n"
                   " \"args\": [{\"name\": \"x\", \"type\": \"float\", \"shape\": [8], "
                   "\"access\": \"write\"},\n"
                   "          {\"name\": \"t\", \"type\": \"float\", \"shape\": [8], "
                   "\"access\": \"temp\"}]}\n",
                   &spec, &err);
    assert_int_equal(rc, HT_ESPEC);
    assert_string_equal(err.field, "args[1].access");
    assert_non_null(strstr(err.text, "has no \"pipeline\""));
    assert_int_equal(err.line, 4);
    scratch_remove(&s);

    /* verify.args with a reference configuration. */
    rc = load_text(&s,
                   "{\"name\": \"p\", \"kernel\": {\"file\": \"@KERNEL@\", \"name\": \"add\"},\n"
                   " \"ndrange\": {\"global\": [8]},\n"
                   " \"args\": [{\"name\": \"x\", \"type\": \"float\", \"shape\": [8], "
                   "\"access\": \"write\"}],\n"
                   " \"verify\": {\"reference\": {}, \"args\": [\"x\"]}}\n",
                   &spec, &err);
    assert_int_equal(rc, HT_ESPEC);
    assert_string_equal(err.field, "verify.args");
    assert_non_null(strstr(err.text, "only used with reference \"kernel\""));
    scratch_remove(&s);
}

/* ---- stages and their rules (no OpenCL) -------------------------------------------------- */

static struct ht_device_info fake_device(void)
{
    struct ht_device_info d;

    memset(&d, 0, sizeof d);
    d.compute_units = 1;
    d.max_work_group_size = 64;
    d.max_work_item_dims = 3;
    d.max_work_item_sizes[0] = 64;
    d.max_work_item_sizes[1] = 64;
    d.max_work_item_sizes[2] = 64;
    d.local_mem_size = 65536;
    return d;
}

static void config_of(const struct ht_spec *spec, int64_t *config, int64_t p, int64_t v,
                      int64_t l)
{
    config[ht__spec_param_index(spec, "P")] = p;
    config[ht__spec_param_index(spec, "V")] = v;
    config[ht__spec_param_index(spec, "L")] = l;
}

static void test_active_stages(void **state)
{
    struct ht_spec *spec = load(fixture("pipe.json"));
    struct ht_device_info d = fake_device();
    const struct ht_space_def *def = &spec->space;
    int64_t config[3], vars[64];
    size_t active[HT_MAX_STAGES], n = 99;
    uint64_t g[3], l[3];
    struct ht_error err;

    (void)state;
    assert_true(def->names.count <= 64);
    config_of(spec, config, 1, 0, 8);
    ht_space_vars(def, &d, config, vars);
    ht_error_clear(&err);
    assert_int_equal(ht_spec_active_stages(spec, vars, active, &n, &err), HT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(active[0], 0);

    config_of(spec, config, 1, 1, 8);
    ht_space_vars(def, &d, config, vars);
    assert_int_equal(ht_spec_active_stages(spec, vars, active, &n, &err), HT_OK);
    assert_int_equal(n, 2);
    assert_int_equal(active[0], 1);
    assert_int_equal(active[1], 2);

    assert_int_equal(ht_spec_stage_ndrange(spec, 2, vars, g, l, &err), HT_OK);
    assert_int_equal(g[0], 256);
    assert_int_equal(g[1], 1);
    assert_int_equal(l[0], 8);
    assert_int_equal(l[1], 1);
    assert_int_equal(ht_spec_stage_ndrange(spec, 1, vars, g, l, &err), HT_OK);
    assert_int_equal(g[0], 32);
    assert_int_equal(g[1], 8);
    assert_int_equal(l[0], 8);
    assert_int_equal(ht_spec_check_stages(spec, &d, config, &err), HT_OK);

    /* Eq. 1 in the second stage only: the top-level local size is L x 1 too, so move the
     * limit below it through the device. */
    d.max_work_group_size = 4;
    d.max_work_item_sizes[0] = 4;
    assert_int_equal(ht_spec_check_stages(spec, &d, config, &err), HT_ECONSTRAINT);
    assert_string_equal(err.field, "pipeline[1]");
    assert_non_null(strstr(err.text, "Eq. 1 in stage 'twice'"));
    ht_spec_free(spec);
}

static void test_stage_rules(void **state)
{
    struct scratch s;
    struct ht_spec *spec;
    struct ht_device_info d = fake_device();
    struct ht_error err;
    int64_t config[3];
    /* The second stage launches R * W - 4 = 252 work-items: L = 8 breaks its Eq. 2, which the
     * top-level ndrange (W x R) does not show. */
    char *text = pipe_with("\"global\": [\"R * W\"]", "\"global\": [\"R * W - 4\"]");

    (void)state;
    assert_int_equal(load_text(&s, text, &spec, &err), HT_OK);
    config_of(spec, config, 1, 1, 8);
    assert_int_equal(ht_space_check(&spec->space, &d, config, HT_EQ3_OFF, &err), HT_OK);
    assert_int_equal(ht_spec_check_stages(spec, &d, config, &err), HT_ECONSTRAINT);
    assert_string_equal(err.field, "pipeline[2]");
    assert_non_null(strstr(err.text, "Eq. 2 in stage 'add'"));
    assert_non_null(strstr(err.text, "252"));
    /* Not launched with V = 0: nothing to refuse. */
    ht_error_clear(&err);
    config_of(spec, config, 1, 0, 8);
    assert_int_equal(ht_spec_check_stages(spec, &d, config, &err), HT_OK);
    /* L = 1 divides everything. */
    config_of(spec, config, 1, 1, 1);
    assert_int_equal(ht_spec_check_stages(spec, &d, config, &err), HT_OK);
    ht_spec_free(spec);
    free(text);
    scratch_remove(&s);

    /* A `when` that cannot be evaluated, and one that no stage passes. */
    text = pipe_with("\"when\": \"V == 0\"", "\"when\": \"1 / (V - 1)\"");
    assert_int_equal(load_text(&s, text, &spec, &err), HT_OK);
    config_of(spec, config, 1, 1, 8);
    assert_int_equal(ht_spec_check_stages(spec, &d, config, &err), HT_ECONSTRAINT);
    assert_string_equal(err.field, "pipeline[0].when");
    assert_non_null(strstr(err.text, "division by zero"));
    ht_spec_free(spec);
    free(text);
    scratch_remove(&s);

    text = pipe_with("\"when\": \"V == 0\"", "\"when\": \"V == 2\"");
    assert_int_equal(load_text(&s, text, &spec, &err), HT_OK);
    config_of(spec, config, 1, 0, 8);
    ht_error_clear(&err);
    assert_int_equal(ht_spec_check_stages(spec, &d, config, &err), HT_ECONSTRAINT);
    assert_string_equal(err.field, "pipeline");
    assert_non_null(strstr(err.text, "no stage"));
    ht_spec_free(spec);
    free(text);
    scratch_remove(&s);
}

static void test_arg_checks(void **state)
{
    struct ht_spec *spec = load(fixture("pipe.json"));
    struct ht_error err;

    (void)state;
    ht_error_clear(&err);
    assert_int_equal(ht_spec_check_stage_args(spec, 1, 3, &err), HT_OK);
    assert_int_equal(ht_spec_check_stage_args(spec, 1, 4, &err), HT_ESPEC);
    assert_string_equal(err.field, "pipeline[1].args");
    assert_non_null(strstr(err.text, "stage 1 lists 3 arguments but kernel 'twice' takes 4"));
    /* The args of a pipeline belong to no single kernel. */
    ht_error_clear(&err);
    assert_int_equal(ht_spec_check_kernel_args(spec, 5, &err), HT_ESPEC);
    assert_string_equal(err.field, "pipeline");
    assert_non_null(strstr(err.text, "pipeline of 3 stages"));
    ht_spec_free(spec);
}

/* ---- execution ----------------------------------------------------------------------------- */

static struct ht_session *open_session(const struct ht_spec *spec)
{
    struct ht_session *s = NULL;
    struct ht_exec_opts o;
    struct ht_error err;

    ht_exec_opts_init(&o);
    o.eq3 = HT_EQ3_OFF; /* a few work-groups: not what these tests are about */
    ht_error_clear(&err);
    if (ht_session_create(spec, dev, &o, &s, &err) != HT_OK)
        fail_msg("session: %s", err.text);
    return s;
}

static int eval(struct ht_session *s, const struct ht_spec *spec, int64_t p, int64_t v,
                int64_t l, struct ht_eval_result *res, struct ht_error *err)
{
    int64_t config[3];

    config_of(spec, config, p, v, l);
    ht_error_clear(err);
    return ht_session_eval(s, config, res, err);
}

static void test_verifies(void **state)
{
    struct ht_spec *spec;
    struct ht_session *s;
    struct ht_eval_result *res = malloc(sizeof *res);
    struct ht_error err;
    double sum = 0.0;
    int rc;

    (void)state;
    if (!dev)
        skip();
    assert_non_null(res);
    spec = load(fixture("pipe.json"));
    s = open_session(spec);
    rc = eval(s, spec, 1, 1, 8, res, &err);
    if (rc != HT_OK)
        fail_msg("V=1: %s: %s", err.field, err.text);
    assert_int_equal(res->verified, 1);
    assert_int_equal(res->nruns, 3);
    assert_int_equal(res->nstages, 2);
    assert_int_equal(res->stage_index[0], 1);
    assert_int_equal(res->stage_index[1], 2);
    for (unsigned k = 0; k < res->nstages; k++) {
        assert_true(res->stage_s[k] > 0.0);
        sum += res->stage_s[k];
    }
    /* The stages' means are over the kept runs, so they add up to kernel_s. */
    assert_true(fabs(sum - res->kernel_s) <= 1e-9 + 1e-9 * res->kernel_s);
    /* The top-level ndrange is what the result reports. */
    assert_int_equal(res->ndims, 2);
    assert_int_equal(res->global[0], 32);
    assert_int_equal(res->global[1], 8);
    ht_eval_result_destroy(res);

    /* `when` picks the single-kernel choice. */
    rc = eval(s, spec, 1, 0, 32, res, &err);
    if (rc != HT_OK)
        fail_msg("V=0: %s: %s", err.field, err.text);
    assert_int_equal(res->verified, 1);
    assert_int_equal(res->nstages, 1);
    assert_int_equal(res->stage_index[0], 0);
    assert_true(fabs(res->stage_s[0] - res->kernel_s) <= 1e-12);
    ht_eval_result_destroy(res);
    ht_session_free(s);
    ht_spec_free(spec);
    free(res);
}

static void test_wrong_stage_caught(void **state)
{
    struct ht_spec *spec;
    struct ht_session *s;
    struct ht_eval_result *res = malloc(sizeof *res);
    struct ht_error err;

    (void)state;
    if (!dev)
        skip();
    assert_non_null(res);
    spec = load(fixture("pipe.json"));
    s = open_session(spec);
    /* P = 2: the second stage is off at c[7]. */
    assert_int_equal(eval(s, spec, 2, 1, 8, res, &err), HT_EVERIFY);
    assert_int_equal(res->verified, 0);
    assert_int_equal(res->mismatches, 1);
    assert_non_null(strstr(res->mismatch, "c[7]"));
    ht_eval_result_destroy(res);
    /* P = 3: the first stage leaves t[1][5] poisoned, so c[37] is NaN. */
    assert_int_equal(eval(s, spec, 3, 1, 8, res, &err), HT_EVERIFY);
    assert_int_equal(res->mismatches, 1);
    assert_non_null(strstr(res->mismatch, "c[37]"));
    assert_non_null(strstr(res->mismatch, "nan"));
    ht_eval_result_destroy(res);
    /* `when` skips both broken stages with V = 0: the same P verifies. */
    assert_int_equal(eval(s, spec, 2, 0, 8, res, &err), HT_OK);
    assert_int_equal(res->verified, 1);
    assert_int_equal(res->nstages, 1);
    ht_eval_result_destroy(res);
    ht_session_free(s);
    ht_spec_free(spec);
    free(res);
}

static void test_reference_configuration(void **state)
{
    struct ht_spec *spec;
    struct ht_session *s;
    struct ht_eval_result *res = malloc(sizeof *res);
    struct ht_error err;
    int rc;

    (void)state;
    if (!dev)
        skip();
    assert_non_null(res);
    spec = load(fixture("refconfig.json"));
    s = open_session(spec);
    /* The reference is the two-stage configuration; the single kernel agrees with it. */
    rc = eval(s, spec, 1, 0, 8, res, &err);
    if (rc != HT_OK)
        fail_msg("V=0: %s: %s", err.field, err.text);
    assert_int_equal(res->verified, 1);
    ht_eval_result_destroy(res);
    assert_int_equal(eval(s, spec, 2, 1, 1, res, &err), HT_EVERIFY);
    assert_non_null(strstr(res->mismatch, "c[7]"));
    ht_eval_result_destroy(res);
    ht_session_free(s);
    ht_spec_free(spec);
    free(res);
}

static void test_dump_leaves_out_temp(void **state)
{
    struct ht_spec *spec;
    struct ht_session *s;
    struct ht_eval_result *res = malloc(sizeof *res);
    struct ht_error err;
    char dir[] = "/tmp/hetune-test-pipeline-dump-XXXXXX", path[128];
    struct stat st;

    (void)state;
    if (!dev)
        skip();
    assert_non_null(res);
    assert_non_null(mkdtemp(dir));
    spec = load(fixture("pipe.json"));
    s = open_session(spec);
    assert_int_equal(eval(s, spec, 1, 1, 8, res, &err), HT_OK);
    ht_error_clear(&err);
    assert_int_equal(ht_session_dump(s, dir, &err), HT_OK);
    snprintf(path, sizeof path, "%s/c.bin", dir);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 8 * 32 * 4);
    unlink(path);
    snprintf(path, sizeof path, "%s/t.bin", dir);
    assert_int_not_equal(stat(path, &st), 0);
    rmdir(dir);
    ht_eval_result_destroy(res);
    ht_session_free(s);
    ht_spec_free(spec);
    free(res);
}

/* Evaluates pipe.json with one replacement at V = 1 and expects code at field. */
static void expect_eval_error(const char *from, const char *to, int64_t v, int code,
                              const char *field, const char *words)
{
    struct scratch sc;
    struct ht_spec *spec;
    struct ht_session *s;
    struct ht_eval_result *res = malloc(sizeof *res);
    struct ht_error err;
    char *text = pipe_with(from, to);
    int rc;

    assert_non_null(res);
    assert_int_equal(load_text(&sc, text, &spec, &err), HT_OK);
    s = open_session(spec);
    rc = eval(s, spec, 1, v, 8, res, &err);
    if (rc != code || strcmp(err.field, field) != 0 || !strstr(err.text, words))
        fail_msg("replacing '%s' by '%s': got %s at '%s': %s; expected %s at '%s' with '%s'",
                 from, to, ht_err_name(rc), err.field, err.text, ht_err_name(code), field,
                 words);
    ht_eval_result_destroy(res);
    ht_session_free(s);
    ht_spec_free(spec);
    free(text);
    free(res);
    scratch_remove(&sc);
}

static void test_build_time_errors(void **state)
{
    (void)state;
    if (!dev)
        skip();
    /* A stage kernel that does not exist, even in a stage this configuration skips. */
    expect_eval_error("\"kernel\": \"direct\"", "\"kernel\": \"indirect\"", 1, HT_ESPEC,
                      "pipeline[0].kernel", "no kernel named 'indirect'");
    /* A stage whose argument list is shorter than its kernel's. */
    expect_eval_error("\"args\": [\"a\", \"t\", \"W\"]", "\"args\": [\"a\", \"t\"]", 1, HT_ESPEC,
                      "pipeline[1].args", "lists 2 arguments but kernel 'twice' takes 3");
    /* A misspelt kernel.name. */
    expect_eval_error("\"name\": \"add\"", "\"name\": \"addd\"", 0, HT_ESPEC, "kernel.name",
                      "no kernel named 'addd'");
    /* The reference kernel's own list, counted. */
    expect_eval_error("\"args\": [\"a\", \"b\", \"c\", \"W\"] }", "\"args\": [\"a\", \"b\", \"c\"] }",
                      1, HT_ESPEC, "verify.args", "verify.args lists 3 arguments but reference "
                      "kernel 'ref' takes 4");
    /* A stage's Eq. 2, refused before the build. */
    expect_eval_error("\"global\": [\"R * W\"]", "\"global\": [\"R * W - 4\"]", 1,
                      HT_ECONSTRAINT, "pipeline[2]", "Eq. 2 in stage 'add'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_stage_kernel_defaults_to_main),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_pipeline_shape_errors),
        cmocka_unit_test(test_active_stages),
        cmocka_unit_test(test_stage_rules),
        cmocka_unit_test(test_arg_checks),
        cmocka_unit_test(test_verifies),
        cmocka_unit_test(test_wrong_stage_caught),
        cmocka_unit_test(test_reference_configuration),
        cmocka_unit_test(test_dump_leaves_out_temp),
        cmocka_unit_test(test_build_time_errors),
    };
    struct ht_error err;
    const char *src = getenv("HETUNE_SOURCE_DIR");
    int failed;

    snprintf(source_dir, sizeof source_dir, "%s", src && *src ? src : ".");
    ht_error_clear(&err);
    /* The pure tests run without OpenCL; the device tests skip themselves then. */
    if (ht_platform_discover(&plat, &err) == HT_OK && plat->count > 0)
        dev = &plat->devices[0];
    else
        fprintf(stderr, "no OpenCL device (%s): the device tests are skipped\n", err.text);
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    ht_platform_free(plat);
    return failed;
}
