/* Misuse of the runtime's API is an error, never a crash (issue 26 item 6, issue 29 item 9),
 * on PoCL: NULL handles and NULL out-parameters of every ht_runtime_* function, a pointer
 * never opened, close twice, launch after a failed bind (refused naming the argument, the
 * output untouched), options by name, a runtime opened from a spec loaded from memory
 * (no file: ht_spec_load_buffer + ht_runtime_open_spec). Then random sequences of API calls
 * (open from a file or from memory, bind, alloc, free, launch, info, last, arg_bytes, close
 * twice, NULLs: a few hundred steps, seeded by $HETUNE_TEST_SEED or 26) against a model of
 * what each call must return; every successful launch is checked element by element. Run
 * under ASan by the sanitized pass. POCL_DEVICES="pthread basic" (unless set) gives two
 * devices. Exits 77 when no OpenCL platform is found. */
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

#define N 1024
#define SLOTS 3
#define STEPS 300

static char dir[] = "/tmp/hetune-test-rtmisuse-XXXXXX";
static char spec_path[512], kernel_path[512], db_path[512];

static const char spec_json[] =
    "{\n"
    "  \"name\": \"vecadd_misuse\",\n"
    "  \"kernel\": { \"file\": \"kernel.cl\", \"name\": \"addvec\" },\n"
    "  \"sizes\": { \"N\": 1024 },\n"
    "  \"ndrange\": { \"global\": [\"N\"], \"local\": [\"WG\"] },\n"
    "  \"params\": { \"WG\": { \"values\": [16, 64] } },\n"
    "  \"args\": [\n"
    "    { \"name\": \"n\", \"type\": \"uint\", \"value\": \"N\" },\n"
    "    { \"name\": \"a\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"write\", "
    "\"index\": [\"gx\"] },\n"
    "    { \"name\": \"b\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"read\", "
    "\"index\": [\"gx\"] },\n"
    "    { \"name\": \"c\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"read\", "
    "\"index\": [\"gx\"] }\n"
    "  ],\n"
    "  \"verify\": { \"reference\": { \"WG\": 16 }, \"rtol\": 0, \"atol\": 0 },\n"
    "  \"timing\": { \"repeats\": 2, \"keep_best\": 1 }\n"
    "}\n";

static const char kernel_src[] =
    "__kernel void addvec(const unsigned int n, __global float *a, __global const float *b,\n"
    "                     __global const float *c)\n"
    "{\n"
    "    const size_t i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        a[i] = b[i] + c[i];\n"
    "}\n";

static struct ht_spec *mem_spec; /* the same spec, from memory, shared by runtimes */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void opts_for(struct ht_runtime_opts *o, enum ht_runtime_mode mode)
{
    ht_runtime_opts_init(o);
    o->db = db_path;
    o->mode = mode;
    o->measure_repeats = 1;
}

/* Every failing call must say why: its code in err, and words. */
static void assert_defined(int rc, const struct ht_error *err, int expect)
{
    if (rc != expect)
        fail_msg("returned %d (%s), expected %d (%s): %s", rc, ht_err_name(rc), expect,
                 ht_err_name(expect), err->text);
    if (rc != HT_OK) {
        assert_int_equal(err->code, rc);
        assert_true(strlen(err->text) > 0);
    }
}

static void fill(float *a, float *b, float *c, unsigned seed)
{
    for (size_t i = 0; i < N; i++) {
        b[i] = (float)((i * 7 + seed) % 1000);
        c[i] = 0.5f * (float)((i + seed) % 13);
        a[i] = -7.0f;
    }
}

static void check(const float *a, const float *b, const float *c)
{
    for (size_t i = 0; i < N; i++)
        if (a[i] != b[i] + c[i])
            fail_msg("a[%zu] = %g, expected %g", i, (double)a[i], (double)(b[i] + c[i]));
}

