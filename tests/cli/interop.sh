#!/usr/bin/env bash
# hetune import-kt and export (issue 15 item 4): a Kernel Tuner T1 file (a vecadd) becomes
# a spec that hetune space accepts and hetune tune tunes; T1 fields a spec cannot express
# exit 2 naming the field; export --format t4 after a tune holds what Kernel Tuner's T4
# results schema requires (checked by hand: see tests/fixtures/interop/README.md); export
# of an empty database exits 1 with a message; export --header compiles and holds the
# tuned values and the newest split's factors.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp interop
fix="$HETUNE_SOURCE_DIR/tests/fixtures/interop"

run import-kt --help
expect_status 0
run import-kt
expect_status 2

# Beside the T1 file the kernel path stays relative; elsewhere it becomes absolute.
cp "$fix/vecadd-t1.json" "$fix/vecadd.cl" "$tmp/"
run import-kt "$tmp/vecadd-t1.json" -o "$tmp/spec.json"
expect_status 0
expect_err "Search.Name 'Random'"
expect_err "no verification: a T1 file names no reference output"
! grep -v '^hetune import-kt: ' "$tmp/err" || fail "a note without the prefix: $(cat "$tmp/err")"
python3 - "$tmp/spec.json" <<'PY' || fail "imported spec: $(cat "$tmp/spec.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["kernel"] == {"file": "vecadd.cl", "name": "vadd", "options": "-cl-fast-relaxed-math"}
assert s["params"] == {"block_size_x": {"values": [8, 16, 32, 64, 128]}}
assert s["constraints"] == ["block_size_x >= 16 && !(block_size_x > 64)"]
assert s["ndrange"] == {"global": ["4096"], "local": ["block_size_x"]}
assert [(a["name"], a["type"], a.get("access"), a.get("init")) for a in s["args"]] == [
    ("c", "float", "write", "zero"), ("a", "float", "read", "random"),
    ("b", "float", "read", "random"), ("n", "int", None, None)]
PY
mkdir "$tmp/elsewhere"
run import-kt "$tmp/vecadd-t1.json" -o "$tmp/elsewhere/spec.json"
expect_status 0
grep -q "\"file\": \"$tmp/vecadd.cl\"" "$tmp/elsewhere/spec.json" || fail "kernel path not absolute"

# Python's chained comparisons keep their meaning (a < b <= c is a < b and b <= c), inside
# parentheses and beside and/or too; a single comparison stays as written.
python3 - "$fix/vecadd-t1.json" "$tmp/chain-t1.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["ConfigurationSpace"]["Conditions"] = [
    {"Expression": "16 <= block_size_x <= 64", "Parameters": ["block_size_x"]},
    {"Expression": "block_size_x > 8 and (8 < block_size_x * 2 < 256 or block_size_x == 128)",
     "Parameters": ["block_size_x"]}]
json.dump(t, open(sys.argv[2], "w"))
PY
cp "$fix/vecadd.cl" "$tmp/"
run import-kt "$tmp/chain-t1.json" -o "$tmp/chain.json"
expect_status 0
python3 - "$tmp/chain.json" <<'PY' || fail "chained comparisons: $(cat "$tmp/chain.json")"
import json, sys
c = json.load(open(sys.argv[1]))["constraints"]
assert c == ["(16 <= block_size_x && block_size_x <= 64)",
             "block_size_x > 8 && ((8 < block_size_x * 2 && block_size_x * 2 < 256) || block_size_x == 128)"], c
PY
run space "$tmp/chain.json" --json
expect_status 0
check 'all(x["pruned"] == 3 for x in d["devices"])'

