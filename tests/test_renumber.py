# SPDX-License-Identifier: GPL-2.0
"""scripts/renumber.py: labs renumbered in names and texts, and back."""

import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "scripts"))
import renumber  # noqa: E402


def git(top, *args):
    return subprocess.run(["git", "-C", top] + list(args), check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout.decode()


class Mapping(unittest.TestCase):
    def test_insert_remove_move(self):
        self.assertEqual(renumber.mapping("insert", [2], 3), {1: 1, 2: 3, 3: 4})
        self.assertEqual(renumber.mapping("remove", [2], 4), {1: 1, 3: 2, 4: 3})
        self.assertEqual(renumber.mapping("move", [3, 1], 3), {3: 1, 1: 2, 2: 3})
        self.assertEqual(renumber.mapping("move", [1, 3], 3), {2: 1, 3: 2, 1: 3})
        with self.assertRaises(ValueError):
            renumber.mapping("insert", [9], 3)

    def test_forms(self):
        m = renumber.mapping("insert", [2], 16)
        stems = {"02-unpriv-clone", "00-02-fork-userns-needs-global-caps", "02-start"}
        cases = [
            ("lab 2, Lab 02, LAB 2: and labs 2 to 3", "lab 3, Lab 03, LAB 3: and labs 3 to 4"),
            ("labs 1, 2 and 16; Chapters 2-4; Ch. 2", "labs 1, 3 and 17; Chapters 3-5; Ch. 3"),
            ("lab-02-start, make lab-2, check-lab-02.ktap", "lab-03-start, make lab-3, check-lab-03.ktap"),
            ("/tmp/lab02 lab16-good.patch LAB=2 lab=2", "/tmp/lab03 lab17-good.patch LAB=3 lab=3"),
            ("make solution-2, solution/lab-02", "make solution-3, solution/lab-03"),
            ("NEEDS_STEP=15", "NEEDS_STEP=16"),
            ("labs/02-unpriv-clone/check kernel-steps/00-02-fork-userns-needs-global-caps.patch",
             "labs/03-unpriv-clone/check kernel-steps/00-03-fork-userns-needs-global-caps.patch"),
            ("solutions/02-*.patch <!-- capture: 02 start --> 02-start.txt",
             "solutions/03-*.patch <!-- capture: 03 start --> 03-start.txt"),
            ("TODO 16.3, TODO 16.N, <!-- lab-section: 16 Questions -->",
             "TODO 17.3, TODO 17.N, <!-- lab-section: 17 Questions -->"),
            # not a lab: versions, series numbers, counts, names of no file
            ("Linux 3.8, patch 2/16, 16 labs, 02-nothing, lab 3.5, lab 0", None),
        ]
        for text, want in cases:
            self.assertEqual(renumber.rewrite(text, m, stems), want or text, text)

    def test_paths(self):
        m = renumber.mapping("insert", [15], 16)
        self.assertEqual(renumber.new_path("labs/15-proc-sysfs-mount/check", m),
                         "labs/16-proc-sysfs-mount/check")
        self.assertEqual(renumber.new_path("kernel-steps/00-15-proc.patch", m),
                         "kernel-steps/00-16-proc.patch")
        self.assertEqual(renumber.new_path("tests/fixtures/grade/lab16-good.patch", m),
                         "tests/fixtures/grade/lab17-good.patch")
        self.assertEqual(renumber.new_path("book/00-intro.md", m), "book/00-intro.md")


class OnTheCourse(unittest.TestCase):
    """The tool on a clone of this course's HEAD: insert then remove, and
    move there and back, give the files back byte for byte; a move leaves
    the labs, chapters, patches and course map agreeing."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="renumber-test.")
        cls.top = os.path.join(cls.tmp, "course")
        git(TOP, "clone", "-q", "--no-hardlinks", TOP, cls.top)
        git(cls.top, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
            "--allow-empty", "-m", "start")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_tool(self, *args):
        out = io.StringIO()
        op, nums = args[0], [int(a) for a in args[1:]]
        renumber.run(op, nums, self.top, out=out)
        git(self.top, "add", "-A")
        git(self.top, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
            "--allow-empty", "-m", " ".join(args))
        return out.getvalue()

    def same_as_start(self):
        return git(self.top, "diff", "--stat", "HEAD", "HEAD~2") == ""

    def labs(self):
        return sorted(d for d in os.listdir(os.path.join(self.top, "labs")) if d[:2].isdigit())

    def test_insert_then_remove(self):
        before = self.labs()
        n = len(before) - 1  # the last but one lab's place
        out = self.run_tool("insert", str(n))
        after = self.labs()
        self.assertNotIn("%02d-" % n, [d[:3] for d in after], out)
        self.assertIn("%02d-%s" % (n + 1, before[n - 1][3:]), after)
        self.run_tool("remove", str(n))
        self.assertTrue(self.same_as_start())

    def test_move_agrees_and_back(self):
        before = self.labs()
        last = len(before)
        self.run_tool("move", str(last), str(last - 1))
        top = self.top
        labs = self.labs()
        self.assertEqual(labs[last - 2:], ["%02d-%s" % (last - 1, before[-1][3:]),
                                           "%02d-%s" % (last, before[-2][3:])])
        chapters = sorted(os.listdir(os.path.join(top, "book", "chapters")))
        self.assertEqual([c[:-3] for c in chapters], labs)
        # (a base's own mutants, tests/mutants/6.1/NN-*.patch, move too)
        for _d, _subdirs, files in os.walk(os.path.join(top, "tests", "mutants")):
            for f in files:
                self.assertTrue(any(d.startswith(f[:3]) for d in labs), f)
        scaffold = os.path.join(top, "kernel-steps", "%s-scaffold.patch" % labs[-1])
        if os.path.exists(scaffold):  # the lab moved last is a kernel lab
            with open(scaffold) as fh:
                self.assertIn("LAB %d:" % last, fh.read())
        with open(os.path.join(top, "labs", "README.md")) as fh:  # made again by the tool
            self.assertIn("| [%02d](%s/README.md) |" % (last - 1, labs[-2]), fh.read())
        self.run_tool("move", str(last - 1), str(last))
        self.assertTrue(self.same_as_start())

    def test_refuses_changes(self):
        with open(os.path.join(self.top, "README.md"), "a") as fh:
            fh.write("x\n")
        try:
            with self.assertRaisesRegex(ValueError, "has changes"):
                renumber.run("insert", [3], self.top, out=io.StringIO())
        finally:
            git(self.top, "checkout", "-q", "README.md")


if __name__ == "__main__":
    unittest.main()
