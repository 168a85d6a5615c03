/* The split-or-alone decision over one machine's devices (coexec/coexec.h): the
 * runtime's at ht_runtime_open, and each node's of a split over MPI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coexec-internal.h"

int ht__store_link(struct ht_store *store, const struct ht_device_info *dev,
                   enum ht_data_path asked, struct ht_bandwidth *bw)
{
    int64_t dev_id;

    return ht_store_device_id(store, dev, &dev_id, NULL) == HT_OK &&
           ht_store_get_bandwidth(store, dev_id, bw, NULL) == HT_OK &&
           bw->path == ht_data_path_resolve(asked, dev);
}

/* This machine's host memory rates stored in store into *hm: 1 when some are, else 0
 * (*hm zeroed). */
static int stored_host_memory(struct ht_store *store, struct ht_host_memory *hm)
{
    if (ht_store_get_host_memory(store, hm, NULL) == HT_OK)
        return 1;
    memset(hm, 0, sizeof *hm);
    return 0;
}

int ht__coexec_measure_alone(const struct ht_spec *spec, struct ht_workflow_device *d,
                             const struct ht_coexec_opts *base, const struct ht__handover *on,
                             struct ht_coexec **cx, struct ht_coexec_result *res,
                             struct ht_error *err)
{
    struct ht_coexec_device cd = {d->dev, d->config, d->tuned_s, 0};
    struct ht_coexec_opts o = *base;
    int rc;

    *cx = NULL;
    o.scheduler = NULL; /* the default: the planned scheduler's one slice, the whole work */
    memset(&o.sched, 0, sizeof o.sched); /* every default (split.h) */
    rc = ht__coexec_create(spec, &cd, 1, &o, cx, err);
    if (rc == HT_OK && on)
        rc = ht__coexec_bind_all(*cx, on->bound, on->bytes, on->nargs, err);
    if (rc == HT_OK)
        rc = ht__coexec_run(*cx, res, err);
    if (rc != HT_OK) {
        ht__coexec_free(*cx);
        *cx = NULL;
        return rc;
    }
    d->alone.kernel_s = res->devices[0].kernel_s;
    d->alone.write_s = res->devices[0].write_s;
    d->alone.read_s = res->devices[0].read_s;
    d->alone.wall_s = res->wall_s;
    return HT_OK;
}

void ht__decision_destroy(struct ht__decision *d)
{
    if (!d)
        return;
    ht__coexec_free(d->cx);
    free(d->idx);
    if (d->has_res)
        ht_coexec_result_destroy(&d->res);
    ht_coexec_result_destroy(&d->verdict.res);
    ht_coexec_result_destroy(&d->last);
    ht_split_plan_destroy(&d->plan);
    free(d->model_s);
    for (size_t i = 0; d->alone_cx && i < d->nalone; i++)
        ht__coexec_free(d->alone_cx[i]);
    for (size_t i = 0; d->alone_res && i < d->nalone; i++)
        ht_coexec_result_destroy(&d->alone_res[i]);
    free(d->alone_cx);
    free(d->alone_res);
    free(d->alone);
    free(d->basis.links);
    free(d->basis.link);
    free(d->basis.written);
    memset(d, 0, sizeof *d);
}

int ht__store_rates(struct ht_store *store, const struct ht_workflow_device *devs, size_t n,
                    enum ht_data_path asked, struct ht_bandwidth *links,
                    const struct ht_bandwidth **link, struct ht_host_memory *host)
{
    for (size_t i = 0; i < n; i++)
        link[i] = ht__store_link(store, devs[i].dev, asked, &links[i]) ? &links[i] : NULL;
    return stored_host_memory(store, host);
}

/* Gives cx (over k devices, its device i being idx[i] of bw's; idx NULL: i) each one's
 * link bw[idx[i]] (bw NULL: none) and the host memory's rates host (NULL: none): the bus
 * models then turn bytes into seconds at each device's measured rates. strict 0: a link
 * or rates it refuses are left out, not an error (`hetune split` read them from its
 * database and went on). */
