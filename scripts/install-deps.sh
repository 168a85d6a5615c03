#!/usr/bin/env bash
# Installs what hetune needs to build, test and run its demo on Debian, when it is missing.
# Called by `make deps` (and so by `make demo` and `make test`; never by `make build`); safe to
# run again (only missing packages are installed). It says what it will install first.
#   scripts/install-deps.sh          install the missing packages (apt-get, through sudo)
#   scripts/install-deps.sh --list   only list them (exit 1 when some are missing)
set -eu

list_only=0
case "${1:-}" in
--list|-n) list_only=1 ;;
"") ;;
*) echo "usage: install-deps.sh [--list]" >&2; exit 2 ;;
esac

pkgs="cmake make gcc pkg-config opencl-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo
libjansson-dev libsqlite3-dev libcmocka-dev zlib1g-dev libxxhash-dev minizinc flatzinc gnuplot-nox
clang"
# Tuning over MPI (issue 16): mpirun and the MPI library; the build turns HETUNE_MPI on.
pkgs="$pkgs openmpi-bin libopenmpi-dev"

missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

# The tests read JSON with python3; any python3 on PATH will do.
command -v python3 >/dev/null 2>&1 || missing="$missing python3"

if [ -z "$missing" ]; then
    echo "install-deps: nothing to install (every package is there)" >&2
    exit 0
fi

if [ "$list_only" = 1 ]; then
    echo "install-deps: missing:$missing" >&2
    exit 1
fi
echo "install-deps: will install (apt-get install --no-install-recommends):$missing" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y --no-install-recommends $missing; then
    $SUDO apt-get update
    $SUDO apt-get install -y --no-install-recommends $missing
fi
