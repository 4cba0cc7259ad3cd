#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Renumber the course's labs: make room for a new one, take one out, or
move one, in every file name and every text that names a lab by number.

  renumber.py insert N [TOP]     labs N and after move up by one (lab N is free)
  renumber.py remove N [TOP]     lab N must be gone already; the later ones move
                                 down by one
  renumber.py move FROM TO [TOP] lab FROM becomes lab TO; the ones between
                                 move by one to make room
  renumber.py plan ... [TOP]     any of the above, printing what would change

Files are renamed with `git mv` (TOP is the course's checkout, default the
one this script is in): every tracked path component NN-NAME or 00-NN-NAME
(labs/, solutions/, kernel-steps/, tests/mutants/, book/chapters/,
book/captures/...). Texts are rewritten in every tracked text file, in
these forms only, keeping each number's width:

  lab 3, Lab 03, labs 3 and 4, labs 3, 5 to 7, LAB 3:, chapter 3, Ch. 3
  lab-03-start, lab-3, check-lab-03.ktap, lab03, /tmp/lab15, LAB=3, lab=3,
  make solution-3
  TODO 16.3 (a skeleton's steps)
  capture: 03 done, lab-section: 16 Questions (the book's directives)
  NEEDS_STEP=15 (lab.conf: step N is the kernel of lab N's answer)
  NN-NAME and 00-NN-NAME when a tracked file or folder has that name
  (labs/03-chown-setgid, solutions/03-*.patch), capture: 03 done

A number that no form catches (a count, "the first eight labs", "patch
7/16", a step of the staircase) is left alone: read `git diff` afterwards.
The kernel's lab tags are made again from the files by `make tree`, the
captures by `make book-captures`; `make test` says whether the course still
agrees with itself. Insert then remove (or move there and back) gives the
files back byte for byte: tests/test_renumber.py checks it on the course.
"""

import os
import re
import subprocess
import sys

FORMS = [
    # lab 3 / labs 3 and 4 / labs 3, 5 to 7 / LAB 3 / chapter 3 / Ch. 3
    re.compile(r"\b(?P<w>[Ll]abs?|LABS?|[Cc]hapters?|Ch\.) (?P<n>\d{1,2}(?:(?:, | and | or | to "
               r"| through |-|\u2013)\d{1,2})*)(?![\d.]\d|/\d)"),
    # lab-03-start, make lab-3, make solution-3, lab03, /tmp/lab15, LAB=3, lab=3
    re.compile(r"(?<![A-Za-z0-9_])(?P<w>lab-|lab|solution-|LAB=|lab=)(?P<n>\d{1,2})(?![\d.]\d)(?!\d)"),
    # TODO 16.3 (a user-space skeleton's steps)
    re.compile(r"(?P<w>TODO )(?P<n>\d{1,2})(?=\.[\dN])"),
    # the kernel step a lab's check needs (lab.conf): step N is lab N's answer
    re.compile(r"(?P<w>NEEDS_STEP=)(?P<n>\d{1,2})(?!\d)"),
    # the book's directives: capture: 03 done, lab-section: 16 Questions
    re.compile(r"(?P<w>capture: )(?P<n>\d{1,2})(?= (?:start|done))"),
    re.compile(r"(?P<w>lab-section: )(?P<n>\d{1,2})(?= )"),
    # bases: 05 (a chapter's note on the 6.12 base)
    re.compile(r"(?P<w>bases: )(?P<n>\d{1,2})(?= -->)"),
]
# the tool and its test speak of labs by number as examples: never rewritten
SELF = ("scripts/renumber.py", "tests/test_renumber.py")
# 00-NN-NAME or NN-NAME as a whole path component, or NN-* in a path glob
PREFIX = re.compile(r"(?<![\w.-])(?P<z>00-)?(?P<n>\d\d)-(?P<rest>\*|[a-z][a-z0-9]*(?:-[a-z0-9]+)*)")


def git(top, *args, **kw):
    return subprocess.run(["git", "-C", top] + list(args), check=True,
                          stdout=subprocess.PIPE, **kw).stdout.decode("utf-8", "surrogateescape")


def mapping(op, args, count):
    """old number -> new number for every lab 1..count (after an insert,
    count + 1 numbers exist)."""
    if op == "insert":
        n = args[0]
        if not 1 <= n <= count + 1:
            raise ValueError("insert: N must be 1 to %d" % (count + 1))
        return {k: (k + 1 if k >= n else k) for k in range(1, count + 1)}
    if op == "remove":
        n = args[0]
        if not 1 <= n <= count + 1:
            raise ValueError("remove: N must be 1 to %d" % (count + 1))
        return {k: (k - 1 if k > n else k) for k in range(1, count + 1) if k != n}
    if op == "move":
        a, b = args
        if not (1 <= a <= count and 1 <= b <= count):
            raise ValueError("move: FROM and TO must be 1 to %d" % count)
        order = [k for k in range(1, count + 1) if k != a]
        order.insert(b - 1, a)
        return {old: new for new, old in enumerate(order, 1)}
    raise ValueError("unknown operation %r" % op)


def renum(s, m):
    """The number in s mapped, in s's width."""
    k = int(s)
    if k not in m:
        return s
    return "%0*d" % (len(s), m[k])


def rewrite(text, m, stems):
    def form(mo):
        nums = re.sub(r"\d+", lambda d: renum(d.group(0), m), mo.group("n"))
        return mo.group(0)[:mo.start("n") - mo.start(0)] + nums
    for f in FORMS:
        text = f.sub(form, text)

    def prefix(mo):
        z, n, rest = mo.group("z") or "", mo.group("n"), mo.group("rest")
        if rest != "*" and z + n + "-" + rest not in stems:
            return mo.group(0)
        return z + renum(n, m) + "-" + rest
    return PREFIX.sub(prefix, text)


def stems_of(paths):
    """Every path component NN-NAME / 00-NN-NAME, with and without its
    extensions: the names a text may use for it."""
    out = set()
    for p in paths:
        for c in p.split("/"):
            if PREFIX.match(c):
                out.add(c)
                out.add(c.split(".")[0])
    return out


LABNN = re.compile(r"^lab(?P<n>\d\d)(?=\D)")


def new_path(p, m):
    """p with each component NN-NAME, 00-NN-NAME or labNN... renumbered."""
    parts = []
    for c in p.split("/"):
        mo = PREFIX.match(c) or LABNN.match(c)
        if mo:
            c = c[:mo.start("n")] + renum(mo.group("n"), m) + c[mo.end("n"):]
        parts.append(c)
    return "/".join(parts)


def lab_count(top):
    labs = [d for d in os.listdir(os.path.join(top, "labs")) if re.match(r"\d\d-", d)]
    return max(int(d[:2]) for d in labs)


def unchanged_mentions(path, text, count):
    """Lines of text that say the old last lab's number outside every form
    the tool rewrites, on a line that says lab: a count or a range ("1 to
    16", "16 labs", step 16.5) that a person must read."""
    spans = [mo.span() for f in FORMS + [PREFIX] for mo in f.finditer(text)]
    out = []
    for mo in re.finditer(r"(?<![\w./-])%d(?![\w/-])" % count, text):
        if any(a <= mo.start() < b for a, b in spans):
            continue
        ls = text.rfind("\n", 0, mo.start()) + 1
        le = text.find("\n", mo.start())
        line = text[ls:le if le >= 0 else len(text)]
        if re.search(r"lab", line, re.I):
            out.append("%s:%d: %s" % (path, text.count("\n", 0, ls) + 1, line.strip()[:120]))
    return sorted(set(out), key=out.index)


def run(op, args, top, dry=False, out=sys.stdout):
    if not dry and git(top, "status", "--porcelain", "--untracked-files=no").strip():
        raise ValueError("the checkout has changes: commit or stash them first, so that "
                         "'git checkout .' can always undo a renumbering")
    files = [f for f in git(top, "ls-files", "-z").split("\0") if f]
    count = lab_count(top)
    m = mapping(op, args, count)
    stems = stems_of(files)
    # texts first, at the old paths
    changed, hits = 0, []
    for f in files:
        if f.endswith(".sum") or f in SELF:  # a capture's hash; the tool's own examples
            continue
        path = os.path.join(top, f)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, "rb") as fh:
            raw = fh.read()
        if b"\0" in raw:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if count in m and m[count] != count and "captures/" not in f and f != "labs/README.md":
            hits += unchanged_mentions(f, text, count)
        new = rewrite(text, m, stems)
        if new != text:
            changed += 1
            if dry:
                out.write("text: %s\n" % f)
            else:
                with open(path, "w", encoding="utf-8", newline="") as fh:
                    fh.write(new)
    # then the names, through temporary ones so that no two collide
    moves = [(f, new_path(f, m)) for f in files]
    moves = [(a, b) for a, b in moves if a != b]
    for a, b in moves:
        if dry:
            out.write("rename: %s -> %s\n" % (a, b))
    if not dry:
        for a, _ in moves:
            os.rename(os.path.join(top, a), os.path.join(top, a + ".renumbering"))
        for a, b in moves:
            os.makedirs(os.path.join(top, os.path.dirname(b)), exist_ok=True)
            os.rename(os.path.join(top, a + ".renumbering"), os.path.join(top, b))
        # folders left empty by the moves
        for a, _ in moves:
            d = os.path.dirname(os.path.join(top, a))
            while d != top and os.path.isdir(d) and not os.listdir(d):
                os.rmdir(d)
                d = os.path.dirname(d)
        if moves:  # the index knows them as renames, as git mv would
            git(top, "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul",
                input="".join(p + "\0" for ab in moves for p in ab).encode())
        # the course map is made from the labs' lab.conf, not renumbered
        with open(os.path.join(top, "labs", "README.md"), "wb") as fh:
            fh.write(subprocess.run([os.path.join(top, "scripts", "course-map.sh")],
                                    check=True, stdout=subprocess.PIPE).stdout)
    out.write("renumber %s %s: %d files renamed, %d texts rewritten%s\n" % (
        op, " ".join(map(str, args)), len(moves), changed, " (plan only)" if dry else ""))
    if hits:
        out.write("review: %d lines say %d, the last lab's number, in no form this tool "
                  "knows (a count, a range, a step?):\n" % (len(hits), count))
        out.writelines("  %s\n" % h for h in hits)
    if not dry and changed:
        # A patch whose text changed (LAB 15: became LAB 16:) still names the
        # blobs of its old text on its index lines: git am applies it, but the
        # export test wants what format-patch writes.
        out.write("then: make tree && make stack FORCE=1 && make export-stack "
                  "(the renumbered patches' index lines)\n")
    return 0


def main(argv):
    dry = bool(argv) and argv[0] == "plan"
    if dry:
        argv = argv[1:]
    try:
        op = argv[0]
        want = 2 if op == "move" else 1
        args = [int(a) for a in argv[1:1 + want]]
        if len(args) != want or len(argv) > 2 + want:
            raise ValueError("wrong arguments")
        top = argv[1 + want] if len(argv) == 2 + want else \
            os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        return run(op, args, top, dry)
    except (IndexError, ValueError, subprocess.CalledProcessError) as e:
        sys.stderr.write("renumber.py: %s\n%s" % (e, __doc__))
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