static int set_rates(struct ht_coexec *cx, const size_t *idx, size_t k,
                     const struct ht_bandwidth *const *bw, const struct ht_host_memory *host,
                     int strict, struct ht_error *err)
{
    int rc = HT_OK;

    for (size_t i = 0; rc == HT_OK && bw && i < k; i++)
        if (bw[idx ? idx[i] : i]) {
            int r = ht__coexec_set_bandwidth(cx, i, bw[idx ? idx[i] : i], strict ? err : NULL);
            rc = strict ? r : HT_OK;
        }
    if (rc == HT_OK && host) {
        int r = ht__coexec_set_host_memory(cx, host, strict ? err : NULL);
        rc = strict ? r : HT_OK;
    }
    return rc;
}

/* Makes *cx over devs[idx[0..k)) (their configurations and tuned times; idx NULL: the
 * first k) with opts. */
static int make_over(const struct ht_spec *spec, const struct ht_workflow_device *devs,
                     const size_t *idx, size_t k, const struct ht_coexec_opts *opts,
                     struct ht_coexec **cx, struct ht_error *err)
{
    struct ht_coexec_device *cd = calloc(k ? k : 1, sizeof *cd);
    int rc;

    if (!cd)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < k; i++) {
        const struct ht_workflow_device *d = &devs[idx ? idx[i] : i];
        cd[i].dev = d->dev;
        cd[i].config = d->config;
        cd[i].time_s = d->tuned_s;
    }
    rc = ht__coexec_create(spec, cd, k, opts, cx, err);
    free(cd);
    return rc;
}

/* Makes out->cx over in->devs[idx[0..k)) (their configurations, tuned times and links). */
static int make_cx(const struct ht__decide_in *in, const size_t *idx, size_t k,
                   struct ht__decision *out, struct ht_error *err)
{
    int rc;

    out->idx = calloc(k, sizeof *out->idx);
    if (!out->idx)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    memcpy(out->idx, idx, k * sizeof *idx);
    out->ncx = k;
    rc = make_over(in->spec, in->devs, idx, k, in->copts, &out->cx, err);
    if (rc == HT_OK && in->measure_bound)
        rc = ht__coexec_bind_all(out->cx, in->from->bound, in->from->bytes, in->from->nargs,
                                 err);
    return rc == HT_OK ? set_rates(out->cx, idx, k, in->bw, in->host, 1, err) : rc;
}

/* ht__decide with in->alone (`hetune split` and `run`): the co-execution over every
 * device, made with the links and host memory rates in->store holds, judged by the rule
 * from the runs alone the caller measured; out->cx stays the split whatever the verdict. */
static int decide_given(const struct ht__decide_in *in, struct ht__decision *out,
                        struct ht_error *err)
{
    size_t n = in->n;
    struct ht_bandwidth *links = calloc(n ? n : 1, sizeof *links);
    const struct ht_bandwidth **link = calloc(n ? n : 1, sizeof *link);
    struct ht__rule rule = {in->mode == HT__DECIDE_SPLIT, in->paper_plan, 1};
    struct ht_host_memory hm;
    int rc, has_host;

    if (!links || !link) {
        free(links);
        free(link);
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    out->ncx = n;
    rc = make_over(in->spec, in->devs, NULL, n, in->copts, &out->cx, err);
    if (rc == HT_OK) {
        has_host = ht__store_rates(in->store, in->devs, n, in->copts->exec.data_path, links,
                                   link, &hm);
        set_rates(out->cx, NULL, n, link, has_host ? &hm : NULL, 0, NULL);
        rc = ht__decide_split(out->cx, in->alone, n, &rule, &out->verdict, err);
    }
    if (rc == HT_OK) {
        out->model_s = calloc(2 * (n ? n : 1), sizeof *out->model_s);
        if (out->model_s)
            ht__coexec_models(out->cx, out->model_s);
        else
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
    }
    out->fastest = out->verdict.fastest;
    out->split = out->verdict.measured && out->verdict.keep;
    free(links);
    free(link);
    return rc;
}

/* 1: cx's split may run the bus plan (its scheduler plans every chunk up front: static;
 * the paper's plan not asked). */
static int bus_plannable(const struct ht_coexec *cx, int paper_plan)
{
    return !paper_plan &&
           cx->sched_ops->kind == HT_SPLIT_SCHED_PLANNED;
}

int ht__decide_split(struct ht_coexec *cx, const struct ht_coexec_alone *alone, size_t n,
                     const struct ht__rule *rule, struct ht__verdict *v,
                     struct ht_error *err)
{
    int rc;

