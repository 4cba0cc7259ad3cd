#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a lab's patches differ between the course's two kernel bases.

    basediff.py lab NN [--all] [--notes FILE] [--top DIR]
                          a Markdown fragment for lab NN: what its 6.12
                          patches change otherwise than its 6.1 patches, and
                          the note of FILE's section "## Lab NN" (why;
                          FILE: TOP/book/bases-6.12.md when it exists)
    basediff.py patches [--all] OLD NEW
                          the fragment for two patch files (no note)
    --all                 a table row for every change, the same ones too

A lab has three patches on each base: its rewind kernel-steps/00-NN-*.patch,
its scaffold kernel-steps/NN-*.patch and its answer solutions/NN-*.patch,
the series, which are 6.12's; 6.1 has its own patch of the same name under
kernel-steps/6.1/ or solutions/6.1/ where its code differs, and applies the
series' elsewhere. TOP (default: the checkout this script is in) holds both.

Each hunk belongs to a file and to the C definition it changes: the first
name scripts/bookexcerpt.py's hunk_names() gives it (the definition in the
hunk header's context, unless one begins in the hunk before the change),
the same names as the book's hunks= anchors. The hunks of one definition are
taken together, and what 6.12's patch does there is

  the same change    the same removed and added lines, in the same order:
                     only line numbers, and maybe the unchanged lines
                     around them ("context"), differ;
  a different change some removed or added lines differ;
  only in 6.1 or only in 6.12.
A definition found in one base only is paired with one of the same file in
the other base that shares a changed line with it: the change moved to
another function (lab 13: __ns_get_path() in 6.1, nsfs_init_inode() in
6.12). An answer's change that differs exactly as the rewind's and the
scaffold's do, with - and + swapped, only undoes them: it is named so, and
its lines are not shown again.

When every change is the same, the fragment says so in one sentence.
Otherwise it has a table of the definitions that differ, the note, and the
lines that differ, from both bases: a whole hunk when it is short or moved,
else only the runs of lines that differ. The note is FILE's section from a
line "## Lab NN" to the next "## " line; a lab whose patches change
something differently and that has no note gets a warning. When the
fragment shows lines of an answer, it carries the book's mark
"<!-- reference-answer -->" (scripts/book.sh and scripts/bookpages.py fold
the section). Which steps differ at all, step by step, and whether each
lab that differs has its note, is scripts/rangediff.py's (make range-diff).

