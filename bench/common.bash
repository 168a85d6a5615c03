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

# bench_venv DIR IMPORT PACKAGE...: a Python virtual environment at DIR with the packages
# (pip requirement specifiers), made once; IMPORT is a module whose import says it is whole.
bench_venv() {
    local venv=$1 module=$2
    shift 2
    if ! "$venv/bin/python" -c "import $module" 2>/dev/null; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q "$@"
    fi
}
