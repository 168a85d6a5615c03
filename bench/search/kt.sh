#!/usr/bin/env bash
# Kernel Tuner's strategies on the recorded spaces in its simulation mode (issue 25, item 2):
# bench/search/kt_sim.py in a virtual environment of its own (bench/search/.venv, Kernel
# Tuner 1.5.0 as the issue quotes it), niced and on one thread (numpy, scikit-learn) so
# that a core stays free. Not a test: minutes (about 20 with 20 seeds on this machine).
#   bench/search/kt.sh [kt_sim.py arguments]
# Without T4 files it runs every recorded space under shared/data/recorded; every other
# argument goes to kt_sim.py (--seeds R, --strategies S,..., --json ROWS.jsonl, --check,
# --to-cache T4 T1 OUT.json, --score TRACES.jsonl, --table ROWS.jsonl...; see its header).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/bench/common.bash"
bench_venv "$here/.venv" kernel_tuner kernel_tuner==1.5.0
recorded=${HETUNE_RECORDED:-$root/shared/data/recorded}
[ -d "$recorded" ] || recorded=$root/../shared/data/recorded
files=()
case " $* " in
*.T4.json* | *" --table "* | *" --to-cache "*) ;;
*) files=("$recorded"/*.T4.json.gz) ;;
esac
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONHASHSEED=0
exec nice -n 10 "$here/.venv/bin/python" -W ignore "$here/kt_sim.py" "$@" "${files[@]}"
