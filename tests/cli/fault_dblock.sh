#!/usr/bin/env bash
# Fault (issue 29 defect 5): a wait for another process's lock on the results database.
# A Python process holds a write transaction on the database; `hetune tune`, `split` and
# `run` then
#  - say on stderr, after about a second, that they wait for the lock of that database;
#  - stop at Ctrl-C within a second, exit 130, saying they were interrupted while waiting
#    (tune and run used to wait the whole 30 s of SQLite's busy timeout, then carry on;
#    split, which its supervisor runs, ends at once by the signal);
#  - with HETUNE_DB_TIMEOUT=2 gives up after about 2 s, exit 1, with an error naming the
#    database and the wait (it used to say only "database is locked").
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp fault-dblock

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")

cp "$HETUNE_SOURCE_DIR/tests/fixtures/tune/kernel.cl" "$tmp/kernel.cl"
cat >"$tmp/spec.json" <<'JSON'
{
  "name": "fault-dblock",
  "kernel": { "file": "kernel.cl", "name": "slowish" },
  "sizes": { "N": 256, "REPS": 4 },
  "ndrange": { "global": ["N"], "local": ["64"] },
  "params": { "SLOW": { "values": [0, 1] } },
  "args": [
    { "name": "out", "type": "float", "shape": ["N"], "access": "write", "index": ["gx"] },
    { "name": "in", "type": "float", "shape": ["N"], "access": "read", "init": "random", "index": ["gx"] },
    { "name": "reps", "type": "int", "value": "REPS" }
  ],
  "verify": { "reference": { "SLOW": 0 }, "rtol": 1e-5, "atol": 1e-5 },
  "timing": { "repeats": 2, "keep_best": 1 }
}
JSON
db="$tmp/locked.db"
# A hetune database first, so that the lock is what the tune meets.
run tune "$tmp/spec.json" --device "$dev" --db "$db" -q
expect_status 0

python3 - "$HETUNE" "$tmp" "$db" "$dev" <<'PY' || fail "database lock: see above"
import os, signal, sqlite3, subprocess, sys, time
hetune, tmp, db, dev = sys.argv[1:5]
spec = os.path.join(tmp, "spec.json")
bad = []

holder = sqlite3.connect(db, isolation_level=None, timeout=30)
holder.execute("BEGIN IMMEDIATE")  # the write lock, held until the end of this script
holder.execute("UPDATE kernels SET hash = hash")

# 1. Ctrl-C during the wait: tune, and split and run, whose workflows open the database
#    themselves (they used to wait silently, deaf to Ctrl-C, for up to 30 s).
def interrupted(name, argv):
    err = open(os.path.join(tmp, name + ".err"), "w+")
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
    t0 = time.time()
    while time.time() - t0 < 30 and "waiting for the lock" not in open(err.name).read():
        if p.poll() is not None:
            break
        time.sleep(0.05)
    notice_s = time.time() - t0
    text = open(err.name).read()
    if "waiting for the lock of the database %s" % db not in text:
        bad.append("%s: no waiting notice naming the database within 30 s: %r" % (name, text))
    elif notice_s < 0.9:
        bad.append("%s: the notice came after %.2f s, before a second of waiting" % (name, notice_s))
    if p.poll() is not None:
        bad.append("%s ended (exit %d) while the lock was held" % (name, p.returncode))
        return
    t1 = time.time()
    p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
        bad.append("%s: Ctrl-C did not stop the wait within 10 s" % name)
    took = time.time() - t1
    text = open(err.name).read()
    if rc != 130:
        bad.append("%s: exit %d after Ctrl-C, not 130: %r" % (name, rc, text))
    if took > 1.0:
        bad.append("%s: Ctrl-C took %.2f s to stop the wait" % (name, took))
    # split ends at once by the signal outside a device lock's wait (its supervisor says
    # "interrupted: ..."); tune and run end the wait and say so.
    said = "interrupted: what was measured is stored" if name == "split" else \
        "interrupted while waiting for the database lock"
    if said not in text:
        bad.append("%s: no %r: %r" % (name, said, text))

interrupted("tune", [hetune, "tune", spec, "--device", dev, "--db", db, "--fresh"])
interrupted("split", [hetune, "split", spec, "--device", dev, "--db", db])
interrupted("run", [hetune, "run", spec, "--device", dev, "--db", db,
                    "--out", os.path.join(tmp, "report")])

# 2. A lock held past the limit.
env = dict(os.environ, HETUNE_DB_TIMEOUT="2")
t1 = time.time()
r = subprocess.run([hetune, "tune", spec, "--device", dev, "--db", db, "--fresh"],
                   capture_output=True, text=True, env=env, timeout=120)
took = time.time() - t1
if r.returncode != 1:
    bad.append("exit %d with the lock held past the limit, not 1: %r" % (r.returncode, r.stderr))
want = "%s: cannot store the device: the database is locked: another process held its lock for more than 2 s" % db
if want not in r.stderr:
    bad.append("stderr lacks %r: %r" % (want, r.stderr))
if not 1.9 <= took <= 60:
    bad.append("gave up after %.2f s, not after the 2 s limit" % took)
holder.execute("ROLLBACK")
holder.close()

# 3. Once the lock is given back, the same tune runs, with no notice.
r = subprocess.run([hetune, "tune", spec, "--device", dev, "--db", db],
                   capture_output=True, text=True, timeout=300)
if r.returncode != 0 or "waiting for the lock" in r.stderr:
    bad.append("after the lock: exit %d, %r" % (r.returncode, r.stderr))
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
echo "ok: a wait for the database lock is said, stops at Ctrl-C (130) in tune, split and run, and gives up naming the database"
