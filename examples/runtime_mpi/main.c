/* Calling hetune from your own MPI program: the runtime of runtime.h across nodes
 * (ht_runtime_opts.nodes = ht_mpi_nodes()), the same handle and calls as on one machine.
 * Every rank is a node; rank 0 holds the program's arrays, each launch scatters their slices to the nodes,
 * every node co-executes its slice on its own OpenCL devices, and the outputs come back
 * into rank 0's arrays.
 *
 *   mpirun -n K runtime-mpi-example [SPEC] [N] [--tune] [--split] [--leave-unbound NAME]
 *
 * SPEC is vecadd's (a = b + c, the default ../vecadd/spec.json, run from
 * examples/runtime_mpi/) or conv1d's (out[i] = sum_k in[i + k] mask[k], whose input needs a
 * halo of MASK - 1 elements past each slice); the program tells them apart by their
 * arguments. N (the spec's size N) defaults to the spec's. The results database is
 * $HETUNE_DB, else ./hetune.db; it must hold each device's configuration (mpirun -n K
 * hetune tune SPEC --db FILE, on the same ranks), or --tune tunes it first in this very
 * program (ht_mpi_tune, exhaustive: small spaces only), before the runtime opens.
 *
 * It launches 5 times with new inputs each time, rank 0's outputs poisoned before each
 * launch, and checks every output element on rank 0 against the same sum computed on the
 * host. --leave-unbound NAME shows a refusal: rank 0 does not bind NAME, and the launch
 * fails on every rank, naming it. Exit status 0 when every result is right, 1 otherwise
 * (each rank says why), 2 for bad arguments. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <hetune.h>

#define LAUNCHES 5

static int rank;

static int fail(const char *what, const struct ht_error *err)
{
    char msg[2600];
    ht_error_format(err, msg, sizeof msg);
    fprintf(stderr, "runtime-mpi-example: rank %d: %s: %s\n", rank, what, msg);
    return 1;
}

/* One of the two kernels: its arrays on rank 0, how to fill them and to check them. */
struct problem {
    int conv;                    /* 0: vecadd a = b + c; 1: conv1d */
    size_t n, mask;              /* outputs; conv1d's mask length */
    float *x, *y, *out;          /* vecadd: b, c, a; conv1d: in, mask, out */
};

static void fill(struct problem *p, int l)
{
    size_t nin = p->conv ? p->n + p->mask - 1 : p->n;

    for (size_t i = 0; i < nin; i++)
        p->x[i] = (float)((i * 7 + (size_t)l) % 1000) * 0.5f;
    for (size_t i = 0; i < (p->conv ? p->mask : p->n); i++)
        p->y[i] = p->conv ? (float)((i + (size_t)l) % 5) * 0.25f - 0.5f
                          : (float)(l + 1) - (float)(i % 13);
    for (size_t i = 0; i < p->n; i++)
        p->out[i] = NAN; /* an element nobody gathers stays wrong */
}

/* The wrong elements of launch l, the first told. */
static size_t check(const struct problem *p, int l)
{
    size_t wrong = 0;

    for (size_t i = 0; i < p->n; i++) {
        float want = 0;
        int ok;
        if (p->conv) {
            for (size_t k = 0; k < p->mask; k++)
                want += p->x[i + k] * p->y[k];
            ok = fabsf(p->out[i] - want) <= 1e-4f + 1e-4f * fabsf(want);
        } else {
            want = p->x[i] + p->y[i];
            ok = p->out[i] == want;
        }
        if (!ok && wrong++ == 0)
            fprintf(stderr, "runtime-mpi-example: launch %d: element %zu is %g, expected %g\n",
                    l, i, (double)p->out[i], (double)want);
    }
    return wrong;
}

