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
    "     (and --sweep 0.1 when there are exactly two devices: Figures 6 and 7)\n"
    "  3. hetune report --out OUT\n"
    "\n"
    "options:\n"
    "      --examples DIR    the examples folder (default: ./examples when it exists,\n"
    "                        else the source tree's)\n"
    "      --db FILE         the results database (default ./demo.db)\n"
    "  -o, --out DIR         the report folder (default report)\n"
    "      --matmul-n N      matmul's size (default 1024, the paper's)\n"
    "  -h, --help            show this help\n"
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
    static const struct option longopts[] = {
        {"examples", required_argument, NULL, 'e'},
        {"db", required_argument, NULL, 'D'},
        {"out", required_argument, NULL, 'o'},
        {"matmul-n", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *examples = is_dir("examples") ? "examples" : HETUNE_EXAMPLES_DIR;
    const char *db = "demo.db", *out = "report";
    char matmul[1024], conv1d[1024], size[64], out_matmul[1024], out_conv1d[1024];
    uint64_t n = 1024;
    struct ht_platform *plat = NULL;
    struct ht_error err;
    size_t ndevices;
    int c, status;

    ht_error_clear(&err);
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'e': examples = optarg; break;
        case 'D': db = optarg; break;
        case 'o': out = optarg; break;
        case 'n':
            if ((status = cli_parse_uint("demo", "--matmul-n", optarg, 1u << 20, &n)) != 0)
                return status;
            break;
        case 'h': fputs(demo_usage, stdout); return 0;
        default: return cli_getopt_error("demo", c, argv);
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
    snprintf(out_matmul, sizeof out_matmul, "%s/matmul", out);
    snprintf(out_conv1d, sizeof out_conv1d, "%s/conv1d", out);
    {
        char *run_matmul[] = {"run", matmul, "--size", size, "--db", (char *)db,
                              "--out", out_matmul, NULL};
        char *run_conv1d[] = {"run", conv1d, "--scheduler", "all", "--db", (char *)db,
                              "--out", out_conv1d, "--sweep", "0.1", NULL};
        char *report[] = {"report", "--db", (char *)db, "--out", (char *)out, NULL};

        /* The sweep of Figures 6 and 7 compares exactly two devices. */
        if (ndevices != 2)
            run_conv1d[8] = NULL;
        if ((status = step(cmd_run, run_matmul)) != 0)
            return status;
        if ((status = step(cmd_run, run_conv1d)) != 0)
            return status;
        return step(cmd_report, report);
    }
}
