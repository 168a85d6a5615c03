/* The core's results as JSON documents (present.h): what `hetune split --json` and the
 * other commands print, so that a program gets the same document as the command. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hetune/present.h"
#include "present-internal.h"
#include "util/util.h"

#define GBPS(bps) ((bps) / 1e9)

/* A JSON number, or null for what JSON cannot hold (nan, inf) and for "unknown" (< 0). */
static json_t *seconds(double v)
{
    return v >= 0 && isfinite(v) ? ht__json_real(v) : json_null();
}

/* A verification flag: null when not verified (< 0). */
static json_t *verified(int v)
{
    return v < 0 ? json_null() : json_boolean(v);
}

/* Dumps root (its reference taken) into *text (owned, free) with reals of digits
 * significant digits (0: 17). HT_ENOMEM when jansson cannot. */
static int dump(json_t *root, int digits, char **text, struct ht_error *err)
{
    return ht__json_dump(root, digits, text, err);
}

/* What other processes did while a run measured (exec.h, struct ht_load). */
json_t *ht__present_load_json(const struct ht_load *l)
{
    char line[1024];

    ht_present_load_sentence(l, line, sizeof line);
    return json_pack("{s:b, s:f, s:I, s:f, s:b, s:o, s:o}", "under_load", ht_load_under(l),
                     "other_cores", round(ht_load_other_cores(l) * 100) / 100,
                     "cores", (json_int_t)l->cores,
                     "window_seconds", round(l->window_s * 1000) / 1000,
                     "locked", !l->unlocked,
                     "unlocked_why", l->unlocked ? json_string(l->unlocked_why) : json_null(),
                     "notice", line[0] ? json_string(line) : json_null());
}

static json_t *config_json(const struct ht_spec *spec, const int64_t *config)
{
    json_t *o = json_object();

    for (size_t p = 0; p < spec->space.nparams; p++)
        json_object_set_new(o, spec->space.params[p].name, json_integer(config[p]));
    return o;
}

/* Device i of r: what the database and its run alone know, and its part of the result. */
static json_t *split_device(const struct ht_spec *spec, const struct ht_workflow_split_result *r,
                            size_t i)
{
    const struct ht_workflow_device *sd = &r->devs[i];
    const struct ht_coexec_device_result *dr =
        r->ran_alone ? (i == r->fastest ? &r->res.devices[0] : NULL) : &r->res.devices[i];
    json_t *d = json_pack("{s:I, s:o, s:o, s:o, s:b, s:b, s:o, s:{s:o, s:o, s:o, s:o}, s:o}",
                          "index", (json_int_t)sd->dev->index,
                          "name", ht__json_string(sd->dev->name),
                          "platform", ht__json_string(sd->dev->platform),
                          "config", config_json(spec, sd->config),
                          "tuned_now", sd->tuned_now, "predicted", sd->predicted,
                          "tuned_seconds", seconds(sd->tuned_s),
                          "alone", "wall_seconds", seconds(sd->alone.wall_s),
                          "kernel_seconds", seconds(sd->alone.kernel_s),
                          "write_seconds", seconds(sd->alone.write_s),
                          "read_seconds", seconds(sd->alone.read_s),
                          "wg", dr ? json_integer((json_int_t)dr->wg) : json_null());

    if (r->has_plan) {
        const struct ht_split_slice *s = &r->plan.slices[i];
        json_object_update_new(d, json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:I}",
                                        "optimal_factor", ht__json_real(s->optimal_factor),
                                        "plan_adjusted_factor",
                                        ht__json_real(s->adjusted_factor),
                                        "offset", (json_int_t)s->offset,
                                        "size", (json_int_t)s->size,
                                        "groups", (json_int_t)s->groups,
                                        "own_offset", (json_int_t)s->own_offset,
                                        "own_size", (json_int_t)s->own_size));
    }
    json_object_set_new(d, "adjusted_factor",
                        ht__json_real(!dr ? 0 : r->ran_alone ? 1.0 : r->res.devices[i].share));
    json_object_set_new(d, "chunks", json_integer(dr ? dr->chunks : 0));
    json_object_set_new(d, "items", json_integer(dr ? (json_int_t)dr->items : 0));
    json_object_set_new(d, "owned", json_integer(dr ? (json_int_t)dr->owned : 0));
    json_object_set_new(d, "kernel_seconds", dr ? seconds(dr->kernel_s) : json_null());
    json_object_set_new(d, "write_seconds", dr ? seconds(dr->write_s) : json_null());
    json_object_set_new(d, "read_seconds", dr ? seconds(dr->read_s) : json_null());
    json_object_set_new(d, "compute_units",
                        dr ? json_integer((json_int_t)dr->compute_units) : json_null());
    return d;
}

/* The devices left out because nothing on them is usable, each with why. */
static json_t *skipped_json(const struct ht_workflow_skipped *s, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_pack("{s:I, s:o, s:o}", "index",
                                           (json_int_t)s[i].dev->index,
                                           "name", ht__json_string(s[i].dev->name),
                                           "reason", ht__json_string(s[i].reason)));
    return a;
}

/* The rounds of a refinement. */
static json_t *refine_json(const struct ht_workflow_refine *f)
{
    json_t *rounds = json_array();

    for (size_t k = 0; k < f->nrounds; k++) {
        json_t *sh = json_array(), *tm = json_array(), *oh = json_array();
        for (size_t i = 0; i < f->n; i++) {
            json_array_append_new(sh, ht__json_real(f->factors[k * f->n + i]));
            json_array_append_new(tm, seconds(f->times[k * f->n + i]));
            json_array_append_new(oh, seconds(f->overheads[k * f->n + i]));
        }
        json_array_append_new(rounds, json_pack(
            "{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "round", (json_int_t)k,
            "shares", sh, "model_times", tm, "model_overheads", oh,
            "model_seconds", seconds(f->model_s[k]), "wall_seconds", seconds(f->wall_s[k]),
            "kernel_seconds", seconds(f->kernel_s[k]), "verified", verified(f->verified[k])));
    }
    return json_pack("{s:o, s:I, s:b, s:s}", "rounds", rounds, "best", (json_int_t)f->best,
                     "converged", f->converged,
                     "by", f->target == HT_REFINE_KERNEL ? "kernel" : "wall");
}

