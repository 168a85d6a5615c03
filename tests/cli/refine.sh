#!/usr/bin/env bash
# The residue rule, the affine (overhead) model and the refinement of the static split:
# hetune plan --residue work|time and --overheads (JSON and text, bad input), then hetune
# split --refine on PoCL's two devices (or one device twice): the rounds, the best round by
# wall or kernel-only time, every round verified, the refined split stored in the database,
# and usage errors (exit status 2).
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
export POCL_DEVICES="${POCL_DEVICES:-pthread basic}"
make_tmp refine
# PoCL's cache (common.bash): this test checks the plans and the refined splits, not
# hetune's binary cache.
pocl_cache_on

# --- hetune plan: no OpenCL device needed. ---

# Work-group sizes 2 and 32, times 0.124 s and 0.305 ms over 1024: device 0 gets one whole
# group (2 work-items), device 1 31 (992); R = 30. Eq. 9 (least work) gives it to device 0:
# 15 groups of 2 beat one of 32.
args=(--global 1024 --wg "2,32" --times "0.124,0.000305")
run plan "${args[@]}"
expect_status 0
grep -qF "residue: 30 work-items, to device 0" "$tmp/out" ||
    fail "Eq. 9 does not give the residue to device 0: $(cat "$tmp/out")"
run plan "${args[@]}" --residue work --json
expect_status 0
check 'd["residue_device"] == 0 and d["residue"] == 30 and d["overlap"] == 0'
check '[(x["own_offset"], x["own_size"]) for x in d["devices"]] == [(992, 32), (0, 992)]'
check 'all(x["overhead"] == 0 for x in d["devices"])'
# Device 0 finishes its 32 work-items at 0.124 * 32/1024 = 3.875 ms: the model's time.
check 'abs(d["model_time"] - 0.003875) < 1e-15 and d["model_time"] == d["adjusted_time"]'

# --residue time: device 1's slice with the residue (one more group of 32) finishes first;
# it runs all 1024 work-items, overlapping device 0, which keeps its group and owns [0, 2).
run plan "${args[@]}" --residue time --json
expect_status 0
check 'd["residue_device"] == 1 and d["residue"] == 30'
check '(d["devices"][0]["own_offset"], d["devices"][0]["own_size"]) == (0, 2)'
check '(d["devices"][1]["offset"], d["devices"][1]["size"]) == (0, 1024)'
check 'all(x["overhead"] == 0 for x in d["devices"])'
check 'abs(d["model_time"] - 0.000305) < 1e-15'
run plan "${args[@]}" --residue time
expect_status 0
for words in "to device 1" "[0, 2)" "by the model (overheads)"; do
    grep -qF -- "$words" "$tmp/out" || fail "--residue time text lacks '$words': $(cat "$tmp/out")"
done

# --residue groups: with two GPU-like devices beside the CPU (2 and 32 work-items per
# group, 61 ms against 0.306 and 0.307 ms), 1 + 15 + 15 whole groups leave R = 62. By time
# device 1 takes 2 more groups (17); by groups each GPU takes one, device 2 last.
args3=(--global 1024 --wg "2,32,32" --times "0.061,0.000306,0.000307")
run plan "${args3[@]}" --residue time --json
expect_status 0
check '[x["extra_groups"] for x in d["devices"]] == [0, 2, 0] and d["residue_device"] == 1'
run plan "${args3[@]}" --residue groups --json
expect_status 0
check 'd["residue"] == 62 and d["residue_device"] == 2 and d["overlap"] == 2'
check '[x["extra_groups"] for x in d["devices"]] == [0, 1, 1]'
check '[x["groups"] for x in d["devices"]] == [1, 16, 16]'
check 'sorted((x["own_offset"], x["own_size"]) for x in d["devices"]) == [(0, 2), (2, 512), (514, 510)]'
check 'abs(d["model_time"] - 0.000307 / 2) < 1e-15'
run plan "${args3[@]}" --residue groups
expect_status 0
grep -qF "residue: 62 work-items, to device 1 (+1 group), device 2 (+1 group); device 2 last" "$tmp/out" ||
    fail "--residue groups text: $(cat "$tmp/out")"

