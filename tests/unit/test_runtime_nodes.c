/* The runtime's nodes in a program linked with the static libhetune.a that never calls
 * ht_mpi_nodes (mpi.h), as a program on one machine: it links no MPI's part of hetune, and
 * ht_runtime_opts_set's "nodes" "mpi" says what to do instead (test_runtime_misuse calls
 * ht_mpi_nodes, so it cannot show this). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "hetune.h"

/* Weakly, as the runtime refers to it: NULL here unless something linked src/mpi/runtime.c
 * (with MPI) or src/mpi/env.c (without MPI, where it refuses). */
#pragma weak ht_mpi_nodes

static void test_mpi_by_name(void **state)
{
    struct ht_runtime_opts o;
    struct ht_runtime *rt = (void *)1;
    struct ht_error err;
    int rc;
    (void)state;

    ht_runtime_opts_init(&o);
    assert_null(o.nodes);
    ht_error_clear(&err);
    rc = ht_runtime_opts_set(&o, "nodes", "mpi", &err);
    if (ht_mpi_built()) {
        /* No MPI's part linked: nothing here called ht_mpi_nodes. */
        assert_true(ht_mpi_nodes == NULL);
        assert_int_equal(rc, HT_EINVAL);
        assert_int_equal(err.code, HT_EINVAL);
        assert_non_null(strstr(err.text, "'mpi' is not linked into this program"));
        assert_non_null(strstr(err.text, "set ht_runtime_opts.nodes to ht_mpi_nodes()"));
        assert_null(o.nodes); /* unchanged */
    } else {
        /* Without MPI, env.c (ht_mpi_built's) holds the nodes that refuse, at open. */
        assert_int_equal(rc, HT_OK);
        assert_true(ht_mpi_nodes != NULL);
        assert_true(o.nodes == ht_mpi_nodes());
        ht_error_clear(&err);
        assert_int_equal(ht_runtime_open("no-spec-needed.json", NULL, 0, &o, &rt, &err),
                         HT_EINVAL);
        assert_null(rt);
        assert_non_null(strstr(err.text, "built without MPI"));
    }
    ht_error_clear(&err);
    assert_int_equal(ht_runtime_opts_set(&o, "nodes", "local", &err), HT_OK);
    assert_null(o.nodes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mpi_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
