/* Text that is not UTF-8 in what interop writes as JSON (issue 28 item 8): a device name in
 * a driver's own encoding in the T4 export (it was left out of every result: json_string
 * refused it), and the paths a Kernel Tuner T1 import writes into its spec (the T1 file's
 * folder in another encoding: the description keeps it with U+FFFD, a kernel file the spec
 * cannot name is refused, naming the field); and the export's filters, which compare a
 * problem's whole spec name and sizes, not the cut fields of struct ht_stored_problem. Pure:
 * a database filled by hand, no OpenCL. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "hetune/interop.h"
#include "hetune/store.h"
#include "util/util.h"

/* Latin-1 "café" and two bytes that start no UTF-8 sequence. */
#define NOT_UTF8 "caf\xe9 \xff\xfe"
#define REPLACED "caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd"

static char tmpdir[256];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int make_tmpdir(void **state)
{
    const char *base = getenv("TMPDIR");
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "%s/test_interop_utf8.XXXXXX",
             base && base[0] ? base : "/tmp");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    (void)state;
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

static void check_rc(int rc, const struct ht_error *err, const char *what)
{
    if (rc != HT_OK)
        fail_msg("%s failed: %s: %s", what, ht_err_name(rc), err->text);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

/* Stores in ev (the caller's) and then the database an "ok", verified evaluation WG=wg. */
static void put_wg(struct ht_store *s, struct ht_stored_eval *ev, int64_t problem,
                   int64_t device, int64_t wg, double seconds)
{
    struct ht_error err;

    ht_error_clear(&err);
    ht_stored_eval_init(ev);
    ev->problem_id = problem;
    ev->device_id = device;
    snprintf(ev->config, sizeof ev->config, "WG=%lld", (long long)wg);
    ev->nvalues = 1;
    ev->values[0] = wg;
    snprintf(ev->status, sizeof ev->status, "ok");
    ev->seconds = seconds;
    ev->verified = 1;
    check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "put_eval");
}

/* Opens file in tmpdir as a new database and stores one CPU device named name in it. */
static struct ht_store *open_with_device(const char *file, const char *name, int64_t *dev_id)
{
    struct ht_store *s = NULL;
    struct ht_device_info dev;
    struct ht_error err;
    char db[300];

    ht_error_clear(&err);
    snprintf(db, sizeof db, "%s/%s", tmpdir, file);
    check_rc(ht_store_open(db, &s, &err), &err, "open");
    memset(&dev, 0, sizeof dev);
    snprintf(dev.platform, sizeof dev.platform, "Portable Computing Language");
    snprintf(dev.name, sizeof dev.name, "%s", name);
    snprintf(dev.vendor, sizeof dev.vendor, "GenuineIntel");
    snprintf(dev.driver_version, sizeof dev.driver_version, "5.0");
    dev.compute_units = 2;
    check_rc(ht_store_device_id(s, &dev, dev_id, &err), &err, "device");
    return s;
}

/* The spec "vecadd" of kernel vadd, one parameter, its sizes the caller's. */
static void fill_vadd(struct ht_spec *spec, struct ht_param *param, size_t nsizes,
                      char **size_names, int64_t *size_values)
{
    memset(spec, 0, sizeof *spec);
    spec->name = "vecadd";
    spec->path = "vecadd.json";
    spec->kernel_path = "vecadd.cl";
    spec->kernel_name = "vadd";
    spec->kernel_options = "";
    spec->source = "__kernel void vadd() {}";
    spec->source_len = strlen(spec->source);
    spec->space.nsizes = nsizes;
    spec->space.size_names = size_names;
    spec->space.size_values = size_values;
    spec->space.nparams = 1;
    spec->space.params = param;
}

