/* What `mpirun -n K hetune tune` and `mpirun -n K hetune split` show (present.h): the
 * results of ht_mpi_tune and ht_mpi_split (mpi.h) as text or as JSON, with the exit
 * status each ends with, one call each. On a rank other than 0 a result is empty and so is
 * what it shows. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hetune/mpi.h"
#include "hetune/present.h"
#include "hetune/store.h"
#include "present-internal.h"
#include "util/util.h"

static const char *const dim_names[] = {"gx", "gy", "gz"};

/* An empty text: what a rank other than 0 shows. */
static int empty(char **text, struct ht_error *err)
{
    *text = calloc(1, 1);
    return *text ? HT_OK : ht_error_set(err, HT_ENOMEM, "out of memory");
}

/* A text written into a memory stream: *text owned when HT_OK. */
static int text_begin(FILE **f, char **text, size_t *len, struct ht_error *err)
{
    *text = NULL;
    *len = 0;
    if (!(*f = open_memstream(text, len)))
        return ht_error_set(err, HT_ENOMEM, "out of memory writing the report");
    return HT_OK;
}

static int text_end(FILE *f, char **text, struct ht_error *err)
{
    int bad = ferror(f);

    if (fclose(f) != 0 || bad || !*text) {
        free(*text);
        *text = NULL;
        return ht_error_set(err, HT_ENOMEM, "out of memory writing the report");
    }
    return HT_OK;
}

/* The document of root (its reference taken) with reals of digits significant digits and
 * a newline at the end, into *text. */
static int json_end(json_t *root, int digits, char **text, struct ht_error *err)
{
    size_t n;
    char *t;
    int rc = ht__json_dump(root, digits, text, err);

    if (rc != HT_OK)
        return rc;
    n = strlen(*text);
    if (!(t = realloc(*text, n + 2))) {
        free(*text);
        *text = NULL;
        return ht_error_set(err, HT_ENOMEM, "out of memory writing the report");
    }
    t[n] = '\n';
    t[n + 1] = '\0';
    *text = t;
    return HT_OK;
}

/* --- mpirun -n K hetune tune --- */

static const char *rank_state(enum ht_mpi_rank_state s)
{
    return s == HT_MPI_RANK_DIED ? "died" : s == HT_MPI_RANK_LEFT ? "left" : "done";
}

static int tune_text(const struct ht_spec *spec, const struct ht_mpi_tune_result *r,
                     char **text, struct ht_error *err)
{
    char a[64], cfg[1100];
    size_t len;
    FILE *f;
    int rc;

    if (r->rank != 0)
        return empty(text, err);
    if ((rc = text_begin(&f, text, &len, err)) != HT_OK)
        return rc;
    /* r->db is "" when the caller gave the tune a sink of its own (ht_mpi_tune_opts.sink). */
    fprintf(f, "spec %s (%s), strategy %s, %s%s\n", spec->name, spec->path, r->strategy,
            r->db[0] ? "db " : "the caller's sink", r->db);
    fprintf(f, "ranks %d took part (MPI); rank 0 held the queue and the %s\n", r->size,
            r->db[0] ? "database" : "sink");
    for (size_t mi = 0; mi < r->nmodels; mi++) {
        const struct ht_mpi_tune_model *m = &r->models[mi];
        fprintf(f, "model %zu: %s (%s, driver %s, %u compute units) on ranks ", mi,
                m->device->name, m->device->vendor, m->device->driver_version,
                m->device->compute_units);
        for (size_t k = 0; k < m->nranks; k++)
            fprintf(f, "%s%d", k ? ", " : "", m->ranks[k]);
        fprintf(f, "\n  space        %zu valid configurations\n", m->space);
        fprintf(f, "  evaluated    %zu in this run (%zu cut, %zu failed), %zu from the "
                "%s; %zu lost in flight and measured again\n", m->evaluated, m->cut,
                m->failed, m->from_db, r->db[0] ? "database" : "sink", m->lost);
        if (m->has_best) {
            ht_format_seconds(m->best_s, a, sizeof a);
            ht_format_config(spec, m->best, cfg, sizeof cfg);
            fprintf(f, "  best         %s: %s%s\n", cfg, a, m->best_from_db ? " (stored)" : "");
        } else {
            fprintf(f, "  best         none: no configuration ran and verified\n");
        }
    }
    for (size_t i = 0; i < r->nranks; i++) {
        const struct ht_mpi_tune_rank *k = &r->ranks[i];
        ht_format_seconds(k->busy_s, a, sizeof a);
        fprintf(f, "rank %d (%s): %zu device%s, measured %zu (%zu ok, %zu cut, %zu failed), "
                "%s measuring; %s", k->rank, k->host, k->ndevices, k->ndevices == 1 ? "" : "s",
                k->measured, k->ok, k->cut, k->failed, a, rank_state(k->state));
        if (k->lost)
            fprintf(f, ", %zu in flight lost and put back in the queue", k->lost);
        fprintf(f, "%s%s\n", k->note[0] ? ": " : "", k->note);
    }
    /* Each rank's own watch: the ranks of one host count each other as other processes,
     * since they share its cores too. */
    for (size_t i = 0; i < r->nranks; i++) {
        char line[1024];
        if (ht_present_load_sentence(&r->ranks[i].load, line, sizeof line))
            fprintf(f, "rank %d (%s): %s, with --fresh\n", r->ranks[i].rank, r->ranks[i].host,
                    line);
    }
    return text_end(f, text, err);
}

