#!/usr/bin/env bash
# Writes the seed databases of the store fuzz target (fuzz/corpus/store/) with a hetune
# binary: a replayed tune of tests/fixtures/replay's space (devices, a kernel, a problem,
# evaluations with their runs, failures, space sizes), kept small (a budget of evaluations,
# 512-byte pages, rollback journal: the fuzzer mutates every byte it is given).
# usage: fuzz/seed-store.sh HETUNE (run from the repository root)
set -eu
hetune=${1:?usage: fuzz/seed-store.sh HETUNE}
out=fuzz/corpus/store
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
fix=tests/fixtures/replay

"$hetune" import-kt "$fix/stencil.T1.json" -o "$tmp/stencil.json" 2>/dev/null
python3 "$fix/make_t4.py" "$tmp/rec.T4.json"
for budget in 3 12; do
    "$hetune" tune "$tmp/stencil.json" --replay "$tmp/rec.T4.json" --db "$tmp/r$budget.db" \
        --budget "$budget" -q >/dev/null
    python3 - "$tmp/r$budget.db" "$out/replay-$budget" <<'PY'
import shutil, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA journal_mode=DELETE")
db.execute("PRAGMA page_size=512")
db.execute("VACUUM")
db.close()
shutil.copy(sys.argv[1], sys.argv[2])
PY
done
ls -l "$out"
