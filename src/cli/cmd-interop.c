/* hetune import-kt and export: Kernel Tuner's formats and a header of tuned values. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char import_usage[] =
    "usage: hetune import-kt [options] T1.json\n\n"
    "Converts a Kernel Tuner T1 input file (OpenCL) into a hetune spec; a field that a spec\n"
    "cannot express is refused, naming it. Search and Budget are left out with a note. A\n"
    "CUDA or HIP T1 file gives a spec for replaying its recorded space only (hetune tune\n"
    "--replay): the kernel is never built.\n\n"
    "options:\n"
    "  -o, --out SPEC        write the spec to SPEC (default: stdout)\n"
    "  -q, --quiet           leave out the notes on stderr (what was left out and why)\n"
    "  -v, --verbose         also say on stderr each expression translated from Python\n"
    "                        (restrictions, sizes) and what it became\n"
    "  -h, --help            show this help\n\n"
    "exit status: 0 success, 1 runtime failure, 2 bad input (a field hetune cannot express)\n";

static const char export_usage[] =
    "usage: hetune export (--format t4 | --header FILE) [options]\n\n"
    "Writes the results database as Kernel Tuner's T4 results JSON (every evaluation:\n"
    "configuration, times in ms, invalidity, correctness), or as a C header of each\n"
    "device's tuned parameter values (#define HETUNE_<KERNEL>_<DEVICE>_<PARAM>) and the\n"
    "slices of the newest split with fixed slices, for programs that build the kernel\n"
    "themselves.\n\n"
    "options:\n"
    "      --format t4       T4 JSON, to stdout or --out\n"
    "      --header FILE     write the C header to FILE\n"
    "      --db FILE         the results database (default ./hetune.db); it must exist,\n"
    "                        and is read even where it may not be written (as report)\n"
    "      --spec NAME       only the spec named NAME (its \"name\"; may be repeated)\n"
    "      --size NAME=VALUE only the problems at this size (may be repeated); the header\n"
    "                        has one problem per kernel, the newest, and names the others\n"
    "  -o, --out FILE        write the T4 JSON to FILE (default: stdout)\n"
    "  -q, --quiet           show no notes on stderr (the read-only fallback; what the\n"
    "                        header leaves out)\n"
    "  -v, --verbose         say on stderr what is read (the database, read-only; the\n"
    "                        specs and sizes asked for) and what was written where\n"
    "  -h, --help            show this help\n\n"
    "exit status: 0 success, 1 runtime failure (nothing to export), 2 bad input\n";

/* Writes text to path, or stdout when path is NULL. */
static int put(const char *cmd, const char *path, const char *text)
{
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f || fputs(text, f) < 0 || (path && fclose(f) != 0))
        return cli_usage_error(cmd, 1, "%s: %s", path ? path : "stdout", strerror(errno));
    return 0;
}

int cmd_import_kt(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'}, {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'}, {"help", no_argument, NULL, 'h'}, {0}};
    const char *out = NULL;
    char *spec = NULL, *notes = NULL, *dir = NULL;
    struct ht_error err;
    int c, status, quiet = 0, verbose = 0;

    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":hqvo:", longopts, NULL)) == 'o' || c == 'q' ||
           c == 'v') {
        if (c == 'o')
            out = optarg;
        else if (c == 'q')
            quiet = 1;
        else
            verbose = 1;
    }
    if (quiet && verbose)
        return cli_usage_error("import-kt", 2, "-q and -v do not go together");
    if (verbose) /* the library logs each translation (HT_LOG_DEBUG) */
        ht_set_log(cli_log_stderr, (void *)"import-kt");
    if (c == 'h')
        return fputs(import_usage, stdout) < 0;
    if (c != -1)
        return cli_getopt_error("import-kt", c, argv);
    if (optind + 1 != argc)
        return cli_usage_error("import-kt", 2, "expected one T1.json (see --help)");
    /* The spec's folder: a relative kernel path must stay right from there. */
    if (out && (dir = strdup(out)) && strrchr(dir, '/'))
        *strrchr(dir, '/') = '\0';
    ht_error_clear(&err);
    if (ht_kt_import_t1(argv[optind], dir && strchr(out, '/') ? dir : NULL, &spec, &notes,
                        &err) != 0)
        status = cli_fail("import-kt", &err);
    else if ((status = put("import-kt", out, spec)) == 0 && notes && !quiet)
        /* One note a line, each with the command's prefix as every other message. */
        for (const char *p = notes; *p;) {
            size_t n = strcspn(p, "\n");
            fprintf(stderr, "hetune import-kt: %.*s\n", (int)n, p);
            p += n + (p[n] == '\n');
        }
    free(spec);
    free(notes);
    free(dir);
    return status;
}

