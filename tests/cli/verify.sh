#!/usr/bin/env bash
# Verification for kernels written elsewhere (issue 14, item 5), through hetune eval on
# PoCL: a reference kernel on its own NDRange (a naive 2-D convolution on the output grid),
# outputs only part of the grid writes ("verify": "written": a stencil's border, floats and
# integers, and a split between two devices), a reduction's partial sums whose number
# depends on the configuration ("verify": "sum", against a reference configuration and a
# one-work-item reference kernel), and reference outputs read from files (.npy and raw),
# with the files' mistakes refused before anything is built. Each kernel has BUG=1, a
# mistake that verification must catch (exit 3).
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp verify

fix="$HETUNE_SOURCE_DIR/tests/fixtures/verify"

# Verification, not the binary cache, is tested here: PoCL caches (common.bash), but in
# section 6, which counts the programs a tune gets as it did before (one cold ASan run
# counted one fewer with PoCL's cache on, not understood yet).
own_pocl_dir=${POCL_CACHE_DIR:-}
pocl_cache_on

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")

# eval SPEC on the pthread device with Eq. 3 off (the fixtures are small) and --set ARGS.
ev() {
    local spec=$1
    shift
    local sets=()
    for a in "$@"; do sets+=(--set "$a"); done
    run eval "$spec" --device "$dev" --eq3 off --json "${sets[@]}"
}

# 1. The naive convolution on W x H verifies the tiled one on W / EPT x H, for every EPT.
for cfg in "EPT=1 WGX=1" "EPT=2 WGX=4" "EPT=4 WGX=8" "EPT=4 WGX=1"; do
    # shellcheck disable=SC2086
    ev "$fix/conv.json" BUG=0 $cfg
    expect_status 0
    check "d['verification']['verified'] is True and d['verification']['mismatches'] == 0"
done
ev "$fix/conv.json" BUG=1 EPT=2 WGX=4
expect_status 3
check "d['verification']['mismatches'] == 256"
check "d['verification']['first_mismatch'].startswith('out[0][1]: got nan')"

# 1b. A reference kernel on its own NDRange that strides by get_global_size, in a program
# whose tuned kernel walks by group ids (hetune compiles a group-id prologue for the tuned
# NDRange): the reference sees its own 64 work-items. Before the fix it saw the tuned
# kernel's global size and left 4,032 of 4,096 elements unwritten.
for cfg in "EPT=1 WG=16" "EPT=4 WG=64" "EPT=4 WG=16"; do
    # shellcheck disable=SC2086
    ev "$fix/gridref.json" $cfg
    expect_status 0
    check "d['verification']['verified'] is True and d['verification']['mismatches'] == 0"
done

# 2. A stencil that leaves its border: only the elements the reference wrote are compared
# (the 14 x 14 interior), against a reference configuration, a reference kernel on the
# interior grid, and on integers (poison 0xA5 bytes). An interior element left unwritten
# is still caught.
for spec in stencil stencil_kernel stencil_int; do
    for cfg in "WGX=1 WGY=1" "WGX=2 WGY=7" "WGX=7 WGY=2"; do
        # shellcheck disable=SC2086
        ev "$fix/$spec.json" BUG=0 $cfg
        expect_status 0
        check "d['verification']['verified'] is True"
    done
    ev "$fix/$spec.json" BUG=1 WGX=2 WGY=7
    expect_status 3
    expect_err "1 of 196 elements differ; first out[5][7]: got "
done
# Without "written", the border (poison in both runs) can never match: why it exists.
python3 - "$fix/stencil.json" "$tmp/all.json" "$fix/kernel.cl" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
del s["args"][0]["verify"]
s["kernel"]["file"] = sys.argv[3]
json.dump(s, open(sys.argv[2], "w"))
EOF
ev "$tmp/all.json" BUG=0 WGX=2 WGY=7
expect_status 3
expect_err "60 of 256 elements differ; first out[0][0]: got nan, expected nan"

# 3. Partial sums, one per work-group (N / (WG * EPT) of them), checked by their sum
# against the reference configuration's 4096 and the reference kernel's single total.
for spec in reduce reduce_kernel; do
    for cfg in "WG=1 EPT=1" "WG=16 EPT=4" "WG=64 EPT=1" "WG=64 EPT=4"; do
        # shellcheck disable=SC2086
        ev "$fix/$spec.json" BUG=0 $cfg
        expect_status 0
        check "d['verification']['verified'] is True"
    done
    ev "$fix/$spec.json" BUG=1 WG=16 EPT=4
    expect_status 3
    expect_err "1 of 1 elements differ; first sum(partial) of 64 elements: got "
