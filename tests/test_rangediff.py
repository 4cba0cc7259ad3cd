# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/rangediff.py: a git range-diff of the two bases'
lines of tags read step by step, against the second base's own patches
and the book's base notes."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import rangediff  # noqa: E402

NAMES = ["kernel-steps/00-01-a.patch", "kernel-steps/01-a-scaffold.patch", "solutions/01-a.patch"]

SAME = " %d:  1111111 = %d:  2222222 subject %d\n"
HEADINGS = (" %d:  1111111 ! %d:  2222222 subject %d\n"
            "    @@ Metadata\n"
            "      ## fs/a.c ##\n"
            "    -@@ fs/a.c: static int f(\n"
            "    +@@ fs/a.c: int f(\n"
            "      \t\tcontext\n")
CHANGED = (" %d:  1111111 ! %d:  2222222 subject %d\n"
           "      ## fs/a.c ##\n"
           "    -+\tnew_helper(x);\n"
           "    ++\told_helper(x);\n")


def out(*rows):
    return "".join(r % (i + 1, i + 1, i + 1) for i, r in enumerate(rows))


class Compare(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.top = self.tmp.name
        for d in ("kernel-steps/6.1", "solutions/6.1"):
            os.makedirs(os.path.join(self.top, d))

    def tearDown(self):
        self.tmp.cleanup()

    def own(self, name):
        kind, rest = name.split("/", 1)
        open(os.path.join(self.top, kind, "6.1", rest), "w").close()

    def compare(self, text, noted=None):
        if noted is None:
            noted = ("01",) if os.listdir(os.path.join(self.top, "solutions", "6.1")) or \
                os.listdir(os.path.join(self.top, "kernel-steps", "6.1")) else ()
        lines, bad = rangediff.compare(rangediff.parse(text), NAMES, self.top, "6.1", set(noted))
        return lines, bad

    def test_same_everywhere(self):
        lines, bad = self.compare(out(SAME, SAME, SAME))
        self.assertEqual(bad, 0)
        self.assertIn("3 steps, 3 the series' change on both bases, 0 with 6.1's own patch, 0 problems", lines[-1])

    def test_hunk_headings_are_the_same_change(self):
        lines, bad = self.compare(out(SAME, HEADINGS, SAME))
        self.assertEqual(bad, 0)
        self.assertIn("= (hunk headings)", lines[1])

    def test_a_change_that_differs_needs_an_own_patch(self):
        lines, bad = self.compare(out(SAME, SAME, CHANGED))
        self.assertEqual(bad, 1)
        self.assertIn("ERROR: the change differs, and 6.1 has no patch of its own", lines[2])
        self.own("solutions/01-a.patch")
        lines, bad = self.compare(out(SAME, SAME, CHANGED))
        self.assertEqual(bad, 0)
        self.assertIn("own (2 lines)", lines[2])

    def test_an_own_patch_the_series_makes_needless(self):
        self.own("kernel-steps/00-01-a.patch")
        lines, bad = self.compare(out(SAME, SAME, SAME))
        self.assertEqual(bad, 1)
        self.assertIn("is not needed", lines[0])

    def test_an_own_patch_needs_its_labs_note(self):
        self.own("solutions/01-a.patch")
        lines, bad = self.compare(out(SAME, SAME, CHANGED), noted=())
        self.assertEqual(bad, 1)
        self.assertIn("lab 01 has no section '## Lab 01'", lines[2])

    def test_a_note_for_a_lab_the_series_covers(self):
        lines, bad = self.compare(out(SAME, SAME, SAME), noted=("01",))
        self.assertEqual(bad, 1)
        self.assertIn("a section '## Lab 01'", lines[-2])

    def test_unpaired_steps(self):
        text = out(SAME, SAME) + " 3:  1111111 < -:  ------- subject 3\n -:  ------- > 3:  2222222 subject 3\n"
        lines, bad = self.compare(text)
        self.assertEqual(bad, 2)
        self.assertIn("NOT PAIRED", lines[2])

    def test_main(self):
        rd = os.path.join(self.top, "rd")
        files = os.path.join(self.top, "files")
        with open(rd, "w") as f:
            f.write(out(SAME, SAME, SAME))
        with open(files, "w") as f:
            f.write("\n".join(NAMES) + "\n")
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            self.assertEqual(rangediff.main([rd, files, "--top", self.top, "--other", "6.1"]), 0)
        self.assertIn("0 problems", buf.getvalue())


if __name__ == "__main__":
    unittest.main()
