/* Unit tests of the bandwidth table of the results database (src/store/bandwidth.c),
 * without OpenCL: a round trip of every field, the latest row wins, each device keeps its
 * own, HT_ENOTFOUND when none, malformed measurements refused, and a database of the
 * previous schema version migrated forward with its rows kept; the host memory's rate per
 * machine. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hetune/exec.h"
#include "hetune/store.h"
#include "store/store-internal.h"
#include "store-test.h"

static int64_t device_id(struct ht_store *s, const char *name)
{
    struct ht_device_info d;
    struct ht_error err;
    int64_t id = 0;

    memset(&d, 0, sizeof d);
    snprintf(d.platform, sizeof d.platform, "Portable Computing Language");
    snprintf(d.name, sizeof d.name, "%s", name);
    snprintf(d.type, sizeof d.type, "CPU");
    d.is_cpu = 1;
    d.compute_units = 2;
    d.max_work_group_size = 4096;
    d.max_work_item_dims = 3;
    d.max_work_item_sizes[0] = d.max_work_item_sizes[1] = d.max_work_item_sizes[2] = 4096;
    d.local_mem_size = 4194304;
    d.global_mem_size = UINT64_C(8) << 30;
    d.max_mem_alloc_size = UINT64_C(2) << 30;
    ht_error_clear(&err);
    check_rc(ht_store_device_id(s, &d, &id, &err), &err, "device id");
    return id;
}

static void make_bw(struct ht_bandwidth *bw, enum ht_data_path path, double scale)
{
    memset(bw, 0, sizeof *bw);
    bw->path = path;
    bw->bytes = UINT64_C(64) << 20;
    bw->repeats = 5;
    bw->h2d_Bps = 52.5e9 * scale;
    bw->d2h_Bps = 53.25e9 * scale;
    bw->pinned_h2d_Bps = 54.125e9 * scale;
    bw->pinned_d2h_Bps = 55.0625e9 * scale;
    bw->pageable_h2d_Bps = 5.8e9 * scale;
    bw->pageable_d2h_Bps = 10.03125e9 * scale;
}

static void assert_same_bw(const struct ht_bandwidth *a, const struct ht_bandwidth *b)
{
    assert_int_equal(a->path, b->path);
    assert_int_equal(a->bytes, b->bytes);
    assert_int_equal(a->repeats, b->repeats);
    /* REAL columns are IEEE doubles: what goes in comes out bit for bit. */
    assert_true(a->h2d_Bps == b->h2d_Bps);
    assert_true(a->d2h_Bps == b->d2h_Bps);
    assert_true(a->pinned_h2d_Bps == b->pinned_h2d_Bps);
    assert_true(a->pinned_d2h_Bps == b->pinned_d2h_Bps);
    assert_true(a->pageable_h2d_Bps == b->pageable_h2d_Bps);
    assert_true(a->pageable_d2h_Bps == b->pageable_d2h_Bps);
}

static void test_round_trip(void **state)
{
    struct ht_store *s = open_ok(":memory:");
    struct ht_bandwidth in, out;
    struct ht_error err;
    int64_t d0 = device_id(s, "gpu"), d1 = device_id(s, "cpu");
    (void)state;

    ht_error_clear(&err);
    /* Nothing stored yet: not found, and err is left alone. */
    assert_int_equal(ht_store_get_bandwidth(s, d0, &out, &err), HT_ENOTFOUND);
    assert_int_equal(err.code, 0);

    make_bw(&in, HT_PATH_PINNED, 1);
    check_rc(ht_store_put_bandwidth(s, d0, &in, &err), &err, "put");
    memset(&out, 0xff, sizeof out);
    check_rc(ht_store_get_bandwidth(s, d0, &out, &err), &err, "get");
    assert_same_bw(&in, &out);
    assert_int_equal(ht_store_get_bandwidth(s, d1, &out, &err), HT_ENOTFOUND);

    /* The latest measurement is the one read back; the earlier stays in the table. */
    make_bw(&in, HT_PATH_PAGEABLE, 0.5);
    check_rc(ht_store_put_bandwidth(s, d0, &in, &err), &err, "put again");
    check_rc(ht_store_get_bandwidth(s, d0, &out, &err), &err, "get again");
    assert_same_bw(&in, &out);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM bandwidth"), 2);

    /* Another device keeps its own; a rate not measured (0) reads back as 0. */
    make_bw(&in, HT_PATH_INPLACE, 2);
    in.pageable_h2d_Bps = 0;
    in.pageable_d2h_Bps = 0;
    check_rc(ht_store_put_bandwidth(s, d1, &in, &err), &err, "put d1");
    check_rc(ht_store_get_bandwidth(s, d1, &out, &err), &err, "get d1");
    assert_same_bw(&in, &out);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM bandwidth WHERE pageable_h2d_bps IS NULL"),
                     1);
    check_rc(ht_store_get_bandwidth(s, d0, &out, &err), &err, "get d0");
    assert_int_equal(out.path, HT_PATH_PAGEABLE);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM bandwidth WHERE created_at LIKE '20%Z'"),
                     3);
    ht_store_close(s);
}

