/* hetune — the formats other tuners speak (src/interop/).
 *
 * Kernel Tuner's T1 input format (kernel_tuner/schema/T1/1.0.0/input-schema.json, the
 * "Tuning format" shared with KTT) becomes a hetune spec; the results database becomes
 * Kernel Tuner's T4 results format (kernel_tuner/schema/T4/1.0.0/results-schema.json) or a
 * C header of tuned values, for programs that build the kernel themselves.
 *
 * T1 fields and what they become (any other field, or a value hetune cannot express, is
 * refused with HT_ESPEC, err->field naming it):
 *   KernelSpecification.Language      "OpenCL"; "CUDA" and "HIP" give a spec of
 *                                     kernel.language CUDA or HIP, for replaying a recorded
 *                                     space only (hetune tune --replay; never built), with a
 *                                     note saying so
 *   KernelSpecification.ProblemSize   sizes ProblemSize_0.. (ProblemSize[k] in expressions)
 *   KernelSpecification.BenchmarkName, GridDivX/Y/Z, Stream, SharedMemory 0, and a
 *                                     parameter's Default, an argument's MemType and Output:
 *                                     accepted and left out (GlobalSize says what GridDiv
 *                                     does; a search needs no default)
 *   max(P), min(P) of one parameter P  the largest or least of P's values
 *   KernelSpecification.KernelName    kernel.name and the spec's name
 *   KernelSpecification.KernelFile    kernel.file (see spec_dir below)
 *   KernelSpecification.CompilerOptions  kernel.options, joined by spaces
 *   KernelSpecification.GlobalSize/LocalSize  ndrange.global/local (X, Y, Z expressions);
 *                                     GlobalSizeType "CUDA" multiplies each global size by
 *                                     its local size (a grid of blocks), "OpenCL" keeps it
 *   KernelSpecification.Arguments     args: Scalar (value: an integer FillValue) or Vector
 *                                     (shape: Size; init: FillType Random, Constant 0, or
 *                                     BinaryRaw from DataSource) of int8..uint64, float or
 *                                     double; AccessType ReadOnly/WriteOnly/ReadWrite
 *   KernelSpecification.Device, Profiling, General.*  accepted and left out: they choose a
 *                                     device or shape a tuner's output, not the problem
 *   ConfigurationSpace.TuningParameters  params: Type int or uint; Values evaluated as
 *                                     Python evaluates them, on exact rationals: a list
 *                                     "[1, 2, 4]", a comprehension over range with if
 *                                     clauses "[2**i for i in range(1, 6)]",
 *                                     "[i for i in range(32, 1025, 32) if i % 64 == 0]"
 *                                     (several for clauses nest), or "list(range(1, 9))";
 *                                     integers, + - * / // % ** (// and % floor as in
 *                                     Python), comparisons, and/or/not, x if c else y,
 *                                     ceil floor int min max. A value Python gives as a
 *                                     float or bool, or twice, is refused
 *   ConfigurationSpace.Conditions     constraints (Python's and/or/not, True, False
 *                                     become C's; // and % floor as Python's do: C's / and
 *                                     % where no operand can be negative (no '-', only
 *                                     parameters of values >= 0, sizes, device variables),
 *                                     else -ceil_div(-a, b) and ((a % b) + b) % b; a
 *                                     chained comparison a < b <= c becomes
 *                                     (a < b && b <= c), as Python means it; a quotient of Python's true division
 *                                     compared with a value, a / b > c, becomes the exact
 *                                     integer comparison a > c * b (mirrored for a
 *                                     negative b, invalid for a zero b); ceil(a / b) becomes
 *                                     ceil_div(a, b), floor(a / b) -ceil_div(-a, b),
 *                                     int(a / b) C's a / b, and ceil, floor or int of an
 *                                     integer expression that expression; min and max of
 *                                     several values nest hetune's min(a, b); any other
 *                                     true division is refused, naming it, and so is a
 *                                     condition that grows past 64 KiB once translated
 *                                     (nested quotients repeat their divisors: fourfold
 *                                     per level))
 *   Search.Name, Budget               not part of a spec: left out with a note saying which
 *                                     hetune tune option does the same
 * Refused: Language Vulkan (or any other), GlobalSizeType Vulkan, a SharedMemory other than
 * 0, SimulationInput,
 * ReferenceArguments (hetune verifies against a reference configuration or kernel), a
 * parameter Type float, bool or string, Values that are not a list of integers (a
 * comprehension over anything but range, a float literal, another function), an argument
 * of MemoryType Local or Symbol, of Type bool, half*, a vector type or custom, FillType
 * Generator, Script or BinaryHDF, a Constant FillValue other than 0, RandomSeed, and a
 * TypeSize other than the type's size.
 *
 * T4 export: one result per stored evaluation, in the order they were stored:
 * "configuration" (the parameters by name), "times" ("compilation_time" and "runtimes", in
 * milliseconds as Kernel Tuner writes them), "invalidity" (ok and cut: "correct"; build:
 * "compile"; verify: "correctness"; constraint: "constraints"; timeout: "timeout"; launch,
 * cl, crashed and error: "runtime"), "correctness" (0 for a wrong answer, else 1),
 * "objectives" ["time"], "measurements" (time, the statistic, in ms), "timestamp", and
 * hetune's own "device", "kernel" and "problem" (its sizes), which the schema allows.
 *
 * Header export: for each kernel name (of the newest problem stored with it, when there are
 * several: the others are named in a "left out" comment; the filter's sizes pick one) and
 * each device with a tuned best (verified first, else unverified), one
 * "#define HETUNE_<KERNEL>_<DEVICE>_<PARAM> value", names upper-cased with every other
 * character than A-Z and 0-9 made '_' (a device name shared by two devices gets its row id
 * appended); then the newest split of that problem with fixed slices (a dynamic or guided
 * one has none and is passed over, a comment says so): HETUNE_<KERNEL>_SPLIT_SCHEDULER (a
 * string), _SPLIT_DIM, _SPLIT_GLOBAL and per device _SPLIT_<DEVICE>_FACTOR (the adjusted
 * factor), _OFFSET and _SIZE (the static slice). Text from the database (names, sizes,
 * paths) is made safe inside the header's comments and strings: no stored value can end a
 * comment and put lines of its own into a build.
 *
 * This module uses no OpenCL and never writes to the database.
 *
 * A NULL pointer a function cannot do without is HT_EINVAL with err->text "FUNCTION:
 * ARGUMENT is NULL", never a crash; err may be NULL everywhere. Where NULL is taken
 * instead, the function's comment says what it means.
 */
