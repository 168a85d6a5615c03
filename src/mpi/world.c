/* MPI's start shared by the commands over MPI (mpi-internal.h): every rank's host and
 * devices gathered on every rank. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SANITIZE_ADDRESS__
#include <dlfcn.h>
#endif

#include "mpi-internal.h"

#ifdef __SANITIZE_ADDRESS__
/* Open MPI unloads its plug-ins (mca_*.so) in MPI_Finalize, so LeakSanitizer's report of
 * what they keep at exit names no module and tests/lsan.supp cannot suppress it: in a
 * sanitized build they stay loaded. */
void ht__mpi_keep_plugins(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];

    while (f && fgets(line, sizeof line, f)) {
        char *path = strchr(line, '/');
        if (!path || (!strstr(path, "mca_") && !strstr(path, "openmpi") && !strstr(path, "pmix")))
            continue;
        path[strcspn(path, "\n")] = '\0';
        dlopen(path, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
    }
    if (f)
        fclose(f);
}
#else
void ht__mpi_keep_plugins(void)
{
}
#endif

/* This rank's devices: "all", or the one the selector names; why says why none. */
static void select_devices(const char *device, struct ht__mpi_world *w, char *why,
                           size_t why_size)
{
    struct ht_error e;
    size_t idx;
    int rc;

    ht_error_clear(&e);
    w->first = w->ndev = 0;
    rc = ht_platform_discover(&w->plat, &e);
    if (rc == HT_OK && (!device || !strcmp(device, "all"))) {
        w->ndev = w->plat->count;
        return;
    }
    if (rc == HT_OK)
        rc = ht_platform_find(w->plat, device, &idx, &e);
    if (rc != HT_OK) {
        ht_error_format(&e, why, why_size);
        return;
    }
    w->first = idx;
    w->ndev = 1;
}

int ht__mpi_world_gather(const char *device, struct ht__mpi_world *w, struct ht_error *err)
{
    char host[HT__MPI_HOST_MAX] = "", why[HT__MPI_WHY_MAX] = "";
    int size, mine;

    memset(w, 0, sizeof *w);
    MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w->size);
    size = w->size;
    gethostname(host, sizeof host - 1);
    select_devices(device, w, why, sizeof why);
    w->counts = calloc((size_t)size, sizeof *w->counts);
    w->displs = calloc((size_t)size, sizeof *w->displs);
    w->hosts = calloc((size_t)size, HT__MPI_HOST_MAX);
    w->whys = calloc((size_t)size, HT__MPI_WHY_MAX);
    if (!w->counts || !w->displs || !w->hosts || !w->whys)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    mine = (int)(w->ndev * sizeof(struct ht_device_info));
    MPI_Allgather(&mine, 1, MPI_INT, w->counts, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(host, HT__MPI_HOST_MAX, MPI_CHAR, w->hosts, HT__MPI_HOST_MAX, MPI_CHAR,
                  MPI_COMM_WORLD);
    MPI_Allgather(why, HT__MPI_WHY_MAX, MPI_CHAR, w->whys, HT__MPI_WHY_MAX, MPI_CHAR,
                  MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) {
        w->displs[r] = (int)(w->total * sizeof(struct ht_device_info));
        w->total += (size_t)w->counts[r] / sizeof(struct ht_device_info);
    }
    w->all = calloc(w->total ? w->total : 1, sizeof *w->all);
    if (!w->all)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    MPI_Allgatherv(w->plat && w->ndev ? &w->plat->devices[w->first] : NULL, mine, MPI_BYTE,
                   w->all, w->counts, w->displs, MPI_BYTE, MPI_COMM_WORLD);
    for (size_t d = 0; d < w->total; d++)
        w->all[d].cl_platform = w->all[d].cl_device = NULL;
    return HT_OK;
}

size_t ht__mpi_world_rank_devices(const struct ht__mpi_world *w, int r, size_t *n)
{
    *n = (size_t)w->counts[r] / sizeof(struct ht_device_info);
    return (size_t)w->displs[r] / sizeof(struct ht_device_info);
}

void ht__mpi_world_destroy(struct ht__mpi_world *w)
{
    free(w->all);
    free(w->whys);
    free(w->hosts);
    free(w->displs);
    free(w->counts);
    ht_platform_free(w->plat);
    memset(w, 0, sizeof *w);
}

int ht__mpi_start(int errors_return, int *owned, MPI_Errhandler *saved, struct ht_error *err)
{
    int inited = 0, finalized = 0, provided;

    *owned = 0;
    *saved = MPI_ERRHANDLER_NULL;
    MPI_Finalized(&finalized);
    if (finalized)
        return ht_error_set(err, HT_EINVAL, "MPI was finalized already: it cannot start again "
                            "in this process");
    MPI_Initialized(&inited);
    if (!inited) {
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
            return ht_error_set(err, HT_EINVAL, "MPI_Init_thread failed");
        *owned = 1;
        ht__mpi_keep_plugins();
    }
    if (errors_return) {
        MPI_Comm_get_errhandler(MPI_COMM_WORLD, saved);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }
    return HT_OK;
}

void ht__mpi_stop(int errors_return, int owned, MPI_Errhandler saved, int finalize)
{
    if (errors_return && saved != MPI_ERRHANDLER_NULL) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, saved);
        MPI_Errhandler_free(&saved);
    }
    if (owned && finalize)
        MPI_Finalize();
}

/* What one rank says in ht__mpi_agree. */
struct said {
    int32_t code;
    char text[1024];             /* its error as ht_error_format writes it */
};

int ht__mpi_agree(MPI_Comm comm, int rc, struct ht_error *err)
{
    struct said said;
    int rank, size, me, first;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    me = rc == HT_OK ? size : rank;
    MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size)
        return HT_OK;
    /* The lowest rank that failed tells its error to all. */
    memset(&said, 0, sizeof said);
    if (rank == first) {
        said.code = rc;
        if (err)
            ht_error_format(err, said.text, sizeof said.text);
        if (!said.text[0])
            snprintf(said.text, sizeof said.text, "%s", ht_strerror(rc));
    }
    MPI_Bcast(&said, (int)sizeof said, MPI_BYTE, first, comm);
    if (rank == first)
        return rc;
    ht_error_clear(err);
    /* A message that names its rank already ("rank 2 (host) failed in its slice") is
     * passed on as it is. */
    if (!strncmp(said.text, "rank ", 5))
        return ht_error_set(err, said.code, "%s", said.text);
    return ht_error_set(err, said.code, "rank %d: %s", first, said.text);
}
