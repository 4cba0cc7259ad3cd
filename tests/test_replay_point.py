# SPDX-License-Identifier: GPL-2.0
"""scripts/replay_point.py: which point and which failed system call make
replay stops at, read from a recorded check's KTAP."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import replay_point  # noqa: E402

UNISTD = """#ifndef _ASM_UNISTD_64_H
#define __NR_read 0
#define __NR_open 2
#define __NR_clone 56
#define __NR_fork 57
#define __NR_execve 59
#define __NR_unshare 272
#define __NR_openat 257
#define __NR_execveat 322
#define __NR_clone3 435
#endif
"""

KTAP = """# userns-labs: init
KTAP version 1
1..1
  KTAP version 1
  # Subtest: lab-01-suid-unmapped
  1..4
  # running: first
  not ok 1 first
  # wrong: it fails
  # got (exit 1):
  # exec /tmp/x: owner 65534:65534
  # execve: EPERM (Operation not permitted)
  # running: second
  ok 2 second
  # running: third
  not ok 3 third
  # got (exit 1):
  # execve: EPERM (Operation not permitted)
  # running: fourth
  not ok 4 fourth
  # got (exit 1):
  # open /proc/self/ns/user: ENOENT (No such file or directory)
not ok 1 lab-01-suid-unmapped # exit 1
# userns-labs: end of checks
"""


class Choose(unittest.TestCase):
    def test_first_failed_point_by_default(self):
        out = replay_point.choose(KTAP, UNISTD)
        self.assertEqual(out["point"], "first")
        self.assertEqual(out["call"], "execve")
        self.assertEqual(out["errno"], "EPERM")
        self.assertEqual(out["errnum"], "1")
        self.assertEqual(out["nrs"], "59 322")
        self.assertEqual(out["skip"], "0")

    def test_a_later_point_skips_the_same_failures_before_it(self):
        out = replay_point.choose(KTAP, UNISTD, "third")
        self.assertEqual(out["number"], "3")
        self.assertEqual(out["skip"], "1")

    def test_by_number_and_libc_names(self):
        out = replay_point.choose(KTAP, UNISTD, "4")
        self.assertEqual(out["point"], "fourth")
        self.assertEqual(out["errno"], "ENOENT")
        self.assertEqual(out["nrs"], "2 257")  # open: open or openat
        self.assertEqual(out["skip"], "0")

    def test_a_repeated_output_is_read_where_it_was_shown(self):
        k = KTAP.replace("""  not ok 3 third
  # got (exit 1):
  # execve: EPERM (Operation not permitted)""", """  not ok 3 third
  # (the same output as point 1, above)""")
        out = replay_point.choose(k, UNISTD, "third")
        self.assertEqual((out["call"], out["errno"], out["skip"]), ("execve", "EPERM", "1"))

    def test_aliases_count_when_they_share_a_system_call(self):
        # open (open or openat) before, openat now: the breakpoint catches both
        k = KTAP.replace("# execve: EPERM (Operation not permitted)\n  # running: second",
                         "# open /x: ENOENT (No such file or directory)\n  # running: second")
        k = k.replace("# open /proc/self/ns/user: ENOENT", "# openat /y: ENOENT")
        out = replay_point.choose(k, UNISTD, "fourth")
        self.assertEqual((out["nrs"], out["skip"]), ("257", "1"))

    def test_a_passed_point_with_no_failed_call(self):
        out = replay_point.choose(KTAP, UNISTD, "second")
        self.assertEqual(out, {"point": "second", "number": "2", "nothing": "1"})

    def test_no_such_point(self):
        with self.assertRaisesRegex(ValueError, "no point 'fifth'.*first, second"):
            replay_point.choose(KTAP, UNISTD, "fifth")

    def test_every_point_passed(self):
        passed = "  KTAP version 1\n  1..1\n  ok 1 fine\nok 1 lab\n# userns-labs: end of checks\n"
        with self.assertRaisesRegex(ValueError, "every point .* passed"):
            replay_point.choose(passed, UNISTD)

    def test_no_check_at_all(self):
        with self.assertRaisesRegex(ValueError, "no point"):
            replay_point.choose("garbage\n# userns-labs: end of checks\n", UNISTD)

    def test_a_boot_that_did_not_finish(self):
        with self.assertRaisesRegex(ValueError, "did not finish"):
            replay_point.choose(KTAP.replace("# userns-labs: end of checks", ""), UNISTD)

    def test_an_unknown_call_stops_at_the_start(self):
        k = KTAP.replace("execve: EPERM", "the pid and pid_for_children links: EPERM")
        out = replay_point.choose(k, UNISTD)
        self.assertEqual(out["nothing"], "1")

    def test_a_line_that_only_looks_like_an_errno(self):
        # not an errno name Python knows: not a failed call
        k = KTAP.replace("execve: EPERM (Operation", "execve: EWHATEVER (Operation")
        self.assertEqual(replay_point.choose(k, UNISTD)["nothing"], "1")

    def test_the_top_level_result_is_no_point(self):
        # "not ok 1 lab-01-..." (no indentation) is the check's, not a point's
        names = [p[1] for p in replay_point.points(KTAP)]
        self.assertNotIn("lab-01-suid-unmapped", names)


class Main(unittest.TestCase):
    def test_output_is_quoted_for_the_shell(self):
        k = KTAP.replace("not ok 1 first", "not ok 1 fir$(touch_x)st")
        with tempfile.TemporaryDirectory() as d:
            kp, up = os.path.join(d, "k"), os.path.join(d, "u")
            with open(kp, "w") as f:
                f.write(k)
            with open(up, "w") as f:
                f.write(UNISTD)
            out = subprocess.run([sys.executable, os.path.join(HERE, "..", "scripts", "replay_point.py"), kp, up],
                                 capture_output=True, text=True, check=True).stdout
            self.assertIn("point='fir$(touch_x)st'", out)
            # and the shell reads it back as data
            got = subprocess.run(["bash", "-c", 'eval "$1"; printf %s "$point"', "_", out],
                                 capture_output=True, text=True, check=True, cwd=d).stdout
            self.assertEqual(got, "fir$(touch_x)st")
            self.assertFalse(os.path.exists(os.path.join(d, "touch_x")))

    def test_usage_and_errors_exit_2(self):
        script = os.path.join(HERE, "..", "scripts", "replay_point.py")
        self.assertEqual(subprocess.run([sys.executable, script], capture_output=True).returncode, 2)
        with tempfile.TemporaryDirectory() as d:
            kp = os.path.join(d, "k")
            with open(kp, "w") as f:
                f.write("nothing\n")
            r = subprocess.run([sys.executable, script, kp, kp], capture_output=True, text=True)
            self.assertEqual(r.returncode, 2)
            self.assertIn("replay:", r.stderr)


if __name__ == "__main__":
    unittest.main()