static json_t *string_list(const char *const *v, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, ht__json_string(v[i]));
    return a;
}

static int tune_json(const struct ht_spec *spec, const struct ht_mpi_tune_result *r,
                     char **text, struct ht_error *err)
{
    json_t *root, *models, *ranks;
    int under = 0;

    if (r->rank != 0)
        return empty(text, err);
    root = json_object();
    models = json_array();
    ranks = json_array();
    for (size_t mi = 0; mi < r->nmodels; mi++) {
        const struct ht_mpi_tune_model *m = &r->models[mi];
        json_t *on = json_array();
        for (size_t k = 0; k < m->nranks; k++)
            json_array_append_new(on, json_integer(m->ranks[k]));
        /* A driver's names through ht__json_string: one not in UTF-8 made json_pack
         * fail, and the model was left out of the report. */
        json_array_append_new(models, json_pack(
            "{s:i, s:o, s:o, s:o, s:i, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o}",
            "model", (int)mi, "name", ht__json_string(m->device->name),
            "vendor", ht__json_string(m->device->vendor),
            "driver", ht__json_string(m->device->driver_version),
            "compute_units", (int)m->device->compute_units,
            "ranks", on, "space", (json_int_t)m->space, "from_db", (json_int_t)m->from_db,
            "evaluated", (json_int_t)m->evaluated, "cut", (json_int_t)m->cut,
            "failed", (json_int_t)m->failed, "crashed", (json_int_t)m->crashed,
            "timeout", (json_int_t)m->timed_out, "lost_in_flight", (json_int_t)m->lost,
            "best", m->has_best ? ht__json_string(m->best_text) : json_null(),
            "best_s", m->has_best ? json_real(m->best_s) : json_null()));
    }
    for (size_t i = 0; i < r->nranks; i++) {
        const struct ht_mpi_tune_rank *k = &r->ranks[i];
        json_t *windows = json_array();
        for (size_t j = 0; j < k->measured; j++)
            json_array_append_new(windows, json_pack("[f, f]", k->windows[2 * j],
                                                     k->windows[2 * j + 1]));
        under |= ht_load_under(&k->load);
        json_array_append_new(ranks, json_pack(
            "{s:i, s:o, s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:o, s:o, s:o, s:o, s:o}",
            "rank", k->rank, "host", ht__json_string(k->host), "devices",
            (json_int_t)k->ndevices, "state", rank_state(k->state),
            "measured", (json_int_t)k->measured, "ok", (json_int_t)k->ok,
            "cut", (json_int_t)k->cut, "failed", (json_int_t)k->failed,
            "lost_in_flight", (json_int_t)k->lost, "busy_s", k->busy_s,
            "configs", string_list(k->configs, k->measured),
            "lost", string_list(k->lost_configs, k->lost), "note", ht__json_string(k->note),
            "load", ht__present_load_json(&k->load), "windows", windows));
    }
    json_object_set_new(root, "spec", ht__json_string(spec->name));
    json_object_set_new(root, "db", ht__json_string(r->db));
    json_object_set_new(root, "strategy", json_string(r->strategy));
    json_object_set_new(root, "ranks", json_integer(r->size));
    json_object_set_new(root, "interrupted", json_boolean(r->stopped));
    json_object_set_new(root, "under_load", json_boolean(under));
    json_object_set_new(root, "queue", json_pack(
        "{s:f, s:f, s:I, s:I, s:I}", "seconds", r->seconds, "store_seconds", r->store_s,
        "messages", (json_int_t)r->messages, "assign_bytes", (json_int_t)r->assign_bytes,
        "result_bytes", (json_int_t)r->result_bytes));
    json_object_set_new(root, "models", models);
    json_object_set_new(root, "per_rank", ranks);
    return json_end(root, 0, text, err);
}

