# Helpers shared by the bench scripts (sourced, not run).

# Sets $dir, where a bench leaves its databases and logs: $OUT when set (the device tool
# brings it back), else a fresh temporary folder hetune-$1.XXXXXX removed at exit.
bench_dir() {
    if [ -n "${OUT:-}" ]; then
        dir=$OUT
        mkdir -p "$dir"
    else
        dir=$(mktemp -d "${TMPDIR:-/tmp}/hetune-$1.XXXXXX")
        trap 'rm -rf "$dir"' EXIT
    fi
}
