#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Gradescope: the autograder zip, and the grader's results in the form
Gradescope reads (its "Autograder Specifications": /autograder/results/
results.json).

  gradescope.py zip LAB OUT.zip      the course's tracked files, setup.sh
                                     and run_autograder at the zip's root,
                                     and gradescope.conf (LAB, KERNEL)
  gradescope.py results RESULTS.json REPORT.txt OUT.json [SECONDS]
                                     one graded submission (grade.sh's
                                     results.json and report.txt) as
                                     Gradescope's results.json
  gradescope.py failed LAB WHY OUT.json [SECONDS]
                                     a submission the grader could not
                                     grade: score 0, WHY said
  gradescope.py validate FILE.json   exit 0 when FILE is a results.json as
                                     Gradescope documents it; else each
                                     fault on a line, exit 1

The tests are gradelib.result_tests(): one per point of the lab's
check, worth its share of POINTS, their scores adding up to the grader's
own; a guard and each earlier lab as a test worth 0; the patch review's
items, counted only when the lab has STYLE_POINTS. The report is the
output, as the grader wrote it.
"""

import json
import os
import subprocess
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import gradelib  # noqa: E402
import labconf  # noqa: E402

VISIBILITY = ("hidden", "after_due_date", "after_published", "visible")
FORMATS = ("text", "html", "simple_format", "md", "ansi")
STATUSES = ("passed", "failed")
# Gradescope's fields, and the JSON types each may have
TOP_FIELDS = {"score": (int, float), "execution_time": (int, float), "output": str,
              "output_format": str, "test_output_format": str, "test_name_format": str,
              "visibility": str, "stdout_visibility": str, "extra_data": dict, "tests": list,
              "leaderboard": list}
TEST_FIELDS = {"score": (int, float), "max_score": (int, float), "status": str, "name": str,
               "name_format": str, "number": str, "output": str, "output_format": str,
               "tags": list, "visibility": str, "extra_data": dict}
# what Gradescope shows of one output: keep well under it
MAX_OUTPUT = 60000


def validate(doc):
    """The faults of DOC as a Gradescope results.json, [] when none."""
    bad = []
    if not isinstance(doc, dict):
        return ["the top level is not an object"]

    def check(obj, fields, where):
        for k, v in obj.items():
            if k not in fields:
                bad.append("%s: unknown field '%s'" % (where, k))
            elif isinstance(v, bool) or not isinstance(v, fields[k]):
                bad.append("%s: '%s' is a %s" % (where, k, type(v).__name__))
        for k in ("visibility", "stdout_visibility"):
            if k in obj and obj[k] not in VISIBILITY:
                bad.append("%s: %s '%s' is none of %s" % (where, k, obj[k], ", ".join(VISIBILITY)))
        for k in ("output_format", "test_output_format", "test_name_format", "name_format"):
            if k in obj and obj[k] not in FORMATS:
                bad.append("%s: %s '%s' is none of %s" % (where, k, obj[k], ", ".join(FORMATS)))

    check(doc, TOP_FIELDS, "results")
    tests = doc.get("tests", [])
    if "score" not in doc and (not tests or any("score" not in t for t in tests
                                                if isinstance(t, dict))):
        bad.append("results: no 'score', and not every test has one")
    for i, t in enumerate(tests if isinstance(tests, list) else []):
        where = "tests[%d]" % i
        if not isinstance(t, dict):
            bad.append(where + ": not an object")
            continue
        check(t, TEST_FIELDS, where)
        if "status" in t and t["status"] not in STATUSES:
            bad.append("%s: status '%s' is none of passed, failed" % (where, t["status"]))
        if "max_score" in t and isinstance(t["max_score"], (int, float)) and t["max_score"] < 0:
            bad.append(where + ": max_score below 0")
        if "score" in t and "max_score" in t and all(
                isinstance(t[k], (int, float)) and not isinstance(t[k], bool)
                for k in ("score", "max_score")) and not 0 <= t["score"] <= t["max_score"]:
            bad.append("%s: score %s outside 0..%s" % (where, t["score"], t["max_score"]))
        if not t.get("name"):
            bad.append(where + ": no name")
    if isinstance(doc.get("score"), (int, float)) and doc["score"] < 0:
        bad.append("results: score below 0")
    return bad


def clip(text):
    if len(text) <= MAX_OUTPUT:
        return text
    return text[:MAX_OUTPUT] + "\n... (cut at %d characters: the whole report is in the " \
        "autograder's stdout)\n" % MAX_OUTPUT


def results(doc, report, seconds=None):
    """Gradescope's results.json of one graded submission."""
    ran = any(x.get("role") == "own" and x.get("status") != "NOT_RUN"
              for x in doc.get("labs", []))
    tests = [{"name": t["name"], "max_score": t["max"], "score": t["score"],
              "status": "passed" if t["ok"] else "failed",
              "output": t["output"] + ("" if ran or not t["name"].startswith("lab %s: " % doc["lab"])
                                       else " (no kernel booted)")}
             for t in gradelib.result_tests(doc)]
    style_max = float(doc.get("style_max") or 0)
    total = round(float(doc["score"]) + (float(doc.get("style_score") or 0) if style_max else 0), 2)
    out = {"score": total, "output": clip(report), "output_format": "text",
           "test_output_format": "text", "visibility": "visible", "stdout_visibility": "hidden",
           "tests": tests,
           "extra_data": {"result": doc["result"], "kernel_score": doc["score"],
                          "kernel_max": doc["max"], "style_score": doc.get("style_score", 0.0),
                          "style_max": style_max, "kernel": doc.get("kernel", ""),
                          "same_as_reference": bool(doc.get("same_as_reference"))}}
    if seconds is not None:
        out["execution_time"] = seconds
    return out


