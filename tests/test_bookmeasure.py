# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/bookmeasure.py that need no browser: the copies of
the pages it has chromium draw, and its usage. (tests/book.sh runs it with
chromium on the real book.)"""
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import bookmeasure  # noqa: E402

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<link rel="stylesheet" href="style.css">
<script src="lunr.min.js" defer></script>
<script src="search-docs.js" defer></script>
<script src="search.js" defer></script>
</head>
<body class="page">
<details class="answer"><summary>s</summary><p>x</p></details>
</body>
</html>
"""


class CopiesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        with open(os.path.join(self.tmp.name, "a.html"), "w", encoding="utf-8") as f:
            f.write(PAGE)

    def tearDown(self):
        self.tmp.cleanup()

    def copy(self, **kw):
        work = bookmeasure.copies(self.tmp.name, ["a.html"], **kw)
        self.assertEqual(os.path.dirname(work), os.path.abspath(self.tmp.name))
        self.assertTrue(os.path.basename(work).startswith(".measure-"))
        with open(os.path.join(work, "a.html"), encoding="utf-8") as f:
            return f.read()

    def test_report(self):
        text = self.copy()
        # the page's links still lead to OUTDIR's files; no search scripts
        self.assertIn('<head>\n<base href="../">', text)
        self.assertNotIn("lunr.min.js", text)
        self.assertNotIn("search.js", text)
        self.assertIn('<link rel="stylesheet" href="style.css">', text)
        # the report, sent to the page that holds it, names the page
        self.assertIn('r = {page: "a.html"', text)
        self.assertIn('parent.postMessage(r, "*");', text)
        self.assertLess(text.index("parent.postMessage"), text.index("</body>"))

    def test_unfold(self):
        text = self.copy(report=False, unfold=True)
        self.assertNotIn("postMessage", text)
        self.assertIn("x.open = true", text)
        self.assertNotIn("x.open = true", self.copy(report=False))


class UsageTest(unittest.TestCase):
    def test_usage(self):
        err = io.StringIO()
        with redirect_stderr(err):
            self.assertEqual(bookmeasure.main(["bookmeasure.py"]), 2)
        self.assertIn("bookmeasure.py measure OUTDIR", err.getvalue())

    def test_no_chromium(self):
        old = bookmeasure.CHROMIUM
        bookmeasure.CHROMIUM = "/nonexistent/chromium"
        try:
            with tempfile.TemporaryDirectory() as out:
                with open(os.path.join(out, "a.html"), "w", encoding="utf-8") as f:
                    f.write(PAGE)
                err = io.StringIO()
                with redirect_stderr(err):
                    self.assertEqual(bookmeasure.main(["bookmeasure.py", "measure", out]), 1)
                self.assertIn("chromium", err.getvalue())
                # its copies are gone
                self.assertEqual(os.listdir(out), ["a.html"])
        finally:
            bookmeasure.CHROMIUM = old


if __name__ == "__main__":
    unittest.main()