# Python's true division keeps its meaning (issue 28 item 3): 96 / 64 > 1 holds, where C's
# 96 / 64 is 1; so do its // and %, which floor where C's truncate (-7 // 2 is -4). A quotient compared with a value becomes an exact integer comparison; the
# configurations hetune lists are those of the same space without the condition that
# Python's own evaluation of it keeps; a quotient inside other arithmetic is refused.
divspace() { # $1: the condition, $2: the T1 file to write
    python3 - "$fix/vecadd-t1.json" "$2" "$1" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["ConfigurationSpace"]["TuningParameters"] = [
    {"Name": "block_size_x", "Type": "int", "Values": "[32, 64, 96, 128, 160, 192, 224, 256]"},
    {"Name": "t", "Type": "int", "Values": "[-2, -1, 0, 1, 2, 3, 4]"}]
t["KernelSpecification"]["GlobalSize"] = {"X": "26880"}  # a multiple of every block size
t["ConfigurationSpace"]["Conditions"] = [
    {"Expression": sys.argv[3], "Parameters": ["block_size_x", "t"]}] if sys.argv[3] else []
json.dump(t, open(sys.argv[2], "w"))
PY
}
divspace "" "$tmp/div0-t1.json"
run import-kt "$tmp/div0-t1.json" -o "$tmp/div0.json"
expect_status 0
run space "$tmp/div0.json" --device 0 --list
expect_status 0
cp "$tmp/out" "$tmp/div0.list"
for cond in "block_size_x / 64 > 1" "1 < block_size_x / 64" "block_size_x * t / 64 >= 3"             "32 <= block_size_x / t <= 100" "block_size_x / -t < -50"             "block_size_x / (t - 1) != 64 and (block_size_x / 32) == 3" \
             "ceil(block_size_x / 64) == 2" "floor(block_size_x / t) >= 40" \
             "ceil(block_size_x / -t) < -40 or floor(t / 3) == 0" "int(block_size_x / t) < 50" \
             "min(block_size_x, t * 50, 150) >= 100" "max(block_size_x // 32, t, 2) == 4" \
             "floor(block_size_x * t / 64) > 2 and ceil(t) != 3" \
             "block_size_x // t > 40" "t % 3 == 1" "block_size_x % 64 == 0" \
             "(block_size_x // 32) % t == 0 or t // -2 == 1" "block_size_x * t // 64 % 3 == 2" \
             "-t // 2 < 0 and block_size_x % (t + 3) != 1"; do
    divspace "$cond" "$tmp/div-t1.json"
    run import-kt "$tmp/div-t1.json" -o "$tmp/div.json"
    expect_status 0
    run space "$tmp/div.json" --device 0 --list
    expect_status 0
    python3 - "$tmp/div0.list" "$tmp/out" "$cond" <<'PY' || fail "true division: $cond: $(grep -o '"constraints".*' "$tmp/div.json")"
import re, sys
def configs(path):
    out, names = set(), None
    for line in open(path):
        f = line.split()
        if f == ["block_size_x", "t"]:
            names = f
        elif names and len(f) == 2 and all(re.fullmatch(r"-?\d+", x) for x in f):
            out.add((int(f[0]), int(f[1])))
    return out
every, got = configs(sys.argv[1]), configs(sys.argv[2])
assert len({b for b, _ in every}) == 8, sorted(every)
from math import ceil, floor
def keeps(b, t):
    try:
        return bool(eval(sys.argv[3], {"block_size_x": b, "t": t, "ceil": ceil, "floor": floor}))
    except ZeroDivisionError:
        return False
want = {c for c in every if keeps(*c)}
assert got == want, (sorted(got ^ want), len(got), len(want))
PY
done
for cond in "block_size_x / 64 * t > 1" "block_size_x / 64 + 1 > 2" "block_size_x / 64" \
            "ceil(block_size_x / t / 2) > 3" "floor(block_size_x / t + 1) > 3"; do
    divspace "$cond" "$tmp/div-t1.json"
    run import-kt "$tmp/div-t1.json"
    expect_status 2
    case $cond in
    ceil* | floor*) expect_err "in '$cond' has no exact form" ;;
    *) expect_err "Python's true division" ;;
    esac
done

