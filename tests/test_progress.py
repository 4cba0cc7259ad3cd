# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/progress.py: counting, the line, the two paces."""
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import progress  # noqa: E402


class FakeClock:
    """Each call moves time on by STEP seconds."""

    def __init__(self, step):
        self.t = 0.0
        self.step = step

    def __call__(self):
        self.t += self.step
        return self.t


KBUILD = [
    "  SYNC    include/config/auto.conf\n",
    "  CC      fs/exec.o\n",
    "make[2]: Nothing to be done\n",
    "  LD      vmlinux.o\n",
    "fs/exec.c:12:1: warning: unused\n",
    "  AR      built-in.a\n",
]


class TestCounting(unittest.TestCase):
    def test_kbuild_lines_count_others_do_not(self):
        got = [progress.counts(x.rstrip("\n")) for x in KBUILD]
        self.assertEqual(got, [True, True, False, True, False, True])

    def test_every(self):
        self.assertTrue(progress.counts("anything", every=True))


class TestLine(unittest.TestCase):
    def test_with_expect_and_estimate(self):
        self.assertEqual(progress.status("building", 50, 200, 60),
                         "building: 50/200 25% 1:00, about 3:00 left")

    def test_no_estimate_in_the_first_seconds(self):
        self.assertEqual(progress.status("building", 3, 200, 2), "building: 3/200 1% 0:02")

    def test_more_than_expected_is_100_percent_without_estimate(self):
        self.assertEqual(progress.status("building", 250, 200, 90), "building: 250/200 100% 1:30")

    def test_without_expect(self):
        self.assertEqual(progress.status("importing", 7, None, 5), "importing: 7 done, 0:05")


class TestRun(unittest.TestCase):
    def test_log_is_a_copy_and_count_is_right(self):
        log, err = io.StringIO(), io.StringIO()
        n = progress.run(iter(KBUILD), log, err, "building", 8, False, False, clock=FakeClock(1))
        self.assertEqual(n, 4)
        self.assertEqual(log.getvalue(), "".join(KBUILD))

    def test_not_a_terminal_one_line_per_interval(self):
        lines = ["  CC      f%d.o\n" % i for i in range(100)]
        err = io.StringIO()
        progress.run(iter(lines), io.StringIO(), err, "building", 100, False, False,
                     clock=FakeClock(1))  # one line a second: 15 s pace
        out = err.getvalue().splitlines()
        self.assertTrue(5 <= len(out) <= 7, out)
        self.assertNotIn("\r", err.getvalue())
        self.assertTrue(out[0].startswith("building: 15/100 15% 0:15"), out[0])
        # the last line says the work is done, not where a line stopped
        self.assertTrue(out[-1].startswith("building: 100 done in "), out[-1])

    def test_a_build_that_does_less_than_expected_ends_done(self):
        lines = ["  CC      f%d.o\n" % i for i in range(20)]
        err = io.StringIO()
        progress.run(iter(lines), io.StringIO(), err, "building", 1458, False, False,
                     clock=FakeClock(1))
        out = err.getvalue().splitlines()
        self.assertEqual(out[-1], "building: 20 done in 0:21")

    def test_ctrl_c_is_the_commands(self):
        """SIGINT to the pipeline's group: the reader copies the command's
        last lines and ends with it, no traceback."""
        import signal
        import subprocess
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "log")
            sh = ("trap 'echo \"make: *** Interrupt\"; exit 2' INT; echo '  CC      a.o'; sleep 1; "
                  "kill -INT 0; sleep 0.3; echo late")
            p = subprocess.run(["bash", "-c", "set -o pipefail; bash -c \"$1\" | python3 \"$2\" \"$3\"",
                                "_", sh, progress.__file__, log],
                               stderr=subprocess.PIPE, text=True, timeout=30,
                               start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
            self.assertNotIn("Traceback", p.stderr)
            self.assertNotIn("KeyboardInterrupt", p.stderr)
            with open(log) as f:
                self.assertIn("Interrupt", f.read())

    def test_terminal_updates_in_place_and_clears(self):
        lines = ["  CC      f%d.o\n" % i for i in range(10)]
        err = io.StringIO()
        progress.run(iter(lines), io.StringIO(), err, "building", 10, False, True,
                     clock=FakeClock(1))
        text = err.getvalue()
        self.assertNotIn("\n", text)
        self.assertTrue(text.endswith("\r\033[K"))
        self.assertIn("building: 9/10 90%", text)

    def test_count_file_read_and_saved(self):
        with tempfile.TemporaryDirectory() as d:
            cf = os.path.join(d, "count")
            self.assertIsNone(progress.read_expect(cf))
            with open(cf, "w") as f:
                f.write("1234\n")
            self.assertEqual(progress.read_expect(cf), 1234)
            with open(cf, "w") as f:
                f.write("junk\n")
            self.assertIsNone(progress.read_expect(cf))


if __name__ == "__main__":
    unittest.main()