#ifndef HETUNE_INTEROP_H
#define HETUNE_INTEROP_H

#include <stddef.h>

#include "hetune/error.h"
#include "hetune/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Converts the Kernel Tuner T1 file at t1_path into a hetune spec. spec_dir is the folder
 * the spec will be written to (NULL: the current one): a relative KernelFile stays as
 * written when that is t1_path's folder, else becomes an absolute path. On success
 * *spec_json is the spec as indented JSON text and *notes (may be NULL to not get them) is
 * NULL or what was left out, one line each ("Search.Name 'Random': pass --strategy random
 * to hetune tune"); both owned by the caller (free). Errors: HT_EIO (unreadable), HT_EPARSE
 * (not JSON; err line and column), HT_ESPEC (a field hetune cannot express or a value that
 * is malformed: err->field its JSON path, "KernelSpecification.Arguments[2].FillType"; a
 * kernel or data file the spec would name by a path that is not UTF-8, which JSON cannot
 * hold), HT_EEXPR or HT_EPARSE (an expression: err->field its path), HT_ENOMEM. A t1_path
 * that is not UTF-8 is kept in the spec's description with its stray bytes as U+FFFD. */
int ht_kt_import_t1(const char *t1_path, const char *spec_dir, char **spec_json, char **notes,
                    struct ht_error *err);

/* One Python expression of Kernel Tuner's restrictions as a hetune constraint, translated
 * as ConfigurationSpace.Conditions are above (and/or/not, // and % as Python's,
 * True/False, chained comparisons, a quotient of true division compared with a value,
 * ceil/floor/int of a quotient, min/max of several values; refused: & | ^ **, any other
 * true division, and what grows past 64 KiB once translated) and checked to compile over
 * names[0..nnames) (the parameters and sizes it may use, NULL when nnames is 0; a
 * parameter's sign is unknown here, so // and % take their exact form). *c_expr is owned
 * by the caller (free). Errors: HT_ESPEC (what
 * cannot be expressed, err->field "restriction"), HT_EEXPR or HT_EPARSE (it does not
 * compile: an unknown name, a syntax error), HT_ENOMEM. The Python package's tune_kernel
 * goes through it, so both read a restriction alike. */
int ht_kt_expression(const char *python, const char *const *names, size_t nnames,
                     char **c_expr, struct ht_error *err);

/* Which results an export takes: the problems of the specs named names[0..nnames) (their
 * "name", as stored), or every problem when nnames is 0; of those, only the problems whose
 * sizes hold every sizes[0..nsizes) (NAME=VALUE). Borrowed for the call. */
struct ht_export_filter {
    const char *const *names;
    size_t nnames;
    const struct ht_size_override *sizes;
    size_t nsizes;
};

/* Writes the evaluations of the database as Kernel Tuner T4 JSON (described above) into
 * *json, owned by the caller (free); a device name that is not UTF-8 has its stray bytes
 * as U+FFFD. filter may be NULL (everything). Errors: HT_ENOTFOUND
 * ("the database holds no evaluation", naming the specs when filtered), HT_EDB, HT_ENOMEM. */
int ht_export_t4(struct ht_store *store, const struct ht_export_filter *filter, char **json,
                 struct ht_error *err);

/* Writes the C header of tuned values (described above) into *text, owned by the caller
 * (free). filter may be NULL. Errors: HT_ENOTFOUND (no device has a tuned best), HT_EDB,
 * HT_ENOMEM. */
int ht_export_header(struct ht_store *store, const struct ht_export_filter *filter,
                     char **text, struct ht_error *err);

#ifdef __cplusplus
}
#endif
#endif
