#!/usr/bin/env python3
"""Efficiency of a split across nodes from 2 to 1024 nodes, from measured numbers
(docs/scale.md has the model; issue 16, deliverable 2).

    python3 bench/mpi/simulate_split.py [SPLIT.json]

SPLIT.json is the --json output of `mpirun -n 2 hetune split` on bench/mpi/split-spec.json
(bench/mpi/split.sh keeps it with KEEP=DIR: DIR/split.json). From it: t_node, a node's time
for the whole problem (the mean of the nodes' alone_s); t_fix, what a run cost beyond the
slowest slice that does not move data (the measured wall time - the slowest node's slice -
the bytes it moved at the local rate). Without SPLIT.json the numbers of
docs/results/mpi-split.txt are used.

The model, per node count P (one rank per node, equal nodes, Eq. 4 then gives equal shares):
    T(P) = t_node * ceil(Gg / P) / Gg        the slowest slice, in whole granules (Gg of them)
         + t_fix                              barrier, poisoning, threads: per run
         + t_move(P)                          rank 0's link, which every slab crosses:
    t_move(P) = (in * (1 - 1/P) + (P - 1) * (halo + whole) + out * (1 - 1/P)) / bw
                + 2 * ceil(log2 P) * lat
    E(P) = (t_node / P) / T(P)               Eq. 4's bound over the modelled time
in: the sliced inputs' bytes, halo: the bytes a slice reads past its end, whole: inputs every
node needs whole (broadcast), out: the outputs' bytes. The other case studies' node times are
not measured: they are the bench's flop rate (its 2 N MASK flops over t_node) applied to their
flops (matmul 2 N^3, conv1d 2 N MASK), and vecadd (memory-bound) at 4 GB/s a node.
"""
import json
import math
import sys

bw, lat, local_bw = 10e9, 2e-6, 4e9   # network (as simulate.py), one machine's memcpy rate

# Measured (docs/results/mpi-split.txt); replaced by SPLIT.json's when given.
t_node, wall, slowest, moved, granule = 0.1436, 0.07218, 0.07175, 1058692, 64
if len(sys.argv) > 1:
    d = json.load(open(sys.argv[1]))
    ranks = d["per_rank"]
    t_node = sum(r["alone_s"] for r in ranks) / len(ranks)
    wall, slowest = d["wall_s"], max(r["split_s"] for r in ranks)
    moved = d["scattered_bytes"] + d["gathered_bytes"]
    granule = ranks[0]["granule"]
t_fix = max(0.0, wall - slowest - moved / local_bw)

N_BENCH, MASK = 262144, 625
rate = 2 * N_BENCH * MASK / t_node   # the bench node's flops per second

# (name, node time, granules (of the bench's work-group; matmul's: tiles of 16), sliced
# input bytes, halo bytes, whole input bytes, output bytes)
cases = [
    ("conv1d bench (measured)", t_node, N_BENCH // granule, 4 * (N_BENCH + MASK - 1),
     4 * (MASK - 1), 4 * MASK, 4 * N_BENCH),
    ("conv1d 2^16 (examples)", 2 * 65536 * MASK / rate, 65536 // granule, 4 * (65536 + MASK - 1),
     4 * (MASK - 1), 4 * MASK, 4 * 65536),
    ("matmul 1024 (B whole)", 2 * 1024 ** 3 / rate, 1024 // 16, 4 * 1024 * 1024, 0,
     4 * 1024 * 1024, 4 * 1024 * 1024),
    ("vecadd 2^22 (memory)", 12 * 2 ** 22 / 4e9, 2 ** 22 // granule, 8 * 2 ** 22, 0, 0,
     4 * 2 ** 22),
]
nodes = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]


def efficiency(case, P):
    _, t, groups, sin, halo, whole, out = case
    slowest = t * math.ceil(groups / P) / groups
    move = (sin * (1 - 1 / P) + (P - 1) * (halo + whole) + out * (1 - 1 / P)) / bw \
        + 2 * math.ceil(math.log2(P)) * lat
    return (t / P) / (slowest + t_fix + move)


print("model inputs: t_node %.4f s (bench node, whole problem), t_fix %.2f ms a run, "
      "network %.0f GB/s and %.0f us, rate %.2f GFLOP/s a node" %
      (t_node, 1e3 * t_fix, bw / 1e9, lat * 1e6, rate / 1e9))
print("%-26s %10s " % ("case", "node time") + " ".join("%6d" % p for p in nodes))
for c in cases:
    print("%-26s %9.4fs " % (c[0], c[1]) + " ".join("%6.3f" % efficiency(c, p) for p in nodes))
