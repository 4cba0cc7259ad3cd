# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/bookpages.py: splitting pandoc's single document into
pages (and a long chapter into its sections' pages), rewriting the links
between them, folding the answer, the search documents, the licence, the
figures' and tables' dress, the height estimate, and the link check."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import bookpages  # noqa: E402

BOOK = """<!--@title-->The Book<!--@/title-->
<!--@subtitle-->A test<!--@/subtitle-->
<!--@author-->Someone<!--@/author-->
<!--@rights-->© Someone. Licensed CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/); the code GPL-2.0.<!--@/rights-->
<!--@css-->code span.kw { color: #204a87; }<!--@/css-->
<!--@toc--><ul>
<li><a href="#introduction" id="toc-introduction">Introduction</a></li>
<li><a href="#lab-01" id="toc-lab-01"><span class="secno">1</span> First</a><ul>
<li><a href="#lab-01-the-problem" id="toc-lab-01-the-problem"><span class="secno">1.1</span> The problem</a></li>
<li><a href="#lab-01-the-change" id="toc-lab-01-the-change"><span class="secno">1.2</span> The change</a></li>
</ul></li>
</ul><!--@/toc-->
<!--@body-->
<section id="introduction" class="level1">
<h1>Introduction</h1>
<p>Read <a href="#lab-01-the-change">the change</a> and <a href="#lab-01">chapter 1</a>.</p>
<table><tr><td>a</td></tr></table>
<figure>
<img src="figures/a.svg"
alt="An a." />
<figcaption>A.</figcaption>
</figure>
</section>
<section id="lab-01" class="level1">
<h1><span class="secno">1</span> First</h1>
<p>Back to <a href="#introduction">the introduction</a>, on to <a href="#lab-01-the-change">1.2</a>.</p>
<section id="lab-01-the-problem" class="level2">
<h2><span class="secno">1.1</span> The problem</h2>
<p>A zebracorn problem &amp; more.</p>
</section>
<section id="lab-01-the-change" class="level2">
<h2><span class="secno">1.2</span> The change</h2>
<p>The fix.</p>
<!-- reference-answer -->
<pre class="text commit"><code>the commit</code></pre>
</section>
</section>
<!--@/body-->
"""


class Split:
    """a book (SOURCE) split into pages in a folder of its own"""
    SOURCE = ""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = self.tmp.name
        self.warnings = []
        self.written = bookpages.split(self.SOURCE, self.out, self.warnings.append)

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, name):
        with open(os.path.join(self.out, name), encoding="utf-8") as f:
            return f.read()


class SplitTest(Split, unittest.TestCase):
    SOURCE = BOOK

    def test_pages(self):
        self.assertEqual([w[0] for w in self.written], ["index.html", "introduction.html", "lab-01.html"])
        self.assertEqual(self.warnings, [])
        self.assertIn('<h1 class="title">The Book</h1>', self.read("index.html"))
        self.assertIn('<nav id="TOC"', self.read("index.html"))

    def test_links_between_pages(self):
        intro = self.read("introduction.html")
        self.assertIn('href="lab-01.html#lab-01-the-change"', intro)
        self.assertIn('href="lab-01.html">chapter 1', intro)
        lab = self.read("lab-01.html")
        self.assertIn('href="introduction.html">the introduction', lab)
        self.assertIn('href="#lab-01-the-change">1.2', lab)

    def test_prev_next_and_sidebar(self):
        lab = self.read("lab-01.html")
        self.assertIn('<a class="prev" rel="prev" href="introduction.html">', lab)
        self.assertNotIn('rel="next"', lab)
        self.assertIn('<li class="current"><a aria-current="page" href="lab-01.html">', lab)
        self.assertIn('id="search-input"', lab)
        self.assertNotIn('id="toc-', lab)
        self.assertIn('<a class="next" rel="next" href="introduction.html">', self.read("index.html"))

    def test_answer_fold_and_tables(self):
        lab = self.read("lab-01.html")
        fold = lab.index('<details class="answer">')
        self.assertLess(lab.index("1.2</span> The change</h2>"), fold)
        self.assertLess(fold, lab.index('<pre class="text commit">'), lab.index("</details>"))
        self.assertNotIn("<details", self.read("introduction.html"))
        self.assertIn('<div class="table-wrap"><table>', self.read("introduction.html"))
        self.assertIn('<figure>\n<div class="figure-box"><a href="figures/a.svg"><img src="figures/a.svg"',
                      self.read("introduction.html"))

    def test_search_docs(self):
        js = self.read("search-docs.js")
        docs = json.loads(js[js.index("=") + 1:].strip().rstrip(";"))
        urls = [d["url"] for d in docs]
        self.assertEqual(urls, ["introduction.html", "lab-01.html", "lab-01.html#lab-01-the-problem",
                                "lab-01.html#lab-01-the-change"])
        problem = docs[2]
        self.assertEqual(problem["title"], "1.1 The problem")
        self.assertEqual(problem["text"], "A zebracorn problem & more.")
        self.assertEqual(problem["page"], "1 First")

    def test_licence(self):
        index = self.read("index.html")
        self.assertIn('<p class="rights">© Someone. Licensed CC BY-SA 4.0 (<a rel="license" '
                      'href="https://creativecommons.org/licenses/by-sa/4.0/">', index)
        self.assertLess(index.index('<p class="rights">'), index.index('<nav id="TOC"'))
        for page in ("index.html", "introduction.html", "lab-01.html"):
            text = self.read(page)
            self.assertIn('<meta name="dcterms.rights" content="© Someone. Licensed CC BY-SA 4.0', text)
            self.assertIn('<link rel="license" href="https://creativecommons.org/licenses/by-sa/4.0/">', text)

    def test_short_chapter_stays_whole(self):
        self.assertNotIn('class="chapter-toc"', self.read("lab-01.html"))
        self.assertIn('<section id="lab-01-the-change" class="level2">', self.read("lab-01.html"))

    def test_check(self):
        os.mkdir(os.path.join(self.out, "figures"))
        for f in ("style.css", "lunr.min.js", "search.js", "figures/a.svg"):
            open(os.path.join(self.out, f), "w").close()
        n, problems = bookpages.check(self.out)
        self.assertGreater(n, 10)
        self.assertEqual(problems, [])
        with open(os.path.join(self.out, "lab-01.html"), "a", encoding="utf-8") as f:
            f.write('<a href="introduction.html#nowhere">x</a><img src="figures/none.svg">')
        _, problems = bookpages.check(self.out)
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("no id 'nowhere' in introduction.html", problems[0])
        self.assertIn("no file", problems[1])