    memset(v, 0, sizeof *v);
    v->paper_s[0] = v->paper_s[1] = -1;
    for (size_t i = 1; i < n; i++)
        if (alone[i].wall_s < alone[v->fastest].wall_s)
            v->fastest = i;
    v->keep_s = alone[v->fastest].wall_s;
    if (n > 1) {
        rc = ht__coexec_estimate(cx, alone, &v->est, rule->unpredicted ? NULL : err);
        if (rc != HT_OK && !rule->unpredicted)
            return rc;
        v->has_est = rc == HT_OK;
    }
    if (v->has_est) {
        v->fastest = v->est.fastest;
        v->keep_s = v->est.keep_s;
        /* Predicted slower than the fastest alone: that device alone, unless forced. */
        if (!v->est.worth_it && !v->est.check && !rule->forced)
            return HT_OK;
        /* The split runs the plan the estimate predicted: the bus plan. Algorithm 1 stays
         * the paper's figure, from the tuned times. */
        if (bus_plannable(cx, rule->paper_plan)) {
            v->paper_s[0] = ht__coexec_plan(cx)->theoretical_time_s;
            v->paper_s[1] = ht__coexec_plan(cx)->adjusted_time_s;
            rc = ht__coexec_plan_bus(cx, alone, err);
            if (rc != HT_OK)
                return rc;
            v->bus_plan = 1;
        }
    }
    /* Measured once, as the devices were alone, since what they share when they run
     * together (host memory, cores) is not in the prediction: slower than keep_s (the
     * fastest alone; by the margin when predicted faster within it), that device runs
     * alone unless forced. */
    rc = ht__coexec_run(cx, &v->res, err);
    if (rc != HT_OK)
        return rc;
    v->measured = 1;
    v->keep = ht__decide_measured(&(struct ht__measured){
                  .forced = rule->forced || n == 1, .split_s = v->res.wall_s,
                  .keep_s = v->keep_s, .fastest = v->fastest, .only = SIZE_MAX}) == SIZE_MAX;
    return HT_OK;
}

size_t ht__decide_measured(const struct ht__measured *m)
{
    if (m->forced)
        return SIZE_MAX;
    if (!(m->split_s <= m->keep_s))
        return m->fastest;
    return m->only;
}

/* The words of a measured decision. */
static void say(const struct ht__decide_in *in, const struct ht_coexec_estimate *est,
                struct ht__decision *out)
{
    size_t fi = in->devs[out->fastest].dev->index;

