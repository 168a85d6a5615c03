/* Device discovery on the real OpenCL platform (PoCL in CI), device lookup by index and by
 * name, device variables, slugs, whether a driver caches programs and the MiniZinc data
 * files. Skipped (77) without OpenCL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hetune.h"
#include "util/util.h"

static struct ht_platform *plat;

static void test_discover_sane(void **state)
{
    (void)state;
    assert_non_null(plat);
    assert_true(plat->count >= 1);
    assert_non_null(plat->devices);
    for (size_t i = 0; i < plat->count; i++) {
        const struct ht_device_info *d = &plat->devices[i];
        assert_int_equal(d->index, i);
        assert_true(d->name[0] != '\0');
        assert_true(d->platform[0] != '\0');
        assert_true(strncmp(d->version, "OpenCL ", 7) == 0);
        assert_true(d->max_work_group_size >= 1);
        assert_true(d->max_work_item_dims >= 1 && d->max_work_item_dims <= 3);
        for (uint32_t k = 0; k < 3; k++) {
            assert_true(d->max_work_item_sizes[k] >= 1);
            if (k >= d->max_work_item_dims)
                assert_int_equal(d->max_work_item_sizes[k], 1);
        }
        assert_true(d->compute_units >= 1);
        assert_true(d->local_mem_size > 0);
        assert_true(d->global_mem_size > 0);
        assert_true(d->max_mem_alloc_size > 0);
        assert_true(d->max_mem_alloc_size <= d->global_mem_size);
        assert_non_null(d->cl_device);
        assert_non_null(d->cl_platform);
        assert_true(strcmp(d->type, "CPU") == 0 || strcmp(d->type, "GPU") == 0 ||
                    strcmp(d->type, "ACCELERATOR") == 0 || strcmp(d->type, "CUSTOM") == 0 ||
                    strcmp(d->type, "DEFAULT") == 0);
        assert_int_equal(d->is_cpu, strcmp(d->type, "CPU") == 0);
        assert_int_equal(d->is_gpu, strcmp(d->type, "GPU") == 0);
        assert_true(d->profiling == 0 || d->profiling == 1);
    }
}

static void test_find_by_index(void **state)
{
    struct ht_error err;
    char buf[32];
    size_t idx = 999;

    (void)state;
    for (size_t i = 0; i < plat->count; i++) {
        ht_error_clear(&err);
        snprintf(buf, sizeof buf, "%zu", i);
        assert_int_equal(ht_platform_find(plat, buf, &idx, &err), HT_OK);
        assert_int_equal(idx, i);
        assert_int_equal(err.code, 0);
    }
    ht_error_clear(&err);
    snprintf(buf, sizeof buf, "%zu", plat->count);
    assert_int_equal(ht_platform_find(plat, buf, &idx, &err), HT_ENODEVICE);
    assert_int_equal(err.code, HT_ENODEVICE);
    assert_non_null(strstr(err.text, "no device with index"));
    /* The message lists the devices there are. */
    assert_non_null(strstr(err.text, plat->devices[0].name));

    ht_error_clear(&err);
    assert_int_equal(ht_platform_find(plat, "99999999999999999999999", &idx, &err),
                     HT_ENODEVICE);
}

/* Upper-cases s so the lookup is seen to ignore case. */
static void upper(char *s)
{
    for (; *s; s++)
        *s = (char)toupper((unsigned char)*s);
}

static void test_find_by_name(void **state)
{
    struct ht_error err;
    char name[2 * sizeof plat->devices[0].name + 1];
    size_t idx = 999;
    size_t unique = plat->count;

    (void)state;
    /* A device whose full name is unique must be found by it. */
    for (size_t i = 0; i < plat->count && unique == plat->count; i++) {
        size_t same = 0;
        for (size_t j = 0; j < plat->count; j++) {
            snprintf(name, sizeof name, "%s %s", plat->devices[j].platform,
                     plat->devices[j].name);
            same += strstr(name, plat->devices[i].name) != NULL;
        }
        if (same == 1)
            unique = i;
    }
    if (unique == plat->count)
        skip();
    snprintf(name, sizeof name, "%s", plat->devices[unique].name);
    upper(name);
    ht_error_clear(&err);
    assert_int_equal(ht_platform_find(plat, name, &idx, &err), HT_OK);
    assert_int_equal(idx, unique);

    /* "<platform> <name>" is what is matched, so a part spanning both works too. */
    snprintf(name, sizeof name, "%s %s", plat->devices[unique].platform,
             plat->devices[unique].name);
    ht_error_clear(&err);
    assert_int_equal(ht_platform_find(plat, name, &idx, &err), HT_OK);
    assert_int_equal(idx, unique);
}

