#!/usr/bin/env bash
# Isolation of co-execution (issue 13): split and run go whole into a child process that
# hetune supervises. tests/fixtures/fault/slicefault.json is right alone and fails only in a
# slice with a global work offset: FAULT=1 writes through a null pointer (SIGSEGV inside
# PoCL), FAULT=2 never ends. With two PoCL devices and the paper's plan, the second device
# gets the slice with the offset: the supervisor must name it, run the command again without
# it, and finish on the first (exit 0, the device listed as skipped with the reason, the
# result verified). A crash under the dynamic scheduler may come while both devices work:
# the supervisor then probes each device's part alone, and still leaves out exactly one
# device. Ctrl-C during a hanging slice ends the command within a second with exit 130 and
# no process left behind. --no-isolate keeps the co-execution in the process (the crash
# then ends it: the behaviour before).
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp fault-split

export POCL_DEVICES="pthread basic"
# One thread for PoCL's pthread device, as cli/fault_isolation has: a slice that never ends
# (FAULT=2) spins on every thread of its device until the limit or the signal, and on the
# pthread device it took both cores (6 s of CPU in each of its three 3 s hangs). Nothing
# below depends on the device's threads.
export POCL_MAX_PTHREAD_COUNT=1
spec="$HETUNE_SOURCE_DIR/tests/fixtures/fault/slicefault.json"
db="$tmp/split.db"

run devices --json
require_platform
python3 -c 'import json,sys; sys.exit(0 if len(json.load(open(sys.argv[1]))["devices"]) >= 2 else 1)' \
    "$tmp/out" || { echo "skipped: fewer than two OpenCL devices with POCL_DEVICES" >&2; exit 77; }

# Tuned first, one device at a time, with the automatic time limit: a cold build on a
# loaded machine can outlast the short limit the co-executions below use.
for fault in 0 1 2; do
    for dev in 0 1; do
        run tune "$spec" --device "$dev" --size FAULT=$fault --db "$db" -q
        expect_status 0
    done
done

# The lost device is the one whose slice starts past offset 0 (the plan's order decides
# which); exactly one device is left out, the supervisor named it on stderr, and the run
# finishes verified on the other.
lost_check() { # $1: the reason's start; $2: the device index lost, or "any"
    check "(len(d['skipped']) == 1 and d['skipped'][0]['reason'].startswith('$1') and
           ('$2' == 'any' or d['skipped'][0]['index'] == int('$2')) and
           d['verification']['verified'] is True)"
    expect_err "device $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["skipped"][0]["index"])' "$tmp/out") ("
}

# 1. A crash in a slice.
run split "$spec" --device 0,1 --size FAULT=1 --db "$db" --force --plan paper --json
expect_status 0
lost_check "crashed (SIGSEGV) in its part of the co-execution" any
expect_err "running again without it"

# 2. A slice that never ends, under --timeout (2 s: the programs are built, tuned above).
run split "$spec" --device 0,1 --size FAULT=2 --db "$db" --force --plan paper --timeout 2 --json
expect_status 0
lost_check "timeout after 2.0 s in its part of the co-execution" any

# 3. A device's part that fails in the driver (a GPU's illegal address is reported as
# CL_OUT_OF_RESOURCES, not a signal; HETUNE_TEST_SLICE_FAIL=I makes device I's parts past
# offset 0 fail so): that device is left out too. Only the device whose slice starts past
# 0 fails, so of the two runs exactly one loses its device, the one named.
lost=0
for dev in 0 1; do
    status=0
    HETUNE_TEST_SLICE_FAIL=$dev "$HETUNE" split "$spec" --device 0,1 --size FAULT=0 --db "$db" \
        --force --plan paper --json >"$tmp/out" 2>"$tmp/err" || status=$?
    expect_status 0
    if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["skipped"] else 1)' "$tmp/out"; then
        lost=$((lost + 1))
        lost_check "failed (clFinish: CL_OUT_OF_RESOURCES" "$dev"
        expect_err "injected by HETUNE_TEST_SLICE_FAIL"
    fi
done
[ "$lost" -eq 1 ] || fail "a failing part lost $lost devices in two runs, not 1"

# 4. The dynamic scheduler hands out chunks past offset 0 to both devices: whichever
# crashes, one device is left out, and what remains is right.
run split "$spec" --device 0,1 --size FAULT=1 --db "$db" --force --scheduler dynamic --json
expect_status 0
lost_check "crashed (SIGSEGV) in its part of the co-execution" any

# 5. hetune run goes through the same supervisor.
run run "$spec" --device 0,1 --size FAULT=1 --db "$db" --scheduler static --plan paper --json
expect_status 0
python3 - "$tmp/out" <<'EOF' || fail "run: $(cat "$tmp/out" "$tmp/err")"
import json, sys
d = json.load(open(sys.argv[1]))
sk = d["skipped"]
assert len(sk) == 1 and sk[0]["reason"].startswith("crashed (SIGSEGV)"), sk
EOF

# 6. Without isolation the crash takes the command down, as it did before.
run split "$spec" --device 0,1 --size FAULT=1 --db "$db" --force --plan paper --no-isolate
[ "$status" -ge 128 ] || [ "$status" -eq 1 ] || fail "--no-isolate: exit $status"

# 7. SIGINT or SIGTERM during a hanging slice: exit 130 within a second, nothing left. The
# signal 2 s after the supervised child appears (its programs are built: it loads them).
for sig in INT TERM; do
    python3 "$(dirname "$0")/interrupt.py" "$sig" "$tmp/sig.out" child:2 -- "$HETUNE" split \
        "$spec" --device 0,1 --size FAULT=2 --db "$db" --force --plan paper --timeout 60 ||
        fail "SIG$sig: see above"
done
echo "ok"
