/* A tune's sink in the caller's memory (tune.h, ht_tune_sink_memory): the evaluations of
 * one problem on one device in the caller's array, for a program that tunes with no
 * database. */
#include <string.h>

#include "hetune/tune.h"
#include "util/util.h"

/* A text field of the key: its bytes, or none for NULL. */
static void key_text(struct ht__key *k, const char *s)
{
    ht__key_field(k, s ? s : "", s ? strlen(s) : 0);
}

/* What the memory keeps apart, as the database's ids do (store.h): the kernel (its source,
 * name and options), the sizes and the parameters' names, and the device (its platform,
 * name, ordinal and driver), as a 128-bit content key (util's ht__key, XXH3-128, one field
 * each): a collision would resume another problem's evaluations. */
static int problem_key(const struct ht_spec *spec, const struct ht_device_info *dev,
                       char key[33])
{
    const struct ht_space_def *sp = &spec->space;
    struct ht__key k;

    if (ht__key_init(&k) != HT_OK)
        return HT_ENOMEM;
    ht__key_field(&k, spec->source ? spec->source : "", spec->source ? spec->source_len : 0);
    key_text(&k, spec->kernel_name);
    key_text(&k, spec->kernel_options);
    for (size_t i = 0; i < sp->nsizes; i++) {
        key_text(&k, sp->size_names[i]);
        ht__key_field(&k, &sp->size_values[i], sizeof sp->size_values[i]);
    }
    for (size_t i = 0; i < sp->nparams; i++)
        key_text(&k, sp->params[i].name);
    key_text(&k, dev->platform);
    key_text(&k, dev->name);
    ht__key_field(&k, &dev->ordinal, sizeof dev->ordinal);
    key_text(&k, dev->driver_version);
    ht__key_hex(&k, key);
    return HT_OK;
}

static int memory_identify(void *user, const struct ht_spec *spec,
                           const struct ht_device_info *dev, int64_t *problem_id,
                           int64_t *device_id, struct ht_error *err)
{
    struct ht_tune_memory *mem = user;
    char key[33];

    if (problem_key(spec, dev, key) != HT_OK)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    if (mem->key[0] && strcmp(mem->key, key) != 0)
        return ht_error_set(err, HT_EINVAL,
                            "this memory keeps the evaluations of another problem or device "
                            "than '%s' on %s: give each its own",
                            spec->name ? spec->name : "the spec", dev->name);
    memcpy(mem->key, key, sizeof key);
    *problem_id = 1;
    *device_id = 1;
    return HT_OK;
}

static int memory_forget(void *user, int64_t problem_id, int64_t device_id,
                         uint64_t *forgotten, struct ht_error *err)
{
    struct ht_tune_memory *mem = user;

    (void)problem_id, (void)device_id, (void)err;
    *forgotten = mem->count;
    mem->count = 0;
    return HT_OK;
}

static int memory_put_space(void *user, const struct ht_stored_space *sp, struct ht_error *err)
{
    (void)err;
    ((struct ht_tune_memory *)user)->space = *sp;
    return HT_OK;
}

static int memory_list_evals(void *user, int64_t problem_id, int64_t device_id,
                             ht_store_eval_cb cb, void *cb_user, struct ht_error *err)
{
    const struct ht_tune_memory *mem = user;

    (void)problem_id, (void)device_id, (void)err;
    for (size_t i = 0; i < mem->count; i++)
        if (cb(&mem->evals[i], cb_user))
            break;
    return HT_OK;
}

static int memory_put_run(void *user, const struct ht_stored_tune_run *run, int64_t *run_id,
                          struct ht_error *err)
{
    struct ht_tune_memory *mem = user;

    (void)run, (void)err;
    *run_id = (int64_t)++mem->runs;
    return HT_OK;
}

/* As the database does, an evaluation of a configuration kept before replaces it, and
 * comes last. */
static int memory_keep(struct ht_tune_memory *mem, const struct ht_stored_eval *ev,
                       struct ht_error *err)
{
    size_t i = 0;

    while (i < mem->count && strcmp(mem->evals[i].config, ev->config) != 0)
        i++;
    if (i < mem->count) {
        memmove(mem->evals + i, mem->evals + i + 1, (mem->count - i - 1) * sizeof *mem->evals);
        mem->count--;
    } else if (mem->count >= mem->cap) {
        return ht_error_set(err, HT_ENOMEM,
                            "the tune's memory is full: it keeps %zu evaluations", mem->cap);
    }
    mem->evals[mem->count++] = *ev;
    return HT_OK;
}

static int memory_put_step(void *user, int64_t run_id, const struct ht_stored_tune_step *step,
                           const struct ht_stored_eval *ev, struct ht_error *err)
{
    struct ht_tune_memory *mem = user;
    int rc = ev ? memory_keep(mem, ev, err) : HT_OK;

    (void)run_id, (void)step;
    if (rc == HT_OK)
        mem->steps++;
    return rc;
}

static int memory_put_eval(void *user, const struct ht_stored_eval *ev, struct ht_error *err)
{
    return memory_keep(user, ev, err);
}

static const struct ht_tune_sink_ops memory_ops = {
    .identify = memory_identify,
    .forget = memory_forget,
    .put_space = memory_put_space,
    .list_evals = memory_list_evals,
    .put_run = memory_put_run,
    .put_step = memory_put_step,
    .put_eval = memory_put_eval,
};

void ht_tune_sink_memory(struct ht_tune_sink *sink, struct ht_tune_memory *mem)
{
    if (!sink)
        return;
    /* No memory: a sink without ops, which a tune refuses (HT_EINVAL). */
    sink->ops = mem ? &memory_ops : NULL;
    sink->user = mem;
}
