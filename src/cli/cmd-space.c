/* hetune space: the unpruned and pruned design space of a spec on each device (the
 * paper's Tables 1 and 2), from the native enumerator, MiniZinc, or both compared. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char space_usage[] =
    "usage: hetune space SPEC [options]\n"
    "\n"
    "Prints the design space of the spec on every device: its unpruned size (every\n"
    "value of every parameter, the paper's Table 1), the size left by the platform\n"
    "rules (Eq. 1: work-group size <= max_work_group_size; the per-dimension work-item\n"
    "limits; Eq. 2: global a multiple of local; local_mem <= local_mem_size; Eq. 3:\n"
    "work-groups >= compute units) and the size left by the application's constraints\n"
    "as well (Table 2), with the time the solver spent. An empty space is a normal\n"
    "answer: the rule that removed the last configurations is named. Sizes are exact\n"
    "below 2^128, past it approximate: \"~\" (--json: \"approximate\": true).\n"
    "\n"
    "options:\n"
    "  -d, --device D        a device: an index from 'hetune devices', a unique part of\n"
    "                        \"<platform> <name>\", or 'all' (default: all)\n"
    "      --solver S        native (default: depth-first enumeration), minizinc (the\n"
    "                        paper's MiniZinc model, solved by Gecode), or both: runs\n"
    "                        the two and fails when their sets differ\n"
    HT_SPACE_LIST_HELP
    "      --devices-from F  the devices of F, a 'hetune devices --json' document, instead\n"
    "                        of OpenCL's: a space for a device not here, without loading\n"
    "                        the drivers\n"
    "      --db FILE         also record the sizes in this results database (for\n"
    "                        'hetune report'; hetune tune and hetune run record them too)\n"
    "  -q, --quiet           accepted as every command accepts it: this one shows no\n"
    "                        progress and no notes (errors still go to stderr)\n"
    "  -v, --verbose         say on stderr the rules the space is pruned by and, per\n"
    "                        device, its sizes and the time the solver took\n"
    "\n"
    "exit status: 0 success, 1 runtime failure (no platform, solver failure or the\n"
    "solvers disagree, database error), 2 bad input (usage, spec, a parameter range empty on a device)\n";

/* Prints up to 10 of the n configurations v only label found. */
static void print_missing(const int64_t *v, size_t n, size_t nparams, const char *label)
{
    for (size_t k = 0; k < n && k < 10; k++) {
        fprintf(stderr, "  only %s: ", label);
        for (size_t i = 0; i < nparams; i++)
            fprintf(stderr, i ? " %" PRId64 : "%" PRId64, v[k * nparams + i]);
        fputc('\n', stderr);
    }
    if (n > 10)
        fprintf(stderr, "  ... and %zu more only %s\n", n - 10, label);
}

/* Solves one device into r. Returns 0, or an exit status after printing the problem. */
static int solve_device(const struct ht_spec *spec, const struct ht_device_info *dev,
                        enum ht_eq3 eq3, const char *solver, int list,
                        struct ht_workflow_space *r)
{
    struct ht_error err;
    char buf[4096];

    ht_error_clear(&err);
    if (ht_workflow_space_solve(spec, dev, eq3, solver, list, r, &err) != HT_OK) {
        ht_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "hetune space: device %zu (%s): %s\n", dev->index, dev->name, buf);
        return ht_present_exit_status(err.code);
    }
    if (!r->disagree)
        return 0;
    fprintf(stderr,
            "hetune space: THE SOLVERS DISAGREE on device %zu (%s): native finds %" PRIu64
            " platform-valid and %zu valid configurations, minizinc %" PRIu64 " and %zu\n",
            dev->index, dev->name, r->counts.platform, r->nconfigs, r->mzn_platform,
            r->mzn_nconfigs);
    print_missing(r->only_native, r->nonly_native, r->nparams, "native");
    print_missing(r->only_minizinc, r->nonly_minizinc, r->nparams, "minizinc");
    return 1;
}

/* Records the sizes of every solved device in the database at path (hetune space --db).
 * Returns 0, or an exit status after printing the problem. */
static int record_spaces(const char *path, int quiet, const struct ht_spec *spec,
                         enum ht_eq3 eq3, const struct ht_workflow_space *results, size_t n)
{
    struct ht_store *store = NULL;
    struct ht_store_opts so;
    struct ht_error err;
    int64_t problem_id = 0;
    int rc;

    ht_error_clear(&err);
    cli_store_opts("space", 0, NULL, quiet, &so);
    rc = ht_workflow_open(path, &so, NULL, spec, &store, &problem_id, &err);
    for (size_t k = 0; rc == HT_OK && k < n; k++)
        rc = ht_workflow_store_space(store, problem_id, results[k].dev, eq3,
                                     &results[k].counts, NULL, &err);
    ht_store_close(store);
    return rc == HT_OK ? 0 : cli_fail("space", &err);
}