static void test_find_unknown(void **state)
{
    struct ht_error err;
    size_t idx = 999;

    (void)state;
    ht_error_clear(&err);
    assert_int_equal(ht_platform_find(plat, "no-such-device-xyzzy", &idx, &err), HT_ENODEVICE);
    assert_int_equal(idx, 999);
    assert_non_null(strstr(err.text, "no-such-device-xyzzy"));
    for (size_t i = 0; i < plat->count; i++)
        assert_non_null(strstr(err.text, plat->devices[i].name));

    ht_error_clear(&err);
    assert_int_equal(ht_platform_find(plat, "", &idx, &err), HT_ENODEVICE);
}

/* The platform name is part of every device's match string, so with two devices or more on
 * one platform its name is ambiguous; with one device it must resolve. */
static void test_find_ambiguous(void **state)
{
    struct ht_error err;
    size_t idx = 999, same = 0;
    const char *pname = plat->devices[0].platform;
    char index_text[32];

    (void)state;
    for (size_t i = 0; i < plat->count; i++)
        same += strcmp(plat->devices[i].platform, pname) == 0;
    ht_error_clear(&err);
    int rc = ht_platform_find(plat, pname, &idx, &err);
    if (same == 1) {
        assert_int_equal(rc, HT_OK);
        assert_int_equal(idx, 0);
        return;
    }
    assert_int_equal(rc, HT_ENODEVICE);
    assert_int_equal(idx, 999);
    assert_non_null(strstr(err.text, "matches"));
    for (size_t i = 0; i < plat->count; i++) {
        if (strcmp(plat->devices[i].platform, pname) != 0)
            continue;
        snprintf(index_text, sizeof index_text, "%zu: ", i);
        assert_non_null(strstr(err.text, index_text));
        assert_non_null(strstr(err.text, plat->devices[i].name));
    }
}

static struct ht_device_info fake_device(void);

/* Lookup is pure, so a made-up platform tests ambiguity whatever the machine has. */
static void test_find_fake_platform(void **state)
{
    struct ht_device_info devs[3];
    struct ht_platform fake = {3, devs};
    struct ht_error err;
    size_t idx = 999;

    (void)state;
    for (size_t i = 0; i < 3; i++) {
        devs[i] = fake_device();
        devs[i].index = i;
    }
    snprintf(devs[0].name, sizeof devs[0].name, "pthread-cpu");
    snprintf(devs[1].name, sizeof devs[1].name, "basic-cpu");
    snprintf(devs[2].platform, sizeof devs[2].platform, "Other Vendor");
    snprintf(devs[2].name, sizeof devs[2].name, "Big GPU");

    ht_error_clear(&err);
    assert_int_equal(ht_platform_find(&fake, "CPU", &idx, &err), HT_ENODEVICE);
    assert_int_equal(idx, 999);
    assert_non_null(strstr(err.text, "'CPU' matches 2 devices"));
    assert_non_null(strstr(err.text, "0: Test Platform pthread-cpu"));
    assert_non_null(strstr(err.text, "1: Test Platform basic-cpu"));
    assert_null(strstr(err.text, "Big GPU"));

    ht_error_clear(&err);
    assert_int_equal(ht_platform_find(&fake, "test platform", &idx, &err), HT_ENODEVICE);

    ht_error_clear(&err);
    assert_int_equal(ht_platform_find(&fake, "Basic", &idx, &err), HT_OK);
    assert_int_equal(idx, 1);
    ht_error_clear(&err);
    assert_int_equal(ht_platform_find(&fake, "other", &idx, &err), HT_OK);
    assert_int_equal(idx, 2);
    ht_error_clear(&err);
    assert_int_equal(ht_platform_find(&fake, "form pthread", &idx, &err), HT_OK);
    assert_int_equal(idx, 0);
    ht_error_clear(&err);
    assert_int_equal(ht_platform_find(&fake, "2", &idx, &err), HT_OK);
    assert_int_equal(idx, 2);

    ht_error_clear(&err);
    assert_int_equal(ht_platform_find(&fake, "3", &idx, &err), HT_ENODEVICE);
    assert_non_null(strstr(err.text, "2: Other Vendor Big GPU"));
    ht_error_clear(&err);
    assert_int_equal(ht_platform_find(&fake, "tpu", &idx, &err), HT_ENODEVICE);
    assert_non_null(strstr(err.text, "no device matches 'tpu'"));
    assert_non_null(strstr(err.text, "0: Test Platform pthread-cpu"));
    assert_non_null(strstr(err.text, "1: Test Platform basic-cpu"));
    assert_non_null(strstr(err.text, "2: Other Vendor Big GPU"));
}

