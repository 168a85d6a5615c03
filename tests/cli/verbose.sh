#!/usr/bin/env bash
# -v and -q on every command (issue 28 item 6): each command's -v adds lines on stderr that
# its plain run does not print, -q leaves stderr empty (and removes what a plain run says:
# tune's progress and reference step), the output on stdout is there in all three, and -q
# with -v is refused with exit status 2. Every --help lists both.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp verbose

commands=$("$HETUNE" --help | awk '/^commands:/ {on = 1; next} on && NF == 0 {exit} on {print $1}')
[ -n "$commands" ] || fail "hetune --help lists no commands"
for c in $commands; do
    "$HETUNE" "$c" --help >"$tmp/help" || fail "hetune $c --help failed"
    grep -q -- "-v, --verbose" "$tmp/help" || fail "hetune $c --help has no -v"
    grep -q -- "-q, --quiet" "$tmp/help" || fail "hetune $c --help has no -q"
    # Both at once is bad usage, whichever comes first, before anything runs.
    for pair in "-q -v" "-v -q"; do
        # shellcheck disable=SC2086 # the pair is two words
        run "$c" $pair
        [ "$status" -eq 2 ] || fail "hetune $c $pair: exit $status, want 2 ($(cat "$tmp/err"))"
        expect_err "-q and -v do not go together"
    done
done

run devices --json
require_platform
cp "$tmp/out" "$tmp/devices.json"
dev=$(pthread_device "$tmp/devices.json")
vecadd="$HETUNE_SOURCE_DIR/examples/vecadd/spec.json"
# A progress line at every step, so that a plain tune has something on stderr for -q to
# remove however fast it runs.
# PoCL's cache in the tests' folder (set before the test's own HETUNE_CACHE_DIR), off until
# the eval's binary cache hit is checked: the tunes, splits and runs after it check what
# -v and -q print, not hetune's binary cache, and build through it.
pocl_cache_on
export POCL_KERNEL_CACHE=0
export HETUNE_PROGRESS_EVERY=0 HETUNE_CACHE_DIR="$tmp/cache"
cp "$HETUNE_SOURCE_DIR/tests/fixtures/interop/vecadd-t1.json" \
    "$HETUNE_SOURCE_DIR/tests/fixtures/interop/vecadd.cl" "$tmp/"

# Runs hetune "$@" plainly, with -v and with -q; $1 names the command in messages, $want
# is a text the -v run's stderr must hold; $fresh, when set, is a database removed before
# each run, so that each tunes. Leaves the three stderrs in $tmp/err.{plain,v,q}.
run_fresh() {
    [ -z "${fresh:-}" ] || rm -f "$fresh" "$fresh-wal" "$fresh-shm"
    run "$@"
}
three() {
    local label=$1
    shift
    run_fresh "$@"
    [ "$status" -eq 0 ] || fail "$label: exit $status: $(cat "$tmp/err")"
    [ -s "$tmp/out" ] || [ -n "${no_stdout:-}" ] || fail "$label: nothing on stdout"
    cp "$tmp/err" "$tmp/err.plain"
    run_fresh "$@" -v
    [ "$status" -eq 0 ] || fail "$label -v: exit $status: $(cat "$tmp/err")"
    [ -s "$tmp/out" ] || [ -n "${no_stdout:-}" ] || fail "$label -v: nothing on stdout"
    cp "$tmp/err" "$tmp/err.v"
    grep -qF -- "$want" "$tmp/err.v" || fail "$label -v: stderr lacks '$want': $(cat "$tmp/err.v")"
    grep -qF -- "$want" "$tmp/err.plain" && fail "$label: '$want' without -v: $(cat "$tmp/err.plain")"
    [ "$(wc -l <"$tmp/err.v")" -gt "$(wc -l <"$tmp/err.plain")" ] ||
        fail "$label -v: no more lines than without: $(cat "$tmp/err.v")"
    run_fresh "$@" -q
    [ "$status" -eq 0 ] || fail "$label -q: exit $status: $(cat "$tmp/err")"
    [ -s "$tmp/out" ] || [ -n "${no_stdout:-}" ] || fail "$label -q: nothing on stdout"
    cp "$tmp/err" "$tmp/err.q"
    [ ! -s "$tmp/err.q" ] || fail "$label -q: stderr is not empty: $(cat "$tmp/err.q")"
    return 0
}

want="hetune devices: device $dev: " three devices devices
want="hetune space: device $dev (" three space space "$vecadd" -d "$dev" --size N=4096
want="hetune plan: Eq. 9: device 1 takes" three plan plan -g 1000 -w 64,16 -t 1.5,1
want="binary cache hit, loaded $tmp/cache/" three eval eval "$vecadd" -d "$dev" --size N=4096 -s WG=32 -s EPT=1
export POCL_KERNEL_CACHE=1
want="evaluated WG=" three tune tune "$vecadd" -d "$dev" --size N=4096 --budget 2 --db "$tmp/t.db" --fresh
# A plain tune says its progress and reference step; -q removed them above.
grep -q "done" "$tmp/err.plain" || fail "a plain tune printed no progress: $(cat "$tmp/err.plain")"
fresh="$tmp/s.db" want="evaluated WG=" three split split "$vecadd" -d "$dev" --size N=8192 --budget 2 --db "$tmp/s.db" --repeats 1
fresh="$tmp/r.db" want="evaluated WG=" three run run "$vecadd" -d "$dev" --size N=16384 --budget 2 --db "$tmp/r.db" --repeats 1 --out "$tmp/run-report"
want="hetune report: found " three report report --db "$tmp/r.db" --out "$tmp/report" --no-pictures
want="hetune export: wrote the T4 JSON" three export export --db "$tmp/r.db" --format t4
no_stdout=1 want="translated to 'block_size_x >= 16 && !(block_size_x > 64)'" three import-kt \
    import-kt "$tmp/vecadd-t1.json" -o "$tmp/spec.json"
# import-kt's notes (what a spec leaves out) are what -q removes.
grep -q "Search.Name" "$tmp/err.plain" || fail "import-kt said no notes: $(cat "$tmp/err.plain")"
echo "verbose: -v adds, -q removes, both refused, on every command"