static json_t *sweep_json(const struct ht_workflow_split_result *r)
{
    json_t *sw = json_array();

    for (size_t k = 0; k < r->nsweep; k++) {
        const struct ht_stored_sweep_point *p = &r->sweep[k];
        json_array_append_new(sw, json_pack(
            "{s:o, s:o, s:o, s:o, s:o}", "factor", ht__json_real(p->factor),
            "theoretical_seconds", seconds(p->theoretical_seconds),
            "wall_seconds", seconds(p->seconds), "kernel_seconds", seconds(p->kernel_seconds),
            "verified", verified(p->verified)));
    }
    return sw;
}

int ht_present_split_json(const struct ht_spec *spec, const struct ht_workflow_split_opts *opts,
                          const struct ht_workflow_split_result *r, char **text,
                          struct ht_error *err)
{
    if (!spec || !opts || !r || !text)
        return ht_error_set(err, HT_EINVAL, "ht_present_split_json: %s is NULL",
                            !spec ? "spec" : !opts ? "opts" : !r ? "r" : "text");

    const struct ht_coexec_result *res = &r->res;
    const struct ht_workflow_device *fast = &r->devs[r->fastest];
    const struct ht_coexec_estimate *est = &r->est;
    int alone = r->ran_alone;
    json_t *root, *devs = json_array(), *runs = json_array();

    for (size_t i = 0; i < r->n; i++)
        json_array_append_new(devs, split_device(spec, r, i));
    for (unsigned k = 0; k < res->nruns; k++)
        json_array_append_new(runs, ht__json_real(res->run_s[k]));
    /* spec_path: null for a spec from memory. */
    root = json_pack("{s:o, s:o, s:o, s:I, s:I, s:s, s:b, s:s, s:o, s:s, s:o}",
                     "spec", ht__json_string(spec->name),
                     "spec_path", ht__json_string(spec->path),
                     "db", ht__json_string(opts->db ? opts->db : HT_STORE_DEFAULT_PATH),
                     "dim", (json_int_t)res->dim, "global", (json_int_t)res->global,
                     "scheduler", res->scheduler, "ran_alone", alone,
                     "plan", alone ? "alone" : r->bus_plan ? "bus" : "paper",
                     "margin", seconds(opts->coexec.margin),
                     "decision", !alone ? "split"
                                 : r->left_alone ? "alone: others skipped"
                                 : r->measured_alone ? "alone: measured" : "alone: predicted",
                     "devices", devs);
    json_object_set_new(root, "skipped", skipped_json(r->skipped, r->nskipped));
    if (r->has_plan)
        json_object_update_new(root, json_pack(
            "{s:o, s:I}", "residue_device",
            r->plan.residue_device == SIZE_MAX ? json_null()
                                               : json_integer((json_int_t)r->plan.residue_device),
            "overlap", (json_int_t)r->plan.overlap));
    json_object_update_new(root, json_pack(
        "{s:o, s:o, s:o, s:s, s:o, s:{s:o, s:o, s:o, s:o}, s:o, s:{s:I, s:o, s:o}, s:o}",
        "theoretical_seconds", alone ? json_null() : seconds(res->theoretical_s),
        "adjusted_seconds", alone ? json_null() : seconds(res->adjusted_s),
        "model_seconds", alone ? json_null() : seconds(res->model_s),
        "residue_rule", ht_split_residue_name(opts->coexec.sched.residue),
        "refine", r->has_refine ? refine_json(&r->refine) : json_null(),
        "measured", "wall_seconds", seconds(res->wall_s), "min_seconds",
        seconds(res->wall_min_s), "kernel_seconds", seconds(res->kernel_s), "runs", runs,
        "overhead", !alone && res->theoretical_s > 0
                        ? ht__json_real(res->wall_s / res->theoretical_s - 1.0) : json_null(),
        "fastest_alone", "device", (json_int_t)fast->dev->index,
        "wall_seconds", seconds(fast->alone.wall_s),
        "kernel_seconds", seconds(fast->alone.kernel_s),
        "speedup", res->wall_s > 0 ? ht__json_real(fast->alone.wall_s / res->wall_s)
                                   : json_null()));
    json_object_set_new(root, "estimate", !r->has_est ? json_null() : json_pack(
        "{s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:b, s:o}", "split_seconds",
        seconds(est->split_s), "alone_seconds", seconds(est->alone_s), "worth_it",
        est->worth_it, "bound_seconds", seconds(est->bound_s), "kernel_bound_seconds",
        seconds(est->kernel_bound_s), "paper_seconds",
        est->paper_s >= 0 ? seconds(est->paper_s) : json_null(),
        "host_bytes", ht__json_real(est->host_bytes),
        "host_GBps", est->host_Bps > 0 ? ht__json_real(GBPS(est->host_Bps)) : json_null(),
        "host_seconds", est->host_Bps > 0 ? seconds(est->host_s) : json_null(), "host_floor",
        est->host_floor, "host_split_seconds",
        est->host_floor ? seconds(est->host_split_s) : json_null(), "check", est->check,
        "keep_seconds", seconds(est->keep_s)));
    json_object_set_new(root, "measured_split_seconds",
                        r->measured_split_s > 0 ? seconds(r->measured_split_s) : json_null());
    /* This problem's splits on these devices against their predictions (errors: measured
     * / predicted - 1). */
    json_object_set_new(root, "prediction_history",
                        r->history.count
                            ? json_pack("{s:I, s:o, s:o, s:o}", "splits",
                                        (json_int_t)r->history.count, "min_error",
                                        ht__json_real(r->history.min), "max_error",
                                        ht__json_real(r->history.max), "newest_error",
                                        ht__json_real(r->history.newest))
                            : json_null());
    /* The CPU compute units (0: all) and, with --cpu-units auto, each count tried. */
    json_object_set_new(root, "cpu_units", json_integer((json_int_t)r->cpu_units));
    if (r->ndop) {
        json_t *dop = json_array();
        for (size_t k = 0; k < r->ndop; k++)
            json_array_append_new(dop, json_pack(
                "{s:I, s:o, s:b, s:I}", "cpu_units", (json_int_t)r->dop[k].units,
                "wall_seconds", seconds(r->dop[k].wall_s), "ran_alone", r->dop[k].ran_alone,
                "split_id", (json_int_t)r->dop[k].split_id));
        json_object_set_new(root, "dop", dop);
    }
    json_object_update_new(root, json_pack(
        "{s:{s:o, s:o, s:o, s:o, s:I, s:o}, s:o, s:o}",
        "verification", "verified", verified(res->verified),
        "reference", res->reference[0] ? ht__json_string(res->reference) : json_null(),
        "max_abs_err", res->verified < 0 ? json_null() : seconds(res->max_abs_err),
        "max_rel_err", res->verified < 0 ? json_null() : seconds(res->max_rel_err),
        "mismatches", (json_int_t)res->mismatches,
        "first_mismatch", res->mismatch[0] ? ht__json_string(res->mismatch) : json_null(),
        "split_id", r->split_id > 0 ? json_integer(r->split_id) : json_null(),
        "sweep", r->nsweep ? sweep_json(r) : json_null()));
    if (r->nsweep)
        json_object_set_new(root, "eq4_factor", ht__json_real(r->eq4_factor));
    json_object_set_new(root, "load", ht__present_load_json(&r->load));
    return dump(root, 0, text, err);
}

