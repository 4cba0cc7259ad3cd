#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read a results channel (X.ktap) with the kernel's own KTAP parser,
tools/testing/kunit/kunit.py parse --json, and with scripts/ktap.py, and
say whether both give the same labs, points and statuses.

  kunit_compare.py KUNIT_PY X.ktap

Exit status: 0 the same, 1 they differ (the differences are printed),
2 kunit.py could not read the file at all.
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import ktap  # noqa: E402

# ktap.py's point statuses as kunit's JSON names them
AS_KUNIT = {"PASS": "PASS", "XFAIL": "PASS", "SKIP": "SKIP", "FAIL": "FAIL", "TIMEOUT": "FAIL"}


def by_kunit(kunit_py, path):
    """{lab name: [(point, status)]} from kunit.py parse --json."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "k.json")
        # -B: no __pycache__ in the kernel tree (the identity test counts every file)
        proc = subprocess.run([sys.executable, "-B", kunit_py, "parse", "--json=" + out,
                               os.path.abspath(path)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              check=False)
        if not os.path.exists(out):
            return None, proc.stdout
        with open(out, encoding="utf-8") as f:
            doc = json.load(f)
    labs = {}
    for group in doc.get("sub_groups", []):
        labs[group["name"]] = [(c["name"], c["status"]) for c in group["test_cases"]]
    for case in doc.get("test_cases", []):  # a lab with no points at all
        if case["name"]:  # kunit.py's stand-in for a lab that never started
            labs[case["name"]] = []
    return labs, proc.stdout


def by_ours(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        labs, order, _run = ktap.parse_text(f.read())
    # a planned point with no result line: kunit.py lists it as ('', 'ERROR')
    return {labs[n]["name"]: [(p["name"], AS_KUNIT[p["status"]]) for p in labs[n]["points"]] +
            [("", "ERROR")] * max(0, (labs[n]["plan"] or 0) - len(labs[n]["points"]))
            for n in order}


def compare(kunit_py, path):
    theirs, said = by_kunit(kunit_py, path)
    if theirs is None:
        return 2, ["kunit.py parse wrote no JSON:"] + said.splitlines()[-15:]
    ours = by_ours(path)
    diffs = []
    for name in sorted(set(theirs) | set(ours)):
        a, b = ours.get(name), theirs.get(name)
        if a != b:
            diffs.append("%s: ktap.py %s, kunit.py %s" % (name, a, b))
    return (1 if diffs else 0), diffs


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: kunit_compare.py KUNIT_PY X.ktap\n")
        return 2
    rc, lines = compare(argv[0], argv[1])
    for line in lines:
        print(line)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
