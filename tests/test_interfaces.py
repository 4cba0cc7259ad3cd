# SPDX-License-Identifier: GPL-2.0
"""The harness's interfaces are written down once, and read from there:

  - how a boot ended: run-qemu.sh's exit status, named in
    scripts/qemu-outcomes.sh. The numbers do not change, run-qemu.sh exits
    through the names, and no script compares its status with a bare number.
  - what a kernel's log says when the kernel is in trouble: the sections of
    scripts/kernel-trouble.re. No other script spells out a pattern of it.
  - the start and end lines of /init's block on the results channel:
    scripts/ktap.py's START and SENTINEL. guest-rootfs/init, which writes
    them, writes those; no other script spells them out.
"""

import ast
import glob
import io
import os
import re
import subprocess
import sys
import tokenize
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "scripts"))
import ktap  # noqa: E402

OUTCOMES_SH = os.path.join(TOP, "scripts", "qemu-outcomes.sh")

# The numbers are an interface (the grader, make check, the staircase and
# others' tools read them): a change to one is a change to all of those.
PINNED = {"OK": 0, "TIMEOUT": 3, "PANIC": 4, "REBOOT": 5, "FLOOD": 6, "UNAUTHENTICATED": 7}


def read(rel):
    with open(os.path.join(TOP, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def outcomes_from_shell():
    """[(NAME, number, meaning, qemu_outcome's name for the number)] as the
    shell file has them, read by bash itself."""
    script = r'''
. "$1"
for o in $QEMU_OUTCOMES; do
	v=QEMU_$o s=QEMU_SAYS_$o
	printf '%s\t%s\t%s\t%s\n' "$o" "${!v}" "${!s}" "$(qemu_outcome "${!v}")"
done
'''
    out = subprocess.run(["bash", "-c", script, "_", OUTCOMES_SH], check=True,
                         capture_output=True, text=True).stdout
    return [tuple(line.split("\t")) for line in out.splitlines()]


def shell_call(func, *args):
    script = '. "$1"; shift; "$@"'
    return subprocess.run(["bash", "-c", script, "_", OUTCOMES_SH, func] + list(args),
                          check=True, capture_output=True, text=True).stdout.strip()


# --- the shell scripts that read run-qemu.sh's status ---------------------

# What runs run-qemu.sh and gives its status (|| VAR=$?, or VAR=$? on the
# next line): the script itself and the staircase's wrapper of it; what
# reads a status it kept (VAR=$(boot_rc NAME)).
RUNNER = re.compile(r"scripts/run-qemu\.sh\b|\bboot_once\b")
READER = re.compile(r"\b(\w+)=\$\(\s*boot_rc\b")
HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_]\w*)\1")
FUNC = re.compile(r"^([A-Za-z_][\w-]*)\s*\(\)\s*\{")
TOKEN = re.compile(r"\"[^\"]*\"|'[^']*'|[;|&()]+|[^\s;|&()]+")


def logical_lines(text):
    """[(line number, text)]: continued lines joined, comments and
    here-documents' bodies (another program's text) left out."""
    out, cur, start, doc = [], "", 0, None
    for n, line in enumerate(text.split("\n"), 1):
        if doc:
            if (line.lstrip("\t") if doc[1] else line) == doc[0]:
                doc = None
            continue
        if not cur and line.lstrip().startswith("#"):
            continue
        if not cur:
            start = n
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        cur += line
        m = HEREDOC.search(cur.replace("<<<", "   "))
        if m:
            doc = (m.group(2), "<<-" in cur)
        out.append((start, cur))
        cur = ""
    return out


def compares(line, var):
    """Whether line compares $var with a bare number (case labels aside)."""
    ref = r'"?\$\{?%s\}?"?' % re.escape(var)
    num = r'"?[0-9]+"?(?=[\s\]);]|$)'
    op = r"\s*(?:-eq|-ne|-lt|-le|-gt|-ge|==|!=|=)\s*"
    return bool(re.search(ref + op + num, line) or re.search(r'(?<![\w$])' + num + op + ref, line) or
                re.search(r"\bt_expect\s+(?:\"[^\"]*\"|'[^']*')\s+" + num + r"\s+" + ref, line) or
                re.search(r"\(\(\s*\$?\{?%s\}?\s*(?:==|!=|<=|>=|<|>)\s*[0-9]+" % re.escape(var), line))


def case_labels(lines, i, var):
    """The bare-number labels of a 'case $var in' that starts at lines[i]."""
    if not re.search(r'\bcase\s+"?\$\{?%s\}?"?\s+in\b' % re.escape(var), lines[i][1]):
        return []
    body = ""
    for _n, line in lines[i:]:
        body += line + "\n"
        if re.search(r"\besac\b", line):
            break
    body = re.split(r"\bin\b", body, 1)[1].rsplit("esac", 1)[0]
    bad = []
    for chunk in body.split(";;"):
        label = chunk.strip().split(")", 1)[0] if ")" in chunk else ""
        alts = [a.strip().lstrip("(").strip() for a in label.split("|")]
        bad += [a for a in alts if re.fullmatch(r'"?[0-9]+"?', a)]
    return bad


