#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The book's HTML, one page per chapter: split pandoc's single document.

    bookpages.py split BOOK.html OUTDIR   write OUTDIR/index.html (the title,
                                          the licence and the contents), one
                                          page per top-level section
                                          (introduction.html, course-map.html,
                                          lab-NN.html, appendix-X.html), a page
                                          per level-2 section of the long ones,
                                          and search-docs.js
    bookpages.py check OUTDIR             every internal link of every page
                                          leads to a file, and to an id in it
    bookpages.py figures OUTDIR           each figure's SVG: its natural width,
                                          its smallest text, and the width it
                                          is never drawn below (min-width)

BOOK.html is pandoc's output with book/template.html: its parts between
<!--@name--> and <!--@/name--> markers (title, subtitle, author, rights, toc,
css, body). Every page gets the sidebar (search box and contents),
previous/next links, the licence in its metadata, tables in a box of their
own (they scroll there, not the page), and links to #ids of other pages
rewritten to page.html#id. In a chapter, each section that quotes the
reference answer (the ones with a <!-- reference-answer --> mark that book.sh
puts before each quote of solutions/) is folded in a <details>.

A top-level section that would be taller than SPLIT_AT px on a 1280 px
screen (estimate_height(): its text, code lines, tables and figures, its
folded answers closed) keeps its opening (what comes before its first
level-2 section, and a list of its sections) on its page, and each of its
level-2 sections goes on a page of its own, named after the section's id
(lab-15-the-problem.html). tests/book.sh measures every page in chromium.

Figures: the text of a figure is never drawn smaller than MIN_FIGURE_FONT
px: its <img> gets a min-width (from its SVG's width, viewBox and smallest
font-size) and scrolls sideways in its box on a narrow screen.

Tables: a code span in a table never breaks inside (style.css); a long one
may break after a "/" or a "_", where this puts a <wbr> between spans that
do not break.

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


# --- figures -------------------------------------------------------------------

MIN_FIGURE_FONT = 12    # px: a figure's smallest text, on any screen
PT = 4 / 3              # px per pt (CSS)


def _length(value):
    """A length of an SVG attribute in px (pt, px, in, or none)."""
    m = re.match(r"\s*([0-9.]+)\s*(pt|px|in|)\s*$", value or "")
    if not m:
        return None
    return float(m.group(1)) * {"pt": PT, "px": 1, "in": 96, "": 1}[m.group(2)]