/* A space size from its text (struct ht_space_counts): an integer where it fits in 63
 * bits (JSON numbers of jansson), else its rounded value, and then *approx is set. */
static json_t *count(const char *text, int *approx)
{
    char *end;
    unsigned long long v;
    double d;

    errno = 0;
    v = strtoull(text, &end, 10);
    if (text[0] >= '0' && text[0] <= '9' && !*end && errno == 0 && v <= INT64_MAX)
        return json_integer((json_int_t)v);
    *approx = 1;
    d = strtod(text + (text[0] == '~'), NULL);
    return isfinite(d) ? ht__json_real(d) : json_null();
}

/* A time or factor as the text output had it (%.9g): null when unknown (< 0), an integer
 * when it is one (a factor of 0 or 1). */
static json_t *num(double v)
{
    if (v >= 0 && v < 1e9 && v == floor(v))
        return json_integer((json_int_t)v);
    return seconds(v);
}

/* Each device's optimal factor of co-execution c (Table 3; unknown without a plan), or,
 * when taken, the share it took. */
static json_t *factors(const struct ht_workflow_coexec *c, size_t n, int taken)
{
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, num(taken ? c->res->devices[i].share
                                     : c->plan ? c->plan->slices[i].optimal_factor : -1));
    return a;
}

int ht_present_run_json(const struct ht_spec *spec, const char *db,
                        const struct ht_workflow_run_result *r, double elapsed, char **text,
                        struct ht_error *err)
{
    if (!spec || !r || !text)
        return ht_error_set(err, HT_EINVAL, "ht_present_run_json: %s is NULL",
                            !spec ? "spec" : !r ? "r" : "text");

    const struct ht_report_result *rep = &r->report;
    struct ht_workflow_coexec *rows = calloc(2 * r->nsplits + 1, sizeof *rows);
    size_t nrows = rows ? ht_workflow_run_coexecs(r, rows) : 0;
    json_t *devs = json_array(), *splits = json_array();

    if (!rows) {
        json_decref(devs);
        json_decref(splits);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < r->n; i++) {
        const struct ht_workflow_device *d = &r->devs[i];
        const struct ht_workflow_run_step *st = &r->steps[i];
        int approx = 0;
        json_t *unpruned = count(st->counts.unpruned_text, &approx);
        json_t *platform = count(st->counts.platform_text, &approx);
        json_t *pruned = count(st->counts.pruned_text, &approx);
        json_array_append_new(devs, json_pack(
            "{s:I, s:o, s:I, s:{s:o, s:o, s:o, s:b}, s:{s:I, s:I, s:o, s:o, s:b}, s:o}",
            "index", (json_int_t)d->dev->index, "name", ht__json_string(d->dev->name),
            "device_id", (json_int_t)d->device_id,
            "space", "unpruned", unpruned, "platform", platform, "pruned", pruned,
            "approximate", approx,
            "tune", "evaluated", (json_int_t)st->tune.evaluated, "from_db",
            (json_int_t)st->tune.from_db, "best", ht__json_string(d->config_text), "best_seconds",
            num(d->tuned_s), "predicted", d->predicted,
            "alone_wall_seconds", num(r->n > 1 ? d->alone.wall_s : -1)));
    }
    for (size_t k = 0; k < nrows; k++) {
        const struct ht_workflow_coexec *s = &rows[k];
        json_array_append_new(splits, json_pack(
            "{s:I, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I}",
            "dim", (json_int_t)s->dim, "scheduler", s->scheduler,
            "split_id", (json_int_t)s->split_id, "optimal", factors(s, r->n, 0),
            "adjusted", factors(s, r->n, 1),
            "theoretical_seconds", num(s->res->theoretical_s),
            "wall_seconds", num(s->res->wall_s),
            "kernel_seconds", num(s->res->kernel_s),
            "predicted_seconds", num(s->predicted_s),
            "verified", verified(s->res->verified),
            "sweep_points", (json_int_t)s->nsweep));
    }
    free(rows);
    return dump(json_pack(
        "{s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:{s:o, s:I, s:I, s:b, s:o}, s:o, s:o}",
        "spec", ht__json_string(spec->name), "spec_path", ht__json_string(spec->path),
        "db", ht__json_string(db ? db : HT_STORE_DEFAULT_PATH),
        "problem_id", (json_int_t)r->problem_id, "devices", devs,
        "skipped", skipped_json(r->skipped, r->nskipped),
        "fastest", r->n > 1 ? json_integer((json_int_t)r->fastest) : json_null(),
        "splits", splits,
        "report", "path", ht__json_string(rep->path ? rep->path : ""), "cases",
        (json_int_t)rep->cases, "figures", (json_int_t)rep->figures, "pictures",
        rep->pictures, "no_pictures", rep->pictures ? json_null() : ht__json_string(rep->no_pictures),
        "seconds", ht__json_real(round(elapsed * 1000) / 1000), "load",
        ht__present_load_json(&r->load)),
        9, text, err);
}

