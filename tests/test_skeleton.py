# SPDX-License-Identifier: GPL-2.0
"""scripts/skeleton.py: a user-space lab's skeleton and answer from one source."""
import pathlib
import sys
import unittest

TOP = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TOP / 'scripts'))
import skeleton  # noqa: E402


class Skeleton(unittest.TestCase):
    SRC = ('int a;\n//@ skeleton\n/* TODO 1: b */\n//@ answer\nint b = 1;\n//@ end\n'
           'int c;\n//@ skeleton\n//@ answer\nint d;\n//@ end\n')

    def test_render(self):
        self.assertEqual(skeleton.render(self.SRC, 'skeleton'), 'int a;\n/* TODO 1: b */\nint c;\n')
        self.assertEqual(skeleton.render(self.SRC, 'answer'), 'int a;\nint b = 1;\nint c;\nint d;\n')

    def test_merge_round_trip(self):
        s, a = 'x\ny\n/* TODO */\nz\n', 'x\nanswer\ny\nz\nw\n'
        src = skeleton.merge(s, a)
        self.assertEqual(skeleton.render(src, 'skeleton'), s)
        self.assertEqual(skeleton.render(src, 'answer'), a)

    def test_bad_markers(self):
        for src in ('//@ answer\n//@ end\n', '//@ skeleton\nx\n', '//@ skeleton\n//@ skeleton\n',
                    '//@ end\n'):
            with self.assertRaises(skeleton.SourceError, msg=src):
                skeleton.render(src, 'answer')

    def test_the_course_is_current(self):
        """every labs/NN/FILE and solutions/NN/FILE is what its FILE.in gives"""
        self.assertTrue(list(skeleton.pairs(TOP)), 'no FILE.in found in solutions/')
        self.assertEqual(skeleton.stale(TOP), [])


if __name__ == '__main__':
    unittest.main()