    if (out->split)
        snprintf(out->text, sizeof out->text,
                 "%s over %zu devices: predicted %.6g s, measured %.6g s, device %zu alone "
                 "%.6g s", in->mode == HT__DECIDE_SPLIT ? "split as asked" : "split", in->n,
                 est->split_s, out->measured_split_s, fi, est->alone_s);
    else if (out->measured_split_s > 0 && est->check)
        snprintf(out->text, sizeof out->text,
                 "device %zu alone: splitting is predicted at %.6g s, not %g%% faster than it "
                 "alone (%.6g s, the margin); measured at %.6g s, not so either", fi,
                 est->split_s, 100 * in->copts->margin, est->alone_s, out->measured_split_s);
    else if (out->measured_split_s > 0)
        snprintf(out->text, sizeof out->text,
                 "device %zu alone: the split measured %.6g s, longer than it alone (%.6g s)",
                 fi, out->measured_split_s, est->alone_s);
    else
        snprintf(out->text, sizeof out->text,
                 "device %zu alone: splitting is predicted at %.6g s, not %g%% faster than it "
                 "alone (%.6g s, the margin)", fi, est->split_s, 100 * in->copts->margin,
                 est->alone_s);
}

/* Each device of in->devs alone with the co-execution's clock (opts), into cx[i], res[i]
 * and alone[i] (in->devs[i].alone too), *fastest (may be NULL; 0 first) the fastest by
 * wall time so far, in->runs told after each; stops at the first error. */
static int measure_all(const struct ht__decide_in *in, const struct ht_coexec_opts *opts,
                       struct ht_coexec **cx, struct ht_coexec_result *res,
                       struct ht_coexec_alone *alone, size_t *fastest, struct ht_error *err)
{
    for (size_t i = 0; i < in->n; i++) {
        int rc = ht__coexec_measure_alone(in->spec, &in->devs[i], opts,
                                          in->measure_bound ? in->from : NULL, &cx[i], &res[i],
                                          err);
        if (rc != HT_OK)
            return rc;
        alone[i] = in->devs[i].alone;
        if (fastest && alone[i].wall_s < alone[*fastest].wall_s)
            *fastest = i;
        if (in->runs && in->runs->on_step)
            in->runs->on_step("devices alone", in->runs->user);
    }
    return HT_OK;
}

/* ht__decide with in->runs: every device's run alone, kept in out. */
static int measure_runs(const struct ht__decide_in *in, struct ht__decision *out,
                        struct ht_error *err)
{
    out->nalone = in->n;
    out->alone = calloc(in->n, sizeof *out->alone);
    out->alone_cx = calloc(in->n, sizeof *out->alone_cx);
    out->alone_res = calloc(in->n, sizeof *out->alone_res);
    if (!out->alone || !out->alone_cx || !out->alone_res)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    return measure_all(in, in->alone_opts, out->alone_cx, out->alone_res, out->alone,
                       &out->fastest, err);
}

static int decide_once(const struct ht__decide_in *in, struct ht__decision *out,
                       struct ht_error *err)
{
    struct ht_coexec **alone_cx = NULL;
    struct ht_coexec_result *alone_res = NULL;
    struct ht_coexec_alone *alone = NULL;
    struct ht_coexec_estimate est;
    struct ht__verdict v;
    size_t n = in->n, *all = NULL, fastest = 0;
    int forced = in->mode == HT__DECIDE_SPLIT, rc = HT_OK;
    struct ht_device_locks locks = {0};

    memset(out, 0, sizeof *out);
    memset(&v, 0, sizeof v);
    out->predicted_split_s = out->predicted_alone_s = out->measured_split_s = -1;
    if (n == 0)
        return ht_error_set(err, HT_EINVAL, "no device to decide over");
    for (size_t i = 1; i < n; i++)
        if (in->devs[i].tuned_s < in->devs[fastest].tuned_s)
            fastest = i;
    out->fastest = fastest;
    if (n == 1 || in->mode == HT__DECIDE_ALONE) {
        snprintf(out->text, sizeof out->text,
                 n == 1 ? "one device: nothing to split"
                        : "alone as asked: device %zu has the shortest tuned time",
                 in->devs[fastest].dev->index);
        return make_cx(in, &fastest, 1, out, err);
    }
    all = calloc(n, sizeof *all);
    if (!all)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        all[i] = i;
    if (forced && !in->measure_forced) {
        size_t links = 0;
        int ran = in->plan_alone;
        snprintf(out->text, sizeof out->text, "split as asked, over %zu devices", n);
        out->split = 1;
        rc = make_cx(in, all, n, out, err);
        for (size_t i = 0; in->bw && i < n; i++)
            links += in->bw[i] != NULL;
        for (size_t i = 0; i < n; i++) {
            if (!(in->devs[i].tuned_s > 0))
                links = 0; /* a device without a time: the paper's plan copes, the bus's not */
            if (!(in->devs[i].alone.wall_s > 0))
                ran = 0;
        }
        /* Unmeasured, the plan still counts what each device moves: the bus plan, from the
         * runs alone an earlier decision measured when asked (in->plan_alone: the plan that
         * decision's split ran, ht__decide_split's estimate changing nothing of cx), else
         * from the tuned kernel times and the stored links (the kernel-only plan gave a CPU
         * 3.5% of vecadd beside an H100 whose transfers take 20 times its kernel). */
        if (rc == HT_OK && (ran || links) && bus_plannable(out->cx, in->paper_plan)) {
            alone = calloc(n, sizeof *alone);
            if (!alone)
                rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            for (size_t i = 0; rc == HT_OK && i < n; i++) {
                if (ran)
                    alone[i] = in->devs[i].alone;
                else
                    alone[i].kernel_s = in->devs[i].tuned_s; /* wall 0: unmeasured */
            }
            if (rc == HT_OK)
                rc = ht__coexec_plan_bus(out->cx, alone, err);
            if (rc == HT_OK && ran)
                snprintf(out->text, sizeof out->text,
                         "split over %zu devices, unmeasured: the bus plan from their runs "
                         "alone measured before", n);
            else if (rc == HT_OK)
                snprintf(out->text, sizeof out->text,
                         "split as asked, over %zu devices: the bus plan from the tuned "
                         "times and the stored links of %zu of them", n, links);
            free(alone);
        }
        free(all);
        return rc;
    }

