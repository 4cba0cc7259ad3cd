"""Unit tests of scripts/ktap.py, the reader of the guest's results channel,
and of its agreement with the kernel's own KTAP parser (kunit.py)."""

import os
import sys
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

    def test_a_lab_asked_for_and_absent_is_missing(self):
        self.assertEqual(self.res("", ["07"]), {"07": ("MISSING", 0, 0)})

    def test_the_running_point_is_known(self):
        labs, _o, _r = ktap.parse_text(open(os.path.join(FX, "panic.ktap")).read())
        self.assertEqual(labs["01"]["running"], "c_third_point")
        self.assertEqual(len(labs["01"]["points"]), 2)

    def test_sentinel_only_at_the_top(self):
        _l, _o, run = ktap.parse_text(text("KTAP version 1", "  # userns-labs: end of checks"))
        self.assertFalse(run["ended"])
        _l, _o, run = ktap.parse_text(text("KTAP version 1", "# userns-labs: end of checks"))
        self.assertTrue(run["ended"])


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


@unittest.skipUnless(kunit_py(), "no imported kernel tree with tools/testing/kunit")
class KunitAgrees(unittest.TestCase):
    def test_fixtures(self):
        for f in sorted(os.listdir(FX)):
            if f.endswith(".ktap"):
                rc, diffs = kunit_compare.compare(kunit_py(), os.path.join(FX, f))
                self.assertEqual(rc, 0, "%s: %s" % (f, diffs))


if __name__ == "__main__":
    unittest.main()