static void test_export_t4_device_name(void **state)
{
    struct ht_store *s;
    struct ht_stored_eval *ev = calloc(1, sizeof *ev);
    struct ht_spec spec;
    struct ht_param param = {.name = "WG"};
    char *size_names[] = {"N"}, *text = NULL;
    int64_t size_values[] = {64}, dev_id, kernel, problem;
    struct ht_error err;
    json_error_t jerr;
    json_t *doc, *r;
    (void)state;

    assert_non_null(ev);
    ht_error_clear(&err);
    s = open_with_device("export.db", "cpu " NOT_UTF8, &dev_id);
    fill_vadd(&spec, &param, 1, size_names, size_values);
    check_rc(ht_store_kernel_id(s, &spec, &kernel, &err), &err, "kernel");
    check_rc(ht_store_problem_id(s, kernel, &spec, &problem, &err), &err, "problem");

    put_wg(s, ev, problem, dev_id, 8, 0.001);
    free(ev);

    check_rc(ht_export_t4(s, NULL, &text, &err), &err, "export");

    /* A spec's name is compared whole, not the 255 bytes of it a stored problem's
     * spec_name keeps: a name of 300 bytes is found, its first 255 name nothing. */
    char long_name[301], prefix[256];
    memset(long_name, 'v', 300);
    long_name[300] = '\0';
    memcpy(prefix, long_name, 255);
    prefix[255] = '\0';
    spec.name = long_name;
    spec.source = "__kernel void vadd() { /* long */ }";
    spec.source_len = strlen(spec.source);
    check_rc(ht_store_kernel_id(s, &spec, &kernel, &err), &err, "kernel");
    check_rc(ht_store_problem_id(s, kernel, &spec, &problem, &err), &err, "problem");
    ev = calloc(1, sizeof *ev);
    assert_non_null(ev);
    put_wg(s, ev, problem, dev_id, 16, 0.002);
    free(ev);
    const char *names[] = {long_name};
    struct ht_export_filter filter = {names, 1, NULL, 0};
    char *only = NULL;
    check_rc(ht_export_t4(s, &filter, &only, &err), &err, "export of the long name");
    assert_non_null(strstr(only, "\"WG\": 16"));
    assert_null(strstr(only, "\"WG\": 8"));
    free(only);
    names[0] = prefix;
    only = NULL;
    ht_error_clear(&err);
    assert_int_equal(ht_export_t4(s, &filter, &only, &err), HT_ENOTFOUND);
    free(only);
    ht_store_close(s);
    doc = json_loads(text, 0, &jerr);
    if (!doc)
        fail_msg("the export is no JSON: %s\n%s", jerr.text, text);
    r = json_array_get(json_object_get(doc, "results"), 0);
    assert_non_null(r);
    assert_non_null(json_object_get(r, "device"));
    assert_string_equal(json_string_value(json_object_get(r, "device")), "cpu " REPLACED);
    assert_string_equal(json_string_value(json_object_get(r, "kernel")), "vadd");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "configuration"),
                                                        "WG")), 8);
    json_decref(doc);
    free(text);
}

static char sizes_whole_seen[2048];

/* Keeps the listing's only problem and a copy of its whole sizes (borrowed for the call). */
static int copy_problem(const struct ht_stored_problem *p, void *user)
{
    memcpy(user, p, sizeof *p);
    snprintf(sizes_whole_seen, sizeof sizes_whole_seen, "%s", p->sizes_whole);
    return 0;
}
/* --size NAME=VALUE compares the problem's whole sizes text, not the HT_STORE_CONFIG_MAX - 1
 * bytes of it a stored problem's sizes keeps: sizes of 1025 characters whose cut falls in
 * "N=4096", leaving "N=40", are found by N=4096 and not by N=40. */
