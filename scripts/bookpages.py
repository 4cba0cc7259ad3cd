#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The book's HTML, one page per chapter: split pandoc's single document.

    bookpages.py split BOOK.html OUTDIR   write OUTDIR/index.html (the title and
                                          the contents), one page per top-level
                                          section (introduction.html,
                                          course-map.html, lab-NN.html,
                                          appendix-X.html) and search-docs.js
    bookpages.py check OUTDIR             every internal link of every page
                                          leads to a file, and to an id in it

BOOK.html is pandoc's output with book/template.html: its parts between
<!--@name--> and <!--@/name--> markers (title, subtitle, author, toc, css,
body). Every page gets the sidebar (search box and contents), previous/next
links, tables in a box of their own (they scroll there, not the page), and
links to #ids of other pages rewritten to page.html#id. In a chapter, each
section that quotes the reference answer (the ones with a
<!-- reference-answer --> mark that book.sh puts before each quote of
solutions/) is folded in a <details>.

Warnings go to stderr as "warning: ..." lines; book.sh counts them.
Standard library only.
"""

import html
import json
import os
import re
import sys
from html.parser import HTMLParser

BOOK_TITLE = "User namespaces, patch by patch"
SECTION_RE = re.compile(r"<section\b[^>]*>|</section>")
ID_RE = re.compile(r'\bid="([^"]+)"')
HREF_RE = re.compile(r'href="#([^"]*)"')
ANSWER_MARK = "<!-- reference-answer -->"
ANSWER_SUMMARY = ("The reference answer: open it once you have tried the lab "
                  "yourself")


class BookError(Exception):
    pass


def parts(text):
    """{name: content} of the <!--@name-->...<!--@/name--> parts."""
    found = {}
    for m in re.finditer(r"<!--@([a-z]+)-->(.*?)<!--@/\1-->", text, re.S):
        found[m.group(1)] = m.group(2).strip()
    return found


def sections(body, level=1):
    """[(id, start, end)] of the sections of LEVEL (1: the top ones) in BODY,
    in order; end is just after the closing tag."""
    out, stack = [], []
    for m in SECTION_RE.finditer(body):
        tag = m.group(0)
        if tag.startswith("<section"):
            cls = re.search(r'\bclass="([^"]*)"', tag)
            sid = ID_RE.search(tag)
            stack.append((sid.group(1) if sid else "",
                          cls.group(1).split() if cls else [], m.start()))
        else:
            if not stack:
                raise BookError("a </section> closes nothing")
            sid, classes, start = stack.pop()
            if "level%d" % level in classes:
                out.append((sid, start, m.end()))
    if stack:
        raise BookError("a <section> is never closed")
    out.sort(key=lambda s: s[1])
    return out


def text_of(fragment):
    """The words of an HTML fragment, on one line."""
    fragment = re.sub(r"<!--.*?-->", " ", fragment, flags=re.S)
    fragment = re.sub(r"<[^>]+>", " ", fragment)
    return " ".join(html.unescape(fragment).split())


def heading(section_html, tag):
    """(inner HTML, text) of the first <TAG> of a section."""
    m = re.search(r"<%s\b[^>]*>(.*?)</%s>" % (tag, tag), section_html, re.S)
    if not m:
        return "", ""
    return m.group(1), text_of(m.group(1))


def page_of(sid):
    return sid + ".html"


def fold_answer(page):
    """Fold each level-2 section of PAGE that holds an answer mark (a quote of
    solutions/) in a <details>, under its heading; returns (page, number of
    folds, number of marks outside every level-2 section)."""
    marks = [m.start() for m in re.finditer(re.escape(ANSWER_MARK), page)]
    folds = [s for s in sections(page, 2) if any(s[1] < m < s[2] for m in marks)]
    stray = sum(1 for m in marks if not any(s[1] < m < s[2] for s in folds))
    for _, start, end in reversed(folds):
        h2 = page.find("</h2>", start, end)
        if h2 < 0:
            stray += 1
            continue
        h2 += len("</h2>")
        close = page.rfind("</section>", start, end)
        page = (page[:h2] + '\n<details class="answer">\n<summary>' + ANSWER_SUMMARY +
                "</summary>\n" + page[h2:close] + "</details>\n" + page[close:])
    return page, len(folds), stray


def wrap_tables(page):
    """Tables in a box of their own; a figure's image is a link to itself
    (full size, on a phone)."""
    page = re.sub(r"(<table\b.*?</table>)", r'<div class="table-wrap">\1</div>', page, flags=re.S)
    return re.sub(r'(<figure>\s*)(<img src="([^"]+)"[^>]*>)', r'\1<a href="\3">\2</a>', page)


def rewrite_links(fragment, here, where, warn, what):
    """href="#id" -> page.html#id for the ids of other pages (the page alone
    for a page's own top id); an id that is nowhere is a warning."""
    def sub(m):
        target = m.group(1)
        page = where.get(target)
        if page is None:
            warn("%s: a link to #%s, an id that no page has" % (what, target))
            return m.group(0)
        if page == here:
            return m.group(0)
        if target == page[:-len(".html")]:
            return 'href="%s"' % page
        return 'href="%s#%s"' % (page, target)
    return HREF_RE.sub(sub, fragment)


