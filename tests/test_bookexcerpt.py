# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/bookexcerpt.py: which hunks a name picks, the lines
of a function, a #define or a marker pair, and the commit message."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import bookexcerpt as bx  # noqa: E402

PATCH = """From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: someone <someone@localhost>
Subject: [PATCH] exec: a subject that is long enough to be
 folded

The body, first paragraph.

Second paragraph.
---
 fs/exec.c | 4 ++--
 1 file changed, 2 insertions(+), 2 deletions(-)

diff --git a/fs/exec.c b/fs/exec.c
index 1111111..2222222 100644
--- a/fs/exec.c
+++ b/fs/exec.c
@@ -10,7 +10,7 @@ static void check_unsafe_exec(struct linux_binprm *bprm)
 	unlock();
 }
 
 static void bprm_fill_uid(struct linux_binprm *bprm)
 {
-	a();
+	b();
 	c();
@@ -30,6 +30,6 @@ static void bprm_fill_uid(struct linux_binprm *bprm)
 	d();
-	e();
+	f();
 	g();
 }
 
@@ -50,5 +50,5 @@ static void bprm_fill_uid(struct linux_binprm *bprm)
-	h();
+	i();
 }
 
 int other(void)
diff --git a/fs/proc/root.c b/fs/proc/root.c
index 3333333..4444444 100644
--- a/fs/proc/root.c
+++ b/fs/proc/root.c
@@ -279,7 +279,7 @@ static struct file_system_type proc_fs_type = {
-	.fs_flags = 0,
+	.fs_flags = FS_USERNS_MOUNT,
 };
@@ -300,3 +300,3 @@ SYSCALL_DEFINE2(setns, int, fd, int, flags)
-	x();
+	y();
 }
-- 
2.39.2
"""

C = """#include <stdio.h>

static int helper(int);

/*
 * The comment of one().
 */
static int one(int a)
{
	return a;
}

// two's comment
int two(void)
{
	/* book: middle */
	int b = 2;
	/* book: end middle */
	return b;
}

/* the flags */
#define FLAGS \\
	(A | B)

int
three(void)
{
	return 3;
}
"""


class Definitions(unittest.TestCase):
    def test_names(self):
        d = bx.definition
        self.assertEqual(d("static __latent_entropy struct task_struct *copy_process("), "copy_process")
        self.assertEqual(d("int ksys_unshare(unsigned long unshare_flags)"), "ksys_unshare")
        self.assertEqual(d("SYSCALL_DEFINE2(setns, int, fd, int, flags)"), "setns")
        self.assertEqual(d("static const struct proc_ns_operations *ns_entries[] = {"), "ns_entries")
        self.assertEqual(d("struct user_namespace {"), "user_namespace")
        self.assertEqual(d("main(int argc)"), "main")
        self.assertIsNone(d("static int helper(int);"))
        self.assertIsNone(d("\tif (x(y))"))
        self.assertIsNone(d("#define X(a) a"))
        self.assertIsNone(d("out:"))