/* --- mpirun -n K hetune split --- */

static const char *node_host(const struct ht_mpi_split_node *n)
{
    return n->host;
}

static int split_text(const struct ht_spec *spec, const struct ht_mpi_split_result *r,
                      char **text, struct ht_error *err)
{
    char a[32], c[32], d[32], e[32];
    size_t len;
    FILE *f;
    int rc;

    if (r->rank != 0)
        return empty(text, err);
    if ((rc = text_begin(&f, text, &len, err)) != HT_OK)
        return rc;
    fprintf(f, "spec          %s (%s)\n", spec->name, spec->path);
    fprintf(f, "ranks         %zu of %d took part (MPI); split along %s (dimension %u), "
            "%" PRIu64 " units, each node scheduler %s\n", r->took_part, r->size,
            dim_names[r->dim], r->dim, r->global, r->scheduler);
    fprintf(f, "nodes         Eq. 4 on each node's measured run of the whole problem as it "
            "decided (its devices split, or its fastest alone), slices of whole work-groups "
            "of every device it runs on (their lcm)\n\n");
    fprintf(f, "%-4s %-16s %-7s %10s %8s %8s %20s %10s %10s %10s\n", "rank", "host", "granule",
            "alone", "optimal", "adjusted", "owned", "split", "scatter", "gather");
    for (size_t i = 0; i < r->nnodes; i++) {
        const struct ht_mpi_split_node *n = &r->nodes[i];
        if (n->state == HT_MPI_NODE_NOT_USED) {
            ht_format_seconds(n->alone_s, a, sizeof a);
            fprintf(f, "%-4d %-16.16s %7" PRIu64 " %10s not used: the nodes' decision "
                    "(below)\n", n->rank, node_host(n), n->granule, a);
            fprintf(f, "       decision %s\n", n->decision);
        } else if (n->state == HT_MPI_NODE_LEFT_OUT) {
            fprintf(f, "%-4d %-16.16s left out: %s\n", n->rank, node_host(n), n->why);
        } else {
            char own[48];
            snprintf(own, sizeof own, "[%" PRIu64 ", %" PRIu64 ")", n->own_offset,
                     n->own_offset + n->own_size);
            ht_format_seconds(n->alone_s, a, sizeof a);
            ht_format_seconds(n->split_s, c, sizeof c);
            ht_format_seconds(n->scatter_s, d, sizeof d);
            ht_format_seconds(n->gather_s, e, sizeof e);
            fprintf(f, "%-4d %-16.16s %7" PRIu64 " %10s %8.4f %8.4f %20s %10s %10s %10s\n",
                    n->rank, node_host(n), n->granule, a, n->optimal_factor, n->share, own, c,
                    d, e);
            fprintf(f, "       decision %s\n", n->decision);
        }
        for (size_t j = 0; j < n->ndevices; j++) {
            const struct ht_mpi_split_device *dv = &n->devices[j];
            fprintf(f, "       device %zu %s: %s\n", dv->device->index, dv->device->name,
                    dv->usable ? dv->config : dv->why);
        }
    }
    fprintf(f, "\nnodes         %s\n", r->decision);
    if (r->rounds) {
        fprintf(f, "refined       %u round%s one level up (each node's time from its slice in "
                "the split; the last round's runs below): wall", r->rounds,
                r->rounds == 1 ? "" : "s");
        for (unsigned k = 0; k < r->rounds; k++) {
            ht_format_seconds(r->round_wall_s[k], a, sizeof a);
            fprintf(f, " %s,", a);
        }
        ht_format_seconds(r->wall_s, a, sizeof a);
        if (r->kept_again)
            fprintf(f, " then round %u's plan again (the shortest): %s; node times",
                    r->kept_round, a);
        else
            fprintf(f, " then %s (the shortest); node times", a);
        for (size_t i = 0; i < r->nnodes; i++)
            if (r->nodes[i].state != HT_MPI_NODE_LEFT_OUT) {
                ht_format_seconds(r->nodes[i].refined_s, c, sizeof c);
                fprintf(f, " %d: %s", r->nodes[i].rank, c);
            }
        fprintf(f, "\n");
    }
    ht_format_seconds(r->bound_s, a, sizeof a);
    ht_format_seconds(r->adjusted_s, c, sizeof c);
    fprintf(f, "bound         %s (Eq. 4 on the nodes' times: 1 / sum 1/t_r); %s with the "
            "slices as launched\n", a, c);
    ht_format_seconds(r->wall_s, a, sizeof a);
    ht_format_seconds(r->wall_min_s, c, sizeof c);
    fprintf(f, "measured      wall %s (mean of the best %u of %u runs: scatter, co-execution, "
            "gather; fastest %s)\n", a, r->keep_best, r->runs, c);
    ht_format_seconds(r->bound_min_s, a, sizeof a);
    fprintf(f, "efficiency    %.3f (the bound over the measured wall time); %.3f from the "
            "fastest runs (bound %s)\n", r->efficiency, r->efficiency_min, a);
    fprintf(f, "moved         %" PRIu64 " bytes scattered, %" PRIu64 " gathered per run (rank "
            "0 and the other nodes)\n", r->scattered_bytes, r->gathered_bytes);
    if (r->verified == 1)
        fprintf(f, "verification  passed against %s on rank 0 (max abs err %.3g, max rel err "
                "%.3g)\n", r->reference, r->max_abs_err, r->max_rel_err);
    else if (r->verified == 0)
        fprintf(f, "verification  FAILED: %s\n", r->mismatch);
    else
        fprintf(f, "verification  skipped\n");
    /* Each node's watch while its decision measured (the distributed runs hold no lock). */
    for (size_t i = 0; i < r->nnodes; i++) {
        char line[1024];
        if (ht_present_load_sentence(&r->nodes[i].load, line, sizeof line))
            fprintf(f, "rank %d (%s): %s\n", r->nodes[i].rank, node_host(&r->nodes[i]), line);
    }
    return text_end(f, text, err);
}