# Values are Python lists as Kernel Tuner evaluates them (issue 28 item 3): comprehensions
# over range with if clauses, ** // % and true division, ceil floor min max, conditional
# expressions. Each imports as the list Python gives, and the space counts what
# itertools.product of Python's lists keeps under Python's own condition (the platform
# rules prune nothing here: 26880 is a multiple of every block size, eq3 is off).
valspace() { # $1 block_size_x's Values, $2 t's Values, $3 the condition, $4 the T1 file
    python3 - "$fix/vecadd-t1.json" "$4" "$1" "$2" "$3" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["ConfigurationSpace"]["TuningParameters"] = [
    {"Name": "block_size_x", "Type": "int", "Values": sys.argv[3]},
    {"Name": "t", "Type": "int", "Values": sys.argv[4]}]
t["KernelSpecification"]["GlobalSize"] = {"X": "26880"}
t["ConfigurationSpace"]["Conditions"] = [
    {"Expression": sys.argv[5], "Parameters": ["block_size_x", "t"]}] if sys.argv[5] else []
json.dump(t, open(sys.argv[2], "w"))
PY
}
while IFS='|' read -r bx tv cond; do
    valspace "$bx" "$tv" "$cond" "$tmp/val-t1.json"
    run import-kt "$tmp/val-t1.json" -o "$tmp/val.json"
    expect_status 0
    run space "$tmp/val.json" --device 0 --eq3 off --json
    expect_status 0
    python3 - "$tmp/val.json" "$tmp/out" "$bx" "$tv" "$cond" <<'PY' || fail "Values: $bx | $tv | $cond: $(grep -o '"params".*' "$tmp/val.json")"
import itertools, json, sys
from math import ceil, floor
g = {"ceil": ceil, "floor": floor}
spec, space = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bx, tv = eval(sys.argv[3], g), eval(sys.argv[4], g)
assert spec["params"]["block_size_x"]["values"] == bx, (spec["params"], bx)
assert spec["params"]["t"]["values"] == tv, (spec["params"], tv)
def keeps(b, t):
    try:
        return not sys.argv[5] or bool(eval(sys.argv[5], dict(g, block_size_x=b, t=t)))
    except ZeroDivisionError:
        return False
