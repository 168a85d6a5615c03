#!/usr/bin/env bash
# The degree of parallelism (issue 18, Dopia): --cpu-units N co-executes on a sub-device of N
# compute units of each CPU device that can be partitioned (clCreateSubDevices), auto tries
# the whole split at several counts and keeps the fastest measured. PoCL's pthread device
# can be partitioned (2 units on this machine), its basic device cannot. Checked: the
# sub-device's units reach the result, auto lists each count with its wall time and keeps
# the fastest, every result is verified, and the counts a device cannot make are refused
# before tuning with status 2 naming the limit.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp dop

export POCL_DEVICES="pthread basic"
spec="$HETUNE_SOURCE_DIR/examples/vecadd/spec.json"
# PoCL's cache in the tests' folder: the test checks the sub-devices and the splits, not
# hetune's binary cache, and the sanitized pass loads the plain pass's programs.
pocl_cache_on
db="$tmp/dop.db"

run devices --json
require_platform
cp "$tmp/out" "$tmp/devices.json"
read -r pth units parts <<<"$(python3 - "$tmp/devices.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))["devices"]
p = next((x for x in d if "pthread" in x["name"]), None)
print(p["index"] if p else -1, p["compute_units"] if p else 0, len(d))
EOF
)"
if [ "$pth" -lt 0 ] || [ "$units" -lt 2 ] || [ "$parts" -lt 2 ]; then
    echo "skipped: no PoCL pthread device of 2 compute units or more beside another" >&2
    exit 77
fi
other=$(python3 -c 'import json,sys; print(next(x["index"] for x in json.load(open(sys.argv[1]))["devices"] if x["index"] != int(sys.argv[2])))' "$tmp/devices.json" "$pth")

# 1. A fixed count: the pthread device runs on a sub-device of 1 unit, verified.
run split "$spec" --size N=65536 --device "$pth,$other" --cpu-units 1 --force --db "$db" --json -q
expect_status 0
check "(d['cpu_units'] == 1 and d['verification']['verified'] is True and
       [x['compute_units'] for x in d['devices'] if x['index'] == $pth] == [1])"

# 2. auto: every count of all ($units), all but one, 3/4, 1/2, 1/4 (distinct, >= 1), each a
# whole split stored, and the result is the fastest of them.
run split "$spec" --size N=65536 --device "$pth,$other" --cpu-units auto --db "$db" --json -q
expect_status 0
python3 - "$tmp/out" "$units" <<'EOF' || fail "auto: $(cat "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1])); c = int(sys.argv[2])
want = []
for u in (c, c - 1, 3 * c // 4, c // 2, c // 4):
    if u >= 1 and u not in want:
        want.append(u)
got = [x["cpu_units"] for x in d["dop"]]
assert got == want, (got, want)
walls = [x["wall_seconds"] for x in d["dop"]]
best = d["dop"][walls.index(min(walls))]
assert d["cpu_units"] == (0 if best["cpu_units"] == c else best["cpu_units"]), d["cpu_units"]
assert d["split_id"] == best["split_id"], (d["split_id"], best)
assert d["verification"]["verified"] is True
assert len({x["split_id"] for x in d["dop"]}) == len(want)
EOF
run split "$spec" --size N=65536 --device "$pth,$other" --cpu-units auto --db "$db" -q
expect_status 0
grep -q "^cpu units     .* of $units (the fastest of $units: " "$tmp/out" ||
    fail "no cpu units line: $(cat "$tmp/out")"

# 3. Counts a device cannot make: status 2 before any tuning, naming the limit.
run split "$spec" --size N=65536 --device "$pth,$other" --cpu-units $((units + 1)) --db "$tmp/none.db"
expect_status 2
expect_err "has $units compute units: it cannot co-execute on $((units + 1))"
[ ! -e "$tmp/none.db" ] || [ "$(db=$tmp/none.db sql "q('SELECT count(*) FROM evaluations')[0][0]")" = 0 ] ||
    fail "tuned before refusing"
run split "$spec" --size N=65536 --device "$other" --cpu-units 1 --db "$db"
expect_status 2
expect_err "can be partitioned into sub-devices of 1 compute units"
expect_err "CL_DEVICE_PARTITION_MAX_SUB_DEVICES"
run run "$spec" --size N=65536 --device "$pth,$other" --cpu-units auto --db "$db"
expect_status 2
expect_err "is hetune split's"
run split "$spec" --size N=65536 --cpu-units many --db "$db"
expect_status 2
expect_err "--cpu-units"
echo "ok"
