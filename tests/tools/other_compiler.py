#!/usr/bin/env python3
"""Every C file of the build, compiled again by another compiler with the build's own flags
(-Wall -Wextra -Werror and the rest), syntax and warnings only (-fsyntax-only: no object is
made). The build is gcc's; clang warns about things gcc does not (and newer gccs about things
this one does not), and users build hetune with either. CTest's unit/other_compiler runs it.

    tests/tools/other_compiler.py BUILD [COMPILER]

BUILD is a CMake build tree with compile_commands.json (CMAKE_EXPORT_COMPILE_COMMANDS, on in
a top-level build). COMPILER defaults to the newest clang found. Exit 0: every file compiled
cleanly; 1: the files that did not, with the compiler's messages; 77 (skipped): no other
compiler, no compile_commands.json, or the build itself is not gcc's."""
import json
import os
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

SKIP = 77


def find_compiler():
    for name in ("clang-19", "clang-18", "clang-17", "clang-16", "clang-15", "clang-14",
                 "clang"):
        path = shutil.which(name)
        if path:
            return path
    return None


def command_of(entry, compiler):
    """The entry's command with compiler in place of the build's and -fsyntax-only in place of
    its output; None for an entry this check leaves (not C, or made by another compiler)."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    if not entry["file"].endswith(".c") or "gcc" not in os.path.basename(args[0]) and \
            os.path.basename(args[0]) not in ("cc", "c99"):
        return None
    out, i = [compiler], 1
    while i < len(args):
        a = args[i]
        if a in ("-o", "-MF", "-MT", "-MQ"):
            i += 2
            continue
        if a in ("-c", "-MD", "-MMD") or a.startswith("-fanalyzer"):
            i += 1
            continue
        out.append(a)
        i += 1
    out += ["-fsyntax-only", "-Wno-unknown-warning-option"]
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    db = os.path.join(argv[1], "compile_commands.json")
    compiler = argv[2] if len(argv) > 2 else find_compiler()
    if not compiler:
        print("skipped: no clang on PATH", file=sys.stderr)
        return SKIP
    if not os.path.exists(db):
        print("skipped: %s does not exist (CMAKE_EXPORT_COMPILE_COMMANDS)" % db,
              file=sys.stderr)
        return SKIP
    with open(db) as f:
        entries = json.load(f)
    jobs = []
    for e in entries:
        cmd = command_of(e, compiler)
        if cmd:
            jobs.append((e["directory"], e["file"], cmd))
    if not jobs:
        print("skipped: %s holds no file compiled by gcc" % db, file=sys.stderr)
        return SKIP

    def run(job):
        directory, path, cmd = job
        p = subprocess.run(cmd, cwd=directory, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        return path, p.returncode, p.stdout

    failed = 0
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for path, rc, text in pool.map(run, jobs):
            if rc != 0:
                failed += 1
                sys.stderr.write("%s: %s failed (exit %d)\n%s" %
                                 (path, os.path.basename(compiler), rc, text))
    print("%d of %d files compiled cleanly by %s" % (len(jobs) - failed, len(jobs), compiler))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
