/* The JSON documents laid out by hand (workflow.h): `hetune space --json` keeps each
 * configuration on one line however many there are, `hetune plan --json` each device on
 * one line with every number to 17 digits, and `hetune report --json`. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/workflow.h"

/* Writes s as a JSON string literal (with quotes) to f. */
static void str(FILE *f, const char *s)
{
    if (!s) { /* a spec from memory has no path */
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (c < 0x20)
                fprintf(f, "\\u%04x", c);
            else
                fputc(c, f);
        }
    }
    fputc('"', f);
}

/* A size's text as a JSON number: without the "~" of an approximate one; null for one
 * past a double's range ("~inf"). */
static const char *number(const char *text)
{
    return strchr(text, 'n') ? "null" : text + (text[0] == '~');
}

/* Closes the memory stream f of *text: HT_OK, or HT_ENOMEM with *text freed and NULL. */
static int finish(FILE *f, char **text, struct ht_error *err)
{
    if (ferror(f) | fclose(f)) {
        free(*text);
        *text = NULL;
        return ht_error_set(err, HT_ENOMEM, "out of memory writing the JSON document");
    }
    return HT_OK;
}

/* One device's entry of the JSON output, written by hand so that a configuration stays
 * on one line however many there are. */
static void space_device(FILE *f, const struct ht_spec *spec, const struct ht_workflow_space *r,
                         const char *solver, int list, int last)
{
    const struct ht_space_counts *c = &r->counts;

    fprintf(f, "    {\n      \"device\": ");
    str(f, r->dev->name);
    fprintf(f, ",\n      \"index\": %zu,\n      \"platform_name\": ", r->dev->index);
    str(f, r->dev->platform);
    /* The sizes can pass 2^64 (the unpruned one is a product of domain sizes): their
     * exact decimal texts are JSON integers; a size past 2^128 is its rounded value,
     * "approximate" then true. */
    fprintf(f, ",\n      \"unpruned\": %s,\n      \"platform\": %s,\n      \"pruned\": %s"
           ",\n      \"approximate\": %s,\n      \"seconds\": %.9f,\n      \"solver\": ",
           number(c->unpruned_text), number(c->platform_text), number(c->pruned_text),
           c->approximate ? "true" : "false", c->seconds);
    str(f, solver);
    if (r->mzn_seconds >= 0)
        fprintf(f, ",\n      \"native_seconds\": %.9f,\n      \"minizinc_seconds\": %.9f",
               c->seconds, r->mzn_seconds);
    fprintf(f, ",\n      \"params\": [");
    for (size_t i = 0; i < spec->space.nparams; i++) {
        fprintf(f, "%s", i ? ", " : "");
        str(f, spec->space.params[i].name);
    }
    fprintf(f, "]");
    if (list) {
        fprintf(f, ",\n      \"configs\": [");
        ht_workflow_space_json_configs(f, r, "        ");
        fprintf(f, "%s]", c->pruned ? "\n      " : "");
    }
    fprintf(f, ",\n      \"empty_reason\": ");
    if (c->pruned == 0 && c->empty_reason[0])
        str(f, c->empty_reason);
    else
        fprintf(f, "null");
    fprintf(f, ",\n      \"last_constraint\": ");
    if (c->pruned == 0 && c->last_constraint[0])
        str(f, c->last_constraint);
    else
        fprintf(f, "null");
    fprintf(f, "\n    }%s\n", last ? "" : ",");
}

int ht_workflow_space_json(const struct ht_spec *spec, const char *solver, enum ht_eq3 eq3,
                           const struct ht_workflow_space *r, size_t n, int list, char **text,
                           struct ht_error *err)
{
    size_t size = 0;
    FILE *f = open_memstream(text, &size);

    if (!f)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    fprintf(f, "{\n  \"spec\": ");
    str(f, spec->name);
    fprintf(f, ",\n  \"spec_path\": ");
    str(f, spec->path);
    fprintf(f, ",\n  \"solver\": ");
    str(f, solver);
    fprintf(f, ",\n  \"eq3\": \"%s\",\n  \"devices\": [\n",
            eq3 == HT_EQ3_SUM ? "sum" : eq3 == HT_EQ3_OFF ? "off" : "product");
    for (size_t k = 0; k < n; k++)
        space_device(f, spec, &r[k], solver, list, k + 1 == n);
    fprintf(f, "  ]\n}");
    return finish(f, text, err);
}

