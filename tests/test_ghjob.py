# SPDX-License-Identifier: GPL-2.0
"""scripts/ghjob.py: a workflow job run here as a runner runs it."""

import io
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import ghjob  # noqa: E402

FLOW = """name: t
on:
  push:
jobs:
  list:
    outputs:
      things: ${{ steps.l.outputs.things }}
    steps:
      - uses: actions/checkout@v4
      - id: l
        run: echo 'things=[1, 2]' >>"$GITHUB_OUTPUT"
  one:
    env:
      WHO: ${{ matrix.who }}
      LAB: ${{ inputs.lab }}
    steps:
      - name: first
        run: |
          echo "SEEN=$WHO-$LAB" >>"$GITHUB_ENV"
          echo "line one" >>"$GITHUB_STEP_SUMMARY"
      - name: second
        run: |
          test "$SEEN" = "ann-3"
          mkdir -p out && echo "$SEEN" >out/r.txt
          test -n "$FAIL" && exit 3
          true
      - name: skipped after a failure
        run: touch ran-after-failure
      - name: always
        if: always()
        run: echo "line two" >>"$GITHUB_STEP_SUMMARY"
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: res-${{ matrix.who }}
          path: out/
  gather:
    steps:
      - uses: actions/download-artifact@v4
        with:
          pattern: res-*
          path: got
  cached:
    steps:
      - id: c
        uses: actions/cache/restore@v4
        with:
          path: thing
          key: k-${{ hashFiles('flow.yml') }}
      - name: make it
        if: steps.c.outputs.cache-hit != 'true'
        run: mkdir -p thing && echo made >thing/f && echo made >>made.log
      - uses: actions/cache/save@v4
        if: steps.c.outputs.cache-hit != 'true'
        with:
          path: thing
          key: k-${{ hashFiles('flow.yml') }}
      - run: test "$(cat thing/f)" = made
  report:
    steps:
      - id: lab
        run: echo "result=$(printf %s "$PAYLOAD" | base64 -w0)" >>"$GITHUB_OUTPUT"
      - uses: classroom-resources/autograding-grading-reporter@v1
        env:
          LAB_RESULTS: "${{ steps.lab.outputs.result }}"
        with:
          runners: lab
  bad:
    steps:
      - run: echo ${{ secrets.TOKEN }}
  unknown:
    steps:
      - uses: someone/else@v1
"""


class GhJob(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.old = os.getcwd()
        os.chdir(self.dir.name)
        with open("flow.yml", "w") as fh:
            fh.write(FLOW)
        self.flow = ghjob.load("flow.yml")
        self.art = os.path.join(self.dir.name, "artifacts")
        os.mkdir(self.art)
        os.environ.pop("FAIL", None)

    def tearDown(self):
        os.chdir(self.old)
        os.environ.pop("FAIL", None)
        self.dir.cleanup()

    def run_job(self, job, **kw):
        log = io.StringIO()
        args = dict(inputs={}, matrix={}, needs={}, artifacts=self.art)
        args.update(kw)
        ok, out, summary = ghjob.run_job(self.flow, job, log=log, **args)
        return ok, out, summary, log.getvalue()

    def test_outputs(self):
        ok, out, _, log = self.run_job("list")
        self.assertTrue(ok, log)
        self.assertEqual(json.loads(out["things"]), [1, 2])
        self.assertIn("the checkout is the current directory", log)

    def test_env_file_matrix_inputs_summary_artifacts(self):
        ok, _, summary, log = self.run_job("one", inputs={"lab": "3"}, matrix={"who": "ann"})
        self.assertTrue(ok, log)
        self.assertEqual(summary, "line one\nline two\n")
        with open(os.path.join(self.art, "res-ann", "r.txt")) as fh:
            self.assertEqual(fh.read(), "ann-3\n")
        self.assertTrue(os.path.exists("ran-after-failure"))
        ok, _, _, log = self.run_job("gather")
        self.assertTrue(ok, log)
        self.assertTrue(os.path.isfile("got/res-ann/r.txt"))

    def test_failure_stops_all_but_always(self):
        os.environ["FAIL"] = "1"
        ok, _, summary, log = self.run_job("one", inputs={"lab": "3"}, matrix={"who": "ann"})
        self.assertFalse(ok)
        self.assertIn("failed (exit 3)", log)
        self.assertIn("skipped after a failure: not run", log)
        self.assertFalse(os.path.exists("ran-after-failure"))
        self.assertIn("line two", summary)  # the always() step ran
        self.assertTrue(os.path.isdir(os.path.join(self.art, "res-ann")))

    def test_nothing_guessed(self):
        with self.assertRaisesRegex(ghjob.Error, "secrets.TOKEN"):
            self.run_job("bad")
        with self.assertRaisesRegex(ghjob.Error, "does not know"):
            self.run_job("unknown")
        with self.assertRaisesRegex(ghjob.Error, "no job"):
            self.run_job("nope")

    def test_caches_are_kept_between_runs_by_key(self):
        caches = os.path.join(self.dir.name, "caches")
        os.mkdir(caches)
        ok, _, _, log = self.run_job("cached", caches=caches)
        self.assertTrue(ok, log)
        self.assertIn("no cache for k-", log)
        self.assertIn("saved thing as k-", log)
        import shutil
        shutil.rmtree("thing")
        ok, _, _, log = self.run_job("cached", caches=caches)
        self.assertTrue(ok, log)
        self.assertIn("restored thing from k-", log)
        self.assertIn("make it: not run", log)
        with open("made.log") as fh:
            self.assertEqual(fh.read(), "made\n")
        # without a cache folder: left out, and the job makes its own
        shutil.rmtree("thing")
        ok, _, _, log = self.run_job("cached")
        self.assertTrue(ok, log)
        self.assertIn("left out", log)

    def test_the_classroom_reporter_reads_as_it_does(self):
        good = {"version": 1, "status": "pass", "max_score": 10,
                "tests": [{"name": "a", "status": "pass", "score": 7.5, "message": ""},
                          {"name": "b", "status": "pass", "score": 2.5, "message": ""}]}
        for payload, ok_want, said in (
                (good, True, "Total points: 10/10"),
                (dict(good, status="fail"), False, "failed: lab"),
                ({"status": "pass"}, None, "not a runner's result"),
                (dict(good, tests=[{"name": "a", "status": "ok", "score": 1}]), None,
                 "without name, status or score")):
            with self.subTest(said):
                os.environ["PAYLOAD"] = json.dumps(payload)
                try:
                    if ok_want is None:
                        with self.assertRaisesRegex(ghjob.Error, said):
                            self.run_job("report")
                        continue
                    ok, _, _, log = self.run_job("report")
                finally:
                    os.environ.pop("PAYLOAD", None)
                self.assertEqual(ok, ok_want, log)
                self.assertIn(said, log)

    def test_env_file_heredoc(self):
        p = os.path.join(self.dir.name, "env")
        with open(p, "w") as fh:
            fh.write("A=1=2\nB<<EOF\nx\ny\nEOF\nC=\n")
        self.assertEqual(ghjob.read_pairs(p), {"A": "1=2", "B": "x\ny", "C": ""})


if __name__ == "__main__":
    unittest.main()
