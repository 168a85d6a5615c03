#!/usr/bin/env bash
# 2026-11-25 (4th session), call 2: does one or two refinement rounds bring the decided split
# nearer the sweep's best? gesummv 8192 and vecadd 2^26 on CPU+H100, plain and --refine 2
# alternating, then a sweep of the CPU's share by 0.05; the database of call 1 (s4.db).
set -u
rm -rf /tmp/w && mkdir -p /tmp/w && tar -xf .gpu/snap.tar -C /tmp/w && cp -r .gpu /tmp/w/ && cd /tmp/w
chmod -R u+w .gpu
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF -DHETUNE_STATIC_DEPS=ON \
  -DCMAKE_PREFIX_PATH=$PWD/.gpu > $OUT/build.log 2>&1 && cmake --build build-gpu -j16 >> $OUT/build.log 2>&1 ||
  { tail -30 $OUT/build.log; exit 1; }
H=$PWD/build-gpu/hetune
export HETUNE_CACHE_DIR=/tmp/cache
J=/tmp/j; mkdir -p $J
DB=$J/s5.db
cp .gpu/s4.db $DB
pack() { (cd $J && tar czf $OUT/s5.tgz .); }
summ() { python3 - $J "$1" "$2" <<'PY'
import json, sys, glob
j, case, kind = sys.argv[1:]
for f in sorted(glob.glob(f"{j}/{case}-{kind}*.json")):
    try: d = json.load(open(f))
    except Exception as e: print(f, "unreadable", e); continue
    if d.get("sweep"):
        pts = d["sweep"]
        t = lambda p: p.get("seconds") or p.get("wall_seconds")
        best = min(pts, key=t)
        print(f"{f.split('/')[-1]}: sweep best {t(best)*1e3:.3f} ms at device-0 factor {best['factor']:.2f}; alone {d['fastest_alone']['wall_seconds']*1e3:.3f} ms")
        print("   " + " ".join(f"{p['factor']:.2f}:{t(p)*1e3:.2f}" for p in pts))
    else:
        w = d["measured"]["wall_seconds"] if d.get("measured") else None
        sh = " ".join(f"{x.get('adjusted_factor', 0):.3f}" for x in d["devices"])
        est = d.get("estimate") or {}
        rf = d.get("refine") or {}
        rounds = " ".join(f"{(r.get('wall_seconds') or 0)*1e3:.2f}" for r in (rf.get("rounds") or [])) if isinstance(rf, dict) else ""
        print(f"{f.split('/')[-1]}: decision {d['decision']} sched {d.get('scheduler')} wall {w*1e3 if w else -1:.3f} ms shares [{sh}] alone {d['fastest_alone']['wall_seconds']*1e3:.3f} ms speedup {d.get('speedup') or 0:.3f}x predicted {(est.get('split_seconds') or 0)*1e3:.3f} ms rounds [{rounds}]")
PY
}
{
V="examples/vecadd/spec.json --size N=67108864 --device 0,1 --db $DB -q --json"
G="examples/gesummv/spec.json --size N=8192 --device 0,1 --db $DB -q --json"
for r in 1 2 3; do
  timeout 100 $H split $G > $J/gesummv-plain$r.json 2>$J/gesummv-plain$r.err; echo "gesummv plain $r rc=$?"
  timeout 100 $H split $G --refine 2 > $J/gesummv-refine$r.json 2>$J/gesummv-refine$r.err; echo "gesummv refine $r rc=$?"
done
pack
timeout 200 $H split $G --force --sweep 0.05 > $J/gesummv-sweep.json 2>/dev/null; echo "gesummv sweep rc=$?"
summ gesummv plain; summ gesummv refine; summ gesummv sweep
pack
for r in 1 2; do
  timeout 100 $H split $V > $J/vecadd-plain$r.json 2>$J/vecadd-plain$r.err; echo "vecadd plain $r rc=$?"
  timeout 100 $H split $V --refine 2 > $J/vecadd-refine$r.json 2>$J/vecadd-refine$r.err; echo "vecadd refine $r rc=$?"
done
summ vecadd plain; summ vecadd refine
pack
} > $OUT/s5.log 2>&1
cat $OUT/s5.log
