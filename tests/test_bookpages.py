# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/bookpages.py: splitting pandoc's single document into
pages, rewriting the links between them, folding the answer, the search
documents, and the link check."""
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


class SplitTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = self.tmp.name
        self.warnings = []
        self.written = bookpages.split(BOOK, self.out, self.warnings.append)

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, name):
        with open(os.path.join(self.out, name), encoding="utf-8") as f:
            return f.read()

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
        self.assertIn('<figure>\n<a href="figures/a.svg"><img src="figures/a.svg"', self.read("introduction.html"))

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


if __name__ == "__main__":
    unittest.main()
