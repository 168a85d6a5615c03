#!/usr/bin/env bash
# Guess: the shared host memory's probe measures too little on the H200 machine because its
# CPU threads each take a fixed part, and the slowest sets each pass while the others wait
# (a split's CPU device hands out work-groups as threads free up). dyn.patch adds
# HT_HM_DYNAMIC=1 (threads take 256 KiB chunks from a counter) and HT_HM_SPREAD=1 (each
# pass's window and its fastest and slowest thread). A = fixed parts, B = chunks: each
# stored in its own database and measured twice more, then `hetune split` of vecadd 2^26 over
# the CPU and every GPU, and over the CPU and the first GPU, A and B alternating.
# From the repository's root: OUT=DIR .gpu/dyn.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/dyn.log"
git apply .gpu/dyn.patch || { echo "patch failed"; exit 1; }
source bench/gpu/common.bash
gpu_build
gpu_devices show
all=$(python3 -c '
import json, sys; d=json.load(open(sys.argv[1]))["devices"]
c=[x["index"] for x in d if x["is_cpu"]][:1]; g=[x["index"] for x in d if x["is_gpu"]]
print(",".join(map(str, c + g)))' "$OUT/devices.json")
sets="$all"; [ "$all" != "$cpu,$gpu" ] && sets="$all $cpu,$gpu"
off() {
  awk '/^predicted/ {p = $3} /^measured +wall/ {m = $3} /^measured +the split took/ {m = $5}
       END { if (p > 0 && m > 0) { e = 100 * (m / p - 1)
             printf "off           %+.1f%% (measured %.3f / predicted %.3f ms)%s\n", e, m, p,
                    (e <= 15 && e >= -15) ? ", within 15%" : ", NOT within 15%" } }' \
    "$OUT/run.txt" | tee -a "$OUT/summary.txt"
}
HT_HM_DYNAMIC=0 HT_HM_SPREAD=1 gpu_vecadd_db "$OUT/A.db" 2>>"$OUT/spread.txt"
grep hmspread "$LOG" >> "$OUT/spread.txt"
cp "$OUT/A.db" "$OUT/B.db"
for t in B A B A; do
  d=0; [ $t = B ] && d=1
  db=$OUT/$t.db; [ -f "$OUT/$t.stored" ] && db=$OUT/scratch.db
  say "== host memory $t (HT_HM_DYNAMIC=$d) into $(basename "$db")"
  echo "== $t" >> "$OUT/spread.txt"
  HT_HM_DYNAMIC=$d HT_HM_SPREAD=1 "$H" devices --bandwidth --db "$db" 2>"$OUT/err.txt" |
    grep -E "GB/s   (c = a|reading|shared)" | sed "s/^/$t /" | tee -a "$OUT/summary.txt"
  grep hmspread "$OUT/err.txt" >> "$OUT/spread.txt"
  touch "$OUT/$t.stored"
done
for r in $(seq "${DYN_ROUNDS:-3}"); do
  for s in $sets; do
    for t in A B; do
      say "== round $r: $t over $s"
      "$H" split examples/vecadd/spec.json --size N=67108864 --device "$s" --db "$OUT/$t.db" -q >"$OUT/run.txt" 2>&1
      cat "$OUT/run.txt" >>"$LOG"
      grep -E "^(predicted|host memory|measured|alone|ran alone) " "$OUT/run.txt" | sed "s/^/$t $r /" | tee -a "$OUT/summary.txt"
      off
    done
  done
done
say "== done in $(( $(date +%s) - t0 )) s"