want = sum(keeps(b, t) for b, t in itertools.product(bx, tv))
d = space["devices"][0]
assert d["unpruned"] == len(bx) * len(tv), (d, len(bx), len(tv))
assert d["pruned"] == want, (d["pruned"], want)
PY
done <<'CASES'
[2**i for i in range(1, 9)]|[i for i in range(0, 10) if i % 3 != 1]|block_size_x / t >= 8
[i for i in range(32, 1025, 32) if i % 64 == 0 and 26880 % i == 0]|list(range(-3, 4))|ceil(block_size_x / 64) > t
[16 * ceil(i / 3) for i in range(3, 24, 3)]|[x if x % 2 else -x for x in range(6)]|min(block_size_x, 64, t * 32) == 64
[max(8, 2 ** i) for i in range(3, 9)]|[7 // -2, -7 % 3, 2 ** 3, int(-7 / 2) * 2, floor(9 / 2)]|floor(block_size_x / t) % 2 == 0
[i * j for i in range(1, 5) for j in range(i, 5) if i != j]|[1, 2,]|
CASES

# What Python computes but hetune cannot hold: refused naming the expression.
for v in "[i / 2 for i in range(4)]" "[1, 2, 1]" "[i for i in [1, 2]]" "[True, 2]" \
         "[f(1)]" "[1.5]"; do
    valspace "$v" "[1]" "" "$tmp/val-t1.json"
    run import-kt "$tmp/val-t1.json"
    expect_status 2
    expect_err "ConfigurationSpace.TuningParameters[0].Values: '$v'"
done

# A Kernel Tuner script is not a T1 file: said so, exit 2.
printf 'import numpy\nfrom kernel_tuner import tune_kernel\n' >"$tmp/script.py"
run import-kt "$tmp/script.py"
expect_status 2
expect_err "a Python script, not a T1 file"

# Fields a spec cannot express: exit 2 naming the field.
bad() { # $1: a Python statement changing t (the T1 object); $2: the field named
    python3 - "$fix/vecadd-t1.json" "$tmp/bad.json" "$1" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ks = t["KernelSpecification"]; tp = t["ConfigurationSpace"]["TuningParameters"]
exec(sys.argv[3])
json.dump(t, open(sys.argv[2], "w"))
PY
    run import-kt "$tmp/bad.json"
    expect_status 2
    expect_err "$2"
}
bad 'ks["Language"] = "Vulkan"' "KernelSpecification.Language"
bad 'tp[0]["Type"] = "float"' "ConfigurationSpace.TuningParameters[0].Type"
bad 'tp[0]["Values"] = "range(1, 9)"' "ConfigurationSpace.TuningParameters[0].Values"
bad 'ks["SharedMemory"] = 1024' "KernelSpecification.SharedMemory"
bad 'ks["ReferenceArguments"] = []' "KernelSpecification.ReferenceArguments"
bad 'ks["Arguments"][1]["FillType"] = "Generator"' "KernelSpecification.Arguments[1].FillType"
bad 'ks["Arguments"][0]["MemoryType"] = "Local"' "KernelSpecification.Arguments[0].MemoryType"
bad 'ks["Arguments"][2]["Type"] = "half"' "KernelSpecification.Arguments[2].Type"
bad 'ks["Arguments"][2]["RandomSeed"] = 7' "KernelSpecification.Arguments[2].RandomSeed"
# A scalar's FillValue past long long's range is no integer (issue 29 item 10: casting it was
# undefined behaviour, seen by -fsanitize=float-cast-overflow in the sanitized build).
bad 'ks["Arguments"][3]["FillValue"] = 1e308' "KernelSpecification.Arguments[3].FillValue"
bad 't["ConfigurationSpace"]["Conditions"][0]["Expression"] = "block_size_x ** 2 < 9"' \
    "ConfigurationSpace.Conditions[0].Expression"
bad 't["ConfigurationSpace"]["Conditions"][0]["Expression"] = "nosuch > 1"' "unknown name 'nosuch'"
bad 'ks["Unheard"] = 1' "KernelSpecification.Unheard"
printf '{ "KernelSpecification": ' >"$tmp/bad.json"
run import-kt "$tmp/bad.json"
expect_status 2

# Export refuses what it cannot read or what holds nothing.
run export --format t4 --db "$tmp/none.db"
expect_status 2
: >"$tmp/empty.db"
run export --format t4 --db "$tmp/empty.db"
expect_status 1
expect_err "nothing to export"

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")
run space "$tmp/spec.json" --device "$dev" --db "$tmp/r.db"
expect_status 0
run export --format t4 --db "$tmp/r.db"
expect_status 1
expect_err "holds no evaluation"
run tune "$tmp/spec.json" --device "$dev" --db "$tmp/r.db"
expect_status 0
grep -q 'verified     no: the spec has no "verify"' "$tmp/out" ||
    fail "tune of an imported spec does not say its results are unchecked: $(cat "$tmp/out")"

# T4: what the published results schema (T4 1.0.0) requires, checked by hand.
run export --format t4 --db "$tmp/r.db" -o "$tmp/t4.json"
expect_status 0
python3 - "$tmp/t4.json" <<'PY' || fail "T4 check: $(cat "$tmp/t4.json")"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, dict) and re.match(r"^[0-9]{1,}.[0-9]{1,}.[0-9]{1,}$", d["schema_version"])
num = lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)
assert isinstance(d["results"], list) and len(d["results"]) == 3
for r in d["results"]:
    for k in ("configuration", "times", "invalidity", "correctness"):
        assert k in r, k
    assert isinstance(r["timestamp"], str) and isinstance(r["configuration"], dict)
    assert isinstance(r["objectives"], list) and isinstance(r["times"], dict)
    t = r["times"]
    assert isinstance(t["runtimes"], list) and len(t["runtimes"]) >= 1
    for k in ("compilation_time", "framework", "search_algorithm", "validation"):
        assert k not in t or num(t[k]), k
    assert r["invalidity"] in ("timeout", "compile", "runtime", "correctness", "constraints",
                               "correct")
    assert num(r["correctness"])
    for m in r.get("measurements", []):
        assert isinstance(m["name"], str) and num(m["value"]) and isinstance(m["unit"], str)
