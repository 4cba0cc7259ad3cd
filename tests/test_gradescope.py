# SPDX-License-Identifier: GPL-2.0
"""Gradescope (scripts/gradescope.py), with no kernel: the results.json of
every kind of result is valid by Gradescope's documented schema and says
the grader's score; the validator rejects what Gradescope would (mutants
made by rule from a valid file); the autograder zip is laid out as
Gradescope expects it."""

import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "scripts"))
sys.path.insert(0, HERE)
import gradelib  # noqa: E402
import gradescope  # noqa: E402
import test_gradelib  # noqa: E402

FULL = [("core_rule", 1), ("second_rule", 1), ("plain_still_works", 1), ("third_rule", 1)]


class Results(test_gradelib.FakeLabsCase):
    def gs(self, status, ktap_text, **facts):
        doc, rep, _out = self.finish(status, ktap_text, **facts)
        gdoc = gradescope.results(doc, rep, 12)
        self.assertEqual(gradescope.validate(gdoc), [])
        # the tests add up to the total, gates and penalties included
        self.assertAlmostEqual(sum(t["score"] for t in gdoc["tests"]), gdoc["score"], places=6)
        return doc, gdoc

    def test_a_pass_is_full_marks_point_by_point(self):
        doc, g = self.gs("COMPLETE", self.ktap([("01", FULL), ("02", FULL)]))
        self.assertEqual((g["score"], doc["score"]), (20.0, 20.0))
        own = [t for t in g["tests"] if t["name"].startswith("lab 02: ")]
        # CHECK_A: core_rule weighs 2, second_rule and third_rule 1 each
        self.assertEqual(sorted((t["name"], t["max_score"]) for t in own),
                         [("lab 02: core_rule", 10.0), ("lab 02: second_rule", 5.0),
                          ("lab 02: third_rule", 5.0)])
        self.assertTrue(all(t["status"] == "passed" for t in g["tests"]))
        self.assertEqual(g["execution_time"], 12)
        # lab 01's five points at 10: 2.86 + 2.86 + 1.43 * 3 would be 10.01
        _doc, g1 = self.gs("COMPLETE", self.ktap([("01", FULL)]), lab="01", labs="01")
        self.assertAlmostEqual(sum(t["max_score"] for t in g1["tests"]), 10.0, places=6)
        self.assertIn("result:     PASS", g["output"])

    def test_a_failed_point_and_a_broken_guard(self):
        bad = [("core_rule", 1), ("second_rule", 0), ("plain_still_works", 1), ("third_rule", 1)]
        _doc, g = self.gs("COMPLETE", self.ktap([("01", FULL), ("02", bad)]))
        self.assertEqual(g["score"], 15.0)
        t = {x["name"]: x for x in g["tests"]}
        self.assertEqual((t["lab 02: second_rule"]["status"], t["lab 02: second_rule"]["score"]),
                         ("failed", 0.0))
        guard = [("core_rule", 1), ("second_rule", 1), ("plain_still_works", 0), ("third_rule", 1)]
        doc, g = self.gs("COMPLETE", self.ktap([("01", FULL), ("02", guard)]))
        self.assertEqual((doc["score"], g["score"]), (0.0, 0.0))
        t = {x["name"]: x for x in g["tests"]}
        self.assertEqual(t["lab 02 guard: plain_still_works"]["status"], "failed")

    def test_a_regression_is_a_failed_test_and_a_lower_total(self):
        bad = [("core_rule", 0), ("second_rule", 1), ("plain_still_works", 1), ("third_rule", 1)]
        doc, g = self.gs("COMPLETE", self.ktap([("01", bad), ("02", FULL)]))
        self.assertEqual(g["score"], doc["score"])
        self.assertLess(g["score"], 20.0)
        t = {x["name"]: x for x in g["tests"]}
        self.assertEqual(t["lab 01 still passes"]["status"], "failed")

    def test_no_kernel_is_zero_with_every_point_listed(self):
        for st in ("BUILD_FAILED", "APPLY_FAILED", "NOT_A_PATCH", "TIMEOUT", "PANIC"):
            with self.subTest(st):
                _doc, g = self.gs(st, "")
                self.assertEqual(g["score"], 0.0)
                own = [t for t in g["tests"] if t["name"].startswith("lab 02: ")]
                self.assertEqual(len(own), 3)
                self.assertTrue(all(t["status"] == "failed" for t in own))

    def test_the_review_counts_only_with_style_points(self):
        rv = {"items": [{"name": n, "ok": n != "signed-off", "detail": "d"} for n in
                        ("checkpatch", "signed-off", "subject", "message", "scope")],
              "points": 0.0, "max": 0.0, "patches": [], "files": [], "passed": 4, "of": 5}
        _doc, g = self.gs("COMPLETE", self.ktap([("01", FULL), ("02", FULL)]),
                          **{"review.json": json.dumps(rv)})
        self.assertEqual(g["score"], 20.0)
        rt = [t for t in g["tests"] if t["name"].startswith("patch review: ")]
        self.assertEqual([(t["max_score"], t["status"]) for t in rt][:2],
                         [(0.0, "passed"), (0.0, "failed")])
        with open(os.path.join(self.tmp, "02-fake", "lab.conf"), "a") as f:
            f.write("STYLE_POINTS=5\n")
        rv.update(points=4.0, max=5.0)
        _doc, g = self.gs("COMPLETE", self.ktap([("01", FULL), ("02", FULL)]),
                          **{"review.json": json.dumps(rv)})
        self.assertEqual(g["score"], 24.0)
        self.assertEqual(g["extra_data"]["kernel_score"], 20.0)
        rt = [t for t in g["tests"] if t["name"].startswith("patch review: ")]
        self.assertEqual(sum(t["max_score"] for t in rt), 5.0)

    def test_classroom_adds_up_to_the_graders_score(self):
        """GitHub Classroom's reporter adds the tests' scores: they must add
        up to the grader's score, whatever gated or cost it points."""
        bad = [("core_rule", 1), ("second_rule", 0), ("plain_still_works", 1), ("third_rule", 1)]
        guard = [("core_rule", 1), ("second_rule", 1), ("plain_still_works", 0), ("third_rule", 1)]
        reg = [("core_rule", 0), ("second_rule", 1), ("plain_still_works", 1), ("third_rule", 1)]
        for why, runs, st in (("pass", [("01", FULL), ("02", FULL)], "COMPLETE"),
                              ("a point failed", [("01", FULL), ("02", bad)], "COMPLETE"),
                              ("a guard broken", [("01", FULL), ("02", guard)], "COMPLETE"),
                              ("a regression", [("01", reg), ("02", bad)], "COMPLETE"),
                              ("no kernel", [], "BUILD_FAILED")):
            with self.subTest(why):
                doc, _rep, _out = self.finish(st, self.ktap(runs) if runs else "")
                c = gradelib.classroom(doc)
                self.assertAlmostEqual(sum(t["score"] for t in c["tests"]), doc["score"], places=6)
                self.assertEqual(c["max_score"], 20.0)
                self.assertEqual(c["status"], "pass" if doc["result"] == "PASS" else "fail")
                self.assertTrue(all(t["status"] in ("pass", "fail") for t in c["tests"]))
                for t in c["tests"]:
                    self.assertTrue(set(("name", "status", "score", "message")) <= set(t))

    def test_classroom_on_the_command_line_is_base64_json(self):
        import base64
        _doc, _rep, out = self.finish("COMPLETE", self.ktap([("01", FULL), ("02", FULL)]))
        r = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "gradelib.py"),
                            "classroom", os.path.join(out, "results.json")],
                           stdout=subprocess.PIPE, check=True)
        c = json.loads(base64.b64decode(r.stdout.strip()))
        self.assertEqual((c["version"], c["status"], c["max_score"]), (1, "pass", 20.0))

    def test_no_result_is_a_valid_zero(self):
        g = gradescope.failed(2, "grade.sh exit 70: GRADER_ERROR: x", 3)
        self.assertEqual(gradescope.validate(g), [])
        self.assertEqual((g["score"], g["tests"][0]["max_score"]), (0.0, 20.0))

    def test_a_long_report_is_cut_and_says_so(self):
        g = gradescope.results({"lab": "02", "score": 0.0, "max": 20.0, "result": "FAIL",
                                "labs": []}, "x" * (gradescope.MAX_OUTPUT * 2))
        self.assertLess(len(g["output"]), gradescope.MAX_OUTPUT + 200)
        self.assertIn("cut at", g["output"])