def failed(lab, why, seconds=None):
    """A results.json for a submission that got no result: 0, and why."""
    mx = float(labconf.get(lab, "POINTS"))
    out = {"score": 0.0, "output": clip(why.rstrip("\n") + "\n"), "output_format": "text",
           "visibility": "visible", "stdout_visibility": "hidden",
           "tests": [{"name": "lab %02d" % int(lab), "max_score": mx, "score": 0.0,
                      "status": "failed", "output": why.strip().splitlines()[0] if why.strip()
                      else "no result"}]}
    if seconds is not None:
        out["execution_time"] = seconds
    return out


def tracked_files(top):
    # (the files not committed yet too, but for those git ignores: an
    # instructor's lab.conf change is in the zip)
    r = subprocess.run(["git", "-C", top, "ls-files", "-z", "--cached", "--others",
                        "--exclude-standard"], stdout=subprocess.PIPE, check=True)
    return [f for f in r.stdout.decode("utf-8", "surrogateescape").split("\0") if f]


def make_zip(lab, out, top=TOP):
    """The autograder zip of LAB: the course's tracked files as they are in
    the working tree, setup.sh and run_autograder (ci/gradescope/) at the
    root, gradescope.conf. Returns the number of files."""
    lab = int(lab)
    if not labconf.lab_path(lab):
        raise SystemExit("gradescope.py: there is no lab %d" % lab)
    # the base as every script resolves it (KERNEL, build/KERNEL, installed)
    r = subprocess.run(["bash", "-c", '. "$1/scripts/lib.sh" >/dev/null 2>&1 && printf %s "$KERNEL"',
                        "-", top], stdout=subprocess.PIPE, check=False)
    kernel = r.stdout.decode() or "6.12"
    files = sorted(set(f for f in tracked_files(top) if os.path.isfile(os.path.join(top, f))))
    tmp = out + ".tmp"
    n = 0
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        def add(path, arc):
            zi = zipfile.ZipInfo.from_file(path, arc)
            zi.compress_type = zipfile.ZIP_DEFLATED
            with open(path, "rb") as f:
                z.writestr(zi, f.read())
        for f in files:
            add(os.path.join(top, f), f)
            n += 1
        for f in ("setup.sh", "run_autograder"):
            add(os.path.join(top, "ci", "gradescope", f), f)
            n += 1
        conf = "# SPDX-License-Identifier: GPL-2.0\n# made by make gradescope\nLAB=%d\nKERNEL=%s\n" % (
            lab, kernel)
        zi = zipfile.ZipInfo("gradescope.conf", (2026, 1, 1, 0, 0, 0))
        zi.external_attr = 0o644 << 16
        z.writestr(zi, conf)
        n += 1
    os.replace(tmp, out)
    return n


def main(argv):
    cmd, args = (argv[0], argv[1:]) if argv else ("", [])
    if cmd == "zip" and len(args) == 2:
        n = make_zip(args[0], args[1])
        print("%s: %d files (lab %d)" % (args[1], n, int(args[0])))
        return 0
    if cmd == "results" and len(args) in (3, 4):
        with open(args[0], encoding="utf-8") as f:
            doc = json.load(f)
        with open(args[1], encoding="utf-8", errors="replace") as f:
            report = f.read()
        out = results(doc, report, float(args[3]) if len(args) == 4 else None)
        dest = args[2]
    elif cmd == "failed" and len(args) in (3, 4):
        out = failed(args[0], args[1], float(args[3]) if len(args) == 4 else None)
        dest = args[2]
    elif cmd == "validate" and len(args) == 1:
        try:
            with open(args[0], encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print("%s: not JSON: %s" % (args[0], e))
            return 1
        bad = validate(doc)
        for b in bad:
            print("%s: %s" % (args[0], b))
        return 1 if bad else 0
    else:
        sys.stderr.write(__doc__)
        return 2
    bad = validate(out)
    if bad:  # never hand Gradescope what it cannot read
        raise SystemExit("gradescope.py: the results.json made is not valid: " + "; ".join(bad))
    with open(dest + ".tmp", "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    os.replace(dest + ".tmp", dest)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
