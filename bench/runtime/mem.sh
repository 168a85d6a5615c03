#!/usr/bin/env bash
# bench/runtime/mem.sh: the runtime on a program's own malloc arrays against the arrays of
# ht_runtime_alloc, for vecadd 2^26 and gesummv 8192, modes AUTO, SPLIT and ALONE, and each
# foreign path (stage, register, direct) per direction on malloc memory (issue 26). Every
# element of every launch is checked. See the header of bench/runtime/mem.c.
#
# usage: bench/runtime/mem.sh [BUILD_DIR] [PROBLEM] [N | NV,NG] [LAUNCHES] [WARMUP] [DEVICES]
#   BUILD_DIR  a CMake build folder of hetune (default build/); bench_mem is built there when
#              missing (configured Release first when the folder has no CMakeCache.txt)
#   the rest   passed to bench_mem (defaults: all, 67108864,8192, 20, 3, every device)
# environment: POCL_DEVICES as usual; HETUNE_DB the results database (default
# ./bench-mem.db, tuned where a device has nothing: BENCH_MEM_STRATEGY, at most
# BENCH_MEM_BUDGET evaluations);
# BENCH_MEM_PATHS="up/down,..." the foreign paths to compare; BENCH_MEM_DATA_PATH every
# device's data path (auto, pageable, pinned: the CPU copies too, inplace); BENCH_MEM_LINKS=0 skips
# `hetune devices --bandwidth` into the database first (the links mode SPLIT plans with).
# On PoCL here, a small run: bench/runtime/mem.sh build all 262144,256 5 1
# (BENCH_MEM_PROBE_LOG2=18 for a probe of the same size)
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
[ $# -gt 0 ] && shift
bin="$build/bench/bench_mem"

if [ ! -f "$build/CMakeCache.txt" ]; then
    echo "bench/runtime/mem.sh: configuring $build" >&2
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
if [ ! -x "$bin" ] || [ "$root/bench/runtime/mem.c" -nt "$bin" ]; then
    echo "bench/runtime/mem.sh: building bench_mem in $build" >&2
    cmake --build "$build" --target bench_mem -j "$(nproc)" >/dev/null
fi
# Mode SPLIT plans with the stored links: measure them first (BENCH_MEM_LINKS=0 skips it).
export HETUNE_DB="${HETUNE_DB:-bench-mem.db}"
if [ "${BENCH_MEM_LINKS:-1}" = 1 ]; then
    [ -x "$build/hetune" ] || cmake --build "$build" --target hetune -j "$(nproc)" >/dev/null
    "$build/hetune" devices --bandwidth --db "$HETUNE_DB" >&2
fi
# The hand probe of vecadd (../shared/probes/coexec-limit.c, brought in .gpu/probes as for
# bench/gpu/run.sh's bus stage), in the same call: the figure the goals compare with.
# BENCH_MEM_PROBE=0 skips it; BENCH_MEM_PROBE_LOG2 its size (default 26).
probe=${PROBE_SRC:-$root/.gpu/probes/coexec-limit.c}
if [ "${BENCH_MEM_PROBE:-1}" = 1 ] && [ -f "$probe" ]; then
    if gcc -O2 -std=gnu11 -o "$build/coexec-limit" "$probe" -lOpenCL -lpthread >&2; then
        echo "bench/runtime/mem.sh: \$ coexec-limit ${BENCH_MEM_PROBE_LOG2:-26}"
        "$build/coexec-limit" "${BENCH_MEM_PROBE_LOG2:-26}" || echo "(the probe failed: $?)"
    fi
fi
echo "bench/runtime/mem.sh: $(nproc) cores, POCL_DEVICES=\"${POCL_DEVICES:-}\", $bin $*" >&2
exec "$bin" "$@"
