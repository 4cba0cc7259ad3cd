#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The code the book names: one page per kernel function, both bases.

    bookcode.py pages OUTDIR [--top DIR] [--tree B=DIR]...
    bookcode.py list [--top DIR] [--tree B=DIR]...

Every function the book names in code font (`copy_namespaces()`, the
names scripts/claims.py checks) gets a page, OUTDIR/NAME.html, with its
definition as each base's kernel has it at the tag `distro` (Debian's tree,
where the course ends): the file, the line and the body, as claims.py reads
a body (to the next "}" at column 0; a macro with its continuation lines).
A base that does not define the name says so; a base whose tree is not
imported says that. OUTDIR/names.txt lists the names that have a page, one
a line: book/codelinks.lua, pandoc's filter in scripts/book.sh, makes each
code span that begins with one of them, `NAME(...`, a link to its page, so
a sentence about what code does leads to that code on both bases.

The course's own functions (the demos') and the names of the past
(book/claims-allow.txt) get no page; nor a name no base defines. "list"
prints each name with the bases that define it.

The pages sit one folder below the book's pages: they link to
../style.css and to the chapters that name the function (../lab-NN.html).
Standard library only.
"""
import argparse
import html
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import claims  # noqa: E402

BOOK_TITLE = "User namespaces, patch by patch"
# a body longer than this is cut, with the number of lines left out
MAX_LINES = 160
# a name defined in more places (#ifdef variants, static helpers of the
# same name in several files) shows this many
MAX_DEFS = 4
CHAPTER = re.compile(r"book/chapters/(\d\d)-")


def book_names(top):
    """name -> the chapters (numbers) that name it, for every function
    the book's own texts name (not the labs' READMEs: the book links)"""
    out = {}
    for c in claims.all_claims(top):
        if not c["file"].startswith("book/") or "*" in c["name"]:
            continue
        m = CHAPTER.match(c["file"])
        out.setdefault(c["name"], set())
        if m:
            out[c["name"]].add(int(m.group(1)))
    return out


def collect(top, trees):
    """(names, bases, defs, blobs): the names with a definition on some
    base; bases in the course's order; defs base -> name -> [[path, line,
    kind]]; blobs base -> path -> text"""
    named = book_names(top)
    own = claims.course_names(top)
    allow = claims.read_allow(top)
    keys = set(named) | {claims.LIBC[n] for n in named if n in claims.LIBC}
    defs = claims.definitions(top, trees, keys)
    bases = [b for b in trees if b in defs]

    def where(b, n):
        return defs[b].get(n) or defs[b].get(claims.LIBC.get(n, ""), [])

    names = {}
    for n, chapters in named.items():
        if n in own or allow.get(n, "").startswith("history"):
            continue
        if any(where(b, n) for b in bases):
            names[n] = chapters
    blobs = {}
    for b in bases:
        paths = {d[0] for n in names for d in where(b, n)[:MAX_DEFS]}
        blobs[b] = claims.read_blobs(trees[b], paths)
    found = {b: {n: where(b, n)[:MAX_DEFS] for n in names} for b in bases}
    return names, bases, found, blobs


def cut(text):
    lines = text.split("\n")
    if len(lines) <= MAX_LINES:
        return text, 0
    return "\n".join(lines[:MAX_LINES]), len(lines) - MAX_LINES


def page(name, chapters, bases, missing, found, blobs):
    e = html.escape
    out = ['<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
           '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
           '<title>%s() on %s · %s</title>\n<link rel="stylesheet" href="../style.css">\n</head>\n'
           '<body class="codepage">\n<main class="codepage">\n' % (e(name), " and ".join(bases + missing),
                                                                   e(BOOK_TITLE)),
           '<p class="book-title"><a href="../index.html">%s</a> · the kernel code the book names</p>\n'
           % e(BOOK_TITLE),
           '<h1><code>%s()</code></h1>\n' % e(name),
           '<p>As Debian\'s kernel sources have it where the course ends (each base\'s tag '
           '<code>distro</code>): the definition, as <code>scripts/claims.py</code> reads it, '
           'on each base.</p>\n']
    if chapters:
        out.append('<p>Named in: %s.</p>\n' % ", ".join(
            '<a href="../lab-%02d.html">chapter %d</a>' % (c, c) for c in sorted(chapters)))
    if any(len(found[b][name]) > 1 for b in bases):
        out.append('<p>A base with more than one definition has them in <code>#ifdef</code> branches (one '
                   'per configuration) or in different files (<code>static</code> functions of the same '
                   'name): each is shown.</p>\n')
    for b in bases:
        ds = found[b][name]
        if not ds:
            out.append('<h2>%s</h2>\n<p>The %s base has no <code>%s()</code>.</p>\n' % (e(b), e(b), e(name)))
            continue
        for path, line, _ in ds:
            text, left = cut(claims.body(blobs[b].get(path, ""), line))
            out.append('<h2>%s: <code>%s</code>, line %d</h2>\n<pre class="kernel-code"><code>%s</code></pre>\n'
                       % (e(b), e(path), line, e(text)))
            if left:
                out.append('<p>… %d more lines: <code>%s</code> from line %d on.</p>\n'
                           % (left, e(path), line + MAX_LINES))
    for b in missing:
        out.append('<h2>%s</h2>\n<p>Not shown: this book was made without the %s tree '
                   '(<code>make tree KERNEL=%s</code> imports it).</p>\n' % (e(b), e(b), e(b)))
    out.append('</main>\n</body>\n</html>\n')
    return "".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description="one page per kernel function the book names")
    ap.add_argument("mode", choices=("pages", "list"))
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--top", default=os.path.dirname(HERE))
    ap.add_argument("--tree", action="append", default=[], metavar="BASE=DIR")
    a = ap.parse_args(argv)
    top = os.path.abspath(a.top)
    trees = dict(t.split("=", 1) for t in a.tree) if a.tree else claims.base_trees(top)
    names, bases, found, blobs = collect(top, trees)
    missing = [b for b in trees if b not in bases]
    if a.mode == "list":
        for n in sorted(names):
            print("%s %s" % (n, " ".join(b for b in bases if found[b][n]) or "-"))
        return 0
    if not a.outdir:
        ap.error("pages: OUTDIR is needed")
    if not bases:
        print("bookcode.py: no kernel tree: no code pages", file=sys.stderr)
        return 1
    os.makedirs(a.outdir, exist_ok=True)
    for f in os.listdir(a.outdir):
        if f.endswith(".html"):
            os.remove(os.path.join(a.outdir, f))
    for n in sorted(names):
        with open(os.path.join(a.outdir, n + ".html"), "w", encoding="utf-8") as f:
            f.write(page(n, names[n], bases, missing, found, blobs))
    with open(os.path.join(a.outdir, "names.txt"), "w", encoding="utf-8") as f:
        f.write("".join(n + "\n" for n in sorted(names)))
    print("%d code pages (%s%s)" % (len(names), " and ".join(bases),
                                    "; no tree of " + " or ".join(missing) if missing else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
