#!/usr/bin/env bash
# A/B of `hetune split` as decided (vecadd 2^26 over the first CPU device and the first GPU)
# between an older tree, .gpu/old.tgz, and this one, in one call: both built as gpu_build
# does (the old one without its benches), one database tuned once by this tree,
# then AB_ROUNDS (default 4) rounds, old first in odd rounds and new first in even ones
# (the 2026-11-29 call ran old first every time), each line of the summary tagged.
# Issue 27 item 5 ("benches give the same figures") on the GPU machine.
# The old tree, small enough to carry:
#   git archive REV -- . ':!docs' | gzip > .gpu/old.tgz
# From the repository's root:  OUT=DIR bench/gpu/abcheck.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/abcheck.log"
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"
gpu_build
gpu_devices
old=/tmp/abold; gpu_build_old "$old" OFF
O=$old/build-gpu/hetune
db=$OUT/ab.db; spec=examples/vecadd/spec.json; n=67108864
gpu_vecadd_db "$db" "$spec"
for r in $(seq "${AB_ROUNDS:-4}"); do
  order="old new"; [ $((r % 2)) = 0 ] && order="new old"
  for t in $order; do
    b=$H; [ "$t" = old ] && b=$O
    "$b" split "$spec" --size N=$n --device "$cpu,$gpu" --db "$db" -q > "$OUT/run.txt" 2>&1
    grep -E "^(predicted|measured) " "$OUT/run.txt" | sed "s/^/$t $r /" | tee -a "$OUT/summary.txt"
    cat "$OUT/run.txt" >> "$LOG"
  done
done
say "== done in $(( $(date +%s) - t0 )) s"