static struct ht_device_info fake_device(void)
{
    struct ht_device_info d;
    memset(&d, 0, sizeof d);
    d.index = 3;
    snprintf(d.platform, sizeof d.platform, "Test Platform");
    snprintf(d.name, sizeof d.name, "  pthread-Skylake--AVX512 (R)\nXeon ");
    snprintf(d.type, sizeof d.type, "GPU");
    snprintf(d.version, sizeof d.version, "OpenCL 1.2 test");
    snprintf(d.driver_version, sizeof d.driver_version, "9.9");
    d.is_gpu = 1;
    d.compute_units = 132;
    d.max_work_group_size = 1024;
    d.max_work_item_dims = 3;
    d.max_work_item_sizes[0] = 1024;
    d.max_work_item_sizes[1] = 512;
    d.max_work_item_sizes[2] = 64;
    d.local_mem_size = 49152;
    d.global_mem_size = UINT64_C(150000000000);
    d.max_mem_alloc_size = UINT64_C(37500000000);
    return d;
}

static void test_slug(void **state)
{
    struct ht_device_info d = fake_device();
    char buf[128], small[8];

    (void)state;
    ht_device_slug(&d, buf, sizeof buf);
    assert_string_equal(buf, "3_pthread_skylake_avx512_r_xeon");

    ht_device_slug(&d, small, sizeof small);
    assert_true(strlen(small) < sizeof small);
    assert_true(strncmp(small, "3_pthre", sizeof small - 1) == 0);

    snprintf(d.name, sizeof d.name, "%s", "---");
    ht_device_slug(&d, buf, sizeof buf);
    assert_string_equal(buf, "3");

    /* Every real device: digits of its index, '_', then [a-z0-9_] only, no "__", no '_' at
     * the end. */
    for (size_t i = 0; i < plat->count; i++) {
        char prefix[32];
        ht_device_slug(&plat->devices[i], buf, sizeof buf);
        snprintf(prefix, sizeof prefix, "%zu_", i);
        assert_true(strncmp(buf, prefix, strlen(prefix)) == 0);
        assert_int_equal(strspn(buf, "abcdefghijklmnopqrstuvwxyz0123456789_"), strlen(buf));
        assert_null(strstr(buf, "__"));
        assert_true(buf[strlen(buf) - 1] != '_');
    }
}

/* ht_device_caches_programs: PoCL's driver caches the programs it builds unless its
 * POCL_KERNEL_CACHE is 0 (read at each call); another platform's never. */
static void test_caches_programs(void **state)
{
    struct ht_device_info pocl = fake_device(), other = fake_device();
    const char *was = getenv("POCL_KERNEL_CACHE");
    char *saved = was ? strdup(was) : NULL;

    (void)state;
    snprintf(pocl.platform, sizeof pocl.platform, "Portable Computing Language");
    snprintf(other.platform, sizeof other.platform, "Other Vendor");
    unsetenv("POCL_KERNEL_CACHE");
    assert_int_equal(ht_device_caches_programs(&pocl), 1);
    assert_int_equal(ht_device_caches_programs(&other), 0);
    setenv("POCL_KERNEL_CACHE", "0", 1);
    assert_int_equal(ht_device_caches_programs(&pocl), 0);
    assert_int_equal(ht_device_caches_programs(&other), 0);
    setenv("POCL_KERNEL_CACHE", "1", 1);
    assert_int_equal(ht_device_caches_programs(&pocl), 1);
    if (saved)
        setenv("POCL_KERNEL_CACHE", saved, 1);
    else
        unsetenv("POCL_KERNEL_CACHE");
    free(saved);
}