assert sorted(r["configuration"]["block_size_x"] for r in d["results"]) == [16, 32, 64]
assert all(r["invalidity"] == "correct" for r in d["results"])
PY
run export --format t4 --db "$tmp/r.db" --spec nosuch
expect_status 1
run export --db "$tmp/r.db"
expect_status 2
# Bad and conflicting choices name the option and the value; -o is the T4 JSON's file only
# (it was ignored beside --header).
run export --format t5 --db "$tmp/r.db"
expect_status 2
expect_err "--format takes t4, not 't5'"
run export --format t4 --header "$tmp/x.h" --db "$tmp/r.db"
expect_status 2
expect_err "--format and --header do not go together"
run export --header "$tmp/x.h" -o "$tmp/x.json" --db "$tmp/r.db"
expect_status 2
expect_err "--out goes with --format t4"
[ ! -e "$tmp/x.h" ] && [ ! -e "$tmp/x.json" ] || fail "a refused export wrote a file"

# Header: the tuned value of each device, and the factors of the newest split. The split
# finds each device tuned, at 4 configurations of each (seeded: the same in both passes of
# make test): tuning them first, exhaustively, took 17.4 s of the split's 17.8 s at a
# load of 5, and the header takes what was tuned.
POCL_DEVICES="pthread basic" run tune "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" \
    --size N=65536 --device all --strategy random --budget 4 --seed 0 --db "$tmp/r.db"
expect_status 0
POCL_DEVICES="pthread basic" "$HETUNE" split "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" \
    --size N=65536 --device all --force --db "$tmp/r.db" >"$tmp/split.out" 2>&1 ||
    fail "split: $(cat "$tmp/split.out")"
! grep -q "tuning it first" "$tmp/split.out" || fail "split tuned again: $(cat "$tmp/split.out")"
run export --header "$tmp/tuned.h" --db "$tmp/r.db"
expect_status 0
cc -fsyntax-only -x c "$tmp/tuned.h" || fail "header does not compile: $(cat "$tmp/tuned.h")"
python3 - "$tmp/tuned.h" "$tmp/r.db" <<'PY' || fail "header check: $(cat "$tmp/tuned.h")"
import re, sqlite3, sys
h = open(sys.argv[1]).read()
db = sqlite3.connect(sys.argv[2])
best = db.execute("""SELECT config FROM evaluations e JOIN problems p ON p.id = e.problem_id
    JOIN kernels k ON k.id = p.kernel_id WHERE k.kernel_name = 'vadd' AND status = 'ok'
    ORDER BY seconds LIMIT 1""").fetchone()[0]
v = re.search(r"#define HETUNE_VADD_\w+_BLOCK_SIZE_X (\d+)", h)
assert v and best == "block_size_x=" + v.group(1), (best, v)
assert re.search(r"#define HETUNE_ADDVEC_\w+_WG \d+", h)
f = [float(x) for x in re.findall(r"#define HETUNE_ADDVEC_SPLIT_\w+_FACTOR ([0-9.]+)", h)]
assert len(f) == 2 and abs(sum(f) - 1) < 1e-3, f
PY

