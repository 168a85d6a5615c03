#!/usr/bin/env bash
# 2026-11-25 session, call 2: issue 18 parts 2 and 3 on the H100 and PoCL (16 cores), and
# issue 12's vecadd at the tuned CPU units against a sweep.
set -u
rm -rf /tmp/w && mkdir -p /tmp/w && tar -xf .gpu/snap.tar -C /tmp/w && cp -r .gpu /tmp/w/ && cd /tmp/w
chmod -R u+w .gpu
t0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF -DHETUNE_STATIC_DEPS=ON \
  -DCMAKE_PREFIX_PATH=$PWD/.gpu > $OUT/build.log 2>&1 && cmake --build build-gpu -j16 >> $OUT/build.log 2>&1 ||
  { tail -30 $OUT/build.log; exit 1; }
H=$PWD/build-gpu/hetune
export HETUNE_CACHE_DIR=/tmp/cache
mkdir -p $OUT/fir1 $OUT/fir0 $OUT/pred
{
echo "== fir on the H100 (device 1)"
OUT=$OUT/fir1 timeout 240 bench/fir/run.sh $H 1
echo "== fir on PoCL, 16 cores (device 0)"
OUT=$OUT/fir0 timeout 240 bench/fir/run.sh $H 0
} > $OUT/fir.log 2>&1
echo "fir done $(( $(date +%s) - t0 )) s"
OUT=$OUT/pred timeout 300 bench/predict/run.sh $H 1 > $OUT/predict.log 2>&1
echo "predict done rc=$? $(( $(date +%s) - t0 )) s"
(cd $OUT && tar czf s2.tgz fir0 fir1 pred && rm -rf fir0 fir1 pred)
tail -40 $OUT/fir.log
tail -30 $OUT/predict.log