Warnings go to stderr as "warning: ..." lines, errors as "error: ..." lines
with exit status 3 (no patch for the lab, a glob that matches two files).
Standard library only.
"""

import argparse
import difflib
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bookexcerpt  # noqa: E402

OLD, NEW = "6.1", "6.12"
# (kind, folder, pattern) of a lab's three patches, in the order they apply
KINDS = (("rewind", "kernel-steps", "00-%s-*.patch"),
         ("scaffold", "kernel-steps", "%s-*.patch"),
         ("answer", "solutions", "%s-*.patch"))
SHOW = 20           # lines shown of one side of one change, at most
SHORT = 8           # a change this short is shown whole, not only what differs
ANSWER_MARK = "<!-- reference-answer -->"
NOTES = os.path.join("book", "bases-6.12.md")     # the notes, under TOP


class BaseDiffError(Exception):
    pass


# --- one patch: its changes, by file and definition ------------------------

class Change:
    """What one patch does to one C definition (all its hunks there)."""

    def __init__(self, path, name, is_function):
        self.path = path
        self.name = name
        self.is_function = is_function
        self.hunks = []         # each hunk's removed and added lines
        self.context = []       # the unchanged lines around them

    @property
    def lines(self):
        """The removed and added lines, in order."""
        return [line for h in self.hunks for line in h]

    @property
    def removed(self):
        return [line for line in self.lines if line.startswith("-")]

    @property
    def added(self):
        return [line for line in self.lines if line.startswith("+")]

    def label(self):
        """The definition as the book names it: `f()`, `var` or a place."""
        if not self.name:
            return "the top of the file"
        if self.is_function:
            return "`%s()`" % self.name
        return "`%s`" % self.name


def hunk_path(h):
    """The file a hunk changes (its +++ line, or --- for a removed file)."""
    for line in (h["plus"], h["minus"]):
        path = (line or "")[4:].rstrip("\n")
        if path and path != "/dev/null":
            return re.sub(r"^[ab]/", "", path)
    return "?"


def hunk_header_context(h):
    m = re.match(r"@@ [^@]*@@ ?(.*)$", h["header"].rstrip("\n"))
    return m.group(1).strip() if m else ""


def hunk_definition(h):
    """(name, is_function) of the definition hunk H changes, as the book's
    anchors name it; when the hunk has none, the header's context text
    (a place, not a definition), or "" at the top of a file."""
    names = bookexcerpt.hunk_names(h)
    if not names:
        return hunk_header_context(h), False
    name = names[0]
    lines = [hunk_header_context(h)] + [line[1:] for line in h["lines"]]
    for line in lines:
        if bookexcerpt.definition(line) != name:
            continue
        s = line.rstrip("\n")
        return name, not (bookexcerpt.TAG.match(s) or bookexcerpt.DATA.match(s))
    return name, True


def changes(text):
    """The changes of a format-patch TEXT: {(path, name): Change}, in the
    order the patch first reaches each definition."""
    _, hunks = bookexcerpt.parse_patch(text)
    out = {}
    for h in hunks:
        path = hunk_path(h)
        name, is_function = hunk_definition(h)
        c = out.setdefault((path, name), Change(path, name, is_function))
        c.hunks.append([])
        for line in h["lines"]:
            line = line.rstrip("\n")
            if line.startswith(("-", "+")):
                c.hunks[-1].append(line)
            elif line.startswith(" ") or line == "":
                c.context.append(line[1:])
    return out


# --- two patches: the same change, a different one, or one base only -------

class Item:
    """One definition of one patch, compared across the bases. kind: same,
    different, old (only in 6.1), new (only in 6.12)."""

    def __init__(self, kind, old, new):
        self.kind = kind
        self.old = old
        self.new = new
        self.mirror = ""        # an answer's: "rewind" when its lines are the
                                # rewind's, reversed (see mark_mirrors())

    @property
    def path(self):
        return (self.old or self.new).path

    @property
    def moved(self):
        return bool(self.old and self.new and self.old.name != self.new.name)

    @property
    def context_differs(self):
        return bool(self.old and self.new and self.old.context != self.new.context)

    def differing(self):
        """(6.1's runs, 6.12's runs) of changed lines not in the other base."""
        return differing(self.old.lines if self.old else [],
                         self.new.lines if self.new else [])

    def label(self):
        if self.moved:
            return "%s → %s" % (self.old.label(), self.new.label())
        return (self.old or self.new).label()

    def verdict(self):
        whose = " and the ".join(k + "'s" for k in self.mirror.split(" and "))
        if self.kind == "old":
            return "not changed on %s" % NEW
        if self.kind == "new" and self.mirror:
            return "changed on %s only, to undo the %s change there" % (NEW, whose)
        if self.kind == "new":
            return "changed on %s only" % NEW
        if self.kind == "same":
            if self.moved:
                return "the same change, made in %s on %s" % (self.new.label(), NEW)
            if self.context_differs:
                return "the same change; the code around it differs"
            return "the same change"
        if self.mirror:
            return "a different change, which undoes the %s differences" % whose
        return "a different change (its lines are below)"


def differing(a, b):
    """The lines of A not in B and those of B not in A, each as a list of
    runs (lists of lines that are next to each other)."""
    runs_a, runs_b = [], []
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        if i2 > i1:
            runs_a.append(a[i1:i2])
        if j2 > j1:
            runs_b.append(b[j1:j2])
    return runs_a, runs_b


def shared_lines(a, b):
    """How many changed lines two Changes share (blank lines do not count)."""
    rest = [line for line in b.lines if line[1:].strip()]
    n = 0
    for line in a.lines:
        if line[1:].strip() and line in rest:
            rest.remove(line)
            n += 1
    return n


def compare(old_text, new_text):
    """The Items of two versions of one patch (either may be None: the
    patch is missing on that base), in the order of the 6.1 patch, the
    definitions only 6.12 changes last."""
    old = changes(old_text) if old_text is not None else {}
    new = changes(new_text) if new_text is not None else {}
    pairs = {k: k for k in old if k in new}
    # a definition of one base only: pair it with the one of the same file
    # in the other base that shares the most changed lines with it
    lone_new = [k for k in new if k not in old]
    for k in old:
        if k in pairs:
            continue
        best, most = None, 0
        for j in lone_new:
            if j[0] == k[0]:
                n = shared_lines(old[k], new[j])
                if n > most:
                    best, most = j, n
        if best is not None:
            pairs[k] = best
            lone_new.remove(best)
    items = []
    for k, c in old.items():
        if k not in pairs:
            items.append(Item("old", c, None))
            continue
        d = new[pairs[k]]
        same = c.removed == d.removed and c.added == d.added
        items.append(Item("same" if same else "different", c, d))
    items += [Item("new", None, new[j]) for j in lone_new]
    return items


def flip(lines):
    return sorted(("+" if s[0] == "-" else "-") + s[1:] for s in lines)


def mark_mirrors(rewind, scaffold, answer):
    """Mark each answer Item that differs (or is on one base only) in
    exactly the lines that differ in the rewind's and the scaffold's Items
    for the same definition, with - and + swapped: an answer that puts back
    what the rewind took out and takes out the scaffold's comments. Its
    mirror is then "rewind" or "rewind and scaffold"."""
    def key(it):
        return it.path, (it.new or it.old).name
    undo = {}
    for kind, its in (("rewind", rewind), ("scaffold", scaffold)):
        for it in its:
            a, b = it.differing()
            if not a and not b:
                continue
            u = undo.setdefault(key(it), ([], [], []))
            u[0].extend(sum(a, []))
            u[1].extend(sum(b, []))
            u[2].append(kind)
    for it in answer:
        u = undo.get(key(it)) if it.kind != "same" else None
        if u is None:
            continue
        aa, ab = it.differing()
        if flip(sum(aa, [])) == sorted(u[0]) and flip(sum(ab, [])) == sorted(u[1]):
            it.mirror = " and ".join(u[2])


# --- a lab ------------------------------------------------------------------

def lab_number(text):
    if not re.fullmatch(r"\d{1,2}", text or "") or int(text) == 0:
        raise BaseDiffError("'%s' is not a lab number" % text)
    return "%02d" % int(text)


def base_folder(top, folder, base):
    """Where a base's patches are: the series (kernel-steps/, solutions/)
    is the main base's, NEW; OLD keeps its own patch of a step whose code
    differs in kernel-steps/OLD/ and solutions/OLD/ and applies the
    series' patch of every other step."""
    return os.path.join(top, folder) if base == NEW else os.path.join(top, folder, base)


