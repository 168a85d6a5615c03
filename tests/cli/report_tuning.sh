#!/usr/bin/env bash
# hetune report draws tuning (issue 28 item 9): two strategies tune vecadd on PoCL into a
# fresh database; the report writes each device's configuration times (one row per
# configuration with a time, by rank) and each run's best-so-far (one row per evaluation of
# the run, one block per run, both strategies, the best never rising, ending at the run's
# best), lists them in its text and JSON output, draws them when gnuplot is on PATH, and
# without gnuplot still writes the data and says the pictures were skipped. A replay's runs
# are marked replayed and run on the simulated clock.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp report_tuning
vecadd="$HETUNE_SOURCE_DIR/examples/vecadd/spec.json"
fix="$HETUNE_SOURCE_DIR/tests/fixtures/replay"

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")
db="$tmp/t.db"

# Two strategies, small budgets, one database: the second finds the first's results stored.
run tune "$vecadd" --size N=4096 --device "$dev" --db "$db" --strategy random --budget 5 \
    --seed 1 --json
expect_status 0
cp "$tmp/out" "$tmp/random.json"
run tune "$vecadd" --size N=4096 --device "$dev" --db "$db" --strategy genetic --budget 5 \
    --seed 2 --json
expect_status 0
cp "$tmp/out" "$tmp/genetic.json"

run report --db "$db" --out "$tmp/rep" --json
expect_status 0
check 'd["tunings"] == 1 and d["runs"] == 2 and d["figures"] == 2'
check 'len(d["figure_names"]) == 2 and d["figure_names"][0].endswith("-times") and d["figure_names"][1].endswith("-best")'
times="$tmp/rep/$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["figure_names"][0])' "$tmp/out")"
best="$tmp/rep/$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["figure_names"][1])' "$tmp/out")"
case "$times" in */tune-vecadd_N4096-*-times) ;; *) fail "unexpected name $times" ;; esac
[ -s "$times.dat" ] && [ -s "$times.gp" ] && [ -s "$best.dat" ] && [ -s "$best.gp" ] ||
    fail "a tuning figure's data or script is missing: $(ls "$tmp/rep")"

# The best-so-far: one block per run, in the order they ran, as many rows as the run's
# evaluations, its own strategy on each row, never rising, ending at the run's best.
python3 - "$best.dat" "$tmp/random.json" "$tmp/genetic.json" <<'EOF' || fail "best-so-far data: $(cat "$best.dat")"
import json, math, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
runs = {}
for r in rows:
    runs.setdefault(int(r[0]), []).append(r)
assert len(runs) == 2, runs.keys()
for (rid, rs), path, strategy in zip(sorted(runs.items()), sys.argv[2:], ["random", "genetic"]):
    d = json.load(open(path))["devices"][0]
    assert len(rs) == d["evaluated"], (strategy, len(rs), d["evaluated"])
    assert all(r[1] == strategy for r in rs), (strategy, rs)
    assert [int(r[2]) for r in rs] == list(range(1, len(rs) + 1)), rs
    clock = [float(r[3]) for r in rs]
    assert all(b >= a for a, b in zip(clock, clock[1:])), clock
    best = [float(r[5]) for r in rs if r[5] != "NaN"]
    assert all(b <= a for a, b in zip(best, best[1:])), best
    # Every own time is at least the best so far at its row.
    for r in rs:
        if r[4] != "NaN" and r[5] != "NaN":
            assert float(r[4]) >= float(r[5]), r
    # The tune's best is the last best-so-far (the second run's may be the first's,
    # which it found stored).
    if d.get("best") and best:
        assert abs(best[-1] - d["best"]["seconds"]) <= 1e-6 * d["best"]["seconds"], (best[-1], d["best"])
EOF

