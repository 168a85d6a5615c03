#!/usr/bin/env python3
"""Checks the walls between hetune's modules (docs/architecture.md, issue 27 item 1).

A module is a folder src/<name>/. It sees another only through that module's public header
(include/hetune/<name>.h) or through a friend header the design declares. This script reads
every .c and .h file under src/ and finds:

  include  a file of module A that includes a header of src/B/ (B not A), written
           "B/x.h", "../B/x.h" or however else it resolves there, unless x.h is a friend
           header declared for A;
  sqlite3  a file outside src/store/ that names SQLite's API (any sqlite3_ identifier, or
           #include <sqlite3.h>): the database's tables are the store's alone.

Each crossing found must be listed in the allow-list (scripts/walls-allowed.txt), and each
line of the allow-list must still be found, so the list is always today's crossings and a
crossing fixed leaves it. Lines of the allow-list, '#' starting a comment:

  friend HEADER MODULE...   # why     HEADER (as src/HEADER, in its module's door folder
                                      src/<module>/door/) is a friend header for these
                                      modules ('*': every module)
  include FILE HEADER       # why     FILE (under src/) includes HEADER (under src/)
  sqlite3 FILE              # why     FILE (under src/) uses SQLite's API

The compiler enforces the walls between modules too (one object library per module, each
seeing only the door folders it is allowed: CMakeLists.txt, tests/walls/); this script names
the crossing, and catches what the include path cannot: a "../other/x.h" relative include,
and which friend header of a door folder a module uses.

Every entry needs its reason after '#'. Exit status: 0 when everything found is listed and
everything listed is found, 1 otherwise (each problem on stderr), 2 on bad usage or a
malformed allow-list.

    python3 scripts/check-walls.py [--root DIR] [--allow FILE]

--root is the source tree (default: the one this script is in), --allow the allow-list
(default: ROOT/scripts/walls-allowed.txt). Python 3 standard library only.
"""
import argparse
import os
import re
import sys

INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^">]+)[">]', re.M)
SQLITE_RE = re.compile(r"\bsqlite3_[A-Za-z0-9_]*")


LEXEME_RE = re.compile(r"""/\*.*?(?:\*/|\Z)|//[^\n]*|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?""",
                      re.S)


def strip_comments_and_strings(text):
    """Blanks comments and string and character literals, keeping the line breaks, so that
    a word in a comment or in SQL text is not taken for code."""
    return LEXEME_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def module_of(rel):
    """The module of a path relative to src/ ("report/model.c" -> "report"); files right
    under src/ belong to no module ("")."""
    parts = rel.split("/")
    return parts[0] if len(parts) > 1 else ""


def door_dirs(src):
    """The door folders src/<module>/door/, which the build puts on the include path of the
    modules allowed in (CMakeLists.txt, hetune_module): a friend header is written
    "exec/engine.h" and lives in src/exec/door/exec/engine.h."""
    found = []
    for name in sorted(os.listdir(src)):
        d = os.path.join(src, name, "door")
        if os.path.isdir(d):
            found.append(d)
    return found


def resolve(src, file_rel, name, doors=()):
    """The path, relative to src/, that #include "name" in src/file_rel reaches, or None
    when it reaches nothing under src/ (a public header, a system or external one). Looks
    beside the file, then in src/ (the white-box tests' view) and the door folders."""
    here = os.path.dirname(os.path.join(src, file_rel))
    for base in (here, src) + tuple(doors):
        path = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(path):
            rel = os.path.relpath(path, src)
            if rel.startswith(".."):
                return None
            return rel.replace(os.sep, "/")
    return None


def scan(src):
    """Every crossing under src/: (key, where) pairs, key an allow-list entry's words."""
    found = []
    doors = door_dirs(src)
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        for fn in sorted(filenames):
            if not fn.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            mod = module_of(rel)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for m in INCLUDE_RE.finditer(text):
                where = "src/%s:%d" % (rel, line_of(text, m.start()))
                if m.group(1) == "<":
                    if m.group(2).strip() == "sqlite3.h" and mod != "store":
                        found.append((("sqlite3", rel), where))
                    continue
                target = resolve(src, rel, m.group(2).strip(), doors)
                if target is None or module_of(target) in ("", mod):
                    continue
                found.append((("include", rel, target), where))
            if mod != "store":
                code = strip_comments_and_strings(text)
                for m in SQLITE_RE.finditer(code):
                    found.append((("sqlite3", rel), "src/%s:%d: %s" % (
                        rel, line_of(code, m.start()), m.group(0))))
    return found


def load_allow(path):
    """The allow-list: (friends {header: set of modules}, entries {key: line number}).
    Raises ValueError naming the line of a malformed entry."""
    friends, entries = {}, {}
    with open(path, encoding="utf-8") as f:
        for k, raw in enumerate(f, 1):
            body, hash_, reason = raw.partition("#")
            words = body.split()
            if not words:
                continue
            if not hash_ or not reason.strip():
                raise ValueError("%s:%d: an entry needs its reason after '#'" % (path, k))
            kind = words[0]
            if kind == "friend" and len(words) >= 3:
                friends.setdefault(words[1], set()).update(words[2:])
                entries[("friend", words[1])] = k
            elif kind == "include" and len(words) == 3:
                entries[("include", words[1], words[2])] = k
            elif kind == "sqlite3" and len(words) == 2:
                entries[("sqlite3", words[1])] = k
            else:
                raise ValueError("%s:%d: expected 'friend HEADER MODULE...', "
                                 "'include FILE HEADER' or 'sqlite3 FILE'" % (path, k))
    return friends, entries


def check(root, allow_path, out=sys.stderr):
    src = os.path.join(root, "src")
    if not os.path.isdir(src):
        print("check-walls: no folder %s" % src, file=out)
        return 2
    try:
        friends, entries = load_allow(allow_path)
    except (OSError, ValueError) as e:
        print("check-walls: %s" % e, file=out)
        return 2
    used, bad = set(), 0
    for key, where in scan(src):
        if key[0] == "include":
            mods = friends.get(key[2])
            if mods is not None and ("*" in mods or module_of(key[1]) in mods):
                used.add(("friend", key[2]))
                continue
        if key in entries:
            used.add(key)
            continue
        bad += 1
        if key[0] == "include":
            print("%s: new crossing: module %s includes %s, a header of module %s; use "
                  "include/hetune/%s.h or a friend header the design declares "
                  "(scripts/walls-allowed.txt)" % (where, module_of(key[1]), key[2],
                                                  module_of(key[2]), module_of(key[2])),
                  file=out)
        else:
            print("%s: SQLite outside src/store: ask the store for a query "
                  "(include/hetune/store.h)" % where, file=out)
    for key, k in sorted(entries.items(), key=lambda e: e[1]):
        if key not in used:
            bad += 1
            print("%s:%d: '%s' is no longer found: remove it from the allow-list" %
                  (allow_path, k, " ".join(key)), file=out)
    if bad:
        print("check-walls: %d problem%s" % (bad, "" if bad == 1 else "s"), file=out)
        return 1
    return 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Checks the walls between hetune's modules.")
    ap.add_argument("--root", default=os.path.dirname(here), help="the source tree")
    ap.add_argument("--allow", help="the allow-list (default ROOT/scripts/walls-allowed.txt)")
    a = ap.parse_args()
    allow = a.allow or os.path.join(a.root, "scripts", "walls-allowed.txt")
    return check(a.root, allow)


if __name__ == "__main__":
    sys.exit(main())
