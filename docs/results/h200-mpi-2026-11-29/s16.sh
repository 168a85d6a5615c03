#!/usr/bin/env bash
# 2026-11-29 (sixteenth session), s14 again on the tree after coexec's door for MPI (a node's share in two calls, issue 27):
#  A. the split over 2 nodes with the GPU node (s10's scenario): plain x3, --force x1;
#  B. the runtime across nodes (examples/runtime_mpi) on the same two nodes;
set -u
ICD_ALL=${OCL_ICD_FILENAMES:-}
R=$PWD
# Run from the repository's root, .gpu carried (bench/gpu/README.md): OUT=$OUT docs/results/h200-mpi-2026-11-29/s16.sh
rm -rf build-gpu
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF -DHETUNE_STATIC_DEPS=ON \
  -DCMAKE_PREFIX_PATH=$PWD/.gpu > $OUT/build.log 2>&1 && cmake --build build-gpu -j16 >> $OUT/build.log 2>&1 ||
  { tail -30 $OUT/build.log; exit 1; }
H=$PWD/build-gpu/hetune
mkdir -p /tmp/icd && cp /etc/OpenCL/vendors/*pocl* /tmp/icd/ 2>/dev/null
J=/tmp/j16; rm -rf $J; mkdir -p $J
mkrank() { # $1 = the program; rank 0: PoCL (8 threads, cores 0-7) + NVIDIA; rank 1: PoCL (cores 8-15)
cat > $J/rank-$(basename $1).sh <<EOS
#!/usr/bin/env bash
r=\${OMPI_COMM_WORLD_RANK:-0}
export POCL_DEVICES=pthread POCL_MAX_PTHREAD_COUNT=8 POCL_CACHE_DIR=$J/pocl-\$r HETUNE_CACHE_DIR=$J/cache-\$r
if [ "\$r" != 0 ]; then export OCL_ICD_VENDORS=/tmp/icd OCL_ICD_FILENAMES=\$(cat /tmp/icd/*.icd | head -1); else export OCL_ICD_FILENAMES=$ICD_ALL; fi
exec taskset -c \$(( r * 8 ))-\$(( r * 8 + 7 )) $1 "\$@"
EOS
chmod +x $J/rank-$(basename $1).sh
}
mkrank $H
F=(--oversubscribe --bind-to none); [ "$(id -u)" = 0 ] && F+=(--allow-run-as-root)
export OMPI_MCA_pml=ob1
S="bench/mpi/split-spec.json --size N=${N:-8388608}"
{
echo "== A. tune (2 nodes: CPU+H200, CPU)"
mpirun "${F[@]}" -n 2 $J/rank-hetune.sh tune $S --db $J/t.db 2>&1 | grep -E "model|best|rank"
for k in 1 2 3; do
  echo "== A. split over MPI, run $k"
  mpirun "${F[@]}" -n 2 $J/rank-hetune.sh split $S --db $J/t.db 2>&1 | tail -22
done
echo "== A. split over MPI, --force"
mpirun "${F[@]}" -n 2 $J/rank-hetune.sh split $S --db $J/t.db --force 2>&1 | tail -22
echo "== B. the runtime across nodes"
mkrank $PWD/build-gpu/examples/runtime-mpi-example
for k in 1 2; do
  (cd examples/runtime_mpi && HETUNE_DB=$J/t.db mpirun "${F[@]}" -x HETUNE_DB -n 2 $J/rank-runtime-mpi-example.sh ../../bench/mpi/split-spec.json ${N:-8388608} 2>&1 | tail -25)
done
} > $OUT/s16.log 2>&1
cat $OUT/s16.log
