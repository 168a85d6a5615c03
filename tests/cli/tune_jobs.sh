#!/usr/bin/env bash
# Builds ahead (issue 25): `hetune tune --jobs N` builds the next configurations in N worker
# processes while the device measures one. tests/fixtures/tune/jobs.json has 6
# configurations: WORK=1 is the clear best; the test hooks crash the builds of BAD=1
# (HETUNE_TEST_BUILD_CRASH=BAD=1: SIGSEGV in the process that compiles, as a compiler's
# crash; 3 configurations) and hang the one of WORK=1024 BAD=0 (HETUNE_TEST_BUILD_HANG=
# WORK=1024; the crash hook comes first for WORK=1024 BAD=1). The hooks act only in worker
# processes (a tune's isolated session, a build worker), so --jobs 1 meets the same faults
# in its session's build. Checked, on PoCL's pthread device:
#   1. --jobs 2 and --jobs 1 store the same configurations with the same statuses and the
#      same best (exhaustive); --jobs 2 built all 6 ahead, its measured ones are cache
#      hits, its crashed and hung builds were stored as such (not measured) and the tune
#      went on;
#   2. with PoCL's own kernel cache on, hetune writes no binary and the session's builds
#      still hit (the driver's cache, which the build workers filled, launching one
#      work-group of each configuration); the crashed and hung builds are stored as in 1;
#   3. --jobs 0 and a bad --jobs are refused; --jobs 1 builds nothing ahead.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp tune-jobs

spec="$HETUNE_SOURCE_DIR/tests/fixtures/tune/jobs.json"
export HETUNE_TEST_BUILD_CRASH=BAD=1 HETUNE_TEST_BUILD_HANG=WORK=1024

run devices --json
require_platform
cp "$tmp/out" "$tmp/devices.json"
dev=$(pthread_device "$tmp/devices.json")

statuses() {
    sql "q('SELECT config, status, reason FROM evaluations ORDER BY config')"
}

# The test waits, more than it works: each tune waits out the hung build's time limit (15 s
# in 1, twice, and 30 s in 2) with the processor idle. So 2's tune runs beside 1's, from
# the start, with a device lock folder of its own (a tune holds the device's lock to the
# end: with one folder the two tunes would wait for each other); its results are checked
# after 1's. Its measurements may then see the other tune's load, which none of the checks
# below is about.
pocl=0
if grep -q "Portable Computing Language" "$tmp/devices.json"; then
    pocl=1
    HETUNE_LOCK_DIR="$tmp/drv-locks" POCL_KERNEL_CACHE=1 POCL_CACHE_DIR="$tmp/pocl" \
        "$HETUNE" tune "$spec" --device "$dev" --db "$tmp/drv.db" --jobs 2 --cut-factor 0 \
        --timeout 30 --cache-dir "$tmp/drvcache" --json >"$tmp/drv.out" 2>"$tmp/drv.err" &
    drv_pid=$!
    # A failure in 1 ends the script: that tune with it (SIGTERM: it leaves no worker).
    trap 'kill "$drv_pid" 2>/dev/null || true; wait "$drv_pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
fi

# 1. --jobs 2 against --jobs 1 (hetune's binary cache: the tests run with
# POCL_KERNEL_CACHE=0).
for j in 2 1; do
    db="$tmp/j$j.db"
    run tune "$spec" --device "$dev" --db "$db" --jobs "$j" --cut-factor 0 --timeout 15 \
        --cache-dir "$tmp/cache$j" --json
    expect_status 0
    cp "$tmp/out" "$tmp/j$j.json"
    check 'd["devices"][0]["evaluated"] == 6 and d["devices"][0]["crashed"] == 3 and d["devices"][0]["timed_out"] == 1'
    check 'd["devices"][0]["best"]["config"] == {"WG": 64, "WORK": 1, "BAD": 0}'
    [ "$(sql "q('''SELECT count(*) FROM evaluations WHERE status = 'crashed'
                   AND reason = 'crashed: SIGSEGV' AND config LIKE '%BAD=1' ''')[0][0]")" = 3 ] ||
        fail "--jobs $j: crashed builds: $(statuses)"
    [ "$(sql "q('''SELECT count(*) FROM evaluations WHERE status = 'timeout'
                   AND reason = 'timeout after 15.0 s' AND config = 'WG=64,WORK=1024,BAD=0' ''')[0][0]")" = 1 ] ||
        fail "--jobs $j: hung builds: $(statuses)"
    sql "q('SELECT config, status FROM evaluations ORDER BY config')" >"$tmp/set$j"
