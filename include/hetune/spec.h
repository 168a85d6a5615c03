/* hetune — the JSON spec: loading and validation.
 *
 * The format is described in docs/spec.md (and DESIGN.md). Loading validates everything
 * that can be checked without OpenCL; the argument count against the kernel's is checked
 * after the build with ht_spec_check_kernel_args (ht_spec_check_stage_args for each stage of
 * a pipeline).
 *
 * A NULL pointer a function cannot do without (the spec, the device, an output) is HT_EINVAL
 * with err->text "FUNCTION: ARGUMENT is NULL", never a crash; err may be NULL everywhere.
 * ht_format_config writes "" and ht_closest_word answers NULL for a NULL input; where NULL is
 * taken instead, the function's comment says what it means.
 */
#ifndef HETUNE_SPEC_H
#define HETUNE_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"
#include "hetune/expr.h"
#include "hetune/space.h"

#ifdef __cplusplus
extern "C" {
#endif

/* OpenCL scalar types an argument may have. */
#define HT_TYPE_MAP(X)                                                           \
    X(CHAR, "char", 1, 0, 1)                                                     \
    X(UCHAR, "uchar", 1, 0, 0)                                                   \
    X(SHORT, "short", 2, 0, 1)                                                   \
    X(USHORT, "ushort", 2, 0, 0)                                                 \
    X(INT, "int", 4, 0, 1)                                                       \
    X(UINT, "uint", 4, 0, 0)                                                     \
    X(LONG, "long", 8, 0, 1)                                                     \
    X(ULONG, "ulong", 8, 0, 0)                                                   \
    X(FLOAT, "float", 4, 1, 1)                                                   \
    X(DOUBLE, "double", 8, 1, 1)

enum ht_type {
#define HT__TYPE_ENUM(id, name, size, is_float, is_signed) HT_TYPE_##id,
    HT_TYPE_MAP(HT__TYPE_ENUM)
#undef HT__TYPE_ENUM
    HT_NTYPES
};

const char *ht_type_name(enum ht_type t);  /* "float"; static storage */
size_t ht_type_size(enum ht_type t);       /* bytes */
int ht_type_is_float(enum ht_type t);    /* 1: float or double; else 0 */
int ht_type_is_signed(enum ht_type t);   /* 1: a signed integer or a floating type; else 0 */

/* HT_ACCESS_TEMP: an intermediate buffer of a pipeline, on the device only: created with
 * its shape, poisoned before every run, never initialised, read back, verified or dumped. */
enum ht_access { HT_ACCESS_READ, HT_ACCESS_WRITE, HT_ACCESS_READWRITE, HT_ACCESS_TEMP };
enum ht_init { HT_INIT_RANDOM, HT_INIT_ZERO, HT_INIT_IOTA, HT_INIT_FILE };

/* How verification compares a written buffer with its reference (the buffer's "verify",
 * docs/spec.md "Verification"): every element; only the elements the reference wrote (those
 * it left holding the poison, or NaN in a reference file, are skipped); the sums of the two
 * (their lengths may differ); or not at all. */
enum ht_check { HT_CHECK_ALL, HT_CHECK_WRITTEN, HT_CHECK_SUM, HT_CHECK_NONE };

struct ht_axis_index {
    int dim;               /* 0 (gx), 1 (gy), 2 (gz), or -1: the axis is needed whole */
    struct ht_expr *halo;  /* extra elements a work-item reads past its own; NULL is 0 */
};

struct ht_arg {
    char *name;
    enum ht_type type;
    int is_buffer;             /* 1: a buffer (has shape), 0: a scalar (has value) */
    /* buffers */
    unsigned naxes;            /* 1..3 */
    struct ht_expr *shape[3];  /* elements per axis, row-major */
    enum ht_access access;
    enum ht_init init;         /* for read and readwrite buffers; write buffers are poisoned */
    char *init_path;           /* HT_INIT_FILE: the path, resolved against the spec's folder */
    int has_index;
    struct ht_axis_index index[3];
    enum ht_check check;       /* write and readwrite buffers: how verification compares it */
    char *ref_path;            /* verify.outputs: its reference output's file (resolved
                                  against the spec's folder; .npy or raw), or NULL */
    /* scalars */
    struct ht_expr *value;
};

/* HT_VERIFY_FILE: no reference run; every compared buffer has a reference file
 * (ht_arg.ref_path). With CONFIG or KERNEL, the buffers that have a file use it. */
enum ht_verify_kind { HT_VERIFY_NONE, HT_VERIFY_CONFIG, HT_VERIFY_KERNEL, HT_VERIFY_FILE };

/* The most stages a pipeline may have. */
#define HT_MAX_STAGES 16

/* One launch of a pipeline (docs/spec.md, "Pipelines"): a kernel of the spec's program, its
 * NDRange, and its arguments named from the spec's top-level args. */
struct ht_stage {
    char *kernel;              /* the kernel function; kernel.name when the stage names none */
    unsigned ndims;            /* 1..3; the top-level ndrange's when the stage gives none */
    struct ht_expr *global[3]; /* NULL beyond ndims */
    struct ht_expr *local[3];  /* all NULL: the runtime chooses the work-group size */
    size_t nargs;
    size_t *args;              /* the kernel's arguments in order, as indices into spec->args */
    struct ht_expr *when;      /* the stage runs when this is non-zero; NULL: always */
};

/* The language of the spec's kernel ("kernel": {"language": ...}, default OpenCL). hetune
 * builds and runs OpenCL kernels only; a CUDA or HIP spec (imported from a Kernel Tuner T1
 * file) serves to replay a recorded space of that kernel (hetune tune --replay), and a
 * session refuses it. */
enum ht_kernel_language { HT_LANG_OPENCL, HT_LANG_CUDA, HT_LANG_HIP };

/* The language's name as a spec writes it ("OpenCL", "CUDA", "HIP"). Static storage. */
const char *ht_kernel_language_name(enum ht_kernel_language lang);

struct ht_spec {
    char *path;             /* as given; NULL for a spec loaded from memory
                               (ht_spec_load_buffer), which has no file to load again */
    char *dir;              /* its folder, against which kernel.file and init files resolve
                               (from memory: the base_dir given, or NULL, the current one) */
    char *name;
    char *kernel_path;      /* resolved; when the source is not read from kernel.file
                               (kernel.source, or given to ht_spec_load_buffer): a label
                               for messages, "spec.json:kernel.source" or "<string>:kernel" */
    char *kernel_name;
    char *kernel_options;   /* "" when not given */
    enum ht_kernel_language language; /* kernel.language; HT_LANG_OPENCL by default */
    char *source;           /* the kernel file's text, NUL-terminated ("" for a CUDA or HIP
                               kernel whose file is missing: it is never built) */
    size_t source_len;
    struct ht_space_def space;
    size_t nargs;
    struct ht_arg *args;
    enum ht_verify_kind verify;
    int64_t *reference;     /* HT_VERIFY_CONFIG: one value per parameter */
    char *reference_kernel; /* HT_VERIFY_KERNEL: the kernel's name in the same file */
    double rtol, atol;
    unsigned repeats, keep_best;
    /* Adaptive repeats (exec.h, "Adaptive repeats"): timing.adaptive (1 by default; 0 runs
     * every configuration repeats times, as before), timing.min_repeats, timing.precision
     * and timing.margin. A spec made by hand with calloc has adaptive 0. */
    int adaptive;
    unsigned min_repeats;
    double precision, margin;
    struct ht_expr *flops;  /* floating-point operations of one run, or NULL */
    struct ht_expr *bytes;  /* bytes moved by one run, or NULL */
    /* A pipeline (the optional "pipeline" array): the launches of one run, in order; 0
     * stages for a single kernel. The top-level ndrange still defines the space (pruning)
     * and the reference kernel's launch. Splitting, co-execution and the runtime do not
     * support pipelines (npipeline > 0): `hetune split` refuses them. */
    size_t npipeline;
    struct ht_stage *pipeline;
    /* verify.args: the reference kernel's arguments as indices into args; 0 of them (the
     * default) means all of args, in order. */
    size_t nverify_args;
    size_t *verify_args;
    /* verify.global and verify.local: the reference kernel's own NDRange, expressions over
     * sizes and device variables only; verify_ndims 0: the top-level ndrange, with the
     * work-group size left to the runtime. verify_local all NULL: left to the runtime. */
    unsigned verify_ndims;
    struct ht_expr *verify_global[3];
    struct ht_expr *verify_local[3];
    /* verify.once: the reference kernel's outputs are the same for every configuration;
     * it runs once per session (with the first configuration's program and buffers). */
    int verify_once;
    /* FNV-1a 64 of the spec's JSON text as loaded, 16 lowercase hex digits: the results
     * database keys the failures that come from the spec (a launch, a verification, a
     * broken constraint, an OpenCL call of the host side) to it, so that an edited spec
     * measures them again (tune.h). "" for a spec made by hand. */
    char hash[17];
};

/* The defaults of timing.min_repeats, timing.precision and timing.margin. */
#define HT_TIMING_MIN_REPEATS 3
#define HT_TIMING_PRECISION 0.02
#define HT_TIMING_MARGIN 0.2

/* A problem size given on the command line (--size NAME=VALUE). */
struct ht_size_override {
    const char *name;
    int64_t value;
};

/* Loads and validates the spec at path, with sizes overridden by ov[0..nov). *out is owned
 * by the caller (ht_spec_free). On failure returns HT_EIO (unreadable file), HT_EINVAL (the
 * path is a folder or another file that is not regular: err->text "is a directory"), HT_EPARSE
 * (invalid JSON, with line and column), HT_ESPEC (a field is missing, unknown, of the wrong
 * type or value; err->field holds its JSON path) or HT_EEXPR (an expression does not
 * compile; err->field holds the path and err->line/column point into the file when the
 * expression's text can be found there, else err->column is the column in the expression).
 * err->file is always the spec's path. */
int ht_spec_load(const char *path, const struct ht_size_override *ov, size_t nov,
                 struct ht_spec **out, struct ht_error *err);

/* What a spec loaded from memory takes besides its text (ht_spec_load_buffer).
 * Zero-initialize: zero is the default of every field. */
struct ht_spec_buffer_opts {
    const char *source;     /* the kernel's source; NULL: the spec's own kernel.source, else
                               kernel.file read against base_dir */
    size_t source_len;      /* its bytes; 0: NUL-terminated */
    const char *name;       /* what errors name as the file; NULL: "<string>" */
    const char *base_dir;   /* resolves kernel.file, `file:` inits and reference files;
                               NULL: the current directory */
    const struct ht_size_override *ov; /* sizes overridden, nov of them */
    size_t nov;
};

/* Loads and validates a spec from memory, so that a program ships no files: json (json_len
 * bytes, or NUL-terminated when json_len is 0) is the spec's text; opts (NULL: all
 * defaults) gives the kernel's source, the name errors use, the folder files resolve
 * against and the sizes overridden. With opts->source given, kernel.file may be left out
 * (when present it only names the source in messages) and kernel.source must be. Errors
 * are those of ht_spec_load, with err->file the name given ("<string>" when none) and
 * err->line/column into json; HT_EINVAL when json or out is NULL, opts->nov without
 * opts->ov, or opts->source_len without opts->source. json and the source are copied: the
 * caller may free them once this returns. *out is owned by the caller (ht_spec_free); its
 * path is NULL (there is no file to load again, so the tuner's isolated worker and its
 * builds ahead, which reload the spec from its file, cannot run it: tune it in this
 * process, ht_exec_opts.isolate HT_ISOLATE_OFF). */
int ht_spec_load_buffer(const char *json, size_t json_len, const struct ht_spec_buffer_opts *opts,
                        struct ht_spec **out, struct ht_error *err);

/* Frees a spec; NULL is allowed. */
void ht_spec_free(struct ht_spec *spec);

/* Parses "NAME=VALUE" (VALUE a decimal or 0x integer). name is a pointer into s, with
 * *name_len characters. Returns HT_EINVAL with err filled when s is malformed. */
int ht_parse_assignment(const char *s, const char **name, size_t *name_len, int64_t *value,
                        struct ht_error *err);

/* The word of words[0..n) nearest to s by edit distance, when it is close enough to be
 * what was meant (at most two edits, and fewer than a third of the longer word), else
 * NULL: the rule of every "did you mean" of the spec loader and the CLI. */
const char *ht_closest_word(const char *s, const char *const *words, size_t n);

/* Writes configuration config of spec (spec->space.nparams values, in parameter order)
 * into buf (size bytes, cut to fit) as "WG=64 EPT=2", or "(no parameters)"; "" for a NULL
 * spec (or config, with parameters). */
void ht_format_config(const struct ht_spec *spec, const int64_t *config, char *buf,
                      size_t size);

/* Builds a configuration (spec->space.nparams values, in parameter order) from
 * "P=V" strings. Every parameter must be given exactly once, except that a parameter whose
 * domain is one literal value may be left out. Returns HT_EINVAL naming the unknown,
 * repeated or missing parameter. */
int ht_spec_config_from_assignments(const struct ht_spec *spec, const char *const *assign,
                                    size_t n, int64_t *config, struct ht_error *err);

/* Checks the argument list against the kernel's argument count (from clGetKernelInfo
 * CL_KERNEL_NUM_ARGS). Returns HT_ESPEC with err->field "args" when they differ, and for a
 * pipeline (whose args belong to no single kernel: see ht_spec_check_stage_args), whose
 * message says that a pipeline cannot run as one kernel (splitting, for one, refuses it). */
int ht_spec_check_kernel_args(const struct ht_spec *spec, unsigned kernel_num_args,
                              struct ht_error *err);

/* Checks stage i's argument list against its kernel's argument count. Returns HT_ESPEC
 * with err->field "pipeline[i].args" when they differ. */
int ht_spec_check_stage_args(const struct ht_spec *spec, size_t stage,
                             unsigned kernel_num_args, struct ht_error *err);

/* Which stages a configuration launches: the indices into spec->pipeline of the stages
 * whose `when` is non-zero (or absent), in order, into active[0..*nactive) (active holds
 * HT_MAX_STAGES entries). vars are filled as ht_space_vars does. Returns HT_ECONSTRAINT
 * with err->field "pipeline[i].when" when a `when` cannot be evaluated, or "pipeline"
 * when no stage runs. */
int ht_spec_active_stages(const struct ht_spec *spec, const int64_t *vars, size_t *active,
                          size_t *nactive, struct ht_error *err);

/* Evaluates stage i's NDRange for filled vars, as ht_space_ndrange does (local all 0 when
 * the stage leaves it to the runtime; 1 beyond ndims). Returns HT_EINVAL, err->field
 * "pipeline[i].ndrange.global[d]" (or local), when an extent does not evaluate or is not
 * positive. */
int ht_spec_stage_ndrange(const struct ht_spec *spec, size_t stage, const int64_t *vars,
                          uint64_t global[3], uint64_t local[3], struct ht_error *err);

/* The platform rules of every stage a configuration launches, checked before anything is
 * built (the space's pruning sees the top-level ndrange only): each NDRange evaluates,
 * Eq. 1 (the product of the local sizes at most max_work_group_size), the per-dimension
 * work-item limits and Eq. 2 (each global size a multiple of its local size). Returns 0 for
 * a single-kernel spec or when every active stage passes, else HT_ECONSTRAINT with
 * err->field the stage's path ("pipeline[1]") and err->text naming the rule, the stage's
 * kernel and the values that broke it. config may be NULL for a spec without parameters. */
int ht_spec_check_stages(const struct ht_spec *spec, const struct ht_device_info *dev,
                         const int64_t *config, struct ht_error *err);

/* The bytes of buffer argument i for filled vars (as ht_space_vars fills them): the product
 * of its shape's axes and the size of its type, into *bytes, and the axes into dims[0..3)
 * (1 past the buffer's own) when dims is not NULL. Returns HT_EINVAL with err->field
 * "args[i].shape[a]" when an axis does not evaluate or is not positive (or i is no buffer),
 * HT_EOVERFLOW with err->field "args[i].shape" when the bytes pass 2^64 (or SIZE_MAX);
 * err->file is the spec's path. */
int ht_spec_buffer_bytes(const struct ht_spec *spec, size_t i, const int64_t *vars,
                         uint64_t *bytes, uint64_t dims[3], struct ht_error *err);

/* The buffer argument called name that a program binds its own array to (the runtimes'
 * ht_runtime_bind, on one machine or across nodes): its index in spec->args into *arg. HT_EINVAL
 * naming it when the spec has no argument of that name (err lists its buffers that can be
 * bound), it is a scalar (its value comes from the sizes) or a temp buffer (it lives on
 * the devices only). */
int ht_spec_bind_arg(const struct ht_spec *spec, const char *name, size_t *arg,
                     struct ht_error *err);

/* Checks a program's array for buffer argument arg before it is bound: data not NULL and
 * bytes equal to need, the buffer's bytes. HT_EINVAL naming the spec's argument (and, for a
 * size, giving both in bytes and elements of its type) otherwise: a NULL data is the
 * program's mistake this check is for, said as "argument 'x': no array given (NULL)". An arg
 * past spec->nargs is HT_EINVAL too. */
int ht_spec_check_array(const struct ht_spec *spec, size_t arg, const void *data,
                        size_t bytes, size_t need, struct ht_error *err);

/* Checks, before anything is built, that dev can hold every buffer whose shape does not
 * depend on a parameter (those are the same for every configuration; the others are checked
 * for each configuration as it runs): the shape evaluates with the spec's sizes and dev's
 * variables, its bytes do not overflow, and they are at most dev->max_mem_alloc_size.
 * Returns HT_ESPEC with err->file the spec's path, err->field "args[i].shape" and err->text
 * naming the buffer's bytes and the limit (ht_format_bytes), HT_ENOMEM, or 0. */
int ht_spec_check_device(const struct ht_spec *spec, const struct ht_device_info *dev,
                         struct ht_error *err);

#ifdef __cplusplus
}
#endif
#endif
