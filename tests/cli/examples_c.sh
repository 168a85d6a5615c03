#!/usr/bin/env bash
# The C examples (examples/c/): each program built by CMake next to hetune (build/examples/)
# from the public header alone, run on PoCL's one CPU device (POCL_DEVICES unset), exits 0
# after checking its own results: the devices and their limits, vecadd's space counted and
# listed (as many configurations as `hetune space` counts), a short tune into a temporary
# database (its progress: the space once, the reference step, each evaluation), and a
# co-execution through the runtime API split between two contexts.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp examples-c
unset POCL_DEVICES

run devices
require_platform

bin="$(dirname "$HETUNE")/examples"
if grep -q '^HETUNE_EXAMPLES:BOOL=OFF' "$(dirname "$HETUNE")/CMakeCache.txt" 2>/dev/null; then
    echo "skipped: the examples are not built (HETUNE_EXAMPLES=OFF)" >&2
    exit 77
fi
for e in devices space tune coexec; do
    [ -x "$bin/$e-example" ] || fail "no $bin/$e-example: is the build complete?"
done

# Runs example $1 with the rest as arguments; its output in $tmp/out, stderr in $tmp/err.
example() {
    local name=$1
    shift
    status=0
    "$bin/$name-example" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    [ "$status" -eq 0 ] || fail "$name-example $* exited $status: $(cat "$tmp/out" "$tmp/err")"
}

example devices
grep -q '^0  ' "$tmp/out" || fail "devices-example lists no device 0: $(cat "$tmp/out")"
grep -q '^1 device$' "$tmp/out" || fail "devices-example: expected 1 device: $(cat "$tmp/out")"

spec="$HETUNE_SOURCE_DIR/examples/vecadd/spec.json"
example space "$spec" 0
listed=$(sed -n 's/^listed    \([0-9]*\), as counted$/\1/p' "$tmp/out")
[ -n "$listed" ] || fail "space-example printed no count: $(cat "$tmp/out")"
[ "$(grep -c '^  WG=' "$tmp/out")" -eq "$listed" ] || fail "space-example listed a different number"
run space "$spec" --device 0 --json
expect_status 0
check "d['devices'][0]['pruned'] == $listed"
# A problem size override reaches the space (N = 8: EPT 1..8 all divide it, WG <= 8).
example space "$spec" 0 N=8
grep -q '^pruned    ' "$tmp/out" || fail "space-example N=8: $(cat "$tmp/out")"
! grep -q 'WG=16 ' "$tmp/out" || fail "space-example N=8 lists WG=16: $(cat "$tmp/out")"
# Bad input, with the library's exit statuses (ht_present_exit_status): a missing spec is 1, an
# invalid one 2, each with the path named.
status=0
"$bin/space-example" "$tmp/none.json" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 1
expect_err "none.json"
echo '{}' >"$tmp/empty.json"
status=0
"$bin/space-example" "$tmp/empty.json" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 2
expect_err "empty.json"

example tune "$spec" 0 65536
grep -q '^best      WG=[0-9]*,EPT=[0-9]*: ' "$tmp/out" || fail "tune-example: no best: $(cat "$tmp/out")"
grep -q '^stored    .*verified$' "$tmp/out" || fail "tune-example: not stored: $(cat "$tmp/out")"
# The progress before the first evaluation: the space once, then the reference step (the
# callback's calls without a configuration are the first one and the reference step's two).
[ "$(grep -c 'valid configurations' "$tmp/out")" -eq 1 ] ||
    fail "tune-example: the space's line not once: $(cat "$tmp/out")"
grep -q '^  reference outputs \(computed\|read from the cache\) in [0-9.]* s$' "$tmp/out" ||
    fail "tune-example: no reference step: $(cat "$tmp/out")"

example coexec 65536
[ "$(grep -c '^context ' "$tmp/out")" -eq 2 ] || fail "coexec-example: not two contexts: $(cat "$tmp/out")"
grep -q '^result      all 5 launches right' "$tmp/out" || fail "coexec-example: $(cat "$tmp/out")"

echo "the C examples ran and checked their results"
