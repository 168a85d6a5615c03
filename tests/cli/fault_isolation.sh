#!/usr/bin/env bash
# Isolation (issue 13): a configuration that crashes the OpenCL driver or never ends does not
# stop the run. tests/fixtures/fault/faulty.json has 9 configurations: MODE=1 writes through a
# null pointer (SIGSEGV inside PoCL), MODE=2 spins forever, MODE=0 is correct. The tune must
# store 3 ok, 3 crashed ("crashed: SIGSEGV") and 3 timeout ("timeout after 4.0 s": the limit
# takes in the first build, which a cold cache under ASan on a loaded machine makes long; 1 s
# timed out every configuration there, and one cold build of a configuration took 0.8 s plain
# and 1.4 s under ASan beside a load of 2), finish with exit 0 (early termination off, so no
# timing noise can cut one), measure nothing again on a rerun and all six again with
# --retry-failed. Ctrl-C (and SIGTERM) during a hanging configuration must end the tune within
# a second with exit 130, the stored results kept and no worker left behind. eval reports the
# crash and the timeout with exit 1.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp fault-isolation

spec="$HETUNE_SOURCE_DIR/tests/fixtures/fault/faulty.json"
# One thread for PoCL's pthread device: a hanging configuration (MODE=2) spins on every
# thread of the device to its time limit, and with one a core it took the other core of a
# two-core machine from whatever ran beside it (the other test of ctest -j 2). The checks
# are the same on one thread: faulty.json's 9 configurations launch 64 or more work-groups.
export POCL_MAX_PTHREAD_COUNT=1
db="$tmp/faulty.db"

run devices --json
require_platform
cp "$tmp/out" "$tmp/devices.json"
dev=$(pthread_device "$tmp/devices.json")

# 1. The tune goes through the crashes and the hangs.
run tune "$spec" --device "$dev" --db "$db" --cut-factor 0 --timeout 4 --json
expect_status 0
check 'd["devices"][0]["evaluated"] == 9'
[ "$(sql "q('SELECT status, count(*) FROM evaluations GROUP BY status ORDER BY status')")" = \
  "[('crashed', 3), ('ok', 3), ('timeout', 3)]" ] ||
    fail "statuses: $(sql "q('SELECT config, status, reason FROM evaluations')")"
[ "$(sql "q('''SELECT count(*) FROM evaluations WHERE status = 'crashed'
               AND reason = 'crashed: SIGSEGV' AND config LIKE '%MODE=1' ''')[0][0]")" = 3 ] ||
    fail "crash reasons: $(sql "q('SELECT config, reason FROM evaluations')")"
[ "$(sql "q('''SELECT count(*) FROM evaluations WHERE status = 'timeout'
               AND reason = 'timeout after 4.0 s' AND config LIKE '%MODE=2' ''')[0][0]")" = 3 ] ||
    fail "timeout reasons: $(sql "q('SELECT config, reason FROM evaluations')")"
check 'd["devices"][0]["best"]["config"]["MODE"] == 0'

# 2. A rerun measures nothing: crashed and timed-out configurations are known.
run tune "$spec" --device "$dev" --db "$db" --cut-factor 0 --timeout 4 --json
expect_status 0
check 'd["devices"][0]["evaluated"] == 0 and d["devices"][0]["from_db"] == 9'

# 3. --retry-failed measures the six again, and replaces them. A limit of 0.5 s: the three
# hangs spin on the device to the limit (8 s each took a third of this test's time, and a
# core; 2 s each, 6 s of CPU, until the limit was cut again), and what is checked here is
# which configurations are measured again, not their statuses; their programs are in the
# binary cache since 1 besides.
run tune "$spec" --device "$dev" --db "$db" --cut-factor 0 --timeout 0.5 --retry-failed --json
expect_status 0
check 'd["devices"][0]["evaluated"] == 6 and d["devices"][0]["from_db"] == 3'
[ "$(sql "q('SELECT count(*) FROM evaluations')[0][0]")" = 9 ] || fail "rows were duplicated"

# 4. A signal during a hanging configuration: exit 130 within a second, nothing lost, no
# worker left. Each signal's tune starts on a database of its own with a long time limit;
# the signal comes once the two configurations before the first hang are stored. (It
# reused the database with --fresh: at a load of 12 the watcher counted the rows of the
# run before, not yet emptied, and signalled before anything was stored.)
for sig in INT TERM; do
    db="$tmp/sig-$sig.db"
    python3 "$(dirname "$0")/interrupt.py" "$sig" "$tmp/sig.out" "db:$db:2:0.5" -- "$HETUNE" \
        tune "$spec" --device "$dev" --db "$db" --timeout 60 ||
        fail "SIG$sig: see above"
    [ "$(sql "q('''SELECT count(*) FROM evaluations WHERE status IN ('ok', 'crashed')''')[0][0]")" = 2 ] ||
        fail "SIG$sig: expected the 2 configurations before the hang stored: $(sql "q('SELECT config, status FROM evaluations')")"
    [ "$(sql "q('''SELECT count(*) FROM evaluations WHERE status = 'timeout' ''')[0][0]")" = 0 ] ||
        fail "SIG$sig: the configuration in flight was stored"
done

# 5. eval: a crash and a timeout are reported, exit 1; in this process a good one runs.
run eval "$spec" --device "$dev" --set WG=32 --set MODE=1
expect_status 1
expect_err "crashed: SIGSEGV"
run eval "$spec" --device "$dev" --set WG=32 --set MODE=2 --timeout 0.5
expect_status 1
expect_err "timeout after 0.5 s"
run eval "$spec" --device "$dev" --set WG=32 --set MODE=0 --no-isolate
expect_status 0
echo "ok"
