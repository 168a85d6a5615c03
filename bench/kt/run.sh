#!/usr/bin/env bash
# hetune against Kernel Tuner (issue 14) on the same PoCL device, space and repeats:
# exhaustive tunes cold (empty binary caches: hetune's, PoCL's, PyOpenCL's) and warm, and
# budgeted searches (genetic, random, anneal against genetic_algorithm, random_sample,
# simulated_annealing) over 3 seeds on a GEMM space of 702,784 configurations, each tool
# cold (its own empty caches) then warm (the same run again on the caches it left). Prints
# the wall times, best times and hetune/Kernel Tuner ratios, and per strategy the ratio of
# the summed wall times. Not a test: minutes on two cores.
#
# Each budgeted run starts from empty caches: Kernel Tuner's strategies draw their first
# configurations with numpy's permutation under the same seed, so random_sample's 10 are 9
# of genetic_algorithm's first 10, and on caches shared across runs random_sample found them
# compiled (2.9 s where a cold run takes 30 s or more; docs/results/kt-2026-11-25.txt).
# Kernel Tuner's budget counts a configuration met again (a cache hit) as an evaluation,
# hetune's only configurations it measures: each row says how many distinct configurations
# each tool measured, and the ratio per configuration measured beside the plain one.
# Repeats: the spec's timing.repeats for both; Kernel Tuner also launches each
# configuration once more to verify it. The reference (gemm_naive) runs once per tool and
# run: Kernel Tuner's answer, hetune's "verify": {"once": true}.
#   bench/kt/run.sh [BUILD_DIR]      (default build; KT_BUDGET, KT_SEEDS override;
#                                     KT_STRATEGIES="anneal" runs only those budgeted rows,
#                                     without the exhaustive ones; KT_ROUNDS=R runs each
#                                     budgeted row R times, taking turns, the least kept)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
hetune=${1:-$root/build}/hetune
budget=${KT_BUDGET:-10}
seeds=${KT_SEEDS:-"0 1 2"}
venv=$here/.venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q kernel_tuner pyopencl
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hetune-kt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dev=0
ktdev="--platform 0 --device 0"

# hetune's wall time and best as "WALL BEST", from its JSON.
ht() {
    local t0 t1
    t0=$(date +%s.%N)
    "$hetune" tune "$@" -d "$dev" -q --json --db "$tmp/ht.db" >"$tmp/ht.json"
    t1=$(date +%s.%N)
    python3 -c "import json,sys; d=json.load(open('$tmp/ht.json'))['devices'][0]
b=d['best']; print('%.3f %s %d' % ($t1 - $t0, b['seconds'] if b else 'nan', d['evaluated']))"
}
kt() { # in $tmp: Kernel Tuner leaves temp_*.c files in its working folder
    (cd "$tmp" && "$venv/bin/python" -W ignore "$here/kt_tune.py" "$@" $ktdev 2>/dev/null) |
        python3 -c "import json,sys; d=json.loads(sys.stdin.read().strip().splitlines()[-1])
print('%.3f %s %d' % (d['wall_s'], d['best_s'], d.get('unique', d['evaluated'])))"
}
row() { # NAME HT KT, each "WALL BEST CONFIGURATIONS-MEASURED"
    python3 -c "import sys; h=sys.argv[2].split(); k=sys.argv[3].split()
r = float(h[0]) / float(k[0])
print('%-28s hetune %8.2f s best %-12.4g  kt %8.2f s best %-12.4g  ratio %.2f  measured %s/%s, per configuration %.2f' % (
    sys.argv[1], float(h[0]), float(h[1]), float(k[0]), float(k[1]), r, h[2], k[2], r * int(k[2]) / int(h[2])))" "$@"
}
fresh_caches() {
    rm -rf "$tmp/cache"
    mkdir -p "$tmp/cache"
    export POCL_CACHE_DIR=$tmp/cache/pocl XDG_CACHE_HOME=$tmp/cache/xdg HETUNE_CACHE_DIR=$tmp/cache/ht
}

strategies=${KT_STRATEGIES:-"genetic random anneal"}
[ -n "${KT_STRATEGIES:-}" ] ||
    echo "exhaustive tunes (cold: empty caches; warm: the same caches, hetune --fresh)"
[ -n "${KT_STRATEGIES:-}" ] || while read -r name spec size; do
    fresh_caches
    rm -f "$tmp"/ht.db*
    row "$name cold" "$(ht "$root/$spec" --size "$size")" "$(kt "$root/$spec" --size "$size")"
    row "$name warm" "$(ht "$root/$spec" --size "$size" --fresh)" \
        "$(kt "$root/$spec" --size "$size")"
done <<'LIST'
vecadd examples/vecadd/spec.json N=1048576
LIST

echo "budgeted searches, $budget evaluations of $("$hetune" space "$here/gemm-big.json" --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["devices"][0]["pruned"])') configurations (each tool from empty caches: cold, then the same run again: warm)"
sum() { python3 -c "import sys; print(sum(float(x) for x in sys.argv[1:]))" "$@"; }
# least "WALL BEST" "WALL BEST": the one with the lesser wall time (the first may be empty).
least() { if [ -z "$1" ] || python3 -c "import sys; sys.exit(float(sys.argv[2].split()[0]) >= \
    float(sys.argv[1].split()[0]))" "$1" "$2"; then echo "$2"; else echo "$1"; fi; }
rounds=${KT_ROUNDS:-1}
for pair in genetic:genetic_algorithm random:random_sample anneal:simulated_annealing; do
    s=${pair%%:*}
    case " $strategies " in *" $s "*) ;; *) continue ;; esac
    hc="" kc="" hw="" kw="" hn="" kn="" hwn="" kwn=""
    for seed in $seeds; do
        h1="" h2="" k1="" k2=""
        for _ in $(seq "$rounds"); do
            fresh_caches
            rm -f "$tmp"/ht.db*
            h1=$(least "$h1" "$(ht "$here/gemm-big.json" -S "$s" -b "$budget" --seed "$seed")")
            h2=$(least "$h2" "$(ht "$here/gemm-big.json" -S "$s" -b "$budget" --seed "$seed" \
                --fresh)")
            fresh_caches
            k1=$(least "$k1" "$(kt "$here/gemm-big.json" --strategy "${pair##*:}" \
                --budget "$budget" --seed "$seed")")
            k2=$(least "$k2" "$(kt "$here/gemm-big.json" --strategy "${pair##*:}" \
                --budget "$budget" --seed "$seed")")
        done
        row "$s seed $seed cold" "$h1" "$k1"
        row "$s seed $seed warm" "$h2" "$k2"
        hc="$hc ${h1%% *}" kc="$kc ${k1%% *}" hw="$hw ${h2%% *}" kw="$kw ${k2%% *}"
        hn="$hn ${h1##* }" kn="$kn ${k1##* }" hwn="$hwn ${h2##* }" kwn="$kwn ${k2##* }"
    done
    python3 -c "import sys; a = [float(x) for x in sys.argv[1:]]
for i, what in ((0, 'cold'), (2, 'warm')):
    r = a[i] / a[i + 1]
    print('%-28s hetune %8.2f s                    kt %8.2f s                    ratio %.2f  measured %d/%d, per configuration %.2f' % (
        '$s sum of seeds ' + what, a[i], a[i + 1], r, a[4 + i], a[5 + i], r * a[5 + i] / a[4 + i]))" \
        "$(sum $hc)" "$(sum $kc)" "$(sum $hw)" "$(sum $kw)" "$(sum $hn)" "$(sum $kn)" \
        "$(sum $hwn)" "$(sum $kwn)"
done
