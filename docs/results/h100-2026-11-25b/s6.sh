#!/usr/bin/env bash
# 2026-11-25 (4th session), call 4: the merged tree on CPU+H100: the split hetune decides for
# vecadd 2^26, gesummv 8192 (twice each), conv1d 2^22, blackscholes and nbody (tuned first,
# on both devices), beside each device alone; the database of call 2.
set -u
rm -rf /tmp/w && mkdir -p /tmp/w && tar -xf .gpu/snap.tar -C /tmp/w && cp -r .gpu /tmp/w/ && cd /tmp/w
chmod -R u+w .gpu
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF -DHETUNE_STATIC_DEPS=ON \
  -DCMAKE_PREFIX_PATH=$PWD/.gpu > $OUT/build.log 2>&1 && cmake --build build-gpu -j16 >> $OUT/build.log 2>&1 ||
  { tail -30 $OUT/build.log; exit 1; }
H=$PWD/build-gpu/hetune
export HETUNE_CACHE_DIR=/tmp/cache
J=/tmp/j; mkdir -p $J
DB=$J/s6.db
cp .gpu/s5.db $DB
pack() { (cd $J && tar czf $OUT/s6.tgz .); }
{
which mpirun || echo "no mpirun here"
for c in "vecadd|--size N=67108864" "gesummv|--size N=8192" "vecadd|--size N=67108864" "gesummv|--size N=8192" \
         "conv1d|--size N=4194304" "blackscholes|" "nbody|"; do
  e=${c%%|*}; s=${c#*|}
  n=$(ls $J/$e-*.json 2>/dev/null | wc -l)
  timeout 150 $H split examples/$e/spec.json $s --device 0,1 --db $DB -q --json > $J/$e-$n.json 2>$J/$e-$n.err
  echo "$e $n rc=$?"
  python3 - $J/$e-$n.json <<'PY'
import json, sys
try: d = json.load(open(sys.argv[1]))
except Exception as e: print("  unreadable", e); sys.exit()
fa = d["fastest_alone"]; m = d.get("measured") or {}
w = m.get("wall_seconds") or fa["wall_seconds"]
alone = "; ".join(f"dev {x['index']} alone {x['alone']['wall_seconds']*1e3:.3f} ms" for x in d["devices"] if x.get("alone"))
sh = " ".join(f"{x.get('adjusted_factor', 0):.3f}" for x in d["devices"])
print(f"  decision {d['decision']}: wall {w*1e3:.3f} ms, shares [{sh}], fastest alone dev {fa['device']} {fa['wall_seconds']*1e3:.3f} ms, speedup {d.get('speedup') or 0:.3f}x; {alone}; bound {(d.get('estimate') or {}).get('bound_seconds', 0)*1e3:.3f} ms")
PY
  pack
done
} > $OUT/s6.log 2>&1
cat $OUT/s6.log
