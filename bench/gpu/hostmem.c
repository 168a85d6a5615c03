/* The host memory's own limit, beside which a CPU+GPU split of a memory-bound kernel is
 * judged: a CPU device that streams its share from host memory and a GPU whose DMA pulls
 * its share from the same memory share this bandwidth (Dopia's observation). Measures, with
 * one OpenMP thread per core, the read rate (a sum over 1 GiB of floats, n a multiple of 16) and the rate of
 * vecadd's traffic (c = a + b, two reads and a write), best of 10, first touch in parallel.
 *
 *   gcc -O3 -march=native -fopenmp bench/gpu/hostmem.c -o hostmem && ./hostmem [MiB]
 */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024, n = mib * 1024 * 1024 / sizeof(float);
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    double best_read = 1e30, best_add = 1e30, sum = 0.0;

    if (!a || !b || !c || n == 0) {
        fprintf(stderr, "hostmem: cannot allocate 3 x %zu MiB\n", mib);
        return 1;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        a[i] = (float)(i & 1023);
        b[i] = 1.0f;
        c[i] = 0.0f;
    }
    for (int r = 0; r < 10; r++) {
        double t0 = now(), s = 0.0, t1;
        /* 16 running partial sums a thread, so that the compiler vectorizes the loop
         * without -ffast-math */
#pragma omp parallel reduction(+ : s)
        {
            float acc[16] = {0};
#pragma omp for schedule(static)
            for (size_t i = 0; i < n / 16; i++)
                for (int k = 0; k < 16; k++)
                    acc[k] += a[16 * i + k];
            for (int k = 0; k < 16; k++)
                s += acc[k];
        }
        t1 = now();
        sum += s;
        if (t1 - t0 < best_read)
            best_read = t1 - t0;
        t0 = now();
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            c[i] = a[i] + b[i];
        t1 = now();
        if (t1 - t0 < best_add)
            best_add = t1 - t0;
    }
    printf("hostmem: %d threads, %zu MiB per array\n", omp_get_max_threads(), mib);
    printf("read        %8.1f GB/s  (%.3f ms for %zu MiB)\n",
           (double)(n * sizeof(float)) / best_read / 1e9, best_read * 1e3, mib);
    printf("c = a + b   %8.1f GB/s  (%.3f ms for 3 x %zu MiB)\n",
           3.0 * (double)(n * sizeof(float)) / best_add / 1e9, best_add * 1e3, mib);
    printf("(checksum %g %g)\n", sum, (double)c[n - 1]);
    free(a);
    free(b);
    free(c);
    return 0;
}
