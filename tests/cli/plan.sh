#!/usr/bin/env bash
# hetune plan: the paper's worked example (512 work-items split 0.4/0.6) in JSON and text,
# overlapping work-group sizes, --names and --factors, a cross-check of a few hundred
# random plans against a reimplementation in exact rational arithmetic, and bad input
# (exit status 2, the message naming the option). Needs no OpenCL device.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp plan

# The paper's example: t = 1.5 s and 1 s give S = 0.4 and 0.6; work-groups of 64:
# 3 and 4 whole groups, R = 64, device 1 (finishing first) takes one more.
run plan --global 512 --wg 64,64 --times 1.5,1.0 --json
[ "$status" -eq 0 ] || fail "plan --json exited $status: $(cat "$tmp/err")"
python3 - "$tmp/out" <<'EOF' || fail "the paper's example is wrong: $(cat "$tmp/out")"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["global"] == 512
d = p["devices"]
assert [e["index"] for e in d] == [0, 1]
for e in d:
    for key in ("index", "wg", "time", "optimal_factor", "adjusted_factor", "offset", "size",
                "groups", "own_offset", "own_size"):
        assert key in e, key
    assert "name" not in e
assert abs(d[0]["optimal_factor"] - 0.4) < 1e-15 and abs(d[1]["optimal_factor"] - 0.6) < 1e-15
assert d[0]["time"] == 1.5 and d[1]["time"] == 1.0 and d[0]["wg"] == 64
assert (d[0]["offset"], d[0]["size"], d[0]["groups"]) == (0, 192, 3), d[0]
assert (d[1]["offset"], d[1]["size"], d[1]["groups"]) == (192, 320, 5), d[1]
assert (d[1]["own_offset"], d[1]["own_size"]) == (192, 320)
assert d[0]["adjusted_factor"] == 0.375 and d[1]["adjusted_factor"] == 0.625
assert p["residue_device"] == 1 and p["residue"] == 64 and p["overlap"] == 0
assert abs(p["theoretical_time"] - 0.6) < 1e-15
EOF

# Work-group sizes 64 and 28 over 1000: device 1 takes the residue and overlaps device 0
# by 8 work-items; it owns only [448, 1000).
run plan -g 1000 -w 64,28 -t 1,1 --names cpu,gpu --json
[ "$status" -eq 0 ] || fail "overlap case exited $status: $(cat "$tmp/err")"
python3 - "$tmp/out" <<'EOF' || fail "the overlap case is wrong: $(cat "$tmp/out")"
import json, sys
p = json.load(open(sys.argv[1]))
d = p["devices"]
assert [e["name"] for e in d] == ["cpu", "gpu"]
assert (d[0]["offset"], d[0]["size"]) == (0, 448)
assert (d[1]["offset"], d[1]["size"], d[1]["groups"]) == (440, 560, 20)
assert (d[1]["own_offset"], d[1]["own_size"]) == (448, 552)
assert p["residue_device"] == 1 and p["overlap"] == 8 and p["overhang"] == 0
assert abs(sum(e["adjusted_factor"] for e in d) - 1) < 1e-15
EOF

# No residue: the residue device is null.
run plan --global 1024 --wg 32,64 --times 1,1 --json
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
assert p["residue_device"] is None and p["residue"] == 0 and p["overlap"] == 0
assert [(e["offset"], e["size"]) for e in p["devices"]] == [(0, 512), (512, 512)]
' "$tmp/out" || fail "the plan without residue is wrong: $(cat "$tmp/out")"

# --factors: device 0 gets nothing at factor 0.
run plan --global 512 --wg 16,16 --times 1,1 --factors 0,2 --json
[ "$status" -eq 0 ] || fail "--factors exited $status: $(cat "$tmp/err")"
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
d = p["devices"]
assert d[0]["size"] == 0 and d[0]["optimal_factor"] == 0 and d[1]["size"] == 512
assert p["theoretical_time"] == 1
' "$tmp/out" || fail "--factors is wrong: $(cat "$tmp/out")"

# Text: the table, the residue device by name, overlap and the theoretical time.
run plan --global 512 --wg 16,64 --times 1.5,1 --names cpu,gpu
[ "$status" -eq 0 ] || fail "text exited $status: $(cat "$tmp/err")"
for words in "optimal" "adjusted" "owns" "cpu" "\[192, 512)" "to device gpu" \
    "overlap: 0 work-items" "theoretical time (Algorithm 1): 0.6 s"; do
    grep -q -- "$words" "$tmp/out" || fail "the text lacks '$words': $(cat "$tmp/out")"
done
run plan --global 100 --wg 64,64 --times 1,1
grep -q "overhang: 28" "$tmp/out" || fail "the text lacks the overhang: $(cat "$tmp/out")"
grep -q "(no slice)" "$tmp/out" || fail "the text lacks '(no slice)': $(cat "$tmp/out")"

# Random plans against a reimplementation: the factors, γ and the floors in exact
# rational arithmetic (times of few digits keep γ far from integers it is not), ties
# compared in doubles as the planner does.
python3 - "$HETUNE" <<'EOF' || fail "random plans disagree with the reimplementation"
import json, random, subprocess, sys
from fractions import Fraction as F

