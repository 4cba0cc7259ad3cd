# SPDX-License-Identifier: GPL-2.0
"""The grader's data half (scripts/gradelib.py), with no kernel: what a
submission is, its names, the order and strip level of its patches, the
scores, and the result files."""

import contextlib
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "scripts"))
import gradelib  # noqa: E402

FX = os.path.join(HERE, "fixtures", "grade")

GOOD_DIFF = b"""diff --git a/fs/exec.c b/fs/exec.c
index 1111111..2222222 100644
--- a/fs/exec.c
+++ b/fs/exec.c
@@ -1,3 +1,3 @@
 a
-b
+c
 d
"""


def read_text(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def csv_rows(path):
    return list(csv.reader(io.StringIO(read_text(path), newline="")))


def mail(subject, body, qp=False):
    head = ("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
            "From: A Student <s@example.org>\nDate: Thu, 1 Jan 2026 00:00:00 +0000\n"
            "Subject: %s\n" % subject).encode()
    if qp:
        head += b"MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n" \
                b"Content-Transfer-Encoding: quoted-printable\n"
    return head + b"\n" + body


def qp_encode(data):
    import quopri
    return quopri.encodestring(data)


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, rel, data):
        p = os.path.join(self.tmp, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return p


class Links(Tmp):
    def test_a_link_out_of_the_folder_is_not_read(self):
        self.write("secret/mail.patch", "From: root\nSubject: TOP-SECRET\n\n")
        sub = os.path.join(self.tmp, "alice")
        os.makedirs(sub)
        self.write("alice/0002-mine.patch", "diff --git a/x b/x\n")
        os.symlink(os.path.join(self.tmp, "secret", "mail.patch"), os.path.join(sub, "0001.patch"))
        os.symlink("0002-mine.patch", os.path.join(sub, "0003-again.patch"))
        found, skipped = gradelib.find_patches(sub)
        self.assertEqual([os.path.basename(f) for f in found], ["0002-mine.patch", "0003-again.patch"])
        self.assertEqual(skipped, ["0001.patch (a link to outside the folder: not read)"])


class Names(Tmp):
    def test_plain_names_are_kept(self):
        for n in ("good", "alice", "carol.bundle", "a-b_c.1"):
            self.assertEqual(gradelib.safe_id(n), n)

    def test_hostile_names_become_safe_and_distinct(self):
        seen = set()
        for n in ("`cd;touch PWNED5`", 'q"uote', "bob smith.bundle", "bob_smith.bundle", "",
                  ".", "..", ".patch", "-x", "x.lock", "a/b", "a\nb", "é", "$(reboot)"):
            i = gradelib.safe_id(n)
            self.assertRegex(i, r"^[A-Za-z0-9][A-Za-z0-9._-]*$", n)
            self.assertFalse(i.endswith(".lock"))
            self.assertNotIn(i, seen, n)
            seen.add(i)

    def test_ids_never_name_the_graders_own_files(self):  # issue 27: summary.csv
        for n in ("summary.csv", "SUMMARY.CSV", "summary.csv.tmp", "summary", "results.csv",
                  "report.txt", "results", "kernels", "lanes", ".summary.csv", "-summary.csv"):
            i = gradelib.safe_id(n)
            self.assertFalse(gradelib.reserved_id(i), (n, i))
            self.assertNotEqual(i.lower(), "summary.csv", n)
            self.assertRegex(i, r"^[A-Za-z0-9][A-Za-z0-9._-]*$", n)
        self.assertEqual(gradelib.safe_id("summary.csv"), gradelib.safe_id("summary.csv"))
        self.assertNotEqual(gradelib.safe_id("summary.csv"), gradelib.safe_id("summary_csv"))
        # a class with an entry of that name: every id a folder of its own
        for n in ("summary.csv", "summary.csv.patch", "bob.patch", "Summary.csv"):
            self.write("class/" + n, GOOD_DIFF)
        cl = os.path.join(self.tmp, "class")
        ents = gradelib.entries(cl)
        ids = [i for _p, _n, i in ents]
        self.assertEqual(len(set(i.lower() for i in ids)), len(ids), ids)
        for i in ids:
            self.assertFalse(gradelib.reserved_id(i), i)
        r = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "gradelib.py"),
                            "safe-id", "summary.csv"], stdout=subprocess.PIPE, check=True)
        self.assertRegex(r.stdout.decode(), r"^summary\.csv-[0-9a-f]{8}\n$")
        # each result in RESULTS/ID/, then RESULTS/summary.csv beside them
        res = os.path.join(self.tmp, "res")
        for _p, n, i in ents:
            os.makedirs(os.path.join(res, i))
            with open(os.path.join(res, i, "results.csv"), "w") as fh:
                fh.write('"%s",01,PASS,10.00,10,"k","b"\n' % n)
        summary = gradelib.class_summary("1", cl, res)
        with open(os.path.join(res, "summary.csv"), "w") as fh:
            fh.write(summary)
        rows = csv_rows(os.path.join(res, "summary.csv"))
        self.assertEqual([r[0] for r in rows[1:]], [n for _p, n, _i in ents])

    def test_version_order(self):
        names = ["10.patch", "9.patch", "0002-b.patch", "0011-a.patch", "1.patch"]
        self.assertEqual(sorted(names, key=gradelib.natural_key),
                         ["1.patch", "0002-b.patch", "9.patch", "10.patch", "0011-a.patch"])

    def test_class_entries_never_share_a_folder(self):  # W7, W9, U3
        for n in ("alice", "alice.patch", "dave#2", "bob.patch", "we\nird"):
            p = os.path.join(self.tmp, n)
            if n == "alice":
                os.mkdir(p)
            else:
                self.write(n, GOOD_DIFF)
        ents = gradelib.entries(self.tmp)
        ids = [i for _p, _n, i in ents]
        self.assertEqual(len(set(ids)), len(ids))
        names = {n for _p, n, _i in ents}
        self.assertIn("alice", names)
        self.assertIn("alice.patch", names)   # alice/ is there too
        self.assertIn("bob", names)           # no bob/: the name without .patch
        self.assertIn("dave#2", names)        # a name, never repo#branch
        self.assertIn("we\nird", names)
        for p, _n, _i in ents:
            self.assertTrue(os.path.lexists(p), p)


