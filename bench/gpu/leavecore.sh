#!/usr/bin/env bash
# Issue 26: does a split on a program's malloc arrays pinned in place (foreign path "pin")
# run at the bus's speed when the PoCL CPU device leaves the GPU driver some cores?
# bench/runtime/mem.sh on vecadd 2^26 and gesummv 8192, paths pin/pin, once per PoCL thread
# count in LEAVECORE_CUS: the runtime's cpu_units (ht_runtime_opts, a sub-device of that
# many compute units; 0: all) through BENCH_MEM_CPU_UNITS, one database for all (tuned once).
# PoCL 5's POCL_CPU_MAX_CU_NUM did not change the CPU device's 16 units there
# (docs/results/h200-2026-11-28b/). The hand probe runs once, first.
# From the repository's root:  OUT=DIR [LEAVECORE_CUS="0 15 14 12"] [LEAVECORE_PROBLEM=vecadd
# LEAVECORE_N=67108864] bench/gpu/leavecore.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/leavecore.log"
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"
gpu_build
gpu_devices show
probe=1
db=/tmp/leavecore.db
"$H" devices --bandwidth --db "$db" >>"$LOG" 2>&1
for cu in ${LEAVECORE_CUS:-0 15 14 12}; do
  say "== cpu_units=$cu"
  HETUNE_DB=$db BENCH_MEM_LINKS=0 BENCH_MEM_PROBE=$probe BENCH_MEM_CPU_UNITS=$cu \
  BENCH_MEM_PATHS=${BENCH_MEM_PATHS:-pin/pin} \
    bench/runtime/mem.sh build-gpu "${LEAVECORE_PROBLEM:-all}" "${LEAVECORE_N:-67108864,8192}" 20 3 "$cpu,$gpu" 2>&1 | tee -a "$LOG"
  probe=0
done
say "== done in $(( $(date +%s) - t0 )) s"
