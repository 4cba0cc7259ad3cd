#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Ctrl-C, as a terminal sends it, to a command that is under way.

    interrupt.py [--when-output REGEX] [--when-process REGEX] [--after S]
                 [--signal INT|TERM] [--timeout S] [--ignoring REGEX] -- CMD...

CMD runs in a session (and process group) of its own, with SIGINT and
SIGTERM at their defaults (a test script's background jobs ignore SIGINT,
and a shell that starts with it ignored cannot trap it), its output (out
and err together) read here. Once its output matched --when-output, or a
process whose command line matches --when-process runs in that group (a
QEMU, a make), and --after seconds more, the signal goes to the whole
group, as a terminal's Ctrl-C does. Then one line of results:

    rc=N signal=NAME|- secs=S left=K

(rc as the shell gives it: 128 + the signal when CMD died by one; secs:
from the signal to CMD's end; left: processes that were CMD's when the
signal went, or are in its group, still there 2 s after CMD ended), and CMD's output after a line '--- output'. A process counts as the group's
when it is in it, or below its leader (a session of its own). Exit 0 when
the signal was sent, 1 when the moment never came (CMD ended first, or
--timeout), 2 on a usage error. Standard library only.

With --ignoring REGEX, the line ends with " ignoring=K": how many of the
group's processes whose command line matches REGEX had SIGINT ignored
when the signal went (one that ignores it and ends within those 2 s on
its own is not "left", yet a Ctrl-C did not stop it).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time


def procs():
    """{pid: (ppid, pgid, cmdline)} of every live (not zombie) process."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] == "Z":
                continue
            with open("/proc/%s/cmdline" % d, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
            out[int(d)] = (int(fields[1]), int(fields[2]), cmd)
        except (OSError, ValueError, IndexError):
            continue
    return out


def group_procs(pgid):
    """[(pid, cmdline)] of the live processes of process group pgid, and
    of every process below its leader (one that made a session of its
    own, as a QEMU started with setsid, is still CMD's)."""
    ps = procs()
    mine = {p for p, (_, pg, _) in ps.items() if pg == pgid}
    mine.add(pgid)
    grew = True
    while grew:
        more = {p for p, (pp, _, _) in ps.items() if pp in mine and p not in mine}
        mine |= more
        grew = bool(more)
    return [(p, ps[p][2]) for p in sorted(mine) if p in ps]


def ignores_int(pid):
    """Does process pid have SIGINT ignored (its SigIgn mask)?"""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("SigIgn:"):
                    return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    except (OSError, ValueError, IndexError):
        pass
    return False


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--when-output")
    p.add_argument("--when-process")
    p.add_argument("--after", type=float, default=0.0)
    p.add_argument("--signal", default="INT", choices=("INT", "TERM"))
    p.add_argument("--timeout", type=float, default=600.0)
    p.add_argument("--ignoring")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd or not (a.when_output or a.when_process):
        p.print_usage(sys.stderr)
        return 2

    def defaults():
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)

    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=defaults)
    chunks = []
    seen = threading.Event()
    out_re = re.compile(a.when_output) if a.when_output else None

    def reader():
        for line in iter(proc.stdout.readline, b""):
            chunks.append(line)
            if out_re and out_re.search(line.decode("utf-8", "replace")):
                seen.set()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    start = time.monotonic()
    proc_re = re.compile(a.when_process) if a.when_process else None
    sent = False
    at_signal = set()
    ignoring = 0
    while time.monotonic() - start < a.timeout and proc.poll() is None:
        ready = seen.is_set() if out_re else True
        if ready and proc_re:
            ready = any(proc_re.search(c) for _, c in group_procs(proc.pid))
        if ready:
            time.sleep(a.after)
            if proc.poll() is None:
                # (those that were CMD's when the signal went: one that a
                # parent's end left to init is no longer below the leader)
                group = group_procs(proc.pid)
                at_signal = {p for p, _ in group}
                if a.ignoring:
                    ignoring = sum(1 for p, c in group if re.search(a.ignoring, c) and ignores_int(p))
                os.killpg(proc.pid, getattr(signal, "SIG" + a.signal))
                sent = True
            break
        time.sleep(0.05)
    t0 = time.monotonic()
    try:
        proc.wait(timeout=a.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    secs = time.monotonic() - t0
    t.join(timeout=5)
    time.sleep(2)
    left = [(p, c[2]) for p, c in sorted(procs().items()) if p in at_signal] + \
        [pc for pc in group_procs(proc.pid) if pc[0] not in at_signal]
    rc = proc.returncode
    print("rc=%d signal=%s secs=%.1f left=%d%s" % (128 - rc if rc < 0 else rc,
                                                 signal.Signals(-rc).name if rc < 0 else "-",
                                                 secs, len(left),
                                                 " ignoring=%d" % ignoring if a.ignoring else ""))
    for pid, c in left:
        print("left: %d %s" % (pid, c[:200]))
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    print("--- output")
    sys.stdout.write(b"".join(chunks).decode("utf-8", "replace"))
    return 0 if sent else 1


if __name__ == "__main__":
    sys.exit(main())
