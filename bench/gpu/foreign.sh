#!/usr/bin/env bash
# Issue 26 item 1 on a CPU+GPU machine: how the GPU moves a program's malloc arrays, per
# foreign path (stage, register, direct), in one call with the hand probe:
#   1. build (as runtime-noindex.sh: build-gpu, Release, .gpu's static jansson and SQLite);
#   2. `hetune devices --bandwidth` into the database (pinned and pageable rates per link);
#   3. the hand probe ../shared/probes/coexec-limit.c at 2^26 (brought in .gpu/probes);
#   4. bench/gpu/regslice.c: a slice of a malloc array through a buffer over the whole
#      array or over the slice (CL_MEM_USE_HOST_PTR), pinned staging, pageable direct, with
#      and without memory-copying threads beside it;
#   5. bench/runtime/mem.sh: vecadd 2^26 (and gesummv 8192 with MEM_PROBLEM=all) through
#      the runtime on the program's malloc arrays and on ht_runtime_alloc's, modes AUTO,
#      SPLIT and ALONE, each path of BENCH_MEM_PATHS (default auto/auto, direct/direct,
#      stage/stage, register/register), every element checked.
# From the repository's root:  OUT=DIR bench/gpu/foreign.sh   (logs land in DIR)
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/foreign.log"
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"
gpu_build
gpu_devices show
say "== cpu $cpu gpu $gpu, $(nproc) cores"
export HETUNE_DB=${HETUNE_DB:-/tmp/foreign.db}
say "\$ hetune devices --bandwidth"
$H devices --bandwidth --db "$HETUNE_DB" 2>&1 | tee -a "$LOG"
if [ -f .gpu/probes/coexec-limit.c ] &&
   gcc -O2 -std=gnu11 -o "$OUT/coexec-limit" .gpu/probes/coexec-limit.c -lOpenCL -lpthread; then
  say "\$ coexec-limit 26"; "$OUT/coexec-limit" 26 2>&1 | tee -a "$LOG"
fi
if gcc -O2 -std=gnu11 -I.gpu/include -o "$OUT/regslice" bench/gpu/regslice.c -lOpenCL -lpthread; then
  for burn in 0 12; do
    say "\$ regslice 26 0.45 $burn"; "$OUT/regslice" 26 0.45 "$burn" 2>&1 | tee -a "$LOG"
  done
fi
say "== bench/runtime/mem.sh"
BENCH_MEM_LINKS=0 BENCH_MEM_PROBE=0 \
BENCH_MEM_PATHS=${BENCH_MEM_PATHS:-auto/auto,direct/direct,stage/stage,register/register} \
  bench/runtime/mem.sh build-gpu "${MEM_PROBLEM:-vecadd}" 67108864,8192 20 3 "$cpu,$gpu" \
  2>&1 | tee -a "$LOG"
say "\$ coexec-limit 26 (again)"; "$OUT/coexec-limit" 26 2>&1 | tee -a "$LOG"
say "== done in $(( $(date +%s) - t0 )) s"
