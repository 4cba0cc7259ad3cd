#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The two kernel bases' lines of lab tags, compared step by step.

    rangediff.py RANGE_DIFF FILES --top DIR --other BASE [--notes FILE]

RANGE_DIFF is the output of 'git range-diff --no-color --creation-factor=100'
of the main base's line (distro..the last lab's done tag) against the other
base's; FILES names the course file of each step, a line each, in the order
both lines apply them (kernel-steps/NAME or solutions/NAME). The other base
applies the series' patch of a step (TOP/kernel-steps/NAME) unless it has its
own (TOP/kernel-steps/BASE/NAME). For each step, one line:

  =                   the same change on both bases
  = (hunk headings)   the same change; only the function named in a hunk's
                      heading differs (a signature that changed)
  own (N lines)       the other base's own patch: range-diff shows N changed
                      lines between the two

and an error, for which the exit status is 1, when a step's change differs
and the other base has no patch of its own (its tags are stale, or were made
otherwise), when it has one that the series' change makes needless, when
the lab of an own patch has no section "## Lab NN" in the notes (FILE,
default TOP/book/bases-MAIN.md: why the bases differ there), when a lab
with no own patch has one (a note the series has made stale), or when the
two lines do not pair one to one in order. Standard library only.
"""

import argparse
import os
import re
import sys

HEAD = re.compile(r"^\s*(\d+|-):\s+[0-9a-f-]+ ([=!<>])\s+(\d+|-):\s+[0-9a-f-]+ ")


def parse(text):
    """[(left, mark, right, [body lines])] of a range-diff's output"""
    rows, cur = [], None
    for ln in text.split("\n"):
        m = HEAD.match(ln)
        if m:
            cur = (m.group(1), m.group(2), m.group(3), [])
            rows.append(cur)
        elif cur is not None and ln.startswith("    "):
            cur[3].append(ln[4:])
    return rows


def changed_lines(body):
    """The lines a range-diff body marks as changed, hunk headings aside
    (the body's own -/+ column, before the patch's)"""
    return [ln for ln in body if ln[:1] in "-+" and not ln[1:].startswith("@@ ")]


def lab_of(name):
    base = name.split("/", 1)[1]
    return base[3:5] if base.startswith("00-") else base[:2]


def own_path(top, other, name):
    kind, rest = name.split("/", 1)
    return os.path.join(top, kind, other, rest)


def compare(rows, names, top, other, noted):
    """(lines to print, number of problems)"""
    out, bad = [], 0
    for i, name in enumerate(names):
        r = rows[i] if i < len(rows) else None
        own = os.path.exists(own_path(top, other, name))
        if r is None or r[0] != str(i + 1) or r[2] != str(i + 1):
            out.append("  %-55s NOT PAIRED (range-diff: %s)" % (name, "no row" if r is None else " ".join(r[:3])))
            bad += 1
            continue
        changed = changed_lines(r[3])
        if r[1] == "=" or not changed:
            what = "=" if r[1] == "=" else "= (hunk headings)"
            if own:
                what += "  ERROR: %s/%s is not needed: the series' patch is the same change" % (
                    name.split("/")[0], other + "/" + name.split("/", 1)[1])
                bad += 1
        else:
            what = "own (%d lines)" % len(changed)
            if not own:
                what += "  ERROR: the change differs, and %s has no patch of its own" % other
                bad += 1
            elif lab_of(name) not in noted:
                what += "  ERROR: lab %s has no section '## Lab %s' in the base notes" % (lab_of(name), lab_of(name))
                bad += 1
        out.append("  %-55s %s" % (name, what))
    owned = {lab_of(n) for n in names if os.path.exists(own_path(top, other, n))}
    for lab in sorted(set(noted) - owned):
        out.append("  ERROR: the base notes have a section '## Lab %s', and every step of lab %s is "
                   "the series' change on both bases: drop it, or say why in the lab's README" % (lab, lab))
        bad += 1
    for r in rows[len(names):]:
        out.append("  %-55s NOT PAIRED (range-diff: %s)" % ("(no course file)", " ".join(r[:3])))
        bad += 1
    nown = sum(1 for n in names if os.path.exists(own_path(top, other, n)))
    out.append("range-diff: %d steps, %d the series' change on both bases, %d with %s's own patch, %d problems"
               % (len(names), len(names) - nown, nown, other, bad))
    return out, bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("range_diff")
    ap.add_argument("files")
    ap.add_argument("--top", required=True)
    ap.add_argument("--other", required=True)
    ap.add_argument("--notes")
    a = ap.parse_args(argv)
    with open(a.range_diff) as fh:
        rows = parse(fh.read())
    with open(a.files) as fh:
        names = fh.read().split()
    noted = set()
    if a.notes and os.path.exists(a.notes):
        with open(a.notes) as fh:
            noted = set(re.findall(r"^## Lab (\d\d)$", fh.read(), re.M))
    out, bad = compare(rows, names, a.top, a.other, noted)
    print("\n".join(out))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
