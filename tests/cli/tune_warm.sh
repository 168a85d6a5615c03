#!/usr/bin/env bash
# Builds ahead on PoCL (issue 25 item 4): with PoCL's kernel cache on, a build ahead builds
# the program and launches each of the configuration's kernels once on one work-group, so
# that PoCL compiles the work-group function for the local size then, in the build worker,
# and the measuring worker finds it in PoCL's cache; it computes no reference, verifies
# nothing and reads nothing back. The evidence is PoCL's own account (POCL_DEBUG=general:
# "Preparing kernel K with local size ... group sizes ...", "Built a specialized WG
# function: PATH", "Using a cached WG function: PATH"), not a time. Checked:
#   1. examples/sepconv at 64 x 64 (a reference kernel per configuration, pipelines of two
#      kernels), 4 configurations, --jobs 2: each configuration's kernels were launched on
#      one work-group (group sizes 1 x 1 x 1); no work-group function was compiled twice,
#      and every one a build ahead compiled was found cached by the measured launch; the
#      reference kernel was launched only by the measurements that verify (not once more
#      per build ahead);
#   2. a grid 262,144 work-items wide (tests/fixtures/tune/jobs.json without its fault
#      hooks): PoCL compiles another function for grids of 65,535 work-items or more, and
#      the warm-up, wide enough to fall on the same side, compiled the one the measured
#      launch used (each compiled once, none specialised for a small grid).
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp tune-warm

run devices --json
require_platform
cp "$tmp/out" "$tmp/devices.json"
if ! grep -q "Portable Computing Language" "$tmp/devices.json"; then
    echo "skipped: PoCL's kernel cache is what a build ahead warms" >&2
    exit 77
fi
dev=$(pthread_device "$tmp/devices.json")

# PoCL's account, one line per event: "built PATH", "cached PATH", "prepare KERNEL GROUPS".
pocl_events() {
    sed -n -e 's/.*Built a specialized WG function: \(.*\)$/built \1/p' \
        -e 's/.*Using a cached WG function: \(.*\)$/cached \1/p' \
        -e 's/.*Preparing kernel \([A-Za-z_0-9]*\) with local size .* group sizes \([0-9]*\) x \([0-9]*\) x \([0-9]*\).*/prepare \1 \2x\3x\4/p' \
        "$1"
}

# Every work-group function was compiled once, and each one a build ahead compiled for
# kernel $2 (an ERE) was then found in the cache.
check_compiled_once() {
    local ev=$1 kern=$2 dup
    dup=$(grep '^built ' "$ev" | sort | uniq -d)
    [ -z "$dup" ] || fail "work-group functions compiled twice: $dup"
    grep -E "^built .*/($kern)/" "$ev" | sed 's/^built //' | while read -r path; do
        grep -qxF "cached $path" "$ev" ||
            fail "the measured launch did not find $path in PoCL's cache: $(cat "$ev")"
    done
}

# 1. sepconv, small.
export POCL_KERNEL_CACHE=1 POCL_CACHE_DIR="$tmp/pocl1"
mkdir -p "$POCL_CACHE_DIR"
db="$tmp/sep.db"
POCL_DEBUG=general run tune "$HETUNE_SOURCE_DIR/examples/sepconv/spec.json" --device "$dev" \
    --size W=64 --size H=64 --strategy exhaustive --budget 4 --jobs 2 --db "$db" \
    --cache-dir "$tmp/cache1" --json
expect_status 0
check 'd["devices"][0]["evaluated"] == 4 and d["devices"][0]["built_ahead"] == 4'
check 'd["devices"][0]["driver_cache"] and d["devices"][0]["cache_hits"] == 4'
pocl_events "$tmp/err" >"$tmp/ev1"
ones=$(grep -cE '^prepare sepconv(_rows|_cols)? 1x1x1$' "$tmp/ev1" || true)
launches=$(python3 - "$db" <<'EOF'
import sqlite3, sys
# The kernels each configuration launches: one for VARIANT <= 2, two above.
rows = sqlite3.connect(sys.argv[1]).execute("SELECT config FROM evaluations").fetchall()
print(sum(2 if int(dict(kv.split("=") for kv in c.split(","))["VARIANT"]) >= 3 else 1
          for (c,) in rows))
EOF
)
[ "$ones" -eq "$launches" ] ||
    fail "one-work-group launches: $ones, expected $launches (one per kernel of each configuration built ahead): $(grep '^prepare' "$tmp/ev1" | sort | uniq -c)"
check_compiled_once "$tmp/ev1" 'sepconv|sepconv_rows|sepconv_cols'
# Exactly as many reference launches as verified measurements: a build ahead launches none.
refs=$(grep -c '^prepare sepconv_ref ' "$tmp/ev1" || true)
ok=$(sql "q('''SELECT count(*) FROM evaluations WHERE status = 'ok' ''')[0][0]")
[ "$refs" -eq "$ok" ] ||
    fail "the reference kernel was launched $refs times for $ok verified configurations: $(grep '^prepare' "$tmp/ev1" | sort | uniq -c)"

# 2. A grid of 262,144 work-items in groups of 64.
export POCL_CACHE_DIR="$tmp/pocl2"
mkdir -p "$POCL_CACHE_DIR"
db="$tmp/wide.db"
POCL_DEBUG=general run tune "$HETUNE_SOURCE_DIR/tests/fixtures/tune/jobs.json" --device "$dev" \
    --strategy exhaustive --budget 2 --jobs 2 --db "$db" --cache-dir "$tmp/cache2" --json
expect_status 0
check 'd["devices"][0]["evaluated"] == 2 and d["devices"][0]["built_ahead"] == 2'
pocl_events "$tmp/err" >"$tmp/ev2"
check_compiled_once "$tmp/ev2" 'jobs'
[ "$(grep -c '^built .*/jobs/64-1-1-goffs0/' "$tmp/ev2" || true)" -eq 2 ] ||
    fail "expected the wide-grid function of each program compiled once: $(grep '^built' "$tmp/ev2")"
! grep -q '^built .*/jobs/.*smallgrid' "$tmp/ev2" ||
    fail "a build ahead compiled the small-grid function the measurement does not use: $(grep '^built' "$tmp/ev2")"
grep -q '^prepare jobs 1024x1x1$' "$tmp/ev2" ||
    fail "the warm-up was not 1,024 groups of 64: $(grep '^prepare' "$tmp/ev2" | sort | uniq -c)"
echo "ok"