class Classify(Tmp):
    def test_kinds(self):
        self.assertEqual(gradelib.classify(os.path.join(self.tmp, "nope"))[:2],
                         ("missing", "NO_SUBMISSION"))
        self.assertEqual(gradelib.classify(self.write("e.patch", ""))[1], "EMPTY")
        self.assertEqual(gradelib.classify(self.write("w.patch", "\n \n"))[1], "EMPTY")
        self.assertEqual(gradelib.classify(self.write("b.patch", b"\x7fELF\0\0"))[1], "NOT_A_PATCH")
        self.assertEqual(gradelib.classify(self.write("x.bundle", "# v2 git bundle\n"))[0], "bundle")
        os.mkdir(os.path.join(self.tmp, "d"))
        self.assertEqual(gradelib.classify(os.path.join(self.tmp, "d"))[0], "patchdir")
        self.assertEqual(gradelib.classify(os.path.join(FX, "good.patch")), ("file", "", ""))

    def test_too_large_is_named_never_read(self):  # issue 27: a 1.5 GB patch
        self.assertEqual(gradelib.MAX_BYTES, 64 << 20)
        # larger than the default limit, and sparse: it costs no disk, and
        # read whole it is 100 MiB of NUL bytes (NOT_A_PATCH before)
        big = os.path.join(self.tmp, "huge.patch")
        with open(big, "wb") as f:
            f.write(GOOD_DIFF)
            f.truncate(100 << 20)
        kind, status, detail = gradelib.classify(big)
        self.assertEqual((kind, status), ("file", "TOO_LARGE"))
        self.assertIn(str(100 << 20), detail)
        self.assertIn(str(64 << 20), detail)
        plan = gradelib.prepare(big, os.path.join(self.tmp, "o"))
        self.assertEqual((plan["status"], plan["patches"]), ("TOO_LARGE", []))
        self.assertIn(str(64 << 20), plan["detail"])

    def test_too_large_limit_from_the_environment(self):
        old = os.environ.get("GRADE_MAX_BYTES")
        self.addCleanup(lambda: os.environ.pop("GRADE_MAX_BYTES", None) if old is None
                        else os.environ.__setitem__("GRADE_MAX_BYTES", old))
        os.environ["GRADE_MAX_BYTES"] = str(len(GOOD_DIFF) * 2)
        one = self.write("one.patch", GOOD_DIFF)
        self.assertEqual(gradelib.classify(one), ("file", "", ""))
        self.assertEqual(gradelib.prepare(one, os.path.join(self.tmp, "o1"))["status"], "")
        two = self.write("two.patch", GOOD_DIFF * 3)
        st = gradelib.classify(two)
        self.assertEqual(st[1], "TOO_LARGE")
        self.assertIn("%d bytes" % (len(GOOD_DIFF) * 3), st[2])
        self.assertIn("%d bytes" % (len(GOOD_DIFF) * 2), st[2])
        # a folder: its patches in total, each under the limit
        for n in (1, 2, 3):
            self.write("d/%d.patch" % n, GOOD_DIFF)
        self.write("d/notes.md", "x" * 10000)  # not a patch: not counted
        out = os.path.join(self.tmp, "o2")
        plan = gradelib.prepare(os.path.join(self.tmp, "d"), out)
        self.assertEqual(plan["status"], "TOO_LARGE")
        self.assertIn("3 files", plan["detail"])
        self.assertFalse([x for x in os.listdir(out) if x.endswith(".diff")])
        # a bundle is named by its first bytes, whatever its size (its
        # diff is what prepare reads, and limits)
        b = self.write("x.bundle", b"# v2 git bundle\n" + b"y" * 1000)
        self.assertEqual(gradelib.classify(b)[:2], ("bundle", ""))
        os.environ["GRADE_MAX_BYTES"] = "lots"
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(gradelib.max_bytes(), gradelib.MAX_BYTES)
        self.assertIn("GRADE_MAX_BYTES='lots' is not a number of bytes", err.getvalue())

    def test_no_diff_is_not_a_patch(self):
        plan = gradelib.prepare(self.write("t.patch", "hello\n"), os.path.join(self.tmp, "o"))
        self.assertEqual(plan["status"], "NOT_A_PATCH")


