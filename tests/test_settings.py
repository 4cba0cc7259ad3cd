# SPDX-License-Identifier: GPL-2.0
"""scripts/settings.py: the declarations' parser, the scanner of settings
read from the environment, and the lint of the course's own tree."""

import contextlib
import io
import os
import shutil
import sys
import tempfile
import textwrap
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import settings  # noqa: E402

GOOD = """\
# SPDX-License-Identifier: GPL-2.0
# a comment

# --- paths
BUILD=build  # the build folder
JOBS=$(nproc)  # parallel jobs: a # in the doc is fine
# --- flags
FORCE=  # 1 does it again
"""


class Parser(unittest.TestCase):
    def test_declarations_sections_and_defaults(self):
        s = settings.parse_settings(GOOD, "x.txt")
        self.assertEqual([(d.name, d.default, d.section) for d in s],
                         [("BUILD", "build", "paths"), ("JOBS", "$(nproc)", "paths"), ("FORCE", "", "flags")])
        self.assertEqual(s[1].doc, "parallel jobs: a # in the doc is fine")
        self.assertEqual(s[2].line, 8)

    def bad(self, text, line, words):
        with self.assertRaises(settings.SettingsError) as cm:
            settings.parse_settings(text, "x.txt")
        msg = str(cm.exception)
        self.assertIn("x.txt:%d:" % line, msg)
        self.assertIn(words, msg)

    def test_a_malformed_line_is_an_error_naming_the_line(self):
        self.bad(GOOD + "this is not a declaration\n", 9, "not a declaration")

    def test_a_declaration_without_its_documentation(self):
        self.bad(GOOD + "NEW=1\n", 9, "documentation")
        self.bad(GOOD + "NEW=1  #\n", 9, "documentation")

    def test_a_name_that_is_not_upper_case(self):
        self.bad(GOOD + "new_thing=1  # doc\n", 9, "UPPER_CASE")

    def test_a_declaration_before_any_section(self):
        self.bad("FORCE=  # doc\n# --- s\n", 1, "before the first section")

    def test_a_name_declared_twice(self):
        self.bad(GOOD + "BUILD=x  # again\n", 9, "declared twice (first at line 5)")

    def test_the_course_file_parses(self):
        s = settings.load_settings(os.path.join(TOP, "scripts", "settings.txt"))
        self.assertGreater(len(s), 50)
        self.assertTrue(all(d.doc and d.section for d in s))


