# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/basediff.py: a lab's patches on the two kernel
bases compared definition by definition (the same change with moved lines, a
different change, an answer that reverses its rewind, a change that moved to
another function, a file or a patch on one base only), the Markdown fragment,
and the notes. The fixtures are a small course of their own,
tests/fixtures/basediff/ (kernel-steps/ and solutions/, 6.12's, their 6.1/ folders and
notes.md), with labs 91 to 96: numbers of no real lab, which
scripts/renumber.py leaves alone."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "scripts"))
import basediff as bd  # noqa: E402

FX = os.path.join(HERE, "fixtures", "basediff")
NOTES = os.path.join(FX, "notes.md")


def run(*argv):
    """basediff.py's main(): (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = bd.main(["basediff.py"] + list(argv))
    return rc, out.getvalue(), err.getvalue()


def items(lab, kind):
    return [it for k, _, _, its in lab.patches if k == kind for it in its]


class SameChange(unittest.TestCase):
    """Lab 91: the same lines changed, at other line numbers; in
    demo_read() the unchanged lines around the change differ."""

    def setUp(self):
        self.lab = bd.Lab.load(FX, "91")

    def test_same_change(self):
        rw = items(self.lab, "rewind")
        self.assertEqual([(it.kind, it.new.name) for it in rw],
                         [("same", "demo_open"), ("same", "demo_read")])
        self.assertEqual([it.context_differs for it in rw], [False, True])
        self.assertFalse(self.lab.differs())

    def test_one_sentence(self):
        frag = bd.fragment(self.lab)
        self.assertEqual(frag.count("\n"), 1, frag)
        self.assertNotIn("|", frag)
        self.assertIn("the rewind and answer of this lab make the same changes as on 6.1", frag)
        self.assertIn("`demo_read()` (`fs/demo.c`)", frag)
        self.assertNotIn("demo_open", frag)

    def test_every_change_on_request(self):
        frag = bd.fragment(self.lab, every=True)
        self.assertIn("| rewind | `fs/demo.c` | `demo_open()` | the same change |", frag)
        self.assertIn("| rewind | `fs/demo.c` | `demo_read()` | the same change; the code around "
                      "it differs |", frag)
        self.assertIn("| answer | `fs/demo.c` | `demo_open()` | the same change |", frag)
        self.assertNotIn("The other", frag)

    def test_no_note_needed(self):
        rc, out, err = run("lab", "91", "--top", FX, "--notes", NOTES)
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(out.startswith("On 6.12, the rewind and answer"))


class DifferentChange(unittest.TestCase):
    """Lab 92: chown_ok() removes another line on 6.12; the answer puts
    back what the rewind takes out; install()'s hunk names put() in its
    header."""

    def setUp(self):
        self.lab = bd.Lab.load(FX, "92")

    def test_kinds(self):
        rw = items(self.lab, "rewind")
        self.assertEqual([(it.kind, it.old.name) for it in rw],
                         [("different", "chown_ok"), ("same", "install")])
        a, b = rw[0].differing()
        self.assertEqual(a, [["-\tif (capable_wrt_inode_uidgid(mnt_userns, inode, CAP_CHOWN))"]])
        self.assertEqual(b, [["-\tif (capable_wrt_inode_uidgid(idmap, inode, CAP_CHOWN))"]])
        self.assertTrue(self.lab.differs())

    def test_hunk_names_come_from_bookexcerpt(self):
        # the change is in install(), which begins in the hunk: the name
        # the book's hunks= anchor gives, not the header's put()
        names = [it.old.name for it in items(self.lab, "rewind")]
        self.assertNotIn("put", names)
        self.assertIn("install", names)

    def test_answer_reverses_the_rewind(self):
        ans = items(self.lab, "answer")
        self.assertEqual([(it.kind, it.mirror) for it in ans], [("different", "rewind")])

    def test_fragment(self):
        frag = bd.fragment(self.lab, "WHY")
        self.assertIn("| rewind | `fs/attr.c` | `chown_ok()` | a different change", frag)
        self.assertIn("| answer | `fs/attr.c` | `chown_ok()` | a different change, which undoes "
                      "the rewind's differences |", frag)
        self.assertIn("The other change of the patches is the same on both bases", frag)
        self.assertIn("\nWHY\n", frag)
        # the rewind's lines from both bases, once; the answer's are not
        # shown (they are the rewind's), so the section needs no fold
        self.assertEqual(frag.count("capable_wrt_inode_uidgid(idmap, inode, CAP_CHOWN))"), 1)
        self.assertEqual(frag.count("capable_wrt_inode_uidgid(mnt_userns, inode, CAP_CHOWN))"), 1)
        self.assertNotIn(bd.ANSWER_MARK, frag)
        self.assertLess(frag.index("WHY"), frag.index("```diff"))

    def test_note_from_the_notes_file(self):
        rc, out, err = run("lab", "92", "--top", FX, "--notes", NOTES)
        self.assertEqual((rc, err), (0, ""))
        self.assertIn("6.12 names the mount's idmapping `idmap`.", out)
        self.assertNotIn("Text before the first section", out)


class OneBaseOnly(unittest.TestCase):
    """Lab 93: 6.12's rewind changes a file more. Lab 94: 6.12 has no
    answer."""

    def test_file_only_in_one_base(self):
        lab = bd.Lab.load(FX, "93")
        rw = items(lab, "rewind")
        self.assertEqual([(it.kind, it.path) for it in rw], [("same", "fs/a.c"), ("new", "fs/b.c")])
        frag = bd.fragment(lab)
        self.assertIn("| rewind | `fs/b.c` | `g()` | changed on 6.12 only |", frag)
        self.assertIn("The rewind on 6.12 only, in `g()` (`fs/b.c`):", frag)
        self.assertIn("+\treturn capable(CAP_B);", frag)

    def test_a_difference_without_a_note_is_a_warning(self):
        rc, out, err = run("lab", "93", "--top", FX, "--notes", NOTES)
        self.assertEqual(rc, 0)
        self.assertIn("warning: %s has no section '## Lab 93'" % NOTES, err)
        self.assertIn("changed on 6.12 only", out)
        # no notes file (the fixture has no book/bases-6.12.md): no warning
        self.assertEqual(run("lab", "93", "--top", FX), (0, out, ""))

    def test_patch_only_in_one_base(self):
        lab = bd.Lab.load(FX, "94")
        self.assertEqual(lab.missing(), [("answer", "6.12")])
        self.assertEqual([it.kind for it in items(lab, "answer")], ["old"])
        frag = bd.fragment(lab)
        self.assertTrue(frag.startswith("6.12 has no answer for this lab.\n"), frag)
        # it shows the 6.1 answer's lines: the book folds the section
        self.assertIn(bd.ANSWER_MARK, frag)
        self.assertIn("The answer on 6.1 only, in `h()` (`fs/c.c`):", frag)


class Moved(unittest.TestCase):
    """Lab 95: the change is in make_inode() on 6.1, in init_inode() on
    6.12; the scaffold's comment is the same."""

    def test_paired_by_shared_lines(self):
        lab = bd.Lab.load(FX, "95")
        rw, sc = items(lab, "rewind"), items(lab, "scaffold")
        self.assertEqual([(it.kind, it.old.name, it.new.name, it.moved) for it in rw],
                         [("different", "make_inode", "init_inode", True)])
        self.assertEqual([(it.kind, it.moved) for it in sc], [("same", True)])
        self.assertTrue(lab.differs())

    def test_fragment_shows_both_whole(self):
        frag = bd.fragment(bd.Lab.load(FX, "95"))
        self.assertIn("`make_inode()` → `init_inode()`", frag)
        self.assertIn("the same change, made in `init_inode()` on 6.12", frag)
        self.assertIn("The rewind, in `make_inode()` (`fs/d.c`) on 6.1:", frag)
        self.assertIn("and in `init_inode()` on 6.12:", frag)
        self.assertIn("-\tstruct ns *ns = data;", frag)
        self.assertEqual(frag.count("+\tinode->i_ino = get_next_ino();"), 2)


