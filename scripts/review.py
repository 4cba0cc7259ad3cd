#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The patch review: a submission's patches read as a kernel maintainer
reads them, beside (never inside) the kernel's points.

  review.py run PLAN_DIR LAB CHECKPATCH_DIR OUT.json [--files=LIST] [--not-applied]
      PLAN_DIR is what gradelib.py prepare wrote (plan.json, NNNN.diff and,
      for a patch that came as a mail, NNNN.msg and NNNN.mail).
      CHECKPATCH_DIR holds the base's scripts/checkpatch.pl (with its
      spelling.txt and const_structs.checkpatch), taken from the kernel
      tree's 'distro' tag: the course's copy, never the submission's.
      --files=LIST: what the submission changed once applied, a path a
      line (the scope item reads it); --not-applied: it did not apply
      (reported, no style points).
  review.py report REVIEW.json    the review as the report prints it

Five items, each passed or not, for the whole series:

  checkpatch   checkpatch.pl --strict finds no ERROR and no WARNING about
               the commit message in any patch (its other WARNINGs and its
               CHECKs are listed, not counted: the kernel's own code, which
               a lab's answer puts back, has some)
  signed-off   every patch has a Signed-off-by: Name <address> line
  subject      every subject starts with a subsystem prefix ("userns: ",
               "fs/exec: ", "proc, sysfs: "; not "Fix: ", "WIP: ", "lab 1: ")
               and says something after it
  message      every patch has a body that says more than its subject (five
               words or more, its closing trailers not counted)
  scope        the submission changes only the lab's files (lab.conf FILES,
               or USERSPACE for a user-space lab), as applied

The score is STYLE_POINTS (lab.conf, 0 by default) times the share of
items passed: a separate, optional score, never added to the kernel's.
A bare diff (no mail) carries no message: its message items fail, and the
review says how to send one (git format-patch).