class Validate(unittest.TestCase):
    """Mutants by rule of a valid file: each must be rejected."""

    GOOD = {"score": 7.5, "execution_time": 3, "output": "o", "output_format": "text",
            "visibility": "visible", "stdout_visibility": "hidden", "extra_data": {},
            "tests": [{"name": "a", "score": 2.5, "max_score": 5, "status": "passed",
                       "output": "x", "visibility": "visible"}]}

    def test_the_good_one_is_good(self):
        self.assertEqual(gradescope.validate(self.GOOD), [])

    def mutants(self):
        # every field: a value of the wrong type
        for k in self.GOOD:
            d = copy.deepcopy(self.GOOD)
            d[k] = [] if not isinstance(d[k], list) else "x"
            yield "top %s of the wrong type" % k, d
        for k in self.GOOD["tests"][0]:
            d = copy.deepcopy(self.GOOD)
            d["tests"][0][k] = [] if not isinstance(d["tests"][0][k], list) else "x"
            yield "test %s of the wrong type" % k, d
        # every enumerated field: a value outside its set
        for k in ("visibility", "stdout_visibility", "output_format"):
            d = copy.deepcopy(self.GOOD)
            d[k] = "public"
            yield "top %s outside its set" % k, d
        for k, v in (("status", "ok"), ("visibility", "shown")):
            d = copy.deepcopy(self.GOOD)
            d["tests"][0][k] = v
            yield "test %s outside its set" % k, d
        d = copy.deepcopy(self.GOOD)
        d["scor"] = 1
        yield "an unknown top field", d
        d = copy.deepcopy(self.GOOD)
        d["tests"][0]["weight"] = 1
        yield "an unknown test field", d
        d = copy.deepcopy(self.GOOD)
        d["tests"][0]["score"] = 6
        yield "a test above its max", d
        d = copy.deepcopy(self.GOOD)
        d["score"] = -1
        yield "a negative score", d
        d = copy.deepcopy(self.GOOD)
        d["score"] = True
        yield "a boolean for a number", d
        d = copy.deepcopy(self.GOOD)
        del d["score"]
        del d["tests"][0]["score"]
        yield "no score anywhere", d
        d = copy.deepcopy(self.GOOD)
        d["tests"][0]["name"] = ""
        yield "a test without a name", d

    def test_every_mutant_is_rejected(self):
        n = 0
        for why, d in self.mutants():
            n += 1
            with self.subTest(why):
                self.assertNotEqual(gradescope.validate(d), [], why)
        self.assertGreater(n, 20)

    def test_the_command_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(dict(self.GOOD, score="7"), f)
        try:
            r = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "gradescope.py"),
                                "validate", f.name], stdout=subprocess.PIPE, check=False)
            self.assertEqual(r.returncode, 1)
            self.assertIn(b"'score' is a str", r.stdout)
        finally:
            os.unlink(f.name)


class Zip(unittest.TestCase):
    def test_the_zip_is_laid_out_as_gradescope_wants(self):
        if not os.path.isdir(os.path.join(TOP, ".git")):
            self.skipTest("not a git checkout")
        with tempfile.TemporaryDirectory() as tmp:
            z = os.path.join(tmp, "a.zip")
            gradescope.make_zip(3, z)
            with zipfile.ZipFile(z) as f:
                info = {i.filename: i for i in f.infolist()}
                conf = f.read("gradescope.conf").decode()
            for name in ("setup.sh", "run_autograder"):
                self.assertIn(name, info)
                self.assertTrue((info[name].external_attr >> 16) & 0o111, name + " is executable")
            self.assertIn("LAB=3\n", conf)
            self.assertRegex(conf, r"\nKERNEL=6\.(1|12)\n")
            for must in ("Makefile", "scripts/grade.sh", "scripts/deps.sh", "labs/03-chown-setgid/check"
                         if os.path.isdir(os.path.join(TOP, "labs", "03-chown-setgid")) else "Makefile"):
                self.assertIn(must, info)
            self.assertFalse([n for n in info if n.startswith(("build/", ".git/"))])


if __name__ == "__main__":
    unittest.main()
