#!/usr/bin/env bash
# hetune split and run when one device has no usable configuration: a constraint on
# compute_units that only PoCL's pthread device meets (it has as many compute units as the
# machine has cores, basic has one) leaves basic's pruned space empty. The device is
# skipped and reported, the others are tuned and used; with one left, split runs it alone.
# No device with a usable configuration is still a runtime failure (exit 1).
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
export POCL_DEVICES="pthread basic"
make_tmp skip

fix="$HETUNE_SOURCE_DIR/tests/fixtures/split"
db="$tmp/skip.db"

run devices --json
require_platform
read -r ndev lo hi < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["devices"]
cu = [x["compute_units"] for x in d]
print(len(d), min(cu), max(cu))' "$tmp/out")
if [ "$ndev" -lt 2 ] || [ "$lo" -eq "$hi" ]; then
    echo "skipped: needs two devices that differ in compute_units (PoCL pthread on 2+ cores)" >&2
    exit 77
fi

# The stencil of split.sh, usable only on devices with the most compute units.
spec() {
    python3 - "$fix/stencil.json" "$tmp/$1.json" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = "skip-" + sys.argv[2].rsplit("/", 1)[1][:-5]
d["kernel"]["file"] = sys.argv[1].rsplit("/", 1)[0] + "/kernel.cl"
d["constraints"].append(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
EOF
}
spec most "compute_units >= $hi"
spec none "compute_units > $hi"

# split: the device with fewer compute units is skipped, the other runs alone.
run split "$tmp/most.json" --json --db "$db"
expect_status 0
expect_err "skipped device"
expect_err "the pruned space is empty"
check 'd["decision"] == "alone: others skipped" and d["ran_alone"] is True'
check "len(d['skipped']) == 1 and len(d['devices']) == 1"
check "'pruned space is empty' in d['skipped'][0]['reason']"
check "d['skipped'][0]['index'] != d['devices'][0]['index']"
check 'd["verification"]["verified"] is True and d["split_id"] >= 1'
run split "$tmp/most.json" --db "$db"
expect_status 0
expect_err "skipped device"
grep -q "the only device left" "$tmp/out" || fail "split's text lacks 'the only device left'"
grep -q "predicted to be slower" "$tmp/err" && fail "a skipped device is not a prediction"

# Three devices, one skipped: the two left are split.
POCL_DEVICES="pthread basic pthread" run split "$tmp/most.json" --force --json --db "$db"
expect_status 0
check 'd["decision"] == "split" and len(d["devices"]) == 2 and len(d["skipped"]) == 1'
check 'd["verification"]["verified"] is True'

# run: the pipeline goes on with the device left, nothing to split, the report written.
run run "$tmp/most.json" --json --db "$db" --out "$tmp/report" --no-pictures
expect_status 0
expect_err "hetune run: skipped device"
check "len(d['devices']) == 1 and len(d['skipped']) == 1 and d['splits'] == []"
check "'pruned space is empty' in d['skipped'][0]['reason']"
POCL_DEVICES="pthread basic pthread" run run "$tmp/most.json" --json --db "$db" \
    --out "$tmp/report3" --no-pictures
expect_status 0
check "len(d['devices']) == 2 and len(d['skipped']) == 1 and len(d['splits']) == 1"
check "d['splits'][0]['verified'] is True"

# No device with a usable configuration: exit 1, naming why. (A database of its own: the
# results of the same kernel and sizes under other constraints would be found there.)
run split "$tmp/none.json" --db "$tmp/none.db"
expect_status 1
expect_err "no device has a usable configuration"
expect_err "the pruned space is empty"
run run "$tmp/none.json" --db "$tmp/none.db" --out "$tmp/report-none" --no-pictures
expect_status 1
expect_err "no device has a usable configuration"

echo "ok"
