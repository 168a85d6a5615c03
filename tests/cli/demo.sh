#!/usr/bin/env bash
# hetune demo: both case studies through the whole pipeline, then their report.
set -u
"$HETUNE" devices >/dev/null 2>&1 || { echo "no OpenCL platform: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if ! eval "$1"; then echo "FAIL: $1" >&2; fail=1; fi; }

cd "$tmp"
"$HETUNE" demo --examples "$HETUNE_SOURCE_DIR/examples" --matmul-n 64 --db d.db --out r \
    > out.txt 2> err.txt
check '[ $? -eq 0 ]'
check 'grep -q "^\$ hetune run .*matmul/spec.json --size N=64" out.txt'
check 'grep -q "^\$ hetune report --db d.db --out r" out.txt'
check '[ -s r/report.md ] && [ -s r/matmul/report.md ] && [ -s r/conv1d/report.md ]'
check 'grep -q "Table 3" r/report.md'
check 'grep -q "matmul" r/spaces.csv && grep -q "conv1d" r/spaces.csv'

"$HETUNE" demo --bogus > /dev/null 2> err.txt
check '[ $? -eq 2 ]'
check 'grep -q "unknown option" err.txt'

[ "$fail" -eq 0 ] && echo "demo: all checks passed"
exit "$fail"