static void test_export_long_sizes(void **state)
{
    enum { NA = 73 };
    struct ht_store *s;
    struct ht_stored_eval *ev = calloc(1, sizeof *ev);
    struct ht_spec spec;
    struct ht_param param = {.name = "WG"};
    char names[NA + 1][16], *size_names[NA + 1], *text = NULL;
    int64_t size_values[NA + 1], dev_id, kernel, problem;
    struct ht_error err;
    (void)state;

    assert_non_null(ev);
    /* A00..A71 = 123456789 (14 characters each with the comma), A72 = 123456 (11): 1019
     * characters before "N=4096", so bytes 1019..1022 are "N=40". */
    for (int i = 0; i < NA; i++) {
        snprintf(names[i], sizeof names[i], "A%02d", i);
        size_names[i] = names[i];
        size_values[i] = i < NA - 1 ? 123456789 : 123456;
    }
    snprintf(names[NA], sizeof names[NA], "N");
    size_names[NA] = names[NA];
    size_values[NA] = 4096;

    ht_error_clear(&err);
    s = open_with_device("sizes.db", "cpu", &dev_id);
    fill_vadd(&spec, &param, NA + 1, size_names, size_values);
    check_rc(ht_store_kernel_id(s, &spec, &kernel, &err), &err, "kernel");
    check_rc(ht_store_problem_id(s, kernel, &spec, &problem, &err), &err, "problem");
    put_wg(s, ev, problem, dev_id, 8, 0.001);
    free(ev);

    /* The premise: the listing's sizes field is cut inside N's value; sizes_whole is not. */
    struct ht_stored_problem seen;
    memset(&seen, 0, sizeof seen);
    check_rc(ht_store_list_problems(s, 0, copy_problem, &seen, &err), &err, "list");
    assert_int_equal(strlen(seen.sizes), HT_STORE_CONFIG_MAX - 1);
    assert_string_equal(seen.sizes + strlen(seen.sizes) - 5, ",N=40");
    assert_non_null(strstr(sizes_whole_seen, ",N=4096"));
    assert_int_equal(strlen(sizes_whole_seen), 1025);

    struct ht_size_override want = {"N", 4096};
    struct ht_export_filter filter = {NULL, 0, &want, 1};
    check_rc(ht_export_t4(s, &filter, &text, &err), &err, "export of N=4096");
    assert_non_null(strstr(text, "\"WG\": 8"));
    free(text);
    text = NULL;
    want.value = 40;
    ht_error_clear(&err);
    assert_int_equal(ht_export_t4(s, &filter, &text, &err), HT_ENOTFOUND);
    free(text);
    text = NULL;
    /* A size inside the kept bytes is found as before. */
    want.name = "A00";
    want.value = 123456789;
    check_rc(ht_export_header(s, &filter, &text, &err), &err, "header of A00");
    free(text);
    ht_store_close(s);
}

/* Stores problem `sizes` of spec (its sizes from A00.. and N = n) with an evaluation of
 * both its parameters, WG = 8 and the long one = 3, on device dev. */
static void put_long_problem(struct ht_store *s, struct ht_spec *spec, int64_t dev, int64_t n)
{
    enum { NA = 73 };
    static char names[NA + 1][16];
    char *size_names[NA + 1];
    int64_t size_values[NA + 1], kernel, problem;
    struct ht_stored_eval *ev = calloc(1, sizeof *ev);
    struct ht_error err;

    assert_non_null(ev);
    ht_error_clear(&err);
    for (int i = 0; i <= NA; i++) {
        snprintf(names[i], sizeof names[i], i < NA ? "A%02d" : "N", i);
        size_names[i] = names[i];
        size_values[i] = i < NA ? 123456789 : n;
    }
    spec->space.nsizes = NA + 1;
    spec->space.size_names = size_names;
    spec->space.size_values = size_values;
    check_rc(ht_store_kernel_id(s, spec, &kernel, &err), &err, "kernel");
    check_rc(ht_store_problem_id(s, kernel, spec, &problem, &err), &err, "problem");
    ht_stored_eval_init(ev);
    ev->problem_id = problem;
    ev->device_id = dev;
    snprintf(ev->config, sizeof ev->config, "WG=8,LONG=3");
    ev->nvalues = 2;
    ev->values[0] = 8;
    ev->values[1] = 3;
    snprintf(ev->status, sizeof ev->status, "ok");
    ev->seconds = 0.001;
    ev->verified = 1;
    check_rc(ht_store_put_eval(s, ev, NULL, &err), &err, "put_eval");
    spec->space.nsizes = 0;
    spec->space.size_names = NULL;
    spec->space.size_values = NULL;
    free(ev);
}