/* ht_mpi_tune on every rank into db, in this MPI program (it leaves MPI initialized). */
static int tune(const char *spec_path, const struct ht_size_override *size, size_t nsizes,
                const char *db)
{
    struct ht_spec *spec = NULL;
    struct ht_tune_opts topts;
    struct ht_mpi_tune_opts mopts = {0};
    struct ht_mpi_tune_result res = {0};
    struct ht_error err;
    char *text = NULL;
    int status = 1, rc;

    ht_error_clear(&err);
    ht_tune_opts_init(&topts);
    mopts.db = db;
    mopts.tune = &topts;
    rc = ht_spec_load(spec_path, size, nsizes, &spec, &err);
    if (rc == HT_OK)
        rc = ht_mpi_tune(spec, &mopts, &res, &err);
    /* Rank 0 holds the result: each device model's best configuration, shown as `mpirun
     * -n K hetune tune` shows it; the other ranks' is empty. */
    if (rc == HT_OK)
        rc = ht_present_mpi_tune(spec, &res, 0, &text, &status, &err);
    if (rc == HT_OK && rank == 0)
        printf("%s", text);
    free(text);
    ht_mpi_tune_result_destroy(&res);
    ht_spec_free(spec);
    if (rc != HT_OK)
        return fail("cannot tune", &err);
    return status;
}

