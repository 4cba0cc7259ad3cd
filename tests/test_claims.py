# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/claims.py: the function names the book's code
spans call (fences, comments, man pages and members left out), found in two
small kernel repositories made here (tag distro, one per base): on both, on
one base and said so or not, in a section quoting a patch, history names of
the allow file, "BASE has no f()", the course's own names, system calls,
wildcards, a base without its tree, the fields of the second layer, the
output line and the cache."""
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import claims as cl  # noqa: E402

LONG_BODY = "".join("\tstep%d(tsk);\n" % i for i in range(8))
COMMON = {
    "kernel/nsproxy.c": (
        "int copy_namespaces(unsigned long flags, struct task_struct *tsk)\n{\n"
        "\tstruct user_namespace *user_ns = task_cred_xxx(tsk, user_ns);\n" + LONG_BODY +
        "\tif (!ns_capable(user_ns, CAP_SYS_ADMIN))\n\t\treturn -EPERM;\n"
        "\ttsk->nsproxy = new_ns;\n\treturn 0;\n}\n\n"
        "static int\ncopy_helper(int a)\n{\n\treturn a;\n}\n\n"
        "SYSCALL_DEFINE2(setns, int, fd, int, flags)\n{\n\treturn do_setns(fd, flags);\n}\n"),
    "kernel/capability.c": "bool ns_capable(struct user_namespace *ns, int cap)\n{\n\treturn true;\n}\n",
    "fs/namespace.c": "SYSCALL_DEFINE2(umount, char __user *, name, int, flags)\n{\n\treturn 0;\n}\n",
    "include/linux/cred.h": "#define current_cred() \\\n\t(current->cred)\n",
    "kernel/bpf/helpers.c": "BPF_CALL_2(bpf_thing, u64, a, u64, b)\n{\n\treturn 0;\n}\n",
    "tools/prog.c": "int not_kernel(void)\n{\n\treturn 0;\n}\n",
}
TREES = {
    "6.12": dict(COMMON, **{
        "include/linux/mnt_idmapping.h":
            "static inline bool vfsuid_has_mapping(struct user_namespace *ns, vfsuid_t vfsuid)\n{\n"
            "\treturn true;\n}\n",
        "fs/libfs.c": "int path_from_stashed(struct dentry **stashed, struct path *path)\n{\n\treturn 0;\n}\n",
    }),
    "6.1": dict(COMMON, **{
        "include/linux/uidgid.h":
            "static inline bool kuid_has_mapping(struct user_namespace *ns, kuid_t uid)\n{\n\treturn true;\n}\n",
        "fs/nsfs.c": "static int __ns_get_path(struct path *path, struct ns_common *ns)\n{\n\treturn 0;\n}\n",
    }),
}
ALLOW = ("# test\nnsown_capable   history: 3.8's helper\n"
         "odd_helper      a name of no base, for a reason\n")
COURSE = "static int ulab_thing(void)\n{\n\treturn 0;\n}\n"


def git(cwd, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@localhost", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@localhost")
    subprocess.run(["git", "-C", cwd] + list(args), check=True, capture_output=True, env=env)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class Fixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.trees = {}
        for base, files in TREES.items():
            d = os.path.join(cls.tmp, "linux-" + base)
            os.makedirs(d)
            git(d, "init", "-q")
            for path, text in files.items():
                write(os.path.join(d, path), text)
            git(d, "add", "-A")
            git(d, "commit", "-q", "-m", "distro")
            git(d, "tag", "distro")
            cls.trees[base] = d
        cls.n = 0

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def top(self, chapter, readme="# Lab\n", bases_notes=None):
        type(self).n += 1
        top = os.path.join(self.tmp, "top%d" % self.n)
        write(os.path.join(top, "book/chapters/01-t.md"), chapter)
        write(os.path.join(top, "labs/01-t/README.md"), readme)
        write(os.path.join(top, "labs/01-t/prog.c"), COURSE)
        write(os.path.join(top, "book/claims-allow.txt"), ALLOW)
        if bases_notes:
            write(os.path.join(top, "book/bases-6.12.md"), bases_notes)
        return top

    def problems(self, chapter, trees=None, **kw):
        probs, stats = cl.check(self.top(chapter, **kw), trees or self.trees, use_cache=False)
        return ["%s:%d: %s" % (p["file"], p["line"], p["message"]) for p in probs], stats


class TestText(unittest.TestCase):
    def test_calls(self):
        self.assertEqual(cl.calls("ns_capable(current_user_ns(), CAP_SYS_ADMIN)"), ["ns_capable", "current_user_ns"])
        self.assertEqual(cl.calls("copy_namespaces()"), ["copy_namespaces"])
        for span in ("clone(2)", "->lookup()", "ns->ops->install(nsset, ns)", "$lx_current()",
                     "sizeof(x)", "EPERM (Operation not permitted)", 'mount("proc(x)")'):
            self.assertEqual(cl.calls(span), ["mount"] if span.startswith("mount") else [], span)
        self.assertEqual(cl.calls("netlink_*capable()"), ["netlink_*capable"])

    def test_field(self):
        self.assertEqual(cl.field("fc->user_ns"), "user_ns")
        self.assertEqual(cl.field("current->nsproxy->pid_ns_for_children"), "pid_ns_for_children")
        self.assertEqual(cl.field("nsset.cred"), "cred")
        for span in ("current_cred()->user_ns", "lab.conf", "fs/exec.c", "user.max_user_namespaces", "6.1.192"):
            self.assertIsNone(cl.field(span), span)

    def test_paragraphs_leave_out_code_and_comments(self):
        text = ("# T\n\n## A\n\nOne `a()`\ntwo.\n\n```c\nb();\n```\n\n<!-- c()\n-->\n"
                "- item `d()`\n- item\n\n## B\n\n<!-- diff: solutions/01-*.patch -->\n\ne `f()`\n")
        paras = cl.paragraphs(text)
        self.assertEqual([(a, b) for a, b, _ in paras],
                         [(1, "T"), (3, "A"), (5, "One `a()`\ntwo."), (14, "- item `d()`"), (15, "- item"),
                          (17, "B"), (21, "e `f()`")])
        self.assertEqual(paras[-1][2], [("B", "6.1"), ("T", None)])
        self.assertEqual(paras[2][2], [("A", None), ("T", None)])

    def test_sentences_and_versions(self):
        masked, spans = cl.mask_code("See `a.b()`. Then `c()`; and d.")
        self.assertEqual([masked[a:b].strip() for a, b in cl.sentences(masked)],
                         ["See `xxxxx`.", "Then `xxx`;", "and d."])
        self.assertTrue(cl.version_rx("6.1").search("Debian's 6.1.192"))
        self.assertFalse(cl.version_rx("6.1").search("6.12 only"))
        self.assertTrue(cl.historical([("Linux 3.8 did", None)]))
        self.assertTrue(cl.historical([("the 2012 patch", None)]))
        self.assertFalse(cl.historical([("6.1 and 6.12, 10.0.2.15", None)]))


class TestCheck(Fixture):
    def test_on_both_bases(self):
        p, stats = self.problems("# T\n\n`copy_namespaces()` asks `ns_capable(ns, CAP_SYS_ADMIN)`.\n")
        self.assertEqual(p, [])
        self.assertEqual(stats["checked"]["6.1"], {"copy_namespaces", "ns_capable"})

    def test_misspelt(self):
        p, _ = self.problems("# T\n\nThen\n`copy_namespace()` runs.\n")
        self.assertEqual(p, ["book/chapters/01-t.md:4: copy_namespace() not found on 6.12 or 6.1"])

    def test_one_base_not_said(self):
        p, _ = self.problems("# T\n\n`copy_namespaces()` asks `vfsuid_has_mapping()`.\n")
        self.assertEqual(p, ["book/chapters/01-t.md:3: vfsuid_has_mapping() not found on 6.1 (found on 6.12)"])

    def test_one_base_said(self):
        for text in ("# T\n\nHere `vfsuid_has_mapping()` is new.\nSo on 6.12.\n",
                     "# T\n\n## What 6.12 adds\n\n`vfsuid_has_mapping()`.\n",
                     "# T\n\n`__ns_get_path()` (on the 6.12 base: `path_from_stashed()`) makes it.\n"):
            self.assertEqual(self.problems(text)[0], [], text)

    def test_section_quoting_a_patch(self):
        text = ("# T\n\n## The change\n\nIn `__ns_get_path()` and `kuid_has_mapping()`, and "
                "`path_from_stashed()`.\n\n<!-- diff: solutions/01-*.patch hunks=__ns_get_path -->\n\n"
                "## Next\n\nAnd `kuid_has_mapping()`.\n")
        p, _ = self.problems(text)
        self.assertEqual(p, ["book/chapters/01-t.md:5: path_from_stashed() not found on 6.1 (found on 6.12)",
                             "book/chapters/01-t.md:11: kuid_has_mapping() not found on 6.12 (found on 6.1)"])
        p, _ = self.problems("# T\n\n## X\n\n`path_from_stashed()`\n\n<!-- diff: solutions/6.12/01-*.patch -->\n")
        self.assertEqual(p, [])

    def test_old_linux_does_not_excuse_one_base(self):
        p, _ = self.problems("# T\n\nIn 3.8, `kuid_has_mapping()` tests it.\n")
        self.assertEqual(p, ["book/chapters/01-t.md:3: kuid_has_mapping() not found on 6.12 (found on 6.1)"])

    def test_absent(self):
        p, stats = self.problems("# T\n\n6.1 has no `__ns_get_path()`. 6.12 has no `__ns_get_path()`.\n")
        self.assertEqual(p, ["book/chapters/01-t.md:3: __ns_get_path() found on 6.1, which the text says has none"])
        self.assertEqual(stats["absent"], {"__ns_get_path"})

    def test_history_and_allow(self):
        p, stats = self.problems("# T\n\n## Since 2012\n\n`nsown_capable()` was 3.8's.\n\n`odd_helper()`\n")
        self.assertEqual(p, [])
        self.assertEqual((stats["historical"], stats["allowed"]), ({"nsown_capable"}, {"odd_helper"}))
        p, _ = self.problems("# T\n\n`nsown_capable()` is used.\n")
        self.assertEqual(p, ["book/chapters/01-t.md:3: nsown_capable() is a name of the past "
                             "(book/claims-allow.txt): say which Linux had it"])

    def test_course_syscalls_macros_wildcards(self):
        text = ("# T\n\n`ulab_thing()`, `setns()`, `umount2()`, `current_cred()`, `bpf_thing()`, "
                "`copy_*()` and `copy_helper()`.\n\n`zzz_*()` and `not_kernel()`.\n")
        p, stats = self.problems(text)
        self.assertEqual(p, ["book/chapters/01-t.md:5: not_kernel() not found on 6.12 or 6.1",
                             "book/chapters/01-t.md:5: zzz_*() not found on 6.12 or 6.1"])
        self.assertEqual(stats["course"], {"ulab_thing"})

    def test_left_out(self):
        text = ("# T\n\n```c\nno_such_a();\n```\n\n<!-- file: labs/x.c fn=no_such_b -->\n"
                "<!-- no_such_c()\n-->\n\nSee clone(2) as `clone(2)`, `->lookup()`, `$lx_current()`.\n")
        self.assertEqual(self.problems(text)[0], [])

    def test_readme_and_bases_notes(self):
        p, _ = self.problems("# T\n", readme="# L\n\nSee `no_such()`.\n",
                             bases_notes="# Why the 6.12 patches differ from the 6.1 ones\n\n## Lab 01\n\n"
                                         "6.1 has `kuid_has_mapping()`, 6.12 `vfsuid_has_mapping()`.\n")
        self.assertEqual(p, ["labs/01-t/README.md:3: no_such() not found on 6.12 or 6.1"])

    def test_fields(self):
        text = ("# T\n\n`copy_namespaces()` sets `tsk->nsproxy`.\n\n"
                "`copy_namespaces()` reads `tsk->cgroups`.\n\n"
                "`current_cred()` is not `task->real_cred`; `setns()` fills `nsset->cred`.\n\n"
                "In 3.8, `copy_namespaces()` read `tsk->fs`.\n\n"
                "`copy_namespaces()` reads `user.max_user_namespaces` and `lab.conf`.\n")
        p, stats = self.problems(text)
        self.assertEqual(p, ["book/chapters/01-t.md:5: `tsk->cgroups`: no 'cgroups' in copy_namespaces() "
                             "on 6.12 or 6.1"])
        self.assertEqual(stats["field_pairs"], 2)
        probs, _ = cl.check(self.top(text), self.trees, use_cache=False, strict_fields=False)
        self.assertEqual([x["level"] for x in probs], ["warning"])

    def test_no_tree(self):
        trees = {"6.12": self.trees["6.12"], "6.1": os.path.join(self.tmp, "none")}
        text = ("# T\n\n`kuid_has_mapping()` on 6.1.\n\n`kuid_has_mapping()`.\n\n`vfsuid_has_mapping()`.\n")
        p, stats = self.problems(text, trees=trees)
        self.assertEqual(stats["skipped"], ["6.1"])
        self.assertEqual(p, ["book/chapters/01-t.md:5: kuid_has_mapping() not found on 6.12 "
                             "(6.1 not checked: no kernel tree)"])

    def test_no_tree_finds_nothing_new(self):
        # A machine with one base (CI's book suite runs before 6.1 is
        # imported) may miss problems, never add one: every text here,
        # with either tree gone, has no problem the run with both lacks.
        texts = ["# T\n\n`kuid_has_mapping()` (on the 6.12 base: `vfsuid_has_mapping()`).\n",
                 "# T\n\n`vfsuid_has_mapping()` (on the 6.1 base: `kuid_has_mapping()`).\n",
                 "# T\n\nOn 6.1, `kuid_has_mapping()`.\n",
                 "# T\n\n6.12 has `vfsuid_has_mapping()`.\n",
                 "# T\n\n`kuid_has_mapping()`.\n\n`vfsuid_has_mapping()`.\n",
                 "# T\n\n6.1 has no `vfsuid_has_mapping()`.\n"]
        strip = re.compile(r" \((?:6\.12|6\.1) not checked: no kernel tree\)$")
        for text in texts:
            both = set(self.problems(text)[0])
            for gone in self.trees:
                trees = dict(self.trees, **{gone: os.path.join(self.tmp, "none")})
                one = {strip.sub("", x) for x in self.problems(text, trees=trees)[0]}
                for x in one:
                    self.assertTrue(any(x.split(" (found on")[0] == y.split(" (found on")[0] for y in both),
                                    "%r without %s: %s" % (text, gone, x))


class TestMain(Fixture):
    def run_main(self, top, *args):
        out, err = io.StringIO(), io.StringIO()
        argv = ["--top", top] + ["--tree=%s=%s" % kv for kv in self.trees.items()] + list(args)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cl.main(argv)
        return rc, out.getvalue(), err.getvalue()

    def test_output_base_and_cache(self):
        top = self.top("# T\n\n`copy_namespaces()`, `vfsuid_has_mapping()`, `__ns_get_path()`.\n")
        rc, out, err = self.run_main(top)
        self.assertEqual(rc, 1)
        self.assertEqual(out, "book/chapters/01-t.md:3: __ns_get_path() not found on 6.12 (found on 6.1)\n"
                              "book/chapters/01-t.md:3: vfsuid_has_mapping() not found on 6.1 (found on 6.12)\n")
        self.assertIn("3 names in 3 spans: 2 found on 6.12, 2 found on 6.1", err)
        rc, out, _ = self.run_main(top, "--base", "6.12")
        self.assertEqual(out, "book/chapters/01-t.md:3: __ns_get_path() not found on 6.12 (found on 6.1)\n")
        # the second run and later ones read build/claims/BASE.json: no git grep
        self.assertTrue(os.path.exists(os.path.join(top, "build/claims/6.1.json")))
        real = cl.grep_start
        cl.grep_start = None
        try:
            rc, out, _ = self.run_main(top, "--base", "6.1", "--json")
        finally:
            cl.grep_start = real
        self.assertEqual(rc, 1)
        self.assertIn('"message": "vfsuid_has_mapping() not found on 6.1 (found on 6.12)"', out)

    def test_clean(self):
        rc, out, err = self.run_main(self.top("# T\n\n`copy_namespaces()`\n"), "--no-cache")
        self.assertEqual((rc, out), (0, ""))
        self.assertIn("0 errors, 0 warnings", err)


if __name__ == "__main__":
    unittest.main()
