#!/usr/bin/env bash
# Issue 26: why a split on a program's malloc arrays pinned in place (foreign path "pin")
# runs slow, and not steadily: bench/runtime/mem.sh on vecadd 2^26 and gesummv 8192 with
# the paths pin/pin and stage/stage, once as is (the CPU device works in place on the
# program's arrays) and once with every device's data path "pinned" (the CPU device copies
# its slices too). From the repository's root:  OUT=DIR bench/gpu/pinsplit.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/pinsplit.log"
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"
gpu_build
gpu_devices
export HETUNE_DB=${HETUNE_DB:-/tmp/pinsplit.db}
$H devices --bandwidth --db "$HETUNE_DB" >>"$LOG" 2>&1
for dp in auto pinned; do
  say "== BENCH_MEM_DATA_PATH=$dp"
  BENCH_MEM_DATA_PATH=$dp BENCH_MEM_LINKS=0 BENCH_MEM_PROBE=0 \
  BENCH_MEM_PATHS=${BENCH_MEM_PATHS:-pin/pin,stage/stage} \
    bench/runtime/mem.sh build-gpu all 67108864,8192 20 3 "$cpu,$gpu" 2>&1 | tee -a "$LOG"
done
say "== done in $(( $(date +%s) - t0 )) s"
