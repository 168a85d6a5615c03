/* hetune — error codes and error reports.
 *
 * Every library function returns an int: 0 (HT_OK) on success, a negative HT_E... code
 * otherwise. Functions that can fail for a reason worth telling the user also fill a
 * caller-provided struct ht_error; the first error is kept (later ht_error_set calls on an
 * error that already holds one do nothing), as jansson's json_error_t does.
 */
#ifndef HETUNE_ERROR_H
#define HETUNE_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, description). HT_DONE is not an error: iterators return it when finished.
 * Nor is HT_BUSY: a search with proposals in flight returns it when it cannot propose more
 * until one of them is reported (search.h). */
#define HT_ERRNO_MAP(X)                                                          \
    X(OK, 0, "success")                                                          \
    X(DONE, 1, "finished")                                                       \
    X(BUSY, 2, "waiting for a result in flight")                                 \
    X(NOMEM, -1, "out of memory")                                                \
    X(INVAL, -2, "invalid argument")                                             \
    X(IO, -3, "input/output error")                                              \
    X(PARSE, -4, "syntax error")                                                 \
    X(SPEC, -5, "invalid spec")                                                  \
    X(EXPR, -6, "invalid expression")                                            \
    X(DIVZERO, -7, "division by zero")                                           \
    X(OVERFLOW, -8, "integer overflow")                                          \
    X(DOMAIN, -9, "argument out of domain")                                      \
    X(NOPLATFORM, -10, "no OpenCL platform found")                               \
    X(NODEVICE, -11, "no such device")                                           \
    X(CL, -12, "OpenCL call failed")                                             \
    X(BUILD, -13, "kernel build failed")                                         \
    X(CONSTRAINT, -14, "configuration breaks a constraint")                      \
    X(LAUNCH, -15, "kernel launch failed")                                       \
    X(VERIFY, -16, "verification failed")                                        \
    X(NOTFOUND, -17, "not found")                                                \
    X(SOLVER, -18, "external solver failed")                                     \
    X(DB, -19, "results database error")                                         \
    X(CUT, -20, "configuration cut: clearly slower than the best so far")         \
    X(CRASH, -21, "configuration crashed its worker process")                     \
    X(TIMEOUT, -22, "configuration outlasted its time limit")                     \
    X(INTR, -23, "interrupted")

enum ht_errno {
#define HT__ERRNO_ENUM(name, value, desc) HT_E##name = (value),
    HT_ERRNO_MAP(HT__ERRNO_ENUM)
#undef HT__ERRNO_ENUM
};

#define HT_OK HT_EOK
#define HT_DONE HT_EDONE
#define HT_BUSY HT_EBUSY

/* The description of an error code ("division by zero"). Borrowed, static storage. */
const char *ht_strerror(int code);

/* The name of an error code ("HT_EDIVZERO"). Borrowed, static storage. */
const char *ht_err_name(int code);

/* The name of an OpenCL status code ("CL_OUT_OF_RESOURCES"), or "CL_UNKNOWN_ERROR(<n>)"
 * written into a thread-local buffer for codes it does not know. Borrowed; valid until the
 * next call on the same thread. */
const char *ht__cl_err_name(int cl_status);

/* A report of what went wrong. file, line, column and field are optional context:
 * empty string / 0 when unknown. line and column are 1-based. */
struct ht_error {
    int code;          /* the HT_E... code; 0 while no error is held */
    int cl_status;     /* the raw cl_int when an OpenCL call failed, else 0 */
    int line, column;
    char file[512];
    char field[256];   /* a JSON path such as "args[2].access", or a rule name */
    char text[2048];   /* the message proper, lowercase, without location */
};

/* Empties an error report. */
void ht_error_clear(struct ht_error *err);

/* Sets err (when err is not NULL and holds no error yet) to code and a printf-style message,
 * and returns code so callers can write `return ht_error_set(err, HT_EINVAL, "...")`.
 * Location fields are left as they are, so set them before or after as needed. */
int ht_error_set(struct ht_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Writes the report as one line, git style: "file:line:col: field: text", leaving out the
 * parts that are unknown. Returns the length that was needed, like snprintf. */
int ht_error_format(const struct ht_error *err, char *buf, size_t size);

/* The levels of the messages the log hook receives. */
enum ht_log_level { HT_LOG_INFO = 1, HT_LOG_DEBUG = 2 };

/* A log hook: level, one line of text without a newline (borrowed for the call only) and
 * the pointer given to ht_set_log. */
typedef void (*ht_log_fn)(int level, const char *msg, void *user);

/* Installs fn, process-wide, as the receiver of the library's log messages: which kernel
 * binary was built, loaded from or written to the binary cache and where, and each OpenCL
 * call that failed with its status. The library never prints; without a hook (the
 * default, or fn NULL) the messages are dropped. Set it before other threads use the
 * library. An isolated session's worker process logs to its stderr when the environment
 * variable HETUNE_VERBOSE is set to a value other than 0; with HETUNE_QUIET set so
 * instead (what the CLI's -q sets), its stdout and stderr go to /dev/null: a kernel's
 * printf, the driver's and the C library's messages. */
void ht_set_log(ht_log_fn fn, void *user);

#ifdef __cplusplus
}
#endif
#endif
