/* hetune-worker: the process an isolated session builds and runs its configurations in
 * (worker.c). Started by the library with its socket as fd 3; not for users. The program's
 * main, in exec's folder with the loop it runs (ht__worker_serve, worker.h) but not in the
 * library (CMakeLists.txt): the worker links the static library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/error.h"
#include "worker.h"

/* Under AddressSanitizer (the sanitized test build): a configuration's signal ends the
 * worker as it would without it, so that the parent can name the signal ("crashed:
 * SIGSEGV") rather than see ASan's exit status. Unused without ASan. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0";
}

/* The library's log (ht_set_log) on stderr, which is the parent's: hetune -v asks for it
 * through HETUNE_VERBOSE. */
static void log_stderr(int level, const char *msg, void *user)
{
    (void)level;
    (void)user;
    fprintf(stderr, "hetune: %s\n", msg);
}

int main(int argc, char **argv)
{
    const char *verbose = getenv("HETUNE_VERBOSE");

    if (verbose && *verbose && strcmp(verbose, "0") != 0)
        ht_set_log(log_stderr, NULL);
    if (argc != 2 || strcmp(argv[1], "--serve") != 0) {
        fputs("hetune-worker: started by the hetune library for isolation; not a command\n",
              stderr);
        return 2;
    }
    return ht__worker_serve(3);
}
