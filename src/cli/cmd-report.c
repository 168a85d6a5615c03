/* hetune report: the paper's tables and figures from the results database alone. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char report_usage[] =
    "usage: hetune report [options]\n"
    "\n"
    "Writes the paper's tables and figures from the results database alone (no OpenCL)\n"
    "into a folder: report.md, a Markdown report embedding the figures; Tables 1 and 2\n"
    "(the space sizes per device: unpruned, after the platform rules, after the\n"
    "constraints too) from what hetune space --db, tune and run recorded; the best\n"
    "configuration of each device; Table 3 (the optimal and adjusted split factors per\n"
    "case study and split dimension) and Figure 5 (each device alone, the theoretical\n"
    "time of Algorithm 1, the measured wall and kernel-only times of each scheduler)\n"
    "from the newest split of each case study, dimension and scheduler; Figures 6 and 7\n"
    "(time against split factor: measured, theoretical max(f*t0, (1-f)*t1), the computed\n"
    "factor circled) from the newest sweep of each case study and dimension; and the\n"
    "tuning itself, per case study and device: the distribution of its configuration\n"
    "times (tune-CASE-DEVICE-times: every configuration with a time by rank, fastest\n"
    "first, on a log axis where they span a decade; those cut early at their partial\n"
    "time; the failed ones counted in the title) and the search's best-so-far against\n"
    "the evaluation number and against the run's clock, one line per tuning run and\n"
    "strategy (tune-CASE-DEVICE-best: wall time since the search began, or simulated\n"
    "time for a replay, whose results have a device of their own and are marked).\n"
    "Every table is also a CSV file (devices, spaces, tuning, factors, times, sweep\n"
    ".csv); every figure is a gnuplot script (.gp) and its data (.dat; the tuning\n"
    "ones in seconds), drawn as PNG and SVG when gnuplot is on PATH, and listed by\n"
    "name in the output. Without gnuplot the tables, CSV and data files still come out\n"
    "and the output and report.md say why there are no pictures. A case study is a\n"
    "kernel at given problem sizes. Files already in the folder are overwritten, never\n"
    "deleted.\n"
    "\n"
    "options:\n"
    "      --db FILE         the results database (default ./hetune.db); it must exist,\n"
    "                        and is read even where it may not be written (another\n"
    "                        user's file, a read-only folder: read as unchanging, said\n"
    "                        in a note)\n"
    "  -o, --out DIR         the folder to write (default report), created when missing\n"
    "      --spec NAME       only the case studies of the spec named NAME (its \"name\")\n"
    "      --gnuplot PROG    the gnuplot program (default: gnuplot, searched on PATH)\n"
    "      --no-pictures     write the scripts but do not run gnuplot\n"
    "  -q, --quiet           accepted as every command accepts it: this one shows no\n"
    "                        progress and no notes (errors still go to stderr)\n"
    "  -v, --verbose         say on stderr what is read (the database, read-only; the\n"
    "                        case studies asked for), what draws the figures, and what\n"
    "                        was found and written\n"
    "\n"
    "exit status: 0 success (with or without pictures), 1 runtime failure (not a hetune\n"
    "database, nothing to report in it, a file that cannot be written), 2 bad input\n"
    "(usage, no such database file)\n";

int cmd_report(int argc, char **argv)
{
    enum { OPT_SPEC = CLI_OPT_OWN, OPT_GNUPLOT, OPT_NO_PICTURES };
    static const struct option own[] = {
        {"out", required_argument, NULL, 'o'}, {"spec", required_argument, NULL, OPT_SPEC},
        {"gnuplot", required_argument, NULL, OPT_GNUPLOT},
        {"no-pictures", no_argument, NULL, OPT_NO_PICTURES}, {NULL, 0, NULL, 0},
    };
    struct cli_common co;
    const char *db = HT_STORE_DEFAULT_PATH, *out = "report";
    struct ht_report_opts opts;
    struct ht_report_result res = {0};
    struct ht_store *store = NULL;
    struct ht_error err;
    struct stat st;
    int json = 0, c, status = 2, rc;

    ht_report_opts_init(&opts);
    ht_error_clear(&err);
    cli_common_init(&co, "report", report_usage,
                    CLI_F_DB | CLI_F_JSON | CLI_F_QUIET | CLI_F_VERBOSE, own);
    co.own_help = CLI_F_DB | CLI_F_QUIET | CLI_F_VERBOSE;
    while ((c = cli_getopt(&co, argc, argv)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case OPT_SPEC: opts.spec = optarg; break;
        case OPT_GNUPLOT: opts.gnuplot = optarg; break;
        case OPT_NO_PICTURES: opts.gnuplot = ""; break;
        default:
            if ((status = cli_common_option(&co, c, optarg, argv)) != CLI_CONTINUE)
                return status;
        }
    }
    db = co.db;
    json = co.json;
    if (cli_no_args("report", argc, argv) != 0)
        return 2;
    if (!out[0])
        return cli_usage_error("report", 2, "--out needs a folder");
    /* Opening would create a missing file (and its schema): a report never writes the
     * database it reads. */
    if (stat(db, &st) != 0)
        return cli_usage_error("report", 2, "%s: cannot read the results database: %s", db,
                               strerror(errno));
    if (S_ISREG(st.st_mode) && st.st_size == 0)
        return cli_usage_error("report", 1, "%s: empty file, not a hetune results database",
                               db);

    /* Read-only: a database this user may not write (another user's, a read-only
     * mount) is read all the same. */
    cli_verbose("report", co.verbose, "reading %s read-only (a report never writes it)", db);
    cli_verbose("report", co.verbose, "case studies: %s%s", opts.spec ? "those of spec " : "all",
                opts.spec ? opts.spec : "");
    cli_verbose("report", co.verbose, "figures: %s%s", !opts.gnuplot ? "drawn by gnuplot on PATH"
                : !opts.gnuplot[0] ? "scripts only (--no-pictures)" : "drawn by ",
                opts.gnuplot && opts.gnuplot[0] ? opts.gnuplot : "");
    rc = cli_store_open("report", db, 1, NULL, co.quiet, &store, &err);
    if (rc == HT_OK)
        rc = ht_report_write(store, out, &opts, &res, &err);
    if (rc == HT_OK) {
        cli_verbose("report", co.verbose, "found %zu case studies, %zu devices, %zu space "
                    "sizes, %zu splits, %zu sweeps", res.cases, res.devices, res.spaces,
                    res.splits, res.sweeps);
        cli_verbose("report", co.verbose, "wrote %s, the tables as CSV and %zu figure "
                    "script%s into %s%s%s", res.path, res.figures, res.figures == 1 ? "" : "s",
                    out, res.pictures ? "" : "; no pictures: ",
                    res.pictures ? "" : res.no_pictures);
    }
    if (rc != HT_OK) {
        status = cli_fail("report", &err);
        goto cleanup;
    }
    status = 0;
    if (json) {
        char *text = NULL;
        rc = ht_present_report_json(db, out, &res, &text, &err);
        status = cli_json_text("report", rc, text);
        free(text);
    } else {
        printf("report        %s\n", res.path);
        printf("contents      %zu case stud%s, %zu device%s, %zu space size%s, %zu split%s, "
               "%zu sweep%s\n",
               res.cases, res.cases == 1 ? "y" : "ies", res.devices,
               res.devices == 1 ? "" : "s", res.spaces, res.spaces == 1 ? "" : "s",
               res.splits, res.splits == 1 ? "" : "s", res.sweeps, res.sweeps == 1 ? "" : "s");
        printf("tuning        %zu %s configuration times, %zu tuning run%s\n", res.tunings,
               res.tunings == 1 ? "device's" : "devices'", res.runs, res.runs == 1 ? "" : "s");
        if (res.figures == 0)
            printf("figures       none (no split, sweep or evaluation in the database)\n");
        else if (res.pictures)
            printf("figures       %zu, drawn as PNG and SVG\n", res.figures);
        else
            printf("figures       %zu gnuplot scripts and data, no pictures: %s\n",
                   res.figures, res.no_pictures);
        /* One name a line: NAME.dat and NAME.gp, and NAME.png and NAME.svg when drawn. */
        for (const char *p = res.figure_list; *p;) {
            size_t len = strcspn(p, "\n");
            printf("  %.*s\n", (int)len, p);
            p += len + (p[len] == '\n');
        }
    }
cleanup:
    ht_report_result_destroy(&res);
    ht_store_close(store);
    return status;
}
