#!/usr/bin/env bash
# make demo: list the machine's OpenCL devices, then run the examples on each of them.
set -eu
HETUNE=${1:-build/hetune}
cd "$(dirname "$0")/.."

echo "== hetune devices"
"$HETUNE" devices
count=$("$HETUNE" devices --json | grep -c '"index"')

for ((d = 0; d < count; d++)); do
    echo
    echo "== hetune eval examples/vecadd/spec.json --device $d --set WG=64"
    "$HETUNE" eval examples/vecadd/spec.json --device "$d" --set WG=64
done
