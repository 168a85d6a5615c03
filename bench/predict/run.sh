#!/usr/bin/env bash
# Sizes never measured (issue 18, part 2): how good is a predicted configuration? For each
# case study, tunes four sizes exhaustively on one device into one database; then, for each
# size T in turn, predicts T from the other three (a copy of the database without T's
# evaluations; `hetune split --json` on that device alone predicts since nothing of T is
# stored) and prints the predicted configuration's time measured at T over the best time
# measured at T: as the tune stored them, and measured again side by side (hetune eval of
# the two, alternating three times, the least of each), since one tune's single measurement
# per configuration is noisy on a shared machine. Goal (issue 18): within 10% (ratio <=
# 1.10) in at least 80% of the cases; the summary counts the side-by-side ratios.
#
# usage: bench/predict/run.sh HETUNE DEVICE [CASE...]
#   HETUNE  the hetune binary (e.g. build/hetune); DEVICE  an index of `hetune devices`
#   CASE    vecadd, conv1d, fir (default: all three)
# The databases go to $OUT when set (the device tool; one already there is continued, not
# measured again), else a temporary folder.
set -eu
[ $# -ge 2 ] || { sed -n '2,18p' "$0" >&2; exit 2; }
hetune=$(realpath "$1")
device=$2
shift 2
cd "$(dirname "$0")/../.."
. bench/common.bash
bench_dir predict
cases=${*:-vecadd conv1d fir}
declare -A sizes=(
    [vecadd]="262144 524288 1048576 2097152"
    [conv1d]="16384 32768 65536 131072"
    [fir]="65536 131072 262144 524288"
)
results="$dir/results.txt"
: >"$results"
for c in $cases; do
    spec=examples/$c/spec.json
    # A database already in $OUT is continued: what it holds is not measured again.
    db="$dir/$c.db"
    for n in ${sizes[$c]}; do
        echo "\$ hetune tune $spec --device $device --size N=$n -q"
        "$hetune" tune "$spec" --device "$device" --size "N=$n" --db "$db" -q 2>/dev/null |
            grep -E '^  (best|evaluated)' || true
    done
    for n in ${sizes[$c]}; do
        cp "$db" "$dir/loo.db"
        python3 - "$dir/loo.db" "N=$n" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
# The problem's sizes text holds every size ("N=65536,TAPS=64"): match N's.
db.execute("DELETE FROM evaluations WHERE problem_id IN (SELECT id FROM problems WHERE "
           "',' || sizes || ',' LIKE ?)", ("%," + sys.argv[2] + ",%",))
db.commit()
PY
        "$hetune" split "$spec" --device "$device" --size "N=$n" --db "$dir/loo.db" --json -q \
            >"$dir/split.json" 2>"$dir/split.err" || true
        python3 - "$db" "$c" "N=$n" "$dir/split.json" "$dir/split.err" >>"$results" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
case, size = sys.argv[2], sys.argv[3]
try:
    d = json.load(open(sys.argv[4]))["devices"][0]
except Exception:
    print("%s %s no prediction: %s" % (case, size, open(sys.argv[5]).read().strip()[:200]))
    sys.exit(0)
cfg = ",".join("%s=%s" % kv for kv in d["config"].items())
rows = db.execute("SELECT e.config, e.status, e.seconds, e.verified FROM evaluations e JOIN "
                  "problems p ON p.id = e.problem_id WHERE ',' || p.sizes || ',' LIKE ?",
                  ("%," + size + ",%",)).fetchall()
ok = [(s, c) for c, st, s, v in rows if st == "ok" and v == 1]
best = min(ok)
mine = [(s, st) for c, st, s, v in rows if c == cfg]
if not d["predicted"] or not mine or mine[0][0] is None:
    print("%s %s predicted=%s %s: not measured at this size" % (case, size, d["predicted"], cfg))
    sys.exit(0)
t, st = mine[0]
print("%-7s %-10s predicted %-16s %10.3f ms (model %8.3f ms)%s  best %-16s %10.3f ms  ratio %.3f"
      % (case, size, cfg, t * 1e3, d["tuned_seconds"] * 1e3, " cut" if st == "cut" else "    ",
         best[1], best[0] * 1e3, t / best[0]))
PY
        # Side by side: the predicted and the best stored configuration, alternating.
        line=$(tail -1 "$results")
        if [[ $line == *" ratio "* ]]; then
            read -r pc bc <<<"$(awk '{print $4, $(NF-4)}' <<<"$line")"
            tp=1e9 tb=1e9
            for _ in 1 2 3; do
                for cfg in "$pc" "$bc"; do
                    # shellcheck disable=SC2046
                    t=$("$hetune" eval "$spec" --device "$device" --size "N=$n" \
                        $(tr ',' '\n' <<<"$cfg" | sed 's/^/--set /') --json 2>/dev/null |
                        python3 -c 'import json,sys; print(json.load(sys.stdin)["kernel"]["mean_best_seconds"])')
                    if [ "$cfg" = "$pc" ]; then tp=$(python3 -c "print(min($tp, $t))"); fi
                    if [ "$cfg" = "$bc" ]; then tb=$(python3 -c "print(min($tb, $t))"); fi
                done
            done
            sed -i '$ d' "$results"
            printf '%s  again %s\n' "$line" \
                "$(python3 -c "print('%.3f / %.3f ms  ratio2 %.3f' % ($tp * 1e3, $tb * 1e3, $tp / $tb))")" >>"$results"
        fi
        tail -1 "$results"
    done
done
echo
echo "== summary"
python3 - "$results" <<'PY'
import sys
r = [l.split() for l in open(sys.argv[1]) if " ratio2 " in l]
stored = [float(l[l.index("ratio") + 1]) for l in r]
ratios = [float(l[-1]) for l in r]
n = len(ratios)
within = sum(x <= 1.10 for x in ratios)
print("%d cases, predicted configuration within 10%% of the best measured in %d (%.0f%%; goal >= 80%%)"
      % (n, within, 100.0 * within / n if n else 0))
if n:
    print("side by side, measured(predicted) / best: median %.3f, worst %.3f, mean %.3f"
          % (sorted(ratios)[n // 2], max(ratios), sum(ratios) / n))
    print("as the tunes stored them: within 10%% in %d of %d, median %.3f, worst %.3f"
          % (sum(x <= 1.10 for x in stored), n, sorted(stored)[n // 2], max(stored)))
PY
