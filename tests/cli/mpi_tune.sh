#!/usr/bin/env bash
# Distributed tuning (issue 16): `mpirun -n K hetune tune` with 2 and 3 ranks on this
# machine, each rank with its own PoCL device (POCL_DEVICES=pthread, one thread), as on
# separate nodes (PoCL's cache is shared: common.bash, mpi_rank_script). Every configuration is measured exactly once and rank 0's
# database holds them all; the output says how many ranks took part and what each measured
# (text and --json); a second run resumes from the database; a rank killed mid-run (the test
# hook HETUNE_TEST_MPI_DIE=RANK:N[:DELAY], read only by the library's MPI module) loses only its
# configuration in flight, which another rank measures; random draws a seeded order cut by
# the budget; a strategy that needs the last results (genetic, anneal) is refused. Skipped (77) where hetune was built without MPI or mpirun is missing.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp mpi-tune

require_mpi
run devices --json
require_platform

spec="$HETUNE_SOURCE_DIR/tests/fixtures/mpi/spec.json"
export POCL_DEVICES=pthread POCL_MAX_PTHREAD_COUNT=1
# What runs over MPI is tested here, not the binary cache: PoCL caches, in one folder for
# all the ranks (common.bash, mpi_rank_script).
pocl_cache_on
mpi_rank_script "$HETUNE"

# Runs `mpirun -n $1 hetune tune SPEC` with the remaining arguments. $recovery, when set, is
# --enable-recovery: Open MPI 4 then lets the others go on when a rank dies (but mpirun's
# own exit status is 0 whatever the ranks return: rank 0's output tells).
recovery=
mpitune() {
    local n=$1
    shift
    status=0
    timeout 120 mpirun "${mpiflags[@]}" $recovery -n "$n" "$tmp/rank.sh" tune "$spec" -q "$@" \
        >"$tmp/out" 2>"$tmp/err" || status=$?
}

# Checks database $1: $2 rows, each configuration once.
check_db() {
    python3 - "$1" "$2" <<'EOF' || fail "database $1 does not hold each configuration once"
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT config FROM evaluations").fetchall()
n = int(sys.argv[2])
sys.exit(0 if len(rows) == n and len(set(rows)) == n else 1)
EOF
}

# 2 ranks, JSON: every configuration once, both ranks measured, the per-rank lists add up.
mpitune 2 --db "$tmp/two.db" --json
expect_status 0
check 'd["ranks"] == 2 and len(d["per_rank"]) == 2 and len(d["models"]) == 1'
check 'd["models"][0]["space"] == 12 and d["models"][0]["evaluated"] == 12'
check 'd["models"][0]["ranks"] == [0, 1] and d["models"][0]["best"] is not None'
check 'all(r["measured"] >= 1 and r["state"] == "done" for r in d["per_rank"])'
check 'sum(r["measured"] for r in d["per_rank"]) == 12'
check 'sorted(c for r in d["per_rank"] for c in r["configs"]) == sorted(set(c for r in d["per_rank"] for c in r["configs"]))'
check_db "$tmp/two.db" 12

# The same again, text: everything comes from the database, nothing is measured.
mpitune 2 --db "$tmp/two.db"
expect_status 0
grep -q "^ranks 2 took part (MPI)" "$tmp/out" || fail "no rank count: $(cat "$tmp/out")"
grep -q "evaluated    0 in this run (0 cut, 0 failed), 12 from the database" "$tmp/out" ||
    fail "the second run measured again: $(cat "$tmp/out")"
grep -q "^rank 1 (.*): 1 device, measured 0 " "$tmp/out" || fail "no line of rank 1: $(cat "$tmp/out")"
check_db "$tmp/two.db" 12

# 3 ranks, rank 1 dies on its second configuration: that one goes back into the queue and
# another rank measures it; nothing else is lost or measured twice. The others wait 1 s
# before each measurement, so that work is left when rank 1 asks for its second (a fresh
# clone's rank 0 once measured 10 of 12 while rank 1's first ran, and rank 1 never died).
recovery=--enable-recovery
HETUNE_TEST_MPI_DIE=1:2:1 mpitune 3 --db "$tmp/three.db" --json
recovery=
expect_status 0
check 'd["ranks"] == 3 and d["models"][0]["evaluated"] == 12 and d["models"][0]["lost_in_flight"] == 1'
check 'd["per_rank"][1]["state"] == "died" and d["per_rank"][1]["measured"] == 1 and len(d["per_rank"][1]["lost"]) == 1'
check 'd["per_rank"][0]["state"] == "done" and d["per_rank"][2]["state"] == "done"'
check 'any(d["per_rank"][1]["lost"][0] in d["per_rank"][r]["configs"] for r in (0, 2))'
check 'sum(r["measured"] for r in d["per_rank"]) == 12'
check_db "$tmp/three.db" 12

# Random over MPI: a seeded uniform order of the valid configurations, cut by the budget.
# 5 distinct ones, stored as random; the same seed picks the same 5 in another database,
# another seed others; a second run with the same seed goes on with the next 5 of its order.
picked() { # the configurations database $1 holds, sorted, one line
    python3 -c 'import sqlite3, sys; print(sorted(r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT config FROM evaluations")))' "$1"
}
mpitune 2 --db "$tmp/r7.db" --strategy random --budget 5 --seed 7 --json
expect_status 0
check 'd["strategy"] == "random" and d["models"][0]["evaluated"] == 5'
check_db "$tmp/r7.db" 5
python3 - "$tmp/r7.db" <<'EOF' || fail "random's evaluations are not stored as random, seed 7"
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT DISTINCT strategy, seed FROM evaluations").fetchall()
sys.exit(0 if rows == [("random", 7)] else 1)
EOF
mpitune 2 --db "$tmp/r7b.db" --strategy random --budget 5 --seed 7
expect_status 0
grep -q "strategy random" "$tmp/out" || fail "the text does not name the strategy: $(cat "$tmp/out")"
[ "$(picked "$tmp/r7.db")" = "$(picked "$tmp/r7b.db")" ] || fail "the same seed picked other configurations"
mpitune 2 --db "$tmp/r8.db" --strategy random --budget 5 --seed 8
expect_status 0
[ "$(picked "$tmp/r7.db")" != "$(picked "$tmp/r8.db")" ] || fail "seeds 7 and 8 picked the same 5"
mpitune 2 --db "$tmp/r7.db" --strategy random --budget 5 --seed 7 --json
expect_status 0
check 'd["models"][0]["evaluated"] == 5 and d["models"][0]["from_db"] == 5'
check_db "$tmp/r7.db" 10

# Bad input: a strategy whose next configurations depend on the last results is refused;
# nothing is stored.
mpitune 2 --db "$tmp/genetic.db" --strategy genetic
expect_status 2
expect_err "over MPI, tune distributes the exhaustive and random strategies, not 'genetic'"
[ ! -e "$tmp/genetic.db" ] || fail "a refused run created its database"
echo "ok"
