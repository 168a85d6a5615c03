#!/usr/bin/env python3
"""Proves the compiler's walls between hetune's modules (docs/architecture.md, issue 27).

Each module of src/ is compiled as its own object library whose include path holds
include/, its own folder and the door folders (src/<module>/door/) of the modules it may use
(CMakeLists.txt, hetune_module). Given one module's include path, as the build has it, this
compiles one-line files with the compiler of the build:

  - every header of another module outside the door folders on that path, written as its
    module's files would write it ("exec-internal.h"), as a file under src/ would
    ("exec/exec-internal.h") and, for a door header, as its friends write it ("exec/engine.h"),
    must fail with "No such file" for that very include: another module's internals cannot
    be included;
  - every header of the module's own folder, and every header of a door folder on the path,
    must compile (-fsyntax-only): the path is the build's real one, so the failures above
    are the wall and not a broken command. A header that fails only for a system header
    (#include <...>) this build lacks, <mpi.h> without MPI, was found: it is listed, not
    failed.

Exit status 0 when all hold, 1 otherwise (each case on stderr), 2 on bad usage.

    compile_walls.py --root DIR --cc CC --module NAME --includes DIR:DIR:... [--flag F]...
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def headers(folder):
    """Every .h under folder, as paths relative to it."""
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for fn in sorted(filenames):
            if fn.endswith(".h"):
                out.append(os.path.relpath(os.path.join(dirpath, fn), folder))
    return out


# gcc: "probe.c:1:10: fatal error: x.h: No such file or directory"; clang: "probe.c:1:10:
# fatal error: 'x.h' file not found".
MISSING_RE = re.compile(r"^(\S+?):\d+:\d+: fatal error: (?:'([^']+)' file not found|"
                        r"([^:]+): No such file)", re.M)


def missing_system_header(out):
    """The system header (#include <...>) whose absence made a compilation fail, or None:
    a header of a build option that is off here (<mpi.h> without MPI) says nothing about
    the include path of the wall."""
    m = MISSING_RE.search(out)
    if not m:
        return None
    try:
        with open(m.group(1), encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    name = (m.group(2) or m.group(3)).strip()
    if re.search(r'^[ \t]*#[ \t]*include[ \t]*<%s>' % re.escape(name), text, re.M):
        return name
    return None


def probe_missing(out, name):
    """1 when the compilation failed because the probe's own #include "name" was not found
    (not a header it reached, found, and that failed further down)."""
    m = MISSING_RE.search(out)
    return (bool(m) and os.path.basename(m.group(1)) == "probe.c" and
            (m.group(2) or m.group(3)).strip() == name)


def compile_one(cc, flags, includes, text, tmp):
    probe = os.path.join(tmp, "probe.c")
    with open(probe, "w") as f:
        f.write(text)
    cmd = [cc, "-fsyntax-only"] + flags + ["-I" + d for d in includes] + [probe]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return p.returncode, p.stdout


def main():
    ap = argparse.ArgumentParser(description="The compiler's walls between modules.")
    ap.add_argument("--root", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--includes", required=True, help="the module's include path, ':'-joined")
    ap.add_argument("--flag", action="append", default=[])
    a = ap.parse_args()
    src = os.path.realpath(os.path.join(a.root, "src"))
    includes = [d for d in a.includes.split(":") if d]
    real = [os.path.realpath(d) for d in includes]
    open_doors = set()
    for d in real:
        rel = os.path.relpath(d, src)
        parts = rel.split(os.sep)
        if len(parts) == 2 and parts[1] == "door":
            open_doors.add(parts[0])
    if not os.path.isdir(os.path.join(src, a.module)):
        print("compile_walls: no module %s under %s" % (a.module, src), file=sys.stderr)
        return 2

    bad, checked, unchecked = 0, 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for mod in sorted(os.listdir(src)):
            folder = os.path.join(src, mod)
            if not os.path.isdir(folder):
                continue
            for h in headers(folder):
                parts = h.split(os.sep)
                in_door = parts[0] == "door"
                if in_door:
                    door_name = "/".join(parts[1:])
                    if mod in open_doors:
                        expect_ok, names = True, [door_name]
                    else:
                        expect_ok, names = False, [door_name, mod + "/" + h.replace(os.sep, "/")]
                elif mod == a.module:
                    expect_ok, names = True, [h.replace(os.sep, "/")]
                else:
                    expect_ok = False
                    names = [h.replace(os.sep, "/"), mod + "/" + h.replace(os.sep, "/")]
                for name in names:
                    checked += 1
                    rc, out = compile_one(a.cc, a.flag, includes, '#include "%s"\n' % name, tmp)
                    if expect_ok and rc != 0 and missing_system_header(out):
                        unchecked.append("%s (needs <%s>)" % (name, missing_system_header(out)))
                    elif expect_ok and rc != 0:
                        bad += 1
                        print("%s: #include \"%s\" (src/%s/%s) should compile here and does "
                              "not:\n%s" % (a.module, name, mod, h, out), file=sys.stderr)
                    elif not expect_ok and (rc == 0 or not probe_missing(out, name)):
                        bad += 1
                        print("%s: #include \"%s\" (src/%s/%s) is a header of module %s that "
                              "%s may not see, and it %s" % (
                                  a.module, name, mod, h, mod, a.module,
                                  "compiles" if rc == 0 else "fails otherwise:\n" + out),
                              file=sys.stderr)
    if bad:
        print("compile_walls: %s: %d of %d includes on the wrong side of the wall" %
              (a.module, bad, checked), file=sys.stderr)
        return 1
    print("compile_walls: %s: %d includes checked, the walls hold (doors open: %s)" %
          (a.module, checked, " ".join(sorted(open_doors)) or "none"))
    for u in unchecked:
        print("compile_walls: %s: found but not compiled: %s, a system header this build "
              "lacks" % (a.module, u))
    return 0


if __name__ == "__main__":
    sys.exit(main())
