#!/usr/bin/env bash
# Experiment: the shared host memory measured three ways beside the GPUs copying: A, hetune's
# CPU threads with fixed parts; B, threads taking chunks (dyn.patch, HT_HM_DYNAMIC=1); C, the
# CPU's OpenCL device itself running c = a + b in place (.gpu/probes/coprobe.c), each twice,
# then `hetune split` of vecadd 2^26 (database A) over the CPU and every GPU and over the CPU
# and the first GPU, CP_ROUNDS rounds. From the repository's root: OUT=DIR .gpu/cp.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/cp.log"
git apply .gpu/dyn.patch || { echo "patch failed"; exit 1; }
source bench/gpu/common.bash
gpu_build
gpu_devices show
gcc -O2 -std=gnu11 -o build-gpu/coprobe .gpu/probes/coprobe.c -lOpenCL -lpthread || { say "coprobe build failed"; exit 1; }
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
HT_HM_DYNAMIC=0 gpu_vecadd_db "$OUT/A.db"
"$H" devices --bandwidth --db "$OUT/A.db" 2>&1 | grep -E "GB/s   (c = a|reading|shared)" | sed "s/^/A0 /" | tee -a "$OUT/summary.txt"
for k in 1 2; do
  for t in A B; do
    d=0; [ $t = B ] && d=1
    HT_HM_DYNAMIC=$d "$H" devices --bandwidth --db "$OUT/scratch.db" 2>&1 |
      grep -E "GB/s   (c = a|reading|shared)" | sed "s/^/$t$k /" | tee -a "$OUT/summary.txt"
  done
  build-gpu/coprobe 256 20 2>&1 | sed "s/^/C$k /" | tee -a "$OUT/summary.txt"
done
for r in $(seq "${CP_ROUNDS:-3}"); do
  for s in $sets; do
    say "== round $r: over $s"
    "$H" split examples/vecadd/spec.json --size N=67108864 --device "$s" --db "$OUT/A.db" -q >"$OUT/run.txt" 2>&1
    cat "$OUT/run.txt" >>"$LOG"
    grep -E "^(predicted|host memory|measured|alone|ran alone) " "$OUT/run.txt" | sed "s/^/$r $s /" | tee -a "$OUT/summary.txt"
    off
  done
done
build-gpu/coprobe 256 20 2>&1 | sed "s/^/C3 /" | tee -a "$OUT/summary.txt"
say "== done in $(( $(date +%s) - t0 )) s"
