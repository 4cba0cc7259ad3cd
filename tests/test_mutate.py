# SPDX-License-Identifier: GPL-2.0
"""Unit tests for scripts/mutate.py (mutants generated from an answer).

Each operator on a small C function, then generate, report and stale end to
end on a tiny git repository made in a temporary folder. No kernel."""
import contextlib
import difflib
import glob
import io
import os
import re
import random
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import mutate  # noqa: E402

GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t", GIT_AUTHOR_DATE="2012-12-10T00:00:00+0000",
               GIT_COMMITTER_DATE="2012-12-10T00:00:00+0000")


def source(start, answer, path="f.c"):
    """A mutate.Source for the answer START -> ANSWER of one file."""
    diff = mutate.unified_diff(path, "100644", start, answer)
    (fp,) = mutate.parse_patch(diff)
    return mutate.Source(path, fp.mode, start, fp.hunks)


def mutants(op, start, answer):
    """The texts OP makes from the answer, and the mutants themselves."""
    src = source(start, answer)
    ms = list(mutate.OP_FUNCS[op]([src]))
    return [m.mutated() for m in ms], ms


def fn(body, header="static int f(struct net *net, struct sock *sk)"):
    return "#include <x.h>\n\n%s\n{\n%s}\n" % (header, body)


class PatchTest(unittest.TestCase):
    def test_parse_and_apply(self):
        start = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
        answer = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
        diff = mutate.unified_diff("x.c", "100644", start, answer)
        self.assertIn("index %s..%s 100644" % (mutate.blob_id(start)[:7], mutate.blob_id(answer)[:7]), diff)
        (fp,) = mutate.parse_patch("From: x\nSubject: y\n\n---\n" + diff + "-- \n2.39.5\n")
        self.assertEqual(fp.path, "x.c")
        self.assertEqual(len(fp.hunks), 2)
        self.assertEqual(mutate.apply_hunks(start, fp.hunks)[0], answer)

    def test_a_hunk_that_does_not_fit_is_an_error(self):
        (fp,) = mutate.parse_patch(mutate.unified_diff("x.c", "100644", "a\nb\n", "a\nc\n"))
        with self.assertRaises(ValueError):
            mutate.apply_hunks("a\nz\n", fp.hunks)

    def test_no_newline_at_end(self):
        start, answer = "a\nb", "a\nc"
        (fp,) = mutate.parse_patch(mutate.unified_diff("x.c", "100644", start, answer))
        self.assertEqual(mutate.apply_hunks(start, fp.hunks)[0], answer)

    def test_new_files_are_refused(self):
        with self.assertRaises(ValueError):
            mutate.parse_patch("diff --git a/n.c b/n.c\nnew file mode 100644\n"
                               "--- /dev/null\n+++ b/n.c\n@@ -0,0 +1 @@\n+x\n")

    def test_grouped_is_difflibs(self):
        rnd = random.Random(7)
        for _ in range(200):
            a = [rnd.choice("abcde") + "\n" for _ in range(rnd.randint(0, 40))]
            b = list(a)
            for _ in range(rnd.randint(1, 4)):
                i = rnd.randint(0, len(b))
                b[i:i + rnd.randint(0, 2)] = [rnd.choice("xyz") + "\n"] * rnd.randint(0, 2)
            want = list(difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(3))
            codes = mutate.opcodes(a, b)
            # the same edits (difflib may align a trimmed head differently)
            self.assertEqual(self.apply(a, b, codes), b)
            if a != b:
                self.assertTrue(want)
                self.assertTrue(list(mutate.grouped(codes)))

    @staticmethod
    def apply(a, b, codes):
        out = []
        for tag, i1, i2, j1, j2 in codes:
            out.extend(a[i1:i2] if tag == "equal" else b[j1:j2])
        return out