def find_patch(top, folder, pattern, nn, base):
    """The patch file of a lab for a base, or None; an error when the
    pattern matches several."""
    d = base_folder(top, folder, base)
    found = sorted(glob.glob(os.path.join(d, pattern % nn)))
    if not found and base != NEW:
        d = base_folder(top, folder, NEW)
        found = sorted(glob.glob(os.path.join(d, pattern % nn)))
    if len(found) > 1:
        raise BaseDiffError("%s matches %d files: %s" % (
            os.path.relpath(os.path.join(d, pattern % nn), top), len(found),
            ", ".join(os.path.relpath(f, top) for f in found)))
    return found[0] if found else None


def read(path):
    if path is None:
        return None
    with open(path, encoding="utf-8") as f:
        return f.read()


class Lab:
    """A lab's patches on both bases, compared. PATCHES: (kind, 6.1 file,
    6.12 file), either file None when that base lacks it."""

    def __init__(self, nn, patches):
        self.nn = nn
        self.patches = []       # (kind, 6.1 file, 6.12 file, Items)
        for kind, a, b in patches:
            self.patches.append((kind, a, b, compare(read(a), read(b))))
        items = {kind: its for kind, _, _, its in self.patches}
        mark_mirrors(items.get("rewind", []), items.get("scaffold", []),
                     items.get("answer", []))

    @classmethod
    def load(cls, top, nn):
        """Lab NN of the checkout TOP: its rewind, scaffold and answer."""
        nn = lab_number(nn)
        patches = []
        for kind, folder, pattern in KINDS:
            a = find_patch(top, folder, pattern, nn, OLD)
            b = find_patch(top, folder, pattern, nn, NEW)
            if a is not None or b is not None:
                patches.append((kind, a, b))
        if not patches:
            raise BaseDiffError("lab %s has no kernel patches on either base "
                                "(kernel-steps/00-%s-*.patch, kernel-steps/%s-*.patch, "
                                "solutions/%s-*.patch)" % (nn, nn, nn, nn))
        return cls(nn, patches)

    def missing(self):
        """The kinds of patch one base lacks: [(kind, base)]."""
        out = []
        for kind, a, b, _ in self.patches:
            if a is None:
                out.append((kind, OLD))
            if b is None:
                out.append((kind, NEW))
        return out

    def items(self):
        for kind, _, _, its in self.patches:
            for it in its:
                yield kind, it

    def differs(self):
        """Whether a patch changes something otherwise on 6.12 (more than
        line numbers and context)."""
        return bool(self.missing()) or any(
            it.kind != "same" or it.moved for _, it in self.items())


# --- the Markdown fragment --------------------------------------------------

def code(path):
    return "`%s`" % path


