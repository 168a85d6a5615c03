#!/usr/bin/env bash
# bench/split/dop.sh: the degree of parallelism (issue 18, Dopia) on this machine's devices.
# For each case, `hetune split --cpu-units auto` runs the whole split at all the CPU's compute
# units, all but one, 3/4, 1/2 and 1/4, and keeps the fastest measured; printed per count its
# wall time (the split, or the device alone when hetune decides so), and the ratio of the
# wall at all units over the kept one (>= 1: the tuned count is never slower, up to noise:
# each count is a separate measurement).
#
# usage: bench/split/dop.sh [HETUNE] [DEVICES]   (defaults: build/hetune, all devices)
# environment: CASES="spec|--size N=...;..." (default: vecadd at 2^26 and conv1d at 2^22),
# DB (default: a fresh database in a temporary folder), ROUNDS (default 1: each case once).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
hetune=${1:-${HETUNE:-$root/build/hetune}}
devices=${2:-all}
[ -x "$hetune" ] || { echo "bench/split/dop.sh: no hetune binary at $hetune" >&2; exit 2; }
cases=${CASES:-"examples/vecadd/spec.json|--size N=67108864;examples/conv1d/spec.json|--size N=4194304"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=${DB:-$tmp/dop.db}
rounds=${ROUNDS:-1}

IFS=';' read -ra list <<<"$cases"
for c in "${list[@]}"; do
    spec=${c%%|*}
    args=${c#*|}
    for r in $(seq "$rounds"); do
        # shellcheck disable=SC2086
        "$hetune" split "$root/$spec" $args --device "$devices" --cpu-units auto --db "$db" \
            --json -q >"$tmp/out.json" || { echo "$spec $args: exit $?" >&2; continue; }
        python3 - "$tmp/out.json" "$spec $args (round $r)" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
dop = d.get("dop") or []
if not dop:
    print(f"{sys.argv[2]}: no CPU device can be partitioned; nothing tried")
    sys.exit(0)
walls = {x["cpu_units"]: x["wall_seconds"] for x in dop}
kept = min(walls.values())
allw = walls[dop[0]["cpu_units"]]
print(sys.argv[2])
for x in dop:
    mark = "  <- kept" if x["wall_seconds"] == kept else ""
    print(f"  cpu units {x['cpu_units']:4d}: {x['wall_seconds'] * 1e3:9.3f} ms"
          f"{' (alone)' if x['ran_alone'] else ''}{mark}")
print(f"  all units / kept: {allw / kept:.3f}x; decision {d['decision']}, "
      f"speedup over the fastest alone {d['speedup']:.3f}x")
EOF
    done
done
