#!/usr/bin/env bash
# The runtime across nodes (issue 16: the runtime API over MPI; issue 27: one handle,
# ht_runtime_open with opts.nodes = ht_mpi_nodes()): the MPI
# program examples/runtime_mpi/main.c with 2 and 3 ranks on this machine, each rank with
# its own PoCL device (POCL_DEVICES=pthread, one thread), as on separate nodes (PoCL's
# cache is shared: common.bash, mpi_rank_script). With --tune it first tunes rank 0's database with ht_mpi_tune in the same
# MPI program (which initialized MPI itself: the library neither initializes nor finalizes
# it), then opens the runtime. On vecadd and on conv1d (whose input needs a halo of MASK -
# 1 = 32 elements past each slice): every output element of 5 launches with new inputs is
# checked on rank 0 against the host (rank 0's outputs are poisoned before each launch, so
# a runtime that gathers nothing fails); the bytes moved a launch are exactly the other
# nodes' slices (halo included) and conv1d's mask whole, not the whole arrays. Errors: an
# argument left unbound on rank 0 fails the launch on every rank, naming it, without a
# hang; so does a device failing in its slice, naming its rank; an empty database fails
# the open on every rank. A rank without an OpenCL platform is left out and the others
# share the work. Skipped (77) where hetune was
# built without MPI or mpirun is missing.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp mpi-runtime

require_mpi
run devices --json
require_platform

example="$(dirname "$HETUNE")/examples/runtime-mpi-example"
[ -x "$example" ] || fail "no $example (built with HETUNE_MPI)"
vecadd="$HETUNE_SOURCE_DIR/tests/fixtures/mpi/spec.json"
conv="$HETUNE_SOURCE_DIR/tests/fixtures/mpi/conv1d.json"
export POCL_DEVICES=pthread POCL_MAX_PTHREAD_COUNT=1
# What runs over MPI is tested here, not the binary cache: PoCL caches, in one folder for
# all the ranks (common.bash, mpi_rank_script).
pocl_cache_on
export HETUNE_DB="$tmp/db"
mpi_rank_script "$example"

# The bytes a launch moved, against what the other nodes' slices need: $1 the bytes of
# one unit of every scattered buffer sliced along the split dimension, $2 the halo in
# units, $3 the bytes broadcast whole to each other node, $4 the bytes of one unit of the
# gathered output. The owned ranges must partition the units.
check_moved() {
    python3 - "$tmp/out" "$1" "$2" "$3" "$4" <<'EOF' || fail "bytes moved: $(cat "$tmp/out")"
import re, sys
text = open(sys.argv[1]).read()
unit_in, halo, whole, unit_out = (int(x) for x in sys.argv[2:])
units = int(re.search(r"^split +(\d+) units", text, re.M).group(1))
own = {int(r): (int(a), int(b)) for r, a, b in
       re.findall(r"^rank (\d+) .* owns \[(\d+), (\d+)\)", text, re.M)}
sc, ga = (int(x) for x in re.search(r"^moved +(\d+) bytes scattered, (\d+) gathered", text,
                                     re.M).groups())
spans = sorted(own.values())
assert spans[0][0] == 0 and spans[-1][1] == units, spans
assert all(a[1] == b[0] for a, b in zip(spans, spans[1:])), spans
others = [b - a for r, (a, b) in own.items() if r != 0 and b > a]
want_sc = sum(unit_in * (n + halo) + whole for n in others)
want_ga = sum(unit_out * n for n in others)
assert sc == want_sc, (sc, want_sc)
assert ga == want_ga, (ga, want_ga)
assert 0 < ga < unit_out * units, ga  # a slice, not the whole output
# the info's JSON document (ht_runtime_info_json) says the same of the nodes
import json
info = json.loads(re.search(r"^info +(\{.*?^\})$", text, re.M | re.S).group(1))
nodes = info["nodes"]
assert nodes["global"] == units and nodes["rank"] == 0, nodes
assert nodes["last_scattered_bytes"] == sc and nodes["last_gathered_bytes"] == ga, nodes
assert {n["rank"]: (n["own_offset"], n["own_offset"] + n["own_size"])
        for n in nodes["nodes"] if n["took_part"]} == own, nodes
assert info["launches"] == 5 and info["devices"] == [] and info["split"] == (len(own) > 1)
print(units, own, sc, ga)
EOF
}

