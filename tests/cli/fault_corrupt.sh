#!/usr/bin/env bash
# Fault: a results database with garbage in its middle (issue 13). A real database made by
# `hetune tune` is copied and two pages in its middle are overwritten (dd conv=notrunc);
# `hetune tune` on the copy must refuse it on open (PRAGMA quick_check) with exit 1 and a
# message naming the file, and leave it as it was: nothing is written into a damaged
# database. The undamaged original still works.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp fault-corrupt

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")

cp "$HETUNE_SOURCE_DIR/tests/fixtures/tune/kernel.cl" "$tmp/kernel.cl"
cat >"$tmp/spec.json" <<'JSON'
{
  "name": "fault-corrupt",
  "kernel": { "file": "kernel.cl", "name": "slowish" },
  "sizes": { "N": 1024, "REPS": 6400 },
  "ndrange": { "global": ["N"], "local": ["64"] },
  "params": { "SLOW": { "values": [0, 1, 2, 3] } },
  "args": [
    { "name": "out", "type": "float", "shape": ["N"], "access": "write", "index": ["gx"] },
    { "name": "in", "type": "float", "shape": ["N"], "access": "read", "init": "random", "index": ["gx"] },
    { "name": "reps", "type": "int", "value": "REPS" }
  ],
  "verify": { "reference": { "SLOW": 0 }, "rtol": 1e-5, "atol": 1e-5 },
  "timing": { "repeats": 3, "keep_best": 1 }
}
JSON
db="$tmp/good.db"
bad="$tmp/bad.db"

run tune "$tmp/spec.json" --device "$dev" --db "$db" --cut-factor 0 --budget 3
expect_status 0
[ ! -e "$db-wal" ] || fail "the WAL was left behind"
page=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA page_size").fetchone()[0])' "$db")
size=$(wc -c <"$db")
[ $((size / page)) -ge 6 ] || fail "the database has only $((size / page)) pages"

# Two pages of garbage from the page boundary nearest the middle (never page 1, the
# header: that case is "not an SQLite file").
cp "$db" "$bad"
head -c $((2 * page)) /dev/zero | tr '\0' '\251' >"$tmp/junk"
dd if="$tmp/junk" of="$bad" bs="$page" seek=$((size / page / 2)) conv=notrunc status=none
cp "$bad" "$tmp/bad.copy"

run tune "$tmp/spec.json" --device "$dev" --db "$bad" --cut-factor 0
expect_status 1
expect_err "$bad"
expect_err "damaged"
cmp -s "$bad" "$tmp/bad.copy" || fail "the damaged database was written to"
[ "$(grep -c . "$tmp/err")" -eq 1 ] || fail "expected one line on stderr: $(cat "$tmp/err")"
refusal=$(cat "$tmp/err")

# The original is whole: the tune resumes on it.
run tune "$tmp/spec.json" --device "$dev" --db "$db" --cut-factor 0 --json
expect_status 0
check "d['devices'][0]['from_db'] == 3 and d['devices'][0]['evaluated'] == 1"
echo "ok: $refusal"