class Prepare(Tmp):
    tree = {"fs/exec.c", "kernel/fork.c", "kernel/user_namespace.c"}

    def plan(self, sub):
        return gradelib.prepare(sub, os.path.join(self.tmp, "out"), set(self.tree))

    def test_quoted_printable_mail_is_read_as_git_am_reads_it(self):  # W4
        body = (b"---\n" + GOOD_DIFF +
                b"diff --git a/kernel/fork.c b/kernel/fork.c\n--- a/kernel/fork.c\n"
                b"+++ b/kernel/fork.c\n@@ -1 +1 @@\n-x = 1;\n+x = 2; /* caf\xc3\xa9 ==== long line "
                + b"y" * 90 + b" */\n")
        p = self.write("qp.patch", mail("[PATCH] lab 1", qp_encode(body), qp=True))
        self.assertIn(b"=3D", open(p, "rb").read())
        plan = self.plan(p)
        self.assertEqual(plan["status"], "")
        self.assertEqual(plan["patches"][0]["paths"], ["fs/exec.c", "kernel/fork.c"])
        diff = open(os.path.join(self.tmp, "out", plan["patches"][0]["diff"]), "rb").read()
        self.assertIn("café ==== long line".encode(), diff)

    def test_cover_letter_is_skipped(self):  # W5
        mbox = (mail("[PATCH 0/2] my lab 1", b"the cover letter\n") +
                mail("[PATCH 1/2] one", b"---\n" + GOOD_DIFF) +
                mail("[PATCH 2/2] two", b"---\n" + GOOD_DIFF.replace(b"+c", b"+e")))
        plan = self.plan(self.write("series.mbox", mbox))
        self.assertEqual(len(plan["patches"]), 2)
        self.assertTrue(any("cover letter" in s for s in plan["skipped"]))
        d = os.path.join(self.tmp, "series")
        self.write("series/0000-cover-letter.patch", mail("[PATCH 0/2] my lab 1", b"cover\n"))
        self.write("series/0001-one.patch", mail("[PATCH 1/2] one", b"---\n" + GOOD_DIFF))
        self.write("series/0002-two.patch", mail("[PATCH 2/2] two", b"---\n" + GOOD_DIFF))
        plan = self.plan(d)
        self.assertEqual([p["source"] for p in plan["patches"]],
                         ["0001-one.patch", "0002-two.patch"])
        self.assertEqual(plan["status"], "")

    def test_diff_u_from_the_top_of_the_tree_is_p0(self):  # W6
        diff = GOOD_DIFF.replace(b"diff --git a/fs/exec.c b/fs/exec.c\nindex 1111111..2222222 100644\n",
                                 b"").replace(b"--- a/fs/exec.c", b"--- fs/exec.c.orig") \
            .replace(b"+++ b/fs/exec.c", b"+++ fs/exec.c")
        plan = self.plan(self.write("p0.diff", diff))
        self.assertEqual(plan["patches"][0]["p"], 0)
        self.assertEqual(plan["patches"][0]["paths"], ["fs/exec.c"])
        self.assertTrue(any("-p0" in n for n in plan["notes"]))
        plan = self.plan(os.path.join(FX, "good.patch"))
        self.assertEqual(plan["patches"][0]["p"], 1)

    def test_version_order_and_patch_numbers(self):  # W8
        for n in (10, 9, 1):
            self.write("v/%d.patch" % n, GOOD_DIFF.replace(b"+c", b"+%d" % n))
        plan = self.plan(os.path.join(self.tmp, "v"))
        self.assertEqual([p["source"] for p in plan["patches"]], ["1.patch", "9.patch", "10.patch"])
        # [PATCH n/m] numbers win over file names
        self.write("n/a.patch", mail("[PATCH v2 2/2] second", b"---\n" + GOOD_DIFF))
        self.write("n/b.patch", mail("[PATCH v2 1/2] first", b"---\n" + GOOD_DIFF))
        plan = self.plan(os.path.join(self.tmp, "n"))
        self.assertEqual([p["source"] for p in plan["patches"]], ["b.patch", "a.patch"])

    def test_patches_further_down_and_txt(self):  # U3
        self.write("u/alice/lab1/fix.patch.txt", GOOD_DIFF)
        self.write("u/alice/notes.txt", "I did my best\n")
        self.write("u/alice/sub/diff.txt", GOOD_DIFF)
        plan = self.plan(os.path.join(self.tmp, "u"))
        self.assertEqual([p["source"] for p in plan["patches"]],
                         ["alice/lab1/fix.patch.txt", "alice/sub/diff.txt"])
        self.assertEqual(plan["skipped"], ["alice/notes.txt"])
        os.makedirs(os.path.join(self.tmp, "none"))
        self.write("none/README.md", "hi\n")
        plan = self.plan(os.path.join(self.tmp, "none"))
        self.assertEqual(plan["status"], "EMPTY")
        self.assertIn("README.md", plan["detail"])

    def test_non_ascii_and_quoted_paths_are_what_git_applies(self):  # issue 27: fs/naïve.c
        # git diff writes such names quoted unless core.quotePath=false
        diff = (b'diff --git "a/fs/na\\303\\257ve.c" "b/fs/na\\303\\257ve.c"\n'
                b"new file mode 100644\nindex 0000000..1111111\n--- /dev/null\n"
                b'+++ "b/fs/na\\303\\257ve.c"\n@@ -0,0 +1 @@\n+int x;\n'
                b'diff --git "a/fs/ta\\tb \\"q\\".c" "b/fs/ta\\tb \\"q\\".c"\n'
                b"new file mode 100644\nindex 0000000..1111111\n--- /dev/null\n"
                b'+++ "b/fs/ta\\tb \\"q\\".c"\n@@ -0,0 +1 @@\n+int y;\n')
        sub = self.write("naive.patch", diff)
        out = os.path.join(self.tmp, "out")
        plan = self.plan(sub)
        self.assertEqual(plan["status"], "")
        self.assertEqual(plan["patches"][0]["paths"], ["fs/naïve.c", 'fs/ta\tb "q".c'])
        with open(os.path.join(out, "plan.json"), "w", encoding="utf-8") as fh:
            json.dump(plan, fh)
        r = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "gradelib.py"), "paths",
                            os.path.join(out, "plan.json"), plan["patches"][0]["diff"]],
                           stdout=subprocess.PIPE, check=True)
        self.assertEqual(r.stdout, "fs/naïve.c\0".encode() + b'fs/ta\tb "q".c\0')
        # what is listed is what git applies
        repo = os.path.join(self.tmp, "repo")
        subprocess.run(["git", "init", "-q", repo], check=True)
        subprocess.run(["git", "-C", repo, "apply", os.path.join(out, plan["patches"][0]["diff"])],
                       check=True)
        for x in plan["patches"][0]["paths"]:
            self.assertTrue(os.path.isfile(os.path.join(repo, x)), x)
        # a file of the tree with such a name: its strip level is found
        self.tree = self.tree | {"fs/naïve.c"}
        diff2 = diff.split(b'diff --git "a/fs/ta')[0].replace(b"new file mode 100644\n", b"") \
            .replace(b"--- /dev/null", b'--- "a/fs/na\\303\\257ve.c"').replace(b"-0,0", b"-1,0")
        self.assertEqual(self.plan(self.write("n2.patch", diff2))["patches"][0]["p"], 1)

    def test_cli_file_names_that_are_not_utf8(self):  # issue 27: any name is data
        d = os.path.join(self.tmp, "latin")
        os.makedirs(d)
        with open(os.path.join(os.fsencode(d), b"caf\xe9.patch"), "wb") as f:
            f.write(GOOD_DIFF.replace(b"--- a/fs/exec.c\n", b"--- a/exec.c\n")
                    .replace(b"+++ b/fs/exec.c\n", b"+++ b/exec.c\n")
                    .replace(b"a/fs/exec.c b/fs/exec.c", b"a/exec.c b/exec.c"))
        tree = os.path.join(self.tmp, "tree")
        with open(tree, "wb") as f:
            f.write(b"fs/exec.c\0kernel/fork.c\0")
        out = os.path.join(self.tmp, "o")
        gl = os.path.join(TOP, "scripts", "gradelib.py")
        r = subprocess.run([sys.executable, gl, "prepare", d, out, tree], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, b"0001.diff\t1\tcaf\xe9.patch\n")
        r = subprocess.run([sys.executable, gl, "plan-field", os.path.join(out, "plan.json"),
                            "notes"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith(b"caf\xe9.patch: the paths look relative to fs/"),
                        r.stdout)

    def test_a_diff_made_inside_a_folder_gets_a_hint(self):  # issue 27
        self.tree = self.tree | {"arch/x86/kernel/fork.c"}
        inside = GOOD_DIFF.replace(b"a/fs/exec.c", b"a/exec.c").replace(b"b/fs/exec.c", b"b/exec.c")
        du = (b"--- exec.c.orig\n+++ exec.c\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n")
        for name, d in (("inside.patch", inside), ("du.diff", du)):
            plan = self.plan(self.write(name, d))
            self.assertEqual(len(plan["hints"]), 1, plan)
            h = plan["hints"][0]
            self.assertIn("the paths look relative to fs/", h)
            self.assertIn("make the diff from the top of the kernel tree (git diff, or diff -u "
                          "from the tree's top)", h)
            self.assertIn(h, plan["notes"])
            self.assertFalse(any("from the top of the tree: applied" in n for n in plan["notes"]))
        # a good diff, and a new file nowhere in the tree: no hint
        self.assertEqual(self.plan(os.path.join(FX, "good.patch"))["hints"], [])
        new = (b"diff --git a/fs/brand_new.c b/fs/brand_new.c\nnew file mode 100644\n"
               b"--- /dev/null\n+++ b/fs/brand_new.c\n@@ -0,0 +1 @@\n+int z;\n")
        self.assertEqual(self.plan(self.write("new.patch", new))["hints"], [])

    def test_crlf(self):
        plan = self.plan(os.path.join(FX, "crlf.patch"))
        self.assertEqual(plan["status"], "")
        diff = open(os.path.join(self.tmp, "out", plan["patches"][0]["diff"]), "rb").read()
        self.assertNotIn(b"\r\n", diff)


def fake_labs(root, labs):
    """labs: {NN: (points, check text)}"""
    for n, (pts, check) in labs.items():
        d = os.path.join(root, "%s-fake" % n)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "lab.conf"), "w") as f:
            f.write('TITLE="fake"\nPOINTS=%d\nFILES="fs/exec.c"\n' % pts)
        with open(os.path.join(d, "check"), "w") as f:
            f.write(check)


