#!/usr/bin/env bash
# call 6: why 2 ranks tuned only 1.50x faster than 1 on the GPU machine: its CPU layout, and
# bench/mpi/run.sh again with the two ranks on two distinct physical cores (lscpu -e).
set -u
cd /tmp/w 2>/dev/null || exit 1
lscpu | grep -E "Thread|Core|Socket|MHz|Model name" > $OUT/s8.log
lscpu -e >> $OUT/s8.log
mkdir -p /tmp/icd && cp /etc/OpenCL/vendors/*pocl* /tmp/icd/ 2>/dev/null
export OCL_ICD_VENDORS=/tmp/icd OCL_ICD_FILENAMES=$(cat /tmp/icd/*.icd | head -1)
# two CPUs of different cores: the first CPU of the first two CORE ids
cpus=$(lscpu -p=CPU,CORE | grep -v '^#' | sort -t, -k2,2n -k1,1n | awk -F, '!seen[$2]++ {print $1}' | head -2 | paste -sd,)
echo "cpu list $cpus" >> $OUT/s8.log
sed -i "s/^flags=(--oversubscribe --bind-to core --map-by core)/flags=(--oversubscribe --cpu-list $cpus --bind-to cpu-list:ordered)/" bench/mpi/common.sh
grep -n "^flags" bench/mpi/common.sh >> $OUT/s8.log
KEEP=/tmp/k/run2 timeout 250 bash bench/mpi/run.sh $PWD/build-gpu/hetune >> $OUT/s8.log 2>&1; echo "run.sh rc=$?" >> $OUT/s8.log
cat $OUT/s8.log
