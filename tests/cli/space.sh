#!/usr/bin/env bash
# hetune space: the paper's spaces on every device, checked against counts computed here
# from the device limits of 'hetune devices --json'; --list, --eq3, --solver both, an
# empty space, two PoCL devices, and bad input (exit status 2 with a clear message).
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
ex="$HETUNE_SOURCE_DIR/examples"
make_tmp space

run devices --json
require_platform
cp "$tmp/out" "$tmp/devices.json"

# Checks $tmp/out, the --json of example $1 (with eq3 mode $2), against counts computed
# from the device limits: the global sizes are powers of two, so Eq. 2 leaves powers of
# two, and the few candidates are checked rule by rule.
check_example() {
    python3 - "$tmp/devices.json" "$tmp/out" "$1" "$2" <<'EOF'
import itertools, json, sys
devs = {d["index"]: d for d in json.load(open(sys.argv[1]))["devices"]}
out = json.load(open(sys.argv[2]))
name, eq3 = sys.argv[3], sys.argv[4]
assert out["spec"] == name, out["spec"]
assert out["eq3"] == eq3
assert len(out["devices"]) == len(devs), "one entry per device"

def pow2_upto(n):
    v, r = 1, []
    while v <= n:
        r.append(v)
        v *= 2
    return r

def groups_ok(g, l, cu):
    n = [gi // li for gi, li in zip(g, l)]
    if eq3 == "off":
        return True
    total = sum(n) if eq3 == "sum" else __import__("math").prod(n)
    return total >= cu

for e in out["devices"]:
    d = devs[e["index"]]
    assert e["device"] == d["name"]
    item, wg, cu, lmem = d["max_work_item_sizes"], d["max_work_group_size"], d["compute_units"], d["local_mem_size"]
    for key in ("unpruned", "platform", "pruned", "seconds", "solver", "params", "empty_reason"):
        assert key in e, key
    assert e["seconds"] >= 0
    if name == "matmul":
        unpruned = item[0] * item[1]
        plat = [(a, b) for a in pow2_upto(min(1024, item[0])) for b in pow2_upto(min(1024, item[1]))
                if a * b <= wg and 8 * a * b <= lmem and groups_ok([1024, 1024], [a, b], cu)]
        pruned = [p for p in plat if p[0] == p[1]]
        assert e["params"] == ["WG0", "WG1"], e["params"]
    elif name == "conv1d":
        unpruned = item[0]
        plat = [(w, 625) for w in pow2_upto(min(65536, item[0]))
                if w <= wg and (w + 624) * 4 <= lmem and groups_ok([65536], [w], cu)]
        pruned = plat
        assert e["params"] == ["WG", "MASK"], e["params"]
    else:
        unpruned = 1024 * 1024 * 64
        plat = [(x, y, z) for x in pow2_upto(1024) for y in pow2_upto(1024) for z in pow2_upto(64)
                if x <= item[0] and y <= item[1] and z <= item[2] and x * y * z <= wg
                and groups_ok([1024, 1024, 64], [x, y, z], cu)]
        pruned = plat
    assert e["unpruned"] == unpruned, (e["unpruned"], unpruned)
    assert e["platform"] == len(plat), (name, e["platform"], len(plat))
    assert e["pruned"] == len(pruned), (name, e["pruned"], len(pruned))
    if "configs" in e:
        # Walk order (docs/cli.md): each valid configuration once, in no sorted order.
        assert sorted(tuple(c) for c in e["configs"]) == sorted(pruned), e["configs"]
    assert (e["empty_reason"] is None) == (len(pruned) > 0)
EOF
}

for name in matmul conv1d fermi; do
    run space "$ex/$name/spec.json" --json
    [ "$status" -eq 0 ] || fail "space $name exited $status: $(cat "$tmp/err")"
    check_example "$name" product || fail "space $name --json is wrong"
done
for eq3 in sum off; do
    run space "$ex/matmul/spec.json" --json --eq3 "$eq3" --list
    [ "$status" -eq 0 ] || fail "space --eq3 $eq3 exited $status: $(cat "$tmp/err")"
    check_example matmul "$eq3" || fail "space matmul --eq3 $eq3 --list is wrong"
done
run space "$ex/fermi/spec.json" --json --list --device 0
[ "$status" -eq 0 ] || fail "space --device 0 exited $status: $(cat "$tmp/err")"
python3 -c '
import json, sys
out = json.load(open(sys.argv[1]))
assert len(out["devices"]) == 1 and out["devices"][0]["index"] == 0
e = out["devices"][0]
assert len(e["configs"]) == e["pruned"] and all(len(c) == 3 for c in e["configs"])
' "$tmp/out" || fail "space --device 0 --list is wrong"

# Text: the table and the configurations.
run space "$ex/matmul/spec.json" --list
[ "$status" -eq 0 ] || fail "space (text) exited $status: $(cat "$tmp/err")"
for word in unpruned platform pruned seconds "WG0 WG1" "    1 1"; do
    grep -q "$word" "$tmp/out" || fail "the text output lacks '$word'"
done

# --devices-from: the limits of a 'hetune devices --json' document instead of OpenCL's,
# here those of this machine and of a GPU it lacks (counts checked from the same file).
cp "$tmp/devices.json" "$tmp/devices-here.json"
python3 - "$tmp/devices-here.json" "$tmp/devices.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
gpu = dict(d["devices"][0], index=1, name="what-if GPU", type="GPU", is_cpu=False, is_gpu=True,
           compute_units=132, max_work_group_size=1024, max_work_item_sizes=[1024, 1024, 64],
           local_mem_size=49152)
d["devices"] = [d["devices"][0], gpu]
json.dump(d, open(sys.argv[2], "w"))
EOF
for name in matmul conv1d fermi; do
    run space "$ex/$name/spec.json" --json --devices-from "$tmp/devices.json"
    [ "$status" -eq 0 ] || fail "space $name --devices-from exited $status: $(cat "$tmp/err")"
    check_example "$name" product || fail "space $name --devices-from is wrong"
done
cp "$tmp/devices-here.json" "$tmp/devices.json"
echo '{"devices": [{"name": "x"}]}' >"$tmp/nolimits.json"
for f in nolimits.json missing.json; do
    run space "$ex/matmul/spec.json" --devices-from "$tmp/$f"
    [ "$status" -ne 0 ] && grep -q "$f" "$tmp/err" || fail "--devices-from $f: $status $(cat "$tmp/err")"
done

# --list streams in walk order: the text lines are the JSON's configurations, in the same
# order, each once; sorted, they are the sorted set. The binary format (HT_SPACE_LIST_HELP)
# holds the same records after its header.
run space "$ex/fermi/spec.json" --json --list --device 0
cp "$tmp/out" "$tmp/fermi.json"
run space "$ex/fermi/spec.json" --list-format binary --device 0
[ "$status" -eq 0 ] || fail "space --list-format binary exited $status: $(cat "$tmp/err")"
cp "$tmp/out" "$tmp/fermi.bin"
run space "$ex/fermi/spec.json" --list --device 0
[ "$status" -eq 0 ] || fail "space fermi --list exited $status: $(cat "$tmp/err")"
python3 - "$tmp/fermi.json" "$tmp/out" "$tmp/fermi.bin" <<'EOF' || fail "--list order or binary format is wrong"
import json, struct, sys
e = json.load(open(sys.argv[1]))["devices"][0]
want = [tuple(c) for c in e["configs"]]
lines = open(sys.argv[2]).read().splitlines()
assert lines[3].split() == e["params"], lines[3]
text = [tuple(int(v) for v in l.split()) for l in lines[4:]]
assert text == want, "text and JSON listings differ"
assert len(set(text)) == len(text) == e["pruned"] > 100
assert text != sorted(text), "the walk order of fermi is the sorted order: pick another space"
b = open(sys.argv[3], "rb").read()
assert b[:8] == b"HTSPACE1"
np, w, n, dev = struct.unpack("<IIQQ", b[8:32])
assert (np, n, dev, w) == (3, e["pruned"], 0, 2), (np, n, dev, w)
names = b[32:].split(b"\0")[:np]
assert [x.decode() for x in names] == e["params"]
off = 32 + sum(len(x) + 1 for x in names)
assert len(b) == off + n * np * w
recs = [struct.unpack_from("<%dh" % np, b, off + k * np * w) for k in range(n)]
assert recs == want, "binary records differ"
EOF
run space "$ex/fermi/spec.json" --list-format csv
[ "$status" -eq 2 ] && grep -q "text or binary, not 'csv'" "$tmp/err" || fail "bad --list-format: $status"

# Memory stays flat when listing: 4,000,000 configurations of 5 parameters to /dev/null
# take no more than 16 MiB over counting the same space (collecting them, as hetune space
# did before streaming, held 160 MB of values, and sorted them).
python3 - "$ex/conv1d/spec.json" "$tmp/flat.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["params"].update({"WG": {"values": [64]}, "A": {"range": [1, 200]}, "B": {"range": [1, 200]},
                    "C": {"range": [1, 100]}})
