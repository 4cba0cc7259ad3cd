# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/ktap.py, the reader of the guest's results channel,
and of its agreement with the kernel's own KTAP parser (kunit.py)."""

import contextlib
import io
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "scripts"))
sys.path.insert(0, HERE)
import ktap  # noqa: E402
import kunit_compare  # noqa: E402

FX = os.path.join(HERE, "fixtures", "ktap")


def kunit_py():
    tree = os.environ.get("KERNEL_DIR", os.path.join(TOP, "build", "linux"))
    path = os.path.join(tree, "tools", "testing", "kunit", "kunit.py")
    return path if os.path.exists(path) else None


def text(*lines):
    return "\n".join(lines) + "\n"


class Results(unittest.TestCase):
    def res(self, t, want=()):
        return ktap.results(t, want)[1]

    def test_result_line_forms(self):
        self.assertEqual(ktap.split_result("ok 1 name"), (True, 1, "name", "", ""))
        self.assertEqual(ktap.split_result("not ok 2 a b # TIMEOUT after 20s"),
                         (False, 2, "a b", "TIMEOUT", "after 20s"))
        self.assertEqual(ktap.split_result("ok 3 x # skip no tun"), (True, 3, "x", "SKIP", "no tun"))
        self.assertEqual(ktap.split_result("ok 4 - y # rcode=0"), (True, 4, "y", "", "rcode=0"))
        self.assertIsNone(ktap.split_result("okay 1 x"))

    def test_skip_and_xfail_are_not_failures(self):
        t = text("KTAP version 1", "1..1", "  KTAP version 1", "  # Subtest: lab-03-x", "  1..3",
                 "  ok 1 a", "  ok 2 b # SKIP no tun", "  ok 3 c # XFAIL known", "ok 1 lab-03-x")
        self.assertEqual(self.res(t), {"03": ("PASS", 3, 3)})

    def test_a_top_level_ok_with_a_failed_point_is_a_fail(self):
        t = text("KTAP version 1", "1..1", "  KTAP version 1", "  # Subtest: lab-01-x", "  1..2",
                 "  ok 1 a", "  not ok 2 b", "ok 1 lab-01-x")
        self.assertEqual(self.res(t), {"01": ("FAIL", 1, 2)})

    def test_points_out_of_order_do_not_count(self):
        t = text("KTAP version 1", "1..1", "  KTAP version 1", "  # Subtest: lab-01-x", "  1..2",
                 "  ok 1 a", "  ok 1 a", "  ok 5 e", "ok 1 lab-01-x")
        self.assertEqual(self.res(t), {"01": ("FAIL", 1, 2)})

    def test_deeper_lines_are_diagnostics(self):
        t = text("KTAP version 1", "1..1", "  KTAP version 1", "  # Subtest: lab-01-x", "  1..1",
                 "    ok 1 a", "  not ok 1 a", "    ok 1 lab-01-x", "not ok 1 lab-01-x")
        self.assertEqual(self.res(t), {"01": ("FAIL", 0, 1)})

    def test_the_first_result_of_a_lab_counts(self):
        t = text("KTAP version 1", "1..1", "  KTAP version 1", "  # Subtest: lab-01-x", "  1..1",
                 "  not ok 1 a", "not ok 1 lab-01-x", "ok 1 lab-01-x")
        self.assertEqual(self.res(t), {"01": ("FAIL", 0, 1)})

    def test_init_time_line_is_read_and_not_a_diagnostic(self):
        # a check may print a time line of its own: /init's, the last, counts
        t = text("KTAP version 1", "1..1", "  KTAP version 1", "  # Subtest: lab-14-x", "  1..1",
                 "  not ok 1 a", "  # userns-labs time: 0s of 99s",
                 "  # userns-labs time: 7s of 30s", "not ok 1 lab-14-x # exit 1")
        labs, res = ktap.results(t)
        self.assertEqual(res, {"14": ("FAIL", 0, 1)})
        self.assertEqual(labs["14"]["time"], (7, 30))
        self.assertEqual(labs["14"]["points"][0]["diag"], [])

    def test_a_lab_asked_for_and_absent_is_missing(self):
        self.assertEqual(self.res("", ["07"]), {"07": ("MISSING", 0, 0)})

    def test_the_running_point_is_known(self):
        labs, _o, _r = ktap.parse_text(open(os.path.join(FX, "panic.ktap")).read())
        self.assertEqual(labs["01"]["running"], "c_third_point")
        self.assertEqual(len(labs["01"]["points"]), 2)

    def test_ran_to_its_end_only_for_a_failed_check_that_finished(self):
        # (lab.sh's test of a check at a lab's start: every planned point
        # ran to a result, and the lab failed)
        def ended(name, n):
            return ktap.ran_to_its_end(open(os.path.join(FX, name)).read(), n)
        self.assertTrue(ended("pass-fail.ktap", "02"))
        self.assertFalse(ended("pass-fail.ktap", "01"))  # passed
        self.assertFalse(ended("panic.ktap", "01"))  # the guest died in it
        self.assertFalse(ended("short-plan.ktap", "01"))  # fewer points than planned
        self.assertFalse(ended("timeout.ktap", "01"))
        self.assertFalse(ended("pass-fail.ktap", "09"))  # never ran
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(ktap.main(["ended", os.path.join(FX, "pass-fail.ktap"), "02"]), 0)
            self.assertEqual(ktap.main(["ended", os.path.join(FX, "pass-fail.ktap"), "01"]), 1)
            self.assertEqual(ktap.main(["ended", os.path.join(FX, "no-such.ktap"), "01"]), 1)

    def test_sentinel_only_at_the_top(self):
        _l, _o, run = ktap.parse_text(text("KTAP version 1", "  " + ktap.SENTINEL))
        self.assertFalse(run["ended"])
        _l, _o, run = ktap.parse_text(text("KTAP version 1", ktap.SENTINEL))
        self.assertTrue(run["ended"])


