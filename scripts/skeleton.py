#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A user-space lab's skeleton and its answer, made from one source.

solutions/NN-LAB/FILE.in holds the program once: the lines both have, and
blocks where they differ,

    //@ skeleton
    ... the skeleton's lines (the TODO and its stand-in) ...
    //@ answer
    ... the reference answer's lines ...
    //@ end

(either side may be empty). From it come labs/NN-LAB/FILE, the skeleton a
student starts from, and solutions/NN-LAB/FILE, the answer (the mutants,
the grader's fixtures and the book use both as files). Change the source,
then write both again; make test (tests/test_skeleton.py) fails while a
written file is not what its source gives.

    skeleton.py write [TOP]          write every FILE.in's two files
    skeleton.py check [TOP]          list the files that are not current; exit 1
    skeleton.py merge SKEL ANSWER    a source for two existing files, on stdout
"""
import difflib
import pathlib
import sys

SKEL, ANS, END = '//@ skeleton', '//@ answer', '//@ end'


class SourceError(Exception):
    pass


def render(src, side):
    """the skeleton ('skeleton') or the answer ('answer') of a source text"""
    out, state = [], None
    for n, line in enumerate(src.splitlines(keepends=True), 1):
        tag = line.strip()
        if tag == SKEL:
            if state is not None:
                raise SourceError(f'line {n}: {SKEL} inside a block')
            state = 'skeleton'
        elif tag == ANS:
            if state != 'skeleton':
                raise SourceError(f'line {n}: {ANS} without {SKEL} before it')
            state = 'answer'
        elif tag == END:
            if state != 'answer':
                raise SourceError(f'line {n}: {END} without {ANS} before it')
            state = None
        elif state is None or state == side:
            out.append(line)
    if state is not None:
        raise SourceError(f'the block opened last has no {END}')
    return ''.join(out)


def merge(skel, answer):
    """a source whose two sides are the texts given"""
    a, b = skel.splitlines(keepends=True), answer.splitlines(keepends=True)
    for t in (a, b):
        if t and not t[-1].endswith('\n'):
            t[-1] += '\n'
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == 'equal':
            out += a[i1:i2]
        else:
            out += [SKEL + '\n'] + a[i1:i2] + [ANS + '\n'] + b[j1:j2] + [END + '\n']
    return ''.join(out)


def pairs(top):
    """(source, skeleton path, answer path) for every FILE.in of a lab"""
    for src in sorted((top / 'solutions').glob('[0-9][0-9]-*/*.in')):
        name = src.name[:-3]
        yield src, top / 'labs' / src.parent.name / name, src.parent / name


def stale(top):
    out = []
    for src, skel, ans in pairs(top):
        text = src.read_text()
        try:
            want = {skel: render(text, 'skeleton'), ans: render(text, 'answer')}
        except SourceError as e:
            out.append(f'{src.relative_to(top)}: {e}')
            continue
        for path, body in want.items():
            if not path.exists() or path.read_text() != body:
                out.append(f'{path.relative_to(top)}: not what {src.relative_to(top)} gives '
                           '(scripts/skeleton.py write)')
    return out


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ''
    if cmd == 'merge' and len(argv) == 4:
        sys.stdout.write(merge(pathlib.Path(argv[2]).read_text(), pathlib.Path(argv[3]).read_text()))
        return 0
    if cmd in ('write', 'check'):
        top = pathlib.Path(argv[2] if len(argv) > 2 else pathlib.Path(__file__).resolve().parent.parent)
        if cmd == 'check':
            bad = stale(top)
            for line in bad:
                print(line)
            return 1 if bad else 0
        for src, skel, ans in pairs(top):
            text = src.read_text()
            skel.write_text(render(text, 'skeleton'))
            ans.write_text(render(text, 'answer'))
            print(f'{skel.relative_to(top)} and {ans.relative_to(top)} from {src.relative_to(top)}')
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
