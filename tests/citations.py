#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Lint the reference answers' credits (make lint).

Every solutions/NN-*.patch says what it is based on, in the kernel's
citation form, in a paragraph of its commit message that begins "Based on":

    Based on commit 5eaf563e5329 ("userns: Allow unprivileged users to
    create user namespaces.") by Eric W. Biederman, ...

or, where no commit id was verified, the upstream subject in quotes
(Based on "subject" by Author, ...). Each author is named ("by Name").
A commit id anywhere in an answer's message must be listed in
solutions/UPSTREAM with the same subject: no id is cited unverified.

The answers of one base (solutions/6.1/) are checked the same way. The
README, the book and the labs' texts (book/*.md, book/chapters/*.md,
labs/README.md, the labs' README.md and hints.md) cite commits too. Every commit id in them (a word
of 12 to 40 hex digits with a letter and a digit in it) must be listed in
solutions/UPSTREAM, the one list of verified ids; where the text gives a
subject, 'commit <id> ("subject")', it must be the listed one.

    citations.py [TOP]     prints one line per problem; exits 1 if any
"""
import pathlib
import re
import sys

ID = re.compile(r'\bcommit ([0-9a-f]{12})\b(?: \("([^"]+)"\))?')


def registry(top):
    """id -> subject, from solutions/UPSTREAM"""
    return registry_text((top / 'solutions' / 'UPSTREAM').read_text())


def registry_text(text):
    """id -> subject of the lines "id | subject | author | verified in"; a
    "|" inside a column is written "\\|" (CLONE_NEWUSER \\| CLONE_FS)"""
    ids = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith('#'):
            continue
        cols = [x.strip().replace('\\|', '|') for x in re.split(r'(?<!\\)\|', line)]
        ids[cols[0]] = cols[1]
    return ids


def message(patch_text):
    """the commit message of a format-patch file, as paragraphs of one line each"""
    head = patch_text.split('\n---\n', 1)[0]
    body = head.split('\n\n', 1)[1] if '\n\n' in head else ''
    return [' '.join(p.split()) for p in body.split('\n\n') if p.strip()]


# the texts that may cite commits, beside the answers
TEXTS = ('README.md', 'book/*.md', 'book/chapters/*.md', 'labs/README.md', 'labs/*/README.md', 'labs/*/hints.md')
# an id, also in a URL (.../c/ID, ?id=ID); not part of a longer word or a
# name (tree-ID, a file's name)
HEX = re.compile(r'(?<![\w.-])([0-9a-f]{12,40})(?![\w/-]|\.\w)')
# a run of four equal digits is a mask or an address (000001ffffffffff,
# ffffc90000abcdef), rarely an id
RUN = re.compile(r'(.)\1{3}')
# an id followed by its subject, ID ("subject"), wherever it is: commit
# ID, Commit ID, Fixes: ID, commits A ("x") and B ("y")
CITED = re.compile(r'(?<![\w.-])`?([0-9a-f]{12,40})`?\s*\(\s*"([^"]+)"\s*\)')


def text_problems(top, ids):
    """the ids the book and the labs' texts cite, each in the registry,
    with its subject where the text gives one"""
    out = []
    for pat in TEXTS:
        for f in sorted(top.glob(pat)):
            rel = f.relative_to(top)
            text = f.read_text()
            flat = ' '.join(text.split())
            for m in CITED.finditer(flat):
                # markdown's escapes are not the subject's: \\* is *
                cid, subject = m.group(1)[:12], re.sub(r'\\(.)', r'\1', m.group(2))
                if cid in ids and subject != ids[cid]:
                    out.append(f'{rel}: commit {cid} cited as "{subject}", solutions/UPSTREAM says "{ids[cid]}"')
            for n, line in enumerate(text.splitlines(), 1):
                for m in HEX.finditer(line):
                    cid = m.group(1)
                    if not (re.search('[a-f]', cid) and re.search('[0-9]', cid)) or RUN.search(cid):
                        continue
                    if cid[:12] not in ids:
                        out.append(f'{rel}:{n}: commit {cid} is not in solutions/UPSTREAM (verify it, then list it)')
    return out


def problems(top):
    ids = registry(top)
    out = text_problems(top, ids)
    patches = sorted((top / 'solutions').glob('[0-9][0-9]-*.patch')) + \
        sorted((top / 'solutions').glob('[0-9]*.[0-9]*/[0-9][0-9]-*.patch'))
    if not patches:
        out.append('solutions: no answers found')
    for p in patches:
        name = str(p.relative_to(top / 'solutions'))
        paras = message(p.read_text())
        based = [x for x in paras if x.startswith('Based on ')]
        if len(based) != 1:
            out.append(f'{name}: needs one paragraph beginning "Based on" (found {len(based)})')
        else:
            b = based[0]
            if not (re.match(r'Based on commit [0-9a-f]{12} \("[^"]+"\)', b) or re.match(r'Based on "[^"]+"', b)):
                out.append(f'{name}: "Based on" must name commit <12 hex> ("subject") or "subject": {b[:80]}')
            if not re.search(r'\bby [A-Z][\w.-]*(?: [A-Z][\w.-]*)+', b):
                out.append(f'{name}: "Based on" names no author ("by Name Surname")')
        for para in paras:
            for m in ID.finditer(para):
                cid, subject = m.group(1), m.group(2)
                if cid not in ids:
                    out.append(f'{name}: commit {cid} is not in solutions/UPSTREAM (verify it, then list it)')
                elif subject is None:
                    out.append(f'{name}: commit {cid} is cited without its subject ("commit {cid} (\\"...\\")")')
                elif subject != ids[cid]:
                    out.append(f'{name}: commit {cid} cited as "{subject}", solutions/UPSTREAM says "{ids[cid]}"')
    return out


if __name__ == '__main__':
    top = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else '.')
    found = problems(top)
    for line in found:
        print(line)
    sys.exit(1 if found else 0)
