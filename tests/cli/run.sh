#!/usr/bin/env bash
# hetune run and hetune report on real PoCL devices (pthread and basic, or one device
# twice): the whole pipeline on a small conv1d with a sweep gives report.md with Tables 1-3
# and Figures 5-7 (pictures when gnuplot is on PATH), a second run measures nothing the
# database holds, hetune report rewrites the report from the database alone, with and
# without gnuplot on PATH, run --refine adds a "refined" co-execution and leaves the sweep
# on the paper's plan, hetune space --db records Tables 1-2, and bad input and bad
# databases are refused.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
export POCL_DEVICES="${POCL_DEVICES:-pthread basic}"
make_tmp run
# PoCL's cache (common.bash): this test checks the pipeline, its database and its report,
# not hetune's binary cache.
pocl_cache_on

spec="$HETUNE_SOURCE_DIR/examples/conv1d/spec.json"
db="$tmp/run.db"

expect_in() {
    grep -qF -- "$2" "$1" || fail "$1 lacks '$2': $(cat "$1")"
}

# Prints the result of one SQL query on the database $1.
sql() {
    python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$1" "$2"
}

run devices --json
require_platform
ndev=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["devices"]))' "$tmp/out")
if [ "$ndev" -ge 2 ]; then two="0,1"; else two="0,0"; fi
if command -v gnuplot >/dev/null 2>&1; then have_gnuplot=1; else have_gnuplot=0; fi

# --help and bad input.
run run --help
expect_status 0
expect_in "$tmp/out" "usage: hetune run SPEC"
for opt in --residue --refine --refine-by; do
    grep -q -- "$opt" "$tmp/out" || fail "run --help lacks $opt"
done
run report --help
expect_status 0
expect_in "$tmp/out" "usage: hetune report"
run run
expect_status 2
expect_err "missing SPEC"
run run "$spec" --scheduler roundrobin --db "$db"
expect_status 2
expect_err "unknown scheduler 'roundrobin'"
run run "$spec" --dim 1 --db "$db"
expect_status 2
expect_err "--dim 1"
run run "$spec" --sweep 0 --db "$db"
expect_status 2
run run "$spec" --device "$two,0" --sweep 0.5 --db "$db"
expect_status 2
expect_err "--sweep needs exactly two devices"
run run "$spec" --residue bogus --db "$db"
expect_status 2
expect_err "--residue"
run run "$spec" --refine 2 --scheduler dynamic --db "$db"
expect_status 2
expect_err "--refine refines the static plan, not the dynamic scheduler"
run run "$spec" --refine 21 --db "$db"
expect_status 2
expect_err "--refine"
run run "$spec" --refine 1 --refine-by bogus --db "$db"
expect_status 2
expect_err "--refine-by"
[ ! -e "$db" ] || fail "bad input created the database"

# The whole pipeline: prune, tune, split with a sweep, report.
run run "$spec" --size N=4096 --device "$two" --sweep 0.25 --repeats 3 --db "$db" \
    --out "$tmp/rep" --json
expect_status 0
check 'len(d["devices"]) == 2 and all(x["tune"]["evaluated"] > 0 for x in d["devices"][:1])'
check 'all(x["space"]["unpruned"] == 4096 and x["space"]["pruned"] > 0 for x in d["devices"])'
check 'len(d["splits"]) == 1 and d["splits"][0]["scheduler"] == "static"'
check 'd["splits"][0]["verified"] is True and d["splits"][0]["sweep_points"] == 5'
check 'abs(sum(d["splits"][0]["adjusted"]) - 1) < 1e-9 and abs(sum(d["splits"][0]["optimal"]) - 1) < 1e-9'
check "d['report']['path'] == '$tmp/rep/report.md' and d['report']['cases'] == 1"
# Figures 5 and 6, and per device the tuning's: its times, and its runs' best-so-far.
tuning_figs=$(sql "$db" "SELECT (SELECT count(DISTINCT device_id) FROM evaluations) + (SELECT count(DISTINCT device_id) FROM tune_runs r WHERE EXISTS (SELECT 1 FROM tune_steps s WHERE s.run_id = r.id))")
[ "$tuning_figs" -ge 2 ] || fail "the tune recorded no run: $tuning_figs tuning figures"
check "d['report']['figures'] == 2 + $tuning_figs and d['report']['pictures'] == bool($have_gnuplot)"
evals=$(sql "$db" "SELECT count(*) FROM evaluations")
[ "$evals" -gt 0 ] || fail "no evaluation stored"
[ "$(sql "$db" "SELECT count(*) FROM sweep_points")" -eq 5 ] || fail "sweep points not stored"