class WarningTest(unittest.TestCase):
    def test_a_link_to_no_id(self):
        warnings = []
        with tempfile.TemporaryDirectory() as out:
            bookpages.split(BOOK.replace('href="#lab-01">chapter', 'href="#lab-99">chapter'), out, warnings.append)
        self.assertEqual(len(warnings), 1)
        self.assertIn("#lab-99", warnings[0])

    def test_not_pandoc_template(self):
        with tempfile.TemporaryDirectory() as out:
            with self.assertRaises(bookpages.BookError):
                bookpages.split("<html><body></body></html>", out, print)


# A book whose chapter is too tall for one page: 3 sections, the first with
# a long code block and a sub-section, the second the reference answer.
LONG = BOOK.split("<!--@body-->")[0].replace(
    '<li><a href="#lab-01-the-change" id="toc-lab-01-the-change"><span class="secno">1.2</span> The change</a></li>',
    '<li><a href="#lab-01-the-change" id="toc-lab-01-the-change"><span class="secno">1.2</span> The change</a></li>\n'
    '<li><a href="#lab-01-the-end" id="toc-lab-01-the-end"><span class="secno">1.3</span> The end</a></li>') + """<!--@body-->
<section id="introduction" class="level1">
<h1>Introduction</h1>
<p>See <a href="#lab-01-the-change">the change</a>, <a href="#deep">deep down</a> and <a href="#lab-01">chapter 1</a>.</p>
</section>
<section id="lab-01" class="level1">
<h1><span class="secno">1</span> First</h1>
<p>The opening, <a href="#lab-01-the-end">to the end</a>.</p>
<section id="lab-01-the-problem" class="level2">
<h2><span class="secno">1.1</span> The problem</h2>
<pre><code>""" + "a line of code\n" * 150 + """</code></pre>
<section id="deep" class="level3">
<h3>Deep</h3>
<p>A zebracorn.</p>
</section>
</section>
<section id="lab-01-the-change" class="level2">
<h2><span class="secno">1.2</span> The change</h2>
<!-- reference-answer -->
<pre class="text commit"><code>the commit</code></pre>
</section>
<section id="lab-01-the-end" class="level2">
<h2><span class="secno">1.3</span> The end</h2>
<pre><code>""" + "another line\n" * 150 + """</code></pre>
<p>Back to <a href="#lab-01-the-problem">the problem</a> and <a href="#lab-01">the chapter</a>.</p>
</section>
</section>
<!--@/body-->
"""


