#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""same_code.py REPO A B: exit 0 when commits A and B of the git repository
REPO differ only in C comments and white space, so that a kernel built from
A is the kernel of B (the staircase then boots it once for both rows: each
lab-NN-start is lab-(NN-1)-done plus the lab's LAB comments). Otherwise
exit 1 and name the files whose code differs. Standard library only."""
import subprocess
import sys


def strip_comments(text):
    """C source with every comment replaced by one space, string and
    character literals kept as they are."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            out.append(" ")
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def code(text):
    """The tokens that matter to the compiler, as one string."""
    return " ".join(strip_comments(text).split())


def git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), check=True,
                          capture_output=True, text=True, errors="replace").stdout


def differing(repo, a, b):
    """The files changed between A and B whose code (not comments) differs."""
    bad = []
    for line in git(repo, "diff", "--name-status", "--no-renames", a, b).splitlines():
        status, path = line.split("\t", 1)
        if status != "M" or not path.endswith((".c", ".h")):
            bad.append(path)
            continue
        if code(git(repo, "show", "%s:%s" % (a, path))) != code(git(repo, "show", "%s:%s" % (b, path))):
            bad.append(path)
    return bad


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    bad = differing(argv[1], argv[2], argv[3])
    for p in bad:
        print("code differs: %s" % p)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