int ht_workflow_plan_json(const struct ht_workflow_plan_result *r, const struct ht_split_bus *bus,
                          char *const *names, char **text, struct ht_error *err)
{
    const struct ht_split_plan *p = &r->plan;
    const struct ht_workflow_plan_result *bv = r->bus ? r : NULL;
    size_t size = 0;
    FILE *f = open_memstream(text, &size);

    if (!f)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    fprintf(f, "{\n  \"global\": %" PRIu64 ",\n  \"devices\": [", p->global);
    for (size_t i = 0; i < p->ndevices; i++) {
        const struct ht_split_slice *s = &p->slices[i];
        fprintf(f, "%s\n    {\"index\": %zu, ", i ? "," : "", i);
        if (names) {
            fprintf(f, "\"name\": ");
            str(f, names[i]);
            fprintf(f, ", ");
        }
        fprintf(f, "\"wg\": %" PRIu64 ", \"time\": %.17g, \"overhead\": %.17g, "
               "\"optimal_factor\": %.17g, "
               "\"adjusted_factor\": %.17g, \"slice_factor\": %.17g, \"gamma\": %.17g, "
               "\"offset\": %" PRIu64 ", \"size\": %" PRIu64 ", \"groups\": %" PRIu64
               ", \"extra_groups\": %" PRIu64 ", \"own_offset\": %" PRIu64
               ", \"own_size\": %" PRIu64,
               s->wg, s->time_s, s->overhead_s, s->optimal_factor, s->adjusted_factor,
               s->slice_factor,
               s->gamma, s->offset, s->size, s->groups, s->extra_groups, s->own_offset,
               s->own_size);
        if (bv) {
            const struct ht_split_bus *b = &bus[i];
            fprintf(f, ", \"kernel_time\": %.17g, \"kernel_overhead\": %.17g, \"xfer\": %.17g, "
                   "\"fixed\": %.17g, \"overlap\": %s, \"pieces\": %" PRIu64
                   ", \"busy_alone_s\": %.17g, \"busy_s\": %.17g, \"bound_share\": %.17g",
                   b->kernel_s, b->overhead_s, b->xfer_s, b->fixed_s,
                   b->overlap ? "true" : "false", b->pieces, s->time_s, s->model_s,
                   bv->shares[i]);
        }
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n  \"residue_device\": ");
    if (p->residue_device == SIZE_MAX)
        fprintf(f, "null");
    else
        fprintf(f, "%zu", p->residue_device);
    fprintf(f, ",\n  \"residue\": %" PRIu64 ",\n  \"overlap\": %" PRIu64
           ",\n  \"overhang\": %" PRIu64 ",\n  \"theoretical_time\": %.17g"
           ",\n  \"adjusted_time\": %.17g,\n  \"model_time\": %.17g",
           p->residue, p->overlap, p->overhang,
           bv ? bv->kernel_theoretical_s : p->theoretical_time_s, p->adjusted_time_s,
           p->model_time_s);
    if (bv)
        fprintf(f, ",\n  \"kernel_theoretical_time\": %.17g"
               ",\n  \"bus_bound_s\": %.17g,\n  \"decision\": {\"choice\": \"%s\", "
               "\"device\": %zu, \"alone_s\": %.17g, \"split_s\": %.17g, \"speedup\": %.17g, "
               "\"margin\": %.17g}",
               bv->kernel_theoretical_s, bv->bound_s,
               bv->dec.split ? "split" : "alone", bv->dec.fastest, bv->dec.alone_s,
               bv->dec.split_s, bv->dec.speedup, bv->margin);
    fprintf(f, "\n}");
    return finish(f, text, err);
}

int ht_workflow_report_json(const char *db, const char *out, const struct ht_report_result *res,
                            char **text, struct ht_error *err)
{
    size_t size = 0;
    FILE *f = open_memstream(text, &size);

    if (!f)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    fprintf(f, "{\n  \"db\": ");
    str(f, db);
    fprintf(f, ",\n  \"out\": ");
    str(f, out);
    fprintf(f, ",\n  \"report\": ");
    str(f, res->path);
    fprintf(f, ",\n  \"cases\": %zu,\n  \"devices\": %zu,\n  \"spaces\": %zu,\n"
            "  \"splits\": %zu,\n  \"sweeps\": %zu,\n  \"figures\": %zu,\n"
            "  \"pictures\": %s,\n  \"no_pictures\": ",
            res->cases, res->devices, res->spaces, res->splits, res->sweeps, res->figures,
            res->pictures ? "true" : "false");
    if (res->pictures)
        fprintf(f, "null");
    else
        str(f, res->no_pictures);
    fprintf(f, ",\n  \"tunings\": %zu,\n  \"runs\": %zu,\n  \"figure_names\": [",
            res->tunings, res->runs);
    /* The names without extension, as ht_report_result lists them ("..." where cut). */
    for (const char *p = res->figure_list; *p;) {
        size_t len = strcspn(p, "\n");
        char name[512];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        fprintf(f, "%s", p == res->figure_list ? "" : ", ");
        str(f, name);
        p += len + (p[len] == '\n');
    }
    fprintf(f, "]\n}");
    return finish(f, text, err);
}
