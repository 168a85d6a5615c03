#!/usr/bin/env bash
# hetune tune over a space far too large to list (issue 13, item 4: a parameter of 10^12
# values): with --budget 2 every strategy draws its configurations from the space instead
# of listing it, so it finishes in seconds with flat memory (listing it passed 2 GB in 8 s
# before running out), and a rerun measures none of the stored configurations again.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp tune_huge

spec="$HETUNE_SOURCE_DIR/tests/fixtures/tune/huge.json"

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")

# Unless the build is sanitized (ASan reserves terabytes of address space), the address
# space is capped at 1.5 GB too, so that a build that lists the space fails at once with
# "out of memory" rather than waking the kernel's OOM killer.
as_limit=0
ldd "$HETUNE" 2>/dev/null | grep -q 'libasan' || as_limit=$((1536 * 1024 * 1024))
export AS_LIMIT="$as_limit"

# Runs hetune with the given arguments like run, and puts the peak resident memory of the
# process (getrusage of the child, kB) in $tmp/rss and its wall time (s) in $tmp/secs.
run_measured() {
    status=0
    python3 - "$HETUNE" "$@" >"$tmp/out" 2>"$tmp/err" <<'EOF' || status=$?
import os, resource, subprocess, sys, time
limit = int(os.environ["AS_LIMIT"])
def cap():
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
t0 = time.monotonic()
rc = subprocess.call(sys.argv[1:], stdout=sys.stdout, stderr=sys.stderr, preexec_fn=cap)
secs = time.monotonic() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
tmp = os.environ["TMPDIR_TEST"]
open(tmp + "/rss", "w").write("%d\n" % rss)
open(tmp + "/secs", "w").write("%.2f\n" % secs)
sys.exit(rc)
EOF
}
export TMPDIR_TEST="$tmp"

# Listing the space takes 24 bytes per configuration: 10^12 of them would be 24 TB. The
# device's compiler alone takes a few hundred MB, so 1 GB leaves room for a sanitized
# build and none for a listing. The time limit is generous for a loaded machine; the runs
# take a second or two each.
for strategy in exhaustive random genetic anneal; do
    db="$tmp/$strategy.db"
    for round in 1 2; do
        run_measured tune "$spec" --device "$dev" --db "$db" --strategy "$strategy" \
            --budget 2 --seed 3 --json
        expect_status 0
        rss=$(cat "$tmp/rss")
        secs=$(cat "$tmp/secs")
        echo "$strategy round $round: ${secs} s, peak ${rss} kB"
        [ "$rss" -lt 1048576 ] || fail "$strategy: peak memory $rss kB, more than 1 GB"
        python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 60 else 1)" "$secs" ||
            fail "$strategy: took $secs s"
        check "d['devices'][0]['space'] == 4 * 10**12"
        check "d['devices'][0]['evaluated'] == 2 and d['devices'][0]['from_db'] == 2 * ($round - 1)"
        check "d['devices'][0]['best'] is not None"
    done
    # Nothing measured twice: four evaluations, four configurations.
    python3 - "$db" <<'EOF' || fail "$strategy: a configuration was measured twice"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n, distinct = db.execute("SELECT count(*), count(DISTINCT config) FROM evaluations").fetchone()
sys.exit(0 if n == 4 and distinct == 4 else 1)
EOF
done

# The exhaustive walk is streamed: its first configurations, in the walk's order, then
# the next ones on a rerun.
db="$tmp/exhaustive.db"
python3 - "$db" <<'EOF' || fail "exhaustive did not take the walk's first configurations"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = [r[0] for r in db.execute("SELECT config FROM evaluations ORDER BY id")]
xs = sorted(int(c.split("X=")[1].split(",")[0]) for c in rows)
sys.exit(0 if xs == [1, 1, 2, 2] or xs == [1, 2, 3, 4] else 1)
EOF
# Past 2^64 (issue 29 item 8): 4 x 10^30 configurations are said as such, in text and in
# JSON ("space": null beside the exact "space_text"), never as 2^64 - 1 or -1.
python3 - "$spec" "$tmp/huger.json" <<'EOF'
import json, os, sys
s = json.load(open(sys.argv[1]))
s["kernel"]["file"] = os.path.join(os.path.dirname(sys.argv[1]), s["kernel"]["file"])
s["params"]["Y"] = {"range": [1, 1000000000]}
s["params"]["Z"] = {"range": [1, 1000000000]}
s["verify"]["reference"].update({"Y": 1, "Z": 1})
json.dump(s, open(sys.argv[2], "w"))
EOF
run tune "$tmp/huger.json" --device "$dev" --db "$tmp/huger.db" --strategy random --budget 1 --seed 3
expect_status 0
grep -q "space        4000000000000000000000000000000 valid configurations" "$tmp/out" ||
    fail "a space past 2^64: $(cat "$tmp/out")"
run tune "$tmp/huger.json" --device "$dev" --db "$tmp/huger.db" --strategy random --budget 1 --seed 4 --json
expect_status 0
check "d['devices'][0]['space'] is None and d['devices'][0]['space_text'] == str(4 * 10**30)"
echo "ok"