static void test_device_vars(void **state)
{
    int64_t vals[HT_DEVICE_NVARS];

    (void)state;
    assert_string_equal(ht_device_var_names[HT_DEVVAR_MAX_WORK_GROUP_SIZE],
                        "max_work_group_size");
    assert_string_equal(ht_device_var_names[HT_DEVVAR_IS_GPU], "is_gpu");
    for (int i = 0; i < HT_DEVICE_NVARS; i++) {
        assert_non_null(ht_device_var_names[i]);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(ht_device_var_names[i], ht_device_var_names[j]);
    }
    for (size_t i = 0; i < plat->count; i++) {
        const struct ht_device_info *d = &plat->devices[i];
        ht_device_vars(d, vals);
        assert_int_equal(vals[HT_DEVVAR_MAX_WORK_GROUP_SIZE], d->max_work_group_size);
        assert_int_equal(vals[HT_DEVVAR_MAX_WORK_ITEM_SIZE_0], d->max_work_item_sizes[0]);
        assert_int_equal(vals[HT_DEVVAR_MAX_WORK_ITEM_SIZE_1], d->max_work_item_sizes[1]);
        assert_int_equal(vals[HT_DEVVAR_MAX_WORK_ITEM_SIZE_2], d->max_work_item_sizes[2]);
        assert_int_equal(vals[HT_DEVVAR_COMPUTE_UNITS], d->compute_units);
        assert_int_equal(vals[HT_DEVVAR_LOCAL_MEM_SIZE], d->local_mem_size);
        assert_int_equal(vals[HT_DEVVAR_GLOBAL_MEM_SIZE], d->global_mem_size);
        assert_int_equal(vals[HT_DEVVAR_MAX_MEM_ALLOC_SIZE], d->max_mem_alloc_size);
        assert_int_equal(vals[HT_DEVVAR_IS_CPU], d->is_cpu);
        assert_int_equal(vals[HT_DEVVAR_IS_GPU], d->is_gpu);
    }
    struct ht_device_info big = fake_device();
    big.global_mem_size = UINT64_MAX;
    ht_device_vars(&big, vals);
    assert_true(vals[HT_DEVVAR_GLOBAL_MEM_SIZE] == INT64_MAX);
    assert_int_equal(vals[HT_DEVVAR_IS_GPU], 1);
    assert_int_equal(vals[HT_DEVVAR_IS_CPU], 0);
}