# The times: one row per stored configuration with a time (ok and not failed verification,
# or cut), ranks 1..n, fastest first; the header counts every evaluation.
want=$(sql "q(\"SELECT count(*) FROM evaluations WHERE (status = 'ok' AND verified <> 0 OR status = 'cut') AND typeof(seconds) = 'real'\")[0][0]")
total=$(sql "q('SELECT count(*) FROM evaluations')[0][0]")
python3 - "$times.dat" "$want" "$total" <<'EOF' || fail "times data: $(cat "$times.dat")"
import sys
lines = open(sys.argv[1]).read().splitlines()
rows = [l.split() for l in lines if l.strip() and not l.startswith("#")]
assert len(rows) == int(sys.argv[2]), (len(rows), sys.argv[2])
assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1))
t = [float(r[1]) for r in rows]
assert t == sorted(t), t
assert all(r[2] in ("ok", "cut") for r in rows)
assert any(l.startswith("# evaluations %s," % sys.argv[3]) for l in lines), lines[:3]
EOF

# Drawn when gnuplot is here (that check alone is skipped without it).
if command -v gnuplot >/dev/null 2>&1; then
    check 'd["pictures"] is True'
    for f in "$times" "$best"; do
        [ -s "$f.png" ] && [ -s "$f.svg" ] || fail "$f not drawn: $(cat "$tmp/rep/gnuplot.log")"
    done
    grep -qF "]($(basename "$best").png)" "$tmp/rep/report.md" || fail "report.md lacks the best-so-far figure"
else
    echo "gnuplot not found: the pictures' check is skipped" >&2
fi

# Without gnuplot: the data and scripts all the same, the text output says why no pictures,
# and lists every figure.
run report --db "$db" --out "$tmp/nognu" --gnuplot "$tmp/no-such-gnuplot"
expect_status 0
grep -q "^tuning        1 device's configuration times, 2 tuning runs" "$tmp/out" || fail "no tuning line: $(cat "$tmp/out")"
grep -q "^figures       2 gnuplot scripts and data, no pictures: .*no-such-gnuplot was not found" "$tmp/out" ||
    fail "no word of the skipped pictures: $(cat "$tmp/out")"
grep -qx "  $(basename "$best")" "$tmp/out" || fail "the text output does not list $(basename "$best")"
cmp -s <(grep -v '^#' "$best.dat") <(grep -v '^#' "$tmp/nognu/$(basename "$best").dat") ||
    fail "the data differ without gnuplot"
[ -s "$tmp/nognu/$(basename "$times").gp" ] || fail "no script without gnuplot"
[ ! -e "$tmp/nognu/$(basename "$times").png" ] || fail "a picture without gnuplot"

# --- a replay: its own device, marked, on the simulated clock (no OpenCL needed) ----------
run import-kt "$fix/stencil.T1.json" -o "$tmp/stencil.json"
expect_status 0
python3 "$fix/make_t4.py" "$tmp/rec.T4.json"
rdb="$tmp/r.db"
for s in random anneal; do
    run tune "$tmp/stencil.json" --replay "$tmp/rec.T4.json" --db "$rdb" --strategy "$s" \
        --budget 8 --seed 3 --json
    expect_status 0
    cp "$tmp/out" "$tmp/replay-$s.json"
done
run report --db "$rdb" --out "$tmp/rrep" --json
expect_status 0
check 'd["runs"] == 2 and d["tunings"] == 1'
rbest="$tmp/rrep/$(python3 -c 'import json,sys; print([n for n in json.load(open(sys.argv[1]))["figure_names"] if n.endswith("-best")][0])' "$tmp/out")"
grep -q "^# Search convergence: .*, replayed (simulated clock), 2 runs" "$rbest.dat" ||
    fail "the replay is not marked: $(head -3 "$rbest.dat")"
grep -q "simulated" "$rbest.gp" || fail "the replay's time axis is not the simulated one"
python3 - "$rbest.dat" "$tmp/replay-random.json" "$tmp/replay-anneal.json" <<'EOF' || fail "replay data: $(cat "$rbest.dat")"
import json, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
for strategy, path in zip(["random", "anneal"], sys.argv[2:]):
    d = json.load(open(path))["devices"][0]
    rs = [r for r in rows if r[1] == strategy]
    assert len(rs) == d["evaluated"], (strategy, len(rs), d["evaluated"])
    # The clock is the recording's: the last step's is the run's simulated seconds.
    assert abs(float(rs[-1][3]) - d["simulated_seconds"]) < 1e-6, (rs[-1], d["simulated_seconds"])
EOF
grep -q "replayed" "$tmp/rrep/$(basename "${rbest%-best}")-times.dat" || fail "the replayed times are not marked"
echo ok
