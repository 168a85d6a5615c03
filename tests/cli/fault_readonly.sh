#!/usr/bin/env bash
# Fault (issue 29 defect 6): a results database this user may not write.
#  A. The file may not be written (another user's file, or chmod a-w), its folder may:
#     report and export read it; tune (which writes) fails at once, exit 1, naming the file
#     and saying that report and export can still read it.
#  B. The folder may not be written either (a read-only mount, another user's folder):
#     SQLite cannot create the -shm a WAL reader needs; report and export still read it
#     (immutable, said in a note), and export gives what the owner's export gives; tune
#     fails naming the folder.
#  C. A file it may write in a folder it may not: tune fails naming the folder (WAL keeps
#     two files beside the database); a new database there: the same, creating nothing.
# As root, chmod does not bite: the commands run as user nobody (setpriv) on root's files;
# skipped (77) when that cannot be done.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp fault-readonly

fix="$HETUNE_SOURCE_DIR/tests/fixtures/replay"
noplat=(env OCL_ICD_VENDORS="$tmp/no-vendors" OCL_ICD_FILENAMES=)
mkdir "$tmp/no-vendors"
chmod 755 "$tmp"
if [ "$(id -u)" -eq 0 ]; then
    command -v setpriv >/dev/null || { echo "skipped: root without setpriv" >&2; exit 77; }
    other=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
    "${other[@]}" "$HETUNE" --version >/dev/null 2>&1 ||
        { echo "skipped: user nobody cannot run $HETUNE" >&2; exit 77; }
else
    other=()
fi
# Runs hetune as the restricted user (no OpenCL needed: a replay, a report, an export).
run_other() {
    status=0
    "${other[@]}" "${noplat[@]}" "$HETUNE" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
}

# A database with results, written by the owner through a replay.
"$HETUNE" import-kt "$fix/stencil.T1.json" -o "$tmp/stencil.json" 2>/dev/null
python3 "$fix/make_t4.py" "$tmp/rec.T4.json"
mkdir -m 777 "$tmp/reports"
mkdir "$tmp/a" "$tmp/b"
for d in a b; do
    "${noplat[@]}" "$HETUNE" tune "$tmp/stencil.json" --replay "$tmp/rec.T4.json" \
        --db "$tmp/$d/r.db" -q >/dev/null || fail "the owner's replay into $d failed"
    [ ! -e "$tmp/$d/r.db-wal" ] || fail "the owner's tune left $tmp/$d/r.db-wal behind"
    "$HETUNE" export --db "$tmp/$d/r.db" --format t4 -o "$tmp/owner-$d.json"
done
if [ ${#other[@]} -gt 0 ]; then
    chmod 777 "$tmp/a"       # another user's file in a folder anyone may write
    chmod 755 "$tmp/b"       # another user's file in another user's folder
else
    chmod a-w "$tmp/a/r.db"
    chmod a-w "$tmp/b/r.db" "$tmp/b"
    trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
fi

for d in a b; do
    db="$tmp/$d/r.db"
    run_other report --db "$db" --out "$tmp/reports/$d"
    expect_status 0
    [ -s "$tmp/reports/$d/report.md" ] || fail "$d: report wrote no report.md"
    if [ $d = b ]; then
        expect_err "note: $db: its folder $tmp/b may not be written"
        expect_err "(immutable)"
    elif grep -q "note:" "$tmp/err"; then
        fail "$d: a note where the folder may be written: $(cat "$tmp/err")"
    fi
    run_other export --db "$db" --format t4 -o "$tmp/reports/$d.json"
    expect_status 0
    cmp -s "$tmp/owner-$d.json" "$tmp/reports/$d.json" ||
        fail "$d: the export differs from the owner's"
    run_other tune "$tmp/stencil.json" --replay "$tmp/rec.T4.json" --db "$db" --fresh
    expect_status 1
    expect_err "$db: cannot write the results database:"
    expect_err "Permission denied"
    expect_err "report and export can still read it"
done
# Nothing was changed by the failed tunes: the owner's export is the same.
"$HETUNE" export --db "$tmp/b/r.db" --format t4 -o "$tmp/after.json"
cmp -s "$tmp/owner-b.json" "$tmp/after.json" || fail "the failed tune changed the database"

# A file this user may write in a folder it may not: WAL's -wal and -shm cannot be made.
mkdir "$tmp/c"
cp "$tmp/a/r.db" "$tmp/c/r.db"
if [ ${#other[@]} -gt 0 ]; then
    chown 65534 "$tmp/c/r.db"
else
    chmod a-w "$tmp/c"
fi
run_other tune "$tmp/stencil.json" --replay "$tmp/rec.T4.json" --db "$tmp/c/r.db"
expect_status 1
expect_err "$tmp/c/r.db: cannot write the results database: its folder $tmp/c may not be written"

run_other tune "$tmp/stencil.json" --replay "$tmp/rec.T4.json" --db "$tmp/b/new.db"
expect_status 1
expect_err "$tmp/b/new.db: cannot create the results database: its folder $tmp/b may not be written"
[ ! -e "$tmp/b/new.db" ] || fail "a refused tune created $tmp/b/new.db"
echo "ok: a database that may not be written is read by report and export, refused by tune"
