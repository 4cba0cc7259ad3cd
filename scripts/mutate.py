#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mutate.py: wrong answers made by rule from a lab's reference answer.

The hand-written mutants (tests/mutants/) are the wrong answers someone
thought of; these are the ones a rule makes from every line the answer
changes (issue 30): a test dropped or negated, a capability asked in the
wrong user namespace, one of two parallel paths left as it was, the wrong
subject, another errno. Each is a patch onto lab-NN-start, in the
tests/mutants format, which tests/mutants-lib.sh can build and boot.

  mutate.py generate --answer PATCH --tree KERNEL_GIT_DIR --start TAG --out DIR
                     [--lab NN] [--max N] [--max-per-op N] [--ops OP,OP...]
      one patch per mutant, DIR/NN-gen-OPERATOR-K.patch, and DIR/generated.txt
      (every candidate: written, or why not). Exit 2 when the answer does not
      apply onto TAG, 1 when a generated patch would not apply (a bug here).
  mutate.py report --lab NN --answer PATCH --check FILE --results FILE --out FILE
                   [--equivalent FILE] [--mutants DIR] [--base B] [--top TOP]
      the lab's report from the runner's results (NAME STATUS POINTS..., one
      line per mutant; STATUS killed, SURVIVED or BAD) and the equivalents
      file (default tests/mutate/NN.equivalent beside --out: NAME REASON).
  mutate.py stale --top TOP [--base 6.12] [--strict] [--quiet]
      the reports whose recorded answer or check no longer is the file's
      (exit 1), and the labs with an answer and no report yet (listed unless
      --quiet; they fail only with --strict).
  mutate.py ops
      the operators, one a line.

