/* Pipelines on the device: the kernels of a pipeline spec's stages, created from the one
 * program of a configuration and bound to its buffers, and the reference kernel with its
 * own argument list (verify.args). The timed run of the stages is ht__inst_run (run.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec-internal.h"
#include "util/util.h"

/* Kernel name from prog with its argument count. A missing kernel is HT_ESPEC at field. */
static int named_kernel(struct ht_session *s, cl_program prog, const char *name,
                        const char *field, cl_kernel *out, cl_uint *nargs, struct ht_error *err)
{
    cl_int st;
    cl_kernel k = clCreateKernel(prog, name, &st);

    *out = NULL;
    if (st == CL_INVALID_KERNEL_NAME) {
        if (err && !err->code) {
            snprintf(err->file, sizeof err->file, "%s", s->spec->path ? s->spec->path : "");
            snprintf(err->field, sizeof err->field, "%s", field);
            err->line = err->column = 0;
        }
        return ht_error_set(err, HT_ESPEC, "no kernel named '%s' in '%s'", name,
                            s->spec->kernel_path);
    }
    if (st != CL_SUCCESS)
        return ht__cl_fail(err, HT_ECL, st, "clCreateKernel");
    *nargs = 0;
    st = clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof *nargs, nargs, NULL);
    if (st != CL_SUCCESS) {
        clReleaseKernel(k);
        return ht__cl_fail(err, HT_ECL, st, "clGetKernelInfo");
    }
    *out = k;
    return HT_OK;
}

int ht__inst_stages(struct ht_session *s, struct ht__inst *in, struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;
    size_t active[HT_MAX_STAGES], nactive = 0, next = 0;
    char field[64];
    cl_kernel k = NULL;
    cl_uint nargs = 0;
    int rc;

    /* kernel.name runs only as a stage, if at all, but a misspelt one should not pass. */
    rc = named_kernel(s, in->prog, spec->kernel_name, "kernel.name", &k, &nargs, err);
    if (rc != HT_OK)
        return rc;
    clReleaseKernel(k);
    rc = ht_spec_active_stages(spec, in->vars, active, &nactive, err);
    if (rc != HT_OK)
        return rc;
    /* Every stage's kernel is checked, launched or not, so that a mistake in a stage shows
     * up whichever configuration is evaluated. */
    for (size_t i = 0; i < spec->npipeline; i++) {
        struct ht__stage_inst *si;

        snprintf(field, sizeof field, "pipeline[%zu].kernel", i);
        rc = named_kernel(s, in->prog, spec->pipeline[i].kernel, field, &k, &nargs, err);
        if (rc != HT_OK)
            return rc;
        rc = ht_spec_check_stage_args(spec, i, nargs, err);
        if (rc != HT_OK || next >= nactive || active[next] != i) {
            clReleaseKernel(k);
            if (rc != HT_OK)
                return rc;
            continue;
        }
        si = &in->stages[next];
        si->index = i;
        si->kernel = k;
        in->nstages = ++next;
        si->ndims = spec->pipeline[i].ndims;
        rc = ht_spec_stage_ndrange(spec, i, in->vars, si->global, si->local, err);
        if (rc != HT_OK)
            return rc;
    }
    return HT_OK;
}

int ht__inst_stage_args(struct ht_session *s, struct ht__inst *in, struct ht_error *err)
{
    for (size_t k = 0; k < in->nstages; k++) {
        const struct ht_stage *st = &s->spec->pipeline[in->stages[k].index];
        int rc = ht__inst_set_args(s, in, in->stages[k].kernel, st->args, st->nargs, err);
        if (rc != HT_OK)
            return rc;
    }
    return HT_OK;
}

int ht__inst_ref_kernel(struct ht_session *s, struct ht__inst *in, cl_kernel *out,
                        struct ht_error *err)
{
    const struct ht_spec *spec = s->spec;
    const size_t *idx = spec->nverify_args ? spec->verify_args : NULL;
    size_t n = spec->nverify_args ? spec->nverify_args : spec->nargs;
    cl_kernel k = NULL;
    cl_uint nargs = 0;
    int rc;

    *out = NULL;
    rc = named_kernel(s, in->prog, spec->reference_kernel, "verify.kernel", &k, &nargs, err);
    if (rc != HT_OK)
        return rc;
    if (nargs != n) {
        if (err && !err->code) {
            snprintf(err->file, sizeof err->file, "%s", spec->path ? spec->path : "");
            snprintf(err->field, sizeof err->field, "%s", idx ? "verify.args" : "args");
            err->line = err->column = 0;
        }
        rc = ht_error_set(err, HT_ESPEC, "%s %zu argument%s but reference kernel '%s' takes %u%s",
                          idx ? "verify.args lists" : "the spec lists", n, n == 1 ? "" : "s",
                          spec->reference_kernel, nargs,
                          idx ? "" : " (verify.args can give it its own list)");
        goto fail;
    }
    rc = ht__inst_set_args(s, in, k, idx, n, err);
    if (rc != HT_OK)
        goto fail;
    *out = k;
    return HT_OK;
fail:
    clReleaseKernel(k);
    return rc;
}
