#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The book's code excerpts, anchored by name (used by scripts/book.sh).

    bookexcerpt.py diff PATCH [SEL]    the diff of a git format-patch file, or
                                       only the hunks SEL picks, each under the
                                       ---/+++ lines of its file
    bookexcerpt.py hunks PATCH         each hunk: its number, its file and the
                                       names it matches (to write a directive)
    bookexcerpt.py lines FILE ANCHOR   the lines "A-B" that ANCHOR names in FILE
    bookexcerpt.py message PATCH       the subject, a blank line, and the body
                                       of a format-patch commit message

SEL, comma-separated: NAME (every hunk that changes the C definition NAME, in
patch order), NAME#K (the K-th of them, from 1), or, by position (book.sh
warns: anchor by name), a hunk number N or a range N-M counted across the
patch.

A hunk matches NAME when
  - a definition of NAME begins on one of its lines (added, removed or
    context), or
  - the hunk header's context (the text after the second "@@", which git
    takes from the last line at column 0 above the hunk) is a definition of
    NAME, and no definition begins in the hunk before its first added or
    removed line (the change is then in the header's definition).
A definition begins on a line at column 0 that starts with a letter or "_",
does not end with ";", and is
  - a function: its name is the last identifier before the first "("; for
    SYSCALL_DEFINEn(NAME, ...) and COMPAT_SYSCALL_DEFINEn(NAME, ...) it is
    NAME;
  - or a variable with an initializer that opens a brace, "... NAME[] = {";
  - or "struct|union|enum NAME {".

ANCHOR, for a file:
  fn=NAME       a function (as above, its definition line not ending in ";")
                through the next "}" at column 0, with the comment block
                ("/* ... */" or "//" lines) just above it, if any
  define=NAME   a "#define NAME" and its continuation lines, with the comment
                block just above it
  marker=NAME   the lines between a line containing "book: NAME" and a line
                containing "book: end NAME" (not the markers themselves), for
                code that is not a whole function; "/* book: NAME */" in C,
                "# book: NAME" in shell
  lines=A-B     by position (book.sh warns: anchor by name)

An anchor that matches nothing is an error: a line "error: ..." on stderr
that names it, and exit status 3.
"""
import re
import sys

IDENT = r"[A-Za-z_]\w*"
SYSCALL = re.compile(r"^(?:COMPAT_)?SYSCALL_DEFINE\d\(\s*(" + IDENT + r")")
FUNC = re.compile(r"^(?:[A-Za-z_][^(=;]*?[\s*])?(" + IDENT + r")\s*\(")
DATA = re.compile(r"^(?:[A-Za-z_][^(;=]*?[\s*])?(" + IDENT + r")\s*(?:\[[^]]*\]\s*)*=\s*\{")
TAG = re.compile(r"^(?:static\s+|typedef\s+)?(?:struct|union|enum)\s+(" + IDENT + r")\s*\{")


class AnchorError(Exception):
    pass


def definition(line):
    """The name a C definition beginning on LINE defines, or None."""
    s = line.rstrip("\n")
    if not re.match(r"[A-Za-z_]", s) or s.rstrip().endswith(";"):
        return None
    for rx in (SYSCALL, TAG, DATA, FUNC):
        m = rx.match(s)
        if m:
            return m.group(1)
    return None


# --- patches ----------------------------------------------------------------

def parse_patch(text):
    """The diff part of a format-patch: (head, files). head: the lines from
    the first "diff --git" line on, each hunk's lines left out and kept in
    files: a list of [minus, plus, hunks], a hunk being [header, lines...].
    Returns (lines, hunks): lines is every line of the diff in order, as
    (kind, text, hunk index or None); hunks a list of dicts."""
    out, hunks = [], []
    indiff = inhunk = False
    minus = plus = None
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\n")
        if bare == "-- " and indiff:
            break
        if line.startswith("diff --git "):
            indiff, inhunk, plus = True, False, ""
            out.append(("meta", line, None))
            continue
        if not indiff:
            continue
        if line.startswith("--- ") and not inhunk:
            minus = line
            out.append(("meta", line, None))
            continue
        if line.startswith("+++ ") and not inhunk:
            plus = line
            out.append(("meta", line, None))
            continue
        if line.startswith("@@ "):
            inhunk = True
            hunks.append({"header": line, "lines": [], "minus": minus, "plus": plus})
            out.append(("hunk", line, len(hunks) - 1))
            continue
        if inhunk:
            hunks[-1]["lines"].append(line)
            out.append(("hunk", line, len(hunks) - 1))
            continue
        out.append(("meta", line, None))
    return out, hunks


def hunk_names(h):
    """The names of the definitions hunk H changes (see the module's doc)."""
    names = []
    m = re.match(r"@@ [^@]*@@ ?(.*)$", h["header"].rstrip("\n"))
    ctx = definition(m.group(1)) if m and m.group(1).strip() else None
    changed = False
    for line in h["lines"]:
        kind, body = line[:1], line[1:]
        d = definition(body) if kind in (" ", "+", "-") else None
        if d:
            if not changed:
                ctx = None
            if d not in names:
                names.append(d)
        if kind in ("+", "-"):
            changed = True
    if ctx and ctx not in names:
        names.insert(0, ctx)
    return names


def select(hunks, sel):
    """The indexes (from 0) of the hunks SEL picks, sorted; AnchorError if
    an item of SEL matches nothing. Also returns whether SEL used positions."""
    want, positional = set(), False
    for item in (p.strip() for p in sel.split(",")):
        if not item:
            continue
        if re.fullmatch(r"\d+(-\d+)?", item):
            positional = True
            a, _, b = item.partition("-")
            a, b = int(a), int(b or a)
            picked = [i for i in range(a - 1, b) if 0 <= i < len(hunks)]
            if not picked:
                raise AnchorError("no hunk %s (the patch has %d)" % (item, len(hunks)))
            want.update(picked)
            continue
        m = re.fullmatch(r"(" + IDENT + r")(?:#(\d+))?", item)
        if not m:
            raise AnchorError("'%s' is not a hunk anchor (NAME, NAME#K)" % item)
        name, k = m.group(1), m.group(2)
        found = [i for i, h in enumerate(hunks) if name in hunk_names(h)]
        if not found:
            raise AnchorError("no hunk changes '%s'" % name)
        if k is not None:
            if not 1 <= int(k) <= len(found):
                raise AnchorError("no hunk '%s': '%s' matches %d hunk(s)" % (item, name, len(found)))
            found = [found[int(k) - 1]]
        want.update(found)
    return sorted(want), positional


def patch_diff(text, sel=""):
    """The diff of a patch, or the hunks SEL picks (see select())."""
    lines, hunks = parse_patch(text)
    if not sel:
        return "".join(t for _, t, _ in lines), False
    want, positional = select(hunks, sel)
    out, shown = [], None
    for i in want:
        h = hunks[i]
        if shown != h["plus"]:
            out += [h["minus"], h["plus"]]
            shown = h["plus"]
        out.append(h["header"])
        out += h["lines"]
    return "".join(out), positional


def patch_message(text):
    """Subject (unfolded, without "[PATCH ...]"), a blank line, the body up
    to the "---" line, trailing blank lines dropped."""
    lines = text.splitlines()
    subject, body, i = None, [], 0
    while i < len(lines) and lines[i] != "":
        if lines[i].startswith("Subject: "):
            subject = re.sub(r"^Subject: (\[[^]]*\] )?", "", lines[i])
            while i + 1 < len(lines) and lines[i + 1].startswith((" ", "\t")):
                i += 1
                subject += lines[i]
        i += 1
    if subject is None:
        raise AnchorError("no Subject: line")
    for line in lines[i + 1:]:
        if line == "---":
            break
        body.append(line)
    while body and not body[-1].strip():
        body.pop()
    while body and not body[0].strip():
        body.pop(0)
    return subject + "\n" + ("\n" + "\n".join(body) + "\n" if body else "")


# --- files ------------------------------------------------------------------

def comment_above(lines, i):
    """The first line (index) of the comment block just above line I."""
    j = i - 1
    if j >= 0 and lines[j].rstrip().endswith("*/"):
        while j >= 0 and "/*" not in lines[j]:
            j -= 1
        return j if j >= 0 else i
    if j >= 0 and lines[j].lstrip().startswith("//"):
        while j - 1 >= 0 and lines[j - 1].lstrip().startswith("//"):
            j -= 1
        return j
    return i


def one(found, what):
    if not found:
        raise AnchorError("no %s" % what)
    if len(found) > 1:
        raise AnchorError("%s %d times (lines %s)" % (what, len(found), ", ".join(str(a + 1) for a, _ in found)))
    return found[0]


def file_lines(text, anchor):
    """(first, last) line numbers, from 1, that ANCHOR names in TEXT."""
    lines = text.splitlines()
    key, _, name = anchor.partition("=")
    if key == "lines":
        m = re.fullmatch(r"(\d+)-(\d+)", name)
        if not m or not 1 <= int(m.group(1)) <= int(m.group(2)) <= len(lines):
            raise AnchorError("no lines %s (the file has %d)" % (name, len(lines)))
        return int(m.group(1)), int(m.group(2))
    if not re.fullmatch(IDENT if key != "marker" else r"[\w.-]+", name):
        raise AnchorError("'%s' is not an anchor (fn=NAME, define=NAME, marker=NAME)" % anchor)
    if key == "fn":
        found = []
        for i, line in enumerate(lines):
            if definition(line) == name and "(" in line and not line.lstrip().startswith(("struct", "union", "enum")):
                end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("}")), None)
                if end is not None and any(lines[k].startswith("{") or lines[k].rstrip().endswith("{")
                                           for k in range(i, end)):
                    found.append((comment_above(lines, i), end))
        a, b = one(found, "function '%s'" % name)
        return a + 1, b + 1
    if key == "define":
        found = []
        for i, line in enumerate(lines):
            if re.match(r"#\s*define\s+%s\b" % re.escape(name), line):
                end = i
                while lines[end].rstrip().endswith("\\") and end + 1 < len(lines):
                    end += 1
                found.append((comment_above(lines, i), end))
        a, b = one(found, "#define %s" % name)
        return a + 1, b + 1
    if key == "marker":
        rb = re.compile(r"\bbook: %s(?![\w.-])" % re.escape(name))
        re_ = re.compile(r"\bbook: end %s(?![\w.-])" % re.escape(name))
        starts = [(i, i) for i, line in enumerate(lines) if rb.search(line)]
        ends = [(i, i) for i, line in enumerate(lines) if re_.search(line)]
        s = one(starts, "marker 'book: %s'" % name)[0]
        e = one(ends, "marker 'book: end %s'" % name)[0]
        if e <= s + 1:
            raise AnchorError("nothing between 'book: %s' and 'book: end %s'" % (name, name))
        return s + 2, e
    raise AnchorError("'%s' is not an anchor (fn=NAME, define=NAME, marker=NAME)" % anchor)


def main(argv):
    def read(path):
        with open(path, encoding="utf-8") as f:
            return f.read()
    try:
        if len(argv) in (3, 4) and argv[1] == "diff":
            out, positional = patch_diff(read(argv[2]), argv[3] if len(argv) == 4 else "")
            sys.stdout.write(out)
            if positional:
                print("position: hunks by number", file=sys.stderr)
        elif len(argv) == 3 and argv[1] == "hunks":
            _, hunks = parse_patch(read(argv[2]))
            for i, h in enumerate(hunks):
                print("%d\t%s\t%s" % (i + 1, (h["plus"] or "").rstrip("\n")[6:], ",".join(hunk_names(h))))
        elif len(argv) == 4 and argv[1] == "lines":
            a, b = file_lines(read(argv[2]), argv[3])
            print("%d-%d" % (a, b))
        elif len(argv) == 3 and argv[1] == "message":
            sys.stdout.write(patch_message(read(argv[2])))
        else:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
    except AnchorError as e:
        print("error: %s" % e, file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
