/* hetune — fuzz target: the .npy reader (reference output files and `file:` inits given as
 * .npy): the header parser on the bytes (ht__npy_parse), then the whole file read as a
 * buffer of the header's own type (ht__npy_read, which checks the header against the data),
 * and the header's shape written as messages write it. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "exec/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ht__npy h, h2;
    struct ht_error err;
    char buf[256];
    void *elems = NULL;
    size_t count = 0;

    memset(&err, 0, sizeof err);
    if (ht__npy_parse(data, size, &h, &err) != 0)
        return 0;
    if (h.ndim > HT__NPY_MAX_DIMS || h.data_off > size)
        abort(); /* what the parser promises the readers */
    (void)ht__npy_fortran_matters(&h);
    ht__npy_format_shape(h.dims, h.ndim, 1, buf, sizeof buf);
    ht__npy_format_shape(h.dims, h.ndim, 0, buf, sizeof buf);
    ht__npy_descr(h.type, buf, sizeof buf);
    (void)ht__npy_type_name(h.type);
    const char *path = fuzz_write_file("input.npy", data, size);
    memset(&err, 0, sizeof err);
    if (ht__npy_read(path, h.type, "buffer 'a'", &elems, &count, &h2, &err) == 0) {
        if (count != h2.count)
            abort();
        free(elems);
    } else if (elems) {
        abort();
    }
    return 0;
}
