#!/bin/bash
# families.sh: a search strategy judged on every family of recorded spaces at once (issue 25),
# through table_replay: the recorded spaces and perturbed copies of each, so that a change is
# kept only if it helps, or does not hurt, every family (the goals must hold on spaces held
# back from us, which the perturbed copies stand in for).
#
#   bench/search/families.sh make RECORDED_DIR TABLE_DIR
#       the tables: for each convolution_milo-DEV.T4.json.gz of RECORDED_DIR (A100, A4000),
#       the space itself (conv-DEV), every time times exp(N(0, s)) for s = 0.10, 0.15, 0.20
#       (n10-, pert-, n20-DEV) and the best 5 or 10 configurations made failures (drop5-,
#       drop10-DEV); dedispersion_milo-A4000 (dd-A4000) and its copy with s = 0.15
#       (n15-dedisp). bench/search/perturb_t4.py, seed 1, then t4_table.py.
#   bench/search/families.sh run TABLE_DIR STRATEGY [table_replay options...]
#       table_replay on every table (default --seeds 80 --budget 100; JOBS=2 at a time; BIN
#       is build/bench/table_replay), one line per table, then per family (A100, A4000,
#       dedispersion) the seeds that reached 0.95 of the optimum at each budget, summed over
#       the family's tables, and the mean over its tables of the median at each budget.
#
# With 80 seeds the count of one table moves by 5 to 10 between runs that differ only in
# their random numbers, a family's sum of six by up to 30 or so (bayes's A4000 family at 100
# evaluations: 264 and 297 for the same code, docs/results/search-2026-11-26-d.txt).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

usage() {
    sed -n '7,17p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

make_tables() {
    local rec=$1 out=$2 dev
    mkdir -p "$out"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    for dev in A100 A4000; do
        local t4="$rec/convolution_milo-$dev.T4.json.gz"
        [ -f "$t4" ] || { echo "families.sh: $t4: no such file" >&2; exit 1; }
        python3 "$here/t4_table.py" "$t4" "$out/conv-$dev.tsv"
        for v in "n10 --noise 0.10" "pert --noise 0.15" "n20 --noise 0.20" \
                 "drop5 --fail-best 5" "drop10 --fail-best 10"; do
            set -- $v
            local name=$1
            shift
            python3 "$here/perturb_t4.py" "$t4" "$tmp/convolution_milo-$dev$name.T4.json.gz" \
                "$@" --seed 1 2>/dev/null
            python3 "$here/t4_table.py" "$tmp/convolution_milo-$dev$name.T4.json.gz" \
                "$out/$name-$dev.tsv"
        done
    done
    local dd="$rec/dedispersion_milo-A4000.T4.json.gz"
    python3 "$here/t4_table.py" "$dd" "$out/dd-A4000.tsv"
    python3 "$here/perturb_t4.py" "$dd" "$tmp/dedispersion_milo-A4000n15.T4.json.gz" \
        --noise 0.15 --seed 1 2>/dev/null
    python3 "$here/t4_table.py" "$tmp/dedispersion_milo-A4000n15.T4.json.gz" "$out/n15-dedisp.tsv"
    ls "$out"
}

run_tables() {
    local dir=$1 strategy=$2
    shift 2
    local bin=${BIN:-build/bench/table_replay}
    local opts=("$@")
    [ ${#opts[@]} -gt 0 ] || opts=(--seeds 80 --budget 100)
    [ -x "$bin" ] || { echo "families.sh: $bin: build it first (cmake --build build)" >&2; exit 1; }
    ls "$dir"/*.tsv >/dev/null
    # One line per table: its name, then table_replay's summary less the path.
    for t in "$dir"/*.tsv; do echo "$t"; done |
        xargs -P "${JOBS:-2}" -I{} sh -c 'b=$0; s=$1; shift; printf "%s %s\n" \
            "$(basename {} .tsv)" "$("$b" {} "$s" "$@" | sed "s|^[^:]*:||")"' \
            "$bin" "$strategy" "${opts[@]}" |
        sort |
        awk '
        { print
          fam = $1 ~ /dedisp|^dd-/ ? "dedispersion" : ($1 ~ /A100/ ? "A100" : "A4000")
          nt[fam]++
          for (i = 2; i < NF; i++)
              if ($i ~ /^[0-9]+:$/ && $(i + 1) ~ /\//) {
                  b = substr($i, 1, length($i) - 1); split($(i + 1), mw, "/")
                  key = fam SUBSEP b; n95[key] += $(i + 2); med[key] += mw[1]; seen[b] = 1
              } }
        END {
          nb = 0; for (b in seen) bs[++nb] = b + 0
          for (i = 1; i <= nb; i++) for (j = i + 1; j <= nb; j++) if (bs[j] < bs[i]) { t = bs[i]; bs[i] = bs[j]; bs[j] = t }
          split("A100 A4000 dedispersion", fams, " ")
          for (f = 1; f <= 3; f++) {
              fam = fams[f]; if (!nt[fam]) continue
              line = sprintf("family %-12s (%d tables) seeds at 0.95:", fam, nt[fam])
              for (i = 1; i <= nb; i++) line = line sprintf(" %d: %d", bs[i], n95[fam SUBSEP bs[i]])
              line = line " | mean median:"
              for (i = 1; i <= nb; i++) line = line sprintf(" %d: %.3f", bs[i], med[fam SUBSEP bs[i]] / nt[fam])
              print line
          } }'
}

[ $# -ge 1 ] || usage
case $1 in
make) [ $# -eq 3 ] || usage; make_tables "$2" "$3" ;;
run) [ $# -ge 3 ] || usage; shift; run_tables "$@" ;;
*) usage ;;
esac
