#!/usr/bin/env bash
# Issue 26, the gap of the decided split to the hand probe: is it the CPU's kernel, the
# GPU's pieces, or the two sharing the host's memory? On vecadd 2^26 (examples/vecadd):
#  1. every configuration of the CPU device and of the GPU tuned at 2^26 (exhaustive),
#     exported as T4 ($OUT/vecadd-2p26.t4.json): the tuned times of each configuration
#     beside the probe's kernel (EPT 1, WG 256);
#  2. the hand probe (../shared/probes/coexec-limit.c, from .gpu/probes), in the same call;
#  3. bench/runtime/mem.sh vecadd, alloc and malloc arrays, modes AUTO and SPLIT, on those
#     tuned configurations; then again on a spec with the probe's configuration only
#     (EPT 1, WG 256: BENCH_MEM_SPEC_DIR);
#  4. hetune split at the tuned configurations with the GPU's pieces of CPURATE_PIECES bytes
#     (0: one piece per slice).
# From the repository's root:  OUT=DIR bench/gpu/cpurate.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/cpurate.log"
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"
gpu_build
gpu_devices show
db=/tmp/cpurate.db; rm -f "$db"*
spec=examples/vecadd/spec.json; n=67108864
"$H" devices --bandwidth --db "$db" >>"$LOG" 2>&1
for d in "$cpu" "$gpu"; do
  say "== tune device $d at N=$n, every configuration"
  "$H" tune "$spec" --size N=$n --device "$d" --db "$db" 2>&1 | tail -4 | tee -a "$LOG"
done
"$H" export --format t4 --db "$db" --size N=$n -q -o "$OUT/vecadd-2p26.t4.json" 2>>"$LOG"
say "== bench_mem on the tuned configurations"
HETUNE_DB=$db BENCH_MEM_LINKS=0 BENCH_MEM_PROBE=1 BENCH_MEM_PATHS=auto/auto \
  bench/runtime/mem.sh build-gpu vecadd $n 20 3 "$cpu,$gpu" 2>&1 | tee -a "$LOG"
fixed=/tmp/cpurate-fixed; rm -rf "$fixed"; mkdir -p "$fixed/vecadd"
cp examples/vecadd/kernel.cl "$fixed/vecadd/"
python3 - "$spec" "$fixed/vecadd/spec.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["params"] = {"WG": {"values": [256]}, "EPT": {"values": [1]}}
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
say "== bench_mem on the probe's configuration (EPT 1, WG 256)"
HETUNE_DB=$db BENCH_MEM_LINKS=0 BENCH_MEM_PROBE=0 BENCH_MEM_PATHS=auto/auto \
  BENCH_MEM_SPEC_DIR=$fixed bench/runtime/mem.sh build-gpu vecadd $n 20 3 "$cpu,$gpu" 2>&1 | tee -a "$LOG"
for pb in ${CPURATE_PIECES:-16777216 33554432 67108864 134217728 0}; do
  say "== hetune split, pieces of $pb bytes"
  "$H" split "$spec" --size N=$n --device "$cpu,$gpu" --db "$db" --force --piece-bytes "$pb" 2>&1 | tee -a "$LOG"
done
say "== done in $(( $(date +%s) - t0 )) s"
