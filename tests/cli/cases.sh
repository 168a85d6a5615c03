#!/usr/bin/env bash
# The case studies of examples/ (sepconv with its two-kernel variants as a pipeline, its
# single-kernel spec and its two passes, blackscholes, gesummv, atax as a two-stage pipeline
# and its first stage, nbody, stencil9, conv2d) at small sizes: every spec has a non-empty pruned
# space on every device, and one or two configurations per spec (local-memory choices and
# every sepconv variant included) build, run and verify against the spec's reference with
# `hetune eval` (exit 0 and "verification passed").
set -u

: "${HETUNE:?HETUNE must name the hetune binary}"
src=${HETUNE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
ex=$src/examples
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hetune-cases.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The examples, not the binary cache, are tested here: PoCL's kernel cache on, as
# pocl_cache_on in common.bash does.
export POCL_KERNEL_CACHE=1 POCL_CACHE_DIR="${HETUNE_CACHE_DIR:-$tmp}/pocl"
mkdir -p "$POCL_CACHE_DIR"

"$HETUNE" devices >/dev/null 2>"$tmp/err"
case $? in
0) ;;
1)
    if grep -q "no OpenCL platform" "$tmp/err"; then
        echo "skipped: no OpenCL platform" >&2
        exit 77
    fi
    echo "FAIL: hetune devices: $(cat "$tmp/err")"
    exit 1
    ;;
*) echo "FAIL: hetune devices: $(cat "$tmp/err")"; exit 1 ;;
esac

failed=0 total=0

# space SPEC [--size N=V]...: the pruned space is non-empty on every device.
space() {
    local spec=$1
    shift
    total=$((total + 1))
    if ! "$HETUNE" space "$ex/$spec" --json "$@" >"$tmp/out" 2>"$tmp/err"; then
        echo "FAIL space $spec $*: exit status $?: $(cat "$tmp/err")"
        failed=$((failed + 1))
        return
    fi
    if ! python3 - "$tmp/out" <<'PY'; then
import json, sys
devs = json.load(open(sys.argv[1]))["devices"]
sys.exit(0 if devs and all(d["pruned"] > 0 for d in devs) else 1)
PY
        echo "FAIL space $spec $*: an empty pruned space:"
        sed 's/^/    /' "$tmp/out"
        failed=$((failed + 1))
    fi
}

# eval SPEC ARGS...: one configuration on device 0 builds, runs and verifies.
eval_ok() {
    local spec=$1
    shift
    total=$((total + 1))
    local status=0
    "$HETUNE" eval "$ex/$spec" --device 0 "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    if [ $status -ne 0 ] || ! grep -q "^verification *passed" "$tmp/out"; then
        echo "FAIL eval $spec $*: exit status $status"
        sed 's/^/    stdout: /' "$tmp/out"
        sed 's/^/    stderr: /' "$tmp/err"
        failed=$((failed + 1))
    fi
}

s="--size W=64 --size H=64"
space sepconv/spec.json $s
eval_ok sepconv/spec.json $s --set VARIANT=1 --set WGX=16 --set WGY=4
eval_ok sepconv/spec.json $s --set VARIANT=2 --set WGX=8 --set WGY=8
# The two-kernel variants: the row pass launches H + KW - 1 = 70 rows rounded up to 72.
eval_ok sepconv/spec.json $s --set VARIANT=3 --set WGX=16 --set WGY=8
eval_ok sepconv/spec.json $s --set VARIANT=4 --set WGX=8 --set WGY=4
space sepconv/spec-single.json $s
eval_ok sepconv/spec-single.json $s --set VARIANT=1 --set WGX=8 --set WGY=8
# H + KW - 1 = 64 rows for the row pass.
s="--size W=64 --size H=58"
space sepconv/spec-rows.json $s
eval_ok sepconv/spec-rows.json $s --set LOCAL=1 --set WGX=16 --set WGY=8
s="--size W=64 --size H=64"
space sepconv/spec-cols.json $s
eval_ok sepconv/spec-cols.json $s --set LOCAL=1 --set WGX=8 --set WGY=4

space blackscholes/spec.json --size N=4096
eval_ok blackscholes/spec.json --size N=4096 --set WG=64 --set EPT=4
eval_ok blackscholes/spec.json --size N=4096 --set WG=2 --set EPT=1

space gesummv/spec.json --size N=256
eval_ok gesummv/spec.json --size N=256 --set WG=16 --set TS=64
eval_ok gesummv/spec.json --size N=256 --set WG=32 --set TS=0

# A non-square matrix, so that a swapped M and N is caught; the pipeline's reference is its
# configuration WG=1 TS=0, so the tiled choices are the ones checked here.
s="--size M=256 --size N=128"
space atax/spec.json $s
eval_ok atax/spec.json $s --set WG=16 --set TS=64
eval_ok atax/spec.json $s --set WG=64 --set TS=64
space atax/spec-stage1.json $s
eval_ok atax/spec-stage1.json $s --set WG=8 --set TS=64

space nbody/spec.json --size N=256
eval_ok nbody/spec.json --size N=256 --set WG=32 --set UNROLL=4
eval_ok nbody/spec.json --size N=256 --set WG=64 --set UNROLL=8

space stencil9/spec.json --size N=64
eval_ok stencil9/spec.json --size N=64 --set WGX=16 --set WGY=4 --set USE_LOCAL=1
eval_ok stencil9/spec.json --size N=64 --set WGX=8 --set WGY=8 --set USE_LOCAL=0

# conv2d: a small image and filter; the local-memory tile with padding and eight outputs
# per work-item in y, and the global-memory one with both loops unrolled.
s="--size W=64 --size H=64 --size FW=5 --size FH=3"
space conv2d/spec.json $s
eval_ok conv2d/spec.json $s --set BX=16 --set BY=2 --set TX=2 --set TY=8 --set USE_LOCAL=1 \
    --set PAD=1 --set UNROLL_FX=1 --set UNROLL_FY=0
eval_ok conv2d/spec.json $s --set BX=8 --set BY=4 --set TX=4 --set TY=1 --set USE_LOCAL=0 \
    --set PAD=0 --set UNROLL_FX=1 --set UNROLL_FY=1

echo "$total checks, $failed failed"
[ $failed -eq 0 ]