/* --- hetune eval --- */

/* "ok" for success, else the error name without its prefix, lowercased ("constraint"). */
static void status_name(int rc, char *buf, size_t size)
{
    const char *name = rc == HT_OK ? "ok" : ht_err_name(rc) + 4;
    size_t i;

    for (i = 0; i + 1 < size && name[i]; i++)
        buf[i] = (char)tolower((unsigned char)name[i]);
    buf[i] = '\0';
}

/* A JSON number, or null for what JSON cannot hold (nan, inf) and for "absent" (< 0). */
static json_t *number_or_null(double v, int negative_is_absent)
{
    if (!isfinite(v) || (negative_is_absent && v < 0))
        return json_null();
    return ht__json_real(v);
}

static json_t *sizes_json(unsigned ndims, const uint64_t *v)
{
    json_t *a = json_array();
    for (unsigned d = 0; a && d < ndims; d++)
        json_array_append_new(a, json_integer((json_int_t)v[d]));
    return a;
}

int ht_present_eval_json(const struct ht_present_eval *e, char **text, struct ht_error *err)
{
    if (!e || !text)
        return ht_error_set(err, HT_EINVAL, "ht_present_eval_json: %s is NULL",
                            !e ? "e" : "text");
    if (!e->spec || !e->dev || !e->config || !e->res)
        return ht_error_set(err, HT_EINVAL, "ht_present_eval_json: no spec, device, "
                                            "configuration or result");

    const struct ht_spec *spec = e->spec;
    const struct ht_device_info *dev = e->dev;
    const int64_t *config = e->config;
    const struct ht_eval_result *res = e->res;
    const struct ht_error *eval_err = e->eval_err;
    const struct ht_load *load = e->load;
    json_t *root = json_object(), *o, *runs;
    char status[32], msg[4096];
    unsigned keep = spec->keep_best && spec->keep_best < spec->repeats ? spec->keep_best
                                                                      : spec->repeats;
    int verified = res->verified;

    if (!root)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    json_object_set_new(root, "spec", ht__json_string(spec->name));
    json_object_set_new(root, "spec_path", spec->path ? ht__json_string(spec->path) : json_null());
    /* "kernel" holds the timings below, so the kernel's name goes under "kernel_name". */
    json_object_set_new(root, "kernel_name", ht__json_string(spec->kernel_name));
    o = json_object();
    json_object_set_new(o, "index", json_integer((json_int_t)dev->index));
    json_object_set_new(o, "name", ht__json_string(dev->name));
    json_object_set_new(o, "platform", ht__json_string(dev->platform));
    json_object_set_new(root, "device", o);
    json_object_set_new(root, "config", config_json(spec, config));
    json_object_set_new(root, "global", res->ndims ? sizes_json(res->ndims, res->global)
                                                   : json_null());
    json_object_set_new(root, "local", res->ndims && res->local[0]
                                           ? sizes_json(res->ndims, res->local)
                                           : json_null());
    status_name(res->status, status, sizeof status);
    json_object_set_new(root, "status", ht__json_string(status));

    o = json_object();
    json_object_set_new(o, "seconds", number_or_null(res->build_s, 0));
    json_object_set_new(o, "cache_hit", json_boolean(res->cache_hit));
    json_object_set_new(root, "build", o);

    o = json_object();
    runs = json_array();
    for (unsigned r = 0; r < res->nruns; r++)
        json_array_append_new(runs, ht__json_real(res->run_s[r]));
    json_object_set_new(o, "mean_best_seconds",
                        res->nruns ? number_or_null(res->kernel_s, 0) : json_null());
    json_object_set_new(o, "min_seconds",
                        res->nruns ? number_or_null(res->kernel_min_s, 0) : json_null());
    json_object_set_new(o, "runs", runs);
    json_object_set_new(o, "keep_best", json_integer(keep));
    json_object_set_new(root, "kernel", o);

    o = json_object();
    json_object_set_new(o, "write_seconds",
                        res->nruns ? number_or_null(res->write_s, 0) : json_null());
    json_object_set_new(o, "read_seconds",
                        res->nruns ? number_or_null(res->read_s, 0) : json_null());
    json_object_set_new(root, "transfers", o);
    json_object_set_new(root, "gflops", number_or_null(res->gflops, 1));
    json_object_set_new(root, "gbps", number_or_null(res->gbps, 1));

    o = json_object();
    json_object_set_new(o, "verified", verified < 0 ? json_null() : json_boolean(verified));
    json_object_set_new(o, "max_abs_err",
                        verified < 0 ? json_null() : number_or_null(res->max_abs_err, 0));
    json_object_set_new(o, "max_rel_err",
                        verified < 0 ? json_null() : number_or_null(res->max_rel_err, 0));
    json_object_set_new(o, "mismatches",
                        verified < 0 ? json_null() : json_integer((json_int_t)res->mismatches));
    json_object_set_new(o, "first_mismatch",
                        res->mismatch[0] ? ht__json_string(res->mismatch) : json_null());
    json_object_set_new(root, "verification", o);

    if (res->status != HT_OK) {
        ht_error_format(eval_err, msg, sizeof msg);
        json_object_set_new(root, "error", ht__json_string(msg));
    } else {
        json_object_set_new(root, "error", json_null());
    }
    if (load)
        json_object_set_new(root, "load", ht__present_load_json(load));
    return dump(root, 0, text, err);
}


