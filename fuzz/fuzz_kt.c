/* hetune — fuzz target: the T1 importer (hetune import-kt: ht_kt_import_t1), the input
 * written to a file as the importer reads one, the spec it writes then loaded as hetune
 * would load it (a T1 file that imports must give a spec the loader reads or refuses with
 * a message, never a crash). */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "hetune/interop.h"
#include "hetune/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ht_error err;
    char *json = NULL, *notes = NULL;
    const char *path = fuzz_write_file("t1.json", data, size);

    memset(&err, 0, sizeof err);
    if (ht_kt_import_t1(path, fuzz_tmpdir(), &json, &notes, &err) == 0) {
        struct ht_spec *spec = NULL;
        static const char source[] = "__kernel void k(__global float *a) { a[0] = 0; }\n";
        if (!json)
            abort();
        memset(&err, 0, sizeof err);
        if (ht_spec_load_buffer(json, 0,
                                &(struct ht_spec_buffer_opts){.source = source,
                                                              .name = "imported.json",
                                                              .base_dir = fuzz_tmpdir()},
                                &spec, &err) == 0)
            ht_spec_free(spec);
    } else if (json) {
        abort(); /* a failure must leave nothing to free */
    }
    free(json);
    free(notes);
    return 0;
}