done
expect_err "(the sum of the 1 element the reference wrote)"

# 4. A split between two devices of an output with gaps, verified against one device alone
# where the reference wrote.
POCL_DEVICES="pthread basic" run devices --json
two=$(python3 -c 'import json,sys; print("0,1" if len(json.load(open(sys.argv[1]))["devices"]) >= 2 else "0,0")' "$tmp/out")
POCL_DEVICES="pthread basic" run split "$fix/gaps.json" --device "$two" --force --json \
    --db "$tmp/gaps.db"
expect_status 0
check "d['verification']['verified'] is True and d['verification']['mismatches'] == 0"

# 5. Reference outputs from files, beside a copy of the spec: .npy (format 1.0 and 2.0,
# the buffer's shape or flattened) and raw; then each mistake a file can hold.
cp "$fix/kernel.cl" "$fix/affine.json" "$tmp/"
npy() { # npy FILE DESCR SHAPE FORTRAN VERSION TYPECHAR: out = 2 * iota + 1, R x C = 4 x 8
    python3 - "$@" <<'EOF'
import struct, sys
path, descr, shape, fortran, version, tc = sys.argv[1:7]
shape = tuple(int(x) for x in shape.split("x")) if shape else ()
n = 1
for x in shape:
    n *= x
data = struct.pack("<%d%s" % (n, tc), *[2 * i + 1 for i in range(n)])
hdr = "{'descr': '%s', 'fortran_order': %s, 'shape': %r, }" % (descr, fortran, shape)
pre = 10 if version == "1" else 12
hdr += " " * ((64 - (pre + len(hdr) + 1) % 64) % 64) + "\n"
size = struct.pack("<H", len(hdr)) if version == "1" else struct.pack("<I", len(hdr))
open(path, "wb").write(b"\x93NUMPY" + bytes([int(version), 0]) + size + hdr.encode() + data)
EOF
}
with_ref() { # with_ref FILE: the spec's verify.outputs.out names FILE
    python3 - "$tmp/affine.json" "$1" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["verify"]["outputs"]["out"] = "file:" + sys.argv[2]
json.dump(s, open(sys.argv[1], "w"))
EOF
}
npy "$tmp/ref_out.npy" "<f4" 4x8 False 1 f
ev "$tmp/affine.json" BUG=0
expect_status 0
check "d['verification']['verified'] is True"
ev "$tmp/affine.json" BUG=1
expect_status 3
expect_err "1 of 32 elements differ; first out[1][2]: got 22, expected 21"
npy "$tmp/flat.npy" "<f4" 32 False 2 f
with_ref flat.npy
ev "$tmp/affine.json" BUG=0
expect_status 0
python3 -c 'import struct; open("'"$tmp"'/ref.bin", "wb").write(struct.pack("<32f", *[2 * i + 1 for i in range(32)]))'
with_ref ref.bin
ev "$tmp/affine.json" BUG=0
expect_status 0
check "d['verification']['verified'] is True"

# bad FILE WORDS...: the file is refused with exit 2 before anything is built, naming the
# spec's field and the file.
bad() {
    with_ref "$1"
    shift
    ev "$tmp/affine.json" BUG=0
    expect_status 2
    expect_err "verify.outputs.out"
    for w in "$@"; do expect_err "$w"; done
    grep -q '"build"' "$tmp/out" && fail "built although the reference file is wrong"
    return 0
}
npy "$tmp/f8.npy" "<f8" 4x8 False 1 d
bad f8.npy "f8.npy' holds float64 ('<f8') but buffer 'out' is float ('<f4', float32 in numpy)"
npy "$tmp/fortran.npy" "<f4" 4x8 True 1 f
bad fortran.npy "fortran.npy' is in Fortran order"
npy "$tmp/t.npy" "<f4" 8x4 False 1 f
bad t.npy "t.npy' has shape (8, 4) (32 elements) but buffer 'out' has shape [4, 8]"
npy "$tmp/short.npy" "<f4" 30 False 1 f
bad short.npy "short.npy' has shape (30,) (30 elements) but buffer 'out' has shape [4, 8] (32 elements)"
npy "$tmp/big.npy" ">f4" 4x8 False 1 f
bad big.npy "big.npy' its dtype '>f4' is big-endian"
head -c 101 "$tmp/ref.bin" >"$tmp/odd.bin"
bad odd.bin "odd.bin' has 101 bytes, not a whole number of float elements"
head -c 64 "$tmp/ref.bin" >"$tmp/half.bin"
bad half.bin "half.bin' has 64 bytes (16 float elements) but buffer 'out' of shape [4, 8] has 32 elements (128 bytes)"
printf 'not numpy' >"$tmp/fake.npy"
bad fake.npy "fake.npy' is not a .npy file"
# --no-verify runs without reading the file.
run eval "$tmp/affine.json" --device "$dev" --eq3 off --no-verify --set BUG=0
expect_status 0
# A missing file is the spec's mistake, found when it loads.
with_ref missing.npy
run eval "$tmp/affine.json" --device "$dev" --set BUG=0
expect_status 2
expect_err "verify.outputs.out"
expect_err "cannot read reference file"

