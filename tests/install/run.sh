#!/usr/bin/env bash
# cmake --install into a temporary prefix (issue 15 item 1): the headers, both libraries, the
# hetune binary, the worker in libexec/hetune/, hetune.pc and the CMake package. A program on
# <hetune.h> alone (consumer.c) is built against it with pkg-config and with
# find_package(hetune) (shared and static) and run; libhetune.so exports only ht_ names; the
# installed hetune finds the installed worker. Exits 77 (skipped) after the checks that need
# no OpenCL platform when there is none.
# Usage: run.sh BUILD_DIR [CMAKE]
set -eu

build=${1:?usage: run.sh BUILD_DIR [CMAKE]}
cmake=${2:-cmake}
src=${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}
here="$src/tests/install"
spec="$src/examples/vecadd/spec.json"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hetune-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"

fail() { echo "install: $*" >&2; exit 1; }

# A sanitized build's library needs the sanitizer runtime in the programs linked to it.
cflags="-std=c11 -Wall -Wextra -Werror"
if [ "${HETUNE_SANITIZE:-OFF}" = ON ]; then
    cflags="$cflags -fsanitize=address,undefined"
fi

"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log" >&2; fail "cmake --install failed"; }

pc=$(find "$prefix" -name hetune.pc -path '*/pkgconfig/*' | head -1)
[ -n "$pc" ] || fail "no hetune.pc installed"
libdir=$(dirname "$(dirname "$pc")")
for f in include/hetune.h include/hetune/spec.h include/hetune/platform.h bin/hetune \
         libexec/hetune/hetune-worker share/man/man1/hetune.1 \
         share/bash-completion/completions/hetune; do
    [ -e "$prefix/$f" ] || fail "$f was not installed"
done
for f in libhetune.so libhetune.a cmake/hetune/hetuneConfig.cmake \
         cmake/hetune/hetuneConfigVersion.cmake cmake/hetune/hetuneTargets.cmake; do
    [ -e "$libdir/$f" ] || fail "${libdir#"$prefix"/}/$f was not installed"
done

# The manual page names every command; the completion offers them.
for c in $("$prefix/bin/hetune" --help | awk '/^commands:/ {on = 1; next} on && NF == 0 {exit} on {print $1}'); do
    grep -q "^\.SS hetune $c\$" "$prefix/share/man/man1/hetune.1" || fail "hetune.1 lacks hetune $c"
done
words=$(bash -c 'source "$1/share/bash-completion/completions/hetune"; COMP_WORDS=("$1/bin/hetune" tu)
    COMP_CWORD=1; _hetune; echo "${COMPREPLY[*]}"; COMP_WORDS=("$1/bin/hetune" tune --repl)
    COMP_CWORD=2; _hetune; echo "${COMPREPLY[*]}"' _ "$prefix")
[ "$words" = "tune
--replay --replay-device" ] || fail "the bash completion offers: $words"
echo "install: the manual page and the bash completion"

# Only the public names are exported: ht_ then a letter, never ht__, nothing else.
nm -D --defined-only "$libdir/libhetune.so" | awk '{print $NF}' >"$tmp/syms"
public=$(grep -c '^ht_[a-z]' "$tmp/syms" || true)
others=$(grep -v '^ht_[a-z]' "$tmp/syms" || true)
[ "$public" -gt 0 ] || fail "libhetune.so exports no ht_ symbol"
[ -z "$others" ] || fail "libhetune.so exports more than ht_ names: $(echo "$others" | head -5 | tr '\n' ' ')"
echo "install: libhetune.so exports $public symbols, all ht_"

# The worker's install location is compiled into the library.
grep -qa '/libexec/hetune/hetune-worker' "$libdir/libhetune.so" ||
    fail "libhetune.so does not name the installed worker"

# pkg-config.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046,SC2086
cc $cflags -o "$tmp/consumer-pc" "$here/consumer.c" $(pkg-config --cflags --libs hetune) ||
    fail "the consumer does not build with pkg-config"
# pkg-config's Libs carry the rpath: the program runs without LD_LIBRARY_PATH.
found=$(env -u LD_LIBRARY_PATH ldd "$tmp/consumer-pc" | awk '/libhetune\.so/ {print $3}')
if ! { [ -n "$found" ] && [ -e "$found" ] &&
        [ "$(realpath "$found")" = "$(realpath "$libdir/libhetune.so")" ]; }; then
    fail "the pkg-config consumer does not find the installed libhetune.so by itself: $found"
fi
out=$(env -u LD_LIBRARY_PATH "$tmp/consumer-pc" "$spec") || fail "the pkg-config consumer failed"
echo "install: pkg-config: $out"

# Static, on the line of docs/linking.md (the archive named, pkg-config's static libraries):
# a program on one machine links no MPI part of hetune; an MPI program (examples/runtime_mpi,
# built with MPI's compiler) gets the runtime across nodes by calling ht_mpi_nodes(), with no
# linker option (issue 27).
# shellcheck disable=SC2046,SC2086
cc $cflags -o "$tmp/consumer-static-pc" "$here/consumer.c" $(pkg-config --cflags hetune) \
    "$libdir/libhetune.a" $(pkg-config --static --libs-only-l hetune | sed 's/-lhetune //') ||
    fail "the consumer does not build statically with pkg-config"
if nm "$tmp/consumer-static-pc" | grep -Eq ' T ht_mpi_nodes$| U P?MPI_'; then
    fail "a static program on one machine linked hetune's MPI part"
fi
case ${HETUNE_MPI:-OFF} in
[Oo][Nn] | [Tt][Rr][Uu][Ee] | [Yy][Ee][Ss] | 1)
    if command -v mpicc >/dev/null; then
        # shellcheck disable=SC2046,SC2086
        mpicc $cflags -o "$tmp/runtime-mpi-static" "$src/examples/runtime_mpi/main.c" \
            $(pkg-config --cflags hetune) "$libdir/libhetune.a" \
            $(pkg-config --static --libs-only-l hetune | sed 's/-lhetune //') ||
            fail "examples/runtime_mpi does not link statically without a linker option"
        nm "$tmp/runtime-mpi-static" | grep -q ' T ht_mpi_nodes$' ||
            fail "examples/runtime_mpi linked statically lacks hetune's MPI part"
        echo "install: static: one machine links no MPI part; an MPI program calling ht_mpi_nodes() links it, no linker option"
    else
        echo "install: static: one machine links no MPI part (no mpicc: the MPI program is not built)"
    fi ;;
*) echo "install: static: one machine links no MPI part (built without MPI)" ;;
esac

