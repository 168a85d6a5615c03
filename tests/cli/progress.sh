#!/usr/bin/env bash
# Progress on stderr (issue 14 item 8): a tune whose stderr is a file prints a plain line
# every few seconds (done/total, elapsed, best so far); with -q it prints none; on a
# terminal (a pseudo-terminal made by python3) the bar is drawn as before. The lines come
# every $HETUNE_PROGRESS_EVERY seconds here (0.05), so that the test does not depend on how
# long a tune lasts (it needed 6 s once, and was flaky: issue 29 item 11); the tunes build
# 4 configurations of vecadd (and its reference) without hetune's or PoCL's cache, over a
# second at least, 20 times the interval: all 44 of them, as before, showed no more (one
# line is the property, and 4 builds give several).
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp progress
unset CI
export POCL_KERNEL_CACHE=0 # every build compiles, so each long tune stays long

spec="$HETUNE_SOURCE_DIR/examples/vecadd/spec.json"
db="$tmp/p.db"

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")
opts=(--device "$dev" --db "$db" --size N=65536 --no-cache --fresh --strategy exhaustive
      --budget 4)

export HETUNE_PROGRESS_EVERY=0.05

# 1. stderr to a file: at least one progress line, and only lines (no bar, no escapes).
run tune "$spec" "${opts[@]}"
expect_status 0
grep -Eq '^[0-9]+ .*: [0-9]+/[0-9]+ done, [0-9]+s elapsed, .* left(, best .*)?$' "$tmp/err" ||
    fail "no progress line in: $(cat "$tmp/err")"
if grep -q $'\r\|\033' "$tmp/err"; then fail "a bar's escapes in a file: $(cat -v "$tmp/err")"; fi

# 2. -q: nothing on stderr, the result on stdout as before.
run tune "$spec" "${opts[@]}" -q
expect_status 0
[ ! -s "$tmp/err" ] || fail "-q printed: $(cat "$tmp/err")"
grep -q "best " "$tmp/out" || fail "no result: $(cat "$tmp/out")"

# 3. On a terminal: the bar (carriage return, erase line, [###...]).
TERM=xterm python3 - "$HETUNE" tune "$spec" --device "$dev" --db "$db" --fresh --budget 2 \
    >"$tmp/tty" <<'PY' || fail "tune on a pseudo-terminal failed: $(cat -v "$tmp/tty")"
import os, pty, subprocess, sys
master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
out = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
sys.stdout.write(out.decode(errors="replace"))
sys.exit(p.wait())
PY
grep -q $'\r\033\\[K.*\\[[#.]\\{30\\}\\] [0-9]*/2 ' "$tmp/tty" || fail "no bar: $(cat -v "$tmp/tty")"

# 4. The default interval: a tune shorter than 5 s prints no line at all (checked only when
# it was that short: a loaded machine may take longer, and then a line is right).
t0=$(date +%s)
HETUNE_PROGRESS_EVERY= run tune "$spec" --device "$dev" --db "$db" --fresh --budget 1
t1=$(date +%s)
expect_status 0
if [ $((t1 - t0)) -lt 4 ] && grep -q " done, " "$tmp/err"; then
    fail "a line before 5 s: $(cat "$tmp/err")"
fi
echo ok
