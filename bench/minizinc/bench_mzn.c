/* bench_mzn: hetune's MiniZinc backend against running `minizinc` on the same model by hand
 * (issue 17, item 5: within 1.2x). For a spec and a device (a synthetic Fermi-like GPU, as
 * bench_space's, or a real one), it writes the paper's model (ht_space_write_minizinc) and
 * the device's data (ht_device_write_dzn) into a temporary folder, then, taking turns,
 * times `minizinc --solver gecode --all-solutions space.mzn DEVICE.dzn > /dev/null` (the
 * user by hand) and the backend's whole solve (writing the model and data, the solver,
 * reading every solution back, and the platform-only count), and prints the least of each
 * and their ratio. Not a test: seconds to minutes.
 *
 * usage: bench_mzn [--device N] [--repeat R] [SPEC]
 *   SPEC  default: bench/space/gemm.json (a GEMM-like space of 14 parameters)
 *   N     an index of `hetune devices`; default: the synthetic device
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hetune.h"
#include "../space/fermi.h"

#ifndef HETUNE_SOURCE_DIR
#define HETUNE_SOURCE_DIR "."
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int count_one(const int64_t *config, void *user)
{
    (void)config;
    ++*(uint64_t *)user;
    return 0;
}

int main(int argc, char **argv)
{
    const char *path = HETUNE_SOURCE_DIR "/bench/space/gemm.json";
    struct ht_device_info synth = fermi_like();
    const struct ht_device_info *dev = &synth;
    struct ht_platform *plat = NULL;
    struct ht_spec *spec = NULL;
    struct ht_space *s = NULL;
    struct ht_error err;
    char dir[] = "/tmp/hetune-bench-mzn.XXXXXX", model[4200], dzn[4096], cmd[12800];
    double hand = 1e30, backend = 1e30;
    uint64_t n = 0;
    int repeat = 3, device = -1, status = 0;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = atoi(argv[++i]);
        else if (argv[i][0] != '-')
            path = argv[i];
        else {
            fprintf(stderr, "usage: bench_mzn [--device N] [--repeat R] [SPEC]\n");
            return 2;
        }
    }

    ht_error_clear(&err);
    if (device >= 0) {
        if (ht_platform_discover(&plat, &err) != 0 || (size_t)device >= plat->count) {
            fprintf(stderr, "bench_mzn: no device %d (%s)\n", device, err.text);
            return 1;
        }
        dev = &plat->devices[device];
    }
    if (ht_spec_load(path, NULL, 0, &spec, &err) != 0 ||
        ht_space_create(&spec->space, dev, HT_EQ3_PRODUCT, &s, &err) != 0 || !mkdtemp(dir)) {
        fprintf(stderr, "bench_mzn: %s: %s %s\n", path, err.field, err.text);
        return 1;
    }
    snprintf(model, sizeof model, "%s/space.mzn", dir);
    if (ht_space_write_minizinc(&spec->space, HT_EQ3_PRODUCT, 0, model, &err) != 0 ||
        ht_device_write_dzn(dev, dir, dzn, sizeof dzn, &err) != 0) {
        fprintf(stderr, "bench_mzn: %s\n", err.text);
        return 1;
    }
    snprintf(cmd, sizeof cmd, "minizinc --solver gecode --all-solutions '%s' '%s' > /dev/null",
             model, dzn);
    printf("spec %s on %s, %d rounds taking turns\n$ %s\n", spec->name, dev->name, repeat, cmd);
    for (int r = 0; r < repeat && status == 0; r++) {
        struct ht_space_counts c;
        double t0 = now(), t, th;
        if (system(cmd) != 0) {
            fprintf(stderr, "bench_mzn: minizinc failed\n");
            status = 1;
            break;
        }
        th = now() - t0;
        hand = th < hand ? th : hand;
        n = 0;
        t0 = now();
        if (ht_space_backend_find("minizinc")->solve(s, &c, count_one, &n, &err) != 0) {
            fprintf(stderr, "bench_mzn: backend: %s\n", err.text);
            status = 1;
            break;
        }
        t = now() - t0;
        backend = t < backend ? t : backend;
        printf("round %d: by hand %.3f s, backend %.3f s (%llu valid, %llu platform-valid)\n", r,
               th, t, (unsigned long long)n, (unsigned long long)c.platform);
        fflush(stdout);
    }
    if (status == 0)
        printf("least: by hand %.3f s, hetune's backend %.3f s: ratio %.2f (goal <= 1.2)\n", hand,
               backend, backend / hand);
    unlink(model);
    unlink(dzn);
    rmdir(dir);
    ht_space_free(s);
    ht_spec_free(spec);
    ht_platform_free(plat);
    return status;
}
