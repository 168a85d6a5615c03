#!/bin/bash
# Builds ahead on two quiet cores of the GPU machine (docs/results-gpu.md, "builds paused around
# the timed runs only"): a tree copied to .gpu/timed (git archive) is built there, then sepconv exhaustive on 2 cores (taskset 0,1, PoCL 2 CUs), --jobs 2 then --jobs 1
set -u
OUT=${OUT:-/tmp/out}; t0=$(date +%s)
cmake -S .gpu/timed -B .gpu/timed/build -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF -DHETUNE_BENCH=OFF -DHETUNE_EXAMPLES=OFF \
  -DHETUNE_STATIC_DEPS=ON -DCMAKE_PREFIX_PATH=$PWD/.gpu > $OUT/build.log 2>&1 && cmake --build .gpu/timed/build -j16 >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
H=$PWD/.gpu/timed/build/hetune
$H devices > $OUT/devices.txt 2>&1; cpu=$(grep -n -i "cpu\|pthread" $OUT/devices.txt | head -1 | cut -d: -f1); head -5 $OUT/devices.txt
for j in 2 1; do
  d=$(mktemp -d /tmp/tj.XXXX)
  taskset -c 0,1 env POCL_CPU_MAX_CU_COUNT=2 POCL_CACHE_DIR=$d/pc HETUNE_CACHE_DIR=$d/hc HETUNE_LOCK_DIR=$d/lk /usr/bin/time -f "%e %U %S" -o $d/time \
    $H tune examples/sepconv/spec.json --device 0 --db $d/x.db --fresh --jobs $j --json -q > $OUT/timed$j.json 2>>$OUT/err.log
  echo "--jobs $j: exit $?, wall/user/sys $(cat $d/time)"
  python3 -c "
import json; d=json.load(open('$OUT/timed$j.json'))['devices'][0]
print(d['device'][:30], {k:(round(v,2) if isinstance(v,float) else v) for k,v in d.items() if k in ('evaluated','tuning_seconds','build_seconds','first_launch_seconds','built_ahead','built_ahead_seconds')}, d['best'])"
done
echo "done in $(( $(date +%s) - t0 )) s"
