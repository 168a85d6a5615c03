/* exec's door for the co-execution engine (src/coexec/): a session's insides, one
 * configuration instantiated on a device (buffers, program, kernel, arguments), the data
 * path's host memory, the poison, an event's profiled time, and the reference comparison
 * and dump (the staging rings are coexec's, src/coexec/stage.c). Co-execution runs the
 * configurations tuning measured through these same functions, so a tuned time is a time
 * the runtime sees.
 *
 * A friend header (docs/architecture.md, scripts/walls-allowed.txt): only the modules
 * named there include it, and the names stay inside the shared library (ht__,
 * src/hetune.map). The rest of exec's internals are in src/exec/exec-internal.h. */
#ifndef HETUNE_EXEC_ENGINE_H
#define HETUNE_EXEC_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include <CL/cl.h>

#include "hetune/exec.h"

struct ht__worker;
struct ht_prebuild;

/* Host memory as a data path wants it (hostmem.c). */
struct ht__hostmem {
    void *data;              /* NULL when none */
    size_t bytes;
    cl_mem pin;              /* HT_PATH_PINNED: the mapped CL_MEM_ALLOC_HOST_PTR buffer */
    cl_command_queue queue;  /* retained with pin, to unmap it */
};

/* The host memory ht__hostmem_alloc makes: bytes for path, in the context and queue given
 * for HT_PATH_PINNED, and, with init, holding an argument's initial data, as every host
 * copy of an input is made (the co-execution's, and a session's own). */
struct ht__hostmem_want {
    cl_context ctx;               /* HT_PATH_PINNED: the context and queue to map in */
    cl_command_queue queue;
    enum ht_data_path path;
    size_t bytes;
    const struct ht_arg *init;    /* not NULL: from offset on, the memory holds init's initial
                                     data, (bytes - offset) / its type's size elements:
                                     random (fixed seed from the argument's name; floats
                                     uniform in [-1, 1), integers in [0, 100)), zero, iota,
                                     or a raw little-endian file of exactly that size */
    size_t offset;                /* with init: bytes before the data (left undefined) */
    const struct ht_spec *spec;   /* with init: the spec init is an argument of, whose path
                                     and field (args[i].init) an error of init's data names;
                                     NULL: the message alone */
};

/* Allocates w->bytes of host memory for w->path: HT_PATH_PINNED (with a context and queue)
 * a mapped CL_MEM_ALLOC_HOST_PTR buffer of the context; HT_PATH_PAGEABLE plain malloc
 * memory; any other path (in place, or pinned without a context) page-aligned memory; then
 * w->init's initial data in it when asked. *out is freed with ht__hostmem_free (and is
 * empty on failure). HT_ECL, HT_ENOMEM; with init, HT_ESPEC when its file has another size,
 * HT_EIO when it cannot be read. */
int ht__hostmem_alloc(const struct ht__hostmem_want *w, struct ht__hostmem *out,
                      struct ht_error *err);

/* Frees host memory of ht__hostmem_alloc and zeroes *m; an empty one is fine. */
void ht__hostmem_free(struct ht__hostmem *m);

/* Host copy of one buffer argument. */
struct ht__hostbuf {
    void *data;        /* count * type size bytes, NULL when not held: mem.data when the
                          buffer owns its memory, else borrowed (a caller's bound array) */
    struct ht__hostmem mem; /* owned memory (ht__hostmem_alloc; exec's ht__hostbuf_alloc),
                               or empty */
    size_t count;      /* elements */
    unsigned naxes;    /* the shape it was made for, to print multi-dimensional indices */
    uint64_t dims[3];
};

/* ht_session_create for a co-execution: the session takes the device's one context, which
 * the process keeps, and keeps its programs with it (keep_programs), so that the next
 * co-execution on the device (a runtime's switch) makes and builds nothing. */
int ht__session_create_kept(const struct ht_spec *spec, const struct ht_device_info *dev,
                            const struct ht_exec_opts *opts, struct ht_session **out,
                            struct ht_error *err);

/* How many built programs a session keeps for configurations that build the same one. */
#define HT__SESSION_PROGRAMS 16

