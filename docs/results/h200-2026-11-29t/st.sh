#!/usr/bin/env bash
# The shared host memory's probe with the CPU's threads on every core (B, st.patch) against
# one core less per copying device (A, hetune's), on a CPU + 1 GPU machine: each measured
# twice, then `hetune split` of vecadd 2^26 over the CPU and the GPU as decided, A and B
# alternating, ST_ROUNDS rounds. From the repository's root: OUT=DIR .gpu/st.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/st.log"
source bench/gpu/common.bash
gpu_build
gpu_devices show
B=/tmp/stb; rm -rf $B; mkdir -p $B
tar -cf - --exclude=./build-gpu --exclude=./build --exclude=./.git . | tar -xf - -C $B
(cd $B && git apply .gpu/st.patch) >>"$LOG" 2>&1 || { say "patch failed"; exit 1; }
cmake -S $B -B $B/build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF \
  -DHETUNE_STATIC_DEPS=ON -DCMAKE_PREFIX_PATH="$PWD/.gpu" >>"$LOG" 2>&1 &&
  cmake --build $B/build-gpu -j "$(nproc)" >>"$LOG" 2>&1 || { say "B build failed"; exit 1; }
HB=$B/build-gpu/hetune
gpu_vecadd_db "$OUT/A.db"
say "== host memory A (online - n threads)"
"$H" devices --bandwidth --db "$OUT/A.db" 2>&1 | grep -E "GB/s   (c = a|reading|shared)" | tee -a "$OUT/summary.txt"
cp "$OUT/A.db" "$OUT/B.db"
for k in 1 2; do
  say "== host memory B (all threads), $k"
  "$HB" devices --bandwidth --db "$OUT/B.db" 2>&1 | grep -E "GB/s   (c = a|reading|shared)" | tee -a "$OUT/summary.txt"
done
say "== host memory A again (not stored)"
"$H" devices --bandwidth 2>&1 | grep -E "GB/s   (shared)" | tee -a "$OUT/summary.txt"
for r in $(seq "${ST_ROUNDS:-4}"); do
  for t in A B; do
    h=$H; [ $t = B ] && h=$HB
    say "== round $r: $t"
    "$h" split examples/vecadd/spec.json --size N=67108864 --device "$cpu,$gpu" --db "$OUT/$t.db" -q >"$OUT/run.txt" 2>&1
    cat "$OUT/run.txt" >>"$LOG"
    grep -E "^(predicted|host memory|measured|alone|ran alone) " "$OUT/run.txt" | sed "s/^/$t $r /" | tee -a "$OUT/summary.txt"
  done
done
say "== done in $(( $(date +%s) - t0 )) s"