def sidebar(toc, current):
    """The sidebar: search box and contents, the current page marked (its
    sections shown, the others' hidden by the style sheet)."""
    toc = re.sub(r'\s+id="toc-[^"]*"', "", toc)
    if current:
        toc = toc.replace('<li><a href="%s">' % current,
                          '<li class="current"><a aria-current="page" href="%s">' % current, 1)
    return ('<nav id="sidebar" aria-label="Contents and search">\n'
            '<p class="book-title"><a href="index.html">%s</a></p>\n'
            '<div class="search" role="search">\n'
            '<label for="search-input" class="visually-hidden">Search the book</label>\n'
            '<input type="search" id="search-input" placeholder="Search the book" '
            'autocomplete="off" spellcheck="false">\n'
            '<ol id="search-results" aria-live="polite"></ol>\n'
            '</div>\n'
            '<div class="sidebar-toc">\n%s\n</div>\n</nav>\n' % (html.escape(BOOK_TITLE), toc))


def pagenav(prev, nxt, cls):
    """Previous/next links: PREV and NXT are (file, label) or None."""
    out = ['<nav class="pagenav %s" aria-label="Previous and next">' % cls]
    if prev:
        out.append('<a class="prev" rel="prev" href="%s">← %s</a>' % (prev[0], html.escape(prev[1])))
    else:
        out.append('<span class="prev"></span>')
    out.append('<a class="to-sidebar" href="#sidebar">Contents and search</a>')
    if nxt:
        out.append('<a class="next" rel="next" href="%s">%s →</a>' % (nxt[0], html.escape(nxt[1])))
    else:
        out.append('<span class="next"></span>')
    out.append("</nav>")
    return "\n".join(out) + "\n"


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="pandoc, scripts/bookpages.py">
<title>{title}</title>
<link rel="stylesheet" href="style.css">
{links}<style>
{css}
</style>
<script src="lunr.min.js" defer></script>
<script src="search-docs.js" defer></script>
<script src="search.js" defer></script>
</head>
<body class="page">
<div class="book">
<main id="main">
{top}{content}
{bottom}</main>
{sidebar}</div>
</body>
</html>
"""


def split(src, outdir, warn):
    """Write the pages of SRC (pandoc's HTML) into OUTDIR; returns the list of
    (file, title) written, index.html first."""
    p = parts(src)
    for name in ("title", "toc", "body"):
        if name not in p:
            raise BookError("%s has no <!--@%s--> part (is it made with book/template.html?)" % ("input", name))
    body = p["body"]
    tops = sections(body, 1)
    if not tops:
        raise BookError("the book has no top-level <section>: render it with --section-divs")
    pages = []          # (sid, file, html, label, title text)
    where = {}          # id -> file
    for sid, start, end in tops:
        if not sid:
            raise BookError("a top-level section has no id")
        frag = body[start:end]
        _, text = heading(frag, "h1")
        pages.append([sid, page_of(sid), frag, text])
        for i in ID_RE.findall(frag):
            where[i] = page_of(sid)
    for i in ID_RE.findall(body[:tops[0][1]] + body[tops[-1][2]:]):
        warn("an id outside every chapter: #%s" % i)
    where.setdefault("TOC", "index.html")
    css = p.get("css", "")
    toc = rewrite_links(p["toc"], "index.html", where, warn, "the contents")
    order = [("index.html", "Contents")] + [(pg[1], pg[3]) for pg in pages]
    written = []

    def write(name, title, content, i):
        prev = order[i - 1] if i > 0 else None
        nxt = order[i + 1] if i + 1 < len(order) else None
        links = ""
        if prev:
            links += '<link rel="prev" href="%s">\n' % prev[0]
        if nxt:
            links += '<link rel="next" href="%s">\n' % nxt[0]
        doc = PAGE.format(title=html.escape(title), links=links, css=css,
                          top=pagenav(prev, nxt, "top"), content=content,
                          bottom=pagenav(prev, nxt, "bottom"),
                          sidebar=sidebar(toc, name if name != "index.html" else ""))
        with open(os.path.join(outdir, name), "w", encoding="utf-8") as f:
            f.write(doc)
        written.append((name, title))

    head = ['<header id="title-block-header">',
            '<h1 class="title">%s</h1>' % p.get("title", html.escape(BOOK_TITLE))]
    if p.get("subtitle"):
        head.append('<p class="subtitle">%s</p>' % p["subtitle"])
    if p.get("author"):
        head.append('<p class="author">%s</p>' % p["author"])
    head.append("</header>")
    index = ("\n".join(head) + '\n<nav id="TOC" role="doc-toc">\n<h2 id="toc-title">Contents</h2>\n' +
             re.sub(r'\s+id="toc-[^"]*"', "", toc) + "\n</nav>\n")
    write("index.html", BOOK_TITLE, index, 0)
    docs = []
    for i, (sid, name, frag, text) in enumerate(pages, 1):
        frag = rewrite_links(frag, name, where, warn, name)
        if sid.startswith("lab-"):
            frag, _, stray = fold_answer(frag)
            if stray:
                warn("%s: a quote of solutions/ is outside every section (##), so it is not folded" % name)
        frag = wrap_tables(frag)
        docs.extend(search_docs(frag, name, text))
        write(name, "%s · %s" % (text, BOOK_TITLE), frag, i)
    with open(os.path.join(outdir, "search-docs.js"), "w", encoding="utf-8") as f:
        f.write("/* The book's sections, for search.js (made by scripts/bookpages.py) */\n"
                "var BOOK_SEARCH_DOCS = ")
        json.dump(docs, f, ensure_ascii=False, separators=(",", ":"))
        f.write(";\n")
    return written


def search_docs(page, name, page_title):
    """The documents of the search index for one page: its lead (what comes
    before its first level-2 section) and each level-2 section."""
    docs = []
    subs = sections(page, 2)
    lead, last = [], 0
    for _, s, e in subs:
        lead.append(page[last:s])
        last = e
    lead.append(page[last:])
    top = ID_RE.search(page).group(1)
    docs.append({"url": name, "title": page_title, "page": page_title,
                 "text": text_of(re.sub(r"<h1\b.*?</h1>", " ", "".join(lead), flags=re.S))})
    for sid, s, e in subs:
        frag = page[s:e]
        _, title = heading(frag, "h2")
        docs.append({"url": "%s#%s" % (name, sid) if sid != top else name, "title": title,
                     "page": page_title,
                     "text": text_of(re.sub(r"<h2\b.*?</h2>", " ", frag, count=1, flags=re.S))})
    return docs


# --- the link check ----------------------------------------------------------

class _Links(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        for key in ("href", "src"):
            if a.get(key) is not None:
                self.links.append((tag, a[key], self.getpos()[0]))


def _parse(path):
    p = _Links()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    p.close()
    return p


def check(outdir):
    """Every href/src of every page of OUTDIR that is not an absolute URL
    leads to a file that exists, and its #fragment to an id of that page.
    Returns (number of links checked, [problems])."""
    parsed, problems, n = {}, [], 0
    pages = sorted(f for f in os.listdir(outdir) if f.endswith(".html"))
    for name in pages:
        parsed[os.path.join(outdir, name)] = _parse(os.path.join(outdir, name))
    for name in pages:
        path = os.path.join(outdir, name)
        for tag, link, line in parsed[path].links:
            if re.match(r"^[a-z][a-z0-9+.-]*:", link, re.I) or link.startswith("//"):
                continue
            n += 1
            target, _, frag = link.partition("#")
            target = os.path.normpath(os.path.join(outdir, target)) if target else path
            if not os.path.exists(target):
                problems.append("%s:%d: <%s> %s: no file %s" % (name, line, tag, link, target))
                continue
            if frag and target.endswith(".html"):
                if target not in parsed:
                    parsed[target] = _parse(target)
                if frag not in parsed[target].ids:
                    problems.append("%s:%d: <%s> %s: no id '%s' in %s" %
                                    (name, line, tag, link, frag, os.path.basename(target)))
    return n, problems


def main(argv):
    def warn(msg):
        print("warning: " + msg, file=sys.stderr)
    try:
        if len(argv) == 4 and argv[1] == "split":
            with open(argv[2], encoding="utf-8") as f:
                src = f.read()
            written = split(src, argv[3], warn)
            print("%d pages" % len(written))
            return 0
        if len(argv) == 3 and argv[1] == "check":
            n, problems = check(argv[2])
            for p in problems:
                print(p)
            print("%d links checked, %d broken" % (n, len(problems)))
            return 1 if problems else 0
    except (BookError, OSError) as e:
        print("bookpages.py: %s" % e, file=sys.stderr)
        return 1
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
