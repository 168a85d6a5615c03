#!/usr/bin/env bash
# bench/mpi/cases.sh: the measured numbers behind the simulation of many nodes for the case
# studies (issue 16, deliverable 4). Each case study is split over 2 ranks as on two nodes,
# each rank bound to a core of its own with PoCL's pthread device on one thread (as
# bench/mpi/split.sh): `mpirun -n 2 hetune tune` (at most $BUDGET configurations a device
# model, default 12), then `mpirun -n 2 hetune split --json`. Each case's JSON (its node
# times, the bytes it moved, its measured efficiency on 2 nodes) goes to the folder that
# bench/mpi/simulate_split.py --cases reads; that then prints, per case, the measured
# efficiency on 2 nodes, the model's on 2 nodes, and the model's from 2 to 1024 nodes.
#
# usage: bench/mpi/cases.sh [HETUNE]    (default: $HETUNE, else build/hetune)
# environment: KEEP=DIR keeps the folder; BUDGET=N; CASES="name ..." picks cases.
set -eu

bench=hetune-bench-mpi-cases
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
rank_script
mkdir -p "$work/cases"

# name, spec, split dimension, sizes: a node's whole problem takes 0.05-0.5 s on one core.
all=(
    "conv1d    examples/conv1d/spec.json       0 N=262144"
    "vecadd    examples/vecadd/spec.json       0 N=4194304"
    "blackscholes examples/blackscholes/spec.json 0 N=1048576"
    "gesummv   examples/gesummv/spec.json      0 N=2048"
    "nbody     examples/nbody/spec.json        0 N=4096"
    "matmul    examples/matmul/spec.json       1 N=512"
    "stencil9  examples/stencil9/spec.json     1 N=2048"
)
echo "bench/mpi/cases: $(nproc) cores; $(mpirun --version | head -1); $("$hetune" --version)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for line in "${all[@]}"; do
    read -r name spec dim size <<<"$line"
    if [ -n "${CASES:-}" ] && [[ " $CASES " != *" $name "* ]]; then
        continue
    fi
    db="$work/$name.db"
    if ! mpirun "${flags[@]}" -n 2 "$work/rank.sh" tune "$root/$spec" --size "$size" \
            --db "$db" --budget "${BUDGET:-12}" -q >"$work/$name.tune.txt" 2>&1 ||
        ! mpirun "${flags[@]}" -n 2 "$work/rank.sh" split "$root/$spec" --size "$size" \
            --dim "$dim" --db "$db" --json >"$work/$name.split.json" 2>"$work/$name.err"; then
        echo "$name: failed (see $work/$name.*)"
        tail -3 "$work/$name.err" "$work/$name.tune.txt" 2>/dev/null || true
        continue
    fi
    python3 - "$name" "$spec" "$dim" "$size" "$work/$name.split.json" \
        "$work/cases/$name.json" <<'EOS'
import json, sys
name, spec, dim, size, split, out = sys.argv[1:]
k, v = size.split("=")
json.dump({"name": name, "spec": spec, "dim": int(dim), "sizes": {k: int(v)},
           "split": json.load(open(split))}, open(out, "w"), indent=1)
EOS
    echo "$name: done"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$root/bench/mpi/simulate_split.py" --cases "$work/cases"
