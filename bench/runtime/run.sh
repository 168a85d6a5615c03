#!/usr/bin/env bash
# bench/runtime: what one launch through hetune's runtime costs beyond the bare OpenCL
# commands it issues (issue 12's goal: <= 50 us), per device and for the split over all of
# them. See bench/runtime/README.md.
#
# usage: bench/runtime/run.sh [BUILD_DIR] [SPEC] [N | NAME=VALUE] [LAUNCHES] [DEVICES]
#   BUILD_DIR  a CMake build folder of hetune (default build/); bench_runtime is built there
#              when missing (configured Release first when the folder has no CMakeCache.txt)
#   the rest   passed to bench_runtime (defaults: examples/vecadd/spec.json, 4096, 2000,
#              every device)
# environment: POCL_DEVICES as usual ("pthread basic" gives two PoCL devices), HETUNE_DB to
# use an existing results database instead of a temporary one tuned first.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
[ $# -gt 0 ] && shift
bin="$build/bench/bench_runtime"

if [ ! -f "$build/CMakeCache.txt" ]; then
    echo "bench/runtime: configuring $build" >&2
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
if [ ! -x "$bin" ]; then
    echo "bench/runtime: building bench_runtime in $build" >&2
    cmake --build "$build" --target bench_runtime -j "$(nproc)" >/dev/null
fi
echo "bench/runtime: $(nproc) cores, POCL_DEVICES=\"${POCL_DEVICES:-}\", $bin $*" >&2
exec "$bin" "$@"
