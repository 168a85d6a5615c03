#!/usr/bin/env bash
# Stored failures are keyed to their cause (issue 29, deliverable 1): a failure that may
# come from the spec (launch, verify, constraint, cl) is known only for the spec it was
# stored with, so an edited spec measures it again; a kernel's own failure (build, crashed,
# timeout) stays known across spec edits and is forgotten with the kernel (a new kernel is
# a new problem). tune says how many stored failures it took as known and that
# --retry-failed measures them again; --retry-failed does. The failures are written into
# the database by SQL (a real spec-made failure would need a spec broken per configuration,
# which tune now refuses outright: cli/stale); what is tested is how tune keys them.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp stale-keyed

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")

cp "$HETUNE_SOURCE_DIR/examples/vecadd/kernel.cl" "$tmp/"
spec() { # $1: rtol, the edit that changes the spec's hash
    python3 - "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" "$tmp/spec.json" "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["sizes"] = {"N": 4096}
s["params"] = {"WG": {"values": [32, 64]}, "EPT": {"values": [1, 2]}}
s["verify"] = {"reference": {"WG": 32, "EPT": 1}, "rtol": float(sys.argv[3])}
s["timing"] = {"repeats": 3}
json.dump(s, open(sys.argv[2], "w"))
PY
}
db="$tmp/r.db"
# Every stored evaluation becomes a failure of status $1 (its spec hash kept, or NULL: $2).
fail_all() {
    python3 - "$db" "$1" "${2:-keep}" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE evaluations SET status = ?, reason = 'stored by the test', verified = 0",
          (sys.argv[2],))
if sys.argv[3] == "null":
    c.execute("UPDATE evaluations SET spec_hash = NULL")
c.commit()
PY
}
tune() { run tune "$tmp/spec.json" --device "$dev" --db "$db" --json "$@"; }

spec 1e-5
tune
expect_status 0
check 'd["devices"][0]["evaluated"] == 4 and d["devices"][0]["failed_reused"] == 0'
[ "$(sql 'q("SELECT count(DISTINCT spec_hash) FROM evaluations WHERE spec_hash IS NOT NULL")')" = "[(1,)]" ] ||
    fail "evaluations without the spec's hash: $(sql 'q("SELECT spec_hash FROM evaluations")')"

# The same spec: stored verification failures are known, and said.
fail_all verify
tune
expect_status 1
check 'd["devices"][0]["evaluated"] == 0 and d["devices"][0]["failed_reused"] == 4 and d["devices"][0]["failed_stale"] == 0'
run tune "$tmp/spec.json" --device "$dev" --db "$db"
grep -q "stored       4 failures taken from the database as known: --retry-failed measures them again" \
    "$tmp/out" || fail "no word of the stored failures: $(cat "$tmp/out")"

# The spec edited: they are measured again.
spec 2e-5
tune
expect_status 0
check 'd["devices"][0]["evaluated"] == 4 and d["devices"][0]["failed_stale"] == 4 and d["devices"][0]["failed_reused"] == 0'

# A kernel's own failure (build) stays known across a spec edit...
fail_all build
spec 3e-5
tune
expect_status 1
check 'd["devices"][0]["evaluated"] == 0 and d["devices"][0]["failed_reused"] == 4 and d["devices"][0]["failed_stale"] == 0'
# ... until --retry-failed ...
tune --retry-failed
expect_status 0
check 'd["devices"][0]["evaluated"] == 4 and d["devices"][0]["failed_reused"] == 0'
# ... or the kernel changes.
fail_all build
echo "/* edited */" >>"$tmp/kernel.cl"
tune
expect_status 0
check 'd["devices"][0]["evaluated"] == 4 and d["devices"][0]["from_db"] == 0'

# Failures stored before spec hashes were kept (NULL) count as of another spec.
fail_all launch null
tune
expect_status 0
check 'd["devices"][0]["evaluated"] == 4 and d["devices"][0]["failed_stale"] == 4'
echo "stale_keyed: ok"