/* --- hetune tune --- */

static json_t *tune_device(const struct ht_spec *spec, const struct ht_device_info *dev,
                           const struct ht_tune_result *r)
{
    json_t *o = json_object(), *best, *cfg;

    json_object_set_new(o, "index", json_integer((json_int_t)dev->index));
    json_object_set_new(o, "device", ht__json_string(dev->name));
    json_object_set_new(o, "platform", ht__json_string(dev->platform));
    /* A count past 2^63 is no JSON integer here: null, and the exact text beside it. */
    json_object_set_new(o, "space", r->space < (size_t)INT64_MAX
                                        ? json_integer((json_int_t)r->space) : json_null());
    if (r->space_text[0])
        json_object_set_new(o, "space_text", ht__json_string(r->space_text));
    json_object_set_new(o, "strategy", ht__json_string(r->strategy));
    json_object_set_new(o, "evaluated", json_integer((json_int_t)r->evaluated));
    json_object_set_new(o, "from_db", json_integer((json_int_t)r->from_db));
    json_object_set_new(o, "failed_reused", json_integer((json_int_t)r->failed_reused));
    json_object_set_new(o, "failed_stale", json_integer((json_int_t)r->failed_stale));
    json_object_set_new(o, "cut", json_integer((json_int_t)r->cut));
    json_object_set_new(o, "failed", json_integer((json_int_t)r->failed));
    json_object_set_new(o, "crashed", json_integer((json_int_t)r->crashed));
    json_object_set_new(o, "timed_out", json_integer((json_int_t)r->timed_out));
    json_object_set_new(o, "isolated", json_boolean(r->isolated));
    json_object_set_new(o, "forgotten", json_integer((json_int_t)r->forgotten));
    if (r->has_best) {
        best = json_object();
        cfg = config_json(spec, r->best);
        json_object_set_new(best, "config", cfg);
        json_object_set_new(best, "seconds", ht__json_real(r->best_s));
        json_object_set_new(best, "from_db", json_boolean(r->best_from_db));
        json_object_set_new(o, "best", best);
    } else {
        json_object_set_new(o, "best", json_null());
    }
    json_object_set_new(o, "tuning_seconds", ht__json_real(r->tuning_s));
    json_object_set_new(o, "build_seconds", ht__json_real(r->build_s));
    json_object_set_new(o, "first_launch_seconds", ht__json_real(r->launch_compile_s));
    json_object_set_new(o, "cache_hits", json_integer((json_int_t)r->cache_hits));
    json_object_set_new(o, "jobs", json_integer((json_int_t)r->jobs));
    json_object_set_new(o, "built_ahead", json_integer((json_int_t)r->prebuilt));
    json_object_set_new(o, "built_ahead_seconds", ht__json_real(r->prebuild_s));
    json_object_set_new(o, "driver_cache", json_boolean(r->driver_cache));
    json_object_set_new(o, "stopped", json_boolean(r->stopped));
    json_object_set_new(o, "load", ht__present_load_json(&r->load));
    if (r->replayed) {
        json_object_set_new(o, "replayed", json_true());
        json_object_set_new(o, "missing", json_integer((json_int_t)r->missing));
        json_object_set_new(o, "simulated_seconds", ht__json_real(r->simulated_s));
    }
    return o;
}

int ht_present_tune_json(const struct ht_present_tune *t, char **text, struct ht_error *err)
{
    if (!t || !text)
        return ht_error_set(err, HT_EINVAL, "ht_present_tune_json: %s is NULL",
                            !t ? "t" : "text");
    if (!t->spec || !t->opts || (t->n && (!t->devs || !t->results)))
        return ht_error_set(err, HT_EINVAL, "ht_present_tune_json: no spec, options, "
                                            "devices or results");

    const struct ht_spec *spec = t->spec;
    const struct ht_tune_opts *o = t->opts;
    const struct ht_tune_result *results = t->results;
    const char *db = t->db;
    size_t n = t->n;
    json_t *root = json_object(), *arr = json_array();

    json_object_set_new(root, "spec", ht__json_string(spec->name));
    json_object_set_new(root, "spec_path", spec->path ? ht__json_string(spec->path) : json_null());
    json_object_set_new(root, "db", ht__json_string(db ? db : HT_STORE_DEFAULT_PATH));
    /* The strategy each device used (an automatic choice depends on its space). */
    json_object_set_new(root, "strategy", ht__json_string(o->strategy ? o->strategy
                                                      : n ? results[0].strategy
                                                          : "automatic"));
    json_object_set_new(root, "seed", json_integer((json_int_t)o->seed));
    json_object_set_new(root, "budget", o->budget ? json_integer((json_int_t)o->budget)
                                                  : json_null());
    json_object_set_new(root, "cut_factor", ht__json_real(o->cut_factor));
    json_object_set_new(root, "interrupted", json_boolean(t->interrupted));
    json_object_set_new(root, "replay", o->replay ? ht__json_string(ht_recording_path(o->replay))
                                                  : json_null());
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, tune_device(spec, t->devs[i], &results[i]));
    json_object_set_new(root, "devices", arr);
    return dump(root, 0, text, err);
}

