/* Tests of the staging rings (src/coexec/stage.c) on PoCL's first device: the threaded copy
 * against memcpy at sizes around its threshold and odd lengths; writes and reads through
 * rings much shorter than the transfer (every slot reused many times), at odd offsets and
 * lengths that are no multiple of the chunk, checked byte by byte, with guard bytes around
 * the host array that must stay untouched; transfers interleaved on two queues; the times
 * counted. Exits 77 (skipped) when no OpenCL platform is found. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coexec/coexec-internal.h"
#include "hetune.h"

#define GUARD 64
#define GUARD_BYTE 0xC3

static struct ht_platform *plat;
static cl_context ctx;
static cl_command_queue q, q2;

static void pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 131u + seed * 7u + (i >> 9)) & 0xFF);
}

static void test_copy(void **state)
{
    static const size_t sizes[] = {0, 1, 63, 4097, (256u << 10) - 1, 256u << 10,
                                   (1u << 20) + 13, (3u << 20) + 5};
    struct ht__stage *s = NULL;
    struct ht_error err;
    (void)state;

    ht_error_clear(&err);
    assert_int_equal(ht__stage_create(ctx, q, 4096, 8192, 4, &s, &err), HT_OK);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        unsigned char *src = malloc(n + 1), *dst = malloc(n + 2 * GUARD);
        assert_non_null(src);
        assert_non_null(dst);
        pattern(src, n, (unsigned)k);
        memset(dst, GUARD_BYTE, n + 2 * GUARD);
        ht__stage_copy(s, dst + GUARD, src, n);
        assert_memory_equal(dst + GUARD, src, n);
        for (size_t g = 0; g < GUARD; g++) {
            assert_int_equal(dst[g], GUARD_BYTE);
            assert_int_equal(dst[GUARD + n + g], GUARD_BYTE);
        }
        /* Without a stage: one memcpy. */
        memset(dst + GUARD, 0, n);
        ht__stage_copy(NULL, dst + GUARD, src, n);
        assert_memory_equal(dst + GUARD, src, n);
        free(src);
        free(dst);
    }
    ht__stage_free(s);
}

/* Writes src[0..n) to the device buffer at off through a stage of chunk bytes and ring
 * slots on alternating queues (in parts), reads it back into a guarded array the same way,
 * and checks every byte. */
static void round_trip(size_t chunk, size_t slots, unsigned threads, size_t off, size_t n,
                       size_t parts)
{
    struct ht__stage *s = NULL;
    struct ht_error err;
    cl_int st;
    cl_mem mem;
    unsigned char *src = malloc(n), *dst = malloc(n + 2 * GUARD + 3), *out;
    double write_s = 0, read_s = 0;
    size_t each = (n + parts - 1) / parts;

    assert_non_null(src);
    assert_non_null(dst);
    ht_error_clear(&err);
    mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE, off + n, NULL, &st);
    assert_int_equal(st, CL_SUCCESS);
    assert_int_equal(ht__stage_create(ctx, q, chunk, chunk * slots, threads, &s, &err), HT_OK);
    pattern(src, n, (unsigned)(chunk + n));
    /* The host array one byte past an alignment, as a program's may be. */
    out = dst + GUARD + 3;
    memset(dst, GUARD_BYTE, n + 2 * GUARD + 3);
    for (size_t p = 0, k = 0; p < n; p += each, k++) {
        size_t len = n - p < each ? n - p : each;
        assert_int_equal(ht__stage_write(s, k & 1 ? q2 : q, mem, off + p, src + p, len, &err),
                         HT_OK);
    }
    /* The same queue order a co-execution has: every write done before the reads. */
    assert_int_equal(clFinish(q), CL_SUCCESS);
    assert_int_equal(clFinish(q2), CL_SUCCESS);
    for (size_t p = 0, k = 0; p < n; p += each, k++) {
        size_t len = n - p < each ? n - p : each;
        assert_int_equal(ht__stage_read(s, k & 1 ? q2 : q, mem, off + p, out + p, len, &err),
                         HT_OK);
    }
    assert_int_equal(clFinish(q), CL_SUCCESS);
    assert_int_equal(clFinish(q2), CL_SUCCESS);
    assert_int_equal(ht__stage_finish(s, &write_s, &read_s, &err), HT_OK);
    for (size_t i = 0; i < n; i++)
        if (out[i] != src[i])
            fail_msg("chunk %zu, %zu slots, offset %zu, %zu bytes: byte %zu is %u, not %u",
                     chunk, slots, off, n, i, out[i], src[i]);
    for (size_t g = 0; g < GUARD + 3; g++)
        assert_int_equal(dst[g], GUARD_BYTE);
    for (size_t g = 0; g < GUARD; g++)
        assert_int_equal(out[n + g], GUARD_BYTE);
    assert_true(write_s > 0);
    assert_true(read_s > 0);
    /* Counted once: a second finish adds nothing. */
    write_s = read_s = 0;
    assert_int_equal(ht__stage_finish(s, &write_s, &read_s, &err), HT_OK);
    assert_true(write_s == 0 && read_s == 0);
    ht__stage_free(s);
    clReleaseMemObject(mem);
    free(src);
    free(dst);
}

static void test_round_trips(void **state)
{
    (void)state;
    /* Many times the ring, chunks that split elements, odd offsets. */
    round_trip(1000, 3, 3, 7, 100003, 1);
    round_trip(1000, 2, 1, 0, 4096, 5);
    round_trip(4096, 4, 4, 12345, (1u << 20) + 17, 7);
    /* Smaller than one chunk. */
    round_trip(1u << 20, 2, 2, 1, 999, 1);
}

static void test_defaults(void **state)
{
    struct ht__stage *s = NULL;
    struct ht_error err;
    double w = 0, r = 0;
    (void)state;

    ht_error_clear(&err);
    /* 0: 4 MiB chunks, 4 threads (at most the cores); a ring shorter than two chunks still
     * has two slots. */
    assert_int_equal(ht__stage_create(ctx, q, 0, 0, 0, &s, &err), HT_OK);
    assert_int_equal(ht__stage_finish(s, &w, &r, &err), HT_OK);
    assert_true(w == 0 && r == 0);
    ht__stage_free(s);
    ht__stage_free(NULL);
    assert_int_equal(ht__stage_finish(NULL, &w, &r, &err), HT_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_defaults),
    };
    struct ht_error err;
    cl_device_id dev;
    cl_int st;
    int rc;

    setenv("POCL_DEVICES", "pthread basic", 0);
    ht_error_clear(&err);
    if (ht_platform_discover(&plat, &err) != HT_OK) {
        fprintf(stderr, "skipped: %s\n", err.text);
        return 77;
    }
    dev = (cl_device_id)plat->devices[0].cl_device;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &st);
    if (st == CL_SUCCESS)
        q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &st);
    if (st == CL_SUCCESS)
        q2 = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &st);
    if (st != CL_SUCCESS) {
        fprintf(stderr, "no context or queue: %d\n", st);
        return 1;
    }
    rc = cmocka_run_group_tests_name("stage", tests, NULL, NULL);
    clReleaseCommandQueue(q2);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    ht_platform_free(plat);
    return rc;
}
