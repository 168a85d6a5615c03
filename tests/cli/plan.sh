#!/usr/bin/env bash
# hetune plan: the paper's worked example (512 work-items split 0.4/0.6) in JSON and text,
# overlapping work-group sizes, --names and --factors, a cross-check of a few hundred
# random plans against a reimplementation in exact rational arithmetic, the bus (--xfer,
# --fixed, --overlap, --pieces, --margin: busy times, the transfer-aware bound against a
# sweep, the decision), and bad input (exit status 2, the message naming the option).
# Needs no OpenCL device.
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

# The bus. Without its options the JSON has none of its fields (the output is the paper's).
run plan --global 512 --wg 64,64 --times 1.5,1.0 --json
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
for key in ("bus_bound_s", "decision", "kernel_theoretical_time"):
    assert key not in p, key
assert "busy_s" not in p["devices"][0]
' "$tmp/out" || fail "the plan without the bus has bus fields: $(cat "$tmp/out")"

# No transfers: the bus changes nothing, the bound is Algorithm 1's time (Eq. 4's 0.4/0.6).
run plan --global 512 --wg 64,64 --times 1.5,1.0 --xfer 0,0 --json
[ "$status" -eq 0 ] || fail "plan --xfer 0,0 exited $status: $(cat "$tmp/err")"
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
d = p["devices"]
assert abs(d[0]["bound_share"] - 0.4) < 1e-15 and abs(d[1]["bound_share"] - 0.6) < 1e-15
assert p["bus_bound_s"] == p["theoretical_time"] == p["kernel_theoretical_time"]
assert abs(p["bus_bound_s"] - 0.6) < 1e-15
assert [(e["offset"], e["size"]) for e in d] == [(0, 192), (192, 320)]
assert d[0]["busy_s"] == 1.5 * 192 / 512 and d[1]["busy_s"] == 320 / 512
assert p["decision"]["choice"] == "split" and p["decision"]["device"] == 1
' "$tmp/out" || fail "the bus without transfers is wrong: $(cat "$tmp/out")"

# A GPU 4x faster in its kernels with 3 s of transfers, no overlap: busy 4 s alone, as
# slow as the CPU in place: half each (Algorithm 1 on the kernels alone says 0.8 s).
run plan -g 65536 -w 64,256 -t 4,1 --xfer 0,3 --names cpu,gpu --json
[ "$status" -eq 0 ] || fail "plan --xfer exited $status: $(cat "$tmp/err")"
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
d = p["devices"]
assert [e["busy_alone_s"] for e in d] == [4, 4] and [e["time"] for e in d] == [4, 4]
assert [e["kernel_time"] for e in d] == [4, 1] and [e["xfer"] for e in d] == [0, 3]
assert [e["size"] for e in d] == [32768, 32768]
assert [e["bound_share"] for e in d] == [0.5, 0.5]
assert p["bus_bound_s"] == 2 and p["model_time"] == 2
assert abs(p["theoretical_time"] - 0.8) < 1e-15
assert p["kernel_theoretical_time"] == p["theoretical_time"]
dec = p["decision"]
assert dec == {"choice": "split", "device": 0, "alone_s": 4, "split_s": 2, "speedup": 2,
               "margin": 0.1}, dec
' "$tmp/out" || fail "the GPU with transfers is wrong: $(cat "$tmp/out")"

# Overlapped in 16 pieces: busy 3/16 + S*3; the CPU takes less (7/16).
run plan -g 65536 -w 64,256 -t 4,1 --xfer 0,3 --overlap 0,1 --pieces 0,16 --json
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
d = p["devices"]
assert d[1]["overhead"] == 1 / 16 and d[1]["time"] == 1 / 16 + 3, d[1]
assert abs(d[0]["bound_share"] - 7 / 16) < 1e-15
assert [e["size"] for e in d] == [28672, 36864]
assert d[0]["busy_s"] == 1.75 and d[1]["busy_s"] == 1.75
assert abs(p["bus_bound_s"] - 1.75) < 1e-15
assert p["decision"]["choice"] == "split" and p["decision"]["device"] == 1
' "$tmp/out" || fail "overlap is wrong: $(cat "$tmp/out")"

# A fixed cost (whole inputs) beyond the CPU's whole time: the GPU gets nothing, the
# decision is the CPU alone; and a split that does not clear --margin: alone too.
run plan -g 4096 -w 64,64 -t 1,0.01 --fixed 0,1.5 --names cpu,gpu --json
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
d = p["devices"]
assert d[1]["bound_share"] == 0 and d[1]["size"] == 0 and d[1]["busy_s"] == 0
assert p["bus_bound_s"] == 1 and d[0]["size"] == 4096
dec = p["decision"]
assert dec["choice"] == "alone" and dec["device"] == 0 and dec["speedup"] == 1, dec
' "$tmp/out" || fail "the fixed cost case is wrong: $(cat "$tmp/out")"
run plan -g 4096 -w 64,64 -t 1,1.2 --margin 0.9 --json
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
dec = p["decision"]
assert dec["choice"] == "alone" and dec["margin"] == 0.9 and 1.8 < dec["speedup"] < 1.9, dec
' "$tmp/out" || fail "--margin is wrong: $(cat "$tmp/out")"

