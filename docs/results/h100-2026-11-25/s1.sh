#!/usr/bin/env bash
# 2026-11-25 session: issue 13 (supervised co-execution on CPU+H100), issue 18 (cpu units,
# fir transformations, prediction). Everything under $OUT.
set -u
rm -rf /tmp/w && mkdir -p /tmp/w && tar -xf .gpu/snap.tar -C /tmp/w && cp -r .gpu /tmp/w/ && cd /tmp/w
chmod -R u+w .gpu
t0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHETUNE_TESTS=OFF -DHETUNE_STATIC_DEPS=ON \
  -DCMAKE_PREFIX_PATH=$PWD/.gpu > $OUT/build.log 2>&1 && cmake --build build-gpu -j16 >> $OUT/build.log 2>&1 ||
  { tail -30 $OUT/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
H=$PWD/build-gpu/hetune
export HETUNE_CACHE_DIR=/tmp/cache
LOG=$OUT/s1.log
DB=$OUT/s1.db
{
$H devices | grep -E "^[0-9]|type" 
$H devices --bandwidth --db $DB -q | tail -4
echo "== tune vecadd 2^26 on both"
for d in 0 1; do timeout 200 $H tune examples/vecadd/spec.json --size N=67108864 --device $d --db $DB -q | grep -E "best|evaluated"; done
echo "== issue 13: slicefault on CPU+H100 (paper plan, forced): crash, hang, driver failure"
for d in 0 1; do $H tune tests/fixtures/fault/slicefault.json --size N=1048576 --size FAULT=0 --device $d --db $DB -q >/dev/null; done
for f in 1 2; do
  for d in 0 1; do timeout 120 $H tune tests/fixtures/fault/slicefault.json --size N=1048576 --size FAULT=$f --device $d --db $DB -q > /dev/null 2>&1; echo "tune FAULT=$f dev $d rc=$?"; done
  s=$(date +%s.%N)
  timeout 200 $H split tests/fixtures/fault/slicefault.json --size N=1048576 --size FAULT=$f --device 0,1 --force --plan paper --timeout 5 --db $DB --json > $OUT/fault$f.json 2> $OUT/fault$f.err; rc=$?
  e=$(date +%s.%N)
  echo "FAULT=$f split rc=$rc in $(echo "$e - $s" | bc) s"; cat $OUT/fault$f.err
  python3 -c "import json;d=json.load(open('$OUT/fault$f.json'));print(' decision',d['decision'],'skipped',d['skipped'],'verified',d['verification']['verified'])"
done
for dev in 0 1; do
  HETUNE_TEST_SLICE_FAIL=$dev timeout 200 $H split tests/fixtures/fault/slicefault.json --size N=1048576 --size FAULT=0 --device 0,1 --force --plan paper --db $DB --json > $OUT/inj.json 2> $OUT/inj.err; echo "inject $dev rc=$?"; grep -v "^$" $OUT/inj.err | tail -3
done
echo "== after the hang, the H100 still works: vecadd tune on it"
timeout 120 $H eval examples/vecadd/spec.json --size N=67108864 --device 1 --set WG=256 --set EPT=1 | grep -E "kernel|verification"
echo "== supervision cost: vecadd 2^26 split, supervised vs --no-isolate, 3 each (command wall, split wall)"
for i in 1 2 3; do for m in "" "--no-isolate"; do
  s=$(date +%s.%N); timeout 200 $H split examples/vecadd/spec.json --size N=67108864 --device 0,1 --db $DB -q --json $m > $OUT/c.json 2>/dev/null; e=$(date +%s.%N)
  python3 -c "import json;d=json.load(open('$OUT/c.json'));print('  ${m:-supervised}', 'command %.2f s' % ($e - $s), 'measured wall %.3f ms' % (1e3*d['measured']['wall_seconds']), d['decision'])"
done; done
echo "== issue 18 part 1: cpu units auto (vecadd 2^26, gesummv 8192)"
CASES="examples/vecadd/spec.json|--size N=67108864;examples/gesummv/spec.json|--size N=8192" DB=$DB timeout 400 bench/split/dop.sh $H 0,1
} > $LOG 2>&1
echo "s1 done $(( $(date +%s) - t0 )) s"
(cd $OUT && tar czf s1.tgz *.json *.err s1.db && rm -f *.json *.err s1.db)
tail -80 $LOG
