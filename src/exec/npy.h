/* NumPy .npy headers (npy.c) and the references that come from elsewhere (reference.c):
 * reference output files, the reference kernel's own NDRange. Internal to src/exec. */
#ifndef HETUNE_EXEC_NPY_H
#define HETUNE_EXEC_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "hetune/error.h"
#include "hetune/platform.h"
#include "hetune/spec.h"

struct ht__hostbuf;

/* The most axes of a .npy array hetune reads. */
#define HT__NPY_MAX_DIMS 8

/* A parsed .npy header. */
struct ht__npy {
    enum ht_type type;               /* the dtype's OpenCL type */
    char descr[64];                  /* the dtype as written: "<f4" */
    int fortran;                     /* fortran_order: True */
    unsigned ndim;                   /* 0 for a scalar (one element) */
    uint64_t dims[HT__NPY_MAX_DIMS];
    uint64_t count;                  /* the product of dims (1 for a scalar) */
    size_t data_off;                 /* where the data starts in the file */
};

/* Parses the header at the start of a .npy file held in buf[0..len) (at least the header:
 * the data need not be there). Returns HT_EPARSE with err->text a phrase about the file
 * ("is not a .npy file ...", "its dtype '>f4' is big-endian ...") for the caller to put
 * after the file's name: no magic, a version other than 1 to 3, a truncated or malformed
 * header, a structured dtype or one with no OpenCL type. Fortran order is reported in
 * h->fortran, not refused here. */
int ht__npy_parse(const void *buf, size_t len, struct ht__npy *h, struct ht_error *err);

/* 1 when h is in Fortran order and that changes the layout (more than one axis longer than
 * 1), else 0. */
int ht__npy_fortran_matters(const struct ht__npy *h);

/* numpy's name of type t ("float32"); static storage. */
const char *ht__npy_type_name(enum ht_type t);

/* numpy's descr of type t ("<f4", "|u1") into buf. */
void ht__npy_descr(enum ht_type t, char *buf, size_t size);

/* 1 when path ends in ".npy" (the file is read as .npy), else 0 (raw little-endian). */
int ht__npy_is_path(const char *path);

/* Writes dims[0..ndim) as "(3, 4)" / "(5,)" (tuple, numpy's way) or "[3, 4]" into buf. */
void ht__npy_format_shape(const uint64_t *dims, unsigned ndim, int tuple, char *buf,
                          size_t size);

/* (reference.c) Reads the elements of a .npy or raw file at path for a buffer of type t
 * (what names the use in messages, e.g. "buffer 'a'"): the whole file, its header checked
 * (.npy: dtype equal to t, C order or an order that does not matter), into *data (owned by
 * the caller, free()) with *count elements and, for .npy, its header in *h (h->ndim 0 and
 * h->count *count for a raw file, which must hold whole elements). HT_EIO, HT_ENOMEM, or
 * HT_ESPEC with err->text naming the file. */
int ht__npy_read(const char *path, enum ht_type t, const char *what, void **data,
                 size_t *count, struct ht__npy *h, struct ht_error *err);

/* (reference.c) Whether a file of count elements with ndim axes dims (ndim 0: a raw file)
 * can stand for buffer i of spec whose element count and axes are shape's: a "sum" buffer
 * takes any non-zero count; any other the same count and, for a .npy array of 2 or more
 * axes, the same axes. Returns HT_ESPEC with err->file the spec's path, err->field
 * "verify.outputs.NAME" (the buffer's) and err->text naming the file and both shapes. */
int ht__npy_fits(const struct ht_spec *spec, size_t i, unsigned ndim, const uint64_t *dims,
                 uint64_t count, const struct ht__hostbuf *shape, struct ht_error *err);

/* (reference.c) Checks, before anything is built, what verification will need from
 * elsewhere: every reference output file (verify.outputs) is readable and, for .npy, has
 * the buffer's dtype in C order; its size fits the buffer when the buffer's shape does not
 * depend on a parameter (the others are checked for each configuration); the reference
 * kernel's own NDRange (verify.global and verify.local) evaluates on dev and keeps its
 * platform rules (Eq. 1, the per-dimension work-item limits, Eq. 2). HT_ESPEC naming the
 * field (verify.outputs.NAME, verify.local[d]), HT_EIO, HT_ENOMEM. */
int ht__verify_check(const struct ht_spec *spec, const struct ht_device_info *dev,
                     struct ht_error *err);

/* The reference kernel's own NDRange for filled vars: global[0..3) and local[0..3) (1
 * beyond spec->verify_ndims; local all 0 when left to the runtime). HT_ESPEC naming the
 * field (verify.global[d], verify.local[d]) when an extent does not evaluate, is not
 * positive or breaks a platform rule of dev. */
int ht__verify_ndrange(const struct ht_spec *spec, const struct ht_device_info *dev,
                       const int64_t *vars, size_t global[3], size_t local[3],
                       struct ht_error *err);

/* Reads the reference output file of every buffer that has one into refs[i] (nargs
 * entries; plain memory), with its count and, for .npy, its axes (naxes 0 for a raw file).
 * Errors as ht__npy_read, with err->field verify.outputs.NAME. */
int ht__ref_files_load(const struct ht_spec *spec, struct ht__hostbuf *refs,
                       struct ht_error *err);

#endif
