#!/usr/bin/env bash
# A spec that cannot be split is refused before any work (issue 14 item 6): `hetune split`
# and `hetune run` on two PoCL devices with an empty database exit 2 at once, naming the
# field, and leave no evaluation behind (no database at all): a written buffer without an
# axis walked by the split dimension. (A written buffer without `index` is no longer
# refused here: a probe infers it once the devices' configurations are known, and refuses
# then what no slab explains, tests/cli/split_noindex.sh.)
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
export POCL_DEVICES="${POCL_DEVICES:-pthread basic}"
make_tmp split-refuse

run devices --json
require_platform
ndev=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["devices"]))' "$tmp/out")
if [ "$ndev" -ge 2 ]; then two="0,1"; else two="0,0"; fi

# refused FIELD TEXT COMMAND ARGS...: exit 2 within a second, the field and the text in
# the message, and no database written.
refused() {
    local field=$1 text=$2 t0 t1
    shift 2
    db="$tmp/refused.db"
    rm -f "$db"
    t0=$(date +%s%N)
    run "$@" --device "$two" --db "$db"
    t1=$(date +%s%N)
    expect_status 2
    expect_err "$field: "
    expect_err "$text"
    [ $(((t1 - t0) / 1000000)) -lt 1000 ] || fail "$*: refused after $(((t1 - t0) / 1000000)) ms"
    if [ -e "$db" ]; then
        [ "$(sql 'q("select count(*) from evaluations")[0][0]')" = 0 ] ||
            fail "$*: the database holds evaluations"
    fi
    grep -q "tuning it first" "$tmp/err" && fail "$*: tuned before refusing"
    return 0
}

noindex="$HETUNE_SOURCE_DIR/tests/fixtures/split/noindex.json"
# The grid-stride kernel's rows can be split, not its columns.
grid="$HETUNE_SOURCE_DIR/tests/fixtures/groupid/gridstride.json"
refused "gridstride.json: args[0].index" "written buffer 'out' has no axis walked by gx" \
    split "$grid" --dim 0
refused "gridstride.json: args[0].index" "written buffer 'out' has no axis walked by gx" \
    run "$grid" --out "$tmp/report"

# One device reads a written buffer back whole: still fine, and tuned first.
run split "$noindex" --device 0 --json --db "$tmp/one.db"
expect_status 0
check 'd["verification"]["verified"] is True and len(d["devices"]) == 1'
echo "ok"