def listing(names):
    """"a", "a and b", "a, b and c" (each name once)."""
    names = list(dict.fromkeys(names))
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def block(runs):
    """A diff block of runs of changed lines; "..." between runs."""
    out, shown = ["```diff"], 0
    for i, run in enumerate(runs):
        if i:
            out.append(" ...")
        for line in run:
            if shown == SHOW:
                left = sum(len(r) for r in runs) - shown
                out.append(" ... (%d more line%s)" % (left, "s" if left > 1 else ""))
                out.append("```")
                return out
            out.append(line)
            shown += 1
    out.append("```")
    return out


def fragment(lab, note=None, paths=True, every=False):
    """The Markdown fragment for LAB (a Lab), with NOTE (its why) or None;
    PATHS: say where the course keeps the patches of the second base;
    EVERY: a table row for every change, the same ones too."""
    out = []
    kinds = [k for k, _, _, _ in lab.patches]
    if not lab.differs() and not every:
        ctx = list(dict.fromkeys("%s (%s)" % (it.label(), code(it.path))
                                 for _, it in lab.items() if it.context_differs))
        s = ("On %s, the %s of this lab make%s the same changes as on %s; "
             "only line numbers differ" % (
                 NEW, listing(kinds), "s" if len(kinds) == 1 else "", OLD))
        if ctx:
            s += (", and some of the unchanged lines around the change%s in %s"
                  % ("s" if len(ctx) > 1 else "", listing(ctx)))
        out.append(s + ".")
        if note:
            out += ["", note]
        return "\n".join(out) + "\n"

    for kind, base in lab.missing():
        out.append("%s has no %s for this lab." % (base, kind))
    if out:
        out = [" ".join(out), ""]
    rows = [(kind, it) for kind, it in lab.items()
            if every or it.kind != "same" or it.moved or it.context_differs]
    nsame = len(list(lab.items())) - len(rows)
    if rows:
        out += [("Every change of the lab's patches, as %s makes it:" % NEW if every else
                 "On %s the lab's patches differ from %s's in these places:" % (NEW, OLD)), "",
                "| patch | file | where | on %s |" % NEW, "|---|---|---|---|"]
        for kind, it in rows:
            out.append("| %s | %s | %s | %s |" % (kind, code(it.path), it.label(), it.verdict()))
        out.append("")
        if nsame == 1:
            out += ["The other change of the patches is the same on both bases, "
                    "but for line numbers.", ""]
        elif nsame:
            out += ["The other %d changes of the patches are the same on both bases, "
                    "but for line numbers." % nsame, ""]
    if paths:
        out.append("The %s patches are the series, in `kernel-steps/` and `solutions/`; the %s "
                   "ones that differ are in `kernel-steps/%s/` and `solutions/%s/`, with the "
                   "same names." % (NEW, OLD, OLD, OLD))
    if note:
        out += ["", note]
    shown = [(kind, it) for kind, it in lab.items()
             if it.kind in ("different", "old", "new") and not it.mirror]
    # the Items of one patch that differ in the same lines are shown once
    groups = {}
    for kind, it in shown:
        groups.setdefault((kind,) + shown_lines(it), []).append(it)
    if groups:
        runs = [len(key[1]) > 1 or len(key[2]) > 1 for key in groups]
        out += ["", "**The lines that differ** (removed and added lines only%s)." % (
            "; `...` stands for lines both bases change alike, or lines between "
            "two hunks" if any(runs) else "")]
        if any(kind == "answer" for kind, _ in shown):
            out.append(ANSWER_MARK)
    for key, its in groups.items():
        out += [""] + lines_that_differ(key[0], its)
    # one blank line between paragraphs (a diff block has none of its own)
    out = [line for i, line in enumerate(out) if line or (i and out[i - 1])]
    return "\n".join(out).strip("\n") + "\n"


def shown_lines(it):
    """(6.1's runs, 6.12's runs) to show for an Item, as tuples of tuples of
    lines. A change that moved to another definition is shown whole, hunk by
    hunk. Else the hunks that are the same on both bases are left out, and
    of the others, when they are longer than SHORT lines, only the runs of
    lines that differ are shown."""
    ha = it.old.hunks if it.old else []
    hb = it.new.hunks if it.new else []
    if it.kind == "different" and not it.moved:
        ha, hb = [h for h in ha if h not in hb], [h for h in hb if h not in ha]
        if max(sum(map(len, ha)), sum(map(len, hb))) > SHORT:
            ha, hb = differing(sum(ha, []), sum(hb, []))
    return (tuple(tuple(h) for h in ha if h), tuple(tuple(h) for h in hb if h))


