#!/usr/bin/env bash
# Under mpirun, what cannot run over MPI refuses with exit 2 and a clear message instead of
# K processes racing on one database (issue 16): a build without MPI refuses every command,
# a build with MPI every command but tune and split. Where mpirun is installed it launches the
# processes; elsewhere the launcher's environment (OMPI_COMM_WORLD_SIZE, PMI_SIZE) is set
# by hand, which is what hetune reads. A size of 1 is not refused.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp mpi-refuse

spec="$HETUNE_SOURCE_DIR/tests/fixtures/mpi/spec.json"
mpiflags=(--oversubscribe)
[ "$(id -u)" = 0 ] && mpiflags+=(--allow-run-as-root)
if [ "${HETUNE_MPI:-OFF}" = ON ] || [ "${HETUNE_MPI:-OFF}" = 1 ]; then
    cmd=run
    words="only 'hetune tune' and 'hetune split' run over MPI"
else
    cmd=tune
    words="this hetune was built without MPI"
fi

# The command that must refuse, launched by mpirun when there is one.
if command -v mpirun >/dev/null 2>&1; then
    status=0
    timeout 120 mpirun "${mpiflags[@]}" -n 2 "$HETUNE" "$cmd" "$spec" --db "$tmp/x.db" \
        >"$tmp/out" 2>"$tmp/err" || status=$?
    [ "$status" -ne 0 ] || fail "mpirun -n 2 hetune $cmd was not refused"
    [ "$(grep -cF "hetune $cmd: $words" "$tmp/err")" = 2 ] ||
        fail "each rank should refuse with '$words': $(cat "$tmp/err")"
    [ ! -e "$tmp/x.db" ] || fail "a refused run created its database"
fi

# The same from the launcher's environment, without mpirun.
status=0
OMPI_COMM_WORLD_SIZE=2 "$HETUNE" "$cmd" "$spec" --db "$tmp/y.db" >"$tmp/out" 2>"$tmp/err" ||
    status=$?
expect_status 2
expect_err "hetune $cmd: $words"
[ ! -e "$tmp/y.db" ] || fail "a refused run created its database"
# PMI_SIZE (MPICH, Slurm) counts too.
status=0
PMI_SIZE=3 "$HETUNE" report --db "$tmp/z.db" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 2
expect_err "hetune report: "

# One process is not a race: plan (no OpenCL) runs as usual.
status=0
OMPI_COMM_WORLD_SIZE=1 "$HETUNE" plan --global 1024 --wg 64,64 --times 1,2 >"$tmp/out" \
    2>"$tmp/err" || status=$?
expect_status 0
echo "ok"