/* What the exports write of a problem is whole, however long, in both formats (T4 JSON and
 * the C header): a kernel and a spec named by 300 bytes (a stored problem keeps 255), sizes
 * of 1025 bytes ending in ",N=4096" (it keeps 1023, "...,N=40") and a parameter named by
 * 1100 bytes (its params keep 1023). An older problem of the kernel, left out of the
 * header, is named by its whole sizes too. */
static void test_export_whole_texts(void **state)
{
    struct ht_store *s;
    struct ht_spec spec;
    struct ht_param params[2] = {{.name = "WG"}, {.name = NULL}};
    char kernel[301], spec_name[301], param[1101], kslug[301], pslug[1101];
    char sizes[1100], older[sizeof sizes + 8], *text = NULL, *want = NULL;
    int64_t dev_id;
    struct ht_error err;
    json_error_t jerr;
    json_t *doc, *r;
    (void)state;

    memset(kernel, 'k', 300);
    kernel[300] = '\0';
    memset(spec_name, 's', 300);
    spec_name[300] = '\0';
    memset(param, 'p', 1100);
    param[1100] = '\0';
    memset(kslug, 'K', 300);
    kslug[300] = '\0';
    memset(pslug, 'P', 1100);
    pslug[1100] = '\0';
    /* The sizes text the store keeps for N = 4096 (and 4095, older): sorted by name. */
    size_t len = 0;
    for (int i = 0; i < 73; i++)
        len += (size_t)snprintf(sizes + len, sizeof sizes - len, "A%02d=123456789,", i);
    snprintf(older, sizeof older, "%sN=4095", sizes);
    snprintf(sizes + len, sizeof sizes - len, "N=4096");
    assert_true(strlen(sizes) > HT_STORE_CONFIG_MAX);

    ht_error_clear(&err);
    s = open_with_device("whole.db", "cpu", &dev_id);
    fill_vadd(&spec, params, 0, NULL, NULL);
    spec.name = spec_name;
    spec.kernel_name = kernel;
    params[1].name = param;
    spec.space.nparams = 2;
    put_long_problem(s, &spec, dev_id, 4095);
    put_long_problem(s, &spec, dev_id, 4096);

    /* T4: every result names its kernel and its problem's sizes whole, and its
     * configuration the long parameter by its whole name. */
    check_rc(ht_export_t4(s, NULL, &text, &err), &err, "export t4");
    doc = json_loads(text, 0, &jerr);
    if (!doc)
        fail_msg("the export is no JSON: %s", jerr.text);
    assert_int_equal(json_array_size(json_object_get(doc, "results")), 2);
    r = json_array_get(json_object_get(doc, "results"), 1);
    assert_string_equal(json_string_value(json_object_get(r, "problem")), sizes);
    assert_string_equal(json_string_value(json_object_get(r, "kernel")), kernel);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "configuration"),
                                                        param)), 3);
    r = json_array_get(json_object_get(doc, "results"), 0);
    assert_string_equal(json_string_value(json_object_get(r, "problem")), older);
    json_decref(doc);
    free(text);
    text = NULL;

    /* The header: the newest problem's comment and macros whole, the older one's listing. */
    check_rc(ht_export_header(s, NULL, &text, &err), &err, "export header");
    want = ht__asprintf("/* kernel %s of spec %s at %s */\n", kernel, spec_name, sizes);
    assert_non_null(want);
    if (!strstr(text, want))
        fail_msg("the header lacks the whole comment of the problem:\n%s", text);
    free(want);
    want = ht__asprintf("#define HETUNE_%s_CPU_%s 3\n", kslug, pslug);
    assert_non_null(want);
    if (!strstr(text, want))
        fail_msg("the header lacks the long parameter's whole macro");
    free(want);
    want = ht__asprintf("/* left out: kernel %s at %s (older);", kernel, older);
    assert_non_null(want);
    if (!strstr(text, want))
        fail_msg("the header lacks the older problem's whole listing");
    free(want);
    free(text);
    ht_store_close(s);
}

