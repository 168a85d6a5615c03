#!/usr/bin/env bash
# The whole pipeline on a real CPU+GPU machine (issue 7): builds hetune there with jansson and
# SQLite linked statically from .gpu/ (headers and archives copied from a Debian machine:
# see bench/gpu/README.md), then for every case study and every device: the pruned space,
# exhaustive tuning into one database, and — where the binary has them — the split and
# the report. Everything lands in one folder: $OUT when set (the device tool), else
# bench/gpu/out.
#
# usage: bench/gpu/run.sh [STAGE...]   stages: build devices space tune split sweep more
#        refine gpusweep report (default all; gpusweep needs the devices stage's devices.json),
#        and bus (issue 12: the data path and the bus-aware split, not in the default list)
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-bench/gpu/out}
mkdir -p "$OUT" "$OUT/json"
LOG="$OUT/run.log"
DB="$OUT/hetune.db"
# A database brought along (.gpu/hetune.db, from an earlier run) is continued, not redone.
[ -f "$DB" ] || [ ! -f .gpu/hetune.db ] || { cp .gpu/hetune.db "$DB" && chmod u+w "$DB"; }
HETUNE=${HETUNE_BIN:-build-gpu/hetune}
export HETUNE_CACHE_DIR=${HETUNE_CACHE_DIR:-/tmp/hetune-cache}
stages=${*:-build devices space tune split sweep more refine gpusweep report}

say() { printf '%s\n' "$*" | tee -a "$LOG"; }
run() {
    say ""
    say "\$ hetune $*"
    local t0 rc
    t0=$(date +%s%N)
    "$HETUNE" "$@" 2>&1 | tee -a "$LOG"
    rc=${PIPESTATUS[0]}
    say "(exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms)"
    return 0
}
has() { "$HETUNE" "$1" --help >/dev/null 2>&1; }

# The case studies: spec, then the size overrides of a problem that fills the GPU (kernels
# of a millisecond or more) beside the paper's own size (no override).
cases=(
    "examples/matmul/spec.json|"
    "examples/matmul/spec.json|--size N=2048"
    "examples/conv1d/spec.json|"
    "examples/conv1d/spec.json|--size N=4194304"
    "examples/vecadd/spec.json|--size N=67108864"
)
# The refine stage adds the cases where the slower device earns more than 10% by Eq. 4.
refine_cases=("${cases[@]}" "examples/gesummv/spec.json|" "examples/gesummv/spec.json|--size N=8192"
              "examples/nbody/spec.json|")

for stage in $stages; do
case $stage in
build)
    say "== build ($(uname -m), $(nproc) cores)"
    cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF \
        -DHETUNE_STATIC_DEPS=ON -DCMAKE_PREFIX_PATH="$PWD/.gpu" >>"$LOG" 2>&1 &&
        cmake --build build-gpu -j "$(nproc)" >>"$LOG" 2>&1 || { say "build failed"; tail -30 "$LOG"; exit 1; }
    ;;
devices)
    run devices
    "$HETUNE" devices --json > "$OUT/devices.json"
    ;;
space)
    for c in "${cases[@]}"; do
        spec=${c%%|*}; sizes=${c#*|}
        # shellcheck disable=SC2086
        run space "$spec" $sizes --device all
    done
    run space examples/fermi/spec.json --device all
    ;;
tune)
    for c in "${cases[@]}"; do
        spec=${c%%|*}; sizes=${c#*|}
        # shellcheck disable=SC2086
        run tune "$spec" $sizes --device all --db "$DB"
    done
    ;;
split)
    has split || { say "(no split command in this build)"; continue; }
    n=0
    for c in "${cases[@]}"; do
        spec=${c%%|*}; sizes=${c#*|}
        dims="0"
        case $spec in *matmul*) dims="0 1" ;; esac
        for dim in $dims; do
            # hetune's own decision first (it may refuse to split), then every scheduler
            # forced, to measure co-execution against Algorithm 1 and the fastest device.
            # shellcheck disable=SC2086
            run split "$spec" $sizes --db "$DB" --dim "$dim"
            for sched in static dynamic guided; do
                n=$((n + 1))
                say ""
                say "\$ hetune split $spec $sizes --dim $dim --scheduler $sched --force --json"
                # shellcheck disable=SC2086
                "$HETUNE" split "$spec" $sizes --db "$DB" --dim "$dim" --scheduler "$sched" \
                    --force --json > "$OUT/json/split-$n.json" 2>>"$LOG"
                say "(exit $?)"
                cat "$OUT/json/split-$n.json" >> "$LOG"
            done
        done
    done
    ;;
