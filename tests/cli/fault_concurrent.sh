#!/usr/bin/env bash
# Fault: two `hetune tune` processes on one new database and one device, started at the same
# moment (issue 13). Both open the new database (neither refused as "another program's" nor
# "database is locked"), both finish with exit 0, one device is measured by one process at a
# time: the second says on stderr that it waits for the first (naming its pid), and nothing
# is measured twice: the two runs' evaluations add up to the space, and the database holds
# each configuration once, with all its runs.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp fault-concurrent

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")

# Time grows with SLOW (a loop of SLOW * REPS steps per element): a tune lasts a few
# seconds, long enough for the two to overlap whatever the machine's load.
cp "$HETUNE_SOURCE_DIR/tests/fixtures/tune/kernel.cl" "$tmp/kernel.cl"
cat >"$tmp/spec.json" <<'EOF'
{
  "name": "fault-concurrent",
  "kernel": { "file": "kernel.cl", "name": "slowish" },
  "sizes": { "N": 1024, "REPS": 6400 },
  "ndrange": { "global": ["N"], "local": ["64"] },
  "params": { "SLOW": { "values": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] } },
  "args": [
    { "name": "out", "type": "float", "shape": ["N"], "access": "write", "index": ["gx"] },
    { "name": "in", "type": "float", "shape": ["N"], "access": "read", "init": "random", "index": ["gx"] },
    { "name": "reps", "type": "int", "value": "REPS" }
  ],
  "verify": { "reference": { "SLOW": 0 }, "rtol": 1e-5, "atol": 1e-5 },
  "timing": { "repeats": 3, "keep_best": 1 }
}
EOF
nspace=10
db="$tmp/shared.db"

# Each its own PoCL folder (own_pocl in common.bash says why).
POCL_CACHE_DIR=$(own_pocl a) "$HETUNE" tune "$tmp/spec.json" --device "$dev" --db "$db" \
    --cut-factor 0 --json \
    >"$tmp/a.json" 2>"$tmp/a.err" &
pid_a=$!
POCL_CACHE_DIR=$(own_pocl b) "$HETUNE" tune "$tmp/spec.json" --device "$dev" --db "$db" \
    --cut-factor 0 --json \
    >"$tmp/b.json" 2>"$tmp/b.err" &
pid_b=$!
status_a=0
status_b=0
wait "$pid_a" || status_a=$?
wait "$pid_b" || status_b=$?
[ "$status_a" -eq 0 ] || fail "tune A exited $status_a: $(cat "$tmp/a.err")"
[ "$status_b" -eq 0 ] || fail "tune B exited $status_b: $(cat "$tmp/b.err")"

python3 - "$tmp" "$db" "$nspace" "$pid_a" "$pid_b" <<'EOF' || fail "concurrent tunes: see above"
import json, sqlite3, sys
tmp, db, n, pid_a, pid_b = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
runs = {k: json.load(open("%s/%s.json" % (tmp, k)))["devices"][0] for k in "ab"}
errs = {k: open("%s/%s.err" % (tmp, k)).read() for k in "ab"}
bad = []
ev = {k: runs[k]["evaluated"] for k in "ab"}
if ev["a"] + ev["b"] != n:
    bad.append("the runs measured %d + %d configurations of %d: some twice" % (ev["a"], ev["b"], n))
for k in "ab":
    if runs[k]["evaluated"] + runs[k]["from_db"] != n or runs[k]["best"] is None:
        bad.append("run %s: %r" % (k, runs[k]))
waiters = [k for k in "ab" if "is being tuned by process" in errs[k]]
if len(waiters) != 1:
    bad.append("expected one run to say it waited, got %r: %r" % (waiters, errs))
else:
    w = waiters[0]
    other = pid_b if w == "a" else pid_a
    want = "is being tuned by process %s on host" % other
    if want not in errs[w] or "; waiting" not in errs[w] or errs[w].count("is being tuned") != 1:
        bad.append("run %s's notice lacks '%s': %r" % (w, want, errs[w]))
    if runs[w]["evaluated"] != 0:
        bad.append("the run that waited measured %d configurations" % runs[w]["evaluated"])
c = sqlite3.connect(db, timeout=30)
q = lambda s: c.execute(s).fetchall()
rows = q("SELECT config, status, verified, nruns, (SELECT count(*) FROM runs r WHERE r.eval_id = e.id) "
         "FROM evaluations e")
configs = [r[0] for r in rows]
if len(rows) != n or len(set(configs)) != n:
    bad.append("the database holds %d evaluations of %d configurations" % (len(rows), len(set(configs))))
bad += ["not ok or lacking runs: %r" % (r,) for r in rows if r[1] != "ok" or r[2] != 1 or r[3] != 3 or r[4] != 3]
try:
    if q("SELECT count(*) FROM device_leases") != [(0,)]:
        bad.append("a lease was left behind: %r" % q("SELECT * FROM device_leases"))
except sqlite3.Error as e:
    bad.append("device leases: %s" % e)
if q("PRAGMA integrity_check") != [("ok",)]:
    bad.append("integrity check failed")
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
echo "ok: one tune waited for the other; $nspace configurations measured once"