int cmd_export(int argc, char **argv)
{
    enum { OPT_FORMAT = CLI_OPT_OWN, OPT_HEADER, OPT_DB, OPT_SPEC, OPT_SIZE };
    static const struct option longopts[] = {
        {"format", required_argument, NULL, OPT_FORMAT},
        {"header", required_argument, NULL, OPT_HEADER},
        {"db", required_argument, NULL, OPT_DB}, {"spec", required_argument, NULL, OPT_SPEC},
        {"size", required_argument, NULL, OPT_SIZE},
        {"out", required_argument, NULL, 'o'}, {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'}, {"help", no_argument, NULL, 'h'}, {0}};
    const char *db = HT_STORE_DEFAULT_PATH, *format = NULL, *header = NULL, *out = NULL;
    const char **names = calloc((size_t)argc, sizeof *names);
    struct ht_size_override *sizes = calloc((size_t)argc, sizeof *sizes);
    struct ht_export_filter filter = {names, 0, sizes, 0};
    struct ht_store *store = NULL;
    struct ht_error err;
    struct stat st = {.st_size = 1};
    char *text = NULL;
    int c, status = 2, rc, quiet = 0, verbose = 0;

    opterr = 0;
    optind = 1;
    while (names && sizes && (c = getopt_long(argc, argv, ":hqvo:", longopts, NULL)) != -1) {
        switch (c) {
        case 'q': quiet = 1; break;
        case 'v': verbose = 1; break;
        case OPT_SIZE: {
            const char *name;
            size_t len;
            int64_t v;
            ht_error_clear(&err);
            if (ht_parse_assignment(optarg, &name, &len, &v, &err) != 0) {
                status = cli_usage_error("export", 2, "--size %s: %s", optarg, err.text);
                goto cleanup;
            }
            optarg[len] = '\0'; /* name points into optarg, at its start */
            sizes[filter.nsizes].name = name;
            sizes[filter.nsizes++].value = v;
            break;
        }
        case OPT_FORMAT: format = optarg; break;
        case OPT_HEADER: header = optarg; break;
        case OPT_DB: db = optarg; break;
        case OPT_SPEC: names[filter.nnames++] = optarg; break;
        case 'o': out = optarg; break;
        case 'h': status = fputs(export_usage, stdout) < 0; goto cleanup;
        default: status = cli_getopt_error("export", c, argv); goto cleanup;
        }
    }
    if (!names || !sizes)
        status = cli_usage_error("export", 1, "out of memory");
    if (!names || !sizes || cli_no_args("export", argc, argv) != 0)
        goto cleanup;
    if (quiet && verbose) {
        status = cli_usage_error("export", 2, "-q and -v do not go together");
        goto cleanup;
    }
    if (format && strcmp(format, "t4")) {
        status = cli_usage_error("export", 2, "--format takes t4, not '%s'", format);
        goto cleanup;
    }
    if (!format == !header) {
        status = cli_usage_error("export", 2, format ? "--format and --header do not go "
                                 "together" : "give --format t4 or --header FILE (see --help)");
        goto cleanup;
    }
    if (header && out) { /* -o is the T4 JSON's file; the header's is --header's */
        status = cli_usage_error("export", 2, "--out goes with --format t4; --header names "
                                 "the header's file");
        goto cleanup;
    }
    /* Opening would create a missing database: an export never writes the one it reads. */
    if (stat(db, &st) != 0 || (S_ISREG(st.st_mode) && st.st_size == 0)) {
        status = st.st_size ? cli_usage_error("export", 2, "%s: %s", db, strerror(errno))
                            : cli_usage_error("export", 1, "%s: nothing to export: an empty "
                                              "file", db);
        goto cleanup;
    }
    ht_error_clear(&err);
    cli_verbose("export", verbose, "reading %s read-only (an export never writes it)", db);
    for (size_t i = 0; i < filter.nnames; i++)
        cli_verbose("export", verbose, "only spec %s", names[i]);
    for (size_t i = 0; i < filter.nsizes; i++)
        cli_verbose("export", verbose, "only problems at %s=%lld", sizes[i].name,
                    (long long)sizes[i].value);
    rc = cli_store_open("export", db, 1, NULL, quiet, &store, &err);
    if (rc == 0)
        rc = format ? ht_export_t4(store, &filter, &text, &err)
                    : ht_export_header(store, &filter, &text, &err);
    if (rc == HT_ENOTFOUND)
        status = cli_usage_error("export", 1, "%s: nothing to export: %s", db, err.text);
    else
        status = rc ? cli_fail("export", &err) : put("export", format ? out : header, text);
    if (status == 0)
        cli_verbose("export", verbose, "wrote %s (%zu bytes) to %s", format ? "the T4 JSON"
                    : "the C header", strlen(text), (format ? out : header) ? (format ? out
                    : header) : "stdout");
    /* What the header leaves out is said on stderr too. */
    for (const char *p = text; status == 0 && header && !quiet && p && *p;
         p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, "/* left out: ", 13) || !strncmp(p, "/* no split with fixed", 22))
            fprintf(stderr, "hetune export: %.*s\n", (int)strcspn(p, "\n") - 6, p + 3);
cleanup:
    ht_store_close(store);
    free(text);
    free(names);
    free(sizes);
    return status;
}
