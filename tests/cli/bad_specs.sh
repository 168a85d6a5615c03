#!/bin/bash
# The malformed-spec corpus (tests/specs/bad) through the real binary: `hetune eval` must
# refuse every NAME.json with the exit status of the first line of NAME.expect and print a
# message holding each following line. "# needs-device" cases fail only once the kernel is
# built; without an OpenCL platform they are skipped and the others still have to pass.
set -u

: "${HETUNE:?HETUNE must name the hetune binary}"
src=${HETUNE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
dir=$src/tests/specs/bad
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

have_device=1
"$HETUNE" devices >/dev/null 2>"$tmp/devices.err"
case $? in
0) ;;
1) have_device=0 ;;
*) echo "hetune devices failed unexpectedly:"; cat "$tmp/devices.err"; exit 1 ;;
esac

total=0 failed=0 skipped=0
for spec in "$dir"/*.json; do
    name=$(basename "$spec" .json)
    expect=$dir/$name.expect
    total=$((total + 1))
    if [ ! -f "$expect" ]; then
        echo "FAIL $name: no $name.expect"
        failed=$((failed + 1))
        continue
    fi
    if grep -qx '# needs-device' "$expect" && [ $have_device = 0 ]; then
        skipped=$((skipped + 1))
        continue
    fi
    want=$(head -n 1 "$expect")
    "$HETUNE" eval "$spec" --device 0 >"$tmp/out" 2>"$tmp/err"
    got=$?
    ok=1
    if [ "$got" != "$want" ]; then
        echo "FAIL $name: exit status $got, expected $want"
        ok=0
    fi
    while IFS= read -r phrase; do
        case $phrase in '#'* | '') continue ;; esac
        if ! grep -qF -- "$phrase" "$tmp/err"; then
            echo "FAIL $name: stderr lacks \"$phrase\""
            ok=0
        fi
    done < <(tail -n +2 "$expect")
    if [ $ok = 0 ]; then
        sed 's/^/    stderr: /' "$tmp/err"
        failed=$((failed + 1))
    fi
done

if [ $have_device = 0 ]; then
    echo "$total cases, $failed failed, $skipped needs-device cases skipped (no OpenCL platform)"
else
    echo "$total cases, $failed failed"
fi
[ "$total" -ge 35 ] || { echo "FAIL the corpus has fewer than 35 cases"; exit 1; }
[ $failed = 0 ]
