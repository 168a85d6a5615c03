/* Launched by mpirun? Read from the environment, before (and without) any MPI call, so that
 * a build without MPI can refuse instead of K processes racing on one database. In a build
 * without MPI (HETUNE_MPI off) ht_mpi_tune and ht_mpi_split are here too, and refuse (the
 * nodes of ht_mpi_nodes refuse the runtime's open, saying why). Their results are freed here
 * in every build. */
#include <stdlib.h>
#include <string.h>

#include "hetune/mpi.h"
#include "mpi/nodes.h"

int ht_mpi_built(void)
{
#ifdef HT_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

#ifndef HT_HAVE_MPI
/* Without MPI, nodes that cannot open: ht_runtime_open says why (with MPI, ht_mpi_nodes is
 * src/mpi/runtime.c's). Not NULL: a NULL nodes is this machine. */
static const struct ht_nodes no_mpi = {
    .unavailable = "this hetune was built without MPI (HETUNE_MPI off): a runtime across "
                   "the ranks of MPI_COMM_WORLD (nodes ht_mpi_nodes()) needs it; build with "
                   "MPI (libopenmpi-dev, cmake -DHETUNE_MPI=ON) or open the runtime on this "
                   "machine (nodes NULL)",
};

const struct ht_nodes *ht_mpi_nodes(void)
{
    return &no_mpi;
}
#endif

static long env_long(const char *name)
{
    const char *v = getenv(name);
    char *end;
    long n;

    if (!v || !*v)
        return -1;
    n = strtol(v, &end, 10);
    return *end ? -1 : n;
}

int ht_mpi_env_size(void)
{
    long n = env_long("OMPI_COMM_WORLD_SIZE");

    if (n < 0)
        n = env_long("PMI_SIZE");
    /* A PMIx launcher that gives no size: a rank above 0 means at least two processes. */
    if (n < 0 && env_long("PMIX_RANK") > 0)
        n = 2;
    return n > 1 ? (n > 1 << 30 ? 1 << 30 : (int)n) : 1;
}

const char *ht_mpi_refusal(const char *command)
{
    if (ht_mpi_env_size() <= 1)
        return NULL;
    if (!ht_mpi_built())
        return "this hetune was built without MPI, yet runs as one of several processes of "
               "mpirun: they would race on one database; build it with MPI (libopenmpi-dev, "
               "cmake -DHETUNE_MPI=ON) or run it without mpirun";
    if (command && (!strcmp(command, "tune") || !strcmp(command, "split")))
        return NULL;
    return "only 'hetune tune' and 'hetune split' run over MPI: under mpirun, several "
           "processes of this command would race on one database; run it without mpirun";
}

/* The results are freed in every build: one without MPI fills them empty. */

void ht_mpi_tune_result_destroy(struct ht_mpi_tune_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->models && i < r->nmodels; i++) {
        struct ht_mpi_tune_model *m = &r->models[i];
        free((void *)m->device);
        free((void *)m->ranks);
        free((void *)m->best);
        free((void *)m->best_text);
    }
    for (size_t i = 0; r->ranks && i < r->nranks; i++) {
        struct ht_mpi_tune_rank *k = &r->ranks[i];
        for (size_t j = 0; k->configs && j < k->measured; j++)
            free((void *)k->configs[j]);
        for (size_t j = 0; k->lost_configs && j < k->lost; j++)
            free((void *)k->lost_configs[j]);
        free((void *)k->configs);
        free((void *)k->lost_configs);
        free((void *)k->windows);
        free((void *)k->host);
        free((void *)k->note);
    }
    free(r->models);
    free(r->ranks);
    free((void *)r->db);
    memset(r, 0, sizeof *r);
}

void ht_mpi_split_result_destroy(struct ht_mpi_split_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->nodes && i < r->nnodes; i++) {
        struct ht_mpi_split_node *n = &r->nodes[i];
        for (size_t j = 0; n->devices && j < n->ndevices; j++) {
            free((void *)n->devices[j].device);
            free((void *)n->devices[j].config);
            free((void *)n->devices[j].why);
        }
        free((void *)n->devices);
        free((void *)n->host);
        free((void *)n->why);
        free((void *)n->decision);
    }
    free(r->nodes);
    free((void *)r->scheduler);
    free((void *)r->decision);
    free((void *)r->round_wall_s);
    free((void *)r->reference);
    free((void *)r->mismatch);
    memset(r, 0, sizeof *r);
}

#ifndef HT_HAVE_MPI
int ht_mpi_tune(const struct ht_spec *spec, const struct ht_mpi_tune_opts *opts,
                struct ht_mpi_tune_result *out, struct ht_error *err)
{
    (void)opts;
    if (out)
        memset(out, 0, sizeof *out);
    if (!spec || !out)
        return ht_error_set(err, HT_EINVAL, "ht_mpi_tune: %s is NULL", !spec ? "spec" : "out");
    return ht_error_set(err, HT_EINVAL, "this hetune was built without MPI (HETUNE_MPI off)");
}

int ht_mpi_split(const struct ht_spec *spec, const char *device,
                 const struct ht_workflow_split_opts *opts, struct ht_mpi_split_result *out,
                 struct ht_error *err)
{
    (void)device;
    if (out) {
        memset(out, 0, sizeof *out);
        out->verified = -1;
    }
    if (!spec || !opts || !out)
        return ht_error_set(err, HT_EINVAL, "ht_mpi_split: %s is NULL",
                            !spec ? "spec" : !opts ? "opts" : "out");
    return ht_error_set(err, HT_EINVAL, "this hetune was built without MPI (HETUNE_MPI off)");
}
#endif
