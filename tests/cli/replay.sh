#!/usr/bin/env bash
# hetune tune --replay (issue 25 item 1): a tune on PoCL exported to T4 and replayed gives the
# same best, plain and gzip'd, with no OpenCL platform; a CUDA T1 file of the benchmark hub's
# kind imports to a replay-only spec; a synthetic recording (tests/fixtures/replay) replays
# deterministically for a seed, from T4 and from a Kernel Tuner cache alike; --time is in
# simulated seconds; configurations the file lacks are missing, not stored; replayed results
# live under a 'hetune replay' device; malformed, truncated and mismatching files exit 2
# naming the problem.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp replay
fix="$HETUNE_SOURCE_DIR/tests/fixtures/replay"
noplat=(env OCL_ICD_VENDORS="$tmp/no-vendors" OCL_ICD_FILENAMES=)
mkdir "$tmp/no-vendors"

# --- a synthetic recording of a CUDA kernel: import, replay, determinism ------------------
run import-kt "$fix/stencil.T1.json" -o "$tmp/stencil.json"
expect_status 0
# The note carries the command's prefix, as every other message of the CLI does.
expect_err "hetune import-kt: KernelSpecification.Language CUDA: hetune never builds this kernel"
! grep -v '^hetune import-kt: ' "$tmp/err" || fail "a line without the prefix: $(cat "$tmp/err")"
python3 "$fix/make_t4.py" "$tmp/rec.T4.json"
python3 "$fix/make_t4.py" "$tmp/rec.cache.json" --kt-cache
python3 "$fix/make_t4.py" "$tmp/part.T4.json" --drop 5

# A CUDA spec is never built: a tune without --replay says what to do.
run tune "$tmp/stencil.json" --db "$tmp/x.db" -q
expect_status 2
expect_err "--replay"

status=0
"${noplat[@]}" "$HETUNE" tune "$tmp/stencil.json" --replay "$tmp/rec.T4.json" --db "$tmp/a.db" \
    --json >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 0
check 'd["devices"][0]["best"]["config"] == {"block_size_x": 64, "block_size_y": 2, "tile": 2, "use_shmem": 1}'
check 'd["devices"][0]["evaluated"] == 65 and d["devices"][0]["failed"] == 7'
check 'd["devices"][0]["replayed"] and d["devices"][0]["missing"] == 0'
check 'abs(d["devices"][0]["simulated_seconds"] - 65.0) < 1e-9'
check 'abs(d["devices"][0]["best"]["seconds"] - 1e-3) < 1e-12'
db="$tmp/a.db"
[ "$(sql 'q("SELECT platform, name FROM devices")')" = "[('hetune replay', 'rec')]" ] ||
    fail "replayed device: $(sql 'q("SELECT platform, name FROM devices")')"
[ "$(sql 'q("SELECT status, count(*) FROM evaluations GROUP BY status ORDER BY status")')" = \
    "[('build', 2), ('launch', 5), ('ok', 58)]" ] ||
    fail "statuses: $(sql 'q("SELECT status, count(*) FROM evaluations GROUP BY status")')"
# Stored once, not replayed again (a tune resumes).
run tune "$tmp/stencil.json" --replay "$tmp/rec.T4.json" --db "$tmp/a.db" --json
expect_status 0
check 'd["devices"][0]["evaluated"] == 0 and d["devices"][0]["from_db"] == 65'

# The same from a Kernel Tuner cache file.
run tune "$tmp/stencil.json" --replay "$tmp/rec.cache.json" --db "$tmp/k.db" --json
expect_status 0
check 'd["devices"][0]["device"] == "SyntheticGPU" and d["devices"][0]["failed"] == 7'
check 'd["devices"][0]["best"]["config"]["tile"] == 2 and abs(d["devices"][0]["simulated_seconds"] - 65.0) < 1e-9'

# Deterministic for a seed: the same proposals in the same order.
for s in 1 2; do
    for strat in random genetic anneal; do
        run tune "$tmp/stencil.json" --replay "$tmp/rec.T4.json" --db "$tmp/$strat-$s.db" \
            --strategy "$strat" --seed 7 --budget 20 -q
        expect_status 0
    done
done
for strat in random genetic anneal; do
    db="$tmp/$strat-1.db"; one=$(sql 'q("SELECT config FROM evaluations ORDER BY id")')
    db="$tmp/$strat-2.db"; two=$(sql 'q("SELECT config FROM evaluations ORDER BY id")')
    [ "$one" = "$two" ] || fail "$strat replays differ for one seed"
    [ "$(echo "$one" | tr -cd '(' | wc -c)" -le 20 ] || fail "$strat went past its budget"
done

