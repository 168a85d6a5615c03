# Helpers shared by the CLI tests: tests/cli/<name>.sh source this file after `set -eu`
# (it is not a test itself, hence not .sh). It needs $HETUNE, the hetune binary.

: "${HETUNE:?HETUNE must name the hetune binary}"

# The tests start Python hundreds of times (check, sql, the scripts' own python3 - <<EOF).
# Where python3 is a pyenv shim, as on this machine, each start ran bash and pyenv first:
# 0.13 s of CPU against 0.03 s for the interpreter it picks started directly (with -S, as
# check and sql are: they need only the standard library), and at a load of 10 a start
# waited for the scheduler once per process. python3 here is that interpreter, found once.
HETUNE_PYTHON=${HETUNE_PYTHON:-$(command python3 -c 'import sys; print(sys.executable)' 2>/dev/null || true)}
python3() { command "${HETUNE_PYTHON:-python3}" "$@"; }

# Makes $tmp, a fresh folder named hetune-$1.XXXXXX, removed when the script exits.
make_tmp() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/hetune-$1.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Turns PoCL's kernel cache on for the rest of a test that checks what is built and run, not
# how hetune caches it (options.sh, eval.sh, sizes.sh, tune_jobs.sh and unit/test_exec do,
# with PoCL's cache off, as every other test runs). PoCL's cache then lies beside hetune's
# markers of what it built with it, in the tests' binary cache folder, which `make test`
# shares between the plain and the sanitized pass; no test with PoCL's cache off uses that
# folder (PoCL removes a program's folder when its cache is off). A cold build then skips
# generating machine code for a binary file (2 to 3 times as long), and a warm one skips
# the work-group functions. PoCL keys its cache by source, options and device, as hetune's.
pocl_cache_on() {
    export POCL_KERNEL_CACHE=1 POCL_CACHE_DIR="${HETUNE_CACHE_DIR:-$tmp}/pocl"
    mkdir -p "$POCL_CACHE_DIR"
}

# A PoCL folder for one of two hetune processes that run at once: echoes it. With PoCL's
# kernel cache off (as the tests run) PoCL writes a program's work-group functions under
# POCL_CACHE_DIR/<the program's hash> and removes that folder when the program is released,
# so two processes building the same program at once pull it from under each other: "Final
# linking of kernel slowish failed", an abort in the split's part (cli/lock_split in CI,
# 2026-11-29; here 6 of 137 and, before the kept contexts, 5 of 135 splits beside a loop of
# tunes of the same kernel failed so, 0 of 133 with a folder each). With the cache on, the
# folder is shared: PoCL removes nothing then. Use: POCL_CACHE_DIR=$(own_pocl a) "$HETUNE" ...
own_pocl() {
    if [ "${POCL_KERNEL_CACHE:-}" = 1 ] && [ -n "${POCL_CACHE_DIR:-}" ]; then
        echo "$POCL_CACHE_DIR"
        return
    fi
    mkdir -p "$tmp/pocl-$1"
    echo "$tmp/pocl-$1"
}

# Runs hetune with the given arguments; sets $status, $tmp/out and $tmp/err.
run() {
    status=0
    "$HETUNE" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
}

# After a `hetune devices` run that set $status and $tmp/err: skips the test (exit 77)
# when there is no OpenCL platform, fails it when the command failed otherwise.
require_platform() {
    if [ "$status" -ne 0 ] && grep -q "no OpenCL platform" "$tmp/err"; then
        echo "skipped: no OpenCL platform" >&2
        exit 77
    fi
    [ "$status" -eq 0 ] || fail "hetune devices exited $status: $(cat "$tmp/err")"
}

# Expects exit status $1 from the last run.
expect_status() {
    [ "$status" -eq "$1" ] ||
        fail "expected exit $1, got $status: $(cat "$tmp/out" "$tmp/err")"
}

# Expects the last run's stderr to contain $1.
expect_err() {
    grep -qF -- "$1" "$tmp/err" || fail "stderr lacks '$1': $(cat "$tmp/err")"
}

