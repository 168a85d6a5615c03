#!/usr/bin/env bash
# Is `hetune split`'s gap to the hand probe this lease's or the tree's? An older tree
# (.gpu/old.tgz) and this one, `hetune split` of vecadd 2^26 over the CPU and the first GPU as
# decided, alternating, AB_ROUNDS rounds, the hand probe first in each round. The old tree
# tunes its database; this tree's is a copy (migrated on open). From the repository's root:
#   OUT=DIR .gpu/abprobe.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/abprobe.log"
source bench/gpu/common.bash
gpu_build
gpu_devices
gpu_probe
old=/tmp/abold; gpu_build_old "$old" OFF
O=$old/build-gpu/hetune
spec=examples/vecadd/spec.json; n=67108864
{ "$O" devices --bandwidth --db "$OUT/old.db"
  "$O" tune "$spec" --size N=$n --device "$cpu" --db "$OUT/old.db" -q
  "$O" tune "$spec" --size N=$n --device "$gpu" --db "$OUT/old.db" -q; } >>"$LOG" 2>&1
cp "$OUT/old.db" "$OUT/new.db"
for r in $(seq "${AB_ROUNDS:-4}"); do
  build-gpu/coexec-limit 26 >>"$LOG" 2>&1
  tail -11 "$LOG" | awk '/^split cpu/ {print $5, $0}' | sort -n | head -1 | cut -d' ' -f2- |
    sed "s/^/$r probe /" | tee -a "$OUT/summary.txt"
  order="old new"; [ $((r % 2)) = 0 ] && order="new old"
  for t in $order; do
    b=$H; [ "$t" = old ] && b=$O
    "$b" split "$spec" --size N=$n --device "$cpu,$gpu" --db "$OUT/$t.db" -q > "$OUT/run.txt" 2>&1
    grep -E "^0   0 |^(predicted|measured|alone|ran alone) " "$OUT/run.txt" | sed "s/^/$t $r /" | tee -a "$OUT/summary.txt"
    cat "$OUT/run.txt" >> "$LOG"
  done
done
say "== done in $(( $(date +%s) - t0 )) s"
