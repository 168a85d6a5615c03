#!/usr/bin/env bash
# Kernels whose written buffers have no "index" split anyway (issue 26 item 4): hetune
# split on two PoCL devices probes which elements a slice writes (poisoned buffers, two
# slices and a whole run), stores the inference in the database, splits and verifies: a
# stencil, a readwrite kernel, and a 2-D convolution and a tiled matmul written as Kernel
# Tuner users write them (sizes by #define, positions from get_group_id) along both
# dimensions. A second split reads the stored inference and probes no more. Kernels whose
# writes no slab explains (a permutation, a reduction) are refused, saying what the probe
# saw.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
export POCL_DEVICES="${POCL_DEVICES:-pthread basic}"
make_tmp split-noindex
# The probe and the splits, not the binary cache, are tested here: PoCL caches (common.bash),
# as in cli/split_groupid; the sanitized pass then loads what the plain one built.
pocl_cache_on

fix="$HETUNE_SOURCE_DIR/tests/fixtures/split"
ex="$HETUNE_SOURCE_DIR/examples"
db="$tmp/noindex.db"
cache=(--cache-dir "$tmp/cache")

run devices --json
require_platform
ndev=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["devices"]))' "$tmp/out")
if [ "$ndev" -ge 2 ]; then two="0,1"; else two="0,0"; fi

# split SPEC ARGS...: a forced split by the paper's plan, verified against one device
# alone, exit 0; with the static scheduler, each device owns a slice (a dynamic one may
# give one device every chunk of a problem this small).
split() {
    local spec=$1
    shift
    run split "$spec" --device "$two" --force --plan paper --json --db "$db" "${cache[@]}" \
        --budget 3 "$@"
    [ "$status" -eq 0 ] || fail "$spec $*: exit $status: $(cat "$tmp/err")"
    check 'd["verification"]["verified"] is True and d["verification"]["mismatches"] == 0'
    check 'd["ran_alone"] is False'
    case "$*" in
    *--scheduler*) ;;
    *) check 'all(x["owned"] > 0 for x in d["devices"])' ;;
    esac
}

# The stencil of split.sh without its index: one element per work-item, probed and stored.
split "$fix/noindex.json"
expect_err "written buffer 'out' has no index: a probe found it written by slabs of its axis 0, 1 element per work-item along gx (halos 0 before, 0 past); stored"
[ "$(sql 'q("select arg, dim, axis, per_item, halo_lo, halo_hi from written_maps")')" = \
    "[('out', 0, 0, 1, 0, 0)]" ] || fail "stored: $(sql 'q("select * from written_maps")')"
# Read back, not probed again: a halo written into the row shows in the note.
sql 'db.execute("update written_maps set halo_hi = 7") and db.commit()' >/dev/null
split "$fix/noindex.json"
expect_err "written buffer 'out' has no index: as a probe found before, slabs of its axis 0, 1 element per work-item along gx (halos 0 before, 7 past)"
grep -qF "a probe found it written" "$tmp/err" && fail "probed again: $(cat "$tmp/err")"
# Chunks on demand own what the inference says too.
split "$fix/noindex.json" --scheduler dynamic

# A readwrite buffer without index: sent whole, its owned elements read back.
split "$fix/triple_noindex.json"
expect_err "written buffer 'x' has no index: a probe found it written by slabs of its axis 0"

# Kernels written for another tuner, along each dimension: the convolution writes columns
# along gx and rows (tile_size_y of them per work-item) along gy; so does the matmul.
for name in conv2d_noindex matmul_noindex; do
    for dim in 0 1; do
        split "$ex/$name/spec.json" --dim "$dim"
        expect_err "has no index: a probe found it written by slabs of its axis $((1 - dim)),"
    done
done
split "$ex/conv2d_noindex/spec.json" --dim 1 --scheduler guided
expect_err "has no index: as a probe found before, slabs of its axis 0,"
[ "$(sql 'q("select count(*) from written_maps")[0][0]')" = 6 ] ||
    fail "rows: $(sql 'q("select * from written_maps")')"

# hetune run (the whole pipeline) splits it too.
run run "$fix/noindex.json" --device "$two" --db "$db" "${cache[@]}" --out "$tmp/report" --json
[ "$status" -eq 0 ] || fail "run: exit $status: $(cat "$tmp/err")"

# refused SPEC FIELD TEXT: exit 2 with the field and what the probe saw; nothing stored.
refused() {
    run split "$1" --device "$two" --force --db "$db" "${cache[@]}"
    expect_status 2
    expect_err "$2: "
    expect_err "$3"
    expect_err '(give it an "index")'
}
refused "$fix/scatter.json" "scatter.json: args[1].index" \
    "written buffer 'out' has no index, and the probe's slice [128, 256) along gx wrote 128 elements scattered over 32 rows of 'out' (a whole run writes 512): no slab of one axis per work-item explains them"
refused "$fix/total.json" "total.json: args[1].index" \
    "written buffer 'total' has no index, and the probe's slice [64, 128) along gx wrote 1 element of 'total' (a whole run writes 1)"
[ "$(sql 'q("select count(*) from written_maps w join problems p on p.id = w.problem_id "
             "join kernels k on k.id = p.kernel_id "
             "where k.spec_name in (\"split-scatter\", \"split-total\")")[0][0]')" = 0 ] ||
    fail "a refused probe stored a row"

# One device needs no probe: it reads the buffer back whole.
run split "$fix/scatter.json" --device 0 --json --db "$db" "${cache[@]}"
expect_status 0
check 'd["verification"]["verified"] is True and len(d["devices"]) == 1'
echo "ok"