CHECK_A = """#!/bin/sh
. /lib/ktap.sh
ktap_plan 4
#@ points 2
expect "core_rule" "x" true
expect "second_rule" "x" true
#@ guard
expect "plain_still_works" "x" true
expect "third_rule" "x" true
ktap_done
"""


class FakeLabsCase(Tmp):
    """Two fake labs (01 worth 10, 02 worth 20, CHECK_A's points), with
    ktap() and finish() helpers; no tests of its own (test_gradescope.py
    uses it too)."""

    def setUp(self):
        super().setUp()
        self.old = os.environ.get("LABS_DIR")
        os.environ["LABS_DIR"] = self.tmp
        fake_labs(self.tmp, {"01": (10, CHECK_A), "02": (20, CHECK_A)})

    def tearDown(self):
        if self.old is None:
            os.environ.pop("LABS_DIR", None)
        else:
            os.environ["LABS_DIR"] = self.old
        super().tearDown()

    def ktap(self, results):
        lines = ["KTAP version 1", "1..%d" % len(results), "# userns-labs kernel: 6.1 #x"]
        for i, (lab, pts) in enumerate(results, 1):
            lines += ["  KTAP version 1", "  # Subtest: lab-%s-fake" % lab, "  1..%d" % len(pts)]
            for j, (name, ok) in enumerate(pts, 1):
                lines.append("  %s %d %s" % ("ok" if ok else "not ok", j, name))
            lines.append("%s %d lab-%s-fake" % ("ok" if all(o for _n, o in pts) else "not ok",
                                                i, lab))
        lines.append("# userns-labs: end of checks")
        return "\n".join(lines) + "\n"

    def finish(self, status, ktap_text, **facts):
        fd = os.path.join(self.tmp, "facts")
        out = os.path.join(self.tmp, "res")
        os.makedirs(fd, exist_ok=True)
        os.makedirs(out, exist_ok=True)
        kp = os.path.join(self.tmp, "serial.ktap")
        with open(kp, "w") as f:
            f.write(ktap_text)
        base = {"name": 'b"ob, smith\n', "id": "bob", "lab": "02", "labs": "01 02",
                "submission": "/x/bob", "kind": "file", "status": status, "ktap": kp,
                "files": "fs/exec.c\nkernel/fork.c", "kernel": "6.1.0 #grade-bob"}
        base.update(facts)
        for k, v in base.items():
            with open(os.path.join(fd, k), "w") as f:
                f.write(v)
        doc, rep = gradelib.finish(fd, out)
        return doc, rep, out


