# Sourced by bench/mpi/run.sh and bench/mpi/split.sh, after `set -eu`, with $bench (the
# temporary folder's name) set and the script's arguments: sets root (the source tree),
# hetune ($1, else $HETUNE, else build/hetune), work (KEEP=DIR, else a temporary folder
# removed at exit; emptied of databases and PoCL caches), PoCL's pthread device on one
# thread, Open MPI's shared-memory path, and flags: mpirun's, a core per rank.
root=$(cd "$(dirname "$0")/../.." && pwd)
hetune=${1:-${HETUNE:-$root/build/hetune}}
[ -x "$hetune" ] || { echo "bench/mpi: no hetune binary at $hetune (build it first)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "bench/mpi: no mpirun (make deps)" >&2; exit 2; }
work=${KEEP:-}
if [ -z "$work" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/$bench.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
rm -rf "$work"/*.db "$work"/pocl-*
export POCL_DEVICES=pthread POCL_MAX_PTHREAD_COUNT=1
export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}" # one machine: shared memory
flags=(--oversubscribe --bind-to core --map-by core)
if [ "$(id -u)" = 0 ]; then
    flags+=(--allow-run-as-root)
fi

# Writes $work/rank.sh: hetune as one rank on a node of its own (its own PoCL cache folder).
rank_script() {
    cat >"$work/rank.sh" <<EOS
#!/usr/bin/env bash
export POCL_CACHE_DIR="$work/pocl-\${OMPI_COMM_WORLD_RANK:-0}"
mkdir -p "\$POCL_CACHE_DIR"
exec "$hetune" "\$@"
EOS
    chmod +x "$work/rank.sh"
}
