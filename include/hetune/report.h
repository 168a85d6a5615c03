/* hetune — the report: the paper's tables and figures from the results database alone.
 *
 * ht_report_write reads what hetune space --db, tune, split and run stored (store.h) and
 * writes into one folder:
 *
 *   report.md              the Markdown report: the devices, Tables 1 and 2, the tuning
 *                          results, Table 3 and Figures 5-7, each figure as a PNG and a
 *                          table of its numbers
 *   devices.csv            the devices that appear in the report
 *   spaces.csv             Tables 1 and 2: unpruned, platform and pruned space sizes per
 *                          case study, device and Eq. 3 variant
 *   tuning.csv             the best configuration and time per case study and device
 *   factors.csv            Table 3: optimal and adjusted split factors per case study,
 *                          split dimension, scheduler and device
 *   times.csv              Figure 5: each device alone, Algorithm 1's theoretical time, and
 *                          each scheduler's measured wall and kernel-only times (and what a
 *                          split was predicted to take, where it was)
 *   sweep.csv              Figures 6 and 7: the split-point sweeps
 *   fig5-<case>.dat/.gp    gnuplot data and script of Figure 5 for one case study, drawn
 *   fig5-<case>.png/.svg   into these
 *   sweep-<case>-dim<d>.*  the same for one sweep (Figures 6 and 7): the measured curve, the
 *                          theoretical curve max(f*t0, (1-f)*t1) and the computed factor
 *                          marked with a circle
 *   tune-<case>-<device>-times.*
 *                          one device's configuration times: every timed configuration by
 *                          rank, fastest first, on a log axis; the data (.dat) has one row
 *                          per timed configuration (rank, seconds, fraction); the cut and
 *                          failed ones are counted in its title and header
 *   tune-<case>-<device>-best.*
 *                          the search's best-so-far on one device against the evaluation
 *                          number and against the run's clock (wall seconds since the
 *                          search began, or simulated seconds for a replay), one line per
 *                          tuning run (hetune tune records each, schema version 10); the
 *                          data has one row per evaluation of a run (run, strategy,
 *                          evaluation, clock, its time, best so far, status), one block per
 *                          run. Replayed devices are marked in both titles.
 *   gnuplot.log            what gnuplot said, when it ran
 *
 * A case study is one problem of the database (a kernel at given sizes), named
 * "<spec name> <sizes>" ("matmul N=512"); in file names, <case> is that text with '=' left
 * out and other characters but letters, digits, '-' and '_' replaced ("matmul_N512"), and
 * past 112 characters cut to 103 and ended by '-' and 8 hex digits of a checksum of the
 * whole, so that every file name stays under 255 bytes and two long names stay apart.
 * Only the newest split of each (case study, split dimension, scheduler) and the newest
 * sweep of each (case study, split dimension) are reported. The gnuplot scripts are always written; the pictures are drawn when the gnuplot
 * program is found (on PATH by default). Without it, or when it fails, every table and CSV
 * file still comes out and report.md says why there are no pictures. Times in the CSV
 * files are seconds; an unknown value is an empty field.
 *
 * This module reads the database only (it uses no OpenCL) and writes only inside the
 * folder; it never deletes files there.
 *
 * A NULL pointer a function cannot do without is HT_EINVAL with err->text "FUNCTION:
 * ARGUMENT is NULL", never a crash; err may be NULL everywhere. The void functions do
 * nothing with a NULL. Where NULL is taken instead, the function's comment says what it
 * means.
 */
#ifndef HETUNE_REPORT_H
#define HETUNE_REPORT_H

#include <stddef.h>

#include "hetune/error.h"
#include "hetune/store.h"
#include "hetune/util.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ht_report_opts {
    const char *spec;        /* report only the case studies of this spec name (the
                                spec's "name"); NULL: every case study */
    const char *gnuplot;     /* the gnuplot program: a path, or a name searched on PATH;
                                NULL: "gnuplot" on PATH; "": draw no pictures */
};

/* Fills opts with the defaults: every case study, gnuplot from PATH. NULL: nothing. */
void ht_report_opts_init(struct ht_report_opts *opts);

/* What a report holds. path and figure_list are owned by the result: free them with
 * ht_report_result_destroy (the report inside struct ht_workflow_run_result is freed by
 * ht_workflow_run_result_destroy instead). ABI: path and figure_list were arrays inside the
 * struct (4096 and 16384 bytes) until branch abi40b, which made the struct 20 KB smaller; a
 * program built against the older header must be built again. Its source reads them the
 * same (res.path, res.figure_list as strings) but must now destroy the result. */
struct ht_report_result {
    size_t cases;            /* case studies reported */
    size_t devices;          /* devices that appear */
    size_t spaces;           /* space sizes (rows of Tables 1 and 2) */
    size_t splits;           /* splits reported (Table 3 and Figure 5) */
    size_t sweeps;           /* sweeps reported (Figures 6 and 7) */
    size_t tunings;          /* devices' configuration times drawn (one figure each) */
    size_t runs;             /* tuning runs drawn in the convergence figures */
    size_t figures;          /* figures whose gnuplot script was written (Figures 5-7 and
                                the tuning figures) */
    int pictures;            /* 1 when gnuplot drew every figure (or there was none) */
    char no_pictures[512];   /* why there are no pictures, "" when drawn */
    char *path;              /* the report.md written; NULL when none was */
    char *figure_list;       /* every figure's file name without its extension (.dat, .gp,
                                and .png, .svg when drawn), one per line, in the order of
                                report.md ("" when there is no figure); NULL when no report
                                was written */
};

/* Writes the report of the database into folder dir (created with its parents when
 * missing), as described above. store is borrowed; opts NULL means the defaults
 * (ht_report_opts_init). Fills *out (may be NULL), overwriting
 * it whole: destroy a result before it is filled again. On error out holds no string
 * (path and figure_list NULL), and ht_report_result_destroy is harmless. Errors, err
 * filled: HT_ENOTFOUND when the database holds nothing to report (no space size, no
 * evaluation and no split; of opts->spec when given); HT_EIO when a file cannot be
 * written; HT_EDB; HT_ENOMEM. A gnuplot that is missing or fails is not an error (see
 * out->pictures). */
int ht_report_write(struct ht_store *store, const char *dir, const struct ht_report_opts *opts,
                    struct ht_report_result *out, struct ht_error *err);

/* Frees r's path and figure_list and zeroes *r. r may be NULL or zeroed. */
void ht_report_result_destroy(struct ht_report_result *r);

/* ht_format_seconds and ht_format_bytes, declared here before, are util's: hetune/util.h,
 * included above so that programs written against this header still build. */

#ifdef __cplusplus
}
#endif
#endif
