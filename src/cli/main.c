/* hetune: the command table and the shared helpers of every subcommand. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"devices", cmd_devices, "list OpenCL devices and their limits; write MiniZinc data files"},
    {"eval", cmd_eval, "build, run, time and verify one configuration on one device"},
    {"space", cmd_space, "unpruned and pruned design space per device (Tables 1-2)"},
    {"tune", cmd_tune, "explore the pruned space on each device; store every evaluation"},
    {"plan", cmd_plan, "split work between devices by their times (Eq. 4-9, Algorithm 1)"},
    {"split", cmd_split, "co-execute on several devices at their tuned configurations"},
    {"run", cmd_run, "the whole pipeline: prune, tune, split and report"},
    {"report", cmd_report, "the paper's tables and figures from the results database"},
    {"demo", cmd_demo, "the paper's two case studies on every device found, and their report"},
    {"import-kt", cmd_import_kt, "convert a Kernel Tuner T1 input file into a spec"},
    {"export", cmd_export, "results as Kernel Tuner T4 JSON, or a C header of tuned values"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: hetune <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'hetune <command> --help' or 'hetune help <command>' describes a command;\n"
               "'hetune --version' prints the version.\n"
               "exit status: 0 success, 1 runtime failure, 2 bad input, 3 verification failed\n");
}

int main(int argc, char **argv)
{
    int isolate = ht_mpi_env_size() <= 1;

    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        if (argc < 3) {
            usage(stdout);
            return 0;
        }
        /* hetune help CMD is hetune CMD --help. */
        argv[1] = argv[2];
        argv[2] = "--help";
        argc = 3;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("hetune %s\n", HETUNE_VERSION);
        return 0;
    }
    if (ht_mpi_refusal(argv[1])) /* under mpirun: only tune and split, built with MPI */
        return fprintf(stderr, "hetune %s: %s\n", argv[1], ht_mpi_refusal(argv[1])), 2;
    /* split and run run whole in a supervised child process (supervise.h); not under mpirun,
     * where a child started again could not rejoin the job (MPI_Init once per rank). */
    for (int i = 2; i < argc && isolate; i++)
        isolate = strcmp(argv[i], "--no-isolate") != 0;
    if ((!strcmp(argv[1], "split") || !strcmp(argv[1], "run")) && isolate && !ht_supervised()) {
        struct ht_supervise_opts o = {.on_note = cli_log_stderr, .user = argv[1]};
        struct ht_supervise_result r;
        struct ht_error err = {0};
        int status = ht_supervise(argv, &o, &r, &err) == HT_OK ? r.status
                                                               : cli_fail(argv[1], &err);
        ht_supervise_result_destroy(&r);
        return status;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    {
        const char *names[sizeof commands / sizeof commands[0]];
        const char *guess;
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            names[i] = commands[i].name;
        guess = ht_closest_word(argv[1], names, sizeof names / sizeof names[0]);
        if (guess) {
            fprintf(stderr, "hetune: '%s' is not a command (did you mean '%s'?)\n", argv[1],
                    guess);
            return 2;
        }
    }
    fprintf(stderr, "hetune: '%s' is not a command\n\n", argv[1]);
    usage(stderr);
    return 2;
}

int cli_fail(const char *cmd, const struct ht_error *err)
{
    char buf[4096];
    ht_error_format(err, buf, sizeof buf);
    fprintf(stderr, "hetune %s: %s\n", cmd, buf);
    return ht_present_exit_status(err->code);
}

int cli_usage_error(const char *cmd, int status, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "hetune %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return status;
}
