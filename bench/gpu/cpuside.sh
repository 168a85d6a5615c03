#!/usr/bin/env bash
# Issue 26, "both sides slower than the probe": in a split of vecadd 2^26 over CPU+GPU the
# CPU's part ran 1.5x slower per element than the CPU alone, where the hand probe's CPU part
# (one element per work-item, local size 256) ran 1.2x slower. This asks whether hetune's
# tuned CPU configuration (elements per work-item EPT > 1 on the H200 machine) is what
# suffers beside the GPU's copies: CPUSIDE_ROUNDS rounds (default 3) of, in turn, the hand
# probe, `hetune split` as decided on the spec as it is, and the same on a copy of the spec
# whose EPT may only be 1 (each tuned once into a database of its own), the per-device
# kernel and transfer columns printed. From the repository's root:  OUT=DIR bench/gpu/cpuside.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/cpuside.log"
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"
gpu_build
gpu_devices
n=67108864; spec=examples/vecadd/spec.json
ept1=examples/vecadd/spec-ept1.json
python3 - "$spec" "$ept1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["params"]["EPT"] = {"values": [1]}
s["name"] = "vecadd-ept1"; json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
gpu_probe
for s in "$spec" "$ept1"; do
  gpu_vecadd_db "$OUT/$(basename "$s" .json).db" "$s"
done
for r in $(seq "${CPUSIDE_ROUNDS:-3}"); do
  say "== round $r: probe"
  build-gpu/coexec-limit 26 >>"$LOG" 2>&1
  tail -11 "$LOG" | grep "^split cpu" | tee -a "$OUT/summary.txt"
  for s in "$spec" "$ept1"; do
    db=$OUT/$(basename "$s" .json).db
    say "== round $r: hetune split, decided, $(basename "$s")"
    "$H" split "$s" --size N=$n --device "$cpu,$gpu" --db "$db" -q > "$OUT/run.txt" 2>&1
    cat "$OUT/run.txt" >> "$LOG"
    grep -E "^[01] |^(predicted|measured|alone) " "$OUT/run.txt" | tee -a "$OUT/summary.txt"
  done
done
rm -f "$ept1"
say "== done in $(( $(date +%s) - t0 )) s"
