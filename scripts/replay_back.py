# SPDX-License-Identifier: GPL-2.0
"""gdb's 'back' command for make replay: back in time by running forward again.

Loaded into gdb by scripts/replay.sh (gdb -x). QEMU's own reverse execution
(reverse-continue and the rest) goes back to the recording's snapshot and
replays from there; on this course's machines it sometimes stalls at its
second return to the snapshot, on QEMU 7.2 and on 10.0 alike (HACKING.md).
A replay from the start in a new QEMU never did (in these runs): it is the recording,
instruction for instruction. So:

    back LOCATION   where the replay last reached LOCATION (a breakpoint
                    location: a function, file:line) before the moment it
                    is at now, by two replays from the start in new QEMUs:
                    the first notes each time LOCATION is reached (QEMU's
                    instruction count, 'monitor info replay') up to now, the
                    second stops at the last of them ('monitor replay_break').
    forth           back to the moment 'back' left (a third replay)

The QEMU command line is REPLAY_DIR/qemu.args (one argument a line), the
stub's port REPLAY_DIR/port; each new QEMU's process id goes to
REPLAY_DIR/qemu.pid, which replay.sh stops at its end.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import time

import gdb

R = os.environ.get("REPLAY_DIR", "")


def icount():
    out = gdb.execute("monitor info replay", to_string=True)
    m = re.search(r"instruction count\s*=\s*(\d+)", out) or re.search(r"(\d+)", out)
    if not m:
        raise gdb.GdbError("back: QEMU did not say its instruction count (%r)" % out.strip())
    return int(m.group(1))


def read(name):
    with open(os.path.join(R, name), encoding="utf-8") as f:
        return f.read()


CHILD = []  # the QEMU this gdb started last (its child: reaped here)


def gone(pid):
    """the process has ended (a zombie counts as ended)"""
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def stop_old():
    try:
        pid = int(read("qemu.pid").strip())
    except (OSError, ValueError):
        raise gdb.GdbError("back: no record of the replaying QEMU (%s/qemu.pid)" % R)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except OSError:
            break
        for _ in range(25):
            if gone(pid):
                break
            time.sleep(0.2)
        if gone(pid):
            break
    for p in CHILD:
        p.wait()
    del CHILD[:]


def restart():
    """a new replaying QEMU, from the start, and gdb on it"""
    try:
        gdb.execute("disconnect", to_string=True)
    except gdb.error:
        pass
    stop_old()
    args = [a for a in read("qemu.args").split("\n") if a]
    port = int(read("port").strip())
    # the port free again (the old QEMU closed it), so that what listens
    # next is the new one
    for _ in range(50):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            break
        time.sleep(0.1)
    else:
        raise gdb.GdbError("back: 127.0.0.1:%d is still in use" % port)
    # (the snapshot's image, afresh: a replay writes to it)
    shutil.copyfile(os.path.join(R, "snapshot.qcow2"), os.path.join(R, "replay.qcow2"))
    with open(os.path.join(R, "qemu.out"), "ab") as out:
        p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                             start_new_session=True)
    CHILD.append(p)
    with open(os.path.join(R, "qemu.pid"), "w", encoding="utf-8") as f:
        f.write("%d\n" % p.pid)
    for _ in range(100):
        if p.poll() is not None:
            raise gdb.GdbError("back: the new QEMU ended at once (see %s/qemu.out)" % R)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    else:
        raise gdb.GdbError("back: the new QEMU did not open 127.0.0.1:%d" % port)
    gdb.execute("target remote 127.0.0.1:%d" % port, to_string=True)
    # one instruction, so that QEMU has loaded the recording's snapshot:
    # loading it forgets a replay_break set before
    gdb.execute("stepi", to_string=True)


def run_to(count):
    """from the start, to instruction count COUNT"""
    gdb.execute("monitor replay_break %d" % count, to_string=True)
    gdb.execute("continue", to_string=True)


class Back(gdb.Command):
    """back LOCATION: where the replay last reached LOCATION before now."""

    def __init__(self):
        super().__init__("back", gdb.COMMAND_RUNNING)
        self.left = None

    def invoke(self, arg, from_tty):
        loc = arg.strip()
        if not loc:
            raise gdb.GdbError("usage: back LOCATION (a function, or file:line)")
        # (a location gdb cannot place is an error now, not two replays
        # that never reach it)
        probe = gdb.Breakpoint(loc, internal=True)
        pending = probe.pending
        probe.delete()
        if pending:
            raise gdb.GdbError("back: no such location in this kernel: %s" % loc)
        now = icount()
        saved = user_breakpoints_off()
        try:
            restart()
            bp = gdb.Breakpoint(loc, internal=True)
            hits = []
            try:
                gdb.execute("monitor replay_break %d" % now, to_string=True)
                while True:
                    gdb.execute("continue", to_string=True)
                    c = icount()
                    if c >= now:
                        break
                    hits.append(c)
            finally:
                bp.delete()
            if c != now:
                raise gdb.GdbError("back: the replay did not come back to instruction %d (%d)" % (now, c))
            self.left = now
            restart()
            target = hits[-1] if hits else now
            if hits:
                # the last of those hits, as a user breakpoint's stop (gdb
                # shows an inlined function's own frame then; for an
                # internal one, or a stop of replay_break's, its caller's);
                # replay_break at 'now' if it were missed
                gdb.execute("monitor replay_break %d" % now, to_string=True)
                bp = gdb.Breakpoint(loc)
                bp.ignore_count = len(hits) - 1
                try:
                    gdb.execute("continue", to_string=True)
                finally:
                    bp.delete()
                if icount() != target:
                    raise gdb.GdbError("back: the replay did not stop at instruction %d (%d)" % (target, icount()))
            else:
                run_to(target)
        finally:
            user_breakpoints_on(saved)
        if not hits:
            print("back: %s was not reached before here (instruction %d); still here" % (loc, now))
        else:
            print("back: %s, reached %d time(s) before; here is the last (instruction %d of %d)"
                  % (loc, len(hits), target, now))
        gdb.execute("frame", from_tty)


def user_breakpoints_off():
    """the user's enabled breakpoints, disabled (to be enabled again)"""
    saved = [b.number for b in gdb.breakpoints() or [] if b.enabled and b.number > 0]
    for n in saved:
        gdb.execute("disable %d" % n, to_string=True)
    return saved


def user_breakpoints_on(saved):
    for n in saved:
        try:
            gdb.execute("enable %d" % n, to_string=True)
        except gdb.error:
            pass


class Forth(gdb.Command):
    """forth: back to the moment the last 'back' left."""

    def __init__(self, back):
        super().__init__("forth", gdb.COMMAND_RUNNING)
        self.back = back

    def invoke(self, arg, from_tty):
        if self.back.left is None:
            raise gdb.GdbError("forth: no 'back' to return from")
        saved = user_breakpoints_off()
        try:
            restart()
            run_to(self.back.left)
        finally:
            user_breakpoints_on(saved)
        if icount() != self.back.left:
            raise gdb.GdbError("forth: the replay did not come back to instruction %d (%d)"
                               % (self.back.left, icount()))
        gdb.execute("frame", from_tty)


Forth(Back())