class CTest(unittest.TestCase):
    def test_mask_keeps_offsets(self):
        t = 'int a; /* x\n y */ b = "/* s */"; // c\n#define Z \\\n  w\nq;\n'
        m = mutate.mask(t)
        self.assertEqual(len(m), len(t))
        self.assertEqual(m.count("\n"), t.count("\n"))
        self.assertNotIn("x", m)
        self.assertNotIn("define", m)
        self.assertNotIn("w", m)
        self.assertIn('"/* s */"', m)

    def test_code_ignores_comments_and_space(self):
        self.assertEqual(mutate.code("a = 1; /* x */\n\tb;"), mutate.code("a   = 1;\nb;  // y"))
        self.assertNotEqual(mutate.code("a = 1;"), mutate.code("a = 2;"))

    def test_statements(self):
        src = source(fn("\treturn 0;\n"), fn("\tint x = 1;\n\n\tif (a && (b || c))\n\t\treturn -EPERM;\n"
                                             "\tfoo(x);\n\treturn 0;\n"))
        (f,) = src.funcs
        kinds = [s.kind for s in f.stmts]
        self.assertEqual(kinds, ["block", "decl", "if", "jump", "expr", "jump"])
        self.assertIn("x", f.locals)
        chains = []
        st = f.stmts[2]
        mutate.find_chains(src.toks, st.cond[0], st.cond[1], chains)
        self.assertEqual([(op, len(parts)) for op, parts in chains], [("&&", 2), ("||", 2)])

    def test_changed_tokens(self):
        src = source(fn("\tif (!capable(CAP_NET_ADMIN))\n\t\treturn -EPERM;\n"),
                     fn("\tif (!ns_capable(net->user_ns, CAP_NET_ADMIN))\n\t\treturn -EPERM;\n"))
        changed = [t.text for t in src.toks if src.tok_changed(t)]
        self.assertIn("ns_capable", changed)
        self.assertIn("user_ns", changed)
        self.assertNotIn("CAP_NET_ADMIN", changed)
        self.assertNotIn("EPERM", changed)


