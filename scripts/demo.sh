#!/usr/bin/env bash
# make demo: the machine's OpenCL devices, the vecadd example on each of them, then the
# paper's two case studies (matmul, conv1d): their pruned spaces and their tuning on every
# device, into demo.db.
set -eu
HETUNE=$(realpath "${1:-build/hetune}")
cd "$(dirname "$0")/.."

run() {
    echo
    echo "\$ hetune $*"
    "$HETUNE" "$@"
}

run devices
count=$("$HETUNE" devices --json | grep -o '"index"' | wc -l)

for ((d = 0; d < count; d++)); do
    run eval examples/vecadd/spec.json --device "$d" --set WG=64 --set EPT=1
done

run space examples/matmul/spec.json
run space examples/conv1d/spec.json
run space examples/fermi/spec.json

rm -f demo.db
run tune examples/matmul/spec.json --db demo.db
run tune examples/conv1d/spec.json --db demo.db