# A newer dynamic split has no fixed slices: the header keeps the static one's and says so;
# a newer problem of the same kernel is the header's, and the older one is named (stderr
# too) and picked by --size (issue 28 item 4).
POCL_DEVICES="pthread basic" "$HETUNE" split "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" \
    --size N=65536 --device all --force --scheduler dynamic --db "$tmp/r.db" >"$tmp/split.out" 2>&1 ||
    fail "dynamic split: $(cat "$tmp/split.out")"
run export --header "$tmp/tuned.h" --db "$tmp/r.db"
expect_status 0
grep -q "the newest split with fixed slices (static).*newer ones hand out chunks" "$tmp/tuned.h" ||
    fail "header after a dynamic split: $(cat "$tmp/tuned.h")"
# The slices cover the split's range: the plan hands whole work-groups, so where the
# residue goes to one device two slices may overlap (seen: [0, 54784) and [54272, 65536) of
# 65536); they never leave a gap or run past it.
python3 - "$tmp/tuned.h" <<'PY' || fail "the header's slices do not cover the split: $(cat "$tmp/tuned.h")"
import re, sys
h = open(sys.argv[1]).read()
g = int(re.search(r"#define HETUNE_ADDVEC_SPLIT_GLOBAL (\d+)", h).group(1))
off = dict(re.findall(r"#define HETUNE_ADDVEC_SPLIT_(\w+)_OFFSET (\d+)", h))
size = dict(re.findall(r"#define HETUNE_ADDVEC_SPLIT_(\w+)_SIZE (\d+)", h))
assert len(off) == 2 and off.keys() == size.keys(), (off, size)
# A device the plan gave nothing has an empty slice (seen under ASan: factor 0, size 0).
s = sorted((int(off[d]), int(off[d]) + int(size[d])) for d in off if int(size[d]) > 0)
assert s and s[0][0] == 0 and s[-1][1] == g, (s, g)
assert all(lo < hi <= g for lo, hi in s), s
assert all(s[i + 1][0] <= s[i][1] for i in range(len(s) - 1)), s
PY
"$HETUNE" tune "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" --size N=8192 --device "$dev" \
    --budget 2 --db "$tmp/r.db" -q >/dev/null 2>&1 || fail "tune at N=8192"
run export --header "$tmp/tuned.h" --db "$tmp/r.db"
expect_status 0
expect_err "left out: kernel addvec at N=65536"
grep -q "kernel addvec of spec vecadd at N=8192" "$tmp/tuned.h" || fail "newest problem: $(cat "$tmp/tuned.h")"
run export --header "$tmp/tuned.h" --db "$tmp/r.db" --size N=65536
expect_status 0
grep -q "kernel addvec of spec vecadd at N=65536" "$tmp/tuned.h" &&
    grep -q "HETUNE_ADDVEC_SPLIT_SCHEDULER" "$tmp/tuned.h" || fail "--size N=65536: $(cat "$tmp/tuned.h")"
run export --header "$tmp/tuned.h" --db "$tmp/r.db" --size N=3
expect_status 1

# Nothing stored can put lines of its own into the header (issue 29 item 4): a spec name
# that closes the comment and includes a file stays inside the comment.
python3 - "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" "$tmp/evil.json" <<'PY'
import json, os, sys
s = json.load(open(sys.argv[1]))
s["name"] = 'x */\n#include "/etc/passwd"\n/* "\\'
s["kernel"]["file"] = os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), s["kernel"]["file"])
json.dump(s, open(sys.argv[2], "w"))
PY
"$HETUNE" tune "$tmp/evil.json" --size N=4096 --device "$dev" --budget 1 --db "$tmp/evil.db" -q \
    >/dev/null 2>&1 || fail "tune of the spec with a hostile name"
run export --header "$tmp/evil.h" --db "$tmp/evil.db"
expect_status 0
! grep -q '^#include' "$tmp/evil.h" || fail "the spec's name put an #include into the header: $(cat "$tmp/evil.h")"
cc -fsyntax-only -x c "$tmp/evil.h" || fail "header of the hostile name does not compile: $(cat "$tmp/evil.h")"
echo "interop: ok"