    /* Measure every device alone with the co-execution's clock, then predict; no other
     * process measures these devices meanwhile. */
    {
        const struct ht_device_info **devs = calloc(n, sizeof *devs);
        if (!devs) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto done;
        }
        struct ht_device_wait wait = { in->stop, in->on_wait, in->wait_user };
        for (size_t i = 0; i < n; i++)
            devs[i] = in->devs[i].dev;
        rc = ht_device_locks_take(devs, n, &wait, &locks, in->load, err);
        free(devs);
        if (rc != HT_OK)
            goto done;
    }
    alone_cx = calloc(n, sizeof *alone_cx);
    alone_res = calloc(n, sizeof *alone_res);
    alone = calloc(n, sizeof *alone);
    if (!alone_cx || !alone_res || !alone) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto done;
    }
    rc = measure_all(in, in->alone_opts, alone_cx, alone_res, alone, NULL, err);
    out->on_bound = rc == HT_OK && in->measure_bound;
    if (rc == HT_OK)
        rc = make_cx(in, all, n, out, err);
    if (rc == HT_OK)
        rc = ht__decide_split(out->cx, alone, n, &(struct ht__rule){forced, in->paper_plan, 0},
                              &v, err);
    if (rc != HT_OK)
        goto done;
    est = v.est;
    out->fastest = fastest = v.fastest;
    out->predicted_split_s = est.split_s;
    out->predicted_alone_s = est.alone_s;
    if (v.measured) {
        out->res = v.res;
        memset(&v.res, 0, sizeof v.res);
        out->has_res = 1;
        out->measured_split_s = out->res.wall_s;
        out->split = v.keep;
    }
    say(in, &est, out);
    if (!out->split) {
        /* Its co-execution alone and its run are ready: keep them, free the split. */
        if (out->has_res)
            ht_coexec_result_destroy(&out->res);
        out->res = alone_res[fastest];
        memset(&alone_res[fastest], 0, sizeof alone_res[fastest]);
        out->has_res = 1;
        ht__coexec_free(out->cx);
        out->cx = alone_cx[fastest];
        alone_cx[fastest] = NULL;
        out->idx[0] = fastest;
        out->ncx = 1;
    }
done:
    ht_coexec_result_destroy(&v.res);
    ht_device_locks_release(&locks, in->load);
    for (size_t i = 0; alone_cx && i < n; i++)
        ht__coexec_free(alone_cx[i]);
    for (size_t i = 0; alone_res && i < n; i++)
        ht_coexec_result_destroy(&alone_res[i]);
    free(alone_cx);
    free(alone_res);
    free(alone);
    free(all);
    return rc;
}

/* ht__decide with in->read (the runtime when it opens): what its decisions are made from,
 * into *b: each device's stored link and the host memory's rates, then, when it may split,
 * the written buffers without "index". */
static int read_basis(const struct ht__decide_in *in, struct ht__basis *b,
                      struct ht_error *err)
{
    const struct ht__read *r = in->read;
    struct ht__written got;
    struct ht_error why;
    int rc;

    b->links = calloc(in->n ? in->n : 1, sizeof *b->links);
    b->link = calloc(in->n ? in->n : 1, sizeof *b->link);
    if (!b->links || !b->link)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    b->has_host = ht__store_rates(r->store, in->devs, in->n, r->path, b->links, b->link,
                                  &b->host);
    if (!r->infer)
        return HT_OK;
    ht_error_clear(&why);
    rc = ht__written_infer(&(struct ht__written_in){
                               .spec = in->spec, .store = r->store,
                               .problem_id = r->problem_id, .devs = in->devs, .n = in->n,
                               .dim = r->dim, .exec = r->exec, .on_note = r->on_note,
                               .user = r->user, .devices_are = r->devices_are},
                           &got, &why);
    if (rc == HT_ESPEC && r->may_alone) {
        /* Never split: the probe's words say why. */
        if (r->on_note)
            r->on_note(why.text, r->user);
        b->unsplittable = 1;
        return HT_OK;
    }
    if (rc != HT_OK) {
        if (err)
            *err = why;
        return rc;
    }
    b->written = got.written;
    b->probed = got.probed;
    b->stored = got.stored;
    return HT_OK;
}

