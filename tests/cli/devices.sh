#!/usr/bin/env bash
# hetune devices: the table, --json, --dzn, two PoCL devices, no platform, bad usage.
set -eu

# shellcheck source-path=SCRIPTDIR source=common.bash
source "${HETUNE_SOURCE_DIR:?HETUNE_SOURCE_DIR must name the source tree}/tests/cli/common.bash"
make_tmp devices

run devices
require_platform
for word in platform type version driver work-group memory "work-item sizes"; do
    grep -q "$word" "$tmp/out" || fail "the device list lacks '$word'"
done
grep -Eq '^0 +[^ ]' "$tmp/out" || fail "the device list does not start with device 0"
grep -Eq '[0-9]+x[0-9]+x[0-9]+' "$tmp/out" || fail "no work-item sizes like 4096x4096x4096"
grep -Eq '(KiB|MiB|GiB|TiB)' "$tmp/out" || fail "memory sizes are not in human units"
[ ! -s "$tmp/err" ] || fail "unexpected stderr: $(cat "$tmp/err")"
table_devices=$(grep -Ec '^[0-9]+ ' "$tmp/out")

# Checks the --json in $tmp/out: the fields of every device, and $1 devices when given.
check_json() {
    python3 - "$tmp/out" "${1:-}" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
devs = doc["devices"]
assert isinstance(devs, list) and devs, "no devices array"
if sys.argv[2]:
    assert len(devs) == int(sys.argv[2]), f"{len(devs)} devices, expected {sys.argv[2]}"
ints = ["index", "compute_units", "max_work_group_size", "max_work_item_dims",
        "local_mem_size", "global_mem_size", "max_mem_alloc_size"]
strs = ["platform", "name", "type", "version", "driver_version"]
for i, d in enumerate(devs):
    for k in ints:
        assert type(d[k]) is int and d[k] >= 0, (i, k, d.get(k))
    for k in strs:
        assert isinstance(d[k], str) and d[k], (i, k, d.get(k))
    for k in ["is_cpu", "is_gpu"]:
        assert type(d[k]) is bool, (i, k)
    assert d["index"] == i, (i, d["index"])
    assert 1 <= d["max_work_item_dims"] <= 3
    sizes = d["max_work_item_sizes"]
    assert len(sizes) == d["max_work_item_dims"] and all(type(s) is int and s >= 1 for s in sizes)
    assert d["max_work_group_size"] >= 1 and d["compute_units"] >= 1
    assert d["local_mem_size"] > 0 and 0 < d["max_mem_alloc_size"] <= d["global_mem_size"]
    assert d["is_cpu"] == (d["type"] == "CPU") and d["is_gpu"] == (d["type"] == "GPU")
print(len(devs))
EOF
}

run devices --json
[ "$status" -eq 0 ] || fail "--json exited $status: $(cat "$tmp/err")"
json_devices=$(check_json) || fail "--json output is wrong: $(cat "$tmp/out")"
[ "$json_devices" -eq "$table_devices" ] ||
    fail "--json lists $json_devices devices, the table $table_devices"

run devices --dzn "$tmp/dzn/sub"
[ "$status" -eq 0 ] || fail "--dzn exited $status: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/out")" -eq "$json_devices" ] || fail "--dzn did not print one path per device"
while read -r path; do
    case "$path" in "$tmp/dzn/sub/"*.dzn) ;; *) fail "unexpected path '$path'" ;; esac
    [ -f "$path" ] || fail "'$path' was printed but not written"
    grep -Eq '^max_wg_size_0 = [0-9]+;$' "$path" || fail "'$path' lacks max_wg_size_0"
    for name in max_wg_size_1 max_wg_size_2 max_total_wg_size num_compute_units \
        local_mem_size global_mem_size max_mem_alloc_size is_cpu is_gpu; do
        grep -Eq "^$name = [0-9]+;\$" "$path" || fail "'$path' lacks $name"
    done
    # Every line is a comment or an assignment: MiniZinc must be able to read it.
    if grep -Ev '^(%.*|[a-z_0-9]+ = [0-9]+;)$' "$path"; then
        fail "'$path' has lines that are not MiniZinc data"
    fi
done <"$tmp/out"
[ "$(find "$tmp/dzn/sub" -name '*.dzn' | wc -l)" -eq "$json_devices" ] ||
    fail "--dzn wrote another number of files than devices"

# Two PoCL devices of different speed, the heterogeneous machine of the tests.
status=0
POCL_DEVICES="pthread basic" "$HETUNE" devices --json >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 0 ] || fail "POCL_DEVICES='pthread basic' --json exited $status: $(cat "$tmp/err")"
check_json 2 >/dev/null || fail "expected 2 devices under POCL_DEVICES='pthread basic'"
python3 - "$tmp/out" <<'EOF' || fail "expected one 'basic' and one 'pthread' device"
import json, sys
names = [d["name"] for d in json.load(open(sys.argv[1]))["devices"]]
assert sum("basic" in n for n in names) == 1 and sum("pthread" in n for n in names) == 1, names
EOF
status=0
POCL_DEVICES="pthread basic" "$HETUNE" devices >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 0 ] || fail "POCL_DEVICES='pthread basic' devices exited $status"
grep -Eq '^0 +.*basic|^0 +.*pthread' "$tmp/out" || fail "the table lacks device 0"
grep -Eq '^1 +.*basic|^1 +.*pthread' "$tmp/out" || fail "the table lacks device 1"

# No platform at all: exit 1 and say what to install.
for args in "devices" "devices --json" "devices --dzn $tmp/none"; do
    status=0
    # shellcheck disable=SC2086
    OCL_ICD_VENDORS=/nonexistent "$HETUNE" $args >"$tmp/out" 2>"$tmp/err" || status=$?
    [ "$status" -eq 1 ] || fail "'$args' without a platform exited $status, expected 1"
    grep -q "no OpenCL platform found" "$tmp/err" || fail "'$args': message: $(cat "$tmp/err")"
    grep -q "/etc/OpenCL/vendors" "$tmp/err" || fail "'$args': no hint: $(cat "$tmp/err")"
    [ ! -s "$tmp/out" ] || fail "'$args' without a platform printed on stdout"
done
[ ! -e "$tmp/none" ] || fail "--dzn created its folder although there was no platform"

# Bad usage: exit 2 with a message.
for args in "devices --bogus" "devices extra" "devices --dzn" "devices --json --dzn $tmp/x"; do
    # shellcheck disable=SC2086
    run $args
    [ "$status" -eq 2 ] || fail "'$args' exited $status, expected 2"
    grep -q "hetune devices:" "$tmp/err" || fail "'$args' gave no message"
done

run devices --help
[ "$status" -eq 0 ] || fail "--help exited $status"
grep -q "usage: hetune devices" "$tmp/out" || fail "--help has no usage line"
grep -q -- "--dzn DIR" "$tmp/out" || fail "--help does not describe --dzn"

echo "ok"
