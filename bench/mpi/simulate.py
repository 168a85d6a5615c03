#!/usr/bin/env python3
"""Efficiency of distributed tuning from 2 to 1024 nodes, from measured numbers
(docs/scale.md has the model; issue 16).

    python3 bench/mpi/simulate.py [RUN.json]

RUN.json is the --json output of `mpirun -n K hetune tune` (bench/mpi/run.sh keeps it with
KEEP=DIR: DIR/2.json). From it: t_eval, the mean time a rank spends on one configuration
(busy seconds over configurations measured); t_store, rank 0's time storing one result
(queue.store_seconds over results); t_gap, the time a configuration costs beyond its
measurement (queue.seconds x ranks - busy seconds, over configurations: the request and
reply round trip, the polling naps, the last wave's idle ranks). Without RUN.json the numbers
measured in docs/results/mpi-bench.txt are used.

The model, per node count P (one rank per node, every node one device model):
    T(1)  = N * t_eval                                  (the usual tune on one node)
    T(P)  = t_start(P) + max(ceil(N / P) * (t_eval + t_gap),   (the nodes' waves)
                             N * t_serve(P))                    (rank 0's queue and store)
    t_serve(P)  = t_store / B + t_msg * 2                (B results stored per transaction)
    t_start(P)  = t_init + log2(P) * t_lat + P * DEVICE_BYTES / bw   (MPI_Init, the gather)
    E(P)  = T(1) / (P * T(P))
B = 1 is what is built (one result, one transaction); the B = 16 column is the batching of
docs/scale.md, not built. Cases: the case studies' pruned spaces (docs/results-gpu.md,
Tables 1-2), bench/mpi's 200 and a large space.
"""
import json
import math
import sys

DEVICE_BYTES = 1696          # sizeof(struct ht_device_info), gathered once per rank
ASSIGN_BYTES, RESULT_BYTES = 1568, 10888   # per configuration, rank 0 out / in

# Measured (docs/results/mpi-bench.txt); replaced by RUN.json's when given.
t_eval, t_store, t_gap = 1.914, 0.00819, 0.024
t_msg, t_lat, bw, t_init = 20e-6, 2e-6, 10e9, 0.5

if len(sys.argv) > 1:
    d = json.load(open(sys.argv[1]))
    ranks = d["per_rank"]
    n = sum(r["measured"] for r in ranks)
    busy = sum(r["busy_s"] for r in ranks)
    t_eval = busy / n
    t_store = d["queue"]["store_seconds"] / n
    t_gap = max(0.0, (d["queue"]["seconds"] * d["ranks"] - busy) / n)
    ASSIGN_BYTES, RESULT_BYTES = d["queue"]["assign_bytes"], d["queue"]["result_bytes"]

cases = [("matmul pruned (GPU)", 6), ("matmul pruned (CPU)", 7), ("conv1d", 13),
         ("matmul platform-only", 85), ("bench/mpi", 200), ("fermi", 391),
         ("large space", 100000)]
nodes = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]


def efficiency(N, P, B):
    t_start = t_init + math.log2(P) * t_lat + P * DEVICE_BYTES / bw
    t_serve = t_store / B + 2 * t_msg
    t1 = N * t_eval
    tp = t_start + max(math.ceil(N / P) * (t_eval + t_gap), N * t_serve)
    return t1 / (P * tp)


print("measured: t_eval %.3f s, t_store %.2f ms, t_gap %.1f ms per configuration; "
      "%d bytes out and %d in at rank 0 per configuration"
      % (t_eval, t_store * 1e3, t_gap * 1e3, ASSIGN_BYTES, RESULT_BYTES))
print("rank 0 saturates at P = t_eval / t_serve = %.0f nodes (B = 1), %.0f (B = 16)"
      % (t_eval / (t_store + 2 * t_msg), t_eval / (t_store / 16 + 2 * t_msg)))
print()
print("%-22s %7s " % ("case", "configs") + " ".join("%6d" % p for p in nodes) + "   (B = 1)")
for name, N in cases:
    print("%-22s %7d " % (name, N) + " ".join("%6.2f" % efficiency(N, p, 1) for p in nodes))
print()
print("%-22s %7s " % ("case", "configs") + " ".join("%6d" % p for p in nodes) + "   (B = 16)")
for name, N in cases[-2:]:
    print("%-22s %7d " % (name, N) + " ".join("%6.2f" % efficiency(N, p, 16) for p in nodes))