int cmd_space(int argc, char **argv)
{
    enum { OPT_SOLVER = CLI_OPT_OWN, OPT_FORMAT, OPT_DEVICES };
    static const struct option own[] = {
        {"solver", required_argument, NULL, OPT_SOLVER}, {"list", no_argument, NULL, 'l'},
        {"list-format", required_argument, NULL, OPT_FORMAT},
        {"devices-from", required_argument, NULL, OPT_DEVICES}, {NULL, 0, NULL, 0},
    };
    struct cli_common co;
    size_t first = 0, last = 0, ndone = 0;
    const char *solver = "native", *devfile = NULL;
    struct ht_spec *spec = NULL;
    struct ht_platform *plat = NULL;
    struct ht_workflow_space *results = NULL;
    struct ht_present_space shown;
    struct ht_error err;
    enum ht_eq3 eq3;
    enum ht_space_list_format format = HT_SPACE_LIST_TEXT;
    int list = 0, c, status = 2;

    ht_error_clear(&err);
    cli_common_init(&co, "space", space_usage,
                    CLI_F_DEVICE | CLI_F_EQ3 | CLI_F_SIZE | CLI_F_DB | CLI_F_JSON | CLI_F_VERBOSE |
                        CLI_F_QUIET,
                    own);
    co.own_help = CLI_F_DB | CLI_F_QUIET | CLI_F_VERBOSE;
    co.db = NULL; /* the sizes are recorded only when --db is given */
    while ((c = cli_getopt(&co, argc, argv)) != -1) {
        switch (c) {
        case 'l': list = 1; break;
        case OPT_DEVICES: devfile = optarg; break;
        case OPT_FORMAT:
            if (ht_space_list_format_parse(optarg, &format) != 0) {
                status = cli_usage_error("space", 2, "--list-format takes text or binary, not '%s'",
                                         optarg);
                goto cleanup;
            }
            list = 1;
            break;
        case OPT_SOLVER:
            if (strcmp(optarg, "both") && !ht_space_backend_find(optarg)) {
                status = cli_usage_error("space", 2,
                                         "--solver takes native, minizinc or both, not '%s'",
                                         optarg);
                goto cleanup;
            }
            solver = optarg;
            break;
        default:
            if ((status = cli_common_option(&co, c, optarg, argv)) != CLI_CONTINUE)
                goto cleanup;
        }
    }
    eq3 = co.exec.eq3;
    if ((status = cli_common_spec(&co, argc, argv, &spec)) != 0)
        goto cleanup;
    if (devfile && ht_workflow_devices_load(devfile, &plat, &err) != HT_OK) {
        status = cli_fail("space", &err);
        goto cleanup;
    }
    status = cli_devices_range("space", co.device ? co.device : "all", &plat, &first, &last);
    if (status != 0)
        goto cleanup;
    results = calloc(last - first + 1, sizeof *results);
    if (!results) {
        status = cli_usage_error("space", 1, "out of memory");
        goto cleanup;
    }
    status = 0;
    cli_verbose("space", co.verbose, "%s: %zu parameter%s, %zu constraint%s and the platform "
                "rules (Eq. 1-3 with Eq. 3 as the %s, local memory), solver %s", spec->name,
                spec->space.nparams, spec->space.nparams == 1 ? "" : "s",
                spec->space.nconstraints, spec->space.nconstraints == 1 ? "" : "s",
                eq3 == HT_EQ3_SUM ? "sum" : eq3 == HT_EQ3_OFF ? "off (dropped)" : "product",
                solver);
    for (size_t i = first; i < last; i++) {
        const struct ht_space_counts *sc = &results[ndone].counts;
        int st = solve_device(spec, &plat->devices[i], eq3, solver, list, &results[ndone]);
        ndone++;
        if (st != 0) {
            status = st;
            goto cleanup;
        }
        cli_verbose("space", co.verbose, "device %zu (%s): %s unpruned, %s after the platform "
                    "rules, %s after the constraints, counted in %.3f s", plat->devices[i].index,
                    plat->devices[i].name, sc->unpruned_text, sc->platform_text,
                    sc->pruned_text, sc->seconds);
    }
    if (co.db)
        cli_verbose("space", co.verbose, "recording the sizes into %s", co.db);
    if (co.db && (status = record_spaces(co.db, co.quiet, spec, eq3, results, ndone)) != 0)
        goto cleanup;

    shown.spec = spec;
    shown.solver = solver;
    shown.eq3 = eq3;
    shown.spaces = results;
    shown.n = ndone;
    shown.list = list;
    shown.format = format;
    if (co.json && format == HT_SPACE_LIST_TEXT) {
        char *text = NULL;
        int rc = ht_present_space_json(&shown, &text, &err);
        status = cli_json_text("space", rc, text);
        free(text);
    } else if (ht_present_space_print(stdout, &shown, &err) != HT_OK) {
        status = cli_fail("space", &err);
    }

cleanup:
    for (size_t k = 0; results && k < ndone; k++)
        ht_workflow_space_destroy(&results[k]);
    free(results);
    ht_platform_free(plat);
    ht_spec_free(spec);
    cli_common_free(&co);
    return status;
}
