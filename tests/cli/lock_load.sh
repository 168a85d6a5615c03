#!/usr/bin/env bash
# Issue 29 deliverable 3, its last clause: a run that still measured under load says so.
# 1. A CPU burner runs while `tune` measures on PoCL's CPU device: it ends with
#    "measured under load: other processes used X of N cores ..." on stderr, and its JSON
#    says load.under_load true with X >= HT_LOAD_CORES (0.25).
# 2. The same tune with the load source frozen ($HETUNE_LOAD_STAT: a copy of /proc/stat
#    that never moves, so that nobody else seems to use a core, whatever the shared machine
#    does): no notice, under_load false. This is the check that the notice is not always
#    printed; a quiet machine cannot be had here.
# 3. A lock folder that cannot be made: tune, split and run still measure, exit 0, and say that
#    they measured without the device lock (load.locked false in their JSON).
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp lock-load
export HETUNE_LOCK_DIR="$tmp/locks"

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")

cp "$HETUNE_SOURCE_DIR/tests/fixtures/tune/kernel.cl" "$tmp/kernel.cl"
cp "$HETUNE_SOURCE_DIR/tests/fixtures/tune/devlock.json" "$tmp/spec.json"

# 1. Under a burner.
burners=()
stop_burners() {
    for p in "${burners[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${burners[@]}"; do wait "$p" 2>/dev/null || true; done
    burners=()
}
trap 'stop_burners; rm -rf "$tmp"' EXIT
# One burner: on its own core it is four times the 0.25 of a core the notice needs, the
# same on any number of cores; a second only took a core from the test beside this one in
# ctest -j (as cli/mpi_lock found).
sh -c 'while :; do :; done' &
burners+=($!)
# Four times the spec's REPS: the notice needs HT_LOAD_MIN_WINDOW_S (0.5 s) of locked
# windows, and with the builds and the reference in warm caches (a second ctest in one
# build folder) the spec's own six configurations took 0.29 s of them in 1 of 10 runs.
run tune "$tmp/spec.json" --size REPS=25600 --device "$dev" --db "$tmp/a.db" --cut-factor 0 \
    --json
stop_burners
expect_status 0
expect_err "hetune tune: measured under load: other processes used"
expect_err "times may be slow: measure again when the machine is quiet, with --fresh"
check 'all(x["load"]["under_load"] and x["load"]["other_cores"] >= 0.25 and x["load"]["locked"] and x["load"]["window_seconds"] >= 0.5 and x["load"]["cores"] >= 1 and "measured under load" in x["load"]["notice"] for x in d["devices"])'

# 2. The load source frozen: nobody else uses a core.
head -n 1 /proc/stat >"$tmp/stat"
HETUNE_LOAD_STAT="$tmp/stat" run tune "$tmp/spec.json" --device "$dev" --db "$tmp/b.db" \
    --cut-factor 0 --json
expect_status 0
if grep -q "measured under load" "$tmp/err"; then
    fail "a tune with nobody else on the cores said it measured under load: $(cat "$tmp/err")"
fi
check 'all(not x["load"]["under_load"] and x["load"]["other_cores"] == 0 and x["load"]["locked"] and x["load"]["notice"] is None and x["load"]["window_seconds"] > 0 for x in d["devices"])'

# 3. No lock folder can be made under a regular file: measured all the same, and said.
: >"$tmp/file"
HETUNE_LOAD_STAT="$tmp/stat" HETUNE_LOCK_DIR="$tmp/file/locks" \
    run tune "$tmp/spec.json" --device "$dev" --db "$tmp/c.db" --cut-factor 0 --json
expect_status 0
expect_err "hetune tune: measured under load: without a device lock (cannot make the device lock folder $tmp/file/locks"
check 'all(x["load"]["under_load"] and not x["load"]["locked"] and "cannot make the device lock folder" in x["load"]["unlocked_why"] and x["evaluated"] == 6 for x in d["devices"])'

HETUNE_LOAD_STAT="$tmp/stat" HETUNE_LOCK_DIR="$tmp/file/locks" \
    run split "$tmp/spec.json" --device "$dev,$dev" --db "$tmp/c.db" --force --json
expect_status 0
expect_err "hetune split: measured under load: without a device lock"
check 'd["load"]["under_load"] and not d["load"]["locked"]'
HETUNE_LOAD_STAT="$tmp/stat" run split "$tmp/spec.json" --device "$dev,$dev" --db "$tmp/c.db" \
    --force --json
expect_status 0
if grep -q "measured under load" "$tmp/err"; then
    fail "split with the lock and nobody else said it measured under load: $(cat "$tmp/err")"
fi
check 'not d["load"]["under_load"] and d["load"]["locked"] and d["load"]["window_seconds"] > 0'
# run: its tuning (from the database here) and its co-executions, with no lock folder.
HETUNE_LOAD_STAT="$tmp/stat" HETUNE_LOCK_DIR="$tmp/file/locks" \
    run run "$tmp/spec.json" --device "$dev,$dev" --db "$tmp/c.db" --out "$tmp/rep" --json
expect_status 0
expect_err "hetune run: measured under load: without a device lock"
check 'd["load"]["under_load"] and not d["load"]["locked"]'
echo "ok: measured under load said (burners, no lock), and not said with nobody else"