static void test_null_handles(void **state)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = (void *)1, *bogus = (struct ht_runtime *)&o;
    struct ht_error err;
    size_t bytes = 0;
    float a[N];
    (void)state;

    opts_for(&o, HT_RUNTIME_ALONE);
    ht_error_clear(&err);
    assert_defined(ht_runtime_open(spec_path, NULL, 0, &o, NULL, &err), &err, HT_EINVAL);
    ht_error_clear(&err);
    assert_defined(ht_runtime_open(NULL, NULL, 0, &o, &rt, &err), &err, HT_EINVAL);
    assert_null(rt);
    ht_error_clear(&err);
    rt = (void *)1;
    assert_defined(ht_runtime_open(spec_path, NULL, 2, &o, &rt, &err), &err, HT_EINVAL);
    assert_null(rt);
    ht_error_clear(&err);
    rt = (void *)1;
    assert_defined(ht_runtime_open_spec(NULL, &o, &rt, &err), &err, HT_EINVAL);
    assert_null(rt);
    ht_error_clear(&err);
    assert_defined(ht_runtime_open_spec(mem_spec, &o, NULL, &err), &err, HT_EINVAL);
    assert_int_equal(ht_runtime_open(NULL, NULL, 0, NULL, NULL, NULL), HT_EINVAL);

    /* NULL, and a pointer that was never a runtime: refused without being read. */
    for (int k = 0; k < 2; k++) {
        struct ht_runtime *r = k ? bogus : NULL;
        ht_error_clear(&err);
        assert_defined(ht_runtime_launch(r, &err), &err, HT_EINVAL);
        assert_non_null(strstr(err.text, k ? "not an open runtime" : "NULL"));
        ht_error_clear(&err);
        assert_defined(ht_runtime_bind(r, "a", a, sizeof a, &err), &err, HT_EINVAL);
        ht_error_clear(&err);
        assert_defined(ht_runtime_arg_bytes(r, "a", &bytes, &err), &err, HT_EINVAL);
        ht_error_clear(&err);
        assert_null(ht_runtime_alloc(r, 64, &err));
        assert_int_equal(err.code, HT_EINVAL);
        assert_null(ht_runtime_info(r));
        assert_null(ht_runtime_last(r));
        ht_runtime_free_host(r, a);
        ht_runtime_close(r);
        ht_error_clear(&err);
        {
            char *json = (void *)1;
            assert_defined(ht_runtime_info_json(r, &json, &err), &err, HT_EINVAL);
            assert_null(json);
        }
        /* And with no error report at all. */
        assert_int_equal(ht_runtime_launch(r, NULL), HT_EINVAL);
        assert_int_equal(ht_runtime_bind(r, NULL, NULL, 0, NULL), HT_EINVAL);
    }
    ht_runtime_opts_init(NULL);
}

static void test_close_twice_and_bind(void **state)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    const struct ht_runtime_info *info;
    struct ht_error err;
    size_t bytes = 0;
    float a[N], b[N], c[N], wrong[N + 1];
    char *json = NULL;
    (void)state;

    opts_for(&o, HT_RUNTIME_SPLIT);
    ht_error_clear(&err);
    if (ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err) != HT_OK)
        fail_msg("open: %s", err.text);

    /* NULL out-parameters of an open runtime. */
    assert_defined(ht_runtime_arg_bytes(rt, "a", NULL, &err), &err, HT_EINVAL);
    ht_error_clear(&err);
    assert_defined(ht_runtime_arg_bytes(rt, NULL, &bytes, &err), &err, HT_EINVAL);
    ht_error_clear(&err);
    assert_defined(ht_runtime_info_json(rt, NULL, &err), &err, HT_EINVAL);
    ht_error_clear(&err);
    assert_defined(ht_runtime_bind(rt, NULL, a, sizeof a, &err), &err, HT_EINVAL);
    ht_error_clear(&err);
    assert_null(ht_runtime_alloc(rt, 0, &err));
    ht_runtime_free_host(rt, NULL);
    ht_runtime_free_host(rt, a); /* not the runtime's: ignored */

    /* Bound, launched, then a bind of b fails: the next launch refuses naming b and
     * writes nothing (a keeps its poison), rather than reading the b bound before. */
    fill(a, b, c, 1);
    assert_defined(ht_runtime_bind(rt, "a", a, sizeof a, &err), &err, HT_OK);
    assert_defined(ht_runtime_bind(rt, "b", b, sizeof b, &err), &err, HT_OK);
    assert_defined(ht_runtime_bind(rt, "c", c, sizeof c, &err), &err, HT_OK);
    assert_defined(ht_runtime_launch(rt, &err), &err, HT_OK);
    check(a, b, c);
    fill(a, b, c, 2);
    assert_defined(ht_runtime_bind(rt, "b", wrong, sizeof wrong, &err), &err, HT_EINVAL);
    ht_error_clear(&err);
    assert_defined(ht_runtime_launch(rt, &err), &err, HT_EINVAL);
    assert_non_null(strstr(err.text, "'b'"));
    assert_non_null(strstr(err.text, "not bound"));
    for (size_t i = 0; i < N; i++)
        assert_true(a[i] == -7.0f);
    ht_error_clear(&err);
    assert_defined(ht_runtime_bind(rt, "b", b, sizeof b, &err), &err, HT_OK);
    assert_defined(ht_runtime_launch(rt, &err), &err, HT_OK);
    check(a, b, c);
    info = ht_runtime_info(rt);
    assert_non_null(info);
    assert_int_equal(info->launches, 2);
    assert_int_equal(info->failed_launches, 0);
    assert_int_equal(info->last_status, HT_OK);
    assert_defined(ht_runtime_info_json(rt, &json, &err), &err, HT_OK);
    assert_non_null(strstr(json, "\"launches\": 2"));
    assert_non_null(strstr(json, "\"decision\""));
    assert_non_null(strstr(json, "\"share\""));
    free(json);

    ht_runtime_close(rt);
    /* Closed: every call refuses it, a second close does nothing. */
    ht_runtime_close(rt);
    ht_error_clear(&err);
    assert_defined(ht_runtime_launch(rt, &err), &err, HT_EINVAL);
    assert_non_null(strstr(err.text, "not an open runtime"));
    assert_null(ht_runtime_info(rt));
    assert_null(ht_runtime_last(rt));
    ht_runtime_close(rt);
}

