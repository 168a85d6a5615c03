#!/usr/bin/env bash
# bench/split: co-execution of the paper's two case studies on this machine's PoCL devices
# (POCL_DEVICES="pthread basic": all cores, and one core), for every scheduler, in one run.
# Each device's best configuration comes from exhaustive tuning into a fresh database (the
# first split of each case study tunes). Printed side by side per case study, split
# dimension and scheduler:
#   theoretical  Algorithm 1's time max_i(S_i t_i) from the tuned times (kernel-only);
#   wall         the measured co-execution (mean of the best keep_best runs), transfers,
#                launches and host threads included;  kernel  the slowest device's
#                kernel-only time in it;
#   wall/theo, kernel/theo   measured over theoretical (1.00 = the paper's ideal);
#   alone        the fastest device alone, measured the same way (wall), and
#   speedup      alone / wall: above 1 when co-execution pays.
# Then a split-point sweep of conv1d (static, device 0's factor from 0 to 1), the data of
# the paper's Figures 6 and 7. On a machine whose devices share the same cores (PoCL's two
# CPU devices here), the devices slow each other down and co-execution cannot reach the
# theoretical time: the figures say by how much.
#
# usage: bench/split/run.sh [HETUNE]    (default: $HETUNE, else build/hetune)
# environment: MATMUL_N (default 512), CONV1D_N (default 65536), SWEEP (default 0.1; 0
# skips the sweep), REPEATS (default: the specs' 10), POCL_DEVICES (default "pthread basic"),
# KEEP=DIR keeps the JSON and the database there.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
hetune=${1:-${HETUNE:-$root/build/hetune}}
[ -x "$hetune" ] || { echo "bench/split: no hetune binary at $hetune (build it first)" >&2; exit 2; }
matmul_n=${MATMUL_N:-512}
conv1d_n=${CONV1D_N:-65536}
sweep=${SWEEP:-0.1}
repeats=${REPEATS:-}
export POCL_DEVICES="${POCL_DEVICES:-pthread basic}"

work=${KEEP:-}
if [ -z "$work" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/hetune-bench-split.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
rm -f "$work"/bench.db* "$work"/*.json
export HETUNE_CACHE_DIR=${HETUNE_CACHE_DIR:-$work/cache}

if ! "$hetune" devices --json >"$work/devices.json"; then
    echo "bench/split: no OpenCL device" >&2
    exit 1
fi
extra=()
[ -n "$repeats" ] && extra+=(--repeats "$repeats")

echo "bench/split: $(nproc) cores, POCL_DEVICES=\"$POCL_DEVICES\", matmul N=$matmul_n," \
    "conv1d N=$conv1d_n" >&2
runs=()
for study in "matmul N=$matmul_n 0" "matmul N=$matmul_n 1" "conv1d N=$conv1d_n 0"; do
    set -- $study
    for sched in static dynamic guided; do
        echo "bench/split: $1 dim $3 $sched..." >&2
        out="$work/$1.dim$3.$sched.json"
        "$hetune" split "$root/examples/$1/spec.json" --size "$2" --device all --dim "$3" \
            --scheduler "$sched" --force --db "$work/bench.db" --json "${extra[@]}" >"$out"
        runs+=("$out")
    done
done
if [ "$sweep" != 0 ]; then
    echo "bench/split: conv1d sweep by $sweep..." >&2
    "$hetune" split "$root/examples/conv1d/spec.json" --size "N=$conv1d_n" --device all \
        --scheduler static --force --sweep "$sweep" --db "$work/bench.db" --json "${extra[@]}" \
        >"$work/conv1d.sweep.json"
fi

python3 - "$work" "${runs[@]}" <<'PY'
import json, os, sys

work, runs = sys.argv[1], sys.argv[2:]

def ms(s):
    return "-" if s is None else "%.3f" % (s * 1e3)

def ratio(a, b):
    return "-" if not a or not b else "%.2f" % (a / b)

print("co-execution on %s (times in ms)" % os.environ.get("POCL_DEVICES", "?"))
first = json.load(open(runs[0]))
for d in first["devices"]:
    print("  device %d: %s" % (d["index"], d["name"]))
print()
hdr = ("case", "dim", "scheduler", "factors (opt -> adj)", "theoretical", "wall", "kernel",
       "wall/theo", "kernel/theo", "alone", "speedup")
fmt = "%-8s %3s %-9s %-26s %11s %9s %9s %9s %11s %9s %8s"
print(fmt % hdr)
for path in runs:
    d = json.load(open(path))
    case = os.path.basename(path).split(".")[0]
    opt = ",".join("%.3f" % x.get("optimal_factor", 0) for x in d["devices"])
    adj = ",".join("%.3f" % x["adjusted_factor"] for x in d["devices"])
    th, wall, kern = d["theoretical_seconds"], d["measured"]["wall_seconds"], d["measured"]["kernel_seconds"]
    alone = d["fastest_alone"]["wall_seconds"]
    ok = d["verification"]["verified"]
    print(fmt % (case, d["dim"], d["scheduler"], opt + " -> " + adj, ms(th), ms(wall), ms(kern),
                 ratio(wall, th), ratio(kern, th), ms(alone), ratio(alone, wall))
          + ("" if ok else "  VERIFICATION FAILED"))
print()
print("per device, each alone (wall with transfers / kernel-only / tuned), ms:")
seen = set()
for path in runs:
    d = json.load(open(path))
    case = os.path.basename(path).split(".")[0]
    if case in seen:
        continue
    seen.add(case)
    for x in d["devices"]:
        a = x["alone"]
        cfg = ",".join("%s=%d" % kv for kv in x["config"].items())
        print("  %-8s device %d %-12s %9s %9s %9s" % (case, x["index"], cfg, ms(a["wall_seconds"]),
                                                      ms(a["kernel_seconds"]), ms(x["tuned_seconds"])))
sw = os.path.join(work, "conv1d.sweep.json")
if os.path.exists(sw):
    d = json.load(open(sw))
    print()
    print("conv1d split-point sweep (Figures 6-7): device 0 factor, theoretical and measured ms;"
          " Eq. 4's factor %.3f measured %s ms" % (d["eq4_factor"], ms(d["measured"]["wall_seconds"])))
    print("%8s %12s %10s %10s %9s" % ("f0", "theoretical", "wall", "kernel", "verified"))
    for p in d["sweep"]:
        print("%8.3f %12s %10s %10s %9s" % (p["factor"], ms(p["theoretical_seconds"]),
                                            ms(p["wall_seconds"]), ms(p["kernel_seconds"]),
                                            "yes" if p["verified"] else "NO"))
PY