SECRET = "0123456789abcdef0123456789abcdef"


def fixture(name):
    with open(os.path.join(FX, name), encoding="utf-8") as f:
        return f.read()


class Channel(unittest.TestCase):
    """The host's split of a boot's raw channel (run-qemu.sh, ktap.py
    channel): only /init's block, framed by lines with the boot's secret."""

    def test_a_kernel_run_written_before_init_is_not_a_block(self):
        # the initcall forger: a whole passing run and end lines, no secret
        block, rest, state, forged = ktap.split_channel(fixture("initcall.channel"), SECRET)
        self.assertEqual((block, state, forged), ([], "none", True))
        self.assertEqual(len(rest), len(fixture("initcall.channel").splitlines()))
        _l, res = ktap.results("".join(x + "\n" for x in block), ["01"])
        self.assertEqual(res, {"01": ("MISSING", 0, 0)})

    def test_lines_before_init_are_set_aside_and_the_block_read(self):
        block, rest, state, forged = ktap.split_channel(fixture("prelude.channel"), SECRET)
        self.assertEqual((state, forged), ("done", False))
        self.assertEqual(block[0], ktap.START)
        self.assertEqual(block[-1], ktap.SENTINEL)
        self.assertEqual(len(rest), 10)
        self.assertNotIn(SECRET, "".join(block))
        _l, res = ktap.results("\n".join(block) + "\n")
        self.assertEqual(res, {"01": ("FAIL", 1, 2)})
        self.assertEqual("\n".join(block) + "\n", fixture("block.ktap"))

    def test_an_end_line_without_the_secret_anywhere_is_forged(self):
        block, rest, state, forged = ktap.split_channel(fixture("forged-then-init.channel"), SECRET)
        self.assertEqual((state, forged), ("done", True))
        self.assertIn(ktap.SENTINEL, rest)
        self.assertEqual(rest[-2:], ["ok 1 lab-01-suid-unmapped", ktap.SENTINEL])

    def test_another_boots_secret_or_none_opens_no_block(self):
        for secret in ("fedcba9876543210fedcba9876543210", ""):
            block, _r, state, forged = ktap.split_channel(fixture("prelude.channel"), secret)
            self.assertEqual((block, state, forged), ([], "none", True))

    def test_a_block_with_no_end_is_open(self):
        t = text(ktap.START + " " + SECRET, "KTAP version 1", "1..1")
        block, rest, state, forged = ktap.split_channel(t, SECRET)
        self.assertEqual((block, rest, state, forged),
                         ([ktap.START, "KTAP version 1", "1..1"], [], "open", False))

    def test_a_second_start_line_in_the_block_is_not_the_block(self):
        t = text(ktap.START + " " + SECRET, ktap.START + " " + SECRET, "ok 1 lab-01-x",
                 ktap.SENTINEL + " " + SECRET)
        block, rest, state, forged = ktap.split_channel(t, SECRET)
        self.assertEqual((state, forged), ("done", False))
        self.assertEqual(rest, [ktap.START + " " + SECRET])
        self.assertEqual(block, [ktap.START, "ok 1 lab-01-x", ktap.SENTINEL])

    def test_the_command_keeps_bytes_and_writes_rest_only_when_there_is_one(self):
        with tempfile.TemporaryDirectory() as d:
            raw, out, rest = (os.path.join(d, n) for n in ("raw", "x.ktap", "rest"))
            with open(raw, "wb") as f:
                f.write(ktap.START.encode() + b" " + SECRET.encode() + b"\n  # got \xff\xfe\n" +
                        ktap.SENTINEL.encode() + b" " + SECRET.encode() + b"\n")
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                self.assertEqual(ktap.main(["channel", raw, SECRET, out, rest]), 0)
            self.assertEqual(buf.getvalue(), "done 0 0\n")
            with open(out, "rb") as f:
                self.assertEqual(f.read(), ktap.START.encode() + b"\n  # got \xff\xfe\n" +
                                 ktap.SENTINEL.encode() + b"\n")
            self.assertFalse(os.path.exists(rest))
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                ktap.main(["channel", os.path.join(FX, "initcall.channel"), SECRET, out, rest])
            self.assertEqual(buf.getvalue(), "none 13 1\n")
            self.assertEqual(os.path.getsize(out), 0)
            self.assertTrue(os.path.exists(rest))


