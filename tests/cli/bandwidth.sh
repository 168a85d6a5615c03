#!/usr/bin/env bash
# hetune devices --bandwidth: the text and the JSON on real PoCL devices, every path, the
# measurement stored in the database (a second run adds a row: checked through the
# database's file when sqlite3 is installed), the host memory's rate beside them, one device
# named, and bad usage.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp bandwidth

run devices
require_platform

# Small transfers: the test checks the plumbing, not the machine.
bytes=1048576

# Checks the --json in $tmp/out: every device has a bandwidth object with positive rates,
# the path $1 (or, for auto, inplace on a CPU), and $2 devices when given.
check_bw_json() {
    python3 - "$tmp/out" "$1" "${2:-}" "$bytes" <<'EOF'
import json, math, sys
doc = json.load(open(sys.argv[1]))
asked, count, nbytes = sys.argv[2], sys.argv[3], int(sys.argv[4])
devs = doc["devices"]
assert devs, "no devices"
if count:
    assert len(devs) == int(count), f"{len(devs)} devices, expected {count}"
for d in devs:
    bw = d["bandwidth"]
    want = asked if asked != "auto" else ("inplace" if d["is_cpu"] else None)
    if want:
        assert bw["path"] == want, (d["index"], bw["path"], want)
    assert bw["path"] in ("pinned", "pageable", "inplace"), bw["path"]
    assert bw["bytes"] == nbytes, bw["bytes"]
    for k in ["h2d_GBps", "d2h_GBps", "pinned_h2d_GBps", "pinned_d2h_GBps",
              "pageable_h2d_GBps", "pageable_d2h_GBps"]:
        v = bw[k]
        assert isinstance(v, float) and v > 0 and math.isfinite(v), (d["index"], k, v)
hm = doc["host_memory"]
assert hm["GBps"] > 0 and math.isfinite(hm["GBps"]) and hm["threads"] >= 1, hm
assert hm["read_GBps"] > 0 and math.isfinite(hm["read_GBps"]), hm
# Shared with the copies of every device that copies: none when all work in place.
copying = sum(1 for d in devs if d["bandwidth"]["path"] != "inplace")
if copying:
    assert hm["shared_GBps"] > 0 and hm["shared_devices"] == copying, (hm, copying)
    # One rate per count of copying devices, the last that of all of them.
    by = hm["shared_GBps_by_devices"]
    assert len(by) == copying and all(v > 0 for v in by), by
    assert by[-1] == hm["shared_GBps"], (by, hm["shared_GBps"])
else:
    assert hm["shared_GBps"] is None and hm["shared_devices"] == 0, hm
    assert hm["shared_GBps_by_devices"] == [], hm
assert hm["bytes"] == nbytes and hm["repeats"] == 10, hm
print(len(devs))
EOF
}

db="$tmp/bw.db"
for path in auto pinned pageable inplace; do
    run devices --bandwidth --json --db "$db" --bytes "$bytes" --path "$path"
    [ "$status" -eq 0 ] || fail "--bandwidth --path $path exited $status: $(cat "$tmp/err")"
    ndev=$(check_bw_json "$path") || fail "--path $path: wrong JSON: $(cat "$tmp/out")"
done
[ -s "$db" ] || fail "--bandwidth did not write $db"

# The rows are in the database: one per device and path measured.
if command -v sqlite3 >/dev/null 2>&1; then
    rows=$(sqlite3 "$db" "SELECT count(*) FROM bandwidth")
    [ "$rows" -eq $((4 * ndev)) ] || fail "$rows bandwidth rows, expected $((4 * ndev))"
    paths=$(sqlite3 "$db" "SELECT DISTINCT path FROM bandwidth ORDER BY path" | tr '\n' ' ')
    case "$paths" in *inplace*pageable*pinned*) ;; *) fail "stored paths: $paths" ;; esac
    # The host memory's rate: one row a run, this machine's.
    sqlite3 "$db" "SELECT count(*) FROM host_memory WHERE bps > 0 AND hostname = '$(python3 -c 'import socket; print(socket.gethostname())')'" |
        grep -qx 4 || fail "host memory rows: $(sqlite3 "$db" "SELECT * FROM host_memory")"
    sqlite3 "$db" "SELECT count(*) FROM bandwidth WHERE h2d_bps > 0 AND d2h_bps > 0 AND
        pinned_h2d_bps > 0 AND pinned_d2h_bps > 0 AND pageable_h2d_bps > 0 AND
        pageable_d2h_bps > 0" | grep -qx "$((4 * ndev))" || fail "a stored rate is not positive"