/* A time of a node's decision: null when unknown (< 0). */
static json_t *known(double v)
{
    return v < 0 ? json_null() : json_real(v);
}

static int split_json(const struct ht_spec *spec, const struct ht_mpi_split_result *r,
                      char **text, struct ht_error *err)
{
    json_t *root, *per;

    if (r->rank != 0)
        return empty(text, err);
    root = json_object();
    per = json_array();
    /* Names, hosts and messages through ht__json_string: a device name in a driver's own
     * encoding made json_string return NULL, and the key was left out. */
    if (!root || !per) {
        json_decref(root);
        json_decref(per);
        return ht_error_set(err, HT_ENOMEM, "out of memory writing the report");
    }
    json_object_set_new(root, "spec", ht__json_string(spec->name));
    json_object_set_new(root, "ranks", json_integer(r->size));
    json_object_set_new(root, "took_part", json_integer((json_int_t)r->took_part));
    json_object_set_new(root, "dim", json_integer(r->dim));
    json_object_set_new(root, "global", json_integer((json_int_t)r->global));
    json_object_set_new(root, "scheduler", ht__json_string(r->scheduler));
    for (size_t i = 0; i < r->nnodes; i++) {
        const struct ht_mpi_split_node *n = &r->nodes[i];
        json_t *o = json_object(), *devs = json_array();
        json_object_set_new(o, "rank", json_integer(n->rank));
        json_object_set_new(o, "host", ht__json_string(n->host));
        json_object_set_new(o, "load", ht__present_load_json(&n->load));
        json_object_set_new(o, "state", ht__json_string(n->state == HT_MPI_NODE_OK ? "ok"
                                                    : n->state == HT_MPI_NODE_NOT_USED
                                                        ? "not used"
                                                        : "left out"));
        if (n->state == HT_MPI_NODE_LEFT_OUT) {
            json_object_set_new(o, "why", ht__json_string(n->why));
        } else {
            /* Every node that co-executed the whole problem: its time and decision. */
            json_object_set_new(o, "granule", json_integer((json_int_t)n->granule));
            json_object_set_new(o, "alone_s", json_real(n->alone_s));
            if (r->rounds)
                json_object_set_new(o, "refined_s", json_real(n->refined_s));
            json_object_set_new(o, "alone_min_s", json_real(n->alone_min_s));
            json_object_set_new(o, "alone_kernel_s", json_real(n->alone_kernel_s));
            json_object_set_new(o, "decision", ht__json_string(n->decision));
            json_object_set_new(o, "node_split", json_boolean(n->node_split));
            json_object_set_new(o, "predicted_split_s", known(n->predicted_split_s));
            json_object_set_new(o, "predicted_alone_s", known(n->predicted_alone_s));
            json_object_set_new(o, "measured_split_s", known(n->measured_split_s));
        }
        if (n->state == HT_MPI_NODE_NOT_USED) {
            json_object_set_new(o, "why", ht__json_string(n->why));
        } else if (n->state == HT_MPI_NODE_OK) {
            json_object_set_new(o, "optimal_factor", json_real(n->optimal_factor));
            json_object_set_new(o, "share", json_real(n->share));
            json_object_set_new(o, "slice", json_pack("[I, I]", (json_int_t)n->offset,
                                                      (json_int_t)(n->offset + n->size)));
            json_object_set_new(o, "owned", json_pack("[I, I]", (json_int_t)n->own_offset,
                                                      (json_int_t)(n->own_offset +
                                                                   n->own_size)));
            json_object_set_new(o, "split_s", json_real(n->split_s));
            json_object_set_new(o, "scatter_s", json_real(n->scatter_s));
            json_object_set_new(o, "gather_s", json_real(n->gather_s));
        }
        for (size_t j = 0; j < n->ndevices; j++) {
            const struct ht_mpi_split_device *dv = &n->devices[j];
            json_t *d = json_object();
            json_object_set_new(d, "index", json_integer((json_int_t)dv->device->index));
            json_object_set_new(d, "name", ht__json_string(dv->device->name));
            json_object_set_new(d, dv->usable ? "config" : "why",
                                ht__json_string(dv->usable ? dv->config : dv->why));
            json_array_append_new(devs, d);
        }
        json_object_set_new(o, "devices", devs);
        json_array_append_new(per, o);
    }
    json_object_set_new(root, "per_rank", per);
    json_object_set_new(root, "nodes_split", json_boolean(r->nodes_split));
    json_object_set_new(root, "nodes_decision", ht__json_string(r->decision));
    if (r->rounds) {
        json_t *rw = json_array();
        for (unsigned k = 0; k < r->rounds; k++)
            json_array_append_new(rw, json_real(r->round_wall_s[k]));
        json_object_set_new(root, "refine", json_pack("{s:I, s:o, s:I}", "rounds",
                                                      (json_int_t)r->rounds, "walls", rw,
                                                      "kept", (json_int_t)r->kept_round));
    }
    json_object_set_new(root, "bound_s", json_real(r->bound_s));
    json_object_set_new(root, "adjusted_s", json_real(r->adjusted_s));
    json_object_set_new(root, "wall_s", json_real(r->wall_s));
    json_object_set_new(root, "wall_min_s", json_real(r->wall_min_s));
    json_object_set_new(root, "runs", json_integer(r->runs));
    json_object_set_new(root, "keep_best", json_integer(r->keep_best));
    json_object_set_new(root, "efficiency", json_real(r->efficiency));
    json_object_set_new(root, "bound_min_s", json_real(r->bound_min_s));
    json_object_set_new(root, "efficiency_min", json_real(r->efficiency_min));
    json_object_set_new(root, "scattered_bytes", json_integer((json_int_t)r->scattered_bytes));
    json_object_set_new(root, "gathered_bytes", json_integer((json_int_t)r->gathered_bytes));
    json_object_set_new(root, "verified", r->verified < 0 ? json_null()
                                                           : json_boolean(r->verified));
    if (r->verified >= 0)
        json_object_set_new(root, "reference", ht__json_string(r->reference));
    if (r->verified == 0)
        json_object_set_new(root, "mismatch", ht__json_string(r->mismatch));
    return json_end(root, 9, text, err);
}

