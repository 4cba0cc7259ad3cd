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

    citations.py [TOP]     prints one line per problem; exits 1 if any
"""
import pathlib
import re
import sys

ID = re.compile(r'\bcommit ([0-9a-f]{12})\b(?: \("([^"]+)"\))?')


def registry(top):
    """id -> subject, from solutions/UPSTREAM"""
    ids = {}
    for line in (top / 'solutions' / 'UPSTREAM').read_text().splitlines():
        if not line.strip() or line.startswith('#'):
            continue
        cid, subject = [x.strip() for x in line.split('|')[:2]]
        ids[cid] = subject
    return ids


def message(patch_text):
    """the commit message of a format-patch file, as paragraphs of one line each"""
    head = patch_text.split('\n---\n', 1)[0]
    body = head.split('\n\n', 1)[1] if '\n\n' in head else ''
    return [' '.join(p.split()) for p in body.split('\n\n') if p.strip()]


def problems(top):
    ids = registry(top)
    out = []
    patches = sorted((top / 'solutions').glob('[0-9][0-9]-*.patch'))
    if not patches:
        out.append('solutions: no answers found')
    for p in patches:
        name = p.name
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