# check and sql ask one Python process, started when this file is sourced and ending with
# the test (its input closes), instead of starting Python for each call: a CLI test makes
# tens of calls (cli/split 71, cli/verify 54), each start about 17 ms of CPU, more on a
# loaded machine. Each call reads its file or opens its database afresh, in the caller's
# folder, with the same names at hand as before (json, sys and d; sqlite3, sys, db and q),
# and gives the same status, output and error text. It is a coprocess: its pipes reach the
# test's subshells ($(sql ...)), not the programs the test starts (bash closes them on
# exec), and its own output goes nowhere else. Where it did not start or has ended, the
# call starts the same server for its one request (ht__py).
ht__py_server='
import json, os, sqlite3, sys, traceback
inp = sys.stdin.buffer
def field():
    b = bytearray()
    while True:
        c = inp.read(1)
        if not c:
            sys.exit(0)
        if c == b"\0":
            return b.decode()
        b += c
while True:
    kind, cwd, path, expr = field(), field(), field(), field()
    status, text, err = 1, "", ""
    try:
        try:
            os.chdir(cwd)  # relative names as the caller sees them
        except OSError:
            pass  # a folder since removed: Python started there would go on too
        if kind == "check":
            d = json.load(open(path))
            status = 0 if eval(expr, {"json": json, "sys": sys, "d": d}) else 1
        else:
            db = sqlite3.connect(path, timeout=30)
            try:
                text = str(eval(expr, {"sqlite3": sqlite3, "sys": sys, "db": db,
                                       "q": lambda s: db.execute(s).fetchall()})) + "\n"
                status = 0
            finally:
                db.close()
    except BaseException:
        err = traceback.format_exc()
    sys.stdout.write("%d%s\0%s\0" % (status, text, err))
    sys.stdout.flush()
'
coproc HT__PY { exec "${HETUNE_PYTHON:-python3}" -S -u -c "$ht__py_server" 2>/dev/null; }
# shellcheck disable=SC2153 # coproc sets HT__PY_PID
ht__py_pid=${HT__PY_PID:-}

# ht__py KIND PATH EXPR: KIND (check or sql) over PATH, by the coprocess: its output on
# stdout, its error text on stderr, its status (0 or 1). Where the coprocess is not there
# (a background subshell, which has not its pipes, or it has ended), the same server
# answers this one request in a Python of its own.
ht__py() {
    local reply err
    if ! { [ -n "$ht__py_pid" ] && kill -0 "$ht__py_pid" 2>/dev/null &&
           printf '%s\0%s\0%s\0%s\0' "$1" "$PWD" "$2" "$3" 2>/dev/null >&"${HT__PY[1]}" &&
           IFS= read -r -d '' reply <&"${HT__PY[0]}" &&
           IFS= read -r -d '' err <&"${HT__PY[0]}"; }; then
        { IFS= read -r -d '' reply && IFS= read -r -d '' err; } < <(
            printf '%s\0%s\0%s\0%s\0' "$1" "$PWD" "$2" "$3" |
                "${HETUNE_PYTHON:-python3}" -S -u -c "$ht__py_server") ||
            { echo "no answer from Python for: $3" >&2; return 1; }
    fi
    printf '%s' "${reply:1}"
    [ -z "$err" ] || printf '%s' "$err" >&2
    return "${reply:0:1}"
}

# Checks the JSON of the last run with a Python expression over `d`, the parsed object.
check() {
    ht__py check "$tmp/out" "$1" || fail "JSON check failed: $1 in $(cat "$tmp/out")"
}

# The index of PoCL's pthread device in the `hetune devices --json` output in file $1, else
# the first device's: the one device most tests measure on.
pthread_device() {
    python3 -S -c '
import json, sys
d = json.load(open(sys.argv[1]))["devices"]
print(next((x["index"] for x in d if "pthread" in x["name"]), d[0]["index"]))' "$1"
}

# Prints what the Python expression $1 gives over the database $db (q runs SQL).
sql() {
    ht__py sql "$db" "$1"
}

