#!/usr/bin/env bash
# make demo: the machine's OpenCL devices, the vecadd example on each of them, then the
# paper's two case studies on every device found with hetune demo (hetune run on each: prune,
# tune, split, report) into demo.db, and the report of both under report/ (report/report.md).
#
# Sizes: both case studies run at the paper's sizes (conv1d: 2^16 elements, a mask of 625;
# matmul: 1024 x 1024), about four and a half minutes on a two-core machine with PoCL's one
# device, most of it timing matmul's seven tile sizes ten times each. MATMUL_N=512 makes it
# quicker.
set -eu
HETUNE=$(realpath "${1:-build/hetune}")
MATMUL_N=${MATMUL_N:-1024}
cd "$(dirname "$0")/.."

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

start=$SECONDS
run devices
count=$("$HETUNE" devices --json | grep -o '"index"' | wc -l)

for ((d = 0; d < count; d++)); do
    run eval examples/vecadd/spec.json --device "$d" --set WG=64 --set EPT=1
done

rm -f demo.db
timed run demo --matmul-n "$MATMUL_N" --db demo.db --out report

echo
echo "demo: $((SECONDS - start)) s; the report of both case studies is report/report.md"
