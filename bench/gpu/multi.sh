#!/usr/bin/env bash
# Issue 26 on a machine with a CPU and two or more GPUs: the host memory the CPU and every
# GPU's DMA share, and how well the split's prediction holds over three devices.
#   1. build (run.sh's build stage), the probe (../shared/probes/coexec-limit.c) and
#      .gpu/probes/align.c (whether PoCL runs a kernel in place on a host array below its
#      base alignment: the offsets 0, 16, 64 and 4 bytes past a page);
#   2. hetune devices --bandwidth (links, the host memory alone and shared), twice;
#   3. vecadd 2^26 (MULTI_CASES: "spec|sizes;...") split as decided and forced over
#      CPU+GPU0, GPU0+GPU1 and CPU+GPU0+GPU1, each as JSON in $OUT/json/.
# usage: OUT=... bench/gpu/multi.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-bench/gpu/out}
mkdir -p "$OUT/json"
LOG="$OUT/multi.log"
DB="$OUT/hetune.db"
[ -f "$DB" ] || [ ! -f .gpu/hetune.db ] || { cp .gpu/hetune.db "$DB" && chmod u+w "$DB"; }
HETUNE=${HETUNE_BIN:-build-gpu/hetune}
export HETUNE_CACHE_DIR=${HETUNE_CACHE_DIR:-/tmp/hetune-cache}
say() { printf '%s\n' "$*" | tee -a "$LOG"; }

OUT="$OUT" bench/gpu/run.sh build >/dev/null 2>&1 || { say "build failed"; tail -30 "$OUT/run.log"; exit 1; }
mkdir -p "$OUT/json"
say "== $(nproc) cores; $(nvidia-smi -L 2>/dev/null | tr '\n' ';')"
say "clang: $(command -v clang clang-18 clang-17 clang-16 clang-15 2>/dev/null | tr "\n" " ") fuzzer: $(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/*fuzzer* 2>/dev/null | head -3 | tr "\n" " ")"
if [ -f .gpu/probes/align.c ]; then
    gcc -O2 -o "$OUT/align" .gpu/probes/align.c -lOpenCL && for o in 0 16 64 4; do
        "$OUT/align" "$o" 2>&1 | tee -a "$LOG"; done
fi
if [ -f .gpu/probes/coexec-limit.c ]; then
    gcc -O2 -std=gnu11 -o "$OUT/coexec-limit" .gpu/probes/coexec-limit.c -lOpenCL -lpthread &&
        { say "\$ coexec-limit 26"; "$OUT/coexec-limit" 26 2>&1 | tee -a "$LOG"; }
fi
for i in 1 2; do
    say "\$ hetune devices --bandwidth ($i)"
    "$HETUNE" devices --bandwidth --json --db "$DB" > "$OUT/json/bandwidth-$i.json" 2>>"$LOG"
    "$HETUNE" devices --bandwidth --db "$DB" 2>&1 | tail -12 | tee -a "$LOG"
done
ids=$("$HETUNE" devices --json | python3 -c 'import json,sys; d=json.load(sys.stdin); d=d.get("devices",d)
c=[x["index"] for x in d if x["type"]=="CPU"][:1]; g=[x["index"] for x in d if x["type"]=="GPU"][:2]; print(" ".join(map(str,c+g)))')
read -r cpu g0 g1 <<< "$ids"
say "cpu $cpu gpus $g0 $g1"
IFS=';' read -r -a cases <<< "${MULTI_CASES:-examples/vecadd/spec.json|--size N=67108864}"
for c in "${cases[@]}"; do
    spec=${c%%|*}; sizes=${c#*|}; tag=$(basename "$(dirname "$spec")")
    for set in "$cpu,$g0" "$g0,$g1" "$cpu,$g0,$g1"; do
        for mode in decide force; do
            extra=; [ "$mode" = force ] && extra=--force
            f="$OUT/json/$tag-${set//,/-}-$mode.json"
            say "\$ hetune split $spec $sizes --device $set $extra --json"
            # shellcheck disable=SC2086
            "$HETUNE" split "$spec" $sizes --db "$DB" --device "$set" $extra --strategy random \
                --budget 40 --json > "$f" 2>>"$LOG"
            say "(exit $?)"
            python3 - "$f" <<'PY' | tee -a "$LOG"
import json, sys
d = json.load(open(sys.argv[1]))
def find(o, keys, out):
    if isinstance(o, dict):
        for k, v in o.items():
            if k in keys and not isinstance(v, (dict, list)): out.append(f"{k}={v}")
            find(v, keys, out)
    elif isinstance(o, list):
        for v in o: find(v, keys, out)
out = []
find(d, {"decision", "wall_seconds", "split_seconds", "bound_seconds", "predicted_seconds",
         "host_s", "host_floor", "host_bytes", "share", "speedup", "alone_seconds"}, out)
print("  " + " ".join(out[:40]))
PY
        done
    done
done
tar -C "$OUT" -czf "$OUT/multi-json.tgz" json && rm -rf "$OUT/json"
say "== done"
