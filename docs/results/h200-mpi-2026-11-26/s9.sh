#!/usr/bin/env bash
# 2026-11-26, call 1: why 2 ranks tune only 1.75x faster than 1 on the GPU machine (each
# configuration 0.21-0.22 s against 0.19-0.20 s alone). Control without MPI: the same tune
# alone on core 0, then two independent tunes at once on cores 0 and 1 (no MPI, no queue).
# If each of the two is ~10% slower than alone, the cost is the machine's shared cores'
# resources, not hetune's queue. Then bench/mpi/run.sh with the ranks on cores 0 and 8.
set -u
rm -rf /tmp/w && mkdir -p /tmp/w && tar -xf .gpu/snap.tar -C /tmp/w && cp -r .gpu /tmp/w/ && cd /tmp/w
chmod -R u+w .gpu
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF -DHETUNE_STATIC_DEPS=ON \
  -DCMAKE_PREFIX_PATH=$PWD/.gpu > $OUT/build.log 2>&1 && cmake --build build-gpu -j16 >> $OUT/build.log 2>&1 ||
  { tail -30 $OUT/build.log; exit 1; }
mkdir -p /tmp/icd && cp /etc/OpenCL/vendors/*pocl* /tmp/icd/ 2>/dev/null
export OCL_ICD_VENDORS=/tmp/icd OCL_ICD_FILENAMES=$(ls /tmp/icd/*.icd 2>/dev/null | head -1 | xargs cat 2>/dev/null)
export POCL_DEVICES=pthread POCL_MAX_PTHREAD_COUNT=1 POCL_KERNEL_CACHE=0
H=$PWD/build-gpu/hetune
one() { # core tag
  local t0=$(date +%s%N)
  POCL_CACHE_DIR=/tmp/pc-$2 taskset -c $1 $H tune bench/mpi/spec.json --db /tmp/c-$2.db \
     --no-cache --cut-factor 0 -q --json > /tmp/c-$2.json
  echo "$2 core $1: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
}
{
grep -m1 MHz /proc/cpuinfo
rm -rf /tmp/c-* /tmp/pc-*; mkdir -p /tmp/pc-alone /tmp/pc-two0 /tmp/pc-two1 /tmp/pc-alone2
one 0 alone
one 0 two0 & one 1 two1 & wait
one 0 alone2
sed -i "s/^flags=(--oversubscribe --bind-to core --map-by core)/flags=(--oversubscribe --cpu-list 0,8 --bind-to cpu-list:ordered)/" bench/mpi/common.sh
grep -n "^flags" bench/mpi/common.sh
KEEP=/tmp/k/run timeout 200 bash bench/mpi/run.sh $H; echo "run.sh rc=$?"
} > $OUT/s9.log 2>&1
cat $OUT/s9.log