# The affine model: t_0(S) = S, t_1(S) = 0.5 + 0.5 S finish together at S_0 = 2/3.
run plan --global 1000 --wg 1,1 --times 1,1 --overheads 0,0.5 --json
expect_status 0
check 'abs(d["devices"][0]["optimal_factor"] - 2/3) < 1e-9'
check 'abs(d["devices"][1]["optimal_factor"] - 1/3) < 1e-9'
check '[x["overhead"] for x in d["devices"]] == [0, 0.5]'
check 'sum(x["size"] for x in d["devices"]) == 1000'
# max_i a_i + (t_i - a_i) * size_i / G over the slices as launched.
check 'abs(d["model_time"] - max(x["overhead"] + (x["time"] - x["overhead"]) * x["size"] / 1000 for x in d["devices"])) < 1e-12'
# Without overheads the same times split evenly.
run plan --global 1000 --wg 1,1 --times 1,1 --overheads 0,0 --json
expect_status 0
check 'all(abs(x["optimal_factor"] - 0.5) < 1e-12 for x in d["devices"])'

# Bad input.
run plan --global 1000 --wg 1,1 --times 1,1 --overheads 0,1
expect_status 2
expect_err "--overheads"
run plan --global 1000 --wg 1,1 --times 1,1 --overheads 0
expect_status 2
expect_err "--overheads 1"
run plan --global 1000 --wg 1,1 --times 1,1 --overheads 0,-0.1
expect_status 2
expect_err "--overheads"
run plan --global 1000 --wg 1,1 --times 1,1 --residue bogus
expect_status 2
expect_err "--residue"
run plan --help
expect_status 0
for opt in --overheads --residue; do
    grep -q -- "$opt" "$tmp/out" || fail "plan --help lacks $opt"
done

# --- hetune split --refine on two devices. ---

run devices --json
require_platform
ndev=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["devices"]))' "$tmp/out")
if [ "$ndev" -ge 2 ]; then two="0,1"; else two="0,0"; fi

spec="$HETUNE_SOURCE_DIR/examples/conv1d/spec.json"
db="$tmp/refine.db"
small=(--device "$two" --size N=16384 --repeats 3 --db "$db" --force)

# How many splits of scheduler $1 the database holds.
count_splits() {
    python3 - "$db" "$1" <<'PY'
import os, sqlite3, sys
if not os.path.exists(sys.argv[1]):
    print(0)
    sys.exit(0)
c = sqlite3.connect(sys.argv[1])
print(c.execute("SELECT count(*) FROM splits WHERE scheduler = ?", (sys.argv[2],)).fetchone()[0])
PY
}

