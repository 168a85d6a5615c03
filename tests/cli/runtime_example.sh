#!/usr/bin/env bash
# The runtime example (examples/runtime/main.c): built the way a program outside the tree
# builds it (the public header and libhetune only), run with no arguments from its own
# folder on PoCL's two CPU devices: it tunes a temporary database, launches 20 times on its
# own arrays, checks them and exits 0, stating the decision; forced to split, both devices
# take part.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
export POCL_DEVICES="${POCL_DEVICES:-pthread basic}"
make_tmp runtime

run devices --json
require_platform
ndev=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["devices"]))' "$tmp/out")

# Build it against the public header and the static library, like any program.
bindir=$(dirname "$HETUNE")
lib="$bindir/libhetune.a"
[ -f "$lib" ] || fail "no $lib next to $HETUNE"
cflags=""
if grep -q '^HETUNE_SANITIZE:BOOL=ON' "$bindir/CMakeCache.txt" 2>/dev/null; then
    cflags="-fsanitize=address,undefined"
fi
# shellcheck disable=SC2046,SC2086
cc -std=c11 -Wall -Wextra -Werror $cflags -I"$HETUNE_SOURCE_DIR/include" \
    "$HETUNE_SOURCE_DIR/examples/runtime/main.c" "$lib" -lOpenCL \
    $(pkg-config --libs jansson sqlite3 zlib) -lpthread -lm -o "$tmp/runtime-example" 2>"$tmp/err" ||
    fail "the example does not build: $(cat "$tmp/err")"

# No arguments, from its own folder.
status=0
(cd "$HETUNE_SOURCE_DIR/examples/runtime" && "$tmp/runtime-example") >"$tmp/out" 2>"$tmp/err" ||
    status=$?
expect_status 0
grep -q "all 20 launches right" "$tmp/out" || fail "no result line: $(cat "$tmp/out")"
grep -q "(tuned now)" "$tmp/out" || fail "the temporary database was not tuned: $(cat "$tmp/out")"
grep -Eq "^decision +(split over [0-9]+ devices|device [0-9]+ alone|one device)" "$tmp/out" ||
    fail "the decision is not stated: $(cat "$tmp/out")"

# Forced to split on a database it keeps: every device takes part.
if [ "$ndev" -ge 2 ]; then
    status=0
    HETUNE_DB="$tmp/rt.db" "$tmp/runtime-example" \
        "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" 262144 split >"$tmp/out" 2>"$tmp/err" ||
        status=$?
    expect_status 0
    grep -Eq "^decision +split as asked" "$tmp/out" || fail "not split: $(cat "$tmp/out")"
    used=$(grep -c "used, share" "$tmp/out" || true)
    notused=$(grep -c "not used," "$tmp/out" || true)
    [ "$notused" -eq 0 ] && [ "$used" -ge 2 ] || fail "a device took no part: $(cat "$tmp/out")"
    [ "$(grep -c '^last launch device' "$tmp/out")" -ge 2 ] ||
        fail "one device in the last launch: $(cat "$tmp/out")"
    # The database is reused: nothing is tuned again.
    status=0
    HETUNE_DB="$tmp/rt.db" "$tmp/runtime-example" \
        "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" 262144 >"$tmp/out" 2>"$tmp/err" ||
        status=$?
    expect_status 0
    if grep -q "(tuned now)" "$tmp/out"; then fail "tuned again: $(cat "$tmp/out")"; fi
fi

# A wrong mode is refused.
status=0
"$tmp/runtime-example" "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" 1024 sideways \
    >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 2
expect_err "not 'sideways'"
echo "ok"
