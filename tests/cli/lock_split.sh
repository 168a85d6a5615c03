#!/usr/bin/env bash
# Issue 29 deliverable 3: `split` and `tune` of the same CPU device with DIFFERENT
# databases never measure at once. tune holds its device's lock for its whole run, split
# takes every device's lock for its measurements (each device alone, the split). The tune
# starts first and is stopped (SIGSTOP) as soon as it holds the lock (its pid in the lock
# file); the split started then must say that the device is being measured by the tune (its
# pid) and wait; the tune is let go once it does, and what the split stored comes after all
# the tune stored (created_at of the split and of the evaluations). Started together
# instead, as this test once did, the two could run one after the other on a loaded
# machine, neither waiting (a fresh clone's make test, 2026-11-29). Then Ctrl-C while split
# waits for the lock: 130 within a second.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp lock-split
export HETUNE_LOCK_DIR="$tmp/locks"

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")

cp "$HETUNE_SOURCE_DIR/tests/fixtures/tune/kernel.cl" "$tmp/kernel.cl"
cp "$HETUNE_SOURCE_DIR/tests/fixtures/tune/devlock.json" "$tmp/spec.json"

# The split's database holds the tuned configuration first, so that it only measures.
run tune "$tmp/spec.json" --device "$dev" --db "$tmp/s.db" --cut-factor 0 -q
expect_status 0

# Each its own PoCL folder (own_pocl in common.bash says why).
POCL_CACHE_DIR=$(own_pocl t) "$HETUNE" tune "$tmp/spec.json" --device "$dev" --db "$tmp/t.db" \
    --cut-factor 0 --json >"$tmp/t.json" 2>"$tmp/t.err" &
pid_t=$!
stop_holding "$tmp/locks/cpu.lock" "$pid_t"
POCL_CACHE_DIR=$(own_pocl s) "$HETUNE" split "$tmp/spec.json" --device "$dev,$dev" \
    --db "$tmp/s.db" --force --repeats 20 --json >"$tmp/s.json" 2>"$tmp/s.err" &
pid_s=$!
until_waiting "$tmp/s.err" "$pid_s"
kill -CONT "$pid_t"
status_s=0
status_t=0
wait "$pid_s" || status_s=$?
wait "$pid_t" || status_t=$?
[ "$status_s" -eq 0 ] || fail "split exited $status_s: $(cat "$tmp/s.err")"
[ "$status_t" -eq 0 ] || fail "tune exited $status_t: $(cat "$tmp/t.err")"

python3 - "$tmp" "$pid_s" "$pid_t" <<'PY' || fail "split and tune of one device: see above"
import json, re, sqlite3, sys
tmp, pids = sys.argv[1], {"s": sys.argv[2], "t": sys.argv[3]}
cmd = {"s": "split", "t": "tune"}
errs = {k: open("%s/%s.err" % (tmp, k)).read() for k in "st"}
waiters = [k for k in "st" if "is being measured by" in errs[k]]
if waiters != ["s"]:
    sys.exit("expected the split alone to wait for the tune's device lock, got %r: %r"
             % (waiters, errs))
w = waiters[0]
o = "t" if w == "s" else "s"
bad = []
# split measures in a child process its command supervises (supervise.h): the notice of a
# tune waiting for it names that child, a process started after the split.
m = re.search(r"hetune %s: device \d+ is being measured by process (\d+) \(lock %s/locks/cpu\.lock\); "
              r"waiting" % (cmd[w], re.escape(tmp)), errs[w])
if not m or not (m.group(1) == pids[o] or (o == "s" and int(m.group(1)) > int(pids[o])
                                           and m.group(1) != pids[w])):
    bad.append("the notice does not name the %s (%s): %r" % (cmd[o], pids[o], errs[w]))
s = sqlite3.connect("%s/s.db" % tmp).execute("SELECT min(created_at), max(created_at) FROM splits").fetchone()
t = sqlite3.connect("%s/t.db" % tmp).execute("SELECT min(created_at), max(created_at), count(*) FROM evaluations").fetchone()
if t[2] != 6 or s[0] is None:
    bad.append("tune stored %d evaluations, split %r" % (t[2], s))
span = {"s": s, "t": t}
if not span[o][1] < span[w][0]:
    bad.append("they measured at once: %s stored %s..%s, %s (the waiter) %s..%s"
               % (cmd[o], span[o][0], span[o][1], cmd[w], span[w][0], span[w][1]))
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# Ctrl-C while split waits for the device lock (held here by Python, as hetune takes it).
python3 - "$HETUNE" "$tmp" "$dev" <<'PY' || fail "Ctrl-C during split's wait for the device lock"
import fcntl, os, signal, subprocess, sys, time
hetune, tmp, dev = sys.argv[1:4]
holder = open(os.path.join(tmp, "locks", "cpu.lock"), "a")
fcntl.flock(holder, fcntl.LOCK_EX)
err = os.path.join(tmp, "c.err")
p = subprocess.Popen([hetune, "split", os.path.join(tmp, "spec.json"), "--device",
                      "%s,%s" % (dev, dev), "--db", os.path.join(tmp, "s.db"), "--force"],
                     stdout=subprocess.DEVNULL, stderr=open(err, "w"))
t0 = time.time()
while time.time() - t0 < 60 and "is being measured by" not in open(err).read():
    time.sleep(0.05)
bad = []
if "hetune split: device %s is being measured by another process (lock" % dev not in open(err).read():
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
echo "ok: split and tune of one device on two databases: one measurement at a time, the wait said, Ctrl-C stops it"
