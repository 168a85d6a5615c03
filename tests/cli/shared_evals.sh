#!/usr/bin/env bash
# Specs that share a kernel, its sizes and its parameters' names share their stored
# evaluations. A second spec whose constraint rules out the first one's best must not be
# handed that best by split (it failed with exit 2, the constraint broken): split takes the
# best stored configuration that the second spec allows, and tunes nothing again.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp shared-evals
db="$tmp/shared.db"

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")

# vecadd at a small size, its kernel where the spec says; B adds one constraint.
python3 - "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" "$tmp/a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["kernel"]["file"] = sys.argv[1].rsplit("/", 1)[0] + "/kernel.cl"
d["sizes"]["N"] = 65536
json.dump(d, open(sys.argv[2], "w"))
PY
run tune "$tmp/a.json" --device "$dev" --db "$db" --cut-factor 0 --json
expect_status 0
best=$(python3 -c 'import json,sys; c = json.load(open(sys.argv[1]))["devices"][0]["best"]["config"]; print(c["WG"], c["EPT"])' "$tmp/out")
read -r wg ept <<<"$best"
python3 - "$tmp/a.json" "$tmp/b.json" "$wg" "$ept" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["constraints"].append(f"WG != {sys.argv[3]} || EPT != {sys.argv[4]}")
json.dump(d, open(sys.argv[2], "w"))
PY
before=$(sql "q('SELECT count(*) FROM evaluations')[0][0]")
run split "$tmp/b.json" --device "$dev,$dev" --db "$db" --json
expect_status 0
check "all(x['config'] != {'WG': $wg, 'EPT': $ept} for x in d['devices'])"
[ "$(sql "q('SELECT count(*) FROM evaluations')[0][0]")" = "$before" ] ||
    fail "split measured configurations again"
echo ok
