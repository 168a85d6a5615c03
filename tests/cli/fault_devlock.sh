#!/usr/bin/env bash
# Fault (issue 29 defect 7, deliverable 3): two `hetune tune` of one device with DIFFERENT
# databases. A lock per device outside any database keeps their measurements apart: tune A
# starts and is stopped as soon as it holds the lock (stop_holding); tune B, started then,
# says on stderr that the device is being measured by A (naming its pid) and waits; A goes
# on, and every evaluation B stores comes after the last one A stored (created_at), so they
# never measured at once. Luck cannot pass it: a B that did not wait prints no notice.
# (Started at the same moment instead, as this test once did, the two could run one after
# the other on a loaded machine, neither waiting.) Then a Ctrl-C during that wait exits 130
# within a second.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp fault-devlock
export HETUNE_LOCK_DIR="$tmp/locks"

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")

# Each tune lasts a few seconds (6 configurations, a loop of SLOW * REPS steps per element).
cp "$HETUNE_SOURCE_DIR/tests/fixtures/tune/kernel.cl" "$tmp/kernel.cl"
cp "$HETUNE_SOURCE_DIR/tests/fixtures/tune/devlock.json" "$tmp/spec.json"

# Each its own PoCL folder (own_pocl in common.bash says why).
POCL_CACHE_DIR=$(own_pocl a) "$HETUNE" tune "$tmp/spec.json" --device "$dev" --db "$tmp/a.db" \
    --cut-factor 0 --json \
    >"$tmp/a.json" 2>"$tmp/a.err" &
pid_a=$!
stop_holding "$tmp/locks/cpu.lock" "$pid_a"
POCL_CACHE_DIR=$(own_pocl b) "$HETUNE" tune "$tmp/spec.json" --device "$dev" --db "$tmp/b.db" \
    --cut-factor 0 --json \
    >"$tmp/b.json" 2>"$tmp/b.err" &
pid_b=$!
until_waiting "$tmp/b.err" "$pid_b"
kill -CONT "$pid_a"
status_a=0
status_b=0
wait "$pid_a" || status_a=$?
wait "$pid_b" || status_b=$?
[ "$status_a" -eq 0 ] || fail "tune A exited $status_a: $(cat "$tmp/a.err")"
[ "$status_b" -eq 0 ] || fail "tune B exited $status_b: $(cat "$tmp/b.err")"

python3 - "$tmp" "$pid_a" "$pid_b" <<'PY' || fail "two databases, one device: see above"
import json, sqlite3, sys
tmp, pids = sys.argv[1], {"a": sys.argv[2], "b": sys.argv[3]}
errs = {k: open("%s/%s.err" % (tmp, k)).read() for k in "ab"}
bad = []
waiters = [k for k in "ab" if "is being measured by" in errs[k]]
if waiters != ["b"]:
    sys.exit("expected tune B alone to wait for A's device lock, got %r: %r" % (waiters, errs))
w = waiters[0]
o = "b" if w == "a" else "a"
want = "is being measured by process %s (lock %s/locks/cpu.lock); waiting" % (pids[o], tmp)
if want not in errs[w]:
    bad.append("the notice lacks %r: %r" % (want, errs[w]))
span = {}
for k in "ab":
    d = json.load(open("%s/%s.json" % (tmp, k)))["devices"][0]
    if d["evaluated"] != 6 or d["best"] is None:
        bad.append("tune %s: %r" % (k, d))
    c = sqlite3.connect("%s/%s.db" % (tmp, k))
    span[k] = c.execute("SELECT min(created_at), max(created_at), count(*) FROM evaluations").fetchone()
if not span[o][1] < span[w][0]:
    bad.append("they measured at once: %s stored %s..%s, %s (the waiter) %s..%s"
               % (o, span[o][0], span[o][1], w, span[w][0], span[w][1]))
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# A Ctrl-C while waiting for the device lock: 130 within a second. The lock is held here
# by the Python process itself (fcntl.flock, as hetune takes it).
python3 - "$HETUNE" "$tmp" "$dev" <<'PY' || fail "Ctrl-C during the wait for the device lock"
import fcntl, os, signal, subprocess, sys, time
hetune, tmp, dev = sys.argv[1:4]
holder = open(os.path.join(tmp, "locks", "cpu.lock"), "a")
fcntl.flock(holder, fcntl.LOCK_EX)
err = os.path.join(tmp, "c.err")
p = subprocess.Popen([hetune, "tune", os.path.join(tmp, "spec.json"), "--device", dev,
                      "--db", os.path.join(tmp, "c.db")],
                     stdout=subprocess.DEVNULL, stderr=open(err, "w"))
t0 = time.time()
while time.time() - t0 < 60 and "is being measured by" not in open(err).read():
    time.sleep(0.05)
bad = []
if "is being measured by another process (lock" not in open(err).read():
    bad.append("no notice within 60 s: %r" % open(err).read())
t1 = time.time()
p.send_signal(signal.SIGINT)
try:
    rc = p.wait(timeout=10)
except subprocess.TimeoutExpired:
    p.kill()
    rc = p.wait()
took = time.time() - t1
holder.close()
if rc != 130 or took > 1.0:
    bad.append("exit %d after %.2f s: %r" % (rc, took, open(err).read()))
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
echo "ok: two databases, one device: one measurement at a time, the wait said, Ctrl-C stops it"
