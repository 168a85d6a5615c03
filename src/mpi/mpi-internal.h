/* Internal interface of the MPI module (src/mpi), shared by its files:
 *   env.c     launched by mpirun? (no MPI call), the refusals
 *   world.c   MPI's start shared by the commands: the plug-ins kept under ASan, each rank's
 *             devices and host gathered on every rank
 *   queue.c   distributed tuning (ht_mpi_tune)
 *   split.c   co-execution across nodes (ht_mpi_split)
 */
#ifndef HETUNE_MPI_INTERNAL_H
#define HETUNE_MPI_INTERNAL_H

#include <stddef.h>

#include "hetune/error.h"
#include "hetune/platform.h"

#define HT__MPI_HOST_MAX 64
#define HT__MPI_WHY_MAX 256

/* A growing text: p (owned, free()) holds n characters and a NUL, in cap bytes. */
struct ht__mpi_buf {
    char *p;
    size_t n, cap;
};

/* Appends printf-style text to b; -1 when out of memory (b keeps what it had). */
__attribute__((format(printf, 2, 3))) int ht__mpi_put(struct ht__mpi_buf *b, const char *fmt,
                                                      ...);

/* In a sanitized build, keeps Open MPI's plug-ins loaded past MPI_Finalize so that
 * LeakSanitizer can name what they keep; nothing otherwise. */
void ht__mpi_keep_plugins(void);

/* Every rank's host and devices, the same on every rank. Owned:
 * ht__mpi_world_destroy. */
struct ht__mpi_world {
    int rank, size;
    struct ht_platform *plat;    /* this rank's platform (NULL when it has none) */
    size_t first, ndev;          /* this rank's selected devices: plat->devices[first..) */
    char *hosts;                 /* size x HT__MPI_HOST_MAX */
    char *whys;                  /* size x HT__MPI_WHY_MAX: why a rank has no device */
    int *counts, *displs;        /* per rank: bytes of its devices in all, and where */
    struct ht_device_info *all;  /* total devices of every rank, rank by rank (their cl
                                    handles NULL: they are another process's) */
    size_t total;
};

/* Collective: discovers this rank's OpenCL platform, selects its devices by the selector
 * of --device (NULL or "all": every one; else the one it names; a rank that finds none
 * says why) and gathers every rank's host, devices and reason on every rank (MPI must be
 * initialized). HT_ENOMEM (w is then the caller's to destroy; the other ranks go on). */
int ht__mpi_world_gather(const char *device, struct ht__mpi_world *w, struct ht_error *err);

/* Frees what w owns. */
void ht__mpi_world_destroy(struct ht__mpi_world *w);

/* The first device of rank r in w->all, and how many it has. */
size_t ht__mpi_world_rank_devices(const struct ht__mpi_world *w, int r, size_t *n);

#endif