Standard library only. Generation reads the kernel repository with git show
and checks every patch with git apply --check on a copy of the start's files;
it builds nothing.
"""
import argparse
import bisect
import difflib
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import labconf  # noqa: E402  (scripts/labconf.py: a lab's declarations)

MAIN_BASE = "6.12"

# The operators, in the order they run (a mutant that another operator has
# already made, the same code, is not kept twice: a one-line hunk dropped is
# a hunk-drop, not a capable-swap) and in which their mutants are kept when a
# lab has more than --max: the survivor kinds issue 30 names first (half the
# rule, the wrong namespace, the wrong subject, a refusal dropped), the rest
# after. The number is each one's own cap (--max-per-op overrides them all).
OPERATORS = [
    ("hunk-drop", 8, "one hunk of the answer left as it was at the start (one of several parallel changes)"),
    ("userns-replace", 10, "a user-namespace expression replaced by another one in scope, "
                           "current_user_ns() or &init_user_ns"),
    ("capable-swap", 6, "ns_capable(X, C) -> capable(C), capable(C) -> ns_capable(current_user_ns(), C), "
                        "and the other *capable* forms"),
    ("removed-own-ns", 3, "a capability test the answer removes kept, asked in the caller's own user namespace"),
    ("subject-swap", 4, "the wrong subject: sender or opener alone, current's credentials for the opener's, "
                        "current for the task passed, "
                        "real for fs credentials"),
    ("test-drop", 6, "a whole test the answer added or changed dropped, with the statement it guards"),
    ("cond-drop", 6, "one operand of an && / || chain the answer added or changed dropped"),
    ("cond-negate", 5, "a condition the answer added or changed negated"),
    ("guard-drop", 3, "an added test around work dropped, the work kept (done always)"),
    ("andor-swap", 4, "&& <-> || in a chain the answer added or changed"),
    ("errno-swap", 4, "-EPERM <-> -EACCES, -EINVAL <-> -EPERM where the answer returns one"),
    ("line-drop", 5, "one statement the answer added dropped"),
    ("flag-drop", 3, "one flag of an added A | B | C dropped"),
    ("test-move", 2, "an added refusal moved past the call next to it (or before the one above it)"),
]
OP_NAMES = [o[0] for o in OPERATORS]
DEFAULT_MAX = 40

# --------------------------------------------------------------------------
# patches


class Hunk:
    """One @@ hunk: its old and new ranges and its lines as (tag, text),
    text with its newline (none where git said so)."""

    def __init__(self, old_start, old_len, new_start, new_len, header):
        self.old_start, self.old_len = old_start, old_len
        self.new_start, self.new_len = new_start, new_len
        self.header = header
        self.lines = []

    def old_lines(self):
        return [t for tag, t in self.lines if tag in " -"]

    def new_lines(self):
        return [t for tag, t in self.lines if tag in " +"]


class FilePatch:
    def __init__(self, path, mode):
        self.path, self.mode, self.hunks = path, mode, []


HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


def parse_patch(text):
    """The files of a git format-patch (or plain git diff): [FilePatch].
    Only changes of existing files: a new, deleted or renamed file is an
    error (no answer has one)."""
    files, cur = [], None
    lines = text.splitlines(True)
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("diff --git "):
            m = re.match(r"diff --git a/(\S+) b/(\S+)", ln)
            if not m or m.group(1) != m.group(2):
                raise ValueError("unsupported diff line: %s" % ln.strip())
            cur = FilePatch(m.group(2), "100644")
            files.append(cur)
        elif cur is not None and ln.startswith(("new file", "deleted file", "rename ", "copy ")):
            raise ValueError("%s: only changes of existing files are supported" % cur.path)
        elif cur is not None and ln.startswith("index "):
            m = re.match(r"index \S+ (\d{6})", ln)
            if m:
                cur.mode = m.group(1)
        elif cur is not None and ln.startswith("@@ "):
            m = HUNK_RE.match(ln.rstrip("\n"))
            if not m:
                raise ValueError("bad hunk header: %s" % ln.strip())
            h = Hunk(int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1),
                     int(m.group(3)), int(m.group(4) if m.group(4) is not None else 1), m.group(5))
            old = new = 0
            i += 1
            while i < len(lines) and (old < h.old_len or new < h.new_len):
                body = lines[i]
                tag = body[:1]
                if tag == "\\":  # "\ No newline at end of file": the line before has none
                    t_, x = h.lines[-1]
                    h.lines[-1] = (t_, x.rstrip("\n"))
                    i += 1
                    continue
                if tag not in " -+":
                    if body in ("\n", "\r\n"):  # an empty context line stripped of its space
                        tag, body = " ", " \n"
                    else:
                        raise ValueError("%s: short hunk at %s" % (cur.path, ln.strip()))
                h.lines.append((tag, body[1:]))
                old += tag in " -"
                new += tag in " +"
                i += 1
            while i < len(lines) and lines[i].startswith("\\"):
                # "\ No newline at end of file": the line before has none
                tag, t = h.lines[-1]
                h.lines[-1] = (tag, t.rstrip("\n"))
                i += 1
            cur.hunks.append(h)
            continue
        i += 1
    return files


def apply_hunks(text, hunks, path="?"):
    """TEXT with HUNKS applied at exactly their places (the answer was made
    against this very text). Returns the new text and, for each hunk, the
    0-based index of its first line in the new text."""
    lines = text.splitlines(True)
    out, pos, starts = [], 0, []
    for h in hunks:
        start = h.old_start - 1 if h.old_len else h.old_start
        old = h.old_lines()
        if lines[start:start + len(old)] != old:
            raise ValueError("%s: the hunk at line %d does not apply" % (path, h.old_start))
        out.extend(lines[pos:start])
        starts.append(len(out))
        out.extend(h.new_lines())
        pos = start + len(old)
    out.extend(lines[pos:])
    return "".join(out), starts


def blob_id(data):
    b = data.encode()
    return hashlib.sha1(b"blob %d\0" % len(b) + b).hexdigest()


def opcodes(al, bl):
    """difflib's opcodes for two lists of lines, fast: the common head and
    tail are left out of the matching (a kernel file has thousands of lines,
    an answer changes a few)."""
    n = 0
    while n < len(al) and n < len(bl) and al[n] == bl[n]:
        n += 1
    t = 0
    while t < len(al) - n and t < len(bl) - n and al[len(al) - 1 - t] == bl[len(bl) - 1 - t]:
        t += 1
    sm = difflib.SequenceMatcher(None, al[n:len(al) - t], bl[n:len(bl) - t], autojunk=False)
    out = [("equal", 0, n, 0, n)] if n else []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        out.append((tag, i1 + n, i2 + n, j1 + n, j2 + n))
    if t:
        out.append(("equal", len(al) - t, len(al), len(bl) - t, len(bl)))
    return out


def grouped(codes, n=3):
    """difflib.SequenceMatcher.get_grouped_opcodes() for OPCODES."""
    codes = list(codes)
    if not codes:
        codes = [("equal", 0, 1, 0, 1)]
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)
    nn = n + n
    group = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > nn:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def unified_diff(path, mode, a, b, context=3):
    """A git-style diff of one file, A to B (texts), with git's function
    names on the @@ lines."""
    al, bl = a.splitlines(True), b.splitlines(True)
    out = ["diff --git a/%s b/%s\n" % (path, path),
           "index %s..%s %s\n" % (blob_id(a)[:7], blob_id(b)[:7], mode),
           "--- a/%s\n" % path, "+++ b/%s\n" % path]

    def rng(start, n):
        if n == 1:
            return "%d" % (start + 1)
        return "%d,%d" % (start + 1 if n else start, n)

    def funcname(i):
        for k in range(i - 1, -1, -1):
            if re.match(r"[A-Za-z_$]", al[k]):
                return " " + al[k].rstrip("\n")[:80]
        return ""

    def emit(tag, ln):
        out.append(tag + ln)
        if not ln.endswith("\n"):
            out.append("\n\\ No newline at end of file\n")

    for group in grouped(opcodes(al, bl), context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append("@@ -%s +%s @@%s\n" % (rng(i1, i2 - i1), rng(j1, j2 - j1), funcname(i1)))
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                for ln in al[a1:a2]:
                    emit(" ", ln)
                continue
            for ln in al[a1:a2]:
                emit("-", ln)
            for ln in bl[b1:b2]:
                emit("+", ln)
    return "".join(out)


# --------------------------------------------------------------------------
# C, as much of it as the rules need


MASK_RE = re.compile(r"""
  (?P<comment>/\*.*?\*/|/\*.*\Z|//[^\n]*)
| (?P<literal>"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?)
| (?P<cpp>^[ \t]*\#(?:[^\n]*\\\n)*[^\n]*)
""", re.X | re.S | re.M)


def _blank(m):
    if m.lastgroup == "literal":
        return m.group()
    return re.sub(r"[^\n]", " ", m.group())


def mask(text):
    """TEXT with every comment and preprocessor line blanked (same length,
    newlines kept), so that offsets into it are offsets into TEXT."""
    return MASK_RE.sub(_blank, text)


def _one_space(m):
    return m.group() if m.lastgroup == "literal" else (m.group() if m.lastgroup == "cpp" else " ")


def code(text):
    """The code of a C file, comments and white space aside: two files with
    the same code() build the same kernel."""
    return " ".join(MASK_RE.sub(_one_space, text).split())


TOKEN_RE = re.compile(r"""
  (?P<ws>\s+)
| (?P<ident>[A-Za-z_]\w*)
| (?P<num>(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?)[uUlLfF]*)
| (?P<str>"(?:\\.|[^"\\\n])*")
| (?P<chr>'(?:\\.|[^'\\\n])*')
| (?P<punct>->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|%=|&=|\|=|\^=|\.\.\.|\#\#|\S)
""", re.X)


class Tok:
    __slots__ = ("kind", "text", "start", "end")

    def __init__(self, kind, text, start, end):
        self.kind, self.text, self.start, self.end = kind, text, start, end

    def __repr__(self):
        return "Tok(%r)" % self.text


def tokenize(text, base=0):
    toks = []
    for m in TOKEN_RE.finditer(text):
        k = m.lastgroup
        if k != "ws":
            toks.append(Tok(k, m.group(), base + m.start(), base + m.end()))
    return toks


OPEN, CLOSE = {"(", "[", "{"}, {")", "]", "}"}
KEYWORDS = {"if", "else", "for", "while", "do", "switch", "case", "default", "return", "goto",
            "break", "continue", "sizeof", "typeof", "struct", "union", "enum", "static", "const",
            "volatile", "inline", "unsigned", "signed", "register", "extern"}
JUMPS = {"return", "goto", "break", "continue"}
QUALIFIERS = {"const", "static", "volatile", "unsigned", "signed", "register", "extern", "inline"}


class ParseError(Exception):
    pass


def match(toks, i):
    """The index of the bracket closing the one at TOKS[i]."""
    depth = 0
    for k in range(i, len(toks)):
        t = toks[k].text
        if t in OPEN:
            depth += 1
        elif t in CLOSE:
            depth -= 1
            if depth == 0:
                return k
    raise ParseError("unbalanced %s" % toks[i].text)


class Stmt:
    """A statement: its kind (block, if, loop, do, label, jump, decl, expr,
    other), its first and last tokens (indices), and for an if its
    condition's tokens [cond[0], cond[1]) with its then and else parts."""

    def __init__(self, kind, first, last, **kw):
        self.kind, self.first, self.last = kind, first, last
        self.cond = kw.get("cond")
        self.then = kw.get("then")
        self.els = kw.get("els")
        self.body = kw.get("body")
        self.children = kw.get("children", [])
        self.parent = None
        self.role = None  # child (of a block), then, else, body

    def kids(self):
        out = list(self.children)
        for s, r in ((self.then, "then"), (self.els, "else"), (self.body, "body")):
            if s is not None:
                out.append(s)
        return out


def is_decl(toks, a, b):
    """Whether TOKS[a:b] (a statement) declares a variable."""
    k = a
    while k < b and toks[k].text in QUALIFIERS:
        k += 1
    if k < b and toks[k].text in ("struct", "union", "enum"):
        k += 1
    if k >= b or toks[k].kind != "ident" or toks[k].text in KEYWORDS:
        return False
    k += 1
    stars = 0
    while k < b and toks[k].text in ("*", "const"):
        stars += toks[k].text == "*"
        k += 1
    if k >= b or toks[k].kind != "ident" or toks[k].text in KEYWORDS:
        return False
    nxt = toks[k + 1].text if k + 1 < b else ";"
    return nxt in ("=", ";", ",", "[", ")") or nxt.startswith("__")


def parse_stmt(toks, i, end):
    if i >= end:
        raise ParseError("statement expected")
    t = toks[i].text
    if t == "{":
        j, kids = i + 1, []
        while j < end and toks[j].text != "}":
            s, j = parse_stmt(toks, j, end)
            kids.append(s)
        if j >= end:
            raise ParseError("unclosed block")
        return Stmt("block", i, j, children=kids), j + 1
    if t == "if":
        if i + 1 >= end or toks[i + 1].text != "(":
            raise ParseError("if without (")
        close = match(toks, i + 1)
        then, j = parse_stmt(toks, close + 1, end)
        els = None
        if j < end and toks[j].text == "else":
            els, j = parse_stmt(toks, j + 1, end)
        return Stmt("if", i, j - 1, cond=(i + 2, close), then=then, els=els), j
    if t in ("for", "while", "switch"):
        close = match(toks, i + 1)
        body, j = parse_stmt(toks, close + 1, end)
        return Stmt("loop", i, j - 1, cond=(i + 2, close), body=body), j
    if t == "do":
        body, j = parse_stmt(toks, i + 1, end)
        if j + 1 >= end or toks[j].text != "while":
            raise ParseError("do without while")
        close = match(toks, j + 1)
        return Stmt("do", i, close + 1, body=body), close + 2
    if t in ("case", "default"):
        j, depth = i, 0
        while j < end and not (toks[j].text == ":" and depth == 0):
            depth += toks[j].text in OPEN
            depth -= toks[j].text in CLOSE
            j += 1
        return Stmt("label", i, j), j + 1
    if toks[i].kind == "ident" and i + 1 < end and toks[i + 1].text == ":" and t not in KEYWORDS:
        return Stmt("label", i, i + 1), i + 2
    j, depth = i, 0
    while j < end:
        x = toks[j].text
        if x in OPEN:
            if x == "{" and depth == 0 and j > i and toks[j - 1].text == ")":
                # a loop macro: list_for_each_entry(...) { ... }
                body, nj = parse_stmt(toks, j, end)
                return Stmt("loop", i, nj - 1, body=body), nj
            depth += 1
        elif x in CLOSE:
            if depth == 0:
                raise ParseError("unexpected %s" % x)
            depth -= 1
        elif x == ";" and depth == 0:
            if t in JUMPS:
                kind = "jump"
            elif t == "fallthrough":
                kind = "other"
            elif is_decl(toks, i, j):
                kind = "decl"
            else:
                kind = "expr"
            return Stmt(kind, i, j), j + 1
        j += 1
    raise ParseError("statement without ;")


def link(stmt, out):
    out.append(stmt)
    for s in stmt.children:
        s.parent, s.role = stmt, "child"
        link(s, out)
    for s, r in ((stmt.then, "then"), (stmt.els, "else"), (stmt.body, "body")):
        if s is not None:
            s.parent, s.role = stmt, r
            link(s, out)


def declarators(toks, stmts):
    """(token index of the name, whether it has a value) of every variable
    the declarations among STMTS declare."""
    out = []
    for st in stmts:
        if st.kind != "decl":
            continue
        for a, b in split_top(toks, st.first, st.last, ","):
            eq = next((k for k in range(a, b) if toks[k].text == "=" and depth_at(toks, a, k) == 0), b)
            names = [k for k in range(a, eq) if toks[k].kind == "ident" and toks[k].text not in KEYWORDS and
                     depth_at(toks, a, k) == 0 and toks[k + 1].text != "(" and not toks[k].text.startswith("__")]
            if names:
                out.append((names[-1], eq < b))
    return out


def split_top(toks, a, b, sep):
    """TOKS[a:b] split at SEP outside brackets: [(start, end)...] (the
    separators are the tokens at each part's end)."""
    parts, depth, s = [], 0, a
    for k in range(a, b):
        x = toks[k].text
        if x in OPEN:
            depth += 1
        elif x in CLOSE:
            depth -= 1
        elif x == sep and depth == 0:
            parts.append((s, k))
            s = k + 1
    parts.append((s, b))
    return parts


def find_chains(toks, a, b, out):
    """Every && / || chain in the expression TOKS[a:b], outermost first:
    out gets (op, [(start, end) of each operand])."""
    if a >= b:
        return
    parts = split_top(toks, a, b, ",")
    if len(parts) > 1:
        for p in parts:
            find_chains(toks, p[0], p[1], out)
        return
    if not any(toks[k].text == "?" for k in range(a, b) if depth_at(toks, a, k) == 0):
        for op in ("||", "&&"):
            parts = split_top(toks, a, b, op)
            if len(parts) > 1:
                out.append((op, parts))
                for p in parts:
                    find_chains(toks, p[0], p[1], out)
                return
    k = a
    while k < b:
        if toks[k].text in OPEN:
            m = match(toks, k)
            if toks[k].text == "(":
                find_chains(toks, k + 1, m, out)
            k = m + 1
        else:
            k += 1


def depth_at(toks, a, k):
    d = 0
    for x in toks[a:k]:
        d += x.text in OPEN
        d -= x.text in CLOSE
    return d


def postfix_end(toks, k, b):
    """The end (exclusive) of the postfix expression that starts with the
    identifier TOKS[k]: calls, subscripts and member accesses."""
    m = k + 1
    while m < b:
        x = toks[m].text
        if x in ("(", "["):
            m = match(toks, m) + 1
        elif x in ("->", ".") and m + 1 < b and toks[m + 1].kind == "ident":
            m += 2
        else:
            break
    return m


class Func:
    def __init__(self, name, rettype, first_line, open_line, close_line):
        self.name, self.rettype = name, rettype
        self.first_line, self.open_line, self.close_line = first_line, open_line, close_line
        self.stmts = []  # every statement, outermost first
        self.body = None
        self.tok_range = (0, 0)
        self.userns_vars = {}  # name -> token index of its declaration (-1: a parameter)
        self.locals = {}  # name -> token index of its declaration
        self.ready = {}  # name -> token index from which it has a value (params: -1)

    def is_void(self):
        return re.search(r"\bvoid$", self.rettype.strip()) is not None


def find_functions(code_lines):
    """The function definitions of a file in the kernel's style: a header
    from column 0, its { and } alone at column 0."""
    funcs, i = [], 0
    while i < len(code_lines):
        if not code_lines[i].startswith("{"):
            i += 1
            continue
        h = i - 1
        while h >= 0 and code_lines[h][:1] in (" ", "\t") and code_lines[h].strip():
            h -= 1
        if h < 0 or not code_lines[h].strip() or code_lines[h][0] in "};#":
            i += 1
            continue
        header = " ".join(ln.strip() for ln in code_lines[h:i])
        m = re.search(r"([A-Za-z_]\w*)\s*\(", header)
        if not m or "=" in header[:m.start()]:
            i += 1
            continue
        name, rettype = m.group(1), header[:m.start()]
        sm = re.match(r"(?:COMPAT_)?SYSCALL_DEFINE\d\s*\(\s*(\w+)", header[m.start():])
        if sm:
            name, rettype = "sys_" + sm.group(1), "long"
        e = i + 1
        while e < len(code_lines) and not code_lines[e].startswith("}"):
            e += 1
        funcs.append(Func(name, rettype, h, i, e))
        i = e + 1
    return funcs


USERNS_CALLS = {"current_user_ns", "seq_user_ns", "sk_user_ns", "i_user_ns", "to_user_ns",
                "task_user_ns", "net_user_ns"}
CRED_USERNS_MACROS = {"task_cred_xxx", "current_cred_xxx"}


class Source:
    """One file of the answer: its text at the start and in the answer, and
    what the answer changed in it, down to the tokens."""

    def __init__(self, path, mode, start, hunks):
        self.path, self.mode, self.start = path, mode, start
        self.hunks = hunks
        self.text, self.hunk_new_starts = apply_hunks(start, hunks, path)
        self.code = mask(self.text)
        self.lines = self.text.splitlines(True)
        self.code_lines = [ln.rstrip("\n") for ln in self.code.splitlines(True)]
        self.line_starts = []
        off = 0
        for ln in self.lines:
            self.line_starts.append(off)
            off += len(ln)
        self.line_starts.append(off)
        self.plus = set()  # 0-based lines of the answer's text that the answer added
        self.changed = {}  # line -> [(start, end)] spans (offsets) the answer changed
        self._changes()
        self.toks = tokenize(self.code)
        self.tok_starts = [t.start for t in self.toks]
        self.funcs = find_functions(self.code_lines)
        self._parse_functions()

    # where the answer changed what
    def _changes(self):
        for h, first in zip(self.hunks, self.hunk_new_starts):
            ln = first
            removed, added = [], []

            def flush():
                self._pair(removed, added)
                del removed[:], added[:]

            for tag, t in h.lines:
                if tag == " ":
                    flush()
                    ln += 1
                elif tag == "-":
                    removed.append(t)
                else:
                    added.append((ln, t))
                    self.plus.add(ln)
                    ln += 1
            flush()

    def _pair(self, removed, added):
        """Pair each added line with the removed line it most resembles (in
        order), and mark as changed the tokens that differ; an added line
        with no partner is changed as a whole."""
        r0 = 0
        for ln, t in added:
            best, bi = 0.0, None
            for k in range(r0, len(removed)):
                ratio = difflib.SequenceMatcher(None, removed[k].strip(), t.strip()).ratio()
                if ratio > best:
                    best, bi = ratio, k
            base = self.line_starts[ln]
            nt = tokenize(self.code[base:self.line_starts[ln + 1]], base)
            if bi is None or best < 0.6:
                spans = [(x.start, x.end) for x in nt]
            else:
                r0 = bi + 1
                ot = tokenize(mask(removed[bi]))
                sm = difflib.SequenceMatcher(None, [x.text for x in ot], [x.text for x in nt], autojunk=False)
                spans = []
                for tag, i1, i2, j1, j2 in sm.get_opcodes():
                    if tag == "equal":
                        continue
                    if j2 > j1:
                        spans.extend((x.start, x.end) for x in nt[j1:j2])
                    else:  # a deletion: the tokens around it changed
                        for j in (j1 - 1, j1):
                            if 0 <= j < len(nt):
                                spans.append((nt[j].start, nt[j].end))
            if spans:
                self.changed.setdefault(ln, []).extend(spans)
            elif bi is not None and best >= 0.6:
                self.plus.discard(ln)  # the same code, only moved or re-indented

    def line_of(self, off):
        return min(bisect.bisect_right(self.line_starts, off) - 1, len(self.lines) - 1)

    def tok_changed(self, t):
        for s, e in self.changed.get(self.line_of(t.start), ()):
            if s < t.end and t.start < e:
                return True
        return False

    def range_changed(self, a, b):
        return any(self.tok_changed(self.toks[k]) for k in range(a, b))

    def whole_lines(self, first, last):
        """(L1, L2) when tokens FIRST..LAST fill lines L1..L2 (nothing else
        of code on them), else None."""
        a, b = self.toks[first], self.toks[last]
        l1, l2 = self.line_of(a.start), self.line_of(b.start)
        if self.code[self.line_starts[l1]:a.start].strip() or self.code[b.end:self.line_starts[l2 + 1]].strip():
            return None
        return l1, l2

    def all_plus(self, l1, l2):
        return all(k in self.plus for k in range(l1, l2 + 1))

    def func_at(self, off):
        ln = self.line_of(off)
        for f in self.funcs:
            if f.first_line <= ln <= f.close_line:
                return f
        return None

    def snippet(self, a, b):
        """The source of tokens [a, b) on one line, white space collapsed."""
        s = self.text[self.toks[a].start:self.toks[b - 1].end]
        s = re.sub(r"\s+", " ", s)
        return re.sub(r"([(\[]) ", r"\1", s)

    # functions, their statements and their user namespaces
    def _parse_functions(self):
        """Only the functions the answer changed are read (a file of the
        network stack has hundreds)."""
        for f in self.funcs:
            if not any(f.first_line <= ln <= f.close_line for ln in self.plus):
                continue
            lo, hi = self.line_starts[f.first_line], self.line_starts[f.close_line + 1]
            idx = list(range(bisect.bisect_left(self.tok_starts, lo), bisect.bisect_left(self.tok_starts, hi)))
            if not idx:
                continue
            f.tok_range = (idx[0], idx[-1] + 1)
            ob = next((k for k in idx if self.toks[k].text == "{" and
                       self.line_of(self.toks[k].start) == f.open_line), None)
            for m in re.finditer(r"struct\s+user_namespace\s*\*\s*(?:const\s+)?([A-Za-z_]\w*)",
                                 self.code[lo:hi]):
                off = lo + m.start(1)
                k = next((k for k in idx if self.toks[k].start == off), None)
                if k is not None:
                    f.userns_vars.setdefault(m.group(1), -1 if ob is None or k < ob else k)
            if ob is None:
                continue
            try:
                body, _ = parse_stmt(self.toks, ob, idx[-1] + 1)
            except (ParseError, StopIteration):
                continue
            f.body = body
            link(body, f.stmts)
            inited = set()
            for k, init in declarators(self.toks, f.stmts):
                f.locals.setdefault(self.toks[k].text, k)
                if init:
                    inited.add(k)
            for var, k in f.locals.items():
                if k in inited:
                    f.ready[var] = k
                    continue
                f.ready[var] = min([st.last for st in f.stmts if st.kind == "expr" and st.first > k and
                                    self.toks[st.first].text == var and self.toks[st.first + 1].text == "="],
                                   default=len(self.toks))

    def changed_stmts(self):
        """(function, statement) for every statement of a function whose own
        tokens (an if's condition, not its body) the answer changed."""
        for f in self.funcs:
            for st in f.stmts:
                if st.kind == "block":
                    continue
                if st.kind in ("if", "loop") and st.cond:
                    a, b = st.first, st.cond[1] + 1
                elif st.kind in ("loop", "do"):
                    continue
                else:
                    a, b = st.first, st.last + 1
                if self.range_changed(a, b):
                    yield f, st

    def expr_range(self, st):
        """The expression of a statement: an if's condition, what a return
        returns, the right-hand side of an assignment or initialiser."""
        if st.kind in ("if", "loop") and st.cond:
            return st.cond
        if st.kind == "jump" and self.toks[st.first].text == "return":
            return st.first + 1, st.last
        if st.kind in ("expr", "decl"):
            for k in range(st.first, st.last):
                x = self.toks[k].text
                if x in ("(", "[", "{"):
                    break
                if x in ("=", "|=", "&=", "+=", "-=", "^="):
                    return k + 1, st.last
            return st.first, st.last
        return None

    # user namespaces
    def userns_exprs(self, f, a, b):
        """Every user-namespace expression in tokens [a, b) of function F:
        (start, end) token ranges, the longest such prefix of each postfix
        expression."""
        out = []
        k = a
        while k < b:
            t = self.toks[k]
            prev = self.toks[k - 1].text if k > 0 else ""
            if t.kind != "ident" or t.text in KEYWORDS or prev in ("->", "."):
                k += 1
                continue
            end = postfix_end(self.toks, k, b)
            best = None
            # each prefix that ends where a member access or the end begins
            m = k + 1
            cuts = []
            while m <= end:
                if m == end or self.toks[m].text in ("->", ".", "["):
                    cuts.append(m)
                if m < end and self.toks[m].text in ("(", "["):
                    m = match(self.toks, m) + 1
                else:
                    m += 1
            for c in cuts:
                if self.is_userns(f, k, c):
                    best = c
            start = k
            if t.text == "init_user_ns" and prev == "&":
                start, best = k - 1, k + 1
            if best is not None and not self.is_lvalue_use(start, best):
                out.append((start, best))
            k += 1
        return out

    def is_userns(self, f, a, b):
        toks = self.toks
        names = [x.text for x in toks[a:b]]
        if b - a == 1:
            return names[0] in f.userns_vars or names[0] == "init_user_ns"
        if names[-2] in ("->", ".") and names[-1] in ("user_ns", "s_user_ns"):
            return True
        if names[-2] == "->" and names[-1] == "parent":
            return self.is_userns(f, a, b - 2)
        if names[1] == "(" and match(toks, a + 1) == b - 1:
            if names[0] in USERNS_CALLS:
                return True
            if names[0] in CRED_USERNS_MACROS and names[-2] == "user_ns":
                return True
        return False

    def is_lvalue_use(self, a, b):
        """Whether tokens [a, b) are assigned to or declared there."""
        nxt = self.toks[b].text if b < len(self.toks) else ""
        prev = self.toks[a - 1].text if a > 0 else ""
        if nxt in ("=", "++", "--") or prev in ("++", "--", "sizeof"):
            return True
        if prev == "*" and a >= 2 and self.toks[a - 2].text in ("user_namespace", "const", "*"):
            return True  # its declaration
        if prev == "&" and self.toks[a].text != "init_user_ns":
            return True
        return False


# --------------------------------------------------------------------------
# mutants


class Mutant:
    """One candidate: its operator, the file, the edits to the answer's text
    of that file ((start, end, replacement) offsets), what it does in
    words, and where (an offset of the answer's text)."""

    def __init__(self, op, src, edits, what, where):
        self.op, self.src, self.edits, self.what, self.where = op, src, edits, what, where
        self.name = None
        self.texts = None
        self.why = None  # why it was not written

    def label(self):
        return self.name or "%s '%s'" % (self.op, self.what)

    def mutated(self):
        t = self.src.text
        for s, e, r in sorted(self.edits, reverse=True):
            t = t[:s] + r + t[e:]
        return t


def line_edit(src, l1, l2, new_lines):
    """An edit replacing lines L1..L2 of SRC's answer text by NEW_LINES."""
    return (src.line_starts[l1], src.line_starts[l2 + 1], "".join(new_lines))


def short(s, n=60):
    s = re.sub(r"\s+", " ", s).strip()
    return s if len(s) <= n else s[:n - 3] + "..."


def op_hunk_drop(srcs):
    """One hunk of several left as it was at the start: one of a set of
    parallel changes not made. A hunk that changes only comments is no
    candidate (its drop would build the answer's kernel)."""
    hunks = []
    for src in srcs:
        for h, first in zip(src.hunks, src.hunk_new_starts):
            if code("".join(h.old_lines())) != code("".join(h.new_lines())):
                hunks.append((src, h, first))
    if len(hunks) < 2:
        return
    for src, h, first in hunks:
        l2 = first + len(h.new_lines()) - 1
        f = src.func_at(src.line_starts[first + min(3, len(h.new_lines()) - 1)])
        where = "%s:%d" % (src.path, first + 1) + (" (%s)" % f.name if f else "")
        yield Mutant("hunk-drop", src, [line_edit(src, first, l2, h.old_lines())],
                     "the change at %s not made" % where, src.line_starts[first])


def op_line_drop(srcs):
    """One statement the answer added dropped (never a declaration, a jump,
    the only statement of an if's branch, or the first assignment of a
    variable declared without a value)."""
    for src in srcs:
        for f, st in src.changed_stmts():
            if st.kind != "expr" or st.role != "child":
                continue
            wl = src.whole_lines(st.first, st.last)
            if not wl or not src.all_plus(*wl):
                continue
            first = src.toks[st.first]
            if RESOURCE_RE.match(src.snippet(st.first, st.last + 1)):
                continue  # a reference or a lock: nothing a check sees
            if PRINT_RE.match(src.snippet(st.first, st.last + 1)):
                continue  # a message: no check grades what is printed
            if on_error_path(src, st):
                continue  # the undoing of a failure no check can cause
            if src.toks[st.first + 1].text == "=" and first.text in f.locals:
                decl = f.locals[first.text]
                assigned_before = any(
                    s.kind == "expr" and s.first < st.first and s.first > decl and
                    src.toks[s.first].text == first.text and src.toks[s.first + 1].text == "="
                    for s in f.stmts)
                if f.ready.get(first.text, -1) >= st.first and not assigned_before:
                    continue  # its first value
            yield Mutant("line-drop", src, [line_edit(src, wl[0], wl[1], [])],
                         "drop %s in %s()" % (short(src.snippet(st.first, st.last + 1), 50), f.name),
                         first.start)


PRINT_RE = re.compile(r"(?:say|printf|fprintf|puts|perror|fflush|pr_\w+|printk|ulab_print_ids)\s*\(")
RESOURCE_RE = re.compile(r"(?:\w+_)?(?:get|put|free|lock|unlock|release|hold)(?:_\w+)?\s*\(")


def on_error_path(src, st):
    """Whether ST is in a block that ends by leaving with an error (a goto,
    or a return of anything but 0)."""
    p = st.parent
    while p is not None:
        if p.kind == "block" and p.children and p.children[-1].kind == "jump" and p.role in ("then", "else"):
            j = p.children[-1]
            texts = [t.text for t in src.toks[j.first:j.last]]
            if texts[0] == "goto" or (texts[0] == "return" and texts[1:] not in (["0"], ["true"], [])):
                return True
        p = p.parent
    return False


def ends_in_jump(st):
    if st.kind == "jump":
        return True
    return st.kind == "block" and bool(st.children) and st.children[-1].kind == "jump"


def if_test_changed(src, st):
    """Whether the answer changed this if's test (its condition), or added
    the if as a whole."""
    wl = src.whole_lines(st.first, st.last)
    return src.range_changed(st.first, st.cond[1] + 1) or (wl is not None and src.all_plus(*wl))


def op_test_drop(srcs):
    """A whole test the answer added or changed dropped, with what it
    guards: a refusal gone (more than 3.8 allows), or the work not done."""
    for src in srcs:
        for f in src.funcs:
            for st in f.stmts:
                if st.kind != "if" or st.role != "child" or st.els is not None or not if_test_changed(src, st):
                    continue
                wl = src.whole_lines(st.first, st.last)
                if not wl:
                    continue
                yield Mutant("test-drop", src, [line_edit(src, wl[0], wl[1], [])],
                             "drop the test if (%s) in %s()" % (short(src.snippet(*st.cond), 50), f.name),
                             src.toks[st.first].start)


def op_guard_drop(srcs):
    """An if the answer added around work (not a refusal) dropped, the work
    done always."""
    for src in srcs:
        for f in src.funcs:
            for st in f.stmts:
                if st.kind != "if" or st.role != "child" or st.els is not None or ends_in_jump(st.then):
                    continue
                wl = src.whole_lines(st.first, st.last)
                if not wl or not if_test_changed(src, st):
                    continue
                if re.fullmatch(r"IS_ENABLED\(\w+\)", src.snippet(*st.cond).replace(" ", "")):
                    continue  # a build-time switch: always true in the course's config
                body = st.then
                if body.kind == "block":
                    if not body.children:
                        continue
                    inner = src.whole_lines(body.children[0].first, body.children[-1].last)
                else:
                    inner = src.whole_lines(body.first, body.last)
                if not inner:
                    continue
                new = [ln[1:] if ln.startswith("\t") else ln for ln in src.lines[inner[0]:inner[1] + 1]]
                yield Mutant("guard-drop", src, [line_edit(src, wl[0], wl[1], new)],
                             "do always what if (%s) guards in %s()" % (short(src.snippet(*st.cond), 40), f.name),
                             src.toks[st.first].start)


def negation_edits(src, a, b):
    """Edits that negate the expression in tokens [a, b)."""
    toks = src.toks
    if toks[a].text == "!" and toks[a + 1].text != "!":
        if toks[a + 1].text == "(" and match(toks, a + 1) == b - 1:
            return [(toks[a].start, toks[a + 1].end, ""), (toks[b - 1].start, toks[b - 1].end, "")]
        if toks[a + 1].kind == "ident" and postfix_end(toks, a + 1, b) == b:
            return [(toks[a].start, toks[a].end, "")]
    if toks[a].kind == "ident" and postfix_end(toks, a, b) == b:
        return [(toks[a].start, toks[a].start, "!")]
    return [(toks[a].start, toks[a].start, "!("), (toks[b - 1].end, toks[b - 1].end, ")")]


def op_cond_negate(srcs):
    """A condition the answer added or changed negated (an if's, or a
    boolean that a function returns)."""
    for src in srcs:
        for f in src.funcs:
            for st in f.stmts:
                if st.kind == "if" and if_test_changed(src, st):
                    a, b = st.cond
                    what = "if (%s)" % short(src.snippet(a, b), 50)
                elif st.kind == "jump" and src.toks[st.first].text == "return" and st.last - st.first > 1 and \
                        src.range_changed(st.first, st.last) and boolean_expr(src, st.first + 1, st.last):
                    a, b = st.first + 1, st.last
                    what = "return %s" % short(src.snippet(a, b), 50)
                else:
                    continue
                yield Mutant("cond-negate", src, negation_edits(src, a, b),
                             "negate %s in %s()" % (what, f.name), src.toks[a].start)


def boolean_expr(src, a, b):
    texts = [t.text for t in src.toks[a:b]]
    return any(x in ("&&", "||", "==", "!=", "!") or "capable" in x for x in texts)


def changed_chains(src):
    for f, st in src.changed_stmts():
        r = src.expr_range(st)
        if not r:
            continue
        chains = []
        try:
            find_chains(src.toks, r[0], r[1], chains)
        except ParseError:
            continue
        for op, parts in chains:
            yield f, st, op, parts


def op_cond_drop(srcs):
    """One operand of an && / || chain dropped, where that operand is
    something the answer changed."""
    for src in srcs:
        for f, st, op, parts in changed_chains(src):
            toks = src.toks
            for i, (a, b) in enumerate(parts):
                if not src.range_changed(a, b):
                    continue
                if i == 0:
                    edit = (toks[a].start, toks[parts[1][0]].start, "")
                else:
                    edit = (toks[parts[i - 1][1] - 1].end, toks[b - 1].end, "")
                what = short(src.snippet(a, b), 50)
                what = "%s %s" % (what, op) if i == 0 else "%s %s" % (op, what)
                yield Mutant("cond-drop", src, [edit], "drop '%s' in %s()" % (what, f.name), toks[a].start)


def op_andor_swap(srcs):
    """&& <-> || in a chain that holds something the answer changed."""
    for src in srcs:
        for f, st, op, parts in changed_chains(src):
            if not any(src.range_changed(a, b) for a, b in parts):
                continue
            other = "||" if op == "&&" else "&&"
            edits = [(src.toks[b].start, src.toks[b].end, other) for a, b in parts[:-1]]
            yield Mutant("andor-swap", src, edits,
                         "%s -> %s in %s (%s)" % (op, other, short(src.snippet(parts[0][0], parts[-1][1]), 44), f.name),
                         src.toks[parts[0][0]].start)


def call_args(src, k):
    """For a call at token K (its name): the argument texts and the index
    of its closing parenthesis."""
    close = match(src.toks, k + 1)
    args = [src.text[src.toks[a].start:src.toks[b - 1].end] if b > a else ""
            for a, b in split_top(src.toks, k + 2, close, ",")]
    return [re.sub(r"\s+", " ", x).strip() for x in args], close


# name: [(needed argument count, rewrite)]: the capability asked without
# its namespace, or in the caller's own
CAPABLE_SWAPS = {
    "ns_capable": [(2, lambda a: "capable(%s)" % a[1])],
    "ns_capable_noaudit": [(2, lambda a: "capable(%s)" % a[1])],
    "ns_capable_setid": [(2, lambda a: "capable(%s)" % a[1])],
    "sockopt_ns_capable": [(2, lambda a: "sockopt_capable(%s)" % a[1])],
    "file_ns_capable": [(3, lambda a: "capable(%s)" % a[2])],
    "has_ns_capability": [(3, lambda a: "has_capability(%s, %s)" % (a[0], a[2]))],
    "has_ns_capability_noaudit": [(3, lambda a: "has_capability_noaudit(%s, %s)" % (a[0], a[2]))],
    "sk_ns_capable": [(3, lambda a: "sk_capable(%s, %s)" % (a[0], a[2]))],
    "netlink_net_capable": [(2, lambda a: "netlink_capable(%s, %s)" % (a[0], a[1]))],
    "netlink_ns_capable": [(3, lambda a: "netlink_capable(%s, %s)" % (a[0], a[2]))],
    "capable_wrt_inode_uidgid": [(3, lambda a: "capable(%s)" % a[2]),
                                 (3, lambda a: "ns_capable(current_user_ns(), %s)" % a[2])],
    "capable": [(1, lambda a: "ns_capable(current_user_ns(), %s)" % a[0])],
    "sockopt_capable": [(1, lambda a: "sockopt_ns_capable(current_user_ns(), %s)" % a[0])],
    "netlink_capable": [(2, lambda a: "netlink_net_capable(%s, %s)" % (a[0], a[1]))],
}

# the same capability of another subject: the sender alone, the opener
# alone, the caller instead of the opener or the task
SUBJECT_SWAPS = {
    "netlink_net_capable": [
        (2, lambda a: "ns_capable(sock_net(%s->sk)->user_ns, %s)" % (a[0], a[1]), "the sender alone"),
        (2, lambda a: "file_ns_capable(NETLINK_CB(%s).sk->sk_socket->file, sock_net(%s->sk)->user_ns, %s)"
         % (a[0], a[0], a[1]), "the opener alone")],
    "netlink_ns_capable": [
        (3, lambda a: "ns_capable(%s, %s)" % (a[1], a[2]), "the sender alone")],
    "file_ns_capable": [(3, lambda a: "ns_capable(%s, %s)" % (a[1], a[2]), "the caller, not the opener")],
    "sk_ns_capable": [(3, lambda a: "ns_capable(%s, %s)" % (a[1], a[2]), "the caller, not the opener")],
    "has_ns_capability": [(3, lambda a: "ns_capable(%s, %s)" % (a[1], a[2]), "the caller, not the task")],
}


def calls_in_changes(src, names):
    for f in src.funcs:
        a, b = f.tok_range
        for k in range(a, b - 1):
            t = src.toks[k]
            if t.text in names and src.toks[k + 1].text == "(" and src.toks[k - 1].text not in ("->", "."):
                try:
                    args, close = call_args(src, k)
                except ParseError:
                    continue
                if src.range_changed(k, close + 1):
                    yield f, k, args, close


def op_capable_swap(srcs):
    """The capability asked with the other kind of call: ns_capable(X, C)
    -> capable(C), capable(C) -> ns_capable(current_user_ns(), C), ..."""
    for src in srcs:
        for f, k, args, close in calls_in_changes(src, CAPABLE_SWAPS):
            name = src.toks[k].text
            for n, rw in CAPABLE_SWAPS[name]:
                if len(args) != n:
                    continue
                new = rw(args)
                yield Mutant("capable-swap", src, [(src.toks[k].start, src.toks[close].end, new)],
                             "%s(%s) -> %s in %s()" % (name, short(", ".join(args), 40), short(new, 50), f.name),
                             src.toks[k].start)


CRED_SUBJECTS = [("->f_cred", "current_cred()", "the caller's credentials, not the opener's")]
# a task argument the answer passes: the caller's, current, instead
TASK_VARS = ("task", "tsk", "target", "child", "tracee", "p")

PTRACE_MODES = {"PTRACE_MODE_READ_FSCREDS": "PTRACE_MODE_READ_REALCREDS",
                "PTRACE_MODE_READ_REALCREDS": "PTRACE_MODE_READ_FSCREDS",
                "PTRACE_MODE_ATTACH_FSCREDS": "PTRACE_MODE_ATTACH_REALCREDS",
                "PTRACE_MODE_ATTACH_REALCREDS": "PTRACE_MODE_ATTACH_FSCREDS"}


def op_subject_swap(srcs):
    """The right capability or credentials of the wrong subject: sender or
    opener alone, the caller for the opener, real for fs credentials."""
    for src in srcs:
        for f, k, args, close in calls_in_changes(src, SUBJECT_SWAPS):
            name = src.toks[k].text
            for n, rw, why in SUBJECT_SWAPS[name]:
                if len(args) == n:
                    yield Mutant("subject-swap", src, [(src.toks[k].start, src.toks[close].end, rw(args))],
                                 "%s: %s in %s()" % (name, why, f.name), src.toks[k].start)
        for f in src.funcs:
            a, b = f.tok_range
            for k in range(a, b):
                t = src.toks[k]
                if not src.tok_changed(t):
                    continue
                if t.text in PTRACE_MODES:
                    yield Mutant("subject-swap", src, [(t.start, t.end, PTRACE_MODES[t.text])],
                                 "%s -> %s in %s()" % (t.text, PTRACE_MODES[t.text], f.name), t.start)
                if t.kind == "ident" and t.text in TASK_VARS and src.toks[k - 1].text in ("(", ",") and \
                        src.toks[k + 1].text in (")", ",") and \
                        re.search(r"struct\s+task_struct\s*\*\s*%s\b" % t.text, src.code):
                    yield Mutant("subject-swap", src, [(t.start, t.end, "current")],
                                 "%s -> current (the caller, not the task) in %s()" % (t.text, f.name), t.start)
                if t.text == "f_cred" and src.toks[k - 1].text == "->" and \
                        src.toks[k + 1].text not in ("=",) and src.toks[k - 2].kind == "ident" and \
                        src.toks[k - 3].text not in ("->", "."):
                    s = src.toks[k - 2]
                    yield Mutant("subject-swap", src, [(s.start, t.end, "current_cred()")],
                                 "%s->f_cred -> current_cred() (the caller, not the opener) in %s()"
                                 % (s.text, f.name), s.start)


def sameness(src, f):
    """A test of whether two expressions of function F are the same value
    there: a variable set once is what it was set to (cred =
    file->f_cred), and a seq_file's opener is its file's
    (seq_user_ns(seq) is file->f_cred->user_ns)."""
    alias, sets = {}, {}
    for st in f.stmts:
        if st.kind not in ("expr", "decl"):
            continue
        r = src.expr_range(st)
        if not r or r[0] <= st.first or src.toks[r[0] - 1].text != "=":
            continue
        var = src.toks[r[0] - 2].text
        sets[var] = sets.get(var, 0) + 1
        alias[var] = norm(src.snippet(r[0], r[1]))
    alias = {v: e for v, e in alias.items() if sets[v] == 1}
    lo, hi = src.toks[f.tok_range[0]].start, src.toks[f.tok_range[1] - 1].end
    objs = {}
    for m in OBJECT_RE.finditer(src.code[lo:hi]):
        objs.setdefault(m.group(1), m.group(2))

    def canon(e):
        e = norm(e)
        for _ in range(6):
            m = re.match(r"([A-Za-z_]\w*)(?=->|\.|$)", e)
            if not m or m.group(1) not in alias:
                break
            a = alias.pop(m.group(1))  # (no loops: each alias once)
            try:
                rest = e[m.end():]
                e = (a if not rest or re.fullmatch(r"[\w>()-]+", a) else "(%s)" % a) + rest
            finally:
                alias[m.group(1)] = a
        if "file" in objs and "seq_file" in objs:
            e = e.replace("seq_user_ns(%s)" % objs["seq_file"], "%s->f_cred->user_ns" % objs["file"])
        return e

    return lambda p, q: canon(p) == canon(q)


def expr_vars(expr):
    """The variables an expression reads (not its member names, nor the
    field task_cred_xxx() is asked for)."""
    e = re.sub(r"(?:->|\.)\s*\w+", "", expr)
    e = re.sub(r"(_cred_xxx\([^,()]*),\s*\w+\)", r"\1)", e)
    return {v for v in re.findall(r"[A-Za-z_]\w*(?!\s*\()", e) if v not in KEYWORDS}


def norm(s):
    return re.sub(r"\s+", "", s)


def op_userns_replace(srcs):
    """Each user-namespace expression the answer added or changed replaced
    by each other one of its function (declared by then), and by
    current_user_ns() and &init_user_ns."""
    for src in srcs:
        for f in src.funcs:
            a, b = f.tok_range
            if a == b:
                continue
            try:
                found = src.userns_exprs(f, a, b)
            except ParseError:
                continue
            # (a variable set once from another expression is that expression)
            same = sameness(src, f)
            cands = ["current_user_ns()", "&init_user_ns"]
            for x, y in found:
                s = src.snippet(x, y)
                if not any(same(s, c) for c in cands):
                    cands.append(s)
            # the owners of the objects in scope: the target task's, the
            # opener's, the network namespace's, the superblock's...
            lo, hi = src.toks[a].start, src.toks[b - 1].end
            for m in OBJECT_RE.finditer(src.code[lo:hi]):
                d = OWNER_OF[m.group(1)] % {"v": m.group(2)}
                if m.group(2) != "current" and not any(same(d, c) for c in cands):
                    cands.append(d)

            stmt_of = {}
            for st in f.stmts:
                if st.kind in ("expr", "decl", "jump"):
                    for k in range(st.first, st.last + 1):
                        stmt_of[k] = st
                elif st.kind in ("if", "loop") and st.cond:
                    for k in range(st.cond[0], st.cond[1]):
                        stmt_of[k] = st
            for x, y in found:
                if not src.range_changed(x, y):
                    continue
                target = src.snippet(x, y)
                st = stmt_of.get(x)
                assigned = set()
                if st is not None and st.kind in ("expr", "decl"):
                    r = src.expr_range(st)
                    if r and r[0] > st.first:
                        assigned = {t.text for t in src.toks[st.first:r[0]] if t.kind == "ident"}
                for c in cands:
                    if same(c, target):
                        continue
                    idents = expr_vars(c)
                    if idents & assigned:
                        continue
                    if any(f.ready.get(i, -1) > x for i in idents):
                        continue  # no value there yet
                    if compared_with(src, x, y, c):
                        continue
                    if x > 1 and src.toks[x - 1].text == "(" and RESOURCE_RE.match(src.toks[x - 2].text + "("):
                        continue  # put_user_ns(X): a reference, nothing a check sees
                    if y < len(src.toks) and src.toks[y].text in ("->", ".", "[") and \
                            not re.fullmatch(r"[\w>()-]+", norm(c)):
                        c = "(%s)" % c  # (&init_user_ns)->owner
                    yield Mutant("userns-replace", src, [(src.toks[x].start, src.toks[y - 1].end, c)],
                                 "%s -> %s in %s()" % (short(target, 40), short(c, 40), f.name),
                                 src.toks[x].start)


OWNER_OF = {
    "task_struct": "task_cred_xxx(%(v)s, user_ns)", "file": "%(v)s->f_cred->user_ns",
    "seq_file": "seq_user_ns(%(v)s)", "net": "%(v)s->user_ns", "super_block": "%(v)s->s_user_ns",
    "sock": "sock_net(%(v)s)->user_ns", "cred": "%(v)s->user_ns", "inode": "%(v)s->i_sb->s_user_ns",
    "nsset": "%(v)s->cred->user_ns", "linux_binprm": "%(v)s->cred->user_ns",
    "mnt_namespace": "%(v)s->user_ns", "pid_namespace": "%(v)s->user_ns",
}
OBJECT_RE = re.compile(r"\bstruct\s+(%s)\s*\*\s*(?:const\s+)?([A-Za-z_]\w*)\b(?!\s*\()" % "|".join(OWNER_OF))


def compared_with(src, x, y, cand):
    """Whether tokens [x, y) are one side of == or != whose other side is
    CAND (the test would compare a thing with itself)."""
    toks = src.toks
    if y < len(toks) and toks[y].text in ("==", "!="):
        k = y + 1
        if toks[k].text == "&":
            k += 1
        if toks[k].kind == "ident":
            e = postfix_end(toks, k, len(toks))
            return norm(src.text[toks[y + 1].start:toks[e - 1].end]) == norm(cand)
    if x > 0 and toks[x - 1].text in ("==", "!="):
        k = x - 2
        while k >= 0 and toks[k].text not in ("(", "&&", "||", ",", "return", "="):
            k -= 1
        return norm(src.text[toks[k + 1].start:toks[x - 2].end]) == norm(cand)
    return False


ERRNO_SWAPS = {"EPERM": ["EACCES", "EINVAL"], "EACCES": ["EPERM"], "EINVAL": ["EPERM"]}


def op_errno_swap(srcs):
    """Another errno where the answer returns one: -EPERM <-> -EACCES,
    -EINVAL <-> -EPERM."""
    for src in srcs:
        for f in src.funcs:
            a, b = f.tok_range
            for k in range(a + 1, b):
                t = src.toks[k]
                if t.text in ERRNO_SWAPS and src.toks[k - 1].text == "-" and src.tok_changed(t):
                    for e in ERRNO_SWAPS[t.text]:
                        yield Mutant("errno-swap", src, [(t.start, t.end, e)],
                                     "-%s -> -%s in %s()" % (t.text, e, f.name), t.start)


def op_flag_drop(srcs):
    """One flag of an A | B | C the answer changed dropped."""
    for src in srcs:
        toks = src.toks
        k = 0
        while k < len(toks):
            # a run CONST | CONST | ... of upper-case names
            if not re.fullmatch(r"[A-Z][A-Z0-9_]+", toks[k].text):
                k += 1
                continue
            run = [k]
            m = k + 1
            while m + 1 < len(toks) and toks[m].text == "|" and re.fullmatch(r"[A-Z][A-Z0-9_]+", toks[m + 1].text):
                run.append(m + 1)
                m += 2
            k = m
            if len(run) < 2:
                continue
            for i, t in enumerate(run):
                if not src.tok_changed(toks[t]):
                    continue
                if i == 0:
                    edit = (toks[t].start, toks[run[1]].start, "")
                else:
                    edit = (toks[run[i - 1]].end, toks[t].end, "")
                f = src.func_at(toks[t].start)
                yield Mutant("flag-drop", src, [edit],
                             "drop %s from %s%s" % (toks[t].text, short(src.snippet(run[0], run[-1] + 1), 40),
                                                    " in %s()" % f.name if f else ""), toks[t].start)


def op_test_move(srcs):
    """An added refusal moved past the call after it, or before the call
    above it (a test across a lock or a call)."""
    for src in srcs:
        for f in src.funcs:
            for st in f.stmts:
                if st.kind != "if" or st.role != "child" or st.els is not None or not ends_in_jump(st.then):
                    continue
                wl = src.whole_lines(st.first, st.last)
                if not wl or not src.all_plus(*wl):
                    continue
                sibs = st.parent.children
                i = sibs.index(st)
                cond_ids = {t.text for t in src.toks[st.cond[0]:st.cond[1]] if t.kind == "ident"}
                for j, where in ((i + 1, "after"), (i - 1, "before")):
                    if not 0 <= j < len(sibs):
                        continue
                    o = sibs[j]
                    if o.kind != "expr" or not any(t.text == "(" for t in src.toks[o.first:o.last]):
                        continue
                    owl = src.whole_lines(o.first, o.last)
                    if not owl:
                        continue
                    if cond_ids & {t.text for t in src.toks[o.first:o.last]} - {"current"}:
                        continue  # what the test reads, the other sets or uses
                    mine = src.lines[wl[0]:wl[1] + 1]
                    theirs = src.lines[owl[0]:owl[1] + 1]
                    if where == "after":
                        edit = line_edit(src, wl[0], owl[1], theirs + mine)
                    else:
                        edit = line_edit(src, owl[0], wl[1], mine + theirs)
                    yield Mutant("test-move", src, [edit],
                                 "if (%s) moved %s %s in %s()" % (short(src.snippet(*st.cond), 40), where,
                                                                  short(src.snippet(o.first, o.last), 30), f.name),
                                 src.toks[st.first].start)


def reverse_hunk(h):
    r = Hunk(h.new_start, h.new_len, h.old_start, h.old_len, h.header)
    r.lines = [({"-": "+", "+": "-"}.get(tag, tag), t) for tag, t in h.lines]
    return r


def op_removed_own_ns(srcs):
    """A capability test the answer removes, kept but asked in the caller's
    own user namespace: capable(C) -> ns_capable(current_user_ns(), C)."""
    for src in srcs:
        try:
            rsrc = Source(src.path, src.mode, src.text, [reverse_hunk(h) for h in src.hunks])
        except ValueError:
            continue
        for f in rsrc.funcs:
            for st in f.stmts:
                if st.kind != "if" or st.role != "child":
                    continue
                wl = rsrc.whole_lines(st.first, st.last)
                if not wl or not rsrc.all_plus(*wl):
                    continue
                edits = []
                for k in range(st.first, st.last):
                    t = rsrc.toks[k]
                    if t.text in ("capable", "sockopt_capable") and rsrc.toks[k + 1].text == "(" and \
                            rsrc.toks[k - 1].text not in ("->", "."):
                        args, close = call_args(rsrc, k)
                        if len(args) == 1:
                            edits.append((t.start, rsrc.toks[close].end, CAPABLE_SWAPS[t.text][0][1](args)))
                if not edits:
                    continue
                start = rsrc.text
                for a, b, r in sorted(edits, reverse=True):
                    start = start[:a] + r + start[b:]
                kept = start.splitlines(True)[wl[0]:wl[1] + 1]
                hunks = []
                for h in src.hunks:
                    nh = Hunk(h.old_start, h.old_len, h.new_start, h.new_len, h.header)
                    old = h.old_start - 1 if h.old_len else h.old_start
                    for tag, t in h.lines:
                        if tag == "-" and wl[0] <= old <= wl[1]:
                            nh.lines.append((" ", kept[old - wl[0]]))
                        else:
                            nh.lines.append((tag, t))
                        old += tag in " -"
                    hunks.append(nh)
                text, _ = apply_hunks(start, hunks, src.path)
                yield Mutant("removed-own-ns", src, [(0, len(src.text), text)],
                             "keep if (%s) in %s(), asked in the caller's own namespace"
                             % (short(rsrc.snippet(*st.cond), 40), f.name), 0)


OP_FUNCS = {
    "removed-own-ns": op_removed_own_ns,
    "hunk-drop": op_hunk_drop, "line-drop": op_line_drop, "test-drop": op_test_drop,
    "guard-drop": op_guard_drop, "cond-negate": op_cond_negate, "cond-drop": op_cond_drop,
    "andor-swap": op_andor_swap, "capable-swap": op_capable_swap, "subject-swap": op_subject_swap,
    "userns-replace": op_userns_replace, "errno-swap": op_errno_swap, "flag-drop": op_flag_drop,
    "test-move": op_test_move,
}

# --------------------------------------------------------------------------
# what would not build


def function_bodies(text):
    """{name: (function, its code lines from { to })} of a C text."""
    cl = [ln.rstrip("\n") for ln in mask(text).splitlines(True)]
    return {f.name: (f, cl[f.first_line:f.close_line + 1]) for f in find_functions(cl)}


def declared(body):
    """The names the declarations of a function declare (BODY: its code
    lines, header to closing brace), or None when it cannot be read."""
    text = "\n".join(body)
    toks = tokenize(text)
    ob = next((k for k, t in enumerate(toks) if t.text == "{" and text.rfind("\n", 0, t.start) + 1 == t.start), None)
    if ob is None:
        return None
    try:
        tree, _ = parse_stmt(toks, ob, len(toks))
    except ParseError:
        return None
    stmts = []
    link(tree, stmts)
    return {toks[k].text for k, _ in declarators(toks, stmts)}


def compile_trouble(src, text):
    """Why the mutated TEXT of SRC's file would not compile, or None. Of the
    functions the mutant changed: a return that does not fit the function's
    type (-Werror=return-type), the value of a void function used, a
    variable the answer declares used without its declaration."""
    before, after = function_bodies(src.text), function_bodies(text)
    void = {n for n, (f, _) in after.items() if f.is_void()}
    for name, (f, body) in after.items():
        if name in before and before[name][1] == body:
            continue
        joined = "\n".join(body)
        if f.is_void() and re.search(r"\breturn\s+[^;\s]", joined):
            return "%s() is void and returns a value" % name
        if not f.is_void() and re.search(r"\breturn\s*;", joined):
            return "%s() returns nothing where it must return a value" % name
        for v in void:
            pat = r"(?:=|\breturn|\(|&&|\|\||,)\s*%s\s*\(" % re.escape(v)
            if len(re.findall(pat, joined)) > len(re.findall(pat, "\n".join(before.get(name, (None, []))[1]))):
                return "the value of %s(), a void function, is used in %s()" % (v, name)
    for f in src.funcs:
        if f.name not in after:
            continue
        body = after[f.name][1]
        if before.get(f.name, (None, None))[1] == body:
            continue
        names = None
        for var, k in f.locals.items():
            if src.line_of(src.toks[k].start) not in src.plus:
                continue
            if not any(re.search(r"\b%s\b" % re.escape(var), ln) for ln in body):
                continue
            if names is None:
                names = declared(body)
            if names is not None and var not in names:
                return "%s is used in %s() without its declaration" % (var, f.name)
    return None


# --------------------------------------------------------------------------
# generate


def git(args, cwd=None, check=True):
    return subprocess.run(["git"] + args, cwd=cwd, check=check, capture_output=True, text=True)


def pick(items, k):
    """K of ITEMS, as varied as can be: each time the one whose kind (the
    same change in another function is the same kind) and place (file and
    function) have been picked least, the earliest of those."""
    def kind(m):
        return re.sub(r" in \w+\(\)| \(\w+\)$", "", m.what)

    def place(m):
        f = m.src.func_at(m.where)
        return (m.src.path, f.name if f else "")

    left, out, kinds, places = list(items), [], {}, {}
    while left and len(out) < k:
        best = min(range(len(left)), key=lambda i: (kinds.get(kind(left[i]), 0) + places.get(place(left[i]), 0),
                                                     kinds.get(kind(left[i]), 0), i))
        m = left.pop(best)
        out.append(m)
        kinds[kind(m)] = kinds.get(kind(m), 0) + 1
        places[place(m)] = places.get(place(m), 0) + 1
    return [m for m in items if m in out]


def spread(items, k):
    """K of ITEMS, evenly spaced (deterministic), in their order."""
    if len(items) <= k:
        return list(items)
    if k <= 0:
        return []
    return [items[(i * len(items)) // k] for i in range(k)]


def header(lab, m, answer_rel):
    # the mutated line(s): the first lines of the mutant that differ
    al, bl = m.src.text.splitlines(), m.texts[m.src.path].splitlines()
    ln, show = None, []
    for tag, i1, i2, j1, j2 in opcodes(al, bl):
        if tag == "equal":
            continue
        if ln is None:
            ln = i1
        elif len(show) < 12:
            show.append("    ...")
        for who, lines in (("answer", al[i1:i2]), ("mutant", bl[j1:j2])):
            for x in lines[:6]:
                show.append("    %s: %s" % (who, x.strip()))
            if len(lines) > 6:
                show.append("    %s: ... (%d lines)" % (who, len(lines)))
    if ln is None:
        ln = m.src.line_of(m.where)
    f = m.src.func_at(m.src.line_starts[min(ln, len(al) - 1)])
    body = [
        "From: userns-labs mutant <mutant@localhost>",
        "Subject: [MUTANT] lab %s: generated: %s %s" % (lab, m.op, short(m.what, 110)),
        "",
        "Generated by scripts/mutate.py (operator %s) from the answer" % m.op,
        "%s: it changes the answer's" % answer_rel,
        "%s line %d%s:" % (m.src.path, ln + 1, ", in %s()" % f.name if f else ""),
        "",
    ] + show + [
        "",
        "Operator: %s" % m.op,
        "Mutant-of: %s" % answer_rel,
        "---",
    ]
    return "\n".join(body) + "\n"


def userspace_source(args):
    """A user-space lab's (--start-file): its answer is a program, the
    reference (ARGS.answer), and its start the lab's skeleton of it; the
    changes between the two are the answer's, as a kernel patch's are."""
    with open(args.start_file) as fh:
        start_text = fh.read()
    with open(args.answer) as fh:
        answer_text = fh.read()
    diff = unified_diff(args.path, "100644", start_text, answer_text)
    (fp,) = parse_patch("From: mutate.py\nSubject: the answer\n\n---\n" + diff)
    return Source(args.path, "100644", start_text, fp.hunks)


def generate(args):
    lab = args.lab or os.path.basename(args.answer)[:2]
    answer_rel = os.path.relpath(os.path.abspath(args.answer), args.top) \
        if os.path.abspath(args.answer).startswith(os.path.abspath(args.top) + os.sep) else args.answer
    onto_answer = bool(args.start_file)
    if onto_answer:
        if not args.path:
            sys.stderr.write("error: --start-file needs --path (the program's path in the course)\n")
            return 2
        try:
            srcs = [userspace_source(args)]
        except ValueError as e:
            sys.stderr.write("error: %s\n" % e)
            return 2
        args.start = os.path.relpath(os.path.abspath(args.start_file), args.top)
        files = []
    else:
        if not (args.tree and args.start):
            sys.stderr.write("error: a kernel answer needs --tree and --start\n")
            return 2
        with open(args.answer) as fh:
            files = parse_patch(fh.read())
        srcs = []
    for fp in files:
        r = git(["-C", args.tree, "show", "%s:%s" % (args.start, fp.path)], check=False)
        if r.returncode:
            sys.stderr.write("error: %s has no %s: %s" % (args.start, fp.path, r.stderr))
            return 2
        try:
            srcs.append(Source(fp.path, fp.mode, r.stdout, fp.hunks))
        except ValueError as e:
            sys.stderr.write("error: the answer does not apply onto %s: %s\n" % (args.start, e))
            return 2
    ops = args.ops.split(",") if args.ops else OP_NAMES
    for o in ops:
        if o not in OP_FUNCS:
            sys.stderr.write("error: no operator %s (mutate.py ops lists them)\n" % o)
            return 2
    start_key = tuple(code(s.start) for s in srcs)
    answer_key = tuple(code(s.text) for s in srcs)
    seen = {}
    by_op = {o: [] for o in OP_NAMES}
    rejected = []
    for o in OP_NAMES:
        if o not in ops:
            continue
        try:
            cands = list(OP_FUNCS[o](srcs))
        except ParseError as e:  # a rule that cannot read this code makes nothing
            sys.stderr.write("warning: %s: %s\n" % (o, e))
            cands = []
        for m in cands:
            mt = m.mutated()
            m.texts = {s.path: (mt if s is m.src else s.text) for s in srcs}
            key = tuple(code(mt) if s is m.src else answer_key[i] for i, s in enumerate(srcs))
            if key == answer_key:
                m.why = "no-op: builds the answer's kernel"
            elif key == start_key:
                m.why = "no-op: builds the start's kernel"
            elif key in seen:
                m.why = "same code as %s" % seen[key].label()
            else:
                m.why = compile_trouble(m.src, mt)
                if m.why:
                    m.why = "would not compile: " + m.why
            if m.why:
                rejected.append(m)
                continue
            seen[key] = m
            by_op[o].append(m)
    # the caps: each operator's own, then --max over all, taken in turns
    kept = {}
    for o, cap, _ in OPERATORS:
        c = cap if args.max_per_op is None else args.max_per_op
        kept[o] = pick(by_op[o], c)
        for m in by_op[o]:
            if m not in kept[o]:
                m.why = "capped: %s keeps %d of %d" % (o, c, len(by_op[o]))
    chosen, turn = [], 0
    while len(chosen) < args.max and any(len(kept[o]) > turn for o in OP_NAMES):
        for o in OP_NAMES:
            if turn < len(kept[o]) and len(chosen) < args.max:
                chosen.append(kept[o][turn])
        turn += 1
    for o in OP_NAMES:
        for m in kept[o]:
            if m not in chosen:
                m.why = "capped: at most %d mutants a lab" % args.max
    # names: operator order, then place in the answer
    os.makedirs(args.out, exist_ok=True)
    for old in glob.glob(os.path.join(args.out, "%s-gen-*.patch" % lab)):
        os.remove(old)
    written = []
    for o in OP_NAMES:
        mine = [m for m in by_op[o] if m in chosen]
        for k, m in enumerate(mine, 1):
            m.name = "%s-gen-%s-%d" % (lab, o, k)
            # a kernel mutant applies onto lab-NN-start; a program's onto
            # the reference program, as a submission's file replaces it
            base = {s.path: s.text if onto_answer else s.start for s in srcs}
            diff = "".join(unified_diff(s.path, s.mode, base[s.path], m.texts[s.path])
                           for s in srcs if m.texts[s.path] != base[s.path])
            with open(os.path.join(args.out, m.name + ".patch"), "w") as fh:
                fh.write(header(lab, m, answer_rel) + diff)
            written.append(m)
    bad = check_apply(srcs, [os.path.join(args.out, m.name + ".patch") for m in written], onto_answer)
    with open(os.path.join(args.out, "generated.txt"), "w") as fh:
        fh.write("# mutate.py generate: lab %s, %s onto %s (%d written)\n"
                 % (lab, answer_rel, args.start, len(written)))
        for m in written:
            fh.write("%s\t%s\n" % (m.name, m.what))
        for o in OP_NAMES:
            for m in by_op[o] + [r for r in rejected if r.op == o]:
                if m.why:
                    fh.write("-\t%s: %s\t%s\n" % (o, m.what, m.why))
    counts = {o: sum(1 for m in written if m.op == o) for o in OP_NAMES}
    cand = {o: len(by_op[o]) + sum(1 for r in rejected if r.op == o) for o in OP_NAMES}
    print("lab %s: %d mutants in %s" % (lab, len(written), args.out))
    for o in OP_NAMES:
        if cand[o]:
            print("  %-15s %2d written of %2d candidates" % (o, counts[o], cand[o]))
    for p, err in bad:
        print("error: %s does not apply onto %s: %s" % (p, args.start, err.strip()))
    return 1 if bad else 0


def check_apply(srcs, patches, onto_answer=False):
    """git apply --check of each patch onto a copy of the start's files (the
    answer's, ONTO_ANSWER): [(patch, error)] for those that do not apply."""
    bad = []
    d = tempfile.mkdtemp(prefix="mutate-")
    try:
        git(["init", "-q", d])
        for s in srcs:
            p = os.path.join(d, s.path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as fh:
                fh.write(s.text if onto_answer else s.start)
        for patch in patches:
            r = git(["apply", "--check", os.path.abspath(patch)], cwd=d, check=False)
            if r.returncode:
                bad.append((patch, r.stderr))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return bad


# --------------------------------------------------------------------------
# report and stale


def sha256(path):
    """The file's sha256; of a patch, of its changes alone: from the first
    "diff --git" line, without its "index" lines and the line numbers of
    its hunk headers. The mutants are made from the code, so a commit
    message reworded, the patch moved into the series, or an earlier step
    that changes the same file (which renumbers its lines and renames its
    blobs) leaves its report up to date."""
    with open(path, "rb") as fh:
        data = fh.read()
    if path.endswith(".patch"):
        i = data.find(b"\ndiff --git ")
        if i >= 0:
            data = data[i + 1:]
        data = re.sub(rb"(?m)^index [0-9a-f]+\.\.[0-9a-f]+( [0-7]+)?\n", b"", data)
        data = re.sub(rb"(?m)^@@ -[0-9]+(,[0-9]+)? \+[0-9]+(,[0-9]+)? @@", b"@@ @@", data)
    return hashlib.sha256(data).hexdigest()


def rel(path, top):
    a = os.path.abspath(path)
    t = os.path.abspath(top)
    return os.path.relpath(a, t) if a.startswith(t + os.sep) else path


def report_path(top, base, lab):
    sub = "" if base == MAIN_BASE else base
    return os.path.join(top, "tests", "mutate", sub, "%s.report" % lab) if sub else \
        os.path.join(top, "tests", "mutate", "%s.report" % lab)


def read_equivalents(path):
    eq = {}
    if path and os.path.exists(path):
        with open(path) as fh:
            for ln in fh:
                ln = ln.strip()
                if not ln or ln.startswith("#"):
                    continue
                parts = ln.split(None, 1)
                eq[parts[0]] = parts[1] if len(parts) > 1 else "(no reason given)"
    return eq


def report(args):
    lab = "%02d" % int(args.lab)
    eq_path = args.equivalent or os.path.join(os.path.dirname(os.path.abspath(args.out)), "%s.equivalent" % lab)
    eq = read_equivalents(eq_path)
    results = {}
    order = []
    with open(args.results) as fh:
        for ln in fh:
            parts = ln.split()
            if len(parts) < 2 or ln.startswith("#"):
                continue
            name, status, rest = parts[0], parts[1], " ".join(parts[2:])
            if status not in ("killed", "SURVIVED", "BAD"):
                sys.stderr.write("error: %s: %s: status %s is not killed, SURVIVED or BAD\n"
                                 % (args.results, name, status))
                return 2
            if name not in results:
                order.append(name)
            results[name] = (status, rest)
    subjects = {}
    if args.mutants:
        for p in sorted(glob.glob(os.path.join(args.mutants, "%s-*.patch" % lab))):
            name = os.path.basename(p)[:-len(".patch")]
            with open(p) as fh:
                for ln in fh:
                    if ln.startswith("Subject: "):
                        subjects[name] = re.sub(r"^\[MUTANT\] lab \d+: (generated: )?", "", ln[9:].strip())
                        break
            if name not in results:
                order.append(name)
    rows, tally = [], {"killed": 0, "equivalent": 0, "SURVIVED": 0, "BAD": 0, "NOT-RUN": 0}
    for name in order:
        status, rest = results.get(name, ("NOT-RUN", "in the generated set, no result"))
        if status == "SURVIVED" and name in eq:
            verdict, note = "equivalent", eq[name]
        elif status == "killed":
            verdict, note = "killed", "by " + rest if rest else ""
            if name in eq:
                note += " (listed as equivalent: remove it from %s)" % os.path.basename(eq_path)
        else:
            verdict, note = status, rest
        tally[verdict] += 1
        rows.append("%-28s %-10s %s%s" % (name, verdict, note, ("  | " + subjects[name]) if name in subjects else ""))
    for name in sorted(set(eq) - set(results)):
        rows.append("%-28s %-10s listed in %s, not generated any more" % (name, "gone", os.path.basename(eq_path)))
    top = args.top
    gen = os.path.join(TOP, "scripts", "mutate.py")
    out = [
        "# Generated mutants of lab %s (scripts/mutate.sh %s): what the lab's check did" % (lab, lab),
        "# with each. A SURVIVED row is a wrong answer the check passes, unless",
        "# tests/mutate/%s.equivalent says why it is no wrong answer (then: equivalent)." % lab,
        "# make test's stale check compares the two sha256 lines with the files.",
        "lab: %s" % lab,
        "base: %s" % args.base,
        "answer: %s sha256:%s" % (rel(args.answer, top), sha256(args.answer)),
        "check: %s sha256:%s" % (rel(args.check, top), sha256(args.check)),
        "generator: scripts/mutate.py sha256:%s" % sha256(gen),
        "mutants: %d (killed %d, equivalent %d, SURVIVED %d, BAD %d%s)" % (
            len(order), tally["killed"], tally["equivalent"], tally["SURVIVED"], tally["BAD"],
            ", NOT-RUN %d" % tally["NOT-RUN"] if tally["NOT-RUN"] else ""),
        "",
    ] + rows
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        fh.write("\n".join(out) + "\n")
    print("%s: %s" % (rel(args.out, top), next(x for x in out if x.startswith("mutants: "))))
    return 0


def userspace_program(labdir):
    """A user-space lab's program (lab.conf USERSPACE, as scripts/labconf.py
    reads it), or None"""
    if not os.path.exists(os.path.join(labdir, "lab.conf")):
        return None
    return labconf.read(labdir).get("USERSPACE") or None


def lab_answers(top, base):
    """{NN: (answer, check)} of the labs of BASE: a kernel lab's answer is
    its patch for BASE (the series' solutions/NN-*.patch, or the base's own
    solutions/BASE/NN-*.patch where it has one), a user-space lab's the
    reference program (the same on every base)."""
    sol = os.path.join(top, "solutions")
    own = os.path.join(sol, base) if base != MAIN_BASE else None
    out = {}
    for d in sorted(glob.glob(os.path.join(top, "labs", "[0-9][0-9]-*"))):
        n = os.path.basename(d)[:2]
        if not os.path.isfile(os.path.join(d, "check")):
            continue
        prog = userspace_program(d)
        if prog:
            ref = os.path.join(top, "solutions", os.path.basename(d), os.path.basename(prog))
            if os.path.isfile(ref):
                out[n] = (ref, os.path.join(d, "check"))
            continue
        p = sorted(glob.glob(os.path.join(own, "%s-*.patch" % n))) if own else []
        p = p or sorted(glob.glob(os.path.join(sol, "%s-*.patch" % n)))
        if p:
            out[n] = (p[0], os.path.join(d, "check"))
    return out


def stale(args):
    top = os.path.abspath(args.top)
    labs = lab_answers(top, args.base)
    rdir = os.path.dirname(report_path(top, args.base, "00"))
    problems, missing = [], []
    for n, (answer, check) in sorted(labs.items()):
        rp = report_path(top, args.base, n)
        if not os.path.exists(rp):
            missing.append("%s: lab %s has an answer and no report yet (scripts/mutate.sh %s)" % (rel(rp, top), n, n))
            continue
        rec = {}
        with open(rp) as fh:
            for ln in fh:
                m = re.match(r"(answer|check): (\S+) sha256:([0-9a-f]{64})$", ln.strip())
                if m:
                    rec[m.group(1)] = (m.group(2), m.group(3))
        for what, path in (("answer", answer), ("check", check)):
            r = rel(path, top)
            if what not in rec:
                problems.append("%s: no %s line" % (rel(rp, top), what))
            elif rec[what][0] != r:
                problems.append("%s: made for the %s %s, the lab's is %s now" % (rel(rp, top), what, rec[what][0], r))
            elif rec[what][1] != sha256(path):
                problems.append("%s: the %s %s changed since (run scripts/mutate.sh %s)" % (rel(rp, top), what, r, n))
    for rp in sorted(glob.glob(os.path.join(rdir, "[0-9][0-9].report"))):
        n = os.path.basename(rp)[:2]
        if n not in labs:
            problems.append("%s: lab %s has no kernel answer on %s" % (rel(rp, top), n, args.base))
    for p in problems:
        print("stale: " + p)
    for p in missing if not args.quiet else []:
        print("missing: " + p)
    print("mutate reports (%s): %d labs, %d up to date, %d stale, %d without one" % (
        args.base, len(labs), len(labs) - len(missing) - len({p.split(":")[0] for p in problems}),
        len({p.split(":")[0] for p in problems}), len(missing)))
    return 1 if problems or (args.strict and missing) else 0


def main(argv):
    ap = argparse.ArgumentParser(prog="mutate.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate", help="one patch per generated mutant")
    g.add_argument("--answer", required=True, help="the answer: a kernel patch, or a program (--start-file)")
    g.add_argument("--tree", help="the kernel git repository")
    g.add_argument("--start", help="the tag the answer applies onto (lab-NN-start)")
    g.add_argument("--start-file", help="a user-space lab: the skeleton the program --answer completes")
    g.add_argument("--path", help="with --start-file: the program's path in the course (labs/NN-x/FILE), "
                   "which the patches name")
    g.add_argument("--out", required=True)
    g.add_argument("--lab")
    g.add_argument("--max", type=int, default=DEFAULT_MAX, help="at most this many a lab (%d)" % DEFAULT_MAX)
    g.add_argument("--max-per-op", type=int, default=None, help="one cap for every operator")
    g.add_argument("--ops", help="only these operators, comma-separated")
    g.add_argument("--top", default=TOP)
    r = sub.add_parser("report", help="the lab's report from the runner's results")
    r.add_argument("--lab", required=True)
    r.add_argument("--answer", required=True)
    r.add_argument("--check", required=True)
    r.add_argument("--results", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--equivalent")
    r.add_argument("--mutants", help="the folder of the generated patches (their subjects)")
    r.add_argument("--base", default=MAIN_BASE)
    r.add_argument("--top", default=TOP)
    s = sub.add_parser("stale", help="reports whose answer or check changed since")
    s.add_argument("--top", default=TOP)
    s.add_argument("--base", default=MAIN_BASE)
    s.add_argument("--strict", action="store_true", help="a lab without a report fails too")
    s.add_argument("--quiet", action="store_true", help="count the labs without a report, do not list them")
    sub.add_parser("ops", help="the operators")
    args = ap.parse_args(argv)
    if args.cmd == "generate":
        return generate(args)
    if args.cmd == "report":
        return report(args)
    if args.cmd == "stale":
        return stale(args)
    for name, cap, what in OPERATORS:
        print("%-15s %2d  %s" % (name, cap, what))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