class Tree(unittest.TestCase):
    """A small tree of scripts written to a temporary folder."""

    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="settings-test.")
        self.addCleanup(shutil.rmtree, self.top)

    def write(self, rel, text):
        p = os.path.join(self.top, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(textwrap.dedent(text))

    def reads(self):
        return [(r.name, r.path, r.line) for r in settings.scan_tree(self.top)]

    def names(self):
        return sorted({r[0] for r in self.reads()})


class ShellScanner(Tree):
    def test_default_forms_are_reads(self):
        self.write("scripts/a.sh", """\
            #!/bin/sh
            jobs=${JOBS:-2}
            [ -n "${FORCE-}" ] && echo forced
            echo "${QUIET:+quiet}" "${BRANCH=stack}" "${LAB:?no lab}"
            """)
        self.assertEqual(self.reads(), [("JOBS", "scripts/a.sh", 2), ("FORCE", "scripts/a.sh", 3),
                                        ("BRANCH", "scripts/a.sh", 4), ("LAB", "scripts/a.sh", 4),
                                        ("QUIET", "scripts/a.sh", 4)])

    def test_a_default_then_plain_uses_is_one_read(self):
        self.write("scripts/a.sh", """\
            KERNEL_DIR=${KERNEL_DIR:-$HERE/linux}
            git -C "$KERNEL_DIR" status
            echo "${KERNEL_DIR}" "${#KERNEL_DIR}" "${KERNEL_DIR%/*}"
            """)
        self.assertEqual(self.reads(), [("HERE", "scripts/a.sh", 1), ("KERNEL_DIR", "scripts/a.sh", 1)])

    def test_a_plain_read_of_a_name_never_assigned(self):
        self.write("tests/t.sh", 'ls "$HOME" "$TOP_SECRET/x" $((GRADE_BOOT_TIMEOUT * 5))\n')
        self.assertEqual(self.names(), ["GRADE_BOOT_TIMEOUT", "HOME", "TOP_SECRET"])

    def test_a_variable_assigned_before_use_is_not_a_setting(self):
        self.write("scripts/a.sh", """\
            OUT=build/out
            echo "${OUT:-x}" "$OUT"
            export MODE=fast; echo "$MODE"
            read -r FIRST SECOND <file; echo "$FIRST $SECOND"
            for ITEM in a b; do echo "$ITEM"; done
            printf -v STAMP '%s' now; echo "$STAMP"
            ARR=(a "$OUT" b); echo "${ARR[0]}"
            LIST=$(ls "$OUT" | head -1); echo "$LIST"
            """)
        self.assertEqual(self.reads(), [])

    def test_a_local_variable_is_not_a_setting(self):
        self.write("scripts/a.sh", """\
            f() {
            	local N=$1 M
            	M=2
            	declare -a PARTS=()
            	echo "$N ${M:-0} ${PARTS[@]}"
            }
            """)
        self.assertEqual(self.reads(), [])

    def test_a_value_for_a_child_only_is_no_assignment(self):
        self.write("scripts/a.sh", """\
            QEMU_APPEND="${QEMU_APPEND:-} nokaslr" run-qemu.sh
            GDB_PORT=1 run-qemu.sh
            echo "${GDB_PORT:-1234}"
            """)
        self.assertEqual(self.reads(), [("QEMU_APPEND", "scripts/a.sh", 1), ("GDB_PORT", "scripts/a.sh", 3)])

    def test_quotes_comments_and_heredocs(self):
        self.write("scripts/a.sh", """\
            # ${IN_A_COMMENT:-x} is not read
            awk '{ print $NF, ${IN_AWK} }' f
            bash -c '. lib.sh && echo "$IN_BASH_C"'
            echo "text with KERNEL=6.1 in it, and $IN_DQ" # $IN_COMMENT
            echo 'a' "b" $'c\\'$NOT_READ'
            cat <<'EOF'
            $IN_QUOTED_HEREDOC
            EOF
            cat <<EOF
            $IN_HEREDOC and $(echo "$IN_SUBST")
            EOF
            echo "${AFTER:-}"
            """)
        self.assertEqual(self.reads(), [("IN_DQ", "scripts/a.sh", 4), ("IN_HEREDOC", "scripts/a.sh", 10),
                                        ("IN_SUBST", "scripts/a.sh", 10), ("AFTER", "scripts/a.sh", 12)])

    def test_here_strings_and_nested_substitutions(self):
        self.write("scripts/a.sh", """\
            read -r a b <<<"$x"
            d=$(dirname "$(realpath "${WHERE:-.}")")
            echo "$d ${ONE:-$(cat "${TWO:-f}")}"
            """)
        self.assertEqual(self.names(), ["ONE", "TWO", "WHERE"])

    def test_shifts_case_in_a_substitution_and_backquotes(self):
        self.write("scripts/a.sh", """\
            max=$((64 << 20)) bytes=$(( ${MAX_MB:-1} << 20 ))
            x=$(case $y in a) echo "${IN_CASE:-}" ;; esac)
            z=`echo $IN_BACKQUOTES`
            echo "${AFTER:-}"
            """)
        self.assertEqual(self.names(), ["AFTER", "IN_BACKQUOTES", "IN_CASE", "MAX_MB"])

    def test_a_sourced_library(self):
        self.write("scripts/lib.sh", """\
            TOP=$(cd "$(dirname "$0")/.." && pwd)
            JOBS=${JOBS:-$(nproc)}
            say() { echo "$PREFIX $*"; }
            """)
        self.write("scripts/a.sh", """\
            echo "${JOBS:-early}"
            . "$(dirname "$0")/lib.sh"
            PREFIX=a
            echo "$TOP" "$JOBS" "${JOBS:-x}"
            """)
        # lib.sh's JOBS; a.sh's JOBS before it sourced lib.sh; PREFIX is a.sh's (lib.sh's includer)
        self.assertEqual(self.reads(), [("JOBS", "scripts/a.sh", 1), ("JOBS", "scripts/lib.sh", 2)])

    def test_the_guest_library_and_an_ignored_line(self):
        self.write("guest-rootfs/lib/ktap.sh", 'to=${KTAP_POINT_TIMEOUT:-20}\n')
        self.write("labs/01-x/check", """\
            . /lib/ktap.sh
            echo "$to $NOT_A_SETTING"  # settings-lint: ignore
            """)
        self.assertEqual(self.reads(), [("KTAP_POINT_TIMEOUT", "guest-rootfs/lib/ktap.sh", 1)])

    def test_a_new_setting_fails_the_lint(self):
        self.write("scripts/a.sh", 'x=${NEW_THING:-x}\ny=${OLD:-y}\n')
        self.write("scripts/settings.txt", "# --- s\nOLD=y  # old\nGONE=  # nothing reads it\n")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = settings.main(["lint", "--top", self.top])
        self.assertEqual(rc, 1)
        self.assertEqual(out.getvalue(), "undeclared: NEW_THING (scripts/a.sh:1)\nunused: GONE\n")

    def test_a_malformed_settings_file_stops_the_lint(self):
        self.write("scripts/settings.txt", "# --- s\nOLD y\n")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = settings.main(["lint", "--top", self.top])
        self.assertEqual(rc, 2)
        self.assertIn("settings.txt:2:", err.getvalue())


class PythonAndMakefile(Tree):
    def test_python_reads(self):
        self.write("scripts/a.py", """\
            import os
            from os import environ as env, getenv
            a = os.environ.get("LABS_DIR") or "labs"
            b = os.environ["GRADE_OUT"]
            c = os.getenv("TERM", "dumb")
            d = "CI" in os.environ
            e = env.get("ALIASED")
            f = getenv("IMPORTED")
            g = os.environ.setdefault("SET_DEFAULT", "1")
            os.environ["ASSIGNED"] = "1"
            del os.environ["DELETED"]
            h = os.environ.get("lower_case")
            child = dict(os.environ, PASSED="1")
            """)
        self.assertEqual(self.names(), ["ALIASED", "CI", "GRADE_OUT", "IMPORTED", "LABS_DIR", "SET_DEFAULT",
                                        "TERM"])

    def test_makefile_reads(self):
        self.write("Makefile", """\
            S := scripts
            override SUB := $(value SUB)
            export SUB
            grade: ## grade SUB (LAB=N)
            \t@$(S)/grade.sh "$${SUB-}" "$${LAB-}" $(if $(GEN_ONLY),-g) $(MAKEFILE_LIST)
            \t@GRADE_JOBS="$${JOBS-}" JOBS= $(S)/x.sh "$$HOME" $${TAG:+--tag "$$TAG"}
            """)
        self.assertEqual(self.reads(), [("SUB", "Makefile", 2), ("GEN_ONLY", "Makefile", 5),
                                        ("LAB", "Makefile", 5), ("SUB", "Makefile", 5), ("HOME", "Makefile", 6),
                                        ("JOBS", "Makefile", 6), ("TAG", "Makefile", 6)])


class List(unittest.TestCase):
    def test_the_table(self):
        s = settings.parse_settings(GOOD + "LONG=/a/very/long/default/path/that/does/not/fit  # d\n")
        out = settings.format_list(s, 100)
        self.assertIn("--- paths", out)
        self.assertRegex(out, r"\nFORCE +\(none\) +1 does it again\n")
        self.assertRegex(out, r"\nLONG +/a/very/long/default/path/that/does/not/fit\n +d\n")
        self.assertTrue(all(len(line) <= 100 for line in out.splitlines()))


class CourseTree(unittest.TestCase):
    def test_the_course_lints_clean(self):
        s = settings.load_settings(os.path.join(TOP, "scripts", "settings.txt"))
        self.assertEqual(settings.lint(TOP, s), [])

    def test_the_course_list_fits_100_columns(self):
        s = settings.load_settings(os.path.join(TOP, "scripts", "settings.txt"))
        out = settings.format_list(s, 100)
        long = [line for line in out.splitlines() if len(line) > 100 and not line.split()[0] in
                {d.name for d in s}]
        self.assertEqual(long, [])


if __name__ == "__main__":
    unittest.main()
