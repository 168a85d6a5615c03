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

    python3 bench/mpi/simulate_split.py --cases DIR

DIR is bench/mpi/cases.sh's folder: per case study, its measured split over 2 nodes. Then
every input is measured per case: t_node (the nodes' mean time for the whole problem),
t_fix (its own run's cost beyond its slowest slice and its bytes at the local rate), the
granules (its global size over the node's granule); the bytes come from the spec's shapes
at the tuned configuration (sliced along the split dimension, halo, whole, outputs). Each
row prints the measured efficiency on 2 nodes, the model's on 2 nodes at the local rate
(the same machine: how far the model is from the measurement), then the model's at the
network's rate from 2 to 1024 nodes.
"""
import json
import math
import os
import sys

bw, lat, local_bw = 10e9, 2e-6, 4e9   # network (as simulate.py), one machine's memcpy rate



def spec_bytes(spec_path, sizes, config, dim):
    """(sliced input bytes, halo bytes, whole input bytes, output bytes) of a spec's buffers,
    split along dimension dim, at the sizes and the configuration's parameters."""
    if not os.path.isabs(spec_path):  # relative to the source tree (bench/mpi/cases.sh)
        spec_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                 spec_path)
    spec = json.load(open(spec_path))
    env = dict(spec.get("sizes", {}))
    env.update(sizes)
    for kv in config.split(","):
        if "=" in kv:
            k, v = kv.split("=")
            env[k.strip()] = int(v)
    tsize = {"float": 4, "int": 4, "uint": 4, "double": 8, "long": 8, "ulong": 8,
             "short": 2, "ushort": 2, "char": 1, "uchar": 1, "half": 2}
    val = lambda e: int(eval(str(e), {"__builtins__": {}, "min": min, "max": max}, env))
    target = "g" + "xyz"[dim]
    sliced = halo = whole = out = 0
    for a in spec["args"]:
        if "shape" not in a or a.get("access") == "temp":
            continue
        dims = [val(x) for x in a["shape"]]
        elems = math.prod(dims) * tsize.get(a["type"], 4)
        axis, h = None, 0
        for i, ix in enumerate(a.get("index") or []):
            d = ix.get("dim") if isinstance(ix, dict) else ix
            if d == target:
                axis, h = i, val(ix.get("halo", 0)) if isinstance(ix, dict) else 0
        if a["access"] in ("write", "readwrite"):
            out += elems
        if a["access"] in ("read", "readwrite"):
            if axis is None:
                whole += elems
            else:
                sliced += elems
                halo += elems // dims[axis] * h
    return sliced, halo, whole, out


def measured_case(path):
    c = json.load(open(path))
    d = c["split"]
    ranks = d["per_rank"]
    t = sum(r["alone_s"] for r in ranks) / len(ranks)
    slowest = max(r["split_s"] for r in ranks)
    moved = d["scattered_bytes"] + d["gathered_bytes"]
    fix = max(0.0, d["wall_s"] - slowest - moved / local_bw)
    groups = d["global"] // ranks[0]["granule"]
    b = spec_bytes(c["spec"], c["sizes"], ranks[0]["devices"][0]["config"], c["dim"])
    return (c["name"], t, groups) + b, fix, d["efficiency"]


if len(sys.argv) > 2 and sys.argv[1] == "--cases":
    import glob
    rows = [measured_case(p) for p in sorted(glob.glob(sys.argv[2] + "/*.json"))]
    nodes = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    print("network %.0f GB/s and %.0f us; one machine's copies %.0f GB/s" %
          (bw / 1e9, lat * 1e6, local_bw / 1e9))
    print("%-13s %9s %8s %6s %6s | model on a network: " % ("case", "node time", "t_fix",
          "meas.2", "model2") + " ".join("%6d" % p for p in nodes))
    for case, fix, meas in rows:
        def eff(P, b, l):
            _, t, groups, sin, halo, whole, out = case
            slowest = t * math.ceil(groups / P) / groups
            move = (sin * (1 - 1 / P) + (P - 1) * (halo + whole) + out * (1 - 1 / P)) / b \
                + 2 * math.ceil(math.log2(P)) * l
            return (t / P) / (slowest + fix + move)
        print("%-13s %8.4fs %6.2fms %6.3f %6.3f | %20s" % (case[0], case[1], 1e3 * fix, meas,
              eff(2, local_bw, 0), "") + " ".join("%6.3f" % eff(p, bw, lat) for p in nodes))
    sys.exit(0)

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