# find_package(hetune): hetune::hetune (shared) and hetune::hetune_static.
if ! { "$cmake" -S "$here" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_C_FLAGS="$cflags" >"$tmp/consumer.log" 2>&1 &&
        "$cmake" --build "$tmp/consumer" >>"$tmp/consumer.log" 2>&1; }; then
    cat "$tmp/consumer.log" >&2
    fail "the consumer does not build with find_package(hetune)"
fi
for exe in consumer consumer-static; do
    out=$("$tmp/consumer/$exe" "$spec") || fail "the find_package $exe failed"
    echo "install: find_package $exe: $out"
done
ldd "$tmp/consumer/consumer" | grep -q "$libdir/libhetune.so" ||
    fail "the find_package consumer is not linked to the installed libhetune.so"

# The shared library alone needs none of hetune's dependencies from the consumer's CMake
# (issue 28 item 7): MPI, OpenCL and pkg-config hidden, it still configures and builds.
if ! { "$cmake" -S "$here" -B "$tmp/consumer-shared" -DCMAKE_PREFIX_PATH="$prefix" \
        -DSHARED_ONLY=ON -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON \
        -DCMAKE_DISABLE_FIND_PACKAGE_OpenCL=ON -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON \
        -DCMAKE_C_FLAGS="$cflags" >"$tmp/consumer-shared.log" 2>&1 &&
        "$cmake" --build "$tmp/consumer-shared" >>"$tmp/consumer-shared.log" 2>&1; }; then
    cat "$tmp/consumer-shared.log" >&2
    fail "find_package(hetune) for the shared library needs hetune's dependencies"
fi
echo "install: find_package(hetune) for the shared library alone needs no MPI, OpenCL or pkg-config"

case $out in
*"devices: 0") echo "install: no OpenCL platform: the installed hetune eval is not run"; exit 77 ;;
esac

# The installed hetune runs its evaluation in the installed worker (libexec/hetune/, found from
# bin/): a wrapper in its place leaves a mark, then runs it.
worker="$prefix/libexec/hetune/hetune-worker"
mv "$worker" "$worker.real"
printf '#!/bin/sh\ntouch "%s"\nexec "%s" "$@"\n' "$tmp/worker-ran" "$worker.real" >"$worker"
chmod +x "$worker"
env -u HETUNE_WORKER "$prefix/bin/hetune" eval "$spec" --device 0 --set WG=64 --set EPT=1 \
    --size N=4096 >"$tmp/eval.log" 2>&1 || { cat "$tmp/eval.log" >&2; fail "the installed hetune eval failed"; }
[ -e "$tmp/worker-ran" ] || fail "the installed hetune did not run the installed worker"
echo "install: the installed hetune eval ran in the installed worker"

# A program linked to the installed libhetune.so runs its configurations in the installed
# worker, found beside the library, although the build tree's worker is still there (issue
# 28 item 1: it used to run the build tree's, or none once the build tree was gone).
rm -f "$tmp/worker-ran"
out=$(env -u HETUNE_WORKER LD_LIBRARY_PATH="$libdir" "$tmp/consumer-pc" "$spec" session) ||
    fail "the pkg-config consumer's session failed"
case $out in *"isolated: 1"*) ;; *) fail "the pkg-config consumer's session is not isolated: $out" ;; esac
[ -e "$tmp/worker-ran" ] || fail "a program on the installed libhetune.so did not run the installed worker"
echo "install: a program on the installed libhetune.so ran the installed worker"