checkpatch.pl is a program of the course's, reading the submission as
data, under a time limit; nothing of the submission runs here.
"""

import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import labconf  # noqa: E402

ITEMS = ("checkpatch", "signed-off", "subject", "message", "scope")
# checkpatch's types about the commit message rather than the code
MESSAGE_TYPES = re.compile(r"^(COMMIT_\w+|GIT_COMMIT_ID|EMAIL_SUBJECT|BAD_SIGN_OFF|"
                           r"BAD_\w+_TAG|NO_AUTHOR_SIGN_OFF|FROM_SIGN_OFF_MISMATCH|"
                           r"BAD_STABLE_ADDRESS_STYLE|BAD_REPORTED_BY_LINK)$")
# checkpatch without the kernel's history cannot know any commit id: its
# guess would be wrong for every one (the tree here is Debian's source)
IGNORED_TYPES = ("UNKNOWN_COMMIT_ID",)
CHECKPATCH_LINE = re.compile(r"^(?:[^:\n]*:\d+: )?(ERROR|WARNING|CHECK):([A-Z0-9_]+): (.*)$")
SIGNED_OFF = re.compile(r"^Signed-off-by: *[^<>\s][^<>]*<[^<>@\s]+@[^<>\s]+>\s*$", re.M | re.I)
TRAILER = re.compile(r"^[A-Za-z][A-Za-z0-9-]*: \S")
# "[PATCH v2 3/7] " and the like, then "subsys: ", "subsys/part: " or
# "proc, sysfs: " (a prefix has no sentence in it: "lab 1: " is none)
SUBJECT_TAGS = re.compile(r"^(\s*\[[^]]*\])+\s*")
# (words that are no subsystem: "Fix: ...", "WIP: ...", "lab 1: ..." say
# nothing of where the change is)
NOT_SUBSYSTEMS = re.compile(r"^(fix(es|ed)?|bug(fix)?|wip|todo|tmp|temp|draft|test(s|ing)?|"
                            r"hack|update[sd]?|change[sd]?|patch(es)?|feat(ure)?|chore|"
                            r"refactor|done|solution|answer|homework|hw|lab ?[0-9]*|"
                            r"step ?[0-9]*|misc|minor|cleanup)$", re.I)
WORD = r"[A-Za-z0-9_][A-Za-z0-9_./+-]*"
PREFIX = re.compile(r"^%s(, %s)*(: %s(, %s)*)*: \S" % (WORD, WORD, WORD, WORD))
CHECKPATCH_TIMEOUT = 120
# the whole review's checkpatch time, and the patches it reads at most
REVIEW_BUDGET = 300
MAX_PATCHES = 50
MAX_LINES = 12  # checkpatch lines kept per patch


def read_text(path, limit=1 << 20):
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def subject_text(subject):
    return SUBJECT_TAGS.sub("", subject or "").strip()


def body_lines(message):
    """The commit message's own lines: not empty, and not its trailers (the
    last paragraph, when every line of it is a "Token: value" line)."""
    paras = [p for p in re.split(r"\n\s*\n", (message or "").strip()) if p.strip()]
    if paras and all(TRAILER.match(x.strip()) for x in paras[-1].splitlines() if x.strip()):
        paras = paras[:-1]
    return [x.strip() for p in paras for x in p.splitlines() if x.strip()]


def diffstat(diff, p=1):
    """[(path, added, removed)] of a diff, as git apply --numstat -pP reads
    it (a binary file counts 0 and 0); [] when git cannot read it."""
    r = subprocess.run(["git", "apply", "--numstat", "-z", "-p%d" % p, "-"],
                       input=diff.encode("utf-8", "surrogateescape"), stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, check=False)
    if r.returncode != 0:
        return []
    out = []
    for rec in r.stdout.split(b"\0"):
        f = rec.split(b"\t", 2)
        if len(f) == 3 and f[2]:
            num = [int(x) if x.isdigit() else 0 for x in (f[0].decode(), f[1].decode())]
            out.append((f[2].decode("utf-8", "surrogateescape"), num[0], num[1]))
    return out


def checkpatch(cp_dir, path):
    """checkpatch.pl --strict on PATH: (errors, message warnings, other
    warnings, checks, lines, error text or None)."""
    script = os.path.join(cp_dir, "checkpatch.pl")
    cmd = ["perl", script, "--strict", "--no-tree", "--no-signoff", "--terse", "--show-types",
           "--color=never", "--max-line-length=100"]
    for t in IGNORED_TYPES:
        cmd += ["--ignore", t]
    try:
        r = subprocess.run(cmd + [path], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=CHECKPATCH_TIMEOUT, check=False,
                           cwd=cp_dir, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                                            "LANG": "C.UTF-8", "HOME": cp_dir})
    except subprocess.TimeoutExpired:
        return 0, 0, 0, 0, [], "checkpatch.pl ran out of its %d s" % CHECKPATCH_TIMEOUT
    except OSError as e:
        return 0, 0, 0, 0, [], "checkpatch.pl could not run: %s" % e
    errors = mwarn = warn = checks = 0
    lines = []
    for line in r.stdout.decode("utf-8", "replace").splitlines():
        m = CHECKPATCH_LINE.match(line)
        if not m:
            continue
        level, typ, text = m.groups()
        if level == "ERROR":
            errors += 1
        elif level == "WARNING" and MESSAGE_TYPES.match(typ):
            mwarn += 1
        elif level == "WARNING":
            warn += 1
        else:
            checks += 1
        # the file name is the grader's own: the line number is what counts
        where = line.split(": ", 1)[0].rsplit(":", 1)[-1] if ": " + level in line else ""
        lines.append("%s%s:%s: %s" % ("line " + where + ": " if where.isdigit() else "",
                                      level, typ, text))
    if r.returncode not in (0, 1) or (r.returncode == 1 and not lines):
        tail = r.stdout.decode("utf-8", "replace").strip().splitlines()[-2:]
        return errors, mwarn, warn, checks, lines, "checkpatch.pl failed (exit %d): %s" % (
            r.returncode, " ".join(tail))
    return errors, mwarn, warn, checks, lines, None


def review(plan_dir, lab, cp_dir, tree_files=None, applied=True):
    """The review of PLAN_DIR's patches for LAB. TREE_FILES, when given, is
    what the submission changed once applied (the scope item reads it: a
    repository's merges and older commits are in it, not in its mails).
    APPLIED False (the patches did not apply): the review is made and
    reported, and earns no style points."""
    started = time.time()
    with open(os.path.join(plan_dir, "plan.json"), encoding="utf-8") as f:
        plan = json.load(f)
    scope = (labconf.get(lab, "USERSPACE") or labconf.get(lab, "FILES")).split()
    points = float(labconf.get(lab, "STYLE_POINTS"))
    patches = []
    stat = {}
    stat_order = []
    # a patch is named by its file, and by its place when one file (an
    # mbox) holds several
    per_file = {}
    for p in plan.get("patches", []):
        per_file[p.get("source", "")] = per_file.get(p.get("source", ""), 0) + 1
    seen = {}
    for p in plan.get("patches", []):
        src = p.get("source", "")
        seen[src] = seen.get(src, 0) + 1
        label = src if per_file[src] == 1 else "%s, patch %d" % (src, seen[src])
        base = os.path.join(plan_dir, p["diff"][:-5])
        msg = read_text(base + ".msg")
        mail = base + ".mail"
        is_mail = msg is not None and os.path.exists(mail)
        with open(os.path.join(plan_dir, p["diff"]), "rb") as fh:
            diff = fh.read(64 << 20).decode("utf-8", "surrogateescape")
        for path, a, d in diffstat(diff, p.get("p", 1)):
            if path not in stat:
                stat[path] = [0, 0]
                stat_order.append(path)
            stat[path][0] += a
            stat[path][1] += d
        if len(patches) >= MAX_PATCHES or time.time() - started > REVIEW_BUDGET:
            e = mw = w = c = 0
            lines = []
            fault = "not checked: the review reads %d patches in %d s at most" % (
                MAX_PATCHES, REVIEW_BUDGET)
        else:
            e, mw, w, c, lines, fault = checkpatch(cp_dir, mail if is_mail else
                                                   os.path.join(plan_dir, p["diff"]))
        subj = subject_text(p.get("subject", ""))
        body = body_lines(msg) if is_mail else []
        patches.append({
            "source": label, "subject": p.get("subject", ""), "mail": is_mail,
            "signed_off": bool(is_mail and SIGNED_OFF.search(msg)),
            "prefix": bool(is_mail and PREFIX.match(subj)) and not NOT_SUBSYSTEMS.match(
                subj.split(":", 1)[0].strip()),
            "body_words": len(" ".join(body).split()),
            "body_says_more": bool(body) and " ".join(body).strip(" .").lower() != subj.strip(" .").lower()
            and len(" ".join(body).split()) >= 5,
            "checkpatch": {"errors": e, "message_warnings": mw, "warnings": w, "checks": c,
                           "lines": lines[:MAX_LINES], "more": max(0, len(lines) - MAX_LINES),
                           "fault": fault}})
    files = [{"path": x, "added": stat[x][0], "removed": stat[x][1], "in_scope": x in scope}
             for x in stat_order]
    items = []
    n = len(patches)
    bare = [x["source"] for x in patches if not x["mail"]]
    bare_why = ("%s: a bare diff has no commit message (send 'git format-patch' output)"
                % ", ".join(bare[:3])) if bare else ""

    def item(name, ok, detail):
        items.append({"name": name, "ok": bool(ok and n), "detail": detail if n else "no patch"})

    bad = [x for x in patches if x["checkpatch"]["errors"] or x["checkpatch"]["message_warnings"]
           or x["checkpatch"]["fault"]]
    item("checkpatch", not bad,
         "no ERROR and no commit-message WARNING in %d patch%s" % (n, "" if n == 1 else "es")
         if not bad else "; ".join(
             "%s: %s" % (x["source"], x["checkpatch"]["fault"] or "%d ERROR, %d message WARNING" % (
                 x["checkpatch"]["errors"], x["checkpatch"]["message_warnings"]))
             for x in bad[:3]))
    miss = [x["source"] for x in patches if not x["signed_off"]]
    item("signed-off", not miss, "every patch is signed off" if not miss else
         "no Signed-off-by: Name <address> in " + ", ".join(miss[:5]) +
         (" (git commit -s adds it)" if not bare else ""))
    miss = [x for x in patches if not x["prefix"]]
    item("subject", not miss, "every subject has a subsystem prefix" if not miss else "; ".join(
        "%s: %s" % (x["source"], "no subject (a bare diff)" if not x["mail"] else
                    "'%s' has no 'subsystem: ' prefix (as in 'userns: ...')" % subject_text(
                        x["subject"])[:60]) for x in miss[:3]))
    miss = [x for x in patches if not x["body_says_more"]]
    why = [bare_why] if bare_why else []
    why += ["%s: %s" % (x["source"], "no body below the subject" if not x["body_words"]
                        else "a body of %d word%s says no more than the subject" % (
                            x["body_words"], "" if x["body_words"] == 1 else "s"))
            for x in miss[:3] if x["mail"]]
    item("message", not miss, "every patch says why in its body" if not miss else "; ".join(why))
    changed = tree_files if tree_files is not None else [x["path"] for x in files]
    out = [x for x in changed if x not in scope]
    item("scope", not out and scope, "only the lab's files: " + " ".join(scope) if not out else
         "outside the lab's files (%s): %s" % (" ".join(scope), " ".join(out[:8])))
    passed = sum(1 for x in items if x["ok"])
    return {"lab": "%02d" % int(lab), "patches": patches, "files": files, "scope": scope,
            "items": items, "passed": passed, "of": len(items), "applied": bool(applied),
            "points": round(points * passed / len(items), 2) if points and applied else 0.0,
            "max": points}


def report_lines(rv):
    """The report's section (report.txt)."""
    out = ["patch review (a maintainer's reading; %s):" % (
        "not scored: STYLE_POINTS is 0" if not rv["max"] else
        "style %.2f / %g, apart from the kernel's score" % (rv["points"], rv["max"])
        if rv.get("applied", True) else
        "style 0 / %g: the patches do not apply" % rv["max"])]
    for it in rv["items"]:
        out.append("  %-4s %-11s %s" % ("ok" if it["ok"] else "no", it["name"], it["detail"]))
    if rv["files"]:
        out.append("  diffstat:")
        for f in rv["files"]:
            out.append("    %-40s | +%d -%d%s" % (f["path"], f["added"], f["removed"],
                                                   "" if f["in_scope"] else "  (outside the lab)"))
    for p in rv["patches"]:
        cp = p["checkpatch"]
        if not (cp["lines"] or cp["fault"]):
            continue
        out.append("  checkpatch.pl --strict, %s: %d error(s), %d message warning(s), "
                   "%d other warning(s), %d check(s)" % (p["source"], cp["errors"],
                                                         cp["message_warnings"], cp["warnings"],
                                                         cp["checks"]))
        if cp["fault"]:
            out.append("    " + cp["fault"])
        out.extend("    " + x for x in cp["lines"])
        if cp["more"]:
            out.append("    (and %d more)" % cp["more"])
    return out


def main(argv):
    if len(argv) >= 5 and argv[0] == "run" and all(
            a.startswith(("--files=", "--not-applied")) for a in argv[5:]):
        files = None
        for a in argv[5:]:
            if a.startswith("--files="):
                with open(a[len("--files="):], encoding="utf-8", errors="surrogateescape") as f:
                    files = [x for x in f.read().split("\n") if x]
        rv = review(argv[1], int(argv[2]), argv[3], files, "--not-applied" not in argv[5:])
        with open(argv[4], "w", encoding="utf-8") as f:
            json.dump(rv, f, indent=1)
            f.write("\n")
        return 0
    if len(argv) == 2 and argv[0] == "report":
        with open(argv[1], encoding="utf-8") as f:
            print("\n".join(report_lines(json.load(f))))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