class OperatorTest(unittest.TestCase):
    def test_hunk_drop(self):
        pad = "".join("\tp%d();\n" % i for i in range(10))
        start = fn("\tif (!capable(A))\n\t\treturn -EPERM;\n" + pad + "\tif (!capable(B))\n\t\treturn -EPERM;\n")
        answer = start.replace("capable(A)", "ns_capable(net->user_ns, A)").replace(
            "capable(B)", "ns_capable(net->user_ns, B)")
        texts, _ = mutants("hunk-drop", start, answer)
        self.assertEqual(len(texts), 2)
        self.assertIn("!capable(A)", texts[0])
        self.assertIn("ns_capable(net->user_ns, B)", texts[0])
        self.assertIn("!capable(B)", texts[1])

    def test_hunk_drop_needs_two_hunks_of_code(self):
        pad = "".join("\tp%d();\n" % i for i in range(10))
        start = fn("\t/* LAB 1: here */\n" + pad + "\tif (!capable(B))\n\t\treturn -EPERM;\n")
        answer = fn(pad + "\tif (!ns_capable(net->user_ns, B))\n\t\treturn -EPERM;\n")
        texts, _ = mutants("hunk-drop", start, answer)
        self.assertEqual(texts, [])  # the comment-only hunk is no candidate

    def test_line_drop(self):
        start = fn("\treturn 0;\n")
        answer = fn("\tint x;\n\n\tx = g();\n\tfoo(x);\n\tget_thing(x);\n\tif (x)\n\t\tbar();\n\treturn 0;\n")
        texts, _ = mutants("line-drop", start, answer)
        # foo(x) only: not the declaration, not x's first value, not a
        # reference count, not the body of the if, not the return
        self.assertEqual(len(texts), 1)
        self.assertNotIn("foo(x)", texts[0])
        self.assertIn("bar();", texts[0])

    def test_test_drop_and_guard_drop(self):
        start = fn("\treturn 0;\n")
        answer = fn("\tif (!ns_capable(net->user_ns, CAP_X))\n\t\treturn -EPERM;\n"
                    "\tif (flag) {\n\t\twork();\n\t}\n\treturn 0;\n")
        texts, _ = mutants("test-drop", start, answer)
        self.assertEqual(len(texts), 2)
        self.assertNotIn("ns_capable", texts[0])
        self.assertNotIn("work()", texts[1])
        texts, _ = mutants("guard-drop", start, answer)
        self.assertEqual(texts, [fn("\tif (!ns_capable(net->user_ns, CAP_X))\n\t\treturn -EPERM;\n"
                                    "\twork();\n\treturn 0;\n")])

    def test_unchanged_code_is_left_alone(self):
        body = "\tif (!capable(CAP_Y))\n\t\treturn -EPERM;\n\tif (!capable(CAP_X))\n\t\treturn -EPERM;\n\treturn 0;\n"
        start = fn(body)
        answer = fn(body.replace("capable(CAP_X)", "ns_capable(net->user_ns, CAP_X)"))
        for op in mutate.OP_NAMES:
            texts, _ = mutants(op, start, answer)
            for t in texts:
                self.assertIn("if (!capable(CAP_Y))\n\t\treturn -EPERM;", t, op)

    def test_cond_negate(self):
        start = fn("\treturn 0;\n")
        answer = fn("\tif (!ns_capable(net->user_ns, C))\n\t\treturn -EPERM;\n"
                    "\tif (a == b)\n\t\treturn -EINVAL;\n\treturn 0;\n")
        texts, _ = mutants("cond-negate", start, answer)
        self.assertIn("if (ns_capable(net->user_ns, C))", texts[0])
        self.assertIn("if (!(a == b))", texts[1])

    def test_cond_drop_and_andor_swap(self):
        start = fn("\treturn 0;\n")
        answer = fn("\tif (!f(net) ||\n\t    !g(net))\n\t\treturn -EPERM;\n\treturn 0;\n")
        texts, _ = mutants("cond-drop", start, answer)
        self.assertEqual(len(texts), 2)
        self.assertIn("if (!g(net))\n", texts[0])
        self.assertIn("if (!f(net))\n", texts[1])
        texts, _ = mutants("andor-swap", start, answer)
        self.assertEqual(len(texts), 1)
        self.assertIn("if (!f(net) &&\n\t    !g(net))", texts[0])

    def test_cond_drop_only_the_changed_operand(self):
        start = fn("\tif (a || capable(C))\n\t\treturn 0;\n\treturn 1;\n")
        answer = fn("\tif (a || ns_capable(net->user_ns, C))\n\t\treturn 0;\n\treturn 1;\n")
        texts, _ = mutants("cond-drop", start, answer)
        self.assertEqual(len(texts), 1)
        self.assertIn("if (a)\n", texts[0])

    def test_capable_swap(self):
        start = fn("\treturn 0;\n")
        answer = fn("\tif (!ns_capable(net->user_ns, CAP_X))\n\t\treturn -EPERM;\n"
                    "\tif (!sockopt_ns_capable(sock_net(sk)->user_ns, CAP_Y))\n\t\treturn -EPERM;\n"
                    "\tif (!capable(CAP_Z))\n\t\treturn -EPERM;\n\treturn 0;\n")
        texts, _ = mutants("capable-swap", start, answer)
        self.assertEqual(len(texts), 3)
        self.assertIn("if (!capable(CAP_X))", texts[0])
        self.assertIn("if (!sockopt_capable(CAP_Y))", texts[1])
        self.assertIn("if (!ns_capable(current_user_ns(), CAP_Z))", texts[2])

    def test_capable_wrt_inode(self):
        start = fn("\tif (capable(CAP_CHOWN))\n\t\treturn true;\n\treturn false;\n",
                   "static bool f(struct mnt_idmap *idmap, struct inode *inode)")
        answer = start.replace("capable(CAP_CHOWN)", "capable_wrt_inode_uidgid(idmap, inode, CAP_CHOWN)")
        texts, _ = mutants("capable-swap", start, answer)
        self.assertEqual(len(texts), 2)
        self.assertIn("if (capable(CAP_CHOWN))", texts[0])
        self.assertIn("if (ns_capable(current_user_ns(), CAP_CHOWN))", texts[1])

    def test_subject_swap(self):
        start = fn("\tif (!netlink_capable(skb, C))\n\t\treturn -EPERM;\n\treturn 0;\n",
                   "static int f(struct sk_buff *skb, struct file *file)")
        answer = fn("\tconst struct cred *cred = file->f_cred;\n\n"
                    "\tif (!netlink_net_capable(skb, C) || !cred)\n\t\treturn -EPERM;\n\treturn 0;\n",
                    "static int f(struct sk_buff *skb, struct file *file)")
        texts, _ = mutants("subject-swap", start, answer)
        self.assertEqual(len(texts), 3)
        self.assertIn("!ns_capable(sock_net(skb->sk)->user_ns, C)", texts[0])
        self.assertIn("!file_ns_capable(NETLINK_CB(skb).sk->sk_socket->file, sock_net(skb->sk)->user_ns, C)",
                      texts[1])
        self.assertIn("*cred = current_cred();", texts[2])

    def test_subject_swap_task_to_current(self):
        header = "static long f(struct task_struct *task, unsigned int cmd)"
        start = fn("\tstruct ns *ns = NULL;\n\n\treturn ns != NULL;\n", header)
        answer = fn("\tstruct ns *ns = NULL;\n\n\tns = active_ns(task);\n\tif (ns)\n\t\tget_ns(ns, cmd);\n"
                    "\treturn ns != NULL;\n", header)
        texts, ms = mutants("subject-swap", start, answer)
        self.assertEqual([m.what for m in ms], ["task -> current (the caller, not the task) in f()"])
        self.assertIn("ns = active_ns(current);", texts[0])
        # a task variable the answer does not pass, or no task at all: nothing
        texts, ms = mutants("subject-swap", fn("\treturn 0;\n", header),
                            fn("\tif (cmd)\n\t\treturn 1;\n\treturn 0;\n", header))
        self.assertEqual(ms, [])

    def test_userns_replace(self):
        header = "static int f(struct net *net, struct user_namespace *ns, struct task_struct *t)"
        start = fn("\tif (!capable(C))\n\t\treturn -EPERM;\n\treturn 0;\n", header)
        answer = fn("\tif (!ns_capable(net->user_ns, C))\n\t\treturn -EPERM;\n"
                    "\tif (uid_eq(ns->owner, x))\n\t\treturn 1;\n"
                    "\tstruct user_namespace *later = ns->parent;\n\n\treturn later != NULL;\n", header)
        texts, ms = mutants("userns-replace", start, answer)
        what = [m.what for m in ms]
        for c in ("current_user_ns()", "&init_user_ns", "ns", "ns->parent", "task_cred_xxx(t, user_ns)"):
            self.assertIn("net->user_ns -> %s in f()" % c, what)
        self.assertNotIn("net->user_ns -> later in f()", what)  # not declared yet
        self.assertTrue(any("uid_eq((&init_user_ns)->owner, x)" in t for t in texts))
        self.assertTrue(any("uid_eq(current_user_ns()->owner, x)" in t for t in texts))
        # the declaration's initialiser is replaced, never the variable
        self.assertFalse(any("struct user_namespace *current_user_ns()" in t for t in texts))

    def test_userns_replace_knows_a_variable_is_its_value(self):
        header = "static int f(struct file *file, struct seq_file *seq)"
        start = fn("\tstruct user_namespace *ns = current_user_ns();\n\n\treturn ns != NULL;\n", header)
        answer = start.replace("ns = current_user_ns()", "ns = seq_user_ns(seq)")
        _, ms = mutants("userns-replace", start, answer)
        what = [m.what for m in ms]
        self.assertIn("seq_user_ns(seq) -> &init_user_ns in f()", what)
        # file->f_cred->user_ns is the opener's, the same as seq_user_ns(seq)
        self.assertFalse([w for w in what if "f_cred" in w])
        header = "static int f(struct task_struct *tsk)"
        start = fn("\tstruct user_namespace *user_ns = task_cred_xxx(tsk, user_ns);\n\n"
                   "\tif (!capable(C))\n\t\treturn -EPERM;\n\treturn 0;\n", header)
        _, ms = mutants("userns-replace", start, start.replace("capable(C)", "ns_capable(user_ns, C)"))
        self.assertEqual([m.what for m in ms], ["user_ns -> current_user_ns() in f()",
                                                "user_ns -> &init_user_ns in f()"])

    def test_errno_swap(self):
        start = fn("\treturn 0;\n")
        answer = fn("\tif (a)\n\t\treturn -EPERM;\n\tif (b)\n\t\treturn -EINVAL;\n\treturn 0;\n")
        texts, _ = mutants("errno-swap", start, answer)
        self.assertEqual(len(texts), 3)
        self.assertIn("return -EACCES;", texts[0])
        self.assertIn("\t\treturn -EINVAL;\n\tif (b)", texts[1])
        self.assertIn("\tif (b)\n\t\treturn -EPERM;", texts[2])

    def test_flag_drop(self):
        start = fn("\treturn 0;\n")
        answer = fn("\tif (flags & NEWUSER)\n\t\tflags |= THREAD | FS;\n\treturn 0;\n")
        texts, _ = mutants("flag-drop", start, answer)
        self.assertEqual(len(texts), 2)
        self.assertIn("flags |= FS;", texts[0])
        self.assertIn("flags |= THREAD;", texts[1])

    def test_test_move(self):
        start = fn("\tfoo();\n\treturn 0;\n")
        answer = fn("\tif (!ok())\n\t\treturn -EPERM;\n\tfoo();\n\treturn 0;\n")
        texts, _ = mutants("test-move", start, answer)
        self.assertEqual(texts, [fn("\tfoo();\n\tif (!ok())\n\t\treturn -EPERM;\n\treturn 0;\n")])

    def test_test_move_keeps_what_the_test_reads(self):
        start = fn("\treturn 0;\n")
        answer = fn("\tif (!p)\n\t\treturn -EINVAL;\n\tuse(p);\n\treturn 0;\n")
        texts, _ = mutants("test-move", start, answer)
        self.assertEqual(texts, [])

    def test_removed_own_ns(self):
        start = fn("\tif ((flags & NEWUSER) &&\n\t    (!capable(A) || !capable(B)))\n\t\treturn -EPERM;\n\treturn 0;\n")
        answer = fn("\treturn 0;\n")
        texts, _ = mutants("removed-own-ns", start, answer)
        self.assertEqual(texts, [start.replace("capable(A)", "ns_capable(current_user_ns(), A)")
                                 .replace("capable(B)", "ns_capable(current_user_ns(), B)")])

    def test_compile_trouble(self):
        start = fn("\treturn 0;\n")
        answer = fn("\tint x = 1;\n\n\tfoo(x);\n\treturn 0;\n")
        src = source(start, answer)
        self.assertIsNone(mutate.compile_trouble(src, answer))
        self.assertIn("without its declaration",
                      mutate.compile_trouble(src, answer.replace("\tint x = 1;\n", "")))
        self.assertIn("returns nothing", mutate.compile_trouble(src, answer.replace("return 0;", "return;")))
        void = answer.replace("static int f", "static void f")
        self.assertIn("is void", mutate.compile_trouble(source(start.replace("int f", "void f").replace(
            "return 0;", "return;"), void.replace("return 0;", "return;")), void))

    def test_pick_varies(self):
        class M:
            def __init__(self, what, where):
                self.what, self.where = what, where
                self.src = src
        src = source(fn("\treturn 0;\n"), fn("\treturn 1;\n"))
        items = [M("x -> a in f()", 0), M("x -> a in g()", 0), M("x -> b in f()", 0)]
        self.assertEqual([m.what for m in mutate.pick(items, 2)], ["x -> a in f()", "x -> b in f()"])