done
cmp -s "$tmp/set1" "$tmp/set2" ||
    fail "--jobs 1 and --jobs 2 stored different results: $(cat "$tmp/set1") vs $(cat "$tmp/set2")"
cp "$tmp/j2.json" "$tmp/out"
check 'd["devices"][0]["jobs"] == 2 and d["devices"][0]["built_ahead"] == 6'
check 'd["devices"][0]["cache_hits"] == 2'
db="$tmp/j2.db"
[ "$(sql "q('''SELECT count(*) FROM evaluations WHERE status = 'ok' AND cache_hit = 1''')[0][0]")" = 2 ] ||
    fail "the measured builds were not cache hits: $(sql "q('SELECT config, status, cache_hit FROM evaluations')")"
cp "$tmp/j1.json" "$tmp/out"
check 'd["devices"][0]["jobs"] == 0 and d["devices"][0]["built_ahead"] == 0'
# One hit: the reference configuration, whose program the reference step built before any
# configuration was measured (docs/spec.md, "The reference step").
check 'd["devices"][0]["cache_hits"] == 1'
db="$tmp/j1.db"
[ "$(sql "q('SELECT config FROM evaluations WHERE cache_hit = 1')")" = "[('WG=64,WORK=1,BAD=0',)]" ] ||
    fail "--jobs 1: cache hits: $(sql "q('SELECT config, status, cache_hit FROM evaluations')")"

# 2. PoCL's own cache on: no binary of hetune's, and the measured builds still hit. The
# time limit is 30 s: a build that PoCL also writes to its cache, two at once beside a
# measurement, took over 15 s under ASan at a load of 7 (a fresh clone's make test): it
# was stored as a timeout, measured no more, and counted no hit.
if [ "$pocl" -eq 1 ]; then
    db="$tmp/drv.db"
    status=0
    wait "$drv_pid" || status=$?
    trap 'rm -rf "$tmp"' EXIT
    cp "$tmp/drv.out" "$tmp/out"
    cp "$tmp/drv.err" "$tmp/err"
    expect_status 0
    [ "$(sql "q('''SELECT count(*) FROM evaluations WHERE status = 'timeout' ''')[0][0]")" = 1 ] ||
        fail "PoCL's cache: timeouts: $(statuses)"
    check 'd["devices"][0]["driver_cache"] and d["devices"][0]["cache_hits"] == 2'
    check 'd["devices"][0]["best"]["config"] == {"WG": 64, "WORK": 1, "BAD": 0}'
    # A build ahead that also launches one work-group (tune_warm.sh) is isolated as the
    # build alone: the crashed and the hung builds are stored so, and the tune goes on.
    check 'd["devices"][0]["built_ahead"] == 6 and d["devices"][0]["crashed"] == 3 and d["devices"][0]["timed_out"] == 1'
    [ "$(sql "q('''SELECT count(*) FROM evaluations WHERE status = 'crashed'
                   AND reason = 'crashed: SIGSEGV' AND config LIKE '%BAD=1' ''')[0][0]")" = 3 ] ||
        fail "PoCL's cache: crashed builds: $(statuses)"
    ! ls "$tmp/drvcache"/*.bin >/dev/null 2>&1 || fail "a binary was written with PoCL's cache on"
fi

# 3. Bad values.
run tune "$spec" --device "$dev" --db "$tmp/bad.db" --jobs 0
expect_status 2
expect_err "--jobs takes 1 to 1024"
run tune "$spec" --device "$dev" --db "$tmp/bad.db" --jobs x
expect_status 2
echo "ok"
