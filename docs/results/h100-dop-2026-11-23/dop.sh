#!/usr/bin/env bash
# Issue 18 groundwork: vecadd N=2^26 split CPU+H100 with PoCL limited to 16 (all), 14 and 12
# of the 16 cores (POCL_CPU_MAX_CU_COUNT), each decided and swept by 0.1.
set -u
rm -rf /tmp/w && mkdir -p /tmp/w && tar -xf .gpu/snap.tar -C /tmp/w && cp -r .gpu /tmp/w/ && cd /tmp/w
chmod -R u+w .gpu
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF -DHETUNE_STATIC_DEPS=ON \
  -DCMAKE_PREFIX_PATH=$PWD/.gpu > $OUT/build.log 2>&1 && cmake --build build-gpu -j16 >> $OUT/build.log 2>&1 ||
  { tail -30 $OUT/build.log; exit 1; }
H=$PWD/build-gpu/hetune
export HETUNE_CACHE_DIR=/tmp/cache
cp .gpu/hetune.db $OUT/dop.db
for cu in 16 14 12; do
  echo "== POCL_CPU_MAX_CU_COUNT=$cu"
  POCL_CPU_MAX_CU_COUNT=$cu $H devices 2>&1 | sed -n 3p
  POCL_CPU_MAX_CU_COUNT=$cu timeout 200 $H split examples/vecadd/spec.json --size N=67108864 --device 0,1 \
      --db $OUT/dop.db -q --json > $OUT/dop-$cu.json 2> $OUT/dop-$cu.err; echo "decided rc=$?"
  POCL_CPU_MAX_CU_COUNT=$cu timeout 250 $H split examples/vecadd/spec.json --size N=67108864 --device 0,1 \
      --db $OUT/dop.db --force --sweep 0.1 -q --json > $OUT/dop-$cu-sweep.json 2> $OUT/dop-$cu-sweep.err; echo "sweep rc=$?"
  python3 - $OUT/dop-$cu.json $OUT/dop-$cu-sweep.json <<'PY'
import json, sys
for f in sys.argv[1:]:
    try:
        d = json.load(open(f))
    except Exception as e:
        print(" ", f, "no JSON", e); continue
    m = d.get("measured") or {}
    print("  %-40s decision %-20s wall %.3f ms speedup %s" % (f.rsplit('/',1)[1], d.get("decision"), 1e3*(m.get("wall_seconds") or 0), d.get("speedup")))
    for p in d.get("sweep") or []:
        print("     share %s wall %.3f ms" % (p.get("factor") or p.get("factors"), 1e3*(p.get("wall_seconds") or p.get("seconds") or 0)))
PY
done
