#!/usr/bin/env bash
# Two MPI ranks of one host tuning the same device hand its lock to each other between
# configurations, each hand-off a new wait for the lock (exec.h). The CLI says a rank waits
# for a device once per process and device, not at every hand-off: a 52-configuration tune
# of examples/vecadd printed the notice 13 to 28 times before. With two ranks the holder a
# notice names is the other rank, so each pid named at most once means each rank said it at
# most once; the ranks waited (a notice at all) and both measured.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp mpi-wait-once

require_mpi
run devices --json
require_platform

export POCL_DEVICES=pthread
pocl_cache_on
export HETUNE_LOCK_DIR="$tmp/locks"
mpi_rank_script "$HETUNE"

mpi_run 2 tune "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" --size N=65536 --db "$tmp/a.db"
expect_status 0
notice="so that neither skews the other's times"
n=$(grep -cF "$notice" "$tmp/err" || true)
[ "$n" -ge 1 ] && [ "$n" -le 2 ] || fail "$n wait notices, expected 1 or 2: $(cat "$tmp/err")"
twice=$(grep -F "$notice" "$tmp/err" | grep -o 'by process [0-9]*' | sort | uniq -d)
[ -z "$twice" ] || fail "a rank said its wait twice ($twice): $(cat "$tmp/err")"
for r in 0 1; do
    grep -q "^rank $r (.*): 1 device, measured [1-9]" "$tmp/out" ||
        fail "rank $r measured nothing: $(cat "$tmp/out")"
done
echo "ok: two ranks sharing a device each said their wait for it once ($n notices)"
