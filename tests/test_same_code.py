# SPDX-License-Identifier: GPL-2.0
"""Unit tests for tests/same_code.py (the staircase's comment-only check)."""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import same_code  # noqa: E402


class StripTest(unittest.TestCase):
    def test_comments_go_code_stays(self):
        a = "int f(void)\n{\n\t/* LAB 1: a note */\n\treturn 0; // why\n}\n"
        b = "int f(void)\n{\n\treturn 0;\n}\n"
        self.assertEqual(same_code.code(a), same_code.code(b))

    def test_a_changed_statement_is_code(self):
        self.assertNotEqual(same_code.code("return 0;"), same_code.code("return 1;"))

    def test_comment_markers_inside_strings_are_code(self):
        a = 'printk("/* not a comment */");'
        self.assertIn("not a comment", same_code.code(a))
        self.assertNotEqual(same_code.code(a), same_code.code('printk("");'))

    def test_escaped_quote_in_string(self):
        a = 'char *s = "a\\"/*b";  /* real */ int x;'
        self.assertEqual(same_code.code(a), 'char *s = "a\\"/*b"; int x;')


class RepoTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
        self.env = env

        def commit(name, text, msg):
            with open(os.path.join(self.d, name), "w") as f:
                f.write(text)
            subprocess.run(["git", "-C", self.d, "add", "-A"], check=True, env=env)
            subprocess.run(["git", "-C", self.d, "commit", "-qm", msg], check=True, env=env)
            return subprocess.run(["git", "-C", self.d, "rev-parse", "HEAD"], check=True,
                                  capture_output=True, text=True).stdout.strip()
        subprocess.run(["git", "-C", self.d, "init", "-q"], check=True)
        self.a = commit("f.c", "int f(void)\n{\n\treturn 0;\n}\n", "a")
        self.b = commit("f.c", "int f(void)\n{\n\t/* LAB 1: here */\n\treturn 0;\n}\n", "b")
        self.c = commit("f.c", "int f(void)\n{\n\treturn 1;\n}\n", "c")
        self.e = commit("Makefile", "all:\n", "e")

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.d], check=True)

    def test_comment_only(self):
        self.assertEqual(same_code.differing(self.d, self.a, self.b), [])

    def test_code_change(self):
        self.assertEqual(same_code.differing(self.d, self.b, self.c), ["f.c"])

    def test_other_files_count_as_code(self):
        self.assertEqual(same_code.differing(self.d, self.c, self.e), ["Makefile"])


if __name__ == "__main__":
    unittest.main()
