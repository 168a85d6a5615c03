#!/usr/bin/env bash
# Each node of `mpirun -n K hetune split` decides as `hetune split` does on one machine
# (ht__decide): 2 ranks, each a node of two PoCL devices of different speed (pthread, all
# cores; basic, one), tuned by `mpirun -n 2 hetune tune` into rank 0's database. The report
# gives each node's decision in words (text and JSON), and its predicted and measured
# times; with --margin 99 no split of two devices can be predicted 100 times faster than
# the faster alone, so each node runs that device alone, and no split of the two nodes is
# either, so rank 0's node runs alone (the decision one level up); --force makes each node
# split over both devices and the nodes split, and --plan paper is taken; the result verifies at rank 0 every time, and each
# node's time in the plan one level up is its run of what it decided. Skipped (77) where
# hetune was built without MPI or mpirun is missing.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp mpi-split-decide

require_mpi
run devices --json
require_platform

conv="$HETUNE_SOURCE_DIR/tests/fixtures/mpi/conv1d.json"
export POCL_DEVICES="pthread basic"
# What runs over MPI is tested here, not the binary cache: PoCL caches, in one folder for
# all the ranks (common.bash, mpi_rank_script).
pocl_cache_on
mpi_rank_script "$HETUNE"

# What every run must show: both nodes took part with both devices listed, the result
# verified, each node's decision in words, and its time one level up is its run of what it
# decided (positive; a node that split measured the split at that time).
check_nodes() {
    check "d['took_part'] == ${1:-2} and d['verified'] is True"
    check 'all(len(r["devices"]) == 2 and r["decision"] and r["alone_s"] > 0 for r in d["per_rank"])'
    check 'all(not r["node_split"] or r["measured_split_s"] == r["alone_s"] for r in d["per_rank"])'
}

mpi_run 2 tune "$conv" -q --db "$tmp/db"
expect_status 0

# The default decision (margin 0.1): whichever it is, it is said, with its figures. Two
# equal nodes: Eq. 4 over them predicts half of either alone, so they split unless the
# split then measures no faster than rank 0's node alone (what moves between the nodes is
# not in Eq. 4), which then runs alone; on this small problem it may go either way.
mpi_run 2 split "$conv" --db "$tmp/db" --json
expect_status 0
check_nodes "(2 if d['nodes_split'] else 1)"
check '(d["nodes_split"] and d["nodes_decision"].startswith("split over 2 nodes: Eq. 4 predicts ")) or (not d["nodes_split"] and "s node alone: the split over 2 nodes measured " in d["nodes_decision"])'
check 'all(r["predicted_split_s"] > 0 and r["predicted_alone_s"] > 0 for r in d["per_rank"])'
check 'all(r["decision"].startswith("split over 2 devices: predicted ") == r["node_split"] for r in d["per_rank"])'
check 'all(r["node_split"] or r["decision"].startswith("device ") for r in d["per_rank"])'

# --margin 99: never predicted to pay, so each node runs its faster device alone; a split
# predicted faster at all is measured once, and never 100 times faster; its granule is that
# device's work-group alone.
mpi_run 2 split "$conv" --db "$tmp/db" --margin 99 --json
expect_status 0
check_nodes 1
# One level up too: Eq. 4 over the nodes is not 100 times faster than rank 0's node alone,
# which holds the data: rank 0 runs alone, the other node is measured but not used.
check 'd["nodes_split"] is False and d["per_rank"][1]["state"] == "not used"'
check 'd["nodes_decision"].startswith("rank 0") and "s node alone: Eq. 4 over 2 nodes predicts " in d["nodes_decision"]'
check 'd["scattered_bytes"] == 0 and d["gathered_bytes"] == 0 and d["efficiency"] > 0'
check 'all(not r["node_split"] for r in d["per_rank"])'
check 'all((r["measured_split_s"] is None) == (r["predicted_split_s"] >= r["predicted_alone_s"]) for r in d["per_rank"])'
check 'all((r["measured_split_s"] is None) != ("; measured at " in r["decision"]) for r in d["per_rank"])'
check 'all(r["decision"].startswith("device ") and " alone: splitting is predicted at " in r["decision"] and "s, not 9900% faster than it alone (" in r["decision"] for r in d["per_rank"])'
check 'all(r["alone_s"] == r["predicted_alone_s"] for r in d["per_rank"])'

# --force (even with that margin): each node splits over both, measured, and says so.
mpi_run 2 split "$conv" --db "$tmp/db" --margin 99 --force --json
expect_status 0
check_nodes
check 'd["nodes_split"] is True and d["nodes_decision"].startswith("split over 2 nodes as asked: ")'
check 'all(r["node_split"] and r["decision"].startswith("split as asked over 2 devices: predicted ") for r in d["per_rank"])'
check 'all(r["predicted_split_s"] > 0 and r["measured_split_s"] > 0 for r in d["per_rank"])'

# The text report: one decision line per node; --plan paper is taken with --force.
mpi_run 2 split "$conv" --db "$tmp/db" --force --plan paper
expect_status 0
[ "$(grep -c "^       decision split as asked over 2 devices: predicted " "$tmp/out")" = 2 ] ||
    fail "not 2 node decisions: $(cat "$tmp/out")"
grep -q "^verification  passed against" "$tmp/out" || fail "not verified: $(cat "$tmp/out")"
echo "ok"
