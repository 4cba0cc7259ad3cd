#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A lab's declarations, read in one place: its lab.conf and the points of
its check. Everything else asks this module: gradelib.py imports it, the
shell asks through a cache this module writes (scripts/lib.sh, lab_conf),
and the guest reads the lab.env file it generates into the initramfs
(scripts/build-guest.sh, guest-rootfs/init).

    labconf.py get LABDIR KEY [DEFAULT]   a value (the key's own default
                                          when the lab does not set it)
    labconf.py points LABDIR              the check's points: NAME WEIGHT KIND
    labconf.py env LABDIR                 the guest's lab.env (numbers only)
    labconf.py cache LABS_DIR FILE        every lab's values as shell
                                          assignments, for lib.sh (written
                                          atomically)
    labconf.py lint [LABS_DIR]            every lab's lab.conf and check;
                                          exit 1 on a problem
    labconf.py keys                       the keys lab.conf may set

LABDIR is a lab's folder (labs/NN-slug) or its number.

lab.conf is also shell (it is shellcheck'd), written in one form only: a
comment, a blank line, or KEY="value", KEY='value' or KEY=word. A key this
module does not declare, or a line in another form, is an error: a value
one reader takes and another misreads is the fault this module exists to
end.

The points of a check: each call of expect, expect_xfail, ktap_skip or
ktap_needs with a literal name ("NAME") is a point, in order; a '#@' line
just above it declares it, as xv6's @test(points) does:

    #@ points 2        this point weighs 2 (1 when nothing is said)
    #@ guard           this point passes before any change: it earns
                       nothing, and when it fails the lab scores 0

The same name again (a skip on one base, an expect on the other) is the
same point. A call whose name is not a literal (a point printed from a loop
or a helper) is an error, and so is a check whose 'ktap_plan N' is not its
number of points: the scorer would not see what the check prints. Standard
library only.
"""

import os
import re
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

# KEY: (default, what it is). A default of None: the lab must set it.
KEYS = {
    "TITLE": (None, "the lab's title, a line"),
    "SERIES": (None, "the upstream series the lab's patch comes from"),
    "UPSTREAM": (None, "the upstream commit's subject"),
    "SEED": ("-", "the number of the seed file in ../shared/seeds/ (- when none)"),
    "FILES": ("", "the files the lab changes, space-separated (kernel paths; a user-space "
                  "lab's: course paths)"),
    "POINTS": ("10", "the lab's points, shared among its check's points by weight"),
    "TIMEOUT": ("60", "seconds the guest gives the lab's whole check"),
    "POINT_TIMEOUT": ("20", "seconds the guest gives one point of the check"),
    "HINT": ("", "the first hint: what the student sees, where to look"),
    "NEEDS_STEP": (None, "the kernel step the check needs (default: the lab's own number)"),
    "USERSPACE": ("", "a user-space lab: the course file the student writes (its "
                      "submission may change only this)"),
    "STUDENT_APPEND": ("", "kernel command line words that make the guest test the "
                           "student's program (a user-space lab)"),
    "STYLE_POINTS": ("0", "the patch review's own points (scripts/review.py), kept apart "
                          "from POINTS; 0: the review is reported, not scored"),
}
REQUIRED = ("TITLE", "SERIES", "UPSTREAM", "FILES", "POINTS", "HINT")
NUMBERS = ("POINTS", "TIMEOUT", "POINT_TIMEOUT", "NEEDS_STEP", "STYLE_POINTS")
GUEST = ("TIMEOUT", "POINT_TIMEOUT")

LINE = re.compile(r'^([A-Z_][A-Z0-9_]*)=(?:"((?:[^"\\$`]|\\.)*)"|\'([^\']*)\'|([^\s"\'$`;&|<>()\\~#]*))(?:\s+#.*)?$')
# a point call: one of the words where a command may start (the line's
# start; after ; & | ( ) { } !; after if, then, elif, else, while, until,
# do), then its name
POINT_WORDS = ("expect", "expect_xfail", "ktap_skip", "ktap_needs")
CMD_START = r'(?:^|[;&|(){}!]|\b(?:if|then|elif|else|while|until|do)\b)\s*'
POINT_CALL = re.compile(CMD_START + r'(expect|expect_xfail|ktap_skip|ktap_needs)(?=\s|$)\s*(.*)$')
ANY_POINT_WORD = re.compile(r'(?<![\w-])(expect|expect_xfail|ktap_skip|ktap_needs)(?![\w-])')
# a result line printed by hand, not through a point call: ktap.sh's own
# printers and counter, or a string that begins like a KTAP result
RAW_RESULT = re.compile(r'(?<![\w-])(ktap_ok|ktap_not_ok|ktap_n\s*=)|(["\']\s*(?:not\s+)?ok\s+(?:[0-9$%]|\\?\$))')
HEREDOC = re.compile(r'<<(-?)\s*([\'"]?)([A-Za-z_][A-Za-z0-9_]*)\2')
LITERAL = re.compile(r'^"([A-Za-z0-9_.-]+)"(\s|$)')
DECL = re.compile(r"^\s*#@\s*(.*?)\s*$")
PLAN = re.compile(r"^\s*ktap_plan\s+(\S+)\s*(?:#.*)?$")


class LabError(ValueError):
    pass


def labs_dir():
    return os.environ.get("LABS_DIR") or os.path.join(TOP, "labs")


def lab_path(lab, labs=None):
    """A lab's folder from its folder or number; None when there is none.
    A number is always a number (a folder "05" where it runs is not lab 5)."""
    if not re.fullmatch(r"[0-9]+", str(lab)):
        return str(lab).rstrip("/") if os.path.isdir(str(lab)) else None
    try:
        n = "%02d" % int(str(lab), 10)
    except ValueError:
        return None
    d = labs or labs_dir()
    for e in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if e.startswith(n + "-") and os.path.isdir(os.path.join(d, e)):
            return os.path.join(d, e)
    return None


def lab_number(path):
    return os.path.basename(path)[:2]


def parse(text, where="lab.conf"):
    """{KEY: value} of a lab.conf's text; LabError on a line in another
    form or a key not declared."""
    out = {}
    for i, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        m = LINE.match(s)
        if not m:
            raise LabError("%s:%d: not KEY=\"value\": %s" % (where, i, s[:60]))
        key = m.group(1)
        if key not in KEYS:
            raise LabError("%s:%d: %s is no key of lab.conf (labconf.py keys)" % (where, i, key))
        if m.group(2) is not None:
            v = re.sub(r"\\([$`\"\\])", r"\1", m.group(2))
        elif m.group(3) is not None:
            v = m.group(3)
        else:
            v = m.group(4)
        if key in NUMBERS and not re.fullmatch(r"[1-9][0-9]*|0", v):
            raise LabError("%s:%d: %s must be a whole number without leading zeros, not '%s'"
                           % (where, i, key, v))
        if key in out:
            raise LabError("%s:%d: %s is set twice" % (where, i, key))
        out[key] = v
    return out


def read(lab):
    """{KEY: value} of the lab's lab.conf, as written (no defaults)."""
    p = lab_path(lab)
    if not p:
        return {}
    f = os.path.join(p, "lab.conf")
    with open(f, encoding="utf-8") as fh:
        return parse(fh.read(), os.path.relpath(f, TOP) if f.startswith(TOP + os.sep) else f)


def get(lab, key, default=None):
    """A value: the lab's, else DEFAULT, else the key's own default (for
    NEEDS_STEP, the lab's number)."""
    if key not in KEYS:
        raise LabError("%s is no key of lab.conf" % key)
    v = read(lab).get(key)
    if v is not None and v != "":
        return v
    if default is not None:
        return default
    return own_default(lab_path(lab), key)


def own_default(path, key):
    """The key's own default for the lab at PATH (for NEEDS_STEP, the lab's
    number; '' for a key the lab must set)."""
    if key == "NEEDS_STEP":
        return str(int(lab_number(path))) if path else ""
    return KEYS[key][0] or ""


def points(lab):
    """[(name, weight, kind)] of a lab's check, in order (see the module's
    help); LabError for what the scorer could not see."""
    return [(n, w, k) for n, w, k, _ in _points(lab)]


def unexplained(lab):
    """The names of the check's expect and expect_xfail points with no
    if_wrong since the point before: a failure of one prints no
    plain-language "# wrong: ..." line for the student."""
    return [n for n, _, _, said in _points(lab) if said is False]


IF_WRONG = re.compile(CMD_START + r'if_wrong(?=\s)')


def _points(lab):
    """points(), each with whether an if_wrong came before it since the
    point before (None for a skip, which is never wrong)."""
    p = lab_path(lab)
    if not p or not os.path.exists(os.path.join(p, "check")):
        return []
    f = os.path.join(p, "check")
    where = os.path.relpath(f, TOP) if f.startswith(TOP + os.sep) else f
    out, decl, plan = [], {}, None
    with open(f, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    heredoc = None      # (delimiter, tabs stripped) while in a here-document
    said = False        # an if_wrong since the last point
    for i, line in enumerate(lines, 1):
        if heredoc:
            if (line.lstrip("\t") if heredoc[1] else line) == heredoc[0]:
                heredoc = None
            elif ANY_POINT_WORD.search(line) or RAW_RESULT.search(line):
                raise LabError("%s:%d: a point or a result inside a here-document: the scorer "
                               "cannot tell whether it runs" % (where, i))
            continue
        d = DECL.match(line)
        if d:
            words = d.group(1).split()
            if words and words[0] == "guard" and len(words) == 1:
                decl["guard"] = True
            elif len(words) == 2 and words[0] == "points" and re.match(r"^[0-9]+(\.[0-9]+)?$", words[1]):
                decl["points"] = float(words[1])
            else:
                raise LabError("%s:%d: unknown declaration '#@ %s'" % (where, i, d.group(1)))
            continue
        code = re.sub(r"(^|\s)#.*$", r"\1", line) if not line.lstrip().startswith("#") else ""
        if not code.strip():
            continue
        h = HEREDOC.search(code)
        if h:
            heredoc = (h.group(3), h.group(1) == "-")
        raw = RAW_RESULT.search(code)
        if raw:
            raise LabError("%s:%d: %s prints a result the scorer does not see: make it a point "
                           "(expect, expect_xfail, ktap_skip, ktap_needs)" % (where, i, raw.group(0).strip()))
        if IF_WRONG.search(code):
            said = True
        if re.search(r"(?<![\w-])ktap_plan(?![\w-])", code):
            pm = PLAN.match(code)
            if not pm or not re.fullmatch(r"[0-9]+", pm.group(1)):
                raise LabError("%s:%d: the plan must be a line 'ktap_plan N', N a number" % (where, i))
            plan = int(pm.group(1))
            continue
        calls = [m for m in re.finditer(CMD_START + r'(expect|expect_xfail|ktap_skip|ktap_needs)(?=\s|$)\s*', code)]
        words = ANY_POINT_WORD.findall(code)
        if len(words) > len(calls):
            raise LabError("%s:%d: %s where a command does not start (or in a string): the scorer "
                           "cannot tell a point there" % (where, i, words[0]))
        for m in calls:
            lit = LITERAL.match(code[m.end():])
            if not lit:
                raise LabError("%s:%d: %s with a name that is not a literal (\"NAME\"): the scorer "
                               "cannot see that point" % (where, i, m.group(1)))
            name = lit.group(1)
            if any(name == o[0] for o in out):
                # the same point again: a skip on one base, an expect on
                # the other (lab 5's check); the first call declares it
                if decl:
                    raise LabError("%s:%d: '#@' above %s, which an earlier line already declared: "
                                   "declare it above its first call" % (where, i, name))
                continue
            kind = "guard" if decl.get("guard") else "point"
            if kind == "guard" and "points" in decl:
                raise LabError("%s:%d: %s is a guard: it earns no points" % (where, i, name))
            out.append((name, decl.get("points", 1.0), kind,
                        said if m.group(1) in ("expect", "expect_xfail") else None))
            decl = {}
            said = False
    if decl:
        raise LabError("%s: a '#@' declaration with no point after it" % where)
    if out and plan is not None and plan != len(out):
        raise LabError("%s: ktap_plan %d, and the scorer sees %d point(s): a point printed "
                       "otherwise than by a literal call is not scored" % (where, plan, len(out)))
    return out


def lint(labs=None):
    """Every problem of every lab's declarations, as lines."""
    d = labs or labs_dir()
    problems = []
    for e in sorted(os.listdir(d)):
        p = os.path.join(d, e)
        if not re.match(r"^[0-9][0-9]-", e) or not os.path.isdir(p):
            continue
        try:
            conf = read(p)
            for k in REQUIRED:
                if not conf.get(k):
                    problems.append("%s/lab.conf: %s is not set" % (e, k))
            if os.path.exists(os.path.join(p, "check")) and not points(p):
                problems.append("%s/check: no point" % e)
            for n in unexplained(p):
                problems.append("%s/check: %s has no if_wrong before it: its failure would print "
                                "no \"wrong: ...\" line for the student" % (e, n))
        except (LabError, OSError) as err:
            problems.append(str(err))
    return problems


def shell_cache(labs):
    """Every lab's values, as shell assignments: labconf_NN_KEY='value' (as
    written, '' when unset) and labconf_NN_KEY_dflt='the key's own default
    for that lab' (what get() gives when neither the lab nor the caller
    does), so that lib.sh's lab_conf never needs a Python start."""
    out = ["# generated by scripts/labconf.py cache: do not edit"]
    for e in sorted(os.listdir(labs)):
        p = os.path.join(labs, e)
        if not re.match(r"^[0-9][0-9]-", e) or not os.path.isfile(os.path.join(p, "lab.conf")):
            continue
        n = e[:2]
        conf = read(p)
        for k in KEYS:
            v = conf.get(k, "")
            out.append("labconf_%s_%s=%s" % (n, k, shlex.quote(v)))
            out.append("labconf_%s_%s_dflt=%s" % (n, k, shlex.quote(own_default(p, k))))
    return "\n".join(out) + "\n"


def main(argv):
    a = argv[1:]
    try:
        if a[:1] == ["get"] and len(a) in (3, 4):
            if not lab_path(a[1]):
                raise LabError("there is no lab %s" % a[1])
            print(get(a[1], a[2], a[3] if len(a) == 4 else None))
        elif a[:1] == ["points"] and len(a) == 2:
            for name, w, kind in points(a[1]):
                print("%s %g %s" % (name, w, kind))
        elif a[:1] == ["env"] and len(a) == 2:
            print("# generated from lab.conf by scripts/labconf.py env: the guest's numbers")
            for k in GUEST:
                print("%s=%s" % (k, get(a[1], k)))
        elif a[:1] == ["cache"] and len(a) == 3:
            text = shell_cache(a[1])
            tmp = "%s.%d" % (a[2], os.getpid())
            os.makedirs(os.path.dirname(os.path.abspath(a[2])), exist_ok=True)
            with open(tmp, "w") as fh:
                fh.write(text)
            os.replace(tmp, a[2])
        elif a[:1] == ["lint"] and len(a) in (1, 2):
            problems = lint(a[1] if len(a) == 2 else None)
            for p in problems:
                print("labconf: " + p)
            return 1 if problems else 0
        elif a == ["keys"]:
            for k, (d, doc) in KEYS.items():
                shown = {"NEEDS_STEP": "(NN)"}.get(k, "(must)" if d is None else d or "''")
                print("%-15s %-8s %s" % (k, shown, doc))
        else:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
    except (LabError, OSError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
