#!/usr/bin/env bash
# hetune's space builder against Kernel Tuner's searchspace (its default solver) and
# pyATF's SearchSpace (issue 17), on the same spaces written the way each tool's users
# write them (bench/space/spaces.py) and the numbers of device 0 from 'hetune devices'.
# For each space: the valid count of each tool (asserted equal: exit 1 when not),
# hetune's count time and list time (hetune space --list into a file, with its peak
# memory), each peer's time to build its space, whole processes (Python's start and
# imports included), and the ratios fastest peer / hetune. hetune's times are the median
# of REPEAT runs (default 3), the peers' of PEER_REPEAT (default 1: they take minutes).
# Not a test: minutes on two cores.
#   bench/space/run.sh [BUILD_DIR]     (SPACES="gemm14 ..." picks spaces)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
hetune=$(cd "${1:-$root/build}" && pwd)/hetune
repeat=${REPEAT:-3}
peer_repeat=${PEER_REPEAT:-1}
venv=$here/.venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q kernel_tuner pyatf
fi
py=$venv/bin/python
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hetune-space.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export POCL_KERNEL_CACHE=0
"$hetune" devices --json >"$tmp/dev.json"

# The spaces: NAME and which peers run it (kt, atf, or -: a peer would hold every one of
# ~1e8 configurations in memory, or take far past the others: Kernel Tuner ran for more
# than 16 minutes on sgemm32 and was stopped); nolist: hetune counts only (hetune space
# --list streams in constant memory, but 1e8 to 1e9 lines are gigabytes of file and a
# walk of every configuration: sgemm256-c's took 740 s on a loaded machine).
# sgemm320-c (1.04e9 valid) and sgemm512-c (3.2e8) are the issue's 1.5e8-in-a-second goal.
spaces=${SPACES:-"gemm14:kt,atf xgemm0:kt,atf sgemm8:kt,atf sgemm8-c:kt,atf sgemm16:kt,atf sgemm16-c:- sgemm32:atf sgemm32-c:- chains256:atf,nolist sgemm256-c:nolist sgemm320-c:nolist sgemm512-c:nolist"}

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Runs "$@" $1 times; prints the median wall seconds (date's nanoseconds: /usr/bin/time's
# hundredths read 0.00 for hetune from a device file); the last run's stdout in $tmp/out,
# its peak memory (KiB) in $tmp/rss.
timed() {
    local n=$1 i t0 t1
    shift
    for ((i = 0; i < n; i++)); do
        t0=$(date +%s%N)
        /usr/bin/time -f "%M" -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" ||
            { cat "$tmp/err" >&2; return 1; }
        t1=$(date +%s%N)
        awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.3f\n", ns / 1e9 }'
    done | median
    cp "$tmp/time" "$tmp/rss"
}

echo "hetune space vs Kernel Tuner $("$py" -c 'import kernel_tuner; print(kernel_tuner.__version__)' 2>/dev/null || echo '?') (Searchspace, default solver) and pyATF $("$py" -c 'import importlib.metadata as m; print(m.version("pyatf"))')"
echo "device 0: $(python3 -c "import json; d=json.load(open('$tmp/dev.json'))['devices'][0]; print(d['name'], '| max wg', d['max_work_group_size'], '| local mem', d['local_mem_size'], '| cu', d['compute_units'])")"
echo "$(nproc) cores; hetune median of $repeat, peers median of $peer_repeat; whole processes, wall seconds"
printf '%-11s %11s %8s %8s %8s %8s %8s %8s %8s %8s %7s\n' space valid count "count" list "list B/" kt pyatf "peer/" "peer/" "peer/"
printf '%-11s %11s %8s %8s %8s %8s %8s %8s %8s %8s %7s\n' "" "" hetune "+OpenCL" hetune config "" "" count "count+CL" list
status=0
for entry in $spaces; do
    name=${entry%%:*}
    peers=${entry#*:}
    python3 "$here/spaces.py" spec "$name" "$tmp"
    # hetune reads device 0's numbers from the same file the peers get (--devices-from),
    # and, in count+OpenCL, asks OpenCL for them (loading the drivers) as by default.
    t_cl=$(timed "$repeat" "$hetune" space "$tmp/$name.json" -d 0 --json)
    t_count=$(timed "$repeat" "$hetune" space "$tmp/$name.json" -d 0 --json --devices-from "$tmp/dev.json")
    valid=$(python3 -c "import json; print(json.load(open('$tmp/out'))['devices'][0]['pruned'])")
    t_list=- per=- nlisted=$valid
    if [[ ",$peers," != *",nolist,"* ]]; then
        t_list=$(timed "$repeat" "$hetune" space "$tmp/$name.json" -d 0 --list --devices-from "$tmp/dev.json")
        rss=$(cat "$tmp/rss")
        nlisted=$(($(wc -l <"$tmp/out") - 4))
        per=$(python3 -c "print('%.0f' % ($rss / max($valid, 1) * 1024))")
    fi
    if [ "$nlisted" -ne "$valid" ]; then
        echo "$name: hetune counted $valid but listed $nlisted" >&2
        status=1
    fi
    res=()
    for peer in kt atf; do
        if [[ ",$peers," != *",$peer,"* ]]; then
            res+=("-")
            continue
        fi
        t=$(timed "$peer_repeat" "$py" -W ignore "$here/spaces.py" "$peer" "$name" "$tmp/dev.json")
        n=$(python3 -c "import json; print(json.loads(open('$tmp/out').read().strip().splitlines()[-1])['count'])")
        if [ "$n" != "$valid" ]; then
            echo "$name: $peer counts $n, hetune $valid" >&2
            status=1
        fi
        res+=("$t")
    done
    python3 - "$name" "$valid" "$t_count" "$t_cl" "$t_list" "$per" "${res[@]}" <<'EOF'
import sys
name, valid, tc, tcl, tl, per, kt, atf = sys.argv[1:9]
peers = [float(x) for x in (kt, atf) if x != "-"]
best = min(peers) if peers else None
ratio = lambda t: "%.1fx" % (best / max(float(t), 0.001)) if best and t != "-" else "-"
print("%-11s %11s %8s %8s %8s %8s %8s %8s %8s %8s %7s" % (name, valid, tc, tcl, tl, per + " B" if per != "-" else "-", kt, atf, ratio(tc), ratio(tcl), ratio(tl)))
EOF
done
echo "list B/config: peak memory of hetune space --list (whole process, in bytes) over the configurations listed"
echo "ratios: the fastest peer's time / hetune's (a time below 1 ms counts as 1 ms)"
exit $status
