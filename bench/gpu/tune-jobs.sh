#!/usr/bin/env bash
# Builds ahead on every core (issue 25, items 4-6), measured on the GPU machine: the wall
# per configuration of a compile-bound tune with one job and with every core, against the
# hetune before issue 25 (a source tarball in .gpu/base.tar: git archive c6a2b80), each run
# with cold caches (hetune's, and the NVIDIA driver's CUDA_CACHE_PATH).
#   bench/gpu/tune-jobs.sh STAGE...      stages: build base walk full budget
#     build   this tree into build-gpu (HETUNE_STATIC_DEPS, .gpu as in README.md)
#     base    the tarball .gpu/base.tar into build-base
#     walk    the first $WALK configurations of examples/conv2d in exhaustive order on the
#             GPU: base, --jobs 1, --jobs $(nproc)
#     full    examples/conv2d in exhaustive order for $FULL_TIME s (default 400: the whole
#             space does not fit a call of the GPU machine), --jobs $(nproc)
#     budget  --budget 100 with the automatic strategy (bayes), --jobs 1 and $(nproc)
# JSON of each run in $OUT (default bench/gpu/out), a summary line each in $OUT/jobs.txt.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-bench/gpu/out}
mkdir -p "$OUT"
LOG=$OUT/tune-jobs.log
WALK=${WALK:-200}
SPEC=${SPEC:-examples/conv2d/spec.json}
NJ=$(nproc)
say() { echo "$*" | tee -a "$OUT/jobs.txt"; }

gpu_index() { # the first GPU's index in hetune devices --json
    "$1" devices --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["devices"]
print(next(x["index"] for x in d if x["type"] == "GPU"))'
}

# run NAME BIN ARGS...: one tune with cold caches; prints wall and per configuration.
run() {
    local name=$1 bin=$2
    shift 2
    local cache
    cache=$(mktemp -d /tmp/ht-cache.XXXXXX)
    local t0 t1
    t0=$(date +%s.%N)
    CUDA_CACHE_PATH=$cache/nv HETUNE_CACHE_DIR=$cache/ht timeout "${RUN_LIMIT:-240}" "$bin" tune "$SPEC" \
        --db "$cache/run.db" --json -q "$@" >"$OUT/$name.json" 2>>"$LOG"
    local rc=$?
    t1=$(date +%s.%N)
    python3 - "$OUT/$name.json" "$name" "$rc" "$t0" "$t1" <<'PY' | tee -a "$OUT/jobs.txt"
import json, sys
path, name, rc, t0, t1 = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
try:
    d = json.load(open(path))["devices"][0]
except Exception as e:
    print(f"{name}: exit {rc}, no JSON ({e})"); sys.exit(0)
n = d["evaluated"]
best = d["best"]["seconds"] * 1e3 if d.get("best") else float("nan")
print(f"{name}: exit {rc}, {n} configurations, wall {t1 - t0:.1f} s ({(t1 - t0) / max(n, 1):.3f} s each), "
      f"tuning {d['tuning_seconds']:.1f} s, building {d['build_seconds']:.1f} s, "
      f"built ahead {d.get('built_ahead', 0)} ({d.get('built_ahead_seconds', 0):.1f} s), "
      f"cache hits {d['cache_hits']}, strategy {d.get('strategy', '?')}, jobs {d.get('jobs', '-')}, "
      f"best {best:.3f} ms, cut {d['cut']}, failed {d['failed']}")
PY
    rm -rf "$cache"
}

for stage in "$@"; do
    case $stage in
    build)
        cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF \
            -DHETUNE_STATIC_DEPS=ON -DCMAKE_PREFIX_PATH="$PWD/.gpu" >>"$LOG" 2>&1 &&
            cmake --build build-gpu -j "$NJ" >>"$LOG" 2>&1 || { say "build failed"; tail -30 "$LOG"; exit 1; }
        say "== built $(build-gpu/hetune --version) on $(nproc) cores"
        ;;
    base)
        rm -rf /tmp/ht-base && mkdir -p /tmp/ht-base && tar -xf .gpu/base.tar -C /tmp/ht-base &&
            cp -r .gpu /tmp/ht-base/.gpu &&
            cmake -S /tmp/ht-base -B build-base -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF \
                -DHETUNE_STATIC_DEPS=ON -DCMAKE_PREFIX_PATH="$PWD/.gpu" >>"$LOG" 2>&1 &&
            cmake --build build-base -j "$NJ" >>"$LOG" 2>&1 || { say "base build failed"; tail -30 "$LOG"; exit 1; }
        say "== baseline built (the tree before issue 25)"
        ;;
    walk)
        g=$(gpu_index build-gpu/hetune)
        say "== walk: the first $WALK configurations of $SPEC, exhaustive order, device $g"
        [ -x build-base/hetune ] && run walk-base build-base/hetune --device "$g" \
            --strategy exhaustive --budget "$WALK"
        run walk-jobs1 build-gpu/hetune --device "$g" --strategy exhaustive --budget "$WALK" --jobs 1
        run "walk-jobs$NJ" build-gpu/hetune --device "$g" --strategy exhaustive --budget "$WALK" \
            --jobs "$NJ"
        ;;
    full)
        g=$(gpu_index build-gpu/hetune)
        say "== full: $SPEC in exhaustive order for ${FULL_TIME:-400} s, device $g"
        run "full-jobs$NJ" build-gpu/hetune --device "$g" --strategy exhaustive --jobs "$NJ" \
            --time-budget "${FULL_TIME:-400}"
        ;;
    budget)
        g=$(gpu_index build-gpu/hetune)
        say "== budget 100, automatic strategy, device $g"
        run budget-jobs1 build-gpu/hetune --device "$g" --budget 100 --jobs 1
        run "budget-jobs$NJ" build-gpu/hetune --device "$g" --budget 100 --jobs "$NJ"
        ;;
    *) say "unknown stage $stage"; exit 2 ;;
    esac
done