class Scores(FakeLabsCase):

    def pts(self, **kw):
        base = {"core_rule": "FAIL", "second_rule": "FAIL", "plain_still_works": "PASS",
                "third_rule": "FAIL"}
        base.update(kw)
        return base

    def test_declarations(self):
        self.assertEqual(gradelib.check_points("01"), [
            ("core_rule", 2.0, "point"), ("second_rule", 1.0, "point"),
            ("plain_still_works", 1.0, "guard"), ("third_rule", 1.0, "point")])

    def test_do_nothing_scores_zero(self):
        r = gradelib.score("02", {"01": ("PASS", self.pts(core_rule="PASS", second_rule="PASS",
                                                          third_rule="PASS")),
                                  "02": ("FAIL", self.pts())})
        self.assertEqual(r["score"], 0.0)

    def test_weights(self):
        r = gradelib.score("01", {"01": ("FAIL", self.pts(core_rule="PASS"))})
        self.assertEqual(r["score"], 5.0)   # 2 of 4 weighted points
        r = gradelib.score("01", {"01": ("PASS", self.pts(core_rule="PASS", second_rule="PASS",
                                                          third_rule="PASS"))})
        self.assertEqual(r["score"], 10.0)

    def test_a_skipped_point_is_not_counted(self):
        # a point of one kernel base only (lab 5's pidfd ioctl): skipped
        # on the other, it is neither won nor lost
        r = gradelib.score("01", {"01": ("PASS", self.pts(core_rule="PASS", second_rule="PASS",
                                                          third_rule="SKIP"))})
        self.assertEqual(r["score"], 10.0)
        self.assertTrue(any("skipped" in w and "third_rule" in w for w in r["why"]))
        r = gradelib.score("01", {"01": ("PASS", self.pts(core_rule="PASS", third_rule="SKIP"))})
        self.assertEqual(r["score"], round(10.0 * 2 / 3, 2))

    def test_a_point_declared_twice_is_one_point(self):
        # a skip on one base and an expect on the other: one point
        fake_labs(self.tmp, {"03": (10, CHECK_A.replace(
            'expect "third_rule" "x" true',
            'if false; then\n\tktap_skip "third_rule" "other base"\nelse\n'
            '\texpect "third_rule" "x" true\nfi'))})
        self.assertEqual(gradelib.check_points("03"), gradelib.check_points("01"))

    def test_a_broken_guard_gates_the_score(self):
        r = gradelib.score("01", {"01": ("FAIL", self.pts(core_rule="PASS", second_rule="PASS",
                                                          third_rule="PASS",
                                                          plain_still_works="FAIL"))})
        self.assertEqual(r["score"], 0.0)
        self.assertTrue(r["gated"])
        self.assertEqual(r["broken_guards"], ["plain_still_works"])

    def test_a_regression_is_a_stated_penalty(self):
        all_ok = self.pts(core_rule="PASS", second_rule="PASS", third_rule="PASS")
        r = gradelib.score("02", {"01": ("FAIL", self.pts()), "02": ("PASS", all_ok)})
        self.assertEqual(r["score"], 15.0)
        self.assertEqual(r["regressed"], ["01"])
        self.assertTrue(any("penalty -5.00" in w for w in r["why"]))
        r = gradelib.score("02", {"01": ("FAIL", self.pts()), "02": ("FAIL", self.pts())})
        self.assertEqual(r["score"], 0.0)   # never below 0

    def test_forged_and_unknown_points_earn_nothing(self):
        got = self.pts(core_rule="PASS")
        got.update({"made_up_%d" % i: "PASS" for i in range(30)})
        r = gradelib.score("01", {"01": ("FAIL", got)})
        self.assertEqual(r["score"], 5.0)
        self.assertLessEqual(r["score"], r["max"])

    def test_unknown_declaration_is_an_error(self):
        fake_labs(self.tmp, {"03": (10, '#@ pointz 3\nexpect "a" x true\n')})
        with self.assertRaises(ValueError):
            gradelib.check_points("03")

    def test_result_files(self):
        full = [("core_rule", 1), ("second_rule", 1), ("plain_still_works", 1), ("third_rule", 1)]
        doc, rep, out = self.finish("COMPLETE", self.ktap([("01", full), ("02", full)]))
        self.assertEqual(doc["result"], "PASS")
        self.assertEqual(doc["score"], 20.0)
        self.assertEqual(doc["max"], 20.0)
        self.assertIn("outside the lab's scope (fs/exec.c): kernel/fork.c", rep)
        self.assertEqual(json.load(open(os.path.join(out, "results.json")))["score"], 20.0)
        rows = list(csv.reader(open(os.path.join(out, "results.csv"), newline="")))
        self.assertEqual(rows[0][0], 'b"ob, smith\n')
        self.assertEqual(len(rows[0]), len(gradelib.csv_header("02").split(",")))
        self.assertEqual(rows[0][2:5], ["PASS", "20.00", "20"])
        ET.parse(os.path.join(out, "results.xml"))
        tap = open(os.path.join(out, "results.tap")).read()
        self.assertTrue(tap.startswith("TAP version 13\n"))
        self.assertIn("ok 1 lab-01-fake", tap)

    def test_do_nothing_end_to_end(self):
        full = [("core_rule", 1), ("second_rule", 1), ("plain_still_works", 1), ("third_rule", 1)]
        none = [("core_rule", 0), ("second_rule", 0), ("plain_still_works", 1), ("third_rule", 0)]
        doc, rep, _out = self.finish("COMPLETE", self.ktap([("01", full), ("02", none)]))
        self.assertEqual((doc["result"], doc["score"]), ("FAIL", 0.0))
        self.assertRegex(rep, r"score: +0\.00 / 20")

    def test_no_run_no_score(self):
        for st in ("BUILD_FAILED", "APPLY_FAILED", "EMPTY", "NOT_A_PATCH", "DIRTY"):
            doc, rep, out = self.finish(st, "", ktap="")
            self.assertEqual((doc["result"], doc["score"]), (st, 0.0))
            ET.parse(os.path.join(out, "results.xml"))

    def test_too_large_is_a_named_result_of_no_score(self):  # issue 27
        doc, rep, out = self.finish("TOO_LARGE", "", ktap="",
                                    detail="the submission is 1610612736 bytes (1.5 GiB), ...")
        self.assertEqual((doc["result"], doc["score"], doc["max"]), ("TOO_LARGE", 0.0, 20.0))
        self.assertIn("result:     TOO_LARGE", rep)
        self.assertEqual(csv_rows(os.path.join(out, "results.csv"))[0][2], "TOO_LARGE")
        ET.parse(os.path.join(out, "results.xml"))

    def test_labs_never_run_are_not_called_regressed(self):  # issue 27
        for st in ("BUILD_FAILED", "APPLY_FAILED", "TOO_LARGE", "DIRTY"):
            doc, rep, _out = self.finish(st, "", ktap="")
            self.assertNotIn("regressed", rep, st)
            self.assertRegex(rep, r"lab 01 +NOT_RUN .*not run \(no kernel booted\)", st)
            self.assertEqual(doc["regressed"], [])
        # a kernel that ran and broke lab 1: that is a regression
        full = [("core_rule", 1), ("second_rule", 1), ("plain_still_works", 1), ("third_rule", 1)]
        none = [("core_rule", 0), ("second_rule", 0), ("plain_still_works", 1), ("third_rule", 0)]
        _d, rep, _o = self.finish("COMPLETE", self.ktap([("01", none), ("02", full)]))
        self.assertRegex(rep, r"lab 01 +FAIL .*regressed")

    def test_same_as_the_reference_answer_is_noted(self):  # issue 27
        full = [("core_rule", 1), ("second_rule", 1), ("plain_still_works", 1), ("third_rule", 1)]
        doc, rep, out = self.finish("COMPLETE", self.ktap([("01", full), ("02", full)]),
                                    reference="same\n")
        self.assertIs(doc["same_as_reference"], True)
        self.assertIs(json.loads(read_text(os.path.join(out, "results.json")))[
            "same_as_reference"], True)
        self.assertIn("the submission's tree is the reference answer's (lab-02-done", rep)
        self.assertIn("make solution-2", rep)
        self.assertEqual(doc["score"], 20.0)  # noted, not changed
        for ref in ("", "different", None):
            extra = {} if ref is None else {"reference": ref}
            doc, rep, _o = self.finish("COMPLETE", self.ktap([("01", full), ("02", full)]), **extra)
            self.assertIs(doc["same_as_reference"], False)
            self.assertNotIn("reference answer", rep)
            os.remove(os.path.join(self.tmp, "facts", "reference")) if ref is not None else None

    def test_apply_failed_says_where_the_paths_are_relative_to(self):  # issue 27
        hint = ("exec.c: the paths look relative to fs/ (exec.c is fs/exec.c): make the diff "
                "from the top of the kernel tree (git diff, or diff -u from the tree's top)")
        doc, rep, _o = self.finish("APPLY_FAILED", "", ktap="", notes=hint,
                                   detail="exec.c does not apply onto lab-02-start:\n"
                                          "error: unable to find filename")
        self.assertIn("unable to find filename", doc["detail"])
        self.assertIn(hint, doc["detail"])
        self.assertIn("  | " + hint, rep)
        self.assertEqual(rep.count(hint), 1)

    def test_quoted_paths_in_facts_are_the_files(self):  # issue 27: fs/naïve.c
        doc, rep, _o = self.finish("BUILD_FAILED", "", ktap="",
                                   files='fs/exec.c\n"fs/na\\303\\257ve.c"',
                                   ignored='"labs/caf\\303\\251"')
        self.assertEqual(doc["files"], ["fs/exec.c", "fs/naïve.c"])
        self.assertEqual(doc["outside_scope"], ["fs/naïve.c"])
        self.assertEqual(doc["ignored"], ["labs/café"])
        self.assertIn("files:      fs/exec.c fs/naïve.c", rep)

    def test_git_unquote(self):
        self.assertEqual(gradelib.git_unquote('"fs/na\\303\\257ve.c"'), "fs/naïve.c")
        self.assertEqual(gradelib.git_unquote('"a\\tb\\n\\"c\\\\"'), 'a\tb\n"c\\')
        self.assertEqual(gradelib.git_unquote("fs/exec.c"), "fs/exec.c")
        self.assertEqual(os.fsencode(gradelib.git_unquote('"x\\377"')), b"x\xff")

    def test_names_are_inert_in_the_csv(self):  # issue 27: =HYPERLINK(
        for name in ('=HYPERLINK("http://evil","x")', "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"):
            doc, _rep, out = self.finish("BUILD_FAILED", "", ktap="", name=name, kernel="=1+1")
            row = csv_rows(os.path.join(out, "results.csv"))[0]
            self.assertEqual(row[0], "'" + name, name)
            self.assertEqual(row[5], "'=1+1")
            self.assertEqual(doc["name"], name)  # the JSON keeps it as it is
        # otherwise faithful: commas, quotes, newlines, a quote of its own
        for name in ('b"ob, smith\n', "'=already", "a=b", "José"):
            _d, _r, out = self.finish("BUILD_FAILED", "", ktap="", name=name)
            rows = csv_rows(os.path.join(out, "results.csv"))
            self.assertEqual(len(rows), 1)
            self.assertEqual(rows[0][0], name)

    def test_no_escape_sequence_reaches_the_report(self):
        _d, rep, out = self.finish("BUILD_FAILED", "", ktap="", submission="/x/\x1b[2Jevil",
                                   detail="fs/exec.c:1: error: \x9b31m\tx")
        for text in (rep, read_text(os.path.join(out, "report.txt"))):
            self.assertFalse(re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text))
            self.assertIn("\\x1b[2Jevil", text)
            self.assertIn("\\x9b31m\tx", text)

    def test_killed_by_whom(self):  # U1
        t = self.ktap([("01", [("core_rule", 1)])]).replace(
            "ok 1 lab-01-fake", "not ok 1 lab-01-fake # ERROR killed by SIGKILL after 1s, "
            "before its 30s limit")
        _d, rep, _o = self.finish("COMPLETE", t, labs="01", lab="01",
                                  console="Out of memory: Killed process 42 (check)")
        self.assertIn("killed by the OOM killer", rep)
        _d, rep, _o = self.finish("COMPLETE", t, labs="01", lab="01", console="")
        self.assertIn("killed, not by its time limit", rep)


