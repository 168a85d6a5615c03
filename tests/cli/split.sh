#!/usr/bin/env bash
# hetune split: co-execution on two devices (PoCL's pthread and basic devices, or one
# device twice) for every scheduler, 1-D and 2-D kernels split along dimension 0 and 1,
# readwrite buffers, --dump against a single-device eval, --sweep stored in the database,
# the prediction that splitting does not pay, tuning first, and bad input.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
export POCL_DEVICES="${POCL_DEVICES:-pthread basic}"
make_tmp split
# Co-execution, not the binary cache, is tested here: PoCL caches (common.bash).
pocl_cache_on

fix="$HETUNE_SOURCE_DIR/tests/fixtures/split"
db="$tmp/split.db"

run devices --json
require_platform
ndev=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["devices"]))' "$tmp/out")
if [ "$ndev" -ge 2 ]; then two="0,1"; else two="0,0"; fi

# --help and bad input.
run split --help
expect_status 0
grep -q "usage: hetune split SPEC" "$tmp/out" || fail "--help lacks the usage line"
run split
expect_status 2
expect_err "missing SPEC"
run split "$fix/stencil.json" --scheduler roundrobin
expect_status 2
expect_err "unknown scheduler 'roundrobin'"
run split "$fix/stencil.json" --dim 1 --db "$db"
expect_status 2
expect_err "--dim 1"
run split "$fix/stencil.json" --device "$two,0" --sweep 0.5 --db "$db"
expect_status 2
expect_err "--sweep needs exactly two devices"
run split "$fix/stencil.json" --sweep 0 --db "$db"
expect_status 2
run split "$fix/stencil.json" --device nosuchdevice --db "$db"
expect_status 2

# The first split tunes each device first; the next finds them in the database.
run split "$fix/stencil.json" --device "$two" --force --json --db "$db"
expect_status 0
expect_err "tuning it first"
check 'd["verification"]["verified"] is True and d["ran_alone"] is False'
check 'sum(x["owned"] for x in d["devices"]) == 960 and d["global"] == 960'
check 'abs(sum(x["adjusted_factor"] for x in d["devices"]) - 1) < 1e-12'
check 'abs(sum(x["optimal_factor"] for x in d["devices"]) - 1) < 1e-9'
check 'd["theoretical_seconds"] > 0 and d["measured"]["wall_seconds"] > 0'
check 'd["split_id"] >= 1 and all(x["tuned_now"] for x in d["devices"])'
run split "$fix/stencil.json" --device "$two" --force --json --db "$db"
expect_status 0
grep -q "tuning it first" "$tmp/err" && fail "tuned again although the database has the best"
check 'not any(x["tuned_now"] for x in d["devices"])'

# Every scheduler, 1-D with a halo, 2-D along x and y, readwrite, elements per work-item.
for sched in static dynamic guided; do
    for spec in stencil triple ept; do
        run split "$fix/$spec.json" --device "$two" --scheduler "$sched" --force --json \
            --db "$db" --repeats 2
        expect_status 0
        check 'd["verification"]["verified"] is True'
        check 'sum(x["owned"] for x in d["devices"]) == d["global"]'
        check "d['scheduler'] == '$sched'"
    done
    for dim in 0 1; do
        run split "$fix/grid.json" --device "$two" --dim "$dim" --scheduler "$sched" --force \
            --json --db "$db" --repeats 2
        expect_status 0
        check "d['verification']['verified'] is True and d['dim'] == $dim"
        check "d['global'] == (96 if $dim == 0 else 60)"
    done
done

# Text output: Table 3 and the times.
run split "$fix/grid.json" --device "$two" --dim 1 --force --db "$db" --repeats 2
expect_status 0
for word in "Table 3" "theoretical" "measured" "overhead" "speedup" "verification  passed"; do
    grep -qF "$word" "$tmp/out" || fail "text output lacks '$word': $(cat "$tmp/out")"
done

# --dump: the merged output equals one device's whole run, byte for byte (each element is
# computed the same way whatever the work-group size).
run split "$fix/stencil.json" --device "$two" --force --json --db "$db" --dump "$tmp/merged"
expect_status 0
wg0=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][0]["config"]["WG"])' "$tmp/out")
run eval "$fix/stencil.json" --device 0 --set "WG=$wg0" --dump "$tmp/single"
expect_status 0
[ "$(stat -c %s "$tmp/merged/out.bin")" -eq 3840 ] || fail "out.bin is not 960 floats"
cmp -s "$tmp/merged/out.bin" "$tmp/single/out.bin" || fail "merged output differs from eval's"

# --sweep: split points 0, 0.5, 1, each verified and stored.
run split "$fix/stencil.json" --device "$two" --force --sweep 0.5 --json --db "$db"
expect_status 0
check 'len(d["sweep"]) == 3 and [p["factor"] for p in d["sweep"]] == [0, 0.5, 1]'
check 'all(p["verified"] for p in d["sweep"]) and all(p["wall_seconds"] > 0 for p in d["sweep"])'
split_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["split_id"])' "$tmp/out")
python3 - "$db" "$split_id" <<'PY' || fail "the sweep is not in the database"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
n = c.execute("SELECT count(*) FROM sweep_points WHERE split_id = ?", (int(sys.argv[2]),)).fetchone()[0]
m = c.execute("SELECT count(*) FROM split_devices WHERE split_id = ?", (int(sys.argv[2]),)).fetchone()[0]
sys.exit(0 if n == 3 and m == 2 else 1)
PY
run split "$fix/stencil.json" --device "$two" --force --sweep 0.3 --json --db "$db" --repeats 1
expect_status 0
check '[round(p["factor"], 9) for p in d["sweep"]] == [0, 0.3, 0.6, 0.9, 1]'