expect_right() {
    local k=$1
    expect_status 0
    grep -q "^result      all 5 launches right" "$tmp/out" ||
        fail "not all right: $(cat "$tmp/out") $(cat "$tmp/err")"
    grep -q "$k ranks ($k take part)" "$tmp/out" || fail "not $k ranks: $(cat "$tmp/out")"
    [ "$(grep -c "^rank [0-9] .* owns \[" "$tmp/out")" = "$k" ] ||
        fail "not $k nodes with a slice: $(cat "$tmp/out")"
}

# vecadd (N = 8192 floats; b and c scattered, a gathered, 4 * 8192 / units bytes a unit
# each), tuned by ht_mpi_tune in the same program, 2 ranks; then 3 ranks on that database.
# --split (mode HT_RUNTIME_SPLIT) splits over every node whatever the nodes' decision would
# say of problems this small, so that the slices and their bytes are what is checked.
mpi_run 2 "$vecadd" --tune --split
expect_right 2
grep -q "^model 0: .* on ranks 0, 1" "$tmp/out" || fail "not tuned over MPI: $(cat "$tmp/out")"
units=$(sed -n 's/^split *\([0-9]*\) units.*/\1/p' "$tmp/out")
check_moved $((2 * 4 * 8192 / units)) 0 0 $((4 * 8192 / units))
mpi_run 3 "$vecadd" --split
expect_right 3
if grep -q "^model 0" "$tmp/out"; then fail "tuned without --tune: $(cat "$tmp/out")"; fi
check_moved $((2 * 4 * 8192 / units)) 0 0 $((4 * 8192 / units))

# conv1d (a halo of 32 inputs past each slice, the mask of 33 floats whole), 2 and 3 ranks.
mpi_run 2 "$conv" --tune --split
expect_right 2
check_moved 4 32 $((4 * 33)) 4
mpi_run 3 "$conv" --split
expect_right 3
check_moved 4 32 $((4 * 33)) 4

# As decided (mode HT_RUNTIME_AUTO): the nodes split or rank 0's node runs alone, whichever
# the prediction says of this small problem; the report says which, and every launch is
# right either way.
mpi_run 2 "$conv"
expect_status 0
grep -q "^result      all 5 launches right" "$tmp/out" || fail "not all right: $(cat "$tmp/out")"
grep -Eq "^nodes       (split over 2 nodes: Eq. 4 predicts |rank 0's node alone: Eq. 4 over 2 nodes predicts )" "$tmp/out" ||
    fail "no nodes' decision: $(cat "$tmp/out")"
if grep -q "^nodes       rank 0's node alone" "$tmp/out"; then
    grep -q "2 ranks (1 take part)" "$tmp/out" || fail "alone, yet 2 take part: $(cat "$tmp/out")"
    grep -q "^rank 1 .*: not used: " "$tmp/out" || fail "rank 1 not 'not used': $(cat "$tmp/out")"
else
    grep -q "2 ranks (2 take part)" "$tmp/out" || fail "split, yet not 2: $(cat "$tmp/out")"
fi

# A rank with no OpenCL platform is left out, saying why; the other two share the work and
# the left-out rank's launches return with theirs.
NO_PLATFORM=2 mpi_run 3 "$conv" --split
expect_status 0
grep -q "^result      all 5 launches right" "$tmp/out" || fail "not all right: $(cat "$tmp/out")"
grep -q "3 ranks (2 take part)" "$tmp/out" || fail "not 2 of 3 ranks: $(cat "$tmp/out")"
grep -q "^rank 2 .*left out: .*no OpenCL platform" "$tmp/out" || fail "no reason: $(cat "$tmp/out")"
check_moved 4 32 $((4 * 33)) 4

# An argument left unbound on rank 0: the launch fails on every rank, naming it, no hang.
mpi_run 3 "$conv" --split --leave-unbound mask
expect_status 1
[ "$(grep -c "^runtime-mpi-example: rank [0-2]: launch failed: .*argument 'mask' of 'conv1d_mpi' is not bound on rank 0" "$tmp/err")" = 3 ] ||
    fail "not every rank told of the unbound argument: $(cat "$tmp/err")"

# Devices that fail in their slice (every rank's, in a slice not at 0: two of the three):
# the launch fails on every rank, naming the first rank that failed, no hang.
SLICE_FAIL="0 1 2" mpi_run 3 "$conv" --split
expect_status 1
[ "$(grep -c "^runtime-mpi-example: rank [0-2]: launch failed: rank [0-2] (.*) failed in its slice: .*injected by HETUNE_TEST_SLICE_FAIL" "$tmp/err")" = 3 ] ||
    fail "not every rank told of the failed slice: $(cat "$tmp/err")"

# A database without configurations: the open fails on every rank, telling to tune first.
HETUNE_DB="$tmp/empty.db" mpi_run 2 "$vecadd" --split
expect_status 1
# It names the database it read, whole (the reason of a node is cut at 255 bytes).
[ "$(grep -c "^runtime-mpi-example: rank [01]: cannot open the runtime: .*no configuration of 'vecadd_mpi' at these sizes in $tmp/empty.db (run 'mpirun -n K hetune tune' on the same ranks first)$" "$tmp/err")" = 2 ] ||
    fail "not every rank told of the empty database: $(cat "$tmp/err")"
echo "ok"
