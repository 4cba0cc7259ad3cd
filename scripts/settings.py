#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The course's settings: the environment variables its scripts read.

scripts/settings.txt declares each setting once, with its default and one
line saying what it does. This tool reads that file and checks it against
the scripts:

    scripts/settings.py list [--readers]   the settings, by section (make help-settings)
    scripts/settings.py lint [--top DIR]   every setting read is declared, every declaration read
    scripts/settings.py scan [--top DIR]   every read the lint sees, FILE:LINE NAME

The lint scans scripts/*.sh, scripts/*.py, tests/*.sh, guest-rootfs/init,
guest-rootfs/lib/*.sh, labs/*/check, the Makefile and .ci/run. It prints
'undeclared: NAME (FILE:LINE)' for a setting read and not declared (the
first place it is read), 'unused: NAME' for a declaration nothing reads, and
exits 1 when there is either (2 when settings.txt itself is malformed).

What counts as reading a setting (only UPPER_CASE names: KERNEL, GRADE_JOBS):

  shell (the .sh files, /init, the checks, .ci/run and the Makefile's recipes)
    A reference to NAME: $NAME, ${NAME}, ${NAME:-x} and every other ${NAME...}
    form, or a bare NAME in $((...)) -- unless the script assigned NAME before
    that point in the file, itself or through a file it sourced before it
    ('. FILE' or 'source FILE' with a path the scanner can find: $here/x.sh,
    "$(dirname "$0")/x.sh", $TOP/tests/x.sh, the guest's /lib/x.sh). So
    NAME=${NAME:-x}, the usual way to give a setting its default, is a read;
    a "$NAME" after it is not (nor is $TOP, set by scripts/lib.sh). In a file
    that other files source (scripts/lib.sh, tests/mutants-lib.sh), a plain
    $NAME that one of those files assigns is theirs, not a read; a guarded
    one (${NAME:-x}, ${NAME-x}, ${NAME:+x}, ${NAME:=x}, ${NAME:?x}, ...) still is.
  Python (scripts/*.py)
    os.environ.get("NAME"), os.environ["NAME"] (not as the target of an
    assignment), os.getenv("NAME"), os.environ.setdefault("NAME", ...),
    "NAME" in os.environ (environ and getenv imported from os count too).
  Makefile
    $(value NAME), and $(NAME) or ${NAME} for a NAME the Makefile never
    assigns (NAME = / := / ?= / +=), except make's own (MAKEFILE_LIST, ...).

What does not count:
    - lower-case names (locals, loops, the scripts' own variables) and the
      variables the shell sets itself (BASH_SOURCE, PIPESTATUS, RANDOM, ...);
    - a name after the script assigns it: NAME=..., NAME+=..., NAME=(...),
      local/declare/typeset/readonly NAME, export NAME=..., read NAME,
      for NAME in, printf -v NAME, mapfile NAME, getopts OPTS NAME;
    - NAME=value cmd (a value given to cmd only: no assignment, and no read),
      env -u NAME, unset NAME, export NAME with no value;
    - text in single quotes (an awk or sed program, a 'bash -c' script: its
      reads are another shell's), in comments, in a here-document whose
      delimiter is quoted (<<'EOF'), and the literal text of double quotes;
    - names made at run time (${!name}, eval "$key=..."), and Python's
      os.environ passed on whole (dict(os.environ), env=...).
Order is the file's: a function that reads NAME before the line that
assigns it at the top level reads a setting (declare it, or assign first).
A line whose comment says 'settings-lint: ignore' is not scanned.
"""

import argparse
import ast
import glob
import os
import re
import sys
import textwrap
from collections import namedtuple

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETTINGS_FILE = os.path.join("scripts", "settings.txt")
# What the lint scans, relative to the top of the tree
SCANNED = ("scripts/*.sh", "scripts/*.py", "tests/*.sh", "guest-rootfs/init", "guest-rootfs/lib/*.sh",
           "labs/*/check", "Makefile", ".ci/run")

Setting = namedtuple("Setting", "name default doc section line")
Read = namedtuple("Read", "name path line")

SETTING_NAME = re.compile(r"[A-Z][A-Z0-9_]*\Z")
NAME = r"[A-Za-z_][A-Za-z0-9_]*"
IGNORE_MARK = "settings-lint: ignore"

# Variables the shell sets itself: never a setting
SHELL_OWN = frozenset("""
    BASH BASHOPTS BASHPID BASH_ALIASES BASH_ARGC BASH_ARGV BASH_ARGV0 BASH_CMDS BASH_COMMAND
    BASH_EXECUTION_STRING BASH_LINENO BASH_REMATCH BASH_SOURCE BASH_SUBSHELL BASH_VERSINFO
    BASH_VERSION DIRSTACK EPOCHREALTIME EPOCHSECONDS EUID FUNCNAME GROUPS HISTCMD HOSTNAME
    HOSTTYPE IFS LINENO MACHTYPE OLDPWD OPTARG OPTERR OPTIND OSTYPE PIPESTATUS PPID PS1 PS2
    PS3 PS4 PWD RANDOM REPLY SECONDS SHELLOPTS SHLVL SRANDOM UID
""".split())
# make's own variables
MAKE_OWN = frozenset("""
    MAKE MAKECMDGOALS MAKEFILE_LIST MAKEFLAGS MAKELEVEL MAKEOVERRIDES CURDIR SHELL MAKE_VERSION
    MAKE_HOST .DEFAULT_GOAL .RECIPEPREFIX .SHELLFLAGS MFLAGS
""".split())


class SettingsError(Exception):
    """settings.txt is malformed: the message names the file and the line."""


# --- settings.txt ------------------------------------------------------------

SECTION_LINE = re.compile(r"#\s*---\s*(\S.*?)\s*\Z")
DECL_LINE = re.compile(r"(?P<name>[^=\s#]+)=(?P<default>.*?)\s+#\s+(?P<doc>\S.*?)\s*\Z")


def parse_settings(text, path=SETTINGS_FILE):
    """The declarations in the text of a settings.txt, in file order.

    Lines: blank; '# --- SECTION' (a section: the declarations after it);
    '# anything' (a comment); 'NAME=DEFAULT  # DOC' (a declaration). Any other
    line, a declaration before the first section, a NAME that is not
    UPPER_CASE, a DOC that is empty and a NAME declared twice are errors
    (SettingsError, naming path:line)."""
    settings = []
    seen = {}
    section = None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        where = "%s:%d" % (path, n)
        if not line.strip():
            continue
        if line.startswith("#"):
            m = SECTION_LINE.match(line)
            if m:
                section = m.group(1)
            continue
        m = DECL_LINE.match(line)
        if not m:
            if "=" not in line:
                why = "not a declaration (NAME=DEFAULT  # what it does), a comment or a section"
            elif not re.search(r"\s#\s+\S", line):
                why = "a declaration needs its documentation: NAME=DEFAULT  # what it does"
            else:
                why = "not a declaration: NAME=DEFAULT  # what it does"
            raise SettingsError("%s: %s: %r" % (where, why, raw))
        name = m.group("name")
        if not SETTING_NAME.match(name):
            raise SettingsError("%s: %r is not an UPPER_CASE name" % (where, name))
        if section is None:
            raise SettingsError("%s: %s is declared before the first section (# --- SECTION)" % (where, name))
        if name in seen:
            raise SettingsError("%s: %s is declared twice (first at line %d)" % (where, name, seen[name]))
        seen[name] = n
        settings.append(Setting(name, m.group("default").strip(), m.group("doc"), section, n))
    return settings


def load_settings(path):
    with open(path, encoding="utf-8") as f:
        return parse_settings(f.read(), os.path.relpath(path))


# --- shell -------------------------------------------------------------------

HEREDOC = re.compile(r"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?([A-Za-z0-9_.-]+))")
# a simple command ends at these words' start (after an if, then, do, ...)
RESERVED = frozenset("if then else elif fi do done while until for in case esac ! { } time function".split())
DOLLAR_NAME = re.compile(r"\$(" + NAME + r"|[0-9@#?$!*-])")
ARRAY_START = re.compile(NAME + r"(\[[^\]]*\])?\+?=\Z")
ASSIGNMENT = re.compile(r"(" + NAME + r")(\[[^\]]*\])?\+?=")
REDIRECT = re.compile(r"\d*(<<?|>>?|<>|>&|<&|&>>?)")


class _Frame:
    """A level of shell code (the script, or a $(...) in it): the words of the
    simple command being read."""

    def __init__(self, kind):
        self.kind = kind
        self.depth = 0          # open '(' inside a $(...)
        self.arith = False      # a $((...)): a << there is a shift, not a here-document
        self.words = []         # (text start, text end) of the command's words
        self.word = None        # start of the word being read


class ShellScan:
    """One pass over a shell script: its text with what the shell does not
    expand blanked out (masked), and every assignment the script makes in its
    own shell (assigns: (name, offset after which it holds)) and every
    '. FILE' it runs (sources: (path text, offset))."""

    def __init__(self, src, start="code"):
        self.src = src
        self.out = list(src)
        self.assigns = []
        self.sources = []
        self.resolved = []      # (file in the tree, offset): sources ShellFiles found
        self._run(start)
        self.masked = "".join(self.out)

    def _blank(self, a, b, fill="\x01"):
        for k in range(a, min(b, len(self.src))):
            if self.out[k] != "\n":
                self.out[k] = fill

    # the words of one simple command, once it ends
    def _command(self, frame):
        words = [(a, b, self.src[a:b]) for a, b in frame.words]
        frame.words = []
        k = 0
        pending = []
        while k < len(words) and words[k][2] in RESERVED and words[k][2] not in ("for", "select"):
            k += 1
        if k + 1 < len(words) and words[k][2] in ("for", "select"):
            if re.match(NAME + r"\Z", words[k + 1][2]):
                self.assigns.append((words[k + 1][2], words[k + 1][1]))     # for NAME in ...
            return
        while k < len(words):
            a, b, w = words[k]
            m = ASSIGNMENT.match(w)
            if not m:
                break
            pending.append((m.group(1), b))
            k += 1
        # skip redirections: 2>/dev/null, > file
        rest = []
        j = k
        while j < len(words):
            w = words[j][2]
            m = REDIRECT.match(w)
            if m and (m.end() == len(w) or w[m.end()] not in "("):
                j += 2 if m.end() == len(w) else 1
                continue
            rest.append(words[j])
            j += 1
        if not rest:
            self.assigns.extend(pending)        # NAME=value: this shell's own
            return
        # NAME=value cmd ...: for cmd only
        cmd = rest[0][2]
        args = rest[1:]
        if cmd in ("local", "declare", "typeset", "readonly", "export"):
            for a, b, w in args:
                m = re.match(r"(" + NAME + r")(\[[^\]]*\])?(\+?=|\Z)", w)
                if m and (cmd != "export" or m.group(3)):
                    self.assigns.append((m.group(1), b))
        elif cmd in ("read", "mapfile", "readarray", "printf", "getopts"):
            takes = {"read": "dpnNtui", "mapfile": "dnOsuCc", "readarray": "dnOsuCc", "printf": "", "getopts": ""}
            i = 0
            names = []
            while i < len(args):
                a, b, w = args[i]
                if w.startswith("-") and len(w) > 1:
                    if cmd == "printf" and w == "-v" and i + 1 < len(args):
                        self.assigns.append((args[i + 1][2], args[i + 1][1]))
                        break
                    if cmd == "read" and w.endswith("a") and i + 1 < len(args):
                        self.assigns.append((args[i + 1][2], args[i + 1][1]))
                        i += 2
                        continue
                    i += 2 if w[-1] in takes[cmd] else 1
                    continue
                if cmd == "printf":
                    break
                names.append((w, b))
                i += 1
            if cmd == "getopts":
                names = names[1:2]
            for w, b in names:
                if re.match(NAME + r"\Z", w):
                    self.assigns.append((w, b))
        elif cmd in (".", "source") and args:
            self.sources.append((args[0][2].replace('"', ""), rest[0][0]))

    def _end_word(self, frame, i):
        if frame.word is not None:
            frame.words.append((frame.word, i))
            frame.word = None

    def _run(self, start):
        src = self.src
        n = len(src)
        stack = [_Frame(start)]
        heredocs = []
        i = 0
        while i < n:
            c = src[i]
            top = stack[-1]
            kind = top.kind
            if kind in ("dq", "hd"):
                if c == "\\" and kind == "dq":
                    self._blank(i, i + 2)
                    i += 2
                    continue
                if c == '"' and kind == "dq":
                    stack.pop()
                    i += 1
                    continue
                if c == "$":
                    i = self._dollar(stack, i)
                    continue
                if c == "`":
                    stack.append(_Frame("bt"))
                    i += 1
                    continue
                if c != "\n":
                    self.out[i] = "\x01"
                i += 1
                continue
            if kind == "brace":
                if c == "}":
                    stack.pop()
                    i += 1
                    continue
                if c == "\\":
                    self._blank(i, i + 2)
                    i += 2
                    continue
                if c == '"':
                    stack.append(_Frame("dq"))
                    i += 1
                    continue
                if c == "$":
                    i = self._dollar(stack, i)
                    continue
                i += 1
                continue
            # code: the script, a $(...), a `...`
            if c in " \t":
                self._end_word(top, i)
                i += 1
                continue
            if c == "\n" or c in ";&|":
                self._end_word(top, i)
                self._command(top)
                if c == "\n" and heredocs:
                    i = self._heredocs(heredocs, i + 1)
                    heredocs = []
                    continue
                i += 1
                continue
            if c == "#" and top.word is None:
                j = src.find("\n", i)
                j = n if j < 0 else j
                self._blank(i, j, " ")
                i = j
                continue
            if c == "(" and top.word is not None and ARRAY_START.match(src, top.word, i):
                stack.append(_Frame("cmd"))     # NAME=( ... ): the word goes on after the ')'
                i += 1
                continue
            if c in "()":
                if c == ")" and kind == "cmd" and top.depth == 0:
                    self._end_word(top, i)
                    self._command(top)
                    stack.pop()
                    i += 1
                    continue
                if kind == "cmd":
                    top.depth += 1 if c == "(" else -1
                self._end_word(top, i)
                self._command(top)
                i += 1
                continue
            if c == "`" and kind == "bt":
                self._end_word(top, i)
                self._command(top)
                stack.pop()
                i += 1
                continue
            if top.word is None:
                top.word = i
            if c == "\\":
                self._blank(i, i + 2)
                i += 2
                continue
            if c == "'":
                j = src.find("'", i + 1)
                j = n if j < 0 else j
                self._blank(i + 1, j)
                i = j + 1
                continue
            if c == '"':
                stack.append(_Frame("dq"))
                i += 1
                continue
            if c == "`":
                stack.append(_Frame("bt"))
                i += 1
                continue
            if src.startswith("<<<", i):
                i += 3
                continue
            if src.startswith("<<", i) and not any(f.arith for f in stack):
                m = HEREDOC.match(src, i)
                if m:
                    quoted = m.group(4) is None or src[m.start(4) - 1] == "\\"
                    delim = m.group(2) if m.group(2) is not None else m.group(3) if m.group(3) is not None \
                        else m.group(4)
                    heredocs.append((delim, m.group(1) == "-", quoted))
                    self._end_word(top, i)
                    i = m.end()
                    continue
            if c == "$":
                i = self._dollar(stack, i)
                continue
            i += 1
        while stack:
            f = stack.pop()
            self._end_word(f, n)
            self._command(f)

    def _dollar(self, stack, i):
        src = self.src
        if src.startswith("$(", i):
            stack.append(_Frame("cmd"))
            stack[-1].arith = src.startswith("$((", i)
            return i + 2
        if src.startswith("${", i):
            stack.append(_Frame("brace"))
            return i + 2
        if src.startswith("$'", i) and stack[-1].kind not in ("dq", "hd"):
            j = i + 2
            while j < len(src) and src[j] != "'":
                j += 2 if src[j] == "\\" else 1
            self._blank(i + 2, j)
            return j + 1
        m = DOLLAR_NAME.match(src, i)
        return m.end() if m else i + 1

    def _heredocs(self, heredocs, i):
        src = self.src
        n = len(src)
        for delim, strip, quoted in heredocs:
            start = i
            end = n
            while i < n:
                e = src.find("\n", i)
                e = n if e < 0 else e
                line = src[i:e]
                if (line.lstrip("\t") if strip else line) == delim:
                    end = i
                    i = e
                    break
                i = e + 1
            if quoted:
                self._blank(start, end)
            else:
                body = ShellScan(src[start:end], "hd")
                self.out[start:end] = list(body.masked)
                self.assigns.extend((nm, start + off) for nm, off in body.assigns)
            self._blank(end, i, " ")
        return i


EXPANSION = re.compile(r"\$\{([#!]?)(" + NAME + r")(:?[-=+?])?|\$(" + NAME + r")")


def _arith_names(masked):
    """(name, offset) of the bare names in $((...)) and ((...))."""
    found = []
    for m in re.finditer(r"(?<![\w)$])\$?\(\(", masked):
        i = m.end()
        depth = 2
        while i < len(masked) and depth > 0:
            c = masked[i]
            if masked.startswith("$(", i) and not masked.startswith("$((", i):
                d = 1   # a command inside: not arithmetic
                i += 2
                while i < len(masked) and d:
                    d += {"(": 1, ")": -1}.get(masked[i], 0)
                    i += 1
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            elif re.match(r"[A-Za-z_]", c) and (i == 0 or not re.match(r"[\w$#]", masked[i - 1])):
                w = re.match(NAME, masked[i:]).group(0)
                found.append((w, i))
                i += len(w)
                continue
            i += 1
    return found


def shell_refs(masked):
    """(name, offset, guarded) of every variable a masked script expands;
    guarded: a form that allows the name to be unset (${NAME:-x} and kin)."""
    refs = []
    for m in EXPANSION.finditer(masked):
        if m.group(4):
            refs.append((m.group(4), m.start(), False))
        else:
            refs.append((m.group(2), m.start(), bool(m.group(3)) and m.group(1) == ""))
    refs.extend((nm, off, False) for nm, off in _arith_names(masked))
    return refs


def _ignored_lines(src):
    return {n for n, line in enumerate(src.splitlines(), 1) if IGNORE_MARK in line}


class ShellFiles:
    """The shell scripts of a tree, each scanned once, and which sources which."""

    def __init__(self, top):
        self.top = top
        self.scans = {}
        self.includers = {}

    def scan(self, rel):
        if rel not in self.scans:
            with open(os.path.join(self.top, rel), encoding="utf-8", errors="replace") as f:
                src = f.read()
            if rel == "Makefile":
                src = makefile_shell_text(src)
            self.scans[rel] = ShellScan(src)
            for text, off in self.scans[rel].sources:
                lib = self.resolve(rel, text)
                if lib:
                    self.scans[rel].resolved.append((lib, off))
                    self.includers.setdefault(lib, set()).add(rel)
                    self.scan(lib)
        return self.scans[rel]

    def resolve(self, rel, text):
        """The file a '. PATH' names, relative to the tree, or None: PATH
        with its leading $VAR/$(...) taken as the sourcing file's folder, the
        top of the tree or (the guest's /lib/...) guest-rootfs."""
        p = re.sub(r"^(\$\{?\w+\}?|\$\(.*\))", "", text)
        if "$" in p or not p:
            return None
        for base in (os.path.dirname(rel), "", "guest-rootfs"):
            cand = os.path.normpath(os.path.join(base, p.lstrip("/")))
            if not cand.startswith("..") and os.path.isfile(os.path.join(self.top, cand)):
                return cand
        return None

    def names(self, rel, seen=None):
        """Every name a file assigns anywhere, with the files it sources."""
        seen = set() if seen is None else seen
        if rel in seen:
            return set()
        seen.add(rel)
        s = self.scan(rel)
        out = {nm for nm, _ in s.assigns}
        for lib, _ in s.resolved:
            out |= self.names(lib, seen)
        return out

    def inherited(self, rel, seen=None):
        """The names the files that source this one (and theirs) assign."""
        seen = set() if seen is None else seen
        out = set()
        for inc in self.includers.get(rel, ()):
            if inc in seen:
                continue
            seen.add(inc)
            out |= self.names(inc, {rel}) | self.inherited(inc, seen)
        return out

    def reads(self, rel):
        s = self.scan(rel)
        src = s.src
        ignored = _ignored_lines(src)
        # where each name is first assigned in this shell: by the file, or by a file it sources
        first = {}
        for nm, off in s.assigns:
            first[nm] = min(first.get(nm, off), off)
        for lib, off in s.resolved:
            for nm in self.names(lib):
                first[nm] = min(first.get(nm, off), off)
        inherited = self.inherited(rel)
        out = []
        for nm, off, guarded in shell_refs(s.masked):
            if not SETTING_NAME.match(nm) or nm in SHELL_OWN or not guarded and nm in inherited:
                continue
            if nm in first and first[nm] <= off:
                continue
            line = src.count("\n", 0, off) + 1
            if line not in ignored:
                out.append(Read(nm, rel, line))
        return out


# --- Makefile ----------------------------------------------------------------

MAKE_ASSIGN = re.compile(r"^(?:(?:override|export)\s+)*(" + NAME + r")\s*(?::{1,3}=|\?=|\+=|!=|=)", re.M)
MAKE_REF = re.compile(r"\$[({](value\s+)?(" + NAME + r")[)}]")


def makefile_shell_text(src):
    """The Makefile's recipes as shell text, line for line: make's own lines
    blank, $$ made $, make's $(...) blanked (so offsets and lines stay)."""
    out = []
    for line in src.split("\n"):
        if line.startswith("\t"):
            line = re.sub(r"\$\$|\$[({][^)}]*[)}]|\$.", lambda m: " $" if m.group(0) == "$$" else
                          "\x01" * len(m.group(0)), line)
            out.append(line)
        else:
            out.append("")
    return "\n".join(out)


def scan_makefile(top, rel, shell):
    with open(os.path.join(top, rel), encoding="utf-8") as f:
        src = f.read()
    ignored = _ignored_lines(src)
    lines = []
    for ln in src.split("\n"):
        if ln.startswith("\t"):
            lines.append(ln.replace("$$", "  "))    # a recipe: the shell's, scanned below
        else:
            lines.append(re.sub(r"(^|\s)#.*", "", ln))
    text = "\n".join(lines)
    assigned = {m.group(1) for m in MAKE_ASSIGN.finditer(text)}
    out = []
    for m in MAKE_REF.finditer(text):
        nm = m.group(2)
        if not SETTING_NAME.match(nm) or nm in MAKE_OWN:
            continue
        if m.group(1) or nm not in assigned:
            line = text.count("\n", 0, m.start()) + 1
            if line not in ignored:
                out.append(Read(nm, rel, line))
    out.extend(shell.reads(rel))
    return out


# --- Python ------------------------------------------------------------------

def _is_environ(node, names):
    """os.environ, or environ imported from os."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name)
            and node.value.id in names["os"]) or (isinstance(node, ast.Name) and node.id in names["environ"])


def python_reads(src, rel="<python>"):
    tree = ast.parse(src, rel)
    ignored = _ignored_lines(src)
    names = {"os": {"os"}, "environ": set(), "getenv": set()}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "os":
                    names["os"].add(a.asname or "os")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            for a in node.names:
                if a.name in ("environ", "getenv"):
                    names[a.name].add(a.asname or a.name)
    found = []

    def const(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        return None

    for node in ast.walk(tree):
        key = None
        if isinstance(node, ast.Call) and node.args:
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr in ("get", "setdefault") and _is_environ(f.value, names):
                key = const(node.args[0])
            elif (isinstance(f, ast.Attribute) and f.attr == "getenv" and isinstance(f.value, ast.Name)
                  and f.value.id in names["os"]) or (isinstance(f, ast.Name) and f.id in names["getenv"]):
                key = const(node.args[0])
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _is_environ(node.value, names):
            sl = node.slice
            key = const(sl if isinstance(sl, ast.Constant) else getattr(sl, "value", sl))     # 3.8: ast.Index
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                and _is_environ(node.comparators[0], names):
            key = const(node.left)
        if key and SETTING_NAME.match(key) and node.lineno not in ignored:
            found.append(Read(key, rel, node.lineno))
    return found


# --- the tree ----------------------------------------------------------------

def scanned_files(top):
    files = []
    for pat in SCANNED:
        for p in sorted(glob.glob(os.path.join(top, pat))):
            if os.path.isfile(p):
                files.append(os.path.relpath(p, top))
    return files


def scan_tree(top):
    """Every read of a setting in the tree's scanned files, in file order."""
    shell = ShellFiles(top)
    reads = []
    for rel in scanned_files(top):
        if rel.endswith(".py"):
            with open(os.path.join(top, rel), encoding="utf-8") as f:
                reads.extend(python_reads(f.read(), rel))
        elif rel == "Makefile":
            reads.extend(scan_makefile(top, rel, shell))
        else:
            reads.extend(shell.reads(rel))
    return sorted(set(reads), key=lambda r: (r.path, r.line, r.name))


def lint(top, settings):
    """The problems: 'undeclared: NAME (FILE:LINE)' for each setting read and
    not declared (its first read), 'unused: NAME' for each declaration that
    nothing reads."""
    reads = scan_tree(top)
    declared = {s.name for s in settings}
    problems = []
    said = set()
    for r in reads:
        if r.name not in declared and r.name not in said:
            said.add(r.name)
            problems.append("undeclared: %s (%s:%d)" % (r.name, r.path, r.line))
    read = {r.name for r in reads}
    problems.extend("unused: %s" % s.name for s in settings if s.name not in read)
    return problems


def readers(reads):
    out = {}
    for r in reads:
        out.setdefault(r.name, [])
        if r.path not in out[r.name]:
            out[r.name].append(r.path)
    return out


def format_list(settings, width=100, who=None):
    """The settings as a table, section by section: name, default, what it
    does (and, given who: {name: [files]}, the files that read it)."""
    nw = max([len(s.name) for s in settings] + [4]) + 2
    dw = 22
    tw = max(width - nw - dw, 30)
    lines = ["%-*s%-*s%s" % (nw, "NAME", dw, "DEFAULT", "WHAT IT DOES")]
    section = None
    for s in settings:
        if s.section != section:
            section = s.section
            lines.append("")
            lines.append("--- " + section)
        doc = s.doc
        if who is not None:
            doc += " [read by: %s]" % ", ".join(who.get(s.name, ["nothing"]))
        left = textwrap.wrap(s.default or "(none)", dw - 2, break_on_hyphens=False, break_long_words=False)
        right = textwrap.wrap(doc, tw, break_on_hyphens=False)
        if max(len(x) for x in left) > dw - 2:
            left = [s.default]      # a long path: a line of its own, the doc below it
            right = [""] + right
        for k in range(max(len(left), len(right))):
            a = s.name if k == 0 else ""
            b = left[k] if k < len(left) else ""
            c = right[k] if k < len(right) else ""
            lines.append(("%-*s%-*s%s" % (nw, a, dw, b, c)).rstrip())
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="settings.py", description=__doc__.split("\n")[0])
    ap.add_argument("--settings", help="the declarations (default: TOP/scripts/settings.txt)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("list", help="the settings, by section")
    p.add_argument("--readers", action="store_true", help="with the files that read each")
    p.add_argument("--width", type=int, default=100)
    p.add_argument("--top", default=TOP)
    p = sub.add_parser("lint", help="every setting read is declared, every declaration read")
    p.add_argument("--top", default=TOP)
    p = sub.add_parser("scan", help="every read of a setting: FILE:LINE NAME")
    p.add_argument("--top", default=TOP)
    args = ap.parse_args(argv)
    top = os.path.abspath(args.top)
    try:
        if args.cmd == "scan":
            for r in scan_tree(top):
                print("%s:%d %s" % (r.path, r.line, r.name))
            return 0
        settings = load_settings(args.settings or os.path.join(top, SETTINGS_FILE))
        if args.cmd == "list":
            who = readers(scan_tree(top)) if args.readers else None
            sys.stdout.write(format_list(settings, args.width, who))
            return 0
        problems = lint(top, settings)
    except (OSError, SettingsError, SyntaxError, UnicodeDecodeError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