class LongChapterTest(Split, unittest.TestCase):
    SOURCE = LONG

    def test_pages(self):
        self.assertEqual([w[0] for w in self.written],
                         ["index.html", "introduction.html", "lab-01.html", "lab-01-the-problem.html",
                          "lab-01-the-change.html", "lab-01-the-end.html"])
        self.assertEqual(self.warnings, [])
        self.assertEqual(dict(self.written)["lab-01-the-end.html"],
                         "1.3 The end · 1 First · User namespaces, patch by patch")

    def test_opening_page(self):
        lab = self.read("lab-01.html")
        self.assertIn("<p>The opening, ", lab)
        self.assertNotIn('class="level2"', lab)
        toc = lab[lab.index('<nav class="chapter-toc"'):]
        for page in ("lab-01-the-problem.html", "lab-01-the-change.html", "lab-01-the-end.html"):
            self.assertIn('<li><a href="%s"><span class="secno">' % page, toc)
        self.assertIn('href="lab-01-the-end.html">to the end', lab)
        # an old link to lab-01.html#id of a section now on its own page
        self.assertIn('"deep":"lab-01-the-problem.html#deep"', lab)
        self.assertIn('"lab-01-the-end":"lab-01-the-end.html"', lab)
        self.assertNotIn('"toc-title"', lab)

    def test_section_pages(self):
        problem = self.read("lab-01-the-problem.html")
        self.assertIn('<p class="breadcrumb"><a href="lab-01.html"><span class="secno">1</span> First</a></p>', problem)
        self.assertIn('<section id="lab-01-the-problem" class="level2">', problem)
        self.assertIn('<section id="deep" class="level3">', problem)
        self.assertNotIn("lab-01-the-change", problem[problem.index("<main"):problem.index('<nav class="pagenav bottom"')]
                         .replace('href="lab-01-the-change.html"', ""))
        end = self.read("lab-01-the-end.html")
        self.assertIn('href="lab-01-the-problem.html">the problem', end)
        self.assertIn('href="lab-01.html">the chapter', end)
        change = self.read("lab-01-the-change.html")
        self.assertIn('<details class="answer">', change)
        self.assertLess(change.index("The change</h2>"), change.index("<details"))

    def test_links_from_other_pages(self):
        intro = self.read("introduction.html")
        self.assertIn('href="lab-01-the-change.html">the change', intro)
        self.assertIn('href="lab-01-the-problem.html#deep">deep down', intro)
        self.assertIn('href="lab-01.html">chapter 1', intro)

    def test_prev_next_and_sidebar(self):
        order = [w[0] for w in self.written]
        for prev, page, nxt in zip(order, order[1:], order[2:] + [None]):
            text = self.read(page)
            self.assertIn('<a class="prev" rel="prev" href="%s">' % prev, text)
            if nxt:
                self.assertIn('<a class="next" rel="next" href="%s">' % nxt, text)
        self.assertIn('<a class="next" rel="next" href="lab-01-the-problem.html">1.1 The problem →</a>',
                      self.read("lab-01.html"))
        problem = self.read("lab-01-the-problem.html")
        self.assertIn('<li class="open"><a href="lab-01.html">', problem)
        self.assertIn('<li class="current"><a aria-current="page" href="lab-01-the-problem.html">', problem)
        self.assertIn('<li class="current"><a aria-current="page" href="lab-01.html">', self.read("lab-01.html"))

    def test_wrapped_contents(self):
        # pandoc wraps a long line of the contents inside a tag
        with tempfile.TemporaryDirectory() as out:
            bookpages.split(LONG.replace('<li><a href="#lab-01-the-end" id=', '<li><a\nhref="#lab-01-the-end" id='),
                            out, self.fail)
            with open(os.path.join(out, "lab-01-the-end.html"), encoding="utf-8") as f:
                self.assertIn('<li class="current"><a aria-current="page" href="lab-01-the-end.html">', f.read())

    def test_search_docs(self):
        js = self.read("search-docs.js")
        docs = json.loads(js[js.index("=") + 1:].strip().rstrip(";"))
        self.assertEqual([d["url"] for d in docs],
                         ["introduction.html", "lab-01.html", "lab-01-the-problem.html",
                          "lab-01-the-change.html", "lab-01-the-end.html"])
        self.assertIn("zebracorn", docs[2]["text"])

    def test_check(self):
        for f in ("style.css", "lunr.min.js", "search.js"):
            open(os.path.join(self.out, f), "w").close()
        n, problems = bookpages.check(self.out)
        self.assertGreater(n, 30)
        self.assertEqual(problems, [])

    def test_two_pages_of_one_name(self):
        book = LONG.replace('id="lab-01-the-end"', 'id="introduction-x"').replace(
            'id="introduction"', 'id="introduction-y"').replace('id="introduction-x"', 'id="introduction-y"')
        with tempfile.TemporaryDirectory() as out:
            with self.assertRaisesRegex(bookpages.BookError, "two pages named introduction-y.html"):
                bookpages.split(book, out, lambda w: None)


