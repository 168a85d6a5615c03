#!/usr/bin/env bash
# The split's history line on the GPU machine: `hetune split` of vecadd 2^26 over the CPU and
# the first GPU as decided, HIST_ROUNDS rounds on one database, each with how far it is off
# its prediction and the history of the rounds so far; the hand probe in rounds 1, the middle
# and the last. From the repository's root: OUT=DIR .gpu/hist.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/hist.log"
source bench/gpu/common.bash
gpu_build
gpu_devices show
gpu_probe || say "probe build failed"
gpu_vecadd_db "$OUT/h.db"
n=${HIST_ROUNDS:-8}
for r in $(seq "$n"); do
  if [ "$r" = 1 ] || [ "$r" = $(( (n + 1) / 2 )) ] || [ "$r" = "$n" ]; then
    build-gpu/coexec-limit 26 >>"$LOG" 2>&1
    tail -11 "$LOG" | awk '/^split cpu/ {print $5, $0}' | sort -n | head -1 | cut -d' ' -f2- |
      sed "s/^/$r probe /" | tee -a "$OUT/summary.txt"
  fi
  "$H" split examples/vecadd/spec.json --size N=67108864 --device "$cpu,$gpu" --db "$OUT/h.db" -q >"$OUT/run.txt" 2>&1
  cat "$OUT/run.txt" >>"$LOG"
  grep -E "^(predicted|measured|alone|ran alone|history) " "$OUT/run.txt" | sed "s/^/$r /" | tee -a "$OUT/summary.txt"
done
say "== done in $(( $(date +%s) - t0 )) s"