md="$tmp/rep/report.md"
for heading in "## Table 1: exploration space size without pruning" \
    "## Table 2: exploration space size after pruning" "## Table 3: data split factors" \
    "## Figure 5: execution times of heterogeneous runs" \
    "## Figures 6 and 7: split factor evaluations"; do
    expect_in "$md" "$heading"
done
expect_in "$md" "| conv1d N=4096 | gx (dim 0) | static | ("
grep -qE '^\| conv1d N=4096 \| 4096 \|' "$md" || fail "Table 1 lacks the case study: $(cat "$md")"
[ "$(grep -cE '^\| (0|1)\.[0-9]{3} \| (0|1)\.[0-9]{3} \|' "$md")" -eq 5 ] ||
    fail "the sweep table has not 5 points: $(cat "$md")"
for f in devices spaces tuning factors times sweep; do
    [ -s "$tmp/rep/$f.csv" ] || fail "$f.csv missing"
done
[ "$(wc -l <"$tmp/rep/sweep.csv")" -eq 6 ] || fail "sweep.csv: $(cat "$tmp/rep/sweep.csv")"
[ -s "$tmp/rep/fig5-conv1d_N4096.gp" ] || fail "no Figure 5 script"
[ -s "$tmp/rep/sweep-conv1d_N4096-dim0.gp" ] || fail "no sweep script"
if [ "$have_gnuplot" -eq 1 ]; then
    for f in fig5-conv1d_N4096 sweep-conv1d_N4096-dim0; do
        [ -s "$tmp/rep/$f.png" ] && [ -s "$tmp/rep/$f.svg" ] || fail "$f.png/.svg missing"
        expect_in "$md" "]($f.png)"
    done
else
    expect_in "$md" "No pictures"
fi

# A second run measures nothing the database holds; its co-executions are new.
run run "$spec" --size N=4096 --device "$two" --scheduler all --repeats 3 --db "$db" \
    --out "$tmp/rep" --json
expect_status 0
check 'all(x["tune"]["evaluated"] == 0 and x["tune"]["from_db"] > 0 for x in d["devices"])'
check '[s["scheduler"] for s in d["splits"]] == ["static", "dynamic", "guided"]'
check 'all(s["verified"] is True for s in d["splits"])'
[ "$(sql "$db" "SELECT count(*) FROM evaluations")" -eq "$evals" ] ||
    fail "the second run made new evaluations"
expect_in "$tmp/rep/report.md" "| conv1d N=4096 | gx (dim 0) | guided | ("
# The newest sweep stays in the report (the second run made none).
[ "$(wc -l <"$tmp/rep/sweep.csv")" -eq 6 ] || fail "sweep.csv lost the sweep"

# hetune report from the database alone, with and without gnuplot on PATH.
run report --db "$db" --out "$tmp/rep2" --json
expect_status 0
check "d['cases'] == 1 and d['splits'] == 3 and d['sweeps'] == 1 and d['figures'] == 2 + $tuning_figs"
cmp -s "$tmp/rep/factors.csv" "$tmp/rep2/factors.csv" || fail "report and run disagree on factors.csv"
mkdir "$tmp/emptybin"
status=0
PATH="$tmp/emptybin" "$HETUNE" report --db "$db" --out "$tmp/rep3" >"$tmp/out" 2>"$tmp/err" ||
    status=$?