sweep)
    has split || { say "(no split command in this build)"; continue; }
    # The paper's Figures 6 and 7: time against the split factor, CPU and GPU.
    run split examples/conv1d/spec.json --db "$DB" --sweep 0.1 --force --repeats 5
    run split examples/conv1d/spec.json --size N=4194304 --db "$DB" --sweep 0.1 --force --repeats 5
    run split examples/matmul/spec.json --db "$DB" --sweep 0.1 --force --repeats 5
    ;;
more)
    # The neighbours' case studies through the whole pipeline (hetune run: prune, tune,
    # split with every scheduler, report), at their default sizes; a random sample of 40
    # configurations per device where the space is large. Pipelines (sepconv's two-pass
    # variants, ATAX) cannot be split: they are tuned only.
    for spec in examples/blackscholes/spec.json examples/gesummv/spec.json \
                examples/nbody/spec.json examples/stencil9/spec.json \
                examples/sepconv/spec-single.json; do
        run run "$spec" --db "$DB" --scheduler all --strategy random --budget 40 \
            --out "$OUT/report/$(basename "$(dirname "$spec")")"
    done
    for spec in examples/sepconv/spec.json examples/atax/spec.json; do
        run tune "$spec" --db "$DB" --strategy random --budget 40 --seed 1
    done
    ;;