# A budgeted run without --strategy uses bayes; a budget covering the space walks it.
run tune "$tmp/stencil.json" --replay "$tmp/rec.T4.json" --db "$tmp/auto1.db" --budget 20 --json
expect_status 0
check 'd["devices"][0]["strategy"] == "bayes" and d["devices"][0]["evaluated"] == 20'
run tune "$tmp/stencil.json" --replay "$tmp/rec.T4.json" --db "$tmp/auto2.db" --budget 65 --json
expect_status 0
check 'd["devices"][0]["strategy"] == "exhaustive" and d["strategy"] == "exhaustive"'
run tune "$tmp/stencil.json" --replay "$tmp/rec.T4.json" --db "$tmp/auto3.db" --time-budget 5 --json
expect_status 0
check 'd["devices"][0]["strategy"] == "bayes" and d["devices"][0]["evaluated"] == 5'

# --time is simulated: each evaluation costs exactly 1 s of recorded time.
run tune "$tmp/stencil.json" --replay "$tmp/rec.T4.json" --db "$tmp/t.db" --strategy random \
    --time 10 --json
expect_status 0
check 'd["devices"][0]["evaluated"] == 10 and abs(d["devices"][0]["simulated_seconds"] - 10) < 1e-9'

# Configurations the recording lacks are missing: failed for the search, never stored.
run tune "$tmp/stencil.json" --replay "$tmp/part.T4.json" --db "$tmp/p.db" --json
expect_status 0
check 'd["devices"][0]["missing"] == 5 and d["devices"][0]["evaluated"] == 65'
db="$tmp/p.db"
[ "$(sql 'q("SELECT count(*) FROM evaluations")[0][0]')" = 60 ] || fail "missing ones were stored"

# --- malformed, truncated and mismatching recordings: exit 2 naming the problem -----------
printf '{"results": [\n  {"configuration": ' >"$tmp/trunc.json"
run tune "$tmp/stencil.json" --replay "$tmp/trunc.json" --db "$tmp/bad.db"
expect_status 2
expect_err "trunc.json:2:"
gzip -c "$tmp/rec.T4.json" >"$tmp/whole.gz"
head -c $(($(wc -c <"$tmp/whole.gz") * 2 / 3)) "$tmp/whole.gz" >"$tmp/trunc.json.gz"
run tune "$tmp/stencil.json" --replay "$tmp/trunc.json.gz" --db "$tmp/bad.db"
expect_status 2
expect_err "truncated"
echo '{"foo": 1}' >"$tmp/other.json"
run tune "$tmp/stencil.json" --replay "$tmp/other.json" --db "$tmp/bad.db"
expect_status 2
expect_err "neither a T4 results file"
mutate() { # $1: a Python statement changing r (the results list); writes $tmp/m.json
    python3 - "$tmp/rec.T4.json" "$tmp/m.json" "$1" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])); r = t["results"]
exec(sys.argv[3])
json.dump(t, open(sys.argv[2], "w"))
PY
    run tune "$tmp/stencil.json" --replay "$tmp/m.json" --db "$tmp/bad.db"
    expect_status 2
}
mutate 'for x in r: x["configuration"]["unroll"] = 1'
expect_err "parameter 'unroll' of the recording is not a parameter of spec"
mutate 'r[:] = [x for x in r if x["configuration"]["tile"] == 1]
for x in r: del x["configuration"]["tile"]'
expect_err "the recording has no parameter 'tile'"
mutate 'r[3]["configuration"]["block_size_x"] = 512'
expect_err "result 3: block_size_x=512 is not a value of the spec's parameter"
mutate 'r.append(r[0])'
expect_err "hold the same configuration"
mutate 'r[0]["configuration"]["tile"] = "two"'
expect_err "results[0]: parameter 'tile' is not an integer"
mutate 'r[0]["measurements"] = []; r[0]["times"]["runtimes"] = []'
expect_err "results[0]: a correct result without a time"
run tune "$tmp/stencil.json" --replay-device X --db "$tmp/bad.db"
expect_status 2
expect_err "--replay-device needs --replay"

# --- a tune on PoCL, exported to T4 and replayed, gives the same best ---------------------
run devices --json
require_platform
dev=$(pthread_device "$tmp/out")
spec="$HETUNE_SOURCE_DIR/examples/vecadd/spec.json"
run tune "$spec" --device "$dev" --size N=65536 --db "$tmp/pocl.db" --json
expect_status 0
best=$(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["devices"][0]["best"]; print(b["config"], "%.9g" % b["seconds"])' "$tmp/out")
run export --format t4 --db "$tmp/pocl.db"
expect_status 0
cp "$tmp/out" "$tmp/pocl.T4.json"
gzip -k "$tmp/pocl.T4.json"
for f in "$tmp/pocl.T4.json" "$tmp/pocl.T4.json.gz"; do
    status=0
    "${noplat[@]}" "$HETUNE" tune "$spec" --size N=65536 --replay "$f" --db "$tmp/re.db" --fresh \
        --json >"$tmp/out" 2>"$tmp/err" || status=$?
    expect_status 0
    again=$(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["devices"][0]["best"]; print(b["config"], "%.9g" % b["seconds"])' "$tmp/out")
    [ "$again" = "$best" ] || fail "replay of $f: best $again, measured $best"
done
echo "ok"