json.dump(s, open(sys.argv[2], "w"))
EOF
cp "$ex/conv1d/kernel.cl" "$tmp/kernel.cl"
python3 - "$HETUNE" "$tmp/flat.json" <<'EOF' || fail "listing memory is not flat"
import resource, subprocess, sys
def peak(*extra):
    # Each run is a fresh child; RUSAGE_CHILDREN keeps the largest peak so far, so the
    # count (the smaller) runs first.
    r = subprocess.run([sys.argv[1], "space", sys.argv[2], "-d", "0", *extra],
                       stdout=subprocess.DEVNULL if extra else subprocess.PIPE, check=True)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.stdout
count_kib, out = peak()
assert b" 4000000 " in out, out
list_kib, _ = peak("--list")
assert list_kib - count_kib <= 16 * 1024, (count_kib, list_kib)
EOF

# Two PoCL devices of one platform.
status=0
POCL_DEVICES="pthread basic" "$HETUNE" space "$ex/conv1d/spec.json" --json >"$tmp/out" 2>"$tmp/err" || status=$?
cp "$tmp/devices.json" "$tmp/devices1.json"
if [ "$status" -eq 0 ] && POCL_DEVICES="pthread basic" "$HETUNE" devices --json >"$tmp/devices.json" 2>/dev/null; then
    check_example conv1d product || fail "space with two PoCL devices is wrong"