# The refinement's JSON: rounds 0, 1, ... each verified, round 0 the paper's plan, the best
# round the shortest by $1 (wall or kernel), and the database holding one static split and,
# when a refined round ran, one refined, the one of split_id being the result's.
check_refine() { # $1 = wall|kernel, $2 and $3 = static and refined splits before the run
    local key
    if [ "$1" = wall ]; then key=wall_seconds; else key=kernel_seconds; fi
    check 'd["verification"]["verified"] is True and d["residue_rule"] == "time"'
    check "d['refine']['by'] == '$1'"
    check '1 <= len(d["refine"]["rounds"]) <= 3'
    check '[r["round"] for r in d["refine"]["rounds"]] == list(range(len(d["refine"]["rounds"])))'
    check 'all(r["verified"] is True for r in d["refine"]["rounds"])'
    check 'all(abs(sum(r["shares"]) - 1) < 1e-9 and len(r["shares"]) == 2 for r in d["refine"]["rounds"])'
    # Round 0 is the paper's plan from the tuned times, without overheads.
    check 'd["refine"]["rounds"][0]["model_times"] == [x["tuned_seconds"] for x in d["devices"]]'
    check 'd["refine"]["rounds"][0]["model_overheads"] == [0, 0]'
    # The devices and the times printed are the best round's.
    check 'all(abs(a - x["adjusted_factor"]) < 1e-12 for a, x in zip(d["refine"]["rounds"][d["refine"]["best"]]["shares"], d["devices"]))'
    check 'd["model_seconds"] == d["refine"]["rounds"][d["refine"]["best"]]["model_seconds"]'
    check 'd["refine"]["converged"] or len(d["refine"]["rounds"]) == 3'
    check "d['refine']['best'] == min(range(len(d['refine']['rounds'])), key=lambda i: d['refine']['rounds'][i]['$key'])"
    check 'd["scheduler"] == ("refined" if d["refine"]["best"] > 0 else "static")'
    check 'd["measured"]["wall_seconds"] == d["refine"]["rounds"][d["refine"]["best"]]["wall_seconds"]'
    local n static refined sched
    n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["refine"]["rounds"]))' "$tmp/out")
    static=$(count_splits static)
    refined=$(count_splits refined)
    [ "$static" -eq $(($2 + 1)) ] || fail "$((static - $2)) static splits stored, want 1"
    if [ "$n" -gt 1 ]; then
        [ "$refined" -eq $(($3 + 1)) ] || fail "$n rounds but $((refined - $3)) refined splits stored"
    else
        [ "$refined" -eq "$3" ] || fail "one round but a refined split stored"
    fi
    sched=$(python3 - "$db" "$tmp/out" <<'PY'
import json, sqlite3, sys
d = json.load(open(sys.argv[2]))
c = sqlite3.connect(sys.argv[1])
print(c.execute("SELECT scheduler FROM splits WHERE id = ?", (d["split_id"],)).fetchone()[0])
PY
)
    check "d['scheduler'] == '$sched'"
}

# Tunes both devices first (a few random configurations), then up to 2 refined rounds.
run split "$spec" "${small[@]}" --refine 2 --residue time --plan paper --strategy random --budget 4 --json
expect_status 0
expect_err "tuning it first"
check_refine wall 0 0

# --refine-by kernel.
s=$(count_splits static)
r=$(count_splits refined)
run split "$spec" "${small[@]}" --refine 2 --residue time --plan paper --refine-by kernel --json
expect_status 0
check_refine kernel "$s" "$r"

# From the bus plan (the default): round 0 is the plan the estimate predicted, its model
# time the estimate's split time; the rounds after it refine as from the paper's plan.
run split "$spec" "${small[@]}" --refine 2 --residue time --json
expect_status 0
check 'd["plan"] == "bus" and d["verification"]["verified"] is True'
check 'abs(d["refine"]["rounds"][0]["model_seconds"] - d["estimate"]["split_seconds"]) <= 1e-9 * d["estimate"]["split_seconds"]'
check 'd["estimate"]["bound_seconds"] <= d["estimate"]["split_seconds"] * (1 + 1e-9)'

# Text: the refine table, one line per round, verification passed.
run split "$spec" "${small[@]}" --refine 2 --residue time --plan paper
expect_status 0
grep -q "^refine .*round" "$tmp/out" || fail "text lacks the refine table: $(cat "$tmp/out")"
grep -qE "^ +0\*? +\(" "$tmp/out" || fail "text lacks round 0: $(cat "$tmp/out")"
grep -qF "verification  passed" "$tmp/out" || fail "text lacks the verification: $(cat "$tmp/out")"