static void test_options_by_name(void **state)
{
    struct ht_runtime_opts *o = malloc(ht_runtime_opts_size());
    struct ht_error err;
    (void)state;

    assert_non_null(o);
    assert_int_equal(ht_runtime_opts_size(), sizeof *o);
    ht_runtime_opts_init(o);
    ht_error_clear(&err);
    assert_defined(ht_runtime_opts_set(o, "db", db_path, &err), &err, HT_OK);
    assert_ptr_equal(o->db, db_path);
    assert_defined(ht_runtime_opts_set(o, "mode", "split", &err), &err, HT_OK);
    assert_int_equal(o->mode, HT_RUNTIME_SPLIT);
    assert_defined(ht_runtime_opts_set(o, "tune_missing", "1", &err), &err, HT_OK);
    assert_int_equal(o->tune_missing, 1);
    assert_defined(ht_runtime_opts_set(o, "budget", "12", &err), &err, HT_OK);
    assert_int_equal(o->budget, 12);
    assert_defined(ht_runtime_opts_set(o, "dim", "2", &err), &err, HT_OK);
    assert_int_equal(o->dim, 2);
    assert_defined(ht_runtime_opts_set(o, "isolate", "off", &err), &err, HT_OK);
    assert_int_equal(o->exec.isolate, HT_ISOLATE_OFF);
    assert_defined(ht_runtime_opts_set(o, "no_verify", "1", &err), &err, HT_OK);
    assert_int_equal(o->exec.no_verify, 1);
    assert_defined(ht_runtime_opts_set(o, "devices", NULL, &err), &err, HT_OK);
    assert_null(o->devices);
    assert_defined(ht_runtime_opts_set(o, "foreign_up", "pin", &err), &err, HT_OK);
    assert_int_equal(o->exec.foreign_up, HT_FOREIGN_PIN);
    assert_defined(ht_runtime_opts_set(o, "foreign_down", "stage", &err), &err, HT_OK);
    assert_int_equal(o->exec.foreign_down, HT_FOREIGN_STAGE);
    assert_defined(ht_runtime_opts_set(o, "fallback_ratio", "1.5", &err), &err, HT_OK);
    assert_true(o->fallback_ratio == 1.5);
    assert_defined(ht_runtime_opts_set(o, "fallback_ratio", "-1", &err), &err, HT_OK);
    assert_true(o->fallback_ratio == -1.0);
    assert_defined(ht_runtime_opts_set(o, "cpu_units", "3", &err), &err, HT_OK);
    assert_int_equal(o->cpu_units, 3);
    ht_error_clear(&err);
    assert_defined(ht_runtime_opts_set(o, "cpu_units", "-2", &err), &err, HT_EINVAL);
    assert_int_equal(o->cpu_units, 3);
    ht_error_clear(&err);
    /* This program calls ht_mpi_nodes (test_nodes_refused): "mpi" is linked in, with MPI
     * built or not (test_runtime_nodes has a program that does not call it). */
    assert_null(o->nodes);
    assert_defined(ht_runtime_opts_set(o, "nodes", "mpi", &err), &err, HT_OK);
    assert_true(o->nodes == ht_mpi_nodes());
    assert_non_null(o->nodes);
    assert_defined(ht_runtime_opts_set(o, "nodes", "local", &err), &err, HT_OK);
    assert_null(o->nodes);
    ht_error_clear(&err);
    assert_defined(ht_runtime_opts_set(o, "nodes", "cluster", &err), &err, HT_EINVAL);
    assert_non_null(strstr(err.text, "'cluster' is not local or mpi"));
    assert_null(o->nodes);
    ht_error_clear(&err);
    assert_defined(ht_runtime_opts_set(o, "fallback_ratio", "inf", &err), &err, HT_EINVAL);
    ht_error_clear(&err);
    assert_defined(ht_runtime_opts_set(o, "fallback_ratio", "1.5x", &err), &err, HT_EINVAL);
    assert_non_null(strstr(err.text, "fallback_ratio"));
    ht_error_clear(&err);
    assert_defined(ht_runtime_opts_set(o, "foreign_up", "mmap", &err), &err, HT_EINVAL);
    assert_non_null(strstr(err.text, "direct or pin"));
    assert_int_equal(o->exec.foreign_up, HT_FOREIGN_PIN);
    assert_true(o->fallback_ratio == -1.0);
    ht_error_clear(&err);

    assert_defined(ht_runtime_opts_set(o, "colour", "red", &err), &err, HT_EINVAL);
    assert_non_null(strstr(err.text, "'colour'"));
    assert_non_null(strstr(err.text, "measure_repeats"));
    ht_error_clear(&err);
    assert_defined(ht_runtime_opts_set(o, "mode", "fast", &err), &err, HT_EINVAL);
    assert_non_null(strstr(err.text, "auto, split or alone"));
    ht_error_clear(&err);
    assert_defined(ht_runtime_opts_set(o, "dim", "3", &err), &err, HT_EINVAL);
    ht_error_clear(&err);
    assert_defined(ht_runtime_opts_set(o, "budget", "-1", &err), &err, HT_EINVAL);
    ht_error_clear(&err);
    assert_defined(ht_runtime_opts_set(o, "tune_missing", "yes", &err), &err, HT_EINVAL);
    ht_error_clear(&err);
    assert_defined(ht_runtime_opts_set(o, "budget", NULL, &err), &err, HT_EINVAL);
    ht_error_clear(&err);
    assert_defined(ht_runtime_opts_set(NULL, "db", "x", &err), &err, HT_EINVAL);
    ht_error_clear(&err);
    assert_defined(ht_runtime_opts_set(o, NULL, "x", &err), &err, HT_EINVAL);
    /* Refusals changed nothing. */
    assert_int_equal(o->mode, HT_RUNTIME_SPLIT);
    assert_int_equal(o->dim, 2);
    assert_int_equal(o->budget, 12);
    free(o);
}

