#!/usr/bin/env bash
# The search benchmark (issue 25, item 2): every hetune strategy and Kernel Tuner's, R seeds
# each, on each recorded space, in one run and one table. Each run has a budget of 400
# evaluations; the fraction of the optimum at a budget N (25, 50, 100, 200, 400) is that of
# its first N evaluations (kt_sim.py's definitions, the same for both tools). hetune replays
# (hetune tune --replay, bench/search/hetune_traces.py); Kernel Tuner runs in its own
# simulation mode in a venv of this bench (bench/search/kt.sh). Not a test: about half an
# hour with 20 seeds on this machine, mostly Kernel Tuner's.
#   bench/search/run.sh [--seeds R] [--hetune BIN] [--out DIR] [T4 ...]
# Without T4 files: every recorded space under shared/data/recorded. Leaves in DIR (default
# bench/search/out): hetune-traces.jsonl, hetune-rows.jsonl, kt-rows.jsonl, table.txt.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
seeds=20
hetune=$root/build/hetune
out=$here/out
files=()
while [ $# -gt 0 ]; do
    case $1 in
    --seeds) seeds=$2; shift 2 ;;
    --hetune) hetune=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    *) files+=("$1"); shift ;;
    esac
done
if [ ${#files[@]} -eq 0 ]; then
    recorded=${HETUNE_RECORDED:-$root/shared/data/recorded}
    [ -d "$recorded" ] || recorded=$root/../shared/data/recorded
    files=("$recorded"/*.T4.json.gz)
fi
[ -x "$hetune" ] || { echo "run.sh: no hetune at $hetune: make build" >&2; exit 1; }
mkdir -p "$out"

echo "== hetune: $("$hetune" --version), $seeds seeds, every strategy, replayed" >&2
nice -n 5 python3 "$here/hetune_traces.py" --hetune "$hetune" --seeds "$seeds" --budget 400 \
    --out "$out/hetune-traces.jsonl" "${files[@]}"
"$here/kt.sh" --score "$out/hetune-traces.jsonl" --json "$out/hetune-rows.jsonl" "${files[@]}" \
    >/dev/null
echo "== Kernel Tuner: $seeds seeds, every strategy, its simulation mode" >&2
"$here/kt.sh" --seeds "$seeds" --json "$out/kt-rows.jsonl" "${files[@]}" >"$out/kt.txt"
"$here/kt.sh" --table "$out/kt-rows.jsonl" "$out/hetune-rows.jsonl" | tee "$out/table.txt"