class Block(unittest.TestCase):
    """The reader of X.ktap reads only the block: after its start line, up
    to its end line, and an end line with a secret after it is no end."""

    def test_lines_before_the_start_line_do_not_count(self):
        t = text("ok 1 lab-01-x", ktap.SENTINEL, ktap.START,
                 "KTAP version 1", "1..1", "not ok 1 lab-01-x")
        _l, _o, run = ktap.parse_text(t)
        self.assertEqual((run["started"], run["ended"]), (True, False))
        self.assertEqual(ktap.results(t)[1], {"01": ("FAIL", 0, 0)})

    def test_lines_after_the_end_line_do_not_count(self):
        t = text(ktap.START, "KTAP version 1", "1..1", ktap.SENTINEL,
                 "ok 1 lab-01-x")
        _l, _o, run = ktap.parse_text(t)
        self.assertTrue(run["ended"])
        self.assertEqual(ktap.results(t, ["01"])[1], {"01": ("MISSING", 0, 0)})

    def test_a_raw_end_line_with_a_secret_is_not_the_end(self):
        _l, _o, run = ktap.parse_text(text("KTAP version 1", ktap.SENTINEL + " " + SECRET))
        self.assertFalse(run["ended"])

    def test_the_block_fixture(self):
        labs, _o, run = ktap.parse_text(fixture("block.ktap"))
        self.assertEqual((run["started"], run["ended"]), (True, True))
        self.assertEqual(ktap.summarize(labs["01"]), ("FAIL", 1, 2))


class Trouble(unittest.TestCase):
    def test_bug_at_and_rip_are_found(self):
        log = text("[    3.1] kernel BUG at fs/nsfs.c:237!", "[    3.2] invalid opcode: 0000 [#1]",
                   "[    3.3] RIP: 0010:ns_get_path+0x5/0x10", "[    3.4] Call Trace:",
                   "[    3.5] Call Trace:", "[    3.6] all fine")
        said = ktap.trouble(log)
        self.assertEqual(said[0], "kernel BUG at fs/nsfs.c:237!")
        self.assertIn("RIP: 0010:ns_get_path+0x5/0x10", said)
        self.assertIn("Call Trace: (2 times)", said)
        self.assertNotIn("all fine", " ".join(said))

    def test_every_pattern_compiles_and_the_list_is_one_file(self):
        self.assertGreater(len(ktap.trouble_patterns()), 5)

    def test_sections(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.re")
            with open(path, "w", encoding="utf-8") as f:
                f.write("# a comment\n\n[panic]\nKernel panic\n[oops]\nBUG: \n# [nope]\nOops: \n")
            got = {k: [p.pattern for p in v] for k, v in ktap.trouble_sections(path).items()}
            self.assertEqual(got, {"panic": ["Kernel panic"], "oops": ["BUG: ", "Oops: "]})
            self.assertEqual(len(ktap.trouble_patterns(path, ("panic", "oops"))), 3)
            with self.assertRaises(ValueError):
                ktap.trouble_patterns(path, ("oom",))
            with open(path, "w", encoding="utf-8") as f:
                f.write("Kernel panic\n[panic]\n")
            with self.assertRaises(ValueError):
                ktap.trouble_sections(path)

    def test_grep_and_trouble_except(self):
        log = text("[    1.0] Kernel panic - not syncing: Attempted to kill init!", "[    1.1] BUG: x",
                   "[    2.0] oom_reaper: reaped process 42 (check)")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.log")
            with open(path, "w", encoding="utf-8") as f:
                f.write(log)

            def run(*args):
                buf = io.StringIO()
                with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
                    rc = ktap.main(list(args))
                return rc, buf.getvalue().splitlines()

            self.assertEqual(run("grep", "panic", path),
                             (0, ["[    1.0] Kernel panic - not syncing: Attempted to kill init!"]))
            self.assertEqual(run("grep", "oom", path), (1, []))
            self.assertEqual(run("grep", "oom-any", path),
                             (0, ["[    2.0] oom_reaper: reaped process 42 (check)"]))
            self.assertEqual(run("grep", "nope", path)[0], 2)
            self.assertEqual(run("trouble", path),
                             (0, ["Kernel panic - not syncing: Attempted to kill init!", "BUG: x"]))
            self.assertEqual(run("trouble", path, "--except", "panic"), (0, ["BUG: x"]))
            self.assertEqual(run("trouble", path, "panic")[0], 2)


@unittest.skipUnless(kunit_py(), "no imported kernel tree with tools/testing/kunit")
class KunitAgrees(unittest.TestCase):
    def test_fixtures(self):
        for f in sorted(os.listdir(FX)):
            if f.endswith(".ktap"):
                rc, diffs = kunit_compare.compare(kunit_py(), os.path.join(FX, f))
                self.assertEqual(rc, 0, "%s: %s" % (f, diffs))


if __name__ == "__main__":
    unittest.main()