def svg_facts(svg):
    """What sizes an SVG's text: {"width", "height"} (px, its natural size),
    "vbw" (its viewBox's width), "font" (its smallest font-size, in viewBox
    units: times the scale() of graphviz's top group), and "min_width" (px:
    the width below which that text would be smaller than MIN_FIGURE_FONT
    px). Drawn RW px wide, its smallest text is font * RW / vbw px."""
    root = re.search(r"<svg\b[^>]*>", svg)
    if not root:
        raise BookError("not an SVG")
    tag = root.group(0)

    def attr(name):
        m = re.search(r'\s%s="([^"]*)"' % name, tag)
        return m.group(1) if m else None
    box = [float(v) for v in (attr("viewBox") or "").replace(",", " ").split()]
    width, height = _length(attr("width")), _length(attr("height"))
    if len(box) != 4 or box[2] <= 0:
        if width is None or height is None:
            raise BookError("an SVG with neither a viewBox nor a width and height")
        box = [0, 0, width, height]
    width = width if width is not None else box[2]
    height = height if height is not None else box[3] * width / box[2]
    scale = re.search(r'transform="scale\(([0-9.]+)', svg[root.end():])
    sizes = [float(v) for v in re.findall(r'font-size[=:]\s*"?([0-9.]+)', svg[root.end():])]
    font = min(sizes) * (float(scale.group(1)) if scale else 1) if sizes else None
    return {"width": width, "height": height, "vbw": box[2], "font": font,
            "min_width": (int(-(-MIN_FIGURE_FONT * box[2] // font)) if font else 0)}


_FACTS = {}              # (path, size, mtime) -> svg_facts()


def figure_facts(src, figdir):
    """svg_facts() of the figure SRC (figures/NAME.svg, relative to FIGDIR),
    or None when it is not an SVG there."""
    path = os.path.join(figdir, src)
    if not src.endswith(".svg") or not os.path.isfile(path):
        return None
    st = os.stat(path)
    key = (path, st.st_size, st.st_mtime_ns)
    if key not in _FACTS:
        with open(path, encoding="utf-8") as f:
            _FACTS[key] = svg_facts(f.read())
    return _FACTS[key]


# --- the height of a page, estimated -------------------------------------------

SPLIT_AT = 5000         # px: a top-level section estimated taller is split
TEXT_WIDTH = 832        # px: main's text at 1280 px (its max-width, 52em of 16 px)
LINE = 24               # px: a line of text (16 px, line-height 1.5)
CHARS = 92              # characters in a line of TEXT_WIDTH
CODE_LINE = 19.5        # px: a line of a code block
FIGURE_BOX = 15         # px: the figure's box (padding, border) on each side


def _lines(n, per_line):
    return max(1, -(-n // max(1, int(per_line))))


def estimate_height(fragment, figdir=""):
    """The height (px) of an HTML fragment of the book on a 1280 px screen,
    its folded answers closed: headings, paragraphs and list items by their
    words, code blocks by their lines, tables by their rows, figures by their
    SVG's size. Within a few percent of chromium's for the book's pages
    (tests/book.sh measures those)."""
    frag = re.sub(r"<details\b.*?</details>", "<p>the reference answer</p>", fragment, flags=re.S)
    h = 0.0
    for m in re.finditer(r"<figure\b.*?</figure>", frag, re.S):
        img = re.search(r'<img src="([^"]+)"', m.group(0))
        facts = figure_facts(img.group(1), figdir) if img else None
        if facts:
            w = max(min(facts["width"], TEXT_WIDTH - 2 * FIGURE_BOX), facts["min_width"])
            h += facts["height"] * w / facts["width"] + 2 * FIGURE_BOX
    frag = re.sub(r"<figure\b.*?(<figcaption>.*?</figcaption>)?\s*</figure>",
                  lambda m: "<p>%s</p>" % (m.group(1) or ""), frag, flags=re.S)
    for m in re.finditer(r"<pre\b.*?</pre>", frag, re.S):
        h += CODE_LINE * (m.group(0).count("\n") + 1) + 40
    frag = re.sub(r"<pre\b.*?</pre>", " ", frag, flags=re.S)
    for m in re.finditer(r"<table\b.*?</table>", frag, re.S):
        for tr in re.findall(r"<tr\b.*?</tr>", m.group(0), re.S):
            cells = [len(text_of(c)) for c in re.findall(r"<t[dh]\b.*?</t[dh]>", tr, re.S)]
            if cells:
                h += LINE * max(_lines(c, 0.8 * CHARS / len(cells)) for c in cells) + 10
        h += 30
    frag = re.sub(r"<table\b.*?</table>", " ", frag, flags=re.S)
    for m in re.finditer(r"<h([1-6])\b.*?</h\1>", frag, re.S):
        h += {"1": 90, "2": 70}.get(m.group(1), 55) * _lines(len(text_of(m.group(0))), 50)
    frag = re.sub(r"<h([1-6])\b.*?</h\1>", " ", frag, flags=re.S)
    for m in re.finditer(r"<(p|li|dt|dd)\b[^>]*>(.*?)</\1>", frag, re.S):
        h += LINE * _lines(len(text_of(m.group(2))), CHARS) + 12
    return int(h)


# --- what every page gets ------------------------------------------------------

def _code_breaks(m):
    """A code span of a table: a <wbr> after a "/" or a "_" between parts of
    6 characters or more, each part in a span that does not break."""
    text = m.group(1)
    if len(html.unescape(text)) < 12:
        return m.group(0)
    parts = []
    for piece in re.split(r"(?<=[A-Za-z0-9.][/_])(?=[A-Za-z0-9])", text):
        if parts and len(html.unescape(parts[-1])) < 6:
            parts[-1] += piece
        else:
            parts.append(piece)
    if len(parts) > 1 and len(html.unescape(parts[-1])) < 6:
        parts[-2:] = [parts[-2] + parts[-1]]
    if len(parts) == 1:
        return m.group(0)
    return '<code class="brk">%s</code>' % "<wbr>".join("<span>%s</span>" % p for p in parts)


def dress(page, figdir=""):
    """Tables in a box of their own, without pandoc's column widths, their
    code spans broken only where _code_breaks() says; a figure's image in a
    box that scrolls, a link to itself (full size), and never narrower than
    its text allows (svg_facts())."""
    def table(m):
        t = re.sub(r"<colgroup>.*?</colgroup>\s*", "", m.group(1), flags=re.S)
        return '<div class="table-wrap">%s</div>' % re.sub(r"<code>([^<]*)</code>", _code_breaks, t)
    page = re.sub(r"(<table\b.*?</table>)", table, page, flags=re.S)

    def figure(m):
        src = m.group(3)
        facts = figure_facts(src, figdir)
        img = m.group(2)
        if facts and facts["min_width"]:
            img = img.replace('<img src="%s"' % src, '<img src="%s" style="min-width: %dpx"'
                              % (src, facts["min_width"]), 1)
        return '%s<div class="figure-box"><a href="%s">%s</a></div>' % (m.group(1), src, img)
    return re.sub(r'(<figure>\s*)(<img src="([^"]+)"[^>]*>)', figure, page)


def url_of(target, here, where):
    """The link to id TARGET from page HERE: #id on its own page, the page
    alone for a page's own top id, else page.html#id (None: no page has it)."""
    page = where.get(target)
    if page is None:
        return None
    if page == here:
        return "#" + target
    if target == page[:-len(".html")]:
        return page
    return "%s#%s" % (page, target)


def rewrite_links(fragment, here, where, warn, what):
    """href="#id" -> page.html#id for the ids of other pages (the page alone
    for a page's own top id); an id that is nowhere is a warning."""
    def sub(m):
        url = url_of(m.group(1), here, where)
        if url is None:
            warn("%s: a link to #%s, an id that no page has" % (what, m.group(1)))
            return m.group(0)
        return 'href="%s"' % url
    return HREF_RE.sub(sub, fragment)


def sidebar(toc, current, parent=None):
    """The sidebar: search box and contents, the current page marked (its
    sections shown, the others' hidden by the style sheet; for a section's
    page, its chapter marked open, so that its sections show)."""
    toc = re.sub(r'\s+id="toc-[^"]*"', "", toc)
    toc = re.sub(r"<([a-z]+)\s+", r"<\1 ", toc)     # pandoc wraps its lines in a tag too
    if current:
        toc = toc.replace('<li><a href="%s">' % current,
                          '<li class="current"><a aria-current="page" href="%s">' % current, 1)
    if parent:
        toc = toc.replace('<li><a href="%s">' % parent, '<li class="open"><a href="%s">' % parent, 1)
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


def licence(rights):
    """(the <head> lines, the HTML of the first page) of the book's rights
    (metadata.yaml, pandoc's HTML): its first URL is the licence's."""
    if not rights:
        return "", ""
    text = text_of(rights)
    url = re.search(r"https?://[^\s()<>\"]+[^\s()<>\".,;:]", text)
    head = '<meta name="dcterms.rights" content="%s">\n' % html.escape(text)
    if url:
        head += '<link rel="license" href="%s">\n' % html.escape(url.group(0))
    shown = re.sub(r"https?://[^\s()<>\"]+[^\s()<>\".,;:]",
                   lambda m: '<a rel="license" href="%s">%s</a>' % (m.group(0), m.group(0)), rights)
    return head, '<p class="rights">%s</p>' % shown


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="pandoc, scripts/bookpages.py">
{rights}<title>{title}</title>
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


def clean_heading(inner):
    """A heading's inner HTML, for a link's text: no ids, no links."""
    inner = re.sub(r'\s+id="[^"]*"', "", inner)
    return re.sub(r"</?a\b[^>]*>", "", inner).strip()


def cut(sid, frag, title_html, figdir):
    """The pages of a top-level section: [(id, html, label, parent id)].
    One, or (when it is estimated taller than SPLIT_AT px and has level-2
    sections) its opening with the list of its sections, and each section."""
    subs = sections(frag, 2)
    if not subs or estimate_height(frag, figdir) <= SPLIT_AT:
        return [(sid, frag, None, None)]
    close = frag.rindex("</section>")
    items, pages = [], []
    for i, (sub, start, end) in enumerate(subs):
        if not sub:
            raise BookError("a section of #%s has no id" % sid)
        inner, text = heading(frag[start:end], "h2")
        items.append('<li><a href="#%s">%s</a></li>' % (sub, clean_heading(inner)))
        stop = subs[i + 1][1] if i + 1 < len(subs) else close
        crumb = ('<p class="breadcrumb"><a href="#%s">%s</a></p>\n' % (sid, clean_heading(title_html)))
        pages.append((sub, crumb + frag[start:stop].rstrip() + "\n", text, sid))
    opening = (frag[:subs[0][1]].rstrip() + '\n<nav class="chapter-toc" aria-label="Sections">\n'
               '<p>In this chapter:</p>\n<ul>\n%s\n</ul>\n</nav>\n</section>\n' % "\n".join(items))
    return [(sid, opening, None, None)] + pages


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
    pages = []          # [file, html, label, title, parent file]
    where = {}          # id -> file
    docs = []
    for sid, start, end in tops:
        if not sid:
            raise BookError("a top-level section has no id")
        frag = body[start:end]
        h1, text = heading(frag, "h1")
        if sid.startswith("lab-"):
            frag, _, stray = fold_answer(frag)
            if stray:
                warn("%s: a quote of solutions/ is outside every section (##), so it is not folded" % page_of(sid))
        docs.extend(search_docs(frag, page_of(sid), text))
        for pid, html_, label, parent in cut(sid, frag, h1, outdir):
            name = page_of(pid)
            if name == "index.html" or any(pg[0] == name for pg in pages):
                raise BookError("two pages named %s" % name)
            title = text if parent is None else "%s · %s" % (label, text)
            pages.append([name, html_, label or text, title, page_of(parent) if parent else None])
            for i in ID_RE.findall(html_):
                where.setdefault(i, name)
    for i in ID_RE.findall(body[:tops[0][1]] + body[tops[-1][2]:]):
        warn("an id outside every chapter: #%s" % i)
    where.setdefault("TOC", "index.html")
    css = p.get("css", "")
    rights_head, rights_html = licence(p.get("rights", ""))
    toc = rewrite_links(p["toc"], "index.html", where, warn, "the contents")
    order = [("index.html", "Contents")] + [(pg[0], pg[2]) for pg in pages]
    written = []

    def write(name, title, content, i, parent=None):
        prev = order[i - 1] if i > 0 else None
        nxt = order[i + 1] if i + 1 < len(order) else None
        links = ""
        if prev:
            links += '<link rel="prev" href="%s">\n' % prev[0]
        if nxt:
            links += '<link rel="next" href="%s">\n' % nxt[0]
        doc = PAGE.format(title=html.escape(title), links=links, css=css, rights=rights_head,
                          top=pagenav(prev, nxt, "top"), content=content,
                          bottom=pagenav(prev, nxt, "bottom"),
                          sidebar=sidebar(toc, name if name != "index.html" else "", parent))
        with open(os.path.join(outdir, name), "w", encoding="utf-8") as f:
            f.write(doc)
        written.append((name, title))

    head = ['<header id="title-block-header">',
            '<h1 class="title">%s</h1>' % p.get("title", html.escape(BOOK_TITLE))]
    if p.get("subtitle"):
        head.append('<p class="subtitle">%s</p>' % p["subtitle"])
    if p.get("author"):
        head.append('<p class="author">%s</p>' % p["author"])
    if rights_html:
        head.append(rights_html)
    head.append("</header>")
    index = ("\n".join(head) + '\n<nav id="TOC" role="doc-toc">\n<h2 id="toc-title">Contents</h2>\n' +
             re.sub(r'\s+id="toc-[^"]*"', "", toc) + "\n</nav>\n")
    write("index.html", BOOK_TITLE, index, 0)
    moved = {}          # a split section's page -> {a section's id: its page now}
    parents = {pg[0]: pg[4] for pg in pages if pg[4]}
    for pg in pages:
        for i in re.findall(r'<section id="([^"]+)"', pg[1]) if pg[0] in parents else ():
            moved.setdefault(parents[pg[0]], {})[i] = url_of(i, parents[pg[0]], where)
    for i, (name, frag, _, title, parent) in enumerate(pages, 1):
        frag = rewrite_links(frag, name, where, warn, name)
        if name in moved:
            # an old link to page.html#id of a section now on its own page
            frag += ('<script>(function () { var m = %s, h = decodeURIComponent(location.hash.slice(1)); '
                     'if (m.hasOwnProperty(h)) location.replace(m[h]); })();</script>\n'
                     % json.dumps(moved[name], sort_keys=True, separators=(",", ":")))
        write(name, "%s · %s" % (title, BOOK_TITLE), dress(frag, outdir), i, parent)
    for d in docs:
        page, _, frag = d["url"].partition("#")
        d["url"] = url_of(frag, None, where) if frag else page
    with open(os.path.join(outdir, "search-docs.js"), "w", encoding="utf-8") as f:
        f.write("/* The book's sections, for search.js (made by scripts/bookpages.py) */\n"
                "var BOOK_SEARCH_DOCS = ")
        json.dump(docs, f, ensure_ascii=False, separators=(",", ":"))
        f.write(";\n")
    return written


def search_docs(page, name, page_title):
    """The documents of the search index for one top-level section: its lead
    (what comes before its first level-2 section) and each level-2 section
    (NAME#id: split() points it to the page that holds the id)."""
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
        if len(argv) == 3 and argv[1] == "figures":
            figdir = os.path.join(argv[2], "figures")
            for name in sorted(os.listdir(figdir)):
                if name.endswith(".svg"):
                    f = figure_facts("figures/" + name, argv[2])
                    print("%s width=%d height=%d viewbox=%g font=%g min-width=%d" % (
                        name, f["width"], f["height"], f["vbw"], f["font"] or 0, f["min_width"]))
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
