#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read the results a guest wrote on its results channel (X.ktap), with the
kernel's own log (X.log, the console) beside it for what went wrong.

  ktap.py results X.ktap [LABS]   one line per lab: "NN STATUS PASSED PLANNED"
                                  STATUS: PASS FAIL TIMEOUT MISSING
  ktap.py report X.ktap [LABS]    the same for people: the failed points with
                                  their diagnostics, skipped and expected
                                  failures, the point a dead guest was
                                  running, and what the kernel said
  ktap.py json X.ktap [LABS]      every lab and point, as JSON
  ktap.py times X.ktap            one line per lab: "NN SECONDS LIMIT", what
                                  its check took and its TIMEOUT, as /init
                                  measured them
  ktap.py trouble X.log [--except SECTION]
                                  the lines of a kernel log that say the
                                  kernel is in trouble (scripts/kernel-trouble.re:
                                  its sections in TROUBLE_SECTIONS, but SECTION)
  ktap.py grep SECTION X.log      the lines of a kernel log, as they are, that a
                                  pattern of that section of kernel-trouble.re
                                  matches (panic, oops, oom, oom-any); exit
                                  status as grep's: 0 some, 1 none, 2 an error
  ktap.py ended X.ktap NN         exit 0 when lab NN's check failed having
                                  run every point it planned to a result
                                  (lab.sh: a check at the lab's start), else 1
  ktap.py channel RAW SECRET X.ktap REST
                                  (run-qemu.sh) split a boot's raw channel:
                                  /init's block, framed by lines carrying
                                  SECRET, to X.ktap; every other line to REST
                                  (written only when there is one); prints
                                  "STATE FOREIGN FORGED" (see split_channel)

LABS ("01 02 ...") are the labs that were asked for: one with no result line
is MISSING (the guest crashed or hung before it ended). The input is KTAP
version 1 as Documentation/dev-tools/ktap.rst gives it: the run at the top
level, one subtest per lab indented by two spaces, whose result lines are the
lab's test points. Lines at other indentations, and unknown lines, are
diagnostics: they never count as results.

X.ktap is what scripts/run-qemu.sh kept of the channel: the block of this
boot's /init, from its start line ("# userns-labs: init") to its end line
("# userns-labs: end of checks"), which it accepted only when both carried
the boot's secret (and wrote here without it). Only the lines inside that
block are read: before a start line and after the end line, nothing counts,
and an end line with anything after it (a raw channel's, with a secret) is
not the end.
"""

import json
import os
import re
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TROUBLE_FILE = os.path.join(HERE, "kernel-trouble.re")
# the sections of kernel-trouble.re whose lines say that the kernel is in
# trouble ([oom-any], the OOM killer's every line, is for the grader's facts)
TROUBLE_SECTIONS = ("panic", "oops", "oom")
SECTION = re.compile(r"^\[([a-z][a-z0-9-]*)\]$")

RESULT = re.compile(r"^(ok|not ok) ([0-9]+)(?: (?:- )?([^#]*?))?\s*(?:#\s*(.*))?$")
PLAN = re.compile(r"^1\.\.([0-9]+)\s*$")
TIME = re.compile(r"^# userns-labs time: ([0-9]+)s of ([0-9]+)s\s*$")
LAB_NAME = re.compile(r"^lab-([0-9][0-9])(?:-|$)")
DIRECTIVES = ("SKIP", "XFAIL", "TIMEOUT", "ERROR", "XPASS", "TODO")
# The start and end lines of /init's block on the results channel, defined
# here once: the host's readers (run-qemu.sh through split_channel, make
# check, the grader) take them from here, and guest-rootfs/init, which
# writes them (with the boot's secret after them), is checked against them
# (tests/test_interfaces.py).
SENTINEL = "# userns-labs: end of checks"
START = "# userns-labs: init"


def trouble_sections(path=TROUBLE_FILE):
    """{section: [compiled patterns]} of kernel-trouble.re: Python regular
    expressions, one a line, each under the "[section]" line before it;
    blank lines and lines starting with '#' are comments."""
    sections, cur = {}, None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            m = SECTION.match(line)
            if m:
                cur = sections.setdefault(m.group(1), [])
            elif cur is None:
                raise ValueError("%s:%d: a pattern before the first [section] line" % (path, n))
            else:
                cur.append(re.compile(line))
    return sections


def trouble_patterns(path=TROUBLE_FILE, sections=TROUBLE_SECTIONS):
    """The patterns of those sections of kernel-trouble.re, in one list."""
    have = trouble_sections(path)
    missing = [s for s in sections if s not in have]
    if missing:
        raise ValueError("%s: no section %s" % (path, ", ".join("[%s]" % s for s in missing)))
    return [p for s in sections for p in have[s]]


def trouble(text, patterns=None, limit=25, unless=()):
    """The lines of a kernel log that say the kernel is in trouble, the
    location lines (BUG at, RIP) first-class; a repeated line (Call Trace:)
    is shown once, with its count. A line that a pattern of unless
    matches is left out."""
    patterns = patterns if patterns is not None else trouble_patterns()
    out, seen = [], {}
    for line in text.splitlines():
        line = line.rstrip("\r")
        if not any(p.search(line) for p in patterns) or any(p.search(line) for p in unless):
            continue
        key = re.sub(r"^\[ *[0-9.]+\] ", "", line)
        if key in seen:
            seen[key] += 1
            continue
        seen[key] = 1
        out.append(key)
    lines = []
    for key in out[:limit]:
        n = seen[key]
        lines.append(key + (" (%d times)" % n if n > 1 else ""))
    if len(out) > limit:
        lines.append("... and %d more such lines" % (len(out) - limit))
    return lines


def split_result(line):
    """(ok, number, name, directive, reason) of a result line, or None."""
    m = RESULT.match(line)
    if not m:
        return None
    ok = m.group(1) == "ok"
    name = (m.group(3) or "").strip()
    rest = (m.group(4) or "").strip()
    directive, reason = "", rest
    word = rest.split(" ", 1)[0] if rest else ""
    if word.upper() in DIRECTIVES:
        directive = word.upper()
        reason = rest[len(word):].strip()
    return ok, int(m.group(2)), name, directive, reason


def point_status(ok, directive):
    if ok:
        return directive if directive in ("SKIP", "XFAIL") else "PASS"
    if directive == "TIMEOUT":
        return "TIMEOUT"
    return "FAIL"


def new_lab(name):
    return {"name": name, "plan": None, "points": [], "pre": [], "top": None,
            "top_reason": "", "running": None, "time": None}


def block(text):
    """(lines, started, ended): the lines of /init's block of a results
    channel. After its start line when there is one (else from the top),
    up to its end line."""
    lines = [raw.rstrip("\r") for raw in text.splitlines()]
    started = START in lines
    if started:
        lines = lines[lines.index(START) + 1:]
    ended = SENTINEL in lines
    if ended:
        lines = lines[:lines.index(SENTINEL)]
    return lines, started, ended


def split_channel(text, secret):
    """(block, rest, state, forged) of a boot's raw results channel. block:
    the lines from /init's start line "# userns-labs: init SECRET" to its
    end line "# userns-labs: end of checks SECRET", those two written back
    without the secret; rest: every other line (before the block, after it,
    and any start or end line in it that is not this boot's); state: "done"
    (start and end seen), "open" (start seen, no end: the guest stopped) or
    "none"; forged: an end line that is not this boot's /init's was there."""
    start, end = START + " " + secret, SENTINEL + " " + secret
    block, rest, state, forged = [], [], "none", False
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if secret and state == "none" and line == start:
            state = "open"
            block.append(START)
        elif secret and state == "open" and line == end:
            state = "done"
            block.append(SENTINEL)
        elif line.startswith(START) or line.startswith(SENTINEL):
            forged = forged or line.startswith(SENTINEL)
            rest.append(line)
        elif state == "open":
            block.append(line)
        else:
            rest.append(line)
    return block, rest, state, forged


def cmd_channel(raw, secret, out, rest_path):
    # bytes as they came (latin-1 maps each byte to one character and back)
    try:
        with open(raw, encoding="latin-1", newline="") as f:
            text = f.read()
    except FileNotFoundError:
        text = ""
    block, rest, state, forged = split_channel(text, secret)
    with open(out, "w", encoding="latin-1", newline="") as f:
        f.write("".join(line + "\n" for line in block))
    if rest:
        with open(rest_path, "w", encoding="latin-1", newline="") as f:
            f.write("".join(line + "\n" for line in rest))
    print("%s %d %d" % (state, len(rest), 1 if forged else 0))


def parse_text(text):
    """(labs, order, run) of a results channel. The lines between a lab's
    "  # Subtest: lab-NN-..." and its top-level result line belong to it."""
    lines, started, ended = block(text)
    labs, order = {}, []
    run = {"plan": None, "ended": ended, "started": started, "kernel": ""}
    chunks = []  # (lab number or None, [lines])
    cur = None
    for line in lines:
        if line.startswith("  # Subtest: "):
            lm = LAB_NAME.match(line[len("  # Subtest: "):].strip())
            if lm:
                cur = lm.group(1)
                name = line[len("  # Subtest: "):].strip()
                if cur not in labs:
                    labs[cur] = new_lab(name)
                    order.append(cur)
                else:  # a second subtest for the same lab: start it over
                    labs[cur] = new_lab(name)
                continue
        chunks.append((cur, line))
        r = split_result(line) if not line.startswith(" ") else None
        if r and cur is not None:
            lm = LAB_NAME.match(r[2])
            if lm and lm.group(1) == cur:
                cur = None
    for n, line in chunks:
        if n is not None and line.startswith("  ") and not line.startswith("   "):
            feed_point_line(labs[n], line[2:])
            continue
        if line.startswith(" "):
            continue
        m = PLAN.match(line)
        if m and run["plan"] is None:
            run["plan"] = int(m.group(1))
            continue
        if line.startswith("# userns-labs kernel: ") and not run["kernel"]:
            run["kernel"] = line[len("# userns-labs kernel: "):]
            continue
        r = split_result(line)
        if not r:
            continue
        ok, _num, name, directive, reason = r
        lm = LAB_NAME.match(name)
        if not lm:
            continue
        k = lm.group(1)
        if k not in labs:
            labs[k] = new_lab(name)
            order.append(k)
        lab = labs[k]
        if lab["top"] is not None:
            continue  # the first result line for a lab is the one that counts
        lab["top"] = "PASS" if ok else ("TIMEOUT" if directive == "TIMEOUT" else "FAIL")
        lab["top_reason"] = (directive + " " + reason).strip()
    return labs, order, run


def feed_point_line(lab, body):
    if body.startswith("KTAP version") or body.startswith("# Subtest: "):
        return
    m = PLAN.match(body)
    if m:
        if lab["plan"] is None:
            lab["plan"] = int(m.group(1))
        return
    r = split_result(body)
    # a result counts only as the next point of the plan: anything else (a
    # repeated number, one past the plan) is a diagnostic line
    if r and r[1] == len(lab["points"]) + 1 and (lab["plan"] is None or r[1] <= lab["plan"]):
        ok, num, name, directive, reason = r
        lab["points"].append({"num": num, "name": name, "status": point_status(ok, directive),
                              "directive": directive, "reason": reason, "diag": []})
        lab["running"] = None
        return
    if body.startswith("# running: "):
        lab["running"] = body[len("# running: "):].strip()
        return
    t = TIME.match(body)
    if t:
        # /init's own line comes after the check's output: the last one counts
        lab["time"] = (int(t.group(1)), int(t.group(2)))
        return
    if body.startswith("#") or r:
        text = body[2:] if body.startswith("# ") else body[1:] if body.startswith("#") else body
        if lab["points"] and lab["running"] is None:
            lab["points"][-1]["diag"].append(text)
        else:
            lab["pre"].append(text)


def summarize(lab):
    """(status, passed, planned) of a lab, from its points and result line."""
    plan = lab["plan"] or 0
    oks = [p for p in lab["points"] if p["status"] in ("PASS", "SKIP", "XFAIL")]
    bad = [p for p in lab["points"] if p["status"] not in ("PASS", "SKIP", "XFAIL")]
    nums = [p["num"] for p in lab["points"]]
    st = lab["top"]
    if st is None:
        st = "MISSING"
    elif st == "PASS" and (bad or plan == 0 or len(oks) < plan or
                           nums != list(range(1, len(nums) + 1))):
        st = "FAIL"
    return st, len(oks), plan


def results(text, want=()):
    labs, order, _run = parse_text(text)
    out = {}
    for n in order:
        out[n] = summarize(labs[n])
    for n in want:
        out.setdefault(n, ("MISSING", len([p for p in labs[n]["points"]
                                            if p["status"] in ("PASS", "SKIP", "XFAIL")]) if n in labs else 0,
                           (labs[n]["plan"] or 0) if n in labs else 0))
    return labs, out


def console_for(path):
    if path.endswith(".ktap"):
        log = path[:-len(".ktap")] + ".log"
        if os.path.exists(log):
            return log
    return None


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def cmd_results(path, want):
    _labs, res = results(read(path), want)
    for n in sorted(res):
        st, passed, plan = res[n]
        print("%s %s %d %d" % (n, st, passed, plan))


def cmd_times(path, want):
    labs, _res = results(read(path), want)
    for n in sorted(labs):
        if labs[n]["time"]:
            print("%s %d %d" % ((n,) + labs[n]["time"]))


def cmd_report(path, want):
    labs, res = results(read(path), want)
    for n in sorted(res):
        st, passed, plan = res[n]
        print("  lab %s: %s (%d/%d)" % (n, st, passed, plan))
        lab = labs.get(n)
        if not lab:
            continue
        for p in lab["points"]:
            if p["status"] == "PASS":
                continue
            line = "%s %d %s" % ("ok" if p["status"] in ("SKIP", "XFAIL") else "not ok",
                                 p["num"], p["name"])
            if p["directive"]:
                line += " # " + (p["directive"] + " " + p["reason"]).strip()
            print("      " + line)
            if p["status"] in ("SKIP", "XFAIL"):
                continue
            for d in p["diag"]:
                print("          " + d)
        if lab["running"] and st != "PASS":
            how = ("the check ran out of time" if st == "TIMEOUT" else
                   "the guest stopped" if st == "MISSING" else "the check ended")
            print("      %s during point %d, %s (%d point(s) done before it)"
                  % (how, len(lab["points"]) + 1, lab["running"], len(lab["points"])))
    log = console_for(path)
    if log:
        said = trouble(read(log))
        if said:
            print("  kernel said:")
            for line in said:
                print("      " + line)


def cmd_json(path, want):
    labs, res = results(read(path), want)
    _l, _o, run = parse_text(read(path))
    doc = {"kernel": run["kernel"], "started": run["started"], "ended": run["ended"], "labs": {}}
    for n in sorted(res):
        st, passed, plan = res[n]
        lab = labs.get(n, new_lab("lab-" + n))
        doc["labs"][n] = {"name": lab["name"], "status": st, "passed": passed, "planned": plan,
                          "running": lab["running"],
                          "points": [{k: p[k] for k in ("num", "name", "status", "reason")}
                                     for p in lab["points"]]}
    print(json.dumps(doc, indent=1, sort_keys=True))


def ran_to_its_end(text, n):
    """Lab N's check failed having run every point it planned, each to a
    pass, a failure, a skip or an expected failure: not a check that
    crashed, timed out or never ran (lab.sh: the start of a lab)."""
    labs, res = results(text, [n])
    st, _passed, plan = res.get(n, ("MISSING", 0, 0))
    pts = labs.get(n, new_lab("lab-" + n))["points"]
    return st == "FAIL" and plan >= 1 and len(pts) == plan and \
        all(p["status"] in ("PASS", "FAIL", "SKIP", "XFAIL") for p in pts)


def cmd_trouble(argv):
    if argv[0] == "grep":
        sections = trouble_sections()
        if argv[1] not in sections:
            raise ValueError("%s: no section [%s]" % (TROUBLE_FILE, argv[1]))
        found = [line for line in read(argv[2]).splitlines()
                 if any(p.search(line) for p in sections[argv[1]])]
        for line in found:
            print(line)
        return 0 if found else 1
    unless = trouble_patterns(sections=(argv[3],)) if len(argv) == 4 else ()
    for line in trouble(read(argv[1]), unless=unless):
        print(line)
    return 0


def main(argv):
    # a reader that stops early (| head) ends us quietly, as it does grep
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # the commands with a fixed number of words (with the command's own)
    fixed = {"channel": (5,), "grep": (3,), "trouble": (2, 4), "ended": (3,)}
    if len(argv) < 2 or argv[0] not in ("results", "report", "json", "times", "trouble", "grep",
                                        "channel", "ended") or \
            len(argv) not in fixed.get(argv[0], (len(argv),)) or \
            (argv[0] == "trouble" and len(argv) == 4 and argv[2] != "--except"):
        sys.stderr.write("usage: ktap.py results|report|json|times X.ktap [LABS]"
                         " | trouble X.log [--except SECTION] | grep SECTION X.log"
                         " | channel RAW SECRET X.ktap REST | ended X.ktap NN\n")
        return 2
    if argv[0] in ("trouble", "grep"):
        try:
            return cmd_trouble(argv)
        except (OSError, ValueError, re.error) as e:
            sys.stderr.write("ktap.py %s: %s\n" % (argv[0], e))
            return 2
    cmd, path = argv[0], argv[1]
    if cmd == "channel":
        cmd_channel(path, argv[2], argv[3], argv[4])
        return 0
    if cmd == "ended":
        try:
            return 0 if ran_to_its_end(read(path), argv[2]) else 1
        except OSError:
            return 1
    want = " ".join(argv[2:]).split()
    {"results": cmd_results, "report": cmd_report, "json": cmd_json, "times": cmd_times}[cmd](path, want)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
