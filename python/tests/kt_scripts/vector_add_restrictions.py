#!/usr/bin/env python
"""A Kernel Tuner tuning script as its users write them (OpenCL): a vector add with several
elements per work-item, restricted by a function, a string and a list mixing both. It runs
under Kernel Tuner as it is, and under hetune with its import line changed to
`from hetune import tune_kernel` (python/tests/test_kt_scripts.py does that)."""
import numpy as np
from kernel_tuner import tune_kernel

kernel_string = """
__kernel void vector_add(__global float *c, __global const float *a,
                         __global const float *b, int n) {
    int i = get_group_id(0) * block_size_x * work_per_thread + get_local_id(0);
    for (int k = 0; k < work_per_thread; k++) {
        int j = i + k * block_size_x;
        if (j < n)
            c[j] = a[j] + b[j];
    }
}
"""

tune_params = {"block_size_x": [16, 32, 48, 64, 96, 128, 256],
               "work_per_thread": [1, 2, 3, 4]}


def not_too_much_work(p):
    return p["block_size_x"] * p["work_per_thread"] <= 256


restrictions = [not_too_much_work, "block_size_x / 32 >= 1",
                lambda p: p["block_size_x"] % 64 == 0 or p["work_per_thread"] != 3]


def tune():
    size = 1000000
    a = np.random.randn(size).astype(np.float32)
    b = np.random.randn(size).astype(np.float32)
    c = np.zeros_like(b)
    n = np.int32(size)
    args = [c, a, b, n]
    answer = [a + b, None, None, None]
    results, env = tune_kernel("vector_add", kernel_string, size, args, tune_params,
                               grid_div_x=["block_size_x", "work_per_thread"],
                               restrictions=restrictions, answer=answer, lang="OpenCL")
    print("valid configurations:", len(results))
    return results


if __name__ == "__main__":
    tune()
