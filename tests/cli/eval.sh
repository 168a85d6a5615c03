#!/usr/bin/env bash
# hetune eval: vecadd on every device (also two PoCL devices), the --json fields, exit
# statuses (bad input 2, verification 3), --dump, --size, the binary cache.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp eval

vecadd="$HETUNE_SOURCE_DIR/examples/vecadd/spec.json"
fix="$HETUNE_SOURCE_DIR/tests/fixtures/exec"

count_devices() {
    "$HETUNE" devices --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["devices"]))'
}

run devices --json
require_platform
ndev=$(count_devices)

# vecadd on device $1 verifies and reports every field.
vecadd_on() {
    run eval "$vecadd" --device "$1" --size N=65536 --set WG=64 --set EPT=2 --json
    expect_status 0
    check "d['status'] == 'ok' and d['error'] is None and d['spec'] == 'vecadd'"
    check "d['kernel_name'] == 'addvec' and d['device']['index'] == $1"
    check "d['device']['name'] and d['device']['platform']"
    check "d['config'] == {'WG': 64, 'EPT': 2}"
    check "d['global'] == [32768] and d['local'] == [64]"
    check "d['build']['seconds'] >= 0 and d['build']['cache_hit'] in (True, False)"
    check "len(d['kernel']['runs']) == 10 and d['kernel']['keep_best'] == 5"
    check "0 < d['kernel']['min_seconds'] <= d['kernel']['mean_best_seconds']"
    check "min(d['kernel']['runs']) == d['kernel']['min_seconds']"
    # In place on a CPU device (the default data path there) nothing is copied in and the
    # outputs are only mapped; through plain memory both ways are real copies.
    check "d['transfers']['write_seconds'] >= 0 and d['transfers']['read_seconds'] >= 0"
    check "d['gflops'] > 0 and abs(d['gbps'] / d['gflops'] - 12) < 1e-6"
    check "d['verification'] == {'verified': True, 'max_abs_err': 0.0, 'max_rel_err': 0.0, 'mismatches': 0, 'first_mismatch': None}"
}

for ((i = 0; i < ndev; i++)); do
    vecadd_on "$i"
done

# The data paths: in place copies nothing in; pageable and pinned copy both ways; all verify.
run eval "$vecadd" --device 0 --size N=65536 --set WG=64 --set EPT=2 --json --data-path inplace
expect_status 0
check "d['transfers']['write_seconds'] == 0 and d['verification']['verified'] is True"
for path in pageable pinned; do
    run eval "$vecadd" --device 0 --size N=65536 --set WG=64 --set EPT=2 --json --data-path $path
    expect_status 0
    check "d['transfers']['write_seconds'] > 0 and d['transfers']['read_seconds'] > 0"
    check "d['verification']['verified'] is True"
done
run eval "$vecadd" --device 0 --set WG=64 --set EPT=2 --data-path bogus
expect_status 2
expect_err "--data-path takes auto, pinned, pageable or inplace, not 'bogus'"