# Without --force, hetune runs the fastest device alone when it beat every round (by the
# target), or the one device the best round gave all the work: then the result is that
# device's run alone, stored as "alone". Which way it goes depends on the machine; each run
# checks the way it went.
for by in wall kernel; do
    a=$(count_splits alone)
    run split "$spec" --device "$two" --size N=16384 --repeats 3 --db "$db" --refine 2 \
        --residue groups --refine-by "$by" --json
    expect_status 0
    check 'd["residue_rule"] == "groups" and d["verification"]["verified"] is True'
    if [ "$by" = wall ]; then key=wall_seconds; else key=kernel_seconds; fi
    # The best round's time, the fastest time alone, and how many devices the best round
    # gave work to (all by the target).
    best="d['refine']['rounds'][d['refine']['best']]"
    fastest="min(x['alone']['$key'] for x in d['devices'])"
    holders="sum(1 for v in $best['shares'] if v > 0)"
    if python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["decision"] != "split")' "$tmp/out"; then
        check "$fastest >= $best['$key'] and $holders > 1"
        check 'd["ran_alone"] is False and d["scheduler"] in ("static", "refined")'
    else
        # Predicted (no rounds), or measured: no round beat the fastest device alone (it
        # is the one run), or the best round gave one device (the one run) all the work.
        check 'd["ran_alone"] is True and d["decision"].startswith("alone: ")'
        check "d['decision'] == 'alone: predicted' or ($fastest < $best['$key'] and d['fastest_alone']['$key'] == $fastest) or ($holders == 1 and $best['shares'][[x['index'] for x in d['devices']].index(d['fastest_alone']['device'])] == 1)"
        [ "$(count_splits alone)" -eq $((a + 1)) ] || fail "ran alone, but no split stored as alone"
        sched=$(python3 - "$db" "$tmp/out" <<'PY'
import json, sqlite3, sys
d = json.load(open(sys.argv[2]))
c = sqlite3.connect(sys.argv[1])
print(c.execute("SELECT scheduler FROM splits WHERE id = ?", (d["split_id"],)).fetchone()[0])
PY
)
        [ "$sched" = alone ] || fail "ran alone, but split_id is a $sched split"
    fi
    echo "refine: without --force, by $by: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["decision"])' "$tmp/out")"
done

# A sweep after the refinement is planned from the tuned times, as one without it.
run split "$spec" "${small[@]}" --sweep 0.5 --json
expect_status 0
cp "$tmp/out" "$tmp/sweep-plain.json"
run split "$spec" "${small[@]}" --sweep 0.5 --refine 2 --refine-by kernel --json
expect_status 0
python3 - "$tmp/sweep-plain.json" "$tmp/out" <<'PY' || fail "the sweep after --refine has other theoretical times"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
th = lambda d: [p["theoretical_seconds"] for p in d["sweep"]]
sys.exit(0 if len(th(a)) == 3 and th(a) == th(b) else 1)
PY

# Without --refine: no refinement, the residue rule work by default.
run split "$spec" "${small[@]}" --json
expect_status 0
check 'd["refine"] is None and d["residue_rule"] == "work" and d["scheduler"] == "static"'

# Usage errors: exit 2 before anything runs (no database written).
bad="$tmp/bad.db"
run split "$spec" --db "$bad" --refine 2 --scheduler dynamic
expect_status 2
expect_err "static"
run split "$spec" --db "$bad" --refine 2 --scheduler guided
expect_status 2
expect_err "static"
run split "$spec" --db "$bad" --refine 99
expect_status 2
expect_err "--refine"
run split "$spec" --db "$bad" --refine x
expect_status 2
expect_err "--refine"
run split "$spec" --db "$bad" --refine-by bogus
expect_status 2
expect_err "--refine-by"
run split "$spec" --db "$bad" --residue bogus
expect_status 2
expect_err "--residue"
[ ! -e "$bad" ] || fail "a usage error wrote the database"
run split --help
expect_status 0
for opt in --refine --refine-by --residue; do
    grep -q -- "$opt" "$tmp/out" || fail "split --help lacks $opt"
done

echo "refine: all checks passed"