def lines_that_differ(kind, its):
    """The Markdown of the lines of ITS, Items of one patch (KIND) that
    differ in the same lines."""
    it = its[0]
    ra, rb = shown_lines(it)
    files = list(dict.fromkeys(code(i.path) for i in its))
    if it.moved:
        return (["The %s, in %s (%s) on %s:" % (kind, listing(i.old.label() for i in its),
                                                listing(files), OLD), ""] + block(ra) +
                ["", "and in %s on %s:" % (listing(i.new.label() for i in its), NEW), ""] +
                block(rb))
    where = "%s (%s)" % (listing(i.label() for i in its), listing(files))
    if it.kind == "old":
        return ["The %s on %s only, in %s:" % (kind, OLD, where), ""] + block(ra)
    if it.kind == "new":
        return ["The %s on %s only, in %s:" % (kind, NEW, where), ""] + block(rb)
    if not ra:
        return ["The %s, in %s: on %s it also changes" % (kind, where, NEW), ""] + block(rb)
    if not rb:
        return ["The %s, in %s: on %s it no longer changes" % (kind, where, NEW), ""] + block(ra)
    return (["The %s, in %s: on %s" % (kind, where, OLD), ""] + block(ra) +
            ["", "and on %s:" % NEW, ""] + block(rb))


# --- the notes: why, one section per lab --------------------------------------

def read_notes(path):
    """{NN: text} of a notes file: sections from "## Lab NN" to the next
    "## "; warnings for what the book could not use."""
    notes, warnings, nn, buf = {}, [], None, []

    def close():
        if nn is None:
            return
        text = "\n".join(buf).strip("\n")
        if nn in notes:
            warnings.append("%s: two sections for lab %s" % (path, nn))
        notes[nn] = text
    if path is None or not os.path.exists(path):
        return notes, warnings
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines, 1):
        if line.startswith("## "):
            close()
            m = re.match(r"## Lab (\d\d)\b", line)
            if not m:
                warnings.append("%s:%d: a section must be '## Lab NN', not '%s'" % (path, i, line))
            nn, buf = (m.group(1) if m else None), []
            continue
        if nn is not None and re.match(r"#{1,2} ", line):
            warnings.append("%s:%d: a note has no headings of its own (use bold lead-ins)" % (path, i))
        if nn is not None:
            buf.append(line)
    close()
    return notes, warnings


# --- the course's labs ----------------------------------------------------------

def lab_numbers(top):
    """Every lab that has a kernel patch on either base."""
    found = set()
    for _, folder, _ in KINDS:
        for base in (OLD, NEW):
            for f in glob.glob(os.path.join(base_folder(top, folder, base), "*.patch")):
                m = re.match(r"(?:00-)?(\d\d)-", os.path.basename(f))
                if m and m.group(1) != "00":
                    found.add(m.group(1))
    return sorted(found)


# --- main ---------------------------------------------------------------------

def main(argv):
    p = argparse.ArgumentParser(prog="basediff.py", description=__doc__.split("\n\n")[0])
    p.add_argument("mode", choices=("lab", "patches"))
    p.add_argument("args", nargs="*")
    p.add_argument("--notes", help="the notes file (why), with '## Lab NN' sections "
                   "(default: TOP/%s, when it exists)" % NOTES)
    p.add_argument("--top", default=os.path.dirname(HERE), help="the course's checkout")
    p.add_argument("--all", action="store_true", help="lab, patches: a table row for every "
                   "change, the same ones too")
    o = p.parse_args(argv[1:])
    try:
        warnings = []
        if o.notes and not os.path.exists(o.notes):
            warnings.append("no notes file %s" % o.notes)
        elif o.notes is None and os.path.exists(os.path.join(o.top, NOTES)):
            o.notes = os.path.join(o.top, NOTES)
        notes, bad = read_notes(o.notes)
        warnings += bad
        if o.mode == "lab" and len(o.args) == 1:
            lab = Lab.load(o.top, o.args[0])
            note = notes.get(lab.nn)
            if lab.differs() and not note and o.notes:
                warnings.append("%s has no section '## Lab %s': say why lab %s's %s patches "
                                "differ" % (o.notes, lab.nn, lab.nn, NEW))
            sys.stdout.write(fragment(lab, note, every=o.all))
        elif o.mode == "patches" and len(o.args) == 2:
            lab = Lab("--", [("patch", o.args[0], o.args[1])])
            sys.stdout.write(fragment(lab, paths=False, every=o.all))
        else:
            p.print_usage(sys.stderr)
            return 2
    except (BaseDiffError, OSError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 3
    for w in warnings:
        print("warning: %s" % w, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
