#!/usr/bin/env bash
# 2026-11-26: split across 2 nodes on the GPU machine, one node with a GPU: rank 0 = PoCL's
# CPU device on cores 0-7 + the NVIDIA GPU, rank 1 = PoCL's CPU device on cores 8-15 (the
# NVIDIA platform hidden from it). conv1d of bench/mpi/split-spec.json at N (default 2^23).
# Tune with mpirun -n 2, then split over MPI (plain, and with the options given in $SPLIT_OPTS),
# and each node alone on one machine (hetune split) for comparison.
set -u
N=${N:-8388608}
ICD_ALL=${OCL_ICD_FILENAMES:-}   # this machine's mpirun passes a shorter value: set it again for rank 0
if [ -n "${NOBUILD:-}" ]; then cd /tmp/w || exit 1; else
rm -rf /tmp/w && mkdir -p /tmp/w && tar -xf .gpu/snap.tar -C /tmp/w && cp -r .gpu /tmp/w/ && cd /tmp/w
chmod -R u+w .gpu
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF -DHETUNE_STATIC_DEPS=ON \
  -DCMAKE_PREFIX_PATH=$PWD/.gpu > $OUT/build.log 2>&1 && cmake --build build-gpu -j16 >> $OUT/build.log 2>&1 ||
  { tail -30 $OUT/build.log; exit 1; }
fi
H=${H:-$PWD/build-gpu/hetune}
mkdir -p /tmp/icd && cp /etc/OpenCL/vendors/*pocl* /tmp/icd/ 2>/dev/null
J=/tmp/j10; rm -rf $J; mkdir -p $J
cat > $J/rank.sh <<EOS
#!/usr/bin/env bash
r=\${OMPI_COMM_WORLD_RANK:-0}
export POCL_DEVICES=pthread POCL_MAX_PTHREAD_COUNT=8 POCL_CACHE_DIR=$J/pocl-\$r HETUNE_CACHE_DIR=$J/cache-\$r
if [ "\$r" != 0 ]; then export OCL_ICD_VENDORS=/tmp/icd OCL_ICD_FILENAMES=\$(cat /tmp/icd/*.icd | head -1); else export OCL_ICD_FILENAMES=$ICD_ALL; fi
exec taskset -c \$(( r * 8 ))-\$(( r * 8 + 7 )) $H "\$@"
EOS
chmod +x $J/rank.sh
F=(--oversubscribe --bind-to none); [ "$(id -u)" = 0 ] && F+=(--allow-run-as-root)
S="bench/mpi/split-spec.json --size N=$N"
export OMPI_MCA_pml=ob1
{
echo "== devices (rank 0, rank 1)"
echo "ICD_ALL=$ICD_ALL"; for r in 0 1; do OMPI_COMM_WORLD_RANK=$r $J/rank.sh devices 2>&1 | grep -E "^[0-9]"; done
echo "== tune"
mpirun "${F[@]}" -n 2 $J/rank.sh tune $S --db $J/t.db 2>&1 | tail -25
for k in 1 2 3; do
  echo "== split over MPI, run $k ${SPLIT_OPTS:-}"
  mpirun "${F[@]}" -n 2 $J/rank.sh split $S --db $J/t.db ${SPLIT_OPTS:-} 2>&1 | tail -40
done
echo "== rank 0's node alone, hetune split (no MPI)"
POCL_DEVICES=pthread POCL_MAX_PTHREAD_COUNT=8 taskset -c 0-7 $H split $S --db $J/t.db -q 2>&1 | tail -25
} > $OUT/s10.log 2>&1
cat $OUT/s10.log
