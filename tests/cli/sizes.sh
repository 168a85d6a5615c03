#!/usr/bin/env bash
# Sizes reach the kernel (issue 14): every size is also built as -D NAME=value, so a kernel
# that fixes N with a guarded #define follows --size, and the binary cache keys on it; an
# unguarded #define is blanked in the compiled copy, so it follows --size too; a parameter
# with one value (a range over a size) needs no --set.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp sizes

fix="$HETUNE_SOURCE_DIR/tests/fixtures/sizes"
cache="$tmp/cache"

run devices --json
require_platform
cp "$tmp/out" "$tmp/devices.json"
dev=$(pthread_device "$tmp/devices.json")

# The guarded default is 1024: --size N=2048 must reach the kernel; SCALE (range [S, S])
# takes its one value without --set.
run eval "$fix/spec.json" --device "$dev" --size N=2048 --set WG=64 --cache-dir "$cache" --json
expect_status 0
check "d['config'] == {'WG': 64, 'SCALE': 2} and d['global'] == [2048]"
check "d['verification']['verified'] and d['verification']['mismatches'] == 0"
check "not d['build']['cache_hit']"

# The same configuration with another N is another binary: the sizes are in the cache key.
run eval "$fix/spec.json" --device "$dev" --size N=4096 --set WG=64 --cache-dir "$cache" --json
expect_status 0
check "d['verification']['verified'] and not d['build']['cache_hit']"
run eval "$fix/spec.json" --device "$dev" --size N=4096 --set WG=64 --cache-dir "$cache" --json
expect_status 0
check "d['verification']['verified'] and d['build']['cache_hit']"
run eval "$fix/spec.json" --device "$dev" --size N=2048 --size S=3 --set WG=64 --cache-dir "$cache" --json
expect_status 0
check "d['config'] == {'WG': 64, 'SCALE': 3} and d['verification']['verified']"

# What follows builds with --no-cache and checks what the kernel computes, not hetune's
# binary cache: through PoCL's cache in the tests' folder, so that the sanitized pass
# loads the plain pass's programs.
pocl_cache_on

# With the kernel's N back at 1024 (the spec's own options come last, and a later -D wins),
# as it was before sizes reached the build, verification fails: the check above has teeth.
cp "$fix/kernel.cl" "$tmp/kernel.cl"
sed 's/"name": "fill" }/"name": "fill", "options": "-D N=1024" }/' "$fix/spec.json" >"$tmp/undef.json"
grep -q -- '-D N=1024' "$tmp/undef.json" || fail "could not write undef.json"
run eval "$tmp/undef.json" --device "$dev" --size N=2048 --set WG=64 --no-cache
expect_status 3
expect_err "verification failed"
run eval "$tmp/undef.json" --device "$dev" --set WG=64 --no-cache
expect_status 0

# An unguarded #define N is blanked in the compiled copy, so --size reaches that kernel
# too, unchanged (before, the #define won over -D N=... and verification failed); a build
# error keeps its line number.
run eval "$fix/unguarded.json" --device "$dev" --size N=2048 --set WG=64 --no-cache --json
expect_status 0
check "d['global'] == [2048] and d['verification']['verified'] and d['verification']['mismatches'] == 0"
run eval "$fix/unguarded.json" --device "$dev" --set WG=64 --no-cache
expect_status 0
sed 's|^__kernel void fill(|#define N 1024\nthis is not C;\n__kernel void fill(|' "$fix/unguarded.cl" >"$tmp/unguarded.cl"
sed "s|\"file\": \"unguarded.cl\"|\"file\": \"$tmp/unguarded.cl\"|" "$fix/unguarded.json" >"$tmp/unguarded.json"
line=$(grep -n "this is not C" "$tmp/unguarded.cl" | cut -d: -f1)
run eval "$tmp/unguarded.json" --device "$dev" --size N=2048 --set WG=64 --no-cache
expect_status 2
expect_err "unguarded.cl:$line:"

# tune on the same spec: every configuration verified at the new size, no --set anywhere.
run tune "$fix/spec.json" --device "$dev" --size N=2048 --db "$tmp/t.db" --no-cache --json
expect_status 0
echo "ok"
