# SPDX-License-Identifier: GPL-2.0
"""The GitHub workflow templates (ci/github/*.yml): they parse as YAML,
run in Debian 12, run only make targets and gradelib.py commands that
exist, in the order the README's quick start needs them, never paste a
GitHub expression (a submission's name) into shell code, and do what
ci/github/README.md says they do."""

import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
CI = os.path.join(TOP, "ci", "github")
sys.path.insert(0, os.path.join(TOP, "scripts"))
import ghjob  # noqa: E402
import gradelib  # noqa: E402


def load(name):
    # perl's core YAML reader, as the local runner reads them
    return ghjob.load(os.path.join(CI, name))


def make_targets():
    with open(os.path.join(TOP, "Makefile"), encoding="utf-8") as fh:
        return set(re.findall(r"^([a-z][a-z0-9-]*):", fh.read(), re.M))


def runs(job):
    return [s["run"] for s in job["steps"] if "run" in s]


class Workflows(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.flows = {n: load(n) for n in ("classroom.yml", "class.yml")}
        with open(os.path.join(CI, "README.md"), encoding="utf-8") as fh:
            cls.doc = fh.read()

    def test_debian_12_containers(self):
        for n, w in self.flows.items():
            for j, job in w["jobs"].items():
                self.assertEqual(job.get("container", {}).get("image"), "debian:12", (n, j))

    def test_triggers(self):
        self.assertIn("push", self.flows["classroom.yml"]["on"])
        self.assertIn("lab", self.flows["class.yml"]["on"]["workflow_dispatch"]["inputs"])

    def test_no_expression_in_shell_code(self):
        # S1 on CI: a name in ${{ }} would be pasted into the script as code
        for n, w in self.flows.items():
            for j, job in w["jobs"].items():
                for r in runs(job):
                    self.assertNotIn("${{", r, (n, j, r))

    def test_commands_exist(self):
        targets = make_targets()
        cmds = set(re.findall(r"^  gradelib\.py (\S+)", gradelib.__doc__, re.M))
        for n, w in self.flows.items():
            for j, job in w["jobs"].items():
                for r in runs(job):
                    for t in re.findall(r"(?:^|&&|;|\|\|)\s*make ([a-z][a-z0-9-]*)", r, re.M):
                        self.assertIn(t, targets, (n, j, r))
                    for c in re.findall(r"scripts/gradelib\.py ([a-z-]+)", r):
                        self.assertIn(c, cmds, (n, j, r))

    def test_quick_start_order(self):
        # packages, then the tree, then grading, as the README's commands
        for n, job in (("classroom.yml", self.flows["classroom.yml"]["jobs"]["grade"]),
                       ("class.yml", self.flows["class.yml"]["jobs"]["grade"])):
            text = "\n".join(runs(job))
            pos = [text.find(c) for c in ("make deps", "make tree", "make grade SUB=\"$SUB\"")]
            self.assertTrue(all(p >= 0 for p in pos) and pos == sorted(pos), (n, pos))

    def test_documented(self):
        # every command line the workflows run is in ci/github/README.md
        for n, w in self.flows.items():
            for j, job in w["jobs"].items():
                for r in runs(job):
                    for line in r.splitlines():
                        if re.search(r"\bmake |gradelib\.py ", line):
                            self.assertIn(line.strip(), self.doc, (n, j))


if __name__ == "__main__":
    unittest.main()
