#!/usr/bin/env bash
# Issue 26 item 4 on a CPU+GPU machine: the index-less examples (examples/conv2d_noindex,
# examples/matmul_noindex, and copies at 2048 and 4096 made here) split on the CPU device
# and the first GPU, each written buffer inferred by the probe; forced by the paper's plan,
# and as hetune decides. Builds build-gpu as run.sh does (.gpu as in README.md), from the
# repository's root:  OUT=DIR bench/gpu/noindex.sh   (the log and json.tgz land in DIR)
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/json"; LOG="$OUT/noindex.log"
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"
gpu_build
gpu_devices show
say "== cpu $cpu gpu $gpu"
mkdir -p /tmp/big/mm /tmp/big/cv
sed 's/#define WIDTH 256/#define WIDTH 2048/' examples/matmul_noindex/kernel.cl > /tmp/big/mm/kernel.cl
sed 's/"N": 256/"N": 2048/' examples/matmul_noindex/spec.json > /tmp/big/mm/spec.json
sed 's/#define image_height 256/#define image_height 4096/; s/#define image_width 256/#define image_width 4096/' examples/conv2d_noindex/kernel.cl > /tmp/big/cv/kernel.cl
sed 's/"H": 256, "W": 256/"H": 4096, "W": 4096/' examples/conv2d_noindex/spec.json > /tmp/big/cv/spec.json
db=/tmp/noindex.db
one() { # name spec dim extra...
  local n=$1 s=$2 d=$3; shift 3
  local t
  t=$(date +%s.%N)
  $H split "$s" --device "$cpu,$gpu" --dim "$d" --db "$db" --json --budget 6 --jobs "$(nproc)" "$@" \
     > "$OUT/json/$n.json" 2> "$OUT/json/$n.err"; local rc=$?
  say "== $n rc=$rc $(python3 -c "print(round($(date +%s.%N)-$t,1))") s"
  grep -h "probe\|error\|refuse" "$OUT/json/$n.err" | tee -a "$LOG"
  python3 - "$OUT/json/$n.json" <<'PY' | tee -a "$LOG"
import json,sys
try: d=json.load(open(sys.argv[1]))
except Exception as e: print("no json", e); sys.exit()
v=d["verification"]
print("verified", v["verified"], "mismatches", v["mismatches"], "ran_alone", d["ran_alone"], "decision", d.get("decision"))
print("wall_s", d["measured"]["wall_seconds"] if "measured" in d else None)
for x in d["devices"]:
    print("  ", x["name"][:30], x["config"], "owned", x["owned"], "alone", x.get("alone",{}).get("wall_seconds"))
PY
}
for d in 1 0; do
  one mm256-d$d examples/matmul_noindex/spec.json $d --force --plan paper
  one cv256-d$d examples/conv2d_noindex/spec.json $d --force --plan paper
done
one mm2048-d1 /tmp/big/mm/spec.json 1 --force --plan paper
one mm2048-d1-decided /tmp/big/mm/spec.json 1
one cv4096-d1 /tmp/big/cv/spec.json 1 --force --plan paper
one cv4096-d1-decided /tmp/big/cv/spec.json 1
one cv4096-d0 /tmp/big/cv/spec.json 0 --force --plan paper
python3 -c "import sqlite3;print(sqlite3.connect('$db').execute('select * from written_maps').fetchall())" | tee -a "$LOG"
tar -czf "$OUT/json.tgz" -C "$OUT" json && rm -rf "$OUT/json"
say "== total $(( $(date +%s) - t0 )) s"
