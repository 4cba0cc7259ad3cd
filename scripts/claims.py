#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The functions the book names, checked in the kernel trees (issue 33).

    claims.py [--base B]... [--json] [--list] [--fields-warn] [--no-cache]
              [--top DIR] [--tree B=DIR]...

Every code-font span of the book (its introduction, chapters, appendices
and book/bases-6.12.md) and of the labs' README.md and hints.md that calls a
function, `copy_namespaces()` or `ns_capable(ns, CAP_SYS_ADMIN)`, claims
that the function exists. Fenced code blocks and HTML comments (the
directives) are left out. In a span, NAME( names NAME unless it is a man
page, `clone(2)`; a member, `->lookup()`, `ops.fn()`; a gdb variable,
`$lx_current()`; a C keyword (`sizeof(`); or has a space before its "("
(`EPERM (Operation not permitted)`, a program's output). A `*` in a name
is a wildcard: `netlink_*capable()` wants some function of that form.

Where a name exists. On a base, when the git tag `distro` of the base's
kernel repository (scripts/lib.sh's KERNEL_DIR for KERNEL=B; --tree B=DIR
for another) defines it in a .c or .h file outside tools/, samples/,
scripts/, Documentation/ and usr/ (user-space programs; and amdgpu's
register headers), at column 0 as
scripts/bookexcerpt.py reads a definition: a function (its line does not
end in ";"), a "#define NAME(" macro, BPF_CALL_n(NAME, ...), or
SYSCALL_DEFINEn(NAME, ...): a system call, which is what a man page's name
stands for, `unshare()`, `mount()`, `clone()` (the few whose libc name is
not the kernel's, `umount2()`, `execv()`, are in LIBC below). A name that a
base lacks passes when the course's own code defines it (the C and shell
files of labs/, solutions/ and guest-rootfs/), or book/claims-allow.txt
lists it with a reason (see that file; "history:" names pass only in a
text that names an older Linux, a "6.12 only"/"6.1 only" name when that
base has it).

One base's names. The chapters explain both bases, so a function that one
base lacks is a problem, unless the text says which base it speaks of:
  - its sentence, its paragraph (a list item and a table row are
    paragraphs) or a heading above it names a base's version ("6.1", not
    "6.12"; "6.1.192" counts): "6.12 has `statmount()`", and also
    "`__ns_get_path()` (on the 6.12 base: `path_from_stashed()`)", where
    the other base is the one named; or
  - the section under that heading quotes a patch of a base that has the
    function (a diff: or message: directive; kernel-steps/NAME quotes the
    patch 6.1 applies, the code the chapters explain: its own in
    kernel-steps/6.1/ or else the series', and kernel-steps/B/NAME base
    B's own; scripts/book.sh resolves them the same way): a
    hunk walk-through speaks of the code it shows. The section is not
    named by a version, so a 6.12-only name there is still a problem.
A Linux older than the bases (3.8, or a year such as 2012) named in the
text does not excuse a name of one base: say which base has it.
"BASE has no `f()`" claims the opposite: f() must not exist on BASE.
Without one base's tree, a name that the available base lacks passes when
the text names a base (unchecked: the same test as with both trees, where
a name found on one base passes when the text names either), or quotes a
patch of the missing base; the missing base's report says "skipped".

Second layer: a sentence (a clause between semicolons counts as one) that
names functions and, in code font, a field `a->b` or `a.b` claims that b is
used in one of those functions: the word b must be in the body (from the
definition to the next "}" at column 0, or a macro's lines) of one of
them, on each base the sentence is about (the nearest text that names a
base, as above; else every base one of them exists on). Left out, as the
cases where that claim is not what the sentence says: a field with a call
in it (`current_cred()->user_ns` is the field of a result); a sysctl
(`user.max_user_namespaces`); a file name (`lab.conf`); a function the
sentence says is not used ("not `current_cred()`"); system calls (their
bodies are a call of the function that does the work); functions shorter
than THIN lines, wrappers and accessors (`sock_net()`, `container_of()`),
when the field is not in them; sentences and paragraphs of history (an
older Linux named). A mismatch fails; --fields-warn makes it a warning.

Output: one line per problem, "FILE:LINE: NAME() not found on 6.1 (found on
6.12)", a warning as "FILE:LINE: warning: ...", then a summary line on
stderr; exit status 1 on a failure. --base B reports base B's problems
only (the other trees are still read: "found on" needs them); a base
without its tree is skipped and said so on stderr. --json prints the
problems and the counts as one JSON object; --list adds each name's
verdict.

Speed: one `git grep -P` per base with all names in one alternation, the
bases at once; what it found is kept in build/claims/BASE.json (for the
tag's commit and the pattern) so that a later run greps only names it has
not looked for yet.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bookexcerpt as bx  # noqa: E402

IDENT = r"[A-Za-z_]\w*"
SOURCES = ("book/00-intro.md", "book/chapters/[0-9][0-9]-*.md", "book/appendix-*.md", "book/bases-6.12.md",
           "labs/[0-9][0-9]-*/README.md", "labs/[0-9][0-9]-*/hints.md")
COURSE_CODE = ("labs/**/*.c", "labs/**/*.h", "labs/**/*.sh", "labs/*/check", "solutions/**/*.c",
               "solutions/**/*.in", "guest-rootfs/**/*.c", "guest-rootfs/**/*.sh", "guest-rootfs/init")
ALLOW = "book/claims-allow.txt"
TAG = "distro"
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "typeof", "__typeof__", "defined",
            "do", "case", "else", "alignof", "_Alignof", "__attribute__"}
# man page names whose kernel name differs (SYSCALL_DEFINEn(KERNEL_NAME, ...))
LIBC = {"exec": "execve", "umount2": "umount", "pread": "pread64", "pwrite": "pwrite64", "execv": "execve",
        "execvp": "execve", "execl": "execve", "execlp": "execve", "readdir": "getdents64",
        "wait": "wait4", "waitpid": "wait4"}

CALL = re.compile(r"(?<![\w$*])(?<!->)(?<!\.)(\*?[A-Za-z_][\w*]*)\(")
# "6.1 has no `task_user_ns()`": a claim that a base lacks a function
ABSENT = re.compile(r"(?<![\w.])(\d+\.\d+)(?:'s tree)? (?:has|had) no\s*`?$")
MANREF = re.compile(r"\(\d\w*\)")
FIELD = re.compile(r"[A-Za-z_&*][\w]*(?:\[\w*\])?(?:(?:->|\.)[A-Za-z_]\w*(?:\[\w*\])?)+")
NOT_FIELD_EXT = {"c", "h", "sh", "md", "conf", "txt", "patch", "py", "S", "o", "ko", "html", "dot", "json",
                 "yaml", "in", "sum", "css", "js", "epub", "pdf", "png", "svg", "tbl", "ktap", "log", "d",
                 "mk", "cfg", "xz", "gz", "tar", "so", "a", "rs", "pl"}
# a diff: or message: directive of the book quotes a patch of one base:
# kernel-steps/NAME and solutions/NAME the one 6.1 applies (the base whose
# code the chapters explain: book.sh's BOOK_CODE_BASE), kernel-steps/B/NAME
# and solutions/B/NAME base B's own
QUOTE = re.compile(r"<!--\s*(diff|message):\s*(?:kernel-steps|solutions)/(?:(\d+\.\d+)/)?")
PATCH_BASE = {"": "6.1"}
# a function whose definition has fewer lines is a wrapper or an accessor:
# a field named with it is of what it calls or returns (second layer)
THIN = 8
# a function named as the one not used: "`file->f_cred`, not `current_cred()`"
NEGATED = re.compile(r"\b(?:not|no|nor|instead of|rather than)\s*`?$")
# sysctls are named a.b too: kernel.x, user.max_user_namespaces
SYSCTL_ROOTS = {"kernel", "user", "net", "vm", "fs", "dev", "debug", "abi", "crypto"}
# a Linux older than the bases (2.6.32, 3.8, 5.12), or a year before 6.1's
OLD_LINUX = re.compile(r"(?<![\w.])[2-5]\.\d{1,2}(?:\.\d+)?(?![\w.]*\d)"
                       r"|(?<![\w.])(?:199\d|20[01]\d|202[01])(?![\w.]*\d)")


# --- the text ----------------------------------------------------------------

def version_rx(base):
    """base "6.1" as a version of its own: not 6.12, not 16.1; 6.1.192 is"""
    return re.compile(r"(?<![\w.])" + re.escape(base) + r"(?!\d)")


def mask_code(text):
    """TEXT with each code span's inside replaced by x's (same length), and
    the spans: (start, end, content)"""
    spans, out, pos = [], [], 0
    for m in re.finditer(r"(`+)(.+?)(?<!`)\1(?!`)", text, re.S):
        spans.append((m.start(), m.end(), m.group(2)))
        out.append(text[pos:m.start()])
        out.append("`" + re.sub(r"[^\n]", "x", text[m.start() + 1:m.end() - 1]) + "`")
        pos = m.end()
    out.append(text[pos:])
    return "".join(out), spans


def sentences(masked):
    """(start, end) of each sentence of a paragraph (code spans masked); a
    semicolon ends one too: the clauses it joins say different things"""
    out, start = [], 0
    for m in re.finditer(r"[.!?][\"')\]*_]*\s+(?=[A-Z(\[*_`\"])|;\s+", masked):
        out.append((start, m.end()))
        start = m.end()
    out.append((start, len(masked)))
    return out


def paragraphs(text):
    """The prose of a Markdown file: a list of (first line, text, headings),
    headings being the headings above, innermost first, each as (text,
    base): base is the base whose patch the heading's section (up to the
    next heading) quotes with a diff: or message: directive, or None.
    Fenced code and HTML comments are left out; a heading, a list item and
    a table row are paragraphs of their own."""
    lines = text.split("\n")
    fence = None
    for i, line in enumerate(lines):
        m = re.match(r"\s{0,12}(```+|~~~+)", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and \
                    not line.strip()[len(m.group(1)):].strip():
                fence = None
            lines[i] = ""
        elif m:
            fence = m.group(1)
            lines[i] = ""
    text = "\n".join(lines)
    quoted = {}  # line of a directive -> the base of the patch it quotes
    for m in QUOTE.finditer(text):
        quoted[text.count("\n", 0, m.start()) + 1] = PATCH_BASE.get(m.group(2) or "", m.group(2))
    text = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    out, heads, cur, first = [], [], [], None

    def flush():
        nonlocal cur, first
        if cur:
            out.append((first, "\n".join(cur), heads[::-1]))
        cur, first = [], None
    for i, line in enumerate(text.split("\n"), 1):
        if i in quoted and heads:
            heads[-1][2] = quoted[i]
        h = re.match(r"(#{1,6})\s+(.*)", line)
        if h:
            flush()
            level = len(h.group(1))
            heads = [x for x in heads if x[0] < level]
            out.append((i, h.group(2), heads[::-1]))
            heads.append([level, h.group(2), None])
            continue
        if not line.strip():
            flush()
            continue
        if re.match(r"\s*(?:[-*+]|\d+[.)])\s+\S", line) or line.lstrip().startswith("|"):
            flush()
        if first is None:
            first = i
        cur.append(line)
    flush()
    # the headings, now that each knows its directives
    return [(a, b, [(h[1], h[2]) for h in hs]) for a, b, hs in out]


def calls(span):
    """The function names a code span calls (see the module's doc)."""
    s = re.sub(r'"(?:[^"\\]|\\.)*"', '""', span)
    names = []
    for m in CALL.finditer(s):
        name = m.group(1).lstrip("*")
        if not name or not re.match(r"[A-Za-z_]", name) or name in KEYWORDS:
            continue
        if MANREF.match(s, m.end() - 1):
            continue
        if name not in names:
            names.append(name)
    return names


def field(span):
    """The last component of a field span `a->b`, `a.b.c`, or None"""
    s = span.strip()
    if "(" in s or "/" in s or not FIELD.fullmatch(s):
        return None
    last = re.split(r"->|\.", s)[-1]
    last = re.sub(r"\[\w*\]$", "", last)
    if "->" not in s and (last in NOT_FIELD_EXT or s.split(".")[0] in SYSCTL_ROOTS):
        return None
    return last


def claims(top, rel):
    """Each function a file names: dicts with file, line, name, span,
    sentence (its text), scope (sentence, paragraph, then the headings
    innermost first, as (text, base of a quoted patch or None)), fields
    (field spans of the sentence: line, span, last component), siblings
    (the functions the sentence names, but those it says are not used or
    not there) and absent_on (the base it says lacks the function)."""
    with open(os.path.join(top, rel), encoding="utf-8") as f:
        text = f.read()
    out = []
    for first, para, heads in paragraphs(text):
        masked, spans = mask_code(para)
        for a, b in sentences(masked):
            sent_spans = [sp for sp in spans if a <= sp[0] < b]
            sent_text = para[a:b]
            fields = []
            for start, _, content in sent_spans:
                last = field(content)
                if last:
                    fields.append({"line": first + para.count("\n", 0, start), "span": content, "last": last})
            names = []
            for start, _, content in sent_spans:
                m = ABSENT.search(masked, a, start + 1)
                neg = NEGATED.search(masked, a, start + 1) is not None
                for name in calls(content):
                    names.append((first + para.count("\n", 0, start), name, content, m.group(1) if m else None,
                                  neg))
            for line, name, content, absent, _ in names:
                out.append({"file": rel, "line": line, "name": name, "span": content, "absent_on": absent,
                            "scope": [(masked[a:b], None), (masked, None)] + heads,
                            "sentence": sent_text, "fields": fields,
                            "siblings": [n for _, n, _, x, neg in names if not x and not neg]})
    return out


def all_claims(top):
    out = []
    for pat in SOURCES:
        for path in sorted(glob.glob(os.path.join(top, pat))):
            out.extend(claims(top, os.path.relpath(path, top)))
    return out


def mentioned(scope, bases):
    """(the bases SCOPE's texts name, the bases whose patches its sections
    quote)"""
    text = [b for b in bases if any(version_rx(b).search(t) for t, _ in scope)]
    patch = [b for b in bases if any(p == b for _, p in scope)]
    return text, patch


def nearest(scope, bases):
    """The bases that the first of SCOPE (sentence, paragraph, headings)
    that names any names, by text or by a quoted patch"""
    for t, p in scope:
        here = [b for b in bases if version_rx(b).search(t) or p == b]
        if here:
            return here
    return []


def historical(scope):
    """Does the sentence, paragraph or a heading name a Linux older than
    the bases (2.x to 5.x, or a year before 2022)?"""
    return any(OLD_LINUX.search(t) for t, _ in scope)


# --- the allow file and the course's code -----------------------------------

def read_allow(top):
    """name -> reason, from book/claims-allow.txt ("name  reason", # comments)"""
    allow = {}
    path = os.path.join(top, ALLOW)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                name, _, reason = line.partition(" ")
                allow[name.rstrip("()")] = reason.strip()
    return allow


def allow_only(reason, bases):
    """the base a reason says "B only" of, or None"""
    for b in bases:
        if re.search(r"(?<![\w.])" + re.escape(b) + r" only\b", reason):
            return b
    return None


def course_names(top):
    """The names the course's own programs and scripts define"""
    names = set()
    for pat in COURSE_CODE:
        for path in glob.glob(os.path.join(top, pat), recursive=True):
            try:
                # a shell file defines only its functions, NAME() {: the
                # words of its strings (echo '$ pidns -s # setns() ...')
                # are no definitions
                is_c = path.endswith((".c", ".h", ".in"))
                with open(path, encoding="utf-8", errors="replace") as f:
                    for line in f:
                        d = bx.definition(line) if is_c else None
                        m = (re.match(r"\s*#\s*define\s+(" + IDENT + r")\(", line) if is_c else None) or \
                            re.match(r"\s*(" + IDENT + r")\s*\(\)\s*\{?\s*$", line)
                        if d and "(" in line:
                            names.add(d)
                        if m:
                            names.add(m.group(1))
            except OSError:
                pass
    return names


# --- the kernel trees -------------------------------------------------------

def base_trees(top):
    """base -> kernel repository: scripts/lib.sh's KERNEL_DIR for KERNEL=base"""
    env = {k: v for k, v in os.environ.items() if k not in ("KERNEL_DIR", "BUILD")}
    lib = os.path.join(top, "scripts", "lib.sh")
    r = subprocess.run(["bash", "-c", '. "$1"; for b in $BASES; do (KERNEL=$b; unset KERNEL_DIR BUILD; . "$1"; '
                        'echo "$b $KERNEL_DIR"); done', "-", lib],
                       env=env, capture_output=True, text=True)
    trees = {}
    for line in r.stdout.splitlines():
        b, _, d = line.partition(" ")
        trees[b] = d
    return trees


def tag_commit(tree):
    r = subprocess.run(["git", "-C", tree, "rev-parse", "-q", "--verify", TAG + "^{commit}"],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def key_rx(key):
    """the regex of a name (a "*" in it: any word characters)"""
    return "\\w*".join(re.escape(p) for p in key.split("*"))


# a definition of one of the names "%s" at column 0 (a prefix that ends in
# a space or "*", not a lazy one up to a \b: on the long lines of generated
# headers that costs ten times as much)
PATTERN = (r"^(?:[A-Za-z_][^(=;]*?[\s*]|(?:(?:COMPAT_)?SYSCALL_DEFINE|BPF_CALL_)\d\(\s*|#\s*define\s+"
           r"|(?=[A-Za-z_]))(?:%s)\s*[(,)]")
# the kernel tree's user-space programs: their main() and helpers are not
# the kernel's; and amdgpu's generated register headers, a third of the
# tree's bytes with not one function (#define NAME VALUE only)
NOT_KERNEL = (":!tools/", ":!samples/", ":!scripts/", ":!Documentation/", ":!usr/",
              ":!drivers/gpu/drm/amd/include/asic_reg/", ":!fs/unicode/mkutf8data.c",
              ":!drivers/gpu/drm/radeon/mkregtable.c")
# what a cached answer was found with: another pattern or parse, another answer
CACHE_KEY = "6 " + PATTERN + " ".join(NOT_KERNEL)


def grep_start(tree, keys):
    """start one git grep of TREE's tag for the definitions of KEYS"""
    pat = PATTERN % "|".join(key_rx(k) for k in sorted(keys))
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()  # not pipes: no grep waits for the other's reader
    p = subprocess.Popen(["git", "-C", tree, "grep", "-n", "-I", "-P", "-e", pat, TAG, "--", "*.c", "*.h"]
                         + list(NOT_KERNEL), stdout=out, stderr=err)
    return p, out, err


def grep_finish(started):
    """git grep's output, once the process started by grep_start ends"""
    p, out, err = started
    p.wait()
    out.seek(0)
    err.seek(0)
    text, msg = out.read(), err.read()
    out.close()
    err.close()
    if p.returncode not in (0, 1):
        raise RuntimeError("git grep: %s" % msg.decode(errors="replace").strip())
    return text


def grep_parse(out, keys):
    """key -> [[path, line, kind], ...] of the definitions in git grep's
    output; kind: "fn", "macro" or "syscall" (SYSCALL_DEFINEn)"""
    found = {k: [] for k in keys}
    wild = [(k, re.compile(key_rx(k) + r"\Z")) for k in keys if "*" in k]
    for raw in out.decode("utf-8", "replace").splitlines():
        parts = raw.split(":", 3)
        if len(parts) < 4:
            continue
        _, path, line, text = parts
        m = re.match(r"\s*#\s*define\s+(" + IDENT + r")\(|BPF_CALL_\d\(\s*(" + IDENT + ")", text)
        name = (m.group(1) or m.group(2)) if m else bx.definition(text)
        if not name or (not m and "(" not in text):
            continue
        kind = "macro" if m and m.group(1) else "syscall" if bx.SYSCALL.match(text) else "fn"
        if name in found:
            found[name].append([path, int(line), kind])
        for k, rx in wild:
            if rx.match(name):
                found[k].append([path, int(line), kind])
    return found


def definitions(top, trees, keys, use_cache=True):
    """base -> key -> definitions, for the bases whose tree has the tag;
    the greps of the bases run at once"""
    res, procs = {}, {}
    for b, tree in trees.items():
        commit = tag_commit(tree) if tree and os.path.isdir(tree) else None
        if not commit:
            continue
        cache_path = os.path.join(top, "build", "claims", b + ".json")
        cache = {}
        if use_cache:
            try:
                with open(cache_path, encoding="utf-8") as f:
                    c = json.load(f)
                if c.get("commit") == commit and c.get("key") == CACHE_KEY:
                    cache = c.get("defs", {})
            except (OSError, ValueError):
                pass
        need = sorted(k for k in keys if k not in cache)
        res[b] = (commit, cache, cache_path)
        if need:
            procs[b] = (grep_start(tree, need), need)
    for b, (started, need) in procs.items():
        commit, cache, cache_path = res[b]
        cache.update(grep_parse(grep_finish(started), need))
        if use_cache:
            try:
                os.makedirs(os.path.dirname(cache_path), exist_ok=True)
                with open(cache_path + ".tmp", "w", encoding="utf-8") as f:
                    json.dump({"commit": commit, "key": CACHE_KEY, "defs": cache}, f, sort_keys=True)
                os.replace(cache_path + ".tmp", cache_path)
            except OSError:
                pass
    return {b: cache for b, (_, cache, _) in res.items()}


def read_blobs(tree, paths):
    """path -> text of each file at the tag (one git cat-file --batch)"""
    paths = sorted(set(paths))
    if not paths:
        return {}
    p = subprocess.run(["git", "-C", tree, "cat-file", "--batch"],
                       input="".join("%s:%s\n" % (TAG, x) for x in paths).encode(), capture_output=True)
    out, pos, blobs = p.stdout, 0, {}
    for path in paths:
        nl = out.index(b"\n", pos)
        head = out[pos:nl].split()
        pos = nl + 1
        if len(head) == 3:
            size = int(head[2])
            blobs[path] = out[pos:pos + size].decode("utf-8", "replace")
            pos += size + 1
    return blobs


def body(text, line):
    """The lines of the definition that begins at LINE (from 1): a macro
    with its continuation lines, else through the next "}" at column 0"""
    lines = text.split("\n")
    i = line - 1
    if i >= len(lines):
        return ""
    if re.match(r"\s*#\s*define", lines[i]):
        j = i
        while j + 1 < len(lines) and lines[j].rstrip().endswith("\\"):
            j += 1
        return "\n".join(lines[i:j + 1])
    j = i
    while j + 1 < len(lines) and not lines[j].startswith("}") and j - i < 2000:
        j += 1
    return "\n".join(lines[i:j + 1])


def is_definition(text, line):
    """Whether the lines from LINE (from 1) begin a definition, not a
    prototype that runs over several lines (its ";" comes before any
    "{"), nor a line inside a multi-line macro (the line above ends in
    a backslash). A macro is a definition."""
    lines = text.split("\n")
    i = line - 1
    if i >= len(lines):
        return False
    if i > 0 and lines[i - 1].rstrip().endswith("\\"):
        return False
    if re.match(r"\s*#\s*define", lines[i]):
        return True
    for j in range(i, min(i + 40, len(lines))):
        code = re.sub(r"/\*.*?\*/|//.*$", "", lines[j])
        if "{" in code:
            return True
        if ";" in code:
            return False
    return False


# --- the check --------------------------------------------------------------

def check(top, trees, use_cache=True, strict_fields=True):
    """(problems, stats): each problem a dict with file, line, message,
    level ("error" or "warning") and bases (those it is about)"""
    t0 = time.time()
    cl = all_claims(top)
    allow = read_allow(top)
    course = course_names(top)
    bases = list(trees)
    keys = set()
    for c in cl:
        keys.add(c["name"])
        if c["name"] in LIBC:
            keys.add(LIBC[c["name"]])
    defs = definitions(top, trees, keys, use_cache)
    have = [b for b in bases if b in defs]
    missing = [b for b in bases if b not in defs]

    def found_on(name):
        return [b for b in have if defs[b].get(name) or (name in LIBC and defs[b].get(LIBC[name]))]

    problems = []
    stats = {"claims": len(cl), "names": len({c["name"] for c in cl}), "skipped": missing,
             "checked": {b: set() for b in have}, "course": set(), "allowed": set(), "historical": set(),
             "one_base": set(), "absent": set(), "unchecked": set(),
             "field_pairs": 0, "field_skipped": 0, "field_list": []}
    for c in cl:
        n = c["name"]
        on = found_on(n)
        for b in on:
            stats["checked"][b].add(n)
        if c["absent_on"]:
            stats["absent"].add(n)
            wrong = [b for b in on if b == c["absent_on"]]
            if wrong:
                problems.append({"file": c["file"], "line": c["line"], "name": n, "level": "error",
                                 "bases": wrong, "message": "%s() found on %s, which the text says has none" % (
                                     n, c["absent_on"])})
            continue
        lacking = [b for b in have if b not in on]
        if not lacking:
            continue
        if n in course:
            stats["course"].add(n)
            continue
        text, patch = mentioned(c["scope"], bases)
        if n in allow:
            reason = allow[n]
            only = allow_only(reason, bases)
            if reason.startswith("history"):
                if historical(c["scope"]):
                    stats["historical"].add(n)
                    continue
                problems.append({"file": c["file"], "line": c["line"], "name": n, "level": "error",
                                 "bases": lacking, "message": "%s() is a name of the past (%s): say which Linux "
                                 "had it" % (n, ALLOW)})
                continue
            if only is None or only in on or only in missing:
                stats["allowed"].add(n)
                continue
        if on and (text or set(on) & set(patch)):
            stats["one_base"].add(n)
            continue
        if not on and missing and (text or set(missing) & set(patch)):
            stats["unchecked"].add(n)
            continue
        if on:
            msg = "%s() not found on %s (found on %s)" % (n, " or ".join(lacking), ", ".join(on))
        else:
            msg = "%s() not found on %s" % (n, " or ".join(lacking))
        if missing:
            msg += " (%s not checked: no kernel tree)" % ", ".join(missing)
        problems.append({"file": c["file"], "line": c["line"], "name": n, "level": "error",
                         "bases": lacking, "message": msg})

    # second layer: a field named in a sentence with functions
    wanted = {}  # base -> the paths of the bodies
    pairs = []
    seen = set()
    for c in cl:
        if not c["fields"] or (c["file"], c["sentence"]) in seen:
            continue
        seen.add((c["file"], c["sentence"]))
        if historical(c["scope"][:2]):
            stats["field_skipped"] += len(c["fields"])
            continue
        fns = [n for n in dict.fromkeys(c["siblings"]) if n not in LIBC and found_on(n) and
               not any(d[2] == "syscall" for b in have for d in defs[b].get(n, []))]
        if not fns:
            continue
        said = nearest(c["scope"], bases)
        on_any = sorted({b for n in fns for b in found_on(n)}, key=have.index)
        claim_bases = [b for b in on_any if not said or b in said]
        if not claim_bases:
            continue
        for f in c["fields"]:
            pairs.append((c, fns, f, claim_bases))
            for b in claim_bases:
                for n in fns:
                    for path, _, _ in defs[b].get(n, []):
                        wanted.setdefault(b, set()).add(path)
    blobs = {b: read_blobs(trees[b], ps) for b, ps in wanted.items()}
    for c, fns, f, claim_bases in pairs:
        bad, thin = [], True
        for b in claim_bases:
            # a prototype's "body" is whatever follows it in the file
            texts = [body(blobs[b].get(path, ""), line) for n in fns for path, line, _ in defs[b].get(n, [])
                     if is_definition(blobs[b].get(path, ""), line)]
            if any(re.search(r"\b%s\b" % re.escape(f["last"]), t) for t in texts):
                continue
            bad.append(b)
            thin = thin and all(t.count("\n") + 1 < THIN for t in texts)
        if bad and thin:
            stats["field_skipped"] += 1
            continue
        stats["field_pairs"] += 1
        stats["field_list"].append("%s:%d: `%s` in %s on %s" % (c["file"], f["line"], f["span"], ", ".join(
            n + "()" for n in fns), ", ".join(claim_bases)))
        if bad:
            names = " or ".join("%s()" % n for n in fns)
            problems.append({"file": c["file"], "line": f["line"], "name": f["span"],
                             "level": "error" if strict_fields else "warning", "bases": bad,
                             "message": "`%s`: no '%s' in %s on %s" % (f["span"], f["last"], names,
                                                                    " or ".join(bad))})
    problems.sort(key=lambda p: (p["file"], p["line"], p["message"]))
    stats["seconds"] = round(time.time() - t0, 2)
    return problems, stats


def main(argv=None):
    ap = argparse.ArgumentParser(description="check that the functions the book names exist in the kernel trees")
    ap.add_argument("--top", default=os.path.dirname(HERE))
    ap.add_argument("--tree", action="append", default=[], metavar="BASE=DIR",
                    help="a base's kernel repository (default: scripts/lib.sh's, for each base)")
    ap.add_argument("--base", action="append", default=[], help="report this base's problems only")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--fields-warn", action="store_true", help="a field not in its functions is a warning")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--list", action="store_true", help="print every name and what it was found as")
    a = ap.parse_args(argv)
    top = os.path.abspath(a.top)
    if a.tree:
        trees = dict(t.split("=", 1) for t in a.tree)
    else:
        trees = base_trees(top)
    for b in a.base:
        if b not in trees:
            print("claims.py: no base %s (the bases: %s)" % (b, " ".join(trees)), file=sys.stderr)
            return 2
    problems, stats = check(top, trees, not a.no_cache, not a.fields_warn)
    if a.base:
        problems = [p for p in problems if set(p["bases"]) & set(a.base)]
    for b in stats["skipped"]:
        if not a.base or b in a.base:
            print("claims.py: %s: skipped: no kernel tree (%s has no tag %s)" % (b, trees[b], TAG), file=sys.stderr)
    errors = [p for p in problems if p["level"] == "error"]
    warnings = [p for p in problems if p["level"] != "error"]
    counts = {"spans": stats["claims"], "names": stats["names"],
              "found": {b: len(v) for b, v in stats["checked"].items()},
              "course": sorted(stats["course"]), "allowed": sorted(stats["allowed"]),
              "history": sorted(stats["historical"]), "one_base": sorted(stats["one_base"]),
              "absent": sorted(stats["absent"]), "unchecked": sorted(stats["unchecked"]),
              "fields": stats["field_pairs"], "fields_skipped": stats["field_skipped"],
              "errors": len(errors), "warnings": len(warnings), "skipped": stats["skipped"],
              "seconds": stats["seconds"]}
    if a.json:
        json.dump({"problems": problems, "counts": counts}, sys.stdout, indent=1)
        print()
        return 1 if errors else 0
    for p in problems:
        print("%s:%d: %s%s" % (p["file"], p["line"], "warning: " if p["level"] != "error" else "", p["message"]))
    if a.list:
        for b, v in stats["checked"].items():
            print("# found on %s: %s" % (b, " ".join(sorted(v))))
        for k in ("course", "allowed", "history", "one_base", "absent", "unchecked"):
            print("# %s: %s" % (k, " ".join(counts[k])))
        for x in stats["field_list"]:
            print("# field: " + x)
    sys.stdout.flush()
    print("claims.py: %d names in %d spans: %s, %d the course's own, %d allowed, %d history, %d of one base "
          "as the text says; %d fields in their functions; %d errors, %d warnings (%.1f s)" % (
              counts["names"], counts["spans"],
              ", ".join("%d found on %s" % (n, b) for b, n in counts["found"].items()) or "no kernel tree",
              len(counts["course"]), len(counts["allowed"]), len(counts["history"]), len(counts["one_base"]),
              counts["fields"], len(errors), len(warnings), stats["seconds"]), file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
