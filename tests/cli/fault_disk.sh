#!/usr/bin/env bash
# Fault: a full disk in the middle of a tune (issue 13). The tune runs under a small file
# size limit (ulimit -f, in a subshell) once the database exists, so that storing an
# evaluation fails part way; it must exit 1 cleanly, with a message naming the database
# (no crash, no sanitizer report). A rerun without the limit resumes: what was stored
# before is still there, unchanged, and every configuration ends up stored once, with all
# its runs.
#
# SIGXFSZ is ignored in the limited subshell (and so in hetune, which inherits it): with
# it ignored, a write past the limit fails with EFBIG, as a write to a full disk fails
# with ENOSPC, rather than killing the process, which no full disk does.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp fault-disk

run devices --json
require_platform
dev=$(pthread_device "$tmp/out")

cp "$HETUNE_SOURCE_DIR/tests/fixtures/tune/kernel.cl" "$tmp/kernel.cl"
cat >"$tmp/spec.json" <<'JSON'
{
  "name": "fault-disk",
  "kernel": { "file": "kernel.cl", "name": "slowish" },
  "sizes": { "N": 1024, "REPS": 6400 },
  "ndrange": { "global": ["N"], "local": ["64"] },
  "params": { "SLOW": { "values": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] } },
  "args": [
    { "name": "out", "type": "float", "shape": ["N"], "access": "write", "index": ["gx"] },
    { "name": "in", "type": "float", "shape": ["N"], "access": "read", "init": "random", "index": ["gx"] },
    { "name": "reps", "type": "int", "value": "REPS" }
  ],
  "verify": { "reference": { "SLOW": 0 }, "rtol": 1e-5, "atol": 1e-5 },
  "timing": { "repeats": 3, "keep_best": 1 }
}
JSON
nspace=12
db="$tmp/disk.db"

# A first tune with no limit fills the binary cache (so that the limited run only writes
# the database) and makes the database with two evaluations.
run tune "$tmp/spec.json" --device "$dev" --db "$tmp/warm.db" --cut-factor 0
expect_status 0
run tune "$tmp/spec.json" --device "$dev" --db "$db" --cut-factor 0 --budget 2
expect_status 0

# 64 KiB per file: the WAL fills up after a few evaluations.
status=0
(ulimit -f 64; trap '' XFSZ; exec "$HETUNE" tune "$tmp/spec.json" --device "$dev" --db "$db" \
    --cut-factor 0) >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 1
expect_err "$db"
if grep -qE "Sanitizer|runtime error|Segmentation|core dumped" "$tmp/err"; then
    fail "the limited tune did not exit cleanly: $(cat "$tmp/err")"
fi
[ "$(sql "q('PRAGMA integrity_check')")" = "[('ok',)]" ] || fail "integrity check failed"
stored=$(sql "len(q('SELECT id FROM evaluations'))")
[ "$stored" -ge 2 ] && [ "$stored" -lt "$nspace" ] || fail "$stored evaluations stored under the limit"
before=$(sql "sorted(q('SELECT id, config, seconds FROM evaluations'))")
echo "the limited tune stored $stored of $nspace, then: $(cat "$tmp/err")"

# Without the limit the tune resumes and finishes.
run tune "$tmp/spec.json" --device "$dev" --db "$db" --cut-factor 0 --json
expect_status 0
check "d['devices'][0]['from_db'] == $stored and d['devices'][0]['evaluated'] == $nspace - $stored"
[ "$(sql "sorted(q('SELECT id, config, seconds FROM evaluations'))[:$stored]")" = "$before" ] ||
    fail "evaluations stored before were lost or measured again"
[ "$(sql "q('''SELECT count(*), count(DISTINCT config) FROM evaluations WHERE status = 'ok'
             AND nruns = 3 AND nruns = (SELECT count(*) FROM runs r WHERE r.eval_id = evaluations.id)''')")" = "[($nspace, $nspace)]" ] ||
    fail "not every configuration is stored once and whole: $(sql "q('SELECT config, status, reason, nruns FROM evaluations')")"
[ "$(sql "q('SELECT count(*) FROM device_leases')")" = "[(0,)]" ] || fail "a lease was left behind"
echo "ok"
