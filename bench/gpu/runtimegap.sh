#!/usr/bin/env bash
# Issue 26's "the decided split of vecadd 2^26 <= 1.05x the hand probe's best point", through
# the runtime, like with like: the probe's best point is the fastest of 55 runs (5 at each of
# 11 CPU shares), so the runtime launches 55 times too (after 3 warm-ups) and its fastest
# launch is compared. RUNTIMEGAP_ROUNDS rounds (default 5) of, in turn, the probe and
# bench/runtime/mem.sh's vecadd over the CPU and the first GPU (modes AUTO, SPLIT, ALONE, on
# the runtime's memory and on malloc arrays, every element of every launch checked).
# RUNTIMEGAP_AFFINITY=both: the runtime twice a round, PoCL's threads free and pinned.
# From the repository's root:  OUT=DIR bench/gpu/runtimegap.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/runtimegap.log"
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"
gpu_build
gpu_devices
n=67108864; db=$OUT/runtime.db
gpu_probe
gpu_vecadd_db "$db"
for r in $(seq "${RUNTIMEGAP_ROUNDS:-5}"); do
  say "== round $r: probe"
  build-gpu/coexec-limit 26 >>"$LOG" 2>&1
  tail -11 "$LOG" | awk '/^split cpu/ {print $5, $0}' | sort -n | head -1 | cut -d' ' -f2- |
    sed "s/^/$r probe /" | tee -a "$OUT/summary.txt"
  # RUNTIMEGAP_AFFINITY=both: the runtime twice a round, PoCL's worker threads free and
  # pinned (POCL_AFFINITY=1), each line tagged "free" or "pinned": do the CPU device's slow
  # spells go with its threads' placement, as its bimodal runs did on two cores (docs/guide.md)?
  for aff in $([ "${RUNTIMEGAP_AFFINITY:-}" = both ] && echo "free pinned" || echo "-"); do
    tag=""; [ "$aff" != - ] && tag="$aff "
    say "== round $r: the runtime, 55 launches ${tag}"
    (if [ "$aff" = pinned ]; then export POCL_AFFINITY=1
     elif [ "$aff" = free ]; then export POCL_AFFINITY=0; fi
     HETUNE_DB=$db BENCH_MEM_LINKS=0 BENCH_MEM_PROBE=0 BENCH_MEM_PATHS=auto/auto \
       bench/runtime/mem.sh build-gpu vecadd $n 55 3 "$cpu,$gpu" >"$OUT/run.txt" 2>&1)
    cat "$OUT/run.txt" >>"$LOG"
    grep -E "wall min|first launches" "$OUT/run.txt" | sed "s/^/$r ${tag}/" |
      tee -a "$OUT/summary.txt"
  done
done
# RUNTIMEGAP_SWITCH=1: then mode AUTO once more with the watch's ratio 0.5, so that its split
# falls back to the device alone and returns: the time of those two switches (bench_mem's
# "watch:" line), on both kinds of memory.
if [ "${RUNTIMEGAP_SWITCH:-0}" = 1 ]; then
  say "== the watch's switches, forced"
  HETUNE_DB=$db BENCH_MEM_LINKS=0 BENCH_MEM_PROBE=0 BENCH_MEM_PATHS=auto/auto \
    BENCH_MEM_MODES=auto BENCH_MEM_FALLBACK_RATIO=0.5 \
    bench/runtime/mem.sh build-gpu vecadd $n 20 3 "$cpu,$gpu" >"$OUT/switch.txt" 2>&1
  cat "$OUT/switch.txt" >>"$LOG"
  grep -E "wall min|watch:|first launches" "$OUT/switch.txt" | tee -a "$OUT/summary.txt"
fi
say "== done in $(( $(date +%s) - t0 )) s"
