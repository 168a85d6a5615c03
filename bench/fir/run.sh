#!/usr/bin/env bash
# Code transformations as tuning parameters (issue 18, part 3): tunes examples/fir (loop
# unrolling UNROLL and vector width VW through -D, every configuration verified) on one
# device with no early termination, then prints each (UNROLL, VW)'s time, the best over the
# work-group sizes, and its speed-up over the scalar, not unrolled kernel (VW 1, UNROLL 1).
#
# usage: bench/fir/run.sh HETUNE DEVICE [--size NAME=VALUE ...]
#   HETUNE  the hetune binary (e.g. build/hetune)
#   DEVICE  the device index of `hetune devices` (the GPU on the GPU machine)
# The database and the tune's log go to $OUT when set (the device tool), else a temporary
# folder removed at the end.
set -eu
[ $# -ge 2 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
hetune=$1
device=$2
shift 2
cd "$(dirname "$0")/../.."
. bench/common.bash
bench_dir fir
db="$dir/fir.db"
rm -f "$db"
# POCL_KERNEL_CACHE=0: PoCL compiles every configuration itself, as a user's first run does.
POCL_KERNEL_CACHE=0 "$hetune" tune examples/fir/spec.json --device "$device" --db "$db" \
    --cut-factor 0 --no-cache -q "$@" >"$dir/tune.txt"
echo "\$ $hetune tune examples/fir/spec.json --device $device --cut-factor 0 --no-cache $*"
sed 's/^/  /' "$dir/tune.txt"
echo
python3 - "$db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT config, status, seconds, verified FROM evaluations").fetchall()
best, bad = {}, []
for config, status, seconds, verified in rows:
    c = dict(kv.split("=") for kv in config.split(","))
    if status != "ok" or verified != 1:
        bad.append((config, status))
        continue
    key = (int(c["UNROLL"]), int(c["VW"]))
    if key not in best or seconds < best[key][0]:
        best[key] = (seconds, int(c["WG"]))
if (1, 1) not in best:
    sys.exit("no time for the scalar, not unrolled kernel (UNROLL=1 VW=1)")
base = best[(1, 1)][0]
unrolls = sorted({u for u, _ in best})
widths = sorted({v for _, v in best})
print("kernel time in ms (best work-group size), and in brackets the speed-up over "
      "UNROLL=1 VW=1 (%.3f ms)" % (base * 1e3))
print("%-10s" % "UNROLL\\VW" + "".join("%18s" % ("VW=%d" % v) for v in widths))
for u in unrolls:
    cells = []
    for v in widths:
        t = best.get((u, v))
        cells.append("%18s" % ("-" if t is None else "%.3f (%.2fx)" % (t[0] * 1e3, base / t[0])))
    print("%-10s" % ("UNROLL=%d" % u) + "".join(cells))
top = min(best.items(), key=lambda kv: kv[1][0])
(u, v), (t, wg) = top
print("best: UNROLL=%d VW=%d WG=%d, %.3f ms, %.2fx the scalar, not unrolled kernel; "
      "UNROLL=0 VW=1 (the compiler alone): %.2fx"
      % (u, v, wg, t * 1e3, base / t, base / best[(0, 1)][0] if (0, 1) in best else float("nan")))
print("configurations that failed or did not verify: %d%s" % (len(bad), "".join("\n  %s %s" % b for b in bad)))
PY