def ceil_div(a, b):
    return -(-a // b)

def plan(G, wg, t):
    n = len(wg)
    speed = [1 / F(x) for x in t]
    S = [s / sum(speed) for s in speed]
    base = [(G * S[i] / wg[i]).__floor__() for i in range(n)]
    R = G - sum(w * b for w, b in zip(wg, base))
    extra = [0] * n
    k = None
    def pick(need, fit):
        best = None
        for i in range(n):
            work = wg[i] * ceil_div(need, wg[i])
            total = (wg[i] * base[i] if fit else 0) + work
            if fit and total > G:
                continue
            finish = float(t[i]) * (total / G)
            if best is None or (work, finish) < best[:2]:
                best = (work, finish, i)
        return None if best is None else best[2]
    if R:
        k = pick(R, True)
        if k is None:
            k = pick(G, False)
            base = [0] * n
            R = G
            extra[k] = ceil_div(G, wg[k])
        else:
            extra[k] = ceil_div(R, wg[k])
    size = [wg[i] * (base[i] + extra[i]) for i in range(n)]
    offset, own = [0] * n, [(0, 0)] * n
    pos = 0
    for i in range(n):
        if i != k and size[i]:
            offset[i], own[i] = pos, (pos, size[i])
            pos += size[i]
    if k is not None:
        offset[k] = G - size[k] if size[k] <= G else 0
        own[k] = (pos, G - pos)
    return S, size, offset, own, k, R, sum(size) - G

rng = random.Random(5)
for case in range(300):
    n = rng.randint(1, 5)
    G = rng.choice([rng.randint(1, 4096), rng.randint(1, 1 << 20), 1024 * rng.randint(1, 64)])
    wg = [rng.choice([rng.randint(1, 1024), 2 ** rng.randint(0, 10)]) for _ in range(n)]
    t = [rng.choice(["1", "2", "3", "1.5", "0.25", "4", "7", "0.1", "12", "2.5", "0.3"])
         for _ in range(n)]
    cmd = [sys.argv[1], "plan", "--global", str(G), "--wg", ",".join(map(str, wg)),
           "--times", ",".join(t), "--json"]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    S, size, offset, own, k, R, overlap = plan(G, wg, t)
    d = out["devices"]
    got = ([e["size"] for e in d], [e["offset"] for e in d],
           [(e["own_offset"], e["own_size"]) for e in d], out["residue_device"],
           out["residue"], out["overlap"])
    want = (size, offset, own, k, R, overlap)
    if got != want:
        print("case", case, " ".join(cmd), "\n got ", got, "\n want", want, file=sys.stderr)
        sys.exit(1)
    for e, s in zip(d, S):
        assert abs(e["optimal_factor"] - float(s)) < 1e-15, (e, s)
    theo = max(float(s) * float(x) for s, x in zip(S, t))
    assert abs(out["theoretical_time"] - theo) <= 1e-15 * theo, (out, theo)
EOF

# Bad input: exit status 2, the message naming the option.
expect_bad() { # $1 = words of the message, then the arguments
    local words=$1
    shift
    run plan "$@"
    [ "$status" -eq 2 ] || fail "plan $*: exit $status, want 2 ($(cat "$tmp/err"))"
    grep -q -- "$words" "$tmp/err" || fail "plan $*: the message lacks '$words': $(cat "$tmp/err")"
}
expect_bad "--global, --wg and --times are all needed" --wg 64 --times 1
expect_bad "--global, --wg and --times are all needed" --global 64 --times 1
expect_bad "--global, --wg and --times are all needed" --global 64 --wg 1
expect_bad "--global x" --global x --wg 64 --times 1
expect_bad "--global 0" --global 0 --wg 64 --times 1
expect_bad "--global -5" --global -5 --wg 64 --times 1
expect_bad "--global 9007199254740993" --global 9007199254740993 --wg 64 --times 1
expect_bad "--global 12abc" --global 12abc --wg 64 --times 1
expect_bad "--wg: entry 2 '0'" --global 512 --wg 64,0 --times 1,1
expect_bad "--wg: entry 1 '-64'" --global 512 --wg -64,64 --times 1,1
expect_bad "--wg: entry 2 ''" --global 512 --wg 64, --times 1,1
expect_bad "--wg: entry 1 '6.4'" --global 512 --wg 6.4 --times 1
expect_bad "--times: entry 2 '0'" --global 512 --wg 64,64 --times 1,0
expect_bad "--times: entry 1 '-1'" --global 512 --wg 64 --times -1
expect_bad "--times: entry 1 'nan'" --global 512 --wg 64 --times nan
expect_bad "--times: entry 1 'inf'" --global 512 --wg 64 --times inf
expect_bad "--times: entry 1 '1s'" --global 512 --wg 64 --times 1s
expect_bad "--wg has 2, --times 3" --global 512 --wg 64,64 --times 1,1,1
expect_bad "--names 1" --global 512 --wg 64,64 --times 1,1 --names cpu
expect_bad "--factors 3" --global 512 --wg 64,64 --times 1,1 --factors 1,1,1
expect_bad "--factors: entry 2 '-1'" --global 512 --wg 64,64 --times 1,1 --factors 1,-1
expect_bad "--factors: want at least one positive" --global 512 --wg 64,64 --times 1,1 --factors 0,0
expect_bad "unknown option '--bogus'" --global 512 --wg 64 --times 1 --bogus
expect_bad "--global needs a value" --wg 64 --times 1 --global
expect_bad "unexpected argument 'extra'" --global 512 --wg 64 --times 1 extra

run plan --help
[ "$status" -eq 0 ] || fail "--help exited $status"
for opt in --global --wg --times --factors --names --json; do
    grep -q -- "$opt" "$tmp/out" || fail "--help lacks $opt"
done
run --help
grep -q "plan" "$tmp/out" || fail "hetune --help does not list plan"
echo "ok"
