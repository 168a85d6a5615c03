#!/usr/bin/env bash
# hetune tune survives SIGKILL: a tune of a space that takes several seconds is killed with
# SIGKILL (kill -9) after about two seconds of measuring; the database must pass its
# integrity check, every stored evaluation must hold all its runs, and a last tune must
# finish the space without measuring again what was stored. The tune is killed twice, at
# different moments, before the last one.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp resume
# What a kill leaves and what a resume measures are tested here, not the binary cache:
# PoCL caches (common.bash). The kills still land mid-run however quick the builds are:
# at 40% of the space at the latest (tune_and_kill).
pocl_cache_on

# tests/fixtures/tune/resume.json with 28 of its 84 configurations (SLOW 1 and 2, EPT 1
# and 4, every WG): each is a build and ten runs of a few milliseconds, so the tune still
# lasts several seconds, is killed twice by its 40% or so (tune_and_kill), and the last
# tune still measures about half of it; the whole space tripled the test's time.
python3 - "$HETUNE_SOURCE_DIR/tests/fixtures/tune/resume.json" "$tmp/resume.json" <<'PY'
import json, os, sys
s = json.load(open(sys.argv[1]))
s["kernel"]["file"] = os.path.join(os.path.dirname(sys.argv[1]), s["kernel"]["file"])
s["params"]["SLOW"]["values"] = [1, 2]
s["params"]["EPT"]["values"] = [1, 4]
json.dump(s, open(sys.argv[2], "w"))
PY
spec="$tmp/resume.json"
db="$tmp/resume.db"

status=0
"$HETUNE" devices --json >"$tmp/devices.json" 2>"$tmp/err" || status=$?
require_platform
dev=$(pthread_device "$tmp/devices.json")

"$HETUNE" space "$spec" --device "$dev" --json >"$tmp/space.json"
nspace=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][0]["pruned"])' "$tmp/space.json")
[ "$nspace" -eq 28 ] || fail "expected 28 configurations, the space has $nspace"

# Checks what a killed tune left: integrity, every evaluation with all its runs (the
# spec's 10 repeats: early termination is off), nothing half written. Prints the count.
check_db() {
    [ "$(sql "q('PRAGMA integrity_check')")" = "[('ok',)]" ] || fail "integrity check failed"
    [ "$(sql "q('''SELECT count(*) FROM evaluations e WHERE nruns != 10 OR nruns !=
               (SELECT count(*) FROM runs r WHERE r.eval_id = e.id)''')[0][0]")" = 0 ] ||
        fail "an evaluation lacks runs: $(sql "q('SELECT id, nruns FROM evaluations')")"
    [ "$(sql "q('SELECT count(*) FROM runs WHERE eval_id NOT IN (SELECT id FROM evaluations)')[0][0]")" = 0 ] ||
        fail "runs without their evaluation"
    [ "$(sql "q('''SELECT count(*) FROM evaluations WHERE status != 'ok' OR verified != 1''')[0][0]")" = 0 ] ||
        fail "evaluations not ok: $(sql "q('SELECT config, status, reason FROM evaluations WHERE status != \"ok\"')")"
}

# Starts a tune, waits until it has stored at least $1 evaluations and then $2 more
# seconds have passed (or, on a fast machine, until it has stored 40% of the space), and
# kills it with SIGKILL (kill -9). Polls every 20 ms so that the kill lands mid-run.
tune_and_kill() {
    python3 - "$HETUNE" "$spec" "$dev" "$db" "$1" "$2" "$nspace" "$tmp/killed.out" <<'EOF' ||
import os, signal, sqlite3, subprocess, sys, time
hetune, spec, dev, db, first, wait_s, n, out = sys.argv[1:]
first, wait_s, n = int(first), float(wait_s), int(n)
p = subprocess.Popen([hetune, "tune", spec, "--device", dev, "--db", db, "--cut-factor", "0"],
                     stdout=open(out, "w"), stderr=subprocess.STDOUT)
def stored():
    try:
        c = sqlite3.connect(db, timeout=30)
        try:
            return c.execute("SELECT count(*) FROM evaluations").fetchone()[0]
        finally:
            c.close()
    except sqlite3.Error:
        return 0
start, since = time.time(), None
while p.poll() is None:
    k = stored()
    if since is None and k >= first:
        since = time.time()
    if since is not None and (time.time() - since >= wait_s or k >= 0.4 * n):
        break
    if time.time() - start > 300:
        break
    time.sleep(0.02)
if p.poll() is not None:
    print("the tune ended before it was killed: exit %s" % p.returncode, file=sys.stderr)
    sys.exit(1)
os.kill(p.pid, signal.SIGKILL)
p.wait()
sys.exit(0 if since is not None else 1)
EOF
        fail "tune_and_kill: $(cat "$tmp/killed.out")"
}

# First kill: a few evaluations in, about two seconds of measuring.
tune_and_kill 1 2
check_db
stored=$(sql "q('SELECT count(*) FROM evaluations')[0][0]")
[ "$stored" -ge 1 ] && [ "$stored" -lt "$nspace" ] || fail "$stored evaluations stored"
echo "killed after $stored of $nspace evaluations"

# Second kill, later on: resumes, adds some, is killed again.
tune_and_kill $((stored + 2)) 1
check_db
stored2=$(sql "q('SELECT count(*) FROM evaluations')[0][0]")
[ "$stored2" -gt "$stored" ] && [ "$stored2" -lt "$nspace" ] || fail "$stored2 evaluations stored after the second kill"
echo "killed again after $stored2 of $nspace evaluations"
ids_before=$(sql "sorted(q('SELECT id, config, seconds FROM evaluations'))")

# The last run finishes the space and measures nothing that was stored.
"$HETUNE" tune "$spec" --device "$dev" --db "$db" --cut-factor 0 --json >"$tmp/out" 2>"$tmp/err" ||
    fail "the resumed tune failed: $(cat "$tmp/err")"
python3 - "$tmp/out" "$stored2" "$nspace" <<'EOF' || fail "resumed tune: $(cat "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
stored, n = int(sys.argv[2]), int(sys.argv[3])
ok = d["from_db"] >= stored and d["from_db"] + d["evaluated"] == n and d["space"] == n
ok = ok and d["best"] is not None and not d["stopped"]
sys.exit(0 if ok else 1)
EOF
check_db
[ "$(sql "q('SELECT count(*) FROM evaluations')[0][0]")" = "$nspace" ] || fail "not every configuration is stored"
# What was stored before is still there, untouched (same rows, same times).
[ "$(sql "sorted(q('SELECT id, config, seconds FROM evaluations'))[:$stored2]")" = "$ids_before" ] ||
    fail "stored evaluations were measured again"
echo "ok"
