#!/usr/bin/env bash
# -q silences the worker processes too (issue 29 item 12): a kernel's printf, the driver's
# and the C library's messages from an isolated session's worker reached the terminal under
# -q. Without -q the kernel's line shows (so the check can fail); with -q stderr is empty.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp quiet_worker

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")

cat >"$tmp/kernel.cl" <<'CL'
__kernel void addvec(const unsigned int n, __global float *a, __global const float *b,
                     __global const float *c)
{
    const size_t i = get_global_id(0);
    if (i == 0)
        printf("hello from the kernel\n");
    if (i < n)
        a[i] = b[i] + c[i];
}
CL
python3 - "$HETUNE_SOURCE_DIR/examples/vecadd/spec.json" "$tmp/spec.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["sizes"] = {"N": 1024}
s["ndrange"]["global"] = ["N"]
s["params"] = {"WG": {"values": [32, 64]}}
s["constraints"] = []
s.pop("verify", None)
s["timing"] = {"repeats": 2}
json.dump(s, open(sys.argv[2], "w"))
PY

run tune "$tmp/spec.json" --device "$dev" --db "$tmp/a.db" --fresh
expect_status 0
grep -q "hello from the kernel" "$tmp/err" || fail "without -q the kernel's printf should show"

run tune "$tmp/spec.json" --device "$dev" --db "$tmp/b.db" --fresh -q
expect_status 0
[ ! -s "$tmp/err" ] || fail "-q: stderr not empty: $(head -5 "$tmp/err")"
echo "quiet_worker: ok"
