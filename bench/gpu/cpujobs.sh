#!/usr/bin/env bash
# Builds ahead on a CPU device with its build workers paused while it measures (issue 25
# item 4), on the GPU machine's many cores: examples/sepconv tuned on the CPU device
# (PoCL) with --jobs 1 and --jobs $(nproc), CPUJOBS_ROUNDS rounds (default 2) in
# alternating order, each with cold caches (PoCL's and hetune's) and a fresh database, the
# same configurations each time (--strategy random --seed 1 --budget $CPUJOBS_BUDGET,
# default 120; CPUJOBS_BUDGET=0: the whole space, exhaustive). Prints each run's wall, its
# CPU time, and its best. CPUJOBS_BIN runs another hetune than the one built here (another
# tree's, built by the caller), CPUJOBS_TAG names its runs. From the repository's root:
#   OUT=DIR bench/gpu/cpujobs.sh   (the log and each run's JSON land in DIR)
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG="$OUT/cpujobs.log"
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"
gpu_build
gpu_devices
H=${CPUJOBS_BIN:-$H}
tag=${CPUJOBS_TAG:-jobs}
nj=$(nproc)
budget=${CPUJOBS_BUDGET:-120}
search=(--strategy random --seed 1 --budget "$budget")
[ "$budget" = 0 ] && search=(--strategy exhaustive)
say "== $H: cpu device $cpu, $nj cores, sepconv, ${search[*]}"
one() { # one JOBS ROUND
    local d
    d=$(mktemp -d /tmp/cpujobs.XXXXXX)
    POCL_CACHE_DIR=$d/pc HETUNE_CACHE_DIR=$d/hc HETUNE_LOCK_DIR=$d/lk /usr/bin/time \
        -f "%e %U %S" -o "$d/time" "$H" tune examples/sepconv/spec.json --device "$cpu" \
        --db "$d/x.db" --fresh "${search[@]}" --jobs "$1" \
        --json -q > "$OUT/$tag$1-r$2.json" 2>>"$LOG"
    local rc=$?
    read -r wall user sys < "$d/time"
    best=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
x = d["devices"][0]
print("%.6g s %s, %d evaluated, %d built ahead" % (x["best"]["seconds"], x["best"]["config"],
      x["evaluated"], x["built_ahead"]))' \
        "$OUT/$tag$1-r$2.json" 2>/dev/null)
    say "$tag round $2 --jobs $1: exit $rc, wall $wall s, cpu $(python3 -c "print(round($user + $sys, 1))") s, best $best"
    rm -rf "$d"
}
for r in $(seq "${CPUJOBS_ROUNDS:-2}"); do
    if [ $((r % 2)) -eq 1 ]; then one 1 "$r"; one "$nj" "$r"; else one "$nj" "$r"; one 1 "$r"; fi
done
say "== done in $(( $(date +%s) - t0 )) s"