/* Built programs kept by key, the oldest giving way: a session's (ht__program_get) and
 * each kept device context's (session.c). ht__programs_take/_keep/_free, exec-internal.h. */
struct ht__programs {
    struct {
        char *key;
        cl_program prog; /* retained */
    } slot[HT__SESSION_PROGRAMS];
    size_t next;         /* the next slot to fill, modulo HT__SESSION_PROGRAMS */
};

struct ht_session {
    const struct ht_spec *spec;        /* borrowed */
    const struct ht_device_info *dev;  /* borrowed */
    struct ht_exec_opts opts;          /* opts.cache_dir points at cache_dir below */
    char cache_dir[4096];
    cl_context ctx;
    cl_device_id device;
    cl_command_queue queue;            /* in order, profiling enabled */
    enum ht_data_path path;            /* opts.data_path resolved for the device */
    struct ht__hostbuf *inputs;        /* per arg: initial data of read and readwrite buffers */
    struct ht__hostbuf *outputs;       /* per arg: written buffers of the last eval */
    struct ht__hostbuf *refs;          /* per arg: the reference outputs */
    struct ht__hostbuf *file_refs;     /* per arg: reference outputs read from files
                                          (verify.outputs; npy.h), read once */
    int have_file_refs;
    struct ht__hostbuf *inplace_out;   /* where in-place written buffers live: outputs, or
                                          refs while the reference configuration runs */
    int have_outputs;                  /* outputs hold the last eval's results */
    int have_refs;                     /* refs hold the reference configuration's outputs
                                          (or, with verify.once, the reference kernel's) */
    double cut_best, cut_factor;       /* early termination (ht__session_set_cut); 0: off */
    double last_launch_wall_s;         /* ht__inst_launch: enqueue to completion, seconds */
    double *stage_run_s;               /* pipelines: HT_MAX_STAGES stage times per run of the
                                          current eval (run r at r * HT_MAX_STAGES), or NULL */
    struct ht__worker *worker;         /* isolated: the worker process that holds the
                                          context and data; NULL in this process */
    struct ht_prebuild *pause;         /* the pool of builds ahead: the session's own
                                          (ht__session_build_ahead; paused while its timed
                                          runs run on a CPU device, never elsewhere), one
                                          lent to pause (ht__session_pause_builds), or NULL */
    int timed_tell, timed_fd, timed_on; /* in a worker, during an evaluation whose parent
                                          pauses builds: tell it on socket timed_fd when the
                                          timed runs start and end (worker.c); timed_on:
                                          told that they started */
    struct ht__programs programs;      /* built in this session (ht__program_get), keyed by
                                          prologue, newline, options (ht__program_options);
                                          released by ht_session_free */
    int keep_programs;                 /* 1 (ht__session_create_kept's): the
                                          programs it builds are kept with the device's context
                                          for the process and taken from there, by cache dir
                                          and key, so that the runtime's next co-execution
                                          builds nothing; 0 (tuning): it builds as its own
                                          memo and the binary cache say */
};

/* One active stage of a pipeline, instantiated: its kernel (arguments set) and NDRange. */
struct ht__stage_inst {
    size_t index;                /* into spec->pipeline */
    unsigned ndims;
    uint64_t global[3], local[3];  /* local all 0: left to the runtime */
    cl_kernel kernel;
};

/* One configuration instantiated on the device. Zero it before ht__inst_prepare; release
 * it with ht__inst_release whatever happened. */
struct ht__inst {
    int64_t *vars;               /* owned; def->names.count values */
    unsigned ndims;
    uint64_t global[3], local[3];  /* local all 0: left to the runtime */
    cl_program prog;
    cl_kernel kernel;
    cl_mem *mem;                 /* per arg; NULL for scalars */
    void **host;                 /* per arg: the host memory mem[i] works on in place
                                    (CL_MEM_USE_HOST_PTR; borrowed), or NULL */
    struct ht__hostbuf *shape;   /* per arg: count and dims (data unused) */
    /* Pipelines: kernel stays NULL and the configuration's active stages, in launch order,
     * are here; nstages is 0 for a single kernel. */
    size_t nstages;
    struct ht__stage_inst stages[HT_MAX_STAGES];
};

