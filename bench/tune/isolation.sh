#!/usr/bin/env bash
# bench/tune/isolation.sh: the cost of isolation (issue 13, goal <= 1.05x). The same space
# (bench/tune/isolation.json: vecadd, N=2^20, 99 configurations, fewer where Eq. 3 prunes
# some) is tuned on one device with every configuration in a worker process (the default)
# and in the tuning process (--no-isolate), ROUNDS times each, alternating, with the binary cache warm and
# everything measured again (--fresh; early termination off, so both do the same work).
# Prints each mode's median wall time of the whole process and the ratio worker / in-process.
#
# usage: bench/tune/isolation.sh [HETUNE]   (default: $HETUNE, else build/hetune)
# environment: DEVICE (default 0), ROUNDS (default 5)
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
hetune=${1:-${HETUNE:-$root/build/hetune}}
[ -x "$hetune" ] || { echo "bench/tune: no hetune binary at $hetune (build it first)" >&2; exit 2; }
device=${DEVICE:-0}
rounds=${ROUNDS:-5}
spec="$root/bench/tune/isolation.json"
work=$(mktemp -d "${TMPDIR:-/tmp}/hetune-bench-iso.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HETUNE_CACHE_DIR="$work/cache"

# Warms the binary cache (and PoCL's), untimed.
"$hetune" tune "$spec" --device "$device" --db "$work/warm.db" --cut-factor 0 >/dev/null

# Tunes once in mode $1 (worker or inproc); appends the wall seconds to $work/$1.
once() {
    local extra=
    [ "$1" = inproc ] && extra=--no-isolate
    local t0 t1
    t0=$(date +%s%N)
    "$hetune" tune "$spec" --device "$device" --db "$work/$1.db" --fresh --cut-factor 0 \
        --json $extra >"$work/$1.json"
    t1=$(date +%s%N)
    python3 -c "print(($t1 - $t0) / 1e9)" >>"$work/$1"
    python3 - "$work/$1.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
want = sys.argv[2] == "worker"
if d["evaluated"] != d["space"] or d["isolated"] != want:
    sys.exit(f"bench/tune: {sys.argv[2]}: evaluated {d['evaluated']}, isolated {d['isolated']}")
PY
}

for _ in $(seq "$rounds"); do
    once worker
    once inproc
done

space=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][0]["space"])' "$work/worker.json")
python3 - "$work/worker" "$work/inproc" "$rounds" "$space" <<'PY'
import statistics, sys
w = [float(x) for x in open(sys.argv[1])]
p = [float(x) for x in open(sys.argv[2])]
mw, mp = statistics.median(w), statistics.median(p)
print(f"isolation cost: {sys.argv[4]} configurations, binary cache warm, median of {sys.argv[3]} runs each")
print(f"  worker process   {mw:8.3f} s   (runs: {', '.join(f'{x:.3f}' for x in w)})")
print(f"  in-process       {mp:8.3f} s   (runs: {', '.join(f'{x:.3f}' for x in p)})")
print(f"  ratio            {mw / mp:8.3f}x  (goal <= 1.05)")
PY