def git(cwd, *args):
    return subprocess.run(["git", "-C", cwd] + list(args), check=True, capture_output=True, text=True,
                          env=GIT_ENV).stdout


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = mutate.main(argv)
    return rc, out.getvalue() + err.getvalue()


START = """#include <linux/x.h>

static int helper(void)
{
	return 0;
}

int may_do(struct net *net, struct sock *sk, int flags)
{
	int err;

	/*
	 * LAB 1: the capability is asked in the initial namespace.
	 */
	if (!capable(CAP_NET_ADMIN))
		return -EPERM;

	err = helper();
	if (err)
		return err;
	return 0;
}

int also_do(struct net *net)
{
	/* LAB 1: as in may_do(). */
	if (!capable(CAP_NET_RAW))
		return -EPERM;
	return helper();
}
"""
ANSWER = START.replace(
    "\terr = helper();\n", "\tif (flags & 2)\n\t\treturn -EINVAL;\n\terr = helper();\n").replace(
    "\t/*\n\t * LAB 1: the capability is asked in the initial namespace.\n\t */\n", "").replace(
    "\t/* LAB 1: as in may_do(). */\n", "").replace(
    "!capable(CAP_NET_ADMIN)", "(flags & 1) &&\n\t    !ns_capable(net->user_ns, CAP_NET_ADMIN)").replace(
    "!capable(CAP_NET_RAW)", "!ns_capable(net->user_ns, CAP_NET_RAW)")


class EndToEndTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="test-mutate-")
        self.repo = os.path.join(self.d, "linux")
        os.makedirs(os.path.join(self.repo, "net"))
        git(self.repo, "init", "-q")
        with open(os.path.join(self.repo, "net", "x.c"), "w") as f:
            f.write(START)
        git(self.repo, "add", ".")
        git(self.repo, "commit", "-q", "-m", "start")
        git(self.repo, "tag", "lab-01-start")
        with open(os.path.join(self.repo, "net", "x.c"), "w") as f:
            f.write(ANSWER)
        git(self.repo, "commit", "-q", "-am", "the answer")
        self.top = os.path.join(self.d, "top")
        for p in ("labs/01-x", "solutions", "tests/mutate"):
            os.makedirs(os.path.join(self.top, p))
        self.answer = os.path.join(self.top, "solutions/01-x.patch")
        with open(self.answer, "w") as f:
            f.write(git(self.repo, "format-patch", "--stdout", "--no-signature", "-1"))
        self.check = os.path.join(self.top, "labs/01-x/check")
        with open(self.check, "w") as f:
            f.write("#!/bin/sh\necho ok\n")
        self.out = os.path.join(self.d, "gen")

    def tearDown(self):
        shutil.rmtree(self.d, ignore_errors=True)

    def generate(self, *extra):
        return run(["generate", "--answer", self.answer, "--tree", self.repo, "--start", "lab-01-start",
                    "--out", self.out, "--top", self.top] + list(extra))

    def test_every_patch_applies_and_is_a_new_kernel(self):
        rc, out = self.generate()
        self.assertEqual(rc, 0, out)
        patches = sorted(p for p in os.listdir(self.out) if p.endswith(".patch"))
        self.assertGreaterEqual(len(patches), 8, out)
        ops = {p.split("-gen-")[1].rsplit("-", 1)[0] for p in patches}
        for op in ("hunk-drop", "userns-replace", "capable-swap", "test-drop", "cond-drop", "cond-negate",
                   "andor-swap", "errno-swap"):
            self.assertIn(op, ops)
        git(self.repo, "checkout", "-q", "lab-01-start")
        seen = set()
        for p in patches:
            path = os.path.join(self.out, p)
            with open(path) as f:
                text = f.read()
            self.assertRegex(text, r"(?m)^Subject: \[MUTANT\] lab 01: generated: ")
            self.assertNotIn("Caught-by:", text)
            self.assertIn("Mutant-of: solutions/01-x.patch", text)
            git(self.repo, "apply", "--check", path)
            git(self.repo, "apply", path)
            with open(os.path.join(self.repo, "net", "x.c")) as f:
                mutated = f.read()
            git(self.repo, "checkout", "-q", "--", ".")
            self.assertNotEqual(mutate.code(mutated), mutate.code(START), p)
            self.assertNotEqual(mutate.code(mutated), mutate.code(ANSWER), p)
            self.assertNotIn(mutate.code(mutated), seen, p)
            seen.add(mutate.code(mutated))
            # only what the answer changed: the helper is never touched
            self.assertIn("static int helper(void)\n{\n\treturn 0;\n}\n", mutated)
        with open(os.path.join(self.out, "generated.txt")) as f:
            listing = f.read()
        for p in patches:
            self.assertIn(p[:-len(".patch")] + "\t", listing)

    def test_caps(self):
        rc, out = self.generate("--max", "5")
        self.assertEqual(rc, 0)
        self.assertEqual(len([p for p in os.listdir(self.out) if p.endswith(".patch")]), 5)
        rc, out = self.generate("--max-per-op", "1", "--ops", "userns-replace,errno-swap")
        names = sorted(p for p in os.listdir(self.out) if p.endswith(".patch"))
        self.assertEqual(names, ["01-gen-errno-swap-1.patch", "01-gen-userns-replace-1.patch"])
        with open(os.path.join(self.out, "generated.txt")) as f:
            self.assertIn("capped: userns-replace keeps 1 of", f.read())

    def test_an_answer_that_does_not_apply(self):
        git(self.repo, "tag", "other", "HEAD")
        rc = run(["generate", "--answer", self.answer, "--tree", self.repo, "--start", "other",
                  "--out", self.out, "--top", self.top])[0]
        self.assertEqual(rc, 2)

    def report(self, results, equivalent=""):
        res = os.path.join(self.d, "results")
        with open(res, "w") as f:
            f.write(results)
        with open(os.path.join(self.top, "tests/mutate/01.equivalent"), "w") as f:
            f.write(equivalent)
        out = os.path.join(self.top, "tests/mutate/01.report")
        rc, _ = run(["report", "--lab", "1", "--answer", self.answer, "--check", self.check,
                     "--results", res, "--out", out, "--top", self.top, "--mutants", self.out])
        self.assertEqual(rc, 0)
        with open(out) as f:
            return f.read()

    def test_report(self):
        self.generate()
        text = self.report("01-gen-hunk-drop-1 killed a_point b_point\n"
                           "01-gen-hunk-drop-2 SURVIVED\n"
                           "01-gen-userns-replace-1 SURVIVED\n"
                           "01-gen-errno-swap-1 BAD does not compile\n",
                           "# why these are no wrong answers\n01-gen-userns-replace-1 the same namespace here\n")
        self.assertIn("answer: solutions/01-x.patch sha256:%s" % mutate.sha256(self.answer), text)
        self.assertIn("check: labs/01-x/check sha256:%s" % mutate.sha256(self.check), text)
        self.assertRegex(text, r"(?m)^01-gen-hunk-drop-1 +killed +by a_point b_point")
        self.assertRegex(text, r"(?m)^01-gen-hunk-drop-2 +SURVIVED")
        self.assertRegex(text, r"(?m)^01-gen-userns-replace-1 +equivalent +the same namespace here")
        self.assertRegex(text, r"(?m)^01-gen-errno-swap-1 +BAD +does not compile")
        self.assertRegex(text, r"(?m)^01-gen-cond-drop-1 +NOT-RUN")
        self.assertRegex(text, r"(?m)^mutants: \d+ \(killed 1, equivalent 1, SURVIVED 1, BAD 1, NOT-RUN \d+\)")

    def test_stale(self):
        rc, out = run(["stale", "--top", self.top])
        self.assertEqual(rc, 0)
        self.assertIn("lab 01 has an answer and no report yet", out)
        rc, out = run(["stale", "--top", self.top, "--quiet"])
        self.assertEqual((rc, out), (0, "mutate reports (6.12): 1 labs, 0 up to date, 0 stale, 1 without one\n"))
        self.assertEqual(run(["stale", "--top", self.top, "--strict"])[0], 1)
        self.generate()
        self.report("01-gen-hunk-drop-1 killed a\n")
        rc, out = run(["stale", "--top", self.top, "--strict"])
        self.assertEqual(rc, 0, out)
        self.assertIn("1 up to date", out)
        with open(self.check, "a") as f:
            f.write("echo more\n")
        rc, out = run(["stale", "--top", self.top])
        self.assertEqual(rc, 1)
        self.assertIn("stale: tests/mutate/01.report: the check labs/01-x/check changed since", out)
        self.report("01-gen-hunk-drop-1 killed a\n")
        with open(self.answer, "a") as f:
            f.write("\n")
        rc, out = run(["stale", "--top", self.top])
        self.assertEqual(rc, 1)
        self.assertIn("the answer solutions/01-x.patch changed since", out)
        os.remove(self.answer)
        rc, out = run(["stale", "--top", self.top])
        self.assertEqual(rc, 1)
        self.assertIn("lab 01 has no kernel answer on 6.12", out)


    def test_one_series(self):
        """A reworded commit message leaves the answer's digest as it
        was (the mutants are made from the code); the second base's own
        answer, where it has one, is its answer, else the series'."""
        before = mutate.sha256(self.answer)
        with open(self.answer) as f:
            text = f.read()
        with open(self.answer, "w") as f:
            f.write(text.replace("Subject: [PATCH] the answer", "Subject: [PATCH] the answer, reworded"))
        self.assertNotEqual(text, open(self.answer).read())
        self.assertEqual(mutate.sha256(self.answer), before)
        # an earlier step that changes the same file: other blob ids, other
        # line numbers, the same change
        moved = re.sub(r"(?m)^index [0-9a-f]+\.\.[0-9a-f]+", "index 1234567..89abcde", text)
        moved = re.sub(r"(?m)^@@ -(\d+)", lambda m: "@@ -%d" % (int(m.group(1)) + 7), moved)
        self.assertNotEqual(moved, text)
        with open(self.answer, "w") as f:
            f.write(moved)
        self.assertEqual(mutate.sha256(self.answer), before)
        with open(self.answer, "w") as f:
            f.write(moved.replace("\n+", "\n+ ", 1))
        self.assertNotEqual(mutate.sha256(self.answer), before)
        self.assertEqual(mutate.lab_answers(self.top, "6.1")["01"][0], self.answer)
        own = os.path.join(self.top, "solutions", "6.1", "01-x.patch")
        os.makedirs(os.path.dirname(own))
        with open(own, "w") as f:
            f.write(text)
        self.assertEqual(mutate.lab_answers(self.top, "6.1")["01"][0], own)
        self.assertEqual(mutate.lab_answers(self.top, "6.12")["01"][0], self.answer)


