#!/usr/bin/env bash
# Sizes never measured (issue 18, part 2): with one other size of the kernel stored, split
# tunes and says what to tune for a prediction; with two, split and run predict each
# device's configuration from them (nothing measured at the new size, marked predicted in
# the JSON, verified by the co-execution); --no-predict tunes instead.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp predict

run devices --json
require_platform
cp "$tmp/out" "$tmp/devices.json"
dev=$(pthread_device "$tmp/devices.json")

# vecadd with four configurations, so that each tune is short.
cp "$HETUNE_SOURCE_DIR/examples/vecadd/kernel.cl" "$tmp/kernel.cl"
python3 - "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" "$tmp/spec.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["params"] = {"WG": {"values": [16, 128]}, "EPT": {"values": [1, 4]}}
s["verify"]["reference"] = {"WG": 16, "EPT": 1}
json.dump(s, open(sys.argv[2], "w"))
PY
spec="$tmp/spec.json"
db="$tmp/p.db"
evals_at() { sql "q(\"SELECT count(*) FROM evaluations e JOIN problems p ON p.id = e.problem_id WHERE p.sizes = 'N=$1'\")[0][0]"; }

run tune "$spec" --device "$dev" --size N=65536 --db "$db" -q
expect_status 0

# One other size: no prediction; split tunes, saying what a prediction needs.
run split "$spec" --device "$dev" --size N=131072 --db "$db" --json
expect_status 0
expect_err "tuning it first"
expect_err "no prediction: tune at least two sizes of 'vecadd' first: hetune tune $spec --size N=..."
check "d['devices'][0]['tuned_now'] and not d['devices'][0]['predicted']"

# Two other sizes: predicted, nothing measured at N=262144, the split verified.
run split "$spec" --device "$dev" --size N=262144 --db "$db" --json
expect_status 0
expect_err "predicted WG="
expect_err "from 2 other sizes (N=65536; N=131072)"
check "d['devices'][0]['predicted'] and not d['devices'][0]['tuned_now']"
check "d['devices'][0]['tuned_seconds'] > 0 and d['verification']['verified']"
[ "$(evals_at 262144)" = 0 ] || fail "evaluations stored at N=262144 although predicted"
run split "$spec" --device "$dev" --size N=262144 --db "$db" -q
expect_status 0
[ ! -s "$tmp/err" ] || fail "-q printed: $(cat "$tmp/err")"

# run predicts too: no tuning step measured anything.
run run "$spec" --device "$dev" --size N=524288 --db "$db" --out "$tmp/report" --json
expect_status 0
check "d['devices'][0]['tune']['predicted'] and d['devices'][0]['tune']['evaluated'] == 0"
[ "$(evals_at 524288)" = 0 ] || fail "run measured at N=524288 although it predicted"

# --no-predict: tuned at the new size.
run split "$spec" --device "$dev" --size N=262144 --db "$db" --no-predict --json
expect_status 0
check "d['devices'][0]['tuned_now'] and not d['devices'][0]['predicted']"
[ "$(evals_at 262144)" = 4 ] || fail "--no-predict did not tune: $(evals_at 262144) evaluations"
run run "$spec" --device "$dev" --size N=524288 --db "$db" --out "$tmp/report" --no-predict --json
expect_status 0
check "not d['devices'][0]['tune']['predicted'] and d['devices'][0]['tune']['evaluated'] == 4"
echo "ok"
