#!/usr/bin/env bash
# Code transformations as tuning parameters (issue 18, part 3): examples/fir tunes loop
# unrolling (UNROLL 0, 1, 2, 4, 8) and vector width (VW 1..16, vloadN/vstoreN) through -D;
# every configuration builds on PoCL, runs and verifies bit for bit against the scalar one.
# The raw "#pragma unroll 0" the kernel's macro avoids does not build (so the check has
# teeth), and a wrong vector store fails verification.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp transform
# PoCL's own kernel cache (common.bash), in the tests' cache folder: every configuration is
# built with --no-cache, so hetune's binary cache plays no part, and the sanitized pass of
# make test loads the plain pass's programs from PoCL's cache instead of compiling the 25
# again (what they compile to is the same: the plain pass builds each one, and a build
# that fails, as raw.cl's, is never cached).
pocl_cache_on

run devices --json
require_platform
cp "$tmp/out" "$tmp/devices.json"
dev=$(pthread_device "$tmp/devices.json")

# One work-group size, a small N: 25 configurations, each built once.
cp "$HETUNE_SOURCE_DIR/examples/fir/kernel.cl" "$tmp/kernel.cl"
sed 's/"WG": { "values": \[32, 128\] }/"WG": { "values": [32] }/' \
    "$HETUNE_SOURCE_DIR/examples/fir/spec.json" >"$tmp/spec.json"
grep -q '"values": \[32\] }' "$tmp/spec.json" || fail "could not write spec.json"
db="$tmp/t.db"
run tune "$tmp/spec.json" --device "$dev" --size N=8192 --db "$db" --cut-factor 0 --no-cache --json
expect_status 0
[ "$(sql "q(\"SELECT count(*) FROM evaluations WHERE status = 'ok' AND verified = 1\")[0][0]")" = 25 ] ||
    fail "not every configuration verified: $(sql "q('SELECT config, status, reason FROM evaluations')")"
[ "$(sql "sorted({c.split(',')[1] for (c,) in q('SELECT config FROM evaluations')})")" = \
  "['UNROLL=0', 'UNROLL=1', 'UNROLL=2', 'UNROLL=4', 'UNROLL=8']" ] || fail "unroll factors missing"
[ "$(sql "q(\"SELECT count(DISTINCT config) FROM evaluations WHERE config LIKE '%VW=16'\")[0][0]")" = 5 ] ||
    fail "VW=16 missing"

# "#pragma unroll 0" itself does not build on PoCL: the reason the macro leaves 0 out.
sed 's/^#define UNROLL_LOOP$/#define UNROLL_LOOP _Pragma("unroll 0")/' "$tmp/kernel.cl" >"$tmp/raw.cl"
grep -q '_Pragma("unroll 0")' "$tmp/raw.cl" || fail "could not write raw.cl"
sed 's/"file": "kernel.cl"/"file": "raw.cl"/' "$tmp/spec.json" >"$tmp/raw.json"
run eval "$tmp/raw.json" --device "$dev" --size N=8192 --set WG=32 --set UNROLL=0 --set VW=4 --no-cache
expect_status 2
expect_err "must be positive"

# A vector store one element off is caught by verification: the outputs are compared.
sed 's/VSTORE(acc, 0, out + first);/VSTORE(acc, 0, out + first + (VW > 1));/' "$tmp/kernel.cl" >"$tmp/off.cl"
grep -q 'first + (VW > 1)' "$tmp/off.cl" || fail "could not write off.cl"
sed 's/"file": "kernel.cl"/"file": "off.cl"/' "$tmp/spec.json" >"$tmp/off.json"
run eval "$tmp/off.json" --device "$dev" --size N=8192 --set WG=32 --set UNROLL=2 --set VW=8 --no-cache
expect_status 3
echo "ok"