/* Across nodes (nodes ht_mpi_nodes()), the options that make no sense there are refused
 * alike on every rank before MPI starts, naming the option, nothing opened; a build
 * without MPI refuses the open itself, saying so. */
static void test_nodes_refused(void **state)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt;
    struct ht_error err;
    (void)state;

    opts_for(&o, HT_RUNTIME_SPLIT);
    o.nodes = ht_mpi_nodes();
    assert_non_null(o.nodes);
    assert_true(ht_mpi_nodes() == o.nodes); /* one table, always the same */
    o.devices = "0,1";
    rt = (void *)1;
    ht_error_clear(&err);
    assert_defined(ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err), &err, HT_EINVAL);
    assert_null(rt);
    assert_string_equal(err.field, "devices");
    assert_non_null(strstr(err.text, "not the list '0,1'"));
    o.devices = NULL;
    o.tune_missing = 1;
    ht_error_clear(&err);
    assert_defined(ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err), &err, HT_EINVAL);
    assert_string_equal(err.field, "tune_missing");
    assert_non_null(strstr(err.text, "does not tune"));
    o.tune_missing = 0;
    o.mode = HT_RUNTIME_ALONE;
    ht_error_clear(&err);
    assert_defined(ht_runtime_open_spec(mem_spec, &o, &rt, &err), &err, HT_EINVAL);
    assert_string_equal(err.field, "mode");
    assert_non_null(strstr(err.text, "HT_RUNTIME_ALONE is refused"));
    assert_null(rt);
    o.mode = HT_RUNTIME_SPLIT;
    /* Good options: without MPI built, refused saying so, nothing opened. With MPI, they
     * would open the runtime across this process's one rank, starting MPI: that is
     * cli/mpi_runtime's (examples/runtime_mpi, 2 and 3 ranks), not a unit test's. */
    if (ht_mpi_built())
        return;
    rt = (void *)1;
    ht_error_clear(&err);
    assert_defined(ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err), &err, HT_EINVAL);
    assert_null(rt);
    assert_non_null(strstr(err.text, "built without MPI"));
    assert_non_null(strstr(err.text, "nodes NULL"));
}