/* --- one call per result: what it shows and its exit status --- */

/* 130 when stopped, else on rank 0 1 when a model has no best configuration, else 0. */
static int tune_status(const struct ht_mpi_tune_result *r)
{
    if (r->stopped)
        return 130;
    for (size_t i = 0; r->rank == 0 && i < r->nmodels; i++)
        if (!r->models[i].has_best)
            return 1;
    return 0;
}

int ht_present_mpi_tune(const struct ht_spec *spec, const struct ht_mpi_tune_result *r,
                        int json, char **text, int *status, struct ht_error *err)
{
    if (!spec || !r || !text)
        return ht_error_set(err, HT_EINVAL, "ht_present_mpi_tune: %s is NULL",
                            !spec ? "spec" : !r ? "r" : "text");
    if (status)
        *status = tune_status(r);
    return json ? tune_json(spec, r, text, err) : tune_text(spec, r, text, err);
}

int ht_present_mpi_split(const struct ht_spec *spec, const struct ht_mpi_split_result *r,
                         int json, char **text, int *status, struct ht_error *err)
{
    if (!spec || !r || !text)
        return ht_error_set(err, HT_EINVAL, "ht_present_mpi_split: %s is NULL",
                            !spec ? "spec" : !r ? "r" : "text");
    if (status)
        *status = r->verified == 0 ? 3 : 0;
    return json ? split_json(spec, r, text, err) : split_text(spec, r, text, err);
}
