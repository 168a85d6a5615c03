#!/usr/bin/env bash
# hetune split of kernels that walk their grid with get_group_id, get_num_groups and
# get_global_size (examples/tiledstencil, tiledmatmul, gridstride; issue 14 item 1): split
# between two PoCL devices whose configurations have different work-group sizes (the
# fixtures' constraints on compute_units give PoCL's basic device one size and pthread
# another), along each dimension the spec can split, with every scheduler and both data
# paths, the merged output verified against one device alone. Before the prologue each
# slice saw group ids from 0 and its own number of groups, and every static split here
# failed verification (exit 3).
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
export POCL_DEVICES="${POCL_DEVICES:-pthread basic}"
make_tmp split-groupid
# The splits, not the binary cache, are tested here: PoCL caches (common.bash).
pocl_cache_on

fix="$HETUNE_SOURCE_DIR/tests/fixtures/groupid"
db="$tmp/groupid.db"
cache=(--cache-dir "$tmp/cache")

run devices --json
require_platform
ndev=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["devices"]))' "$tmp/out")
if [ "$ndev" -ge 2 ]; then two="0,1"; else two="0,0"; fi

# split SPEC DIM ARGS...: a forced split, verified against one device alone, exit 0.
split() {
    local spec=$1 dim=$2
    shift 2
    run split "$fix/$spec.json" --device "$two" --dim "$dim" --force --json --db "$db" \
        "${cache[@]}" --repeats 2 "$@"
    [ "$status" -eq 0 ] || fail "$spec --dim $dim $*: exit $status: $(cat "$tmp/err")"
    [ "$spec" != gridstride ] || ! grep -q "tuning it first" "$tmp/err" ||
        fail "$spec: the split tuned again: $(cat "$tmp/err")"
    check 'd["verification"]["verified"] is True and d["verification"]["mismatches"] == 0'
    check 'd["ran_alone"] is False'
}

# The two larger spaces (gridstride 8 configurations a device, stencil 14) tuned first, 4
# configurations of each device drawn with a seed (as cli/interop and cli/borrowed), instead
# of exhaustively inside their first split: the splits and their verification are checked
# here, and no split tunes again (checked below).
for spec in "$fix/gridstride.json" "$HETUNE_SOURCE_DIR/tests/fixtures/split/stencil.json"; do
    run tune "$spec" --device all --strategy random --budget 4 --seed 0 --db "$db" "${cache[@]}" -q
    expect_status 0
done

for spec in tiledstencil tiledmatmul gridstride; do
    dims="0 1"
    # The grid-stride loop walks a row's every column: only its rows can be split.
    [ "$spec" = gridstride ] && dims=1
    for dim in $dims; do
        # The paper's plan gives each device a slice (the bus plan may give one all).
        split "$spec" "$dim" --plan paper
        check 'all(x["owned"] > 0 for x in d["devices"])'
        if [ "$two" = "0,1" ]; then
            # Different work-group sizes: the second slice starts at the first's end, a
            # multiple of the first device's work-groups, not always of its own.
            check 'd["devices"][0]["config"] != d["devices"][1]["config"]'
        fi
        split "$spec" "$dim" --plan paper --data-path pinned
        check 'all(x["owned"] > 0 for x in d["devices"])'
        # Chunks on demand start wherever the other device stopped: each starts on one of
        # its own device's work-groups.
        split "$spec" "$dim" --scheduler dynamic
        split "$spec" "$dim" --scheduler guided --data-path pinned
    done
done

# A kernel on get_global_id alone builds as before: no prologue (the binary cache key and
# the program are unchanged), as test_prologue checks; its split still verifies.
run split "$HETUNE_SOURCE_DIR/tests/fixtures/split/stencil.json" --device "$two" --force \
    --json --db "$db" "${cache[@]}" --plan paper --repeats 2
expect_status 0
check 'd["verification"]["verified"] is True'
! grep -q "tuning it first" "$tmp/err" || fail "stencil: the split tuned again: $(cat "$tmp/err")"
echo "ok"
