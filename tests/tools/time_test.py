#!/usr/bin/env python3
"""Times one test as ctest runs it, for the figures of docs/development.md ("Where make
test's time goes"). Not a test itself.

usage: tests/tools/time_test.py [--old SRC] [--cache DIR] [--calls | --idle] BUILD TEST

Runs TEST's command with its environment (from `ctest --show-only=json-v1` in BUILD) and
prints its wall time, its CPU time (user + sys of the script and everything it waited for:
getrusage of the children), the load before and after, and the exit status.
  --old SRC    the script and HETUNE_SOURCE_DIR from SRC (say, `git archive` of the commit
               before), against the same binaries
  --cache DIR  HETUNE_CACHE_DIR=DIR (a new folder: cold caches; the folder a plain run
               filled, for the sanitized build: as in make test)
  --idle       under `strace -f -tt -T` (to /tmp/time-test-<test>.strace): the seconds in
               which every thread of the test was in a blocking call (futex, wait4, poll,
               sleeps, read...), the time another `ctest -j` slot could have used; a
               thread preempted or runnable counts as busy, so the load does not add to
               it. strace slows the test's system calls: compare with the wall, not CPU.
  --calls      each hetune call's wall, user and sys seconds and arguments to
               /tmp/time-test-<test>.calls, through a wrapper in $HETUNE (Python, which
               passes SIGINT and SIGTERM on; a SIGKILL ends the wrapper alone)
The test's output goes to /tmp/time-test-<test>.log. The test starts with SIGINT's default
action: a job started with `&` from a script inherits SIGINT ignored, and hetune keeps it
so (src/cli/common.c), which fails the tests' Ctrl-C checks."""
import argparse
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time

a = argparse.ArgumentParser()
a.add_argument("--old")
a.add_argument("--cache")
a.add_argument("--calls", action="store_true")
a.add_argument("--idle", action="store_true")
a.add_argument("build")
a.add_argument("test")
o = a.parse_args()
show = subprocess.run(["ctest", "--test-dir", o.build, "--show-only=json-v1", "-R",
                       "^%s$" % o.test], capture_output=True, text=True, check=True).stdout
tests = json.loads(show)["tests"]
if len(tests) != 1:
    sys.exit("%s: %d tests match" % (o.test, len(tests)))
env, wd = dict(os.environ), o.build
for p in tests[0].get("properties", []):
    if p["name"] == "ENVIRONMENT":
        env.update(kv.split("=", 1) for kv in p["value"])
    elif p["name"] == "WORKING_DIRECTORY":
        wd = p["value"]
cmd = list(tests[0]["command"])
if o.old:
    cmd = [c.replace(env["HETUNE_SOURCE_DIR"], o.old) for c in cmd]
    env["HETUNE_SOURCE_DIR"] = o.old
if o.cache:
    env["HETUNE_CACHE_DIR"] = o.cache
name = o.test.replace("/", "_")
if o.calls:
    wrapper = "/tmp/time-test-%s.hetune" % name
    # Python, not GNU time: it passes SIGINT and SIGTERM on to hetune, so that the tests'
    # Ctrl-C checks see what they would without it (GNU time ignores SIGINT while it
    # waits, and the tune went on to its end).
    with open(wrapper, "w") as f:
        f.write("#!%s -S\n" % sys.executable + """import os, signal, sys, time
t0 = time.time()
pid = os.fork()
if pid == 0:
    os.execv(os.environ["TIME_TEST_HETUNE"], ["hetune"] + sys.argv[1:])
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(sig, lambda n, f: os.kill(pid, n))
while True:
    try:
        _, st, ru = os.wait4(pid, 0)
        break
    except InterruptedError:
        pass
with open(os.environ["TIME_TEST_CALLS"], "a") as f:
    f.write("%.2f %.2f %.2f %s\\n" % (time.time() - t0, ru.ru_utime, ru.ru_stime,
                                     " ".join(sys.argv[1:])))
os._exit(os.waitstatus_to_exitcode(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st))
""")
    os.chmod(wrapper, 0o755)
    env["TIME_TEST_HETUNE"], env["HETUNE"] = env["HETUNE"], wrapper
    env["TIME_TEST_CALLS"] = "/tmp/time-test-%s.calls" % name
    open(env["TIME_TEST_CALLS"], "w").close()
trace = "/tmp/time-test-%s.strace" % name
if o.idle:
    cmd = ["strace", "-f", "-tt", "-T", "-q", "-o", trace] + cmd


def idle_seconds(path):
    """Seconds in which every live thread of the trace sat in a blocking call. A thread
    lives from its first line to its last: one of a process that exits or is killed in a
    blocking call gets no line of its own after it ("<... futex resumed>) = ?")."""
    block = {"futex", "wait4", "waitid", "poll", "ppoll", "select", "pselect6", "epoll_wait",
             "epoll_pwait", "nanosleep", "clock_nanosleep", "pause", "rt_sigsuspend",
             "rt_sigtimedwait", "read", "recvfrom", "recvmsg", "accept", "accept4", "flock",
             "semop", "semtimedop"}
    line_re = re.compile(r"(\d+)\s+(\d+):(\d+):(\d+\.\d+) (.*)")
    dur_re = re.compile(r"<(\d+\.\d+)>\s*$")
    ev, start, first, last = [], {}, {}, {}
    with open(path) as f:
        for line in f:
            m = line_re.match(line)
            if not m:
                continue
            tid, rest = m.group(1), m.group(5)
            t = int(m.group(2)) * 3600 + int(m.group(3)) * 60 + float(m.group(4))
            first.setdefault(tid, t)
            last[tid] = t
            if rest.startswith(("+++", "---")):
                continue
            d = dur_re.search(rest)
            if rest.endswith("<unfinished ...>"):
                start[tid] = (rest.split("(")[0], t)
                continue
            if rest.startswith("<... "):
                call, t0 = start.pop(tid, (rest[5:].split(" ")[0], t))
            else:
                call, t0 = rest.split("(")[0], t
            if call in block:
                ev += [(t0, 0, 1), (t0 + float(d.group(1)) if d else t, 0, -1)]
    for tid in first:
        ev += [(first[tid], 1, 0), (last[tid], -1, 0)]
    ev.sort()
    live = blocked = 0
    idle, prev = 0.0, None
    for t, dl, db in ev:
        if prev is not None and live > 0 and blocked >= live:
            idle += t - prev
        live, blocked, prev = live + dl, blocked + db, t
    return idle


load = lambda: open("/proc/loadavg").read().split()[0]
l0, t0 = load(), time.time()
with open("/tmp/time-test-%s.log" % name, "w") as log:
    rc = subprocess.call(cmd, env=env, cwd=wd, stdout=log, stderr=subprocess.STDOUT,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
wall = time.time() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%s %s: wall %.1f s, CPU %.1f s (user %.1f, sys %.1f), load %s-%s, exit %d" % (
    o.test, "old" if o.old else "new", wall, ru.ru_utime + ru.ru_stime, ru.ru_utime,
    ru.ru_stime, l0, load(), rc))
if o.idle:
    print("%s: idle %.1f s of %.1f s wall (%s)" % (o.test, idle_seconds(trace), wall, trace))
sys.exit(rc)