# Two devices of different speed (PoCL's pthread and basic drivers; PoCL 5 calls them cpu
# and cpu-minimal), by index and by name.
if POCL_DEVICES="pthread basic" "$HETUNE" devices --json >/dev/null 2>&1 &&
    [ "$(POCL_DEVICES="pthread basic" count_devices)" -ge 2 ]; then
    export POCL_DEVICES="pthread basic"
    vecadd_on 0
    vecadd_on 1
    # Device 1 by its full "<platform> <name>", unless another device has the same one.
    name=$("$HETUNE" devices --json | python3 -c '
import json, sys
devs = json.load(sys.stdin)["devices"]
full = [d["platform"] + " " + d["name"] for d in devs]
print(full[1] if sum(full[1] in f for f in full) == 1 else "")')
    if [ -n "$name" ]; then
        run eval "$vecadd" --device "$name" --size N=65536 --set WG=64 --set EPT=2 --json
        expect_status 0
        check "d['device']['index'] == 1 and d['verification']['verified'] is True"
    fi
    unset POCL_DEVICES
fi

# The text report.
run eval "$vecadd" --device 0 --size N=65536 -s WG=32 -s EPT=1
expect_status 0
for word in "device " "configuration  WG=32 EPT=1" "global 65536, local 32" "build " \
    "mean of best 5 of 10 runs" "transfers      write" "GFLOP/s" "GB/s" \
    "verification   passed"; do
    grep -qF -- "$word" "$tmp/out" || fail "the report lacks '$word': $(cat "$tmp/out")"
done

# --size changes the global size.
run eval "$vecadd" --device 0 --size N=131072 --set WG=64 --set EPT=2 --json
expect_status 0
check "d['global'] == [65536] and d['verification']['verified'] is True"

# The binary cache: compiled, then cached; --no-cache compiles again.
cache="$tmp/cache"
run eval "$fix/holes.json" --device 0 --set P=1 --eq3 off --cache-dir "$cache" --json
expect_status 0
check "d['build']['cache_hit'] is False"
ls "$cache"/*.bin >/dev/null 2>&1 || fail "no binary written to $cache"
run eval "$fix/holes.json" --device 0 --set P=1 --eq3 off --cache-dir "$cache" --json
expect_status 0
check "d['build']['cache_hit'] is True and d['verification']['verified'] is True"
run eval "$fix/holes.json" --device 0 --set P=1 --eq3 off --cache-dir "$cache" --no-cache --json
expect_status 0
check "d['build']['cache_hit'] is False"
run eval "$fix/holes.json" --device 0 --set P=1 --eq3 off --no-cache --cache-dir "$tmp/none"
expect_status 0
[ ! -e "$tmp/none" ] || fail "--no-cache wrote to the cache folder"
# With PoCL's own kernel cache on (its default), hetune writes none of its own on PoCL:
# asking PoCL for a binary costs a second code generation.
if "$HETUNE" devices 2>/dev/null | sed -n 2p | grep -q "Portable Computing Language"; then
    POCL_KERNEL_CACHE=1 run eval "$fix/holes.json" --device 0 --set P=1 --eq3 off --cache-dir "$tmp/pocl" --json
    expect_status 0
    check "d['build']['cache_hit'] is False and d['verification']['verified'] is True"
    ! ls "$tmp/pocl"/*.bin >/dev/null 2>&1 || fail "a binary was written with PoCL's cache on"
fi

# --dump: written buffers only, at their byte size.
run eval "$vecadd" --device 0 --size N=65536 --set WG=64 --set EPT=2 --dump "$tmp/dump"
expect_status 0
[ "$(stat -c %s "$tmp/dump/a.bin")" -eq $((65536 * 4)) ] || fail "a.bin has the wrong size"
[ ! -e "$tmp/dump/b.bin" ] || fail "a read-only buffer was dumped"

# Exit status 2: bad input.
run eval "$vecadd" --device 0 --set WG=64 --set XYZ=2
expect_status 2
expect_err "XYZ"
run eval "$vecadd" --device 0 --set WG=64
expect_status 2
expect_err "EPT"
run eval "$vecadd" --device 99 --set WG=64 --set EPT=1
expect_status 2
run eval "$vecadd" --set WG=64 --set EPT=1
expect_status 2
expect_err "--device"
run eval "$vecadd" --device 0 --set WG=64 --set EPT=1 --eq3 maybe
expect_status 2
run eval "$HETUNE_SOURCE_DIR/does-not-exist.json" --device 0 --set WG=64
expect_status 2
run eval "$fix/syntax.json" --device 0 --set WG=1 --no-cache
expect_status 2
expect_err "kernel build failed on"
expect_err "error"
run eval "$fix/syntax.json" --device 0 --set WG=1 --no-cache --json
expect_status 2
check "d['status'] == 'build' and 'kernel build failed' in d['error']"
run eval "$fix/syntax.json" --device 0 --set WG=1048576
expect_status 2
expect_err "Eq. 1"
run eval "$fix/syntax.json" --device 0 --set WG=1048576 --json
expect_status 2
check "d['status'] == 'constraint' and 'Eq. 1' in d['error'] and d['kernel']['runs'] == []"
run eval "$vecadd" --device 0 --size N=65540 --set WG=64 --set EPT=8
expect_status 2
expect_err "constraints[0]"

# Exit status 3: a kernel that is wrong for P=2; its output is dumped all the same.
run eval "$fix/wrong.json" --device 0 --set P=2 --set L=8 --eq3 off --dump "$tmp/wrong"
expect_status 3
expect_err "C[3][17]"
grep -qF "FAILED" "$tmp/out" || fail "the report does not say the verification failed"
[ "$(stat -c %s "$tmp/wrong/C.bin")" -eq $((8 * 32 * 4)) ] || fail "C.bin has the wrong size"
run eval "$fix/wrong.json" --device 0 --set P=2 --set L=8 --eq3 off --json
expect_status 3
check "d['status'] == 'verify' and d['verification']['verified'] is False"
check "d['verification']['mismatches'] == 1 and d['verification']['first_mismatch'].startswith('C[3][17]: got ')"
run eval "$fix/holes.json" --device 0 --set P=2 --eq3 off
expect_status 3
expect_err "out[3]: got nan"
run eval "$fix/wrong.json" --device 0 --set P=2 --set L=8 --eq3 off --no-verify --json
expect_status 0
check "d['verification']['verified'] is None"

run eval --help
expect_status 0
grep -qF -- "--device" "$tmp/out" || fail "--help does not describe --device"

echo "ok"