/* Reads "name = <int>;" from MiniZinc data text; fails the test when it is missing. */
static long long dzn_value(const char *text, const char *name)
{
    char key[64];
    const char *line = text;
    long long v;

    snprintf(key, sizeof key, "%s = %%lld;", name);
    while (line && *line) {
        if (*line != '%' && strncmp(line, name, strlen(name)) == 0 &&
            line[strlen(name)] == ' ' && sscanf(line, key, &v) == 1)
            return v;
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    fail_msg("'%s' not in the .dzn data", name);
    return -1;
}

/* Every line is a '%' comment or "name = int;" with a known name. */
static void check_dzn_lines(const char *text)
{
    static const char *const names[] = {
        "max_wg_size_0",  "max_wg_size_1",   "max_wg_size_2",      "max_total_wg_size",
        "num_compute_units", "local_mem_size", "global_mem_size", "max_mem_alloc_size",
        "is_cpu",         "is_gpu"};
    const char *line = text;
    size_t assignments = 0;

    while (*line) {
        const char *end = strchr(line, '\n');
        assert_non_null(end);
        if (*line != '%') {
            char name[64], rest[8];
            long long v;
            assert_int_equal(sscanf(line, "%63[a-z_0-9] = %lld%1[;]", name, &v, rest), 3);
            int known = 0;
            for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
                known |= strcmp(names[i], name) == 0;
            assert_true(known);
            assert_true(v >= 0);
            assignments++;
        }
        line = end + 1;
    }
    assert_int_equal(assignments, sizeof names / sizeof names[0]);
}

static void test_dzn(void **state)
{
    char dir[] = "/tmp/hetune-test-platform-XXXXXX";
    char path[512], slug[300], *sub = NULL, *text = NULL, *expect = NULL;
    struct ht_error err;
    size_t len;

    (void)state;
    assert_non_null(mkdtemp(dir));
    sub = ht__path_join(dir, "a/b");
    assert_non_null(sub);
    for (size_t i = 0; i < plat->count; i++) {
        const struct ht_device_info *d = &plat->devices[i];
        ht_error_clear(&err);
        assert_int_equal(ht_device_write_dzn(d, sub, path, sizeof path, &err), HT_OK);
        ht_device_slug(d, slug, sizeof slug);
        expect = ht__asprintf("%s/%s.dzn", sub, slug);
        assert_string_equal(path, expect);
        free(expect);
        assert_int_equal(ht__read_file(path, &text, &len, &err), HT_OK);
        check_dzn_lines(text);
        assert_non_null(strstr(text, d->name));
        assert_int_equal(dzn_value(text, "max_wg_size_0"), d->max_work_item_sizes[0]);
        assert_int_equal(dzn_value(text, "max_wg_size_1"), d->max_work_item_sizes[1]);
        assert_int_equal(dzn_value(text, "max_wg_size_2"), d->max_work_item_sizes[2]);
        assert_int_equal(dzn_value(text, "max_total_wg_size"), d->max_work_group_size);
        assert_int_equal(dzn_value(text, "num_compute_units"), d->compute_units);
        assert_int_equal(dzn_value(text, "local_mem_size"), d->local_mem_size);
        assert_int_equal(dzn_value(text, "global_mem_size"), d->global_mem_size);
        assert_int_equal(dzn_value(text, "max_mem_alloc_size"), d->max_mem_alloc_size);
        assert_int_equal(dzn_value(text, "is_cpu"), d->is_cpu);
        assert_int_equal(dzn_value(text, "is_gpu"), d->is_gpu);
        unlink(path);
        free(text);
        text = NULL;
    }

    /* A newline in a device name must not end the comment line and break the data. */
    struct ht_device_info d = fake_device();
    ht_error_clear(&err);
    assert_int_equal(ht_device_write_dzn(&d, sub, NULL, 0, &err), HT_OK);
    expect = ht__asprintf("%s/3_pthread_skylake_avx512_r_xeon.dzn", sub);
    assert_int_equal(ht__read_file(expect, &text, &len, &err), HT_OK);
    check_dzn_lines(text);
    assert_int_equal(dzn_value(text, "global_mem_size"), 150000000000LL);
    assert_int_equal(dzn_value(text, "max_wg_size_1"), 512);
    assert_int_equal(dzn_value(text, "is_gpu"), 1);
    unlink(expect);
    free(expect);
    free(text);

    /* A path buffer too small is refused, not cut. */
    ht_error_clear(&err);
    assert_int_equal(ht_device_write_dzn(&d, sub, path, 8, &err), HT_EINVAL);

    /* A file where the folder should be: HT_EIO. */
    char *blocker = ht__path_join(dir, "file");
    FILE *f = fopen(blocker, "w");
    assert_non_null(f);
    fclose(f);
    ht_error_clear(&err);
    assert_int_equal(ht_device_write_dzn(&d, blocker, path, sizeof path, &err), HT_EIO);
    assert_int_equal(err.code, HT_EIO);
    unlink(blocker);
    free(blocker);

    char *b = ht__path_join(dir, "a/b"), *a = ht__path_join(dir, "a");
    rmdir(b);
    rmdir(a);
    rmdir(dir);
    free(a);
    free(b);
    free(sub);
}

int main(void)
{
    struct ht_error err;
    int rc;

    ht_error_clear(&err);
    rc = ht_platform_discover(&plat, &err);
    if (rc == HT_ENOPLATFORM) {
        fprintf(stderr, "skipped: %s\n", err.text);
        assert_null(plat);
        return 77;
    }
    if (rc != HT_OK) {
        fprintf(stderr, "discovery failed: %s\n", err.text);
        return 1;
    }

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_discover_sane),  cmocka_unit_test(test_find_by_index),
        cmocka_unit_test(test_find_by_name),   cmocka_unit_test(test_find_unknown),
        cmocka_unit_test(test_find_ambiguous), cmocka_unit_test(test_find_fake_platform),
        cmocka_unit_test(test_slug),           cmocka_unit_test(test_caches_programs),
        cmocka_unit_test(test_device_vars),    cmocka_unit_test(test_dzn),
    };
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    ht_platform_free(plat);
    return rc;
}