# Text: the bus table, the bound beside Algorithm 1's, the decision.
run plan -g 65536 -w 64,256 -t 4,1 --xfer 0,3 --names cpu,gpu
[ "$status" -eq 0 ] || fail "bus text exited $status: $(cat "$tmp/err")"
for words in "theoretical time (Algorithm 1): 0.8 s (kernels only)" "the bus:" "xfer (s)" \
    "transfer-aware bound:           2 s" "fastest alone:                  4 s (cpu)" \
    "decision: split (the plan by the model is 2.000x the fastest alone, at least 1.100x)"; do
    grep -qF -- "$words" "$tmp/out" || fail "the bus text lacks '$words': $(cat "$tmp/out")"
done
run plan -g 4096 -w 64,64 -t 1,0.01 --fixed 0,1.5 --names cpu,gpu
grep -qF "decision: alone on cpu (the plan by the model is 1.000x" "$tmp/out" ||
    fail "the alone text is wrong: $(cat "$tmp/out")"
run plan -g 64 -w 64 -t 1 --xfer 1
grep -qF "decision: alone on 0 (one device: nothing to split)" "$tmp/out" ||
    fail "the one-device text is wrong: $(cat "$tmp/out")"

# Random bus cases: the bound against a fine sweep of the two devices' shares.
python3 - "$HETUNE" <<'EOF' || fail "the bus bound loses to a sweep"
import json, random, subprocess, sys
rng = random.Random(9)
for case in range(40):
    k = [rng.uniform(0.001, 1) for _ in range(2)]
    x = [rng.choice([0, rng.uniform(0, 3)]) for _ in range(2)]
    f = [rng.choice([0, rng.uniform(0, 1)]) for _ in range(2)]
    o = [rng.randint(0, 1) for _ in range(2)]
    cmd = [sys.argv[1], "plan", "-g", "1048576", "-w", "64,64", "--json",
           "-t", ",".join(map(repr, k)), "--xfer", ",".join(map(repr, x)),
           "--fixed", ",".join(map(repr, f)), "--overlap", ",".join(map(str, o))]
    p = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    def busy(i, s):
        if s <= 0:
            return 0
        return f[i] + s * (max(k[i], x[i]) if o[i] else k[i] + x[i])
    best = min(max(busy(0, j / 10000), busy(1, 1 - j / 10000)) for j in range(10001))
    b = p["bus_bound_s"]
    assert best >= b * (1 - 1e-12), (cmd, best, b)
    assert best <= b + 4 * max(k + x) / 10000, (cmd, best, b)
    assert b <= min(e["busy_alone_s"] for e in p["devices"])
    assert p["model_time"] >= b * (1 - 1e-12)
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
expect_bad "--names: entry 2 ''" --global 512 --wg 64,64 --times 1,1 --names cpu,
expect_bad "--factors 3" --global 512 --wg 64,64 --times 1,1 --factors 1,1,1
expect_bad "--factors: entry 2 '-1'" --global 512 --wg 64,64 --times 1,1 --factors 1,-1
expect_bad "--factors: want at least one positive" --global 512 --wg 64,64 --times 1,1 --factors 0,0
expect_bad "unknown option '--bogus'" --global 512 --wg 64 --times 1 --bogus
expect_bad "option '--global' needs a value" --wg 64 --times 1 --global
expect_bad "unexpected argument 'extra'" --global 512 --wg 64 --times 1 extra
expect_bad "--xfer: entry 2 '-1'" --global 512 --wg 64,64 --times 1,1 --xfer 0,-1
expect_bad "--xfer: entry 1 'nan'" --global 512 --wg 64 --times 1 --xfer nan
expect_bad "--fixed: entry 1 'inf'" --global 512 --wg 64 --times 1 --fixed inf
expect_bad "--fixed: entry 2 ''" --global 512 --wg 64,64 --times 1,1 --fixed 1,
expect_bad "--overlap: entry 1 '2'" --global 512 --wg 64 --times 1 --overlap 2
expect_bad "--pieces: entry 1 '-3'" --global 512 --wg 64 --times 1 --pieces -3
expect_bad "--pieces: entry 1 '1.5'" --global 512 --wg 64 --times 1 --pieces 1.5
expect_bad "--margin -0.1" --global 512 --wg 64 --times 1 --margin -0.1
expect_bad "--margin x" --global 512 --wg 64 --times 1 --margin x
expect_bad "--wg has 2, --times 2, --xfer 1, --overlap 3" --global 512 --wg 64,64 \
    --times 1,1 --xfer 1 --overlap 0,1,1
expect_bad ".fixed_s: the fixed part swamps" --global 512 --wg 64 --times 1e-300 --fixed 1e300

run plan --help
[ "$status" -eq 0 ] || fail "--help exited $status"
for opt in --global --wg --times --factors --names --json --xfer --fixed --overlap \
    --pieces --margin; do
    grep -q -- "$opt" "$tmp/out" || fail "--help lacks $opt"
done
run --help
grep -q "plan" "$tmp/out" || fail "hetune --help does not list plan"
echo "ok"
