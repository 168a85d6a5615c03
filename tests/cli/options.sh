#!/usr/bin/env bash
# The CLI's habits (issue 15 item 5): 'hetune help CMD' is 'hetune CMD --help'; every short
# option has one meaning across commands (the table in src/cli/cli.h and every --help
# agree); -v says what was built and where and the cache hits; -q keeps a tune's stderr
# empty.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp options

commands=$("$HETUNE" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
[ -n "$commands" ] || fail "no commands in hetune --help"
for c in $commands; do
    "$HETUNE" "$c" --help >"$tmp/a" || fail "hetune $c --help failed"
    "$HETUNE" help "$c" >"$tmp/b" || fail "hetune help $c failed"
    cmp -s "$tmp/a" "$tmp/b" || fail "hetune help $c differs from hetune $c --help"
done
run help nosuch
expect_status 2
expect_err "'nosuch' is not a command"
# A mistyped command gets a guess (issue 28 item 6); --version is in --help.
run tnue
expect_status 2
expect_err "'tnue' is not a command (did you mean 'tune'?)"
"$HETUNE" --help | grep -q -- "--version" || fail "hetune --help does not name --version"
# Every command takes -q (scripts pass it everywhere).
for c in $commands; do
    "$HETUNE" "$c" --help | grep -q -- "-q, --quiet" || fail "hetune $c --help has no -q"
done

# The table: no letter twice.
python3 - "$HETUNE_SOURCE_DIR/src/cli/cli.h" >"$tmp/table" <<'PY' || fail "CLI_SHORT_OPTIONS: $(cat "$tmp/table")"
import re, sys
text = open(sys.argv[1]).read()
body = re.search(r"#define CLI_SHORT_OPTIONS\(X\)(.*?)\n\n", text, re.S).group(1)
pairs = re.findall(r"X\('(.)', \"([a-z-]+)\"\)", body)
letters = [c for c, _ in pairs]
dup = {c for c in letters if letters.count(c) > 1}
if not pairs or dup:
    print("letters twice:", dup or "no table"); sys.exit(1)
for c, name in pairs:
    print(c, name)
PY
# Every --help: each "-X, --long" is the table's pair, so no letter means two things.
for c in $commands; do
    "$HETUNE" "$c" --help | grep -oE '^  -[a-zA-Z], --[a-z-]+' | sed 's/^  -\(.\), --/\1 /' |
        while read -r letter name; do
            grep -qx "$letter $name" "$tmp/table" ||
                fail "hetune $c: -$letter, --$name is not in CLI_SHORT_OPTIONS"
        done
done

# A bad value: exit 2, the option as spelled and the value named, the range said the one
# taken (--jobs and --repeats said 0 was, then refused it).
run tune x.json --time-budget -1
expect_status 2
expect_err "--time-budget takes a non-negative number, not '-1'"
run tune x.json --jobs 1025
expect_status 2
expect_err "--jobs takes 1 to 1024, not '1025'"
run split x.json --repeats 0
expect_status 2
expect_err "--repeats takes an integer from 1 to 1000, not '0'"
run split x.json --repeats x
expect_status 2
expect_err "--repeats takes an integer from 1 to 1000, not 'x'"
run devices --bandwidth --bytes 0
expect_status 2
expect_err "--bytes takes 1 to 2^40 bytes, not '0'"
run devices --bandwidth --host-bytes x
expect_status 2
expect_err "--host-bytes takes 1 to 2^40 bytes, not 'x'"
run eval x.json -d 0 --set WG=abc
expect_status 2
expect_err "--set WG=abc: 'abc' is not an integer"

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")
vecadd="$HETUNE_SOURCE_DIR/examples/vecadd/spec.json"
cache="$tmp/cache"
export POCL_KERNEL_CACHE=0 # hetune's own cache is written and read

# -v: the build and where its binary went, then the cache hit, on stderr only.
run eval "$vecadd" -d "$dev" --size N=4096 -s WG=32 -s EPT=1 --cache-dir "$cache" -v
expect_status 0
expect_err "binary cached in $cache/"
run eval "$vecadd" -d "$dev" --size N=4096 -s WG=32 -s EPT=1 --cache-dir "$cache" -v
expect_status 0
expect_err "binary cache hit, loaded $cache/"
run eval "$vecadd" -d "$dev" --size N=4096 -s WG=32 -s EPT=1 --cache-dir "$cache"
expect_status 0
[ ! -s "$tmp/err" ] || fail "eval without -v wrote on stderr: $(cat "$tmp/err")"

# -q: a successful tune says nothing on stderr.
run tune "$vecadd" -d "$dev" --size N=4096 --budget 3 --db "$tmp/db" --cache-dir "$cache" -q
expect_status 0
[ ! -s "$tmp/err" ] || fail "tune -q wrote on stderr: $(cat "$tmp/err")"
grep -q "best" "$tmp/out" || fail "tune -q printed no result: $(cat "$tmp/out")"
echo "options: help, short options, -v and -q as expected"