static void test_refuses_malformed(void **state)
{
    struct ht_store *s = open_ok(":memory:");
    struct ht_bandwidth bw;
    struct ht_error err;
    int64_t d = device_id(s, "gpu");
    (void)state;

    make_bw(&bw, HT_PATH_AUTO, 1);
    ht_error_clear(&err);
    assert_int_equal(ht_store_put_bandwidth(s, d, &bw, &err), HT_EINVAL);
    make_bw(&bw, (enum ht_data_path)17, 1);
    assert_int_equal(ht_store_put_bandwidth(s, d, &bw, NULL), HT_EINVAL);
    make_bw(&bw, HT_PATH_PINNED, 1);
    bw.bytes = 0;
    assert_int_equal(ht_store_put_bandwidth(s, d, &bw, NULL), HT_EINVAL);
    make_bw(&bw, HT_PATH_PINNED, 1);
    bw.d2h_Bps = NAN;
    assert_int_equal(ht_store_put_bandwidth(s, d, &bw, NULL), HT_EINVAL);
    make_bw(&bw, HT_PATH_PINNED, 1);
    bw.pinned_h2d_Bps = -1;
    assert_int_equal(ht_store_put_bandwidth(s, d, &bw, NULL), HT_EINVAL);
    make_bw(&bw, HT_PATH_PINNED, 1);
    bw.pageable_d2h_Bps = INFINITY;
    assert_int_equal(ht_store_put_bandwidth(s, d, &bw, NULL), HT_EINVAL);
    assert_int_equal(ht_store_put_bandwidth(s, d, NULL, NULL), HT_EINVAL);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM bandwidth"), 0);

    /* A device that does not exist: the foreign key refuses it, as HT_EDB. */
    make_bw(&bw, HT_PATH_PINNED, 1);
    ht_error_clear(&err);
    assert_int_equal(ht_store_put_bandwidth(s, d + 1000, &bw, &err), HT_EDB);
    assert_non_null(strstr(err.text, "cannot store bandwidth"));
    ht_store_close(s);
}

/* A database as schema version 3 left it (before the bandwidth table) is migrated forward
 * when opened, keeping its rows. The file is made by opening a new one and undoing
 * migration 4; a later migration must be undone here too. */