# 6. "once": the naive convolution computes the same outputs for every configuration, so it
# runs once per session: a whole tune finds the same 2 good and 2 wrong (BUG=1)
# configurations as the reference run per configuration, and gets the reference's own
# program once instead of 4 times (one line of -v per program built, loaded or reused),
# less one: the reference step (before the first configuration, docs/spec.md) gets the
# first configuration's program, which that configuration's evaluation then reuses.
# 4 of conv.json's 18 configurations, EPT 2, WGX 1 and 4, both BUGs (8 before, EPT 1 and 2,
# WGX 1 and 4): at EPT 2 the reference's NDRange is not the tuned one, so its program is a
# build of its own (at EPT 1 it is the configuration's), and WGX is no build option, so the
# tune without "once" builds 4 programs (the 8 built 6) and with it 3; the count of
# programs tells as well as at 18 (2 fewer against 8: none fewer without "once").
python3 - "$fix/conv.json" "$tmp" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
d["kernel"]["file"] = os.path.join(os.path.dirname(sys.argv[1]), d["kernel"]["file"])
d["params"]["EPT"]["values"] = [2]
d["params"]["WGX"]["values"] = [1, 4]
json.dump(d, open(sys.argv[2] + "/each.json", "w"))
d["verify"]["once"] = True
json.dump(d, open(sys.argv[2] + "/once.json", "w"))
d["params"]["EPT"]["values"] = [1, 2]
d["args"][0]["shape"] = ["H", "W * EPT / EPT"]
json.dump(d, open(sys.argv[2] + "/once_shape.json", "w"))
d["args"][0]["shape"] = ["H", "W"]
d["verify"] = {"reference": {"EPT": 1, "WGX": 1, "BUG": 0}, "once": True}
json.dump(d, open(sys.argv[2] + "/once_config.json", "w"))
PY
# A cache folder of their own: the reference outputs are computed (not read), so that the
# step's program is counted.
for v in each once; do
    POCL_KERNEL_CACHE=0 POCL_CACHE_DIR="${own_pocl_dir:-$tmp/pocl-$v}" \
        run tune "$tmp/$v.json" --device "$dev" --eq3 off --db "$tmp/$v.db" --json -v \
        --cache-dir "$tmp/cache-$v"
    expect_status 0
    check "(d['devices'][0]['evaluated'] == 4 and d['devices'][0]['failed'] == 2 and
            d['devices'][0]['best']['config']['BUG'] == 0)"
    grep -cE "reused \(|binary cache hit|: built '" "$tmp/err" >"$tmp/$v.programs" || true
done
[ $(($(cat "$tmp/each.programs") - $(cat "$tmp/once.programs"))) -eq 2 ] ||
    fail "once: $(cat "$tmp/once.programs") programs against $(cat "$tmp/each.programs") without"
# Refused when a buffer's shape names a parameter, or with a reference configuration.
run eval "$tmp/once_shape.json" --device "$dev" --set EPT=1 --set WGX=1 --set BUG=0
expect_status 2
expect_err "verify.once"
expect_err "args[0] ('out') has a shape that uses the parameter 'EPT'"
run eval "$tmp/once_config.json" --device "$dev" --set EPT=1 --set WGX=1 --set BUG=0
expect_status 2
expect_err "verify.once is only used with a reference kernel"
