/* hetune — a co-executing command supervised from another process (issue 13). A tuned
 * configuration is isolated in a worker process (exec.h); a co-execution cannot be, since
 * its devices share the host arrays. So `hetune split` and `hetune run` run whole in a
 * child process that this process watches: the child's co-execution marks, in a page of
 * memory both share, which device is working and until when it may. When the child dies
 * of a signal, or a device outlasts its time limit (the child is then killed), the device
 * that was working is named, and the command runs again, from the start, without it: the
 * library leaves it out as a device with nothing usable (workflow.h's skipped list, with
 * the reason), so the run finishes on the others. What the first child stored (tuning
 * results) is in the database and is not measured again.
 *
 * When two devices were working at the moment of a crash, the next child first runs each
 * device's part of every co-execution alone, one after the other (a probe), so that a
 * crash names one device; the timed run that follows is the usual one. A crash with no
 * device working (the spec's reference, say) ends the command with status 1.
 *
 * A NULL pointer a function cannot do without is HT_EINVAL with err->text "FUNCTION:
 * ARGUMENT is NULL", never a crash; err may be NULL everywhere. The void functions do
 * nothing with a NULL. Where NULL is taken instead, the function's comment says what it
 * means.
 */
#ifndef HETUNE_SUPERVISE_H
#define HETUNE_SUPERVISE_H

#include <stddef.h>

#include "hetune/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Devices a supervisor watches: the first this many device indices (hetune devices). */
#define HT_SUPERVISE_MAX_DEVICES 64

/* Told each thing the supervisor does (an ht_log_fn of error.h, level HT_LOG_INFO), as a
 * sentence without the command's prefix ("device 1 (NAME): crashed (SIGSEGV) in its part
 * of the co-execution; running again without it"); text is borrowed for the call. */
typedef ht_log_fn ht_supervise_fn;

/* Zero-initialized: this process's own executable, no notes, at most 2 + the number of
 * devices watched attempts. */
struct ht_supervise_opts {
    const char *path;          /* the program argv runs; NULL: /proc/self/exe */
    ht_supervise_fn on_note;   /* NULL: nobody is told */
    void *user;
    unsigned max_attempts;     /* 0: HT_SUPERVISE_MAX_DEVICES + 2 */
    double grace_s;            /* after SIGINT or SIGTERM, how long the child has to end
                                  before it is killed; 0: 0.5 s */
};

/* A device left out because its part crashed or hung. */
struct ht_supervise_lost {
    size_t device;             /* its index */
    char name[64];             /* its name, as the child saw it */
    char reason[256];          /* "crashed (SIGSEGV) in its part of the co-execution",
                                  "timeout after 2.0 s in its part of the co-execution" */
};

/* What ht_supervise did. Owned: ht_supervise_result_destroy. */
struct ht_supervise_result {
    int status;                /* the exit status to exit with: the last child's (0-255),
                                  1 for a crash with no device working, 130 interrupted */
    unsigned attempts;         /* children started */
    int interrupted;           /* 1: SIGINT or SIGTERM reached this process */
    size_t nlost;              /* at most HT_SUPERVISE_MAX_DEVICES */
    struct ht_supervise_lost *lost; /* nlost entries (NULL when none), in the order they
                                  were lost; owned by the result. ABI: an array of
                                  HT_SUPERVISE_MAX_DEVICES inside the struct until branch
                                  abi40b, which made the struct 20 KB smaller; a program
                                  built against the older header must be built again. Its
                                  source reads lost[k] the same but must now destroy the
                                  result */
};

/* Runs argv (argv[0] is the name the child sees) in a child process with its standard
 * input and error this process's and its standard output gathered here: written out once
 * the child ends of itself (a child ended for a lost device prints nothing, the next one
 * prints all). Devices lost are passed to the next child (HETUNE_SUPERVISE_LOST) and told
 * through opts->on_note. SIGINT and SIGTERM are caught while it runs (their former
 * handlers are restored), forwarded to the child, which is killed when it has not ended
 * after opts->grace_s; opts NULL is a zero-initialized struct ht_supervise_opts. Fills
 * *res, overwriting it whole (ht_supervise_result_destroy, also on error); returns HT_OK
 * when a child ran to its end, whatever its status, else HT_EIO (no memory file, pipe or
 * process) or HT_ENOMEM, err filled. */
int ht_supervise(char *const argv[], const struct ht_supervise_opts *opts,
                 struct ht_supervise_result *res, struct ht_error *err);

/* Frees r's devices lost and zeroes *r. r may be NULL or zeroed. */
void ht_supervise_result_destroy(struct ht_supervise_result *r);

/* 1 in a process that ht_supervise started (its co-executions are watched), else 0. */
int ht_supervised(void);

/* In a process that ht_supervise started: 1, with the supervisor's reason in reason (size
 * bytes, cut to fit; NULL or size 0: the answer alone), when the supervisor lost device (a
 * device index, hetune devices) in an earlier child, so that this child leaves it out
 * (hetune split and run list it as skipped, workflow.h); else 0, reason untouched (always
 * 0 outside a supervised child). */
int ht_supervised_lost(size_t device, char *reason, size_t size);

#ifdef __cplusplus
}
#endif

#endif
