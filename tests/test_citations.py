# SPDX-License-Identifier: GPL-2.0
"""tests/citations.py: the answers' credits in the kernel's citation form."""
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import citations  # noqa: E402

HEAD = 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n\nWhy.\n\n'
TAIL = '\n---\n a | 1 +\n'
REG = '# comment\n5eaf563e5329 | userns: Allow unprivileged users to create user namespaces. | Eric W. Biederman | seed 003\n'


class Citations(unittest.TestCase):
    def run_with(self, text):
        with tempfile.TemporaryDirectory() as d:
            top = pathlib.Path(d)
            (top / 'solutions').mkdir()
            (top / 'solutions' / 'UPSTREAM').write_text(REG)
            (top / 'solutions' / '01-x.patch').write_text(HEAD + text + TAIL)
            return citations.problems(top)

    def test_verified_commit(self):
        self.assertEqual(self.run_with(
            'Based on commit 5eaf563e5329 ("userns: Allow unprivileged users to\n'
            'create user namespaces.") by Eric W. Biederman, merged for Linux 3.8.'), [])

    def test_subject_only(self):
        self.assertEqual(self.run_with('Based on "userns: Allow chown" by Eric W.\nBiederman.'), [])

    def test_missing(self):
        self.assertIn('needs one paragraph', self.run_with('Upstream: something.')[0])

    def test_unverified_id(self):
        p = self.run_with('Based on commit 0123456789ab ("made up") by A Person.')
        self.assertTrue(any('not in solutions/UPSTREAM' in x for x in p), p)

    def test_wrong_subject(self):
        p = self.run_with('Based on commit 5eaf563e5329 ("userns: something else") by Eric W. Biederman.')
        self.assertTrue(any('UPSTREAM says' in x for x in p), p)

    def test_no_author(self):
        p = self.run_with('Based on "userns: Allow chown", merged for Linux 3.8.')
        self.assertTrue(any('names no author' in x for x in p), p)


class BookCitations(unittest.TestCase):
    def run_with(self, text):
        with tempfile.TemporaryDirectory() as d:
            top = pathlib.Path(d)
            (top / 'book' / 'chapters').mkdir(parents=True)
            (top / 'book' / 'chapters' / '01-x.md').write_text(text)
            return citations.text_problems(top, citations.registry_text(REG))

    def test_listed_id(self):
        self.assertEqual(self.run_with('Patch 2/16 (5eaf563e5329) and upstream `5eaf563e5329`.\n'), [])

    def test_long_id_by_its_prefix(self):
        self.assertEqual(self.run_with('See 5eaf563e5329aa00bb11cc22dd33ee44ff556677.\n'), [])

    def test_unlisted_id(self):
        p = self.run_with('Line one.\nIn 2016 commit 0123456789ab fixed it.\n')
        self.assertEqual(p, ['book/chapters/01-x.md:2: commit 0123456789ab is not in solutions/UPSTREAM '
                             '(verify it, then list it)'])

    def test_subject_across_lines(self):
        p = self.run_with('commit 5eaf563e5329 ("userns: Allow\nsomething else") did it.\n')
        self.assertTrue(any('UPSTREAM says' in x for x in p), p)

    def test_every_subject_checked(self):
        for text in ('Commit 5eaf563e5329 ("wrong") did it.\n',
                     'commits 5eaf563e5329 ("userns: Allow unprivileged users to create user namespaces.") '
                     'and 5eaf563e5329 ("wrong").\n',
                     'Fixes: 5eaf563e5329 ("wrong")\n'):
            p = self.run_with(text)
            self.assertTrue(any('UPSTREAM says' in x for x in p), (text, p))

    def test_an_id_in_a_url(self):
        p = self.run_with('See https://git.kernel.org/torvalds/c/0123456789ab and ?id=0123456789ac.\n')
        self.assertEqual(len(p), 2, p)

    def test_a_pipe_in_a_subject(self):
        ids = citations.registry_text('0123456789ab | userns: No A \\| B | Someone | seen \\| read\n')
        self.assertEqual(ids, {'0123456789ab': 'userns: No A | B'})

    def test_not_an_id(self):
        self.assertEqual(self.run_with('(`CapEff=000001ffffffffff`), 0123456789 and ffffffffffff.\n'
                                       'files/abcdef012345.c, tree-0123456789ab, RIP ffffc90000abcdef\n'), [])


if __name__ == '__main__':
    unittest.main()
