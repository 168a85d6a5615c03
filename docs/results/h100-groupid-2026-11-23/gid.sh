#!/usr/bin/env bash
# Issue 14 on the GPU machine: the group-id kernels and the borrowed blur, tuned on the CPU
# (PoCL) and the H100, then split (as decided, and forced), verified against one device.
set -u
rm -rf /tmp/w && mkdir -p /tmp/w && tar -xf .gpu/snap.tar -C /tmp/w && cp -r .gpu /tmp/w/ && cd /tmp/w
chmod -R u+w .gpu
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF -DHETUNE_STATIC_DEPS=ON \
  -DCMAKE_PREFIX_PATH=$PWD/.gpu > $OUT/build.log 2>&1 && cmake --build build-gpu -j16 >> $OUT/build.log 2>&1 ||
  { tail -30 $OUT/build.log; exit 1; }
H=$PWD/build-gpu/hetune
export HETUNE_CACHE_DIR=/tmp/cache
mkdir -p $OUT/json
for c in "tiledstencil|" "tiledmatmul|" "gridstride|--dim 1" "borrowed|--dim 1"; do
  name=${c%%|*}; extra=${c#*|}
  echo "== $name"
  timeout 250 $H tune examples/$name/spec.json --device all --db $OUT/gid.db -q > /dev/null 2>$OUT/$name-tune.err || tail -3 $OUT/$name-tune.err
  for force in "" "--force"; do
    timeout 120 $H split examples/$name/spec.json --device 0,1 --db $OUT/gid.db $extra $force -q --json > $OUT/json/$name$force.json 2> $OUT/$name$force.err
    echo "split $force rc=$?"
    python3 - $OUT/json/$name$force.json <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("  no JSON:", e); sys.exit(0)
v = d.get("verification") or {}
print("  decision:", d.get("decision"), "| verified:", v.get("verified"), "mismatches:", v.get("mismatches"),
      "| wall:", d.get("wall_seconds") or d.get("measured", {}), "| speedup:", d.get("speedup"))
PY
  done
done
cd $OUT && tar -czf json.tgz json && rm -rf json
