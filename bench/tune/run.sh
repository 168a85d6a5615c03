#!/usr/bin/env bash
# bench/tune: how long tuning the paper's two case studies takes on this machine's PoCL
# devices, and how much of it is compiling. Each case study is tuned exhaustively on every
# device twice, in one run of this script:
#   cold  an empty hetune binary cache and an empty results database;
#   warm  the same again with --fresh (everything measured again), the binary cache now
#         holding every program.
# PoCL's own kernel cache is off (POCL_KERNEL_CACHE=0) so that it hides no compilation in
# either run. Early termination is off (--cut-factor 0) so that both runs do the same
# work. Printed side by side per device: tuning time, build time (compile and cache
# write, or cache load), the time drivers spend at first launches beyond the kernel
# (PoCL generates the work-group function for the local size there: compilation the
# binary cache cannot save), the compile share ((build + first launches) / tuning) and
# the ratio cold / warm.
#
# usage: bench/tune/run.sh [HETUNE]    (default: $HETUNE, else build/hetune)
# environment: MATMUL_N (default 256), CONV1D_N (default 65536), POCL_DEVICES (default
# "pthread basic": all cores and one core), KEEP=DIR keeps the JSON and database there.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
hetune=${1:-${HETUNE:-$root/build/hetune}}
[ -x "$hetune" ] || { echo "bench/tune: no hetune binary at $hetune (build it first)" >&2; exit 2; }
matmul_n=${MATMUL_N:-256}
conv1d_n=${CONV1D_N:-65536}
export POCL_DEVICES="${POCL_DEVICES:-pthread basic}"
export POCL_KERNEL_CACHE=0

work=${KEEP:-}
if [ -z "$work" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/hetune-bench-tune.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
rm -rf "$work/cache" "$work/bench.db" "$work/bench.db-wal" "$work/bench.db-shm"
export HETUNE_CACHE_DIR="$work/cache"

if ! "$hetune" devices --json >"$work/devices.json"; then
    echo "bench/tune: no OpenCL device" >&2
    exit 1
fi

# Tunes case study $1 with sizes $2 in mode $3 (cold or warm); the JSON goes to
# $work/$1.$3.json and the process's wall time to $work/$1.$3.wall.
tune() {
    local fresh=
    [ "$3" = warm ] && fresh=--fresh
    local t0 t1
    t0=$(date +%s%N)
    "$hetune" tune "$root/examples/$1/spec.json" --size "$2" --device all --db "$work/bench.db" \
        --strategy exhaustive --cut-factor 0 $fresh --json >"$work/$1.$3.json"
    t1=$(date +%s%N)
    echo "$(((t1 - t0) / 1000000))" >"$work/$1.$3.wall"  # milliseconds
}

echo "bench/tune: $(nproc) cores, POCL_DEVICES=\"$POCL_DEVICES\", POCL_KERNEL_CACHE=0," \
    "matmul N=$matmul_n, conv1d N=$conv1d_n" >&2
for study in "matmul N=$matmul_n" "conv1d N=$conv1d_n"; do
    set -- $study
    echo "bench/tune: $1 cold..." >&2
    tune "$1" "$2" cold
    echo "bench/tune: $1 warm..." >&2
    tune "$1" "$2" warm
done

python3 - "$work" "$POCL_DEVICES" "$matmul_n" "$conv1d_n" <<'EOF'
import json, os, sys
work, pocl, matmul_n, conv1d_n = sys.argv[1:]
devices = json.load(open(os.path.join(work, "devices.json")))["devices"]
drivers = sorted({"%s %s" % (d["platform"], d.get("driver_version", d.get("driver", "")))
                  for d in devices})
print("hetune tune, exhaustive, cold (empty binary cache) vs warm (binary cache full)")
print("machine: %d cores; POCL_DEVICES=\"%s\", POCL_KERNEL_CACHE=0; %s"
      % (os.cpu_count(), pocl, "; ".join(drivers)))
print("sizes: matmul N=%s, conv1d N=%s (MASK=625); timing: spec's repeats, no early "
      "termination" % (matmul_n, conv1d_n))
print()
hdr = ("case", "device", "configs", "run", "tuning s", "build s", "1st launch s",
       "compile %", "cached", "best")
fmt = "%-7s %-26s %7s %-9s %9s %8s %12s %9s %7s  %s"
print(fmt % hdr)
print("-" * 118)

def share(d):
    t = d["tuning_seconds"]
    return 100.0 * (d["build_seconds"] + d["first_launch_seconds"]) / t if t > 0 else 0.0

def best(d):
    b = d["best"]
    if not b:
        return "none"
    cfg = ",".join("%s=%s" % kv for kv in b["config"].items())
    return "%s %.3f ms" % (cfg, b["seconds"] * 1e3)

totals = {"cold": [0.0, 0.0, 0.0], "warm": [0.0, 0.0, 0.0]}
for study in ("matmul", "conv1d"):
    runs = {m: json.load(open(os.path.join(work, "%s.%s.json" % (study, m))))
            for m in ("cold", "warm")}
    walls = {m: float(open(os.path.join(work, "%s.%s.wall" % (study, m))).read()) / 1e3
             for m in ("cold", "warm")}
    for i, cold in enumerate(runs["cold"]["devices"]):
        warm = runs["warm"]["devices"][i]
        name = "%d %s" % (cold["index"], cold["device"][:24])
        for m, d in (("cold", cold), ("warm", warm)):
            print(fmt % (study if m == "cold" else "", name if m == "cold" else "",
                         d["space"] if m == "cold" else "", m, "%.2f" % d["tuning_seconds"],
                         "%.3f" % d["build_seconds"], "%.3f" % d["first_launch_seconds"],
                         "%.0f%%" % share(d), "%d/%d" % (d["cache_hits"], d["evaluated"]),
                         best(d)))
            t = totals[m]
            t[0] += d["tuning_seconds"]
            t[1] += d["build_seconds"]
            t[2] += d["first_launch_seconds"]
        r = lambda k: cold[k] / warm[k] if warm[k] > 0 else float("inf")
        print(fmt % ("", "", "", "cold/warm", "%.2fx" % r("tuning_seconds"),
                     "%.0fx" % r("build_seconds"), "%.2fx" % r("first_launch_seconds"),
                     "", "", ""))
    print(fmt % ("", "(whole process, all devices)", "", "wall", "%.2f / %.2f" %
                 (walls["cold"], walls["warm"]), "", "", "", "", "= %.2fx"
                 % (walls["cold"] / walls["warm"])))
    print()
failed = [(study, m, d["index"], d["failed"]) for study in ("matmul", "conv1d")
          for m in ("cold", "warm")
          for d in json.load(open(os.path.join(work, "%s.%s.json" % (study, m))))["devices"]
          if d["failed"] or d["evaluated"] != d["space"]]
print("verification: %s" % ("every configuration of both spaces built, ran and verified on "
                             "every device, in both runs" if not failed else
                             "FAILURES (case, run, device, failed): %s" % failed))
c, w = totals["cold"], totals["warm"]
print("all: tuning %.2f s cold, %.2f s warm (%.2fx); building %.2f s cold (%.0f%% of tuning),"
      " %.3f s warm (%.1f%%);" % (c[0], w[0], c[0] / w[0], c[1], 100 * c[1] / c[0], w[1],
                                  100 * w[1] / w[0]))
print("     first launches %.2f s cold, %.2f s warm; compile share %.0f%% cold, %.0f%% warm"
      % (c[2], w[2], 100 * (c[1] + c[2]) / c[0], 100 * (w[1] + w[2]) / w[0]))
EOF