/* Seconds between a finished command's START and END, or fallback when the runtime does
 * not give them. */
double ht__event_seconds(cl_event ev, double fallback);

/* Makes the device's view of mem's first bytes and the host's agree when the buffer works
 * in place: a blocking map (for reading when to_host, else for writing) and unmap, plus,
 * when copy is not NULL, a copy through the mapping (to copy from the device, or from copy
 * to the device). The map's and unmap's times (their
 * profiling events; the map's wall time where the queue has no profiling) and the copy's
 * are added to *seconds: not the wait for what the queue held before. HT_ECL. */
int ht__inst_sync(cl_command_queue q, cl_mem mem, size_t bytes, int to_host, void *copy,
                  double *seconds, struct ht_error *err);

/* One configuration instantiated as far as its kernel, for a caller that makes the
 * buffers itself (the co-execution: ht__inst_prepare's first steps): ht__inst_setup (the
 * vars, the NDRange, every buffer's shape into in->shape, so that a configuration the
 * device cannot hold is refused before its build), then in->prog built through
 * ht__inst_program, as tuning builds it: one program, one binary cache key per
 * configuration (*build_s and *cache_hit as there; the build log is dropped, err holds its
 * first error line), then in->kernel, the spec's kernel with its arguments set: the
 * scalars' values, and every buffer NULL until ht__inst_bind makes it. *whole_groups is 1
 * when the program is compiled with the whole-launch prologue (ht__program_prologue: a
 * slice launched with a global work offset sees the group ids of the whole launch), else 0.
 * Zero in before; release it with ht__inst_release whatever happened. HT_ENOMEM, and the
 * errors of ht__inst_setup, ht__inst_program and ht__inst_kernel. */
int ht__inst_build(struct ht_session *s, const int64_t *config, struct ht__inst *in,
                   double *build_s, int *cache_hit, int *whole_groups, struct ht_error *err);

/* (Re)creates buffer argument i of in (of the shape ht__inst_build evaluated) in the
 * session's context with the access of the argument: on the device (host NULL; nothing is
 * written to it), or in place over host (CL_MEM_USE_HOST_PTR; in->host[i] = host), which
 * must hold the buffer's bytes and outlive in->mem[i]. When in->kernel exists, its
 * arguments are set again, so that it uses the new buffer (the first buffers after
 * ht__inst_build, a program's array bound later). HT_ECL. */
int ht__inst_bind(struct ht_session *s, struct ht__inst *in, size_t i, void *host,
                  struct ht_error *err);

/* Enqueues a fill of the whole of in->mem[i] with its type's poison pattern
 * (ht__poison_pattern) on the session's queue; does not wait. */
int ht__inst_poison(struct ht_session *s, struct ht__inst *in, size_t i, struct ht_error *err);

/* Releases every OpenCL object and allocation of in (the stages' kernels included) and
 * zeroes it. */
void ht__inst_release(struct ht__inst *in, size_t nargs);

/* Fills buf, count elements of type t, with the poison pattern. */
void ht__poison_fill(enum ht_type t, void *buf, size_t count);

/* Result of comparing outputs with the reference. */
struct ht__cmp {
    size_t compared;     /* elements looked at */
    size_t mismatches;   /* elements outside the tolerance */
    double max_abs, max_rel;
    char first[256];     /* the first mismatch, "" when none */
};

/* Zeroes c and compares every written buffer (write, readwrite; not temp) of got with the
 * same of exp (both nargs entries), as ht__compare. */
void ht__compare_outputs(const struct ht_spec *spec, const struct ht__hostbuf *got,
                         const struct ht__hostbuf *exp, struct ht__cmp *c);

/* (session.c) Writes every written buffer (write, readwrite; not temp) of outputs (nargs
 * entries) to dir/NAME.bin, creating dir as needed. HT_EIO (or HT_ENOMEM) on failure. */
int ht__dump_outputs(const struct ht_spec *spec, const struct ht__hostbuf *outputs,
                     const char *dir, struct ht_error *err);

#endif
