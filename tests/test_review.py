# SPDX-License-Identifier: GPL-2.0
"""The patch review (scripts/review.py), with no kernel: a stand-in
checkpatch.pl says what checkpatch would, and each item must fail for the
fault it names and pass for the patch a maintainer would take."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "scripts"))
import gradelib  # noqa: E402
import review  # noqa: E402

DIFF = """diff --git a/fs/exec.c b/fs/exec.c
index 1111111..2222222 100644
--- a/fs/exec.c
+++ b/fs/exec.c
@@ -1,3 +1,3 @@
 a
-b
+c
 d
"""

BODY = """A process in a user namespace may run a set-uid file whose owner has
no mapping there; refusing the exec buys nothing, so run it with the
caller's own ids, as a nosuid mount does.
"""


def mail(subject="userns: ignore set-id bits with no mapping", body=BODY,
         signoff="Signed-off-by: A Student <student@example.org>", diff=DIFF):
    msg = body + ("\n" + signoff + "\n" if signoff else "")
    return ("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
            "From: A Student <student@example.org>\n"
            "Date: Thu, 1 Jan 2026 00:00:00 +0000\n"
            "Subject: [PATCH] %s\n\n%s---\n%s" % (subject, msg, diff))


# checkpatch.pl's stand-in: prints what CHECKPATCH_SAYS holds, beside it
STUB = r"""#!/usr/bin/perl
use strict;
my $f = $0; $f =~ s/checkpatch\.pl$/says/;
open(my $h, '<', $f) or exit 0;
my $out = do { local $/; <$h> };
print $out;
exit($out eq '' ? 0 : 1);
"""


class Review(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.cp = os.path.join(self.tmp, "cp")
        os.makedirs(self.cp)
        with open(os.path.join(self.cp, "checkpatch.pl"), "w") as f:
            f.write(STUB)
        self.says("")
        self.labs = os.path.join(self.tmp, "labs")
        os.makedirs(os.path.join(self.labs, "01-x"))
        self.conf("")
        self.env = os.environ.get("LABS_DIR")
        os.environ["LABS_DIR"] = self.labs

    def tearDown(self):
        if self.env is None:
            os.environ.pop("LABS_DIR", None)
        else:
            os.environ["LABS_DIR"] = self.env
        shutil.rmtree(self.tmp)

    def says(self, text):
        with open(os.path.join(self.cp, "says"), "w") as f:
            f.write(text)

    def conf(self, extra):
        with open(os.path.join(self.labs, "01-x", "lab.conf"), "w") as f:
            f.write('TITLE="t"\nSERIES="s"\nUPSTREAM="u"\nFILES="fs/exec.c"\nPOINTS=10\n'
                    'HINT="h"\n' + extra)

    def run_review(self, *patches):
        sub = os.path.join(self.tmp, "sub")
        shutil.rmtree(sub, ignore_errors=True)
        os.makedirs(sub)
        for i, p in enumerate(patches):
            with open(os.path.join(sub, "%04d-x.patch" % (i + 1)), "w") as f:
                f.write(p)
        plan_dir = os.path.join(self.tmp, "plan")
        shutil.rmtree(plan_dir, ignore_errors=True)
        plan = gradelib.prepare(sub, plan_dir)
        with open(os.path.join(plan_dir, "plan.json"), "w") as f:
            json.dump(plan, f)
        rv = review.review(plan_dir, 1, self.cp)
        return rv, {i["name"]: i for i in rv["items"]}

    def test_a_good_patch_passes_every_item(self):
        rv, it = self.run_review(mail())
        self.assertEqual([n for n in review.ITEMS if not it[n]["ok"]], [])
        self.assertEqual((rv["passed"], rv["of"], rv["points"], rv["max"]), (5, 5, 0.0, 0.0))
        self.assertEqual(rv["files"], [{"path": "fs/exec.c", "added": 1, "removed": 1,
                                        "in_scope": True}])

    def test_each_fault_fails_its_item_only(self):
        cases = {
            "signed-off": mail(signoff=""),
            "subject": mail(subject="lab 1: good"),
            "message": mail(body=""),
            "scope": mail(diff=DIFF.replace("fs/exec.c", "kernel/fork.c")),
        }
        for name, m in cases.items():
            with self.subTest(name):
                _rv, it = self.run_review(m)
                self.assertEqual([n for n in review.ITEMS if not it[n]["ok"]], [name])
        with self.subTest("checkpatch"):
            self.says("x.patch:12: ERROR:CODE_INDENT: code indent should use tabs\n")
            _rv, it = self.run_review(mail())
            self.assertEqual([n for n in review.ITEMS if not it[n]["ok"]], ["checkpatch"])

    def test_a_signoff_without_an_address_or_a_name_is_none(self):
        for s in ("Signed-off-by: A Student", "Signed-off-by: <a@b.c>", "Signed-off-by:",
                  "Signed-off-by: A Student <nobody>"):
            with self.subTest(s):
                _rv, it = self.run_review(mail(signoff=s))
                self.assertFalse(it["signed-off"]["ok"])

    def test_a_body_that_only_repeats_the_subject_says_nothing(self):
        for body in ("ignore set-id bits with no mapping.\n", "Fixes it.\n",
                     "Reviewed-by: Someone <s@example.org>\n"):
            with self.subTest(body):
                _rv, it = self.run_review(mail(subject="ignore set-id bits with no mapping",
                                               body=body))
                self.assertFalse(it["message"]["ok"])

    def test_prefixes(self):
        for subj, ok in (("userns: x", True), ("proc, sysfs: x", True), ("fs/exec: x", True),
                         ("net: ipv4: x", True), ("lab 1: good", False), ("Fix the bug", False),
                         ("LAB 17: mark", False), ("userns:x", False), ("userns: ", False)):
            with self.subTest(subj):
                self.assertEqual(bool(review.PREFIX.match(subj)), ok)
        # a prefix that names no subsystem
        for subj in ("Fix: the bug", "WIP: stuff", "lab1: done", "Update: exec", "fixes: x"):
            with self.subTest(subj):
                _rv, it = self.run_review(mail(subject=subj))
                self.assertFalse(it["subject"]["ok"])

    def test_a_body_line_that_looks_like_a_trailer_is_still_body(self):
        body = "Why: the exec path refused set-id files\nwhose owner has no mapping at all.\n"
        _rv, it = self.run_review(mail(body=body))
        self.assertTrue(it["message"]["ok"], it["message"])

    def test_scope_counts_every_file_of_a_plain_diff(self):
        plain = ("--- a/fs/exec.c\n+++ b/fs/exec.c\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n"
                 "--- a/security/commoncap.c\n+++ b/security/commoncap.c\n"
                 "@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n")
        rv, it = self.run_review(mail(diff=plain))
        self.assertFalse(it["scope"]["ok"])
        self.assertIn("security/commoncap.c", it["scope"]["detail"])
        self.assertEqual([f["path"] for f in rv["files"]], ["fs/exec.c", "security/commoncap.c"])

    def test_scope_reads_what_was_applied_when_told(self):
        """A repository's merges and older commits are not in its mails: the
        tree's changes are what the scope item reads."""
        rv, it = self.run_review(mail())
        plan_dir = os.path.join(self.tmp, "plan")
        rv = review.review(plan_dir, 1, self.cp, tree_files=["fs/exec.c", "kernel/cred.c"])
        it = {i["name"]: i for i in rv["items"]}
        self.assertFalse(it["scope"]["ok"])
        self.assertIn("kernel/cred.c", it["scope"]["detail"])

    def test_patches_that_do_not_apply_earn_no_style_points(self):
        self.conf("STYLE_POINTS=5\n")
        self.run_review(mail())
        rv = review.review(os.path.join(self.tmp, "plan"), 1, self.cp, applied=False)
        self.assertEqual((rv["passed"], rv["points"], rv["max"]), (5, 0.0, 5.0))
        self.assertIn("style 0 / 5: the patches do not apply", review.report_lines(rv)[0])

    def test_checkpatch_warnings_about_code_are_listed_not_counted(self):
        self.says("x.patch:40: WARNING:LINE_SPACING: Missing a blank line after declarations\n"
                  "x.patch:41: CHECK:SPACING: spaces preferred around that '|'\n")
        rv, it = self.run_review(mail())
        self.assertTrue(it["checkpatch"]["ok"])
        cp = rv["patches"][0]["checkpatch"]
        self.assertEqual((cp["warnings"], cp["checks"], len(cp["lines"])), (1, 1, 2))
        self.says("x.patch:7: WARNING:COMMIT_LOG_LONG_LINE: Possible unwrapped commit "
                  "description\n")
        _rv, it = self.run_review(mail())
        self.assertFalse(it["checkpatch"]["ok"])

    def test_a_checkpatch_that_fails_is_no_pass(self):
        with open(os.path.join(self.cp, "checkpatch.pl"), "w") as f:
            f.write("#!/usr/bin/perl\ndie 'Compilation failed';\n")
        _rv, it = self.run_review(mail())
        self.assertFalse(it["checkpatch"]["ok"])
        self.assertIn("checkpatch.pl failed", it["checkpatch"]["detail"])

    def test_a_bare_diff_fails_the_message_items_and_says_why(self):
        rv, it = self.run_review(DIFF)
        self.assertEqual([n for n in review.ITEMS if not it[n]["ok"]],
                         ["signed-off", "subject", "message"])
        self.assertIn("git format-patch", it["message"]["detail"])

    def test_style_points_are_a_share_of_the_items(self):
        self.conf("STYLE_POINTS=4\n")
        rv, _it = self.run_review(mail(signoff=""))
        self.assertEqual((rv["points"], rv["max"]), (3.2, 4.0))
        lines = review.report_lines(rv)
        self.assertIn("style 3.20 / 4, apart from the kernel's score", lines[0])

    def test_every_patch_of_a_series_counts(self):
        _rv, it = self.run_review(mail(), mail(signoff=""))
        self.assertFalse(it["signed-off"]["ok"])
        self.assertIn("0002-x.patch", it["signed-off"]["detail"])

    def test_the_score_stays_apart_from_the_kernels(self):
        """finish(): the JSON's score is the kernel's; the review's is its own."""
        self.conf("STYLE_POINTS=5\n")
        facts = os.path.join(self.tmp, "facts")
        out = os.path.join(self.tmp, "out")
        os.makedirs(facts)
        os.makedirs(out)
        rv, _it = self.run_review(mail(signoff=""))
        for k, v in (("name", "s"), ("id", "s"), ("lab", "01"), ("labs", "01"),
                     ("status", "BUILD_FAILED"), ("review.json", json.dumps(rv))):
            with open(os.path.join(facts, k), "w") as f:
                f.write(v)
        doc, rep = gradelib.finish(facts, out)
        self.assertEqual((doc["score"], doc["style_score"], doc["style_max"]), (0.0, 4.0, 5.0))
        self.assertIn("patch review (a maintainer's reading; style 4.00 / 5", rep)
        self.assertIn("  no   signed-off", rep)


