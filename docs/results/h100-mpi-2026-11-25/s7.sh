#!/usr/bin/env bash
# 2026-11-25 (4th session), call 5: issue 16 on the GPU machine's 16 idle cores: bench/mpi/
# split.sh (split across 2 nodes, a core each, efficiency) three times and bench/mpi/run.sh
# (distributed tuning, 2 ranks against 1), PoCL's CPU device only (NVIDIA's platform hidden
# from the ICD loader, so that no two ranks share the H100).
set -u
rm -rf /tmp/w && mkdir -p /tmp/w && tar -xf .gpu/snap.tar -C /tmp/w && cp -r .gpu /tmp/w/ && cd /tmp/w
chmod -R u+w .gpu
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF -DHETUNE_STATIC_DEPS=ON \
  -DCMAKE_PREFIX_PATH=$PWD/.gpu > $OUT/build.log 2>&1 && cmake --build build-gpu -j16 >> $OUT/build.log 2>&1 ||
  { tail -30 $OUT/build.log; exit 1; }
grep -i "mpi" build-gpu/CMakeCache.txt | grep -E "HETUNE_MPI|MPI_C_FOUND" >> $OUT/build.log
mkdir -p /tmp/icd && cp /etc/OpenCL/vendors/*pocl* /tmp/icd/ 2>/dev/null
export OCL_ICD_VENDORS=/tmp/icd OCL_ICD_FILENAMES=$(ls /tmp/icd/*.icd 2>/dev/null | head -1 | xargs cat 2>/dev/null)
{
ls /etc/OpenCL/vendors/; echo "OCL_ICD_FILENAMES=$OCL_ICD_FILENAMES"
build-gpu/hetune devices | grep -E "^[0-9]"
for r in 1 2 3; do
  KEEP=/tmp/k/split$r timeout 150 bash bench/mpi/split.sh $PWD/build-gpu/hetune; echo "split.sh run $r rc=$?"
done
KEEP=/tmp/k/run timeout 250 bash bench/mpi/run.sh $PWD/build-gpu/hetune; echo "run.sh rc=$?"
} > $OUT/s7.log 2>&1
(cd /tmp/k && tar czf $OUT/s7.tgz --exclude='pocl-*' .)
cat $OUT/s7.log
