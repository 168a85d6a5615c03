#!/usr/bin/env bash
# bench/mpi/split.sh: co-execution across nodes (issue 16, deliverable 2). The compute-bound
# conv1d of bench/mpi/split-spec.json (2^18 outputs, a mask of 625) split over 2 ranks, each
# bound to a core of its own (mpirun --bind-to core) with PoCL's pthread device on one thread
# (POCL_MAX_PTHREAD_COUNT=1) and its own PoCL cache, as on two nodes. First
# `mpirun -n 2 hetune tune` stores each device's configuration in one database, then
# `mpirun -n 2 hetune split --json`: each node co-executes the whole problem (its time), the
# nodes share it by Eq. 4 on those times, and every run scatters the inputs, runs the two
# slices and gathers the outputs. Printed: each node's time and share, Eq. 4's bound from
# the node times, the measured distributed wall time (mean of the best 5 of 10) and their
# ratio, the efficiency (the goal is >= 0.9).
#
# usage: bench/mpi/split.sh [HETUNE]    (default: $HETUNE, else build/hetune)
# environment: KEEP=DIR keeps the JSON and the database there.
set -eu

bench=hetune-bench-mpi-split
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
rank_script
spec="$root/bench/mpi/split-spec.json"

echo "bench/mpi/split: $(nproc) cores; $(mpirun --version | head -1); $("$hetune" --version)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
mpirun "${flags[@]}" -n 2 "$work/rank.sh" tune "$spec" --db "$work/split.db" -q >/dev/null
mpirun "${flags[@]}" -n 2 "$work/rank.sh" split "$spec" --db "$work/split.db" --json \
    >"$work/split.json"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/split.json" <<'EOS'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["per_rank"]:
    print("rank %d  %s  alone %.4f s  share %.4f  owned [%d, %d)  its slice %.4f s  "
          "scatter %.4f s  gather %.4f s" % (r["rank"], r["devices"][0].get("config"),
          r["alone_s"], r["share"], r["owned"][0], r["owned"][1], r["split_s"],
          r["scatter_s"], r["gather_s"]))
print("bound (Eq. 4 on the node times) %.4f s; with whole work-groups %.4f s"
      % (d["bound_s"], d["adjusted_s"]))
print("measured distributed wall       %.4f s (mean of the best %d of %d; fastest %.4f s)"
      % (d["wall_s"], d["keep_best"], d["runs"], d["wall_min_s"]))
print("moved per run: %d bytes scattered, %d gathered; verified: %s"
      % (d["scattered_bytes"], d["gathered_bytes"], d["verified"]))
print("efficiency bound / measured: %.3f (goal >= 0.9); from the fastest runs (bound %.4f s "
      "over %.4f s): %.3f" % (d["efficiency"], d["bound_min_s"], d["wall_min_s"],
                              d["efficiency_min"]))
EOS
