/* A tune's sink in the caller's memory (tune.h, ht_tune_sink_memory): the evaluations of
 * one problem on one device in the caller's array, for a program that tunes with no
 * database. */
#include <string.h>

#include "hetune/tune.h"
#include "util/util.h"

/* FNV-1a of a string with its NUL, so that "ab","c" and "a","bc" differ. */
static uint64_t fnv_text(uint64_t h, const char *s)
{
    return s ? ht__fnv1a(h, s, strlen(s) + 1) : ht__fnv1a(h, "", 1);
}

/* What the memory keeps apart, as the database's ids do (store.h): the kernel (its source,
 * name and options), the sizes and the parameters' names, and the device (its platform,
 * name, ordinal and driver). Never 0. */
static uint64_t problem_key(const struct ht_spec *spec, const struct ht_device_info *dev)
{
    const struct ht_space_def *sp = &spec->space;
    uint64_t h = HT__FNV_INIT;

    h = ht__fnv1a(h, spec->source ? spec->source : "", spec->source ? spec->source_len : 0);
    h = fnv_text(h, spec->kernel_name);
    h = fnv_text(h, spec->kernel_options);
    for (size_t i = 0; i < sp->nsizes; i++) {
        h = fnv_text(h, sp->size_names[i]);
        h = ht__fnv1a(h, &sp->size_values[i], sizeof sp->size_values[i]);
    }
    for (size_t i = 0; i < sp->nparams; i++)
        h = fnv_text(h, sp->params[i].name);
    h = fnv_text(h, dev->platform);
    h = fnv_text(h, dev->name);
    h = ht__fnv1a(h, &dev->ordinal, sizeof dev->ordinal);
    h = fnv_text(h, dev->driver_version);
    return h ? h : 1;
}

static int memory_identify(void *user, const struct ht_spec *spec,
                           const struct ht_device_info *dev, int64_t *problem_id,
                           int64_t *device_id, struct ht_error *err)
{
    struct ht_tune_memory *mem = user;
    uint64_t key = problem_key(spec, dev);

    if (mem->key && mem->key != key)
        return ht_error_set(err, HT_EINVAL,
                            "this memory keeps the evaluations of another problem or device "
                            "than '%s' on %s: give each its own",
                            spec->name ? spec->name : "the spec", dev->name);
    mem->key = key;
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
static int memory_put_step(void *user, int64_t run_id, const struct ht_stored_tune_step *step,
                           const struct ht_stored_eval *ev, struct ht_error *err)
{
    struct ht_tune_memory *mem = user;
    size_t i = 0;

    (void)run_id, (void)step;
    if (ev) {
        while (i < mem->count && strcmp(mem->evals[i].config, ev->config) != 0)
            i++;
        if (i < mem->count) {
            memmove(mem->evals + i, mem->evals + i + 1,
                    (mem->count - i - 1) * sizeof *mem->evals);
            mem->count--;
        } else if (mem->count >= mem->cap) {
            return ht_error_set(err, HT_ENOMEM,
                                "the tune's memory is full: it keeps %zu evaluations",
                                mem->cap);
        }
        mem->evals[mem->count++] = *ev;
    }
    mem->steps++;
    return HT_OK;
}

static const struct ht_tune_sink_ops memory_ops = {
    .identify = memory_identify,
    .forget = memory_forget,
    .put_space = memory_put_space,
    .list_evals = memory_list_evals,
    .put_run = memory_put_run,
    .put_step = memory_put_step,
};

void ht_tune_sink_memory(struct ht_tune_sink *sink, struct ht_tune_memory *mem)
{
    sink->ops = &memory_ops;
    sink->user = mem;
}
