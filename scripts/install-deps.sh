#!/usr/bin/env bash
# Installs what hetune needs to build, test and run its demo on Debian, when it is missing.
# Called by the top-level Makefile; safe to run again (only missing packages are installed).
set -eu

pkgs="cmake make gcc pkg-config opencl-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo
libjansson-dev libsqlite3-dev libcmocka-dev minizinc flatzinc gnuplot-nox"

missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

# The tests read JSON with python3; any python3 on PATH will do.
command -v python3 >/dev/null 2>&1 || missing="$missing python3"

if [ -z "$missing" ]; then
    exit 0
fi

echo "install-deps: installing:$missing" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y --no-install-recommends $missing; then
    $SUDO apt-get update
    $SUDO apt-get install -y --no-install-recommends $missing
fi
