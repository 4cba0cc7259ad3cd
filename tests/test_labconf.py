# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/labconf.py, the one reader of a lab's declarations:
lab.conf in its one form, the points of a check (and what the scorer could
not see), the shell cache lib.sh reads and the guest's lab.env."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "scripts"))
import labconf  # noqa: E402

CONF = 'TITLE="A lab"\nSERIES="s"\nUPSTREAM="u"\nFILES="f.c"\nPOINTS=10\nHINT="h"\n'


class Base(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        self.labs = os.path.join(self.d, "labs")
        os.makedirs(self.labs)

    def tearDown(self):
        shutil.rmtree(self.d, ignore_errors=True)

    def lab(self, nn, conf=CONF, check=None):
        p = os.path.join(self.labs, "%s-x" % nn)
        os.makedirs(p, exist_ok=True)
        with open(os.path.join(p, "lab.conf"), "w") as f:
            f.write(conf)
        if check is not None:
            with open(os.path.join(p, "check"), "w") as f:
                f.write(check)
        return p


class Parse(Base):
    def test_the_forms(self):
        c = labconf.parse('# c\n\nTITLE="a \\"b\\" c"\nSEED=000\nHINT=\'x $y\'\nFILES="a b"  # files\n'
                          'SERIES="x\\ny"\n')
        # as the shell reads it: in double quotes a backslash escapes only $ ` " \
        self.assertEqual(c, {"TITLE": 'a "b" c', "SEED": "000", "HINT": "x $y", "FILES": "a b",
                             "SERIES": "x\\ny"})

    def test_errors_name_the_line(self):
        for text, msg in (('TITLE="a"\nTITEL="b"\n', "lab.conf:2: TITEL is no key"),
                          ('TITLE=$(id)\n', "lab.conf:1: not KEY="),
                          ('export TITLE=a\n', "lab.conf:1: not KEY="),
                          ('TIMEOUT="1m"\n', "TIMEOUT must be a whole number"),
                          ('TITLE=a\nTITLE=b\n', "lab.conf:2: TITLE is set twice"),
                          ('TITLE="a `id`"\n', "not KEY="),
                          ('POINTS=010\n', "without leading zeros"),
                          ('TITLE="v"#c\n', "not KEY="),
                          ('SERIES=a\\b\n', "not KEY="),
                          ('FILES=~/f\n', "not KEY=")):
            with self.subTest(text=text):
                with self.assertRaises(labconf.LabError) as e:
                    labconf.parse(text)
                self.assertIn(msg, str(e.exception))

    def test_get_and_defaults(self):
        p = self.lab("07", CONF + "TIMEOUT=30\n")
        self.assertEqual(labconf.get(p, "TIMEOUT"), "30")
        self.assertEqual(labconf.get(p, "POINT_TIMEOUT"), "20")
        self.assertEqual(labconf.get(p, "NEEDS_STEP"), "7")
        self.assertEqual(labconf.get(p, "USERSPACE", "none"), "none")
        with self.assertRaises(labconf.LabError):
            labconf.get(p, "NOPE")


class Points(Base):
    def test_declarations(self):
        p = self.lab("03", check='ktap_plan 3\n#@ guard\nexpect "a" x true\n#@ points 2\n'
                                 'expect "b" y true\nktap_skip "c" why\nexpect "c" z true\n')
        self.assertEqual(labconf.points(p), [("a", 1.0, "guard"), ("b", 2.0, "point"), ("c", 1.0, "point")])

    def test_a_point_the_scorer_cannot_see(self):
        for check, msg in (('ktap_plan 2\nexpect "a" x true\nfor i in 1 2; do\n\texpect "b$i" y true\ndone\n',
                            "check:4: expect with a name that is not a literal"),
                           ('ktap_plan 1\nck() { expect "$1" "$2" true; }\nck a b\n', "check:2: expect with a name"),
                           ('ktap_plan 3\nexpect "a" x true\nexpect "b" y true\n',
                            "ktap_plan 3, and the scorer sees 2 point(s)"),
                           ('ktap_plan 1\nexpect "a" x true\nktap_ok "b"\n', "check:3: ktap_ok prints a result"),
                           ('ktap_plan 1\nexpect "a" x true\n[ -e /x ] && echo "ok 2 b"\n', "prints a result the scorer"),
                           ('ktap_plan 3 # a, c, b\nexpect "a" x true\n'
                            'case $(ktap_base) in *) expect "c" y true ;; esac\nexpect "b" x true\n', None),
                           ('ktap_plan 2\nexpect "a" x true\n: <<\'X\'\nexpect "b" fixed false\nX\n',
                            "check:4: a point or a result inside a here-document"),
                           ('ktap_plan 1\nexpect "a" x true\nprintf \'%s\\n\' "ok $ktap_n b"\n', "prints a result"),
                           ('ktap_plan 1\nexpect "a" x true\nktap_n=$((ktap_n + 1))\n', "prints a result"),
                           ('ktap_plan 2\nif x; then expect "a" x true; else\n#@ points 5\nexpect "a" y true\nfi\n',
                            "check:4: '#@' above a, which an earlier line already declared"),
                           ('ktap_plan 1\nx=$(echo expect "a")\n', "where a command does not start"),
                           ('ktap_plan 1\n#@ pointz 3\nexpect "a" x true\n', "unknown declaration"),
                           ('ktap_plan 1\n#@ guard\n#@ points 2\nexpect "a" x true\n', "a is a guard"),
                           ('ktap_plan 1\nexpect "a" x true\n#@ guard\n', "no point after it")):
            with self.subTest(check=check):
                p = self.lab("04", check=check)
                if msg is None:
                    # seen: a case arm's point counted, the plan's comment read
                    self.assertEqual([x[0] for x in labconf.points(p)], ["a", "c", "b"])
                    continue
                with self.assertRaises(ValueError) as e:
                    labconf.points(p)
                self.assertIn(msg, str(e.exception))

    def test_two_calls_on_a_line_and_after_keywords(self):
        p = self.lab("05", check='ktap_plan 4\nif ! expect "a" x true; then expect "b" y true; fi\n'
                                 'while false; do expect "c" z true; done\n[ -e x ] || ktap_skip "d" why\n')
        self.assertEqual([x[0] for x in labconf.points(p)], ["a", "b", "c", "d"])

    def test_every_failure_says_what_is_wrong(self):
        p = self.lab("06", check='ktap_plan 5\nif_wrong "w"\n#@ guard\nexpect "a" x true\n'
                                 'expect "b" y true\nktap_skip "c" why\n'
                                 '[ -e x ] && if_wrong "w2"\nexpect_xfail "d" z true\n'
                                 'expect "e" if_wrong\n')
        self.assertEqual(labconf.unexplained(p), ["b", "e"])
        self.lab("07", check='ktap_plan 1\nexpect "a" x true\n')
        self.assertEqual(labconf.lint(self.labs),
                         ["%s/check: %s has no if_wrong before it: its failure would print no "
                          "\"wrong: ...\" line for the student" % (d, n) for d, n in
                          (("06-x", "b"), ("06-x", "e"), ("07-x", "a"))])

    def test_lint(self):
        self.lab("01", check='ktap_plan 1\nif_wrong "w"\nexpect "a" x true\n')
        self.lab("02", 'TITLE="t"\n', check='ktap_plan 1\nif_wrong "w"\nexpect "a" x true\n')
        self.lab("03", CONF + "BOGUS=1\n")
        self.assertEqual(labconf.lint(self.labs), ["02-x/lab.conf: %s is not set" % k for k in
                                                   ("SERIES", "UPSTREAM", "FILES", "POINTS", "HINT")] +
                                                  ["%s:7: BOGUS is no key of lab.conf (labconf.py keys)"
                                                   % os.path.join(self.labs, "03-x", "lab.conf")])

    def test_the_course_lints_clean(self):
        self.assertEqual(labconf.lint(os.path.join(TOP, "labs")), [])


class Shell(Base):
    def test_cache_is_quoted_shell(self):
        self.lab("01", 'TITLE="it\'s"\nSERIES="s"\nUPSTREAM="u"\nHINT=\'$(touch x) `touch x`\'\n')
        out = os.path.join(self.d, "cache.sh")
        self.assertEqual(labconf.main(["labconf.py", "cache", self.labs, out]), 0)
        r = subprocess.run(["sh", "-c", '. "$1" && printf "%s|%s|%s" "$labconf_01_TITLE" "$labconf_01_POINTS" '
                            '"$labconf_01_HINT"', "sh", out], capture_output=True, text=True, cwd=self.d)
        self.assertEqual(r.stdout, "it's||$(touch x) `touch x`")
        self.assertFalse(os.path.exists(os.path.join(self.d, "x")))

    def test_lib_sh_asks_through_the_cache(self):
        self.lab("01", CONF + "TIMEOUT=30\n")
        env = dict(os.environ, LABS_DIR=self.labs)
        env.pop("KERNEL", None)

        def ask(*a):
            return subprocess.run(["bash", "-c", '. "$1/scripts/lib.sh" && lab_conf "${@:2}"', "_", TOP] + list(a),
                                  capture_output=True, text=True, env=env)
        self.assertEqual(ask("1", "TIMEOUT", "60").stdout, "30\n")
        self.assertEqual(ask("1", "POINT_TIMEOUT").stdout, "20\n")
        self.assertEqual(ask("1", "NEEDS_STEP").stdout, "1\n")
        with open(os.path.join(self.labs, "01-x", "lab.conf"), "a") as f:
            f.write("POINT_TIMEOUT=7\n")
        self.assertEqual(ask("1", "POINT_TIMEOUT").stdout, "7\n")
        r = ask("1", "NOPE")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("NOPE is no key of lab.conf", r.stderr)

    def test_defaults_come_from_the_cache_without_python(self):
        # once the cache is made, a value the lab leaves unset (its key's
        # own default) costs no Python start: each was some 0.06 s of a
        # check's, and a repack of the initramfs asked 36 of them
        self.lab("04", CONF)
        env = dict(os.environ, LABS_DIR=self.labs)
        env.pop("KERNEL", None)
        script = '. "$1/scripts/lib.sh" && lab_conf 4 TIMEOUT >/dev/null && PATH="$2:$PATH" && ' \
                 'lab_conf 4 POINT_TIMEOUT && lab_conf 4 NEEDS_STEP && lab_conf 4 USERSPACE && lab_conf 4 SEED'
        shim = os.path.join(self.d, "shim")
        os.mkdir(shim)
        with open(os.path.join(shim, "python3"), "w") as f:
            f.write("#!/bin/sh\ntouch %s/python-ran\nexit 1\n" % self.d)
        os.chmod(os.path.join(shim, "python3"), 0o755)
        r = subprocess.run(["bash", "-c", script, "_", TOP, shim], capture_output=True, text=True, env=env)
        self.assertEqual((r.returncode, r.stdout), (0, "20\n4\n\n-\n"), r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.d, "python-ran")))


if __name__ == "__main__":
    unittest.main()
