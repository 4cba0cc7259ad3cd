#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Progress of a long step, read from its output.

    some-command 2>&1 | progress.py LOG [--expect N] [--what TEXT] [--count-file F [--save]]

Every line of the command's output goes to LOG, unchanged. The lines that
count (kbuild's "  CC      fs/exec.o" lines; with --every, every line) are
counted, and the progress is shown on stderr: on a terminal, one line that
updates in place (at most every 0.2 s); elsewhere (a CI log), one line every
15 s. With an expected count (--expect N, or the number in --count-file,
kept from the last run), the line says done of expected, the percentage,
the time so far and an estimate of what is left; without one, the count
and the time. At the end, the line is cleared on a terminal; elsewhere,
when a progress line was printed, a last one says what was done ("building:
8 done in 0:16"), so that no log ends on a stale "8/1458 0%". With --save,
the count is written to --count-file at the end, for the next run.

Ctrl-C is for the command, not for this reader: SIGINT is ignored here, so
that the command's last lines (make's "Interrupt") still reach LOG and the
pipeline ends when the command does, with the command's status.

Standard library only; the unit tests are in tests/test_progress.py.
"""
import argparse
import os
import re
import signal
import sys
import time

# kbuild's quiet lines: two spaces, a short verb in capitals, the target
KBUILD_LINE = re.compile(r"^  [A-Z][A-Z0-9_]{1,9} +\S")


def counts(line, every=False):
    """Whether a line of output is one unit of work."""
    return every or bool(KBUILD_LINE.match(line))


def fmt_time(s):
    s = int(round(s))
    return "%d:%02d" % (s // 60, s % 60)


def status(what, done, expect, elapsed):
    """The progress line: 'building: 812/1650 49% 2:01, about 2:05 left'."""
    if expect and expect > 0:
        shown = min(done, expect)
        pct = 100 * shown // expect
        text = "%s: %d/%d %d%% %s" % (what, done, expect, pct, fmt_time(elapsed))
        # no estimate from the first few per cent: too early to tell
        if expect // 20 <= done < expect and done > 0 and elapsed >= 5:
            left = elapsed * (expect - done) / done
            text += ", about %s left" % fmt_time(left)
        return text
    return "%s: %d done, %s" % (what, done, fmt_time(elapsed))


def read_expect(path):
    try:
        with open(path) as f:
            n = int(f.read().strip() or 0)
        return n if n > 0 else None
    except (OSError, ValueError):
        return None


def run(inp, log, err, what, expect, every, tty, clock=time.monotonic, interval=None):
    """Copy inp to log; show progress on err. Returns the count."""
    if interval is None:
        interval = 0.2 if tty else 15.0
    start = clock()
    last = start
    done = 0
    shown = False
    for line in inp:
        log.write(line)
        if not counts(line.rstrip("\n"), every):
            continue
        done += 1
        now = clock()
        if now - last >= interval:
            last = now
            text = status(what, done, expect, now - start)
            if tty:
                err.write("\r\033[K" + text)
            else:
                err.write(text + "\n")
            err.flush()
            shown = True
    log.flush()
    if tty and shown:
        err.write("\r\033[K")
        err.flush()
    elif shown:
        err.write("%s: %d done in %s\n" % (what, done, fmt_time(clock() - start)))
        err.flush()
    return done


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("log")
    p.add_argument("--expect", type=int)
    p.add_argument("--count-file", help="the expected count, kept from an earlier run")
    p.add_argument("--save", action="store_true", help="write this run's count to --count-file")
    p.add_argument("--what", default="building")
    p.add_argument("--every", action="store_true", help="count every line")
    a = p.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the count of an earlier run is the better guess; --expect is the fallback
    expect = (read_expect(a.count_file) if a.count_file else None) or a.expect
    tty = sys.stderr.isatty() and os.environ.get("TERM", "dumb") != "dumb"
    inp = open(sys.stdin.fileno(), "r", errors="replace", newline="", closefd=False)
    with open(a.log, "w", errors="replace") as log:
        done = run(inp, log, sys.stderr, a.what, expect, a.every, tty)
    if a.save and a.count_file and done > 0:
        try:
            with open(a.count_file, "w") as f:
                f.write("%d\n" % done)
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