fi
cp "$tmp/devices1.json" "$tmp/devices.json"

# Both solvers, when MiniZinc is installed.
if command -v minizinc >/dev/null 2>&1; then
    run space "$ex/matmul/spec.json" --solver both --json
    [ "$status" -eq 0 ] || fail "--solver both exited $status: $(cat "$tmp/err")"
    grep -q '"minizinc_seconds"' "$tmp/out" || fail "--solver both lacks minizinc_seconds"
    check_example matmul product || fail "--solver both counts are wrong"
    run space "$ex/conv1d/spec.json" --solver minizinc --json --list
    [ "$status" -eq 0 ] || fail "--solver minizinc exited $status: $(cat "$tmp/err")"
    check_example conv1d product || fail "--solver minizinc is wrong"
fi
# Without MiniZinc on PATH: a clear message, runtime failure.
status=0
PATH=/nonexistent "$HETUNE" space "$ex/conv1d/spec.json" --solver minizinc >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] || fail "minizinc missing: exit $status, want 1"
grep -q "minizinc not found" "$tmp/err" || fail "minizinc missing: $(cat "$tmp/err")"

# Specs made from the conv1d example with one field changed.
mkspec() { # $1 = name, $2 = python code changing dict s
    python3 - "$ex/conv1d/spec.json" "$tmp/$1.json" "$2" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(s, open(sys.argv[2], "w"), indent=1)
EOF
    cp "$ex/conv1d/kernel.cl" "$tmp/kernel.cl"
}

# An empty space is a normal answer that names the rule.
mkspec empty 's["constraints"] = ["WG > 0", "WG > 1000000000"]'
run space "$tmp/empty.json" --json
[ "$status" -eq 0 ] || fail "an empty space exited $status: $(cat "$tmp/err")"
python3 -c '
import json, sys
for e in json.load(open(sys.argv[1]))["devices"]:
    assert e["pruned"] == 0 and e["platform"] > 0
    assert e["last_constraint"] == "constraints[1]", e["last_constraint"]
    assert "WG > 1000000000" in e["empty_reason"], e["empty_reason"]