else
    echo "sqlite3 not installed: the rows are checked by test_store_bandwidth instead"
fi

# The text: hetune's rate beside the pinned ceiling and pageable, with the ratio.
run devices --bandwidth --db "$db" --bytes "$bytes"
[ "$status" -eq 0 ] || fail "--bandwidth exited $status: $(cat "$tmp/err")"
for word in "bandwidth   path" "host->device" "device->host" "pinned" "ratio" "pageable" \
    "GB/s" "stored in $db" "platform" "memory" "host memory" "c = a + b over 3 x 1 MiB" "reading a and b alone"; do
    grep -qF -- "$word" "$tmp/out" || fail "--bandwidth text lacks '$word': $(cat "$tmp/out")"
done
[ "$(grep -c 'host->device' "$tmp/out")" -eq "$ndev" ] || fail "not one line per device"

# --host-bytes sizes the host memory's arrays alone; the links keep --bytes.
run devices --bandwidth --json --db "$db" --bytes "$bytes" --host-bytes $((2 * bytes))
[ "$status" -eq 0 ] || fail "--host-bytes exited $status: $(cat "$tmp/err")"
python3 - "$tmp/out" "$bytes" <<'EOF' || fail "--host-bytes: $(cat "$tmp/out")"
import json, sys
doc, nbytes = json.load(open(sys.argv[1])), int(sys.argv[2])
assert all(d["bandwidth"]["bytes"] == nbytes for d in doc["devices"]), doc["devices"]
assert doc["host_memory"]["bytes"] == 2 * nbytes and doc["host_memory"]["GBps"] > 0, doc
EOF

# Two PoCL devices; one of them named.
status=0
POCL_DEVICES="pthread basic" "$HETUNE" devices --bandwidth --json --db "$db" --bytes "$bytes" \
    >"$tmp/out" 2>"$tmp/err" || status=$?
if [ "$status" -eq 0 ] && check_bw_json auto 2 >/dev/null; then
    status=0
    POCL_DEVICES="pthread basic" "$HETUNE" devices --bandwidth --json --db "$db" \
        --bytes "$bytes" --device basic >"$tmp/out" 2>"$tmp/err" || status=$?
    [ "$status" -eq 0 ] || fail "--device basic exited $status: $(cat "$tmp/err")"
    check_bw_json auto 1 >/dev/null || fail "--device basic: $(cat "$tmp/out")"
    grep -q '"name": "basic' "$tmp/out" || fail "--device basic measured another device"
else
    echo "POCL_DEVICES='pthread basic' does not give two devices here: skipped that part"
fi

# Without --bandwidth, devices is what it was: no bandwidth in the JSON, nothing stored.
run devices --json
[ "$status" -eq 0 ] || fail "devices --json exited $status"
! grep -q '"bandwidth"' "$tmp/out" || fail "devices --json measured bandwidth unasked"

# Bad usage: exit 2 with a message, and no database written (arrays too small for the host
# memory's measurement are refused before any link is measured and stored).
for args in "--bandwidth --path dma" "--bandwidth --bytes 0" "--bandwidth --bytes x" \
    "--bandwidth --host-bytes 0" "--bandwidth --host-bytes x" "--host-bytes 1048576" \
    "--bytes 10" "--path pinned" "--db $tmp/x.db" "--device 0" "--bandwidth --dzn $tmp/d" \
    "--bandwidth --db" "--bandwidth extra" "--bandwidth --bogus" \
    "--bandwidth --bytes 100 --db $tmp/x.db" "--bandwidth --bytes 65536 --host-bytes 100 --db $tmp/x.db"; do
    # shellcheck disable=SC2086
    run devices $args
    [ "$status" -eq 2 ] || fail "'devices $args' exited $status, expected 2"
    grep -q "hetune devices:" "$tmp/err" || fail "'devices $args' gave no message"
done
[ ! -e "$tmp/x.db" ] || fail "a refused command created its database"
run devices --bandwidth --db "$db" --device nosuchdevice
[ "$status" -eq 2 ] || fail "--device nosuchdevice exited $status, expected 2"

run devices --help
grep -q -- "--bandwidth" "$tmp/out" || fail "--help does not describe --bandwidth"

echo "ok"
