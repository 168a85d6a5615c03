#!/usr/bin/env bash
# Kernels whose written buffers have no "index" split over MPI too (issue 26 item 4):
# `mpirun -n 2 hetune split` of the 2-D convolution and the tiled matmul written for
# another tuner (examples/conv2d_noindex, examples/matmul_noindex), each rank a node with
# its own PoCL device. Rank 0 infers which elements each slice writes as `hetune split`
# does (a probe on its device, stored in its database with the problem), every node owns
# its slab by that inference, and rank 0 verifies the gathered result against one device
# alone; the next split reads the stored inference. A kernel whose writes no slab explains
# (a scatter) is refused, saying what the probe saw. The runtime across nodes
# (ht_runtime_open with nodes = ht_mpi_nodes(), examples/runtime_mpi) splits vecadd without
# "index" the same way, every
# launch right. Skipped (77) where hetune was built
# without MPI or mpirun is missing.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp mpi-split-noindex

require_mpi
run devices --json
require_platform

ex="$HETUNE_SOURCE_DIR/examples"
scatter="$HETUNE_SOURCE_DIR/tests/fixtures/split/scatter.json"
db="$tmp/db"
export POCL_DEVICES=pthread POCL_MAX_PTHREAD_COUNT=1
# What runs over MPI is tested here, not the binary cache: PoCL caches, in one folder for
# all the ranks (common.bash, mpi_rank_script).
pocl_cache_on
mpi_rank_script "$HETUNE"

# The configurations: one of each spec into rank 0's database (every rank's device is
# the same pthread device, so one tune on this machine serves both). One, the strategy's
# first, so that the splits build the same programs in make test's two passes, and the
# sanitized pass finds them in PoCL's cache: the best of three was whichever measured
# fastest, and the sanitized pass built it again (the first conv2d split took 65.9 s of
# CPU there instead of 2.6 s with the programs cached).
for spec in "$ex/conv2d_noindex/spec.json" "$ex/matmul_noindex/spec.json" "$scatter"; do
    run tune "$spec" --device 0 --budget 1 -q --db "$db"
    [ "$status" -eq 0 ] || fail "tune $spec: exit $status: $(cat "$tmp/err")"
done

# split SPEC DIM AXIS: 2 ranks, forced, verified, both nodes own part of the work, and
# rank 0 says what it found for the output (axis AXIS, the other dimension's).
split() {
    mpi_run 2 split "$1" --dim "$2" --db "$db" --json --force
    [ "$status" -eq 0 ] || fail "$1 --dim $2: exit $status: $(cat "$tmp/err")"
    check 'd["verified"] is True and d["ranks"] == 2 and d["took_part"] == 2'
    check 'all(r["owned"][1] > r["owned"][0] for r in d["per_rank"])'
    check 'sum(r["owned"][1] - r["owned"][0] for r in d["per_rank"]) == d["global"]'
}

# The convolution along gx: each slice writes columns (axis 1), probed once and stored.
split "$ex/conv2d_noindex/spec.json" 0
expect_err "written buffer 'output' has no index: a probe found it written by slabs of its axis 1,"
[ "$(grep -c "has no index" "$tmp/err")" = 1 ] || fail "told more than once: $(cat "$tmp/err")"
[ "$(sql 'q("select arg, dim, axis from written_maps")')" = "[('output', 0, 1)]" ] ||
    fail "stored: $(sql 'q("select * from written_maps")')"
# The next split reads it.
split "$ex/conv2d_noindex/spec.json" 0
expect_err "written buffer 'output' has no index: as a probe found before, slabs of its axis 1,"
grep -qF "a probe found it written" "$tmp/err" && fail "probed again: $(cat "$tmp/err")"

# The matmul along gy: rows (axis 0), tile_size_y of them per work-item.
split "$ex/matmul_noindex/spec.json" 1
expect_err "written buffer 'C' has no index: a probe found it written by slabs of its axis 0,"

# Writes no slab explains: refused (exit 2), saying what the probe saw, nothing stored.
mpi_run 2 split "$scatter" --db "$db" --force
expect_status 2
expect_err "written buffer 'out' has no index, and the probe's slice [128, 256) along gx wrote 128 elements scattered over 32 rows of 'out' (a whole run writes 512): no slab of one axis per work-item explains them"
expect_err '(give it an "index")'
[ "$(sql 'q("select count(*) from written_maps")[0][0]')" = 2 ] ||
    fail "rows: $(sql 'q("select * from written_maps")')"

# The runtime across nodes: vecadd with no "index" on its output, tuned in the program and
# split over both ranks (mode SPLIT), 5 launches checked on rank 0.
example="$(dirname "$HETUNE")/examples/runtime-mpi-example"
[ -x "$example" ] || fail "no $example (built with HETUNE_MPI)"
python3 - "$HETUNE_SOURCE_DIR/tests/fixtures/mpi/spec.json" "$tmp/vecadd.json" \
    "$ex/vecadd/kernel.cl" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["name"] = "vecadd_mpi_noindex"
s["kernel"]["file"] = sys.argv[3]
del next(a for a in s["args"] if a["name"] == "a")["index"]
json.dump(s, open(sys.argv[2], "w"))
EOF
mpi_rank_script "$example"
HETUNE_DB="$db" mpi_run 2 "$tmp/vecadd.json" --tune --split
[ "$status" -eq 0 ] || fail "runtime: exit $status: $(cat "$tmp/out") $(cat "$tmp/err")"
grep -q "^result      all 5 launches right" "$tmp/out" || fail "not right: $(cat "$tmp/out")"
grep -q "2 ranks (2 take part)" "$tmp/out" || fail "not split: $(cat "$tmp/out")"
[ "$(sql 'q("select count(*) from written_maps w join problems p on p.id = w.problem_id "
             "join kernels k on k.id = p.kernel_id where k.spec_name = \"vecadd_mpi_noindex\"")[0][0]')" = 1 ] ||
    fail "the runtime's probe was not stored: $(sql 'q("select * from written_maps")')"
echo "ok"
