#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The grader's data half: what a submission is, which of its patches to
apply and in what order, what it changed, what it scored, and the report,
JSON, CSV and TAP files. scripts/grade.sh keeps git, the build and the boot,
and calls this for everything else (the model is xv6's gradelib.py).

  gradelib.py safe-id NAME            the id of a results folder, ref, label
  gradelib.py entries DIR             a class: "PATH\\0NAME\\0ID\\0" per entry
  gradelib.py prepare SUB OUTDIR      read SUB, write OUTDIR/plan (see below)
  gradelib.py points LAB              the check's points: "NAME WEIGHT KIND"
  gradelib.py finish FACTS OUTDIR     score and write the result files
  gradelib.py csv-header LAB          the class summary's header line
  gradelib.py junit RESULTS.json      JUnit XML of one result
  gradelib.py markdown RESULTS.json.. a Markdown table of results (CI job summaries)
  gradelib.py verdict RESULTS.json..  exit 0 when every result is PASS, else 1
  gradelib.py classroom RESULTS.json  GitHub Classroom's result of it, base64
                                      (its grading reporter's RUNNER_RESULTS)
  gradelib.py matrix DIR              a class as a JSON list of {path, name, id}
  gradelib.py summary LAB DIR RESULTS a class's summary.csv from its results,
                                      RESULTS/ID/ or RESULTS/result-ID/*/ each
  gradelib.py summary-table CSV       a summary.csv as an aligned table for a
                                      terminal, control characters escaped

Nothing here runs a submission, and no name or path a student chose reaches
a shell: names become ids (safe_id) before they name anything.
"""

import contextlib
import hashlib
import io
import json
import os
import re
import subprocess
import sys
from xml.sax.saxutils import escape as xml_escape, quoteattr

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import ktap  # noqa: E402  (scripts/ktap.py, beside this file)
import labconf  # noqa: E402  (scripts/labconf.py: a lab's declarations)


labs_dir = labconf.labs_dir


# --- names -----------------------------------------------------------------

# What the grader itself writes in the results folder beside the
# submissions' ID/ folders (summary.csv), and names kept for it: no id is
# ever one of them, in any case, nor starts with '.' or ends in '.lock'.
# (GRADE_OUT may be the grading folder itself: its own folders are kept too.)
RESERVED_IDS = frozenset(("summary", "report.txt", "results.json", "results.csv", "results.tap",
                          "results.xml", "results", "kernels", "lanes", "linux", "obj", "course",
                          "guest", "guest-user", "slurm", "checkpatch"))
RESERVED_ID = re.compile(r"^summary\.[A-Za-z0-9.]*$", re.I)  # summary.csv, summary.csv.tmp


def reserved_id(i):
    """True when I would name a file or folder the grader keeps for itself."""
    return i.lower() in RESERVED_IDS or bool(RESERVED_ID.match(i))


def safe_id(name):
    """A submission's name (anything a student can type) as an identifier
    made of [A-Za-z0-9._-], starting with a letter or a digit, never
    '*.lock', never a name the grader keeps for itself (RESERVED_IDS:
    summary.csv, ...), at most 48 characters before a hash. A name that
    had to change gets the first 8 hex digits of its SHA-1, so two names
    never share an id."""
    raw = name.encode("utf-8", "surrogateescape") if isinstance(name, str) else name
    s = "".join(chr(b) if (chr(b).isascii() and (chr(b).isalnum() or chr(b) in "._-")) else "_"
                for b in raw)
    s = re.sub(r"\.\.+", ".", s)
    s = re.sub(r"^[._-]*", "", s)
    s = re.sub(r"\.lock$", "_lock", s)
    s = re.sub(r"\.$", "_", s)
    s = s[:48]
    if not s or s.encode() != raw or reserved_id(s):
        s = (s or "submission") + "-" + hashlib.sha1(raw).hexdigest()[:8]
    return s


def natural_key(s):
    """Version order: 9.patch before 10.patch, 0002 before 0010."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t)
            for t in re.split(r"([0-9]+)", s) if t != ""]


def entry_name(path, siblings):
    """A class entry's name: alice.patch is alice, unless alice is there too."""
    n = os.path.basename(path.rstrip("/"))
    if n.endswith(".patch") and n[:-len(".patch")] and n[:-len(".patch")] not in siblings:
        return n[:-len(".patch")]
    return n


def entries(d):
    """[(path, name, id)] of a class folder: one entry per file or folder,
    in version order. Each entry's id is its own, even for alice/ and
    alice.patch side by side."""
    names = sorted(os.listdir(d), key=natural_key)
    out, used = [], set()
    for n in names:
        name = entry_name(n, set(names))
        i = safe_id(name)
        if i in used:  # never two entries in one folder
            i = safe_id(n) if safe_id(n) not in used else i + "-" + hashlib.sha1(
                n.encode("utf-8", "surrogateescape")).hexdigest()[:8]
        used.add(i)
        out.append((os.path.join(d, n), name, i))
    return out


# --- what a submission is ----------------------------------------------------

PATCH_EXT = (".patch", ".diff", ".mbox", ".eml", ".patch.txt", ".diff.txt")
DIFF_LINE = re.compile(rb"^(diff --git |--- \S|\+\+\+ \S|Index: )", re.M)
MAIL_HEAD = re.compile(rb"^(From [0-9a-f]{40} |From: |Subject: |Date: |Message-I[Dd]: |"
                       rb"Content-Type: |MIME-Version: |Return-Path: |Received: )")
SUBJECT_N = re.compile(r"\[[^]]*?PATCH[^]]*?\s0*([0-9]+)/([0-9]+)\s*\]")


MAX_BYTES = 64 << 20  # a patch, an mbox, or a folder's patches in all: GRADE_MAX_BYTES


def max_bytes():
    """The most bytes of patches read for one submission: MAX_BYTES, or
    GRADE_MAX_BYTES from the environment (a number of bytes)."""
    v = os.environ.get("GRADE_MAX_BYTES", "").strip()
    if v:
        if re.match(r"^[0-9]+$", v) and int(v) > 0:
            return int(v)
        sys.stderr.write("gradelib: GRADE_MAX_BYTES=%r is not a number of bytes: using %d\n"
                         % (v, MAX_BYTES))
    return MAX_BYTES


def human_bytes(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return "%.1f %s" % (n / float(1 << shift), unit)
    return "%d bytes" % n


def too_large(what, size, limit, verb="is"):
    """The detail of a TOO_LARGE result: what, its size and the limit."""
    return ("%s %s %d bytes (%s), more than the grader reads: the limit is %d bytes (%s, "
            "GRADE_MAX_BYTES); nothing of it was read" %
            (what, verb, size, human_bytes(size), limit, human_bytes(limit)))


def read_bytes(path, limit=None):
    """A file's bytes, at most LIMIT of them (all when LIMIT is None)."""
    with open(path, "rb") as f:
        return f.read() if limit is None else f.read(limit)


def looks_like_mail(data):
    head = data.lstrip(b"\n")[:4096].split(b"\n")
    return bool(head) and bool(MAIL_HEAD.match(head[0]))


def is_git_dir(path):
    if os.path.exists(os.path.join(path, ".git")):
        return True
    return all(os.path.exists(os.path.join(path, x)) for x in ("HEAD", "objects", "refs"))


def classify(path):
    """(kind, status, detail): kind is missing, repo, bundle, patchdir or
    file; status is '' (go on) or a named result."""
    if not os.path.lexists(path):
        return "missing", "NO_SUBMISSION", "%s does not exist" % path
    if os.path.isdir(path):
        if is_git_dir(path):
            return "repo", "", ""
        return "patchdir", "", ""
    if not os.path.isfile(path):
        return "file", "NOT_A_PATCH", "%s is not a regular file" % path
    if re.match(rb"# v[23] git bundle", read_bytes(path, 16)):
        return "bundle", "", ""  # its diff is what is read (prepare), never the bundle
    size, limit = os.path.getsize(path), max_bytes()
    if size > limit:
        return "file", "TOO_LARGE", too_large("the submission", size, limit)
    data = read_bytes(path, limit + 1)
    if not data.strip():
        return "file", "EMPTY", "the submission is an empty file"
    if b"\0" in data:
        return "file", "NOT_A_PATCH", "the file is not a patch (binary data in it)"
    return "file", "", ""


def find_patches(d, depth=3):
    """(patches, skipped) of a folder: patch files up to DEPTH folders down
    (.git and hidden folders left out), in version order; a *.txt counts
    when it holds a diff. skipped: files that were not read, by name."""
    found, skipped = [], []
    base = d.rstrip("/")
    for root, dirs, files in os.walk(base):
        rel = os.path.relpath(root, base)
        level = 0 if rel == "." else rel.count(os.sep) + 1
        dirs[:] = [x for x in dirs if not x.startswith(".")] if level < depth else []
        for f in files:
            p = os.path.join(root, f)
            r = os.path.relpath(p, base)
            if not os.path.isfile(p) or f.startswith("."):
                continue
            # a link in a student's folder is read only when it stays in
            # the folder: the grader reads as root, and a link to another
            # student's patch or a file of root's is not this submission
            if os.path.islink(p) and not os.path.realpath(p).startswith(
                    os.path.realpath(base) + os.sep):
                skipped.append(r + " (a link to outside the folder: not read)")
                continue
            low = f.lower()
            if low.endswith(PATCH_EXT):
                found.append(r)
            elif low.endswith(".txt") and DIFF_LINE.search(read_bytes(p, 1 << 20)):
                found.append(r)
            else:
                skipped.append(r)
    found.sort(key=natural_key)
    skipped.sort(key=natural_key)
    return [os.path.join(base, r) for r in found], skipped


def git(*args, data=None, cwd=None):
    """git ARGS, its paths never quoted ("fs/na\\303\\257ve.c" is fs/naïve.c)."""
    return subprocess.run(("git", "-c", "core.quotePath=false") + args, input=data, cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)


def split_mails(data, tmp):
    """The messages of a mail or an mbox, each as (subject, author, diff,
    message, mail), decoded as git am decodes them (quoted-printable,
    base64, charsets): MESSAGE is the commit message's body (below the
    subject), MAIL the message as it came (for checkpatch.pl)."""
    import tempfile
    tmp = tempfile.mkdtemp(dir=tmp)
    src = os.path.join(tmp, "mbox")
    with open(src, "wb") as f:
        f.write(data)
    mdir = os.path.join(tmp, "mails")
    os.makedirs(mdir)
    r = git("mailsplit", "-b", "-o" + mdir, src)
    if r.returncode != 0:
        return None
    out = []
    for m in sorted(os.listdir(mdir), key=natural_key):
        msg, patch = os.path.join(tmp, "msg"), os.path.join(tmp, "patch")
        with open(os.path.join(mdir, m), "rb") as f:
            mail = f.read()
        r = git("mailinfo", "-k", msg, patch, data=mail)
        if r.returncode != 0:
            continue
        head = r.stdout.decode("utf-8", "replace")
        subject = next((x[len("Subject: "):] for x in head.splitlines()
                        if x.startswith("Subject: ")), "")
        author = next((x[len("Author: "):] for x in head.splitlines()
                       if x.startswith("Author: ")), "")
        out.append((subject, author, read_bytes(patch), read_bytes(msg), mail))
    return out


def numstat(diff, p):
    """The paths a diff touches with -pP, or None when git cannot read it:
    each as it is in the tree, whatever its bytes (a quoted name in the
    diff, "fs/na\\303\\257ve.c", is fs/naïve.c; -z: never quoted), as str
    with surrogateescape for bytes that are not UTF-8 (os.fsencode gives
    them back)."""
    r = git("apply", "--numstat", "-z", "-p%d" % p, "-", data=diff)
    if r.returncode != 0:
        return None
    paths = []
    for rec in r.stdout.split(b"\0"):
        f = rec.split(b"\t", 2)
        if len(f) == 3 and f[2]:
            paths.append(f[2].decode("utf-8", "surrogateescape"))
    return paths


def strip_level(diff, exists, tree_files=()):
    """(p, paths, note, hint): -p1 as git am uses, unless -p0 names real
    files of the tree and -p1 does not (diff -u fs/exec.c.orig fs/exec.c),
    or only -p0 can be read. hint: when no level names a file of the tree
    but the paths are those of files under one folder of it (a diff made
    inside fs/), what to do (path_hint), else ''."""
    p1, p0 = numstat(diff, 1), numstat(diff, 0)
    if p1 is None and p0 is None:
        return None, [], "", ""
    hit1 = sum(1 for x in p1 or [] if exists(x))
    hit0 = sum(1 for x in p0 or [] if exists(x))
    hint = path_hint((p1 or []) + (p0 or []), tree_files) if not hit0 and not hit1 else ""
    if p0 is not None and (hit0 > hit1 or p1 is None):
        return 0, p0, "paths from the top of the tree: applied with -p0" if hit0 else \
            "applied with -p0: git cannot read its paths with -p1", hint
    return 1, p1 or [], "", hint


PATH_HINT = "the paths look relative to"


def path_hint(paths, tree_files):
    """'' or what to say when PATHS name no file of the tree but name files
    under some folder of it (exec.c for fs/exec.c: a diff made in fs/)."""
    by_name = {}
    for f in tree_files:
        by_name.setdefault(f.rsplit("/", 1)[-1], []).append(f)
    count, example = {}, {}
    for x in dict.fromkeys(paths):
        x = x.lstrip("/")
        for f in by_name.get(x.rsplit("/", 1)[-1], []):
            if f.endswith("/" + x):
                d = f[:-len(x)]
                count[d] = count.get(d, 0) + 1
                example.setdefault(d, (x, f))
    if not count:
        return ""
    best = max(count.values())
    dirs = sorted(d for d, n in count.items() if n == best)
    x, f = example[dirs[0]]
    return ("%s %s (%s is %s): make the diff from the top of the kernel tree (git diff, or "
            "diff -u from the tree's top)" % (PATH_HINT, " or ".join(dirs[:3]), x, f))


def prepare(sub, outdir, tree_files=None):
    """Read SUB (a patch, an mbox, a folder of patches) into OUTDIR:
    NNNN.diff, one per patch with a diff, in order, and the plan:

      plan.json  {"status", "detail", "patches": [{"diff", "p", "subject",
                  "source", "paths"}], "notes": [...], "skipped": [...],
                  "hints": [...]}

    and, for a patch that came as a mail, NNNN.msg (its commit message
    below the subject) and NNNN.mail (the mail as it came).

    A patch without a diff (a cover letter) is skipped and noted; a patch
    whose paths are relative to a folder of the tree gets a hint (also a
    note). More than max_bytes() of patches is TOO_LARGE, never read."""
    os.makedirs(outdir, exist_ok=True)
    tmp = os.path.join(outdir, "tmp")
    os.makedirs(tmp, exist_ok=True)
    if tree_files is None:
        tree_files = set()
    exists = tree_files.__contains__
    plan = {"status": "", "detail": "", "patches": [], "notes": [], "skipped": [], "hints": []}
    if os.path.isdir(sub):
        files, skipped = find_patches(sub)
        plan["skipped"] = skipped
        if not files:
            plan["status"] = "EMPTY"
            plan["detail"] = "no patch in %s (looked for *.patch, *.diff, *.mbox, *.eml and " \
                             "*.txt holding a diff, up to 3 folders down)" % sub
            if skipped:
                plan["detail"] += "; files there: " + ", ".join(skipped[:10])
            return plan
    else:
        files = [sub]
    # never read whole what is too large to grade (a 1.5 GB patch)
    limit = max_bytes()
    sizes = [os.path.getsize(f) for f in files]
    if sum(sizes) > limit:
        plan["status"] = "TOO_LARGE"
        if os.path.isdir(sub):
            big = sorted(zip(sizes, files), reverse=True)[:3]
            plan["detail"] = too_large("the patches of %s (%d file%s)" % (
                sub, len(files), "" if len(files) == 1 else "s"), sum(sizes), limit,
                "are") + "; the largest: " + ", ".join(
                "%s (%s)" % (os.path.relpath(f, sub), human_bytes(n)) for n, f in big)
        else:
            plan["detail"] = too_large("the submission's diff", sizes[0], limit)
        return plan
    items = []  # (order key, source, subject, author, diff, message, mail)
    numbered = []
    total = 0
    for idx, f in enumerate(files):
        data = read_bytes(f, limit + 1 - total)
        total += len(data)
        if total > limit:  # grown since it was measured
            plan.update(status="TOO_LARGE", patches=[], detail="the submission grew past the "
                        "limit of %d bytes (%s, GRADE_MAX_BYTES) while it was read" %
                        (limit, human_bytes(limit)))
            return plan
        data = data.replace(b"\r\n", b"\n")
        src = os.path.relpath(f, sub) if os.path.isdir(sub) else os.path.basename(f)
        if b"\0" in data:
            plan["notes"].append("%s: binary data, not read" % src)
            continue
        if looks_like_mail(data):
            mails = split_mails(data, tmp) or []
            for j, (subject, author, diff, message, mail) in enumerate(mails):
                m = SUBJECT_N.search(subject)
                numbered.append(bool(m))
                key = (int(m.group(1)) if m else 0, idx, j)
                items.append((key, src, subject, author, diff, message, mail))
        else:
            numbered.append(False)
            items.append(((0, idx, 0), src, "", "", data, None, None))
    # [PATCH n/m] numbers order a series when every message has one
    if items and all(numbered) and len(files) > 1:
        items.sort(key=lambda x: x[0])
        plan["notes"].append("ordered by the [PATCH n/m] numbers of the subjects")
    else:
        items.sort(key=lambda x: (x[0][1], x[0][2]))
    n = 0
    for _key, src, subject, _author, diff, message, mail in items:
        if not DIFF_LINE.search(diff):
            plan["skipped"].append("%s%s: no diff in it (a cover letter?)" %
                                   (src, " (" + subject + ")" if subject else ""))
            continue
        p, paths, note, hint = strip_level(diff, exists, tree_files)
        if p is None:
            plan["notes"].append("%s: git cannot read its diff" % src)
            continue
        if hint:
            plan["hints"].append("%s: %s" % (src, hint))
            plan["notes"].append("%s: %s" % (src, hint))
        n += 1
        name = "%04d.diff" % n
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(diff)
        # a mail's commit message and the mail itself (the patch review
        # reads them: review.py); a bare diff has neither
        if mail is not None:
            with open(os.path.join(outdir, name[:-5] + ".msg"), "wb") as f:
                f.write(message)
            with open(os.path.join(outdir, name[:-5] + ".mail"), "wb") as f:
                f.write(mail)
        if note:
            plan["notes"].append("%s: %s" % (src, note))
        plan["patches"].append({"diff": name, "p": p, "subject": subject, "source": src,
                                "paths": paths})
    if not plan["patches"] and not plan["status"]:
        plan["status"] = "NOT_A_PATCH"
        plan["detail"] = "the submission has no diff that git can read"
        if plan["skipped"]:
            plan["detail"] += " (" + "; ".join(plan["skipped"][:5]) + ")"
    return plan


# --- a lab's declarations ----------------------------------------------------

lab_path = labconf.lab_path


def lab_conf(lab):
    """lab.conf as a dict, as written (scripts/labconf.py reads it: the
    one reader of a lab's declarations)."""
    return labconf.read(lab) if lab_path(lab) else {}


def check_points(lab):
    """[(name, weight, kind)] of a lab's check, in order: scripts/labconf.py
    points(), which explains the '#@' declarations; a ValueError for a
    point the scorer could not see."""
    p = lab_path(lab)
    return labconf.points(p) if p else []


# --- scores ------------------------------------------------------------------

def point_results(text, labs, missing="MISSING"):
    """(parsed, res, {lab: (status, {point name: status})}) of a results
    channel, as score() takes them; a lab with no result is MISSING."""
    parsed, res = ktap.results(text, labs) if text else ({}, {})
    out = {k: (res.get(k, (missing, 0, 0))[0],
               {p["name"]: p["status"] for p in parsed.get(k, {"points": []})["points"]})
           for k in labs}
    return parsed, res, out


REGRESSION_SHARE = 0.25  # of the lab's points, for each earlier lab it broke


def score(lab, labs_results):
    """The lab's score from its own points only.

    labs_results: {"NN": (status, {point name: status})}. The points of lab
    LAB that are not guards earn POINTS in proportion to their weights.
    A failed guard of LAB gates the score to 0. Each earlier lab that no
    longer passes (a regression: at lab-NN-start every earlier lab passes)
    costs REGRESSION_SHARE of the lab's points. Never below 0, never above
    the lab's POINTS, whatever the guest printed."""
    n = "%02d" % int(lab)
    conf = lab_conf(n)
    maxp = float(conf.get("POINTS", "10") or 10)
    pts = check_points(n)
    st, got = labs_results.get(n, ("MISSING", {}))
    own = [(name, w) for name, w, kind in pts if kind == "point"]
    # a point the check skipped cannot be earned here (a point of one
    # kernel base only): it is not counted, neither won nor lost
    skipped = [name for name, _w in own if got.get(name) == "SKIP"]
    own = [(name, w) for name, w in own if name not in skipped]
    guards = [name for name, _w, kind in pts if kind == "guard"]
    total_w = sum(w for _n, w in own) or 1.0
    won_w = sum(w for name, w in own if got.get(name) == "PASS")
    raw = maxp * won_w / total_w
    broken = [g for g in guards if got.get(g) not in ("PASS", "SKIP", "XFAIL")]
    regressed = sorted(k for k, (s, _p) in labs_results.items() if k < n and s != "PASS")
    penalty = round(maxp * REGRESSION_SHARE * len(regressed), 2)
    gated = bool(broken)
    value = 0.0 if gated else max(0.0, raw - penalty)
    value = min(value, maxp)
    why = []
    why.append("lab %s's own points: %g of %g weighted point(s) passed" %
               (n, won_w, total_w if own else 0))
    if skipped:
        why.append("skipped by the check on this kernel, not counted: " + ", ".join(skipped))
    if guards:
        why.append("guards: %d of %d hold" % (len(guards) - len(broken), len(guards)))
    if gated:
        why.append("GATED to 0: guard point(s) broken, which pass before any change: " +
                   ", ".join(broken))
    if regressed:
        why.append("penalty -%.2f: earlier lab(s) no longer pass: %s (%d%% of the points each)"
                   % (penalty, " ".join(regressed), int(REGRESSION_SHARE * 100)))
    return {"score": round(value, 2), "max": maxp, "earned": round(raw, 2), "penalty": penalty,
            "gated": gated, "broken_guards": broken, "regressed": regressed, "why": why,
            "weights": {name: w for name, w in own}, "guards": guards}


def staircase_scores(logdir):
    """(ok, lines): for each lab with a kernel step of its own, the score of
    its start (a do-nothing submission) is 0 and of its answer full marks,
    and its declared guards are exactly its points that pass at its start.
    Reads the staircase's staircase-lab-NN-{start,done}.ktap."""
    ok, lines = True, []
    d = labs_dir()
    for e in sorted(os.listdir(d)):
        if not re.match(r"^[0-9][0-9]-", e):
            continue
        n = e[:2]
        if lab_conf(n).get("NEEDS_STEP", str(int(n))) != str(int(n)):
            lines.append("  lab %s: needs step %s, no kernel step of its own: its do-nothing "
                         "fixture is in tests/grade.sh" % (n, lab_conf(n).get("NEEDS_STEP")))
            continue
        labs = ["%02d" % k for k in range(1, int(n) + 1) if lab_path(k)]
        got = {}
        for tag in ("start", "done"):
            path = os.path.join(logdir, "staircase-lab-%s-%s.ktap" % (n, tag))
            if not os.path.exists(path):
                ok = False
                lines.append("lab %s: no results at lab-%s-%s (%s)" % (n, n, tag, path))
                break
            got[tag] = point_results(ktap.read(path), labs)[2]
        if len(got) < 2:
            continue
        s0, s1 = score(n, got["start"]), score(n, got["done"])
        passing = sorted(x for x, st in got["start"][n][1].items() if st == "PASS")
        declared = sorted(s0["guards"])
        bad = []
        if s0["score"] != 0:
            bad.append("lab-%s-start scores %.2f, not 0" % (n, s0["score"]))
        if s1["score"] != s1["max"]:
            bad.append("lab-%s-done scores %.2f, not %g" % (n, s1["score"], s1["max"]))
        if passing != declared:
            bad.append("guards declared (#@ guard) %s, but the points passing at lab-%s-start "
                       "are %s" % (declared or "none", n, passing or "none"))
        # what the check printed and what the scorer sees are the same
        # points: one printed otherwise (from a loop, a helper) would
        # count for nothing
        seen = [name for name, _w, _k in check_points(n)]
        for tag in ("start", "done"):
            printed = list(got[tag][n][1])
            extra = [x for x in printed if x not in seen]
            if extra:
                bad.append("at lab-%s-%s the check printed point(s) the scorer does not see: %s "
                           "(labconf.py points %s lists what it sees)" % (n, tag, ", ".join(extra), n))
            unseen = [x for x in seen if x not in printed]
            if unseen and got[tag][n][0] not in ("TIMEOUT", "MISSING"):
                bad.append("at lab-%s-%s the check never printed: %s" % (n, tag, ", ".join(unseen)))
        lines.append("  lab %s: start %.2f, done %.2f / %g, %d guard(s)%s" %
                     (n, s0["score"], s1["score"], s1["max"], len(declared),
                      "" if not bad else "  WRONG"))
        for b in bad:
            ok = False
            lines.append("lab %s: %s" % (n, b))
    return ok, lines


# --- the result files --------------------------------------------------------

def read_facts(d):
    """The facts grade.sh found, one file each in D (any bytes)."""
    out = {}
    for k in os.listdir(d):
        with open(os.path.join(d, k), "rb") as f:
            out[k] = f.read().decode("utf-8", "replace")
    return out


def words(s):
    return [x for x in s.split("\n") if x]


GIT_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, '"': 34}


def git_unquote(s):
    """A path as git prints it without -z: "fs/na\\303\\257ve.c" (quoted,
    C escapes and octal bytes) is fs/naïve.c; a path not quoted is itself.
    git quotes every name that holds a '"', so a line that starts and ends
    with one is always quoted."""
    if len(s) < 2 or not (s.startswith('"') and s.endswith('"')):
        return s
    raw = os.fsencode(s[1:-1])
    out, i = bytearray(), 0
    while i < len(raw):
        c = raw[i]
        if c != 0x5c or i + 1 == len(raw):
            out.append(c)
            i += 1
            continue
        n = chr(raw[i + 1])
        if n in "01234567" and re.match(rb"[0-7]{3}", raw[i + 1:i + 4]):
            out.append(int(raw[i + 1:i + 4], 8) & 0xff)
            i += 4
        elif n in GIT_ESCAPES:
            out.append(GIT_ESCAPES[n])
            i += 2
        else:
            out.append(c)
            i += 1
    return out.decode("utf-8", "surrogateescape")


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_text(s):
    """Text from a student (a name) made inert in a spreadsheet: a cell
    that starts with = + - @ tab or CR gets a leading ' (OWASP's advice on
    CSV injection), so =HYPERLINK(...) is shown, never run. Idempotent."""
    return "'" + s if s.startswith(FORMULA_START) else s


def csv_field(s):
    """A text CSV field as RFC 4180 quotes it (a name keeps its newline),
    inert in a spreadsheet (csv_text)."""
    return '"' + csv_text(s).replace('"', '""') + '"'


TEXT_COLUMNS = (0, 5, 6)  # name, kernel, base: the summary's columns of text


# --- for a terminal ------------------------------------------------------------

C_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def term_text(s, keep=""):
    """S as a terminal may print it: every control character (C0, DEL, C1,
    so every ESC sequence) and every invisible format or line-separating
    character (bidi overrides, zero widths, U+2028) escaped as \\xNN,
    \\n, \\uNNNN; a byte that was not UTF-8 (surrogateescape) as \\xNN;
    a backslash doubled, so what is shown reads back one way. Characters
    in KEEP are left as they are."""
    import unicodedata
    out = []
    for c in s:
        o = ord(c)
        if c in keep:
            out.append(c)
        elif c in C_ESCAPES:
            out.append(C_ESCAPES[c])
        elif o < 0x20 or 0x7f <= o <= 0x9f:
            out.append("\\x%02x" % o)
        elif 0xdc80 <= o <= 0xdcff:  # a byte that was not UTF-8
            out.append("\\x%02x" % (o - 0xdc00))
        elif unicodedata.category(c) in ("Cf", "Zl", "Zp", "Cs", "Co", "Cn"):
            out.append("\\u%04x" % o if o <= 0xffff else "\\U%08x" % o)
        else:
            out.append(c)
    return "".join(out)


def term_width(s):
    """The columns S takes on a terminal (wide East Asian characters take
    two, combining marks none)."""
    import unicodedata
    return sum(0 if unicodedata.combining(c) else
               2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in s)


def summary_table(text):
    """A summary.csv as an aligned table for a terminal: one line per row
    (a name's newline is shown as \\n, never a row of its own), columns
    two spaces apart, every cell through term_text."""
    import csv
    rows = [[term_text(c) for c in r] for r in csv.reader(io.StringIO(text, newline=""))]
    rows = [r for r in rows if r]
    if not rows:
        return ""
    n = max(len(r) for r in rows)
    widths = [max(term_width(r[i]) if i < len(r) else 0 for r in rows) for i in range(n)]
    out = []
    for r in rows:
        cells = [(r[i] if i < len(r) else "") for i in range(n)]
        line = "  ".join(c + " " * (widths[i] - term_width(c)) for i, c in enumerate(cells))
        out.append(line.rstrip(" "))
    return "\n".join(out) + "\n"


def csv_header(lab):
    h = ["name", "lab", "result", "score", "max", "kernel", "base"]
    for k in range(1, int(lab) + 1):
        if lab_path(k):
            h.append("lab%02d" % k)
    return ",".join(h)


def finish(facts_dir, out):
    """Score one graded submission and write report.txt, results.json,
    results.tap, results.csv and results.xml into OUT. FACTS_DIR holds a
    file per fact grade.sh found: name, id, lab, labs, submission, kind,
    status (COMPLETE when the guest ran to its end, or a named result:
    BUILD_FAILED, TOO_LARGE, ...; any but those of a kernel that ran
    scores 0), detail, ktap, console, kernel, base, files, ufiles,
    ignored, untracked (paths one a line, as git prints them, quoted or
    not), notes, skipped, and reference ("same" when the submission's tree
    is lab-NN-done's: noted, the score unchanged)."""
    f = read_facts(facts_dir)
    lab = "%02d" % int(f["lab"])
    labs = f.get("labs", "").split()
    status = f.get("status", "")
    ktap_path = f.get("ktap", "")
    text = ktap.read(ktap_path) if ktap_path else ""
    ran = status in ("COMPLETE", "OOPS", "PANIC", "TIMEOUT", "FLOOD", "REBOOT", "UNAUTHENTICATED")
    parsed, res, lab_res = point_results(text, labs, "MISSING" if ran else "NOT_RUN")
    verdict = status
    if status == "COMPLETE":
        verdict = "PASS" if all(lab_res[k][0] == "PASS" for k in labs) and labs else "FAIL"
    sc = score(lab, lab_res) if ran else \
        {"score": 0.0, "max": float(lab_conf(lab).get("POINTS", "10") or 10), "why":
         ["no score: the kernel was not run (%s)" % status], "gated": False, "penalty": 0,
         "regressed": [], "broken_guards": [], "earned": 0.0, "weights": {}, "guards": []}
    # U1: a check killed before its limit, and by what
    killed = []
    for k in labs:
        lb = parsed.get(k)
        if lb and lb.get("top_reason", "").startswith("ERROR killed"):
            console = f.get("console", "")
            who = "the OOM killer" if any(p.search(console) for p in
                                          ktap.trouble_sections()["oom-any"]) else None
            reason = lb["top_reason"]
            if who or "by the OOM killer" in reason:
                killed.append("lab %s: the check was killed by the OOM killer (%s)" % (k, reason))
            else:
                killed.append("lab %s: the check was killed, not by its time limit: %s" % (k, reason))
    name = f.get("name", "")
    sub = f.get("submission", "")
    kver = f.get("kernel", "")
    base = f.get("base", "")
    files, ufiles, ignored = [git_unquote(x) for x in words(f.get("files", ""))], \
        [git_unquote(x) for x in words(f.get("ufiles", ""))], \
        [git_unquote(x) for x in words(f.get("ignored", ""))]
    untracked = [git_unquote(x) for x in words(f.get("untracked", ""))]
    scope = lab_conf(lab).get("FILES", "").split()
    outside = [x for x in files if x not in scope]
    detail = f.get("detail", "")
    notes = words(f.get("notes", ""))
    skipped = words(f.get("skipped", ""))
    if status == "APPLY_FAILED":
        # a diff made inside a folder of the tree: say where (prepare's hint)
        hints = [x for x in notes if PATH_HINT in x and x not in detail]
        detail = "\n".join([detail] + hints if detail else hints)
    # grade.sh's fact 'reference': "same" when the submission's tree is
    # lab-NN-done's, the reference answer (make solution-N); noted, the
    # score is what it is
    same_ref = f.get("reference", "").strip() == "same"
    same_ws = f.get("reference", "").strip() == "whitespace"
    # review.py's patch review: a section and a score of its own
    review_doc = None
    if f.get("review.json"):
        try:
            review_doc = json.loads(f["review.json"])
        except ValueError:
            review_doc = None
    rep = []
    rep.append("submission: %s (%s)" % (sub, f.get("kind", "")))
    rep.append("lab:        %s" % lab)
    rep.append("result:     %s" % verdict)
    rep.append("score:      %.2f / %g" % (sc["score"], sc["max"]))
    for w in sc["why"]:
        rep.append("            %s" % w)
    if same_ref:
        rep.append("NOTE:       the submission's tree is the reference answer's (lab-%s-done, what "
                   "'make solution-%d' gives), byte for byte" % (lab, int(lab)))
    elif same_ws:
        rep.append("NOTE:       the submission's tree is the reference answer's (lab-%s-done) "
                   "but for white space" % lab)
    if kver:
        rep.append("kernel:     %s" % kver)
    if base:
        rep.append("base:       %s" % base)
    if f.get("sandbox", "").strip() == "uid":
        rep.append("sandbox:    a user of its own, without namespaces (this machine is a "
                   "container of one submission: USERNS_SANDBOX_MODE=uid)")
    rep.append("files:      %s" % (" ".join(files) if files else "(none)"))
    if ufiles:
        rep.append("user-space files built into the guest: %s" % " ".join(ufiles))
    if ignored:
        rep.append("IGNORED (not kernel files; the repository's own checks were used): %s"
                   % " ".join(ignored))
    if outside:
        rep.append("outside the lab's scope (%s): %s" % (" ".join(scope), " ".join(outside)))
    if untracked:
        rep.append("untracked in the repository (not part of the submission, not graded): %s"
                   % " ".join(untracked))
    for s in skipped:
        rep.append("skipped: %s" % s)
    for s in notes:
        if not (PATH_HINT in s and s in detail):  # a hint in the detail: said once
            rep.append("note: %s" % s)
    for s in killed:
        rep.append(s)
    if detail:
        rep.extend("  | " + x for x in detail.split("\n"))
    jl = []
    for k in labs:
        st, pts = lab_res[k]
        _s, passed, plan = res.get(k, (st, 0, 0))
        role = "own" if k == lab else "earlier"
        mark = ""
        if k == lab:
            mark = "%6.2f / %g" % (sc["score"], sc["max"])
        elif not ran:
            mark = "not run (no kernel booted)"
        elif st != "PASS":
            mark = "regressed"
        rep.append("  lab %s  %-8s %3d/%-3d  %s" % (k, st, passed, plan, mark))
        jl.append({"lab": k, "status": st, "passed": passed, "planned": plan, "role": role,
                   "points": [{"name": p["name"], "status": p["status"],
                               "weight": sc["weights"].get(p["name"], 0) if k == lab else 0,
                               "guard": p["name"] in sc["guards"] if k == lab else False}
                              for p in parsed.get(k, {"points": []})["points"]]})
    if review_doc is not None:
        import review
        rep.extend(review.report_lines(review_doc))
    elif f.get("review_error"):
        rep.append(f["review_error"].strip())
    if text and verdict != "PASS":
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            ktap.cmd_report(ktap_path, labs)
        extra = [x for x in buf.getvalue().splitlines() if not x.startswith("  lab ")]
        rep.extend(extra[:40])
    # what a person reads, in a terminal too: nothing in it moves the
    # cursor or starts a line (names, paths, compiler and guest output)
    rep = [term_text(x, keep="\t\\") for x in rep]
    with open(os.path.join(out, "report.txt"), "w", encoding="utf-8",
              errors="surrogateescape") as fh:
        fh.write("\n".join(rep) + "\n")
    doc = {"submission": sub, "name": name, "id": f.get("id", ""), "kind": f.get("kind", ""),
           "lab": lab, "result": verdict, "score": sc["score"], "max": sc["max"],
           "earned": sc["earned"], "penalty": sc["penalty"], "gated": sc["gated"],
           "broken_guards": sc["broken_guards"], "regressed": sc["regressed"],
           "kernel": kver, "base": base, "files": files, "user_space_files": ufiles, "ignored": ignored,
           "outside_scope": outside, "untracked": untracked, "skipped": skipped,
           "notes": notes, "detail": detail, "same_as_reference": same_ref,
           "same_as_reference_but_whitespace": same_ws, "labs": jl,
           "review": review_doc,
           "style_score": review_doc["points"] if review_doc else 0.0,
           "style_max": review_doc["max"] if review_doc else
           float(labconf.get(int(lab), "STYLE_POINTS"))}
    with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    tap = ["TAP version 13", "# %s lab %s: %s %.2f/%g (%s)" %
           (name.replace("\n", " "), lab, verdict, sc["score"], sc["max"], kver)]
    body = []
    if "KTAP version 1" in text.splitlines():
        on = False
        for line in text.splitlines():
            if not on and line == "KTAP version 1":
                on = True
                continue
            if on:
                if line == ktap.SENTINEL:
                    break
                body.append(line)
    tap.extend(body or ["1..1", "not ok 1 %s # %s" % (name.replace("\n", " "), verdict)])
    with open(os.path.join(out, "results.tap"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(tap) + "\n")
    row = [csv_field(name), lab, verdict, "%.2f" % sc["score"], "%g" % sc["max"], csv_field(kver),
           csv_field(base)]
    for k in range(1, int(lab) + 1):
        kk = "%02d" % k
        if lab_path(k):
            row.append(lab_res[kk][0] if kk in lab_res else "NOT_RUN")
    with open(os.path.join(out, "results.csv"), "w", encoding="utf-8") as fh:
        fh.write(",".join(row) + "\n")
    with open(os.path.join(out, "results.xml"), "w", encoding="utf-8") as fh:
        fh.write(junit(doc))
    return doc, "\n".join(rep) + "\n"


def junit(doc):
    """One result as JUnit XML (GitHub and GitLab test reporters read it)."""
    cases = []
    fails = 0
    for lb in doc["labs"]:
        for p in lb["points"]:
            cname = "lab-%s.%s" % (lb["lab"], p["name"])
            if p["status"] in ("PASS", "XFAIL"):
                cases.append("  <testcase classname=%s name=%s/>" % (
                    quoteattr("lab-" + lb["lab"]), quoteattr(cname)))
            elif p["status"] == "SKIP":
                cases.append("  <testcase classname=%s name=%s><skipped/></testcase>" % (
                    quoteattr("lab-" + lb["lab"]), quoteattr(cname)))
            else:
                fails += 1
                cases.append("  <testcase classname=%s name=%s><failure message=%s/></testcase>" % (
                    quoteattr("lab-" + lb["lab"]), quoteattr(cname), quoteattr(p["status"])))
    if not cases:
        fails = 1
        cases.append("  <testcase classname=\"grade\" name=\"%s\"><failure message=%s>%s"
                     "</failure></testcase>" % ("lab-" + doc["lab"], quoteattr(doc["result"]),
                                                xml_escape(doc["detail"])))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name=%s tests="%d" failures="%d">\n'
            '%s\n</testsuite>\n' % (quoteattr("%s lab %s" % (doc["name"], doc["lab"])), len(cases),
                                    fails, "\n".join(cases)))


def md_cell(s):
    """Text safe in a Markdown table cell: no pipe, no line break, no HTML."""
    s = str(s).replace("\\", "\\\\").replace("|", "\\|")
    s = re.sub(r"[\r\n]+", " ", s)
    return s.replace("<", "&lt;").replace(">", "&gt;")


def markdown(docs):
    """Results as Markdown (a GitHub job summary): one line per submission,
    then each lab's points with their status and weight."""
    out = []
    for d in docs:
        out.append("### %s: lab %s, %s, score %.2f / %.2f" % (
            md_cell(d["name"]), d["lab"], d["result"], d["score"], d["max"]))
        out.append("")
        if d.get("detail"):
            out.append("> " + md_cell(d["detail"]))
            out.append("")
        rv = d.get("review")
        if rv:
            out.append("Patch review: %d of %d items%s (%s)" % (
                rv["passed"], rv["of"], ", style %.2f / %g" % (rv["points"], rv["max"])
                if rv["max"] else "", "; ".join("%s %s" % (i["name"], "ok" if i["ok"] else "no")
                                                for i in rv["items"])))
            out.append("")
        out.append("| lab | point | status | weight |")
        out.append("|---|---|---|---|")
        for lb in d["labs"]:
            for p in lb["points"]:
                w = "guard" if p.get("guard") else "%g" % p.get("weight", 1)
                out.append("| %s | %s | %s | %s |" % (lb["lab"], md_cell(p["name"]), p["status"], w))
            if not lb["points"]:
                out.append("| %s | (no points ran) | %s | |" % (lb["lab"], lb["status"]))
        out.append("")
    return "\n".join(out) + "\n"


def result_tests(doc):
    """One graded submission (results.json) as tests, for the graders that
    courses already use (Gradescope, GitHub Classroom): one per point of
    the lab's check, worth its share of POINTS (the rounding's cents on the
    last, so the shares add up to POINTS), whose scores add up to the
    grader's own score (a gate or a regression's penalty scales the points
    passed down); then the guards and the earlier labs, worth 0, and the
    patch review's items, worth STYLE_POINTS / items when the lab has some
    and the patches applied. Each: {"name", "max", "score", "ok", "output"}."""
    lab = doc["lab"]
    own = next((x for x in doc.get("labs", []) if x.get("role") == "own"), None)
    pts = [p for p in (own or {}).get("points", []) if not p.get("guard")
           and p.get("status") != "SKIP"]
    if not pts:  # the kernel never ran: the check's own list of points
        pts = [{"name": n, "weight": w, "status": "not run: " + doc["result"]}
               for n, w, kind in check_points(lab) if kind == "point"]
    total_w = sum(p.get("weight", 0) for p in pts) or 1.0
    earned = float(doc.get("earned") or 0)
    factor = float(doc["score"]) / earned if earned > 0 else 0.0
    tests = []
    for p in pts:
        mx = round(doc["max"] * p.get("weight", 0) / total_w, 2)
        ok = p["status"] == "PASS"
        tests.append({"name": "lab %s: %s" % (lab, p["name"]), "max": mx,
                      "score": round(mx * factor, 2) if ok else 0.0, "ok": ok,
                      "output": p["status"]})
    if tests:
        tests[-1]["max"] = round(tests[-1]["max"] + float(doc["max"]) -
                                 sum(t["max"] for t in tests), 2)
        passed = [t for t in tests if t["score"]]
        if passed:
            passed[-1]["score"] = round(passed[-1]["score"] + float(doc["score"]) -
                                        sum(t["score"] for t in tests), 2)
    for p in (own or {}).get("points", []):
        if p.get("guard"):
            ok = p["status"] in ("PASS", "SKIP", "XFAIL")
            tests.append({"name": "lab %s guard: %s" % (lab, p["name"]), "max": 0.0,
                          "score": 0.0, "ok": ok, "output": p["status"] + (
                              "" if ok else ": a broken guard gates the lab's score to 0")})
    for x in doc.get("labs", []):
        if x.get("role") == "earlier":
            ok = x["status"] == "PASS"
            tests.append({"name": "lab %s still passes" % x["lab"], "max": 0.0, "score": 0.0,
                          "ok": ok, "output": "%s, %d/%d points%s" % (
                              x["status"], x["passed"], x["planned"],
                              "" if ok else ": an earlier lab that no longer passes costs a "
                              "share of the lab's points")})
    rv = doc.get("review") or {}
    style_max = float(doc.get("style_max") or 0)
    for it in rv.get("items", []):
        mx = round(style_max / len(rv["items"]), 2) if style_max else 0.0
        tests.append({"name": "patch review: " + it["name"], "max": mx,
                      "score": mx if it["ok"] and rv.get("applied", True) else 0.0,
                      "ok": it["ok"], "output": it["detail"]})
    return tests


def classroom(doc):
    """GitHub Classroom's autograding result of one graded submission, as
    its grading reporter (classroom-resources/autograding-grading-reporter)
    reads it from RUNNER_RESULTS: {"version", "status", "max_score",
    "tests": [{"name", "status", "score", "message", ...}]}; the tests are
    result_tests(), whose scores the reporter adds up."""
    tests = [{"name": t["name"], "status": "pass" if t["ok"] else "fail", "score": t["score"],
              "message": t["output"], "test_code": "", "filename": "", "line_no": 0,
              "execution_time": ""} for t in result_tests(doc)]
    return {"version": 1, "status": "pass" if doc["result"] == "PASS" else "fail",
            "max_score": round(float(doc["max"]) + float(doc.get("style_max") or 0), 2),
            "tests": tests}


def csv_row(cells):
    """One line of summary.csv: the text columns quoted and inert
    (csv_field), any other cell quoted only when it must be."""
    return ",".join(csv_field(c) if i in TEXT_COLUMNS or re.search(r'[",\r\n]', c) or
                    c.startswith(FORMULA_START) else c for i, c in enumerate(cells))


def summary_row(text):
    """The one row of a results.csv, its text columns made inert again (a
    result written before csv_text, or by hand), never a second row."""
    import csv
    for r in csv.reader(io.StringIO(text, newline="")):
        if r:
            return csv_row(r)
    return None


def class_summary(lab, class_dir, results):
    """summary.csv for a class graded elsewhere (one job per submission):
    its header, then each entry's results.csv in the class's order, found
    as RESULTS/ID/results.csv or RESULTS/result-ID/*/results.csv (an
    artifact per job), one row each (summary_row); an entry with neither
    has no row."""
    rows = [csv_header("%02d" % int(lab))]
    for _path, _name, i in entries(class_dir):
        cands = [os.path.join(results, i, "results.csv")]
        a = os.path.join(results, "result-" + i)
        if os.path.isdir(a):
            cands += sorted(os.path.join(a, x, "results.csv") for x in os.listdir(a))
        for c in cands:
            if os.path.isfile(c):
                with open(c, encoding="utf-8", errors="surrogateescape", newline="") as fh:
                    row = summary_row(fh.read(1 << 20))
                if row is not None:
                    rows.append(row)
                break
    return "\n".join(rows) + "\n"


# --- command line --------------------------------------------------------------

def out_bytes(s):
    """S on stdout as the bytes it was read from: a file name that is not
    UTF-8 (surrogateescape) goes out as it came in, never an error."""
    sys.stdout.flush()
    sys.stdout.buffer.write(s.encode("utf-8", "surrogateescape"))
    sys.stdout.buffer.flush()


def main(argv):
    if not argv:
        sys.stderr.write(__doc__)
        return 2
    cmd, args = argv[0], argv[1:]
    if cmd == "safe-id" and len(args) == 1:
        print(safe_id(os.fsencode(args[0])))
    elif cmd == "classify" and len(args) == 1:
        sys.stdout.buffer.write(b"".join(os.fsencode(x) + b"\0" for x in classify(args[0])))
    elif cmd == "entries" and len(args) == 1:
        out = sys.stdout.buffer
        for path, name, i in entries(args[0]):
            out.write(os.fsencode(path) + b"\0" + os.fsencode(name) + b"\0" + i.encode() + b"\0")
    elif cmd == "prepare" and len(args) in (2, 3):
        tree = set()
        if len(args) == 3:
            with open(args[2], "rb") as fh:
                tree = set(os.fsdecode(x) for x in fh.read().split(b"\0") if x)
        plan = prepare(args[0], args[1], tree)
        with open(os.path.join(args[1], "plan.json"), "w", encoding="utf-8") as fh:
            json.dump(plan, fh, indent=1)
        # for the shell: one line per patch, "FILE<TAB>P", and the status
        for p in plan["patches"]:
            src = re.sub(r"[\t\n\r]", " ", p["source"]) or p["diff"]
            out_bytes("%s\t%d\t%s\n" % (p["diff"], p["p"], src))
    elif cmd == "plan-field" and len(args) == 2:
        with open(args[0], encoding="utf-8") as fh:
            plan = json.load(fh)
        v = plan.get(args[1], "")
        if isinstance(v, list):
            v = "\n".join(v)
        out_bytes(v + ("\n" if v else ""))
    elif cmd == "paths" and len(args) == 2:
        # the paths of one planned diff, NUL-separated
        with open(args[0], encoding="utf-8") as fh:
            plan = json.load(fh)
        for p in plan["patches"]:
            if p["diff"] == args[1]:
                for x in p["paths"]:
                    sys.stdout.buffer.write(os.fsencode(x) + b"\0")
    elif cmd == "points" and len(args) == 1:
        for name, w, kind in check_points(args[0]):
            print("%s %g %s" % (name, w, kind))
    elif cmd == "finish" and len(args) == 2:
        _doc, rep = finish(args[0], args[1])
        sys.stdout.write(rep)
    elif cmd == "staircase-scores" and len(args) == 1:
        ok, lines = staircase_scores(args[0])
        print("\n".join(lines))
        return 0 if ok else 1
    elif cmd == "csv-header" and len(args) == 1:
        print(csv_header(args[0]))
    elif cmd == "junit" and len(args) == 1:
        with open(args[0], encoding="utf-8") as fh:
            sys.stdout.write(junit(json.load(fh)))
    elif cmd in ("markdown", "verdict") and args:
        docs = []
        for a in args:
            with open(a, encoding="utf-8") as fh:
                docs.append(json.load(fh))
        if cmd == "markdown":
            sys.stdout.write(markdown(docs))
        else:
            bad = [d for d in docs if d["result"] != "PASS"]
            for d in bad:
                sys.stderr.write("%s: %s (lab %s)\n" % (d["name"], d["result"], d["lab"]))
            return 1 if bad else 0
    elif cmd == "classroom" and len(args) == 1:
        import base64
        with open(args[0], encoding="utf-8") as fh:
            print(base64.b64encode(json.dumps(classroom(json.load(fh))).encode()).decode())
    elif cmd == "matrix" and len(args) == 1:
        print(json.dumps([{"path": p, "name": n, "id": i} for p, n, i in entries(args[0])]))
    elif cmd == "summary" and len(args) == 3:
        sys.stdout.buffer.write(class_summary(args[0], args[1], args[2]).encode(
            "utf-8", "surrogateescape"))
    elif cmd == "summary-table" and len(args) == 1:
        with open(args[0], encoding="utf-8", errors="surrogateescape", newline="") as fh:
            sys.stdout.buffer.write(summary_table(fh.read()).encode("utf-8"))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
