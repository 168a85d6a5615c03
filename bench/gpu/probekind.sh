#!/usr/bin/env bash
# Issue 26, "both sides slower than the probe": in a split of vecadd 2^26 over CPU+GPU,
# hetune's GPU part moved its slice 1.6-1.7x slower than the GPU alone, the hand probe's
# 1.2x (2026-11-29, docs/results/h200-2026-11-29i). The probe's CPU part works in place on
# arrays of its own (aligned_alloc) while the GPU copies from separate pinned arrays;
# hetune's CPU and GPU parts share one set of arrays, pinned by the GPU's driver. Each of
# PROBEKIND_ROUNDS rounds (default 2) runs, in turn: the probe as it is; the probe with its
# CPU part on the GPU's pinned arrays (one set, as hetune); and `hetune split` as decided
# with --piece-bytes 16 MiB, the default (32 MiB), 64 MiB, and with --cpu-units 15.
# From the repository's root:  OUT=DIR bench/gpu/probekind.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/probekind.log"
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"
gpu_build
gpu_devices
n=67108864; spec=examples/vecadd/spec.json; db=$OUT/kind.db
gpu_probe
sed -e 's/,A+lo,/,PA+lo,/' -e 's/,B+lo,/,PB+lo,/' -e 's/,C+lo,/,PC+lo,/' \
    .gpu/probes/coexec-limit.c > build-gpu/coexec-shared.c
grep -c "P[ABC]+lo" build-gpu/coexec-shared.c | sed 's/^/shared variant: replaced /' | tee -a "$LOG"
gcc -O2 -std=gnu11 -o build-gpu/coexec-shared build-gpu/coexec-shared.c -lOpenCL -lpthread
gpu_vecadd_db "$db" "$spec"
best() { tail -11 "$LOG" | awk '/^split cpu/ {print $5, $0}' | sort -n | head -1 | cut -d' ' -f2-; }
for r in $(seq "${PROBEKIND_ROUNDS:-2}"); do
  for p in limit shared; do
    say "== round $r: probe $p"
    build-gpu/coexec-$p 26 >>"$LOG" 2>&1
    best | sed "s/^/$r probe-$p /" | tee -a "$OUT/summary.txt"
  done
  for v in "--piece-bytes 16777216" "" "--piece-bytes 67108864" "--cpu-units 15"; do
    say "== round $r: hetune split $v"
    # shellcheck disable=SC2086
    "$H" split "$spec" --size N=$n --device "$cpu,$gpu" --db "$db" -q $v > "$OUT/run.txt" 2>&1
    cat "$OUT/run.txt" >> "$LOG"
    grep -E "^[01] |^measured " "$OUT/run.txt" | sed "s/^/$r split[$v] /" | tee -a "$OUT/summary.txt"
  done
done
say "== done in $(( $(date +%s) - t0 )) s"