' "$tmp/out" || fail "the empty space is not explained: $(cat "$tmp/out")"
run space "$tmp/empty.json"
grep -q "empty: constraints\[1\]" "$tmp/out" || fail "text output lacks the reason"

# Bad input: exit status 2 and words of the message.
expect_bad() { # $1 = spec name, $2 = words
    run space "$tmp/$1.json"
    [ "$status" -eq 2 ] || fail "$1: exit $status, want 2 ($(cat "$tmp/err"))"
    grep -q -- "$2" "$tmp/err" || fail "$1: the message lacks '$2': $(cat "$tmp/err")"
}
mkspec unknown 's["constraints"] = ["WG % TZ == 0"]'
expect_bad unknown "unknown name 'TZ'"
mkspec reversed 's["params"]["WG"] = {"range": [64, 8]}'
expect_bad reversed "range"
mkspec reversed_dev 's["params"]["WG"] = {"range": [8, "max_work_item_size_0 - 1000000000000"]}'
expect_bad reversed_dev "params.WG.range: the range is empty on device 0: hi ("
mkspec step0 's["params"]["WG"] = {"range": [1, 64], "step": 0}'
expect_bad step0 "step"
mkspec step0_dev 's["params"]["WG"] = {"range": [1, 64], "step": "is_cpu * is_gpu"}'
expect_bad step0_dev "step must be positive"
mkspec fraction 's["params"]["WG"] = {"range": [1, 2.5]}'
expect_bad fraction "params.WG"
mkspec divzero 's["params"]["WG"] = {"range": [1, "max_work_item_size_0 / (compute_units - compute_units)"]}'
expect_bad divzero "division by zero"

# Sizes past 2^64 are exact (they printed as 18446744073709551615 once), past 2^128
# approximate and marked so: free parameters of 10^9 values each multiply the space.
mkspec big 'for p in "ABC": s["params"][p] = {"range": [1, 1000000000]}'
run space "$tmp/big.json" --json --device 0
[ "$status" -eq 0 ] || fail "space big: exit $status: $(cat "$tmp/err")"
python3 - "$tmp/out" <<'EOF' || fail "space big: $(cat "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
assert d["approximate"] is False and d["unpruned"] % 10**27 == 0 and d["unpruned"] > 2**64
assert d["platform"] % 10**27 == 0 and d["pruned"] % 10**27 == 0 and d["pruned"] > 0
EOF
run space "$tmp/big.json" --device 0
grep -q "000000000000000000000000000 " "$tmp/out" || fail "space big text: $(cat "$tmp/out")"
grep -q 18446744073709551615 "$tmp/out" && fail "space big text saturates: $(cat "$tmp/out")"
mkspec huge 'for p in "ABCDEF": s["params"][p] = {"range": [1, 1000000000]}'
run space "$tmp/huge.json" --json --device 0
python3 - "$tmp/out" <<'EOF' || fail "space huge: $(cat "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
assert d["approximate"] is True and d["unpruned"] > 2**128
EOF
run space "$tmp/huge.json" --device 0
grep -q "~[0-9.]*e+" "$tmp/out" || fail "space huge text lacks '~': $(cat "$tmp/out")"

run space
[ "$status" -eq 2 ] || fail "no SPEC: exit $status"
run space "$ex/matmul/spec.json" --solver gurobi
[ "$status" -eq 2 ] && grep -q "native, minizinc or both" "$tmp/err" || fail "bad --solver: $status"
run space "$ex/matmul/spec.json" --eq3 most
[ "$status" -eq 2 ] && grep -q "product, sum or off" "$tmp/err" || fail "bad --eq3: $status"
run space "$ex/matmul/spec.json" --device 999
[ "$status" -ne 0 ] || fail "--device 999 succeeded"
run space --help
[ "$status" -eq 0 ] && grep -q -- "--solver" "$tmp/out" || fail "--help"
echo "ok"
