# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/fastbuild.py: which objects an edit needs, or why
only kbuild's full walk can tell. A fake obj dir, no kernel."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import fastbuild  # noqa: E402
from fastbuild import Full  # noqa: E402


def cmd_text(target, source, deps):
    lines = ["cmd_%s := gcc -c -o %s %s" % (target, target, source), "",
             "source_%s := %s" % (target, source), "", "deps_%s := \\" % target]
    lines += ["  $(wildcard include/config/FOO) \\"]
    lines += ["  %s \\" % d for d in deps[:-1]] + ["  %s" % deps[-1]]
    lines += ["", "%s: $(deps_%s)" % (target, target), ""]
    return "\n".join(lines)


class FastBuild(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        top = self.tmp.name
        self.src = os.path.join(top, "linux")
        self.obj = os.path.join(top, "obj")
        os.makedirs(self.src)
        # fs/exec.o: absolute paths; kernel/cred.o: relative to the obj
        # dir, as ccache's CCACHE_BASEDIR writes them
        self.write("fs/.exec.o.cmd", cmd_text(
            "fs/exec.o", self.src + "/fs/exec.c",
            [self.src + "/include/linux/cred.h", self.src + "/include/linux/binfmts.h"]))
        self.write("kernel/.cred.o.cmd", cmd_text(
            "kernel/cred.o", "../linux/kernel/cred.c", ["../linux/include/linux/cred.h"]))
        self.write("arch/x86/kernel/.asm-offsets.s.cmd", cmd_text(
            "arch/x86/kernel/asm-offsets.s", "../linux/arch/x86/kernel/asm-offsets.c",
            ["../linux/include/linux/sched.h"]))
        self.members = {"fs/exec.o", "kernel/cred.o"}

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        p = os.path.join(self.obj, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)

    def objs(self, changes, **kw):
        return fastbuild.objects_to_rebuild(
            changes, self.obj, self.src, members=lambda _: self.members, **kw)

    def test_one_c_file(self):
        self.assertEqual(self.objs([("M", "fs/exec.c")]), ["fs/exec.o"])

    def test_relative_paths_in_cmd_files(self):
        self.assertEqual(self.objs([("M", "kernel/cred.c")]), ["kernel/cred.o"])

    def test_a_header_rebuilds_every_user(self):
        self.assertEqual(self.objs([("M", "include/linux/cred.h")]),
                         ["fs/exec.o", "kernel/cred.o"])

    def test_an_unused_file_rebuilds_nothing(self):
        self.assertEqual(self.objs([("M", "drivers/foo/bar.c"), ("A", "include/new.h")]), [])

    def test_documentation_is_ignored(self):
        self.assertEqual(self.objs([("M", "Documentation/admin-guide/x.rst")]), [])

    def test_a_makefile_needs_the_walk(self):
        with self.assertRaisesRegex(Full, "fs/Makefile is not C"):
            self.objs([("M", "fs/exec.c"), ("M", "fs/Makefile")])

    def test_kconfig_and_scripts_need_the_walk(self):
        for p in ("init/Kconfig", "scripts/link-vmlinux.sh", "arch/x86/kernel/vmlinux.lds.S.orig"):
            with self.assertRaises(Full):
                self.objs([("M", p)])

    def test_a_deleted_file_needs_the_walk(self):
        with self.assertRaisesRegex(Full, "deleted"):
            self.objs([("D", "fs/exec.c")])

    def test_a_generated_file_user_needs_the_walk(self):
        with self.assertRaisesRegex(Full, "asm-offsets.s, which is not a vmlinux object"):
            self.objs([("M", "include/linux/sched.h")])

    def test_too_many_objects_need_the_walk(self):
        with self.assertRaisesRegex(Full, "2 objects"):
            self.objs([("M", "include/linux/cred.h")], max_objects=1)

    def test_a_prefix_of_a_name_is_not_the_file(self):
        # '/fs/exec.c' is in '/fs/exec.c.orig' too; only the exact path counts
        self.write("fs/.other.o.cmd", cmd_text("fs/other.o", self.src + "/fs/exec.c.orig",
                                               [self.src + "/include/x.h"]))
        self.assertEqual(self.objs([("M", "fs/exec.c")]), ["fs/exec.o"])

    def test_name_status_parsing(self):
        self.assertEqual(fastbuild.parse_name_status("M\0fs/exec.c\0A\0a b.h\0"),
                         [("M", "fs/exec.c"), ("A", "a b.h")])
        self.assertEqual(fastbuild.parse_name_status(""), [])

    def test_cmd_target(self):
        self.assertEqual(fastbuild.cmd_target(self.obj + "/fs/.exec.o.cmd", self.obj), "fs/exec.o")


if __name__ == "__main__":
    unittest.main()
