#!/usr/bin/env bash
# Experiment (issue 26, the CPU + 2 GPU prediction): the shared host memory measured with
# each device's copies one way at a time (write, then read: as hetune measures it) and with
# both ways at once (one thread writing, one reading, per device: HT_SHARED_MODE=duplex),
# each with the CPU's and each copy's own rates (HT_SHARED_DEBUG=1); then `hetune split` of
# vecadd 2^26 over the CPU and both GPUs, as decided, on the database of each, DUPLEX_ROUNDS
# times alternating (default 4), and once each over the CPU and the first GPU.
# The two modes and the rates are an experiment's, in duplex.patch beside this script (not in
# hetune: the half-duplex measure stays, this run refuted the duplex one). From the
# repository's root:
#   git apply docs/results/h200x2-2026-11-29b/duplex.patch
#   OUT=DIR docs/results/h200x2-2026-11-29b/duplex.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/duplex.log"
# shellcheck source=../../../bench/gpu/common.bash
source bench/gpu/common.bash
gpu_build
gpu_devices show
read -r g1 < <(python3 -c '
import json, sys; d=json.load(open(sys.argv[1]))["devices"]
g=[x["index"] for x in d if x["is_gpu"]]
print(g[1] if len(g) > 1 else "")' "$OUT/devices.json")
[ -n "$g1" ] || { say "needs two GPUs"; exit 1; }
half=$OUT/half.db; dup=$OUT/duplex.db; spec=examples/vecadd/spec.json; n=67108864
export HT_SHARED_DEBUG=1
"$H" devices --bandwidth --db "$half" >>"$LOG" 2>&1
for d in "$cpu" "$gpu" "$g1"; do
  "$H" tune "$spec" --size N=$n --device "$d" --db "$half" -q >>"$LOG" 2>&1
done
cp "$half" "$dup"
HT_SHARED_MODE=duplex "$H" devices --bandwidth --db "$dup" >>"$LOG" 2>&1
grep -E "^shared\[|shared" "$LOG" | tee -a "$OUT/summary.txt"
split() { # label db devices
  say "== $1: split over $3"
  "$H" split "$spec" --size N=$n --device "$3" --db "$2" -q >"$OUT/run.txt" 2>&1
  grep -E "^(#|[0-9] |predicted|host memory|measured|alone) " "$OUT/run.txt" | tee -a "$OUT/summary.txt"
  cat "$OUT/run.txt" >>"$LOG"
}
for r in $(seq "${DUPLEX_ROUNDS:-4}"); do
  if [ $((r % 2)) = 1 ]; then split "half r$r" "$half" "$cpu,$gpu,$g1"; split "duplex r$r" "$dup" "$cpu,$gpu,$g1"
  else split "duplex r$r" "$dup" "$cpu,$gpu,$g1"; split "half r$r" "$half" "$cpu,$gpu,$g1"; fi
done
split "half, one GPU" "$half" "$cpu,$gpu"
split "duplex, one GPU" "$dup" "$cpu,$gpu"
say "== the measures again (repeatability)"
for m in half duplex half duplex; do
  HT_SHARED_MODE=$m "$H" devices --bandwidth --db "$OUT/again-$m.db" 2>&1 | grep -E "^shared\[" | tee -a "$OUT/summary.txt"
done
say "== done in $(( $(date +%s) - t0 )) s"
