/* The results database as a tune's sink (tune.h, ht_tune_sink_store): each op of the
 * tuner's one call, or two, of store.h. */
#include "hetune/tune.h"

/* Evaluations of a replay per transaction (ht_store_batch). */
#define REPLAY_GROUP 64

static int store_identify(void *user, const struct ht_spec *spec,
                          const struct ht_device_info *dev, int64_t *problem_id,
                          int64_t *device_id, struct ht_error *err)
{
    struct ht_store *store = user;
    int64_t kernel_id;
    int rc = ht_store_device_id(store, dev, device_id, err);

    if (rc == HT_OK)
        rc = ht_store_kernel_id(store, spec, &kernel_id, err);
    if (rc == HT_OK)
        rc = ht_store_problem_id(store, kernel_id, spec, problem_id, err);
    return rc;
}

static int store_forget(void *user, int64_t problem_id, int64_t device_id,
                        uint64_t *forgotten, struct ht_error *err)
{
    return ht_store_forget(user, problem_id, device_id, forgotten, err);
}

static int store_put_space(void *user, const struct ht_stored_space *sp, struct ht_error *err)
{
    return ht_store_put_space(user, sp, err);
}

static int store_list_evals(void *user, int64_t problem_id, int64_t device_id,
                            ht_store_eval_cb cb, void *cb_user, struct ht_error *err)
{
    return ht_store_list_evals(user, problem_id, device_id, cb, cb_user, err);
}

static int store_put_run(void *user, const struct ht_stored_tune_run *run, int64_t *run_id,
                         struct ht_error *err)
{
    return ht_store_put_tune_run(user, run, run_id, err);
}

/* The evaluation and its step in one transaction, for the price of one commit. */
static int store_put_step(void *user, int64_t run_id, const struct ht_stored_tune_step *step,
                          const struct ht_stored_eval *ev, struct ht_error *err)
{
    return ev ? ht_store_put_eval_step(user, ev, run_id, step, NULL, err)
              : ht_store_put_tune_step(user, run_id, step, err);
}

static int store_put_eval(void *user, const struct ht_stored_eval *ev, struct ht_error *err)
{
    return ht_store_put_eval(user, ev, NULL, err);
}

static int store_lease(void *user, int64_t device_id, double wait_s,
                       volatile sig_atomic_t *stop, struct ht_lease_info *holder,
                       struct ht_error *err)
{
    return ht_store_lease_device(user, device_id, wait_s, stop, holder, err);
}

static void store_release(void *user, int64_t device_id)
{
    ht_store_release_device(user, device_id, NULL);
}

/* A replay writes fast: what it stores can be replayed again, so its commits need not
 * wait for the disk, and come REPLAY_GROUP evaluations at a time (committed when the run
 * ends, stopped or failed; a replay killed outright loses the last group's, which a rerun
 * replays again). */
static int store_replaying(void *user, int on, struct ht_error *err)
{
    struct ht_store *store = user;
    int rc;

    if (on) {
        rc = ht_store_set_durable(store, 0, err);
        return rc == HT_OK ? ht_store_batch(store, REPLAY_GROUP, err) : rc;
    }
    rc = ht_store_batch(store, 0, err);
    ht_store_set_durable(store, 1, NULL);
    return rc;
}

static const struct ht_tune_sink_ops store_ops = {
    .identify = store_identify,
    .forget = store_forget,
    .put_space = store_put_space,
    .list_evals = store_list_evals,
    .put_run = store_put_run,
    .put_step = store_put_step,
    .lease = store_lease,
    .release = store_release,
    .replaying = store_replaying,
    .put_eval = store_put_eval,
};

void ht_tune_sink_store(struct ht_tune_sink *sink, struct ht_store *store)
{
    if (!sink)
        return;
    /* No store: a sink without ops, which a tune refuses (HT_EINVAL). */
    sink->ops = store ? &store_ops : NULL;
    sink->user = store;
}
