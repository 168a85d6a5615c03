#!/usr/bin/env bash
# A build failure's reason names the spec's kernel file and the line in it, not the
# driver's temporary copy of the source (PoCL's /tmp/pocl... or kcache/tempfile_....cl):
# in eval's --json and its log, and in the reason tune stores.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp build-reason

run devices --json
require_platform

# vecadd, whose kernel has a syntax error on line 9 for WG == 64 only.
mkdir "$tmp/k"
cat >"$tmp/k/kernel.cl" <<'EOF'
__kernel void vecadd(__global const float *a, __global const float *b, __global float *c, int n)
{
    size_t i = get_global_id(0);
    if (i < (size_t)n)
        c[i] = a[i] + b[i];
}

#if WG == 64
this is not C;
#endif
EOF
cat >"$tmp/k/spec.json" <<'EOF'
{
  "name": "vecadd",
  "kernel": { "file": "kernel.cl", "name": "vecadd" },
  "sizes": { "N": 1024 },
  "params": { "WG": { "values": [16, 64] } },
  "ndrange": { "global": ["N"], "local": ["WG"] },
  "args": [
    { "name": "a", "type": "float", "shape": ["N"], "access": "read",  "index": ["gx"] },
    { "name": "b", "type": "float", "shape": ["N"], "access": "read",  "index": ["gx"] },
    { "name": "c", "type": "float", "shape": ["N"], "access": "write", "index": ["gx"] },
    { "name": "n", "type": "int", "value": "N" }
  ],
  "verify": { "reference": { "WG": 16 } }
}
EOF
kernel="$tmp/k/kernel.cl"

run eval "$tmp/k/spec.json" --device 0 --set WG=64 --json --cache-dir "$tmp/cache"
expect_status 2
check "d['status'] == 'build'"
check "'$kernel:9:' in d['error'] and 'pocl' not in d['error'].lower()"
# The log printed with it names the kernel file too.
expect_err "$kernel:9:"
if grep -qi 'tempfile\|/tmp/pocl' "$tmp/err"; then
    fail "the build log still names the driver's file: $(cat "$tmp/err")"
fi

run tune "$tmp/k/spec.json" --device 0 --db "$tmp/t.db" --cache-dir "$tmp/cache"
python3 - "$tmp/t.db" "$kernel" <<'PY' || fail "stored reason"
import sqlite3, sys
db, kernel = sys.argv[1], sys.argv[2]
rows = sqlite3.connect(db).execute(
    "select config, status, reason from evaluations order by config").fetchall()
bad = [r for r in rows if r[0] == 'WG=64']
assert len(bad) == 1 and bad[0][1] == 'build', rows
assert kernel + ':9:' in bad[0][2] and 'pocl' not in bad[0][2].lower(), bad[0][2]
PY
echo "ok"