# Without --force: either the prediction says splitting pays and it splits, or it says so
# and runs the fastest device alone; both verified.
run split "$fix/stencil.json" --device "$two" --json --db "$db"
expect_status 0
check 'd["verification"]["verified"] is True'
# ... or splits, measures it slower than the fastest device alone (or, predicted within the
# margin of it, not faster by the margin) and runs that device alone.
check 'd["ran_alone"] == (not (d["estimate"]["worth_it"] or d["estimate"]["check"])) or d["decision"] == "alone: measured"'
check '(d["decision"] == "alone: measured") == (d["measured_split_seconds"] is not None)'
check 'd["decision"] != "alone: measured" or d["measured_split_seconds"] > d["estimate"]["keep_seconds"]'
if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["decision"] == "alone: predicted" else 1)' "$tmp/out"; then
    expect_err "predicted to be slower"
elif python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["decision"] == "alone: measured" else 1)' "$tmp/out"; then
    expect_err "running on it alone"
fi
# The measured split's words follow its time against the fastest alone's, whichever way the
# split went: --margin 99 measures every split of two devices predicted under 100 times
# alone (vecadd 2^20's plan gives both work), and keeps none.
run split "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" --size N=1048576 --device "$two" \
    --margin 99 --db "$db"
expect_status 0
python3 - "$tmp/out" <<'PY' || fail "the measured split's line does not match its times: $(grep -E '^(ran alone|measured) ' "$tmp/out")"
import re, sys
text = open(sys.argv[1]).read()
unit = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
def secs(m):
    return float(m.group(1)) * unit[m.group(2)]
alone = re.search(r"^ran alone .*: wall ([0-9.]+) (s|ms|us|ns),", text, re.M)
split = re.search(r"^measured +the split took ([0-9.]+) (s|ms|us|ns), (.*)$", text, re.M)
if not alone or not split:
    sys.exit(1)
words = split.group(3)
if secs(split) < secs(alone):
    sys.exit(0 if words.startswith("not 9900% faster than it alone") else 1)
sys.exit(0 if words == "longer than it alone" else 1)
PY
# That split was stored with its prediction: the history of this problem on these devices.
grep -q "^history       1 split of this problem on these devices: measured [-+][0-9.]*% against its prediction$" "$tmp/out" ||
    fail "no history line after the first measured split: $(grep '^history' "$tmp/out")"
run split "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" --size N=1048576 --device "$two" \
    --margin 99 --db "$db" --json
expect_status 0
check 'd["prediction_history"]["splits"] == 2'
check 'd["prediction_history"]["min_error"] <= d["prediction_history"]["newest_error"] <= d["prediction_history"]["max_error"]'
check 'abs(d["prediction_history"]["newest_error"] - (d["measured_split_seconds"] / d["estimate"]["split_seconds"] - 1)) < 1e-9'

# The plan: by default the bus plan, with the transfer-aware bound no above its prediction
# and Algorithm 1 still the paper's; --plan paper splits by Eq. 4; the margin decides.
run split "$fix/stencil.json" --device "$two" --force --json --db "$db"
expect_status 0
check 'd["plan"] == "bus" and d["margin"] == 0.1'
check 'd["estimate"]["bound_seconds"] <= d["estimate"]["split_seconds"] * (1 + 1e-9)'
check 'd["estimate"]["kernel_bound_seconds"] > 0 and d["estimate"]["paper_seconds"] > 0'
check 'abs(sum(x["optimal_factor"] for x in d["devices"]) - 1) < 1e-9'
run split "$fix/stencil.json" --device "$two" --force --plan paper --json --db "$db"
expect_status 0
check 'd["plan"] == "paper" and d["verification"]["verified"] is True'
check 'abs(d["adjusted_seconds"] - d["model_seconds"]) <= 1e-9 * d["model_seconds"]'
# A margin of 99 (splitting must be 100 times faster) runs the fastest device alone.
run split "$fix/stencil.json" --device "$two" --margin 99 --json --db "$db"
expect_status 0
check 'd["ran_alone"] is True and d["decision"] == "alone: predicted" and d["plan"] == "alone"'
# Through plain memory and through pinned memory in small pieces, still right.
for path in pageable pinned; do
    run split "$fix/stencil.json" --device "$two" --force --data-path $path --piece-bytes 256 \
        --json --db "$db"
    expect_status 0
    check 'd["verification"]["verified"] is True and d["ran_alone"] is False'
    check 'any(x["write_seconds"] > 0 for x in d["devices"])'
done
for bad in "--plan fast" "--margin -1" "--margin x" "--data-path disk" "--piece-bytes -3"; do
    # shellcheck disable=SC2086
    run split "$fix/stencil.json" --device "$two" $bad --db "$db"
    expect_status 2
done

# One device: no merge needed, even for a written buffer without an index.
run split "$fix/noindex.json" --device 0 --json --db "$db"
expect_status 0
check 'd["verification"]["verified"] is True and len(d["devices"]) == 1'
# Two devices: the spec cannot say who writes what; a probe finds out (split_noindex.sh).
run split "$fix/noindex.json" --device "$two" --force --json --db "$db"
expect_status 0
expect_err "written buffer 'out' has no index: a probe found it written by slabs of its axis 0"
check 'd["verification"]["verified"] is True'

# A pipeline is refused at once, before any tuning.
run split "$HETUNE_SOURCE_DIR/tests/fixtures/pipeline/pipe.json" --db "$db"
expect_status 2
expect_err "splitting supports one kernel only"

echo "split: all checks passed"
