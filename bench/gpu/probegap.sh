#!/usr/bin/env bash
# Issue 26's goal "the decided split of vecadd 2^26 <= 1.05x the hand probe's best point in
# the same call", on a machine whose hours differ by 30%: PROBEGAP_ROUNDS rounds (default 3)
# of, in turn, the hand probe (../shared/probes/coexec-limit.c from .gpu/probes), `hetune
# split` as decided (its 10 runs, and 55 as the probe's best point has), `hetune split
# --refine 2`, and bench/runtime/mem.sh's vecadd (the
# runtime, modes AUTO, SPLIT, ALONE), so that each figure has a probe beside it in time.
# The database (PROBEGAP_DB, default /tmp/cpurate.db: bench/gpu/cpurate.sh's) is tuned at
# 2^26 first where it has nothing. From the repository's root:  OUT=DIR bench/gpu/probegap.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/probegap.log"
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"
gpu_build
gpu_devices
db=${PROBEGAP_DB:-/tmp/cpurate.db}
spec=examples/vecadd/spec.json; n=67108864
[ -f "$db" ] || "$H" devices --bandwidth --db "$db" >>"$LOG" 2>&1
gpu_probe
for r in $(seq "${PROBEGAP_ROUNDS:-3}"); do
  say "== round $r: probe"
  build-gpu/coexec-limit 26 >>"$LOG" 2>&1
  tail -11 "$LOG" | awk '/^split cpu/ {print $5, $0}' | sort -n | head -1 | cut -d' ' -f2-
  say "== round $r: hetune split, decided"
  "$H" split "$spec" --size N=$n --device "$cpu,$gpu" --db "$db" -q >>"$LOG" 2>&1
  tail -30 "$LOG" | grep -E "^(predicted|measured|alone) "
  # The probe's best point is the fastest of its 55 runs (5 at each of 11 shares): the same
  # count here compares like with like (bench/gpu/fairgap.sh, docs/results-gpu.md).
  say "== round $r: hetune split, decided, --repeats 55"
  "$H" split "$spec" --size N=$n --device "$cpu,$gpu" --db "$db" --repeats 55 -q >>"$LOG" 2>&1
  tail -30 "$LOG" | grep -E "^measured "
  say "== round $r: hetune split --refine 2"
  "$H" split "$spec" --size N=$n --device "$cpu,$gpu" --db "$db" --refine 2 -q >>"$LOG" 2>&1
  tail -40 "$LOG" | grep -iE "^(predicted|measured|alone|refine)"
  say "== round $r: the runtime (bench_mem)"
  HETUNE_DB=$db BENCH_MEM_LINKS=0 BENCH_MEM_PROBE=0 BENCH_MEM_PATHS=auto/auto \
    bench/runtime/mem.sh build-gpu vecadd $n 20 3 "$cpu,$gpu" 2>&1 | grep -E "wall min|share|decision" | tee -a "$LOG"
done
say "== done in $(( $(date +%s) - t0 )) s"
