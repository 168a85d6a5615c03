#!/usr/bin/env bash
# bench/mpi: distributed tuning (issue 16). The 200 configurations of bench/mpi/spec.json
# tuned exhaustively twice in one run of this script, side by side:
#   1 rank   mpirun -n 1 hetune tune (a world of one process: the usual tune), bound to a core
#   2 ranks  mpirun -n 2 hetune tune, each rank bound to a core of its own
# Each rank measures on PoCL's pthread device with one thread (POCL_MAX_PTHREAD_COUNT=1) and
# its own PoCL cache folder, as on a node of its own; PoCL's kernel cache and hetune's binary
# cache are off, so every configuration is compiled in both runs, and early termination is
# off (--cut-factor 0), so both do the same work. Printed: the wall time of each, the
# configurations each rank measured, and the ratio 1 rank / 2 ranks (the goal is >= 1.8).
#
# usage: bench/mpi/run.sh [HETUNE]    (default: $HETUNE, else build/hetune)
# environment: KEEP=DIR keeps the JSON and the databases there.
set -eu

bench=hetune-bench-mpi
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
export POCL_KERNEL_CACHE=0
cat >"$work/rank.sh" <<EOF
#!/usr/bin/env bash
export POCL_CACHE_DIR="$work/pocl-\$1-\${OMPI_COMM_WORLD_RANK:-0}"
mkdir -p "\$POCL_CACHE_DIR"
shift
exec "$hetune" "\$@"
EOF
chmod +x "$work/rank.sh"

# Tunes with $1 ranks; the JSON goes to $work/$1.json, the wall time to $work/$1.wall.
tune() {
    local t0 t1
    t0=$(date +%s%N)
    mpirun "${flags[@]}" -n "$1" "$work/rank.sh" "$1" tune "$root/bench/mpi/spec.json" \
        --db "$work/$1.db" --no-cache --cut-factor 0 -q --json >"$work/$1.json"
    t1=$(date +%s%N)
    echo "$(( (t1 - t0) / 1000000 ))" >"$work/$1.wall"
}

echo "bench/mpi: $(nproc) cores; $(mpirun --version | head -1); $("$hetune" --version)"
tune 1
tune 2
python3 - "$work" <<'EOF'
import json, sqlite3, sys
w = sys.argv[1]
one, two = json.load(open(w + "/1.json")), json.load(open(w + "/2.json"))
t1, t2 = (int(open(w + "/%d.wall" % n).read()) / 1000 for n in (1, 2))
n1 = one["devices"][0]["evaluated"] if "devices" in one else None
rows = lambda n: sqlite3.connect(w + "/%d.db" % n).execute(
    "SELECT count(*), count(DISTINCT config) FROM evaluations").fetchone()
print("1 rank   %7.1f s  %s configurations measured (database: %d rows, %d distinct)"
      % (t1, n1, *rows(1)))
m = two["models"][0]
print("2 ranks  %7.1f s  %d configurations measured (database: %d rows, %d distinct); %s"
      % (t2, m["evaluated"], *rows(2), ", ".join("rank %d measured %d in %.1f s busy" %
         (r["rank"], r["measured"], r["busy_s"]) for r in two["per_rank"])))
print("ratio 1 rank / 2 ranks: %.2fx (goal >= 1.8x)" % (t1 / t2))
EOF
