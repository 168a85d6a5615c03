#!/usr/bin/env bash
# hetune tune on real OpenCL devices, small sizes: exhaustive tunes write every evaluation
# and all its runs to the database; a second run measures nothing; --fresh measures again;
# configurations that do not build or give wrong answers are stored with their reason and
# never chosen as best; early termination; the strategies respect --budget; Ctrl-C stops
# cleanly with 130; both devices of POCL_DEVICES="pthread basic"; usage errors.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp tune

ex="$HETUNE_SOURCE_DIR/examples"
fix="$HETUNE_SOURCE_DIR/tests/fixtures/tune"
vecadd="$ex/vecadd/spec.json"

# Checks database $1 with a Python expression over `q` (a function running SQL and
# returning all rows) and `d` (the JSON of the last run).
check_db() {
    python3 - "$1" "$tmp/out" "$2" <<'EOF' || fail "database check failed: $2"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
q = lambda sql, *a: db.execute(sql, a).fetchall()
try:
    d = json.load(open(sys.argv[2]))
except Exception:
    d = None
ok = eval(sys.argv[3])
if not ok:
    for row in q("SELECT config, status, nruns, seconds, verified, reason FROM evaluations"):
        print(row, file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
}

# The database invariants every tune keeps: integrity, every evaluation holds exactly its
# nruns runs, every ok evaluation verified and ran all its repeats ($2), or fewer only when
# adaptive repeats found it precise (exec.h: its fastest k = max(keep_best $3 (default 5),
# 3) runs within 2% of each other).
check_invariants() {
    check_db "$1" "q('PRAGMA integrity_check') == [('ok',)]"
    check_db "$1" "q('''SELECT count(*) FROM evaluations e WHERE nruns !=
                     (SELECT count(*) FROM runs r WHERE r.eval_id = e.id)''') == [(0,)]"
    check_db "$1" "q('''SELECT count(*) FROM evaluations WHERE status = 'ok' AND
                     (nruns > $2 OR verified != 1 OR seconds IS NULL)''') == [(0,)]"
    check_db "$1" "all(n == $2 or (n >= k and (r[k - 1] - r[0]) / r[0] <= 0.02)
                     for k in [max(${3:-5}, 3)]
                     for (i, n) in q('SELECT id, nruns FROM evaluations WHERE status = \"ok\"')
                     for r in [sorted(x for (x,) in q('SELECT seconds FROM runs WHERE eval_id = ?', i))])"
}

# The best of the last run is the fastest verified evaluation of its problem (that of the
# last evaluation stored) in the database: another problem size in the same database may
# have a faster one (it did under ASan: N=8192's best beat N=4096's by noise).
check_best_is_fastest() {
    check_db "$1" "abs(d['devices'][0]['best']['seconds'] - q('''SELECT min(seconds) FROM
                   evaluations WHERE status = 'ok' AND verified = 1 AND problem_id =
                   (SELECT problem_id FROM evaluations ORDER BY id DESC LIMIT 1)''')[0][0]) < 1e-12"
}

run devices --json
require_platform
# One device for most checks: PoCL's pthread device when there is one, else the first.
dev=$(pthread_device "$tmp/out")

# Usage errors: exit 2 with a message, and nothing written.
run tune --help
expect_status 0
grep -q -- "--cut-factor" "$tmp/out" || fail "--help lacks --cut-factor"
run tune
expect_status 2
expect_err "missing SPEC"
run tune "$vecadd" --strategy nosuch --db "$tmp/u.db"
expect_status 2
expect_err "unknown strategy 'nosuch'"
run tune "$vecadd" --cut-factor 0.5 --db "$tmp/u.db"
expect_status 2
expect_err "--cut-factor"
run tune "$vecadd" --budget -3 --db "$tmp/u.db"
expect_status 2
run tune "$vecadd" --device nosuchdevice --db "$tmp/u.db"
expect_status 2
run tune "$tmp/missing.json" --db "$tmp/u.db"
expect_status 2
[ ! -e "$tmp/u.db" ] || fail "a usage error created the database"

# The exhaustive tunes of vecadd (84 configurations a device) build through PoCL's cache in
# the tests' folder, as the case studies below: they check what is measured and stored, not
# hetune's binary cache (the strategies' and the fixtures' tunes below still use it), and
# with PoCL's cache off every configuration's work-group functions were generated again in
# each tune and each pass, 3 to 4 s of CPU a tune under ASan with hetune's cache warm.
run_pocl() {
    mkdir -p "$HETUNE_CACHE_DIR/pocl"
    POCL_KERNEL_CACHE=1 POCL_CACHE_DIR="$HETUNE_CACHE_DIR/pocl" run "$@"
}

# vecadd, exhaustive: every valid configuration is measured and stored with all its runs.
run space "$vecadd" --size N=4096 --device "$dev" --json
expect_status 0
nspace=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][0]["pruned"])' "$tmp/out")
[ "$nspace" -gt 10 ] || fail "vecadd space of $nspace configurations"
db="$tmp/vecadd.db"
run_pocl tune "$vecadd" --size N=4096 --device "$dev" --db "$db" --cut-factor 0 --json
expect_status 0
check "d['strategy'] == 'exhaustive' and len(d['devices']) == 1"
check "d['devices'][0]['space'] == $nspace and d['devices'][0]['evaluated'] == $nspace"
check "d['devices'][0]['from_db'] == 0 and d['devices'][0]['cut'] == 0"
check "d['devices'][0]['failed'] == 0 and d['devices'][0]['best'] is not None"
check "set(d['devices'][0]['best']['config']) == {'WG', 'EPT'}"
check "0 < d['devices'][0]['build_seconds'] < d['devices'][0]['tuning_seconds']"
check_db "$db" "q('SELECT count(*) FROM evaluations') == [($nspace,)]"
check_db "$db" "q('SELECT count(DISTINCT config) FROM evaluations') == [($nspace,)]"
check_db "$db" "q('SELECT count(*) FROM runs') == [($nspace * 10,)]"
check_db "$db" "q('SELECT DISTINCT status, strategy FROM evaluations') == [('ok', 'exhaustive')]"
check_invariants "$db" 10
check_best_is_fastest "$db"
best1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][0]["best"])' "$tmp/out")

# A second run measures nothing: everything comes from the database, the best too.
run tune "$vecadd" --size N=4096 --device "$dev" --db "$db" --json
expect_status 0
check "d['devices'][0]['evaluated'] == 0 and d['devices'][0]['from_db'] == $nspace"
check "d['devices'][0]['best']['from_db'] and dict(d['devices'][0]['best'], from_db=False) == $best1"
check_db "$db" "q('SELECT count(*) FROM evaluations') == [($nspace,)]"
# The text output says so too.
run tune "$vecadd" --size N=4096 --device "$dev" --db "$db"
expect_status 0
grep -q "0 in this run (0 cut, 0 failed), $nspace from the database" "$tmp/out" ||
    fail "text output: $(cat "$tmp/out")"
grep -q "best *WG=[0-9]* EPT=[0-9]*: " "$tmp/out" || fail "text output lacks best: $(cat "$tmp/out")"

# Another problem size is another problem: measured apart, the first one kept.
run_pocl tune "$vecadd" --size N=8192 --device "$dev" --db "$db" --json --cut-factor 0
expect_status 0
check "d['devices'][0]['from_db'] == 0 and d['devices'][0]['evaluated'] == d['devices'][0]['space']"
check_db "$db" "q('SELECT count(*) FROM problems') == [(2,)]"

# --fresh forgets this problem on this device and measures again.
run_pocl tune "$vecadd" --size N=4096 --device "$dev" --db "$db" --fresh --cut-factor 0 --json
expect_status 0
check "d['devices'][0]['evaluated'] == $nspace and d['devices'][0]['from_db'] == 0"
check "d['devices'][0]['forgotten'] == $nspace"
check_invariants "$db" 10
check_best_is_fastest "$db"

# An empty pruned space (conv1d with N=1 has one work-group, fewer than the compute units
# of any multi-core device; on a one-core device WG=1 survives): nothing to measure.
run space "$ex/conv1d/spec.json" --size N=1 --device "$dev" --json
if python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["devices"][0]["pruned"] != 0)' "$tmp/out"; then
    run tune "$ex/conv1d/spec.json" --size N=1 --device "$dev" --db "$tmp/empty.db" --json
    expect_status 1
    expect_err "the pruned space is empty"
    check "d['devices'][0]['space'] == 0 and d['devices'][0]['best'] is None"
fi

# The case studies at small sizes: every configuration of their pruned spaces verifies.
# Built through PoCL's cache (as pocl_cache_on in tests/cli/common.bash, for these tunes
# and vecadd's exhaustive ones only), which both passes of make test share: these tunes
# check what runs and verifies, not hetune's binary cache. A cold build then generates no
# binary file for hetune's cache (conv1d 7.3 -> 3.9 s of CPU, matmul 7.6 -> 4.0), and the
# sanitized pass finds every program built.
for spec in "conv1d --size N=4096" "matmul --size N=64"; do
    set -- $spec
    name=$1
    shift
    run space "$ex/$name/spec.json" "$@" --device "$dev" --json
    expect_status 0
    n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][0]["pruned"])' "$tmp/out")
    [ "$n" -gt 3 ] || fail "$name: space of $n configurations"
    mkdir -p "$HETUNE_CACHE_DIR/pocl"
    POCL_KERNEL_CACHE=1 POCL_CACHE_DIR="$HETUNE_CACHE_DIR/pocl" \
        run tune "$ex/$name/spec.json" "$@" --device "$dev" --db "$tmp/$name.db" --cut-factor 0 --json
    expect_status 0
    check "d['devices'][0]['evaluated'] == $n and d['devices'][0]['failed'] == 0"
    check_db "$tmp/$name.db" "q('SELECT count(*) FROM evaluations WHERE status = \"ok\" AND verified = 1') == [($n,)]"
    check_invariants "$tmp/$name.db" 10
    check_best_is_fastest "$tmp/$name.db"
done

# Wrong on purpose: WG=2 does not build, WG=8 and WG=64 give wrong answers (WG=8 and 64
# are faster than the right ones). They are stored with their reason, never best.
db="$tmp/wrong.db"
run tune "$fix/wrong.json" --device "$dev" --db "$db" --cut-factor 0 --json
expect_status 0
check "d['devices'][0]['space'] == 7 and d['devices'][0]['evaluated'] == 7"
check "d['devices'][0]['failed'] == 3"
check "d['devices'][0]['best']['config']['WG'] in (1, 4, 16, 32)"
check_db "$db" "dict(q('SELECT config, status FROM evaluations')) == {'WG=1': 'ok',
    'WG=2': 'build', 'WG=4': 'ok', 'WG=8': 'verify', 'WG=16': 'ok', 'WG=32': 'ok',
    'WG=64': 'verify'}"
check_db "$db" "'deliberately broken' in q('SELECT reason FROM evaluations WHERE config = \"WG=2\"')[0][0]"
check_db "$db" "'2048 of 4096 elements differ' in q('SELECT reason FROM evaluations WHERE config = \"WG=8\"')[0][0]"
check_db "$db" "q('SELECT verified, mismatches, nruns FROM evaluations WHERE config = \"WG=64\"') == [(0, 1, 4)]"
check_invariants "$db" 4 2
check_best_is_fastest "$db"
# A rerun keeps them rejected without building them again.
run tune "$fix/wrong.json" --device "$dev" --db "$db" --json
expect_status 0
check "d['devices'][0]['evaluated'] == 0 and d['devices'][0]['from_db'] == 7"
check "d['devices'][0]['best']['config']['WG'] in (1, 4, 16, 32)"

# Early termination: SLOW=1 is hundreds of times slower than SLOW=0, which is measured
# first; it is cut after HT_CUT_MIN_RUNS (2) runs, stored as cut with those runs.
db="$tmp/slow.db"
run tune "$fix/slow.json" --device "$dev" --db "$db" --json
expect_status 0
check "d['devices'][0]['evaluated'] == 2 and d['devices'][0]['cut'] == 1"
check "d['devices'][0]['best']['config']['SLOW'] == 0"
check_db "$db" "q('SELECT status, nruns, verified FROM evaluations WHERE config LIKE \"SLOW=1,%\"') == [('cut', 2, -1)]"
check_db "$db" "'cut after 2 of 10 runs' in q('SELECT reason FROM evaluations WHERE status = \"cut\"')[0][0]"
check_invariants "$db" 10 3
# With early termination off the slow one runs all its repeats.
run tune "$fix/slow.json" --device "$dev" --db "$db" --fresh --cut-factor 0 --json
expect_status 0
check "d['devices'][0]['cut'] == 0"
check_db "$db" "q('SELECT status, nruns FROM evaluations WHERE config LIKE \"SLOW=1,%\"') == [('ok', 10)]"

# The strategies on a real device respect --budget: this run's evaluations never pass it,
# stored ones do not count against it, and a rerun with the same seed proposes others.
for strategy in random genetic anneal; do
    db="$tmp/$strategy.db"
    run tune "$vecadd" --size N=4096 --device "$dev" --db "$db" --strategy "$strategy" \
        --budget 6 --seed 7 --json
    expect_status 0
    check "d['strategy'] == '$strategy' and 1 <= d['devices'][0]['evaluated'] <= 6"
    [ "$strategy" != random ] || check "d['devices'][0]['evaluated'] == 6"
    n1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][0]["evaluated"])' "$tmp/out")
    check_db "$db" "q('SELECT count(*) FROM evaluations') == [($n1,)]"
    check_db "$db" "q('SELECT DISTINCT strategy, seed FROM evaluations') == [('$strategy', 7)]"
    check_invariants "$db" 10
    run tune "$vecadd" --size N=4096 --device "$dev" --db "$db" --strategy "$strategy" \
        --budget 6 --seed 7 --json
    expect_status 0
    check "d['devices'][0]['from_db'] == $n1 and d['devices'][0]['evaluated'] <= 6"
    check_db "$db" "q('SELECT count(*) FROM evaluations')[0][0] == $n1 + d['devices'][0]['evaluated']"
    check_db "$db" "q('SELECT count(*) FROM evaluations')[0][0] <= 12"
done

# --time: no new configuration after the limit.
run tune "$fix/resume.json" --device "$dev" --db "$tmp/time.db" --time 0.5 --cut-factor 0 --json
[ "$status" -eq 0 ] || [ "$status" -eq 1 ] || fail "--time: exit $status: $(cat "$tmp/err")"
check "d['devices'][0]['evaluated'] < d['devices'][0]['space']"

# Ctrl-C: the configuration in flight is finished, the best so far printed, exit 130.
db="$tmp/sigint.db"
python3 - "$HETUNE" "$fix/resume.json" "$dev" "$db" "$tmp/out" <<'EOF' || fail "SIGINT: see above"
import signal, sqlite3, subprocess, sys, time
hetune, spec, dev, db, out = sys.argv[1:]
p = subprocess.Popen([hetune, "tune", spec, "--device", dev, "--db", db, "--cut-factor", "0",
                      "--json"], stdout=open(out, "w"), stderr=subprocess.PIPE, text=True)
deadline = time.time() + 120
def stored():
    try:
        c = sqlite3.connect(db, timeout=10)
        return c.execute("SELECT count(*) FROM evaluations").fetchone()[0]
    except sqlite3.Error:
        return 0
while stored() < 1 and p.poll() is None and time.time() < deadline:
    time.sleep(0.1)
p.send_signal(signal.SIGINT)
err = p.communicate(timeout=120)[1]
if p.returncode != 130 or "interrupted" not in err:
    print("SIGINT: exit %s, stderr %s" % (p.returncode, err), file=sys.stderr)
    sys.exit(1)
EOF
check "d['interrupted'] and d['devices'][0]['stopped']"
check "0 < d['devices'][0]['evaluated'] < d['devices'][0]['space']"
check "d['devices'][0]['best'] is not None"
check_db "$db" "q('SELECT count(*) FROM evaluations')[0][0] == d['devices'][0]['evaluated']"
check_invariants "$db" 10

# Two devices (POCL_DEVICES="pthread basic" gives two on PoCL): each is tuned in turn.
export POCL_DEVICES="pthread basic"
ndev=$("$HETUNE" devices --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["devices"]))')
db="$tmp/two.db"
run_pocl tune "$vecadd" --size N=4096 --db "$db" --cut-factor 0 --json
expect_status 0
check "len(d['devices']) == $ndev"
check "[x['index'] for x in d['devices']] == list(range($ndev))"
check "all(x['evaluated'] == x['space'] and x['best'] is not None for x in d['devices'])"
check_db "$db" "q('SELECT count(DISTINCT device_id) FROM evaluations') == [($ndev,)]"
check_db "$db" "q('SELECT count(*) FROM evaluations')[0][0] == sum(x['space'] for x in d['devices'])"
check_invariants "$db" 10
[ "$ndev" -lt 2 ] || grep -q '"basic' "$tmp/out" || fail "no basic device: $(cat "$tmp/out")"

# Two identical devices (two GPUs of one model; here PoCL's pthread device twice) are two
# devices in the database, each tuned, not one reusing the other's results.
export POCL_DEVICES="pthread pthread"
ndev=$("$HETUNE" devices --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["devices"]))')
if [ "$ndev" -eq 2 ]; then
    db="$tmp/twins.db"
    run tune "$vecadd" --size N=4096 --db "$db" --strategy random --budget 2 --seed 1 --json
    expect_status 0
    check "all(x['evaluated'] == 2 and x['from_db'] == 0 for x in d['devices'])"
    check_db "$db" "q('SELECT count(*) FROM devices') == [(2,)]"
    check_db "$db" "q('SELECT count(DISTINCT device_id) FROM evaluations') == [(2,)]"
fi

echo "ok"