/* A runtime from a spec that never was a file; the spec outlives it and is freed after. */
static void test_open_from_memory(void **state)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL, *rt2 = NULL;
    struct ht_error err;
    float a[N], b[N], c[N];
    (void)state;

    opts_for(&o, HT_RUNTIME_AUTO);
    ht_error_clear(&err);
    if (ht_runtime_open_spec(mem_spec, &o, &rt, &err) != HT_OK)
        fail_msg("open_spec: %s", err.text);
    o.mode = HT_RUNTIME_ALONE;
    if (ht_runtime_open_spec(mem_spec, &o, &rt2, &err) != HT_OK)
        fail_msg("open_spec: %s", err.text);
    assert_ptr_not_equal(rt, rt2);
    assert_string_equal(ht_runtime_info(rt)->spec, "vecadd_misuse");
    for (int r = 0; r < 2; r++) {
        struct ht_runtime *x = r ? rt2 : rt;
        fill(a, b, c, (unsigned)r + 5);
        assert_defined(ht_runtime_bind(x, "a", a, sizeof a, &err), &err, HT_OK);
        assert_defined(ht_runtime_bind(x, "b", b, sizeof b, &err), &err, HT_OK);
        assert_defined(ht_runtime_bind(x, "c", c, sizeof c, &err), &err, HT_OK);
        assert_defined(ht_runtime_launch(x, &err), &err, HT_OK);
        check(a, b, c);
    }
    ht_runtime_close(rt);
    /* The other runtime still works on the shared spec. */
    fill(a, b, c, 9);
    assert_defined(ht_runtime_launch(rt2, &err), &err, HT_OK);
    check(a, b, c);
    ht_runtime_close(rt2);
}

/* ---- random sequences ------------------------------------------------------------------ */

static uint64_t rng;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

struct slot {
    struct ht_runtime *rt; /* open, closed (stale) or NULL */
    int open;
    float *arr[3];          /* the program's a, b, c: live for the test */
    float *mem;             /* ht_runtime_alloc'd (N floats), or NULL */
    void *bound[3];         /* what the model says a, b, c are bound to */
    int has_last;
    uint64_t launches;
};

static const char *const names[3] = {"a", "b", "c"};

static void slot_forget_stale(struct slot *s, size_t n, const struct ht_runtime *fresh)
{
    /* An address a closed runtime had may be given to a new one (the list of open
     * runtimes then takes it for the new one, as runtime.h says): the model drops it. */
    for (size_t i = 0; i < n; i++)
        if (!s[i].open && s[i].rt == fresh)
            s[i].rt = NULL;
}

static void step_open(struct slot *sl, struct slot *s, struct ht_error *err)
{
    static const enum ht_runtime_mode modes[] = {HT_RUNTIME_ALONE, HT_RUNTIME_SPLIT,
                                                 HT_RUNTIME_AUTO};
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    int rc;

    if (s->open)
        return;
    opts_for(&o, modes[rnd(3)]);
    rc = rnd(2) ? ht_runtime_open(spec_path, NULL, 0, &o, &rt, err)
                : ht_runtime_open_spec(mem_spec, &o, &rt, err);
    assert_defined(rc, err, HT_OK);
    assert_non_null(rt);
    slot_forget_stale(sl, SLOTS, rt);
    s->rt = rt;
    s->open = 1;
    s->mem = NULL;
    memset(s->bound, 0, sizeof s->bound);
    s->has_last = 0;
    s->launches = 0;
}