class Hunks(unittest.TestCase):
    def setUp(self):
        _, self.hunks = bx.parse_patch(PATCH)

    def test_names_of_each_hunk(self):
        self.assertEqual([bx.hunk_names(h) for h in self.hunks],
                         [["bprm_fill_uid"], ["bprm_fill_uid"], ["bprm_fill_uid", "other"],
                          ["proc_fs_type"], ["setns"]])

    def test_a_definition_before_the_change_replaces_the_header(self):
        # hunk 1's header names check_unsafe_exec, but the change is in
        # bprm_fill_uid, which begins in the hunk
        self.assertNotIn("check_unsafe_exec", bx.hunk_names(self.hunks[0]))
        with self.assertRaisesRegex(bx.AnchorError, "no hunk changes 'check_unsafe_exec'"):
            bx.select(self.hunks, "check_unsafe_exec")

    def test_a_name_picks_every_hunk_in_patch_order(self):
        self.assertEqual(bx.select(self.hunks, "setns,bprm_fill_uid"), ([0, 1, 2, 4], False))
        self.assertEqual(bx.select(self.hunks, "bprm_fill_uid#2"), ([1], False))
        self.assertEqual(bx.select(self.hunks, "other"), ([2], False))

    def test_positions_still_work_and_say_so(self):
        self.assertEqual(bx.select(self.hunks, "1,3-4"), ([0, 2, 3], True))

    def test_an_anchor_that_matches_nothing(self):
        for sel, msg in (("nope", "no hunk changes 'nope'"), ("bprm_fill_uid#4", "matches 3 hunk"),
                         ("9", "no hunk 9"), ("a b", "not a hunk anchor")):
            with self.assertRaisesRegex(bx.AnchorError, msg):
                bx.select(self.hunks, sel)

    def test_diff_of_some_hunks_under_their_files(self):
        out, _ = bx.patch_diff(PATCH, "bprm_fill_uid#2,setns")
        second = "@@ -30" + PATCH.split("@@ -30")[1].split("@@ -50")[0]
        setns = "@@ -300" + PATCH.split("@@ -300")[1].split("-- \n")[0]
        self.assertEqual(out, "--- a/fs/exec.c\n+++ b/fs/exec.c\n" + second
                         + "--- a/fs/proc/root.c\n+++ b/fs/proc/root.c\n" + setns)

    def test_whole_diff_stops_at_the_signature(self):
        out, positional = bx.patch_diff(PATCH)
        self.assertTrue(out.startswith("diff --git a/fs/exec.c"))
        self.assertTrue(out.endswith(" }\n"))
        self.assertFalse(positional)


class Message(unittest.TestCase):
    def test_blank_line_after_the_subject(self):
        self.assertEqual(bx.patch_message(PATCH),
                         "exec: a subject that is long enough to be folded\n\n"
                         "The body, first paragraph.\n\nSecond paragraph.\n")

    def test_subject_only(self):
        self.assertEqual(bx.patch_message("Subject: [PATCH 2/3] a: b\n\n---\n"), "a: b\n")


class FileLines(unittest.TestCase):
    def test_function_with_its_comment(self):
        self.assertEqual(bx.file_lines(C, "fn=one"), (5, 11))
        self.assertEqual(bx.file_lines(C, "fn=two"), (13, 20))
        self.assertEqual(bx.file_lines(C, "fn=three"), (27, 30))

    def test_define_and_marker(self):
        self.assertEqual(bx.file_lines(C, "define=FLAGS"), (22, 24))
        self.assertEqual(bx.file_lines(C, "marker=middle"), (17, 17))

    def test_lines(self):
        self.assertEqual(bx.file_lines(C, "lines=2-3"), (2, 3))
        with self.assertRaisesRegex(bx.AnchorError, "no lines 20-99"):
            bx.file_lines(C, "lines=20-99")

    def test_an_anchor_that_matches_nothing(self):
        for anchor, msg in (("fn=helper", "no function 'helper'"), ("fn=nope", "no function 'nope'"),
                            ("define=NOPE", "no #define NOPE"), ("marker=nope", "no marker 'book: nope'"),
                            ("fn=a b", "not an anchor"), ("width=3", "not an anchor")):
            with self.assertRaisesRegex(bx.AnchorError, msg):
                bx.file_lines(C, anchor)


class CommandLine(unittest.TestCase):
    def test_error_names_the_anchor_exit_3(self):
        with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
            f.write(C)
        try:
            r = subprocess.run([sys.executable, os.path.join(HERE, "..", "scripts", "bookexcerpt.py"),
                                "lines", f.name, "fn=nope"], capture_output=True, text=True)
            self.assertEqual((r.returncode, r.stdout, r.stderr), (3, "", "error: no function 'nope'\n"))
            r = subprocess.run([sys.executable, os.path.join(HERE, "..", "scripts", "bookexcerpt.py"),
                                "lines", f.name, "fn=two"], capture_output=True, text=True)
            self.assertEqual((r.returncode, r.stdout), (0, "13-20\n"))
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