class UserSpaceTest(unittest.TestCase):
    """A user-space lab: mutants of the reference program, each a patch of
    that program (a submission replaces it), made from the changes between
    the lab's skeleton and the reference; stale knows its report."""

    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="test-mutate-us-")
        self.top = os.path.join(self.d, "top")
        for p in ("labs/18-box", "solutions/18-box", "tests/mutate"):
            os.makedirs(os.path.join(self.top, p))
        self.skel = os.path.join(self.top, "labs/18-box/box.c")
        self.ref = os.path.join(self.top, "solutions/18-box/box.c")
        with open(self.skel, "w") as f:
            f.write(fn("\t/* TODO 18.1 */\n\treturn 0;\n", "static int f(int flags)"))
        with open(self.ref, "w") as f:
            f.write(fn("\tif (unshare(flags | CLONE_NEWNS | CLONE_NEWUTS))\n\t\treturn -1;\n"
                       "\tsay(\"unshare: ok\");\n\tif (sethostname(\"box\", 3))\n\t\treturn -1;\n\treturn 0;\n",
                       "static int f(int flags)"))
        with open(os.path.join(self.top, "labs/18-box/lab.conf"), "w") as f:
            f.write('USERSPACE="labs/18-box/box.c"\n')
        with open(os.path.join(self.top, "labs/18-box/check"), "w") as f:
            f.write("#!/bin/sh\n")
        self.out = os.path.join(self.d, "gen")

    def tearDown(self):
        shutil.rmtree(self.d, ignore_errors=True)

    def test_patches_of_the_reference_program(self):
        rc, out = run(["generate", "--lab", "18", "--answer", self.ref, "--start-file", self.skel,
                       "--path", "labs/18-box/box.c", "--out", self.out, "--top", self.top])
        self.assertEqual(rc, 0, out)
        with open(os.path.join(self.out, "generated.txt")) as f:
            made = f.read()
        self.assertIn("flag-drop", made)
        self.assertNotIn("drop say(", made.split("\n-")[0])  # what is printed is not graded
        with open(self.ref) as f:
            ref = f.read()
        patches = sorted(glob.glob(os.path.join(self.out, "18-gen-*.patch")))
        self.assertTrue(patches)
        work = os.path.join(self.d, "work")
        os.makedirs(os.path.join(work, "labs/18-box"))
        git(work, "init", "-q")
        for p in patches:
            shutil.copy(self.ref, os.path.join(work, "labs/18-box/box.c"))
            r = subprocess.run(["git", "apply", p], cwd=work, capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, "%s: %s" % (p, r.stderr))
            with open(os.path.join(work, "labs/18-box/box.c")) as f:
                self.assertNotEqual(f.read(), ref)
        # --start-file without --path, and a kernel answer without a tree
        self.assertEqual(run(["generate", "--answer", self.ref, "--start-file", self.skel,
                              "--out", self.out])[0], 2)
        self.assertEqual(run(["generate", "--answer", self.ref, "--out", self.out])[0], 2)

    def test_stale_knows_the_program(self):
        rc, out = run(["stale", "--top", self.top])
        self.assertIn("lab 18 has an answer and no report yet", out)


if __name__ == "__main__":
    unittest.main()