static void step_close(struct slot *s)
{
    ht_runtime_close(s->rt);
    s->open = 0;
    s->mem = NULL; /* freed with the runtime */
}

/* Binds one argument: mostly a, b or c with the right array, at times a scalar, a name the
 * spec lacks, NULL, a NULL array or a wrong size. */
static void bind_one(struct slot *s, unsigned which, unsigned how, struct ht_error *err)
{
    unsigned k = which < 3 ? which : 0;
    const char *name = which < 3 ? names[which] : which == 3 ? "n" : which == 4 ? "zz" : NULL;
    void *data = s->arr[k];
    size_t bytes = N * sizeof(float);
    int ok;

    if (how == 0)
        data = NULL;
    else if (how == 1)
        bytes -= sizeof(float);
    else if (how == 2 && k == 2 && s->open && s->mem)
        data = s->mem; /* the runtime's memory, for c only (never aliased with a or b) */
    ok = s->open && which < 3 && data && bytes == N * sizeof(float);
    assert_defined(ht_runtime_bind(s->rt, name, data, bytes, err), err, ok ? HT_OK : HT_EINVAL);
    if (s->open && which < 3)
        s->bound[k] = ok ? data : NULL;
    ht_error_clear(err);
}

static void step_bind(struct slot *s, struct ht_error *err)
{
    if (rnd(3) == 0) { /* all three, as a program does before its loop */
        for (unsigned k = 0; k < 3; k++)
            bind_one(s, k, 2 + rnd(6), err);
        return;
    }
    bind_one(s, rnd(4) ? rnd(3) : 3 + rnd(3), rnd(10), err);
}

static void step_alloc(struct slot *s, struct ht_error *err)
{
    size_t bytes = rnd(4) == 0 ? 0 : N * sizeof(float);
    void *p;

    if (s->open && s->mem && bytes) { /* one at a time: free the one before */
        ht_runtime_free_host(s->rt, s->mem);
        if (s->bound[2] == s->mem)
            s->bound[2] = NULL;
        s->mem = NULL;
    }
    p = ht_runtime_alloc(s->rt, bytes, err);
    if (!s->open || !bytes) {
        assert_null(p);
        assert_int_equal(err->code, HT_EINVAL);
        return;
    }
    if (!p)
        fail_msg("alloc: %s", err->text);
    s->mem = p;
}

static void step_free(struct slot *s)
{
    if (!s->open || !s->mem)
        return; /* a stale runtime's memory went with it */
    ht_runtime_free_host(s->rt, s->mem);
    if (s->bound[2] == s->mem)
        s->bound[2] = NULL;
    s->mem = NULL;
}

static unsigned launched; /* launches that ran and were checked */

static void step_launch(struct slot *s, unsigned seed, struct ht_error *err)
{
    int ready = s->open && s->bound[0] && s->bound[1] && s->bound[2];
    float *a = s->bound[0], *b = s->bound[1], *c = s->bound[2];
    int rc;

    if (ready)
        fill(a, b, c, seed);
    rc = ht_runtime_launch(s->rt, err);
    assert_defined(rc, err, ready ? HT_OK : HT_EINVAL);
    if (ready) {
        check(a, b, c);
        launched++;
        s->has_last = 1;
        s->launches++;
    } else if (s->open) {
        assert_non_null(strstr(err->text, "not bound"));
    }
}

static void step_query(struct slot *s, struct ht_error *err)
{
    const struct ht_runtime_info *info = ht_runtime_info(s->rt);
    size_t bytes = 0;
    unsigned which = rnd(5);

    if (!s->open) {
        assert_null(info);
        assert_null(ht_runtime_last(s->rt));
    } else {
        assert_non_null(info);
        assert_int_equal(info->launches, s->launches);
        assert_true(info->ndevices >= 1);
        assert_int_equal(ht_runtime_last(s->rt) != NULL, s->has_last);
    }
    assert_defined(ht_runtime_arg_bytes(s->rt, which < 3 ? names[which] : which == 3 ? "n" : "b",
                                        which == 4 ? NULL : &bytes, err),
                   err, s->open && which < 3 ? HT_OK : HT_EINVAL);
    if (s->open && which < 3)
        assert_int_equal(bytes, N * sizeof(float));
}