/* --- hetune devices --- */


static json_t *device_json(const struct ht_device_info *d)
{
    json_t *o = json_object(), *sizes = json_array();
    int64_t vals[HT_DEVICE_NVARS];

    if (!o || !sizes) {
        json_decref(o);
        json_decref(sizes);
        return NULL;
    }
    /* ht_device_vars gives the limits as the signed 64-bit numbers JSON integers are. */
    ht_device_vars(d, vals);
    for (uint32_t i = 0; i < d->max_work_item_dims; i++)
        json_array_append_new(sizes, json_integer(vals[HT_DEVVAR_MAX_WORK_ITEM_SIZE_0 + i]));
    json_object_set_new(o, "index", json_integer((json_int_t)d->index));
    json_object_set_new(o, "platform", ht__json_string(d->platform));
    json_object_set_new(o, "name", ht__json_string(d->name));
    json_object_set_new(o, "type", ht__json_string(d->type));
    json_object_set_new(o, "version", ht__json_string(d->version));
    json_object_set_new(o, "driver_version", ht__json_string(d->driver_version));
    json_object_set_new(o, "compute_units", json_integer(vals[HT_DEVVAR_COMPUTE_UNITS]));
    json_object_set_new(o, "max_work_group_size",
                        json_integer(vals[HT_DEVVAR_MAX_WORK_GROUP_SIZE]));
    json_object_set_new(o, "max_work_item_dims", json_integer(d->max_work_item_dims));
    json_object_set_new(o, "max_work_item_sizes", sizes);
    json_object_set_new(o, "local_mem_size", json_integer(vals[HT_DEVVAR_LOCAL_MEM_SIZE]));
    json_object_set_new(o, "global_mem_size", json_integer(vals[HT_DEVVAR_GLOBAL_MEM_SIZE]));
    json_object_set_new(o, "max_mem_alloc_size",
                        json_integer(vals[HT_DEVVAR_MAX_MEM_ALLOC_SIZE]));
    json_object_set_new(o, "is_cpu", json_boolean(d->is_cpu));
    json_object_set_new(o, "is_gpu", json_boolean(d->is_gpu));
    return o;
}

static json_t *bandwidth_json(const struct ht_bandwidth *bw)
{
    json_t *o = json_object();

    if (!o)
        return NULL;
    json_object_set_new(o, "path", ht__json_string(ht_data_path_name(bw->path)));
    json_object_set_new(o, "bytes", json_integer((json_int_t)bw->bytes));
    json_object_set_new(o, "repeats", json_integer((json_int_t)bw->repeats));
    json_object_set_new(o, "h2d_GBps", ht__json_real(GBPS(bw->h2d_Bps)));
    json_object_set_new(o, "d2h_GBps", ht__json_real(GBPS(bw->d2h_Bps)));
    json_object_set_new(o, "pinned_h2d_GBps", ht__json_real(GBPS(bw->pinned_h2d_Bps)));
    json_object_set_new(o, "pinned_d2h_GBps", ht__json_real(GBPS(bw->pinned_d2h_Bps)));
    json_object_set_new(o, "pageable_h2d_GBps", ht__json_real(GBPS(bw->pageable_h2d_Bps)));
    json_object_set_new(o, "pageable_d2h_GBps", ht__json_real(GBPS(bw->pageable_d2h_Bps)));
    return o;
}

