# Sourced by the GPU scripts of bench/gpu (foreign.sh, pinsplit.sh, noindex.sh,
# runtime-noindex.sh), from the repository's root, with OUT and LOG set: the log, the
# build and the choice of devices they share (t0, H, cpu and gpu are theirs to use).
# shellcheck disable=SC2034

say() { echo "$*" | tee -a "$LOG"; }

# Builds build-gpu (Release, no tests, .gpu's static jansson and SQLite, as run.sh does)
# into $LOG; says how long it took; exits 1 when it fails. Sets t0 (the script's start)
# and H (the hetune binary, an absolute path).
gpu_build() {
    t0=$(date +%s)
    if ! cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF \
            -DHETUNE_STATIC_DEPS=ON -DCMAKE_PREFIX_PATH="$PWD/.gpu" >>"$LOG" 2>&1 ||
        ! cmake --build build-gpu -j "$(nproc)" >>"$LOG" 2>&1; then
        say "build failed"; tail -30 "$LOG"; exit 1
    fi
    say "== built in $(( $(date +%s) - t0 )) s"
    H=$PWD/build-gpu/hetune
}

# gpu_build_old DIR BENCH: an older tree (.gpu/old.tgz, made by
#   git archive REV -- . ':!docs' | gzip > .gpu/old.tgz; bench/search stays: the
#   benches' CMakeLists adds it) unpacked into DIR
# and built as gpu_build builds this one, in DIR/build-gpu, its benches when BENCH is ON;
# exits 1 when that fails.
gpu_build_old() {
    rm -rf "$1"; mkdir -p "$1"; tar -xzf .gpu/old.tgz -C "$1"
    if ! cmake -S "$1" -B "$1/build-gpu" -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF \
            -DHETUNE_STATIC_DEPS=ON -DHETUNE_BENCH="$2" -DCMAKE_PREFIX_PATH="$PWD/.gpu" \
            >>"$LOG" 2>&1 ||
        ! cmake --build "$1/build-gpu" -j "$(nproc)" >>"$LOG" 2>&1; then
        say "old build failed"; exit 1
    fi
}

# Writes $OUT/devices.json and sets cpu and gpu to the indices of the first CPU device and
# the first GPU; exits 1 when there is no GPU. With "show", `hetune devices` goes to the
# log too.
gpu_devices() {
    "$H" devices --json > "$OUT/devices.json" 2>>"$LOG"
    [ "${1:-}" = show ] && "$H" devices | tee -a "$LOG"
    read -r cpu gpu < <(python3 -c '
import json, sys; d=json.load(open(sys.argv[1]))["devices"]
c=next((x["index"] for x in d if x["is_cpu"]), "")
g=next((x["index"] for x in d if x["is_gpu"]), "")
print(c,g)' "$OUT/devices.json")
    [ -n "${gpu:-}" ] || { say "needs a CPU device and a GPU"; exit 1; }
}

# gpu_probe: builds the hand probe (../shared/probes/coexec-limit.c, carried in .gpu/probes)
# as build-gpu/coexec-limit.
gpu_probe() {
    gcc -O2 -std=gnu11 -o build-gpu/coexec-limit .gpu/probes/coexec-limit.c -lOpenCL -lpthread
}

# gpu_vecadd_db DB [SPEC]: the database DB that `hetune split` of vecadd 2^26 over $cpu and
# $gpu reads: the links and host memory (`hetune devices --bandwidth`), then SPEC (default
# examples/vecadd/spec.json) tuned at N=2^26 on each of the two devices; into $LOG.
gpu_vecadd_db() {
    local db=$1 s=${2:-examples/vecadd/spec.json}
    { "$H" devices --bandwidth --db "$db"
      "$H" tune "$s" --size N=67108864 --device "$cpu" --db "$db" -q
      "$H" tune "$s" --size N=67108864 --device "$gpu" --db "$db" -q; } >>"$LOG" 2>&1
}
