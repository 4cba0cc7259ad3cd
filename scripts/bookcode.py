#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The code the book names: one page per kernel function, both bases.

    bookcode.py pages OUTDIR [--top DIR] [--tree B=DIR]...
    bookcode.py list [--top DIR] [--tree B=DIR]...
    bookcode.py backlinks BOOKDIR

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
(book/claims-allow.txt) get no page; nor a name no base defines, nor one
too generic to stand for one function (choose(): a prototype is no
definition, a system call comes before a driver's function of the same
name, the kernel's core before drivers and architectures). "list" prints
each name with the bases that define it. Exit status 3: no kernel tree
(the book is made without links); any other failure is the tool's.

The pages sit one folder below the book's pages: they link to
../style.css and to the chapters that name the function (../lab-NN.html);
"backlinks", run once the book's pages are made, replaces those with the
pages that link to the function, each a section with its title.
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
# a body longer than this is cut, with the number of lines left out (a
# page stays under the book's 6,000 px)
MAX_LINES = 80
# a name defined in more places than this (after choose()) gets no page
MAX_DEFS = 4
# names the book uses for an operation that many types implement
# (proc's ->lookup()), not for one function of that name
OPERATIONS = {"lookup"}
# the kernel's core, in the order its definitions are shown
CORE = ("kernel/", "fs/", "net/", "ipc/", "security/", "mm/", "include/linux/", "include/net/",
        "include/uapi/", "include/", "init/", "lib/", "block/")
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

    cands = {}
    for n, chapters in named.items():
        if n in own or n in OPERATIONS or allow.get(n, "").startswith("history"):
            continue
        if any(where(b, n) for b in bases):
            cands[n] = chapters
    blobs = {}
    for b in bases:
        paths = {d[0] for n in cands for d in where(b, n)}
        blobs[b] = claims.read_blobs(trees[b], paths)
    found = {b: {} for b in bases}
    names = {}
    for n, chapters in cands.items():
        for b in bases:
            found[b][n] = choose([d for d in where(b, n) if claims.is_definition(blobs[b].get(d[0], ""), d[1])])
        if any(found[b][n] for b in bases) and all(len(found[b][n]) <= MAX_DEFS for b in bases):
            names[n] = chapters
    return names, bases, found, blobs


def rank(path):
    """the order definitions are shown in: the core of the kernel first"""
    for i, p in enumerate(CORE):
        if path.startswith(p):
            return i
    return len(CORE)


def choose(defs):
    """The definitions a page shows: a system call's alone when there is
    one (write(), stat(): a driver's static write() is not what the book
    means); else those in the kernel's core (CORE) when there are any,
    the drivers' and the architectures' only when nothing else defines
    the name. A name defined in more than MAX_DEFS places after that is
    too generic to stand for one function: it gets no page."""
    sys_ = [d for d in defs if d[2] == "syscall"]
    if sys_:
        defs = sys_
    # a function and a macro of the same name (map_write(): user
    # namespaces' and MTD's) are not one thing: the function is meant
    fns = [d for d in defs if d[2] == "fn"]
    if fns:
        defs = fns
    core = [d for d in defs if rank(d[0]) < len(CORE)]
    if core:
        defs = core
    return sorted(defs, key=lambda d: (rank(d[0]), d[0], d[1]))


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
        # "backlinks" puts the sections that link here in its place
        out.append('<p class="named-in">Named in: %s.</p>\n' % ", ".join(
            '<a href="../lab-%02d.html">chapter %d</a>' % (c, c) for c in sorted(chapters)))
    else:
        out.append('<p class="named-in"></p>\n')
    if any(len(found[b][name]) > 1 for b in bases):
        out.append('<p>A base with more than one definition of the name has them in <code>#ifdef</code> '
                   'branches (one per configuration) or in different files (<code>static</code> functions '
                   'of the same name): each is shown, the kernel\'s core first.</p>\n')
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


LINK = re.compile(r'href="code/(\w+)\.html"')
TITLE = re.compile(r"<title>(.*?)</title>", re.S)
NAMED_IN = re.compile(r'<p class="named-in">.*?</p>', re.S)


def book_order(title):
    """a page's place in the book from its title's number: "1.5 ...",
    "15 ...", "A.4 ..." (appendices after the chapters); none first"""
    m = re.match(r"([0-9]+|[A-Z])((?:\.[0-9]+)*)\s", title)
    if not m:
        return (-1,)
    head = int(m.group(1)) if m.group(1).isdigit() else 1000 + ord(m.group(1))
    return (head,) + tuple(int(x) for x in m.group(2).split(".")[1:])


def backlinks(outdir):
    """Once the book's pages are written (bookpages.py split): each code
    page's "Named in" names the pages that link to it, a chapter's
    section pages included, with their titles. Returns the number of
    code pages changed."""
    code = os.path.join(outdir, "code")
    where = {}
    for f in sorted(os.listdir(outdir)):
        if not f.endswith(".html"):
            continue
        with open(os.path.join(outdir, f), encoding="utf-8") as fh:
            text = fh.read()
        m = TITLE.search(text)
        title = m.group(1).split(" · ")[0] if m else f
        for n in dict.fromkeys(LINK.findall(text)):
            where.setdefault(n, []).append((f, title))
    changed = 0
    for n, pages in where.items():
        pages.sort(key=lambda ft: book_order(ft[1]))
        path = os.path.join(code, n + ".html")
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        para = '<p class="named-in">Named in: %s.</p>' % ", ".join(
            '<a href="../%s">%s</a>' % (html.escape(f), t) for f, t in pages)
        new = NAMED_IN.sub(lambda _: para, text, count=1)
        if new != text:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(new)
            changed += 1
    return changed


def main(argv=None):
    ap = argparse.ArgumentParser(description="one page per kernel function the book names")
    ap.add_argument("mode", choices=("pages", "list", "backlinks"))
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--top", default=os.path.dirname(HERE))
    ap.add_argument("--tree", action="append", default=[], metavar="BASE=DIR")
    a = ap.parse_args(argv)
    top = os.path.abspath(a.top)
    if a.mode == "backlinks":
        if not a.outdir:
            ap.error("backlinks: OUTDIR (the book's pages) is needed")
        print("%d code pages name the pages that link to them" % backlinks(a.outdir))
        return 0
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
        # not a failure: a book made where no tree was imported has no links
        print("bookcode.py: no kernel tree: no code pages", file=sys.stderr)
        return 3
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