class UndoBoth(unittest.TestCase):
    """Lab 96: on 6.12 the rewind also empties a case of p_ioctl(), the
    scaffold comments on it, and the answer takes back both."""

    def test_answer_undoes_rewind_and_scaffold(self):
        lab = bd.Lab.load(FX, "96")
        self.assertEqual([(it.kind, it.path) for it in items(lab, "rewind")],
                         [("same", "fs/e.c"), ("new", "fs/p.c")])
        ans = items(lab, "answer")
        self.assertEqual([(it.kind, it.mirror) for it in ans],
                         [("same", ""), ("new", "rewind and scaffold")])
        frag = bd.fragment(lab)
        self.assertIn("changed on 6.12 only, to undo the rewind's and the scaffold's change there",
                      frag)
        self.assertIn("The scaffold on 6.12 only, in `p_ioctl()` (`fs/p.c`):", frag)
        # the answer's lines are not shown: they are the other two's
        self.assertNotIn("The answer", frag)
        self.assertNotIn(bd.ANSWER_MARK, frag)


class Errors(unittest.TestCase):

    def test_lab_without_patches(self):
        with self.assertRaises(bd.BaseDiffError):
            bd.Lab.load(FX, "99")
        rc, out, err = run("lab", "99", "--top", FX)
        self.assertEqual((rc, out), (3, ""))
        self.assertIn("error: lab 99 has no kernel patches on either base", err)

    def test_not_a_lab_number(self):
        rc, _, err = run("lab", "x1", "--top", FX)
        self.assertEqual(rc, 3)
        self.assertIn("'x1' is not a lab number", err)

    def test_two_patches_for_one_lab(self):
        with tempfile.TemporaryDirectory() as top:
            os.makedirs(os.path.join(top, "kernel-steps"))
            for name in ("00-91-a.patch", "00-91-b.patch"):
                with open(os.path.join(top, "kernel-steps", name), "w") as f:
                    f.write("")
            rc, _, err = run("lab", "91", "--top", top)
            self.assertEqual(rc, 3)
            self.assertIn("kernel-steps/00-91-*.patch matches 2 files", err)

    def test_missing_notes_file(self):
        rc, out, err = run("lab", "91", "--top", FX, "--notes", os.path.join(FX, "absent.md"))
        self.assertEqual(rc, 0)
        self.assertIn("warning: no notes file", err)


