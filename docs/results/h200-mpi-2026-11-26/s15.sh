#!/usr/bin/env bash
# 2026-11-26: --refine one level up on two 8-thread CPU nodes of the GPU machine (NVIDIA
# hidden from both; rank 0 on cores 0-7, rank 1 on 8-15), conv1d of bench/mpi/split-spec.json
# at 2^23: the case where the nodes' times measured for the whole problem were off
# (s10-cpu-nodes-before.log: efficiency 0.76-0.84). Plain and --refine 2, taking turns, x2.
set -u
rm -rf /tmp/w && mkdir -p /tmp/w && tar -xf .gpu/snap.tar -C /tmp/w && cp -r .gpu /tmp/w/ && cd /tmp/w
chmod -R u+w .gpu
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF -DHETUNE_STATIC_DEPS=ON \
  -DCMAKE_PREFIX_PATH=$PWD/.gpu > $OUT/build.log 2>&1 && cmake --build build-gpu -j16 >> $OUT/build.log 2>&1 ||
  { tail -30 $OUT/build.log; exit 1; }
H=$PWD/build-gpu/hetune
mkdir -p /tmp/icd && cp /etc/OpenCL/vendors/*pocl* /tmp/icd/ 2>/dev/null
J=/tmp/j15; rm -rf $J; mkdir -p $J
cat > $J/rank.sh <<EOS
#!/usr/bin/env bash
r=\${OMPI_COMM_WORLD_RANK:-0}
export POCL_DEVICES=pthread POCL_MAX_PTHREAD_COUNT=8 POCL_CACHE_DIR=$J/pocl-\$r HETUNE_CACHE_DIR=$J/cache-\$r
export OCL_ICD_VENDORS=/tmp/icd OCL_ICD_FILENAMES=\$(cat /tmp/icd/*.icd | head -1)
exec taskset -c \$(( r * 8 ))-\$(( r * 8 + 7 )) $H "\$@"
EOS
chmod +x $J/rank.sh
F=(--oversubscribe --bind-to none); [ "$(id -u)" = 0 ] && F+=(--allow-run-as-root)
export OMPI_MCA_pml=ob1
S="bench/mpi/split-spec.json --size N=8388608"
{
mpirun "${F[@]}" -n 2 $J/rank.sh tune $S --db $J/t.db -q
for k in 1 2; do
  for o in "" "--refine 2"; do
    echo "== split over MPI, run $k, options: ${o:-none}"
    mpirun "${F[@]}" -n 2 $J/rank.sh split $S --db $J/t.db --force $o 2>&1 | grep -E "^[01] |^nodes|^refined|^bound|^measured|^efficiency|^verification"
  done
done
} > $OUT/s15.log 2>&1
cat $OUT/s15.log
