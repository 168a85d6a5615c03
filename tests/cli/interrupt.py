#!/usr/bin/env python3
"""A signal during a long hetune command: it must exit 130 within a second, leave no child
process behind and say how to resume. Shared by the CLI tests (not a test itself).

usage: interrupt.py INT|TERM OUT READY -- hetune ARGS...
  OUT    file that gets the command's stdout and stderr
  READY  when to send the signal: "child:S" (S seconds after a child process appears) or
         "db:FILE:N:S" (S seconds after FILE's evaluations table holds N rows; FILE must be
         the command's own new database: rows of an earlier run would be counted)
Exits 0 when all holds, else with the reason."""
import os
import signal
import sqlite3
import subprocess
import sys
import time


def children(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def stored(db):
    if not os.path.exists(db):
        return 0  # not made yet: never made here (an empty file would be)
    try:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
        n = c.execute("SELECT count(*) FROM evaluations").fetchone()[0]
        c.close()
        return n
    except sqlite3.Error:
        return 0


def main():
    sig, out, ready = sys.argv[1:4]
    cmd = sys.argv[5:] if sys.argv[4] == "--" else sys.exit("usage: see the docstring")
    p = subprocess.Popen(cmd, stdout=open(out, "w"), stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    kind, *rest = ready.split(":")
    if kind == "child":
        while time.time() < deadline and not children(p.pid):
            time.sleep(0.05)
        what = "no child process appeared"
        done = bool(children(p.pid))
    else:
        db, n = rest[0], int(rest[1])
        # Rows of an earlier run would be counted: give each run a database of its own.
        while time.time() < deadline and stored(db) < n:
            time.sleep(0.05)
        what = f"{n} rows were not stored in 60 s"
        done = stored(db) >= n
    if not done:
        p.kill()
        sys.exit(what)
    time.sleep(float(rest[-1]))
    # The signal is for a command with a child at work: at a load of 15 on 2 cores, the
    # worker of the configuration after the stored ones had not started 0.5 s after the
    # second was stored (cli/fault_isolation failed so once). Wait for it, up to the deadline.
    kids = children(p.pid)
    while not kids and p.poll() is None and time.time() < deadline:
        time.sleep(0.05)
        kids = children(p.pid)
    if not kids:
        p.kill()
        sys.exit("no child process under the command when the signal came")
    t0 = time.time()
    p.send_signal(signal.SIGINT if sig == "INT" else signal.SIGTERM)
    try:
        rc = p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        sys.exit(f"the command did not stop within 5 s of SIG{sig}")
    dt = time.time() - t0
    if rc != 130:
        sys.exit(f"exit {rc} after SIG{sig}, not 130: " + open(out).read())
    if dt > 1.0:
        sys.exit(f"the command took {dt:.2f} s to stop after SIG{sig}")
    time.sleep(0.1)
    for k in kids:
        try:
            os.kill(k, 0)
            sys.exit(f"the child {k} outlived the command")
        except ProcessLookupError:
            pass
    if "the same command resumes" not in open(out).read():
        sys.exit("no word on how to resume: " + open(out).read())


if __name__ == "__main__":
    main()
