#!/usr/bin/env bash
# make demo: the machine's OpenCL devices and each one's host<->device bandwidth, the
# vecadd example on each device, then the paper's two case studies on every device found
# with hetune demo (hetune run on each: prune, tune, split, report) into demo.db, and the
# report of both under report/ (report/report.md).
#
# On a machine with one OpenCL device there is nothing to split, so the demo then also runs
# the case studies on two PoCL CPU devices (POCL_DEVICES="pthread basic": one device on
# every core, one on a single core) into demo-two.db and report/two-devices/, where the
# split and its figures are. Last, the runtime example (examples/runtime, a program of its
# own calling the library) runs when it was built, on two devices as well.
#
# Sizes: both case studies run at the paper's sizes (conv1d: 2^16 elements, a mask of 625;
# matmul: 1024 x 1024), about four and a half minutes on a two-core machine with PoCL's one
# device, most of it timing matmul's seven tile sizes ten times each; the two-device
# fallback adds about half a minute (matmul at 256 x 256 there: its single-core device is
# slow). MATMUL_N=512 makes it quicker; TWO_MATMUL_N sets the fallback's matmul size;
# CONV1D_N sets conv1d's size in both (hetune demo --conv1d-n; the spec's 65536 when unset).
# DEMO_DIR=DIR writes demo.db and report/ into DIR instead of the repository's root.
set -eu
HETUNE=$(realpath "${1:-build/hetune}")
BUILD=$(dirname "$HETUNE")
MATMUL_N=${MATMUL_N:-1024}
TWO_MATMUL_N=${TWO_MATMUL_N:-256}
conv1d_n=()
[ -z "${CONV1D_N:-}" ] || conv1d_n=(--conv1d-n "$CONV1D_N")
cd "$(dirname "$0")/.."
ROOT=$PWD
EXAMPLES=examples
if [ -n "${DEMO_DIR:-}" ]; then
    mkdir -p "$DEMO_DIR"
    cd "$DEMO_DIR"
    EXAMPLES=$ROOT/examples
fi

run() {
    echo
    echo "\$ hetune $*"
    "$HETUNE" "$@"
}

# Runs a command and prints how long it took.
timed() {
    local t0=$SECONDS
    "$@"
    echo "(took $((SECONDS - t0)) s)"
}

# The number of devices hetune sees (in the environment it is given).
device_count() {
    "$HETUNE" devices --json | grep -o '"index"' | wc -l
}

start=$SECONDS
rm -f demo.db demo-two.db
run devices
count=$(device_count)
run devices --bandwidth --db demo.db

for ((d = 0; d < count; d++)); do
    run eval "$EXAMPLES/vecadd/spec.json" --device "$d" --set WG=64 --set EPT=1
done

timed run demo --examples "$EXAMPLES" --matmul-n "$MATMUL_N" "${conv1d_n[@]}" --db demo.db \
    --out report
reports="report/report.md"

# Two devices for the runtime example: the machine's own, or PoCL's two.
two_env=()
if [ "$count" -eq 1 ]; then
    echo
    echo "one OpenCL device here: nothing to split on it, so no split and no split figures"
    echo "above. To show the split anyway, the demo now runs the case studies again on two"
    echo "PoCL CPU devices, POCL_DEVICES=\"pthread basic\": 'pthread' on every core and"
    echo "'basic' on a single core. Both share this machine's processor and memory, so"
    echo "splitting has little to win here; the point is to see it done."
    if [ "$(POCL_DEVICES="pthread basic" device_count)" -eq 2 ]; then
        two_env=(env POCL_DEVICES="pthread basic")
        echo
        echo "\$ POCL_DEVICES=\"pthread basic\" hetune demo --matmul-n $TWO_MATMUL_N" \
            "${conv1d_n[@]}" "--db demo-two.db --out report/two-devices"
        t0=$SECONDS
        POCL_DEVICES="pthread basic" "$HETUNE" demo --examples "$EXAMPLES" \
            --matmul-n "$TWO_MATMUL_N" "${conv1d_n[@]}" --db demo-two.db --out report/two-devices
        echo "(took $((SECONDS - t0)) s)"
        reports="$reports and report/two-devices/report.md (the split on two devices)"
    else
        echo "POCL_DEVICES=\"pthread basic\" does not give two devices here (is the one device"
        echo "PoCL's?): skipping the two-device split"
    fi
fi

example=$(find "$BUILD" -maxdepth 3 -type f -name runtime-example -perm -u+x 2>/dev/null |
    head -n 1)
echo
if [ "$count" -eq 1 ] && [ ${#two_env[@]} -eq 0 ]; then
    echo "runtime example: skipped (it needs two devices)"
elif [ -z "$example" ]; then
    echo "runtime example: not built (no runtime-example under $BUILD): skipped"
else
    # It runs from its own folder, with a temporary database it tunes first.
    if [ ${#two_env[@]} -gt 0 ]; then
        echo "\$ cd examples/runtime && POCL_DEVICES=\"pthread basic\" $example"
    else
        echo "\$ cd examples/runtime && $example"
    fi
    t0=$SECONDS
    (cd "$ROOT/examples/runtime" && "${two_env[@]}" "$example")
    echo "(took $((SECONDS - t0)) s)"
fi

echo
echo "demo: $((SECONDS - start)) s; the reports: $reports"
