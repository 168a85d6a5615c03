#!/usr/bin/env bash
set -u
F=(--oversubscribe --bind-to none); [ "$(id -u)" = 0 ] && F+=(--allow-run-as-root)
{
echo "== ICD debug under mpirun -n 1"; mpirun "${F[@]}" -x OCL_ICD_DEBUG=15 -n 1 /tmp/clmpi 2>&1 | grep -iE "nvidia|error|fail|dlopen|load" | head -20
echo "== env diff (< plain, > under mpirun)"
env | sort > /tmp/e1; mpirun "${F[@]}" -n 1 env | sort > /tmp/e2; diff /tmp/e1 /tmp/e2 | grep -vE "^[<>] (OMPI_|PMIX_|OPAL_|HFI_|IPATH_|PSM|ORTE)" | cut -c1-200 | head -30
echo "== ulimits plain / mpirun"; ulimit -a | head -20 > /tmp/u1; mpirun "${F[@]}" -n 1 bash -c 'ulimit -a' | head -20 > /tmp/u2; diff /tmp/u1 /tmp/u2
ls -la /dev/nvidia* 2>&1 | head
echo "== mpirun -n 1 with plain ulimit -l? cgroup"; cat /proc/self/cgroup | head -3; mpirun "${F[@]}" -n 1 cat /proc/self/cgroup | head -3
} > $OUT/s12.log 2>&1
cat $OUT/s12.log