static void test_migrates_from_v3(void **state)
{
    char path[] = "/tmp/test_store_bandwidth.XXXXXX";
    const char *base = getenv("TMPDIR");
    char file[512];
    struct ht_store *s;
    struct ht_bandwidth bw, out;
    struct ht_error err;
    int64_t d;
    int fd;
    (void)state;

    if (base && base[0]) {
        snprintf(file, sizeof file, "%s/test_store_bandwidth.XXXXXX", base);
        fd = mkstemp(file);
    } else {
        fd = mkstemp(path);
        snprintf(file, sizeof file, "%s", path);
    }
    assert_true(fd >= 0);
    close(fd);

    s = open_ok(file);
    d = device_id(s, "gpu");
    assert_int_equal(sqlite3_exec(ht__store_db(s),
                                  "DROP TABLE bandwidth; DROP TABLE device_leases; DROP TABLE written_maps; "
                                  "DROP TABLE host_memory; DROP TABLE tune_steps; DROP TABLE tune_runs; "
                                  "DELETE FROM schema_version WHERE version >= 4; "
                                  "PRAGMA user_version = 3",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    ht_store_close(s);

    s = open_ok(file);
    assert_int_equal(count_rows(s, "PRAGMA user_version"), HT_STORE_SCHEMA_VERSION);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM schema_version"),
                     HT_STORE_SCHEMA_VERSION);
    assert_int_equal(count_rows(s, "SELECT count(*) FROM schema_version WHERE version = 4 AND "
                                   "description = 'host-device bandwidth'"),
                     1);
    assert_int_equal(device_id(s, "gpu"), d); /* the device row survived */
    ht_error_clear(&err);
    assert_int_equal(ht_store_get_bandwidth(s, d, &out, &err), HT_ENOTFOUND);
    make_bw(&bw, HT_PATH_PINNED, 1);
    check_rc(ht_store_put_bandwidth(s, d, &bw, &err), &err, "put after migration");
    ht_store_close(s);

    /* And the row is there after reopening. */
    s = open_ok(file);
    check_rc(ht_store_get_bandwidth(s, d, &out, &err), &err, "get after reopening");
    assert_same_bw(&bw, &out);
    ht_store_close(s);

    unlink(file);
    {
        char side[600];
        snprintf(side, sizeof side, "%s-wal", file);
        unlink(side);
        snprintf(side, sizeof side, "%s-shm", file);
        unlink(side);
    }
}

/* The host memory's rate: none at first, the latest of this machine's wins, another
 * machine's (hostname) is never taken, a rate not measured is refused. */
static void test_host_memory(void **state)
{
    struct ht_store *s = open_ok(":memory:");
    struct ht_host_memory hm, got;
    struct ht_error err;
    sqlite3 *db;
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(ht_store_get_host_memory(s, &got, &err), HT_ENOTFOUND);
    memset(&hm, 0, sizeof hm);
    hm.Bps = 120.9e9;
    hm.bytes = UINT64_C(64) << 20;
    hm.threads = 16;
    hm.repeats = 5;
    check_rc(ht_store_put_host_memory(s, &hm, &err), &err, "put");
    hm.Bps = 131.5e9;
    hm.read_Bps = 134.75e9;
    hm.shared_Bps = 115.5e9;
    hm.shared_threads = 15;
    hm.shared_devices = 3;
    hm.shared_by_Bps[0] = 101.25e9;
    hm.shared_by_Bps[2] = 115.5e9;
    check_rc(ht_store_put_host_memory(s, &hm, &err), &err, "put again");
    db = ht__store_db(s);
    assert_int_equal(sqlite3_exec(db, "INSERT INTO host_memory (hostname, bytes, threads, "
                                      "repeats, bps, created_at) VALUES ('another.machine', "
                                      "1024, 1, 1, 1.0, 'now')", NULL, NULL, NULL),
                     SQLITE_OK);
    check_rc(ht_store_get_host_memory(s, &got, &err), &err, "get");
    assert_true(got.Bps == 131.5e9);
    assert_true(got.read_Bps == 134.75e9);
    assert_true(got.shared_Bps == 115.5e9);
    assert_int_equal(got.shared_threads, 15);
    assert_int_equal(got.shared_devices, 3);
    assert_true(got.shared_by_Bps[0] == 101.25e9); /* %.17g: the same double back */
    assert_true(got.shared_by_Bps[1] == 0.0);
    assert_true(got.shared_by_Bps[2] == 115.5e9);
    for (size_t k = 3; k < HT_HOST_SHARED_MAX; k++)
        assert_true(got.shared_by_Bps[k] == 0.0);
    assert_true(got.bytes == UINT64_C(64) << 20);
    assert_int_equal(got.threads, 16);
    assert_int_equal(got.repeats, 5);
    /* Another machine's, by its name (MPI's rank 0 reads every node's), and no other. */
    check_rc(ht_store_get_host_memory_of(s, "another.machine", &got, &err), &err, "get of");
    assert_true(got.Bps == 1.0 && got.bytes == 1024 && got.shared_Bps == 0.0);
    assert_int_equal(ht_store_get_host_memory_of(s, "no.such.machine", &got, &err),
                     HT_ENOTFOUND);
    assert_int_equal(ht_store_get_host_memory_of(s, "", &got, &err), HT_EINVAL);
    check_rc(ht_store_get_host_memory_of(s, NULL, &got, &err), &err, "get of this machine");
    assert_true(got.Bps == 131.5e9);
    hm.shared_by_Bps[1] = -1.0;
    assert_int_equal(ht_store_put_host_memory(s, &hm, &err), HT_EINVAL);
    hm.shared_by_Bps[1] = 0.0;
    hm.Bps = 0.0;
    assert_int_equal(ht_store_put_host_memory(s, &hm, &err), HT_EINVAL);
    hm.Bps = NAN;
    assert_int_equal(ht_store_put_host_memory(s, &hm, &err), HT_EINVAL);
    assert_int_equal(ht_store_put_host_memory(s, NULL, &err), HT_EINVAL);
    ht_store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refuses_malformed),
        cmocka_unit_test(test_migrates_from_v3),
        cmocka_unit_test(test_host_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
