/* hetune-worker: the process an isolated session builds and runs its configurations in
 * (src/exec/worker.c). Started by the library with its socket as fd 3; not for users. */
#include <stdio.h>
#include <string.h>

#include "exec/worker.h"

int main(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[1], "--serve") != 0) {
        fputs("hetune-worker: started by the hetune library for isolation; not a command\n",
              stderr);
        return 2;
    }
    return ht__worker_serve(3);
}
