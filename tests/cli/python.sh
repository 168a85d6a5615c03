#!/usr/bin/env bash
# The Python package (python/): a wheel built with pip wheel ./python (scikit-build-core
# over the project's CMake, bundling libhetune and hetune-worker; its CMake build kept in
# $BUILD/pywheel so that a second run rebuilds only what changed), installed into a venv in
# the build folder ($BUILD/pyvenv, made once); `import hetune` there with no variable set
# must load the bundled library and isolate a configuration in the bundled worker; then the
# pytest tests, against the build's libhetune.so. Skipped (77) when no venv, numpy, pytest
# or scikit-build-core can be had.
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

if [ ! -x "$venv/bin/python" ] ||
   ! "$venv/bin/python" -c 'import numpy, pytest, scikit_build_core' 2>/dev/null; then
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv" ||
        { echo "skipped: python3 -m venv failed" >&2; exit 77; }
    "$venv/bin/pip" install -q numpy pytest scikit-build-core ||
        { echo "skipped: numpy, pytest and scikit-build-core cannot be installed" >&2; exit 77; }
fi
log=$(mktemp "${TMPDIR:-/tmp}/hetune-python.XXXXXX")
wheels=$(mktemp -d "${TMPDIR:-/tmp}/hetune-wheel.XXXXXX")
# The folders hetune.tune makes and keeps when given none (a spec, its kernel and data:
# python/hetune/kt.py) go here, removed at the end, not left in /tmp by every run.
pytmp=$(mktemp -d "${TMPDIR:-/tmp}/hetune-pytmp.XXXXXX")
trap 'rm -f "$log"; rm -rf "$wheels" "$pytmp"' EXIT
export TMPDIR="$pytmp"
# Built from python/ itself (scikit-build-core writes nothing there: its build is
# $build/pywheel), without build isolation: the venv has scikit-build-core already. Built
# as Debug (-g, no optimisation; pyproject.toml's Release is -O3): the library's optimised
# code is what the rest of the tests run, and what is checked here is how the wheel is
# built, laid out and loaded, the same for both. Its ~108 files took 20.3 s of CPU as
# Release and 8.2 s as Debug (docs/development.md).
if ! CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" "$venv/bin/pip" wheel -q \
        --no-deps --no-build-isolation --config-settings=build-dir="$build/pywheel" \
        --config-settings=cmake.build-type=Debug -w "$wheels" "$src/python" >"$log" 2>&1 ||
   ! "$venv/bin/pip" install -q --force-reinstall --no-deps "$wheels"/hetune-*.whl >>"$log" 2>&1; then
    cat "$log" >&2
    echo "FAIL: pip wheel ./python, then pip install of the wheel" >&2
    exit 1
fi
# A fresh process with nothing set, outside the source tree: the bundled library, and the
# bundled worker beside it (the library looks there first: src/exec/worker.c).
(cd "$wheels" && env -u HETUNE_LIB -u HETUNE -u HETUNE_WORKER HETUNE_SOURCE_DIR= \
    "$venv/bin/python" - "$src/examples/vecadd/spec.json" <<'PY') || { echo "FAIL: the installed wheel" >&2; exit 1; }
import os, sys
import hetune
lib = hetune.library_path
bundle = os.path.join(os.path.dirname(hetune.__file__), "_bundle")
assert lib.startswith(bundle), "hetune loaded %s, not the bundled library" % lib
worker = os.path.join(bundle, "libexec", "hetune", "hetune-worker")
assert os.access(worker, os.X_OK), worker
# Only what runs (the "runtime" install component): one unversioned library, the worker,
# the CLI; no headers, static library, CMake or pkg-config files, manual page.
files = sorted(os.path.relpath(os.path.join(d, f), bundle)
               for d, _, fs in os.walk(bundle) for f in fs)
libs = [f for f in files if os.path.basename(f).startswith("libhetune")]
assert libs == [os.path.relpath(lib, bundle)], files
assert len(files) == 3 and "bin/hetune" in files, files
try:
    devs = hetune.devices()
except hetune.HetuneError as e:
    if e.name != "HT_ENOPLATFORM":
        raise
    devs = []
if devs:
    with hetune.load(sys.argv[1]) as s:
        r = s.eval({"WG": 32, "EPT": 1}, device=0, isolate="on")
        assert r["status"] == "ok", r
PY
# Two devices for the split test, as tests/cli/split.sh has.
export POCL_DEVICES="${POCL_DEVICES:-pthread basic}"
cd "$build"  # not python/: the installed package is tested, not the folder
export HETUNE_SOURCE_DIR="$src"
# PoCL's own kernel cache for the pytest tests, in the tests' cache folder as
# tests/cli/common.bash's pocl_cache_on has it: they check the Python API over what is
# built and run, not hetune's binary cache, and each test has a cache folder of its own
# (conftest.py), so with PoCL's cache off every test built its kernels cold and generated
# a binary file for each (pytest 24.0 -> 15.3 s of CPU from a cold cache, 4.2 s warm).
export POCL_KERNEL_CACHE=1 POCL_CACHE_DIR="${HETUNE_CACHE_DIR:-$build/test-cache}/pocl"
mkdir -p "$POCL_CACHE_DIR"
"$venv/bin/python" -c 'import hetune, sys; sys.exit(0 if hetune.__file__.startswith(sys.prefix) else "hetune not imported from the venv: " + hetune.__file__)'
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$src/python/tests"