def bare_status_comparisons(text):
    """[(line number, what)]: the places a shell script compares a status
    of run-qemu.sh with a bare number. A variable holds one from the line
    that captures it to the next assignment to it, or to the end of the
    function it was captured in; a function given it as its Kth argument
    holds it in $K."""
    lines = logical_lines(text)
    funcs = {}  # name -> (first, last) index in lines
    for i, (_n, line) in enumerate(lines):
        m = FUNC.match(line)
        if m and line.rstrip().endswith("}"):
            funcs[m.group(1)] = (i, i)
        elif m:
            end = next((j for j in range(i + 1, len(lines)) if lines[j][1] == "}"), len(lines) - 1)
            funcs[m.group(1)] = (i, end)

    def func_end(i):
        return next((b for a, b in funcs.values() if a < i <= b), None)

    found, active, args = [], {}, set()
    for i, (n, line) in enumerate(lines):
        for v, end in list(active.items()):
            if end is not None and i > end:
                del active[v]
        got = set()
        if RUNNER.search(line):
            got |= set(re.findall(r"\|\|\s*(\w+)=\$\?", line))
        if i and RUNNER.search(lines[i - 1][1]):
            got |= set(re.findall(r"^\s*(\w+)=\$\?", line))
        got |= set(READER.findall(line))
        for v in list(active):
            if v not in got and re.search(r"(?:^|[\s;&|(])%s=" % re.escape(v), line):
                del active[v]
        for v in got:
            active[v] = func_end(i)
        for v in active:
            if compares(line, v):
                found.append((n, "$%s compared with a number: %s" % (v, line.strip())))
            found += [(n, "case $%s: label %s" % (v, a)) for a in case_labels(lines, i, v)]
            for f in funcs:
                for m in re.finditer(r"\b%s\b" % re.escape(f), line):
                    words = []
                    for t in TOKEN.findall(line[m.end():]):
                        if re.fullmatch(r"[;|&()]+", t):
                            break
                        words.append(t)
                    for k, w in enumerate(words, 1):
                        if re.fullmatch(r'"?\$\{?%s\}?"?' % re.escape(v), w):
                            args.add((f, str(k)))
    for f, k in sorted(args):
        a, b = funcs[f]
        for i in range(a + 1, b + 1):
            n, line = lines[i]
            if compares(line, k):
                found.append((n, "%s's $%s (a status) compared with a number: %s" % (f, k, line.strip())))
            found += [(n, "case $%s in %s: label %s" % (k, f, x)) for x in case_labels(lines, i, k)]
    return found


def shell_files():
    return sorted(os.path.relpath(p, TOP) for g in ("scripts/*.sh", "tests/*.sh")
                  for p in glob.glob(os.path.join(TOP, g)))


class Outcomes(unittest.TestCase):
    def test_the_names_keep_their_numbers(self):
        got = outcomes_from_shell()
        self.assertEqual({o: int(num) for o, num, _s, _n in got}, PINNED)
        self.assertEqual([int(num) for _o, num, _s, _n in got], sorted(PINNED.values()),
                         "QEMU_OUTCOMES: in the order of their numbers")

    def test_each_outcome_has_its_name_and_a_meaning(self):
        for o, _num, says, name in outcomes_from_shell():
            self.assertEqual(name, o)
            self.assertTrue(says, "no QEMU_SAYS_%s" % o)
        self.assertEqual(shell_call("qemu_outcome", "1"), "exit 1")
        self.assertIn("run-qemu.sh failed", shell_call("qemu_outcome_says", "1"))
        self.assertEqual(shell_call("qemu_outcome_says", "4"), "the kernel panicked")

    def test_run_qemu_exits_through_the_names_and_says_them(self):
        text = read("scripts/run-qemu.sh")
        bare = [line for _n, line in logical_lines(text) if re.search(r"\bexit\s+[0-9]", line)]
        self.assertEqual(bare, [], "run-qemu.sh: exit through the names of qemu-outcomes.sh")
        for o, num in PINNED.items():
            self.assertIn("QEMU_%s (%d" % (o, num), text, "run-qemu.sh's header: QEMU_%s" % o)
            self.assertIn('exit "$QEMU_%s"' % o, text)

    def test_no_script_compares_the_status_with_a_bare_number(self):
        bad = []
        for rel in shell_files():
            bad += ["%s:%d: %s" % (rel, n, what) for n, what in bare_status_comparisons(read(rel))]
        self.assertEqual(bad, [], "compare run-qemu.sh's status with the names of "
                         "scripts/qemu-outcomes.sh (\"$QEMU_PANIC\", qemu_outcome RC)")

    def test_the_lint_finds_what_it_is_for(self):
        text = "\n".join([
            'rc=0',
            '[ "$rc" -eq 4 ]  # an rc of something else: not a status',
            'QEMU_APPEND=x "$TOP/scripts/run-qemu.sh" --labs 01 \\',
            '	--log "$log" || rc=$?',
            '[ "$rc" -eq 4 ] || echo',
            '[ "$rc" -ne "$QEMU_OK" ] || echo',
            'case $rc in',
            '"$QEMU_OK") ;;',
            '3 | "$QEMU_PANIC") ;;',
            'esac',
            't_expect "it panics" 7 "$rc"',
            'cat <<EOF',
            '[ "$rc" -eq 5 ]',
            'EOF',
            'lost=$(check_it "$name" "$rc")',
            'rc=$?',
            '[ "$rc" -eq 6 ]',
            'check_it() {',
            '	[ "$2" -eq 3 ] && echo all',
            '	[ "$1" -eq 3 ] && echo name',
            '}',
            'x=$(boot_rc s)',
            '[ $x = 0 ]',
        ])
        got = [n for n, _w in bare_status_comparisons(text)]
        self.assertEqual(got, [5, 7, 11, 23, 19])


