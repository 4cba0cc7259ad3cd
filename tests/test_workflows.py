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
        push = self.flows["classroom.yml"]["on"]["push"]
        # a lab handed in, never every push: a change under submissions/
        # on any branch, or a submit tag (paths are not read for tags)
        self.assertEqual(push["paths"], ["submissions/**"])
        self.assertEqual(push["tags"], ["submit*"])
        self.assertEqual(push["branches"], ["**"])
        for k in ("workflow_dispatch", "repository_dispatch"):
            self.assertIn(k, self.flows["classroom.yml"]["on"])
        self.assertIn("lab", self.flows["class.yml"]["on"]["workflow_dispatch"]["inputs"])

    def test_classroom_keeps_its_caches_whatever_the_grade(self):
        steps = self.flows["classroom.yml"]["jobs"]["grade"]["steps"]
        uses = [(i, s["uses"].split("@")[0], s) for i, s in enumerate(steps) if "uses" in s]
        paths = {}
        for i, u, st in uses:
            if u.startswith("actions/cache"):
                # restore and save, never the combined action (it saves
                # only after a job that passed)
                self.assertIn(u, ("actions/cache/restore", "actions/cache/save"))
                paths.setdefault(st["with"]["path"], []).append((i, u, st))
        self.assertEqual(set(paths), {"/var/cache/apt/archives", "build/linux", "/ccache"})
        where = {r: i for i, s in enumerate(steps) for r in [s.get("run", "")]}
        for path, made_by in (("/var/cache/apt/archives", "make deps"), ("build/linux", "make tree")):
            (ri, ru, rst), (si, su, sst) = paths[path]
            made = next(i for i, s in enumerate(steps) if made_by in s.get("run", ""))
            self.assertEqual((ru, su), ("actions/cache/restore", "actions/cache/save"))
            self.assertTrue(ri < made < si < where[next(r for r in where if "make grade" in r)],
                            path)
            self.assertEqual(rst["with"]["key"], sst["with"]["key"])
            self.assertEqual(sst.get("if"), "steps.%s.outputs.cache-hit != 'true'" % rst["id"])
        self.assertEqual(paths["/ccache"][-1][2].get("if"), "always()")

    def test_classroom_reports_through_the_reporter(self):
        job = self.flows["classroom.yml"]["jobs"]["grade"]
        self.assertEqual(job["name"], "Autograding Tests")
        self.assertEqual(job["if"], "github.actor != 'github-classroom[bot]'")
        steps = job["steps"]
        rep = [s for s in steps if s.get("uses", "").startswith(
            "classroom-resources/autograding-grading-reporter@")]
        self.assertEqual(len(rep), 1)
        runner = rep[0]["with"]["runners"]
        src = next(s for s in steps if s.get("id") == runner)
        self.assertIn("gradelib.py classroom", src["run"])
        self.assertEqual(rep[0]["env"], {runner.upper() + "_RESULTS":
                                         "${{ steps.%s.outputs.result }}" % runner})
        for s in (src, rep[0]):
            self.assertEqual(s.get("if"), "always()")
        perms = self.flows["classroom.yml"]["permissions"]
        self.assertEqual(perms.get("checks"), "write")

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
