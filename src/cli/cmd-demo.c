/* hetune demo: the paper's two case studies (matmul, conv1d) through the whole pipeline on
 * every device found, then the report of both. It drives cmd_run and cmd_report, so what it
 * does is exactly what those commands do. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#ifndef HETUNE_EXAMPLES_DIR
#define HETUNE_EXAMPLES_DIR "examples"
#endif

static const char demo_usage[] =
    "usage: hetune demo [options]\n"
    "\n"
    "The paper's two case studies on every OpenCL device found, each through the whole\n"
    "pipeline (as hetune run: prune, tune, split, report), into one database, then the\n"
    "report of both (as hetune report):\n"
    "  1. hetune run EXAMPLES/matmul/spec.json --size N=MATMUL_N --out OUT/matmul\n"
    "  2. hetune run EXAMPLES/conv1d/spec.json --scheduler all --out OUT/conv1d\n"
    "     (and --sweep 0.1 when there are exactly two devices: Figures 6 and 7;\n"
    "     --size N=CONV1D_N when --conv1d-n is given)\n"
    "  3. hetune report --out OUT\n"
    "(each with -q or -v when given)\n"
    "\n"
    "options:\n"
    "      --examples DIR    the examples folder (default: ./examples when it exists,\n"
    "                        else the source tree's)\n"
    "      --db FILE         the results database (default ./demo.db)\n"
    "  -o, --out DIR         the report folder (default report)\n"
    "      --matmul-n N      matmul's size (default 1024, the paper's)\n"
    "      --conv1d-n N      conv1d's size (default the spec's, 65536, the paper's)\n"
    "\n"
    "exit status: the first non-zero status of the steps, else 0\n";

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Runs one subcommand with the given arguments, echoing it first like a shell would. */
static int step(int (*cmd)(int, char **), char **argv)
{
    int argc = 0;

    printf("\n$ hetune");
    for (; argv[argc]; argc++)
        printf(" %s", argv[argc]);
    printf("\n");
    fflush(stdout);
    optind = 0; /* each subcommand parses its own options afresh */
    return cmd(argc, argv);
}

int cmd_demo(int argc, char **argv)
{
    enum { OPT_EXAMPLES = CLI_OPT_OWN, OPT_DB, OPT_MATMUL_N, OPT_CONV1D_N };
    static const struct option own[] = {
        {"examples", required_argument, NULL, OPT_EXAMPLES},
        {"db", required_argument, NULL, OPT_DB},
        {"out", required_argument, NULL, 'o'}, {"matmul-n", required_argument, NULL, OPT_MATMUL_N},
        {"conv1d-n", required_argument, NULL, OPT_CONV1D_N},
        {NULL, 0, NULL, 0},
    };
    struct cli_common co;
    const char *examples = is_dir("examples") ? "examples" : HETUNE_EXAMPLES_DIR;
    const char *db = "demo.db", *out = "report";
    char matmul[1024], conv1d[1024], size[64], conv1d_size[64], out_matmul[1024],
        out_conv1d[1024];
    uint64_t n = 1024, conv1d_n = 0; /* 0: the spec's own size */
    struct ht_platform *plat = NULL;
    struct ht_error err;
    size_t ndevices;
    int c, status;

    ht_error_clear(&err);
    cli_common_init(&co, "demo", demo_usage, CLI_F_QUIET | CLI_F_VERBOSE, own);
    while ((c = cli_getopt(&co, argc, argv)) != -1) {
        switch (c) {
        case OPT_EXAMPLES: examples = optarg; break;
        case OPT_DB: db = optarg; break;
        case 'o': out = optarg; break;
        case OPT_MATMUL_N:
            if ((status = cli_parse_uint("demo", "--matmul-n", optarg, 1u << 20, &n)) != 0)
                return status;
            break;
        case OPT_CONV1D_N:
            if ((status = cli_parse_uint("demo", "--conv1d-n", optarg, 1u << 24, &conv1d_n)) != 0)
                return status;
            if (conv1d_n == 0)
                return cli_usage_error("demo", 2, "--conv1d-n takes a positive size");
            break;
        default:
            if ((status = cli_common_option(&co, c, optarg, argv)) != CLI_CONTINUE)
                return status;
        }
    }
    if ((status = cli_no_args("demo", argc, argv)) != 0)
        return status;
    if (ht_platform_discover(&plat, &err) != HT_OK)
        return cli_fail("demo", &err);
    ndevices = plat->count;
    ht_platform_free(plat);

    snprintf(matmul, sizeof matmul, "%s/matmul/spec.json", examples);
    snprintf(conv1d, sizeof conv1d, "%s/conv1d/spec.json", examples);
    snprintf(size, sizeof size, "N=%llu", (unsigned long long)n);
    snprintf(conv1d_size, sizeof conv1d_size, "N=%llu", (unsigned long long)conv1d_n);
    snprintf(out_matmul, sizeof out_matmul, "%s/matmul", out);
    snprintf(out_conv1d, sizeof out_conv1d, "%s/conv1d", out);
    {
        /* -q or -v goes to each step (-v's log hook is this process's already). */
        char *q = co.quiet ? "-q" : co.verbose ? "-v" : NULL;
        char *run_matmul[] = {"run", matmul, "--size", size, "--db", (char *)db,
                              "--out", out_matmul, q, NULL};
        char *run_conv1d[16] = {"run", conv1d};
        char *report[] = {"report", "--db", (char *)db, "--out", (char *)out, q, NULL};
        size_t k = 2;

        /* Without --conv1d-n the command is the one it always was: the spec's size. */
        if (conv1d_n) {
            run_conv1d[k++] = "--size";
            run_conv1d[k++] = conv1d_size;
        }
        run_conv1d[k++] = "--scheduler";
        run_conv1d[k++] = "all";
        run_conv1d[k++] = "--db";
        run_conv1d[k++] = (char *)db;
        run_conv1d[k++] = "--out";
        run_conv1d[k++] = out_conv1d;
        /* The sweep of Figures 6 and 7 compares exactly two devices. */
        if (ndevices == 2) {
            run_conv1d[k++] = "--sweep";
            run_conv1d[k++] = "0.1";
        }
        run_conv1d[k++] = q;
        run_conv1d[k] = NULL;
        if ((status = step(cmd_run, run_matmul)) != 0)
            return status;
        if ((status = step(cmd_run, run_conv1d)) != 0)
            return status;
        return step(cmd_report, report);
    }
}