class Notes(unittest.TestCase):

    def test_sections(self):
        notes, warnings = bd.read_notes(NOTES)
        self.assertEqual(sorted(notes), ["92", "95"])
        self.assertEqual(notes["95"], "The inode is made by a callback on 6.12.")
        self.assertEqual(warnings, [])

    def test_bad_sections(self):
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
            f.write("## Lab 91\n\nOne.\n\n# A heading\n\n## lab one\n\nx\n\n## Lab 91\n\nTwo.\n")
        try:
            notes, warnings = bd.read_notes(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(notes, {"91": "Two."})
        self.assertEqual(len(warnings), 3, warnings)
        self.assertTrue(any("no headings of its own" in w for w in warnings))
        self.assertTrue(any("must be '## Lab NN'" in w for w in warnings))
        self.assertTrue(any("two sections for lab 91" in w for w in warnings))


class OneSeries(unittest.TestCase):
    """6.1 applies the series' patch of a step it keeps no patch of its
    own for: that step compares as the same change on both bases."""

    def test_series_patch_for_both(self):
        with tempfile.TemporaryDirectory() as top:
            for d in ("kernel-steps", "solutions", "kernel-steps/6.1"):
                os.makedirs(os.path.join(top, d), exist_ok=True)
            src = os.path.join(FX, "kernel-steps", "00-91-same.patch")
            with open(src) as fh:
                text = fh.read()
            with open(os.path.join(top, "kernel-steps", "00-97-shared.patch"), "w") as fh:
                fh.write(text)
            lab = bd.Lab.load(top, "97")
            (kind, a, b, its), = lab.patches
            self.assertEqual((kind, a, b), ("rewind", os.path.join(top, "kernel-steps", "00-97-shared.patch"),
                                            os.path.join(top, "kernel-steps", "00-97-shared.patch")))
            self.assertFalse(lab.differs())
            self.assertEqual(lab.missing(), [])


class TheCourse(unittest.TestCase):
    """The course's own patches and notes: every lab compares, and the
    notes file reads without a warning (whether a lab that differs has its
    note is the book's check: scripts/book.sh --strict)."""

    def test_every_lab(self):
        notes, warnings = bd.read_notes(os.path.join(TOP, "book", "bases-6.12.md"))
        self.assertEqual(warnings, [])
        labs = bd.lab_numbers(TOP)
        self.assertIn("01", labs)
        for nn in labs:
            with self.subTest(lab=nn):
                bd.fragment(bd.Lab.load(TOP, nn), notes.get(nn))


if __name__ == "__main__":
    unittest.main()
