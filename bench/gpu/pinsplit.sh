#!/usr/bin/env bash
# Issue 26: why a split on a program's malloc arrays pinned in place (foreign path "pin")
# runs slow, and not steadily: bench/runtime/mem.sh on vecadd 2^26 and gesummv 8192 with
# the paths pin/pin and stage/stage, once as is (the CPU device works in place on the
# program's arrays) and once with every device's data path "pinned" (the CPU device copies
# its slices too). From the repository's root:  OUT=DIR bench/gpu/pinsplit.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/pinsplit.log"
say() { echo "$*" | tee -a "$LOG"; }
t0=$(date +%s)
if ! cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF \
        -DHETUNE_STATIC_DEPS=ON -DCMAKE_PREFIX_PATH="$PWD/.gpu" >>"$LOG" 2>&1 ||
    ! cmake --build build-gpu -j "$(nproc)" >>"$LOG" 2>&1; then
  say "build failed"; tail -30 "$LOG"; exit 1
fi
say "== built in $(( $(date +%s) - t0 )) s"
H=$PWD/build-gpu/hetune
$H devices --json > "$OUT/devices.json" 2>>"$LOG"
read -r cpu gpu < <(python3 -c '
import json; d=json.load(open("'"$OUT"'/devices.json"))["devices"]
c=next((x["index"] for x in d if x["is_cpu"]), "")
g=next((x["index"] for x in d if x["is_gpu"]), "")
print(c,g)')
[ -n "${gpu:-}" ] || { say "needs a CPU device and a GPU"; exit 1; }
export HETUNE_DB=${HETUNE_DB:-/tmp/pinsplit.db}
$H devices --bandwidth --db "$HETUNE_DB" >>"$LOG" 2>&1
for dp in auto pinned; do
  say "== BENCH_MEM_DATA_PATH=$dp"
  BENCH_MEM_DATA_PATH=$dp BENCH_MEM_LINKS=0 BENCH_MEM_PROBE=0 \
  BENCH_MEM_PATHS=${BENCH_MEM_PATHS:-pin/pin,stage/stage} \
    bench/runtime/mem.sh build-gpu all 67108864,8192 20 3 "$cpu,$gpu" 2>&1 | tee -a "$LOG"
done
say "== done in $(( $(date +%s) - t0 )) s"