/* A T1 file in a folder whose name is not UTF-8, with its kernel beside it. */
static void write_t1(char *dir, size_t dirsz, char *t1, size_t t1sz)
{
    snprintf(dir, dirsz, "%s/%s", tmpdir, NOT_UTF8);
    assert_true(mkdir(dir, 0700) == 0 || access(dir, F_OK) == 0);
    snprintf(t1, t1sz, "%s/t1.json", dir);
    write_text(t1, "{\n"
                   "  \"General\": {\"FormatVersion\": 1},\n"
                   "  \"ConfigurationSpace\": {\"TuningParameters\": [\n"
                   "    {\"Name\": \"bs\", \"Type\": \"int\", \"Values\": \"[8, 16]\"}]},\n"
                   "  \"KernelSpecification\": {\n"
                   "    \"Language\": \"OpenCL\", \"KernelName\": \"vadd\",\n"
                   "    \"KernelFile\": \"k.cl\", \"GlobalSizeType\": \"OpenCL\",\n"
                   "    \"GlobalSize\": {\"X\": \"64\"}, \"LocalSize\": {\"X\": \"bs\"},\n"
                   "    \"Arguments\": [\n"
                   "      {\"Name\": \"c\", \"Type\": \"float\", \"MemoryType\": \"Vector\",\n"
                   "       \"AccessType\": \"WriteOnly\", \"Size\": 64, \"FillType\": \"Random\"}]}\n"
                   "}\n");
    {
        char k[600];
        snprintf(k, sizeof k, "%s/k.cl", dir);
        write_text(k, "__kernel void vadd(__global float *c) { c[get_global_id(0)] = 1; }\n");
    }
}

static void test_kt_import_beside(void **state)
{
    char dir[512], t1[600], *spec = NULL, *notes = NULL;
    struct ht_error err;
    json_error_t jerr;
    json_t *doc;
    (void)state;

    write_t1(dir, sizeof dir, t1, sizeof t1);
    /* The spec beside the T1 file: KernelFile as written (UTF-8), the T1 path only in the
     * description, its odd bytes as U+FFFD (json_sprintf refused it: no description). */
    ht_error_clear(&err);
    check_rc(ht_kt_import_t1(t1, dir, &spec, &notes, &err), &err, "import-kt beside");
    doc = json_loads(spec, 0, &jerr);
    if (!doc)
        fail_msg("the spec is no JSON: %s\n%s", jerr.text, spec);
    assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "kernel"),
                                                          "file")), "k.cl");
    assert_non_null(json_string_value(json_object_get(doc, "description")));
    assert_non_null(strstr(json_string_value(json_object_get(doc, "description")),
                           REPLACED "/t1.json"));
    json_decref(doc);
    free(spec);
    free(notes);
}

static void test_kt_import_elsewhere(void **state)
{
    char dir[512], t1[600], *spec = NULL, *notes = NULL;
    struct ht_error err;
    (void)state;

    write_t1(dir, sizeof dir, t1, sizeof t1);
    /* The spec elsewhere: it would have to name the kernel by its absolute path, which a
     * JSON spec cannot hold, and U+FFFD would name another file: refused, the field named. */
    ht_error_clear(&err);
    assert_int_equal(ht_kt_import_t1(t1, tmpdir, &spec, &notes, &err), HT_ESPEC);
    assert_null(spec);
    assert_string_equal(err.field, "KernelSpecification.KernelFile");
    assert_non_null(strstr(err.text, "not UTF-8"));
    assert_non_null(strstr(err.text, REPLACED "/k.cl"));
    free(notes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_t4_device_name),
        cmocka_unit_test(test_export_long_sizes),
        cmocka_unit_test(test_export_whole_texts),
        cmocka_unit_test(test_kt_import_beside),
        cmocka_unit_test(test_kt_import_elsewhere),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
