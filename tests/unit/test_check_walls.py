#!/usr/bin/env python3
"""scripts/check-walls.py on fake source trees: it must fail on each kind of new crossing
(an internal header of another module, by its path or by "../", SQLite's API outside the
store), accept what the allow-list lists and friend headers for their modules, and fail on
an allow-list line that no longer matches or has no reason. Standard library only."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "check-walls.py")


class Walls(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        # A clean house: a uses b only through b's public header; b and store keep their
        # internal headers to themselves.
        self.write("include/hetune/b.h", "int ht_b(void);\n")
        self.write("src/a/a-internal.h", "int ht__a(void);\n")
        self.write("src/a/x.c", '#include "a/a-internal.h"\n#include "hetune/b.h"\n'
                   "#include <stdio.h>\nint f(void) { return ht_b(); }\n")
        self.write("src/b/b-internal.h", "int ht__b(void);\n")
        self.write("src/b/y.c", '#include "b/b-internal.h"\n#include "b-internal.h"\n')
        self.write("src/store/store-internal.h", "#include <sqlite3.h>\n")
        self.write("src/store/s.c", '#include "store/store-internal.h"\n'
                   "int g(sqlite3 *db) { return sqlite3_exec(db, \"\", 0, 0, 0); }\n")
        self.write("src/store/query.h", "int ht__store_q(void);\n")
        self.write("src/util/util.h", "int ht__u(void);\n")
        self.allow("")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def allow(self, text):
        self.write("scripts/walls-allowed.txt", text)

    def run_check(self):
        p = subprocess.run([sys.executable, SCRIPT, "--root", self.root],
                           capture_output=True, text=True)
        return p.returncode, p.stderr

    def assert_fails(self, *words):
        rc, err = self.run_check()
        self.assertEqual(rc, 1, err)
        for w in words:
            self.assertIn(w, err)
        return err

    def test_clean_tree_passes(self):
        rc, err = self.run_check()
        self.assertEqual((rc, err), (0, ""))

    def test_internal_header_of_another_module_fails(self):
        self.write("src/a/z.c", "int h;\n#include \"b/b-internal.h\"\n")
        self.assert_fails("src/a/z.c:2", "module a includes b/b-internal.h",
                          "include/hetune/b.h", "1 problem")

    def test_relative_path_is_resolved(self):
        self.write("src/a/z.c", '#include "../b/b-internal.h"\n')
        self.assert_fails("src/a/z.c:1", "b/b-internal.h")

    def test_header_crossing_from_a_header(self):
        self.write("src/a/a-internal.h", '#  include "b/b-internal.h"\n')
        self.assert_fails("src/a/a-internal.h:1", "module a includes b/b-internal.h")

    def test_sqlite_outside_store_fails(self):
        self.write("src/a/z.c", "void q(void *st)\n{\n    sqlite3_step(st);\n}\n")
        self.assert_fails("src/a/z.c:3: sqlite3_step", "SQLite outside src/store")

    def test_sqlite_header_outside_store_fails(self):
        self.write("src/a/z.c", "#include <sqlite3.h>\n")
        self.assert_fails("src/a/z.c:1", "SQLite outside src/store")

    def test_sqlite_in_comments_and_strings_is_not_code(self):
        self.write("src/a/z.c", "/* sqlite3_step( */\n// sqlite3_exec(\n"
                   'const char *s = "sqlite3_prepare_v2(";\nchar c = \'"\';\n')
        rc, err = self.run_check()
        self.assertEqual((rc, err), (0, ""))

    def test_listed_crossing_passes_and_stale_line_fails(self):
        self.write("src/a/z.c", '#include "b/b-internal.h"\nint k(void) { return sqlite3_x(); }\n')
        self.allow("include a/z.c b/b-internal.h  # a reason\nsqlite3 a/z.c # another\n")
        rc, err = self.run_check()
        self.assertEqual((rc, err), (0, ""))
        self.write("src/a/z.c", "int k;\n")
        self.assert_fails("walls-allowed.txt:1", "include a/z.c b/b-internal.h",
                          "walls-allowed.txt:2", "no longer found", "2 problems")

    def test_listing_one_file_does_not_allow_another(self):
        self.write("src/a/z.c", '#include "b/b-internal.h"\n')
        self.write("src/a/w.c", '#include "b/b-internal.h"\n')
        self.allow("include a/z.c b/b-internal.h  # a reason\n")
        self.assert_fails("src/a/w.c:1", "1 problem")

    def test_friend_header_only_for_its_modules(self):
        self.write("src/report/m.c", '#include "store/query.h"\n#include "util/util.h"\n')
        self.allow("friend store/query.h report interop # readers\nfriend util/util.h * # floor\n")
        rc, err = self.run_check()
        self.assertEqual((rc, err), (0, ""))
        self.write("src/a/z.c", '#include "store/query.h"\n')
        self.assert_fails("src/a/z.c:1", "module a includes store/query.h")

    def test_unused_friend_fails(self):
        self.allow("friend store/query.h report # nobody uses it now\n")
        self.assert_fails("no longer found")

    def test_entry_without_reason_is_refused(self):
        self.allow("include a/z.c b/b-internal.h\n")
        rc, err = self.run_check()
        self.assertEqual(rc, 2, err)
        self.assertIn("needs its reason", err)

    def test_malformed_entry_is_refused(self):
        self.allow("include a/z.c  # one path only\n")
        rc, err = self.run_check()
        self.assertEqual(rc, 2, err)
        self.assertIn("walls-allowed.txt:1", err)


if __name__ == "__main__":
    unittest.main()