class RealLabs(unittest.TestCase):
    """The course's own checks: every point is declared the way the host
    reads it, and as many as each check's plan says."""

    def test_every_check_plan_matches_its_points(self):
        os.environ.pop("LABS_DIR", None)
        d = os.path.join(TOP, "labs")
        for e in sorted(os.listdir(d)):
            if not re.match(r"^[0-9][0-9]-", e):
                continue
            src = open(os.path.join(d, e, "check")).read()
            plans = re.findall(r"^ktap_plan ([0-9]+)", src, re.M)
            pts = gradelib.check_points(e[:2])
            self.assertEqual(len(plans), 1, e)
            self.assertEqual(int(plans[0]), len(pts), e)
            self.assertEqual(len({n for n, _w, _k in pts}), len(pts), e + ": point names repeat")
            self.assertTrue(any(k == "point" for _n, _w, k in pts), e + ": nothing to earn")

    def test_cli_safe_id_takes_bytes(self):
        r = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "gradelib.py"), "safe-id",
                            "`cd;touch X`"], stdout=subprocess.PIPE, check=True)
        self.assertRegex(r.stdout.decode(), r"^cd_touch_X_-[0-9a-f]{8}\n$")


class ForCI(unittest.TestCase):
    """What CI engines read: a job summary, a verdict, a class as a build
    matrix, and summary.csv from one artifact per submission."""

    DOC = {"name": "a|b\n<c>", "lab": "01", "result": "FAIL", "score": 0.0, "max": 10.0,
           "detail": "", "labs": [{"lab": "01", "status": "FAIL", "points": [
               {"name": "p1", "status": "PASS", "weight": 2.0, "guard": False},
               {"name": "g", "status": "FAIL", "weight": 1.0, "guard": True}]}]}

    def test_markdown_keeps_the_table_whole(self):
        md = gradelib.markdown([self.DOC])
        self.assertIn("### a\\|b &lt;c&gt;: lab 01, FAIL, score 0.00 / 10.00", md)
        self.assertIn("| 01 | p1 | PASS | 2 |", md)
        self.assertIn("| 01 | g | FAIL | guard |", md)
        for line in md.splitlines():
            if line.startswith("| 01"):
                self.assertEqual(len(re.findall(r"(?<!\\)\|", line)), 5, line)

    def test_verdict(self):
        with tempfile.TemporaryDirectory() as t:
            for n, r in (("ok", "PASS"), ("bad", "FAIL")):
                with open(os.path.join(t, n + ".json"), "w") as fh:
                    json.dump(dict(self.DOC, result=r, name=n), fh)
            self.assertEqual(gradelib.main(["verdict", os.path.join(t, "ok.json")]), 0)
            self.assertEqual(gradelib.main(["verdict", os.path.join(t, "ok.json"),
                                            os.path.join(t, "bad.json")]), 1)

    def test_summary_rows_are_one_and_inert(self):  # issue 27
        with tempfile.TemporaryDirectory() as t:
            cl = os.path.join(t, "class")
            os.makedirs(cl)
            for f in ("alice.patch", "bob.patch"):
                open(os.path.join(cl, f), "w").close()
            res = os.path.join(t, "res")
            for i, text in (("alice", '"=HYPERLINK(""http://x"",""y"")",01,PASS,10.00,10,"k","b"\n'
                                      '"forged",01,PASS,10.00,10,"k","b"\n'),
                            ("bob", '"bob\nsmith, jr",01,FAIL,0.00,10,"@k","b"\n')):
                os.makedirs(os.path.join(res, i))
                with open(os.path.join(res, i, "results.csv"), "w") as fh:
                    fh.write(text)
            out = gradelib.class_summary("1", cl, res)
            rows = list(csv.reader(io.StringIO(out, newline="")))
            self.assertEqual(len(rows), 3)
            self.assertEqual(rows[1][:3], ["'=HYPERLINK(\"http://x\",\"y\")", "01", "PASS"])
            self.assertEqual(rows[2][0], "bob\nsmith, jr")
            self.assertEqual(rows[2][5], "'@k")

    def test_summary_table_escapes_every_control_character(self):  # issue 27
        with tempfile.TemporaryDirectory() as t:
            names = ["\x1b[2J\x1b[Hevil", "a\nforged,PASS,10.00", "c1\x9b31m", "del\x7f",
                     "bidi\u202eexe.txt", "tab\there", "cr\rx", "back\\slash", "日本語",
                     "ok"]
            lines = [gradelib.csv_header("01")]
            for n in names:
                lines.append("%s,01,PASS,10.00,10,\"6.1.0 #1\",\"6.1 (x)\",PASS" %
                             gradelib.csv_field(n))
            p = os.path.join(t, "summary.csv")
            with open(p, "w", encoding="utf-8", newline="") as fh:
                fh.write("\n".join(lines) + "\n")
            r = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "gradelib.py"),
                                "summary-table", p], stdout=subprocess.PIPE, check=True)
            text = r.stdout.decode("utf-8")
            self.assertFalse(re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]", text), text)
            out = text.splitlines()
            self.assertEqual(len(out), 1 + len(names))   # no row forged
            self.assertIn("\\x1b[2J\\x1b[Hevil", out[1])
            self.assertIn("a\\nforged,PASS,10.00", out[2])
            self.assertIn("c1\\x9b31m", out[3])
            self.assertIn("del\\x7f", out[4])
            self.assertIn("bidi\\u202eexe.txt", out[5])
            self.assertIn("tab\\there", out[6])
            self.assertIn("cr\\rx", out[7])
            self.assertIn("back\\\\slash", out[8])
            # aligned: the 'lab' column starts at one display column
            cols = {gradelib.term_width(x[:x.index("  01  ") + 2]) for x in out[1:]}
            self.assertEqual(len(cols), 1, out)
            self.assertEqual(gradelib.term_width(out[0][:out[0].index("lab")]), cols.pop())

    def test_matrix_and_summary_from_artifacts(self):
        with tempfile.TemporaryDirectory() as t:
            cl = os.path.join(t, "class")
            os.makedirs(os.path.join(cl, "alice"))
            for f in ("alice.patch", "bob.patch"):
                open(os.path.join(cl, f), "w").close()
            r = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "gradelib.py"),
                                "matrix", cl], stdout=subprocess.PIPE, check=True)
            m = json.loads(r.stdout)
            ids = [e["id"] for e in m]
            self.assertEqual(len(set(ids)), 3, m)  # alice/ and alice.patch: two ids
            res = os.path.join(t, "res")
            # one artifact per job (result-ID/SAFE-NAME/), and one plain folder
            for e in m:
                if e["name"] == "bob.patch":
                    d = os.path.join(res, e["id"])
                else:
                    d = os.path.join(res, "result-" + e["id"], "whatever")
                os.makedirs(d)
                with open(os.path.join(d, "results.csv"), "w") as fh:
                    fh.write('"%s",01,PASS,10.00,10,"k",PASS\n' % e["name"])
            out = gradelib.class_summary("1", cl, res).splitlines()
            self.assertEqual(out[0], gradelib.csv_header("01"))
            self.assertEqual([row.split(",")[0] for row in out[1:]],
                             ['"%s"' % e["name"] for e in m])


if __name__ == "__main__":
    unittest.main()