/* 1 when buffer a of spec is bound in f, not a temporary. */
static int is_bound(const struct ht_spec *spec, const struct ht__handover *f, size_t a)
{
    return spec->args[a].is_buffer && spec->args[a].access != HT_ACCESS_TEMP && f->bound[a];
}

/* 1 when the runs of a decision may go on f's arrays: every buffer of spec is bound and no
 * written one overlaps another (a run would change what another reads). */
static int measurable_on(const struct ht_spec *spec, const struct ht__handover *f)
{
    if (f->nargs != spec->nargs)
        return 0;
    for (size_t a = 0; a < spec->nargs; a++) {
        const struct ht_arg *arg = &spec->args[a];
        if (!arg->is_buffer || arg->access == HT_ACCESS_TEMP)
            continue;
        if (!f->bound[a])
            return 0;
        for (size_t b = 0; arg->access != HT_ACCESS_READ && b < spec->nargs; b++) {
            const char *p = f->bound[a], *q = f->bound[b];
            if (b != a && is_bound(spec, f, b) && p < q + f->bytes[b] && q < p + f->bytes[a])
                return 0;
        }
    }
    return 1;
}

/* Copies of f's arrays that the kernel reads and writes, nargs entries (NULL for the
 * others), so that runs on them can be undone (restore_read_written); *out NULL when none
 * is. HT_ENOMEM, nothing kept. */
static int save_read_written(const struct ht_spec *spec, const struct ht__handover *f,
                             void ***out, struct ht_error *err)
{
    void **saved = NULL;

    *out = NULL;
    for (size_t a = 0; a < spec->nargs; a++) {
        if (!is_bound(spec, f, a) || spec->args[a].access != HT_ACCESS_READWRITE)
            continue;
        if (!saved && !(saved = calloc(spec->nargs, sizeof *saved)))
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        saved[a] = malloc(f->bytes[a] ? f->bytes[a] : 1);
        if (!saved[a]) {
            for (size_t b = 0; b < a; b++)
                free(saved[b]);
            free(saved);
            return ht_error_set(err, HT_ENOMEM, "out of memory");
        }
        memcpy(saved[a], f->bound[a], f->bytes[a]);
    }
    *out = saved;
    return HT_OK;
}

/* Puts back what save_read_written kept and frees it. */
static void restore_read_written(const struct ht__handover *f, void **saved)
{
    for (size_t a = 0; saved && a < f->nargs; a++)
        if (saved[a]) {
            memcpy(f->bound[a], saved[a], f->bytes[a]);
            free(saved[a]);
        }
    free(saved);
}

/* ht__decide with in->program (the runtime's decisions): its options made from it and its
 * prev's basis, which out takes over with prev's last run. */
static int decide_program(const struct ht__decide_in *in, struct ht__decision *out,
                          struct ht_error *err)
{
    const struct ht__program *p = in->program;
    struct ht__decision *prev = p->prev;
    const struct ht__basis *b = &prev->basis;
    struct ht_coexec_opts so, mo;
    struct ht__decide_in pi = *in;
    void **saved = NULL;
    int rc;

