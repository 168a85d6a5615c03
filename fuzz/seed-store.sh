#!/usr/bin/env bash
# Writes the seed databases of the store fuzz target (fuzz/corpus/store/) with a hetune
# binary: a replayed tune of tests/fixtures/replay's space (devices, a kernel, a problem,
# evaluations with their runs, failures, space sizes), kept small (a budget of evaluations,
# 512-byte pages, rollback journal: the fuzzer mutates every byte it is given).
# Each file written here is a seed test, fuzz/store_seed/<name>, when it is named in
# HETUNE_STORE_SEEDS (fuzz/CMakeLists.txt): a new one is added there.
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
# SQL seeds (fuzz_store.c runs an input that is not a database file as SQL on a new one):
# the rows of the larger database, and a split with its devices and sweep, a bandwidth, a
# lease and a written map written by hand (they need devices to be made for real).
sqlite3 "$out/replay-12" .dump | grep '^INSERT' | grep -v '^INSERT INTO schema_version' \
    >"$out/rows.sql"
cat >"$out/split.sql" <<'SQL'
INSERT INTO devices VALUES(1,'Portable Computing Language','OpenCL 3.0 PoCL','cpu','pocl','CPU','OpenCL 3.0','6.0',2,4096,'[4096,4096,4096]',524288,8589934592,2147483648,'2026-11-26T17:16:06.356Z');
INSERT INTO devices VALUES(2,'Portable Computing Language','OpenCL 3.0 PoCL','cpu #2','pocl','CPU','OpenCL 3.0','6.0',2,4096,'[4096,4096,4096]',524288,8589934592,2147483648,'2026-11-26T17:16:06.356Z');
INSERT INTO kernels VALUES(1,'8ea2ee70c7b97415','matmul','','matmul','spec.json','kernel.cl','2026-11-26T17:16:06.356Z');
INSERT INTO problems VALUES(1,1,'N=512','TS','2026-11-26T17:16:06.415Z');
INSERT INTO evaluations VALUES(1,1,1,'TS=8','[8]','ok','',0.002,0.0019,0.0001,0.0001,0.5,0,1,0.0,0.0,0,'[512,512]','[8,8]',2,'exhaustive',0,'2026-11-26T17:16:06.415Z','8ea2ee70c7b97415');
INSERT INTO runs VALUES(1,0,0.002);
INSERT INTO runs VALUES(1,1,0.0019);
INSERT INTO evaluations VALUES(2,1,2,'TS=16','[16]','ok','',0.003,0.003,0.0001,0.0001,0.5,1,1,0.0,0.0,0,'[512,512]','[16,16]',1,'exhaustive',0,'2026-11-26T17:16:06.415Z',NULL);
INSERT INTO runs VALUES(2,0,0.003);
INSERT INTO spaces VALUES(1,1,'product',64.0,8,6,0.01,'N % TS == 0','2026-11-26T17:16:06.415Z');
INSERT INTO spaces VALUES(1,2,'sum',1e30,8,0,0.01,'','2026-11-26T17:16:06.415Z');
INSERT INTO splits VALUES(1,1,'static',1,512,0.0012,0.0013,0.0012,0.0011,0.002,1,0.0,0.0,'2026-11-26T17:16:06.415Z',0.00125);
INSERT INTO split_devices VALUES(1,0,1,'TS=8',64,0.002,0.6,0.625,0,320,0,320,1,0.0011,0.0001,0.0001);
INSERT INTO split_devices VALUES(1,1,2,'TS=16',256,0.003,0.4,0.375,320,192,320,192,1,0.0011,0.0001,0.0001);
INSERT INTO splits VALUES(2,1,'sweep',1,512,NULL,NULL,NULL,NULL,0.002,-1,NULL,NULL,'2026-11-26T17:16:07.415Z',NULL);
INSERT INTO sweep_points VALUES(2,0,0.25,0.0015,0.0016,0.0015,1);
INSERT INTO sweep_points VALUES(2,1,0.5,0.001,0.0012,0.0011,1);
INSERT INTO sweep_points VALUES(2,2,0.75,0.0015,0.0017,0.0016,0);
INSERT INTO bandwidth VALUES(1,1,'inplace',1048576,5,1e10,1e10,NULL,NULL,NULL,NULL,'2026-11-26T17:16:06.415Z');
INSERT INTO device_leases VALUES(1,12345,'localhost','2026-11-26T17:16:06.415Z',1.0);
INSERT INTO written_maps VALUES(1,1,'C',0,'rows',1,1,0,0,1,'TS=8','2026-11-26T17:16:06.415Z');
SQL
ls -l "$out"
