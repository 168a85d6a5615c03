#!/usr/bin/env bash
# The runtime's first launch after binding a program's malloc arrays (mode AUTO, vecadd 2^26
# over the first CPU device and the first GPU): that launch makes a measured decision for
# the program's memory. A/B between an older tree, .gpu/old.tgz (benches built), and this
# one, in one call, FIRST_ROUNDS rounds (default 3), old first in odd rounds, new first in
# even ones; one database tuned once by this tree. Each round's bench_mem lines (the
# decision, "first launches", wall) tagged old or new into the summary; every element of
# every launch is checked by bench_mem. Then the runtime against the hand probe
# (runtimegap.sh) FIRST_GAP_ROUNDS rounds (default 0) on this tree.
# The old tree: see gpu_build_old (common.bash).
# From the repository's root:  OUT=DIR bench/gpu/firstlaunch.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/firstlaunch.log"
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"
gpu_build
gpu_devices
old=/tmp/flold; gpu_build_old "$old" ON
n=67108864; db=$OUT/first.db
gpu_vecadd_db "$db"
for r in $(seq "${FIRST_ROUNDS:-3}"); do
  order="old new"; [ $((r % 2)) = 0 ] && order="new old"
  for t in $order; do
    b=$PWD/build-gpu; [ "$t" = old ] && b=$old/build-gpu
    say "== round $r: $t"
    HETUNE_DB=$db BENCH_MEM_LINKS=0 BENCH_MEM_PROBE=0 BENCH_MEM_PATHS=auto/auto \
      BENCH_MEM_MODES=auto bench/runtime/mem.sh "$b" vecadd $n 10 0 "$cpu,$gpu" \
      >"$OUT/run.txt" 2>&1
    cat "$OUT/run.txt" >>"$LOG"
    grep -E "wall min|decision|first launches" "$OUT/run.txt" | sed "s/^/$t $r /" |
      tee -a "$OUT/summary.txt"
  done
done
if [ "${FIRST_GAP_ROUNDS:-0}" -gt 0 ]; then
  RUNTIMEGAP_ROUNDS=$FIRST_GAP_ROUNDS OUT=$OUT/gap bash "$(dirname "$0")/runtimegap.sh"
fi
say "== done in $(( $(date +%s) - t0 )) s"