expect_status 0
expect_in "$tmp/out" "no pictures: gnuplot was not found on PATH"
expect_in "$tmp/rep3/report.md" "> **No pictures**: gnuplot was not found on PATH"
[ -s "$tmp/rep3/factors.csv" ] || fail "no factors.csv without gnuplot"
[ ! -e "$tmp/rep3/fig5-conv1d_N4096.png" ] || fail "a picture without gnuplot"
run report --db "$db" --out "$tmp/rep4" --no-pictures
expect_status 0
expect_in "$tmp/rep4/report.md" "drawing was turned off"

# --refine: the static split, then its best refined round as a co-execution of its own,
# "refined", listed, stored and reported. The rounds may converge at once (the plan
# unchanged): then there is none, and none stored. The sweep stays on the paper's plan:
# its theoretical times, from the tuned times alone, are the first run's.
refined=$(sql "$db" "SELECT count(*) FROM splits WHERE scheduler = 'refined'")
run run "$spec" --size N=4096 --device "$two" --refine 2 --refine-by kernel --residue time \
    --sweep 0.25 --repeats 3 --db "$db" --out "$tmp/rep6" --json
expect_status 0
check '[s["scheduler"] for s in d["splits"]] in (["static"], ["static", "refined"])'
check 'all(s["verified"] is True and abs(sum(s["adjusted"]) - 1) < 1e-9 for s in d["splits"])'
check 'd["splits"][0]["sweep_points"] == 5 and d["splits"][-1]["sweep_points"] == (5 if len(d["splits"]) == 1 else 0)'
nref=$(python3 -c 'import json,sys; print(sum(s["scheduler"] == "refined" for s in json.load(open(sys.argv[1]))["splits"]))' "$tmp/out")
[ "$(sql "$db" "SELECT count(*) FROM splits WHERE scheduler = 'refined'")" -eq $((refined + nref)) ] ||
    fail "$nref refined co-executions listed, not as many stored"
if [ "$nref" -eq 1 ]; then
    id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["splits"][1]["split_id"])' "$tmp/out")
    [ "$(sql "$db" "SELECT scheduler FROM splits WHERE id = $id")" = refined ] ||
        fail "split $id is not the refined one"
    expect_in "$tmp/rep6/report.md" "| conv1d N=4096 | gx (dim 0) | refined | ("
fi
theo="SELECT group_concat(theoretical_seconds) FROM (SELECT theoretical_seconds FROM sweep_points
      WHERE split_id = (SELECT %s(split_id) FROM sweep_points) ORDER BY i)"
# shellcheck disable=SC2059
[ "$(sql "$db" "$(printf "$theo" max)")" = "$(sql "$db" "$(printf "$theo" min)")" ] ||
    fail "the sweep after --refine is not on the tuned times"

# hetune space --db records Tables 1 and 2 alone.
run space "$spec" --size N=4096 --db "$tmp/space.db"
expect_status 0
run report --db "$tmp/space.db" --out "$tmp/rep5"
expect_status 0
grep -qE '^\| conv1d N=4096 \| 4096 \|' "$tmp/rep5/report.md" || fail "space --db: no Table 1 row"
expect_in "$tmp/rep5/report.md" "No split in the database"

# Bad databases.
run report --db "$tmp/nosuch.db" --out "$tmp/bad"
expect_status 2
expect_err "cannot read the results database"
: >"$tmp/empty.db"
run report --db "$tmp/empty.db" --out "$tmp/bad"
expect_status 1
expect_err "not a hetune results database"
echo "not a database" >"$tmp/text.db"
run report --db "$tmp/text.db" --out "$tmp/bad"
expect_status 1
expect_err "not a hetune results database"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("CREATE TABLE t (x)"); c.commit()' "$tmp/other.db"
run report --db "$tmp/other.db" --out "$tmp/bad"
expect_status 1
expect_err "not a hetune results database"
run report --db "$db" --spec matmul --out "$tmp/bad"
expect_status 1
expect_err "nothing to report for spec 'matmul'"
[ ! -e "$tmp/bad" ] || fail "a failed report wrote files"
run report --db "$db" extra
expect_status 2

echo "hetune run and hetune report: ok"
