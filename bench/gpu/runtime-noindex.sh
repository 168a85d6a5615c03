#!/usr/bin/env bash
# Issue 26 items 4 and 7 on a CPU+GPU machine, through the runtime (ht_runtime_*), in one
# call with the hand probe:
#   1. build (as noindex.sh: build-gpu, Release, .gpu's static jansson and SQLite);
#   2. the hand probe ../shared/probes/coexec-limit.c at 2^26 (brought in .gpu/probes);
#   3. examples/runtime (runtime-example) on vecadd 2^26 over every device (there: the CPU
#      device and the GPU), modes auto, split and alone, with the spec's "index" on the
#      output and without it (the runtime infers the written slab by a probe at open,
#      stored for the next open);
#   4. bench/runtime/mem.sh: vecadd 2^26 and gesummv 8192 on the program's malloc arrays
#      and on ht_runtime_alloc's, modes AUTO, SPLIT and ALONE (every element checked).
# From the repository's root:  OUT=DIR bench/gpu/runtime-noindex.sh   (logs land in DIR)
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/runtime-noindex.log"
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"
gpu_build
gpu_devices show
say "== cpu $cpu gpu $gpu"

if [ -f .gpu/probes/coexec-limit.c ] &&
   gcc -O2 -std=gnu11 -o "$OUT/coexec-limit" .gpu/probes/coexec-limit.c -lOpenCL -lpthread; then
  say "\$ coexec-limit 26"; "$OUT/coexec-limit" 26 2>&1 | tee -a "$LOG"
fi

# The vecadd spec with and without "index" on its output, at 2^26.
mkdir -p "$OUT/spec"
python3 - examples/vecadd/spec.json "$OUT/spec" "$PWD/examples/vecadd/kernel.cl" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["kernel"]["file"] = sys.argv[3]
json.dump(s, open(sys.argv[2] + "/index.json", "w"))
s["name"] = s["name"] + "_noindex"
for a in s["args"]:
    if a.get("access") in ("write", "readwrite"):
        a.pop("index", None)
json.dump(s, open(sys.argv[2] + "/noindex.json", "w"))
PY
ex=build-gpu/examples/runtime-example
[ -x "$ex" ] || ex=$(find build-gpu -name runtime-example -type f | head -1)
export HETUNE_DB=/tmp/rt-noindex.db
$H devices --bandwidth --db "$HETUNE_DB" >>"$LOG" 2>&1
for spec in index noindex; do
  for mode in auto split alone auto; do
    say "\$ runtime-example $spec.json 67108864 $mode (every device)"
    "$ex" "$OUT/spec/$spec.json" 67108864 "$mode" 2>&1 | tee -a "$LOG"
  done
done

say "== bench/runtime/mem.sh"
HETUNE_DB=/tmp/rt-mem.db bench/runtime/mem.sh build-gpu all 67108864,8192 20 3 "$cpu,$gpu" \
  2>&1 | tee -a "$LOG"
say "== done in $(( $(date +%s) - t0 )) s"