# Skips (77) a test of hetune over MPI where hetune was built without MPI or mpirun is
# missing; else sets mpiflags (mpirun's flags) and the environment of one machine: Open
# MPI's shared-memory path (pml ob1), not PSM or libfabric, which load and unload libraries
# whose allocations LeakSanitizer cannot name then (under ASan), nor can it with fast
# unwinding, which loses the frames tests/lsan.supp matches.
require_mpi() {
    if [ "${HETUNE_MPI:-OFF}" != ON ] && [ "${HETUNE_MPI:-OFF}" != 1 ]; then
        echo "skipped: hetune was built without MPI" >&2
        exit 77
    fi
    if ! command -v mpirun >/dev/null 2>&1; then
        echo "skipped: no mpirun" >&2
        exit 77
    fi
    export OMPI_MCA_pml=ob1 ASAN_OPTIONS="${ASAN_OPTIONS:-}:fast_unwind_on_malloc=0"
    mpiflags=(--oversubscribe)
    if [ "$(id -u)" = 0 ]; then
        mpiflags+=(--allow-run-as-root)
    fi
}

# Writes $tmp/rank.sh, which runs $1 (default hetune) as each rank of mpirun would on a node
# of its own. PoCL's cache folder: with PoCL's cache off, each rank its own (two processes
# building one program in one folder pull it from under each other then); after
# pocl_cache_on, the ranks share its folder, as the tests and make test's two passes do
# (PoCL writes its cache through temporary files, for processes building one program at
# once): a program that one rank built, in the tune or in the plain pass, is there for
# every rank after. With PoCL's cache off, every rank of every mpirun compiled each
# kernel's work-group functions again, under ASan with the slow unwinding that require_mpi
# sets on each of the compiler's allocations (cli/mpi_split's conv1d split with --refine 2:
# 11.1 s of CPU with PoCL's cache off, 1.4 s with it warm).
# Test hooks: the rank named by $NO_PLATFORM finds no OpenCL platform; the device of each
# rank listed in $SLICE_FAIL fails in any slice that does not start at 0 (supervise.h);
# $POCL_DEVICES_<rank>, when set, is that rank's POCL_DEVICES.
mpi_rank_script() {
    cat >"$tmp/rank.sh" <<EOF
#!/usr/bin/env bash
r=\${OMPI_COMM_WORLD_RANK:-0}
[ "\${POCL_KERNEL_CACHE:-}" = 1 ] || export POCL_CACHE_DIR="$tmp/pocl-\$r"
mkdir -p "\$POCL_CACHE_DIR"
case " \${SLICE_FAIL:-} " in *" \$r "*) export HETUNE_TEST_SLICE_FAIL=0 ;; esac
v=POCL_DEVICES_\$r
[ -n "\${!v:-}" ] && export POCL_DEVICES="\${!v}"
[ "\${NO_PLATFORM:-}" = "\$r" ] && export OCL_ICD_VENDORS="$tmp/none" OCL_ICD_FILENAMES=
exec "${1:-$HETUNE}" "\$@"
EOF
    chmod +x "$tmp/rank.sh"
}

# Runs $tmp/rank.sh under `mpirun -n $1` with the remaining arguments; stdout in $tmp/out,
# stderr in $tmp/err, the exit status in $status (a hang ends in 124 after 300 s).
mpi_run() {
    local n=$1
    shift
    status=0
    timeout 300 mpirun "${mpiflags[@]}" -n "$n" "$tmp/rank.sh" "$@" >"$tmp/out" 2>"$tmp/err" ||
        status=$?
}

# stop_holding LOCK PID: waits (up to 120 s) until process PID holds the device lock whose
# file is LOCK (src/exec/devlock.c writes the holder's pid into it just after it took the
# lock, and keeps the lock for the whole tune or split's measurements), then stops it
# (SIGSTOP) there, so that a process started next must wait for it; `kill -CONT PID` lets
# it go. Two runs started at once on a loaded machine may otherwise run one after the
# other, neither waiting (cli/lock_split, 2026-11-29). Fails when PID never holds it.
stop_holding() {
    local lock=$1 pid=$2 i
    for i in $(seq 12000); do
        [ "$(cat "$lock" 2>/dev/null)" = "$pid" ] && { kill -STOP "$pid"; return 0; }
        kill -0 "$pid" 2>/dev/null || fail "process $pid ended before it held $lock"
        sleep 0.01
    done
    kill "$pid" 2>/dev/null
    fail "process $pid did not hold $lock within 120 s"
}

# until_waiting ERRFILE PID: waits (up to 120 s) until ERRFILE has a notice that a device
# "is being measured by" another process, or process PID has ended.
until_waiting() {
    local err=$1 pid=$2 i
    for i in $(seq 1200); do
        grep -q "is being measured by" "$err" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
}