refine)
    # The static split with the residue spread group by group (RESIDUE, default groups)
    # and up to 4 rounds of refinement (hetune split --refine): round 0 is the paper's
    # plan, the others re-plan from each device's measured slice times. Every case above
    # along dimension 0, and the cases where the slower device earns more than 10%
    # (gesummv, at its size and at one that fills the GPU better) and nbody.
    # Each target of REFINE_BY (default "kernel wall"): kernel-only (Algorithm 1's terms,
    # the goal) and wall (transfers too). Each case twice: forced to split (refine-N, the
    # split measured against Algorithm 1), then as hetune decides (decide-N: it runs the
    # fastest device alone when the estimate or every measured round says so).
    n=100
    for by in ${REFINE_BY:-kernel wall}; do
    for c in "${refine_cases[@]}"; do
        spec=${c%%|*}; sizes=${c#*|}
        n=$((n + 1))
        for mode in refine decide; do
            force=--force
            [ "$mode" = decide ] && force=
            say ""
            say "\$ hetune split $spec $sizes --residue ${RESIDUE:-groups} --refine 4 --refine-by $by $force --json"
            # shellcheck disable=SC2086
            "$HETUNE" split "$spec" $sizes --db "$DB" --residue "${RESIDUE:-groups}" --refine 4 \
                --refine-by "$by" $force --strategy random --budget 40 --json \
                > "$OUT/json/$mode-$n.json" 2>>"$LOG"
            say "(exit $?)"
            cat "$OUT/json/$mode-$n.json" >> "$LOG"
        done
    done
    done
    ;;
gpusweep)
    # With two GPUs or more: the first two alone, static split points from 0 to 1 by 0.1
    # (hetune split --sweep): the best split the pair can do, measured, beside Algorithm
    # 1's time from their times alone. Every case of the refine stage.
    gpus=$(awk -F': ' '/"index"/ { i = $2 + 0 }
        /"type": "GPU"/ { if (c < 2) g = g (c ? "," : "") i; c++ }
        END { if (c >= 2) print g }' "$OUT/devices.json" 2>/dev/null)
    [ -n "$gpus" ] || { say "(gpusweep: fewer than two GPUs)"; continue; }
    n=200
    for c in "${refine_cases[@]}"; do
        spec=${c%%|*}; sizes=${c#*|}
        n=$((n + 1))
        say ""
        say "\$ hetune split $spec $sizes --device $gpus --sweep 0.1 --force --json"
        # shellcheck disable=SC2086
        "$HETUNE" split "$spec" $sizes --db "$DB" --device "$gpus" --sweep 0.1 --force \
            --strategy random --budget 40 --json > "$OUT/json/gsweep-$n.json" 2>>"$LOG"
        say "(exit $?)"
        cat "$OUT/json/gsweep-$n.json" >> "$LOG"
    done
    ;;
bus)
    # Issue 12: the data path at the bus's limit and the split that knows the bus.
    # 1. The probe (../shared/probes/coexec-limit.c, brought in .gpu/probes): what the
    #    hardware allows for vecadd 2^26, by hand.
    # 2. hetune devices --bandwidth: hetune's path beside the pinned ceiling, stored.
    # 3. For each case: every device alone through the old path (pageable) and the new
    #    one (auto: pinned pieces on the GPU, in place on the CPU); then the split as
    #    hetune decides (bus-aware plan and decision), forced, and a sweep of the CPU's
    #    share (the practical optimum). JSON of each into $OUT/json/bus-*.json.
    if [ -f .gpu/probes/coexec-limit.c ]; then
        gcc -O2 -std=gnu11 -o "$OUT/coexec-limit" .gpu/probes/coexec-limit.c -lOpenCL -lpthread \
            >>"$LOG" 2>&1 && for k in 26 24; do
            say ""; say "\$ coexec-limit $k"; "$OUT/coexec-limit" "$k" 2>&1 | tee -a "$LOG"; done
    fi
    run devices --bandwidth --db "$DB"
    "$HETUNE" devices --bandwidth --json --db "$DB" > "$OUT/json/bus-bandwidth.json" 2>>"$LOG"
    cpu=$("$HETUNE" devices --json | python3 -c 'import json,sys; d=json.load(sys.stdin); d=d.get("devices",d); print(next(x["index"] for x in d if x["type"]=="CPU"))' 2>/dev/null)
    gpu=$("$HETUNE" devices --json | python3 -c 'import json,sys; d=json.load(sys.stdin); d=d.get("devices",d); print(next(x["index"] for x in d if x["type"]=="GPU"))' 2>/dev/null)
    say "cpu device $cpu, gpu device $gpu"
    # BUS_CASES: "spec|sizes;spec|sizes;..." (default: the six cases of issue 12).
    IFS=';' read -r -a bus_cases <<< "${BUS_CASES:-examples/vecadd/spec.json|--size N=67108864;examples/gesummv/spec.json|--size N=8192;examples/conv1d/spec.json|--size N=4194304;examples/blackscholes/spec.json|;examples/nbody/spec.json|;examples/matmul/spec.json|--size N=2048}"
    for c in "${bus_cases[@]}"; do
        spec=${c%%|*}; sizes=${c#*|}
        tag=$(basename "$(dirname "$spec")")
        for d in $cpu $gpu; do
            for path in pageable auto; do
                say ""; say "\$ hetune split $spec $sizes --device $d --data-path $path --json"
                # shellcheck disable=SC2086
                "$HETUNE" split "$spec" $sizes --db "$DB" --device "$d" --data-path "$path" \
                    --strategy random --budget 40 --json \
                    > "$OUT/json/bus-$tag-alone-$d-$path.json" 2>>"$LOG"
                say "(exit $?)"
            done
        done
        for mode in decide force sweep; do
            extra=
            [ "$mode" = force ] && extra=--force
            [ "$mode" = sweep ] && extra="--force --sweep ${BUS_STEP:-0.05}"
            say ""; say "\$ hetune split $spec $sizes --device $cpu,$gpu $extra --json"
            # shellcheck disable=SC2086
            "$HETUNE" split "$spec" $sizes --db "$DB" --device "$cpu,$gpu" $extra \
                --strategy random --budget 40 --json > "$OUT/json/bus-$tag-$mode.json" 2>>"$LOG"
            say "(exit $?)"
            grep -E '"(decision|speedup|wall_seconds|bound_seconds|split_seconds)"' \
                "$OUT/json/bus-$tag-$mode.json" | head -8 | tee -a "$LOG"
        done
    done
    ;;
report)
    has report || { say "(no report command in this build)"; continue; }
    run report --db "$DB" --out "$OUT/report"
    ;;
esac
done
# The device tool brings back few files: the JSON outputs and the report go as archives.
tar -C "$OUT" -czf "$OUT/json.tgz" json && rm -rf "$OUT/json"
[ -d "$OUT/report" ] && tar -C "$OUT" -czf "$OUT/report.tgz" report && rm -rf "$OUT/report"
say "== done"
