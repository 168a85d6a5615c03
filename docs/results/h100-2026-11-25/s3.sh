#!/usr/bin/env bash
# 2026-11-25 session, call 3: issue 12's vecadd 2^26 on CPU+H100: --cpu-units auto decided
# (3 runs) against sweeps of the CPU's share at 12 and 16 CPU units.
set -u
rm -rf /tmp/w && mkdir -p /tmp/w && tar -xf .gpu/snap.tar -C /tmp/w && cp -r .gpu /tmp/w/ && cd /tmp/w
chmod -R u+w .gpu
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF -DHETUNE_STATIC_DEPS=ON \
  -DCMAKE_PREFIX_PATH=$PWD/.gpu > $OUT/build.log 2>&1 && cmake --build build-gpu -j16 >> $OUT/build.log 2>&1 ||
  { tail -30 $OUT/build.log; exit 1; }
H=$PWD/build-gpu/hetune
export HETUNE_CACHE_DIR=/tmp/cache
DB=$OUT/s3.db
cp .gpu/s1.db $DB
V="examples/vecadd/spec.json --size N=67108864 --device 0,1 --db $DB -q --json"
{
for u in 12 16; do
  timeout 200 $H split $V --cpu-units $u --force --sweep 0.05 > $OUT/sweep$u.json 2>/dev/null; echo "sweep $u rc=$?"
done
for r in 1 2 3; do
  timeout 200 $H split $V --cpu-units auto > $OUT/auto$r.json 2>/dev/null; echo "auto $r rc=$?"
  timeout 100 $H split $V > $OUT/plain$r.json 2>/dev/null; echo "plain $r rc=$?"
done
python3 - $OUT <<'PY'
import json, sys, os
o = sys.argv[1]
for u in (12, 16):
    d = json.load(open(f"{o}/sweep{u}.json"))
    pts = d["sweep"]
    best = min(pts, key=lambda p: p.get("seconds") or p.get("wall_seconds"))
    b = best.get("seconds") or best.get("wall_seconds")
    print(f"sweep at {u} units: best {b*1e3:.3f} ms at device-0 factor {best['factor']:.2f}; fastest alone {d['fastest_alone']['wall_seconds']*1e3:.3f} ms; best/alone speedup {d['fastest_alone']['wall_seconds']/b:.3f}x")
for r in (1, 2, 3):
    for kind in ("auto", "plain"):
        d = json.load(open(f"{o}/{kind}{r}.json"))
        w = d["measured"]["wall_seconds"]
        dop = " ".join(f"{x['cpu_units']}:{x['wall_seconds']*1e3:.2f}" for x in d.get("dop") or [])
        print(f"{kind:5s} {r}: wall {w*1e3:.3f} ms, decision {d['decision']}, cpu_units {d['cpu_units']}, speedup {d['speedup']:.3f}x  [{dop}]")
PY
} > $OUT/s3.log 2>&1
(cd $OUT && tar czf s3.tgz *.json s3.db && rm -f *.json s3.db)
cat $OUT/s3.log