static void test_random_sequences(void **state)
{
    struct slot sl[SLOTS];
    const char *env = getenv("HETUNE_TEST_SEED");
    uint64_t seed = env && env[0] ? strtoull(env, NULL, 10) : 26;
    unsigned counts[8] = {0};
    (void)state;

    rng = seed * 2654435761u + 1;
    print_message("seed %llu (HETUNE_TEST_SEED)\n", (unsigned long long)seed);
    memset(sl, 0, sizeof sl);
    for (size_t i = 0; i < SLOTS; i++)
        for (size_t k = 0; k < 3; k++) {
            sl[i].arr[k] = malloc(N * sizeof(float));
            assert_non_null(sl[i].arr[k]);
        }
    for (unsigned step = 0; step < STEPS; step++) {
        struct slot *s = &sl[rnd(SLOTS)];
        struct ht_error err;
        unsigned op = rnd(100);
        ht_error_clear(&err);
        /* Weights: open 8, close 5, bind 30, alloc 6, free 4, launch 25, query 12,
         * a NULL runtime 10. */
        if (op < 8) {
            step_open(sl, s, &err);
            counts[0]++;
        } else if (op < 13) {
            step_close(s);
            counts[1]++;
        } else if (op < 43) {
            step_bind(s, &err);
            counts[2]++;
        } else if (op < 49) {
            step_alloc(s, &err);
            counts[3]++;
        } else if (op < 53) {
            step_free(s);
            counts[4]++;
        } else if (op < 78) {
            step_launch(s, step, &err);
            counts[5]++;
        } else if (op < 90) {
            step_query(s, &err);
            counts[6]++;
        } else {
            struct slot none;
            memset(&none, 0, sizeof none);
            memcpy(none.arr, s->arr, sizeof none.arr);
            if (op % 2)
                step_launch(&none, step, &err);
            else
                step_bind(&none, &err);
            counts[7]++;
        }
    }
    print_message("open %u, close %u, bind %u, alloc %u, free %u, launch %u, query %u, "
                  "NULL %u; %u launches ran and were checked\n", counts[0], counts[1],
                  counts[2], counts[3], counts[4], counts[5], counts[6], counts[7], launched);
    /* The sequence exercised launching, not only refusals. */
    assert_true(launched >= 5);
    for (size_t i = 0; i < SLOTS; i++) {
        step_close(&sl[i]);
        ht_runtime_close(sl[i].rt); /* twice */
        for (size_t k = 0; k < 3; k++)
            free(sl[i].arr[k]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_handles),
        cmocka_unit_test(test_close_twice_and_bind),
        cmocka_unit_test(test_options_by_name),
        cmocka_unit_test(test_open_from_memory),
        cmocka_unit_test(test_nodes_refused),
        cmocka_unit_test(test_random_sequences),
    };
    struct ht_platform *plat = NULL;
    struct ht_runtime_opts o;
    struct ht_runtime *rt = NULL;
    struct ht_error err;
    int rc;

    setenv("POCL_DEVICES", "pthread basic", 0);
    ht_error_clear(&err);
    if (ht_platform_discover(&plat, &err) != HT_OK) {
        fprintf(stderr, "skipped: %s\n", err.text);
        return 77;
    }
    ht_platform_free(plat);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(spec_path, sizeof spec_path, "%s/spec.json", dir);
    snprintf(kernel_path, sizeof kernel_path, "%s/kernel.cl", dir);
    snprintf(db_path, sizeof db_path, "%s/hetune.db", dir);
    write_file(spec_path, spec_json);
    write_file(kernel_path, kernel_src);
    /* Tuned once, here: every runtime after reads the database. */
    opts_for(&o, HT_RUNTIME_ALONE);
    o.tune_missing = 1;
    if (ht_runtime_open(spec_path, NULL, 0, &o, &rt, &err) != HT_OK) {
        fprintf(stderr, "tuning: %s\n", err.text);
        return 1;
    }
    ht_runtime_close(rt);
    /* The spec again from memory: the same text with the source given beside it. */
    if (ht_spec_load_buffer(spec_json, 0,
                            &(struct ht_spec_buffer_opts){.source = kernel_src, .name = "misuse"},
                            &mem_spec, &err) != HT_OK) {
        fprintf(stderr, "from memory: %s\n", err.text);
        return 1;
    }
    rc = cmocka_run_group_tests_name("runtime_misuse", tests, NULL, NULL);
    ht_spec_free(mem_spec);
    unlink(spec_path);
    unlink(kernel_path);
    unlink(db_path);
    rmdir(dir);
    return rc;
}
