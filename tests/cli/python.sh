#!/usr/bin/env bash
# The Python package (python/): pip-installed into a venv in the build folder
# ($BUILD/pyvenv, made once, the package reinstalled every run), then its pytest tests
# against the build's libhetune.so. Skipped (77) when no venv, numpy or pytest can be had.
set -eu

: "${HETUNE:?HETUNE must name the hetune binary}"
src="${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}"
build=$(cd "$(dirname "$HETUNE")" && pwd)
venv="$build/pyvenv"
export HETUNE_LIB="$build/libhetune.so"
[ -f "$HETUNE_LIB" ] || { echo "skipped: no $HETUNE_LIB (HETUNE_STATIC_DEPS build)" >&2; exit 77; }
command -v python3 >/dev/null || { echo "skipped: no python3" >&2; exit 77; }
# A library built with AddressSanitizer cannot be loaded into python3 (the ASan runtime must
# come first in the process): the normal build runs these tests.
if grep -q "__asan_init" "$HETUNE_LIB" 2>/dev/null; then
    echo "skipped: $HETUNE_LIB is built with AddressSanitizer; the normal build tests Python" >&2
    exit 77
fi

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import numpy, pytest' 2>/dev/null; then
    python3 -m venv "$venv" || { echo "skipped: python3 -m venv failed" >&2; exit 77; }
    "$venv/bin/pip" install -q numpy pytest ||
        { echo "skipped: numpy and pytest cannot be installed" >&2; exit 77; }
fi
log=$(mktemp "${TMPDIR:-/tmp}/hetune-python.XXXXXX")
trap 'rm -f "$log"' EXIT
# A copy: pip builds in place and must not leave build/ or *.egg-info in the source tree.
work=$(mktemp -d "${TMPDIR:-/tmp}/hetune-pysrc.XXXXXX")
trap 'rm -f "$log"; rm -rf "$work"' EXIT
cp -r "$src/python/." "$work/"
rm -rf "$work/build" "$work"/*.egg-info
if ! "$venv/bin/pip" install -q --force-reinstall --no-deps "$work" >"$log" 2>&1 &&
   ! "$venv/bin/pip" install -q --force-reinstall --no-deps --no-build-isolation "$work" >"$log" 2>&1; then
    cat "$log" >&2
    echo "FAIL: pip install ./python" >&2
    exit 1
fi
# Two devices for the split test, as tests/cli/split.sh has.
export POCL_DEVICES="${POCL_DEVICES:-pthread basic}"
cd "$build"  # not python/: the installed package is tested, not the folder
export HETUNE_SOURCE_DIR="$src"
"$venv/bin/python" -c 'import hetune, sys; sys.exit(0 if hetune.__file__.startswith(sys.prefix) else "hetune not imported from the venv: " + hetune.__file__)'
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$src/python/tests"
