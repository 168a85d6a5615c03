#!/usr/bin/env bash
# Nothing stale after a spec is fixed (issue 29 items 1 and 2): an error of the spec met while
# evaluating a configuration (a scalar value that does not fit its type, a division by zero
# in a value, an argument count or a kernel name the kernel lacks) stops tune with status 2
# naming the field, and stores nothing, so that the fixed spec is measured at once; rows of
# status "error" stored before are measured again. A run where every configuration fails
# says why.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp stale

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")

cp "$HETUNE_SOURCE_DIR/examples/vecadd/kernel.cl" "$tmp/"
spec() { # $1: the file, $2: a Python statement changing s (the spec)
    python3 - "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" "$1" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["sizes"] = {"N": 4096}
s["params"] = {"WG": {"values": [32, 64]}, "EPT": {"values": [1, 2]}}
s["verify"] = {"reference": {"WG": 32, "EPT": 1}}
s["timing"] = {"repeats": 3}
exec(sys.argv[3])
json.dump(s, open(sys.argv[2], "w"))
PY
}
rows() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM evaluations").fetchone()[0])' "$1"; }

while IFS='|' read -r change field; do
    spec "$tmp/spec.json" "$change"
    run tune "$tmp/spec.json" --device "$dev" --db "$tmp/r.db" -q
    expect_status 2
    expect_err "$field"
    [ "$(rows "$tmp/r.db")" = 0 ] || fail "$change: an error of the spec was stored"
done <<'CASES'
s["args"][0]["value"] = "N * 1048576 * 1024"|does not fit in uint
s["args"][0]["value"] = "N / (N - 4096)"|division by zero
s["args"].append({"name": "d", "type": "float", "shape": ["N"], "access": "read"})|the spec lists 5 arguments but kernel 'addvec' takes 4
s["kernel"]["name"] = "addvecx"|no kernel named 'addvecx'
CASES

# The fixed spec is measured at once, the kernel unchanged.
spec "$tmp/spec.json" "pass"
run tune "$tmp/spec.json" --device "$dev" --db "$tmp/r.db"
expect_status 0
grep -q "evaluated    4 in this run" "$tmp/out" || fail "fixed spec: $(cat "$tmp/out")"

# A row of status "error" (as older versions stored a spec's error) is measured again.
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE evaluations SET status = '"'"'error'"'"', reason = '"'"'old'"'"', seconds = NULL, verified = -1"); c.commit()' "$tmp/r.db"
run tune "$tmp/spec.json" --device "$dev" --db "$tmp/r.db"
expect_status 0
grep -q "evaluated    4 in this run" "$tmp/out" || fail "stored errors: $(cat "$tmp/out")"

# A worker killed from outside (the OOM killer, kill -9: stored as "crashed: SIGKILL") said
# nothing of the kernel: measured again; a kernel's own crash (SIGSEGV) is not.
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rows = [r[0] for r in c.execute("SELECT id FROM evaluations ORDER BY id")]
c.execute("UPDATE evaluations SET status = '"'"'crashed'"'"', reason = '"'"'crashed: SIGKILL'"'"', seconds = NULL, verified = -1 WHERE id = ?", (rows[0],))
c.execute("UPDATE evaluations SET status = '"'"'crashed'"'"', reason = '"'"'crashed: SIGSEGV'"'"', seconds = NULL, verified = -1 WHERE id = ?", (rows[1],))
c.commit()' "$tmp/r.db"
run tune "$tmp/spec.json" --device "$dev" --db "$tmp/r.db"
expect_status 0
grep -q "evaluated    1 in this run" "$tmp/out" || fail "killed from outside: $(cat "$tmp/out")"
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
st = sorted(r[0] for r in c.execute("SELECT reason FROM evaluations WHERE status = '"'"'crashed'"'"'"))
assert st == ["crashed: SIGSEGV"], st' "$tmp/r.db" || fail "killed from outside: the rows"

# Every configuration fails to build: tune says why, and that --retry-failed measures again.
printf '__kernel void addvec(const unsigned int n, __global float *a) { syntax error }\n' \
    >"$tmp/broken.cl"
spec "$tmp/broken.json" 's["kernel"]["file"] = "broken.cl"; s["args"] = s["args"][:2]; s.pop("verify")'
run tune "$tmp/broken.json" --device "$dev" --db "$tmp/b.db"
expect_status 1
grep -q "failures     4 of 4 alike (build), the first: WG=32,EPT=1: " "$tmp/out" ||
    fail "all failed: $(cat "$tmp/out")"
expect_err "no configuration ran and verified: 4 of 4 failed alike (build), the first: WG=32,EPT=1: "

# Every configuration refused alike by the spec's own rule (Eq. 2 in a pipeline stage):
# the spec is the cause, bad input (2), and stderr says which rule, as eval does.
run tune "$HETUNE_SOURCE_DIR/tests/specs/bad/pipeline_stage_eq2.json" --device "$dev" \
    --db "$tmp/eq2.db"
expect_status 2
expect_err "failed alike (constraint), the first: "
expect_err "Eq. 2 in stage 'vecadd': global size 1016 is not a multiple of local size 16"
run tune "$tmp/broken.json" --device "$dev" --db "$tmp/b.db"
expect_status 1
grep -q "all from the database: --retry-failed measures them again" "$tmp/out" ||
    fail "all failed, stored: $(cat "$tmp/out")"
# An empty --db (an unset $DB in a script) is refused: SQLite would keep the results in a
# temporary database deleted at exit (issue 29 item 3).
run tune "$tmp/spec.json" --device "$dev" --db ""
expect_status 2
expect_err "an empty database path"
echo "stale: ok"
