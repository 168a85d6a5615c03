#!/usr/bin/env bash
# hetune against Kernel Tuner (issue 14) on the same PoCL device, space and repeats:
# exhaustive tunes cold (empty binary caches: hetune's, PoCL's, PyOpenCL's) and warm, and
# budgeted searches (genetic, random, anneal against genetic_algorithm, random_sample,
# simulated_annealing) over 3 seeds on a GEMM space of 702,784 configurations. Prints the
# wall times, best times and hetune/Kernel Tuner ratios. Not a test: minutes on two cores.
#   bench/kt/run.sh [BUILD_DIR]      (default build; KT_BUDGET, KT_SEEDS override)
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
b=d['best']; print('%.3f %s' % ($t1 - $t0, b['seconds'] if b else 'nan'))"
}
kt() { # in $tmp: Kernel Tuner leaves temp_*.c files in its working folder
    (cd "$tmp" && "$venv/bin/python" -W ignore "$here/kt_tune.py" "$@" $ktdev 2>/dev/null) |
        python3 -c "import json,sys; d=json.loads(sys.stdin.read().strip().splitlines()[-1])
print('%.3f %s' % (d['wall_s'], d['best_s']))"
}
row() { # NAME HT KT
    python3 -c "import sys; h=sys.argv[2].split(); k=sys.argv[3].split()
print('%-28s hetune %8.2f s best %-12.4g  kt %8.2f s best %-12.4g  ratio %.2f' % (
    sys.argv[1], float(h[0]), float(h[1]), float(k[0]), float(k[1]), float(h[0]) / float(k[0])))" "$@"
}
fresh_caches() {
    rm -rf "$tmp/cache"
    mkdir -p "$tmp/cache"
    export POCL_CACHE_DIR=$tmp/cache/pocl XDG_CACHE_HOME=$tmp/cache/xdg HETUNE_CACHE_DIR=$tmp/cache/ht
}

echo "exhaustive tunes (cold: empty caches; warm: the same caches, hetune --fresh)"
while read -r name spec size; do
    fresh_caches
    rm -f "$tmp"/ht.db*
    row "$name cold" "$(ht "$root/$spec" --size "$size")" "$(kt "$root/$spec" --size "$size")"
    row "$name warm" "$(ht "$root/$spec" --size "$size" --fresh)" \
        "$(kt "$root/$spec" --size "$size")"
done <<'LIST'
vecadd examples/vecadd/spec.json N=1048576
LIST

echo "budgeted searches, $budget evaluations of $("$hetune" space "$here/gemm-big.json" --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["devices"][0]["pruned"])') configurations (warm caches)"
fresh_caches
for pair in genetic:genetic_algorithm random:random_sample anneal:simulated_annealing; do
    for seed in $seeds; do
        rm -f "$tmp"/ht.db*
        row "${pair%%:*} seed $seed" \
            "$(ht "$here/gemm-big.json" -S "${pair%%:*}" -b "$budget" --seed "$seed")" \
            "$(kt "$here/gemm-big.json" --strategy "${pair##*:}" --budget "$budget" --seed "$seed")"
    done
done
