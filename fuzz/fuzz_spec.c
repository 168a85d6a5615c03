/* hetune — fuzz target: the spec loader from bytes (ht_spec_load_buffer), the JSON spec
 * with its expressions, arguments, verification and pipeline checked as `hetune` checks a
 * spec.json. An input of even length is loaded with a kernel source given beside it (as a
 * program that ships no files does), one of odd length reads kernel.file ("kernel.cl", and
 * any `file:` init) from a private folder holding the kernel of tests/specs/bad. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetune/platform.h"
#include "hetune/space.h"
#include "hetune/spec.h"

static const char kernel[] =
    "__kernel void vecadd(__global const float *a, __global const float *b,\n"
    "                     __global float *c, int n)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    if (i < (size_t)n)\n"
    "        c[i] = a[i] + b[i];\n"
    "}\n"
    "__kernel void vecadd_ref(__global const float *a, __global const float *b,\n"
    "                         __global float *c, int n)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    if (i < (size_t)n)\n"
    "        c[i] = a[i] + b[i];\n"
    "}\n";

/* Uses what the loader accepted as the tuner would: every expression of the space evaluated
 * at each parameter's first value (the low bound of a range) on a device of generous
 * limits, and the configuration written out. Results are not checked, only that nothing
 * breaks: an evaluation may fail (a division by zero the spec allows). */
static void check(const struct ht_spec *spec)
{
    const struct ht_space_def *def = &spec->space;
    struct ht_device_info dev;
    int64_t *params = calloc(def->nparams + 1, sizeof *params);
    int64_t *vars = calloc(def->names.count + 1, sizeof *vars);
    int64_t v;
    char buf[256];

    if (!params || !vars)
        goto cleanup;
    memset(&dev, 0, sizeof dev);
    dev.max_work_group_size = 1024;
    dev.max_work_item_sizes[0] = dev.max_work_item_sizes[1] = dev.max_work_item_sizes[2] = 1024;
    dev.compute_units = 4;
    dev.local_mem_size = 65536;
    dev.global_mem_size = dev.max_mem_alloc_size = (uint64_t)1 << 30;
    ht_space_vars(def, &dev, NULL, vars);
    for (size_t i = 0; i < def->nparams; i++) {
        const struct ht_param *p = &def->params[i];
        if (p->kind == HT_PARAM_VALUES && p->nvalues)
            params[i] = p->values[0];
        else if (p->kind == HT_PARAM_RANGE && p->lo && !ht_expr_eval(p->lo, vars, &v))
            params[i] = v;
        if (p->hi)
            (void)ht_expr_eval(p->hi, vars, &v);
        if (p->step)
            (void)ht_expr_eval(p->step, vars, &v);
    }
    ht_space_vars(def, &dev, params, vars);
    for (unsigned d = 0; d < def->ndims && d < 3; d++) {
        if (def->global[d])
            (void)ht_expr_eval(def->global[d], vars, &v);
        if (def->local[d])
            (void)ht_expr_eval(def->local[d], vars, &v);
    }
    if (def->local_mem)
        (void)ht_expr_eval(def->local_mem, vars, &v);
    for (size_t i = 0; i < def->nconstraints; i++)
        (void)ht_expr_eval(def->constraints[i].expr, vars, &v);
    ht_format_config(spec, params, buf, sizeof buf);
    for (size_t i = 0; i < def->nparams; i++)
        if (ht__spec_param_index(spec, def->params[i].name) != (long)i)
            abort(); /* parameter names are unique */
cleanup:
    free(params);
    free(vars);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    struct ht_error err;
    struct ht_spec *spec = NULL;

    if (!ready) {
        fuzz_write_file("kernel.cl", (const uint8_t *)kernel, sizeof kernel - 1);
        ready = 1;
    }
    if (!size)
        return 0; /* json_len 0 means NUL-terminated: there is no such input here */
    memset(&err, 0, sizeof err);
    int given = size % 2 == 0;
    int rc = ht_spec_load_buffer(
        (const char *)data, size,
        &(struct ht_spec_buffer_opts){.source = given ? kernel : NULL,
                                      .source_len = given ? sizeof kernel - 1 : 0,
                                      .name = "fuzz.json",
                                      .base_dir = fuzz_tmpdir()},
        &spec, &err);
    if (rc == 0) {
        check(spec);
        ht_spec_free(spec);
    } else if (spec) {
        abort(); /* a failure must leave nothing to free */
    }
    return 0;
}