class CourseAnswers(unittest.TestCase):
    """Every patch of the course passes the review it asks of students:
    the answers (both bases') all five items, the rewind's and the
    scaffolds' all but the scope (they are no lab's answer). checkpatch.pl
    is the first base's that is here; make lint runs this with the tree."""

    def test_every_course_patch_passes(self):
        kdir = next((d for d in (os.path.join(TOP, "build", "linux"),
                                 os.path.join(TOP, "build", "6.1", "linux"))
                     if os.path.isdir(os.path.join(d, ".git"))), None)
        if not kdir:
            self.skipTest("no kernel tree (make tree)")
        tmp = tempfile.mkdtemp()
        try:
            cp = os.path.join(tmp, "cp")
            os.makedirs(cp)
            for f in ("checkpatch.pl", "spelling.txt", "const_structs.checkpatch"):
                with open(os.path.join(cp, f), "wb") as fh:
                    fh.write(subprocess.run(["git", "-C", kdir, "show", "distro:scripts/" + f],
                                            stdout=subprocess.PIPE, check=True).stdout)
            bad = []
            n = 0
            for folder in ("solutions", os.path.join("solutions", "6.1"), "kernel-steps",
                           os.path.join("kernel-steps", "6.1")):
                for name in sorted(os.listdir(os.path.join(TOP, folder))):
                    if not name.endswith(".patch"):
                        continue
                    n += 1
                    d = os.path.join(tmp, folder.replace("/", "-") + "-" + name)
                    plan = gradelib.prepare(os.path.join(TOP, folder, name), d)
                    with open(os.path.join(d, "plan.json"), "w") as f:
                        json.dump(plan, f)
                    answer = folder.startswith("solutions")
                    rv = review.review(d, int(name[:2]) if answer else 1, cp)
                    bad += ["%s/%s: %s: %s" % (folder, name, i["name"], i["detail"])
                            for i in rv["items"] if not i["ok"] and (answer or i["name"] != "scope")]
            self.assertGreater(n, 40)
            self.assertEqual(bad, [])
        finally:
            shutil.rmtree(tmp)

if __name__ == "__main__":
    unittest.main()