int ht_present_devices_json(const struct ht_device_info *devs, size_t n,
                            const struct ht_bandwidth *bw, const struct ht_host_memory *host,
                            char **text, struct ht_error *err)
{
    if ((n && !devs) || !text)
        return ht_error_set(err, HT_EINVAL, "ht_present_devices_json: %s is NULL",
                            !text ? "text" : "devs");

    json_t *root = json_object(), *list = json_array();

    if (!root || !list) {
        json_decref(list);
        json_decref(root);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    json_object_set_new(root, "devices", list);
    if (host && json_object_set_new(root, "host_memory", json_pack(
                    "{s:o, s:o, s:o, s:i, s:i, s:I, s:i, s:i}",
                    "GBps", ht__json_real(GBPS(host->Bps)),
                    "read_GBps", ht__json_real(GBPS(host->read_Bps)), "shared_GBps",
                    host->shared_Bps > 0 ? ht__json_real(GBPS(host->shared_Bps)) : json_null(),
                    "shared_threads", (int)host->shared_threads, "shared_devices",
                    (int)host->shared_devices, "bytes",
                    (json_int_t)host->bytes, "threads", (int)host->threads, "repeats",
                    (int)host->repeats)) != 0) {
        json_decref(root);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    if (host) {
        /* [k - 1]: the shared rate with the first k copying devices (null: not measured). */
        json_t *by = json_array();
        for (size_t k = 0; by && k < HT_HOST_SHARED_MAX && k < host->shared_devices; k++)
            json_array_append_new(by, host->shared_by_Bps[k] > 0
                                          ? json_real(GBPS(host->shared_by_Bps[k]))
                                          : json_null());
        if (!by || json_object_set_new(json_object_get(root, "host_memory"),
                                       "shared_GBps_by_devices", by) != 0) {
            json_decref(root);
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        }
    }
    for (size_t i = 0; i < n; i++) {
        json_t *o = device_json(&devs[i]);
        if (o && bw && json_object_set_new(o, "bandwidth", bandwidth_json(&bw[i])) != 0) {
            json_decref(o);
            o = NULL;
        }
        if (!o || json_array_append_new(list, o) != 0) {
            json_decref(root);
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        }
    }
    return dump(root, 0, text, err);
}

/* --- hetune space --- */

/* A size's text (struct ht_space_counts) as a JSON number: exact below 2^128, else the
 * rounded value without its "~", null past a double's range ("~inf"). */
static json_t *space_count(const char *text)
{
    json_t *v = ht__json_uint_text(text);

    return v ? v : ht__json_real(strtod(text + (text[0] == '~'), NULL));
}

/* The configurations of one device's listing, appended to a JSON array. A listing can
 * hold millions, so the small values, most of a space's, are one shared JSON integer each
 * rather than one per use: 1,000,000 configurations of 5 values took 535 MB each its own. */
#define SHARED_INTS 4096
struct configs {
    json_t *list;
    size_t np;
    json_t *ints[SHARED_INTS];
};

/* v as a JSON integer: a new reference. */
static json_t *config_value(struct configs *c, int64_t v)
{
    if (v < 0 || v >= SHARED_INTS)
        return json_integer(v);
    if (!c->ints[v] && !(c->ints[v] = json_integer(v)))
        return NULL;
    return json_incref(c->ints[v]);
}

static int config_array(const int64_t *config, void *user)
{
    struct configs *c = user;
    json_t *a = json_array();

    for (size_t i = 0; a && i < c->np; i++)
        if (json_array_append_new(a, config_value(c, config[i])) != 0) {
            json_decref(a);
            a = NULL;
        }
    /* A positive return stops the walk; the caller then says out of memory. */
    return a && json_array_append_new(c->list, a) == 0 ? 0 : 1;
}

/* The configurations of r in ht_present_space_print's order, or NULL (out of memory). */
static json_t *space_configs(const struct ht_workflow_space *r)
{
    struct configs *c = calloc(1, sizeof *c);
    json_t *list = NULL;
    int rc = 0;

    if (!c || !(c->list = json_array()))
        goto cleanup;
    c->np = r->nparams;
    if (!r->collected)
        rc = ht_space_foreach(r->space, config_array, c);
    for (size_t k = 0; r->collected && rc == 0 && k < r->nconfigs; k++)
        rc = config_array(r->configs + k * r->nparams, c);
    if (rc == 0) {
        list = c->list;
        c->list = NULL;
    }
cleanup:
    if (c) {
        json_decref(c->list);
        for (size_t v = 0; v < SHARED_INTS; v++)
            json_decref(c->ints[v]);
    }
    free(c);
    return list;
}

static json_t *space_device(const struct ht_spec *spec, const struct ht_workflow_space *r,
                            const char *solver, int list)
{
    const struct ht_space_counts *c = &r->counts;
    json_t *params = json_array();
    int empty = c->pruned == 0;
    json_t *d = json_pack("{s:o, s:I, s:o, s:o, s:o, s:o, s:b, s:o, s:o}",
                          "device", ht__json_string(r->dev->name),
                          "index", (json_int_t)r->dev->index,
                          "platform_name", ht__json_string(r->dev->platform),
                          "unpruned", space_count(c->unpruned_text),
                          "platform", space_count(c->platform_text),
                          "pruned", space_count(c->pruned_text),
                          "approximate", c->approximate,
                          "seconds", ht__json_real(c->seconds),
                          "solver", ht__json_string(solver));

    for (size_t i = 0; params && i < spec->space.nparams; i++)
        json_array_append_new(params, ht__json_string(spec->space.params[i].name));
    if (!d || !params) {
        json_decref(d);
        json_decref(params);
        return NULL;
    }
    if (r->mzn_seconds >= 0) {
        json_object_set_new(d, "native_seconds", ht__json_real(c->seconds));
        json_object_set_new(d, "minizinc_seconds", ht__json_real(r->mzn_seconds));
    }
    json_object_set_new(d, "params", params);
    if (list && json_object_set_new(d, "configs", space_configs(r)) != 0) {
        json_decref(d);
        return NULL;
    }
    json_object_set_new(d, "empty_reason", empty && c->empty_reason[0]
                                               ? ht__json_string(c->empty_reason)
                                               : json_null());
    json_object_set_new(d, "last_constraint", empty && c->last_constraint[0]
                                                  ? ht__json_string(c->last_constraint)
                                                  : json_null());
    return d;
}

int ht_present_space_json(const struct ht_present_space *s, char **text, struct ht_error *err)
{
    if (!s || !text)
        return ht_error_set(err, HT_EINVAL, "ht_present_space_json: %s is NULL",
                            !s ? "s" : "text");
    if (!s->spec || !s->solver || (s->n && !s->spaces))
        return ht_error_set(err, HT_EINVAL, "ht_present_space_json: no spec, solver or spaces");

    const struct ht_spec *spec = s->spec;
    const char *solver = s->solver;
    enum ht_eq3 eq3 = s->eq3;
    json_t *devs = json_array(), *root;

    for (size_t k = 0; devs && k < s->n; k++)
        if (json_array_append_new(devs, space_device(spec, &s->spaces[k], solver, s->list)) !=
            0) {
            json_decref(devs);
            devs = NULL;
        }
    /* spec_path: null for a spec from memory. */
    root = devs ? json_pack("{s:o, s:o, s:o, s:s, s:o}", "spec", ht__json_string(spec->name),
                            "spec_path", ht__json_string(spec->path),
                            "solver", ht__json_string(solver),
                            "eq3", eq3 == HT_EQ3_SUM ? "sum" : eq3 == HT_EQ3_OFF ? "off"
                                                                                 : "product",
                            "devices", devs)
                : NULL;
    /* The seconds as the text output had them (%.9f), and a rounded size past 2^128 to
     * more digits than its text holds. */
    return ht__json_dump(root, 9, text, err);
}

/* --- hetune plan --- */

static json_t *plan_device(const struct ht_workflow_plan_result *r,
                           const struct ht_split_bus *bus, char *const *names, size_t i)
{
    const struct ht_split_slice *s = &r->plan.slices[i];
    json_t *d = json_pack("{s:I}", "index", (json_int_t)i);

    if (d && names)
        json_object_set_new(d, "name", ht__json_string(names[i]));
    if (d && json_object_update_new(d, json_pack(
            "{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I}",
            "wg", (json_int_t)s->wg, "time", ht__json_real(s->time_s),
            "overhead", ht__json_real(s->overhead_s),
            "optimal_factor", ht__json_real(s->optimal_factor),
            "adjusted_factor", ht__json_real(s->adjusted_factor),
            "slice_factor", ht__json_real(s->slice_factor), "gamma", ht__json_real(s->gamma),
            "offset", (json_int_t)s->offset, "size", (json_int_t)s->size,
            "groups", (json_int_t)s->groups, "extra_groups", (json_int_t)s->extra_groups,
            "own_offset", (json_int_t)s->own_offset,
            "own_size", (json_int_t)s->own_size)) != 0) {
        json_decref(d);
        return NULL;
    }
    if (d && r->bus) {
        const struct ht_split_bus *b = &bus[i];
        if (json_object_update_new(d, json_pack(
                "{s:o, s:o, s:o, s:o, s:b, s:I, s:o, s:o, s:o}",
                "kernel_time", ht__json_real(b->kernel_s),
                "kernel_overhead", ht__json_real(b->overhead_s),
                "xfer", ht__json_real(b->xfer_s), "fixed", ht__json_real(b->fixed_s),
                "overlap", b->overlap, "pieces", (json_int_t)b->pieces,
                "busy_alone_s", ht__json_real(s->time_s), "busy_s", ht__json_real(s->model_s),
                "bound_share", ht__json_real(r->shares[i]))) != 0) {
            json_decref(d);
            return NULL;
        }
    }
    return d;
}

int ht_present_plan_json(const struct ht_workflow_plan_result *r,
                         const struct ht_split_bus *bus, char *const *names, char **text,
                         struct ht_error *err)
{
    if (!r || !text)
        return ht_error_set(err, HT_EINVAL, "ht_present_plan_json: %s is NULL", !r ? "r" : "text");

    const struct ht_split_plan *p = &r->plan;
    json_t *devs = json_array(), *root = NULL;

    for (size_t i = 0; devs && i < p->ndevices; i++)
        if (json_array_append_new(devs, plan_device(r, bus, names, i)) != 0) {
            json_decref(devs);
            devs = NULL;
        }
    if (devs)
        root = json_pack("{s:I, s:o, s:o, s:I, s:I, s:I, s:o, s:o, s:o}",
                         "global", (json_int_t)p->global, "devices", devs,
                         "residue_device", p->residue_device == SIZE_MAX
                                               ? json_null()
                                               : json_integer((json_int_t)p->residue_device),
                         "residue", (json_int_t)p->residue, "overlap", (json_int_t)p->overlap,
                         "overhang", (json_int_t)p->overhang,
                         "theoretical_time", ht__json_real(r->bus ? r->kernel_theoretical_s
                                                                  : p->theoretical_time_s),
                         "adjusted_time", ht__json_real(p->adjusted_time_s),
                         "model_time", ht__json_real(p->model_time_s));
    if (root && r->bus &&
        json_object_update_new(root, json_pack(
            "{s:o, s:o, s:{s:s, s:I, s:o, s:o, s:o, s:o}}",
            "kernel_theoretical_time", ht__json_real(r->kernel_theoretical_s),
            "bus_bound_s", ht__json_real(r->bound_s),
            "decision", "choice", r->dec.split ? "split" : "alone",
            "device", (json_int_t)r->dec.fastest, "alone_s", ht__json_real(r->dec.alone_s),
            "split_s", ht__json_real(r->dec.split_s), "speedup", ht__json_real(r->dec.speedup),
            "margin", ht__json_real(r->margin))) != 0) {
        json_decref(root);
        root = NULL;
    }
    /* Every number to 17 digits: the plan parses back to the same doubles. */
    return ht__json_dump(root, 17, text, err);
}

/* --- hetune report --- */

int ht_present_report_json(const char *db, const char *out, const struct ht_report_result *res,
                           char **text, struct ht_error *err)
{
    if (!res || !text)
        return ht_error_set(err, HT_EINVAL, "ht_present_report_json: %s is NULL",
                            !res ? "res" : "text");

    json_t *names = json_array();

    /* The names without extension, as ht_report_result lists them (none when NULL). */
    for (const char *p = res->figure_list ? res->figure_list : ""; names && *p;) {
        size_t len = strcspn(p, "\n");
        char name[512];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        json_array_append_new(names, ht__json_string(name));
        p += len + (p[len] == '\n');
    }
    return ht__json_dump(json_pack(
        "{s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:o, s:I, s:I, s:o}",
        "db", ht__json_string(db), "out", ht__json_string(out),
        "report", ht__json_string(res->path ? res->path : ""), "cases", (json_int_t)res->cases,
        "devices", (json_int_t)res->devices, "spaces", (json_int_t)res->spaces,
        "splits", (json_int_t)res->splits, "sweeps", (json_int_t)res->sweeps,
        "figures", (json_int_t)res->figures, "pictures", res->pictures,
        "no_pictures", res->pictures ? json_null() : ht__json_string(res->no_pictures),
        "tunings", (json_int_t)res->tunings, "runs", (json_int_t)res->runs,
        "figure_names", names ? names : json_null()),
        0, text, err);
}