int main(int argc, char **argv)
{
    const char *spec = "../vecadd/spec.json", *unbound = NULL, *db = getenv("HETUNE_DB");
    struct ht_size_override size = {"N", 0};
    struct ht_runtime_opts opts;
    struct ht_runtime *rt = NULL;
    const struct ht_runtime_info *info;
    const struct ht_runtime_nodes *nodes;
    struct problem p = {0};
    struct ht_error err;
    size_t wrong = 0, bytes[3] = {0};
    const char *names[2][3] = {{"b", "c", "a"}, {"in", "mask", "out"}};
    int provided, do_tune = 0, do_split = 0, npos = 0, status = 1;
    double wall = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tune")) {
            do_tune = 1;
        } else if (!strcmp(argv[i], "--split")) {
            do_split = 1;
        } else if (!strcmp(argv[i], "--leave-unbound") && i + 1 < argc) {
            unbound = argv[++i];
        } else if (argv[i][0] != '-' && npos == 0) {
            spec = argv[i];
            npos++;
        } else if (argv[i][0] != '-' && npos == 1 && atoll(argv[i]) > 0) {
            size.value = atoll(argv[i]);
            npos++;
        } else {
            if (rank == 0)
                fprintf(stderr, "runtime-mpi-example: unexpected argument '%s'; usage: "
                        "runtime-mpi-example [SPEC] [N] [--tune] [--split] "
                        "[--leave-unbound NAME]\n",
                        argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    if (!db)
        db = "hetune.db";
    if (do_tune) {
        /* Rank 0 alone knows whether every device got a configuration: all go on, or
         * none. */
        status = tune(spec, &size, size.value > 0, db);
        MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (status != 0)
            goto out;
        status = 1;
    }

    /* Open once, on every rank: rank 0's database, each node's speed, the plan. */
    ht_error_clear(&err);
    ht_runtime_opts_init(&opts);
    opts.db = db;
    opts.nodes = ht_mpi_nodes(); /* every rank of MPI_COMM_WORLD a node */
    if (do_split) /* split over every node (and each node over its devices), as asked */
        opts.mode = HT_RUNTIME_SPLIT;
    if (ht_runtime_open(spec, &size, size.value > 0, &opts, &rt, &err) != HT_OK) {
        status = fail("cannot open the runtime", &err);
        goto out;
    }
    info = ht_runtime_info(rt);
    nodes = info->nodes;
    p.conv = ht_runtime_arg_bytes(rt, "mask", &bytes[1], &err) == HT_OK;
    ht_error_clear(&err);
    for (int k = 0; k < 3; k++)
        if (ht_runtime_arg_bytes(rt, names[p.conv][k], &bytes[k], &err) != HT_OK) {
            status = fail("not a vecadd or conv1d spec", &err);
            goto out;
        }
    p.n = bytes[2] / sizeof(float);
    p.mask = p.conv ? bytes[1] / sizeof(float) : 0;
    if (rank == 0) {
        printf("spec        %s (%s), %zu outputs, %d ranks (%zu take part), database %s\n",
               info->spec, p.conv ? "conv1d" : "vecadd", p.n, nodes->size, nodes->took_part,
               db);
        printf("split       %llu units along dimension %u\n",
               (unsigned long long)nodes->global, nodes->dim);
        for (int r = 0; r < nodes->size; r++) {
            const struct ht_runtime_node *nd = &nodes->node[r];
            if (!nd->took_part) {
                printf("rank %d      %s: %s: %s\n", r, nd->host,
                       nd->alone_s > 0 ? "not used" : "left out", nd->why);
                continue;
            }
            printf("rank %d      %s: alone %.3f ms, share %.4f, slice [%llu, %llu), owns "
                   "[%llu, %llu)\n", r, nd->host, 1e3 * nd->alone_s, nd->share,
                   (unsigned long long)nd->offset,
                   (unsigned long long)(nd->offset + nd->size),
                   (unsigned long long)nd->own_offset,
                   (unsigned long long)(nd->own_offset + nd->own_size));
            for (size_t d = 0; d < nd->ndevices; d++)
                printf("  device %zu  %s: %s\n", nd->devices[d].dev->index,
                       nd->devices[d].dev->name,
                       nd->devices[d].usable ? nd->devices[d].config : nd->devices[d].why);
        }
        printf("nodes       %s\n", nodes->decision);
        printf("bound       %.3f ms (Eq. 4 on the nodes' times alone)\n", 1e3 * nodes->bound_s);

        /* Rank 0's arrays, the only ones that launches read and write, in memory its
         * node's data path likes (a program may bind its own). */
        p.x = ht_runtime_alloc(rt, bytes[0], &err);
        p.y = p.x ? ht_runtime_alloc(rt, bytes[1], &err) : NULL;
        p.out = p.y ? ht_runtime_alloc(rt, bytes[2], &err) : NULL;
        if (!p.out) {
            /* Not collective: the others would wait in the launch. */
            fail("cannot allocate the arrays", &err);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int k = 0; k < 3; k++) {
            void *a = k == 0 ? (void *)p.x : k == 1 ? (void *)p.y : (void *)p.out;
            if (unbound && !strcmp(unbound, names[p.conv][k]))
                continue;
            if (ht_runtime_bind(rt, names[p.conv][k], a, bytes[k], &err) != HT_OK) {
                /* Not collective: the others would wait in the launch. */
                fail("cannot bind", &err);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
    }

    /* Launch many times (every rank), with new inputs each time (rank 0). */
    for (int l = 0; l < LAUNCHES; l++) {
        if (rank == 0)
            fill(&p, l);
        if (ht_runtime_launch(rt, &err) != HT_OK) {
            status = fail("launch failed", &err);
            goto out;
        }
        wall += info->last_wall_s;
        if (rank == 0)
            wrong += check(&p, l);
    }
    if (rank == 0) {
        for (int r = 0; r < nodes->size; r++)
            if (nodes->node[r].took_part)
                printf("last launch rank %d: scatter %.3f ms, slice %.3f ms, gather %.3f ms\n",
                       r, 1e3 * nodes->node[r].scatter_s, 1e3 * nodes->node[r].run_s,
                       1e3 * nodes->node[r].gather_s);
        printf("moved       %llu bytes scattered, %llu gathered a launch (arrays %zu, %zu "
               "and %zu bytes)\n", (unsigned long long)nodes->last_scattered_bytes,
               (unsigned long long)nodes->last_gathered_bytes, bytes[0], bytes[1], bytes[2]);
        printf("launches    %llu, mean wall %.3f ms\n", (unsigned long long)info->launches,
               1e3 * wall / LAUNCHES);
        {
            char *json = NULL; /* the same info as one JSON document, "nodes" in it */
            if (ht_runtime_info_json(rt, &json, &err) == HT_OK)
                printf("info        %s\n", json);
            else
                wrong += fail("cannot write the info as JSON", &err) != 0;
            free(json);
        }
        if (wrong)
            fprintf(stderr, "runtime-mpi-example: %zu wrong elements\n", wrong);
        else
            printf("result      all %d launches right\n", LAUNCHES);
    }
    /* Every rank ends with rank 0's verdict. */
    status = wrong != 0;
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
out:
    ht_runtime_close(rt); /* collective, frees p's arrays; MPI stays: this program
                             initialized it */
    MPI_Finalize();
    return status;
}
