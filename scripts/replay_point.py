#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Which system call make replay stops at: read from a recorded check.

    replay_point.py KTAP UNISTD_H [POINT]

KTAP is what the guest's /init wrote on the results channel during the
recording (the lab's check alone); UNISTD_H the host's
asm/unistd_64.h (linux-libc-dev). POINT is a point's name or number; by
default, the check's first failed point.

A failed point shows the output of its demo, and the course's demos
(labs/lib/ulab.h) say a failed call as "WHAT: ENAME (text)": execve:
EPERM (Operation not permitted). The first such line of the point's own
output names the call (the first word of WHAT, through the libc wrappers
that use another system call: open is openat, fork is clone) and the
errno. Points before it whose output failed the same way made the same
system call fail first, so the replay skips that many.

Prints shell assignments, one a line:

    point=NAME  number=N  call=WHAT  errno=ENAME  errnum=N
    nrs="59 322"  skip=K

or, when the point showed no failed call, point, number and nothing=1.
Exit status 2, with a line on stderr, when the boot did not finish the
check (no end line), the check has no such point (or no failed point),
or the KTAP holds no check at all.
"""
import errno
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402  (the guest's block lines: ktap.SENTINEL)

# libc's names for calls that it makes through another system call, on
# x86_64 (glibc): each name, the system calls it may end in
ALIASES = {
    "open": ["open", "openat"],
    "fork": ["fork", "clone", "clone3"],
    "clone": ["clone", "clone3"],
    "stat": ["stat", "newfstatat", "statx"],
    "lstat": ["lstat", "newfstatat", "statx"],
    "readlink": ["readlink", "readlinkat"],
    "mkdir": ["mkdir", "mkdirat"],
    "rmdir": ["rmdir", "unlinkat"],
    "unlink": ["unlink", "unlinkat"],
    "umount": ["umount2"],
    "chown": ["chown", "fchownat"],
    "execve": ["execve", "execveat"],
    "pipe": ["pipe", "pipe2"],
    "dup2": ["dup2", "dup3"],
    "waitpid": ["wait4"],
    "access": ["access", "faccessat", "faccessat2"],
}

RESULT = re.compile(r"^\s*(not ok|ok) (\d+) (\S+)")
FAILED_CALL = re.compile(r"^\s*# (.+?): (E[A-Z0-9]+) \(")


def syscalls(unistd_text):
    """{name: number} from asm/unistd_64.h"""
    out = {}
    for m in re.finditer(r"^#define __NR_(\w+)\s+(\d+)\s*$", unistd_text, re.M):
        out[m.group(1)] = int(m.group(2))
    return out


def points(ktap_text):
    """[(number, name, ok, [diagnostic lines])] of the check's points, in
    order: each point's lines are those after its result line, up to the
    next point's '# running:' line or result"""
    out = []
    cur = None
    for line in ktap_text.splitlines():
        m = RESULT.match(line)
        if m and line.startswith("  "):
            cur = [int(m.group(2)), m.group(3), m.group(1) == "ok", []]
            out.append(cur)
            continue
        if line.strip().startswith("# running:") or not line.startswith("  "):
            cur = None
            continue
        if cur is not None:
            cur[3].append(line)
    return out


SAME_AS = re.compile(r"^\s*# \(the same output as point (\d+), above\)")


def own_output(pts, lines):
    """a point's output lines: its own, or those of the earlier point whose
    output it repeats (ktap.sh prints a repeated output once)"""
    for line in lines:
        m = SAME_AS.match(line)
        if m:
            for p in pts:
                if p[0] == int(m.group(1)):
                    return p[3]
    return lines


def failed_call(lines):
    """(what, ENAME) of the first failed call in a point's output, or None"""
    for line in lines:
        m = FAILED_CALL.match(line)
        if m and hasattr(errno, m.group(2)):
            return m.group(1), m.group(2)
    return None


def call_numbers(what, table):
    """the system call numbers a failed call's WHAT may stand for"""
    m = re.match(r"[a-z_][a-z0-9_]*", what)
    if not m:
        return []
    word = m.group(0)
    names = ALIASES.get(word, [word])
    return sorted({table[n] for n in names if n in table})


def choose(ktap_text, unistd_text, want=None):
    """the assignments to print, or raise ValueError saying why not"""
    if ktap.SENTINEL not in ktap_text:
        raise ValueError("the recorded boot did not finish its check (no end line): see the "
                         "recording's console, record.log")
    pts = points(ktap_text)
    if not pts:
        raise ValueError("the recording holds no point of a check (did the guest run it?)")
    if want:
        sel = [p for p in pts if p[1] == want or str(p[0]) == want]
        if not sel:
            raise ValueError("the check has no point %r; its points: %s"
                             % (want, ", ".join(p[1] for p in pts)))
    else:
        sel = [p for p in pts if not p[2]]
        if not sel:
            raise ValueError("every point of the recorded check passed: name one with POINT=")
    number, name, _, lines = sel[0]
    out = {"point": name, "number": str(number)}
    call = failed_call(own_output(pts, lines))
    if call is None:
        out["nothing"] = "1"
        return out
    what, ename = call
    nrs = call_numbers(what, syscalls(unistd_text))
    if not nrs:
        out["nothing"] = "1"
        out["call"] = what
        out["errno"] = ename
        return out
    # (a lower bound: a point that passed shows no output, and a failure
    # nobody printed counts as well; replay.sh says so)
    skip = 0
    table = syscalls(unistd_text)
    for p in pts:
        if p[0] >= number:
            break
        c = failed_call(own_output(pts, p[3]))
        if c and c[1] == ename and set(call_numbers(c[0], table)) & set(nrs):
            skip += 1
    out.update({"call": what, "errno": ename, "errnum": str(getattr(errno, ename)),
                "nrs": " ".join(str(n) for n in nrs), "skip": str(skip)})
    return out


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        ktap = f.read()
    with open(argv[2], encoding="utf-8") as f:
        unistd = f.read()
    try:
        out = choose(ktap, unistd, argv[3] if len(argv) == 4 and argv[3] else None)
    except ValueError as e:
        sys.stderr.write("replay: %s\n" % e)
        return 2
    for k, v in out.items():
        print("%s=%s" % (k, shlex.quote(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