# --- kernel-trouble.re and the end-of-checks line -------------------------

# Spelled out in a script this change could not edit: each entry names the
# file and what it spells. Remove an entry when its file reads the line
# from the one place (ktap.py grep oom-any X.log, ktap.trouble_sections()["oom-any"];
# ktap.SENTINEL, ktap.py json X.ktap's "ended").
KNOWN = set()


def trouble_keys():
    """What a script that spells a pattern of kernel-trouble.re would
    write: the first two words of the pattern's longest literal part (three
    when one of the two is shorter than three letters: "Out of memory")."""
    keys = set()
    for pats in ktap.trouble_sections().values():
        for p in pats:
            words = max(re.split(r"[.*+?()\[\]{}|^$\\]+", p.pattern), key=len).split()
            keys.add(" ".join(words[:3 if any(len(w) < 3 for w in words[:2]) else 2]))
    return keys


def code_lines(rel):
    """[(line number, text)] of a script without its comments (and a Python
    file's docstrings)."""
    text = read(rel)
    lines = text.split("\n")
    if not rel.endswith(".py"):
        return [(n, line) for n, line in enumerate(lines, 1) if not line.lstrip().startswith("#")]
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            r, c = tok.start
            lines[r - 1] = lines[r - 1][:c]
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            for r in range(body[0].lineno, body[0].end_lineno + 1):
                lines[r - 1] = ""
    return list(enumerate(lines, 1))


def scripts():
    out = []
    for d, _dirs, files in os.walk(os.path.join(TOP, "scripts")):
        out += [os.path.relpath(os.path.join(d, f), TOP) for f in files
                if not f.endswith((".pyc", ".re")) and "__pycache__" not in d]
    return sorted(out)


class OnePlace(unittest.TestCase):
    def test_trouble_sections(self):
        sections = ktap.trouble_sections()
        self.assertEqual(sorted(sections), sorted(ktap.TROUBLE_SECTIONS + ("oom-any",)))
        for name, pats in sections.items():
            self.assertTrue(pats, "[%s] is empty" % name)
        self.assertTrue(any(p.search("[    4.2] Kernel panic - not syncing: Attempted to kill init!")
                            for p in sections["panic"]))

    def test_no_script_spells_out_a_trouble_pattern(self):
        keys = trouble_keys()
        self.assertIn("Kernel panic", keys)
        self.assertIn("Out of memory", keys)
        bad = []
        for rel in scripts():
            for n, line in code_lines(rel):
                bad += ["%s:%d: %r" % (rel, n, k) for k in sorted(keys)
                        if k in line and (rel, k) not in KNOWN]
        self.assertEqual(bad, [], "read the patterns from scripts/kernel-trouble.re "
                         "(ktap.py trouble, ktap.py grep SECTION)")

    def test_no_script_spells_out_the_block_lines(self):
        bad = []
        for rel in scripts():
            for n, line in code_lines(rel):
                if rel == "scripts/ktap.py" and re.match(r"(SENTINEL|START) = ", line):
                    continue
                bad += ["%s:%d" % (rel, n) for k in (ktap.SENTINEL, ktap.START)
                        if k[2:] in line and (rel, k[2:]) not in KNOWN]
        self.assertEqual(bad, [], "take the block's lines from ktap.py (START, SENTINEL)")

    def test_init_writes_the_lines_the_host_reads(self):
        written = re.findall(r'echo "(# userns-labs: [^"]*)"', read("guest-rootfs/init"))
        self.assertIn(ktap.START + " $nonce", written)
        self.assertIn(ktap.SENTINEL + " $nonce", written)
        self.assertEqual(sorted(set(written)), sorted({ktap.START + " $nonce", ktap.SENTINEL + " $nonce"}))


if __name__ == "__main__":
    unittest.main()