SVG = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<svg width="%s" height="150pt"
 viewBox="0.00 0.00 300.00 150.00" xmlns="http://www.w3.org/2000/svg">
<g id="graph0" class="graph" transform="scale(%s) rotate(0) translate(4 146)">
<text text-anchor="middle" x="50" y="20" font-family="DejaVu Sans" font-size="11.00">a node</text>
<text text-anchor="middle" x="50" y="40" font-family="DejaVu Sans" font-size="9.50">an edge</text>
</g>
</svg>
"""


class FigureTest(unittest.TestCase):
    def test_svg_facts(self):
        f = bookpages.svg_facts(SVG % ("300pt", "1 1"))
        self.assertEqual((f["width"], f["height"], f["vbw"], f["font"]), (400, 200, 300, 9.5))
        # its smallest text 12 px: 9.5 viewBox units drawn 12 px high
        self.assertEqual(f["min_width"], 379)
        self.assertGreaterEqual(9.5 * f["min_width"] / 300, 12)
        self.assertLess(9.5 * (f["min_width"] - 1) / 300, 12)
        # graphviz's scale() makes its text smaller
        self.assertEqual(bookpages.svg_facts(SVG % ("150pt", "0.5 0.5"))["min_width"], 758)
        with self.assertRaises(bookpages.BookError):
            bookpages.svg_facts("<html></html>")

    def test_dress_figure(self):
        with tempfile.TemporaryDirectory() as out:
            os.mkdir(os.path.join(out, "figures"))
            with open(os.path.join(out, "figures", "a.svg"), "w") as f:
                f.write(SVG % ("300pt", "1 1"))
            page = bookpages.dress('<figure>\n<img src="figures/a.svg"\nalt="An a." />\n<figcaption>A.</figcaption>\n</figure>', out)
            self.assertIn('<figure>\n<div class="figure-box"><a href="figures/a.svg"><img src="figures/a.svg" '
                          'style="min-width: 379px"\nalt="An a." /></a></div>', page)
            # the estimate counts the figure as drawn, 400 px (its natural width)
            self.assertGreater(bookpages.estimate_height(page, out), 200)
        # no SVG there: no min-width
        self.assertNotIn("min-width", bookpages.dress('<figure>\n<img src="figures/none.svg" alt="x" />\n</figure>', "/nonexistent"))


class TableTest(unittest.TestCase):
    def test_code_breaks(self):
        page = bookpages.dress(
            "<table>\n<colgroup>\n<col style=\"width: 25%\" />\n</colgroup>\n<tr><td><code>net/ipv4/ip_sockglue.c</code></td>"
            "<td><code>sk_setsockopt()</code></td><td><code>do_ip_setsockopt()</code></td>"
            "<td><code>net/core/sock.c</code></td><td><code>a &amp;&amp; b_c/d</code></td></tr></table>")
        self.assertNotIn("colgroup", page)
        self.assertIn('<div class="table-wrap"><table>', page)
        self.assertIn('<code class="brk"><span>net/ipv4/</span><wbr><span>ip_sockglue.c</span></code>', page)
        self.assertIn("<td><code>sk_setsockopt()</code></td>", page)
        self.assertIn('<code class="brk"><span>do_ip_</span><wbr><span>setsockopt()</span></code>', page)
        self.assertIn('<code class="brk"><span>net/core/</span><wbr><span>sock.c</span></code>', page)
        self.assertIn("<td><code>a &amp;&amp; b_c/d</code></td>", page)
        # outside a table, a code span is left alone
        self.assertEqual(bookpages.dress("<p><code>net/ipv4/ip_sockglue.c</code></p>"),
                         "<p><code>net/ipv4/ip_sockglue.c</code></p>")


class EstimateTest(unittest.TestCase):
    def test_estimate(self):
        para = "<p>%s</p>\n" % ("word " * 100)
        code = "<pre><code>%s</code></pre>\n" % ("x\n" * 100)
        one = bookpages.estimate_height(para)
        self.assertGreater(bookpages.estimate_height(para * 2), one)
        self.assertAlmostEqual(bookpages.estimate_height(code), 100 * bookpages.CODE_LINE + 40, delta=bookpages.CODE_LINE)
        # a folded answer counts as its summary
        folded = '<details class="answer"><summary>s</summary>%s</details>' % (code * 10)
        self.assertLess(bookpages.estimate_height(folded), 100)
        self.assertGreater(bookpages.estimate_height("<table><tr><td>a</td><td>b</td></tr>" * 3 + "</table>"), 90)


if __name__ == "__main__":
    unittest.main()
