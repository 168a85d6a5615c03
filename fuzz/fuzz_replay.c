/* hetune — fuzz target: the reader of recorded spaces (hetune tune --replay:
 * ht_recording_load), a T4 results file or a Kernel Tuner cache file, plain or gzip'd,
 * written to a file as the reader reads one; a recording that loads is bound to the spec of
 * tests/fixtures/replay/stencil.T1.json's space and every configuration of that space is
 * looked up and evaluated from it, as a replayed tune does. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "hetune/spec.h"
#include "hetune/tune.h"
#include "tune/tune-internal.h"

static const char spec_json[] =
    "{\"name\": \"stencil\", \"kernel\": {\"name\": \"k\"}, \"sizes\": {\"N\": 4096},"
    " \"ndrange\": {\"global\": [\"N\"], \"local\": [\"block_size_x\"]},"
    " \"params\": {\"block_size_x\": {\"values\": [16, 32, 64, 128]},"
    "  \"block_size_y\": {\"values\": [1, 2, 4, 8]}, \"tile\": {\"values\": [1, 2, 3]},"
    "  \"use_shmem\": {\"values\": [0, 1]}},"
    " \"args\": [{\"name\": \"a\", \"type\": \"float\", \"shape\": [\"N\"], \"access\": \"write\","
    "  \"index\": [\"gx\"]}]}";
static const char source[] = "__kernel void k(__global float *a) { a[get_global_id(0)] = 0; }\n";

static struct ht_spec *stencil(void)
{
    static struct ht_spec *spec;
    struct ht_error err;

    if (!spec) {
        memset(&err, 0, sizeof err);
        if (ht_spec_load_buffer(
                spec_json, 0,
                &(struct ht_spec_buffer_opts){.source = source, .name = "stencil.json"}, &spec,
                &err))
            abort(); /* the harness's own spec is broken */
    }
    return spec;
}

static void replay_all(struct ht_recording *r, const struct ht_spec *spec)
{
    const struct ht_space_def *def = &spec->space;
    int64_t config[4];
    size_t idx[4] = {0, 0, 0, 0};

    for (;;) {
        struct ht_recorded rec;
        struct ht_eval_result res;
        struct ht_error err;
        double sim;
        for (size_t i = 0; i < 4; i++)
            config[i] = def->params[i].values[idx[i]];
        if (ht__recording_lookup(r, config, &rec) == 0 && rec.nruns && !rec.runs)
            abort();
        memset(&err, 0, sizeof err);
        (void)ht__recording_eval(r, config, &res, &sim, &err);
        ht_eval_result_destroy(&res); /* it owns its runs (exec.h) */
        size_t i = 0;
        while (i < 4 && ++idx[i] == def->params[i].nvalues)
            idx[i++] = 0;
        if (i == 4)
            break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ht_recording *r = NULL;
    struct ht_error err;
    struct ht_device_info dev;
    double best;
    const char *path = fuzz_write_file("recording.json", data, size);

    memset(&err, 0, sizeof err);
    /* Each input is read once for the only device and once for a device it may not hold. */
    for (int pass = 0; pass < 2; pass++) {
        if (ht_recording_load(path, pass ? "SyntheticGPU" : NULL, &r, &err) != 0) {
            if (r)
                abort(); /* a failure must leave nothing to free */
            continue;
        }
        if (!ht__recording_device(r) || !ht__recording_format(r) || !ht_recording_path(r) ||
            ht__recording_count(r) == 0)
            abort();
        (void)ht__recording_optimum(r, &best);
        ht_recording_device_info(r, &dev);
        memset(&err, 0, sizeof err);
        if (ht__recording_bind(r, stencil(), NULL, &err) == 0)
            replay_all(r, stencil());
        ht_recording_free(r);
        r = NULL;
    }
    return 0;
}
