# SPDX-License-Identifier: GPL-2.0
"""scripts/bookcode.py: a page per kernel function the book names, both bases."""
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))
import bookcode  # noqa: E402

CHAPTER = """# Chapter {#lab-01}

`do_thing()` calls `helper(x)` and then `only_new()`; `gone()` was 3.7's
(history), and `demo_main()` is the course's.
"""


def git(d, *args):
    subprocess.run(["git", "-C", str(d)] + list(args), check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                            GIT_COMMITTER_EMAIL="t@t"))


def tree(d, text):
    d.mkdir()
    git(d, "init", "-q")
    (d / "kernel").mkdir()
    (d / "kernel" / "a.c").write_text(text)
    git(d, "add", "-A")
    git(d, "commit", "-q", "-m", "x")
    git(d, "tag", "distro")


class Pages(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = pathlib.Path(self.tmp.name)
        self.top = t / "top"
        (self.top / "book" / "chapters").mkdir(parents=True)
        (self.top / "book" / "chapters" / "01-x.md").write_text(CHAPTER)
        (self.top / "book" / "claims-allow.txt").write_text("gone   history: 3.7's\n")
        (self.top / "labs" / "01-x").mkdir(parents=True)
        (self.top / "labs" / "01-x" / "demo.c").write_text("int demo_main(void)\n{\n\treturn 0;\n}\n")
        tree(t / "new", "int do_thing(int a)\n{\n\treturn helper(a) < 0;\n}\n\n"
             "static int helper(int x)\n{\n\treturn x;\n}\n\nvoid only_new(void)\n{\n}\n")
        tree(t / "old", "int do_thing(int a)\n{\n\treturn a;\n}\n\n#define helper(x) ((x) + 1)\n")
        self.out = t / "out"
        self.args = ["--top", str(self.top), "--tree", "6.12=%s" % (t / "new"), "--tree", "6.1=%s" % (t / "old")]

    def tearDown(self):
        self.tmp.cleanup()

    def test_pages(self):
        self.assertEqual(bookcode.main(["pages", str(self.out)] + self.args), 0)
        names = (self.out / "names.txt").read_text().split()
        # the course's own and a name of the past get no page
        self.assertEqual(names, ["do_thing", "helper", "only_new"])
        p = (self.out / "do_thing.html").read_text()
        self.assertIn("6.12: <code>kernel/a.c</code>, line 1", p)
        self.assertIn("return helper(a) &lt; 0;", p)
        self.assertIn("6.1: <code>kernel/a.c</code>, line 1", p)
        self.assertIn('<a href="../lab-01.html">chapter 1</a>', p)
        # a macro on one base, a function on the other
        self.assertIn("#define helper(x) ((x) + 1)", (self.out / "helper.html").read_text())
        self.assertIn("The 6.1 base has no <code>only_new()</code>.", (self.out / "only_new.html").read_text())

    def test_prototypes_and_drivers_are_not_the_function(self):
        t = pathlib.Path(self.tmp.name)
        (self.top / "book" / "chapters" / "02-y.md").write_text(
            "# Two {#lab-02}\n\n`proto_only()` and `do_thing()` and `write()`.\n")
        tree(t / "third", "int proto_only(int a,\n\t       int b);\nstatic int other(void)\n{\n\treturn 1;\n}\n"
             "int do_thing(int a)\n{\n\treturn a;\n}\n"
             "SYSCALL_DEFINE3(write, unsigned int, fd, const char *, buf, size_t, count)\n{\n\treturn 0;\n}\n")
        d = t / "third"
        (d / "drivers").mkdir()
        (d / "drivers" / "x.c").write_text("static int do_thing(int a)\n{\n\treturn 2;\n}\n"
                                           "static ssize_t write(struct file *f)\n{\n\treturn 0;\n}\n")
        git(d, "add", "-A")
        git(d, "commit", "-q", "-m", "y")
        git(d, "tag", "-f", "distro")
        self.assertEqual(bookcode.main(["pages", str(self.out), "--top", str(self.top), "--tree", "6.12=%s" % d]), 0)
        names = (self.out / "names.txt").read_text().split()
        self.assertNotIn("proto_only", names)  # a prototype over two lines is no definition
        p = (self.out / "do_thing.html").read_text()
        self.assertIn("<code>kernel/a.c</code>", p)
        self.assertNotIn("drivers/x.c", p)  # the core's definition, not a driver's
        w = (self.out / "write.html").read_text()
        self.assertIn("SYSCALL_DEFINE3(write", w)
        self.assertNotIn("drivers/x.c", w)

    def test_backlinks_name_the_sections(self):
        self.assertEqual(bookcode.main(["pages", str(self.out / "code")] + self.args), 0)
        (self.out / "lab-01-the-change.html").write_text(
            '<title>1.2 The change · 1 Chapter · Book</title><a href="code/do_thing.html">x</a>'
            '<a href="code/do_thing.html">again</a>')
        (self.out / "lab-01.html").write_text('<title>1 Chapter · Book</title>')
        self.assertEqual(bookcode.backlinks(str(self.out)), 1)
        p = (self.out / "code" / "do_thing.html").read_text()
        self.assertIn('<p class="named-in">Named in: <a href="../lab-01-the-change.html">1.2 The change</a>.</p>', p)
        # a page no section links to keeps its chapters
        self.assertIn('<a href="../lab-01.html">chapter 1</a>', (self.out / "code" / "helper.html").read_text())

    def test_a_missing_tree_is_said(self):
        args = self.args[:4] + ["--tree", "6.1=%s" % (pathlib.Path(self.tmp.name) / "none")]
        self.assertEqual(bookcode.main(["pages", str(self.out)] + args), 0)
        self.assertIn("made without the 6.1 tree", (self.out / "do_thing.html").read_text())

    def test_no_tree_no_pages(self):
        none = str(pathlib.Path(self.tmp.name) / "none")
        self.assertEqual(bookcode.main(["pages", str(self.out), "--top", str(self.top), "--tree", "6.12=" + none]),
                         3)

    def test_links_only_named_functions(self):
        names = self.out / "names.txt"
        self.out.mkdir()
        names.write_text("do_thing\n")
        md = self.out / "t.md"
        md.write_text("`do_thing(a)` and `other()` and [`do_thing()`](#x) and `do_thing(2)`.\n\n# `do_thing()`\n")
        r = subprocess.run(["pandoc", "--lua-filter", str(HERE.parent / "book" / "codelinks.lua"), "-t", "html",
                            str(md)], env=dict(os.environ, BOOK_CODE_NAMES=str(names)), capture_output=True,
                           text=True, timeout=60)
        if r.returncode == 127 or "not found" in r.stderr:
            self.skipTest("no pandoc")
        html = " ".join(r.stdout.split())
        self.assertEqual(html.count('href="code/do_thing.html"'), 1, html)
        self.assertNotIn("code/other.html", html)


if __name__ == "__main__":
    unittest.main()