    ht__coexec_opts_init(&so);
    so.dim = p->dim;
    so.exec = *p->exec;
    so.sched.residue = p->residue;
    so.written = b->written;
    so.cpu_units = p->cpu_units;
    so.memory = p->memory;
    mo = so;
    mo.repeats = p->measure_repeats ? p->measure_repeats : 3;
    mo.keep_best = mo.repeats < 2 ? 1 : mo.repeats / 2 + 1;
    pi.program = NULL;
    pi.copts = &so;
    pi.alone_opts = &mo;
    /* The links were measured on the data path's own memory: they model it, and an
     * unmeasured split (mode SPLIT) on any memory. Measured on a program's memory, what
     * its transfers took alone is the better model. */
    pi.bw = p->memory == HT_COEXEC_MEM_OWN || in->mode == HT__DECIDE_SPLIT ? b->link : NULL;
    pi.host = b->has_host ? &b->host : NULL;
    if (b->unsplittable)
        pi.mode = HT__DECIDE_ALONE;
    if (p->again) {
        /* The split again, unmeasured (the watch's return): made with the links the
         * decision that split had (pi.bw above, by in->mode) and planned by its runs
         * alone, which in->devs keep. */
        pi.mode = HT__DECIDE_SPLIT;
        pi.measure_forced = 0;
        pi.plan_alone = 1;
    }
    if (p->only < in->n) {
        /* That device alone, unmeasured (the watch's fallback). */
        pi.devs = &in->devs[p->only];
        pi.n = 1;
        pi.bw = NULL;
        pi.mode = HT__DECIDE_ALONE;
    }
    /* Unmeasured and handed the program's arrays (a launch's decision in mode SPLIT or
     * ALONE, the watch's switches): no host data of its own. Filling it cost 50 ms of a
     * switch's 60 on two PoCL devices at 2^22 elements, and grows with the arrays. */
    if (in->from && pi.mode != HT__DECIDE_AUTO && !pi.measure_forced && !in->run_chosen)
        so.bind_only = 1;
    /* Measured and handed the program's arrays, every buffer bound: each device alone and
     * the split are measured on those arrays, the memory the launches will run on, and
     * hold no host data of their own. Filling and freeing their own (three copies of the
     * problem's arrays for CPU + GPU) made the first launch after binding malloc arrays of
     * vecadd 2^26 take 3.6-5.9 s on the H200 machine. An array both read and written is
     * copied first and put back after (the runs change it); one written over another that
     * is bound, or no room for the copies: data of its own, as before. */
    else if (in->from && !in->run_chosen && measurable_on(in->spec, in->from) &&
             save_read_written(in->spec, in->from, &saved, NULL) == HT_OK) {
        so.bind_only = mo.bind_only = 1;
        pi.measure_bound = 1;
    }
    rc = ht__decide(&pi, out, err);
    if (pi.measure_bound)
        restore_read_written(in->from, saved);
    if (rc != HT_OK)
        return rc;
    if (p->only < in->n)
        out->idx[0] = p->only;
    if (in->from && in->from->cx == prev->cx)
        prev->cx = NULL; /* freed by the hand-over */
    out->basis = prev->basis;
    memset(&prev->basis, 0, sizeof prev->basis);
    out->last = prev->last; /* the last launch stays the runtime's last */
    memset(&prev->last, 0, sizeof prev->last);
    return HT_OK;
}

int ht__decide(const struct ht__decide_in *in, struct ht__decision *out, struct ht_error *err)
{
    const struct ht__handover *f = in->from;
    int rc;

    if (in->read) {
        memset(out, 0, sizeof *out);
        return read_basis(in, &out->basis, err);
    }
    if (in->program)
        return decide_program(in, out, err);
    if (in->runs) {
        memset(out, 0, sizeof *out);
        return measure_runs(in, out, err);
    }

    if (in->measured) {
        size_t alone = ht__decide_measured(in->measured);
        memset(out, 0, sizeof *out);
        out->split = alone == SIZE_MAX;
        out->fastest = alone;
        return HT_OK;
    }
    if (in->alone) {
        memset(out, 0, sizeof *out);
        rc = decide_given(in, out, err);
    } else {
        rc = decide_once(in, out, err);
    }
    /* What was chosen, measured on the whole problem when the decision did not (a node's
     * speed over MPI); the devices' locks are given back by then. */
    if (rc == HT_OK && in->run_chosen && !out->has_res)
        out->has_res = (rc = ht__coexec_run(out->cx, &out->res, err)) == HT_OK;
    if (rc == HT_OK && ht__coexec_plan(out->cx)) {
        rc = ht__coexec_plan_copy(&out->plan, ht__coexec_plan(out->cx), err);
        out->has_plan = rc == HT_OK;
    }
    if (rc == HT_OK && f)
        rc = ht__coexec_hand_over(out->cx, f->cx, f->bound, f->bytes, f->nargs, f->pin_err,
                                  err);
    if (rc == HT_OK && out->cx)
        out->bound = ht__coexec_memory_bound(out->cx);
    return rc;
}
