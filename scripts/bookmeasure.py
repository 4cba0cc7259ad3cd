#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The book's HTML pages as chromium draws them: their heights, their figures,
their tables; and screenshots.

    bookmeasure.py measure OUTDIR [--width W]... [PAGE]...
        one JSON line per page (every page of OUTDIR, or the PAGEs) and width
        (1280 unless given): {"page", "width", "height": the page's height in
        px, its folded answers closed, "open": with them open, "wide": the
        width of its body, answers open (wider than the screen: something
        does not scroll in its own box), "figures": [{"src", "width": its
        <img> as drawn, px}], "breaks": [the text of each table's code span
        that chromium broke inside, not at one of its <wbr>]}; the figures
        with the answers open (a figure may be in one)
    bookmeasure.py shot OUTDIR PAGE WIDTH PNG [--height H | --figure SRC]
        a PNG of PAGE drawn WIDTH px wide: the whole page, its first H px, or
        the part that shows the figure SRC (figures/NAME.svg; the page's
        folded answers open)
    bookmeasure.py pdf PRINT.html [A4|letter]
        the PDF's pages as weasyprint lays them out (book.sh --pdf prints
        PRINT.html with it; run this with weasyprint's Python): one JSON
        line, {"pages", "blocks": code blocks, "split": [{"pages", "lines"
        on each, "fits": it would fit on one page}], "headings": [page,
        text] of each heading that ends a page, "wide": [page, tag, px] of
        each box wider than the page's text}

Every page is drawn in an <iframe> of the width asked for, inside one page
that chromium opens (one chromium for all the pages; and a headless
chromium's own window is never narrower than 500 px). The pages are copied
into a folder of OUTDIR with a script that reports to that page; the copies
leave out the search scripts, which draw nothing until a search.

Standard library only; chromium (Debian's package) does the drawing, and
weasyprint's Python (Debian's python3-weasyprint) the pdf layout.
"""

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

CHROMIUM = os.environ.get("CHROMIUM", "chromium")
VIEW_HEIGHT = 900       # px: the screen's height (the sidebar is as tall)
AT_ONCE = 4             # pages drawn at the same time

# In each page: once it is drawn, its sizes, sent to the page that holds it.
REPORT = """<script>
window.addEventListener("load", function () { setTimeout(function () {
var d = document.documentElement, b = document.body, r = {page: %(page)s, width: window.innerWidth};
function height() { return Math.ceil(Math.max(d.scrollHeight, b.scrollHeight, d.getBoundingClientRect().height)); }
r.height = height();
r.breaks = [];
[].forEach.call(document.querySelectorAll("td code, th code"), function (c) {
  var w = document.createTreeWalker(c, NodeFilter.SHOW_TEXT), t, rg, tops;
  while ((t = w.nextNode())) {
    rg = document.createRange(); rg.selectNodeContents(t); tops = {};
    [].forEach.call(rg.getClientRects(), function (q) { if (q.width > 0) tops[Math.round(q.top)] = 1; });
    if (Object.keys(tops).length > 1) { r.breaks.push(c.textContent); break; }
  }
});
[].forEach.call(document.querySelectorAll("details"), function (x) { x.open = true; });
r.open = height();
r.figures = [].map.call(document.querySelectorAll("figure img"), function (i) {
  var q = i.getBoundingClientRect(), f = i.closest("figure").getBoundingClientRect();
  return {src: i.getAttribute("src"), width: Math.round(q.width * 100) / 100,
          top: Math.round(f.top + window.scrollY), box: Math.round(f.height)}; });
r.wide = Math.max(b.scrollWidth, d.scrollWidth);
parent.postMessage(r, "*");
}, 0); });
</script>
"""

# The page that opens the pages: a few at a time, each in an iframe of its
# width, their reports in an attribute of its <body> (chromium --dump-dom).
HARNESS = """<!DOCTYPE html>
<html><head><meta charset="utf-8"></head><body style="margin:0">
<script>
var jobs = %(jobs)s, res = [], next = 0, live = 0;
function go() {
  while (live < %(at_once)d && next < jobs.length) {
    var j = jobs[next++], f = document.createElement("iframe");
    f.style.cssText = "display:block;border:0;width:" + j.width + "px;height:%(view)dpx";
    f.src = j.src;
    document.body.appendChild(f);
    live++;
  }
  if (!live) document.body.setAttribute("data-results", JSON.stringify(res));
}
window.addEventListener("message", function (e) {
  var fs = document.getElementsByTagName("iframe"), k;
  res.push(e.data);
  live--;
  for (k = 0; k < fs.length; k++) if (fs[k].contentWindow === e.source) { fs[k].remove(); break; }
  go();
});
go();
</script>
</body></html>
"""

# The page that is photographed: one iframe, WIDTH px wide, moved up by TOP
# px, in a window WIDTH px wide and HEIGHT px tall.
FRAME = """<!DOCTYPE html>
<html><head><meta charset="utf-8"></head><body style="margin:0;overflow:hidden">
<iframe src="%(src)s" style="display:block;border:0;position:absolute;left:0;top:-%(top)dpx;width:%(width)dpx;height:%(full)dpx"></iframe>
</body></html>
"""


class MeasureError(Exception):
    pass


OPEN = """<script>[].forEach.call(document.querySelectorAll("details"), function (x) { x.open = true; });</script>
"""


def copies(outdir, pages, report=True, unfold=False):
    """A folder in OUTDIR with the PAGES, each with a <base> to OUTDIR, no
    search scripts, and (REPORT) the script that reports its sizes, or
    (UNFOLD) one that opens its folded answers."""
    work = tempfile.mkdtemp(prefix=".measure-", dir=os.path.abspath(outdir))
    for page in pages:
        with open(os.path.join(outdir, page), encoding="utf-8") as f:
            text = f.read()
        text = text.replace("<head>", '<head>\n<base href="../">', 1)
        text = re.sub(r'<script src="(lunr\.min|search-docs|search)\.js" defer></script>\n?', "", text)
        if report:
            text = text.replace("</body>", REPORT % {"page": json.dumps(page)} + "</body>", 1)
        elif unfold:
            text = text.replace("</body>", OPEN + "</body>", 1)
        with open(os.path.join(work, page), "w", encoding="utf-8") as f:
            f.write(text)
    return work


def chromium(args, timeout=600):
    """Run headless chromium with ARGS, its profile a fresh folder; its
    standard output."""
    prof = tempfile.mkdtemp(prefix="bookmeasure-")
    try:
        r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                            "--no-first-run", "--disable-background-networking",
                            "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                            "--user-data-dir=" + prof] + args,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise MeasureError("chromium: %s" % e)
    finally:
        shutil.rmtree(prof, ignore_errors=True)
    return r.stdout


def measure(outdir, pages, widths):
    """[report] of each page at each width (REPORT's fields)."""
    work = copies(outdir, pages)
    try:
        jobs = [{"src": p, "width": w} for w in widths for p in pages]
        with open(os.path.join(work, "harness.html"), "w", encoding="utf-8") as f:
            f.write(HARNESS % {"jobs": json.dumps(jobs), "at_once": AT_ONCE, "view": VIEW_HEIGHT})
        dom = chromium(["--window-size=%d,%d" % (max(widths) + 20, VIEW_HEIGHT),
                        "--virtual-time-budget=%d" % (60000 + 2000 * len(jobs)),
                        "--dump-dom", "file://" + os.path.join(work, "harness.html")])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    m = re.search(r'data-results="([^"]*)"', dom)
    if not m:
        raise MeasureError("chromium reported on none of the %d pages" % len(jobs))
    res = json.loads(html.unescape(m.group(1)))
    if len(res) != len(jobs):
        raise MeasureError("chromium reported %d of %d pages" % (len(res), len(jobs)))
    order = {(j["src"], j["width"]): i for i, j in enumerate(jobs)}
    return sorted(res, key=lambda r: order.get((r["page"], r["width"]), 0))


def shot(outdir, page, width, png, height=None, figure=None):
    """A PNG of PAGE drawn WIDTH px wide (see the usage); returns (top,
    height) of the part photographed, px."""
    r = measure(outdir, [page], [width])[0]
    top, tall = 0, r["height"]
    if figure:
        figs = [f for f in r["figures"] if f["src"] == figure]
        if not figs:
            raise MeasureError("%s has no figure %s" % (page, figure))
        top, tall = max(0, figs[0]["top"] - 16), figs[0]["box"] + 32
    elif height:
        tall = min(tall, height)
    work = copies(outdir, [page], report=False, unfold=bool(figure))
    try:
        with open(os.path.join(work, "frame.html"), "w", encoding="utf-8") as f:
            f.write(FRAME % {"src": page, "top": top, "width": width,
                             "full": r["open"] if figure else r["height"]})
        chromium(["--window-size=%d,%d" % (width, tall), "--virtual-time-budget=20000",
                  "--screenshot=" + os.path.abspath(png), "file://" + os.path.join(work, "frame.html")])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not os.path.isfile(png):
        raise MeasureError("chromium made no %s" % png)
    return top, tall


def pdf_layout(src, paper="A4"):
    """The layout weasyprint makes of SRC (the book's print.html): see the
    usage, "pdf"."""
    try:
        from weasyprint import CSS, HTML
    except ImportError as e:
        raise MeasureError("no weasyprint module in this Python (%s): run me with weasyprint's" % e)
    doc = HTML(filename=src).render(stylesheets=[CSS(string="@page { size: %s; }" % paper)])

    def walk(box):
        yield box
        for c in getattr(box, "children", None) or []:
            yield from walk(c)
    blocks, heads, wide, room = {}, [], [], 0
    for n, page in enumerate(doc.pages, 1):
        pb = page._page_box
        room = pb.height
        right = pb.content_box_x() + pb.width
        boxes = list(walk(pb))
        for b in boxes:
            tag = getattr(b, "element_tag", None)
            if tag == "pre" and type(b).__name__ == "BlockBox":
                lines = sum(1 for c in b.children if type(c).__name__ == "LineBox")
                blocks.setdefault(b.element, []).append((n, lines, b.border_height()))
            if tag in ("table", "img", "pre") and hasattr(b, "border_box_x") and \
                    b.border_box_x() + b.border_width() > right + 1:
                wide.append((n, tag, round(b.border_box_x() + b.border_width() - right)))
        ends = [b for b in boxes if type(b).__name__ in ("BlockBox", "TableBox", "BlockReplacedBox") and
                getattr(b, "element_tag", None) in ("p", "pre", "li", "table", "figure", "dd", "dt", "img",
                                                    "h1", "h2", "h3", "h4", "h5", "h6")]
        if ends:
            last = max(ends, key=lambda b: b.position_y + b.border_height())
            if last.element_tag in ("h1", "h2", "h3", "h4", "h5", "h6") and n > 1:
                heads.append((n, " ".join("".join(last.element.itertext()).split())[:60]))
    split = [{"pages": [p for p, _, _ in v], "lines": [k for _, k, _ in v],
              "fits": sum(h for _, _, h in v) <= room}
             for v in blocks.values() if len(v) > 1]
    return {"pages": len(doc.pages), "blocks": len(blocks), "split": split, "headings": heads,
            "wide": sorted(set(wide))}


def main(argv):
    args, widths, opts = [], [], {}
    i = 1
    while i < len(argv):
        if argv[i] in ("--width", "--height", "--figure") and i + 1 < len(argv):
            if argv[i] == "--width":
                widths.append(int(argv[i + 1]))
            else:
                opts[argv[i][2:]] = argv[i + 1]
            i += 2
            continue
        args.append(argv[i])
        i += 1
    try:
        if len(args) >= 2 and args[0] == "measure":
            outdir = args[1]
            pages = args[2:] or sorted(f for f in os.listdir(outdir) if f.endswith(".html"))
            for r in measure(outdir, pages, widths or [1280]):
                print(json.dumps(r, ensure_ascii=False, sort_keys=True))
            return 0
        if len(args) in (2, 3) and args[0] == "pdf":
            print(json.dumps(pdf_layout(args[1], *args[2:]), ensure_ascii=False, sort_keys=True))
            return 0
        if len(args) == 5 and args[0] == "shot":
            top, tall = shot(args[1], args[2], int(args[3]), args[4],
                             height=int(opts["height"]) if "height" in opts else None,
                             figure=opts.get("figure"))
            print("%s: %s at %s px, %d px from %d px down" % (args[4], args[2], args[3], tall, top))
            return 0
    except (MeasureError, OSError, ValueError) as e:
        print("bookmeasure.py: %s" % e, file=sys.stderr)
        return 1
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
